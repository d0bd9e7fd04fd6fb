//! Splits a catalog file into documents like upstream's loader: k8s.io/apimachinery's
//! `NewYAMLOrJSONDecoder(r, 4096)` in its newest form, as operator-registry's declcfg loader
//! drives it.
//!
//! * The first non-whitespace character within the first 4096 bytes decides: `{` starts a JSON
//!   stream (consecutive JSON values, optional whitespace between them), anything else a YAML
//!   stream.
//! * JSON stream: values are located with Go's `encoding/json` scanner rules and returned as
//!   slices of the input (not parsed). When a value fails before two values were decoded, the
//!   rest of the file (from the end of the last good value, skipping whitespace up to and
//!   including the first newline) is read as YAML. If that first YAML document does not decode
//!   either, the JSON error is reported. After two JSON values there is no fallback and the bare
//!   JSON error is reported.
//! * YAML stream: documents are separated by lines starting with `---` (only whitespace or a `#`
//!   comment may follow); CRLF line endings are read as LF. A separator line with nothing
//!   buffered before it belongs to the next document, so two `---` lines at the very start (or
//!   three in a row later) make an empty document. Each document is converted with
//!   [`yaml_bytes_to_json`].
//! * A document without content (blank lines and/or comments, or a lone `---`) is returned as
//!   `Document::Yaml(Value::Null)`: upstream's conversion yields `null`, which leaves its blob
//!   empty; callers treat it as an empty object (`object '' is missing root schema field`).
//! * An empty file has no documents.
//!
//! Semantic checks (top-level value must be an object, `schema` must be a string, duplicate
//! case-folded keys, ...) belong to the caller, with one exception this module must make itself:
//! when the decoder falls back from JSON to YAML, upstream reports the JSON error if the first
//! YAML document fails those checks, so they are evaluated here for that one document.

use super::yaml_read::{go_lossy, go_quote, yaml_bytes_to_json, YamlError};
use serde_json::{Map, Number, Value};
use std::collections::HashSet;

/// Size of the buffer upstream sniffs for a leading `{`.
const SNIFF_LEN: usize = 4096;

/// Go's `encoding/json` nesting limit.
const MAX_JSON_DEPTH: usize = 10_000;

/// One document of a catalog file.
#[derive(Debug, Clone, PartialEq)]
pub enum Document<'a> {
    /// A JSON document: its exact text (a slice of the input), for the caller to parse.
    Json(&'a str),
    /// A YAML document already converted to JSON (`Value::Null` for a document without
    /// content). A JSON document that is not valid UTF-8 is also returned here, decoded the way
    /// Go does (invalid bytes and lone surrogate escapes become U+FFFD, duplicate keys: last
    /// wins, numbers keep their text).
    Yaml(Value),
}

/// Why a file could not be split; `index` is the 0-based index of the document that failed
/// (the number of documents read successfully before it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct StreamError {
    pub index: usize,
    pub kind: StreamErrorKind,
}

impl StreamError {
    /// Where in the file (`bytes`) the failure is: the offending byte of a JSON syntax error,
    /// the parser's stop of a YAML one, else the failing document's start.
    pub fn position(&self, bytes: &[u8]) -> Option<super::locate::Position> {
        use super::locate::{position_at, Position};
        if let StreamErrorKind::JsonSyntax { offset, .. }
        | StreamErrorKind::JsonSyntaxBare { offset, .. } = &self.kind
        {
            let offset = usize::try_from(*offset).unwrap_or(usize::MAX);
            return Some(position_at(bytes, offset.saturating_sub(1)));
        }
        let texts = document_texts(bytes);
        let document = texts.get(self.index).or(texts.last())?;
        let start = Position {
            line: document.line,
            column: document.column,
        };
        Some(match &self.kind {
            StreamErrorKind::Yaml(error) => {
                error.position().map_or(start, |inner| start.offset(inner))
            }
            _ => start,
        })
    }
}

/// Upstream's message for a stream failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamErrorKind {
    /// A `---` line followed by something other than whitespace or a comment.
    #[error("invalid Yaml document separator: {0}")]
    InvalidSeparator(String),
    /// A JSON syntax error while the stream could still turn out to be YAML; `offset` counts the
    /// bytes read up to and including the offending one.
    #[error("json: offset {offset}: {message}")]
    JsonSyntax { offset: u64, message: String },
    /// A JSON syntax error after two JSON documents: upstream reports it without the offset.
    #[error("{message}")]
    JsonSyntaxBare { offset: u64, message: String },
    /// The file ends inside a JSON value.
    #[error("unexpected EOF")]
    UnexpectedEof,
    /// A YAML document that cannot be converted to JSON.
    #[error(transparent)]
    Yaml(#[from] YamlError),
}

/// Splits a whole file into documents, like upstream's NewYAMLOrJSONDecoder loop in
/// operator-registry's declcfg loader (HEAD). On error, the error says which document (0-based
/// index) failed.
pub fn decode_documents(bytes: &[u8]) -> Result<Vec<Document<'_>>, StreamError> {
    let mut documents = Vec::new();
    if !sniff_json(bytes) {
        yaml_stream(bytes, 0, None, &mut documents)?;
        return Ok(documents);
    }
    let mut pos = 0;
    loop {
        let failure = match scan_json_value(bytes, pos) {
            Scan::End => return Ok(documents),
            Scan::Value { start, end } => {
                documents.push(json_document(&bytes[start..end]));
                pos = end;
                continue;
            }
            Scan::Syntax {
                offset,
                message,
                too_deep,
            } => {
                // The YAML reading of the same text nests just as deep, which go-yaml refuses,
                // so upstream reports this JSON error in the end; the YAML pass is skipped.
                if too_deep && documents.len() <= 1 {
                    return Err(StreamError {
                        index: documents.len(),
                        kind: StreamErrorKind::JsonSyntax {
                            offset: offset as u64,
                            message,
                        },
                    });
                }
                (Some(offset), message)
            }
            Scan::UnexpectedEof => (None, String::new()),
        };
        let index = documents.len();
        if index > 1 {
            let kind = match failure {
                (Some(offset), message) => StreamErrorKind::JsonSyntaxBare {
                    offset: offset as u64,
                    message,
                },
                (None, _) => StreamErrorKind::UnexpectedEof,
            };
            return Err(StreamError { index, kind });
        }
        let first = match failure {
            (Some(offset), message) => StreamErrorKind::JsonSyntax {
                offset: offset as u64,
                message,
            },
            (None, _) => StreamErrorKind::UnexpectedEof,
        };
        return match yaml_restart(bytes, pos) {
            Some(from) => {
                yaml_stream(bytes, from, Some(first), &mut documents)?;
                Ok(documents)
            }
            None => Err(StreamError { index, kind: first }),
        };
    }
}

/// One document's text and where it starts in its file, for locating findings
/// ([`super::locate`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentText {
    /// 1-based line and column of the document's first byte in the file.
    pub line: u64,
    pub column: u64,
    /// The document as the YAML reader sees it (CRLF read as LF; a leading `---` line kept).
    pub text: Vec<u8>,
}

/// Splits a file into its documents' texts the way [`decode_documents`] splits it, without
/// decoding them; documents after a syntax error are not found.
pub fn document_texts(bytes: &[u8]) -> Vec<DocumentText> {
    let mut texts = Vec::new();
    let mut yaml_from = Some(0);
    if sniff_json(bytes) {
        yaml_from = None;
        let mut pos = 0;
        loop {
            match scan_json_value(bytes, pos) {
                Scan::Value { start, end } => {
                    let at = super::locate::position_at(bytes, start);
                    texts.push(DocumentText {
                        line: at.line,
                        column: at.column,
                        text: bytes[start..end].to_vec(),
                    });
                    pos = end;
                }
                Scan::End => break,
                Scan::Syntax { .. } | Scan::UnexpectedEof => {
                    if texts.len() <= 1 {
                        yaml_from = yaml_restart(bytes, pos);
                    }
                    break;
                }
            }
        }
    }
    if let Some(from) = yaml_from {
        let mut lines = Lines { bytes, pos: from };
        loop {
            let start = lines.pos;
            let Ok(Some(text)) = lines.next_document() else {
                break;
            };
            let at = super::locate::position_at(bytes, start);
            texts.push(DocumentText {
                line: at.line,
                column: at.column,
                text,
            });
        }
    }
    texts
}

fn json_document(text: &[u8]) -> Document<'_> {
    match std::str::from_utf8(text) {
        Ok(text) => Document::Json(text),
        Err(_) => Document::Yaml(lossy_json_value(text)),
    }
}

// ---------------------------------------------------------------------------------------------
// Go rune helpers
// ---------------------------------------------------------------------------------------------

/// Go's `utf8.DecodeRune`: `None` for an invalid or incomplete sequence (always one byte), also
/// for an encoded U+FFFD (Go cannot tell it from an error either).
fn decode_rune(b: &[u8]) -> (Option<char>, usize) {
    let Some(&first) = b.first() else {
        return (None, 0);
    };
    let len = match first {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return (None, 1),
    };
    match b.get(..len).and_then(|s| std::str::from_utf8(s).ok()) {
        Some(s) => match s.chars().next() {
            Some('\u{fffd}') | None => (None, len),
            Some(c) => (Some(c), len),
        },
        None => (None, 1),
    }
}

fn is_go_space(c: Option<char>) -> bool {
    c.is_some_and(char::is_whitespace)
}

/// Go's `bytes.TrimSpace`.
fn go_trim_space(b: &[u8]) -> &[u8] {
    let mut start = 0;
    while start < b.len() {
        let (c, size) = decode_rune(&b[start..]);
        if !is_go_space(c) {
            break;
        }
        start += size;
    }
    let mut end = start;
    let mut at = start;
    while at < b.len() {
        let (c, size) = decode_rune(&b[at..]);
        at += size.max(1);
        if !is_go_space(c) {
            end = at;
        }
    }
    &b[start..end]
}

/// Whether the first non-whitespace character within the first 4096 bytes is `{`.
fn sniff_json(bytes: &[u8]) -> bool {
    let peek = &bytes[..bytes.len().min(SNIFF_LEN)];
    let mut at = 0;
    while at < peek.len() {
        let (c, size) = decode_rune(&peek[at..]);
        if !is_go_space(c) {
            return peek[at] == b'{';
        }
        at += size;
    }
    false
}

/// Where the YAML decoder starts after a JSON failure (upstream's `consumeWhitespace`): from
/// the end of the last decoded value, whitespace up to and including the first newline is
/// skipped. Upstream reads four bytes at a time, so fewer than four bytes left, or an invalid
/// UTF-8 sequence, means no YAML fallback (`None`).
fn yaml_restart(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let window = bytes.get(at..at + 4)?;
        let (c, size) = decode_rune(window);
        let c = c?;
        if !c.is_whitespace() {
            return Some(at);
        }
        at += size;
        if c == '\n' {
            return Some(at);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// JSON stream (Go's encoding/json scanner)
// ---------------------------------------------------------------------------------------------

enum Scan {
    /// Only whitespace is left.
    End,
    Value {
        start: usize,
        end: usize,
    },
    /// `offset` is the 1-based position of the offending byte in the file; `too_deep` marks
    /// Go's nesting limit (`exceeded max depth`).
    Syntax {
        offset: usize,
        message: String,
        too_deep: bool,
    },
    UnexpectedEof,
}

#[derive(Clone, Copy)]
enum Container {
    ObjectKey,
    ObjectValue,
    ArrayValue,
}

#[derive(Clone, Copy)]
enum State {
    BeginValueOrEmpty,
    BeginValue,
    BeginStringOrEmpty,
    BeginString,
    EndValue,
    InString,
    InStringEsc,
    InStringEscU(u8),
    Neg,
    Zero,
    One,
    Dot,
    Dot0,
    Exp,
    ExpSign,
    Exp0,
    Literal(&'static [u8], usize),
}

fn is_json_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// Go's `quoteChar`.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".to_string(),
        b'"' => "'\"'".to_string(),
        _ => {
            let quoted = go_quote(&char::from(c).to_string());
            format!("'{}'", &quoted[1..quoted.len() - 1])
        }
    }
}

fn syntax(at: usize, c: u8, context: &str) -> Scan {
    Scan::Syntax {
        offset: at + 1,
        message: format!("invalid character {} {context}", quote_char(c)),
        too_deep: false,
    }
}

/// The position of the first byte from `at` that ends ordinary string content: `"`, `\\` or a
/// control character (eight bytes at a time while none is in sight).
fn skip_string_content(b: &[u8], mut at: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    while let Some(chunk) = b.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let quote = has_zero(word ^ (ONES * u64::from(b'"')));
        let backslash = has_zero(word ^ (ONES * u64::from(b'\\')));
        let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
        if quote | backslash | control != 0 {
            break;
        }
        at += 8;
    }
    while at < b.len() && b[at] >= 0x20 && b[at] != b'"' && b[at] != b'\\' {
        at += 1;
    }
    at
}

/// Finds the next JSON value from `pos` the way Go's `json.Decoder` reads one.
fn scan_json_value(b: &[u8], pos: usize) -> Scan {
    let mut start = pos;
    while start < b.len() && is_json_space(b[start]) {
        start += 1;
    }
    if start == b.len() {
        return Scan::End;
    }
    let mut stack: Vec<Container> = Vec::new();
    let mut state = State::BeginValue;
    let mut i = start;
    while i < b.len() {
        if let State::InString = state {
            i = skip_string_content(b, i);
            if i == b.len() {
                break;
            }
        }
        let c = b[i];
        loop {
            match state {
                State::BeginValueOrEmpty => {
                    if is_json_space(c) {
                        break;
                    }
                    if c == b']' {
                        state = State::EndValue;
                        continue;
                    }
                    state = State::BeginValue;
                    continue;
                }
                State::BeginValue => {
                    state = match c {
                        _ if is_json_space(c) => break,
                        b'{' | b'[' => {
                            let (container, next) = if c == b'{' {
                                (Container::ObjectKey, State::BeginStringOrEmpty)
                            } else {
                                (Container::ArrayValue, State::BeginValueOrEmpty)
                            };
                            stack.push(container);
                            if stack.len() > MAX_JSON_DEPTH {
                                return Scan::Syntax {
                                    offset: i + 1,
                                    message: format!(
                                        "invalid character {} exceeded max depth",
                                        quote_char(c)
                                    ),
                                    too_deep: true,
                                };
                            }
                            next
                        }
                        b'"' => State::InString,
                        b'-' => State::Neg,
                        b'0' => State::Zero,
                        b'1'..=b'9' => State::One,
                        b't' => State::Literal(b"true", 1),
                        b'f' => State::Literal(b"false", 1),
                        b'n' => State::Literal(b"null", 1),
                        _ => return syntax(i, c, "looking for beginning of value"),
                    };
                }
                State::BeginStringOrEmpty => {
                    if is_json_space(c) {
                        break;
                    }
                    if c == b'}' {
                        if let Some(top) = stack.last_mut() {
                            *top = Container::ObjectValue;
                        }
                        state = State::EndValue;
                        continue;
                    }
                    state = State::BeginString;
                    continue;
                }
                State::BeginString => {
                    if is_json_space(c) {
                        break;
                    }
                    if c != b'"' {
                        return syntax(i, c, "looking for beginning of object key string");
                    }
                    state = State::InString;
                }
                State::EndValue => {
                    let Some(top) = stack.last_mut() else {
                        return Scan::Value { start, end: i };
                    };
                    if is_json_space(c) {
                        break;
                    }
                    match (*top, c) {
                        (Container::ObjectKey, b':') => {
                            *top = Container::ObjectValue;
                            state = State::BeginValue;
                        }
                        (Container::ObjectKey, _) => return syntax(i, c, "after object key"),
                        (Container::ObjectValue, b',') => {
                            *top = Container::ObjectKey;
                            state = State::BeginString;
                        }
                        (Container::ArrayValue, b',') => state = State::BeginValue,
                        (Container::ObjectValue, b'}') | (Container::ArrayValue, b']') => {
                            stack.pop();
                            if stack.is_empty() {
                                return Scan::Value { start, end: i + 1 };
                            }
                        }
                        (Container::ObjectValue, _) => {
                            return syntax(i, c, "after object key:value pair")
                        }
                        (Container::ArrayValue, _) => return syntax(i, c, "after array element"),
                    }
                }
                State::InString => match c {
                    b'"' => state = State::EndValue,
                    b'\\' => state = State::InStringEsc,
                    0..=0x1f => return syntax(i, c, "in string literal"),
                    _ => {}
                },
                State::InStringEsc => match c {
                    b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => {
                        state = State::InString
                    }
                    b'u' => state = State::InStringEscU(0),
                    _ => return syntax(i, c, "in string escape code"),
                },
                State::InStringEscU(done) => {
                    if !c.is_ascii_hexdigit() {
                        return syntax(i, c, "in \\u hexadecimal character escape");
                    }
                    state = if done == 3 {
                        State::InString
                    } else {
                        State::InStringEscU(done + 1)
                    };
                }
                State::Neg => {
                    state = match c {
                        b'0' => State::Zero,
                        b'1'..=b'9' => State::One,
                        _ => return syntax(i, c, "in numeric literal"),
                    }
                }
                State::One if c.is_ascii_digit() => {}
                State::One | State::Zero => match c {
                    b'.' => state = State::Dot,
                    b'e' | b'E' => state = State::Exp,
                    _ => {
                        state = State::EndValue;
                        continue;
                    }
                },
                State::Dot => {
                    if !c.is_ascii_digit() {
                        return syntax(i, c, "after decimal point in numeric literal");
                    }
                    state = State::Dot0;
                }
                State::Dot0 => match c {
                    b'0'..=b'9' => {}
                    b'e' | b'E' => state = State::Exp,
                    _ => {
                        state = State::EndValue;
                        continue;
                    }
                },
                State::Exp if c == b'+' || c == b'-' => state = State::ExpSign,
                State::Exp | State::ExpSign => {
                    if !c.is_ascii_digit() {
                        return syntax(i, c, "in exponent of numeric literal");
                    }
                    state = State::Exp0;
                }
                State::Exp0 => {
                    if !c.is_ascii_digit() {
                        state = State::EndValue;
                        continue;
                    }
                }
                State::Literal(word, at) => {
                    if c != word[at] {
                        let name = std::str::from_utf8(word).unwrap_or_default();
                        return syntax(
                            i,
                            c,
                            &format!("in literal {name} (expecting {})", quote_char(word[at])),
                        );
                    }
                    state = if at + 1 == word.len() {
                        State::EndValue
                    } else {
                        State::Literal(word, at + 1)
                    };
                }
            }
            break;
        }
        i += 1;
    }
    // End of input: Go feeds one space; only a finished top-level value survives it.
    match state {
        State::EndValue | State::One | State::Zero | State::Dot0 | State::Exp0
            if stack.is_empty() =>
        {
            Scan::Value {
                start,
                end: b.len(),
            }
        }
        _ => Scan::UnexpectedEof,
    }
}

// ---------------------------------------------------------------------------------------------
// YAML stream (k8s YAMLReader over LineReader)
// ---------------------------------------------------------------------------------------------

struct Lines<'a> {
    bytes: &'a [u8],
    pos: usize,
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
    fn next_document(&mut self) -> Result<Option<Vec<u8>>, StreamErrorKind> {
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
fn yaml_stream<'a>(
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

// ---------------------------------------------------------------------------------------------
// JSON documents that are not valid UTF-8
// ---------------------------------------------------------------------------------------------

enum Frame {
    Array(Vec<Value>),
    Object(Map<String, Value>, Option<String>),
}

/// Decodes a JSON value already validated by [`scan_json_value`], the way Go decodes into
/// `interface{}` (invalid UTF-8 and lone surrogates become U+FFFD), keeping number text.
fn lossy_json_value(b: &[u8]) -> Value {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn show(input: &[u8]) -> Result<Vec<String>, (usize, String)> {
        decode_documents(input)
            .map(|documents| {
                documents
                    .iter()
                    .map(|document| match document {
                        Document::Json(text) => format!("J {text}"),
                        Document::Yaml(value) => format!("Y {value}"),
                    })
                    .collect()
            })
            .map_err(|error| (error.index, error.to_string()))
    }

    fn ok(input: &str, expected: &[&str]) {
        assert_eq!(
            show(input.as_bytes()),
            Ok(expected.iter().map(|s| s.to_string()).collect()),
            "input {input:?}"
        );
    }

    fn fails(input: &str, index: usize, message: &str) {
        assert_eq!(
            show(input.as_bytes()),
            Err((index, message.to_string())),
            "input {input:?}"
        );
    }

    #[test]
    fn json_streams() {
        ok("", &[]);
        ok("   \n", &["Y null"]);
        ok(r#"{"a":1}"#, &[r#"J {"a":1}"#]);
        ok("  \n\t{\"a\": 1.50}\n", &[r#"J {"a": 1.50}"#]);
        ok(r#"{"a":1}{"b":2}"#, &[r#"J {"a":1}"#, r#"J {"b":2}"#]);
        ok(
            "{\"a\":1}\n\n{\"b\":[1,{\"c\":null}]}\n{}\n",
            &[r#"J {"a":1}"#, r#"J {"b":[1,{"c":null}]}"#, "J {}"],
        );
        // Later values need not be objects: the caller rejects them.
        ok(
            "{\"a\":1} [1,2] 5 \"s\" true null",
            &[
                r#"J {"a":1}"#,
                "J [1,2]",
                "J 5",
                "J \"s\"",
                "J true",
                "J null",
            ],
        );
        ok("{\"a\":1} 5", &[r#"J {"a":1}"#, "J 5"]);
        // Not sniffed as JSON: YAML flow syntax.
        ok("[1, 2]\n", &["Y [1,2]"]);
        ok("\u{feff}{\"a\": 1}\n", &[r#"Y {"a":1}"#]);
        let late = format!("{}{{\"a\": 1}}\n", " ".repeat(SNIFF_LEN));
        ok(&late, &[r#"Y {"a":1}"#]);
        let in_time = format!("{}{{\"a\": 1}}\n", " ".repeat(SNIFF_LEN - 1));
        ok(&in_time, &[r#"J {"a": 1}"#]);
    }

    #[test]
    fn json_errors_and_fallback() {
        fails(
            r#"{"schema":"a.b"} xyz"#,
            1,
            "json: offset 18: invalid character 'x' looking for beginning of value",
        );
        // With at least four bytes left the rest is tried as YAML; a scalar is not a blob.
        fails(
            r#"{"schema":"a.b"} xyzw"#,
            1,
            "json: offset 18: invalid character 'x' looking for beginning of value",
        );
        fails(
            "{\"schema\":\"a.b\"}{\"schema\":\"c.d\"}\n---\nschema: e.f\n",
            2,
            "invalid character '-' in numeric literal",
        );
        fails("{\"a\":1}{\"b\":2}{\"c\":", 2, "unexpected EOF");
        fails("{\"a\":", 0, "unexpected EOF");
        fails(
            "{\"a\" 1}",
            0,
            "json: offset 6: invalid character '1' after object key",
        );
        fails(
            "{\"a\":1,@}",
            0,
            "json: offset 8: invalid character '@' looking for beginning of object key string",
        );
        fails(
            "{\"a\":1 2, \"b\": [}",
            0,
            "json: offset 8: invalid character '2' after object key:value pair",
        );
        fails(
            "{\"a\":[1 2, [}",
            0,
            "json: offset 9: invalid character '2' after array element",
        );
        fails(
            "{\"a\":tru, \"b\": [}",
            0,
            "json: offset 9: invalid character ',' in literal true (expecting 'e')",
        );
        fails(
            "{\"a\":nul, \"b\": [}",
            0,
            "json: offset 9: invalid character ',' in literal null (expecting 'l')",
        );
        fails(
            "{\"a\":1., \"b\": [}",
            0,
            "json: offset 8: invalid character ',' after decimal point in numeric literal",
        );
        fails(
            "{\"a\":1e, \"b\": [}",
            0,
            "json: offset 8: invalid character ',' in exponent of numeric literal",
        );
        fails(
            "{\"a\":\"\\q\"}",
            0,
            "json: offset 8: invalid character 'q' in string escape code",
        );
        fails(
            "{\"a\":\"\\u12x4\"}",
            0,
            "json: offset 11: invalid character 'x' in \\u hexadecimal character escape",
        );
        fails(
            "{\"a\":\"\t\", \"b\": [}",
            0,
            "json: offset 7: invalid character '\\t' in string literal",
        );
        fails(
            "{\"a\":'x', \"b\": [}",
            0,
            "json: offset 6: invalid character '\\'' looking for beginning of value",
        );
        fails(
            "{\"a\":\u{e9}, \"b\": [}",
            0,
            "json: offset 6: invalid character 'Ã' looking for beginning of value",
        );
        // One JSON object, then YAML documents.
        ok(
            "{\"schema\":\"olm.package\",\"name\":\"bar\"}\n---\nschema: olm.channel\nname: alpha\n",
            &[r#"J {"schema":"olm.package","name":"bar"}"#, r#"Y {"name":"alpha","schema":"olm.channel"}"#],
        );
        // A trailing comma: JSON fails, the YAML flow mapping reads it.
        ok(
            r#"{"schema":"olm.package","name":"x",}"#,
            &[r#"Y {"name":"x","schema":"olm.package"}"#],
        );
        // The first YAML document after a fallback must be a blob, else the JSON error wins.
        fails(
            "{\"schema\":\"a\"}\n{\"schema\": 5, }\n",
            1,
            "json: offset 30: invalid character '}' looking for beginning of object key string",
        );
        fails(
            "{\"schema\":\"a\"}\n{\"Schema\": \"x\", \"schema\": \"y\", }\n",
            1,
            "json: offset 47: invalid character '}' looking for beginning of object key string",
        );
        fails(
            "{\"schema\":\"a\"}\n{x: [}\n",
            1,
            "json: offset 17: invalid character 'x' looking for beginning of object key string",
        );
        // ... but only the first: later YAML documents report their own errors.
        fails(
            "{\"schema\":\"a\"}\n{x: 1}\n---\ny: [\n",
            2,
            "error converting YAML to JSON: yaml: line 1: did not find expected node content",
        );
        let nested = format!(
            "{{\"a\":{}{}}}",
            "[".repeat(MAX_JSON_DEPTH),
            "]".repeat(MAX_JSON_DEPTH)
        );
        fails(
            &nested,
            0,
            "json: offset 10005: invalid character '[' exceeded max depth",
        );
    }

    #[test]
    fn yaml_separators() {
        ok("a: 1\n---\nb: 2\n", &[r#"Y {"a":1}"#, r#"Y {"b":2}"#]);
        ok("---\na: 1\n", &[r#"Y {"a":1}"#]);
        ok(
            "a: 1\n---\n---\nb: 2\n---\n",
            &[r#"Y {"a":1}"#, r#"Y {"b":2}"#],
        );
        ok(
            "a: 1\n--- # comment\nb: 2\n",
            &[r#"Y {"a":1}"#, r#"Y {"b":2}"#],
        );
        ok("a: 1\n---   \nb: 2", &[r#"Y {"a":1}"#, r#"Y {"b":2}"#]);
        ok("a: 1\n...\n---\nb: 2\n", &[r#"Y {"a":1}"#, r#"Y {"b":2}"#]);
        ok("a: 1\n---", &[r#"Y {"a":1}"#]);
        ok("---\n---\na: 1\n", &["Y null", r#"Y {"a":1}"#]);
        ok("\n---\na: 1\n", &["Y null", r#"Y {"a":1}"#]);
        ok("# header\n---\na: 1\n", &["Y null", r#"Y {"a":1}"#]);
        ok("a: 1\n---\n# only comment\n", &[r#"Y {"a":1}"#, "Y null"]);
        ok(
            "a: 1\n---\n---\n---\nb: 2\n",
            &[r#"Y {"a":1}"#, "Y null", r#"Y {"b":2}"#],
        );
        ok("\n\n\n", &["Y null"]);
        ok("# c", &["Y null"]);
        ok("---\n", &["Y null"]);
        ok("  ---\n", &["Y \"---\""]);
        ok(
            "a: |\n  text\n  --- not a separator\n",
            &[r#"Y {"a":"text\n--- not a separator\n"}"#],
        );
        fails(
            "a: 1\n--- foo: bar\nb: 2\n",
            0,
            "invalid Yaml document separator: foo: bar",
        );
        fails(
            "a: 1\n---\nb: 2\n----\n",
            1,
            "invalid Yaml document separator: -",
        );
        fails("a: 1\n---x\n", 0, "invalid Yaml document separator: x");
        fails(
            "a: 1\n---\nb: [\n",
            1,
            "error converting YAML to JSON: yaml: line 1: did not find expected node content",
        );
    }

    #[test]
    fn yaml_line_endings_and_encodings() {
        ok(
            "schema: olm.package\r\nname: foo\r\n---\r\nschema: olm.channel\r\n",
            &[
                r#"Y {"name":"foo","schema":"olm.package"}"#,
                r#"Y {"schema":"olm.channel"}"#,
            ],
        );
        ok("a: b\r", &[r#"Y {"a":"b"}"#]);
        ok(
            "\u{feff}schema: olm.package\nname: foo\n",
            &[r#"Y {"name":"foo","schema":"olm.package"}"#],
        );
        assert_eq!(
            show(b"\xff\xfe\x00garbage"),
            Err((
                0,
                "error converting YAML to JSON: yaml: incomplete UTF-16 character".to_string()
            ))
        );
        assert_eq!(
            show(b"a: \xc3\n"),
            Err((
                0,
                "error converting YAML to JSON: yaml: invalid trailing UTF-8 octet".to_string()
            ))
        );
    }

    #[test]
    fn document_texts_say_where_each_document_starts() {
        let starts = |bytes: &[u8]| -> Vec<(u64, u64)> {
            document_texts(bytes)
                .iter()
                .map(|d| (d.line, d.column))
                .collect()
        };
        assert_eq!(
            starts(b"a: 1\n---\nb: 2\n---\n\nc: 3\n"),
            [(1, 1), (3, 1), (5, 1)]
        );
        assert_eq!(starts(b"---\na: 1\n"), [(1, 1)]);
        assert_eq!(
            starts(b"{\"a\": 1}\n  {\"b\": 2} {}"),
            [(1, 1), (2, 3), (2, 12)]
        );
        assert_eq!(
            document_texts(b"a: 1\r\n---\r\nb: 2\r\n")[1].text,
            b"b: 2\n".to_vec()
        );
        // The JSON-then-YAML fallback splits like the decoder.
        assert_eq!(starts(b"{\"a\": 1} x: [\n"), [(1, 1), (1, 10)]);
    }

    #[test]
    fn json_nested_too_deep_is_refused_without_a_yaml_pass() {
        // 100,000 levels: the JSON error stands (the YAML reading nests as deep, which go-yaml
        // refuses too), found in one linear scan.
        let deep = format!("{{\"a\":{}", "[".repeat(100_000));
        assert_eq!(
            decode_documents(deep.as_bytes()).map_err(|e| (e.index, e.to_string())),
            Err((
                0,
                "json: offset 10005: invalid character '[' exceeded max depth".to_string()
            ))
        );
        let second = format!("{{}}\n{}", "[".repeat(20_000));
        assert_eq!(
            decode_documents(second.as_bytes()).map_err(|e| e.index),
            Err(1)
        );
    }

    #[test]
    fn invalid_utf8_json_is_decoded_like_go() {
        assert_eq!(
            show(
                b"{\"a\":\"x\xffy\",\"b\":\"\\ud800\",\"c\":\"\\ud83d\\ude00\",\"n\":1.50,\"a\":2}"
            ),
            Ok(vec![r#"Y {"a":2,"b":"�","c":"😀","n":1.50}"#.to_string()])
        );
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet = b"{}[]:,-\"'\\ \n\t\r#&*!|>?%@`0123456789.eE+xyzn~\xff\xfe\xc3\xa9";
        for round in 0..3000 {
            let len = (next() % 64) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    let r = next();
                    if round % 3 == 0 {
                        r as u8
                    } else {
                        alphabet[(r % alphabet.len() as u64) as usize]
                    }
                })
                .collect();
            let _ = decode_documents(&bytes);
            let mut json = b"{".to_vec();
            json.extend_from_slice(&bytes);
            let _ = decode_documents(&json);
        }
        for depth in [1000, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 5] {
            let json = format!("{{\"a\":{}1{}}}", "[".repeat(depth), "]".repeat(depth));
            let _ = decode_documents(json.as_bytes());
            let yaml = format!("a: {}1{}\n", "[".repeat(depth), "]".repeat(depth));
            let _ = decode_documents(yaml.as_bytes());
            let yaml = format!("a: {}1{}\n", "{b: ".repeat(depth), "}".repeat(depth));
            let _ = decode_documents(yaml.as_bytes());
            let block: String = (0..depth.min(300))
                .map(|i| format!("{}- \n", "  ".repeat(i)))
                .collect();
            let _ = decode_documents(block.as_bytes());
        }
        let huge = format!(
            "a: {}\nb: 0x{}\nc: -{}\nd: 1e{}\n",
            "9".repeat(5000),
            "f".repeat(5000),
            "7".repeat(400),
            "9".repeat(50)
        );
        let value = decode_documents(huge.as_bytes()).expect("huge numbers convert");
        assert_eq!(value.len(), 1);
        let json = format!("{{\"a\": {}}}", "9".repeat(100_000));
        assert!(decode_documents(json.as_bytes()).is_ok());
    }

    // -----------------------------------------------------------------------------------------
    // Conformance cases
    // -----------------------------------------------------------------------------------------

    fn files_under(dir: &Path) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut pending = vec![dir.to_path_buf()];
        while let Some(dir) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.file_name().is_some_and(|n| n != ".indexignore") {
                    found.push(path);
                }
            }
        }
        found.sort();
        found
    }

    /// The recorded cases of `group`, or `None` (the test is skipped) when
    /// the shared kit is not there.
    fn case_dirs(group: &str) -> Option<Vec<PathBuf>> {
        let root = crate::testkit::shared(&format!("conformance/cases/{group}"))?;
        let entries = std::fs::read_dir(root).expect("readable conformance cases");
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        Some(dirs)
    }

    const DECODER_MESSAGES: &[&str] = &[
        "error converting YAML to JSON",
        "json: offset",
        "invalid Yaml document separator",
        "invalid character",
        "unexpected EOF",
    ];

    /// fbc-load-errors: messages produced while splitting files match; cases whose message
    /// comes from later checks split cleanly (or, for `object ''`, yield an empty document).
    #[test]
    fn conformance_load_errors() {
        let Some(cases) = case_dirs("fbc-load-errors") else {
            return;
        };
        let mut checked = 0;
        for dir in cases {
            let name = dir
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let expected = std::fs::read_to_string(dir.join("stderr-contains")).unwrap_or_default();
            let first = expected.lines().next().unwrap_or_default();
            let tail = first
                .split_once("\": ")
                .map_or(first, |(_, rest)| rest)
                .trim();
            let mut errors = Vec::new();
            let mut empty_document = false;
            for file in files_under(&dir.join("in")) {
                let bytes = std::fs::read(&file).expect("readable case file");
                match decode_documents(&bytes) {
                    Ok(documents) => {
                        empty_document |= documents.contains(&Document::Yaml(Value::Null));
                    }
                    Err(error) => errors.push(error.to_string()),
                }
            }
            if DECODER_MESSAGES.iter().any(|m| tail.starts_with(m)) {
                assert!(
                    errors
                        .iter()
                        .any(|e| e.contains(tail) || tail.contains(e.as_str())),
                    "{name}: expected {tail:?}, got {errors:?}"
                );
            } else if tail.contains("object '' is missing root schema field") {
                assert!(errors.is_empty() && empty_document, "{name}: {errors:?}");
            } else {
                assert!(errors.is_empty(), "{name}: unexpected {errors:?}");
            }
            checked += 1;
        }
        assert!(checked > 40, "only {checked} cases checked");
    }

    /// Splits a recorded output (JSON values back to back, or a YAML stream) into values.
    fn expected_blobs(stdout: &str) -> Vec<Value> {
        match decode_documents(stdout.as_bytes()) {
            Ok(documents) => documents
                .into_iter()
                .filter_map(|document| match document {
                    Document::Json(text) => serde_json::from_str(text).ok(),
                    Document::Yaml(value) => Some(value),
                })
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// fbc-render: every input file splits cleanly, and each non-`olm.*` blob read equals a
    /// blob of the recorded output (which sorts keys; both JSON and YAML outputs are read back).
    #[test]
    fn conformance_render_other_blobs() {
        let Some(cases) = case_dirs("fbc-render") else {
            return;
        };
        let mut compared = 0;
        for dir in cases {
            let name = dir
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let exit = std::fs::read_to_string(dir.join("exit")).unwrap_or_default();
            if !exit.trim().is_empty() && exit.trim() != "0" {
                continue;
            }
            let stdout = std::fs::read_to_string(dir.join("stdout")).unwrap_or_default();
            let blobs = expected_blobs(&stdout);
            let ignores = files_under(&dir.join("in")).is_empty()
                || std::fs::read_dir(&dir).is_err()
                || name.starts_with("indexignore");
            for file in files_under(&dir.join("in")) {
                let bytes = std::fs::read(&file).expect("readable case file");
                let documents = match decode_documents(&bytes) {
                    Ok(documents) => documents,
                    Err(error) if ignores => {
                        let _ = error;
                        continue;
                    }
                    Err(error) => panic!("{name}: {} failed: {error}", file.display()),
                };
                for document in documents {
                    let value = match document {
                        Document::Json(text) => {
                            serde_json::from_str::<Value>(text).expect("valid JSON")
                        }
                        Document::Yaml(value) => value,
                    };
                    let schema = value
                        .get("schema")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    if schema.is_empty() || schema.starts_with("olm.") || name.contains("migrate") {
                        continue;
                    }
                    assert!(
                        blobs.contains(&value),
                        "{name}: blob {value} from {} not in the recorded output",
                        file.display()
                    );
                    compared += 1;
                }
            }
        }
        assert!(compared > 10, "only {compared} blobs compared");
    }
}
