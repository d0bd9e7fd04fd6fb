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

/// Upstream decodes a document into a generic map through sigs.k8s.io/yaml,
/// whose errors carry this prefix; JSON documents only get it for a
/// non-object value.
const YAML_PREFIX: &str = "error unmarshaling JSON: while decoding JSON: ";

/// A document that is not a valid catalog blob; the messages are upstream's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A `null` document.
    #[error("object '' is missing root schema field")]
    Null,
    /// A document that is not an object (the JSON type name).
    #[error(
        "{}json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
        YAML_PREFIX,
        .0
    )]
    NotObject(&'static str),
    /// The generic meta does not decode; a YAML document's message has the
    /// prefix of upstream's YAML path.
    #[error("{}{source}", if *.from_yaml { YAML_PREFIX } else { "" })]
    Meta {
        from_yaml: bool,
        #[source]
        source: FieldError,
    },
    /// No `schema`: the object, compact, as upstream dumps it.
    #[error("object '{0}\n' is missing root schema field")]
    MissingSchema(String),
    /// No `schema` in an object too large to dump whole (a Kubernetes
    /// manifest in a catalog directory, say): its start, kind, name and size.
    #[error(
        "object '{head}…' ({}{}, {size} bytes) is missing root schema field",
        kind_label(.kind),
        json::go_quote(.name)
    )]
    MissingSchemaLarge {
        head: String,
        kind: String,
        name: String,
        size: usize,
    },
    /// A field of a first-class schema (`package`, `channel`, `bundle`,
    /// `deprecation`) has the wrong type or content.
    #[error("parse {schema}: {source}")]
    Schema {
        schema: &'static str,
        #[source]
        source: FieldError,
    },
    /// An `olm.bundle.object` property that does not decode.
    #[error(
        "read bundle objects: package {}, bundle {}: parse property at index {index} as bundle object: {source}",
        json::go_quote(.package),
        json::go_quote(.bundle)
    )]
    BundleObject {
        package: String,
        bundle: String,
        index: usize,
        #[source]
        source: crate::property::BundleObjectError,
    },
}

/// `Kind ` before the name of an object, or nothing without a kind.
fn kind_label(kind: &str) -> String {
    match kind {
        "" => String::new(),
        kind => format!("{kind} "),
    }
}

/// Why a field of a document does not decode, in Go's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    /// Top-level keys equal under case folding: each group's folded key and
    /// its spellings, sorted.
    #[error("{}", duplicate_keys_text(.0))]
    DuplicateKeys(Vec<(String, Vec<String>)>),
    /// `schema`, `package` or `name` of the generic meta is not a string.
    /// Upstream formats the type with a bool verb (`got %!t(float64=5): 5`);
    /// the same facts, readable: the JSON type, then the value.
    #[error(
        "expected value for key {} to be a string, got {json_type}: {value}",
        json::go_quote(.key)
    )]
    MetaNotString {
        key: &'static str,
        json_type: &'static str,
        /// Go's `%v` of the value.
        value: String,
    },
    /// A typed field holds a JSON value of another type.
    #[error("json: cannot unmarshal {json_type} into Go struct field {path} of type {go_type}")]
    Type {
        json_type: &'static str,
        path: &'static str,
        go_type: &'static str,
    },
    /// A package icon's data is not base64.
    #[error(transparent)]
    Base64(#[from] base64::CorruptInput),
}

fn duplicate_keys_text(groups: &[(String, Vec<String>)]) -> String {
    let problems: Vec<String> = groups
        .iter()
        .map(|(folded, keys)| {
            format!(
                "duplicate keys for key {}: [{}]",
                json::go_quote(folded),
                keys.join(" ")
            )
        })
        .collect();
    match problems.as_slice() {
        [one] => one.clone(),
        _ => format!("[{}]", problems.join(", ")),
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
    let mut map = match value {
        Value::Object(map) => map,
        Value::Null => return Err(DecodeError::Null),
        other => return Err(DecodeError::NotObject(json::type_name(&other))),
    };
    let meta = |source| DecodeError::Meta { from_yaml, source };
    check_folded_duplicates(&map).map_err(meta)?;
    let schema = meta_string(&map, "schema").map_err(meta)?;
    let package = meta_string(&map, "package").map_err(meta)?;
    let name = meta_string(&map, "name").map_err(meta)?;
    if schema.is_empty() {
        return Err(missing_schema(map));
    }
    let typed = |schema| move |source| DecodeError::Schema { schema, source };
    match schema.as_str() {
        SCHEMA_PACKAGE => decode_package(&mut map, origin)
            .map(Blob::Package)
            .map_err(typed("package")),
        SCHEMA_CHANNEL => decode_channel(&mut map, origin)
            .map(Blob::Channel)
            .map_err(typed("channel")),
        SCHEMA_BUNDLE => {
            let bundle = decode_bundle(&mut map, origin).map_err(typed("bundle"))?;
            if check_objects {
                check_bundle_objects(&bundle)?;
            }
            Ok(Blob::Bundle(bundle))
        }
        SCHEMA_DEPRECATIONS => decode_deprecation(&mut map, origin)
            .map(Blob::Deprecation)
            .map_err(typed("deprecation")),
        _ => Ok(Blob::Other(Meta {
            schema,
            package,
            name,
            blob: Value::Object(map),
            origin,
        })),
    }
}

/// The error for an object without `schema`: upstream dumps the whole object;
/// a large one is cut short and named by its kind and name.
fn missing_schema(map: Map<String, Value>) -> DecodeError {
    let field = |key: &str| map.get(key).and_then(Value::as_str).unwrap_or("");
    let mut text = String::new();
    json::write_compact(&Value::Object(map.clone()), &mut text, true);
    if text.len() <= MAX_DUMP {
        return DecodeError::MissingSchema(text);
    }
    let name = map
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or(field("name"));
    let mut cut = MAX_DUMP;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    DecodeError::MissingSchemaLarge {
        head: text[..cut].to_string(),
        kind: field("kind").to_string(),
        name: name.to_string(),
        size: text.len(),
    }
}

fn fold(key: &str) -> String {
    key.to_lowercase()
}

/// Upstream rejects any two top-level keys equal under case folding.
fn check_folded_duplicates(map: &Map<String, Value>) -> Result<(), FieldError> {
    if map
        .keys()
        .all(|k| k.bytes().all(|b| !b.is_ascii_uppercase()) && k.is_ascii())
    {
        // All keys already folded and unique: the common case, no allocation.
        return Ok(());
    }
    let mut groups: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for key in map.keys() {
        groups.entry(fold(key)).or_default().push(key.clone());
    }
    let duplicates: Vec<(String, Vec<String>)> = groups
        .into_iter()
        .filter(|(_, keys)| keys.len() > 1)
        .map(|(folded, mut keys)| {
            keys.sort_unstable();
            (folded, keys)
        })
        .collect();
    if duplicates.is_empty() {
        Ok(())
    } else {
        Err(FieldError::DuplicateKeys(duplicates))
    }
}

/// Removes the value of `field`, matched as Go's decoder does: the exact key,
/// else one equal without regard to case.
fn take(map: &mut Map<String, Value>, field: &str) -> Option<Value> {
    if let Some(value) = map.remove(field) {
        return Some(value);
    }
    let key = json::field_key(map, field)?.to_string();
    map.remove(&key)
}

/// `schema`, `package` and `name` of the generic meta: strings or absent.
fn meta_string(map: &Map<String, Value>, field: &'static str) -> Result<String, FieldError> {
    let Some(key) = json::field_key(map, field) else {
        return Ok(String::new());
    };
    match &map[key] {
        Value::String(s) => Ok(s.clone()),
        other => Err(FieldError::MetaNotString {
            key: field,
            json_type: json::type_name(other),
            value: go_value(other),
        }),
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
#[derive(Clone, Copy)]
struct Field {
    path: &'static str,
    go_type: &'static str,
}

impl Field {
    const fn new(path: &'static str, go_type: &'static str) -> Field {
        Field { path, go_type }
    }

    /// The error for `value`, of another type than the field's.
    fn mismatch(self, value: &Value) -> FieldError {
        FieldError::Type {
            json_type: json::type_name(value),
            path: self.path,
            go_type: self.go_type,
        }
    }
}

fn string_field(
    map: &mut Map<String, Value>,
    name: &str,
    path: &'static str,
) -> Result<String, FieldError> {
    match take(map, name) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(Field::new(path, "string").mismatch(&other)),
    }
}

fn array_field(
    map: &mut Map<String, Value>,
    name: &str,
    field: Field,
) -> Result<Option<Vec<Value>>, FieldError> {
    match take(map, name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items)),
        Some(other) => Err(field.mismatch(&other)),
    }
}

fn object_item(value: Value, field: Field) -> Result<Option<Map<String, Value>>, FieldError> {
    match value {
        Value::Null => Ok(None),
        Value::Object(map) => Ok(Some(map)),
        other => Err(field.mismatch(&other)),
    }
}

/// The `properties` of a package, channel or bundle: the field's path, and
/// that of a property's `type`.
fn properties_field(
    map: &mut Map<String, Value>,
    path: &'static str,
    type_path: &'static str,
) -> Result<Vec<Property>, FieldError> {
    let items = array_field(map, "properties", Field::new(path, "[]property.Property"))?;
    let mut properties = Vec::new();
    for item in items.unwrap_or_default() {
        let Some(mut item) = object_item(item, Field::new(path, "property.Property"))? else {
            properties.push(Property {
                kind: String::new(),
                value: None,
            });
            continue;
        };
        let kind = string_field(&mut item, "type", type_path)?;
        let value = take(&mut item, "value");
        properties.push(Property { kind, value });
    }
    Ok(properties)
}

fn decode_package(
    map: &mut Map<String, Value>,
    origin: Option<Origin>,
) -> Result<Package, FieldError> {
    let name = string_field(map, "name", "Package.name")?;
    let default_channel = string_field(map, "defaultChannel", "Package.defaultChannel")?;
    let description = string_field(map, "description", "Package.description")?;
    let icon = match take(map, "icon") {
        None | Some(Value::Null) => None,
        Some(Value::Object(mut icon)) => {
            let data = match take(&mut icon, "base64data") {
                None | Some(Value::Null) => None,
                Some(Value::String(text)) => Some(base64::canonical_go(text)?),
                Some(other) => {
                    return Err(Field::new("Package.icon.base64data", "[]uint8").mismatch(&other))
                }
            };
            let media_type = string_field(&mut icon, "mediatype", "Package.icon.mediatype")?;
            Some(Icon {
                base64: data,
                media_type,
            })
        }
        Some(other) => return Err(Field::new("Package.icon", "declcfg.Icon").mismatch(&other)),
    };
    let properties = properties_field(map, "Package.properties", "Package.properties.type")?;
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

fn string_list(value: Value, field: Field) -> Result<Vec<String>, FieldError> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::String(s) => Ok(s),
                Value::Null => Ok(String::new()),
                other => Err(Field::new(field.path, "string").mismatch(&other)),
            })
            .collect(),
        other => Err(field.mismatch(&other)),
    }
}

fn decode_channel(
    map: &mut Map<String, Value>,
    origin: Option<Origin>,
) -> Result<Channel, FieldError> {
    let name = string_field(map, "name", "Channel.name")?;
    let package = string_field(map, "package", "Channel.package")?;
    let entries_field = Field::new("Channel.entries", "[]declcfg.ChannelEntry");
    let entries = match array_field(map, "entries", entries_field)? {
        None => None,
        Some(items) => {
            let mut entries = Vec::with_capacity(items.len());
            for item in items {
                let field = Field::new("Channel.entries", "declcfg.ChannelEntry");
                let Some(mut item) = object_item(item, field)? else {
                    entries.push(ChannelEntry::default());
                    continue;
                };
                let name = string_field(&mut item, "name", "Channel.entries.name")?;
                let replaces = string_field(&mut item, "replaces", "Channel.entries.replaces")?;
                let skips = match take(&mut item, "skips") {
                    None => Vec::new(),
                    Some(value) => {
                        string_list(value, Field::new("Channel.entries.skips", "[]string"))?
                    }
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
    let properties = properties_field(map, "Channel.properties", "Channel.properties.type")?;
    Ok(Channel {
        name,
        package,
        entries,
        properties,
        origin,
    })
}

fn decode_bundle(
    map: &mut Map<String, Value>,
    origin: Option<Origin>,
) -> Result<Bundle, FieldError> {
    let name = string_field(map, "name", "Bundle.name")?;
    let package = string_field(map, "package", "Bundle.package")?;
    let image = string_field(map, "image", "Bundle.image")?;
    let properties = properties_field(map, "Bundle.properties", "Bundle.properties.type")?;
    let related_field = Field::new("Bundle.relatedImages", "[]declcfg.RelatedImage");
    let mut related_images = Vec::new();
    for item in array_field(map, "relatedImages", related_field)?.unwrap_or_default() {
        let field = Field::new("Bundle.relatedImages", "declcfg.RelatedImage");
        let Some(mut item) = object_item(item, field)? else {
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
        if let Err(source) = crate::property::check_bundle_object(property.value.as_ref()) {
            return Err(DecodeError::BundleObject {
                package: bundle.package.clone(),
                bundle: bundle.name.clone(),
                index,
                source,
            });
        }
    }
    Ok(())
}

fn decode_deprecation(
    map: &mut Map<String, Value>,
    origin: Option<Origin>,
) -> Result<Deprecation, FieldError> {
    let package = string_field(map, "package", "Deprecation.package")?;
    let field = Field::new("Deprecation.entries", "[]declcfg.DeprecationEntry");
    let entries = match array_field(map, "entries", field)? {
        None => None,
        Some(items) => {
            let mut entries = Vec::with_capacity(items.len());
            for item in items {
                let field = Field::new("Deprecation.entries", "declcfg.DeprecationEntry");
                let Some(mut item) = object_item(item, field)? else {
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
                        return Err(Field::new(
                            "Deprecation.entries.reference",
                            "declcfg.PackageScopedReference",
                        )
                        .mismatch(&other))
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
        decode_blob(value, yaml, None).unwrap_err().to_string()
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
