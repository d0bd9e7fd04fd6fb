//! Typed decoding of one catalog document (a JSON value) into a [`Blob`].
//!
//! Mirrors upstream's two steps: the generic "meta" unmarshal (case-folded
//! duplicate keys, string `schema`/`package`/`name`) and the typed unmarshal of
//! the four first-class schemas, with Go's case-insensitive field matching and
//! Go's error texts. No I/O.

use super::{
    Blob, Bundle, Channel, ChannelEntry, Deprecation, DeprecationEntry, Icon, Meta, Origin,
    Package, PackageScopedReference, Property, RelatedImage, SCHEMA_BUNDLE, SCHEMA_CHANNEL,
    SCHEMA_DEPRECATIONS, SCHEMA_PACKAGE,
};
use crate::encoding::{base64, json};
use serde_json::{Map, Value};

/// The longest object a message quotes whole.
const MAX_DUMP: usize = 200;

/// A document that is not a valid catalog blob; the message is upstream's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DecodeError {
    pub message: String,
}

impl DecodeError {
    fn new(message: impl Into<String>) -> DecodeError {
        DecodeError {
            message: message.into(),
        }
    }
}

/// Decodes one document. `from_yaml` selects upstream's YAML-path error prefix.
pub fn decode_blob(
    value: Value,
    from_yaml: bool,
    origin: Option<Origin>,
) -> Result<Blob, DecodeError> {
    decode_blob_with(value, from_yaml, origin, true)
}

/// [`decode_blob`] for a document already decoded once, whose bundle objects
/// are known to be valid.
pub fn decode_blob_again(value: Value, origin: Option<Origin>) -> Result<Blob, DecodeError> {
    decode_blob_with(value, false, origin, false)
}

fn decode_blob_with(
    value: Value,
    from_yaml: bool,
    origin: Option<Origin>,
    check_objects: bool,
) -> Result<Blob, DecodeError> {
    // Upstream decodes a document into a generic map through sigs.k8s.io/yaml,
    // whose errors carry this prefix; JSON documents only get it for a
    // non-object value.
    const YAML_PREFIX: &str = "error unmarshaling JSON: while decoding JSON: ";
    let mut map = match value {
        Value::Object(map) => map,
        Value::Null => {
            return Err(DecodeError::new(
                "object '' is missing root schema field".to_string(),
            ))
        }
        other => {
            return Err(DecodeError::new(format!(
                "{YAML_PREFIX}json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                json::type_name(&other)
            )))
        }
    };
    let prefix = if from_yaml { YAML_PREFIX } else { "" };
    check_folded_duplicates(&map).map_err(|m| DecodeError::new(format!("{prefix}{m}")))?;
    let schema =
        meta_string(&map, "schema").map_err(|m| DecodeError::new(format!("{prefix}{m}")))?;
    let package =
        meta_string(&map, "package").map_err(|m| DecodeError::new(format!("{prefix}{m}")))?;
    let name = meta_string(&map, "name").map_err(|m| DecodeError::new(format!("{prefix}{m}")))?;
    if schema.is_empty() {
        let mut text = String::new();
        json::write_compact(&Value::Object(map.clone()), &mut text, true);
        // Upstream dumps the whole object; a large one (a Kubernetes manifest in a catalog
        // directory, say) is cut short and named by its kind and name.
        if text.len() > MAX_DUMP {
            let field = |key: &str| map.get(key).and_then(Value::as_str).unwrap_or("");
            let name = map
                .get("metadata")
                .and_then(|m| m.get("name"))
                .and_then(Value::as_str)
                .unwrap_or(field("name"));
            let mut cut = MAX_DUMP;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            let kind = match field("kind") {
                "" => String::new(),
                kind => format!("{kind} "),
            };
            return Err(DecodeError::new(format!(
                "object '{}…' ({kind}{}, {} bytes) is missing root schema field",
                &text[..cut],
                json::go_quote(name),
                text.len()
            )));
        }
        return Err(DecodeError::new(format!(
            "object '{text}\n' is missing root schema field"
        )));
    }
    match schema.as_str() {
        SCHEMA_PACKAGE => decode_package(&mut map, origin)
            .map(Blob::Package)
            .map_err(|m| DecodeError::new(format!("parse package: {m}"))),
        SCHEMA_CHANNEL => decode_channel(&mut map, origin)
            .map(Blob::Channel)
            .map_err(|m| DecodeError::new(format!("parse channel: {m}"))),
        SCHEMA_BUNDLE => {
            let bundle = decode_bundle(&mut map, origin)
                .map_err(|m| DecodeError::new(format!("parse bundle: {m}")))?;
            if check_objects {
                check_bundle_objects(&bundle)?;
            }
            Ok(Blob::Bundle(bundle))
        }
        SCHEMA_DEPRECATIONS => decode_deprecation(&mut map, origin)
            .map(Blob::Deprecation)
            .map_err(|m| DecodeError::new(format!("parse deprecation: {m}"))),
        _ => Ok(Blob::Other(Meta {
            schema,
            package,
            name,
            blob: Value::Object(map),
            origin,
        })),
    }
}

fn fold(key: &str) -> String {
    key.to_lowercase()
}

/// Upstream rejects any two top-level keys equal under case folding.
fn check_folded_duplicates(map: &Map<String, Value>) -> Result<(), String> {
    if map
        .keys()
        .all(|k| k.bytes().all(|b| !b.is_ascii_uppercase()) && k.is_ascii())
    {
        // All keys already folded and unique: the common case, no allocation.
        return Ok(());
    }
    let mut groups: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for key in map.keys() {
        groups.entry(fold(key)).or_default().push(key);
    }
    let problems: Vec<String> = groups
        .into_iter()
        .filter(|(_, keys)| keys.len() > 1)
        .map(|(folded, mut keys)| {
            keys.sort_unstable();
            format!(
                "duplicate keys for key {}: [{}]",
                json::go_quote(&folded),
                keys.join(" ")
            )
        })
        .collect();
    match problems.len() {
        0 => Ok(()),
        1 => Err(problems.into_iter().next().unwrap_or_default()),
        _ => Err(format!("[{}]", problems.join(", "))),
    }
}

fn take(map: &mut Map<String, Value>, field: &str) -> Option<Value> {
    let key = json::field_key(map, field)?.to_string();
    map.remove(&key)
}

/// `schema`, `package` and `name` of the generic meta: strings or absent.
fn meta_string(map: &Map<String, Value>, field: &str) -> Result<String, String> {
    let Some(key) = json::field_key(map, field) else {
        return Ok(String::new());
    };
    match &map[key] {
        Value::String(s) => Ok(s.clone()),
        // Upstream formats the type with a bool verb (`got %!t(float64=5): 5`); the same
        // facts, readable: the JSON type, then the value.
        other => Err(format!(
            "expected value for key {} to be a string, got {}: {}",
            json::go_quote(field),
            json::type_name(other),
            go_value(other)
        )),
    }
}

/// Go's `%v` of a generic JSON value.
fn go_value(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(go_value).collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k}:{}", go_value(v)))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
    }
}

/// Context of a typed field, for Go's `Go struct field <path> of type <type>`.
struct Field<'a> {
    path: &'a str,
    go_type: &'a str,
}

fn type_error(value: &Value, field: &Field<'_>) -> String {
    format!(
        "json: cannot unmarshal {} into Go struct field {} of type {}",
        json::type_name(value),
        field.path,
        field.go_type
    )
}

fn string_field(map: &mut Map<String, Value>, name: &str, path: &str) -> Result<String, String> {
    match take(map, name) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(type_error(
            &other,
            &Field {
                path,
                go_type: "string",
            },
        )),
    }
}

fn array_field(
    map: &mut Map<String, Value>,
    name: &str,
    field: &Field<'_>,
) -> Result<Option<Vec<Value>>, String> {
    match take(map, name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items)),
        Some(other) => Err(type_error(&other, field)),
    }
}

fn object_item(value: Value, field: &Field<'_>) -> Result<Option<Map<String, Value>>, String> {
    match value {
        Value::Null => Ok(None),
        Value::Object(map) => Ok(Some(map)),
        other => Err(type_error(&other, field)),
    }
}

fn properties_field(map: &mut Map<String, Value>, owner: &str) -> Result<Vec<Property>, String> {
    let path = format!("{owner}.properties");
    let items = array_field(
        map,
        "properties",
        &Field {
            path: &path,
            go_type: "[]property.Property",
        },
    )?;
    let mut properties = Vec::new();
    for item in items.unwrap_or_default() {
        let field = Field {
            path: &path,
            go_type: "property.Property",
        };
        let Some(mut item) = object_item(item, &field)? else {
            properties.push(Property {
                kind: String::new(),
                value: None,
            });
            continue;
        };
        let kind = string_field(&mut item, "type", &format!("{path}.type"))?;
        let value = take(&mut item, "value");
        properties.push(Property { kind, value });
    }
    Ok(properties)
}

fn decode_package(map: &mut Map<String, Value>, origin: Option<Origin>) -> Result<Package, String> {
    let name = string_field(map, "name", "Package.name")?;
    let default_channel = string_field(map, "defaultChannel", "Package.defaultChannel")?;
    let description = string_field(map, "description", "Package.description")?;
    let icon = match take(map, "icon") {
        None | Some(Value::Null) => None,
        Some(Value::Object(mut icon)) => {
            let data = match take(&mut icon, "base64data") {
                None | Some(Value::Null) => None,
                Some(Value::String(text)) => {
                    Some(base64::canonical_go(text).map_err(|e| e.to_string())?)
                }
                Some(other) => {
                    return Err(type_error(
                        &other,
                        &Field {
                            path: "Package.icon.base64data",
                            go_type: "[]uint8",
                        },
                    ))
                }
            };
            let media_type = string_field(&mut icon, "mediatype", "Package.icon.mediatype")?;
            Some(Icon {
                base64: data,
                media_type,
            })
        }
        Some(other) => {
            return Err(type_error(
                &other,
                &Field {
                    path: "Package.icon",
                    go_type: "declcfg.Icon",
                },
            ))
        }
    };
    let properties = properties_field(map, "Package")?;
    Ok(Package {
        name,
        default_channel,
        icon,
        description,
        properties,
        origin,
        deferred: None,
    })
}

fn string_list(value: Value, field: &Field<'_>) -> Result<Vec<String>, String> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::String(s) => Ok(s),
                Value::Null => Ok(String::new()),
                other => Err(type_error(
                    &other,
                    &Field {
                        path: field.path,
                        go_type: "string",
                    },
                )),
            })
            .collect(),
        other => Err(type_error(&other, field)),
    }
}

fn decode_channel(map: &mut Map<String, Value>, origin: Option<Origin>) -> Result<Channel, String> {
    let name = string_field(map, "name", "Channel.name")?;
    let package = string_field(map, "package", "Channel.package")?;
    let entries_field = Field {
        path: "Channel.entries",
        go_type: "[]declcfg.ChannelEntry",
    };
    let entries = match array_field(map, "entries", &entries_field)? {
        None => None,
        Some(items) => {
            let mut entries = Vec::with_capacity(items.len());
            for item in items {
                let field = Field {
                    path: "Channel.entries",
                    go_type: "declcfg.ChannelEntry",
                };
                let Some(mut item) = object_item(item, &field)? else {
                    entries.push(ChannelEntry::default());
                    continue;
                };
                let name = string_field(&mut item, "name", "Channel.entries.name")?;
                let replaces = string_field(&mut item, "replaces", "Channel.entries.replaces")?;
                let skips = match take(&mut item, "skips") {
                    None => Vec::new(),
                    Some(value) => string_list(
                        value,
                        &Field {
                            path: "Channel.entries.skips",
                            go_type: "[]string",
                        },
                    )?,
                };
                let skip_range = string_field(&mut item, "skipRange", "Channel.entries.skipRange")?;
                entries.push(ChannelEntry {
                    name,
                    replaces,
                    skips,
                    skip_range,
                });
            }
            Some(entries)
        }
    };
    let properties = properties_field(map, "Channel")?;
    Ok(Channel {
        name,
        package,
        entries,
        properties,
        origin,
    })
}

fn decode_bundle(map: &mut Map<String, Value>, origin: Option<Origin>) -> Result<Bundle, String> {
    let name = string_field(map, "name", "Bundle.name")?;
    let package = string_field(map, "package", "Bundle.package")?;
    let image = string_field(map, "image", "Bundle.image")?;
    let properties = properties_field(map, "Bundle")?;
    let related_field = Field {
        path: "Bundle.relatedImages",
        go_type: "[]declcfg.RelatedImage",
    };
    let mut related_images = Vec::new();
    for item in array_field(map, "relatedImages", &related_field)?.unwrap_or_default() {
        let field = Field {
            path: "Bundle.relatedImages",
            go_type: "declcfg.RelatedImage",
        };
        let Some(mut item) = object_item(item, &field)? else {
            related_images.push(RelatedImage::default());
            continue;
        };
        let name = string_field(&mut item, "name", "Bundle.relatedImages.name")?;
        let image = string_field(&mut item, "image", "Bundle.relatedImages.image")?;
        related_images.push(RelatedImage { name, image });
    }
    Ok(Bundle {
        name,
        package,
        image,
        properties,
        related_images,
        origin,
        deferred: None,
    })
}

/// Upstream decodes every `olm.bundle.object` while loading, so a bad one
/// fails the load.
fn check_bundle_objects(bundle: &Bundle) -> Result<(), DecodeError> {
    for (index, property) in bundle.properties.iter().enumerate() {
        if property.kind != crate::property::BUNDLE_OBJECT {
            continue;
        }
        if let Err(message) = crate::property::check_bundle_object(property.value.as_ref()) {
            return Err(DecodeError::new(format!(
                "read bundle objects: package {}, bundle {}: parse property at index {index} as bundle object: {message}",
                json::go_quote(&bundle.package),
                json::go_quote(&bundle.name)
            )));
        }
    }
    Ok(())
}

fn decode_deprecation(
    map: &mut Map<String, Value>,
    origin: Option<Origin>,
) -> Result<Deprecation, String> {
    let package = string_field(map, "package", "Deprecation.package")?;
    let field = Field {
        path: "Deprecation.entries",
        go_type: "[]declcfg.DeprecationEntry",
    };
    let entries = match array_field(map, "entries", &field)? {
        None => None,
        Some(items) => {
            let mut entries = Vec::with_capacity(items.len());
            for item in items {
                let field = Field {
                    path: "Deprecation.entries",
                    go_type: "declcfg.DeprecationEntry",
                };
                let Some(mut item) = object_item(item, &field)? else {
                    entries.push(DeprecationEntry::default());
                    continue;
                };
                let reference = match take(&mut item, "reference") {
                    None | Some(Value::Null) => PackageScopedReference::default(),
                    Some(Value::Object(mut reference)) => PackageScopedReference {
                        schema: string_field(
                            &mut reference,
                            "schema",
                            "Deprecation.entries.reference.schema",
                        )?,
                        name: string_field(
                            &mut reference,
                            "name",
                            "Deprecation.entries.reference.name",
                        )?,
                    },
                    Some(other) => {
                        return Err(type_error(
                            &other,
                            &Field {
                                path: "Deprecation.entries.reference",
                                go_type: "declcfg.PackageScopedReference",
                            },
                        ))
                    }
                };
                let message = string_field(&mut item, "message", "Deprecation.entries.message")?;
                entries.push(DeprecationEntry { reference, message });
            }
            Some(entries)
        }
    };
    Ok(Deprecation {
        package,
        entries,
        origin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(value: Value, yaml: bool) -> String {
        decode_blob(value, yaml, None).unwrap_err().message
    }

    #[test]
    fn large_objects_without_schema_are_named_not_dumped() {
        let small = json!({"kind": "ConfigMap", "metadata": {"name": "x"}});
        assert_eq!(
            err(small, false),
            "object '{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}\n' is missing root schema field"
        );
        let large = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"}, "data": {"x": "y".repeat(50_000)}});
        let message = err(large, false);
        assert!(message.starts_with("object '{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\""));
        assert!(
            message.ends_with("…' (ConfigMap \"big\", 50080 bytes) is missing root schema field"),
            "{message}"
        );
        assert!(message.len() < 300);
    }

    #[test]
    fn non_object_documents_are_errors() {
        assert!(err(json!([1, 2]), false).starts_with(
            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array"
        ));
        assert_eq!(
            err(Value::Null, true),
            "object '' is missing root schema field"
        );
    }

    #[test]
    fn folded_duplicates_are_errors() {
        assert_eq!(
            err(json!({"schema": "x.y", "Name": "a", "NAME": "b"}), false),
            r#"duplicate keys for key "name": [NAME Name]"#
        );
    }

    #[test]
    fn non_string_schema_is_an_error() {
        assert!(err(json!({"schema": 5}), true).starts_with(
            r#"error unmarshaling JSON: while decoding JSON: expected value for key "schema" to be a string"#
        ));
    }

    #[test]
    fn missing_schema_quotes_the_blob() {
        assert_eq!(
            err(json!({"name": "foo"}), true),
            "object '{\"name\":\"foo\"}\n' is missing root schema field"
        );
    }

    #[test]
    fn typed_fields_match_case_insensitively() {
        let blob = decode_blob(
            json!({"Schema": "olm.package", "NAME": "foo", "DefaultChannel": "s"}),
            true,
            None,
        )
        .unwrap();
        let Blob::Package(p) = blob else {
            panic!("not a package")
        };
        assert_eq!(p.name, "foo");
        assert_eq!(p.default_channel, "s");
    }

    #[test]
    fn type_mismatch_names_the_field() {
        assert_eq!(
            err(json!({"schema": "olm.channel", "name": "a", "entries": "x"}), false),
            "parse channel: json: cannot unmarshal string into Go struct field Channel.entries of type []declcfg.ChannelEntry"
        );
    }

    #[test]
    fn bad_bundle_object_fails() {
        let message = err(
            json!({"schema": "olm.bundle", "name": "b", "package": "foo",
                   "properties": [{"type": "olm.bundle.object", "value": {"data": "!!"}}]}),
            false,
        );
        assert!(message.starts_with(
            r#"read bundle objects: package "foo", bundle "b": parse property at index 0 as bundle object: illegal base64 data at input byte 0"#
        ), "{message}");
    }
}
