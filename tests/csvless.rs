//! CSV-less bundles end to end, from the seed's own kiali example: init from
//! its manifests, validate, list, render, build to a file and to a real
//! registry, then render, list and validate the pushed image. Also plain+v0
//! bundles, and what `bundle validate` reports for broken registry+v2 ones.

use crate::bundle_list::parse_stream;
use crate::util::registry::Registry;
use crate::util::{copy_tree, Test};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// `opm <args>` in `dir`; exit code, stdout, stderr.
fn opm(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_opm"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run opm");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let (code, stdout, stderr) = opm(dir, args);
    assert_eq!(code, 0, "opm {args:?} failed:\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stdout
}

fn repo(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Every file under `dir`, relative and sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut found: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            e.path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    found.sort();
    found
}

/// The rendered `olm.bundle` and its decoded bundle objects.
fn rendered(json: &str) -> (Value, Vec<Value>) {
    let bundle: Value = serde_json::from_str(json).expect("render prints one JSON blob");
    let objects = bundle["properties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "olm.bundle.object")
        .map(|p| {
            let data = p["value"]["data"].as_str().unwrap();
            let bytes = opm::encoding::base64::decode_go(data.as_bytes()).expect("base64");
            serde_json::from_slice(&bytes).expect("object JSON")
        })
        .collect();
    (bundle, objects)
}

fn property<'a>(bundle: &'a Value, kind: &str) -> Vec<&'a Value> {
    bundle["properties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == kind)
        .map(|p| &p["value"])
        .collect()
}

/// The kiali example as the seed tells it: `opm bundle init kiali-csvless`
/// in a directory holding the manifests, then the seed's `bundle.yaml`.
fn kiali_bundle() -> tempfile::TempDir {
    let work = tempfile::tempdir().unwrap();
    copy_tree(
        &repo("testdata/kiali-csvless"),
        &work.path().join("kiali-csvless"),
    );
    ok(
        work.path(),
        &[
            "bundle",
            "init",
            "kiali-csvless",
            "-p",
            "kiali",
            "-c",
            "alpha,stable",
            "-e",
            "stable",
        ],
    );
    assert_eq!(
        files(work.path()),
        [
            "kiali-csvless/crds.yaml",
            "kiali-csvless/deployment.yaml",
            "kiali-csvless/rbac.yaml",
            "manifests/crds.yaml",
            "manifests/deployment.yaml",
            "manifests/rbac.yaml",
            "metadata/annotations.yaml",
            "metadata/bundle.yaml",
            "metadata/dependencies.yaml",
        ],
        "the seed's tree after init"
    );
    let annotations =
        std::fs::read_to_string(work.path().join("metadata/annotations.yaml")).unwrap();
    assert!(
        annotations.contains("operators.operatorframework.io.bundle.mediatype.v1: registry+v2\n")
    );
    // The bundle.yaml init wrote already validates; the seed's richer one
    // (its repeated `version` key removed) replaces it.
    ok(work.path(), &["bundle", "validate", "."]);
    std::fs::copy(
        repo("testdata/kiali-csvless-metadata/bundle.yaml"),
        work.path().join("metadata/bundle.yaml"),
    )
    .unwrap();
    work
}

#[test]
fn seed_kiali_bundle_end_to_end() {
    let work = kiali_bundle();
    let dir = work.path();

    let (code, _, stderr) = opm(dir, &["bundle", "validate", "."]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("All validation tests have been completed successfully"));

    // list: the CRDs, then the synthesised CSV; the RBAC and the Deployment
    // are carried by the CSV.
    let stream = ok(dir, &["bundle", "list", "."]);
    let listed = parse_stream(&stream);
    assert_eq!(
        listed,
        [
            (
                "CustomResourceDefinition".to_string(),
                "kialis.kiali.io".to_string()
            ),
            (
                "CustomResourceDefinition".to_string(),
                "monitoringdashboards.monitoring.kiali.io".to_string()
            ),
            (
                "ClusterServiceVersion".to_string(),
                "kiali-operator.v1.9.1".to_string()
            ),
        ]
    );
    let documents: Vec<Value> = yaml_serde::Deserializer::from_str(&stream)
        .map(|d| serde::Deserialize::deserialize(d).unwrap())
        .collect();
    let csv = &documents[2];
    assert_eq!(csv["apiVersion"], "operators.coreos.com/v1alpha1");
    assert_eq!(csv["spec"]["version"], "1.9.1");
    assert_eq!(csv["spec"]["minKubeVersion"], "1.17.3");
    assert_eq!(csv["spec"]["displayName"], "Kiali Operator");
    assert_eq!(csv["spec"]["provider"]["name"], "Kiali");
    assert_eq!(csv["spec"]["maturity"], "beta");
    assert_eq!(csv["spec"]["keywords"][0], "service-mesh");
    assert_eq!(csv["spec"]["icon"][0]["mediatype"], "image/svg+xml");
    let strategy = &csv["spec"]["install"]["spec"];
    assert_eq!(csv["spec"]["install"]["strategy"], "deployment");
    assert_eq!(strategy["deployments"][0]["name"], "kiali-operator");
    assert_eq!(
        strategy["deployments"][0]["spec"]["template"]["spec"]["serviceAccountName"],
        "kiali-operator"
    );
    assert_eq!(
        strategy["clusterPermissions"][0]["serviceAccountName"],
        "kiali-operator"
    );
    assert_eq!(
        strategy["permissions"][0]["serviceAccountName"],
        "kiali-operator"
    );
    let owned = csv["spec"]["customresourcedefinitions"]["owned"]
        .as_array()
        .unwrap();
    assert_eq!(owned.len(), 2);
    assert_eq!(owned[0]["name"], "kialis.kiali.io");
    assert_eq!(owned[0]["version"], "v1alpha1");
    assert_eq!(
        owned[0]["description"],
        "A configuration file for a Kiali installation."
    );
    assert_eq!(owned[0]["resources"].as_array().unwrap().len(), 7);
    assert_eq!(owned[0]["specDescriptors"][0]["path"], "auth.strategy");
    assert_eq!(
        owned[0]["specDescriptors"][0]["x-descriptors"][0],
        "urn:alm:descriptor:com.tectonic.ui:label"
    );
    assert_eq!(owned[1]["specDescriptors"][0]["path"], "title");

    // -o json: the same objects in one v1 List.
    let list: Value =
        serde_json::from_str(&ok(dir, &["bundle", "list", ".", "-o", "json"])).unwrap();
    assert_eq!(
        (list["apiVersion"].as_str(), list["kind"].as_str()),
        (Some("v1"), Some("List"))
    );
    assert_eq!(list["items"].as_array().unwrap(), &documents);

    // render: the same objects as bundle objects, and the media type.
    let (bundle, objects) = rendered(&ok(dir, &["render", "."]));
    assert_eq!(bundle["name"], "kiali-operator.v1.9.1");
    assert_eq!(bundle["package"], "kiali");
    assert_eq!(
        property(&bundle, "olm.bundle.mediatype"),
        [&Value::from("registry+v2")]
    );
    assert_eq!(property(&bundle, "olm.package")[0]["version"], "1.9.1");
    assert_eq!(property(&bundle, "olm.gvk").len(), 2);
    // render orders properties by value; the objects are the same.
    let key = |v: &Value| (v["kind"].to_string(), v["metadata"]["name"].to_string());
    let mut sorted_objects = objects.clone();
    sorted_objects.sort_by_key(key);
    let mut sorted_documents = documents.clone();
    sorted_documents.sort_by_key(key);
    assert_eq!(
        sorted_objects, sorted_documents,
        "render's bundle objects are what list prints"
    );
    assert_eq!(
        bundle["relatedImages"][0]["image"],
        "quay.io/kiali/kiali-operator:v1.9.1"
    );

    // build to a file: an OCI archive holding manifests/ and metadata/.
    ok(dir, &["bundle", "build", ".", "file://bundle.tar.gz"]);
    let archive = std::fs::read(dir.join("bundle.tar.gz")).unwrap();
    assert_eq!(&archive[..2], b"\x1f\x8b", "gzip-compressed");

    // build to a registry, then use the image.
    let Some(registry) = Registry::plain() else {
        return;
    };
    let reference = registry.reference("kiali/bundle:v1.9.1");
    ok(
        dir,
        &[
            "bundle",
            "build",
            ".",
            &format!("image://{reference}"),
            "--use-http",
        ],
    );
    let (image_bundle, image_objects) = rendered(&ok(dir, &["render", &reference, "--use-http"]));
    assert_eq!(image_bundle["image"], reference.as_str());
    assert_eq!(image_objects, objects);
    let mut expected = bundle.clone();
    expected["image"] = Value::from(reference.as_str());
    let mut related = expected["relatedImages"].as_array().unwrap().clone();
    related.push(serde_json::json!({"name": "", "image": reference}));
    related.sort_by(|a, b| a["image"].as_str().cmp(&b["image"].as_str()));
    expected["relatedImages"] = Value::Array(related);
    assert_eq!(
        image_bundle, expected,
        "the image renders like its directory"
    );
    assert_eq!(
        ok(
            dir,
            &[
                "bundle",
                "list",
                &format!("image://{reference}"),
                "--use-http"
            ]
        ),
        stream
    );
    ok(dir, &["bundle", "validate", &reference, "--use-http"]);

    // skopeo reads the archive too.
    let copied = registry.reference("kiali/archive:v1");
    let status = crate::util::sandbox::Sandbox::new()
        .tool("skopeo")
        .args([
            "--insecure-policy",
            "copy",
            "--quiet",
            "--dest-tls-verify=false",
        ])
        .arg(format!(
            "oci-archive:{}",
            dir.join("bundle.tar.gz").display()
        ))
        .arg(format!("docker://{copied}"))
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(ok(dir, &["bundle", "list", &copied, "--use-http"]), stream);
}

#[test]
fn the_seeds_bundle_yaml_as_written_repeats_a_key() {
    let work = kiali_bundle();
    std::fs::copy(
        repo("testdata/kiali-csvless-metadata/bundle.seed.yaml"),
        work.path().join("metadata/bundle.yaml"),
    )
    .unwrap();
    for args in [
        &["bundle", "validate", "."][..],
        &["bundle", "list", "."],
        &["render", "."],
    ] {
        let (code, stdout, stderr) = opm(work.path(), args);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(
            stderr.contains("metadata/bundle.yaml: line 36: key \"version\" already set on line 3")
                || stderr.contains("metadata/bundle.yaml:36:1: error[bundle-yaml-duplicate-key]: line 36: key \"version\" already set on line 3"),
            "{args:?}: {stderr}"
        );
        if args[0] != "render" {
            assert!(stdout.is_empty(), "{args:?}");
        }
    }
    // Nothing is built from it.
    let (code, _, _) = opm(work.path(), &["bundle", "build", ".", "file://out.tar"]);
    assert_eq!(code, 1);
    assert!(!work.path().join("out.tar").exists());
}

const BUNDLE_YAML: &str = "name: op.v1.0.0\nversion: 1.0.0\n";
const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: op\nspec:\n  selector:\n    matchLabels: {app: op}\n  template:\n    metadata:\n      labels: {app: op}\n    spec:\n      containers:\n      - name: m\n        image: quay.io/example/op:v1\n";
const V2_ANNOTATIONS: &str = "annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v2\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n  operators.operatorframework.io.bundle.metadata.v1: metadata/\n  operators.operatorframework.io.bundle.package.v1: op\n  operators.operatorframework.io.bundle.channels.v1: alpha\n";

fn v2_bundle() -> Test {
    Test::new()
        .file("b/manifests/deployment.yaml", DEPLOYMENT)
        .file("b/metadata/annotations.yaml", V2_ANNOTATIONS)
        .file("b/metadata/bundle.yaml", BUNDLE_YAML)
}

#[test]
fn registry_v2_bundles_validate() {
    v2_bundle()
        .args(["bundle", "validate", "b"])
        .run()
        .success();
    // The design's annotation key without `.v1` is read too.
    v2_bundle()
        .file(
            "b/metadata/annotations.yaml",
            V2_ANNOTATIONS.replace("mediatype.v1:", "mediatype:"),
        )
        .args(["bundle", "validate", "b"])
        .run()
        .success();
}

#[test]
fn broken_registry_v2_bundles_report_every_problem_with_its_file() {
    let out = v2_bundle()
        .file("b/manifests/deployment.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
        .file("b/manifests/nested/x.yaml", DEPLOYMENT)
        .file(
            "b/metadata/bundle.yaml",
            "name: op.v1.0.0\nversion: v1\napis:\n- apiVersion: example.com/v1\n  kind: Widget\n  descriptors:\n  - path: title\n",
        )
        .args(["bundle", "validate", "b", "--output-format", "json"])
        .run();
    assert_eq!(out.code, 1, "{}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let found: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| {
            (
                f["rule"].as_str().unwrap().into(),
                f["file"].as_str().unwrap_or("").into(),
            )
        })
        .collect();
    let rules: Vec<&str> = found.iter().map(|(r, _)| r.as_str()).collect();
    for rule in [
        "manifests-not-flat",
        "bundle-yaml-field-invalid",
        "bundle-yaml-descriptor-path",
        "bundle-deployment-missing",
    ] {
        assert!(rules.contains(&rule), "{rule} in {found:?}");
    }
    assert!(found.contains(&("manifests-not-flat".into(), "b/manifests/nested".into())));
    assert!(found.contains(&(
        "bundle-yaml-field-invalid".into(),
        "b/metadata/bundle.yaml".into()
    )));

    // An API description needs its CRD; bundle.yaml itself is required.
    v2_bundle()
        .file(
            "b/metadata/bundle.yaml",
            "name: op.v1.0.0\nversion: 1.0.0\napis:\n- apiVersion: example.com/v1\n  kind: Widget\n",
        )
        .args(["bundle", "validate", "b"])
        .run()
        .failure(&["b/metadata/bundle.yaml: error[bundle-api-without-crd]: apis[0]: no CustomResourceDefinition in manifests/ serves example.com/v1 \"Widget\""]);
    Test::new()
        .file("b/manifests/deployment.yaml", DEPLOYMENT)
        .file("b/metadata/annotations.yaml", V2_ANNOTATIONS)
        .args(["bundle", "validate", "b"])
        .run()
        .failure(&["b/metadata/bundle.yaml: error[bundle-yaml-missing]: not found"]);
    // A registry+v2 label on a bundle with a CSV is still upstream's mismatch.
    Test::new()
        .copy("testdata/rules/annotations-missing/valid-all-labels", "b")
        .file(
            "b/metadata/annotations.yaml",
            std::fs::read_to_string(repo("testdata/rules/annotations-missing/valid-all-labels/metadata/annotations.yaml"))
                .unwrap()
                .replace("registry+v1", "registry+v2"),
        )
        .args(["bundle", "validate", "b"])
        .run()
        .failure(&["Expecting annotation \"operators.operatorframework.io.bundle.mediatype.v1\" to have value \"registry+v1\" instead of \"registry+v2\""]);
}

#[test]
fn plain_bundles_init_validate_list_render_and_build() {
    let work = tempfile::tempdir().unwrap();
    let src = work.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("b-config.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n").unwrap();
    std::fs::write(src.join("a-service.json"), r#"{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a"}, "spec": {"ports": [{"port": 80}]}}"#).unwrap();
    let bundle = work.path().join("bundle");
    std::fs::create_dir_all(&bundle).unwrap();
    ok(&bundle, &["bundle", "init", "../src", "-p", "web"]);
    assert!(
        std::fs::read_to_string(bundle.join("metadata/annotations.yaml"))
            .unwrap()
            .contains("mediatype.v1: plain+v0")
    );
    ok(&bundle, &["bundle", "validate", "."]);
    assert_eq!(
        parse_stream(&ok(&bundle, &["bundle", "list", "."])),
        [
            ("Service".to_string(), "a".to_string()),
            ("ConfigMap".to_string(), "b".to_string()),
            ("ConfigMap".to_string(), "c".to_string()),
        ],
        "file order"
    );
    let (rendered_bundle, objects) = rendered(&ok(&bundle, &["render", "."]));
    assert_eq!(rendered_bundle["name"], "web.v0.0.1");
    assert_eq!(
        property(&rendered_bundle, "olm.bundle.mediatype"),
        [&Value::from("plain+v0")]
    );
    assert_eq!(objects.len(), 3);
    ok(&bundle, &["bundle", "build", ".", "file://plain.tar"]);
    assert!(bundle.join("plain.tar").is_file());

    // A bare manifests directory is a plain bundle for list and validate.
    let bare = work.path().join("bare");
    copy_tree(&bundle.join("manifests"), &bare.join("manifests"));
    ok(&bare, &["bundle", "validate", "."]);
    assert_eq!(parse_stream(&ok(&bare, &["bundle", "list", "."])).len(), 3);
}

#[test]
fn plain_bundles_refuse_what_kubectl_cannot_apply() {
    let cases: &[(&str, &str, &str)] = &[
        ("nested", "manifests/sub/cm.yaml", "manifests/sub: error[manifests-not-flat]: is a directory; manifests/ must be flat"),
        (
            "old-api",
            "manifests/psp.yaml",
            "manifests/psp.yaml:1:1: error[plain-manifest-api-removed]: policy/v1beta1 PodSecurityPolicy was removed in Kubernetes 1.25",
        ),
        (
            "no-kind",
            "manifests/x.yaml",
            "manifests/x.yaml:1:1: error[manifest-not-objects]: not a Kubernetes object: kind is missing or not a string",
        ),
        ("empty", "manifests/.keep", "manifests/: holds no Kubernetes object"),
        ("bad-name", "manifests/cm.yaml", "metadata.name"),
        (
            "no-containers",
            "manifests/d.yaml",
            "manifests/d.yaml:1:1: error[object-metadata-invalid]: spec.template.spec.containers: Required value",
        ),
    ];
    for (name, file, fragment) in cases {
        let contents = match *name {
            "old-api" => {
                "apiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: p\n"
            }
            "no-kind" => "apiVersion: v1\nmetadata:\n  name: p\n",
            "bad-name" => "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_A_Name\n",
            "no-containers" => "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  selector: {}\n",
            _ => "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
        };
        Test::new()
            .file(file, contents)
            .args(["bundle", "validate", "."])
            .run()
            .failure(&[fragment]);
    }
}
