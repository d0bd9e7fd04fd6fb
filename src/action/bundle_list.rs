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

/// The media type of the bundle at `dir` and the YAML stream of its objects.
pub fn list_bundle_dir(dir: &Path) -> Result<(MediaType, Vec<u8>), ListError> {
    let media_type = csvless::resolve_media_type(dir);
    // The writer orders keys as go-yaml does (sorted).
    let objects: Vec<Value> = match media_type {
        MediaType::RegistryV1 => {
            let parsed = crate::bundle::parse_bundle_dir(dir)
                .map_err(|e| ListError::Invalid(e.to_string()))?;
            let is_crd = |v: &&Value| v["kind"] == "CustomResourceDefinition";
            let csv_index = parsed.csv_index();
            let mut ordered: Vec<Value> = parsed.objects().iter().filter(is_crd).cloned().collect();
            ordered.push(parsed.csv().clone());
            ordered.extend(
                parsed
                    .objects()
                    .iter()
                    .enumerate()
                    .filter(|(i, v)| !is_crd(v) && Some(*i) != csv_index)
                    .map(|(_, v)| v.clone()),
            );
            ordered
        }
        MediaType::RegistryV2 | MediaType::Plain => {
            let mut findings = Vec::new();
            let bundle = csvless::read(dir, media_type, &mut findings)
                .ok_or_else(|| ListError::Invalid(csvless::error_text(&findings)))?;
            bundle.applied().into_iter().cloned().collect()
        }
        MediaType::Helm => {
            return Err(ListError::Invalid(
                "a Helm chart bundle has no objects OLM applies".into(),
            ))
        }
    };
    let mut out = Vec::new();
    for object in &objects {
        out.extend_from_slice(b"---\n");
        crate::encoding::yaml_write::write_document(object, &mut out);
    }
    Ok((media_type, out))
}
