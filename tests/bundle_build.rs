//! `opm bundle build` (and `opm alpha bundle build`): upstream's container
//! tool command lines (a fake `docker` first on `PATH`; real `podman` and
//! `buildah` with private vfs storage and chroot isolation), the daemonless
//! destinations (`file://`, `oci://`, `image://`, `-b none -t`), validation
//! before building, and no file changed when anything fails.

use crate::util::registry::{free_port, Registry};
use crate::util::{Output, Test};
use std::path::{Path, PathBuf};

const MANIFESTS: &str = "testdata/rules/annotations-missing/valid-all-labels/manifests";
const BUNDLE: &str = "testdata/rules/annotations-missing/valid-all-labels";
const TAG: &str = "quay.io/example/etcd-bundle:v1";

const ANNOTATIONS: &str = "annotations:
  operators.operatorframework.io.bundle.channel.default.v1: alpha
  operators.operatorframework.io.bundle.channels.v1: alpha
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: etcd
";

const DOCKERFILE: &str = "FROM scratch

LABEL operators.operatorframework.io.bundle.mediatype.v1=registry+v1
LABEL operators.operatorframework.io.bundle.manifests.v1=manifests/
LABEL operators.operatorframework.io.bundle.metadata.v1=metadata/
LABEL operators.operatorframework.io.bundle.package.v1=etcd
LABEL operators.operatorframework.io.bundle.channels.v1=alpha
LABEL operators.operatorframework.io.bundle.channel.default.v1=alpha

COPY bundle/manifests /manifests/
COPY bundle/metadata /metadata/
";

/// A bundle with manifests only (`bundle/manifests/csv.yaml`).
fn manifests() -> Test {
    Test::new().copy(MANIFESTS, "bundle/manifests")
}

/// Every path under `dir` with the contents of its files, sorted.
fn listing(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(|entry| {
            let entry = entry.expect("walk test directory");
            let contents = if entry.file_type().is_file() {
                std::fs::read(entry.path()).expect("read file")
            } else {
                Vec::new()
            };
            let relative = entry.path().strip_prefix(dir).expect("prefix");
            (relative.to_path_buf(), contents)
        })
        .collect()
}

/// Runs `test` and checks that it failed leaving every file as it was.
fn fails_unchanged(test: Test, fragments: &[&str]) -> Output {
    let before = listing(test.path());
    let out = test.run().failure(fragments);
    assert_eq!(listing(&out.dir), before, "files changed:\n{}", out.stderr);
    out
}

/// A `docker` that records its argv, working directory and the Dockerfile it
/// was given, and exits with `code`.
struct FakeDocker {
    dir: tempfile::TempDir,
}

impl FakeDocker {
    fn new(code: i32) -> FakeDocker {
        let dir = tempfile::tempdir().expect("fake docker directory");
        let log = dir.path().join("log");
        let script = format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{log}.argv'\npwd > '{log}.cwd'\ncat bundle.Dockerfile > '{log}.dockerfile' 2>/dev/null\nexit {code}\n",
            log = log.display()
        );
        let path = dir.path().join("docker");
        std::fs::write(&path, script).expect("write fake docker");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .expect("chmod fake docker");
        }
        FakeDocker { dir }
    }

    /// `PATH` with the fake first.
    fn path(&self) -> String {
        format!(
            "{}:{}",
            self.dir.path().display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    fn recorded(&self, what: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.path().join(format!("log.{what}"))).ok()
    }
}

fn build_args(extra: &[&str]) -> Vec<String> {
    [
        "bundle",
        "build",
        "-d",
        "bundle/manifests",
        "-t",
        TAG,
        "-p",
        "etcd",
        "-c",
        "alpha",
    ]
    .iter()
    .chain(extra)
    .map(|s| (*s).to_string())
    .collect()
}

#[test]
fn bundle_build_runs_docker_with_upstreams_command_line() {
    let docker = FakeDocker::new(0);
    let out = manifests()
        .env("PATH", &docker.path())
        .args(build_args(&[]))
        .run()
        .success();
    assert_eq!(
        docker.recorded("argv").as_deref(),
        Some(format!("build\n-f\nbundle.Dockerfile\n-t\n{TAG}\n.\n").as_str())
    );
    // Run in opm's working directory, with the generated files in place.
    let cwd = docker.recorded("cwd").expect("cwd recorded");
    assert_eq!(
        std::fs::canonicalize(cwd.trim()).expect("cwd"),
        std::fs::canonicalize(&out.dir).expect("test dir")
    );
    assert_eq!(docker.recorded("dockerfile").as_deref(), Some(DOCKERFILE));
    assert_eq!(out.read("bundle.Dockerfile"), DOCKERFILE);
    assert_eq!(out.read("bundle/metadata/annotations.yaml"), ANNOTATIONS);
    assert!(
        out.stderr.contains("Building bundle image"),
        "{}",
        out.stderr
    );
}

#[test]
fn bundle_build_alpha_spelling_is_the_same_command() {
    let docker = FakeDocker::new(0);
    let mut args = build_args(&["-e", "alpha"]);
    args.insert(0, "alpha".to_string());
    let out = manifests()
        .env("PATH", &docker.path())
        .args(args)
        .run()
        .success();
    assert!(docker.recorded("argv").is_some());
    assert_eq!(out.read("bundle.Dockerfile"), DOCKERFILE);
}

#[test]
fn bundle_build_failing_tool_reports_upstreams_error_and_restores_files() {
    let docker = FakeDocker::new(3);
    fails_unchanged(
        manifests()
            .env("PATH", &docker.path())
            .args(build_args(&[])),
        &[&format!(
            "Error: Failed to exec \"docker build -f bundle.Dockerfile -t {TAG} .\": exit status 3"
        )],
    );
    // The tool saw the generated Dockerfile: files were in place during the build.
    assert_eq!(docker.recorded("dockerfile").as_deref(), Some(DOCKERFILE));

    // Existing files replaced with --overwrite come back too.
    let test = Test::new()
        .copy(BUNDLE, "bundle")
        .file("bundle.Dockerfile", "mine\n")
        .env("PATH", &docker.path())
        .args(build_args(&["--overwrite"]));
    fails_unchanged(test, &["exit status 3"]);
}

#[test]
fn bundle_build_missing_tool_is_an_exec_error() {
    let empty = tempfile::tempdir().expect("empty PATH directory");
    for (builder, argv) in [
        (
            "docker",
            "docker build -f bundle.Dockerfile -t quay.io/example/etcd-bundle:v1 .",
        ),
        (
            "buildah",
            "buildah bud --format=docker -f bundle.Dockerfile -t quay.io/example/etcd-bundle:v1 .",
        ),
    ] {
        fails_unchanged(
            manifests()
                .env("PATH", &empty.path().display().to_string())
                .args(build_args(&["-b", builder])),
            &[&format!(
                "Error: Failed to exec \"{argv}\": exec: \"{builder}\": executable file not found in $PATH"
            )],
        );
    }
}

/// Without docker, or without its daemon, the error says what else works.
#[test]
fn bundle_build_without_a_docker_daemon_hints_at_the_alternatives() {
    let hint = "hint: no docker daemon here? build with -b podman or -b buildah, or without a daemon: opm bundle build bundle file://bundle.tar (or oci://DIR, image://REF)\n";
    let empty = tempfile::tempdir().expect("empty PATH directory");
    let out = fails_unchanged(
        manifests()
            .env("PATH", &empty.path().display().to_string())
            .args(build_args(&[])),
        &["executable file not found in $PATH\n"],
    );
    assert!(out.stderr.ends_with(hint), "{}", out.stderr);
    // docker is there, its daemon's socket is not.
    let docker = FakeDocker::new(1);
    let out = fails_unchanged(
        manifests()
            .env("PATH", &docker.path())
            .env("DOCKER_HOST", "unix:///nonexistent/docker.sock")
            .args(build_args(&[])),
        &["exit status 1\n"],
    );
    assert!(out.stderr.ends_with(hint), "{}", out.stderr);
    // A daemon that may be there: no guess.
    let out = fails_unchanged(
        manifests()
            .env("PATH", &docker.path())
            .env("DOCKER_HOST", "tcp://127.0.0.1:2375")
            .args(build_args(&[])),
        &["exit status 1\n"],
    );
    assert!(!out.stderr.contains("hint:"), "{}", out.stderr);
}

/// Private containers-storage for `podman`/`buildah` under `dir` (as root,
/// and as any other user, who gets `rootless_storage_path` instead).
/// The images in the storage of the sandbox `opm` ran in.
fn images(tool: &str, sandbox: &crate::util::sandbox::Sandbox) -> String {
    let out = sandbox
        .tool(tool)
        .args(["images", "--noheading"])
        .output()
        .unwrap_or_else(|e| panic!("{tool} images: {e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `REPOSITORY TAG IMAGE-ID …` rows, as `repository:tag` lines.
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|row| {
            let mut columns = row.split_whitespace();
            Some(format!("{}:{}", columns.next()?, columns.next()?))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn real_tool_builds(tool: &str) {
    if !crate::util::sandbox::container_engine(tool) {
        return;
    }
    let tag = format!("localhost/opm-test/{tool}-bundle:v1");
    let mut args = build_args(&["-b", tool]);
    args[5].clone_from(&tag);
    // The tool runs in the sandbox every opm of a test runs in (its storage too).
    let out = manifests().args(args).run().success();
    assert_eq!(out.read("bundle.Dockerfile"), DOCKERFILE);
    let listed = images(tool, out.sandbox());
    assert!(
        listed.lines().any(|line| line == tag),
        "{tag} not in {tool} images:\n{listed}"
    );
}

#[test]
fn bundle_build_with_podman_stores_the_image() {
    real_tool_builds("podman");
}

#[test]
fn bundle_build_with_buildah_stores_the_image() {
    real_tool_builds("buildah");
}

#[test]
fn bundle_build_required_flags_like_cobra() {
    let cases: [(&[&str], &str); 4] = [
        (&[], "required flag(s) \"directory\", \"tag\" not set"),
        (
            &["-d", "bundle/manifests"],
            "required flag(s) \"tag\" not set",
        ),
        (&["-t", TAG], "required flag(s) \"directory\" not set"),
        (
            &["-d", "bundle/manifests", "-b", "none"],
            "required flag(s) \"tag\" not set",
        ),
    ];
    for (extra, message) in cases {
        let mut args = vec!["bundle", "build"];
        args.extend(extra);
        fails_unchanged(manifests().args(args), &[&format!("Error: {message}")]);
    }
}

#[test]
fn bundle_build_usage_errors_write_nothing() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["-b", "kaniko"],
            "kaniko is not supported image builder",
        ),
        (
            &["bundle/manifests", "file://x.tar", "-b", "docker"],
            "--image-builder docker cannot write \"file://x.tar\"",
        ),
        (
            &["bundle/manifests", "file://x.zip"],
            "invalid destination \"file://x.zip\": the archive name must end in .tar or .tar.gz",
        ),
        (
            &["bundle/manifests", "ftp://x"],
            "invalid destination \"ftp://x\": expected file://PATH.tar, file://PATH.tar.gz, oci://DIR or image://REF",
        ),
        (
            &["bundle/manifests", "image://"],
            "invalid destination \"image://\"",
        ),
        (
            &["bundle/manifests", "x", "y"],
            "accepts at most 2 arg(s), received 3",
        ),
        (
            &["bundle/manifests", "file://x.tar", "-d", "bundle/manifests"],
            "give the bundle directory either as an argument or with --directory, not both",
        ),
    ];
    for (extra, message) in cases {
        let mut args = vec!["bundle", "build", "-t", TAG];
        if !extra.contains(&"bundle/manifests") {
            args.extend(["-d", "bundle/manifests"]);
        }
        args.extend(extra);
        fails_unchanged(manifests().args(args), &[message]);
    }
    fails_unchanged(
        manifests().args([
            "bundle",
            "build",
            "bundle/manifests",
            "image://localhost/x:v1",
            "-t",
            TAG,
        ]),
        &["give the image reference either as image://localhost/x:v1 or with --tag, not both"],
    );
}

#[test]
fn bundle_build_invalid_bundle_is_not_built() {
    let docker = FakeDocker::new(0);
    // The Pod is the second document: its finding is placed at its line.
    let pod = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n";
    let out = fails_unchanged(
        manifests()
            .file("bundle/manifests/pod.yaml", pod)
            .env("PATH", &docker.path())
            .args(build_args(&[])),
        &[
            "bundle/manifests/pod.yaml:6:1: error[manifest-kind-unsupported]: Pod is not supported type for registryV1 bundle: manifests/pod.yaml\n",
            "Error: Bundle validation errors: 1 error",
        ],
    );
    assert!(!out.stderr.contains("Building bundle image"));
    assert_eq!(docker.recorded("argv"), None, "the tool must not run");

    // --skip-validation builds it anyway.
    let out = manifests()
        .file("bundle/manifests/pod.yaml", pod)
        .env("PATH", &docker.path())
        .args(build_args(&["--skip-validation"]))
        .run()
        .success();
    assert!(docker.recorded("argv").is_some());
    assert_eq!(out.read("bundle/metadata/annotations.yaml"), ANNOTATIONS);
}

#[test]
fn bundle_build_existing_annotations_are_checked_without_overwrite() {
    let docker = FakeDocker::new(0);
    // The fixture's annotations say channels "stable,beta".
    fails_unchanged(
        Test::new()
            .copy(BUNDLE, "bundle")
            .env("PATH", &docker.path())
            .args(build_args(&[])),
        &["Expect field \"operators.operatorframework.io.bundle.channels.v1\" to have value \"alpha\" instead of \"stable,beta\""],
    );
    assert_eq!(docker.recorded("argv"), None);

    // Without -p/-c/-e the existing file supplies them, and is kept.
    let out = Test::new()
        .copy(BUNDLE, "bundle")
        .env("PATH", &docker.path())
        .args(["bundle", "build", "-d", "bundle/manifests", "-t", TAG])
        .run()
        .success();
    assert_eq!(
        out.read("bundle/metadata/annotations.yaml"),
        std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(BUNDLE)
                .join("metadata/annotations.yaml")
        )
        .expect("fixture")
    );
    assert!(out
        .read("bundle.Dockerfile")
        .contains("LABEL operators.operatorframework.io.bundle.channel.default.v1=stable\n"));

    // --overwrite replaces it.
    let out = Test::new()
        .copy(BUNDLE, "bundle")
        .env("PATH", &docker.path())
        .args(build_args(&["--overwrite"]))
        .run()
        .success();
    assert_eq!(out.read("bundle/metadata/annotations.yaml"), ANNOTATIONS);
}

#[test]
fn bundle_build_missing_directory_writes_nothing() {
    let docker = FakeDocker::new(0);
    fails_unchanged(
        Test::new().env("PATH", &docker.path()).args([
            "bundle", "build", "-d", "nope", "-t", TAG, "-p", "etcd", "-c", "alpha",
        ]),
        &["Error: stat nope: no such file or directory"],
    );
    fails_unchanged(
        Test::new().args(["bundle", "build", "nope", "file://x.tar"]),
        &["Error: stat nope: no such file or directory"],
    );
    assert_eq!(docker.recorded("argv"), None);
}

#[test]
fn bundle_build_unreachable_registry_leaves_nothing() {
    let destination = format!("image://127.0.0.1:{}/opm-test/etcd:v1", free_port());
    fails_unchanged(
        manifests().args([
            "bundle",
            "build",
            "bundle/manifests",
            destination.as_str(),
            "-p",
            "etcd",
            "-c",
            "alpha",
            "--use-http",
        ]),
        &["Error: "],
    );
    fails_unchanged(
        manifests().args([
            "bundle",
            "build",
            "-d",
            "bundle/manifests",
            "-b",
            "none",
            "-t",
            &destination["image://".len()..],
            "-p",
            "etcd",
            "-c",
            "alpha",
            "--use-http",
        ]),
        &["Error: "],
    );
}

#[test]
fn bundle_build_archive_into_a_missing_directory_leaves_nothing() {
    fails_unchanged(
        manifests().args([
            "bundle",
            "build",
            "bundle/manifests",
            "file://missing/etcd.tar",
            "-p",
            "etcd",
            "-c",
            "alpha",
        ]),
        &["Error: "],
    );
}

// The tests below need the daemonless image builder (`image::build`).

/// What `skopeo inspect` says of the image, or `None` (the test's check is
/// skipped) without skopeo.
fn skopeo_inspect(transport: &str) -> Option<serde_json::Value> {
    if !crate::util::have_tool("skopeo", "skopeo") {
        return None;
    }
    let out = crate::util::sandbox::Sandbox::new()
        .tool("skopeo")
        .args([
            "--insecure-policy",
            "inspect",
            "--tls-verify=false",
            transport,
        ])
        .output()
        .expect("run skopeo inspect");
    assert!(
        out.status.success(),
        "skopeo inspect {transport}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).expect("skopeo inspect JSON"))
}

fn assert_bundle_labels(inspected: Option<serde_json::Value>) {
    let Some(inspected) = inspected else {
        return;
    };
    let labels = &inspected["Labels"];
    assert_eq!(
        labels["operators.operatorframework.io.bundle.package.v1"], "etcd",
        "{inspected}"
    );
    assert_eq!(
        labels["operators.operatorframework.io.bundle.channels.v1"],
        "alpha"
    );
    assert_eq!(
        labels["operators.operatorframework.io.bundle.mediatype.v1"],
        "registry+v1"
    );
}

fn daemonless(destination: &str) -> Output {
    manifests()
        .args([
            "bundle",
            "build",
            "bundle/manifests",
            destination,
            "-p",
            "etcd",
            "-c",
            "alpha",
        ])
        .run()
        .success()
}

#[test]
fn bundle_build_writes_an_oci_archive() {
    let out = daemonless("file://etcd.tar");
    let archive = out.dir.join("etcd.tar");
    assert_bundle_labels(skopeo_inspect(&format!(
        "oci-archive:{}",
        archive.display()
    )));
}

/// `sha256:` and 64 lower-case hex digits.
fn is_digest(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// A build without a container tool writes its output and nothing else: no
/// bundle.Dockerfile in the working directory, no metadata/ in the bundle
/// (the generated annotations are in the image only). stdout is the
/// image's manifest digest; stderr says where it went.
#[test]
fn bundle_build_daemonless_writes_only_its_output_and_prints_the_digest() {
    for (destination, output) in [
        ("file://etcd.tar", "etcd.tar"),
        ("file://etcd.tar.gz", "etcd.tar.gz"),
        ("oci://layout", "layout"),
    ] {
        let test = manifests();
        let before = listing(test.path());
        let out = test
            .args([
                "bundle",
                "build",
                "bundle/manifests",
                destination,
                "-p",
                "etcd",
                "-c",
                "alpha",
            ])
            .run()
            .success();
        let digest = out.stdout.strip_suffix('\n').expect("one line");
        assert!(is_digest(digest), "{destination}: stdout {:?}", out.stdout);
        assert!(
            out.stderr.contains(&format!("Wrote {output} ({digest})\n")),
            "{destination}: {}",
            out.stderr
        );
        let after: Vec<_> = listing(&out.dir)
            .into_iter()
            .filter(|(path, _)| !path.starts_with(output))
            .collect();
        assert_eq!(after, before, "{destination}: only {output} is new");
        assert!(out.exists(output), "{destination}");
    }
    // -b none pushes to the tag; the same digest again (the build is reproducible).
    let Some(registry) = Registry::plain() else {
        return;
    };
    let reference = registry.reference("opm-test/etcd-bundle:digest");
    let archive = manifests()
        .args(["bundle", "build", "bundle/manifests", "file://x.tar"])
        .args(["-p", "etcd", "-c", "alpha"])
        .run()
        .success();
    for args in [
        vec![
            "-b",
            "none",
            "-t",
            reference.as_str(),
            "-d",
            "bundle/manifests",
        ],
        vec!["bundle/manifests", &format!("image://{reference}")],
    ] {
        let test = manifests();
        let before = listing(test.path());
        let out = test
            .args(["bundle", "build", "--use-http", "-p", "etcd", "-c", "alpha"])
            .args(args)
            .run()
            .success();
        assert_eq!(out.stdout, archive.stdout);
        let digest = archive.stdout.trim_end();
        assert!(out
            .stderr
            .contains(&format!("Pushed {reference}@{digest}\n")));
        assert_eq!(listing(&out.dir), before, "nothing written");
    }
}

/// An archive or a layout that is already there is refused before anything
/// is read: here the bundle directory does not even exist.
#[test]
fn bundle_build_refuses_an_existing_output_before_any_work() {
    fails_unchanged(
        Test::new()
            .file("etcd.tar", "mine")
            .args(["bundle", "build", "nope", "file://etcd.tar"]),
        &["Error: path \"etcd.tar\": file already exists\n"],
    );
    fails_unchanged(
        Test::new().file("layout/index.json", "{}").args([
            "bundle",
            "build",
            "nope",
            "oci://layout",
        ]),
        &["Error: path \"layout\": already exists and is not an empty directory\n"],
    );
    fails_unchanged(
        manifests().args([
            "bundle",
            "build",
            "bundle/manifests",
            "file://etcd.tar",
            "-u",
            "copy",
        ]),
        &["Error: --output-dir cannot be used with file://etcd.tar: a build without a container tool writes nothing but the image (run \"opm bundle generate -u DIR\" to write the bundle's files)\n"],
    );
    // An empty directory is a fine place for a layout.
    let out = manifests()
        .dir("layout")
        .args(["bundle", "build", "bundle/manifests", "oci://layout"])
        .args(["-p", "etcd", "-c", "alpha"])
        .run()
        .success();
    assert!(out.exists("layout/index.json"));
}

#[test]
fn bundle_build_writes_a_gzipped_oci_archive() {
    let out = daemonless("file://etcd.tar.gz");
    let bytes = std::fs::read(out.dir.join("etcd.tar.gz")).expect("archive written");
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "gzip magic");
    assert_bundle_labels(skopeo_inspect(&format!(
        "oci-archive:{}",
        out.dir.join("etcd.tar.gz").display()
    )));
}

#[test]
fn bundle_build_writes_an_oci_layout() {
    let out = daemonless("oci://layout");
    assert_bundle_labels(skopeo_inspect(&format!(
        "oci:{}:latest",
        out.dir.join("layout").display()
    )));
}

#[test]
fn bundle_build_pushes_to_a_registry() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let reference = registry.reference("opm-test/etcd-bundle:v1");
    let out = manifests()
        .args([
            "bundle",
            "build",
            "bundle",
            &format!("image://{reference}"),
            "-p",
            "etcd",
            "-c",
            "alpha",
            "--use-http",
        ])
        .run()
        .success();
    assert_bundle_labels(skopeo_inspect(&format!("docker://{reference}")));
    // The pushed image renders like the directory it was built from, with
    // the metadata `bundle generate` writes (the build wrote none).
    assert!(!out.exists("bundle/metadata"));
    let manifests_dir = out.dir.join("bundle/manifests");
    Test::new()
        .args(["bundle", "generate", "-p", "etcd", "-c", "alpha", "-d"])
        .args([manifests_dir.to_str().expect("utf-8 path")])
        .run()
        .success();
    let image = Test::new()
        .args(["render", reference.as_str(), "--use-http"])
        .run()
        .success();
    let directory = Test::new()
        .args([
            "render",
            out.dir.join("bundle").to_str().expect("utf-8 path"),
            "--alpha-image-ref-template",
            reference.as_str(),
        ])
        .run()
        .success();
    assert_eq!(image.stdout, directory.stdout);
}

#[test]
fn bundle_build_image_builder_none_pushes_the_tag() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let reference = registry.reference("opm-test/etcd-bundle:none");
    manifests()
        .args([
            "bundle",
            "build",
            "-d",
            "bundle/manifests",
            "-b",
            "none",
            "-t",
            reference.as_str(),
            "-p",
            "etcd",
            "-c",
            "alpha",
            "--use-http",
        ])
        .run()
        .success();
    assert_bundle_labels(skopeo_inspect(&format!("docker://{reference}")));
}

#[test]
fn bundle_build_bundle_root_uses_its_annotations() {
    // The seed's form on a complete bundle: no -p/-c needed.
    let out = Test::new()
        .copy(BUNDLE, "bundle")
        .args(["bundle", "build", "bundle", "file://etcd.tar"])
        .run()
        .success();
    let Some(inspected) = skopeo_inspect(&format!(
        "oci-archive:{}",
        out.dir.join("etcd.tar").display()
    )) else {
        return;
    };
    assert_eq!(
        inspected["Labels"]["operators.operatorframework.io.bundle.channels.v1"],
        "stable,beta"
    );
}
