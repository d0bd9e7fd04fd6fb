//! `opm serve` arguments (upstream's `cmd/opm/serve`).

use clap::{ArgAction, Args};

pub const SERVE_LONG: &str = "This command serves declarative configs via a GRPC server.

NOTE: The declarative config directory is loaded by the serve command at
startup. Changes made to the declarative config after this command starts
will not be reflected in the served content.";

#[derive(Debug, Args)]
#[command(override_usage = "<source_path>")]
pub struct ServeArgs {
    /// The file-based catalog directory to serve
    #[arg(value_name = "source_path")]
    pub dirs: Vec<String>,
    /// path to a container termination log file
    #[arg(short = 't', long, default_value = "/dev/termination-log")]
    pub termination_log: String,
    /// port number to serve on
    #[arg(short = 'p', long, default_value = "50051")]
    pub port: String,
    /// address of startup profiling endpoint (addr:port format); accepted for compatibility, no profiling endpoint is served
    #[arg(long, default_value = "localhost:6060")]
    pub pprof_addr: String,
    /// capture pprof CPU profiles; accepted for compatibility, nothing is captured
    #[arg(long, num_args = 0..=1, require_equals = true, default_value = "false",
          default_missing_value = "true", value_parser = go_bool, action = ArgAction::Set)]
    pub pprof_capture_profiles: bool,
    /// if set, sync and persist server cache directory
    #[arg(long, default_value = "")]
    pub cache_dir: String,
    /// sync the serve cache and exit without serving
    #[arg(long, num_args = 0..=1, require_equals = true, default_value = "false",
          default_missing_value = "true", value_parser = go_bool, action = ArgAction::Set)]
    pub cache_only: bool,
    /// exit with error if cache is not present or has been invalidated. (default: true when --cache-dir is set and --cache-only is false, false otherwise)
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true",
          value_parser = go_bool, action = ArgAction::Set)]
    pub cache_enforce_integrity: Option<bool>,
}

/// A boolean flag value as Go's `strconv.ParseBool` reads it (`--flag=false`).
fn go_bool(value: &str) -> Result<bool, NotABool> {
    match value {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
        other => Err(NotABool(other.to_string())),
    }
}

/// A boolean flag value that Go's `strconv.ParseBool` rejects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid syntax: {0:?} is not a boolean")]
pub struct NotABool(String);

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Command};
    use clap::Parser as _;

    fn parse(args: &[&str]) -> super::ServeArgs {
        let mut argv = vec!["opm", "serve"];
        argv.extend_from_slice(args);
        match Cli::try_parse_from(argv).map(|cli| cli.command) {
            Ok(Some(Command::Serve(args))) => args,
            other => panic!("not a serve command: {other:?}"),
        }
    }

    #[test]
    fn defaults_are_upstreams() {
        let args = parse(&["dir"]);
        assert_eq!(args.dirs, ["dir"]);
        assert_eq!(args.port, "50051");
        assert_eq!(args.termination_log, "/dev/termination-log");
        assert_eq!(args.pprof_addr, "localhost:6060");
        assert_eq!(args.cache_dir, "");
        assert!(!args.cache_only && !args.pprof_capture_profiles);
        assert_eq!(args.cache_enforce_integrity, None);
    }

    #[test]
    fn boolean_flags_take_go_spellings() {
        let args = parse(&[
            "dir",
            "--cache-only",
            "--cache-enforce-integrity=false",
            "-p",
            "1",
        ]);
        assert!(args.cache_only);
        assert_eq!(args.cache_enforce_integrity, Some(false));
        assert_eq!(args.port, "1");
        let args = parse(&["dir", "--cache-only=F", "--cache-enforce-integrity"]);
        assert!(!args.cache_only);
        assert_eq!(args.cache_enforce_integrity, Some(true));
        let argv = ["opm", "serve", "dir", "--cache-only=maybe"];
        assert!(Cli::try_parse_from(argv).is_err());
    }
}
