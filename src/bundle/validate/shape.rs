//! Type checks of decoded documents against the few Go structs upstream
//! decodes them into, with the two decoders' error texts:
//!
//! * Go's `encoding/json` (typed CRDs, object metadata): keys match struct
//!   fields case-insensitively, the first type error is reported as
//!   `json: cannot unmarshal number into Go struct field ObjectMeta.metadata.namespace of type string`;
//!   documents that came from YAML had their scalars converted with the
//!   target type in mind, so numbers and booleans are accepted for strings;
//! * apimachinery's unstructured converter (the typed CSV): keys match
//!   exactly, the first problem stops the conversion (`cannot restore slice
//!   from map`, `cannot convert int64 to string`).
//!
//! Only the shape is checked; unknown keys are ignored, as both decoders do.

use crate::encoding::gojson::{self, GoJsonError, Target};
use crate::semver::SemverError;
use serde_json::Value;

/// Why a document does not decode into a Go type, in the words of the
/// decoder that refused it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ShapeError {
    /// Go's `encoding/json`.
    #[error(transparent)]
    Json(#[from] GoJsonError),
    /// The unstructured converter, for a list (`slice`) or map field holding
    /// another kind of value.
    #[error("cannot restore {target} from {found}")]
    Restore {
        target: &'static str,
        found: &'static str,
    },
    /// The unstructured converter, for a struct holding another kind of value.
    #[error("cannot restore struct from: {0}")]
    RestoreStruct(&'static str),
    /// The unstructured converter, for a number in a string or integer field.
    #[error("cannot convert {from} to {to}")]
    Convert { from: &'static str, to: String },
    /// The unstructured converter, for any other primitive mismatch: the
    /// field's kind.
    #[error("unrecognized type: {0}")]
    Unrecognized(&'static str),
    /// A version field (`version.OperatorVersion`, `version.OperatorRelease`)
    /// that blang semver refuses.
    #[error(transparent)]
    Version(#[from] SemverError),
    /// `version.OperatorRelease` holding neither a string nor a number.
    #[error("release field must be a string or number")]
    ReleaseType,
}

/// A Go type, as far as decoding is concerned.
#[derive(Clone, Copy)]
pub(crate) enum Ty {
    /// A string type (`string`, or a named one such as `v1.ResourceScope`).
    Str(&'static str),
    Bool,
    /// An integer type (`int32`, `int64`).
    Int(&'static str),
    /// `interface{}`, `json.RawMessage`, `runtime.RawExtension`: anything.
    Any,
    /// A type with its own JSON decoding: the function returns its error.
    Custom(&'static str, fn(&Value) -> Result<(), ShapeError>),
    List(&'static Ty),
    /// `map[string]T`.
    Map(&'static Ty),
    /// A struct: its Go name (`v1.ObjectMeta`) and JSON fields in Go order.
    /// A field named `""` is embedded (its fields are read from the same object).
    Struct(&'static str, &'static [(&'static str, Ty)]),
}

impl Ty {
    fn go_name(&self) -> String {
        match self {
            Ty::Str(name) | Ty::Int(name) | Ty::Custom(name, _) | Ty::Struct(name, _) => {
                (*name).to_string()
            }
            Ty::Bool => "bool".to_string(),
            Ty::Any => "interface {}".to_string(),
            Ty::List(t) => format!("[]{}", t.go_name()),
            Ty::Map(t) => format!("map[string]{}", t.go_name()),
        }
    }
}

/// Go's `encoding/json` decoding of `value` into `ty`: the first type error.
/// `from_yaml` accepts numbers and booleans for strings (the YAML front end
/// writes them as strings when the target is a string).
pub(crate) fn go_json(value: &Value, ty: &Ty, from_yaml: bool) -> Result<(), ShapeError> {
    let mut first = None;
    json_walk(value, ty, from_yaml, None, &mut first);
    first.map_or(Ok(()), Err)
}

/// Where a Go JSON type error is: the innermost struct and the key path.
struct Place<'a> {
    structure: &'a str,
    path: String,
}

fn json_walk(
    value: &Value,
    ty: &Ty,
    from_yaml: bool,
    place: Option<&Place<'_>>,
    first: &mut Option<ShapeError>,
) {
    if first.is_some() || value.is_null() {
        return;
    }
    let mismatch = |first: &mut Option<ShapeError>| {
        let target = match place {
            Some(p) => Target::field(format!("{}.{}", p.structure, p.path), ty.go_name()),
            None => Target::value(ty.go_name()),
        };
        *first = Some(GoJsonError::mismatch(value, target).into());
    };
    match ty {
        Ty::Any => {}
        Ty::Custom(_, check) => {
            if let Err(e) = check(value) {
                *first = Some(e);
            }
        }
        Ty::Str(_) => match value {
            Value::String(_) => {}
            Value::Number(_) | Value::Bool(_) if from_yaml => {}
            _ => mismatch(first),
        },
        Ty::Bool => {
            if !value.is_boolean() {
                mismatch(first);
            }
        }
        Ty::Int(_) => {
            let ok = matches!(value, Value::Number(n) if n.is_i64() || n.is_u64());
            if !ok {
                mismatch(first);
            }
        }
        Ty::List(elem) => match value {
            Value::Array(items) => {
                for item in items {
                    json_walk(item, elem, from_yaml, place, first);
                }
            }
            _ => mismatch(first),
        },
        Ty::Map(elem) => match value {
            // Go names the map field, not the key, in its messages.
            Value::Object(map) => {
                for item in map.values() {
                    json_walk(item, elem, from_yaml, place, first);
                }
            }
            _ => mismatch(first),
        },
        Ty::Struct(name, fields) => {
            let Value::Object(_) = value else {
                mismatch(first);
                return;
            };
            let short = name.rsplit('.').next().unwrap_or(name);
            struct_fields(value, short, fields, from_yaml, place, first);
        }
    }
}

/// The fields of a struct; embedded structs' fields are promoted, so Go
/// names the outer struct in its messages.
fn struct_fields(
    value: &Value,
    short: &str,
    fields: &[(&str, Ty)],
    from_yaml: bool,
    place: Option<&Place<'_>>,
    first: &mut Option<ShapeError>,
) {
    for (key, field_ty) in fields {
        if key.is_empty() {
            if let Ty::Struct(_, inner) = field_ty {
                struct_fields(value, short, inner, from_yaml, place, first);
            }
            continue;
        }
        if let Some(v) = gojson::field(value, key) {
            let path = match place {
                Some(p) => format!("{}.{key}", p.path),
                None => (*key).to_string(),
            };
            let inner = Place {
                structure: short,
                path,
            };
            json_walk(v, field_ty, from_yaml, Some(&inner), first);
        }
    }
}

/// apimachinery's `FromUnstructured` of `value` into `ty`: the first error.
pub(crate) fn unstructured(value: &Value, ty: &Ty) -> Result<(), ShapeError> {
    if value.is_null() {
        return Ok(());
    }
    match ty {
        Ty::Any => Ok(()),
        Ty::Custom(_, check) => check(value),
        Ty::Str(_) | Ty::Bool | Ty::Int(_) => primitive(value, ty),
        Ty::List(elem) => match value {
            Value::Array(items) => items.iter().try_for_each(|item| unstructured(item, elem)),
            other => Err(ShapeError::Restore {
                target: "slice",
                found: kind(other),
            }),
        },
        Ty::Map(elem) => match value {
            Value::Object(map) => map.values().try_for_each(|item| unstructured(item, elem)),
            other => Err(ShapeError::Restore {
                target: "map",
                found: kind(other),
            }),
        },
        Ty::Struct(_, fields) => {
            let Value::Object(map) = value else {
                return Err(ShapeError::RestoreStruct(kind(value)));
            };
            for (key, field_ty) in *fields {
                if key.is_empty() {
                    unstructured(value, field_ty)?;
                } else if let Some(v) = map.get(*key) {
                    unstructured(v, field_ty)?;
                }
            }
            Ok(())
        }
    }
}

/// Primitive conversion rules of the unstructured converter: strings,
/// booleans, integers and floats do not mix, except integers (and whole
/// floats) into integer fields; an integer into a string field is refused
/// with `cannot convert`, every other mismatch with `unrecognized type`.
fn primitive(value: &Value, ty: &Ty) -> Result<(), ShapeError> {
    let ok = match (value, ty) {
        (Value::String(_), Ty::Str(_)) | (Value::Bool(_), Ty::Bool) => true,
        (Value::Number(n), Ty::Int(_)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    };
    if ok {
        return Ok(());
    }
    let convertible = match (value, ty) {
        (Value::Number(n), Ty::Str(_)) => n.is_i64() || n.is_u64(),
        (Value::Number(_), Ty::Bool) => false,
        (Value::Number(_), Ty::Int(_)) => true,
        _ => false,
    };
    if convertible {
        Err(ShapeError::Convert {
            from: kind(value),
            to: ty.go_name(),
        })
    } else {
        let dest = match ty {
            Ty::Str(_) => "string",
            Ty::Bool => "bool",
            _ => "int",
        };
        Err(ShapeError::Unrecognized(dest))
    }
}

/// The Go kind of a decoded generic value.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "invalid",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "slice",
        Value::Object(_) => "map",
    }
}

/// `metav1.ObjectMeta` (the fields whose type can be wrong in practice).
pub(crate) const OBJECT_META: Ty = Ty::Struct(
    "v1.ObjectMeta",
    &[
        ("name", Ty::Str("string")),
        ("generateName", Ty::Str("string")),
        ("namespace", Ty::Str("string")),
        ("uid", Ty::Str("types.UID")),
        ("resourceVersion", Ty::Str("string")),
        ("generation", Ty::Int("int64")),
        ("labels", Ty::Map(&Ty::Str("string"))),
        ("annotations", Ty::Map(&Ty::Str("string"))),
        ("ownerReferences", Ty::List(&OWNER_REFERENCE)),
        ("finalizers", Ty::List(&Ty::Str("string"))),
    ],
);

const OWNER_REFERENCE: Ty = Ty::Struct(
    "v1.OwnerReference",
    &[
        ("apiVersion", Ty::Str("string")),
        ("kind", Ty::Str("string")),
        ("name", Ty::Str("string")),
        ("uid", Ty::Str("types.UID")),
        ("controller", Ty::Bool),
        ("blockOwnerDeletion", Ty::Bool),
    ],
);

/// `metav1.TypeMeta`.
pub(crate) const TYPE_META: Ty = Ty::Struct(
    "v1.TypeMeta",
    &[
        ("kind", Ty::Str("string")),
        ("apiVersion", Ty::Str("string")),
    ],
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const META: Ty = Ty::Struct("bundle.Meta", &[("", TYPE_META), ("metadata", OBJECT_META)]);

    #[test]
    fn go_json_messages() {
        let v = json!({"kind": "ServiceAccount", "metadata": {"name": "x", "namespace": 5}});
        assert_eq!(
            go_json(&v, &META, false).unwrap_err().to_string(),
            "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.namespace of type string"
        );
        assert!(go_json(&v, &META, true).is_ok());
        let v = json!({"Metadata": {"labels": {"a": []}}});
        assert_eq!(
            go_json(&v, &META, true).unwrap_err().to_string(),
            "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type string"
        );
        let v = json!({"metadata": "x"});
        assert_eq!(
            go_json(&v, &META, true).unwrap_err().to_string(),
            "json: cannot unmarshal string into Go struct field Meta.metadata of type v1.ObjectMeta"
        );
    }

    #[test]
    fn unstructured_messages() {
        let cases = [
            (json!({"metadata": []}), "cannot restore struct from: slice"),
            (
                json!({"metadata": {"labels": "x"}}),
                "cannot restore map from string",
            ),
            (
                json!({"metadata": {"finalizers": {}}}),
                "cannot restore slice from map",
            ),
            (
                json!({"metadata": {"name": 5}}),
                "cannot convert int64 to string",
            ),
            (
                json!({"metadata": {"name": true}}),
                "unrecognized type: string",
            ),
        ];
        for (v, want) in cases {
            assert_eq!(unstructured(&v, &META).unwrap_err().to_string(), want);
        }
        assert!(unstructured(&json!({"metadata": {"generation": 2.0}}), &META).is_ok());
    }
}
