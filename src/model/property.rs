//! Typed views of bundle properties (`olm.package`, `olm.gvk`, `olm.bundle.object`, …).
//!
//! Each known property type is checked against the shape upstream decodes it into, and a
//! mismatch is worded as Go's `encoding/json` would word it (`json: cannot unmarshal string
//! into Go value of type property.GVK`). No I/O; values are never modified.

use crate::declcfg::Property;
use crate::diag::go_quote;
use crate::property as types;
pub use crate::property::shape::DecodeProblem;
use crate::property::shape::{check_value, go_base64};
use serde_json::Value;

/// The value of an `olm.package` property.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PackageProperty {
    pub package_name: String,
    pub version: String,
    /// Empty when absent.
    pub release: String,
}

/// The value of an `olm.package.required` property.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PackageRequired {
    pub package_name: String,
    pub version_range: String,
}

/// The value of an `olm.gvk` or `olm.gvk.required` property.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Gvk {
    pub group: String,
    pub kind: String,
    pub version: String,
}

/// An `olm.bundle.object` property: the size of its decoded `data`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BundleObject {
    pub size: usize,
}

/// All properties of a bundle, sorted into their known types.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Properties {
    pub packages: Vec<PackageProperty>,
    pub packages_required: Vec<PackageRequired>,
    pub gvks: Vec<Gvk>,
    pub gvks_required: Vec<Gvk>,
    pub bundle_objects: Vec<BundleObject>,
    pub csv_metadatas: Vec<Value>,
    /// `olm.channel` properties: their `channelName`.
    pub channels: Vec<String>,
    pub others: Vec<Property>,
}

/// A property whose value does not decode into its type's shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("parse property[{index}] of type {quoted}: {reason}", quoted = go_quote(kind))]
pub struct ParseError {
    pub index: usize,
    pub kind: String,
    #[source]
    pub reason: DecodeProblem,
}

/// Sorts `properties` into their known types, failing on the first value that does not
/// decode (upstream: `property.Parse`).
///
/// # Errors
/// The index, type and Go wording of the first property whose value does not decode.
pub fn parse(properties: &[Property]) -> Result<Properties, ParseError> {
    let mut out = Properties::default();
    for (index, property) in properties.iter().enumerate() {
        let fail = |reason: DecodeProblem| ParseError {
            index,
            kind: property.kind.clone(),
            reason,
        };
        let Some(value) = property.value.as_ref() else {
            return Err(fail(DecodeProblem::Missing));
        };
        check_value(&property.kind, value).map_err(fail)?;
        match property.kind.as_str() {
            types::PACKAGE => {
                out.packages.push(PackageProperty {
                    package_name: string_field(value, "packageName"),
                    version: string_field(value, "version"),
                    release: string_field(value, "release"),
                });
            }
            types::PACKAGE_REQUIRED => {
                out.packages_required.push(PackageRequired {
                    package_name: string_field(value, "packageName"),
                    version_range: string_field(value, "versionRange"),
                });
            }
            types::GVK | types::GVK_REQUIRED => {
                let gvk = Gvk {
                    group: string_field(value, "group"),
                    kind: string_field(value, "kind"),
                    version: string_field(value, "version"),
                };
                if property.kind == types::GVK {
                    out.gvks.push(gvk);
                } else {
                    out.gvks_required.push(gvk);
                }
            }
            types::BUNDLE_OBJECT => {
                let size = match field(value, "data") {
                    Some(Value::String(text)) => go_base64(text).map_err(|e| fail(e.into()))?,
                    _ => 0,
                };
                out.bundle_objects.push(BundleObject { size });
            }
            types::CSV_METADATA => {
                out.csv_metadatas.push(value.clone());
            }
            types::CHANNEL => {
                out.channels.push(string_field(value, "channelName"));
            }
            _ => out.others.push(property.clone()),
        }
    }
    Ok(out)
}

/// The member of `object` that Go would decode into the field named `name`.
fn field<'a>(value: &'a Value, name: &str) -> Option<&'a Value> {
    crate::encoding::json::field(value.as_object()?, name)
}

fn string_field(value: &Value, name: &str) -> String {
    match field(value, name) {
        Some(Value::String(text)) => text.clone(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn prop(kind: &str, value: Value) -> Property {
        Property::new(kind, value)
    }

    #[test]
    fn parses_known_types() {
        let properties = vec![
            prop(
                types::PACKAGE,
                json!({"packageName": "foo", "version": "1.0.0", "release": "2"}),
            ),
            prop(
                types::GVK,
                json!({"group": "g", "kind": "K", "version": "v1"}),
            ),
            prop(
                types::GVK_REQUIRED,
                json!({"group": "g", "kind": "R", "version": "v1"}),
            ),
            prop(
                types::PACKAGE_REQUIRED,
                json!({"packageName": "bar", "versionRange": ">=1.0.0"}),
            ),
            prop(types::BUNDLE_OBJECT, json!({"data": "eyJhIjoxfQ=="})),
            prop(types::CHANNEL, json!({"channelName": "stable"})),
            prop(
                types::CSV_METADATA,
                json!({"displayName": "Foo", "keywords": ["a"]}),
            ),
            prop("olm.label", json!(["anything", 1])),
        ];
        let parsed = parse(&properties).expect("valid properties");
        assert_eq!(
            parsed.packages,
            vec![PackageProperty {
                package_name: "foo".into(),
                version: "1.0.0".into(),
                release: "2".into()
            }]
        );
        assert_eq!(parsed.gvks.len(), 1);
        assert_eq!(parsed.gvks_required[0].kind, "R");
        assert_eq!(parsed.packages_required[0].version_range, ">=1.0.0");
        assert_eq!(parsed.bundle_objects[0].size, 7);
        assert_eq!(parsed.channels, vec!["stable".to_string()]);
        assert_eq!(parsed.csv_metadatas.len(), 1);
        assert_eq!(parsed.others.len(), 1);
    }

    #[test]
    fn go_json_errors() {
        let cases: Vec<(&str, Property, &str)> = vec![
            (
                "error/gvk-string",
                prop(types::GVK, json!("x")),
                "parse property[0] of type \"olm.gvk\": json: cannot unmarshal string into Go value of type property.GVK",
            ),
            (
                "error/package-required-array",
                prop(types::PACKAGE_REQUIRED, json!([])),
                "parse property[0] of type \"olm.package.required\": json: cannot unmarshal array into Go value of type property.PackageRequired",
            ),
            (
                "error/package-name-number",
                prop(types::PACKAGE, json!({"packageName": 5, "version": "1.0.0"})),
                "parse property[0] of type \"olm.package\": json: cannot unmarshal number into Go struct field Package.packageName of type string",
            ),
            (
                "error/package-name-case-insensitive",
                prop(types::PACKAGE, json!({"PACKAGENAME": true})),
                "parse property[0] of type \"olm.package\": json: cannot unmarshal bool into Go struct field Package.packageName of type string",
            ),
            (
                "error/missing-value",
                Property { kind: "custom".into(), value: None },
                "parse property[0] of type \"custom\": unexpected end of JSON input",
            ),
            (
                "error/bad-base64",
                prop(types::BUNDLE_OBJECT, json!({"data": "!!!!"})),
                "parse property[0] of type \"olm.bundle.object\": illegal base64 data at input byte 0",
            ),
            (
                "error/bundle-object-number",
                prop(types::BUNDLE_OBJECT, json!({"data": 1})),
                "parse property[0] of type \"olm.bundle.object\": json: cannot unmarshal number into Go struct field BundleObject.data of type []uint8",
            ),
            (
                "error/csv-metadata-nested",
                prop(types::CSV_METADATA, json!({"installModes": [{"type": "OwnNamespace", "supported": "yes"}]})),
                "parse property[0] of type \"olm.csv.metadata\": json: cannot unmarshal string into Go struct field InstallMode.installModes.supported of type bool",
            ),
            (
                "error/csv-metadata-map-value",
                prop(types::CSV_METADATA, json!({"annotations": {"a": 1}})),
                "parse property[0] of type \"olm.csv.metadata\": json: cannot unmarshal number into Go struct field CSVMetadata.annotations of type string",
            ),
        ];
        for (name, property, expected) in cases {
            let error = parse(&[property]).expect_err(name);
            assert_eq!(error.to_string(), expected, "{name}");
        }
    }

    #[test]
    fn null_values_decode_to_zero() {
        let parsed = parse(&[prop(types::PACKAGE, Value::Null)]).expect("null is accepted");
        assert_eq!(parsed.packages, vec![PackageProperty::default()]);
    }

    #[test]
    fn index_points_at_failing_property() {
        let properties = vec![
            prop(
                types::PACKAGE,
                json!({"packageName": "foo", "version": "1.0.0"}),
            ),
            prop(types::GVK, json!(1)),
        ];
        assert_eq!(parse(&properties).expect_err("bad gvk").index, 1);
    }

    #[test]
    fn base64_ignores_newlines_and_reports_offsets() {
        assert_eq!(go_base64("YW\r\nJj").expect("valid"), 3);
        assert_eq!(
            go_base64("YW*j").expect_err("bad byte").to_string(),
            "illegal base64 data at input byte 2"
        );
    }
}
