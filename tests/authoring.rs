//! Catalog authoring through the binary, on real data: the trident-operator
//! package of community-operators-prod v4.12 (six bundles over two majors and
//! four minors), its bundles rebuilt from the catalog's `olm.bundle.object`s
//! into bundle directories, then into OCI layouts, archives and a registry
//! image by `opm bundle build`, and rendered back through templates.

use crate::util::hostile::{HostileRegistry, Reply};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const CATALOG: &str = "corpus/fbc/community-operators-prod-v4.12";
const PACKAGE: &str = "trident-operator";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn opm_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_opm"));
    command
        .args(args)
        .current_dir(dir)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("run opm");
    if let Some(bytes) = stdin {
        use std::io::Write as _;
        child.stdin.take().unwrap().write_all(bytes).unwrap();
    }
    let output = child.wait_with_output().expect("wait for opm");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn opm(dir: &Path, args: &[&str]) -> Run {
    opm_in(dir, args, None)
}

fn ok(run: Run) -> Run {
    assert_eq!(
        run.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    run
}

fn fails(run: Run, fragment: &str) -> Run {
    assert_eq!(
        run.code, 1,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert!(
        run.stderr.contains(fragment),
        "stderr lacks {fragment:?}:\n{}",
        run.stderr
    );
    run
}

/// A directory of the shared kit, or `None` (the test is skipped) without it.
fn corpus(relative: &str) -> Option<PathBuf> {
    crate::util::shared(relative)
}

/// The blobs of a JSON stream.
fn blobs(text: &str) -> Vec<Value> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .map(|v| v.expect("JSON blob"))
        .collect()
}

/// The real catalog's blobs of one package; `None` (the test is skipped)
/// without the shared kit.
fn package_blobs(dir: &Path) -> Option<Vec<Value>> {
    let catalog = corpus(CATALOG)?;
    let run = ok(opm(dir, &["render", catalog.to_str().unwrap()]));
    Some(
        blobs(&run.stdout)
            .into_iter()
            .filter(|b| b["package"] == PACKAGE || b["name"] == PACKAGE)
            .collect(),
    )
}

/// Rebuilds the package's bundles as bundle directories under `root`
/// (manifests from the `olm.bundle.object`s, annotations from the package
/// and the channels that list each bundle); returns (name, version, dir).
fn bundle_dirs(root: &Path, blobs: &[Value]) -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    for bundle in blobs.iter().filter(|b| b["schema"] == "olm.bundle") {
        let name = bundle["name"].as_str().unwrap().to_string();
        let dir = root.join(&name);
        std::fs::create_dir_all(dir.join("manifests")).unwrap();
        std::fs::create_dir_all(dir.join("metadata")).unwrap();
        let mut version = String::new();
        for (i, property) in bundle["properties"].as_array().unwrap().iter().enumerate() {
            match property["type"].as_str().unwrap() {
                "olm.package" => version = property["value"]["version"].as_str().unwrap().into(),
                "olm.bundle.object" => {
                    let data = property["value"]["data"].as_str().unwrap();
                    let bytes = opm::encoding::base64::decode_go(data.as_bytes()).unwrap();
                    let object: Value = serde_json::from_slice(&bytes).unwrap();
                    let file = format!(
                        "{i:02}-{}.json",
                        object["kind"].as_str().unwrap().to_lowercase()
                    );
                    std::fs::write(dir.join("manifests").join(file), bytes).unwrap();
                }
                _ => {}
            }
        }
        let channels: Vec<&str> = blobs
            .iter()
            .filter(|c| c["schema"] == "olm.channel")
            .filter(|c| {
                c["entries"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|e| e["name"] == name.as_str())
            })
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        std::fs::write(
            dir.join("metadata/annotations.yaml"),
            format!(
                "annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  \
                 operators.operatorframework.io.bundle.manifests.v1: manifests/\n  \
                 operators.operatorframework.io.bundle.metadata.v1: metadata/\n  \
                 operators.operatorframework.io.bundle.package.v1: {PACKAGE}\n  \
                 operators.operatorframework.io.bundle.channels.v1: {}\n",
                channels.join(",")
            ),
        )
        .unwrap();
        out.push((name, version, dir));
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out
}

/// Builds every bundle into its own OCI layout `layouts/<version>` (tag
/// `v<version>`) and returns the `oci://` references.
fn build_layouts(root: &Path, bundles: &[(String, String, PathBuf)]) -> Vec<String> {
    bundles
        .iter()
        .map(|(_, version, dir)| {
            let reference = format!("oci://layouts/{version}:v{version}");
            ok(opm(
                root,
                &["bundle", "build", dir.to_str().unwrap(), &reference],
            ));
            reference
        })
        .collect()
}

fn semver_template(refs: &[String]) -> String {
    let list = |refs: &[String]| {
        refs.iter()
            .map(|r| format!("  - image: {r}\n"))
            .collect::<String>()
    };
    format!(
        "schema: olm.semver\ngenerateMajorChannels: true\ngenerateMinorChannels: true\n\
         candidate:\n  bundles:\n{}stable:\n  bundles:\n{}",
        list(&refs[4..]),
        list(refs)
    )
}

fn entry<'a>(config: &'a [Value], channel: &str, bundle: &str) -> &'a Value {
    config
        .iter()
        .find(|b| b["schema"] == "olm.channel" && b["name"] == channel)
        .unwrap_or_else(|| panic!("channel {channel}"))["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == bundle)
        .unwrap_or_else(|| panic!("entry {bundle} in {channel}"))
}

#[test]
fn semver_template_of_real_bundles_from_oci_layouts() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let Some(catalog) = package_blobs(root) else {
        return;
    };
    let bundles = bundle_dirs(&root.join("bundles"), &catalog);
    assert_eq!(bundles.len(), 6);
    let refs = build_layouts(root, &bundles);
    std::fs::write(root.join("semver.yaml"), semver_template(&refs)).unwrap();
    let out = blobs(&ok(opm(root, &["alpha", "render-template", "semver.yaml"])).stdout);
    let names: Vec<&str> = out
        .iter()
        .filter(|b| b["schema"] == "olm.channel")
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "candidate-v25",
            "candidate-v25.2",
            "stable-v24",
            "stable-v24.10",
            "stable-v24.2",
            "stable-v24.6",
            "stable-v25",
            "stable-v25.2"
        ]
    );
    let package = &out[0];
    assert_eq!(package["schema"], "olm.package");
    // The high-water channel: stable, highest version, minor preferred.
    assert_eq!(package["defaultChannel"], "stable-v25.2");
    // Description and icon come from the default channel head's CSV.
    let head = catalog
        .iter()
        .find(|b| b["name"] == "trident-operator.v25.2.1")
        .unwrap();
    let csv = head["properties"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "olm.bundle.object")
        .map(|p| {
            let data = p["value"]["data"].as_str().unwrap();
            serde_json::from_slice::<Value>(
                &opm::encoding::base64::decode_go(data.as_bytes()).unwrap(),
            )
            .unwrap()
        })
        .find(|o| o["kind"] == "ClusterServiceVersion")
        .unwrap();
    assert_eq!(package["description"], csv["spec"]["description"]);
    assert_eq!(
        package["icon"]["mediatype"],
        csv["spec"]["icon"][0]["mediatype"]
    );
    // Edges: the highest Z of each Y replaces the previous Y's highest Z and
    // skips the rest of its major; nothing crosses a major.
    let v = |version: &str| format!("trident-operator.v{version}");
    assert_eq!(
        entry(&out, "stable-v24", &v("24.10.1")),
        &json!({"name": v("24.10.1"), "replaces": v("24.6.0"), "skips": [v("24.10.0"), v("24.2.0")]})
    );
    assert_eq!(
        entry(&out, "stable-v24.6", &v("24.6.0")),
        &json!({"name": v("24.6.0"), "replaces": v("24.2.0")})
    );
    assert_eq!(
        entry(&out, "stable-v25.2", &v("25.2.1")),
        &json!({"name": v("25.2.1"), "skips": [v("25.2.0")]})
    );
    assert_eq!(
        entry(&out, "stable-v25.2", &v("25.2.0")),
        &json!({"name": v("25.2.0")})
    );
    assert_eq!(
        entry(&out, "candidate-v25", &v("25.2.1")),
        &json!({"name": v("25.2.1"), "skips": [v("25.2.0")]})
    );
    // Local images render like bundle directories: no pull spec.
    let images: Vec<&str> = out
        .iter()
        .filter(|b| b["schema"] == "olm.bundle")
        .map(|b| b["image"].as_str().unwrap())
        .collect();
    assert_eq!(images, ["", "", "", "", "", ""]);
    // The result is a valid catalog, and YAML and mermaid outputs work.
    std::fs::create_dir(root.join("out")).unwrap();
    let json_text = ok(opm(root, &["alpha", "render-template", "semver.yaml"])).stdout;
    std::fs::write(root.join("out/catalog.json"), &json_text).unwrap();
    ok(opm(root, &["validate", "out"]));
    let yaml = ok(opm(
        root,
        &[
            "alpha",
            "render-template",
            "semver",
            "semver.yaml",
            "-o",
            "yaml",
        ],
    ));
    assert!(yaml
        .stdout
        .starts_with("---\ndefaultChannel: stable-v25.2\n"));
    let mermaid = ok(opm(
        root,
        &["alpha", "render-template", "semver.yaml", "-o", "mermaid"],
    ));
    assert!(mermaid.stdout.starts_with("graph LR\n"));
    assert!(mermaid
        .stdout
        .contains("subgraph trident-operator-stable-v24[\"stable-v24\"]"));
    // Standard input, with the type given.
    let text = std::fs::read(root.join("semver.yaml")).unwrap();
    let piped = ok(opm_in(
        root,
        &["alpha", "render-template", "semver"],
        Some(&text),
    ));
    assert_eq!(piped.stdout, json_text);
}

#[test]
fn semver_template_rules() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let Some(catalog) = package_blobs(root) else {
        return;
    };
    let bundles = bundle_dirs(&root.join("bundles"), &catalog);
    let dirs: Vec<String> = bundles
        .iter()
        .map(|(_, _, d)| d.to_str().unwrap().to_string())
        .collect();
    let write = |text: &str| std::fs::write(root.join("t.yaml"), text).unwrap();
    // Bundle directories are entries too; major channels only.
    write(&format!(
        "Schema: olm.semver\nGenerateMajorChannels: true\nStable:\n  Bundles:\n  - Image: {}\n  - Image: {}\n",
        dirs[0], dirs[5]
    ));
    let out = blobs(&ok(opm(root, &["alpha", "render-template", "t.yaml"])).stdout);
    assert_eq!(out[0]["defaultChannel"], "stable-v25");
    let channels = out.iter().filter(|b| b["schema"] == "olm.channel").count();
    assert_eq!(channels, 2);
    // A preference that contradicts the generated kinds.
    write(&format!(
        "schema: olm.semver\ngenerateMajorChannels: true\ndefaultChannelTypePreference: minor\nstable:\n  bundles:\n  - image: {}\n",
        dirs[0]
    ));
    fails(
        opm(root, &["alpha", "render-template", "t.yaml"]),
        "DefaultChannelTypePreference set to 'minor' doesn't make sense",
    );
    // The same bundle twice in one archetype.
    write(&format!(
        "schema: olm.semver\nstable:\n  bundles:\n  - image: {0}\n  - image: {0}/\n",
        bundles
            .iter()
            .find(|b| b.1 == "24.2.0")
            .unwrap()
            .2
            .display()
    ));
    fails(
        opm(root, &["alpha", "render-template", "t.yaml"]),
        "duplicate bundle name \"trident-operator.v24.2.0\"",
    );
    // A missing bundle directory is named, not pulled.
    write("schema: olm.semver\nstable:\n  bundles:\n  - image: bundles/nope\n");
    fails(
        opm(root, &["alpha", "render-template", "t.yaml"]),
        "stat bundles/nope: no such file or directory",
    );
    // A catalog is not a bundle.
    write(&format!(
        "schema: olm.semver\nstable:\n  bundles:\n  - image: {}\n",
        corpus(CATALOG).expect("the kit, found above").display()
    ));
    fails(
        opm(root, &["alpha", "render-template", "t.yaml"]),
        "cannot render declarative config directory: not allowed",
    );
}

/// Merges the OCI layouts of `refs` into one layout tagged by version.
fn merged_layout(root: &Path, refs: &[String], into: &Path) -> Vec<String> {
    std::fs::create_dir_all(into.join("blobs/sha256")).unwrap();
    std::fs::write(into.join("oci-layout"), r#"{"imageLayoutVersion":"1.0.0"}"#).unwrap();
    let mut manifests = Vec::new();
    let mut tags = Vec::new();
    for reference in refs {
        let (dir, tag) = reference
            .strip_prefix("oci://")
            .unwrap()
            .rsplit_once(':')
            .unwrap();
        let dir = root.join(dir);
        for blob in std::fs::read_dir(dir.join("blobs/sha256")).unwrap() {
            let blob = blob.unwrap();
            std::fs::copy(
                blob.path(),
                into.join("blobs/sha256").join(blob.file_name()),
            )
            .unwrap();
        }
        let index: Value =
            serde_json::from_slice(&std::fs::read(dir.join("index.json")).unwrap()).unwrap();
        let mut manifest = index["manifests"][0].clone();
        manifest["annotations"]["org.opencontainers.image.ref.name"] = json!(tag);
        manifests.push(manifest);
        tags.push(tag.to_string());
    }
    std::fs::write(
        into.join("index.json"),
        serde_json::to_vec(&json!({"schemaVersion": 2, "manifests": manifests})).unwrap(),
    )
    .unwrap();
    tags
}

#[test]
fn reuse_bundles_pulls_nothing_the_second_time() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let Some(catalog) = package_blobs(root) else {
        return;
    };
    let bundles = bundle_dirs(&root.join("bundles"), &catalog);
    let layouts = build_layouts(root, &bundles);
    let tags = merged_layout(root, &layouts, &root.join("merged"));
    let registry = HostileRegistry::start(&root.join("merged"), |_| Reply::Serve);
    let image = registry.reference("trident/bundle");
    let mut refs: Vec<String> = tags.iter().map(|t| format!("{image}:{t}")).collect();
    // One digest reference: immutable, so always reused.
    let digest = {
        let index: Value =
            serde_json::from_slice(&std::fs::read(root.join("merged/index.json")).unwrap())
                .unwrap();
        index["manifests"][0]["digest"]
            .as_str()
            .unwrap()
            .to_string()
    };
    refs[0] = format!("{image}@{digest}");
    std::fs::write(root.join("semver.yaml"), semver_template(&refs)).unwrap();
    let render = |extra: &[&str]| {
        let mut args = vec!["alpha", "render-template", "semver.yaml", "--use-http"];
        args.extend_from_slice(extra);
        ok(opm(root, &args)).stdout
    };
    let first = render(&[]);
    let pulled = registry.count(|r| r.is_manifest());
    assert!(pulled >= 6, "{pulled} manifest requests");
    std::fs::create_dir(root.join("rendered")).unwrap();
    std::fs::write(root.join("rendered/catalog.json"), &first).unwrap();
    let before = registry.count(|_| true);
    let second = render(&["--reuse-bundles", "rendered"]);
    assert_eq!(registry.count(|_| true), before, "the second render pulled");
    assert_eq!(second, first);
    // --refresh-tags pulls the five tag references again, not the digest one.
    let manifests = registry.count(|r| r.is_manifest());
    let third = render(&["--reuse-bundles", "rendered", "--refresh-tags"]);
    assert_eq!(third, first);
    assert_eq!(registry.count(|r| r.is_manifest()) - manifests, 5);
    // A template with one more bundle than the catalog pulls only that one.
    let mut fewer = refs.clone();
    fewer.pop();
    std::fs::write(root.join("fewer.yaml"), semver_template(&fewer)).unwrap();
    let partial = ok(opm(
        root,
        &["alpha", "render-template", "fewer.yaml", "--use-http"],
    ))
    .stdout;
    std::fs::create_dir(root.join("partial")).unwrap();
    std::fs::write(root.join("partial/catalog.json"), partial).unwrap();
    let manifests = registry.count(|r| r.is_manifest());
    let grown = render(&["--reuse-bundles", "partial"]);
    assert_eq!(grown, first);
    assert_eq!(registry.count(|r| r.is_manifest()) - manifests, 1);
}

#[test]
fn basic_template_round_trip_through_convert_template() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let Some(catalog) = package_blobs(root) else {
        return;
    };
    let bundles = bundle_dirs(&root.join("bundles"), &catalog);
    // The real catalog, as a basic template whose bundles are archives.
    let mut fbc = String::new();
    for blob in &catalog {
        fbc.push_str(&serde_json::to_string(blob).unwrap());
        fbc.push('\n');
    }
    std::fs::write(root.join("fbc.json"), &fbc).unwrap();
    let template: Value = serde_json::from_str(
        &ok(opm(
            root,
            &["alpha", "convert-template", "basic", "fbc.json"],
        ))
        .stdout,
    )
    .unwrap();
    assert_eq!(template["schema"], "olm.template.basic");
    let mut entries = template["entries"].as_array().unwrap().clone();
    let bundle_entries: Vec<&Value> = entries
        .iter()
        .filter(|e| e["schema"] == "olm.bundle")
        .collect();
    assert_eq!(bundle_entries.len(), 6);
    assert!(bundle_entries
        .iter()
        .all(|e| e.as_object().unwrap().len() == 2 && e["image"].is_string()));
    for (i, (name, _, dir)) in bundles.iter().enumerate() {
        let archive = format!(
            "file://archive-{i}.tar{}",
            if i % 2 == 0 { ".gz" } else { "" }
        );
        ok(opm(
            root,
            &["bundle", "build", dir.to_str().unwrap(), &archive],
        ));
        let original =
            catalog.iter().find(|b| b["name"] == name.as_str()).unwrap()["image"].clone();
        for e in entries.iter_mut() {
            if e["image"] == original {
                e["image"] = json!(archive);
            }
        }
    }
    let template = json!({"schema": "olm.template.basic", "entries": entries});
    std::fs::write(root.join("basic.json"), template.to_string()).unwrap();
    let out = blobs(&ok(opm(root, &["alpha", "render-template", "basic.json"])).stdout);
    // Package and channels pass through unchanged; every bundle is rendered.
    for blob in catalog.iter().filter(|b| b["schema"] != "olm.bundle") {
        assert!(out.contains(blob), "missing {blob}");
    }
    let names: Vec<&str> = out
        .iter()
        .filter(|b| b["schema"] == "olm.bundle")
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 6);
    // An entry with more than schema and image is refused before any render.
    let mut bad = template.clone();
    bad["entries"]
        .as_array_mut()
        .unwrap()
        .push(json!({"schema": "olm.bundle", "image": "file://nope.tar", "package": PACKAGE}));
    std::fs::write(root.join("bad.json"), bad.to_string()).unwrap();
    fails(
        opm(root, &["alpha", "render-template", "basic", "bad.json"]),
        "unexpected fields present in basic template bundle",
    );
    // convert-template substitutes keeps bundles whole.
    let substitutes: Value = serde_json::from_str(
        &ok(opm(
            root,
            &["alpha", "convert-template", "substitutes", "fbc.json"],
        ))
        .stdout,
    )
    .unwrap();
    assert_eq!(substitutes["substitutions"], json!([]));
    assert!(substitutes["entries"]
        .as_array()
        .unwrap()
        .contains(&catalog[catalog.len() - 1]));
}

#[test]
fn substitutes_template_rewires_the_channel() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let Some(catalog) = package_blobs(root) else {
        return;
    };
    let bundles = bundle_dirs(&root.join("bundles"), &catalog);
    let v = |version: &str| format!("trident-operator.v{version}");
    // The catalog without 24.10.1, which is brought back as a substitute
    // for 24.10.0.
    let substitute = &bundles.iter().find(|b| b.0 == v("24.10.1")).unwrap().2;
    ok(opm(
        root,
        &["bundle", "build", substitute.to_str().unwrap(), "oci://sub"],
    ));
    let entries: Vec<Value> = catalog
        .iter()
        .filter(|b| b["name"] != v("24.10.1").as_str())
        .cloned()
        .map(|mut b| {
            if b["schema"] == "olm.channel" {
                let list = b["entries"].as_array_mut().unwrap();
                list.retain(|e| e["name"] != v("24.10.1").as_str());
                for e in list.iter_mut() {
                    if e["replaces"] == v("24.10.1").as_str() {
                        e["replaces"] = json!(v("24.10.0"));
                    }
                }
            }
            b
        })
        .collect();
    let template = |substitutions: Value| {
        json!({"schema": "olm.template.substitutes", "entries": entries, "substitutions": substitutions})
            .to_string()
    };
    std::fs::write(
        root.join("t.json"),
        template(json!([{"name": "oci://sub", "base": v("24.10.0")}])),
    )
    .unwrap();
    let out = blobs(&ok(opm(root, &["alpha", "render-template", "t.json"])).stdout);
    assert_eq!(
        entry(&out, "stable", &v("24.10.1")),
        &json!({"name": v("24.10.1"), "replaces": v("24.6.0"), "skips": [v("24.10.0")]})
    );
    assert_eq!(
        entry(&out, "stable", &v("24.10.0")),
        &json!({"name": v("24.10.0")})
    );
    assert_eq!(
        entry(&out, "stable", &v("25.2.0")),
        &json!({"name": v("25.2.0"), "replaces": v("24.10.1"), "skips": [v("24.10.0")]})
    );
    assert!(out
        .iter()
        .any(|b| b["name"] == v("24.10.1").as_str() && b["image"] == ""));
    // Rules: the base must exist, be older, and be used once.
    for (substitutions, message) in [
        (
            json!([{"name": "oci://sub", "base": v("9.9.9")}]),
            "base bundle \"trident-operator.v9.9.9\" does not exist in catalog",
        ),
        (
            json!([{"name": "oci://sub", "base": v("25.2.1")}]),
            "base bundle \"trident-operator.v25.2.1\" is not less than substitute bundle \"oci://sub\"",
        ),
        (
            json!([{"name": "oci://sub", "base": v("24.10.0")}, {"name": "oci://other", "base": v("24.10.0")}]),
            "cannot reuse the same substitution base \"trident-operator.v24.10.0\"",
        ),
        (
            json!([{"name": "", "base": v("24.10.0")}]),
            "substitution name cannot be empty",
        ),
    ] {
        std::fs::write(root.join("t.json"), template(substitutions)).unwrap();
        fails(opm(root, &["alpha", "render-template", "t.json"]), message);
    }
}

#[test]
fn migrate_real_catalog_is_atomic() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let Some(source) = corpus("corpus/fbc/kube-descheduler-operator-v4.17") else {
        return;
    };
    ok(opm(
        root,
        &["migrate", source.to_str().unwrap(), "out", "-o", "yaml"],
    ));
    let listing: Vec<String> = walkdir::WalkDir::new(root.join("out"))
        .sort_by_file_name()
        .into_iter()
        .map(|e| {
            e.unwrap()
                .path()
                .strip_prefix(root)
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    assert_eq!(
        listing,
        [
            "out",
            "out/cluster-kube-descheduler-operator",
            "out/cluster-kube-descheduler-operator/catalog.yaml"
        ]
    );
    // The migrated catalog renders exactly as the source does.
    let a = ok(opm(root, &["render", source.to_str().unwrap()])).stdout;
    let b = ok(opm(root, &["render", "out"])).stdout;
    assert_eq!(a, b);
    // Others without a package, and deprecations, are kept.
    std::fs::create_dir_all(root.join("cat/p")).unwrap();
    std::fs::write(
        root.join("cat/p/c.yaml"),
        "schema: olm.package\nname: p\ndefaultChannel: s\n---\nschema: olm.channel\nname: s\npackage: p\nentries:\n- name: p.v1.0.0\n---\nschema: olm.bundle\nname: p.v1.0.0\npackage: p\nimage: example.com/p:v1\nproperties:\n- type: olm.package\n  value: {packageName: p, version: 1.0.0}\n---\nschema: olm.deprecations\npackage: p\nentries:\n- reference: {schema: olm.channel, name: s}\n  message: use t\n---\nschema: example.loose\nname: x\n",
    )
    .unwrap();
    ok(opm(root, &["migrate", "cat", "m"]));
    assert!(std::fs::read_to_string(root.join("m/catalog.json"))
        .unwrap()
        .contains("example.loose"));
    assert!(std::fs::read_to_string(root.join("m/p/catalog.json"))
        .unwrap()
        .contains("olm.deprecations"));
    // A catalog that fails to render leaves no output directory behind.
    std::fs::write(root.join("cat/p/broken.json"), "{\"schema\": ").unwrap();
    fails(
        opm(root, &["migrate", "cat", "never"]),
        "render catalog image",
    );
    assert!(!root.join("never").exists());
    fails(opm(root, &["migrate", "cat", "m"]), "must be empty");
}

#[test]
fn list_graph_and_diff_of_real_catalogs() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let Some(old) = corpus("corpus/fbc/kube-descheduler-operator-v4.12") else {
        return;
    };
    let Some(new) = corpus("corpus/fbc/kube-descheduler-operator-v4.17") else {
        return;
    };
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    // list -o json: one object per row, the same rows as the table.
    let table = ok(opm(root, &["alpha", "list", "bundles", new])).stdout;
    let rows = ok(opm(root, &["alpha", "list", "bundles", new, "-o", "json"])).stdout;
    assert_eq!(table.lines().count() - 1, rows.lines().count());
    let first: Value = serde_json::from_str(rows.lines().next().unwrap()).unwrap();
    assert_eq!(first["package"], "cluster-kube-descheduler-operator");
    fails(
        opm(root, &["alpha", "list", "packages", "missing-dir"]),
        "no such file or directory",
    );
    // render-graph: dot and json have the mermaid form's nodes and edges.
    let mermaid = ok(opm(root, &["alpha", "render-graph", new])).stdout;
    let dot = ok(opm(root, &["alpha", "render-graph", new, "-o", "dot"])).stdout;
    let graph: Value =
        serde_json::from_str(&ok(opm(root, &["alpha", "render-graph", new, "-o", "json"])).stdout)
            .unwrap();
    let edges = mermaid.matches("-->").count();
    assert_eq!(dot.matches(" -> ").count(), edges);
    let json_edges: usize = graph["packages"][0]["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["edges"].as_array().unwrap().len())
        .sum();
    assert_eq!(json_edges, edges);
    assert!(dot.starts_with("digraph catalog {\n"));
    // diff: identical catalogs, then two releases of the same package.
    let same = ok(opm(root, &["alpha", "diff", new, new, "--exit-code"]));
    assert_eq!(same.stdout, "no differences\n");
    let changed = opm(root, &["alpha", "diff", old, new, "--exit-code"]);
    assert_eq!(changed.code, 1, "{}", changed.stderr);
    assert!(changed
        .stdout
        .starts_with("~ package cluster-kube-descheduler-operator\n"));
    assert!(changed.stdout.contains("  + bundle "));
    let json_diff: Value =
        serde_json::from_str(&ok(opm(root, &["alpha", "diff", old, new, "-o", "json"])).stdout)
            .unwrap();
    assert_eq!(json_diff["identical"], false);
    assert_eq!(
        json_diff["summary"].as_str().unwrap(),
        changed.stdout.lines().last().unwrap()
    );
    // Deterministic: the same bytes every time.
    assert_eq!(
        ok(opm(root, &["alpha", "diff", old, new])).stdout,
        changed.stdout
    );
}

#[test]
fn diff_names_every_kind_of_change() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let write = |dir: &str, text: &str| {
        std::fs::create_dir_all(root.join(dir)).unwrap();
        std::fs::write(root.join(dir).join("c.yaml"), text).unwrap();
    };
    let bundle = |name: &str, version: &str, image: &str| {
        format!("---\nschema: olm.bundle\nname: {name}\npackage: p\nimage: {image}\nproperties:\n- type: olm.package\n  value: {{packageName: p, version: {version}}}\n")
    };
    let old = format!(
        "schema: olm.package\nname: p\ndefaultChannel: a\n---\nschema: olm.channel\nname: a\npackage: p\nentries:\n- name: p.v1\n- name: p.v2\n  replaces: p.v1\n{}{}",
        bundle("p.v1", "1.0.0", "example.com/p:v1"),
        bundle("p.v2", "2.0.0", "example.com/p:v2")
    );
    let new = format!(
        "schema: olm.package\nname: p\ndefaultChannel: b\n---\nschema: olm.channel\nname: b\npackage: p\nentries:\n- name: p.v2\n- name: p.v3\n  replaces: p.v2\n  skipRange: '<3.0.0'\n{}{}---\nschema: olm.deprecations\npackage: p\nentries:\n- reference: {{schema: olm.bundle, name: p.v2}}\n  message: upgrade\n",
        bundle("p.v2", "2.0.0", "example.com/p@sha256:0000000000000000000000000000000000000000000000000000000000000000"),
        bundle("p.v3", "3.0.0", "example.com/p:v3")
    );
    write("old", &old);
    write("new", &new);
    let text = ok(opm(root, &["alpha", "diff", "old", "new"])).stdout;
    assert_eq!(
        text,
        "~ package p\n    defaultChannel: a -> b\n  - channel a\n      - p.v1\n      - p.v2 (replaces p.v1)\n  + channel b\n      + p.v2\n      + p.v3 (replaces p.v2; skipRange <3.0.0)\n  - bundle p.v1 (example.com/p:v1)\n  ~ bundle p.v2\n      image: example.com/p:v2 -> example.com/p@sha256:0000000000000000000000000000000000000000000000000000000000000000\n  + bundle p.v3 (example.com/p:v3)\n  + deprecated bundle p.v2: upgrade\n1 package changed, 1 channel added, 1 channel removed, 1 bundle added, 1 bundle removed, 1 bundle changed, 1 deprecation added\n"
    );
}

#[test]
fn every_reference_form_reads_images_bundle_build_wrote() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let Some(bundles) = crate::util::corpus_bundles("community") else {
        return;
    };
    let bundle = bundles.into_iter().next().expect("a corpus bundle");
    let dir = bundle.to_str().unwrap();
    ok(opm(root, &["bundle", "build", dir, "oci://layout:v1"]));
    let index = std::fs::read_to_string(root.join("layout/index.json")).unwrap();
    assert!(
        index.contains("\"org.opencontainers.image.ref.name\":\"v1\""),
        "{index}"
    );
    assert!(!root.join("layout:v1").exists());
    ok(opm(root, &["bundle", "build", dir, "file://b.tar"]));
    ok(opm(root, &["bundle", "build", dir, "file://b.tar.gz"]));
    let expected = ok(opm(root, &["render", dir])).stdout;
    for reference in [
        "oci://layout:v1",
        "oci://layout",
        "layout",
        "file://b.tar",
        "file://b.tar.gz",
    ] {
        // A local image renders exactly as the directory it was built from.
        let rendered = ok(opm(root, &["render", reference])).stdout;
        assert_eq!(rendered, expected, "{reference}");
        ok(opm(root, &["bundle", "validate", reference]));
        let listed = ok(opm(root, &["bundle", "list", reference]));
        assert!(listed.stdout.starts_with("---\n"));
    }
    ok(opm(
        root,
        &["bundle", "unpack", "file://b.tar.gz", "-o", "unpacked"],
    ));
    assert!(root.join("unpacked/manifests").is_dir());
    // Wrong tags, missing paths and plain names are local errors.
    fails(
        opm(root, &["render", "oci://layout:v2"]),
        "no image tagged \"v2\" in the layout (it has \"v1\")",
    );
    fails(
        opm(root, &["render", "nothere"]),
        "stat nothere: no such file or directory",
    );
    fails(
        opm(root, &["bundle", "validate", "some/dir"]),
        "stat some/dir: no such file or directory",
    );
    fails(
        opm(root, &["render", "file://missing.tar"]),
        "no such file or directory",
    );
    // A tampered blob is caught by its digest.
    let blobs_dir = root.join("layout/blobs/sha256");
    let mut largest = std::fs::read_dir(&blobs_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect::<Vec<_>>();
    largest.sort_by_key(|p| std::fs::metadata(p).unwrap().len());
    let layer = largest.last().unwrap();
    let mut bytes = std::fs::read(layer).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(layer, bytes).unwrap();
    fails(
        opm(root, &["render", "oci://layout:v1"]),
        "does not match its digest",
    );
}

#[test]
fn alpha_commands_show_in_help_with_help_alpha() {
    let temp = tempfile::tempdir().unwrap();
    let hidden = ok(opm(temp.path(), &["--help"]));
    assert!(!hidden.stdout.contains("  alpha "));
    let mut command = Command::new(env!("CARGO_BIN_EXE_opm"));
    let shown = command
        .arg("--help")
        .env("HELP_ALPHA", "true")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&shown.stdout).contains("  alpha "));
    let alpha = Command::new(env!("CARGO_BIN_EXE_opm"))
        .args(["alpha", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&alpha.stdout);
    for command in [
        "list",
        "render-graph",
        "render-template",
        "convert-template",
        "diff",
    ] {
        assert!(text.contains(command), "{command} missing:\n{text}");
    }
}
