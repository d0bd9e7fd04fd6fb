//! The shapes of the typed CustomResourceDefinition's fields (v1 and v1beta1), as upstream's Go types declare them.

use crate::bundle::validate::shape::{self, Ty};

pub(super) const STRING: Ty = Ty::Str("string");
pub(super) const STRINGS: Ty = Ty::List(&STRING);

pub(super) const NAMES: Ty = Ty::Struct(
    "v1.CustomResourceDefinitionNames",
    &[
        ("plural", STRING),
        ("singular", STRING),
        ("shortNames", STRINGS),
        ("kind", STRING),
        ("listKind", STRING),
        ("categories", STRINGS),
    ],
);

pub(super) const COLUMN_V1: Ty = Ty::Struct(
    "v1.CustomResourceColumnDefinition",
    &[
        ("name", STRING),
        ("type", STRING),
        ("format", STRING),
        ("description", STRING),
        ("priority", Ty::Int("int32")),
        ("jsonPath", STRING),
    ],
);

pub(super) const COLUMN_V1BETA1: Ty = Ty::Struct(
    "v1beta1.CustomResourceColumnDefinition",
    &[
        ("name", STRING),
        ("type", STRING),
        ("format", STRING),
        ("description", STRING),
        ("priority", Ty::Int("int32")),
        ("JSONPath", STRING),
    ],
);

pub(super) const VERSION_V1: Ty = Ty::Struct(
    "v1.CustomResourceDefinitionVersion",
    &[
        ("name", STRING),
        ("served", Ty::Bool),
        ("storage", Ty::Bool),
        ("deprecated", Ty::Bool),
        ("deprecationWarning", STRING),
        ("schema", Ty::Any),
        ("subresources", Ty::Any),
        ("additionalPrinterColumns", Ty::List(&COLUMN_V1)),
    ],
);

pub(super) const VERSION_V1BETA1: Ty = Ty::Struct(
    "v1beta1.CustomResourceDefinitionVersion",
    &[
        ("name", STRING),
        ("served", Ty::Bool),
        ("storage", Ty::Bool),
        ("deprecated", Ty::Bool),
        ("deprecationWarning", STRING),
        ("schema", Ty::Any),
        ("subresources", Ty::Any),
        ("additionalPrinterColumns", Ty::List(&COLUMN_V1BETA1)),
    ],
);

pub(super) const CRD_V1: Ty = Ty::Struct(
    "v1.CustomResourceDefinition",
    &[
        ("", shape::TYPE_META),
        ("metadata", shape::OBJECT_META),
        (
            "spec",
            Ty::Struct(
                "v1.CustomResourceDefinitionSpec",
                &[
                    ("group", STRING),
                    ("names", NAMES),
                    ("scope", Ty::Str("v1.ResourceScope")),
                    ("versions", Ty::List(&VERSION_V1)),
                    ("conversion", Ty::Any),
                    ("preserveUnknownFields", Ty::Bool),
                ],
            ),
        ),
        ("status", Ty::Any),
    ],
);

pub(super) const CRD_V1BETA1: Ty = Ty::Struct(
    "v1beta1.CustomResourceDefinition",
    &[
        ("", shape::TYPE_META),
        ("metadata", shape::OBJECT_META),
        (
            "spec",
            Ty::Struct(
                "v1beta1.CustomResourceDefinitionSpec",
                &[
                    ("group", STRING),
                    ("version", STRING),
                    ("names", NAMES),
                    ("scope", Ty::Str("v1beta1.ResourceScope")),
                    ("validation", Ty::Any),
                    ("subresources", Ty::Any),
                    ("versions", Ty::List(&VERSION_V1BETA1)),
                    ("additionalPrinterColumns", Ty::List(&COLUMN_V1BETA1)),
                    ("conversion", Ty::Any),
                    ("preserveUnknownFields", Ty::Bool),
                ],
            ),
        ),
        ("status", Ty::Any),
    ],
);
