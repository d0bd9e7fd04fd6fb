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
    let format = super::output_format(output)?;
    let migrations = if migrate {
        MigrationLevel::all()
    } else {
        MigrationLevel::parse(&migrate_level)?
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
        allowed: crate::action::render::Allowed::Any,
    };
    let progress = std::sync::Arc::new(crate::declcfg::load::LoadProgress::default());
    let ticker = super::progress::Ticker::start("catalogs".to_string(), progress.clone());
    let rendered = render.run_counted(&progress);
    drop(ticker);
    let rendered = rendered.map_err(|error| match &hint {
        Some(hint) => super::with_hint(failure(error), hint.clone()),
        None => failure(error),
    })?;
    if rendered.config.is_empty() {
        // Upstream prints nothing and succeeds; say so, on stderr only.
        crate::output::warning(
            "nothing to render: the references hold no file-based catalog object",
        );
    }
    let blobs = sorted_blobs(rendered.config);
    write_blobs(
        blobs,
        format,
        &|blob, cache| Render::prepare(blob, cache).map_err(anyhow::Error::from),
        |text| crate::output::stdout(text.as_bytes()).map_err(anyhow::Error::from),
    )?;
    Ok(ExitStatus::Success)
}

/// A render failure as the user sees it. Files that could not be loaded are printed one per
/// line (`FILE:LINE:COL: error[rule]: render reference "R": message`, upstream's framing of the
/// message), and the error says how many there were; other failures keep their cause chain.
pub(super) fn failure(error: crate::action::render::RenderError) -> anyhow::Error {
    let crate::action::render::RenderError::Load { reference, source } = error else {
        return anyhow::Error::new(error);
    };
    let framing = format!("render reference {}", crate::diag::go_quote(&reference));
    let mut diagnostics: Vec<_> = source.errors.iter().map(|e| e.diagnostic()).collect();
    for diagnostic in &mut diagnostics {
        diagnostic.message = format!("{framing}: {}", diagnostic.message);
        crate::output::info(&diagnostic.line());
    }
    anyhow::anyhow!(
        "{framing}: {} could not be loaded",
        match diagnostics.len() {
            1 => "1 file".to_string(),
            n => format!("{n} files"),
        }
    )
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
