//! Directory trees for layers: a safe walk ([`walk`]), and the layer of a
//! bundle image: `manifests/`, `metadata/` and
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
        walk(dir, &root, required, &mut |found| {
            read_entry(found, &root, &mut entries)
        })?;
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
        walk(dir, &root, "tests/scorecard", &mut |found| {
            read_entry(found, &root, &mut entries)
        })?;
    }
    Ok(entries)
}

/// A bundle file, read through the safe reader (with its size cap), or a
/// directory, as an entry of the bundle layer.
fn read_entry(found: Found, root: &Path, entries: &mut Vec<Entry>) -> Result<(), BuildError> {
    match found {
        Found::Dir { relative } => entries.push(Entry::dir(format!("{relative}/"), DIR_MODE)),
        Found::File {
            relative,
            path,
            display,
        } => {
            let contents = crate::fsutil::read_input(&path, root, crate::fsutil::Limit::Manifest)
                .map_err(|e| match e {
                crate::fsutil::InputError::Io { kind, message, .. } => {
                    BuildError::io("read", &display, &std::io::Error::new(kind, message))
                }
                refused => BuildError::new(refused.to_string()),
            })?;
            entries.push(Entry::file(relative, FILE_MODE, Source::Bytes(contents)));
        }
    }
    Ok(())
}

/// What [`walk`] finds.
#[derive(Debug)]
pub(super) enum Found {
    /// A directory (the top one too); `relative` to the root, `/`-separated,
    /// empty for the root itself.
    Dir { relative: String },
    /// A regular file (or a link to one inside the root).
    File {
        relative: String,
        /// Where to read it.
        path: PathBuf,
        /// The path as the user would name it, for messages.
        display: PathBuf,
    },
}

/// Visits the tree at `dir/top` (`top` may be empty: the whole tree), each
/// directory before its contents and siblings in byte order of their names,
/// following links that stay inside `root` (the canonical `dir`) and
/// refusing links out of it, dangling links, link loops, names that are not
/// UTF-8, and anything that is not a regular file or a directory.
pub(super) fn walk(
    dir: &Path,
    root: &Path,
    top: &str,
    found: &mut dyn FnMut(Found) -> Result<(), BuildError>,
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
            found(Found::Dir { relative })?;
        } else if file_type.is_file() {
            found(Found::File {
                relative,
                path: path.to_path_buf(),
                display,
            })?;
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

/// Copies the tree `dir` into `to` (which must not exist) with normalised
/// permissions: directories `dir_mode`, files `file_mode`; links that stay
/// inside `dir` become what they point to, other links and special files
/// are refused (as in bundle images). The copy is what an image holds and
/// what is checked before it is packed, so the two cannot differ.
pub fn copy_tree(dir: &Path, to: &Path, dir_mode: u32, file_mode: u32) -> Result<(), BuildError> {
    let root = dir
        .canonicalize()
        .map_err(|e| BuildError::io("open", dir, &e))?;
    if !root.is_dir() {
        return Err(BuildError::new(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    walk(dir, &root, "", &mut |found| match found {
        Found::Dir { relative } => {
            let target = to.join(&relative);
            std::fs::create_dir(&target).map_err(|e| BuildError::io("create", &target, &e))?;
            set_mode(&target, dir_mode)
        }
        Found::File {
            relative,
            path,
            display,
        } => {
            let target = to.join(&relative);
            std::fs::copy(&path, &target).map_err(|e| BuildError::io("copy", &display, &e))?;
            set_mode(&target, file_mode)
        }
    })
}

fn set_mode(path: &Path, mode: u32) -> Result<(), BuildError> {
    super::set_mode(path, mode).map_err(|e| BuildError::io("chmod", path, &e))
}

/// The entries of a tree this program wrote (no links, nothing special),
/// under `prefix/` in the layer, with the modes they have on disk, owned by
/// root; the directory itself first.
pub fn tree_entries(dir: &Path, prefix: &str) -> Result<Vec<Entry>, BuildError> {
    let mut entries = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| {
            let at = e.path().unwrap_or(dir).to_path_buf();
            match e.io_error() {
                Some(io) => BuildError::io("read", &at, io),
                None => BuildError::new(format!("read {}: {e}", at.display())),
            }
        })?;
        let relative = entry
            .path()
            .strip_prefix(dir)
            .ok()
            .and_then(|p| p.to_str())
            .ok_or_else(|| {
                BuildError::new(format!(
                    "file name {} is not valid UTF-8",
                    entry.path().display()
                ))
            })?
            .replace(std::path::MAIN_SEPARATOR, "/");
        let path = if relative.is_empty() {
            format!("{prefix}/")
        } else {
            format!("{prefix}/{relative}")
        };
        let meta = entry
            .metadata()
            .map_err(|e| BuildError::new(format!("read {}: {e}", entry.path().display())))?;
        let mode = mode_of(&meta);
        if meta.is_dir() {
            entries.push(Entry::dir(path, mode));
        } else if meta.is_file() {
            entries.push(Entry::file(path, mode, Source::Path(entry.into_path())));
        } else {
            return Err(BuildError::new(format!(
                "{} is not a regular file or directory",
                entry.path().display()
            )));
        }
    }
    Ok(entries)
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    if meta.is_dir() {
        DIR_MODE
    } else {
        FILE_MODE
    }
}
