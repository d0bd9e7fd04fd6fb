//! Catalog blobs to the gRPC API's messages, by upstream's rules
//! (`pkg/api/model_to_api.go`): properties without `olm.bundle.object` and
//! `olm.csv.metadata`, dependencies from the required-API and
//! required-package properties, the bundle objects as JSON, and the CSV
//! (found among the objects, or written from `olm.csv.metadata`). No I/O: the
//! package blob, needed only to write a CSV, comes from a callback.

use super::api;
use super::csv::{self, Facts};
use super::index::{Entry, ReadError};
use crate::declcfg::load::sort_keys;
use crate::declcfg::{Bundle, Package, Property};
use crate::encoding::json::{go_quote as q, write_compact};
use crate::encoding::yaml_read::{yaml_bytes_to_json, YamlError};
use crate::model::property;
use serde_json::{Map, Value};

/// Where the bundle is listed.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    pub channel: &'a str,
    pub entry: &'a Entry,
    pub deprecation: Option<&'a str>,
}

/// Whether `csvJson` and `object` are wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Objects {
    Include,
    /// `ListBundles` leaves them out of bundles that have an image.
    OmitWhenImage,
}

/// Why a bundle blob does not convert.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error("package {}, bundle {}: parse properties: {message}", q(.package), q(.bundle))]
    Properties {
        package: String,
        bundle: String,
        message: String,
    },
    #[error("package {}, bundle {}: convert bundle object property at index {index} to JSON: {message}", q(.package), q(.bundle))]
    Object {
        package: String,
        bundle: String,
        index: usize,
        message: String,
    },
    #[error(transparent)]
    Read(#[from] ReadError),
}

/// The API bundle of `blob` as listed at `place`, with upstream's `replaces`
/// and `skips` (callers that answer for one bundle clear them).
pub fn bundle(
    blob: &Bundle,
    place: Place<'_>,
    objects: Objects,
    package: impl FnOnce() -> Result<Package, ReadError>,
) -> Result<api::Bundle, ConvertError> {
    let fail = |message: String| ConvertError::Properties {
        package: blob.package.clone(),
        bundle: blob.name.clone(),
        message,
    };
    let plain: Vec<Property> = blob
        .properties
        .iter()
        .filter(|p| p.kind != crate::property::BUNDLE_OBJECT)
        .cloned()
        .collect();
    let parsed = property::parse(&plain).map_err(|e| fail(e.to_string()))?;
    let [package_property] = parsed.packages.as_slice() else {
        return Err(fail(format!(
            "expected exactly 1 property of type {}, found {}",
            q(crate::property::PACKAGE),
            parsed.packages.len()
        )));
    };
    if parsed.csv_metadatas.len() > 1 {
        return Err(fail(format!(
            "expected at most 1 property of type {}, found {}",
            q(crate::property::CSV_METADATA),
            parsed.csv_metadatas.len()
        )));
    }
    let version = package_property.version.clone();

    let (mut csv_json, mut object) = (String::new(), Vec::new());
    if objects == Objects::Include || blob.image.is_empty() {
        for (index, property) in blob.properties.iter().enumerate() {
            if property.kind != crate::property::BUNDLE_OBJECT {
                continue;
            }
            let object_fail = |message: String| ConvertError::Object {
                package: blob.package.clone(),
                bundle: blob.name.clone(),
                index,
                message,
            };
            let data = crate::property::bundle_object_data(property.value.as_ref())
                .map_err(|e| object_fail(e.to_string()))?;
            object.push(object_json(&data).map_err(|e| object_fail(e.message().to_string()))?);
        }
        if let Some(found) = object.iter().find(|o| is_csv(o)) {
            csv_json.clone_from(found);
        }
        if let (true, [metadata]) = (csv_json.is_empty(), parsed.csv_metadatas.as_slice()) {
            let package = package()?;
            let canonical = crate::semver::Version::parse(&version)
                .map_or_else(|_| version.clone(), |v| v.to_string());
            csv_json = csv::synthesize(
                metadata,
                Facts {
                    name: &blob.name,
                    version: &canonical,
                    icon: package.icon.as_ref(),
                    package_description: &package.description,
                    related_images: &blob.related_images,
                },
            );
            if object.is_empty() {
                object.push(csv_json.clone());
            }
        }
    }

    let mut dependencies = Vec::new();
    let mut required_packages = parsed.packages_required.iter();
    for property in &blob.properties {
        match property.kind.as_str() {
            crate::property::GVK_REQUIRED => dependencies.push(api::Dependency {
                r#type: crate::property::GVK.to_string(),
                value: raw(property),
            }),
            crate::property::PACKAGE_REQUIRED => {
                if let Some(required) = required_packages.next() {
                    let mut value = Map::new();
                    value.insert("packageName".into(), required.package_name.clone().into());
                    value.insert("version".into(), required.version_range.clone().into());
                    let mut text = String::new();
                    write_compact(&Value::Object(value), &mut text, false);
                    dependencies.push(api::Dependency {
                        r#type: crate::property::PACKAGE.to_string(),
                        value: text,
                    });
                }
            }
            _ => {}
        }
    }

    let gvks = |list: &[property::Gvk]| {
        list.iter()
            .map(|gvk| api::GroupVersionKind {
                group: gvk.group.clone(),
                version: gvk.version.clone(),
                kind: gvk.kind.clone(),
                plural: String::new(),
            })
            .collect()
    };
    Ok(api::Bundle {
        csv_name: blob.name.clone(),
        package_name: blob.package.clone(),
        channel_name: place.channel.to_string(),
        csv_json,
        object,
        bundle_path: blob.image.clone(),
        provided_apis: gvks(&parsed.gvks),
        required_apis: gvks(&parsed.gvks_required),
        version,
        skip_range: place.entry.skip_range.clone(),
        dependencies,
        properties: blob
            .properties
            .iter()
            .filter(|p| {
                p.kind != crate::property::BUNDLE_OBJECT && p.kind != crate::property::CSV_METADATA
            })
            .map(|p| api::Property {
                r#type: p.kind.clone(),
                value: raw(p),
            })
            .collect(),
        replaces: place.entry.replaces.clone(),
        skips: place.entry.skips.clone(),
        deprecation: place.deprecation.map(|message| api::Deprecation {
            message: message.to_string(),
        }),
    })
}

/// A property value as upstream holds it: compact JSON, keys sorted, no HTML
/// escaping; empty when the value was absent.
fn raw(property: &Property) -> String {
    let mut text = String::new();
    if let Some(value) = &property.value {
        write_compact(value, &mut text, false);
    }
    text
}

/// Whether a converted object is a ClusterServiceVersion.
fn is_csv(object: &str) -> bool {
    // Objects are compact JSON with sorted keys; a cheap look before parsing.
    if !object.contains("\"kind\":\"ClusterServiceVersion\"") {
        return false;
    }
    serde_json::from_str::<Value>(object).is_ok_and(|value| {
        value.get("kind").and_then(Value::as_str) == Some("ClusterServiceVersion")
    })
}

/// A bundle object's data as upstream's `yaml.ToJSON` gives it: compact,
/// keys sorted, HTML-escaped. JSON whose numbers are all plain integers
/// converts to itself; anything else takes the YAML path.
pub fn object_json(data: &[u8]) -> Result<String, YamlError> {
    let value = match serde_json::from_slice::<Value>(data) {
        Ok(value) if plain_numbers(&value) => value,
        _ => yaml_bytes_to_json(data)?,
    };
    let mut value = value;
    sort_keys(&mut value);
    let mut out = String::with_capacity(data.len());
    write_compact(&value, &mut out, true);
    Ok(out)
}

fn plain_numbers(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            let text = n.to_string();
            text != "-0" && !text.contains(['.', 'e', 'E'])
        }
        Value::Array(items) => items.iter().all(plain_numbers),
        Value::Object(map) => map.values().all(plain_numbers),
        _ => true,
    }
}

/// A JSON object as a `google.protobuf.Struct` (numbers become doubles, as
/// protobuf's JSON reader makes them); `None` for anything but an object.
pub fn to_struct(value: Value) -> Option<prost_types::Struct> {
    match value {
        Value::Object(map) => Some(prost_types::Struct {
            fields: map.into_iter().map(|(k, v)| (k, to_proto(v))).collect(),
        }),
        _ => None,
    }
}

fn to_proto(value: Value) -> prost_types::Value {
    use prost_types::value::Kind;
    let kind = match value {
        Value::Null => Kind::NullValue(0),
        Value::Bool(b) => Kind::BoolValue(b),
        Value::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => Kind::StringValue(s),
        Value::Array(items) => Kind::ListValue(prost_types::ListValue {
            values: items.into_iter().map(to_proto).collect(),
        }),
        Value::Object(map) => Kind::StructValue(prost_types::Struct {
            fields: map.into_iter().map(|(k, v)| (k, to_proto(v))).collect(),
        }),
    };
    prost_types::Value { kind: Some(kind) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_convert_like_yaml_to_json() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "json kept, keys sorted",
                r#"{"b": 1, "a": "<x>"}"#,
                r#"{"a":"\u003cx\u003e","b":1}"#,
            ),
            (
                "floats take go's form",
                r#"{"a": 1.0, "b": 1e3, "c": -0}"#,
                r#"{"a":1,"b":1000,"c":0}"#,
            ),
            (
                "yaml 1.1 scalars",
                "kind: Foo\nspec:\n  n: 010\n  ok: yes\n",
                r#"{"kind":"Foo","spec":{"false":8,"ok":true}}"#,
            ),
            ("empty", "", "null"),
        ];
        for (name, input, want) in cases {
            assert_eq!(
                object_json(input.as_bytes()).as_deref(),
                Ok(*want),
                "{name}"
            );
        }
        assert!(object_json(b"a: [").is_err());
    }

    #[test]
    fn csv_detection() {
        assert!(is_csv(
            r#"{"apiVersion":"v1","kind":"ClusterServiceVersion"}"#
        ));
        assert!(!is_csv(
            r#"{"kind":"CustomResourceDefinition","x":"\"kind\":\"ClusterServiceVersion\""}"#
        ));
    }

    #[test]
    fn structs_from_json() {
        let value = serde_json::json!({"a": [1, "x", null, true], "b": {"c": 2.5}});
        let st = to_struct(value).expect("an object");
        assert_eq!(st.fields.len(), 2);
        assert!(to_struct(serde_json::json!([1])).is_none());
    }
}
