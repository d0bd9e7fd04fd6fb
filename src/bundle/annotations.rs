//! The annotations file of a bundle's `metadata/` (`{annotations: {<label>: <value>}}`): its
//! labels, and the ways upstream reads it, each kept because each is pinned by its own
//! behaviour:
//!
//! - [`read`]: the first file of `metadata/` whose first document has an `annotations` mapping
//!   (media type detection, the good-practices channel checks);
//! - [`decode_fields`]: a document decoded as upstream's bundle parser does (Go's JSON decoder
//!   into a struct: only the package and channel labels, matched without case);
//! - [`decode_map`]: a document decoded as upstream's format validator does
//!   (`map[string]string`);
//! - [`parse_yaml`]: a file read as `bundle generate` and `bundle build` read it (go-yaml v3).

use crate::bundle::files::BundleDir;
use crate::encoding::gojson::{self, RawDoc, Shape};
use crate::encoding::json::go_quote;
use serde_json::Value;
use std::collections::BTreeMap;

pub const MEDIATYPE_LABEL: &str = "operators.operatorframework.io.bundle.mediatype.v1";
/// The media type key of the CSV-less bundle design (no `.v1`), read as
/// [`MEDIATYPE_LABEL`].
pub const SEED_MEDIATYPE_LABEL: &str = "operators.operatorframework.io.bundle.mediatype";
pub const MANIFESTS_LABEL: &str = "operators.operatorframework.io.bundle.manifests.v1";
pub const METADATA_LABEL: &str = "operators.operatorframework.io.bundle.metadata.v1";
pub const PACKAGE_LABEL: &str = "operators.operatorframework.io.bundle.package.v1";
pub const CHANNELS_LABEL: &str = "operators.operatorframework.io.bundle.channels.v1";
pub const DEFAULT_CHANNEL_LABEL: &str = "operators.operatorframework.io.bundle.channel.default.v1";

/// The `annotations` mapping of the bundle's annotations file.
pub fn read(bundle: &BundleDir) -> Option<serde_json::Map<String, Value>> {
    bundle
        .metadata()
        .entries_or_none()
        .iter()
        .find_map(|entry| {
            let first = entry.documents().ok()?.ok()?.first()?.value().ok()?;
            match first.get("annotations") {
                Some(Value::Object(map)) => Some(map.clone()),
                _ => None,
            }
        })
}

/// The media type label of the bundle's annotations file (the first file of
/// `metadata/`, in name order, whose first document has an `annotations`
/// mapping): the `.v1` key, else the seed's key.
pub fn media_type(bundle: &BundleDir) -> Option<String> {
    let annotations = read(bundle)?;
    [MEDIATYPE_LABEL, SEED_MEDIATYPE_LABEL]
        .iter()
        .find_map(|key| annotations.get(*key).and_then(Value::as_str))
        .map(str::to_string)
}

/// The annotations file's fields.
pub struct Fields {
    pub package: String,
    pub channels: String,
    pub default_channel: String,
}

/// Decodes a document as upstream's annotations file struct; `None` when it
/// fails to decode.
pub(crate) fn decode_fields(doc: &RawDoc) -> Option<Fields> {
    let mut out = Fields {
        package: String::new(),
        channels: String::new(),
        default_channel: String::new(),
    };
    let Some(raw) = gojson::top_field(&doc.text, "annotations").ok()? else {
        return Some(out);
    };
    match gojson::shape(raw.get())? {
        Shape::Null => return Some(out),
        Shape::Object(entries) => {
            for (key, value) in entries {
                let slot = if key.eq_ignore_ascii_case(PACKAGE_LABEL) {
                    &mut out.package
                } else if key.eq_ignore_ascii_case(CHANNELS_LABEL) {
                    &mut out.channels
                } else if key.eq_ignore_ascii_case(DEFAULT_CHANNEL_LABEL) {
                    &mut out.default_channel
                } else {
                    continue;
                };
                if let Some(s) = gojson::string_field(&value, doc.from_yaml, "Annotations").ok()? {
                    *slot = s;
                }
            }
        }
        _ => return None,
    }
    Some(out)
}

/// Decodes a document as upstream's `{annotations: map[string]string}`;
/// `None` when it fails to decode or the map is absent or null.
pub(crate) fn decode_map(doc: &RawDoc) -> Option<BTreeMap<String, String>> {
    let raw = gojson::top_field(&doc.text, "annotations").ok()??;
    let Shape::Object(entries) = gojson::shape(raw.get())? else {
        return None;
    };
    let mut annotations = BTreeMap::new();
    for (key, value) in entries {
        let value = gojson::string_field(&value, doc.from_yaml, "annotations").ok()?;
        annotations.insert(key, value.unwrap_or_default());
    }
    Some(annotations)
}

/// Why an annotations file does not read as go-yaml v3 reads it; `Display` is the decoder's
/// message.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// Aliases that would expand past the bound.
    #[error(transparent)]
    Aliases(#[from] crate::encoding::yaml_read::YamlError),
    /// No document.
    #[error("EOF")]
    Empty,
    #[error(transparent)]
    Yaml(#[from] yaml_serde::Error),
}

/// Reads `{annotations: map[string]string}` from the first YAML document
/// like go-yaml v3: any scalar is taken as its text, null as `""`, a
/// duplicate key is an error; other top-level keys are ignored.
pub fn parse_yaml(bytes: &[u8]) -> Result<BTreeMap<String, String>, ParseError> {
    use serde::de::{Deserialize, Deserializer, Error as _, MapAccess, Visitor};

    struct Entries(Vec<(String, Option<String>)>);
    impl<'de> Deserialize<'de> for Entries {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct EntriesVisitor;
            impl<'de> Visitor<'de> for EntriesVisitor {
                type Value = Entries;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a map of strings")
                }
                fn visit_unit<E: serde::de::Error>(self) -> Result<Entries, E> {
                    Ok(Entries(Vec::new()))
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                    let mut entries: Vec<(String, Option<String>)> = Vec::new();
                    while let Some((key, value)) = map.next_entry::<String, Option<String>>()? {
                        if entries.iter().any(|(k, _)| *k == key) {
                            return Err(A::Error::custom(format!(
                                "mapping key {} already defined",
                                go_quote(&key)
                            )));
                        }
                        entries.push((key, value));
                    }
                    Ok(Entries(entries))
                }
            }
            deserializer.deserialize_any(EntriesVisitor)
        }
    }

    #[derive(serde::Deserialize)]
    struct File {
        #[serde(default)]
        annotations: Option<Entries>,
    }

    // yaml_serde expands aliases without a size bound.
    crate::encoding::yaml_read::check_alias_expansion(bytes)?;
    let text = String::from_utf8_lossy(bytes);
    // An empty document (nothing but blanks and comments) decodes to nothing.
    let empty = text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
    if empty {
        return Ok(BTreeMap::new());
    }
    let first = yaml_serde::Deserializer::from_str(&text)
        .next()
        .ok_or(ParseError::Empty)?;
    let file = Option::<File>::deserialize(first)?;
    Ok(file
        .and_then(|f| f.annotations)
        .map(|entries| {
            entries
                .0
                .into_iter()
                .map(|(k, v)| (k, v.unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default())
}
