use crate::util::Test;

#[test]
fn validate_example_catalog_passes() {
    let out = Test::new()
        .copy("testdata/fbc/example", "catalog")
        .args(["validate", "catalog"])
        .run()
        .success();
    // Piped: no progress line, nothing at all.
    assert_eq!(out.stderr, "");
}

#[test]
fn validate_json_output_of_a_passing_catalog() {
    let out = Test::new()
        .copy("testdata/fbc/example", "catalog")
        .args(["validate", "catalog", "-o", "json"])
        .run()
        .success();
    assert_eq!(out.stdout, "{\n  \"passed\": true\n}\n");
}

#[test]
fn validate_reports_every_problem_at_once() {
    let out = Test::new()
        .file(
            "catalog/a.yaml",
            "schema: olm.package\nname: foo\n---\nschema: olm.package\nname: bar\n",
        )
        .args(["validate", "catalog"])
        .run()
        .failure(&[
            "invalid index:",
            "invalid package \"bar\":",
            "invalid package \"foo\":",
            "default channel must be set",
        ]);
    // Packages are reported in name order, so output never changes between runs.
    let bar = out.stderr.find("invalid package \"bar\"").unwrap();
    let foo = out.stderr.find("invalid package \"foo\"").unwrap();
    assert!(bar < foo);
}

#[test]
fn validate_json_output_of_a_failing_catalog() {
    let out = Test::new()
        .file(
            "catalog/a.yaml",
            "schema: olm.package\nname: foo\ndefaultChannel: stable\n",
        )
        .args(["validate", "catalog", "-o", "json"])
        .run();
    assert_eq!(out.code, 1);
    assert!(out
        .stdout
        .starts_with("{\n  \"passed\": false,\n  \"error\": {\n    \"message\": \"invalid index:"));
}

#[test]
fn validate_needs_exactly_one_directory() {
    Test::new()
        .args(["validate"])
        .run()
        .failure(&["accepts 1 arg(s), received 0"]);
    Test::new()
        .args(["validate", "a", "b"])
        .run()
        .failure(&["accepts 1 arg(s), received 2"]);
}

#[test]
fn validate_refuses_a_file() {
    Test::new()
        .file("index.yaml", "schema: olm.package\nname: foo\n")
        .args(["validate", "index.yaml"])
        .run()
        .failure(&["\"index.yaml\" is not a directory"]);
}

#[test]
fn validate_missing_directory() {
    Test::new()
        .args(["validate", "nope"])
        .run()
        .failure(&["stat nope: no such file or directory"]);
}
