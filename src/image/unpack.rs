//! Placeholder: safe layer extraction (replaced by the implementation).
use std::io::Read;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct Limits {
    pub max_total_bytes: u64,
    pub max_entries: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_total_bytes: 1 << 30,
            max_entries: 1 << 20,
        }
    }
}

#[derive(Debug)]
pub struct State {
    pub limits: Limits,
}

impl State {
    pub fn new(limits: Limits) -> State {
        State { limits }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum UnpackError {
    #[error("read {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Refused(String),
}

pub fn apply_layer(
    reader: impl Read,
    media_type: &str,
    dest: &Path,
    state: &mut State,
) -> Result<(), UnpackError> {
    let _ = (reader, media_type, dest, state);
    Err(UnpackError::Refused("placeholder".into()))
}
