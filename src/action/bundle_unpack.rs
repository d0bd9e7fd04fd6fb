//! `opm bundle unpack IMAGE`: pull a bundle image, validate it (unless asked
//! not to) and copy its whole filesystem into an output directory, refusing
//! to replace anything already there.

use crate::bundle::validate::{content, format, Options, Severity};
use crate::image::PullOptions;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct UnpackBundle {
    pub reference: String,
    pub out: PathBuf,
    pub skip_validation: bool,
    pub pull: PullOptions,
}

#[derive(Debug, thiserror::Error)]
pub enum UnpackBundleError {
    #[error("out {} is not a directory", .0.display())]
    OutNotADirectory(PathBuf),
    #[error("create {}: {}", .path.display(), crate::declcfg::load::io_message(.source))]
    CreateOut {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Image(#[from] super::unpack_image::UnpackImageError),
    #[error("bundle format validation failed: {0}")]
    Format(String),
    #[error("bundle content validation failed: {0}")]
    Content(String),
    #[error("failed to copy unpacked content to output directory: {} already exists", .0.display())]
    Exists(PathBuf),
    #[error("failed to copy unpacked content to output directory: {0}")]
    Copy(String),
}

/// What was written.
#[derive(Debug)]
pub struct Unpacked {
    pub files: Vec<PathBuf>,
    /// Validation warnings (never fatal).
    pub warnings: Vec<String>,
}

impl UnpackBundle {
    pub fn run(&self) -> Result<Unpacked, UnpackBundleError> {
        match std::fs::metadata(&self.out) {
            Ok(meta) if !meta.is_dir() => {
                return Err(UnpackBundleError::OutNotADirectory(self.out.clone()))
            }
            _ => {}
        }
        let dir = super::unpack_image::unpack_bundle_image(&self.reference, "none", &self.pull)?;
        let mut warnings = Vec::new();
        if !self.skip_validation {
            let joined = |findings: &[crate::diag::Diagnostic]| {
                findings
                    .iter()
                    .filter(|f| f.severity == Severity::Error)
                    .map(|f| f.message.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let bundle = crate::bundle::BundleDir::read(dir.path());
            let findings = format::validate_format(&bundle);
            if findings.iter().any(|f| f.severity == Severity::Error) {
                return Err(UnpackBundleError::Format(format!(
                    "Bundle validation errors: {}",
                    joined(&findings)
                )));
            }
            warnings.extend(findings.iter().map(|f| f.message.clone()));
            let findings = content::validate_content(&bundle, &Options::default());
            if findings.iter().any(|f| f.severity == Severity::Error) {
                return Err(UnpackBundleError::Content(format!(
                    "Bundle validation errors: {}",
                    joined(&findings)
                )));
            }
            warnings.extend(findings.iter().map(|f| f.message.clone()));
        }
        // Checked before anything is written, and again when the tree is moved into place.
        let plan = copy_plan(dir.path(), &self.out)?;
        let staged =
            crate::fsutil::StagedDir::new(&self.out).map_err(|e| UnpackBundleError::CreateOut {
                path: self.out.clone(),
                source: e.source,
            })?;
        for (from, relative, is_dir) in plan {
            let to = staged.path().join(&relative);
            let copied = if is_dir {
                std::fs::create_dir_all(&to)
            } else {
                std::fs::copy(&from, &to).map(drop)
            };
            copied.map_err(|e| {
                UnpackBundleError::Copy(format!(
                    "{}: {}",
                    self.out.join(&relative).display(),
                    crate::declcfg::load::io_message(&e)
                ))
            })?;
        }
        let created = staged.commit().map_err(|e| {
            if e.source.kind() == std::io::ErrorKind::AlreadyExists {
                UnpackBundleError::Exists(e.path)
            } else {
                UnpackBundleError::Copy(format!(
                    "{}: {}",
                    e.path.display(),
                    crate::declcfg::load::io_message(&e.source)
                ))
            }
        })?;
        let files = created.into_iter().filter(|p| p.is_file()).collect();
        Ok(Unpacked { files, warnings })
    }
}

/// Every directory and file to create under `out` (the unpacked path and the
/// path relative to `out`), checked up front so that nothing is copied when
/// any file already exists. Links in the unpacked image are not followed (the
/// unpacker already refused escaping ones; here they are skipped).
fn copy_plan(root: &Path, out: &Path) -> Result<Vec<(PathBuf, PathBuf, bool)>, UnpackBundleError> {
    let mut plan = Vec::new();
    for entry in walkdir::WalkDir::new(root).min_depth(1).sort_by_file_name() {
        let entry = entry.map_err(|e| UnpackBundleError::Copy(e.to_string()))?;
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        let target = out.join(relative);
        let kind = entry.file_type();
        if kind.is_dir() {
            if target.symlink_metadata().is_ok_and(|m| !m.is_dir()) {
                return Err(UnpackBundleError::Exists(target));
            }
            plan.push((entry.path().to_path_buf(), relative.to_path_buf(), true));
        } else if kind.is_file() {
            if target.symlink_metadata().is_ok() {
                return Err(UnpackBundleError::Exists(target));
            }
            plan.push((entry.path().to_path_buf(), relative.to_path_buf(), false));
        }
    }
    Ok(plan)
}
