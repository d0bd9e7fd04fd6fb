//! Reading a bundle directory the way upstream's bundle parser does:
//! manifests first (objects, the CSV, the CRDs and the owned-API check), then
//! the metadata files, then the derived properties.

use super::csvless;
use super::parsed::{ApiKey, BundleDirError, CrdError, CsvError, Identity, ParsedBundle};
use super::property_list::{self, RawProperty};
use crate::bundle::files::{BundleDir, Doc, Entry, Listing, Manifest};
use crate::bundle::mediatype::MediaType;
use crate::encoding::gojson::{self, field, sorted, GoJsonError, RawDoc, Target};
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashSet};
use std::path::Path;

const CSV_KIND: &str = "ClusterServiceVersion";
const CRD_KIND: &str = "CustomResourceDefinition";

/// Reads and checks a bundle directory (upstream's bundle parser). A
/// CSV-less bundle (registry+v2 or plain+v0) is read by
/// [`crate::bundle::csvless`] and then goes through the same steps with its
/// synthesised CSV (registry+v2) or its `bundle.yaml` name and version
/// (plain+v0).
pub fn parse_bundle_dir(dir: &Path) -> Result<ParsedBundle, BundleDirError> {
    parse(&BundleDir::read(dir))
}

/// [`parse_bundle_dir`] over a bundle directory already read.
pub fn parse(dir: &BundleDir) -> Result<ParsedBundle, BundleDirError> {
    // A CSV makes it registry+v1 whatever the labels say, so the manifests
    // are decoded first; only a bundle without one asks what else it could be.
    let no_csv = match read_manifests(dir.manifests()) {
        Ok((objects, csv_index)) => {
            return from_objects(dir, objects, Identity::Csv(csv_index), None)
        }
        Err(e) => e,
    };
    let media_type = csvless::resolve_media_type(dir);
    if !matches!(media_type, MediaType::RegistryV2 | MediaType::Plain) {
        return Err(no_csv);
    }
    let mut findings = Vec::new();
    let bundle = csvless::read(dir, media_type, &mut findings).ok_or_else(|| {
        BundleDirError::InvalidCsvLess {
            media_type: media_type.label(),
            problems: csvless::error_text(&findings),
        }
    })?;
    let objects: Vec<Manifest> = bundle
        .applied()
        .into_iter()
        .map(|m| Manifest {
            file: m.file.clone(),
            document: m.document,
            value: sorted(&m.value),
            from_yaml: m.from_yaml,
        })
        .collect();
    let identity = match (media_type, &bundle.meta) {
        (MediaType::RegistryV2, _) => Identity::Csv(
            objects
                .iter()
                .position(|o| o.kind() == CSV_KIND)
                .unwrap_or_default(),
        ),
        (_, Some(meta)) => Identity::Plain(serde_json::json!({
            "metadata": {"name": meta.name},
            "spec": {"version": meta.version},
        })),
        (_, None) => {
            return Err(BundleDirError::PlainWithoutMetadata {
                file: csvless::metadata::FILE,
            })
        }
    };
    from_objects(dir, objects, identity, Some(media_type.label()))
}

fn from_objects(
    dir: &BundleDir,
    objects: Vec<Manifest>,
    identity: Identity,
    media_type: Option<&'static str>,
) -> Result<ParsedBundle, BundleDirError> {
    let csv = identity.csv(&objects);
    // Upstream decodes the CRDs while looking up the CSV, so their errors
    // come before anything about the CSV.
    let provided_crds = crd_apis(&objects)?;
    let name = string_at(csv, &["metadata", "name"]);
    let provided = provided_apis(provided_crds, csv)
        .and_then(|provided| {
            check_owned_crds(csv, &provided)?;
            Ok(provided)
        })
        .map_err(|source| BundleDirError::ProvidedApis {
            bundle: name.clone(),
            source,
        })?;

    let meta = read_metadata(dir.metadata())?;
    let annotations = meta.annotations.ok_or(BundleDirError::NoAnnotations)?;

    let derived = derived_properties(csv, &annotations.package, &provided)
        .map_err(BundleDirError::DeriveProperties)?;
    let mut properties = meta.properties;
    properties.extend(derived);
    if let Some(media_type) = media_type {
        properties.push(RawProperty::new(
            "olm.bundle.mediatype",
            crate::encoding::json::go_quote(media_type),
        ));
    }

    Ok(ParsedBundle {
        package: annotations.package,
        name,
        channels: if annotations.channels.is_empty() {
            Vec::new()
        } else {
            annotations
                .channels
                .split(',')
                .map(str::to_string)
                .collect()
        },
        default_channel: annotations.default_channel,
        identity,
        objects,
        properties: property_set(properties),
        dependencies: meta.dependencies,
        provided,
    })
}

/// A listing's entries, sorted by name as Go's `fs.ReadDir` returns them.
fn sorted_entries<'a>(
    listing: &'a Listing,
    label: &'static str,
) -> Result<&'a [Entry], BundleDirError> {
    listing.entries().map_err(|e| BundleDirError::Unlistable {
        dir: label,
        message: io_text(e),
    })
}

/// Go's wording of common I/O errors.
fn io_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// The documents of one file as Go's decoder sees them; `None` when the file
/// cannot be read or decoded (upstream skips it with a warning). A file that is
/// refused outright (a FIFO or device, a link out of the bundle, a file over the
/// size limit) is an error: upstream would hang on it or read what it should not.
fn read_documents(entry: &Entry) -> Result<Option<Vec<RawDoc>>, BundleDirError> {
    let documents = match entry.documents() {
        Ok(documents) => documents,
        Err(crate::fsutil::InputError::Io { .. })
        | Err(crate::fsutil::InputError::NotRegular {
            kind: "a directory",
            ..
        }) => return Ok(None),
        Err(refused) => return Err(refused.clone().into()),
    };
    let Ok(docs) = documents else {
        return Ok(None);
    };
    Ok(Some(docs.iter().map(Doc::raw).collect()))
}

/// Whether a document decodes as a Kubernetes object: a JSON object whose
/// `kind` is a non-empty string and whose `apiVersion` (if a string) has at
/// most one `/` (otherwise upstream's object decoder reports a missing kind).
fn is_object(v: &Value) -> bool {
    let Value::Object(map) = v else { return false };
    let kind_ok = matches!(map.get("kind"), Some(Value::String(k)) if !k.is_empty());
    let api_ok = match map.get("apiVersion") {
        Some(Value::String(a)) => a.matches('/').count() <= 1,
        _ => true,
    };
    kind_ok && api_ok
}

fn kind_of(v: &Value) -> &str {
    v.get("kind").and_then(Value::as_str).unwrap_or("")
}

fn api_version_of(v: &Value) -> &str {
    v.get("apiVersion").and_then(Value::as_str).unwrap_or("")
}

/// Reads `manifests/`: every object of every regular, non-hidden file in
/// name order, keeping only the first CSV.
fn read_manifests(dir: &Listing) -> Result<(Vec<Manifest>, usize), BundleDirError> {
    let mut objects = Vec::new();
    let mut csv_index = None;
    for entry in sorted_entries(dir, "manifests")? {
        if entry.is_dir() || entry.is_hidden() {
            continue;
        }
        let Some(docs) = read_documents(entry)? else {
            continue;
        };
        for (index, doc) in docs.into_iter().enumerate() {
            let Ok(value) = serde_json::from_str::<Value>(&doc.text) else {
                continue;
            };
            if !is_object(&value) {
                continue;
            }
            if kind_of(&value) == CSV_KIND {
                if csv_index.is_some() {
                    continue;
                }
                csv_index = Some(objects.len());
            }
            objects.push(Manifest {
                file: format!("manifests/{}", entry.name_text()),
                document: index + 1,
                value: sorted(&value),
                from_yaml: doc.from_yaml,
            });
        }
    }
    if objects.is_empty() {
        return Err(BundleDirError::NoObjects);
    }
    let csv_index = csv_index.ok_or(BundleDirError::NoCsv)?;
    Ok((objects, csv_index))
}

/// A string at a path of exact keys (Kubernetes object accessors); `""` when
/// absent or not a string.
fn string_at(v: &Value, path: &[&str]) -> String {
    let mut cur = v;
    for key in path {
        match cur.get(key) {
            Some(next) => cur = next,
            None => return String::new(),
        }
    }
    cur.as_str().unwrap_or("").to_string()
}

/// Decodes one string field of a CRD (Kubernetes' case-sensitive decoder).
fn crd_string(v: Option<&Value>, owner: &str, path: &str) -> Result<String, GoJsonError> {
    match v {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Null) | None => Ok(String::new()),
        Some(other) => Err(GoJsonError::mismatch(
            other,
            Target::field(format!("{owner}.{path}"), "string"),
        )),
    }
}

/// The APIs the bundle's CRDs provide: every `spec.versions[].name` (and for
/// v1beta1 `spec.version`) with the CRD's group, kind and plural.
fn crd_apis(objects: &[Manifest]) -> Result<Vec<ApiKey>, BundleDirError> {
    let mut keys = Vec::new();
    for obj in objects.iter().filter(|o| o.kind() == CRD_KIND) {
        let obj = &obj.value;
        let api_version = api_version_of(obj);
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        if version != "v1" && version != "v1beta1" {
            continue;
        }
        let fail = |e: CrdError| BundleDirError::Crd {
            version: version.to_string(),
            source: e,
        };
        let decode = |e: GoJsonError| fail(e.into());
        if group != "apiextensions.k8s.io" {
            return Err(fail(CrdError::NotRegistered(api_version.to_string())));
        }
        let spec = obj.get("spec").unwrap_or(&Value::Null);
        let check = |v: &Value, what: &str| match v {
            Value::Object(_) | Value::Null => Ok(()),
            other => Err(decode(GoJsonError::mismatch(
                other,
                Target::field(what, what),
            ))),
        };
        check(spec, "CustomResourceDefinitionSpec")?;
        let names = spec.get("names").unwrap_or(&Value::Null);
        check(names, "CustomResourceDefinitionNames")?;
        let group = crd_string(
            spec.get("group"),
            "CustomResourceDefinitionSpec",
            "spec.group",
        )
        .map_err(decode)?;
        let kind = crd_string(
            names.get("kind"),
            "CustomResourceDefinitionNames",
            "spec.names.kind",
        )
        .map_err(decode)?;
        let plural = crd_string(
            names.get("plural"),
            "CustomResourceDefinitionNames",
            "spec.names.plural",
        )
        .map_err(decode)?;
        let mut versions = Vec::new();
        match spec.get("versions") {
            Some(Value::Array(items)) => {
                for item in items {
                    check(item, "CustomResourceDefinitionVersion")?;
                    versions.push(
                        crd_string(
                            item.get("name"),
                            "CustomResourceDefinitionVersion",
                            "spec.versions.name",
                        )
                        .map_err(decode)?,
                    );
                }
            }
            Some(Value::Null) | None => {}
            Some(other) => {
                let target = Target::field(
                    "CustomResourceDefinitionSpec.spec.versions",
                    "[]CustomResourceDefinitionVersion",
                );
                return Err(decode(GoJsonError::mismatch(other, target)));
            }
        }
        if version == "v1beta1" {
            let single = crd_string(
                spec.get("version"),
                "CustomResourceDefinitionSpec",
                "spec.version",
            )
            .map_err(decode)?;
            if !single.is_empty() {
                versions.push(single);
            }
        }
        for v in versions {
            keys.push(ApiKey {
                group: group.clone(),
                version: v,
                kind: kind.clone(),
                plural: plural.clone(),
            });
        }
    }
    Ok(keys)
}

/// The CSV's `spec` as the JSON object upstream reads fields from.
pub(crate) fn spec_map(csv: &Value) -> Result<&Map<String, Value>, CsvError> {
    match csv.get("spec") {
        Some(Value::Object(map)) => Ok(map),
        // Upstream keeps `spec` as raw JSON; a missing one is empty input.
        None | Some(Value::Null) => Err(CsvError::NoSpec),
        Some(other) => {
            let target = Target::value("map[string]*json.RawMessage");
            Err(GoJsonError::mismatch(other, target).into())
        }
    }
}

/// An entry of the CSV's `owned`/`required` CRD or API service lists.
#[derive(Debug, Clone, Default)]
pub(crate) struct DefinitionKey {
    pub group: String,
    pub kind: String,
    pub name: String,
    pub version: String,
}

/// Decodes `spec.<section>` into its owned and required lists. A `null`
/// entry (upstream dereferences a nil pointer and crashes) is an all-empty
/// entry.
pub(crate) fn definitions(
    spec: &Map<String, Value>,
    section: &str,
) -> Result<(Vec<DefinitionKey>, Vec<DefinitionKey>), CsvError> {
    let defs = match spec.get(section) {
        None | Some(Value::Null) => return Ok((Vec::new(), Vec::new())),
        Some(v @ Value::Object(_)) => v,
        Some(other) => {
            let target = Target::value(
                "struct { Owned []*registry.DefinitionKey; Required []*registry.DefinitionKey }",
            );
            return Err(GoJsonError::mismatch(other, target).into());
        }
    };
    let list = |name: &str| -> Result<Vec<DefinitionKey>, CsvError> {
        let items = match field(defs, name) {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(items)) => items,
            Some(other) => {
                let target = Target::field(format!(".{name}"), "[]*registry.DefinitionKey");
                return Err(GoJsonError::mismatch(other, target).into());
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            let mut key = DefinitionKey::default();
            match item {
                Value::Null => {}
                Value::Object(_) => {
                    for (fname, slot) in [
                        ("group", &mut key.group),
                        ("kind", &mut key.kind),
                        ("name", &mut key.name),
                        ("version", &mut key.version),
                    ] {
                        match field(item, fname) {
                            Some(Value::String(s)) => *slot = s.clone(),
                            None | Some(Value::Null) => {}
                            Some(other) => {
                                let path = format!("DefinitionKey.{name}.{fname}");
                                let target = Target::field(path, "string");
                                return Err(GoJsonError::mismatch(other, target).into());
                            }
                        }
                    }
                }
                other => {
                    let target = Target::field(format!(".{name}"), "registry.DefinitionKey");
                    return Err(GoJsonError::mismatch(other, target).into());
                }
            }
            out.push(key);
        }
        Ok(out)
    };
    Ok((list("owned")?, list("required")?))
}

/// The bundle's provided APIs: the CRD versions plus the CSV's owned API
/// services (plural = the entry's `name`).
fn provided_apis(crds: Vec<ApiKey>, csv: &Value) -> Result<BTreeSet<ApiKey>, CsvError> {
    let mut provided: BTreeSet<ApiKey> = crds.into_iter().collect();
    let api_services = |e| CsvError::ApiServices(Box::new(e));
    let spec = spec_map(csv).map_err(|e| api_services(CsvError::ObjectMap(Box::new(e))))?;
    let (owned, _) = definitions(spec, "apiservicedefinitions").map_err(api_services)?;
    for api in owned {
        provided.insert(ApiKey {
            group: api.group,
            version: api.version,
            kind: api.kind,
            plural: api.name,
        });
    }
    Ok(provided)
}

/// `plural.group` split of a CRD name.
pub(crate) fn split_crd_name(name: &str) -> Result<(&str, &str), CsvError> {
    name.split_once('.')
        .ok_or_else(|| CsvError::CrdName(name.to_string()))
}

/// Every CRD the CSV owns must be provided by a CRD manifest.
fn check_owned_crds(csv: &Value, provided: &BTreeSet<ApiKey>) -> Result<(), CsvError> {
    let spec = spec_map(csv)?;
    let (owned, _) = definitions(spec, "customresourcedefinitions")?;
    let mut wanted = Vec::with_capacity(owned.len());
    for crd in &owned {
        let (plural, group) = split_crd_name(&crd.name)?;
        wanted.push(ApiKey {
            group: group.to_string(),
            version: crd.version.clone(),
            kind: crd.kind.clone(),
            plural: plural.to_string(),
        });
    }
    // Upstream reports whichever missing API its map yields first; the first
    // in CSV order is the deterministic choice.
    if let Some(missing) = wanted.iter().find(|k| !provided.contains(k)) {
        let found: Vec<String> = provided.iter().map(|k| format!("{k}:{{}}")).collect();
        return Err(CsvError::NotProvided {
            missing: missing.to_string(),
            found: found.join(" "),
        });
    }
    Ok(())
}

struct Metadata {
    annotations: Option<crate::bundle::annotations::Fields>,
    dependencies: Vec<RawProperty>,
    properties: Vec<RawProperty>,
}

/// Decodes a document as a `{<list>: [{type, value}]}` file; `None` when it
/// fails to decode.
fn property_file_of(doc: &RawDoc, list: &str) -> Option<Vec<RawProperty>> {
    let Some(raw) = gojson::top_field(&doc.text, list).ok()? else {
        return Some(Vec::new());
    };
    let elem = if list == "dependencies" {
        "registry.Dependency"
    } else {
        "registry.Property"
    };
    match property_list::property_list(raw.get(), doc.from_yaml, elem)? {
        (props, None) => Some(props),
        (_, Some(_)) => None,
    }
}

/// Reads `metadata/`: each file (first document only, as upstream) is tried
/// as the annotations, dependencies and properties file; the first match of
/// each wins.
fn read_metadata(dir: &Listing) -> Result<Metadata, BundleDirError> {
    let mut meta = Metadata {
        annotations: None,
        dependencies: Vec::new(),
        properties: Vec::new(),
    };
    let (mut have_deps, mut have_props) = (false, false);
    for entry in sorted_entries(dir, "metadata")? {
        let Some(docs) = read_documents(entry)? else {
            continue;
        };
        let Some(doc) = docs.into_iter().next() else {
            continue;
        };
        if meta.annotations.is_none() {
            meta.annotations = crate::bundle::annotations::decode_fields(&doc).filter(|a| {
                !(a.package.is_empty() && a.channels.is_empty() && a.default_channel.is_empty())
            });
        }
        if !have_deps {
            if let Some(deps) = property_file_of(&doc, "dependencies").filter(|d| !d.is_empty()) {
                meta.dependencies = deps;
                have_deps = true;
            }
        }
        if !have_props {
            if let Some(props) = property_file_of(&doc, "properties").filter(|p| !p.is_empty()) {
                meta.properties = props;
                have_props = true;
            }
        }
    }
    Ok(meta)
}

/// CSV `spec.version` (a string; absent or null is `""`).
pub(crate) fn csv_version(csv: &Value) -> Result<String, CsvError> {
    let spec = spec_map(csv)?;
    match spec.get("version") {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(GoJsonError::mismatch(other, Target::value("string")).into()),
    }
}

/// CSV `spec.release`: a string, or a number written as an integer when it
/// is whole and with `%g` otherwise.
pub(crate) fn csv_release(csv: &Value) -> Result<String, CsvError> {
    let spec = spec_map(csv)?;
    match spec.get("release") {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Number(n)) => {
            let text = n.as_str();
            if text.parse::<i64>().is_ok() || text.parse::<u64>().is_ok() {
                return Ok(text.to_string());
            }
            let f: f64 = text.parse().unwrap_or(0.0);
            if f.fract() == 0.0 && f.abs() < 1e21 {
                Ok(format!("{f:.0}"))
            } else {
                Ok(gojson::format_g_shortest(f, false))
            }
        }
        Some(_) => Err(CsvError::Release),
    }
}

/// Builds the JSON text of a struct of string fields (Go `json.Marshal`).
fn marshal_strings(pairs: &[(&str, &str)], escape_html: bool) -> String {
    let mut map = Map::new();
    for (k, v) in pairs {
        map.insert((*k).to_string(), Value::String((*v).to_string()));
    }
    let mut out = String::new();
    crate::encoding::json::write_compact(&Value::Object(map), &mut out, escape_html);
    out
}

/// The package property text upstream builds (`release` only when set).
pub(crate) fn package_text(
    package: &str,
    version: &str,
    release: &str,
    escape_html: bool,
) -> String {
    if release.is_empty() {
        marshal_strings(
            &[("packageName", package), ("version", version)],
            escape_html,
        )
    } else {
        marshal_strings(
            &[
                ("packageName", package),
                ("version", version),
                ("release", release),
            ],
            escape_html,
        )
    }
}

pub(crate) fn gvk_text(group: &str, kind: &str, version: &str, escape_html: bool) -> String {
    marshal_strings(
        &[("group", group), ("kind", kind), ("version", version)],
        escape_html,
    )
}

/// The properties upstream derives from the CSV and the annotations: the
/// annotations' `olm.package` (first: it takes precedence), the CSV's
/// `olm.properties` annotation, one `olm.gvk` per provided API.
fn derived_properties(
    csv: &Value,
    package: &str,
    provided: &BTreeSet<ApiKey>,
) -> Result<Vec<RawProperty>, CsvError> {
    let mut derived = Vec::new();
    if !package.is_empty() {
        let version = csv_version(csv)?;
        let release = csv_release(csv)?;
        derived.push(RawProperty::new(
            "olm.package",
            package_text(package, &version, &release, true),
        ));
    }
    if let Some(Value::String(text)) = csv
        .get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get("olm.properties"))
    {
        // Unparsable JSON is ignored (a warning upstream); type errors leave
        // Go's partial result, which upstream keeps.
        if let Some((props, _)) = property_list::property_list(text, false, "registry.Property") {
            derived.extend(props);
        }
    }
    for api in provided {
        derived.push(RawProperty::new(
            "olm.gvk",
            gvk_text(&api.group, &api.kind, &api.version, true),
        ));
    }
    Ok(property_set(derived))
}

/// Removes later duplicates (same type and value text).
fn property_set(props: Vec<RawProperty>) -> Vec<RawProperty> {
    let mut seen = HashSet::new();
    props
        .into_iter()
        .filter(|p| seen.insert((p.kind.clone(), p.value.clone())))
        .collect()
}

#[cfg(test)]
mod tests;
