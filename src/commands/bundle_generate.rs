use crate::action::bundle_generate::GenerateBundle;
use crate::cli::bundle::BundleGenerateArgs;
use crate::encoding::json::go_quote;
use crate::ExitStatus;
use std::path::PathBuf;

/// `command_path` is how the command was spelled (`opm bundle generate` or
/// `opm alpha bundle generate`), for cobra's messages.
pub(super) fn run(args: BundleGenerateArgs, command_path: &str) -> anyhow::Result<ExitStatus> {
    let BundleGenerateArgs {
        extra,
        directory,
        package,
        channels,
        default_channel,
        output_dir,
        base_image,
    } = args;
    // Cobra checks positional arguments before required flags.
    if let Some(first) = extra.first() {
        return Err(super::usage(format!(
            "unknown command {} for {}",
            go_quote(first),
            go_quote(command_path)
        )));
    }
    let Some(directory) = directory else {
        return Err(super::usage("required flag(s) \"directory\" not set"));
    };
    let given = directory.clone();
    let generate = GenerateBundle {
        directory: PathBuf::from(directory),
        output_dir: output_dir.filter(|d| !d.is_empty()).map(PathBuf::from),
        package: package.unwrap_or_default(),
        channels: channels.unwrap_or_default(),
        default_channel: default_channel.unwrap_or_default(),
        base_image,
        // `generate` always replaces what a previous run wrote.
        overwrite: true,
        working_dir: working_dir()?,
    };
    generate
        .run(&mut |message| crate::output::info(message))
        .map_err(|error| hint_bundle_root(error, &given))?;
    Ok(ExitStatus::Success)
}

/// `error`, with "did you mean -d DIR/manifests?" when `-d` named a bundle
/// root instead of its manifests directory.
pub(super) fn hint_bundle_root(error: impl Into<anyhow::Error>, directory: &str) -> anyhow::Error {
    match crate::action::hints::manifests_of_bundle_root(directory) {
        Some(manifests) => super::with_hint(
            error,
            format!("{directory} is a bundle directory: did you mean -d {manifests}?"),
        ),
        None => error.into(),
    }
}

/// Go's `os.Getwd`: `$PWD` when it names the current directory (so paths
/// keep the user's spelling through symlinks), else the real path.
pub(super) fn working_dir() -> anyhow::Result<PathBuf> {
    let real = std::env::current_dir()?;
    if let Some(pwd) = std::env::var_os("PWD").map(PathBuf::from) {
        if pwd.is_absolute() && same_dir(&pwd, &real) {
            return Ok(pwd);
        }
    }
    Ok(real)
}

fn same_dir(a: &std::path::Path, b: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
    }
}
