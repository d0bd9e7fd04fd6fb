//! Content validation of `<root>/manifests/` (upstream's
//! `ValidateBundleContent`): every file in lexical order, every document of
//! each file, the registry+v1 kind restriction, the CSV, CRD and
//! object-metadata checks per document, then the registry checks over all
//! decoded objects and the optional validators.
//!
//! Deliberate differences from upstream: every document of a multi-document
//! file is checked (upstream reads only the first); a bundle without a CSV is
//! an error instead of a crash; file paths in messages are relative to the
//! bundle root (`manifests/<name>`) instead of upstream's temporary paths.
//! A media-type detection failure is left to the format check.

use super::options::{Optional, Options};
use super::{bundle_objects, crd, csv, good_practices, kinds, object_meta, operatorhub, registry};
use crate::bundle::files::{BundleDir, Doc, Manifest};
use crate::bundle::mediatype::MediaType;
use crate::bundle::rules::{
    finding, CRD_CONVERSION_INVALID, CRD_GROUP_INVALID, CRD_METADATA_INVALID, CRD_NAMES_INVALID,
    CRD_PRESERVE_UNKNOWN_FIELDS, CRD_SCOPE_INVALID, CRD_VERSIONS_INVALID,
    CRD_VERSION_DETAILS_INVALID, CSV_ANNOTATION_WRONG_CASE, CSV_API_WITHOUT_EXAMPLE,
    CSV_CONVERSION_FAILED, CSV_EXAMPLES_INVALID, CSV_EXAMPLES_MISSING,
    CSV_EXAMPLE_API_NOT_PROVIDED, CSV_INSTALL_MODES_INVALID, CSV_MIN_KUBE_VERSION_INVALID,
    CSV_NAME_INVALID, CSV_OWNED_CRD_NAME_INVALID, CSV_REPLACES_INVALID, MANIFEST_DECODE_FAILED,
    MANIFEST_KIND_UNSUPPORTED, MANIFEST_UNREADABLE, OBJECT_METADATA_INVALID,
};
use crate::diag::Diagnostic;
use crate::encoding::gojson;
use crate::encoding::stream::StreamError;
use serde_json::{Map, Value};

/// Every rule content validation can report, in check order.
pub fn rules() -> Vec<&'static str> {
    let mut all = vec![
        MANIFEST_UNREADABLE,
        MANIFEST_DECODE_FAILED,
        MANIFEST_KIND_UNSUPPORTED,
    ];
    all.extend_from_slice(csv::RULES);
    all.extend_from_slice(crd::RULES);
    all.push(OBJECT_METADATA_INVALID);
    all.extend_from_slice(registry::RULES);
    all.extend_from_slice(operatorhub::RULES);
    all.extend_from_slice(bundle_objects::RULES);
    all.extend_from_slice(good_practices::RULES);
    all
}

/// Validates the contents of `root/manifests/`; nothing when that directory
/// does not exist (the format check reports it).
pub fn validate_content(bundle: &BundleDir, options: &Options) -> Vec<Diagnostic> {
    let mut findings = Vec::new();
    if !bundle.manifests().dir().is_dir() {
        return findings;
    }
    let media_type = bundle.detected_media_type().ok();
    if media_type == Some(MediaType::Helm) {
        return findings;
    }
    let Ok(entries) = bundle.manifests().entries() else {
        return findings;
    };

    let mut decoded: Vec<Manifest> = Vec::new();
    let mut bundle_name = String::new();
    for entry in entries {
        let file = format!("manifests/{}", entry.name_text());
        let documents = match entry.documents() {
            Ok(documents) => documents,
            Err(
                crate::fsutil::InputError::Io { .. }
                | crate::fsutil::InputError::NotRegular {
                    kind: "a directory",
                    ..
                },
            ) => {
                findings.push(finding(
                    MANIFEST_UNREADABLE,
                    format!("Unable to read file {file} in supported types"),
                    Some(file),
                ));
                continue;
            }
            Err(refused) => {
                findings.push(finding(
                    MANIFEST_UNREADABLE,
                    format!("{file}: {}", refused.reason()),
                    Some(file),
                ));
                continue;
            }
        };
        let documents = match read_documents(&file, documents) {
            Ok(documents) => documents,
            Err(e) => {
                findings.push(finding(MANIFEST_DECODE_FAILED, e.to_string(), Some(file)));
                continue;
            }
        };
        for manifest in documents {
            let before = findings.len();
            let kind = manifest.kind().to_string();
            let (document, from_yaml) = (manifest.document - 1, manifest.from_yaml);
            decoded.push(manifest);
            let doc = &decoded[decoded.len() - 1].value;
            if media_type == Some(MediaType::RegistryV1) && !kinds::is_supported(&kind) {
                findings.push(finding(
                    MANIFEST_KIND_UNSUPPORTED,
                    format!("{kind} is not supported type for registryV1 bundle: {file}"),
                    Some(file.clone()),
                ));
                place(&mut findings[before..], document);
                continue;
            }
            match kind.as_str() {
                "ClusterServiceVersion" => {
                    let before = findings.len();
                    csv::check(doc, &file, &mut findings);
                    let converted = !findings[before..]
                        .iter()
                        .any(|f| f.rule == CSV_CONVERSION_FAILED);
                    if converted {
                        bundle_name = csv::text(doc, &["metadata", "name"]).to_string();
                    }
                }
                "CustomResourceDefinition" => crd::check(doc, from_yaml, &file, &mut findings),
                _ => {
                    if let Err(message) = object_meta::kubectlable(doc) {
                        findings.push(finding(
                            OBJECT_METADATA_INVALID,
                            message.to_string(),
                            Some(file.clone()),
                        ));
                    }
                }
            }
            place(&mut findings[before..], document);
        }
    }
    if decoded.is_empty() {
        return findings;
    }

    let objects: Vec<&Manifest> = decoded.iter().collect();
    registry::check(&objects, &bundle_name, &mut findings);

    let first_csv = decoded.iter().find(|o| o.kind() == "ClusterServiceVersion");
    for optional in &options.optional {
        match optional {
            Optional::OperatorHub => {
                if let Some(csv) = first_csv {
                    operatorhub::check(&csv.value, &csv.file, &mut findings);
                }
            }
            Optional::BundleObjects => bundle_objects::check(&objects, &mut findings),
            Optional::GoodPractices => {
                if let Some(csv) = first_csv {
                    let channels = annotation_channels(bundle);
                    good_practices::check(&csv.value, &channels, &csv.file, &mut findings);
                }
            }
        }
    }
    findings
}

/// Places the findings of one document: its index, and the field each rule is about.
fn place(findings: &mut [Diagnostic], document: usize) {
    for finding in findings {
        if let Some(location) = &mut finding.location {
            location.document = Some(document);
            location.pointer = pointer_of(finding.rule).map(str::to_string);
        }
    }
}

/// The field a manifest rule's findings are about (a JSON pointer into the document).
fn pointer_of(rule: &str) -> Option<&'static str> {
    Some(match rule {
        CSV_NAME_INVALID => "/metadata/name",
        CSV_REPLACES_INVALID => "/spec/replaces",
        CSV_EXAMPLES_MISSING | CSV_EXAMPLES_INVALID | CSV_EXAMPLE_API_NOT_PROVIDED => {
            "/metadata/annotations/alm-examples"
        }
        CSV_API_WITHOUT_EXAMPLE | CSV_OWNED_CRD_NAME_INVALID => "/spec/customresourcedefinitions",
        CSV_INSTALL_MODES_INVALID => "/spec/installModes",
        CSV_MIN_KUBE_VERSION_INVALID => "/spec/minKubeVersion",
        CSV_ANNOTATION_WRONG_CASE => "/metadata/annotations",
        CRD_METADATA_INVALID | OBJECT_METADATA_INVALID => "/metadata",
        CRD_GROUP_INVALID => "/spec/group",
        CRD_SCOPE_INVALID => "/spec/scope",
        CRD_VERSIONS_INVALID | CRD_VERSION_DETAILS_INVALID => "/spec/versions",
        CRD_NAMES_INVALID => "/spec/names",
        CRD_CONVERSION_INVALID => "/spec/conversion",
        CRD_PRESERVE_UNKNOWN_FIELDS => "/spec/preserveUnknownFields",
        _ => return None,
    })
}

/// Why a manifest file does not decode into objects; `Display` is upstream's decoder message.
#[derive(Debug, thiserror::Error)]
enum DecodeError {
    /// The file does not split into YAML or JSON documents.
    #[error(transparent)]
    Stream(#[from] StreamError),
    /// The file holds no document.
    #[error("EOF")]
    Empty,
    /// A JSON document that does not parse.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// An object without a non-empty string `kind`: the object as Go re-encodes it.
    #[error("error unmarshaling JSON: while decoding JSON: Object 'Kind' is missing in '{0}'")]
    NoKind(String),
    /// A document that is not an object: the JSON type it is.
    #[error("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {0} into Go value of type map[string]interface {{}}")]
    NotObject(&'static str),
}

/// The documents of the manifest file `file` as objects, with whether each came from YAML. A
/// file without documents, a document that is not an object or an object without a kind is
/// an error with the decoder's message. A first document without content is an object without
/// kind (as upstream reads it); later empty documents are skipped.
fn read_documents(
    file: &str,
    documents: Result<&[Doc], &StreamError>,
) -> Result<Vec<Manifest>, DecodeError> {
    let documents = documents.map_err(|e| DecodeError::Stream(e.clone()))?;
    if documents.is_empty() {
        return Err(DecodeError::Empty);
    }
    let mut out = Vec::new();
    for (index, document) in documents.iter().enumerate() {
        let (value, from_yaml) = (document.value()?.into_owned(), document.is_yaml());
        let value = match value {
            Value::Null if index == 0 => Value::Object(Map::new()),
            Value::Null => continue,
            Value::Object(map) => {
                let object = Value::Object(map);
                let has_kind = object
                    .get("kind")
                    .and_then(Value::as_str)
                    .is_some_and(|k| !k.is_empty());
                if !has_kind {
                    return Err(DecodeError::NoKind(gojson::go_marshal(&object)));
                }
                object
            }
            other => {
                return Err(DecodeError::NotObject(crate::encoding::json::type_name(
                    &other,
                )))
            }
        };
        out.push(Manifest {
            file: file.to_string(),
            document: index + 1,
            value,
            from_yaml,
        });
    }
    Ok(out)
}

/// The channels and default channel of the bundle's annotations file (the
/// first file of `metadata/` with an `annotations` map), for good-practices.
pub(super) fn annotation_channels(bundle: &BundleDir) -> Vec<String> {
    let Some(annotations) = crate::bundle::annotations::read(bundle) else {
        return Vec::new();
    };
    let get = |key: &str| {
        annotations
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let mut channels: Vec<String> = get(crate::bundle::annotations::CHANNELS_LABEL)
        .split(',')
        .map(str::to_string)
        .collect();
    channels.push(get(crate::bundle::annotations::DEFAULT_CHANNEL_LABEL));
    channels
}
