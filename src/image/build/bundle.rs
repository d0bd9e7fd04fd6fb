//! The layer of a bundle image: `manifests/`, `metadata/` and
//! `tests/scorecard/` (when present) with fixed modes, owners and ordering.
//!
//! Symbolic links inside the bundle are followed and stored as the file or
//! directory they point to, as long as the target lies inside the bundle
//! directory; a link that leads outside it (or nowhere) is refused, so a build
//! never packs files the bundle does not own. Anything that is not a regular
//! file or a directory (a socket, a device, a FIFO) is refused too. Files are
//! read through the safe reader, with its size cap.

use super::layer::{Entry, Source};
use super::BuildError;
use std::path::{Path, PathBuf};

const FILE_MODE: u32 = 0o644;
const DIR_MODE: u32 = 0o755;

/// The entries of the layer: `manifests/`, `metadata/` and, when present,
/// `tests/` with `tests/scorecard/`, each directory before its contents and
/// siblings in byte order of their names.
pub(super) fn collect_layer_entries(dir: &Path) -> Result<Vec<Entry>, BuildError> {
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
        entries.push(Entry::dir("tests/", DIR_MODE));
        walk(dir, &root, "tests/scorecard", &mut entries)?;
    }
    Ok(entries)
}

/// Adds the tree at `dir/top` (following links that stay inside `root`).
fn walk(dir: &Path, root: &Path, top: &str, entries: &mut Vec<Entry>) -> Result<(), BuildError> {
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
            entries.push(Entry::dir(format!("{relative}/"), DIR_MODE));
        } else if file_type.is_file() {
            let contents = crate::fsutil::read_input(path, root, crate::fsutil::Limit::Manifest)
                .map_err(|e| match e {
                    crate::fsutil::InputError::Io { kind, message, .. } => {
                        BuildError::io("read", &display, &std::io::Error::new(kind, message))
                    }
                    refused => BuildError::new(refused.to_string()),
                })?;
            entries.push(Entry::file(relative, FILE_MODE, Source::Bytes(contents)));
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
