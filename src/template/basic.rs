//! `olm.template.basic`: catalog blobs whose `olm.bundle` entries carry only
//! `schema` and `image`; each such entry is replaced by the bundles its
//! image renders to, everything else passes through.

use super::SCHEMA_BASIC;
use super::{load_entries, q, Bundles, DecodeError, EntriesError, LookupError, UnmarshalError};
use crate::declcfg::DeclarativeConfig;
use crate::encoding::json::field;
use serde_json::Value;

/// Why a basic template cannot be parsed or expanded; messages are upstream's.
#[derive(Debug, thiserror::Error)]
pub enum BasicError {
    #[error("decoding template schema: {0}")]
    Decode(#[source] DecodeError),
    #[error(transparent)]
    Unmarshal(#[from] UnmarshalError),
    #[error("template has unknown schema ({}), should be {}", q(.0), q(SCHEMA_BASIC))]
    UnknownSchema(String),
    #[error(transparent)]
    Entries(#[from] EntriesError),
    #[error("unexpected fields present in basic template bundle")]
    UnexpectedFields,
    #[error(transparent)]
    Lookup(#[from] LookupError),
}

#[derive(Debug, Clone)]
pub struct Basic {
    config: DeclarativeConfig,
}

/// The template's `schema` and `entries` (Go's case-insensitive field match).
pub(super) fn schema_and_entries(document: &Value) -> Result<(String, Vec<Value>), UnmarshalError> {
    let Value::Object(map) = document else {
        return Err(UnmarshalError::NotObject(crate::encoding::json::type_name(
            document,
        )));
    };
    let schema = match field(map, "schema") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(UnmarshalError::Schema(crate::encoding::json::type_name(
                other,
            )))
        }
    };
    let entries = match field(map, "entries") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.clone(),
        Some(other) => {
            return Err(UnmarshalError::Entries(crate::encoding::json::type_name(
                other,
            )))
        }
    };
    Ok((schema, entries))
}

impl Basic {
    pub fn parse(bytes: &[u8]) -> Result<Basic, BasicError> {
        let document = super::first_document(bytes).map_err(BasicError::Decode)?;
        let (schema, entries) = schema_and_entries(&document)?;
        if schema != SCHEMA_BASIC {
            return Err(BasicError::UnknownSchema(schema));
        }
        let config = load_entries(&entries)?;
        for bundle in &config.bundles {
            // Upstream's isBundleTemplate.
            if bundle.image.is_empty()
                || !bundle.package.is_empty()
                || !bundle.properties.is_empty()
                || !bundle.related_images.is_empty()
            {
                return Err(BasicError::UnexpectedFields);
            }
        }
        Ok(Basic { config })
    }

    pub fn refs(&self) -> Vec<String> {
        self.config
            .bundles
            .iter()
            .map(|b| b.image.clone())
            .collect()
    }

    pub fn expand(self, bundles: &dyn Bundles) -> Result<DeclarativeConfig, BasicError> {
        let mut config = self.config;
        let mut out = Vec::new();
        for entry in std::mem::take(&mut config.bundles) {
            out.extend(bundles.get(&entry.image)?.bundles.iter().cloned());
        }
        config.bundles = out;
        Ok(config)
    }
}
