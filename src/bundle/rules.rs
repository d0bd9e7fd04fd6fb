//! Every rule of bundle validation (`opm bundle validate`, and the bundle checks of `bundle
//! build`, `unpack`, `list` and `render`): its id, its severity, a one-line summary and what it
//! checks, and [`finding`], the one way a bundle check reports a problem (its severity is its
//! rule's). A leaf: the checks depend on it, it depends on none of them.

use crate::diag::{Diagnostic, Rule, Severity};

// bundle::csvless::metadata

/// The file is missing or unreadable.
pub const BUNDLE_YAML_MISSING: &str = "bundle-yaml-missing";
/// The file is not YAML, or not a mapping.
pub const BUNDLE_YAML_INVALID: &str = "bundle-yaml-invalid";
/// A key appears twice in one mapping.
pub const BUNDLE_YAML_DUPLICATE_KEY: &str = "bundle-yaml-duplicate-key";
/// A field is missing, has the wrong type, or an invalid value.
pub const BUNDLE_YAML_FIELD_INVALID: &str = "bundle-yaml-field-invalid";
/// A field this version does not know (warning).
pub const BUNDLE_YAML_FIELD_UNKNOWN: &str = "bundle-yaml-field-unknown";
/// An API description's descriptor path is not under `.spec` or `.status`.
pub const BUNDLE_YAML_DESCRIPTOR_PATH: &str = "bundle-yaml-descriptor-path";

// bundle::csvless

/// `manifests/` is missing or cannot be listed.
pub const MANIFESTS_MISSING: &str = "manifests-missing";
/// `manifests/` holds a directory (CSV-less bundles are flat).
pub const MANIFESTS_NOT_FLAT: &str = "manifests-not-flat";
/// A manifest file cannot be read or is not a stream of Kubernetes objects.
pub const MANIFEST_NOT_OBJECTS: &str = "manifest-not-objects";
/// `manifests/` holds no object at all.
pub const MANIFESTS_EMPTY: &str = "manifests-empty";
/// A registry+v2 bundle without a Deployment.
pub const BUNDLE_DEPLOYMENT_MISSING: &str = "bundle-deployment-missing";
/// An object of an API version Kubernetes has removed (an error in plain+v0
/// bundles, which are applied as they are; a warning in registry+v2).
pub const MANIFEST_API_REMOVED: &str = "manifest-api-removed";
/// An object of an API version Kubernetes has removed, in a plain+v0 bundle (an error: such a
/// bundle is applied as it is).
pub const PLAIN_MANIFEST_API_REMOVED: &str = "plain-manifest-api-removed";

// bundle::csvless::synth

/// An owned API the CSV lists cannot be matched with a CRD.
pub const BUNDLE_API_WITHOUT_CRD: &str = "bundle-api-without-crd";

// bundle::validate::bundle_objects

/// A PodDisruptionBudget that allows no disruption.
pub const OBJECT_PDB_BLOCKS_EVICTION: &str = "object-pdb-blocks-eviction";
/// A PriorityClass that is the cluster's global default.
pub const OBJECT_PRIORITY_CLASS_GLOBAL_DEFAULT: &str = "object-priority-class-global-default";
/// A Role or ClusterRole that may modify default SecurityContextConstraints.
pub const OBJECT_RBAC_MODIFIES_DEFAULT_SCC: &str = "object-rbac-modifies-default-scc";
/// A Role or ClusterRole that may create or change PodDisruptionBudgets (warning).
pub const OBJECT_RBAC_MANAGES_PDB: &str = "object-rbac-manages-pdb";

// bundle::validate::content

/// A manifests entry that cannot be read as a file (e.g. a directory).
pub const MANIFEST_UNREADABLE: &str = "manifest-unreadable";
/// A manifest document that does not decode into an object with a kind.
pub const MANIFEST_DECODE_FAILED: &str = "manifest-decode-failed";
/// An object whose kind a registry+v1 bundle may not ship.
pub const MANIFEST_KIND_UNSUPPORTED: &str = "manifest-kind-unsupported";
/// An object whose metadata Kubernetes would refuse ("kubectl-able" check).
pub const OBJECT_METADATA_INVALID: &str = "object-metadata-invalid";

// bundle::validate::crd

/// A CRD whose `apiVersion` is neither `apiextensions.k8s.io/v1` nor `v1beta1`.
pub const CRD_API_VERSION_UNSUPPORTED: &str = "crd-api-version-unsupported";
/// A CRD that does not decode into the typed CRD.
pub const CRD_DECODE_FAILED: &str = "crd-decode-failed";
/// `apiextensions.k8s.io/v1beta1` is deprecated (warning).
pub const CRD_V1BETA1_DEPRECATED: &str = "crd-v1beta1-deprecated";
/// The CRD's metadata is invalid (its name must be `<plural>.<group>`).
pub const CRD_METADATA_INVALID: &str = "crd-metadata-invalid";
/// `spec.group` is missing or not a domain.
pub const CRD_GROUP_INVALID: &str = "crd-group-invalid";
/// `spec.scope` is missing or not `Cluster`/`Namespaced`.
pub const CRD_SCOPE_INVALID: &str = "crd-scope-invalid";
/// The versions are invalid (names, duplicates, storage, top-level version).
pub const CRD_VERSIONS_INVALID: &str = "crd-versions-invalid";
/// `spec.names` is incomplete or invalid.
pub const CRD_NAMES_INVALID: &str = "crd-names-invalid";
/// Printer columns, subresources or deprecation warnings are invalid.
pub const CRD_VERSION_DETAILS_INVALID: &str = "crd-version-details-invalid";
/// The conversion settings are inconsistent.
pub const CRD_CONVERSION_INVALID: &str = "crd-conversion-invalid";
/// A v1 CRD sets `preserveUnknownFields: true`.
pub const CRD_PRESERVE_UNKNOWN_FIELDS: &str = "crd-preserve-unknown-fields";

// bundle::validate::csv

/// The typed CSV could not be built (e.g. `spec.version` is a number).
pub const CSV_CONVERSION_FAILED: &str = "csv-conversion-failed";
/// `metadata.name` is not a DNS-1123 subdomain and label value.
pub const CSV_NAME_INVALID: &str = "csv-name-invalid";
/// `spec.replaces` is not a DNS-1123 subdomain and label value.
pub const CSV_REPLACES_INVALID: &str = "csv-replaces-invalid";
/// The example annotations are missing (warning).
pub const CSV_EXAMPLES_MISSING: &str = "csv-examples-missing";
/// The example annotation is not valid JSON or not a list of objects.
pub const CSV_EXAMPLES_INVALID: &str = "csv-examples-invalid";
/// An example's group/version/kind is not an API the CSV owns.
pub const CSV_EXAMPLE_API_NOT_PROVIDED: &str = "csv-example-api-not-provided";
/// An owned API has no example (warning).
pub const CSV_API_WITHOUT_EXAMPLE: &str = "csv-api-without-example";
/// An owned CRD name is not `<plural>.<group>`.
pub const CSV_OWNED_CRD_NAME_INVALID: &str = "csv-owned-crd-name-invalid";
/// `spec.installModes` is empty, supports nothing, or conflicts with conversion webhooks.
pub const CSV_INSTALL_MODES_INVALID: &str = "csv-install-modes-invalid";
/// `spec.minKubeVersion` is not a semantic version.
pub const CSV_MIN_KUBE_VERSION_INVALID: &str = "csv-min-kube-version-invalid";
/// `spec.minKubeVersion` is not set (warning).
pub const CSV_MIN_KUBE_VERSION_MISSING: &str = "csv-min-kube-version-missing";
/// A field the CSV type requires is missing.
pub const CSV_REQUIRED_FIELD_MISSING: &str = "csv-required-field-missing";
/// An OLM annotation key is spelled with the wrong case.
pub const CSV_ANNOTATION_WRONG_CASE: &str = "csv-annotation-wrong-case";
/// `apiVersion` or `kind` is missing.
pub const CSV_TYPE_META_MISSING: &str = "csv-type-meta-missing";

// bundle::validate::dependencies

/// An entry whose `value` is missing or does not decode into the shape its
/// `type` needs, or whose `type` is unknown:
/// `couldn't parse dependency of type <type>`.
pub const DEPENDENCY_UNPARSEABLE: &str = "dependency-unparseable";
/// An `olm.gvk` entry with an empty field: `API Group is empty`,
/// `API Version is empty`, `API Kind is empty`.
pub const DEPENDENCY_GVK_INVALID: &str = "dependency-gvk-invalid";
/// An `olm.package` entry without a name or with a version range blang
/// semver cannot parse: `Package name is empty`, `Package version is empty`,
/// `Invalid semver format version`.
pub const DEPENDENCY_PACKAGE_INVALID: &str = "dependency-package-invalid";
/// An `olm.label` entry without a label: `Label information is missing`.
pub const DEPENDENCY_LABEL_INVALID: &str = "dependency-label-invalid";
/// An `olm.constraint` whose structure is wrong: no form at all
/// (`The CEL field is missing`, upstream's text), a `package` or `gvk` form
/// with empty fields or a bad range, a compound form without constraints.
/// Problems inside compound forms name their place
/// (`all.constraints[1]: API Kind is empty`).
pub const DEPENDENCY_CONSTRAINT_INVALID: &str = "dependency-constraint-invalid";
/// An `olm.constraint` `cel` form whose rule is empty
/// (`The CEL expression is missing`) or does not compile
/// (`Invalid CEL expression: <cel diagnostic>`).
pub const DEPENDENCY_CONSTRAINT_CEL_INVALID: &str = "dependency-constraint-cel-invalid";
/// Warning: an `olm.constraint` sets more than one form; OLM evaluates only
/// one of them.
pub const DEPENDENCY_CONSTRAINT_AMBIGUOUS: &str = "dependency-constraint-ambiguous";
/// Warning: a problem in a form of a top-level `olm.constraint` whose `cel`
/// rule decides (upstream ignores everything but `cel` there).
pub const DEPENDENCY_CONSTRAINT_FORM_IGNORED: &str = "dependency-constraint-form-ignored";

// bundle::validate::format

/// The bundle directory, or its `metadata/` directory, cannot be listed
/// (message: the operating system's error, as upstream adds it).
pub const BUNDLE_DIR_UNREADABLE: &str = "bundle-dir-unreadable";
/// No `manifests` directory at the bundle root: `Unable to locate manifests directory`.
pub const BUNDLE_MISSING_MANIFESTS_DIR: &str = "bundle-missing-manifests-dir";
/// No `metadata` directory at the bundle root: `Unable to locate metadata directory`.
pub const BUNDLE_MISSING_METADATA_DIR: &str = "bundle-missing-metadata-dir";
/// The media type of `manifests/` cannot be detected (upstream's
/// `GetMediaType` error, e.g. `The directory <dir> contains no yaml files`).
pub const BUNDLE_MEDIATYPE_UNDETECTED: &str = "bundle-mediatype-undetected";
/// No file of `metadata/` decodes as `{annotations: {…}}`:
/// `Could not find annotations file`.
pub const ANNOTATIONS_FILE_MISSING: &str = "annotations-file-missing";
/// A required label is absent from the annotations file:
/// `Missing annotation "<key>"` (every label but the default channel).
pub const ANNOTATIONS_MISSING: &str = "annotations-missing";
/// The media type label differs from the detected media type (`plain` and
/// `plain+v0` are the same): `Expecting annotation "…mediatype.v1" to have
/// value "<detected>" instead of "<actual>"`.
pub const ANNOTATIONS_MEDIATYPE_MISMATCH: &str = "annotations-mediatype-mismatch";
/// The channels label is empty or absent:
/// `Expecting annotation "…channels.v1" to have non-empty value`.
pub const ANNOTATIONS_CHANNELS_EMPTY: &str = "annotations-channels-empty";
/// The default channel label is present but empty:
/// `Expecting annotation "…channel.default.v1" to have non-empty value`.
pub const ANNOTATIONS_DEFAULT_CHANNEL_EMPTY: &str = "annotations-default-channel-empty";

// bundle::validate::good_practices

/// The CSV's install strategy has no deployment (an error upstream too).
pub const GOOD_PRACTICES_NO_DEPLOYMENT: &str = "good-practices-no-deployment";
/// A container sets no CPU or memory request.
pub const GOOD_PRACTICES_RESOURCE_REQUESTS: &str = "good-practices-resource-requests";
/// An owned or required CRD has no description.
pub const GOOD_PRACTICES_CRD_DESCRIPTION: &str = "good-practices-crd-description";
/// A channel name does not start with `candidate`, `stable` or `fast`.
pub const GOOD_PRACTICES_CHANNEL_NAMING: &str = "good-practices-channel-naming";
/// The CSV's permissions allow creating CRDs.
pub const GOOD_PRACTICES_RBAC_CREATES_CRDS: &str = "good-practices-rbac-creates-crds";
/// The CSV name is not `<operator>.v<semver>`.
pub const GOOD_PRACTICES_BUNDLE_NAME: &str = "good-practices-bundle-name";

// bundle::validate::operatorhub

/// A CSV misses OperatorHub metadata or carries invalid values.
pub const OPERATORHUB_CSV_INVALID: &str = "operatorhub-csv-invalid";
/// The CSV has no icon (warning).
pub const OPERATORHUB_ICON_MISSING: &str = "operatorhub-icon-missing";

// bundle::validate::registry

/// The manifests decode but none is a ClusterServiceVersion.
pub const BUNDLE_CSV_MISSING: &str = "bundle-csv-missing";
/// More than one ClusterServiceVersion: OLM uses the first (warning, as
/// upstream accepts such bundles).
pub const BUNDLE_CSV_MULTIPLE: &str = "bundle-csv-multiple";
/// The CSV or a CRD cannot be decoded for the registry checks.
pub const BUNDLE_CSV_UNREADABLE: &str = "bundle-csv-unreadable";
/// A CRD the CSV owns is not in the bundle.
pub const BUNDLE_OWNED_CRD_MISSING: &str = "bundle-owned-crd-missing";
/// A CRD in the bundle is not owned by the CSV (warning).
pub const BUNDLE_CRD_NOT_OWNED: &str = "bundle-crd-not-owned";
/// `spec.version` or `spec.release` has the wrong type.
pub const BUNDLE_CSV_VERSION_INVALID: &str = "bundle-csv-version-invalid";
/// The CSV sets both `spec.release` and the `olm.substitutesFor` annotation.
pub const BUNDLE_RELEASE_WITH_SUBSTITUTES_FOR: &str = "bundle-release-with-substitutes-for";

pub static ALL: &[Rule] = &[
    Rule {
        id: BUNDLE_YAML_MISSING,
        severity: Severity::Error,
        summary: "`metadata/bundle.yaml` is missing or unreadable",
        details: "The file is missing or unreadable.",
    },
    Rule {
        id: BUNDLE_YAML_INVALID,
        severity: Severity::Error,
        summary: "`metadata/bundle.yaml` is not YAML, or not a mapping",
        details: "The file is not YAML, or not a mapping.",
    },
    Rule {
        id: BUNDLE_YAML_DUPLICATE_KEY,
        severity: Severity::Error,
        summary: "a key appears twice in one mapping of `metadata/bundle.yaml`",
        details: "A key appears twice in one mapping.",
    },
    Rule {
        id: BUNDLE_YAML_FIELD_INVALID,
        severity: Severity::Error,
        summary: "a field of `metadata/bundle.yaml` is missing, has the wrong type, or an invalid value",
        details: "A field is missing, has the wrong type, or an invalid value.",
    },
    Rule {
        id: BUNDLE_YAML_FIELD_UNKNOWN,
        severity: Severity::Warning,
        summary: "`metadata/bundle.yaml` has a field this version does not know",
        details: "A field this version does not know (warning).",
    },
    Rule {
        id: BUNDLE_YAML_DESCRIPTOR_PATH,
        severity: Severity::Error,
        summary: "a descriptor path of `metadata/bundle.yaml` is not under `.spec` or `.status`",
        details: "An API description's descriptor path is not under `.spec` or `.status`.",
    },
    Rule {
        id: MANIFESTS_MISSING,
        severity: Severity::Error,
        summary: "`manifests/` is missing or cannot be listed",
        details: "`manifests/` is missing or cannot be listed.",
    },
    Rule {
        id: MANIFESTS_NOT_FLAT,
        severity: Severity::Error,
        summary: "`manifests/` holds a directory (CSV-less bundles are flat)",
        details: "`manifests/` holds a directory (CSV-less bundles are flat).",
    },
    Rule {
        id: MANIFEST_NOT_OBJECTS,
        severity: Severity::Error,
        summary: "a manifest file cannot be read or is not a stream of Kubernetes objects",
        details: "A manifest file cannot be read or is not a stream of Kubernetes objects.",
    },
    Rule {
        id: MANIFESTS_EMPTY,
        severity: Severity::Error,
        summary: "`manifests/` holds no object at all",
        details: "`manifests/` holds no object at all.",
    },
    Rule {
        id: BUNDLE_DEPLOYMENT_MISSING,
        severity: Severity::Error,
        summary: "a registry+v2 bundle without a Deployment",
        details: "A registry+v2 bundle without a Deployment.",
    },
    Rule {
        id: MANIFEST_API_REMOVED,
        severity: Severity::Error,
        summary: "an object of an API version Kubernetes has removed, in a registry+v2 bundle",
        details: "An object of an API version Kubernetes has removed (an error in plain+v0 bundles, which are applied as they are; a warning in registry+v2).",
    },
    Rule {
        id: BUNDLE_API_WITHOUT_CRD,
        severity: Severity::Error,
        summary: "an owned API the CSV lists cannot be matched with a CRD",
        details: "An owned API the CSV lists cannot be matched with a CRD.",
    },
    Rule {
        id: OBJECT_PDB_BLOCKS_EVICTION,
        severity: Severity::Error,
        summary: "a PodDisruptionBudget that allows no disruption",
        details: "A PodDisruptionBudget that allows no disruption.",
    },
    Rule {
        id: OBJECT_PRIORITY_CLASS_GLOBAL_DEFAULT,
        severity: Severity::Error,
        summary: "a PriorityClass that is the cluster's global default",
        details: "A PriorityClass that is the cluster's global default.",
    },
    Rule {
        id: OBJECT_RBAC_MODIFIES_DEFAULT_SCC,
        severity: Severity::Error,
        summary: "a Role or ClusterRole that may modify default SecurityContextConstraints",
        details: "A Role or ClusterRole that may modify default SecurityContextConstraints.",
    },
    Rule {
        id: OBJECT_RBAC_MANAGES_PDB,
        severity: Severity::Warning,
        summary: "a Role or ClusterRole that may create or change PodDisruptionBudgets",
        details: "A Role or ClusterRole that may create or change PodDisruptionBudgets (warning).",
    },
    Rule {
        id: MANIFEST_UNREADABLE,
        severity: Severity::Error,
        summary: "a manifests entry that cannot be read as a file",
        details: "A manifests entry that cannot be read as a file (e.g. a directory).",
    },
    Rule {
        id: MANIFEST_DECODE_FAILED,
        severity: Severity::Error,
        summary: "a manifest document that does not decode into an object with a kind",
        details: "A manifest document that does not decode into an object with a kind.",
    },
    Rule {
        id: MANIFEST_KIND_UNSUPPORTED,
        severity: Severity::Error,
        summary: "an object whose kind a registry+v1 bundle may not ship",
        details: "An object whose kind a registry+v1 bundle may not ship.",
    },
    Rule {
        id: OBJECT_METADATA_INVALID,
        severity: Severity::Error,
        summary: "an object whose metadata Kubernetes would refuse (\"kubectl-able\" check)",
        details: "An object whose metadata Kubernetes would refuse (\"kubectl-able\" check).",
    },
    Rule {
        id: CRD_API_VERSION_UNSUPPORTED,
        severity: Severity::Error,
        summary: "a CRD whose `apiVersion` is neither `apiextensions.k8s.io/v1` nor `v1beta1`",
        details: "A CRD whose `apiVersion` is neither `apiextensions.k8s.io/v1` nor `v1beta1`.",
    },
    Rule {
        id: CRD_DECODE_FAILED,
        severity: Severity::Error,
        summary: "a CRD that does not decode into the typed CRD",
        details: "A CRD that does not decode into the typed CRD.",
    },
    Rule {
        id: CRD_V1BETA1_DEPRECATED,
        severity: Severity::Warning,
        summary: "`apiextensions.k8s.io/v1beta1` is deprecated",
        details: "`apiextensions.k8s.io/v1beta1` is deprecated (warning).",
    },
    Rule {
        id: CRD_METADATA_INVALID,
        severity: Severity::Error,
        summary: "the CRD's metadata is invalid (its name must be `<plural>.<group>`)",
        details: "The CRD's metadata is invalid (its name must be `<plural>.<group>`).",
    },
    Rule {
        id: CRD_GROUP_INVALID,
        severity: Severity::Error,
        summary: "`spec.group` is missing or not a domain",
        details: "`spec.group` is missing or not a domain.",
    },
    Rule {
        id: CRD_SCOPE_INVALID,
        severity: Severity::Error,
        summary: "`spec.scope` is missing or not `Cluster`/`Namespaced`",
        details: "`spec.scope` is missing or not `Cluster`/`Namespaced`.",
    },
    Rule {
        id: CRD_VERSIONS_INVALID,
        severity: Severity::Error,
        summary: "the versions are invalid (names, duplicates, storage, top-level version)",
        details: "The versions are invalid (names, duplicates, storage, top-level version).",
    },
    Rule {
        id: CRD_NAMES_INVALID,
        severity: Severity::Error,
        summary: "`spec.names` is incomplete or invalid",
        details: "`spec.names` is incomplete or invalid.",
    },
    Rule {
        id: CRD_VERSION_DETAILS_INVALID,
        severity: Severity::Error,
        summary: "printer columns, subresources or deprecation warnings are invalid",
        details: "Printer columns, subresources or deprecation warnings are invalid.",
    },
    Rule {
        id: CRD_CONVERSION_INVALID,
        severity: Severity::Error,
        summary: "the conversion settings are inconsistent",
        details: "The conversion settings are inconsistent.",
    },
    Rule {
        id: CRD_PRESERVE_UNKNOWN_FIELDS,
        severity: Severity::Error,
        summary: "a v1 CRD sets `preserveUnknownFields: true`",
        details: "A v1 CRD sets `preserveUnknownFields: true`.",
    },
    Rule {
        id: CSV_CONVERSION_FAILED,
        severity: Severity::Error,
        summary: "the typed CSV could not be built (e.g. `spec.version` is a number)",
        details: "The typed CSV could not be built (e.g. `spec.version` is a number).",
    },
    Rule {
        id: CSV_NAME_INVALID,
        severity: Severity::Error,
        summary: "`metadata.name` is not a DNS-1123 subdomain and label value",
        details: "`metadata.name` is not a DNS-1123 subdomain and label value.",
    },
    Rule {
        id: CSV_REPLACES_INVALID,
        severity: Severity::Error,
        summary: "`spec.replaces` is not a DNS-1123 subdomain and label value",
        details: "`spec.replaces` is not a DNS-1123 subdomain and label value.",
    },
    Rule {
        id: CSV_EXAMPLES_MISSING,
        severity: Severity::Warning,
        summary: "the example annotations are missing",
        details: "The example annotations are missing (warning).",
    },
    Rule {
        id: CSV_EXAMPLES_INVALID,
        severity: Severity::Error,
        summary: "the example annotation is not valid JSON or not a list of objects",
        details: "The example annotation is not valid JSON or not a list of objects.",
    },
    Rule {
        id: CSV_EXAMPLE_API_NOT_PROVIDED,
        severity: Severity::Error,
        summary: "an example's group/version/kind is not an API the CSV owns",
        details: "An example's group/version/kind is not an API the CSV owns.",
    },
    Rule {
        id: CSV_API_WITHOUT_EXAMPLE,
        severity: Severity::Warning,
        summary: "an owned API has no example",
        details: "An owned API has no example (warning).",
    },
    Rule {
        id: CSV_OWNED_CRD_NAME_INVALID,
        severity: Severity::Error,
        summary: "an owned CRD name is not `<plural>.<group>`",
        details: "An owned CRD name is not `<plural>.<group>`.",
    },
    Rule {
        id: CSV_INSTALL_MODES_INVALID,
        severity: Severity::Error,
        summary: "`spec.installModes` is empty, supports nothing, or conflicts with conversion webhooks",
        details: "`spec.installModes` is empty, supports nothing, or conflicts with conversion webhooks.",
    },
    Rule {
        id: CSV_MIN_KUBE_VERSION_INVALID,
        severity: Severity::Error,
        summary: "`spec.minKubeVersion` is not a semantic version",
        details: "`spec.minKubeVersion` is not a semantic version (an absent one is a warning).",
    },
    Rule {
        id: CSV_REQUIRED_FIELD_MISSING,
        severity: Severity::Error,
        summary: "a field the CSV type requires is missing",
        details: "A field the CSV type requires is missing.",
    },
    Rule {
        id: CSV_ANNOTATION_WRONG_CASE,
        severity: Severity::Error,
        summary: "an OLM annotation key is spelled with the wrong case",
        details: "An OLM annotation key is spelled with the wrong case.",
    },
    Rule {
        id: CSV_TYPE_META_MISSING,
        severity: Severity::Error,
        summary: "`apiVersion` or `kind` is missing",
        details: "`apiVersion` or `kind` is missing.",
    },
    Rule {
        id: DEPENDENCY_UNPARSEABLE,
        severity: Severity::Error,
        summary: "a dependency entry whose value does not decode for its type, or whose type is unknown",
        details: "An entry whose `value` is missing or does not decode into the shape its `type` needs, or whose `type` is unknown: `couldn't parse dependency of type <type>`.",
    },
    Rule {
        id: DEPENDENCY_GVK_INVALID,
        severity: Severity::Error,
        summary: "an `olm.gvk` dependency with an empty field",
        details: "An `olm.gvk` entry with an empty field: `API Group is empty`, `API Version is empty`, `API Kind is empty`.",
    },
    Rule {
        id: DEPENDENCY_PACKAGE_INVALID,
        severity: Severity::Error,
        summary: "an `olm.package` dependency without a name or with an invalid version range",
        details: "An `olm.package` entry without a name or with a version range blang semver cannot parse: `Package name is empty`, `Package version is empty`, `Invalid semver format version`.",
    },
    Rule {
        id: DEPENDENCY_LABEL_INVALID,
        severity: Severity::Error,
        summary: "an `olm.label` dependency without a label",
        details: "An `olm.label` entry without a label: `Label information is missing`.",
    },
    Rule {
        id: DEPENDENCY_CONSTRAINT_INVALID,
        severity: Severity::Error,
        summary: "an `olm.constraint` dependency whose structure is wrong",
        details: "An `olm.constraint` whose structure is wrong: no form at all (`The CEL field is missing`, upstream's text), a `package` or `gvk` form with empty fields or a bad range, a compound form without constraints. Problems inside compound forms name their place (`all.constraints[1]: API Kind is empty`).",
    },
    Rule {
        id: DEPENDENCY_CONSTRAINT_CEL_INVALID,
        severity: Severity::Error,
        summary: "an `olm.constraint` CEL rule that is empty or does not compile",
        details: "An `olm.constraint` `cel` form whose rule is empty (`The CEL expression is missing`) or does not compile (`Invalid CEL expression: <cel diagnostic>`).",
    },
    Rule {
        id: DEPENDENCY_CONSTRAINT_AMBIGUOUS,
        severity: Severity::Warning,
        summary: "an `olm.constraint` sets more than one form; OLM evaluates only one of them",
        details: "Warning: an `olm.constraint` sets more than one form; OLM evaluates only one of them. Problems in the other forms of a top-level constraint that also has `cel` are warnings too, as upstream ignores everything but `cel`.",
    },
    Rule {
        id: BUNDLE_DIR_UNREADABLE,
        severity: Severity::Error,
        summary: "the bundle directory, or its `metadata/` directory, cannot be listed",
        details: "The bundle directory, or its `metadata/` directory, cannot be listed (message: the operating system's error, as upstream adds it).",
    },
    Rule {
        id: BUNDLE_MISSING_MANIFESTS_DIR,
        severity: Severity::Error,
        summary: "no `manifests` directory at the bundle root",
        details: "No `manifests` directory at the bundle root: `Unable to locate manifests directory`.",
    },
    Rule {
        id: BUNDLE_MISSING_METADATA_DIR,
        severity: Severity::Error,
        summary: "no `metadata` directory at the bundle root",
        details: "No `metadata` directory at the bundle root: `Unable to locate metadata directory`.",
    },
    Rule {
        id: BUNDLE_MEDIATYPE_UNDETECTED,
        severity: Severity::Error,
        summary: "the media type of `manifests/` cannot be detected",
        details: "The media type of `manifests/` cannot be detected (upstream's `GetMediaType` error, e.g. `The directory <dir> contains no yaml files`).",
    },
    Rule {
        id: ANNOTATIONS_FILE_MISSING,
        severity: Severity::Error,
        summary: "no file of `metadata/` holds the annotations",
        details: "No file of `metadata/` decodes as `{annotations: {…}}`: `Could not find annotations file`.",
    },
    Rule {
        id: ANNOTATIONS_MISSING,
        severity: Severity::Error,
        summary: "a required label is absent from the annotations file",
        details: "A required label is absent from the annotations file: `Missing annotation \"<key>\"` (every label but the default channel).",
    },
    Rule {
        id: ANNOTATIONS_MEDIATYPE_MISMATCH,
        severity: Severity::Error,
        summary: "the media type label differs from the detected media type",
        details: "The media type label differs from the detected media type (`plain` and `plain+v0` are the same): `Expecting annotation \"…mediatype.v1\" to have value \"<detected>\" instead of \"<actual>\"`.",
    },
    Rule {
        id: ANNOTATIONS_CHANNELS_EMPTY,
        severity: Severity::Error,
        summary: "the channels label is empty or absent",
        details: "The channels label is empty or absent: `Expecting annotation \"…channels.v1\" to have non-empty value`.",
    },
    Rule {
        id: ANNOTATIONS_DEFAULT_CHANNEL_EMPTY,
        severity: Severity::Error,
        summary: "the default channel label is present but empty",
        details: "The default channel label is present but empty: `Expecting annotation \"…channel.default.v1\" to have non-empty value`.",
    },
    Rule {
        id: GOOD_PRACTICES_NO_DEPLOYMENT,
        severity: Severity::Error,
        summary: "the CSV's install strategy has no deployment",
        details: "The CSV's install strategy has no deployment (an error upstream too).",
    },
    Rule {
        id: GOOD_PRACTICES_RESOURCE_REQUESTS,
        severity: Severity::Warning,
        summary: "a container sets no CPU or memory request",
        details: "A container sets no CPU or memory request.",
    },
    Rule {
        id: GOOD_PRACTICES_CRD_DESCRIPTION,
        severity: Severity::Warning,
        summary: "an owned or required CRD has no description",
        details: "An owned or required CRD has no description.",
    },
    Rule {
        id: GOOD_PRACTICES_CHANNEL_NAMING,
        severity: Severity::Warning,
        summary: "a channel name does not start with `candidate`, `stable` or `fast`",
        details: "A channel name does not start with `candidate`, `stable` or `fast`.",
    },
    Rule {
        id: GOOD_PRACTICES_RBAC_CREATES_CRDS,
        severity: Severity::Warning,
        summary: "the CSV's permissions allow creating CRDs",
        details: "The CSV's permissions allow creating CRDs.",
    },
    Rule {
        id: GOOD_PRACTICES_BUNDLE_NAME,
        severity: Severity::Warning,
        summary: "the CSV name is not `<operator>.v<semver>`",
        details: "The CSV name is not `<operator>.v<semver>`.",
    },
    Rule {
        id: OPERATORHUB_CSV_INVALID,
        severity: Severity::Error,
        summary: "a CSV misses OperatorHub metadata or carries invalid values",
        details: "A CSV misses OperatorHub metadata or carries invalid values.",
    },
    Rule {
        id: OPERATORHUB_ICON_MISSING,
        severity: Severity::Warning,
        summary: "the CSV has no icon",
        details: "The CSV has no icon (warning).",
    },
    Rule {
        id: BUNDLE_CSV_MISSING,
        severity: Severity::Error,
        summary: "the manifests decode but none is a ClusterServiceVersion",
        details: "The manifests decode but none is a ClusterServiceVersion.",
    },
    Rule {
        id: BUNDLE_CSV_MULTIPLE,
        severity: Severity::Warning,
        summary: "more than one ClusterServiceVersion: OLM uses the first",
        details: "More than one ClusterServiceVersion: OLM uses the first (warning, as upstream accepts such bundles).",
    },
    Rule {
        id: BUNDLE_CSV_UNREADABLE,
        severity: Severity::Error,
        summary: "the CSV or a CRD cannot be decoded for the registry checks",
        details: "The CSV or a CRD cannot be decoded for the registry checks.",
    },
    Rule {
        id: BUNDLE_OWNED_CRD_MISSING,
        severity: Severity::Error,
        summary: "a CRD the CSV owns is not in the bundle",
        details: "A CRD the CSV owns is not in the bundle.",
    },
    Rule {
        id: BUNDLE_CRD_NOT_OWNED,
        severity: Severity::Warning,
        summary: "a CRD in the bundle is not owned by the CSV",
        details: "A CRD in the bundle is not owned by the CSV (warning).",
    },
    Rule {
        id: BUNDLE_CSV_VERSION_INVALID,
        severity: Severity::Error,
        summary: "`spec.version` or `spec.release` has the wrong type",
        details: "`spec.version` or `spec.release` has the wrong type.",
    },
    Rule {
        id: BUNDLE_RELEASE_WITH_SUBSTITUTES_FOR,
        severity: Severity::Error,
        summary: "the CSV sets both `spec.release` and the `olm.substitutesFor` annotation",
        details: "The CSV sets both `spec.release` and the `olm.substitutesFor` annotation.",
    },
    Rule {
        id: CSV_MIN_KUBE_VERSION_MISSING,
        severity: Severity::Warning,
        summary: "`spec.minKubeVersion` is not set",
        details: "The CSV does not say which Kubernetes version it needs (`spec.minKubeVersion`), so it can be installed on any cluster, which is not necessarily what the operator supports (warning, as upstream).",
    },
    Rule {
        id: PLAIN_MANIFEST_API_REMOVED,
        severity: Severity::Error,
        summary: "an object of an API version Kubernetes has removed, in a plain+v0 bundle",
        details: "A plain+v0 bundle is applied as it is, so an object whose API version Kubernetes has removed fails on every current cluster.",
    },
    Rule {
        id: DEPENDENCY_CONSTRAINT_FORM_IGNORED,
        severity: Severity::Warning,
        summary: "a form of an `olm.constraint` has a problem, but its `cel` rule decides",
        details: "A top-level `olm.constraint` with a `cel` rule is evaluated by that rule alone (upstream ignores every other form), so a problem in one of its other forms is a warning: it would matter if the constraint were ever read differently.",
    },
];

/// The bundle rule with id `id`.
pub fn find(id: &str) -> Option<&'static Rule> {
    ALL.iter().find(|rule| rule.id == id)
}

/// A finding of `rule` (one of [`ALL`], whose severity it takes) about the bundle, in
/// `file` (relative to the bundle root: `manifests/csv.yaml`, `metadata/annotations.yaml`) when
/// there is one.
pub fn finding(rule: &'static str, message: impl Into<String>, file: Option<String>) -> Diagnostic {
    let severity = find(rule).map_or_else(
        || {
            debug_assert!(false, "rule {rule} is not registered");
            Severity::Error
        },
        |rule| rule.severity,
    );
    let subject = crate::diag::Subject::File {
        path: file.clone().unwrap_or_default(),
    };
    Diagnostic {
        rule,
        severity,
        message: message.into(),
        subject,
        location: file.map(crate::diag::Location::file),
    }
}
