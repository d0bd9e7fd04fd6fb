//! `opm alpha render-template [TYPE] [FILE|-]`.

use crate::action::migrate::MigrationLevel;
use crate::action::render_template::RenderTemplate;
use crate::cli::authoring::{RenderTemplateArgs, TemplateFormat};
use crate::declcfg::write::Format;
use crate::encoding::json::go_quote;
use crate::template::{Kind, TYPES};
use crate::ExitStatus;
use anyhow::bail;

pub(super) fn run(
    args: RenderTemplateArgs,
    global: &crate::cli::GlobalArgs,
) -> anyhow::Result<ExitStatus> {
    let RenderTemplateArgs {
        args,
        output,
        migrate_level,
        reuse_bundles,
        refresh_tags,
    } = args;
    let (kind, file) = match args.as_slice() {
        [] => (None, "-"),
        [one] => match Kind::from_type(one) {
            Some(kind) => (Some(kind), "-"),
            None => (None, one.as_str()),
        },
        [kind, file] => match Kind::from_type(kind) {
            Some(kind) => (Some(kind), file.as_str()),
            None => bail!(
                "invalid template type {}, must be one of: [{}]",
                go_quote(kind),
                TYPES.join(" ")
            ),
        },
        _ => bail!("accepts between 0 and 2 arg(s), received {}", args.len()),
    };
    let bytes = super::convert_template::read_file_or_stdin(file)
        .map_err(|e| anyhow::anyhow!("unable to open {}: {e}", go_quote(file)))?;
    let output = output.known("(json|yaml|mermaid)")?;
    let migrations = MigrationLevel::parse(&migrate_level)?;
    super::check_transport_flags(global)?;
    let render = RenderTemplate {
        kind,
        migrations,
        pull: super::pull_options(global)?,
        reuse: reuse_bundles,
        refresh_tags,
    };
    let show = render.pull.progress;
    let progress = |done: usize, total: usize| {
        if show {
            crate::output::progress(&format!("Rendering bundles: {done}/{total}"));
        }
    };
    let result = render.run(&bytes, &progress);
    if show {
        crate::output::progress_clear();
    }
    let (config, _) = result?;
    let mut text = String::new();
    match output {
        TemplateFormat::Mermaid => {
            let options = crate::declcfg::graph::GraphOptions {
                v0_semantics: true,
                ..Default::default()
            };
            let graph = crate::declcfg::graph::Graph::build(&config, &options)
                .map_err(|e| anyhow::anyhow!("writing output: {e}"))?;
            for warning in &graph.warnings {
                crate::output::warning(warning);
            }
            text = graph.mermaid();
        }
        TemplateFormat::Json => {
            crate::declcfg::write::write_config(config, Format::Json, &mut text);
        }
        TemplateFormat::Yaml => {
            crate::declcfg::write::write_config(config, Format::Yaml, &mut text);
        }
    }
    crate::output::stdout(text.as_bytes())?;
    Ok(ExitStatus::Success)
}
