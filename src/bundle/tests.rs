//! Table-driven tests of bundle directories built on the fly, mostly inputs
//! upstream rejects or mishandles.

use super::*;
use serde_json::Value;
use std::path::PathBuf;

const ANNOTATIONS: (&str, &str) = (
    "metadata/annotations.yaml",
    "annotations:\n  operators.operatorframework.io.bundle.package.v1: p\n",
);

fn csv(spec: &str) -> String {
    format!("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: p.v1.0.0\nspec:{spec}\n")
}

/// Writes `files` under a fresh directory (with empty `manifests/` and
/// `metadata/`) and returns it.
fn bundle_dir(n: usize, files: &[(&str, String)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bundle-test-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("manifests")).unwrap();
    std::fs::create_dir_all(dir.join("metadata")).unwrap();
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// The rendered properties as `type value` lines.
fn summary(b: &crate::declcfg::Bundle) -> Vec<String> {
    b.properties
        .iter()
        .filter(|p| p.kind != "olm.bundle.object")
        .map(|p| {
            let mut v = String::new();
            crate::encoding::json::write_compact(
                p.value.as_ref().unwrap_or(&Value::Null),
                &mut v,
                false,
            );
            format!("{} {v}", p.kind)
        })
        .collect()
}

struct Case {
    name: &'static str,
    files: Vec<(&'static str, String)>,
    /// `Ok(lines)`: rendered properties other than bundle objects, then
    /// `objects=<n>` and `version=<template version>`; `Err(message)`.
    want: Result<Vec<&'static str>, &'static str>,
}

fn s(text: &str) -> String {
    text.to_string()
}

#[test]
fn bundle_directories() {
    let (ann_path, ann) = ANNOTATIONS;
    let cases = vec![
        Case {
            name: "nothing decodes to an object",
            files: vec![
                (ann_path, s(ann)),
                ("manifests/a.json", s("[1, 2]")),
                ("manifests/b.yaml", s("- a\n- b\n")),
                ("manifests/c.yaml", s("key: [unclosed\n")),
                ("manifests/d.json", s("{\"kind\": \"X\"")),
                ("manifests/e.bin", String::from_utf8_lossy(&[0xff, 0xfe, 0x00, 0x01]).into_owned()),
                ("manifests/f.yaml", s("apiVersion: a/b/c\nkind: X\n")),
                ("manifests/g.yaml", s("kind: 5\n")),
                ("manifests/h.txt", s("just some text\n")),
            ],
            want: Err("no bundle objects found"),
        },
        Case {
            name: "objects but no csv",
            files: vec![(ann_path, s(ann)), ("manifests/cm.yaml", s("apiVersion: v1\nkind: ConfigMap\n"))],
            want: Err("no csv in bundle"),
        },
        Case {
            name: "csv spec is a list",
            files: vec![(ann_path, s(ann)), ("manifests/csv.yaml", csv(" []"))],
            want: Err("error checking provided apis in bundle p.v1.0.0: error getting apiservice definitions: error unmarshaling into object map: json: cannot unmarshal array into Go value of type map[string]*json.RawMessage"),
        },
        Case {
            name: "csv without spec",
            files: vec![
                (ann_path, s(ann)),
                ("manifests/csv.yaml", s("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: p.v1.0.0\n")),
            ],
            want: Err("error checking provided apis in bundle p.v1.0.0: error getting apiservice definitions: error unmarshaling into object map: unexpected end of JSON input"),
        },
        Case {
            name: "numeric csv version",
            files: vec![(ann_path, s(ann)), ("manifests/csv.yaml", csv("\n  version: 1.5"))],
            want: Err("failed to derive properties: json: cannot unmarshal number into Go value of type string"),
        },
        Case {
            name: "crd of an unknown group",
            files: vec![
                (ann_path, s(ann)),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
                ("manifests/crd.yaml", s("apiVersion: example.com/v1\nkind: CustomResourceDefinition\n")),
            ],
            want: Err("error decoding v1 CRD: no kind \"CustomResourceDefinition\" is registered for version \"example.com/v1\" in scheme"),
        },
        Case {
            name: "crd group of the wrong type",
            files: vec![
                (ann_path, s(ann)),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
                ("manifests/crd.yaml", s("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: [a]\n")),
            ],
            want: Err("error decoding v1 CRD: json: cannot unmarshal array into Go struct field CustomResourceDefinitionSpec.spec.group of type string"),
        },
        Case {
            name: "crd spec a string",
            files: vec![
                (ann_path, s(ann)),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
                ("manifests/crd.yaml", s("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: x\n")),
            ],
            want: Err("error decoding v1 CRD: json: cannot unmarshal string into Go struct field CustomResourceDefinitionSpec of type CustomResourceDefinitionSpec"),
        },
        Case {
            name: "crd names a list",
            files: vec![
                (ann_path, s(ann)),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
                ("manifests/crd.yaml", s("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  names: [a]\n")),
            ],
            want: Err("error decoding v1 CRD: json: cannot unmarshal array into Go struct field CustomResourceDefinitionNames of type CustomResourceDefinitionNames"),
        },
        Case {
            name: "crd kind a number",
            files: vec![
                (ann_path, s(ann)),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
                ("manifests/crd.yaml", s("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  names:\n    kind: 5\n")),
            ],
            want: Err("error decoding v1 CRD: json: cannot unmarshal number into Go struct field CustomResourceDefinitionNames.spec.names.kind of type string"),
        },
        Case {
            name: "crd plural a bool",
            files: vec![
                (ann_path, s(ann)),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
                ("manifests/crd.yaml", s("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  names:\n    plural: true\n")),
            ],
            want: Err("error decoding v1 CRD: json: cannot unmarshal bool into Go struct field CustomResourceDefinitionNames.spec.names.plural of type string"),
        },
        Case {
            name: "crd versions an object",
            files: vec![
                (ann_path, s(ann)),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
                ("manifests/crd.yaml", s("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  versions: {name: v1}\n")),
            ],
            want: Err("error decoding v1 CRD: json: cannot unmarshal object into Go struct field CustomResourceDefinitionSpec.spec.versions of type []CustomResourceDefinitionVersion"),
        },
        Case {
            name: "crd version entry a number",
            files: vec![
                (ann_path, s(ann)),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
                ("manifests/crd.yaml", s("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  versions: [1]\n")),
            ],
            want: Err("error decoding v1 CRD: json: cannot unmarshal number into Go struct field CustomResourceDefinitionVersion of type CustomResourceDefinitionVersion"),
        },
        Case {
            name: "crd version name a list",
            files: vec![
                (ann_path, s(ann)),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
                ("manifests/crd.yaml", s("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  versions:\n  - name: [v1]\n")),
            ],
            want: Err("error decoding v1 CRD: json: cannot unmarshal array into Go struct field CustomResourceDefinitionVersion.spec.versions.name of type string"),
        },
        Case {
            name: "crd v1beta1 version a number",
            files: vec![
                (ann_path, s(ann)),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
                ("manifests/crd.yaml", s("apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nspec:\n  version: 1\n")),
            ],
            want: Err("error decoding v1beta1 CRD: json: cannot unmarshal number into Go struct field CustomResourceDefinitionSpec.spec.version of type string"),
        },
        Case {
            name: "apiservicedefinitions a string",
            files: vec![(ann_path, s(ann)), ("manifests/csv.yaml", csv("\n  apiservicedefinitions: x"))],
            want: Err("error checking provided apis in bundle p.v1.0.0: error getting apiservice definitions: json: cannot unmarshal string into Go value of type struct { Owned []*registry.DefinitionKey; Required []*registry.DefinitionKey }"),
        },
        Case {
            name: "owned apiservices a number",
            files: vec![(ann_path, s(ann)), ("manifests/csv.yaml", csv("\n  apiservicedefinitions: {owned: 1}"))],
            want: Err("error checking provided apis in bundle p.v1.0.0: error getting apiservice definitions: json: cannot unmarshal number into Go struct field .owned of type []*registry.DefinitionKey"),
        },
        Case {
            name: "owned apiservice entry a string",
            files: vec![(ann_path, s(ann)), ("manifests/csv.yaml", csv("\n  apiservicedefinitions: {owned: [x]}"))],
            want: Err("error checking provided apis in bundle p.v1.0.0: error getting apiservice definitions: json: cannot unmarshal string into Go struct field .owned of type registry.DefinitionKey"),
        },
        Case {
            name: "owned apiservice kind a list",
            files: vec![(ann_path, s(ann)), ("manifests/csv.yaml", csv("\n  apiservicedefinitions: {owned: [{kind: []}]}"))],
            want: Err("error checking provided apis in bundle p.v1.0.0: error getting apiservice definitions: json: cannot unmarshal array into Go struct field DefinitionKey.owned.kind of type string"),
        },
        Case {
            name: "required crd group a number",
            files: vec![(ann_path, s(ann)), ("manifests/csv.yaml", csv("\n  version: 1.0.0\n  customresourcedefinitions: {required: [{group: 1}]}"))],
            want: Err("error checking provided apis in bundle p.v1.0.0: json: cannot unmarshal number into Go struct field DefinitionKey.required.group of type string"),
        },
        Case {
            name: "related images an object",
            files: vec![(ann_path, s(ann)), ("manifests/csv.yaml", csv("\n  version: 1.0.0\n  relatedImages: {}"))],
            want: Err("get related images for bundle \"p.v1.0.0\": json: cannot unmarshal object into Go value of type []declcfg.RelatedImage"),
        },
        Case {
            name: "related image a string",
            files: vec![(ann_path, s(ann)), ("manifests/csv.yaml", csv("\n  version: 1.0.0\n  relatedImages: [x]"))],
            want: Err("get related images for bundle \"p.v1.0.0\": json: cannot unmarshal string into Go value of type declcfg.RelatedImage"),
        },
        Case {
            name: "related image name a number",
            files: vec![(ann_path, s(ann)), ("manifests/csv.yaml", csv("\n  version: 1.0.0\n  relatedImages: [{name: 1}]"))],
            want: Err("get related images for bundle \"p.v1.0.0\": json: cannot unmarshal number into Go struct field RelatedImage.name of type string"),
        },
        Case {
            name: "template package property a list",
            files: vec![
                (ann_path, s(ann)),
                ("metadata/properties.yaml", s("properties:\n- type: olm.package\n  value: [1]\n")),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
            ],
            want: Err("json: cannot unmarshal array into Go value of type property.Package"),
        },
        Case {
            name: "template package property version a number",
            files: vec![
                (ann_path, s(ann)),
                ("metadata/properties.yaml", s("properties:\n- type: olm.package\n  value: {packageName: p, version: 1}\n")),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
            ],
            want: Err("json: cannot unmarshal number into Go struct field Package.version of type string"),
        },
        Case {
            name: "template package property without a value",
            files: vec![
                (ann_path, s(ann)),
                ("metadata/properties.yaml", s("properties:\n- type: olm.package\n")),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
            ],
            want: Err("unexpected end of JSON input"),
        },
        Case {
            name: "gvk property without a value",
            files: vec![
                (ann_path, s(ann)),
                ("metadata/properties.yaml", s("properties:\n- type: olm.gvk\n")),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
            ],
            want: Err("get properties for bundle \"p.v1.0.0\": parse property[0] of type \"olm.gvk\": unexpected end of JSON input"),
        },
        Case {
            name: "gvk property of the wrong shape",
            files: vec![
                (ann_path, s(ann)),
                ("metadata/properties.yaml", s("properties:\n- type: olm.gvk\n  value: {group: 1}\n")),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
            ],
            want: Err("get properties for bundle \"p.v1.0.0\": parse property[0] of type \"olm.gvk\": json: cannot unmarshal number into Go struct field GVK.group of type string"),
        },
        Case {
            name: "no annotations file",
            files: vec![
                ("metadata/annotations.yaml", s("annotations:\n  other: x\n")),
                ("metadata/sub/annotations.yaml", s(ann)),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
            ],
            want: Err("Could not find annotations file"),
        },
        Case {
            name: "template version from the properties file, rendered package from the last candidate",
            files: vec![
                (ann_path, s(ann)),
                ("metadata/properties.yaml", s("properties:\n- type: olm.package\n  value: {packageName: p, version: 9.9.9}\n")),
                ("manifests/csv.yaml", csv("\n  version: 1.0.0")),
            ],
            want: Ok(vec![r#"olm.package {"packageName":"p","version":"1.0.0"}"#, "objects=1", "version=9.9.9"]),
        },
        Case {
            name: "multi-document manifests, second csv dropped, null dependency",
            files: vec![
                ("metadata/a.json", s(r#"{"Annotations": {"operators.operatorframework.io.bundle.package.v1": "p"}}"#)),
                ("metadata/deps.yaml", s("dependencies:\n- null\n- type: olm.label\n  value: {label: x}\n")),
                (
                    "manifests/all.yaml",
                    format!("{}---\n{}---\napiVersion: v1\nkind: ConfigMap\n---\n[]\n", csv("\n  version: 1.0.0"), csv("\n  version: 2.0.0")),
                ),
            ],
            want: Ok(vec![r#" null"#, r#"olm.label {"label":"x"}"#, r#"olm.package {"packageName":"p","version":"1.0.0"}"#, "objects=2", "version=1.0.0"]),
        },
        Case {
            name: "csv olm.properties with a type error keeps Go's partial result",
            files: vec![
                (ann_path, s(ann)),
                (
                    "manifests/csv.yaml",
                    s("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: p.v1.0.0\n  annotations:\n    olm.properties: '[{\"type\": \"x\", \"value\": {\"b\": 1, \"a\": 2}}, {\"type\": 7, \"value\": 1}]'\nspec:\n  version: 1.0.0\n"),
                ),
            ],
            want: Ok(vec![" 1", r#"olm.package {"packageName":"p","version":"1.0.0"}"#, r#"x {"b":1,"a":2}"#, "objects=1", "version=1.0.0"]),
        },
    ];
    let mut failures = Vec::new();
    for (n, case) in cases.into_iter().enumerate() {
        let dir = bundle_dir(n, &case.files);
        let got = parse_bundle_dir(&dir).and_then(|parsed| {
            let version = parsed.template_fields()?.version;
            let b = parsed.render("")?;
            let mut lines = summary(&b);
            lines.push(format!("objects={}", b.properties.len() - lines.len()));
            lines.push(format!("version={version}"));
            Ok(lines)
        });
        let _ = std::fs::remove_dir_all(&dir);
        let got = got.map_err(|e| e.to_string());
        let want = case
            .want
            .map(|v| v.into_iter().map(str::to_string).collect::<Vec<_>>())
            .map_err(str::to_string);
        if got != want {
            failures.push(format!("{}:\n  want {want:?}\n  got  {got:?}", case.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
