//! The shapes of the typed ClusterServiceVersion's fields, as upstream's Go types declare them (checked by [`super::super::shape`]).

use crate::bundle::validate::shape::{self, ShapeError, Ty};
use crate::encoding::gojson::{GoJsonError, Target};
use crate::semver::{parse_release, Version};
use serde_json::Value;

pub(super) const STRING: Ty = Ty::Str("string");
pub(super) const STRINGS: Ty = Ty::List(&STRING);
pub(super) const STRING_MAP: Ty = Ty::Map(&STRING);

pub(super) const DESCRIPTOR: Ty = Ty::Struct(
    "v1alpha1.SpecDescriptor",
    &[
        ("path", STRING),
        ("displayName", STRING),
        ("description", STRING),
        ("x-descriptors", STRINGS),
        ("value", Ty::Any),
    ],
);

pub(super) const RESOURCE_REFERENCE: Ty = Ty::Struct(
    "v1alpha1.APIResourceReference",
    &[("name", STRING), ("kind", STRING), ("version", STRING)],
);

pub(super) const CRD_DESCRIPTION: Ty = Ty::Struct(
    "v1alpha1.CRDDescription",
    &[
        ("name", STRING),
        ("version", STRING),
        ("kind", STRING),
        ("displayName", STRING),
        ("description", STRING),
        ("resources", Ty::List(&RESOURCE_REFERENCE)),
        ("statusDescriptors", Ty::List(&DESCRIPTOR)),
        ("specDescriptors", Ty::List(&DESCRIPTOR)),
        ("actionDescriptors", Ty::List(&DESCRIPTOR)),
    ],
);

pub(super) const API_SERVICE_DESCRIPTION: Ty = Ty::Struct(
    "v1alpha1.APIServiceDescription",
    &[
        ("name", STRING),
        ("group", STRING),
        ("version", STRING),
        ("kind", STRING),
        ("deploymentName", STRING),
        ("containerPort", Ty::Int("int32")),
        ("displayName", STRING),
        ("description", STRING),
        ("resources", Ty::List(&RESOURCE_REFERENCE)),
        ("statusDescriptors", Ty::List(&DESCRIPTOR)),
        ("specDescriptors", Ty::List(&DESCRIPTOR)),
        ("actionDescriptors", Ty::List(&DESCRIPTOR)),
    ],
);

pub(super) const WEBHOOK_DESCRIPTION: Ty = Ty::Struct(
    "v1alpha1.WebhookDescription",
    &[
        ("generateName", STRING),
        ("type", Ty::Str("v1alpha1.WebhookAdmissionType")),
        ("deploymentName", STRING),
        ("containerPort", Ty::Int("int32")),
        ("targetPort", Ty::Any),
        ("rules", Ty::Any),
        ("failurePolicy", Ty::Str("v1.FailurePolicyType")),
        ("matchPolicy", Ty::Str("v1.MatchPolicyType")),
        ("objectSelector", Ty::Any),
        ("sideEffects", Ty::Str("v1.SideEffectClass")),
        ("timeoutSeconds", Ty::Int("int32")),
        ("admissionReviewVersions", STRINGS),
        ("reinvocationPolicy", Ty::Str("v1.ReinvocationPolicyType")),
        ("webhookPath", STRING),
        ("conversionCRDs", STRINGS),
    ],
);

pub(super) const POLICY_RULE: Ty = Ty::Struct(
    "v1.PolicyRule",
    &[
        ("verbs", STRINGS),
        ("apiGroups", STRINGS),
        ("resources", STRINGS),
        ("resourceNames", STRINGS),
        ("nonResourceURLs", STRINGS),
    ],
);

pub(super) const PERMISSIONS: Ty = Ty::Struct(
    "v1alpha1.StrategyDeploymentPermissions",
    &[
        ("serviceAccountName", STRING),
        ("rules", Ty::List(&POLICY_RULE)),
    ],
);

pub(super) const CONTAINER: Ty = Ty::Struct(
    "v1.Container",
    &[
        ("name", STRING),
        ("image", STRING),
        ("command", STRINGS),
        ("args", STRINGS),
        ("workingDir", STRING),
        ("resources", Ty::Any),
        ("imagePullPolicy", Ty::Str("v1.PullPolicy")),
    ],
);

pub(super) const POD_SPEC: Ty = Ty::Struct(
    "v1.PodSpec",
    &[
        ("initContainers", Ty::List(&CONTAINER)),
        ("containers", Ty::List(&CONTAINER)),
        ("serviceAccountName", STRING),
    ],
);

pub(super) const DEPLOYMENT_SPEC: Ty = Ty::Struct(
    "v1.DeploymentSpec",
    &[
        ("replicas", Ty::Int("int32")),
        ("selector", Ty::Any),
        (
            "template",
            Ty::Struct(
                "v1.PodTemplateSpec",
                &[("metadata", shape::OBJECT_META), ("spec", POD_SPEC)],
            ),
        ),
    ],
);

pub(super) const DEPLOYMENT: Ty = Ty::Struct(
    "v1alpha1.StrategyDeploymentSpec",
    &[
        ("name", STRING),
        ("spec", DEPLOYMENT_SPEC),
        ("label", STRING_MAP),
    ],
);

pub(super) const APP_LINK: Ty =
    Ty::Struct("v1alpha1.AppLink", &[("name", STRING), ("url", STRING)]);

/// The parts of `v1alpha1.ClusterServiceVersion` whose type matters.
pub(super) const CSV: Ty = Ty::Struct(
    "v1alpha1.ClusterServiceVersion",
    &[
        ("", shape::TYPE_META),
        ("metadata", shape::OBJECT_META),
        (
            "spec",
            Ty::Struct(
                "v1alpha1.ClusterServiceVersionSpec",
                &[
                    (
                        "install",
                        Ty::Struct(
                            "v1alpha1.NamedInstallStrategy",
                            &[
                                ("strategy", STRING),
                                (
                                    "spec",
                                    Ty::Struct(
                                        "v1alpha1.StrategyDetailsDeployment",
                                        &[
                                            ("deployments", Ty::List(&DEPLOYMENT)),
                                            ("permissions", Ty::List(&PERMISSIONS)),
                                            ("clusterPermissions", Ty::List(&PERMISSIONS)),
                                        ],
                                    ),
                                ),
                            ],
                        ),
                    ),
                    (
                        "version",
                        Ty::Custom("version.OperatorVersion", operator_version),
                    ),
                    (
                        "release",
                        Ty::Custom("version.OperatorRelease", operator_release),
                    ),
                    ("maturity", STRING),
                    (
                        "customresourcedefinitions",
                        Ty::Struct(
                            "v1alpha1.CustomResourceDefinitions",
                            &[
                                ("owned", Ty::List(&CRD_DESCRIPTION)),
                                ("required", Ty::List(&CRD_DESCRIPTION)),
                            ],
                        ),
                    ),
                    (
                        "apiservicedefinitions",
                        Ty::Struct(
                            "v1alpha1.APIServiceDefinitions",
                            &[
                                ("owned", Ty::List(&API_SERVICE_DESCRIPTION)),
                                ("required", Ty::List(&API_SERVICE_DESCRIPTION)),
                            ],
                        ),
                    ),
                    ("webhookdefinitions", Ty::List(&WEBHOOK_DESCRIPTION)),
                    (
                        "nativeAPIs",
                        Ty::List(&Ty::Struct(
                            "v1.GroupVersionKind",
                            &[("group", STRING), ("version", STRING), ("kind", STRING)],
                        )),
                    ),
                    ("minKubeVersion", STRING),
                    ("displayName", STRING),
                    ("description", STRING),
                    ("keywords", STRINGS),
                    (
                        "maintainers",
                        Ty::List(&Ty::Struct(
                            "v1alpha1.Maintainer",
                            &[("name", STRING), ("email", STRING)],
                        )),
                    ),
                    ("provider", APP_LINK),
                    ("links", Ty::List(&APP_LINK)),
                    (
                        "icon",
                        Ty::List(&Ty::Struct(
                            "v1alpha1.Icon",
                            &[("base64data", STRING), ("mediatype", STRING)],
                        )),
                    ),
                    (
                        "installModes",
                        Ty::List(&Ty::Struct(
                            "v1alpha1.InstallMode",
                            &[
                                ("type", Ty::Str("v1alpha1.InstallModeType")),
                                ("supported", Ty::Bool),
                            ],
                        )),
                    ),
                    ("replaces", STRING),
                    ("labels", STRING_MAP),
                    ("annotations", STRING_MAP),
                    ("selector", Ty::Any),
                    (
                        "cleanup",
                        Ty::Struct("v1alpha1.CleanupSpec", &[("enabled", Ty::Bool)]),
                    ),
                    ("skips", STRINGS),
                    (
                        "relatedImages",
                        Ty::List(&Ty::Struct(
                            "v1alpha1.RelatedImage",
                            &[("name", STRING), ("image", STRING)],
                        )),
                    ),
                ],
            ),
        ),
        ("status", Ty::Any),
    ],
);

/// `spec.version` as the typed CSV reads it: a JSON string accepted by
/// blang's `ParseTolerant`.
fn operator_version(v: &Value) -> Result<(), ShapeError> {
    match v {
        Value::String(s) => Ok(Version::parse_tolerant(s).map(drop)?),
        other => Err(GoJsonError::mismatch(other, Target::value("string")).into()),
    }
}

/// `spec.release`: a string or number holding a release version.
fn operator_release(v: &Value) -> Result<(), ShapeError> {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return Err(ShapeError::ReleaseType),
    };
    Ok(parse_release(&text).map(drop)?)
}
