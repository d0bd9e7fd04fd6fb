//! The `olm.csv.metadata` property value built from a ClusterServiceVersion
//! (fbc.md §5.8), byte-compatible with upstream's `MustBuildCSVMetadata`.
//!
//! Upstream decodes the CSV JSON into its typed Go structs and marshals a
//! subset of them again, so the value has Go's shape:
//!
//! * keys come in Go struct field order, not input order;
//! * `omitempty` fields are left out when empty (empty string, zero number,
//!   empty or absent list or map); `apiServiceDefinitions`, `crdDescriptions`
//!   and `provider` are structs, which `omitempty` never drops, so they are
//!   always present (possibly as `{}`);
//! * `annotations` and `labels` are Go maps, written with sorted keys;
//! * unknown fields are dropped, and JSON keys match struct fields
//!   case-insensitively (the last matching key wins), as in `encoding/json`;
//! * descriptor `value` fields are raw JSON and are copied as they are.
//!
//! Wrong types: Go's decoder leaves a field whose JSON value has the wrong
//! type at its zero value, keeps decoding the rest, and reports the first such
//! mismatch at the end (upstream then fails the migration). This function
//! returns that best-effort result instead of failing: a mismatched field
//! takes its Go zero value (an absent string, `false`, `0`, an empty list or
//! map, an all-zero struct for a list element), and `null` behaves as in Go
//! (zero value). It never fails and never panics.

use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The `olm.csv.metadata` value upstream builds from a CSV, keys in Go struct
/// order (fbc.md §5.8).
pub fn csv_metadata(csv: &Value) -> Value {
    let metadata = field(csv, "metadata");
    let spec = field(csv, "spec");
    let mut out = Map::new();
    put_string_map(
        &mut out,
        "annotations",
        metadata.and_then(|m| field(m, "annotations")),
    );
    out.insert(
        "apiServiceDefinitions".into(),
        owned_required(
            spec.and_then(|s| field(s, "apiservicedefinitions")),
            api_service_description,
        ),
    );
    out.insert(
        "crdDescriptions".into(),
        owned_required(
            spec.and_then(|s| field(s, "customresourcedefinitions")),
            crd_description,
        ),
    );
    put_str(&mut out, "description", spec, "description");
    put_str(&mut out, "displayName", spec, "displayName");
    put_list(
        &mut out,
        "installModes",
        spec.and_then(|s| field(s, "installModes")),
        install_mode,
    );
    put_list(
        &mut out,
        "keywords",
        spec.and_then(|s| field(s, "keywords")),
        |v| Value::String(string_of(Some(v))),
    );
    put_string_map(
        &mut out,
        "labels",
        metadata.and_then(|m| field(m, "labels")),
    );
    put_list(
        &mut out,
        "links",
        spec.and_then(|s| field(s, "links")),
        app_link,
    );
    put_list(
        &mut out,
        "maintainers",
        spec.and_then(|s| field(s, "maintainers")),
        maintainer,
    );
    put_str(&mut out, "maturity", spec, "maturity");
    put_str(&mut out, "minKubeVersion", spec, "minKubeVersion");
    put_list(
        &mut out,
        "nativeAPIs",
        spec.and_then(|s| field(s, "nativeAPIs")),
        group_version_kind,
    );
    out.insert(
        "provider".into(),
        app_link(
            spec.and_then(|s| field(s, "provider"))
                .unwrap_or(&Value::Null),
        ),
    );
    Value::Object(out)
}

// The pieces below decode one Go type each; `opm serve` also uses them to
// write a ClusterServiceVersion back from an `olm.csv.metadata` value.

/// `InstallMode`: `{type, supported}`.
pub(crate) fn install_mode(m: &Value) -> Value {
    let mut o = Map::new();
    o.insert("type".into(), Value::String(string_of(field(m, "type"))));
    o.insert(
        "supported".into(),
        Value::Bool(matches!(field(m, "supported"), Some(Value::Bool(true)))),
    );
    Value::Object(o)
}

/// `Maintainer`: `{name?, email?}`.
pub(crate) fn maintainer(m: &Value) -> Value {
    let mut o = Map::new();
    put_str(&mut o, "name", Some(m), "name");
    put_str(&mut o, "email", Some(m), "email");
    Value::Object(o)
}

/// `metav1.GroupVersionKind`: `{group, version, kind}`.
pub(crate) fn group_version_kind(m: &Value) -> Value {
    let mut o = Map::new();
    for key in ["group", "version", "kind"] {
        o.insert(key.into(), Value::String(string_of(field(m, key))));
    }
    Value::Object(o)
}

/// The value of the last key of `v` (an object) that matches `name` the way
/// Go's `encoding/json` matches struct fields: case-insensitively.
pub(crate) fn field<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    let Value::Object(map) = v else { return None };
    map.iter()
        .rfind(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
}

/// A Go `string` field: anything but a JSON string decodes to `""`.
pub(crate) fn string_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    }
}

/// A `string` field tagged `omitempty`.
pub(crate) fn put_str(out: &mut Map<String, Value>, key: &str, from: Option<&Value>, name: &str) {
    let s = string_of(from.and_then(|f| field(f, name)));
    if !s.is_empty() {
        out.insert(key.into(), Value::String(s));
    }
}

/// A `map[string]string` field tagged `omitempty`: written with sorted keys;
/// values of other types decode to `""` (Go keeps the key).
pub(crate) fn put_string_map(out: &mut Map<String, Value>, key: &str, from: Option<&Value>) {
    let Some(Value::Object(map)) = from else {
        return;
    };
    if map.is_empty() {
        return;
    }
    let sorted: BTreeMap<&String, String> =
        map.iter().map(|(k, v)| (k, string_of(Some(v)))).collect();
    let mut o = Map::new();
    for (k, v) in sorted {
        o.insert(k.clone(), Value::String(v));
    }
    out.insert(key.into(), Value::Object(o));
}

/// A slice field tagged `omitempty`; `element` builds each element (a null or
/// wrongly typed element is passed as `null` and becomes the zero element).
pub(crate) fn put_list(
    out: &mut Map<String, Value>,
    key: &str,
    from: Option<&Value>,
    element: impl Fn(&Value) -> Value,
) {
    let Some(Value::Array(items)) = from else {
        return;
    };
    if items.is_empty() {
        return;
    }
    let list = items.iter().map(element).collect();
    out.insert(key.into(), Value::Array(list));
}

/// `AppLink`: `{name?, url?}`.
pub(crate) fn app_link(v: &Value) -> Value {
    let mut o = Map::new();
    put_str(&mut o, "name", Some(v), "name");
    put_str(&mut o, "url", Some(v), "url");
    Value::Object(o)
}

/// `CustomResourceDefinitions` / `APIServiceDefinitions`: `{owned?, required?}`.
pub(crate) fn owned_required(from: Option<&Value>, element: fn(&Value) -> Value) -> Value {
    let mut o = Map::new();
    if let Some(defs) = from {
        put_list(&mut o, "owned", field(defs, "owned"), element);
        put_list(&mut o, "required", field(defs, "required"), element);
    }
    Value::Object(o)
}

/// `CRDDescription`.
pub(crate) fn crd_description(v: &Value) -> Value {
    let mut o = Map::new();
    for key in ["name", "version", "kind"] {
        o.insert(key.into(), Value::String(string_of(field(v, key))));
    }
    put_str(&mut o, "displayName", Some(v), "displayName");
    put_str(&mut o, "description", Some(v), "description");
    descriptor_lists(&mut o, v);
    Value::Object(o)
}

/// `APIServiceDescription`.
pub(crate) fn api_service_description(v: &Value) -> Value {
    let mut o = Map::new();
    for key in ["name", "group", "version", "kind"] {
        o.insert(key.into(), Value::String(string_of(field(v, key))));
    }
    put_str(&mut o, "deploymentName", Some(v), "deploymentName");
    // An int32: Go rejects fractions, exponents and out-of-range numbers.
    if let Some(Value::Number(n)) = field(v, "containerPort") {
        if let Some(port) = n.as_i64().filter(|p| i32::try_from(*p).is_ok() && *p != 0) {
            o.insert("containerPort".into(), Value::from(port));
        }
    }
    put_str(&mut o, "displayName", Some(v), "displayName");
    put_str(&mut o, "description", Some(v), "description");
    descriptor_lists(&mut o, v);
    Value::Object(o)
}

/// The fields shared by both descriptions, in Go order.
fn descriptor_lists(o: &mut Map<String, Value>, v: &Value) {
    put_list(o, "resources", field(v, "resources"), |r| {
        let mut ro = Map::new();
        for key in ["name", "kind", "version"] {
            ro.insert(key.into(), Value::String(string_of(field(r, key))));
        }
        Value::Object(ro)
    });
    put_list(
        o,
        "statusDescriptors",
        field(v, "statusDescriptors"),
        descriptor,
    );
    put_list(
        o,
        "specDescriptors",
        field(v, "specDescriptors"),
        descriptor,
    );
    put_list(
        o,
        "actionDescriptors",
        field(v, "actionDescriptors"),
        descriptor,
    );
}

/// `StatusDescriptor` / `SpecDescriptor` / `ActionDescriptor`.
fn descriptor(v: &Value) -> Value {
    let mut o = Map::new();
    o.insert("path".into(), Value::String(string_of(field(v, "path"))));
    put_str(&mut o, "displayName", Some(v), "displayName");
    put_str(&mut o, "description", Some(v), "description");
    put_list(&mut o, "x-descriptors", field(v, "x-descriptors"), |x| {
        Value::String(string_of(Some(x)))
    });
    // json.RawMessage: any present value (even null) is kept verbatim.
    if let Some(raw) = field(v, "value") {
        o.insert("value".into(), raw.clone());
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(csv: &str) -> String {
        let v: Value = serde_json::from_str(csv).unwrap();
        let mut s = String::new();
        crate::encoding::json::write_compact(&csv_metadata(&v), &mut s, false);
        s
    }

    #[test]
    fn table() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "empty object",
                r#"{}"#,
                r#"{"apiServiceDefinitions":{},"crdDescriptions":{},"provider":{}}"#,
            ),
            (
                "not an object",
                r#"[1,2]"#,
                r#"{"apiServiceDefinitions":{},"crdDescriptions":{},"provider":{}}"#,
            ),
            (
                "maps sorted, empties omitted",
                r#"{"metadata":{"annotations":{"z":"1","a":"2","n":5},"labels":{}},"spec":{"keywords":[],"description":""}}"#,
                r#"{"annotations":{"a":"2","n":"","z":"1"},"apiServiceDefinitions":{},"crdDescriptions":{},"provider":{}}"#,
            ),
            (
                "field order and case-insensitive keys",
                r#"{"spec":{"Provider":{"url":"u","name":"n"},"maturity":"alpha","displayname":"D","displayName":"E","installModes":[{"supported":true,"type":"OwnNamespace"},null],"nativeAPIs":[{"kind":"K","group":"g"}],"links":[{"url":"x"}],"maintainers":[{"email":"e","name":"m"}],"minKubeVersion":"1.20"}}"#,
                r#"{"apiServiceDefinitions":{},"crdDescriptions":{},"displayName":"E","installModes":[{"type":"OwnNamespace","supported":true},{"type":"","supported":false}],"links":[{"url":"x"}],"maintainers":[{"name":"m","email":"e"}],"maturity":"alpha","minKubeVersion":"1.20","nativeAPIs":[{"group":"g","version":"","kind":"K"}],"provider":{"name":"n","url":"u"}}"#,
            ),
            (
                "crd and apiservice descriptions",
                r#"{"spec":{"customresourcedefinitions":{"required":[{"kind":"R","name":"rs.x","version":"v1"}],"owned":[{"version":"v1","kind":"F","name":"fs.x","specDescriptors":[{"value":{"z":1,"a":null},"x-descriptors":["a",3],"path":"p"}],"resources":[{"version":"v1","kind":"Pod"}],"bogus":1}]},"apiservicedefinitions":{"owned":[{"group":"g","containerPort":8443,"deploymentName":"d","name":"n","kind":"K","version":"v1","actionDescriptors":[{"path":"a","value":null}]},{"containerPort":1.5}]}}}"#,
                r#"{"apiServiceDefinitions":{"owned":[{"name":"n","group":"g","version":"v1","kind":"K","deploymentName":"d","containerPort":8443,"actionDescriptors":[{"path":"a","value":null}]},{"name":"","group":"","version":"","kind":""}]},"crdDescriptions":{"owned":[{"name":"fs.x","version":"v1","kind":"F","resources":[{"name":"","kind":"Pod","version":"v1"}],"specDescriptors":[{"path":"p","x-descriptors":["a",""],"value":{"z":1,"a":null}}]}],"required":[{"name":"rs.x","version":"v1","kind":"R"}]},"provider":{}}"#,
            ),
        ];
        for (name, input, want) in cases {
            assert_eq!(render(input), *want, "{name}");
        }
    }
}
