use crate::util::Test;

#[test]
fn help_for_every_command() {
    for args in [
        vec!["--help"],
        vec!["render", "--help"],
        vec!["validate", "--help"],
        vec!["generate", "--help"],
        vec!["generate", "dockerfile", "--help"],
        vec!["init", "--help"],
        vec!["version", "--help"],
        vec!["completion", "--help"],
    ] {
        let out = Test::new().args(args.clone()).run().success();
        assert!(
            out.stdout.contains("Usage: opm"),
            "{args:?}: {}",
            out.stdout
        );
    }
}

#[test]
fn alpha_flags_hidden_unless_asked_for() {
    let out = Test::new().args(["render", "--help"]).run().success();
    assert!(!out.stdout.contains("alpha-image-ref-template"));
    let out = Test::new()
        .env("HELP_ALPHA", "true")
        .args(["render", "--help"])
        .run()
        .success();
    assert!(out.stdout.contains("alpha-image-ref-template"));
}

#[test]
fn version_line() {
    let out = Test::new().args(["version"]).run().success();
    assert!(
        out.stdout
            .starts_with("Version: version.Version{OpmVersion:\"v"),
        "{}",
        out.stdout
    );
}

#[test]
fn completion_scripts() {
    for shell in ["bash", "zsh", "fish"] {
        let out = Test::new().args(["completion", shell]).run().success();
        assert!(out.stdout.contains("opm"), "{shell}");
    }
}

#[test]
fn usage_errors_exit_1() {
    Test::new()
        .args(["no-such-command"])
        .run()
        .failure(&["unrecognized subcommand"]);
    Test::new()
        .args(["render", "--bogus"])
        .run()
        .failure(&["--bogus"]);
}

#[test]
fn transport_flag_combinations() {
    Test::new()
        .dir("catalog")
        .args(["render", "catalog", "--use-http", "--skip-tls-verify"])
        .run()
        .failure(&[
            "invalid flag combination: --use-http and --skip-tls-verify cannot both be true",
        ]);
    Test::new()
        .dir("catalog")
        .args(["render", "catalog", "--use-http", "--skip-tls"])
        .run()
        .failure(&["invalid flag combination: cannot use --use-http with --skip-tls"]);
}
