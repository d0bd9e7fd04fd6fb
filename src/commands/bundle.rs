use crate::cli::bundle::{BundleArgs, BundleCommand};
use crate::ExitStatus;

pub(super) fn run(args: BundleArgs) -> anyhow::Result<ExitStatus> {
    match args.command {
        BundleCommand::Generate(args) => super::bundle_generate::run(args),
        BundleCommand::Validate(args) => super::bundle_validate::run(args),
    }
}
