//! `metadata/bundle.yaml`: the OLM metadata of a `registry+v2` bundle that
//! replaces the ClusterServiceVersion (bundle.md §10.1), and the name and
//! version of a `plain+v0` bundle.
//!
//! The file is read strictly: a duplicate key is an error naming the key and
//! both lines (decisions.md §4), every field has one type, `name` and
//! `version` are required, `version` is strict semver. Unknown fields are
//! warnings, so newer files still work. Problems are [`Diagnostic`]s about
//! `metadata/bundle.yaml`; nothing prints.

use crate::bundle::annotations::SEED_MEDIATYPE_LABEL;
use crate::bundle::rules::{
    finding, BUNDLE_YAML_DESCRIPTOR_PATH, BUNDLE_YAML_DUPLICATE_KEY, BUNDLE_YAML_FIELD_INVALID,
    BUNDLE_YAML_FIELD_UNKNOWN, BUNDLE_YAML_INVALID, BUNDLE_YAML_MISSING,
};
use crate::diag::Diagnostic;
use crate::encoding::json::go_quote;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Where the file lives in a bundle.
pub const FILE: &str = "metadata/bundle.yaml";

/// Every rule of this module.
pub const RULES: &[&str] = &[
    BUNDLE_YAML_MISSING,
    BUNDLE_YAML_INVALID,
    BUNDLE_YAML_DUPLICATE_KEY,
    BUNDLE_YAML_FIELD_INVALID,
    BUNDLE_YAML_FIELD_UNKNOWN,
    BUNDLE_YAML_DESCRIPTOR_PATH,
];

/// The contents of `bundle.yaml`. Values copied into the CSV unchanged keep
/// their JSON form (already checked for shape).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BundleMeta {
    pub name: String,
    pub version: String,
    pub min_kube_version: Option<String>,
    pub description: Option<String>,
    pub display_name: Option<String>,
    pub keywords: Vec<String>,
    pub labels: BTreeMap<String, String>,
    /// `[{name, url}]`.
    pub links: Vec<Value>,
    /// `[{name, email}]`.
    pub maintainers: Vec<Value>,
    pub maturity: Option<String>,
    /// `{name, url}`.
    pub provider: Option<Value>,
    /// A label selector.
    pub selector: Option<Value>,
    /// `[{base64data, mediatype}]`.
    pub icon: Vec<Value>,
    pub apis: Vec<ApiDescription>,
}

/// An entry of `apis`: how an owned API is described.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ApiDescription {
    /// `group/version`.
    pub api_version: String,
    pub kind: String,
    pub description: Option<String>,
    pub display_name: Option<String>,
    /// `[{kind, version}]`: the resources instances of the API create.
    pub resources: Vec<Value>,
    pub descriptors: Vec<Descriptor>,
}

impl ApiDescription {
    /// The group of `apiVersion` (`""` for the core group).
    pub fn group(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map(|(group, _)| group)
            .unwrap_or("")
    }

    /// The version of `apiVersion`.
    pub fn version(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map(|(_, version)| version)
            .unwrap_or(&self.api_version)
    }
}

/// Which part of an object a descriptor describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescriptorRoot {
    Spec,
    Status,
}

/// A field descriptor: `path` is relative to its root (`.spec.a.b` → `a.b`).
#[derive(Debug, Clone, PartialEq)]
pub struct Descriptor {
    pub root: DescriptorRoot,
    pub path: String,
    pub display_name: Option<String>,
    pub description: Option<String>,
    /// The CSV's `x-descriptors`.
    pub capabilities: Vec<String>,
}

/// Reads `bundle.yaml` from `bytes`. Errors (and warnings) go to `findings`;
/// `None` when the file cannot give a name and a version.
pub fn parse(bytes: &[u8], findings: &mut Vec<Diagnostic>) -> Option<BundleMeta> {
    let file = Some(FILE.to_string());
    if let Some(dup) = crate::encoding::yaml_read::first_duplicate_key(bytes) {
        let mut finding = finding(
            BUNDLE_YAML_DUPLICATE_KEY,
            format!(
                "{FILE}: line {}: key {} already set on line {}",
                dup.line,
                go_quote(&dup.key),
                dup.first_line
            ),
            file,
        );
        if let Some(location) = &mut finding.location {
            location.position = Some(crate::encoding::locate::Position {
                line: dup.line,
                column: 1,
            });
        }
        findings.push(finding);
        return None;
    }
    let value = match crate::encoding::yaml_read::yaml_bytes_to_json(bytes) {
        Ok(value) => value,
        Err(e) => {
            findings.push(finding(
                BUNDLE_YAML_INVALID,
                format!("{FILE}: {}", e.message()),
                file,
            ));
            return None;
        }
    };
    let Value::Object(map) = value else {
        findings.push(finding(
            BUNDLE_YAML_INVALID,
            format!(
                "{FILE}: expected a mapping with name and version, found {}",
                describe(&value)
            ),
            file,
        ));
        return None;
    };
    let mut reader = Reader {
        findings,
        failed: false,
    };
    let meta = reader.meta(&map);
    (!reader.failed).then_some(meta)
}

/// What a value is, for messages.
fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

struct Reader<'a> {
    findings: &'a mut Vec<Diagnostic>,
    failed: bool,
}

impl Reader<'_> {
    fn error(&mut self, rule: &'static str, message: String) {
        self.failed = true;
        self.findings.push(finding(
            rule,
            format!("{FILE}: {message}"),
            Some(FILE.into()),
        ));
    }

    fn invalid(&mut self, path: &str, message: impl std::fmt::Display) {
        self.error(BUNDLE_YAML_FIELD_INVALID, format!("{path}: {message}"));
    }

    fn wrong_type(&mut self, path: &str, expected: &str, found: &Value) {
        self.invalid(
            path,
            format!("expected {expected}, found {}", describe(found)),
        );
    }

    fn unknown(&mut self, path: &str) {
        self.findings.push(finding(
            BUNDLE_YAML_FIELD_UNKNOWN,
            format!("{FILE}: unknown field {} (ignored)", go_quote(path)),
            Some(FILE.into()),
        ));
    }

    /// An optional string; `null` is absent.
    fn string(&mut self, map: &Map<String, Value>, key: &str, path: &str) -> Option<String> {
        match map.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.wrong_type(path, "a string", other);
                None
            }
        }
    }

    fn required_string(&mut self, map: &Map<String, Value>, key: &str, path: &str) -> String {
        match self.string(map, key, path) {
            Some(s) if !s.trim().is_empty() => s,
            Some(_) => {
                self.invalid(path, "must not be empty");
                String::new()
            }
            None if matches!(map.get(key), None | Some(Value::Null)) => {
                self.invalid(path, "required field is missing");
                String::new()
            }
            None => String::new(),
        }
    }

    fn strings(&mut self, map: &Map<String, Value>, key: &str, path: &str) -> Vec<String> {
        match map.get(key) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) => out.push(s.clone()),
                        other => self.wrong_type(&format!("{path}[{i}]"), "a string", other),
                    }
                }
                out
            }
            Some(other) => {
                self.wrong_type(path, "a list of strings", other);
                Vec::new()
            }
        }
    }

    /// A list of mappings whose fields are all strings from `fields`
    /// (`required` ones must be present).
    fn records(
        &mut self,
        map: &Map<String, Value>,
        key: &str,
        fields: &[&str],
        required: &[&str],
    ) -> Vec<Value> {
        let items = match map.get(key) {
            None | Some(Value::Null) => return Vec::new(),
            Some(Value::Array(items)) => items,
            Some(other) => {
                self.wrong_type(key, "a list", other);
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let path = format!("{key}[{i}]");
            if let Some(record) = self.record(item, &path, fields, required) {
                out.push(record);
            }
        }
        out
    }

    fn record(
        &mut self,
        item: &Value,
        path: &str,
        fields: &[&str],
        required: &[&str],
    ) -> Option<Value> {
        let Value::Object(entry) = item else {
            self.wrong_type(path, "a mapping", item);
            return None;
        };
        let mut record = Map::new();
        for (field, value) in entry {
            let field_path = format!("{path}.{field}");
            if !fields.contains(&field.as_str()) {
                self.unknown(&field_path);
                continue;
            }
            match value {
                Value::Null => {}
                Value::String(s) => {
                    record.insert(field.clone(), Value::String(s.clone()));
                }
                other => self.wrong_type(&field_path, "a string", other),
            }
        }
        for field in required {
            if !record.contains_key(*field) {
                self.invalid(&format!("{path}.{field}"), "required field is missing");
            }
        }
        Some(Value::Object(record))
    }

    fn meta(&mut self, map: &Map<String, Value>) -> BundleMeta {
        const KNOWN: &[&str] = &[
            "name",
            "version",
            "minKubeVersion",
            "description",
            "displayName",
            "keywords",
            "labels",
            "links",
            "maintainers",
            "maturity",
            "provider",
            "selector",
            "icon",
            "apis",
            SEED_MEDIATYPE_LABEL,
        ];
        for key in map.keys() {
            if !KNOWN.contains(&key.as_str()) {
                self.unknown(key);
            }
        }
        if let Some(value) = map.get(SEED_MEDIATYPE_LABEL) {
            let ok = value
                .as_str()
                .and_then(crate::bundle::mediatype::MediaType::parse)
                .is_some();
            if !ok {
                self.invalid(
                    SEED_MEDIATYPE_LABEL,
                    format!(
                        "expected registry+v2 or plain+v0, found {}",
                        value
                            .as_str()
                            .map(go_quote)
                            .unwrap_or_else(|| describe(value).into())
                    ),
                );
            }
        }

        let name = self.required_string(map, "name", "name");
        if !name.is_empty() {
            let problems = crate::model::dns::dns1123_subdomain_errors(&name);
            if !problems.is_empty() {
                self.invalid(
                    "name",
                    format!("{}: {}", go_quote(&name), problems.join("; ")),
                );
            }
        }
        let version = self.required_string(map, "version", "version");
        if !version.is_empty() {
            if let Err(e) = crate::semver::Version::parse(&version) {
                self.invalid(
                    "version",
                    format!(
                        "{} is not a semantic version: {}",
                        go_quote(&version),
                        e.message()
                    ),
                );
            }
        }
        let min_kube_version = self.string(map, "minKubeVersion", "minKubeVersion");
        if let Some(v) = &min_kube_version {
            if let Err(e) = crate::semver::Version::parse(v) {
                self.invalid(
                    "minKubeVersion",
                    format!("{} is not a semantic version: {}", go_quote(v), e.message()),
                );
            }
        }
        let labels = self.labels(map);
        let provider = match map.get("provider") {
            None | Some(Value::Null) => None,
            Some(value) => self.record(value, "provider", &["name", "url"], &["name"]),
        };
        let selector = self.selector(map);
        BundleMeta {
            name,
            version,
            min_kube_version,
            description: self.string(map, "description", "description"),
            display_name: self.string(map, "displayName", "displayName"),
            keywords: self.strings(map, "keywords", "keywords"),
            labels,
            links: self.records(map, "links", &["name", "url"], &["url"]),
            maintainers: self.records(map, "maintainers", &["name", "email"], &["name"]),
            maturity: self.string(map, "maturity", "maturity"),
            provider,
            selector,
            icon: self.records(
                map,
                "icon",
                &["base64data", "mediatype"],
                &["base64data", "mediatype"],
            ),
            apis: self.apis(map),
        }
    }

    fn labels(&mut self, map: &Map<String, Value>) -> BTreeMap<String, String> {
        let mut labels = BTreeMap::new();
        match map.get("labels") {
            None | Some(Value::Null) => {}
            Some(Value::Object(entries)) => {
                for (key, value) in entries {
                    match value {
                        Value::String(s) => {
                            labels.insert(key.clone(), s.clone());
                        }
                        other => self.wrong_type(&format!("labels.{key}"), "a string", other),
                    }
                }
            }
            Some(other) => self.wrong_type("labels", "a mapping of strings", other),
        }
        labels
    }

    fn selector(&mut self, map: &Map<String, Value>) -> Option<Value> {
        let value = match map.get("selector") {
            None | Some(Value::Null) => return None,
            Some(value) => value,
        };
        let Value::Object(entries) = value else {
            self.wrong_type("selector", "a label selector", value);
            return None;
        };
        for (key, item) in entries {
            let path = format!("selector.{key}");
            match (key.as_str(), item) {
                ("matchLabels", Value::Object(labels)) => {
                    for (label, v) in labels {
                        if !v.is_string() {
                            self.wrong_type(&format!("{path}.{label}"), "a string", v);
                        }
                    }
                }
                ("matchExpressions", Value::Array(items)) => {
                    for (i, expression) in items.iter().enumerate() {
                        self.match_expression(expression, &format!("{path}[{i}]"));
                    }
                }
                ("matchLabels", other) => self.wrong_type(&path, "a mapping of strings", other),
                ("matchExpressions", other) => self.wrong_type(&path, "a list", other),
                _ => self.unknown(&path),
            }
        }
        Some(value.clone())
    }

    fn match_expression(&mut self, expression: &Value, path: &str) {
        let Value::Object(fields) = expression else {
            self.wrong_type(path, "a mapping", expression);
            return;
        };
        match fields.get("key") {
            Some(Value::String(_)) => {}
            Some(other) => self.wrong_type(&format!("{path}.key"), "a string", other),
            None => self.invalid(&format!("{path}.key"), "required field is missing"),
        }
        match fields.get("operator").and_then(Value::as_str) {
            Some("In" | "NotIn" | "Exists" | "DoesNotExist") => {}
            Some(other) => self.invalid(
                &format!("{path}.operator"),
                format!(
                    "{} is not one of In, NotIn, Exists, DoesNotExist",
                    go_quote(other)
                ),
            ),
            None => self.invalid(
                &format!("{path}.operator"),
                "required field is missing or not a string",
            ),
        }
        if let Some(values) = fields.get("values") {
            if !matches!(values, Value::Array(items) if items.iter().all(Value::is_string)) {
                self.wrong_type(&format!("{path}.values"), "a list of strings", values);
            }
        }
    }

    fn apis(&mut self, map: &Map<String, Value>) -> Vec<ApiDescription> {
        let items = match map.get("apis") {
            None | Some(Value::Null) => return Vec::new(),
            Some(Value::Array(items)) => items,
            Some(other) => {
                self.wrong_type("apis", "a list", other);
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let path = format!("apis[{i}]");
            let Value::Object(entry) = item else {
                self.wrong_type(&path, "a mapping", item);
                continue;
            };
            const KNOWN: &[&str] = &[
                "apiVersion",
                "kind",
                "description",
                "displayName",
                "version",
                "resources",
                "descriptors",
            ];
            for key in entry.keys() {
                if !KNOWN.contains(&key.as_str()) {
                    self.unknown(&format!("{path}.{key}"));
                }
            }
            let api_version =
                self.required_string(entry, "apiVersion", &format!("{path}.apiVersion"));
            let kind = self.required_string(entry, "kind", &format!("{path}.kind"));
            let mut api = ApiDescription {
                api_version,
                kind,
                description: self.string(entry, "description", &format!("{path}.description")),
                display_name: self.string(entry, "displayName", &format!("{path}.displayName")),
                resources: Vec::new(),
                descriptors: Vec::new(),
            };
            if !api.api_version.is_empty()
                && (api.version().is_empty() || api.api_version.matches('/').count() > 1)
            {
                self.invalid(
                    &format!("{path}.apiVersion"),
                    format!("{} is not group/version", go_quote(&api.api_version)),
                );
            }
            if let Some(version) = self.string(entry, "version", &format!("{path}.version")) {
                if !api.api_version.is_empty() && version != api.version() {
                    self.invalid(
                        &format!("{path}.version"),
                        format!(
                            "{} differs from the version of apiVersion {}",
                            go_quote(&version),
                            go_quote(&api.api_version)
                        ),
                    );
                }
            }
            api.resources = match entry.get("resources") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(resources)) => {
                    let mut list = Vec::new();
                    for (j, resource) in resources.iter().enumerate() {
                        if let Some(r) = self.record(
                            resource,
                            &format!("{path}.resources[{j}]"),
                            &["kind", "version", "name"],
                            &["kind", "version"],
                        ) {
                            list.push(r);
                        }
                    }
                    list
                }
                Some(other) => {
                    self.wrong_type(&format!("{path}.resources"), "a list", other);
                    Vec::new()
                }
            };
            api.descriptors = self.descriptors(entry, &path);
            out.push(api);
        }
        out
    }

    fn descriptors(&mut self, entry: &Map<String, Value>, api_path: &str) -> Vec<Descriptor> {
        let path = format!("{api_path}.descriptors");
        let items = match entry.get("descriptors") {
            None | Some(Value::Null) => return Vec::new(),
            Some(Value::Array(items)) => items,
            Some(other) => {
                self.wrong_type(&path, "a list", other);
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let path = format!("{path}[{i}]");
            let Value::Object(fields) = item else {
                self.wrong_type(&path, "a mapping", item);
                continue;
            };
            for key in fields.keys() {
                if !["displayName", "description", "path", "capabilities"].contains(&key.as_str()) {
                    self.unknown(&format!("{path}.{key}"));
                }
            }
            let display_name = self.string(fields, "displayName", &format!("{path}.displayName"));
            let description = self.string(fields, "description", &format!("{path}.description"));
            let capabilities =
                self.strings(fields, "capabilities", &format!("{path}.capabilities"));
            let raw = self.required_string(fields, "path", &format!("{path}.path"));
            if raw.is_empty() {
                continue;
            }
            match split_descriptor_path(&raw) {
                Some((root, rest)) => out.push(Descriptor {
                    root,
                    path: rest.to_string(),
                    display_name,
                    description,
                    capabilities,
                }),
                None => self.error(
                    BUNDLE_YAML_DESCRIPTOR_PATH,
                    format!(
                        "{path}.path: {} must name a field under .spec or .status (action descriptors are not supported)",
                        go_quote(&raw)
                    ),
                ),
            }
        }
        out
    }
}

/// `.spec.a.b` or `spec.a.b` → (Spec, `a.b`); the same for `status`. A path
/// with nothing after its root, or another root, is `None`.
pub fn split_descriptor_path(path: &str) -> Option<(DescriptorRoot, &str)> {
    let trimmed = path.strip_prefix('.').unwrap_or(path);
    for (prefix, root) in [
        ("spec.", DescriptorRoot::Spec),
        ("status.", DescriptorRoot::Status),
    ] {
        if let Some(rest) = trimmed.strip_prefix(prefix) {
            if !rest.is_empty() && !rest.starts_with('.') {
                return Some((root, rest));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (Option<BundleMeta>, Vec<String>) {
        let mut findings = Vec::new();
        let meta = parse(text.as_bytes(), &mut findings);
        (meta, findings.into_iter().map(|f| f.message).collect())
    }

    #[test]
    fn name_and_version_are_required() {
        let (meta, messages) = read("name: a.v1.0.0\nversion: 1.0.0\n");
        assert_eq!(meta.unwrap().version, "1.0.0");
        assert!(messages.is_empty(), "{messages:?}");
        let (meta, messages) = read("displayName: A\n");
        assert!(meta.is_none());
        assert_eq!(
            messages,
            [
                "metadata/bundle.yaml: name: required field is missing",
                "metadata/bundle.yaml: version: required field is missing"
            ]
        );
        let (_, messages) = read("name: a\nversion: v1.0\n");
        assert!(
            messages[0].contains("\"v1.0\" is not a semantic version"),
            "{messages:?}"
        );
    }

    #[test]
    fn duplicate_keys_name_the_key_and_lines() {
        let (meta, messages) = read("name: a\nversion: 1.9.1\nkeywords: [x]\nversion: 1.9.1\n");
        assert!(meta.is_none());
        assert_eq!(
            messages,
            ["metadata/bundle.yaml: line 4: key \"version\" already set on line 2"]
        );
    }

    #[test]
    fn fields_are_typed_and_unknown_ones_warned() {
        let (meta, messages) = read(
            "name: a\nversion: 1.0.0\nkeywords: x\nmaintainers: [{name: me, email: e, phone: p}]\nfoo: 1\n",
        );
        assert!(meta.is_none());
        assert_eq!(
            messages,
            [
                "metadata/bundle.yaml: unknown field \"foo\" (ignored)",
                "metadata/bundle.yaml: keywords: expected a list of strings, found a string",
                "metadata/bundle.yaml: unknown field \"maintainers[0].phone\" (ignored)",
            ]
        );
    }

    #[test]
    fn descriptor_paths_start_at_spec_or_status() {
        assert_eq!(
            split_descriptor_path(".spec.auth.strategy"),
            Some((DescriptorRoot::Spec, "auth.strategy"))
        );
        assert_eq!(
            split_descriptor_path("status.phase"),
            Some((DescriptorRoot::Status, "phase"))
        );
        for bad in ["title", "spec", ".spec.", "specs.x", "metadata.name", ""] {
            assert_eq!(split_descriptor_path(bad), None, "{bad}");
        }
        let (meta, messages) = read(
            "name: a\nversion: 1.0.0\napis:\n- apiVersion: x.io/v1\n  kind: X\n  descriptors:\n  - path: title\n",
        );
        assert!(meta.is_none());
        assert!(
            messages[0].contains(
                "apis[0].descriptors[0].path: \"title\" must name a field under .spec or .status"
            ),
            "{messages:?}"
        );
    }
}
