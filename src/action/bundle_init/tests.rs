use super::*;

fn object(kind: &str, name: &str) -> Manifest {
    Manifest {
        file: "m.yaml".into(),
        document: name.len(),
        value: json!({"apiVersion": "v1", "kind": kind, "metadata": {"name": name}}),
        from_yaml: true,
    }
}

fn init(dir: &Path, source: Source, media_type: Option<MediaType>) -> InitBundle {
    InitBundle {
        source,
        media_type,
        generate_dockerfile: false,
        package: String::new(),
        channels: String::new(),
        default_channel: String::new(),
        working_dir: dir.to_path_buf(),
    }
}

/// Every file under `dir`, relative, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| !e.file_type().is_dir())
        .map(|e| {
            e.path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn media_type_values() {
    let cases = [
        ("registry+v1", Some(MediaType::RegistryV1)),
        ("registry+v2", Some(MediaType::RegistryV2)),
        ("plain+v0", Some(MediaType::Plain)),
        ("plain", Some(MediaType::Plain)),
        ("helm", None),
        ("registry+v3", None),
        ("", None),
    ];
    for (value, expected) in cases {
        assert_eq!(parse_media_type(value).ok(), expected, "{value}");
    }
    assert_eq!(
        parse_media_type("x").unwrap_err().to_string(),
        "invalid --mediatype value \"x\": must be one of [registry+v1, registry+v2, plain+v0]"
    );
    assert_eq!(MediaType::Plain.label(), "plain+v0");
    assert_eq!(MediaType::RegistryV2.label(), "registry+v2");
}

#[test]
fn media_type_inference_and_checks() {
    use MediaType::{Plain, RegistryV1, RegistryV2};
    let csv = object("ClusterServiceVersion", "csv");
    let deployment = object("Deployment", "d");
    let config = object("ConfigMap", "cm");
    type Case<'a> = (
        &'a str,
        Option<MediaType>,
        Vec<Manifest>,
        Result<MediaType, &'a str>,
    );
    let cases: Vec<Case<'_>> = vec![
            ("infer/csv", None, vec![deployment.clone(), csv.clone()], Ok(RegistryV1)),
            ("infer/deployment", None, vec![config.clone(), deployment.clone()], Ok(RegistryV2)),
            ("infer/plain", None, vec![config.clone()], Ok(Plain)),
            (
                "infer/nothing",
                None,
                vec![],
                Err("unable to infer mediatype when no manifests are present"),
            ),
            ("given/empty-v1", Some(RegistryV1), vec![], Ok(RegistryV1)),
            ("given/empty-v2", Some(RegistryV2), vec![], Ok(RegistryV2)),
            ("given/empty-plain", Some(Plain), vec![], Ok(Plain)),
            ("given/v1-csv", Some(RegistryV1), vec![csv.clone()], Ok(RegistryV1)),
            (
                "given/v1-no-csv",
                Some(RegistryV1),
                vec![deployment.clone()],
                Err("mediatype registry+v1 needs a ClusterServiceVersion in the manifests, but there is none; use -m registry+v2 for a bundle without one"),
            ),
            ("given/v2", Some(RegistryV2), vec![deployment.clone(), config.clone()], Ok(RegistryV2)),
            (
                "given/v2-csv",
                Some(RegistryV2),
                vec![deployment.clone(), csv.clone()],
                Err("mediatype registry+v2 does not allow a ClusterServiceVersion (m.yaml, document 3); use -m registry+v1 for a bundle with one"),
            ),
            (
                "given/v2-no-deployment",
                Some(RegistryV2),
                vec![config.clone()],
                Err("mediatype registry+v2 needs at least one Deployment in the manifests, but there is none; use -m plain+v0 for plain manifests"),
            ),
            ("given/plain-anything", Some(Plain), vec![csv, deployment, config], Ok(Plain)),
        ];
    for (name, requested, objects, expected) in cases {
        let got = choose_media_type(requested, &objects).map_err(|e| e.to_string());
        assert_eq!(got, expected.map_err(str::to_string), "{name}");
    }
}

#[test]
fn package_names_from_directories() {
    let long = "a".repeat(70);
    let cases = [
        ("plain", "my-operator", "my-operator"),
        ("upper", "Kiali-CSVless", "kiali-csvless"),
        ("runs", "my__op..v2", "my-op-v2"),
        ("dash-next-to-run", "a-_b", "a--b"),
        ("trim", "--_x_--", "x"),
        ("hidden-temp", ".tmpAbC12", "tmpabc12"),
        ("non-ascii", "Øperatör", "perat-r"),
        ("empty", "", "operator"),
        ("nothing-left", "___", "operator"),
        ("long", long.as_str(), &long[..63]),
    ];
    for (name, input, expected) in cases {
        assert_eq!(dns_label(input), expected, "{name}");
    }
    // The cut does not leave a dash at the end.
    let cut = format!("{}-b", "a".repeat(62));
    assert_eq!(dns_label(&cut), "a".repeat(62));
    assert_eq!(package_from_dir(Path::new("/work/Foo Bar")), "foo-bar");
    assert_eq!(package_from_dir(Path::new("/")), "operator");
}

#[test]
fn stream_objects_are_named_after_name_and_kind() {
    let values = [
        json!({"kind": "Deployment", "metadata": {"name": "kiali-operator"}}),
        json!({"kind": "ServiceAccount", "metadata": {"name": "kiali-operator"}}),
        json!({"kind": "Deployment", "metadata": {"name": "kiali-operator"}}),
        json!({"kind": "Deployment", "metadata": {"name": "kiali-operator"}}),
        json!({"kind": "ConfigMap"}),
        json!({"kind": "ConfigMap", "metadata": {"name": ""}}),
        json!({"kind": "Secret", "metadata": {"name": "a/b c:d"}}),
        json!({"kind": "Secret", "metadata": {"name": ".hidden"}}),
        json!({"kind": "Secret", "metadata": {"name": 5}}),
    ];
    let refs: Vec<&Value> = values.iter().collect();
    assert_eq!(
        stream_file_names(&refs),
        [
            "kiali-operator.deployment.yaml",
            "kiali-operator.serviceaccount.yaml",
            "kiali-operator.deployment-2.yaml",
            "kiali-operator.deployment-3.yaml",
            "object.configmap.yaml",
            "object.configmap-2.yaml",
            "a_b_c_d.secret.yaml",
            "_hidden.secret.yaml",
            "object.secret.yaml",
        ]
    );
}

#[test]
fn documents_must_be_objects_with_api_version_and_kind() {
    let ok = decode_objects(
        b"---\n# only a comment\n---\napiVersion: v1\nkind: ConfigMap\n",
        "f.yaml",
    )
    .unwrap();
    assert_eq!(ok.len(), 1);
    assert_eq!((ok[0].file.as_str(), ok[0].document), ("f.yaml", 2));
    let json = decode_objects(
        b"{\"apiVersion\": \"v1\", \"kind\": \"A\"}\n{\"apiVersion\": \"v1\", \"kind\": \"B\"}",
        "f.json",
    )
    .unwrap();
    assert_eq!(json.len(), 2);
    let err = |text: &str| {
        decode_objects(text.as_bytes(), "f.yaml")
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        err("apiVersion: v1\nkind: A\n---\n- x\n"),
        "f.yaml, document 2: not a Kubernetes object: found array"
    );
    assert_eq!(
        err("kind: A\n"),
        "f.yaml, document 1: not a Kubernetes object: apiVersion is missing or not a string"
    );
    assert_eq!(
        err("apiVersion: v1\nkind: \"\"\n"),
        "f.yaml, document 1: not a Kubernetes object: kind is missing or not a string"
    );
    assert_eq!(
        err("apiVersion: 1\nkind: A\n"),
        "f.yaml, document 1: not a Kubernetes object: apiVersion is missing or not a string"
    );
    assert!(
        err("apiVersion: v1\nkind: A\n---\nkey: [unclosed\n").starts_with("f.yaml, document 2: ")
    );
}

#[test]
fn apis_from_crds() {
    let crd = |spec: Value| Manifest {
        file: String::new(),
        document: 1,
        value: json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "spec": spec}),
        from_yaml: false,
    };
    let objects = [
        crd(
            json!({"group": "a.io", "names": {"kind": "A"}, "versions": [
                {"name": "v1", "storage": false}, {"name": "v2", "storage": true}]}),
        ),
        crd(
            json!({"group": "b.io", "names": {"kind": "B"}, "versions": [{"name": "v1beta1"}, {"name": "v1"}]}),
        ),
        crd(json!({"group": "c.io", "names": {"kind": "C"}, "version": "v1alpha1"})),
        crd(json!({"group": "d.io", "names": {"kind": "D"}})),
        crd(json!({"group": "e.io", "version": "v1"})),
        object("ConfigMap", "x"),
    ];
    assert_eq!(
        provided_apis(&objects),
        [
            json!({"apiVersion": "a.io/v2", "kind": "A", "displayName": "A"}),
            json!({"apiVersion": "b.io/v1beta1", "kind": "B", "displayName": "B"}),
            json!({"apiVersion": "c.io/v1alpha1", "kind": "C", "displayName": "C"}),
        ]
    );
    assert_eq!(
            bundle_yaml(MediaType::RegistryV2, "p", &objects[2..3]),
            "name: p.v0.0.1\nversion: 0.0.1\ndisplayName: p\napis:\n- apiVersion: c.io/v1alpha1\n  displayName: C\n  kind: C\n"
        );
    assert_eq!(
        bundle_yaml(MediaType::Plain, "p", &objects),
        "name: p.v0.0.1\nversion: 0.0.1\n"
    );
    assert_eq!(
        bundle_yaml(MediaType::RegistryV2, "p", &[]),
        "name: p.v0.0.1\nversion: 0.0.1\ndisplayName: p\n"
    );
}

#[test]
fn default_resources() {
    assert_eq!(
        yaml(&default_deployment("foo")),
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: foo
spec:
  replicas: 1
  selector:
    matchLabels:
      app: foo
  template:
    metadata:
      labels:
        app: foo
    spec:
      containers:
      - image: quay.io/example/foo:v0.0.1
        name: manager
"
    );
    let csv = default_csv("foo");
    assert_eq!(csv.pointer("/metadata/name"), Some(&json!("foo.v0.0.1")));
    assert_eq!(
        csv.pointer("/spec/install/spec/deployments/0/spec"),
        default_deployment("foo").get("spec")
    );
    let modes: Vec<(&str, bool)> = csv
        .pointer("/spec/installModes")
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["type"].as_str().unwrap(),
                m["supported"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        modes,
        [
            ("OwnNamespace", true),
            ("SingleNamespace", true),
            ("MultiNamespace", false),
            ("AllNamespaces", true)
        ]
    );
}

#[test]
fn defaults_for_each_media_type() {
    let cases = [
        (
            MediaType::RegistryV1,
            &[
                "manifests/csv.yaml",
                "metadata/annotations.yaml",
                "metadata/dependencies.yaml",
            ][..],
        ),
        (
            MediaType::RegistryV2,
            &[
                "manifests/deployment.yaml",
                "metadata/annotations.yaml",
                "metadata/bundle.yaml",
                "metadata/dependencies.yaml",
            ][..],
        ),
        (
            MediaType::Plain,
            &[
                "manifests/deployment.yaml",
                "metadata/annotations.yaml",
                "metadata/bundle.yaml",
            ][..],
        ),
    ];
    for (media_type, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let done = init(dir.path(), Source::None, Some(media_type))
            .run(&mut |w| panic!("warning {w}"))
            .unwrap();
        assert_eq!(done.written, expected, "{media_type:?}");
        assert_eq!(listing(dir.path()), expected, "{media_type:?}");
        assert_eq!(
            (done.channels.as_str(), done.default_channel.as_str()),
            ("alpha", "alpha")
        );
    }
}

#[test]
fn directory_sources_copy_manifests_and_warn_about_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("sub")).unwrap();
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n";
    std::fs::write(src.join("b.yaml"), deployment).unwrap();
    std::fs::write(
        src.join("a.json"),
        "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\"}",
    )
    .unwrap();
    std::fs::write(src.join("README.md"), "# hi\n").unwrap();
    std::fs::write(src.join("empty.yml"), "# nothing\n").unwrap();
    std::fs::write(src.join(".hidden.yaml"), "not: [valid\n").unwrap();
    std::fs::write(src.join("sub/c.yaml"), "kind: x\n").unwrap();
    let mut warnings = Vec::new();
    let done = init(dir.path(), Source::Directory(PathBuf::from("src")), None)
        .run(&mut |w| warnings.push(w.to_string()))
        .unwrap();
    assert_eq!(done.media_type, MediaType::RegistryV2);
    assert_eq!(
        warnings,
        [
            "skipping src/README.md: not a .yaml, .yml or .json file",
            "skipping src/empty.yml: it holds no objects",
        ]
    );
    assert_eq!(
        done.written,
        [
            "manifests/a.json",
            "manifests/b.yaml",
            "metadata/annotations.yaml",
            "metadata/bundle.yaml",
            "metadata/dependencies.yaml",
        ]
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("manifests/b.yaml")).unwrap(),
        deployment
    );
}

#[cfg(unix)]
#[test]
fn file_names_are_kept_as_they_are() {
    use std::os::unix::ffi::OsStrExt as _;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.yaml");
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src").join(name),
        "apiVersion: v1\nkind: ConfigMap\n",
    )
    .unwrap();
    let done = init(dir.path(), Source::Directory(PathBuf::from("src")), None)
        .run(&mut |_| {})
        .unwrap();
    assert_eq!(done.written[0], "manifests/caf\u{fffd}.yaml");
    assert!(dir.path().join("manifests").join(name).is_file());
}

#[test]
fn conflicts_are_found_before_anything_is_written() {
    // (name, existing files (`None`: a directory), error)
    type Case<'a> = (&'a str, &'a [(&'a str, Option<&'a str>)], &'a str);
    let cases: [Case<'_>; 5] = [
        (
            "file",
            &[("manifests/csv.yaml", Some("mine"))],
            "manifests/csv.yaml already exists; opm bundle init never overwrites",
        ),
        (
            "dir-not-empty",
            &[("metadata/other.yaml", Some("x"))],
            "metadata/ already exists and is not empty; opm bundle init never overwrites",
        ),
        (
            "dir-is-a-file",
            &[("manifests", Some("x"))],
            "manifests already exists; opm bundle init never overwrites",
        ),
        (
            "dockerfile-is-a-dir",
            &[("Dockerfile", None)],
            "Dockerfile already exists; opm bundle init never overwrites",
        ),
        (
            "hidden-file-counts",
            &[("manifests/.keep", Some(""))],
            "manifests/ already exists and is not empty; opm bundle init never overwrites",
        ),
    ];
    for (name, existing, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        for (path, contents) in existing {
            let path = dir.path().join(path);
            match contents {
                Some(text) => {
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::write(path, text).unwrap();
                }
                None => std::fs::create_dir_all(path).unwrap(),
            }
        }
        let before = listing(dir.path());
        let mut bundle = init(dir.path(), Source::None, Some(MediaType::RegistryV1));
        bundle.generate_dockerfile = true;
        let error = bundle.run(&mut |_| {}).unwrap_err();
        assert_eq!(error.to_string(), expected, "{name}");
        assert_eq!(listing(dir.path()), before, "{name}");
    }
    // Empty directories are fine.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("manifests")).unwrap();
    std::fs::create_dir_all(dir.path().join("metadata")).unwrap();
    init(dir.path(), Source::None, Some(MediaType::RegistryV1))
        .run(&mut |_| {})
        .unwrap();
}

#[test]
fn sources_that_are_not_directories() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("file.yaml"), "kind: x\n").unwrap();
    let error = |src: &str| {
        init(dir.path(), Source::Directory(PathBuf::from(src)), None)
            .run(&mut |_| {})
            .unwrap_err()
            .to_string()
    };
    assert_eq!(error("nope"), "source directory \"nope\" does not exist");
    assert_eq!(
            error("file.yaml"),
            "source \"file.yaml\" is not a directory (give a directory of manifests, or - to read them from stdin)"
        );
}
