//! `opm bundle init`: every example of the CSV-less bundles seed ("Build a
//! Bundle Image Without a CSV"), stdin streams, inference, flags, and the
//! promise never to overwrite anything.

use crate::util::{Output, Test};
use std::path::Path;

const KIALI: &str = "testdata/kiali-csvless";

/// Every file under `dir` (relative to the test directory), sorted.
fn names(out: &Output, dir: &str) -> Vec<String> {
    let root = out.dir.join(dir);
    let mut found: Vec<String> = walkdir::WalkDir::new(&root)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| !e.file_type().is_dir())
        .map(|e| {
            e.path()
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    found.sort();
    found
}

fn annotations(media_type: &str, package: &str, channels: &str, default: &str) -> String {
    format!(
        "annotations:
  operators.operatorframework.io.bundle.channel.default.v1: {default}
  operators.operatorframework.io.bundle.channels.v1: {channels}
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.mediatype.v1: {media_type}
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: {package}
"
    )
}

fn deployment(package: &str) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: {package}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: {package}
  template:
    metadata:
      labels:
        app: {package}
    spec:
      containers:
      - image: quay.io/example/{package}:v0.0.1
        name: manager
"
    )
}

const MY_OPERATOR_CSV: &str = "apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: my-operator.v0.0.1
spec:
  description: The my-operator operator.
  displayName: my-operator
  install:
    spec:
      deployments:
      - name: my-operator
        spec:
          replicas: 1
          selector:
            matchLabels:
              app: my-operator
          template:
            metadata:
              labels:
                app: my-operator
            spec:
              containers:
              - image: quay.io/example/my-operator:v0.0.1
                name: manager
    strategy: deployment
  installModes:
  - supported: true
    type: OwnNamespace
  - supported: true
    type: SingleNamespace
  - supported: false
    type: MultiNamespace
  - supported: true
    type: AllNamespaces
  maintainers:
  - email: maintainers@example.com
    name: Example Maintainers
  provider:
    name: Example
  version: 0.0.1
";

const KIALI_BUNDLE: &str = "name: kiali.v0.0.1
version: 0.0.1
displayName: kiali
apis:
- apiVersion: kiali.io/v1alpha1
  displayName: Kiali
  kind: Kiali
- apiVersion: monitoring.kiali.io/v1alpha1
  displayName: MonitoringDashboard
  kind: MonitoringDashboard
";

/// Runs the built `opm` with `args` in `dir`.
fn opm_in(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_opm"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run opm")
}

#[test]
fn seed_registry_v1_defaults_in_an_empty_directory() {
    let out = Test::new()
        .cwd("my-operator")
        .args(["bundle", "init", "--mediatype", "registry+v1", "."])
        .run()
        .success();
    assert_eq!(
        names(&out, "my-operator"),
        [
            "manifests/csv.yaml",
            "metadata/annotations.yaml",
            "metadata/dependencies.yaml"
        ]
    );
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "Writing manifests/csv.yaml\nWriting metadata/annotations.yaml\nWriting metadata/dependencies.yaml\n"
    );
    assert_eq!(out.read("my-operator/manifests/csv.yaml"), MY_OPERATOR_CSV);
    assert_eq!(
        out.read("my-operator/metadata/annotations.yaml"),
        annotations("registry+v1", "my-operator", "alpha", "alpha")
    );
    assert_eq!(
        out.read("my-operator/metadata/dependencies.yaml"),
        "dependencies: []\n"
    );
}

#[test]
fn registry_v1_defaults_pass_bundle_validate() {
    let out = Test::new()
        .cwd("my-operator")
        .args(["bundle", "init", "-m", "registry+v1"])
        .run()
        .success();
    let validated = opm_in(&out.dir.join("my-operator"), &["bundle", "validate", "."]);
    assert!(
        validated.status.success(),
        "{}",
        String::from_utf8_lossy(&validated.stderr)
    );
    assert!(String::from_utf8_lossy(&validated.stderr)
        .contains("All validation tests have been completed successfully"));
}

#[test]
fn seed_registry_v2_defaults_with_a_dockerfile() {
    let out = Test::new()
        .cwd("my-operator")
        .args(["bundle", "init", "--mediatype", "registry+v2", "-d", "."])
        .run()
        .success();
    assert_eq!(
        names(&out, "my-operator"),
        [
            "Dockerfile",
            "manifests/deployment.yaml",
            "metadata/annotations.yaml",
            "metadata/bundle.yaml",
            "metadata/dependencies.yaml"
        ]
    );
    assert_eq!(
        out.stderr,
        "Writing manifests/deployment.yaml\nWriting metadata/annotations.yaml\nWriting metadata/bundle.yaml\nWriting metadata/dependencies.yaml\nWriting Dockerfile\n"
    );
    assert_eq!(
        out.read("my-operator/manifests/deployment.yaml"),
        deployment("my-operator")
    );
    assert_eq!(
        out.read("my-operator/metadata/bundle.yaml"),
        "name: my-operator.v0.0.1\nversion: 0.0.1\ndisplayName: my-operator\n"
    );
}

#[test]
fn seed_empty_directory_cannot_infer_the_media_type() {
    let out = Test::new()
        .cwd("my-operator")
        .args(["bundle", "init", "."])
        .run()
        .failure(&[]);
    // The seed's message, then how to go on.
    assert_eq!(
        out.stderr,
        "Error: unable to infer mediatype when no manifests are present\n\
         hint: give the media type: -m registry+v1, -m registry+v2 or -m plain+v0 (defaults are generated for it)\n"
    );
    assert_eq!(out.stdout, "");
    assert!(names(&out, "my-operator").is_empty());
    assert!(std::fs::read_dir(out.dir.join("my-operator"))
        .unwrap()
        .next()
        .is_none());
}

#[test]
fn seed_kiali_infers_registry_v2_from_the_source_manifests() {
    let out = Test::new()
        .copy(KIALI, "kiali/kiali-csvless")
        .cwd("kiali")
        .args(["bundle", "init", "kiali-csvless"])
        .run()
        .success();
    assert_eq!(
        names(&out, "kiali"),
        [
            "kiali-csvless/crds.yaml",
            "kiali-csvless/deployment.yaml",
            "kiali-csvless/rbac.yaml",
            "manifests/crds.yaml",
            "manifests/deployment.yaml",
            "manifests/rbac.yaml",
            "metadata/annotations.yaml",
            "metadata/bundle.yaml",
            "metadata/dependencies.yaml"
        ]
    );
    for name in ["crds.yaml", "deployment.yaml", "rbac.yaml"] {
        let source =
            std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(KIALI).join(name)).unwrap();
        let copy = std::fs::read(out.dir.join("kiali/manifests").join(name)).unwrap();
        assert_eq!(copy, source, "{name}");
    }
    assert_eq!(
        out.read("kiali/metadata/annotations.yaml"),
        annotations("registry+v2", "kiali", "alpha", "alpha")
    );
    assert_eq!(out.read("kiali/metadata/bundle.yaml"), KIALI_BUNDLE);
    assert_eq!(
        out.read("kiali/metadata/dependencies.yaml"),
        "dependencies: []\n"
    );
}

#[test]
fn registry_v2_with_package_and_dockerfile() {
    let out = Test::new()
        .copy(KIALI, "kiali-csvless")
        .cwd("bundle")
        .args([
            "bundle",
            "init",
            "../kiali-csvless",
            "-m",
            "registry+v2",
            "-p",
            "kiali",
            "-d",
        ])
        .run()
        .success();
    assert_eq!(out.read("bundle/metadata/bundle.yaml"), KIALI_BUNDLE);
    assert_eq!(
        out.read("bundle/metadata/annotations.yaml"),
        annotations("registry+v2", "kiali", "alpha", "alpha")
    );
    assert_eq!(
        out.read("bundle/Dockerfile"),
        "FROM scratch

LABEL operators.operatorframework.io.bundle.mediatype.v1=registry+v2
LABEL operators.operatorframework.io.bundle.manifests.v1=manifests/
LABEL operators.operatorframework.io.bundle.metadata.v1=metadata/
LABEL operators.operatorframework.io.bundle.package.v1=kiali
LABEL operators.operatorframework.io.bundle.channels.v1=alpha
LABEL operators.operatorframework.io.bundle.channel.default.v1=alpha

COPY manifests /manifests/
COPY metadata /metadata/
"
    );
}

#[test]
fn package_channels_and_default_land_in_the_annotations() {
    let out = Test::new()
        .args([
            "bundle",
            "init",
            "-m",
            "registry+v2",
            "-d",
            "-p",
            "my-op",
            "-c",
            "stable,beta",
            "-e",
            "beta",
        ])
        .run()
        .success();
    assert_eq!(
        out.read("metadata/annotations.yaml"),
        annotations("registry+v2", "my-op", "stable,beta", "beta")
    );
    assert!(out
        .read("Dockerfile")
        .contains("LABEL operators.operatorframework.io.bundle.channels.v1=stable,beta\nLABEL operators.operatorframework.io.bundle.channel.default.v1=beta\n"));
    assert_eq!(out.read("manifests/deployment.yaml"), deployment("my-op"));

    // Without -e, the first channel is the default.
    let out = Test::new()
        .args([
            "bundle",
            "init",
            "--mediatype=plain",
            "--package=p",
            "--channels=fast,stable",
        ])
        .run()
        .success();
    assert_eq!(
        out.read("metadata/annotations.yaml"),
        annotations("plain+v0", "p", "fast,stable", "fast")
    );
}

#[test]
fn a_stdin_stream_becomes_one_file_per_object() {
    let stream = "---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kiali-operator
---
# nothing here
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: kiali-operator, labels: {app: kiali}}
spec: {replicas: 1}
---
apiVersion: v1
kind: ConfigMap
data: {a: '1'}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: kiali-operator
";
    let out = Test::new()
        .cwd("kiali")
        .stdin(stream)
        .args(["bundle", "init", "-"])
        .run()
        .success();
    assert_eq!(
        names(&out, "kiali"),
        [
            "manifests/kiali-operator.configmap.yaml",
            "manifests/kiali-operator.deployment.yaml",
            "manifests/kiali-operator.serviceaccount.yaml",
            "manifests/object.configmap.yaml",
            "metadata/annotations.yaml",
            "metadata/bundle.yaml",
            "metadata/dependencies.yaml"
        ]
    );
    assert_eq!(
        out.read("kiali/manifests/kiali-operator.deployment.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    app: kiali\n  name: kiali-operator\nspec:\n  replicas: 1\n"
    );
    assert_eq!(
        out.read("kiali/manifests/object.configmap.yaml"),
        "apiVersion: v1\ndata:\n  a: \"1\"\nkind: ConfigMap\n"
    );
    assert!(out
        .read("kiali/metadata/annotations.yaml")
        .contains("mediatype.v1: registry+v2\n"));
    assert_eq!(
        out.stderr,
        "Writing manifests/kiali-operator.serviceaccount.yaml
Writing manifests/kiali-operator.deployment.yaml
Writing manifests/object.configmap.yaml
Writing manifests/kiali-operator.configmap.yaml
Writing metadata/annotations.yaml
Writing metadata/bundle.yaml
Writing metadata/dependencies.yaml
"
    );
}

#[test]
fn a_json_stream_on_stdin_with_repeated_names() {
    let stream = r#"{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}
{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"num": 12345678901234567890}}
"#;
    let out = Test::new()
        .stdin(stream)
        .args(["bundle", "init", "-", "-p", "p"])
        .run()
        .success();
    assert_eq!(
        names(&out, "."),
        [
            "manifests/s.secret-2.yaml",
            "manifests/s.secret.yaml",
            "metadata/annotations.yaml",
            "metadata/bundle.yaml"
        ]
    );
    assert_eq!(
        out.read("manifests/s.secret-2.yaml"),
        "apiVersion: v1\ndata:\n  num: 12345678901234567890\nkind: Secret\nmetadata:\n  name: s\n"
    );
    assert_eq!(
        out.read("metadata/bundle.yaml"),
        "name: p.v0.0.1\nversion: 0.0.1\n"
    );
}

#[test]
fn a_csv_in_the_source_means_registry_v1() {
    let out = Test::new()
        .file(
            "src/csv.yaml",
            "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: foo.v0.1.0\n",
        )
        .file("src/deployment.yaml", deployment("foo"))
        .file("src/NOTES.txt", "notes\n")
        .args(["bundle", "init", "src", "-p", "foo"])
        .run()
        .success();
    assert_eq!(
        names(&out, "."),
        [
            "manifests/csv.yaml",
            "manifests/deployment.yaml",
            "metadata/annotations.yaml",
            "metadata/dependencies.yaml",
            "src/NOTES.txt",
            "src/csv.yaml",
            "src/deployment.yaml"
        ]
    );
    assert_eq!(
        out.read("metadata/annotations.yaml"),
        annotations("registry+v1", "foo", "alpha", "alpha")
    );
    assert!(
        out.stderr
            .starts_with("warning: skipping src/NOTES.txt: not a .yaml, .yml or .json file\n"),
        "{}",
        out.stderr
    );
}

#[test]
fn objects_without_csv_or_deployment_mean_plain_v0() {
    let out = Test::new()
        .file(
            "src/config.json",
            r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}"#,
        )
        .cwd("plain")
        .args(["bundle", "init", "../src", "-d"])
        .run()
        .success();
    assert_eq!(
        names(&out, "plain"),
        [
            "Dockerfile",
            "manifests/config.json",
            "metadata/annotations.yaml",
            "metadata/bundle.yaml"
        ]
    );
    assert_eq!(
        out.read("plain/metadata/bundle.yaml"),
        "name: plain.v0.0.1\nversion: 0.0.1\n"
    );
    assert_eq!(
        out.read("plain/metadata/annotations.yaml"),
        annotations("plain+v0", "plain", "alpha", "alpha")
    );
    assert!(out
        .read("plain/Dockerfile")
        .contains("LABEL operators.operatorframework.io.bundle.mediatype.v1=plain+v0\n"));
}

#[test]
fn never_overwrites_existing_files() {
    let out = Test::new()
        .file("manifests/csv.yaml", "mine\n")
        .args(["bundle", "init", "-m", "registry+v1", "-d"])
        .run()
        .failure(&[]);
    assert_eq!(
        out.stderr,
        "Error: manifests/csv.yaml already exists; opm bundle init never overwrites\n"
    );
    assert_eq!(out.read("manifests/csv.yaml"), "mine\n");
    assert_eq!(names(&out, "."), ["manifests/csv.yaml"]);

    let out = Test::new()
        .file("metadata/annotations.yaml", "annotations: {}\n")
        .file("Dockerfile", "FROM mine\n")
        .args(["bundle", "init", "-m", "registry+v2", "-d"])
        .run()
        .failure(&[
            "Error: metadata/annotations.yaml already exists; opm bundle init never overwrites",
        ]);
    assert_eq!(
        names(&out, "."),
        ["Dockerfile", "metadata/annotations.yaml"]
    );

    Test::new()
        .file("manifests/other.yaml", "kind: x\n")
        .args(["bundle", "init", "-m", "plain+v0"])
        .run()
        .failure(&[
            "Error: manifests/ already exists and is not empty; opm bundle init never overwrites",
        ]);

    // Initialising twice fails the second time and changes nothing.
    let out = Test::new()
        .args(["bundle", "init", "-m", "registry+v2", "-p", "p"])
        .run()
        .success();
    let again = opm_in(
        &out.dir,
        &["bundle", "init", "-m", "registry+v2", "-p", "p"],
    );
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&again.stderr),
        "Error: manifests/deployment.yaml already exists; opm bundle init never overwrites\n"
    );
    assert_eq!(out.read("manifests/deployment.yaml"), deployment("p"));
}

#[test]
fn a_bad_manifest_fails_naming_the_file_and_writes_nothing() {
    let out = Test::new()
        .file(
            "src/a.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        )
        .file(
            "src/b.yaml",
            "apiVersion: v1\nkind: ConfigMap\n---\nkey: [unclosed\n",
        )
        .args(["bundle", "init", "src", "-m", "plain+v0"])
        .run()
        .failure(&["Error: src/b.yaml, document 2: "]);
    assert_eq!(names(&out, "."), ["src/a.yaml", "src/b.yaml"]);

    let out = Test::new()
        .file("src/c.yml", "apiVersion: v1\nmetadata: {name: c}\n")
        .args(["bundle", "init", "src"])
        .run()
        .failure(&[]);
    assert_eq!(
        out.stderr,
        "Error: src/c.yml, document 1: not a Kubernetes object: kind is missing or not a string\n"
    );
    assert_eq!(names(&out, "."), ["src/c.yml"]);

    Test::new()
        .stdin("apiVersion: v1\nkind: A\n---\n- not an object\n")
        .args(["bundle", "init", "-"])
        .run()
        .failure(&["Error: <stdin>, document 2: not a Kubernetes object: found array"]);
}

#[test]
fn media_type_must_fit_the_manifests() {
    let out = Test::new()
        .copy(KIALI, "kiali-csvless")
        .args(["bundle", "init", "kiali-csvless", "-m", "registry+v1"])
        .run()
        .failure(&["Error: mediatype registry+v1 needs a ClusterServiceVersion in the manifests, but there is none; use -m registry+v2 for a bundle without one"]);
    assert!(!out.exists("manifests") && !out.exists("metadata"));

    Test::new()
        .file(
            "src/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        )
        .args(["bundle", "init", "src", "-m", "registry+v2"])
        .run()
        .failure(&["needs at least one Deployment"]);

    Test::new()
        .args(["bundle", "init", "-m", "helm"])
        .run()
        .failure(&["Error: invalid --mediatype value \"helm\": must be one of [registry+v1, registry+v2, plain+v0]"]);
}

#[test]
fn source_argument_errors() {
    Test::new()
        .args(["bundle", "init", "a", "b"])
        .run()
        .failure(&["Error: accepts at most 1 arg(s), received 2"]);
    Test::new()
        .args(["bundle", "init", "missing"])
        .run()
        .failure(&["Error: source directory \"missing\" does not exist"]);
    let out = Test::new()
        .file("file.yaml", "apiVersion: v1\nkind: ConfigMap\n")
        .args(["bundle", "init", "file.yaml"])
        .run()
        .failure(&["Error: source \"file.yaml\" is not a directory"]);
    assert_eq!(names(&out, "."), ["file.yaml"]);
}

#[test]
fn alpha_bundle_init_is_the_same_command() {
    let out = Test::new()
        .cwd("my-operator")
        .args(["alpha", "bundle", "init", "-m", "registry+v1", "."])
        .run()
        .success();
    assert_eq!(out.read("my-operator/manifests/csv.yaml"), MY_OPERATOR_CSV);
}

#[test]
fn help_shows_the_seed_examples() {
    // -h and --help print the same, as cobra does.
    let short = Test::new().args(["bundle", "init", "-h"]).run().success();
    let out = Test::new()
        .args(["bundle", "init", "--help"])
        .run()
        .success();
    assert_eq!(short.stdout, out.stdout);
    assert!(out.stdout.starts_with("The \"opm bundle init\" command"));
    for fragment in [
        "The \"opm bundle init\" command initializes the current directory as a\nbundle",
        "$ opm bundle init --mediatype registry+v1 .\n",
        "$ opm bundle init --mediatype registry+v2 -d .\n",
        "$ opm bundle init .\nError: unable to infer mediatype when no manifests are present\n",
        "$ opm bundle init kiali-csvless\n",
        "-m, --mediatype <MEDIATYPE>",
        "-d, --generate-dockerfile",
        "-e, --default <DEFAULT_CHANNEL>",
    ] {
        assert!(out.stdout.contains(fragment), "{fragment}:\n{}", out.stdout);
    }
    let out = Test::new().args(["bundle", "--help"]).run().success();
    assert!(
        out.stdout
            .contains("  init      Initialize a bundle in the current directory\n"),
        "{}",
        out.stdout
    );
}
