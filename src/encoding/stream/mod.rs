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

mod json_scan;
mod lossy;
#[cfg(test)]
mod tests;
mod yaml;

use super::yaml_read::YamlError;
use json_scan::{scan_json_value, Scan};
use lossy::lossy_json_value;
use serde_json::Value;
use yaml::{next_yaml, Lines};

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
    Documents::new(bytes)
        .map(|document| document.map(|(document, _)| document))
        .collect()
}

/// How a document's bytes are read again: as a JSON value, or as YAML lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    Json,
    Yaml,
}

/// Where a document is in its file: the bytes [`decode_span`] reads it from again, alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub syntax: Syntax,
}

/// The documents of a file one at a time, with their spans: what [`decode_documents`]
/// collects, without holding every converted document at once. After an error it ends.
pub struct Documents<'a> {
    bytes: &'a [u8],
    state: State,
    /// Documents returned so far.
    index: usize,
}

enum State {
    Json {
        pos: usize,
    },
    /// `pending`: the JSON error of a fallback, reported if the first YAML document fails.
    Yaml {
        lines: usize,
        pending: Option<StreamErrorKind>,
    },
    Done,
}

impl<'a> Documents<'a> {
    pub fn new(bytes: &'a [u8]) -> Documents<'a> {
        let state = if sniff_json(bytes) {
            State::Json { pos: 0 }
        } else {
            State::Yaml {
                lines: 0,
                pending: None,
            }
        };
        Documents {
            bytes,
            state,
            index: 0,
        }
    }

    fn fail(&mut self, kind: StreamErrorKind) -> Option<Result<(Document<'a>, Span), StreamError>> {
        self.state = State::Done;
        Some(Err(StreamError {
            index: self.index,
            kind,
        }))
    }

    fn found(&mut self, document: Document<'a>, span: Span) -> Option<<Self as Iterator>::Item> {
        self.index += 1;
        Some(Ok((document, span)))
    }
}

impl<'a> Iterator for Documents<'a> {
    type Item = Result<(Document<'a>, Span), StreamError>;

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.bytes;
        match &mut self.state {
            State::Done => None,
            State::Json { pos } => {
                let failure = match scan_json_value(bytes, *pos) {
                    Scan::End => {
                        self.state = State::Done;
                        return None;
                    }
                    Scan::Value { start, end } => {
                        *pos = end;
                        let span = Span {
                            start,
                            end,
                            syntax: Syntax::Json,
                        };
                        return self.found(json_document(&bytes[start..end]), span);
                    }
                    Scan::Syntax {
                        offset,
                        message,
                        too_deep,
                    } => {
                        // The YAML reading of the same text nests just as deep, which go-yaml
                        // refuses, so upstream reports this JSON error in the end; the YAML
                        // pass is skipped.
                        if too_deep && self.index <= 1 {
                            return self.fail(StreamErrorKind::JsonSyntax {
                                offset: offset as u64,
                                message,
                            });
                        }
                        (Some(offset), message)
                    }
                    Scan::UnexpectedEof => (None, String::new()),
                };
                let from = *pos;
                if self.index > 1 {
                    return self.fail(match failure {
                        (Some(offset), message) => StreamErrorKind::JsonSyntaxBare {
                            offset: offset as u64,
                            message,
                        },
                        (None, _) => StreamErrorKind::UnexpectedEof,
                    });
                }
                let first = match failure {
                    (Some(offset), message) => StreamErrorKind::JsonSyntax {
                        offset: offset as u64,
                        message,
                    },
                    (None, _) => StreamErrorKind::UnexpectedEof,
                };
                match yaml_restart(bytes, from) {
                    Some(lines) => {
                        self.state = State::Yaml {
                            lines,
                            pending: Some(first),
                        };
                        self.next()
                    }
                    None => self.fail(first),
                }
            }
            State::Yaml { lines, pending } => {
                let mut reader = Lines { bytes, pos: *lines };
                let next = next_yaml(&mut reader, pending);
                *lines = reader.pos;
                match next {
                    Ok(Some((value, span))) => self.found(Document::Yaml(value), span),
                    Ok(None) => {
                        self.state = State::Done;
                        None
                    }
                    Err(kind) => self.fail(kind),
                }
            }
        }
    }
}

/// Reads one document again from the bytes of its [`Span`] (and only those), as
/// [`Documents`] read it from the whole file.
pub fn decode_span(bytes: &[u8], syntax: Syntax) -> Result<Document<'_>, StreamError> {
    match syntax {
        Syntax::Json => {
            let start = bytes
                .iter()
                .position(|&c| !json_scan::is_json_space(c))
                .unwrap_or(bytes.len());
            let end = bytes
                .iter()
                .rposition(|&c| !json_scan::is_json_space(c))
                .map_or(start, |last| last + 1);
            Ok(json_document(&bytes[start..end.max(start)]))
        }
        Syntax::Yaml => yaml::yaml_again(bytes)
            .map(Document::Yaml)
            .map_err(|kind| StreamError { index: 0, kind }),
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
            let Ok(Some((text, _))) = lines.next_document() else {
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
