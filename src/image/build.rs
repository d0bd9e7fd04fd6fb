//! Placeholder: the daemonless bundle image builder (replaced by the implementation).
//!
//! A bundle image is one layer holding `manifests/`, `metadata/` and
//! `tests/scorecard/` (when present) with fixed timestamps, owners and
//! ordering, and a config whose labels are the bundle's annotations; the same
//! input always gives the same digests.

use super::PullOptions;
use std::collections::BTreeMap;
use std::path::Path;

/// A built image, ready to be written or pushed.
#[derive(Debug, Clone)]
pub struct BuiltImage {
    /// The gzip-compressed layer and its digest (`sha256:…`).
    pub layer: Vec<u8>,
    pub layer_digest: String,
    /// The digest of the uncompressed layer tar.
    pub diff_id: String,
    pub config: Vec<u8>,
    pub config_digest: String,
    pub manifest: Vec<u8>,
    pub manifest_digest: String,
}

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct BuildError {
    pub message: String,
}

/// Builds the image of the bundle directory `dir` with `labels`.
pub fn build_bundle_image(
    dir: &Path,
    labels: &BTreeMap<String, String>,
) -> Result<BuiltImage, BuildError> {
    let _ = (dir, labels);
    Err(BuildError {
        message: "placeholder".into(),
    })
}

/// Writes an OCI image layout directory (which must not exist or be empty), tagged `tag`.
pub fn write_oci_layout(image: &BuiltImage, dir: &Path, tag: &str) -> Result<(), BuildError> {
    let _ = (image, dir, tag);
    Err(BuildError {
        message: "placeholder".into(),
    })
}

/// Writes an OCI image archive (a tar of the layout; gzip-compressed when
/// `gzip`), atomically, never replacing an existing file.
pub fn write_oci_archive(
    image: &BuiltImage,
    path: &Path,
    tag: &str,
    gzip: bool,
) -> Result<(), BuildError> {
    let _ = (image, path, tag, gzip);
    Err(BuildError {
        message: "placeholder".into(),
    })
}

/// Pushes the image to `reference`; returns the manifest digest.
pub fn push(
    image: &BuiltImage,
    reference: &str,
    options: &PullOptions,
) -> Result<String, BuildError> {
    let _ = (image, reference, options);
    Err(BuildError {
        message: "placeholder".into(),
    })
}
