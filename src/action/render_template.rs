//! `opm alpha render-template`: parse a template, render every bundle
//! reference it names (concurrently, or from `--reuse-bundles` catalogs),
//! then expand it into a catalog.

use super::migrate::{bundle_csv, MigrationLevel};
use super::render::{Allowed, Render};
use crate::declcfg::{Bundle, DeclarativeConfig};
use crate::image::PullOptions;
use crate::template::{Bundles, Kind, LookupError, RenderedBundles, Template, TemplateError};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// How many bundle references are rendered at once.
pub const CONCURRENCY: usize = 6;

/// What to render and how.
#[derive(Debug, Clone)]
pub struct RenderTemplate {
    /// The template's kind, or `None` to detect it from its `schema`.
    pub kind: Option<Kind>,
    pub migrations: MigrationLevel,
    pub pull: PullOptions,
    /// Catalogs whose bundles are taken instead of rendering an entry whose
    /// reference equals their `image`.
    pub reuse: Vec<String>,
    /// Render tag references again even when a reused catalog has them.
    pub refresh_tags: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum RenderTemplateError {
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// A `--reuse-bundles` catalog that cannot be read.
    #[error("reuse bundles from {}: {message}", crate::encoding::json::go_quote(.reference))]
    Reuse { reference: String, message: String },
}

/// What a render did, for the report and the tests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// References rendered (pulled, or read from disk).
    pub rendered: usize,
    /// References taken from `--reuse-bundles` catalogs.
    pub reused: usize,
}

/// Rendered references by reference.
struct Found(HashMap<String, Result<RenderedBundles, LookupError>>);

impl Bundles for Found {
    fn get(&self, reference: &str) -> Result<&RenderedBundles, LookupError> {
        match self.0.get(reference) {
            Some(Ok(found)) => Ok(found),
            Some(Err(error)) => Err(error.clone()),
            None => Err(LookupError::NotRendered(reference.to_string())),
        }
    }
}

/// Whether a reference names an immutable image (by digest).
fn is_digest(reference: &str) -> bool {
    reference.contains("@sha256:")
        || reference.contains("@sha512:")
        || reference.contains("@sha384:")
}

impl RenderTemplate {
    /// Renders the template in `bytes`; `progress(done, total)` is called
    /// as references finish rendering.
    ///
    /// # Errors
    /// Upstream's messages for the template, or a reused catalog that
    /// cannot be read.
    pub fn run(
        &self,
        bytes: &[u8],
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<(DeclarativeConfig, Counts), RenderTemplateError> {
        let kind = match self.kind {
            Some(kind) => kind,
            None => crate::template::detect(bytes)?,
        };
        let template = Template::parse(kind, bytes)?;
        let refs = template.refs();
        let reusable = self.reusable()?;
        let mut found: HashMap<String, Result<RenderedBundles, LookupError>> = HashMap::new();
        let mut to_render = Vec::new();
        for reference in refs {
            match reusable.get(&reference) {
                Some(bundles) if is_digest(&reference) || !self.refresh_tags => {
                    found.insert(reference, Ok(self.finish(bundles.clone())));
                }
                _ => to_render.push(reference),
            }
        }
        let counts = Counts {
            rendered: to_render.len(),
            reused: found.len(),
        };
        found.extend(self.render_all(&to_render, progress));
        let config = template.expand(&Found(found))?;
        Ok((config, counts))
    }

    /// Bundles of the `--reuse-bundles` catalogs, by image, objects restored.
    fn reusable(&self) -> Result<BTreeMap<String, Vec<Bundle>>, RenderTemplateError> {
        let mut by_image: BTreeMap<String, Vec<Bundle>> = BTreeMap::new();
        for reference in &self.reuse {
            let fail = |error: super::render::RenderError| RenderTemplateError::Reuse {
                reference: reference.clone(),
                message: crate::diag::error_chain(std::iter::successors(
                    Some(&error as &(dyn std::error::Error + 'static)),
                    |e| e.source(),
                )),
            };
            let mut rendered = super::catalog::load(
                std::slice::from_ref(reference),
                MigrationLevel::default(),
                &self.pull,
            )
            .map_err(fail)?;
            super::catalog::restore_all(&mut rendered.config).map_err(fail)?;
            for bundle in rendered.config.bundles {
                if !bundle.image.is_empty() {
                    by_image
                        .entry(bundle.image.clone())
                        .or_default()
                        .push(bundle);
                }
            }
        }
        Ok(by_image)
    }

    /// The CSVs of rendered bundles (before migrations), then the migrations.
    fn finish(&self, bundles: Vec<Bundle>) -> RenderedBundles {
        let csvs = bundles.iter().map(bundle_csv).collect();
        let mut config = DeclarativeConfig {
            bundles,
            ..DeclarativeConfig::default()
        };
        self.migrations.migrate(&mut config);
        RenderedBundles {
            bundles: config.bundles,
            csvs,
        }
    }

    /// Renders one reference as `opm render` does (bundles only).
    fn render_one(
        &self,
        reference: &str,
        pull: &PullOptions,
    ) -> Result<RenderedBundles, LookupError> {
        let render = Render {
            refs: vec![reference.to_string()],
            migrations: MigrationLevel::default(),
            image_ref_template: None,
            pull: pull.clone(),
            allowed: Allowed::Bundles,
        };
        match render.run() {
            Ok(rendered) => Ok(self.finish(rendered.config.bundles)),
            Err(error) => Err(LookupError::Failed(Arc::new(error))),
        }
    }

    /// Renders `refs` on a few threads; stops starting new ones after a
    /// failure (references are started in order, so every reference before
    /// the failing one is rendered).
    fn render_all(
        &self,
        refs: &[String],
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Vec<(String, Result<RenderedBundles, LookupError>)> {
        let mut pull = self.pull.clone();
        // Several pulls at once: one summary line instead of per-layer progress.
        pull.progress = false;
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let results = Mutex::new(Vec::with_capacity(refs.len()));
        let threads = CONCURRENCY.min(refs.len());
        if threads > 0 {
            progress(0, refs.len());
        }
        std::thread::scope(|scope| {
            for _ in 0..threads {
                crate::encoding::spawn_worker(scope, || loop {
                    if failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(reference) = refs.get(i) else {
                        break;
                    };
                    let result = self.render_one(reference, &pull);
                    if result.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((reference.clone(), result));
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1, refs.len());
                });
            }
        });
        results
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
