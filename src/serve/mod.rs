//! `opm serve`: the catalog gRPC server that catalog images run.
//!
//! Start-up loads and validates the catalog directory once (refusing it with
//! `opm validate`'s message when it fails), builds a small index and keeps
//! bundle payloads on disk ([`index`]); with `--cache-dir`, checks or writes
//! upstream's `json` cache ([`cache`], [`digest`]); then serves `api.Registry`,
//! `api.ExperimentalRegistry`, health and reflection ([`server`]) until
//! SIGINT or SIGTERM (then within about half a second: calls in flight get a
//! short grace period). Answers follow upstream's conversion ([`convert`],
//! [`csv`]) and queries ([`query`]).

pub mod api;
pub mod cache;
pub mod convert;
pub mod csv;
pub mod digest;
pub mod index;
pub mod query;
pub mod server;

use std::path::Path;

/// What to serve and how (the flags of `opm serve`).
#[derive(Debug, Clone)]
pub struct Serve {
    /// The catalog directory, as the user named it.
    pub dir: String,
    /// Upstream's `--port`: a TCP port on every interface.
    pub port: String,
    /// Log every call.
    pub debug: bool,
    /// `--cache-dir`; empty for none.
    pub cache_dir: String,
    /// Write or check the cache, then stop.
    pub cache_only: bool,
    /// `--cache-enforce-integrity` when given.
    pub cache_enforce_integrity: Option<bool>,
    /// Where progress lines go.
    pub log: fn(&str),
}

/// Why `opm serve` stopped with a failure.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("--cache-dir must be specified with --cache-enforce-integrity")]
    EnforceWithoutCacheDir,
    #[error(transparent)]
    Index(#[from] index::IndexError),
    #[error(transparent)]
    Cache(#[from] cache::CacheError),
    /// The text after upstream's `failed to listen: `: Go's error.
    #[error("failed to listen: {0}")]
    Listen(String),
    #[error(transparent)]
    Server(#[from] server::ServerError),
}

impl Serve {
    /// Runs until a signal stops the server (or, with `cache_only`, until the
    /// cache is written).
    pub fn run(self) -> Result<(), ServeError> {
        let Serve {
            dir,
            port,
            debug,
            cache_dir,
            cache_only,
            cache_enforce_integrity,
            log,
        } = self;
        let enforce = cache_enforce_integrity.unwrap_or(!cache_dir.is_empty() && !cache_only);
        if cache_dir.is_empty() && enforce {
            return Err(ServeError::EnforceWithoutCacheDir);
        }
        let port = parse_port(&port)?;
        if !cache_only {
            // A server asked to stop while it loads stops at once, successfully: there is
            // nothing to finish (a cache being written is removed).
            crate::fsutil::cleanup::exit_successfully_on_signal();
        }
        let started = std::time::Instant::now();
        let (catalog, cache_dir) = (Path::new(&dir), Path::new(&cache_dir));
        // The cache digest reads every byte of the catalog and the cache on
        // one core while the catalog loads on the others.
        let (index, inspection) = std::thread::scope(|scope| {
            let inspection = (!cache_dir.as_os_str().is_empty())
                .then(|| scope.spawn(|| cache::inspect(cache_dir, catalog)));
            let index = index::Index::load(catalog, &dir);
            let inspection = inspection.map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            });
            (index, inspection)
        });
        let index = index?;
        if let Some(inspection) = inspection {
            cache::sync(cache_dir, catalog, &index, enforce, inspection?)?;
        }
        if cache_only {
            return Ok(());
        }
        // From here on the server stops on SIGINT/SIGTERM itself.
        crate::fsutil::cleanup::exit_on_signal(false);
        let listener = listen(port)?;
        // Port 0 asks the system for a free port: name the one it gave.
        let port = listener.local_addr().map_or(port, |address| address.port());
        log(&format!(
            "serving registry: configs={dir} port={port} ({} packages, {} bundles, ready in {:.2}s)",
            index.packages.len(),
            index.bundles.len(),
            started.elapsed().as_secs_f64()
        ));
        server::serve(index, listener, log, debug)?;
        Ok(())
    }
}

/// The port as Go's `net.Listen("tcp", ":"+port)` reads it.
fn parse_port(port: &str) -> Result<u16, ServeError> {
    if let Ok(number) = port.parse::<u16>() {
        return Ok(number);
    }
    Err(ServeError::Listen(
        if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) {
            format!("listen tcp: address {port}: invalid port")
        } else {
            format!("listen tcp: lookup tcp/{port}: unknown port")
        },
    ))
}

/// Listens on every interface: IPv6 and IPv4 where the host has IPv6, IPv4
/// otherwise.
fn listen(port: u16) -> Result<std::net::TcpListener, ServeError> {
    let any6 = std::net::SocketAddr::from((std::net::Ipv6Addr::UNSPECIFIED, port));
    let any4 = std::net::SocketAddr::from((std::net::Ipv4Addr::UNSPECIFIED, port));
    std::net::TcpListener::bind(any6)
        .or_else(|e| match e.kind() {
            std::io::ErrorKind::AddrInUse | std::io::ErrorKind::PermissionDenied => Err(e),
            _ => std::net::TcpListener::bind(any4),
        })
        .map_err(|e| {
            ServeError::Listen(format!(
                "listen tcp :{port}: bind: {}",
                crate::declcfg::load::io_message(&e)
            ))
        })
}

/// Writes a fatal error where Kubernetes shows it (`--termination-log`); a
/// path that cannot be written is ignored, as upstream does.
pub fn write_termination_log(path: &str, message: &str) {
    if path.is_empty() {
        return;
    }
    let _ = std::fs::write(path, format!("{message}\n"));
}
