//! The `bundle-objects` optional validator (operator-framework/api's
//! ObjectValidator, which upstream opm wires up so that it never runs):
//! PodDisruptionBudgets may not block evictions, PriorityClasses may not be
//! the global default, and roles may not modify OpenShift's default
//! SecurityContextConstraints; creating PodDisruptionBudgets is a warning.

use super::csv::strings;
use super::message;
use crate::bundle::files::Manifest;
use crate::bundle::rules::{
    finding, OBJECT_PDB_BLOCKS_EVICTION, OBJECT_PRIORITY_CLASS_GLOBAL_DEFAULT,
    OBJECT_RBAC_MANAGES_PDB, OBJECT_RBAC_MODIFIES_DEFAULT_SCC,
};
use crate::diag::Diagnostic;
use crate::encoding::json::compact;
use serde_json::{json, Value};

/// Every rule of this module.
pub const RULES: &[&str] = &[
    OBJECT_PDB_BLOCKS_EVICTION,
    OBJECT_PRIORITY_CLASS_GLOBAL_DEFAULT,
    OBJECT_RBAC_MODIFIES_DEFAULT_SCC,
    OBJECT_RBAC_MANAGES_PDB,
];

/// OpenShift's default SecurityContextConstraints.
const DEFAULT_SCCS: &[&str] = &[
    "privileged",
    "restricted",
    "anyuid",
    "hostaccess",
    "hostmount-anyuid",
    "hostnetwork",
    "node-exporter",
    "nonroot",
];

/// Runs the checks over every decoded manifest.
pub fn check(objects: &[&Manifest], out: &mut Vec<Diagnostic>) {
    for object in objects {
        let v = &object.value;
        let file = Some(object.file.to_string());
        let kind = v.get("kind").and_then(Value::as_str).unwrap_or_default();
        let subject = || {
            let name = v
                .get("metadata")
                .and_then(|m| m.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            compact(&json!({"kind": kind, "name": name}))
        };
        let problem = |rule, text: &str| {
            let message = message::api("", Some(&subject()), text);
            finding(rule, message, file.clone())
        };
        match kind {
            "PodDisruptionBudget" => {
                let spec = v.get("spec");
                let max = spec.and_then(|s| s.get("maxUnavailable"));
                let blocks = match max {
                    Some(Value::Number(n)) => n.as_i64() == Some(0),
                    Some(Value::String(s)) => s == "0%",
                    _ => false,
                };
                if blocks {
                    out.push(problem(
                        OBJECT_PDB_BLOCKS_EVICTION,
                        "maxUnavailable field cannot be set to 0 or 0%",
                    ));
                }
                let min = spec.and_then(|s| s.get("minAvailable"));
                if min.and_then(Value::as_str) == Some("100%") {
                    out.push(problem(
                        OBJECT_PDB_BLOCKS_EVICTION,
                        "minAvailable field cannot be set to 100%",
                    ));
                }
            }
            "PriorityClass" if v.get("globalDefault").and_then(Value::as_bool) == Some(true) => {
                out.push(problem(
                    OBJECT_PRIORITY_CLASS_GLOBAL_DEFAULT,
                    "globalDefault field cannot be set to true",
                ));
            }
            "Role" | "ClusterRole" => {
                let rules = v
                    .get("rules")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                audit(rules, &file, out);
            }
            _ => {}
        }
    }
}

fn contains_any(list: &[&str], items: &[&str]) -> bool {
    list.iter().any(|s| items.contains(s))
}

const PDB_RBAC_WARNING: &str = "RBAC includes permission to create/update \
     poddisruptionbudgets, which could impact cluster stability";

const SCC_RBAC_ERROR: &str = "RBAC includes permission to modify default \
     securitycontextconstraints, which could impact cluster stability";

fn audit(rules: &[Value], file: &Option<String>, out: &mut Vec<Diagnostic>) {
    for rule in rules {
        if contains_any(&strings(rule, &["apiGroups"]), &["policy"])
            && contains_any(&strings(rule, &["resources"]), &["poddisruptionbudgets"])
            && contains_any(
                &strings(rule, &["verbs"]),
                &["*", "create", "update", "patch"],
            )
        {
            let message = message::api("", Some(PDB_RBAC_WARNING), &compact(rule));
            out.push(finding(OBJECT_RBAC_MANAGES_PDB, message, file.clone()));
        }
    }
    for rule in rules {
        if contains_any(&strings(rule, &["apiGroups"]), &["security.openshift.io"])
            && contains_any(
                &strings(rule, &["resources"]),
                &["securitycontextconstraints"],
            )
            && contains_any(
                &strings(rule, &["verbs"]),
                &["*", "delete", "update", "patch"],
            )
            && contains_any(&strings(rule, &["resourceNames"]), DEFAULT_SCCS)
        {
            out.push(finding(
                OBJECT_RBAC_MODIFIES_DEFAULT_SCC,
                message::api("", Some(&compact(rule)), SCC_RBAC_ERROR),
                file.clone(),
            ));
        }
    }
}
