//! Catalog templates (`opm alpha render-template`): a small document that
//! names bundle references and, for some kinds, how to wire them into
//! channels, expanded into a whole file-based catalog.
//!
//! Each kind is parsed and checked first (no bundle is rendered for a
//! template that is wrong), then says which bundle references it needs
//! ([`refs`]), and is expanded once every one of them has been rendered
//! (by the caller, concurrently and possibly from a catalog it already
//! has): rendering here never pulls anything.

pub mod basic;
pub mod semver;
pub mod substitutes;

use crate::declcfg::{Bundle, DeclarativeConfig};
use crate::encoding::json::go_quote;
use serde_json::Value;

pub const SCHEMA_BASIC: &str = "olm.template.basic";
pub const SCHEMA_SEMVER: &str = "olm.semver";
pub const SCHEMA_SUBSTITUTES: &str = "olm.template.substitutes";

/// The template kinds, by their `TYPE` argument.
pub const TYPES: &[&str] = &["basic", "semver", "substitutes"];

/// A template kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Basic,
    Semver,
    Substitutes,
}

impl Kind {
    /// The kind a `TYPE` argument names.
    pub fn from_type(name: &str) -> Option<Kind> {
        match name {
            "basic" => Some(Kind::Basic),
            "semver" => Some(Kind::Semver),
            "substitutes" => Some(Kind::Substitutes),
            _ => None,
        }
    }

    /// The kind a `schema` names.
    pub fn from_schema(schema: &str) -> Option<Kind> {
        match schema {
            SCHEMA_BASIC => Some(Kind::Basic),
            SCHEMA_SEMVER => Some(Kind::Semver),
            SCHEMA_SUBSTITUTES => Some(Kind::Substitutes),
            _ => None,
        }
    }
}

/// Why a template cannot be expanded; messages are upstream's, with the
/// prefix its command adds (`rendering template: ...`).
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("auto-detecting template type: {0}")]
    Detect(#[source] DetectError),
    #[error("rendering template: {0}")]
    Basic(#[source] basic::BasicError),
    #[error("rendering template: {0}")]
    Semver(#[source] semver::SemverError),
    #[error("rendering template: {0}")]
    Substitutes(#[source] substitutes::SubstitutesError),
}

/// Why the kind of a template cannot be told from its `schema`.
#[derive(Debug, thiserror::Error)]
pub enum DetectError {
    #[error("decoding template input: {0}")]
    Decode(#[source] DecodeError),
    /// The `schema` field is not a string (the JSON type name).
    #[error("unmarshalling template schema: json: cannot unmarshal {0} into Go struct field .schema of type string")]
    SchemaType(&'static str),
    /// The document is not an object (the JSON type name).
    #[error("unmarshalling template schema: json: cannot unmarshal {0} into Go value of type struct {{ Schema string \"json:\\\"schema\\\"\" }}")]
    NotObject(&'static str),
    #[error("template input missing required 'schema' field")]
    MissingSchema,
    #[error("unknown template schema: {0}")]
    UnknownSchema(String),
}

/// Why the first document of a template stream cannot be decoded.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error(transparent)]
    Stream(#[from] crate::encoding::stream::StreamError),
    /// The stream holds no document.
    #[error("EOF")]
    Empty,
    #[error("json: {0}")]
    Json(#[source] serde_json::Error),
}

/// Why a reference's rendering cannot be looked up.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LookupError {
    /// Rendering the reference failed: the whole chain of its causes.
    #[error("{}", crate::diag::error_chain(std::iter::successors(Some(&**.0 as &(dyn std::error::Error + 'static)), |e| e.source())))]
    Failed(#[source] std::sync::Arc<dyn std::error::Error + Send + Sync>),
    #[error("render reference {}: not rendered: an earlier reference failed", go_quote(.0))]
    NotRendered(String),
}

/// Go's `json.Unmarshal` type errors for the fields of basic and
/// substitutes templates (each carries the JSON type name it found).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnmarshalError {
    #[error("unmarshalling template: json: cannot unmarshal {0} into Go value of type template")]
    NotObject(&'static str),
    #[error("unmarshalling template: json: cannot unmarshal {0} into Go struct field .schema of type string")]
    Schema(&'static str),
    #[error("unmarshalling template: json: cannot unmarshal {0} into Go struct field .entries of type []*declcfg.Meta")]
    Entries(&'static str),
    #[error("unmarshalling template: json: cannot unmarshal {0} into Go struct field SubstitutesTemplateData.substitutions of type []substitutes.Substitute")]
    Substitutions(&'static str),
    #[error("unmarshalling template: json: cannot unmarshal {0} into Go struct field SubstitutesTemplateData.substitutions of type substitutes.Substitute")]
    Substitution(&'static str),
    #[error("unmarshalling template: json: cannot unmarshal {found} into Go struct field Substitute.substitutions.{key} of type string")]
    SubstitutionField {
        key: &'static str,
        found: &'static str,
    },
}

/// Why the entries of a basic or substitutes template are not a catalog.
#[derive(Debug, thiserror::Error)]
pub enum EntriesError {
    /// An entry that is not an object (the JSON type name).
    #[error("json: cannot unmarshal {0} into Go value of type map[string]interface {{}}")]
    NotObject(&'static str),
    #[error(transparent)]
    Blob(#[from] crate::declcfg::decode::DecodeError),
}

/// A bundle reference rendered: its bundles, and for each the CSV it was
/// rendered from (before any migration), for package metadata.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RenderedBundles {
    pub bundles: Vec<Bundle>,
    pub csvs: Vec<Option<Value>>,
}

/// Looks rendered bundle references up (filled by the caller before
/// expanding a template).
pub trait Bundles {
    /// The rendering of `reference`, or why there is none.
    fn get(&self, reference: &str) -> Result<&RenderedBundles, LookupError>;
}

/// The first document of a template stream as JSON (upstream decodes only
/// that one).
///
/// # Errors
/// The decoder's message.
pub fn first_document(bytes: &[u8]) -> Result<Value, DecodeError> {
    let documents = crate::encoding::stream::decode_documents(bytes)?;
    match documents.into_iter().next() {
        None => Err(DecodeError::Empty),
        Some(crate::encoding::stream::Document::Json(text)) => {
            crate::encoding::json::parse_value(text).map_err(DecodeError::Json)
        }
        Some(crate::encoding::stream::Document::Yaml(value)) => Ok(value),
    }
}

/// The kind of template `bytes` hold, from their first document's `schema`.
///
/// # Errors
/// `auto-detecting template type: ...` as upstream says it.
pub fn detect(bytes: &[u8]) -> Result<Kind, TemplateError> {
    detect_kind(bytes).map_err(TemplateError::Detect)
}

fn detect_kind(bytes: &[u8]) -> Result<Kind, DetectError> {
    let document = first_document(bytes).map_err(DetectError::Decode)?;
    let schema = match &document {
        Value::Object(map) => match crate::encoding::json::field(map, "schema") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(DetectError::SchemaType(crate::encoding::json::type_name(
                    other,
                )))
            }
        },
        Value::Null => String::new(),
        other => {
            return Err(DetectError::NotObject(crate::encoding::json::type_name(
                other,
            )))
        }
    };
    if schema.is_empty() {
        return Err(DetectError::MissingSchema);
    }
    Kind::from_schema(&schema).ok_or(DetectError::UnknownSchema(schema))
}

/// A parsed template, ready to say which references it needs.
#[derive(Debug, Clone)]
pub enum Template {
    Basic(basic::Basic),
    Semver(semver::Semver),
    Substitutes(substitutes::Substitutes),
}

impl Template {
    /// Parses and checks the template in `bytes` as `kind`.
    ///
    /// # Errors
    /// `rendering template: ...`.
    pub fn parse(kind: Kind, bytes: &[u8]) -> Result<Template, TemplateError> {
        match kind {
            Kind::Basic => basic::Basic::parse(bytes)
                .map(Template::Basic)
                .map_err(TemplateError::Basic),
            Kind::Semver => semver::Semver::parse(bytes)
                .map(Template::Semver)
                .map_err(TemplateError::Semver),
            Kind::Substitutes => substitutes::Substitutes::parse(bytes)
                .map(Template::Substitutes)
                .map_err(TemplateError::Substitutes),
        }
    }

    /// The bundle references to render, each once, in template order.
    pub fn refs(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        let all = match self {
            Template::Basic(t) => t.refs(),
            Template::Semver(t) => t.refs(),
            Template::Substitutes(t) => t.refs(),
        };
        all.into_iter().filter(|r| seen.insert(r.clone())).collect()
    }

    /// Expands the template with the rendered references.
    ///
    /// # Errors
    /// `rendering template: ...`.
    pub fn expand(self, bundles: &dyn Bundles) -> Result<DeclarativeConfig, TemplateError> {
        match self {
            Template::Basic(t) => t.expand(bundles).map_err(TemplateError::Basic),
            Template::Semver(t) => t.expand(bundles).map_err(TemplateError::Semver),
            Template::Substitutes(t) => t.expand(bundles).map_err(TemplateError::Substitutes),
        }
    }
}

/// The entries of a basic or substitutes template as a catalog (upstream's
/// `declcfg.LoadSlice`): each entry decoded as a catalog blob.
///
/// # Errors
/// The first entry that is not a valid blob.
pub fn load_entries(entries: &[Value]) -> Result<DeclarativeConfig, EntriesError> {
    let mut config = DeclarativeConfig::default();
    for entry in entries {
        let mut value = entry.clone();
        crate::declcfg::load::sort_keys(&mut value);
        if !value.is_object() {
            return Err(EntriesError::NotObject(crate::encoding::json::type_name(
                &value,
            )));
        }
        let blob = crate::declcfg::decode::decode_blob(value, false, None)?;
        config.push(blob);
    }
    Ok(config)
}

/// Go's `%q` of a name.
pub(crate) fn q(text: &str) -> String {
    go_quote(text)
}
