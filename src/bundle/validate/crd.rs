//! CustomResourceDefinition checks: the apiVersion dispatch, the typed
//! decoding, and the Kubernetes API server's CRD validation as
//! operator-framework/api runs it (defaults applied, errors whose field path
//! mentions `openAPIV3Schema` or `status` dropped, so schemas are not checked).
//!
//! The API server rules kept are those that matter for bundles: object
//! metadata (name = `<plural>.<group>`), group, scope, version names,
//! uniqueness and storage, the v1beta1 top-level version, names, printer
//! columns, scale subresource paths, deprecation warnings, conversion
//! settings and `preserveUnknownFields`. Pure: a document in, findings out.

mod schema;
use super::message::{self, Bad, FieldError};
use super::object_meta::validate_object_meta;
use super::shape;
use crate::bundle::rules::{
    finding, CRD_API_VERSION_UNSUPPORTED, CRD_CONVERSION_INVALID, CRD_DECODE_FAILED,
    CRD_GROUP_INVALID, CRD_METADATA_INVALID, CRD_NAMES_INVALID, CRD_PRESERVE_UNKNOWN_FIELDS,
    CRD_SCOPE_INVALID, CRD_V1BETA1_DEPRECATED, CRD_VERSIONS_INVALID, CRD_VERSION_DETAILS_INVALID,
};
use crate::diag::Diagnostic;
use crate::encoding::gojson;
use crate::model::dns::{dns1035_label_errors, dns1123_subdomain_errors};
use schema::{CRD_V1, CRD_V1BETA1};
use serde_json::{json, Value};

/// Every rule of this module.
pub const RULES: &[&str] = &[
    CRD_API_VERSION_UNSUPPORTED,
    CRD_DECODE_FAILED,
    CRD_V1BETA1_DEPRECATED,
    CRD_METADATA_INVALID,
    CRD_GROUP_INVALID,
    CRD_SCOPE_INVALID,
    CRD_VERSIONS_INVALID,
    CRD_NAMES_INVALID,
    CRD_VERSION_DETAILS_INVALID,
    CRD_CONVERSION_INVALID,
    CRD_PRESERVE_UNKNOWN_FIELDS,
];

const V1: &str = "apiextensions.k8s.io/v1";
const V1BETA1: &str = "apiextensions.k8s.io/v1beta1";

const V1BETA1_WARNING: &str = "GroupVersionKind apiextensions.k8s.io/v1beta1, \
     Kind=CustomResourceDefinition was deprecated in Kubernetes 1.16+, removed in 1.22. \
     Support for apiextensions.k8s.io/v1beta1 CustomResourceDefinitions will be removed in the \
     future in favor of apiextensions.k8s.io/v1 CustomResourceDefinitions.";

const SCOPES: &[&str] = &["Cluster", "Namespaced"];
const STRATEGIES: &[&str] = &["None", "Webhook"];
const COLUMN_TYPES: &str = "boolean,date,integer,number,string";
const COLUMN_FORMATS: &str = "byte,date,date-time,double,float,int32,int64,password";
const CONVERSION_REVIEW_VERSIONS: &[&str] = &["v1", "v1beta1"];

/// The CRD's `apiVersion`, when it is one upstream understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CrdVersion {
    V1,
    V1beta1,
}

/// Checks one CRD document (`from_yaml`: it came from a YAML document).
pub fn check(doc: &Value, from_yaml: bool, file: &str, out: &mut Vec<Diagnostic>) {
    let mut push = |rule: &'static str, message: String| {
        out.push(finding(rule, message, Some(file.to_string())));
    };
    let api_version = doc
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let version = match api_version {
        V1 => CrdVersion::V1,
        V1BETA1 => CrdVersion::V1beta1,
        other => {
            push(
                CRD_API_VERSION_UNSUPPORTED,
                format!("Unsupported api version of CRD: {other}"),
            );
            return;
        }
    };
    if let Err(e) = decode(doc, version, from_yaml) {
        push(CRD_DECODE_FAILED, e.to_string());
        return;
    }
    if version == CrdVersion::V1beta1 {
        push(CRD_V1BETA1_DEPRECATED, V1BETA1_WARNING.to_string());
    }
    for (rule, error) in validate(doc, version) {
        if error.path.contains("openAPIV3Schema") || error.path.contains("status") {
            continue;
        }
        push(
            rule,
            message::api(&error.path, Some(&error.bad_value()), &error.message()),
        );
    }
}

/// The typed decoding upstream performs (Go `encoding/json` rules; YAML
/// documents go through the YAML front end first, whose prefix the message
/// keeps).
pub(crate) fn decode(
    doc: &Value,
    version: CrdVersion,
    from_yaml: bool,
) -> Result<(), CrdDecodeError> {
    let ty = match version {
        CrdVersion::V1 => &CRD_V1,
        CrdVersion::V1beta1 => &CRD_V1BETA1,
    };
    shape::go_json(doc, ty, from_yaml).map_err(|source| CrdDecodeError { from_yaml, source })
}

/// Why a CRD does not decode into the typed CRD: the decoder's error, behind
/// the YAML front end's prefix when the document was YAML.
#[derive(Debug, thiserror::Error)]
#[error(
    "{}{source}",
    if *.from_yaml { "error unmarshaling JSON: while decoding JSON: " } else { "" }
)]
pub(crate) struct CrdDecodeError {
    from_yaml: bool,
    #[source]
    source: shape::ShapeError,
}

fn get<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    gojson::field(v, key)
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    get(v, key).and_then(Value::as_str).unwrap_or_default()
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    get(v, key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

type Rule = &'static str;

/// The API server's CRD validation on the defaulted CRD.
fn validate(doc: &Value, version: CrdVersion) -> Vec<(Rule, FieldError)> {
    let null = Value::Null;
    let spec = get(doc, "spec").unwrap_or(&null);
    let names = get(spec, "names").unwrap_or(&null);
    let group = text(spec, "group");
    let kind = text(names, "kind");
    let plural = text(names, "plural");
    let singular = match text(names, "singular") {
        "" => kind.to_lowercase(),
        s => s.to_string(),
    };
    let list_kind = match text(names, "listKind") {
        "" if !kind.is_empty() => format!("{kind}List"),
        s => s.to_string(),
    };
    let mut errs: Vec<(Rule, FieldError)> = Vec::new();

    let required_name = format!("{plural}.{group}");
    let name_errors = |name: &str, _prefix: bool| {
        let mut msgs = dns1123_subdomain_errors(name);
        if name != required_name {
            msgs.push("must be spec.names.plural+\".\"+spec.group".to_string());
        }
        msgs
    };
    for e in validate_object_meta(get(doc, "metadata"), &name_errors) {
        errs.push((CRD_METADATA_INVALID, e));
    }

    if group.is_empty() {
        errs.push((CRD_GROUP_INVALID, FieldError::required("spec.group", "")));
    } else {
        let problems = dns1123_subdomain_errors(group);
        if !problems.is_empty() {
            errs.push((
                CRD_GROUP_INVALID,
                FieldError::invalid("spec.group", Bad::Str(group.into()), problems.join(",")),
            ));
        } else if group.split('.').count() < 2 {
            errs.push((
                CRD_GROUP_INVALID,
                FieldError::invalid(
                    "spec.group",
                    Bad::Str(group.into()),
                    "should be a domain with at least one dot",
                ),
            ));
        }
    }

    let scope = match (text(spec, "scope"), version) {
        ("", CrdVersion::V1beta1) => "Namespaced",
        (s, _) => s,
    };
    if scope.is_empty() {
        errs.push((CRD_SCOPE_INVALID, FieldError::required("spec.scope", "")));
    } else if !SCOPES.contains(&scope) {
        errs.push((
            CRD_SCOPE_INVALID,
            FieldError::unsupported("spec.scope", Bad::Str(scope.into()), SCOPES),
        ));
    }

    let versions = defaulted_versions(spec, version);
    let top_version = match version {
        CrdVersion::V1beta1 => match text(spec, "version") {
            "" => versions
                .first()
                .map(|v| text(v, "name").to_string())
                .unwrap_or_default(),
            v => v.to_string(),
        },
        CrdVersion::V1 => String::new(),
    };
    versions_rules(&versions, version, &mut errs);
    if version == CrdVersion::V1beta1 {
        per_version_exclusivity(spec, &versions, &mut errs);
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut unique = true;
    let mut storage = 0;
    for v in &versions {
        let name = text(v, "name");
        if seen.contains(&name) {
            unique = false;
        } else {
            seen.push(name);
        }
        if get(v, "storage").and_then(Value::as_bool) == Some(true) {
            storage += 1;
        }
    }
    let versions_value = Bad::Json(Value::Array(versions.clone()));
    if !unique {
        errs.push((
            CRD_VERSIONS_INVALID,
            FieldError::invalid(
                "spec.versions",
                versions_value.clone(),
                "must contain unique version names",
            ),
        ));
    }
    if storage != 1 {
        errs.push((
            CRD_VERSIONS_INVALID,
            FieldError::invalid(
                "spec.versions",
                versions_value,
                "must have exactly one version marked as storage version",
            ),
        ));
    }
    if !top_version.is_empty() {
        let problems = dns1035_label_errors(&top_version);
        if !problems.is_empty() {
            errs.push((
                CRD_VERSIONS_INVALID,
                FieldError::invalid(
                    "spec.version",
                    Bad::Str(top_version.clone()),
                    problems.join(","),
                ),
            ));
        }
        if versions
            .first()
            .is_some_and(|v| text(v, "name") != top_version)
        {
            errs.push((
                CRD_VERSIONS_INVALID,
                FieldError::invalid(
                    "spec.version",
                    Bad::Str(top_version.clone()),
                    "must match the first version in spec.versions",
                ),
            ));
        }
    }

    names_rules(names, plural, &singular, kind, &list_kind, &mut errs);

    if version == CrdVersion::V1beta1 {
        if let Some(sub) = get(spec, "subresources").filter(|v| !v.is_null()) {
            for e in subresources("spec.subresources", sub) {
                errs.push((CRD_VERSION_DETAILS_INVALID, e));
            }
        }
        for (j, col) in list(spec, "additionalPrinterColumns").iter().enumerate() {
            for e in column(&format!("spec.additionalPrinterColumns[{j}]"), col, version) {
                errs.push((CRD_VERSION_DETAILS_INVALID, e));
            }
        }
    }

    // Recorded upstream behaviour: a v1 CRD with a version that carries no
    // schema fails as if `preserveUnknownFields` were true.
    let schemaless = versions.iter().any(|v| {
        get(v, "schema")
            .and_then(|s| get(s, "openAPIV3Schema"))
            .is_none_or(Value::is_null)
    });
    let preserve = match version {
        CrdVersion::V1 => {
            get(spec, "preserveUnknownFields").and_then(Value::as_bool) == Some(true) || schemaless
        }
        CrdVersion::V1beta1 => {
            get(spec, "preserveUnknownFields").and_then(Value::as_bool) != Some(false)
        }
    };
    for e in conversion(spec, version, preserve) {
        errs.push((CRD_CONVERSION_INVALID, e));
    }
    if version == CrdVersion::V1 && preserve {
        errs.push((
            CRD_PRESERVE_UNKNOWN_FIELDS,
            FieldError::invalid(
                "spec.preserveUnknownFields",
                Bad::Plain("true".into()),
                "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
            ),
        ));
    }
    errs
}

/// `spec.versions` after defaulting (a v1beta1 CRD with only `spec.version`
/// gets one served storage version).
fn defaulted_versions(spec: &Value, version: CrdVersion) -> Vec<Value> {
    let versions = list(spec, "versions").to_vec();
    if version == CrdVersion::V1beta1 && versions.is_empty() {
        let name = text(spec, "version");
        if !name.is_empty() {
            return vec![json!({"name": name, "served": true, "storage": true})];
        }
    }
    versions
}

fn versions_rules(versions: &[Value], version: CrdVersion, errs: &mut Vec<(Rule, FieldError)>) {
    for (i, v) in versions.iter().enumerate() {
        let base = format!("spec.versions[{i}]");
        let name = text(v, "name");
        let problems = dns1035_label_errors(name);
        if !problems.is_empty() {
            errs.push((
                CRD_VERSIONS_INVALID,
                FieldError::invalid(
                    format!("{base}.name"),
                    Bad::Str(name.into()),
                    problems.join(","),
                ),
            ));
        }
        let deprecated = get(v, "deprecated").and_then(Value::as_bool) == Some(true);
        if let Some(warning) = get(v, "deprecationWarning").and_then(Value::as_str) {
            let path = format!("{base}.deprecationWarning");
            if !deprecated {
                errs.push((
                    CRD_VERSION_DETAILS_INVALID,
                    FieldError::invalid(
                        &path,
                        Bad::Str(warning.into()),
                        "can only be set for deprecated versions",
                    ),
                ));
            } else if warning.len() > 256 {
                errs.push((
                    CRD_VERSION_DETAILS_INVALID,
                    FieldError {
                        path,
                        kind: message::FieldKind::TooLong,
                        detail: "may not be more than 256 bytes".into(),
                    },
                ));
            }
        }
        if let Some(sub) = get(v, "subresources").filter(|v| !v.is_null()) {
            for e in subresources(&format!("{base}.subresources"), sub) {
                errs.push((CRD_VERSION_DETAILS_INVALID, e));
            }
        }
        for (j, col) in list(v, "additionalPrinterColumns").iter().enumerate() {
            for e in column(
                &format!("{base}.additionalPrinterColumns[{j}]"),
                col,
                version,
            ) {
                errs.push((CRD_VERSION_DETAILS_INVALID, e));
            }
        }
    }
}

/// v1beta1 only (v1 has no top-level fields, and its conversion folds
/// identical per-version values into them): top-level and per-version
/// schema, subresources and columns exclude each other, and per-version
/// values may not all be identical.
fn per_version_exclusivity(spec: &Value, versions: &[Value], errs: &mut Vec<(Rule, FieldError)>) {
    let fields = [
        ("validation", "schema", "schemas", "validation"),
        (
            "subresources",
            "subresources",
            "subresources",
            "subresources",
        ),
        (
            "additionalPrinterColumns",
            "additionalPrinterColumns",
            "additionalPrinterColumns",
            "additionalPrinterColumns",
        ),
    ];
    for (top, per, plural_word, top_word) in fields {
        let per_values: Vec<Option<&Value>> = versions
            .iter()
            .map(|v| get(v, per).filter(|x| !x.is_null() && *x != &json!([])))
            .collect();
        let any = per_values.iter().any(Option::is_some);
        let top_set = get(spec, top).is_some_and(|v| !v.is_null() && v != &json!([]));
        if top_set && any {
            errs.push((
                CRD_VERSION_DETAILS_INVALID,
                FieldError::forbidden(
                    format!("spec.{top}"),
                    format!("top-level and per-version {plural_word} are mutually exclusive"),
                ),
            ));
        }
        let identical = !per_values.is_empty()
            && per_values.iter().all(Option::is_some)
            && per_values.windows(2).all(|w| w[0] == w[1]);
        if identical {
            errs.push((
                CRD_VERSION_DETAILS_INVALID,
                FieldError::invalid(
                    "spec.versions",
                    Bad::Json(Value::Array(versions.to_vec())),
                    format!(
                        "per-version {plural_word} may not all be set to identical values (top-level {top_word} should be used instead)"
                    ),
                ),
            ));
        }
    }
}

fn names_rules(
    names: &Value,
    plural: &str,
    singular: &str,
    kind: &str,
    list_kind: &str,
    errs: &mut Vec<(Rule, FieldError)>,
) {
    for (key, value) in [
        ("plural", plural),
        ("singular", singular),
        ("kind", kind),
        ("listKind", list_kind),
    ] {
        if value.is_empty() {
            errs.push((
                CRD_NAMES_INVALID,
                FieldError::required(format!("spec.names.{key}"), ""),
            ));
        }
    }
    let mut push = |path: String, value: &str, problems: Vec<String>, prefix: &str| {
        if !value.is_empty() && !problems.is_empty() {
            errs.push((
                CRD_NAMES_INVALID,
                FieldError::invalid(
                    path,
                    Bad::Str(value.into()),
                    format!("{prefix}{}", problems.join(",")),
                ),
            ));
        }
    };
    push(
        "spec.names.plural".into(),
        plural,
        dns1035_label_errors(plural),
        "",
    );
    push(
        "spec.names.singular".into(),
        singular,
        dns1035_label_errors(singular),
        "",
    );
    let mixed = "may have mixed case, but should otherwise match: ";
    push(
        "spec.names.kind".into(),
        kind,
        dns1035_label_errors(&kind.to_lowercase()),
        mixed,
    );
    push(
        "spec.names.listKind".into(),
        list_kind,
        dns1035_label_errors(&list_kind.to_lowercase()),
        mixed,
    );
    for (i, short) in list(names, "shortNames").iter().enumerate() {
        let short = short.as_str().unwrap_or_default();
        let problems = dns1035_label_errors(short);
        if !problems.is_empty() {
            push(format!("spec.names.shortNames[{i}]"), short, problems, "");
        }
    }
    if !kind.is_empty() && kind == list_kind {
        errs.push((
            CRD_NAMES_INVALID,
            FieldError::invalid(
                "spec.names.listKind",
                Bad::Str(list_kind.into()),
                "kind and listKind may not be the same",
            ),
        ));
    }
    for (i, category) in list(names, "categories").iter().enumerate() {
        let category = category.as_str().unwrap_or_default();
        let problems = dns1035_label_errors(category);
        if !problems.is_empty() {
            errs.push((
                CRD_NAMES_INVALID,
                FieldError::invalid(
                    format!("spec.names.categories[{i}]"),
                    Bad::Str(category.into()),
                    problems.join(","),
                ),
            ));
        }
    }
}

fn column(base: &str, col: &Value, version: CrdVersion) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if text(col, "name").is_empty() {
        errs.push(FieldError::required(format!("{base}.name"), ""));
    }
    let ty = text(col, "type");
    if ty.is_empty() {
        errs.push(FieldError::required(
            format!("{base}.type"),
            format!("must be one of {COLUMN_TYPES}"),
        ));
    } else if !COLUMN_TYPES.split(',').any(|t| t == ty) {
        errs.push(FieldError::invalid(
            format!("{base}.type"),
            Bad::Str(ty.into()),
            format!("must be one of {COLUMN_TYPES}"),
        ));
    }
    let format = text(col, "format");
    if !format.is_empty() && !COLUMN_FORMATS.split(',').any(|f| f == format) {
        errs.push(FieldError::invalid(
            format!("{base}.format"),
            Bad::Str(format.into()),
            format!("must be one of {COLUMN_FORMATS}"),
        ));
    }
    let path_key = match version {
        CrdVersion::V1 => "jsonPath",
        CrdVersion::V1beta1 => "JSONPath",
    };
    if text(col, path_key).is_empty() {
        errs.push(FieldError::required(format!("{base}.JSONPath"), ""));
    }
    errs
}

fn subresources(base: &str, sub: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let Some(scale) = get(sub, "scale").filter(|v| !v.is_null()) else {
        return errs;
    };
    let path = format!("{base}.scale.specReplicasPath");
    let spec_path = text(scale, "specReplicasPath");
    if spec_path.is_empty() {
        errs.push(FieldError::required(path, ""));
    } else if !spec_path.starts_with(".spec.") {
        errs.push(FieldError::invalid(
            path,
            Bad::Str(spec_path.into()),
            "should be a json path under .spec",
        ));
    }
    let selector = text(scale, "labelSelectorPath");
    if !selector.is_empty() && !selector.starts_with(".spec.") && !selector.starts_with(".status.")
    {
        errs.push(FieldError::invalid(
            format!("{base}.scale.labelSelectorPath"),
            Bad::Str(selector.into()),
            "should be a json path under either .spec or .status",
        ));
    }
    errs
}

/// Conversion settings; `preserve` is the defaulted `preserveUnknownFields`.
fn conversion(spec: &Value, version: CrdVersion, preserve: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let conversion = get(spec, "conversion").filter(|v| !v.is_null());
    let strategy = conversion.map_or("None", |c| text(c, "strategy"));
    let (client_config, review_versions) = match (version, conversion) {
        (_, None) => (None, None),
        (CrdVersion::V1, Some(c)) => {
            let webhook = get(c, "webhook").filter(|v| !v.is_null());
            (
                webhook.and_then(|w| get(w, "clientConfig")),
                webhook.and_then(|w| get(w, "conversionReviewVersions")),
            )
        }
        (CrdVersion::V1beta1, Some(c)) => (
            get(c, "webhookClientConfig"),
            get(c, "conversionReviewVersions"),
        ),
    };
    let client_config = client_config.filter(|v| !v.is_null());
    let mut reviews: Vec<&str> = review_versions
        .and_then(Value::as_array)
        .map(|l| l.iter().map(|v| v.as_str().unwrap_or_default()).collect())
        .unwrap_or_default();
    if version == CrdVersion::V1beta1 && strategy == "Webhook" && reviews.is_empty() {
        reviews.push("v1beta1");
    }
    if strategy.is_empty() {
        errs.push(FieldError::required("spec.conversion.strategy", ""));
    } else if !STRATEGIES.contains(&strategy) {
        errs.push(FieldError::unsupported(
            "spec.conversion.strategy",
            Bad::Str(strategy.into()),
            STRATEGIES,
        ));
    }
    if strategy == "Webhook" {
        match client_config {
            None => errs.push(FieldError::required(
                "spec.conversion.webhookClientConfig",
                "required when strategy is set to Webhook",
            )),
            Some(cc) => errs.extend(client_config_rules(cc)),
        }
        let path = "spec.conversion.conversionReviewVersions";
        if reviews.is_empty() {
            errs.push(FieldError::required(path, ""));
        } else {
            let mut seen: Vec<&str> = Vec::new();
            for (i, v) in reviews.iter().enumerate() {
                if seen.contains(v) {
                    errs.push(FieldError::invalid(
                        format!("{path}[{i}]"),
                        Bad::Str((*v).into()),
                        "duplicate version",
                    ));
                    continue;
                }
                seen.push(v);
                for msg in dns1035_label_errors(v) {
                    errs.push(FieldError::invalid(
                        format!("{path}[{i}]"),
                        Bad::Str((*v).into()),
                        msg,
                    ));
                }
            }
            if !reviews
                .iter()
                .any(|v| CONVERSION_REVIEW_VERSIONS.contains(v))
            {
                errs.push(FieldError::invalid(
                    path,
                    Bad::Json(json!(reviews)),
                    "must include at least one of v1, v1beta1",
                ));
            }
        }
        if preserve {
            errs.push(FieldError::invalid(
                "spec.conversion.strategy",
                Bad::Str(strategy.into()),
                "must be None if spec.preserveUnknownFields is true",
            ));
        }
    } else {
        if client_config.is_some() {
            errs.push(FieldError::forbidden(
                "spec.conversion.webhookClientConfig",
                "should not be set when strategy is not set to Webhook",
            ));
        }
        if !reviews.is_empty() {
            errs.push(FieldError::forbidden(
                "spec.conversion.conversionReviewVersions",
                "should not be set when strategy is not set to Webhook",
            ));
        }
    }
    errs
}

fn client_config_rules(cc: &Value) -> Vec<FieldError> {
    let base = "spec.conversion.webhookClientConfig";
    let mut errs = Vec::new();
    let url = get(cc, "url").filter(|v| !v.is_null());
    let service = get(cc, "service").filter(|v| !v.is_null());
    if url.is_some() == service.is_some() {
        errs.push(FieldError::required(
            format!("{base}.[url, service]"),
            "exactly one of url or service is required",
        ));
    }
    if let Some(service) = service {
        if text(service, "name").is_empty() {
            errs.push(FieldError::required(
                format!("{base}.service.name"),
                "service name is required",
            ));
        }
        if text(service, "namespace").is_empty() {
            errs.push(FieldError::required(
                format!("{base}.service.namespace"),
                "service namespace is required",
            ));
        }
        if let Some(port) = get(service, "port").and_then(Value::as_i64) {
            if !(1..=65535).contains(&port) {
                errs.push(FieldError::invalid(
                    format!("{base}.service.port"),
                    Bad::Plain(port.to_string()),
                    "port is not valid: must be between 1 and 65535, inclusive",
                ));
            }
        }
    }
    errs
}

#[cfg(test)]
mod tests;
