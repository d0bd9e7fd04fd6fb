//! `opm`, the Operator Package Manager: file-based catalogs and operator
//! bundles for the Operator Lifecycle Manager.
//!
//! Data flows one way: `cli` (clap types) → `commands` (glue) → `action`
//! (use cases) → `declcfg` / `model` / `validate`; only `output` writes to the
//! terminal and only [`run`] decides the exit status.

pub mod action;
pub mod bundle;
pub mod cel;
pub mod cli;
pub mod commands;
pub mod declcfg;
pub mod diag;
pub mod encoding;
pub mod fsutil;
pub mod gosort;
pub mod image;
pub mod model;
pub mod output;
pub mod property;
pub mod semver;
pub mod serve;
pub mod template;
pub mod validate;

use clap::Parser as _;
use std::ffi::OsString;
use std::process::ExitCode;

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Success,
    /// The command ran and reported a failure itself (e.g. validation findings).
    Failure,
}

/// Parses `args`, runs the command, prints any error once, and maps the
/// result to upstream's exit codes (0 success, 1 any failure).
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match cli::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            let code = if error.use_stderr() { 1 } else { 0 };
            // Help and version go to stdout; a broken pipe there is fine.
            let _ = error.print();
            return ExitCode::from(code);
        }
    };
    // The command runs on a thread with a large stack: documents may nest 10,000 levels deep
    // (Go's limit), and readers and writers recurse into them.
    let command = std::thread::Builder::new()
        .name("opm".into())
        .stack_size(encoding::DEEP_STACK)
        .spawn(move || commands::dispatch(cli));
    let result = match command {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        Err(error) => Err(anyhow::Error::new(error).context("cannot start the command's thread")),
    };
    match result {
        Ok(ExitStatus::Success) => ExitCode::SUCCESS,
        Ok(ExitStatus::Failure) => ExitCode::from(1),
        Err(error) => {
            if is_broken_pipe(&error) {
                return ExitCode::SUCCESS;
            }
            output::error(&diag::error_chain(error.chain()));
            ExitCode::from(1)
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
