//! Format checks of a bundle directory (upstream's `ValidateBundleFormat`):
//! the `manifests/` and `metadata/` directories, the media type of the
//! manifests, the annotations file and its labels, and the optional
//! dependencies file (checked in [`super::dependencies`]).
//!
//! Metadata files are recognised by content, not by name; only the first
//! document of each file is read, as upstream does. No printing here.

use super::dependencies;
use crate::bundle::annotations::{
    CHANNELS_LABEL, DEFAULT_CHANNEL_LABEL, MANIFESTS_LABEL, MEDIATYPE_LABEL, METADATA_LABEL,
    PACKAGE_LABEL, SEED_MEDIATYPE_LABEL,
};
use crate::bundle::files::{BundleDir, Doc, Entry, Listing};
use crate::bundle::mediatype::MediaType;
use crate::bundle::property_list::{self, RawProperty};
use crate::bundle::rules::{
    finding, ANNOTATIONS_CHANNELS_EMPTY, ANNOTATIONS_DEFAULT_CHANNEL_EMPTY,
    ANNOTATIONS_FILE_MISSING, ANNOTATIONS_MEDIATYPE_MISMATCH, ANNOTATIONS_MISSING,
    BUNDLE_DIR_UNREADABLE, BUNDLE_MEDIATYPE_UNDETECTED, BUNDLE_MISSING_MANIFESTS_DIR,
    BUNDLE_MISSING_METADATA_DIR,
};
use crate::diag::Diagnostic;
use crate::encoding::gojson::{self, RawDoc};
use crate::encoding::json::go_quote;
use crate::encoding::stream::decode_documents;
use std::collections::BTreeMap;
use std::path::Path;

/// The labels the annotations file is checked for. Upstream walks a Go map
/// (random order); they are checked here in key order.
const CHECKED_KEYS: [&str; 6] = [
    DEFAULT_CHANNEL_LABEL,
    CHANNELS_LABEL,
    MANIFESTS_LABEL,
    MEDIATYPE_LABEL,
    METADATA_LABEL,
    PACKAGE_LABEL,
];

/// Every rule of this module, in check order.
pub const RULES: &[&str] = &[
    BUNDLE_DIR_UNREADABLE,
    BUNDLE_MISSING_MANIFESTS_DIR,
    BUNDLE_MISSING_METADATA_DIR,
    BUNDLE_MEDIATYPE_UNDETECTED,
    ANNOTATIONS_FILE_MISSING,
    ANNOTATIONS_MISSING,
    ANNOTATIONS_MEDIATYPE_MISMATCH,
    ANNOTATIONS_CHANNELS_EMPTY,
    ANNOTATIONS_DEFAULT_CHANNEL_EMPTY,
];

/// Whether `root` holds both `manifests/` and `metadata/` directories (the
/// precondition of every other check).
pub fn has_bundle_dirs(bundle: &BundleDir) -> bool {
    let (manifests, metadata) = bundle_dirs(bundle.top().unwrap_or_default());
    manifests && metadata
}

/// Runs the format checks on the bundle directory `root`. When a required
/// directory is missing, only that is reported (as upstream, which stops
/// there).
pub fn validate_format(bundle: &BundleDir) -> Vec<Diagnostic> {
    validate_format_with(bundle, None)
}

/// The format checks of a CSV-less bundle whose media type is known (from
/// its annotations): the annotations must carry it, under the standard key or
/// the CSV-less design's key without `.v1`.
pub fn validate_format_as(bundle: &BundleDir, media_type: MediaType) -> Vec<Diagnostic> {
    validate_format_with(bundle, Some(media_type))
}

fn validate_format_with(bundle: &BundleDir, known: Option<MediaType>) -> Vec<Diagnostic> {
    let mut findings = Vec::new();
    let entries = bundle.top().unwrap_or_else(|e| {
        findings.push(finding(
            BUNDLE_DIR_UNREADABLE,
            io_message(bundle.root(), e),
            None,
        ));
        &[]
    });
    let (manifests, metadata) = bundle_dirs(entries);
    if !manifests {
        findings.push(finding(
            BUNDLE_MISSING_MANIFESTS_DIR,
            "Unable to locate manifests directory",
            None,
        ));
    }
    if !metadata {
        findings.push(finding(
            BUNDLE_MISSING_METADATA_DIR,
            "Unable to locate metadata directory",
            None,
        ));
    }
    if !findings.is_empty() {
        return findings;
    }

    let detected = match known.map_or_else(|| bundle.detected_media_type(), Ok) {
        Ok(found) => Some(found),
        Err(e) => {
            findings.push(finding(
                BUNDLE_MEDIATYPE_UNDETECTED,
                e.to_string(),
                Some("manifests".into()),
            ));
            None
        }
    };

    let files = scan_metadata(bundle.metadata(), &mut findings);
    match files.annotations {
        None => findings.push(finding(
            ANNOTATIONS_FILE_MISSING,
            "Could not find annotations file",
            Some("metadata".into()),
        )),
        Some((name, mut annotations)) => {
            if known.is_some() && !annotations.contains_key(MEDIATYPE_LABEL) {
                if let Some(value) = annotations.get(SEED_MEDIATYPE_LABEL).cloned() {
                    annotations.insert(MEDIATYPE_LABEL.to_string(), value);
                }
            }
            check_annotations(
                detected,
                &annotations,
                &format!("metadata/{name}"),
                &mut findings,
            );
        }
    }
    if let Some((name, entries)) = files.dependencies {
        findings.extend(dependencies::check_dependencies(
            &entries,
            &format!("metadata/{name}"),
        ));
    }
    findings
}

/// Upstream's annotation checks, over the labels in key order.
fn check_annotations(
    detected: Option<MediaType>,
    annotations: &BTreeMap<String, String>,
    file: &str,
    findings: &mut Vec<Diagnostic>,
) {
    let error = |rule, message: String| finding(rule, message, Some(file.to_string()));
    for key in CHECKED_KEYS {
        let value = annotations.get(key).map(String::as_str);
        if value.is_none() && key != DEFAULT_CHANNEL_LABEL {
            findings.push(error(
                ANNOTATIONS_MISSING,
                format!("Missing annotation {}", go_quote(key)),
            ));
        }
        let actual = value.unwrap_or("");
        match key {
            MEDIATYPE_LABEL => {
                let mismatch = match detected {
                    Some(detected) => MediaType::parse(actual) != Some(detected),
                    None => !actual.is_empty(),
                };
                if mismatch {
                    let expected = detected.map_or("", MediaType::as_str);
                    findings.push(error(
                        ANNOTATIONS_MEDIATYPE_MISMATCH,
                        format!(
                            "Expecting annotation {} to have value {} instead of {}",
                            go_quote(key),
                            go_quote(expected),
                            go_quote(actual)
                        ),
                    ));
                }
            }
            CHANNELS_LABEL if actual.is_empty() => {
                findings.push(error(ANNOTATIONS_CHANNELS_EMPTY, non_empty_message(key)))
            }
            DEFAULT_CHANNEL_LABEL if value == Some("") => findings.push(error(
                ANNOTATIONS_DEFAULT_CHANNEL_EMPTY,
                non_empty_message(key),
            )),
            _ => {}
        }
    }
}

fn non_empty_message(key: &str) -> String {
    format!(
        "Expecting annotation {} to have non-empty value",
        go_quote(key)
    )
}

/// The annotations and dependencies files found in `metadata/`, with their
/// file names.
#[derive(Default)]
struct MetadataFiles {
    annotations: Option<(String, BTreeMap<String, String>)>,
    dependencies: Option<(String, Vec<RawProperty>)>,
}

/// Tries each file of `metadata/` (name order) as the annotations file until
/// one is found, and as the dependencies file until one with at least one
/// entry is found; a file taken as the annotations file is not also tried as
/// the dependencies file.
fn scan_metadata(listing: &Listing, findings: &mut Vec<Diagnostic>) -> MetadataFiles {
    let mut found = MetadataFiles::default();
    let entries = listing.entries().unwrap_or_else(|e| {
        findings.push(finding(
            BUNDLE_DIR_UNREADABLE,
            io_message(listing.dir(), e),
            Some("metadata".into()),
        ));
        &[]
    });
    for entry in entries {
        let Some(doc) = read_first_document(entry) else {
            continue;
        };
        let name = entry.name_text().into_owned();
        if found.annotations.is_none() {
            if let Some(annotations) = crate::bundle::annotations::decode_map(&doc) {
                found.annotations = Some((name, annotations));
                continue;
            }
        }
        if found.dependencies.is_none() {
            if let Some(entries) = dependencies_of(&doc).filter(|d| !d.is_empty()) {
                found.dependencies = Some((name, entries));
            }
        }
    }
    found
}

/// Decodes a document as upstream's `{dependencies: [{type, value}]}`;
/// `None` when it fails to decode.
fn dependencies_of(doc: &RawDoc) -> Option<Vec<RawProperty>> {
    let Some(raw) = gojson::top_field(&doc.text, "dependencies").ok()? else {
        return Some(Vec::new());
    };
    match property_list::property_list(raw.get(), doc.from_yaml, "registry.Dependency")? {
        (entries, None) => Some(entries),
        (_, Some(_)) => None,
    }
}

/// The first document of a file, as upstream's decoder reads it (later
/// documents are never looked at, even when they are broken); `None` when
/// the file cannot be read or its first document does not decode.
fn read_first_document(entry: &Entry) -> Option<RawDoc> {
    let bytes = entry.bytes().ok()?;
    let document = match entry.documents().ok()? {
        Ok(documents) => documents.first()?,
        Err(e) if e.index == 0 => return None,
        Err(_) if starts_as_json(bytes) => {
            let mut values = serde_json::Deserializer::from_slice(bytes)
                .into_iter::<&serde_json::value::RawValue>();
            let first = values.next()?.ok()?;
            return Some(RawDoc {
                text: first.get().to_string(),
                from_yaml: false,
            });
        }
        Err(_) => {
            return decode_documents(&bytes[..first_yaml_document_end(bytes)])
                .ok()?
                .into_iter()
                .next()
                .map(|document| Doc::from(document).raw())
        }
    };
    Some(document.raw())
}

/// Whether upstream's decoder reads `bytes` as a JSON stream (a `{` is the
/// first non-blank character of the first 4096 bytes).
fn starts_as_json(bytes: &[u8]) -> bool {
    bytes.iter().take(4096).find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// Where the first YAML document ends: at the first `---` separator line
/// that follows some buffered line.
fn first_yaml_document_end(bytes: &[u8]) -> usize {
    let mut start = 0;
    let mut buffered = false;
    while start < bytes.len() {
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| start + i + 1);
        let line = &bytes[start..end];
        if line.starts_with(b"---") {
            if buffered {
                return start;
            }
        } else {
            buffered = true;
        }
        start = end;
    }
    bytes.len()
}

fn bundle_dirs(entries: &[(String, bool)]) -> (bool, bool) {
    let has = |wanted: &str| entries.iter().any(|(name, dir)| *dir && name == wanted);
    (has("manifests"), has("metadata"))
}

/// Go's `*PathError` text for a failed directory listing.
fn io_message(path: &Path, e: &std::io::Error) -> String {
    let path = path.display();
    match e.kind() {
        std::io::ErrorKind::NotFound => format!("open {path}: no such file or directory"),
        std::io::ErrorKind::PermissionDenied => format!("open {path}: permission denied"),
        std::io::ErrorKind::NotADirectory => format!("readdirent {path}: not a directory"),
        _ => format!("open {path}: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Severity;
    use std::path::PathBuf;

    const ANNOTATIONS: &str = "annotations:
  operators.operatorframework.io.bundle.channel.default.v1: stable
  operators.operatorframework.io.bundle.channels.v1: stable,beta
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: etcd
";
    const CSV: &str = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: etcd.v0.9.4\n";

    fn messages(files: &[(&str, &str)]) -> Vec<String> {
        let dir = crate::testkit::tree(files);
        validate_format(&BundleDir::read(dir.path()))
            .into_iter()
            .map(|f| f.message)
            .collect()
    }

    fn with_annotations(text: &str) -> Vec<String> {
        messages(&[
            ("manifests/csv.yaml", CSV),
            ("metadata/annotations.yaml", text),
        ])
    }

    #[test]
    fn a_complete_bundle_passes() {
        assert!(with_annotations(ANNOTATIONS).is_empty());
    }

    #[test]
    fn missing_directories_stop_the_checks() {
        assert_eq!(
            messages(&[("README.md", "x")]),
            [
                "Unable to locate manifests directory",
                "Unable to locate metadata directory"
            ]
        );
        // A file named like a directory does not count.
        assert_eq!(
            messages(&[
                ("manifests", "x"),
                ("metadata/annotations.yaml", ANNOTATIONS)
            ]),
            ["Unable to locate manifests directory"]
        );
    }

    #[test]
    fn unreadable_root_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        let findings = validate_format(&BundleDir::read(&missing));
        assert_eq!(findings[0].rule, BUNDLE_DIR_UNREADABLE);
        assert_eq!(
            findings[0].message,
            format!("open {}: no such file or directory", missing.display())
        );
        assert_eq!(findings.len(), 3);
    }

    #[test]
    fn absent_channels_give_two_errors_in_key_order() {
        let text = ANNOTATIONS.replace(
            "  operators.operatorframework.io.bundle.channels.v1: stable,beta\n",
            "",
        );
        assert_eq!(
            with_annotations(&text),
            [
                "Missing annotation \"operators.operatorframework.io.bundle.channels.v1\"",
                "Expecting annotation \"operators.operatorframework.io.bundle.channels.v1\" to have non-empty value",
            ]
        );
    }

    #[test]
    fn every_missing_label_is_reported_in_key_order() {
        let got = with_annotations("annotations: {}\n");
        assert_eq!(
            got,
            [
                "Missing annotation \"operators.operatorframework.io.bundle.channels.v1\"",
                "Expecting annotation \"operators.operatorframework.io.bundle.channels.v1\" to have non-empty value",
                "Missing annotation \"operators.operatorframework.io.bundle.manifests.v1\"",
                "Missing annotation \"operators.operatorframework.io.bundle.mediatype.v1\"",
                "Expecting annotation \"operators.operatorframework.io.bundle.mediatype.v1\" to have value \"registry+v1\" instead of \"\"",
                "Missing annotation \"operators.operatorframework.io.bundle.metadata.v1\"",
                "Missing annotation \"operators.operatorframework.io.bundle.package.v1\"",
            ]
        );
    }

    #[test]
    fn mediatype_is_compared_with_detection() {
        let plain = |value: &str| {
            messages(&[
                (
                    "manifests/cm.yaml",
                    "kind: ConfigMap\nmetadata: {name: x}\n",
                ),
                (
                    "metadata/annotations.yaml",
                    &ANNOTATIONS.replace("registry+v1", value),
                ),
            ])
        };
        assert!(plain("plain").is_empty());
        assert!(plain("plain+v0").is_empty());
        assert_eq!(
            plain("registry+v1"),
            ["Expecting annotation \"operators.operatorframework.io.bundle.mediatype.v1\" to have value \"plain\" instead of \"registry+v1\""]
        );
        assert_eq!(
            with_annotations(&ANNOTATIONS.replace("registry+v1", "registry+v2")),
            ["Expecting annotation \"operators.operatorframework.io.bundle.mediatype.v1\" to have value \"registry+v1\" instead of \"registry+v2\""]
        );
    }

    #[test]
    fn undetectable_mediatype_expects_an_empty_label() {
        let dir = crate::testkit::tree(&[
            ("manifests/sub/csv.yaml", CSV),
            ("metadata/annotations.yaml", ANNOTATIONS),
        ]);
        let findings = validate_format(&BundleDir::read(dir.path()));
        let rules: Vec<&str> = findings.iter().map(|f| f.rule).collect();
        assert_eq!(
            rules,
            [BUNDLE_MEDIATYPE_UNDETECTED, ANNOTATIONS_MEDIATYPE_MISMATCH]
        );
        assert!(findings[1]
            .message
            .ends_with("to have value \"\" instead of \"registry+v1\""));
    }

    #[test]
    fn manifests_metadata_and_package_values_are_not_checked() {
        let text = ANNOTATIONS
            .replace("manifests/", "foo/")
            .replace("package.v1: etcd", "package.v1: ''");
        assert!(with_annotations(&text).is_empty());
    }

    #[test]
    fn default_channel_is_optional_but_not_empty() {
        let without = ANNOTATIONS.replace(
            "  operators.operatorframework.io.bundle.channel.default.v1: stable\n",
            "",
        );
        assert!(with_annotations(&without).is_empty());
        let empty = ANNOTATIONS.replace("default.v1: stable", "default.v1: ''");
        assert_eq!(
            with_annotations(&empty),
            ["Expecting annotation \"operators.operatorframework.io.bundle.channel.default.v1\" to have non-empty value"]
        );
    }

    #[test]
    fn annotations_file_is_found_by_content() {
        let json = r#"{"annotations": {"operators.operatorframework.io.bundle.mediatype.v1": "registry+v1", "operators.operatorframework.io.bundle.manifests.v1": "manifests/", "operators.operatorframework.io.bundle.metadata.v1": "metadata/", "operators.operatorframework.io.bundle.package.v1": "etcd", "operators.operatorframework.io.bundle.channels.v1": "stable"}}"#;
        assert!(messages(&[
            ("manifests/csv.yaml", CSV),
            ("metadata/a.txt", "free text\n"),
            ("metadata/zz.json", json),
        ])
        .is_empty());
        // `annotations: null` is not an annotations file; a later one is.
        assert!(messages(&[
            ("manifests/csv.yaml", CSV),
            ("metadata/a.yaml", "annotations: null\n"),
            ("metadata/b.yaml", ANNOTATIONS),
        ])
        .is_empty());
        assert_eq!(
            messages(&[
                ("manifests/csv.yaml", CSV),
                ("metadata/notes.txt", "free text\n")
            ]),
            ["Could not find annotations file"]
        );
    }

    #[test]
    fn yaml_scalars_count_as_strings_but_json_numbers_do_not() {
        let yaml = ANNOTATIONS.replace("package.v1: etcd", "package.v1: 12");
        assert!(with_annotations(&yaml).is_empty());
        let json = r#"{"annotations": {"operators.operatorframework.io.bundle.package.v1": 12}}"#;
        assert_eq!(
            messages(&[("manifests/csv.yaml", CSV), ("metadata/a.json", json)]),
            ["Could not find annotations file"]
        );
    }

    #[test]
    fn only_the_first_document_is_read() {
        let text = format!("{ANNOTATIONS}---\nkey: [unclosed\n");
        assert!(with_annotations(&text).is_empty());
        let json = format!(
            "{} garbage",
            serde_json::to_string(&serde_json::json!({"annotations": {
                MEDIATYPE_LABEL: "registry+v1", MANIFESTS_LABEL: "manifests/", METADATA_LABEL: "metadata/",
                PACKAGE_LABEL: "etcd", CHANNELS_LABEL: "stable"}}))
            .unwrap()
        );
        assert!(with_annotations(&json).is_empty());
    }

    #[test]
    fn dependencies_file_is_found_by_content() {
        let deps = "dependencies:\n- type: olm.gvk\n  value: {group: '', version: v1, kind: K}\n";
        let got = messages(&[
            ("manifests/csv.yaml", CSV),
            ("metadata/annotations.yaml", ANNOTATIONS),
            ("metadata/deps.yml", deps),
        ]);
        assert_eq!(got, ["API Group is empty"]);
        // An unparsable file and an empty list are not dependencies files.
        assert!(messages(&[
            ("manifests/csv.yaml", CSV),
            ("metadata/annotations.yaml", ANNOTATIONS),
            (
                "metadata/a.yaml",
                "dependencies:\n  - type: olm.package\n    version: >0.27.0\n"
            ),
            ("metadata/b.yaml", "dependencies: []\n"),
        ])
        .is_empty());
    }

    #[test]
    fn findings_name_their_file() {
        let dir = crate::testkit::tree(&[
            ("manifests/csv.yaml", CSV),
            ("metadata/zz.yaml", "annotations: {}\n"),
        ]);
        let findings = validate_format(&BundleDir::read(dir.path()));
        assert!(findings
            .iter()
            .all(|f| f.file() == Some("metadata/zz.yaml") && f.severity == Severity::Error));
    }

    #[test]
    fn first_yaml_document_boundaries() {
        assert_eq!(first_yaml_document_end(b"a: 1\n---\nb: 2\n"), 5);
        assert_eq!(first_yaml_document_end(b"---\na: 1\n---\n"), 9);
        assert_eq!(first_yaml_document_end(b"a: 1\n"), 5);
    }

    /// Every rule of this module and of the dependencies checks has fixtures
    /// under `testdata/rules/<rule>/`: each `invalid-*` bundle yields at least
    /// one finding of that rule, each `valid-*` bundle yields none at all.
    #[test]
    fn rule_fixtures() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/rules");
        for rule in RULES.iter().chain(dependencies::RULES) {
            let dir = root.join(rule);
            let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .map(|e| e.unwrap().path())
                .collect();
            cases.sort();
            let name = |p: &PathBuf| p.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                cases.iter().any(|c| name(c).starts_with("valid-")),
                "{rule}: no valid case"
            );
            assert!(
                cases.iter().any(|c| name(c).starts_with("invalid-")),
                "{rule}: no invalid case"
            );
            for case in &cases {
                let findings = validate_format(&BundleDir::read(case));
                if name(case).starts_with("invalid-") {
                    assert!(
                        findings.iter().any(|f| f.rule == *rule),
                        "{rule}/{}: no {rule} finding in {findings:#?}",
                        name(case)
                    );
                } else {
                    assert!(findings.is_empty(), "{rule}/{}: {findings:#?}", name(case));
                }
            }
        }
    }
}
