//! Building the `olm.bundle` blob from a parsed bundle, as upstream's render
//! does: properties assembled from the bundle's properties, dependencies and
//! APIs, sorted by type then value text, bundle objects moved last; related
//! images from the CSV, the image and the install strategy's containers.

use super::parse::{self, csv_release, csv_version, definitions, spec_map, split_crd_name};
use super::parsed::{BundleDirError, CsvError, ParsedBundle};
use super::property_list::{self, RawProperty};
use crate::declcfg::{Bundle, Property, RelatedImage};
use crate::encoding::gojson::{self, field, GoJsonError, Target};
use crate::encoding::json::compact;
use crate::property::{BUNDLE_OBJECT, CSV_METADATA, GVK, GVK_REQUIRED, PACKAGE, PACKAGE_REQUIRED};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

impl ParsedBundle {
    /// The `olm.bundle` blob with `image` as its image: properties sorted by
    /// type then value text, bundle objects last, related images sorted by
    /// image.
    pub fn render(&self, image: &str) -> Result<Bundle, BundleDirError> {
        let bundle = self;
        let props = properties(bundle).map_err(|source| BundleDirError::Properties {
            bundle: bundle.name.clone(),
            source,
        })?;
        let related_images = related_images(bundle.csv(), image).map_err(|source| {
            BundleDirError::RelatedImages {
                bundle: bundle.name.clone(),
                source,
            }
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
}

/// The fields of property `index` decoded as the Go struct `st`; the error names the property.
fn decode_fields(
    index: usize,
    p: &RawProperty,
    st: &gojson::GoStruct,
) -> Result<Vec<String>, CsvError> {
    gojson::decode_strings(p.value.as_deref(), st).map_err(|source| CsvError::Property {
        index,
        kind: p.kind.clone(),
        source,
    })
}

/// The `olm.gvk` entries of `props` as (group, kind, version) and the fields of its
/// `olm.package` entries, in order; every other entry goes to `others`.
type Split = (Vec<(String, String, String)>, Vec<Vec<String>>);
fn split(props: &[RawProperty], others: &mut Vec<RawProperty>) -> Result<Split, CsvError> {
    let (mut gvks, mut packages) = (Vec::new(), Vec::new());
    for (i, p) in props.iter().enumerate() {
        match p.kind.as_str() {
            GVK => {
                let f = decode_fields(i, p, &property_list::GVK)?;
                gvks.push((f[0].clone(), f[1].clone(), f[2].clone()));
            }
            PACKAGE => packages.push(decode_fields(i, p, &property_list::PACKAGE)?),
            _ => others.push(p.clone()),
        }
    }
    Ok((gvks, packages))
}

/// Upstream's property assembly for a rendered bundle.
fn properties(bundle: &ParsedBundle) -> Result<Vec<Property>, CsvError> {
    let mut provided: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut required: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut others: Vec<RawProperty> = Vec::new();

    let (gvks, packages) = split(&bundle.properties, &mut others)?;
    provided.extend(gvks);
    // The last one wins, rebuilt canonically.
    let package = packages
        .last()
        .map(|f| parse::package_text(&f[0], &f[1], &f[2], false));
    let (gvks, packages) = split(&bundle.dependencies, &mut others)?;
    required.extend(gvks);
    let mut package_required = Vec::new();
    for f in packages {
        let mut map = Map::new();
        map.insert("packageName".into(), Value::String(f[0].clone()));
        map.insert("versionRange".into(), Value::String(f[1].clone()));
        package_required.push(RawProperty::new(
            PACKAGE_REQUIRED,
            compact(&Value::Object(map)),
        ));
    }

    let csv = bundle.csv();
    let version = csv_version(csv).map_err(|e| CsvError::Version(Box::new(e)))?;
    let release = csv_release(csv).map_err(|e| CsvError::ReleaseOf(Box::new(e)))?;
    for api in &bundle.provided {
        provided.insert((api.group.clone(), api.kind.clone(), api.version.clone()));
    }
    for (group, kind, version) in
        required_apis(csv).map_err(|e| CsvError::RequiredApis(Box::new(e)))?
    {
        required.insert((group, kind, version));
    }

    let mut out: Vec<RawProperty> = Vec::new();
    for obj in bundle.objects() {
        let data = crate::encoding::base64::encode(gojson::go_marshal(&obj.value).as_bytes());
        out.push(RawProperty::new(
            BUNDLE_OBJECT,
            format!("{{\"data\":\"{data}\"}}"),
        ));
    }
    let package =
        package.unwrap_or_else(|| parse::package_text(&bundle.package, &version, &release, false));
    out.push(RawProperty::new(PACKAGE, package));
    for (group, kind, version) in &provided {
        out.push(RawProperty::new(
            GVK,
            parse::gvk_text(group, kind, version, false),
        ));
    }
    for (group, kind, version) in &required {
        out.push(RawProperty::new(
            GVK_REQUIRED,
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
fn required_apis(csv: &Value) -> Result<Vec<(String, String, String)>, CsvError> {
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

/// Related images, as upstream's `getRelatedImages` (alpha/action/render.go)
/// builds them and `Render.Run` then sorts them:
///
/// 1. the CSV's `spec.relatedImages` as they are: duplicates, empty names and
///    empty images included, nothing merged;
/// 2. the bundle image (when set) with an empty name, unless one of those
///    already lists it;
/// 3. every container and init container image of the `deployment` install
///    strategy (`GetOperatorImages`, a set) with an empty name, unless
///    `spec.relatedImages` lists it. Upstream does not count the bundle image
///    as listed here, so a container running the bundle image adds it a
///    second time;
/// 4. `sort.Slice` by image, which is not stable: when one image is listed
///    under several names, which name comes first is what Go's pdqsort makes
///    of the input order ([`crate::gosort`] reproduces it).
///
/// Upstream appends the operator images in Go map order, which is random.
/// The images are distinct and none is in `spec.relatedImages`, so only the
/// order of equal images with different names (from step 1) can depend on
/// it, and only past 12 entries. We append them sorted by image, a fixed
/// order: in the common case (no operator image missing from
/// `spec.relatedImages`, or only one) it is exactly upstream's input.
fn related_images(csv: &Value, image: &str) -> Result<Vec<RelatedImage>, CsvError> {
    let spec = spec_map(csv)?;
    let mut images = csv_related_images(spec.get("relatedImages"))?;
    let listed: BTreeSet<String> = images.iter().map(|r| r.image.clone()).collect();
    if !image.is_empty() && !listed.contains(image) {
        images.push(RelatedImage {
            name: String::new(),
            image: image.to_string(),
        });
    }
    for img in operator_images(spec) {
        if !listed.contains(&img) {
            images.push(RelatedImage {
                name: String::new(),
                image: img,
            });
        }
    }
    sort_related_images(&mut images);
    Ok(images)
}

/// Upstream's `sort.Slice(b.RelatedImages, by image)` in `Render.Run`.
pub fn sort_related_images(images: &mut [RelatedImage]) {
    crate::gosort::slice(images, |a, b| a.image < b.image);
}

/// `spec.relatedImages`, decoded strictly as upstream does.
fn csv_related_images(v: Option<&Value>) -> Result<Vec<RelatedImage>, CsvError> {
    let items = match v {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            let target = Target::value("[]declcfg.RelatedImage");
            return Err(GoJsonError::mismatch(other, target).into());
        }
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
                            let target = Target::field(format!("RelatedImage.{name}"), "string");
                            return Err(GoJsonError::mismatch(other, target).into());
                        }
                    }
                }
            }
            other => {
                let target = Target::value("declcfg.RelatedImage");
                return Err(GoJsonError::mismatch(other, target).into());
            }
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
    use serde_json::json;

    /// A CSV whose one deployment runs `containers` and `init` (name, image).
    fn csv(related: Value, containers: &[&str], init: &[&str]) -> Value {
        let list = |images: &[&str]| -> Vec<Value> {
            images
                .iter()
                .enumerate()
                .map(|(i, image)| json!({"name": format!("c{i}"), "image": image}))
                .collect()
        };
        let mut spec = json!({"install": {"strategy": "deployment", "spec": {"deployments": [
            {"name": "d", "spec": {"template": {"spec": {
                "containers": list(containers),
                "initContainers": list(init),
            }}}}
        ]}}});
        if !related.is_null() {
            spec["relatedImages"] = related;
        }
        json!({"spec": spec})
    }

    fn named(pairs: &[(&str, &str)]) -> Value {
        Value::Array(
            pairs
                .iter()
                .map(|(name, image)| json!({"name": name, "image": image}))
                .collect(),
        )
    }

    fn pairs(images: &[RelatedImage]) -> Vec<(&str, &str)> {
        images
            .iter()
            .map(|r| (r.name.as_str(), r.image.as_str()))
            .collect()
    }

    fn check(csv: &Value, image: &str, want: &[(&str, &str)]) {
        let got = related_images(csv, image).unwrap();
        assert_eq!(pairs(&got), want, "{csv}");
    }

    // Every expectation below is what upstream's getRelatedImages
    // (alpha/action/render.go) followed by Render.Run's
    // `sort.Slice(b.RelatedImages, by Image)` returns for the same CSV; they
    // were computed by running that code.

    /// getRelatedImages keeps `spec.relatedImages` verbatim: one image under
    /// two names stays twice. Up to 12 entries sort.Slice is an insertion
    /// sort, so the names keep the CSV's order, in either order.
    #[test]
    fn one_image_under_two_names_keeps_both_in_csv_order() {
        let dash_first = named(&[
            ("op-image", "q/op:1"),
            ("op_image", "q/op:1"),
            ("db", "q/db:1"),
        ]);
        check(
            &csv(dash_first, &["q/op:1"], &[]),
            "",
            &[
                ("db", "q/db:1"),
                ("op-image", "q/op:1"),
                ("op_image", "q/op:1"),
            ],
        );
        let underscore_first = named(&[
            ("op_image", "q/op:1"),
            ("op-image", "q/op:1"),
            ("db", "q/db:1"),
        ]);
        check(
            &csv(underscore_first, &["q/op:1"], &[]),
            "",
            &[
                ("db", "q/db:1"),
                ("op_image", "q/op:1"),
                ("op-image", "q/op:1"),
            ],
        );
    }

    /// GetOperatorImages (pkg/registry/csv.go) collects container and init
    /// container images; getRelatedImages adds one, with no name, only when
    /// `spec.relatedImages` does not list it: the named entry is the one kept.
    #[test]
    fn container_image_also_related_keeps_the_named_entry() {
        check(
            &csv(
                named(&[("manager", "q/op:1")]),
                &["q/op:1", "q/proxy:1"],
                &["q/init:1"],
            ),
            "",
            &[("", "q/init:1"), ("manager", "q/op:1"), ("", "q/proxy:1")],
        );
    }

    /// Empty names are names like any other: an entry without a name and a
    /// named one for the same image both stay (getRelatedImages does not
    /// merge), and a container image listed with an empty name is not added
    /// again.
    #[test]
    fn empty_names_are_kept() {
        let related = json!([
            {"image": "q/a:1"},
            {"name": "a", "image": "q/a:1"},
            {"name": "", "image": "q/b:1"},
        ]);
        check(
            &csv(related, &["q/b:1", "q/c:1"], &[]),
            "",
            &[("", "q/a:1"), ("a", "q/a:1"), ("", "q/b:1"), ("", "q/c:1")],
        );
    }

    /// getRelatedImages adds the bundle image only when `spec.relatedImages`
    /// does not list it, but does not count it as seen for the container
    /// images: a container running the bundle image lists it twice.
    #[test]
    fn bundle_image_already_listed_or_also_a_container() {
        check(
            &csv(
                named(&[("bundle", "q/bundle:v1"), ("op", "q/op:1")]),
                &["q/op:1"],
                &[],
            ),
            "q/bundle:v1",
            &[("bundle", "q/bundle:v1"), ("op", "q/op:1")],
        );
        check(
            &csv(named(&[("op", "q/op:1")]), &["q/op:1", "q/bundle:v1"], &[]),
            "q/bundle:v1",
            &[("", "q/bundle:v1"), ("", "q/bundle:v1"), ("op", "q/op:1")],
        );
    }

    /// GetOperatorImages reads initContainers too, and a container without
    /// an image contributes "" (appsv1.Container.Image is a plain string).
    #[test]
    fn init_containers_count() {
        check(
            &csv(
                named(&[("op", "q/op:1")]),
                &["q/op:1"],
                &["q/op:1", "q/init:1", ""],
            ),
            "",
            &[("", ""), ("", "q/init:1"), ("op", "q/op:1")],
        );
    }

    /// Past 12 entries sort.Slice is Go's pdqsort, which is not stable:
    /// pairs written `x-legacy` then `x_legacy` come out in either order, as
    /// Go's partitioning leaves them (gosort reproduces it).
    #[test]
    fn past_twelve_entries_equal_images_follow_go_pdqsort() {
        let mut list = Vec::new();
        for k in [
            "csi",
            "snapshotter",
            "provisioner",
            "attacher",
            "resizer",
            "registrar",
            "liveness",
        ] {
            list.push((format!("{k}-legacy"), format!("r/{k}:1")));
            list.push((format!("{k}_legacy"), format!("r/{k}:1")));
        }
        let list: Vec<(&str, &str)> = list.iter().map(|(n, i)| (n.as_str(), i.as_str())).collect();
        // Both runs end alike: from the provisioner images on.
        let tail = [
            ("provisioner-legacy", "r/provisioner:1"),
            ("provisioner_legacy", "r/provisioner:1"),
            ("registrar-legacy", "r/registrar:1"),
            ("registrar_legacy", "r/registrar:1"),
            ("resizer_legacy", "r/resizer:1"),
            ("resizer-legacy", "r/resizer:1"),
            ("snapshotter_legacy", "r/snapshotter:1"),
            ("snapshotter-legacy", "r/snapshotter:1"),
        ];
        check(
            &csv(named(&list), &["r/csi:1"], &[]),
            "",
            &[
                &[
                    ("attacher-legacy", "r/attacher:1"),
                    ("attacher_legacy", "r/attacher:1"),
                    ("csi_legacy", "r/csi:1"),
                    ("csi-legacy", "r/csi:1"),
                    ("liveness_legacy", "r/liveness:1"),
                    ("liveness-legacy", "r/liveness:1"),
                ][..],
                &tail,
            ]
            .concat(),
        );
        // The same CSV rendered with a bundle image and one more operator
        // image: two more entries, so a different pdqsort run.
        check(
            &csv(named(&list), &["r/csi:1", "q/op:2"], &[]),
            "q/bundle:v1",
            &[
                &[
                    ("", "q/bundle:v1"),
                    ("", "q/op:2"),
                    ("attacher-legacy", "r/attacher:1"),
                    ("attacher_legacy", "r/attacher:1"),
                    ("csi_legacy", "r/csi:1"),
                    ("csi-legacy", "r/csi:1"),
                    ("liveness-legacy", "r/liveness:1"),
                    ("liveness_legacy", "r/liveness:1"),
                ][..],
                &tail,
            ]
            .concat(),
        );
    }

    /// Where upstream's result depends on Go map order (two operator images
    /// missing from `spec.relatedImages`, equal images under several names,
    /// more than 12 entries), we append the operator images sorted by image;
    /// this is upstream's output for that iteration order.
    #[test]
    fn map_order_dependent_input_uses_sorted_operator_images() {
        let related: Vec<(String, String)> = [2, 3, 0, 2, 3, 3, 0, 3, 0, 0, 3, 0]
            .iter()
            .enumerate()
            .map(|(i, image)| (format!("n{i}"), format!("i/{image}")))
            .collect();
        let related: Vec<(&str, &str)> = related
            .iter()
            .map(|(n, i)| (n.as_str(), i.as_str()))
            .collect();
        check(
            &csv(named(&related), &["i/4", "i/1"], &[]),
            "",
            &[
                ("n9", "i/0"),
                ("n2", "i/0"),
                ("n6", "i/0"),
                ("n11", "i/0"),
                ("n8", "i/0"),
                ("", "i/1"),
                ("n0", "i/2"),
                ("n3", "i/2"),
                ("n4", "i/3"),
                ("n1", "i/3"),
                ("n10", "i/3"),
                ("n5", "i/3"),
                ("n7", "i/3"),
                ("", "i/4"),
            ],
        );
    }

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
