//! Where an image reference points: a registry, an OCI image layout directory
//! (`oci://DIR[:TAG]`, or a plain directory holding `oci-layout` and
//! `index.json`) or an OCI archive (`file://X.tar[.gz]`). [`pull`] turns any
//! of them into a [`PulledImage`] with the same checks (digests, sizes, caps)
//! as a registry pull, so every command that reads an image accepts all of
//! them.

use super::remote::{self, PullError, PullErrorKind};
use super::{PullOptions, PulledImage};
use std::path::{Path, PathBuf};

/// An image's location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A registry reference (`image://` stripped).
    Registry(String),
    /// An OCI image layout directory and the tag to take from it (the only
    /// image when `None`).
    Layout { dir: PathBuf, tag: Option<String> },
    /// An OCI archive file.
    Archive(PathBuf),
}

/// A reference that names nothing: a local path that does not exist (and
/// does not look like a registry reference).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("stat {}: no such file or directory", .path.display())]
pub struct NotFound {
    pub path: PathBuf,
}

impl Source {
    /// Classifies `reference`. Directories are layouts only when they hold
    /// `oci-layout` and `index.json` (callers check bundle and catalog
    /// directories first); anything else that exists is not an image.
    ///
    /// # Errors
    /// [`NotFound`] for a missing local path: one with an `oci://` or
    /// `file://` prefix, or one whose first component has no `.` or `:`
    /// and is not `localhost` (so `catalog/` is never pulled from Docker Hub).
    pub fn of(reference: &str) -> Result<Source, NotFound> {
        if let Some(rest) = reference.strip_prefix("image://") {
            return Ok(Source::Registry(rest.to_string()));
        }
        if let Some(rest) = reference.strip_prefix("oci://") {
            let (dir, tag) = split_layout(rest);
            if !dir.exists() {
                return Err(NotFound { path: dir });
            }
            return Ok(Source::Layout { dir, tag });
        }
        if let Some(rest) = reference.strip_prefix("file://") {
            let path = PathBuf::from(rest);
            if !path.exists() {
                return Err(NotFound { path });
            }
            return Ok(Source::Archive(path));
        }
        let path = Path::new(reference);
        if is_layout_dir(path) {
            return Ok(Source::Layout {
                dir: path.to_path_buf(),
                tag: None,
            });
        }
        if path.symlink_metadata().is_err() && !looks_like_registry(reference) {
            return Err(NotFound {
                path: path.to_path_buf(),
            });
        }
        Ok(Source::Registry(reference.to_string()))
    }
}

/// `DIR` or `DIR:TAG`: an existing `DIR:TAG` directory is taken whole; a tag
/// has no `/`.
pub fn split_layout(rest: &str) -> (PathBuf, Option<String>) {
    if Path::new(rest).is_dir() {
        return (PathBuf::from(rest), None);
    }
    match rest.rsplit_once(':') {
        Some((dir, tag)) if !dir.is_empty() && !tag.is_empty() && !tag.contains('/') => {
            (PathBuf::from(dir), Some(tag.to_string()))
        }
        _ => (PathBuf::from(rest), None),
    }
}

/// Whether `path` is a directory holding an OCI image layout.
pub fn is_layout_dir(path: &Path) -> bool {
    path.join("oci-layout").is_file() && path.join("index.json").is_file()
}

/// Whether a reference that is not a local path reads as a registry
/// reference: its first `/`-separated component has a `.` or a `:`, or is
/// `localhost`, or it is a single name with a tag or digest (`busybox:1`).
pub fn looks_like_registry(reference: &str) -> bool {
    let first = reference.split('/').next().unwrap_or_default();
    first.contains('.') || first.contains(':') || first.contains('@') || first == "localhost"
}

/// Reads the image `reference` names, wherever it is.
///
/// # Errors
/// [`PullError`] naming the reference as typed.
pub fn pull(reference: &str, options: &PullOptions) -> Result<PulledImage, PullError> {
    let source = Source::of(reference).map_err(|e| PullError {
        reference: reference.to_string(),
        kind: PullErrorKind::Local {
            path: e.path,
            message: "no such file or directory".to_string(),
        },
    })?;
    pull_source(&source, reference, options)
}

/// Reads the image of an already classified `source`.
///
/// # Errors
/// [`PullError`] naming `typed`.
pub fn pull_source(
    source: &Source,
    typed: &str,
    options: &PullOptions,
) -> Result<PulledImage, PullError> {
    let local = |result: Result<PulledImage, PullErrorKind>| {
        result.map_err(|kind| PullError {
            reference: typed.to_string(),
            kind,
        })
    };
    match source {
        Source::Registry(reference) => remote::pull(reference, options),
        Source::Layout { dir, tag } => local(remote::layout::read_layout(
            dir,
            tag.as_deref(),
            typed,
            options,
        )),
        Source::Archive(path) => local(remote::layout::read_archive(path, typed, options)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_classified() {
        let temp = tempfile::tempdir().unwrap();
        let layout = temp.path().join("layout");
        std::fs::create_dir(&layout).unwrap();
        std::fs::write(layout.join("oci-layout"), "{}").unwrap();
        std::fs::write(layout.join("index.json"), "{}").unwrap();
        let text = layout.display().to_string();
        assert_eq!(
            Source::of(&text).unwrap(),
            Source::Layout {
                dir: layout.clone(),
                tag: None
            }
        );
        assert_eq!(
            Source::of(&format!("oci://{text}:v1")).unwrap(),
            Source::Layout {
                dir: layout.clone(),
                tag: Some("v1".into())
            }
        );
        assert!(Source::of(&format!("oci://{text}-missing:v1")).is_err());
        assert!(Source::of("file:///nonexistent/x.tar").is_err());
        assert!(Source::of("opm-test-no-such-catalog").is_err());
        assert!(Source::of("opm-test-no-such/dir").is_err());
        for registry in [
            "quay.io/a/b:v1",
            "localhost/a",
            "127.0.0.1:5000/a:v1",
            "busybox:1",
        ] {
            assert_eq!(
                Source::of(registry).unwrap(),
                Source::Registry(registry.into())
            );
        }
        assert_eq!(
            Source::of("image://busybox").unwrap(),
            Source::Registry("busybox".into())
        );
    }

    #[test]
    fn layout_tags_split_at_the_last_colon() {
        assert_eq!(
            split_layout("a/b:v1"),
            (PathBuf::from("a/b"), Some("v1".into()))
        );
        assert_eq!(split_layout("a:b/c"), (PathBuf::from("a:b/c"), None));
        assert_eq!(split_layout("dir"), (PathBuf::from("dir"), None));
    }
}
