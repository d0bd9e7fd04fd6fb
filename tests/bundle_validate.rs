//! `opm bundle validate DIR|IMAGE` (and `opm alpha bundle validate`): target
//! selection, usage errors, text and JSON output of the format checks.

use crate::util::Test;

const VALID: &str = "testdata/rules/annotations-missing/valid-all-labels";
const SUCCESS: &str = "All validation tests have been completed successfully\n";

fn bundle() -> Test {
    Test::new().copy(VALID, "bundle")
}

#[test]
fn bundle_validate_valid_directory_passes() {
    for args in [
        &["bundle", "validate", "bundle"][..],
        &["alpha", "bundle", "validate", "bundle"],
        &["bundle", "validate", "-t", "bundle"],
        &["bundle", "validate", "--tag", "bundle", "-b", "podman"],
    ] {
        let out = bundle().args(args.iter().copied()).run().success();
        assert_eq!(out.stdout, "", "{args:?}");
        assert_eq!(out.stderr, SUCCESS, "{args:?}");
    }
}

#[test]
fn bundle_validate_text_output_is_one_line_per_finding() {
    let out = bundle()
        .file("bundle/metadata/annotations.yaml", "annotations: {operators.operatorframework.io.bundle.mediatype.v1: registry+v1, operators.operatorframework.io.bundle.manifests.v1: manifests/, operators.operatorframework.io.bundle.metadata.v1: metadata/, operators.operatorframework.io.bundle.package.v1: etcd}\n")
        .args(["bundle", "validate", "bundle"])
        .run()
        .failure(&[]);
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "bundle/metadata/annotations.yaml: error[annotations-missing]: Missing annotation \"operators.operatorframework.io.bundle.channels.v1\"
bundle/metadata/annotations.yaml: error[annotations-channels-empty]: Expecting annotation \"operators.operatorframework.io.bundle.channels.v1\" to have non-empty value
Error: Bundle validation errors: 2 errors
"
    );
}

/// A CSV finding reads `FILE:LINE:COL: severity[rule]: (csv) detail`: the
/// severity is shown once, by the report, with no level word (`Error:`,
/// `Warning:`) or empty `Value :` after the rule, as upstream's message has.
#[test]
fn bundle_validate_csv_findings_carry_no_level_word() {
    let csv = "bundle/manifests/widget-operator.clusterserviceversion.yaml";
    for (case, expected) in [
        (
            "csv-install-modes-invalid/invalid-missing",
            format!(
                "{csv}:1:1: error[csv-install-modes-invalid]: (widget-operator.v1.0.0) install modes not found\n\
                 Error: Bundle validation errors: 1 error\n"
            ),
        ),
        (
            "csv-min-kube-version-missing/invalid-absent",
            format!(
                "{csv}:1:1: warning[csv-min-kube-version-missing]: (widget-operator.v1.0.0) csv.Spec.minKubeVersion is not informed. It is recommended you provide this information. Otherwise, it would mean that your operator project can be distributed and installed in any cluster version available, which is not necessarily the case for all projects.\n{SUCCESS}"
            ),
        ),
        (
            "csv-owned-crd-name-invalid/invalid-no-dot",
            format!(
                "{csv}:30:3: error[csv-owned-crd-name-invalid]: couldn't parse plural.group from crd name: widgets\n"
            ),
        ),
    ] {
        let out = Test::new()
            .copy(&format!("testdata/rules/{case}"), "bundle")
            .args(["bundle", "validate", "bundle"])
            .run();
        assert!(out.stderr.starts_with(&expected), "{case}: {}", out.stderr);
        for line in out.stderr.lines() {
            for word in ["Error:", "Warning:"] {
                assert!(
                    !line.contains(&format!("]: {word}")),
                    "{case}: level word after the rule: {line}"
                );
            }
        }
    }
}

#[test]
fn bundle_validate_custom_categories_file() {
    let bundle = "testdata/rules/operatorhub-csv-invalid/invalid-category";
    let run = |categories: &str| {
        Test::new()
            .copy(bundle, "bundle")
            .file(
                "categories.json",
                r#"{"categories": ["Database", "Nonsense"]}"#,
            )
            .env("OPERATOR_BUNDLE_CATEGORIES", categories)
            .args(["bundle", "validate", "bundle", "-o", "operatorhub"])
            .run()
    };
    // The file's list replaces the standard one.
    run("categories.json").success();
    let out = run("missing.json");
    assert!(
        out.stderr.contains(
            "error[operatorhub-csv-invalid]: (widget-operator.v1.0.0) could not extract custom \
             categories from OPERATOR_BUNDLE_CATEGORIES: reading category file: open "
        ),
        "{}",
        out.stderr
    );
    assert!(out
        .stderr
        .contains("missing.json: no such file or directory\n"));
}

#[test]
fn bundle_validate_missing_directories_report_nothing_else() {
    let out = Test::new()
        .file("bundle/README.md", "not a bundle\n")
        .args(["bundle", "validate", "bundle"])
        .run()
        .failure(&[]);
    assert_eq!(
        out.stderr,
        "error[bundle-missing-manifests-dir]: Unable to locate manifests directory
error[bundle-missing-metadata-dir]: Unable to locate metadata directory
Error: Bundle validation errors: 2 errors
"
    );
}

#[test]
fn bundle_validate_json_output() {
    let out = Test::new()
        .copy(
            "testdata/rules/dependency-gvk-invalid/invalid-fields-empty",
            "bundle",
        )
        .args(["bundle", "validate", "bundle", "--output-format", "json"])
        .run();
    assert_eq!(out.code, 1);
    assert_eq!(out.stderr, "");
    assert_eq!(
        out.stdout,
        r#"{
  "passed": false,
  "findings": [
    {
      "rule": "dependency-gvk-invalid",
      "severity": "error",
      "message": "API Group is empty",
      "file": "bundle/metadata/dependencies.yaml"
    },
    {
      "rule": "dependency-gvk-invalid",
      "severity": "error",
      "message": "API Version is empty",
      "file": "bundle/metadata/dependencies.yaml"
    },
    {
      "rule": "dependency-gvk-invalid",
      "severity": "error",
      "message": "API Kind is empty",
      "file": "bundle/metadata/dependencies.yaml"
    }
  ]
}
"#
    );
    let out = bundle()
        .args(["bundle", "validate", "bundle", "--output-format", "json"])
        .run()
        .success();
    assert_eq!(
        out.stdout,
        "{\n  \"passed\": true,\n  \"findings\": []\n}\n"
    );
    assert_eq!(out.stderr, "");
}

#[test]
fn bundle_validate_warnings_never_fail() {
    let out = Test::new()
        .copy(
            "testdata/rules/dependency-constraint-ambiguous/invalid-package-and-gvk",
            "bundle",
        )
        .args(["bundle", "validate", "bundle"])
        .run()
        .success();
    assert_eq!(
        out.stderr,
        format!("bundle/metadata/dependencies.yaml: warning[dependency-constraint-ambiguous]: The constraint sets more than one of cel, package, gvk, all, any, not (package, gvk); OLM evaluates only one\n{SUCCESS}")
    );
}

#[test]
fn bundle_validate_warnings_are_counted_beside_errors() {
    let out = Test::new()
        .copy(
            "testdata/rules/dependency-constraint-ambiguous/invalid-package-and-gvk",
            "bundle",
        )
        .file("bundle/metadata/annotations.yaml", "annotations: {}\n")
        .args(["bundle", "validate", "bundle"])
        .run()
        .failure(&[
            "bundle/metadata/annotations.yaml: error[annotations-missing]: Missing annotation \"operators.operatorframework.io.bundle.package.v1\"\n",
            "bundle/metadata/dependencies.yaml: warning[dependency-constraint-ambiguous]: The constraint sets more than one of cel, package, gvk, all, any, not (package, gvk); OLM evaluates only one\n",
        ]);
    assert!(
        out.stderr
            .ends_with("\nError: Bundle validation errors: 7 errors, 1 warning\n"),
        "{}",
        out.stderr
    );
}

#[test]
fn bundle_validate_takes_missing_paths_as_images() {
    // `.invalid` never resolves, so the pull fails at once without network.
    for (target, reference) in [
        (
            "image://registry.invalid/test/etcd-bundle:v0.9.4",
            "registry.invalid/test/etcd-bundle:v0.9.4",
        ),
        (
            "registry.invalid/test/etcd-bundle:v0.9.4",
            "registry.invalid/test/etcd-bundle:v0.9.4",
        ),
    ] {
        for args in [
            vec!["bundle", "validate", target],
            vec!["alpha", "bundle", "validate", "-t", target],
        ] {
            let out = Test::new().args(args).run();
            assert_eq!(out.code, 1);
            assert_eq!(out.stdout, "");
            assert!(
                out.stderr
                    .starts_with(&format!("Error: failed to pull image \"{reference}\": ")),
                "{}",
                out.stderr
            );
        }
    }
}

#[test]
fn bundle_validate_usage_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["-b", "buildah"],
            "Error: invalid --image-builder value \"buildah\": must be one of [none, docker, podman]\n",
        ),
        (
            &["-o", "operatorhub,foo"],
            "Error: invalid optional validator \"foo\": must be one or more of [operatorhub, bundle-objects, good-practices]\n",
        ),
        (
            &["--output-format", "yaml"],
            "Error: invalid --output-format value \"yaml\": must be one of [text, json, sarif]\n",
        ),
        (
            &["-t", "bundle"],
            "Error: give the bundle either as an argument or with --tag, not both\n",
        ),
        (&["bundle"], "Error: accepts 1 arg(s), received 2\n"),
    ];
    for (extra, expected) in cases {
        let out = bundle()
            .args(["bundle", "validate", "bundle"])
            .args(extra.iter().copied())
            .run();
        assert_eq!(out.code, 1, "{extra:?}");
        assert_eq!(out.stdout, "", "{extra:?}");
        // The message, then the command's usage (cobra's layout).
        let usage = out.stderr.strip_prefix(expected).unwrap_or_else(|| {
            panic!("{extra:?}: {}", out.stderr);
        });
        assert!(
            usage.starts_with("Usage:\n  opm bundle validate [DIR|IMAGE] [flags]\n\nFlags:\n"),
            "{usage}"
        );
    }
    let out = Test::new().args(["bundle", "validate"]).run();
    assert_eq!(out.code, 1);
    assert!(out.stderr.starts_with(
        "Error: a bundle directory or image is required: opm bundle validate DIR|IMAGE, or --tag\nUsage:\n"
    ));
    let out = bundle()
        .args(["bundle", "validate", "bundle/metadata/annotations.yaml"])
        .run();
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "Error: \"bundle/metadata/annotations.yaml\" is not a directory\n"
    );
}

#[test]
fn bundle_validate_multi_line_messages_stay_with_their_finding() {
    let out = Test::new()
        .copy(
            "testdata/rules/dependency-constraint-cel-invalid/invalid-syntax-error",
            "bundle",
        )
        .args(["bundle", "validate", "bundle"])
        .run()
        .failure(&["Error: Bundle validation errors: 1 error"]);
    let (finding, summary) = out.stderr.rsplit_once("Error: ").unwrap();
    assert_eq!(summary, "Bundle validation errors: 1 error\n");
    assert!(finding.starts_with("bundle/metadata/dependencies.yaml: error[dependency-constraint-cel-invalid]: Invalid CEL expression: "));
    assert!(
        finding.lines().skip(1).all(|line| line.starts_with("    ")),
        "{finding}"
    );
}

#[test]
fn bundle_validate_writes_nothing() {
    let test = Test::new().copy(
        "testdata/rules/dependency-package-invalid/invalid-range-tilde",
        "bundle",
    );
    let before = listing(test.path());
    let out = test.args(["bundle", "validate", "bundle"]).run();
    assert_eq!(out.code, 1);
    assert_eq!(listing(&out.dir), before);
}

fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut paths: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| {
            e.unwrap()
                .path()
                .strip_prefix(dir)
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    paths.sort();
    paths
}
