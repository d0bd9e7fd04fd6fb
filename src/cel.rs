//! Compile-time checking of the CEL (Common Expression Language) rules in
//! `olm.constraint` dependencies, as `opm bundle validate` does it with cel-go.
//!
//! The environment is the one operator-registry declares: a single variable
//! `properties` of type `list(map(string, any))`, the standard CEL functions,
//! operators and macros, and `semver_compare(any, any) -> int`. A rule is
//! accepted when it parses, type-checks, and its result type is `bool`.
//!
//! Errors are rendered like cel-go's `Issues.Err()` text: one
//! `ERROR: <input>:LINE:COL: MESSAGE` line per problem (sorted by position),
//! each followed by the offending source line and a caret line.
//!
//! The lexer follows the CEL ANTLR grammar (longest match, ANTLR's recovery
//! after an unrecognised character); the parser is recursive descent and
//! reports the first syntax error the way ANTLR's default error strategy words
//! it ("mismatched input", "extraneous input", "missing", "no viable
//! alternative"). Non-syntax parser errors (reserved identifiers, macro
//! arguments, literal ranges) and checker errors use cel-go's wording.

use std::fmt::Write as _;

/// cel-go's default parser recursion limit.
const MAX_RECURSION: usize = 250;
/// cel-go's default expression size limit, in code points.
const MAX_CODE_POINTS: usize = 100_000;
/// cel-go reports at most this many errors.
const MAX_ERRORS: usize = 100;
/// Guard for the recursive type algorithms (types nest no deeper than the AST).
const MAX_TYPE_DEPTH: usize = 4096;

const BOOL_MESSAGE: &str = "cel expressions must have type Bool";

/// Checks a constraint rule: it must parse as CEL, use only the declared
/// variable (`properties`) and functions/macros (standard CEL operators and
/// functions, macros `has`, `all`, `exists`, `exists_one`, `map`, `filter`,
/// plus `semver_compare`), and be of type bool where that is statically
/// known. Err holds a cel-go style diagnostic text.
pub fn check_constraint_rule(rule: &str) -> Result<(), String> {
    // The parser and checker recurse once per nesting level (cel-go allows 250
    // levels); a dedicated thread gives them a stack that is ample even for
    // unoptimised builds. Only the pages actually used are committed.
    let owned = rule.to_owned();
    let spawned = std::thread::Builder::new()
        .name("cel-check".into())
        .stack_size(CHECK_STACK_BYTES)
        .spawn(move || check_rule(&owned));
    match spawned {
        Ok(handle) => handle.join().unwrap_or_else(|_| {
            Err("ERROR: <input>:-1:0: internal error while checking the expression".to_string())
        }),
        Err(_) => check_rule(rule),
    }
}

/// Stack for the checking thread.
const CHECK_STACK_BYTES: usize = 64 << 20;

fn check_rule(rule: &str) -> Result<(), String> {
    let src: Vec<char> = rule.chars().collect();
    if src.len() > MAX_CODE_POINTS {
        let msg = format!(
            "expression code point size exceeds limit: size: {}, limit {}",
            src.len(),
            MAX_CODE_POINTS
        );
        return Err(render(&src, vec![Diag::nowhere(msg)]));
    }
    let (tokens, mut diags) = lex(&src);
    let mut parser = Parser::new(&src, tokens);
    let parsed = parser.parse_start();
    diags.append(&mut parser.errors);
    let ast = match parsed {
        Err(Stop::Syntax(diag)) => {
            diags.push(diag);
            return Err(render(&src, diags));
        }
        Err(Stop::Limit(msg)) => {
            diags.push(Diag::nowhere(msg.to_string()));
            return Err(render(&src, diags));
        }
        Ok(ast) => ast,
    };
    if !diags.is_empty() {
        return Err(render(&src, diags));
    }
    let mut checker = Checker::new();
    let ty = checker.check(&ast);
    if !checker.errors.is_empty() {
        return Err(render(&src, checker.errors));
    }
    if substitute(&checker.subst, &ty, true, 0) == Ty::Bool {
        Ok(())
    } else {
        Err(BOOL_MESSAGE.to_string())
    }
}

// ---------------------------------------------------------------------------
// Diagnostics
// ---------------------------------------------------------------------------

/// One reported problem; `at` is a code-point offset into the source, `None`
/// for cel-go's "no location" (displayed as line -1, column 0, no snippet).
#[derive(Debug, Clone)]
struct Diag {
    at: Option<usize>,
    msg: String,
}

impl Diag {
    fn at(offset: usize, msg: impl Into<String>) -> Self {
        Diag {
            at: Some(offset),
            msg: msg.into(),
        }
    }

    fn nowhere(msg: String) -> Self {
        Diag { at: None, msg }
    }
}

/// Renders diagnostics like cel-go's `Errors.ToDisplayString`.
fn render(src: &[char], mut diags: Vec<Diag>) -> String {
    let total = diags.len();
    diags.truncate(MAX_ERRORS);
    let mut line_starts = vec![0usize];
    for (i, c) in src.iter().enumerate() {
        if *c == '\n' {
            line_starts.push(i + 1);
        }
    }
    let locate = |offset: usize| -> (usize, usize) {
        let line = line_starts.partition_point(|&s| s <= offset).max(1);
        (line, offset - line_starts[line - 1])
    };
    let mut keyed: Vec<((i64, i64), Diag)> = diags
        .into_iter()
        .map(|d| {
            let key = match d.at {
                Some(off) => {
                    let (l, c) = locate(off);
                    (l as i64, c as i64)
                }
                None => (-1, -1),
            };
            (key, d)
        })
        .collect();
    keyed.sort_by_key(|(key, _)| *key);
    let mut parts = Vec::with_capacity(keyed.len() + 1);
    for ((line, col), diag) in keyed {
        let mut text = format!("ERROR: <input>:{}:{}: {}", line, col + 1, diag.msg);
        if line >= 1 {
            let start = line_starts[(line - 1) as usize];
            let end = src[start..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(src.len(), |p| start + p);
            let snippet: Vec<char> = src[start..end]
                .iter()
                .map(|&c| if c == '\t' { ' ' } else { c })
                .collect();
            let col = col as usize;
            text.push_str("\n | ");
            text.extend(snippet.iter());
            text.push_str("\n | ");
            for c in snippet.iter().take(col) {
                text.push(if c.len_utf8() > 1 { '\u{ff0e}' } else { '.' });
            }
            let wide = snippet.get(col).is_some_and(|c| c.len_utf8() > 1);
            text.push(if wide { '\u{ff3e}' } else { '^' });
        }
        parts.push(text);
    }
    if total > MAX_ERRORS {
        parts.push(format!("{} more errors were truncated", total - MAX_ERRORS));
    }
    parts.join("\n")
}

/// ANTLR's rendering of token text inside error messages.
fn escape_display(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            _ => out.push(c),
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------

/// Token kinds in the order of the grammar's token types (EOF first), which is
/// the order ANTLR lists expected tokens in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tk {
    Eof,
    Eq,
    Ne,
    In,
    Lt,
    Le,
    Ge,
    Gt,
    And,
    Or,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    LParen,
    RParen,
    Dot,
    Comma,
    Minus,
    Bang,
    Question,
    Colon,
    Plus,
    Star,
    Slash,
    Percent,
    True,
    False,
    Null,
    Float,
    Int,
    Uint,
    Str,
    Bytes,
    Ident,
}

const ALL_TOKENS: [Tk; 35] = [
    Tk::Eof,
    Tk::Eq,
    Tk::Ne,
    Tk::In,
    Tk::Lt,
    Tk::Le,
    Tk::Ge,
    Tk::Gt,
    Tk::And,
    Tk::Or,
    Tk::LBracket,
    Tk::RBracket,
    Tk::LBrace,
    Tk::RBrace,
    Tk::LParen,
    Tk::RParen,
    Tk::Dot,
    Tk::Comma,
    Tk::Minus,
    Tk::Bang,
    Tk::Question,
    Tk::Colon,
    Tk::Plus,
    Tk::Star,
    Tk::Slash,
    Tk::Percent,
    Tk::True,
    Tk::False,
    Tk::Null,
    Tk::Float,
    Tk::Int,
    Tk::Uint,
    Tk::Str,
    Tk::Bytes,
    Tk::Ident,
];

impl Tk {
    fn display(self) -> &'static str {
        match self {
            Tk::Eof => "<EOF>",
            Tk::Eq => "'=='",
            Tk::Ne => "'!='",
            Tk::In => "'in'",
            Tk::Lt => "'<'",
            Tk::Le => "'<='",
            Tk::Ge => "'>='",
            Tk::Gt => "'>'",
            Tk::And => "'&&'",
            Tk::Or => "'||'",
            Tk::LBracket => "'['",
            Tk::RBracket => "']'",
            Tk::LBrace => "'{'",
            Tk::RBrace => "'}'",
            Tk::LParen => "'('",
            Tk::RParen => "')'",
            Tk::Dot => "'.'",
            Tk::Comma => "','",
            Tk::Minus => "'-'",
            Tk::Bang => "'!'",
            Tk::Question => "'?'",
            Tk::Colon => "':'",
            Tk::Plus => "'+'",
            Tk::Star => "'*'",
            Tk::Slash => "'/'",
            Tk::Percent => "'%'",
            Tk::True => "'true'",
            Tk::False => "'false'",
            Tk::Null => "'null'",
            Tk::Float => "NUM_FLOAT",
            Tk::Int => "NUM_INT",
            Tk::Uint => "NUM_UINT",
            Tk::Str => "STRING",
            Tk::Bytes => "BYTES",
            Tk::Ident => "IDENTIFIER",
        }
    }
}

/// A set of token kinds (bit per kind).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct TokSet(u64);

impl TokSet {
    const fn of(kinds: &[Tk]) -> TokSet {
        let mut bits = 0u64;
        let mut i = 0;
        while i < kinds.len() {
            bits |= 1u64 << (kinds[i] as u8);
            i += 1;
        }
        TokSet(bits)
    }

    fn has(self, kind: Tk) -> bool {
        self.0 & (1u64 << (kind as u8)) != 0
    }

    fn with(self, other: TokSet) -> TokSet {
        TokSet(self.0 | other.0)
    }

    /// ANTLR's `IntervalSet` rendering: a lone element bare, else `{a, b}`.
    fn display(self) -> String {
        let names: Vec<&str> = ALL_TOKENS
            .iter()
            .filter(|k| self.has(**k))
            .map(|k| k.display())
            .collect();
        if names.len() == 1 {
            names[0].to_string()
        } else {
            format!("{{{}}}", names.join(", "))
        }
    }
}

/// Tokens that can start an expression.
const EXPR_START: TokSet = TokSet::of(&[
    Tk::LBracket,
    Tk::LBrace,
    Tk::LParen,
    Tk::Dot,
    Tk::Minus,
    Tk::Bang,
    Tk::True,
    Tk::False,
    Tk::Null,
    Tk::Float,
    Tk::Int,
    Tk::Uint,
    Tk::Str,
    Tk::Bytes,
    Tk::Ident,
]);

/// Tokens that can start a member expression (a `-` only as the sign of a
/// numeric literal, handled separately).
const MEMBER_START: TokSet = TokSet::of(&[
    Tk::LBracket,
    Tk::LBrace,
    Tk::LParen,
    Tk::Dot,
    Tk::True,
    Tk::False,
    Tk::Null,
    Tk::Float,
    Tk::Int,
    Tk::Uint,
    Tk::Str,
    Tk::Bytes,
    Tk::Ident,
]);

/// Tokens that may directly follow a complete member expression, whatever
/// the enclosing context.
const AFTER_MEMBER: TokSet = TokSet::of(&[
    Tk::Dot,
    Tk::LBracket,
    Tk::LBrace,
    Tk::Star,
    Tk::Slash,
    Tk::Percent,
    Tk::Plus,
    Tk::Minus,
    Tk::Eq,
    Tk::Ne,
    Tk::Lt,
    Tk::Le,
    Tk::Gt,
    Tk::Ge,
    Tk::In,
    Tk::And,
    Tk::Or,
    Tk::Question,
]);

const RESERVED: [&str; 21] = [
    "as",
    "break",
    "const",
    "continue",
    "else",
    "false",
    "for",
    "function",
    "if",
    "import",
    "in",
    "let",
    "loop",
    "package",
    "namespace",
    "null",
    "return",
    "true",
    "var",
    "void",
    "while",
];

#[derive(Clone, Copy, Debug)]
struct Token {
    kind: Tk,
    start: usize,
    end: usize,
}

// ---------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------

/// Splits the source into tokens (whitespace and comments dropped), reporting
/// unrecognisable input the way ANTLR's lexer does: the text from the token
/// start through the character where matching failed, after which lexing
/// resumes behind that character.
fn lex(src: &[char]) -> (Vec<Token>, Vec<Diag>) {
    let n = src.len();
    let mut tokens = Vec::new();
    let mut diags = Vec::new();
    let mut i = 0;
    while i < n {
        let c = src[i];
        if matches!(c, ' ' | '\t' | '\r' | '\n' | '\u{c}') {
            i += 1;
            continue;
        }
        if c == '/' && src.get(i + 1) == Some(&'/') {
            while i < n && src[i] != '\n' {
                i += 1;
            }
            continue;
        }
        match scan_token(src, i) {
            Ok((kind, end)) => {
                tokens.push(Token {
                    kind,
                    start: i,
                    end,
                });
                i = end;
            }
            Err(fail) => {
                let stop = if fail < n { fail + 1 } else { n };
                let text: String = src[i..stop].iter().collect();
                diags.push(Diag::at(
                    i,
                    format!(
                        "Syntax error: token recognition error at: '{}'",
                        escape_display(&text)
                    ),
                ));
                i = stop;
            }
        }
    }
    tokens.push(Token {
        kind: Tk::Eof,
        start: n,
        end: n,
    });
    (tokens, diags)
}

/// The token starting at `i` and its end, or the index where matching failed.
fn scan_token(src: &[char], i: usize) -> Result<(Tk, usize), usize> {
    let at = |k: usize| src.get(k).copied();
    let c = src[i];
    let pair = |second: char, two: Tk, one: Tk| {
        if at(i + 1) == Some(second) {
            (two, i + 2)
        } else {
            (one, i + 1)
        }
    };
    match c {
        '0'..='9' => Ok(scan_number(src, i)),
        '.' if at(i + 1).is_some_and(|d| d.is_ascii_digit()) => Ok(scan_number(src, i)),
        '"' | '\'' => scan_string(src, i, false).map(|end| (Tk::Str, end)),
        'r' | 'R' if matches!(at(i + 1), Some('"' | '\'')) => match scan_string(src, i + 1, true) {
            Ok(end) => Ok((Tk::Str, end)),
            Err(_) => Ok((Tk::Ident, i + 1)),
        },
        'b' | 'B' => {
            let attempt = match at(i + 1) {
                Some('"' | '\'') => Some(scan_string(src, i + 1, false)),
                Some('r' | 'R') if matches!(at(i + 2), Some('"' | '\'')) => {
                    Some(scan_string(src, i + 2, true))
                }
                _ => None,
            };
            match attempt {
                Some(Ok(end)) => Ok((Tk::Bytes, end)),
                _ => Ok(scan_ident(src, i)),
            }
        }
        c if c.is_ascii_alphabetic() || c == '_' => Ok(scan_ident(src, i)),
        '=' if at(i + 1) == Some('=') => Ok((Tk::Eq, i + 2)),
        '&' if at(i + 1) == Some('&') => Ok((Tk::And, i + 2)),
        '|' if at(i + 1) == Some('|') => Ok((Tk::Or, i + 2)),
        '=' | '&' | '|' => Err(i + 1),
        '!' => Ok(pair('=', Tk::Ne, Tk::Bang)),
        '<' => Ok(pair('=', Tk::Le, Tk::Lt)),
        '>' => Ok(pair('=', Tk::Ge, Tk::Gt)),
        '.' => Ok((Tk::Dot, i + 1)),
        '[' => Ok((Tk::LBracket, i + 1)),
        ']' => Ok((Tk::RBracket, i + 1)),
        '{' => Ok((Tk::LBrace, i + 1)),
        '}' => Ok((Tk::RBrace, i + 1)),
        '(' => Ok((Tk::LParen, i + 1)),
        ')' => Ok((Tk::RParen, i + 1)),
        ',' => Ok((Tk::Comma, i + 1)),
        '-' => Ok((Tk::Minus, i + 1)),
        '?' => Ok((Tk::Question, i + 1)),
        ':' => Ok((Tk::Colon, i + 1)),
        '+' => Ok((Tk::Plus, i + 1)),
        '*' => Ok((Tk::Star, i + 1)),
        '/' => Ok((Tk::Slash, i + 1)),
        '%' => Ok((Tk::Percent, i + 1)),
        _ => Err(i),
    }
}

fn scan_ident(src: &[char], i: usize) -> (Tk, usize) {
    let mut j = i + 1;
    while j < src.len() && (src[j].is_ascii_alphanumeric() || src[j] == '_') {
        j += 1;
    }
    let kind = match src[i..j].iter().collect::<String>().as_str() {
        "true" => Tk::True,
        "false" => Tk::False,
        "null" => Tk::Null,
        "in" => Tk::In,
        _ => Tk::Ident,
    };
    (kind, j)
}

fn scan_digits(src: &[char], mut j: usize) -> usize {
    while j < src.len() && src[j].is_ascii_digit() {
        j += 1;
    }
    j
}

/// An exponent (`e`, optional sign, digits) at `j`, returning its end.
fn scan_exponent(src: &[char], j: usize) -> Option<usize> {
    if !matches!(src.get(j), Some('e' | 'E')) {
        return None;
    }
    let mut k = j + 1;
    if matches!(src.get(k), Some('+' | '-')) {
        k += 1;
    }
    if src.get(k).is_some_and(|d| d.is_ascii_digit()) {
        Some(scan_digits(src, k))
    } else {
        None
    }
}

fn scan_number(src: &[char], i: usize) -> (Tk, usize) {
    let at = |k: usize| src.get(k).copied();
    if src[i] == '.' {
        let j = scan_digits(src, i + 1);
        return (Tk::Float, scan_exponent(src, j).unwrap_or(j));
    }
    if src[i] == '0' && at(i + 1) == Some('x') && at(i + 2).is_some_and(|h| h.is_ascii_hexdigit()) {
        let mut j = i + 2;
        while at(j).is_some_and(|h| h.is_ascii_hexdigit()) {
            j += 1;
        }
        return if matches!(at(j), Some('u' | 'U')) {
            (Tk::Uint, j + 1)
        } else {
            (Tk::Int, j)
        };
    }
    let j = scan_digits(src, i);
    if matches!(at(j), Some('u' | 'U')) {
        return (Tk::Uint, j + 1);
    }
    if at(j) == Some('.') && at(j + 1).is_some_and(|d| d.is_ascii_digit()) {
        let k = scan_digits(src, j + 1);
        return (Tk::Float, scan_exponent(src, k).unwrap_or(k));
    }
    match scan_exponent(src, j) {
        Some(end) => (Tk::Float, end),
        None => (Tk::Int, j),
    }
}

/// A quoted string whose opening quote is at `q`; returns its end, or the
/// index where it stopped matching. A failed triple-quoted string falls back
/// to the empty string formed by its first two quotes (ANTLR's last accept).
fn scan_string(src: &[char], q: usize, raw: bool) -> Result<usize, usize> {
    let n = src.len();
    let quote = src[q];
    let at = |k: usize| src.get(k).copied();
    if at(q + 1) == Some(quote) && at(q + 2) == Some(quote) {
        let mut j = q + 3;
        loop {
            if j >= n {
                return Ok(q + 2);
            }
            let c = src[j];
            if c == quote && at(j + 1) == Some(quote) && at(j + 2) == Some(quote) {
                return Ok(j + 3);
            }
            if !raw && c == '\\' {
                match scan_escape(src, j) {
                    Ok(end) => {
                        j = end;
                        continue;
                    }
                    Err(_) => return Ok(q + 2),
                }
            }
            j += 1;
        }
    }
    let mut j = q + 1;
    loop {
        if j >= n {
            return Err(n);
        }
        let c = src[j];
        if c == quote {
            return Ok(j + 1);
        }
        if c == '\n' || c == '\r' {
            return Err(j);
        }
        if !raw && c == '\\' {
            j = scan_escape(src, j)?;
            continue;
        }
        j += 1;
    }
}

/// A backslash escape at `j` (which holds the backslash).
fn scan_escape(src: &[char], j: usize) -> Result<usize, usize> {
    let n = src.len();
    let k = j + 1;
    let Some(c) = src.get(k).copied() else {
        return Err(n);
    };
    let run = |from: usize, count: usize, ok: fn(char) -> bool| -> Result<usize, usize> {
        for m in from..from + count {
            match src.get(m) {
                Some(&d) if ok(d) => {}
                Some(_) => return Err(m),
                None => return Err(n),
            }
        }
        Ok(from + count)
    };
    match c {
        'a' | 'b' | 'f' | 'n' | 'r' | 't' | 'v' | '"' | '\'' | '\\' | '?' | '`' => Ok(k + 1),
        '0'..='3' => run(k + 1, 2, |d| ('0'..='7').contains(&d)),
        'x' | 'X' => run(k + 1, 2, |d| d.is_ascii_hexdigit()),
        'u' => run(k + 1, 4, |d| d.is_ascii_hexdigit()),
        'U' => run(k + 1, 8, |d| d.is_ascii_hexdigit()),
        _ => Err(k),
    }
}

/// The part of cel-go's unescaping that can still fail once the lexer has
/// accepted a literal: a `\U` escape beyond the Unicode range in a string.
fn check_unescape(text: &str, is_bytes: bool) -> Result<(), &'static str> {
    if is_bytes || text.starts_with(['r', 'R']) {
        return Ok(());
    }
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '\\' {
            i += 1;
            continue;
        }
        match chars.get(i + 1) {
            Some('U') => {
                let hex: String = chars.iter().skip(i + 2).take(8).collect();
                match u32::from_str_radix(&hex, 16) {
                    Ok(v) if v <= 0x10_FFFF => {}
                    _ => return Err("unable to unescape string"),
                }
                i += 10;
            }
            Some(_) => i += 2,
            None => return Err("unable to unescape string, found '\\' as last character"),
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// AST
// ---------------------------------------------------------------------------

#[derive(Debug)]
enum Kind {
    /// Placeholder for an expression that already produced an error.
    Error,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    Str,
    Bytes,
    Ident(String),
    Select {
        operand: Box<Node>,
        field: String,
        test_only: bool,
    },
    Call {
        func: String,
        target: Option<Box<Node>>,
        args: Vec<Node>,
    },
    List(Vec<Node>),
    Map(Vec<(Node, Node)>),
    Message {
        name: String,
        fields: Vec<Node>,
    },
    Comprehension(Box<Comprehension>),
}

#[derive(Debug)]
struct Comprehension {
    iter_var: String,
    range: Node,
    init: Node,
    cond: Node,
    step: Node,
    result: Node,
}

#[derive(Debug)]
struct Node {
    kind: Kind,
    /// Code-point offset cel-go attributes this expression to.
    pos: usize,
    /// Nesting of the parse nodes cel-go's visitor counts against its
    /// recursion limit (conditionals, operators, selections, member calls,
    /// indexes).
    depth: usize,
}

const ACCU: &str = "__result__";

impl Node {
    fn new(kind: Kind, pos: usize, depth: usize) -> Node {
        Node { kind, pos, depth }
    }

    fn error(pos: usize) -> Node {
        Node::new(Kind::Error, pos, 0)
    }

    fn ident(name: &str, pos: usize) -> Node {
        Node::new(Kind::Ident(name.to_string()), pos, 0)
    }

    fn call(func: &str, args: Vec<Node>, pos: usize, depth: usize) -> Node {
        Node::new(
            Kind::Call {
                func: func.to_string(),
                target: None,
                args,
            },
            pos,
            depth,
        )
    }

    fn int_lit(pos: usize) -> Node {
        Node::new(Kind::Int, pos, 0)
    }
}

fn max_depth<'a>(nodes: impl IntoIterator<Item = &'a Node>) -> usize {
    nodes.into_iter().map(|n| n.depth).max().unwrap_or(0)
}

/// `a.b.c` as a dotted name when the expression is an identifier followed by
/// plain field selections.
fn qualified_name(node: &Node) -> Option<String> {
    let mut parts = Vec::new();
    let mut cur = node;
    loop {
        match &cur.kind {
            Kind::Ident(name) => {
                parts.push(name.as_str());
                break;
            }
            Kind::Select {
                operand,
                field,
                test_only: false,
            } => {
                parts.push(field.as_str());
                cur = operand;
            }
            _ => return None,
        }
    }
    parts.reverse();
    Some(parts.join("."))
}

// ---------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------

/// Why parsing stopped: a syntax error (the first one is reported) or one of
/// cel-go's recursion limits.
enum Stop {
    Syntax(Diag),
    Limit(&'static str),
}

type PResult<T> = Result<T, Stop>;

const RULE_LIMIT: &str = "expression recursion limit exceeded: 250";
const VISIT_LIMIT: &str = "max recursion depth exceeded";

/// Grammar rules whose nesting cel-go's parse listener limits.
#[derive(Clone, Copy)]
enum Rule {
    Expr,
    Relation,
    Calc,
    Member,
}

struct Parser<'a> {
    src: &'a [char],
    tokens: Vec<Token>,
    pos: usize,
    /// Non-syntax errors cel-go's visitor reports.
    errors: Vec<Diag>,
    /// Tokens that may follow an expression in each enclosing context.
    follow: Vec<TokSet>,
    depths: [usize; 4],
}

impl<'a> Parser<'a> {
    fn new(src: &'a [char], tokens: Vec<Token>) -> Self {
        Parser {
            src,
            tokens,
            pos: 0,
            errors: Vec::new(),
            follow: Vec::new(),
            depths: [0; 4],
        }
    }

    // --- token access -----------------------------------------------------

    fn tok(&self, ahead: usize) -> Token {
        let last = self.tokens.len() - 1;
        self.tokens[(self.pos + ahead).min(last)]
    }

    fn cur(&self) -> Tk {
        self.tok(0).kind
    }

    fn peek(&self) -> Tk {
        self.tok(1).kind
    }

    fn advance(&mut self) -> Token {
        let t = self.tok(0);
        if t.kind != Tk::Eof {
            self.pos += 1;
        }
        t
    }

    fn text(&self, t: Token) -> String {
        self.src[t.start..t.end].iter().collect()
    }

    fn display(&self, t: Token) -> String {
        if t.kind == Tk::Eof {
            "'<EOF>'".to_string()
        } else {
            format!("'{}'", escape_display(&self.text(t)))
        }
    }

    // --- errors -------------------------------------------------------------

    fn syntax(&self, t: Token, msg: String) -> Stop {
        Stop::Syntax(Diag::at(t.start, format!("Syntax error: {msg}")))
    }

    /// ANTLR's `sync` failure: the current token is not in `expected`.
    fn sync_error(&self, expected: TokSet) -> Stop {
        let t = self.tok(0);
        let how = if expected.has(self.peek()) {
            "extraneous input"
        } else {
            "mismatched input"
        };
        self.syntax(
            t,
            format!("{how} {} expecting {}", self.display(t), expected.display()),
        )
    }

    /// ANTLR's `match` with single-token deletion and insertion.
    fn expect(&mut self, kind: Tk, follow: TokSet) -> PResult<Token> {
        let t = self.tok(0);
        if t.kind == kind {
            return Ok(self.advance());
        }
        let msg = if self.peek() == kind {
            format!(
                "extraneous input {} expecting {}",
                self.display(t),
                kind.display()
            )
        } else if follow.has(t.kind) {
            format!("missing {} at {}", kind.display(), self.display(t))
        } else {
            format!(
                "mismatched input {} expecting {}",
                self.display(t),
                kind.display()
            )
        };
        Err(self.syntax(t, msg))
    }

    /// ANTLR's "no viable alternative" for a decision that started at token
    /// index `from` and failed at token index `at`.
    fn no_viable(&self, from: usize, at: usize) -> Stop {
        let last = self.tokens.len() - 1;
        let start = self.tokens[from.min(last)];
        let bad = self.tokens[at.min(last)];
        let text: String = self.src[start.start..bad.end.max(start.start)]
            .iter()
            .collect();
        self.syntax(
            bad,
            format!("no viable alternative at input '{}'", escape_display(&text)),
        )
    }

    fn context_follow(&self) -> TokSet {
        self.follow
            .last()
            .copied()
            .unwrap_or(TokSet::of(&[Tk::Eof]))
    }

    fn after_member(&self) -> TokSet {
        AFTER_MEMBER.with(self.context_follow())
    }

    fn enter(&mut self, rule: Rule) -> PResult<()> {
        let d = &mut self.depths[rule as usize];
        *d += 1;
        if *d > MAX_RECURSION {
            Err(Stop::Limit(RULE_LIMIT))
        } else {
            Ok(())
        }
    }

    fn leave(&mut self, rule: Rule, count: usize) {
        let d = &mut self.depths[rule as usize];
        *d = d.saturating_sub(count);
    }

    fn counted(node: Node) -> PResult<Node> {
        if node.depth > MAX_RECURSION {
            Err(Stop::Limit(VISIT_LIMIT))
        } else {
            Ok(node)
        }
    }

    // --- grammar --------------------------------------------------------------

    fn parse_start(&mut self) -> PResult<Node> {
        let e = self.parse_expr()?;
        if self.cur() != Tk::Eof {
            let t = self.tok(0);
            let how = if self.peek() == Tk::Eof {
                "extraneous input"
            } else {
                "mismatched input"
            };
            return Err(self.syntax(t, format!("{how} {} expecting <EOF>", self.display(t))));
        }
        Ok(e)
    }

    /// `expr : conditionalOr ('?' conditionalOr ':' expr)?`
    fn parse_expr(&mut self) -> PResult<Node> {
        self.enter(Rule::Expr)?;
        let cond = self.parse_logic(true)?;
        let out = if self.cur() == Tk::Question {
            let q = self.advance();
            self.follow.push(TokSet::of(&[Tk::Colon]));
            let then = self.parse_logic(true)?;
            self.follow.pop();
            self.expect(Tk::Colon, EXPR_START)?;
            let other = self.parse_expr()?;
            let depth = 1 + max_depth([&cond, &then, &other]);
            Self::counted(Node::call("_?_:_", vec![cond, then, other], q.start, depth))?
        } else {
            cond
        };
        self.leave(Rule::Expr, 1);
        Ok(out)
    }

    /// `conditionalOr` / `conditionalAnd`, built as cel-go's balanced tree.
    fn parse_logic(&mut self, or: bool) -> PResult<Node> {
        let (op, func) = if or {
            (Tk::Or, "_||_")
        } else {
            (Tk::And, "_&&_")
        };
        let first = if or {
            self.parse_logic(false)?
        } else {
            self.parse_relation()?
        };
        if self.cur() != op {
            return Ok(first);
        }
        let mut terms = vec![Some(first)];
        let mut ops = Vec::new();
        while self.cur() == op {
            ops.push(self.advance().start);
            let term = if or {
                self.parse_logic(false)?
            } else {
                self.parse_relation()?
            };
            terms.push(Some(term));
        }
        Ok(balance(&mut terms, &ops, func, 0, ops.len() - 1))
    }

    /// `relation : calc | relation op relation` (all one precedence level).
    fn parse_relation(&mut self) -> PResult<Node> {
        self.enter(Rule::Relation)?;
        let mut lhs = self.parse_calc()?;
        let mut pushes = 0;
        while let Some(func) = relation_function(self.cur()) {
            let op = self.advance();
            pushes += 1;
            self.enter(Rule::Relation)?;
            self.enter(Rule::Relation)?;
            let rhs = self.parse_calc()?;
            self.leave(Rule::Relation, 1);
            let depth = 1 + max_depth([&lhs, &rhs]);
            lhs = Self::counted(Node::call(func, vec![lhs, rhs], op.start, depth))?;
        }
        self.leave(Rule::Relation, 1 + pushes);
        Ok(lhs)
    }

    fn parse_calc(&mut self) -> PResult<Node> {
        self.enter(Rule::Calc)?;
        let out = self.calc_level(1)?;
        self.leave(Rule::Calc, 1);
        Ok(out)
    }

    /// Precedence climbing over `* / %` (2) and `+ -` (1).
    fn calc_level(&mut self, min_prec: u8) -> PResult<Node> {
        let mut lhs = self.parse_unary()?;
        let mut pushes = 0;
        while let Some((func, prec)) = calc_operator(self.cur()) {
            if prec < min_prec {
                break;
            }
            let op = self.advance();
            pushes += 1;
            self.enter(Rule::Calc)?;
            self.enter(Rule::Calc)?;
            let rhs = self.calc_level(prec + 1)?;
            self.leave(Rule::Calc, 1);
            let depth = 1 + max_depth([&lhs, &rhs]);
            lhs = Self::counted(Node::call(func, vec![lhs, rhs], op.start, depth))?;
        }
        self.leave(Rule::Calc, pushes);
        Ok(lhs)
    }

    /// `unary : member | '!'+ member | '-'+ member`
    fn parse_unary(&mut self) -> PResult<Node> {
        match self.cur() {
            Tk::Bang => {
                let first = self.tok(0).start;
                let mut count = 0usize;
                while self.cur() == Tk::Bang {
                    self.advance();
                    count += 1;
                }
                match self.cur() {
                    Tk::Minus => {
                        if !matches!(self.peek(), Tk::Int | Tk::Float) {
                            return Err(self.no_viable(self.pos, self.pos + 1));
                        }
                    }
                    t if MEMBER_START.has(t) => {}
                    _ => {
                        let t = self.tok(0);
                        return Err(self.syntax(
                            t,
                            format!(
                                "extraneous input {} expecting {}",
                                self.display(t),
                                EXPR_START.display()
                            ),
                        ));
                    }
                }
                let m = self.parse_member()?;
                Ok(if count % 2 == 1 {
                    let depth = m.depth;
                    Node::call("!_", vec![m], first, depth)
                } else {
                    m
                })
            }
            Tk::Minus => {
                let first_index = self.pos;
                let first = self.tok(0).start;
                let mut count = 0usize;
                while self.tok(count).kind == Tk::Minus {
                    count += 1;
                }
                let next = self.tok(count).kind;
                if count == 1 && matches!(next, Tk::Int | Tk::Float) {
                    // A negative numeric literal.
                    return self.parse_member();
                }
                if !MEMBER_START.has(next) {
                    return Err(self.no_viable(first_index, first_index + count));
                }
                for _ in 0..count {
                    self.advance();
                }
                let m = self.parse_member()?;
                Ok(if count % 2 == 1 {
                    let depth = m.depth;
                    Node::call("-_", vec![m], first, depth)
                } else {
                    m
                })
            }
            t if MEMBER_START.has(t) => self.parse_member(),
            _ => Err(self.sync_error(EXPR_START)),
        }
    }

    /// `member : primary ('.' IDENT ('(' args ')')? | '[' expr ']' | '{' fields '}')*`
    fn parse_member(&mut self) -> PResult<Node> {
        self.enter(Rule::Member)?;
        let mut e = self.parse_primary()?;
        let mut pushes = 0;
        loop {
            match self.cur() {
                Tk::Dot => {
                    let dot = self.advance();
                    pushes += 1;
                    self.enter(Rule::Member)?;
                    let follow = self.after_member().with(TokSet::of(&[Tk::LParen]));
                    let id = self.expect(Tk::Ident, follow)?;
                    let name = self.text(id);
                    if self.cur() == Tk::LParen {
                        let open = self.advance();
                        let (args, close) = self.parse_call_args()?;
                        let depth = 1 + e.depth.max(max_depth(&args));
                        let node = self.receiver_call_or_macro(&name, e, args, open.start, depth);
                        if let Some(stop) = close {
                            return Err(stop);
                        }
                        e = Self::counted(node)?;
                    } else {
                        let depth = 1 + e.depth;
                        e = Self::counted(Node::new(
                            Kind::Select {
                                operand: Box::new(e),
                                field: name,
                                test_only: false,
                            },
                            dot.start,
                            depth,
                        ))?;
                    }
                }
                Tk::LBracket => {
                    let open = self.advance();
                    pushes += 1;
                    self.enter(Rule::Member)?;
                    self.follow.push(TokSet::of(&[Tk::RBracket]));
                    let index = self.parse_expr()?;
                    self.follow.pop();
                    let follow = self.after_member();
                    self.expect(Tk::RBracket, follow)?;
                    let depth = 1 + max_depth([&e, &index]);
                    e = Self::counted(Node::call("_[_]", vec![e, index], open.start, depth))?;
                }
                Tk::LBrace => {
                    let open = self.advance();
                    pushes += 1;
                    self.enter(Rule::Member)?;
                    e = self.parse_message(e, open.start)?;
                }
                _ => break,
            }
        }
        self.leave(Rule::Member, 1 + pushes);
        Ok(e)
    }

    /// Arguments after an opening parenthesis; a failure at the closing
    /// parenthesis is returned separately so macros still see the arguments.
    fn parse_call_args(&mut self) -> PResult<(Vec<Node>, Option<Stop>)> {
        self.follow.push(TokSet::of(&[Tk::Comma, Tk::RParen]));
        let mut args = Vec::new();
        let cur = self.cur();
        if cur != Tk::RParen {
            if !EXPR_START.has(cur) {
                return Err(self.sync_error(EXPR_START.with(TokSet::of(&[Tk::RParen]))));
            }
            loop {
                args.push(self.parse_expr()?);
                if self.cur() == Tk::Comma {
                    self.advance();
                } else {
                    break;
                }
            }
        }
        self.follow.pop();
        let follow = self.after_member();
        let close = self.expect(Tk::RParen, follow).err();
        Ok((args, close))
    }

    /// `member '{' (IDENT ':' expr (',' IDENT ':' expr)*)? ','? '}'`
    fn parse_message(&mut self, target: Node, brace: usize) -> PResult<Node> {
        let name = qualified_name(&target);
        if name.is_none() {
            self.errors
                .push(Diag::at(target.pos, "expected a qualified name"));
        }
        let mark = self.errors.len();
        let start_set = TokSet::of(&[Tk::RBrace, Tk::Comma, Tk::Ident]);
        if !start_set.has(self.cur()) {
            return Err(self.sync_error(start_set));
        }
        let mut fields = Vec::new();
        if self.cur() == Tk::Ident {
            loop {
                self.advance();
                self.expect(Tk::Colon, EXPR_START)?;
                self.follow.push(TokSet::of(&[Tk::Comma, Tk::RBrace]));
                fields.push(self.parse_expr()?);
                self.follow.pop();
                if self.cur() == Tk::Comma && self.peek() == Tk::Ident {
                    self.advance();
                } else {
                    break;
                }
            }
        }
        self.close_aggregate(Tk::RBrace)?;
        let Some(name) = name else {
            self.errors.truncate(mark);
            return Ok(Node::error(brace));
        };
        let depth = target.depth.max(max_depth(&fields));
        Ok(Node::new(Kind::Message { name, fields }, brace, depth))
    }

    /// The optional trailing comma and the closing token of a list, map or
    /// message literal.
    fn close_aggregate(&mut self, close: Tk) -> PResult<()> {
        if self.cur() == Tk::Comma {
            self.advance();
        } else if self.cur() != close {
            return Err(self.sync_error(TokSet::of(&[close, Tk::Comma])));
        }
        let follow = self.after_member();
        self.expect(close, follow)?;
        Ok(())
    }

    fn parse_primary(&mut self) -> PResult<Node> {
        match self.cur() {
            Tk::Dot | Tk::Ident => self.parse_ident_or_call(),
            Tk::LParen => {
                self.advance();
                self.follow.push(TokSet::of(&[Tk::RParen]));
                let e = self.parse_expr()?;
                self.follow.pop();
                let follow = self.after_member();
                self.expect(Tk::RParen, follow)?;
                Ok(e)
            }
            Tk::LBracket => {
                let open = self.advance();
                let start_set = EXPR_START.with(TokSet::of(&[Tk::Comma, Tk::RBracket]));
                if !start_set.has(self.cur()) {
                    return Err(self.sync_error(start_set));
                }
                let mut elems = Vec::new();
                if EXPR_START.has(self.cur()) {
                    self.follow.push(TokSet::of(&[Tk::Comma, Tk::RBracket]));
                    loop {
                        elems.push(self.parse_expr()?);
                        if self.cur() == Tk::Comma && EXPR_START.has(self.peek()) {
                            self.advance();
                        } else {
                            break;
                        }
                    }
                    self.follow.pop();
                }
                self.close_aggregate(Tk::RBracket)?;
                let depth = max_depth(&elems);
                Ok(Node::new(Kind::List(elems), open.start, depth))
            }
            Tk::LBrace => {
                let open = self.advance();
                let start_set = EXPR_START.with(TokSet::of(&[Tk::Comma, Tk::RBrace]));
                if !start_set.has(self.cur()) {
                    return Err(self.sync_error(start_set));
                }
                let mut entries = Vec::new();
                if EXPR_START.has(self.cur()) {
                    loop {
                        self.follow.push(TokSet::of(&[Tk::Colon]));
                        let key = self.parse_expr()?;
                        self.follow.pop();
                        self.expect(Tk::Colon, EXPR_START)?;
                        self.follow.push(TokSet::of(&[Tk::Comma, Tk::RBrace]));
                        let value = self.parse_expr()?;
                        self.follow.pop();
                        entries.push((key, value));
                        if self.cur() == Tk::Comma && EXPR_START.has(self.peek()) {
                            self.advance();
                        } else {
                            break;
                        }
                    }
                }
                self.close_aggregate(Tk::RBrace)?;
                let depth = entries
                    .iter()
                    .map(|(k, v)| k.depth.max(v.depth))
                    .max()
                    .unwrap_or(0);
                Ok(Node::new(Kind::Map(entries), open.start, depth))
            }
            Tk::Minus if matches!(self.peek(), Tk::Int | Tk::Float) => {
                let sign = self.advance();
                Ok(self.literal(Some(sign.start)))
            }
            Tk::Int
            | Tk::Uint
            | Tk::Float
            | Tk::Str
            | Tk::Bytes
            | Tk::True
            | Tk::False
            | Tk::Null => Ok(self.literal(None)),
            _ => Err(self.sync_error(EXPR_START)),
        }
    }

    /// `'.'? IDENT ('(' args ')')?`
    fn parse_ident_or_call(&mut self) -> PResult<Node> {
        let start = self.tok(0).start;
        let leading_dot = self.cur() == Tk::Dot;
        let id = if leading_dot {
            self.advance();
            let follow = self.after_member().with(TokSet::of(&[Tk::LParen]));
            self.expect(Tk::Ident, follow)?
        } else {
            self.advance()
        };
        let raw = self.text(id);
        let name = if leading_dot {
            format!(".{raw}")
        } else {
            raw.clone()
        };
        let reserved = RESERVED.contains(&raw.as_str());
        if reserved {
            self.errors
                .push(Diag::at(start, format!("reserved identifier: {raw}")));
        }
        if self.cur() != Tk::LParen {
            return Ok(if reserved {
                Node::error(id.start)
            } else {
                Node::ident(&name, id.start)
            });
        }
        let open = self.advance();
        let mark = self.errors.len();
        let (args, close) = self.parse_call_args()?;
        let node = if reserved {
            // cel-go does not visit the arguments of a reserved name.
            self.errors.truncate(mark);
            Node::error(open.start)
        } else {
            self.global_call_or_macro(&name, args, open.start)
        };
        match close {
            Some(stop) => Err(stop),
            None => Ok(node),
        }
    }

    fn literal(&mut self, sign: Option<usize>) -> Node {
        let t = self.advance();
        let pos = sign.unwrap_or(t.start);
        let text = self.text(t);
        let negative = if sign.is_some() { "-" } else { "" };
        let (kind, problem) = match t.kind {
            Tk::Int => {
                let (digits, radix) = match text.strip_prefix("0x") {
                    Some(hex) => (hex, 16),
                    None => (text.as_str(), 10),
                };
                let ok = i64::from_str_radix(&format!("{negative}{digits}"), radix).is_ok();
                (Kind::Int, (!ok).then_some("invalid int literal"))
            }
            Tk::Uint => {
                let body = &text[..text.len().saturating_sub(1)];
                let (digits, radix) = match body.strip_prefix("0x") {
                    Some(hex) => (hex, 16),
                    None => (body, 10),
                };
                let ok = u64::from_str_radix(digits, radix).is_ok();
                (Kind::Uint, (!ok).then_some("invalid uint literal"))
            }
            Tk::Float => {
                let ok = format!("{negative}{text}")
                    .parse::<f64>()
                    .is_ok_and(f64::is_finite);
                (Kind::Double, (!ok).then_some("invalid double literal"))
            }
            Tk::Str => (Kind::Str, check_unescape(&text, false).err()),
            Tk::Bytes => (Kind::Bytes, check_unescape(&text[1..], true).err()),
            Tk::True | Tk::False => (Kind::Bool, None),
            _ => (Kind::Null, None),
        };
        if let Some(msg) = problem {
            self.errors.push(Diag::at(pos, msg));
            return Node::error(pos);
        }
        Node::new(kind, pos, 0)
    }

    // --- macros -------------------------------------------------------------

    fn global_call_or_macro(&mut self, name: &str, mut args: Vec<Node>, pos: usize) -> Node {
        let depth = max_depth(&args);
        if name == "has" && args.len() == 1 {
            let arg = args.remove(0);
            return match arg.kind {
                Kind::Select {
                    operand,
                    field,
                    test_only: false,
                } => Node::new(
                    Kind::Select {
                        operand,
                        field,
                        test_only: true,
                    },
                    pos,
                    arg.depth,
                ),
                _ => {
                    self.errors
                        .push(Diag::at(arg.pos, "invalid argument to has() macro"));
                    Node::error(pos)
                }
            };
        }
        Node::new(
            Kind::Call {
                func: name.to_string(),
                target: None,
                args,
            },
            pos,
            depth,
        )
    }

    fn receiver_call_or_macro(
        &mut self,
        name: &str,
        target: Node,
        mut args: Vec<Node>,
        pos: usize,
        depth: usize,
    ) -> Node {
        let quantifier = matches!(name, "all" | "exists" | "exists_one") && args.len() == 2;
        let mapping =
            (name == "map" && matches!(args.len(), 2 | 3)) || (name == "filter" && args.len() == 2);
        if !quantifier && !mapping {
            return Node::new(
                Kind::Call {
                    func: name.to_string(),
                    target: Some(Box::new(target)),
                    args,
                },
                pos,
                depth,
            );
        }
        let var = match &args[0].kind {
            Kind::Ident(v) => v.clone(),
            _ => {
                let msg = if quantifier {
                    "argument must be a simple name"
                } else {
                    "argument is not an identifier"
                };
                self.errors.push(Diag::at(args[0].pos, msg));
                return Node::error(pos);
            }
        };
        let accu = || Node::ident(ACCU, pos);
        let bool_lit = || Node::new(Kind::Bool, pos, 0);
        let append = |item: Node| {
            let d = item.depth;
            Node::call(
                "_+_",
                vec![accu(), Node::new(Kind::List(vec![item]), pos, d)],
                pos,
                d,
            )
        };
        let last = args.pop().unwrap_or_else(|| Node::error(pos));
        let (init, cond, step, result) = match name {
            "all" => (
                bool_lit(),
                accu(),
                Node::call("_&&_", vec![accu(), last], pos, depth),
                accu(),
            ),
            "exists" => (
                bool_lit(),
                Node::call("!_", vec![accu()], pos, 0),
                Node::call("_||_", vec![accu(), last], pos, depth),
                accu(),
            ),
            "exists_one" => (
                Node::int_lit(pos),
                Node::call("_<=_", vec![accu(), Node::int_lit(pos)], pos, 0),
                Node::call(
                    "_?_:_",
                    vec![
                        last,
                        Node::call("_+_", vec![accu(), Node::int_lit(pos)], pos, 0),
                        accu(),
                    ],
                    pos,
                    depth,
                ),
                Node::call("_==_", vec![accu(), Node::int_lit(pos)], pos, 0),
            ),
            "filter" => {
                let step = append(Node::ident(&var, pos));
                (
                    Node::new(Kind::List(Vec::new()), pos, 0),
                    bool_lit(),
                    Node::call("_?_:_", vec![last, step, accu()], pos, depth),
                    accu(),
                )
            }
            _ => {
                // map, with an optional filter predicate before the transform
                let step = append(last);
                let step = if args.len() == 2 {
                    let pred = args.pop().unwrap_or_else(|| Node::error(pos));
                    Node::call("_?_:_", vec![pred, step, accu()], pos, depth)
                } else {
                    step
                };
                (
                    Node::new(Kind::List(Vec::new()), pos, 0),
                    bool_lit(),
                    step,
                    accu(),
                )
            }
        };
        Node::new(
            Kind::Comprehension(Box::new(Comprehension {
                iter_var: var,
                range: target,
                init,
                cond,
                step,
                result,
            })),
            pos,
            depth,
        )
    }
}

/// cel-go's balanced tree for a chain of `&&` or `||`: `ops[i]` sits between
/// `terms[i]` and `terms[i + 1]`.
fn balance(terms: &mut [Option<Node>], ops: &[usize], func: &str, lo: usize, hi: usize) -> Node {
    let mid = (lo + hi).div_ceil(2);
    let left = if mid == lo {
        take_term(terms, mid, ops[mid])
    } else {
        balance(terms, ops, func, lo, mid - 1)
    };
    let right = if mid == hi {
        take_term(terms, mid + 1, ops[mid])
    } else {
        balance(terms, ops, func, mid + 1, hi)
    };
    let depth = max_depth([&left, &right]);
    Node::call(func, vec![left, right], ops[mid], depth)
}

fn take_term(terms: &mut [Option<Node>], i: usize, pos: usize) -> Node {
    terms
        .get_mut(i)
        .and_then(Option::take)
        .unwrap_or_else(|| Node::error(pos))
}

fn relation_function(kind: Tk) -> Option<&'static str> {
    Some(match kind {
        Tk::Eq => "_==_",
        Tk::Ne => "_!=_",
        Tk::Lt => "_<_",
        Tk::Le => "_<=_",
        Tk::Gt => "_>_",
        Tk::Ge => "_>=_",
        Tk::In => "@in",
        _ => return None,
    })
}

fn calc_operator(kind: Tk) -> Option<(&'static str, u8)> {
    Some(match kind {
        Tk::Star => ("_*_", 2),
        Tk::Slash => ("_/_", 2),
        Tk::Percent => ("_%_", 2),
        Tk::Plus => ("_+_", 1),
        Tk::Minus => ("_-_", 1),
        _ => return None,
    })
}

// ---------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Ty {
    Error,
    Dyn,
    /// `google.protobuf.Any`, which the checker treats like `dyn`.
    Any,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    Str,
    Bytes,
    Timestamp,
    Duration,
    List(Box<Ty>),
    Map(Box<Ty>, Box<Ty>),
    Type(Option<Box<Ty>>),
    Param(usize),
    Object(String),
}

fn list(t: Ty) -> Ty {
    Ty::List(Box::new(t))
}

fn map(k: Ty, v: Ty) -> Ty {
    Ty::Map(Box::new(k), Box::new(v))
}

fn type_of(t: Ty) -> Ty {
    Ty::Type(Some(Box::new(t)))
}

fn is_dyn(t: &Ty) -> bool {
    matches!(t, Ty::Dyn | Ty::Any)
}

fn is_dyn_or_error(t: &Ty) -> bool {
    matches!(t, Ty::Dyn | Ty::Any | Ty::Error)
}

fn is_primitive(t: &Ty) -> bool {
    matches!(
        t,
        Ty::Bool | Ty::Int | Ty::Uint | Ty::Double | Ty::Str | Ty::Bytes
    )
}

fn format_type(t: &Ty) -> String {
    let mut out = String::new();
    write_type(t, &mut out, 0);
    out
}

fn write_type(t: &Ty, out: &mut String, d: usize) {
    if d > MAX_TYPE_DEPTH {
        out.push_str("dyn");
        return;
    }
    match t {
        Ty::Error => out.push_str("!error!"),
        Ty::Dyn => out.push_str("dyn"),
        Ty::Any => out.push_str("any"),
        Ty::Null => out.push_str("null"),
        Ty::Bool => out.push_str("bool"),
        Ty::Int => out.push_str("int"),
        Ty::Uint => out.push_str("uint"),
        Ty::Double => out.push_str("double"),
        Ty::Str => out.push_str("string"),
        Ty::Bytes => out.push_str("bytes"),
        Ty::Timestamp => out.push_str("timestamp"),
        Ty::Duration => out.push_str("duration"),
        Ty::List(e) => {
            out.push_str("list(");
            write_type(e, out, d + 1);
            out.push(')');
        }
        Ty::Map(k, v) => {
            out.push_str("map(");
            write_type(k, out, d + 1);
            out.push_str(", ");
            write_type(v, out, d + 1);
            out.push(')');
        }
        Ty::Type(None) => out.push_str("type"),
        Ty::Type(Some(inner)) => {
            out.push_str("type(");
            write_type(inner, out, d + 1);
            out.push(')');
        }
        Ty::Param(i) => {
            let _ = write!(out, "_var{i}");
        }
        Ty::Object(name) => out.push_str(name),
    }
}

/// Type-parameter substitutions with an undo trail, so a failed overload
/// match can be rolled back without copying the whole mapping.
#[derive(Default)]
struct Subst {
    values: Vec<Option<Ty>>,
    trail: Vec<(usize, Option<Ty>)>,
}

impl Subst {
    fn fresh(&mut self) -> Ty {
        self.values.push(None);
        Ty::Param(self.values.len() - 1)
    }

    fn find(&self, t: &Ty) -> Option<Ty> {
        match t {
            Ty::Param(i) => self.values.get(*i).cloned().flatten(),
            _ => None,
        }
    }

    fn set(&mut self, param: &Ty, value: Ty) {
        if let Ty::Param(i) = param {
            if let Some(slot) = self.values.get_mut(*i) {
                let old = slot.replace(value);
                self.trail.push((*i, old));
            }
        }
    }

    fn rollback(&mut self) {
        while let Some((i, old)) = self.trail.pop() {
            if let Some(slot) = self.values.get_mut(i) {
                *slot = old;
            }
        }
    }
}

/// Whether `t1` may be assigned to `t2`, binding type parameters on the way.
fn assignable(m: &mut Subst, t1: &Ty, t2: &Ty, d: usize) -> bool {
    if d > MAX_TYPE_DEPTH {
        return false;
    }
    if matches!(t2, Ty::Param(_)) {
        let (valid, has_sub) = valid_substitution(m, t1, t2, d + 1);
        if valid {
            return true;
        }
        if has_sub {
            return false;
        }
    }
    if matches!(t1, Ty::Param(_)) {
        return valid_substitution(m, t2, t1, d + 1).0;
    }
    if is_dyn_or_error(t1) || is_dyn_or_error(t2) {
        return true;
    }
    if *t1 == Ty::Null {
        return matches!(t2, Ty::Null | Ty::Object(_) | Ty::Timestamp | Ty::Duration);
    }
    if is_primitive(t1) {
        return t1 == t2;
    }
    match (t1, t2) {
        (Ty::List(a), Ty::List(b)) => assignable(m, a, b, d + 1),
        (Ty::Map(k1, v1), Ty::Map(k2, v2)) => {
            assignable(m, k1, k2, d + 1) && assignable(m, v1, v2, d + 1)
        }
        (Ty::Object(a), Ty::Object(b)) => a == b,
        (Ty::Type(_), Ty::Type(_)) => true,
        (Ty::Timestamp, Ty::Timestamp) | (Ty::Duration, Ty::Duration) => true,
        _ => false,
    }
}

/// Whether `param` (or what it is bound to) can stand for `t`; the second
/// flag tells whether `param` was already bound.
fn valid_substitution(m: &mut Subst, t: &Ty, param: &Ty, d: usize) -> (bool, bool) {
    if let Some(sub) = m.find(param) {
        if *t == sub {
            return (true, true);
        }
        if assignable(m, t, &sub, d + 1) {
            let general = most_general(t, &sub, d + 1);
            m.set(param, general);
            return (true, true);
        }
        return (false, true);
    }
    if not_referenced_in(m, param, t, d + 1) {
        m.set(param, t.clone());
        return (true, false);
    }
    (false, false)
}

fn not_referenced_in(m: &Subst, param: &Ty, within: &Ty, d: usize) -> bool {
    if d > MAX_TYPE_DEPTH || param == within {
        return false;
    }
    match within {
        Ty::Param(_) => match m.find(within) {
            None => true,
            Some(sub) => not_referenced_in(m, param, &sub, d + 1),
        },
        Ty::List(e) => not_referenced_in(m, param, e, d + 1),
        Ty::Map(k, v) => {
            not_referenced_in(m, param, k, d + 1) && not_referenced_in(m, param, v, d + 1)
        }
        _ => true,
    }
}

fn most_general(t1: &Ty, t2: &Ty, d: usize) -> Ty {
    if equal_or_less_specific(t1, t2, d) {
        t1.clone()
    } else {
        t2.clone()
    }
}

fn equal_or_less_specific(t1: &Ty, t2: &Ty, d: usize) -> bool {
    if d > MAX_TYPE_DEPTH {
        return false;
    }
    if is_dyn(t1) || matches!(t1, Ty::Param(_)) {
        return true;
    }
    if is_dyn(t2) || matches!(t2, Ty::Param(_)) {
        return false;
    }
    match (t1, t2) {
        (Ty::List(a), Ty::List(b)) => equal_or_less_specific(a, b, d + 1),
        (Ty::Map(k1, v1), Ty::Map(k2, v2)) => {
            equal_or_less_specific(k1, k2, d + 1) && equal_or_less_specific(v1, v2, d + 1)
        }
        (Ty::Type(_), Ty::Type(_)) => true,
        _ => t1 == t2,
    }
}

/// Replaces bound type parameters; unbound ones become `dyn` when `to_dyn`.
fn substitute(m: &Subst, t: &Ty, to_dyn: bool, d: usize) -> Ty {
    if d > MAX_TYPE_DEPTH {
        return Ty::Dyn;
    }
    if let Some(sub) = m.find(t) {
        return substitute(m, &sub, to_dyn, d + 1);
    }
    match t {
        Ty::Param(_) if to_dyn => Ty::Dyn,
        Ty::List(e) => list(substitute(m, e, to_dyn, d + 1)),
        Ty::Map(k, v) => map(
            substitute(m, k, to_dyn, d + 1),
            substitute(m, v, to_dyn, d + 1),
        ),
        Ty::Type(Some(inner)) => type_of(substitute(m, inner, to_dyn, d + 1)),
        _ => t.clone(),
    }
}

// ---------------------------------------------------------------------------
// Declarations
// ---------------------------------------------------------------------------

/// One function overload; `Param(0)` and `Param(1)` are its type
/// parameters, instantiated afresh at each use.
struct Overload {
    instance: bool,
    params: Vec<Ty>,
    result: Ty,
}

fn global(params: Vec<Ty>, result: Ty) -> Overload {
    Overload {
        instance: false,
        params,
        result,
    }
}

fn member(params: Vec<Ty>, result: Ty) -> Overload {
    Overload {
        instance: true,
        params,
        result,
    }
}

/// The overloads declared for a function name: the CEL standard library plus
/// operator-registry's `semver_compare`.
fn overloads(name: &str) -> Option<Vec<Overload>> {
    use Ty::{Bool, Bytes, Double, Duration, Int, Str, Timestamp, Uint};
    let a = || Ty::Param(0);
    let b = || Ty::Param(1);
    let same = |types: &[Ty], result: Option<Ty>| -> Vec<Overload> {
        types
            .iter()
            .map(|t| {
                global(
                    vec![t.clone(), t.clone()],
                    result.clone().unwrap_or_else(|| t.clone()),
                )
            })
            .collect()
    };
    let convert = |from: &[Ty], to: Ty| -> Vec<Overload> {
        from.iter()
            .map(|t| global(vec![t.clone()], to.clone()))
            .collect()
    };
    let ordered = [Bool, Int, Uint, Double, Str, Bytes, Timestamp, Duration];
    let list_of_a = || list(a());
    let map_of_ab = || map(a(), b());
    Some(match name {
        "_?_:_" => vec![global(vec![Bool, a(), a()], a())],
        "_&&_" | "_||_" => vec![global(vec![Bool, Bool], Bool)],
        "!_" => vec![global(vec![Bool], Bool)],
        "-_" => vec![global(vec![Int], Int), global(vec![Double], Double)],
        "_==_" | "_!=_" => vec![global(vec![a(), a()], Bool)],
        "_<_" | "_<=_" | "_>_" | "_>=_" => same(&ordered, Some(Bool)),
        "_+_" => {
            let mut v = same(&[Int, Uint, Double, Str, Bytes], None);
            v.push(global(vec![list_of_a(), list_of_a()], list_of_a()));
            v.push(global(vec![Timestamp, Duration], Timestamp));
            v.push(global(vec![Duration, Timestamp], Timestamp));
            v.push(global(vec![Duration, Duration], Duration));
            v
        }
        "_-_" => {
            let mut v = same(&[Int, Uint, Double], None);
            v.push(global(vec![Timestamp, Timestamp], Duration));
            v.push(global(vec![Timestamp, Duration], Timestamp));
            v.push(global(vec![Duration, Duration], Duration));
            v
        }
        "_*_" | "_/_" => same(&[Int, Uint, Double], None),
        "_%_" => same(&[Int, Uint], None),
        "_[_]" => vec![
            global(vec![list_of_a(), Int], a()),
            global(vec![map_of_ab(), a()], b()),
        ],
        "@in" => vec![
            global(vec![a(), list_of_a()], Bool),
            global(vec![a(), map_of_ab()], Bool),
        ],
        "size" => {
            let mut v = Vec::new();
            for t in [Str, Bytes, list_of_a(), map_of_ab()] {
                v.push(member(vec![t.clone()], Int));
                v.push(global(vec![t], Int));
            }
            v
        }
        "matches" => vec![member(vec![Str, Str], Bool), global(vec![Str, Str], Bool)],
        "contains" | "startsWith" | "endsWith" => vec![member(vec![Str, Str], Bool)],
        "type" => vec![global(vec![a()], type_of(a()))],
        "dyn" => vec![global(vec![a()], Ty::Dyn)],
        "int" => convert(&[Int, Uint, Double, Str, Timestamp, Duration], Int),
        "uint" => convert(&[Uint, Int, Double, Str], Uint),
        "double" => convert(&[Double, Int, Uint, Str], Double),
        "bool" => convert(&[Bool, Str], Bool),
        "string" => convert(
            &[Str, Bool, Int, Uint, Double, Bytes, Timestamp, Duration],
            Str,
        ),
        "bytes" => convert(&[Bytes, Str], Bytes),
        "timestamp" => convert(&[Timestamp, Str, Int], Timestamp),
        "duration" => convert(&[Duration, Str, Int], Duration),
        "getFullYear" | "getMonth" | "getDayOfYear" | "getDayOfMonth" | "getDate"
        | "getDayOfWeek" => vec![
            member(vec![Timestamp], Int),
            member(vec![Timestamp, Str], Int),
        ],
        "getHours" | "getMinutes" | "getSeconds" | "getMilliseconds" => vec![
            member(vec![Timestamp], Int),
            member(vec![Timestamp, Str], Int),
            member(vec![Duration], Int),
        ],
        "semver_compare" => vec![global(vec![Ty::Any, Ty::Any], Int)],
        _ => return None,
    })
}

/// Well-known protobuf message types the default type provider knows.
const WELL_KNOWN_MESSAGES: [&str; 14] = [
    "google.protobuf.Any",
    "google.protobuf.Struct",
    "google.protobuf.Value",
    "google.protobuf.ListValue",
    "google.protobuf.BoolValue",
    "google.protobuf.BytesValue",
    "google.protobuf.DoubleValue",
    "google.protobuf.FloatValue",
    "google.protobuf.Int32Value",
    "google.protobuf.Int64Value",
    "google.protobuf.StringValue",
    "google.protobuf.UInt32Value",
    "google.protobuf.UInt64Value",
    "google.protobuf.Empty",
];

// ---------------------------------------------------------------------------
// Checker
// ---------------------------------------------------------------------------

struct Checker {
    subst: Subst,
    scopes: Vec<(String, Ty)>,
    errors: Vec<Diag>,
}

impl Checker {
    fn new() -> Self {
        Checker {
            subst: Subst::default(),
            scopes: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn error(&mut self, pos: usize, msg: String) {
        self.errors.push(Diag::at(pos, msg));
    }

    fn is_assignable(&mut self, t1: &Ty, t2: &Ty) -> bool {
        self.subst.trail.clear();
        let ok = assignable(&mut self.subst, t1, t2, 0);
        if ok {
            self.subst.trail.clear();
        } else {
            self.subst.rollback();
        }
        ok
    }

    fn lookup_ident(&self, name: &str) -> Option<Ty> {
        let plain = name.strip_prefix('.').unwrap_or(name);
        if let Some((_, t)) = self.scopes.iter().rev().find(|(n, _)| n == plain) {
            return Some(t.clone());
        }
        Some(match plain {
            "properties" => list(map(Ty::Str, Ty::Any)),
            "int" => type_of(Ty::Int),
            "uint" => type_of(Ty::Uint),
            "double" => type_of(Ty::Double),
            "bool" => type_of(Ty::Bool),
            "string" => type_of(Ty::Str),
            "bytes" => type_of(Ty::Bytes),
            "null_type" => type_of(Ty::Null),
            "list" => type_of(list(Ty::Dyn)),
            "map" => type_of(map(Ty::Dyn, Ty::Dyn)),
            "type" => type_of(Ty::Type(None)),
            "google.protobuf.Timestamp" => type_of(Ty::Timestamp),
            "google.protobuf.Duration" => type_of(Ty::Duration),
            _ if WELL_KNOWN_MESSAGES.contains(&plain) => type_of(Ty::Object(plain.to_string())),
            _ => return None,
        })
    }

    fn undeclared(&mut self, pos: usize, name: &str) {
        self.error(
            pos,
            format!("undeclared reference to '{name}' (in container '')"),
        );
    }

    fn check(&mut self, e: &Node) -> Ty {
        match &e.kind {
            Kind::Error => Ty::Error,
            Kind::Null => Ty::Null,
            Kind::Bool => Ty::Bool,
            Kind::Int => Ty::Int,
            Kind::Uint => Ty::Uint,
            Kind::Double => Ty::Double,
            Kind::Str => Ty::Str,
            Kind::Bytes => Ty::Bytes,
            Kind::Ident(name) => match self.lookup_ident(name) {
                Some(t) => t,
                None => {
                    self.undeclared(e.pos, name);
                    Ty::Error
                }
            },
            Kind::Select {
                operand,
                field: _,
                test_only,
            } => {
                if !test_only {
                    if let Some(t) = qualified_name(e).and_then(|q| self.lookup_ident(&q)) {
                        return t;
                    }
                }
                let operand_ty = self.check(operand);
                let target = substitute(&self.subst, &operand_ty, false, 0);
                let result = match &target {
                    Ty::Map(_, v) => (**v).clone(),
                    Ty::Object(_) => Ty::Dyn,
                    Ty::Param(_) => {
                        self.is_assignable(&Ty::Dyn, &target);
                        Ty::Dyn
                    }
                    t if is_dyn_or_error(t) => Ty::Dyn,
                    t => {
                        let msg =
                            format!("type '{}' does not support field selection", format_type(t));
                        self.error(e.pos, msg);
                        Ty::Error
                    }
                };
                if *test_only {
                    Ty::Bool
                } else {
                    substitute(&self.subst, &result, false, 0)
                }
            }
            Kind::Call { func, target, args } => {
                self.check_call(e.pos, func, target.as_deref(), args)
            }
            Kind::List(elems) => {
                let mut elem: Option<Ty> = None;
                for x in elems {
                    let t = self.check(x);
                    elem = Some(self.join(elem, t));
                }
                list(elem.unwrap_or_else(|| self.subst.fresh()))
            }
            Kind::Map(entries) => {
                let mut key: Option<Ty> = None;
                let mut value: Option<Ty> = None;
                for (k, v) in entries {
                    let kt = self.check(k);
                    key = Some(self.join(key, kt));
                    let vt = self.check(v);
                    value = Some(self.join(value, vt));
                }
                let k = key.unwrap_or_else(|| self.subst.fresh());
                let v = value.unwrap_or_else(|| self.subst.fresh());
                map(k, v)
            }
            Kind::Message { name, fields } => {
                let plain = name.strip_prefix('.').unwrap_or(name);
                if !WELL_KNOWN_MESSAGES.contains(&plain) {
                    self.undeclared(e.pos, name);
                    return Ty::Error;
                }
                for f in fields {
                    self.check(f);
                }
                Ty::Object(plain.to_string())
            }
            Kind::Comprehension(c) => self.check_comprehension(c),
        }
    }

    fn join(&mut self, previous: Option<Ty>, current: Ty) -> Ty {
        match previous {
            None => current,
            Some(prev) => {
                if self.is_assignable(&prev, &current) {
                    most_general(&prev, &current, 0)
                } else {
                    Ty::Dyn
                }
            }
        }
    }

    fn check_call(&mut self, pos: usize, func: &str, target: Option<&Node>, args: &[Node]) -> Ty {
        let plain = func.strip_prefix('.').unwrap_or(func);
        let Some(target) = target else {
            return match overloads(plain) {
                Some(ovs) => self.resolve(pos, plain, &ovs, None, args),
                None => {
                    self.undeclared(pos, func);
                    Ty::Error
                }
            };
        };
        if let Some(q) = qualified_name(target) {
            let full = format!("{q}.{plain}");
            if let Some(ovs) = overloads(&full) {
                return self.resolve(pos, &full, &ovs, None, args);
            }
        }
        let target_ty = self.check(target);
        match overloads(plain) {
            Some(ovs) => self.resolve(pos, plain, &ovs, Some(target_ty), args),
            None => {
                self.undeclared(pos, plain);
                Ty::Error
            }
        }
    }

    fn instantiate(&mut self, t: &Ty, base: usize, d: usize) -> Ty {
        if d > MAX_TYPE_DEPTH {
            return Ty::Dyn;
        }
        match t {
            Ty::Param(i) => Ty::Param(base + i),
            Ty::List(e) => list(self.instantiate(e, base, d + 1)),
            Ty::Map(k, v) => {
                let k = self.instantiate(k, base, d + 1);
                map(k, self.instantiate(v, base, d + 1))
            }
            Ty::Type(Some(inner)) => type_of(self.instantiate(inner, base, d + 1)),
            _ => t.clone(),
        }
    }

    fn resolve(
        &mut self,
        pos: usize,
        name: &str,
        ovs: &[Overload],
        target: Option<Ty>,
        args: &[Node],
    ) -> Ty {
        let instance = target.is_some();
        let mut arg_types: Vec<Ty> = target.into_iter().collect();
        for a in args {
            let t = self.check(a);
            arg_types.push(t);
        }
        let mut result: Option<Ty> = None;
        for ov in ovs {
            if ov.instance != instance || ov.params.len() != arg_types.len() {
                continue;
            }
            let base = self.subst.values.len();
            let generic = ov.params.iter().chain([&ov.result]).any(mentions_param);
            if generic {
                self.subst.fresh();
                self.subst.fresh();
            }
            let params: Vec<Ty> = ov
                .params
                .iter()
                .map(|p| self.instantiate(p, base, 0))
                .collect();
            let result_ty = self.instantiate(&ov.result, base, 0);
            self.subst.trail.clear();
            let ok = arg_types
                .iter()
                .zip(&params)
                .all(|(a, p)| assignable(&mut self.subst, a, p, 0));
            if !ok {
                self.subst.rollback();
                continue;
            }
            self.subst.trail.clear();
            let rt = substitute(&self.subst, &result_ty, false, 0);
            result = Some(match result {
                None => rt,
                Some(prev) if !is_dyn(&prev) && prev != rt => Ty::Dyn,
                Some(prev) => prev,
            });
        }
        if let Some(t) = result {
            return t;
        }
        let shown: Vec<String> = arg_types
            .iter()
            .map(|t| format_type(&substitute(&self.subst, t, true, 0)))
            .collect();
        let signature = if instance {
            format!("{}.({})", shown[0], shown[1..].join(", "))
        } else {
            format!("({})", shown.join(", "))
        };
        self.error(
            pos,
            format!("found no matching overload for '{name}' applied to '{signature}'"),
        );
        Ty::Error
    }

    fn check_comprehension(&mut self, c: &Comprehension) -> Ty {
        let range_ty = self.check(&c.range);
        let accu_ty = self.check(&c.init);
        let range = substitute(&self.subst, &range_ty, false, 0);
        let var_ty = match &range {
            Ty::List(e) => (**e).clone(),
            Ty::Map(k, _) => (**k).clone(),
            Ty::Param(_) => {
                self.is_assignable(&Ty::Dyn, &range);
                Ty::Dyn
            }
            t if is_dyn_or_error(t) => Ty::Dyn,
            t => {
                let msg = format!(
                    "expression of type '{}' cannot be range of a comprehension (must be list, map, or dynamic)",
                    format_type(t)
                );
                self.error(c.range.pos, msg);
                Ty::Error
            }
        };
        self.scopes.push((ACCU.to_string(), accu_ty.clone()));
        self.scopes.push((c.iter_var.clone(), var_ty));
        let cond_ty = self.check(&c.cond);
        self.assert_type(c.cond.pos, &Ty::Bool, &cond_ty);
        let step_ty = self.check(&c.step);
        self.assert_type(c.step.pos, &accu_ty, &step_ty);
        self.scopes.pop();
        let result_ty = self.check(&c.result);
        self.scopes.pop();
        substitute(&self.subst, &result_ty, false, 0)
    }

    fn assert_type(&mut self, pos: usize, expected: &Ty, actual: &Ty) {
        if !self.is_assignable(expected, actual) {
            let msg = format!(
                "expected type '{}' but found '{}'",
                format_type(expected),
                format_type(actual)
            );
            self.error(pos, msg);
        }
    }
}

fn mentions_param(t: &Ty) -> bool {
    match t {
        Ty::Param(_) => true,
        Ty::List(e) => mentions_param(e),
        Ty::Map(k, v) => mentions_param(k) || mentions_param(v),
        Ty::Type(Some(inner)) => mentions_param(inner),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::check_constraint_rule as check;

    const EXPR_SET: &str = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

    fn err(rule: &str) -> String {
        match check(rule) {
            Ok(()) => panic!("expected an error for {rule:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn conformance_rules() {
        // valid-dependencies
        assert_eq!(
            check(r#"properties.exists(p, p.type == "certified")"#),
            Ok(())
        );
        // deps-constraint-cel-syntax-error
        let e = err("properties.exists(p, p.type == ");
        assert!(e.starts_with("ERROR: <input>:1:"), "{e}");
        assert_eq!(
            e,
            format!(
                "ERROR: <input>:1:32: Syntax error: mismatched input '<EOF>' expecting {EXPR_SET}\n | properties.exists(p, p.type == \n | ...............................^"
            )
        );
    }

    #[test]
    fn valid_expressions() {
        let cases = [
            "true",
            "!false",
            "1 < 2",
            r#""a" + "b" == "ab""#,
            r#"size("abc") == 3 && "abc".size() == 3"#,
            "[1, 2, 3].all(x, x > 0)",
            "[1, 2, 3].exists_one(x, x == 2)",
            "[1, 2].map(x, x * 2) == [2, 4]",
            "[1, 2].map(x, x > 1, x * 2).size() == 1",
            "[1, 2].filter(x, x > 1).size() == 1",
            r#"{"a": 1}.a == 1"#,
            r#"has({"a": 1}.a)"#,
            r#""a" in {"a": 1}"#,
            "2 in [1, 2]",
            "1u + 2u == 3u",
            "0x10 == 16 && 0x10u == 16u",
            "1.5e3 > 1.0 && .5 < 1.0 && 1e3 == 1000.0 && 2.5E-3 < 1.0",
            "-1 < 0 && -1.5 < 0.0",
            "b\"abc\" == b'abc' && B\"x\" != bR\"y\"",
            r#"r"\d+" == '\\d+' && R'a' == "a""#,
            "\"\"\"multi\nline\"\"\" != ''",
            "'''x''' == \"x\"",
            r#""\u263A\x41\101\U0001F600\a\b\f\n\r\t\v\"\'\\\?\`" != """#,
            "null == null",
            "true ? true : false",
            "properties.size() > 0 && size(properties) >= 1",
            r#"properties.exists(p, p.type == "olm.label" && p.value.label == "x")"#,
            "properties.all(p, has(p.type))",
            r#"properties.filter(p, p.type == "olm.gvk").size() == 1"#,
            r#"properties.map(p, p.type).exists(t, t == "a")"#,
            r#"type(1) == int && type("a") == string"#,
            r#"string(1) == "1" && int("1") == 1 && double(1) == 1.0 && uint(1) == 1u"#,
            r#"timestamp("2020-01-01T00:00:00Z") < timestamp("2021-01-01T00:00:00Z")"#,
            r#"duration("1s") < duration("2s") && timestamp("2020-01-01T00:00:00Z").getFullYear() == 2020"#,
            r#""abc".startsWith("a") && "abc".endsWith("c") && "abc".contains("b") && "abc".matches("^a") && matches("abc", "b")"#,
            "dyn(1) == 1",
            r#"[1, "a"].size() == 2 && {1: "a", "b": 2}.size() == 2"#,
            r#"properties[0].type == "x" && properties[0]["value"] != null"#,
            "// a comment\ntrue // trailing",
            ".properties.size() == 0",
            r#"[1, 2, ].size() == 2 && {"a": 1, }.size() == 1 && [,].size() == 0"#,
            "!!true && --1 == 1 && -(-1) == 1 && 1 - -1 == 2 && 4--4 == 8",
            "properties.exists(p, p.value)",
            r#"semver_compare("1.0.0", "2.0.0") == -1"#,
            r#"properties.exists(p, p.type == "olm.package" && p.value.packageName == "etcd" && semver_compare(p.value.version, "0.9.0") >= 0)"#,
            "-9223372036854775808 < 0 && 18446744073709551615u > 0u && 0x7fffffffffffffff > 0",
            r#"properties.exists_one(p, p.type == "a") || properties.exists(p, p.type in ["a", "b"])"#,
            r#"{"a": [1, 2]}.a[0] == 1"#,
            "google.protobuf.Struct{} != null",
            "type(properties[0]) == map",
            "\tproperties.exists(p,\n\tp.type == 'x')\r\n",
            "properties.exists(if_, if_.type == 'x')",
            "[[1], [2]].exists(l, l.exists(x, x == 2))",
            "{'a': true}['a']",
            "[true][0] || false",
        ];
        for rule in cases {
            assert_eq!(check(rule), Ok(()), "{rule}");
        }
    }

    #[test]
    fn exact_syntax_errors() {
        // Expected texts as cel-go renders them (its own parser tests, where
        // cel-go reports more than the first syntax error only the first is
        // compared, see `syntax_error_positions`).
        let cases = [
            (
                "1 + $",
                format!("ERROR: <input>:1:5: Syntax error: token recognition error at: '$'\n | 1 + $\n | ....^\nERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {EXPR_SET}\n | 1 + $\n | .....^"),
            ),
            (
                "a | b",
                "ERROR: <input>:1:3: Syntax error: token recognition error at: '| '\n | a | b\n | ..^\nERROR: <input>:1:5: Syntax error: extraneous input 'b' expecting <EOF>\n | a | b\n | ....^".to_string(),
            ),
            (
                "{\"a\": 1}.\"a\"",
                "ERROR: <input>:1:10: Syntax error: mismatched input '\"a\"' expecting IDENTIFIER\n | {\"a\": 1}.\"a\"\n | .........^".to_string(),
            ),
            (
                "1 + 2\n3 +",
                "ERROR: <input>:2:1: Syntax error: mismatched input '3' expecting <EOF>\n | 3 +\n | ^".to_string(),
            ),
            (
                "\"\\xFh\"",
                format!("ERROR: <input>:1:1: Syntax error: token recognition error at: '\"\\xFh'\n | \"\\xFh\"\n | ^\nERROR: <input>:1:6: Syntax error: token recognition error at: '\"'\n | \"\\xFh\"\n | .....^\nERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting {EXPR_SET}\n | \"\\xFh\"\n | ......^"),
            ),
            (
                "TestAllTypes(){single_int32: 1, single_int64: 2}",
                "ERROR: <input>:1:13: expected a qualified name\n | TestAllTypes(){single_int32: 1, single_int64: 2}\n | ............^".to_string(),
            ),
            (
                "1.all(2, 3)",
                "ERROR: <input>:1:7: argument must be a simple name\n | 1.all(2, 3)\n | ......^".to_string(),
            ),
            (
                "      '😁' in ['😁', '😑', '😦'] \n\t\t\t&& in.😁",
                format!("ERROR: <input>:2:7: Syntax error: extraneous input 'in' expecting {EXPR_SET}\n |    && in.😁\n | ......^\nERROR: <input>:2:10: Syntax error: token recognition error at: '😁'\n |    && in.😁\n | .........\u{ff3e}"),
            ),
        ];
        for (rule, want) in cases {
            assert_eq!(err(rule), want, "{rule:?}");
        }
    }

    #[test]
    fn syntax_error_positions() {
        // (rule, first line of the diagnostic)
        let cases = [
            ("1 + ", format!("ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {EXPR_SET}")),
            ("   ", format!("ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {EXPR_SET}")),
            ("1 + +", format!("ERROR: <input>:1:5: Syntax error: mismatched input '+' expecting {EXPR_SET}")),
            ("*@a | b", format!("ERROR: <input>:1:1: Syntax error: extraneous input '*' expecting {EXPR_SET}")),
            ("!", format!("ERROR: <input>:1:2: Syntax error: extraneous input '<EOF>' expecting {EXPR_SET}")),
            ("f(1,", format!("ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {EXPR_SET}")),
            ("f(1,)", format!("ERROR: <input>:1:5: Syntax error: mismatched input ')' expecting {EXPR_SET}")),
            ("a.", "ERROR: <input>:1:3: Syntax error: missing IDENTIFIER at '<EOF>'".to_string()),
            ("a.true", "ERROR: <input>:1:3: Syntax error: mismatched input 'true' expecting IDENTIFIER".to_string()),
            ("(1", "ERROR: <input>:1:3: Syntax error: missing ')' at '<EOF>'".to_string()),
            ("f(1 2)", "ERROR: <input>:1:5: Syntax error: extraneous input '2' expecting ')'".to_string()),
            ("[1, 2", "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {']', ','}".to_string()),
            ("[1 2]", "ERROR: <input>:1:4: Syntax error: extraneous input '2' expecting {']', ','}".to_string()),
            ("{1: 2", "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {'}', ','}".to_string()),
            ("{1 2}", "ERROR: <input>:1:4: Syntax error: missing ':' at '2'".to_string()),
            ("a ? b", "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting ':'".to_string()),
            ("a ? b c", "ERROR: <input>:1:7: Syntax error: missing ':' at 'c'".to_string()),
            ("-", "ERROR: <input>:1:2: Syntax error: no viable alternative at input '-'".to_string()),
            ("- )", "ERROR: <input>:1:3: Syntax error: no viable alternative at input '- )'".to_string()),
            ("!-a", "ERROR: <input>:1:3: Syntax error: no viable alternative at input '-a'".to_string()),
            ("1 = 2", "ERROR: <input>:1:3: Syntax error: token recognition error at: '= '".to_string()),
            ("a & b", "ERROR: <input>:1:3: Syntax error: token recognition error at: '& '".to_string()),
            ("\"abc", "ERROR: <input>:1:1: Syntax error: token recognition error at: '\"abc'".to_string()),
            ("'a\nb'", "ERROR: <input>:1:1: Syntax error: token recognition error at: ''a\\n'".to_string()),
            ("\"\\q\"", "ERROR: <input>:1:1: Syntax error: token recognition error at: '\"\\q'".to_string()),
            ("a b c", "ERROR: <input>:1:3: Syntax error: mismatched input 'b' expecting <EOF>".to_string()),
            ("a)", "ERROR: <input>:1:2: Syntax error: extraneous input ')' expecting <EOF>".to_string()),
            ("x{a 1}", "ERROR: <input>:1:5: Syntax error: missing ':' at '1'".to_string()),
            ("x{1: 2}", "ERROR: <input>:1:3: Syntax error: mismatched input '1' expecting {'}', ',', IDENTIFIER}".to_string()),
            ("a.b(", "ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}".to_string()),
            ("\n\n  1 +", format!("ERROR: <input>:3:6: Syntax error: mismatched input '<EOF>' expecting {EXPR_SET}")),
            ("true\n", "ERROR: <input>:2:1: Syntax error: mismatched input '<EOF>' expecting <EOF>".to_string()),
        ];
        for (rule, want) in cases {
            if rule == "true\n" {
                // A trailing newline is fine: EOF is accepted there.
                assert_eq!(check(rule), Ok(()));
                continue;
            }
            let got = err(rule);
            assert_eq!(got.lines().next(), Some(want.as_str()), "{rule:?}\n{got}");
        }
    }

    #[test]
    fn parser_semantic_errors() {
        let cases = [
            ("if", "ERROR: <input>:1:1: reserved identifier: if"),
            (
                "package(x)",
                "ERROR: <input>:1:1: reserved identifier: package",
            ),
            (".while", "ERROR: <input>:1:1: reserved identifier: while"),
            (
                "x.all(1, true)",
                "ERROR: <input>:1:7: argument must be a simple name",
            ),
            (
                "x.exists(a.b, true)",
                "ERROR: <input>:1:11: argument must be a simple name",
            ),
            (
                "has(x)",
                "ERROR: <input>:1:5: invalid argument to has() macro",
            ),
            (
                "[1].map(1, 2)",
                "ERROR: <input>:1:9: argument is not an identifier",
            ),
            (
                "[1].filter(1, 2)",
                "ERROR: <input>:1:12: argument is not an identifier",
            ),
            (
                "9223372036854775808 > 0",
                "ERROR: <input>:1:1: invalid int literal",
            ),
            (
                "-9223372036854775809 < 0",
                "ERROR: <input>:1:1: invalid int literal",
            ),
            (
                "18446744073709551616u > 0u",
                "ERROR: <input>:1:1: invalid uint literal",
            ),
            ("1e400 > 0.0", "ERROR: <input>:1:1: invalid double literal"),
            (
                r#""\U00110000" == """#,
                "ERROR: <input>:1:1: unable to unescape string",
            ),
            ("f(){}", "ERROR: <input>:1:2: expected a qualified name"),
        ];
        for (rule, want) in cases {
            let got = err(rule);
            assert_eq!(got.lines().next(), Some(want), "{rule:?}\n{got}");
        }
    }

    #[test]
    fn undeclared_references() {
        let cases = [
            ("foo", "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo\n | ^"),
            (
                r#"semver_compares(properties, "1.0.0") > 0"#,
                "ERROR: <input>:1:16: undeclared reference to 'semver_compares' (in container '')\n | semver_compares(properties, \"1.0.0\") > 0\n | ...............^",
            ),
            (
                "properties.exists(p, q)",
                "ERROR: <input>:1:22: undeclared reference to 'q' (in container '')\n | properties.exists(p, q)\n | .....................^",
            ),
            (
                "x.y.z == 1",
                "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x.y.z == 1\n | ^",
            ),
            (
                "properties.foo()",
                "ERROR: <input>:1:15: undeclared reference to 'foo' (in container '')\n | properties.foo()\n | ..............^",
            ),
            (
                "p.type == 'x' && properties.size() > 0",
                "ERROR: <input>:1:1: undeclared reference to 'p' (in container '')\n | p.type == 'x' && properties.size() > 0\n | ^",
            ),
            (
                "a == b",
                "ERROR: <input>:1:1: undeclared reference to 'a' (in container '')\n | a == b\n | ^\nERROR: <input>:1:6: undeclared reference to 'b' (in container '')\n | a == b\n | .....^",
            ),
            (
                "Msg{f: 1}",
                "ERROR: <input>:1:4: undeclared reference to 'Msg' (in container '')\n | Msg{f: 1}\n | ...^",
            ),
        ];
        for (rule, want) in cases {
            assert_eq!(err(rule), want, "{rule:?}");
        }
    }

    #[test]
    fn error_list_is_sorted_and_truncated() {
        let rule = (0..150)
            .map(|i| format!("v{i}"))
            .collect::<Vec<_>>()
            .join(" || ");
        let got = err(&rule);
        let lines: Vec<&str> = got.lines().filter(|l| l.starts_with("ERROR:")).collect();
        assert_eq!(lines.len(), 100);
        assert!(lines[0].starts_with("ERROR: <input>:1:1: undeclared reference to 'v0'"));
        assert!(lines[1].starts_with("ERROR: <input>:1:7: undeclared reference to 'v1'"));
        assert!(got.ends_with("\n50 more errors were truncated"), "{got}");
    }

    #[test]
    fn type_errors() {
        let cases = [
            ("1 + \"a\"", "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'"),
            ("1 == \"a\"", "ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, string)'"),
            ("1 == null", "ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, null)'"),
            ("properties.exists(p, 1)", "ERROR: <input>:1:18: found no matching overload for '_||_' applied to '(bool, int)'"),
            ("1.size() == 1", "ERROR: <input>:1:7: found no matching overload for 'size' applied to 'int.()'"),
            ("true.x", "ERROR: <input>:1:5: type 'bool' does not support field selection"),
            ("1.all(x, true)", "ERROR: <input>:1:1: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)"),
            ("-1u < 0u", "ERROR: <input>:1:1: found no matching overload for '-_' applied to '(uint)'"),
            ("!1", "ERROR: <input>:1:1: found no matching overload for '!_' applied to '(int)'"),
            ("properties + 1 == 2", "ERROR: <input>:1:12: found no matching overload for '_+_' applied to '(list(map(string, any)), int)'"),
            ("semver_compare(1) == 0", "ERROR: <input>:1:15: found no matching overload for 'semver_compare' applied to '(int)'"),
            ("'a'.semver_compare('b') == 0", "ERROR: <input>:1:19: found no matching overload for 'semver_compare' applied to 'string.(string)'"),
            ("true && 1", "ERROR: <input>:1:6: found no matching overload for '_&&_' applied to '(bool, int)'"),
        ];
        for (rule, want) in cases {
            let got = err(rule);
            assert_eq!(got.lines().next(), Some(want), "{rule:?}\n{got}");
        }
    }

    #[test]
    fn non_bool_results() {
        let cases = [
            "1",
            "\"a\"",
            "1 + 2",
            "2.0 * 3.0",
            r#"semver_compare("1.0.0", "2.0.0")"#,
            "properties",
            "properties[0]",
            "properties[0].value",
            "properties.map(p, p.type)",
            "properties.filter(p, true)",
            "null",
            "dyn(true)",
            "true ? 1 : 2",
            "b'x'",
            "type(true)",
            "-(-1)",
            "!!1",
            "properties.size()",
            "{}",
            "[]",
        ];
        for rule in cases {
            assert_eq!(
                check(rule),
                Err("cel expressions must have type Bool".to_string()),
                "{rule}"
            );
        }
    }

    #[test]
    fn recursion_limits() {
        let limit = "ERROR: <input>:-1:0: expression recursion limit exceeded: 250";
        let visit = "ERROR: <input>:-1:0: max recursion depth exceeded";
        let ok_deep = [
            format!("{}true{}", "(".repeat(200), ")".repeat(200)),
            format!("{}true{}", "!(".repeat(200), ")".repeat(200)),
            format!("{}true{}", "true ? (".repeat(200), ") : false".repeat(200)),
            format!("{}true{}", "[".repeat(200), "]".repeat(200)) + ".size() == 1",
            vec!["true"; 10_000].join(" || "),
            vec!["true"; 10_000].join(" && "),
            format!("{}true", "!".repeat(50_000)),
        ];
        for rule in &ok_deep {
            assert_eq!(check(rule), Ok(()), "{}", &rule[..40]);
        }
        let too_deep = [
            (format!("{}true{}", "(".repeat(300), ")".repeat(300)), limit),
            (
                format!("{}true{}", "[".repeat(5_000), "]".repeat(5_000)),
                limit,
            ),
            ("(".repeat(100_000), limit),
            (
                format!("{}1{}", "{1: ".repeat(1_000), "}".repeat(1_000)),
                limit,
            ),
            (
                format!("{}x{}", "f(".repeat(10_000), ")".repeat(10_000)),
                limit,
            ),
            (format!("x{}", ".y".repeat(10_000)), limit),
            (format!("x{}", "[0]".repeat(10_000)), limit),
            (vec!["1"; 10_000].join(" + ") + " == 1", limit),
            (vec!["1"; 10_000].join(" == "), limit),
            (
                format!("properties{}{} == 1", ".y".repeat(245), " + 1".repeat(6)),
                visit,
            ),
        ];
        for (rule, want) in &too_deep {
            let got = err(rule);
            assert_eq!(
                got.lines().next(),
                Some(*want),
                "{}",
                &rule[..40.min(rule.len())]
            );
        }
        let huge = "1".repeat(100_001);
        assert_eq!(
            err(&huge),
            "ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100001, limit 100000"
        );
        // Deep but legal nesting of minus signs is flattened, not recursed.
        assert_eq!(
            check(&format!("{}1", "-".repeat(50_000))),
            Err("cel expressions must have type Bool".to_string())
        );
    }

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[test]
    fn never_panics_on_random_and_mutated_input() {
        let seeds = [
            r#"properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "1.0.0") >= 0)"#,
            r#"properties.all(p, has(p.value.x) ? p.value.x in [1, 2u, 3.0] : !(p.type != 'a'))"#,
            r#"{"a": b"\x00", 'b': r'''raw'''}.size() > -1 || [1,2,].map(x, x > 0, x * 2)[0] % 2 == 0"#,
            "x.y{a: 1, b: [2]}.c(.d, e)[f] - -1.5e-3 <= 0x1Fu",
        ];
        let fragments = [
            "(",
            ")",
            "[",
            "]",
            "{",
            "}",
            ".",
            ",",
            ":",
            "?",
            "!",
            "-",
            "+",
            "*",
            "/",
            "%",
            "==",
            "!=",
            "<",
            "<=",
            ">",
            ">=",
            "&&",
            "||",
            " in ",
            "true",
            "false",
            "null",
            "1",
            "1u",
            "0x1F",
            "1.5",
            ".5e3",
            "\"s\"",
            "'s'",
            "r'\\d'",
            "b\"b\"",
            "\"\"\"t\"\"\"",
            "x",
            "properties",
            "has",
            "all",
            "exists",
            "map",
            "filter",
            "exists_one",
            "size",
            "semver_compare",
            "if",
            "\\",
            "\"",
            "'",
            "\n",
            "\t",
            " ",
            "@",
            "$",
            "=",
            "&",
            "|",
            "😁",
            "é",
            "//c\n",
            "\\u00",
            "\\x",
            "\\U0011FFFF",
        ];
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut inputs = Vec::new();
        for _ in 0..1500 {
            let len = rng.below(24);
            let mut s = String::new();
            for _ in 0..len {
                s.push_str(fragments[rng.below(fragments.len())]);
            }
            inputs.push(s);
        }
        for _ in 0..1500 {
            let mut chars: Vec<char> = seeds[rng.below(seeds.len())].chars().collect();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(chars.len() + 1);
                match rng.below(3) {
                    0 if at < chars.len() => {
                        chars.remove(at);
                    }
                    1 => {
                        let f: Vec<char> = fragments[rng.below(fragments.len())].chars().collect();
                        for (k, c) in f.into_iter().enumerate() {
                            chars.insert(at + k, c);
                        }
                    }
                    _ if at < chars.len() => {
                        let swap = rng.below(chars.len());
                        chars.swap(at, swap);
                    }
                    _ => {}
                }
            }
            inputs.push(chars.into_iter().collect());
        }
        let mut ok = 0;
        for input in &inputs {
            match check(input) {
                Ok(()) => ok += 1,
                Err(e) => assert!(
                    e.starts_with("ERROR: <input>:") || e == "cel expressions must have type Bool",
                    "{input:?} -> {e}"
                ),
            }
        }
        // Some mutations stay valid; most do not.
        assert!(ok > 0 && ok < inputs.len());
    }
}
