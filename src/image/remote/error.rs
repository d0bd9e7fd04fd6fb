//! Why a pull (or push) failed, in words a user can act on. Each variant's
//! message stands alone; causes that are errors of their own (a credentials
//! file, a reference, a write) are `#[source]`s and never repeated in the
//! message. Texts that come from a registry are cleaned (no control
//! characters, no credentials, at most 200 characters) before they get here.

use super::super::auth::AuthError;
use super::super::reference::ReferenceError;
use super::transport::{MIN_RATE_VAR, TIMEOUT_VAR};
use crate::encoding::json::go_quote;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// A failed pull: `failed to pull image "<reference>"`, caused by its
/// [`PullErrorKind`].
#[derive(Debug, thiserror::Error)]
#[error("failed to pull image {}", go_quote(.reference))]
pub struct PullError {
    /// The reference as the user typed it.
    pub reference: String,
    #[source]
    pub kind: PullErrorKind,
}

/// What a blob is, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlobKind {
    Manifest,
    Config,
    Layer,
}

impl fmt::Display for BlobKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BlobKind::Manifest => "manifest",
            BlobKind::Config => "config",
            BlobKind::Layer => "layer",
        })
    }
}

/// Why a pull failed. Credentials never appear in these messages.
///
/// `what` fields name the object a request was after, e.g. `manifest of tag
/// "v1"`, `layer "sha256:…"` or `token from "auth.example.com"`.
#[derive(Debug, thiserror::Error)]
pub enum PullErrorKind {
    #[error(transparent)]
    InvalidReference(ReferenceError),
    #[error("invalid platform {}: expected os/arch[/variant]", go_quote(.platform))]
    InvalidPlatform { platform: String },
    #[error(transparent)]
    Credentials(AuthError),
    #[error("cannot start the network runtime")]
    Runtime(#[source] std::io::Error),
    #[error("failed to fetch root CA from {}: {message}", .path.display())]
    RootCa { path: PathBuf, message: String },
    #[error("repository {} not found", go_quote(.repository))]
    RepositoryNotFound { repository: String },
    /// `what` is e.g. `tag "v1"`, `manifest "sha256:…"` or `layer "sha256:…"`.
    #[error("{what} not found in repository {}", go_quote(.repository))]
    NotFound { what: String, repository: String },
    #[error("unauthorized: {}", unauthorized_text(.registry, .repository, *.with_credentials))]
    Unauthorized {
        registry: String,
        repository: String,
        /// Whether credentials were found (and refused) for the repository.
        with_credentials: bool,
    },
    /// HTTP 403, or a `DENIED` error code: the registry knows who asks and
    /// says no; `message` is its own explanation.
    #[error("denied: {message}")]
    Denied { registry: String, message: String },
    #[error("cannot resolve the host of registry {}: {message}", go_quote(.registry))]
    Resolve { registry: String, message: String },
    #[error("cannot connect to registry {}: {message}{}", go_quote(.registry), gave_up(*.attempts))]
    Connect {
        registry: String,
        message: String,
        attempts: u32,
    },
    #[error("TLS failure talking to registry {}: {message}", go_quote(.registry))]
    Tls { registry: String, message: String },
    #[error(
        "registry {} speaks HTTPS, not plain HTTP (drop --use-http)",
        go_quote(.registry)
    )]
    HttpToHttps { registry: String },
    #[error("too many redirects: registry {} redirects in a loop or more than {limit} times", go_quote(.registry))]
    TooManyRedirects { registry: String, limit: usize },
    /// The whole operation (every attempt) took longer than allowed.
    #[error(
        "{what}: registry {} did not finish within {} ({TIMEOUT_VAR})",
        go_quote(.registry),
        seconds(*.limit)
    )]
    Deadline {
        registry: String,
        what: String,
        limit: Duration,
    },
    /// Nothing arrived for a whole rate window.
    #[error("{what}: no data from registry for {}", seconds(*.window))]
    Stalled { what: String, window: Duration },
    /// Some bytes arrived, but fewer than the minimum rate asks for.
    #[error(
        "{what}: transfer slower than {rate} bytes/s over {} ({MIN_RATE_VAR})",
        seconds(*.window)
    )]
    TooSlow {
        what: String,
        rate: u64,
        window: Duration,
    },
    /// The connection broke before a response arrived (or while a request
    /// body was being sent).
    #[error(
        "connection to registry {} broke: {message}{}",
        go_quote(.registry),
        gave_up(*.attempts)
    )]
    Interrupted {
        registry: String,
        message: String,
        attempts: u32,
    },
    /// The connection broke while a response body was being read.
    #[error(
        "{what}: registry closed the connection after {received}{} bytes{}",
        .expected.map(|n| format!(" of {n}")).unwrap_or_default(),
        gave_up(*.attempts)
    )]
    Truncated {
        what: String,
        received: u64,
        /// The `Content-Length` the registry announced, if any.
        expected: Option<u64>,
        attempts: u32,
    },
    #[error(
        "registry {} answered HTTP {status}{}{}",
        go_quote(.registry),
        colon(.message),
        retry_note(*.attempts, *.retry_after)
    )]
    Status {
        registry: String,
        status: u16,
        /// The registry's own explanation, cleaned and shortened.
        message: String,
        attempts: u32,
        /// What a 429 or 503 answer's `Retry-After` asked for.
        retry_after: Option<Duration>,
    },
    #[error("registry {} broke the protocol: {message}", go_quote(.registry))]
    Protocol { registry: String, message: String },
    #[error("{blob} {} does not match its digest (got {})", go_quote(.digest), go_quote(.actual))]
    DigestMismatch {
        blob: BlobKind,
        digest: String,
        actual: String,
    },
    #[error("{blob} {} has {actual} bytes, but its descriptor says {expected}", go_quote(.digest))]
    SizeMismatch {
        blob: BlobKind,
        digest: String,
        expected: u64,
        actual: u64,
    },
    #[error("{blob} {} is larger than its declared size of {expected} bytes", go_quote(.digest))]
    Oversized {
        blob: BlobKind,
        digest: String,
        expected: u64,
    },
    /// A size cap of this client (not a descriptor's size) was exceeded,
    /// declared or while streaming.
    #[error("{what} exceeds the limit of {limit} bytes")]
    TooLarge { what: String, limit: u64 },
    #[error("invalid {blob} {}: {message}", go_quote(.name))]
    InvalidContent {
        blob: BlobKind,
        name: String,
        message: String,
    },
    #[error("unsupported manifest {}: {reason}", go_quote(.name))]
    UnsupportedManifest { name: String, reason: String },
    #[error(
        "no image for platform {} in the image index (it has {})",
        .wanted.iter().map(|p| go_quote(p)).collect::<Vec<_>>().join(" or "),
        if .available.is_empty() { "none".to_string() } else { .available.join(", ") }
    )]
    NoPlatform {
        wanted: Vec<String>,
        available: Vec<String>,
    },
    /// A local image (an OCI layout or archive) that cannot be read as one.
    #[error("{}: {message}", .path.display())]
    Local { path: PathBuf, message: String },
    #[error("write {}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn unauthorized_text(registry: &str, repository: &str, with_credentials: bool) -> String {
    let name = format!("{registry}/{repository}");
    if with_credentials {
        format!(
            "registry {} refused the credentials found for {}",
            go_quote(registry),
            go_quote(&name)
        )
    } else {
        format!(
            "registry {} requires credentials for {} and none were found \
             (or the repository does not exist)",
            go_quote(registry),
            go_quote(&name)
        )
    }
}

pub(crate) fn gave_up(attempts: u32) -> String {
    if attempts > 1 {
        format!(" (gave up after {attempts} attempts)")
    } else {
        String::new()
    }
}

/// How many attempts were made, and what the registry asked to wait.
fn retry_note(attempts: u32, retry_after: Option<Duration>) -> String {
    match retry_after {
        Some(wait) if attempts > 1 => format!(
            " (gave up after {attempts} attempts; it asks to retry after {})",
            seconds(wait)
        ),
        Some(wait) => format!(" (it asks to retry after {})", seconds(wait)),
        None => gave_up(attempts),
    }
}

fn colon(message: &str) -> String {
    if message.is_empty() {
        String::new()
    } else {
        format!(": {message}")
    }
}

/// `30 s`, `2.5 s`.
pub(crate) fn seconds(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis.is_multiple_of(1000) {
        format!("{} s", millis / 1000)
    } else {
        format!("{} s", duration.as_secs_f64())
    }
}

impl PullErrorKind {
    /// Whether trying again may help: the network or the registry had a
    /// moment of trouble (a refused or broken connection, a body cut short,
    /// HTTP 408, 429 or 5xx), as opposed to a wrong name, password or
    /// content, a redirect loop, a size cap, or a registry too slow for the
    /// configured deadline and rate (waiting longer is the user's call).
    pub fn is_transient(&self) -> bool {
        match self {
            PullErrorKind::Connect { .. }
            | PullErrorKind::Interrupted { .. }
            | PullErrorKind::Truncated { .. } => true,
            PullErrorKind::Status { status, .. } => {
                matches!(status, 408 | 429) || (*status >= 500 && *status != 501)
            }
            _ => false,
        }
    }

    /// How long the registry asked to wait before trying again.
    pub(crate) fn retry_after(&self) -> Option<Duration> {
        match self {
            PullErrorKind::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    pub(crate) fn record_attempts(mut self, count: u32) -> PullErrorKind {
        match &mut self {
            PullErrorKind::Connect { attempts, .. }
            | PullErrorKind::Interrupted { attempts, .. }
            | PullErrorKind::Truncated { attempts, .. }
            | PullErrorKind::Status { attempts, .. } => *attempts = count,
            _ => {}
        }
        self
    }
}

/// The distribution spec's error body: `{"errors": [{"code", "message"}]}`.
#[derive(serde::Deserialize)]
struct Envelope {
    errors: Vec<Entry>,
}

/// One entry of an [`Envelope`]; either field may be missing or not a string.
#[derive(serde::Deserialize)]
struct Entry {
    #[serde(default)]
    code: Option<serde_json::Value>,
    #[serde(default)]
    message: Option<serde_json::Value>,
}

/// The error messages of a registry's answer, cleaned for a message: the
/// `message` (else the `code`) of each entry of the distribution spec's
/// `{"errors": [{"code", "message"}]}`, joined by `; `, or else the start
/// of a plain-text body (never HTML). Known secrets are masked, in case a
/// registry echoes what it was sent.
pub(crate) fn registry_text(body: &[u8], secrets: &[String]) -> String {
    let as_text = |value: Option<serde_json::Value>| match value {
        Some(serde_json::Value::String(text)) => text,
        _ => String::new(),
    };
    let text = match serde_json::from_slice::<Envelope>(body) {
        Ok(envelope) => envelope
            .errors
            .into_iter()
            .map(|entry| {
                let message = as_text(entry.message);
                if message.trim().is_empty() {
                    as_text(entry.code)
                } else {
                    message
                }
            })
            .filter(|text| !text.trim().is_empty())
            .collect::<Vec<_>>()
            .join("; "),
        Err(_) => {
            let text = String::from_utf8_lossy(body);
            if text.trim_start().starts_with('<') {
                String::new()
            } else {
                text.into_owned()
            }
        }
    };
    clean(&text, secrets)
}

/// The error codes of a registry's error body (`DENIED`, `NAME_UNKNOWN`, …).
pub(crate) fn registry_codes(body: &[u8]) -> Vec<String> {
    serde_json::from_slice::<Envelope>(body)
        .map(|envelope| {
            envelope
                .errors
                .into_iter()
                .filter_map(|e| match e.code {
                    Some(serde_json::Value::String(code)) => Some(code.to_ascii_uppercase()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One line of at most 200 characters, control characters and secrets
/// replaced, a leading capital lowered.
pub(crate) fn clean(text: &str, secrets: &[String]) -> String {
    let mut text = text.to_string();
    for secret in secrets.iter().filter(|s| s.len() >= 3) {
        text = text.replace(secret.as_str(), "<redacted>");
    }
    let one_line: String = text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    shorten(&one_line)
}

pub(crate) fn shorten(message: &str) -> String {
    let message = message.trim();
    let mut out: String = message.chars().take(200).collect();
    if out.len() < message.len() {
        out.push('…');
    }
    lowercase_first(out)
}

/// Lower-cases a leading capital (`Connection refused` → `connection
/// refused`), leaving acronyms (`TLS`) alone.
pub(crate) fn lowercase_first(text: String) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => {
            first.to_lowercase().chain(text.chars().skip(1)).collect()
        }
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_classification() {
        let status = |status| PullErrorKind::Status {
            registry: "r".into(),
            status,
            message: String::new(),
            attempts: 1,
            retry_after: None,
        };
        for (kind, transient) in [
            (status(500), true),
            (status(502), true),
            (status(503), true),
            (status(429), true),
            (status(408), true),
            (status(501), false),
            (status(400), false),
            (status(403), false),
            (status(404), false),
            (
                PullErrorKind::Connect {
                    registry: "r".into(),
                    message: "connection refused".into(),
                    attempts: 1,
                },
                true,
            ),
            (
                PullErrorKind::Truncated {
                    what: "layer".into(),
                    received: 1,
                    expected: Some(2),
                    attempts: 1,
                },
                true,
            ),
            (
                PullErrorKind::Interrupted {
                    registry: "r".into(),
                    message: "reset".into(),
                    attempts: 1,
                },
                true,
            ),
            (
                PullErrorKind::Stalled {
                    what: "layer".into(),
                    window: Duration::from_secs(30),
                },
                false,
            ),
            (
                PullErrorKind::TooManyRedirects {
                    registry: "r".into(),
                    limit: 10,
                },
                false,
            ),
            (
                PullErrorKind::TooLarge {
                    what: "manifest".into(),
                    limit: 1,
                },
                false,
            ),
            (
                PullErrorKind::Tls {
                    registry: "r".into(),
                    message: "bad certificate".into(),
                },
                false,
            ),
            (
                PullErrorKind::Denied {
                    registry: "r".into(),
                    message: "no".into(),
                },
                false,
            ),
            (
                PullErrorKind::DigestMismatch {
                    blob: BlobKind::Layer,
                    digest: "sha256:a".into(),
                    actual: "sha256:b".into(),
                },
                false,
            ),
        ] {
            assert_eq!(kind.is_transient(), transient, "{kind}");
        }
    }

    #[test]
    fn messages_say_what_happened() {
        let truncated = PullErrorKind::Truncated {
            what: "manifest of tag \"v1\"".into(),
            received: 100,
            expected: Some(200),
            attempts: 1,
        }
        .record_attempts(4);
        assert_eq!(
            truncated.to_string(),
            "manifest of tag \"v1\": registry closed the connection after 100 of 200 bytes \
             (gave up after 4 attempts)"
        );
        let busy = |attempts| PullErrorKind::Status {
            registry: "r.io".into(),
            status: 429,
            message: "slow down".into(),
            attempts,
            retry_after: Some(Duration::from_secs(3600)),
        };
        assert_eq!(
            busy(1).to_string(),
            "registry \"r.io\" answered HTTP 429: slow down (it asks to retry after 3600 s)"
        );
        assert_eq!(
            busy(4).to_string(),
            "registry \"r.io\" answered HTTP 429: slow down \
             (gave up after 4 attempts; it asks to retry after 3600 s)"
        );
        let slow = PullErrorKind::TooSlow {
            what: "layer \"sha256:a\"".into(),
            rate: 1024,
            window: Duration::from_millis(2500),
        };
        assert_eq!(
            slow.to_string(),
            "layer \"sha256:a\": transfer slower than 1024 bytes/s over 2.5 s \
             (OPM_REGISTRY_MIN_RATE)"
        );
        let error = PullError {
            reference: "r.io/a/b:c".into(),
            kind: PullErrorKind::Unauthorized {
                registry: "r.io".into(),
                repository: "a/b".into(),
                with_credentials: true,
            },
        };
        assert_eq!(error.to_string(), "failed to pull image \"r.io/a/b:c\"");
        assert_eq!(
            error.kind.to_string(),
            "unauthorized: registry \"r.io\" refused the credentials found for \"r.io/a/b\""
        );
    }

    #[test]
    fn registry_texts_are_cleaned() {
        let body = br#"{"errors":[{"code":"DENIED","message":"Requested access\nto the resource is denied"},{"code":"UNKNOWN"}]}"#;
        assert_eq!(
            registry_text(body, &[]),
            "requested access to the resource is denied; UNKNOWN"
        );
        assert_eq!(registry_codes(body), ["DENIED", "UNKNOWN"]);
        assert_eq!(registry_text(b"<html><body>502</body></html>", &[]), "");
        assert_eq!(
            registry_text(
                b"Storage down\x1b[31m for Basic YWxpY2U6czNjcmV0",
                &["YWxpY2U6czNjcmV0".to_string()]
            ),
            "storage down [31m for Basic <redacted>"
        );
        assert_eq!(
            lowercase_first("Connection refused".into()),
            "connection refused"
        );
        assert_eq!(lowercase_first("TLS alert".into()), "TLS alert");
        assert_eq!(shorten("  Storage down\n"), "storage down");
        let long = shorten(&"x".repeat(500));
        assert_eq!(long.chars().count(), 201);
        assert!(long.ends_with('…'));
    }
}
