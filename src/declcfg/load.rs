//! Loading a catalog directory: the walk (lexical, depth first), `.indexignore`,
//! splitting files into documents, and typed decoding, on all cores.
//!
//! Files are parsed in parallel but results are assembled in walk order, so
//! the loaded catalog (and every error) is the same on every run.

use super::decode::{decode_blob, decode_blob_again};
use super::ignore::IndexIgnore;
use super::{Blob, DeclarativeConfig, Origin};
use crate::encoding::stream::{decode_span, Document, Documents, Span, Syntax};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// How far loads have come, for a progress display: files found and parsed,
/// bytes read. Updated by the loading threads; read by anyone.
#[derive(Debug, Default)]
pub struct LoadProgress {
    files: AtomicUsize,
    files_done: AtomicUsize,
    bytes_done: AtomicU64,
}

impl LoadProgress {
    /// `files` more files to load.
    pub fn add_files(&self, files: usize) {
        self.files.fetch_add(files, Ordering::Relaxed);
    }

    /// One file loaded (or failed), `bytes` long.
    pub fn file_done(&self, bytes: u64) {
        self.bytes_done.fetch_add(bytes, Ordering::Relaxed);
        self.files_done.fetch_add(1, Ordering::Relaxed);
    }

    /// `(files loaded, files found, bytes read)` so far.
    pub fn snapshot(&self) -> (usize, usize, u64) {
        (
            self.files_done.load(Ordering::Relaxed),
            self.files.load(Ordering::Relaxed),
            self.bytes_done.load(Ordering::Relaxed),
        )
    }
}

/// What the loader keeps of a catalog's payload: the `olm.bundle.object`
/// values, the `olm.csv.metadata` values and the image data of package
/// icons, the bulk of a catalog. Bundle objects and icons are always checked
/// (a bad one fails the load, as upstream); CSV metadata that does not decode
/// is always kept (the model's conversion reports it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BundleObjects {
    /// Keep them.
    Keep,
    /// Replace bundle objects and CSV metadata by `null` and icon data by
    /// `None` (validation only needs to know the objects exist and the
    /// metadata decodes, and no rule reads an icon).
    Drop,
    /// Leave them out as [`BundleObjects::Drop`] does and remember where the
    /// bundle or package came from (its file and the byte range of its
    /// document), so that a writer can read them again ([`read_deferred`]):
    /// rendering a large catalog then never holds all of it in memory.
    Defer,
}

/// A catalog file, or an entry of the catalog directory, that cannot be read.
pub const FILE_UNREADABLE: &str = "catalog-file-unreadable";
/// A catalog file that does not split into JSON or YAML documents (a syntax error).
pub const DOCUMENT_INVALID: &str = "catalog-document-invalid";
/// A document that is not a valid blob (no schema, wrong field types, bad base64, ...).
pub const BLOB_INVALID: &str = "catalog-blob-invalid";

/// A catalog directory without a single blob (no file, or only ignored or empty ones).
pub const CATALOG_EMPTY: &str = "catalog-empty";

/// The rules of load problems.
pub static RULES: &[crate::diag::Rule] = &[
    crate::diag::Rule {
        id: CATALOG_EMPTY,
        severity: crate::diag::Severity::Warning,
        summary: "a catalog directory holds no file-based catalog object",
        details: "The directory has no catalog file, or only files that `.indexignore` leaves out or that hold no document. Upstream accepts it (an empty catalog is valid), which usually means the wrong directory was given.",
    },
    crate::diag::Rule {
        id: FILE_UNREADABLE,
        severity: crate::diag::Severity::Error,
        summary: "a catalog file, or an entry of the catalog directory, cannot be read",
        details: "A file of the catalog cannot be opened or read: a permission problem, a dangling link, a FIFO, device or socket, a link out of the catalog directory, or a file larger than OPM_MAX_FILE_SIZE. Upstream stops at the first such file; every one is reported.",
    },
    crate::diag::Rule {
        id: DOCUMENT_INVALID,
        severity: crate::diag::Severity::Error,
        summary: "a catalog file does not split into JSON or YAML documents",
        details: "A syntax error in a JSON stream or a YAML document (reported at the exact line and column), a document nested more than 10,000 levels deep, or YAML aliases that expand too far. Messages are upstream's (`json: offset N: ...`, `error converting YAML to JSON: yaml: line N: ...`); go-yaml counts lines from the document, the location from the file.",
    },
    crate::diag::Rule {
        id: BLOB_INVALID,
        severity: crate::diag::Severity::Error,
        summary: "a catalog document is not a valid blob",
        details: "A document that is not an object, has no `schema`, or whose `olm.package`, `olm.channel`, `olm.bundle` or `olm.deprecations` fields have the wrong types, bad base64, or duplicate keys that differ only in case (upstream's `Meta` decoding).",
    },
];

/// One problem that stopped a file from loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    /// Which kind of problem: [`FILE_UNREADABLE`], [`DOCUMENT_INVALID`] or [`BLOB_INVALID`].
    pub rule: &'static str,
    /// The file as the user would name it (the root argument joined with the relative path).
    pub path: String,
    /// 0-based index of the failing document, when known.
    pub document: Option<usize>,
    /// Where in the file, found while its bytes were at hand (`None` when not known).
    pub position: Option<crate::encoding::locate::Position>,
    /// Upstream's message.
    pub message: String,
}

impl FileError {
    /// Document `index` of the file `bytes` (named `display`) is not a valid blob: placed at
    /// the document, found in the bytes at hand.
    fn blob_invalid(bytes: &[u8], display: &str, index: usize, message: String) -> FileError {
        FileError {
            rule: BLOB_INVALID,
            path: display.to_string(),
            document: Some(index),
            position: crate::diag::document_position(bytes, index, None),
            message,
        }
    }

    /// The problem as a finding of its rule.
    pub fn diagnostic(&self) -> crate::diag::Diagnostic {
        let mut location = crate::diag::Location::file(self.path.as_str());
        location.document = self.document;
        location.position = self.position;
        let mut diagnostic = crate::diag::Diagnostic::error(
            self.rule,
            crate::diag::Subject::File {
                path: self.path.clone(),
            },
            self.message.clone(),
        );
        diagnostic.location = Some(location);
        diagnostic
    }

    /// Where the problem is, for humans: `catalog/a.yaml, document 2`.
    pub fn location(&self) -> String {
        match self.document {
            Some(index) => format!("{}, document {}", self.path, index + 1),
            None => self.path.clone(),
        }
    }
}

/// Every file of a catalog directory that could not be loaded, in walk order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .errors.first().map_or("", |e| e.message.as_str()))]
pub struct LoadError {
    pub errors: Vec<FileError>,
}

impl LoadError {
    fn single(path: String, message: String) -> LoadError {
        LoadError {
            errors: vec![FileError {
                rule: FILE_UNREADABLE,
                path,
                document: None,
                position: None,
                message,
            }],
        }
    }
}

/// Lists the files of a catalog directory to load, in walk order, honouring `.indexignore`.
pub fn catalog_files(root: &Path, display_root: &str) -> Result<Vec<(PathBuf, String)>, LoadError> {
    let ignore = IndexIgnore::load(root)
        .map_err(|e| LoadError::single(display_root.to_string(), e.to_string()))?;
    let mut files = Vec::new();
    let walker = walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by(|a, b| a.file_name().cmp(b.file_name()));
    for entry in walker {
        let entry = entry.map_err(|e| {
            let path = e.path().map_or_else(
                || display_root.to_string(),
                |p| display_path(root, p, display_root),
            );
            let message = match e.io_error() {
                Some(io) => format!("open {path}: {}", io_message(io)),
                None => e.to_string(),
            };
            LoadError::single(path, message)
        })?;
        if entry.file_type().is_dir() {
            continue;
        }
        if entry.file_name() == ".indexignore" {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        let components: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let parts: Vec<&str> = components.iter().map(String::as_str).collect();
        if ignore.is_ignored(&parts) {
            continue;
        }
        let display = display_path(root, entry.path(), display_root);
        files.push((entry.into_path(), display));
    }
    Ok(files)
}

fn display_path(root: &Path, path: &Path, display_root: &str) -> String {
    match path.strip_prefix(root) {
        Ok(relative) if relative.as_os_str().is_empty() => display_root.to_string(),
        Ok(relative) => {
            let relative = relative.to_string_lossy();
            if display_root.ends_with('/') {
                format!("{display_root}{relative}")
            } else {
                format!("{display_root}/{relative}")
            }
        }
        Err(_) => path.display().to_string(),
    }
}

pub use crate::fsutil::io_message;

/// Parses one file's bytes into blobs, keeping every bundle object.
pub fn parse_file(bytes: &[u8], display: &str) -> Result<Vec<Blob>, FileError> {
    parse_file_with(bytes, display, None, BundleObjects::Keep)
}

/// Replaces the values of a bundle's `olm.bundle.object` properties, and of
/// its `olm.csv.metadata` properties that decode as upstream decodes them, by
/// `null` (what [`BundleObjects::Drop`] keeps); true when there were any. A
/// CSV metadata value that does not decode is kept, for the model's
/// conversion to report; `null` decodes (to nothing), so the model sees the
/// same properties either way.
fn strip_objects(blob: &mut Blob) -> bool {
    let Blob::Bundle(bundle) = blob else {
        return false;
    };
    let mut stripped = false;
    for property in &mut bundle.properties {
        let payload = match property.kind.as_str() {
            crate::property::BUNDLE_OBJECT => true,
            crate::property::CSV_METADATA => property.value.as_ref().is_some_and(|value| {
                !value.is_null()
                    && crate::property::shape::check_value(&property.kind, value).is_ok()
            }),
            _ => false,
        };
        if payload {
            property.value = Some(serde_json::Value::Null);
            stripped = true;
        }
    }
    stripped
}

/// Drops the image data of a package's icon (what [`BundleObjects::Drop`]
/// keeps of it); true when there was any.
fn strip_icon(blob: &mut Blob) -> bool {
    match blob {
        Blob::Package(package) => package
            .icon
            .as_mut()
            .is_some_and(|icon| icon.base64.take().is_some()),
        _ => false,
    }
}

/// Strips a blob's payload: bundle objects and icon data.
fn strip_payload(blob: &mut Blob) -> bool {
    strip_objects(blob) | strip_icon(blob)
}

fn parse_file_with(
    bytes: &[u8],
    display: &str,
    file: Option<&Arc<Path>>,
    objects: BundleObjects,
) -> Result<Vec<Blob>, FileError> {
    parse_file_spans(bytes, display, file, objects).map(|(blobs, _)| blobs)
}

/// [`parse_file_with`], also giving where each blob's document is in the file.
///
/// Documents are decoded one at a time and each blob's payload is left
/// behind as soon as it is decoded, so a file's parsed documents are never
/// all held at once.
fn parse_file_spans(
    bytes: &[u8],
    display: &str,
    file: Option<&Arc<Path>>,
    objects: BundleObjects,
) -> Result<(Vec<Blob>, Vec<Span>), FileError> {
    let mut parsed = ParsedBlobs {
        bytes,
        display,
        path: Arc::from(display),
        // A blob that cannot be read again keeps its payload.
        objects: match (objects, file) {
            (BundleObjects::Defer, None) => BundleObjects::Keep,
            _ => objects,
        },
        file,
        blobs: Vec::new(),
        spans: Vec::new(),
        invalid: None,
    };
    if fast_json(bytes, &mut parsed) {
        return parsed.finish();
    }
    parsed.blobs.clear();
    parsed.spans.clear();
    parsed.invalid = None;
    for (index, document) in Documents::new(bytes).enumerate() {
        let (document, span) = document.map_err(|e| FileError {
            rule: DOCUMENT_INVALID,
            path: display.to_string(),
            document: Some(e.index),
            position: e.position(bytes),
            message: e.to_string(),
        })?;
        if parsed.invalid.is_some() {
            // The rest is still split: a syntax error after an invalid blob is reported
            // instead of it.
            continue;
        }
        match document {
            Document::Json(text) => match crate::encoding::json::parse_value(text) {
                Ok(value) => parsed.add(index, value, false, span),
                Err(e) => parsed.fail(index, format!("json: {e}")),
            },
            Document::Yaml(value) => parsed.add(index, value, true, span),
        }
    }
    parsed.finish()
}

/// The blobs of one file as they are decoded, and the first document that
/// is not a blob.
struct ParsedBlobs<'a> {
    bytes: &'a [u8],
    display: &'a str,
    path: Arc<str>,
    objects: BundleObjects,
    file: Option<&'a Arc<Path>>,
    blobs: Vec<Blob>,
    spans: Vec<Span>,
    invalid: Option<FileError>,
}

impl ParsedBlobs<'_> {
    fn fail(&mut self, index: usize, message: String) {
        if self.invalid.is_none() {
            self.invalid = Some(FileError::blob_invalid(
                self.bytes,
                self.display,
                index,
                message,
            ));
        }
    }

    /// Document `index`, whose bytes are `span`, decoded as a blob.
    fn add(&mut self, index: usize, mut value: Value, from_yaml: bool, span: Span) {
        if self.invalid.is_some() {
            return;
        }
        sort_keys(&mut value);
        let origin = Some(Origin {
            path: Arc::clone(&self.path),
            document: index,
        });
        let mut blob = match decode_blob(value, from_yaml, origin) {
            Ok(blob) => blob,
            Err(e) => return self.fail(index, e.to_string()),
        };
        match self.objects {
            BundleObjects::Keep => {}
            BundleObjects::Drop => {
                strip_payload(&mut blob);
            }
            BundleObjects::Defer => {
                if let (true, Some(file)) = (strip_payload(&mut blob), self.file) {
                    let deferred = Some(super::Deferred {
                        file: Arc::clone(file),
                        document: index,
                        span,
                    });
                    match &mut blob {
                        Blob::Bundle(bundle) => bundle.deferred = deferred,
                        Blob::Package(package) => package.deferred = deferred,
                        _ => {}
                    }
                }
            }
        }
        self.blobs.push(blob);
        self.spans.push(span);
    }

    fn finish(self) -> Result<(Vec<Blob>, Vec<Span>), FileError> {
        match self.invalid {
            Some(error) => Err(error),
            None => Ok((self.blobs, self.spans)),
        }
    }
}

/// The common case, parsed in one pass: a file of well-formed JSON values,
/// each decoded into `parsed` as soon as it is read. False sends the file
/// down the exact (slower) path, which also produces upstream's error
/// messages and its JSON-then-YAML fallback.
fn fast_json(bytes: &[u8], parsed: &mut ParsedBlobs<'_>) -> bool {
    // Upstream sniffs the first non-space byte of the first 4096 for `{`.
    match bytes.iter().take(4096).find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => {}
        _ => return false,
    }
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    let (mut index, mut end) = (0, 0);
    while let Some(value) = stream.next() {
        let Ok(value) = value else {
            return false;
        };
        let start = end
            + bytes[end..]
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                .count();
        end = stream.byte_offset();
        let span = Span {
            start,
            end,
            syntax: Syntax::Json,
        };
        parsed.add(index, value, false, span);
        index += 1;
    }
    true
}

/// Sorts object keys at every level, as upstream's map round trip does.
pub fn sort_keys(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            map.sort_keys();
            for (_, v) in map.iter_mut() {
                sort_keys(v);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(sort_keys),
        _ => {}
    }
}

/// Loads a catalog directory. Every failing file is reported.
pub fn load_dir(
    root: &Path,
    display_root: &str,
    objects: BundleObjects,
) -> Result<DeclarativeConfig, LoadError> {
    load_dir_counted(root, display_root, objects, &LoadProgress::default())
}

/// [`load_dir`], counting its files and bytes in `progress` as it goes.
pub fn load_dir_counted(
    root: &Path,
    display_root: &str,
    objects: BundleObjects,
    progress: &LoadProgress,
) -> Result<DeclarativeConfig, LoadError> {
    let files = catalog_files(root, display_root)?;
    progress.add_files(files.len());
    let results = parse_files_parallel(&files, |_, path, display| {
        parse_one(root, path, display, objects, progress)
    });
    let mut config = DeclarativeConfig::default();
    let mut errors = Vec::new();
    for result in results {
        match result {
            Ok(blobs) => {
                for blob in blobs {
                    config.push(blob);
                }
            }
            Err(error) => errors.push(error),
        }
    }
    if errors.is_empty() {
        Ok(config)
    } else {
        Err(LoadError { errors })
    }
}

fn parse_one(
    root: &Path,
    path: &Path,
    display: &str,
    objects: BundleObjects,
    progress: &LoadProgress,
) -> Result<Vec<Blob>, FileError> {
    let read = read_catalog_file(path, root, display);
    let bytes = read.as_ref().map_or(0, |bytes| bytes.len() as u64);
    let file: Arc<Path> = Arc::from(path);
    let parsed = read.and_then(|bytes| parse_file_with(&bytes, display, Some(&file), objects));
    progress.file_done(bytes);
    parsed
}

/// The file a reader of deferred blobs opened last, kept open for the next
/// one (consecutive blobs mostly come from one file).
pub type DocumentCache = Option<(Arc<Path>, std::fs::File)>;

/// Reads a deferred bundle's or package's document again: just the bytes of
/// its document.
pub fn read_deferred(
    deferred: &super::Deferred,
    cache: &mut DocumentCache,
) -> Result<Blob, FileError> {
    let display = deferred.file.display().to_string();
    let fail = |message: String| FileError {
        rule: BLOB_INVALID,
        path: display.clone(),
        document: Some(deferred.document),
        position: None,
        message,
    };
    let changed = || fail(format!("{display} changed while it was being read"));
    let handle = match cache {
        Some((file, handle)) if *file == deferred.file => handle,
        _ => {
            // The file passed the tree check when it was loaded; only its type is checked
            // again.
            let (handle, _) = crate::fsutil::open_input(&deferred.file, &deferred.file)
                .map_err(|e| unreadable(&display, &e))?;
            &mut cache.insert((Arc::clone(&deferred.file), handle)).1
        }
    };
    let span = deferred.span;
    let mut bytes = vec![0; span.end.saturating_sub(span.start)];
    std::os::unix::fs::FileExt::read_exact_at(&*handle, &mut bytes, span.start as u64)
        .map_err(|_| changed())?;
    let value = document_value(&bytes, span.syntax).map_err(|_| changed())?;
    decode_blob_again(value, None).map_err(|e| fail(e.to_string()))
}

/// A document's value (keys sorted), read again from the bytes of its span
/// as the loader read it from the whole file.
pub fn document_value(bytes: &[u8], syntax: Syntax) -> Result<Value, String> {
    let mut value = match decode_span(bytes, syntax).map_err(|e| e.to_string())? {
        Document::Json(text) => {
            crate::encoding::json::parse_value(text).map_err(|e| format!("json: {e}"))?
        }
        Document::Yaml(value) => value,
    };
    sort_keys(&mut value);
    Ok(value)
}

/// Reads a catalog file of the tree `root` ([`crate::fsutil::read_input`]).
fn read_catalog_file(path: &Path, root: &Path, display: &str) -> Result<Vec<u8>, FileError> {
    crate::fsutil::read_input(path, root, crate::fsutil::Limit::Catalog)
        .map_err(|e| unreadable(display, &e))
}

fn unreadable(display: &str, error: &crate::fsutil::InputError) -> FileError {
    FileError {
        rule: FILE_UNREADABLE,
        path: display.to_string(),
        document: None,
        position: None,
        message: match error.io_message() {
            Some(text) => format!("read {display}: {text}"),
            None => error.to_string(),
        },
    }
}

/// One file of a catalog as parsed by [`load_dir_with`], and where each
/// blob's document is in it.
#[derive(Debug)]
pub struct ParsedFile<'a> {
    /// Position of the file in walk order.
    pub index: usize,
    pub path: &'a Path,
    /// The path as the user would name it.
    pub display: &'a str,
    pub blobs: Vec<Blob>,
    /// Where each blob's document is in the file ([`document_value`] reads
    /// it again), in the order of `blobs`.
    pub spans: Vec<Span>,
}

/// Loads a catalog directory like [`load_dir`], handing each parsed file to
/// `keep` (on the parsing threads), which returns what to keep of it; the
/// results come back in walk order. Every failing file is reported.
/// [`BundleObjects::Defer`] keeps the payload here: `keep` has the spans.
pub fn load_dir_with<T: Send>(
    root: &Path,
    display_root: &str,
    objects: BundleObjects,
    keep: impl Fn(ParsedFile<'_>) -> T + Sync,
) -> Result<Vec<T>, LoadError> {
    let files = catalog_files(root, display_root)?;
    let results = parse_files_parallel(&files, |index, path, display| {
        let bytes = read_catalog_file(path, root, display)?;
        let (blobs, spans) = parse_file_spans(&bytes, display, None, objects)?;
        drop(bytes);
        Ok(keep(ParsedFile {
            index,
            path,
            display,
            blobs,
            spans,
        }))
    });
    let mut kept = Vec::with_capacity(results.len());
    let mut errors = Vec::new();
    for result in results {
        match result {
            Ok(value) => kept.push(value),
            Err(error) => errors.push(error),
        }
    }
    if errors.is_empty() {
        Ok(kept)
    } else {
        Err(LoadError { errors })
    }
}

/// Parses files on every core; results come back in the order of `files`.
fn parse_files_parallel<T: Send>(
    files: &[(PathBuf, String)],
    parse: impl Fn(usize, &Path, &str) -> Result<T, FileError> + Sync,
) -> Vec<Result<T, FileError>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(files.len().max(1));
    if threads <= 1 {
        return files
            .iter()
            .enumerate()
            .map(|(i, (p, d))| parse(i, p, d))
            .collect();
    }
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<Result<T, FileError>>> = Vec::new();
    slots.resize_with(files.len(), || None);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                crate::encoding::spawn_worker(scope, || {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((path, display)) = files.get(i) else {
                            break;
                        };
                        done.push((i, parse(i, path, display)));
                    }
                    done
                })
            })
            .collect();
        for worker in workers {
            // A worker only panics on a programmer error; surface it.
            let done = worker
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            for (i, result) in done {
                slots[i] = Some(result);
            }
        }
    });
    slots.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::locate::Position;

    /// A document that is not a blob is placed while the file's bytes are at hand: the file
    /// need not exist on disk to be shown.
    #[test]
    fn invalid_blobs_are_placed_at_their_document() {
        let position = |bytes: &[u8]| parse_file(bytes, "nowhere/x").unwrap_err().position;
        assert_eq!(
            position(b"{\"schema\":\"olm.package\",\"name\":\"a\"}\n  {\"schema\":\"olm.channel\",\"name\":5}\n"),
            Some(Position { line: 2, column: 3 })
        );
        assert_eq!(
            position(b"schema: olm.package\nname: a\n---\n# b\nschema: olm.channel\nname: 5\n"),
            Some(Position { line: 5, column: 1 })
        );
    }

    const YAML_CATALOG: &str = "schema: olm.package\r\nname: a\r\nicon:\r\n  base64data: aWNvbg==\r\n  mediatype: image/png\r\n---\r\n# the bundle\r\nschema: olm.bundle\r\nname: a.v1\r\npackage: a\r\nimage: x\r\nproperties:\r\n- type: olm.package\r\n  value: {packageName: a, version: 1.0.0}\r\n- type: olm.csv.metadata\r\n  value: {displayName: A, keywords: [k]}\r\n- type: olm.bundle.object\r\n  value: {data: eyJhIjoxfQ==}\r\n---\r\nschema: olm.bundle\r\nname: a.v2\r\npackage: a\r\nimage: z\r\nproperties:\r\n- type: olm.csv.metadata\r\n  value: {installModes: [{type: OwnNamespace, supported: 'yes'}]}\r\n";

    fn catalog(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temporary directory");
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).expect("write a catalog file");
        }
        dir
    }

    /// The payload (bundle objects, CSV metadata that decodes, icon data) is left behind, and
    /// a deferred blob read again from just its document's bytes, in a YAML or a JSON file,
    /// is the blob the loader read whole.
    #[test]
    fn deferred_blobs_read_again_whole_from_yaml_and_json_files() {
        let json = "{\"schema\":\"olm.package\",\"name\":\"b\",\"icon\":{\"base64data\":\"aWNvbg==\",\"mediatype\":\"image/png\"}}\n  {\"schema\":\"olm.bundle\",\"name\":\"b.v1\",\"package\":\"b\",\"properties\":[{\"type\":\"olm.csv.metadata\",\"value\":{\"displayName\":\"B\"}}]}";
        let dir = catalog(&[("a.yaml", YAML_CATALOG), ("b.json", json)]);
        let whole = load_dir(dir.path(), "c", BundleObjects::Keep).expect("loads");
        let deferred = load_dir(dir.path(), "c", BundleObjects::Defer).expect("loads");
        let dropped = load_dir(dir.path(), "c", BundleObjects::Drop).expect("loads");
        let mut cache = None;
        for (index, (full, left)) in whole.bundles.iter().zip(&deferred.bundles).enumerate() {
            // a.v2's CSV metadata does not decode: it is kept, and nothing is deferred.
            let kept = index == 1;
            assert_eq!(left.deferred.is_none(), kept, "{}", left.name);
            assert_eq!(dropped.bundles[index].properties == full.properties, kept);
            let Some(place) = &left.deferred else {
                assert_eq!(left.properties, full.properties);
                continue;
            };
            for property in &left.properties {
                if property.kind != crate::property::PACKAGE {
                    assert_eq!(property.value, Some(Value::Null), "{}", left.name);
                }
            }
            let Blob::Bundle(again) = read_deferred(place, &mut cache).expect("reads") else {
                panic!("not a bundle");
            };
            assert_eq!(again.properties, full.properties, "{}", left.name);
        }
        for (full, left) in whole.packages.iter().zip(&deferred.packages) {
            assert_eq!(left.icon.as_ref().map(|i| i.base64.is_none()), Some(true));
            let place = left.deferred.as_ref().expect("deferred");
            let Blob::Package(again) = read_deferred(place, &mut cache).expect("reads") else {
                panic!("not a package");
            };
            assert_eq!(again.icon, full.icon);
        }
        // A file that changed since: its blobs are not read as something else.
        std::fs::write(dir.path().join("a.yaml"), "schema: olm.package\n").expect("rewrite");
        let place = deferred.bundles[0].deferred.as_ref().expect("deferred");
        let error = read_deferred(place, &mut None).expect_err("changed");
        assert!(
            error.message.ends_with("changed while it was being read"),
            "{error:?}"
        );
    }
}
