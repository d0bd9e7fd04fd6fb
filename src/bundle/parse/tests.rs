use super::*;

#[test]
fn kubernetes_objects() {
    let cases: &[(&str, bool)] = &[
        (r#"{"kind":"A","apiVersion":"v1"}"#, true),
        (r#"{"kind":"A"}"#, true),
        (r#"{"kind":"","apiVersion":"v1"}"#, false),
        (r#"{"kind":5}"#, false),
        (r#"{"apiVersion":"v1"}"#, false),
        (r#"{"kind":"A","apiVersion":"a/b/c"}"#, false),
        (r#"[{"kind":"A"}]"#, false),
        ("null", false),
    ];
    for (text, want) in cases {
        let v: Value = serde_json::from_str(text).unwrap();
        assert_eq!(is_object(&v), *want, "{text}");
    }
}

#[test]
fn releases() {
    let cases: &[(&str, Result<&str, &str>)] = &[
        (r#"{"spec":{}}"#, Ok("")),
        (r#"{"spec":{"release":"2"}}"#, Ok("2")),
        (r#"{"spec":{"release":3}}"#, Ok("3")),
        (r#"{"spec":{"release":3.0}}"#, Ok("3")),
        (r#"{"spec":{"release":1.5}}"#, Ok("1.5")),
        (
            r#"{"spec":{"release":true}}"#,
            Err("release field must be a string or number"),
        ),
        (r#"{}"#, Err("unexpected end of JSON input")),
    ];
    for (csv, want) in cases {
        let v: Value = serde_json::from_str(csv).unwrap();
        assert_eq!(
            csv_release(&v).map_err(|e| e.to_string()).as_deref(),
            want.map_err(str::to_string).as_deref(),
            "{csv}"
        );
    }
}

#[test]
fn annotation_files() {
    type Case = (
        &'static str,
        bool,
        Option<(&'static str, &'static str, &'static str)>,
    );
    let cases: &[Case] = &[
        (
            r#"{"annotations":{"operators.operatorframework.io.bundle.package.v1":"p"}}"#,
            false,
            Some(("p", "", "")),
        ),
        (
            r#"{"Annotations":{"operators.operatorframework.io.bundle.channels.v1":"a,b"}}"#,
            false,
            Some(("", "a,b", "")),
        ),
        (
            r#"{"annotations":{"operators.operatorframework.io.bundle.package.v1":1}}"#,
            true,
            Some(("1", "", "")),
        ),
        (
            r#"{"annotations":{"operators.operatorframework.io.bundle.package.v1":1}}"#,
            false,
            None,
        ),
        (r#"{"annotations":[]}"#, false, None),
        (r#"[]"#, false, None),
        (r#"{"other":1}"#, false, Some(("", "", ""))),
    ];
    for (text, from_yaml, want) in cases {
        let got = crate::bundle::annotations::decode_fields(&RawDoc {
            text: text.to_string(),
            from_yaml: *from_yaml,
        })
        .map(|a| (a.package, a.channels, a.default_channel));
        let want = want.map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()));
        assert_eq!(got, want, "{text}");
    }
}

#[test]
fn owned_crd_check() {
    let provided: BTreeSet<ApiKey> = [ApiKey {
        group: "g.io".into(),
        version: "v1".into(),
        kind: "K".into(),
        plural: "ks".into(),
    }]
    .into_iter()
    .collect();
    let cases: &[(&str, Result<(), &str>)] = &[
            (r#"{"spec":{"customresourcedefinitions":{"owned":[{"name":"ks.g.io","version":"v1","kind":"K"}]}}}"#, Ok(())),
            (
                r#"{"spec":{"customresourcedefinitions":{"owned":[{"name":"xs.g.io","version":"v1","kind":"X"}]}}}"#,
                Err("couldn't find g.io/v1/X (xs) in bundle. found: map[g.io/v1/K (ks):{}]"),
            ),
            (
                r#"{"spec":{"customresourcedefinitions":{"owned":[{"name":"ks","version":"v1","kind":"K"}]}}}"#,
                Err("couldn't parse plural.group from crd name: ks"),
            ),
            (
                r#"{"spec":{"customresourcedefinitions":{"owned":[null]}}}"#,
                Err("couldn't parse plural.group from crd name: "),
            ),
            (
                r#"{"spec":{"customresourcedefinitions":{"owned":{}}}}"#,
                Err("json: cannot unmarshal object into Go struct field .owned of type []*registry.DefinitionKey"),
            ),
        ];
    for (csv, want) in cases {
        let v: Value = serde_json::from_str(csv).unwrap();
        assert_eq!(
            check_owned_crds(&v, &provided).map_err(|e| e.to_string()),
            want.map_err(str::to_string),
            "{csv}"
        );
    }
}
