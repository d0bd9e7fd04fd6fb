//! The ClusterServiceVersion OLM needs, synthesised from a `registry+v2`
//! bundle (decisions.md §4): metadata from `bundle.yaml`, the Deployments and
//! the RBAC of `manifests/` as the install strategy, and every CRD as an
//! owned API described by `bundle.yaml`'s `apis`.
//!
//! RBAC goes into the install strategy when OLM can express it: a RoleBinding
//! or ClusterRoleBinding whose subjects are all ServiceAccounts and whose
//! role is in the bundle becomes `permissions` (RoleBinding) or
//! `clusterPermissions` (ClusterRoleBinding) of each ServiceAccount; a role
//! only such bindings use, and a ServiceAccount that receives permissions,
//! are then created by OLM and leave the object list. Everything else (a
//! binding to a role outside the bundle, a binding to users or groups, an
//! unbound role or ServiceAccount) stays an object of its own.

use super::metadata::{ApiDescription, BundleMeta, DescriptorRoot};
use crate::bundle::files::Manifest;
use crate::bundle::rules::{finding, BUNDLE_API_WITHOUT_CRD};
use crate::diag::Diagnostic;
use crate::encoding::json::go_quote;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

/// The install modes of a synthesised CSV: every mode OLM recommends
/// (MultiNamespace is discouraged upstream and left off).
const INSTALL_MODES: [(&str, bool); 4] = [
    ("OwnNamespace", true),
    ("SingleNamespace", true),
    ("MultiNamespace", false),
    ("AllNamespaces", true),
];

/// The synthesised CSV and which manifests it absorbed.
#[derive(Debug, Clone)]
pub struct Synthesis {
    /// The CSV, as an object of `metadata/bundle.yaml` (it is described there).
    pub csv: Manifest,
    /// Per manifest: whether the CSV carries it (Deployments and RBAC).
    pub absorbed: Vec<bool>,
}

fn kind(v: &Value) -> &str {
    v.get("kind").and_then(Value::as_str).unwrap_or("")
}

fn name(v: &Value) -> &str {
    v.pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// One version of a CRD in the bundle.
struct CrdVersion<'a> {
    crd_name: &'a str,
    group: &'a str,
    kind: &'a str,
    version: String,
}

/// The versions every CRD of the bundle serves, in file order.
fn crd_versions(manifests: &[Manifest]) -> Vec<CrdVersion<'_>> {
    let mut out = Vec::new();
    for m in manifests
        .iter()
        .filter(|m| kind(&m.value) == "CustomResourceDefinition")
    {
        let spec = m.value.get("spec").unwrap_or(&Value::Null);
        let group = spec.get("group").and_then(Value::as_str).unwrap_or("");
        let crd_kind = spec
            .pointer("/names/kind")
            .and_then(Value::as_str)
            .unwrap_or("");
        let mut versions: Vec<String> = Vec::new();
        if let Some(single) = spec.get("version").and_then(Value::as_str) {
            versions.push(single.to_string());
        }
        for item in spec
            .get("versions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(v) = item.get("name").and_then(Value::as_str) {
                if !versions.iter().any(|known| known == v) {
                    versions.push(v.to_string());
                }
            }
        }
        for version in versions {
            out.push(CrdVersion {
                crd_name: name(&m.value),
                group,
                kind: crd_kind,
                version,
            });
        }
    }
    out
}

/// The CSV of a registry+v2 bundle. Every API description must match a CRD
/// version in the bundle (errors go to `findings`, the CSV is still built).
pub fn synthesize(
    meta: &BundleMeta,
    manifests: &[Manifest],
    findings: &mut Vec<Diagnostic>,
) -> Synthesis {
    let mut absorbed = vec![false; manifests.len()];
    let crds = crd_versions(manifests);

    for (i, api) in meta.apis.iter().enumerate() {
        let found = crds
            .iter()
            .any(|c| c.group == api.group() && c.kind == api.kind && c.version == api.version());
        if !found {
            findings.push(finding(
                BUNDLE_API_WITHOUT_CRD,
                format!(
                    "{}: apis[{i}]: no CustomResourceDefinition in manifests/ serves {} {}",
                    super::metadata::FILE,
                    api.api_version,
                    go_quote(&api.kind)
                ),
                Some(super::metadata::FILE.into()),
            ));
        }
    }

    let owned: Vec<Value> = crds
        .iter()
        .map(|crd| {
            let api = meta.apis.iter().find(|a| {
                a.group() == crd.group && a.kind == crd.kind && a.version() == crd.version
            });
            owned_crd(crd, api)
        })
        .collect();

    let mut deployments = Vec::new();
    for (i, m) in manifests.iter().enumerate() {
        if kind(&m.value) == "Deployment" {
            absorbed[i] = true;
            let mut entry = Map::new();
            entry.insert("name".into(), Value::String(name(&m.value).to_string()));
            if let Some(labels) = m.value.pointer("/metadata/labels") {
                if labels.as_object().is_some_and(|l| !l.is_empty()) {
                    entry.insert("label".into(), labels.clone());
                }
            }
            entry.insert(
                "spec".into(),
                m.value.get("spec").cloned().unwrap_or_else(|| json!({})),
            );
            deployments.push(Value::Object(entry));
        }
    }

    let (permissions, cluster_permissions) = rbac(manifests, &mut absorbed);

    let mut strategy = Map::new();
    strategy.insert("deployments".into(), Value::Array(deployments));
    if !permissions.is_empty() {
        strategy.insert("permissions".into(), Value::Array(permissions));
    }
    if !cluster_permissions.is_empty() {
        strategy.insert(
            "clusterPermissions".into(),
            Value::Array(cluster_permissions),
        );
    }

    let mut spec = Map::new();
    spec.insert(
        "displayName".into(),
        Value::String(
            meta.display_name
                .clone()
                .unwrap_or_else(|| meta.name.clone()),
        ),
    );
    if let Some(description) = &meta.description {
        spec.insert("description".into(), Value::String(description.clone()));
    }
    spec.insert("version".into(), Value::String(meta.version.clone()));
    if let Some(v) = &meta.min_kube_version {
        spec.insert("minKubeVersion".into(), Value::String(v.clone()));
    }
    if !meta.keywords.is_empty() {
        spec.insert("keywords".into(), json!(meta.keywords));
    }
    if !meta.labels.is_empty() {
        spec.insert("labels".into(), json!(meta.labels));
    }
    if !meta.links.is_empty() {
        spec.insert("links".into(), Value::Array(meta.links.clone()));
    }
    if !meta.maintainers.is_empty() {
        spec.insert("maintainers".into(), Value::Array(meta.maintainers.clone()));
    }
    if let Some(maturity) = &meta.maturity {
        spec.insert("maturity".into(), Value::String(maturity.clone()));
    }
    if let Some(provider) = &meta.provider {
        spec.insert("provider".into(), provider.clone());
    }
    if let Some(selector) = &meta.selector {
        spec.insert("selector".into(), selector.clone());
    }
    if !meta.icon.is_empty() {
        spec.insert("icon".into(), Value::Array(meta.icon.clone()));
    }
    spec.insert(
        "installModes".into(),
        Value::Array(
            INSTALL_MODES
                .iter()
                .map(|(mode, supported)| json!({"type": mode, "supported": supported}))
                .collect(),
        ),
    );
    spec.insert(
        "install".into(),
        json!({"strategy": "deployment", "spec": Value::Object(strategy)}),
    );
    if !owned.is_empty() {
        spec.insert(
            "customresourcedefinitions".into(),
            json!({ "owned": owned }),
        );
    }

    let csv = json!({
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": meta.name},
        "spec": Value::Object(spec),
    });
    Synthesis {
        csv: Manifest {
            file: super::metadata::FILE.to_string(),
            document: 1,
            value: csv,
            from_yaml: true,
        },
        absorbed,
    }
}

/// An owned CRD entry, described by `api` when there is one.
fn owned_crd(crd: &CrdVersion<'_>, api: Option<&ApiDescription>) -> Value {
    let mut entry = Map::new();
    entry.insert("name".into(), Value::String(crd.crd_name.to_string()));
    entry.insert("version".into(), Value::String(crd.version.clone()));
    entry.insert("kind".into(), Value::String(crd.kind.to_string()));
    let display = api
        .and_then(|a| a.display_name.clone())
        .unwrap_or_else(|| crd.kind.to_string());
    entry.insert("displayName".into(), Value::String(display));
    let Some(api) = api else {
        return Value::Object(entry);
    };
    if let Some(description) = &api.description {
        entry.insert("description".into(), Value::String(description.clone()));
    }
    if !api.resources.is_empty() {
        entry.insert("resources".into(), Value::Array(api.resources.clone()));
    }
    for (root, key) in [
        (DescriptorRoot::Spec, "specDescriptors"),
        (DescriptorRoot::Status, "statusDescriptors"),
    ] {
        let list: Vec<Value> = api
            .descriptors
            .iter()
            .filter(|d| d.root == root)
            .map(|d| {
                let mut out = Map::new();
                out.insert("path".into(), Value::String(d.path.clone()));
                if let Some(n) = &d.display_name {
                    out.insert("displayName".into(), Value::String(n.clone()));
                }
                if let Some(n) = &d.description {
                    out.insert("description".into(), Value::String(n.clone()));
                }
                if !d.capabilities.is_empty() {
                    out.insert("x-descriptors".into(), json!(d.capabilities));
                }
                Value::Object(out)
            })
            .collect();
        if !list.is_empty() {
            entry.insert(key.into(), Value::Array(list));
        }
    }
    Value::Object(entry)
}

/// Permissions of one ServiceAccount, rules in binding order without repeats.
struct Grant {
    service_account: String,
    rules: Vec<Value>,
}

fn grant(grants: &mut Vec<Grant>, service_account: &str, rules: &[Value]) {
    let at = match grants
        .iter()
        .position(|g| g.service_account == service_account)
    {
        Some(at) => at,
        None => {
            grants.push(Grant {
                service_account: service_account.to_string(),
                rules: Vec::new(),
            });
            grants.len() - 1
        }
    };
    for rule in rules {
        if !grants[at].rules.contains(rule) {
            grants[at].rules.push(rule.clone());
        }
    }
}

/// Resolves the bundle's bindings into install-strategy permissions and
/// marks what they absorb.
fn rbac(manifests: &[Manifest], absorbed: &mut [bool]) -> (Vec<Value>, Vec<Value>) {
    let role_index = |role_kind: &str, role_name: &str| {
        manifests
            .iter()
            .position(|m| kind(&m.value) == role_kind && name(&m.value) == role_name)
    };
    let mut permissions: Vec<Grant> = Vec::new();
    let mut cluster_permissions: Vec<Grant> = Vec::new();
    // Roles used by a binding that stays an object must stay too.
    let mut roles_used: BTreeSet<usize> = BTreeSet::new();
    let mut roles_kept: BTreeSet<usize> = BTreeSet::new();

    for (i, m) in manifests.iter().enumerate() {
        let binding_kind = kind(&m.value);
        if binding_kind != "RoleBinding" && binding_kind != "ClusterRoleBinding" {
            continue;
        }
        let role_kind = m
            .value
            .pointer("/roleRef/kind")
            .and_then(Value::as_str)
            .unwrap_or("");
        let role_name = m
            .value
            .pointer("/roleRef/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let allowed_role = match binding_kind {
            "RoleBinding" => role_kind == "Role" || role_kind == "ClusterRole",
            _ => role_kind == "ClusterRole",
        };
        let role = role_index(role_kind, role_name).filter(|_| allowed_role);
        let subjects = m
            .value
            .get("subjects")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let accounts: Option<Vec<&str>> = subjects
            .iter()
            .map(|s| {
                (s.get("kind").and_then(Value::as_str) == Some("ServiceAccount"))
                    .then(|| s.get("name").and_then(Value::as_str))
                    .flatten()
                    .filter(|n| !n.is_empty())
            })
            .collect();
        match (role, accounts) {
            (Some(role), Some(accounts)) if !accounts.is_empty() => {
                let rules = manifests[role]
                    .value
                    .get("rules")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or(&[]);
                let target = if binding_kind == "RoleBinding" {
                    &mut permissions
                } else {
                    &mut cluster_permissions
                };
                for account in accounts {
                    grant(target, account, rules);
                }
                absorbed[i] = true;
                roles_used.insert(role);
            }
            (role, _) => {
                if let Some(role) = role {
                    roles_kept.insert(role);
                }
            }
        }
    }
    for role in roles_used.difference(&roles_kept) {
        absorbed[*role] = true;
    }
    let granted: BTreeSet<&str> = permissions
        .iter()
        .chain(&cluster_permissions)
        .map(|g| g.service_account.as_str())
        .collect();
    for (i, m) in manifests.iter().enumerate() {
        if kind(&m.value) == "ServiceAccount" && granted.contains(name(&m.value)) {
            absorbed[i] = true;
        }
    }
    let to_values = |grants: Vec<Grant>| -> Vec<Value> {
        grants
            .into_iter()
            .map(|g| json!({"serviceAccountName": g.service_account, "rules": g.rules}))
            .collect()
    };
    (to_values(permissions), to_values(cluster_permissions))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(text: &str) -> Manifest {
        Manifest {
            file: "manifests/x.yaml".into(),
            document: 1,
            value: crate::encoding::yaml_read::yaml_to_json(text).unwrap(),
            from_yaml: true,
        }
    }

    fn meta() -> BundleMeta {
        BundleMeta {
            name: "op.v1.0.0".into(),
            version: "1.0.0".into(),
            ..BundleMeta::default()
        }
    }

    #[test]
    fn rbac_bound_to_service_accounts_moves_into_the_csv() {
        let manifests = vec![
            manifest("kind: Deployment\nmetadata: {name: op, labels: {a: b}}\nspec: {replicas: 1}\n"),
            manifest("kind: ServiceAccount\nmetadata: {name: op}\n"),
            manifest("kind: ServiceAccount\nmetadata: {name: unused}\n"),
            manifest("kind: ClusterRole\nmetadata: {name: cr}\nrules: [{verbs: [get], resources: [pods], apiGroups: ['']}]\n"),
            manifest("kind: ClusterRoleBinding\nmetadata: {name: crb}\nroleRef: {kind: ClusterRole, name: cr}\nsubjects: [{kind: ServiceAccount, name: op}]\n"),
            manifest("kind: Role\nmetadata: {name: r}\nrules: [{verbs: [list], resources: [configmaps], apiGroups: ['']}]\n"),
            manifest("kind: RoleBinding\nmetadata: {name: rb}\nroleRef: {kind: Role, name: r}\nsubjects: [{kind: ServiceAccount, name: op}]\n"),
            manifest("kind: RoleBinding\nmetadata: {name: user}\nroleRef: {kind: Role, name: r2}\nsubjects: [{kind: User, name: bob}]\n"),
            manifest("kind: Role\nmetadata: {name: r2}\nrules: []\n"),
            manifest("kind: ClusterRoleBinding\nmetadata: {name: admin}\nroleRef: {kind: ClusterRole, name: cluster-admin}\nsubjects: [{kind: ServiceAccount, name: op}]\n"),
        ];
        let mut findings = Vec::new();
        let s = synthesize(&meta(), &manifests, &mut findings);
        assert!(findings.is_empty());
        assert_eq!(
            s.absorbed,
            [true, true, false, true, true, true, true, false, false, false]
        );
        let strategy = &s.csv.value["spec"]["install"]["spec"];
        assert_eq!(strategy["deployments"][0]["name"], "op");
        assert_eq!(strategy["deployments"][0]["label"], json!({"a": "b"}));
        assert_eq!(strategy["permissions"][0]["serviceAccountName"], "op");
        assert_eq!(
            strategy["permissions"][0]["rules"][0]["verbs"],
            json!(["list"])
        );
        assert_eq!(
            strategy["clusterPermissions"][0]["rules"][0]["verbs"],
            json!(["get"])
        );
        assert_eq!(s.csv.value["spec"]["version"], "1.0.0");
        assert_eq!(s.csv.value["spec"]["displayName"], "op.v1.0.0");
    }

    #[test]
    fn crds_become_owned_apis_with_their_descriptions() {
        let manifests = vec![manifest(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: kialis.kiali.io}\nspec: {group: kiali.io, names: {kind: Kiali, plural: kialis}, versions: [{name: v1alpha1}, {name: v1}]}\n",
        )];
        let mut m = meta();
        let mut findings = Vec::new();
        let bytes = b"name: op.v1.0.0\nversion: 1.0.0\napis:\n- apiVersion: kiali.io/v1\n  kind: Kiali\n  displayName: Kiali\n  description: d\n  descriptors:\n  - path: spec.auth.strategy\n    capabilities: [x]\n  - path: .status.phase\n- apiVersion: kiali.io/v2\n  kind: Kiali\n";
        m.apis = super::super::metadata::parse(bytes, &mut findings)
            .unwrap()
            .apis;
        let s = synthesize(&m, &manifests, &mut findings);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert!(findings[0].message.contains(
            "apis[1]: no CustomResourceDefinition in manifests/ serves kiali.io/v2 \"Kiali\""
        ));
        let owned = &s.csv.value["spec"]["customresourcedefinitions"]["owned"];
        assert_eq!(
            owned[0],
            json!({"name": "kialis.kiali.io", "version": "v1alpha1", "kind": "Kiali", "displayName": "Kiali"})
        );
        assert_eq!(owned[1]["description"], "d");
        assert_eq!(
            owned[1]["specDescriptors"],
            json!([{"path": "auth.strategy", "x-descriptors": ["x"]}])
        );
        assert_eq!(owned[1]["statusDescriptors"], json!([{"path": "phase"}]));
    }
}
