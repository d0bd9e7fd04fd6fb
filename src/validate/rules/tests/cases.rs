//! The cases of the table-driven tests: catalogs with exactly one problem, and
//! catalogs that draw exactly one warning.

use super::*;

/// `(case, catalog, rule id, exact message)`.
pub(super) type ProblemCase = (&'static str, DeclarativeConfig, &'static str, String);

/// Catalogs with exactly one problem each, so that the message is upstream's byte for byte.
pub(super) fn single_problem_cases() -> Vec<ProblemCase> {
    let stable_tree = |line: &str| {
        tree(&[
            "invalid index:",
            "└── invalid package \"foo\":",
            "    └── invalid channel \"stable\":",
            &format!("        └── {line}"),
        ])
    };
    let bundle_tree = |bundle: &str, line: &str| {
        tree(&[
            "invalid index:",
            "└── invalid package \"foo\":",
            "    └── invalid channel \"stable\":",
            &format!("        └── invalid bundle \"{bundle}\":"),
            &format!("            └── {line}"),
        ])
    };
    vec![
        (
            "error/package-name-missing",
            with(|cfg| cfg.packages.push(package("", "stable"))),
            "package-name-missing",
            "config contains package with no name".into(),
        ),
        (
            "error/package-duplicate",
            with(|cfg| cfg.packages.push(package("foo", "stable"))),
            "package-duplicate",
            "duplicate package \"foo\"".into(),
        ),
        (
            "error/package-name-invalid-skips-its-blobs",
            DeclarativeConfig {
                packages: vec![package("Foo_Bar", "stable")],
                channels: vec![channel("Foo_Bar", "stable", vec![entry("x", "")])],
                bundles: vec![Bundle {
                    image: "quay.io/Foo_Bar:bad tag".into(),
                    ..bundle("Foo_Bar", "x", "not-a-version")
                }],
                deprecations: vec![deprecation("Foo_Bar", &[("olm.thing", "", "")])],
                ..DeclarativeConfig::default()
            },
            "package-name-invalid",
            "invalid package name \"Foo_Bar\": [a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]".into(),
        ),
        (
            "error/channel-package-unknown",
            with(|cfg| cfg.channels.push(channel("bar", "beta", vec![]))),
            "channel-package-unknown",
            "unknown package \"bar\" for channel \"beta\"".into(),
        ),
        (
            "error/channel-name-missing-keeps-bundles-quiet",
            with(|cfg| {
                cfg.channels.push(channel("foo", "", vec![entry("foo.v3.0.0", "foo.v2.0.0")]));
                cfg.bundles.push(bundle("foo", "foo.v3.0.0", "3.0.0"));
            }),
            "channel-name-missing",
            "package \"foo\" contains channel with no name".into(),
        ),
        (
            "error/channel-duplicate",
            with(|cfg| cfg.channels.push(channel("foo", "stable", vec![entry("foo.v1.0.0", "")]))),
            "channel-duplicate",
            "package \"foo\" has duplicate channel \"stable\"".into(),
        ),
        (
            "error/channel-duplicate-entry",
            with(|cfg| {
                if let Some(entries) = cfg.channels[0].entries.as_mut() {
                    entries.push(entry("foo.v1.0.0", ""));
                    entries.push(entry("foo.v1.0.0", ""));
                }
            }),
            "channel-duplicate-entry",
            "invalid package \"foo\", channel \"stable\": duplicate entry \"foo.v1.0.0\"".into(),
        ),
        (
            "error/bundle-package-missing",
            with(|cfg| cfg.bundles.push(bundle("", "orphan.v1.0.0", "1.0.0"))),
            "bundle-package-missing",
            "package name must be set for bundle \"orphan.v1.0.0\"".into(),
        ),
        (
            "error/bundle-package-unknown",
            with(|cfg| cfg.bundles.push(bundle("bar", "bar.v1.0.0", "1.0.0"))),
            "bundle-package-unknown",
            "unknown package \"bar\" for bundle \"bar.v1.0.0\"".into(),
        ),
        (
            "error/bundle-duplicate",
            with(|cfg| cfg.bundles.push(bundle("foo", "foo.v1.0.0", "1.0.0"))),
            "bundle-duplicate",
            "package \"foo\" has duplicate bundle \"foo.v1.0.0\"".into(),
        ),
        (
            "error/bundle-properties-invalid",
            with(|cfg| cfg.bundles[0].properties.push(Property::new("olm.gvk", json!("x")))),
            "bundle-properties-invalid",
            "parse properties for bundle \"foo.v1.0.0\": parse property[1] of type \"olm.gvk\": json: cannot unmarshal string into Go value of type property.GVK".into(),
        ),
        (
            "error/bundle-package-property-count",
            with(|cfg| cfg.bundles[0].properties.clear()),
            "bundle-package-property-count",
            "package \"foo\" bundle \"foo.v1.0.0\" must have exactly 1 \"olm.package\" property, found 0".into(),
        ),
        (
            "error/bundle-package-property-mismatch",
            with(|cfg| cfg.bundles[0].properties = vec![package_property("bar", "1.0.0")]),
            "bundle-package-property-mismatch",
            "package \"foo\" does not match \"olm.package\" property \"bar\"".into(),
        ),
        (
            "error/bundle-image-invalid",
            with(|cfg| cfg.bundles[0].image = "quay.io/foo/foo:bad tag".into()),
            "bundle-image-invalid",
            "package \"foo\" bundle \"foo.v1.0.0\" image: invalid image pull spec \"quay.io/foo/foo:bad tag\": invalid reference format".into(),
        ),
        (
            "error/bundle-related-image-invalid",
            with(|cfg| {
                cfg.bundles[0].related_images = vec![
                    RelatedImage { name: "ok".into(), image: "quay.io/foo/op:v1".into() },
                    RelatedImage { name: "bad".into(), image: "quay.io/foo/op::v1".into() },
                ];
            }),
            "bundle-image-invalid",
            "package \"foo\" bundle \"foo.v1.0.0\" relatedImages[1].image: invalid image pull spec \"quay.io/foo/op::v1\": invalid reference format".into(),
        ),
        (
            "error/bundle-version-invalid",
            with(|cfg| cfg.bundles[0].properties = vec![package_property("foo", "1.0")]),
            "bundle-version-invalid",
            "error parsing bundle \"foo.v1.0.0\" version \"1.0\": No Major.Minor.Patch elements found".into(),
        ),
        (
            "error/bundle-release-invalid",
            with(|cfg| {
                cfg.bundles[0].properties = vec![Property::new(
                    "olm.package",
                    json!({"packageName": "foo", "version": "1.0.0", "release": "01"}),
                )];
            }),
            "bundle-release-invalid",
            "error parsing bundle \"foo.v1.0.0\" release version \"01\": invalid release \"01\": segment 0: Numeric PreRelease version must not contain leading zeroes \"01\"".into(),
        ),
        (
            "error/bundle-not-in-channel",
            with(|cfg| cfg.bundles.push(bundle("foo", "foo.v3.0.0", "3.0.0"))),
            "bundle-not-in-channel",
            "package \"foo\", bundle \"foo.v3.0.0\" not found in any channel entries".into(),
        ),
        (
            "error/channel-entry-bundle-missing-in-earlier-channel",
            with(|cfg| {
                cfg.channels.insert(0, channel("foo", "alpha", vec![entry("foo.v9.0.0", "")]));
            }),
            "channel-entry-bundle-missing",
            "no olm.bundle blobs found in package \"foo\" for olm.channel entries [foo.v9.0.0]".into(),
        ),
        (
            "error/deprecation-package-missing",
            with(|cfg| cfg.deprecations.push(deprecation("", &[]))),
            "deprecation-package-missing",
            "package name must be set for deprecation item 0".into(),
        ),
        (
            "error/deprecation-package-unknown",
            with(|cfg| cfg.deprecations.push(deprecation("bar", &[]))),
            "deprecation-package-unknown",
            "cannot apply deprecations to an unknown package \"bar\"".into(),
        ),
        (
            "error/deprecation-duplicate",
            with(|cfg| {
                cfg.deprecations.push(deprecation("foo", &[]));
                cfg.deprecations.push(deprecation("foo", &[]));
            }),
            "deprecation-duplicate",
            "expected a maximum of one deprecation per package: \"foo\"".into(),
        ),
        (
            "error/deprecation-entry-schema-missing",
            with(|cfg| {
                cfg.deprecations.push(deprecation("foo", &[("olm.package", "", "m"), ("", "x", "m")]));
            }),
            "deprecation-entry-schema-missing",
            "schema must be set for deprecation entry [1] for package \"foo\"".into(),
        ),
        (
            "error/deprecation-entry-duplicate",
            with(|cfg| {
                cfg.deprecations.push(deprecation(
                    "foo",
                    &[("olm.bundle", "foo.v1.0.0", "m"), ("olm.bundle", "foo.v1.0.0", "again")],
                ));
            }),
            "deprecation-entry-duplicate",
            "duplicate deprecation entry {schema: \"olm.bundle\", name: \"foo.v1.0.0\"} for package \"foo\"".into(),
        ),
        (
            "error/deprecation-bundle-unknown",
            with(|cfg| cfg.deprecations.push(deprecation("foo", &[("olm.bundle", "foo.v3.0.0", "m")]))),
            "deprecation-bundle-unknown",
            "cannot deprecate bundle \"foo.v3.0.0\" for package \"foo\": bundle not found".into(),
        ),
        (
            "error/deprecation-channel-unknown",
            with(|cfg| cfg.deprecations.push(deprecation("foo", &[("olm.channel", "fast", "m")]))),
            "deprecation-channel-unknown",
            "cannot deprecate channel \"fast\" for package \"foo\": channel not found".into(),
        ),
        (
            "error/deprecation-package-reference-named",
            with(|cfg| cfg.deprecations.push(deprecation("foo", &[("olm.package", "foo", "m")]))),
            "deprecation-package-reference-named",
            "package name must be empty for deprecated package \"foo\" (specified \"foo\")".into(),
        ),
        (
            "error/deprecation-schema-unknown",
            with(|cfg| cfg.deprecations.push(deprecation("foo", &[("olm.thing", "x", "m")]))),
            "deprecation-schema-unknown",
            "cannot deprecate object {schema: \"olm.thing\", name: \"x\"} referenced by entry 0 for package \"foo\": object schema unknown".into(),
        ),
        (
            "error/package-default-channel-unset",
            with(|cfg| cfg.packages[0].default_channel.clear()),
            "package-default-channel-unset",
            tree(&["invalid index:", "└── invalid package \"foo\":", "    └── default channel must be set"]),
        ),
        (
            "error/package-default-channel-created-empty",
            with(|cfg| cfg.packages[0].default_channel = "nope".into()),
            "channel-no-bundles",
            tree(&[
                "invalid index:",
                "└── invalid package \"foo\":",
                "    └── invalid channel \"nope\":",
                "        └── channel must contain at least one bundle",
            ]),
        ),
        (
            "error/package-duplicate-versions",
            with(|cfg| {
                if let Some(entries) = cfg.channels[0].entries.as_mut() {
                    entries.push(entry("foo.v2.0.0-copy", "foo.v2.0.0"));
                }
                cfg.bundles.push(bundle("foo", "foo.v2.0.0-copy", "2.0.0"));
            }),
            "package-duplicate-versions",
            tree(&[
                "invalid index:",
                "└── invalid package \"foo\":",
                "    └── duplicate versions found in bundles: [{2.0.0: [foo.v2.0.0, foo.v2.0.0-copy]}]",
            ]),
        ),
        (
            "error/package-deprecation-message-empty",
            with(|cfg| cfg.deprecations.push(deprecation("foo", &[("olm.package", "", "")]))),
            "package-deprecation-message-empty",
            tree(&["invalid index:", "└── invalid package \"foo\":", "    └── invalid deprecation: message must be set"]),
        ),
        (
            "error/channel-graph-invalid-no-head",
            with(|cfg| cfg.channels[0].entries = Some(vec![entry("foo.v1.0.0", "foo.v2.0.0"), entry("foo.v2.0.0", "foo.v1.0.0")])),
            "channel-graph-invalid",
            stable_tree("no channel head found in graph"),
        ),
        (
            "error/channel-graph-invalid-stranded",
            with(|cfg| {
                cfg.channels[0].entries = Some(vec![
                    entry("foo.v1.0.0", ""),
                    entry("foo.v2.0.0", "foo.v1.0.0"),
                    ChannelEntry { skips: vec!["foo.v2.0.0".into()], ..entry("foo.v3.0.0", "foo.v2.0.0") },
                ]);
                cfg.bundles.push(bundle("foo", "foo.v3.0.0", "3.0.0"));
            }),
            "channel-graph-invalid",
            stable_tree("channel contains one or more stranded bundles: foo.v1.0.0"),
        ),
        (
            "error/channel-deprecation-message-empty",
            with(|cfg| cfg.deprecations.push(deprecation("foo", &[("olm.channel", "stable", "")]))),
            "channel-deprecation-message-empty",
            stable_tree("invalid deprecation: message must be set"),
        ),
        (
            "error/bundle-skip-empty",
            with(|cfg| {
                if let Some(entries) = cfg.channels[0].entries.as_mut() {
                    entries[1].skips = vec!["foo.v0.1.0".into(), String::new()];
                }
            }),
            "bundle-skip-empty",
            bundle_tree("foo.v2.0.0", "skip[1] is empty"),
        ),
        (
            "error/bundle-skip-range-invalid",
            with(|cfg| {
                if let Some(entries) = cfg.channels[0].entries.as_mut() {
                    entries[1].skip_range = ">v0.1.0".into();
                }
            }),
            "bundle-skip-range-invalid",
            bundle_tree(
                "foo.v2.0.0",
                "invalid skipRange \">v0.1.0\": Could not parse Range \">v0.1.0\": Could not parse comparator \">v\" in \">v0.1.0\"",
            ),
        ),
        (
            "error/bundle-image-unset",
            with(|cfg| cfg.bundles[0].image.clear()),
            "bundle-image-unset",
            bundle_tree("foo.v1.0.0", "bundle image must be set"),
        ),
        (
            "error/bundle-deprecation-message-empty",
            with(|cfg| cfg.deprecations.push(deprecation("foo", &[("olm.bundle", "foo.v1.0.0", "")]))),
            "bundle-deprecation-message-empty",
            bundle_tree("foo.v1.0.0", "invalid deprecation: message must be set"),
        ),
        (
            "error/bundle-name-not-normalized",
            with(|cfg| {
                cfg.bundles[0].properties = vec![Property::new(
                    "olm.package",
                    json!({"packageName": "foo", "version": "1.0.0", "release": "2"}),
                )];
            }),
            "bundle-name-not-normalized",
            bundle_tree("foo.v1.0.0", "name \"foo.v1.0.0\" does not match normalized name \"foo-v1.0.0-2\""),
        ),
        (
            "error/bundle-build-metadata-with-release",
            {
                let name = "foo-v1.0.0+b1-2";
                let mut cfg = with(|cfg| {
                    cfg.channels[0].entries = Some(vec![entry(name, "")]);
                    cfg.bundles.truncate(1);
                });
                cfg.bundles[0].name = name.into();
                cfg.bundles[0].properties = vec![Property::new(
                    "olm.package",
                    json!({"packageName": "foo", "version": "1.0.0+b1", "release": "2"}),
                )];
                cfg
            },
            "bundle-build-metadata-with-release",
            bundle_tree("foo-v1.0.0+b1-2", "cannot use build metadata in version with a release version"),
        ),
        (
            "error/bundle-name-empty",
            {
                let mut cfg = with(|cfg| {
                    cfg.channels[0].entries = Some(vec![entry("", "foo.v0.0.1")]);
                    cfg.bundles.truncate(1);
                });
                cfg.bundles[0].name.clear();
                cfg
            },
            "bundle-name-empty",
            bundle_tree("", "name must be set"),
        ),
    ]
}

/// `(case, catalog, rule id)`: each catalog is valid for upstream but draws one warning.
pub(super) fn warning_cases() -> Vec<(&'static str, DeclarativeConfig, &'static str)> {
    vec![
        (
            "warning/skip-range-beyond-version",
            with(|cfg| {
                if let Some(entries) = cfg.channels[0].entries.as_mut() {
                    entries[1].skip_range = ">=1.0.0 <3.0.0".into();
                }
            }),
            "bundle-skip-range-beyond-version",
        ),
        (
            "warning/unreachable",
            with(|cfg| {
                if let Some(entries) = cfg.channels[0].entries.as_mut() {
                    let mut a = entry("foo.v0.1.0", "");
                    a.skips = vec!["foo.v0.2.0".into()];
                    let mut b = entry("foo.v0.2.0", "");
                    b.skips = vec!["foo.v0.1.0".into()];
                    entries.extend([a, b]);
                }
                cfg.bundles.push(bundle("foo", "foo.v0.1.0", "0.1.0"));
                cfg.bundles.push(bundle("foo", "foo.v0.2.0", "0.2.0"));
            }),
            "bundle-unreachable",
        ),
        (
            "warning/replaces-unknown",
            with(|cfg| {
                if let Some(entries) = cfg.channels[0].entries.as_mut() {
                    entries[0].replaces = "foo.v0.9.0".into();
                    entries[0].skips = vec!["foo.v0.9.0".into()];
                }
            }),
            "channel-replaces-unknown",
        ),
    ]
}
