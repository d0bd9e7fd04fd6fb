//! Reading whole catalogs for the commands that take one (`alpha list`,
//! `alpha render-graph`, `alpha diff`, `migrate`): catalog directories and
//! catalog images, rendered as `opm render` does.

use super::migrate::MigrationLevel;
use super::render::{Allowed, Render, RenderError, Rendered};
use crate::declcfg::write::DocumentCache;
use crate::declcfg::{Bundle, DeclarativeConfig};
use crate::image::PullOptions;

/// Renders `refs` (catalogs only) into one catalog.
///
/// # Errors
/// The first reference that cannot be rendered, or that is not a catalog.
pub fn load(
    refs: &[String],
    migrations: MigrationLevel,
    pull: &PullOptions,
) -> Result<Rendered, RenderError> {
    Render {
        refs: refs.to_vec(),
        migrations,
        image_ref_template: None,
        pull: pull.clone(),
        allowed: Allowed::Catalogs,
    }
    .run()
}

/// Brings back the bundle objects and package icons the loader deferred,
/// for every bundle and package.
///
/// # Errors
/// A catalog file that changed or vanished since it was loaded.
pub fn restore_all(config: &mut DeclarativeConfig) -> Result<(), RenderError> {
    let mut cache: DocumentCache = None;
    for package in &mut config.packages {
        Render::restore_icon(package, &mut cache)?;
    }
    for bundle in &mut config.bundles {
        Render::restore_objects(bundle, &mut cache)?;
    }
    Ok(())
}

/// The bundle named `name` of `package`, its objects restored.
///
/// # Errors
/// As [`restore_all`].
pub fn bundle_with_objects(
    config: &DeclarativeConfig,
    package: &str,
    name: &str,
) -> Result<Option<Bundle>, RenderError> {
    let Some(found) = config
        .bundles
        .iter()
        .find(|b| b.package == package && b.name == name)
    else {
        return Ok(None);
    };
    let mut bundle = found.clone();
    Render::restore_objects(&mut bundle, &mut None)?;
    Ok(Some(bundle))
}
