//! Placeholder: replaced by the content checks.
use super::{Finding, Options};
pub fn validate_content(_root: &std::path::Path, _options: &Options) -> Vec<Finding> {
    Vec::new()
}
