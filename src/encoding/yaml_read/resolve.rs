//! Resolution of plain scalars to YAML 1.1 types (go-yaml v2's resolve.go, sigs.k8s.io fork).

use super::decode::YVal;
use super::json::go_lossy;
use super::{
    YamlError, BINARY_TAG, BOOL_TAG, FLOAT_TAG, INT_TAG, MERGE_TAG, NULL_TAG, STR_TAG, TAG_PREFIX,
    TIMESTAMP_TAG,
};
use std::fmt::Write as _;

pub(super) fn short_tag(tag: &str) -> String {
    match tag.strip_prefix(TAG_PREFIX) {
        Some(rest) => format!("!!{rest}"),
        None => tag.to_string(),
    }
}

pub(super) fn resolvable_tag(tag: &str) -> bool {
    matches!(
        tag,
        "" | STR_TAG | BOOL_TAG | INT_TAG | FLOAT_TAG | NULL_TAG | TIMESTAMP_TAG
    )
}

pub(super) fn scalar(value: &str, tag: &str, implicit: bool) -> Result<YVal, YamlError> {
    if tag.is_empty() && !implicit {
        return Ok(YVal::Str(value.to_string()));
    }
    if tag == BINARY_TAG {
        let data = crate::encoding::base64::decode_go(value.as_bytes())
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
pub(super) fn finish(rtag: &str, out: YVal, value: &str) -> YVal {
    if rtag == TIMESTAMP_TAG {
        YVal::Str(value.to_string())
    } else {
        out
    }
}

pub(super) fn resolve_table(c: u8) -> u8 {
    match c {
        b'+' | b'-' => b'S',
        b'0'..=b'9' => b'D',
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => b'M',
        b'.' => b'.',
        _ => 0,
    }
}

pub(super) fn resolve_map(s: &str) -> Option<(&'static str, YVal)> {
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

pub(super) fn resolve_plain(tag: &str, input: &str) -> (&'static str, YVal) {
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

pub(super) fn resolve_number(tag: &str, input: &str) -> Option<(&'static str, YVal)> {
    if (tag.is_empty() || tag == TIMESTAMP_TAG)
        && crate::encoding::timestamp::is_go_timestamp(input.as_bytes())
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
pub(super) enum IntError {
    Syntax,
    Range,
}

pub(super) fn digit_value(c: u8) -> Option<u32> {
    match c {
        b'0'..=b'9' => Some(u32::from(c - b'0')),
        b'a'..=b'z' => Some(u32::from(c - b'a') + 10),
        b'A'..=b'Z' => Some(u32::from(c - b'A') + 10),
        _ => None,
    }
}

/// Go's `strconv.ParseUint(s, base, 64)` for base 0 (prefixes) or an explicit base; the input
/// holds no underscores.
pub(super) fn parse_uint(s: &str, base: u32) -> Result<u64, IntError> {
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
pub(super) fn parse_int(s: &str, base: u32) -> Result<i64, IntError> {
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
pub(super) fn is_yaml_float(s: &str) -> bool {
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
pub(super) fn is_dot_float(s: &str) -> bool {
    s.starts_with('.') && !s[1..].starts_with(['+', '-']) && is_yaml_float(s)
}

pub(super) fn is_decimal_integer(s: &str) -> bool {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
}

pub(super) fn normalize_decimal(s: &str) -> String {
    let negative = s.starts_with('-');
    let digits = s.trim_start_matches(['+', '-']).trim_start_matches('0');
    match (negative, digits.is_empty()) {
        (_, true) => "0".to_string(),
        (true, false) => format!("-{digits}"),
        (false, false) => digits.to_string(),
    }
}

pub(super) fn finite_float(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// `big.Int.SetString(s, 0)` rendered in decimal.
pub(super) fn big_from_base0(s: &str) -> Option<String> {
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
