//! Upstream's property lists as Go decodes them: `{type, value}` entries
//! whose values keep their exact JSON text, and the typed property values
//! (`property.GVK`, `property.Package`) decoded with
//! [`crate::encoding::gojson`]'s rules.

use crate::encoding::gojson::{shape, string_field, GoJsonError, GoStruct, Shape, Target};

/// A `{type, value}` entry with its value's exact JSON text (`None` when the
/// key was absent: a nil `json.RawMessage`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawProperty {
    pub kind: String,
    pub value: Option<String>,
}

impl RawProperty {
    pub(crate) fn new(kind: &str, value: String) -> RawProperty {
        RawProperty {
            kind: kind.to_string(),
            value: Some(value),
        }
    }

    /// The text the property sorts and de-duplicates by (nil sorts first).
    pub(crate) fn value_text(&self) -> &str {
        self.value.as_deref().unwrap_or("")
    }
}

/// Decodes a JSON array into Go's `[]Property` (`elem` names the element type
/// in messages). Returns what Go decodes and Go's first type error, if any.
/// `None` for invalid JSON.
pub(crate) fn property_list(
    text: &str,
    coerce: bool,
    elem: &str,
) -> Option<(Vec<RawProperty>, Option<GoJsonError>)> {
    let mut first_error = None;
    let note = |e: GoJsonError, first: &mut Option<GoJsonError>| {
        first.get_or_insert(e);
    };
    let list = || Target::value(format!("[]{elem}"));
    let items = match shape(text)? {
        Shape::Null => return Some((Vec::new(), None)),
        Shape::Array(items) => items,
        Shape::Object(_) => {
            return Some((Vec::new(), Some(GoJsonError::unmarshal("object", list()))));
        }
        Shape::Scalar(v) => return Some((Vec::new(), Some(GoJsonError::mismatch(&v, list())))),
    };
    let short = elem.rsplit('.').next().unwrap_or(elem);
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let mut prop = RawProperty {
            kind: String::new(),
            value: None,
        };
        match shape(item.get()) {
            Some(Shape::Object(entries)) => {
                for (key, raw) in entries {
                    if key.eq_ignore_ascii_case("type") {
                        match string_field(&raw, coerce, &format!("{short}.type")) {
                            Ok(Some(s)) => prop.kind = s,
                            Ok(None) => {}
                            Err(e) => note(e, &mut first_error),
                        }
                    } else if key.eq_ignore_ascii_case("value") {
                        prop.value = Some(raw.get().to_string());
                    }
                }
            }
            Some(Shape::Null) | None => {}
            Some(Shape::Array(_)) => note(
                GoJsonError::unmarshal("array", Target::value(elem)),
                &mut first_error,
            ),
            Some(Shape::Scalar(v)) => note(
                GoJsonError::mismatch(&v, Target::value(elem)),
                &mut first_error,
            ),
        }
        out.push(prop);
    }
    Some((out, first_error))
}

pub(crate) const GVK: GoStruct = GoStruct {
    name: "property.GVK",
    fields: &["group", "kind", "version"],
};
pub(crate) const PACKAGE: GoStruct = GoStruct {
    name: "property.Package",
    fields: &["packageName", "version", "release"],
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::gojson::decode_strings;

    #[test]
    fn property_lists_decode_like_go() {
        type Want = (
            Vec<(&'static str, Option<&'static str>)>,
            Option<&'static str>,
        );
        let cases: &[(&str, Want)] = &[
            ("null", (vec![], None)),
            (
                r#"[{"type":"a","value": {"z": 1}},{"TYPE":"b"},null]"#,
                (vec![("a", Some(r#"{"z": 1}"#)), ("b", None), ("", None)], None),
            ),
            (
                r#"[{"type":5,"value":1},{"type":"c","value":null}]"#,
                (
                    vec![("", Some("1")), ("c", Some("null"))],
                    Some("json: cannot unmarshal number into Go struct field Property.type of type string"),
                ),
            ),
            ("{}", (vec![], Some("json: cannot unmarshal object into Go value of type []registry.Property"))),
            ("7", (vec![], Some("json: cannot unmarshal number into Go value of type []registry.Property"))),
            ("\"x\"", (vec![], Some("json: cannot unmarshal string into Go value of type []registry.Property"))),
            (
                r#"[[{"type":"a"}],{"type":"b"},[]]"#,
                (
                    vec![("", None), ("b", None), ("", None)],
                    Some("json: cannot unmarshal array into Go value of type registry.Property"),
                ),
            ),
            (
                r#"[{"type":"a"},true,{"type":[1]}]"#,
                (
                    vec![("a", None), ("", None), ("", None)],
                    Some("json: cannot unmarshal bool into Go value of type registry.Property"),
                ),
            ),
            (
                r#"[{"type":1.5},{"type":"b"}]"#,
                (
                    vec![("", None), ("b", None)],
                    Some("json: cannot unmarshal number into Go struct field Property.type of type string"),
                ),
            ),
        ];
        for (text, (props, err)) in cases {
            let (got, got_err) = property_list(text, false, "registry.Property").unwrap();
            let got: Vec<(String, Option<String>)> =
                got.into_iter().map(|p| (p.kind, p.value)).collect();
            let want: Vec<(String, Option<String>)> = props
                .iter()
                .map(|(k, v)| (k.to_string(), v.map(str::to_string)))
                .collect();
            assert_eq!(got, want, "{text}");
            assert_eq!(got_err.map(|e| e.to_string()).as_deref(), *err, "{text}");
        }
        assert!(property_list("[1,", false, "registry.Property").is_none());
    }

    #[test]
    fn typed_values() {
        type Case = (
            Option<&'static str>,
            Result<Vec<&'static str>, &'static str>,
        );
        let cases: &[Case] = &[
            (None, Err("unexpected end of JSON input")),
            (Some("null"), Ok(vec!["", "", ""])),
            (
                Some(r#"{"Group":"g","version":"v","kind":"k","x":1}"#),
                Ok(vec!["g", "k", "v"]),
            ),
            (
                Some(r#"{"group":1}"#),
                Err("json: cannot unmarshal number into Go struct field GVK.group of type string"),
            ),
            (
                Some("[]"),
                Err("json: cannot unmarshal array into Go value of type property.GVK"),
            ),
        ];
        for (raw, want) in cases {
            let got = decode_strings(*raw, &GVK).map_err(|e| e.to_string());
            let want = want
                .clone()
                .map(|v| v.into_iter().map(str::to_string).collect::<Vec<_>>())
                .map_err(str::to_string);
            assert_eq!(got, want, "{raw:?}");
        }
    }
}
