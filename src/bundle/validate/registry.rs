//! opm's own registry bundle checks over every decoded manifest: the CSV
//! can be read, every CRD it owns is shipped, `spec.version` and
//! `spec.release` have the right types, and a release is not combined with
//! `olm.substitutesFor`.
//!
//! Upstream crashes on a bundle without a CSV; here that is an error.

use super::crd::{self, CrdVersion};
use super::csv::{at, list, text};
use super::message;
use super::shape::{self, Ty};
use crate::bundle::files::Manifest;
use crate::bundle::parse::{csv_release, csv_version};
use crate::bundle::rules::{
    finding, BUNDLE_CRD_NOT_OWNED, BUNDLE_CSV_MISSING, BUNDLE_CSV_MULTIPLE, BUNDLE_CSV_UNREADABLE,
    BUNDLE_CSV_VERSION_INVALID, BUNDLE_OWNED_CRD_MISSING, BUNDLE_RELEASE_WITH_SUBSTITUTES_FOR,
};
use crate::diag::Diagnostic;
use serde_json::Value;
use std::collections::BTreeSet;

/// Every rule of this module.
pub const RULES: &[&str] = &[
    BUNDLE_CSV_MISSING,
    BUNDLE_CSV_MULTIPLE,
    BUNDLE_CSV_UNREADABLE,
    BUNDLE_OWNED_CRD_MISSING,
    BUNDLE_CRD_NOT_OWNED,
    BUNDLE_CSV_VERSION_INVALID,
    BUNDLE_RELEASE_WITH_SUBSTITUTES_FOR,
];

/// The registry checks. `name` is the bundle name upstream uses in messages
/// (the name of the last CSV that converted).
pub fn check(objects: &[&Manifest], name: &str, out: &mut Vec<Diagnostic>) {
    let csvs: Vec<&Manifest> = objects
        .iter()
        .copied()
        .filter(|o| o.kind() == "ClusterServiceVersion")
        .collect();
    if csvs.len() > 1 {
        let files: Vec<&str> = csvs.iter().map(|o| o.file.as_str()).collect();
        out.push(finding(
            BUNDLE_CSV_MULTIPLE,
            format!(
                "more than one ClusterServiceVersion is found in bundle ({}); the first one is used",
                files.join(", ")
            ),
            Some(csvs[1].file.to_string()),
        ));
    }
    let Some(csv_object) = csvs.first().copied() else {
        out.push(finding(
            BUNDLE_CSV_MISSING,
            "no csv in bundle: manifests/ holds no ClusterServiceVersion",
            None,
        ));
        return;
    };
    let csv = &csv_object.value;
    let file = Some(csv_object.file.clone());
    let mut push = |rule: &'static str, message: String| {
        out.push(finding(rule, message, file.clone()));
    };
    if let Err(e) = readable(csv, objects) {
        push(
            BUNDLE_CSV_UNREADABLE,
            message::api("", Some(&e.to_string()), "error getting bundle CSV"),
        );
        return;
    }

    if let Some(crds) = at(csv, &["spec", "customresourcedefinitions"]) {
        if let Err(e) = shape::go_json(crds, &CSV_CRDS, false) {
            push(
                BUNDLE_CSV_UNREADABLE,
                message::api("", Some(&e.to_string()), "error getting CSV CRDs"),
            );
            return;
        }
    }
    let owned: Vec<Key> = list(csv, &["spec", "customresourcedefinitions", "owned"])
        .iter()
        .map(|o| Key {
            group: String::new(),
            kind: field(o, "kind"),
            name: field(o, "name"),
            version: field(o, "version"),
        })
        .collect();
    let mut shipped = crd_keys(objects);
    let mut api = |rule, key: &Key, text: String| {
        push(rule, message::api("", Some(&key.dump()), &text));
    };
    let bundle = crate::encoding::json::go_quote(name);
    for key in &owned {
        if shipped.remove(key) {
            continue;
        }
        let text = format!("owned CRD {} not found in bundle {bundle}", key.label());
        api(BUNDLE_OWNED_CRD_MISSING, key, text);
    }
    for key in shipped.iter().filter(|k| !owned.contains(k)) {
        let text = format!(
            "CRD {} is present in bundle {bundle} but not defined in CSV",
            key.label()
        );
        api(BUNDLE_CRD_NOT_OWNED, key, text);
    }

    let unreadable = |e: crate::bundle::CsvError, what: &str| {
        let text = format!("error getting bundle CSV {what}");
        message::api("", Some(&e.to_string()), &text)
    };
    if let Err(e) = csv_version(csv) {
        push(BUNDLE_CSV_VERSION_INVALID, unreadable(e, "version"));
        return;
    }
    let release = match csv_release(csv) {
        Ok(release) => release,
        Err(e) => {
            push(BUNDLE_CSV_VERSION_INVALID, unreadable(e, "release version"));
            return;
        }
    };
    let substitutes = text(csv, &["metadata", "annotations", "olm.substitutesFor"]);
    if !release.is_empty() && !substitutes.is_empty() {
        push(BUNDLE_RELEASE_WITH_SUBSTITUTES_FOR, format!(
                "bundle {} cannot have both a release version ({}) and olm.substitutesFor annotation ({})",
                crate::encoding::json::go_quote(text(csv, &["metadata", "name"])),
                crate::encoding::json::go_quote(&release),
                crate::encoding::json::go_quote(substitutes)
            ),
        );
    }
}

fn field(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// How the registry reads the CSV: type and object metadata, the spec kept raw.
const REGISTRY_CSV: Ty = Ty::Struct(
    "registry.ClusterServiceVersion",
    &[
        ("", shape::TYPE_META),
        ("metadata", shape::OBJECT_META),
        ("spec", Ty::Any),
    ],
);

const DEFINITION_KEY: Ty = Ty::Struct(
    "registry.DefinitionKey",
    &[
        ("group", Ty::Str("string")),
        ("kind", Ty::Str("string")),
        ("name", Ty::Str("string")),
        ("version", Ty::Str("string")),
    ],
);

/// How the registry reads `spec.customresourcedefinitions`.
const CSV_CRDS: Ty = Ty::Struct(
    "registry.CustomResourceDefinitions",
    &[
        ("owned", Ty::List(&DEFINITION_KEY)),
        ("required", Ty::List(&DEFINITION_KEY)),
    ],
);

/// Why the registry cannot read the bundle's CSV or one of its CRDs; `Display` is the
/// decoder's message.
#[derive(Debug, thiserror::Error)]
enum Unreadable {
    /// The CSV does not decode as the registry's ClusterServiceVersion.
    #[error(transparent)]
    Csv(#[from] shape::ShapeError),
    /// A CRD does not decode as Kubernetes' CustomResourceDefinition.
    #[error("error decoding {version} CRD: {source}")]
    Crd {
        version: &'static str,
        #[source]
        source: crd::CrdDecodeError,
    },
}

/// Whether the bundle's CSV and CRDs decode as the registry reads them.
fn readable(csv: &Value, objects: &[&Manifest]) -> Result<(), Unreadable> {
    // The registry re-encodes decoded objects as JSON: no YAML leniency.
    shape::go_json(csv, &REGISTRY_CSV, false)?;
    for object in objects {
        if object.kind() != "CustomResourceDefinition" {
            continue;
        }
        let api_version = object
            .value
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let version = match api_version.rsplit('/').next().unwrap_or_default() {
            "v1" => CrdVersion::V1,
            "v1beta1" => CrdVersion::V1beta1,
            _ => continue,
        };
        if let Err(e) = crd::decode(&object.value, version, object.from_yaml) {
            return Err(Unreadable::Crd {
                version: match version {
                    CrdVersion::V1 => "v1",
                    CrdVersion::V1beta1 => "v1beta1",
                },
                source: e,
            });
        }
    }
    Ok(())
}

/// A CRD as the registry identifies it (the CSV cannot name a group).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    group: String,
    kind: String,
    name: String,
    version: String,
}

impl Key {
    /// Upstream prints the Go struct: `{<group> <kind> <name> <version>}`.
    fn dump(&self) -> String {
        format!(
            "{{{} {} {} {}}}",
            self.group, self.kind, self.name, self.version
        )
    }

    fn label(&self) -> String {
        if self.name.is_empty() {
            format!("{}/{} {}", self.group, self.version, self.kind)
        } else {
            format!("{}/{}", self.name, self.version)
        }
    }
}

/// The keys of the CRDs in the bundle: every version of a v1 CRD; for a
/// v1beta1 CRD only `spec.version` when set, else every version.
fn crd_keys(objects: &[&Manifest]) -> BTreeSet<Key> {
    let mut keys = BTreeSet::new();
    for object in objects {
        if object.kind() != "CustomResourceDefinition" {
            continue;
        }
        let crd = &object.value;
        let api_version = crd
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let version_part = api_version.rsplit('/').next().unwrap_or_default();
        let gf = |v: &Value, key: &str| {
            crate::encoding::gojson::field(v, key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let null = Value::Null;
        let meta = crate::encoding::gojson::field(crd, "metadata").unwrap_or(&null);
        let spec = crate::encoding::gojson::field(crd, "spec").unwrap_or(&null);
        let names = crate::encoding::gojson::field(spec, "names").unwrap_or(&null);
        let key = |version: String| Key {
            group: String::new(),
            kind: gf(names, "kind"),
            name: gf(meta, "name"),
            version,
        };
        let versions: Vec<String> = crate::encoding::gojson::field(spec, "versions")
            .and_then(Value::as_array)
            .map(|l| l.iter().map(|v| gf(v, "name")).collect())
            .unwrap_or_default();
        match version_part {
            "v1" => keys.extend(versions.into_iter().map(key)),
            "v1beta1" => {
                let single = gf(spec, "version");
                if single.is_empty() {
                    keys.extend(versions.into_iter().map(key));
                } else {
                    keys.insert(key(single));
                }
            }
            _ => {}
        }
    }
    keys
}
