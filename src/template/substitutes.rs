//! `olm.template.substitutes`: a catalog (its entries) plus substitutions
//! `{name: <bundle reference>, base: <bundle name>}`. Each substitute takes
//! its base's place in every channel that lists the base: it inherits the
//! base's edges and skips the base, the base loses its edges, and entries
//! that replaced or skipped the base now replace or skip the substitute.
//! The catalog must be valid before and after each substitution.

use super::basic::schema_and_entries;
use super::SCHEMA_SUBSTITUTES;
use super::{load_entries, q, Bundles, DecodeError, EntriesError, LookupError, UnmarshalError};
use crate::declcfg::{Bundle, ChannelEntry, DeclarativeConfig};
use crate::encoding::json::field;
use crate::semver::{PreRelease, SemverError, Version};
use serde_json::Value;
use std::cmp::Ordering;

/// Why a substitutes template cannot be parsed or expanded; messages are
/// upstream's.
#[derive(Debug, thiserror::Error)]
pub enum SubstitutesError {
    #[error("render: unable to parse template: {0}")]
    Parse(#[source] ParseError),
    #[error("render: unable to create declarative config from entries: {0}")]
    Entries(#[source] EntriesError),
    #[error("render: entries are not valid FBC: {0}")]
    Invalid(#[source] InvalidCatalog),
    #[error("render: cannot reuse the same substitution base {}", q(.0))]
    ReusedBase(String),
    #[error("render: cannot reuse the same substitution {} for different bases ({} and {})", q(.name), q(.first), q(.second))]
    ReusedName {
        name: String,
        first: String,
        second: String,
    },
    #[error("render: error processing substitution {} -> {}: {source}", q(.base), q(.name))]
    Substitution {
        base: String,
        name: String,
        source: Box<SubstitutionError>,
    },
}

/// Why the template document is not a substitutes template.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("decoding template schema: {0}")]
    Decode(#[source] DecodeError),
    #[error(transparent)]
    Unmarshal(#[from] UnmarshalError),
    #[error("template has unknown schema ({}), should be {}", q(.0), q(SCHEMA_SUBSTITUTES))]
    UnknownSchema(String),
}

/// Why one substitution cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum SubstitutionError {
    #[error("substitution name cannot be empty")]
    EmptyName,
    #[error("substitution base cannot be empty")]
    EmptyBase,
    #[error("substitution name and base cannot be the same")]
    SameNameAndBase,
    #[error("failed to render bundle image reference {}: {source}", q(.name))]
    Render { name: String, source: LookupError },
    #[error("rendered bundle image reference {} contains no bundles", q(.0))]
    NoBundles(String),
    #[error("failed to get VersionRelease for substitute bundle {}: {source}", q(.name))]
    SubstituteVersion {
        name: String,
        source: VersionReleaseError,
    },
    #[error("base bundle {} does not exist in catalog", q(.0))]
    MissingBase(String),
    #[error("failed to get VersionRelease for base bundle {}: {source}", q(.base))]
    BaseVersion {
        base: String,
        source: VersionReleaseError,
    },
    #[error("base bundle {} is not less than substitute bundle {}", q(.base), q(.name))]
    NotLess { base: String, name: String },
    #[error("resulting config is not valid FBC: {0}")]
    Invalid(#[source] InvalidCatalog),
}

/// Why a bundle has no version and release (upstream's messages).
#[derive(Debug, thiserror::Error)]
pub enum VersionReleaseError {
    #[error(
        "must be exactly one property of type {}",
        q(crate::declcfg::SCHEMA_PACKAGE)
    )]
    NotOne,
    #[error("unable to unmarshal \"olm.package\" property for bundle {}: json: cannot unmarshal {found} into Go struct field Package.{key} of type string", q(.bundle))]
    FieldType {
        bundle: String,
        key: &'static str,
        found: &'static str,
    },
    #[error("invalid semver version {} in \"olm.package\" property for bundle {}: {source}", q(.version), q(.bundle))]
    Version {
        version: String,
        bundle: String,
        source: SemverError,
    },
    #[error("invalid release {} in \"olm.package\" property for bundle {}: {source}", q(.release), q(.bundle))]
    Release {
        release: String,
        bundle: String,
        source: SemverError,
    },
    #[error("no {} property found for bundle {}", q(crate::declcfg::SCHEMA_PACKAGE), q(.0))]
    Missing(String),
}

/// Upstream's validation message of a catalog that is not valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidCatalog(String);

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

fn substitutions_of(document: &Value) -> Result<Vec<Substitution>, UnmarshalError> {
    let Some(Value::Object(map)) = Some(document) else {
        return Ok(Vec::new());
    };
    let items = match field(map, "substitutions") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(UnmarshalError::Substitutions(
                crate::encoding::json::type_name(other),
            ))
        }
    };
    let text = |item: &serde_json::Map<String, Value>, key: &'static str| match field(item, key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(UnmarshalError::SubstitutionField {
            key,
            found: crate::encoding::json::type_name(other),
        }),
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
            other => Err(UnmarshalError::Substitution(
                crate::encoding::json::type_name(other),
            )),
        })
        .collect()
}

/// A bundle's version and release (upstream's `Bundle.VersionRelease`).
fn version_release(bundle: &Bundle) -> Result<(Version, Vec<PreRelease>), VersionReleaseError> {
    let mut found = None;
    for property in &bundle.properties {
        if property.kind != crate::property::PACKAGE {
            continue;
        }
        if found.is_some() {
            return Err(VersionReleaseError::NotOne);
        }
        let value = property.value.clone().unwrap_or(Value::Null);
        let text = |key: &'static str| match value.get(key) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(VersionReleaseError::FieldType {
                bundle: bundle.name.clone(),
                key,
                found: crate::encoding::json::type_name(other),
            }),
        };
        let (version, release) = (text("version")?, text("release")?);
        let parsed = Version::parse(&version).map_err(|source| VersionReleaseError::Version {
            version: version.clone(),
            bundle: bundle.name.clone(),
            source,
        })?;
        let release_parts = if release.is_empty() {
            Vec::new()
        } else {
            crate::semver::parse_release(&release).map_err(|source| {
                VersionReleaseError::Release {
                    release: release.clone(),
                    bundle: bundle.name.clone(),
                    source,
                }
            })?
        };
        found = Some((parsed, release_parts));
    }
    found.ok_or_else(|| VersionReleaseError::Missing(bundle.name.clone()))
}

fn compare(a: &(Version, Vec<PreRelease>), b: &(Version, Vec<PreRelease>)) -> Ordering {
    a.0.cmp(&b.0)
        .then_with(|| crate::semver::compare_releases(&a.1, &b.1))
}

/// Upstream's model conversion and validation of the catalog.
fn check(config: &DeclarativeConfig) -> Result<(), InvalidCatalog> {
    match crate::validate::validate_catalog(config).message() {
        Some(message) => Err(InvalidCatalog(message)),
        None => Ok(()),
    }
}

impl Substitutes {
    pub fn parse(bytes: &[u8]) -> Result<Substitutes, SubstitutesError> {
        let parse = |error: ParseError| SubstitutesError::Parse(error);
        let document = super::first_document(bytes).map_err(|e| parse(ParseError::Decode(e)))?;
        let (schema, entries) = schema_and_entries(&document).map_err(|e| parse(e.into()))?;
        let substitutions = substitutions_of(&document).map_err(|e| parse(e.into()))?;
        if schema != SCHEMA_SUBSTITUTES {
            return Err(parse(ParseError::UnknownSchema(schema)));
        }
        let config = load_entries(&entries).map_err(SubstitutesError::Entries)?;
        check(&config).map_err(SubstitutesError::Invalid)?;
        // What can be checked without rendering anything, in upstream's order.
        let mut bases = std::collections::HashSet::new();
        let mut candidates: std::collections::HashMap<&str, &str> =
            std::collections::HashMap::new();
        for substitution in &substitutions {
            if !bases.insert(substitution.base.as_str()) {
                return Err(SubstitutesError::ReusedBase(substitution.base.clone()));
            }
            if let Some(base) = candidates.get(substitution.name.as_str()) {
                return Err(SubstitutesError::ReusedName {
                    name: substitution.name.clone(),
                    first: (*base).to_string(),
                    second: substitution.base.clone(),
                });
            }
            candidates.insert(&substitution.name, &substitution.base);
            let invalid = if substitution.name.is_empty() {
                Some(SubstitutionError::EmptyName)
            } else if substitution.base.is_empty() {
                Some(SubstitutionError::EmptyBase)
            } else if substitution.name == substitution.base {
                Some(SubstitutionError::SameNameAndBase)
            } else {
                None
            };
            if let Some(source) = invalid {
                return Err(SubstitutesError::Substitution {
                    base: substitution.base.clone(),
                    name: substitution.name.clone(),
                    source: Box::new(source),
                });
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

    pub fn expand(self, rendered: &dyn Bundles) -> Result<DeclarativeConfig, SubstitutesError> {
        let mut config = self.config;
        for substitution in &self.substitutions {
            apply(&mut config, substitution, rendered).map_err(|source| {
                SubstitutesError::Substitution {
                    base: substitution.base.clone(),
                    name: substitution.name.clone(),
                    source: Box::new(source),
                }
            })?;
        }
        Ok(config)
    }
}

fn apply(
    config: &mut DeclarativeConfig,
    substitution: &Substitution,
    rendered: &dyn Bundles,
) -> Result<(), SubstitutionError> {
    let found = rendered
        .get(&substitution.name)
        .map_err(|source| SubstitutionError::Render {
            name: substitution.name.clone(),
            source,
        })?;
    let Some(substitute) = found.bundles.first() else {
        return Err(SubstitutionError::NoBundles(substitution.name.clone()));
    };
    let substitute_vr =
        version_release(substitute).map_err(|source| SubstitutionError::SubstituteVersion {
            name: substitution.name.clone(),
            source,
        })?;
    let base = config
        .bundles
        .iter()
        .find(|b| b.name == substitution.base)
        .ok_or_else(|| SubstitutionError::MissingBase(substitution.base.clone()))?;
    let base_vr = version_release(base).map_err(|source| SubstitutionError::BaseVersion {
        base: substitution.base.clone(),
        source,
    })?;
    if compare(&base_vr, &substitute_vr) != Ordering::Less {
        return Err(SubstitutionError::NotLess {
            base: substitution.base.clone(),
            name: substitution.name.clone(),
        });
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
    check(config).map_err(SubstitutionError::Invalid)
}
