//! ClusterServiceVersion checks: the typed conversion upstream performs
//! first, then operator-framework/api's `ClusterServiceVersionValidator`
//! (name and `replaces` format, example annotations, install modes,
//! `minKubeVersion`, required fields, annotation key case, type meta), in
//! its order and with its messages.
//!
//! Pure: a decoded document in, findings out.

mod schema;
use super::message;
use super::shape;
use crate::bundle::rules::{
    finding, CSV_ANNOTATION_WRONG_CASE, CSV_API_WITHOUT_EXAMPLE, CSV_CONVERSION_FAILED,
    CSV_EXAMPLES_INVALID, CSV_EXAMPLES_MISSING, CSV_EXAMPLE_API_NOT_PROVIDED,
    CSV_INSTALL_MODES_INVALID, CSV_MIN_KUBE_VERSION_INVALID, CSV_MIN_KUBE_VERSION_MISSING,
    CSV_NAME_INVALID, CSV_OWNED_CRD_NAME_INVALID, CSV_REPLACES_INVALID, CSV_REQUIRED_FIELD_MISSING,
    CSV_TYPE_META_MISSING,
};
use crate::diag::Diagnostic;
use crate::encoding::gojson::{go_marshal, GoJsonError, Target};
use crate::encoding::json::go_quote;
use crate::model::dns::{dns1123_subdomain_errors, label_value_errors};
use crate::semver::Version;
use schema::CSV;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Every rule of this module.
pub const RULES: &[&str] = &[
    CSV_CONVERSION_FAILED,
    CSV_NAME_INVALID,
    CSV_REPLACES_INVALID,
    CSV_EXAMPLES_MISSING,
    CSV_EXAMPLES_INVALID,
    CSV_EXAMPLE_API_NOT_PROVIDED,
    CSV_API_WITHOUT_EXAMPLE,
    CSV_OWNED_CRD_NAME_INVALID,
    CSV_INSTALL_MODES_INVALID,
    CSV_MIN_KUBE_VERSION_INVALID,
    CSV_MIN_KUBE_VERSION_MISSING,
    CSV_REQUIRED_FIELD_MISSING,
    CSV_ANNOTATION_WRONG_CASE,
    CSV_TYPE_META_MISSING,
];

const MIN_KUBE_VERSION_WARNING: &str = "csv.Spec.minKubeVersion is not informed. It is \
     recommended you provide this information. Otherwise, it would mean that your operator \
     project can be distributed and installed in any cluster version available, which is not \
     necessarily the case for all projects.";

/// OLM annotation keys whose case matters.
const CASE_SENSITIVE_ANNOTATIONS: &[&str] = &[
    "olm.operatorGroup",
    "olm.operatorNamespace",
    "olm.targetNamespaces",
    "olm.providedAPIs",
    "olm.skipRange",
];

/// Runs the conversion and, when it succeeds, the validator on one CSV
/// document. Findings carry `file`.
pub fn check(csv: &Value, file: &str, out: &mut Vec<Diagnostic>) {
    let mut push = |rule: &'static str, message: String| {
        out.push(finding(rule, message, Some(file.to_string())));
    };
    if let Err(e) = shape::unstructured(csv, &CSV) {
        push(CSV_CONVERSION_FAILED, e.to_string());
        return;
    }
    let name = text(csv, &["metadata", "name"]);
    if let Err(e) = csv_name_format(name) {
        push(
            CSV_NAME_INVALID,
            message::csv(name, &format!("metadata.name {e}")),
        );
    }
    let replaces = text(csv, &["spec", "replaces"]);
    if !replaces.is_empty() {
        if let Err(e) = csv_name_format(replaces) {
            push(
                CSV_REPLACES_INVALID,
                message::csv(name, &format!("spec.replaces {e}")),
            );
        }
    }
    for (rule, msg) in examples(csv, name) {
        push(rule, msg);
    }
    for msg in install_modes(csv, name) {
        push(CSV_INSTALL_MODES_INVALID, msg);
    }
    let min_kube = text(csv, &["spec", "minKubeVersion"]);
    if min_kube.trim().is_empty() {
        push(
            CSV_MIN_KUBE_VERSION_MISSING,
            message::csv(name, MIN_KUBE_VERSION_WARNING),
        );
    } else if Version::parse(min_kube).is_err() {
        push(
            CSV_MIN_KUBE_VERSION_INVALID,
            message::csv(
                name,
                &format!("csv.Spec.MinKubeVersion has an invalid value: {min_kube}"),
            ),
        );
    }
    for msg in required_fields(csv) {
        push(CSV_REQUIRED_FIELD_MISSING, msg);
    }
    for msg in annotation_case(csv, name) {
        push(CSV_ANNOTATION_WRONG_CASE, msg);
    }
    let api_version = text(csv, &["apiVersion"]);
    if api_version
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .is_empty()
    {
        push(
            CSV_TYPE_META_MISSING,
            message::csv(name, "'apiVersion' is missing"),
        );
    }
    if text(csv, &["kind"]).is_empty() {
        push(
            CSV_TYPE_META_MISSING,
            message::csv(name, "'kind' is missing"),
        );
    }
}

/// The string at `path` (exact keys, as the typed CSV reads them), or `""`.
pub(crate) fn text<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    at(v, path).and_then(Value::as_str).unwrap_or_default()
}

pub(crate) fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, key| v.get(key))
}

/// The list at `path`, or an empty one.
pub(crate) fn list<'a>(v: &'a Value, path: &[&str]) -> &'a [Value] {
    at(v, path)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The strings of the list at `path` (other items skipped), or none.
pub(crate) fn strings<'a>(v: &'a Value, path: &[&str]) -> Vec<&'a str> {
    list(v, path).iter().filter_map(Value::as_str).collect()
}

/// The CSV's annotations (string values only).
pub(crate) fn annotations(csv: &Value) -> Vec<(&str, &str)> {
    at(csv, &["metadata", "annotations"])
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.as_str(), s)))
                .collect()
        })
        .unwrap_or_default()
}

/// A CSV name (or `spec.replaces`) that breaks the name rules, with every
/// rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} is invalid: {}", go_quote(.name), .problems.join(","))]
struct NameError {
    name: String,
    problems: Vec<String>,
}

/// The CSV name rules: a DNS-1123 subdomain that is also a valid label value.
fn csv_name_format(name: &str) -> Result<(), NameError> {
    let mut problems = dns1123_subdomain_errors(name);
    problems.extend(label_value_errors(name));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(NameError {
            name: name.to_string(),
            problems,
        })
    }
}

/// Why the example annotation does not give a list of examples.
#[derive(Debug, thiserror::Error)]
enum ExampleError {
    /// Not JSON: the validator's rendering of Go's syntax error, with how
    /// many bytes were read and the text up to them.
    #[error("invalid character at {offset}\n {read}<--(see the invalid character)")]
    Syntax { offset: usize, read: String },
    /// JSON of another shape than a list of objects.
    #[error(transparent)]
    Json(#[from] GoJsonError),
    /// An example without a kind.
    #[error("Object 'Kind' is missing in '{}'", go_marshal(.0))]
    KindMissing(Value),
}

type Found = (&'static str, String);

/// The example annotations (`alm-examples`, else `olm.examples`) against the
/// owned APIs.
fn examples(csv: &Value, name: &str) -> Vec<Found> {
    let mut found = Vec::new();
    let annotations = annotations(csv);
    let raw_annotations = at(csv, &["metadata", "annotations"]).and_then(Value::as_object);
    if raw_annotations.is_none_or(Map::is_empty) {
        found.push((
            CSV_EXAMPLES_MISSING,
            message::csv(name, "annotations not found"),
        ));
        return found;
    }
    let get = |key: &str| annotations.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    let text = match (get("alm-examples"), get("olm.examples")) {
        (None, None) => {
            found.push((
                CSV_EXAMPLES_MISSING,
                message::csv(name, "example annotations not found"),
            ));
            return found;
        }
        (Some(alm), olm) => {
            if olm.is_some() {
                found.push((
                    CSV_EXAMPLES_MISSING,
                    message::csv(
                        name,
                        "both `alm-examples` and `olm.examples` are present. Checking only `alm-examples`",
                    ),
                ));
            }
            alm
        }
        (None, Some(olm)) => olm,
    };
    if let Err(e) = json_syntax(text) {
        found.push((
            CSV_EXAMPLES_INVALID,
            message::api("", Some(&e.to_string()), "invalid example"),
        ));
        return found;
    }
    let parsed = match example_gvks(text) {
        Ok(set) => set,
        Err(e) => {
            found.push((
                CSV_EXAMPLES_INVALID,
                message::api(
                    "",
                    Some(&e.to_string()),
                    "error decoding example CustomResource",
                ),
            ));
            return found;
        }
    };
    let mut provided = BTreeSet::new();
    for owned in list(csv, &["spec", "customresourcedefinitions", "owned"]) {
        let crd_name = text_of(owned, "name");
        let Some((_, group)) = crd_name.split_once('.') else {
            found.push((
                CSV_OWNED_CRD_NAME_INVALID,
                message::api(
                    "",
                    None,
                    &format!("couldn't parse plural.group from crd name: {crd_name}"),
                ),
            ));
            continue;
        };
        provided.insert(Gvk::new(
            group,
            text_of(owned, "version"),
            text_of(owned, "kind"),
        ));
    }
    for owned in list(csv, &["spec", "apiservicedefinitions", "owned"]) {
        provided.insert(Gvk::new(
            text_of(owned, "group"),
            text_of(owned, "version"),
            text_of(owned, "kind"),
        ));
    }
    for example in parsed.difference(&provided) {
        found.push((
            CSV_EXAMPLE_API_NOT_PROVIDED,
            message::api(
                "",
                Some(&example.to_string()),
                "example must have a provided API",
            ),
        ));
    }
    for api in provided.difference(&parsed) {
        found.push((
            CSV_API_WITHOUT_EXAMPLE,
            message::api(
                "",
                Some(&api.to_string()),
                "provided API should have an example annotation",
            ),
        ));
    }
    found
}

fn text_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// A group/version/kind, printed like apimachinery's `GroupVersionKind`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl Gvk {
    pub(crate) fn new(group: &str, version: &str, kind: &str) -> Gvk {
        Gvk {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
        }
    }

    /// From an `apiVersion` (`group/version` or `version`) and a kind.
    pub(crate) fn from_api_version(api_version: &str, kind: &str) -> Gvk {
        match api_version.split_once('/') {
            Some((group, version)) => Gvk::new(group, version, kind),
            None => Gvk::new("", api_version, kind),
        }
    }
}

impl std::fmt::Display for Gvk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}, Kind={}", self.group, self.version, self.kind)
    }
}

/// Go's `json.Unmarshal` syntax check of the examples text, with the
/// validator's rendering of the failure point.
fn json_syntax(text: &str) -> Result<(), ExampleError> {
    if text.is_empty() {
        return Ok(());
    }
    let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) else {
        return Ok(());
    };
    // Go reports how many bytes were read, the offending one included.
    let offset = if e.is_eof() {
        text.len()
    } else {
        let line_start: usize = text
            .split_inclusive('\n')
            .take(e.line().saturating_sub(1))
            .map(str::len)
            .sum();
        (line_start + e.column()).min(text.len())
    };
    let mut end = offset;
    while !text.is_char_boundary(end) {
        end += 1;
    }
    Err(ExampleError::Syntax {
        offset,
        read: text[..end].to_string(),
    })
}

/// The group/version/kinds of the examples, which must be a list of objects
/// that each carry a kind.
fn example_gvks(text: &str) -> Result<BTreeSet<Gvk>, ExampleError> {
    let mut set = BTreeSet::new();
    if text.trim().is_empty() {
        return Ok(set);
    }
    let value: Value = serde_json::from_str(text).map_err(GoJsonError::from)?;
    let items = match value {
        Value::Array(items) => items,
        Value::Null => return Ok(set),
        other => {
            let target = Target::value("[]unstructured.Unstructured");
            return Err(GoJsonError::mismatch(&other, target).into());
        }
    };
    for item in items {
        let Value::Object(map) = &item else {
            if item.is_null() {
                continue;
            }
            let target = Target::value("map[string]interface {}");
            return Err(GoJsonError::mismatch(&item, target).into());
        };
        let kind = map.get("kind").and_then(Value::as_str).unwrap_or_default();
        if kind.is_empty() {
            return Err(ExampleError::KindMissing(item));
        }
        let api_version = map
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        set.insert(Gvk::from_api_version(api_version, kind));
    }
    Ok(set)
}

/// `spec.installModes` rules.
fn install_modes(csv: &Value, name: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let modes = list(csv, &["spec", "installModes"]);
    if modes.is_empty() {
        errs.push(message::csv(name, "install modes not found"));
        return errs;
    }
    let supported = |m: &Value| m.get("supported").and_then(Value::as_bool) == Some(true);
    for webhook in list(csv, &["spec", "webhookdefinitions"]) {
        if webhook
            .get("conversionCRDs")
            .and_then(Value::as_array)
            .is_some_and(|l| !l.is_empty())
        {
            let only_all = modes.iter().all(|m| {
                let all = text_of(m, "type") == "AllNamespaces";
                all == supported(m)
            });
            if !only_all {
                errs.push(message::csv(
                    name,
                    "only AllNamespaces InstallModeType is supported when conversionCRDs is present",
                ));
            }
        }
    }
    if !modes.iter().any(supported) {
        errs.push(message::csv(name, "none of InstallModeTypes are supported"));
    }
    errs
}

/// True when a JSON value decodes to a Go zero value (recursively for
/// objects, which stand for structs here).
fn is_empty(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Bool(b)) => !b,
        Some(Value::Number(n)) => n.as_f64() == Some(0.0),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(m)) => m.values().all(|v| is_empty(Some(v))),
    }
}

/// The validator's walk over the typed CSV: fields whose JSON tag is not
/// `omitempty` must not be zero. Only these are such fields in the CSV type.
fn required_fields(csv: &Value) -> Vec<String> {
    let mut errs = Vec::new();
    let missing =
        |field: &str, what: &str| message::api(field, Some(what), "required field missing");
    if is_empty(csv.get("apiVersion")) && is_empty(csv.get("kind")) {
        errs.push(missing("TypeMeta", "struct"));
    }
    if is_empty(csv.get("metadata")) {
        errs.push(missing("ObjectMeta", "struct"));
    }
    let spec = csv.get("spec");
    if is_empty(spec) {
        errs.push(missing("Spec", "struct"));
        return errs;
    }
    let install = at(csv, &["spec", "install"]);
    if is_empty(install) {
        errs.push(missing("Spec.InstallStrategy", "struct"));
    } else {
        if is_empty(at(csv, &["spec", "install", "strategy"])) {
            errs.push(missing("Spec.InstallStrategy.StrategyName", "field"));
        }
        let strategy_spec = at(csv, &["spec", "install", "spec"]);
        let strategy_empty = ["deployments", "permissions", "clusterPermissions"]
            .iter()
            .all(|k| is_empty(strategy_spec.and_then(|s| s.get(*k))));
        if !strategy_empty && is_empty(strategy_spec.and_then(|s| s.get("deployments"))) {
            errs.push(missing(
                "Spec.InstallStrategy.StrategySpec.DeploymentSpecs",
                "field",
            ));
        }
    }
    if is_empty(at(csv, &["spec", "displayName"])) {
        errs.push(missing("Spec.DisplayName", "field"));
    }
    errs
}

/// Annotation keys that differ only in case from an OLM key (sorted; upstream
/// walks a Go map).
fn annotation_case(csv: &Value, name: &str) -> Vec<String> {
    let mut keys: Vec<&str> = at(csv, &["metadata", "annotations"])
        .and_then(Value::as_object)
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    keys.sort_unstable();
    let mut errs = Vec::new();
    for key in keys {
        if let Some(correct) = CASE_SENSITIVE_ANNOTATIONS
            .iter()
            .find(|c| c.eq_ignore_ascii_case(key))
        {
            if key != *correct {
                errs.push(message::api(
                    "",
                    Some(name),
                    &format!(
                        "provided annotation {key} uses wrong case and should be {correct} instead"
                    ),
                ));
            }
        }
    }
    errs
}

#[cfg(test)]
mod tests;
