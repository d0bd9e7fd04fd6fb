//! The Go types upstream decodes property values into (`property.GVK`,
//! `property.CSVMetadata`, …), as shapes a JSON value is checked against,
//! with Go's `encoding/json` wording of the first mismatch. Checking needs no
//! copy of the value, so a loader can check a value it is about to leave
//! behind. No I/O.

use crate::property as types;
use serde_json::Value;

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

/// Checks a property value of type `kind` against the Go type upstream
/// decodes it into; values of other types are not checked.
///
/// # Errors
/// Go's wording of the first mismatch.
pub fn check_value(kind: &str, value: &Value) -> Result<(), DecodeProblem> {
    let shape = match kind {
        types::PACKAGE => &PACKAGE,
        types::PACKAGE_REQUIRED => &PACKAGE_REQUIRED,
        types::GVK => &GVK,
        types::GVK_REQUIRED => &GVK_REQUIRED,
        types::BUNDLE_OBJECT => &BUNDLE_OBJECT,
        types::CSV_METADATA => &CSV_METADATA,
        types::CHANNEL => &CHANNEL,
        _ => return Ok(()),
    };
    check(&Shape::Struct(shape), value)
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

/// Decodes base64 as Go's `encoding/json` does for `[]byte`: standard alphabet, padding
/// required, CR and LF ignored, non-zero trailing bits accepted.
/// Checks base64 like Go's decoder and returns the decoded length, without
/// keeping the bytes (validation only needs to know that they decode).
pub fn go_base64(text: &str) -> Result<usize, crate::encoding::base64::CorruptInput> {
    crate::encoding::base64::validate_go(text.as_bytes())
}
