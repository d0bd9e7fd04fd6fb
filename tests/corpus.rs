//! Every real catalog of the shared corpus validates and renders in both formats,
//! byte for byte as recorded.

use crate::util::Test;
use sha2::Digest as _;
use std::path::{Path, PathBuf};

/// The SHA-256 of every corpus catalog's rendering, `<hex>  <catalog>.<format>`
/// per line (`scripts/render-check --record` writes it).
const RECORDED: &str = include_str!("../testdata/corpus-render.sha256");

/// The recorded digest of `catalog`'s rendering in `format`.
fn recorded_digest(catalog: &Path, format: &str) -> &'static str {
    let name = format!(
        "{}.{format}",
        catalog.file_name().expect("catalog name").to_string_lossy()
    );
    RECORDED
        .lines()
        .find_map(|line| {
            let (digest, file) = line.split_once("  ")?;
            (file == name).then_some(digest)
        })
        .unwrap_or_else(|| panic!("no digest recorded for {name} in testdata/corpus-render.sha256"))
}

fn sha256_hex(text: &str) -> String {
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

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

/// Renderings are compared with digests recorded before any change meant to
/// leave output alone (a faster loader or writer): a changed byte fails here.
#[test]
fn corpus_catalogs_validate_and_render() {
    let Some(catalogs) = corpus_catalogs() else {
        return;
    };
    for path in catalogs {
        let dir = path.to_str().expect("utf-8 path").to_string();
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
        for (format, text) in [("json", &json.stdout), ("yaml", &yaml.stdout)] {
            assert_eq!(
                sha256_hex(text),
                recorded_digest(&path, format),
                "{dir}: the {format} rendering differs from the recorded one (scripts/render-check shows which)"
            );
        }
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
