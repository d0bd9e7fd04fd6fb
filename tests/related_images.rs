//! `relatedImages` of rendered bundles where the CSV names one image more
//! than once, through the binary: bundle directories (plain and with
//! `--alpha-image-ref-template`) and bundle images pulled from a real
//! registry. The expected orders are upstream's: either read from the
//! catalogs upstream rendered (`../shared/corpus/fbc`), or what upstream's
//! getRelatedImages + `sort.Slice` (alpha/action/render.go) return for these
//! CSVs.

use crate::util::registry::{ImageSpec, Layout, PushOptions, Registry, LAYER_GZIP};
use crate::util::Test;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A real certified bundle (20 related images): `ntnx-csi-os` under
/// `nutanix-csi` and `nutanix_csi`, `nutanix-csi-precheck` and
/// `nutanix_csi_precheck`; `csi-provisioner` under `provisioner-legacy` and
/// `provisioner_legacy`; `csi-snapshotter` under `snapshotter-beta` and
/// `snapshotter_beta`; the operator image both as the manager container and
/// under two related-image names.
const NUTANIX: &str = "corpus/bundles/certified/nutanixcsioperator/3.8.1";

/// The Nutanix bundle, or `None` (the test is skipped) without the kit.
fn nutanix() -> Option<PathBuf> {
    crate::util::shared(NUTANIX)
}

fn render(args: &[&str]) -> Value {
    let out = Test::new().args(args.iter().copied()).run().success();
    serde_json::from_str(&out.stdout).expect("one JSON blob")
}

fn related(blob: &Value) -> Vec<(String, String)> {
    blob["relatedImages"]
        .as_array()
        .expect("relatedImages")
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or_default().to_string(),
                r["image"].as_str().expect("image").to_string(),
            )
        })
        .collect()
}

fn names(list: &[(String, String)]) -> Vec<&str> {
    list.iter().map(|(name, _)| name.as_str()).collect()
}

/// Sorted by image, and the same entries as the CSV's related images plus
/// `extra`: nothing merged, nothing dropped.
fn assert_entries(list: &[(String, String)], csv: &[(String, String)], extra: &[&str]) {
    assert!(
        list.windows(2).all(|w| w[0].1 <= w[1].1),
        "not sorted by image: {list:?}"
    );
    let mut got = list.to_vec();
    let mut want = csv.to_vec();
    want.extend(extra.iter().map(|image| (String::new(), image.to_string())));
    got.sort();
    want.sort();
    assert_eq!(got, want);
}

/// The CSV's `spec.relatedImages` of the Nutanix bundle, as written.
fn nutanix_csv_related(dir: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(
        dir.join("manifests/nutanixcsioperator.clusterserviceversion.yaml"),
    )
    .expect("read CSV");
    let csv: Value = yaml_serde::from_str(&text).expect("CSV YAML");
    related(&csv["spec"])
}

// upstream (getRelatedImages + sort.Slice) for this CSV without a bundle
// image: 19 entries.
const NUTANIX_PLAIN: [&str; 19] = [
    "authsidecar",
    "nutanix_csi_precheck",
    "nutanix-csi-precheck",
    "pulse",
    "nutanix-csi",
    "nutanix_csi",
    "manager",
    "nutanix-csi-operator-dd3b7e8dba93d198939f7c8abb9a3ece4954b1be40425320bac25ea88157aaf5-annotation",
    "attacher",
    "healthmonitor",
    "registrar",
    "provisioner-legacy",
    "provisioner_legacy",
    "provisioner",
    "resizer",
    "snapshotter",
    "snapshotter_beta",
    "snapshotter-beta",
    "livenessprobe",
];

// upstream for this CSV with a bundle image that sorts first (any
// `127.0.0.1:<port>/...` reference): one more entry, so a different pdqsort
// run, and three of the pairs come out the other way round.
const NUTANIX_WITH_LOCAL_IMAGE: [&str; 20] = [
    "",
    "authsidecar",
    "nutanix_csi_precheck",
    "nutanix-csi-precheck",
    "pulse",
    "nutanix_csi",
    "nutanix-csi",
    "manager",
    "nutanix-csi-operator-dd3b7e8dba93d198939f7c8abb9a3ece4954b1be40425320bac25ea88157aaf5-annotation",
    "attacher",
    "healthmonitor",
    "registrar",
    "provisioner_legacy",
    "provisioner-legacy",
    "provisioner",
    "resizer",
    "snapshotter",
    "snapshotter-beta",
    "snapshotter_beta",
    "livenessprobe",
];

#[test]
fn plain_bundle_dir_keeps_every_name_in_upstream_order() {
    let Some(dir) = nutanix() else {
        return;
    };
    let blob = render(&["render", dir.to_str().expect("utf-8 path")]);
    let list = related(&blob);
    assert_eq!(names(&list), NUTANIX_PLAIN);
    assert_entries(&list, &nutanix_csv_related(&dir), &[]);
}

#[test]
fn templated_bundle_dir_adds_the_image_and_reorders_as_upstream() {
    let Some(dir) = nutanix() else {
        return;
    };
    let image = "127.0.0.1:5000/related-images/nutanix:v1";
    let blob = render(&[
        "render",
        dir.to_str().expect("utf-8 path"),
        "--alpha-image-ref-template",
        image,
    ]);
    assert_eq!(blob["image"], image);
    let list = related(&blob);
    assert_eq!(names(&list), NUTANIX_WITH_LOCAL_IMAGE);
    assert_entries(&list, &nutanix_csv_related(&dir), &[image]);
}

/// Every file of a bundle directory, as a layer's (path, contents).
fn bundle_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.expect("walk bundle");
        if entry.file_type().is_file() {
            let relative = entry.path().strip_prefix(dir).expect("prefix");
            files.push((
                relative.to_str().expect("utf-8 path").to_string(),
                std::fs::read(entry.path()).expect("read bundle file"),
            ));
        }
    }
    files
}

#[test]
fn bundle_image_renders_related_images_as_upstream() {
    let Some(dir) = nutanix() else {
        return;
    };
    let Some(registry) = Registry::plain() else {
        return;
    };
    let mut spec = ImageSpec::new("amd64")
        .label(
            "operators.operatorframework.io.bundle.package.v1",
            "nutanixcsioperator",
        )
        .label(
            "operators.operatorframework.io.bundle.mediatype.v1",
            "registry+v1",
        );
    spec.layers.push((LAYER_GZIP, bundle_files(&dir)));
    let mut layout = Layout::new();
    layout.add_image("v1", &spec);
    registry.push(
        layout.path(),
        "v1",
        "related-images/nutanix:v1",
        &PushOptions::default(),
    );
    let reference = registry.reference("related-images/nutanix:v1");
    assert!(reference.starts_with("127.0.0.1:"), "{reference}");

    let image = render(&["render", &reference, "--use-http"]);
    assert_eq!(image["image"], reference.as_str());
    let list = related(&image);
    assert_eq!(names(&list), NUTANIX_WITH_LOCAL_IMAGE);
    assert_entries(&list, &nutanix_csv_related(&dir), &[&reference]);

    let directory = render(&[
        "render",
        dir.to_str().expect("utf-8 path"),
        "--alpha-image-ref-template",
        &reference,
    ]);
    assert_eq!(image, directory);
}

/// The `olm.bundle` blobs (name → blob) of every corpus catalog (under
/// `root`) holding `package`.
fn upstream_bundles(root: &Path, package: &str) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    let mut catalogs: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("corpus catalogs")
        .map(|e| e.expect("catalog entry").path().join(package))
        .filter(|p| p.is_dir())
        .collect();
    catalogs.sort();
    for dir in catalogs {
        for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let entry = entry.expect("walk catalog");
            let path = entry.path();
            let text = match path.extension().and_then(|e| e.to_str()) {
                Some("yaml" | "yml" | "json") => std::fs::read_to_string(path).expect("read"),
                _ => continue,
            };
            // JSON is YAML too: one reader for both streams.
            for document in yaml_serde::Deserializer::from_str(&text) {
                let blob: Value = serde::Deserialize::deserialize(document)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                if blob["schema"] == "olm.bundle" {
                    let name = blob["name"].as_str().expect("bundle name").to_string();
                    out.entry(name).or_insert(blob);
                }
            }
        }
    }
    out
}

fn annotation_package(bundle: &Path) -> Option<String> {
    let text = std::fs::read_to_string(bundle.join("metadata/annotations.yaml")).ok()?;
    let doc: Value = yaml_serde::from_str(&text).ok()?;
    doc["annotations"]["operators.operatorframework.io.bundle.package.v1"]
        .as_str()
        .map(str::to_string)
}

/// Every corpus bundle that upstream also rendered into a corpus catalog
/// renders (as the image upstream used) with the same related images, in
/// the same order, whenever the entries are the same (a few catalogs hold a
/// different build of a bundle under the same name). Among them are the
/// three bundles whose CSVs list one image under several names past 12
/// entries, where Go's unstable sort decides the order.
#[test]
fn corpus_bundles_match_the_catalogs_upstream_rendered() {
    let Some(bundles) = crate::util::corpus_bundles("") else {
        return;
    };
    let Some(catalogs) = crate::util::shared("corpus/fbc") else {
        return;
    };
    let mut compared = Vec::new();
    for bundle in bundles {
        let Some(package) = annotation_package(&bundle) else {
            continue;
        };
        let upstream = upstream_bundles(&catalogs, &package);
        if upstream.is_empty() {
            continue;
        }
        let path = bundle.to_str().expect("utf-8 path");
        let plain = render(&["render", path]);
        let name = plain["name"].as_str().expect("name");
        let Some(theirs) = upstream.get(name) else {
            continue;
        };
        let image = theirs["image"].as_str().expect("image");
        let ours = render(&["render", path, "--alpha-image-ref-template", image]);
        let (mut a, mut b) = (related(&ours), related(theirs));
        let same_order = a == b;
        a.sort();
        b.sort();
        if a != b {
            continue; // another build of the bundle
        }
        assert!(
            same_order,
            "{name}: ours {:?}\nupstream {:?}",
            related(&ours),
            related(theirs)
        );
        compared.push(name.to_string());
    }
    for name in [
        "gpu-operator-certified.v26.3.1",
        "k8s-triliovault-stable.5.4.0",
        "nutanixcsioperator.v3.8.1",
    ] {
        assert!(
            compared.iter().any(|n| n == name),
            "{name} not compared: {compared:?}"
        );
    }
    assert!(compared.len() >= 30, "{compared:?}");
}

/// `Render.Run` sorts the related images of every bundle it renders,
/// catalogs included, with the same unstable `sort.Slice`: a catalog that
/// lists one image under two names past 12 entries comes out in Go's order.
#[test]
fn catalog_bundles_are_sorted_with_go_sort_slice() {
    let kinds = [
        "csi",
        "snapshotter",
        "provisioner",
        "attacher",
        "resizer",
        "registrar",
        "liveness",
    ];
    let mut entries = Vec::new();
    for kind in kinds {
        for separator in ["-", "_"] {
            entries.push(serde_json::json!({
                "name": format!("{kind}{separator}legacy"),
                "image": format!("r/{kind}:1"),
            }));
        }
    }
    let bundle = serde_json::json!({
        "schema": "olm.bundle",
        "name": "p.v1.0.0",
        "package": "p",
        "image": "q/p-bundle:v1",
        "properties": [],
        "relatedImages": entries,
    });
    let out = Test::new()
        .file("catalog/p/bundle.json", bundle.to_string())
        .args(["render", "catalog"])
        .run()
        .success();
    let blob: Value = serde_json::from_str(&out.stdout).expect("one JSON blob");
    // upstream: sort.Slice over these 14 entries, by image.
    assert_eq!(
        names(&related(&blob)),
        [
            "attacher-legacy",
            "attacher_legacy",
            "csi_legacy",
            "csi-legacy",
            "liveness_legacy",
            "liveness-legacy",
            "provisioner-legacy",
            "provisioner_legacy",
            "registrar-legacy",
            "registrar_legacy",
            "resizer_legacy",
            "resizer-legacy",
            "snapshotter_legacy",
            "snapshotter-legacy",
        ]
    );
}
