//! `opm alpha render-graph REF... [--minimum-edge B] [-p PKG] [--draw-v0-semantics] [-o mermaid|dot|json]`.

use crate::action::migrate::MigrationLevel;
use crate::cli::authoring::{GraphFormat, RenderGraphArgs};
use crate::declcfg::graph::{Graph, GraphOptions};
use crate::ExitStatus;
use anyhow::bail;

pub(super) fn run(
    args: RenderGraphArgs,
    global: &crate::cli::GlobalArgs,
) -> anyhow::Result<ExitStatus> {
    let RenderGraphArgs {
        refs,
        minimum_edge,
        package_name,
        draw_v0_semantics,
        output,
    } = args;
    if refs.is_empty() {
        bail!("requires at least 1 arg(s), only received 0");
    }
    let output = output.known("(mermaid|dot|json)")?;
    super::check_transport_flags(global)?;
    let rendered = crate::action::catalog::load(
        &refs,
        MigrationLevel::default(),
        &super::pull_options(global)?,
    )
    .map_err(super::render::failure)?;
    let options = GraphOptions {
        minimum_edge,
        package: package_name,
        v0_semantics: draw_v0_semantics,
    };
    let graph = Graph::build(&rendered.config, &options)?;
    for warning in &graph.warnings {
        crate::output::warning(warning);
    }
    let text = match output {
        GraphFormat::Dot => graph.dot(),
        GraphFormat::Json => {
            let mut text = String::new();
            crate::encoding::json::Pretty {
                out: &mut text,
                indent: "    ",
                escape_html: false,
            }
            .value(&graph.json(), 0);
            text.push('\n');
            text
        }
        GraphFormat::Mermaid => graph.mermaid(),
    };
    crate::output::stdout(text.as_bytes())?;
    Ok(ExitStatus::Success)
}
