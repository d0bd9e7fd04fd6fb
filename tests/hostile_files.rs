//! Hostile files and unlucky disks, through the real binary: YAML alias bombs,
//! nesting 100,000 levels deep, FIFOs, links to devices and out of the tree,
//! sparse files, a full disk and a symlinked secret next to a bundle. Each run
//! ends with exit 1 and a message naming the file and the limit, within 10 s
//! and a 1 GiB address space, and leaves nothing half-written.

use crate::util::registry::Registry;
use crate::util::{Output, Test};
use std::path::Path;
use std::time::{Duration, Instant};

const BUNDLE: &str = "testdata/rules/annotations-missing/valid-all-labels";
/// The address space `opm` may use in these tests.
const MEMORY: u64 = 1 << 30;
/// The longest any of these runs may take.
const WITHIN: Duration = Duration::from_secs(10);

/// Runs `test` under the memory cap and the time bound; exit 1, no panic,
/// every fragment in stderr, nothing on stdout.
fn refused(test: Test, fragments: &[&str]) -> Output {
    let started = Instant::now();
    let out = test.memory_limit(MEMORY).run();
    let elapsed = started.elapsed();
    assert!(
        elapsed < WITHIN,
        "took {elapsed:?}; stderr:\n{}",
        out.stderr
    );
    assert_eq!(out.stdout, "");
    out.failure(fragments)
}

const ALIASING: &str = "document contains excessive aliasing: aliases expand to more than";

#[test]
fn yaml_alias_bombs_are_refused_in_catalogs() {
    let bomb = format!(
        "schema: my.other\npackage: p\nx:\n{}",
        bomb_entries("  ", 3000)
    );
    for command in [&["validate", "cat"][..], &["render", "cat", "-o", "yaml"]] {
        refused(
            Test::new()
                .file("cat/catalog.yaml", &bomb)
                .args(command.to_vec()),
            &[ALIASING, "cat/catalog.yaml:"],
        );
    }
}

fn bundle_file(relative: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(BUNDLE)
            .join(relative),
    )
    .unwrap()
}

/// `count` references to a 1 MiB anchor, as entries of a mapping indented by `indent`.
fn bomb_entries(indent: &str, count: usize) -> String {
    let mut text = format!("{indent}x.anchor: &big \"{}\"\n", "x".repeat(1 << 20));
    for i in 0..count {
        text.push_str(&format!("{indent}x.k{i}: *big\n"));
    }
    text
}

#[test]
fn yaml_alias_bombs_are_refused_in_bundles() {
    let csv = format!(
        "{}x-bomb:\n{}",
        bundle_file("manifests/csv.yaml"),
        bomb_entries("  ", 3000)
    );
    let in_csv = || {
        Test::new()
            .copy(BUNDLE, "b")
            .file("b/manifests/csv.yaml", &csv)
    };
    refused(
        in_csv().args(["bundle", "validate", "b"]),
        &[ALIASING, "manifests/csv.yaml"],
    );
    refused(in_csv().args(["render", "b"]), &[]);
    // Build cannot tell its media type (no CSV could be read): refused too.
    refused(in_csv().args(["bundle", "build", "b", "file://b.tar"]), &[]);

    // annotations.yaml is also read through yaml_serde by build (generate
    // replaces it, as upstream does).
    let annotations = format!(
        "{}{}",
        bundle_file("metadata/annotations.yaml"),
        bomb_entries("  ", 3000)
    );
    let in_annotations = || {
        Test::new()
            .copy(BUNDLE, "b")
            .file("b/metadata/annotations.yaml", &annotations)
    };
    refused(in_annotations().args(["bundle", "validate", "b"]), &[]);
    refused(in_annotations().args(["render", "b"]), &[]);
    refused(
        in_annotations().args(["bundle", "build", "b", "file://b.tar"]),
        &[ALIASING, "b/metadata/annotations.yaml"],
    );
}

#[test]
fn nesting_100000_deep_is_refused_at_once() {
    let depth = 100_000;
    let json = format!(
        "{{\"schema\":\"olm.package\",\"name\":\"x\",\"v\":{}",
        "[".repeat(depth)
    );
    refused(
        Test::new()
            .file("cat/catalog.json", &json)
            .args(["validate", "cat"]),
        &[
            "json: offset 10039: invalid character '[' exceeded max depth",
            "cat/catalog.json:1:",
        ],
    );
    let yaml = format!(
        "schema: olm.package\nname: x\nv: {}{}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    refused(
        Test::new()
            .file("cat/catalog.yaml", &yaml)
            .args(["validate", "cat"]),
        &[
            "exceeded max depth",
            "cat/catalog.yaml:1:1: error[catalog-document-invalid]",
        ],
    );
    // Nesting within Go's limit, with many values at the bottom, stays linear.
    let wide = format!(
        "schema: my.other\npackage: p\nv: {}{}1{}\n",
        "[".repeat(9_990),
        "1, ".repeat(200_000),
        "]".repeat(9_990)
    );
    let started = Instant::now();
    Test::new()
        .file("cat/catalog.yaml", &wide)
        .args(["validate", "cat"])
        .run()
        .success();
    assert!(started.elapsed() < WITHIN);
}

#[test]
fn json_documents_nest_as_deep_as_upstream_allows() {
    let deep = |depth: usize| {
        format!(
            "{{\"schema\":\"my.other\",\"package\":\"p\",\"v\":{}{}}}\n",
            "[".repeat(depth),
            "]".repeat(depth)
        )
    };
    // Two files, so that they are parsed on worker threads too.
    let out = Test::new()
        .file("cat/a.json", deep(9_998))
        .file("cat/b.json", deep(200))
        .args(["render", "cat", "-o", "yaml"])
        .run()
        .success();
    assert_eq!(out.stdout.matches("schema: my.other").count(), 2);
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn special_files_in_a_catalog_are_refused_by_name() {
    let fifo = Test::new().dir("cat");
    mkfifo(&fifo.path().join("cat/catalog.json"));
    refused(
        fifo.args(["validate", "cat"]),
        &["cat/catalog.json is a named pipe (FIFO), not a regular file"],
    );

    let zero = Test::new().dir("cat");
    std::os::unix::fs::symlink("/dev/zero", zero.path().join("cat/catalog.json")).unwrap();
    refused(
        zero.args(["render", "cat"]),
        &["cat/catalog.json is a symbolic link to /dev/zero, outside cat"],
    );

    let sparse = Test::new().dir("cat");
    let file = std::fs::File::create(sparse.path().join("cat/catalog.json")).unwrap();
    file.set_len(2 << 30).unwrap();
    refused(
        sparse.args(["validate", "cat"]),
        &["cat/catalog.json is larger than the limit of 1073741824 bytes (set OPM_MAX_FILE_SIZE to raise it)"],
    );

    // The limit can be raised, or lowered; a bad value is a clear error.
    Test::new()
        .file(
            "cat/catalog.json",
            "{\"schema\":\"olm.package\",\"name\":\"x\"}",
        )
        .env("OPM_MAX_FILE_SIZE", "16")
        .args(["validate", "cat"])
        .run()
        .failure(&["is larger than the limit of 16 bytes"]);
    Test::new()
        .file("cat/catalog.json", "{\"schema\":\"olm.package\",\"name\":\"x\"}")
        .env("OPM_MAX_FILE_SIZE", "lots")
        .args(["validate", "cat"])
        .run()
        .failure(&["invalid OPM_MAX_FILE_SIZE \"lots\": expected a size in bytes, such as 1073741824 or 1GiB"]);

    // A link inside the catalog is read; one out of it is not.
    let package = "{\"schema\":\"olm.package\",\"name\":\"x\"}";
    let inside = Test::new()
        .file("cat/real/catalog.json", package)
        .dir("cat/linked");
    std::os::unix::fs::symlink(
        "../real/catalog.json",
        inside.path().join("cat/linked/inside.json"),
    )
    .unwrap();
    let rendered = inside.args(["render", "cat"]).run().success();
    assert_eq!(rendered.stdout.matches("\"name\": \"x\"").count(), 2);
    let outside = Test::new()
        .file("cat/real/catalog.json", package)
        .file(
            "secret.json",
            "{\"schema\":\"olm.package\",\"name\":\"secret\"}",
        )
        .dir("cat/linked");
    std::os::unix::fs::symlink(
        "../../secret.json",
        outside.path().join("cat/linked/secret.json"),
    )
    .unwrap();
    let out = refused(
        outside.args(["render", "cat"]),
        &["cat/linked/secret.json is a symbolic link to"],
    );
    assert!(!out.stderr.contains("\"secret\""));
}

#[test]
fn special_files_in_a_bundle_are_refused_by_name() {
    for command in [
        &["render", "b"][..],
        &["bundle", "validate", "b"],
        &["bundle", "build", "b", "file://out.tar"],
        &["bundle", "list", "b"],
    ] {
        let test = Test::new().copy(BUNDLE, "b");
        mkfifo(&test.path().join("b/manifests/fifo.yaml"));
        let out = refused(
            test.args(command.to_vec()),
            &[
                "manifests/fifo.yaml",
                "is a named pipe (FIFO), not a regular file",
            ],
        );
        assert!(!out.exists("out.tar"), "{command:?}");
    }
    let test = Test::new().copy(BUNDLE, "b");
    std::os::unix::fs::symlink("/dev/zero", test.path().join("b/manifests/zero.yaml")).unwrap();
    refused(
        test.args(["render", "b"]),
        &["b/manifests/zero.yaml is a symbolic link to /dev/zero, outside b"],
    );
    let test = Test::new().copy(BUNDLE, "b");
    let file = std::fs::File::create(test.path().join("b/manifests/big.yaml")).unwrap();
    file.set_len(100 << 20).unwrap();
    refused(
        test.args(["bundle", "validate", "b"]),
        &["b/manifests/big.yaml is larger than the limit of 67108864 bytes (set OPM_MAX_MANIFEST_SIZE to raise it)"],
    );
}

/// A bundle whose manifests/ holds a link to a secret beside the bundle.
fn bundle_with_linked_secret() -> Test {
    let test = Test::new().copy(BUNDLE, "b").file(
        "secret.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: secret\ndata:\n  password: hunter2\n",
    );
    std::os::unix::fs::symlink(
        "../../secret.yaml",
        test.path().join("b/manifests/secret.yaml"),
    )
    .unwrap();
    test
}

const LINK_OUT: &str = "b/manifests/secret.yaml is a symbolic link to";

#[test]
fn bundle_build_never_packs_a_file_from_outside_the_bundle() {
    for destination in ["file://out.tar", "file://out.tar.gz", "oci://layout"] {
        let out = refused(
            bundle_with_linked_secret().args(["bundle", "build", "b", destination]),
            &[LINK_OUT],
        );
        assert!(!out.exists("out.tar") && !out.exists("out.tar.gz") && !out.exists("layout"));
        // Without validation too.
        let out = refused(
            bundle_with_linked_secret().args([
                "bundle",
                "build",
                "b",
                destination,
                "--skip-validation",
            ]),
            &[LINK_OUT],
        );
        assert!(!out.exists("out.tar") && !out.exists("out.tar.gz") && !out.exists("layout"));
    }
    // A container tool is never started for it either.
    let tools = tempfile::tempdir().unwrap();
    let marker = tools.path().join("ran");
    let script = format!("#!/bin/sh\ntouch '{}'\n", marker.display());
    std::fs::write(tools.path().join("docker"), script).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(
        tools.path().join("docker"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        tools.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    refused(
        bundle_with_linked_secret().env("PATH", &path).args([
            "bundle",
            "build",
            "-d",
            "b/manifests",
            "-t",
            "x:1",
            "-p",
            "etcd",
            "-c",
            "alpha",
            "--skip-validation",
        ]),
        &[LINK_OUT],
    );
    assert!(!marker.exists(), "docker ran");
}

#[test]
fn bundle_build_never_pushes_a_file_from_outside_the_bundle() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let reference = format!("image://{}:v1", registry.reference("secret/bundle"));
    refused(
        bundle_with_linked_secret().args(["bundle", "build", "b", &reference, "--use-http"]),
        &[LINK_OUT],
    );
    // Nothing arrived: the tag does not exist.
    Test::new()
        .args(["render", &reference["image://".len()..], "--use-http"])
        .run()
        .failure(&["not found"]);
}

/// A 64 KiB tmpfs mounted for the test (root only), unmounted on drop.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    fn mount() -> Option<SmallDisk> {
        let dir = tempfile::tempdir().unwrap();
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        mounted.then_some(SmallDisk { dir })
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

#[test]
fn bundle_unpack_onto_a_full_disk_leaves_nothing() {
    let Some(disk) = SmallDisk::mount() else {
        crate::util::skip("mounting a small tmpfs needs root");
        return;
    };
    let Some(registry) = Registry::plain() else {
        return;
    };
    let reference = registry.reference("full/bundle") + ":v1";
    // A CSV too large for the disk (compressed, it is small to pull).
    let csv = bundle_file("manifests/csv.yaml");
    let padded = csv.replacen(
        "spec:\n",
        &format!("spec:\n  description: {}\n", "x".repeat(200 << 10)),
        1,
    );
    Test::new()
        .copy(BUNDLE, "b")
        .file("b/manifests/csv.yaml", padded)
        .args([
            "bundle",
            "build",
            "b",
            &format!("image://{reference}"),
            "--use-http",
            "--skip-validation",
        ])
        .run()
        .success();
    // Into a new directory and into one that exists, with a file of its own.
    for out in ["new", "existing"] {
        let target = disk.dir.path().join(out);
        if out == "existing" {
            std::fs::create_dir(&target).unwrap();
            std::fs::write(target.join("mine"), "mine").unwrap();
        }
        let test = Test::new().args([
            "bundle",
            "unpack",
            &reference,
            "--use-http",
            "--skip-validation",
            "-o",
            target.to_str().unwrap(),
        ]);
        refused(
            test,
            &[
                "failed to copy unpacked content to output directory",
                "no space left on device",
            ],
        );
        let mut left: Vec<String> = walkdir::WalkDir::new(disk.dir.path())
            .min_depth(1)
            .into_iter()
            .map(|e| {
                e.unwrap()
                    .path()
                    .strip_prefix(disk.dir.path())
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        left.sort();
        let expected: &[&str] = if out == "existing" {
            &["existing", "existing/mine"]
        } else {
            &[]
        };
        assert_eq!(left, expected, "into {out}");
    }
}
