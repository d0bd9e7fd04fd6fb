//! Uploads for `bundle build` to `image://`: a blob the registry lacks goes
//! up in one piece (`POST` an upload session, `PUT` the bytes with their
//! digest), then the manifest is `PUT` under its tag or digest. The same
//! deadlines, retries and messages as pulls apply; the `Authorization`
//! header only ever goes to the registry's own host.

use super::error::{BlobKind, PullErrorKind};
use super::transport::Call;
use super::{Session, Subject};
use crate::encoding::json::go_quote;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE, LOCATION};
use reqwest::Method;
use std::path::Path;

/// What a blob upload sends.
#[derive(Debug, Clone, Copy)]
pub enum Upload<'a> {
    Bytes(&'a [u8]),
    /// A file of `size` bytes, streamed (opened again for every attempt).
    File {
        path: &'a Path,
        size: u64,
    },
}

impl Upload<'_> {
    /// The request body.
    async fn body(&self) -> Result<reqwest::Body, PullErrorKind> {
        match self {
            Upload::Bytes(bytes) => Ok(reqwest::Body::from(bytes.to_vec())),
            Upload::File { path, .. } => tokio::fs::File::open(path)
                .await
                .map(reqwest::Body::from)
                .map_err(|source| PullErrorKind::Io {
                    path: path.to_path_buf(),
                    source,
                }),
        }
    }

    fn len(&self) -> u64 {
        match self {
            Upload::Bytes(bytes) => bytes.len() as u64,
            Upload::File { size, .. } => *size,
        }
    }
}

impl Session {
    /// Uploads the blob (whose digest is `digest`) unless the repository
    /// already has it.
    pub(crate) async fn push_blob(
        &self,
        blob: BlobKind,
        upload: Upload<'_>,
        digest: &str,
    ) -> Result<(), PullErrorKind> {
        let what = format!("upload of {blob} {}", go_quote(digest));
        let call = Call {
            registry: &self.registry,
            what: &what,
        };
        let subject = &Subject::Named(format!("{blob} {}", go_quote(digest)));
        let head = format!("blobs/{digest}");
        let head = &head;
        self.http
            .retrying(|deadline| async move {
                let request = self.repository_request(Method::HEAD, head);
                let response = self.http.send(request, deadline, true, call).await?;
                if response.status().is_success() {
                    return Ok(());
                }
                let request = self.repository_request(Method::POST, "blobs/uploads/");
                let response = self.http.send(request, deadline, true, call).await?;
                if !response.status().is_success() {
                    return Err(self.failure(response, deadline, call, subject).await);
                }
                let location = response
                    .headers()
                    .get(LOCATION)
                    .and_then(|value| value.to_str().ok())
                    .and_then(|value| response.url().join(value).ok())
                    .filter(|url| matches!(url.scheme(), "http" | "https"))
                    .ok_or_else(|| PullErrorKind::Protocol {
                        registry: self.registry.clone(),
                        message: "it started an upload without a valid Location".to_string(),
                    })?;
                let mut url = location;
                url.query_pairs_mut().append_pair("digest", digest);
                let mut request = self
                    .http
                    .request(Method::PUT, url.as_str())
                    .header(CONTENT_TYPE, "application/octet-stream")
                    .header(CONTENT_LENGTH, upload.len())
                    .body(upload.body().await?);
                if self.is_registry_url(&url) {
                    request = self.authorize(request);
                }
                let response = self.http.send(request, deadline, false, call).await?;
                if !response.status().is_success() {
                    return Err(self.failure(response, deadline, call, subject).await);
                }
                Ok(())
            })
            .await
    }

    /// Uploads a manifest under `reference` (a tag or its digest).
    pub(crate) async fn push_manifest(
        &self,
        reference: &str,
        bytes: &[u8],
        media_type: &str,
    ) -> Result<(), PullErrorKind> {
        let name = format!("manifest {}", go_quote(reference));
        let what = format!("upload of {name}");
        let call = Call {
            registry: &self.registry,
            what: &what,
        };
        let subject = &Subject::Named(name);
        let path = format!("manifests/{reference}");
        let path = &path;
        self.http
            .retrying(|deadline| async move {
                let request = self
                    .repository_request(Method::PUT, path)
                    .header(CONTENT_TYPE, media_type)
                    .body(bytes.to_vec());
                let response = self.http.send(request, deadline, false, call).await?;
                if !response.status().is_success() {
                    return Err(self.failure(response, deadline, call, subject).await);
                }
                Ok(())
            })
            .await
    }
}
