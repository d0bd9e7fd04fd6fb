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
pub mod probe;
pub mod property;
pub mod semver;
pub mod serve;
pub mod template;
#[cfg(test)]
mod testkit;
pub mod validate;

use clap::FromArgMatches as _;
use std::ffi::OsString;
use std::process::ExitCode;

/// Whether this binary is linked statically, C library included (the
/// `x86_64-unknown-linux-musl` build): it then needs no file of a
/// distribution to run, resolves host names without the C library's NSS
/// (musl reads `/etc/hosts` and `/etc/resolv.conf` itself) and carries the
/// CA roots it trusts when the system has none, so it can run in an empty
/// image and be the base of catalog images (`opm alpha catalog build`).
pub const SELF_CONTAINED: bool = cfg!(target_feature = "crt-static");

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Success,
    /// The command ran and reported a failure itself (e.g. validation findings).
    Failure,
}

/// Parses `args`, runs the command, prints any error once, and maps the
/// result to upstream's exit codes (0 success, 1 any failure). Invoked as
/// `grpc_health_probe`, runs [`probe`] instead, with the probe's exit codes.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let mut args: Vec<OsString> = args.into_iter().collect();
    // Catalog images link /bin/grpc_health_probe to opm: under that name, opm is the probe.
    if args
        .first()
        .is_some_and(|argv0| probe::is_invoked_as_probe(argv0))
    {
        let status = probe::run(&args[1..], &mut |stream, text| match stream {
            probe::Stream::Stdout => {
                let _ = output::stdout(text.as_bytes());
            }
            probe::Stream::Stderr => output::stderr(text),
        });
        return ExitCode::from(status.code());
    }
    // Words after the program name, for messages (not for parsing).
    let words_of = |args: &[OsString]| -> Vec<String> {
        args.iter()
            .skip(1)
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect()
    };
    let mut words = words_of(&args);
    if let Some(message) = commands::removed::message(&words) {
        output::error(&message);
        return ExitCode::from(1);
    }
    // `opm help bundle build` is `opm bundle build --help`.
    if words.iter().find(|word| !word.starts_with('-')) == Some(&"help".to_string()) {
        if let Some(at) = args.iter().skip(1).position(|arg| arg == "help") {
            args.remove(at + 1);
            args.push(OsString::from("--help"));
            words = words_of(&args);
        }
    }
    let mut command = cli::command();
    let parsed = command
        .try_get_matches_from_mut(&args)
        .and_then(|matches| cli::Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(error) => return clap_error(&error, &mut command, &words),
    };
    let path = commands::usage::subcommand_path(&command, &words);
    // The command runs on a thread with a large stack: documents may nest 10,000 levels deep
    // (Go's limit), and readers and writers recurse into them.
    let worker = std::thread::Builder::new()
        .name("opm".into())
        .stack_size(encoding::DEEP_STACK)
        .spawn(move || commands::dispatch(cli));
    let result = match worker {
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
            if let Some(hinted) = error.downcast_ref::<commands::usage::Hinted>() {
                output::hint(&hinted.hint);
            }
            // A wrong argument: the command's usage follows, as cobra prints it.
            if error
                .downcast_ref::<commands::usage::UsageError>()
                .is_some()
            {
                output::usage(&commands::usage::usage_text(&mut command, &path));
            }
            ExitCode::from(1)
        }
    }
}

/// Reports an error clap found (or the help or version it was asked for).
fn clap_error(error: &clap::Error, command: &mut clap::Command, words: &[String]) -> ExitCode {
    match commands::usage::clap_error(error, command, words) {
        commands::usage::ClapOutcome::Stdout(text) => {
            // A broken pipe (`opm --help | head -1`) is fine.
            let _ = output::stdout(text.as_bytes());
            ExitCode::SUCCESS
        }
        commands::usage::ClapOutcome::Error { message, usage } => {
            output::error(&message);
            if let Some(usage) = usage {
                output::usage(&usage);
            }
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
