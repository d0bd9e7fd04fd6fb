use crate::action::bundle_unpack::UnpackBundle;
use crate::cli::bundle::BundleUnpackArgs;
use crate::ExitStatus;

pub(super) fn run(
    args: BundleUnpackArgs,
    global: &crate::cli::GlobalArgs,
) -> anyhow::Result<ExitStatus> {
    let BundleUnpackArgs {
        image,
        debug_short: _,
        skip_tls_short,
        skip_validation,
        root_ca,
        out,
    } = args;
    let reference = super::exactly_one(&image)?;
    let reference = reference.strip_prefix("image://").unwrap_or(reference);
    let mut global = global.clone();
    if skip_tls_short {
        crate::output::warning(
            "Flag --skip-tls has been deprecated, use --use-http and --skip-tls-verify instead",
        );
        global.skip_tls = true;
    }
    super::check_transport_flags(&global)?;
    let mut pull = super::pull_options(&global)?;
    if !root_ca.is_empty() {
        pull.root_ca = Some(std::path::PathBuf::from(root_ca));
    }
    let unpack = UnpackBundle {
        reference: reference.to_string(),
        out: std::path::PathBuf::from(out),
        skip_validation,
        pull,
    };
    let unpacked = unpack.run()?;
    for warning in &unpacked.warnings {
        crate::output::warning(warning);
    }
    if skip_validation {
        crate::output::info("skipping bundle validation");
    }
    Ok(ExitStatus::Success)
}
