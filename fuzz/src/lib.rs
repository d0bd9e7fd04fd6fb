//! What each fuzz target does with its input, shared by the `cargo fuzz`
//! targets (`fuzz_targets/*.rs`, nightly) and by the main crate's regression
//! test (`tests/fuzz.rs` includes this file), which replays every input saved
//! under `testdata/fuzz/<target>/` on stable Rust.
//!
//! Every function takes the raw fuzz input, drives opm's public entry points
//! with it and panics when an invariant breaks (a panic inside opm is a
//! finding too). Nothing here prints.
//!
//! Inputs that stand for several files (a catalog directory, a bundle, image
//! layers) are split with [`split_files`]: a record starts with `\0FILE:`,
//! its name up to the next newline, then its bytes up to the next record.

use opm::bundle::validate::{validate_bundle_dir, Optional, Options};
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// What a target does with one input.
pub type Target = fn(&[u8]);

/// The targets, by name, with the function each one runs.
pub const TARGETS: &[(&str, Target)] = &[
    ("fbc_load", fbc_load),
    ("yaml_read", yaml_read),
    ("yaml_roundtrip", yaml_roundtrip),
    ("bundle_dir", bundle_dir),
    ("annotations", annotations),
    ("semver", semver),
    ("image_reference", image_reference),
    ("cel", cel),
    ("unpack", unpack),
];

/// Starts a record in a multi-file input.
pub const FILE_MARK: &[u8] = b"\0FILE:";

/// Most files one input may stand for.
const MAX_FILES: usize = 64;

/// Most components of a file name.
const MAX_DEPTH: usize = 6;

/// Splits a multi-file input into (relative path, bytes) records. Bytes
/// before the first record belong to `default_name`. Names are made safe
/// (components of `[A-Za-z0-9._-]`, no `.` or `..`, at most six deep); a
/// record with no usable name also goes to `default_name`.
pub fn split_files<'a>(data: &'a [u8], default_name: &str) -> Vec<(PathBuf, &'a [u8])> {
    let mut records = Vec::new();
    let mut rest = data;
    let mut name: Option<&[u8]> = None;
    loop {
        let (body, next) = match find(rest, FILE_MARK) {
            Some(at) => (&rest[..at], Some(&rest[at + FILE_MARK.len()..])),
            None => (rest, None),
        };
        if name.is_some() || !body.is_empty() {
            let path = name
                .and_then(safe_name)
                .unwrap_or_else(|| PathBuf::from(default_name));
            records.push((path, body));
        }
        let Some(next) = next else { break };
        if records.len() >= MAX_FILES {
            break;
        }
        let end = next.iter().position(|&b| b == b'\n').unwrap_or(next.len());
        name = Some(&next[..end]);
        rest = next.get(end + 1..).unwrap_or(&[]);
    }
    records
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn safe_name(raw: &[u8]) -> Option<PathBuf> {
    let mut path = PathBuf::new();
    for part in raw.split(|&b| b == b'/').filter(|p| !p.is_empty()) {
        let part: String = part
            .iter()
            .take(64)
            .map(|&b| {
                if b.is_ascii_alphanumeric() || b"._-".contains(&b) {
                    char::from(b)
                } else {
                    '_'
                }
            })
            .collect();
        if part == "." || part == ".." {
            continue;
        }
        path.push(part);
        if path.components().count() >= MAX_DEPTH {
            break;
        }
    }
    (!path.as_os_str().is_empty()).then_some(path)
}

/// Writes the records under `root`; a record whose path clashes with an
/// earlier one (a file where a directory must go) is left out.
pub fn write_tree(root: &Path, files: &[(PathBuf, &[u8])]) {
    for (path, bytes) in files {
        let target = root.join(path);
        if let Some(parent) = target.parent() {
            if std::fs::create_dir_all(parent).is_err() {
                continue;
            }
        }
        let _ = std::fs::write(&target, bytes);
    }
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("opm-fuzz-")
        .tempdir()
        .expect("create a temporary directory")
}

/// The file-based catalog loader on a directory of one or several files,
/// then what `opm validate` and `opm render` do with the result. Whatever
/// loads must render to JSON and YAML that load again and render to the same
/// bytes.
pub fn fbc_load(data: &[u8]) {
    use opm::declcfg::load::{load_dir, BundleObjects};
    use opm::declcfg::write::{write_config, Format};

    let files = split_files(data, "catalog.yaml");
    let dir = temp_dir();
    let root = dir.path().join("catalog");
    std::fs::create_dir(&root).expect("create the catalog directory");
    write_tree(&root, &files);

    let config = match load_dir(&root, "catalog", BundleObjects::Keep) {
        Ok(config) => config,
        Err(error) => {
            assert!(!error.errors.is_empty(), "a load error without a file");
            for file in &error.errors {
                let _ = file.location();
            }
            return;
        }
    };
    let _ = load_dir(&root, "catalog", BundleObjects::Drop)
        .expect("a catalog that loads also loads without its bundle objects");
    let verdict = opm::validate::validate_catalog(&config);
    let _ = (verdict.passed(), verdict.message(), verdict.locations());

    // Numbers keep their spelling when written and are spelled the Go way
    // when read (`-0.0` renders as `-0`, which reads as `0`), so each round
    // trip is compared by value, and rendering reaches a fixed point within
    // three round trips.
    let values = catalog_values(&config);
    // A `<<` key is written plain, as go-yaml does, and then reads as a merge
    // key (specified in bundle.md).
    let merges = values.iter().any(has_merge_key);
    for format in [Format::Json, Format::Yaml] {
        let mut current = config.clone();
        let mut previous = String::new();
        for round in 0..4 {
            let mut text = String::new();
            write_config(current, format, &mut text);
            if text == previous {
                break;
            }
            assert!(
                round < 3,
                "rendering {format:?} does not settle:\n{previous}\n---\n{text}"
            );
            current = reload(dir.path(), &format!("round{round}"), format, &text);
            if !(format == Format::Yaml && merges) {
                let again = catalog_values(&current);
                assert!(
                    values.len() == again.len()
                        && values.iter().zip(&again).all(|(a, b)| same_value(a, b)),
                    "the rendered {format:?} catalog loads as another catalog\n--- rendered:\n{text}"
                );
            }
            previous = text;
        }
    }
}

fn catalog_values(config: &opm::declcfg::DeclarativeConfig) -> Vec<Value> {
    opm::declcfg::write::sorted_blobs(config.clone())
        .iter()
        .map(opm::declcfg::write::blob_to_value)
        .collect()
}

/// Loads `text` as the only file of a new catalog directory `name-<format>`.
fn reload(
    scratch: &Path,
    name: &str,
    format: opm::declcfg::write::Format,
    text: &str,
) -> opm::declcfg::DeclarativeConfig {
    use opm::declcfg::write::Format;
    let (root, file) = match format {
        Format::Json => (scratch.join(format!("{name}-json")), "catalog.json"),
        Format::Yaml => (scratch.join(format!("{name}-yaml")), "catalog.yaml"),
    };
    std::fs::create_dir(&root).expect("create a directory");
    std::fs::write(root.join(file), text).expect("write the rendered catalog");
    opm::declcfg::load::load_dir(&root, name, opm::declcfg::load::BundleObjects::Keep)
        .unwrap_or_else(|e| {
            panic!("the rendered {format:?} catalog does not load: {e}\n--- rendered:\n{text}")
        })
}

fn has_merge_key(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(has_merge_key),
        Value::Object(map) => map.iter().any(|(k, v)| k == "<<" || has_merge_key(v)),
        _ => false,
    }
}

/// The YAML reader on one document, the duplicate-key finder, and the
/// catalog file splitter (JSON or YAML streams).
pub fn yaml_read(data: &[u8]) {
    let _ = opm::encoding::yaml_read::yaml_bytes_to_json(data);
    let _ = opm::encoding::yaml_read::first_duplicate_key(data);
    let _ = opm::encoding::stream::decode_documents(data);
}

/// The YAML writer: what the reader accepts (or any JSON value) must be
/// written as YAML the reader accepts again, with the same value; writing
/// that value again gives the same bytes.
pub fn yaml_roundtrip(data: &[u8]) {
    use opm::encoding::yaml_read::yaml_bytes_to_json;
    use opm::encoding::yaml_write::{write_document, write_document_unfolded};

    // The writer keeps a number's spelling and the reader spells numbers
    // the way Go does (`1.0` and `-0` are read back as `1` and `0`), so
    // numbers are compared by value.
    let value = match yaml_bytes_to_json(data) {
        Ok(value) => value,
        Err(_) => match serde_json::from_slice::<Value>(data) {
            Ok(value) if !has_unreadable_number(&value) => value,
            _ => return,
        },
    };
    // A `<<` key is written plain, as go-yaml does, and then reads as a
    // merge key (specified in bundle.md).
    if has_merge_key(&value) {
        return;
    }
    type Writer = fn(&Value, &mut Vec<u8>);
    let writers: [(&str, Writer); 2] = [
        ("folded", write_document),
        ("unfolded", write_document_unfolded),
    ];
    for (name, write) in writers {
        let mut text = Vec::new();
        write(&value, &mut text);
        let back = yaml_bytes_to_json(&text).unwrap_or_else(|e| {
            panic!(
                "the {name} writer's YAML does not read back: {e}\n--- written:\n{}",
                String::from_utf8_lossy(&text)
            )
        });
        assert!(
            same_value(&back, &value),
            "the {name} writer changed the value: {back} != {value}\n--- written:\n{}",
            String::from_utf8_lossy(&text)
        );
        let mut again = Vec::new();
        write(&back, &mut again);
        let back_again = yaml_bytes_to_json(&again).expect("written YAML reads back");
        assert!(
            same_value(&back_again, &back),
            "a second round trip changed the value: {back_again} != {back}"
        );
    }
}

/// Whether a JSON number cannot survive YAML's float reading (out of range
/// for a 64-bit float, so Go's reader fails on it too). Every integer that
/// fits 64 bits is a finite float, so only such floats and huge integers count.
fn unreadable_number(n: &serde_json::Number) -> bool {
    n.as_f64().is_none_or(|f| !f.is_finite())
}

/// Whether `value` holds an [`unreadable_number`] anywhere.
fn has_unreadable_number(value: &Value) -> bool {
    match value {
        Value::Number(n) => unreadable_number(n),
        Value::Array(items) => items.iter().any(has_unreadable_number),
        Value::Object(map) => map.values().any(has_unreadable_number),
        _ => false,
    }
}

/// Equality with numbers compared by value (integers exactly).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x.to_string() == y.to_string()
                || match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                    (Some(p), Some(q), _, _) => p == q,
                    (_, _, Some(p), Some(q)) => p == q,
                    _ => x.as_f64() == y.as_f64(),
                }
        }
        // A number no float64 holds (`1e350`) is written as its text; YAML reads that plain
        // scalar back as a string, as go-yaml does (its float parse fails), and upstream's
        // `JSONToYAML` turns such a number into a string the same way when it writes.
        (Value::Number(x), Value::String(y)) => unreadable_number(x) && *y == x.to_string(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, p)| y.get(k).is_some_and(|q| same_value(p, q)))
        }
        _ => a == b,
    }
}

/// A bundle directory (`manifests/` + `metadata/` built from the input's
/// records) through the bundle parser, render, validation with every optional
/// validator, and `bundle list`.
pub fn bundle_dir(data: &[u8]) {
    let files = split_files(data, "manifests/csv.yaml");
    let dir = temp_dir();
    let root = dir.path().join("bundle");
    std::fs::create_dir(&root).expect("create the bundle directory");
    write_tree(&root, &files);
    exercise_bundle(&root);
}

fn exercise_bundle(root: &Path) {
    use opm::action::bundle_list::{list_bundle_dir, Format};

    if let Ok(parsed) = opm::bundle::parse_bundle_dir(root) {
        let _ = parsed.template_fields();
        if let Ok(bundle) = parsed.render("quay.io/example/bundle:v1") {
            let mut blob = opm::declcfg::DeclarativeConfig::default();
            blob.push(opm::declcfg::Blob::Bundle(bundle));
            let mut out = String::new();
            opm::declcfg::write::write_config(blob, opm::declcfg::write::Format::Json, &mut out);
        }
    }
    let report = validate_bundle_dir(
        root,
        &Options {
            optional: Optional::ALL.to_vec(),
        },
    );
    let _ = (report.passed(), report.message());
    let _ = opm::bundle::annotations::read(&opm::bundle::BundleDir::read(root));
    for format in [Format::Yaml, Format::Json] {
        let _ = list_bundle_dir(root, format);
    }
}

/// A small valid registry+v1 bundle's manifests, for the annotations target.
const CSV: &str = r#"apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: example.v1.0.0
  annotations:
    alm-examples: '[]'
spec:
  displayName: Example
  version: 1.0.0
  installModes:
  - type: AllNamespaces
    supported: true
  install:
    strategy: deployment
    spec:
      deployments: []
"#;

/// `metadata/annotations.yaml` with a fixed, valid bundle: read by
/// `bundle generate`'s check of an existing file, by the bundle parser and
/// render, by validation, and by the CSV-less media type detection.
pub fn annotations(data: &[u8]) {
    use opm::action::bundle_generate::{annotation_map, check_existing_annotations};

    let _ = opm::bundle::annotations::parse_yaml(data);
    let expected = annotation_map("registry+v1", "example", "alpha,beta", "alpha");
    let _ = check_existing_annotations(data, &expected);

    let dir = temp_dir();
    let root = dir.path().join("bundle");
    std::fs::create_dir_all(root.join("manifests")).expect("create manifests/");
    std::fs::create_dir_all(root.join("metadata")).expect("create metadata/");
    std::fs::write(
        root.join("manifests/example.clusterserviceversion.yaml"),
        CSV,
    )
    .expect("write the CSV");
    std::fs::write(root.join("metadata/annotations.yaml"), data).expect("write annotations");
    exercise_bundle(&root);
}

/// Semver versions and ranges: the first line is a range, each later line a
/// version. Printing a parsed version and parsing it again gives the same
/// version; comparison is a total order.
pub fn semver(data: &[u8]) {
    use opm::semver::{compare_releases, parse_release, Range, Version};

    let text = String::from_utf8_lossy(data);
    let mut lines = text.lines();
    let range = Range::parse(lines.next().unwrap_or_default()).ok();
    let mut versions = Vec::new();
    for line in lines.take(32) {
        let parsed = [Version::parse(line), Version::parse_tolerant(line)];
        for version in parsed.into_iter().flatten() {
            let printed = version.to_string();
            let again = Version::parse(&printed)
                .unwrap_or_else(|e| panic!("{printed:?} does not parse again: {e:?}"));
            assert_eq!(again, version, "{printed:?}");
            assert_eq!(again.build, version.build, "{printed:?}");
            assert_eq!(again.to_string(), printed);
            if let Some(range) = &range {
                let _ = range.contains(&version);
            }
            versions.push(version);
        }
        if let Ok(release) = parse_release(line) {
            assert_eq!(
                compare_releases(&release, &release),
                std::cmp::Ordering::Equal
            );
        }
    }
    for a in &versions {
        for b in &versions {
            assert_eq!(a.cmp(b), b.cmp(a).reverse(), "{a} vs {b}");
        }
    }
}

/// Image references: whatever parses prints as a reference that parses to
/// the same value, in full and in familiar form.
pub fn image_reference(data: &[u8]) {
    use opm::image::reference::Reference;

    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = Reference::parse_named(text);
    let Ok(reference) = Reference::parse_normalized(text) else {
        return;
    };
    let printed = reference.to_string();
    let again = Reference::parse_normalized(&printed)
        .unwrap_or_else(|e| panic!("{printed:?} (from {text:?}) does not parse again: {e}"));
    assert_eq!(again, reference, "{printed:?} from {text:?}");
    let familiar = reference.familiar_string();
    // As in Go, `docker.io/example.com/x` is familiarly `example.com/x`,
    // which names another registry.
    let first = reference.path.split('/').next().unwrap_or_default();
    if reference.domain == "docker.io"
        && (first.contains(['.', ':']) || first == "localhost" || first != first.to_lowercase())
    {
        return;
    }
    // Also as in Go, a familiar form of 64 hexadecimal digits is refused as
    // an image ID (`docker.io/library/<64 hex>`).
    if familiar.len() == 64
        && familiar
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return;
    }
    let again = Reference::parse_normalized(&familiar)
        .unwrap_or_else(|e| panic!("familiar {familiar:?} (from {text:?}) does not parse: {e}"));
    assert_eq!(again, reference, "familiar {familiar:?} from {text:?}");
    let _ = (
        reference.name(),
        reference.familiar_name(),
        reference.with_default_tag(),
        reference.docker_ref(),
    );
}

/// The CEL checker of `olm.constraint` rules.
pub fn cel(data: &[u8]) {
    let _ = opm::cel::check_constraint_rule(&String::from_utf8_lossy(data));
}

/// Layer unpacking: each record is one layer (its name the media type),
/// applied in order into a directory nested four levels deep in a scratch
/// directory. Nothing may appear, change or disappear outside it, and every
/// symbolic link written must stay inside it.
pub fn unpack(data: &[u8]) {
    use opm::image::unpack::{apply_layer, Limits, State};

    let layers = split_files(data, "application/vnd.oci.image.layer.v1.tar");
    let dir = temp_dir();
    let chain = dir.path().join("a/b/c/d");
    let dest = chain.join("dest");
    std::fs::create_dir_all(&dest).expect("create the destination");
    let canary = chain.join("canary");
    std::fs::write(&canary, b"canary").expect("write the canary");
    let mut state = State::new(Limits {
        max_total_bytes: 64 << 20,
        max_entries: 10_000,
    });
    for (media_type, bytes) in layers.iter().take(4) {
        let media_type = media_type.to_string_lossy();
        if apply_layer(*bytes, &media_type, &dest, &mut state).is_err() {
            break;
        }
    }
    assert_eq!(
        std::fs::read(&canary).ok().as_deref(),
        Some(&b"canary"[..]),
        "a file next to the destination changed"
    );
    let mut allowed: Vec<PathBuf> = vec![dir.path().to_path_buf(), canary.clone()];
    let mut at = chain.clone();
    while at != dir.path() {
        allowed.push(at.clone());
        at = at
            .parent()
            .expect("inside the scratch directory")
            .to_path_buf();
    }
    for entry in walk(dir.path()) {
        if entry.starts_with(&dest) {
            check_link(&dest, &entry);
        } else {
            assert!(
                allowed.contains(&entry),
                "{} was written outside the destination",
                entry.display()
            );
        }
    }
}

/// Every path under `root` (itself included), never following links.
fn walk(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.to_path_buf()];
    let mut i = 0;
    while i < out.len() {
        let path = out[i].clone();
        i += 1;
        let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        if let (true, Ok(entries)) = (is_dir, std::fs::read_dir(&path)) {
            let mut children: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            children.sort();
            out.extend(children);
        }
    }
    out
}

/// A symbolic link under `dest` must be relative and, resolved lexically
/// from its directory, stay inside `dest`.
fn check_link(dest: &Path, link: &Path) {
    let Ok(target) = std::fs::read_link(link) else {
        return;
    };
    assert!(
        target.is_relative(),
        "{} links to the absolute {}",
        link.display(),
        target.display()
    );
    let relative = link
        .parent()
        .and_then(|p| p.strip_prefix(dest).ok())
        .expect("the link is inside the destination");
    let mut depth: Vec<Component<'_>> = relative.components().collect();
    let mut named = false;
    for component in target.components() {
        match component {
            Component::ParentDir => {
                assert!(
                    !named,
                    "{} -> {} has `..` after a name",
                    link.display(),
                    target.display()
                );
                assert!(
                    depth.pop().is_some(),
                    "{} -> {} climbs above the destination",
                    link.display(),
                    target.display()
                );
            }
            Component::Normal(_) => {
                named = true;
                depth.push(component);
            }
            _ => {}
        }
    }
}
