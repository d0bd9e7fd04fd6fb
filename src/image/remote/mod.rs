//! Pulling images from any OCI registry, without a container daemon: resolve
//! the reference, find credentials, fetch the manifest (choosing a platform
//! from an image index), read the config's labels and stream every layer to a
//! file. Registries are untrusted: every blob's digest and size is verified,
//! every body is capped while it streams, and every operation has a deadline
//! and a minimum rate. Nothing here unpacks layers (see `unpack.rs`) and
//! nothing here prints except progress through `crate::output`.
//!
//! `transport` is HTTP with those bounds and the retry policy, `token` the
//! authentication handshake, `manifest` manifests, indexes and platforms,
//! `blob` digests and verified downloads, `push` the uploads of `bundle
//! build`, `error` the messages.

mod blob;
mod error;
pub(crate) mod layout;
mod manifest;
mod push;
pub(crate) mod roots;
mod token;
mod transport;

pub use error::{BlobKind, PullError, PullErrorKind};
pub use manifest::{Platform, MAX_CONFIG_SIZE, MAX_MANIFEST_SIZE};
pub use push::Upload;
pub use transport::{
    Limits, RetryPolicy, SettingError, MAX_REDIRECTS, MIN_RATE_VAR, RATE_WINDOW_VAR, TIMEOUT_VAR,
};

pub(crate) use error::gave_up;
pub(crate) use token::Operation;

use super::auth::Credentials;
use super::reference::{Reference, ReferenceError};
use super::{PullOptions, PulledImage};
use crate::encoding::base64;
use crate::encoding::json::go_quote;
use blob::{valid_digest, Target};
use error::{registry_codes, registry_text};
use manifest::{config_labels, parse_manifest, select_platform, Manifest};
use std::io::IsTerminal as _;
use transport::{Call, Deadline, Http};

/// The most bytes the layers of one image may take together, compressed as
/// they are downloaded (unpacking allows as much, uncompressed).
pub const MAX_LAYERS_SIZE: u64 = 2 << 30;

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
    let parsed = parse_reference(reference).map_err(fail)?;
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
    let runtime = runtime().map_err(fail)?;
    let mut session = Session::new(&parsed, credentials, options, retry).map_err(fail)?;
    session.progress = options.progress && std::io::stderr().is_terminal();
    runtime
        .block_on(session.pull(&parsed, reference, platform.as_ref()))
        .map_err(fail)
}

/// A reference to pull from or push to: normalized, with a registry.
pub(crate) fn parse_reference(reference: &str) -> Result<Reference, PullErrorKind> {
    let parsed = Reference::parse_normalized(reference)
        .map_err(PullErrorKind::InvalidReference)?
        .docker_ref();
    if parsed.domain.is_empty() {
        return Err(PullErrorKind::InvalidReference(
            ReferenceError::InvalidFormat,
        ));
    }
    Ok(parsed)
}

/// The single-threaded runtime a pull or push runs on.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, PullErrorKind> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(PullErrorKind::Runtime)
}

/// Talking to one repository of one registry: the client, the
/// authorization once [`Session::authenticate`] has run, and the names and
/// secrets messages need (the secrets to keep them out).
pub(crate) struct Session {
    http: Http,
    /// The registry as the reference names it (for messages and
    /// credentials).
    registry: String,
    /// Where requests go (Docker Hub's API lives on its own host).
    api_host: String,
    /// The repository path below the registry.
    repository: String,
    credentials: Option<Credentials>,
    /// The `Authorization` header value, once known.
    authorization: Option<String>,
    /// Texts that must never reach a message.
    secrets: Vec<String>,
    /// Show download progress (stderr is a terminal and it was asked for).
    progress: bool,
}

/// What a request was after, to name it when it is not found.
pub(crate) enum Subject {
    /// The registry's API root.
    Registry,
    /// E.g. `tag "v1"`, `manifest "sha256:…"`, `layer "sha256:…"`.
    Named(String),
}

impl Session {
    pub(crate) fn new(
        reference: &Reference,
        credentials: Option<Credentials>,
        options: &PullOptions,
        retry: &RetryPolicy,
    ) -> Result<Session, PullErrorKind> {
        let registry = reference.domain.clone();
        let http = Http::new(options, retry, &registry)?;
        let api_host = match registry.as_str() {
            super::reference::DEFAULT_DOMAIN => "registry-1.docker.io".to_string(),
            other => other.to_string(),
        };
        let secrets = match &credentials {
            Some(c) => vec![
                c.password.clone(),
                base64::encode(format!("{}:{}", c.username, c.password).as_bytes()),
            ],
            None => Vec::new(),
        };
        Ok(Session {
            http,
            registry,
            api_host,
            repository: reference.path.clone(),
            credentials,
            authorization: None,
            secrets,
            progress: false,
        })
    }

    /// Pulls the image `reference` names (`typed` is how the user wrote it).
    async fn pull(
        mut self,
        reference: &Reference,
        typed: &str,
        platform: Option<&Platform>,
    ) -> Result<PulledImage, PullErrorKind> {
        let dir = super::temp_dir().map_err(|source| PullErrorKind::Io {
            path: std::env::temp_dir(),
            source,
        })?;
        self.authenticate(Operation::Pull).await?;

        let (body, manifest_digest) = match &reference.digest {
            Some(digest) => {
                let parsed = valid_digest(BlobKind::Manifest, digest)?;
                self.manifest(digest, Some((&parsed, None))).await?
            }
            None => {
                let tag = reference.tag.as_deref().unwrap_or_default();
                self.manifest(tag, None).await?
            }
        };
        let (manifest, platform) = match parse_manifest(&body, &reference.to_string())? {
            Manifest::Image(manifest) => (manifest, None),
            Manifest::Index(index) => {
                let (entry, platform) = select_platform(&index.manifests, platform)?;
                let manifest = self.index_child(entry).await?;
                (manifest, Some(platform.to_string()))
            }
        };

        let config = &manifest.config;
        let config_digest = valid_digest(BlobKind::Config, &config.digest)?;
        if config.size > MAX_CONFIG_SIZE {
            return Err(PullErrorKind::TooLarge {
                what: format!("config {}", go_quote(&config.digest)),
                limit: MAX_CONFIG_SIZE,
            });
        }
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

        manifest.check_layers_size()?;
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
            layers.push(descriptor.layer(path));
        }
        Ok(PulledImage {
            reference: typed.to_string(),
            manifest_digest,
            labels,
            config: config_bytes,
            platform,
            layers,
            dir,
        })
    }

    /// A request to `<repository>/<path>` on the registry, authorized.
    fn repository_request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let url = self
            .http
            .url(&self.api_host, &format!("{}/{path}", self.repository));
        self.authorize(self.http.request(method, &url))
    }

    fn authorize(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.authorization {
            Some(value) => match reqwest::header::HeaderValue::from_str(value) {
                Ok(mut value) => {
                    value.set_sensitive(true);
                    request.header(reqwest::header::AUTHORIZATION, value)
                }
                Err(_) => request,
            },
            None => request,
        }
    }

    /// Whether `url` is on the registry's API host (where credentials may go).
    fn is_registry_url(&self, url: &reqwest::Url) -> bool {
        let Ok(registry) = reqwest::Url::parse(&self.http.url(&self.api_host, "")) else {
            return false;
        };
        url.scheme() == registry.scheme()
            && url.host_str() == registry.host_str()
            && url.port_or_known_default() == registry.port_or_known_default()
    }

    fn unauthorized(&self) -> PullErrorKind {
        PullErrorKind::Unauthorized {
            registry: self.registry.clone(),
            repository: self.repository.clone(),
            with_credentials: self.credentials.is_some(),
        }
    }

    /// Turns an unsuccessful answer into a message about this request: not
    /// found, unauthorized, denied, or the status with the registry's own
    /// words (and its `Retry-After`, for the retry loop).
    async fn failure(
        &self,
        response: reqwest::Response,
        deadline: Deadline,
        call: Call<'_>,
        subject: &Subject,
    ) -> PullErrorKind {
        let status = response.status().as_u16();
        let retry_after = transport::retry_after(response.headers());
        let body = self.http.error_body(response, deadline, call).await;
        let codes = registry_codes(&body);
        let has = |wanted: &[&str]| codes.iter().any(|code| wanted.contains(&code.as_str()));
        let registry = self.registry.clone();
        let repository = format!("{}/{}", self.registry, self.repository);
        if has(&["NAME_UNKNOWN"]) {
            return PullErrorKind::RepositoryNotFound { repository };
        }
        if status == 404 || has(&["MANIFEST_UNKNOWN", "BLOB_UNKNOWN", "NOT_FOUND"]) {
            let what = match subject {
                Subject::Registry => "the registry API".to_string(),
                Subject::Named(what) => what.clone(),
            };
            return PullErrorKind::NotFound { what, repository };
        }
        if status == 401 || (has(&["UNAUTHORIZED"]) && status != 403) {
            return self.unauthorized();
        }
        if status == 403 || has(&["DENIED"]) {
            let mut message = registry_text(&body, &self.secrets);
            if message.is_empty() {
                message = format!(
                    "registry {} refuses access to {}",
                    go_quote(&registry),
                    go_quote(&repository)
                );
            }
            return PullErrorKind::Denied { registry, message };
        }
        if status == 400
            && String::from_utf8_lossy(&body).contains("HTTP request to an HTTPS server")
        {
            return PullErrorKind::HttpToHttps { registry };
        }
        let status = if has(&["TOOMANYREQUESTS"]) {
            429
        } else {
            status
        };
        PullErrorKind::Status {
            registry,
            status,
            message: registry_text(&body, &self.secrets),
            attempts: 1,
            retry_after,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(reference: &str, use_http: bool) -> Session {
        let options = PullOptions {
            transport: super::super::Transport {
                use_http,
                skip_tls_verify: false,
            },
            auth: super::super::auth::AuthFiles { paths: Vec::new() },
            progress: false,
            platform: None,
            root_ca: None,
            limits: Limits::default(),
        };
        let parsed = parse_reference(reference).unwrap();
        Session::new(&parsed, None, &options, &RetryPolicy::default()).unwrap()
    }

    #[test]
    fn credentials_only_go_to_the_registry_host() {
        let url = |text: &str| reqwest::Url::parse(text).unwrap();
        let https = session("registry.example.com:443/a/b:v1", false);
        assert!(https.is_registry_url(&url("https://registry.example.com/v2/a/b/blobs/uploads/x")));
        assert!(https.is_registry_url(&url("https://registry.example.com:443/v2/x")));
        assert!(!https.is_registry_url(&url("http://registry.example.com/v2/x")));
        assert!(!https.is_registry_url(&url("https://storage.example.com/upload")));
        assert!(!https.is_registry_url(&url("https://registry.example.com:8443/v2/x")));
        let plain = session("127.0.0.1:5000/a:v1", true);
        assert!(plain.is_registry_url(&url("http://127.0.0.1:5000/v2/a/blobs/uploads/1?x=y")));
        assert!(!plain.is_registry_url(&url("http://127.0.0.1:5001/v2/")));
        let hub = session("busybox", false);
        assert_eq!(hub.api_host, "registry-1.docker.io");
        assert_eq!(hub.repository, "library/busybox");
        assert!(hub.is_registry_url(&url("https://registry-1.docker.io/v2/x")));
    }
}
