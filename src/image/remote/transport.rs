//! HTTP to registries with bounds on everything a registry controls: how
//! long an operation may take (all its attempts together), how slowly bytes
//! may trickle in, how large a body may grow while it streams, how often
//! redirects may be followed, and which failures are tried again (and after
//! how long). Nothing here knows about images; `mod.rs` does.

use super::error::{lowercase_first, PullErrorKind};
use crate::encoding::json::go_quote;
use crate::image::PullOptions;
use std::ffi::OsString;
use std::future::Future;
use std::time::Duration;
use tokio::time::Instant;

/// The environment variable for [`Limits::timeout`].
pub const TIMEOUT_VAR: &str = "OPM_REGISTRY_TIMEOUT";
/// The environment variable for [`Limits::min_rate`].
pub const MIN_RATE_VAR: &str = "OPM_REGISTRY_MIN_RATE";
/// The environment variable for [`Limits::rate_window`].
pub const RATE_WINDOW_VAR: &str = "OPM_REGISTRY_RATE_WINDOW";

/// Redirects followed for one request (Go's `net/http` and reqwest agree).
pub const MAX_REDIRECTS: usize = 10;
/// Time allowed to open a connection (bounded by the deadline as well).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// The part of an error response read for its message.
const MAX_ERROR_BODY: u64 = 64 << 10;
const USER_AGENT: &str = concat!("opm/", env!("CARGO_PKG_VERSION"));

/// How long registries get, and how slow they may be.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// The longest one operation (a manifest, a blob, a token, an upload;
    /// every attempt and the waits between them) may take.
    pub timeout: Duration,
    /// Bytes per second a transfer must average over each
    /// [`rate_window`](Limits::rate_window); 0 turns the check off (a
    /// registry that sends nothing for a whole window still fails).
    pub min_rate: u64,
    /// The span over which the rate is measured, and the longest a registry
    /// may stay silent (before its answer or in the middle of a body).
    pub rate_window: Duration,
}

impl Default for Limits {
    /// 10 minutes per operation, at least 1 KiB/s over every 30 s.
    fn default() -> Limits {
        Limits {
            timeout: Duration::from_secs(600),
            min_rate: 1024,
            rate_window: Duration::from_secs(30),
        }
    }
}

/// An environment variable that does not hold what it should.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {name} {}: expected {expected}", go_quote(.value))]
pub struct SettingError {
    pub name: &'static str,
    pub value: String,
    pub expected: &'static str,
}

impl Limits {
    /// The defaults, overridden by `OPM_REGISTRY_TIMEOUT` (seconds),
    /// `OPM_REGISTRY_MIN_RATE` (bytes per second) and
    /// `OPM_REGISTRY_RATE_WINDOW` (seconds); empty variables are unset.
    pub fn from_env() -> Result<Limits, SettingError> {
        Limits::from_vars(|name| std::env::var_os(name))
    }

    /// [`Limits::from_env`] with a given variable lookup (for tests).
    pub fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> Result<Limits, SettingError> {
        let mut limits = Limits::default();
        let text = |name: &'static str| -> Result<Option<String>, SettingError> {
            match var(name) {
                None => Ok(None),
                Some(value) => match value.into_string() {
                    Ok(text) if text.trim().is_empty() => Ok(None),
                    Ok(text) => Ok(Some(text.trim().to_string())),
                    Err(raw) => Err(SettingError {
                        name,
                        value: raw.to_string_lossy().into_owned(),
                        expected: "UTF-8 text",
                    }),
                },
            }
        };
        let duration = |name: &'static str| -> Result<Option<Duration>, SettingError> {
            let Some(text) = text(name)? else {
                return Ok(None);
            };
            text.parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s > 0.0 && *s <= 1e9)
                .map(|s| Some(Duration::from_secs_f64(s)))
                .ok_or(SettingError {
                    name,
                    value: text,
                    expected: "a number of seconds greater than 0",
                })
        };
        if let Some(timeout) = duration(TIMEOUT_VAR)? {
            limits.timeout = timeout;
        }
        if let Some(window) = duration(RATE_WINDOW_VAR)? {
            limits.rate_window = window;
        }
        if let Some(text) = text(MIN_RATE_VAR)? {
            limits.min_rate = text.parse().map_err(|_| SettingError {
                name: MIN_RATE_VAR,
                value: text,
                expected: "a whole number of bytes per second (0 turns the check off)",
            })?;
        }
        Ok(limits)
    }
}

/// How often, and how patiently, transient failures are retried (see
/// [`PullErrorKind::is_transient`]). The operation's deadline
/// ([`Limits::timeout`]) bounds the attempts and waits together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (at least 1).
    pub attempts: u32,
    /// Wait before the second attempt; doubled before each further one,
    /// unless the registry's `Retry-After` asks for another wait.
    pub first_delay: Duration,
}

impl Default for RetryPolicy {
    /// Four attempts, waiting 0.5 s, 1 s and 2 s in between.
    fn default() -> RetryPolicy {
        RetryPolicy {
            attempts: 4,
            first_delay: Duration::from_millis(500),
        }
    }
}

impl RetryPolicy {
    /// The wait after failed attempt number `attempt` (1-based).
    pub fn delay(&self, attempt: u32) -> Duration {
        self.first_delay
            .saturating_mul(1u32 << (attempt.saturating_sub(1)).min(16))
    }
}

/// When an operation must be over.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline(Instant);

/// What a request is for, to name it in messages.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Call<'a> {
    /// The registry as the reference names it.
    pub registry: &'a str,
    /// E.g. `layer "sha256:…"`.
    pub what: &'a str,
}

/// A configured HTTP client.
pub(crate) struct Http {
    client: reqwest::Client,
    use_http: bool,
    pub(crate) limits: Limits,
    pub(crate) retry: RetryPolicy,
}

impl Http {
    pub(crate) fn new(
        options: &PullOptions,
        retry: &RetryPolicy,
        registry: &str,
    ) -> Result<Http, PullErrorKind> {
        let mut builder = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .connect_timeout(CONNECT_TIMEOUT.min(options.limits.timeout))
            .redirect(reqwest::redirect::Policy::limited(MAX_REDIRECTS))
            .tls_danger_accept_invalid_certs(options.transport.skip_tls_verify);
        if super::roots::roots() == super::roots::Roots::BuiltIn {
            builder = builder.tls_certs_only(super::roots::built_in());
        }
        if let Some(path) = &options.root_ca {
            let fail = |message: String| PullErrorKind::RootCa {
                path: path.clone(),
                message,
            };
            let data =
                std::fs::read(path).map_err(|e| fail(crate::declcfg::load::io_message(&e)))?;
            let certificates = reqwest::Certificate::from_pem_bundle(&data)
                .ok()
                .filter(|c| !c.is_empty())
                .ok_or_else(|| fail("no PEM certificate in the file".to_string()))?;
            builder = builder.tls_certs_merge(certificates);
        }
        let client = builder.build().map_err(|e| PullErrorKind::Tls {
            registry: registry.to_string(),
            message: error_text(&e),
        })?;
        Ok(Http {
            client,
            use_http: options.transport.use_http,
            limits: options.limits.clone(),
            retry: retry.clone(),
        })
    }

    /// `http` with `--use-http`, else `https`.
    pub(crate) fn scheme(&self) -> &'static str {
        if self.use_http {
            "http"
        } else {
            "https"
        }
    }

    /// `http(s)://<host>/v2/<path>`.
    pub(crate) fn url(&self, host: &str, path: &str) -> String {
        format!("{}://{host}/v2/{path}", self.scheme())
    }

    pub(crate) fn request(&self, method: reqwest::Method, url: &str) -> reqwest::RequestBuilder {
        self.client.request(method, url)
    }

    /// The deadline of an operation starting now.
    pub(crate) fn deadline(&self) -> Deadline {
        Deadline(after(Instant::now(), self.limits.timeout))
    }

    /// After failed attempt number `attempt` of an operation: how long to
    /// wait before the next one, or `None` to give up (a failure that is not
    /// transient, no attempts left, or no time left before the deadline).
    /// Waits double from the policy's first delay; a registry's
    /// `Retry-After` replaces the wait.
    pub(crate) fn next_attempt(
        &self,
        error: &PullErrorKind,
        attempt: u32,
        deadline: Deadline,
    ) -> Option<Duration> {
        if !error.is_transient() || attempt >= self.retry.attempts {
            return None;
        }
        let wait = error
            .retry_after()
            .unwrap_or_else(|| self.retry.delay(attempt));
        // A `Retry-After` may ask for centuries.
        let resume = Instant::now().checked_add(wait)?;
        (resume < deadline.0).then_some(wait)
    }

    /// Runs `operation` until it succeeds or [`Http::next_attempt`] says to
    /// give up; every attempt gets the same deadline.
    pub(crate) async fn retrying<T, F, Fut>(&self, mut operation: F) -> Result<T, PullErrorKind>
    where
        F: FnMut(Deadline) -> Fut,
        Fut: Future<Output = Result<T, PullErrorKind>>,
    {
        let deadline = self.deadline();
        let mut attempt = 1;
        loop {
            match operation(deadline).await {
                Ok(value) => return Ok(value),
                Err(e) => match self.next_attempt(&e, attempt, deadline) {
                    Some(wait) => {
                        tokio::time::sleep(wait).await;
                        attempt += 1;
                    }
                    None => return Err(e.record_attempts(attempt)),
                },
            }
        }
    }

    /// Sends a request and waits for its answer's headers, at most until
    /// the deadline and, when `watch_silence` (requests without a body to
    /// upload), for one rate window.
    pub(crate) async fn send(
        &self,
        request: reqwest::RequestBuilder,
        deadline: Deadline,
        watch_silence: bool,
        call: Call<'_>,
    ) -> Result<reqwest::Response, PullErrorKind> {
        let silence_ends = after(Instant::now(), self.limits.rate_window);
        let until = if watch_silence {
            deadline.0.min(silence_ends)
        } else {
            deadline.0
        };
        match tokio::time::timeout_at(until, request.send()).await {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(e)) => Err(classify_request(&e, call.registry)),
            Err(_) if until >= deadline.0 => Err(self.deadline_error(call)),
            Err(_) => Err(PullErrorKind::Stalled {
                what: call.what.to_string(),
                window: self.limits.rate_window,
            }),
        }
    }

    fn deadline_error(&self, call: Call<'_>) -> PullErrorKind {
        PullErrorKind::Deadline {
            registry: call.registry.to_string(),
            what: call.what.to_string(),
            limit: self.limits.timeout,
        }
    }

    /// Reads a response body as it streams, watching the deadline and rate.
    pub(crate) fn body<'a>(
        &'a self,
        response: reqwest::Response,
        deadline: Deadline,
        call: Call<'a>,
    ) -> Body<'a> {
        Body {
            expected: response.content_length(),
            response,
            http: self,
            deadline,
            call,
            received: 0,
            window_start: Instant::now(),
            window_bytes: 0,
            last_data: Instant::now(),
        }
    }

    /// The start of an error response's body (for its message), read
    /// within the same bounds; a body that breaks off gives what came.
    pub(crate) async fn error_body(
        &self,
        response: reqwest::Response,
        deadline: Deadline,
        call: Call<'_>,
    ) -> Vec<u8> {
        let mut body = self.body(response, deadline, call);
        let mut out = Vec::new();
        while let Ok(Some(chunk)) = body.chunk().await {
            let room = usize::try_from(MAX_ERROR_BODY).unwrap_or(usize::MAX) - out.len();
            let chunk = chunk.as_ref();
            out.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if out.len() as u64 >= MAX_ERROR_BODY {
                break;
            }
        }
        out
    }
}

/// A response body being read.
pub(crate) struct Body<'a> {
    response: reqwest::Response,
    http: &'a Http,
    deadline: Deadline,
    call: Call<'a>,
    /// The `Content-Length`, if the registry sent one.
    pub(crate) expected: Option<u64>,
    pub(crate) received: u64,
    window_start: Instant,
    window_bytes: u64,
    /// When the last bytes arrived (or the body started).
    last_data: Instant,
}

impl Body<'_> {
    /// The next piece of the body, `None` at its end. Fails when the
    /// deadline passes, when nothing arrives for a whole rate window, when
    /// a rate window ends with less than the minimum rate, or when the
    /// connection breaks.
    pub(crate) async fn chunk(&mut self) -> Result<Option<impl AsRef<[u8]>>, PullErrorKind> {
        let window = self.http.limits.rate_window;
        loop {
            let window_ends = after(self.window_start, window);
            let until = self
                .deadline
                .0
                .min(window_ends)
                .min(after(self.last_data, window));
            match tokio::time::timeout_at(until, self.response.chunk()).await {
                Ok(Ok(Some(chunk))) => {
                    self.received += chunk.len() as u64;
                    self.window_bytes += chunk.len() as u64;
                    self.last_data = Instant::now();
                    if self.last_data >= window_ends {
                        self.end_window()?;
                    }
                    return Ok(Some(chunk));
                }
                Ok(Ok(None)) => return Ok(None),
                Ok(Err(_)) => {
                    return Err(PullErrorKind::Truncated {
                        what: self.call.what.to_string(),
                        received: self.received,
                        expected: self.expected,
                        attempts: 1,
                    })
                }
                Err(_) => {
                    let now = Instant::now();
                    if now >= self.deadline.0 {
                        return Err(self.http.deadline_error(self.call));
                    }
                    if now >= after(self.last_data, window) {
                        return Err(PullErrorKind::Stalled {
                            what: self.call.what.to_string(),
                            window,
                        });
                    }
                    self.end_window()?;
                }
            }
        }
    }

    /// Checks the rate over the window that just ended and starts the next.
    fn end_window(&mut self) -> Result<(), PullErrorKind> {
        let limits = &self.http.limits;
        let elapsed = self.window_start.elapsed().as_secs_f64();
        if (self.window_bytes as f64) < limits.min_rate as f64 * elapsed {
            return Err(PullErrorKind::TooSlow {
                what: self.call.what.to_string(),
                rate: limits.min_rate,
                window: limits.rate_window,
            });
        }
        self.window_start = Instant::now();
        self.window_bytes = 0;
        Ok(())
    }

    /// The whole body, refused (while it streams) once it grows beyond
    /// `limit` bytes or the `Content-Length` announces more.
    pub(crate) async fn read_to_end(mut self, limit: u64) -> Result<Vec<u8>, PullErrorKind> {
        let too_large = || PullErrorKind::TooLarge {
            what: self.call.what.to_string(),
            limit,
        };
        if self.expected.is_some_and(|length| length > limit) {
            return Err(too_large());
        }
        let capacity = self.expected.unwrap_or(0).min(limit);
        let mut out = Vec::with_capacity(usize::try_from(capacity).unwrap_or(0));
        while let Some(chunk) = self.chunk().await? {
            if self.received > limit {
                return Err(too_large());
            }
            out.extend_from_slice(chunk.as_ref());
        }
        Ok(out)
    }
}

/// `start + span`, or a century later when `span` is beyond what an
/// instant can hold (limits are public fields).
fn after(start: Instant, span: Duration) -> Instant {
    start
        .checked_add(span)
        .or_else(|| start.checked_add(Duration::from_secs(100 * 365 * 86_400)))
        .unwrap_or(start)
}

/// The most specific text in an error's chain, lower-cased at the front.
pub(crate) fn error_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut innermost = error;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    if let Some(io) = innermost.downcast_ref::<std::io::Error>() {
        match io.kind() {
            std::io::ErrorKind::ConnectionRefused => return "connection refused".to_string(),
            std::io::ErrorKind::ConnectionReset => return "connection reset by peer".to_string(),
            std::io::ErrorKind::TimedOut => return "timed out".to_string(),
            _ => {}
        }
    }
    lowercase_first(innermost.to_string())
}

fn chain_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut texts = vec![error.to_string()];
    let mut current = error;
    while let Some(source) = current.source() {
        texts.push(source.to_string());
        current = source;
    }
    texts.join(": ").to_lowercase()
}

/// Classifies a request that got no answer: redirects, DNS, TLS, the
/// connection.
fn classify_request(error: &reqwest::Error, registry: &str) -> PullErrorKind {
    let registry = registry.to_string();
    if error.is_redirect() {
        return PullErrorKind::TooManyRedirects {
            registry,
            limit: MAX_REDIRECTS,
        };
    }
    let texts = chain_text(error);
    let message = error_text(error);
    if texts.contains("certificate")
        || texts.contains("tls")
        || texts.contains("handshake")
        || texts.contains("corrupt message")
    {
        let hint = if texts.contains("corrupt message") || texts.contains("invalidcontenttype") {
            " (is it a plain-HTTP registry? try --use-http)"
        } else if texts.contains("certificate") {
            " (use --skip-tls-verify to accept it anyway)"
        } else {
            ""
        };
        return PullErrorKind::Tls {
            registry,
            message: format!("{message}{hint}"),
        };
    }
    if texts.contains("dns error") {
        return PullErrorKind::Resolve { registry, message };
    }
    if error.is_connect() {
        return PullErrorKind::Connect {
            registry,
            message,
            attempts: 1,
        };
    }
    PullErrorKind::Interrupted {
        registry,
        message,
        attempts: 1,
    }
}

/// A `Retry-After` header: delay seconds or an HTTP date (RFC 9110).
pub(crate) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = parse_http_date(value)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// Seconds since the epoch of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37
/// GMT`), the form HTTP requires senders to use.
fn parse_http_date(text: &str) -> Option<u64> {
    let parts: Vec<&str> = text.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| m == month)? as u64 + 1;
    let day: u64 = day.parse().ok()?;
    let year: u64 = year.parse().ok()?;
    let mut clock = time.split(':').map(|p| p.parse::<u64>().ok());
    let (hour, minute, second) = (clock.next()??, clock.next()??, clock.next()??);
    if !(1..=31).contains(&day) || year < 1970 || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let (y, m) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y / 400;
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = (era * 146_097 + doe).checked_sub(719_468)?;
    Some(days * 86_400 + hour * 3_600 + minute * 60 + second)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn limits_come_from_the_environment() {
        assert_eq!(Limits::from_vars(vars(&[])).unwrap(), Limits::default());
        let limits = Limits::from_vars(vars(&[
            (TIMEOUT_VAR, "2.5"),
            (MIN_RATE_VAR, "0"),
            (RATE_WINDOW_VAR, " 3 "),
        ]))
        .unwrap();
        assert_eq!(limits.timeout, Duration::from_millis(2500));
        assert_eq!(limits.min_rate, 0);
        assert_eq!(limits.rate_window, Duration::from_secs(3));
        assert_eq!(
            Limits::from_vars(vars(&[(TIMEOUT_VAR, "")])).unwrap(),
            Limits::default()
        );
        for (name, value, message) in [
            (
                TIMEOUT_VAR,
                "10m",
                "invalid OPM_REGISTRY_TIMEOUT \"10m\": expected a number of seconds greater than 0",
            ),
            (
                RATE_WINDOW_VAR,
                "0",
                "invalid OPM_REGISTRY_RATE_WINDOW \"0\": expected a number of seconds greater than 0",
            ),
            (
                TIMEOUT_VAR,
                "inf",
                "invalid OPM_REGISTRY_TIMEOUT \"inf\": expected a number of seconds greater than 0",
            ),
            (
                MIN_RATE_VAR,
                "-1",
                "invalid OPM_REGISTRY_MIN_RATE \"-1\": expected a whole number of bytes per \
                 second (0 turns the check off)",
            ),
        ] {
            let error = Limits::from_vars(vars(&[(name, value)])).unwrap_err();
            assert_eq!(error.to_string(), message);
        }
    }

    #[test]
    fn retry_delays_double() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.delay(1), Duration::from_millis(500));
        assert_eq!(policy.delay(2), Duration::from_secs(1));
        assert_eq!(policy.delay(3), Duration::from_secs(2));
        let total: Duration = (1..policy.attempts).map(|a| policy.delay(a)).sum();
        assert!(total < Duration::from_secs(5), "{total:?}");
    }

    #[test]
    fn retry_after_takes_seconds_and_dates() {
        let mut headers = reqwest::header::HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert(reqwest::header::RETRY_AFTER, "3".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(3)));
        headers.insert(
            reqwest::header::RETRY_AFTER,
            "Sun, 06 Nov 1994 08:49:37 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&headers), Some(Duration::ZERO));
        assert_eq!(
            parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
        assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            parse_http_date("Tue, 29 Feb 2028 12:00:00 GMT"),
            Some(1_835_438_400)
        );
        for bad in [
            "soon",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 32 Nov 1994 08:49:37 GMT",
        ] {
            assert_eq!(parse_http_date(bad), None, "{bad}");
        }
    }
}
