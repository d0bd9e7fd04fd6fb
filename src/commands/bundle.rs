use crate::cli::bundle::{BundleArgs, BundleCommand};
use crate::ExitStatus;

/// `command_path` is how `bundle` was reached (`opm bundle` or
/// `opm alpha bundle`), for cobra-style messages.
pub(super) fn run(
    args: BundleArgs,
    command_path: &str,
    global: &crate::cli::GlobalArgs,
) -> anyhow::Result<ExitStatus> {
    match args.command {
        BundleCommand::Generate(args) => {
            super::bundle_generate::run(args, &format!("{command_path} generate"))
        }
        BundleCommand::Build(args) => super::bundle_build::run(args, global),
        BundleCommand::Validate(args) => super::bundle_validate::run(args, global),
        BundleCommand::Unpack(args) => super::bundle_unpack::run(args, global),
        BundleCommand::List(args) => super::bundle_list::run(args, global),
        BundleCommand::Init(args) => super::bundle_init::run(args),
    }
}
