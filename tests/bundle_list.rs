//! `opm bundle list`: the YAML stream of what OLM applies, read back with an
//! independent YAML parser (yaml_serde).

use crate::util::Test;

/// Parses a `bundle list` stream: every document must be a Kubernetes object
/// (a mapping with string `apiVersion`, `kind` and `metadata.name`). Returns
/// the (kind, name) of each.
pub fn parse_stream(stream: &str) -> Vec<(String, String)> {
    assert!(
        stream.is_empty() || stream.starts_with("---\n"),
        "every document starts with ---"
    );
    let mut out = Vec::new();
    for document in yaml_serde::Deserializer::from_str(stream) {
        let value: serde_json::Value = serde::Deserialize::deserialize(document)
            .unwrap_or_else(|e| panic!("bundle list output is not YAML: {e}"));
        let text = |pointer: &str| {
            value
                .pointer(pointer)
                .and_then(serde_json::Value::as_str)
                .unwrap_or_else(|| panic!("document without {pointer}: {value}"))
                .to_string()
        };
        text("/apiVersion");
        out.push((text("/kind"), text("/metadata/name")));
    }
    out
}

#[test]
fn every_community_corpus_bundle_lists_as_kubernetes_objects() {
    let Some(bundles) = crate::util::corpus_bundles("community") else {
        return;
    };
    assert!(
        bundles.len() >= 200,
        "expected the community corpus bundles, found {}",
        bundles.len()
    );
    let mut objects = 0;
    for bundle in &bundles {
        let dir = bundle.to_str().expect("utf-8 path");
        let out = Test::new().args(["bundle", "list", dir]).run().success();
        let listed = parse_stream(&out.stdout);
        let csvs = listed
            .iter()
            .filter(|(kind, _)| kind == "ClusterServiceVersion")
            .count();
        assert_eq!(csvs, 1, "{dir}: one CSV in {listed:?}");
        // CRDs come first, then the CSV.
        let first_other = listed
            .iter()
            .position(|(kind, _)| kind != "CustomResourceDefinition")
            .expect("a CSV");
        assert_eq!(listed[first_other].0, "ClusterServiceVersion", "{dir}");
        objects += listed.len();
    }
    // 232 bundles and 1683 objects in the corpus when this was written.
    assert!(objects > 2 * bundles.len(), "{objects} objects");
}
