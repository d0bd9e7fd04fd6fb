//! Pulling images from any OCI registry, without a container daemon: resolve
//! the reference, find credentials, fetch the manifest (choosing a platform
//! from an image index), read the config's labels and stream every layer to a
//! file. Every blob's digest and size is verified; nothing here unpacks layers
//! (see `unpack.rs`) and nothing here prints except through `crate::output`.

use super::auth::{AuthError, Credentials};
use super::reference::{Reference, ReferenceError};
use super::{Layer, PullOptions, PulledImage};
use crate::encoding::json::go_quote;
use futures_util::StreamExt as _;
use oci_client::client::{ClientConfig, ClientProtocol};
use oci_client::errors::{DigestError, OciDistributionError, OciErrorCode};
use oci_client::secrets::RegistryAuth;
use oci_client::RegistryOperation;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio::io::{AsyncWrite, AsyncWriteExt as _};

/// Largest manifest or image index accepted (containers/image uses the same).
pub const MAX_MANIFEST_SIZE: u64 = 4 << 20;
/// Largest image config accepted (containers/image uses the same).
pub const MAX_CONFIG_SIZE: u64 = 4 << 20;
/// Time allowed to open a connection to a registry.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Time allowed between two reads of a response.
const READ_TIMEOUT: Duration = Duration::from_secs(60);
const USER_AGENT: &str = concat!("opm/", env!("CARGO_PKG_VERSION"));

const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";
const DOCKER_LIST: &str = "application/vnd.docker.distribution.manifest.list.v2+json";
const ACCEPTED_MANIFESTS: &[&str] = &[OCI_MANIFEST, OCI_INDEX, DOCKER_MANIFEST, DOCKER_LIST];

/// How often, and how patiently, transient failures (connection refused or
/// reset, timeouts, HTTP 429 and 5xx) are retried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (at least 1).
    pub attempts: u32,
    /// Wait before the second attempt; doubled before each further one.
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

/// A failed pull: `failed to pull image "<reference>": <kind>`.
#[derive(Debug, thiserror::Error)]
#[error("failed to pull image {}: {kind}", go_quote(.reference))]
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
#[derive(Debug, thiserror::Error)]
pub enum PullErrorKind {
    #[error("{0}")]
    InvalidReference(#[source] ReferenceError),
    #[error("invalid platform {}: expected os/arch[/variant]", go_quote(.platform))]
    InvalidPlatform { platform: String },
    #[error("{0}")]
    Credentials(#[source] AuthError),
    #[error("cannot start the network runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("failed to fetch root CA from {}: {message}", .path.display())]
    RootCa {
        path: std::path::PathBuf,
        message: String,
    },
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
    #[error("registry {} did not answer in time{}", go_quote(.registry), gave_up(*.attempts))]
    Timeout { registry: String, attempts: u32 },
    #[error(
        "download from registry {} was interrupted: {message}{}",
        go_quote(.registry),
        gave_up(*.attempts)
    )]
    Interrupted {
        registry: String,
        message: String,
        attempts: u32,
    },
    #[error(
        "registry {} answered HTTP {status}{}{}",
        go_quote(.registry),
        colon(.message),
        gave_up(*.attempts)
    )]
    Status {
        registry: String,
        status: u16,
        /// The registry's own explanation, shortened.
        message: String,
        attempts: u32,
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
    #[error("{blob} {} is too large: {size} bytes, the limit is {limit}", go_quote(.name))]
    TooLarge {
        blob: BlobKind,
        /// The digest, or the reference for a manifest fetched by tag.
        name: String,
        size: u64,
        limit: u64,
    },
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
    #[error("write {}: {source}", .path.display())]
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

fn colon(message: &str) -> String {
    if message.is_empty() {
        String::new()
    } else {
        format!(": {message}")
    }
}

impl PullErrorKind {
    /// Whether trying again may help: the network or the registry had a
    /// moment of trouble, as opposed to a wrong name, password or content.
    pub fn is_transient(&self) -> bool {
        match self {
            PullErrorKind::Connect { .. }
            | PullErrorKind::Timeout { .. }
            | PullErrorKind::Interrupted { .. } => true,
            PullErrorKind::Status { status, .. } => {
                matches!(status, 408 | 429) || (*status >= 500 && *status != 501)
            }
            _ => false,
        }
    }

    fn record_attempts(mut self, count: u32) -> PullErrorKind {
        match &mut self {
            PullErrorKind::Connect { attempts, .. }
            | PullErrorKind::Timeout { attempts, .. }
            | PullErrorKind::Interrupted { attempts, .. }
            | PullErrorKind::Status { attempts, .. } => *attempts = count,
            _ => {}
        }
        self
    }
}

/// Pulls `reference` (blocking) with the default [`RetryPolicy`].
pub fn pull(reference: &str, options: &PullOptions) -> Result<PulledImage, PullError> {
    pull_with_retry(reference, options, &RetryPolicy::default())
}

/// Pulls `reference` (blocking), retrying transient failures as `retry` says.
pub fn pull_with_retry(
    reference: &str,
    options: &PullOptions,
    retry: &RetryPolicy,
) -> Result<PulledImage, PullError> {
    let fail = |kind| PullError {
        reference: reference.to_string(),
        kind,
    };
    let parsed = Reference::parse_normalized(reference)
        .map_err(|e| fail(PullErrorKind::InvalidReference(e)))?
        .docker_ref();
    if parsed.domain.is_empty() {
        return Err(fail(PullErrorKind::InvalidReference(
            ReferenceError::InvalidFormat,
        )));
    }
    let platform = match &options.platform {
        Some(text) => Some(Platform::parse(text).ok_or_else(|| {
            fail(PullErrorKind::InvalidPlatform {
                platform: text.clone(),
            })
        })?),
        None => None,
    };
    let credentials = options
        .auth
        .lookup(&parsed.domain, &parsed.path)
        .map_err(|e| fail(PullErrorKind::Credentials(e)))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| fail(PullErrorKind::Runtime(e)))?;
    let puller = Puller::new(&parsed, credentials, options, platform, retry).map_err(fail)?;
    runtime.block_on(puller.run(reference)).map_err(fail)
}

/// One pull in progress: the client, the names for messages, the settings.
/// Pushes (`build.rs`) reuse its client setup, retries and error
/// classification.
pub(crate) struct Puller {
    pub(crate) client: oci_client::Client,
    pub(crate) image: oci_client::Reference,
    pub(crate) auth: RegistryAuth,
    registry: String,
    repository: String,
    reference: Reference,
    with_credentials: bool,
    platform: Option<Platform>,
    retry: RetryPolicy,
    progress: bool,
}

/// What a request was after, to name it when it is not found.
#[derive(Clone, Copy)]
pub(crate) enum Subject<'a> {
    Registry,
    Manifest(&'a str),
    Blob(BlobKind, &'a str),
}

impl Puller {
    pub(crate) fn new(
        reference: &Reference,
        credentials: Option<Credentials>,
        options: &PullOptions,
        platform: Option<Platform>,
        retry: &RetryPolicy,
    ) -> Result<Puller, PullErrorKind> {
        let registry = reference.domain.clone();
        let client = oci_client::Client::try_from(client_config(options)?).map_err(|e| {
            PullErrorKind::Tls {
                registry: registry.clone(),
                message: error_text(&e),
            }
        })?;
        let image = match &reference.digest {
            Some(digest) => oci_client::Reference::with_digest(
                registry.clone(),
                reference.path.clone(),
                digest.clone(),
            ),
            None => oci_client::Reference::with_tag(
                registry.clone(),
                reference.path.clone(),
                reference
                    .tag
                    .clone()
                    .unwrap_or_else(|| super::reference::DEFAULT_TAG.to_string()),
            ),
        };
        let with_credentials = credentials.is_some();
        let auth = match credentials {
            Some(c) => RegistryAuth::Basic(c.username, c.password),
            None => RegistryAuth::Anonymous,
        };
        Ok(Puller {
            client,
            image,
            auth,
            registry,
            repository: reference.path.clone(),
            reference: reference.clone(),
            with_credentials,
            platform,
            retry: retry.clone(),
            progress: options.progress && std::io::stderr().is_terminal(),
        })
    }

    async fn run(self, typed: &str) -> Result<PulledImage, PullErrorKind> {
        let dir = tempfile::Builder::new()
            .prefix("opm-image-")
            .tempdir()
            .map_err(|source| PullErrorKind::Io {
                path: std::env::temp_dir(),
                source,
            })?;
        self.authenticate().await?;

        let name = self.reference.to_string();
        let expected = self.reference.digest.as_deref().map(|d| (d, None));
        let (body, manifest_digest) = self.manifest(&self.image, &name, expected).await?;
        let (manifest, platform) = match parse_manifest(&body, &name)? {
            Manifest::Image(manifest) => (manifest, None),
            Manifest::Index(index) => {
                let (entry, platform) = select_platform(&index.manifests, self.platform.as_ref())?;
                let digest = valid_digest(BlobKind::Manifest, &entry.digest)?;
                let child = self.image.clone_with_digest(digest.to_string());
                let (body, _) = self
                    .manifest(
                        &child,
                        &entry.digest,
                        Some((&entry.digest, Some(entry.size))),
                    )
                    .await?;
                match parse_manifest(&body, &entry.digest)? {
                    Manifest::Image(manifest) => (manifest, Some(platform.to_string())),
                    Manifest::Index(_) => {
                        return Err(PullErrorKind::UnsupportedManifest {
                            name: entry.digest.clone(),
                            reason: "an image index inside an image index".to_string(),
                        })
                    }
                }
            }
        };

        let config = &manifest.config;
        let config_digest = valid_digest(BlobKind::Config, &config.digest)?;
        check_size_cap(
            BlobKind::Config,
            &config.digest,
            config.size,
            MAX_CONFIG_SIZE,
        )?;
        let mut config_bytes = Vec::new();
        self.download(
            BlobKind::Config,
            &config_digest,
            config.size,
            Target::Memory(&mut config_bytes),
            None,
        )
        .await?;
        let labels = config_labels(&config_bytes, &config.digest)?;

        let mut layers = Vec::with_capacity(manifest.layers.len());
        let count = manifest.layers.len();
        for (index, descriptor) in manifest.layers.iter().enumerate() {
            let digest = valid_digest(BlobKind::Layer, &descriptor.digest)?;
            let path = dir.path().join(format!("layer-{index}"));
            self.download(
                BlobKind::Layer,
                &digest,
                descriptor.size,
                Target::File(&path),
                Some((index + 1, count)),
            )
            .await?;
            layers.push(Layer {
                path,
                media_type: descriptor.media_type.clone(),
                digest: descriptor.digest.clone(),
                size: descriptor.size,
            });
        }
        Ok(PulledImage {
            reference: typed.to_string(),
            manifest_digest,
            labels,
            platform,
            layers,
            dir,
        })
    }

    /// Runs `operation` until it succeeds, fails for good, or runs out of
    /// attempts.
    pub(crate) async fn retrying<T, F, Fut>(&self, mut operation: F) -> Result<T, PullErrorKind>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<T, PullErrorKind>>,
    {
        let mut attempt = 1;
        loop {
            match operation().await {
                Ok(value) => return Ok(value),
                Err(e) if e.is_transient() && attempt < self.retry.attempts => {
                    tokio::time::sleep(self.retry.delay(attempt)).await;
                    attempt += 1;
                }
                Err(e) => return Err(e.record_attempts(attempt)),
            }
        }
    }

    /// Asks the registry how to authenticate (basic or bearer token) and
    /// gets a token when needed.
    async fn authenticate(&self) -> Result<(), PullErrorKind> {
        self.retrying(|| async {
            self.client
                .auth(&self.image, &self.auth, RegistryOperation::Pull)
                .await
                .map(drop)
                .map_err(|e| self.classify(e, Subject::Registry))
        })
        .await
    }

    /// Fetches a manifest, checks its size and (when known) its digest, and
    /// returns it with its digest.
    async fn manifest(
        &self,
        image: &oci_client::Reference,
        name: &str,
        expected: Option<(&str, Option<u64>)>,
    ) -> Result<(Vec<u8>, String), PullErrorKind> {
        if let Some((digest, Some(size))) = expected {
            check_size_cap(BlobKind::Manifest, digest, size, MAX_MANIFEST_SIZE)?;
        }
        let what = match (expected, &self.reference.tag) {
            (Some((digest, _)), _) => format!("manifest {}", go_quote(digest)),
            (None, Some(tag)) => format!("tag {}", go_quote(tag)),
            (None, None) => format!("manifest {}", go_quote(name)),
        };
        let body = self
            .retrying(|| async {
                self.client
                    .pull_manifest_raw(image, &self.auth, ACCEPTED_MANIFESTS)
                    .await
                    .map(|(body, _)| body)
                    .map_err(|e| match e {
                        OciDistributionError::DigestError(DigestError::VerificationError {
                            expected,
                            actual,
                        }) => PullErrorKind::DigestMismatch {
                            blob: BlobKind::Manifest,
                            digest: expected,
                            actual,
                        },
                        e => self.classify(e, Subject::Manifest(&what)),
                    })
            })
            .await?;
        let size = body.len() as u64;
        if size > MAX_MANIFEST_SIZE {
            return Err(PullErrorKind::TooLarge {
                blob: BlobKind::Manifest,
                name: name.to_string(),
                size,
                limit: MAX_MANIFEST_SIZE,
            });
        }
        let digest = match expected {
            Some((expected, declared)) => {
                let parsed = valid_digest(BlobKind::Manifest, expected)?;
                let actual = parsed.hash(&body);
                if actual != expected {
                    return Err(PullErrorKind::DigestMismatch {
                        blob: BlobKind::Manifest,
                        digest: expected.to_string(),
                        actual,
                    });
                }
                if let Some(declared) = declared.filter(|&d| d != size) {
                    return Err(PullErrorKind::SizeMismatch {
                        blob: BlobKind::Manifest,
                        digest: expected.to_string(),
                        expected: declared,
                        actual: size,
                    });
                }
                actual
            }
            None => Digest::sha256().hash(&body),
        };
        Ok((body.to_vec(), digest))
    }

    /// Downloads one blob into `target`, verifying its size and digest as it
    /// streams; a transient failure starts the blob again.
    async fn download(
        &self,
        blob: BlobKind,
        digest: &Digest,
        size: u64,
        mut target: Target<'_>,
        position: Option<(usize, usize)>,
    ) -> Result<(), PullErrorKind> {
        let mut attempt = 1;
        loop {
            let result = match &mut target {
                Target::Memory(buffer) => {
                    buffer.clear();
                    // Writing to memory cannot fail; the path is never shown.
                    let memory = Path::new("<memory>");
                    self.stream_blob(blob, digest, size, &mut **buffer, memory, position)
                        .await
                }
                Target::File(path) => {
                    self.stream_to_file(blob, digest, size, path, position)
                        .await
                }
            };
            if self.progress && position.is_some() {
                crate::output::progress_clear();
            }
            match result {
                Ok(()) => return Ok(()),
                Err(e) if e.is_transient() && attempt < self.retry.attempts => {
                    tokio::time::sleep(self.retry.delay(attempt)).await;
                    attempt += 1;
                }
                Err(e) => return Err(e.record_attempts(attempt)),
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
    ) -> Result<(), PullErrorKind> {
        let io = |source| PullErrorKind::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = tokio::fs::File::create(path).await.map_err(io)?;
        let mut writer = tokio::io::BufWriter::new(file);
        self.stream_blob(blob, digest, size, &mut writer, path, position)
            .await?;
        writer.flush().await.map_err(io)?;
        Ok(())
    }

    async fn stream_blob<W: AsyncWrite + Unpin>(
        &self,
        blob: BlobKind,
        digest: &Digest,
        size: u64,
        writer: &mut W,
        destination: &Path,
        position: Option<(usize, usize)>,
    ) -> Result<(), PullErrorKind> {
        let name = digest.to_string();
        let mut stream = self
            .client
            .pull_blob_stream(&self.image, name.as_str())
            .await
            .map_err(|e| self.classify(e, Subject::Blob(blob, &name)))?;
        if stream.content_length.is_some_and(|length| length > size) {
            return Err(PullErrorKind::Oversized {
                blob,
                digest: name,
                expected: size,
            });
        }
        let mut hasher = digest.hasher();
        let mut received = 0u64;
        let mut shown = Instant::now();
        while let Some(chunk) = stream.next().await {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                // The library's own check at the end of the stream; ours
                // below names the blob.
                Err(e) if is_digest_error(&e) => break,
                Err(e) => return Err(self.stream_error(&e)),
            };
            received += chunk.len() as u64;
            if received > size {
                return Err(PullErrorKind::Oversized {
                    blob,
                    digest: name,
                    expected: size,
                });
            }
            hasher.update(&chunk);
            writer
                .write_all(&chunk)
                .await
                .map_err(|source| PullErrorKind::Io {
                    path: destination.to_path_buf(),
                    source,
                })?;
            if let (true, Some((index, count))) = (self.progress, position) {
                if shown.elapsed() >= Duration::from_millis(100) || received == size {
                    shown = Instant::now();
                    crate::output::progress(&progress_line(index, count, &name, received, size));
                }
            }
        }
        if received != size {
            return Err(PullErrorKind::SizeMismatch {
                blob,
                digest: name,
                expected: size,
                actual: received,
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

    fn stream_error(&self, error: &std::io::Error) -> PullErrorKind {
        let timed_out = error.kind() == std::io::ErrorKind::TimedOut
            || chain_texts(error)
                .iter()
                .any(|text| text.to_lowercase().contains("timed out"));
        if timed_out {
            PullErrorKind::Timeout {
                registry: self.registry.clone(),
                attempts: 1,
            }
        } else {
            PullErrorKind::Interrupted {
                registry: self.registry.clone(),
                message: error_text(error),
                attempts: 1,
            }
        }
    }

    /// Turns a client error into a message about this pull.
    pub(crate) fn classify(
        &self,
        error: OciDistributionError,
        subject: Subject<'_>,
    ) -> PullErrorKind {
        let registry = self.registry.clone();
        let not_found = |repository_missing: bool| {
            if repository_missing {
                return PullErrorKind::RepositoryNotFound {
                    repository: self.reference.name(),
                };
            }
            let what = match subject {
                Subject::Registry => "the registry API".to_string(),
                Subject::Manifest(what) => what.to_string(),
                Subject::Blob(blob, digest) => format!("{blob} {}", go_quote(digest)),
            };
            PullErrorKind::NotFound {
                what,
                repository: self.reference.name(),
            }
        };
        let unauthorized = || PullErrorKind::Unauthorized {
            registry: self.registry.clone(),
            repository: self.repository.clone(),
            with_credentials: self.with_credentials,
        };
        match error {
            OciDistributionError::RequestError(e) => classify_request(&e, registry),
            OciDistributionError::UnauthorizedError { .. }
            | OciDistributionError::AuthenticationFailure(_) => unauthorized(),
            OciDistributionError::RegistryError { envelope, .. } => {
                let codes: Vec<&OciErrorCode> = envelope.errors.iter().map(|e| &e.code).collect();
                if codes.contains(&&OciErrorCode::NameUnknown) {
                    not_found(true)
                } else if codes.iter().any(|c| {
                    matches!(
                        c,
                        OciErrorCode::ManifestUnknown
                            | OciErrorCode::BlobUnknown
                            | OciErrorCode::NotFound
                    )
                }) {
                    not_found(false)
                } else if codes
                    .iter()
                    .any(|c| matches!(c, OciErrorCode::Unauthorized | OciErrorCode::Denied))
                {
                    unauthorized()
                } else {
                    let message = envelope
                        .errors
                        .iter()
                        .map(|e| e.message.clone())
                        .filter(|m| !m.is_empty())
                        .collect::<Vec<_>>()
                        .join("; ");
                    let status = if codes.contains(&&OciErrorCode::Toomanyrequests) {
                        429
                    } else {
                        400
                    };
                    PullErrorKind::Status {
                        registry,
                        status,
                        message: shorten(&message),
                        attempts: 1,
                    }
                }
            }
            OciDistributionError::ServerError { code, message, .. } => match code {
                401 | 403 => unauthorized(),
                404 => not_found(false),
                400 if message.contains("HTTP request to an HTTPS server") => {
                    PullErrorKind::HttpToHttps { registry }
                }
                _ => PullErrorKind::Status {
                    registry,
                    status: code,
                    message: shorten(&message),
                    attempts: 1,
                },
            },
            OciDistributionError::IoError(e) => PullErrorKind::Interrupted {
                registry,
                message: error_text(&e),
                attempts: 1,
            },
            other => PullErrorKind::Protocol {
                registry,
                message: error_text(&other),
            },
        }
    }
}

enum Target<'a> {
    Memory(&'a mut Vec<u8>),
    File(&'a Path),
}

fn client_config(options: &PullOptions) -> Result<ClientConfig, PullErrorKind> {
    let transport = options.transport;
    let mut extra_root_certificates = Vec::new();
    if let Some(path) = &options.root_ca {
        let fail = |message: String| PullErrorKind::RootCa {
            path: path.clone(),
            message,
        };
        let data = std::fs::read(path).map_err(|e| fail(crate::declcfg::load::io_message(&e)))?;
        if !String::from_utf8_lossy(&data).contains("-----BEGIN CERTIFICATE-----") {
            return Err(fail("no PEM certificate in the file".to_string()));
        }
        extra_root_certificates.push(oci_client::client::Certificate {
            encoding: oci_client::client::CertificateEncoding::Pem,
            data,
        });
    }
    Ok(ClientConfig {
        extra_root_certificates,
        protocol: if transport.use_http {
            ClientProtocol::Http
        } else {
            ClientProtocol::Https
        },
        accept_invalid_certificates: transport.skip_tls_verify,
        platform_resolver: None,
        connect_timeout: Some(CONNECT_TIMEOUT),
        read_timeout: Some(READ_TIMEOUT),
        user_agent: USER_AGENT,
        ..ClientConfig::default()
    })
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

fn shorten(message: &str) -> String {
    let message = message.trim();
    let mut out: String = message.chars().take(200).collect();
    if out.len() < message.len() {
        out.push('…');
    }
    lowercase_first(out)
}

/// Lower-cases a leading capital (`Connection refused` → `connection
/// refused`), leaving acronyms (`TLS`) alone.
fn lowercase_first(text: String) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => {
            first.to_lowercase().chain(text.chars().skip(1)).collect()
        }
        _ => text,
    }
}

/// The most specific text in an error's chain, lower-cased at the front.
fn error_text(error: &(dyn std::error::Error + 'static)) -> String {
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

fn chain_texts(error: &(dyn std::error::Error + 'static)) -> Vec<String> {
    let mut texts = vec![error.to_string()];
    let mut current = error;
    while let Some(source) = current.source() {
        texts.push(source.to_string());
        current = source;
    }
    texts
}

/// Classifies a failed HTTP request: DNS, TLS, connection or timeout.
fn classify_request(error: &(dyn std::error::Error + 'static), registry: String) -> PullErrorKind {
    let texts = chain_texts(error).join(": ").to_lowercase();
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
    if texts.contains("timed out") || texts.contains("timeout") {
        return PullErrorKind::Timeout {
            registry,
            attempts: 1,
        };
    }
    PullErrorKind::Connect {
        registry,
        message,
        attempts: 1,
    }
}

fn is_digest_error(error: &std::io::Error) -> bool {
    error
        .get_ref()
        .is_some_and(|inner| inner.downcast_ref::<DigestError>().is_some())
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
struct Digest {
    algorithm: Algorithm,
    hex: String,
}

impl Digest {
    fn parse(text: &str) -> Option<Digest> {
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

    fn sha256() -> Digest {
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

    /// The digest of `bytes` with this digest's algorithm.
    fn hash(&self, bytes: &[u8]) -> String {
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

fn valid_digest(blob: BlobKind, text: &str) -> Result<Digest, PullErrorKind> {
    Digest::parse(text).ok_or_else(|| PullErrorKind::InvalidContent {
        blob,
        name: text.to_string(),
        message: "not a valid sha256, sha384 or sha512 digest".to_string(),
    })
}

/// Refuses a blob whose declared size is beyond `limit` before fetching it.
fn check_size_cap(blob: BlobKind, name: &str, size: u64, limit: u64) -> Result<(), PullErrorKind> {
    if size > limit {
        return Err(PullErrorKind::TooLarge {
            blob,
            name: name.to_string(),
            size,
            limit,
        });
    }
    Ok(())
}

/// A content descriptor (`mediaType`, `digest`, `size`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Descriptor {
    #[serde(default)]
    media_type: String,
    digest: String,
    size: u64,
    #[serde(default)]
    platform: Option<Platform>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawManifest {
    schema_version: Option<i64>,
    #[serde(default)]
    media_type: Option<String>,
    #[serde(default)]
    config: Option<Descriptor>,
    #[serde(default)]
    layers: Option<Vec<Descriptor>>,
    #[serde(default)]
    manifests: Option<Vec<Descriptor>>,
}

#[derive(Debug)]
struct ImageManifest {
    config: Descriptor,
    layers: Vec<Descriptor>,
}

#[derive(Debug)]
struct ImageIndex {
    manifests: Vec<Descriptor>,
}

#[derive(Debug)]
enum Manifest {
    Image(ImageManifest),
    Index(ImageIndex),
}

/// Parses an OCI or Docker schema 2 image manifest or index.
fn parse_manifest(body: &[u8], name: &str) -> Result<Manifest, PullErrorKind> {
    let invalid = |message: String| PullErrorKind::InvalidContent {
        blob: BlobKind::Manifest,
        name: name.to_string(),
        message,
    };
    let unsupported = |reason: String| PullErrorKind::UnsupportedManifest {
        name: name.to_string(),
        reason,
    };
    let raw: RawManifest = serde_json::from_slice(body).map_err(|e| invalid(e.to_string()))?;
    if raw.schema_version != Some(2) {
        return Err(unsupported(match raw.schema_version {
            Some(version) => format!("schema version {version} (only version 2 is supported)"),
            None => "no schema version".to_string(),
        }));
    }
    let is_index = match raw.media_type.as_deref() {
        Some(OCI_INDEX | DOCKER_LIST) => true,
        Some(OCI_MANIFEST | DOCKER_MANIFEST) => false,
        Some(other) => return Err(unsupported(format!("media type {}", go_quote(other)))),
        None => raw.manifests.is_some(),
    };
    if is_index {
        let manifests = raw
            .manifests
            .ok_or_else(|| invalid("an image index without \"manifests\"".to_string()))?;
        return Ok(Manifest::Index(ImageIndex { manifests }));
    }
    let config = raw
        .config
        .ok_or_else(|| invalid("an image manifest without \"config\"".to_string()))?;
    Ok(Manifest::Image(ImageManifest {
        config,
        layers: raw.layers.unwrap_or_default(),
    }))
}

/// The labels of an image config (`config.Labels`, possibly absent or null).
fn config_labels(body: &[u8], digest: &str) -> Result<BTreeMap<String, String>, PullErrorKind> {
    #[derive(Deserialize)]
    struct ConfigFile {
        #[serde(default)]
        config: Option<ContainerConfig>,
    }
    #[derive(Deserialize)]
    struct ContainerConfig {
        #[serde(default, rename = "Labels")]
        labels: Option<BTreeMap<String, String>>,
    }
    let file: ConfigFile =
        serde_json::from_slice(body).map_err(|e| PullErrorKind::InvalidContent {
            blob: BlobKind::Config,
            name: digest.to_string(),
            message: e.to_string(),
        })?;
    Ok(file.config.and_then(|c| c.labels).unwrap_or_default())
}

/// An image platform: `os/architecture[/variant]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Platform {
    #[serde(default)]
    pub os: String,
    #[serde(default)]
    pub architecture: String,
    #[serde(default)]
    pub variant: Option<String>,
}

impl Platform {
    /// Parses `os/arch[/variant]`.
    pub fn parse(text: &str) -> Option<Platform> {
        let mut parts = text.split('/');
        let os = parts.next().filter(|s| !s.is_empty())?;
        let architecture = parts.next().filter(|s| !s.is_empty())?;
        let variant = match parts.next() {
            Some("") => return None,
            Some(v) => Some(v.to_string()),
            None => None,
        };
        if parts.next().is_some() {
            return None;
        }
        Some(Platform {
            os: os.to_string(),
            architecture: architecture.to_string(),
            variant,
        })
    }

    /// The platform this program runs on, in OCI (Go) spelling.
    pub fn host() -> Platform {
        let os = match std::env::consts::OS {
            "macos" => "darwin",
            other => other,
        };
        let (architecture, variant) = match std::env::consts::ARCH {
            "x86_64" => ("amd64", None),
            "x86" => ("386", None),
            "aarch64" => ("arm64", None),
            "arm" => ("arm", Some("v7")),
            "powerpc64" if cfg!(target_endian = "little") => ("ppc64le", None),
            "loongarch64" => ("loong64", None),
            other => (other, None),
        };
        Platform {
            os: os.to_string(),
            architecture: architecture.to_string(),
            variant: variant.map(str::to_string),
        }
    }

    fn linux_amd64() -> Platform {
        Platform {
            os: "linux".to_string(),
            architecture: "amd64".to_string(),
            variant: None,
        }
    }

    /// Whether an index entry's platform satisfies this wanted platform: no
    /// wanted variant accepts any; arm64's variant `v8` is its default.
    fn accepts(&self, candidate: &Platform) -> bool {
        let normal = |p: &Platform| match (p.architecture.as_str(), p.variant.as_deref()) {
            ("arm64", Some("v8")) => None,
            (_, variant) => variant.map(str::to_string),
        };
        self.os == candidate.os
            && self.architecture == candidate.architecture
            && (self.variant.is_none() || normal(self) == normal(candidate))
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.os, self.architecture)?;
        if let Some(variant) = &self.variant {
            write!(f, "/{variant}")?;
        }
        Ok(())
    }
}

/// Picks the entry of an image index to pull: the wanted platform, or else
/// linux/amd64 if present, else the host's platform.
fn select_platform<'a>(
    entries: &'a [Descriptor],
    wanted: Option<&Platform>,
) -> Result<(&'a Descriptor, Platform), PullErrorKind> {
    let candidates: Vec<Platform> = match wanted {
        Some(platform) => vec![platform.clone()],
        None => {
            let host = Platform::host();
            let amd64 = Platform::linux_amd64();
            if host.accepts(&amd64) {
                vec![amd64]
            } else {
                vec![amd64, host]
            }
        }
    };
    for candidate in &candidates {
        let found = entries.iter().find_map(|entry| {
            let platform = entry.platform.as_ref()?;
            candidate
                .accepts(platform)
                .then(|| (entry, platform.clone()))
        });
        if let Some(found) = found {
            return Ok(found);
        }
    }
    let available = entries
        .iter()
        .filter_map(|e| e.platform.as_ref())
        .filter(|p| p.os != "unknown" && p.architecture != "unknown")
        .map(Platform::to_string)
        .collect();
    Err(PullErrorKind::NoPlatform {
        wanted: candidates.iter().map(Platform::to_string).collect(),
        available,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(platform: &str, digest: char) -> Descriptor {
        Descriptor {
            media_type: OCI_MANIFEST.to_string(),
            digest: format!("sha256:{}", digest.to_string().repeat(64)),
            size: 10,
            platform: Platform::parse(platform),
        }
    }

    #[test]
    fn platform_parse_and_display() {
        for (text, ok) in [
            ("linux/amd64", true),
            ("linux/arm/v7", true),
            ("linux", false),
            ("linux/", false),
            ("/amd64", false),
            ("linux/arm/", false),
            ("a/b/c/d", false),
        ] {
            let parsed = Platform::parse(text);
            assert_eq!(parsed.is_some(), ok, "{text}");
            if let Some(p) = parsed {
                assert_eq!(p.to_string(), text);
            }
        }
    }

    #[test]
    fn index_prefers_linux_amd64() {
        let entries = [
            entry("linux/arm64", 'a'),
            entry("linux/amd64", 'b'),
            entry("unknown/unknown", 'c'),
        ];
        let (chosen, platform) = select_platform(&entries, None).unwrap();
        assert_eq!(chosen.digest, entries[1].digest);
        assert_eq!(platform.to_string(), "linux/amd64");
    }

    #[test]
    fn index_honours_the_wanted_platform_and_variants() {
        let entries = [
            entry("linux/amd64", 'a'),
            entry("linux/arm/v6", 'b'),
            entry("linux/arm/v7", 'c'),
            entry("linux/arm64/v8", 'd'),
        ];
        let pick = |wanted: &str| {
            select_platform(&entries, Platform::parse(wanted).as_ref())
                .map(|(e, p)| (e.digest.chars().last().unwrap(), p.to_string()))
        };
        assert_eq!(pick("linux/arm/v7").unwrap(), ('c', "linux/arm/v7".into()));
        assert_eq!(pick("linux/arm").unwrap(), ('b', "linux/arm/v6".into()));
        assert_eq!(pick("linux/arm64").unwrap(), ('d', "linux/arm64/v8".into()));
        assert_eq!(pick("linux/arm64/v8").unwrap().0, 'd');
        let error = pick("linux/s390x").unwrap_err().to_string();
        assert_eq!(
            error,
            "no image for platform \"linux/s390x\" in the image index \
             (it has linux/amd64, linux/arm/v6, linux/arm/v7, linux/arm64/v8)"
        );
    }

    #[test]
    fn index_without_amd64_falls_back_to_the_host() {
        let host = Platform::host();
        let entries = [entry("linux/s390x", 'a'), entry(&host.to_string(), 'b')];
        let result = select_platform(&entries, None);
        if host.accepts(&Platform::linux_amd64()) {
            let (chosen, _) = result.unwrap();
            assert_eq!(chosen.digest, entries[1].digest);
        } else {
            assert_eq!(result.unwrap().1, host);
        }
        let only_other = [entry("windows/riscv64", 'a')];
        let error = select_platform(&only_other, None).unwrap_err();
        assert!(matches!(error, PullErrorKind::NoPlatform { .. }));
        assert!(error.to_string().contains("\"linux/amd64\""), "{error}");
    }

    #[test]
    fn retry_classification() {
        let status = |status| PullErrorKind::Status {
            registry: "r".into(),
            status,
            message: String::new(),
            attempts: 1,
        };
        for (kind, transient) in [
            (status(500), true),
            (status(502), true),
            (status(503), true),
            (status(429), true),
            (status(408), true),
            (status(501), false),
            (status(400), false),
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
                PullErrorKind::Timeout {
                    registry: "r".into(),
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
                PullErrorKind::Tls {
                    registry: "r".into(),
                    message: "bad certificate".into(),
                },
                false,
            ),
            (
                PullErrorKind::Unauthorized {
                    registry: "r".into(),
                    repository: "x".into(),
                    with_credentials: true,
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
    fn retry_delays_double_and_attempts_are_reported() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.delay(1), Duration::from_millis(500));
        assert_eq!(policy.delay(2), Duration::from_secs(1));
        assert_eq!(policy.delay(3), Duration::from_secs(2));
        let total: Duration = (1..policy.attempts).map(|a| policy.delay(a)).sum();
        assert!(total < Duration::from_secs(5), "{total:?}");
        let error = PullErrorKind::Connect {
            registry: "127.0.0.1:1".into(),
            message: "connection refused".into(),
            attempts: 1,
        }
        .record_attempts(4);
        assert_eq!(
            error.to_string(),
            "cannot connect to registry \"127.0.0.1:1\": connection refused \
             (gave up after 4 attempts)"
        );
    }

    #[test]
    fn size_caps() {
        assert!(check_size_cap(
            BlobKind::Config,
            "sha256:x",
            MAX_CONFIG_SIZE,
            MAX_CONFIG_SIZE
        )
        .is_ok());
        let error = check_size_cap(
            BlobKind::Manifest,
            "sha256:x",
            MAX_MANIFEST_SIZE + 1,
            MAX_MANIFEST_SIZE,
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "manifest \"sha256:x\" is too large: 4194305 bytes, the limit is 4194304"
        );
    }

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
    fn manifests_of_both_formats_and_indexes_parse() {
        let docker = br#"{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",
            "config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"sha256:aa","size":3},
            "layers":[{"mediaType":"application/vnd.docker.image.rootfs.diff.tar.gzip","digest":"sha256:bb","size":4}]}"#;
        let Manifest::Image(image) = parse_manifest(docker, "x").unwrap() else {
            panic!("not an image manifest");
        };
        assert_eq!(image.layers.len(), 1);
        assert_eq!(image.config.size, 3);
        let index = br#"{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json",
            "digest":"sha256:cc","size":5,"platform":{"os":"linux","architecture":"amd64"}}]}"#;
        assert!(matches!(
            parse_manifest(index, "x").unwrap(),
            Manifest::Index(_)
        ));
        let v1 = br#"{"schemaVersion":1,"name":"x","tag":"y","fsLayers":[]}"#;
        let error = parse_manifest(v1, "x").unwrap_err().to_string();
        assert!(error.contains("schema version 1"), "{error}");
        let error = parse_manifest(b"{", "x").unwrap_err();
        assert!(matches!(error, PullErrorKind::InvalidContent { .. }));
    }

    #[test]
    fn labels_come_from_the_config() {
        let labels =
            config_labels(br#"{"config":{"Labels":{"a":"1","b":"2"}}}"#, "sha256:x").unwrap();
        assert_eq!(labels.len(), 2);
        assert!(config_labels(br#"{"config":{"Labels":null}}"#, "d")
            .unwrap()
            .is_empty());
        assert!(config_labels(br#"{}"#, "d").unwrap().is_empty());
        assert!(config_labels(br#"{"config":{"Labels":{"a":1}}}"#, "d").is_err());
    }

    #[test]
    fn messages_never_carry_credentials() {
        let error = PullError {
            reference: "r.io/a/b:c".into(),
            kind: PullErrorKind::Unauthorized {
                registry: "r.io".into(),
                repository: "a/b".into(),
                with_credentials: true,
            },
        };
        assert_eq!(
            error.to_string(),
            "failed to pull image \"r.io/a/b:c\": unauthorized: registry \"r.io\" refused \
             the credentials found for \"r.io/a/b\""
        );
    }

    #[test]
    fn registry_texts_are_lower_cased_and_shortened() {
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

    #[test]
    fn progress_lines_are_short() {
        let line = progress_line(1, 3, &format!("sha256:{}", "a".repeat(64)), 1536, 3 << 20);
        assert_eq!(
            line,
            "Downloading layer 1/3 aaaaaaaaaaaa: 1.5 KiB / 3.0 MiB"
        );
    }
}
