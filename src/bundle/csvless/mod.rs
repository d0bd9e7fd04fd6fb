//! CSV-less bundles: `registry+v2` (plain manifests plus
//! `metadata/bundle.yaml`) and `plain+v0` (manifests only), bundle.md §10 and
//! decisions.md §4.
//!
//! One reader serves `bundle list`, `render`, `bundle build` and `bundle
//! validate`: [`read`] checks the directory and returns the manifests, the
//! metadata and, for registry+v2, the synthesised ClusterServiceVersion;
//! [`Contents::applied`] is the object list OLM applies. Problems are
//! [`Diagnostic`]s (validate reports them all; the other commands fail with
//! them). Nothing prints.

pub mod metadata;
pub(crate) mod synth;

use crate::bundle::files::{BundleDir, Doc, Manifest};
use crate::bundle::mediatype::MediaType;
use crate::bundle::rules::{
    finding, BUNDLE_API_WITHOUT_CRD, BUNDLE_DEPLOYMENT_MISSING, BUNDLE_YAML_MISSING,
    MANIFESTS_EMPTY, MANIFESTS_MISSING, MANIFESTS_NOT_FLAT, MANIFEST_API_REMOVED,
    MANIFEST_NOT_OBJECTS, PLAIN_MANIFEST_API_REMOVED,
};
use crate::diag::Diagnostic;
use crate::encoding::stream::{decode_documents, StreamError};
use serde_json::Value;

pub use metadata::BundleMeta;
pub use synth::Synthesis;

/// Every rule of this module and its submodules.
pub fn rules() -> Vec<&'static str> {
    let mut all = vec![
        MANIFESTS_MISSING,
        MANIFESTS_NOT_FLAT,
        MANIFEST_NOT_OBJECTS,
        MANIFESTS_EMPTY,
        BUNDLE_DEPLOYMENT_MISSING,
        MANIFEST_API_REMOVED,
        PLAIN_MANIFEST_API_REMOVED,
        BUNDLE_API_WITHOUT_CRD,
    ];
    all.extend_from_slice(metadata::RULES);
    all
}

/// What the CSV-less reader found in a bundle directory (the media type is the caller's):
/// the objects of `manifests/`, `metadata/bundle.yaml` and the CSV synthesised from them.
/// Parsing turns it into a [`crate::bundle::ParsedBundle`], as it does a registry+v1
/// directory; validation and `bundle list` read it as it is.
#[derive(Debug, Clone)]
pub struct Contents {
    pub manifests: Vec<Manifest>,
    /// `bundle.yaml` (required for registry+v2, optional for plain+v0).
    pub meta: Option<BundleMeta>,
    /// The synthesised CSV (registry+v2 only).
    pub synthesis: Option<Synthesis>,
}

impl Contents {
    /// What OLM applies, in order (decisions.md §4): registry+v2 → the CRDs,
    /// the synthesised CSV, then every object the CSV does not carry;
    /// plain+v0 → every object in file order.
    pub fn applied(&self) -> Vec<&Manifest> {
        let Some(synthesis) = &self.synthesis else {
            return self.manifests.iter().collect();
        };
        crate::bundle::parsed::applied_order(
            &synthesis.csv,
            self.manifests
                .iter()
                .zip(&synthesis.absorbed)
                .filter(|(_, absorbed)| !**absorbed)
                .map(|(m, _)| m),
        )
    }
}

/// The media type a bundle directory holds, from its content and its
/// annotations: a CSV in `manifests/` makes it registry+v1 (a Helm chart
/// Helm); otherwise the annotations' media type label (either spelling)
/// decides, and a bare `manifests/` without `metadata/` is plain+v0. The rest
/// (no `manifests/`, `metadata/` without a media type label, an unknown or
/// registry+v1 label without a CSV) is registry+v1, whose checks report what
/// is wrong as upstream does.
pub fn resolve_media_type(bundle: &BundleDir) -> MediaType {
    if !bundle.manifests().dir().is_dir() {
        return MediaType::RegistryV1;
    }
    match bundle.detected_media_type() {
        Ok(MediaType::RegistryV1) => return MediaType::RegistryV1,
        Ok(MediaType::Helm) => return MediaType::Helm,
        _ => {}
    }
    match crate::bundle::annotations::media_type(bundle)
        .as_deref()
        .map(MediaType::parse)
    {
        Some(Some(MediaType::RegistryV2)) => MediaType::RegistryV2,
        Some(Some(MediaType::Plain)) => MediaType::Plain,
        None if !bundle.metadata().dir().exists() => MediaType::Plain,
        _ => MediaType::RegistryV1,
    }
}

/// Reads and checks a CSV-less bundle of `media_type` (registry+v2 or
/// plain+v0). Every problem goes to `findings`; `None` when there were
/// errors.
pub fn read(
    bundle: &BundleDir,
    media_type: MediaType,
    findings: &mut Vec<Diagnostic>,
) -> Option<Contents> {
    let before = errors(findings);
    let bundle = inspect(bundle, media_type, findings);
    (errors(findings) == before).then_some(bundle)
}

/// Like [`read`], but returns whatever could be read even when there are
/// errors (for validation, which checks every object it can).
pub fn inspect(
    bundle: &BundleDir,
    media_type: MediaType,
    findings: &mut Vec<Diagnostic>,
) -> Contents {
    let manifests = read_manifests(bundle, findings);
    check_removed_apis(&manifests, media_type, findings);
    let bundle_yaml = metadata::FILE
        .strip_prefix("metadata/")
        .unwrap_or(metadata::FILE);
    let meta = match bundle.metadata_file(bundle_yaml) {
        Ok(bytes) => metadata::parse(bytes, findings),
        Err(crate::fsutil::InputError::Io {
            kind: std::io::ErrorKind::NotFound,
            ..
        }) => {
            if media_type == MediaType::RegistryV2 {
                findings.push(finding(
                    BUNDLE_YAML_MISSING,
                    format!(
                        "{}: not found: a registry+v2 bundle needs its name, version and OLM metadata there",
                        metadata::FILE
                    ),
                    Some(metadata::FILE.into()),
                ));
            }
            None
        }
        Err(e) => {
            findings.push(finding(
                BUNDLE_YAML_MISSING,
                format!("{}: {}", metadata::FILE, e.reason()),
                Some(metadata::FILE.into()),
            ));
            None
        }
    };
    let mut synthesis = None;
    if media_type == MediaType::RegistryV2 {
        if !manifests.is_empty() && !manifests.iter().any(|m| m.kind() == "Deployment") {
            findings.push(finding(
                BUNDLE_DEPLOYMENT_MISSING,
                "manifests/: a registry+v2 bundle needs at least one Deployment (it replaces the CSV's install strategy)",
                Some("manifests".into()),
            ));
        }
        if let Some(meta) = &meta {
            synthesis = Some(synth::synthesize(meta, &manifests, findings));
        }
    }
    Contents {
        manifests,
        meta,
        synthesis,
    }
}

fn errors(findings: &[Diagnostic]) -> usize {
    findings
        .iter()
        .filter(|f| f.severity == crate::diag::Severity::Error)
        .count()
}

/// Every object of `manifests/`, which must be flat and hold at least one
/// object; every document must be a Kubernetes object (non-empty
/// `apiVersion` and `kind`). Hidden files are skipped.
pub fn read_manifests(bundle: &BundleDir, findings: &mut Vec<Diagnostic>) -> Vec<Manifest> {
    let entries = match bundle.manifests().entries() {
        Ok(entries) => entries,
        Err(e) => {
            let message = if e.kind() == std::io::ErrorKind::NotFound {
                "Unable to locate manifests directory".to_string()
            } else {
                format!("manifests/: {}", crate::declcfg::load::io_message(e))
            };
            findings.push(finding(MANIFESTS_MISSING, message, None));
            return Vec::new();
        }
    };
    let mut manifests = Vec::new();
    for entry in entries {
        if entry.is_hidden() {
            continue;
        }
        let file = format!("manifests/{}", entry.name_text());
        if entry.leads_to_dir() {
            findings.push(finding(
                MANIFESTS_NOT_FLAT,
                format!("{file}: is a directory; manifests/ must be flat"),
                Some(file),
            ));
            continue;
        }
        let documents = match entry.documents() {
            Ok(documents) => documents,
            Err(e) => {
                findings.push(finding(
                    MANIFEST_NOT_OBJECTS,
                    format!("{file}: {}", e.reason()),
                    Some(file),
                ));
                continue;
            }
        };
        match objects_in(&file, documents) {
            Ok(objects) if objects.is_empty() => findings.push(finding(
                MANIFEST_NOT_OBJECTS,
                format!("{file}: holds no Kubernetes object"),
                Some(file),
            )),
            Ok(objects) => manifests.extend(objects),
            Err((document, message)) => {
                let mut finding = finding(MANIFEST_NOT_OBJECTS, message, Some(file));
                if let Some(location) = &mut finding.location {
                    location.document = document.checked_sub(1);
                }
                findings.push(finding);
            }
        }
    }
    let unreadable = findings.iter().any(|f| f.rule == MANIFEST_NOT_OBJECTS);
    if manifests.is_empty() && !unreadable {
        findings.push(finding(
            MANIFESTS_EMPTY,
            "manifests/: holds no Kubernetes object; a bundle needs at least one",
            Some("manifests".into()),
        ));
    }
    manifests
}

/// The objects of the YAML or JSON stream `file` holds, with their 1-based document numbers;
/// documents without content are skipped. The error names the document (1-based).
pub fn objects_of(file: &str, bytes: &[u8]) -> Result<Vec<Manifest>, (usize, String)> {
    let documents: Result<Vec<Doc>, StreamError> =
        decode_documents(bytes).map(|documents| documents.into_iter().map(Doc::from).collect());
    objects_in(file, documents.as_deref())
}

/// [`objects_of`] over a file's decoded documents.
pub fn objects_in(
    file: &str,
    documents: Result<&[Doc], &StreamError>,
) -> Result<Vec<Manifest>, (usize, String)> {
    let documents = documents.map_err(|e| (e.index + 1, e.kind.to_string()))?;
    let mut out = Vec::new();
    for (index, document) in documents.iter().enumerate() {
        let number = index + 1;
        let value = document
            .value()
            .map_err(|e| (number, e.to_string()))?
            .into_owned();
        match &value {
            Value::Null => continue,
            Value::Object(map) => {
                for key in ["apiVersion", "kind"] {
                    if map
                        .get(key)
                        .and_then(Value::as_str)
                        .is_none_or(str::is_empty)
                    {
                        return Err((
                            number,
                            format!("not a Kubernetes object: {key} is missing or not a string"),
                        ));
                    }
                }
            }
            other => {
                return Err((
                    number,
                    format!(
                        "not a Kubernetes object: found {}",
                        crate::encoding::json::type_name(other)
                    ),
                ))
            }
        }
        out.push(Manifest {
            file: file.to_string(),
            document: number,
            value,
            from_yaml: document.is_yaml(),
        });
    }
    Ok(out)
}

/// API versions Kubernetes no longer serves: (group/version, the Kubernetes
/// release that removed it, kinds affected or empty for all).
const REMOVED_APIS: &[(&str, &str, &[&str])] = &[
    ("extensions/v1beta1", "1.22", &[]),
    ("apps/v1beta1", "1.16", &[]),
    ("apps/v1beta2", "1.16", &[]),
    ("apiextensions.k8s.io/v1beta1", "1.22", &[]),
    ("admissionregistration.k8s.io/v1beta1", "1.22", &[]),
    ("apiregistration.k8s.io/v1beta1", "1.22", &[]),
    ("authentication.k8s.io/v1beta1", "1.22", &[]),
    ("authorization.k8s.io/v1beta1", "1.22", &[]),
    ("certificates.k8s.io/v1beta1", "1.22", &[]),
    ("coordination.k8s.io/v1beta1", "1.22", &[]),
    ("networking.k8s.io/v1beta1", "1.22", &[]),
    ("rbac.authorization.k8s.io/v1alpha1", "1.22", &[]),
    ("rbac.authorization.k8s.io/v1beta1", "1.22", &[]),
    ("scheduling.k8s.io/v1alpha1", "1.17", &[]),
    ("scheduling.k8s.io/v1beta1", "1.22", &[]),
    (
        "storage.k8s.io/v1beta1",
        "1.22",
        &["CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"],
    ),
    ("storage.k8s.io/v1beta1", "1.27", &["CSIStorageCapacity"]),
    ("batch/v1beta1", "1.25", &[]),
    ("discovery.k8s.io/v1beta1", "1.25", &[]),
    ("events.k8s.io/v1beta1", "1.25", &[]),
    ("node.k8s.io/v1beta1", "1.25", &[]),
    ("policy/v1beta1", "1.25", &[]),
    ("autoscaling/v2beta1", "1.25", &[]),
    ("autoscaling/v2beta2", "1.26", &[]),
    ("flowcontrol.apiserver.k8s.io/v1beta1", "1.26", &[]),
    ("flowcontrol.apiserver.k8s.io/v1beta2", "1.29", &[]),
];

/// The Kubernetes release that stopped serving this object's API, if any.
pub fn removed_in(api_version: &str, kind: &str) -> Option<&'static str> {
    REMOVED_APIS
        .iter()
        .find(|(gv, _, kinds)| *gv == api_version && (kinds.is_empty() || kinds.contains(&kind)))
        .map(|(_, release, _)| *release)
}

/// Objects no current Kubernetes accepts: errors in plain+v0 bundles (applied
/// as they are, so not kubectl-able), warnings in registry+v2 bundles (as
/// registry+v1 bundles, whose CRDs OLM may still serve on old clusters).
fn check_removed_apis(manifests: &[Manifest], media_type: MediaType, out: &mut Vec<Diagnostic>) {
    for m in manifests {
        let api_version = m
            .value
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        let Some(release) = removed_in(api_version, m.kind()) else {
            continue;
        };
        // The CRD checks already warn about v1beta1 CRDs in registry bundles.
        if media_type != MediaType::Plain && m.kind() == "CustomResourceDefinition" {
            continue;
        }
        let message = format!(
            "{api_version} {} was removed in Kubernetes {release}; kubectl apply fails on any current cluster",
            m.kind()
        );
        let rule = if media_type == MediaType::Plain {
            PLAIN_MANIFEST_API_REMOVED
        } else {
            MANIFEST_API_REMOVED
        };
        out.push(m.finding(rule, message));
    }
}

/// The problems of `findings` as one message (errors only, in order), for
/// commands that stop at the first failure.
pub fn error_text(findings: &[Diagnostic]) -> String {
    findings
        .iter()
        .filter(|f| f.severity == crate::diag::Severity::Error)
        .map(|f| f.message.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests;
