//! Byte-level formats shared by every command: JSON and YAML readers and
//! writers that reproduce upstream's exact bytes, Go-compatible base64 and
//! string quoting. No I/O and no knowledge of catalogs or bundles.

pub mod base64;
pub mod civil;
pub mod gojson;
pub mod json;
pub mod locate;
pub mod stream;
pub mod table;
pub mod timestamp;
pub mod yaml_read;
pub mod yaml_write;

/// Stack size of the thread that deeply nested documents are handled on: enough for Go's nesting
/// limit (10,000 levels) in every recursive stage of the readers and writers, even unoptimised.
/// The command itself runs on such a thread (`crate::run`). Only the pages used are ever
/// touched.
pub const DEEP_STACK: usize = 256 << 20;

/// Stack size of the threads that load and write catalog files in parallel: enough for values
/// nested 10,000 levels deep.
pub const WORKER_STACK: usize = 64 << 20;

/// Spawns a worker thread in `scope` with a [`WORKER_STACK`] stack.
pub fn spawn_worker<'scope, 'env, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    work: impl FnOnce() -> T + Send + 'scope,
) -> std::thread::ScopedJoinHandle<'scope, T> {
    std::thread::Builder::new()
        .stack_size(WORKER_STACK)
        .spawn_scoped(scope, work)
        .unwrap_or_else(|error| panic!("cannot start a worker thread: {error}"))
}

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
