//! A bundle directory as [`crate::bundle::parse_bundle_dir`] reads it, before rendering.

use crate::bundle::property_list::{self, RawProperty};
use crate::encoding::gojson;
use serde_json::Value;

/// A failure to parse or render a bundle directory. `Display` is upstream's
/// message, e.g. `no csv in bundle`, `Could not find annotations file`,
/// `error checking provided apis in bundle <name>: couldn't find …`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BundleDirError {
    message: String,
}

impl BundleDirError {
    pub(crate) fn new(message: impl Into<String>) -> BundleDirError {
        BundleDirError {
            message: message.into(),
        }
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

/// The fields `--alpha-image-ref-template` offers: `{{.Package}}`,
/// `{{.Name}}`, `{{.Version}}`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TemplateFields {
    /// The annotations' package name.
    pub package: String,
    /// The CSV's `metadata.name`.
    pub name: String,
    /// The version of the bundle's first `olm.package` property (`""` when
    /// there is none).
    pub version: String,
}

/// A parsed and checked bundle directory, ready to render.
#[derive(Debug, Clone)]
pub struct ParsedBundle {
    /// Package name from the annotations file (may be empty).
    pub package: String,
    /// The CSV's `metadata.name`.
    pub name: String,
    /// Channels from the annotations file (split on `,`; empty when unset).
    pub channels: Vec<String>,
    /// Default channel from the annotations file (may be empty).
    pub default_channel: String,
    /// Manifest objects in file order, keys sorted at every level (the CSV
    /// among them, at `csv_index`; a plain+v0 bundle has none).
    pub(crate) objects: Vec<Value>,
    pub(crate) csv_index: Option<usize>,
    /// The CSV (for plain+v0: only the name and version of `bundle.yaml`).
    pub(crate) csv: Value,
    /// Upstream's `Bundle.Properties`: the properties file, then the derived
    /// properties, de-duplicated.
    pub(crate) properties: Vec<RawProperty>,
    /// Entries of the dependencies file.
    pub(crate) dependencies: Vec<RawProperty>,
    /// Provided APIs (CRD versions and owned API services).
    pub(crate) provided: std::collections::BTreeSet<ApiKey>,
}

impl ParsedBundle {
    /// The CSV as upstream re-encodes it (keys sorted at every level); the
    /// input of `csv_metadata` for the `bundle-object-to-csv-metadata`
    /// migration.
    pub fn csv(&self) -> &Value {
        &self.csv
    }

    /// Where the CSV is among [`Self::objects`] (`None` for plain+v0).
    pub fn csv_index(&self) -> Option<usize> {
        self.csv_index
    }

    /// The manifest objects in file order (keys sorted at every level).
    pub fn objects(&self) -> &[Value] {
        &self.objects
    }

    /// The template fields. Fails like upstream when the first `olm.package`
    /// property does not decode (the message is the decoding error; upstream
    /// wraps it as `failed templating image reference from bundle for
    /// "<dir>": <message>`).
    pub fn template_fields(&self) -> Result<TemplateFields, BundleDirError> {
        let version = match self.properties.iter().find(|p| p.kind == "olm.package") {
            Some(p) => gojson::decode_strings(p.value.as_deref(), &property_list::PACKAGE)
                .map_err(BundleDirError::new)?
                .swap_remove(1),
            None => String::new(),
        };
        Ok(TemplateFields {
            package: self.package.clone(),
            name: self.name.clone(),
            version,
        })
    }
}

/// An API a bundle provides or requires. Field order is Go's, which is also
/// the order Go's `fmt` sorts these map keys in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct ApiKey {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
}

impl std::fmt::Display for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{}/{} ({})",
            self.group, self.version, self.kind, self.plural
        )
    }
}
