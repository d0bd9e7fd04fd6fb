//! Every real catalog of the shared corpus validates and renders in both formats.

use crate::util::Test;
use std::path::PathBuf;

/// The corpus catalogs, or `None` (the test is skipped) without the kit.
fn corpus_catalogs() -> Option<Vec<PathBuf>> {
    let root = crate::util::shared("corpus/fbc")?;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("corpus at {}: {e}", root.display()))
        .map(|entry| entry.expect("corpus entry").path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 6, "expected the six corpus catalogs");
    Some(dirs)
}

#[test]
fn corpus_catalogs_validate_and_render() {
    let Some(catalogs) = corpus_catalogs() else {
        return;
    };
    for dir in catalogs {
        let dir = dir.to_str().expect("utf-8 path").to_string();
        Test::new().args(["validate", &dir]).run().success();
        let json = Test::new().args(["render", &dir]).run().success();
        let documents = serde_json::Deserializer::from_str(&json.stdout)
            .into_iter::<serde_json::Value>()
            .collect::<Result<Vec<_>, _>>()
            .unwrap_or_else(|e| panic!("{dir}: rendered JSON does not parse: {e}"));
        assert!(!documents.is_empty(), "{dir}: nothing rendered");
        let yaml = Test::new()
            .args(["render", &dir, "-o", "yaml"])
            .run()
            .success();
        assert_eq!(
            yaml.stdout.matches("\n---\n").count() + 1,
            documents.len(),
            "{dir}: YAML and JSON renderings hold different numbers of blobs"
        );
    }
}

#[test]
fn corpus_bundles_render() {
    let Some(bundles) = crate::util::corpus_bundles("") else {
        return;
    };
    assert!(
        bundles.len() >= 450,
        "expected the corpus bundles, found {}",
        bundles.len()
    );
    for bundle in bundles {
        let dir = bundle.to_str().expect("utf-8 path");
        let out = Test::new().args(["render", dir]).run().success();
        assert!(out.stdout.contains("\"schema\": \"olm.bundle\""), "{dir}");
    }
}
