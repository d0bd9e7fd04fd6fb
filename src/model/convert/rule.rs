//! Ids of the checks made during conversion, in upstream's check order.

pub const PACKAGE_NAME_MISSING: &str = "package-name-missing";
pub const PACKAGE_DUPLICATE: &str = "package-duplicate";
pub const PACKAGE_NAME_INVALID: &str = "package-name-invalid";
pub const CHANNEL_PACKAGE_UNKNOWN: &str = "channel-package-unknown";
pub const CHANNEL_NAME_MISSING: &str = "channel-name-missing";
pub const CHANNEL_DUPLICATE: &str = "channel-duplicate";
pub const CHANNEL_DUPLICATE_ENTRY: &str = "channel-duplicate-entry";
pub const BUNDLE_PACKAGE_MISSING: &str = "bundle-package-missing";
pub const BUNDLE_PACKAGE_UNKNOWN: &str = "bundle-package-unknown";
pub const BUNDLE_DUPLICATE: &str = "bundle-duplicate";
pub const BUNDLE_PROPERTIES_INVALID: &str = "bundle-properties-invalid";
pub const BUNDLE_PACKAGE_PROPERTY_COUNT: &str = "bundle-package-property-count";
pub const BUNDLE_PACKAGE_PROPERTY_MISMATCH: &str = "bundle-package-property-mismatch";
pub const BUNDLE_IMAGE_INVALID: &str = "bundle-image-invalid";
pub const BUNDLE_VERSION_INVALID: &str = "bundle-version-invalid";
pub const BUNDLE_RELEASE_INVALID: &str = "bundle-release-invalid";
pub const BUNDLE_NOT_IN_CHANNEL: &str = "bundle-not-in-channel";
pub const CHANNEL_ENTRY_BUNDLE_MISSING: &str = "channel-entry-bundle-missing";
pub const DEPRECATION_PACKAGE_MISSING: &str = "deprecation-package-missing";
pub const DEPRECATION_PACKAGE_UNKNOWN: &str = "deprecation-package-unknown";
pub const DEPRECATION_DUPLICATE: &str = "deprecation-duplicate";
pub const DEPRECATION_ENTRY_SCHEMA_MISSING: &str = "deprecation-entry-schema-missing";
pub const DEPRECATION_ENTRY_DUPLICATE: &str = "deprecation-entry-duplicate";
pub const DEPRECATION_BUNDLE_UNKNOWN: &str = "deprecation-bundle-unknown";
pub const DEPRECATION_CHANNEL_UNKNOWN: &str = "deprecation-channel-unknown";
pub const DEPRECATION_PACKAGE_REFERENCE_NAMED: &str = "deprecation-package-reference-named";
pub const DEPRECATION_SCHEMA_UNKNOWN: &str = "deprecation-schema-unknown";

/// Every id above, in check order.
pub const ALL: &[&str] = &[
    PACKAGE_NAME_MISSING,
    PACKAGE_DUPLICATE,
    PACKAGE_NAME_INVALID,
    CHANNEL_PACKAGE_UNKNOWN,
    CHANNEL_NAME_MISSING,
    CHANNEL_DUPLICATE,
    CHANNEL_DUPLICATE_ENTRY,
    BUNDLE_PACKAGE_MISSING,
    BUNDLE_PACKAGE_UNKNOWN,
    BUNDLE_DUPLICATE,
    BUNDLE_PROPERTIES_INVALID,
    BUNDLE_PACKAGE_PROPERTY_COUNT,
    BUNDLE_PACKAGE_PROPERTY_MISMATCH,
    BUNDLE_IMAGE_INVALID,
    BUNDLE_VERSION_INVALID,
    BUNDLE_RELEASE_INVALID,
    BUNDLE_NOT_IN_CHANNEL,
    CHANNEL_ENTRY_BUNDLE_MISSING,
    DEPRECATION_PACKAGE_MISSING,
    DEPRECATION_PACKAGE_UNKNOWN,
    DEPRECATION_DUPLICATE,
    DEPRECATION_ENTRY_SCHEMA_MISSING,
    DEPRECATION_ENTRY_DUPLICATE,
    DEPRECATION_BUNDLE_UNKNOWN,
    DEPRECATION_CHANNEL_UNKNOWN,
    DEPRECATION_PACKAGE_REFERENCE_NAMED,
    DEPRECATION_SCHEMA_UNKNOWN,
];
