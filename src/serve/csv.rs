//! The ClusterServiceVersion that upstream writes for a bundle that has no CSV
//! object but an `olm.csv.metadata` property (`pkg/api/model_to_api.go`): the
//! metadata decoded into its Go types and marshalled again as a `v1alpha1`
//! ClusterServiceVersion, with Go's field order, `omitempty` rules and HTML
//! escaping. No I/O.

use crate::declcfg::{Icon, RelatedImage};
use crate::encoding::json::write_compact;
use crate::property::csv_metadata::{
    api_service_description, app_link, crd_description, field, group_version_kind, install_mode,
    maintainer, owned_required, put_list, put_str, put_string_map, string_of,
};
use serde_json::{Map, Value};

/// What the CSV is made of besides the metadata.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// The bundle's name (the CSV's `metadata.name`).
    pub name: &'a str,
    /// The bundle's version, canonical.
    pub version: &'a str,
    /// The package icon, if the package has one.
    pub icon: Option<&'a Icon>,
    /// Used when the metadata has no description.
    pub package_description: &'a str,
    pub related_images: &'a [RelatedImage],
}

/// The CSV as upstream's `json.Marshal` writes it.
pub fn synthesize(metadata: &Value, facts: Facts<'_>) -> String {
    let mut object_meta = Map::new();
    object_meta.insert("name".into(), Value::String(facts.name.to_string()));
    put_string_map(&mut object_meta, "labels", field(metadata, "labels"));
    put_string_map(
        &mut object_meta,
        "annotations",
        field(metadata, "annotations"),
    );

    let mut spec = Map::new();
    spec.insert(
        "install".into(),
        serde_json::json!({"strategy": "deployment", "spec": {"deployments": null}}),
    );
    spec.insert("version".into(), Value::String(facts.version.to_string()));
    put_str(&mut spec, "maturity", Some(metadata), "maturity");
    spec.insert(
        "customresourcedefinitions".into(),
        owned_required(field(metadata, "crdDescriptions"), crd_description),
    );
    spec.insert(
        "apiservicedefinitions".into(),
        owned_required(
            field(metadata, "apiServiceDefinitions"),
            api_service_description,
        ),
    );
    put_list(
        &mut spec,
        "nativeAPIs",
        field(metadata, "nativeAPIs"),
        group_version_kind,
    );
    put_str(
        &mut spec,
        "minKubeVersion",
        Some(metadata),
        "minKubeVersion",
    );
    spec.insert(
        "displayName".into(),
        Value::String(string_of(field(metadata, "displayName"))),
    );
    let mut description = string_of(field(metadata, "description"));
    if description.is_empty() {
        description = facts.package_description.to_string();
    }
    if !description.is_empty() {
        spec.insert("description".into(), Value::String(description));
    }
    put_list(&mut spec, "keywords", field(metadata, "keywords"), |v| {
        Value::String(string_of(Some(v)))
    });
    put_list(
        &mut spec,
        "maintainers",
        field(metadata, "maintainers"),
        maintainer,
    );
    spec.insert(
        "provider".into(),
        app_link(field(metadata, "provider").unwrap_or(&Value::Null)),
    );
    put_list(&mut spec, "links", field(metadata, "links"), app_link);
    if let Some(icon) = facts.icon {
        spec.insert(
            "icon".into(),
            serde_json::json!([{
                "base64data": icon.base64.clone().unwrap_or_default(),
                "mediatype": icon.media_type,
            }]),
        );
    }
    put_list(
        &mut spec,
        "installModes",
        field(metadata, "installModes"),
        install_mode,
    );
    spec.insert("cleanup".into(), serde_json::json!({"enabled": false}));
    if !facts.related_images.is_empty() {
        let images = facts
            .related_images
            .iter()
            .map(|image| serde_json::json!({"name": image.name, "image": image.image}))
            .collect();
        spec.insert("relatedImages".into(), Value::Array(images));
    }

    let mut csv = Map::new();
    csv.insert("kind".into(), Value::from("ClusterServiceVersion"));
    csv.insert(
        "apiVersion".into(),
        Value::from("operators.coreos.com/v1alpha1"),
    );
    csv.insert("metadata".into(), Value::Object(object_meta));
    csv.insert("spec".into(), Value::Object(spec));
    csv.insert("status".into(), serde_json::json!({"cleanup": {}}));
    let mut out = String::new();
    write_compact(&Value::Object(csv), &mut out, true);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_metadata() {
        let metadata =
            serde_json::json!({"apiServiceDefinitions": {}, "crdDescriptions": {}, "provider": {}});
        let csv = synthesize(
            &metadata,
            Facts {
                name: "foo.v1.0.0",
                version: "1.0.0",
                icon: None,
                package_description: "",
                related_images: &[],
            },
        );
        assert_eq!(
            csv,
            r#"{"kind":"ClusterServiceVersion","apiVersion":"operators.coreos.com/v1alpha1","metadata":{"name":"foo.v1.0.0"},"spec":{"install":{"strategy":"deployment","spec":{"deployments":null}},"version":"1.0.0","customresourcedefinitions":{},"apiservicedefinitions":{},"displayName":"","provider":{},"cleanup":{"enabled":false}},"status":{"cleanup":{}}}"#
        );
    }

    #[test]
    fn full_metadata_in_go_field_order() {
        let metadata = serde_json::json!({
            "annotations": {"b": "2", "a": "<1>"},
            "labels": {"l": "v"},
            "crdDescriptions": {"owned": [{"name": "fs.x", "version": "v1", "kind": "F"}]},
            "apiServiceDefinitions": {},
            "displayName": "Foo",
            "installModes": [{"type": "OwnNamespace", "supported": true}],
            "keywords": ["k"],
            "links": [{"name": "home", "url": "https://x"}],
            "maintainers": [{"name": "m", "email": "e"}],
            "maturity": "alpha",
            "minKubeVersion": "1.20.0",
            "nativeAPIs": [{"group": "", "version": "v1", "kind": "Pod"}],
            "provider": {"name": "P"}
        });
        let icon = Icon {
            base64: Some("aWNvbg==".into()),
            media_type: "image/png".into(),
        };
        let related = [RelatedImage {
            name: "op".into(),
            image: "quay.io/x/op@sha256:00".into(),
        }];
        let csv = synthesize(
            &metadata,
            Facts {
                name: "foo.v1.0.0",
                version: "1.0.0-rc.1",
                icon: Some(&icon),
                package_description: "from the package",
                related_images: &related,
            },
        );
        assert_eq!(
            csv,
            concat!(
                r#"{"kind":"ClusterServiceVersion","apiVersion":"operators.coreos.com/v1alpha1","#,
                r#""metadata":{"name":"foo.v1.0.0","labels":{"l":"v"},"annotations":{"a":"\u003c1\u003e","b":"2"}},"#,
                r#""spec":{"install":{"strategy":"deployment","spec":{"deployments":null}},"version":"1.0.0-rc.1","#,
                r#""maturity":"alpha","customresourcedefinitions":{"owned":[{"name":"fs.x","version":"v1","kind":"F"}]},"#,
                r#""apiservicedefinitions":{},"nativeAPIs":[{"group":"","version":"v1","kind":"Pod"}],"#,
                r#""minKubeVersion":"1.20.0","displayName":"Foo","description":"from the package","keywords":["k"],"#,
                r#""maintainers":[{"name":"m","email":"e"}],"provider":{"name":"P"},"links":[{"name":"home","url":"https://x"}],"#,
                r#""icon":[{"base64data":"aWNvbg==","mediatype":"image/png"}],"#,
                r#""installModes":[{"type":"OwnNamespace","supported":true}],"cleanup":{"enabled":false},"#,
                r#""relatedImages":[{"name":"op","image":"quay.io/x/op@sha256:00"}]},"status":{"cleanup":{}}}"#
            )
        );
    }
}
