//! `opm alpha convert-template basic|substitutes`: a catalog stream (one file
//! or standard input) turned into a template. Every blob becomes an entry as
//! upstream's `Meta` reads it (keys sorted at every level); for a basic
//! template each `olm.bundle` is cut down to `{schema, image}`.

use crate::encoding::json::field;
use crate::encoding::stream::{decode_documents, Document};
use serde_json::{Map, Value};

/// Which template to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Basic,
    Substitutes,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    /// The stream does not split into documents.
    #[error("{0}")]
    Stream(String),
    /// A document that is not a catalog blob (upstream's `Meta` decoding).
    #[error("{0}")]
    Blob(String),
    #[error("parse bundle: {0}")]
    Bundle(String),
}

/// The blobs of a catalog stream, keys sorted, each checked to be an object.
pub fn read_blobs(bytes: &[u8]) -> Result<Vec<Map<String, Value>>, ConvertError> {
    let documents = decode_documents(bytes).map_err(|e| ConvertError::Stream(e.to_string()))?;
    let mut blobs = Vec::with_capacity(documents.len());
    for document in documents {
        let mut value = match document {
            Document::Json(text) => crate::encoding::json::parse_value(text)
                .map_err(|e| ConvertError::Stream(format!("json: {e}")))?,
            Document::Yaml(value) => value,
        };
        crate::declcfg::load::sort_keys(&mut value);
        match value {
            Value::Object(map) => blobs.push(map),
            Value::Null => blobs.push(Map::new()),
            other => {
                return Err(ConvertError::Blob(format!(
                    "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    crate::encoding::json::type_name(&other)
                )))
            }
        }
    }
    Ok(blobs)
}

/// The template for the catalog stream `bytes`, as a JSON value in
/// upstream's key order.
pub fn convert(bytes: &[u8], kind: Kind) -> Result<Value, ConvertError> {
    let mut entries = Vec::new();
    for blob in read_blobs(bytes)? {
        let schema = field(&blob, "schema")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if kind == Kind::Basic && schema == crate::declcfg::SCHEMA_BUNDLE {
            let image = match field(&blob, "image") {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(image)) => image.clone(),
                Some(other) => {
                    return Err(ConvertError::Bundle(format!(
                    "json: cannot unmarshal {} into Go struct field Bundle.image of type string",
                    crate::encoding::json::type_name(other)
                )))
                }
            };
            let mut entry = Map::new();
            entry.insert("schema".to_string(), Value::from(schema));
            entry.insert("image".to_string(), Value::from(image));
            entries.push(Value::Object(entry));
        } else {
            entries.push(Value::Object(blob));
        }
    }
    let mut template = Map::new();
    let schema = match kind {
        Kind::Basic => crate::template::SCHEMA_BASIC,
        Kind::Substitutes => crate::template::SCHEMA_SUBSTITUTES,
    };
    template.insert("schema".to_string(), Value::from(schema));
    template.insert("entries".to_string(), Value::Array(entries));
    if kind == Kind::Substitutes {
        template.insert("substitutions".to_string(), Value::Array(Vec::new()));
    }
    Ok(Value::Object(template))
}

/// Upstream's bytes: `json.MarshalIndent` (4 spaces, HTML escaped) or the
/// same through `JSONToYAML` after `---`, each followed by a newline.
pub fn write(template: &Value, yaml: bool) -> String {
    let mut out = String::new();
    if yaml {
        out.push_str("---\n");
        let mut bytes = Vec::new();
        crate::encoding::yaml_write::write_document(template, &mut bytes);
        out.push_str(&String::from_utf8_lossy(&bytes));
    } else {
        crate::encoding::json::Pretty {
            out: &mut out,
            indent: "    ",
            escape_html: true,
        }
        .value(template, 0);
    }
    out.push('\n');
    out
}
