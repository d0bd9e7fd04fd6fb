//! Bundle validation, as `opm bundle validate` runs it on a bundle directory:
//! format (`manifests/`, `metadata/`, annotations, dependencies), content
//! (supported kinds, ClusterServiceVersion and CustomResourceDefinition rules,
//! object metadata), the registry checks, and the optional validators.
//!
//! Findings are data ([`Finding`]); nothing here prints. Messages keep
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
mod registry;
mod shape;

use serde::Serialize;
use std::path::Path;

/// How serious a finding is. Only errors fail validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One problem found in a bundle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable kebab-case identifier of the check (e.g. `annotations-missing`).
    pub rule: &'static str,
    pub severity: Severity,
    /// Upstream's wording, as it appears in `Bundle validation errors: …`.
    pub message: String,
    /// The file the finding is about, relative to the bundle root
    /// (`manifests/csv.yaml`, `metadata/annotations.yaml`), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

impl Finding {
    pub fn error(rule: &'static str, message: impl Into<String>, file: Option<String>) -> Finding {
        Finding {
            rule,
            severity: Severity::Error,
            message: message.into(),
            file,
        }
    }

    pub fn warning(
        rule: &'static str,
        message: impl Into<String>,
        file: Option<String>,
    ) -> Finding {
        Finding {
            rule,
            severity: Severity::Warning,
            message: message.into(),
            file,
        }
    }
}

/// The optional validators (`-o/--optional-validators`), a closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Optional {
    OperatorHub,
    BundleObjects,
    GoodPractices,
}

impl Optional {
    pub const ALL: [Optional; 3] = [
        Optional::OperatorHub,
        Optional::BundleObjects,
        Optional::GoodPractices,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Optional::OperatorHub => "operatorhub",
            Optional::BundleObjects => "bundle-objects",
            Optional::GoodPractices => "good-practices",
        }
    }

    /// Parses a comma-separated list (items trimmed, empty items ignored);
    /// an unknown name is an error naming it and the valid names.
    pub fn parse_list(value: &str) -> Result<Vec<Optional>, String> {
        let mut selected = Vec::new();
        for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let Some(found) = Optional::ALL.iter().find(|o| o.name() == item) else {
                let names: Vec<&str> = Optional::ALL.iter().map(|o| o.name()).collect();
                return Err(format!(
                    "invalid optional validator {}: must be one or more of [{}]",
                    crate::encoding::json::go_quote(item),
                    names.join(", ")
                ));
            };
            if !selected.contains(found) {
                selected.push(*found);
            }
        }
        Ok(selected)
    }
}

/// What to run besides the default checks.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub optional: Vec<Optional>,
}

/// Everything found in one bundle, in check order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BundleReport {
    pub findings: Vec<Finding>,
}

impl BundleReport {
    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Warning)
    }

    pub fn passed(&self) -> bool {
        self.errors().next().is_none()
    }

    /// Upstream's error text: `Bundle validation errors: <e1>,<e2>,…`.
    pub fn message(&self) -> Option<String> {
        let errors: Vec<&str> = self.errors().map(|f| f.message.as_str()).collect();
        (!errors.is_empty()).then(|| format!("Bundle validation errors: {}", errors.join(",")))
    }
}

/// Validates the bundle directory at `root`.
pub fn validate_bundle_dir(root: &Path, options: &Options) -> BundleReport {
    use crate::bundle::mediatype::MediaType;
    let media_type = crate::bundle::csvless::resolve_media_type(root);
    if matches!(media_type, MediaType::RegistryV2 | MediaType::Plain) {
        return BundleReport {
            findings: csvless::validate(root, media_type, options),
        };
    }
    let mut findings = format::validate_format(root);
    // Without both directories there is nothing more to check.
    if format::has_bundle_dirs(root) {
        findings.extend(content::validate_content(root, options));
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
        assert!(Optional::parse_list("foo").unwrap_err().contains("\"foo\""));
        assert!(Optional::parse_list("").unwrap().is_empty());
    }
}
