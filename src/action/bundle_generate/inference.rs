//! Package and channels of a bundle directory inside a package-manifest layout, for `bundle
//! generate` without `--package` or `--channels` (upstream's `bundleDirInterpreter`).

use super::{parent, sorted_entries};
use crate::bundle::mediatype;
use crate::declcfg::load::io_message;
use crate::encoding::gojson::{GoJsonError, Target};
use crate::encoding::stream::{decode_documents, Document};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Why package and channels could not be inferred from the nested
/// (package-manifest) layout; upstream's wording.
#[derive(Debug, thiserror::Error)]
pub enum InferenceError {
    #[error("error loading CSV from bundle directory, {0}")]
    BundleCsv(#[source] BundleCsvError),
    #[error("error loading package from directory, error reading from {} directory, open {}: {}", .dir.display(), .dir.display(), io_message(.error))]
    PackageDir { dir: PathBuf, error: std::io::Error },
    // (sic) "geting": upstream's spelling.
    #[error("error geting CSVs from bundles in the package directory, {0}")]
    PackageCsvs(#[source] BundleCsvError),
    #[error("error parsing package.yaml file in the package root directory, {0}")]
    PackageManifest(#[source] PackageManifestError),
}

/// Why a bundle directory of the package has no single CSV (upstream's
/// `registry.ReadCSVFromBundleDirectory`).
#[derive(Debug, thiserror::Error)]
pub enum BundleCsvError {
    /// `message` is the OS error as Go words it.
    #[error("error reading bundle directory {}, open {}: {message}", .dir.display(), .dir.display())]
    Unlistable { dir: PathBuf, message: String },
    #[error("more than one ClusterServiceVersion is found in bundle")]
    SeveralCsvs,
    #[error("no ClusterServiceVersion object found in {}", .dir.display())]
    NoCsv { dir: PathBuf },
}

/// No file of the package directory is a package manifest: why each was rejected, listed as
/// gomega's `AggregateError` prints them (one bare, several bracketed).
#[derive(Debug, thiserror::Error)]
#[error("valid PackageManifest YAML file not found in {}, {}", .dir.display(), aggregate(.rejected))]
pub struct PackageManifestError {
    pub dir: PathBuf,
    pub rejected: Vec<RejectedFile>,
}

fn aggregate(rejected: &[RejectedFile]) -> String {
    match rejected {
        [] => String::new(),
        [one] => one.to_string(),
        many => {
            let texts: Vec<String> = many.iter().map(ToString::to_string).collect();
            format!("[{}]", texts.join(", "))
        }
    }
}

/// A file of the package directory that is not a package manifest.
#[derive(Debug, thiserror::Error)]
pub enum RejectedFile {
    /// Not opened: `message` is the OS error as Go words it.
    #[error("error opening {} file, open {}: {message}", .path.display(), .path.display())]
    Open { path: PathBuf, message: String },
    /// Refused by the safe reader.
    #[error(transparent)]
    Refused(crate::fsutil::InputError),
    #[error("error parsing {} as package.yaml file, {source}", .path.display())]
    Parse {
        path: PathBuf,
        #[source]
        source: PackageDecodeError,
    },
}

/// Why a file does not decode as upstream's `registry.PackageManifest`.
#[derive(Debug, thiserror::Error)]
pub enum PackageDecodeError {
    /// The decoder's message.
    #[error("could not decode contents into package manifest - {0}")]
    Decode(String),
    /// A JSON document with a value of the wrong type.
    #[error("could not decode contents into package manifest - {0}")]
    JsonType(#[source] GoJsonError),
    /// A YAML document with a value of the wrong type, worded as the YAML-to-JSON converter
    /// wraps Go's decoder's error.
    #[error("could not decode contents into package manifest - error unmarshaling JSON: while decoding JSON: {0}")]
    YamlType(#[source] GoJsonError),
    #[error("name of package (packageName) is missing")]
    NoName,
}

/// Package and channels of a bundle directory inside a package-manifest
/// layout (`<package>/<anything>.package.yaml` beside one directory per
/// bundle): upstream's `bundleDirInterpreter`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NestedBundle {
    pub(super) package: String,
    /// The channels whose replaces/skips graph reaches the bundle, sorted.
    pub(super) channels: Vec<String>,
    /// The package manifest's default (or its only channel), possibly empty.
    pub(super) default_channel: String,
}

impl NestedBundle {
    pub(super) fn read(directory: &Path) -> Result<NestedBundle, InferenceError> {
        let csv = read_bundle_csv(directory).map_err(InferenceError::BundleCsv)?;
        let package_dir = parent(directory);
        let entries = sorted_entries(&package_dir).map_err(|error| InferenceError::PackageDir {
            dir: package_dir.clone(),
            error,
        })?;
        let mut replaces: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (path, is_dir) in &entries {
            if *is_dir {
                let bundle = read_bundle_csv(path).map_err(InferenceError::PackageCsvs)?;
                replaces.insert(bundle.name, bundle.replaces);
            }
        }
        let manifest = find_package_manifest(&package_dir, &entries)
            .map_err(InferenceError::PackageManifest)?;
        let heads: BTreeMap<String, String> = manifest
            .channels
            .iter()
            .map(|(name, head)| (name.clone(), head.clone()))
            .collect();
        Ok(NestedBundle {
            channels: bundle_channels(&csv.name, &heads, &replaces),
            default_channel: manifest.default_channel().to_string(),
            package: manifest.package_name,
        })
    }
}

/// The channels (sorted) whose graph reaches `csv_name`: from each channel
/// head, every name reachable through replaces and skips edges, whether or
/// not a bundle with that name exists.
pub(super) fn bundle_channels(
    csv_name: &str,
    heads: &BTreeMap<String, String>,
    replaces: &BTreeMap<String, Vec<String>>,
) -> Vec<String> {
    heads
        .iter()
        .filter(|(_, head)| {
            let mut seen = BTreeSet::new();
            let mut pending = vec![head.as_str()];
            while let Some(name) = pending.pop() {
                if name == csv_name {
                    return true;
                }
                if seen.insert(name) {
                    if let Some(next) = replaces.get(name) {
                        pending.extend(next.iter().map(String::as_str));
                    }
                }
            }
            false
        })
        .map(|(channel, _)| channel.clone())
        .collect()
}

/// What inference needs of a CSV.
struct CsvLinks {
    name: String,
    /// `spec.skips` then `spec.replaces` (each ignored when malformed).
    replaces: Vec<String>,
}

/// Upstream's `registry.ReadCSVFromBundleDirectory`: the single CSV among
/// the files directly inside `dir` (unreadable or undecodable files are
/// skipped; every document is read).
fn read_bundle_csv(dir: &Path) -> Result<CsvLinks, BundleCsvError> {
    let listing = crate::bundle::Listing::read(dir);
    let entries = listing.entries().map_err(|e| BundleCsvError::Unlistable {
        dir: dir.to_path_buf(),
        message: io_message(e),
    })?;
    let mut found: Option<CsvLinks> = None;
    for entry in entries.iter().filter(|e| !e.is_dir()) {
        for object in mediatype::objects(entry) {
            if object.get("kind").and_then(Value::as_str) != Some("ClusterServiceVersion") {
                continue;
            }
            if found.is_some() {
                return Err(BundleCsvError::SeveralCsvs);
            }
            found = Some(csv_links(&object));
        }
    }
    found.ok_or_else(|| BundleCsvError::NoCsv {
        dir: dir.to_path_buf(),
    })
}

fn csv_links(csv: &Value) -> CsvLinks {
    let name = csv
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let spec = csv.get("spec");
    // Upstream reads each with json.Unmarshal and drops it on any error.
    let mut replaces: Vec<String> = spec
        .and_then(|s| s.get("skips"))
        .and_then(Value::as_array)
        .and_then(|items| {
            items
                .iter()
                .map(|i| i.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
        })
        .unwrap_or_default();
    if let Some(r) = spec
        .and_then(|s| s.get("replaces"))
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty())
    {
        replaces.push(r.to_string());
    }
    CsvLinks { name, replaces }
}

/// A decoded package manifest (`registry.PackageManifest`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct PackageManifest {
    pub(super) package_name: String,
    /// `(name, currentCSV)` in file order.
    pub(super) channels: Vec<(String, String)>,
    default_channel_name: String,
}

impl PackageManifest {
    /// The declared default, else the only channel, else nothing.
    pub(super) fn default_channel(&self) -> &str {
        if !self.default_channel_name.is_empty() {
            return &self.default_channel_name;
        }
        match self.channels.as_slice() {
            [(only, _)] => only,
            _ => "",
        }
    }
}

/// The first file of the package directory that decodes as a package
/// manifest with a name; otherwise upstream's error listing why each file
/// was rejected.
fn find_package_manifest(
    package_dir: &Path,
    entries: &[(PathBuf, bool)],
) -> Result<PackageManifest, PackageManifestError> {
    let mut rejected = Vec::new();
    for (path, is_dir) in entries {
        if *is_dir {
            continue;
        }
        let bytes = match crate::bundle::read_file(path) {
            Ok(bytes) => bytes,
            Err(e) => {
                rejected.push(match e.io_message() {
                    Some(text) => RejectedFile::Open {
                        path: path.clone(),
                        message: text.to_string(),
                    },
                    None => RejectedFile::Refused(e),
                });
                continue;
            }
        };
        match decode_package_manifest(&bytes) {
            Ok(manifest) => return Ok(manifest),
            Err(source) => rejected.push(RejectedFile::Parse {
                path: path.clone(),
                source,
            }),
        }
    }
    Err(PackageManifestError {
        dir: package_dir.to_path_buf(),
        rejected,
    })
}

/// Upstream's `registry.DecodePackageManifest`: the first document decoded
/// into the typed struct (Go's rules: case-insensitive keys, `null` leaves
/// the zero value, a wrong type is an error; YAML scalars are accepted for
/// string fields), then a non-empty `packageName` is required.
pub(super) fn decode_package_manifest(bytes: &[u8]) -> Result<PackageManifest, PackageDecodeError> {
    let decode_error = PackageDecodeError::Decode;
    let (value, from_yaml) = match decode_documents(bytes) {
        Ok(documents) => match documents.into_iter().next() {
            None => return Err(decode_error("EOF".to_string())),
            Some(Document::Yaml(value)) => (value, true),
            Some(Document::Json(text)) => match crate::encoding::json::parse_value(text) {
                Ok(value) => (value, false),
                Err(e) => return Err(decode_error(e.to_string())),
            },
        },
        // Upstream decodes only the first document: a later broken one
        // does not matter.
        Err(e) if e.index > 0 => match crate::encoding::yaml_read::yaml_bytes_to_json(bytes) {
            Ok(value) => (value, true),
            Err(e) => return Err(decode_error(e.to_string())),
        },
        Err(e) => return Err(decode_error(e.to_string())),
    };
    let manifest = manifest_fields(&value, from_yaml).map_err(if from_yaml {
        PackageDecodeError::YamlType
    } else {
        PackageDecodeError::JsonType
    })?;
    if manifest.package_name.is_empty() {
        return Err(PackageDecodeError::NoName);
    }
    Ok(manifest)
}

fn manifest_fields(value: &Value, from_yaml: bool) -> Result<PackageManifest, GoJsonError> {
    let map = match value {
        Value::Null => return Ok(PackageManifest::default()),
        Value::Object(map) => map,
        other => {
            let target = Target::value("registry.PackageManifest");
            return Err(GoJsonError::mismatch(other, target));
        }
    };
    // String field `name` of `map`, at field path `path` in Go's errors.
    let string =
        |map: &serde_json::Map<String, Value>, name: &str, path: &str| match go_field(map, name) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(v @ (Value::Number(_) | Value::Bool(_))) if from_yaml => Ok(v.to_string()),
            Some(v) => Err(GoJsonError::mismatch(v, Target::field(path, "string"))),
        };
    let mut manifest = PackageManifest::default();
    // Go keeps decoding after a type error and reports the first one, in
    // key order (YAML reaches it as JSON with sorted keys).
    let mut first_error: Option<GoJsonError> = None;
    let mut note = |result: Result<String, GoJsonError>| match result {
        Ok(s) => s,
        Err(e) => {
            first_error.get_or_insert(e);
            String::new()
        }
    };
    match go_field(map, "channels") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for item in items {
                match item {
                    Value::Object(channel) => {
                        let name = note(string(channel, "name", "PackageChannel.channels.name"));
                        let head = note(string(
                            channel,
                            "currentCSV",
                            "PackageChannel.channels.currentCSV",
                        ));
                        manifest.channels.push((name, head));
                    }
                    Value::Null => manifest.channels.push((String::new(), String::new())),
                    other => {
                        let target =
                            Target::field("PackageManifest.channels", "registry.PackageChannel");
                        note(Err(GoJsonError::mismatch(other, target)));
                        manifest.channels.push((String::new(), String::new()));
                    }
                }
            }
        }
        Some(other) => {
            let target = Target::field("PackageManifest.channels", "[]registry.PackageChannel");
            note(Err(GoJsonError::mismatch(other, target)));
        }
    }
    manifest.default_channel_name = note(string(
        map,
        "defaultChannel",
        "PackageManifest.defaultChannel",
    ));
    manifest.package_name = note(string(map, "packageName", "PackageManifest.packageName"));
    match first_error {
        Some(e) => Err(e),
        None => Ok(manifest),
    }
}

/// The value Go's decoder stores in struct field `name`: the last key that
/// matches it case-insensitively.
fn go_field<'a>(map: &'a serde_json::Map<String, Value>, name: &str) -> Option<&'a Value> {
    map.iter()
        .rfind(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
}
