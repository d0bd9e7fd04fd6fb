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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("auto-detecting template type: {0}")]
    Detect(String),
    #[error("rendering template: {0}")]
    Render(String),
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
    /// The rendering of `reference`, or the message of its failure.
    fn get(&self, reference: &str) -> Result<&RenderedBundles, String>;
}

/// The first document of a template stream as JSON (upstream decodes only
/// that one).
///
/// # Errors
/// The decoder's message.
pub fn first_document(bytes: &[u8]) -> Result<Value, String> {
    let documents = crate::encoding::stream::decode_documents(bytes).map_err(|e| e.to_string())?;
    match documents.into_iter().next() {
        None => Err("EOF".to_string()),
        Some(crate::encoding::stream::Document::Json(text)) => {
            crate::encoding::json::parse_value(text).map_err(|e| format!("json: {e}"))
        }
        Some(crate::encoding::stream::Document::Yaml(value)) => Ok(value),
    }
}

/// The kind of template `bytes` hold, from their first document's `schema`.
///
/// # Errors
/// `auto-detecting template type: ...` as upstream says it.
pub fn detect(bytes: &[u8]) -> Result<Kind, TemplateError> {
    let document = first_document(bytes)
        .map_err(|e| TemplateError::Detect(format!("decoding template input: {e}")))?;
    let schema = match &document {
        Value::Object(map) => match crate::encoding::json::field(map, "schema") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(TemplateError::Detect(format!(
                    "unmarshalling template schema: json: cannot unmarshal {} into Go struct field .schema of type string",
                    crate::encoding::json::type_name(other)
                )))
            }
        },
        Value::Null => String::new(),
        other => {
            return Err(TemplateError::Detect(format!(
                "unmarshalling template schema: json: cannot unmarshal {} into Go value of type struct {{ Schema string \"json:\\\"schema\\\"\" }}",
                crate::encoding::json::type_name(other)
            )))
        }
    };
    if schema.is_empty() {
        return Err(TemplateError::Detect(
            "template input missing required 'schema' field".to_string(),
        ));
    }
    Kind::from_schema(&schema)
        .ok_or_else(|| TemplateError::Detect(format!("unknown template schema: {schema}")))
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
            Kind::Basic => basic::Basic::parse(bytes).map(Template::Basic),
            Kind::Semver => semver::Semver::parse(bytes).map(Template::Semver),
            Kind::Substitutes => substitutes::Substitutes::parse(bytes).map(Template::Substitutes),
        }
        .map_err(TemplateError::Render)
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
            Template::Basic(t) => t.expand(bundles),
            Template::Semver(t) => t.expand(bundles),
            Template::Substitutes(t) => t.expand(bundles),
        }
        .map_err(TemplateError::Render)
    }
}

/// The entries of a basic or substitutes template as a catalog (upstream's
/// `declcfg.LoadSlice`): each entry decoded as a catalog blob.
///
/// # Errors
/// The first entry that is not a valid blob.
pub fn load_entries(entries: &[Value]) -> Result<DeclarativeConfig, String> {
    let mut config = DeclarativeConfig::default();
    for entry in entries {
        let mut value = entry.clone();
        crate::declcfg::load::sort_keys(&mut value);
        if !value.is_object() {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                crate::encoding::json::type_name(&value)
            ));
        }
        let blob =
            crate::declcfg::decode::decode_blob(value, false, None).map_err(|e| e.message)?;
        config.push(blob);
    }
    Ok(config)
}

/// Go's `%q` of a name.
pub(crate) fn q(text: &str) -> String {
    go_quote(text)
}
