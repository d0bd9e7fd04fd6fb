//! `olm.template.substitutes`: a catalog (its entries) plus substitutions
//! `{name: <bundle reference>, base: <bundle name>}`. Each substitute takes
//! its base's place in every channel that lists the base: it inherits the
//! base's edges and skips the base, the base loses its edges, and entries
//! that replaced or skipped the base now replace or skip the substitute.
//! The catalog must be valid before and after each substitution.

use super::basic::schema_and_entries;
use super::{load_entries, q, Bundles, SCHEMA_SUBSTITUTES};
use crate::declcfg::{Bundle, ChannelEntry, DeclarativeConfig};
use crate::encoding::json::field;
use crate::semver::{PreRelease, Version};
use serde_json::Value;
use std::cmp::Ordering;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Substitution {
    name: String,
    base: String,
}

#[derive(Debug, Clone)]
pub struct Substitutes {
    config: DeclarativeConfig,
    substitutions: Vec<Substitution>,
}

fn substitutions_of(document: &Value) -> Result<Vec<Substitution>, String> {
    let Some(Value::Object(map)) = Some(document) else {
        return Ok(Vec::new());
    };
    let items = match field(map, "substitutions") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(format!(
                "unmarshalling template: json: cannot unmarshal {} into Go struct field SubstitutesTemplateData.substitutions of type []substitutes.Substitute",
                crate::encoding::json::type_name(other)
            ))
        }
    };
    let text = |item: &serde_json::Map<String, Value>, key: &str| {
        match field(item, key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(format!(
            "unmarshalling template: json: cannot unmarshal {} into Go struct field Substitute.substitutions.{key} of type string",
            crate::encoding::json::type_name(other)
        )),
    }
    };
    items
        .iter()
        .map(|item| match item {
            Value::Object(item) => Ok(Substitution {
                name: text(item, "name")?,
                base: text(item, "base")?,
            }),
            Value::Null => Ok(Substitution {
                name: String::new(),
                base: String::new(),
            }),
            other => Err(format!(
                "unmarshalling template: json: cannot unmarshal {} into Go struct field SubstitutesTemplateData.substitutions of type substitutes.Substitute",
                crate::encoding::json::type_name(other)
            )),
        })
        .collect()
}

/// A bundle's version and release (upstream's `Bundle.VersionRelease`).
fn version_release(bundle: &Bundle) -> Result<(Version, Vec<PreRelease>), String> {
    let mut found = None;
    for property in &bundle.properties {
        if property.kind != crate::property::PACKAGE {
            continue;
        }
        if found.is_some() {
            return Err(format!(
                "must be exactly one property of type {}",
                q(crate::declcfg::SCHEMA_PACKAGE)
            ));
        }
        let value = property.value.clone().unwrap_or(Value::Null);
        let text = |key: &str| {
            match value.get(key) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(format!(
                "unable to unmarshal \"olm.package\" property for bundle {}: json: cannot unmarshal {} into Go struct field Package.{key} of type string",
                q(&bundle.name),
                crate::encoding::json::type_name(other)
            )),
        }
        };
        let (version, release) = (text("version")?, text("release")?);
        let parsed = Version::parse(&version).map_err(|e| {
            format!(
                "invalid semver version {} in \"olm.package\" property for bundle {}: {e}",
                q(&version),
                q(&bundle.name)
            )
        })?;
        let release_parts = if release.is_empty() {
            Vec::new()
        } else {
            crate::semver::parse_release(&release).map_err(|e| {
                format!(
                    "invalid release {} in \"olm.package\" property for bundle {}: {e}",
                    q(&release),
                    q(&bundle.name)
                )
            })?
        };
        found = Some((parsed, release_parts));
    }
    found.ok_or_else(|| {
        format!(
            "no {} property found for bundle {}",
            q(crate::declcfg::SCHEMA_PACKAGE),
            q(&bundle.name)
        )
    })
}

fn compare(a: &(Version, Vec<PreRelease>), b: &(Version, Vec<PreRelease>)) -> Ordering {
    a.0.cmp(&b.0)
        .then_with(|| crate::semver::compare_releases(&a.1, &b.1))
}

/// Upstream's model conversion and validation of the catalog.
fn check(config: &DeclarativeConfig) -> Result<(), String> {
    match crate::validate::validate_catalog(config).message() {
        Some(message) => Err(message),
        None => Ok(()),
    }
}

impl Substitutes {
    pub fn parse(bytes: &[u8]) -> Result<Substitutes, String> {
        let parse = |message: String| format!("render: unable to parse template: {message}");
        let document = super::first_document(bytes)
            .map_err(|e| parse(format!("decoding template schema: {e}")))?;
        let (schema, entries) = schema_and_entries(&document).map_err(parse)?;
        let substitutions = substitutions_of(&document).map_err(parse)?;
        if schema != SCHEMA_SUBSTITUTES {
            return Err(parse(format!(
                "template has unknown schema ({}), should be {}",
                q(&schema),
                q(SCHEMA_SUBSTITUTES)
            )));
        }
        let config = load_entries(&entries).map_err(|e| {
            format!("render: unable to create declarative config from entries: {e}")
        })?;
        check(&config).map_err(|e| format!("render: entries are not valid FBC: {e}"))?;
        // What can be checked without rendering anything, in upstream's order.
        let mut bases = std::collections::HashSet::new();
        let mut candidates: std::collections::HashMap<&str, &str> =
            std::collections::HashMap::new();
        for substitution in &substitutions {
            if !bases.insert(substitution.base.as_str()) {
                return Err(format!(
                    "render: cannot reuse the same substitution base {}",
                    q(&substitution.base)
                ));
            }
            if let Some(base) = candidates.get(substitution.name.as_str()) {
                return Err(format!(
                    "render: cannot reuse the same substitution {} for different bases ({} and {})",
                    q(&substitution.name),
                    q(base),
                    q(&substitution.base)
                ));
            }
            candidates.insert(&substitution.name, &substitution.base);
            let invalid = if substitution.name.is_empty() {
                Some("substitution name cannot be empty")
            } else if substitution.base.is_empty() {
                Some("substitution base cannot be empty")
            } else if substitution.name == substitution.base {
                Some("substitution name and base cannot be the same")
            } else {
                None
            };
            if let Some(problem) = invalid {
                return Err(format!(
                    "render: error processing substitution {} -> {}: {problem}",
                    q(&substitution.base),
                    q(&substitution.name)
                ));
            }
        }
        Ok(Substitutes {
            config,
            substitutions,
        })
    }

    pub fn refs(&self) -> Vec<String> {
        self.substitutions.iter().map(|s| s.name.clone()).collect()
    }

    pub fn expand(self, rendered: &dyn Bundles) -> Result<DeclarativeConfig, String> {
        let mut config = self.config;
        for substitution in &self.substitutions {
            apply(&mut config, substitution, rendered).map_err(|e| {
                format!(
                    "render: error processing substitution {} -> {}: {e}",
                    q(&substitution.base),
                    q(&substitution.name)
                )
            })?;
        }
        Ok(config)
    }
}

fn apply(
    config: &mut DeclarativeConfig,
    substitution: &Substitution,
    rendered: &dyn Bundles,
) -> Result<(), String> {
    let found = rendered.get(&substitution.name).map_err(|e| {
        format!(
            "failed to render bundle image reference {}: {e}",
            q(&substitution.name)
        )
    })?;
    let Some(substitute) = found.bundles.first() else {
        return Err(format!(
            "rendered bundle image reference {} contains no bundles",
            q(&substitution.name)
        ));
    };
    let substitute_vr = version_release(substitute).map_err(|e| {
        format!(
            "failed to get VersionRelease for substitute bundle {}: {e}",
            q(&substitution.name)
        )
    })?;
    let base = config
        .bundles
        .iter()
        .find(|b| b.name == substitution.base)
        .ok_or_else(|| {
            format!(
                "base bundle {} does not exist in catalog",
                q(&substitution.base)
            )
        })?;
    let base_vr = version_release(base).map_err(|e| {
        format!(
            "failed to get VersionRelease for base bundle {}: {e}",
            q(&substitution.base)
        )
    })?;
    if compare(&base_vr, &substitute_vr) != Ordering::Less {
        return Err(format!(
            "base bundle {} is not less than substitute bundle {}",
            q(&substitution.base),
            q(&substitution.name)
        ));
    }
    let name = substitute.name.clone();
    for channel in &mut config.channels {
        let Some(entries) = channel.entries.as_mut() else {
            continue;
        };
        let at: Vec<usize> = entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.name == substitution.base)
            .map(|(i, _)| i)
            .collect();
        for &i in at.iter().rev() {
            let base_entry = &mut entries[i];
            let mut skips = std::mem::take(&mut base_entry.skips);
            skips.push(substitution.base.clone());
            let added = ChannelEntry {
                name: name.clone(),
                replaces: std::mem::take(&mut base_entry.replaces),
                skips,
                skip_range: std::mem::take(&mut base_entry.skip_range),
            };
            entries.push(added);
        }
        let original = entries.len() - at.len();
        for entry in entries.iter_mut().take(original) {
            if entry.replaces == substitution.base {
                entry.replaces = name.clone();
                entry.skips.push(substitution.base.clone());
            } else if entry.skips.contains(&substitution.base) {
                entry.skips.push(name.clone());
                entry.skips.retain(|s| *s != substitution.base);
            }
        }
    }
    config.bundles.push(substitute.clone());
    check(config).map_err(|e| format!("resulting config is not valid FBC: {e}"))
}
