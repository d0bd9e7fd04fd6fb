//! One object of a CSV-less bundle's `manifests/`.

use crate::bundle::rules::finding;
use serde_json::Value;

/// One object of `manifests/`.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// `manifests/<name>`.
    pub file: String,
    /// 1-based document number in the file.
    pub document: usize,
    pub value: Value,
    /// Whether the document was YAML (CRD checks read YAML numbers differently).
    pub from_yaml: bool,
}

impl Manifest {
    pub fn kind(&self) -> &str {
        self.value.get("kind").and_then(Value::as_str).unwrap_or("")
    }

    /// A finding about this object: in its file and document.
    pub fn finding(&self, rule: &'static str, message: String) -> crate::diag::Diagnostic {
        let mut finding = finding(rule, message, Some(self.file.clone()));
        if let Some(location) = &mut finding.location {
            location.document = self.document.checked_sub(1);
        }
        finding
    }
}
