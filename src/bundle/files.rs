//! Reading a bundle directory: [`BundleDir::read`] lists the bundle root, `manifests/` and
//! `metadata/` once each (entries sorted by name, as Go's `os.ReadDir`), reads every entry of
//! the two sub-directories once through the safe reader ([`read_file`]) and records what
//! happened to each (its bytes, or why it was not read). The YAML/JSON documents of a file are
//! decoded at most once, on first use ([`Entry::documents`]), and the manifests' media type is
//! detected at most once ([`BundleDir::detected_media_type`]).
//!
//! Nothing is reported here: parsing, rendering, format and content validation and the CSV-less
//! reader each take the same [`BundleDir`] and report its problems with their own (upstream's)
//! messages.

use crate::bundle::mediatype::{DetectError, MediaType};
use crate::encoding::gojson::RawDoc;
use crate::encoding::stream::{decode_documents, Document, StreamError};
use crate::fsutil::InputError;
use serde_json::Value;
use std::cell::OnceCell;
use std::path::{Path, PathBuf};

/// Reads a file of a bundle directory: `<bundle>/manifests/<file>` or `<bundle>/metadata/<file>`,
/// so the tree a symbolic link must stay in is the file's grandparent. Only regular files are
/// read, within the manifest size limit ([`crate::fsutil::read_input`]).
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>, crate::fsutil::InputError> {
    let tree = path
        .parent()
        .and_then(std::path::Path::parent)
        .filter(|tree| !tree.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    crate::fsutil::read_input(path, tree, crate::fsutil::Limit::Manifest)
}

/// A bundle directory as read from disk, once: a directory the user named, or an image's
/// content unpacked into a temporary directory that lives as long as this value.
#[derive(Debug)]
pub struct BundleDir {
    root: PathBuf,
    unpacked: Option<crate::fsutil::TempDir>,
    /// The root's entries: name, and whether it is a directory (not following a link).
    top: Result<Vec<(String, bool)>, std::io::Error>,
    manifests: Listing,
    metadata: Listing,
    detected: OnceCell<Result<MediaType, DetectError>>,
}

impl BundleDir {
    /// Lists and reads the bundle directory `root`. Never fails: a directory that cannot be
    /// listed, or a file that cannot be read, is recorded for the consumers to report.
    pub fn read(root: &Path) -> BundleDir {
        let top = std::fs::read_dir(root).map(|read| {
            let mut entries: Vec<(String, bool)> = read
                .filter_map(Result::ok)
                .map(|e| {
                    let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                    (e.file_name().to_string_lossy().into_owned(), is_dir)
                })
                .collect();
            entries.sort();
            entries
        });
        BundleDir {
            root: root.to_path_buf(),
            unpacked: None,
            top,
            manifests: Listing::read(&root.join("manifests")),
            metadata: Listing::read(&root.join("metadata")),
            detected: OnceCell::new(),
        }
    }

    /// Reads an image's bundle unpacked into `unpacked`, which is removed with this value.
    pub fn read_unpacked(unpacked: crate::fsutil::TempDir) -> BundleDir {
        let mut bundle = BundleDir::read(unpacked.path());
        bundle.unpacked = Some(unpacked);
        bundle
    }

    /// The bundle directory (as the user named it, or the unpacked image's).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory the user named, when the bundle is one (not an unpacked image).
    pub fn shown_as(&self) -> Option<&Path> {
        self.unpacked.is_none().then_some(self.root.as_path())
    }

    /// The root's entries (name, is a directory without following a link), in name order.
    pub fn top(&self) -> Result<&[(String, bool)], &std::io::Error> {
        self.top.as_deref()
    }

    /// `manifests/`.
    pub fn manifests(&self) -> &Listing {
        &self.manifests
    }

    /// `metadata/`.
    pub fn metadata(&self) -> &Listing {
        &self.metadata
    }

    /// Upstream's media type detection over `manifests/` ([`crate::bundle::mediatype::detect`]),
    /// run once.
    pub fn detected_media_type(&self) -> Result<MediaType, &DetectError> {
        self.detected
            .get_or_init(|| crate::bundle::mediatype::detect(&self.manifests))
            .as_ref()
            .copied()
    }

    /// The file `metadata/<name>` as the safe reader returns it; a `metadata/` that cannot be
    /// listed gives the listing's OS error, as opening the file would.
    pub fn metadata_file(&self, name: &str) -> Result<&[u8], InputError> {
        let path = self.metadata.dir.join(name);
        match &self.metadata.entries {
            Err(error) => Err(io_error(&path, error)),
            Ok(entries) => match entries.iter().find(|e| e.name == name) {
                None => Err(io_error(
                    &path,
                    &std::io::Error::from(std::io::ErrorKind::NotFound),
                )),
                Some(entry) => entry.bytes().map_err(Clone::clone),
            },
        }
    }
}

fn io_error(path: &Path, error: &std::io::Error) -> InputError {
    InputError::Io {
        path: path.to_path_buf(),
        kind: error.kind(),
        message: crate::fsutil::io_message(error),
    }
}

/// The entries of one directory, in name order; `Err` when it cannot be listed.
#[derive(Debug)]
pub struct Listing {
    dir: PathBuf,
    entries: Result<Vec<Entry>, std::io::Error>,
}

impl Listing {
    /// Lists `dir` and reads each of its entries (a file of a bundle's `manifests/` or
    /// `metadata/`, see [`read_file`]).
    pub fn read(dir: &Path) -> Listing {
        let entries = std::fs::read_dir(dir).map(|read| {
            let mut entries: Vec<Entry> = read.filter_map(Result::ok).map(Entry::read).collect();
            entries.sort_by(|a, b| a.name.cmp(&b.name));
            entries
        });
        Listing {
            dir: dir.to_path_buf(),
            entries,
        }
    }

    /// The directory listed.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The entries, or why the directory could not be listed.
    pub fn entries(&self) -> Result<&[Entry], &std::io::Error> {
        self.entries.as_deref()
    }

    /// The entries; none when the directory could not be listed.
    pub fn entries_or_none(&self) -> &[Entry] {
        self.entries.as_deref().unwrap_or_default()
    }
}

/// One entry of a listed directory and what reading it gave.
#[derive(Debug)]
pub struct Entry {
    name: std::ffi::OsString,
    path: PathBuf,
    is_dir: bool,
    leads_to_dir: bool,
    content: Result<Vec<u8>, InputError>,
    documents: OnceCell<Result<Vec<Doc>, StreamError>>,
}

impl Entry {
    fn read(entry: std::fs::DirEntry) -> Entry {
        let path = entry.path();
        let file_type = entry.file_type().ok();
        let is_dir = file_type.is_some_and(|t| t.is_dir());
        let leads_to_dir = is_dir || (file_type.is_some_and(|t| t.is_symlink()) && path.is_dir());
        let content = read_file(&path);
        Entry {
            name: entry.file_name(),
            path,
            is_dir,
            leads_to_dir,
            content,
            documents: OnceCell::new(),
        }
    }

    /// The file name, as Go's `os.ReadDir` returns it.
    pub fn name(&self) -> &std::ffi::OsStr {
        &self.name
    }

    /// The file name as text.
    pub fn name_text(&self) -> std::borrow::Cow<'_, str> {
        self.name.to_string_lossy()
    }

    /// `<dir>/<name>`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the entry itself is a directory (a link is not followed).
    pub fn is_dir(&self) -> bool {
        self.is_dir
    }

    /// Whether the entry is a directory or a link to one.
    pub fn leads_to_dir(&self) -> bool {
        self.leads_to_dir
    }

    /// Whether the name starts with `.`.
    pub fn is_hidden(&self) -> bool {
        self.name.as_encoded_bytes().first() == Some(&b'.')
    }

    /// The file's bytes, or why the safe reader did not read it.
    pub fn bytes(&self) -> Result<&[u8], &InputError> {
        self.content.as_deref()
    }

    /// The YAML or JSON documents of the file ([`decode_documents`]), decoded once; the outer
    /// `Err` when the file was not read.
    #[allow(clippy::type_complexity)]
    pub fn documents(&self) -> Result<Result<&[Doc], &StreamError>, &InputError> {
        let bytes = self.content.as_deref()?;
        Ok(self
            .documents
            .get_or_init(|| {
                decode_documents(bytes)
                    .map(|documents| documents.into_iter().map(Doc::from).collect())
            })
            .as_deref())
    }
}

/// One decoded document of a file: an owned [`Document`].
#[derive(Debug, Clone, PartialEq)]
pub enum Doc {
    /// A JSON document's exact text.
    Json(String),
    /// A YAML document converted to JSON.
    Yaml(Value),
}

impl Doc {
    /// The document as a JSON value: a JSON document parsed
    /// ([`crate::encoding::json::parse_value`]), a YAML one as converted.
    pub fn value(&self) -> serde_json::Result<std::borrow::Cow<'_, Value>> {
        match self {
            Doc::Json(text) => {
                crate::encoding::json::parse_value(text).map(std::borrow::Cow::Owned)
            }
            Doc::Yaml(value) => Ok(std::borrow::Cow::Borrowed(value)),
        }
    }

    /// Whether the document was YAML.
    pub fn is_yaml(&self) -> bool {
        matches!(self, Doc::Yaml(_))
    }

    /// The document as Go's JSON decoder reads it: a JSON document's text, a YAML one
    /// re-encoded as Go's `json.Marshal` writes it.
    pub(crate) fn raw(&self) -> RawDoc {
        match self {
            Doc::Json(text) => RawDoc {
                text: text.clone(),
                from_yaml: false,
            },
            Doc::Yaml(value) => RawDoc {
                text: crate::encoding::gojson::go_marshal(value),
                from_yaml: true,
            },
        }
    }
}

impl From<Document<'_>> for Doc {
    fn from(document: Document<'_>) -> Doc {
        match document {
            Document::Json(text) => Doc::Json(text.to_string()),
            Document::Yaml(value) => Doc::Yaml(value),
        }
    }
}

/// One object decoded from a bundle's manifests, with the file and document it came from. The
/// one type for a manifest object: the CSV-less reader, content validation, the registry
/// checks and [`crate::bundle::ParsedBundle`] each decode a file's [`Doc`]s with their own
/// (upstream's) rules into these.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// `manifests/<name>` (`metadata/bundle.yaml` for a registry+v2 bundle's synthesised CSV).
    pub file: String,
    /// 1-based document number in the file.
    pub document: usize,
    pub value: Value,
    /// Whether the document was YAML (CRD checks read YAML numbers differently).
    pub from_yaml: bool,
}

impl Manifest {
    /// The object's `kind` (`""` when it has none).
    pub fn kind(&self) -> &str {
        self.value.get("kind").and_then(Value::as_str).unwrap_or("")
    }

    /// A finding about this object: in its file and document.
    pub fn finding(&self, rule: &'static str, message: String) -> crate::diag::Diagnostic {
        let mut finding = crate::bundle::rules::finding(rule, message, Some(self.file.clone()));
        if let Some(location) = &mut finding.location {
            location.document = self.document.checked_sub(1);
        }
        finding
    }
}
