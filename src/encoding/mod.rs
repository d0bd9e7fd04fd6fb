//! Byte-level formats shared by every command: JSON and YAML readers and
//! writers that reproduce upstream's exact bytes, Go-compatible base64 and
//! string quoting. No I/O and no knowledge of catalogs or bundles.

pub mod base64;
pub mod json;
pub mod stream;
pub mod timestamp;
pub mod yaml_read;
pub mod yaml_write;
