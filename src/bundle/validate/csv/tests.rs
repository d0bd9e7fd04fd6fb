use super::*;
use crate::diag::Severity;
use serde_json::json;

fn messages(csv: &Value) -> Vec<(&'static str, Severity, String)> {
    let mut out = Vec::new();
    check(csv, "manifests/csv.yaml", &mut out);
    out.into_iter()
        .map(|f| (f.rule, f.severity, f.message))
        .collect()
}

fn errors(csv: &Value) -> Vec<String> {
    messages(csv)
        .into_iter()
        .filter(|(_, s, _)| *s == Severity::Error)
        .map(|(_, _, m)| m)
        .collect()
}

fn base() -> Value {
    json!({
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": "etcdoperator.v0.9.4", "annotations": {
            "alm-examples": "[{\"apiVersion\":\"etcd.database.coreos.com/v1beta2\",\"kind\":\"EtcdCluster\"}]"
        }},
        "spec": {
            "displayName": "etcd",
            "version": "0.9.4",
            "minKubeVersion": "1.16.0",
            "install": {"strategy": "deployment", "spec": {"deployments": [{"name": "x"}]}},
            "installModes": [{"type": "AllNamespaces", "supported": true}],
            "customresourcedefinitions": {"owned": [
                {"name": "etcdclusters.etcd.database.coreos.com", "version": "v1beta2", "kind": "EtcdCluster"}
            ]}
        }
    })
}

#[test]
fn valid_csv_has_no_findings() {
    assert_eq!(messages(&base()), vec![]);
}

#[test]
fn version_conversion() {
    let mut csv = base();
    csv["spec"]["version"] = json!(1);
    assert_eq!(
        errors(&csv),
        vec!["json: cannot unmarshal number into Go value of type string"]
    );
    csv["spec"]["version"] = json!("abc");
    assert_eq!(
        errors(&csv),
        vec!["Invalid character(s) found in major number \"0abc\""]
    );
    csv["spec"]["version"] = json!("v0.9.4");
    assert!(errors(&csv).is_empty());
}

#[test]
fn validator_messages() {
    let mut csv = base();
    csv["metadata"]["name"] = json!("EtcdOperator_v0.9.4");
    csv["spec"]["installModes"] = json!([]);
    csv["spec"]["minKubeVersion"] = json!("1.16");
    csv["spec"]["displayName"] = json!("");
    csv["metadata"]["annotations"]["olm.skiprange"] = json!("<1.0.0");
    let errs = errors(&csv);
    assert!(errs[0].starts_with("(EtcdOperator_v0.9.4) metadata.name \"EtcdOperator_v0.9.4\" is invalid: a lowercase RFC 1123 subdomain"));
    assert!(!errs[0].contains("a valid label"), "{}", errs[0]);
    assert_eq!(
            errs[1..],
            [
                "(EtcdOperator_v0.9.4) install modes not found",
                "(EtcdOperator_v0.9.4) csv.Spec.MinKubeVersion has an invalid value: 1.16",
                "Field Spec.DisplayName, Value field: required field missing",
                "Value EtcdOperator_v0.9.4: provided annotation olm.skiprange uses wrong case and should be olm.skipRange instead",
            ]
        );
}

#[test]
fn examples() {
    let mut csv = base();
    csv["metadata"]["annotations"]["alm-examples"] = json!("[{\"kind\": }]");
    assert_eq!(
            errors(&csv),
            vec!["Value invalid character at 11\n [{\"kind\": }<--(see the invalid character): invalid example"]
        );
    csv["metadata"]["annotations"]["alm-examples"] =
        json!("[{\"apiVersion\":\"x.io/v1\",\"kind\":\"Other\"}]");
    assert_eq!(
        errors(&csv),
        vec!["Value x.io/v1, Kind=Other: example must have a provided API"]
    );
    csv["spec"]["customresourcedefinitions"]["owned"][0]["name"] = json!("nodot");
    assert_eq!(
        errors(&csv)[0],
        "couldn't parse plural.group from crd name: nodot"
    );
}

#[test]
fn name_that_is_no_label_value() {
    let mut csv = base();
    csv["metadata"]["name"] = json!("-x");
    let errs = errors(&csv);
    assert!(
        errs[0].contains(")*'),a valid label must be"),
        "{}",
        errs[0]
    );
}

#[test]
fn install_modes_with_conversion_webhooks() {
    let mut csv = base();
    csv["spec"]["webhookdefinitions"] =
        json!([{"type": "ConversionWebhook", "conversionCRDs": ["a.b"]}]);
    assert!(errors(&csv).is_empty());
    csv["spec"]["installModes"] = json!([
        {"type": "AllNamespaces", "supported": true},
        {"type": "OwnNamespace", "supported": true}
    ]);
    assert_eq!(
            errors(&csv),
            vec!["(etcdoperator.v0.9.4) only AllNamespaces InstallModeType is supported when conversionCRDs is present"]
        );
}

#[test]
fn release_conversion() {
    let mut csv = base();
    csv["spec"]["release"] = json!(true);
    assert_eq!(
        errors(&csv),
        vec!["release field must be a string or number"]
    );
    csv["spec"]["release"] = json!("01");
    assert_eq!(errors(&csv), vec!["invalid release \"01\": segment 0: Numeric PreRelease version must not contain leading zeroes \"01\""]);
    csv["spec"]["release"] = json!(2);
    assert!(errors(&csv).is_empty());
}

#[test]
fn examples_of_the_wrong_shape() {
    let mut csv = base();
    for (examples, want) in [
        (
            "{}",
            "Value json: cannot unmarshal object into Go value of type []unstructured.Unstructured: error decoding example CustomResource",
        ),
        (
            "[1]",
            "Value json: cannot unmarshal number into Go value of type map[string]interface {}: error decoding example CustomResource",
        ),
        (
            "[{\"apiVersion\": \"x.io/v1\", \"a\": \"<\"}]",
            "Value Object 'Kind' is missing in '{\"a\":\"\\u003c\",\"apiVersion\":\"x.io/v1\"}': error decoding example CustomResource",
        ),
    ] {
        csv["metadata"]["annotations"]["alm-examples"] = json!(examples);
        assert_eq!(errors(&csv), vec![want], "{examples}");
    }
}

#[test]
fn name_error_text() {
    let e = csv_name_format("-x").unwrap_err();
    assert_eq!(e.problems.len(), 2);
    assert_eq!(
        e.to_string(),
        format!("\"-x\" is invalid: {}", e.problems.join(","))
    );
}
