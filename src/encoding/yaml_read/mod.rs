//! One YAML document converted to JSON the way upstream does it: sigs.k8s.io/yaml's
//! `YAMLToJSON` on top of go-yaml v2 (YAML 1.1 resolution of plain scalars), with upstream's
//! error texts.
//!
//! What is reproduced:
//! * plain scalars resolve like go-yaml v2: booleans (`y`, `Yes`, `off`, ...), nulls (`~`,
//!   `null`, empty), integers (decimal, `0x`, `0o`, `0b`, leading-`0` octal, `_` separators,
//!   sign), floats (go-yaml's float pattern, `.inf`, `.nan`), timestamps (kept as their text);
//!   quoted scalars are strings; the standard `!!` tags are honoured (`!!str 5` is a string,
//!   `!!int "5"` a number, mismatches fail like upstream);
//! * anchors, aliases, merge keys `<<` (applied in document order, so a later merge overrides
//!   earlier keys, as go-yaml v2 does), duplicate keys (last wins);
//! * non-string keys become strings like sigs.k8s.io/yaml: `true`/`false`, decimal integers,
//!   floats through Go's `%g` at float32 precision (`1.5`, `1e+06`, `.inf`); keys upstream
//!   cannot convert (null, integers beyond int64) fail with its message;
//! * floats print like Go's `encoding/json` (`1.50` → `1.5`, `1e3` → `1000`, `1e21` → `1e+21`);
//!   `.inf`/`.nan` values fail with `json: unsupported value: +Inf`;
//! * only the first YAML document of the text is read (go-yaml's `Unmarshal`);
//! * syntax errors read `yaml: line <n>: <problem>` with go-yaml v2's line rule.
//!
//! Deliberate differences (project decisions):
//! * an integer beyond the 64-bit range keeps its exact digits (upstream turns a decimal one into
//!   a float64 and loses digits);
//! * a value nested deeper than 10000 levels is refused with the error upstream reports when it
//!   decodes the converted JSON (`... exceeded max depth`) instead of being returned.
//!
//! One submodule a stage: `raw` (libyaml's events), `tree` (the node tree), `decode` (typed
//! values, anchors and merges), `resolve` (plain scalars), `json` (the JSON value).

mod decode;
mod json;
mod resolve;
mod tree;

pub(crate) use super::json::go_quote;
use decode::{alias_budget, Decoder};
pub use decode::{check_alias_expansion, ALIAS_EXPANSION_FACTOR};
pub(crate) use json::go_lossy;
use json::{to_jval, to_value};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use tree::{parse_first_document, Tree};

/// Deepest nesting of collections accepted (Go's `encoding/json` limit).
const MAX_DEPTH: usize = 10_000;

/// Nesting bound above which the conversion runs on a thread with a large stack.
const INLINE_DEPTH: usize = 256;

const TAG_PREFIX: &str = "tag:yaml.org,2002:";
const STR_TAG: &str = "tag:yaml.org,2002:str";
const BOOL_TAG: &str = "tag:yaml.org,2002:bool";
const INT_TAG: &str = "tag:yaml.org,2002:int";
const FLOAT_TAG: &str = "tag:yaml.org,2002:float";
const NULL_TAG: &str = "tag:yaml.org,2002:null";
const TIMESTAMP_TAG: &str = "tag:yaml.org,2002:timestamp";
const BINARY_TAG: &str = "tag:yaml.org,2002:binary";
const MERGE_TAG: &str = "tag:yaml.org,2002:merge";

/// A YAML document that cannot be converted; `Display` is upstream's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct YamlError {
    message: String,
    /// Where the parser stopped, relative to the document (syntax errors only).
    position: Option<super::locate::Position>,
}

impl YamlError {
    /// Upstream's message (the same text `Display` prints).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where in the document a syntax error is (1-based line and column), for locating it;
    /// the line in the message follows go-yaml's own counting instead.
    pub fn position(&self) -> Option<super::locate::Position> {
        self.position
    }

    fn converting(detail: impl std::fmt::Display) -> Self {
        YamlError {
            message: format!("error converting YAML to JSON: {detail}"),
            position: None,
        }
    }

    /// A failure raised inside go-yaml (`yaml: ...`).
    fn yaml(detail: impl std::fmt::Display) -> Self {
        Self::converting(format!("yaml: {detail}"))
    }

    fn too_deep(bracket: char) -> Self {
        YamlError {
            message: format!(
                "error unmarshaling JSON: while decoding JSON: invalid character '{bracket}' exceeded max depth"
            ),
            position: None,
        }
    }
}

/// Converts one YAML document's text to JSON like sigs.k8s.io/yaml.YAMLToJSON (go-yaml v2).
///
/// A document without content (empty, blank or comments only) gives `Value::Null`, as upstream's
/// conversion gives `null`.
pub fn yaml_to_json(text: &str) -> Result<Value, YamlError> {
    yaml_bytes_to_json(text.as_bytes())
}

/// Same as [`yaml_to_json`] for raw bytes: the encoding is detected like go-yaml does (UTF-8, or
/// UTF-16 with a byte-order mark); bad encodings fail with go-yaml's reader messages
/// (`yaml: incomplete UTF-16 character`, `yaml: invalid leading UTF-8 octet`, ...).
pub fn yaml_bytes_to_json(input: &[u8]) -> Result<Value, YamlError> {
    let input: &[u8] = if input.is_empty() { b"\n" } else { input };
    let Some(tree) = parse_first_document(input)? else {
        return Ok(Value::Null);
    };
    let bound = tree
        .max_depth
        .saturating_mul(tree.alias_nodes.saturating_add(1));
    if bound <= INLINE_DEPTH {
        return convert_tree(&tree, input.len());
    }
    super::on_deep_stack(|| convert_tree(&tree, input.len()))
        .unwrap_or_else(|_| Err(YamlError::yaml("unknown problem parsing YAML content")))
}

fn convert_tree(tree: &Tree, size: usize) -> Result<Value, YamlError> {
    let mut decoder = Decoder {
        tree,
        alias_budget: alias_budget(size),
        alias_bytes: 0,
        decode_count: 1, // go-yaml also counts the document node
        alias_count: 0,
        alias_depth: 0,
        active: HashSet::new(),
    };
    let yaml = decoder.value(tree.root, 0)?;
    drop(decoder);
    let json = to_jval(yaml)?;
    to_value(json)
}

/// A mapping key that appears twice in the same mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The key as written (a scalar's text).
    pub key: String,
    /// 1-based lines of the first and the repeated occurrence.
    pub first_line: u64,
    pub line: u64,
}

/// The first scalar key repeated within one mapping of the first document of `input`, for
/// formats that refuse duplicates (go-yaml v2 itself keeps the last value). Keys compare by
/// their text; merge keys and non-scalar keys are not considered. Syntax errors are left to
/// [`yaml_bytes_to_json`] (this returns `None` for them).
pub fn first_duplicate_key(input: &[u8]) -> Option<DuplicateKey> {
    use raw::Event;
    enum Frame {
        /// A mapping: keys seen with their lines, and whether the next node is a key.
        Map {
            seen: HashMap<Vec<u8>, u64>,
            expect_key: bool,
        },
        Seq,
    }
    let input: &[u8] = if input.is_empty() { b"\n" } else { input };
    let mut parser = raw::Parser::new(input)?;
    let mut stack: Vec<Frame> = Vec::new();
    let mut documents = 0;
    loop {
        let (event, mark) = parser.next_event().ok()?;
        let line = mark.line;
        // A node in a mapping alternates key and value; only scalar keys are checked.
        let node_done = |stack: &mut Vec<Frame>, key: Option<&[u8]>| -> Option<DuplicateKey> {
            if let Some(Frame::Map { seen, expect_key }) = stack.last_mut() {
                if *expect_key {
                    if let Some(key) = key.filter(|k| *k != b"<<") {
                        if let Some(&first) = seen.get(key) {
                            return Some(DuplicateKey {
                                key: String::from_utf8_lossy(key).into_owned(),
                                first_line: first + 1,
                                line: line + 1,
                            });
                        }
                        seen.insert(key.to_vec(), line);
                    }
                }
                *expect_key = !*expect_key;
            }
            None
        };
        match event {
            Event::StreamEnd => return None,
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return None;
                }
            }
            Event::DocumentEnd | Event::StreamStart => {}
            Event::Scalar { value, .. } => {
                if let Some(found) = node_done(&mut stack, Some(&value)) {
                    return Some(found);
                }
            }
            Event::Alias { .. } => {
                if let Some(found) = node_done(&mut stack, None) {
                    return Some(found);
                }
            }
            Event::MappingStart { .. } => stack.push(Frame::Map {
                seen: HashMap::new(),
                expect_key: true,
            }),
            Event::SequenceStart { .. } => stack.push(Frame::Seq),
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
                if let Some(found) = node_done(&mut stack, None) {
                    return Some(found);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// libyaml event parser (safe wrapper)
// ---------------------------------------------------------------------------------------------

pub(super) mod raw {
    use libyaml_rs as sys;
    use std::ffi::CStr;
    use std::marker::PhantomData;
    use std::mem::MaybeUninit;

    pub(crate) enum Event {
        StreamStart,
        StreamEnd,
        DocumentStart,
        DocumentEnd,
        Alias {
            anchor: Vec<u8>,
        },
        Scalar {
            anchor: Option<Vec<u8>>,
            tag: Option<Vec<u8>>,
            value: Vec<u8>,
            plain_implicit: bool,
        },
        SequenceStart {
            anchor: Option<Vec<u8>>,
        },
        SequenceEnd,
        MappingStart {
            anchor: Option<Vec<u8>>,
        },
        MappingEnd,
    }

    /// Where an event starts: 0-based line and column (in characters).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) struct Mark {
        pub line: u64,
        pub column: u64,
    }

    /// The parser's error state, as go-yaml reads it to build its message.
    pub(crate) struct Problem {
        pub scanner: bool,
        pub problem: String,
        pub problem_line: u64,
        pub problem_column: u64,
        pub context_line: u64,
    }

    pub(crate) struct Parser<'a> {
        sys: Box<MaybeUninit<sys::yaml_parser_t>>,
        failed: bool,
        _input: PhantomData<&'a [u8]>,
    }

    impl<'a> Parser<'a> {
        /// A parser over `input`, which must stay alive (and unmoved) as long as the parser:
        /// the lifetime ties them. `None` when libyaml cannot allocate its buffers.
        pub fn new(input: &'a [u8]) -> Option<Parser<'a>> {
            let mut sys = Box::new(MaybeUninit::<sys::yaml_parser_t>::uninit());
            // SAFETY: the parser lives in a stable heap allocation; libyaml initialises it
            // completely before anything else touches it. The input pointer stays valid for 'a.
            unsafe {
                let parser = sys.as_mut_ptr();
                if sys::yaml_parser_initialize(parser).fail {
                    return None;
                }
                sys::yaml_parser_set_input_string(parser, input.as_ptr(), input.len() as _);
            }
            Some(Parser {
                sys,
                failed: false,
                _input: PhantomData,
            })
        }

        /// The next event and where it starts (0-based line and column, in characters).
        pub fn next_event(&mut self) -> Result<(Event, Mark), Problem> {
            if self.failed {
                return Err(Problem {
                    scanner: false,
                    problem: String::new(),
                    problem_line: 0,
                    problem_column: 0,
                    context_line: 0,
                });
            }
            let mut event = MaybeUninit::<sys::yaml_event_t>::uninit();
            // SAFETY: the parser was initialised in `new`; on success libyaml fills `event`,
            // which is read once and then released with `yaml_event_delete`.
            unsafe {
                let parser = self.sys.as_mut_ptr();
                if sys::yaml_parser_parse(parser, event.as_mut_ptr()).fail {
                    self.failed = true;
                    return Err(problem(parser));
                }
                let event = event.as_mut_ptr();
                let converted = convert(&*event);
                let mark = Mark {
                    line: (*event).start_mark.line,
                    column: (*event).start_mark.column,
                };
                sys::yaml_event_delete(event);
                Ok((converted, mark))
            }
        }
    }

    impl Drop for Parser<'_> {
        fn drop(&mut self) {
            // SAFETY: the parser was initialised in `new` (construction fails otherwise).
            unsafe { sys::yaml_parser_delete(self.sys.as_mut_ptr()) }
        }
    }

    unsafe fn c_text(ptr: *const i8) -> Option<String> {
        if ptr.is_null() {
            return None;
        }
        Some(String::from_utf8_lossy(CStr::from_ptr(ptr.cast()).to_bytes()).into_owned())
    }

    unsafe fn problem(parser: *mut sys::yaml_parser_t) -> Problem {
        let parser = &*parser;
        Problem {
            scanner: matches!(parser.error, sys::YAML_SCANNER_ERROR),
            problem: c_text(parser.problem.cast()).unwrap_or_default(),
            problem_line: parser.problem_mark.line,
            problem_column: parser.problem_mark.column,
            context_line: parser.context_mark.line,
        }
    }

    unsafe fn bytes(ptr: *const u8) -> Option<Vec<u8>> {
        if ptr.is_null() {
            return None;
        }
        Some(CStr::from_ptr(ptr.cast()).to_bytes().to_vec())
    }

    unsafe fn convert(event: &sys::yaml_event_t) -> Event {
        match event.type_ {
            sys::YAML_STREAM_START_EVENT => Event::StreamStart,
            sys::YAML_DOCUMENT_START_EVENT => Event::DocumentStart,
            sys::YAML_DOCUMENT_END_EVENT => Event::DocumentEnd,
            sys::YAML_ALIAS_EVENT => Event::Alias {
                anchor: bytes(event.data.alias.anchor).unwrap_or_default(),
            },
            sys::YAML_SCALAR_EVENT => {
                let scalar = event.data.scalar;
                let value = if scalar.value.is_null() || scalar.length == 0 {
                    Vec::new()
                } else {
                    std::slice::from_raw_parts(scalar.value, scalar.length as usize).to_vec()
                };
                Event::Scalar {
                    anchor: bytes(scalar.anchor),
                    tag: bytes(scalar.tag),
                    value,
                    plain_implicit: scalar.plain_implicit,
                }
            }
            sys::YAML_SEQUENCE_START_EVENT => Event::SequenceStart {
                anchor: bytes(event.data.sequence_start.anchor),
            },
            sys::YAML_SEQUENCE_END_EVENT => Event::SequenceEnd,
            sys::YAML_MAPPING_START_EVENT => Event::MappingStart {
                anchor: bytes(event.data.mapping_start.anchor),
            },
            sys::YAML_MAPPING_END_EVENT => Event::MappingEnd,
            _ => Event::StreamEnd,
        }
    }
}

/// go-yaml v2's `fail()`: the problem's line (one more for scanner errors), else the context's
/// line; a line 0 is not printed.
fn parse_failure(problem: raw::Problem) -> YamlError {
    let line = if problem.problem_line != 0 {
        problem.problem_line + u64::from(problem.scanner)
    } else {
        problem.context_line
    };
    let message = if problem.problem.is_empty() {
        "unknown problem parsing YAML content".to_string()
    } else {
        problem.problem
    };
    let mut error = if line != 0 {
        YamlError::yaml(format!("line {line}: {message}"))
    } else {
        YamlError::yaml(message)
    };
    error.position = Some(super::locate::Position {
        line: problem.problem_line + 1,
        column: problem.problem_column + 1,
    });
    error
}

#[cfg(test)]
mod tests;
