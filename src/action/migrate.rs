//! Catalog migrations (`--migrate-level`), in upstream's order.

use crate::declcfg::{Bundle, DeclarativeConfig, Property};
use crate::property::{self, BUNDLE_OBJECT, CSV_METADATA};
use serde_json::Value;

/// Every migration, in the order they run.
pub const MIGRATIONS: &[(&str, &str)] = &[
    ("none", "do nothing"),
    (
        "bundle-object-to-csv-metadata",
        "migrates bundles' \"olm.bundle.object\" to \"olm.csv.metadata\"",
    ),
];

/// A `--migrate-level` that names no migration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown migration level {}", crate::encoding::json::go_quote(.0))]
pub struct UnknownMigrationLevel(pub String);

/// How many migrations of [`MIGRATIONS`] to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MigrationLevel(usize);

impl MigrationLevel {
    /// Parses a `--migrate-level` value (`""` runs nothing, `all` everything).
    pub fn parse(level: &str) -> Result<MigrationLevel, UnknownMigrationLevel> {
        if level.is_empty() {
            return Ok(MigrationLevel(0));
        }
        if level == "all" {
            return Ok(MigrationLevel::all());
        }
        MIGRATIONS
            .iter()
            .position(|(name, _)| *name == level)
            .map(|i| MigrationLevel(i + 1))
            .ok_or_else(|| UnknownMigrationLevel(level.to_string()))
    }

    /// Whether no migration runs.
    pub fn is_none(self) -> bool {
        self.0 < 2
    }

    pub fn all() -> MigrationLevel {
        MigrationLevel(MIGRATIONS.len())
    }

    /// Runs the selected migrations on `config`.
    pub fn migrate(self, config: &mut DeclarativeConfig) {
        if self.0 >= 2 {
            for bundle in &mut config.bundles {
                bundle_object_to_csv_metadata(bundle);
            }
        }
    }
}

/// The first ClusterServiceVersion among a bundle's `olm.bundle.object`s.
pub fn bundle_csv(bundle: &Bundle) -> Option<Value> {
    bundle
        .properties
        .iter()
        .filter(|p| p.kind == BUNDLE_OBJECT)
        .filter_map(|p| property::bundle_object_data(p.value.as_ref()).ok())
        .filter_map(|data| manifest_value(&data))
        .find(|object| object.get("kind").and_then(Value::as_str) == Some("ClusterServiceVersion"))
}

/// A manifest's bytes (JSON or YAML) as a JSON value, if it is one.
pub fn manifest_value(data: &[u8]) -> Option<Value> {
    let first = data.iter().find(|b| !b.is_ascii_whitespace())?;
    if *first == b'{' {
        if let Ok(value) = serde_json::from_slice(data) {
            return Some(value);
        }
    }
    let text = std::str::from_utf8(data).ok()?;
    crate::encoding::yaml_read::yaml_to_json(text).ok()
}

/// Upstream: bundles with an image and a CSV trade their bundle objects for
/// one `olm.csv.metadata` property, unless they already have one.
fn bundle_object_to_csv_metadata(bundle: &mut Bundle) {
    if bundle.image.is_empty() || bundle.properties.iter().any(|p| p.kind == CSV_METADATA) {
        return;
    }
    let Some(csv) = bundle_csv(bundle) else {
        return;
    };
    bundle.properties.retain(|p| p.kind != BUNDLE_OBJECT);
    bundle.properties.push(Property::new(
        CSV_METADATA,
        property::csv_metadata::csv_metadata(&csv),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels() {
        assert_eq!(MigrationLevel::parse("").unwrap(), MigrationLevel(0));
        assert_eq!(MigrationLevel::parse("none").unwrap(), MigrationLevel(1));
        assert_eq!(
            MigrationLevel::parse("bundle-object-to-csv-metadata").unwrap(),
            MigrationLevel::all()
        );
        assert_eq!(
            MigrationLevel::parse("bogus").unwrap_err().to_string(),
            "unknown migration level \"bogus\""
        );
    }
}

/// `opm migrate REF OUTDIR`: a catalog rewritten as one file per package
/// (`OUTDIR/<package>/catalog.<ext>`) plus `OUTDIR/catalog.<ext>` for other
/// blobs without a package; deprecations and other blobs are kept. The
/// tree is written beside OUTDIR and moved into place: nothing appears in
/// OUTDIR on failure, and nothing there is replaced.
#[derive(Debug, Clone)]
pub struct Migrate {
    pub catalog: String,
    pub output_dir: std::path::PathBuf,
    pub migrations: MigrationLevel,
    pub format: crate::declcfg::write::Format,
    pub pull: crate::image::PullOptions,
}

#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("output dir {} must be empty", crate::encoding::json::go_quote(&.0.display().to_string()))]
    NotEmpty(std::path::PathBuf),
    #[error("open {}: {}", .path.display(), crate::fsutil::io_message(.source))]
    ReadOutput {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("render catalog image")]
    Render(#[source] super::render::RenderError),
    #[error("invalid package name {}: must be a single local path element", crate::encoding::json::go_quote(.0))]
    PackageName(String),
    #[error("write {}: {}", .path.display(), crate::fsutil::io_message(.source))]
    Write {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("write {}: {}", .0.path.display(), crate::fsutil::io_message(&.0.source))]
    Stage(crate::fsutil::StageError),
}

/// Whether a package name is a path inside the output directory (Go's
/// `filepath.IsLocal`).
fn is_local(name: &str) -> bool {
    if name.is_empty() || name.starts_with('/') || name.contains('\0') {
        return false;
    }
    let mut depth = 0i64;
    for part in name.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => depth += 1,
        }
    }
    true
}

impl Migrate {
    /// Renders the catalog and writes the tree.
    ///
    /// # Errors
    /// A non-empty output directory, a catalog that cannot be rendered, or
    /// a write that fails (nothing is left in the output directory then).
    pub fn run(&self) -> Result<Vec<std::path::PathBuf>, MigrateError> {
        use crate::declcfg::write::{sorted_blobs, write_blobs, Format};
        match std::fs::read_dir(&self.output_dir) {
            Ok(mut entries) => {
                if entries.next().is_some() {
                    return Err(MigrateError::NotEmpty(self.output_dir.clone()));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(MigrateError::ReadOutput {
                    path: self.output_dir.clone(),
                    source,
                })
            }
        }
        let rendered = super::catalog::load(
            std::slice::from_ref(&self.catalog),
            self.migrations,
            &self.pull,
        )
        .map_err(MigrateError::Render)?;
        let extension = match self.format {
            Format::Json => "json",
            Format::Yaml => "yaml",
        };
        // Group by package (upstream's `configsByPackage`).
        let mut packages: std::collections::BTreeMap<String, DeclarativeConfig> =
            std::collections::BTreeMap::new();
        let mut root = DeclarativeConfig::default();
        let config = rendered.config;
        for blob in config.into_blobs() {
            let package = blob.package_name().to_string();
            match blob {
                crate::declcfg::Blob::Other(meta) if package.is_empty() => root.others.push(meta),
                _ if package.is_empty() => {}
                blob => packages.entry(package).or_default().push(blob),
            }
        }
        for name in packages.keys() {
            if !is_local(name) {
                return Err(MigrateError::PackageName(name.clone()));
            }
        }
        let staged =
            crate::fsutil::StagedDir::new(&self.output_dir).map_err(MigrateError::Stage)?;
        let write = |config: DeclarativeConfig, relative: std::path::PathBuf| {
            let path = staged.path().join(&relative);
            let shown = self.output_dir.join(&relative);
            let fail = |source| MigrateError::Write {
                path: shown.clone(),
                source,
            };
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(fail)?;
            }
            let mut text = String::new();
            write_blobs(
                sorted_blobs(config),
                self.format,
                &|blob, cache| super::render::Render::prepare(blob, cache),
                |chunk| {
                    text.push_str(chunk);
                    Ok(())
                },
            )
            .map_err(MigrateError::Render)?;
            std::fs::write(&path, text).map_err(fail)
        };
        for (name, config) in packages {
            write(
                config,
                std::path::Path::new(&name).join(format!("catalog.{extension}")),
            )?;
        }
        if !root.others.is_empty() {
            write(
                root,
                std::path::PathBuf::from(format!("catalog.{extension}")),
            )?;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            // The staging directory is private; the output gets the usual 0777 & ~umask.
            let mode = crate::fsutil::new_file_mode(0o777);
            std::fs::set_permissions(staged.path(), std::fs::Permissions::from_mode(mode))
                .map_err(|source| MigrateError::Write {
                    path: self.output_dir.clone(),
                    source,
                })?;
        }
        staged.commit().map_err(MigrateError::Stage)
    }
}
