//! YAML text as upstream opm prints it for `-o yaml`.
//!
//! Upstream turns each JSON document into YAML with `sigs.k8s.io/yaml.JSONToYAML`: the JSON text
//! is decoded into generic Go values and marshalled again by go-yaml v2, whose emitter is a port
//! of libyaml's. This module reproduces the decisions of that emitter for JSON-shaped values:
//! the order of mapping keys, the style of every scalar (plain, single-quoted, double-quoted or
//! literal block), folding of long scalars at 80 columns, and indentation.
//!
//! Numbers are the one intended difference: go-yaml prints the Go value it decoded (so large
//! integers and floats get reformatted), while here a number keeps the exact text serde_json
//! stored for it (note that serde_json's parser already spells exponents as `e+3`/`e-3`).

use serde_json::Value;

/// Indentation step of go-yaml's emitter.
const BEST_INDENT: usize = 2;
/// Preferred line width; scalars are folded at a space once a line is longer than this.
const BEST_WIDTH: usize = 80;
/// Keys longer than this (in bytes) are written as explicit `? key` entries.
const MAX_SIMPLE_KEY_LEN: usize = 128;

/// Appends the YAML text of one document (no leading `---` line) for `value` to `out`,
/// ending with a newline, as go-yaml v2 Marshal prints it.
pub fn write_document(value: &Value, out: &mut Vec<u8>) {
    emit(value, out, BEST_WIDTH);
}

/// Like [`write_document`], but never folds long scalars: go-yaml v3's encoder (what upstream
/// HEAD uses for `annotations.yaml`) sets an unlimited line width and otherwise makes the same
/// decisions for JSON-shaped values.
pub fn write_document_unfolded(value: &Value, out: &mut Vec<u8>) {
    emit(value, out, usize::MAX);
}

fn emit(value: &Value, out: &mut Vec<u8>, width: usize) {
    let mut emitter = Emitter::new(out, width);
    emitter.node(value, Context::default());
    // An implicit document end only moves to the start of a fresh line.
    emitter.write_indent();
}

/// Scalar styles of the emitter (go-yaml never asks for folded `>` scalars).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// Where a node appears; drives indentation of sequences and the choice of scalar styles.
#[derive(Clone, Copy, Default)]
struct Context {
    /// The node is a mapping key or a mapping value.
    mapping: bool,
    /// The node is a key written without the `?` indicator.
    simple_key: bool,
}

/// What a scalar's text allows, as libyaml's scalar analysis computes it.
#[derive(Clone, Copy, Debug)]
struct Analysis {
    multiline: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

/// Output state mirroring libyaml's emitter: the current column, whether the last thing
/// written was whitespace, whether only indentation has been written on the current line,
/// and the stack of indentation levels (-1 means "not indented yet").
struct Emitter<'a> {
    out: &'a mut Vec<u8>,
    column: usize,
    whitespace: bool,
    indention: bool,
    indent: isize,
    indents: Vec<isize>,
    /// Column after which scalars are folded at a space.
    width: usize,
}

impl<'a> Emitter<'a> {
    fn new(out: &'a mut Vec<u8>, width: usize) -> Self {
        Emitter {
            out,
            width,
            column: 0,
            whitespace: true,
            indention: true,
            indent: -1,
            indents: Vec::new(),
        }
    }

    fn node(&mut self, value: &Value, ctx: Context) {
        match value {
            Value::Null => self.scalar("null", Style::Plain, ctx),
            Value::Bool(true) => self.scalar("true", Style::Plain, ctx),
            Value::Bool(false) => self.scalar("false", Style::Plain, ctx),
            Value::Number(number) => self.scalar(&number.to_string(), Style::Plain, ctx),
            Value::String(text) => self.scalar(text, requested_string_style(text), ctx),
            Value::Array(items) if items.is_empty() => self.empty_flow(b"[", b"]"),
            Value::Array(items) => self.block_sequence(items, ctx),
            Value::Object(map) if map.is_empty() => self.empty_flow(b"{", b"}"),
            Value::Object(map) => self.block_mapping(map),
        }
    }

    /// Empty collections always use flow style; with nothing inside, the flow level and
    /// indentation changes of the flow states leave no trace in the output.
    fn empty_flow(&mut self, open: &[u8], close: &[u8]) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    fn block_sequence(&mut self, items: &[Value], ctx: Context) {
        // A sequence that is a mapping value, started on the key's line, is not indented
        // further than its key ("key:\n- a").
        let indentless = ctx.mapping && !self.indention;
        self.increase_indent(false, indentless);
        for item in items {
            self.write_indent();
            self.write_indicator(b"-", true, false, true);
            self.node(item, Context::default());
        }
        self.pop_indent();
    }

    fn block_mapping(&mut self, map: &serde_json::Map<String, Value>) {
        self.increase_indent(false, false);
        let mut entries: Vec<(&str, &Value)> = map
            .iter()
            .map(|(key, value)| (key.as_str(), value))
            .collect();
        merge_sort_by(&mut entries, |a, b| go_key_less(a.0, b.0));
        for (key, value) in entries {
            self.write_indent();
            let analysis = analyze_scalar(key.as_bytes());
            let style = requested_string_style(key);
            if !analysis.multiline && key.len() <= MAX_SIMPLE_KEY_LEN {
                let ctx = Context {
                    mapping: true,
                    simple_key: true,
                };
                self.scalar_with_analysis(key, style, analysis, ctx);
                self.write_indicator(b":", false, false, false);
            } else {
                self.write_indicator(b"?", true, false, true);
                let ctx = Context {
                    mapping: true,
                    simple_key: false,
                };
                self.scalar_with_analysis(key, style, analysis, ctx);
                self.write_indent();
                self.write_indicator(b":", true, false, true);
            }
            let ctx = Context {
                mapping: true,
                simple_key: false,
            };
            self.node(value, ctx);
        }
        self.pop_indent();
    }

    fn scalar(&mut self, text: &str, requested: Style, ctx: Context) {
        let analysis = analyze_scalar(text.as_bytes());
        self.scalar_with_analysis(text, requested, analysis, ctx);
    }

    fn scalar_with_analysis(
        &mut self,
        text: &str,
        requested: Style,
        analysis: Analysis,
        ctx: Context,
    ) {
        let style = select_style(requested, analysis, text.is_empty(), ctx.simple_key);
        self.increase_indent(true, false);
        let value = text.as_bytes();
        let allow_breaks = !ctx.simple_key;
        match style {
            Style::Plain => self.write_plain(value, allow_breaks),
            Style::SingleQuoted => self.write_single_quoted(value, allow_breaks),
            Style::DoubleQuoted => self.write_double_quoted(value, allow_breaks),
            Style::Literal => self.write_literal(value),
        }
        self.pop_indent();
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT as isize } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT as isize;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn put(&mut self, byte: u8) {
        self.out.push(byte);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push(b'\n');
        self.column = 0;
    }

    /// Copies the character starting at `*i` and advances past it; a character counts as one
    /// column whatever its encoded length.
    fn write_char(&mut self, value: &[u8], i: &mut usize) {
        let end = (*i + char_width(value, *i)).min(value.len());
        self.out.extend_from_slice(&value[*i..end]);
        self.column += 1;
        *i = end;
    }

    fn write_break(&mut self, value: &[u8], i: &mut usize) {
        if value[*i] == b'\n' {
            self.put_break();
            *i += 1;
        } else {
            self.write_char(value, i);
            self.column = 0;
        }
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(b' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &[u8],
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(b' ');
        }
        let mut i = 0;
        while i < indicator.len() {
            self.write_char(indicator, &mut i);
        }
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn write_plain(&mut self, value: &[u8], allow_breaks: bool) {
        if !self.whitespace {
            self.put(b' ');
        }
        let mut spaces = false;
        let mut breaks = false;
        let mut i = 0;
        while i < value.len() {
            if is_space(value, i) {
                if allow_breaks && !spaces && self.column > self.width && !is_space(value, i + 1) {
                    self.write_indent();
                    i += 1;
                } else {
                    self.write_char(value, &mut i);
                }
                spaces = true;
            } else if is_break(value, i) {
                if !breaks && value[i] == b'\n' {
                    self.put_break();
                }
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write_char(value, &mut i);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single_quoted(&mut self, value: &[u8], allow_breaks: bool) {
        self.write_indicator(b"'", true, false, false);
        let mut spaces = false;
        let mut breaks = false;
        let mut i = 0;
        while i < value.len() {
            if is_space(value, i) {
                // Unlike plain scalars, the first and last character are never folded.
                if allow_breaks
                    && !spaces
                    && self.column > self.width
                    && i > 0
                    && i < value.len() - 1
                    && !is_space(value, i + 1)
                {
                    self.write_indent();
                    i += 1;
                } else {
                    self.write_char(value, &mut i);
                }
                spaces = true;
            } else if is_break(value, i) {
                if !breaks && value[i] == b'\n' {
                    self.put_break();
                }
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if value[i] == b'\'' {
                    self.put(b'\'');
                }
                self.write_char(value, &mut i);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator(b"'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted(&mut self, value: &[u8], allow_breaks: bool) {
        // libyaml's BOM test looks at the start of the whole scalar rather than at the current
        // character, so a scalar that begins with U+FEFF gets every character escaped.
        let starts_with_bom = value.starts_with(&[0xEF, 0xBB, 0xBF]);
        self.write_indicator(b"\"", true, false, false);
        let mut spaces = false;
        let mut i = 0;
        while i < value.len() {
            if !is_printable(value, i)
                || starts_with_bom
                || is_break(value, i)
                || value[i] == b'"'
                || value[i] == b'\\'
            {
                let (code, width) = decode_char(value, i);
                i += width;
                self.put(b'\\');
                match code {
                    0x00 => self.put(b'0'),
                    0x07 => self.put(b'a'),
                    0x08 => self.put(b'b'),
                    0x09 => self.put(b't'),
                    0x0A => self.put(b'n'),
                    0x0B => self.put(b'v'),
                    0x0C => self.put(b'f'),
                    0x0D => self.put(b'r'),
                    0x1B => self.put(b'e'),
                    0x22 => self.put(b'"'),
                    0x5C => self.put(b'\\'),
                    0x85 => self.put(b'N'),
                    0xA0 => self.put(b'_'),
                    0x2028 => self.put(b'L'),
                    0x2029 => self.put(b'P'),
                    _ => {
                        let digits = if code <= 0xFF {
                            self.put(b'x');
                            2
                        } else if code <= 0xFFFF {
                            self.put(b'u');
                            4
                        } else {
                            self.put(b'U');
                            8
                        };
                        for k in (0..digits).rev() {
                            let digit = ((code >> (4 * k)) & 0x0F) as u8;
                            self.put(if digit < 10 {
                                b'0' + digit
                            } else {
                                b'A' + digit - 10
                            });
                        }
                    }
                }
                spaces = false;
            } else if is_space(value, i) {
                if allow_breaks
                    && !spaces
                    && self.column > self.width
                    && i > 0
                    && i < value.len() - 1
                {
                    self.write_indent();
                    // A space at the start of the continuation line would be taken as
                    // indentation, so the line break is escaped to keep it.
                    if is_space(value, i + 1) {
                        self.put(b'\\');
                    }
                    i += 1;
                } else {
                    self.write_char(value, &mut i);
                }
                spaces = true;
            } else {
                self.write_char(value, &mut i);
                spaces = false;
            }
        }
        self.write_indicator(b"\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_literal(&mut self, value: &[u8]) {
        self.write_indicator(b"|", true, false, false);
        // A leading space or break would be mistaken for indentation: state it explicitly.
        if is_space(value, 0) || is_break(value, 0) {
            self.write_indicator(&[b'0' + BEST_INDENT as u8], false, false, false);
        }
        if let Some(chomp) = chomping_indicator(value) {
            self.write_indicator(&[chomp], false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        let mut i = 0;
        while i < value.len() {
            if is_break(value, i) {
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write_char(value, &mut i);
                self.indention = false;
                breaks = false;
            }
        }
    }
}

/// `-` when the text does not end with a line break (strip), `+` when it ends with two or
/// more (keep), nothing for exactly one (clip).
fn chomping_indicator(value: &[u8]) -> Option<u8> {
    if value.is_empty() {
        return Some(b'-');
    }
    let last = char_start_before(value, value.len());
    if !is_break(value, last) {
        return Some(b'-');
    }
    if last == 0 {
        return Some(b'+');
    }
    let previous = char_start_before(value, last);
    if is_break(value, previous) {
        return Some(b'+');
    }
    None
}

/// Index of the first byte of the character that ends just before `end`.
fn char_start_before(value: &[u8], end: usize) -> usize {
    let mut i = end.saturating_sub(1);
    while i > 0 && value[i] & 0xC0 == 0x80 {
        i -= 1;
    }
    i
}

/// The style go-yaml's encoder asks for a string: literal when it contains a newline, plain
/// when the plain text would read back as the same string, double-quoted otherwise.
fn requested_string_style(text: &str) -> Style {
    if text.contains('\n') {
        Style::Literal
    } else if resolves_to_string(text) && !is_base60_float(text) {
        Style::Plain
    } else {
        Style::DoubleQuoted
    }
}

/// The emitter's final style choice: the requested style, downgraded when the text does not
/// allow it (libyaml's select_scalar_style; there is never a tag and never a flow context here,
/// as flow collections only occur empty).
fn select_style(requested: Style, analysis: Analysis, empty: bool, simple_key: bool) -> Style {
    let mut style = requested;
    if simple_key && analysis.multiline {
        style = Style::DoubleQuoted;
    }
    if style == Style::Plain {
        if !analysis.block_plain_allowed {
            style = Style::SingleQuoted;
        }
        if empty && simple_key {
            style = Style::SingleQuoted;
        }
    }
    if style == Style::SingleQuoted && !analysis.single_quoted_allowed {
        style = Style::DoubleQuoted;
    }
    if style == Style::Literal && (!analysis.block_allowed || simple_key) {
        style = Style::DoubleQuoted;
    }
    style
}

/// libyaml's yaml_emitter_analyze_scalar, reduced to the outcomes used in block context.
fn analyze_scalar(value: &[u8]) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }

    let mut block_indicators = value.starts_with(b"---") || value.starts_with(b"...");
    let mut line_breaks = false;
    let mut special_characters = false;
    let mut leading_space = false;
    let mut leading_break = false;
    let mut trailing_space = false;
    let mut trailing_break = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut previous_space = false;
    let mut previous_break = false;
    let mut preceded_by_whitespace = true;

    let mut i = 0;
    while i < value.len() {
        let width = char_width(value, i);
        let followed_by_whitespace = i + width >= value.len() || is_blank(value, i + width);
        if i == 0 {
            match value[i] {
                b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>'
                | b'\'' | b'"' | b'%' | b'@' | b'`' => block_indicators = true,
                b'?' | b':' | b'-' if followed_by_whitespace => block_indicators = true,
                _ => {}
            }
        } else {
            match value[i] {
                b':' if followed_by_whitespace => block_indicators = true,
                b'#' if preceded_by_whitespace => block_indicators = true,
                _ => {}
            }
        }

        // The emitter runs with unicode output enabled, so only unprintable characters count.
        if !is_printable(value, i) {
            special_characters = true;
        }
        if is_space(value, i) {
            if i == 0 {
                leading_space = true;
            }
            if i + width == value.len() {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(value, i) {
            line_breaks = true;
            if i == 0 {
                leading_break = true;
            }
            if i + width == value.len() {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blankz(value, i);
        i += width;
    }

    let mut analysis = Analysis {
        multiline: line_breaks,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        analysis.block_plain_allowed = false;
    }
    if trailing_space {
        analysis.block_allowed = false;
    }
    if break_space {
        analysis.block_plain_allowed = false;
        analysis.single_quoted_allowed = false;
    }
    if space_break || special_characters {
        analysis.block_plain_allowed = false;
        analysis.single_quoted_allowed = false;
        analysis.block_allowed = false;
    }
    if line_breaks || block_indicators {
        analysis.block_plain_allowed = false;
    }
    analysis
}

// Byte-level character classes of libyaml. Reading past the end yields NUL, like the
// terminator libyaml relies on.

fn byte_at(value: &[u8], i: usize) -> u8 {
    value.get(i).copied().unwrap_or(0)
}

fn char_width(value: &[u8], i: usize) -> usize {
    let lead = byte_at(value, i);
    if lead & 0x80 == 0x00 {
        1
    } else if lead & 0xE0 == 0xC0 {
        2
    } else if lead & 0xF0 == 0xE0 {
        3
    } else if lead & 0xF8 == 0xF0 {
        4
    } else {
        1
    }
}

fn decode_char(value: &[u8], i: usize) -> (u32, usize) {
    let lead = byte_at(value, i);
    let width = char_width(value, i);
    let mut code = match width {
        1 => u32::from(lead & 0x7F),
        2 => u32::from(lead & 0x1F),
        3 => u32::from(lead & 0x0F),
        _ => u32::from(lead & 0x07),
    };
    for k in 1..width {
        code = (code << 6) + u32::from(byte_at(value, i + k) & 0x3F);
    }
    (code, width)
}

fn is_space(value: &[u8], i: usize) -> bool {
    byte_at(value, i) == b' '
}

fn is_blank(value: &[u8], i: usize) -> bool {
    matches!(byte_at(value, i), b' ' | b'\t')
}

fn is_break(value: &[u8], i: usize) -> bool {
    match byte_at(value, i) {
        b'\r' | b'\n' => true,
        0xC2 => byte_at(value, i + 1) == 0x85,
        0xE2 => byte_at(value, i + 1) == 0x80 && matches!(byte_at(value, i + 2), 0xA8 | 0xA9),
        _ => false,
    }
}

fn is_blankz(value: &[u8], i: usize) -> bool {
    is_blank(value, i) || is_break(value, i) || byte_at(value, i) == 0
}

/// libyaml's printable set: LF, ASCII 0x20-0x7E, and U+00A0 up to U+FFFD except surrogates,
/// U+FEFF, U+FFFE and U+FFFF. Tabs, other controls and everything beyond the BMP (emoji) are
/// not printable and force double quotes with escapes.
fn is_printable(value: &[u8], i: usize) -> bool {
    let b0 = byte_at(value, i);
    let b1 = byte_at(value, i + 1);
    let b2 = byte_at(value, i + 2);
    b0 == 0x0A
        || (0x20..=0x7E).contains(&b0)
        || (b0 == 0xC2 && b1 >= 0xA0)
        || (b0 > 0xC2 && b0 < 0xED)
        || (b0 == 0xED && b1 < 0xA0)
        || b0 == 0xEE
        || (b0 == 0xEF
            && !(b1 == 0xBB && b2 == 0xBF)
            && !(b1 == 0xBF && (b2 == 0xBE || b2 == 0xBF)))
}

// ---------------------------------------------------------------------------------------------
// Implicit typing (go-yaml v2 resolve.go): a string may be written plain only if reading the
// plain text back would give a string again.

/// Plain scalars that resolve to booleans, null, infinities or NaN. go-yaml also maps `<<`
/// (merge), but only looks a scalar up when its first character is one of `+-.0-9yYnNtTfFoO~`,
/// so `<<` itself stays a plain string.
const RESOLVE_WORDS: &[&str] = &[
    "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "n", "N", "no", "No",
    "NO", "false", "False", "FALSE", "off", "Off", "OFF", "~", "null", "Null", "NULL", ".nan",
    ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
];

fn resolves_to_string(text: &str) -> bool {
    let bytes = text.as_bytes();
    let Some(&first) = bytes.first() else {
        // The empty plain scalar is null.
        return false;
    };
    match first {
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => {
            !RESOLVE_WORDS.contains(&text)
        }
        b'.' => !RESOLVE_WORDS.contains(&text) && !go_parse_float_ok(bytes),
        b'+' | b'-' | b'0'..=b'9' => {
            !RESOLVE_WORDS.contains(&text) && !resolves_to_number_or_timestamp(bytes)
        }
        _ => true,
    }
}

/// The digit/sign branch of go-yaml's resolve: timestamp, int (any base Go's ParseInt accepts
/// with base 0, underscores ignored), YAML-style float, `0b`-prefixed forms, and integers too
/// big for 64 bits (sigs.k8s.io/yaml's copy of go-yaml resolves those to big.Int).
fn resolves_to_number_or_timestamp(text: &[u8]) -> bool {
    if super::timestamp::is_go_timestamp(text) {
        return true;
    }
    let plain: Vec<u8> = text.iter().copied().filter(|&b| b != b'_').collect();
    if go_parse_int(&plain, 0).is_ok() {
        return true;
    }
    let unsigned = go_parse_uint(&plain, 0);
    if unsigned.is_ok() {
        return true;
    }
    if is_yaml_style_float(&plain) && decimal_is_finite(&plain) {
        return true;
    }
    if let Some(rest) = plain.strip_prefix(b"0b") {
        if go_parse_int(rest, 2).is_ok() || go_parse_uint(rest, 2).is_ok() {
            return true;
        }
    } else if let Some(rest) = plain.strip_prefix(b"-0b") {
        let mut negative = Vec::with_capacity(rest.len() + 1);
        negative.push(b'-');
        negative.extend_from_slice(rest);
        if go_parse_int(&negative, 2).is_ok() {
            return true;
        }
    }
    // ParseUint stops at the first overflow, so a range error says nothing about the rest of
    // the text; big.Int's parser then needs the whole text to be a valid unsigned integer.
    unsigned == Err(NumError::Range) && go_uint_syntax_ok(&plain)
}

#[derive(Debug, PartialEq, Eq)]
enum NumError {
    Syntax,
    Range,
}

/// Base prefix handling of Go's strconv.ParseUint with base 0.
fn split_base_prefix(text: &[u8]) -> (u32, &[u8]) {
    if text.first() == Some(&b'0') {
        if text.len() >= 3 {
            match text[1].to_ascii_lowercase() {
                b'b' => return (2, &text[2..]),
                b'o' => return (8, &text[2..]),
                b'x' => return (16, &text[2..]),
                _ => {}
            }
        }
        return (8, &text[1..]);
    }
    (10, text)
}

fn digit_value(byte: u8) -> Option<u32> {
    match byte {
        b'0'..=b'9' => Some(u32::from(byte - b'0')),
        b'a'..=b'z' | b'A'..=b'Z' => Some(u32::from(byte.to_ascii_lowercase() - b'a') + 10),
        _ => None,
    }
}

/// Go's strconv.ParseUint(text, base, 64) for text without underscores (go-yaml removes them
/// before parsing). Like Go, it reports a range error as soon as the value overflows.
fn go_parse_uint(text: &[u8], base: u32) -> Result<u64, NumError> {
    if text.is_empty() {
        return Err(NumError::Syntax);
    }
    let (base, digits) = if base == 0 {
        split_base_prefix(text)
    } else {
        (base, text)
    };
    let mut n: u64 = 0;
    for &byte in digits {
        let digit = match digit_value(byte) {
            Some(d) if d < base => d,
            _ => return Err(NumError::Syntax),
        };
        n = n
            .checked_mul(u64::from(base))
            .and_then(|n| n.checked_add(u64::from(digit)))
            .ok_or(NumError::Range)?;
    }
    Ok(n)
}

/// Go's strconv.ParseInt(text, base, 64) for text without underscores.
fn go_parse_int(text: &[u8], base: u32) -> Result<i64, NumError> {
    let (negative, magnitude) = match text.first() {
        None => return Err(NumError::Syntax),
        Some(b'+') => (false, &text[1..]),
        Some(b'-') => (true, &text[1..]),
        Some(_) => (false, text),
    };
    let value = go_parse_uint(magnitude, base)?;
    if negative {
        if value > 1u64 << 63 {
            return Err(NumError::Range);
        }
        Ok((value as i64).wrapping_neg())
    } else {
        i64::try_from(value).map_err(|_| NumError::Range)
    }
}

/// Whether big.Int's SetString(text, 0) accepts an unsigned text without underscores.
fn go_uint_syntax_ok(text: &[u8]) -> bool {
    let (base, digits) = split_base_prefix(text);
    (text == b"0" || !digits.is_empty())
        && digits
            .iter()
            .all(|&b| digit_value(b).is_some_and(|d| d < base))
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_style_float(text: &[u8]) -> bool {
    let mut i = 0;
    if matches!(text.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let int_start = i;
    while i < text.len() && text[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    if byte_at(text, i) == b'.' {
        i += 1;
        let frac_start = i;
        while i < text.len() && text[i].is_ascii_digit() {
            i += 1;
        }
        if int_digits == 0 && i == frac_start {
            return false;
        }
    } else if int_digits == 0 {
        return false;
    }
    if matches!(byte_at(text, i), b'e' | b'E') {
        i += 1;
        if matches!(byte_at(text, i), b'+' | b'-') {
            i += 1;
        }
        let exp_start = i;
        while i < text.len() && text[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == text.len()
}

/// Go's ParseFloat fails with a range error when a decimal overflows to infinity; both parsers
/// round correctly, so Rust's result tells the same. Callers pass only decimal syntax.
fn decimal_is_finite(text: &[u8]) -> bool {
    let digits: String = text
        .iter()
        .filter(|&&b| b != b'_')
        .map(|&b| char::from(b))
        .collect();
    let normalized = match digits.strip_prefix('.') {
        Some(rest) => format!("0.{rest}"),
        None => digits,
    };
    normalized.parse::<f64>().is_ok_and(f64::is_finite)
}

/// Go's strconv.ParseFloat(text, 64) succeeding, for text starting with `.` (go-yaml's `.`
/// branch): decimal digits with at most one dot, an optional exponent, underscores allowed
/// between digits, and no overflow.
fn go_parse_float_ok(text: &[u8]) -> bool {
    let mut i = 0;
    let mut underscores = false;
    let mut saw_dot = false;
    let mut saw_digits = false;
    while i < text.len() {
        match text[i] {
            b'_' => underscores = true,
            b'.' if !saw_dot => saw_dot = true,
            b'0'..=b'9' => saw_digits = true,
            _ => break,
        }
        i += 1;
    }
    if !saw_digits {
        return false;
    }
    if matches!(byte_at(text, i), b'e' | b'E') {
        i += 1;
        if matches!(byte_at(text, i), b'+' | b'-') {
            i += 1;
        }
        if !byte_at(text, i).is_ascii_digit() {
            return false;
        }
        while i < text.len() && (text[i].is_ascii_digit() || text[i] == b'_') {
            underscores |= text[i] == b'_';
            i += 1;
        }
    }
    if i != text.len() || (underscores && !go_underscore_ok(text)) {
        return false;
    }
    decimal_is_finite(text)
}

/// Go's strconv underscoreOK: underscores only between digits (or after a base prefix).
fn go_underscore_ok(text: &[u8]) -> bool {
    // saw: b'^' start, b'0' digit or prefix, b'_' underscore, b'!' anything else.
    let mut saw = b'^';
    let mut s = text;
    if matches!(s.first(), Some(b'+' | b'-')) {
        s = &s[1..];
    }
    let mut i = 0;
    let mut hex = false;
    if s.len() >= 2 && s[0] == b'0' && matches!(s[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = s[1].eq_ignore_ascii_case(&b'x');
    }
    while i < s.len() {
        let c = s[i];
        if c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`: YAML 1.1 sexagesimal numbers, which
/// go-yaml does not read as numbers but still quotes for other parsers.
fn is_base60_float(text: &str) -> bool {
    let s = text.as_bytes();
    let mut i = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    if !byte_at(s, i).is_ascii_digit() {
        return false;
    }
    i += 1;
    while i < s.len() && (s[i].is_ascii_digit() || s[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while byte_at(s, i) == b':' {
        i += 1;
        let start = i;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        // Each group is followed by `:`, `.` or the end, so its digit run is the whole group.
        let ok = match i - start {
            1 => true,
            2 => s[start] <= b'5',
            _ => false,
        };
        if !ok {
            return false;
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if byte_at(s, i) == b'.' {
        i += 1;
        while i < s.len() && (s[i].is_ascii_digit() || s[i] == b'_') {
            i += 1;
        }
    }
    i == s.len()
}

// ---------------------------------------------------------------------------------------------
// Key order: go-yaml's keyList.Less on string keys.

/// go-yaml v2's "natural" key order: characters compare one by one; letters (Unicode category
/// L) come after everything else and compare by code point; otherwise runs of digits compare by
/// numeric value, then by length, with non-digits ordered by code point before digits.
fn go_key_less(a: &str, b: &str) -> bool {
    // Upstream compares rune by rune; for ASCII text the bytes are the runes, which spares
    // decoding in the common case.
    if a.is_ascii() && b.is_ascii() {
        natural_less(a.as_bytes(), b.as_bytes())
    } else {
        let ar: Vec<char> = a.chars().collect();
        let br: Vec<char> = b.chars().collect();
        natural_less(&ar, &br)
    }
}

fn natural_less<T: Copy + Into<char>>(a: &[T], b: &[T]) -> bool {
    let ar = |i: usize| -> char { a[i].into() };
    let br = |i: usize| -> char { b[i].into() };
    for i in 0..a.len().min(b.len()) {
        if ar(i) == br(i) {
            continue;
        }
        let a_letter = is_go_letter(ar(i));
        let b_letter = is_go_letter(br(i));
        if a_letter && b_letter {
            return ar(i) < br(i);
        }
        if a_letter || b_letter {
            return b_letter;
        }
        let mut an: i64 = 0;
        let mut bn: i64 = 0;
        // When a zero continues a number that already has a non-zero digit, upstream seeds
        // both values with 1 so the zero is not treated as a leading zero; it only looks back
        // through `a`.
        if ar(i) == '0' || br(i) == '0' {
            for j in (0..i).rev() {
                if !is_go_digit(ar(j)) {
                    break;
                }
                if ar(j) != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < a.len() && is_go_digit(ar(ai)) {
            an = an
                .wrapping_mul(10)
                .wrapping_add(i64::from(u32::from(ar(ai))) - 0x30);
            ai += 1;
        }
        let mut bi = i;
        while bi < b.len() && is_go_digit(br(bi)) {
            bn = bn
                .wrapping_mul(10)
                .wrapping_add(i64::from(u32::from(br(bi))) - 0x30);
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar(i) < br(i);
    }
    a.len() < b.len()
}

/// Stable merge sort driven by a strict "less" predicate. go-yaml's comparison is not
/// transitive for some key sets (e.g. "1", "01", "0a"); Go then returns an order that depends
/// on its random map iteration, so any deterministic result is as faithful as possible, and a
/// merge sort never misbehaves on such input. For all other key sets the result is the unique
/// sorted order.
fn merge_sort_by<T: Copy>(items: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let n = items.len();
    if n < 2 {
        return;
    }
    let mut buffer = items.to_vec();
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut left, mut right) = (start, mid);
            for slot in &mut buffer[start..end] {
                let take_right = left >= mid || (right < end && less(&items[right], &items[left]));
                if take_right {
                    *slot = items[right];
                    right += 1;
                } else {
                    *slot = items[left];
                    left += 1;
                }
            }
            start = end;
        }
        items.copy_from_slice(&buffer);
        width *= 2;
    }
}

/// Go's unicode.IsLetter (general category L).
fn is_go_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    in_ranges(LETTER_RANGES, c)
}

/// Go's unicode.IsDigit (general category Nd).
fn is_go_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    in_ranges(DIGIT_RANGES, c)
}

/// `ranges` holds sorted, disjoint inclusive ranges as consecutive (first, last) pairs.
fn in_ranges(ranges: &[u32], c: char) -> bool {
    let code = c as u32;
    let pairs = ranges.len() / 2;
    // Index of the first range whose last code point is >= code.
    let idx = {
        let (mut lo, mut hi) = (0, pairs);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if ranges[2 * mid + 1] < code {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    };
    idx < pairs && ranges[2 * idx] <= code
}

// Unicode general category tables, generated from the Unicode Character Database 14.0
// (categories L and Nd) as inclusive (first, last) code point pairs. Go's tables follow a newer
// Unicode version; the two differ only for characters first assigned after 14.0.
const LETTER_RANGES: &[u32] = &[
    0x41, 0x5A, 0x61, 0x7A, 0xAA, 0xAA, 0xB5, 0xB5, 0xBA, 0xBA, 0xC0, 0xD6, 0xD8, 0xF6, 0xF8,
    0x2C1, 0x2C6, 0x2D1, 0x2E0, 0x2E4, 0x2EC, 0x2EC, 0x2EE, 0x2EE, 0x370, 0x374, 0x376, 0x377,
    0x37A, 0x37D, 0x37F, 0x37F, 0x386, 0x386, 0x388, 0x38A, 0x38C, 0x38C, 0x38E, 0x3A1, 0x3A3,
    0x3F5, 0x3F7, 0x481, 0x48A, 0x52F, 0x531, 0x556, 0x559, 0x559, 0x560, 0x588, 0x5D0, 0x5EA,
    0x5EF, 0x5F2, 0x620, 0x64A, 0x66E, 0x66F, 0x671, 0x6D3, 0x6D5, 0x6D5, 0x6E5, 0x6E6, 0x6EE,
    0x6EF, 0x6FA, 0x6FC, 0x6FF, 0x6FF, 0x710, 0x710, 0x712, 0x72F, 0x74D, 0x7A5, 0x7B1, 0x7B1,
    0x7CA, 0x7EA, 0x7F4, 0x7F5, 0x7FA, 0x7FA, 0x800, 0x815, 0x81A, 0x81A, 0x824, 0x824, 0x828,
    0x828, 0x840, 0x858, 0x860, 0x86A, 0x870, 0x887, 0x889, 0x88E, 0x8A0, 0x8C9, 0x904, 0x939,
    0x93D, 0x93D, 0x950, 0x950, 0x958, 0x961, 0x971, 0x980, 0x985, 0x98C, 0x98F, 0x990, 0x993,
    0x9A8, 0x9AA, 0x9B0, 0x9B2, 0x9B2, 0x9B6, 0x9B9, 0x9BD, 0x9BD, 0x9CE, 0x9CE, 0x9DC, 0x9DD,
    0x9DF, 0x9E1, 0x9F0, 0x9F1, 0x9FC, 0x9FC, 0xA05, 0xA0A, 0xA0F, 0xA10, 0xA13, 0xA28, 0xA2A,
    0xA30, 0xA32, 0xA33, 0xA35, 0xA36, 0xA38, 0xA39, 0xA59, 0xA5C, 0xA5E, 0xA5E, 0xA72, 0xA74,
    0xA85, 0xA8D, 0xA8F, 0xA91, 0xA93, 0xAA8, 0xAAA, 0xAB0, 0xAB2, 0xAB3, 0xAB5, 0xAB9, 0xABD,
    0xABD, 0xAD0, 0xAD0, 0xAE0, 0xAE1, 0xAF9, 0xAF9, 0xB05, 0xB0C, 0xB0F, 0xB10, 0xB13, 0xB28,
    0xB2A, 0xB30, 0xB32, 0xB33, 0xB35, 0xB39, 0xB3D, 0xB3D, 0xB5C, 0xB5D, 0xB5F, 0xB61, 0xB71,
    0xB71, 0xB83, 0xB83, 0xB85, 0xB8A, 0xB8E, 0xB90, 0xB92, 0xB95, 0xB99, 0xB9A, 0xB9C, 0xB9C,
    0xB9E, 0xB9F, 0xBA3, 0xBA4, 0xBA8, 0xBAA, 0xBAE, 0xBB9, 0xBD0, 0xBD0, 0xC05, 0xC0C, 0xC0E,
    0xC10, 0xC12, 0xC28, 0xC2A, 0xC39, 0xC3D, 0xC3D, 0xC58, 0xC5A, 0xC5D, 0xC5D, 0xC60, 0xC61,
    0xC80, 0xC80, 0xC85, 0xC8C, 0xC8E, 0xC90, 0xC92, 0xCA8, 0xCAA, 0xCB3, 0xCB5, 0xCB9, 0xCBD,
    0xCBD, 0xCDD, 0xCDE, 0xCE0, 0xCE1, 0xCF1, 0xCF2, 0xD04, 0xD0C, 0xD0E, 0xD10, 0xD12, 0xD3A,
    0xD3D, 0xD3D, 0xD4E, 0xD4E, 0xD54, 0xD56, 0xD5F, 0xD61, 0xD7A, 0xD7F, 0xD85, 0xD96, 0xD9A,
    0xDB1, 0xDB3, 0xDBB, 0xDBD, 0xDBD, 0xDC0, 0xDC6, 0xE01, 0xE30, 0xE32, 0xE33, 0xE40, 0xE46,
    0xE81, 0xE82, 0xE84, 0xE84, 0xE86, 0xE8A, 0xE8C, 0xEA3, 0xEA5, 0xEA5, 0xEA7, 0xEB0, 0xEB2,
    0xEB3, 0xEBD, 0xEBD, 0xEC0, 0xEC4, 0xEC6, 0xEC6, 0xEDC, 0xEDF, 0xF00, 0xF00, 0xF40, 0xF47,
    0xF49, 0xF6C, 0xF88, 0xF8C, 0x1000, 0x102A, 0x103F, 0x103F, 0x1050, 0x1055, 0x105A, 0x105D,
    0x1061, 0x1061, 0x1065, 0x1066, 0x106E, 0x1070, 0x1075, 0x1081, 0x108E, 0x108E, 0x10A0, 0x10C5,
    0x10C7, 0x10C7, 0x10CD, 0x10CD, 0x10D0, 0x10FA, 0x10FC, 0x1248, 0x124A, 0x124D, 0x1250, 0x1256,
    0x1258, 0x1258, 0x125A, 0x125D, 0x1260, 0x1288, 0x128A, 0x128D, 0x1290, 0x12B0, 0x12B2, 0x12B5,
    0x12B8, 0x12BE, 0x12C0, 0x12C0, 0x12C2, 0x12C5, 0x12C8, 0x12D6, 0x12D8, 0x1310, 0x1312, 0x1315,
    0x1318, 0x135A, 0x1380, 0x138F, 0x13A0, 0x13F5, 0x13F8, 0x13FD, 0x1401, 0x166C, 0x166F, 0x167F,
    0x1681, 0x169A, 0x16A0, 0x16EA, 0x16F1, 0x16F8, 0x1700, 0x1711, 0x171F, 0x1731, 0x1740, 0x1751,
    0x1760, 0x176C, 0x176E, 0x1770, 0x1780, 0x17B3, 0x17D7, 0x17D7, 0x17DC, 0x17DC, 0x1820, 0x1878,
    0x1880, 0x1884, 0x1887, 0x18A8, 0x18AA, 0x18AA, 0x18B0, 0x18F5, 0x1900, 0x191E, 0x1950, 0x196D,
    0x1970, 0x1974, 0x1980, 0x19AB, 0x19B0, 0x19C9, 0x1A00, 0x1A16, 0x1A20, 0x1A54, 0x1AA7, 0x1AA7,
    0x1B05, 0x1B33, 0x1B45, 0x1B4C, 0x1B83, 0x1BA0, 0x1BAE, 0x1BAF, 0x1BBA, 0x1BE5, 0x1C00, 0x1C23,
    0x1C4D, 0x1C4F, 0x1C5A, 0x1C7D, 0x1C80, 0x1C88, 0x1C90, 0x1CBA, 0x1CBD, 0x1CBF, 0x1CE9, 0x1CEC,
    0x1CEE, 0x1CF3, 0x1CF5, 0x1CF6, 0x1CFA, 0x1CFA, 0x1D00, 0x1DBF, 0x1E00, 0x1F15, 0x1F18, 0x1F1D,
    0x1F20, 0x1F45, 0x1F48, 0x1F4D, 0x1F50, 0x1F57, 0x1F59, 0x1F59, 0x1F5B, 0x1F5B, 0x1F5D, 0x1F5D,
    0x1F5F, 0x1F7D, 0x1F80, 0x1FB4, 0x1FB6, 0x1FBC, 0x1FBE, 0x1FBE, 0x1FC2, 0x1FC4, 0x1FC6, 0x1FCC,
    0x1FD0, 0x1FD3, 0x1FD6, 0x1FDB, 0x1FE0, 0x1FEC, 0x1FF2, 0x1FF4, 0x1FF6, 0x1FFC, 0x2071, 0x2071,
    0x207F, 0x207F, 0x2090, 0x209C, 0x2102, 0x2102, 0x2107, 0x2107, 0x210A, 0x2113, 0x2115, 0x2115,
    0x2119, 0x211D, 0x2124, 0x2124, 0x2126, 0x2126, 0x2128, 0x2128, 0x212A, 0x212D, 0x212F, 0x2139,
    0x213C, 0x213F, 0x2145, 0x2149, 0x214E, 0x214E, 0x2183, 0x2184, 0x2C00, 0x2CE4, 0x2CEB, 0x2CEE,
    0x2CF2, 0x2CF3, 0x2D00, 0x2D25, 0x2D27, 0x2D27, 0x2D2D, 0x2D2D, 0x2D30, 0x2D67, 0x2D6F, 0x2D6F,
    0x2D80, 0x2D96, 0x2DA0, 0x2DA6, 0x2DA8, 0x2DAE, 0x2DB0, 0x2DB6, 0x2DB8, 0x2DBE, 0x2DC0, 0x2DC6,
    0x2DC8, 0x2DCE, 0x2DD0, 0x2DD6, 0x2DD8, 0x2DDE, 0x2E2F, 0x2E2F, 0x3005, 0x3006, 0x3031, 0x3035,
    0x303B, 0x303C, 0x3041, 0x3096, 0x309D, 0x309F, 0x30A1, 0x30FA, 0x30FC, 0x30FF, 0x3105, 0x312F,
    0x3131, 0x318E, 0x31A0, 0x31BF, 0x31F0, 0x31FF, 0x3400, 0x4DBF, 0x4E00, 0xA48C, 0xA4D0, 0xA4FD,
    0xA500, 0xA60C, 0xA610, 0xA61F, 0xA62A, 0xA62B, 0xA640, 0xA66E, 0xA67F, 0xA69D, 0xA6A0, 0xA6E5,
    0xA717, 0xA71F, 0xA722, 0xA788, 0xA78B, 0xA7CA, 0xA7D0, 0xA7D1, 0xA7D3, 0xA7D3, 0xA7D5, 0xA7D9,
    0xA7F2, 0xA801, 0xA803, 0xA805, 0xA807, 0xA80A, 0xA80C, 0xA822, 0xA840, 0xA873, 0xA882, 0xA8B3,
    0xA8F2, 0xA8F7, 0xA8FB, 0xA8FB, 0xA8FD, 0xA8FE, 0xA90A, 0xA925, 0xA930, 0xA946, 0xA960, 0xA97C,
    0xA984, 0xA9B2, 0xA9CF, 0xA9CF, 0xA9E0, 0xA9E4, 0xA9E6, 0xA9EF, 0xA9FA, 0xA9FE, 0xAA00, 0xAA28,
    0xAA40, 0xAA42, 0xAA44, 0xAA4B, 0xAA60, 0xAA76, 0xAA7A, 0xAA7A, 0xAA7E, 0xAAAF, 0xAAB1, 0xAAB1,
    0xAAB5, 0xAAB6, 0xAAB9, 0xAABD, 0xAAC0, 0xAAC0, 0xAAC2, 0xAAC2, 0xAADB, 0xAADD, 0xAAE0, 0xAAEA,
    0xAAF2, 0xAAF4, 0xAB01, 0xAB06, 0xAB09, 0xAB0E, 0xAB11, 0xAB16, 0xAB20, 0xAB26, 0xAB28, 0xAB2E,
    0xAB30, 0xAB5A, 0xAB5C, 0xAB69, 0xAB70, 0xABE2, 0xAC00, 0xD7A3, 0xD7B0, 0xD7C6, 0xD7CB, 0xD7FB,
    0xF900, 0xFA6D, 0xFA70, 0xFAD9, 0xFB00, 0xFB06, 0xFB13, 0xFB17, 0xFB1D, 0xFB1D, 0xFB1F, 0xFB28,
    0xFB2A, 0xFB36, 0xFB38, 0xFB3C, 0xFB3E, 0xFB3E, 0xFB40, 0xFB41, 0xFB43, 0xFB44, 0xFB46, 0xFBB1,
    0xFBD3, 0xFD3D, 0xFD50, 0xFD8F, 0xFD92, 0xFDC7, 0xFDF0, 0xFDFB, 0xFE70, 0xFE74, 0xFE76, 0xFEFC,
    0xFF21, 0xFF3A, 0xFF41, 0xFF5A, 0xFF66, 0xFFBE, 0xFFC2, 0xFFC7, 0xFFCA, 0xFFCF, 0xFFD2, 0xFFD7,
    0xFFDA, 0xFFDC, 0x10000, 0x1000B, 0x1000D, 0x10026, 0x10028, 0x1003A, 0x1003C, 0x1003D,
    0x1003F, 0x1004D, 0x10050, 0x1005D, 0x10080, 0x100FA, 0x10280, 0x1029C, 0x102A0, 0x102D0,
    0x10300, 0x1031F, 0x1032D, 0x10340, 0x10342, 0x10349, 0x10350, 0x10375, 0x10380, 0x1039D,
    0x103A0, 0x103C3, 0x103C8, 0x103CF, 0x10400, 0x1049D, 0x104B0, 0x104D3, 0x104D8, 0x104FB,
    0x10500, 0x10527, 0x10530, 0x10563, 0x10570, 0x1057A, 0x1057C, 0x1058A, 0x1058C, 0x10592,
    0x10594, 0x10595, 0x10597, 0x105A1, 0x105A3, 0x105B1, 0x105B3, 0x105B9, 0x105BB, 0x105BC,
    0x10600, 0x10736, 0x10740, 0x10755, 0x10760, 0x10767, 0x10780, 0x10785, 0x10787, 0x107B0,
    0x107B2, 0x107BA, 0x10800, 0x10805, 0x10808, 0x10808, 0x1080A, 0x10835, 0x10837, 0x10838,
    0x1083C, 0x1083C, 0x1083F, 0x10855, 0x10860, 0x10876, 0x10880, 0x1089E, 0x108E0, 0x108F2,
    0x108F4, 0x108F5, 0x10900, 0x10915, 0x10920, 0x10939, 0x10980, 0x109B7, 0x109BE, 0x109BF,
    0x10A00, 0x10A00, 0x10A10, 0x10A13, 0x10A15, 0x10A17, 0x10A19, 0x10A35, 0x10A60, 0x10A7C,
    0x10A80, 0x10A9C, 0x10AC0, 0x10AC7, 0x10AC9, 0x10AE4, 0x10B00, 0x10B35, 0x10B40, 0x10B55,
    0x10B60, 0x10B72, 0x10B80, 0x10B91, 0x10C00, 0x10C48, 0x10C80, 0x10CB2, 0x10CC0, 0x10CF2,
    0x10D00, 0x10D23, 0x10E80, 0x10EA9, 0x10EB0, 0x10EB1, 0x10F00, 0x10F1C, 0x10F27, 0x10F27,
    0x10F30, 0x10F45, 0x10F70, 0x10F81, 0x10FB0, 0x10FC4, 0x10FE0, 0x10FF6, 0x11003, 0x11037,
    0x11071, 0x11072, 0x11075, 0x11075, 0x11083, 0x110AF, 0x110D0, 0x110E8, 0x11103, 0x11126,
    0x11144, 0x11144, 0x11147, 0x11147, 0x11150, 0x11172, 0x11176, 0x11176, 0x11183, 0x111B2,
    0x111C1, 0x111C4, 0x111DA, 0x111DA, 0x111DC, 0x111DC, 0x11200, 0x11211, 0x11213, 0x1122B,
    0x11280, 0x11286, 0x11288, 0x11288, 0x1128A, 0x1128D, 0x1128F, 0x1129D, 0x1129F, 0x112A8,
    0x112B0, 0x112DE, 0x11305, 0x1130C, 0x1130F, 0x11310, 0x11313, 0x11328, 0x1132A, 0x11330,
    0x11332, 0x11333, 0x11335, 0x11339, 0x1133D, 0x1133D, 0x11350, 0x11350, 0x1135D, 0x11361,
    0x11400, 0x11434, 0x11447, 0x1144A, 0x1145F, 0x11461, 0x11480, 0x114AF, 0x114C4, 0x114C5,
    0x114C7, 0x114C7, 0x11580, 0x115AE, 0x115D8, 0x115DB, 0x11600, 0x1162F, 0x11644, 0x11644,
    0x11680, 0x116AA, 0x116B8, 0x116B8, 0x11700, 0x1171A, 0x11740, 0x11746, 0x11800, 0x1182B,
    0x118A0, 0x118DF, 0x118FF, 0x11906, 0x11909, 0x11909, 0x1190C, 0x11913, 0x11915, 0x11916,
    0x11918, 0x1192F, 0x1193F, 0x1193F, 0x11941, 0x11941, 0x119A0, 0x119A7, 0x119AA, 0x119D0,
    0x119E1, 0x119E1, 0x119E3, 0x119E3, 0x11A00, 0x11A00, 0x11A0B, 0x11A32, 0x11A3A, 0x11A3A,
    0x11A50, 0x11A50, 0x11A5C, 0x11A89, 0x11A9D, 0x11A9D, 0x11AB0, 0x11AF8, 0x11C00, 0x11C08,
    0x11C0A, 0x11C2E, 0x11C40, 0x11C40, 0x11C72, 0x11C8F, 0x11D00, 0x11D06, 0x11D08, 0x11D09,
    0x11D0B, 0x11D30, 0x11D46, 0x11D46, 0x11D60, 0x11D65, 0x11D67, 0x11D68, 0x11D6A, 0x11D89,
    0x11D98, 0x11D98, 0x11EE0, 0x11EF2, 0x11FB0, 0x11FB0, 0x12000, 0x12399, 0x12480, 0x12543,
    0x12F90, 0x12FF0, 0x13000, 0x1342E, 0x14400, 0x14646, 0x16800, 0x16A38, 0x16A40, 0x16A5E,
    0x16A70, 0x16ABE, 0x16AD0, 0x16AED, 0x16B00, 0x16B2F, 0x16B40, 0x16B43, 0x16B63, 0x16B77,
    0x16B7D, 0x16B8F, 0x16E40, 0x16E7F, 0x16F00, 0x16F4A, 0x16F50, 0x16F50, 0x16F93, 0x16F9F,
    0x16FE0, 0x16FE1, 0x16FE3, 0x16FE3, 0x17000, 0x187F7, 0x18800, 0x18CD5, 0x18D00, 0x18D08,
    0x1AFF0, 0x1AFF3, 0x1AFF5, 0x1AFFB, 0x1AFFD, 0x1AFFE, 0x1B000, 0x1B122, 0x1B150, 0x1B152,
    0x1B164, 0x1B167, 0x1B170, 0x1B2FB, 0x1BC00, 0x1BC6A, 0x1BC70, 0x1BC7C, 0x1BC80, 0x1BC88,
    0x1BC90, 0x1BC99, 0x1D400, 0x1D454, 0x1D456, 0x1D49C, 0x1D49E, 0x1D49F, 0x1D4A2, 0x1D4A2,
    0x1D4A5, 0x1D4A6, 0x1D4A9, 0x1D4AC, 0x1D4AE, 0x1D4B9, 0x1D4BB, 0x1D4BB, 0x1D4BD, 0x1D4C3,
    0x1D4C5, 0x1D505, 0x1D507, 0x1D50A, 0x1D50D, 0x1D514, 0x1D516, 0x1D51C, 0x1D51E, 0x1D539,
    0x1D53B, 0x1D53E, 0x1D540, 0x1D544, 0x1D546, 0x1D546, 0x1D54A, 0x1D550, 0x1D552, 0x1D6A5,
    0x1D6A8, 0x1D6C0, 0x1D6C2, 0x1D6DA, 0x1D6DC, 0x1D6FA, 0x1D6FC, 0x1D714, 0x1D716, 0x1D734,
    0x1D736, 0x1D74E, 0x1D750, 0x1D76E, 0x1D770, 0x1D788, 0x1D78A, 0x1D7A8, 0x1D7AA, 0x1D7C2,
    0x1D7C4, 0x1D7CB, 0x1DF00, 0x1DF1E, 0x1E100, 0x1E12C, 0x1E137, 0x1E13D, 0x1E14E, 0x1E14E,
    0x1E290, 0x1E2AD, 0x1E2C0, 0x1E2EB, 0x1E7E0, 0x1E7E6, 0x1E7E8, 0x1E7EB, 0x1E7ED, 0x1E7EE,
    0x1E7F0, 0x1E7FE, 0x1E800, 0x1E8C4, 0x1E900, 0x1E943, 0x1E94B, 0x1E94B, 0x1EE00, 0x1EE03,
    0x1EE05, 0x1EE1F, 0x1EE21, 0x1EE22, 0x1EE24, 0x1EE24, 0x1EE27, 0x1EE27, 0x1EE29, 0x1EE32,
    0x1EE34, 0x1EE37, 0x1EE39, 0x1EE39, 0x1EE3B, 0x1EE3B, 0x1EE42, 0x1EE42, 0x1EE47, 0x1EE47,
    0x1EE49, 0x1EE49, 0x1EE4B, 0x1EE4B, 0x1EE4D, 0x1EE4F, 0x1EE51, 0x1EE52, 0x1EE54, 0x1EE54,
    0x1EE57, 0x1EE57, 0x1EE59, 0x1EE59, 0x1EE5B, 0x1EE5B, 0x1EE5D, 0x1EE5D, 0x1EE5F, 0x1EE5F,
    0x1EE61, 0x1EE62, 0x1EE64, 0x1EE64, 0x1EE67, 0x1EE6A, 0x1EE6C, 0x1EE72, 0x1EE74, 0x1EE77,
    0x1EE79, 0x1EE7C, 0x1EE7E, 0x1EE7E, 0x1EE80, 0x1EE89, 0x1EE8B, 0x1EE9B, 0x1EEA1, 0x1EEA3,
    0x1EEA5, 0x1EEA9, 0x1EEAB, 0x1EEBB, 0x20000, 0x2A6DF, 0x2A700, 0x2B738, 0x2B740, 0x2B81D,
    0x2B820, 0x2CEA1, 0x2CEB0, 0x2EBE0, 0x2F800, 0x2FA1D, 0x30000, 0x3134A,
];

const DIGIT_RANGES: &[u32] = &[
    0x30, 0x39, 0x660, 0x669, 0x6F0, 0x6F9, 0x7C0, 0x7C9, 0x966, 0x96F, 0x9E6, 0x9EF, 0xA66, 0xA6F,
    0xAE6, 0xAEF, 0xB66, 0xB6F, 0xBE6, 0xBEF, 0xC66, 0xC6F, 0xCE6, 0xCEF, 0xD66, 0xD6F, 0xDE6,
    0xDEF, 0xE50, 0xE59, 0xED0, 0xED9, 0xF20, 0xF29, 0x1040, 0x1049, 0x1090, 0x1099, 0x17E0,
    0x17E9, 0x1810, 0x1819, 0x1946, 0x194F, 0x19D0, 0x19D9, 0x1A80, 0x1A89, 0x1A90, 0x1A99, 0x1B50,
    0x1B59, 0x1BB0, 0x1BB9, 0x1C40, 0x1C49, 0x1C50, 0x1C59, 0xA620, 0xA629, 0xA8D0, 0xA8D9, 0xA900,
    0xA909, 0xA9D0, 0xA9D9, 0xA9F0, 0xA9F9, 0xAA50, 0xAA59, 0xABF0, 0xABF9, 0xFF10, 0xFF19,
    0x104A0, 0x104A9, 0x10D30, 0x10D39, 0x11066, 0x1106F, 0x110F0, 0x110F9, 0x11136, 0x1113F,
    0x111D0, 0x111D9, 0x112F0, 0x112F9, 0x11450, 0x11459, 0x114D0, 0x114D9, 0x11650, 0x11659,
    0x116C0, 0x116C9, 0x11730, 0x11739, 0x118E0, 0x118E9, 0x11950, 0x11959, 0x11C50, 0x11C59,
    0x11D50, 0x11D59, 0x11DA0, 0x11DA9, 0x16A60, 0x16A69, 0x16AC0, 0x16AC9, 0x16B50, 0x16B59,
    0x1D7CE, 0x1D7FF, 0x1E140, 0x1E149, 0x1E2F0, 0x1E2F9, 0x1E950, 0x1E959, 0x1FBF0, 0x1FBF9,
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// Round-trip fixtures, relative to the crate root: `<name>.json` holds one document as
    /// JSON, `<name>.yaml` the exact bytes upstream printed for it.
    const FIXTURE_DIR: &str = "testdata/yaml_write";

    fn yaml(json: &str) -> String {
        let value: Value = serde_json::from_str(json).expect("test JSON must parse");
        let mut out = Vec::new();
        write_document(&value, &mut out);
        String::from_utf8(out).expect("output must be UTF-8")
    }

    fn check(cases: &[(&str, &str)]) {
        for (json, expected) in cases {
            assert_eq!(yaml(json), *expected, "input: {json}");
        }
    }

    fn quoted_json(text: &str) -> String {
        serde_json::to_string(&Value::String(text.to_string())).expect("strings serialize")
    }

    #[test]
    fn block_layout() {
        check(&[
            (r#"{"b":{"c":{"d":1}},"a":2}"#, "a: 2\nb:\n  c:\n    d: 1\n"),
            // Sequences in a mapping are not indented further than their key.
            (r#"{"k":["a","b"]}"#, "k:\n- a\n- b\n"),
            (r#"{"k":{"l":["a"]}}"#, "k:\n  l:\n  - a\n"),
            (r#"[{"a":1,"b":2},{"c":3}]"#, "- a: 1\n  b: 2\n- c: 3\n"),
            (
                r#"{"x":[{"a":1,"b":[1,2]}]}"#,
                "x:\n- a: 1\n  b:\n  - 1\n  - 2\n",
            ),
            (r#"[["a","b"],"c",[["d"]]]"#, "- - a\n  - b\n- c\n- - - d\n"),
            (r#"[{"a":{"b":1}}]"#, "- a:\n    b: 1\n"),
        ]);
    }

    #[test]
    fn empty_collections_null_and_booleans() {
        check(&[
            (
                r#"{"l":[],"m":{},"n":null,"t":true,"f":false}"#,
                "f: false\nl: []\nm: {}\n\"n\": null\nt: true\n",
            ),
            ("[]", "[]\n"),
            ("{}", "{}\n"),
            ("[[],{}]", "- []\n- {}\n"),
            (r#"{"a":{"b":[]}}"#, "a:\n  b: []\n"),
            ("null", "null\n"),
            ("true", "true\n"),
        ]);
    }

    #[test]
    fn numbers_keep_their_text() {
        check(&[
            ("12345678901234567890", "12345678901234567890\n"),
            (
                r#"{"a":0.25,"b":1e-7,"c":-9223372036854775809,"d":1.0,"e":-0}"#,
                "a: 0.25\nb: 1e-7\nc: -9223372036854775809\nd: 1.0\ne: -0\n",
            ),
            ("[1,2.5,-3]", "- 1\n- 2.5\n- -3\n"),
            // serde_json itself normalizes the exponent while parsing.
            ("1E3", "1e+3\n"),
        ]);
    }

    #[test]
    fn root_scalars() {
        check(&[
            (r#""abc""#, "abc\n"),
            (r#""""#, "\"\"\n"),
            (r#""a\nb""#, "|-\n  a\n  b\n"),
            (r#"" x""#, "' x'\n"),
        ]);
    }

    #[test]
    fn strings_that_would_read_as_other_types_are_double_quoted() {
        let quoted = [
            // YAML 1.1 booleans and null.
            "y",
            "Y",
            "yes",
            "Yes",
            "YES",
            "n",
            "N",
            "no",
            "No",
            "NO",
            "true",
            "True",
            "TRUE",
            "false",
            "False",
            "FALSE",
            "on",
            "On",
            "ON",
            "off",
            "Off",
            "OFF",
            "~",
            "null",
            "Null",
            "NULL",
            "",
            // Integers in every base Go accepts, with signs and underscores.
            "0",
            "17",
            "-17",
            "+1",
            "0123",
            "0x1F",
            "0X1f",
            "0o17",
            "0b101",
            "-0b101",
            "0b-101",
            "1_000",
            "1__0",
            "1_",
            "9223372036854775808",
            "18446744073709551615",
            // Floats, infinities and NaN.
            "1.0",
            "1.",
            ".5",
            "-.5",
            "+.5",
            "1e3",
            "1E+3",
            "1.5e-3",
            ".5e3",
            ".5_5",
            ".inf",
            "-.Inf",
            "+.INF",
            ".nan",
            ".NaN",
            "123456789012345678901234567890",
            // Integers beyond 64 bits.
            "0xFFFFFFFFFFFFFFFFFF",
            "0b11111111111111111111111111111111111111111111111111111111111111111",
            // Timestamps.
            "2020-01-01",
            "2020-1-1",
            "2020-02-29",
            "2001-12-14t21:59:43.10-05:00",
            "2001-12-14T21:59:43Z",
            "2001-12-14 21:59:43.10",
            "2001-12-14  21:59:43",
            "2001-12-14T21:59:43,5+01:00",
            // Sexagesimal numbers.
            "12:30",
            "1:20:30.5",
            "-1:59",
            "190:20:30",
        ];
        for text in quoted {
            assert_eq!(
                yaml(&quoted_json(text)),
                format!("\"{text}\"\n"),
                "input: {text:?}"
            );
        }
    }

    #[test]
    fn strings_that_read_back_as_strings_stay_plain() {
        let plain = [
            "abc",
            "yes!",
            "yES",
            "nULL",
            "Nope",
            "~a",
            "<<",
            "=",
            "+",
            "0x",
            "0b2",
            "1e400",
            ".5e999",
            "1.2.3",
            "1_a",
            "_1",
            "0o8",
            "12:60",
            "12:30:x",
            "2020-02-30",
            "2021-02-29",
            "2020-13-01",
            "2020-01-01T10:00:00",
            "2020-01-01T25:00:00Z",
            "20200-01-01",
            "2020-01-01x",
            ".",
            "._5",
            "+-1",
            "a:b",
            "a#b",
            "?q",
            "-a",
            "http://x.io/a?b=c#d",
            "café crème",
            "日本語",
            "a\u{a0}b",
            "it's",
            "say \"hi\" \\ back",
            "v1.0.0",
        ];
        for text in plain {
            assert_eq!(
                yaml(&quoted_json(text)),
                format!("{text}\n"),
                "input: {text:?}"
            );
        }
    }

    #[test]
    fn indicators_force_single_quotes() {
        check(&[
            (r#"{"k":" leading"}"#, "k: ' leading'\n"),
            (r#"{"k":"trailing "}"#, "k: 'trailing '\n"),
            (r#"{"k":"- dash"}"#, "k: '- dash'\n"),
            (r#"{"k":"-"}"#, "k: '-'\n"),
            (r#"{"k":"? q"}"#, "k: '? q'\n"),
            (r#"{"k":": c"}"#, "k: ': c'\n"),
            (r#"{"k":"a: b"}"#, "k: 'a: b'\n"),
            (r#"{"k":"key:"}"#, "k: 'key:'\n"),
            (r#"{"k":"foo #bar"}"#, "k: 'foo #bar'\n"),
            (r#"{"k":"---"}"#, "k: '---'\n"),
            (r#"{"k":"...x"}"#, "k: '...x'\n"),
            (r#"{"k":"'quote"}"#, "k: '''quote'\n"),
            (r#"{"k":"\"dq\""}"#, "k: '\"dq\"'\n"),
            (r##"{"k":"#"}"##, "k: '#'\n"),
            (r#"{"k":","}"#, "k: ','\n"),
            (r#"{"k":"[x]"}"#, "k: '[x]'\n"),
            (r#"{"k":"{x}"}"#, "k: '{x}'\n"),
            (r#"{"k":"&a"}"#, "k: '&a'\n"),
            (r#"{"k":"*a"}"#, "k: '*a'\n"),
            (r#"{"k":"!a"}"#, "k: '!a'\n"),
            (r#"{"k":"|a"}"#, "k: '|a'\n"),
            (r#"{"k":">a"}"#, "k: '>a'\n"),
            (r#"{"k":"%a"}"#, "k: '%a'\n"),
            (r#"{"k":"@a"}"#, "k: '@a'\n"),
            (r#"{"k":"`a"}"#, "k: '`a'\n"),
            // Keys are quoted the same way.
            (r#"{"- x":1,"a: b":2}"#, "'- x': 1\n'a: b': 2\n"),
        ]);
    }

    #[test]
    fn unprintable_characters_force_double_quotes_with_escapes() {
        check(&[
            (r#"{"k":"tab\there"}"#, "k: \"tab\\there\"\n"),
            (
                r#"{"k":"a\u0001\u0007\u0008\u000b\u000c\u001b\u007f"}"#,
                "k: \"a\\x01\\a\\b\\v\\f\\e\\x7F\"\n",
            ),
            (r#"{"k":"nul\u0000"}"#, "k: \"nul\\0\"\n"),
            (r#"{"k":"cr\rlf"}"#, "k: \"cr\\rlf\"\n"),
            (
                r#"{"k":"rocket 🚀 done"}"#,
                "k: \"rocket \\U0001F680 done\"\n",
            ),
            (r#"{"k":"a\u0085b"}"#, "k: \"a\\Nb\"\n"),
            (r#"{"k":"a\u0080b"}"#, "k: \"a\\x80b\"\n"),
            (r#"{"k":"a\ufffeb"}"#, "k: \"a\\uFFFEb\"\n"),
            (r#"{"k":"\"\\\t"}"#, "k: \"\\\"\\\\\\t\"\n"),
            // A leading byte order mark makes libyaml escape every character.
            (r#"{"k":"\ufeffab"}"#, "k: \"\\uFEFF\\x61\\x62\"\n"),
            (r#"{"k":"a\ufeffb"}"#, "k: \"a\\uFEFFb\"\n"),
            // Non-ASCII printable characters are written as they are.
            (r#"{"k":"é\u00a0日本"}"#, "k: é\u{a0}日本\n"),
            (r#"{"k":"\t1"}"#, "k: \"\\t1\"\n"),
        ]);
    }

    #[test]
    fn multi_line_strings_use_literal_blocks() {
        check(&[
            (r#"{"k":"line1\nline2"}"#, "k: |-\n  line1\n  line2\n"),
            (r#"{"k":"line1\nline2\n"}"#, "k: |\n  line1\n  line2\n"),
            (r#"{"k":"trailing\n\n"}"#, "k: |+\n  trailing\n\n"),
            (r#"{"k":"\n"}"#, "k: |2+\n\n"),
            (r#"{"k":"  indented\nsecond\n"}"#, "k: |2\n    indented\n  second\n"),
            (r#"{"k":"a\n\nb"}"#, "k: |-\n  a\n\n  b\n"),
            (r#"{"k":"a\n  b"}"#, "k: |-\n  a\n    b\n"),
            (r#"{"k":"a\n#b: c"}"#, "k: |-\n  a\n  #b: c\n"),
            (r#"{"k":{"l":"a\nb"}}"#, "k:\n  l: |-\n    a\n    b\n"),
            (r#"{"k":["a\nb","c"]}"#, "k:\n- |-\n  a\n  b\n- c\n"),
            (r#"[["a\nb"]]"#, "- - |-\n    a\n    b\n"),
            (r#"{"k":"a\nb","z":1}"#, "k: |-\n  a\n  b\nz: 1\n"),
            (r#"{"k":"a\n\n","z":1}"#, "k: |+\n  a\n\nz: 1\n"),
            // Lines are never folded inside a literal block.
            (
                r#"{"k":"a long line that goes on and on past the eighty column limit without any folding at all\nx"}"#,
                "k: |-\n  a long line that goes on and on past the eighty column limit without any folding at all\n  x\n",
            ),
            // A space before a line break, a trailing space, or unprintable characters rule out
            // the literal style.
            (r#"{"k":"a \nb"}"#, "k: \"a \\nb\"\n"),
            (r#"{"k":"a\nb "}"#, "k: \"a\\nb \"\n"),
            (r#"{"k":"\tcode\n"}"#, "k: \"\\tcode\\n\"\n"),
            (r#"{"k":"a\r\nb\r\n"}"#, "k: \"a\\r\\nb\\r\\n\"\n"),
        ]);
    }

    #[test]
    fn line_separator_makes_a_multi_line_single_quoted_scalar() {
        // U+2028 is printable for libyaml but counts as a line break: plain is not allowed,
        // single quotes are, and the break is copied followed by indentation.
        check(&[(r#"{"k":"a\u2028b"}"#, "k: 'a\u{2028}  b'\n")]);
    }

    #[test]
    fn long_scalars_fold_at_spaces_past_80_columns() {
        let words = |n: usize, first: &str| {
            let mut parts = vec![first.to_string()];
            parts.extend(std::iter::repeat_n("abcdefghi".to_string(), n - 1));
            parts.join(" ")
        };
        let eight = words(8, "abcdefghi");
        let two = words(2, "abcdefghi");
        let json = format!(r#"{{"k":"{}"}}"#, words(10, "abcdefghi"));
        assert_eq!(yaml(&json), format!("k: {eight}\n  {two}\n"));

        let json = format!(r#"{{"a":{{"k":"{}"}}}}"#, words(10, "abcdefghi"));
        assert_eq!(yaml(&json), format!("a:\n  k: {eight}\n    {two}\n"));

        let json = format!(r#"["{}"]"#, words(10, "abcdefghi"));
        assert_eq!(yaml(&json), format!("- {eight}\n  {two}\n"));
        let json = format!(r#"["{}"]"#, words(8, "abcdefghi"));
        assert_eq!(yaml(&json), format!("- {eight}\n"));

        // Single-quoted scalars fold the same way.
        let json = format!(r#"{{"k":"{}"}}"#, words(10, "@bcdefghi"));
        let expected = format!("k: '{}\n  {two}'\n", words(8, "@bcdefghi"));
        assert_eq!(yaml(&json), expected);

        // Double-quoted scalars fold too; a second space after the fold is kept by escaping
        // the line break.
        let json = format!(r#"{{"k":"{}"}}"#, words(10, "\\tbcdefghi"));
        let expected = format!("k: \"{}\n  {two}\"\n", words(8, "\\tbcdefghi"));
        assert_eq!(yaml(&json), expected);
        let json = format!(r#"{{"k":"{}  abcdefghi"}}"#, words(8, "\\tbcdefghi"));
        let expected = format!("k: \"{}\n  \\ abcdefghi\"\n", words(8, "\\tbcdefghi"));
        assert_eq!(yaml(&json), expected);

        // Runs of spaces are not broken, and text without spaces is never folded.
        let long_word = "x".repeat(120);
        let json = format!(r#"{{"k":"{long_word}"}}"#);
        assert_eq!(yaml(&json), format!("k: {long_word}\n"));
        let json = format!(r#"{{"k":"{long_word}  y"}}"#);
        assert_eq!(yaml(&json), format!("k: {long_word}  y\n"));
        let json = format!(r#"{{"k":"{long_word} y"}}"#);
        assert_eq!(yaml(&json), format!("k: {long_word}\n  y\n"));
    }

    #[test]
    fn keys_are_quoted_like_values() {
        check(&[
            (
                r#"{"yes":1,"n":2,"1":3,"true":4,"null":5,"":6,"~":7}"#,
                "\"\": 6\n\"~\": 7\n\"1\": 3\n\"n\": 2\n\"null\": 5\n\"true\": 4\n\"yes\": 1\n",
            ),
            (r#"{"a\tb":1}"#, "\"a\\tb\": 1\n"),
        ]);
    }

    #[test]
    fn long_and_multi_line_keys_use_explicit_entries() {
        let key128 = "k".repeat(128);
        let key129 = "k".repeat(129);
        let cases = [
            (format!(r#"{{"{key128}":"v"}}"#), format!("{key128}: v\n")),
            (
                format!(r#"{{"{key129}":"v"}}"#),
                format!("? {key129}\n: v\n"),
            ),
            (
                format!(r#"{{"{key129}":{{"a":1}}}}"#),
                format!("? {key129}\n: a: 1\n"),
            ),
            (
                format!(r#"{{"{key129}":["a"]}}"#),
                format!("? {key129}\n: - a\n"),
            ),
            (
                r#"{"a\nb":"v"}"#.to_string(),
                "? |-\n  a\n  b\n: v\n".to_string(),
            ),
            (
                r#"{"x":{"a\nb":"v"}}"#.to_string(),
                "x:\n  ? |-\n    a\n    b\n  : v\n".to_string(),
            ),
        ];
        for (json, expected) in &cases {
            assert_eq!(&yaml(json), expected, "input: {json}");
        }
    }

    #[test]
    fn key_order_is_go_yaml_natural_order() {
        let keys = [
            "é", "b", "a10", "a9", "a1", "a b", "B", "10", "2", "1", "_x", "-x", "", "x010", "x10",
            "k\u{663}", "k2",
        ];
        let mut sorted: Vec<&str> = keys.to_vec();
        merge_sort_by(&mut sorted, |a, b| go_key_less(a, b));
        assert_eq!(
            sorted,
            [
                "", "-x", "_x", "1", "2", "10", "B", "a b", "a1", "a9", "a10", "b", "k2",
                "k\u{663}", "x10", "x010", "é",
            ]
        );
        let json = r#"{"yes":1,"n":2,"1":3,"10":4,"2":5,"":6,"a b":7,"- x":8,"key: x":9,"_u":10,"B":11,"a10":12,"a9":13,"true":14,"null":15}"#;
        assert_eq!(
            yaml(json),
            "\"\": 6\n'- x': 8\n_u: 10\n\"1\": 3\n\"2\": 5\n\"10\": 4\nB: 11\na b: 7\na9: 13\n\
             a10: 12\n'key: x': 9\n\"n\": 2\n\"null\": 15\n\"true\": 14\n\"yes\": 1\n"
        );
    }

    #[test]
    fn key_comparison_details() {
        let less = [
            ("a1", "a01"),
            ("a0", "a00"),
            ("a1-", "a10"),
            ("a10", "a15"),
            ("a10", "a1a"),
            ("-", "_"),
            ("Z", "a"),
            ("z", "é"),
            ("ab", "abc"),
        ];
        for (a, b) in less {
            assert!(go_key_less(a, b), "{a:?} < {b:?}");
            assert!(!go_key_less(b, a), "not {b:?} < {a:?}");
        }
    }

    #[test]
    fn unicode_classes_follow_go() {
        for c in ['a', 'Z', 'é', 'ß', '日', 'Ж', 'ʰ', 'ǅ'] {
            assert!(is_go_letter(c), "{c:?} is a letter");
        }
        for c in ['1', '_', '-', '\u{663}', '\u{2163}', '\u{301}', '²', ' '] {
            assert!(!is_go_letter(c), "{c:?} is not a letter");
        }
        for c in ['0', '9', '\u{663}', '\u{ff11}', '\u{1d7ce}'] {
            assert!(is_go_digit(c), "{c:?} is a digit");
        }
        for c in ['a', '²', '\u{2163}', '½'] {
            assert!(!is_go_digit(c), "{c:?} is not a digit");
        }
    }

    #[test]
    fn go_number_parsing() {
        assert_eq!(go_parse_int(b"-9223372036854775808", 0), Ok(i64::MIN));
        assert_eq!(
            go_parse_int(b"9223372036854775808", 0),
            Err(NumError::Range)
        );
        assert_eq!(
            go_parse_uint(b"18446744073709551616", 0),
            Err(NumError::Range)
        );
        assert_eq!(go_parse_uint(b"+1", 0), Err(NumError::Syntax));
        assert_eq!(go_parse_uint(b"0x1f", 0), Ok(31));
        assert_eq!(go_parse_uint(b"017", 0), Ok(15));
        assert_eq!(go_parse_uint(b"0", 0), Ok(0));
        assert_eq!(go_parse_uint(b"08", 0), Err(NumError::Syntax));
        assert!(go_uint_syntax_ok(b"0x123456789abcdef0123"));
        assert!(!go_uint_syntax_ok(b"0x123456789abcdef0123g"));
        assert!(go_underscore_ok(b"1_000"));
        assert!(!go_underscore_ok(b"1__0"));
        assert!(!go_underscore_ok(b"_1"));
        assert!(go_underscore_ok(b"0x_1"));
        assert!(go_parse_float_ok(b".5"));
        assert!(go_parse_float_ok(b".5e-3"));
        assert!(!go_parse_float_ok(b".5e"));
        assert!(!go_parse_float_ok(b".e5"));
        assert!(!go_parse_float_ok(b".5.5"));
        assert!(!go_parse_float_ok(b".5e999"));
        assert!(is_yaml_style_float(b"-1.5e+3"));
        assert!(!is_yaml_style_float(b"1e"));
        assert!(!is_yaml_style_float(b"."));
    }

    #[test]
    fn base60_floats() {
        for text in [
            "1:2",
            "12:30",
            "-1:59:59",
            "+1_0:00.5",
            "1:00.",
            "190:20:30",
        ] {
            assert!(is_base60_float(text), "{text}");
        }
        for text in [
            "12:60", "1:234", ":30", "1:", "1:2:", "a:1", "1::2", "1.5:30",
        ] {
            assert!(!is_base60_float(text), "{text}");
        }
    }

    #[test]
    fn round_trips_recorded_upstream_output() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(FIXTURE_DIR);
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("fixture directory {}: {e}", dir.display()));
        let mut names: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .collect();
        names.sort();
        assert!(!names.is_empty(), "no fixtures in {}", dir.display());
        let mut failures = Vec::new();
        for json_path in &names {
            let yaml_path = json_path.with_extension("yaml");
            let json = std::fs::read_to_string(json_path).expect("fixture JSON must be readable");
            let expected = std::fs::read(&yaml_path).expect("fixture YAML must be readable");
            let value: Value = serde_json::from_str(&json).expect("fixture JSON must parse");
            let mut out = Vec::new();
            write_document(&value, &mut out);
            if out != expected {
                let line = out
                    .split(|&b| b == b'\n')
                    .zip(expected.split(|&b| b == b'\n'))
                    .position(|(a, b)| a != b)
                    .map_or(0, |n| n + 1);
                failures.push(format!(
                    "{} (first difference on line {line})",
                    yaml_path.display()
                ));
            }
        }
        assert!(
            failures.is_empty(),
            "{} of {} fixtures differ:\n{}",
            failures.len(),
            names.len(),
            failures.join("\n")
        );
    }
}
