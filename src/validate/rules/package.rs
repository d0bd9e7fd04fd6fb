//! Checks of one package of the model (upstream: `model.Package.Validate`). Their lines go
//! into the package's `invalid package "<name>"` node, before or after its channels.

use crate::diag::{go_quote as q, Severity};
use crate::model::Package;
use crate::validate::rule::{At, Check, Placement, Rule};
use std::collections::{BTreeMap, BTreeSet};

/// Checks that a package has a name (not reachable from catalog files, whose nameless
/// packages are conversion problems).
pub const PACKAGE_NAME_EMPTY: Rule = Rule {
    id: "package-name-empty",
    severity: Severity::Error,
    summary: "a package in the model has no name",
    details: "A package of the checked model has no name. Catalog files report a nameless package as package-name-missing; this rule guards models built by other means.",
    at: At::Blob(""),
    check: Check::Package(Placement::BeforeChildren, package_name_empty),
};

fn package_name_empty(package: &Package) -> Vec<String> {
    when(package.name.is_empty(), "package name must not be empty")
}

/// Checks that the package blob names a default channel.
pub const PACKAGE_DEFAULT_CHANNEL_UNSET: Rule = Rule {
    id: "package-default-channel-unset",
    severity: Severity::Error,
    summary: "a package has no default channel",
    details: "The `olm.package` blob has no `defaultChannel`, and no other source supplies one. Subscriptions that name no channel use the default.",
    at: At::Blob("/defaultChannel"),
    check: Check::Package(Placement::BeforeChildren, package_default_channel_unset),
};

fn package_default_channel_unset(package: &Package) -> Vec<String> {
    when(
        package.default_channel.is_none(),
        "default channel must be set",
    )
}

/// Checks that a package has at least one channel.
pub const PACKAGE_NO_CHANNELS: Rule = Rule {
    id: "package-no-channels",
    severity: Severity::Error,
    summary: "a package has no channel",
    details: "A package with no `olm.channel` blob: none of its bundles can be installed.",
    at: At::Blob(""),
    check: Check::Package(Placement::BeforeChildren, package_no_channels),
};

fn package_no_channels(package: &Package) -> Vec<String> {
    when(
        package.channels.is_empty(),
        "package must contain at least one channel",
    )
}

/// Checks that no two bundles of a package (across channels) share a version, comparing
/// `<version>` (build metadata included) or `<version>-<release>`. Groups are listed in
/// ascending text order, bundle names sorted (upstream: `validateUniqueBundleVersions`).
pub const PACKAGE_DUPLICATE_VERSIONS: Rule = Rule {
    id: "package-duplicate-versions",
    severity: Severity::Error,
    summary: "two bundles of a package have the same version",
    details: "Two bundles of one package (in any channels) have the same version (and release). OLM orders bundles by version, so each must be distinct.",
    at: At::Blob(""),
    check: Check::Package(Placement::AfterChildren, package_duplicate_versions),
};

fn package_duplicate_versions(package: &Package) -> Vec<String> {
    let mut by_version: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    for bundle in package
        .channels
        .values()
        .flat_map(|channel| channel.bundles.values())
    {
        if let Some(key) = bundle.version_key() {
            by_version.entry(key).or_default().insert(&bundle.name);
        }
    }
    let groups: Vec<String> = by_version
        .iter()
        .filter(|(_, bundles)| bundles.len() > 1)
        .map(|(version, bundles)| {
            let names: Vec<&str> = bundles.iter().copied().collect();
            format!("{{{version}: [{}]}}", names.join(", "))
        })
        .collect();
    when(
        !groups.is_empty(),
        &format!(
            "duplicate versions found in bundles: [{}]",
            groups.join(" ")
        ),
    )
}

/// Checks that the default channel exists (conversion creates a missing one, so this only
/// fires for models built otherwise).
pub const PACKAGE_DEFAULT_CHANNEL_NOT_FOUND: Rule = Rule {
    id: "package-default-channel-not-found",
    severity: Severity::Error,
    summary: "a package's default channel is not one of its channels",
    details: "The package's `defaultChannel` is not the name of one of its channels.",
    at: At::Blob("/defaultChannel"),
    check: Check::Package(Placement::AfterChildren, package_default_channel_not_found),
};

fn package_default_channel_not_found(package: &Package) -> Vec<String> {
    match &package.default_channel {
        Some(name) if !package.channels.contains_key(name) => {
            vec![format!(
                "default channel {} not found in channels list",
                q(name)
            )]
        }
        _ => Vec::new(),
    }
}

/// Checks that a package deprecation carries a message.
pub const PACKAGE_DEPRECATION_MESSAGE_EMPTY: Rule = Rule {
    id: "package-deprecation-message-empty",
    severity: Severity::Error,
    summary: "a package deprecation has an empty message",
    details:
        "A deprecation of the package has an empty `message`; the message is what users are shown.",
    at: At::Blob(""),
    check: Check::Package(Placement::AfterChildren, package_deprecation_message_empty),
};

fn package_deprecation_message_empty(package: &Package) -> Vec<String> {
    when(
        package
            .deprecation
            .as_ref()
            .is_some_and(|deprecation| deprecation.message.is_empty()),
        "invalid deprecation: message must be set",
    )
}

pub(crate) fn when(condition: bool, message: &str) -> Vec<String> {
    if condition {
        vec![message.to_string()]
    } else {
        Vec::new()
    }
}
