//! Byte-level formats shared by every command: JSON and YAML readers and
//! writers that reproduce upstream's exact bytes, Go-compatible base64 and
//! string quoting. No I/O and no knowledge of catalogs or bundles.

pub mod base64;
pub mod json;
pub mod stream;
pub mod timestamp;
pub mod yaml_read;
pub mod yaml_write;

/// Stack size of the thread that deeply nested documents are handled on: enough for Go's nesting
/// limit (10,000 levels) in every recursive stage of the readers.
const DEEP_STACK: usize = 256 << 20;

/// Runs `work` on a thread with a large stack (inline when no such thread can be started), for
/// the few documents nested deeper than the default stacks allow. `Err` carries a panic of
/// `work`.
pub(crate) fn on_deep_stack<T: Send>(work: impl Fn() -> T + Sync) -> std::thread::Result<T> {
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .stack_size(DEEP_STACK)
            .spawn_scoped(scope, &work)
        {
            Ok(handle) => handle.join(),
            Err(_) => Ok(work()),
        }
    })
}
