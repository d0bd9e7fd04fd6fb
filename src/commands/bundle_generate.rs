use crate::cli::bundle::BundleGenerateArgs;
use crate::ExitStatus;

pub(super) fn run(args: BundleGenerateArgs) -> anyhow::Result<ExitStatus> {
    let _ = args;
    anyhow::bail!("bundle generate: placeholder, replaced by its implementation")
}
