//! `opm alpha catalog build|base`: catalog images without a daemon. The
//! image's layout (what `generate dockerfile` lays out, and what OLM needs),
//! reproducible digests, validation before anything is written, pushes that
//! render like the directory; and, with the static opm and podman, images
//! that run as a random non-root UID, pass the probe OLM execs and answer
//! like `opm serve` on the directory, including the Dockerfile that
//! `generate dockerfile -i <our base>` writes, built by `podman build`.

use crate::util::podman::Podman;
use crate::util::registry::{ImageSpec, Layout, Registry, LAYER_GZIP};
use crate::util::Test;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const CATALOG: &str = "testdata/fbc/example";
const CONFIGS_LABEL: &str = "operators.operatorframework.io.index.configs.v1";

/// A test directory holding the example catalog (`catalog/`) and a tiny
/// base image (`base/`, an OCI layout tagged `v1`).
fn catalog_test() -> Test {
    let test = Test::new().copy(CATALOG, "catalog");
    let mut base = Layout::new();
    base.add_image(
        "v1",
        &ImageSpec::new("amd64").layer(LAYER_GZIP, &[("etc/base-release", "tiny base\n")]),
    );
    crate::util::copy_tree(base.path(), &test.path().join("base"));
    test
}

fn digest_of(stdout: &str) -> String {
    let digest = stdout.trim();
    assert!(
        digest.starts_with("sha256:") && digest.len() == 71,
        "{stdout}"
    );
    digest.to_string()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn blob(layout: &Path, digest: &str) -> PathBuf {
    layout
        .join("blobs/sha256")
        .join(digest.trim_start_matches("sha256:"))
}

/// The manifest and config of the only image of a layout.
fn manifest_and_config(layout: &Path) -> (Value, Value) {
    let index = read_json(&layout.join("index.json"));
    let manifest = read_json(&blob(
        layout,
        index["manifests"][0]["digest"].as_str().unwrap(),
    ));
    let config = read_json(&blob(
        layout,
        manifest["config"]["digest"].as_str().unwrap(),
    ));
    (manifest, config)
}

/// A layer's entries: path, type, mode, uid, gid, link target.
fn layer_entries(path: &Path) -> Vec<(String, char, u32, u64, u64, String)> {
    let file = std::fs::File::open(path).unwrap();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    archive
        .entries()
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let header = entry.header();
            let kind = match header.entry_type() {
                tar::EntryType::Directory => 'd',
                tar::EntryType::Symlink => 'l',
                _ => 'f',
            };
            (
                entry.path().unwrap().display().to_string(),
                kind,
                header.mode().unwrap(),
                header.uid().unwrap(),
                header.gid().unwrap(),
                entry
                    .link_name()
                    .unwrap()
                    .map(|l| l.display().to_string())
                    .unwrap_or_default(),
            )
        })
        .collect()
}

/// Extracts the layers of the only image of `layout` into `dest`, keeping
/// modes (what a container runtime does).
fn extract(layout: &Path, dest: &Path) {
    let (manifest, _) = manifest_and_config(layout);
    for layer in manifest["layers"].as_array().unwrap() {
        let file = std::fs::File::open(blob(layout, layer["digest"].as_str().unwrap())).unwrap();
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
        archive.set_preserve_permissions(true);
        archive.set_overwrite(true);
        archive.unpack(dest).unwrap();
    }
}

#[test]
fn the_image_is_laid_out_as_generate_dockerfile_lays_it_out_and_its_cache_is_valid() {
    let out = catalog_test()
        .args([
            "alpha",
            "catalog",
            "build",
            "catalog",
            "oci://out:v1",
            "--base",
            "oci://base:v1",
            "-l",
            "extra=yes",
        ])
        .run()
        .success();
    let digest = digest_of(&out.stdout);
    assert!(
        out.stderr.contains("Validated catalog (1 packages"),
        "{}",
        out.stderr
    );
    let layout = out.dir.join("out");
    let index = read_json(&layout.join("index.json"));
    assert_eq!(index["manifests"][0]["digest"], digest.as_str());
    assert_eq!(
        index["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"],
        "v1"
    );
    let (manifest, config) = manifest_and_config(&layout);

    // The base's layer, then the catalog, then the cache.
    let layers = manifest["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 3);
    let configs = layer_entries(&blob(&layout, layers[1]["digest"].as_str().unwrap()));
    let names: Vec<(&str, char, u32)> = configs
        .iter()
        .map(|(p, k, m, ..)| (p.as_str(), *k, *m))
        .collect();
    assert_eq!(
        names,
        [
            ("configs/", 'd', 0o755),
            ("configs/.indexignore", 'f', 0o644),
            ("configs/README.md", 'f', 0o644),
            ("configs/example-operator/", 'd', 0o755),
            ("configs/example-operator/bundles.json", 'f', 0o644),
            ("configs/example-operator/package.yaml", 'f', 0o644),
        ]
    );
    assert!(configs.iter().all(|e| (e.3, e.4) == (0, 0)), "{configs:?}");
    let cache = layer_entries(&blob(&layout, layers[2]["digest"].as_str().unwrap()));
    assert_eq!(cache[0].0, "tmp/");
    assert_eq!(cache[0].2, 0o1777);
    assert_eq!((cache[1].0.as_str(), cache[1].2), ("tmp/cache/", 0o775));
    for (path, kind, mode, ..) in &cache[1..] {
        let wanted = if *kind == 'd' { 0o775 } else { 0o664 };
        assert_eq!(
            *mode, wanted,
            "{path}: readable by all, writable by group 0"
        );
    }
    let cached: Vec<&str> = cache.iter().map(|e| e.0.as_str()).collect();
    assert!(cached.contains(&"tmp/cache/digest"), "{cached:?}");
    assert!(
        cached.contains(&"tmp/cache/cache/packages.json"),
        "{cached:?}"
    );

    let container = &config["config"];
    assert_eq!(container["Entrypoint"], serde_json::json!(["/bin/opm"]));
    assert_eq!(
        container["Cmd"],
        serde_json::json!(["serve", "/configs", "--cache-dir=/tmp/cache"])
    );
    assert_eq!(container["User"], "1001");
    assert_eq!(
        container["ExposedPorts"],
        serde_json::json!({"50051/tcp": {}})
    );
    assert_eq!(container["Labels"][CONFIGS_LABEL], "/configs");
    assert_eq!(container["Labels"]["extra"], "yes");
    assert!(container["Env"][0].as_str().unwrap().contains("/bin"));
    assert_eq!(config["created"], "1970-01-01T00:00:00Z");
    assert_eq!(config["rootfs"]["diff_ids"].as_array().unwrap().len(), 3);

    // The cache matches the catalog as the image holds them: `opm serve`
    // accepts it with integrity enforced.
    let root = out.dir.join("root");
    std::fs::create_dir(&root).unwrap();
    extract(&layout, &root);
    Test::new()
        .args(["serve", "--cache-only", "--cache-enforce-integrity=true"])
        .args([
            root.join("configs").to_str().unwrap(),
            &format!("--cache-dir={}", root.join("tmp/cache").display()),
        ])
        .run()
        .success();
    // And a catalog that differs from the cache is refused.
    std::fs::write(root.join("configs/README.md"), "changed\n").unwrap();
    Test::new()
        .args(["serve", "--cache-only", "--cache-enforce-integrity=true"])
        .args([
            root.join("configs").to_str().unwrap(),
            &format!("--cache-dir={}", root.join("tmp/cache").display()),
        ])
        .run()
        .failure(&["integrity check failed"]);
}

#[test]
fn the_same_catalog_gives_the_same_digest_and_source_date_epoch_is_honoured() {
    let test = catalog_test();
    let dir = test.path().to_path_buf();
    let build = |destination: &str, epoch: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_opm"));
        command
            .args(["alpha", "catalog", "build", "catalog", destination])
            .args(["--base", "oci://base:v1"])
            .current_dir(&dir)
            .env_remove("SOURCE_DATE_EPOCH");
        if let Some(epoch) = epoch {
            command.env("SOURCE_DATE_EPOCH", epoch);
        }
        let out = command.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        digest_of(&String::from_utf8_lossy(&out.stdout))
    };
    let first = build("file://one.tar", None);
    assert_eq!(build("file://two.tar.gz", None), first);
    assert_eq!(build("oci://three", None), first);
    // The archive itself is the same bytes too.
    let again = build("file://four.tar", None);
    assert_eq!(again, first);
    assert_eq!(
        std::fs::read(dir.join("one.tar")).unwrap(),
        std::fs::read(dir.join("four.tar")).unwrap()
    );
    // File modes and times of the source do not matter.
    use std::os::unix::fs::PermissionsExt as _;
    let file = dir.join("catalog/example-operator/package.yaml");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_234_567_890))
        .unwrap();
    assert_eq!(build("file://five.tar", None), first);

    let dated = build("oci://dated", Some("1700000000"));
    assert_ne!(dated, first);
    let (manifest, config) = manifest_and_config(&dir.join("dated"));
    assert_eq!(config["created"], "2023-11-14T22:13:20Z");
    let layer = manifest["layers"][1]["digest"].as_str().unwrap();
    let file = std::fs::File::open(blob(&dir.join("dated"), layer)).unwrap();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    for entry in archive.entries().unwrap() {
        assert_eq!(entry.unwrap().header().mtime().unwrap(), 1_700_000_000);
    }
}

#[test]
fn a_catalog_that_fails_validation_builds_nothing_and_leaves_nothing_behind() {
    let test = catalog_test()
        .file(
            "catalog/example-operator/broken.yaml",
            "schema: olm.channel\npackage: example-operator\nname: broken\nentries:\n  - name: example-operator.v9.9.9\n    replaces: nowhere\n",
        )
        .dir("tmp");
    let tmp = test.path().join("tmp");
    for destination in ["file://out.tar", "oci://out", "oci://new/deeper/out:v1"] {
        let out = Test::new()
            .copy(CATALOG, "catalog")
            .file(
                "catalog/example-operator/broken.yaml",
                "schema: olm.channel\npackage: example-operator\nname: broken\nentries:\n  - name: example-operator.v9.9.9\n    replaces: nowhere\n",
            )
            .dir("tmp")
            .env("TMPDIR", tmp.to_str().unwrap())
            .args(["alpha", "catalog", "build", "catalog", destination])
            .args(["--base", "oci:///nonexistent-never-read:v1"])
            .run()
            .failure(&["example-operator.v9.9.9"]);
        assert!(out.stdout.is_empty(), "{}", out.stdout);
        let mut left: Vec<String> = std::fs::read_dir(&out.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["catalog", "tmp"], "{destination}: {}", out.stderr);
    }
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "temporary files left"
    );

    // An archive that is there already is never replaced, before any work.
    let out = catalog_test()
        .file("out.tar", "mine\n")
        .args(["alpha", "catalog", "build", "catalog", "file://out.tar"])
        .args(["--base", "oci://base:v1"])
        .run()
        .failure(&["out.tar", "already exists"]);
    assert_eq!(out.read("out.tar"), "mine\n");
}

#[test]
fn arguments_and_the_base_are_checked() {
    catalog_test()
        .args(["alpha", "catalog", "build", "catalog"])
        .run()
        .failure(&["accepts 2 arg(s), received 1", "Usage:"]);
    catalog_test()
        .args(["alpha", "catalog", "build", "catalog", "out.tar"])
        .run()
        .failure(&["invalid destination \"out.tar\": expected file://PATH.tar"]);
    catalog_test()
        .args([
            "alpha",
            "catalog",
            "build",
            "missing",
            "file://x.tar",
            "--base",
            "oci://base:v1",
        ])
        .run()
        .failure(&["stat missing: no such file or directory"]);
    catalog_test()
        .args([
            "alpha",
            "catalog",
            "build",
            "catalog",
            "file://x.tar",
            "--base",
            "oci://base:v2",
        ])
        .run()
        .failure(&["base image", "no image tagged \"v2\""]);
    catalog_test()
        .env("SOURCE_DATE_EPOCH", "yesterday")
        .args([
            "alpha",
            "catalog",
            "build",
            "catalog",
            "file://x.tar",
            "--base",
            "oci://base:v1",
        ])
        .run()
        .failure(&["invalid SOURCE_DATE_EPOCH \"yesterday\""]);
    if !opm_is_static(Path::new(env!("CARGO_BIN_EXE_opm"))) {
        // This opm cannot be an image's only content: it says what to do.
        for args in [
            vec!["alpha", "catalog", "build", "catalog", "file://x.tar"],
            vec!["alpha", "catalog", "base", "file://x.tar"],
        ] {
            let out = catalog_test().args(args).run().failure(&[
                "linked dynamically",
                "--base IMAGE",
                "hint: scripts/build-static",
            ]);
            assert!(!out.exists("x.tar"));
        }
    }
}

/// A pushed catalog image renders as the directory does (`opm render` reads
/// the catalog through the image's configs label).
#[test]
fn a_pushed_catalog_image_renders_like_its_directory() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let reference = registry.reference("catalogs/example:v1");
    let test = catalog_test();
    let built = Test::new()
        .copy(CATALOG, "catalog")
        .args(["alpha", "catalog", "build", "catalog"])
        .args([format!("image://{reference}")])
        .args(["--use-http", "--base"])
        .args([format!("oci://{}:v1", test.path().join("base").display())])
        .run()
        .success();
    let digest = digest_of(&built.stdout);
    let from_image = Test::new()
        .args(["render", "--use-http", reference.as_str()])
        .run()
        .success();
    let from_dir = Test::new()
        .copy(CATALOG, "catalog")
        .args(["render", "catalog"])
        .run()
        .success();
    assert_eq!(from_image.stdout, from_dir.stdout);
    // Pushed by digest too, and the same build gives the same digest.
    let again = Test::new()
        .copy(CATALOG, "catalog")
        .args(["alpha", "catalog", "build", "catalog"])
        .args([format!(
            "image://{}@{digest}",
            registry.reference("catalogs/example")
        )])
        .args(["--use-http", "--base"])
        .args([format!("oci://{}:v1", test.path().join("base").display())])
        .run()
        .success();
    assert_eq!(digest_of(&again.stdout), digest);
}

/// Whether `opm` says it is linked statically.
fn opm_is_static(opm: &Path) -> bool {
    Command::new(opm)
        .arg("version")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("Linking:\"static\""))
}

/// The static opm the container tests put into images: `$OPM_STATIC_BIN`
/// (scripts/test builds it with scripts/build-static and sets it), or the
/// opm under test when it is static itself.
fn static_opm() -> Option<PathBuf> {
    let tested = PathBuf::from(env!("CARGO_BIN_EXE_opm"));
    if opm_is_static(&tested) {
        return Some(tested);
    }
    match std::env::var_os("OPM_STATIC_BIN").map(PathBuf::from) {
        Some(path) if opm_is_static(&path) => Some(path),
        Some(path) => {
            crate::util::skip(&format!(
                "OPM_STATIC_BIN={} is not a static opm (scripts/build-static builds one)",
                path.display()
            ));
            None
        }
        None => {
            crate::util::skip(
                "needs the static opm: set OPM_STATIC_BIN to what scripts/build-static prints (scripts/test does)",
            );
            None
        }
    }
}

/// Runs `opm` (a given binary) in `dir`; panics unless it succeeds.
fn run_opm(opm: &Path, dir: &Path, args: &[&str]) -> String {
    let out = Command::new(opm)
        .args(args)
        .current_dir(dir)
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "opm {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One test at a time runs an image on its own port 50051 (the host's
/// network: its `CMD` is the one OLM runs).
static PORT_50051: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// What a catalog server answers: the packages, each package, every bundle
/// listed, and each channel's head, as text.
fn answers(port: u16) -> String {
    use opm::serve::api;
    let runtime = crate::serve::runtime();
    runtime.block_on(async {
        let mut client = crate::serve::registry(port).await;
        let mut text = String::new();
        let mut packages = client
            .list_packages(api::ListPackageRequest {})
            .await
            .unwrap()
            .into_inner();
        let mut names = Vec::new();
        while let Some(package) = packages.message().await.unwrap() {
            names.push(package.name);
        }
        for name in &names {
            let package = client
                .get_package(api::GetPackageRequest { name: name.clone() })
                .await
                .unwrap()
                .into_inner();
            for channel in &package.channels {
                let head = client
                    .get_bundle(api::GetBundleRequest {
                        pkg_name: name.clone(),
                        channel_name: channel.name.clone(),
                        csv_name: channel.csv_name.clone(),
                    })
                    .await
                    .unwrap()
                    .into_inner();
                text.push_str(&format!("head {}/{}: {head:?}\n", name, channel.name));
            }
            text.push_str(&format!("{package:?}\n"));
        }
        let mut bundles = client
            .list_bundles(api::ListBundlesRequest {})
            .await
            .unwrap()
            .into_inner();
        let mut count = 0;
        while let Some(bundle) = bundles.message().await.unwrap() {
            text.push_str(&format!("{bundle:?}\n"));
            count += 1;
        }
        assert!(count > 0, "no bundles listed");
        text
    })
}

/// Starts `image` as OLM does (its own entrypoint and command, a random
/// UID in group 0, the pod's limits) and waits until the probe OLM execs,
/// `grpc_health_probe -addr=:50051`, passes inside it; returns the
/// container's name and the seconds that took.
fn run_as_olm(podman: &Podman, image: &str, name: &str) -> f64 {
    let started = Instant::now();
    podman.run([
        "run",
        "-d",
        "--name",
        name,
        "--network",
        "host",
        "--user",
        "1000680000:0",
        "--ulimit",
        "nofile=1024:1024",
        "--ulimit",
        "nproc=1024:1024",
        "--memory",
        "512m",
        image,
    ]);
    loop {
        let probe = podman.output(["exec", name, "grpc_health_probe", "-addr=:50051"]);
        if probe.status.success() {
            return started.elapsed().as_secs_f64();
        }
        if started.elapsed() > Duration::from_secs(60) {
            panic!(
                "the probe never passed: {}\n{}\nlogs:\n{}",
                String::from_utf8_lossy(&probe.stdout),
                String::from_utf8_lossy(&probe.stderr),
                podman.run(["logs", name])
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Stops the container as Kubernetes does (SIGTERM) and checks it ends in
/// time, with exit code 0.
fn stop_like_kubernetes(podman: &Podman, name: &str) {
    let started = Instant::now();
    podman.run(["stop", "--time", "10", name]);
    let stopped = started.elapsed();
    let code = podman.run(["inspect", name, "--format", "{{.State.ExitCode}}"]);
    assert_eq!(code.trim(), "0", "{}", podman.run(["logs", name]));
    assert!(
        stopped < Duration::from_secs(5),
        "stopping took {stopped:?}"
    );
}

#[test]
fn a_catalog_image_runs_in_podman_as_a_random_uid_and_answers_like_opm_serve() {
    let Some(catalog) = crate::util::shared("corpus/fbc/kube-descheduler-operator-v4.17") else {
        return;
    };
    let Some(opm) = static_opm() else {
        return;
    };
    let Some(podman) = Podman::new() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let archive = work.path().join("catalog.tar");
    let built = run_opm(
        &opm,
        work.path(),
        &[
            "alpha",
            "catalog",
            "build",
            catalog.to_str().unwrap(),
            &format!("file://{}", archive.display()),
            "--tag",
            "localhost/opm-test/catalog:v1",
        ],
    );
    let digest = digest_of(&built);
    let loaded = podman.load(&archive);
    assert!(loaded.contains("localhost/opm-test/catalog:v1"), "{loaded}");
    let inspected = podman.run([
        "image",
        "inspect",
        "localhost/opm-test/catalog:v1",
        "--format",
        "{{.Digest}}",
    ]);
    assert_eq!(inspected.trim(), digest);

    let _port = PORT_50051
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ready = run_as_olm(&podman, "localhost/opm-test/catalog:v1", "catalog");
    assert!(ready < 5.0, "the probe passed only after {ready:.1} s");
    // The probe is the opm inside, and it says what grpc-health-probe says.
    let probe = podman.output(["exec", "catalog", "/bin/grpc_health_probe", "-addr=:50051"]);
    assert!(probe.status.success());
    // Nothing runs as root; the catalog is readable and the cache in use.
    let user = podman.run(["inspect", "catalog", "--format", "{{.Config.User}}"]);
    assert_eq!(user.trim(), "1000680000:0");

    let direct = crate::serve::Server::start(&catalog, &[]);
    assert_eq!(answers(50051), answers(direct.port));
    stop_like_kubernetes(&podman, "catalog");
}

#[test]
fn generate_dockerfile_with_our_base_builds_with_podman_and_runs() {
    let Some(catalog) = crate::util::shared("corpus/fbc/cert-manager-operator-v4.18") else {
        return;
    };
    let Some(opm) = static_opm() else {
        return;
    };
    let Some(podman) = Podman::new() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    crate::util::copy_tree(&catalog, &work.path().join("catalog"));
    let base = "localhost/opm-test/opm:v1";
    run_opm(
        &opm,
        work.path(),
        &["alpha", "catalog", "base", "file://base.tar", "--tag", base],
    );
    podman.load(&work.path().join("base.tar"));
    // The base alone: the binary runs as any user.
    let version = podman.run([
        "run",
        "--rm",
        "--network",
        "host",
        "--user",
        "1000680000:0",
        base,
        "version",
    ]);
    assert!(version.contains("Linking:\"static\""), "{version}");

    run_opm(
        &opm,
        work.path(),
        &["generate", "dockerfile", "catalog", "-i", base, "-b", base],
    );
    let built = {
        let mut command = podman.command();
        command
            .current_dir(work.path())
            .args([
                "build",
                "--pull=never",
                "--network",
                "host",
                "-f",
                "catalog.Dockerfile",
            ])
            .args(["-t", "localhost/opm-test/catalog-from-dockerfile:v1", "."]);
        command.output().unwrap()
    };
    assert!(
        built.status.success(),
        "podman build: {}\n{}",
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );

    let _port = PORT_50051
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let ready = run_as_olm(
        &podman,
        "localhost/opm-test/catalog-from-dockerfile:v1",
        "from-dockerfile",
    );
    assert!(ready < 5.0, "the probe passed only after {ready:.1} s");
    let direct = crate::serve::Server::start(&work.path().join("catalog"), &[]);
    assert_eq!(answers(50051), answers(direct.port));
    stop_like_kubernetes(&podman, "from-dockerfile");
}

/// The static opm needs nothing from a distribution: in an image holding
/// only it, it resolves a registry's host name (from the `/etc/hosts` the
/// runtime writes, without the C library's NSS), pulls a catalog image and
/// renders it as the directory renders.
#[test]
fn the_static_opm_pulls_and_renders_in_an_image_of_its_own() {
    let Some(opm) = static_opm() else {
        return;
    };
    let Some(registry) = Registry::plain() else {
        return;
    };
    let Some(podman) = Podman::new() else {
        return;
    };
    let test = catalog_test();
    let port = registry.host.rsplit_once(':').unwrap().1.to_string();
    let reference = format!("registry.opm.test:{port}/catalogs/example:v1");
    run_opm(
        &opm,
        test.path(),
        &[
            "alpha",
            "catalog",
            "build",
            "catalog",
            &format!("image://{}", registry.reference("catalogs/example:v1")),
            "--use-http",
            "--base",
            "oci://base:v1",
        ],
    );
    run_opm(
        &opm,
        test.path(),
        &[
            "alpha",
            "catalog",
            "base",
            "file://base.tar",
            "--tag",
            "localhost/opm-test/opm:v1",
        ],
    );
    podman.load(&test.path().join("base.tar"));
    let rendered = podman.run([
        "run",
        "--rm",
        "--network",
        "host",
        "--add-host",
        "registry.opm.test:127.0.0.1",
        "--user",
        "1000680000:0",
        "localhost/opm-test/opm:v1",
        "render",
        "--use-http",
        &reference,
    ]);
    let from_dir = run_opm(&opm, test.path(), &["render", "catalog"]);
    assert_eq!(rendered, from_dir);
}
