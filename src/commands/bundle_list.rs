//! `opm bundle list DIR|IMAGE` (also `opm alpha bundle list`): print the
//! YAML stream of the objects OLM applies for the bundle.

use crate::action::bundle_list::Format;
use crate::cli::bundle::{BundleListArgs, ListFormat};
use crate::encoding::json::go_quote;
use crate::ExitStatus;

pub(super) fn run(
    args: BundleListArgs,
    global: &crate::cli::GlobalArgs,
) -> anyhow::Result<ExitStatus> {
    let BundleListArgs {
        target,
        image_builder,
        output,
    } = args;
    let format = match output {
        ListFormat::Yaml => Format::Yaml,
        ListFormat::Json => Format::Json,
    };
    super::check_image_builder(&image_builder)?;
    let target = match target.as_slice() {
        [one] if !one.is_empty() => one.clone(),
        [_] | [] => {
            return Err(super::usage(
                "a bundle directory or image is required: opm bundle list DIR|IMAGE",
            ))
        }
        many => {
            return Err(super::usage(format!(
                "accepts 1 arg(s), received {}",
                many.len()
            )))
        }
    };
    let bundle = super::read_bundle(&target, &image_builder, global)?;
    let listing = crate::action::bundle_list::list_bundle(&bundle, format)
        .map_err(|e| anyhow::anyhow!("list bundle {}: {e}", go_quote(&target)))?;
    for warning in &listing.warnings {
        crate::output::warning(warning);
    }
    crate::output::stdout(&listing.stream)?;
    Ok(ExitStatus::Success)
}
