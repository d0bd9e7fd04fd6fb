//! Malformed catalogs: exit 1, a message naming the file, never a panic.

use crate::util::Test;

fn bad(file: &str, contents: &str, fragments: &[&str]) {
    for command in ["render", "validate"] {
        let out = Test::new()
            .file(
                "catalog/good.yaml",
                "schema: olm.package\nname: good\ndefaultChannel: s\n",
            )
            .file(file, contents)
            .args([command, "catalog"])
            .run()
            .failure(fragments);
        assert!(
            out.stderr.contains(&format!("{file}:")),
            "{command}: stderr does not name {file}:\n{}",
            out.stderr
        );
        assert_eq!(
            out.stdout, "",
            "{command} printed data for a broken catalog"
        );
    }
}

#[test]
fn yaml_syntax_error() {
    bad(
        "catalog/pkg/index.yaml",
        "schema: olm.package\nname: [foo\n",
        &["error converting YAML to JSON: yaml: line 2"],
    );
}

#[test]
fn json_syntax_error() {
    bad(
        "catalog/pkg/index.json",
        "{\"schema\": \"olm.package\", \"name\": }",
        &["json: offset"],
    );
}

#[test]
fn non_object_documents() {
    bad("catalog/list.json", "[1, 2]", &["cannot unmarshal array"]);
    bad(
        "catalog/text.txt",
        "just some words\n",
        &["cannot unmarshal string"],
    );
    bad("catalog/number.yaml", "5\n", &["cannot unmarshal number"]);
}

#[test]
fn non_string_schema() {
    bad(
        "catalog/x.json",
        "{\"schema\": 5}",
        &["expected value for key \"schema\" to be a string"],
    );
    bad(
        "catalog/x.yaml",
        "schema: [a]\n",
        &["expected value for key \"schema\" to be a string"],
    );
}

#[test]
fn missing_schema() {
    bad(
        "catalog/x.yaml",
        "name: foo\n",
        &["is missing root schema field"],
    );
}

#[test]
fn bad_base64_icon() {
    bad(
        "catalog/x.yaml",
        "schema: olm.package\nname: x\nicon:\n  base64data: 'no!'\n  mediatype: image/png\n",
        &["parse package:", "illegal base64 data at input byte 2"],
    );
}

#[test]
fn bad_base64_bundle_object() {
    bad(
        "catalog/x.yaml",
        "schema: olm.bundle\nname: b\npackage: good\nproperties:\n- type: olm.bundle.object\n  value: {data: '!!'}\n",
        &["read bundle objects: package \"good\", bundle \"b\"", "illegal base64 data at input byte 0"],
    );
}

#[test]
fn unreadable_file() {
    // A dangling link cannot be read, even by root.
    let test = Test::new().file(
        "catalog/good.yaml",
        "schema: olm.package\nname: good\ndefaultChannel: s\n",
    );
    std::os::unix::fs::symlink("does-not-exist", test.path().join("catalog/broken.yaml")).unwrap();
    let out = test.args(["validate", "catalog"]).run();
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("catalog/broken.yaml"), "{}", out.stderr);
    assert!(
        out.stderr.contains("no such file or directory"),
        "{}",
        out.stderr
    );
}

#[test]
fn every_bad_file_is_reported() {
    let out = Test::new()
        .file("catalog/a.yaml", "schema: [\n")
        .file("catalog/b.json", "[]")
        .args(["render", "catalog"])
        .run()
        .failure(&[
            "catalog/a.yaml:2:1: error[catalog-document-invalid]",
            "catalog/b.json:1:1: error[catalog-blob-invalid]",
        ]);
    assert_eq!(out.stdout, "");
}

#[test]
fn file_given_where_a_directory_is_expected() {
    Test::new()
        .file("c.yaml", "schema: olm.package\nname: x\n")
        .args(["render", "c.yaml"])
        .run()
        .failure(&["render reference \"c.yaml\": ref \"c.yaml\" is not a directory: not allowed"]);
    Test::new()
        .file("c.yaml", "schema: olm.package\nname: x\n")
        .args(["validate", "c.yaml"])
        .run()
        .failure(&["\"c.yaml\" is not a directory"]);
    Test::new()
        .file("c.yaml", "x")
        .args(["generate", "dockerfile", "c.yaml"])
        .run()
        .failure(&["provided root path \"c.yaml\" is not a directory"]);
}

#[test]
fn binary_garbage_never_panics() {
    let mut garbage = Vec::new();
    let mut x: u32 = 12345;
    for _ in 0..4096 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        garbage.push((x >> 16) as u8);
    }
    for name in ["catalog/g.yaml", "catalog/g.json"] {
        let mut contents = garbage.clone();
        if name.ends_with(".json") {
            contents.insert(0, b'{');
        }
        let out = Test::new()
            .file(name, &contents)
            .args(["validate", "catalog"])
            .run();
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    }
}
