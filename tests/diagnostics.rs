//! Where problems are reported: `FILE:LINE:COL: severity[rule]: message`, with lines and
//! columns counted from the start of the file (not of the document), for syntax errors in
//! every document of multi-document JSON and YAML files, for fields of blobs, and for channel
//! entries reported in the file that holds the channel.

use crate::util::Test;

/// The stderr lines of `opm validate catalog` over `files`.
fn validate(files: &[(&str, &str)]) -> Vec<String> {
    let mut test = Test::new();
    for (path, contents) in files {
        test = test.file(&format!("catalog/{path}"), contents);
    }
    let out = test.args(["validate", "catalog"]).run();
    assert_eq!(out.code, 1, "stderr:\n{}", out.stderr);
    out.stderr.lines().map(str::to_string).collect()
}

const PACKAGE: &str = "schema: olm.package\nname: a\n";

#[test]
fn yaml_syntax_errors_in_every_document_of_a_file() {
    let broken = "schema: olm.package\nname: b\n  bad: [\n";
    for (place, text, line) in [
        ("first", format!("{broken}---\n{PACKAGE}"), 3),
        ("middle", format!("{PACKAGE}---\n{broken}---\n{PACKAGE}"), 6),
        ("last", format!("{PACKAGE}---\n{PACKAGE}---\n{broken}"), 9),
    ] {
        assert_eq!(
            validate(&[("x.yaml", &text)]),
            [
                format!("catalog/x.yaml:{line}:6: error[catalog-document-invalid]: error converting YAML to JSON: yaml: line 3: mapping values are not allowed in this context"),
                "Error: 1 error in \"catalog\"".to_string(),
            ],
            "{place} document"
        );
    }
}

#[test]
fn json_syntax_errors_in_every_document_of_a_stream() {
    let good = "{\"schema\":\"olm.package\",\"name\":\"a\"}\n";
    let broken = "{\"schema\":\"olm.package\",\n  \"name\": \"b\",, }\n";
    for (place, before) in [("first", 0), ("middle", 1), ("last", 2)] {
        let text = format!("{}{broken}{}", good.repeat(before), good.repeat(2 - before));
        let lines = validate(&[("x.json", &text)]);
        let line = before + 2;
        // Upstream reports the offset while the stream could still be YAML (first two
        // documents), the bare JSON message after that.
        let offset = if before < 2 {
            format!("json: offset {}: ", good.len() * before + 40)
        } else {
            String::new()
        };
        assert_eq!(
            lines[0],
            format!("catalog/x.json:{line}:15: error[catalog-document-invalid]: {offset}invalid character ',' looking for beginning of object key string"),
            "{place} document"
        );
    }
}

#[test]
fn invalid_blobs_in_every_document_of_a_file() {
    let bad_yaml = "schema: olm.channel\nname: 5\n";
    let bad_json = "  {\"schema\":\"olm.channel\",\n \"name\":5}\n";
    let good_json = "{\"schema\":\"olm.package\",\"name\":\"a\"}\n";
    for (place, file, text, at) in [
        (
            "first",
            "x.yaml",
            format!("{bad_yaml}---\n{PACKAGE}"),
            "1:1",
        ),
        // A comment before the document: the place is its first field.
        (
            "middle",
            "x.yaml",
            format!("{PACKAGE}---\n# c\n{bad_yaml}---\n{PACKAGE}"),
            "5:1",
        ),
        (
            "last",
            "x.yaml",
            format!("{PACKAGE}---\n{PACKAGE}---\n\n{bad_yaml}"),
            "8:1",
        ),
        (
            "first",
            "x.json",
            format!("{bad_json}{good_json}{good_json}"),
            "1:3",
        ),
        (
            "middle",
            "x.json",
            format!("{good_json}{bad_json}{good_json}"),
            "2:3",
        ),
        (
            "last",
            "x.json",
            format!("{good_json}{good_json}{bad_json}"),
            "3:3",
        ),
    ] {
        let lines = validate(&[(file, &text)]);
        let expected = format!("catalog/{file}:{at}: error[catalog-blob-invalid]: ");
        assert!(
            lines[0].starts_with(&expected)
                && lines[0]
                    .ends_with("expected value for key \"name\" to be a string, got number: 5"),
            "{place} document of {file}: {lines:?}"
        );
    }
}

#[test]
fn blob_problems_point_at_the_field() {
    let bundle = "schema: olm.bundle\nname: a.v1\npackage: a\nimage: \"not a valid image!\"\nproperties:\n  - type: olm.package\n    value: {packageName: a, version: 1.0.0}\n";
    let lines = validate(&[(
        "a.yaml",
        &format!("{PACKAGE}defaultChannel: stable\n---\nschema: olm.channel\npackage: a\nname: stable\nentries:\n  - name: a.v1\n---\n{bundle}"),
    )]);
    assert_eq!(
        lines[0],
        "catalog/a.yaml:14:1: error[bundle-image-invalid]: package \"a\" bundle \"a.v1\" image: invalid image pull spec \"not a valid image!\": invalid reference format"
    );
    // A blob that does not decode is placed at its document.
    let lines = validate(&[(
        "b.json",
        "{\"schema\":\"olm.package\",\"name\":\"a\"}\n  {\"schema\":\"olm.channel\",\"name\":5}\n",
    )]);
    assert!(
        lines[0] == "catalog/b.json:2:3: error[catalog-blob-invalid]: expected value for key \"name\" to be a string, got number: 5",
        "{lines:?}"
    );
}

#[test]
fn a_bad_skip_range_is_reported_where_the_channel_is() {
    let package = "schema: olm.package\nname: a\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: a\nname: stable\nentries:\n  - name: a.v1\n  - name: a.v2\n    replaces: a.v1\n    skipRange: \"<=a.b\"\n";
    let bundles = "{\"schema\":\"olm.bundle\",\"name\":\"a.v1\",\"package\":\"a\",\"image\":\"quay.io/a:1\",\"properties\":[{\"type\":\"olm.package\",\"value\":{\"packageName\":\"a\",\"version\":\"1.0.0\"}}]}\n{\"schema\":\"olm.bundle\",\"name\":\"a.v2\",\"package\":\"a\",\"image\":\"quay.io/a:2\",\"properties\":[{\"type\":\"olm.package\",\"value\":{\"packageName\":\"a\",\"version\":\"2.0.0\"}}]}\n";
    let lines = validate(&[("package.yaml", package), ("bundles.json", bundles)]);
    assert_eq!(
        lines,
        [
            "Error: invalid index:",
            "└── invalid package \"a\":",
            "    └── invalid channel \"stable\":",
            "        └── invalid bundle \"a.v2\":",
            "            └── invalid skipRange \"<=a.b\": Could not get version from string: \"<=a.b\"  (catalog/package.yaml:12:5: error[bundle-skip-range-invalid])",
        ]
    );
}

#[test]
fn every_problem_is_shown_once() {
    let lines = validate(&[
        (
            "a.yaml",
            "schema: olm.package\nname: foo\n---\nschema: olm.package\nname: foo\n",
        ),
        ("b.yaml", "schema: olm.package\nname: bar\n"),
    ]);
    assert_eq!(
        lines,
        [
            "catalog/a.yaml:4:1: error[package-duplicate]: duplicate package \"foo\"",
            "Error: invalid index:",
            "└── invalid package \"bar\":",
            "    ├── default channel must be set  (catalog/b.yaml:1:1: error[package-default-channel-unset])",
            "    └── package must contain at least one channel  (catalog/b.yaml:1:1: error[package-no-channels])",
        ]
    );
}

#[test]
fn bundle_findings_point_into_the_csv() {
    const BUNDLE: &str = "testdata/rules/annotations-missing/valid-all-labels";
    let csv = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(BUNDLE)
            .join("manifests/csv.yaml"),
    )
    .unwrap();
    // A second document before the CSV moves it down the file.
    let config = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\n";
    let out = Test::new()
        .copy(BUNDLE, "bundle")
        .file(
            "bundle/manifests/csv.yaml",
            format!(
                "{config}{}",
                csv.replace("minKubeVersion: 1.20.0", "minKubeVersion: \"1.16\"")
            ),
        )
        .args(["bundle", "validate", "bundle"])
        .run()
        .failure(&[]);
    assert!(
        out.stderr
            .starts_with("bundle/manifests/csv.yaml:15:3: error[csv-min-kube-version-invalid]: "),
        "{}",
        out.stderr
    );
    // The same finding in JSON.
    let out = Test::new()
        .copy(BUNDLE, "bundle")
        .file(
            "bundle/manifests/csv.yaml",
            csv.replace("minKubeVersion: 1.20.0", "minKubeVersion: \"1.16\""),
        )
        .args(["bundle", "validate", "bundle", "--output-format", "json"])
        .run();
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let finding = &report["findings"][0];
    assert_eq!(finding["rule"], "csv-min-kube-version-invalid");
    assert_eq!(
        (
            finding["file"].as_str(),
            finding["line"].as_u64(),
            finding["column"].as_u64(),
            finding["document"].as_u64(),
            finding["pointer"].as_str()
        ),
        (
            Some("bundle/manifests/csv.yaml"),
            Some(10),
            Some(3),
            Some(1),
            Some("/spec/minKubeVersion")
        )
    );
}

/// Checks `log` against the SARIF 2.1.0 schema with Python's `jsonschema`; `false` when that
/// module is not installed.
fn sarif_is_valid(log: &str) -> bool {
    let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/sarif/sarif-2.1.0-rtm.5.json");
    let has_module = std::process::Command::new("/usr/bin/python3")
        .args(["-c", "import jsonschema"])
        .status()
        .is_ok_and(|status| status.success());
    if !has_module {
        crate::util::skip("SARIF schema check: Debian's python3-jsonschema is not installed");
        return false;
    }
    let script = "import json, sys, jsonschema\n\
                  schema = json.load(open(sys.argv[1]))\n\
                  jsonschema.validate(json.load(sys.stdin), schema)\n";
    let mut child = std::process::Command::new("/usr/bin/python3")
        .args(["-c", script])
        .arg(&schema)
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(log.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "not valid SARIF: {}\n{log}",
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

#[test]
fn validate_writes_sarif() {
    let out = Test::new()
        .file(
            "catalog/a.yaml",
            "schema: olm.package\nname: foo\n---\nschema: olm.package\nname: foo\n",
        )
        .file("catalog/b.yaml", "schema: olm.package\nname: bar\n")
        .args(["validate", "catalog", "-o", "sarif"])
        .run();
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    sarif_is_valid(&out.stdout);
    let log: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let results = &log["runs"][0]["results"];
    assert_eq!(results[0]["ruleId"], "package-duplicate");
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"],
        serde_json::json!({"artifactLocation": {"uri": "catalog/a.yaml"}, "region": {"startLine": 4, "startColumn": 1}})
    );
    assert_eq!(results[1]["ruleId"], "package-default-channel-unset");
    assert_eq!(
        results[1]["message"]["text"],
        "package \"bar\": default channel must be set"
    );
    // A passing catalog is an empty log.
    let out = Test::new()
        .copy("testdata/fbc/example", "catalog")
        .args(["validate", "catalog", "-o", "sarif"])
        .run()
        .success();
    sarif_is_valid(&out.stdout);
    let log: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
}

#[test]
fn bundle_validate_writes_sarif() {
    let out = Test::new()
        .copy(
            "testdata/rules/csv-min-kube-version-invalid/invalid-two-parts",
            "bundle",
        )
        .args([
            "bundle",
            "validate",
            "bundle",
            "--output-format",
            "sarif",
            "-o",
            "operatorhub",
        ])
        .run();
    assert_eq!(out.code, 1, "{}", out.stderr);
    sarif_is_valid(&out.stdout);
    let log: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let finding = results
        .iter()
        .find(|r| r["ruleId"] == "csv-min-kube-version-invalid")
        .expect("the finding");
    assert_eq!(finding["level"], "error");
    let region = &finding["locations"][0]["physicalLocation"]["region"];
    assert!(region["startLine"].as_u64().unwrap() > 1, "{finding}");
}

#[test]
fn rules_are_listed_and_explained() {
    let out = Test::new()
        .args(["validate", "--list-rules"])
        .run()
        .success();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines.len() > 100);
    assert!(lines
        .iter()
        .any(|l| l.starts_with("csv-min-kube-version-missing") && l.contains(" warning ")));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("channel-graph-invalid") && l.contains(" error ")));
    let out = Test::new()
        .args([
            "validate",
            "--explain",
            "dependency-constraint-form-ignored",
        ])
        .run()
        .success();
    assert!(out
        .stdout
        .starts_with("dependency-constraint-form-ignored\nseverity: warning\n\n"));
    Test::new()
        .args(["validate", "--explain", "no-such-rule"])
        .run()
        .failure(&["unknown rule \"no-such-rule\""]);
}

#[test]
fn empty_catalogs_and_renders_warn_and_still_pass() {
    let out = Test::new()
        .dir("catalog")
        .args(["validate", "catalog"])
        .run()
        .success();
    assert_eq!(
        out.stderr,
        "warning[catalog-empty]: the catalog holds no file-based catalog object\n"
    );
    let out = Test::new()
        .dir("catalog")
        .args(["render", "catalog"])
        .run()
        .success();
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "warning: nothing to render: the references hold no file-based catalog object\n"
    );
    Test::new()
        .dir("catalog")
        .args(["validate", "catalog", "--strict"])
        .run()
        .failure(&["error[catalog-empty]", "Error: 1 error in \"catalog\""]);
}

#[test]
fn graph_warnings_pass_unless_strict() {
    let package = "schema: olm.package\nname: a\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: a\nname: stable\nentries:\n  - name: a.v1\n    replaces: a.v0\n    skips: [a.v0]\n    skipRange: \">=0.1.0 <2.0.0\"\n";
    let bundles = "{\"schema\":\"olm.bundle\",\"name\":\"a.v1\",\"package\":\"a\",\"image\":\"quay.io/a:1\",\"properties\":[{\"type\":\"olm.package\",\"value\":{\"packageName\":\"a\",\"version\":\"1.0.0\"}}]}\n";
    let run = |strict: bool| {
        let mut args = vec!["validate", "catalog"];
        if strict {
            args.push("--strict");
        }
        Test::new()
            .file("catalog/package.yaml", package)
            .file("catalog/bundles.json", bundles)
            .args(args)
            .run()
    };
    let out = run(false).success();
    assert_eq!(
        out.stderr,
        "catalog/package.yaml:12:5: warning[bundle-skip-range-beyond-version]: package \"a\", bundle \"a.v1\": skipRange \">=0.1.0 <2.0.0\" admits versions above the bundle's own version 1.0.0: an installed newer version would move to this older bundle\n\
         catalog/package.yaml:10:5: warning[channel-replaces-unknown]: package \"a\", bundle \"a.v1\": replaces \"a.v0\", which is in no channel of the package\n"
    );
    let out = run(true).failure(&["Error: invalid index:"]);
    assert!(
        out.stderr
            .contains("error[bundle-skip-range-beyond-version])"),
        "{}",
        out.stderr
    );
}
