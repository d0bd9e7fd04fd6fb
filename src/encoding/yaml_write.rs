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

mod order;
mod resolve;

use order::{go_key_less, merge_sort_by};
use resolve::{is_base60_float, resolves_to_string};

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

    /// Copies the character at `*i` and then every following printable ASCII character
    /// (0x20-0x7E) that `more` accepts, in one go: what [`Emitter::write_char`] would do
    /// for each of them, for the long runs of ordinary text most scalars are made of.
    fn write_run(&mut self, value: &[u8], i: &mut usize, more: impl Fn(u8) -> bool) {
        self.write_char(value, i);
        let run = run_length(&value[*i..], |b| (0x20..=0x7E).contains(&b) && more(b));
        self.out.extend_from_slice(&value[*i..*i + run]);
        self.column += run;
        *i += run;
    }

    /// Copies the line break at `*i`: what follows starts a line, at its indentation.
    fn write_break(&mut self, value: &[u8], i: &mut usize) {
        if value[*i] == b'\n' {
            self.put_break();
            *i += 1;
        } else {
            self.write_char(value, i);
            self.column = 0;
        }
        self.indention = true;
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
        self.write_folded::<false>(value, allow_breaks);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single_quoted(&mut self, value: &[u8], allow_breaks: bool) {
        self.write_indicator(b"'", true, false, false);
        self.write_folded::<true>(value, allow_breaks);
        self.write_indicator(b"'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    /// The text of a plain or (`QUOTED`) single-quoted scalar: libyaml's two writers fold
    /// spaces and copy line breaks alike; a quoted scalar doubles its `'` and never folds at
    /// its first or last character.
    fn write_folded<const QUOTED: bool>(&mut self, value: &[u8], allow_breaks: bool) {
        let mut spaces = false;
        let mut breaks = false;
        let mut i = 0;
        while i < value.len() {
            if is_space(value, i) {
                if allow_breaks
                    && !spaces
                    && self.column > self.width
                    && (!QUOTED || (i > 0 && i < value.len() - 1))
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
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if QUOTED && value[i] == b'\'' {
                    self.put(b'\'');
                    self.write_char(value, &mut i);
                } else {
                    self.write_run(value, &mut i, |b| b != b' ' && !(QUOTED && b == b'\''));
                }
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
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
                self.write_run(value, &mut i, |b| b != b' ' && b != b'"' && b != b'\\');
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
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write_run(value, &mut i, |_| true);
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
        if i > 0 && is_ordinary(value[i]) {
            // A run of ordinary characters changes nothing but the state after the last.
            i += run_length(&value[i..], is_ordinary);
            previous_space = false;
            previous_break = false;
            preceded_by_whitespace = false;
            continue;
        }
        if i > 0 && value[i] == b' ' {
            // What the general case below does for a space after the first character: no
            // indicator, printable, a space (trailing when last) and whitespace after it.
            if i + 1 == value.len() {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
            preceded_by_whitespace = true;
            i += 1;
            continue;
        }
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
        let space = is_space(value, i);
        let line_break = !space && is_break(value, i);
        let (first, last) = (i == 0, i + width == value.len());
        if space {
            leading_space |= first;
            trailing_space |= last;
            break_space |= previous_break;
        } else if line_break {
            line_breaks = true;
            leading_break |= first;
            trailing_break |= last;
            space_break |= previous_space;
        }
        previous_space = space;
        previous_break = line_break;
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

/// How many bytes at the start of `bytes` satisfy `keep`. Whole 16-byte blocks are tested
/// without an early exit, so the compiler turns the test into vector compares: scalars such as
/// icons and embedded JSON are runs of thousands of ordinary bytes.
#[inline(always)]
fn run_length(bytes: &[u8], keep: impl Fn(u8) -> bool) -> usize {
    let mut n = 0;
    for block in bytes.chunks_exact(16) {
        if !block.iter().fold(true, |all, &b| all & keep(b)) {
            break;
        }
        n += 16;
    }
    n + bytes[n..]
        .iter()
        .position(|&b| !keep(b))
        .unwrap_or(bytes.len() - n)
}

/// A printable ASCII character that is neither a space nor an indicator the analysis looks at
/// after the first character (`:` and `#`).
fn is_ordinary(byte: u8) -> bool {
    (0x21..=0x7E).contains(&byte) && byte != b':' && byte != b'#'
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

#[cfg(test)]
mod tests;
