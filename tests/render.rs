use crate::util::Test;

const CATALOG: &str = "schema: olm.package
name: foo
defaultChannel: stable
---
schema: olm.channel
name: stable
package: foo
entries:
- name: foo.v0.1.0
---
schema: olm.bundle
name: foo.v0.1.0
package: foo
image: quay.io/example/foo-bundle:v0.1.0
properties:
- type: olm.package
  value: {packageName: foo, version: 0.1.0}
";

#[test]
fn render_catalog_dir_as_json() {
    let out = Test::new()
        .file("catalog/foo/index.yaml", CATALOG)
        .args(["render", "catalog"])
        .run()
        .success();
    assert_eq!(
        out.stdout,
        r#"{
    "schema": "olm.package",
    "name": "foo",
    "defaultChannel": "stable"
}
{
    "schema": "olm.channel",
    "name": "stable",
    "package": "foo",
    "entries": [
        {
            "name": "foo.v0.1.0"
        }
    ]
}
{
    "schema": "olm.bundle",
    "name": "foo.v0.1.0",
    "package": "foo",
    "image": "quay.io/example/foo-bundle:v0.1.0",
    "properties": [
        {
            "type": "olm.package",
            "value": {
                "packageName": "foo",
                "version": "0.1.0"
            }
        }
    ]
}
"#
    );
}

#[test]
fn render_catalog_dir_as_yaml() {
    let out = Test::new()
        .file("catalog/foo/index.yaml", CATALOG)
        .args(["render", "catalog", "-o", "yaml"])
        .run()
        .success();
    assert_eq!(
        out.stdout,
        "---
defaultChannel: stable
name: foo
schema: olm.package
---
entries:
- name: foo.v0.1.0
name: stable
package: foo
schema: olm.channel
---
image: quay.io/example/foo-bundle:v0.1.0
name: foo.v0.1.0
package: foo
properties:
- type: olm.package
  value:
    packageName: foo
    version: 0.1.0
schema: olm.bundle
"
    );
}

#[test]
fn render_output_is_identical_across_runs() {
    let test = || {
        Test::new()
            .copy("testdata/fbc/example", "catalog")
            .args(["render", "catalog"])
            .run()
            .success()
            .stdout
    };
    let first = test();
    assert!(first.contains("\"schema\": \"olm.deprecations\""));
    assert!(!first.contains("excluded by `.indexignore`"));
    assert_eq!(first, test());
}

#[test]
fn render_empty_directory_prints_nothing() {
    let out = Test::new()
        .dir("catalog")
        .args(["render", "catalog"])
        .run()
        .success();
    assert_eq!(out.stdout, "");
}

#[test]
fn render_unknown_output_is_refused_before_reading() {
    Test::new()
        .args(["render", "missing", "-o", "xml"])
        .run()
        .failure(&[r#"invalid --output value "xml", expected (json|yaml)"#]);
}

#[test]
fn render_missing_path_is_an_image_reference() {
    // `.invalid` never resolves, so the pull fails at once without network.
    Test::new()
        .args(["render", "registry.invalid/example/catalog:latest"])
        .run()
        .failure(&[r#"render reference "registry.invalid/example/catalog:latest": failed to pull image "registry.invalid/example/catalog:latest": "#]);
}

#[test]
fn render_migrate_flags_conflict() {
    Test::new()
        .dir("catalog")
        .args(["render", "catalog", "--migrate", "--migrate-level", "none"])
        .run()
        .failure(&[
            "if any flags in the group [migrate migrate-level] are set none of the others can be",
        ]);
}

#[test]
fn render_keeps_bundle_objects_of_json_catalogs() {
    // Bundle objects are re-read from the file when written; the output must
    // still carry them, after the other properties, for every bundle.
    let csv = "eyJraW5kIjoiQ2x1c3RlclNlcnZpY2VWZXJzaW9uIn0=";
    let mut catalog = String::new();
    for i in 0..70 {
        catalog.push_str(&format!(
            r#"{{"schema":"olm.bundle","name":"foo.v{i}.0.0","package":"foo","image":"","properties":[{{"type":"olm.bundle.object","value":{{"data":"{csv}"}}}},{{"type":"olm.package","value":{{"packageName":"foo","version":"{i}.0.0"}}}}]}}"#
        ));
    }
    let out = Test::new()
        .file("catalog/foo/catalog.json", &catalog)
        .args(["render", "catalog"])
        .run()
        .success();
    assert_eq!(out.stdout.matches(csv).count(), 70);
    let package = out.stdout.find("\"type\": \"olm.package\"").unwrap();
    let object = out.stdout.find("\"type\": \"olm.bundle.object\"").unwrap();
    assert!(package < object, "bundle objects come last");
}
