//! Checks of one bundle as listed by one channel (upstream: `model.Bundle.Validate` plus
//! HEAD's release and skipRange checks). A bundle listed by two channels is checked in each.

use super::package::when;
use crate::diag::{go_quote as q, Severity};
use crate::model::{property, Bundle};
use crate::semver::Range;
use crate::validate::rule::{At, Check, Rule};

/// Checks that a bundle has a name (an empty channel entry name).
pub const BUNDLE_NAME_EMPTY: Rule = Rule {
    id: "bundle-name-empty",
    severity: Severity::Error,
    summary: "a channel entry has an empty name",
    details: "A channel entry with an empty `name`.",
    at: At::Entry("/name"),
    check: Check::Bundle(bundle_name_empty),
};

fn bundle_name_empty(bundle: &Bundle) -> Vec<String> {
    when(bundle.name.is_empty(), "name must be set")
}

/// Checks that a bundle with a release version is named `<package>-v<version>-<release>`.
pub const BUNDLE_NAME_NOT_NORMALIZED: Rule = Rule {
    id: "bundle-name-not-normalized",
    severity: Severity::Error,
    summary: "a bundle with a release is not named <package>-v<version>-<release>",
    details: "A bundle whose `olm.package` property has a `release` must be named `<package>-v<version>-<release>`.",
    at: At::Blob("/name"),
    check: Check::Bundle(bundle_name_not_normalized),
};

fn bundle_name_not_normalized(bundle: &Bundle) -> Vec<String> {
    let (Some(version), Some(release)) = (&bundle.version, &bundle.release) else {
        return Vec::new();
    };
    let normalized = format!("{}-v{version}-{}", bundle.package, release.text);
    if bundle.name == normalized {
        Vec::new()
    } else {
        vec![format!(
            "name {} does not match normalized name {}",
            q(&bundle.name),
            q(&normalized)
        )]
    }
}

/// Checks that the bundle's properties decode (conversion reports this first, so it only
/// fires for models built otherwise).
pub const BUNDLE_PROPERTIES_UNPARSABLE: Rule = Rule {
    id: "bundle-properties-unparsable",
    severity: Severity::Error,
    summary: "a bundle property in the model does not decode",
    details: "A property of a bundle in the checked model does not decode into its type (catalog files report this as bundle-properties-invalid).",
    at: At::Blob("/properties"),
    check: Check::Bundle(bundle_properties_unparsable),
};

fn bundle_properties_unparsable(bundle: &Bundle) -> Vec<String> {
    match property::parse(&bundle.properties) {
        Ok(_) => Vec::new(),
        Err(error) => vec![error.to_string()],
    }
}

/// Checks that no `skips` item is an empty string.
pub const BUNDLE_SKIP_EMPTY: Rule = Rule {
    id: "bundle-skip-empty",
    severity: Severity::Error,
    summary: "a channel entry skips an empty name",
    details: "A channel entry's `skips` contains an empty string.",
    at: At::Entry("/skips"),
    check: Check::Bundle(bundle_skip_empty),
};

fn bundle_skip_empty(bundle: &Bundle) -> Vec<String> {
    bundle
        .skips
        .iter()
        .enumerate()
        .filter(|(_, skip)| skip.is_empty())
        .map(|(index, _)| format!("skip[{index}] is empty"))
        .collect()
}

/// Checks that a `skipRange` is a valid semver range.
pub const BUNDLE_SKIP_RANGE_INVALID: Rule = Rule {
    id: "bundle-skip-range-invalid",
    severity: Severity::Error,
    summary: "a channel entry's skipRange does not parse",
    details: "A channel entry's `skipRange` is not a valid semver range (`>=1.0.0 <1.2.0`, `<1.2.0`, alternatives joined by `||`).",
    at: At::Entry("/skipRange"),
    check: Check::Bundle(bundle_skip_range_invalid),
};

fn bundle_skip_range_invalid(bundle: &Bundle) -> Vec<String> {
    if bundle.skip_range.is_empty() {
        return Vec::new();
    }
    match Range::parse(&bundle.skip_range) {
        Ok(_) => Vec::new(),
        Err(error) => vec![format!(
            "invalid skipRange {}: {error}",
            q(&bundle.skip_range)
        )],
    }
}

/// Checks that the bundle has exactly one `olm.package` property (conversion reports this
/// first, so it only fires for models built otherwise).
pub const BUNDLE_PACKAGE_PROPERTY_NOT_UNIQUE: Rule = Rule {
    id: "bundle-package-property-not-unique",
    severity: Severity::Error,
    summary: "a bundle in the model does not have exactly one olm.package property",
    details: "A bundle of the checked model does not have exactly one `olm.package` property.",
    at: At::Blob("/properties"),
    check: Check::Bundle(bundle_package_property_not_unique),
};

fn bundle_package_property_not_unique(bundle: &Bundle) -> Vec<String> {
    match property::parse(&bundle.properties) {
        Ok(properties) if properties.packages.len() != 1 => vec![format!(
            "must be exactly one property with type {}",
            q(crate::property::PACKAGE)
        )],
        _ => Vec::new(),
    }
}

/// Checks that a bundle has an image, unless it carries its manifests as
/// `olm.bundle.object` properties.
pub const BUNDLE_IMAGE_UNSET: Rule = Rule {
    id: "bundle-image-unset",
    severity: Severity::Error,
    summary: "a bundle has neither an image nor bundle objects",
    details: "A bundle has no `image` and no `olm.bundle.object` or `olm.csv.metadata` properties, so OLM has nothing to install it from.",
    at: At::Blob(""),
    check: Check::Bundle(bundle_image_unset),
};

fn bundle_image_unset(bundle: &Bundle) -> Vec<String> {
    when(
        bundle.image.is_empty() && bundle.object_count == 0,
        "bundle image must be set",
    )
}

/// Checks that a bundle deprecation carries a message.
pub const BUNDLE_DEPRECATION_MESSAGE_EMPTY: Rule = Rule {
    id: "bundle-deprecation-message-empty",
    severity: Severity::Error,
    summary: "a bundle deprecation has an empty message",
    details: "A deprecation of a bundle has an empty `message`.",
    at: At::Blob(""),
    check: Check::Bundle(bundle_deprecation_message_empty),
};

fn bundle_deprecation_message_empty(bundle: &Bundle) -> Vec<String> {
    when(
        bundle
            .deprecation
            .as_ref()
            .is_some_and(|deprecation| deprecation.message.is_empty()),
        "invalid deprecation: message must be set",
    )
}

/// Checks that a version with build metadata has no release version.
pub const BUNDLE_BUILD_METADATA_WITH_RELEASE: Rule = Rule {
    id: "bundle-build-metadata-with-release",
    severity: Severity::Error,
    summary: "a bundle version has both build metadata and a release",
    details: "A bundle version carries both build metadata (`+...`) and a `release`; use one or the other.",
    at: At::Blob("/properties"),
    check: Check::Bundle(bundle_build_metadata_with_release),
};

fn bundle_build_metadata_with_release(bundle: &Bundle) -> Vec<String> {
    when(
        bundle.release.is_some()
            && bundle
                .version
                .as_ref()
                .is_some_and(|version| !version.build.is_empty()),
        "cannot use build metadata in version with a release version",
    )
}
