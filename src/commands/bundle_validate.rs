use crate::cli::bundle::BundleValidateArgs;
use crate::ExitStatus;

pub(super) fn run(args: BundleValidateArgs) -> anyhow::Result<ExitStatus> {
    let _ = args;
    anyhow::bail!("bundle validate: placeholder, replaced by its implementation")
}
