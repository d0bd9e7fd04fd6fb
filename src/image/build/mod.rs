//! Building images without a daemon: layers written as normalised, gzip
//! compressed tar streams into private temporary files ([`layer`]), an
//! optional base image's layers taken as pulled (digests verified), an OCI
//! config and manifest; then written as an OCI image layout directory, as an
//! OCI image archive (a tar of that layout, what `skopeo copy
//! oci-archive:` and `podman load` read; optionally gzip-compressed), or
//! pushed to a registry with the same client, credentials and error messages
//! as pulls. Layers stream from disk everywhere: an image of any size never
//! sits in memory. The same input always gives the same digests (with the
//! same gzip implementation, which is part of this program).
//!
//! A bundle image ([`build_bundle_image`]) is one layer holding
//! `manifests/`, `metadata/` and `tests/scorecard/` (when present) and a
//! config whose labels are the bundle's annotations ([`bundle`]).

pub mod destination;
pub mod layer;
mod tree;

pub use destination::Destination;
pub use tree::{copy_tree, tree_entries};

use super::reference::DEFAULT_TAG;
use super::remote::{self, gave_up, BlobKind, Operation, PullErrorKind, RetryPolicy, Session};
use super::{PullOptions, PulledImage};
use crate::declcfg::load::io_message;
use crate::encoding::json::go_quote;
use crate::fsutil::{self, TempDir, WriteError};
use layer::{Entry, LayerWriter};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
pub const OCI_CONFIG: &str = "application/vnd.oci.image.config.v1+json";
pub const OCI_LAYER: &str = "application/vnd.oci.image.layer.v1.tar";
pub const OCI_LAYER_GZIP: &str = "application/vnd.oci.image.layer.v1.tar+gzip";
pub const OCI_LAYER_ZSTD: &str = "application/vnd.oci.image.layer.v1.tar+zstd";
/// The annotation of an `index.json` entry that names its tag.
pub const REF_NAME_ANNOTATION: &str = "org.opencontainers.image.ref.name";

/// The modification time of the files of layouts and archives (the Unix
/// epoch), so builds do not depend on when files were touched. (Layers get
/// theirs from their builder.)
const FIXED_MTIME: u64 = 0;
const FILE_MODE: u32 = 0o644;
const DIR_MODE: u32 = 0o755;

/// A layer of a built image: a compressed blob on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerBlob {
    pub media_type: String,
    /// `sha256:…` of the blob.
    pub digest: String,
    pub size: u64,
    /// `sha256:…` of the uncompressed tar.
    pub diff_id: String,
    pub path: PathBuf,
}

/// A built image, ready to be written or pushed. Its layer files live in
/// temporary directories it owns.
#[derive(Debug)]
pub struct BuiltImage {
    pub layers: Vec<LayerBlob>,
    pub config: Vec<u8>,
    pub config_digest: String,
    pub manifest: Vec<u8>,
    pub manifest_digest: String,
    _dirs: Vec<TempDir>,
}

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct BuildError {
    pub message: String,
}

impl BuildError {
    pub(crate) fn new(message: impl Into<String>) -> BuildError {
        BuildError {
            message: message.into(),
        }
    }

    pub(crate) fn io(op: &str, path: &Path, error: &std::io::Error) -> BuildError {
        BuildError::new(format!("{op} {}: {}", path.display(), io_message(error)))
    }
}

/// Assembles an image: base layers, new layers, then the config.
#[derive(Debug)]
pub struct ImageBuilder {
    dir: TempDir,
    layers: Vec<LayerBlob>,
    /// Directories holding base layers (a pulled image's).
    owned: Vec<TempDir>,
    mtime: u64,
}

impl ImageBuilder {
    /// Every entry of the layers added gets the modification time `mtime`
    /// (seconds since the epoch).
    pub fn new(mtime: u64) -> Result<ImageBuilder, BuildError> {
        let dir = crate::fsutil::TempDir::new("opm-build-", None)
            .map_err(|e| BuildError::io("create", &std::env::temp_dir(), &e))?;
        Ok(ImageBuilder {
            dir,
            layers: Vec::new(),
            owned: Vec::new(),
            mtime,
        })
    }

    /// Starts from the layers of `base` (pulled and verified), whose config
    /// lists their `diff_ids`. Docker media types become their OCI
    /// equivalents (the same bytes); layers that must not be copied
    /// (foreign, non-distributable) or of unknown types are refused.
    pub fn base(&mut self, base: PulledImage, diff_ids: &[String]) -> Result<(), BuildError> {
        if diff_ids.len() != base.layers.len() {
            return Err(BuildError::new(format!(
                "base image {}: its config lists {} diff_ids for {} layers",
                go_quote(&base.reference),
                diff_ids.len(),
                base.layers.len()
            )));
        }
        for (layer, diff_id) in base.layers.iter().zip(diff_ids) {
            let media_type = match layer.media_type.as_str() {
                "application/vnd.docker.image.rootfs.diff.tar.gzip" | OCI_LAYER_GZIP => {
                    OCI_LAYER_GZIP
                }
                "application/vnd.docker.image.rootfs.diff.tar" | OCI_LAYER => OCI_LAYER,
                OCI_LAYER_ZSTD => OCI_LAYER_ZSTD,
                other => {
                    return Err(BuildError::new(format!(
                    "base image {}: layer {} has media type {}, which a catalog image cannot carry",
                    go_quote(&base.reference),
                    go_quote(&layer.digest),
                    go_quote(other)
                )))
                }
            };
            self.layers.push(LayerBlob {
                media_type: media_type.to_string(),
                digest: layer.digest.clone(),
                size: layer.size,
                diff_id: diff_id.clone(),
                path: layer.path.clone(),
            });
        }
        self.owned.push(base.dir);
        Ok(())
    }

    /// Adds a layer of `entries`, in the order given (parents before their
    /// contents).
    pub fn layer<I>(&mut self, entries: I) -> Result<(), BuildError>
    where
        I: IntoIterator<Item = Result<Entry, BuildError>>,
    {
        let path = self.dir.path().join(format!("layer-{}", self.layers.len()));
        let io = |e: &std::io::Error| BuildError::io("write layer", &path, e);
        let file = std::fs::File::create(&path).map_err(|e| io(&e))?;
        let mut writer = LayerWriter::new(
            std::io::BufWriter::with_capacity(256 << 10, file),
            self.mtime,
        );
        for entry in entries {
            let entry = entry?;
            writer.append(&entry).map_err(|e| {
                BuildError::new(format!(
                    "add {} to the layer: {}",
                    entry.path,
                    io_message(&e)
                ))
            })?;
        }
        let (_, written) = writer.finish().map_err(|e| io(&e))?;
        self.layers.push(LayerBlob {
            media_type: OCI_LAYER_GZIP.to_string(),
            digest: written.digest,
            size: written.size,
            diff_id: written.diff_id,
            path,
        });
        Ok(())
    }

    /// How many layers the image has so far.
    pub fn layer_count(&self) -> usize {
        self.layers.len()
    }

    /// The image with `config` (an image config object; its `rootfs` is
    /// set to the layers').
    pub fn finish(self, mut config: Map<String, Value>) -> Result<BuiltImage, BuildError> {
        let diff_ids: Vec<Value> = self
            .layers
            .iter()
            .map(|layer| Value::String(layer.diff_id.clone()))
            .collect();
        config.insert(
            "rootfs".to_string(),
            json!({"type": "layers", "diff_ids": diff_ids}),
        );
        let config = serde_json::to_vec(&Value::Object(config))
            .map_err(|e| BuildError::new(format!("encode image config: {e}")))?;
        let config_digest = sha256_digest(&config);
        let layers: Vec<Value> = self
            .layers
            .iter()
            .map(|layer| descriptor(&layer.media_type, &layer.digest, layer.size))
            .collect();
        let manifest = serde_json::to_vec(&json!({
            "schemaVersion": 2,
            "mediaType": OCI_MANIFEST,
            "config": descriptor(OCI_CONFIG, &config_digest, config.len() as u64),
            "layers": layers,
        }))
        .map_err(|e| BuildError::new(format!("encode image manifest: {e}")))?;
        let manifest_digest = sha256_digest(&manifest);
        let mut dirs = self.owned;
        dirs.push(self.dir);
        Ok(BuiltImage {
            layers: self.layers,
            config,
            config_digest,
            manifest,
            manifest_digest,
            _dirs: dirs,
        })
    }
}

/// An OCI descriptor: media type, digest and size, in that order.
fn descriptor(media_type: &str, digest: &str, size: u64) -> Value {
    json!({"mediaType": media_type, "digest": digest, "size": size})
}

/// Builds the image of the bundle directory `dir` with `labels`.
pub fn build_bundle_image(
    dir: &Path,
    labels: &BTreeMap<String, String>,
) -> Result<BuiltImage, BuildError> {
    let entries = tree::collect_layer_entries(dir)?;
    let mut builder = ImageBuilder::new(FIXED_MTIME)?;
    builder.layer(entries.into_iter().map(Ok))?;
    let mut container = Map::new();
    if !labels.is_empty() {
        container.insert("Labels".to_string(), json!(labels));
    }
    let mut config = Map::new();
    config.insert("architecture".to_string(), json!("amd64"));
    config.insert("os".to_string(), json!("linux"));
    config.insert("config".to_string(), Value::Object(container));
    builder.finish(config)
}

/// A blob of an image, as written into a layout or an archive.
enum BlobData<'a> {
    Bytes(std::borrow::Cow<'a, [u8]>),
    File(&'a Path),
}

/// Writes an OCI image layout directory (which must not exist or be empty), tagged `tag`.
///
/// The layout is written in full to a temporary directory beside `dir` and
/// renamed into place, so a failure leaves nothing behind. Missing parent
/// directories are created (and removed again on failure).
pub fn write_oci_layout(image: &BuiltImage, dir: &Path, tag: &str) -> Result<(), BuildError> {
    check_tag(tag)?;
    let exists = || {
        BuildError::new(format!(
            "path {}: already exists and is not an empty directory",
            go_quote(&dir.display().to_string())
        ))
    };
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() => {
            let mut listing =
                std::fs::read_dir(dir).map_err(|e| BuildError::io("open", dir, &e))?;
            if listing.next().is_some() {
                return Err(exists());
            }
        }
        Ok(_) => return Err(exists()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(BuildError::io("open", dir, &e)),
    }
    let parent = match dir.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut parents = CreatedDirs::default();
    parents.create_all(parent)?;
    let temp = crate::fsutil::TempDir::new(".opm-layout-", Some(parent))
        .map_err(|e| BuildError::io("write", dir, &e))?;
    let io = |e: std::io::Error| BuildError::io("write", dir, &e);
    for (relative, data) in layout_files(image, tag)? {
        let path = temp.path().join(&relative);
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(io)?;
        }
        match data {
            BlobData::Bytes(bytes) => std::fs::write(&path, &bytes).map_err(io)?,
            BlobData::File(source) => {
                std::fs::copy(source, &path).map_err(io)?;
                let mode = fsutil::new_file_mode(0o666);
                set_mode(&path, mode).map_err(io)?;
            }
        }
    }
    // Temporary directories are private (0700); give the layout the usual
    // 0777 & ~umask.
    set_mode(temp.path(), fsutil::new_file_mode(0o777)).map_err(io)?;
    // rename(2) replaces an empty directory and refuses a non-empty one, so
    // a directory filled meanwhile is never clobbered.
    match std::fs::rename(temp.path(), dir) {
        Ok(()) => {
            let _ = temp.keep();
            parents.keep();
            Ok(())
        }
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::DirectoryNotEmpty
                    | std::io::ErrorKind::AlreadyExists
                    | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Err(exists())
        }
        Err(e) => Err(io(e)),
    }
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> std::io::Result<()> {
    Ok(())
}

/// Writes an OCI image archive (a tar of the layout; gzip-compressed when
/// `gzip`), atomically, never replacing an existing file.
pub fn write_oci_archive(
    image: &BuiltImage,
    path: &Path,
    tag: &str,
    gzip: bool,
) -> Result<(), BuildError> {
    check_tag(tag)?;
    let mut entries: Vec<(String, Option<BlobData<'_>>)> = vec![
        ("blobs/".to_string(), None),
        ("blobs/sha256/".to_string(), None),
    ];
    for (relative, data) in layout_files(image, tag)? {
        entries.push((relative, Some(data)));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let write = |out: &mut dyn std::io::Write| -> std::io::Result<()> {
        if gzip {
            let mut encoder = flate2::GzBuilder::new()
                .mtime(0)
                .operating_system(layer::GZIP_OS_UNKNOWN)
                .write(out, flate2::Compression::new(layer::GZIP_LEVEL));
            archive_tar(&entries, &mut encoder)?;
            encoder.finish()?;
        } else {
            archive_tar(&entries, out)?;
        }
        Ok(())
    };
    fsutil::write_new_file_with(path, write).map_err(|e| match e {
        WriteError::Exists { .. } => BuildError::new(e.to_string()),
        WriteError::Io { path, source } => BuildError::io("write", &path, &source),
    })
}

/// The tar of an archive's entries, with fixed headers.
fn archive_tar(
    entries: &[(String, Option<BlobData<'_>>)],
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut builder = tar::Builder::new(out);
    for (path, data) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_mtime(FIXED_MTIME);
        header.set_uid(0);
        header.set_gid(0);
        match data {
            None => {
                header.set_entry_type(tar::EntryType::Directory);
                header.set_mode(DIR_MODE);
                header.set_size(0);
                builder.append_data(&mut header, path, std::io::empty())?;
            }
            Some(BlobData::Bytes(bytes)) => {
                header.set_entry_type(tar::EntryType::Regular);
                header.set_mode(FILE_MODE);
                header.set_size(bytes.len() as u64);
                builder.append_data(&mut header, path, bytes.as_ref())?;
            }
            Some(BlobData::File(source)) => {
                let file = std::fs::File::open(source)?;
                let size = file.metadata()?.len();
                header.set_entry_type(tar::EntryType::Regular);
                header.set_mode(FILE_MODE);
                header.set_size(size);
                builder.append_data(&mut header, path, file.take(size))?;
            }
        }
    }
    builder.finish()
}

/// Pushes the image to `reference`; returns the manifest digest.
pub fn push(
    image: &BuiltImage,
    reference: &str,
    options: &PullOptions,
) -> Result<String, BuildError> {
    push_with_retry(image, reference, options, &RetryPolicy::default())
}

/// Pushes the image to `reference` (blocking), retrying transient failures
/// as `retry` says; returns the manifest digest.
///
/// The layer and config blobs go first, then the manifest, byte for byte as
/// built (so its digest is the one returned). A reference with a digest must
/// name this image's manifest digest; one without a tag or digest is pushed
/// as `latest`.
pub fn push_with_retry(
    image: &BuiltImage,
    reference: &str,
    options: &PullOptions,
    retry: &RetryPolicy,
) -> Result<String, BuildError> {
    let fail = |kind: PullErrorKind| push_error(reference, &kind);
    let parsed = remote::parse_reference(reference).map_err(fail)?;
    if let Some(digest) = parsed.digest.as_deref() {
        if digest != image.manifest_digest {
            return Err(BuildError::new(format!(
                "failed to push image {}: the reference names digest {}, \
                 but the image's manifest digest is {}",
                go_quote(reference),
                go_quote(digest),
                go_quote(&image.manifest_digest)
            )));
        }
    }
    let credentials = options
        .auth
        .lookup(&parsed.domain, &parsed.path)
        .map_err(|e| fail(PullErrorKind::Credentials(e)))?;
    let runtime = remote::runtime().map_err(fail)?;
    let session = Session::new(&parsed, credentials, options, retry).map_err(fail)?;
    // The manifest goes to the tag, or else to the digest itself.
    let target = parsed
        .tag
        .clone()
        .or_else(|| parsed.digest.clone())
        .unwrap_or_else(|| DEFAULT_TAG.to_string());
    runtime
        .block_on(upload(session, image, &target))
        .map_err(fail)?;
    Ok(image.manifest_digest.clone())
}

/// `failed to push image "<reference>": <why>`, worded for an upload.
fn push_error(reference: &str, kind: &PullErrorKind) -> BuildError {
    let why = match kind {
        PullErrorKind::Interrupted {
            registry,
            message,
            attempts,
        } => format!(
            "upload to registry {} was interrupted: {message}{}",
            go_quote(registry),
            gave_up(*attempts)
        ),
        other => other.to_string(),
    };
    BuildError::new(format!(
        "failed to push image {}: {why}",
        go_quote(reference)
    ))
}

async fn upload(
    mut session: Session,
    image: &BuiltImage,
    target: &str,
) -> Result<(), PullErrorKind> {
    session.authenticate(Operation::Push).await?;
    for layer in &image.layers {
        session
            .push_blob(
                BlobKind::Layer,
                remote::Upload::File {
                    path: &layer.path,
                    size: layer.size,
                },
                &layer.digest,
            )
            .await?;
    }
    session
        .push_blob(
            BlobKind::Config,
            remote::Upload::Bytes(&image.config),
            &image.config_digest,
        )
        .await?;
    session
        .push_manifest(target, &image.manifest, OCI_MANIFEST)
        .await
}

/// Directories created by [`CreatedDirs::create_all`], removed again on drop
/// unless kept.
#[derive(Default)]
struct CreatedDirs(Vec<PathBuf>);

impl CreatedDirs {
    fn create_all(&mut self, dir: &Path) -> Result<(), BuildError> {
        if dir.is_dir() {
            return Ok(());
        }
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            self.create_all(parent)?;
        }
        match std::fs::create_dir(dir) {
            Ok(()) => {
                self.0.push(dir.to_path_buf());
                Ok(())
            }
            Err(_) if dir.is_dir() => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(BuildError::io(
                "mkdir",
                dir,
                &std::io::Error::from(std::io::ErrorKind::NotADirectory),
            )),
            Err(e) => Err(BuildError::io("mkdir", dir, &e)),
        }
    }

    fn keep(&mut self) {
        self.0.clear();
    }
}

impl Drop for CreatedDirs {
    fn drop(&mut self) {
        for dir in self.0.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// The files of an OCI image layout holding `image` tagged `tag`, by
/// relative path, sorted.
fn layout_files<'a>(
    image: &'a BuiltImage,
    tag: &str,
) -> Result<Vec<(String, BlobData<'a>)>, BuildError> {
    let annotations = BTreeMap::from([(REF_NAME_ANNOTATION, tag)]);
    let mut entry = descriptor(
        OCI_MANIFEST,
        &image.manifest_digest,
        image.manifest.len() as u64,
    );
    if let Value::Object(fields) = &mut entry {
        fields.insert("annotations".to_string(), json!(annotations));
    }
    let index = serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": OCI_INDEX,
        "manifests": [entry],
    }))
    .map_err(|e| BuildError::new(format!("encode image index: {e}")))?;
    let blob_path = |digest: &str| {
        digest
            .strip_prefix("sha256:")
            .map(|hex| format!("blobs/sha256/{hex}"))
            .ok_or_else(|| BuildError::new(format!("invalid digest {}", go_quote(digest))))
    };
    let mut files = vec![
        ("index.json".to_string(), BlobData::Bytes(index.into())),
        (
            "oci-layout".to_string(),
            BlobData::Bytes(br#"{"imageLayoutVersion":"1.0.0"}"#.into()),
        ),
    ];
    for layer in &image.layers {
        files.push((blob_path(&layer.digest)?, BlobData::File(&layer.path)));
    }
    files.push((
        blob_path(&image.config_digest)?,
        BlobData::Bytes(image.config.as_slice().into()),
    ));
    files.push((
        blob_path(&image.manifest_digest)?,
        BlobData::Bytes(image.manifest.as_slice().into()),
    ));
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files.dedup_by(|a, b| a.0 == b.0);
    Ok(files)
}

/// Accepts a tag as the OCI image layout's `ref.name` grammar does:
/// components of letters and digits joined by `-._:@+` (or `--`), separated
/// by `/` (so `v1` and `quay.io/org/bundle:v1` are both fine).
fn check_tag(tag: &str) -> Result<(), BuildError> {
    let component_ok = |component: &str| {
        let bytes = component.as_bytes();
        let separator = |b: u8| matches!(b, b'-' | b'.' | b'_' | b':' | b'@' | b'+');
        let mut i = 0;
        let mut after_separator = true;
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii_alphanumeric() {
                after_separator = false;
                i += 1;
            } else if separator(b) && !after_separator {
                after_separator = true;
                // `--` is one separator.
                i += if b == b'-' && bytes.get(i + 1) == Some(&b'-') {
                    2
                } else {
                    1
                };
            } else {
                return false;
            }
        }
        !bytes.is_empty() && !after_separator
    };
    if tag.split('/').all(component_ok) {
        Ok(())
    } else {
        Err(BuildError::new(format!(
            "invalid image tag {}: expected letters and digits, \
             joined by any of -._:@+ and separated by /",
            go_quote(tag)
        )))
    }
}

fn sha256_digest(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    format!("sha256:{}", sha256_hex(&sha2::Sha256::digest(bytes)))
}

/// Lower-case hex of a hash.
fn sha256_hex(hash: &[u8]) -> String {
    let mut out = String::with_capacity(hash.len() * 2);
    for byte in hash {
        out.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        out.push(char::from(b"0123456789abcdef"[usize::from(byte & 15)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_follow_the_ref_name_grammar() {
        for good in ["v1", "latest", "quay.io/org/bundle:v1.2.3", "a--b", "x@y+z"] {
            assert!(check_tag(good).is_ok(), "{good}");
        }
        for bad in ["", "-v1", "v1-", "a//b", "a---b", "a b", "/v1", "v1/"] {
            assert!(check_tag(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn config_and_manifest_have_a_fixed_shape() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("manifests")).unwrap();
        std::fs::create_dir_all(dir.path().join("metadata")).unwrap();
        std::fs::write(dir.path().join("manifests/a.yaml"), "a: 1\n").unwrap();
        let labels = BTreeMap::from([("b".to_string(), "2".to_string())]);
        let image = build_bundle_image(dir.path(), &labels).unwrap();
        let config = String::from_utf8(image.config.clone()).unwrap();
        assert_eq!(
            config,
            format!(
                r#"{{"architecture":"amd64","os":"linux","config":{{"Labels":{{"b":"2"}}}},"rootfs":{{"type":"layers","diff_ids":["{}"]}}}}"#,
                image.layers[0].diff_id
            )
        );
        let manifest = String::from_utf8(image.manifest.clone()).unwrap();
        assert!(manifest.starts_with(r#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"#), "{manifest}");
        assert_eq!(image.manifest_digest, sha256_digest(&image.manifest));
        let empty = build_bundle_image(dir.path(), &BTreeMap::new()).unwrap();
        assert!(String::from_utf8(empty.config)
            .unwrap()
            .contains(r#""config":{},"#));
    }

    #[test]
    fn push_errors_speak_of_uploads() {
        let error = push_error(
            "r.io/a:b",
            &PullErrorKind::Interrupted {
                registry: "r.io".into(),
                message: "connection reset by peer".into(),
                attempts: 4,
            },
        );
        assert_eq!(
            error.to_string(),
            "failed to push image \"r.io/a:b\": upload to registry \"r.io\" was \
             interrupted: connection reset by peer (gave up after 4 attempts)"
        );
    }
}
