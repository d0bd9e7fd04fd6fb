//! `opm render`: turn catalog directories (and, later, bundles and images)
//! into one file-based catalog, with upstream's per-reference post-processing.

use super::migrate::MigrationLevel;
use super::template::{ImageRefTemplate, TemplateError};
use super::unpack_image::UnpackImageError;
use crate::bundle::BundleDirError;
use crate::declcfg::load::{
    load_dir_counted, read_deferred, BundleObjects, LoadError, LoadProgress,
};
use crate::declcfg::write::DocumentCache;
use crate::declcfg::{Blob, Bundle, DeclarativeConfig, Deferred, Package};
use crate::encoding::json::go_quote;
use crate::image::PullOptions;
use crate::property::{BUNDLE_OBJECT, CSV_METADATA};
use std::path::Path;

/// What to render and how.
#[derive(Debug, Clone)]
pub struct Render {
    pub refs: Vec<String>,
    pub migrations: MigrationLevel,
    pub image_ref_template: Option<ImageRefTemplate>,
    /// How to pull image references.
    pub pull: PullOptions,
    /// Which kinds of reference may be rendered.
    pub allowed: Allowed,
}

/// The kinds of reference a command accepts (upstream's `AllowedRefMask`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Allowed {
    /// Catalogs and bundles, directories and images.
    #[default]
    Any,
    /// Catalog directories and images (`list`, `render-graph`, `migrate`).
    Catalogs,
    /// Bundle images, and (ours) bundle directories and local images (templates).
    Bundles,
}

/// A rendered catalog, and the unpacked images it may still read from.
#[derive(Debug)]
pub struct Rendered {
    pub config: DeclarativeConfig,
    /// Unpacked catalog images whose bundle objects are read again when
    /// written; removed when this is dropped.
    pub unpacked: Vec<crate::fsutil::TempDir>,
}

/// Labels that say what an image holds.
pub const LABEL_CONFIGS: &str = "operators.operatorframework.io.index.configs.v1";
pub const LABEL_PACKAGE: &str = "operators.operatorframework.io.bundle.package.v1";
pub const LABEL_DATABASE: &str = "operators.operatorframework.io.index.database.v1";

/// Why one reference could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("render reference {}", go_quote(.reference))]
    Load {
        reference: String,
        #[source]
        source: LoadError,
    },
    /// The image could not be pulled or unpacked.
    #[error("render reference {}", go_quote(.reference))]
    Image {
        reference: String,
        #[source]
        source: Box<UnpackImageError>,
    },
    #[error("render reference {}: {message}", go_quote(.reference))]
    Reference { reference: String, message: String },
    /// A bundle directory, or the one a bundle image holds, that does not render.
    #[error("render reference {}: {source}", go_quote(.reference))]
    Bundle {
        reference: String,
        #[source]
        source: BundleDirError,
    },
    /// `--alpha-image-ref-template` cannot make the bundle's image reference.
    #[error(
        "render reference {}: failed templating image reference from bundle for {}: {source}",
        go_quote(.reference),
        go_quote(.reference)
    )]
    ImageRefTemplate {
        reference: String,
        #[source]
        source: ImageRefError,
    },
    /// The reference is of a kind the command does not accept.
    #[error("render reference {}: {message}: not allowed", go_quote(.reference))]
    NotAllowed { reference: String, message: String },
}

/// Why `--alpha-image-ref-template` cannot make a bundle's image reference.
#[derive(Debug, thiserror::Error)]
pub enum ImageRefError {
    /// The bundle does not give the template's fields.
    #[error(transparent)]
    Fields(#[from] BundleDirError),
    #[error(transparent)]
    Template(#[from] TemplateError),
}

/// The kind of thing a reference names (upstream HEAD's classification).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefKind {
    CatalogDir,
    BundleDir,
    Image,
    NotADirectory,
}

pub fn classify(reference: &str) -> RefKind {
    let path = Path::new(reference);
    match std::fs::metadata(path) {
        Err(_) => RefKind::Image,
        Ok(meta) if !meta.is_dir() => RefKind::NotADirectory,
        Ok(_) if crate::image::source::is_layout_dir(path) => RefKind::Image,
        Ok(_) => {
            if path.join("manifests").is_dir() && path.join("metadata").is_dir() {
                RefKind::BundleDir
            } else {
                RefKind::CatalogDir
            }
        }
    }
}

impl Render {
    /// Renders every reference in order and merges the results.
    pub fn run(&self) -> Result<Rendered, RenderError> {
        self.run_counted(&LoadProgress::default())
    }

    /// [`Render::run`], counting the catalog files it loads in `progress`.
    pub fn run_counted(&self, progress: &LoadProgress) -> Result<Rendered, RenderError> {
        let mut all = DeclarativeConfig::default();
        let mut unpacked = Vec::new();
        for reference in &self.refs {
            let mut config = self.render_one(reference, &mut unpacked, progress)?;
            for bundle in &mut config.bundles {
                post_process(bundle);
            }
            self.migrations.migrate(&mut config);
            all.extend(config);
        }
        Ok(Rendered {
            config: all,
            unpacked,
        })
    }

    fn render_one(
        &self,
        reference: &str,
        unpacked: &mut Vec<crate::fsutil::TempDir>,
        progress: &LoadProgress,
    ) -> Result<DeclarativeConfig, RenderError> {
        let refuse = |message: String| RenderError::NotAllowed {
            reference: reference.to_string(),
            message,
        };
        let kind = classify(reference);
        match (kind, self.allowed) {
            (RefKind::BundleDir, Allowed::Catalogs) => {
                return Err(refuse(format!(
                    "cannot render bundle directory {}",
                    go_quote(reference)
                )))
            }
            (RefKind::CatalogDir, Allowed::Bundles) => {
                return Err(refuse(
                    "cannot render declarative config directory".to_string(),
                ))
            }
            _ => {}
        }
        match kind {
            RefKind::CatalogDir => load_dir_counted(
                Path::new(reference),
                reference,
                self.bundle_objects(),
                progress,
            )
            .map_err(|source| RenderError::Load {
                reference: reference.to_string(),
                source,
            }),
            RefKind::NotADirectory => Err(refuse(format!(
                "ref {} is not a directory",
                go_quote(reference)
            ))),
            RefKind::BundleDir => {
                let bundle = self.render_bundle_dir(reference)?;
                let mut config = DeclarativeConfig::default();
                config.bundles.push(bundle);
                Ok(config)
            }
            RefKind::Image => self.render_image(reference, unpacked, progress),
        }
    }

    /// Pulls an image and renders it as a catalog or a bundle, by its labels.
    fn render_image(
        &self,
        reference: &str,
        unpacked: &mut Vec<crate::fsutil::TempDir>,
        progress: &LoadProgress,
    ) -> Result<DeclarativeConfig, RenderError> {
        let fail = |message: String| RenderError::Reference {
            reference: reference.to_string(),
            message,
        };
        let image_error = |source| RenderError::Image {
            reference: reference.to_string(),
            source: Box::new(source),
        };
        let source =
            crate::image::source::Source::of(reference).map_err(|e| fail(e.to_string()))?;
        let image = crate::image::source::pull_source(&source, reference, &self.pull)
            .map_err(|e| image_error(UnpackImageError::Pull(e)))?;
        let quoted = go_quote(reference);
        let refuse = |message: &str| RenderError::NotAllowed {
            reference: reference.to_string(),
            message: message.to_string(),
        };
        let kind = if image.labels.contains_key(LABEL_CONFIGS) {
            if self.allowed == Allowed::Bundles {
                return Err(refuse("cannot render declarative config image"));
            }
            LABEL_CONFIGS
        } else if image.labels.contains_key(LABEL_PACKAGE) {
            if self.allowed == Allowed::Catalogs {
                return Err(refuse("cannot render bundle image"));
            }
            LABEL_PACKAGE
        } else if image.labels.contains_key(LABEL_DATABASE) {
            return Err(fail(format!(
                "render {quoted}: sqlite-based index images are no longer supported, migrate to a file-based catalog: not allowed"
            )));
        } else if image.labels.is_empty() {
            return Err(fail(format!(
                "render {quoted}: image type could not be determined: image has no labels"
            )));
        } else {
            let labels: Vec<String> = image
                .labels
                .iter()
                .map(|(k, v)| format!("  {k}={v}"))
                .collect();
            return Err(fail(format!(
                "render {quoted}: image type could not be determined, found labels\n{}",
                labels.join("\n")
            )));
        };
        let dir =
            crate::image::temp_dir().map_err(|e| image_error(UnpackImageError::TempDir(e)))?;
        image
            .unpack(dir.path(), &crate::image::unpack::Limits::default())
            .map_err(|source| {
                image_error(UnpackImageError::Unpack {
                    reference: reference.to_string(),
                    source,
                })
            })?;
        if kind == LABEL_CONFIGS {
            let configs = image.labels[LABEL_CONFIGS].trim_start_matches('/');
            let root = dir.path().join(configs);
            let display = format!("{reference}:/{configs}");
            let config = load_dir_counted(&root, &display, self.bundle_objects(), progress)
                .map_err(|source| RenderError::Load {
                    reference: reference.to_string(),
                    source,
                })?;
            unpacked.push(dir);
            return Ok(config);
        }
        let bundle_error = |source| RenderError::Bundle {
            reference: reference.to_string(),
            source,
        };
        let parsed = crate::bundle::parse_bundle_dir(dir.path()).map_err(bundle_error)?;
        let bundle = match source {
            // A local image renders like the bundle directory it holds: its
            // reference is no pull spec.
            crate::image::source::Source::Layout { .. }
            | crate::image::source::Source::Archive(_) => self.render_parsed(&parsed, reference)?,
            crate::image::source::Source::Registry(_) => {
                parsed.render(reference).map_err(bundle_error)?
            }
        };
        let mut config = DeclarativeConfig::default();
        config.bundles.push(bundle);
        Ok(config)
    }

    /// Bundle objects are read again when written, unless a migration needs
    /// them now.
    fn bundle_objects(&self) -> BundleObjects {
        if self.migrations.is_none() {
            BundleObjects::Defer
        } else {
            BundleObjects::Keep
        }
    }

    /// Brings back a deferred bundle's objects or package's icon just before
    /// it is written.
    pub fn prepare(blob: &mut Blob, cache: &mut DocumentCache) -> Result<(), RenderError> {
        match blob {
            Blob::Bundle(bundle) => Render::restore_objects(bundle, cache),
            Blob::Package(package) => Render::restore_icon(package, cache),
            _ => Ok(()),
        }
    }

    /// Brings back a deferred bundle's objects (nothing to do for others).
    pub fn restore_objects(
        bundle: &mut Bundle,
        cache: &mut DocumentCache,
    ) -> Result<(), RenderError> {
        let Some(deferred) = bundle.deferred.take() else {
            return Ok(());
        };
        let Blob::Bundle(fresh) = read_again(&deferred, cache)? else {
            return Err(changed(&deferred));
        };
        bundle.properties = fresh.properties;
        post_process(bundle);
        Ok(())
    }

    /// Brings back a deferred package's icon (nothing to do for others).
    pub fn restore_icon(
        package: &mut Package,
        cache: &mut DocumentCache,
    ) -> Result<(), RenderError> {
        let Some(deferred) = package.deferred.take() else {
            return Ok(());
        };
        let Blob::Package(fresh) = read_again(&deferred, cache)? else {
            return Err(changed(&deferred));
        };
        package.icon = fresh.icon;
        Ok(())
    }

    fn render_bundle_dir(&self, reference: &str) -> Result<Bundle, RenderError> {
        let parsed = crate::bundle::parse_bundle_dir(Path::new(reference)).map_err(|source| {
            RenderError::Bundle {
                reference: reference.to_string(),
                source,
            }
        })?;
        self.render_parsed(&parsed, reference)
    }

    /// A bundle read from a directory: no image, unless
    /// `--alpha-image-ref-template` makes one.
    fn render_parsed(
        &self,
        parsed: &crate::bundle::ParsedBundle,
        reference: &str,
    ) -> Result<Bundle, RenderError> {
        let image = match &self.image_ref_template {
            None => String::new(),
            Some(template) => parsed
                .template_fields()
                .map_err(ImageRefError::from)
                .and_then(|fields| Ok(template.execute(&fields)?))
                .map_err(|source| RenderError::ImageRefTemplate {
                    reference: reference.to_string(),
                    source,
                })?,
        };
        parsed.render(&image).map_err(|source| RenderError::Bundle {
            reference: reference.to_string(),
            source,
        })
    }
}

/// The blob a deferred bundle or package came from, read again.
fn read_again(deferred: &Deferred, cache: &mut DocumentCache) -> Result<Blob, RenderError> {
    read_deferred(deferred, cache).map_err(|e| RenderError::Reference {
        reference: e.path,
        message: e.message,
    })
}

/// The error for a deferred blob read again as a blob of another kind: the
/// file changed since it was loaded.
fn changed(deferred: &Deferred) -> RenderError {
    let path = deferred.file.display().to_string();
    RenderError::Reference {
        message: format!("{path} changed while it was being read"),
        reference: path,
    }
}

/// Upstream moves bundle objects and CSV metadata (stably) to the end of the
/// properties, and sorts related images by image (Go's unstable
/// `sort.Slice`, so equal images keep upstream's order).
fn post_process(bundle: &mut Bundle) {
    let is_object = |kind: &str| kind == BUNDLE_OBJECT || kind == CSV_METADATA;
    if bundle.properties.iter().any(|p| is_object(&p.kind)) {
        let (objects, mut rest): (Vec<_>, Vec<_>) = std::mem::take(&mut bundle.properties)
            .into_iter()
            .partition(|p| is_object(&p.kind));
        rest.extend(objects);
        bundle.properties = rest;
    }
    crate::bundle::sort_related_images(&mut bundle.related_images);
}
