//! The connection and the health check, as grpc-go makes them for the original: a blocking
//! dial that retries with grpc-go's backoff until the caller's deadline, where a connection
//! counts once the server's HTTP/2 preface (its first SETTINGS frame) has arrived; then one
//! `grpc.health.v1.Health/Check` call through tonic's codec over a bare hyper HTTP/2
//! connection, so that the headers sent are the original's (`:authority`, `user-agent`,
//! `-rpc-header` metadata, `grpc-timeout`).

use super::target::{self, Addresses, Endpoint, Target};
use http::{HeaderMap, HeaderName, HeaderValue, Uri};
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;

/// What a connection is made with besides the target: TLS, when `-tls` is given.
pub struct Tls {
    pub config: Arc<rustls::ClientConfig>,
    pub no_verify: bool,
}

/// One failed connection attempt. grpc-go keeps the reason to itself (it logs it only with
/// its own logger switched on), and so does the probe; the attempt is simply retried.
#[derive(Debug)]
struct AttemptFailed;

trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

/// An HTTP/2 connection to the server, ready for calls.
#[derive(Clone)]
pub struct Connection {
    sender: SendRequest<tonic::body::Body>,
    origin: Uri,
}

/// grpc-go's default connection backoff: 1 s, then ×1.6 per retry up to 120 s, ±20 % jitter
/// from the second retry on.
fn backoff(retries: u32, random: &mut u64) -> Duration {
    if retries == 0 {
        return Duration::from_secs(1);
    }
    let mut delay = 1.0f64;
    for _ in 0..retries {
        if delay >= 120.0 {
            break;
        }
        delay *= 1.6;
    }
    delay = delay.min(120.0);
    // xorshift: jitter needs no better randomness.
    *random ^= *random << 13;
    *random ^= *random >> 7;
    *random ^= *random << 17;
    let unit = (*random >> 11) as f64 / (1u64 << 53) as f64;
    Duration::from_secs_f64(delay * (1.0 + 0.2 * (unit * 2.0 - 1.0)))
}

/// Connects, retrying until it succeeds; the caller bounds it with `-connect-timeout`.
pub async fn dial(target: &Target, authority: &str, tls: Option<&Tls>) -> Connection {
    let mut random = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x9e37_79b9_7f4a_7c15, |d| u64::from(d.subsec_nanos()) | 1);
    let mut retries = 0;
    loop {
        if let Ok(connection) = attempt(target, authority, tls).await {
            return connection;
        }
        tokio::time::sleep(backoff(retries, &mut random)).await;
        retries += 1;
    }
}

/// The host a TLS certificate must name: grpc-go's `ClientHandshake` takes the authority's
/// host, or the whole authority when it has no port.
fn tls_host(authority: &str) -> &str {
    target::split_host_port(authority).map_or(authority, |(host, _)| host)
}

async fn attempt(
    target: &Target,
    authority: &str,
    tls: Option<&Tls>,
) -> Result<Connection, AttemptFailed> {
    let stream = open(&target.endpoint).await?;
    let (stream, scheme): (Box<dyn Stream>, &str) = match tls {
        None => (stream, "http"),
        Some(tls) => {
            let name =
                super::tls::server_name(tls_host(authority), tls.no_verify).ok_or(AttemptFailed)?;
            let stream = tokio_rustls::TlsConnector::from(tls.config.clone())
                .connect(name, stream)
                .await
                .map_err(|_| AttemptFailed)?;
            // grpc-go refuses a server that does not agree on HTTP/2 by ALPN.
            if stream.get_ref().1.alpn_protocol() != Some(b"h2".as_slice()) {
                return Err(AttemptFailed);
            }
            (Box::new(stream), "https")
        }
    };
    let (preface_sender, mut preface) = tokio::sync::watch::channel(None);
    let watched = PrefaceWatch {
        inner: stream,
        header: Vec::with_capacity(9),
        remaining: None,
        done: false,
        result: preface_sender,
    };
    let (sender, connection) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .handshake(TokioIo::new(watched))
        .await
        .map_err(|_| AttemptFailed)?;
    tokio::spawn(connection);
    let received = preface
        .wait_for(Option::is_some)
        .await
        .map_err(|_| AttemptFailed)?;
    if *received != Some(true) {
        return Err(AttemptFailed);
    }
    let origin = format!("{scheme}://{authority}")
        .parse::<Uri>()
        .or_else(|_| format!("{scheme}://localhost").parse::<Uri>())
        .map_err(|_| AttemptFailed)?;
    Ok(Connection { sender, origin })
}

/// The byte stream to the target: TCP to the first address that accepts, or a Unix socket.
async fn open(endpoint: &Endpoint) -> Result<Box<dyn Stream>, AttemptFailed> {
    let (host, port) = match endpoint {
        Endpoint::Unix(path) => {
            let stream = tokio::net::UnixStream::connect(path)
                .await
                .map_err(|_| AttemptFailed)?;
            return Ok(Box::new(stream));
        }
        Endpoint::UnixAbstract(name) => {
            use std::os::linux::net::SocketAddrExt as _;
            let address = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())
                .map_err(|_| AttemptFailed)?;
            let stream = std::os::unix::net::UnixStream::connect_addr(&address)
                .and_then(|stream| {
                    stream.set_nonblocking(true)?;
                    tokio::net::UnixStream::from_std(stream)
                })
                .map_err(|_| AttemptFailed)?;
            return Ok(Box::new(stream));
        }
        Endpoint::Tcp(address) => {
            let (host, port) = target::split_host_port(address).map_err(|_| AttemptFailed)?;
            (host.to_string(), port.to_string())
        }
        Endpoint::Dns { host, port } => (host.clone(), port.clone()),
    };
    let addresses = match target::addresses(&host, &port).ok_or(AttemptFailed)? {
        Addresses::Known(addresses) => addresses,
        Addresses::Lookup { host, port } => tokio::net::lookup_host((host.as_str(), port))
            .await
            .map_err(|_| AttemptFailed)?
            .collect(),
    };
    for address in addresses {
        if let Ok(stream) = tokio::net::TcpStream::connect(address).await {
            let _ = stream.set_nodelay(true);
            return Ok(Box::new(stream));
        }
    }
    Err(AttemptFailed)
}

/// Passes the server's bytes through and reports, once, whether they began with a whole
/// SETTINGS frame (the HTTP/2 server preface grpc-go waits for before it calls a connection
/// ready).
struct PrefaceWatch {
    inner: Box<dyn Stream>,
    /// The first frame's 9-byte header, while it is incomplete.
    header: Vec<u8>,
    /// The first frame's payload bytes still to come.
    remaining: Option<usize>,
    done: bool,
    result: tokio::sync::watch::Sender<Option<bool>>,
}

impl PrefaceWatch {
    fn finish(&mut self, ok: bool) {
        self.done = true;
        let _ = self.result.send(Some(ok));
    }

    fn feed(&mut self, mut bytes: &[u8]) {
        if self.remaining.is_none() {
            let take = (9 - self.header.len()).min(bytes.len());
            self.header.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.header.len() < 9 {
                return;
            }
            // Type 0x4 is SETTINGS.
            if self.header[3] != 0x4 {
                return self.finish(false);
            }
            let length = (usize::from(self.header[0]) << 16)
                | (usize::from(self.header[1]) << 8)
                | usize::from(self.header[2]);
            self.remaining = Some(length);
        }
        let remaining = self.remaining.unwrap_or(0).saturating_sub(bytes.len());
        self.remaining = Some(remaining);
        if remaining == 0 {
            self.finish(true);
        }
    }
}

impl AsyncRead for PrefaceWatch {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if !this.done {
            match &polled {
                Poll::Ready(Ok(())) if buf.filled().len() > before => {
                    let bytes = buf.filled()[before..].to_vec();
                    this.feed(&bytes);
                }
                Poll::Ready(_) => this.finish(false),
                Poll::Pending => {}
            }
        }
        polled
    }
}

impl AsyncWrite for PrefaceWatch {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// The connection as tonic's client sees it: every request gets the probe's `user-agent` and
/// `-rpc-header` metadata.
#[derive(Clone)]
struct Calls {
    sender: SendRequest<tonic::body::Body>,
    headers: Arc<HeaderMap>,
}

impl tower_service::Service<http::Request<tonic::body::Body>> for Calls {
    type Response = http::Response<hyper::body::Incoming>;
    type Error = hyper::Error;
    type Future =
        Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send + 'static>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.sender.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<tonic::body::Body>) -> Self::Future {
        for (name, value) in self.headers.iter() {
            request.headers_mut().append(name.clone(), value.clone());
        }
        Box::pin(self.sender.send_request(request))
    }
}

/// The headers grpc-go never takes from metadata (it sets them itself, or they are HTTP/2's).
fn is_reserved(key: &str) -> bool {
    key.starts_with(':')
        || matches!(
            key,
            "content-type"
                | "user-agent"
                | "grpc-message-type"
                | "grpc-encoding"
                | "grpc-message"
                | "grpc-status"
                | "grpc-timeout"
                | "te"
        )
}

/// grpc-go's check of outgoing metadata (`metadata.ValidatePair`), which fails the call with
/// `Internal` before anything is sent.
pub fn validate_metadata(headers: &super::flags::RpcHeaders) -> Result<(), String> {
    for (key, values) in &headers.0 {
        if key.is_empty() {
            return Err("there is an empty key in the header".into());
        }
        if key.starts_with(':') {
            continue;
        }
        let key_ok = key.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'_')
        });
        if !key_ok {
            return Err(format!(
                "header key {} contains illegal characters not in [0-9a-z-_.]",
                crate::encoding::json::go_quote(key)
            ));
        }
        if key.ends_with("-bin") {
            continue;
        }
        if values
            .iter()
            .any(|value| value.bytes().any(|b| !(0x20..=0x7e).contains(&b)))
        {
            return Err(format!(
                "header key {} contains value with non-printable ASCII characters",
                crate::encoding::json::go_quote(key)
            ));
        }
    }
    Ok(())
}

/// The headers every call carries: `user-agent` (the flag's value and this client's name, as
/// grpc-go appends its own), then the metadata that [`validate_metadata`] accepted, binary
/// (`-bin`) values in unpadded base64.
fn call_headers(user_agent: &str, metadata: &super::flags::RpcHeaders) -> HeaderMap {
    let mut headers = HeaderMap::new();
    let client = concat!("opm/", env!("CARGO_PKG_VERSION"));
    let agent = if user_agent.is_empty() {
        client.to_string()
    } else {
        format!("{user_agent} {client}")
    };
    if let Ok(value) = HeaderValue::from_str(&agent) {
        headers.insert(http::header::USER_AGENT, value);
    }
    for (key, values) in &metadata.0 {
        if is_reserved(key) {
            continue;
        }
        let Ok(name) = HeaderName::from_bytes(key.as_bytes()) else {
            continue;
        };
        for value in values {
            let text = if key.ends_with("-bin") {
                crate::encoding::base64::encode(value.as_bytes())
                    .trim_end_matches('=')
                    .to_string()
            } else {
                value.clone()
            };
            if let Ok(value) = HeaderValue::from_str(&text) {
                headers.append(name.clone(), value);
            }
        }
    }
    headers
}

/// What a call is made with.
pub struct Call<'a> {
    pub service: &'a str,
    pub user_agent: &'a str,
    pub metadata: &'a super::flags::RpcHeaders,
    pub timeout: Duration,
    pub gzip: bool,
}

/// `Health/Check`: the serving status the server answered (an enum number), or the status of
/// the failed call. The caller bounds it with `-rpc-timeout`; the server learns the deadline
/// from `grpc-timeout`.
pub async fn check(connection: &Connection, call: &Call<'_>) -> Result<i32, tonic::Status> {
    let calls = Calls {
        sender: connection.sender.clone(),
        headers: Arc::new(call_headers(call.user_agent, call.metadata)),
    };
    let mut client = HealthClient::with_origin(calls, connection.origin.clone());
    if call.gzip {
        client = client
            .send_compressed(tonic::codec::CompressionEncoding::Gzip)
            .accept_compressed(tonic::codec::CompressionEncoding::Gzip);
    }
    let mut request = tonic::Request::new(HealthCheckRequest {
        service: call.service.to_string(),
    });
    request.set_timeout(call.timeout);
    let response = client.check(request).await?;
    Ok(response.into_inner().status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::flags::RpcHeaders;

    fn headers(pairs: &[(&str, &[&str])]) -> RpcHeaders {
        RpcHeaders(
            pairs
                .iter()
                .map(|(k, v)| {
                    (
                        (*k).to_string(),
                        v.iter().map(|s| (*s).to_string()).collect(),
                    )
                })
                .collect(),
        )
    }

    #[test]
    fn metadata_is_checked_as_grpc_go_checks_it() {
        assert_eq!(
            validate_metadata(&headers(&[("a-b.c_d", &["x y"])])),
            Ok(())
        );
        assert_eq!(
            validate_metadata(&headers(&[(":authority", &["\u{1}"])])),
            Ok(())
        );
        assert_eq!(
            validate_metadata(&headers(&[("x-bin", &["\u{1}"])])),
            Ok(())
        );
        assert_eq!(
            validate_metadata(&headers(&[("", &["v"])])),
            Err("there is an empty key in the header".into())
        );
        assert_eq!(
            validate_metadata(&headers(&[("a b", &["v"])])),
            Err("header key \"a b\" contains illegal characters not in [0-9a-z-_.]".into())
        );
        assert_eq!(
            validate_metadata(&headers(&[("k", &["\u{e9}"])])),
            Err("header key \"k\" contains value with non-printable ASCII characters".into())
        );
    }

    #[test]
    fn reserved_metadata_is_dropped_and_binary_values_encoded() {
        let map = call_headers(
            "probe",
            &headers(&[
                ("user-agent", &["x"]),
                ("te", &["x"]),
                ("k", &["1", "2"]),
                ("k-bin", &["ab"]),
            ]),
        );
        assert_eq!(
            map.get("user-agent").unwrap(),
            concat!("probe opm/", env!("CARGO_PKG_VERSION"))
        );
        assert!(map.get("te").is_none());
        assert_eq!(map.get_all("k").iter().collect::<Vec<_>>(), ["1", "2"]);
        assert_eq!(map.get("k-bin").unwrap(), "YWI");
    }

    #[test]
    fn backoff_is_grpc_go_s() {
        let mut random = 42;
        assert_eq!(backoff(0, &mut random), Duration::from_secs(1));
        let second = backoff(1, &mut random).as_secs_f64();
        assert!((1.28..=1.92).contains(&second), "{second}");
        let late = backoff(50, &mut random).as_secs_f64();
        assert!((96.0..=144.0).contains(&late), "{late}");
    }
}
