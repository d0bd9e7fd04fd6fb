//! Implicit typing (go-yaml v2 resolve.go): a string may be written plain only if reading the
//! plain text back would give a string again.

use super::byte_at;

/// Plain scalars that resolve to booleans, null, infinities or NaN. go-yaml also maps `<<`
/// (merge), but only looks a scalar up when its first character is one of `+-.0-9yYnNtTfFoO~`,
/// so `<<` itself stays a plain string.
pub(super) const RESOLVE_WORDS: &[&str] = &[
    "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "n", "N", "no", "No",
    "NO", "false", "False", "FALSE", "off", "Off", "OFF", "~", "null", "Null", "NULL", ".nan",
    ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
];

pub(super) fn resolves_to_string(text: &str) -> bool {
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
pub(super) fn resolves_to_number_or_timestamp(text: &[u8]) -> bool {
    if crate::encoding::timestamp::is_go_timestamp(text) {
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
pub(super) enum NumError {
    Syntax,
    Range,
}

/// Base prefix handling of Go's strconv.ParseUint with base 0.
pub(super) fn split_base_prefix(text: &[u8]) -> (u32, &[u8]) {
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

pub(super) fn digit_value(byte: u8) -> Option<u32> {
    match byte {
        b'0'..=b'9' => Some(u32::from(byte - b'0')),
        b'a'..=b'z' | b'A'..=b'Z' => Some(u32::from(byte.to_ascii_lowercase() - b'a') + 10),
        _ => None,
    }
}

/// Go's strconv.ParseUint(text, base, 64) for text without underscores (go-yaml removes them
/// before parsing). Like Go, it reports a range error as soon as the value overflows.
pub(super) fn go_parse_uint(text: &[u8], base: u32) -> Result<u64, NumError> {
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
pub(super) fn go_parse_int(text: &[u8], base: u32) -> Result<i64, NumError> {
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
pub(super) fn go_uint_syntax_ok(text: &[u8]) -> bool {
    let (base, digits) = split_base_prefix(text);
    (text == b"0" || !digits.is_empty())
        && digits
            .iter()
            .all(|&b| digit_value(b).is_some_and(|d| d < base))
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
pub(super) fn is_yaml_style_float(text: &[u8]) -> bool {
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
pub(super) fn decimal_is_finite(text: &[u8]) -> bool {
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
pub(super) fn go_parse_float_ok(text: &[u8]) -> bool {
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
pub(super) fn go_underscore_ok(text: &[u8]) -> bool {
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
pub(super) fn is_base60_float(text: &str) -> bool {
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
