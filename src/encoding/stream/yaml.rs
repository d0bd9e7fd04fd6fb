//! The YAML side of the stream: k8s.io/apimachinery's `YAMLReader` over its
//! `LineReader` (documents split at `---` lines), and the check upstream's
//! blob decoding makes of the first document after a JSON fallback.

use super::{go_trim_space, Span, StreamErrorKind, Syntax};
use crate::encoding::yaml_read::{go_lossy, yaml_bytes_to_json};
use serde_json::Value;
use std::collections::HashSet;

pub(super) struct Lines<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Lines<'a> {
    /// The next line without its `\n` (and without the `\r` of a `\r\n`); `None` at the end.
    fn next_line(&mut self) -> Option<&'a [u8]> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        let rest = &self.bytes[self.pos..];
        match rest.iter().position(|&c| c == b'\n') {
            Some(nl) => {
                self.pos += nl + 1;
                let line = &rest[..nl];
                Some(line.strip_suffix(b"\r").unwrap_or(line))
            }
            None => {
                self.pos = self.bytes.len();
                Some(rest)
            }
        }
    }

    /// One document's lines (each ending with `\n`) and where its last line ends in the
    /// input (before the `---` line that ended it), `None` at the end of the stream. Those
    /// bytes, from where the document started, read alone give the same lines again.
    pub(super) fn next_document(&mut self) -> Result<Option<(Vec<u8>, usize)>, StreamErrorKind> {
        let mut buffer = Vec::new();
        loop {
            let line_start = self.pos;
            let Some(line) = self.next_line() else {
                return Ok((!buffer.is_empty()).then_some((buffer, self.pos)));
            };
            if let Some(rest) = line.strip_prefix(b"---") {
                let trimmed = go_trim_space(rest);
                if !trimmed.is_empty() && trimmed[0] != b'#' {
                    return Err(StreamErrorKind::InvalidSeparator(go_lossy(trimmed)));
                }
                if !buffer.is_empty() {
                    return Ok(Some((buffer, line_start)));
                }
            }
            buffer.extend_from_slice(line);
            buffer.push(b'\n');
        }
    }
}

/// The next YAML document from `lines` (`None` at the end) and its span. `pending` is the JSON
/// error of a fallback: it replaces any failure of the first YAML document.
pub(super) fn next_yaml(
    lines: &mut Lines<'_>,
    pending: &mut Option<StreamErrorKind>,
) -> Result<Option<(Value, Span)>, StreamErrorKind> {
    let start = lines.pos;
    let (chunk, end) = match lines.next_document() {
        Ok(Some(document)) => document,
        Ok(None) => return Ok(None),
        Err(kind) => return Err(pending.take().unwrap_or(kind)),
    };
    let span = Span {
        start,
        end,
        syntax: Syntax::Yaml,
    };
    match yaml_bytes_to_json(&chunk) {
        Ok(value) => {
            if let Some(first) = pending.take() {
                if !meta_accepts(&value) {
                    return Err(first);
                }
            }
            Ok(Some((value, span)))
        }
        Err(error) => Err(pending.take().unwrap_or(StreamErrorKind::Yaml(error))),
    }
}

/// A YAML document read again from its span's bytes ([`Lines::next_document`]).
pub(super) fn yaml_again(bytes: &[u8]) -> Result<Value, StreamErrorKind> {
    let mut lines = Lines { bytes, pos: 0 };
    match lines.next_document()? {
        Some((chunk, _)) => Ok(yaml_bytes_to_json(&chunk)?),
        None => Ok(Value::Null),
    }
}

/// Unicode case folding as upstream's key grouping uses it (close approximation).
fn fold(key: &str) -> String {
    key.to_uppercase().to_lowercase()
}

/// Whether upstream's blob decoding (HEAD `Meta.UnmarshalJSON`) accepts a converted YAML
/// document: `null`, or an object without case-folded duplicate keys whose `schema`, `package`
/// and `name` are strings and whose numbers fit a float64.
fn meta_accepts(value: &Value) -> bool {
    let map = match value {
        Value::Null => return true,
        Value::Object(map) => map,
        _ => return false,
    };
    let mut seen = HashSet::new();
    for (key, field) in map {
        let folded = fold(key);
        if matches!(folded.as_str(), "schema" | "package" | "name") && !field.is_string() {
            return false;
        }
        if !seen.insert(folded) {
            return false;
        }
    }
    let mut pending: Vec<&Value> = map.values().collect();
    while let Some(item) = pending.pop() {
        match item {
            Value::Number(n) if n.to_string().parse::<f64>().map_or(true, f64::is_infinite) => {
                return false;
            }
            Value::Array(items) => pending.extend(items),
            Value::Object(fields) => pending.extend(fields.values()),
            _ => {}
        }
    }
    true
}
