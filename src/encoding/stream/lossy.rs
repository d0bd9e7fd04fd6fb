//! JSON documents that are not valid UTF-8, decoded as Go decodes them into
//! `interface{}`.

use super::json_scan::is_json_space;
use crate::encoding::yaml_read::go_lossy;
use serde_json::{Map, Number, Value};

enum Frame {
    Array(Vec<Value>),
    Object(Map<String, Value>, Option<String>),
}

/// Decodes a JSON value already validated by [`scan_json_value`], the way Go decodes into
/// `interface{}` (invalid UTF-8 and lone surrogates become U+FFFD), keeping number text.
pub(super) fn lossy_json_value(b: &[u8]) -> Value {
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    loop {
        while i < b.len() && (is_json_space(b[i]) || b[i] == b',' || b[i] == b':') {
            i += 1;
        }
        let Some(&c) = b.get(i) else {
            return Value::Null;
        };
        let value = match c {
            b'{' => {
                stack.push(Frame::Object(Map::new(), None));
                i += 1;
                continue;
            }
            b'[' => {
                stack.push(Frame::Array(Vec::new()));
                i += 1;
                continue;
            }
            b'}' | b']' => {
                i += 1;
                match stack.pop() {
                    Some(Frame::Array(items)) => Value::Array(items),
                    Some(Frame::Object(map, _)) => Value::Object(map),
                    None => return Value::Null,
                }
            }
            b'"' => {
                let (text, next) = json_string(b, i + 1);
                i = next;
                if let Some(Frame::Object(_, key @ None)) = stack.last_mut() {
                    *key = Some(text);
                    continue;
                }
                Value::String(text)
            }
            b't' => {
                i += 4;
                Value::Bool(true)
            }
            b'f' => {
                i += 5;
                Value::Bool(false)
            }
            b'n' => {
                i += 4;
                Value::Null
            }
            _ => {
                let len = b[i..]
                    .iter()
                    .take_while(|c| matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .count()
                    .max(1);
                let text = String::from_utf8_lossy(&b[i..i + len]).into_owned();
                i += len;
                match serde_json::from_str::<Number>(&text) {
                    Ok(n) => Value::Number(n),
                    Err(_) => Value::String(text),
                }
            }
        };
        match stack.last_mut() {
            None => return value,
            Some(Frame::Array(items)) => items.push(value),
            Some(Frame::Object(map, key)) => {
                map.insert(key.take().unwrap_or_default(), value);
            }
        }
    }
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let digits = std::str::from_utf8(b.get(at..at + 4)?).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

/// A JSON string body starting at `at` (after the opening quote): its text and the position
/// after the closing quote.
fn json_string(b: &[u8], mut at: usize) -> (String, usize) {
    let mut raw: Vec<u8> = Vec::new();
    while at < b.len() {
        match b[at] {
            b'"' => return (go_lossy(&raw), at + 1),
            b'\\' => {
                let escaped = b.get(at + 1).copied().unwrap_or(b'\\');
                at += 2;
                let c = match escaped {
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => {
                        let first = hex4(b, at).unwrap_or(0xfffd);
                        at += 4;
                        let code = if (0xd800..0xdc00).contains(&first)
                            && b.get(at) == Some(&b'\\')
                            && b.get(at + 1) == Some(&b'u')
                        {
                            match hex4(b, at + 2) {
                                Some(second) if (0xdc00..0xe000).contains(&second) => {
                                    at += 6;
                                    0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00)
                                }
                                _ => 0xfffd,
                            }
                        } else {
                            first
                        };
                        char::from_u32(code).unwrap_or('\u{fffd}')
                    }
                    other => char::from(other),
                };
                let mut buf = [0u8; 4];
                raw.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            other => {
                raw.push(other);
                at += 1;
            }
        }
    }
    (go_lossy(&raw), at)
}
