use crate::action::catalog_build::{BuildBase, BuildCatalog, CatalogBuildError};
use crate::cli::catalog::{CatalogBaseArgs, CatalogBuildArgs, CatalogCommand};
use crate::cli::GlobalArgs;
use crate::image::build::Destination;
use crate::ExitStatus;

pub(super) fn run(command: CatalogCommand, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    super::check_transport_flags(global)?;
    let mut progress = |message: &str| crate::output::info(message);
    let digest = match command {
        CatalogCommand::Build(args) => build(args, global, &mut progress)?,
        CatalogCommand::Base(args) => base(args, global, &mut progress)?,
    };
    crate::output::stdout(format!("{digest}\n").as_bytes())?;
    Ok(ExitStatus::Success)
}

fn build(
    args: CatalogBuildArgs,
    global: &GlobalArgs,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<String> {
    let CatalogBuildArgs {
        args,
        base,
        tag,
        extra_labels,
    } = args;
    let [dir, destination] = args.as_slice() else {
        return Err(super::usage(format!(
            "accepts 2 arg(s), received {}",
            args.len()
        )));
    };
    let destination =
        Destination::parse(destination, tag).map_err(|e| super::usage(e.to_string()))?;
    let labels = crate::action::dockerfile::parse_labels(&extra_labels)
        .map_err(|e| super::usage(e.to_string()))?;
    let build = BuildCatalog {
        dir: dir.into(),
        display: dir.clone(),
        destination,
        base: base.filter(|base| !base.is_empty()),
        labels,
        pull: super::pull_options(global)?,
        working_dir: super::bundle_generate::working_dir()?,
        epoch: source_date_epoch()?,
    };
    build.run(progress).map_err(|error| {
        // A catalog that fails validation is shown as `opm validate` shows it.
        for line in error.validation_lines() {
            crate::output::info(line);
        }
        hint(error)
    })
}

fn base(
    args: CatalogBaseArgs,
    global: &GlobalArgs,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<String> {
    let CatalogBaseArgs { args, tag } = args;
    let [destination] = args.as_slice() else {
        return Err(super::usage(format!(
            "accepts 1 arg(s), received {}",
            args.len()
        )));
    };
    let destination =
        Destination::parse(destination, tag).map_err(|e| super::usage(e.to_string()))?;
    BuildBase {
        destination,
        pull: super::pull_options(global)?,
        working_dir: super::bundle_generate::working_dir()?,
        epoch: source_date_epoch()?,
    }
    .run(progress)
    .map_err(hint)
}

/// The next step for a dynamically linked opm.
fn hint(error: CatalogBuildError) -> anyhow::Error {
    match error {
        CatalogBuildError::NotSelfContained { .. } => super::with_hint(
            error,
            "scripts/build-static builds target/x86_64-unknown-linux-musl/release/opm",
        ),
        other => anyhow::Error::new(other),
    }
}

/// `SOURCE_DATE_EPOCH` (seconds since the epoch), or 0 when it is unset.
fn source_date_epoch() -> anyhow::Result<u64> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Err(_) => Ok(0),
        Ok(value) if value.is_empty() => Ok(0),
        Ok(value) => value.trim().parse().map_err(|_| {
            anyhow::anyhow!(
                "invalid SOURCE_DATE_EPOCH {}: expected seconds since 1970-01-01 UTC",
                crate::encoding::json::go_quote(&value)
            )
        }),
    }
}
