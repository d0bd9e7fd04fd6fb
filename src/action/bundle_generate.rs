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
use crate::encoding::json::go_quote;

use crate::fsutil::{new_file_mode, Batch, StageError};
pub use inference::InferenceError;
use inference::NestedBundle;
use serde_json::Value;
use std::collections::BTreeMap;
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
    #[error(transparent)]
    MediaType(#[from] crate::bundle::mediatype::DetectError),
    #[error("please manually input channels and packageName, error interpreting bundle from directory {}, {cause}", .directory.display())]
    Inference {
        directory: PathBuf,
        cause: InferenceError,
    },
    #[error("error interpreting channels, please manually input channels instead")]
    NoChannels,
    /// An existing annotations file that cannot be parsed.
    #[error(transparent)]
    ParseAnnotations(crate::bundle::annotations::ParseError),
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
        let mut media_type = mediatype::detect(&crate::bundle::Listing::read(&directory))?;
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
            io(op, e.into_io_error())
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
            error: error.into_io_error(),
        }),
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

mod inference;

#[cfg(test)]
mod tests;
