//! `opm bundle init [SRC]` (also `opm alpha bundle init`): check the
//! arguments, read stdin for `-`, run the action, list what was written.

use crate::action::bundle_init::{parse_media_type, InitBundle, InitError, Source};
use crate::cli::bundle::BundleInitArgs;
use crate::ExitStatus;
use anyhow::Context as _;
use std::io::Read as _;
use std::path::PathBuf;

pub(super) fn run(args: BundleInitArgs) -> anyhow::Result<ExitStatus> {
    let BundleInitArgs {
        src,
        mediatype,
        generate_dockerfile,
        package,
        channels,
        default_channel,
    } = args;
    let media_type = match mediatype.filter(|m| !m.is_empty()) {
        Some(value) => Some(parse_media_type(&value)?),
        None => None,
    };
    let source = match src.as_slice() {
        [] => Source::None,
        [dash] if dash == "-" => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .context("read stdin")?;
            Source::Stream(bytes)
        }
        [dir] => Source::Directory(PathBuf::from(dir)),
        more => {
            return Err(super::usage(format!(
                "accepts at most 1 arg(s), received {}",
                more.len()
            )))
        }
    };
    let init = InitBundle {
        source,
        media_type,
        generate_dockerfile,
        package: package.unwrap_or_default(),
        channels: channels.unwrap_or_default(),
        default_channel: default_channel.unwrap_or_default(),
        working_dir: super::bundle_generate::working_dir()?,
    };
    let done = init
        .run(&mut |message| crate::output::warning(message))
        .map_err(|error| match error {
            InitError::NoManifests => super::with_hint(
                error,
                "give the media type: -m registry+v1, -m registry+v2 or -m plain+v0 (defaults are generated for it)",
            ),
            other => anyhow::Error::new(other),
        })?;
    for path in &done.written {
        crate::output::info(&format!("Writing {path}"));
    }
    Ok(ExitStatus::Success)
}
