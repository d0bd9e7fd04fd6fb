//! `olm.semver`: bundles listed under `candidate`, `fast` and `stable`
//! become channels named by their versions (`stable-v1.2`, `stable-v1`),
//! linked along semver lines, with the "high-water" channel as default and
//! the package description and icon from that channel head's CSV.

use super::{q, Bundles, SCHEMA_SEMVER};
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

fn type_error(value: &Value, field: &str, go_type: &str) -> String {
    format!(
        "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go struct field {field} of type {go_type}",
        crate::encoding::json::type_name(value)
    )
}

fn unknown(key: &str) -> String {
    format!(
        "error unmarshaling JSON: while decoding JSON: json: unknown field {}",
        q(key)
    )
}

/// Go's strict, case-insensitive decoding of an object into known fields.
fn fields<'a>(
    map: &'a Map<String, Value>,
    known: &[&'static str],
) -> Result<BTreeMap<&'static str, &'a Value>, String> {
    let mut out = BTreeMap::new();
    for (key, value) in map {
        let Some(&name) = known.iter().find(|k| k.eq_ignore_ascii_case(key)) else {
            return Err(unknown(key));
        };
        if !value.is_null() {
            out.insert(name, value);
        }
    }
    Ok(out)
}

fn string_field(value: &Value, field: &str) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s.clone()),
        other => Err(type_error(other, field, "string")),
    }
}

fn bool_field(value: &Value, field: &str) -> Result<bool, String> {
    match value {
        Value::Bool(b) => Ok(*b),
        other => Err(type_error(other, field, "bool")),
    }
}

fn bundle_images(value: &Value, archetype: &str) -> Result<Vec<String>, String> {
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
    pub fn parse(bytes: &[u8]) -> Result<Semver, String> {
        let read = |message: String| format!("render: unable to read file: {message}");
        if let Some(duplicate) = crate::encoding::yaml_read::first_duplicate_key(bytes) {
            return Err(read(format!(
                "error converting YAML to JSON: yaml: unmarshal errors:\n  line {}: key {} already set in map",
                duplicate.line,
                q(&duplicate.key)
            )));
        }
        let document = super::first_document(bytes)
            .map_err(|e| read(format!("error converting YAML to JSON: {e}")))?;
        let map = match &document {
            Value::Object(map) => map.clone(),
            Value::Null => Map::new(),
            other => {
                return Err(read(format!(
                    "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {} into Go value of type semver.SemverTemplateData",
                    crate::encoding::json::type_name(other)
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
        )
        .map_err(read)?;
        let schema = known
            .get("schema")
            .map(|v| string_field(v, "SemverTemplateData.schema"))
            .transpose()
            .map_err(read)?
            .unwrap_or_default();
        let major = known
            .get("generateMajorChannels")
            .map(|v| bool_field(v, "SemverTemplateData.generateMajorChannels"))
            .transpose()
            .map_err(read)?
            .unwrap_or(false);
        let mut minor = known
            .get("generateMinorChannels")
            .map(|v| bool_field(v, "SemverTemplateData.generateMinorChannels"))
            .transpose()
            .map_err(read)?
            .unwrap_or(false);
        let preference = known
            .get("defaultChannelTypePreference")
            .map(|v| string_field(v, "SemverTemplateData.defaultChannelTypePreference"))
            .transpose()
            .map_err(read)?
            .unwrap_or_default();
        let mut channels: [Vec<String>; 3] = Default::default();
        for (i, archetype) in ARCHETYPES.iter().enumerate() {
            if let Some(value) = known.get(archetype) {
                channels[i] = bundle_images(value, archetype).map_err(read)?;
            }
        }
        if schema != SCHEMA_SEMVER {
            return Err(read(format!(
                "readFile: input file has unknown schema, should be {}",
                q(SCHEMA_SEMVER)
            )));
        }
        if !major && !minor {
            minor = true;
        }
        let preference = match preference.as_str() {
            "" if minor => Stream::Minor,
            "" => Stream::Major,
            "minor" if !minor => return Err(read("schema attribute mismatch: DefaultChannelTypePreference set to 'minor' doesn't make sense if not generating minor-version channels".to_string())),
            "minor" => Stream::Minor,
            "major" if !major => return Err(read("schema attribute mismatch: DefaultChannelTypePreference set to 'major' doesn't make sense if not generating major-version channels".to_string())),
            "major" => Stream::Major,
            other => {
                return Err(read(format!(
                    "unknown DefaultChannelTypePreference: {}\nValid values are 'major' or 'minor'",
                    q(other)
                )))
            }
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

    pub fn expand(self, rendered: &dyn Bundles) -> Result<DeclarativeConfig, String> {
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
                return Err(format!(
                    "bundle reference {} resulted in {} bundles, expected 1",
                    q(&reference),
                    found.bundles.len()
                ));
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
            return Err("render: no bundles specified or no bundles could be rendered".to_string());
        }
        let post =
            |message: String| format!("render: unable to post-process bundle info: {message}");
        let mut package = String::new();
        // Per archetype: bundle name -> version, in template order.
        let mut versions: Vec<Vec<(String, Version)>> = Vec::new();
        for images in &self.channels {
            let mut entries: Vec<(String, Version)> = Vec::new();
            for image in images {
                let bundle = &out.bundles[index_of[image]];
                let (name, version) = package_version(bundle).map_err(post)?;
                if package.is_empty() {
                    package = name;
                    out.packages.push(Package {
                        name: package.clone(),
                        ..Package::default()
                    });
                } else if name != package {
                    return Err(post(format!(
                        "bundle {} does not belong to this package: {}",
                        q(&name),
                        q(&package)
                    )));
                }
                if entries.iter().any(|(n, _)| *n == bundle.name) {
                    return Err(post(format!("duplicate bundle name {}", q(&bundle.name))));
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
fn package_version(bundle: &crate::declcfg::Bundle) -> Result<(String, Version), String> {
    let properties = crate::model::property::parse(&bundle.properties)
        .map_err(|e| format!("parse properties for bundle {}: {e}", q(&bundle.name)))?;
    let [package] = properties.packages.as_slice() else {
        return Err(format!(
            "bundle {} has multiple {} properties, expected exactly 1",
            q(&bundle.name),
            q(crate::property::PACKAGE)
        ));
    };
    let version = Version::parse(&package.version).map_err(|e| {
        format!(
            "bundle {} has invalid version {}: {e}",
            q(&bundle.name),
            q(&package.version)
        )
    })?;
    Ok((package.package_name.clone(), version))
}

/// Versions of one archetype that differ only by build metadata cannot be
/// ordered (reported in bundle-name order).
fn check_build_metadata(entries: &[(String, Version)]) -> Result<(), String> {
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
    match errors.len() {
        0 => Ok(()),
        1 => Err(format!("encountered bundle versions which differ only by build metadata, which cannot be ordered: {}", errors[0])),
        _ => Err(format!("encountered bundle versions which differ only by build metadata, which cannot be ordered: [{}]", errors.join(", "))),
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
