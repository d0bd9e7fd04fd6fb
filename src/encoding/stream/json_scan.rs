//! Locating JSON values the way Go's `encoding/json` scanner (driven by
//! `json.Decoder`) does: the value's extent, or Go's syntax error.

use super::MAX_JSON_DEPTH;
use crate::encoding::yaml_read::go_quote;

pub(super) enum Scan {
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

pub(super) fn is_json_space(c: u8) -> bool {
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
pub(super) fn scan_json_value(b: &[u8], pos: usize) -> Scan {
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
