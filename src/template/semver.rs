//! `olm.semver`: bundles listed under `candidate`, `fast` and `stable`
//! become channels named by their versions (`stable-v1.2`, `stable-v1`),
//! linked along semver lines, with the "high-water" channel as default and
//! the package description and icon from that channel head's CSV.

use super::{q, Bundles, DecodeError, LookupError, SCHEMA_SEMVER};
use crate::declcfg::{Channel, ChannelEntry, DeclarativeConfig, Icon, Package};
use crate::semver::Version;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Channel archetypes, by increasing stability.
const ARCHETYPES: [&str; 3] = ["candidate", "fast", "stable"];

/// Stream kinds; the derived order is upstream's priority (minor first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stream {
    Unset,
    Major,
    Minor,
}

#[derive(Debug, Clone)]
pub struct Semver {
    major: bool,
    minor: bool,
    preference: Stream,
    /// Bundle references per archetype (candidate, fast, stable).
    channels: [Vec<String>; 3],
}

/// Why a semver template cannot be parsed or expanded; messages are upstream's.
#[derive(Debug, thiserror::Error)]
pub enum SemverError {
    #[error("render: unable to read file: {0}")]
    Read(#[source] ReadError),
    #[error(transparent)]
    Lookup(#[from] LookupError),
    #[error("bundle reference {} resulted in {count} bundles, expected 1", q(.reference))]
    BundleCount { reference: String, count: usize },
    #[error("render: no bundles specified or no bundles could be rendered")]
    NoBundles,
    #[error("render: unable to post-process bundle info: {0}")]
    PostProcess(#[source] PostProcessError),
}

/// Why the template document is not a semver template.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("error converting YAML to JSON: yaml: unmarshal errors:\n  line {line}: key {} already set in map", q(.key))]
    DuplicateKey { line: u64, key: String },
    #[error("error converting YAML to JSON: {0}")]
    Decode(#[source] DecodeError),
    /// The document is not an object (the JSON type name).
    #[error("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {0} into Go value of type semver.SemverTemplateData")]
    NotObject(&'static str),
    #[error(transparent)]
    Field(#[from] FieldError),
    #[error(
        "readFile: input file has unknown schema, should be {}",
        q(SCHEMA_SEMVER)
    )]
    UnknownSchema,
    #[error("schema attribute mismatch: DefaultChannelTypePreference set to 'minor' doesn't make sense if not generating minor-version channels")]
    MinorMismatch,
    #[error("schema attribute mismatch: DefaultChannelTypePreference set to 'major' doesn't make sense if not generating major-version channels")]
    MajorMismatch,
    #[error("unknown DefaultChannelTypePreference: {}\nValid values are 'major' or 'minor'", q(.0))]
    UnknownPreference(String),
}

/// Go's strict JSON decoding of a template field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    #[error("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {found} into Go struct field {field} of type {go_type}")]
    Type {
        found: &'static str,
        field: String,
        go_type: &'static str,
    },
    #[error("error unmarshaling JSON: while decoding JSON: json: unknown field {}", q(.0))]
    Unknown(String),
}

/// Why the rendered bundles cannot be laid out in channels.
#[derive(Debug, thiserror::Error)]
pub enum PostProcessError {
    #[error(transparent)]
    Package(#[from] PackageVersionError),
    #[error("bundle {} does not belong to this package: {}", q(.name), q(.package))]
    ForeignBundle { name: String, package: String },
    #[error("duplicate bundle name {}", q(.0))]
    DuplicateBundle(String),
    /// The versions (each `"version" cannot be compared to "stripped"`) that
    /// differ only by build metadata, in bundle-name order.
    #[error("encountered bundle versions which differ only by build metadata, which cannot be ordered: {}", build_metadata_list(.0))]
    BuildMetadata(Vec<String>),
}

/// One item as is, several as Go prints a slice of errors.
fn build_metadata_list(items: &[String]) -> String {
    match items {
        [one] => one.clone(),
        _ => format!("[{}]", items.join(", ")),
    }
}

/// Why a bundle has no package name and version.
#[derive(Debug, thiserror::Error)]
pub enum PackageVersionError {
    #[error("parse properties for bundle {}: {source}", q(.bundle))]
    Properties {
        bundle: String,
        source: Box<crate::model::property::ParseError>,
    },
    #[error("bundle {} has multiple {} properties, expected exactly 1", q(.0), q(crate::property::PACKAGE))]
    NotOne(String),
    #[error("bundle {} has invalid version {}: {source}", q(.bundle), q(.version))]
    Version {
        bundle: String,
        version: String,
        source: crate::semver::SemverError,
    },
}

fn type_error(value: &Value, field: &str, go_type: &'static str) -> FieldError {
    FieldError::Type {
        found: crate::encoding::json::type_name(value),
        field: field.to_string(),
        go_type,
    }
}

/// Go's strict, case-insensitive decoding of an object into known fields.
fn fields<'a>(
    map: &'a Map<String, Value>,
    known: &[&'static str],
) -> Result<BTreeMap<&'static str, &'a Value>, FieldError> {
    let mut out = BTreeMap::new();
    for (key, value) in map {
        let Some(&name) = known.iter().find(|k| k.eq_ignore_ascii_case(key)) else {
            return Err(FieldError::Unknown(key.clone()));
        };
        if !value.is_null() {
            out.insert(name, value);
        }
    }
    Ok(out)
}

fn string_field(value: &Value, field: &str) -> Result<String, FieldError> {
    match value {
        Value::String(s) => Ok(s.clone()),
        other => Err(type_error(other, field, "string")),
    }
}

fn bool_field(value: &Value, field: &str) -> Result<bool, FieldError> {
    match value {
        Value::Bool(b) => Ok(*b),
        other => Err(type_error(other, field, "bool")),
    }
}

fn bundle_images(value: &Value, archetype: &str) -> Result<Vec<String>, FieldError> {
    let Value::Object(map) = value else {
        return Err(type_error(
            value,
            &format!("SemverTemplateData.{archetype}"),
            "semver.channelBundles",
        ));
    };
    let known = fields(map, &["bundles"])?;
    let Some(list) = known.get("bundles") else {
        return Ok(Vec::new());
    };
    let Value::Array(items) = list else {
        return Err(type_error(
            list,
            &format!("SemverTemplateData.{archetype}.bundles"),
            "[]semver.bundleEntry",
        ));
    };
    let mut images = Vec::new();
    for item in items {
        let Value::Object(entry) = item else {
            if item.is_null() {
                images.push(String::new());
                continue;
            }
            return Err(type_error(
                item,
                &format!("SemverTemplateData.{archetype}.bundles"),
                "semver.bundleEntry",
            ));
        };
        let known = fields(entry, &["image"])?;
        images.push(match known.get("image") {
            Some(value) => string_field(
                value,
                &format!("SemverTemplateData.{archetype}.bundles.image"),
            )?,
            None => String::new(),
        });
    }
    Ok(images)
}

impl Semver {
    pub fn parse(bytes: &[u8]) -> Result<Semver, SemverError> {
        Semver::read(bytes).map_err(SemverError::Read)
    }

    fn read(bytes: &[u8]) -> Result<Semver, ReadError> {
        if let Some(duplicate) = crate::encoding::yaml_read::first_duplicate_key(bytes) {
            return Err(ReadError::DuplicateKey {
                line: duplicate.line,
                key: duplicate.key,
            });
        }
        let document = super::first_document(bytes).map_err(ReadError::Decode)?;
        let map = match &document {
            Value::Object(map) => map.clone(),
            Value::Null => Map::new(),
            other => {
                return Err(ReadError::NotObject(crate::encoding::json::type_name(
                    other,
                )))
            }
        };
        let known = fields(
            &map,
            &[
                "schema",
                "generateMajorChannels",
                "generateMinorChannels",
                "defaultChannelTypePreference",
                "candidate",
                "fast",
                "stable",
            ],
        )?;
        let schema = known
            .get("schema")
            .map(|v| string_field(v, "SemverTemplateData.schema"))
            .transpose()?
            .unwrap_or_default();
        let major = known
            .get("generateMajorChannels")
            .map(|v| bool_field(v, "SemverTemplateData.generateMajorChannels"))
            .transpose()?
            .unwrap_or(false);
        let mut minor = known
            .get("generateMinorChannels")
            .map(|v| bool_field(v, "SemverTemplateData.generateMinorChannels"))
            .transpose()?
            .unwrap_or(false);
        let preference = known
            .get("defaultChannelTypePreference")
            .map(|v| string_field(v, "SemverTemplateData.defaultChannelTypePreference"))
            .transpose()?
            .unwrap_or_default();
        let mut channels: [Vec<String>; 3] = Default::default();
        for (i, archetype) in ARCHETYPES.iter().enumerate() {
            if let Some(value) = known.get(archetype) {
                channels[i] = bundle_images(value, archetype)?;
            }
        }
        if schema != SCHEMA_SEMVER {
            return Err(ReadError::UnknownSchema);
        }
        if !major && !minor {
            minor = true;
        }
        let preference = match preference.as_str() {
            "" if minor => Stream::Minor,
            "" => Stream::Major,
            "minor" if !minor => return Err(ReadError::MinorMismatch),
            "minor" => Stream::Minor,
            "major" if !major => return Err(ReadError::MajorMismatch),
            "major" => Stream::Major,
            other => return Err(ReadError::UnknownPreference(other.to_string())),
        };
        Ok(Semver {
            major,
            minor,
            preference,
            channels,
        })
    }

    pub fn refs(&self) -> Vec<String> {
        self.channels.iter().flatten().cloned().collect()
    }

    pub fn expand(self, rendered: &dyn Bundles) -> Result<DeclarativeConfig, SemverError> {
        let mut out = DeclarativeConfig::default();
        // Bundle name -> CSV, for the package metadata.
        let mut csvs: HashMap<String, Value> = HashMap::new();
        // Reference -> index of its bundle in `out.bundles`.
        let mut index_of: HashMap<String, usize> = HashMap::new();
        for reference in self.refs() {
            if index_of.contains_key(&reference) {
                continue;
            }
            let found = rendered.get(&reference)?;
            if found.bundles.len() != 1 {
                return Err(SemverError::BundleCount {
                    count: found.bundles.len(),
                    reference,
                });
            }
            let bundle = found.bundles[0].clone();
            if let Some(Some(csv)) = found.csvs.first() {
                csvs.entry(bundle.name.clone())
                    .or_insert_with(|| csv.clone());
            }
            index_of.insert(reference, out.bundles.len());
            out.bundles.push(bundle);
        }
        if out.bundles.is_empty() {
            return Err(SemverError::NoBundles);
        }
        let post = SemverError::PostProcess;
        let mut package = String::new();
        // Per archetype: bundle name -> version, in template order.
        let mut versions: Vec<Vec<(String, Version)>> = Vec::new();
        for images in &self.channels {
            let mut entries: Vec<(String, Version)> = Vec::new();
            for image in images {
                let bundle = &out.bundles[index_of[image]];
                let (name, version) = package_version(bundle).map_err(|e| post(e.into()))?;
                if package.is_empty() {
                    package = name;
                    out.packages.push(Package {
                        name: package.clone(),
                        ..Package::default()
                    });
                } else if name != package {
                    return Err(post(PostProcessError::ForeignBundle { name, package }));
                }
                if entries.iter().any(|(n, _)| *n == bundle.name) {
                    return Err(post(PostProcessError::DuplicateBundle(bundle.name.clone())));
                }
                entries.push((bundle.name.clone(), version));
            }
            check_build_metadata(&entries).map_err(post)?;
            versions.push(entries);
        }
        let (channels, default_channel) = self.generate(&package, &versions);
        out.channels = channels;
        out.packages[0].default_channel = default_channel.clone();
        package_metadata(&mut out, &default_channel, &csvs);
        Ok(out)
    }

    /// Upstream's `generateChannels` and `linkChannels`.
    fn generate(
        &self,
        package: &str,
        versions: &[Vec<(String, Version)>],
    ) -> (Vec<Channel>, String) {
        struct Tuple {
            arch: usize,
            kind: Stream,
            parent: String,
            name: String,
            version: Version,
            index: usize,
        }
        let mut channels: BTreeMap<String, Channel> = BTreeMap::new();
        let mut tuples: Vec<Tuple> = Vec::new();
        // The high-water channel: archetype, kind, version, name.
        let mut high = (0usize, Stream::Unset, Version::new(0, 0, 0), String::new());
        for (arch, bundles) in versions.iter().enumerate() {
            let mut sorted: Vec<&(String, Version)> = bundles.iter().collect();
            crate::gosort::slice(&mut sorted, |a, b| a.1 < b.1);
            for (name, version) in sorted {
                let mut kinds = Vec::new();
                if self.major {
                    kinds.push((
                        Stream::Major,
                        format!("{}-v{}", ARCHETYPES[arch], version.major),
                    ));
                }
                if self.minor {
                    kinds.push((
                        Stream::Minor,
                        format!("{}-v{}.{}", ARCHETYPES[arch], version.major, version.minor),
                    ));
                }
                for (kind, channel_name) in kinds {
                    let channel = channels.entry(channel_name.clone()).or_insert_with(|| {
                        let candidate = (arch, kind, version.clone(), channel_name.clone());
                        if self.higher(&candidate, &high) {
                            high = candidate;
                        }
                        Channel {
                            name: channel_name.clone(),
                            package: package.to_string(),
                            entries: Some(Vec::new()),
                            ..Channel::default()
                        }
                    });
                    let entries = channel.entries.get_or_insert_with(Vec::new);
                    entries.push(ChannelEntry {
                        name: name.clone(),
                        ..ChannelEntry::default()
                    });
                    tuples.push(Tuple {
                        arch,
                        kind,
                        parent: channel_name,
                        name: name.clone(),
                        version: version.clone(),
                        index: entries.len() - 1,
                    });
                }
            }
        }
        crate::gosort::slice(&mut tuples, |a, b| {
            (a.arch, a.kind)
                .cmp(&(b.arch, b.kind))
                .then(a.version.cmp(&b.version))
                == std::cmp::Ordering::Less
        });
        let mut previous_max = String::new();
        let mut skips: BTreeSet<String> = BTreeSet::new();
        let link = |channels: &mut BTreeMap<String, Channel>,
                    tuple: &Tuple,
                    replaces: &str,
                    skips: &BTreeSet<String>| {
            let Some(entry) = channels
                .get_mut(&tuple.parent)
                .and_then(|c| c.entries.as_mut())
                .and_then(|e| e.get_mut(tuple.index))
            else {
                return;
            };
            entry.replaces = replaces.to_string();
            let list: Vec<String> = skips.iter().filter(|s| *s != replaces).cloned().collect();
            if !list.is_empty() {
                entry.skips = list;
            }
        };
        for i in 1..tuples.len() {
            let (prev, cur) = (&tuples[i - 1], &tuples[i]);
            let arch_change = cur.arch != prev.arch;
            let kind_change = cur.kind != prev.kind;
            let x_change = cur.version.major != prev.version.major;
            let y_change = x_change || cur.version.minor != prev.version.minor;
            if arch_change || kind_change || x_change || y_change {
                link(&mut channels, prev, &previous_max, &skips);
            }
            if arch_change || kind_change || x_change {
                skips.clear();
                previous_max.clear();
            } else {
                if y_change {
                    previous_max = prev.name.clone();
                }
                skips.insert(prev.name.clone());
            }
        }
        if tuples.len() > 1 {
            let (prev, last) = (&tuples[tuples.len() - 2], &tuples[tuples.len() - 1]);
            if prev.arch == last.arch
                && prev.kind == last.kind
                && prev.version.major == last.version.major
            {
                link(&mut channels, last, &previous_max, &skips);
            }
        }
        (channels.into_values().collect(), high.3)
    }

    /// Upstream's `highwaterChannel.gt`.
    fn higher(
        &self,
        a: &(usize, Stream, Version, String),
        b: &(usize, Stream, Version, String),
    ) -> bool {
        if a.0 != b.0 {
            return a.0 > b.0;
        }
        if a.2 != b.2 {
            return a.2 > b.2;
        }
        if a.1 != b.1 {
            if a.1 == self.preference {
                return true;
            }
            if b.1 == self.preference {
                return false;
            }
            return a.1 > b.1;
        }
        false
    }
}

/// The package name and version of a bundle's one `olm.package` property.
fn package_version(
    bundle: &crate::declcfg::Bundle,
) -> Result<(String, Version), PackageVersionError> {
    let properties = crate::model::property::parse(&bundle.properties).map_err(|source| {
        PackageVersionError::Properties {
            bundle: bundle.name.clone(),
            source: Box::new(source),
        }
    })?;
    let [package] = properties.packages.as_slice() else {
        return Err(PackageVersionError::NotOne(bundle.name.clone()));
    };
    let version =
        Version::parse(&package.version).map_err(|source| PackageVersionError::Version {
            bundle: bundle.name.clone(),
            version: package.version.clone(),
            source,
        })?;
    Ok((package.package_name.clone(), version))
}

/// Versions of one archetype that differ only by build metadata cannot be
/// ordered (reported in bundle-name order).
fn check_build_metadata(entries: &[(String, Version)]) -> Result<(), PostProcessError> {
    let mut sorted: Vec<&(String, Version)> = entries.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut errors = Vec::new();
    for (_, version) in sorted {
        let mut stripped = version.clone();
        stripped.build.clear();
        let text = stripped.to_string();
        if !seen.insert(text.clone()) {
            errors.push(format!(
                "bundle version {} cannot be compared to {}",
                q(&version.to_string()),
                q(&text)
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(PostProcessError::BuildMetadata(errors))
    }
}

/// Description and icon of the default channel head's CSV.
fn package_metadata(out: &mut DeclarativeConfig, default: &str, csvs: &HashMap<String, Value>) {
    let Some(head) = out
        .channels
        .iter()
        .find(|c| c.name == default)
        .and_then(|c| c.entries.as_ref()?.last())
    else {
        return;
    };
    let Some(csv) = csvs.get(&head.name) else {
        return;
    };
    let Some(spec) = csv.get("spec").and_then(Value::as_object) else {
        return;
    };
    if let Some(Value::String(description)) = spec.get("description") {
        out.packages[0].description = description.clone();
    }
    if let Some(Value::Array(icons)) = spec.get("icon") {
        if let Some(Value::Object(icon)) = icons.first() {
            let data = match icon.get("base64data") {
                Some(Value::String(text)) => {
                    match crate::encoding::base64::canonical_go(text.clone()) {
                        Ok(data) => Some(data),
                        Err(_) => return,
                    }
                }
                None | Some(Value::Null) => None,
                Some(_) => return,
            };
            let media_type = match icon.get("mediatype") {
                Some(Value::String(text)) => text.clone(),
                None | Some(Value::Null) => String::new(),
                Some(_) => return,
            };
            out.packages[0].icon = Some(Icon {
                base64: data,
                media_type,
            });
        }
    }
}
