//! The served catalog: loaded and validated once at start-up (exactly as
//! `opm validate` does), then kept as a small index of names, upgrade edges
//! and provided APIs. Bundle, package and custom-schema blobs stay where they
//! are: the index remembers the file and byte range of each one's document
//! (JSON or YAML) and reads just those bytes again for every request, so the
//! catalog's bulk (bundle objects, CSV metadata, icons) is never held in
//! memory.

use crate::declcfg::load::{document_value, load_dir_with, BundleObjects, ParsedFile};
use crate::declcfg::{Blob, DeclarativeConfig};
use crate::encoding::json::go_quote as q;
use crate::encoding::stream::Span;
use crate::model::property;
use crate::model::Model;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Where one blob's document is: a catalog file (by its position in walk
/// order) and the document's bytes in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Payload {
    file: usize,
    span: Span,
}

/// A provided or required API.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

#[derive(Debug)]
pub struct Package {
    pub name: String,
    /// Empty when the package names none.
    pub default_channel: String,
    pub deprecation: Option<String>,
    pub channels: BTreeMap<String, Channel>,
    /// The `olm.package` blob (its icon and description are read from there).
    pub blob: Payload,
}

#[derive(Debug)]
pub struct Channel {
    pub name: String,
    /// The bundle no other entry replaces or skips.
    pub head: String,
    pub deprecation: Option<String>,
    /// Entries by bundle name.
    pub entries: BTreeMap<String, Entry>,
}

/// A channel's entry for one bundle.
#[derive(Debug)]
pub struct Entry {
    pub replaces: String,
    pub skips: Vec<String>,
    pub skip_range: String,
    /// The bundle, in [`Index::bundles`].
    pub bundle: usize,
}

/// One `olm.bundle` blob.
#[derive(Debug)]
pub struct Bundle {
    pub name: String,
    pub package: String,
    /// `olm.gvk` properties, in property order.
    pub provided: Vec<Gvk>,
    pub deprecation: Option<String>,
    pub payload: Payload,
}

/// A blob of another schema, for the experimental API and the cache.
#[derive(Debug)]
pub struct Meta {
    pub schema: String,
    pub package: String,
    pub payload: Payload,
}

/// The catalog as served.
#[derive(Debug)]
pub struct Index {
    /// Packages by name.
    pub packages: BTreeMap<String, Package>,
    pub bundles: Vec<Bundle>,
    /// Blobs of other schemas, in catalog order.
    pub metas: Vec<Meta>,
    files: Vec<CatalogFile>,
}

/// A catalog file as it was when loaded.
#[derive(Debug)]
struct CatalogFile {
    path: PathBuf,
    display: String,
    len: u64,
    modified: Option<SystemTime>,
}

/// Why the catalog cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The catalog fails `opm validate`; shown as that command shows it.
    #[error("{}", .shown.summary.as_deref().unwrap_or_default())]
    Invalid { shown: crate::validate::Shown },
    /// A model that passed validation but cannot be served (a validation gap).
    #[error("{message}")]
    Inconsistent { message: String },
    #[error("stat {path}: {source}")]
    Stat {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A bundle that converts in the model but not to the gRPC API (upstream
    /// refuses to build its cache for it).
    #[error("package {}, bundle {}: {message}", q(.package), q(.bundle))]
    Unservable {
        package: String,
        bundle: String,
        message: String,
    },
}

/// A blob that could not be read again.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} changed since the catalog was loaded; restart the server to serve it")]
    Changed { path: String },
    #[error("{path}: {message}")]
    Document { path: String, message: String },
    #[error("{path}: {source}")]
    Decode {
        path: String,
        #[source]
        source: crate::declcfg::decode::DecodeError,
    },
}

/// What one parsed file contributes.
struct LoadedFile {
    file: CatalogFile,
    index: usize,
    blobs: Vec<(Blob, Option<Payload>)>,
}

impl Index {
    /// Loads `dir` (named `display` in messages), refuses it when `opm
    /// validate` would, and builds the index.
    pub fn load(dir: &Path, display: &str) -> Result<Index, IndexError> {
        let loaded = load_dir_with(dir, display, BundleObjects::Drop, keep).map_err(|error| {
            IndexError::Invalid {
                shown: crate::validate::Outcome::Load(error).shown(display),
            }
        })?;
        let mut files = Vec::with_capacity(loaded.len());
        let mut config = DeclarativeConfig::default();
        let mut package_blobs: HashMap<String, Payload> = HashMap::new();
        let mut bundle_blobs: HashMap<(String, String), Payload> = HashMap::new();
        let mut metas = Vec::new();
        for result in loaded {
            let LoadedFile { file, index, blobs } = result?;
            debug_assert_eq!(index, files.len());
            files.push(file);
            for (blob, payload) in blobs {
                if let Some(payload) = payload {
                    match &blob {
                        Blob::Package(p) => {
                            package_blobs.entry(p.name.clone()).or_insert(payload);
                        }
                        Blob::Bundle(b) => {
                            bundle_blobs
                                .entry((b.package.clone(), b.name.clone()))
                                .or_insert(payload);
                        }
                        Blob::Other(m) => metas.push(Meta {
                            schema: m.schema.clone(),
                            package: m.package.clone(),
                            payload,
                        }),
                        Blob::Channel(_) | Blob::Deprecation(_) => {}
                    }
                }
                config.push(blob);
            }
        }
        let conversion = crate::model::convert::convert(config);
        let verdict =
            crate::validate::validate_converted(&conversion, crate::validate::registry::ALL);
        if !verdict.passed() {
            return Err(IndexError::Invalid {
                shown: crate::validate::Outcome::of_verdict(verdict).shown(display),
            });
        }
        let (packages, bundles) = build(&conversion.model, &package_blobs, &bundle_blobs)?;
        Ok(Index {
            packages,
            bundles,
            metas,
            files,
        })
    }

    /// The bytes of a blob's document.
    fn bytes(&self, payload: Payload) -> Result<Vec<u8>, ReadError> {
        let Some(file) = self.files.get(payload.file) else {
            return Err(ReadError::Changed {
                path: String::from("catalog"),
            });
        };
        let io = |source| ReadError::Io {
            path: file.display.clone(),
            source,
        };
        // Looked at before opening: a file replaced by a FIFO must not block.
        let changed = |meta: &std::fs::Metadata| {
            !meta.is_file() || meta.len() != file.len || meta.modified().ok() != file.modified
        };
        if changed(&std::fs::metadata(&file.path).map_err(io)?) {
            return Err(ReadError::Changed {
                path: file.display.clone(),
            });
        }
        let handle = std::fs::File::open(&file.path).map_err(io)?;
        if changed(&handle.metadata().map_err(io)?) {
            return Err(ReadError::Changed {
                path: file.display.clone(),
            });
        }
        let mut bytes = vec![0; payload.span.end.saturating_sub(payload.span.start)];
        handle
            .read_exact_at(&mut bytes, payload.span.start as u64)
            .map_err(io)?;
        Ok(bytes)
    }

    fn source_name(&self, payload: Payload) -> String {
        self.files
            .get(payload.file)
            .map_or_else(String::new, |f| f.display.clone())
    }

    /// A blob as a JSON value, keys sorted (as the loader has them).
    pub fn value(&self, payload: Payload) -> Result<Value, ReadError> {
        let bytes = self.bytes(payload)?;
        document_value(&bytes, payload.span.syntax).map_err(|message| ReadError::Document {
            path: self.source_name(payload),
            message,
        })
    }

    fn blob(&self, payload: Payload) -> Result<Blob, ReadError> {
        let value = self.value(payload)?;
        crate::declcfg::decode::decode_blob_again(value, None).map_err(|source| ReadError::Decode {
            path: self.source_name(payload),
            source,
        })
    }

    /// A bundle's `olm.bundle` blob, objects included.
    pub fn bundle_blob(&self, bundle: &Bundle) -> Result<crate::declcfg::Bundle, ReadError> {
        match self.blob(bundle.payload)? {
            Blob::Bundle(blob) => Ok(blob),
            _ => Err(ReadError::Changed {
                path: self.source_name(bundle.payload),
            }),
        }
    }

    /// A package's `olm.package` blob, icon included.
    pub fn package_blob(&self, package: &Package) -> Result<crate::declcfg::Package, ReadError> {
        match self.blob(package.blob)? {
            Blob::Package(blob) => Ok(blob),
            _ => Err(ReadError::Changed {
                path: self.source_name(package.blob),
            }),
        }
    }
}

/// Runs on the parsing threads: notes where each blob's document is and
/// keeps only what validation needs (the loader left bundle objects and icon
/// data behind; custom blobs are dropped here).
fn keep(file: ParsedFile<'_>) -> Result<LoadedFile, IndexError> {
    let ParsedFile {
        index,
        path,
        display,
        blobs,
        spans,
    } = file;
    let meta = std::fs::metadata(path).map_err(|source| IndexError::Stat {
        path: display.to_string(),
        source,
    })?;
    let mut kept = Vec::with_capacity(blobs.len());
    for (mut blob, span) in blobs.into_iter().zip(spans) {
        let payload = match &mut blob {
            Blob::Channel(_) | Blob::Deprecation(_) => None,
            Blob::Other(meta) => {
                meta.blob = Value::Null;
                Some(Payload { file: index, span })
            }
            Blob::Bundle(_) | Blob::Package(_) => Some(Payload { file: index, span }),
        };
        kept.push((blob, payload));
    }
    Ok(LoadedFile {
        file: CatalogFile {
            path: path.to_path_buf(),
            display: display.to_string(),
            len: meta.len(),
            modified: meta.modified().ok(),
        },
        index,
        blobs: kept,
    })
}

type Built = (BTreeMap<String, Package>, Vec<Bundle>);

/// The index of a valid model.
fn build(
    model: &Model,
    package_blobs: &HashMap<String, Payload>,
    bundle_blobs: &HashMap<(String, String), Payload>,
) -> Result<Built, IndexError> {
    let mut packages = BTreeMap::new();
    let mut bundles: Vec<Bundle> = Vec::new();
    let mut bundle_ids: HashMap<(&str, &str), usize> = HashMap::new();
    for (name, package) in &model.packages {
        let mut channels = BTreeMap::new();
        for (channel_name, channel) in &package.channels {
            // A valid model has exactly one head per channel.
            let head = channel
                .head()
                .map(|head| head.name.clone())
                .map_err(|error| IndexError::Inconsistent {
                    message: error.to_string(),
                })?;
            let mut entries = BTreeMap::new();
            for (bundle_name, bundle) in &channel.bundles {
                let key = (name.as_str(), bundle_name.as_str());
                let id = match bundle_ids.get(&key) {
                    Some(id) => *id,
                    None => {
                        let unservable = |message: String| IndexError::Unservable {
                            package: name.clone(),
                            bundle: bundle_name.clone(),
                            message,
                        };
                        let payload = bundle_blobs
                            .get(&(name.clone(), bundle_name.clone()))
                            .copied()
                            .ok_or_else(|| unservable("no olm.bundle blob".to_string()))?;
                        let properties = property::parse(&bundle.properties)
                            .map_err(|e| unservable(format!("parse properties: {e}")))?;
                        if properties.csv_metadatas.len() > 1 {
                            return Err(unservable(format!(
                                "parse properties: expected at most 1 property of type {}, found {}",
                                q(crate::property::CSV_METADATA),
                                properties.csv_metadatas.len()
                            )));
                        }
                        bundles.push(Bundle {
                            name: bundle_name.clone(),
                            package: name.clone(),
                            provided: properties
                                .gvks
                                .into_iter()
                                .map(|gvk| Gvk {
                                    group: gvk.group,
                                    version: gvk.version,
                                    kind: gvk.kind,
                                })
                                .collect(),
                            deprecation: bundle.deprecation.as_ref().map(|d| d.message.clone()),
                            payload,
                        });
                        bundle_ids.insert(key, bundles.len() - 1);
                        bundles.len() - 1
                    }
                };
                entries.insert(
                    bundle_name.clone(),
                    Entry {
                        replaces: bundle.replaces.clone(),
                        skips: bundle.skips.clone(),
                        skip_range: bundle.skip_range.clone(),
                        bundle: id,
                    },
                );
            }
            channels.insert(
                channel_name.clone(),
                Channel {
                    name: channel_name.clone(),
                    head,
                    deprecation: channel.deprecation.as_ref().map(|d| d.message.clone()),
                    entries,
                },
            );
        }
        let blob = package_blobs
            .get(name)
            .copied()
            .ok_or_else(|| IndexError::Inconsistent {
                message: format!("package {} has no olm.package blob", q(name)),
            })?;
        packages.insert(
            name.clone(),
            Package {
                name: name.clone(),
                default_channel: package.default_channel.clone().unwrap_or_default(),
                deprecation: package.deprecation.as_ref().map(|d| d.message.clone()),
                channels,
                blob,
            },
        );
    }
    Ok((packages, bundles))
}
