//! The `--cache-dir` cache, in upstream's `json` layout (`pkg/cache/json.go`):
//! `cache/packages.json`, one `cache/<package>_<channel>_<bundle>.json` per
//! channel entry (the API bundle, Go `json.Marshal`),
//! `cache/metas/<schema>/<package>/<fnv64a>.json` per custom-schema blob, and
//! `digest` (see [`super::digest`]). Upstream's `opm serve` reads what we
//! write, with integrity enforced, and we accept what it writes.
//!
//! The cache is written into a temporary directory inside the cache
//! directory and moved into place; the digest file, written last, is what
//! makes it a cache.

use super::convert::Objects;
use super::digest::{self, DigestError, Fnv64a};
use super::index::{Index, Package, ReadError};
use super::{api, query};
use crate::declcfg::load::io_message;
use crate::encoding::json::{go_quote as q, write_compact, write_string};
use serde::de::IgnoredAny;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

const DIGEST_FILE: &str = "digest";
const CACHE_TREE: &str = "cache";
const PACKAGES_FILE: &str = "packages.json";
const METAS_DIR: &str = "metas";
/// Upstream's newer key-value format, which we do not read.
const POGREB_DIR: &str = "pogreb.v1";
/// Our temporary directories inside the cache directory.
const TEMP_PREFIX: &str = ".opm-cache-";

/// The permissions of what a cache write creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modes {
    pub dir: u32,
    pub file: u32,
}

impl Modes {
    /// What `opm serve --cache-dir` writes: for its owner and group.
    pub const PRIVATE: Modes = Modes {
        dir: 0o750,
        file: 0o640,
    };
    /// What a catalog image holds: readable by everyone and writable by
    /// group 0 (the group OpenShift runs every random UID in).
    pub const IMAGE: Modes = Modes {
        dir: 0o775,
        file: 0o664,
    };
}

/// What a cache directory holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// Nothing (or no directory yet): a new cache goes there.
    Empty,
    /// Upstream's `json` layout (or what is left of one of our writes).
    Json,
    /// Upstream's `pogreb.v1` layout.
    Pogreb,
}

/// Why the cache could not be used or written; the messages are upstream's.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("detect cache format: read cache directory: {0}")]
    Detect(String),
    #[error("cache directory has unexpected contents: {}", .0.join(","))]
    Unexpected(Vec<String>),
    #[error("integrity check failed: {0}")]
    Integrity(#[source] IntegrityError),
    #[error("failed to load cache: get package index: {0}")]
    Load(String),
    #[error("failed to load or rebuild cache: failed to rebuild cache: {0}")]
    Rebuild(String),
}

/// A step of writing the cache that failed.
#[derive(Debug, thiserror::Error)]
enum WriteError {
    #[error("{}: {}", .path.display(), io_message(.source))]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("compute digest: {0}")]
    Digest(#[from] DigestError),
    #[error(transparent)]
    Query(#[from] query::QueryError),
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(
        "package {}, channel {}, bundle {}: names with a slash cannot be cache file names",
        q(.package), q(.channel), q(.bundle)
    )]
    Name {
        package: String,
        channel: String,
        bundle: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> WriteError + '_ {
    move |source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Finds the layout of `dir` (upstream's `getBackend`, reading `json` where
/// upstream prefers `pogreb.v1`).
pub fn detect(dir: &Path) -> Result<Layout, CacheError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Layout::Empty),
        Err(e) => {
            return Err(CacheError::Detect(format!(
                "open {}: {}",
                dir.display(),
                io_message(&e)
            )))
        }
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| CacheError::Detect(io_message(&e)))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(TEMP_PREFIX) {
            names.push((name, entry.file_type().is_ok_and(|t| t.is_dir())));
        }
    }
    names.sort();
    if names.is_empty() {
        return Ok(Layout::Empty);
    }
    if names
        .iter()
        .any(|(name, is_dir)| *is_dir && name == CACHE_TREE)
    {
        return Ok(Layout::Json);
    }
    if names
        .iter()
        .any(|(name, is_dir)| *is_dir && name == POGREB_DIR)
    {
        return Ok(Layout::Pogreb);
    }
    Err(CacheError::Unexpected(
        names.into_iter().map(|(name, _)| name).collect(),
    ))
}

/// Why a cache does not match its catalog.
#[derive(Debug, thiserror::Error)]
pub enum IntegrityError {
    #[error("the cache in {} is in upstream's {POGREB_DIR} format, which this opm does not read; rebuild it with `opm serve --cache-only`", .0.display())]
    Pogreb(PathBuf),
    #[error("read existing cache digest: open {}: {}", .path.display(), io_message(.error))]
    ReadDigest {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("compute digest: {0}")]
    Digest(#[source] DigestError),
    #[error("cache requires rebuild: cache reports digest as {}, but computed digest is {}", q(.existing), q(.computed))]
    Mismatch { existing: String, computed: String },
}

/// Compares the digest file with the digest of the catalog and the cache.
fn check_integrity(dir: &Path, catalog: &Path) -> Result<(), IntegrityError> {
    let digest_path = dir.join(DIGEST_FILE);
    let existing =
        std::fs::read_to_string(&digest_path).map_err(|error| IntegrityError::ReadDigest {
            path: digest_path.clone(),
            error,
        })?;
    let existing = existing.trim();
    let computed =
        digest::digest(catalog, &dir.join(CACHE_TREE)).map_err(IntegrityError::Digest)?;
    if existing != computed {
        return Err(IntegrityError::Mismatch {
            existing: existing.to_string(),
            computed,
        });
    }
    Ok(())
}

/// Reads the package index, as upstream's `Load` does (checking that it is a
/// JSON object, without keeping it).
pub fn load(dir: &Path) -> Result<(), CacheError> {
    let path = dir.join(CACHE_TREE).join(PACKAGES_FILE);
    let file = std::fs::File::open(&path)
        .map_err(|e| CacheError::Load(format!("open {}: {}", path.display(), io_message(&e))))?;
    serde_json::from_reader::<_, BTreeMap<String, IgnoredAny>>(std::io::BufReader::new(file))
        .map(drop)
        .map_err(|e| CacheError::Load(e.to_string()))
}

/// What a cache directory holds, and whether it matches the catalog: found
/// while the catalog loads, since the digest reads every byte of both.
#[derive(Debug)]
pub struct Inspection {
    layout: Layout,
    integrity: Result<(), IntegrityError>,
}

/// Detects the layout of `dir` and checks its digest against `catalog`.
pub fn inspect(dir: &Path, catalog: &Path) -> Result<Inspection, CacheError> {
    let layout = detect(dir)?;
    let integrity = match layout {
        Layout::Pogreb => Err(IntegrityError::Pogreb(dir.to_path_buf())),
        Layout::Json | Layout::Empty => check_integrity(dir, catalog),
    };
    Ok(Inspection { layout, integrity })
}

/// What `opm serve` does with `--cache-dir` once the catalog is loaded:
/// refuse a cache that does not match it (`enforce`), or write a new one.
pub fn sync(
    dir: &Path,
    catalog: &Path,
    index: &Index,
    enforce: bool,
    inspection: Inspection,
) -> Result<(), CacheError> {
    let Inspection { layout, integrity } = inspection;
    if enforce {
        integrity.map_err(CacheError::Integrity)?;
    } else if layout != Layout::Json || integrity.is_err() {
        write(dir, catalog, index, Modes::PRIVATE)
            .map_err(|e| CacheError::Rebuild(e.to_string()))?;
    }
    load(dir)
}

/// Writes a new cache for `index` into `dir` with `modes` (for a catalog
/// image, whose layer keeps them: the digest covers every mode), then checks
/// it as `opm serve --cache-dir` does before serving from it.
pub fn build(dir: &Path, catalog: &Path, index: &Index, modes: Modes) -> Result<(), CacheError> {
    write(dir, catalog, index, modes).map_err(|e| CacheError::Rebuild(e.to_string()))?;
    inspect(dir, catalog)?
        .integrity
        .map_err(CacheError::Integrity)?;
    load(dir)
}

/// Writes the cache for `index` into `dir`, replacing what is there.
fn write(dir: &Path, catalog: &Path, index: &Index, modes: Modes) -> Result<(), WriteError> {
    if !dir.exists() {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        set_mode(dir, modes.dir)?;
    }
    remove_leftovers(dir)?;
    let temp = crate::fsutil::TempDir::new(TEMP_PREFIX, Some(dir)).map_err(io(dir))?;
    let tree = temp.path().join(CACHE_TREE);
    make_dir(&tree, modes)?;
    write_package_index(index, &tree.join(PACKAGES_FILE), modes)?;
    write_bundles(index, &tree, modes)?;
    for meta in &index.metas {
        // Names a query could never ask for are not stored (upstream refuses
        // to build a cache with them).
        if !query::valid_meta_key(&meta.schema)
            || !(meta.package.is_empty() || query::valid_meta_key(&meta.package))
        {
            continue;
        }
        let mut blob = String::new();
        write_compact(&index.value(meta.payload)?, &mut blob, false);
        blob.push('\n');
        let mut hash = Fnv64a::default();
        hash.write(blob.as_bytes());
        let mut meta_dir = tree.join(METAS_DIR);
        make_dir(&meta_dir, modes)?;
        meta_dir.push(&meta.schema);
        make_dir(&meta_dir, modes)?;
        if !meta.package.is_empty() {
            meta_dir.push(&meta.package);
            make_dir(&meta_dir, modes)?;
        }
        write_file(&meta_dir.join(format!("{}.json", hash.hex())), &blob, modes)?;
    }
    let digest = digest::digest(catalog, &tree)?;

    // Swap the new tree in; the digest file comes last.
    let digest_path = dir.join(DIGEST_FILE);
    match std::fs::remove_file(&digest_path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(&digest_path)(e)),
        _ => {}
    }
    for old in [CACHE_TREE, POGREB_DIR] {
        let path = dir.join(old);
        if path.exists() {
            let trash = temp.path().join(format!("old-{old}"));
            std::fs::rename(&path, &trash).map_err(io(&path))?;
        }
    }
    let target = dir.join(CACHE_TREE);
    std::fs::rename(&tree, &target).map_err(io(&target))?;
    let staged = temp.path().join(DIGEST_FILE);
    write_file(&staged, &digest, modes)?;
    std::fs::rename(&staged, &digest_path).map_err(io(&digest_path))?;
    temp.close().map_err(io(dir))?;
    Ok(())
}

/// One file per channel entry, converted on every core.
fn write_bundles(index: &Index, tree: &Path, modes: Modes) -> Result<(), WriteError> {
    let mut jobs = Vec::new();
    for package in index.packages.values() {
        for channel in package.channels.values() {
            for name in channel.entries.keys() {
                if [&channel.name, name]
                    .iter()
                    .any(|n| n.contains('/') || n.contains('\0'))
                {
                    return Err(WriteError::Name {
                        package: package.name.clone(),
                        channel: channel.name.clone(),
                        bundle: name.clone(),
                    });
                }
                jobs.push((package, channel, name));
            }
        }
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let write_one = || -> Result<(), WriteError> {
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some((package, channel, name)) = jobs.get(i) else {
                return Ok(());
            };
            let file = tree.join(format!("{}_{}_{}.json", package.name, channel.name, name));
            let written = index
                .api_bundle(package, channel, name, Objects::Include)
                .map_err(WriteError::from)
                .and_then(|bundle| write_file(&file, &bundle_json(&bundle), modes));
            if written.is_err() {
                // The other workers stop at their next job.
                next.store(jobs.len(), std::sync::atomic::Ordering::Relaxed);
                return written;
            }
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads).map(|_| scope.spawn(write_one)).collect();
        workers.into_iter().try_for_each(|worker| {
            worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    })
}

/// Removes temporary directories an interrupted write left behind.
fn remove_leftovers(dir: &Path) -> Result<(), WriteError> {
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            let path = entry.path();
            std::fs::remove_dir_all(&path).map_err(io(&path))?;
        }
    }
    Ok(())
}

fn set_mode(path: &Path, mode: u32) -> Result<(), WriteError> {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(io(path))
}

fn make_dir(path: &Path, modes: Modes) -> Result<(), WriteError> {
    match std::fs::create_dir(path) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(io(path)(e)),
        _ => set_mode(path, modes.dir),
    }
}

fn write_file(path: &Path, text: &str, modes: Modes) -> Result<(), WriteError> {
    std::fs::write(path, text).map_err(io(path))?;
    set_mode(path, modes.file)
}

/// `packages.json`: upstream's `packageIndex` as Go's `json.Marshal` writes
/// it, one package at a time (icons make it large).
fn write_package_index(index: &Index, path: &Path, modes: Modes) -> Result<(), WriteError> {
    use std::io::Write as _;
    let file = std::fs::File::create(path).map_err(io(path))?;
    let mut out = std::io::BufWriter::new(file);
    let mut text = String::from("{");
    for (position, package) in index.packages.values().enumerate() {
        if position > 0 {
            text.push(',');
        }
        write_string(&package.name, &mut text, true);
        text.push(':');
        write_compact(&package_entry(index, package)?, &mut text, true);
        out.write_all(text.as_bytes()).map_err(io(path))?;
        text.clear();
    }
    text.push('}');
    out.write_all(text.as_bytes()).map_err(io(path))?;
    out.into_inner()
        .map_err(|e| io(path)(e.into_error()))?
        .sync_all()
        .map_err(io(path))?;
    set_mode(path, modes.file)
}

fn deprecation(message: Option<&String>) -> Option<Value> {
    message.map(|message| {
        let mut d = Map::new();
        d.insert("message".into(), Value::String(message.clone()));
        Value::Object(d)
    })
}

fn package_entry(index: &Index, package: &Package) -> Result<Value, WriteError> {
    let blob = index.package_blob(package)?;
    let mut p = Map::new();
    p.insert("name".into(), package.name.clone().into());
    p.insert("description".into(), blob.description.into());
    p.insert(
        "icon".into(),
        match blob.icon {
            None => Value::Null,
            Some(icon) => {
                let mut i = Map::new();
                i.insert(
                    "base64data".into(),
                    icon.base64.map_or(Value::Null, Value::String),
                );
                i.insert("mediatype".into(), icon.media_type.into());
                Value::Object(i)
            }
        },
    );
    p.insert(
        "defaultChannel".into(),
        package.default_channel.clone().into(),
    );
    let mut channels = Map::new();
    for channel in package.channels.values() {
        let mut c = Map::new();
        c.insert("Name".into(), channel.name.clone().into());
        c.insert("Head".into(), channel.head.clone().into());
        let mut bundles = Map::new();
        for (name, entry) in &channel.entries {
            let mut b = Map::new();
            b.insert("package".into(), package.name.clone().into());
            b.insert("channel".into(), channel.name.clone().into());
            b.insert("name".into(), name.clone().into());
            b.insert("replaces".into(), entry.replaces.clone().into());
            b.insert(
                "skips".into(),
                if entry.skips.is_empty() {
                    Value::Null
                } else {
                    entry.skips.clone().into()
                },
            );
            bundles.insert(name.clone(), Value::Object(b));
        }
        c.insert("Bundles".into(), Value::Object(bundles));
        if let Some(d) = deprecation(channel.deprecation.as_ref()) {
            c.insert("deprecation".into(), d);
        }
        channels.insert(channel.name.clone(), Value::Object(c));
    }
    p.insert("Channels".into(), Value::Object(channels));
    if let Some(d) = deprecation(package.deprecation.as_ref()) {
        p.insert("deprecation".into(), d);
    }
    Ok(Value::Object(p))
}

/// An API bundle as Go's `json.Marshal` writes the generated struct: fields
/// in proto order, empty ones left out, HTML escaped.
fn bundle_json(bundle: &api::Bundle) -> String {
    let mut o = Map::new();
    let string = |o: &mut Map<String, Value>, key: &str, value: &str| {
        if !value.is_empty() {
            o.insert(key.into(), value.into());
        }
    };
    let strings = |values: &[String]| Value::from(values.to_vec());
    let gvks = |list: &[api::GroupVersionKind]| {
        Value::Array(
            list.iter()
                .map(|gvk| {
                    let mut g = Map::new();
                    for (key, value) in [
                        ("group", &gvk.group),
                        ("version", &gvk.version),
                        ("kind", &gvk.kind),
                        ("plural", &gvk.plural),
                    ] {
                        if !value.is_empty() {
                            g.insert(key.into(), value.clone().into());
                        }
                    }
                    Value::Object(g)
                })
                .collect(),
        )
    };
    let pairs = |list: &mut dyn Iterator<Item = (&String, &String)>| {
        Value::Array(
            list.map(|(kind, value)| {
                let mut p = Map::new();
                if !kind.is_empty() {
                    p.insert("type".into(), kind.clone().into());
                }
                if !value.is_empty() {
                    p.insert("value".into(), value.clone().into());
                }
                Value::Object(p)
            })
            .collect(),
        )
    };
    string(&mut o, "csvName", &bundle.csv_name);
    string(&mut o, "packageName", &bundle.package_name);
    string(&mut o, "channelName", &bundle.channel_name);
    string(&mut o, "csvJson", &bundle.csv_json);
    if !bundle.object.is_empty() {
        o.insert("object".into(), strings(&bundle.object));
    }
    string(&mut o, "bundlePath", &bundle.bundle_path);
    if !bundle.provided_apis.is_empty() {
        o.insert("providedApis".into(), gvks(&bundle.provided_apis));
    }
    if !bundle.required_apis.is_empty() {
        o.insert("requiredApis".into(), gvks(&bundle.required_apis));
    }
    string(&mut o, "version", &bundle.version);
    string(&mut o, "skipRange", &bundle.skip_range);
    if !bundle.dependencies.is_empty() {
        let mut list = bundle.dependencies.iter().map(|d| (&d.r#type, &d.value));
        o.insert("dependencies".into(), pairs(&mut list));
    }
    if !bundle.properties.is_empty() {
        let mut list = bundle.properties.iter().map(|p| (&p.r#type, &p.value));
        o.insert("properties".into(), pairs(&mut list));
    }
    string(&mut o, "replaces", &bundle.replaces);
    if !bundle.skips.is_empty() {
        o.insert("skips".into(), strings(&bundle.skips));
    }
    if let Some(d) = &bundle.deprecation {
        let mut m = Map::new();
        if !d.message.is_empty() {
            m.insert("message".into(), d.message.clone().into());
        }
        o.insert("deprecation".into(), Value::Object(m));
    }
    let mut out = String::new();
    write_compact(&Value::Object(o), &mut out, true);
    out
}
