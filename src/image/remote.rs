//! Placeholder: pulling from registries (replaced by the implementation).
use super::{PullOptions, PulledImage};

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct PullError {
    pub message: String,
}

/// Pulls `reference` (blocking).
pub fn pull(reference: &str, options: &PullOptions) -> Result<PulledImage, PullError> {
    let _ = options;
    Err(PullError {
        message: format!("pulling {reference}: placeholder"),
    })
}
