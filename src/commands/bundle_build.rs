use crate::action::bundle_build::{BuildBundle, BuildError, Destination, Output};
use crate::action::bundle_generate::GenerateBundle;
use crate::cli::bundle::BundleBuildArgs;
use crate::encoding::json::go_quote;
use crate::image::tool::ContainerTool;
use crate::ExitStatus;
use anyhow::bail;
use std::path::{Path, PathBuf};

/// Upstream's flags (`-d` and `-t` required for a container tool), plus the
/// seed's `DIR [DESTINATION]` form, which builds without a container tool.
pub(super) fn run(
    args: BundleBuildArgs,
    global: &crate::cli::GlobalArgs,
) -> anyhow::Result<ExitStatus> {
    let BundleBuildArgs {
        target,
        directory,
        tag,
        package,
        channels,
        image_builder,
        default_channel,
        overwrite,
        output_dir,
        base_image,
        skip_validation,
    } = args;
    let given = |value: Option<String>| value.filter(|v| !v.is_empty());
    let (tag, image_builder) = (given(tag), given(image_builder));
    let (positional, destination) = match target.as_slice() {
        [] => (None, None),
        [dir] => (Some(dir.clone()), None),
        [dir, destination] => (Some(dir.clone()), Some(destination.as_str())),
        more => {
            return Err(super::usage(format!(
                "accepts at most 2 arg(s), received {}",
                more.len()
            )))
        }
    };
    let directory = match (positional, given(directory)) {
        (Some(_), Some(_)) => {
            return Err(super::usage(
                "give the bundle directory either as an argument or with --directory, not both",
            ))
        }
        // A bundle root given as an argument stands for its manifests.
        (Some(dir), None) if Path::new(&dir).join("manifests").is_dir() => {
            Some(Path::new(&dir).join("manifests"))
        }
        (positional, flag) => positional.or(flag).map(PathBuf::from),
    };
    // Cobra's required-flag check: without a destination the tag is needed.
    let missing: Vec<&str> = [
        ("\"directory\"", directory.is_none()),
        ("\"tag\"", destination.is_none() && tag.is_none()),
    ]
    .into_iter()
    .filter_map(|(name, missing)| missing.then_some(name))
    .collect();
    if !missing.is_empty() {
        return Err(super::usage(format!(
            "required flag(s) {} not set",
            missing.join(", ")
        )));
    }
    let Some(directory) = directory else {
        return Err(super::usage("required flag(s) \"directory\" not set"));
    };
    let builder = image_builder.as_deref();
    let tool = match builder {
        None | Some("none") => None,
        Some(name) => match ContainerTool::parse(name) {
            Some(tool) => Some(tool),
            None => bail!("{name} is not supported image builder"),
        },
    };
    let output = match (destination, tool) {
        (Some(destination), Some(tool)) => {
            return Err(super::usage(format!(
                "--image-builder {} cannot write {}: a destination is built without a container tool (--image-builder none)",
                tool.name(),
                go_quote(destination)
            )))
        }
        (Some(destination), None) => Output::Daemonless(destination_of(destination, tag)?),
        // `-b none` pushes to the tag; the default tool is upstream's docker.
        (None, None) if builder == Some("none") => Output::Daemonless(Destination::Push {
            reference: tag.unwrap_or_default(),
        }),
        (None, tool) => Output::Tool {
            tool: tool.unwrap_or(ContainerTool::Docker),
            tag: tag.unwrap_or_default(),
        },
    };

    // What to suggest when docker cannot build: the bundle, daemonless.
    let docker_hint = match &output {
        Output::Tool {
            tool: ContainerTool::Docker,
            ..
        } => Some(docker_hint(&directory)),
        _ => None,
    };
    let directory_given = directory.display().to_string();
    let build = BuildBundle {
        generate: GenerateBundle {
            directory,
            output_dir: given(output_dir).map(PathBuf::from),
            package: package.unwrap_or_default(),
            channels: channels.unwrap_or_default(),
            default_channel: default_channel.unwrap_or_default(),
            base_image,
            overwrite,
            working_dir: super::bundle_generate::working_dir()?,
        },
        skip_validation,
        output,
    };
    let mut progress = |message: &str| crate::output::info(message);
    let prepared = build
        .prepare(&mut progress)
        .map_err(|error| super::bundle_generate::hint_bundle_root(error, &directory_given))?;
    if let Some(report) = &prepared.report {
        // A failure leaves every file as it was (dropping `prepared` undoes the staging).
        super::bundle_validate::print_text(report)?;
    }
    // A daemonless build prints its image's manifest digest (for scripts).
    let built = prepared
        .build(&super::pull_options(global)?, &mut progress)
        .map_err(|error| match (&error, docker_hint) {
            (BuildError::Exec(exec), Some(hint))
                if exec.reason.contains("executable file not found")
                    || crate::action::hints::docker_daemon_missing() =>
            {
                super::with_hint(error, hint)
            }
            _ => anyhow::Error::new(error),
        })?;
    if let Some(digest) = built {
        crate::output::stdout(format!("{digest}\n").as_bytes())?;
    }
    Ok(ExitStatus::Success)
}

/// The next step when docker cannot build the bundle in `directory` (its
/// manifests directory, or the bundle itself).
fn docker_hint(directory: &Path) -> String {
    let bundle = if directory
        .file_name()
        .is_some_and(|name| name == "manifests")
    {
        match directory.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        }
    } else {
        directory
    };
    format!(
        "no docker daemon here? build with -b podman or -b buildah, or without a daemon: opm bundle build {} file://bundle.tar (or oci://DIR, image://REF)",
        bundle.display()
    )
}

/// The destination argument and `--tag` (see [`Destination::parse`]).
fn destination_of(destination: &str, tag: Option<String>) -> anyhow::Result<Destination> {
    Ok(Destination::parse(destination, tag)?)
}
