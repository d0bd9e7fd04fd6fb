//! `opm migrate REF OUTDIR [-o json|yaml] [--migrate-level LEVEL]`.

use crate::action::migrate::{Migrate, MigrateError, MigrationLevel};
use crate::cli::authoring::MigrateArgs;
use crate::encoding::json::go_quote;
use crate::ExitStatus;
use anyhow::bail;

pub(super) fn run(
    args: MigrateArgs,
    global: &crate::cli::GlobalArgs,
) -> anyhow::Result<ExitStatus> {
    let MigrateArgs {
        args,
        output,
        migrate_level,
    } = args;
    let [catalog, output_dir] = args.as_slice() else {
        bail!("accepts 2 arg(s), received {}", args.len());
    };
    let format = super::output_format(output)?;
    let migrations = MigrationLevel::parse(&migrate_level)?;
    super::check_transport_flags(global)?;
    let migrate = Migrate {
        catalog: catalog.clone(),
        output_dir: std::path::PathBuf::from(output_dir),
        migrations,
        format,
        pull: super::pull_options(global)?,
    };
    crate::output::info(&format!(
        "rendering catalog {} as file-based catalog",
        go_quote(catalog)
    ));
    match migrate.run() {
        Ok(_) => {}
        Err(MigrateError::Render(error)) => {
            return Err(super::render::failure(error).context("render catalog image"))
        }
        Err(other) => return Err(other.into()),
    }
    crate::output::info(&format!(
        "wrote rendered file-based catalog to {}",
        go_quote(output_dir)
    ));
    Ok(ExitStatus::Success)
}
