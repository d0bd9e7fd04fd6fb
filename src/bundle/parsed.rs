//! A bundle directory as [`crate::bundle::parse_bundle_dir`] reads it, before rendering.

use crate::bundle::files::Manifest;
use crate::bundle::property_list::{self, RawProperty};
use crate::encoding::gojson::{self, GoJsonError};
use crate::encoding::json::go_quote;
use serde_json::Value;

/// A failure to parse or render a bundle directory. `Display` is upstream's
/// message, e.g. `no csv in bundle`, `Could not find annotations file`,
/// `error checking provided apis in bundle <name>: couldn't find …`.
#[derive(Debug, thiserror::Error)]
pub enum BundleDirError {
    /// `manifests/` or `metadata/` could not be listed (`open manifests: …`).
    #[error("open {dir}: {message}")]
    Unlistable { dir: &'static str, message: String },
    /// A file the safe reader refuses (a FIFO or device, a link out of the bundle, a file over
    /// the size limit).
    #[error(transparent)]
    Refused(#[from] crate::fsutil::InputError),
    #[error("no bundle objects found")]
    NoObjects,
    #[error("no csv in bundle")]
    NoCsv,
    /// A CSV-less bundle with errors: its error findings, joined.
    #[error("invalid {media_type} bundle: {problems}")]
    InvalidCsvLess {
        media_type: &'static str,
        problems: String,
    },
    /// A plain+v0 bundle without `metadata/bundle.yaml`.
    #[error(
        "plain+v0 bundle without {file}: rendering needs the bundle's name and version from it"
    )]
    PlainWithoutMetadata { file: &'static str },
    /// A CRD that does not decode.
    #[error("error decoding {version} CRD: {source}")]
    Crd {
        version: String,
        #[source]
        source: CrdError,
    },
    #[error("error checking provided apis in bundle {bundle}: {source}")]
    ProvidedApis {
        bundle: String,
        #[source]
        source: CsvError,
    },
    #[error("Could not find annotations file")]
    NoAnnotations,
    #[error("failed to derive properties: {0}")]
    DeriveProperties(#[source] CsvError),
    #[error("get properties for bundle {}: {source}", go_quote(.bundle))]
    Properties {
        bundle: String,
        #[source]
        source: CsvError,
    },
    #[error("get related images for bundle {}: {source}", go_quote(.bundle))]
    RelatedImages {
        bundle: String,
        #[source]
        source: CsvError,
    },
    /// The first `olm.package` property does not decode (for the image template).
    #[error(transparent)]
    PackageProperty(GoJsonError),
}

/// Why a CRD does not decode as Kubernetes' CustomResourceDefinition.
#[derive(Debug, thiserror::Error)]
pub enum CrdError {
    #[error("no kind \"CustomResourceDefinition\" is registered for version \"{0}\" in scheme")]
    NotRegistered(String),
    #[error(transparent)]
    Decode(#[from] GoJsonError),
}

/// Why the CSV (or a property) does not give what parsing or rendering reads from it.
#[derive(Debug, thiserror::Error)]
pub enum CsvError {
    /// No `spec` (upstream decodes empty raw JSON).
    #[error("unexpected end of JSON input")]
    NoSpec,
    #[error(transparent)]
    Decode(#[from] GoJsonError),
    #[error("release field must be a string or number")]
    Release,
    #[error("couldn't parse plural.group from crd name: {0}")]
    CrdName(String),
    /// An owned CRD no CRD manifest provides; `found` lists the provided APIs as Go prints the
    /// map.
    #[error("couldn't find {missing} in bundle. found: map[{found}]")]
    NotProvided { missing: String, found: String },
    #[error("error unmarshaling into object map: {0}")]
    ObjectMap(#[source] Box<CsvError>),
    #[error("error getting apiservice definitions: {0}")]
    ApiServices(#[source] Box<CsvError>),
    #[error("get version: {0}")]
    Version(#[source] Box<CsvError>),
    #[error("get release: {0}")]
    ReleaseOf(#[source] Box<CsvError>),
    #[error("get required apis: {0}")]
    RequiredApis(#[source] Box<CsvError>),
    /// A property (or dependency) of the bundle whose value does not decode.
    #[error("parse property[{index}] of type {}: {source}", go_quote(.kind))]
    Property {
        index: usize,
        kind: String,
        #[source]
        source: GoJsonError,
    },
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
    /// among them, unless the bundle is plain+v0).
    pub(crate) objects: Vec<Manifest>,
    /// Where the CSV is.
    pub(crate) identity: Identity,
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
        self.identity.csv(&self.objects)
    }

    /// The manifest objects in file order (keys sorted at every level).
    pub fn objects(&self) -> &[Manifest] {
        &self.objects
    }

    /// The objects in the order OLM applies them ([`applied_order`]; plain+v0: file order).
    pub fn applied(&self) -> Vec<&Manifest> {
        match self.identity {
            Identity::Csv(index) => applied_order(
                &self.objects[index],
                self.objects
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != index)
                    .map(|(_, m)| m),
            ),
            Identity::Plain(_) => self.objects.iter().collect(),
        }
    }

    /// The template fields. Fails like upstream when the first `olm.package`
    /// property does not decode (the message is the decoding error; upstream
    /// wraps it as `failed templating image reference from bundle for
    /// "<dir>": <message>`).
    pub fn template_fields(&self) -> Result<TemplateFields, BundleDirError> {
        let version = match self.properties.iter().find(|p| p.kind == "olm.package") {
            Some(p) => gojson::decode_strings(p.value.as_deref(), &property_list::PACKAGE)
                .map_err(BundleDirError::PackageProperty)?
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

/// What names a bundle: its CSV (an index into the objects), or for plain+v0 the name and
/// version of its `bundle.yaml` as the CSV fields parsing and rendering read
/// (`{"metadata": {"name"}, "spec": {"version"}}`).
#[derive(Debug, Clone)]
pub(crate) enum Identity {
    Csv(usize),
    Plain(Value),
}

impl Identity {
    /// The CSV among `objects`, or the plain+v0 stand-in.
    pub(crate) fn csv<'a>(&'a self, objects: &'a [Manifest]) -> &'a Value {
        match self {
            Identity::Csv(index) => &objects[*index].value,
            Identity::Plain(csv) => csv,
        }
    }
}

/// The order OLM applies a bundle's objects in (decisions.md §4): the CRDs, the CSV, then the
/// other objects, each group in the order given.
pub(crate) fn applied_order<'a>(
    csv: &'a Manifest,
    others: impl Iterator<Item = &'a Manifest> + Clone,
) -> Vec<&'a Manifest> {
    let is_crd = |m: &&Manifest| m.kind() == "CustomResourceDefinition";
    let mut out: Vec<&Manifest> = others.clone().filter(is_crd).collect();
    out.push(csv);
    out.extend(others.filter(|m| !is_crd(m)));
    out
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
