//! The daemonless bundle image builder: reproducible digests and normalised
//! layers; OCI layouts and archives read by `skopeo` and `podman load`;
//! pushes to a real registry (plain, basic auth, TLS) that pull and render
//! exactly like the bundle directory.

use crate::util::registry::{free_port, sha256, Registry};
use crate::util::Test;
use opm::image::auth::AuthFiles;
use opm::image::build::{self, BuiltImage};
use opm::image::remote::{self, RetryPolicy};
use opm::image::{PullOptions, Transport};
use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const SOURCE: &str = "testdata/rules/annotations-missing/valid-all-labels";
const SCORECARD: &str = "kind: Configuration\nstages: []\n";

/// A bundle directory (`bundle/` in the test directory) with a scorecard
/// config and, outside the image's directories, a Dockerfile.
fn bundle() -> Test {
    Test::new()
        .copy(SOURCE, "bundle")
        .file("bundle/tests/scorecard/config.yaml", SCORECARD)
        .file("bundle/bundle.Dockerfile", "FROM scratch\n")
}

/// The bundle's annotations, as the image's labels.
fn labels(dir: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(dir.join("metadata/annotations.yaml")).unwrap();
    let parsed: serde_json::Value = yaml_serde::from_str(&text).unwrap();
    parsed["annotations"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect()
}

fn build_dir(dir: &Path) -> BuiltImage {
    build::build_bundle_image(dir, &labels(dir)).unwrap()
}

fn http() -> PullOptions {
    options(Transport {
        use_http: true,
        skip_tls_verify: false,
    })
}

fn options(transport: Transport) -> PullOptions {
    PullOptions {
        transport,
        // No credential files: the tests never read the user's own.
        auth: AuthFiles { paths: Vec::new() },
        progress: false,
        platform: None,
        root_ca: None,
        limits: opm::image::remote::Limits::default(),
    }
}

fn auth_file(dir: &Path, user: &str, password: &str, host: &str) -> AuthFiles {
    let path = dir.join("auth.json");
    let auth = opm::encoding::base64::encode(format!("{user}:{password}").as_bytes());
    std::fs::write(
        &path,
        format!(r#"{{"auths": {{"{host}": {{"auth": "{auth}"}}}}}}"#),
    )
    .unwrap();
    AuthFiles { paths: vec![path] }
}

fn run(command: &mut Command) -> String {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(
        out.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `skopeo copy <source> docker://<reference>` into a plain-HTTP registry.
fn skopeo_copy(source: &str, reference: &str) {
    run(crate::util::sandbox::Sandbox::new()
        .tool("skopeo")
        .args(["--insecure-policy", "copy", "--quiet"])
        .arg("--dest-tls-verify=false")
        .arg(source)
        .arg(format!("docker://{reference}")));
}

/// `opm render <reference>` equals `opm render <dir>` with the same image name.
fn assert_renders_like_the_directory(dir: &Path, reference: &str) {
    let image = Test::new()
        .args(["render", reference, "--use-http"])
        .run()
        .success();
    let directory = Test::new()
        .args([
            "render",
            dir.to_str().expect("utf-8 path"),
            "--alpha-image-ref-template",
            reference,
        ])
        .run()
        .success();
    assert!(
        image
            .stdout
            .contains(&format!("\"image\": \"{reference}\"")),
        "{}",
        image.stdout
    );
    assert_eq!(image.stdout, directory.stdout, "{reference}");
}

/// The entries of a gzip-compressed tar: (path, type, mode, mtime, uid, gid,
/// user name, group name, contents).
type TarEntry = (String, char, u32, u64, u64, u64, Vec<u8>, Vec<u8>, Vec<u8>);

fn tar_entries(tar: &[u8]) -> Vec<TarEntry> {
    let mut archive = tar::Archive::new(tar);
    let mut out = Vec::new();
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let header = entry.header().clone();
        let kind = match header.entry_type() {
            tar::EntryType::Directory => 'd',
            tar::EntryType::Regular => 'f',
            other => panic!("unexpected entry type {other:?}"),
        };
        let mut contents = Vec::new();
        entry.read_to_end(&mut contents).unwrap();
        out.push((
            String::from_utf8(entry.path_bytes().into_owned()).unwrap(),
            kind,
            header.mode().unwrap(),
            header.mtime().unwrap(),
            header.uid().unwrap(),
            header.gid().unwrap(),
            header.username_bytes().unwrap_or_default().to_vec(),
            header.groupname_bytes().unwrap_or_default().to_vec(),
            contents,
        ));
    }
    out
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn the_layer_holds_exactly_the_bundle_with_fixed_metadata() {
    let test = bundle();
    let dir = test.path().join("bundle");
    let image = build_dir(&dir);

    let layer = std::fs::read(&image.layers[0].path).unwrap();
    assert_eq!(sha256(&layer), image.layers[0].digest);
    assert_eq!(sha256(&image.config), image.config_digest);
    assert_eq!(sha256(&image.manifest), image.manifest_digest);
    let tar = gunzip(&layer);
    assert_eq!(sha256(&tar), image.layers[0].diff_id);

    let entries = tar_entries(&tar);
    let listing: Vec<(&str, char, u32)> =
        entries.iter().map(|e| (e.0.as_str(), e.1, e.2)).collect();
    assert_eq!(
        listing,
        [
            ("manifests/", 'd', 0o755),
            ("manifests/csv.yaml", 'f', 0o644),
            ("metadata/", 'd', 0o755),
            ("metadata/annotations.yaml", 'f', 0o644),
            ("tests/", 'd', 0o755),
            ("tests/scorecard/", 'd', 0o755),
            ("tests/scorecard/config.yaml", 'f', 0o644),
        ]
    );
    for (path, _, _, mtime, uid, gid, user, group, contents) in &entries {
        assert_eq!((*mtime, *uid, *gid), (0, 0, 0), "{path}");
        assert!(user.is_empty() && group.is_empty(), "{path}");
        if !path.ends_with('/') {
            assert_eq!(contents, &std::fs::read(dir.join(path)).unwrap(), "{path}");
        }
    }

    let config: serde_json::Value = serde_json::from_slice(&image.config).unwrap();
    assert_eq!(config["architecture"], "amd64");
    assert_eq!(config["os"], "linux");
    assert!(config.get("created").is_none());
    assert_eq!(
        config["rootfs"]["diff_ids"][0],
        image.layers[0].diff_id.as_str()
    );
    let config_labels: BTreeMap<String, String> =
        serde_json::from_value(config["config"]["Labels"].clone()).unwrap();
    assert_eq!(config_labels, labels(&dir));

    let manifest: serde_json::Value = serde_json::from_slice(&image.manifest).unwrap();
    assert_eq!(
        manifest["mediaType"],
        "application/vnd.oci.image.manifest.v1+json"
    );
    assert_eq!(
        manifest["config"]["mediaType"],
        "application/vnd.oci.image.config.v1+json"
    );
    assert_eq!(manifest["config"]["digest"], image.config_digest.as_str());
    assert_eq!(manifest["config"]["size"], image.config.len());
    let layers = manifest["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 1);
    assert_eq!(
        layers[0]["mediaType"],
        "application/vnd.oci.image.layer.v1.tar+gzip"
    );
    assert_eq!(layers[0]["digest"], image.layers[0].digest.as_str());
    assert_eq!(layers[0]["size"], layer.len());
}

#[test]
fn the_same_input_gives_the_same_digests() {
    let test = bundle();
    let dir = test.path().join("bundle");
    let first = build_dir(&dir);
    let second = build_dir(&dir);
    assert_eq!(first.manifest_digest, second.manifest_digest);
    assert_eq!(first.layers[0].digest, second.layers[0].digest);
    assert_eq!(first.layers[0].diff_id, second.layers[0].diff_id);
    assert_eq!(
        std::fs::read(&first.layers[0].path).unwrap(),
        std::fs::read(&second.layers[0].path).unwrap()
    );

    // A copy with other modes, timestamps and stray files elsewhere in the
    // bundle directory gives the very same image.
    let other = bundle().file("bundle/README.md", "not in the image\n");
    let copy = other.path().join("bundle");
    std::fs::write(copy.join("bundle.Dockerfile"), "FROM other\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let set = |path: &Path, mode| {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap()
        };
        set(&copy.join("manifests/csv.yaml"), 0o600);
        set(&copy.join("metadata/annotations.yaml"), 0o755);
        set(&copy.join("tests/scorecard"), 0o700);
    }
    let old = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_234_567_890);
    std::fs::File::options()
        .write(true)
        .open(copy.join("manifests/csv.yaml"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    let copied = build_dir(&copy);
    assert_eq!(copied.manifest_digest, first.manifest_digest);
    assert_eq!(copied.config_digest, first.config_digest);
    assert_eq!(copied.layers[0].digest, first.layers[0].digest);

    // Other labels change the config and manifest, not the layer.
    let mut relabelled = labels(&dir);
    relabelled.insert("extra".into(), "1".into());
    let image = build::build_bundle_image(&dir, &relabelled).unwrap();
    assert_eq!(image.layers[0].digest, first.layers[0].digest);
    assert_ne!(image.config_digest, first.config_digest);
    assert_ne!(image.manifest_digest, first.manifest_digest);

    // Without tests/scorecard the layer has no tests/ at all.
    std::fs::remove_dir_all(copy.join("tests")).unwrap();
    let bare = build_dir(&copy);
    let paths: Vec<String> = tar_entries(&gunzip(&std::fs::read(&bare.layers[0].path).unwrap()))
        .into_iter()
        .map(|e| e.0)
        .collect();
    assert!(paths.iter().all(|p| !p.starts_with("tests")), "{paths:?}");
}

#[cfg(unix)]
#[test]
fn links_inside_the_bundle_are_stored_as_files_and_links_outside_refused() {
    let test = bundle().file("secret.txt", "outside\n");
    let dir = test.path().join("bundle");
    std::os::unix::fs::symlink("csv.yaml", dir.join("manifests/alias.yaml")).unwrap();
    let image = build_dir(&dir);
    let entries = tar_entries(&gunzip(&std::fs::read(&image.layers[0].path).unwrap()));
    let alias = entries
        .iter()
        .find(|e| e.0 == "manifests/alias.yaml")
        .expect("alias stored");
    assert_eq!(alias.1, 'f');
    assert_eq!(
        alias.8,
        std::fs::read(dir.join("manifests/csv.yaml")).unwrap()
    );

    std::os::unix::fs::symlink("../../secret.txt", dir.join("metadata/leak.yaml")).unwrap();
    let error = build::build_bundle_image(&dir, &BTreeMap::new()).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "symbolic link {} points outside the bundle directory",
            dir.join("metadata/leak.yaml").display()
        )
    );
    std::fs::remove_file(dir.join("metadata/leak.yaml")).unwrap();

    std::os::unix::fs::symlink("nowhere.yaml", dir.join("metadata/dangling.yaml")).unwrap();
    let error = build::build_bundle_image(&dir, &BTreeMap::new()).unwrap_err();
    assert!(error.to_string().contains("points to nothing"), "{error}");
    std::fs::remove_file(dir.join("metadata/dangling.yaml")).unwrap();

    std::os::unix::fs::symlink("..", dir.join("manifests/loop")).unwrap();
    let error = build::build_bundle_image(&dir, &BTreeMap::new()).unwrap_err();
    assert!(error.to_string().contains("loops back"), "{error}");
    std::fs::remove_file(dir.join("manifests/loop")).unwrap();

    let fifo = dir.join("manifests/pipe");
    run(Command::new("mkfifo").arg(&fifo));
    let error = build::build_bundle_image(&dir, &BTreeMap::new()).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("{} is not a regular file or directory", fifo.display())
    );
    std::fs::remove_file(&fifo).unwrap();

    std::fs::remove_dir_all(dir.join("metadata")).unwrap();
    let error = build::build_bundle_image(&dir, &BTreeMap::new()).unwrap_err();
    assert!(
        error.to_string().ends_with("has no metadata/ directory"),
        "{error}"
    );
}

#[test]
fn an_oci_archive_is_read_by_skopeo_and_renders_like_the_directory() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let test = bundle();
    let dir = test.path().join("bundle");
    let image = build_dir(&dir);

    let archive = test.path().join("bundle.tar");
    build::write_oci_archive(&image, &archive, "v1", false).unwrap();
    let written = std::fs::read(&archive).unwrap();
    let listing: Vec<(String, char, u64)> = tar_entries(&written)
        .into_iter()
        .map(|e| (e.0, e.1, e.3))
        .collect();
    let names: Vec<&str> = listing.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(names[..2], ["blobs/", "blobs/sha256/"]);
    assert_eq!(names[names.len() - 2..], ["index.json", "oci-layout"]);
    assert_eq!(names.len(), 7);
    assert!(listing.iter().all(|e| e.2 == 0));

    // Writing the archive again gives the same bytes.
    let again = test.path().join("again.tar");
    build::write_oci_archive(&image, &again, "v1", false).unwrap();
    assert_eq!(std::fs::read(&again).unwrap(), written);

    let reference = registry.reference("archive/etcd-bundle:v1");
    skopeo_copy(&format!("oci-archive:{}:v1", archive.display()), &reference);
    assert_renders_like_the_directory(&dir, &reference);
    let pulled = remote::pull(&reference, &http()).unwrap();
    assert_eq!(pulled.labels, labels(&dir));
    assert_eq!(pulled.layers.len(), 1);
    assert_eq!(pulled.layers[0].digest, image.layers[0].digest);
    assert_eq!(pulled.manifest_digest, image.manifest_digest);
}

#[test]
fn a_gzip_compressed_oci_archive_is_read_by_skopeo() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let test = bundle();
    let dir = test.path().join("bundle");
    let image = build_dir(&dir);
    let archive = test.path().join("bundle.tar.gz");
    build::write_oci_archive(&image, &archive, "v1", true).unwrap();
    let bytes = std::fs::read(&archive).unwrap();
    assert_eq!(&bytes[..2], &[0x1f, 0x8b]);
    let plain = test.path().join("plain.tar");
    build::write_oci_archive(&image, &plain, "v1", false).unwrap();
    assert_eq!(gunzip(&bytes), std::fs::read(&plain).unwrap());

    // skopeo decompresses oci-archive files itself.
    let reference = registry.reference("gzip/etcd-bundle:v1");
    skopeo_copy(&format!("oci-archive:{}:v1", archive.display()), &reference);
    assert_renders_like_the_directory(&dir, &reference);
}

#[test]
fn podman_loads_the_oci_archive() {
    let Some(podman) = crate::util::podman::Podman::new() else {
        return;
    };
    let test = bundle();
    let dir = test.path().join("bundle");
    let image = build_dir(&dir);
    let archive = test.path().join("bundle.tar");
    build::write_oci_archive(&image, &archive, "example.com/etcd-bundle:v1", false).unwrap();
    let loaded = podman.load(&archive);
    assert!(
        loaded.contains("example.com/etcd-bundle:v1"),
        "podman load said:\n{loaded}"
    );
    let inspected = podman.run([
        "image",
        "inspect",
        "--format",
        "{{json .Labels}}",
        "example.com/etcd-bundle:v1",
    ]);
    let found: BTreeMap<String, String> = serde_json::from_str(inspected.trim()).unwrap();
    assert_eq!(found, labels(&dir));
}

#[test]
fn an_oci_layout_is_read_by_skopeo_and_never_fills_a_used_directory() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let test = bundle();
    let dir = test.path().join("bundle");
    let image = build_dir(&dir);

    let layout = test.path().join("out/layout");
    build::write_oci_layout(&image, &layout, "v1").unwrap();
    assert_eq!(file_names(&layout), ["blobs", "index.json", "oci-layout"]);
    assert_eq!(file_names(&layout.join("blobs/sha256")).len(), 3);
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(layout.join("index.json")).unwrap()).unwrap();
    assert_eq!(
        index["manifests"][0]["digest"],
        image.manifest_digest.as_str()
    );
    assert_eq!(
        index["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"],
        "v1"
    );
    assert_eq!(
        file_names(&test.path().join("out")),
        ["layout"],
        "no temporary left"
    );

    let reference = registry.reference("layout/etcd-bundle:v1");
    skopeo_copy(&format!("oci:{}:v1", layout.display()), &reference);
    assert_renders_like_the_directory(&dir, &reference);

    // An existing empty directory is fine; a used one is refused untouched.
    let empty = test.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    build::write_oci_layout(&image, &empty, "v1").unwrap();
    assert_eq!(file_names(&empty), ["blobs", "index.json", "oci-layout"]);
    let used = test.path().join("used");
    std::fs::create_dir(&used).unwrap();
    std::fs::write(used.join("mine"), "keep\n").unwrap();
    let error = build::write_oci_layout(&image, &used, "v1").unwrap_err();
    assert!(
        error.to_string().contains("is not an empty directory"),
        "{error}"
    );
    assert_eq!(file_names(&used), ["mine"]);
    let error = build::write_oci_layout(&image, &test.path().join("x"), "bad tag").unwrap_err();
    assert!(
        error.to_string().starts_with("invalid image tag"),
        "{error}"
    );
    assert!(!test.path().join("x").exists());
    let names = file_names(test.path());
    assert!(names.iter().all(|n| !n.starts_with(".opm")), "{names:?}");
}

#[test]
fn an_existing_archive_is_never_replaced() {
    let test = bundle().file("taken.tar", "mine\n");
    let dir = test.path().join("bundle");
    let image = build_dir(&dir);
    for (name, gzip) in [("taken.tar", false), ("taken.tar", true)] {
        let path = test.path().join(name);
        let error = build::write_oci_archive(&image, &path, "v1", gzip).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("path \"{}\": file already exists", path.display())
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine\n");
    }
    let missing = test.path().join("no/such/dir/x.tar");
    let error = build::write_oci_archive(&image, &missing, "v1", false).unwrap_err();
    assert!(error.to_string().starts_with("write "), "{error}");
    assert_eq!(file_names(test.path()), ["bundle", "taken.tar"]);
}

#[test]
fn push_to_a_registry_pulls_and_renders_like_the_directory() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let test = bundle();
    let dir = test.path().join("bundle");
    let image = build_dir(&dir);
    let reference = registry.reference("pushed/etcd-bundle:v1");

    let digest = build::push(&image, &reference, &http()).unwrap();
    assert_eq!(digest, image.manifest_digest);
    let pulled = remote::pull(&reference, &http()).unwrap();
    assert_eq!(pulled.manifest_digest, image.manifest_digest);
    assert_eq!(pulled.labels, labels(&dir));
    assert_eq!(pulled.layers.len(), 1);
    assert_eq!(pulled.layers[0].digest, image.layers[0].digest);
    assert_eq!(
        std::fs::read(&pulled.layers[0].path).unwrap(),
        std::fs::read(&image.layers[0].path).unwrap()
    );
    assert_renders_like_the_directory(&dir, &reference);

    // Pushing again (the blobs exist) and by digest both work.
    assert_eq!(build::push(&image, &reference, &http()).unwrap(), digest);
    let by_digest = format!("{}@{digest}", registry.reference("pushed/etcd-bundle"));
    assert_eq!(build::push(&image, &by_digest, &http()).unwrap(), digest);
    assert_eq!(
        remote::pull(&by_digest, &http()).unwrap().manifest_digest,
        digest
    );
    let wrong = format!(
        "{}@sha256:{}",
        registry.reference("pushed/etcd-bundle"),
        "0".repeat(64)
    );
    let error = build::push(&image, &wrong, &http()).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("but the image's manifest digest is"),
        "{error}"
    );
}

#[test]
fn push_with_basic_auth_uses_the_auth_file_and_hides_the_password() {
    let Some(registry) = Registry::basic("alice", "s3cret-pw") else {
        return;
    };
    let test = bundle();
    let dir = test.path().join("bundle");
    let image = build_dir(&dir);
    let reference = registry.reference("private/etcd-bundle:v1");
    let files = tempfile::tempdir().unwrap();

    let mut options = http();
    options.auth = auth_file(files.path(), "alice", "s3cret-pw", &registry.host);
    assert_eq!(
        build::push(&image, &reference, &options).unwrap(),
        image.manifest_digest
    );
    let pulled = remote::pull(&reference, &options).unwrap();
    assert_eq!(pulled.manifest_digest, image.manifest_digest);

    options.auth = auth_file(files.path(), "alice", "wrong-Pa55word", &registry.host);
    let error = build::push(&image, &reference, &options).unwrap_err();
    let text = error.to_string();
    assert_eq!(
        text,
        format!(
            "failed to push image \"{reference}\": unauthorized: registry \"{host}\" refused \
             the credentials found for \"{host}/private/etcd-bundle\"",
            host = registry.host
        )
    );
    assert!(!text.contains("wrong-Pa55word"));
    assert!(!format!("{error:?}").contains("wrong-Pa55word"));

    let error = build::push(&image, &reference, &http()).unwrap_err();
    assert!(error.to_string().contains("none were found"), "{error}");
}

#[test]
fn push_over_tls_needs_trust_or_skip_tls_verify() {
    let Some(registry) = Registry::tls() else {
        return;
    };
    let test = bundle();
    let image = build_dir(&test.path().join("bundle"));
    let reference = registry.reference("secure/etcd-bundle:v1");
    let skip = options(Transport {
        use_http: false,
        skip_tls_verify: true,
    });
    assert_eq!(
        build::push(&image, &reference, &skip).unwrap(),
        image.manifest_digest
    );
    assert_eq!(
        remote::pull(&reference, &skip).unwrap().manifest_digest,
        image.manifest_digest
    );
    let error = build::push(&image, &reference, &options(Transport::default())).unwrap_err();
    let text = error.to_string();
    assert!(text.starts_with("failed to push image"), "{text}");
    assert!(text.contains("TLS failure"), "{text}");
    assert!(text.contains("certificate"), "{text}");
}

#[test]
fn push_to_a_registry_that_is_down_fails_clearly() {
    let test = bundle();
    let image = build_dir(&test.path().join("bundle"));
    let host = format!("127.0.0.1:{}", free_port());
    let reference = format!("{host}/x:v1");
    let retry = RetryPolicy {
        attempts: 2,
        first_delay: Duration::from_millis(50),
    };
    let error = build::push_with_retry(&image, &reference, &http(), &retry).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "failed to push image \"{reference}\": cannot connect to registry \"{host}\": \
             connection refused (gave up after 2 attempts)"
        )
    );
    let error = build::push(&image, "UPPER/case:v1", &http()).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("failed to push image \"UPPER/case:v1\": "),
        "{error}"
    );
}
