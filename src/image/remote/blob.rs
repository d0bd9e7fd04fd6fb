//! Blobs: validated digests and their hashing, and downloads that verify a
//! blob's size and digest while it streams to memory or to a file, starting
//! again from scratch when a transient failure cuts one short.

use super::error::{BlobKind, PullErrorKind};
use super::transport::{Call, Deadline};
use super::{Session, Subject};
use crate::encoding::json::go_quote;
use reqwest::Method;
use std::fmt;
use std::io::Read as _;
use std::path::Path;
use std::time::{Duration, Instant};
use tokio::io::{AsyncWrite, AsyncWriteExt as _};

/// Where a download goes.
pub(super) enum Target<'a> {
    Memory(&'a mut Vec<u8>),
    File(&'a Path),
}

impl Session {
    /// Downloads one blob of `size` bytes into `target`, verifying its size
    /// and digest as it streams; a transient failure starts it again, all
    /// attempts within one deadline. `position` (`index`, `count`) shows
    /// progress for a layer.
    pub(super) async fn download(
        &self,
        blob: BlobKind,
        digest: &Digest,
        size: u64,
        mut target: Target<'_>,
        position: Option<(usize, usize)>,
    ) -> Result<(), PullErrorKind> {
        let deadline = self.http.deadline();
        let mut attempt = 1;
        loop {
            let result = match &mut target {
                Target::Memory(buffer) => {
                    buffer.clear();
                    // Writing to memory cannot fail; the path is never shown.
                    let memory = Path::new("<memory>");
                    self.stream_blob(
                        blob,
                        digest,
                        size,
                        &mut **buffer,
                        memory,
                        position,
                        deadline,
                    )
                    .await
                }
                Target::File(path) => {
                    self.stream_to_file(blob, digest, size, path, position, deadline)
                        .await
                }
            };
            if self.progress && position.is_some() {
                crate::output::progress_clear();
            }
            match result {
                Ok(()) => return Ok(()),
                Err(e) => match self.http.next_attempt(&e, attempt, deadline) {
                    Some(wait) => {
                        tokio::time::sleep(wait).await;
                        attempt += 1;
                    }
                    None => return Err(e.record_attempts(attempt)),
                },
            }
        }
    }

    async fn stream_to_file(
        &self,
        blob: BlobKind,
        digest: &Digest,
        size: u64,
        path: &Path,
        position: Option<(usize, usize)>,
        deadline: Deadline,
    ) -> Result<(), PullErrorKind> {
        let io = |source| PullErrorKind::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = tokio::fs::File::create(path).await.map_err(io)?;
        let mut writer = tokio::io::BufWriter::new(file);
        self.stream_blob(blob, digest, size, &mut writer, path, position, deadline)
            .await?;
        writer.flush().await.map_err(io)?;
        Ok(())
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "one blob's identity, destination and progress slot"
    )]
    async fn stream_blob<W: AsyncWrite + Unpin>(
        &self,
        blob: BlobKind,
        digest: &Digest,
        size: u64,
        writer: &mut W,
        destination: &Path,
        position: Option<(usize, usize)>,
        deadline: Deadline,
    ) -> Result<(), PullErrorKind> {
        let name = digest.to_string();
        let what = format!("{blob} {}", go_quote(&name));
        let call = Call {
            registry: &self.registry,
            what: &what,
        };
        let request = self.repository_request(Method::GET, &format!("blobs/{name}"));
        let response = self.http.send(request, deadline, true, call).await?;
        if !response.status().is_success() {
            return Err(self
                .failure(response, deadline, call, &Subject::Named(what.clone()))
                .await);
        }
        let oversized = || PullErrorKind::Oversized {
            blob,
            digest: name.clone(),
            expected: size,
        };
        if response
            .content_length()
            .is_some_and(|length| length > size)
        {
            return Err(oversized());
        }
        let mut body = self.http.body(response, deadline, call);
        let mut hasher = digest.hasher();
        let mut shown = Instant::now();
        while let Some(chunk) = body.chunk().await? {
            if body.received > size {
                return Err(oversized());
            }
            let chunk = chunk.as_ref();
            hasher.update(chunk);
            writer
                .write_all(chunk)
                .await
                .map_err(|source| PullErrorKind::Io {
                    path: destination.to_path_buf(),
                    source,
                })?;
            if let (true, Some((index, count))) = (self.progress, position) {
                if shown.elapsed() >= Duration::from_millis(100) || body.received == size {
                    shown = Instant::now();
                    crate::output::progress(&progress_line(
                        index,
                        count,
                        &name,
                        body.received,
                        size,
                    ));
                }
            }
        }
        if body.received != size {
            return Err(PullErrorKind::SizeMismatch {
                blob,
                digest: name,
                expected: size,
                actual: body.received,
            });
        }
        let actual = hasher.finish();
        if actual != name {
            return Err(PullErrorKind::DigestMismatch {
                blob,
                digest: name,
                actual,
            });
        }
        Ok(())
    }
}

fn progress_line(index: usize, count: usize, digest: &str, received: u64, size: u64) -> String {
    let short = digest
        .split_once(':')
        .map_or(digest, |(_, hex)| &hex[..hex.len().min(12)]);
    format!(
        "Downloading layer {index}/{count} {short}: {} / {}",
        human_size(received),
        human_size(size)
    )
}

fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// A digest algorithm this client can verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Algorithm {
    Sha256,
    Sha384,
    Sha512,
}

/// A validated `algorithm:hex` digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Digest {
    algorithm: Algorithm,
    hex: String,
}

impl Digest {
    pub(super) fn parse(text: &str) -> Option<Digest> {
        let (algorithm, hex) = text.split_once(':')?;
        let (algorithm, length) = match algorithm {
            "sha256" => (Algorithm::Sha256, 64),
            "sha384" => (Algorithm::Sha384, 96),
            "sha512" => (Algorithm::Sha512, 128),
            _ => return None,
        };
        let valid = hex.len() == length
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        valid.then(|| Digest {
            algorithm,
            hex: hex.to_string(),
        })
    }

    pub(super) fn sha256() -> Digest {
        Digest {
            algorithm: Algorithm::Sha256,
            hex: String::new(),
        }
    }

    fn hasher(&self) -> Hasher {
        use sha2::Digest as _;
        match self.algorithm {
            Algorithm::Sha256 => Hasher::Sha256(sha2::Sha256::new()),
            Algorithm::Sha384 => Hasher::Sha384(sha2::Sha384::new()),
            Algorithm::Sha512 => Hasher::Sha512(sha2::Sha512::new()),
        }
    }

    /// Copies `reader` to `writer`, at most `limit` bytes (one more is read
    /// to notice a longer input), and returns the digest of what was copied
    /// with this digest's algorithm and its length.
    pub(super) fn hash_copy(
        &self,
        reader: &mut dyn std::io::Read,
        writer: &mut dyn std::io::Write,
        limit: u64,
    ) -> std::io::Result<(String, u64)> {
        let mut hasher = self.hasher();
        let mut buffer = vec![0u8; 64 * 1024];
        let mut total = 0u64;
        let mut limited = reader.take(limit.saturating_add(1));
        loop {
            let n = match limited.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            hasher.update(&buffer[..n]);
            writer.write_all(&buffer[..n])?;
            total += n as u64;
        }
        Ok((hasher.finish(), total))
    }

    /// The digest of `bytes` with this digest's algorithm.
    pub(super) fn hash(&self, bytes: &[u8]) -> String {
        let mut hasher = self.hasher();
        hasher.update(bytes);
        hasher.finish()
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let algorithm = match self.algorithm {
            Algorithm::Sha256 => "sha256",
            Algorithm::Sha384 => "sha384",
            Algorithm::Sha512 => "sha512",
        };
        write!(f, "{algorithm}:{}", self.hex)
    }
}

enum Hasher {
    Sha256(sha2::Sha256),
    Sha384(sha2::Sha384),
    Sha512(sha2::Sha512),
}

impl Hasher {
    fn update(&mut self, bytes: &[u8]) {
        use sha2::Digest as _;
        match self {
            Hasher::Sha256(h) => h.update(bytes),
            Hasher::Sha384(h) => h.update(bytes),
            Hasher::Sha512(h) => h.update(bytes),
        }
    }

    fn finish(self) -> String {
        use sha2::Digest as _;
        let (algorithm, bytes) = match self {
            Hasher::Sha256(h) => ("sha256", h.finalize().to_vec()),
            Hasher::Sha384(h) => ("sha384", h.finalize().to_vec()),
            Hasher::Sha512(h) => ("sha512", h.finalize().to_vec()),
        };
        let mut out = String::with_capacity(algorithm.len() + 1 + bytes.len() * 2);
        out.push_str(algorithm);
        out.push(':');
        for byte in bytes {
            out.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
            out.push(char::from(b"0123456789abcdef"[usize::from(byte & 15)]));
        }
        out
    }
}

/// `text` as a digest this client can verify.
pub(super) fn valid_digest(blob: BlobKind, text: &str) -> Result<Digest, PullErrorKind> {
    Digest::parse(text).ok_or_else(|| PullErrorKind::InvalidContent {
        blob,
        name: text.to_string(),
        message: "not a valid sha256, sha384 or sha512 digest".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_validated_and_computed() {
        let empty = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        let parsed = Digest::parse(empty).unwrap();
        assert_eq!(parsed.to_string(), empty);
        assert_eq!(parsed.hash(b""), empty);
        assert_eq!(Digest::sha256().hash(b""), empty);
        for bad in [
            "sha256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
            "sha256:abc",
            "md5:d41d8cd98f00b204e9800998ecf8427e",
            "sha256/../../etc",
            "",
        ] {
            assert!(Digest::parse(bad).is_none(), "{bad}");
        }
        let sha512 = Digest::parse(&format!("sha512:{}", "0".repeat(128))).unwrap();
        assert!(sha512.hash(b"x").starts_with("sha512:"));
    }

    #[test]
    fn progress_lines_are_short() {
        let line = progress_line(1, 3, &format!("sha256:{}", "a".repeat(64)), 1536, 3 << 20);
        assert_eq!(
            line,
            "Downloading layer 1/3 aaaaaaaaaaaa: 1.5 KiB / 3.0 MiB"
        );
    }
}
