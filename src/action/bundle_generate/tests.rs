use super::inference::{bundle_channels, decode_package_manifest};
use super::*;

const CSV: &str = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: foo.v0.1.0\n";

fn input(dir: &Path, channels: &str, default_channel: &str) -> GenerateBundle {
    GenerateBundle {
        directory: PathBuf::from("manifests"),
        output_dir: None,
        package: "test-operator".to_string(),
        channels: channels.to_string(),
        default_channel: default_channel.to_string(),
        base_image: "scratch".to_string(),
        overwrite: true,
        working_dir: dir.to_path_buf(),
    }
}

fn yaml(package: &str, channels: &str, default_channel: &str) -> String {
    annotations_yaml(&annotation_map(
        MediaType::RegistryV1.as_str(),
        package,
        channels,
        default_channel,
    ))
}

#[test]
fn annotations_text() {
    assert_eq!(
        yaml("test-operator", "stable,beta", "stable"),
        "annotations:
  operators.operatorframework.io.bundle.channel.default.v1: stable
  operators.operatorframework.io.bundle.channels.v1: stable,beta
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: test-operator
"
    );
    assert!(!yaml("p", "a", "").contains("channel.default"));
}

#[test]
fn annotation_values_are_quoted_like_go_yaml() {
    let line = |value: &str| {
        let text = yaml(value, "c", "d");
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("  {PACKAGE_LABEL}: ")))
            .map(str::to_string)
            .unwrap_or(text)
    };
    let cases = [
        ("plain", "registry+v1", "registry+v1"),
        ("plain/comma", "stable,beta", "stable,beta"),
        ("plain/hash-inside", "foo#bar", "foo#bar"),
        ("plain/version", "1.0.0", "1.0.0"),
        ("plain/space", "my op", "my op"),
        ("double/bool", "yes", "\"yes\""),
        ("double/on", "on", "\"on\""),
        ("double/int", "123", "\"123\""),
        ("double/float", "1.0", "\"1.0\""),
        ("double/null", "~", "\"~\""),
        ("double/tab", "a\tb", "\"a\\tb\""),
        ("single/at", "@pkg", "'@pkg'"),
        ("single/colon-space", "a: b", "'a: b'"),
        ("single/hash", "#x", "'#x'"),
        ("single/quote", "'q'", "'''q'''"),
        ("single/trailing-space", "trail ", "'trail '"),
    ];
    for (name, value, expected) in cases {
        assert_eq!(line(value), expected, "{name}");
    }
}

#[test]
fn long_values_are_not_folded() {
    let long = "word ".repeat(30) + "end";
    let text = yaml(&long, "c", "d");
    assert!(
        text.contains(&format!("{PACKAGE_LABEL}: {long}\n")),
        "{text}"
    );
}

#[test]
fn multi_line_values_use_a_literal_block() {
    let text = yaml("a\nb", "c", "d");
    assert!(
        text.ends_with(&format!("  {PACKAGE_LABEL}: |-\n    a\n    b\n")),
        "{text}"
    );
}

#[test]
fn dockerfile_with_and_without_default() {
    let with = dockerfile_text(
        "scratch",
        MediaType::RegistryV1.as_str(),
        "test-operator",
        "stable,beta",
        "stable",
        "manifests",
        "metadata",
    );
    assert_eq!(
        with,
        "FROM scratch

LABEL operators.operatorframework.io.bundle.mediatype.v1=registry+v1
LABEL operators.operatorframework.io.bundle.manifests.v1=manifests/
LABEL operators.operatorframework.io.bundle.metadata.v1=metadata/
LABEL operators.operatorframework.io.bundle.package.v1=test-operator
LABEL operators.operatorframework.io.bundle.channels.v1=stable,beta
LABEL operators.operatorframework.io.bundle.channel.default.v1=stable

COPY manifests /manifests/
COPY metadata /metadata/
"
    );
    let without = dockerfile_text(
        "registry.example.com/base:1",
        MediaType::Plain.as_str(),
        "p",
        "a",
        "",
        ".",
        "../metadata",
    );
    assert_eq!(
        without,
        "FROM registry.example.com/base:1

LABEL operators.operatorframework.io.bundle.mediatype.v1=plain
LABEL operators.operatorframework.io.bundle.manifests.v1=manifests/
LABEL operators.operatorframework.io.bundle.metadata.v1=metadata/
LABEL operators.operatorframework.io.bundle.package.v1=p
LABEL operators.operatorframework.io.bundle.channels.v1=a
COPY . /manifests/
COPY ../metadata /metadata/
"
    );
}

fn names(items: &[(&str, &str)]) -> BTreeMap<String, String> {
    items
        .iter()
        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
        .collect()
}

#[test]
fn channel_graph() {
    // The etcd test package: alpha→0.9.2, beta→0.9.0, stable→0.9.2;
    // 0.9.0 replaces 0.6.1; 0.9.2 skips 0.9.1 and replaces 0.9.0;
    // 0.9.4 replaces 0.9.2 but heads no channel.
    let heads = names(&[
        ("alpha", "etcdoperator.v0.9.2"),
        ("beta", "etcdoperator.v0.9.0"),
        ("stable", "etcdoperator.v0.9.2"),
    ]);
    let replaces: BTreeMap<String, Vec<String>> = [
        ("etcdoperator.v0.9.0", vec!["etcdoperator.v0.6.1"]),
        (
            "etcdoperator.v0.9.2",
            vec!["etcdoperator.v0.9.1", "etcdoperator.v0.9.0"],
        ),
        ("etcdoperator.v0.9.4", vec!["etcdoperator.v0.9.2"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(str::to_string).collect()))
    .collect();
    let cases: [(&str, &str, &[&str]); 5] = [
        ("head-of-two", "etcdoperator.v0.9.2", &["alpha", "stable"]),
        (
            "replaced-everywhere",
            "etcdoperator.v0.9.0",
            &["alpha", "beta", "stable"],
        ),
        ("tail", "etcdoperator.v0.6.1", &["alpha", "beta", "stable"]),
        (
            "skipped-and-not-on-disk",
            "etcdoperator.v0.9.1",
            &["alpha", "stable"],
        ),
        ("newer-than-every-head", "etcdoperator.v0.9.4", &[]),
    ];
    for (name, csv, expected) in cases {
        assert_eq!(bundle_channels(csv, &heads, &replaces), expected, "{name}");
    }
    // A replaces cycle terminates.
    let cyclic: BTreeMap<String, Vec<String>> = [
        ("a".to_string(), vec!["b".to_string()]),
        ("b".to_string(), vec!["a".to_string()]),
    ]
    .into();
    assert!(bundle_channels("z", &names(&[("c", "a")]), &cyclic).is_empty());
}

#[test]
fn package_manifests() {
    let ok = |text: &str| decode_package_manifest(text.as_bytes()).unwrap();
    let manifest = ok("packageName: etcd\nchannels:\n- name: alpha\n  currentCSV: a\n- name: beta\n  currentCSV: b\ndefaultChannel: beta\n");
    assert_eq!(manifest.package_name, "etcd");
    assert_eq!(manifest.default_channel(), "beta");
    assert_eq!(manifest.channels.len(), 2);
    let single = ok("packageName: p\nchannels:\n- name: only\n  currentCSV: a\n");
    assert_eq!(single.default_channel(), "only");
    let several = ok("packageName: p\nchannels:\n- name: a\n- name: b\n");
    assert_eq!(several.default_channel(), "");
    assert_eq!(ok("{\"PackageName\": \"json\"}").package_name, "json");
    assert_eq!(ok("packageName: 123\n").package_name, "123");

    let err = |text: &str| {
        decode_package_manifest(text.as_bytes())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(err(CSV), "name of package (packageName) is missing");
    assert_eq!(
        err(""),
        "could not decode contents into package manifest - EOF"
    );
    assert_eq!(
            err("{\"packageName\": 5}"),
            "could not decode contents into package manifest - json: cannot unmarshal number into Go struct field PackageManifest.packageName of type string"
        );
    let prefix = "could not decode contents into package manifest - ";
    let yaml = "error unmarshaling JSON: while decoding JSON: ";
    for (text, want) in [
        (
            "- 1\n",
            format!("{yaml}json: cannot unmarshal array into Go value of type registry.PackageManifest"),
        ),
        (
            r#"{"packageName": "p", "channels": [{"name": 1}]}"#,
            "json: cannot unmarshal number into Go struct field PackageChannel.channels.name of type string".to_string(),
        ),
        (
            "packageName: p\nchannels:\n- name: a\n  currentCSV: [x]\n",
            format!("{yaml}json: cannot unmarshal array into Go struct field PackageChannel.channels.currentCSV of type string"),
        ),
        (
            "packageName: p\nchannels:\n- 5\n",
            format!("{yaml}json: cannot unmarshal number into Go struct field PackageManifest.channels of type registry.PackageChannel"),
        ),
        (
            r#"{"packageName": "p", "defaultChannel": true}"#,
            "json: cannot unmarshal bool into Go struct field PackageManifest.defaultChannel of type string".to_string(),
        ),
        (
            "packageName: {a: 1}\nchannels:\n- name: [a]\n",
            format!("{yaml}json: cannot unmarshal array into Go struct field PackageChannel.channels.name of type string"),
        ),
    ] {
        assert_eq!(err(text), format!("{prefix}{want}"), "{text}");
    }
    assert_eq!(
            err("packageName: p\nchannels: x\n"),
            "could not decode contents into package manifest - error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field PackageManifest.channels of type []registry.PackageChannel"
        );
}

#[test]
fn existing_annotations_check() {
    let expected = annotation_map(MediaType::RegistryV1.as_str(), "p", "a,b", "a");
    let matching = yaml("p", "a,b", "a");
    check_existing_annotations(matching.as_bytes(), &expected).unwrap();
    // Extra keys and a second document are ignored.
    let extra = format!("{matching}  other: x\n---\nannotations: 1\n");
    check_existing_annotations(extra.as_bytes(), &expected).unwrap();

    let message = |text: &str, expected: &BTreeMap<&'static str, String>| {
        check_existing_annotations(text.as_bytes(), expected)
            .unwrap_err()
            .to_string()
    };
    let other_package = matching.replace("package.v1: p", "package.v1: other");
    assert_eq!(
        message(&other_package, &expected),
        format!("Expect field \"{PACKAGE_LABEL}\" to have value \"p\" instead of \"other\"")
    );
    assert_eq!(
            message(
                "annotations:\n  x: y\n",
                &annotation_map(MediaType::Plain.as_str(), "p", "a", "")
            ),
            format!(
                "[Missing field: {CHANNELS_LABEL}, Missing field: {MANIFESTS_LABEL}, Missing field: {MEDIATYPE_LABEL}, Missing field: {METADATA_LABEL}, Missing field: {PACKAGE_LABEL}]"
            )
        );
    // Any scalar is read as its text, null as "".
    let scalars = annotation_map(MediaType::Plain.as_str(), "1.0", "yes", "");
    let text = format!(
            "annotations:\n  {PACKAGE_LABEL}: 1.0\n  {CHANNELS_LABEL}: yes\n  {MEDIATYPE_LABEL}: plain\n  {MANIFESTS_LABEL}: manifests/\n  {METADATA_LABEL}: metadata/\n  other: ~\n"
        );
    check_existing_annotations(text.as_bytes(), &scalars).unwrap();
    let null = format!("annotations:\n  {PACKAGE_LABEL}: ~\n");
    assert!(message(&null, &scalars).contains(&format!(
        "Expect field \"{PACKAGE_LABEL}\" to have value \"1.0\" instead of \"\""
    )));
    // Structural problems are parse errors.
    assert!(matches!(
        check_existing_annotations(b"annotations:\n  a: x\n  a: y\n", &expected),
        Err(GenerateError::ParseAnnotations(m)) if m.to_string().contains("mapping key \"a\" already defined")
    ));
    assert!(matches!(
        check_existing_annotations(b"annotations:\n  a: [x]\n", &expected),
        Err(GenerateError::ParseAnnotations(_))
    ));
    // An empty file has no annotations at all.
    assert!(message("# nothing\n", &expected).starts_with("[Missing field: "));
}

#[test]
fn paths_like_go() {
    let cwd = Path::new("/a/b");
    assert_eq!(absolute(cwd, Path::new("")), PathBuf::from("/a/b"));
    assert_eq!(
        absolute(cwd, Path::new("./x/../y/")),
        PathBuf::from("/a/b/y")
    );
    assert_eq!(absolute(cwd, Path::new("../../../z")), PathBuf::from("/z"));
    assert_eq!(absolute(cwd, Path::new("/abs//p")), PathBuf::from("/abs/p"));
    assert_eq!(parent(Path::new("/")), PathBuf::from("/"));
    assert_eq!(relative(cwd, Path::new("/a/b")), ".");
    assert_eq!(relative(cwd, Path::new("/a/b/c/d")), "c/d");
    assert_eq!(relative(cwd, Path::new("/a/metadata")), "../metadata");
    assert_eq!(relative(cwd, Path::new("/g8out/m")), "../../g8out/m");
}

#[test]
fn no_default_means_first_channel() {
    let dir = crate::testkit::tree(&[("manifests/csv.yaml", CSV)]);
    let generated = input(dir.path(), "beta,stable", "")
        .run(&mut |_| {})
        .unwrap();
    assert_eq!(generated.default_channel, "beta");
    let text = std::fs::read_to_string(dir.path().join("metadata/annotations.yaml")).unwrap();
    assert!(text.contains(&format!("{DEFAULT_CHANNEL_LABEL}: beta\n")));
}

#[test]
fn without_overwrite_existing_files_are_checked_and_kept() {
    let existing = yaml("test-operator", "a", "a");
    let dir = crate::testkit::tree(&[
        ("manifests/csv.yaml", CSV),
        ("bundle.Dockerfile", "mine\n"),
        ("metadata/annotations.yaml", &existing),
    ]);
    let mut keep = input(dir.path(), "a", "");
    keep.overwrite = false;
    let mut lines = Vec::new();
    let generated = keep.run(&mut |l| lines.push(l.to_string())).unwrap();
    assert!(!generated.annotations_written && !generated.dockerfile_written);
    assert!(lines.contains(&"Validating existing annotations.yaml".to_string()));

    let mut mismatch = input(dir.path(), "b", "");
    mismatch.overwrite = false;
    let error = mismatch.run(&mut |_| {}).unwrap_err().to_string();
    assert_eq!(
            error,
            format!(
                "[Expect field \"{DEFAULT_CHANNEL_LABEL}\" to have value \"b\" instead of \"a\", Expect field \"{CHANNELS_LABEL}\" to have value \"b\" instead of \"a\"]"
            )
        );
    let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
    assert_eq!(read("bundle.Dockerfile"), "mine\n");
    assert_eq!(read("metadata/annotations.yaml"), existing);
}

#[test]
fn an_existing_file_without_a_default_channel_is_accepted() {
    let existing = format!(
            "annotations:\n  {CHANNELS_LABEL}: a\n  {MANIFESTS_LABEL}: manifests/\n  {MEDIATYPE_LABEL}: registry+v1\n  {METADATA_LABEL}: metadata/\n  {PACKAGE_LABEL}: test-operator\n"
        );
    let dir = crate::testkit::tree(&[
        ("manifests/csv.yaml", CSV),
        ("metadata/annotations.yaml", &existing),
    ]);
    let mut keep = input(dir.path(), "a", "");
    keep.overwrite = false;
    keep.run(&mut |_| {}).unwrap();
    let mut asked = input(dir.path(), "a", "a");
    asked.overwrite = false;
    assert!(asked
        .run(&mut |_| {})
        .unwrap_err()
        .to_string()
        .contains("Missing field"));
}

#[test]
fn a_failure_writes_nothing() {
    // The Dockerfile target is a directory: staging fails after the
    // manifests and the annotations were staged.
    let dir = crate::testkit::tree(&[("manifests/csv.yaml", CSV), ("bundle.Dockerfile/keep", "")]);
    let mut generate = input(dir.path(), "a", "");
    generate.output_dir = Some(PathBuf::from("out"));
    let error = generate.run(&mut |_| {}).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "open {}: is a directory",
            dir.path().join("bundle.Dockerfile").display()
        )
    );
    assert!(!dir.path().join("out").exists());
    assert!(!dir.path().join("metadata").exists());
}
