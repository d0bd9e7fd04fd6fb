//! The YAML side of the stream: k8s.io/apimachinery's `YAMLReader` over its
//! `LineReader` (documents split at `---` lines), and the check upstream's
//! blob decoding makes of the first document after a JSON fallback.

use super::{go_trim_space, Document, StreamError, StreamErrorKind};
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

    /// One document's lines (each ending with `\n`), `None` at the end of the stream.
    pub(super) fn next_document(&mut self) -> Result<Option<Vec<u8>>, StreamErrorKind> {
        let mut buffer = Vec::new();
        loop {
            let Some(line) = self.next_line() else {
                return Ok((!buffer.is_empty()).then_some(buffer));
            };
            if let Some(rest) = line.strip_prefix(b"---") {
                let trimmed = go_trim_space(rest);
                if !trimmed.is_empty() && trimmed[0] != b'#' {
                    return Err(StreamErrorKind::InvalidSeparator(go_lossy(trimmed)));
                }
                if !buffer.is_empty() {
                    return Ok(Some(buffer));
                }
            }
            buffer.extend_from_slice(line);
            buffer.push(b'\n');
        }
    }
}

/// Reads YAML documents from `from`. `pending` is the JSON error of a fallback: it replaces
/// any failure of the first YAML document.
pub(super) fn yaml_stream<'a>(
    bytes: &'a [u8],
    from: usize,
    mut pending: Option<StreamErrorKind>,
    documents: &mut Vec<Document<'a>>,
) -> Result<(), StreamError> {
    let mut lines = Lines { bytes, pos: from };
    loop {
        let index = documents.len();
        let chunk = match lines.next_document() {
            Ok(Some(chunk)) => chunk,
            Ok(None) => return Ok(()),
            Err(kind) => {
                let kind = pending.take().unwrap_or(kind);
                return Err(StreamError { index, kind });
            }
        };
        match yaml_bytes_to_json(&chunk) {
            Ok(value) => {
                if let Some(first) = pending.take() {
                    if !meta_accepts(&value) {
                        return Err(StreamError { index, kind: first });
                    }
                }
                documents.push(Document::Yaml(value));
            }
            Err(error) => {
                let kind = pending.take().unwrap_or(StreamErrorKind::Yaml(error));
                return Err(StreamError { index, kind });
            }
        }
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
