//! The JSON-compatible conversion (sigs.k8s.io/yaml) and Go's JSON encoding of numbers and keys.

use super::decode::YVal;
use super::YamlError;
use crate::encoding::json::go_quote;
use serde_json::{Map, Number, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;

pub(super) enum Num {
    I(i64),
    U(u64),
    Text(String),
}

pub(super) enum JVal {
    Null,
    Bool(bool),
    Num(Num),
    NonFinite(f64),
    Str(String),
    Arr(Vec<JVal>),
    Obj(BTreeMap<String, JVal>),
}

pub(super) fn key_string(key: &YVal) -> Option<String> {
    Some(match key {
        YVal::Str(s) => s.clone(),
        YVal::Int(i) => i.to_string(),
        YVal::Bool(b) => b.to_string(),
        YVal::Float(f) | YVal::Big { float: Some(f), .. } => go_float_key(*f),
        _ => return None,
    })
}

pub(super) fn go_type_name(value: &YVal) -> &'static str {
    match value {
        YVal::Null => "%!s(<nil>)",
        YVal::Bool(_) => "bool",
        YVal::Int(_) => "int",
        YVal::Uint(_) => "uint64",
        YVal::Big { float: None, .. } => "*big.Int",
        YVal::Big { .. } | YVal::Float(_) => "float64",
        YVal::Str(_) => "string",
        YVal::Map(_) => "map[interface {}]interface {}",
        YVal::Seq(_) => "[]interface {}",
    }
}

pub(super) fn to_jval(value: YVal) -> Result<JVal, YamlError> {
    Ok(match value {
        YVal::Null => JVal::Null,
        YVal::Bool(b) => JVal::Bool(b),
        YVal::Int(i) => JVal::Num(Num::I(i)),
        YVal::Uint(u) => JVal::Num(Num::U(u)),
        YVal::Big { digits, .. } => JVal::Num(Num::Text(digits)),
        YVal::Float(f) if f.is_finite() => JVal::Num(Num::Text(go_json_float(f))),
        YVal::Float(f) => JVal::NonFinite(f),
        YVal::Str(s) => JVal::Str(s),
        YVal::Seq(items) => JVal::Arr(items.into_iter().map(to_jval).collect::<Result<_, _>>()?),
        YVal::Map(map) => {
            let mut object = BTreeMap::new();
            for (key, value) in map.entries {
                let Some(name) = key_string(&key) else {
                    return Err(YamlError::converting(format!(
                        "unsupported map key of type: {}, key: {}, value: {}",
                        go_type_name(&key),
                        go_sharp_v(&key, true, true),
                        go_sharp_v(&value, true, true)
                    )));
                };
                object.insert(name, to_jval(value)?);
            }
            JVal::Obj(object)
        }
    })
}

pub(super) fn to_value(value: JVal) -> Result<Value, YamlError> {
    Ok(match value {
        JVal::Null => Value::Null,
        JVal::Bool(b) => Value::Bool(b),
        JVal::Num(Num::I(i)) => Value::Number(i.into()),
        JVal::Num(Num::U(u)) => Value::Number(u.into()),
        JVal::Num(Num::Text(text)) => match serde_json::from_str::<Number>(&text) {
            Ok(n) => Value::Number(n),
            Err(_) => Value::String(text),
        },
        JVal::NonFinite(f) => {
            return Err(YamlError::converting(format!(
                "json: unsupported value: {}",
                go_format_g(f, false)
            )))
        }
        JVal::Str(s) => Value::String(s),
        JVal::Arr(items) => {
            Value::Array(items.into_iter().map(to_value).collect::<Result<_, _>>()?)
        }
        JVal::Obj(object) => {
            let mut map = Map::new();
            for (key, value) in object {
                map.insert(key, to_value(value)?);
            }
            Value::Object(map)
        }
    })
}

/// Shortest round-trip digits of `f` (finite, non-zero handled too) and the decimal point
/// position: value = 0.d1d2... × 10^point.
pub(super) fn shortest_digits(f: f64, single: bool) -> (String, i32) {
    let text = if single {
        format!("{:e}", (f as f32).abs())
    } else {
        format!("{:e}", f.abs())
    };
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text.as_str(), "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if digits.bytes().all(|c| c == b'0') {
        return ("0".to_string(), 1);
    }
    (digits, exponent + 1)
}

pub(super) fn fmt_e(negative: bool, digits: &str, point: i32) -> String {
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    let exp = if digits == "0" { 0 } else { point - 1 };
    out.push('e');
    out.push(if exp < 0 { '-' } else { '+' });
    let _ = write!(out, "{:02}", exp.unsigned_abs());
    out
}

pub(super) fn fmt_f(negative: bool, digits: &str, point: i32) -> String {
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    let len = digits.len() as i32;
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(digits);
    } else if point >= len {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', (point - len) as usize));
    } else {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    }
    out
}

/// A finite float64 as Go's `encoding/json` writes it.
pub(crate) fn go_json_float(f: f64) -> String {
    let abs = f.abs();
    let negative = f.is_sign_negative();
    let (digits, point) = shortest_digits(f, false);
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let mut text = fmt_e(negative, &digits, point);
        let n = text.len();
        let b = text.as_bytes();
        if n >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
            text.remove(n - 2);
        }
        text
    } else {
        fmt_f(negative, &digits, point)
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64|32)`.
pub(super) fn go_format_g(f: f64, single: bool) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() || (single && (f as f32).is_infinite()) {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    let negative = f.is_sign_negative();
    let (digits, point) = shortest_digits(f, single);
    let exp = point - 1;
    // Shortest precision: `%e` below 1e-4 and from 1e6 on.
    if digits != "0" && !(-4..6).contains(&exp) {
        fmt_e(negative, &digits, point)
    } else {
        fmt_f(negative, &digits, point)
    }
}

/// sigs.k8s.io/yaml's float key text: `FormatFloat(f, 'g', -1, 32)`, with `.inf`/`.nan`.
pub(super) fn go_float_key(f: f64) -> String {
    match go_format_g(f, true).as_str() {
        "+Inf" => ".inf".to_string(),
        "-Inf" => "-.inf".to_string(),
        "NaN" => ".nan".to_string(),
        other => other.to_string(),
    }
}

/// Go's `%#v` (with `plus`: `%+#v`) of a decoded YAML value; `top` is false inside
/// collections, where a nil prints as `interface {}(nil)`.
pub(super) fn go_sharp_v(value: &YVal, top: bool, plus: bool) -> String {
    match value {
        YVal::Null if top => "<nil>".to_string(),
        YVal::Null => "interface {}(nil)".to_string(),
        YVal::Bool(b) => b.to_string(),
        YVal::Int(i) => i.to_string(),
        YVal::Uint(u) => format!("0x{u:x}"),
        YVal::Big {
            digits,
            float: None,
        } => {
            if plus && !digits.starts_with('-') {
                format!("+{digits}")
            } else {
                digits.clone()
            }
        }
        YVal::Big { float: Some(f), .. } | YVal::Float(f) => go_format_g(*f, false),
        YVal::Str(s) => go_quote(s),
        YVal::Seq(items) => {
            let inner: Vec<String> = items.iter().map(|v| go_sharp_v(v, false, plus)).collect();
            format!("[]interface {{}}{{{}}}", inner.join(", "))
        }
        YVal::Map(map) => {
            let inner: Vec<String> = map
                .entries
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}:{}",
                        go_sharp_v(k, false, plus),
                        go_sharp_v(v, false, plus)
                    )
                })
                .collect();
            format!("map[interface {{}}]interface {{}}{{{}}}", inner.join(", "))
        }
    }
}

/// Text from bytes the way Go's JSON encoder treats invalid UTF-8: each byte of an invalid
/// sequence becomes U+FFFD.
pub(crate) fn go_lossy(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => {
            let mut out = String::with_capacity(bytes.len() + 8);
            let mut rest = bytes;
            while !rest.is_empty() {
                match std::str::from_utf8(rest) {
                    Ok(text) => {
                        out.push_str(text);
                        break;
                    }
                    Err(e) => {
                        let (good, bad) = rest.split_at(e.valid_up_to());
                        out.push_str(std::str::from_utf8(good).unwrap_or_default());
                        let skip = e.error_len().unwrap_or(bad.len());
                        out.extend(std::iter::repeat_n('\u{fffd}', skip));
                        rest = &bad[skip..];
                    }
                }
            }
            out
        }
    }
}
