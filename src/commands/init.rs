use crate::action::init::Init;
use crate::cli::InitArgs;
use crate::declcfg::write::write_blob;
use crate::declcfg::Blob;
use crate::ExitStatus;

pub(super) fn run(args: InitArgs) -> anyhow::Result<ExitStatus> {
    let InitArgs {
        names,
        default_channel,
        description,
        icon,
        output,
    } = args;
    let name = super::exactly_one(&names)?;
    let format = super::output_format(output)?;
    let init = Init {
        package: name.to_string(),
        default_channel,
        description_path: description,
        icon_path: icon,
    };
    let package = init.run()?;
    let mut text = String::new();
    write_blob(&Blob::Package(package), format, &mut text);
    crate::output::stdout(text.as_bytes())?;
    Ok(ExitStatus::Success)
}
