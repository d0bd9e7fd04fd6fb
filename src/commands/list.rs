//! `opm alpha list packages|channels|bundles INDEX [PACKAGE]`.

use crate::action::list::{list, render_error, What};
use crate::action::migrate::MigrationLevel;
use crate::cli::authoring::{ListCommand, ListFormat, ListTargetArgs};
use crate::ExitStatus;
use anyhow::bail;

pub(super) fn run(
    command: ListCommand,
    global: &crate::cli::GlobalArgs,
) -> anyhow::Result<ExitStatus> {
    let (what, ListTargetArgs { args, output }) = match command {
        ListCommand::Packages(args) => (What::Packages, args),
        ListCommand::Channels(args) => (What::Channels, args),
        ListCommand::Bundles(args) => (What::Bundles, args),
    };
    let (reference, package) = match (what, args.as_slice()) {
        (What::Packages, [one]) => (one, None),
        (What::Packages, _) => bail!("accepts 1 arg(s), received {}", args.len()),
        (_, [one]) => (one, None),
        (_, [one, package]) => (one, Some(package.as_str())),
        (_, _) => bail!("accepts between 1 and 2 arg(s), received {}", args.len()),
    };
    let output = output.known("json")?;
    super::check_transport_flags(global)?;
    let rendered = crate::action::catalog::load(
        std::slice::from_ref(reference),
        MigrationLevel::default(),
        &super::pull_options(global)?,
    )
    .map_err(|e| match render_error(reference, e) {
        crate::action::list::ListError::Render(e) => super::render::failure(e),
        other => other.into(),
    })?;
    let table = list(&rendered.config, what, package)?;
    let text = if output == ListFormat::Json {
        let mut text = String::new();
        for object in &table.objects {
            crate::encoding::json::write_compact(object, &mut text, false);
            text.push('\n');
        }
        text
    } else {
        let mut rows = vec![table.header];
        rows.extend(table.rows);
        crate::encoding::table::tabwrite(&rows, 2)
    };
    crate::output::stdout(text.as_bytes())?;
    Ok(ExitStatus::Success)
}
