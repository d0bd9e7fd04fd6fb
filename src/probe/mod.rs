//! `grpc_health_probe`: what `opm` does when it is invoked under that name (catalog images
//! link `/bin/grpc_health_probe` to `/bin/opm`, and OLM's pods run it as their readiness and
//! liveness probes). It behaves as grpc-ecosystem's grpc-health-probe v0.4.56: the same flags
//! (read as Go's `flag` package reads them), the same lines on stderr and stdout, the same exit
//! codes. It prints nothing itself: every line goes to the caller's `emit`, in order, as
//! soon as the original would print it.

mod client;
mod duration;
mod flags;
mod target;
mod tls;

use crate::encoding::json::go_quote;
use duration::GoDuration;
use flags::{FlagError, Options};
use std::ffi::{OsStr, OsString};
use std::time::Instant;
use target::{Target, TargetError};
use tls::CredentialsError;

/// The name `opm` answers to as the probe (the basename of `argv[0]`).
pub const NAME: &str = "grpc_health_probe";

/// Whether `argv0` invokes the probe: its basename is [`NAME`], however it was reached (a
/// link, a path).
pub fn is_invoked_as_probe(argv0: &OsStr) -> bool {
    std::path::Path::new(argv0)
        .file_name()
        .is_some_and(|name| name == NAME)
}

/// The original's exit statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The service answered `SERVING`.
    Serving,
    /// Bad arguments (also `-h`, as Go's `flag` package reports help as an error).
    InvalidArguments,
    /// No connection within `-connect-timeout`.
    ConnectionFailure,
    /// The call failed or timed out.
    RpcFailure,
    /// The call succeeded but the status is not `SERVING`.
    Unhealthy,
}

impl Status {
    pub fn code(self) -> u8 {
        match self {
            Status::Serving => 0,
            Status::InvalidArguments => 1,
            Status::ConnectionFailure => 2,
            Status::RpcFailure => 3,
            Status::Unhealthy => 4,
        }
    }
}

/// Where a line goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Why the probe did not report `SERVING`. Each message is the whole line the original logs.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A flag the original's validation refuses.
    #[error("error: {0}")]
    Argument(ArgumentError),
    /// A flag of the original this build cannot honour, and why.
    #[error("error: {flag} is not supported by opm's grpc_health_probe: {why}")]
    Unsupported {
        flag: &'static str,
        why: &'static str,
    },
    #[error("-tls and -spiffe are mutually incompatible")]
    TlsWithSpiffe,
    #[error("failed to initialize tls credentials. error={0}")]
    Credentials(CredentialsError),
    #[error("timeout: failed to connect service {} within {timeout}", go_quote(.addr))]
    ConnectTimeout { addr: String, timeout: GoDuration },
    #[error("error: failed to connect service at {}: {reason}", go_quote(.addr))]
    Connect { addr: String, reason: ConnectError },
    #[error("error: this server does not implement the grpc health protocol (grpc.health.v1.Health): {message}")]
    Unimplemented { message: String },
    #[error("timeout: health rpc did not complete within {timeout}")]
    RpcTimeout { timeout: GoDuration },
    /// grpc-go's `%+v` of a status error.
    #[error("error: health rpc failed: rpc error: code = {code} desc = {message}")]
    Rpc { code: &'static str, message: String },
    #[error("service unhealthy (responded with {})", go_quote(.status))]
    Unhealthy { status: String },
}

impl Error {
    pub fn status(&self) -> Status {
        match self {
            Error::Argument(_)
            | Error::Unsupported { .. }
            | Error::TlsWithSpiffe
            | Error::Credentials(_) => Status::InvalidArguments,
            Error::ConnectTimeout { .. } | Error::Connect { .. } => Status::ConnectionFailure,
            Error::Unimplemented { .. } | Error::RpcTimeout { .. } | Error::Rpc { .. } => {
                Status::RpcFailure
            }
            Error::Unhealthy { .. } => Status::Unhealthy,
        }
    }
}

/// grpc-go's names of status codes (`codes.Code.String`).
fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code;
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "Canceled",
        Code::Unknown => "Unknown",
        Code::InvalidArgument => "InvalidArgument",
        Code::DeadlineExceeded => "DeadlineExceeded",
        Code::NotFound => "NotFound",
        Code::AlreadyExists => "AlreadyExists",
        Code::PermissionDenied => "PermissionDenied",
        Code::ResourceExhausted => "ResourceExhausted",
        Code::FailedPrecondition => "FailedPrecondition",
        Code::Aborted => "Aborted",
        Code::OutOfRange => "OutOfRange",
        Code::Unimplemented => "Unimplemented",
        Code::Internal => "Internal",
        Code::Unavailable => "Unavailable",
        Code::DataLoss => "DataLoss",
        Code::Unauthenticated => "Unauthenticated",
    }
}

/// The name of a `HealthCheckResponse.ServingStatus` (its number when unknown, as Go's
/// generated `String` gives it).
fn serving_status_name(status: i32) -> String {
    match status {
        0 => "UNKNOWN".into(),
        1 => "SERVING".into(),
        2 => "NOT_SERVING".into(),
        3 => "SERVICE_UNKNOWN".into(),
        other => other.to_string(),
    }
}

/// The lines the original logs, each ended with a newline as Go's `log` ends it.
struct Log<'a> {
    emit: &'a mut dyn FnMut(Stream, &str),
}

impl Log<'_> {
    fn line(&mut self, text: &str) {
        (self.emit)(Stream::Stderr, &format!("{text}\n"));
    }
}

/// The version line of `-version`, in the original's shape (`TAG; commit REVISION`).
fn version_line() -> String {
    let commit = env!("OPM_GIT_COMMIT");
    let tag = concat!("opm v", env!("CARGO_PKG_VERSION"));
    if commit == "unknown" {
        format!("{tag}; vcs info was not included in build")
    } else {
        format!("{tag}; commit {commit}")
    }
}

/// Why the dial failed before its timeout, in grpc-go's words.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// grpc-go refused the target.
    #[error("{0}")]
    Target(TargetError),
    /// SIGINT or SIGTERM cancelled the dial.
    #[error("context canceled")]
    Canceled,
    /// The event loop could not be set up (no counterpart in the original).
    #[error("{0}")]
    Runtime(std::io::Error),
}

/// What the original's checks of the flags (its `init`) refuse, in its words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgumentError {
    #[error("-addr not specified")]
    AddrMissing,
    #[error("-connect-timeout must be greater than zero (specified: {0})")]
    ConnectTimeoutNotPositive(GoDuration),
    #[error("-rpc-timeout must be greater than zero (specified: {0})")]
    RpcTimeoutNotPositive(GoDuration),
    #[error("-alts and -spiffe are mutually incompatible")]
    AltsWithSpiffe,
    #[error("cannot specify -tls with -alts")]
    TlsWithAlts,
    /// A TLS setting (`-tls-no-verify`, `-tls-ca-cert`, …) without `-tls`.
    #[error("specified {0} without specifying -tls")]
    WithoutTls(&'static str),
    #[error("specified -tls-client-cert without specifying -tls-client-key")]
    CertWithoutKey,
    #[error("specified -tls-client-key without specifying -tls-client-cert")]
    KeyWithoutCert,
    #[error("cannot specify -tls-ca-cert with -tls-no-verify (CA cert would not be used)")]
    CaCertWithNoVerify,
    #[error("cannot specify -tls-server-name with -tls-no-verify (server name would not be used)")]
    ServerNameWithNoVerify,
}

/// The original's checks of the flags (its `init`), in its order.
fn check_arguments(o: &Options) -> Result<(), ArgumentError> {
    let refusal = if o.addr.is_empty() {
        ArgumentError::AddrMissing
    } else if o.connect_timeout.0 <= 0 {
        ArgumentError::ConnectTimeoutNotPositive(o.connect_timeout)
    } else if o.rpc_timeout.0 <= 0 {
        ArgumentError::RpcTimeoutNotPositive(o.rpc_timeout)
    } else if o.alts && o.spiffe {
        ArgumentError::AltsWithSpiffe
    } else if o.tls && o.alts {
        ArgumentError::TlsWithAlts
    } else if !o.tls && o.tls_no_verify {
        ArgumentError::WithoutTls("-tls-no-verify")
    } else if !o.tls && !o.tls_ca_cert.is_empty() {
        ArgumentError::WithoutTls("-tls-ca-cert")
    } else if !o.tls && !o.tls_client_cert.is_empty() {
        ArgumentError::WithoutTls("-tls-client-cert")
    } else if !o.tls && !o.tls_server_name.is_empty() {
        ArgumentError::WithoutTls("-tls-server-name")
    } else if !o.tls_client_cert.is_empty() && o.tls_client_key.is_empty() {
        ArgumentError::CertWithoutKey
    } else if o.tls_client_cert.is_empty() && !o.tls_client_key.is_empty() {
        ArgumentError::KeyWithoutCert
    } else if o.tls_no_verify && !o.tls_ca_cert.is_empty() {
        ArgumentError::CaCertWithNoVerify
    } else if o.tls_no_verify && !o.tls_server_name.is_empty() {
        ArgumentError::ServerNameWithNoVerify
    } else {
        return Ok(());
    };
    Err(refusal)
}

/// The `-v` summary of the options.
fn log_options(log: &mut Log<'_>, o: &Options) {
    log.line("parsed options:");
    log.line(&format!(
        "> addr={} conn_timeout={} rpc_timeout={}",
        o.addr, o.connect_timeout, o.rpc_timeout
    ));
    if !o.rpc_headers.is_empty() {
        log.line(&format!("> headers: {}", o.rpc_headers));
    }
    log.line(&format!("> tls={}", o.tls));
    if o.tls {
        log.line(&format!("  > no-verify={} ", o.tls_no_verify));
        log.line(&format!("  > ca-cert={}", o.tls_ca_cert));
        log.line(&format!("  > client-cert={}", o.tls_client_cert));
        log.line(&format!("  > client-key={}", o.tls_client_key));
        log.line(&format!("  > server-name={}", o.tls_server_name));
    }
    log.line(&format!("> alts={}", o.alts));
    log.line(&format!("> spiffe={}", o.spiffe));
}

/// Runs the probe on the arguments after the program name; every line it prints goes to
/// `emit`. Returns the exit status.
pub fn run(args: &[OsString], emit: &mut dyn FnMut(Stream, &str)) -> Status {
    let args: Vec<String> = args
        .iter()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    let mut log = Log { emit };
    let options = match flags::parse(&args) {
        Ok(options) => options,
        Err(error) => {
            if error != FlagError::Help {
                log.line(&error.to_string());
            }
            (log.emit)(Stream::Stderr, &flags::usage());
            return Status::InvalidArguments;
        }
    };
    if options.version {
        (log.emit)(Stream::Stdout, &format!("{}\n", version_line()));
        return Status::Serving;
    }
    match probe(&options, &mut log) {
        Ok(()) => Status::Serving,
        Err(error) => {
            log.line(&error.to_string());
            error.status()
        }
    }
}

/// Everything after the flags were read: the checks, the connection, the call.
fn probe(options: &Options, log: &mut Log<'_>) -> Result<(), Error> {
    check_arguments(options).map_err(Error::Argument)?;
    if options.verbose {
        log_options(log, options);
    }
    if options.tls && options.spiffe {
        return Err(Error::TlsWithSpiffe);
    }
    let tls = if options.tls {
        let config = tls::client_config(tls::TlsFlags {
            no_verify: options.tls_no_verify,
            ca_cert: &options.tls_ca_cert,
            client_cert: &options.tls_client_cert,
            client_key: &options.tls_client_key,
        })
        .map_err(Error::Credentials)?;
        Some(client::Tls {
            config,
            no_verify: options.tls_no_verify,
        })
    } else if options.alts {
        return Err(Error::Unsupported {
            flag: "-alts",
            why: "ALTS handshakes go through Google Cloud's ALTS handshaker service, which this build has no client for; use -tls",
        });
    } else if options.spiffe {
        return Err(Error::Unsupported {
            flag: "-spiffe",
            why: "this build has no SPIFFE Workload API client; use -tls with -tls-client-cert and -tls-client-key",
        });
    } else {
        None
    };
    if options.verbose {
        log.line("establishing connection");
    }
    let connect_error = |reason: ConnectError| Error::Connect {
        addr: options.addr.clone(),
        reason,
    };
    let target =
        Target::parse(&options.addr).map_err(|error| connect_error(ConnectError::Target(error)))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|error| connect_error(ConnectError::Runtime(error)))?;
    let result = runtime.block_on(connect_and_check(options, &target, tls.as_ref(), log));
    // A name lookup still running on the blocking pool must not hold the exit up.
    runtime.shutdown_background();
    result
}

/// SIGINT or SIGTERM: the original cancels whatever is under way and says so.
async fn cancellation(
    interrupt: &mut Option<tokio::signal::unix::Signal>,
    terminate: &mut Option<tokio::signal::unix::Signal>,
) -> &'static str {
    async fn received(signal: &mut Option<tokio::signal::unix::Signal>) {
        match signal {
            Some(signal) => {
                signal.recv().await;
            }
            None => std::future::pending().await,
        }
    }
    tokio::select! {
        () = received(interrupt) => "interrupt",
        () = received(terminate) => "terminated",
    }
}

async fn connect_and_check(
    options: &Options,
    target: &Target,
    tls: Option<&client::Tls>,
    log: &mut Log<'_>,
) -> Result<(), Error> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut interrupt = signal(SignalKind::interrupt()).ok();
    let mut terminate = signal(SignalKind::terminate()).ok();
    let authority = target.authority(&options.tls_server_name).to_string();

    let connect_start = Instant::now();
    let connect_timeout = options.connect_timeout.to_std().unwrap_or_default();
    let dial = tokio::time::timeout(connect_timeout, client::dial(target, &authority, tls));
    let connection = tokio::select! {
        biased;
        name = cancellation(&mut interrupt, &mut terminate) => {
            log.line(&format!("cancellation received (signal: {name})"));
            return Err(Error::Connect {
                addr: options.addr.clone(),
                reason: ConnectError::Canceled,
            });
        }
        dialled = dial => dialled.map_err(|_| Error::ConnectTimeout {
            addr: options.addr.clone(),
            timeout: options.connect_timeout,
        })?,
    };
    let connect_duration = GoDuration::from_std(connect_start.elapsed());
    if options.verbose {
        log.line(&format!("connection established (took {connect_duration})"));
    }

    let rpc_start = Instant::now();
    let rpc_timeout = options.rpc_timeout.to_std().unwrap_or_default();
    client::validate_metadata(&options.rpc_headers).map_err(|message| Error::Rpc {
        code: code_name(tonic::Code::Internal),
        message,
    })?;
    let call = client::Call {
        service: &options.service,
        user_agent: &options.user_agent,
        metadata: &options.rpc_headers,
        timeout: rpc_timeout,
        gzip: options.gzip,
    };
    let check = tokio::time::timeout(rpc_timeout, client::check(&connection, &call));
    let answer = tokio::select! {
        biased;
        name = cancellation(&mut interrupt, &mut terminate) => {
            log.line(&format!("cancellation received (signal: {name})"));
            Err(tonic::Status::cancelled("context canceled"))
        }
        checked = check => checked.unwrap_or_else(|_| {
            Err(tonic::Status::deadline_exceeded("context deadline exceeded"))
        }),
    };
    let status = match answer {
        Ok(status) => status,
        Err(status) => {
            return Err(match status.code() {
                tonic::Code::Unimplemented => Error::Unimplemented {
                    message: status.message().to_string(),
                },
                tonic::Code::DeadlineExceeded => Error::RpcTimeout {
                    timeout: options.rpc_timeout,
                },
                code => Error::Rpc {
                    code: code_name(code),
                    message: status.message().to_string(),
                },
            });
        }
    };
    let rpc_duration = GoDuration::from_std(rpc_start.elapsed());
    let name = serving_status_name(status);
    if status != 1 {
        return Err(Error::Unhealthy { status: name });
    }
    if options.verbose {
        log.line(&format!(
            "time elapsed: connect={connect_duration} rpc={rpc_duration}"
        ));
    }
    log.line(&format!("status: {name}"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(args: &[&str]) -> (Status, String, String) {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let (mut stdout, mut stderr) = (String::new(), String::new());
        let status = run(&args, &mut |stream, text| match stream {
            Stream::Stdout => stdout.push_str(text),
            Stream::Stderr => stderr.push_str(text),
        });
        (status, stdout, stderr)
    }

    #[test]
    fn the_name_is_argv0_s_basename() {
        assert!(is_invoked_as_probe(OsStr::new("grpc_health_probe")));
        assert!(is_invoked_as_probe(OsStr::new("/bin/grpc_health_probe")));
        assert!(!is_invoked_as_probe(OsStr::new("/bin/opm")));
        assert!(!is_invoked_as_probe(OsStr::new("grpc_health_probe.sh")));
    }

    #[test]
    fn argument_checks_come_in_the_original_s_order() {
        let cases: &[(&[&str], &str)] = &[
            (&[], "error: -addr not specified\n"),
            (&["-addr=:1", "-connect-timeout=0"], "error: -connect-timeout must be greater than zero (specified: 0s)\n"),
            (&["-addr=:1", "-rpc-timeout=-1.5s"], "error: -rpc-timeout must be greater than zero (specified: -1.5s)\n"),
            (&["-addr=:1", "-alts", "-spiffe"], "error: -alts and -spiffe are mutually incompatible\n"),
            (&["-addr=:1", "-alts", "-tls"], "error: cannot specify -tls with -alts\n"),
            (&["-addr=:1", "-tls-no-verify"], "error: specified -tls-no-verify without specifying -tls\n"),
            (&["-addr=:1", "-tls-ca-cert=x"], "error: specified -tls-ca-cert without specifying -tls\n"),
            (&["-addr=:1", "-tls-client-cert=x"], "error: specified -tls-client-cert without specifying -tls\n"),
            (&["-addr=:1", "-tls-server-name=x"], "error: specified -tls-server-name without specifying -tls\n"),
            (&["-addr=:1", "-tls", "-tls-client-cert=x"], "error: specified -tls-client-cert without specifying -tls-client-key\n"),
            (&["-addr=:1", "-tls", "-tls-client-key=x"], "error: specified -tls-client-key without specifying -tls-client-cert\n"),
            (&["-addr=:1", "-tls", "-tls-no-verify", "-tls-ca-cert=x"], "error: cannot specify -tls-ca-cert with -tls-no-verify (CA cert would not be used)\n"),
            (&["-addr=:1", "-tls", "-tls-no-verify", "-tls-server-name=x"], "error: cannot specify -tls-server-name with -tls-no-verify (server name would not be used)\n"),
            (&["-addr=:1", "-tls", "-spiffe"], "-tls and -spiffe are mutually incompatible\n"),
        ];
        for (args, want) in cases {
            assert_eq!(
                run_with(args),
                (Status::InvalidArguments, String::new(), (*want).to_string()),
                "{args:?}"
            );
        }
    }

    #[test]
    fn verbose_options_come_before_later_refusals() {
        let (status, _, stderr) =
            run_with(&["-addr=:1", "-v", "-tls", "-spiffe", "-rpc-header=K: v"]);
        assert_eq!(status, Status::InvalidArguments);
        assert_eq!(
            stderr,
            "parsed options:\n> addr=:1 conn_timeout=1s rpc_timeout=1s\n> headers: {map[k:[v]]}\n> tls=true\n  > no-verify=false \n  > ca-cert=\n  > client-cert=\n  > client-key=\n  > server-name=\n> alts=false\n> spiffe=true\n-tls and -spiffe are mutually incompatible\n"
        );
    }

    #[test]
    fn unsupported_flags_are_bad_arguments_that_say_why() {
        let (status, _, stderr) = run_with(&["-addr=:1", "-alts"]);
        assert_eq!(status, Status::InvalidArguments);
        assert!(
            stderr.starts_with("error: -alts is not supported by opm's grpc_health_probe: ALTS"),
            "{stderr}"
        );
        let (status, _, stderr) = run_with(&["-addr=:1", "-spiffe"]);
        assert_eq!(status, Status::InvalidArguments);
        assert!(
            stderr.starts_with("error: -spiffe is not supported by opm's grpc_health_probe: "),
            "{stderr}"
        );
    }

    #[test]
    fn version_and_help() {
        // The whole command line is read before -version is looked at.
        let (status, stdout, stderr) = run_with(&["-version", "-bogus"]);
        assert_eq!((status, stdout.as_str()), (Status::InvalidArguments, ""));
        assert_eq!(
            stderr,
            format!("flag provided but not defined: -bogus\n{}", flags::usage())
        );
        let (status, stdout, stderr) = run_with(&["-version"]);
        assert_eq!(status, Status::Serving);
        assert!(
            stdout.starts_with("opm v") && stdout.ends_with('\n'),
            "{stdout}"
        );
        assert!(stderr.is_empty());
        let (status, stdout, stderr) = run_with(&["-h"]);
        assert_eq!((status, stdout.as_str()), (Status::InvalidArguments, ""));
        assert_eq!(stderr, flags::usage());
    }

    #[test]
    fn a_refused_target_is_a_connection_failure() {
        let (status, _, stderr) = run_with(&["-addr=dns:///"]);
        assert_eq!(status, Status::ConnectionFailure);
        assert_eq!(stderr, "error: failed to connect service at \"dns:///\": failed to exit idle mode: failed to start resolver: dns resolver: missing address\n");
    }
}
