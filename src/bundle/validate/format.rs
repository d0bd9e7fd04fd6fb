//! Placeholder: replaced by the format checks.
use super::Finding;
pub fn validate_format(_root: &std::path::Path) -> Vec<Finding> {
    Vec::new()
}
