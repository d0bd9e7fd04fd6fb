//! `opm alpha diff OLD NEW [-o text|json] [--exit-code]`.

use crate::action::migrate::MigrationLevel;
use crate::cli::authoring::{DiffArgs, DiffFormat};
use crate::ExitStatus;
use anyhow::bail;

pub(super) fn run(args: DiffArgs, global: &crate::cli::GlobalArgs) -> anyhow::Result<ExitStatus> {
    let DiffArgs {
        refs,
        output,
        exit_code,
    } = args;
    let [old, new] = refs.as_slice() else {
        bail!("accepts 2 arg(s), received {}", refs.len());
    };
    let output = output.known("(text|json)")?;
    super::check_transport_flags(global)?;
    let pull = super::pull_options(global)?;
    let load = |reference: &String| -> anyhow::Result<crate::action::render::Rendered> {
        let mut rendered = crate::action::catalog::load(
            std::slice::from_ref(reference),
            MigrationLevel::default(),
            &pull,
        )
        .map_err(super::render::failure)?;
        crate::action::catalog::restore_all(&mut rendered.config)
            .map_err(super::render::failure)?;
        Ok(rendered)
    };
    let (before, after) = (load(old)?, load(new)?);
    let diff = crate::action::diff::diff(&before.config, &after.config);
    let text = if output == DiffFormat::Json {
        let mut text = String::new();
        crate::encoding::json::Pretty {
            out: &mut text,
            indent: "    ",
            escape_html: false,
        }
        .value(&diff.json(), 0);
        text.push('\n');
        text
    } else {
        diff.text()
    };
    crate::output::stdout(text.as_bytes())?;
    Ok(if exit_code && !diff.is_empty() {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}
