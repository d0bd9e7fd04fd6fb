//! The `good-practices` optional validator (operator-framework/api's
//! GoodPracticesValidator). Everything is a warning except a CSV without
//! deployments, which upstream makes an error: containers without CPU and
//! memory requests, channel names outside the recommended convention, CRD
//! descriptions, permissions to create CRDs, and the bundle name format.

use super::csv::{list, strings, text};
use super::message;
use crate::bundle::rules::{
    finding, GOOD_PRACTICES_BUNDLE_NAME, GOOD_PRACTICES_CHANNEL_NAMING,
    GOOD_PRACTICES_CRD_DESCRIPTION, GOOD_PRACTICES_NO_DEPLOYMENT, GOOD_PRACTICES_RBAC_CREATES_CRDS,
    GOOD_PRACTICES_RESOURCE_REQUESTS,
};
use crate::diag::Diagnostic;
use crate::semver::Version;
use serde_json::Value;

/// Every rule of this module.
pub const RULES: &[&str] = &[
    GOOD_PRACTICES_NO_DEPLOYMENT,
    GOOD_PRACTICES_RESOURCE_REQUESTS,
    GOOD_PRACTICES_CRD_DESCRIPTION,
    GOOD_PRACTICES_CHANNEL_NAMING,
    GOOD_PRACTICES_RBAC_CREATES_CRDS,
    GOOD_PRACTICES_BUNDLE_NAME,
];

const CRD_RBAC_WARNING: &str = "CSV contains permissions to create CRD. An Operator shouldn't \
     deploy or manage other operators (such patterns are known as meta or super operators or \
     include CRDs in its Operands). It's the Operator Lifecycle Manager's job to manage the \
     deployment and lifecycle of operators.  Please, review the design of your solution and if \
     you should not be using Dependency Resolution from OLM instead. More info: \
     https://sdk.operatorframework.io/docs/best-practices/common-recommendation/";

/// Runs the checks; `channels` are the annotations' channels followed by the
/// default channel.
pub fn check(csv: &Value, channels: &[String], file: &str, out: &mut Vec<Diagnostic>) {
    let name = text(csv, &["metadata", "name"]);
    let mut push = |rule: &'static str, detail: String| {
        out.push(finding(
            rule,
            message::api("", Some(name), &detail),
            Some(file.to_string()),
        ));
    };
    let deployments =
        super::csv::at(csv, &["spec", "install", "spec", "deployments"]).filter(|d| !d.is_null());
    match deployments.and_then(Value::as_array) {
        None => push(
            GOOD_PRACTICES_NO_DEPLOYMENT,
            "unable to find a deployment to install in the CSV".into(),
        ),
        Some(deployments) => {
            for deployment in deployments {
                let pod = deployment
                    .get("spec")
                    .and_then(|s| s.get("template"))
                    .and_then(|t| t.get("spec"));
                let containers = pod
                    .and_then(|p| p.get("containers"))
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                for container in containers {
                    let requests = container.get("resources").and_then(|r| r.get("requests"));
                    let has = |key: &str| {
                        requests
                            .and_then(|r| r.get(key))
                            .is_some_and(|v| !v.is_null())
                    };
                    if !(has("cpu") && has("memory")) {
                        let c_name = container
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        push(
                            GOOD_PRACTICES_RESOURCE_REQUESTS,
                            format!(
                                "unable to find the resource requests for the container: ({c_name}). It is recommended to ensure the resource request for CPU and Memory. Be aware that for some clusters configurations it is required to specify requests or limits for those values. Otherwise, the system or quota may reject Pod creation. More info: https://master.sdk.operatorframework.io/docs/best-practices/managing-resources/"
                            ),
                        );
                    }
                }
            }
        }
    }
    for relation in ["owned", "required"] {
        for crd in list(csv, &["spec", "customresourcedefinitions", relation]) {
            let description = crd
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if description.is_empty() {
                let crd_name = crd.get("name").and_then(Value::as_str).unwrap_or_default();
                push(
                    GOOD_PRACTICES_CRD_DESCRIPTION,
                    format!(
                        "{relation} CRD {} has an empty description",
                        crate::encoding::json::go_quote(crd_name)
                    ),
                );
            }
        }
    }
    let mut unconventional: Vec<&str> = channels
        .iter()
        .map(|c| c.trim())
        .filter(|c| {
            !c.is_empty()
                && !c.starts_with("candidate")
                && !c.starts_with("stable")
                && !c.starts_with("fast")
        })
        .collect();
    unconventional.sort_unstable();
    unconventional.dedup();
    if !unconventional.is_empty() {
        let quoted: Vec<String> = unconventional.iter().map(|c| ascii_quote(c)).collect();
        push(
            GOOD_PRACTICES_CHANNEL_NAMING,
            format!(
                "channel(s) [{}] are not following the recommended naming convention: https://olm.operatorframework.io/docs/best-practices/channel-naming",
                quoted.join(" ")
            ),
        );
    }
    if creates_crds(csv) {
        push(
            GOOD_PRACTICES_RBAC_CREATES_CRDS,
            CRD_RBAC_WARNING.to_string(),
        );
    }
    for detail in bundle_name(name) {
        push(GOOD_PRACTICES_BUNDLE_NAME, detail);
    }
}

/// Go's `%+q`: quoted with every non-ASCII character escaped.
fn ascii_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

fn creates_crds(csv: &Value) -> bool {
    let rules = ["permissions", "clusterPermissions"]
        .into_iter()
        .flat_map(|key| {
            list(csv, &["spec", "install", "spec", key])
                .iter()
                .flat_map(|p| list(p, &["rules"]))
        });
    rules.into_iter().any(|rule| {
        strings(rule, &["apiGroups"]).contains(&"apiextensions.k8s.io")
            && strings(rule, &["resources"])
                .iter()
                .any(|r| ["customresourcedefinitions", "*", "[*]"].contains(r))
            && strings(rule, &["verbs"])
                .iter()
                .any(|v| ["create", "*", "[*]", "patch"].contains(v))
    })
}

/// The bundle name conventions: it ends in a semantic version, and has the
/// shape `<operator>.v<version>`.
fn bundle_name(name: &str) -> Vec<String> {
    let mut warnings = Vec::new();
    let version_ok = (0..name.len())
        .filter(|&i| name.is_char_boundary(i))
        .find(|&i| is_semver_tail(&name[i..]))
        .is_some_and(|i| Version::parse(&name[i..]).is_ok());
    if !version_ok {
        warnings.push(format!(
            "csv.metadata.Name {name} is not following the versioning convention (MAJOR.MINOR.PATCH e.g 0.0.1): https://semver.org/"
        ));
    }
    if name.split(".v").count() != 2 {
        warnings.push(format!(
            "csv.metadata.Name {name} is not following the recommended naming convention: <operator-name>.v<semver> e.g. memcached-operator.v0.0.1"
        ));
    }
    warnings
}

/// Whether all of `s` matches
/// `[0-9]+\.[0-9]+\.[0-9]+(-ident(\.ident)*)?(\+ident)?` with identifiers
/// of `[0-9A-Za-z-]`.
fn is_semver_tail(s: &str) -> bool {
    let ident =
        |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    let (core_pre, build) = match s.split_once('+') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    if build.is_some_and(|b| !ident(b)) {
        return false;
    }
    let mut parts = core_pre.splitn(3, '.');
    let (Some(major), Some(minor), Some(rest)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let (patch, pre) = match rest.split_once('-') {
        Some((p, pre)) => (p, Some(pre)),
        None => (rest, None),
    };
    digits(major)
        && digits(minor)
        && digits(patch)
        && pre.is_none_or(|pre| pre.split('.').all(ident))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(bundle_name("memcached-operator.v0.0.1").is_empty());
        assert_eq!(bundle_name("memcached-operator").len(), 2);
        assert_eq!(bundle_name("memcached-operator.1.0.0").len(), 1);
        assert!(is_semver_tail("1.2.3-rc.1+b5"));
        assert!(!is_semver_tail("1.2"));
    }

    #[test]
    fn quoting() {
        assert_eq!(ascii_quote("alpha"), "\"alpha\"");
        assert_eq!(ascii_quote("é"), "\"\\u00e9\"");
    }
}
