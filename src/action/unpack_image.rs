//! Getting an image's filesystem into a private temporary directory: with
//! our own registry client (`none`), or through `docker` / `podman` with
//! upstream's exact command sequence (`pull`, `create`, `cp`, `rm`).

use crate::image::{remote, unpack, LayerError, PullOptions};
use std::path::Path;
use std::process::Command;

#[derive(Debug, thiserror::Error)]
pub enum UnpackImageError {
    #[error(transparent)]
    Pull(#[from] remote::PullError),
    #[error("failed to unpack image {}", crate::encoding::json::go_quote(.reference))]
    Unpack {
        reference: String,
        #[source]
        source: LayerError,
    },
    #[error("create a temporary directory: {0}")]
    TempDir(std::io::Error),
    #[error("{0}")]
    Tool(String),
    /// The tool could not be started.
    #[error("run {tool}: {}", crate::declcfg::load::io_message(.error))]
    Run { tool: String, error: std::io::Error },
}

/// Pulls and unpacks `reference` with `builder` (`none`, `docker` or
/// `podman`) into a temporary directory that is removed when dropped.
pub fn unpack_bundle_image(
    reference: &str,
    builder: &str,
    pull: &PullOptions,
) -> Result<crate::fsutil::TempDir, UnpackImageError> {
    let dir = crate::image::temp_dir().map_err(UnpackImageError::TempDir)?;
    match builder {
        "docker" | "podman" => unpack_with_tool(builder, reference, pull, dir.path())?,
        _ => {
            let image = crate::image::source::pull(reference, pull)?;
            image
                .unpack(dir.path(), &unpack::Limits::default())
                .map_err(|source| UnpackImageError::Unpack {
                    reference: reference.to_string(),
                    source,
                })?;
        }
    }
    Ok(dir)
}

fn run(tool: &str, args: &[&str]) -> Result<std::process::Output, UnpackImageError> {
    Command::new(tool)
        .args(args)
        .output()
        .map_err(|error| UnpackImageError::Run {
            tool: tool.to_string(),
            error,
        })
}

fn combined(output: &std::process::Output) -> String {
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    text.trim_end().to_string()
}

/// Upstream's sequence: `<tool> pull REF`, `<tool> create REF ""`,
/// `<tool> cp ID:/. DIR`, `<tool> rm ID`.
fn unpack_with_tool(
    tool: &str,
    reference: &str,
    pull: &PullOptions,
    dir: &Path,
) -> Result<(), UnpackImageError> {
    let mut pull_args = vec!["pull"];
    if tool == "podman" && (pull.transport.use_http || pull.transport.skip_tls_verify) {
        pull_args.push("--tls-verify=false");
    }
    pull_args.push(reference);
    let output = run(tool, &pull_args)?;
    if !output.status.success() {
        return Err(UnpackImageError::Tool(format!(
            "error pulling image: {}. {}",
            combined(&output),
            output.status
        )));
    }
    let output = run(tool, &["create", reference, ""])?;
    let id = String::from_utf8_lossy(&output.stdout)
        .trim_end_matches('\n')
        .to_string();
    if !output.status.success() {
        return Err(UnpackImageError::Tool(format!(
            "error creating container {id}: {}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim_end()
        )));
    }
    let dir_text = dir.to_string_lossy().into_owned();
    let copy = run(tool, &["cp", &format!("{id}:/."), &dir_text]);
    let remove = run(tool, &["rm", &id]);
    let copy = copy?;
    if !copy.status.success() {
        return Err(UnpackImageError::Tool(format!(
            "error copying container directory {}: {}",
            combined(&copy),
            copy.status
        )));
    }
    let remove = remove?;
    if !remove.status.success() {
        return Err(UnpackImageError::Tool(format!(
            "error removing container {}: {}",
            combined(&remove),
            remove.status
        )));
    }
    Ok(())
}
