//! The file-based catalog (FBC) wire format: the four first-class blob schemas
//! (`olm.package`, `olm.channel`, `olm.bundle`, `olm.deprecations`) and opaque
//! other blobs, exactly as they are read from and written to catalog files.
//!
//! Owns loading (`load`), typed decoding (`decode`) and the writers (`write`).
//! It knows nothing of the checked model or of validation rules.

pub mod decode;
pub mod graph;
pub mod ignore;
pub mod load;
pub mod write;

use serde_json::Value;
use std::sync::Arc;

pub const SCHEMA_PACKAGE: &str = "olm.package";
pub const SCHEMA_CHANNEL: &str = "olm.channel";
pub const SCHEMA_BUNDLE: &str = "olm.bundle";
pub const SCHEMA_DEPRECATIONS: &str = "olm.deprecations";

/// Where a blob came from; defined with the findings that point at it.
pub use crate::diag::Origin;

/// A `{type, value}` property. `value` is `None` when the key was absent
/// (written back as `null`, as upstream does with a nil raw message).
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub kind: String,
    pub value: Option<Value>,
}

impl Property {
    pub fn new(kind: impl Into<String>, value: Value) -> Property {
        Property {
            kind: kind.into(),
            value: Some(value),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Icon {
    /// The image as canonical padded base64 (upstream decodes and re-encodes
    /// it); `None` when `base64data` was absent or null.
    pub base64: Option<String>,
    pub media_type: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Package {
    pub name: String,
    pub default_channel: String,
    pub icon: Option<Icon>,
    pub description: String,
    pub properties: Vec<Property>,
    pub origin: Option<Origin>,
    /// Set when the loader left the icon's image data behind (`base64` is
    /// `None` here) to be read again from the file when the package is
    /// written; see [`load::BundleObjects`].
    pub deferred: Option<Deferred>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChannelEntry {
    pub name: String,
    pub replaces: String,
    pub skips: Vec<String>,
    pub skip_range: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Channel {
    pub name: String,
    pub package: String,
    /// `None` when the input had no `entries` (written back as `null`).
    pub entries: Option<Vec<ChannelEntry>>,
    pub properties: Vec<Property>,
    pub origin: Option<Origin>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct RelatedImage {
    pub name: String,
    pub image: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bundle {
    pub name: String,
    pub package: String,
    pub image: String,
    pub properties: Vec<Property>,
    pub related_images: Vec<RelatedImage>,
    pub origin: Option<Origin>,
    /// Set when the loader left the values of the `olm.bundle.object`
    /// properties behind (they are `null` here) to be read again from the
    /// file when the bundle is written; see [`load::BundleObjects`].
    pub deferred: Option<Deferred>,
}

/// Where to find a bundle's or a package's document again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deferred {
    pub file: Arc<std::path::Path>,
    /// 0-based index of the document in its file.
    pub document: usize,
    /// The bytes of the document in its file.
    pub span: crate::encoding::stream::Span,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct PackageScopedReference {
    pub schema: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct DeprecationEntry {
    pub reference: PackageScopedReference,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Deprecation {
    pub package: String,
    /// `None` when the input had no `entries` (written back as `null`).
    pub entries: Option<Vec<DeprecationEntry>>,
    pub origin: Option<Origin>,
}

/// A blob of any other schema, kept whole (keys sorted, as upstream re-encodes it).
#[derive(Debug, Clone, PartialEq)]
pub struct Meta {
    pub schema: String,
    pub package: String,
    pub name: String,
    pub blob: Value,
    pub origin: Option<Origin>,
}

/// One blob of a catalog.
#[derive(Debug, Clone, PartialEq)]
pub enum Blob {
    Package(Package),
    Channel(Channel),
    Bundle(Bundle),
    Deprecation(Deprecation),
    Other(Meta),
}

impl Blob {
    pub fn package_name(&self) -> &str {
        match self {
            Blob::Package(p) => &p.name,
            Blob::Channel(c) => &c.package,
            Blob::Bundle(b) => &b.package,
            Blob::Deprecation(d) => &d.package,
            Blob::Other(m) => &m.package,
        }
    }
}

/// A whole catalog, grouped by schema, each list in load order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeclarativeConfig {
    pub packages: Vec<Package>,
    pub channels: Vec<Channel>,
    pub bundles: Vec<Bundle>,
    pub deprecations: Vec<Deprecation>,
    pub others: Vec<Meta>,
}

impl DeclarativeConfig {
    /// Whether the catalog holds no blob at all.
    pub fn is_empty(&self) -> bool {
        self.packages.is_empty()
            && self.channels.is_empty()
            && self.bundles.is_empty()
            && self.deprecations.is_empty()
            && self.others.is_empty()
    }

    pub fn push(&mut self, blob: Blob) {
        match blob {
            Blob::Package(p) => self.packages.push(p),
            Blob::Channel(c) => self.channels.push(c),
            Blob::Bundle(b) => self.bundles.push(b),
            Blob::Deprecation(d) => self.deprecations.push(d),
            Blob::Other(m) => self.others.push(m),
        }
    }

    pub fn extend(&mut self, other: DeclarativeConfig) {
        self.packages.extend(other.packages);
        self.channels.extend(other.channels);
        self.bundles.extend(other.bundles);
        self.deprecations.extend(other.deprecations);
        self.others.extend(other.others);
    }

    pub fn into_blobs(self) -> Vec<Blob> {
        let mut blobs = Vec::with_capacity(
            self.packages.len()
                + self.channels.len()
                + self.bundles.len()
                + self.deprecations.len()
                + self.others.len(),
        );
        blobs.extend(self.packages.into_iter().map(Blob::Package));
        blobs.extend(self.channels.into_iter().map(Blob::Channel));
        blobs.extend(self.bundles.into_iter().map(Blob::Bundle));
        blobs.extend(self.deprecations.into_iter().map(Blob::Deprecation));
        blobs.extend(self.others.into_iter().map(Blob::Other));
        blobs
    }
}
