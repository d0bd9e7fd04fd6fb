use crate::action::migrate::MigrationLevel;
use crate::action::render::Render;
use crate::action::template::ImageRefTemplate;
use crate::cli::RenderArgs;
use crate::declcfg::write::{sorted_blobs, write_blobs};
use crate::ExitStatus;

pub(super) fn run(args: RenderArgs, global: &crate::cli::GlobalArgs) -> anyhow::Result<ExitStatus> {
    let RenderArgs {
        refs,
        output,
        migrate_level,
        migrate,
        alpha_image_ref_template,
    } = args;
    if refs.is_empty() {
        return Err(super::usage("requires at least 1 arg(s), only received 0"));
    }
    if migrate && !migrate_level.is_empty() {
        return Err(super::usage("if any flags in the group [migrate migrate-level] are set none of the others can be; [migrate migrate-level] were all set"));
    }
    let format = super::output_format(&output)?;
    let migrations = if migrate {
        MigrationLevel::all()
    } else {
        MigrationLevel::parse(&migrate_level).map_err(anyhow::Error::msg)?
    };
    let image_ref_template = if alpha_image_ref_template.is_empty() {
        None
    } else {
        Some(
            ImageRefTemplate::parse(&alpha_image_ref_template)
                .map_err(|e| anyhow::anyhow!("invalid image reference template: {e}"))?,
        )
    };
    let hint = refs
        .iter()
        .find_map(|reference| not_a_catalog_hint(reference));
    let render = Render {
        refs,
        migrations,
        image_ref_template,
        pull: super::pull_options(global)?,
    };
    let progress = std::sync::Arc::new(crate::declcfg::load::LoadProgress::default());
    let ticker = super::progress::Ticker::start("catalogs".to_string(), progress.clone());
    let rendered = render.run_counted(&progress);
    drop(ticker);
    let rendered = match rendered {
        Ok(rendered) => rendered,
        Err(error) => {
            let (further, locations) = (error.further(), error.locations());
            let mut message = crate::diag::error_chain(anyhow::Error::new(error).chain());
            for further in further {
                message.push('\n');
                message.push_str(&further);
            }
            for location in locations {
                message.push_str("\n  in ");
                message.push_str(&location);
            }
            return Err(match hint {
                Some(hint) => super::with_hint(anyhow::Error::msg(message), hint),
                None => anyhow::Error::msg(message),
            });
        }
    };
    let blobs = sorted_blobs(rendered.config);
    write_blobs(
        blobs,
        format,
        &|blob, cache| Render::prepare(blob, cache).map_err(anyhow::Error::from),
        |text| crate::output::stdout(text.as_bytes()).map_err(anyhow::Error::from),
    )?;
    Ok(ExitStatus::Success)
}

/// What to render instead when `reference` is a directory of bundles, or a
/// bundle's manifests (a bundle directory itself renders fine).
fn not_a_catalog_hint(reference: &str) -> Option<String> {
    use crate::action::hints::NotACatalog;
    Some(match crate::action::hints::not_a_catalog(reference)? {
        NotACatalog::Bundle => return None,
        NotACatalog::Manifests { bundle } => format!(
            "{reference} is a bundle's manifests directory: render the bundle instead (opm render {bundle})"
        ),
        NotACatalog::Bundles { bundles, more } => format!(
            "{reference} holds bundle directories, not a file-based catalog: render the bundles (opm render {}{})",
            bundles.join(" "),
            if more { " ..." } else { "" }
        ),
    })
}
