//! Where a daemonless build puts an image: `file://X.tar[.gz]` (an OCI
//! archive), `oci://DIR[:TAG]` (an OCI image layout) or `image://REF` (a
//! push). One grammar and one writer for `opm bundle build` and `opm alpha
//! catalog build|base`.

use super::{push, write_oci_archive, write_oci_layout, BuildError, BuiltImage};
use crate::encoding::json::go_quote;
use crate::fsutil::WriteError;
use crate::image::PullOptions;
use std::path::{Path, PathBuf};

/// The forms a destination takes, for messages.
pub const FORMS: &str = "file://PATH.tar, file://PATH.tar.gz, oci://DIR or image://REF";

/// Where an image goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// An OCI image archive (gzip-compressed when `gzip`), its image named
    /// `tag`.
    Archive {
        path: PathBuf,
        gzip: bool,
        tag: String,
    },
    /// An OCI image layout directory, its image named `tag`.
    Layout { dir: PathBuf, tag: String },
    /// Pushed to a registry.
    Push { reference: String },
}

/// A destination that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DestinationError {
    #[error("invalid destination {}: expected {FORMS}", go_quote(.0))]
    Invalid(String),
    #[error("invalid destination {}: the archive name must end in .tar or .tar.gz", go_quote(.0))]
    ArchiveName(String),
    #[error("give the tag either as {0} or with --tag, not both")]
    TwoTags(String),
    #[error("give the image reference either as {0} or with --tag, not both")]
    TagWithPush(String),
    /// The archive is already there.
    #[error(transparent)]
    Exists(#[from] WriteError),
    /// The layout is already there.
    #[error("path {}: already exists and is not an empty directory", go_quote(&.path.display().to_string()))]
    LayoutExists { path: PathBuf },
}

impl Destination {
    /// Parses `file://X.tar`, `file://X.tar.gz` (or `.tgz`), `oci://DIR[:TAG]`
    /// or `image://REF`; `tag` (a `--tag` flag) names the image inside an
    /// archive or layout (`latest` if none).
    pub fn parse(destination: &str, tag: Option<String>) -> Result<Destination, DestinationError> {
        let nonempty = |rest: &str| {
            if rest.is_empty() {
                Err(DestinationError::Invalid(destination.to_string()))
            } else {
                Ok(rest.to_string())
            }
        };
        if let Some(path) = destination.strip_prefix("file://") {
            let path = nonempty(path)?;
            let gzip = if path.ends_with(".tar.gz") || path.ends_with(".tgz") {
                true
            } else if path.ends_with(".tar") {
                false
            } else {
                return Err(DestinationError::ArchiveName(destination.to_string()));
            };
            return Ok(Destination::Archive {
                path: PathBuf::from(path),
                gzip,
                tag: tag.unwrap_or_else(|| "latest".to_string()),
            });
        }
        if let Some(dir) = destination.strip_prefix("oci://") {
            // `oci://DIR:TAG` names the tag inside the layout `DIR`.
            let (dir, named) = crate::image::source::split_layout(&nonempty(dir)?);
            let tag = match (named, tag) {
                (Some(_), Some(_)) => {
                    return Err(DestinationError::TwoTags(destination.to_string()))
                }
                (Some(named), None) => named,
                (None, tag) => tag.unwrap_or_else(|| "latest".to_string()),
            };
            return Ok(Destination::Layout { dir, tag });
        }
        if let Some(reference) = destination.strip_prefix("image://") {
            let reference = nonempty(reference)?;
            if tag.is_some() {
                return Err(DestinationError::TagWithPush(destination.to_string()));
            }
            return Ok(Destination::Push { reference });
        }
        Err(DestinationError::Invalid(destination.to_string()))
    }

    /// Refuses an output that is already there, before any work: an archive
    /// file that exists, a layout directory that is not empty. (A push
    /// replaces the tag, as every registry client does.) Relative paths are
    /// taken from `working_dir`.
    pub fn check_free(&self, working_dir: &Path) -> Result<(), DestinationError> {
        match self {
            Destination::Archive { path, .. } => {
                if working_dir.join(path).symlink_metadata().is_ok() {
                    return Err(WriteError::Exists { path: path.clone() }.into());
                }
            }
            Destination::Layout { dir, .. } => {
                let target = working_dir.join(dir);
                let empty_dir = std::fs::read_dir(&target).is_ok_and(|mut l| l.next().is_none());
                if target.symlink_metadata().is_ok() && !empty_dir {
                    return Err(DestinationError::LayoutExists { path: dir.clone() });
                }
            }
            Destination::Push { .. } => {}
        }
        Ok(())
    }

    /// Writes or pushes `image`; returns its manifest digest, and says what
    /// was done through `progress`. A layout directory that did not exist
    /// before is removed again when writing it fails.
    pub fn write(
        &self,
        image: &BuiltImage,
        working_dir: &Path,
        pull: &PullOptions,
        progress: &mut dyn FnMut(&str),
    ) -> Result<String, BuildError> {
        match self {
            Destination::Archive { path, gzip, tag } => {
                write_oci_archive(image, &working_dir.join(path), tag, *gzip)?;
                progress(&format!(
                    "Wrote {} ({})",
                    path.display(),
                    image.manifest_digest
                ));
            }
            Destination::Layout { dir, tag } => {
                let target = working_dir.join(dir);
                let existed = target.exists();
                if let Err(error) = write_oci_layout(image, &target, tag) {
                    if !existed {
                        let _ = std::fs::remove_dir_all(&target);
                    }
                    return Err(error);
                }
                progress(&format!(
                    "Wrote {} ({})",
                    dir.display(),
                    image.manifest_digest
                ));
            }
            Destination::Push { reference } => {
                let digest = push(image, reference, pull)?;
                progress(&format!("Pushed {reference}@{digest}"));
            }
        }
        Ok(image.manifest_digest.clone())
    }
}

impl std::fmt::Display for Destination {
    /// The destination as written on the command line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Destination::Archive { path, .. } => write!(f, "file://{}", path.display()),
            Destination::Layout { dir, .. } => write!(f, "oci://{}", dir.display()),
            Destination::Push { reference } => write!(f, "image://{reference}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses_and_bad_ones_say_what_is_expected() {
        assert_eq!(
            Destination::parse("file://x.tar.gz", None).unwrap(),
            Destination::Archive {
                path: "x.tar.gz".into(),
                gzip: true,
                tag: "latest".into()
            }
        );
        assert_eq!(
            Destination::parse("oci://out:v2", None).unwrap(),
            Destination::Layout {
                dir: "out".into(),
                tag: "v2".into()
            }
        );
        assert_eq!(
            Destination::parse("image://quay.io/a/b:v1", None).unwrap(),
            Destination::Push {
                reference: "quay.io/a/b:v1".into()
            }
        );
        for (bad, message) in [
            ("x.tar", "expected file://PATH.tar"),
            ("file://", "expected file://PATH.tar"),
            ("file://x.zip", "must end in .tar or .tar.gz"),
        ] {
            let error = Destination::parse(bad, None).unwrap_err().to_string();
            assert!(error.contains(message), "{bad}: {error}");
        }
        assert!(Destination::parse("oci://out:v2", Some("v3".into())).is_err());
        assert!(Destination::parse("image://a/b", Some("v3".into())).is_err());
    }
}
