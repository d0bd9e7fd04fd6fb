//! A deliberately misbehaving registry: a small HTTP/1.1 server on
//! 127.0.0.1 (std `TcpListener`, a thread per connection, raw responses,
//! `Connection: close`) that serves an OCI image layout like a registry, and
//! lets each test decide, request by request, to misbehave instead: stall,
//! trickle, cut a body short, stream forever, redirect in a loop, or answer
//! an error status. It records every request and counts the bytes it sent.

use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request as the server read it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// Header names lower-cased.
    pub headers: BTreeMap<String, String>,
    /// How many requests with the same method and path came before.
    pub repeat: usize,
}

impl Request {
    pub fn is_manifest(&self) -> bool {
        self.path.contains("/manifests/")
    }
}

/// What the server does with a request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Answer like a registry: `/v2/`, manifests by tag or digest, blobs.
    Serve,
    /// An answer with this status, extra headers and body.
    Status {
        code: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// `200` with a chunked body that never ends (until the client leaves,
    /// or 2 GiB).
    Endless,
    /// The content, announced with its full `Content-Length`, one byte per
    /// second.
    Trickle,
    /// Read the request, never answer (until the client leaves).
    Stall,
    /// The content with its full `Content-Length`, but only the first half,
    /// then the connection closes.
    CutOff,
    /// The first half of the content, then silence (until the client
    /// leaves).
    StallHalfway,
    /// `302` back to the same URL.
    RedirectLoop,
}

type Rule = dyn Fn(&Request) -> Reply + Send + Sync;

pub struct HostileRegistry {
    /// `127.0.0.1:<port>`.
    pub host: String,
    requests: Arc<Mutex<Vec<Request>>>,
    sent: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

/// What the server can serve: blobs by digest, manifests by tag.
#[derive(Debug, Default)]
struct Content {
    blobs: BTreeMap<String, Vec<u8>>,
    /// Tag → (media type, digest).
    tags: BTreeMap<String, (String, String)>,
}

impl Content {
    /// Reads an OCI image layout (`index.json` with ref-name annotations,
    /// `blobs/sha256/*`).
    fn from_layout(layout: &Path) -> Content {
        let mut content = Content::default();
        for entry in std::fs::read_dir(layout.join("blobs/sha256")).expect("layout blobs") {
            let entry = entry.expect("blob entry");
            let digest = format!("sha256:{}", entry.file_name().to_string_lossy());
            content
                .blobs
                .insert(digest, std::fs::read(entry.path()).expect("read blob"));
        }
        let index: serde_json::Value =
            serde_json::from_slice(&std::fs::read(layout.join("index.json")).expect("index"))
                .expect("index.json");
        for manifest in index["manifests"].as_array().expect("manifests") {
            let tag = manifest["annotations"]["org.opencontainers.image.ref.name"]
                .as_str()
                .expect("tagged manifest");
            content.tags.insert(
                tag.to_string(),
                (
                    manifest["mediaType"].as_str().unwrap().to_string(),
                    manifest["digest"].as_str().unwrap().to_string(),
                ),
            );
        }
        content
    }

    /// The content type and bytes a `GET` of `path` should answer.
    fn lookup(&self, path: &str) -> Option<(String, Vec<u8>)> {
        if path == "/v2/" {
            return Some(("application/json".to_string(), b"{}".to_vec()));
        }
        let rest = path.strip_prefix("/v2/")?;
        if let Some((_, reference)) = rest.rsplit_once("/manifests/") {
            let (media_type, digest) = match self.tags.get(reference) {
                Some((media_type, digest)) => (media_type.clone(), digest.clone()),
                None => {
                    let bytes = self.blobs.get(reference)?;
                    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
                    (
                        value["mediaType"].as_str()?.to_string(),
                        reference.to_string(),
                    )
                }
            };
            return Some((media_type, self.blobs.get(&digest)?.clone()));
        }
        let (_, digest) = rest.rsplit_once("/blobs/")?;
        Some((
            "application/octet-stream".to_string(),
            self.blobs.get(digest)?.clone(),
        ))
    }
}

impl HostileRegistry {
    /// Serves the OCI layout at `layout`, asking `rule` what to do with
    /// each request.
    pub fn start(
        layout: &Path,
        rule: impl Fn(&Request) -> Reply + Send + Sync + 'static,
    ) -> HostileRegistry {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let host = listener.local_addr().expect("address").to_string();
        let content = Arc::new(Content::from_layout(layout));
        let rule: Arc<Rule> = Arc::new(rule);
        let requests = Arc::new(Mutex::new(Vec::new()));
        let sent = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (log, counter, stopped) = (Arc::clone(&requests), Arc::clone(&sent), Arc::clone(&stop));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (content, rule, log, counter) = (
                    Arc::clone(&content),
                    Arc::clone(&rule),
                    Arc::clone(&log),
                    Arc::clone(&counter),
                );
                std::thread::spawn(move || {
                    serve(stream, &content, &*rule, &log, &counter);
                });
            }
        });
        HostileRegistry {
            host,
            requests,
            sent,
            stop,
        }
    }

    /// `<host>/<repository>`.
    pub fn reference(&self, repository: &str) -> String {
        format!("{}/{repository}", self.host)
    }

    /// The requests so far that satisfy `filter`.
    pub fn count(&self, filter: impl Fn(&Request) -> bool) -> usize {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter(|r| filter(r))
            .count()
    }

    /// Body bytes sent so far.
    pub fn bytes_sent(&self) -> u64 {
        self.sent.load(Ordering::SeqCst)
    }
}

impl Drop for HostileRegistry {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the flag.
        let _ = TcpStream::connect(&self.host);
    }
}

fn read_request(stream: &mut TcpStream) -> Option<(String, String, BTreeMap<String, String>)> {
    let mut data = Vec::new();
    let mut buffer = [0; 4096];
    while !data.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return None,
            Ok(n) => data.extend_from_slice(&buffer[..n]),
        }
        if data.len() > 1 << 20 {
            return None;
        }
    }
    let text = String::from_utf8_lossy(&data).into_owned();
    let mut lines = text.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_string(), first.next()?.to_string());
    let headers = lines
        .take_while(|line| !line.is_empty())
        .filter_map(|line| line.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Some((method, path, headers))
}

fn serve(
    mut stream: TcpStream,
    content: &Content,
    rule: &Rule,
    log: &Mutex<Vec<Request>>,
    sent: &AtomicU64,
) {
    let Some((method, path, headers)) = read_request(&mut stream) else {
        return;
    };
    let request = {
        let mut log = log.lock().unwrap();
        let repeat = log
            .iter()
            .filter(|r| r.method == method && r.path == path)
            .count();
        let request = Request {
            method,
            path,
            headers,
            repeat,
        };
        log.push(request.clone());
        request
    };
    let head_only = request.method == "HEAD";
    let found = content.lookup(request.path.split('?').next().unwrap_or_default());
    let (media_type, body) = found.clone().unwrap_or_default();
    let send = |stream: &mut TcpStream, bytes: &[u8]| -> bool {
        let ok = stream
            .write_all(bytes)
            .and_then(|()| stream.flush())
            .is_ok();
        if ok {
            sent.fetch_add(bytes.len() as u64, Ordering::SeqCst);
        }
        ok
    };
    let head = |code: u16, headers: &[(String, String)], length: Option<usize>| {
        let mut text = format!("HTTP/1.1 {code} {}\r\n", reason(code));
        for (name, value) in headers {
            text.push_str(&format!("{name}: {value}\r\n"));
        }
        if let Some(length) = length {
            text.push_str(&format!("Content-Length: {length}\r\n"));
        }
        text.push_str("Connection: close\r\n\r\n");
        text.into_bytes()
    };
    let typed = vec![("Content-Type".to_string(), media_type.clone())];
    match rule(&request) {
        Reply::Serve if found.is_none() => {
            let body = br#"{"errors":[{"code":"NOT_FOUND","message":"not found"}]}"#;
            let _ = stream.write_all(&head(404, &[], Some(body.len())));
            let _ = stream.write_all(body);
        }
        Reply::Serve => {
            let _ = stream.write_all(&head(200, &typed, Some(body.len())));
            if !head_only {
                send(&mut stream, &body);
            }
        }
        Reply::Status {
            code,
            headers,
            body,
        } => {
            let _ = stream.write_all(&head(code, &headers, Some(body.len())));
            send(&mut stream, &body);
        }
        Reply::Endless => {
            let mut headers = typed;
            headers.push(("Transfer-Encoding".to_string(), "chunked".to_string()));
            let _ = stream.write_all(&head(200, &headers, None));
            let mut chunk = format!("{:x}\r\n", 64 * 1024).into_bytes();
            chunk.extend(std::iter::repeat_n(b' ', 64 * 1024));
            chunk.extend_from_slice(b"\r\n");
            let mut total = 0u64;
            while total < 2 << 30 && send(&mut stream, &chunk) {
                total += chunk.len() as u64;
            }
        }
        Reply::Trickle => {
            let _ = stream.write_all(&head(200, &typed, Some(body.len())));
            for byte in &body {
                if !send(&mut stream, std::slice::from_ref(byte)) {
                    return;
                }
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        Reply::Stall => wait_for_close(&mut stream),
        Reply::CutOff => {
            let _ = stream.write_all(&head(200, &typed, Some(body.len())));
            send(&mut stream, &body[..body.len() / 2]);
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
        Reply::StallHalfway => {
            let _ = stream.write_all(&head(200, &typed, Some(body.len())));
            send(&mut stream, &body[..body.len() / 2]);
            wait_for_close(&mut stream);
        }
        Reply::RedirectLoop => {
            let location = vec![("Location".to_string(), request.path.clone())];
            let _ = stream.write_all(&head(302, &location, Some(0)));
        }
    }
}

/// Blocks until the client closes the connection.
fn wait_for_close(stream: &mut TcpStream) {
    let mut buffer = [0; 1024];
    while matches!(stream.read(&mut buffer), Ok(n) if n > 0) {}
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        302 => "Found",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}
