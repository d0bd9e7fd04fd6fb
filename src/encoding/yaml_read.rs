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

use serde_json::{Map, Number, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

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

// ---------------------------------------------------------------------------------------------
// Node tree (go-yaml's parser stage)
// ---------------------------------------------------------------------------------------------

enum Node {
    Scalar {
        value: String,
        tag: String,
        implicit: bool,
    },
    Alias {
        name: String,
        target: usize,
    },
    Mapping(Vec<usize>),
    Sequence(Vec<usize>),
}

struct Tree {
    nodes: Vec<Node>,
    root: usize,
    max_depth: usize,
    alias_nodes: usize,
}

fn owned_text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|error| go_lossy(error.as_bytes()))
}

fn lossy(bytes: &[u8]) -> String {
    go_lossy(bytes)
}

/// Reads the first document of the stream into a node tree. `None` when the stream holds no
/// document (blank or comment-only text).
fn parse_first_document(input: &[u8]) -> Result<Option<Tree>, YamlError> {
    let mut parser = raw::Parser::new(input)
        .ok_or_else(|| YamlError::yaml("failed to initialize YAML parser"))?;
    let mut next = || {
        parser
            .next_event()
            .map(|(event, _)| event)
            .map_err(parse_failure)
    };

    match next()? {
        raw::Event::StreamStart => {}
        _ => return Err(YamlError::yaml("unknown problem parsing YAML content")),
    }
    match next()? {
        raw::Event::StreamEnd => return Ok(None),
        raw::Event::DocumentStart => {}
        _ => return Err(YamlError::yaml("unknown problem parsing YAML content")),
    }

    let mut nodes: Vec<Node> = Vec::new();
    let mut anchors: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut stack: Vec<usize> = Vec::new();
    let mut max_depth = 0usize;
    let mut alias_nodes = 0usize;
    let root;
    loop {
        let event = next()?;
        let (index, opens) = match event {
            raw::Event::Scalar {
                anchor,
                tag,
                value,
                plain_implicit,
            } => {
                let index = nodes.len();
                nodes.push(Node::Scalar {
                    value: owned_text(value),
                    tag: tag.map(owned_text).unwrap_or_default(),
                    implicit: plain_implicit,
                });
                if let Some(anchor) = anchor {
                    anchors.insert(anchor, index);
                }
                (index, false)
            }
            raw::Event::Alias { anchor } => {
                let name = lossy(&anchor);
                let Some(&target) = anchors.get(&anchor) else {
                    return Err(YamlError::yaml(format!(
                        "unknown anchor '{name}' referenced"
                    )));
                };
                alias_nodes += 1;
                let index = nodes.len();
                nodes.push(Node::Alias { name, target });
                (index, false)
            }
            raw::Event::SequenceStart { anchor } => {
                let index = nodes.len();
                nodes.push(Node::Sequence(Vec::new()));
                if let Some(anchor) = anchor {
                    anchors.insert(anchor, index);
                }
                (index, true)
            }
            raw::Event::MappingStart { anchor } => {
                let index = nodes.len();
                nodes.push(Node::Mapping(Vec::new()));
                if let Some(anchor) = anchor {
                    anchors.insert(anchor, index);
                }
                (index, true)
            }
            raw::Event::SequenceEnd | raw::Event::MappingEnd => {
                if let Some(closed) = stack.pop() {
                    if stack.is_empty() {
                        root = closed;
                        break;
                    }
                }
                continue;
            }
            _ => return Err(YamlError::yaml("unknown problem parsing YAML content")),
        };
        match stack.last() {
            Some(&parent) => match &mut nodes[parent] {
                Node::Mapping(children) | Node::Sequence(children) => children.push(index),
                _ => {}
            },
            None if !opens => {
                root = index;
                break;
            }
            None => {}
        }
        if opens {
            stack.push(index);
            max_depth = max_depth.max(stack.len());
        }
    }
    // go-yaml expects the document end before it decodes; reading it may still fail.
    next()?;
    Ok(Some(Tree {
        nodes,
        root,
        max_depth,
        alias_nodes,
    }))
}

// ---------------------------------------------------------------------------------------------
// Decoding into typed values (go-yaml's decoder stage)
// ---------------------------------------------------------------------------------------------

enum YVal {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    /// An integer beyond 64 bits: exact decimal digits. `float` holds the float64 upstream makes
    /// of it when it reads it as a float (decimal spelling); `None` when upstream keeps a
    /// `*big.Int`.
    Big {
        digits: String,
        float: Option<f64>,
    },
    Float(f64),
    Str(String),
    Map(YMap),
    Seq(Vec<YVal>),
}

#[derive(Hash, PartialEq, Eq)]
enum KeyId {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(u64),
    Str(String),
}

/// A Go `map[interface{}]interface{}`: keys compare like Go interface values; entries keep the
/// order in which their key first appeared.
struct YMap {
    entries: Vec<(YVal, YVal)>,
    /// Built once the map grows past `SMALL_MAP` entries; smaller maps are searched linearly.
    index: HashMap<KeyId, usize>,
}

const SMALL_MAP: usize = 16;

impl YMap {
    fn new() -> Self {
        YMap {
            entries: Vec::new(),
            index: HashMap::new(),
        }
    }

    fn key_id(key: &YVal) -> Option<KeyId> {
        Some(match key {
            YVal::Null => KeyId::Null,
            YVal::Bool(b) => KeyId::Bool(*b),
            YVal::Int(i) => KeyId::Int(*i),
            YVal::Uint(u) => KeyId::Uint(*u),
            YVal::Float(f) if f.is_nan() => return None,
            YVal::Float(f) => KeyId::Float((f + 0.0).to_bits()),
            YVal::Str(s) => KeyId::Str(s.clone()),
            YVal::Big { .. } | YVal::Map(_) | YVal::Seq(_) => return None,
        })
    }

    fn same_key(a: &YVal, b: &YVal) -> bool {
        match (a, b) {
            (YVal::Null, YVal::Null) => true,
            (YVal::Bool(x), YVal::Bool(y)) => x == y,
            (YVal::Int(x), YVal::Int(y)) => x == y,
            (YVal::Uint(x), YVal::Uint(y)) => x == y,
            (YVal::Float(x), YVal::Float(y)) => x == y,
            (YVal::Str(x), YVal::Str(y)) => x == y,
            _ => false,
        }
    }

    fn set(&mut self, key: YVal, value: YVal) {
        if self.entries.len() < SMALL_MAP {
            if let Some(entry) = self
                .entries
                .iter_mut()
                .find(|(k, _)| Self::same_key(k, &key))
            {
                entry.1 = value;
                return;
            }
            self.entries.push((key, value));
            if self.entries.len() == SMALL_MAP {
                for (at, (k, _)) in self.entries.iter().enumerate() {
                    if let Some(id) = Self::key_id(k) {
                        self.index.entry(id).or_insert(at);
                    }
                }
            }
            return;
        }
        if let Some(id) = Self::key_id(&key) {
            if let Some(&at) = self.index.get(&id) {
                self.entries[at].1 = value;
                return;
            }
            self.index.insert(id, self.entries.len());
        }
        self.entries.push((key, value));
    }
}

struct Decoder<'t> {
    tree: &'t Tree,
    /// How many bytes of scalars (plus one per node) aliases may copy in.
    alias_budget: u64,
    alias_bytes: u64,
    decode_count: u64,
    alias_count: u64,
    alias_depth: u32,
    active: HashSet<usize>,
}

/// How much a document's aliases may expand, against its own size.
pub const ALIAS_EXPANSION_FACTOR: u64 = 10;

/// What aliases may expand to in a document of `size` bytes: [`ALIAS_EXPANSION_FACTOR`] times its
/// size, and at least 1 MiB.
///
/// Deliberate difference: go-yaml bounds aliasing by node counts only, so one large anchored
/// scalar referenced a few thousand times (a 1 MB file turned into 3 GB of values) passes there.
fn alias_budget(size: usize) -> u64 {
    (size as u64)
        .saturating_mul(ALIAS_EXPANSION_FACTOR)
        .max(1 << 20)
}

fn excessive_expansion(budget: u64) -> YamlError {
    YamlError::yaml(format!(
        "document contains excessive aliasing: aliases expand to more than {budget} bytes \
         ({ALIAS_EXPANSION_FACTOR} times the document's size, at least 1 MiB)"
    ))
}

/// Checks, without building any value, that the aliases of the first document of `input` stay
/// within [`alias_budget`], for readers that decode YAML by other means (go-yaml v3 semantics
/// through yaml_serde). Only that limit is checked: a document this reader cannot parse passes,
/// for the other reader to report in its own words.
pub fn check_alias_expansion(input: &[u8]) -> Result<(), YamlError> {
    let input: &[u8] = if input.is_empty() { b"\n" } else { input };
    let Ok(Some(tree)) = parse_first_document(input) else {
        return Ok(());
    };
    // Post-order over the tree: an alias's target (an earlier, finished node) is measured
    // before the alias. `full` is a node's size with aliases expanded (one per node plus the
    // text of scalars); `aliased` the part of it that aliases bring in.
    let count = tree.nodes.len();
    let (mut full, mut aliased) = (vec![0u64; count], vec![0u64; count]);
    let mut done = vec![false; count];
    let mut stack = vec![(tree.root, false)];
    while let Some((n, children_done)) = stack.pop() {
        let children = match &tree.nodes[n] {
            Node::Mapping(children) | Node::Sequence(children) => children.as_slice(),
            _ => &[],
        };
        if !children_done && !children.is_empty() {
            stack.push((n, true));
            stack.extend(children.iter().rev().map(|&child| (child, false)));
            continue;
        }
        (full[n], aliased[n]) = match &tree.nodes[n] {
            Node::Scalar { value, .. } => (1 + value.len() as u64, 0),
            // A target still open is an anchor that contains itself: the decoder reports it.
            Node::Alias { target, .. } if done[*target] => (full[*target], full[*target]),
            Node::Alias { .. } => (0, 0),
            Node::Mapping(_) | Node::Sequence(_) => {
                children.iter().fold((1u64, 0u64), |sum, &c| {
                    (
                        sum.0.saturating_add(full[c]),
                        sum.1.saturating_add(aliased[c]),
                    )
                })
            }
        };
        done[n] = true;
    }
    let budget = alias_budget(input.len());
    if aliased[tree.root] > budget {
        return Err(excessive_expansion(budget));
    }
    Ok(())
}

fn allowed_alias_ratio(decode_count: u64) -> f64 {
    const LOW: u64 = 400_000;
    const HIGH: u64 = 4_000_000;
    if decode_count <= LOW {
        0.99
    } else if decode_count >= HIGH {
        0.10
    } else {
        0.99 - 0.89 * ((decode_count - LOW) as f64 / (HIGH - LOW) as f64)
    }
}

fn fail_want_map() -> YamlError {
    YamlError::yaml("map merge requires map or sequence of maps as the value")
}

impl Decoder<'_> {
    fn count(&mut self) -> Result<(), YamlError> {
        self.decode_count += 1;
        if self.alias_depth > 0 {
            self.alias_count += 1;
            self.spend(1)?;
        }
        if self.alias_count > 100
            && self.decode_count > 1000
            && self.alias_count as f64 / self.decode_count as f64
                > allowed_alias_ratio(self.decode_count)
        {
            return Err(YamlError::yaml("document contains excessive aliasing"));
        }
        Ok(())
    }

    /// Charges `bytes` to what aliases copy in (one per node, plus the text of scalars).
    fn spend(&mut self, bytes: usize) -> Result<(), YamlError> {
        self.alias_bytes = self.alias_bytes.saturating_add(bytes as u64);
        if self.alias_bytes > self.alias_budget {
            return Err(excessive_expansion(self.alias_budget));
        }
        Ok(())
    }

    fn enter_alias(&mut self, node: usize, name: &str) -> Result<(), YamlError> {
        if !self.active.insert(node) {
            return Err(YamlError::yaml(format!(
                "anchor '{name}' value contains itself"
            )));
        }
        self.alias_depth += 1;
        Ok(())
    }

    fn leave_alias(&mut self, node: usize) {
        self.alias_depth -= 1;
        self.active.remove(&node);
    }

    /// Decodes node `n`, placed at nesting `depth` (0 for the document root).
    fn value(&mut self, n: usize, depth: usize) -> Result<YVal, YamlError> {
        self.count()?;
        let tree = self.tree;
        match &tree.nodes[n] {
            Node::Scalar {
                value,
                tag,
                implicit,
            } => {
                if self.alias_depth > 0 {
                    self.spend(value.len())?;
                }
                scalar(value, tag, *implicit)
            }
            Node::Alias { name, target } => {
                self.enter_alias(n, name)?;
                let decoded = self.value(*target, depth)?;
                self.leave_alias(n);
                Ok(decoded)
            }
            Node::Mapping(children) => {
                if depth >= MAX_DEPTH {
                    return Err(YamlError::too_deep('{'));
                }
                let mut map = YMap::new();
                self.fill(children, &mut map, depth + 1)?;
                Ok(YVal::Map(map))
            }
            Node::Sequence(children) => {
                if depth >= MAX_DEPTH {
                    return Err(YamlError::too_deep('['));
                }
                let mut items = Vec::with_capacity(children.len());
                for &child in children {
                    items.push(self.value(child, depth + 1)?);
                }
                Ok(YVal::Seq(items))
            }
        }
    }

    fn is_merge(&self, n: usize) -> bool {
        matches!(&self.tree.nodes[n], Node::Scalar { value, tag, implicit }
            if value == "<<" && (*implicit || tag == MERGE_TAG))
    }

    /// Decodes the key/value pairs of a mapping into `map` (its entries sit at `depth`).
    fn fill(&mut self, children: &[usize], map: &mut YMap, depth: usize) -> Result<(), YamlError> {
        for pair in children.chunks(2) {
            let key_node = pair[0];
            if let Some(&value_node) = pair.get(1) {
                if self.is_merge(key_node) {
                    self.merge(value_node, map, depth)?;
                    continue;
                }
                let key = self.value(key_node, depth)?;
                if matches!(key, YVal::Map(_) | YVal::Seq(_)) {
                    return Err(YamlError::yaml(format!(
                        "invalid map key: {}",
                        go_sharp_v(&key, true, false)
                    )));
                }
                let value = self.value(value_node, depth)?;
                map.set(key, value);
            }
        }
        Ok(())
    }

    fn merge_mapping(&mut self, n: usize, map: &mut YMap, depth: usize) -> Result<(), YamlError> {
        self.count()?;
        let tree = self.tree;
        match &tree.nodes[n] {
            Node::Mapping(children) => self.fill(children, map, depth),
            Node::Alias { name, target } => {
                self.enter_alias(n, name)?;
                self.merge_mapping(*target, map, depth)?;
                self.leave_alias(n);
                Ok(())
            }
            _ => Err(fail_want_map()),
        }
    }

    fn is_mapping_or_alias_to_one(&self, n: usize) -> bool {
        match &self.tree.nodes[n] {
            Node::Mapping(_) => true,
            Node::Alias { target, .. } => matches!(self.tree.nodes[*target], Node::Mapping(_)),
            _ => false,
        }
    }

    fn merge(&mut self, n: usize, map: &mut YMap, depth: usize) -> Result<(), YamlError> {
        let tree = self.tree;
        match &tree.nodes[n] {
            Node::Mapping(_) | Node::Alias { .. } => {
                if !self.is_mapping_or_alias_to_one(n) {
                    return Err(fail_want_map());
                }
                self.merge_mapping(n, map, depth)
            }
            Node::Sequence(children) => {
                for &child in children.iter().rev() {
                    if !self.is_mapping_or_alias_to_one(child) {
                        return Err(fail_want_map());
                    }
                    self.merge_mapping(child, map, depth)?;
                }
                Ok(())
            }
            Node::Scalar { .. } => Err(fail_want_map()),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Scalar resolution (go-yaml v2 resolve.go, sigs.k8s.io fork)
// ---------------------------------------------------------------------------------------------

fn short_tag(tag: &str) -> String {
    match tag.strip_prefix(TAG_PREFIX) {
        Some(rest) => format!("!!{rest}"),
        None => tag.to_string(),
    }
}

fn resolvable_tag(tag: &str) -> bool {
    matches!(
        tag,
        "" | STR_TAG | BOOL_TAG | INT_TAG | FLOAT_TAG | NULL_TAG | TIMESTAMP_TAG
    )
}

fn scalar(value: &str, tag: &str, implicit: bool) -> Result<YVal, YamlError> {
    if tag.is_empty() && !implicit {
        return Ok(YVal::Str(value.to_string()));
    }
    if tag == BINARY_TAG {
        let data = super::base64::decode_go(value.as_bytes())
            .map_err(|_| YamlError::yaml("!!binary value contains invalid base64 data"))?;
        return Ok(YVal::Str(go_lossy(&data)));
    }
    if !resolvable_tag(tag) {
        return Ok(YVal::Str(value.to_string()));
    }
    let (rtag, out) = resolve_plain(tag, value);
    if tag.is_empty() || tag == rtag || tag == STR_TAG {
        return Ok(finish(rtag, out, value));
    }
    if tag == FLOAT_TAG && rtag == INT_TAG {
        match out {
            YVal::Int(i) => return Ok(YVal::Float(i as f64)),
            YVal::Big { float: Some(f), .. } => return Ok(YVal::Float(f)),
            _ => {}
        }
    }
    Err(YamlError::yaml(format!(
        "cannot decode {} `{}` as a {}",
        short_tag(rtag),
        value,
        short_tag(tag)
    )))
}

/// What go-yaml stores in an `interface{}`: timestamps stay text.
fn finish(rtag: &str, out: YVal, value: &str) -> YVal {
    if rtag == TIMESTAMP_TAG {
        YVal::Str(value.to_string())
    } else {
        out
    }
}

fn resolve_table(c: u8) -> u8 {
    match c {
        b'+' | b'-' => b'S',
        b'0'..=b'9' => b'D',
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => b'M',
        b'.' => b'.',
        _ => 0,
    }
}

fn resolve_map(s: &str) -> Option<(&'static str, YVal)> {
    Some(match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            (BOOL_TAG, YVal::Bool(true))
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            (BOOL_TAG, YVal::Bool(false))
        }
        "" | "~" | "null" | "Null" | "NULL" => (NULL_TAG, YVal::Null),
        ".nan" | ".NaN" | ".NAN" => (FLOAT_TAG, YVal::Float(f64::NAN)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            (FLOAT_TAG, YVal::Float(f64::INFINITY))
        }
        "-.inf" | "-.Inf" | "-.INF" => (FLOAT_TAG, YVal::Float(f64::NEG_INFINITY)),
        "<<" => (MERGE_TAG, YVal::Str("<<".to_string())),
        _ => return None,
    })
}

fn resolve_plain(tag: &str, input: &str) -> (&'static str, YVal) {
    let hint = input.as_bytes().first().map_or(b'N', |&c| resolve_table(c));
    if hint != 0 && tag != STR_TAG {
        if let Some(found) = resolve_map(input) {
            return found;
        }
        match hint {
            b'.' if is_dot_float(input) => {
                if let Some(f) = finite_float(input) {
                    return (FLOAT_TAG, YVal::Float(f));
                }
            }
            b'D' | b'S' => {
                if let Some(found) = resolve_number(tag, input) {
                    return found;
                }
            }
            _ => {}
        }
    }
    (STR_TAG, YVal::Str(input.to_string()))
}

fn resolve_number(tag: &str, input: &str) -> Option<(&'static str, YVal)> {
    if (tag.is_empty() || tag == TIMESTAMP_TAG)
        && super::timestamp::is_go_timestamp(input.as_bytes())
    {
        return Some((TIMESTAMP_TAG, YVal::Str(input.to_string())));
    }
    let plain: String = input.chars().filter(|&c| c != '_').collect();
    if let Ok(i) = parse_int(&plain, 0) {
        return Some((INT_TAG, YVal::Int(i)));
    }
    let uint_err = match parse_uint(&plain, 0) {
        Ok(u) => return Some((INT_TAG, YVal::Uint(u))),
        Err(e) => e,
    };
    if is_yaml_float(&plain) {
        let float = finite_float(&plain);
        if is_decimal_integer(&plain) {
            // Project decision: keep every digit of an integer go-yaml would read as a float.
            if let Some(f) = float {
                return Some((
                    INT_TAG,
                    YVal::Big {
                        digits: normalize_decimal(&plain),
                        float: Some(f),
                    },
                ));
            }
        } else if let Some(f) = float {
            return Some((FLOAT_TAG, YVal::Float(f)));
        }
    }
    if let Some(rest) = plain.strip_prefix("0b") {
        if let Ok(i) = parse_int(rest, 2) {
            return Some((INT_TAG, YVal::Int(i)));
        }
        if let Ok(u) = parse_uint(rest, 2) {
            return Some((INT_TAG, YVal::Uint(u)));
        }
    } else if let Some(rest) = plain.strip_prefix("-0b") {
        if let Ok(i) = parse_int(&format!("-{rest}"), 2) {
            return Some((INT_TAG, YVal::Int(i)));
        }
    }
    if uint_err == IntError::Range {
        if let Some(digits) = big_from_base0(&plain) {
            return Some((
                INT_TAG,
                YVal::Big {
                    digits,
                    float: None,
                },
            ));
        }
    }
    None
}

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum IntError {
    Syntax,
    Range,
}

fn digit_value(c: u8) -> Option<u32> {
    match c {
        b'0'..=b'9' => Some(u32::from(c - b'0')),
        b'a'..=b'z' => Some(u32::from(c - b'a') + 10),
        b'A'..=b'Z' => Some(u32::from(c - b'A') + 10),
        _ => None,
    }
}

/// Go's `strconv.ParseUint(s, base, 64)` for base 0 (prefixes) or an explicit base; the input
/// holds no underscores.
fn parse_uint(s: &str, base: u32) -> Result<u64, IntError> {
    let bytes = s.as_bytes();
    if bytes.is_empty() {
        return Err(IntError::Syntax);
    }
    let (base, digits) = if base == 0 {
        if bytes[0] == b'0' {
            match bytes.get(1).map(u8::to_ascii_lowercase) {
                Some(b'b') if bytes.len() >= 3 => (2, &bytes[2..]),
                Some(b'o') if bytes.len() >= 3 => (8, &bytes[2..]),
                Some(b'x') if bytes.len() >= 3 => (16, &bytes[2..]),
                _ => (8, &bytes[1..]),
            }
        } else {
            (10, bytes)
        }
    } else {
        (base, bytes)
    };
    let cutoff = u64::MAX / u64::from(base) + 1;
    let mut n: u64 = 0;
    for &c in digits {
        let d = match digit_value(c) {
            Some(d) if d < base => u64::from(d),
            _ => return Err(IntError::Syntax),
        };
        if n >= cutoff {
            return Err(IntError::Range);
        }
        n *= u64::from(base);
        n = n.checked_add(d).ok_or(IntError::Range)?;
    }
    Ok(n)
}

/// Go's `strconv.ParseInt(s, base, 64)`.
fn parse_int(s: &str, base: u32) -> Result<i64, IntError> {
    let (negative, magnitude) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    if magnitude.is_empty() {
        return Err(IntError::Syntax);
    }
    let un = parse_uint(magnitude, base)?;
    if negative {
        if un > 1u64 << 63 {
            return Err(IntError::Range);
        }
        Ok((un as i64).wrapping_neg())
    } else {
        i64::try_from(un).map_err(|_| IntError::Range)
    }
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    if b.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return false;
        }
        i += 1 + n;
    } else {
        let n = digits(i);
        if n == 0 {
            return false;
        }
        i += n;
        if b.get(i) == Some(&b'.') {
            i += 1 + digits(i + 1);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return false;
        }
        i += n;
    }
    i == b.len()
}

/// What Go's `ParseFloat` accepts for text starting with `.`: `.5`, `.5e3`.
fn is_dot_float(s: &str) -> bool {
    s.starts_with('.') && !s[1..].starts_with(['+', '-']) && is_yaml_float(s)
}

fn is_decimal_integer(s: &str) -> bool {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
}

fn normalize_decimal(s: &str) -> String {
    let negative = s.starts_with('-');
    let digits = s.trim_start_matches(['+', '-']).trim_start_matches('0');
    match (negative, digits.is_empty()) {
        (_, true) => "0".to_string(),
        (true, false) => format!("-{digits}"),
        (false, false) => digits.to_string(),
    }
}

fn finite_float(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// `big.Int.SetString(s, 0)` rendered in decimal.
fn big_from_base0(s: &str) -> Option<String> {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let b = rest.as_bytes();
    let (base, digits) = if b.first() == Some(&b'0') && b.len() >= 2 {
        match b[1].to_ascii_lowercase() {
            b'x' => (16, &b[2..]),
            b'b' => (2, &b[2..]),
            b'o' => (8, &b[2..]),
            _ => (8, &b[1..]),
        }
    } else {
        (10, b)
    };
    if digits.is_empty() {
        return None;
    }
    // Little-endian limbs in base 1e9.
    let mut limbs: Vec<u64> = vec![0];
    for &c in digits {
        let d = u64::from(digit_value(c).filter(|&d| d < base)?);
        let mut carry = d;
        for limb in &mut limbs {
            let v = *limb * u64::from(base) + carry;
            *limb = v % 1_000_000_000;
            carry = v / 1_000_000_000;
        }
        while carry > 0 {
            limbs.push(carry % 1_000_000_000);
            carry /= 1_000_000_000;
        }
    }
    let mut text = String::new();
    if negative && limbs.iter().any(|&l| l != 0) {
        text.push('-');
    }
    let mut iter = limbs.iter().rev();
    if let Some(top) = iter.next() {
        let _ = write!(text, "{top}");
    }
    for limb in iter {
        let _ = write!(text, "{limb:09}");
    }
    Some(text)
}

// ---------------------------------------------------------------------------------------------
// JSON-compatible conversion (sigs.k8s.io/yaml) and Go's JSON encoding of numbers
// ---------------------------------------------------------------------------------------------

enum Num {
    I(i64),
    U(u64),
    Text(String),
}

enum JVal {
    Null,
    Bool(bool),
    Num(Num),
    NonFinite(f64),
    Str(String),
    Arr(Vec<JVal>),
    Obj(BTreeMap<String, JVal>),
}

fn key_string(key: &YVal) -> Option<String> {
    Some(match key {
        YVal::Str(s) => s.clone(),
        YVal::Int(i) => i.to_string(),
        YVal::Bool(b) => b.to_string(),
        YVal::Float(f) | YVal::Big { float: Some(f), .. } => go_float_key(*f),
        _ => return None,
    })
}

fn go_type_name(value: &YVal) -> &'static str {
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

fn to_jval(value: YVal) -> Result<JVal, YamlError> {
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

fn to_value(value: JVal) -> Result<Value, YamlError> {
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
fn shortest_digits(f: f64, single: bool) -> (String, i32) {
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

fn fmt_e(negative: bool, digits: &str, point: i32) -> String {
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

fn fmt_f(negative: bool, digits: &str, point: i32) -> String {
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
fn go_format_g(f: f64, single: bool) -> String {
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
fn go_float_key(f: f64) -> String {
    match go_format_g(f, true).as_str() {
        "+Inf" => ".inf".to_string(),
        "-Inf" => "-.inf".to_string(),
        "NaN" => ".nan".to_string(),
        other => other.to_string(),
    }
}

pub(crate) use super::json::go_quote;

/// Go's `%#v` (with `plus`: `%+#v`) of a decoded YAML value; `top` is false inside
/// collections, where a nil prints as `interface {}(nil)`.
fn go_sharp_v(value: &YVal, top: bool, plus: bool) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_found_with_lines() {
        let found =
            first_duplicate_key(b"name: a\nversion: 1.0.0\nx:\n  version: 2\nversion: 1.0.0\n")
                .unwrap();
        assert_eq!(
            (found.key.as_str(), found.first_line, found.line),
            ("version", 2, 5)
        );
        let nested = first_duplicate_key(b"a:\n- {k: 1, k: 2}\n").unwrap();
        assert_eq!((nested.key.as_str(), nested.line), ("k", 2));
        assert_eq!(first_duplicate_key(b"a: 1\nb: {a: 1}\nc: [a, a]\n"), None);
        assert_eq!(first_duplicate_key(b"a: [\n"), None);
        assert_eq!(first_duplicate_key(b"a: 1\n---\na: 1\na: 2\n"), None);
    }

    fn json(text: &str) -> String {
        match yaml_to_json(text) {
            Ok(value) => value.to_string(),
            Err(error) => format!("ERR {error}"),
        }
    }

    /// `value: <scalar>` → the JSON of the value.
    fn scalar_json(scalar: &str) -> String {
        let text = json(&format!("v: {scalar}\n"));
        match text.strip_prefix("{\"v\":") {
            Some(rest) => rest.trim_end_matches('}').to_string(),
            None => text,
        }
    }

    #[test]
    fn plain_scalar_resolution() {
        let cases: &[(&str, &str)] = &[
            // YAML 1.1 booleans
            ("y", "true"),
            ("Y", "true"),
            ("yes", "true"),
            ("Yes", "true"),
            ("YES", "true"),
            ("n", "false"),
            ("N", "false"),
            ("no", "false"),
            ("No", "false"),
            ("NO", "false"),
            ("true", "true"),
            ("True", "true"),
            ("TRUE", "true"),
            ("false", "false"),
            ("False", "false"),
            ("FALSE", "false"),
            ("on", "true"),
            ("On", "true"),
            ("ON", "true"),
            ("off", "false"),
            ("Off", "false"),
            ("OFF", "false"),
            ("yEs", "\"yEs\""),
            ("tRUE", "\"tRUE\""),
            // nulls
            ("~", "null"),
            ("null", "null"),
            ("Null", "null"),
            ("NULL", "null"),
            ("", "null"),
            ("nULL", "\"nULL\""),
            // integers
            ("0", "0"),
            ("42", "42"),
            ("+42", "42"),
            ("-17", "-17"),
            ("-0", "0"),
            ("0x1F", "31"),
            ("0X1f", "31"),
            ("0o17", "15"),
            ("0123", "83"),
            ("-0123", "-83"),
            ("0b101", "5"),
            ("-0b101", "-5"),
            ("1_000", "1000"),
            ("0x_1F", "31"),
            ("08", "8"),
            ("9223372036854775807", "9223372036854775807"),
            ("-9223372036854775808", "-9223372036854775808"),
            ("9223372036854775808", "9223372036854775808"),
            ("18446744073709551615", "18446744073709551615"),
            // beyond 64 bits: digits kept (project decision)
            ("18446744073709551616", "18446744073709551616"),
            ("-9223372036854775809", "-9223372036854775809"),
            (
                "123456789012345678901234567890",
                "123456789012345678901234567890",
            ),
            ("0x10000000000000000", "18446744073709551616"),
            // floats
            ("1.0", "1"),
            ("1.50", "1.5"),
            ("1e3", "1000"),
            ("1E3", "1000"),
            ("1.", "1"),
            (".5", "0.5"),
            ("-.5", "-0.5"),
            ("+.5", "0.5"),
            ("0.25", "0.25"),
            ("3.25", "3.25"),
            ("-0.0", "-0"),
            ("1e21", "1e+21"),
            ("1e20", "100000000000000000000"),
            ("1e-6", "0.000001"),
            ("1e-7", "1e-7"),
            ("1.5e-10", "1.5e-10"),
            ("1.2345e300", "1.2345e+300"),
            ("1_000.5", "1000.5"),
            ("1e400", "\"1e400\""),
            (".5e400", "\".5e400\""),
            ("._5", "\"._5\""),
            // timestamps stay text
            ("2020-01-01", "\"2020-01-01\""),
            (
                "2001-12-14t21:59:43.10-05:00",
                "\"2001-12-14t21:59:43.10-05:00\"",
            ),
            // other text
            ("12:30", "\"12:30\""),
            ("0x", "\"0x\""),
            ("1_", "1"),
            ("+", "\"+\""),
            (".", "\".\""),
            ("<<", "\"<<\""),
            ("foo bar", "\"foo bar\""),
            ("0b", "\"0b\""),
            ("0b-101", "-5"),
            // quoted scalars are strings
            ("\"yes\"", "\"yes\""),
            ("'1.0'", "\"1.0\""),
            ("\"\"", "\"\""),
            ("'null'", "\"null\""),
            // tags
            ("!!str 12", "\"12\""),
            ("!!str yes", "\"yes\""),
            ("!!int \"12\"", "12"),
            ("!!float 3", "3"),
            ("!!float '1.5'", "1.5"),
            ("!!bool \"yes\"", "true"),
            ("!!null ''", "null"),
            ("!!timestamp 2020-01-01", "\"2020-01-01\""),
            ("!!binary aGVsbG8=", "\"hello\""),
            ("!custom 12", "\"12\""),
            ("! 12", "\"12\""),
        ];
        for (input, expected) in cases {
            assert_eq!(scalar_json(input), *expected, "scalar {input:?}");
        }
    }

    #[test]
    fn nonfinite_values_fail_like_json_marshal() {
        let cases: &[(&str, &str)] = &[
            (".inf", "+Inf"),
            (".Inf", "+Inf"),
            ("+.INF", "+Inf"),
            ("-.inf", "-Inf"),
            (".nan", "NaN"),
            (".NaN", "NaN"),
        ];
        for (input, shown) in cases {
            assert_eq!(
                scalar_json(input),
                format!("ERR error converting YAML to JSON: json: unsupported value: {shown}"),
                "scalar {input:?}"
            );
        }
        // Go's encoder walks keys in sorted order: the first bad one is reported.
        assert_eq!(
            json("z: .inf\na: .nan\n"),
            "ERR error converting YAML to JSON: json: unsupported value: NaN"
        );
    }

    #[test]
    fn tag_mismatches() {
        let cases: &[(&str, &str)] = &[
            ("!!int foo", "cannot decode !!str `foo` as a !!int"),
            ("!!int 1.5", "cannot decode !!float `1.5` as a !!int"),
            ("!!bool 1", "cannot decode !!int `1` as a !!bool"),
            ("!!null x", "cannot decode !!str `x` as a !!null"),
            ("!!float yes", "cannot decode !!bool `yes` as a !!float"),
            (
                "!!timestamp 12",
                "cannot decode !!int `12` as a !!timestamp",
            ),
            (
                "!!timestamp 2020-13-01",
                "cannot decode !!str `2020-13-01` as a !!timestamp",
            ),
            ("!!binary a", "!!binary value contains invalid base64 data"),
        ];
        for (input, message) in cases {
            assert_eq!(
                scalar_json(input),
                format!("ERR error converting YAML to JSON: yaml: {message}"),
                "scalar {input:?}"
            );
        }
    }

    #[test]
    fn keys_become_strings() {
        let cases: &[(&str, &str)] = &[
            ("yes: no\nn: 2\n", r#"{"false":2,"true":false}"#),
            ("1: a\n0x10: b\n", r#"{"1":"a","16":"b"}"#),
            ("1.5: a\n", r#"{"1.5":"a"}"#),
            ("1.0: a\n", r#"{"1":"a"}"#),
            ("1e6: a\n", r#"{"1e+06":"a"}"#),
            ("100000.0: a\n", r#"{"100000":"a"}"#),
            ("0.1: a\n", r#"{"0.1":"a"}"#),
            ("3.14159265358979: a\n", r#"{"3.1415927":"a"}"#),
            ("0.00001: a\n", r#"{"1e-05":"a"}"#),
            (
                ".inf: a\n-.inf: b\n.nan: c\n",
                r#"{"-.inf":"b",".inf":"a",".nan":"c"}"#,
            ),
            (
                "123456789012345678901234567890: a\n",
                r#"{"1.2345679e+29":"a"}"#,
            ),
            ("2020-01-01: a\n", r#"{"2020-01-01":"a"}"#),
            ("'yes': a\n", r#"{"yes":"a"}"#),
            ("? a\n", r#"{"a":null}"#),
        ];
        for (input, expected) in cases {
            assert_eq!(json(input), *expected, "input {input:?}");
        }
        let failures: &[(&str, &str)] = &[
            (
                "~: e\n",
                "unsupported map key of type: %!s(<nil>), key: <nil>, value: \"e\"",
            ),
            (
                "18446744073709551615: [1, ~]\n",
                "unsupported map key of type: uint64, key: 0xffffffffffffffff, value: []interface {}{1, interface {}(nil)}",
            ),
            (
                "0x10000000000000000: 1\n",
                "unsupported map key of type: *big.Int, key: +18446744073709551616, value: 1",
            ),
        ];
        for (input, message) in failures {
            assert_eq!(
                json(input),
                format!("ERR error converting YAML to JSON: {message}"),
                "input {input:?}"
            );
        }
        assert_eq!(
            json("[a]: 1\n"),
            "ERR error converting YAML to JSON: yaml: invalid map key: []interface {}{\"a\"}"
        );
        assert_eq!(
            json("? {a: 1}\n: x\n"),
            "ERR error converting YAML to JSON: yaml: invalid map key: map[interface {}]interface {}{\"a\":1}"
        );
    }

    #[test]
    fn duplicates_anchors_and_merges() {
        let cases: &[(&str, &str)] = &[
            ("k: 1\nk: 2\n", r#"{"k":2}"#),
            ("y: 1\ntrue: 2\n", r#"{"true":2}"#),
            (
                "base: &b {x: 1, y: [1, 2]}\ncopy: *b\n",
                r#"{"base":{"true":[1,2],"x":1},"copy":{"true":[1,2],"x":1}}"#,
            ),
            ("a: &x 5\nb: *x\n", r#"{"a":5,"b":5}"#),
            ("a: &x 1\nb: &x 2\nc: *x\n", r#"{"a":1,"b":2,"c":2}"#),
            (
                "d: &d {a: 1, b: 2}\ne:\n  <<: *d\n  b: 3\n",
                r#"{"d":{"a":1,"b":2},"e":{"a":1,"b":3}}"#,
            ),
            ("e:\n  b: 3\n  <<: {a: 1, b: 2}\n", r#"{"e":{"a":1,"b":2}}"#),
            (
                "<<: [{a: 1, b: 1}, {b: 2, c: 2}]\n",
                r#"{"a":1,"b":1,"c":2}"#,
            ),
            ("'<<': {a: 1}\n", r#"{"<<":{"a":1}}"#),
            ("!!merge <<: {a: 1}\n", r#"{"a":1}"#),
        ];
        for (input, expected) in cases {
            assert_eq!(json(input), *expected, "input {input:?}");
        }
        let failures: &[(&str, &str)] = &[
            ("a: *nope\n", "yaml: unknown anchor 'nope' referenced"),
            ("a: &a [*a]\n", "yaml: anchor 'a' value contains itself"),
            (
                "<<: 5\n",
                "yaml: map merge requires map or sequence of maps as the value",
            ),
            (
                "<<: [5]\n",
                "yaml: map merge requires map or sequence of maps as the value",
            ),
            (
                "a: &s [1]\n<<: *s\n",
                "yaml: map merge requires map or sequence of maps as the value",
            ),
        ];
        for (input, message) in failures {
            assert_eq!(
                json(input),
                format!("ERR error converting YAML to JSON: {message}"),
                "input {input:?}"
            );
        }
    }

    #[test]
    fn documents_without_content_are_null() {
        for input in [
            "",
            "\n",
            "\n\n\n",
            "# just a comment\n",
            "---\n",
            "---\n# c\n",
            "~\n",
        ] {
            assert_eq!(yaml_to_json(input), Ok(Value::Null), "input {input:?}");
        }
        // Only the first document of the text is read.
        assert_eq!(json("a: 1\n...\nb: [\n"), r#"{"a":1}"#);
        assert_eq!(json("a: 1\n---\nb: 2\n"), r#"{"a":1}"#);
    }

    #[test]
    fn syntax_errors_use_go_yaml_line_rule() {
        let cases: &[(&str, &str)] = &[
            (
                "schema: olm.package\nname: [foo\n",
                "yaml: line 2: did not find expected ',' or ']'",
            ),
            (
                "schema: a: b\n",
                "yaml: mapping values are not allowed in this context",
            ),
            (
                "x: 1\nschema: a: b\n",
                "yaml: line 2: mapping values are not allowed in this context",
            ),
            (
                "schema: a.b\n\tkey: v\n",
                "yaml: line 2: found a tab character that violates indentation",
            ),
            (
                "a:\n  - b\n  c: d\n",
                "yaml: line 2: did not find expected '-' indicator",
            ),
            ("a: 'x\n", "yaml: line 2: found unexpected end of stream"),
            ("@x\n", "yaml: found character that cannot start any token"),
            (
                "a: b\n@x\n",
                "yaml: line 2: found character that cannot start any token",
            ),
            (
                "key: [a, b\nc: d\n",
                "yaml: line 1: did not find expected ',' or ']'",
            ),
            (
                "- a\nb: c\n",
                "yaml: line 1: did not find expected '-' indicator",
            ),
        ];
        for (input, message) in cases {
            assert_eq!(
                json(input),
                format!("ERR error converting YAML to JSON: {message}"),
                "input {input:?}"
            );
        }
    }

    #[test]
    fn encodings() {
        assert_eq!(
            yaml_bytes_to_json(b"\xff\xfe\x00garbage\n").map_err(|e| e.to_string()),
            Err("error converting YAML to JSON: yaml: incomplete UTF-16 character".to_string())
        );
        let utf16: Vec<u8> = [0xfeff_u16]
            .into_iter()
            .chain("a: 1\n".encode_utf16())
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(
            yaml_bytes_to_json(&utf16).map(|v| v.to_string()),
            Ok(r#"{"a":1}"#.to_string())
        );
        assert_eq!(json("\u{feff}a: 1\n"), r#"{"a":1}"#);
        assert_eq!(
            yaml_bytes_to_json(b"a: \xff\n").map_err(|e| e.to_string()),
            Err("error converting YAML to JSON: yaml: invalid leading UTF-8 octet".to_string())
        );
        assert_eq!(
            json("a: \u{1}\n"),
            "ERR error converting YAML to JSON: yaml: control characters are not allowed"
        );
    }

    #[test]
    fn go_float_printing() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.25e-7, "1.25e-7"),
            (1e-10, "1e-10"),
            (123456789.0, "123456789"),
            (-0.0, "-0"),
            (0.0, "0"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
        ];
        for (value, expected) in cases {
            assert_eq!(go_json_float(*value), *expected, "value {value}");
        }
        assert_eq!(go_float_key(1e6), "1e+06");
        assert_eq!(go_float_key(123456.0), "123456");
        assert_eq!(go_float_key(1234567.0), "1.234567e+06");
        assert_eq!(go_float_key(0.0001), "0.0001");
        assert_eq!(go_float_key(0.00001), "1e-05");
        assert_eq!(go_float_key(1e300), ".inf");
        assert_eq!(
            go_quote("a\"b\\c\n\u{1}é\u{a0}"),
            r#""a\"b\\c\n\x01é\u00a0""#
        );
    }

    #[test]
    fn deep_and_aliased_documents() {
        let depth = MAX_DEPTH;
        let ok = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let value = yaml_to_json(&ok).expect("10000 levels are accepted");
        drop(value);
        let deep = format!("{}{}", "[".repeat(depth + 1), "]".repeat(depth + 1));
        assert_eq!(
            yaml_to_json(&deep).map_err(|e| e.to_string()),
            Err("error unmarshaling JSON: while decoding JSON: invalid character '[' exceeded max depth".to_string())
        );
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            let _ = writeln!(
                bomb,
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]"
            );
        }
        assert_eq!(
            yaml_to_json(&bomb).map_err(|e| e.to_string()),
            Err(
                "error converting YAML to JSON: yaml: document contains excessive aliasing"
                    .to_string()
            )
        );
        // One large scalar referenced many times passes go-yaml's node ratio; its bytes do not.
        let big = "x".repeat(64 << 10);
        let mut scalars = format!("big: &big \"{big}\"\nrefs:\n");
        for i in 0..300 {
            let _ = writeln!(scalars, "  k{i}: *big");
        }
        let refused = yaml_to_json(&scalars).unwrap_err().to_string();
        assert_eq!(
            check_alias_expansion(scalars.as_bytes()).map_err(|e| e.to_string()),
            Err(refused.clone())
        );
        assert!(
            refused.starts_with(
                "error converting YAML to JSON: yaml: document contains excessive aliasing: \
                 aliases expand to more than"
            ),
            "{refused}"
        );
        // A few references stay within the budget.
        let mut fewer = format!("big: &big \"{big}\"\nrefs:\n");
        for i in 0..9 {
            let _ = writeln!(fewer, "  k{i}: *big");
        }
        assert!(yaml_to_json(&fewer).is_ok());
        assert!(check_alias_expansion(fewer.as_bytes()).is_ok());
        // Nested anchors multiply: each level doubles what the one below expands to.
        let mut doubling = "a0: &a0 \"xxxxxxxx\"\n".to_string();
        for i in 1..30 {
            let _ = writeln!(doubling, "a{i}: &a{i} [*a{p}, *a{p}]", p = i - 1);
        }
        assert!(check_alias_expansion(doubling.as_bytes()).is_err());
        assert!(check_alias_expansion(b"a: &a [*a]\n").is_ok());
        assert!(check_alias_expansion(b"a: [unclosed\n").is_ok());
        // Aliases nesting 300 levels deep, with enough plain content to stay under the
        // aliasing ratio.
        let mut chain = format!("pad: [{}]\na0: &a0 [1]\n", vec!["0"; 100_000].join(", "));
        for i in 1..300 {
            let _ = writeln!(chain, "a{i}: &a{i} [*a{}]", i - 1);
        }
        assert!(yaml_to_json(&chain).is_ok());
    }
}
