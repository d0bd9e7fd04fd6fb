//! Bundle validation, as `opm bundle validate` runs it on a bundle directory:
//! format (`manifests/`, `metadata/`, annotations, dependencies), content
//! (supported kinds, ClusterServiceVersion and CustomResourceDefinition rules,
//! object metadata), the registry checks, and the optional validators.
//!
//! Findings are data ([`Diagnostic`]); nothing here prints. Messages keep
//! upstream's wording; every problem is gathered.

mod bundle_objects;
pub mod content;
#[cfg(test)]
mod content_tests;
mod crd;
mod csv;
mod csvless;
pub mod dependencies;
pub mod format;
mod good_practices;
pub mod kinds;
mod message;
mod object_meta;
mod operatorhub;
mod options;
mod registry;
mod shape;

use std::path::Path;

pub use crate::diag::{Diagnostic, Severity};
pub use options::{Optional, Options, UnknownOptional};

/// Everything found in one bundle, in check order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BundleReport {
    pub findings: Vec<Diagnostic>,
}

impl BundleReport {
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Warning)
    }

    pub fn passed(&self) -> bool {
        self.errors().next().is_none()
    }

    /// Finds the line and column of each finding in the files of `bundle` as they were read
    /// (no file is read again), then names its file as the user knows it: under `shown_as` (the
    /// bundle directory they gave), or relative to the bundle root (an image's content).
    pub fn locate(&mut self, bundle: &crate::bundle::BundleDir, shown_as: Option<&Path>) {
        // A message that starts with its own file says it once, in the location.
        for finding in &mut self.findings {
            if let Some(file) = finding.file() {
                if let Some(rest) = finding.message.strip_prefix(&format!("{file}: ")) {
                    finding.message = rest.to_string();
                }
            }
        }
        fn locations(
            findings: &mut [Diagnostic],
        ) -> impl Iterator<Item = &mut crate::diag::Location> {
            findings
                .iter_mut()
                .filter_map(|finding| finding.location.as_mut())
        }
        let root = bundle.root();
        let entries = || {
            bundle
                .manifests()
                .entries_or_none()
                .iter()
                .chain(bundle.metadata().entries_or_none())
        };
        crate::diag::resolve_positions_from(locations(&mut self.findings), |file| {
            let path = root.join(file);
            let entry = entries().find(|entry| entry.path() == path)?;
            entry.bytes().ok().map(std::borrow::Cow::Borrowed)
        });
        for location in locations(&mut self.findings) {
            let full = root.join(&*location.file);
            let relative = full.strip_prefix(root).unwrap_or(&full);
            let shown = match shown_as {
                Some(dir) if dir != Path::new(".") && dir != Path::new("") => dir.join(relative),
                _ => relative.to_path_buf(),
            };
            location.file = shown.to_string_lossy().into();
        }
    }

    /// Upstream's error text: `Bundle validation errors: <e1>,<e2>,…`.
    pub fn message(&self) -> Option<String> {
        let errors: Vec<&str> = self.errors().map(|f| f.message.as_str()).collect();
        (!errors.is_empty()).then(|| format!("Bundle validation errors: {}", errors.join(",")))
    }
}

/// Validates the bundle directory at `root`.
pub fn validate_bundle_dir(root: &Path, options: &Options) -> BundleReport {
    validate(&crate::bundle::BundleDir::read(root), options)
}

/// Validates a bundle directory already read: the format, content and CSV-less checks all
/// look at the same files.
pub fn validate(dir: &crate::bundle::BundleDir, options: &Options) -> BundleReport {
    use crate::bundle::mediatype::MediaType;
    let media_type = crate::bundle::csvless::resolve_media_type(dir);
    if matches!(media_type, MediaType::RegistryV2 | MediaType::Plain) {
        return BundleReport {
            findings: csvless::validate(dir, media_type, options),
        };
    }
    let mut findings = format::validate_format(dir);
    // Without both directories there is nothing more to check.
    if format::has_bundle_dirs(dir) {
        findings.extend(content::validate_content(dir, options));
    }
    BundleReport { findings }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_validators_are_a_closed_set() {
        assert_eq!(
            Optional::parse_list(" operatorhub, bundle-objects,,operatorhub").unwrap(),
            vec![Optional::OperatorHub, Optional::BundleObjects]
        );
        assert_eq!(
            Optional::parse_list("foo").unwrap_err().to_string(),
            "invalid optional validator \"foo\": must be one or more of [operatorhub, bundle-objects, good-practices]"
        );
        assert!(Optional::parse_list("").unwrap().is_empty());
    }
}
