//! Deterministic catalog writers with upstream's bytes: blob grouping and order
//! (by package, then package / channels / bundles / others / deprecations),
//! JSON with 4-space indentation and typed key order, and go-yaml v2 style YAML.

use super::{
    Blob, Bundle, Channel, DeclarativeConfig, Deprecation, Meta, Package, Property, SCHEMA_BUNDLE,
    SCHEMA_CHANNEL, SCHEMA_DEPRECATIONS, SCHEMA_PACKAGE,
};
use crate::encoding::json::Pretty;
use crate::encoding::yaml_write;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Yaml,
}

/// Puts blobs in upstream's output order. Typed blobs without a package are
/// dropped, as upstream does.
pub fn sorted_blobs(config: DeclarativeConfig) -> Vec<Blob> {
    let DeclarativeConfig {
        packages,
        mut channels,
        mut bundles,
        deprecations,
        others,
    } = config;
    channels.retain(|c| !c.package.is_empty());
    bundles.retain(|b| !b.package.is_empty());
    let mut names: Vec<&str> = packages
        .iter()
        .map(|p| p.name.as_str())
        .chain(channels.iter().map(|c| c.package.as_str()))
        .chain(bundles.iter().map(|b| b.package.as_str()))
        .chain(others.iter().map(|m| m.package.as_str()))
        .chain(deprecations.iter().map(|d| d.package.as_str()))
        .filter(|n| !n.is_empty())
        .collect();
    names.sort_unstable();
    names.dedup();
    let rank: std::collections::HashMap<String, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| ((*n).to_string(), i))
        .collect();
    // (package rank, kind, secondary key, load order) orders every blob.
    let mut keyed: Vec<(usize, u8, String, usize, Blob)> = Vec::new();
    let mut loose: Vec<Meta> = Vec::new();
    for (i, p) in packages.into_iter().enumerate() {
        if let Some(&r) = rank.get(&p.name) {
            keyed.push((r, 0, String::new(), i, Blob::Package(p)));
        }
    }
    for (i, c) in channels.into_iter().enumerate() {
        let r = rank[&c.package];
        keyed.push((r, 1, c.name.clone(), i, Blob::Channel(c)));
    }
    for (i, b) in bundles.into_iter().enumerate() {
        let r = rank[&b.package];
        keyed.push((r, 2, b.name.clone(), i, Blob::Bundle(b)));
    }
    for (i, m) in others.into_iter().enumerate() {
        match rank.get(&m.package) {
            Some(&r) => keyed.push((r, 3, m.schema.clone(), i, Blob::Other(m))),
            None => loose.push(m),
        }
    }
    for (i, d) in deprecations.into_iter().enumerate() {
        if let Some(&r) = rank.get(&d.package) {
            keyed.push((r, 4, String::new(), i, Blob::Deprecation(d)));
        }
    }
    keyed.sort_by(|a, b| (a.0, a.1, &a.2, a.3).cmp(&(b.0, b.1, &b.2, b.3)));
    keyed
        .into_iter()
        .map(|(_, _, _, _, blob)| blob)
        .chain(loose.into_iter().map(Blob::Other))
        .collect()
}

/// Appends one blob in the given format.
pub fn write_blob(blob: &Blob, format: Format, out: &mut String) {
    match format {
        Format::Json => {
            let mut pretty = Pretty {
                out,
                indent: "    ",
                escape_html: false,
            };
            write_json(blob, &mut pretty);
            out.push('\n');
        }
        Format::Yaml => write_yaml(&blob_to_value(blob), out),
    }
}

/// [`write_blob`], taking the blob apart as it goes (no copy of its payload).
fn write_blob_owned(blob: Blob, format: Format, out: &mut String) {
    match format {
        Format::Json => write_blob(&blob, format, out),
        Format::Yaml => write_yaml(&into_value(blob), out),
    }
}

/// Appends the YAML document of a blob's value.
fn write_yaml(value: &Value, out: &mut String) {
    out.push_str("---\n");
    let mut bytes = Vec::new();
    yaml_write::write_document(value, &mut bytes);
    // The emitter copies whole characters of valid strings: the text is UTF-8, and
    // checking that is much cheaper than a lossy conversion.
    match std::str::from_utf8(&bytes) {
        Ok(text) => out.push_str(text),
        Err(_) => out.push_str(&String::from_utf8_lossy(&bytes)),
    }
}

/// Writes a whole catalog in upstream's order.
pub fn write_config(config: DeclarativeConfig, format: Format, out: &mut String) {
    for blob in sorted_blobs(config) {
        write_blob(&blob, format, out);
    }
}

fn write_json(blob: &Blob, w: &mut Pretty<'_>) {
    match blob {
        Blob::Package(p) => json_package(p, w),
        Blob::Channel(c) => json_channel(c, w),
        Blob::Bundle(b) => json_bundle(b, w),
        Blob::Deprecation(d) => json_deprecation(d, w),
        Blob::Other(m) => w.value(&m.blob, 0),
    }
}

/// Writes `"key": "value"` as the next field of an object at `depth`.
struct Object<'p, 'o> {
    w: &'p mut Pretty<'o>,
    depth: usize,
    first: bool,
}

impl<'p, 'o> Object<'p, 'o> {
    fn open(w: &'p mut Pretty<'o>, depth: usize) -> Object<'p, 'o> {
        w.out.push('{');
        Object {
            w,
            depth,
            first: true,
        }
    }

    fn key(&mut self, key: &str) -> &mut Pretty<'o> {
        if !self.first {
            self.w.out.push(',');
        }
        self.first = false;
        self.w.newline(self.depth + 1);
        self.w.key(key);
        self.w
    }

    fn string(&mut self, key: &str, value: &str) {
        self.key(key).string(value);
    }

    fn close(self) {
        if !self.first {
            self.w.newline(self.depth);
        }
        self.w.out.push('}');
    }
}

fn json_array<T>(
    w: &mut Pretty<'_>,
    depth: usize,
    items: &[T],
    mut item: impl FnMut(&T, &mut Pretty<'_>, usize),
) {
    if items.is_empty() {
        w.out.push_str("[]");
        return;
    }
    w.out.push('[');
    for (i, it) in items.iter().enumerate() {
        if i > 0 {
            w.out.push(',');
        }
        w.newline(depth + 1);
        item(it, w, depth + 1);
    }
    w.newline(depth);
    w.out.push(']');
}

fn json_properties(o: &mut Object<'_, '_>, properties: &[Property]) {
    if properties.is_empty() {
        return;
    }
    let depth = o.depth + 1;
    let w = o.key("properties");
    json_array(w, depth, properties, |p, w, depth| {
        let mut o = Object::open(w, depth);
        o.string("type", &p.kind);
        let w = o.key("value");
        match &p.value {
            Some(value) => w.value(value, depth + 1),
            None => w.out.push_str("null"),
        }
        o.close();
    });
}

fn json_package(p: &Package, w: &mut Pretty<'_>) {
    let mut o = Object::open(w, 0);
    o.string("schema", SCHEMA_PACKAGE);
    o.string("name", &p.name);
    o.string("defaultChannel", &p.default_channel);
    if let Some(icon) = &p.icon {
        let w = o.key("icon");
        let mut i = Object::open(w, 1);
        match &icon.base64 {
            Some(data) => i.string("base64data", data),
            None => i.key("base64data").out.push_str("null"),
        }
        i.string("mediatype", &icon.media_type);
        i.close();
    }
    if !p.description.is_empty() {
        o.string("description", &p.description);
    }
    json_properties(&mut o, &p.properties);
    o.close();
}

fn json_channel(c: &Channel, w: &mut Pretty<'_>) {
    let mut o = Object::open(w, 0);
    o.string("schema", SCHEMA_CHANNEL);
    o.string("name", &c.name);
    o.string("package", &c.package);
    let w = o.key("entries");
    match &c.entries {
        None => w.out.push_str("null"),
        Some(entries) => json_array(w, 1, entries, |e, w, depth| {
            let mut o = Object::open(w, depth);
            o.string("name", &e.name);
            if !e.replaces.is_empty() {
                o.string("replaces", &e.replaces);
            }
            if !e.skips.is_empty() {
                let depth = o.depth + 1;
                let w = o.key("skips");
                json_array(w, depth, &e.skips, |s, w, _| w.string(s));
            }
            if !e.skip_range.is_empty() {
                o.string("skipRange", &e.skip_range);
            }
            o.close();
        }),
    }
    json_properties(&mut o, &c.properties);
    o.close();
}

fn json_bundle(b: &Bundle, w: &mut Pretty<'_>) {
    let mut o = Object::open(w, 0);
    o.string("schema", SCHEMA_BUNDLE);
    if !b.name.is_empty() {
        o.string("name", &b.name);
    }
    if !b.package.is_empty() {
        o.string("package", &b.package);
    }
    o.string("image", &b.image);
    json_properties(&mut o, &b.properties);
    if !b.related_images.is_empty() {
        let w = o.key("relatedImages");
        json_array(w, 1, &b.related_images, |r, w, depth| {
            let mut o = Object::open(w, depth);
            o.string("name", &r.name);
            o.string("image", &r.image);
            o.close();
        });
    }
    o.close();
}

fn json_deprecation(d: &Deprecation, w: &mut Pretty<'_>) {
    let mut o = Object::open(w, 0);
    o.string("schema", SCHEMA_DEPRECATIONS);
    o.string("package", &d.package);
    let w = o.key("entries");
    match &d.entries {
        None => w.out.push_str("null"),
        Some(entries) => json_array(w, 1, entries, |e, w, depth| {
            let mut o = Object::open(w, depth);
            {
                let w = o.key("reference");
                let mut r = Object::open(w, depth + 1);
                r.string("schema", &e.reference.schema);
                if !e.reference.name.is_empty() {
                    r.string("name", &e.reference.name);
                }
                r.close();
            }
            o.string("message", &e.message);
            o.close();
        }),
    }
    o.close();
}

fn string(s: &str) -> Value {
    Value::String(s.to_string())
}

fn properties_value(properties: Vec<Property>) -> Value {
    Value::Array(
        properties
            .into_iter()
            .map(|p| {
                let mut m = Map::new();
                m.insert("type".into(), Value::String(p.kind));
                m.insert("value".into(), p.value.unwrap_or(Value::Null));
                Value::Object(m)
            })
            .collect(),
    )
}

/// The JSON value upstream marshals for a blob (used for YAML output).
pub fn blob_to_value(blob: &Blob) -> Value {
    into_value(blob.clone())
}

/// [`blob_to_value`], taking the blob apart instead of copying it.
fn into_value(blob: Blob) -> Value {
    let mut m = Map::new();
    match blob {
        Blob::Package(p) => {
            m.insert("schema".into(), string(SCHEMA_PACKAGE));
            m.insert("name".into(), Value::String(p.name));
            m.insert("defaultChannel".into(), Value::String(p.default_channel));
            if let Some(icon) = p.icon {
                let mut i = Map::new();
                i.insert(
                    "base64data".into(),
                    icon.base64.map_or(Value::Null, Value::String),
                );
                i.insert("mediatype".into(), Value::String(icon.media_type));
                m.insert("icon".into(), Value::Object(i));
            }
            if !p.description.is_empty() {
                m.insert("description".into(), Value::String(p.description));
            }
            if !p.properties.is_empty() {
                m.insert("properties".into(), properties_value(p.properties));
            }
        }
        Blob::Channel(c) => {
            m.insert("schema".into(), string(SCHEMA_CHANNEL));
            m.insert("name".into(), Value::String(c.name));
            m.insert("package".into(), Value::String(c.package));
            let entries = c.entries.map_or(Value::Null, |entries| {
                Value::Array(
                    entries
                        .into_iter()
                        .map(|e| {
                            let mut o = Map::new();
                            o.insert("name".into(), Value::String(e.name));
                            if !e.replaces.is_empty() {
                                o.insert("replaces".into(), Value::String(e.replaces));
                            }
                            if !e.skips.is_empty() {
                                o.insert(
                                    "skips".into(),
                                    Value::Array(e.skips.into_iter().map(Value::String).collect()),
                                );
                            }
                            if !e.skip_range.is_empty() {
                                o.insert("skipRange".into(), Value::String(e.skip_range));
                            }
                            Value::Object(o)
                        })
                        .collect(),
                )
            });
            m.insert("entries".into(), entries);
            if !c.properties.is_empty() {
                m.insert("properties".into(), properties_value(c.properties));
            }
        }
        Blob::Bundle(b) => {
            m.insert("schema".into(), string(SCHEMA_BUNDLE));
            if !b.name.is_empty() {
                m.insert("name".into(), Value::String(b.name));
            }
            if !b.package.is_empty() {
                m.insert("package".into(), Value::String(b.package));
            }
            m.insert("image".into(), Value::String(b.image));
            if !b.properties.is_empty() {
                m.insert("properties".into(), properties_value(b.properties));
            }
            if !b.related_images.is_empty() {
                let items = b
                    .related_images
                    .into_iter()
                    .map(|r| {
                        let mut o = Map::new();
                        o.insert("name".into(), Value::String(r.name));
                        o.insert("image".into(), Value::String(r.image));
                        Value::Object(o)
                    })
                    .collect();
                m.insert("relatedImages".into(), Value::Array(items));
            }
        }
        Blob::Deprecation(d) => {
            m.insert("schema".into(), string(SCHEMA_DEPRECATIONS));
            m.insert("package".into(), Value::String(d.package));
            let entries = d.entries.map_or(Value::Null, |entries| {
                Value::Array(
                    entries
                        .into_iter()
                        .map(|e| {
                            let mut r = Map::new();
                            r.insert("schema".into(), Value::String(e.reference.schema));
                            if !e.reference.name.is_empty() {
                                r.insert("name".into(), Value::String(e.reference.name));
                            }
                            let mut o = Map::new();
                            o.insert("reference".into(), Value::Object(r));
                            o.insert("message".into(), Value::String(e.message));
                            Value::Object(o)
                        })
                        .collect(),
                )
            });
            m.insert("entries".into(), entries);
        }
        Blob::Other(meta) => return meta.blob,
    }
    Value::Object(m)
}

/// Formats `blobs` on every core, handing the text to `sink` in order, a few
/// megabytes at a time. `prepare` runs on each blob just before it is
/// formatted (with a per-worker document cache, see
/// [`super::load::read_deferred`]); each blob's data is released once written.
///
/// Workers take chunks of consecutive blobs from a shared counter and may run
/// at most a few chunks ahead of the writer, which bounds the memory held in
/// formatted text.
pub fn write_blobs<E: Send>(
    mut blobs: Vec<Blob>,
    format: Format,
    prepare: &(dyn Fn(&mut Blob, &mut DocumentCache) -> Result<(), E> + Sync),
    mut sink: impl FnMut(&str) -> Result<(), E>,
) -> Result<(), E> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Condvar, Mutex};

    const PER_CHUNK: usize = 16;
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .clamp(1, 8);
    let window = 4 * threads;
    let format_chunk = |chunk: &mut [Blob], cache: &mut DocumentCache| -> Result<String, E> {
        let mut text = String::new();
        for blob in chunk {
            prepare(blob, cache)?;
            // Written blobs are dropped at once: their data is freed as the output goes.
            let written = std::mem::replace(blob, Blob::Deprecation(Deprecation::default()));
            write_blob_owned(written, format, &mut text);
        }
        Ok(text)
    };
    if threads == 1 || blobs.len() <= PER_CHUNK {
        let mut cache = None;
        for chunk in blobs.chunks_mut(PER_CHUNK) {
            sink(&format_chunk(chunk, &mut cache)?)?;
        }
        return Ok(());
    }
    let chunks: Vec<Mutex<&mut [Blob]>> = blobs.chunks_mut(PER_CHUNK).map(Mutex::new).collect();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // The index of the first chunk not yet written, for the look-ahead limit.
    let written = Mutex::new(0usize);
    let advanced = Condvar::new();
    let (sender, receiver) = std::sync::mpsc::channel::<(usize, Result<String, E>)>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let sender = sender.clone();
            let (chunks, next, stop, written, advanced) =
                (&chunks, &next, &stop, &written, &advanced);
            let format_chunk = &format_chunk;
            crate::encoding::spawn_worker(scope, move || {
                let mut cache = None;
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= chunks.len() || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    {
                        let mut done = written.lock().unwrap_or_else(|e| e.into_inner());
                        while i >= *done + window && !stop.load(Ordering::Relaxed) {
                            done = advanced.wait(done).unwrap_or_else(|e| e.into_inner());
                        }
                    }
                    let mut chunk = chunks[i].lock().unwrap_or_else(|e| e.into_inner());
                    let text = format_chunk(&mut chunk, &mut cache);
                    if sender.send((i, text)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut pending = std::collections::BTreeMap::new();
        let mut expected = 0;
        let mut outcome = Ok(());
        for (i, text) in receiver.iter() {
            pending.insert(i, text);
            while let Some(text) = pending.remove(&expected) {
                let result = text.and_then(|text| sink(&text));
                expected += 1;
                *written.lock().unwrap_or_else(|e| e.into_inner()) = expected;
                advanced.notify_all();
                if let Err(error) = result {
                    outcome = Err(error);
                    stop.store(true, Ordering::Relaxed);
                    advanced.notify_all();
                    break;
                }
            }
            if outcome.is_err() {
                break;
            }
        }
        // Let waiting workers see the stop flag (or the end) and finish.
        stop.store(true, Ordering::Relaxed);
        advanced.notify_all();
        drop(receiver);
        outcome
    })
}

pub use super::load::DocumentCache;
