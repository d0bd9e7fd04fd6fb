//! Checks made while converting wire types into the model. Their logic lives in
//! `model::convert` (it decides what is kept); these entries give them ids, severities and
//! documentation. Upstream: `declcfg.ConvertToModel`, fail-fast there, gathered here.
//! A package any of these findings is about is left out of the model checks.

use crate::diag::Severity;
use crate::model::convert::rule as id;
use crate::validate::rule::{At, Check, Rule};

/// A package blob has no name: `config contains package with no name`; the blob is dropped.
pub const PACKAGE_NAME_MISSING: Rule = Rule {
    id: id::PACKAGE_NAME_MISSING,
    severity: Severity::Error,
    summary: "a package blob has no name",
    details: "An `olm.package` blob without `name` (or with an empty one). Every channel, bundle and deprecation refers to its package by this name, so nothing else of the package can be checked.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// Two package blobs share a name: `duplicate package "<name>"`; the first blob is kept.
pub const PACKAGE_DUPLICATE: Rule = Rule {
    id: id::PACKAGE_DUPLICATE,
    severity: Severity::Error,
    summary: "two package blobs share a name",
    details: "Two `olm.package` blobs with the same `name`, in one file or in two. Keep one; a package is defined once per catalog.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A package name is not a DNS-1123 label: `invalid package name "<name>": [<reasons>]`; the package and everything that belongs to it are skipped.
pub const PACKAGE_NAME_INVALID: Rule = Rule {
    id: id::PACKAGE_NAME_INVALID,
    severity: Severity::Error,
    summary: "a package name is not a DNS-1123 label",
    details: "A package name must be a DNS-1123 label: lowercase letters, digits and `-`, starting and ending with a letter or digit, at most 63 characters. OLM uses it in resource names.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A channel names a package no package blob defines: `unknown package "<pkg>" for channel "<name>"`; the channel is dropped.
pub const CHANNEL_PACKAGE_UNKNOWN: Rule = Rule {
    id: id::CHANNEL_PACKAGE_UNKNOWN,
    severity: Severity::Error,
    summary: "a channel names a package no package blob defines",
    details: "An `olm.channel` blob whose `package` has no `olm.package` blob in the catalog: a typo in `package`, or the package blob is missing or left out by `.indexignore`.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A channel blob has no name: `package "<pkg>" contains channel with no name`; the channel is dropped.
pub const CHANNEL_NAME_MISSING: Rule = Rule {
    id: id::CHANNEL_NAME_MISSING,
    severity: Severity::Error,
    summary: "a channel blob has no name",
    details: "An `olm.channel` blob without `name`. Subscriptions name channels, so a nameless one cannot be used.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// Two channel blobs of a package share a name: `package "<pkg>" has duplicate channel "<name>"`; the first blob is kept.
pub const CHANNEL_DUPLICATE: Rule = Rule {
    id: id::CHANNEL_DUPLICATE,
    severity: Severity::Error,
    summary: "two channel blobs of a package share a name",
    details: "Two `olm.channel` blobs of one package with the same `name`. Merge their `entries` into one blob.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A channel lists the same bundle name more than once: `invalid package "<pkg>", channel "<chan>": duplicate entry "<entry>"`; the first entry is kept.
pub const CHANNEL_DUPLICATE_ENTRY: Rule = Rule {
    id: id::CHANNEL_DUPLICATE_ENTRY,
    severity: Severity::Error,
    summary: "a channel lists the same bundle name more than once",
    details: "A channel's `entries` list the same bundle name twice. Each bundle appears once per channel, with all its edges (`replaces`, `skips`, `skipRange`) in that one entry.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A bundle blob has no package: `package name must be set for bundle "<name>"`; the blob is dropped.
pub const BUNDLE_PACKAGE_MISSING: Rule = Rule {
    id: id::BUNDLE_PACKAGE_MISSING,
    severity: Severity::Error,
    summary: "a bundle blob has no package",
    details: "An `olm.bundle` blob without `package`.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A bundle names a package no package blob defines: `unknown package "<pkg>" for bundle "<name>"`; the blob is dropped.
pub const BUNDLE_PACKAGE_UNKNOWN: Rule = Rule {
    id: id::BUNDLE_PACKAGE_UNKNOWN,
    severity: Severity::Error,
    summary: "a bundle names a package no package blob defines",
    details: "An `olm.bundle` blob whose `package` has no `olm.package` blob in the catalog.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// Two bundle blobs of a package share a name: `package "<pkg>" has duplicate bundle "<name>"`; the first blob is kept.
pub const BUNDLE_DUPLICATE: Rule = Rule {
    id: id::BUNDLE_DUPLICATE,
    severity: Severity::Error,
    summary: "two bundle blobs of a package share a name",
    details: "Two `olm.bundle` blobs of one package with the same `name`. Rendering the same bundle twice (for instance two references to one image) gives this.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A known bundle property does not decode into its type: `parse properties for bundle "<name>": parse property[<i>] of type "<type>": <json error>`.
pub const BUNDLE_PROPERTIES_INVALID: Rule = Rule {
    id: id::BUNDLE_PROPERTIES_INVALID,
    severity: Severity::Error,
    summary: "a known bundle property does not decode into its type",
    details: "A bundle property of a known type (`olm.package`, `olm.gvk`, `olm.package.required`, `olm.gvk.required`, `olm.bundle.object`, `olm.csv.metadata`, ...) whose `value` does not have that type's fields and field types.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A bundle does not have exactly one olm.package property: `package "<pkg>" bundle "<name>" must have exactly 1 "olm.package" property, found <n>`.
pub const BUNDLE_PACKAGE_PROPERTY_COUNT: Rule = Rule {
    id: id::BUNDLE_PACKAGE_PROPERTY_COUNT,
    severity: Severity::Error,
    summary: "a bundle does not have exactly one olm.package property",
    details: "A bundle must carry exactly one `olm.package` property: it gives the bundle's package and version. None, or several, is an error.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A bundle's olm.package property names another package: `package "<pkg>" does not match "olm.package" property "<packageName>"`.
pub const BUNDLE_PACKAGE_PROPERTY_MISMATCH: Rule = Rule {
    id: id::BUNDLE_PACKAGE_PROPERTY_MISMATCH,
    severity: Severity::Error,
    summary: "a bundle's olm.package property names another package",
    details: "The bundle's `olm.package` property names a package other than the blob's `package` field. They must agree.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A bundle image or related image is not a valid pull spec: `package "<pkg>" bundle "<name>" image: invalid image pull spec "<image>": <reason>` (and `relatedImages[<i>].image`).
pub const BUNDLE_IMAGE_INVALID: Rule = Rule {
    id: id::BUNDLE_IMAGE_INVALID,
    severity: Severity::Error,
    summary: "a bundle image or related image is not a valid pull spec",
    details: "The bundle's `image`, or the `image` of one of its `relatedImages`, is not a valid image pull spec (`registry/repository[:tag][@digest]`).",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A bundle version is not strict semver: `error parsing bundle "<name>" version "<version>": <reason>`.
pub const BUNDLE_VERSION_INVALID: Rule = Rule {
    id: id::BUNDLE_VERSION_INVALID,
    severity: Severity::Error,
    summary: "a bundle version is not strict semver",
    details: "The `version` of the `olm.package` property is not a strict semantic version (`MAJOR.MINOR.PATCH`, optional `-prerelease` and `+build`), as OLM orders bundles by it.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A bundle release version is invalid: `error parsing bundle "<name>" release version "<release>": invalid release ...`.
pub const BUNDLE_RELEASE_INVALID: Rule = Rule {
    id: id::BUNDLE_RELEASE_INVALID,
    severity: Severity::Error,
    summary: "a bundle release version is invalid",
    details: "The `release` of the `olm.package` property is not a valid release: dot-separated alphanumeric identifiers, numbers without leading zeros.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A bundle blob is listed by no channel of its package: `package "<pkg>", bundle "<name>" not found in any channel entries`; not reported when the bundle is listed by a dropped channel.
pub const BUNDLE_NOT_IN_CHANNEL: Rule = Rule {
    id: id::BUNDLE_NOT_IN_CHANNEL,
    severity: Severity::Error,
    summary: "a bundle blob is listed by no channel of its package",
    details: "An `olm.bundle` blob that no channel of its package lists. OLM can never install it; add it to a channel's `entries` or remove the blob.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A channel entry has no bundle blob: `no olm.bundle blobs found in package "<pkg>" for olm.channel entries [<e1> <e2>]`, over every channel of the package (upstream checks only the last one).
pub const CHANNEL_ENTRY_BUNDLE_MISSING: Rule = Rule {
    id: id::CHANNEL_ENTRY_BUNDLE_MISSING,
    severity: Severity::Error,
    summary: "a channel entry has no bundle blob",
    details: "A channel entry names a bundle for which the catalog has no `olm.bundle` blob of that package.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A deprecations blob has no package: `package name must be set for deprecation item <index>`.
pub const DEPRECATION_PACKAGE_MISSING: Rule = Rule {
    id: id::DEPRECATION_PACKAGE_MISSING,
    severity: Severity::Error,
    summary: "a deprecations blob has no package",
    details: "An `olm.deprecations` blob without `package`.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A deprecations blob names an unknown package: `cannot apply deprecations to an unknown package "<pkg>"`.
pub const DEPRECATION_PACKAGE_UNKNOWN: Rule = Rule {
    id: id::DEPRECATION_PACKAGE_UNKNOWN,
    severity: Severity::Error,
    summary: "a deprecations blob names an unknown package",
    details: "An `olm.deprecations` blob whose `package` has no `olm.package` blob.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A package has more than one deprecations blob: `expected a maximum of one deprecation per package: "<pkg>"`; only the first blob is applied.
pub const DEPRECATION_DUPLICATE: Rule = Rule {
    id: id::DEPRECATION_DUPLICATE,
    severity: Severity::Error,
    summary: "a package has more than one deprecations blob",
    details: "A package has two `olm.deprecations` blobs; put every entry in one.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A deprecation entry has no reference schema: `schema must be set for deprecation entry [<j>] for package "<pkg>"`.
pub const DEPRECATION_ENTRY_SCHEMA_MISSING: Rule = Rule {
    id: id::DEPRECATION_ENTRY_SCHEMA_MISSING,
    severity: Severity::Error,
    summary: "a deprecation entry has no reference schema",
    details: "A deprecation entry whose `reference` has no `schema` (`olm.package`, `olm.channel` or `olm.bundle`).",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A reference is deprecated twice: `duplicate deprecation entry {schema: "<s>", name: "<n>"} for package "<pkg>"` (upstream prints a Go struct dump of the reference).
pub const DEPRECATION_ENTRY_DUPLICATE: Rule = Rule {
    id: id::DEPRECATION_ENTRY_DUPLICATE,
    severity: Severity::Error,
    summary: "a reference is deprecated twice",
    details: "The same package, channel or bundle is deprecated by two entries.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A deprecation references a bundle with no blob: `cannot deprecate bundle "<n>" for package "<pkg>": bundle not found`.
pub const DEPRECATION_BUNDLE_UNKNOWN: Rule = Rule {
    id: id::DEPRECATION_BUNDLE_UNKNOWN,
    severity: Severity::Error,
    summary: "a deprecation references a bundle with no blob",
    details: "A deprecation entry names a bundle that has no `olm.bundle` blob in the package.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A deprecation references an unknown channel: `cannot deprecate channel "<n>" for package "<pkg>": channel not found`.
pub const DEPRECATION_CHANNEL_UNKNOWN: Rule = Rule {
    id: id::DEPRECATION_CHANNEL_UNKNOWN,
    severity: Severity::Error,
    summary: "a deprecation references an unknown channel",
    details: "A deprecation entry names a channel the package does not have.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A package deprecation reference has a name: `package name must be empty for deprecated package "<pkg>" (specified "<n>")`.
pub const DEPRECATION_PACKAGE_REFERENCE_NAMED: Rule = Rule {
    id: id::DEPRECATION_PACKAGE_REFERENCE_NAMED,
    severity: Severity::Error,
    summary: "a package deprecation reference has a name",
    details: "A deprecation of the package itself (`schema: olm.package`) must not carry a `name`: it always means the blob's own package.",
    at: At::Blob(""),
    check: Check::Conversion,
};

/// A deprecation references an unknown schema: `cannot deprecate object {schema: "<s>", name: "<n>"} referenced by entry <j> for package "<pkg>": object schema unknown`.
pub const DEPRECATION_SCHEMA_UNKNOWN: Rule = Rule {
    id: id::DEPRECATION_SCHEMA_UNKNOWN,
    severity: Severity::Error,
    summary: "a deprecation references an unknown schema",
    details: "A deprecation entry's `reference.schema` is none of `olm.package`, `olm.channel`, `olm.bundle`.",
    at: At::Blob(""),
    check: Check::Conversion,
};
