//! Kubernetes' generic object-metadata rules (apimachinery
//! `ValidateObjectMeta`), used by the "kubectl-able" check of every manifest
//! that is neither a CSV nor a CRD, and by the CRD checks.
//!
//! Pure functions over decoded documents; no I/O.

use super::message::{aggregate, Bad, FieldError};
use super::shape::{self, ShapeError, Ty};
use crate::encoding::gojson;
use crate::encoding::json::compact;
use crate::model::dns::{label_value_errors, qualified_name_errors};
use serde_json::{Map, Value};

/// Upstream's limit on the total size of an object's annotations.
const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// Finalizers Kubernetes defines without a domain prefix.
const STANDARD_FINALIZERS: &[&str] = &["kubernetes", "orphan", "foregroundDeletion"];

/// The struct upstream decodes a manifest into for this check.
const META: Ty = Ty::Struct(
    "bundle.Meta",
    &[("", shape::TYPE_META), ("metadata", shape::OBJECT_META)],
);

/// apimachinery `ValidateObjectMetaAccessor` for an object that must not be
/// namespaced: `metadata` is the object's (possibly absent) metadata, and
/// `name_errors` the name validator (given the name and whether it is a
/// `generateName` prefix).
pub(crate) fn validate_object_meta(
    metadata: Option<&Value>,
    name_errors: &dyn Fn(&str, bool) -> Vec<String>,
) -> Vec<FieldError> {
    let empty = Value::Object(Map::new());
    let meta = metadata.filter(|m| m.is_object()).unwrap_or(&empty);
    let text = |key: &str| {
        gojson::field(meta, key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let mut errs = Vec::new();
    let generate_name = text("generateName");
    let name = text("name");
    if !generate_name.is_empty() {
        for msg in name_errors(&generate_name, true) {
            errs.push(FieldError::invalid(
                "metadata.generateName",
                Bad::Str(generate_name.clone()),
                msg,
            ));
        }
    }
    if name.is_empty() && generate_name.is_empty() {
        errs.push(FieldError::required(
            "metadata.name",
            "name or generateName is required",
        ));
    } else if !name.is_empty() {
        for msg in name_errors(&name, false) {
            errs.push(FieldError::invalid(
                "metadata.name",
                Bad::Str(name.clone()),
                msg,
            ));
        }
    }
    if !text("namespace").is_empty() {
        errs.push(FieldError::forbidden(
            "metadata.namespace",
            "not allowed on this type",
        ));
    }
    if let Some(generation) = gojson::field(meta, "generation").and_then(Value::as_i64) {
        if generation < 0 {
            errs.push(FieldError::invalid(
                "metadata.generation",
                Bad::Plain(generation.to_string()),
                "must be greater than or equal to 0",
            ));
        }
    }
    errs.extend(labels(gojson::field(meta, "labels")));
    errs.extend(annotations(gojson::field(meta, "annotations")));
    errs.extend(owner_references(gojson::field(meta, "ownerReferences")));
    errs.extend(finalizers(gojson::field(meta, "finalizers")));
    errs
}

/// The entries of a string map, sorted by key (upstream iterates a Go map).
fn string_entries(map: Option<&Value>) -> Vec<(&str, &str)> {
    let mut entries: Vec<(&str, &str)> = map
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    entries.sort_unstable();
    entries
}

fn labels(map: Option<&Value>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (key, value) in string_entries(map) {
        for msg in qualified_name_errors(key) {
            errs.push(FieldError::invalid(
                "metadata.labels",
                Bad::Str(key.into()),
                msg,
            ));
        }
        for msg in label_value_errors(value) {
            errs.push(FieldError::invalid(
                "metadata.labels",
                Bad::Str(value.into()),
                msg,
            ));
        }
    }
    errs
}

fn annotations(map: Option<&Value>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut total = 0;
    for (key, value) in string_entries(map) {
        for msg in qualified_name_errors(&key.to_lowercase()) {
            errs.push(FieldError::invalid(
                "metadata.annotations",
                Bad::Str(key.into()),
                msg,
            ));
        }
        total += key.len() + value.len();
    }
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        errs.push(FieldError {
            path: "metadata.annotations".into(),
            kind: super::message::FieldKind::TooLong,
            detail: format!("must have at most {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"),
        });
    }
    errs
}

fn owner_references(list: Option<&Value>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(items) = list.and_then(Value::as_array) else {
        return errs;
    };
    for item in items {
        let text = |key: &str| {
            gojson::field(item, key)
                .and_then(Value::as_str)
                .unwrap_or_default()
        };
        let api_version = text("apiVersion");
        let version = api_version.rsplit('/').next().unwrap_or_default();
        if version.is_empty() || api_version.matches('/').count() > 1 {
            errs.push(FieldError::invalid(
                "metadata.ownerReferences.apiVersion",
                Bad::Str(api_version.into()),
                "version must not be empty",
            ));
        }
        if text("kind").is_empty() {
            errs.push(FieldError::invalid(
                "metadata.ownerReferences.kind",
                Bad::Str(String::new()),
                "kind must not be empty",
            ));
        }
        if text("name").is_empty() {
            errs.push(FieldError::invalid(
                "metadata.ownerReferences.name",
                Bad::Str(String::new()),
                "name must not be empty",
            ));
        }
        if text("uid").is_empty() {
            errs.push(FieldError::invalid(
                "metadata.ownerReferences.uid",
                Bad::Str(String::new()),
                "uid must not be empty",
            ));
        }
    }
    errs
}

fn finalizers(list: Option<&Value>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(items) = list.and_then(Value::as_array) else {
        return errs;
    };
    let mut seen: Vec<&str> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let name = item.as_str().unwrap_or_default();
        let path = format!("metadata.finalizers[{i}]");
        let problems = qualified_name_errors(name);
        for msg in &problems {
            errs.push(FieldError::invalid(
                &path,
                Bad::Str(name.into()),
                msg.clone(),
            ));
        }
        if problems.is_empty() && !name.contains('/') && !STANDARD_FINALIZERS.contains(&name) {
            errs.push(FieldError::invalid(
                &path,
                Bad::Str(name.into()),
                "name is neither a standard finalizer name nor is it fully qualified",
            ));
        }
        if seen.contains(&name) {
            errs.push(FieldError {
                path: path.clone(),
                kind: super::message::FieldKind::Invalid(Bad::Str(name.into())),
                detail: "duplicate finalizer".into(),
            });
        }
        seen.push(name);
    }
    errs
}

/// Why a manifest is not "kubectl-able", in upstream's words.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MetadataError {
    /// The type and object metadata do not decode.
    #[error(transparent)]
    Decode(#[from] ShapeError),
    /// The metadata breaks the generic rules; `object` is the document's
    /// `kind`, `apiVersion` and `metadata`, which the message shows (a
    /// readable stand-in for upstream's Go dump of them).
    #[error(
        "error validating object metadata: {}. {}",
        aggregate(.errors),
        compact(.object)
    )]
    Invalid {
        errors: Vec<FieldError>,
        object: Value,
    },
}

/// Upstream's "kubectl-able" check of one manifest document: its metadata
/// must decode, and pass the generic rules with no namespace and any name.
pub(crate) fn kubectlable(document: &Value) -> Result<(), MetadataError> {
    // Upstream converts YAML to JSON without a target type here, so a
    // number where a string belongs is a type error even in YAML.
    shape::go_json(document, &META, false)?;
    let metadata = gojson::field(document, "metadata");
    let errors = validate_object_meta(metadata, &|_, _| Vec::new());
    if errors.is_empty() {
        return Ok(());
    }
    let mut object = Map::new();
    for key in ["kind", "apiVersion", "metadata"] {
        if let Some(v) = gojson::field(document, key) {
            object.insert(key.to_string(), v.clone());
        }
    }
    Err(MetadataError::Invalid {
        errors,
        object: Value::Object(object),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kubectlable_messages() {
        assert!(
            kubectlable(&json!({"kind": "ConfigMap", "metadata": {"name": "Bad_Name"}})).is_ok()
        );
        let err = kubectlable(&json!({"kind": "ConfigMap", "metadata": {}}))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(
            "error validating object metadata: metadata.name: Required value: name or generateName is required. {"
        ));
        let err =
            kubectlable(&json!({"kind": "Secret", "metadata": {"name": "s", "namespace": "x"}}))
                .unwrap_err()
                .to_string();
        assert!(err.contains("metadata.namespace: Forbidden: not allowed on this type"));
        let err =
            kubectlable(&json!({"kind": "Secret", "metadata": {"name": "s", "namespace": 1}}))
                .unwrap_err()
                .to_string();
        assert_eq!(
            err,
            "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.namespace of type string"
        );
        let err =
            kubectlable(&json!({"kind": "ConfigMap", "metadata": {"labels": {"bad key!": "x"}}}))
                .unwrap_err()
                .to_string();
        assert!(err.contains("[metadata.name: Required value: name or generateName is required, metadata.labels: Invalid value: \"bad key!\": name part must consist of"));
    }
}
