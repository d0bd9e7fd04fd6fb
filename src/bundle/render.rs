//! Building the `olm.bundle` blob from a parsed bundle, as upstream's render
//! does: properties assembled from the bundle's properties, dependencies and
//! APIs, sorted by type then value text, bundle objects moved last; related
//! images from the CSV, the image and the install strategy's containers.

use super::gojson::{self, field, type_error, RawProperty};
use super::parse::{self, csv_release, csv_version, definitions, spec_map, split_crd_name};
use super::{BundleDirError, ParsedBundle};
use crate::declcfg::{Bundle, Property, RelatedImage};
use crate::encoding::json::go_quote;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

const BUNDLE_OBJECT: &str = "olm.bundle.object";
const CSV_METADATA: &str = "olm.csv.metadata";

pub(super) fn render(bundle: &ParsedBundle, image: &str) -> Result<Bundle, BundleDirError> {
    let props = properties(bundle).map_err(|e| {
        BundleDirError::new(format!(
            "get properties for bundle {}: {e}",
            go_quote(&bundle.name)
        ))
    })?;
    let related_images = related_images(bundle.csv(), image).map_err(|e| {
        BundleDirError::new(format!(
            "get related images for bundle {}: {e}",
            go_quote(&bundle.name)
        ))
    })?;
    Ok(Bundle {
        name: bundle.name.clone(),
        package: bundle.package.clone(),
        image: image.to_string(),
        properties: props,
        related_images,
        origin: None,
        deferred: None,
    })
}

fn parse_error(index: usize, kind: &str, err: String) -> String {
    format!("parse property[{index}] of type {}: {err}", go_quote(kind))
}

/// Upstream's property assembly for a rendered bundle.
fn properties(bundle: &ParsedBundle) -> Result<Vec<Property>, String> {
    let mut provided: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut required: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut package: Option<String> = None;
    let mut others: Vec<RawProperty> = Vec::new();

    for (i, p) in bundle.properties.iter().enumerate() {
        match p.kind.as_str() {
            "olm.gvk" => {
                let f = gojson::decode_strings(p.value.as_deref(), &gojson::GVK)
                    .map_err(|e| parse_error(i, &p.kind, e))?;
                provided.insert((f[0].clone(), f[1].clone(), f[2].clone()));
            }
            "olm.package" => {
                let f = gojson::decode_strings(p.value.as_deref(), &gojson::PACKAGE)
                    .map_err(|e| parse_error(i, &p.kind, e))?;
                // The last one wins, rebuilt canonically.
                package = Some(parse::package_text(&f[0], &f[1], &f[2], false));
            }
            _ => others.push(p.clone()),
        }
    }
    let mut package_required = Vec::new();
    for (i, p) in bundle.dependencies.iter().enumerate() {
        match p.kind.as_str() {
            "olm.gvk" => {
                let f = gojson::decode_strings(p.value.as_deref(), &gojson::GVK)
                    .map_err(|e| parse_error(i, &p.kind, e))?;
                required.insert((f[0].clone(), f[1].clone(), f[2].clone()));
            }
            "olm.package" => {
                let f = gojson::decode_strings(p.value.as_deref(), &gojson::PACKAGE)
                    .map_err(|e| parse_error(i, &p.kind, e))?;
                let mut map = Map::new();
                map.insert("packageName".into(), Value::String(f[0].clone()));
                map.insert("versionRange".into(), Value::String(f[1].clone()));
                package_required.push(RawProperty::new(
                    "olm.package.required",
                    compact(&Value::Object(map)),
                ));
            }
            _ => others.push(p.clone()),
        }
    }

    let csv = bundle.csv();
    let version = csv_version(csv).map_err(|e| format!("get version: {e}"))?;
    let release = csv_release(csv).map_err(|e| format!("get release: {e}"))?;
    for api in &bundle.provided {
        provided.insert((api.group.clone(), api.kind.clone(), api.version.clone()));
    }
    for (group, kind, version) in
        required_apis(csv).map_err(|e| format!("get required apis: {e}"))?
    {
        required.insert((group, kind, version));
    }

    let mut out: Vec<RawProperty> = Vec::new();
    for obj in bundle.objects() {
        let data = crate::encoding::base64::encode(gojson::go_marshal(obj).as_bytes());
        out.push(RawProperty::new(
            BUNDLE_OBJECT,
            format!("{{\"data\":\"{data}\"}}"),
        ));
    }
    let package =
        package.unwrap_or_else(|| parse::package_text(&bundle.package, &version, &release, false));
    out.push(RawProperty::new("olm.package", package));
    for (group, kind, version) in &provided {
        out.push(RawProperty::new(
            "olm.gvk",
            parse::gvk_text(group, kind, version, false),
        ));
    }
    for (group, kind, version) in &required {
        out.push(RawProperty::new(
            "olm.gvk.required",
            parse::gvk_text(group, kind, version, false),
        ));
    }
    out.extend(package_required);
    out.extend(others);

    out.sort_by(|a, b| {
        a.kind
            .cmp(&b.kind)
            .then_with(|| a.value_text().cmp(b.value_text()))
    });
    // Render moves bundle objects (and CSV metadata) to the end, stably.
    let (tail, mut head): (Vec<RawProperty>, Vec<RawProperty>) = out
        .into_iter()
        .partition(|p| p.kind == BUNDLE_OBJECT || p.kind == CSV_METADATA);
    head.extend(tail);
    Ok(head.into_iter().map(to_property).collect())
}

fn compact(v: &Value) -> String {
    let mut out = String::new();
    crate::encoding::json::write_compact(v, &mut out, false);
    out
}

fn to_property(p: RawProperty) -> Property {
    Property {
        kind: p.kind,
        value: p
            .value
            .map(|text| serde_json::from_str(&text).unwrap_or(Value::Null)),
    }
}

/// The CSV's required CRDs (group from the name) and API services, as
/// (group, kind, version).
fn required_apis(csv: &Value) -> Result<Vec<(String, String, String)>, String> {
    let spec = spec_map(csv)?;
    let mut out = Vec::new();
    let (_, crds) = definitions(spec, "customresourcedefinitions")?;
    for crd in crds {
        let (_, group) = split_crd_name(&crd.name)?;
        out.push((group.to_string(), crd.kind, crd.version));
    }
    let (_, apis) = definitions(spec, "apiservicedefinitions")?;
    for api in apis {
        out.push((api.group, api.kind, api.version));
    }
    Ok(out)
}

/// Related images: the CSV's `spec.relatedImages` as they are, then the
/// image (when set), then the install strategy's container and init
/// container images, each only when not already listed; sorted by image
/// (stable: equal images keep their order).
fn related_images(csv: &Value, image: &str) -> Result<Vec<RelatedImage>, String> {
    let spec = spec_map(csv)?;
    let mut images = csv_related_images(spec.get("relatedImages"))?;
    let mut seen: BTreeSet<String> = images.iter().map(|r| r.image.clone()).collect();
    if !image.is_empty() && seen.insert(image.to_string()) {
        images.push(RelatedImage {
            name: String::new(),
            image: image.to_string(),
        });
    }
    for img in operator_images(spec) {
        if seen.insert(img.clone()) {
            images.push(RelatedImage {
                name: String::new(),
                image: img,
            });
        }
    }
    images.sort_by(|a, b| a.image.cmp(&b.image));
    Ok(images)
}

/// `spec.relatedImages`, decoded strictly as upstream does.
fn csv_related_images(v: Option<&Value>) -> Result<Vec<RelatedImage>, String> {
    let items = match v {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => return Err(type_error(other, "Go value of type []declcfg.RelatedImage")),
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let mut ri = RelatedImage::default();
        match item {
            Value::Null => {}
            Value::Object(_) => {
                for (name, slot) in [("name", &mut ri.name), ("image", &mut ri.image)] {
                    match field(item, name) {
                        Some(Value::String(s)) => *slot = s.clone(),
                        None | Some(Value::Null) => {}
                        Some(other) => {
                            return Err(type_error(
                                other,
                                &format!("Go struct field RelatedImage.{name} of type string"),
                            ))
                        }
                    }
                }
            }
            other => return Err(type_error(other, "Go value of type declcfg.RelatedImage")),
        }
        out.push(ri);
    }
    Ok(out)
}

/// Container and init container images of the `deployment` install
/// strategy (a container without an image contributes `""`, as upstream).
fn operator_images(spec: &Map<String, Value>) -> BTreeSet<String> {
    let mut images = BTreeSet::new();
    let spec = Value::Object(spec.clone());
    let Some(install) = field(&spec, "install") else {
        return images;
    };
    if !matches!(field(install, "strategy"), Some(Value::String(s)) if s == "deployment") {
        return images;
    }
    let deployments = field(install, "spec").and_then(|s| field(s, "deployments"));
    for dep in deployments.and_then(Value::as_array).into_iter().flatten() {
        let pod = field(dep, "spec")
            .and_then(|s| field(s, "template"))
            .and_then(|t| field(t, "spec"));
        let Some(pod) = pod else { continue };
        for list in ["containers", "initContainers"] {
            for c in field(pod, list)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let img = match field(c, "image") {
                    Some(Value::String(s)) => s.clone(),
                    _ => String::new(),
                };
                images.insert(img);
            }
        }
    }
    images
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn related_image_order() {
        type Case = (
            &'static str,
            &'static str,
            &'static [(&'static str, &'static str)],
        );
        let cases: &[Case] = &[
            (
                r#"{"spec":{"relatedImages":[{"name":"b","image":"z"},{"name":"a","image":"z"},{"image":"a"}],"install":{"strategy":"deployment","spec":{"deployments":[{"spec":{"template":{"spec":{"containers":[{"image":"z"},{"image":"m"}],"initContainers":[{"name":"x"}]}}}}]}}}}"#,
                "img",
                &[
                    ("", ""),
                    ("", "a"),
                    ("", "img"),
                    ("", "m"),
                    ("b", "z"),
                    ("a", "z"),
                ],
            ),
            (
                r#"{"spec":{"install":{"strategy":"other","spec":{"deployments":[{"spec":{"template":{"spec":{"containers":[{"image":"z"}]}}}}]}}}}"#,
                "",
                &[],
            ),
        ];
        for (csv, image, want) in cases {
            let v: Value = serde_json::from_str(csv).unwrap();
            let got: Vec<(String, String)> = related_images(&v, image)
                .unwrap()
                .into_iter()
                .map(|r| (r.name, r.image))
                .collect();
            let want: Vec<(String, String)> = want
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect();
            assert_eq!(got, want, "{csv}");
        }
    }
}
