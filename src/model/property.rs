//! Typed views of bundle properties (`olm.package`, `olm.gvk`, `olm.bundle.object`, …).
//!
//! Each known property type is checked against the shape upstream decodes it into, and a
//! mismatch is worded as Go's `encoding/json` would word it (`json: cannot unmarshal string
//! into Go value of type property.GVK`). No I/O; values are never modified.

use crate::declcfg::Property;
use crate::diag::go_quote;
use crate::property as types;
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

/// Why a property value does not decode, in Go's `encoding/json` words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeProblem {
    /// The property has no `value` key.
    #[error("unexpected end of JSON input")]
    Missing,
    /// A JSON value (`string`, `number 300`) where the Go type `target` is expected; `field`
    /// is `Struct.path.to.field` when the value is inside a struct.
    #[error("json: cannot unmarshal {found} into {}", match .field {
        Some(field) => format!("Go struct field {field} of type {target}"),
        None => format!("Go value of type {target}"),
    })]
    Mismatch {
        found: String,
        target: String,
        field: Option<String>,
    },
    /// A `[]byte` field whose base64 does not decode.
    #[error(transparent)]
    Base64(#[from] crate::encoding::base64::CorruptInput),
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
        match property.kind.as_str() {
            types::PACKAGE => {
                check(&Shape::Struct(&PACKAGE), value).map_err(fail)?;
                out.packages.push(PackageProperty {
                    package_name: string_field(value, "packageName"),
                    version: string_field(value, "version"),
                    release: string_field(value, "release"),
                });
            }
            types::PACKAGE_REQUIRED => {
                check(&Shape::Struct(&PACKAGE_REQUIRED), value).map_err(fail)?;
                out.packages_required.push(PackageRequired {
                    package_name: string_field(value, "packageName"),
                    version_range: string_field(value, "versionRange"),
                });
            }
            types::GVK | types::GVK_REQUIRED => {
                let shape = if property.kind == types::GVK {
                    &GVK
                } else {
                    &GVK_REQUIRED
                };
                check(&Shape::Struct(shape), value).map_err(fail)?;
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
                check(&Shape::Struct(&BUNDLE_OBJECT), value).map_err(fail)?;
                let size = match field(value, "data") {
                    Some(Value::String(text)) => go_base64(text).map_err(|e| fail(e.into()))?,
                    _ => 0,
                };
                out.bundle_objects.push(BundleObject { size });
            }
            types::CSV_METADATA => {
                check(&Shape::Struct(&CSV_METADATA), value).map_err(fail)?;
                out.csv_metadatas.push(value.clone());
            }
            types::CHANNEL => {
                check(&Shape::Struct(&CHANNEL), value).map_err(fail)?;
                out.channels.push(string_field(value, "channelName"));
            }
            _ => out.others.push(property.clone()),
        }
    }
    Ok(out)
}

/// The Go type a JSON value is decoded into.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// A string kind, with its Go type name (`string`, `v1alpha1.InstallModeType`).
    Str(&'static str),
    Bool,
    /// `[]byte`: a base64 string (or an array of small numbers).
    Bytes,
    Struct(&'static StructShape),
    /// A slice, with its Go type name and element shape.
    Slice(&'static str, &'static Shape),
    /// A `map[string]…`, with its Go type name and value shape.
    Map(&'static str, &'static Shape),
}

#[derive(Debug)]
struct StructShape {
    /// Qualified Go type name, as printed in errors (`property.GVK`).
    qualified: &'static str,
    /// Bare type name, as printed in `Go struct field <name>.<path>`.
    name: &'static str,
    fields: &'static [(&'static str, Shape)],
}

const STRING: Shape = Shape::Str("string");
const STRINGS: Shape = Shape::Slice("[]string", &STRING);
const STRING_MAP: Shape = Shape::Map("map[string]string", &STRING);

static PACKAGE: StructShape = StructShape {
    qualified: "property.Package",
    name: "Package",
    fields: &[
        ("packageName", STRING),
        ("version", STRING),
        ("release", STRING),
    ],
};
static PACKAGE_REQUIRED: StructShape = StructShape {
    qualified: "property.PackageRequired",
    name: "PackageRequired",
    fields: &[("packageName", STRING), ("versionRange", STRING)],
};
static GVK: StructShape = StructShape {
    qualified: "property.GVK",
    name: "GVK",
    fields: &[("group", STRING), ("kind", STRING), ("version", STRING)],
};
static GVK_REQUIRED: StructShape = StructShape {
    qualified: "property.GVKRequired",
    name: "GVKRequired",
    fields: &[("group", STRING), ("kind", STRING), ("version", STRING)],
};
static BUNDLE_OBJECT: StructShape = StructShape {
    qualified: "property.BundleObject",
    name: "BundleObject",
    fields: &[("data", Shape::Bytes)],
};
static CHANNEL: StructShape = StructShape {
    qualified: "property.Channel",
    name: "Channel",
    fields: &[("channelName", STRING)],
};
static API_SERVICE_DESCRIPTION: StructShape = StructShape {
    qualified: "property.APIServiceDescription",
    name: "APIServiceDescription",
    fields: &[
        ("name", STRING),
        ("group", STRING),
        ("version", STRING),
        ("kind", STRING),
        ("displayName", STRING),
        ("description", STRING),
    ],
};
const API_SERVICE_DESCRIPTIONS: Shape = Shape::Slice(
    "[]property.APIServiceDescription",
    &Shape::Struct(&API_SERVICE_DESCRIPTION),
);
static API_SERVICE_DEFINITIONS: StructShape = StructShape {
    qualified: "property.APIServiceDefinitions",
    name: "APIServiceDefinitions",
    fields: &[
        ("owned", API_SERVICE_DESCRIPTIONS),
        ("required", API_SERVICE_DESCRIPTIONS),
    ],
};
static CRD_DESCRIPTION: StructShape = StructShape {
    qualified: "property.CRDDescription",
    name: "CRDDescription",
    fields: &[
        ("name", STRING),
        ("version", STRING),
        ("kind", STRING),
        ("displayName", STRING),
        ("description", STRING),
    ],
};
const CRD_DESCRIPTIONS: Shape = Shape::Slice(
    "[]property.CRDDescription",
    &Shape::Struct(&CRD_DESCRIPTION),
);
static CUSTOM_RESOURCE_DEFINITIONS: StructShape = StructShape {
    qualified: "property.CustomResourceDefinitions",
    name: "CustomResourceDefinitions",
    fields: &[("owned", CRD_DESCRIPTIONS), ("required", CRD_DESCRIPTIONS)],
};
static INSTALL_MODE: StructShape = StructShape {
    qualified: "v1alpha1.InstallMode",
    name: "InstallMode",
    fields: &[
        ("type", Shape::Str("v1alpha1.InstallModeType")),
        ("supported", Shape::Bool),
    ],
};
static APP_LINK: StructShape = StructShape {
    qualified: "v1alpha1.AppLink",
    name: "AppLink",
    fields: &[("name", STRING), ("url", STRING)],
};
static MAINTAINER: StructShape = StructShape {
    qualified: "v1alpha1.Maintainer",
    name: "Maintainer",
    fields: &[("name", STRING), ("email", STRING)],
};
static GROUP_VERSION_KIND: StructShape = StructShape {
    qualified: "v1.GroupVersionKind",
    name: "GroupVersionKind",
    fields: &[("group", STRING), ("version", STRING), ("kind", STRING)],
};
static CSV_METADATA: StructShape = StructShape {
    qualified: "property.CSVMetadata",
    name: "CSVMetadata",
    fields: &[
        ("annotations", STRING_MAP),
        (
            "apiServiceDefinitions",
            Shape::Struct(&API_SERVICE_DEFINITIONS),
        ),
        (
            "crdDescriptions",
            Shape::Struct(&CUSTOM_RESOURCE_DEFINITIONS),
        ),
        ("description", STRING),
        ("displayName", STRING),
        (
            "installModes",
            Shape::Slice("[]v1alpha1.InstallMode", &Shape::Struct(&INSTALL_MODE)),
        ),
        ("keywords", STRINGS),
        ("labels", STRING_MAP),
        (
            "links",
            Shape::Slice("[]v1alpha1.AppLink", &Shape::Struct(&APP_LINK)),
        ),
        (
            "maintainers",
            Shape::Slice("[]v1alpha1.Maintainer", &Shape::Struct(&MAINTAINER)),
        ),
        ("maturity", STRING),
        ("minKubeVersion", STRING),
        (
            "nativeAPIs",
            Shape::Slice("[]v1.GroupVersionKind", &Shape::Struct(&GROUP_VERSION_KIND)),
        ),
        ("provider", Shape::Struct(&APP_LINK)),
    ],
};

/// Where in the value a decode is happening, for Go's error wording.
#[derive(Default)]
struct Context {
    /// The innermost struct whose field is being decoded.
    struct_name: Option<&'static str>,
    /// JSON names of the fields from the top-level value down.
    path: Vec<&'static str>,
}

impl Context {
    fn mismatch(&self, value: &Value, target: &str) -> DecodeProblem {
        self.mismatch_kind(crate::encoding::json::type_name(value), target)
    }

    fn mismatch_kind(&self, kind: &str, target: &str) -> DecodeProblem {
        DecodeProblem::Mismatch {
            found: kind.to_string(),
            target: target.to_string(),
            field: self
                .struct_name
                .map(|name| format!("{name}.{}", self.path.join("."))),
        }
    }
}

/// Checks `value` against `shape`, returning Go's wording of the first mismatch.
///
/// Go reports the first mismatch in document order; object keys are visited here in
/// sorted order, which only differs when one value has several mismatches.
fn check(shape: &Shape, value: &Value) -> Result<(), DecodeProblem> {
    let mut context = Context::default();
    check_in(shape, value, &mut context)
}

fn check_in(shape: &Shape, value: &Value, context: &mut Context) -> Result<(), DecodeProblem> {
    if value.is_null() {
        // Go leaves the target untouched for `null`.
        return Ok(());
    }
    match shape {
        Shape::Str(target) => match value {
            Value::String(_) => Ok(()),
            _ => Err(context.mismatch(value, target)),
        },
        Shape::Bool => match value {
            Value::Bool(_) => Ok(()),
            _ => Err(context.mismatch(value, "bool")),
        },
        Shape::Bytes => match value {
            Value::String(text) => go_base64(text).map(|_| ()).map_err(DecodeProblem::from),
            Value::Array(items) => {
                for item in items {
                    match item {
                        Value::Number(number) if number.as_u64().is_some_and(|n| n <= 255) => {}
                        Value::Number(number) => {
                            return Err(context.mismatch_kind(&format!("number {number}"), "uint8"))
                        }
                        Value::Null => {}
                        other => return Err(context.mismatch(other, "uint8")),
                    }
                }
                Ok(())
            }
            _ => Err(context.mismatch(value, "[]uint8")),
        },
        Shape::Struct(shape) => {
            let Value::Object(object) = value else {
                return Err(context.mismatch(value, shape.qualified));
            };
            let saved_struct = context.struct_name;
            for (key, item) in object {
                let Some((name, field_shape)) = lookup_field(shape, key) else {
                    continue;
                };
                context.struct_name = Some(shape.name);
                context.path.push(name);
                let result = check_in(field_shape, item, context);
                context.path.pop();
                context.struct_name = saved_struct;
                result?;
            }
            Ok(())
        }
        Shape::Slice(target, element) => {
            let Value::Array(items) = value else {
                return Err(context.mismatch(value, target));
            };
            items
                .iter()
                .try_for_each(|item| check_in(element, item, context))
        }
        Shape::Map(target, element) => {
            let Value::Object(object) = value else {
                return Err(context.mismatch(value, target));
            };
            object
                .values()
                .try_for_each(|item| check_in(element, item, context))
        }
    }
}

/// Go matches object keys to struct fields exactly first, then case-insensitively.
fn lookup_field(shape: &StructShape, key: &str) -> Option<(&'static str, &'static Shape)> {
    shape
        .fields
        .iter()
        .find(|(name, _)| *name == key)
        .or_else(|| {
            shape
                .fields
                .iter()
                .find(|(name, _)| crate::encoding::json::folds_to(key, name))
        })
        .map(|(name, field_shape)| (*name, field_shape))
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

/// Decodes base64 as Go's `encoding/json` does for `[]byte`: standard alphabet, padding
/// required, CR and LF ignored, non-zero trailing bits accepted.
/// Checks base64 like Go's decoder and returns the decoded length, without
/// keeping the bytes (validation only needs to know that they decode).
fn go_base64(text: &str) -> Result<usize, crate::encoding::base64::CorruptInput> {
    crate::encoding::base64::validate_go(text.as_bytes())
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
