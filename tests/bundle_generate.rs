use crate::util::{Output, Test};

const CSV: &str = "apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: foo.v0.1.0
spec:
  version: 0.1.0
";

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.test.foo
";

const ANNOTATIONS: &str = "annotations:
  operators.operatorframework.io.bundle.channel.default.v1: stable
  operators.operatorframework.io.bundle.channels.v1: stable,beta
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: test-operator
";

const DOCKERFILE: &str = "FROM scratch

LABEL operators.operatorframework.io.bundle.mediatype.v1=registry+v1
LABEL operators.operatorframework.io.bundle.manifests.v1=manifests/
LABEL operators.operatorframework.io.bundle.metadata.v1=metadata/
LABEL operators.operatorframework.io.bundle.package.v1=test-operator
LABEL operators.operatorframework.io.bundle.channels.v1=stable,beta
LABEL operators.operatorframework.io.bundle.channel.default.v1=stable

COPY manifests /manifests/
COPY metadata /metadata/
";

fn bundle() -> Test {
    Test::new()
        .file("manifests/foo.v0.1.0.csv.yaml", CSV)
        .file("manifests/foos.test.foo.crd.yaml", CRD)
}

/// A package-manifest layout: alpha→0.2.0, beta→0.1.0, stable→0.2.0
/// (default alpha); 0.2.0 skips 0.1.5 and replaces 0.1.0; 0.3.0 is in no
/// channel.
fn nested() -> Test {
    let csv = |name: &str, links: &str| {
        format!("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: {name}\nspec:\n{links}")
    };
    Test::new()
        .file(
            "pkg/pkg.package.yaml",
            "packageName: pkg\nchannels:\n- name: stable\n  currentCSV: pkg.v0.2.0\n- name: beta\n  currentCSV: pkg.v0.1.0\n- name: alpha\n  currentCSV: pkg.v0.2.0\ndefaultChannel: alpha\n",
        )
        .file("pkg/0.1.0/csv.yaml", csv("pkg.v0.1.0", "  version: 0.1.0\n"))
        .file(
            "pkg/0.2.0/csv.yaml",
            csv(
                "pkg.v0.2.0",
                "  replaces: pkg.v0.1.0\n  skips: [pkg.v0.1.5]\n",
            ),
        )
        .file("pkg/0.2.0/crd.yaml", CRD)
        .file("pkg/0.3.0/csv.yaml", csv("pkg.v0.3.0", "  replaces: pkg.v0.2.0\n"))
}

fn annotations(default: &str, channels: &str, media_type: &str, package: &str) -> String {
    let default = if default.is_empty() {
        String::new()
    } else {
        format!("  operators.operatorframework.io.bundle.channel.default.v1: {default}\n")
    };
    format!(
        "annotations:\n{default}  operators.operatorframework.io.bundle.channels.v1: {channels}\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n  operators.operatorframework.io.bundle.mediatype.v1: {media_type}\n  operators.operatorframework.io.bundle.metadata.v1: metadata/\n  operators.operatorframework.io.bundle.package.v1: {package}\n"
    )
}

/// Every file under the test directory with its bytes, sorted by path.
fn files(out: &Output) -> Vec<(String, Vec<u8>)> {
    let mut found: Vec<_> = walkdir::WalkDir::new(&out.dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let name = e.path().strip_prefix(&out.dir).unwrap();
            (
                name.to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    found.sort();
    found
}

fn names(out: &Output) -> Vec<String> {
    files(out).into_iter().map(|(name, _)| name).collect()
}

#[test]
fn bundle_generate_with_explicit_flags() {
    let out = bundle()
        .args([
            "bundle",
            "generate",
            "-d",
            "manifests",
            "-p",
            "test-operator",
            "-c",
            "stable,beta",
            "-e",
            "stable",
        ])
        .run()
        .success();
    assert_eq!(out.read("metadata/annotations.yaml"), ANNOTATIONS);
    assert_eq!(out.read("bundle.Dockerfile"), DOCKERFILE);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains("Building annotations.yaml"));
    assert!(out.stderr.contains(&format!(
        "Writing bundle.Dockerfile in {}",
        out.dir.display()
    )));
}

#[test]
fn alpha_bundle_generate_is_the_same_command() {
    let out = bundle()
        .args([
            "alpha",
            "bundle",
            "generate",
            "--directory",
            "manifests",
            "--package",
            "test-operator",
            "--channels",
            "stable,beta",
        ])
        .run()
        .success();
    // No --default: the first channel is the default (decisions.md §4).
    assert_eq!(out.read("metadata/annotations.yaml"), ANNOTATIONS);
    assert_eq!(out.read("bundle.Dockerfile"), DOCKERFILE);
}

#[test]
fn bundle_generate_base_image_and_other_names() {
    let out = Test::new()
        .file("bundle/my-manifests/csv.yaml", CSV)
        .args([
            "bundle",
            "generate",
            "-d",
            "bundle/my-manifests",
            "-p",
            "p",
            "-c",
            "a,b",
            "-e",
            "zz",
            "--base-image",
            "registry.example.com/base:1",
        ])
        .run()
        .success();
    assert_eq!(
        out.read("bundle/metadata/annotations.yaml"),
        annotations("zz", "a,b", "registry+v1", "p")
    );
    let dockerfile = out.read("bundle.Dockerfile");
    assert!(dockerfile.starts_with("FROM registry.example.com/base:1\n\n"));
    assert!(dockerfile.ends_with(
        "default.v1=zz\n\nCOPY bundle/my-manifests /manifests/\nCOPY bundle/metadata /metadata/\n"
    ));
}

#[test]
fn bundle_generate_media_types() {
    let cases = [
        (
            "json-csv",
            "csv.json",
            "{\"kind\": \"ClusterServiceVersion\", \"metadata\": {\"name\": \"x\"}}",
            "registry+v1",
        ),
        (
            "csv-second-document",
            "all.yaml",
            "kind: ConfigMap\n---\nkind: ClusterServiceVersion\n",
            "registry+v1",
        ),
        ("plain", "crd.yaml", CRD, "plain"),
        ("readme-only", "README.md", "# hi\n", "plain"),
        ("helm", "Chart.yaml", "apiVersion: v1\nname: olm\n", "helm"),
    ];
    for (name, file, contents, media_type) in cases {
        let out = Test::new()
            .file(&format!("manifests/{file}"), contents)
            .args([
                "bundle",
                "generate",
                "-d",
                "manifests",
                "-p",
                "p",
                "-c",
                "s",
            ])
            .run()
            .success();
        assert_eq!(
            out.read("metadata/annotations.yaml"),
            annotations("s", "s", media_type, "p"),
            "{name}"
        );
        assert!(
            out.read("bundle.Dockerfile")
                .contains(&format!("mediatype.v1={media_type}\n")),
            "{name}"
        );
    }
}

#[test]
fn bundle_generate_values_are_yaml_quoted_but_raw_in_labels() {
    let out = bundle()
        .args([
            "bundle",
            "generate",
            "-d",
            "manifests",
            "-p",
            "123",
            "-c",
            "a: b",
            "-e",
            "yes",
        ])
        .run()
        .success();
    assert_eq!(
        out.read("metadata/annotations.yaml"),
        annotations("\"yes\"", "'a: b'", "registry+v1", "\"123\"")
    );
    let dockerfile = out.read("bundle.Dockerfile");
    assert!(dockerfile.contains("package.v1=123\n"));
    assert!(dockerfile.contains("channels.v1=a: b\n"));
}

#[test]
fn bundle_generate_infers_package_and_channels_from_a_nested_layout() {
    let out = nested()
        .args(["bundle", "generate", "-d", "pkg/0.2.0"])
        .run()
        .success();
    assert_eq!(
        out.read("pkg/metadata/annotations.yaml"),
        annotations("alpha", "alpha,stable", "registry+v1", "pkg")
    );
    assert!(out
        .read("bundle.Dockerfile")
        .ends_with("COPY pkg/0.2.0 /manifests/\nCOPY pkg/metadata /metadata/\n"));
    for line in [
        "Bundle channels and package name information not provided, inferring from parent package directory",
        "Inferred channels: alpha,stable",
        "Inferred package name: pkg",
        "Inferred default channel: alpha",
    ] {
        assert!(out.stderr.contains(line), "{line}:\n{}", out.stderr);
    }
    // Replaced by a head: in every channel; the package default is kept
    // even though the bundle is not in it.
    let out = nested()
        .args(["bundle", "generate", "-d", "pkg/0.1.0", "-p", "renamed"])
        .run()
        .success();
    assert_eq!(
        out.read("pkg/metadata/annotations.yaml"),
        annotations("alpha", "alpha,beta,stable", "registry+v1", "renamed")
    );
    // Channels given: only the package is inferred; -e is kept.
    let out = nested()
        .args([
            "bundle",
            "generate",
            "-d",
            "pkg/0.2.0",
            "-c",
            "custom",
            "-e",
            "custom",
        ])
        .run()
        .success();
    assert_eq!(
        out.read("pkg/metadata/annotations.yaml"),
        annotations("custom", "custom", "registry+v1", "pkg")
    );
    assert!(out
        .stderr
        .contains("Bundle package name information not provided"));
}

#[test]
fn bundle_generate_inference_failures() {
    let out = nested()
        .args(["bundle", "generate", "-d", "pkg/0.3.0"])
        .run()
        .failure(&["Error: error interpreting channels, please manually input channels instead"]);
    assert!(!out.exists("pkg/metadata") && !out.exists("bundle.Dockerfile"));

    let out = bundle()
        .args(["bundle", "generate", "-d", "manifests", "-c", "stable"])
        .run();
    let dir = out.dir.display().to_string();
    out.failure(&[&format!(
        "Error: please manually input channels and packageName, error interpreting bundle from directory {dir}/manifests, error parsing package.yaml file in the package root directory, valid PackageManifest YAML file not found in {dir}, \n"
    )]);

    let out = Test::new()
        .file("pkg/manifests/crd.yaml", CRD)
        .args(["bundle", "generate", "-d", "pkg/manifests"])
        .run();
    let dir = out.dir.display().to_string();
    out.failure(&[&format!(
        "error interpreting bundle from directory {dir}/pkg/manifests, error loading CSV from bundle directory, no ClusterServiceVersion object found in {dir}/pkg/manifests"
    )]);

    let out = nested()
        .file("pkg/0.2.0/second.yaml", CSV)
        .args(["bundle", "generate", "-d", "pkg/0.2.0"])
        .run();
    out.failure(&["error loading CSV from bundle directory, more than one ClusterServiceVersion is found in bundle"]);

    let out = nested()
        .dir("pkg/empty")
        .args(["bundle", "generate", "-d", "pkg/0.2.0"])
        .run();
    let dir = out.dir.display().to_string();
    out.failure(&[&format!(
        "error geting CSVs from bundles in the package directory, no ClusterServiceVersion object found in {dir}/pkg/empty"
    )]);

    let out = Test::new()
        .file("pkg/0.1.0/csv.yaml", CSV)
        .file("pkg/a.yaml", CRD)
        .file("pkg/b.package.yaml", "packageName: [x]\n")
        .args(["bundle", "generate", "-d", "pkg/0.1.0"])
        .run();
    let dir = out.dir.display().to_string();
    out.failure(&[&format!(
        "valid PackageManifest YAML file not found in {dir}/pkg, [error parsing {dir}/pkg/a.yaml as package.yaml file, name of package (packageName) is missing, error parsing {dir}/pkg/b.package.yaml as package.yaml file, could not decode contents into package manifest - error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field PackageManifest.packageName of type string]"
    )]);
}

#[test]
fn bundle_generate_output_dir_copies_the_manifests() {
    let out = bundle()
        .file("manifests/sub/deeper/x.yaml", "kind: ConfigMap\n")
        .args([
            "bundle",
            "generate",
            "-d",
            "manifests",
            "-p",
            "test-operator",
            "-c",
            "stable,beta",
            "-u",
            "out",
        ])
        .run()
        .success();
    assert_eq!(
        names(&out),
        [
            "bundle.Dockerfile",
            "manifests/foo.v0.1.0.csv.yaml",
            "manifests/foos.test.foo.crd.yaml",
            "manifests/sub/deeper/x.yaml",
            "out/manifests/foo.v0.1.0.csv.yaml",
            "out/manifests/foos.test.foo.crd.yaml",
            // Upstream's quirk: a subdirectory's files land in a directory
            // named after its parent.
            "out/manifests/manifests/sub/x.yaml",
            "out/metadata/annotations.yaml",
        ]
    );
    assert_eq!(out.read("out/manifests/foo.v0.1.0.csv.yaml"), CSV);
    assert_eq!(out.read("manifests/foo.v0.1.0.csv.yaml"), CSV);
    assert_eq!(out.read("out/metadata/annotations.yaml"), ANNOTATIONS);
    assert!(out
        .read("bundle.Dockerfile")
        .ends_with("COPY out/manifests /manifests/\nCOPY out/metadata /metadata/\n"));
    assert!(out.stderr.contains("Generating output manifests directory"));
}

#[cfg(unix)]
#[test]
fn bundle_generate_output_dir_keeps_file_modes() {
    use std::os::unix::fs::PermissionsExt as _;
    let test = bundle();
    let source = test.path().join("manifests/foo.v0.1.0.csv.yaml");
    std::fs::set_permissions(&source, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = test
        .args([
            "bundle",
            "generate",
            "-d",
            "manifests",
            "-p",
            "p",
            "-c",
            "s",
            "-u",
            "out",
        ])
        .run()
        .success();
    let mode = |p: &str| {
        std::fs::metadata(out.dir.join(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode("out/manifests/foo.v0.1.0.csv.yaml"), 0o600);
}

#[test]
fn bundle_generate_output_dir_onto_the_input_loses_nothing() {
    // `-u .`: out/manifests is the input directory itself (upstream
    // truncates every manifest to 0 bytes here).
    let out = bundle()
        .file("manifests/sub/x.yaml", "kind: ConfigMap\n")
        .args([
            "bundle",
            "generate",
            "-d",
            "manifests",
            "-p",
            "test-operator",
            "-c",
            "stable,beta",
            "-u",
            ".",
        ])
        .run()
        .success();
    assert_eq!(
        files(&out)
            .into_iter()
            .filter(|(name, _)| name.starts_with("manifests/"))
            .collect::<Vec<_>>(),
        [
            (
                "manifests/foo.v0.1.0.csv.yaml".to_string(),
                CSV.as_bytes().to_vec()
            ),
            (
                "manifests/foos.test.foo.crd.yaml".to_string(),
                CRD.as_bytes().to_vec()
            ),
            (
                "manifests/sub/x.yaml".to_string(),
                b"kind: ConfigMap\n".to_vec()
            ),
        ]
    );
    assert_eq!(out.read("metadata/annotations.yaml"), ANNOTATIONS);
    assert_eq!(out.read("bundle.Dockerfile"), DOCKERFILE);
}

#[test]
fn bundle_generate_output_dir_inside_the_input_loses_nothing() {
    // `-u manifests`: the outputs are created inside the input; running it
    // twice neither copies the outputs into themselves nor loses a file.
    let mut test = bundle();
    for run in 0..2 {
        let out = test
            .args([
                "bundle",
                "generate",
                "-d",
                "manifests",
                "-p",
                "p",
                "-c",
                "s",
                "-u",
                "manifests",
            ])
            .run()
            .success();
        assert_eq!(
            names(&out),
            [
                "bundle.Dockerfile",
                "manifests/foo.v0.1.0.csv.yaml",
                "manifests/foos.test.foo.crd.yaml",
                "manifests/manifests/foo.v0.1.0.csv.yaml",
                "manifests/manifests/foos.test.foo.crd.yaml",
                "manifests/metadata/annotations.yaml",
            ],
            "run {run}"
        );
        assert_eq!(out.read("manifests/foo.v0.1.0.csv.yaml"), CSV);
        assert_eq!(out.read("manifests/manifests/foos.test.foo.crd.yaml"), CRD);
        test = Test::new();
        crate::util::copy_tree(&out.dir, test.path());
    }
}

#[test]
fn bundle_generate_replaces_existing_files() {
    // `generate` always overwrites: a matching annotations file stays the
    // same, a different one is replaced, and so is the Dockerfile.
    for existing in [
        ANNOTATIONS,
        "annotations:\n  operators.operatorframework.io.bundle.package.v1: other\n",
    ] {
        let out = bundle()
            .file("metadata/annotations.yaml", existing)
            .file("bundle.Dockerfile", "FROM old\n")
            .args([
                "bundle",
                "generate",
                "-d",
                "manifests",
                "-p",
                "test-operator",
                "-c",
                "stable,beta",
                "-e",
                "stable",
            ])
            .run()
            .success();
        assert_eq!(out.read("metadata/annotations.yaml"), ANNOTATIONS);
        assert_eq!(out.read("bundle.Dockerfile"), DOCKERFILE);
        assert_eq!(names(&out).len(), 4, "no temporary files left");
    }
}

#[test]
fn bundle_generate_argument_errors() {
    Test::new()
        .args(["bundle", "generate", "-p", "foo", "-c", "stable"])
        .run()
        .failure(&["Error: required flag(s) \"directory\" not set"]);
    let out = bundle()
        .args([
            "bundle",
            "generate",
            "extra",
            "-d",
            "manifests",
            "-p",
            "foo",
            "-c",
            "stable",
        ])
        .run()
        .failure(&["Error: unknown command \"extra\" for \"opm bundle generate\""]);
    assert!(!out.exists("metadata") && !out.exists("bundle.Dockerfile"));
    Test::new()
        .args(["alpha", "bundle", "generate", "extra"])
        .run()
        .failure(&["Error: unknown command \"extra\" for \"opm alpha bundle generate\""]);
    Test::new()
        .args(["bundle", "generate", "-d"])
        .run()
        .failure(&["--directory"]);
}

#[test]
fn bundle_generate_directory_errors() {
    let cases: [(&str, Test, &str); 3] = [
        (
            "missing",
            Test::new(),
            "stat {dir}/manifests: no such file or directory\n",
        ),
        (
            "no-files",
            Test::new().file("manifests/sub/.keep", ""),
            "The directory {dir}/manifests contains no yaml files\n",
        ),
        (
            "a-file",
            Test::new().file("manifests", CSV),
            "The directory {dir}/manifests contains no yaml files\n",
        ),
    ];
    for (name, test, message) in cases {
        let out = test
            .args([
                "bundle",
                "generate",
                "-d",
                "manifests",
                "-p",
                "p",
                "-c",
                "s",
            ])
            .run();
        let message = message.replace("{dir}", &out.dir.display().to_string());
        let out = out.failure(&[&format!("Error: {message}")]);
        assert!(
            !out.exists("metadata") && !out.exists("bundle.Dockerfile"),
            "{name}"
        );
    }
}

#[cfg(unix)]
#[test]
fn bundle_generate_unreadable_manifest() {
    let test = bundle();
    std::os::unix::fs::symlink("nowhere", test.path().join("manifests/dangling.yaml")).unwrap();
    let out = test
        .args([
            "bundle",
            "generate",
            "-d",
            "manifests",
            "-p",
            "p",
            "-c",
            "s",
        ])
        .run();
    let dir = out.dir.display().to_string();
    let out = out.failure(&[&format!(
        "Error: Unable to read file {dir}/manifests/dangling.yaml in bundle\n"
    )]);
    assert!(!out.exists("metadata"));
}

#[test]
fn bundle_generate_write_failure_writes_nothing() {
    // The Dockerfile cannot be written (a directory is in the way): neither
    // the copies nor the annotations file appear.
    let out = bundle()
        .dir("bundle.Dockerfile")
        .args([
            "bundle",
            "generate",
            "-d",
            "manifests",
            "-p",
            "p",
            "-c",
            "s",
            "-u",
            "out",
        ])
        .run();
    let dir = out.dir.display().to_string();
    let out = out.failure(&[&format!(
        "Error: open {dir}/bundle.Dockerfile: is a directory\n"
    )]);
    assert!(!out.exists("out"));
    assert!(!out.exists("metadata"));
    assert_eq!(
        names(&out),
        [
            "manifests/foo.v0.1.0.csv.yaml",
            "manifests/foos.test.foo.crd.yaml"
        ]
    );
}
