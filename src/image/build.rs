//! The daemonless bundle image builder.
//!
//! A bundle image is one layer holding `manifests/`, `metadata/` and
//! `tests/scorecard/` (when present) with fixed timestamps, owners, modes and
//! ordering, and a config whose labels are the bundle's annotations; the same
//! input always gives the same digests (with the same gzip implementation,
//! which is part of this program).
//!
//! The image can be written as an OCI image layout directory, as an OCI image
//! archive (a tar of that layout, what `skopeo copy oci-archive:` and
//! `podman load` read; optionally gzip-compressed), or pushed to a registry
//! with the same client, credentials and error messages as pulls.
//!
//! Symbolic links inside the bundle are followed and stored as the file or
//! directory they point to, as long as the target lies inside the bundle
//! directory; a link that leads outside it (or nowhere) is refused, so a build
//! never packs files the bundle does not own. Anything that is not a regular
//! file or a directory (a socket, a device, a FIFO) is refused too.

use super::reference::DEFAULT_TAG;
use super::remote::{self, gave_up, BlobKind, Operation, PullErrorKind, RetryPolicy, Session};
use super::PullOptions;
use crate::declcfg::load::io_message;
use crate::encoding::json::go_quote;
use crate::fsutil::{self, WriteError};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
pub const OCI_CONFIG: &str = "application/vnd.oci.image.config.v1+json";
pub const OCI_LAYER_GZIP: &str = "application/vnd.oci.image.layer.v1.tar+gzip";
/// The annotation of an `index.json` entry that names its tag.
pub const REF_NAME_ANNOTATION: &str = "org.opencontainers.image.ref.name";

/// The modification time of every entry of the layer and of the archive
/// (the Unix epoch), so builds do not depend on when files were touched.
const FIXED_MTIME: u64 = 0;
const FILE_MODE: u32 = 0o644;
const DIR_MODE: u32 = 0o755;
/// The gzip level (flate2's default, spelled out so it never drifts).
const GZIP_LEVEL: u32 = 6;
/// The gzip header's operating system field: "unknown", on every host.
const GZIP_OS_UNKNOWN: u8 = 255;

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

impl BuildError {
    fn new(message: impl Into<String>) -> BuildError {
        BuildError {
            message: message.into(),
        }
    }

    fn io(op: &str, path: &Path, error: &std::io::Error) -> BuildError {
        BuildError::new(format!("{op} {}: {}", path.display(), io_message(error)))
    }
}

/// One entry of the layer: a directory (no contents) or a regular file.
#[derive(Debug)]
struct LayerEntry {
    /// Relative, `/`-separated; directories end with `/`.
    path: String,
    contents: Option<Vec<u8>>,
}

/// Builds the image of the bundle directory `dir` with `labels`.
pub fn build_bundle_image(
    dir: &Path,
    labels: &BTreeMap<String, String>,
) -> Result<BuiltImage, BuildError> {
    let entries = collect_layer_entries(dir)?;
    let tar = tar_of(&entries).map_err(|e| BuildError::io("build layer of", dir, &e))?;
    let diff_id = sha256_digest(&tar);
    let layer = gzip(&tar).map_err(|e| BuildError::io("compress layer of", dir, &e))?;
    let layer_digest = sha256_digest(&layer);

    let config = serde_json::to_vec(&ImageConfig {
        architecture: "amd64",
        os: "linux",
        config: ContainerConfig { labels },
        rootfs: RootFs {
            kind: "layers",
            diff_ids: [&diff_id],
        },
    })
    .map_err(|e| BuildError::new(format!("encode image config: {e}")))?;
    let config_digest = sha256_digest(&config);

    let manifest = serde_json::to_vec(&ImageManifest {
        schema_version: 2,
        media_type: OCI_MANIFEST,
        config: Descriptor::new(OCI_CONFIG, &config_digest, config.len()),
        layers: vec![Descriptor::new(OCI_LAYER_GZIP, &layer_digest, layer.len())],
    })
    .map_err(|e| BuildError::new(format!("encode image manifest: {e}")))?;
    let manifest_digest = sha256_digest(&manifest);

    Ok(BuiltImage {
        layer,
        layer_digest,
        diff_id,
        config,
        config_digest,
        manifest,
        manifest_digest,
    })
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
    for (relative, contents) in layout_files(image, tag)? {
        let path = temp.path().join(&relative);
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(io)?;
        }
        std::fs::write(&path, contents).map_err(io)?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        // Temporary directories are private (0700); give the layout the
        // usual 0777 & ~umask.
        let mode = fsutil::new_file_mode(0o777);
        std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(mode)).map_err(io)?;
    }
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

/// Writes an OCI image archive (a tar of the layout; gzip-compressed when
/// `gzip`), atomically, never replacing an existing file.
pub fn write_oci_archive(
    image: &BuiltImage,
    path: &Path,
    tag: &str,
    gzip: bool,
) -> Result<(), BuildError> {
    check_tag(tag)?;
    let mut entries = vec![
        LayerEntry {
            path: "blobs/".to_string(),
            contents: None,
        },
        LayerEntry {
            path: "blobs/sha256/".to_string(),
            contents: None,
        },
    ];
    for (relative, contents) in layout_files(image, tag)? {
        entries.push(LayerEntry {
            path: relative,
            contents: Some(contents),
        });
    }
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    let io = |e: std::io::Error| BuildError::io("write", path, &e);
    let mut bytes = tar_of(&entries).map_err(io)?;
    if gzip {
        bytes = self::gzip(&bytes).map_err(io)?;
    }
    fsutil::write_new_file(path, &bytes).map_err(|e| match e {
        WriteError::Exists { .. } => BuildError::new(e.to_string()),
        WriteError::Io { path, source } => BuildError::io("write", &path, &source),
    })
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
    for (kind, bytes, digest) in [
        (BlobKind::Layer, &image.layer, &image.layer_digest),
        (BlobKind::Config, &image.config, &image.config_digest),
    ] {
        session.push_blob(kind, bytes, digest).await?;
    }
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
fn layout_files(image: &BuiltImage, tag: &str) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
    let annotations = BTreeMap::from([(REF_NAME_ANNOTATION, tag)]);
    let index = serde_json::to_vec(&ImageIndex {
        schema_version: 2,
        media_type: OCI_INDEX,
        manifests: [TaggedDescriptor {
            descriptor: Descriptor::new(OCI_MANIFEST, &image.manifest_digest, image.manifest.len()),
            annotations,
        }],
    })
    .map_err(|e| BuildError::new(format!("encode image index: {e}")))?;
    let mut files = vec![
        ("index.json".to_string(), index),
        (
            "oci-layout".to_string(),
            br#"{"imageLayoutVersion":"1.0.0"}"#.to_vec(),
        ),
    ];
    for (digest, bytes) in [
        (&image.layer_digest, &image.layer),
        (&image.config_digest, &image.config),
        (&image.manifest_digest, &image.manifest),
    ] {
        let hex = digest
            .strip_prefix("sha256:")
            .ok_or_else(|| BuildError::new(format!("invalid digest {}", go_quote(digest))))?;
        files.push((format!("blobs/sha256/{hex}"), bytes.clone()));
    }
    files.sort();
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

/// The entries of the layer: `manifests/`, `metadata/` and, when present,
/// `tests/` with `tests/scorecard/`, each directory before its contents and
/// siblings in byte order of their names.
fn collect_layer_entries(dir: &Path) -> Result<Vec<LayerEntry>, BuildError> {
    let root = dir
        .canonicalize()
        .map_err(|e| BuildError::io("open", dir, &e))?;
    if !root.is_dir() {
        return Err(BuildError::new(format!(
            "bundle directory {} is not a directory",
            dir.display()
        )));
    }
    let mut entries = Vec::new();
    for required in ["manifests", "metadata"] {
        let path = dir.join(required);
        if !path.is_dir() {
            return Err(BuildError::new(format!(
                "bundle directory {} has no {required}/ directory",
                dir.display()
            )));
        }
        walk(dir, &root, required, &mut entries)?;
    }
    let scorecard = dir.join("tests/scorecard");
    if scorecard.symlink_metadata().is_ok() {
        if !scorecard.is_dir() {
            return Err(BuildError::new(format!(
                "{} is not a directory",
                scorecard.display()
            )));
        }
        entries.push(LayerEntry {
            path: "tests/".to_string(),
            contents: None,
        });
        walk(dir, &root, "tests/scorecard", &mut entries)?;
    }
    Ok(entries)
}

/// Adds the tree at `dir/top` (following links that stay inside `root`).
fn walk(
    dir: &Path,
    root: &Path,
    top: &str,
    entries: &mut Vec<LayerEntry>,
) -> Result<(), BuildError> {
    for entry in walkdir::WalkDir::new(root.join(top))
        .follow_links(true)
        .sort_by_file_name()
    {
        let entry = entry.map_err(|e| {
            let at = e
                .path()
                .map(|p| shown(dir, root, p))
                .unwrap_or_else(|| dir.join(top));
            let dangling = e.path().is_some_and(|p| {
                p.symlink_metadata()
                    .is_ok_and(|m| m.file_type().is_symlink())
                    && !p.exists()
            });
            if dangling {
                BuildError::new(format!("symbolic link {} points to nothing", at.display()))
            } else if e.loop_ancestor().is_some() {
                BuildError::new(format!(
                    "symbolic link {} loops back to a directory that contains it",
                    at.display()
                ))
            } else if let Some(io) = e.io_error() {
                BuildError::io("read", &at, io)
            } else {
                BuildError::new(format!("read {}: {e}", at.display()))
            }
        })?;
        let path = entry.path();
        let display = shown(dir, root, path);
        if entry.path_is_symlink() {
            let target = path.canonicalize().map_err(|_| {
                BuildError::new(format!(
                    "symbolic link {} points to nothing",
                    display.display()
                ))
            })?;
            if !target.starts_with(root) {
                return Err(BuildError::new(format!(
                    "symbolic link {} points outside the bundle directory",
                    display.display()
                )));
            }
        }
        let relative = path
            .strip_prefix(root)
            .ok()
            .and_then(|p| p.to_str())
            .ok_or_else(|| {
                BuildError::new(format!(
                    "file name {} is not valid UTF-8",
                    display.display()
                ))
            })?
            .replace(std::path::MAIN_SEPARATOR, "/");
        let file_type = entry.file_type();
        if file_type.is_dir() {
            entries.push(LayerEntry {
                path: format!("{relative}/"),
                contents: None,
            });
        } else if file_type.is_file() {
            let contents = crate::fsutil::read_input(path, root, crate::fsutil::Limit::Manifest)
                .map_err(|e| match e {
                    crate::fsutil::InputError::Io { kind, message, .. } => {
                        BuildError::io("read", &display, &std::io::Error::new(kind, message))
                    }
                    refused => BuildError::new(refused.to_string()),
                })?;
            entries.push(LayerEntry {
                path: relative,
                contents: Some(contents),
            });
        } else {
            return Err(BuildError::new(format!(
                "{} is not a regular file or directory",
                display.display()
            )));
        }
    }
    Ok(())
}

/// `path` (under the canonical `root`) as the user named it, under `dir`.
fn shown(dir: &Path, root: &Path, path: &Path) -> PathBuf {
    match path.strip_prefix(root) {
        Ok(relative) => dir.join(relative),
        Err(_) => path.to_path_buf(),
    }
}

/// A tar of `entries` with normalised headers: fixed mtime, owner 0:0 and no
/// owner names, modes 0644/0755.
fn tar_of(entries: &[LayerEntry]) -> std::io::Result<Vec<u8>> {
    let mut builder = tar::Builder::new(Vec::new());
    for entry in entries {
        let mut header = tar::Header::new_gnu();
        header.set_mtime(FIXED_MTIME);
        header.set_uid(0);
        header.set_gid(0);
        match &entry.contents {
            None => {
                header.set_entry_type(tar::EntryType::Directory);
                header.set_mode(DIR_MODE);
                header.set_size(0);
                builder.append_data(&mut header, &entry.path, std::io::empty())?;
            }
            Some(contents) => {
                header.set_entry_type(tar::EntryType::Regular);
                header.set_mode(FILE_MODE);
                header.set_size(contents.len() as u64);
                builder.append_data(&mut header, &entry.path, contents.as_slice())?;
            }
        }
    }
    builder.into_inner()
}

/// Gzip with a fixed header (no name, mtime 0, unknown OS) and level.
fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut encoder = flate2::GzBuilder::new()
        .mtime(0)
        .operating_system(GZIP_OS_UNKNOWN)
        .write(Vec::new(), flate2::Compression::new(GZIP_LEVEL));
    encoder.write_all(bytes)?;
    encoder.finish()
}

fn sha256_digest(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    let hash = sha2::Sha256::digest(bytes);
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for byte in hash.iter() {
        out.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        out.push(char::from(b"0123456789abcdef"[usize::from(byte & 15)]));
    }
    out
}

#[derive(Serialize)]
struct ImageConfig<'a> {
    architecture: &'static str,
    os: &'static str,
    config: ContainerConfig<'a>,
    rootfs: RootFs<'a>,
}

#[derive(Serialize)]
struct ContainerConfig<'a> {
    #[serde(rename = "Labels", skip_serializing_if = "BTreeMap::is_empty")]
    labels: &'a BTreeMap<String, String>,
}

#[derive(Serialize)]
struct RootFs<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    diff_ids: [&'a str; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Descriptor<'a> {
    media_type: &'static str,
    digest: &'a str,
    size: usize,
}

impl<'a> Descriptor<'a> {
    fn new(media_type: &'static str, digest: &'a str, size: usize) -> Descriptor<'a> {
        Descriptor {
            media_type,
            digest,
            size,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ImageManifest<'a> {
    schema_version: u32,
    media_type: &'static str,
    config: Descriptor<'a>,
    layers: Vec<Descriptor<'a>>,
}

#[derive(Serialize)]
struct TaggedDescriptor<'a> {
    #[serde(flatten)]
    descriptor: Descriptor<'a>,
    annotations: BTreeMap<&'static str, &'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ImageIndex<'a> {
    schema_version: u32,
    media_type: &'static str,
    manifests: [TaggedDescriptor<'a>; 1],
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
    fn gzip_is_deterministic_and_headerless() {
        let one = gzip(b"hello").unwrap();
        assert_eq!(one, gzip(b"hello").unwrap());
        // Magic, deflate, no flags, mtime 0, then XFL and OS 255.
        assert_eq!(&one[..8], &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0]);
        assert_eq!(one[9], GZIP_OS_UNKNOWN);
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
                image.diff_id
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
