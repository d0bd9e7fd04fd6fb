//! Malformed bundle directories through `render` and `bundle validate`: a
//! clear message and exit 1 where upstream fails, never a panic.

use crate::util::Test;

const GOOD: &str = "testdata/rules/annotations-missing/valid-all-labels";

fn bundle() -> Test {
    Test::new().copy(GOOD, "bundle")
}

#[test]
fn malformed_manifest_yaml() {
    let validate = bundle()
        .file("bundle/manifests/bad.yaml", "kind: [unclosed\n")
        .args(["bundle", "validate", "bundle"])
        .run()
        .failure(&["did not find expected ',' or ']'", "manifests/bad.yaml"]);
    assert_eq!(validate.stdout, "");
    // Upstream's render skips manifests that do not decode.
    let render = bundle()
        .file("bundle/manifests/bad.yaml", "kind: [unclosed\n")
        .args(["render", "bundle"])
        .run()
        .success();
    assert!(render.stdout.contains("\"name\": \"etcdoperator.v0.9.4\""));
}

#[test]
fn malformed_annotations_file() {
    for args in [&["bundle", "validate", "bundle"][..], &["render", "bundle"]] {
        bundle()
            .file("bundle/metadata/annotations.yaml", "annotations: [\n")
            .args(args.iter().copied())
            .run()
            .failure(&["Could not find annotations file"]);
    }
}

#[test]
fn missing_manifests_or_metadata() {
    let test = bundle();
    std::fs::remove_dir_all(test.path().join("bundle/metadata")).unwrap();
    test.args(["bundle", "validate", "bundle"])
        .run()
        .failure(&["Unable to locate metadata directory"]);
    let test = bundle();
    std::fs::remove_dir_all(test.path().join("bundle/manifests")).unwrap();
    test.args(["bundle", "validate", "bundle"])
        .run()
        .failure(&["Unable to locate manifests directory"]);
    // Without metadata/ the directory is not a bundle, so render reads it as
    // a catalog and names the file it cannot use.
    let test = bundle();
    std::fs::remove_dir_all(test.path().join("bundle/metadata")).unwrap();
    test.args(["render", "bundle"]).run().failure(&[
        "is missing root schema field",
        "bundle/manifests/csv.yaml:1:1: error[catalog-blob-invalid]",
    ]);
}

#[test]
fn several_csvs() {
    let csv2 = std::fs::read_to_string(format!(
        "{}/{GOOD}/manifests/csv.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replace("etcdoperator.v0.9.4", "other.v1.0.0");
    let validate = bundle()
        .file("bundle/manifests/csv2.yaml", &csv2)
        .args(["bundle", "validate", "bundle"])
        .run()
        .success();
    assert!(
        validate.stderr.contains("[bundle-csv-multiple]"),
        "{}",
        validate.stderr
    );
    let render = bundle()
        .file("bundle/manifests/csv2.yaml", &csv2)
        .args(["render", "bundle"])
        .run()
        .success();
    assert!(render.stdout.contains("\"name\": \"etcdoperator.v0.9.4\""));
    assert!(!render.stdout.contains("\"name\": \"other.v1.0.0\""));
}

#[test]
fn no_csv() {
    let test = bundle().file(
        "bundle/manifests/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    );
    std::fs::remove_file(test.path().join("bundle/manifests/csv.yaml")).unwrap();
    test.args(["render", "bundle"])
        .run()
        .failure(&["no csv in bundle"]);
    let test = bundle().file(
        "bundle/manifests/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    );
    std::fs::remove_file(test.path().join("bundle/manifests/csv.yaml")).unwrap();
    test.args(["bundle", "validate", "bundle"])
        .run()
        .failure(&["no csv in bundle"]);
}

#[test]
fn directory_that_is_not_a_bundle() {
    Test::new()
        .file("notes/readme.txt", "hello\n")
        .args(["bundle", "validate", "notes"])
        .run()
        .failure(&[
            "Unable to locate manifests directory",
            "Unable to locate metadata directory",
        ]);
}

#[test]
fn unreadable_manifest() {
    let test = bundle();
    std::os::unix::fs::symlink(
        "missing.yaml",
        test.path().join("bundle/manifests/link.yaml"),
    )
    .unwrap();
    test.args(["bundle", "validate", "bundle"])
        .run()
        .failure(&["manifests/link.yaml"]);
}
