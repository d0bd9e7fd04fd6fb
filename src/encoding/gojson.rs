//! Decoding helpers with the semantics of Go's `encoding/json` (and of the
//! YAML front end upstream puts before it), for decoding documents into typed
//! structs as Go does (bundle parsing and validation use them):
//!
//! * struct fields match JSON keys case-insensitively; the last matching key
//!   wins (each key overwrites the field);
//! * `null` leaves a field at its zero value;
//! * a value of the wrong type is an error, reported as Go words it
//!   (`json: cannot unmarshal number into Go struct field GVK.group of type
//!   string`); Go keeps decoding the rest, so callers that ignore the error
//!   see the same partial result as upstream;
//! * `json.RawMessage` fields keep the exact text of their value, which is
//!   why documents are handled as text here (`RawDoc`) rather than as parsed
//!   values.
//!
//! YAML documents reach Go's decoder as the JSON text of the YAML→JSON
//! conversion: compact, keys sorted, `<`, `>` and `&` escaped. For Go string
//! fields the converter also turns YAML numbers and booleans into strings;
//! `coerce` enables that.

use super::json::{folds_to, write_compact};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The value of the last key of `v` (an object) that matches `name`
/// case-insensitively ([`folds_to`]), as Go matches struct fields.
///
/// Unlike [`super::json::field`], which prefers a key spelled exactly as the
/// field, the last matching key wins here: Go's decoder assigns every key that
/// matches a field in document order, so the last one is what the struct
/// holds, and these are the lookups that must see the value a Go struct
/// decoded from the same bytes would hold.
pub(crate) fn field<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    let Value::Object(map) = v else { return None };
    map.iter().rfind(|(k, _)| folds_to(k, name)).map(|(_, v)| v)
}

/// Why Go's `encoding/json` refuses a document, in its words.
#[derive(Debug, thiserror::Error)]
pub enum GoJsonError {
    /// A value of another JSON type than its target's. Boxed, as Go returns
    /// a `*UnmarshalTypeError`: the error, and every `Result` that carries it,
    /// stays small.
    #[error(transparent)]
    Type(Box<UnmarshalTypeError>),
    /// No text at all (a nil raw message).
    #[error("unexpected end of JSON input")]
    UnexpectedEnd,
    /// Text that is not JSON.
    #[error(transparent)]
    Syntax(#[from] serde_json::Error),
}

impl GoJsonError {
    /// `value`, of another type than `target`'s.
    pub(crate) fn mismatch(value: &Value, target: Target) -> GoJsonError {
        GoJsonError::unmarshal(super::json::type_name(value), target)
    }

    /// A value of JSON type `json_type` (as Go names it: `object`, `array`,
    /// `string`, …), of another type than `target`'s.
    pub(crate) fn unmarshal(json_type: &'static str, target: Target) -> GoJsonError {
        GoJsonError::Type(Box::new(UnmarshalTypeError { json_type, target }))
    }
}

/// Go's `UnmarshalTypeError`: a value of JSON type `json_type` where the
/// decoder was filling `target`.
#[derive(Debug, thiserror::Error)]
#[error("json: cannot unmarshal {json_type} into {target}")]
pub struct UnmarshalTypeError {
    pub json_type: &'static str,
    pub target: Target,
}

/// Where Go's decoder was putting a value, as its type errors name it.
#[derive(Debug)]
pub enum Target {
    /// The whole document: `Go value of type <go_type>`.
    Value { go_type: String },
    /// A struct field: `Go struct field <path> of type <go_type>`, the path
    /// starting with the innermost struct's short name (`GVK.group`).
    Field { path: String, go_type: String },
}

impl Target {
    pub(crate) fn value(go_type: impl Into<String>) -> Target {
        Target::Value {
            go_type: go_type.into(),
        }
    }

    pub(crate) fn field(path: impl Into<String>, go_type: impl Into<String>) -> Target {
        Target::Field {
            path: path.into(),
            go_type: go_type.into(),
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Value { go_type } => write!(f, "Go value of type {go_type}"),
            Target::Field { path, go_type } => {
                write!(f, "Go struct field {path} of type {go_type}")
            }
        }
    }
}

/// `v` with the keys of every object sorted (byte order), as Go writes maps.
pub(crate) fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let mut out = Map::new();
            for (k, v) in entries {
                out.insert(k.clone(), sorted(v));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Go's `json.Marshal` of a decoded generic value: compact, keys sorted,
/// HTML characters escaped.
pub(crate) fn go_marshal(v: &Value) -> String {
    let mut out = String::new();
    write_compact(&sorted(v), &mut out, true);
    out
}

/// One document as Go's decoder sees it: JSON text, and whether it came from
/// YAML (so string fields accept YAML scalars).
pub(crate) struct RawDoc {
    pub text: String,
    pub from_yaml: bool,
}

/// The entries of a JSON object with their raw value texts, in input order.
struct Entries(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;
        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                    out.push(entry);
                }
                Ok(Entries(out))
            }
        }
        deserializer.deserialize_map(EntriesVisitor)
    }
}

/// A JSON text split one level deep.
pub(crate) enum Shape {
    Null,
    Object(Vec<(String, Box<RawValue>)>),
    Array(Vec<Box<RawValue>>),
    /// Any other value (parsed, for error messages).
    Scalar(Value),
}

/// Splits `text` (one valid JSON value) one level deep. Invalid JSON comes
/// back as `None` (Go: a syntax error, nothing decoded).
pub(crate) fn shape(text: &str) -> Option<Shape> {
    let t = text.trim_start();
    match t.as_bytes().first()? {
        b'{' => serde_json::from_str::<Entries>(text)
            .ok()
            .map(|e| Shape::Object(e.0)),
        b'[' => serde_json::from_str::<Vec<Box<RawValue>>>(text)
            .ok()
            .map(Shape::Array),
        b'n' => serde_json::from_str::<Value>(text)
            .ok()
            .map(|_| Shape::Null),
        _ => serde_json::from_str::<Value>(text).ok().map(Shape::Scalar),
    }
}

/// The parsed value of one raw text (always valid JSON here).
fn parse(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

/// Decodes a Go `string` field from `raw`; `Ok(None)` for `null` (field left
/// alone). With `coerce`, YAML numbers and booleans become their text.
pub(crate) fn string_field(
    raw: &RawValue,
    coerce: bool,
    target: &str,
) -> Result<Option<String>, GoJsonError> {
    match parse(raw) {
        Value::String(s) => Ok(Some(s)),
        Value::Null => Ok(None),
        Value::Bool(b) if coerce => Ok(Some(b.to_string())),
        Value::Number(n) if coerce => Ok(Some(yaml_number_as_string(n.as_str()))),
        other => Err(GoJsonError::mismatch(
            &other,
            Target::field(target, "string"),
        )),
    }
}

/// How the YAML front end writes a number into a string field: integers as
/// they are, floats with Go's `FormatFloat(f, 'g', -1, 32)`.
fn yaml_number_as_string(text: &str) -> String {
    if !text.contains(['.', 'e', 'E']) {
        return text.to_string();
    }
    match text.parse::<f64>() {
        Ok(f) => format_g_shortest(f64::from(f as f32), true),
        Err(_) => text.to_string(),
    }
}

/// Go's `%g` with the shortest precision: `%e` form (two-digit exponent at
/// least) when the exponent is below -4 or at least 21 (fmt) / 6 (strconv
/// shortest, `strconv_threshold`).
pub(crate) fn format_g_shortest(f: f64, strconv_threshold: bool) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // When the value came from an f32, print the f32's shortest digits.
    let sci = if strconv_threshold {
        format!("{:e}", f as f32)
    } else {
        format!("{f:e}")
    };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let threshold = if strconv_threshold { 6 } else { 21 };
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if exp < -4 || exp >= threshold {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.unsigned_abs()));
    } else if exp >= 0 {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            out.push_str(&"0".repeat(int_len - digits.len()));
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    } else {
        out.push_str("0.");
        out.push_str(&"0".repeat((-exp - 1) as usize));
        out.push_str(&digits);
    }
    out
}

/// Field `name` of a top-level object document, for the metadata file
/// structs; `Err` when the document is not an object (or null).
pub(crate) fn top_field(text: &str, name: &str) -> Result<Option<Box<RawValue>>, ()> {
    match shape(text) {
        Some(Shape::Null) => Ok(None),
        Some(Shape::Object(entries)) => Ok(entries
            .into_iter()
            .rfind(|(k, _)| folds_to(k, name))
            .map(|(_, v)| v)),
        _ => Err(()),
    }
}

/// A Go struct of string fields (such as upstream's `property.GVK`): its
/// qualified `name` and its fields in order.
pub(crate) struct GoStruct {
    pub name: &'static str,
    pub fields: &'static [&'static str],
}

/// Strictly decodes a property value (raw text, or `None` for a nil value)
/// into a struct of string fields, as `json.Unmarshal` does (the first error
/// is returned; upstream fails on it).
pub(crate) fn decode_strings(raw: Option<&str>, st: &GoStruct) -> Result<Vec<String>, GoJsonError> {
    let text = raw.ok_or(GoJsonError::UnexpectedEnd)?;
    let v: Value = serde_json::from_str(text)?;
    let short = st.name.rsplit('.').next().unwrap_or(st.name);
    let mut out = vec![String::new(); st.fields.len()];
    match &v {
        Value::Null => return Ok(out),
        Value::Object(_) => {}
        other => return Err(GoJsonError::mismatch(other, Target::value(st.name))),
    }
    for (i, name) in st.fields.iter().enumerate() {
        match field(&v, name) {
            Some(Value::String(s)) => out[i] = s.clone(),
            Some(Value::Null) | None => {}
            Some(other) => {
                let target = Target::field(format!("{short}.{name}"), "string");
                return Err(GoJsonError::mismatch(other, target));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_g() {
        let cases: &[(f64, bool, &str)] = &[
            (1.0, true, "1"),
            (1.1, true, "1.1"),
            (0.1, true, "0.1"),
            (1234567.0, true, "1.234567e+06"),
            (0.00001, true, "1e-05"),
            (-2.5, false, "-2.5"),
            (1e21, false, "1e+21"),
            (123456789.0, false, "123456789"),
        ];
        for (f, strconv, want) in cases {
            assert_eq!(format_g_shortest(*f, *strconv), *want, "{f}");
        }
    }

    #[test]
    fn decode_strings_errors() {
        const ST: GoStruct = GoStruct {
            name: "property.GVK",
            fields: &["group"],
        };
        for (raw, want) in [
            (None, "unexpected end of JSON input"),
            (Some("{"), "EOF while parsing an object at line 1 column 1"),
            (
                Some("[]"),
                "json: cannot unmarshal array into Go value of type property.GVK",
            ),
            (
                Some(r#"{"Group": true}"#),
                "json: cannot unmarshal bool into Go struct field GVK.group of type string",
            ),
        ] {
            let got = decode_strings(raw, &ST).unwrap_err();
            assert_eq!(got.to_string(), want, "{raw:?}");
        }
    }

    #[test]
    fn yaml_scalars_in_string_fields() {
        type Case = (
            &'static str,
            bool,
            Result<Option<&'static str>, &'static str>,
        );
        let cases: &[Case] = &[
            ("\"a\"", false, Ok(Some("a"))),
            ("null", false, Ok(None)),
            ("12", true, Ok(Some("12"))),
            ("1.5", true, Ok(Some("1.5"))),
            ("true", true, Ok(Some("true"))),
            (
                "12",
                false,
                Err("json: cannot unmarshal number into Go struct field P.type of type string"),
            ),
            (
                "[]",
                true,
                Err("json: cannot unmarshal array into Go struct field P.type of type string"),
            ),
        ];
        for (text, coerce, want) in cases {
            let raw = RawValue::from_string(text.to_string()).unwrap();
            let got = string_field(&raw, *coerce, "P.type").map_err(|e| e.to_string());
            let want = want.map(|o| o.map(str::to_string)).map_err(str::to_string);
            assert_eq!(got, want, "{text}");
        }
    }
}
