//! `opm bundle generate` (also `opm alpha bundle generate`): writes a bundle's
//! `metadata/annotations.yaml` and a `bundle.Dockerfile` for a directory of
//! manifests, optionally copying the manifests into an output directory
//! (bundle.md §3). Mirrors upstream `pkg/lib/bundle.GenerateFunc`, with the
//! project's decisions: the first channel is the default when none is given
//! or inferred, every document of a manifest file is read, and `-u` onto the
//! input never truncates or loses a manifest. Nothing is printed here:
//! progress lines go to the caller's callback.

use crate::bundle::annotations::{
    self, CHANNELS_LABEL, DEFAULT_CHANNEL_LABEL, MANIFESTS_LABEL, MEDIATYPE_LABEL, METADATA_LABEL,
    PACKAGE_LABEL, SEED_MEDIATYPE_LABEL,
};
use crate::bundle::mediatype::{self, MediaType};
use crate::declcfg::load::io_message;
use crate::encoding::json::{go_quote, type_name};
use crate::encoding::stream::{decode_documents, Document};
use crate::fsutil::{new_file_mode, Batch, StageError};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

/// The label values of the manifests and metadata directories inside the
/// image: always these, whatever the local directories are called.
const MANIFESTS_DIR: &str = "manifests/";
const METADATA_DIR: &str = "metadata/";
const ANNOTATIONS_FILE: &str = "annotations.yaml";
const DOCKERFILE: &str = "bundle.Dockerfile";
/// Upstream's permission bits for the files it writes (before the umask).
const FILE_MODE: u32 = 0o644;

/// What to generate. Empty strings mean "not given" (as upstream, where an
/// empty flag value cannot be told from a missing one).
#[derive(Debug, Clone)]
pub struct GenerateBundle {
    /// The manifests directory (relative to `working_dir` unless absolute).
    pub directory: PathBuf,
    /// Where `manifests/` and `metadata/` are created (copying the
    /// manifests); `None`: metadata goes next to `directory`.
    pub output_dir: Option<PathBuf>,
    pub package: String,
    /// Comma-separated channel names, written verbatim.
    pub channels: String,
    pub default_channel: String,
    /// The `FROM` image of the Dockerfile.
    pub base_image: String,
    /// Replace an existing annotations file, Dockerfile and copied
    /// manifests (`generate` always does); otherwise keep them, after
    /// checking that the existing annotations agree.
    pub overwrite: bool,
    /// The absolute working directory: relative paths are resolved against
    /// it, and the Dockerfile is written there.
    pub working_dir: PathBuf,
}

/// What generation decided, before writing anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub media_type: MediaType,
    pub package: String,
    pub channels: String,
    /// Empty when there is none.
    pub default_channel: String,
    /// The generated annotations ([`annotation_map`]).
    pub annotations: BTreeMap<&'static str, String>,
}

/// What was generated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedBundle {
    pub media_type: MediaType,
    pub package: String,
    pub channels: String,
    /// Empty when there is none.
    pub default_channel: String,
    /// The manifests directory the Dockerfile copies from.
    pub manifests_dir: PathBuf,
    pub metadata_dir: PathBuf,
    /// `false` when an existing annotations file was checked and kept.
    pub annotations_written: bool,
    /// `false` when an existing Dockerfile was kept.
    pub dockerfile_written: bool,
}

/// Why `generate` failed; `Display` is upstream's message.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error("stat {}: {}", .path.display(), io_message(.error))]
    Stat {
        path: PathBuf,
        error: std::io::Error,
    },
    /// Media-type detection failed (`The directory … contains no yaml files`,
    /// `Unable to read file … in bundle`).
    #[error("{0}")]
    MediaType(String),
    #[error("please manually input channels and packageName, error interpreting bundle from directory {}, {cause}", .directory.display())]
    Inference {
        directory: PathBuf,
        cause: InferenceError,
    },
    #[error("error interpreting channels, please manually input channels instead")]
    NoChannels,
    /// An existing annotations file that cannot be parsed.
    #[error("{0}")]
    ParseAnnotations(String),
    /// An existing annotations file that disagrees with the generated one:
    /// `Missing field: …` / `Expect field "…" to have value "…" instead of
    /// "…"`, several as `[e1, e2]`, sorted by key.
    #[error("{0}")]
    AnnotationsMismatch(String),
    #[error("{op} {}: {}", .path.display(), io_message(.error))]
    Io {
        op: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
}

impl From<StageError> for GenerateError {
    fn from(error: StageError) -> GenerateError {
        GenerateError::Io {
            op: error.op,
            path: error.path,
            error: error.source,
        }
    }
}

/// Why package and channels could not be inferred from the nested
/// (package-manifest) layout; upstream's wording.
#[derive(Debug, thiserror::Error)]
pub enum InferenceError {
    #[error("error loading CSV from bundle directory, {0}")]
    BundleCsv(String),
    #[error("error loading package from directory, error reading from {} directory, open {}: {}", .dir.display(), .dir.display(), io_message(.error))]
    PackageDir { dir: PathBuf, error: std::io::Error },
    // (sic) "geting": upstream's spelling.
    #[error("error geting CSVs from bundles in the package directory, {0}")]
    PackageCsvs(String),
    #[error("error parsing package.yaml file in the package root directory, {0}")]
    PackageManifest(String),
}

impl GenerateBundle {
    /// Generates the annotations file and the Dockerfile (and the manifest
    /// copies with an output directory). All files are staged first and put
    /// in place together: on error nothing is written.
    pub fn run(&self, progress: &mut dyn FnMut(&str)) -> Result<GeneratedBundle, GenerateError> {
        let (generated, batch) = self.stage(progress)?;
        batch.commit()?;
        Ok(generated)
    }

    /// Like [`GenerateBundle::run`], but leaves the files staged: nothing is
    /// in place until the caller commits the returned batch, and dropping it
    /// leaves the file system as it was.
    pub fn stage(
        &self,
        progress: &mut dyn FnMut(&str),
    ) -> Result<(GeneratedBundle, Batch), GenerateError> {
        let Resolved {
            media_type,
            package,
            channels,
            default_channel,
            annotations,
        } = self.resolve(progress)?;
        let directory = absolute(&self.working_dir, &self.directory);
        let mut batch = Batch::new();
        let manifests_dir = match &self.output_dir {
            None => directory.clone(),
            Some(out) => {
                let out = absolute(&self.working_dir, out);
                progress("Generating output manifests directory");
                let manifests = out.join("manifests");
                stage_manifest_copies(&directory, &out, &manifests, self.overwrite, &mut batch)?;
                manifests
            }
        };
        let annotations_path = self.annotations_path();
        let metadata_dir = parent(&annotations_path);
        let annotations_written = match self.kept_annotations(&annotations, progress)? {
            None => {
                progress(&format!(
                    "Writing {ANNOTATIONS_FILE} in {}",
                    metadata_dir.display()
                ));
                let mode = existing_mode(&annotations_path).unwrap_or(new_file_mode(FILE_MODE));
                let text = annotations_yaml(&annotations);
                batch.stage(&annotations_path, text.as_bytes(), mode)?;
                true
            }
            Some(_) => false,
        };

        progress("Building Dockerfile");
        let dockerfile = dockerfile_text(
            &self.base_image,
            media_type.as_str(),
            &package,
            &channels,
            &default_channel,
            &relative(&self.working_dir, &manifests_dir),
            &relative(&self.working_dir, &metadata_dir),
        );
        let dockerfile_path = self.working_dir.join(DOCKERFILE);
        let dockerfile_exists = match std::fs::metadata(&dockerfile_path) {
            Ok(_) => true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(error) if !self.overwrite => {
                return Err(GenerateError::Stat {
                    path: dockerfile_path,
                    error,
                })
            }
            Err(_) => false,
        };
        let dockerfile_written = self.overwrite || !dockerfile_exists;
        if dockerfile_written {
            progress(&format!(
                "Writing {DOCKERFILE} in {}",
                self.working_dir.display()
            ));
            let mode = existing_mode(&dockerfile_path).unwrap_or(new_file_mode(FILE_MODE));
            batch.stage(&dockerfile_path, dockerfile.as_bytes(), mode)?;
        } else {
            progress(&format!(
                "A bundle.Dockerfile already exists in current working directory: {}",
                self.working_dir.display()
            ));
        }

        let generated = GeneratedBundle {
            media_type,
            package,
            channels,
            default_channel,
            manifests_dir,
            metadata_dir,
            annotations_written,
            dockerfile_written,
        };
        Ok((generated, batch))
    }

    /// What generation decides before anything is written: the media type,
    /// the package and channels (given, or inferred from a nested layout),
    /// and the annotations file.
    pub fn resolve(&self, progress: &mut dyn FnMut(&str)) -> Result<Resolved, GenerateError> {
        let directory = absolute(&self.working_dir, &self.directory);
        // Upstream ignores other stat failures here; the media-type
        // detection below reports an unreadable directory.
        if let Err(error) = std::fs::metadata(&directory) {
            if error.kind() == std::io::ErrorKind::NotFound {
                return Err(GenerateError::Stat {
                    path: directory,
                    error,
                });
            }
        }
        let mut media_type = mediatype::detect(&directory).map_err(GenerateError::MediaType)?;
        // A CSV-less bundle (no CSV, so detected as plain) keeps the media
        // type its existing annotations name: registry+v2.
        if media_type == MediaType::Plain && !self.overwrite {
            let existing = crate::bundle::read_file(&self.annotations_path())
                .ok()
                .and_then(|bytes| annotations::parse_yaml(&bytes).ok());
            let label = existing.as_ref().and_then(|found| {
                found
                    .get(MEDIATYPE_LABEL)
                    .or_else(|| found.get(SEED_MEDIATYPE_LABEL))
            });
            if label.map(String::as_str) == Some("registry+v2") {
                media_type = MediaType::RegistryV2;
            }
        }

        let mut package = self.package.clone();
        let mut channels = self.channels.clone();
        let mut default_channel = self.default_channel.clone();
        if package.is_empty() || channels.is_empty() {
            let what = match (channels.is_empty(), package.is_empty()) {
                (true, true) => "channels and package name",
                (true, false) => "channels",
                _ => "package name",
            };
            progress(&format!(
                "Bundle {what} information not provided, inferring from parent package directory"
            ));
            let inferred =
                NestedBundle::read(&directory).map_err(|cause| GenerateError::Inference {
                    directory: directory.clone(),
                    cause,
                })?;
            if channels.is_empty() {
                channels = inferred.channels.join(",");
                if channels.is_empty() {
                    return Err(GenerateError::NoChannels);
                }
                progress(&format!("Inferred channels: {channels}"));
            }
            if package.is_empty() {
                package = inferred.package;
                progress(&format!("Inferred package name: {package}"));
            }
            if default_channel.is_empty() {
                // Upstream does not check that the bundle is in this channel:
                // it is the package's default.
                default_channel = inferred.default_channel;
                if default_channel.is_empty() {
                    default_channel = first_channel(&channels).to_string();
                }
                progress(&format!("Inferred default channel: {default_channel}"));
            }
        }
        if default_channel.is_empty() {
            // decisions.md §4: upstream writes no default at all here.
            default_channel = first_channel(&channels).to_string();
        }

        progress("Building annotations.yaml");
        let annotations =
            annotation_map(media_type.as_str(), &package, &channels, &default_channel);
        Ok(Resolved {
            media_type,
            annotations,
            package,
            channels,
            default_channel,
        })
    }

    /// The existing annotations file (at [`GenerateBundle::annotations_path`])
    /// when it is kept: without `overwrite`, after checking that it agrees
    /// with the generated `annotations`. `None` when there is none, or it is
    /// to be replaced.
    pub fn kept_annotations(
        &self,
        annotations: &BTreeMap<&'static str, String>,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Option<Vec<u8>>, GenerateError> {
        if self.overwrite {
            return Ok(None);
        }
        let Some(existing) = read_if_exists(&self.annotations_path())? else {
            return Ok(None);
        };
        progress(&format!(
            "An annotations.yaml already exists in the directory: {METADATA_DIR}"
        ));
        progress("Validating existing annotations.yaml");
        // The default channel is optional in an annotations file: a file
        // without one is fine unless the user asked for one (-e); the
        // first-channel default is ours, not the file's.
        let mut expected = annotations.clone();
        let has_default = annotations::parse_yaml(&existing)
            .is_ok_and(|found| found.contains_key(DEFAULT_CHANNEL_LABEL));
        if self.default_channel.is_empty() && !has_default {
            expected.remove(DEFAULT_CHANNEL_LABEL);
        }
        check_existing_annotations(&existing, &expected).inspect_err(|e| {
            if matches!(e, GenerateError::ParseAnnotations(_)) {
                progress("Unable to parse existing annotations.yaml");
            }
        })?;
        Ok(Some(existing))
    }

    /// Where the annotations file goes: `metadata/annotations.yaml` in the
    /// output directory, else beside the manifests directory.
    pub fn annotations_path(&self) -> PathBuf {
        let copy_dir = match &self.output_dir {
            Some(out) => absolute(&self.working_dir, out),
            None => parent(&absolute(&self.working_dir, &self.directory)),
        };
        copy_dir.join("metadata").join(ANNOTATIONS_FILE)
    }
}

/// The first name of a comma-separated channel list (verbatim, untrimmed).
fn first_channel(channels: &str) -> &str {
    channels.split(',').next().unwrap_or_default()
}

/// The annotations upstream generates; the default channel only when there
/// is one. `media_type` is the label value (`generate` writes `plain`,
/// `init` writes `plain+v0`).
pub fn annotation_map(
    media_type: &str,
    package: &str,
    channels: &str,
    default_channel: &str,
) -> BTreeMap<&'static str, String> {
    let mut map = BTreeMap::from([
        (MEDIATYPE_LABEL, media_type.to_string()),
        (MANIFESTS_LABEL, MANIFESTS_DIR.to_string()),
        (METADATA_LABEL, METADATA_DIR.to_string()),
        (PACKAGE_LABEL, package.to_string()),
        (CHANNELS_LABEL, channels.to_string()),
    ]);
    if !default_channel.is_empty() {
        map.insert(DEFAULT_CHANNEL_LABEL, default_channel.to_string());
    }
    map
}

/// `annotations.yaml` as upstream HEAD writes it (go-yaml v3, indent 2):
/// keys sorted, values quoted only where YAML needs it, never folded.
pub fn annotations_yaml(annotations: &BTreeMap<&'static str, String>) -> String {
    let inner: serde_json::Map<String, Value> = annotations
        .iter()
        .map(|(k, v)| ((*k).to_string(), Value::String(v.clone())))
        .collect();
    let mut document = serde_json::Map::new();
    document.insert("annotations".to_string(), Value::Object(inner));
    let mut out = Vec::new();
    crate::encoding::yaml_write::write_document_unfolded(&Value::Object(document), &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// `bundle.Dockerfile` (upstream HEAD's template). Values go in raw; the
/// blank line before `COPY` only comes with the default-channel label.
pub fn dockerfile_text(
    base_image: &str,
    media_type: &str,
    package: &str,
    channels: &str,
    default_channel: &str,
    manifests_dir: &str,
    metadata_dir: &str,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "FROM {base_image}\n");
    let _ = writeln!(out, "LABEL {MEDIATYPE_LABEL}={media_type}");
    let _ = writeln!(out, "LABEL {MANIFESTS_LABEL}={MANIFESTS_DIR}");
    let _ = writeln!(out, "LABEL {METADATA_LABEL}={METADATA_DIR}");
    let _ = writeln!(out, "LABEL {PACKAGE_LABEL}={package}");
    let _ = writeln!(out, "LABEL {CHANNELS_LABEL}={channels}");
    if !default_channel.is_empty() {
        let _ = writeln!(out, "LABEL {DEFAULT_CHANNEL_LABEL}={default_channel}\n");
    }
    let _ = writeln!(out, "COPY {manifests_dir} /manifests/");
    let _ = writeln!(out, "COPY {metadata_dir} /metadata/");
    out
}

/// Upstream's `ValidateAnnotations`: every generated annotation must be in
/// the existing file with the same value; extra keys are fine. Problems are
/// listed by key (upstream's order is Go-map random).
pub fn check_existing_annotations(
    existing: &[u8],
    expected: &BTreeMap<&'static str, String>,
) -> Result<(), GenerateError> {
    let mut found = annotations::parse_yaml(existing).map_err(GenerateError::ParseAnnotations)?;
    // The CSV-less design's media type key (without `.v1`) is read as the
    // standard one; `plain` and `plain+v0` are the same media type.
    if !found.contains_key(MEDIATYPE_LABEL) {
        if let Some(value) = found.get(SEED_MEDIATYPE_LABEL).cloned() {
            found.insert(MEDIATYPE_LABEL.to_string(), value);
        }
    }
    let same = |key: &str, expected: &str, actual: &str| {
        expected == actual
            || (key == MEDIATYPE_LABEL
                && MediaType::parse(expected).is_some()
                && MediaType::parse(expected) == MediaType::parse(actual))
    };
    let problems: Vec<String> = expected
        .iter()
        .filter_map(|(key, value)| match found.get(*key) {
            None => Some(format!("Missing field: {key}")),
            Some(actual) if same(key, value, actual) => None,
            Some(actual) if actual != value => Some(format!(
                "Expect field {} to have value {} instead of {}",
                go_quote(key),
                go_quote(value),
                go_quote(actual)
            )),
            Some(_) => None,
        })
        .collect();
    match problems.as_slice() {
        [] => Ok(()),
        [one] => Err(GenerateError::AnnotationsMismatch(one.clone())),
        many => Err(GenerateError::AnnotationsMismatch(format!(
            "[{}]",
            many.join(", ")
        ))),
    }
}

/// Package and channels of a bundle directory inside a package-manifest
/// layout (`<package>/<anything>.package.yaml` beside one directory per
/// bundle): upstream's `bundleDirInterpreter`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NestedBundle {
    package: String,
    /// The channels whose replaces/skips graph reaches the bundle, sorted.
    channels: Vec<String>,
    /// The package manifest's default (or its only channel), possibly empty.
    default_channel: String,
}

impl NestedBundle {
    fn read(directory: &Path) -> Result<NestedBundle, InferenceError> {
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
fn bundle_channels(
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
fn read_bundle_csv(dir: &Path) -> Result<CsvLinks, String> {
    let entries = sorted_entries(dir).map_err(|e| {
        format!(
            "error reading bundle directory {}, open {}: {}",
            dir.display(),
            dir.display(),
            io_message(&e)
        )
    })?;
    let mut found: Option<CsvLinks> = None;
    for (path, is_dir) in entries {
        if is_dir {
            continue;
        }
        let Ok(bytes) = crate::bundle::read_file(&path) else {
            continue;
        };
        for object in mediatype::objects(&bytes) {
            if object.get("kind").and_then(Value::as_str) != Some("ClusterServiceVersion") {
                continue;
            }
            if found.is_some() {
                return Err("more than one ClusterServiceVersion is found in bundle".to_string());
            }
            found = Some(csv_links(&object));
        }
    }
    found.ok_or_else(|| format!("no ClusterServiceVersion object found in {}", dir.display()))
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
struct PackageManifest {
    package_name: String,
    /// `(name, currentCSV)` in file order.
    channels: Vec<(String, String)>,
    default_channel_name: String,
}

impl PackageManifest {
    /// The declared default, else the only channel, else nothing.
    fn default_channel(&self) -> &str {
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
) -> Result<PackageManifest, String> {
    let mut errors = Vec::new();
    for (path, is_dir) in entries {
        if *is_dir {
            continue;
        }
        let bytes = match crate::bundle::read_file(path) {
            Ok(bytes) => bytes,
            Err(e) => {
                errors.push(match e.io_message() {
                    Some(text) => format!(
                        "error opening {} file, open {}: {text}",
                        path.display(),
                        path.display(),
                    ),
                    None => e.to_string(),
                });
                continue;
            }
        };
        match decode_package_manifest(&bytes) {
            Ok(manifest) => return Ok(manifest),
            Err(e) => errors.push(format!(
                "error parsing {} as package.yaml file, {e}",
                path.display()
            )),
        }
    }
    // gomega's AggregateError: one error bare, several bracketed.
    let listed = match errors.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    };
    Err(format!(
        "valid PackageManifest YAML file not found in {}, {listed}",
        package_dir.display()
    ))
}

/// Upstream's `registry.DecodePackageManifest`: the first document decoded
/// into the typed struct (Go's rules: case-insensitive keys, `null` leaves
/// the zero value, a wrong type is an error; YAML scalars are accepted for
/// string fields), then a non-empty `packageName` is required.
fn decode_package_manifest(bytes: &[u8]) -> Result<PackageManifest, String> {
    let decode_error =
        |detail: String| format!("could not decode contents into package manifest - {detail}");
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
    let manifest = manifest_fields(&value, from_yaml).map_err(|e| {
        decode_error(if from_yaml {
            format!("error unmarshaling JSON: while decoding JSON: {e}")
        } else {
            e
        })
    })?;
    if manifest.package_name.is_empty() {
        return Err("name of package (packageName) is missing".to_string());
    }
    Ok(manifest)
}

fn manifest_fields(value: &Value, from_yaml: bool) -> Result<PackageManifest, String> {
    let unmarshal =
        |v: &Value, target: &str| format!("json: cannot unmarshal {} into {target}", type_name(v));
    let map = match value {
        Value::Null => return Ok(PackageManifest::default()),
        Value::Object(map) => map,
        other => {
            return Err(unmarshal(
                other,
                "Go value of type registry.PackageManifest",
            ))
        }
    };
    let string = |map: &serde_json::Map<String, Value>, name: &str, target: &str| match go_field(
        map, name,
    ) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v @ (Value::Number(_) | Value::Bool(_))) if from_yaml => Ok(v.to_string()),
        Some(v) => Err(unmarshal(v, target)),
    };
    let mut manifest = PackageManifest::default();
    // Go keeps decoding after a type error and reports the first one, in
    // key order (YAML reaches it as JSON with sorted keys).
    let mut first_error: Option<String> = None;
    let mut note = |result: Result<String, String>| match result {
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
                        let name = note(string(
                            channel,
                            "name",
                            "Go struct field PackageChannel.channels.name of type string",
                        ));
                        let head = note(string(
                            channel,
                            "currentCSV",
                            "Go struct field PackageChannel.channels.currentCSV of type string",
                        ));
                        manifest.channels.push((name, head));
                    }
                    Value::Null => manifest.channels.push((String::new(), String::new())),
                    other => {
                        note(Err(unmarshal(
                            other,
                            "Go struct field PackageManifest.channels of type registry.PackageChannel",
                        )));
                        manifest.channels.push((String::new(), String::new()));
                    }
                }
            }
        }
        Some(other) => {
            note(Err(unmarshal(
                other,
                "Go struct field PackageManifest.channels of type []registry.PackageChannel",
            )));
        }
    }
    manifest.default_channel_name = note(string(
        map,
        "defaultChannel",
        "Go struct field PackageManifest.defaultChannel of type string",
    ));
    manifest.package_name = note(string(
        map,
        "packageName",
        "Go struct field PackageManifest.packageName of type string",
    ));
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

/// Stages the copies of the manifests into `<out>/manifests` (upstream's
/// `copyManifestDir`, including its quirk: the files of a subdirectory land
/// in a directory named after its *parent*, so `d/sub/x` becomes
/// `manifests/d/x`). Never writes a file onto itself: when the target
/// directory is the input directory there is nothing to copy (upstream
/// truncates every manifest there).
fn stage_manifest_copies(
    directory: &Path,
    out: &Path,
    manifests: &Path,
    overwrite: bool,
    batch: &mut Batch,
) -> Result<(), GenerateError> {
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    let source_dir = canonical(directory);
    if source_dir.is_some() && canonical(manifests) == source_dir {
        return Ok(());
    }
    // Output directories inside the input are not copied into themselves.
    let skip: Vec<PathBuf> = [manifests.to_path_buf(), out.join("metadata")]
        .iter()
        .filter_map(|p| canonical(p))
        .collect();
    let mut copies = Vec::new();
    plan_copies(directory, manifests, &skip, &mut copies)?;
    for (source, target) in copies {
        let exists = target.symlink_metadata().is_ok();
        if exists
            && (!overwrite || canonical(&target).is_some_and(|t| canonical(&source) == Some(t)))
        {
            continue;
        }
        let io = |op, error| GenerateError::Io {
            op,
            path: source.clone(),
            error,
        };
        let metadata = std::fs::metadata(&source).map_err(|e| io("open", e))?;
        let bytes = crate::bundle::read_file(&source).map_err(|e| {
            let op = if metadata.is_dir() { "read" } else { "open" };
            io(op, input_io_error(e))
        })?;
        batch.stage(&target, &bytes, permission_bits(&metadata))?;
    }
    Ok(())
}

/// Lists `(source file, target file)` pairs in upstream's order (sorted
/// names, depth first).
fn plan_copies(
    from: &Path,
    to: &Path,
    skip: &[PathBuf],
    copies: &mut Vec<(PathBuf, PathBuf)>,
) -> Result<(), GenerateError> {
    let entries = sorted_entries(from).map_err(|error| GenerateError::Io {
        op: "open",
        path: from.to_path_buf(),
        error,
    })?;
    for (path, is_dir) in entries {
        if is_dir {
            if std::fs::canonicalize(&path).is_ok_and(|p| skip.contains(&p)) {
                continue;
            }
            let nested = match from.file_name() {
                Some(name) => to.join(name),
                None => to.to_path_buf(),
            };
            plan_copies(&path, &nested, skip, copies)?;
        } else {
            let name = path.file_name().map(PathBuf::from).unwrap_or_default();
            copies.push((path.clone(), to.join(name)));
        }
    }
    Ok(())
}

/// The entries of `dir` sorted by name, each with whether it is a directory
/// (not following symlinks, as Go's `ReadDir`).
fn sorted_entries(dir: &Path) -> std::io::Result<Vec<(PathBuf, bool)>> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        entries.push((entry.path(), is_dir));
    }
    entries.sort();
    Ok(entries)
}

/// The existing file's content; `None` when there is no file.
fn read_if_exists(path: &Path) -> Result<Option<Vec<u8>>, GenerateError> {
    match crate::bundle::read_file(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(crate::fsutil::InputError::Io {
            kind: std::io::ErrorKind::NotFound,
            ..
        }) => Ok(None),
        Err(error) => Err(GenerateError::Io {
            op: if path.is_dir() { "read" } else { "open" },
            path: path.to_path_buf(),
            error: input_io_error(error),
        }),
    }
}

/// An input refusal as the I/O error this module reports (`open PATH: is a named pipe ...`).
fn input_io_error(error: crate::fsutil::InputError) -> std::io::Error {
    match error {
        crate::fsutil::InputError::Io { kind, message, .. } => std::io::Error::new(kind, message),
        refused => std::io::Error::other(refused.reason()),
    }
}

/// A replaced file keeps its permissions (upstream rewrites it in place).
fn existing_mode(path: &Path) -> Option<u32> {
    std::fs::metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| permission_bits(&m))
}

pub(crate) fn permission_bits(metadata: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        metadata.permissions().mode() & 0o7777
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        FILE_MODE
    }
}

/// Go's `filepath.Abs`: `path` joined to `cwd` unless absolute, then
/// lexically cleaned (`..` at the root stays at the root).
fn absolute(cwd: &Path, path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in cwd.join(path).components() {
        match component {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// Go's `filepath.Dir` of a clean absolute path.
fn parent(path: &Path) -> PathBuf {
    path.parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_path_buf)
}

/// Go's `filepath.Rel` between two clean absolute paths, with `/`.
fn relative(base: &Path, target: &Path) -> String {
    let names = |p: &Path| -> Vec<String> {
        p.components()
            .filter_map(|c| match c {
                Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect()
    };
    let (base, target) = (names(base), names(target));
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let parts: Vec<&str> = std::iter::repeat_n("..", base.len() - common)
        .chain(target[common..].iter().map(String::as_str))
        .collect();
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: foo.v0.1.0\n";

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, contents) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, contents).unwrap();
        }
        dir
    }

    fn input(dir: &Path, channels: &str, default_channel: &str) -> GenerateBundle {
        GenerateBundle {
            directory: PathBuf::from("manifests"),
            output_dir: None,
            package: "test-operator".to_string(),
            channels: channels.to_string(),
            default_channel: default_channel.to_string(),
            base_image: "scratch".to_string(),
            overwrite: true,
            working_dir: dir.to_path_buf(),
        }
    }

    fn yaml(package: &str, channels: &str, default_channel: &str) -> String {
        annotations_yaml(&annotation_map(
            MediaType::RegistryV1.as_str(),
            package,
            channels,
            default_channel,
        ))
    }

    #[test]
    fn annotations_text() {
        assert_eq!(
            yaml("test-operator", "stable,beta", "stable"),
            "annotations:
  operators.operatorframework.io.bundle.channel.default.v1: stable
  operators.operatorframework.io.bundle.channels.v1: stable,beta
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: test-operator
"
        );
        assert!(!yaml("p", "a", "").contains("channel.default"));
    }

    #[test]
    fn annotation_values_are_quoted_like_go_yaml() {
        let line = |value: &str| {
            let text = yaml(value, "c", "d");
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("  {PACKAGE_LABEL}: ")))
                .map(str::to_string)
                .unwrap_or(text)
        };
        let cases = [
            ("plain", "registry+v1", "registry+v1"),
            ("plain/comma", "stable,beta", "stable,beta"),
            ("plain/hash-inside", "foo#bar", "foo#bar"),
            ("plain/version", "1.0.0", "1.0.0"),
            ("plain/space", "my op", "my op"),
            ("double/bool", "yes", "\"yes\""),
            ("double/on", "on", "\"on\""),
            ("double/int", "123", "\"123\""),
            ("double/float", "1.0", "\"1.0\""),
            ("double/null", "~", "\"~\""),
            ("double/tab", "a\tb", "\"a\\tb\""),
            ("single/at", "@pkg", "'@pkg'"),
            ("single/colon-space", "a: b", "'a: b'"),
            ("single/hash", "#x", "'#x'"),
            ("single/quote", "'q'", "'''q'''"),
            ("single/trailing-space", "trail ", "'trail '"),
        ];
        for (name, value, expected) in cases {
            assert_eq!(line(value), expected, "{name}");
        }
    }

    #[test]
    fn long_values_are_not_folded() {
        let long = "word ".repeat(30) + "end";
        let text = yaml(&long, "c", "d");
        assert!(
            text.contains(&format!("{PACKAGE_LABEL}: {long}\n")),
            "{text}"
        );
    }

    #[test]
    fn multi_line_values_use_a_literal_block() {
        let text = yaml("a\nb", "c", "d");
        assert!(
            text.ends_with(&format!("  {PACKAGE_LABEL}: |-\n    a\n    b\n")),
            "{text}"
        );
    }

    #[test]
    fn dockerfile_with_and_without_default() {
        let with = dockerfile_text(
            "scratch",
            MediaType::RegistryV1.as_str(),
            "test-operator",
            "stable,beta",
            "stable",
            "manifests",
            "metadata",
        );
        assert_eq!(
            with,
            "FROM scratch

LABEL operators.operatorframework.io.bundle.mediatype.v1=registry+v1
LABEL operators.operatorframework.io.bundle.manifests.v1=manifests/
LABEL operators.operatorframework.io.bundle.metadata.v1=metadata/
LABEL operators.operatorframework.io.bundle.package.v1=test-operator
LABEL operators.operatorframework.io.bundle.channels.v1=stable,beta
LABEL operators.operatorframework.io.bundle.channel.default.v1=stable

COPY manifests /manifests/
COPY metadata /metadata/
"
        );
        let without = dockerfile_text(
            "registry.example.com/base:1",
            MediaType::Plain.as_str(),
            "p",
            "a",
            "",
            ".",
            "../metadata",
        );
        assert_eq!(
            without,
            "FROM registry.example.com/base:1

LABEL operators.operatorframework.io.bundle.mediatype.v1=plain
LABEL operators.operatorframework.io.bundle.manifests.v1=manifests/
LABEL operators.operatorframework.io.bundle.metadata.v1=metadata/
LABEL operators.operatorframework.io.bundle.package.v1=p
LABEL operators.operatorframework.io.bundle.channels.v1=a
COPY . /manifests/
COPY ../metadata /metadata/
"
        );
    }

    fn names(items: &[(&str, &str)]) -> BTreeMap<String, String> {
        items
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    #[test]
    fn channel_graph() {
        // The etcd test package: alpha→0.9.2, beta→0.9.0, stable→0.9.2;
        // 0.9.0 replaces 0.6.1; 0.9.2 skips 0.9.1 and replaces 0.9.0;
        // 0.9.4 replaces 0.9.2 but heads no channel.
        let heads = names(&[
            ("alpha", "etcdoperator.v0.9.2"),
            ("beta", "etcdoperator.v0.9.0"),
            ("stable", "etcdoperator.v0.9.2"),
        ]);
        let replaces: BTreeMap<String, Vec<String>> = [
            ("etcdoperator.v0.9.0", vec!["etcdoperator.v0.6.1"]),
            (
                "etcdoperator.v0.9.2",
                vec!["etcdoperator.v0.9.1", "etcdoperator.v0.9.0"],
            ),
            ("etcdoperator.v0.9.4", vec!["etcdoperator.v0.9.2"]),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.into_iter().map(str::to_string).collect()))
        .collect();
        let cases: [(&str, &str, &[&str]); 5] = [
            ("head-of-two", "etcdoperator.v0.9.2", &["alpha", "stable"]),
            (
                "replaced-everywhere",
                "etcdoperator.v0.9.0",
                &["alpha", "beta", "stable"],
            ),
            ("tail", "etcdoperator.v0.6.1", &["alpha", "beta", "stable"]),
            (
                "skipped-and-not-on-disk",
                "etcdoperator.v0.9.1",
                &["alpha", "stable"],
            ),
            ("newer-than-every-head", "etcdoperator.v0.9.4", &[]),
        ];
        for (name, csv, expected) in cases {
            assert_eq!(bundle_channels(csv, &heads, &replaces), expected, "{name}");
        }
        // A replaces cycle terminates.
        let cyclic: BTreeMap<String, Vec<String>> = [
            ("a".to_string(), vec!["b".to_string()]),
            ("b".to_string(), vec!["a".to_string()]),
        ]
        .into();
        assert!(bundle_channels("z", &names(&[("c", "a")]), &cyclic).is_empty());
    }

    #[test]
    fn package_manifests() {
        let ok = |text: &str| decode_package_manifest(text.as_bytes()).unwrap();
        let manifest = ok("packageName: etcd\nchannels:\n- name: alpha\n  currentCSV: a\n- name: beta\n  currentCSV: b\ndefaultChannel: beta\n");
        assert_eq!(manifest.package_name, "etcd");
        assert_eq!(manifest.default_channel(), "beta");
        assert_eq!(manifest.channels.len(), 2);
        let single = ok("packageName: p\nchannels:\n- name: only\n  currentCSV: a\n");
        assert_eq!(single.default_channel(), "only");
        let several = ok("packageName: p\nchannels:\n- name: a\n- name: b\n");
        assert_eq!(several.default_channel(), "");
        assert_eq!(ok("{\"PackageName\": \"json\"}").package_name, "json");
        assert_eq!(ok("packageName: 123\n").package_name, "123");

        let err = |text: &str| decode_package_manifest(text.as_bytes()).unwrap_err();
        assert_eq!(err(CSV), "name of package (packageName) is missing");
        assert_eq!(
            err(""),
            "could not decode contents into package manifest - EOF"
        );
        assert_eq!(
            err("{\"packageName\": 5}"),
            "could not decode contents into package manifest - json: cannot unmarshal number into Go struct field PackageManifest.packageName of type string"
        );
        assert_eq!(
            err("packageName: p\nchannels: x\n"),
            "could not decode contents into package manifest - error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field PackageManifest.channels of type []registry.PackageChannel"
        );
    }

    #[test]
    fn existing_annotations_check() {
        let expected = annotation_map(MediaType::RegistryV1.as_str(), "p", "a,b", "a");
        let matching = yaml("p", "a,b", "a");
        check_existing_annotations(matching.as_bytes(), &expected).unwrap();
        // Extra keys and a second document are ignored.
        let extra = format!("{matching}  other: x\n---\nannotations: 1\n");
        check_existing_annotations(extra.as_bytes(), &expected).unwrap();

        let message = |text: &str, expected: &BTreeMap<&'static str, String>| {
            check_existing_annotations(text.as_bytes(), expected)
                .unwrap_err()
                .to_string()
        };
        let other_package = matching.replace("package.v1: p", "package.v1: other");
        assert_eq!(
            message(&other_package, &expected),
            format!("Expect field \"{PACKAGE_LABEL}\" to have value \"p\" instead of \"other\"")
        );
        assert_eq!(
            message(
                "annotations:\n  x: y\n",
                &annotation_map(MediaType::Plain.as_str(), "p", "a", "")
            ),
            format!(
                "[Missing field: {CHANNELS_LABEL}, Missing field: {MANIFESTS_LABEL}, Missing field: {MEDIATYPE_LABEL}, Missing field: {METADATA_LABEL}, Missing field: {PACKAGE_LABEL}]"
            )
        );
        // Any scalar is read as its text, null as "".
        let scalars = annotation_map(MediaType::Plain.as_str(), "1.0", "yes", "");
        let text = format!(
            "annotations:\n  {PACKAGE_LABEL}: 1.0\n  {CHANNELS_LABEL}: yes\n  {MEDIATYPE_LABEL}: plain\n  {MANIFESTS_LABEL}: manifests/\n  {METADATA_LABEL}: metadata/\n  other: ~\n"
        );
        check_existing_annotations(text.as_bytes(), &scalars).unwrap();
        let null = format!("annotations:\n  {PACKAGE_LABEL}: ~\n");
        assert!(message(&null, &scalars).contains(&format!(
            "Expect field \"{PACKAGE_LABEL}\" to have value \"1.0\" instead of \"\""
        )));
        // Structural problems are parse errors.
        assert!(matches!(
            check_existing_annotations(b"annotations:\n  a: x\n  a: y\n", &expected),
            Err(GenerateError::ParseAnnotations(m)) if m.contains("mapping key \"a\" already defined")
        ));
        assert!(matches!(
            check_existing_annotations(b"annotations:\n  a: [x]\n", &expected),
            Err(GenerateError::ParseAnnotations(_))
        ));
        // An empty file has no annotations at all.
        assert!(message("# nothing\n", &expected).starts_with("[Missing field: "));
    }

    #[test]
    fn paths_like_go() {
        let cwd = Path::new("/a/b");
        assert_eq!(absolute(cwd, Path::new("")), PathBuf::from("/a/b"));
        assert_eq!(
            absolute(cwd, Path::new("./x/../y/")),
            PathBuf::from("/a/b/y")
        );
        assert_eq!(absolute(cwd, Path::new("../../../z")), PathBuf::from("/z"));
        assert_eq!(absolute(cwd, Path::new("/abs//p")), PathBuf::from("/abs/p"));
        assert_eq!(parent(Path::new("/")), PathBuf::from("/"));
        assert_eq!(relative(cwd, Path::new("/a/b")), ".");
        assert_eq!(relative(cwd, Path::new("/a/b/c/d")), "c/d");
        assert_eq!(relative(cwd, Path::new("/a/metadata")), "../metadata");
        assert_eq!(relative(cwd, Path::new("/g8out/m")), "../../g8out/m");
    }

    #[test]
    fn no_default_means_first_channel() {
        let dir = tree(&[("manifests/csv.yaml", CSV)]);
        let generated = input(dir.path(), "beta,stable", "")
            .run(&mut |_| {})
            .unwrap();
        assert_eq!(generated.default_channel, "beta");
        let text = std::fs::read_to_string(dir.path().join("metadata/annotations.yaml")).unwrap();
        assert!(text.contains(&format!("{DEFAULT_CHANNEL_LABEL}: beta\n")));
    }

    #[test]
    fn without_overwrite_existing_files_are_checked_and_kept() {
        let existing = yaml("test-operator", "a", "a");
        let dir = tree(&[
            ("manifests/csv.yaml", CSV),
            ("bundle.Dockerfile", "mine\n"),
            ("metadata/annotations.yaml", &existing),
        ]);
        let mut keep = input(dir.path(), "a", "");
        keep.overwrite = false;
        let mut lines = Vec::new();
        let generated = keep.run(&mut |l| lines.push(l.to_string())).unwrap();
        assert!(!generated.annotations_written && !generated.dockerfile_written);
        assert!(lines.contains(&"Validating existing annotations.yaml".to_string()));

        let mut mismatch = input(dir.path(), "b", "");
        mismatch.overwrite = false;
        let error = mismatch.run(&mut |_| {}).unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "[Expect field \"{DEFAULT_CHANNEL_LABEL}\" to have value \"b\" instead of \"a\", Expect field \"{CHANNELS_LABEL}\" to have value \"b\" instead of \"a\"]"
            )
        );
        let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
        assert_eq!(read("bundle.Dockerfile"), "mine\n");
        assert_eq!(read("metadata/annotations.yaml"), existing);
    }

    #[test]
    fn an_existing_file_without_a_default_channel_is_accepted() {
        let existing = format!(
            "annotations:\n  {CHANNELS_LABEL}: a\n  {MANIFESTS_LABEL}: manifests/\n  {MEDIATYPE_LABEL}: registry+v1\n  {METADATA_LABEL}: metadata/\n  {PACKAGE_LABEL}: test-operator\n"
        );
        let dir = tree(&[
            ("manifests/csv.yaml", CSV),
            ("metadata/annotations.yaml", &existing),
        ]);
        let mut keep = input(dir.path(), "a", "");
        keep.overwrite = false;
        keep.run(&mut |_| {}).unwrap();
        let mut asked = input(dir.path(), "a", "a");
        asked.overwrite = false;
        assert!(asked
            .run(&mut |_| {})
            .unwrap_err()
            .to_string()
            .contains("Missing field"));
    }

    #[test]
    fn a_failure_writes_nothing() {
        // The Dockerfile target is a directory: staging fails after the
        // manifests and the annotations were staged.
        let dir = tree(&[("manifests/csv.yaml", CSV), ("bundle.Dockerfile/keep", "")]);
        let mut generate = input(dir.path(), "a", "");
        generate.output_dir = Some(PathBuf::from("out"));
        let error = generate.run(&mut |_| {}).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "open {}: is a directory",
                dir.path().join("bundle.Dockerfile").display()
            )
        );
        assert!(!dir.path().join("out").exists());
        assert!(!dir.path().join("metadata").exists());
    }
}
