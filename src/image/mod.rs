//! Container images: references, registry credentials, pulling from any
//! OCI registry (no daemon), and unpacking layers safely. Images are
//! untrusted input: every blob's digest and size is checked, and unpacking
//! refuses anything that would write outside its directory.

pub mod auth;
pub mod build;
pub mod reference;
pub mod remote;
pub mod source;
pub mod tool;
pub mod unpack;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The Go (and OCI) name of a Rust architecture name: `amd64` for
/// `x86_64`, `arm64` for `aarch64`, ….
pub fn go_arch(arch: &str) -> &str {
    match arch {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "powerpc64" => "ppc64le",
        "x86" => "386",
        other => other,
    }
}

/// How to reach registries (the global `--use-http` / `--skip-tls-verify`
/// flags; the deprecated `--skip-tls` means `--use-http`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Transport {
    pub use_http: bool,
    pub skip_tls_verify: bool,
}

/// Everything a pull needs besides the reference.
#[derive(Debug, Clone)]
pub struct PullOptions {
    pub transport: Transport,
    pub auth: auth::AuthFiles,
    /// Show download progress on stderr (only when it is a terminal).
    pub progress: bool,
    /// `os/arch[/variant]` to pick from a multi-platform image; `None` picks
    /// linux/amd64 if present, else the host platform.
    pub platform: Option<String>,
    /// A PEM file of extra root certificates to trust (`--root-ca`).
    pub root_ca: Option<PathBuf>,
    /// Deadlines and rates registries must meet.
    pub limits: remote::Limits,
}

/// A private temporary directory for a pulled image's layers or files
/// (`opm-image-*` under the system's temporary directory), removed when
/// dropped. Every such directory is created here.
pub fn temp_dir() -> std::io::Result<crate::fsutil::TempDir> {
    crate::fsutil::TempDir::new("opm-image-", None)
}

/// A layer that could not be applied: which one, and why.
#[derive(Debug, thiserror::Error)]
#[error("layer {} ({index} of {count})", crate::encoding::json::go_quote(.digest))]
pub struct LayerError {
    pub digest: String,
    /// 1-based.
    pub index: usize,
    pub count: usize,
    #[source]
    pub source: unpack::UnpackError,
}

/// A compressed or plain layer blob on disk, its digest and size verified.
#[derive(Debug, Clone)]
pub struct Layer {
    pub path: PathBuf,
    pub media_type: String,
    pub digest: String,
    pub size: u64,
}

/// A pulled image: its labels and verified layers in a private temporary
/// directory, removed when the value is dropped.
#[derive(Debug)]
pub struct PulledImage {
    /// The reference as the user typed it.
    pub reference: String,
    /// The digest of the manifest the reference names (the image index's,
    /// for a multi-platform image).
    pub manifest_digest: String,
    /// The image config's labels.
    pub labels: BTreeMap<String, String>,
    /// The image config, byte for byte (its digest verified; at most
    /// [`remote::MAX_CONFIG_SIZE`]).
    pub config: Vec<u8>,
    /// The platform chosen from an image index, when the reference named one.
    pub platform: Option<String>,
    pub layers: Vec<Layer>,
    /// Owns the directory that holds the layer files.
    pub dir: crate::fsutil::TempDir,
}

impl PulledImage {
    /// Applies the layers in order into `dest` (an empty directory).
    pub fn unpack(&self, dest: &Path, limits: &unpack::Limits) -> Result<(), LayerError> {
        let mut state = unpack::State::new(limits.clone());
        let count = self.layers.len();
        for (index, layer) in self.layers.iter().enumerate() {
            let fail = |source| LayerError {
                digest: layer.digest.clone(),
                index: index + 1,
                count,
                source,
            };
            let file = std::fs::File::open(&layer.path).map_err(|source| {
                fail(unpack::UnpackError::Io {
                    path: layer.path.clone(),
                    source,
                })
            })?;
            unpack::apply_layer(
                std::io::BufReader::new(file),
                &layer.media_type,
                dest,
                &mut state,
            )
            .map_err(fail)?;
        }
        Ok(())
    }
}
