use super::*;
use crate::bundle::rules::{BUNDLE_YAML_FIELD_INVALID, BUNDLE_YAML_MISSING};

const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: op\nspec:\n  selector: {matchLabels: {app: op}}\n  template:\n    metadata: {labels: {app: op}}\n    spec:\n      serviceAccountName: op\n      containers: [{name: m, image: 'quay.io/x/op:v1'}]\n";
const CRD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions: [{name: v1, served: true, storage: true}]\n";
const RBAC: &str = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: op}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: op}\nrules: [{apiGroups: [''], resources: [pods], verbs: [get]}]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: op}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: op}\nsubjects: [{kind: ServiceAccount, name: op}]\n---\napiVersion: v1\nkind: Service\nmetadata: {name: op-metrics}\nspec: {ports: [{port: 8080}]}\n";
const V2_ANNOTATIONS: &str = "annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v2\n  operators.operatorframework.io.bundle.package.v1: op\n  operators.operatorframework.io.bundle.channels.v1: alpha\n";

fn v2(extra: &[(&'static str, &'static str)]) -> tempfile::TempDir {
    let mut files = vec![
        ("manifests/crds.yaml", CRD),
        ("manifests/deployment.yaml", DEPLOYMENT),
        ("manifests/rbac.yaml", RBAC),
        ("metadata/annotations.yaml", V2_ANNOTATIONS),
        (
            "metadata/bundle.yaml",
            "name: op.v1.0.0\nversion: 1.0.0\napis:\n- apiVersion: example.com/v1\n  kind: Widget\n  displayName: Widget\n",
        ),
    ];
    for (name, text) in extra {
        files.retain(|(n, _)| n != name);
        files.push((name, text));
    }
    crate::testkit::tree(&files)
}

fn kinds(manifests: &[&Manifest]) -> Vec<String> {
    manifests.iter().map(|m| m.kind().to_string()).collect()
}

fn read_tree(
    dir: &tempfile::TempDir,
    media_type: MediaType,
    findings: &mut Vec<Diagnostic>,
) -> Option<Contents> {
    read(&BundleDir::read(dir.path()), media_type, findings)
}

fn media_type(dir: &tempfile::TempDir) -> MediaType {
    resolve_media_type(&BundleDir::read(dir.path()))
}

#[test]
fn media_type_comes_from_content_then_the_label() {
    let d = v2(&[]);
    assert_eq!(media_type(&d), MediaType::RegistryV2);
    let seed_key = v2(&[(
        "metadata/annotations.yaml",
        "annotations:\n  operators.operatorframework.io.bundle.mediatype: registry+v2\n",
    )]);
    assert_eq!(media_type(&seed_key), MediaType::RegistryV2);
    let plain = crate::testkit::tree(&[(
        "manifests/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
    )]);
    assert_eq!(media_type(&plain), MediaType::Plain);
    let unknown = v2(&[(
        "metadata/annotations.yaml",
        "annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n",
    )]);
    assert_eq!(media_type(&unknown), MediaType::RegistryV1);
    let csv = v2(&[(
        "manifests/csv.yaml",
        "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: x}\n",
    )]);
    assert_eq!(media_type(&csv), MediaType::RegistryV1);
}

#[test]
fn registry_v2_lists_crds_then_the_csv_then_what_the_csv_does_not_carry() {
    let d = v2(&[]);
    let mut findings = Vec::new();
    let bundle = read_tree(&d, MediaType::RegistryV2, &mut findings).unwrap();
    assert!(findings.is_empty(), "{findings:?}");
    assert_eq!(
        kinds(&bundle.applied()),
        [
            "CustomResourceDefinition",
            "ClusterServiceVersion",
            "Service"
        ]
    );
    let csv = &bundle.synthesis.as_ref().unwrap().csv.value;
    assert_eq!(csv["metadata"]["name"], "op.v1.0.0");
    assert_eq!(
        csv["spec"]["install"]["spec"]["clusterPermissions"][0]["serviceAccountName"],
        "op"
    );
    assert_eq!(
        csv["spec"]["customresourcedefinitions"]["owned"][0]["name"],
        "widgets.example.com"
    );
}

#[test]
fn registry_v2_problems_are_all_reported() {
    let d = v2(&[
        (
            "manifests/deployment.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        ),
        ("manifests/sub/x.yaml", DEPLOYMENT),
        (
            "manifests/bad.yaml",
            "apiVersion: v1\nkind: ConfigMap\n---\n- a\n",
        ),
        ("metadata/bundle.yaml", "name: op.v1.0.0\nversion: 1.0\n"),
    ]);
    let mut findings = Vec::new();
    assert!(read_tree(&d, MediaType::RegistryV2, &mut findings).is_none());
    let rules: Vec<&str> = findings.iter().map(|f| f.rule).collect();
    assert_eq!(
        rules,
        [
            MANIFEST_NOT_OBJECTS,
            MANIFESTS_NOT_FLAT,
            BUNDLE_YAML_FIELD_INVALID,
            BUNDLE_DEPLOYMENT_MISSING
        ],
        "{findings:?}"
    );
    assert_eq!(findings[0].message, "not a Kubernetes object: found array");
    let location = findings[0].location.as_ref().unwrap();
    assert_eq!(
        (&*location.file, location.document),
        ("manifests/bad.yaml", Some(1))
    );
}

#[test]
fn a_registry_v2_bundle_needs_bundle_yaml() {
    let d = crate::testkit::tree(&[
        ("manifests/deployment.yaml", DEPLOYMENT),
        ("metadata/annotations.yaml", V2_ANNOTATIONS),
    ]);
    let mut findings = Vec::new();
    assert!(read_tree(&d, MediaType::RegistryV2, &mut findings).is_none());
    assert_eq!(findings[0].rule, BUNDLE_YAML_MISSING);
    assert!(findings[0]
        .message
        .starts_with("metadata/bundle.yaml: not found"));
}

#[test]
fn plain_bundles_list_every_object_and_refuse_removed_apis() {
    let d = crate::testkit::tree(&[
        ("manifests/a.yaml", RBAC),
        (
            "manifests/b.json",
            "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"c\"}}",
        ),
    ]);
    let mut findings = Vec::new();
    let bundle = read_tree(&d, MediaType::Plain, &mut findings).unwrap();
    assert_eq!(
        kinds(&bundle.applied()),
        [
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "Service",
            "ConfigMap"
        ]
    );
    let old = crate::testkit::tree(&[(
        "manifests/crd.yaml",
        "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: a.b}\n",
    )]);
    let mut findings = Vec::new();
    assert!(read_tree(&old, MediaType::Plain, &mut findings).is_none());
    assert_eq!(findings[0].rule, PLAIN_MANIFEST_API_REMOVED);
    assert!(findings[0].message.contains(
        "apiextensions.k8s.io/v1beta1 CustomResourceDefinition was removed in Kubernetes 1.22"
    ));
    let empty = crate::testkit::tree(&[("manifests/.keep", "")]);
    let mut findings = Vec::new();
    assert!(read_tree(&empty, MediaType::Plain, &mut findings).is_none());
    assert_eq!(findings[0].rule, MANIFESTS_EMPTY);
}
