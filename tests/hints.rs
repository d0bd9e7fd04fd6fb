//! The next step, said after an error where it is obvious: bundles given
//! where a catalog goes, a bundle root given as its manifests directory, a
//! bundle without manifests and without a media type.

use crate::util::Test;

const BUNDLE: &str = "testdata/rules/annotations-missing/valid-all-labels";

/// A bundle at `bundle/` and two more under `bundles/etcd/`.
fn bundles() -> Test {
    Test::new()
        .copy(BUNDLE, "bundle")
        .copy(BUNDLE, "bundles/etcd/0.9.4")
        .copy(BUNDLE, "bundles/etcd/0.9.5")
}

/// The last stderr line of a failed run.
fn hint_line(test: Test) -> String {
    let out = test.run().failure(&["Error: "]);
    assert_eq!(out.stdout, "");
    out.stderr.lines().last().expect("a line").to_string()
}

#[test]
fn render_of_bundles_says_what_to_render() {
    assert_eq!(
        hint_line(bundles().args(["render", "bundles"])),
        "hint: bundles holds bundle directories, not a file-based catalog: render the bundles (opm render bundles/etcd/0.9.4 bundles/etcd/0.9.5)"
    );
    assert_eq!(
        hint_line(bundles().args(["render", "bundle/manifests"])),
        "hint: bundle/manifests is a bundle's manifests directory: render the bundle instead (opm render bundle)"
    );
    // A bundle directory renders.
    bundles().args(["render", "bundle"]).run().success();
}

#[test]
fn validate_of_bundles_says_what_to_check() {
    assert_eq!(
        hint_line(bundles().args(["validate", "bundle"])),
        "hint: bundle is a bundle directory, not a file-based catalog: check it with opm bundle validate bundle"
    );
    assert_eq!(
        hint_line(bundles().args(["validate", "bundle/manifests"])),
        "hint: bundle/manifests is a bundle's manifests directory: check the bundle with opm bundle validate bundle"
    );
    assert_eq!(
        hint_line(bundles().args(["validate", "bundles"])),
        "hint: bundles holds bundle directories, not a file-based catalog: check each with opm bundle validate (opm bundle validate bundles/etcd/0.9.4)"
    );
    // Structured output stays as it is.
    let out = bundles().args(["validate", "bundle", "-o", "json"]).run();
    assert_eq!(out.code, 1);
    assert!(!out.stderr.contains("hint:"), "{}", out.stderr);
}

#[test]
fn a_bundle_root_given_as_manifests_directory() {
    for args in [
        vec!["bundle", "generate", "-d", "bundle"],
        vec![
            "bundle", "build", "-d", "bundle", "-t", "x/y:v1", "-b", "none",
        ],
    ] {
        let out = bundles()
            .args(args.clone())
            .args(["-p", "etcd", "-c", "alpha"])
            .run()
            .failure(&[]);
        let hint = "hint: bundle is a bundle directory: did you mean -d bundle/manifests?\n";
        assert!(out.stderr.ends_with(hint), "{args:?}: {}", out.stderr);
        assert!(!out.exists("bundle.Dockerfile"), "{args:?}");
    }
}

#[test]
fn bundle_init_without_manifests_asks_for_a_media_type() {
    let out = Test::new().args(["bundle", "init"]).run();
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "Error: unable to infer mediatype when no manifests are present\n\
         hint: give the media type: -m registry+v1, -m registry+v2 or -m plain+v0 (defaults are generated for it)\n"
    );
}
