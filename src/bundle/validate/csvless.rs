//! Validation of CSV-less bundles (bundle.md §10.6, decisions.md §4).
//!
//! registry+v2: the format checks with the media type the annotations name
//! (annotations, dependencies), a flat `manifests/` of Kubernetes objects
//! with at least one Deployment, `metadata/bundle.yaml`, then the
//! synthesised ClusterServiceVersion through the CSV checks (reported
//! against `metadata/bundle.yaml`), the CRD checks and the object-metadata
//! checks, and the optional validators on the synthesised CSV.
//!
//! plain+v0: a flat `manifests/` holding at least one object, every object
//! kubectl-able (object metadata Kubernetes accepts, an API a current
//! cluster serves, CRDs Kubernetes accepts); `metadata/` is optional and
//! `metadata/bundle.yaml`, when present, is checked.

use super::options::{Optional, Options};
use super::{bundle_objects, content, crd, csv, format, good_practices, object_meta, operatorhub};
use crate::bundle::csvless;
use crate::bundle::files::{BundleDir, Manifest};
use crate::bundle::mediatype::MediaType;
use crate::bundle::rules::OBJECT_METADATA_INVALID;
use crate::diag::Diagnostic;

pub(super) fn validate(
    dir: &BundleDir,
    media_type: MediaType,
    options: &Options,
) -> Vec<Diagnostic> {
    let mut findings = Vec::new();
    if media_type == MediaType::RegistryV2 {
        findings.extend(format::validate_format_as(dir, media_type));
    }
    let before = findings.len();
    let bundle = csvless::inspect(dir, media_type, &mut findings);
    let usable = !findings[before..]
        .iter()
        .any(|f| f.severity == crate::diag::Severity::Error);
    // The objects are checked even when the bundle as a whole is not usable.
    for m in &bundle.manifests {
        match m.kind() {
            "CustomResourceDefinition" => crd::check(&m.value, m.from_yaml, &m.file, &mut findings),
            _ => {
                let problem = object_meta::kubectlable(&m.value)
                    .err()
                    .map(|e| e.to_string())
                    .or_else(|| name_problem(m))
                    .or_else(|| deployment_problem(m));
                if let Some(message) = problem {
                    findings.push(m.finding(OBJECT_METADATA_INVALID, message));
                }
            }
        }
    }
    let Some(synthesis) = bundle.synthesis.as_ref().filter(|_| usable) else {
        if usable && options.optional.contains(&Optional::BundleObjects) {
            let objects: Vec<&Manifest> = bundle.manifests.iter().collect();
            bundle_objects::check(&objects, &mut findings);
        }
        return findings;
    };
    let csv = &synthesis.csv;
    csv::check(&csv.value, &csv.file, &mut findings);
    for optional in &options.optional {
        match optional {
            Optional::OperatorHub => operatorhub::check(&csv.value, &csv.file, &mut findings),
            Optional::BundleObjects => {
                let mut objects = vec![csv];
                objects.extend(
                    bundle
                        .manifests
                        .iter()
                        .zip(&synthesis.absorbed)
                        .filter(|(_, absorbed)| !**absorbed)
                        .map(|(m, _)| m),
                );
                bundle_objects::check(&objects, &mut findings);
            }
            Optional::GoodPractices => {
                let channels = content::annotation_channels(dir);
                good_practices::check(&csv.value, &channels, &csv.file, &mut findings);
            }
        }
    }
    findings
}

/// The API server's name rule for objects applied as they are: RBAC objects
/// take path-segment names (`system:foo` is fine), everything else a DNS-1123
/// subdomain. (Upstream's registry+v1 check accepts any name; OLM creates
/// those objects itself.)
fn name_problem(m: &Manifest) -> Option<String> {
    let name = m.value.pointer("/metadata/name")?.as_str()?;
    let rbac = matches!(
        m.kind(),
        "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding"
    );
    let problems = if rbac {
        let mut found = Vec::new();
        if name == "." || name == ".." {
            found.push(format!("may not be '{name}'"));
        }
        for bad in ["/", "%"] {
            if name.contains(bad) {
                found.push(format!("may not contain '{bad}'"));
            }
        }
        found
    } else {
        crate::model::dns::dns1123_subdomain_errors(name)
    };
    (!problems.is_empty()).then(|| {
        format!(
            "metadata.name: Invalid value: {}: {}",
            crate::encoding::json::go_quote(name),
            problems.join(", ")
        )
    })
}

/// What the API server requires of an apps/v1 Deployment (the part a bundle
/// author gets wrong): a selector, and a pod template with containers that
/// each have a name and an image.
fn deployment_problem(m: &Manifest) -> Option<String> {
    if m.kind() != "Deployment" {
        return None;
    }
    let spec = &m.value["spec"];
    if !spec["selector"].is_object() {
        return Some("spec.selector: Required value".into());
    }
    let Some(containers) = spec
        .pointer("/template/spec/containers")
        .and_then(|c| c.as_array())
    else {
        return Some("spec.template.spec.containers: Required value".into());
    };
    if containers.is_empty() {
        return Some("spec.template.spec.containers: Required value".into());
    }
    for (i, container) in containers.iter().enumerate() {
        for field in ["name", "image"] {
            if container[field].as_str().is_none_or(str::is_empty) {
                return Some(format!(
                    "spec.template.spec.containers[{i}].{field}: Required value"
                ));
            }
        }
    }
    None
}
