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

/// How many migrations of [`MIGRATIONS`] to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MigrationLevel(usize);

impl MigrationLevel {
    /// Parses a `--migrate-level` value (`""` runs nothing, `all` everything).
    pub fn parse(level: &str) -> Result<MigrationLevel, String> {
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
            .ok_or_else(|| {
                format!(
                    "unknown migration level {}",
                    crate::encoding::json::go_quote(level)
                )
            })
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
            MigrationLevel::parse("bogus").unwrap_err(),
            "unknown migration level \"bogus\""
        );
    }
}
