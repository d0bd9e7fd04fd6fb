//! `opm bundle init` (also `opm alpha bundle init`): initialises a directory
//! as a bundle (bundle.md §10.3, the CSV-less bundles seed): `manifests/`
//! from a source directory, from a YAML/JSON stream, or default resources;
//! `metadata/` with the annotations and what the media type needs; a
//! `Dockerfile` on request. Never replaces anything: every file is staged
//! first and put in place only when none of them exists. Nothing is printed
//! here: warnings go to the caller's callback, the written files are returned.

use crate::action::bundle_generate::{
    annotation_map, annotations_yaml, dockerfile_text, permission_bits,
};
use crate::bundle::mediatype::MediaType;
use crate::bundle::Manifest;
use crate::declcfg::load::io_message;
use crate::encoding::json::go_quote;
use crate::encoding::yaml_write::write_document;
use crate::fsutil::{new_file_mode, Batch, StageError};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

const MANIFESTS_DIR: &str = "manifests";
const METADATA_DIR: &str = "metadata";
const DOCKERFILE: &str = "Dockerfile";
/// The `FROM` image of the generated Dockerfile.
const BASE_IMAGE: &str = "scratch";
const DEFAULT_CHANNEL: &str = "alpha";
/// The package name when the directory name leaves nothing usable.
const FALLBACK_PACKAGE: &str = "operator";
/// The version of every generated resource.
const VERSION: &str = "0.0.1";
/// Permission bits of generated files (before the umask), as `generate`.
const FILE_MODE: u32 = 0o644;
/// DNS-1123 label length limit.
const MAX_LABEL_LEN: usize = 63;
/// How the stream source is named in messages.
const STREAM_NAME: &str = "<stdin>";
/// The media types `init` writes, in the order messages list them.
const MEDIA_TYPES: &str = "[registry+v1, registry+v2, plain+v0]";

const CSV_KIND: &str = "ClusterServiceVersion";
const DEPLOYMENT_KIND: &str = "Deployment";
const CRD_KIND: &str = "CustomResourceDefinition";

/// Where the manifests come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// Nothing: default resources are generated.
    None,
    /// A directory (relative to the working directory unless absolute)
    /// whose manifest files are copied into `manifests/` byte for byte.
    Directory(PathBuf),
    /// A YAML/JSON stream (stdin): each object gets its own file.
    Stream(Vec<u8>),
}

/// What to initialise. Empty strings mean "not given".
#[derive(Debug, Clone)]
pub struct InitBundle {
    pub source: Source,
    /// `None`: inferred from the manifests.
    pub media_type: Option<MediaType>,
    pub generate_dockerfile: bool,
    /// Default: the working directory's name as a DNS-1123 label.
    pub package: String,
    /// Comma-separated, written verbatim. Default: `alpha`.
    pub channels: String,
    /// Default: the first channel (decisions.md §4).
    pub default_channel: String,
    /// The absolute directory initialised as a bundle.
    pub working_dir: PathBuf,
}

/// What was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitializedBundle {
    pub media_type: MediaType,
    pub package: String,
    pub channels: String,
    pub default_channel: String,
    /// The files written, relative to the working directory (with `/`), in
    /// write order.
    pub written: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error("invalid --mediatype value {}: must be one of {MEDIA_TYPES}", go_quote(.value))]
    UnknownMediaType { value: String },
    #[error("source directory {} does not exist", go_quote(.path))]
    SourceNotFound { path: String },
    #[error("source {} is not a directory (give a directory of manifests, or - to read them from stdin)", go_quote(.path))]
    SourceNotDirectory { path: String },
    #[error("{op} {path}: {}", io_message(.error))]
    Read {
        op: &'static str,
        path: String,
        error: std::io::Error,
    },
    /// A manifest document that is not a Kubernetes object.
    #[error("{path}, document {}: {message}", .document + 1)]
    Document {
        path: String,
        /// 0-based.
        document: usize,
        message: String,
    },
    #[error("unable to infer mediatype when no manifests are present")]
    NoManifests,
    #[error("mediatype registry+v1 needs a ClusterServiceVersion in the manifests, but there is none; use -m registry+v2 for a bundle without one")]
    MissingCsv,
    #[error("mediatype registry+v2 does not allow a ClusterServiceVersion ({location}); use -m registry+v1 for a bundle with one")]
    UnexpectedCsv { location: String },
    #[error("mediatype registry+v2 needs at least one Deployment in the manifests, but there is none; use -m plain+v0 for plain manifests")]
    MissingDeployment,
    #[error("{path} already exists; opm bundle init never overwrites")]
    Exists { path: String },
    #[error("{path} already exists and is not empty; opm bundle init never overwrites")]
    NotEmpty { path: String },
    #[error("{op} {}: {}", .path.display(), io_message(.error))]
    Write {
        op: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
}

impl From<StageError> for InitError {
    fn from(error: StageError) -> InitError {
        InitError::Write {
            op: error.op,
            path: error.path,
            error: error.source,
        }
    }
}

/// Reads a `-m/--mediatype` value; `plain` is `plain+v0`.
pub fn parse_media_type(value: &str) -> Result<MediaType, InitError> {
    match MediaType::parse(value) {
        Some(MediaType::Helm) | None => Err(InitError::UnknownMediaType {
            value: value.to_string(),
        }),
        Some(found) => Ok(found),
    }
}

/// One file to write: its path relative to the working directory.
#[derive(Debug, Clone)]
struct Planned {
    path: PathBuf,
    contents: Vec<u8>,
    mode: u32,
}

/// A relative path for messages, with `/`.
fn shown(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// One file for `manifests/`.
#[derive(Debug, Clone)]
struct ManifestFile {
    name: OsString,
    contents: Vec<u8>,
    mode: u32,
}

impl InitBundle {
    /// Reads the source, decides the media type and the names, checks that
    /// nothing would be replaced, then writes every file at once. On error
    /// nothing is written.
    pub fn run(&self, warn: &mut dyn FnMut(&str)) -> Result<InitializedBundle, InitError> {
        let (mut manifests, objects) = match &self.source {
            Source::None => (Vec::new(), Vec::new()),
            Source::Directory(dir) => read_directory(&self.working_dir, dir, warn)?,
            Source::Stream(bytes) => read_stream(bytes)?,
        };
        let media_type = choose_media_type(self.media_type, &objects)?;
        let package = if self.package.is_empty() {
            package_from_dir(&self.working_dir)
        } else {
            self.package.clone()
        };
        let channels = if self.channels.is_empty() {
            DEFAULT_CHANNEL.to_string()
        } else {
            self.channels.clone()
        };
        let default_channel = if self.default_channel.is_empty() {
            channels.split(',').next().unwrap_or_default().to_string()
        } else {
            self.default_channel.clone()
        };
        let label = media_type.label();

        if manifests.is_empty() {
            let (name, value) = match media_type {
                MediaType::RegistryV1 => ("csv.yaml", default_csv(&package)),
                _ => ("deployment.yaml", default_deployment(&package)),
            };
            manifests.push(ManifestFile {
                name: OsString::from(name),
                contents: yaml(&value).into_bytes(),
                mode: new_file_mode(FILE_MODE),
            });
        }
        let mut files: Vec<Planned> = manifests
            .into_iter()
            .map(|file| Planned {
                path: Path::new(MANIFESTS_DIR).join(file.name),
                contents: file.contents,
                mode: file.mode,
            })
            .collect();
        let generated = |name: &str, text: String| Planned {
            path: Path::new(METADATA_DIR).join(name),
            contents: text.into_bytes(),
            mode: new_file_mode(FILE_MODE),
        };
        let annotations = annotation_map(label, &package, &channels, &default_channel);
        files.push(generated(
            "annotations.yaml",
            annotations_yaml(&annotations),
        ));
        if media_type != MediaType::RegistryV1 {
            files.push(generated(
                "bundle.yaml",
                bundle_yaml(media_type, &package, &objects),
            ));
        }
        if media_type != MediaType::Plain {
            files.push(generated(
                "dependencies.yaml",
                "dependencies: []\n".to_string(),
            ));
        }
        if self.generate_dockerfile {
            let text = dockerfile_text(
                BASE_IMAGE,
                label,
                &package,
                &channels,
                &default_channel,
                MANIFESTS_DIR,
                METADATA_DIR,
            );
            files.push(Planned {
                path: PathBuf::from(DOCKERFILE),
                contents: text.into_bytes(),
                mode: new_file_mode(FILE_MODE),
            });
        }

        let targets: Vec<&Path> = files.iter().map(|file| file.path.as_path()).collect();
        check_targets(&self.working_dir, &targets)?;
        let mut batch = Batch::new();
        for file in &files {
            batch.stage(
                &self.working_dir.join(&file.path),
                &file.contents,
                file.mode,
            )?;
        }
        batch.commit_new().map_err(|error| {
            if error.source.kind() == std::io::ErrorKind::AlreadyExists {
                let path = error
                    .path
                    .strip_prefix(&self.working_dir)
                    .map_or_else(|_| error.path.clone(), Path::to_path_buf);
                InitError::Exists { path: shown(&path) }
            } else {
                InitError::from(error)
            }
        })?;
        Ok(InitializedBundle {
            media_type,
            package,
            channels,
            default_channel,
            written: files.iter().map(|file| shown(&file.path)).collect(),
        })
    }
}

/// The manifest files directly inside `dir` (sorted by name; hidden files
/// and directories ignored, other files skipped with a warning) and their
/// objects. A file without any object is skipped too, so that "no
/// manifests" always means "no objects".
fn read_directory(
    working_dir: &Path,
    dir: &Path,
    warn: &mut dyn FnMut(&str),
) -> Result<(Vec<ManifestFile>, Vec<Manifest>), InitError> {
    let dir_name = dir.display().to_string();
    let absolute = working_dir.join(dir);
    match std::fs::metadata(&absolute) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(InitError::SourceNotDirectory { path: dir_name }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(InitError::SourceNotFound { path: dir_name })
        }
        Err(error) => {
            return Err(InitError::Read {
                op: "stat",
                path: dir_name,
                error,
            })
        }
    }
    let read_error = |op, path: &Path, error| InitError::Read {
        op,
        path: path.display().to_string(),
        error,
    };
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&absolute).map_err(|e| read_error("open", dir, e))? {
        let entry = entry.map_err(|e| read_error("read", dir, e))?;
        names.push(entry.file_name());
    }
    names.sort();

    let mut manifests = Vec::new();
    let mut objects = Vec::new();
    for name in names {
        let text_name = name.to_string_lossy();
        if text_name.starts_with('.') {
            continue;
        }
        let path = dir.join(&name);
        let file_name = path.display().to_string();
        let metadata = match std::fs::metadata(absolute.join(&name)) {
            Ok(metadata) if metadata.is_dir() => continue,
            Ok(metadata) if metadata.is_file() => metadata,
            Ok(_) | Err(_) => {
                warn(&format!("skipping {file_name}: not a regular file"));
                continue;
            }
        };
        if ![".yaml", ".yml", ".json"]
            .iter()
            .any(|ext| text_name.ends_with(ext))
        {
            warn(&format!(
                "skipping {file_name}: not a .yaml, .yml or .json file"
            ));
            continue;
        }
        let contents = crate::fsutil::read_input(
            &absolute.join(&name),
            &absolute,
            crate::fsutil::Limit::Manifest,
        )
        .map_err(|e| read_error("open", &path, e.into_io_error()))?;
        let found = decode_objects(&contents, &file_name)?;
        if found.is_empty() {
            warn(&format!("skipping {file_name}: it holds no objects"));
            continue;
        }
        objects.extend(found);
        manifests.push(ManifestFile {
            name,
            contents,
            mode: permission_bits(&metadata),
        });
    }
    Ok((manifests, objects))
}

/// One file per object of the stream, named after the object and written
/// with the crate's YAML writer.
fn read_stream(bytes: &[u8]) -> Result<(Vec<ManifestFile>, Vec<Manifest>), InitError> {
    let objects = decode_objects(bytes, STREAM_NAME)?;
    let values: Vec<&Value> = objects.iter().map(|o| &o.value).collect();
    let manifests = stream_file_names(&values)
        .into_iter()
        .zip(&objects)
        .map(|(name, object)| ManifestFile {
            name: OsString::from(name),
            contents: yaml(&object.value).into_bytes(),
            mode: new_file_mode(FILE_MODE),
        })
        .collect();
    Ok((manifests, objects))
}

/// The objects of a YAML/JSON stream. Empty documents are skipped; every
/// other document must be an object with a non-empty string `apiVersion`
/// and `kind`.
fn decode_objects(bytes: &[u8], file_name: &str) -> Result<Vec<Manifest>, InitError> {
    crate::bundle::csvless::objects_of(file_name, bytes).map_err(|(number, message)| {
        InitError::Document {
            path: file_name.to_string(),
            document: number - 1,
            message,
        }
    })
}

/// The requested media type checked against the manifests, or the one they
/// imply: a CSV means registry+v1, else a Deployment registry+v2, else any
/// object plain+v0. Without objects any requested type is fine (default
/// resources are generated).
fn choose_media_type(
    requested: Option<MediaType>,
    objects: &[Manifest],
) -> Result<MediaType, InitError> {
    let csv = objects.iter().find(|o| o.kind() == CSV_KIND);
    let has_deployment = objects.iter().any(|o| o.kind() == DEPLOYMENT_KIND);
    let Some(requested) = requested else {
        return if csv.is_some() {
            Ok(MediaType::RegistryV1)
        } else if has_deployment {
            Ok(MediaType::RegistryV2)
        } else if objects.is_empty() {
            Err(InitError::NoManifests)
        } else {
            Ok(MediaType::Plain)
        };
    };
    if objects.is_empty() {
        return match requested {
            MediaType::Helm => Err(InitError::UnknownMediaType {
                value: requested.as_str().to_string(),
            }),
            other => Ok(other),
        };
    }
    match requested {
        MediaType::RegistryV1 if csv.is_none() => Err(InitError::MissingCsv),
        MediaType::RegistryV2 => match csv {
            Some(csv) => Err(InitError::UnexpectedCsv {
                location: format!("{}, document {}", csv.file, csv.document),
            }),
            None if !has_deployment => Err(InitError::MissingDeployment),
            None => Ok(MediaType::RegistryV2),
        },
        MediaType::Helm => Err(InitError::UnknownMediaType {
            value: requested.as_str().to_string(),
        }),
        other => Ok(other),
    }
}

/// The package name for a bundle in `dir`: its base name as a DNS-1123 label.
fn package_from_dir(dir: &Path) -> String {
    dns_label(&dir.file_name().unwrap_or_default().to_string_lossy())
}

/// `name` as a DNS-1123 label: lower case, each run of other characters
/// than `[a-z0-9-]` turned into one `-`, no `-` at either end, at most 63
/// characters; `operator` when nothing is left.
fn dns_label(name: &str) -> String {
    let mut label = String::new();
    let mut in_run = false;
    for c in name.chars().map(|c| c.to_ascii_lowercase()) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' {
            label.push(c);
            in_run = false;
        } else if !in_run {
            label.push('-');
            in_run = true;
        }
    }
    let trimmed = label.trim_matches('-');
    let cut = &trimmed[..trimmed.len().min(MAX_LABEL_LEN)];
    let cut = cut.trim_end_matches('-');
    if cut.is_empty() {
        FALLBACK_PACKAGE.to_string()
    } else {
        cut.to_string()
    }
}

/// File names for the objects of a stream: `<metadata.name>.<kind>.yaml`
/// (kind in lower case; characters outside `[A-Za-z0-9._-]` replaced by
/// `_`, a leading `.` too so that no file is hidden; `object` without a
/// name), with `-2`, `-3`, … before `.yaml` for repeated names.
fn stream_file_names(objects: &[&Value]) -> Vec<String> {
    let mut used = BTreeSet::new();
    objects
        .iter()
        .map(|object| {
            let name = object
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
                .unwrap_or("object");
            let kind = object
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_lowercase();
            let mut base = file_safe(&format!("{name}.{kind}"));
            if base.starts_with('.') {
                base.replace_range(..1, "_");
            }
            let mut candidate = format!("{base}.yaml");
            let mut n = 2;
            while used.contains(&candidate) {
                candidate = format!("{base}-{n}.yaml");
                n += 1;
            }
            used.insert(candidate.clone());
            candidate
        })
        .collect()
}

fn file_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// One YAML document, as the crate writes YAML (go-yaml v2 style, keys
/// sorted).
fn yaml(value: &Value) -> String {
    let mut out = Vec::new();
    write_document(value, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// `metadata/bundle.yaml`: `name` and `version`, and for registry+v2 also
/// `displayName` and one `apis` entry per CRD. Keys in the seed's order
/// (each written as its own one-key mapping, then joined).
fn bundle_yaml(media_type: MediaType, package: &str, objects: &[Manifest]) -> String {
    let mut fields = vec![
        ("name", json!(format!("{package}.v{VERSION}"))),
        ("version", json!(VERSION)),
    ];
    if media_type == MediaType::RegistryV2 {
        fields.push(("displayName", json!(package)));
        let apis = provided_apis(objects);
        if !apis.is_empty() {
            fields.push(("apis", Value::Array(apis)));
        }
    }
    fields
        .into_iter()
        .map(|(key, value)| yaml(&json!({ key: value })))
        .collect()
}

/// `{apiVersion: <group>/<version>, kind, displayName}` for each CRD, in
/// manifest order: its storage version, else its first version, else (a
/// v1beta1 CRD) `spec.version`. A CRD without a kind or version is left out.
fn provided_apis(objects: &[Manifest]) -> Vec<Value> {
    objects
        .iter()
        .filter(|o| o.kind() == CRD_KIND)
        .filter_map(|crd| {
            let spec = crd.value.get("spec")?;
            let text = |v: Option<&Value>| {
                v.and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
            };
            let kind = text(spec.pointer("/names/kind"))?;
            let versions = spec
                .get("versions")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            let storage = versions
                .iter()
                .find(|v| v.get("storage").and_then(Value::as_bool) == Some(true));
            let version = text(storage.and_then(|v| v.get("name")))
                .or_else(|| text(versions.first().and_then(|v| v.get("name"))))
                .or_else(|| text(spec.get("version")))?;
            let api_version = match text(spec.get("group")) {
                Some(group) => format!("{group}/{version}"),
                None => version,
            };
            Some(json!({
                "apiVersion": api_version,
                "kind": kind,
                "displayName": kind,
            }))
        })
        .collect()
}

/// The spec of the default Deployment (also embedded in the default CSV).
fn default_deployment_spec(package: &str) -> Value {
    json!({
        "replicas": 1,
        "selector": {"matchLabels": {"app": package}},
        "template": {
            "metadata": {"labels": {"app": package}},
            "spec": {
                "containers": [{
                    "name": "manager",
                    "image": format!("quay.io/example/{package}:v{VERSION}"),
                }],
            },
        },
    })
}

/// `manifests/deployment.yaml` when there are no manifests.
fn default_deployment(package: &str) -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": DEPLOYMENT_KIND,
        "metadata": {"name": package},
        "spec": default_deployment_spec(package),
    })
}

/// `manifests/csv.yaml` when there are no manifests: a CSV that passes
/// `opm bundle validate`.
fn default_csv(package: &str) -> Value {
    let install_mode = |mode: &str, supported: bool| json!({"type": mode, "supported": supported});
    json!({
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": CSV_KIND,
        "metadata": {"name": format!("{package}.v{VERSION}")},
        "spec": {
            "displayName": package,
            "description": format!("The {package} operator."),
            "version": VERSION,
            "provider": {"name": "Example"},
            "maintainers": [{"name": "Example Maintainers", "email": "maintainers@example.com"}],
            "installModes": [
                install_mode("OwnNamespace", true),
                install_mode("SingleNamespace", true),
                install_mode("MultiNamespace", false),
                install_mode("AllNamespaces", true),
            ],
            "install": {
                "strategy": "deployment",
                "spec": {
                    "deployments": [{
                        "name": package,
                        "spec": default_deployment_spec(package),
                    }],
                },
            },
        },
    })
}

/// Fails on the first target (in write order) that exists, or whose
/// top-level directory (`manifests/`, `metadata/`) exists and is not empty
/// or is not a directory.
fn check_targets(working_dir: &Path, targets: &[&Path]) -> Result<(), InitError> {
    let mut checked_dirs = BTreeSet::new();
    for target in targets {
        if working_dir.join(target).symlink_metadata().is_ok() {
            return Err(InitError::Exists {
                path: shown(target),
            });
        }
        let mut components = target.components();
        let (Some(top), Some(_)) = (components.next(), components.next()) else {
            continue;
        };
        let top = Path::new(top.as_os_str());
        if !checked_dirs.insert(top) {
            continue;
        }
        let dir = working_dir.join(top);
        let in_the_way = || InitError::Exists { path: shown(top) };
        match std::fs::metadata(&dir) {
            // A dangling symlink is in the way too.
            Err(_) if dir.symlink_metadata().is_ok() => return Err(in_the_way()),
            Err(_) => {}
            Ok(meta) if !meta.is_dir() => return Err(in_the_way()),
            Ok(_) => {
                let mut entries = std::fs::read_dir(&dir).map_err(|error| InitError::Read {
                    op: "open",
                    path: shown(top),
                    error,
                })?;
                if entries.next().is_some() {
                    return Err(InitError::NotEmpty {
                        path: format!("{}/", shown(top)),
                    });
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
