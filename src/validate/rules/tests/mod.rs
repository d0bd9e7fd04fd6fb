//! Table-driven tests of every rule on small hand-built catalogs, plus the gathering and
//! suppression behaviour of the whole validation.

use crate::declcfg::{
    Bundle, Channel, ChannelEntry, DeclarativeConfig, Deprecation, DeprecationEntry, Package,
    PackageScopedReference, Property, RelatedImage,
};
use crate::diag::Subject;
use crate::validate::registry::{self, ALL};
use crate::validate::rule::{Rule, Scope};
use crate::validate::{validate_catalog, validate_with};
use serde_json::json;

mod cases;
use cases::{single_problem_cases, warning_cases};

fn package(name: &str, default_channel: &str) -> Package {
    Package {
        name: name.into(),
        default_channel: default_channel.into(),
        ..Package::default()
    }
}

fn entry(name: &str, replaces: &str) -> ChannelEntry {
    ChannelEntry {
        name: name.into(),
        replaces: replaces.into(),
        ..ChannelEntry::default()
    }
}

fn channel(package: &str, name: &str, entries: Vec<ChannelEntry>) -> Channel {
    Channel {
        name: name.into(),
        package: package.into(),
        entries: Some(entries),
        ..Channel::default()
    }
}

fn package_property(package: &str, version: &str) -> Property {
    Property::new(
        "olm.package",
        json!({"packageName": package, "version": version}),
    )
}

fn bundle(package: &str, name: &str, version: &str) -> Bundle {
    Bundle {
        name: name.into(),
        package: package.into(),
        image: format!("quay.io/example/{package}-bundle:v{version}"),
        properties: vec![package_property(package, version)],
        ..Bundle::default()
    }
}

fn deprecation(package: &str, entries: &[(&str, &str, &str)]) -> Deprecation {
    Deprecation {
        package: package.into(),
        entries: Some(
            entries
                .iter()
                .map(|(schema, name, message)| DeprecationEntry {
                    reference: PackageScopedReference {
                        schema: schema.to_string(),
                        name: name.to_string(),
                    },
                    message: message.to_string(),
                })
                .collect(),
        ),
        origin: None,
    }
}

/// Package `foo` (default `stable`) with `stable: foo.v1.0.0 <- foo.v2.0.0` and both blobs.
fn valid() -> DeclarativeConfig {
    DeclarativeConfig {
        packages: vec![package("foo", "stable")],
        channels: vec![channel(
            "foo",
            "stable",
            vec![entry("foo.v1.0.0", ""), entry("foo.v2.0.0", "foo.v1.0.0")],
        )],
        bundles: vec![
            bundle("foo", "foo.v1.0.0", "1.0.0"),
            bundle("foo", "foo.v2.0.0", "2.0.0"),
        ],
        ..DeclarativeConfig::default()
    }
}

fn with(change: impl FnOnce(&mut DeclarativeConfig)) -> DeclarativeConfig {
    let mut cfg = valid();
    change(&mut cfg);
    cfg
}

fn tree(lines: &[&str]) -> String {
    lines.join("\n")
}

#[test]
fn valid_catalog_passes() {
    let verdict = validate_catalog(&valid());
    assert!(verdict.passed());
    assert_eq!(verdict.message(), None);
    assert!(verdict.diagnostics.is_empty());
}

#[test]
fn single_problem_catalogs_give_upstream_text() {
    for (name, cfg, rule, message) in single_problem_cases() {
        let verdict = validate_catalog(&cfg);
        assert!(!verdict.passed(), "{name}");
        assert_eq!(
            verdict.message().as_deref(),
            Some(message.as_str()),
            "{name}"
        );
        let rules: Vec<&str> = verdict
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.rule)
            .collect();
        assert_eq!(rules, vec![rule], "{name}");
    }
}

#[test]
fn each_rule_alone_finds_its_problem() {
    for (name, cfg, rule, _) in single_problem_cases() {
        let only: Vec<&Rule> = registry::find(rule).into_iter().collect();
        let verdict = validate_with(&cfg, &only);
        assert!(!verdict.diagnostics.is_empty(), "{name}");
        assert!(verdict.diagnostics.iter().all(|d| d.rule == rule), "{name}");
        assert!(
            validate_with(&valid(), &only).passed(),
            "{name}: valid catalog"
        );
    }
}

#[test]
fn warnings_do_not_fail_and_stay_out_of_upstreams_text() {
    for (name, cfg, rule) in warning_cases() {
        let verdict = validate_catalog(&cfg);
        assert!(verdict.passed(), "{name}: {:?}", verdict.diagnostics);
        assert_eq!(verdict.message(), None, "{name}");
        assert!(
            !verdict.diagnostics.is_empty() && verdict.diagnostics.iter().all(|d| d.rule == rule),
            "{name}: {:?}",
            verdict.diagnostics
        );
        // --strict makes them errors, in the tree.
        let strict = crate::validate::validate_converted_with(
            &crate::model::convert::convert(cfg.clone()),
            ALL,
            true,
        );
        assert!(!strict.passed(), "{name}");
        assert!(
            strict
                .message()
                .is_some_and(|m| m.starts_with("invalid index:")),
            "{name}"
        );
    }
}

#[test]
fn every_reachable_rule_has_a_case() {
    let covered: Vec<&str> = single_problem_cases()
        .into_iter()
        .map(|case| case.2)
        .chain(warning_cases().into_iter().map(|case| case.2))
        .chain(["channel-heads-ambiguous"])
        .collect();
    // Checks that catalog files cannot trigger (conversion catches them first).
    let unreachable = [
        "package-name-empty",
        "package-no-channels",
        "package-default-channel-not-found",
        "channel-name-empty",
        "bundle-properties-unparsable",
        "bundle-package-property-not-unique",
    ];
    for rule in ALL {
        assert!(
            covered.contains(&rule.id) || unreachable.contains(&rule.id),
            "no case for {}",
            rule.id
        );
    }
}

#[test]
fn package_without_channels() {
    let cfg = DeclarativeConfig {
        packages: vec![package("foo", "")],
        ..DeclarativeConfig::default()
    };
    assert_eq!(
        validate_catalog(&cfg).message().as_deref(),
        Some(
            tree(&[
                "invalid index:",
                "└── invalid package \"foo\":",
                "    ├── default channel must be set",
                "    └── package must contain at least one channel",
            ])
            .as_str()
        )
    );
}

#[test]
fn every_conversion_problem_is_gathered_in_check_order() {
    let cfg = DeclarativeConfig {
        packages: vec![package("foo", "stable"), package("foo", "stable")],
        channels: vec![
            channel(
                "foo",
                "stable",
                vec![entry("foo.v1.0.0", ""), entry("foo.v2.0.0", "foo.v1.0.0")],
            ),
            channel("bar", "beta", vec![]),
        ],
        bundles: vec![
            bundle("foo", "foo.v1.0.0", "1.0"),
            Bundle {
                image: "quay.io/Foo/foo:v1".into(),
                ..bundle("foo", "foo.v2.0.0", "2.0.0")
            },
        ],
        deprecations: vec![deprecation("baz", &[])],
        ..DeclarativeConfig::default()
    };
    let verdict = validate_catalog(&cfg);
    let expected = [
        "duplicate package \"foo\"",
        "unknown package \"bar\" for channel \"beta\"",
        "error parsing bundle \"foo.v1.0.0\" version \"1.0\": No Major.Minor.Patch elements found",
        "package \"foo\" bundle \"foo.v2.0.0\" image: invalid image pull spec \"quay.io/Foo/foo:v1\": invalid reference format: repository name must be lowercase",
        "cannot apply deprecations to an unknown package \"baz\"",
    ];
    assert_eq!(
        verdict.message().as_deref(),
        Some(expected.join("\n").as_str())
    );
}

#[test]
fn conversion_problems_come_before_the_tree_of_clean_packages() {
    let cfg = with(|cfg| {
        cfg.packages.push(package("bar", ""));
        cfg.channels
            .push(channel("bar", "x", vec![entry("bar.v1.0.0", "")]));
        cfg.bundles.push(bundle("bar", "bar.v1.0.0", "1.0.0"));
        // A problem in foo's conversion and one in foo's model: only the first is shown.
        cfg.bundles[0].image = "quay.io/foo/foo:bad tag".into();
        cfg.bundles[1].image.clear();
    });
    let verdict = validate_catalog(&cfg);
    let expected = tree(&[
        "package \"foo\" bundle \"foo.v1.0.0\" image: invalid image pull spec \"quay.io/foo/foo:bad tag\": invalid reference format",
        "invalid index:",
        "└── invalid package \"bar\":",
        "    └── default channel must be set",
    ]);
    assert_eq!(verdict.message().as_deref(), Some(expected.as_str()));
    let subjects: Vec<&Subject> = verdict.diagnostics.iter().map(|d| &d.subject).collect();
    assert_eq!(
        subjects,
        vec![
            &Subject::Bundle {
                package: "foo".into(),
                name: "foo.v1.0.0".into()
            },
            &Subject::Package { name: "bar".into() },
        ]
    );
}

#[test]
fn missing_blob_entries_do_not_add_graph_problems() {
    let cfg = with(|cfg| {
        if let Some(entries) = cfg.channels[0].entries.as_mut() {
            entries.push(entry("foo.v0.5.0", ""));
        }
    });
    assert_eq!(
        validate_catalog(&cfg).message().as_deref(),
        Some("no olm.bundle blobs found in package \"foo\" for olm.channel entries [foo.v0.5.0]")
    );
}

#[test]
fn model_tree_is_sorted_and_bundles_repeat_per_channel() {
    let cfg = DeclarativeConfig {
        packages: vec![package("zed", "stable"), package("abc", "")],
        channels: vec![
            channel("zed", "stable", vec![entry("zed.v1.0.0", "")]),
            channel("zed", "beta", vec![entry("zed.v1.0.0", "")]),
            channel("abc", "x", vec![entry("abc.v1.0.0", "abc.v1.0.0")]),
        ],
        bundles: vec![
            Bundle {
                image: String::new(),
                ..bundle("zed", "zed.v1.0.0", "1.0.0")
            },
            bundle("abc", "abc.v1.0.0", "1.0.0"),
        ],
        ..DeclarativeConfig::default()
    };
    let verdict = validate_catalog(&cfg);
    let expected = tree(&[
        "invalid index:",
        "├── invalid package \"abc\":",
        "│   ├── default channel must be set",
        "│   └── invalid channel \"x\":",
        "│       └── no channel head found in graph",
        "└── invalid package \"zed\":",
        "    ├── invalid channel \"beta\":",
        "    │   └── invalid bundle \"zed.v1.0.0\":",
        "    │       └── bundle image must be set",
        "    └── invalid channel \"stable\":",
        "        └── invalid bundle \"zed.v1.0.0\":",
        "            └── bundle image must be set",
    ]);
    assert_eq!(verdict.message().as_deref(), Some(expected.as_str()));
    let image_findings = verdict
        .diagnostics
        .iter()
        .filter(|d| d.rule == "bundle-image-unset")
        .count();
    assert_eq!(image_findings, 1, "a bundle's finding is listed once");
}

#[test]
fn bundle_objects_stand_in_for_an_image() {
    let cfg = with(|cfg| {
        cfg.bundles[0].image.clear();
        cfg.bundles[0]
            .properties
            .push(Property::new("olm.bundle.object", json!({"data": "e30="})));
    });
    assert!(validate_catalog(&cfg).passed());
}

#[test]
fn versions_differing_in_build_metadata_are_distinct() {
    let cfg = with(|cfg| {
        cfg.bundles[0].properties = vec![package_property("foo", "1.0.0+a")];
        cfg.bundles[1].properties = vec![package_property("foo", "1.0.0+b")];
    });
    assert!(validate_catalog(&cfg).passed());
}

#[test]
fn scopes_partition_the_registry() {
    let conversion = ALL
        .iter()
        .filter(|rule| rule.scope() == Scope::Conversion)
        .count();
    assert_eq!(conversion, crate::model::convert::rule::ALL.len());
}

#[test]
fn odd_catalogs_never_panic() {
    let cfg = DeclarativeConfig {
        packages: vec![package("", ""), package("a", "a"), package("a", "")],
        channels: vec![
            Channel {
                entries: None,
                ..channel("a", "a", vec![])
            },
            channel("a", "", vec![entry("", ""), entry("", "")]),
            channel("", "", vec![]),
        ],
        bundles: vec![
            Bundle {
                properties: vec![Property {
                    kind: String::new(),
                    value: None,
                }],
                ..bundle("a", "", "")
            },
            Bundle {
                properties: vec![Property::new("olm.package", json!(null))],
                ..bundle("a", "x", "")
            },
        ],
        deprecations: vec![Deprecation {
            entries: None,
            ..deprecation("a", &[])
        }],
        ..DeclarativeConfig::default()
    };
    let verdict = validate_catalog(&cfg);
    assert!(!verdict.passed());
    assert!(verdict.message().is_some());
}

/// Validation of a catalog loaded with its payload left behind (`opm validate`, `opm serve`)
/// finds exactly what it finds with the payload kept: CSV metadata that decodes, bundle
/// objects and icon data are left behind, CSV metadata that does not decode is kept and
/// reported.
#[test]
fn leaving_the_payload_behind_changes_no_finding() {
    use crate::declcfg::load::{load_dir, BundleObjects};
    use crate::validate::Outcome;
    let dir = tempfile::tempdir().expect("temporary directory");
    let catalog = "schema: olm.package\nname: a\ndefaultChannel: stable\nicon:\n  base64data: aWNvbg==\n  mediatype: image/png\n---\nschema: olm.channel\npackage: a\nname: stable\nentries:\n- name: a.v1\n- name: a.v2\n  replaces: a.v1\n---\nschema: olm.bundle\nname: a.v1\npackage: a\nimage: x\nproperties:\n- type: olm.package\n  value: {packageName: a, version: 1.0.0}\n- type: olm.csv.metadata\n  value: {displayName: A, keywords: [k]}\n---\nschema: olm.bundle\nname: a.v2\npackage: a\nproperties:\n- type: olm.package\n  value: {packageName: a, version: 2.0.0}\n- type: olm.csv.metadata\n  value: {installModes: [{type: OwnNamespace, supported: 'yes'}]}\n- type: olm.bundle.object\n  value: {data: eyJhIjoxfQ==}\n";
    std::fs::write(dir.path().join("a.yaml"), catalog).expect("write the catalog");
    let outcome = |objects| Outcome::of(load_dir(dir.path(), "c", objects), false);
    let (kept, dropped) = (outcome(BundleObjects::Keep), outcome(BundleObjects::Drop));
    let message = kept.message().expect("a.v2's CSV metadata does not decode");
    assert!(
        message.contains("InstallMode.installModes.supported"),
        "{message}"
    );
    assert_eq!(dropped.message(), kept.message());
    assert_eq!(dropped.findings(), kept.findings());
}
