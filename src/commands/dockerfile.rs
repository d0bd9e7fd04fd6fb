use crate::action::dockerfile::GenerateDockerfile;
use crate::cli::{DockerfileArgs, DEFAULT_OPM_IMAGE};
use crate::ExitStatus;
use anyhow::bail;

pub(super) fn run(args: DockerfileArgs) -> anyhow::Result<ExitStatus> {
    let DockerfileArgs {
        dirs,
        base_image,
        binary_image,
        builder_image,
        extra_labels,
    } = args;
    let dir = super::exactly_one(&dirs)?;
    if binary_image.is_some() && base_image.is_some() {
        return Err(super::usage("if any flags in the group [binary-image base-image] are set none of the others can be; [base-image binary-image] were all set"));
    }
    if binary_image.is_some() {
        crate::output::warning("Flag --binary-image has been deprecated, use --base-image instead");
    }
    // Upstream: the deprecated --binary-image also sets the builder image
    // unless one was given.
    let builder_image = builder_image
        .or_else(|| binary_image.clone())
        .unwrap_or_else(|| DEFAULT_OPM_IMAGE.to_string());
    let base_image = base_image
        .or(binary_image)
        .unwrap_or_else(|| DEFAULT_OPM_IMAGE.to_string());
    if builder_image == "scratch" {
        bail!("invalid builder image: \"scratch\"");
    }
    let generate = GenerateDockerfile {
        dir: dir.to_string(),
        base_image,
        builder_image,
        extra_labels,
    };
    generate.run()?;
    Ok(ExitStatus::Success)
}
