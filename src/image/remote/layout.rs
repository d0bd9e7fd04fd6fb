//! Images on disk: an OCI image layout directory (`oci-layout`, `index.json`,
//! `blobs/<algorithm>/<hex>`) or an OCI archive (a tar of one, possibly
//! gzip-compressed), as `opm bundle build DIR oci://…` and `file://…` write
//! them, and as `skopeo copy … oci:` / `oci-archive:` do.
//!
//! Local images are as untrusted as registries: every blob is read only
//! through its descriptor (a regular file inside the layout, never a link out
//! of it), its size and digest are checked, manifests and configs are capped
//! as registry ones are, and layers are copied into the image's private
//! temporary directory while they are verified, so that what is unpacked is
//! exactly what was checked. An archive is extracted first, keeping only the
//! layout's own files.

use super::blob::{valid_digest, Digest};
use super::error::{BlobKind, PullErrorKind};
use super::manifest::{
    config_labels, parse_manifest, select_platform, Descriptor, Manifest, MAX_CONFIG_SIZE,
    MAX_MANIFEST_SIZE,
};
use super::MAX_LAYERS_SIZE;
use crate::encoding::json::go_quote;
use crate::image::{PullOptions, PulledImage};
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// The annotation of an `index.json` entry that names its tag.
const REF_NAME: &str = "org.opencontainers.image.ref.name";

/// Entries an OCI archive may hold (its files and directories).
const MAX_ARCHIVE_ENTRIES: u64 = 100_000;

/// Reads the image tagged `tag` (or the only image) of the layout `dir`.
pub(crate) fn read_layout(
    dir: &Path,
    tag: Option<&str>,
    typed: &str,
    options: &PullOptions,
) -> Result<PulledImage, PullErrorKind> {
    let local = |message: String| PullErrorKind::Local {
        path: dir.to_path_buf(),
        message,
    };
    match std::fs::metadata(dir) {
        Err(e) => return Err(local(crate::fsutil::io_message(&e))),
        Ok(meta) if !meta.is_dir() => return Err(local("not a directory".to_string())),
        Ok(_) => {}
    }
    if !dir.join("oci-layout").is_file() {
        return Err(local(
            "not an OCI image layout (it has no oci-layout file)".to_string(),
        ));
    }
    let index = read_small(dir, Path::new("index.json"), MAX_MANIFEST_SIZE)?;
    let entries = match parse_manifest_lenient(&index, "index.json")? {
        Manifest::Index(index) => index.manifests,
        Manifest::Image(_) => {
            return Err(local(
                "index.json is an image manifest, not an image index".to_string(),
            ))
        }
    };
    let raw_index: serde_json::Value = serde_json::from_slice(&index).unwrap_or_default();
    let names: Vec<Option<String>> = (0..entries.len())
        .map(|i| {
            raw_index["manifests"][i]["annotations"][REF_NAME]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    let tags: Vec<String> = names.iter().flatten().cloned().collect();
    let chosen = match tag {
        Some(tag) => names
            .iter()
            .position(|name| name.as_deref() == Some(tag))
            .ok_or_else(|| {
                local(format!(
                    "no image tagged {} in the layout (it has {})",
                    go_quote(tag),
                    listing(&tags)
                ))
            })?,
        None if entries.len() == 1 => 0,
        None if entries.is_empty() => return Err(local("the layout holds no image".to_string())),
        None => {
            return Err(local(format!(
                "the layout holds {} images: name one as oci://{}:TAG (it has {})",
                entries.len(),
                dir.display(),
                listing(&tags)
            )))
        }
    };
    let platform =
        match &options.platform {
            Some(text) => Some(super::Platform::parse(text).ok_or_else(|| {
                PullErrorKind::InvalidPlatform {
                    platform: text.clone(),
                }
            })?),
            None => None,
        };
    let top = &entries[chosen];
    let (manifest, platform) = match read_manifest(dir, top)? {
        Manifest::Image(manifest) => (manifest, None),
        Manifest::Index(index) => {
            let (entry, platform) = select_platform(&index.manifests, platform.as_ref())?;
            match read_manifest(dir, entry)? {
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
    if config.size > MAX_CONFIG_SIZE {
        return Err(PullErrorKind::TooLarge {
            what: format!("config {}", go_quote(&config.digest)),
            limit: MAX_CONFIG_SIZE,
        });
    }
    let mut config_bytes = Vec::new();
    copy_blob(dir, BlobKind::Config, config, &mut config_bytes)?;
    let labels = config_labels(&config_bytes, &config.digest)?;
    manifest.check_layers_size()?;
    let temp = crate::image::temp_dir().map_err(|source| PullErrorKind::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    let mut layers = Vec::with_capacity(manifest.layers.len());
    for (index, descriptor) in manifest.layers.iter().enumerate() {
        let path = temp.path().join(format!("layer-{index}"));
        let mut file = std::fs::File::create(&path).map_err(|source| PullErrorKind::Io {
            path: path.clone(),
            source,
        })?;
        copy_blob(dir, BlobKind::Layer, descriptor, &mut file)?;
        layers.push(descriptor.layer(path));
    }
    Ok(PulledImage {
        reference: typed.to_string(),
        manifest_digest: top.digest.clone(),
        labels,
        config: config_bytes,
        platform,
        layers,
        dir: temp,
    })
}

/// Extracts the OCI archive `path` (tar, or gzip-compressed tar) into a
/// private temporary directory and reads its image there.
pub(crate) fn read_archive(
    path: &Path,
    typed: &str,
    options: &PullOptions,
) -> Result<PulledImage, PullErrorKind> {
    let local = |message: String| PullErrorKind::Local {
        path: path.to_path_buf(),
        message,
    };
    let file = match std::fs::metadata(path) {
        Err(e) => return Err(local(crate::fsutil::io_message(&e))),
        Ok(meta) if !meta.is_file() => return Err(local("not a regular file".to_string())),
        Ok(_) => std::fs::File::open(path).map_err(|e| local(crate::fsutil::io_message(&e)))?,
    };
    let mut reader = std::io::BufReader::new(file);
    let gzip = {
        use std::io::BufRead as _;
        let head = reader
            .fill_buf()
            .map_err(|e| local(crate::fsutil::io_message(&e)))?;
        head.starts_with(&[0x1f, 0x8b])
    };
    let stream: Box<dyn std::io::Read> = if gzip {
        Box::new(flate2::read::MultiGzDecoder::new(reader))
    } else {
        Box::new(reader)
    };
    let extracted = crate::image::temp_dir().map_err(|source| PullErrorKind::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    extract_layout(stream, extracted.path()).map_err(|e| local(e.to_string()))?;
    read_layout(extracted.path(), None, typed, options).map_err(|error| match error {
        // The temporary directory means nothing to the user: name the archive.
        PullErrorKind::Local { message, .. } => local(message),
        other => other,
    })
}

/// What is wrong with an archive of an OCI layout.
#[derive(Debug, thiserror::Error)]
enum ArchiveError {
    #[error("not a tar archive: {0}")]
    NotTar(std::io::Error),
    #[error("corrupt tar archive: {0}")]
    Corrupt(std::io::Error),
    #[error("the archive has more than {MAX_ARCHIVE_ENTRIES} entries")]
    TooManyEntries,
    #[error("{} is not a regular file in the archive", go_quote(.0))]
    NotAFile(String),
    /// The layout files together exceed this many bytes.
    #[error("the archive's layout files exceed the limit of {0} bytes")]
    TooLarge(u64),
    #[error("write {}: {error}", .path.display())]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{} appears twice in the archive", go_quote(.0))]
    Twice(String),
    #[error("corrupt tar archive: {} is cut short", go_quote(.0))]
    CutShort(String),
}

/// Writes the layout files of a tar stream into `dest`: `oci-layout`,
/// `index.json` and `blobs/<algorithm>/<hex>` as regular files, their
/// directories, nothing else (other entries are skipped), within the size
/// and entry caps.
fn extract_layout(stream: Box<dyn std::io::Read>, dest: &Path) -> Result<(), ArchiveError> {
    let mut archive = tar::Archive::new(stream);
    let limit = MAX_LAYERS_SIZE + 2 * MAX_MANIFEST_SIZE + MAX_CONFIG_SIZE;
    let mut total = 0u64;
    let mut count = 0u64;
    let entries = archive.entries().map_err(ArchiveError::NotTar)?;
    for entry in entries {
        let mut entry = entry.map_err(ArchiveError::Corrupt)?;
        count += 1;
        if count > MAX_ARCHIVE_ENTRIES {
            return Err(ArchiveError::TooManyEntries);
        }
        let name = entry
            .path()
            .map_err(ArchiveError::Corrupt)?
            .to_string_lossy()
            .into_owned();
        let Some(relative) = layout_member(&name) else {
            continue;
        };
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            continue;
        }
        if !kind.is_file() {
            return Err(ArchiveError::NotAFile(name));
        }
        let size = entry.size();
        total = total.saturating_add(size);
        if total > limit {
            return Err(ArchiveError::TooLarge(limit));
        }
        let target = dest.join(&relative);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|error| ArchiveError::Write {
                path: parent.to_path_buf(),
                error,
            })?;
        }
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
            .map_err(|error| match error.kind() {
                std::io::ErrorKind::AlreadyExists => ArchiveError::Twice(name.clone()),
                _ => ArchiveError::Write {
                    path: target.clone(),
                    error,
                },
            })?;
        let copied =
            std::io::copy(&mut (&mut entry).take(size), &mut out).map_err(ArchiveError::Corrupt)?;
        if copied != size {
            return Err(ArchiveError::CutShort(name));
        }
    }
    Ok(())
}

/// The layout path an archive member stands for: `oci-layout`, `index.json`
/// or `blobs/<algorithm>/<hex>` (after `./` and empty components), or
/// `None` for anything else (which is skipped, never written).
fn layout_member(name: &str) -> Option<PathBuf> {
    let parts: Vec<&str> = name
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    let simple = |part: &str| {
        !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    match parts.as_slice() {
        ["oci-layout"] | ["index.json"] => Some(PathBuf::from(parts[0])),
        ["blobs", algorithm, hex] if simple(algorithm) && simple(hex) => {
            Some(PathBuf::from("blobs").join(algorithm).join(hex))
        }
        _ => None,
    }
}

/// `a, b` or `no tags`.
fn listing(tags: &[String]) -> String {
    if tags.is_empty() {
        "no tags".to_string()
    } else {
        tags.iter()
            .map(|t| go_quote(t))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `index.json` may leave out its media type and schema version.
fn parse_manifest_lenient(body: &[u8], name: &str) -> Result<Manifest, PullErrorKind> {
    let mut value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| PullErrorKind::InvalidContent {
            blob: BlobKind::Manifest,
            name: name.to_string(),
            message: e.to_string(),
        })?;
    if let Some(object) = value.as_object_mut() {
        object
            .entry("schemaVersion")
            .or_insert(serde_json::Value::from(2));
        if !object.contains_key("mediaType") && !object.contains_key("manifests") {
            object.insert(
                "manifests".to_string(),
                serde_json::Value::Array(Vec::new()),
            );
        }
    }
    let body = serde_json::to_vec(&value).unwrap_or_default();
    parse_manifest(&body, name)
}

/// Reads and parses the manifest or index a descriptor names.
fn read_manifest(dir: &Path, descriptor: &Descriptor) -> Result<Manifest, PullErrorKind> {
    if descriptor.size > MAX_MANIFEST_SIZE {
        return Err(PullErrorKind::TooLarge {
            what: format!("manifest {}", go_quote(&descriptor.digest)),
            limit: MAX_MANIFEST_SIZE,
        });
    }
    let mut body = Vec::new();
    copy_blob(dir, BlobKind::Manifest, descriptor, &mut body)?;
    parse_manifest(&body, &descriptor.digest)
}

/// A small file of the layout (index.json), capped at `limit`.
fn read_small(dir: &Path, relative: &Path, limit: u64) -> Result<Vec<u8>, PullErrorKind> {
    let path = dir.join(relative);
    let local = |message: String| PullErrorKind::Local {
        path: dir.to_path_buf(),
        message,
    };
    crate::fsutil::check_input(&path, dir).map_err(|e| {
        local(format!(
            "{}: {}",
            relative.display(),
            e.io_message().map_or_else(|| e.reason(), str::to_string)
        ))
    })?;
    let file = std::fs::File::open(&path).map_err(|e| {
        local(format!(
            "{}: {}",
            relative.display(),
            crate::fsutil::io_message(&e)
        ))
    })?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| {
        local(format!(
            "{}: {}",
            relative.display(),
            crate::fsutil::io_message(&e)
        ))
    })?;
    if bytes.len() as u64 > limit {
        return Err(PullErrorKind::TooLarge {
            what: relative.display().to_string(),
            limit,
        });
    }
    Ok(bytes)
}

/// Copies the blob a descriptor names into `out`, checking that it is a
/// regular file of the layout with exactly the descriptor's size and digest.
fn copy_blob(
    dir: &Path,
    blob: BlobKind,
    descriptor: &Descriptor,
    out: &mut dyn std::io::Write,
) -> Result<(), PullErrorKind> {
    let digest: Digest = valid_digest(blob, &descriptor.digest)?;
    let (algorithm, hex) = descriptor
        .digest
        .split_once(':')
        .unwrap_or(("sha256", descriptor.digest.as_str()));
    let relative = Path::new("blobs").join(algorithm).join(hex);
    let path = dir.join(&relative);
    let missing = || PullErrorKind::NotFound {
        what: format!("{blob} {}", go_quote(&descriptor.digest)),
        repository: dir.display().to_string(),
    };
    match crate::fsutil::check_input(&path, dir) {
        Ok(_) => {}
        Err(e) if e.io_message().is_some() && !path.exists() => return Err(missing()),
        Err(e) => {
            return Err(PullErrorKind::Local {
                path: dir.to_path_buf(),
                message: format!(
                    "{}: {}",
                    relative.display(),
                    e.io_message().map_or_else(|| e.reason(), str::to_string)
                ),
            })
        }
    }
    let mut file = std::fs::File::open(&path).map_err(|_| missing())?;
    let (actual, size) = digest
        .hash_copy(&mut file, out, descriptor.size)
        .map_err(|source| PullErrorKind::Io {
            path: path.clone(),
            source,
        })?;
    if size != descriptor.size {
        return Err(PullErrorKind::SizeMismatch {
            blob,
            digest: descriptor.digest.clone(),
            expected: descriptor.size,
            actual: size,
        });
    }
    if actual != descriptor.digest {
        return Err(PullErrorKind::DigestMismatch {
            blob,
            digest: descriptor.digest.clone(),
            actual,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_layout_members_are_extracted() {
        assert_eq!(
            layout_member("./index.json"),
            Some(PathBuf::from("index.json"))
        );
        assert_eq!(
            layout_member("oci-layout"),
            Some(PathBuf::from("oci-layout"))
        );
        assert_eq!(
            layout_member("blobs/sha256/abc"),
            Some(PathBuf::from("blobs/sha256/abc"))
        );
        for other in [
            "../index.json",
            "blobs/sha256/../../x",
            "blobs/sha256/a/b",
            "etc/passwd",
            "/blobs/sha256/..",
            "blobs/..",
        ] {
            assert_eq!(layout_member(other), None, "{other}");
        }
    }
}
