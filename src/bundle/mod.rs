//! A registry+v1 bundle directory (`manifests/` + `metadata/`) rendered as
//! the single `olm.bundle` blob upstream's `opm render` produces for it
//! (fbc.md §5.4 and §5.6, bundle.md §9).
//!
//! Two steps, because `--alpha-image-ref-template` needs the package, CSV
//! name and version before the image is known:
//!
//! 1. [`parse_bundle_dir`] reads and checks the directory (upstream's bundle
//!    parser) into a [`ParsedBundle`];
//! 2. [`ParsedBundle::render`] builds the blob for a chosen image.
//!
//! [`render_bundle_dir`] does both. Errors carry upstream's message; the
//! caller adds its own framing (`render reference "<dir>": …`).
//!
//! Deliberate difference from upstream: every document of a multi-document
//! manifest file is read (upstream keeps only the first).
//!
//! Where upstream decodes into large typed Kubernetes structs, only the
//! fields render uses are checked, with upstream's messages: the CSV spec
//! object, `spec.version`, `spec.release`, the owned/required CRD and API
//! service lists, `spec.relatedImages`, and each CRD's group, names and
//! versions. Type errors elsewhere (for example in the install strategy's
//! deployment specs, or a non-string CSV annotation) do not fail here;
//! container images whose path has the wrong type are ignored, and a
//! container without an image contributes `""` as upstream. A `null` entry in
//! the CSV's CRD or API service lists (upstream crashes on it) counts as an
//! entry with empty fields.

pub mod annotations;
pub mod csvless;
mod gojson;
pub mod mediatype;
mod parse;
mod render;
pub mod rules;
pub mod validate;

pub use parse::parse_bundle_dir;
pub use render::sort_related_images;

/// Reads a file of a bundle directory: `<bundle>/manifests/<file>` or `<bundle>/metadata/<file>`,
/// so the tree a symbolic link must stay in is the file's grandparent. Only regular files are
/// read, within the manifest size limit ([`crate::fsutil::read_input`]).
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>, crate::fsutil::InputError> {
    let tree = path
        .parent()
        .and_then(std::path::Path::parent)
        .filter(|tree| !tree.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    crate::fsutil::read_input(path, tree, crate::fsutil::Limit::Manifest)
}

use gojson::RawProperty;
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
    fn new(message: impl Into<String>) -> BundleDirError {
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
    objects: Vec<Value>,
    csv_index: Option<usize>,
    /// The CSV (for plain+v0: only the name and version of `bundle.yaml`).
    csv: Value,
    /// Upstream's `Bundle.Properties`: the properties file, then the derived
    /// properties, de-duplicated.
    properties: Vec<RawProperty>,
    /// Entries of the dependencies file.
    dependencies: Vec<RawProperty>,
    /// Provided APIs (CRD versions and owned API services).
    provided: std::collections::BTreeSet<parse::ApiKey>,
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
            Some(p) => gojson::decode_strings(p.value.as_deref(), &gojson::PACKAGE)
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

    /// The `olm.bundle` blob with `image` as its image: properties sorted by
    /// type then value text, bundle objects last, related images sorted by
    /// image.
    pub fn render(&self, image: &str) -> Result<crate::declcfg::Bundle, BundleDirError> {
        render::render(self, image)
    }
}

/// Parses a bundle directory and renders it as upstream HEAD does (one
/// `olm.bundle` blob, properties in upstream's order, bundle objects last,
/// related images sorted by image, image = `image`).
pub fn render_bundle_dir(
    dir: &std::path::Path,
    image: &str,
) -> Result<crate::declcfg::Bundle, BundleDirError> {
    parse_bundle_dir(dir)?.render(image)
}

#[cfg(test)]
mod tests;
