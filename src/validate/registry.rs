//! Every rule, in output order: conversion checks in upstream's check order, then model
//! checks in the order upstream appends their lines to a node.

use super::rule::Rule;
use super::rules::{bundle, channel, conversion, graph, package};

pub static ALL: &[&Rule] = &[
    &conversion::PACKAGE_NAME_MISSING,
    &conversion::PACKAGE_DUPLICATE,
    &conversion::PACKAGE_NAME_INVALID,
    &conversion::CHANNEL_PACKAGE_UNKNOWN,
    &conversion::CHANNEL_NAME_MISSING,
    &conversion::CHANNEL_DUPLICATE,
    &conversion::CHANNEL_DUPLICATE_ENTRY,
    &conversion::BUNDLE_PACKAGE_MISSING,
    &conversion::BUNDLE_PACKAGE_UNKNOWN,
    &conversion::BUNDLE_DUPLICATE,
    &conversion::BUNDLE_PROPERTIES_INVALID,
    &conversion::BUNDLE_PACKAGE_PROPERTY_COUNT,
    &conversion::BUNDLE_PACKAGE_PROPERTY_MISMATCH,
    &conversion::BUNDLE_IMAGE_INVALID,
    &conversion::BUNDLE_VERSION_INVALID,
    &conversion::BUNDLE_RELEASE_INVALID,
    &conversion::BUNDLE_NOT_IN_CHANNEL,
    &conversion::CHANNEL_ENTRY_BUNDLE_MISSING,
    &conversion::DEPRECATION_PACKAGE_MISSING,
    &conversion::DEPRECATION_PACKAGE_UNKNOWN,
    &conversion::DEPRECATION_DUPLICATE,
    &conversion::DEPRECATION_ENTRY_SCHEMA_MISSING,
    &conversion::DEPRECATION_ENTRY_DUPLICATE,
    &conversion::DEPRECATION_BUNDLE_UNKNOWN,
    &conversion::DEPRECATION_CHANNEL_UNKNOWN,
    &conversion::DEPRECATION_PACKAGE_REFERENCE_NAMED,
    &conversion::DEPRECATION_SCHEMA_UNKNOWN,
    &package::PACKAGE_NAME_EMPTY,
    &package::PACKAGE_DEFAULT_CHANNEL_UNSET,
    &package::PACKAGE_NO_CHANNELS,
    &package::PACKAGE_DUPLICATE_VERSIONS,
    &package::PACKAGE_DEFAULT_CHANNEL_NOT_FOUND,
    &package::PACKAGE_DEPRECATION_MESSAGE_EMPTY,
    &channel::CHANNEL_NAME_EMPTY,
    &channel::CHANNEL_NO_BUNDLES,
    &channel::CHANNEL_GRAPH_INVALID,
    &channel::CHANNEL_DEPRECATION_MESSAGE_EMPTY,
    &bundle::BUNDLE_NAME_EMPTY,
    &bundle::BUNDLE_NAME_NOT_NORMALIZED,
    &bundle::BUNDLE_PROPERTIES_UNPARSABLE,
    &bundle::BUNDLE_SKIP_EMPTY,
    &bundle::BUNDLE_SKIP_RANGE_INVALID,
    &bundle::BUNDLE_PACKAGE_PROPERTY_NOT_UNIQUE,
    &bundle::BUNDLE_IMAGE_UNSET,
    &bundle::BUNDLE_DEPRECATION_MESSAGE_EMPTY,
    &bundle::BUNDLE_BUILD_METADATA_WITH_RELEASE,
    &graph::BUNDLE_SKIP_RANGE_BEYOND_VERSION,
    &graph::BUNDLE_UNREACHABLE,
    &graph::CHANNEL_HEADS_AMBIGUOUS,
    &graph::CHANNEL_REPLACES_UNKNOWN,
];

/// Every rule of the program, catalog and bundle alike: load problems, the catalog rules of
/// [`ALL`] (conversion, then model checks), then the bundle rules. Ids are unique.
pub fn every() -> Vec<crate::diag::Rule> {
    let catalog = ALL.iter().map(|rule| crate::diag::Rule {
        id: rule.id,
        severity: rule.severity,
        summary: rule.summary,
        details: rule.details,
    });
    crate::declcfg::load::RULES
        .iter()
        .copied()
        .chain(catalog)
        .chain(crate::bundle::rules::ALL.iter().copied())
        .collect()
}

/// The rule with id `id`.
pub fn find(id: &str) -> Option<&'static Rule> {
    ALL.iter().copied().find(|rule| rule.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::convert;
    use crate::validate::rule::Scope;
    use std::collections::BTreeSet;

    #[test]
    fn conversion_rules_match_converter_ids_in_order() {
        let registered: Vec<&str> = ALL
            .iter()
            .filter(|rule| rule.scope() == Scope::Conversion)
            .map(|rule| rule.id)
            .collect();
        assert_eq!(registered, convert::rule::ALL);
    }

    #[test]
    fn conversion_rules_come_first() {
        let scopes: Vec<Scope> = ALL.iter().map(|rule| rule.scope()).collect();
        let first_model = scopes
            .iter()
            .position(|scope| *scope != Scope::Conversion)
            .unwrap_or(scopes.len());
        assert!(scopes[first_model..]
            .iter()
            .all(|scope| *scope != Scope::Conversion));
    }

    #[test]
    fn id_list_is_stable() {
        let ids: Vec<&str> = ALL.iter().map(|rule| rule.id).collect();
        assert_eq!(ids.len(), 50);
        assert_eq!(
            find("channel-graph-invalid").map(|rule| rule.id),
            Some("channel-graph-invalid")
        );
        assert!(find("no-such-rule").is_none());
    }

    #[test]
    fn rule_ids_are_unique_and_kebab_case() {
        let mut seen = BTreeSet::new();
        for rule in every() {
            assert!(seen.insert(rule.id), "{} registered twice", rule.id);
            assert!(
                !rule.id.is_empty()
                    && rule.id.split('-').all(|part| !part.is_empty()
                        && part
                            .bytes()
                            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())),
                "{} is not kebab-case",
                rule.id
            );
            assert!(!rule.summary.is_empty(), "{} has no summary", rule.id);
            assert!(
                !rule.details.is_empty() && rule.details != rule.summary,
                "{} has no details for --explain",
                rule.id
            );
        }
    }

    /// Every rule has a fixture that makes it fire: a `testdata/rules/<id>/invalid-*` bundle
    /// (bundle rules), a case of `rules::tests` (catalog rules), or a test named here.
    #[test]
    fn every_rule_has_a_fixture() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/rules");
        // Rules whose fixtures are tests elsewhere: load problems (tests/malformed.rs,
        // tests/diagnostics.rs, tests/hostile_files.rs) and CSV-less bundles
        // (bundle::csvless::tests, tests/csvless.rs).
        let elsewhere: BTreeSet<&str> = crate::declcfg::load::RULES
            .iter()
            .map(|rule| rule.id)
            .chain(crate::bundle::csvless::rules())
            .chain([crate::bundle::rules::PLAIN_MANIFEST_API_REMOVED])
            .collect();
        let catalog: BTreeSet<&str> = ALL.iter().map(|rule| rule.id).collect();
        for rule in every() {
            if catalog.contains(rule.id) || elsewhere.contains(rule.id) {
                continue;
            }
            let dir = root.join(rule.id);
            let invalid = std::fs::read_dir(&dir)
                .map(|entries| {
                    entries
                        .filter_map(Result::ok)
                        .any(|entry| entry.file_name().to_string_lossy().starts_with("invalid-"))
                })
                .unwrap_or(false);
            assert!(
                invalid,
                "{}: no {}/invalid-* fixture",
                rule.id,
                dir.display()
            );
        }
    }
}
