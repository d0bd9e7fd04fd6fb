//! What `opm bundle validate` runs besides the default checks.

/// The optional validators (`-o/--optional-validators`), a closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Optional {
    OperatorHub,
    BundleObjects,
    GoodPractices,
}

impl Optional {
    pub const ALL: [Optional; 3] = [
        Optional::OperatorHub,
        Optional::BundleObjects,
        Optional::GoodPractices,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Optional::OperatorHub => "operatorhub",
            Optional::BundleObjects => "bundle-objects",
            Optional::GoodPractices => "good-practices",
        }
    }

    /// Parses a comma-separated list (items trimmed, empty items ignored);
    /// an unknown name is an error naming it and the valid names.
    pub fn parse_list(value: &str) -> Result<Vec<Optional>, UnknownOptional> {
        let mut selected = Vec::new();
        for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let Some(found) = Optional::ALL.iter().find(|o| o.name() == item) else {
                return Err(UnknownOptional(item.to_string()));
            };
            if !selected.contains(found) {
                selected.push(*found);
            }
        }
        Ok(selected)
    }
}

/// An optional validator name that is not one of [`Optional::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid optional validator {}: must be one or more of [{}]",
    crate::encoding::json::go_quote(.0),
    Optional::ALL.map(Optional::name).join(", ")
)]
pub struct UnknownOptional(pub String);

/// What to run besides the default checks.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub optional: Vec<Optional>,
}
