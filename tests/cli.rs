//! The command line as a whole: help in upstream's (cobra's) layout, usage
//! after argument errors, one error style, removed commands, `version`.

use crate::util::Test;

const GLOBAL_FLAGS: &str = "Global Flags:
      --skip-tls-verify  skip TLS certificate verification for container image registries while pulling bundles
      --use-http         use plain HTTP for container image registries while pulling bundles
";

#[test]
fn help_for_every_command() {
    for (args, usage) in [
        (vec!["--help"], "opm [flags]\n  opm [command]"),
        (vec!["render", "--help"], "opm render <catalog-image | catalog-directory | bundle-image | bundle-directory>... [flags]"),
        (vec!["validate", "--help"], "opm validate <directory> [flags]"),
        (vec!["generate", "--help"], "opm generate [command]"),
        (vec!["generate", "dockerfile", "--help"], "opm generate dockerfile <fbcRootDir> [flags]"),
        (vec!["init", "--help"], "opm init <packageName> [flags]"),
        (vec!["version", "--help"], "opm version [flags]"),
        (vec!["completion", "--help"], "opm completion <bash|elvish|fish|powershell|zsh> [flags]"),
        (vec!["bundle", "build", "-h"], "opm bundle build [DIR [DESTINATION]] [flags]"),
        (vec!["help", "bundle", "unpack"], "opm bundle unpack BUNDLE_NAME[:TAG|@DIGEST] [flags]"),
    ] {
        let out = Test::new().args(args.clone()).run().success();
        assert!(
            out.stdout.contains(&format!("\n\nUsage:\n  {usage}\n\n")),
            "{args:?}: {}",
            out.stdout
        );
        assert!(out.stdout.ends_with(GLOBAL_FLAGS) || out.stdout.contains(&format!("{GLOBAL_FLAGS}\nUse \"")), "{args:?}: {}", out.stdout);
        assert!(!out.stdout.contains("[default: ]"), "{args:?}: {}", out.stdout);
        assert!(!out.stdout.contains("Arguments:"), "{args:?}: {}", out.stdout);
        assert_eq!(out.stderr, "", "{args:?}");
    }
}

/// `opm validate`'s flags: upstream's `-o`, then ours.
const VALIDATE_FLAGS: &str = "  -o, --output <OUTPUT>  Output format: json|yaml (upstream's result) or sarif (every finding); without it, one line per finding (FILE:LINE:COL: severity[rule]: message)
      --list-rules       Print every rule (id, severity, summary) and exit
      --explain <RULE>   Print what a rule checks and exit
      --strict           Treat warnings (upgrade-graph checks beyond upstream's) as errors
  -h, --help             help for validate
";

#[test]
fn validate_help_is_cobra_like() {
    let out = Test::new().args(["validate", "-h"]).run().success();
    assert_eq!(
        out.stdout,
        format!(
            "Validate the declarative config JSON file(s) in a given directory

Usage:
  opm validate <directory> [flags]

Flags:
{VALIDATE_FLAGS}
{GLOBAL_FLAGS}"
        )
    );
    // --help prints the same.
    let long = Test::new().args(["validate", "--help"]).run().success();
    assert_eq!(long.stdout, out.stdout);
}

/// `opm`, `opm bundle`, `opm alpha bundle`, `opm generate`: their help on
/// stdout, exit 0.
#[test]
fn bare_commands_print_their_help() {
    for (args, first_line) in [
        (
            vec![],
            "CLI to interact with operator-registry and build indexes of operator content.\n",
        ),
        (
            vec!["bundle"],
            "Generate operator bundle metadata and build bundle image.\n",
        ),
        (
            vec!["alpha", "bundle"],
            "Generate operator bundle metadata and build bundle image.\n",
        ),
        (
            vec!["generate"],
            "Generate various artifacts for file-based catalogs\n",
        ),
        (
            vec!["help"],
            "CLI to interact with operator-registry and build indexes of operator content.\n",
        ),
    ] {
        let out = Test::new().args(args.clone()).run().success();
        assert!(
            out.stdout.starts_with(first_line),
            "{args:?}: {}",
            out.stdout
        );
        assert!(out.stdout.contains("\nAvailable Commands:\n"), "{args:?}");
        assert_eq!(out.stderr, "", "{args:?}");
    }
    let root = Test::new().run().success();
    assert!(root.stdout.contains("\n  render      Generate a stream of file-based catalog objects from catalogs and bundles\n"));
    assert!(root.stdout.contains("\n      --version  version for opm\n"));
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

/// Upstream's line (Go's `%#v` of `version.Version`) with the real commit,
/// a build date and the toolchain; `--version` prints the same; `-o json`
/// uses upstream's JSON field names.
#[test]
fn version_line() {
    let out = Test::new().args(["version"]).run().success();
    let line = out.stdout.strip_suffix('\n').expect("one line");
    let prefix = format!(
        "Version: version.Version{{OpmVersion:\"v{}\", GitCommit:\"",
        env!("CARGO_PKG_VERSION")
    );
    let rest = line
        .strip_prefix(&prefix)
        .unwrap_or_else(|| panic!("{line}"));
    let (commit, rest) = rest.split_once('"').expect("commit");
    // Built from a git checkout: its commit; from a tarball: "unknown".
    let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".git")
        .exists();
    let hex = commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit());
    if checkout && crate::util::on_path("git") {
        assert!(hex, "{line}");
    } else {
        assert!(hex || commit == "unknown", "{line}");
    }
    let rest = rest.strip_prefix(", BuildDate:\"").expect("build date");
    let (date, rest) = rest.split_once('"').expect("date");
    assert_eq!(date.len(), "2006-01-02T15:04:05Z".len(), "{line}");
    assert!(date.ends_with('Z') && date.as_bytes()[10] == b'T', "{line}");
    assert!(
        rest.starts_with(", GoOs:\"linux\", GoArch:\"") && rest.contains("\", Toolchain:\"rustc "),
        "{line}"
    );
    // The target and how the binary is linked (the tests run the build of
    // the host's target).
    let linking = if cfg!(target_feature = "crt-static") {
        "static"
    } else {
        "dynamic"
    };
    let tail = format!(", Linking:\"{linking}\"}}");
    let target = format!(", Target:\"{}-", std::env::consts::ARCH);
    assert!(rest.contains(&target), "{line}");
    assert!(rest.ends_with(&tail), "{line}");
    assert!(rest.ends_with("\"}"), "{line}");

    let flag = Test::new().args(["--version"]).run().success();
    assert_eq!(flag.stdout, out.stdout);

    let json = Test::new().args(["version", "-o", "json"]).run().success();
    let value: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    let keys: Vec<&str> = value
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "opmVersion",
            "gitCommit",
            "buildDate",
            "goOs",
            "goArch",
            "toolchain",
            "target",
            "linking"
        ]
    );
    assert_eq!(value["gitCommit"], commit);
    assert_eq!(value["buildDate"], date);
}

#[test]
fn completion_scripts() {
    for shell in ["bash", "zsh", "fish"] {
        let out = Test::new().args(["completion", shell]).run().success();
        assert!(out.stdout.contains("opm"), "{shell}");
    }
    // Closed sets of flag values are completed.
    let bash = Test::new().args(["completion", "bash"]).run().success();
    for values in [
        "\"json yaml\"",
        "\"yaml json\"",
        "\"text json sarif\"",
        "\"docker podman buildah none\"",
        "\"none docker podman\"",
        "\"registry+v1 registry+v2 plain+v0\"",
    ] {
        assert!(
            bash.stdout.contains(&format!("compgen -W {values}")),
            "{values}"
        );
    }
}

/// Argument errors: `Error: <message>` then the command's usage on stderr,
/// nothing on stdout, exit 1.
#[test]
fn usage_after_argument_errors() {
    let validate_usage = format!(
        "Usage:
  opm validate <directory> [flags]

Flags:
{VALIDATE_FLAGS}
{GLOBAL_FLAGS}"
    );
    for (args, message) in [
        (vec!["validate"], "accepts 1 arg(s), received 0"),
        (vec!["validate", "a", "b"], "accepts 1 arg(s), received 2"),
        (vec!["validate", "--bogus"], "unknown flag: --bogus"),
        (
            vec!["validate", "-x", "a"],
            "unknown shorthand flag: 'x' in -x",
        ),
        (
            vec!["validate", "a", "-o"],
            "flag needs an argument: --output",
        ),
    ] {
        let out = Test::new().args(args.clone()).run();
        assert_eq!(out.code, 1, "{args:?}");
        assert_eq!(out.stdout, "", "{args:?}");
        assert_eq!(
            out.stderr,
            format!("Error: {message}\n{validate_usage}"),
            "{args:?}"
        );
    }
    for (args, message, usage) in [
        (vec!["render"], "requires at least 1 arg(s), only received 0", "opm render <catalog-image"),
        (vec!["init", "a", "b"], "accepts 1 arg(s), received 2", "opm init <packageName> [flags]"),
        (vec!["version", "extra"], "unknown command \"extra\" for \"opm version\"", "opm version [flags]"),
        (vec!["bundle", "list", "-o", "xml", "x"], "invalid --output value \"xml\": must be one of [yaml, json]", "opm bundle list <DIR|IMAGE> [flags]"),
        (vec!["completion", "nope"], "invalid argument \"nope\" for \"opm completion\": must be one of [bash, elvish, fish, powershell, zsh]", "opm completion <bash|"),
        (vec!["bundle", "generate", "extra", "-d", "x"], "unknown command \"extra\" for \"opm bundle generate\"", "opm bundle generate [flags]"),
        (vec!["alpha", "bundle", "build", "-d", "x"], "required flag(s) \"tag\" not set", "opm alpha bundle build [DIR [DESTINATION]] [flags]"),
    ] {
        let out = Test::new().args(args.clone()).run();
        assert_eq!(out.code, 1, "{args:?}");
        assert!(
            out.stderr.starts_with(&format!("Error: {message}\nUsage:\n  {usage}")),
            "{args:?}: {}",
            out.stderr
        );
    }
}

/// An unknown command gets cobra's message, with a suggestion only when one
/// is close; no usage block.
#[test]
fn unknown_commands() {
    let out = Test::new().args(["no-such-command"]).run();
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "Error: unknown command \"no-such-command\" for \"opm\"\nRun 'opm --help' for usage.\n"
    );
    let out = Test::new().args(["rendr", "x"]).run();
    assert_eq!(
        out.stderr,
        "Error: unknown command \"rendr\" for \"opm\"\n\nDid you mean this?\n\trender\n\nRun 'opm --help' for usage.\n"
    );
    let out = Test::new().args(["help", "nope"]).run();
    assert_eq!(
        out.stderr,
        "Error: unknown command \"nope\" for \"opm\"\nRun 'opm --help' for usage.\n"
    );
    let out = Test::new().args(["alpha", "bundle", "foo"]).run();
    assert_eq!(
        out.stderr,
        "Error: unknown command \"foo\" for \"opm alpha bundle\"\nRun 'opm alpha bundle --help' for usage.\n"
    );
}

/// Commands upstream removed, or that need a cluster, say what to use
/// instead, whatever follows them (even --help).
#[test]
fn removed_commands_say_what_to_use_instead() {
    let out = Test::new()
        .args(["index", "add", "--bundles", "quay.io/x/y:v1"])
        .run();
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "Error: \"opm index add\" is not available: upstream opm removed the \"index\" commands with SQLite catalogs; catalogs are file-based now:
  opm init PACKAGE > catalog/PACKAGE/index.json          # start a package
  opm render BUNDLE_IMAGE >> catalog/PACKAGE/index.json  # add a bundle, then list it in a channel
  opm alpha render-template basic|semver TEMPLATE        # or write the catalog from a template
  opm validate catalog                                   # check it
  opm generate dockerfile catalog                        # build its image
  opm render INDEX_IMAGE                                 # read an existing catalog image
"
    );
    for (args, start) in [
        (vec!["registry", "serve", "--help"], "Error: \"opm registry serve\" is not available: upstream opm removed the \"registry\" commands with SQLite catalogs; catalogs are file-based now:\n  opm serve CATALOG_DIR"),
        (vec!["--use-http", "index"], "Error: \"opm index\" is not available"),
        (vec!["alpha", "bundle", "extract", "-m", "/"], "Error: \"opm alpha bundle extract\" is not available: it runs inside OLM's bundle-unpack Job and writes the bundle into a ConfigMap of the cluster; to look at a bundle here:\n  opm bundle unpack IMAGE    # its files\n  opm bundle list DIR|IMAGE  # the objects OLM applies\n"),
        (vec!["bundle", "extract"], "Error: \"opm bundle extract\" is not available: it runs inside"),
        (vec!["alpha", "generate", "dockerfile", "catalog"], "Error: \"opm alpha generate dockerfile\" is not available: it left alpha: use opm generate dockerfile CATALOG_DIR\n"),
    ] {
        let out = Test::new().args(args.clone()).run();
        assert_eq!(out.code, 1, "{args:?}");
        assert!(out.stderr.starts_with(start), "{args:?}: {}", out.stderr);
        assert!(!out.stderr.contains("similar"), "{args:?}");
    }
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
