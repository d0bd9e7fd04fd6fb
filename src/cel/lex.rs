//! Tokens and the lexer, following the CEL ANTLR grammar (longest match, ANTLR's recovery).

use super::diag::{escape_display, Diag};

/// Declares the token kinds, each with the name ANTLR shows for it: the enum
/// [`Tk`], [`ALL_TOKENS`] and [`Tk::display`] from one list.
macro_rules! token_kinds {
    ($($kind:ident => $name:literal,)*) => {
        /// Token kinds in the order of the grammar's token types (EOF first), which is
        /// the order ANTLR lists expected tokens in.
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub(super) enum Tk {
            $($kind,)*
        }

        /// Every token kind, in order.
        pub(super) const ALL_TOKENS: &[Tk] = &[$(Tk::$kind,)*];

        impl Tk {
            pub(super) fn display(self) -> &'static str {
                match self {
                    $(Tk::$kind => $name,)*
                }
            }
        }
    };
}

token_kinds! {
    Eof => "<EOF>",
    Eq => "'=='",
    Ne => "'!='",
    In => "'in'",
    Lt => "'<'",
    Le => "'<='",
    Ge => "'>='",
    Gt => "'>'",
    And => "'&&'",
    Or => "'||'",
    LBracket => "'['",
    RBracket => "']'",
    LBrace => "'{'",
    RBrace => "'}'",
    LParen => "'('",
    RParen => "')'",
    Dot => "'.'",
    Comma => "','",
    Minus => "'-'",
    Bang => "'!'",
    Question => "'?'",
    Colon => "':'",
    Plus => "'+'",
    Star => "'*'",
    Slash => "'/'",
    Percent => "'%'",
    True => "'true'",
    False => "'false'",
    Null => "'null'",
    Float => "NUM_FLOAT",
    Int => "NUM_INT",
    Uint => "NUM_UINT",
    Str => "STRING",
    Bytes => "BYTES",
    Ident => "IDENTIFIER",
}

/// A set of token kinds (bit per kind).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct TokSet(u64);

impl TokSet {
    pub(super) const fn of(kinds: &[Tk]) -> TokSet {
        let mut bits = 0u64;
        let mut i = 0;
        while i < kinds.len() {
            bits |= 1u64 << (kinds[i] as u8);
            i += 1;
        }
        TokSet(bits)
    }

    pub(super) fn has(self, kind: Tk) -> bool {
        self.0 & (1u64 << (kind as u8)) != 0
    }

    pub(super) const fn with(self, other: TokSet) -> TokSet {
        TokSet(self.0 | other.0)
    }

    /// ANTLR's `IntervalSet` rendering: a lone element bare, else `{a, b}`.
    pub(super) fn display(self) -> String {
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

/// Literals and identifiers: tokens that are a whole primary expression.
const LITERAL_OR_IDENT: TokSet = TokSet::of(&[
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

/// Tokens that can start an expression.
pub(super) const EXPR_START: TokSet = TokSet::of(&[
    Tk::LBracket,
    Tk::LBrace,
    Tk::LParen,
    Tk::Dot,
    Tk::Minus,
    Tk::Bang,
])
.with(LITERAL_OR_IDENT);

/// Tokens that can start a member expression (a `-` only as the sign of a
/// numeric literal, handled separately).
pub(super) const MEMBER_START: TokSet =
    TokSet::of(&[Tk::LBracket, Tk::LBrace, Tk::LParen, Tk::Dot]).with(LITERAL_OR_IDENT);

/// Tokens that may directly follow a complete member expression, whatever
/// the enclosing context.
pub(super) const AFTER_MEMBER: TokSet = TokSet::of(&[
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

pub(super) const RESERVED: [&str; 21] = [
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
pub(super) struct Token {
    pub(super) kind: Tk,
    pub(super) start: usize,
    pub(super) end: usize,
}

// ---------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------

/// Splits the source into tokens (whitespace and comments dropped), reporting
/// unrecognisable input the way ANTLR's lexer does: the text from the token
/// start through the character where matching failed, after which lexing
/// resumes behind that character.
pub(super) fn lex(src: &[char]) -> (Vec<Token>, Vec<Diag>) {
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
pub(super) fn scan_token(src: &[char], i: usize) -> Result<(Tk, usize), usize> {
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

pub(super) fn scan_ident(src: &[char], i: usize) -> (Tk, usize) {
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

pub(super) fn scan_digits(src: &[char], mut j: usize) -> usize {
    while j < src.len() && src[j].is_ascii_digit() {
        j += 1;
    }
    j
}

/// An exponent (`e`, optional sign, digits) at `j`, returning its end.
pub(super) fn scan_exponent(src: &[char], j: usize) -> Option<usize> {
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

pub(super) fn scan_number(src: &[char], i: usize) -> (Tk, usize) {
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
pub(super) fn scan_string(src: &[char], q: usize, raw: bool) -> Result<usize, usize> {
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
pub(super) fn scan_escape(src: &[char], j: usize) -> Result<usize, usize> {
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
pub(super) fn check_unescape(text: &str, is_bytes: bool) -> Result<(), &'static str> {
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
