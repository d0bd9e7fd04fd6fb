use super::*;

fn errors(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check(doc, true, "manifests/crd.yaml", &mut out);
    out.into_iter()
        .filter(|f| f.severity == crate::diag::Severity::Error)
        .map(|f| f.message)
        .collect()
}

fn v1() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object"}}}]
        }
    })
}

#[test]
fn valid_v1() {
    assert!(errors(&v1()).is_empty());
}

#[test]
fn messages() {
    let mut crd = v1();
    crd["metadata"]["name"] = json!("x.example.com");
    crd["spec"]["scope"] = json!("Global");
    crd["spec"]["preserveUnknownFields"] = json!(true);
    let first = crd["spec"]["versions"][0].clone();
    crd["spec"]["versions"].as_array_mut().unwrap().push(first);
    let errs = errors(&crd);
    assert_eq!(
            errs[0],
            "Field metadata.name, Value x.example.com: metadata.name: Invalid value: \"x.example.com\": must be spec.names.plural+\".\"+spec.group"
        );
    assert_eq!(
            errs[1],
            "Field spec.scope, Value Global: spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\""
        );
    assert!(errs[2].ends_with("spec.versions: Invalid value: [{\"name\":\"v1\",\"served\":true,\"storage\":true,\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\"}}},{\"name\":\"v1\",\"served\":true,\"storage\":true,\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\"}}}]: must contain unique version names"), "{}", errs[2]);
    assert!(errs[3].ends_with("must have exactly one version marked as storage version"));
    assert_eq!(
            errs[4],
            "Field spec.preserveUnknownFields, Value true: spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"
        );
    assert_eq!(errs.len(), 5);
}

#[test]
fn unsupported_and_decode() {
    let mut crd = v1();
    crd["apiVersion"] = json!("apiextensions.k8s.io/v2");
    assert_eq!(
        errors(&crd),
        vec!["Unsupported api version of CRD: apiextensions.k8s.io/v2"]
    );
    let mut crd = v1();
    crd["spec"]["versions"] = json!("v1");
    assert_eq!(
            errors(&crd),
            vec!["error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field CustomResourceDefinitionSpec.spec.versions of type []v1.CustomResourceDefinitionVersion"]
        );
    // A JSON document has no YAML front end, nor its prefix.
    assert_eq!(
        decode(&crd, CrdVersion::V1, false).unwrap_err().to_string(),
        "json: cannot unmarshal string into Go struct field CustomResourceDefinitionSpec.spec.versions of type []v1.CustomResourceDefinitionVersion"
    );
}

#[test]
fn v1beta1_defaults() {
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1beta1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "version": "v1",
            "names": {"plural": "widgets", "kind": "Widget"}}
    });
    assert!(errors(&crd).is_empty());
    let mut bad = crd.clone();
    bad["spec"]["versions"] = json!([{"name": "v2", "served": true, "storage": true}]);
    assert_eq!(
            errors(&bad),
            vec!["Field spec.version, Value v1: spec.version: Invalid value: \"v1\": must match the first version in spec.versions"]
        );
    let mut webhook = crd;
    webhook["spec"]["conversion"] = json!({"strategy": "Webhook"});
    let errs = errors(&webhook);
    assert!(errs[0].contains("required when strategy is set to Webhook"));
    assert!(errs[1].contains("must be None if spec.preserveUnknownFields is true"));
}
