//! JSON writers with Go `encoding/json` bytes: compact or indented, with or
//! without HTML escaping, numbers written with their exact text. Also Go's
//! `%q` string quoting used in upstream messages, the parser of single JSON
//! documents that accepts Go's nesting depth, and Go's case-insensitive match of
//! object keys to struct fields.

use serde_json::{Map, Value};
use std::fmt::Write as _;

/// Which bytes need attention when writing a JSON string: 1 = always
/// escaped, 2 = escaped only with HTML escaping, 3 = maybe U+2028/U+2029.
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = 1;
        i += 1;
    }
    table[b'"' as usize] = 1;
    table[b'\\' as usize] = 1;
    table[b'<' as usize] = 2;
    table[b'>' as usize] = 2;
    table[b'&' as usize] = 2;
    table[0xE2] = 3;
    table
};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any byte of `word` is zero (the classic bit trick; exact when
/// combined with `!word`).
fn has_zero_byte(word: u64) -> bool {
    word.wrapping_sub(ONES) & !word & HIGHS != 0
}

fn has_byte(word: u64, byte: u8) -> bool {
    has_zero_byte(word ^ (ONES * u64::from(byte)))
}

/// Whether any of 8 bytes may need escaping (controls, `"`, `\\`, the lead
/// byte of U+2028/U+2029, and `<>&` when escaping HTML).
fn needs_escape(word: u64, escape_html: bool) -> bool {
    // A byte below 0x20: subtracting 0x20 borrows into its high bit.
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS != 0;
    below_space
        || has_byte(word, b'"')
        || has_byte(word, b'\\')
        || has_byte(word, 0xE2)
        || (escape_html && (has_byte(word, b'<') || has_byte(word, b'>') || has_byte(word, b'&')))
}

/// How many leading bytes of `bytes` certainly need no escaping, in whole
/// blocks (0 when the first block holds a byte that may need it).
fn plain_prefix(bytes: &[u8], escape_html: bool) -> usize {
    let mut n = 0;
    #[cfg(target_arch = "x86_64")]
    if !escape_html {
        while let Some(block) = bytes.get(n..n + 16) {
            if sse2::block_needs_escape(block) {
                return n;
            }
            n += 16;
        }
    }
    while let Some(word) = bytes.get(n..n + 8) {
        let word = u64::from_le_bytes([
            word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7],
        ]);
        if needs_escape(word, escape_html) {
            return n;
        }
        n += 8;
    }
    n
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    /// Whether a 16-byte block holds a control byte, `"`, `\\` or 0xE2 (the
    /// lead byte of U+2028/U+2029). SSE2 is part of every x86_64 CPU.
    pub(super) fn block_needs_escape(block: &[u8]) -> bool {
        assert!(block.len() >= 16);
        // SAFETY: SSE2 is always available on x86_64, and the load reads
        // exactly 16 bytes that the assertion above guarantees exist
        // (unaligned loads are allowed).
        unsafe {
            let x = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let control = _mm_cmpeq_epi8(_mm_max_epu8(x, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f));
            let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
            let lead = _mm_cmpeq_epi8(x, _mm_set1_epi8(0xE2u8 as i8));
            let any = _mm_or_si128(_mm_or_si128(control, quote), _mm_or_si128(backslash, lead));
            _mm_movemask_epi8(any) != 0
        }
    }
}

/// Appends `s` as a Go JSON string literal.
pub fn write_string(s: &str, out: &mut String, escape_html: bool) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Skip plain runs in blocks (most of a catalog: long base64 strings).
        let plain = plain_prefix(&bytes[i..], escape_html);
        if plain > 0 {
            i += plain;
            continue;
        }
        let b = bytes[i];
        let class = ESCAPE[b as usize];
        if class == 0 || (class == 2 && !escape_html) {
            i += 1;
            continue;
        }
        let (escape, width): (&str, usize) = match b {
            b'"' => ("\\\"", 1),
            b'\\' => ("\\\\", 1),
            b'\n' => ("\\n", 1),
            b'\r' => ("\\r", 1),
            b'\t' => ("\\t", 1),
            0x08 => ("\\b", 1),
            0x0c => ("\\f", 1),
            b'<' => ("\\u003c", 1),
            b'>' => ("\\u003e", 1),
            b'&' => ("\\u0026", 1),
            // U+2028 and U+2029 (E2 80 A8/A9) are always escaped by Go.
            0xE2 if bytes.get(i + 1) == Some(&0x80) && bytes.get(i + 2) == Some(&0xA8) => {
                ("\\u2028", 3)
            }
            0xE2 if bytes.get(i + 1) == Some(&0x80) && bytes.get(i + 2) == Some(&0xA9) => {
                ("\\u2029", 3)
            }
            0xE2 => {
                i += 1;
                continue;
            }
            _ => ("", 1),
        };
        out.push_str(&s[start..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escape);
        }
        i += width;
        start = i;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// The value of `key` in `object`, matched without regard to case, as Go's
/// `encoding/json` matches struct fields (an exact match wins).
pub fn field<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    field_key(object, key).map(|found| &object[found])
}

/// The key of `object` that [`field`] picks for the struct field `name`.
pub fn field_key<'m>(object: &'m Map<String, Value>, name: &str) -> Option<&'m str> {
    if let Some((key, _)) = object.get_key_value(name) {
        return Some(key.as_str());
    }
    object
        .keys()
        .find(|key| folds_to(key, name))
        .map(String::as_str)
}

/// Whether `key` matches the field `name` without regard to case (Unicode lower case, so the
/// Kelvin sign matches `k` as in Go); ASCII keys are compared without allocating.
pub fn folds_to(key: &str, name: &str) -> bool {
    key.eq_ignore_ascii_case(name) || (!key.is_ascii() && key.to_lowercase() == name.to_lowercase())
}

/// The name Go's decoder uses for a JSON value's type in its errors.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Appends a number's text. The parser keeps every digit but spells an
/// exponent as `e+N`; `e+` is written back as `e`, the common spelling.
pub fn write_number(n: &serde_json::Number, out: &mut String) {
    let start = out.len();
    let _ = write!(out, "{n}");
    if let Some(at) = out[start..].find("e+") {
        out.remove(start + at + 1);
    }
}

/// The compact encoding of `value` (as [`write_compact`], without HTML escaping).
pub fn compact(value: &Value) -> String {
    let mut out = String::new();
    write_compact(value, &mut out, false);
    out
}

/// Appends the compact encoding of `value` (Go `json.Marshal`; keys in map order).
pub fn write_compact(value: &Value, out: &mut String, escape_html: bool) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out, escape_html),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact(item, out, escape_html);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, out, escape_html);
                out.push(':');
                write_compact(v, out, escape_html);
            }
            out.push('}');
        }
    }
}

/// An indenting writer with Go `json.Indent` layout (`": "`, empty `[]`/`{}`).
pub struct Pretty<'a> {
    pub out: &'a mut String,
    pub indent: &'static str,
    pub escape_html: bool,
}

impl Pretty<'_> {
    pub fn newline(&mut self, depth: usize) {
        self.out.push('\n');
        for _ in 0..depth {
            self.out.push_str(self.indent);
        }
    }

    pub fn value(&mut self, value: &Value, depth: usize) {
        match value {
            Value::Array(items) if !items.is_empty() => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.newline(depth + 1);
                    self.value(item, depth + 1);
                }
                self.newline(depth);
                self.out.push(']');
            }
            Value::Object(map) if !map.is_empty() => {
                self.out.push('{');
                for (i, (k, v)) in map.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.newline(depth + 1);
                    self.key(k);
                    self.value(v, depth + 1);
                }
                self.newline(depth);
                self.out.push('}');
            }
            other => write_compact(other, self.out, self.escape_html),
        }
    }

    pub fn key(&mut self, key: &str) {
        write_string(key, self.out, self.escape_html);
        self.out.push_str(": ");
    }

    pub fn string(&mut self, s: &str) {
        write_string(s, self.out, self.escape_html);
    }
}

/// Go's `%q` formatting of a string (`strconv.Quote`): double quotes, `\"` and `\\`, the C
/// escapes for control characters, `\xHH` for other ASCII controls, `\uHHHH`/`\UHHHHHHHH`
/// for non-printable characters; printable Unicode is kept as is.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_go_printable(c) => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Go `strconv.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space.
/// Without Unicode tables this excludes the control, format, separator, private-use and
/// noncharacter code points; code points unassigned in Unicode are treated as printable, a
/// difference that can only change how such a character is escaped in an error message.
fn is_go_printable(c: char) -> bool {
    let cp = c as u32;
    if (0x20..0x7f).contains(&cp) {
        return true;
    }
    if cp < 0x20 || (0x7f..0xa0).contains(&cp) {
        return false;
    }
    if c.is_whitespace() {
        return false;
    }
    const NOT_PRINTABLE: &[(u32, u32)] = &[
        (0x00AD, 0x00AD),
        (0x0600, 0x0605),
        (0x061C, 0x061C),
        (0x06DD, 0x06DD),
        (0x070F, 0x070F),
        (0x0890, 0x0891),
        (0x08E2, 0x08E2),
        (0x180E, 0x180E),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x2064),
        (0x2066, 0x206F),
        (0xD800, 0xF8FF),
        (0xFDD0, 0xFDEF),
        (0xFEFF, 0xFEFF),
        (0xFFF9, 0xFFFB),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0001, 0xE0001),
        (0xE0020, 0xE007F),
        (0xF0000, 0x10FFFF),
    ];
    if (cp & 0xFFFE) == 0xFFFE {
        return false;
    }
    !NOT_PRINTABLE
        .iter()
        .any(|&(lo, hi)| (lo..=hi).contains(&cp))
}

/// Parses one JSON document into a value, as deep as Go's `encoding/json` allows.
///
/// serde_json stops at 128 levels of nesting; upstream accepts 10,000 (the stream splitter
/// refuses deeper documents with Go's message before they get here). The rare deeper document is
/// parsed again without serde_json's limit, on a thread with a large stack.
pub fn parse_value(text: &str) -> serde_json::Result<Value> {
    match serde_json::from_str(text) {
        Err(error) if error.to_string().starts_with("recursion limit exceeded") => {
            super::on_deep_stack(|| {
                use serde::Deserialize as _;
                let mut deserializer = serde_json::Deserializer::from_str(text);
                deserializer.disable_recursion_limit();
                let value = Value::deserialize(&mut deserializer)?;
                deserializer.end()?;
                Ok(value)
            })
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_match_as_go_matches_struct_fields() {
        let object = match serde_json::json!({"NAME": 1, "name": 2, "Schema": 3, "\u{212a}ind": 4})
        {
            Value::Object(object) => object,
            _ => unreachable!(),
        };
        assert_eq!(field(&object, "name"), Some(&Value::from(2)));
        assert_eq!(field(&object, "schema"), Some(&Value::from(3)));
        assert_eq!(field_key(&object, "kind"), Some("\u{212a}ind"));
        assert_eq!(field(&object, "package"), None);
        assert!(folds_to("PackageName", "packageName"));
        assert!(!folds_to("packagename2", "packageName"));
    }

    fn compact(v: &Value, html: bool) -> String {
        let mut s = String::new();
        write_compact(v, &mut s, html);
        s
    }

    #[test]
    fn parse_value_accepts_go_nesting_depth() {
        for depth in [1, 128, 129, 10_000] {
            let text = format!("{{\"v\":{}1{}}}", "[".repeat(depth), "]".repeat(depth));
            let value = parse_value(&text).expect("nesting up to Go's limit parses");
            let mut inner = &value["v"];
            for _ in 1..depth {
                inner = &inner[0];
            }
            assert_eq!(inner, &serde_json::json!([1]), "depth {depth}");
        }
        assert!(parse_value("{\"v\": [").is_err());
        assert!(parse_value(&format!("{}{}", "[".repeat(300), "]".repeat(299))).is_err());
    }

    #[test]
    fn strings_escape_like_go() {
        let v = Value::String("a<b>&\"\\\n\u{1}\u{2028}é".to_string());
        assert_eq!(compact(&v, false), r#""a<b>&\"\\\n\u0001\u2028é""#);
        assert_eq!(
            compact(&v, true),
            r#""a\u003cb\u003e\u0026\"\\\n\u0001\u2028é""#
        );
    }

    #[test]
    fn escapes_found_at_every_position_of_a_block() {
        for special in ['"', '\\', '\n', '\u{1}', '<', '&', '\u{2028}', 'é'] {
            for at in 0..40 {
                let mut text: String = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN".into();
                text.insert(at, special);
                let plain = serde_json::to_string(&text)
                    .unwrap()
                    .replace('\u{2028}', "\\u2028");
                let mut fast = String::new();
                write_string(&text, &mut fast, false);
                assert_eq!(fast, plain, "{special:?} at {at}");
                let html = plain.replace('<', "\\u003c").replace('&', "\\u0026");
                let mut fast = String::new();
                write_string(&text, &mut fast, true);
                assert_eq!(fast, html, "{special:?} at {at} with HTML escaping");
            }
        }
    }

    #[test]
    fn numbers_keep_their_text() {
        let v: Value =
            serde_json::from_str(r#"{"a":1.50,"b":12345678901234567890,"c":1e3}"#).unwrap();
        assert_eq!(
            compact(&v, false),
            r#"{"a":1.50,"b":12345678901234567890,"c":1e3}"#
        );
    }

    #[test]
    fn pretty_layout() {
        let v: Value = serde_json::from_str(r#"{"a":[],"b":{},"c":[1,{"d":null}]}"#).unwrap();
        let mut out = String::new();
        Pretty {
            out: &mut out,
            indent: "    ",
            escape_html: false,
        }
        .value(&v, 0);
        assert_eq!(
            out,
            "{\n    \"a\": [],\n    \"b\": {},\n    \"c\": [\n        1,\n        {\n            \"d\": null\n        }\n    ]\n}"
        );
    }

    #[test]
    fn go_quote_matches_strconv() {
        assert_eq!(go_quote("foo"), "\"foo\"");
        assert_eq!(go_quote("a\"b\n"), "\"a\\\"b\\n\"");
        assert_eq!(go_quote("é\u{1}"), "\"é\\x01\"");
    }
}
