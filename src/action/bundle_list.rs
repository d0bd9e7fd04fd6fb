//! `opm bundle list`: the YAML stream of what OLM applies for a bundle
//! (decisions.md §4), ready for `kubectl apply -f -`. Each object is one
//! document preceded by `---`, keys in go-yaml's (sorted) order.
//!
//! registry+v1 → the CRDs, the CSV, then the other objects (file order);
//! registry+v2 → the CRDs, the CSV synthesised from `bundle.yaml`, the
//! Deployments and the RBAC, then the objects the CSV does not carry;
//! plain+v0 → every object in file order.

use crate::bundle::csvless;
use crate::bundle::mediatype::MediaType;
use serde_json::Value;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum ListError {
    /// The bundle cannot be read; the message says why.
    #[error("{0}")]
    Invalid(String),
}

/// How the objects are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A YAML stream, `---` before each object.
    Yaml,
    /// One JSON `v1` `List` holding the objects (also read by kubectl).
    Json,
}

/// A listed bundle.
#[derive(Debug)]
pub struct Listing {
    pub media_type: MediaType,
    /// The printed objects.
    pub stream: Vec<u8>,
    /// What was repaired on the way (for the user to fix in the bundle).
    pub warnings: Vec<String>,
}

/// The apiVersion of kinds a registry+v1 bundle may ship whose API is the
/// same on every current Kubernetes, for objects that leave it out (upstream
/// accepts them; kubectl does not).
const KNOWN_API_VERSIONS: &[(&str, &str)] = &[
    ("ClusterRole", "rbac.authorization.k8s.io/v1"),
    ("ClusterRoleBinding", "rbac.authorization.k8s.io/v1"),
    ("ConfigMap", "v1"),
    ("ConsoleCLIDownload", "console.openshift.io/v1"),
    ("ConsoleLink", "console.openshift.io/v1"),
    ("ConsoleQuickStart", "console.openshift.io/v1"),
    ("ConsoleYAMLSample", "console.openshift.io/v1"),
    ("NetworkPolicy", "networking.k8s.io/v1"),
    ("PodDisruptionBudget", "policy/v1"),
    ("PriorityClass", "scheduling.k8s.io/v1"),
    ("Role", "rbac.authorization.k8s.io/v1"),
    ("RoleBinding", "rbac.authorization.k8s.io/v1"),
    ("Secret", "v1"),
    ("Service", "v1"),
    ("ServiceAccount", "v1"),
];

/// Gives an object without `apiVersion` the one its kind always has; an
/// object of another kind cannot be applied and is an error.
fn complete_api_version(object: &mut Value, warnings: &mut Vec<String>) -> Result<(), ListError> {
    if object
        .get("apiVersion")
        .and_then(Value::as_str)
        .is_some_and(|v| !v.is_empty())
    {
        return Ok(());
    }
    let kind = object["kind"].as_str().unwrap_or_default().to_string();
    let name = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let Some((_, api_version)) = KNOWN_API_VERSIONS.iter().find(|(k, _)| *k == kind) else {
        return Err(ListError::Invalid(format!(
            "{kind} {name:?} has no apiVersion: kubectl cannot apply it"
        )));
    };
    warnings.push(format!(
        "{kind} {name:?} has no apiVersion; listed with {api_version}"
    ));
    if let Value::Object(map) = object {
        map.insert(
            "apiVersion".into(),
            Value::String((*api_version).to_string()),
        );
    }
    Ok(())
}

/// The media type of the bundle at `dir` and the YAML stream of its objects.
pub fn list_bundle_dir(dir: &Path, format: Format) -> Result<Listing, ListError> {
    list_bundle(&crate::bundle::BundleDir::read(dir), format)
}

/// [`list_bundle_dir`] over a bundle directory already read.
pub fn list_bundle(dir: &crate::bundle::BundleDir, format: Format) -> Result<Listing, ListError> {
    let media_type = csvless::resolve_media_type(dir);
    // The writer orders keys as go-yaml does (sorted).
    let objects: Vec<Value> = match media_type {
        MediaType::RegistryV1 => {
            let parsed =
                crate::bundle::parse(dir).map_err(|e| ListError::Invalid(e.to_string()))?;
            parsed
                .applied()
                .into_iter()
                .map(|m| m.value.clone())
                .collect()
        }
        MediaType::RegistryV2 | MediaType::Plain => {
            let mut findings = Vec::new();
            let bundle = csvless::read(dir, media_type, &mut findings)
                .ok_or_else(|| ListError::Invalid(csvless::error_text(&findings)))?;
            bundle
                .applied()
                .into_iter()
                .map(|m| m.value.clone())
                .collect()
        }
        MediaType::Helm => {
            return Err(ListError::Invalid(
                "a Helm chart bundle has no objects OLM applies".into(),
            ))
        }
    };
    let mut warnings = Vec::new();
    let mut completed = Vec::with_capacity(objects.len());
    for mut object in objects {
        complete_api_version(&mut object, &mut warnings)?;
        completed.push(object);
    }
    let mut stream = Vec::new();
    match format {
        Format::Yaml => {
            for object in &completed {
                stream.extend_from_slice(b"---\n");
                crate::encoding::yaml_write::write_document(object, &mut stream);
            }
        }
        Format::Json => {
            let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": completed});
            let text = serde_json::to_string_pretty(&list)
                .map_err(|e| ListError::Invalid(e.to_string()))?;
            stream.extend_from_slice(text.as_bytes());
            stream.push(b'\n');
        }
    }
    Ok(Listing {
        media_type,
        stream,
        warnings,
    })
}
