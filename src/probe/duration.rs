//! Go's `time.Duration` as the probe reads and prints it: `time.ParseDuration` for the
//! `-connect-timeout` and `-rpc-timeout` flags, `Duration.String` for every message that shows
//! a duration (`within 1s`, `took 1.234567ms`).

use std::fmt;

/// A span of time in nanoseconds, signed, as Go's `time.Duration`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct GoDuration(pub i64);

const NANOSECOND: u64 = 1;
const MICROSECOND: u64 = 1_000 * NANOSECOND;
const MILLISECOND: u64 = 1_000 * MICROSECOND;
const SECOND: u64 = 1_000 * MILLISECOND;
const MINUTE: u64 = 60 * SECOND;
const HOUR: u64 = 60 * MINUTE;

/// The units `time.ParseDuration` knows; both micro signs (U+00B5 and U+03BC) spell `µs`.
const UNITS: &[(&[u8], u64)] = &[
    (b"ns", NANOSECOND),
    (b"us", MICROSECOND),
    ("\u{b5}s".as_bytes(), MICROSECOND),
    ("\u{3bc}s".as_bytes(), MICROSECOND),
    (b"ms", MILLISECOND),
    (b"s", SECOND),
    (b"m", MINUTE),
    (b"h", HOUR),
];

const LIMIT: u64 = 1 << 63;

impl GoDuration {
    pub const SECOND: GoDuration = GoDuration(SECOND as i64);

    /// `time.ParseDuration`: a signed sequence of decimal numbers, each with an optional
    /// fraction and a unit (`300ms`, `-1.5h`, `2h45m`). `None` where Go returns an error (the
    /// flag package reports every such error as `parse error`).
    pub fn parse(text: &str) -> Option<GoDuration> {
        let mut s = text.as_bytes();
        let mut negative = false;
        if let Some((&sign @ (b'-' | b'+'), rest)) = s.split_first() {
            negative = sign == b'-';
            s = rest;
        }
        if s == b"0" {
            return Some(GoDuration(0));
        }
        if s.is_empty() {
            return None;
        }
        let mut total: u64 = 0;
        while !s.is_empty() {
            if !(s[0] == b'.' || s[0].is_ascii_digit()) {
                return None;
            }
            let (whole, rest) = leading_int(s)?;
            let had_whole = rest.len() != s.len();
            s = rest;
            let (mut fraction, mut scale, mut had_fraction) = (0u64, 1f64, false);
            if let Some(rest) = s.strip_prefix(b".") {
                let (f, sc, rest2) = leading_fraction(rest);
                had_fraction = rest2.len() != rest.len();
                (fraction, scale) = (f, sc);
                s = rest2;
            }
            if !had_whole && !had_fraction {
                return None;
            }
            let unit_len = s
                .iter()
                .position(|&c| c == b'.' || c.is_ascii_digit())
                .unwrap_or(s.len());
            if unit_len == 0 {
                return None;
            }
            let (name, rest) = s.split_at(unit_len);
            s = rest;
            let unit = UNITS.iter().find(|(n, _)| *n == name)?.1;
            if whole > LIMIT / unit {
                return None;
            }
            let mut value = whole * unit;
            if fraction > 0 {
                // Go computes the fraction in float64: nanosecond-exact for every unit up to hours.
                let part = (fraction as f64 * (unit as f64 / scale)) as u64;
                value = value.checked_add(part)?;
                if value > LIMIT {
                    return None;
                }
            }
            total = total.checked_add(value)?;
            if total > LIMIT {
                return None;
            }
        }
        if negative {
            // 1<<63 negated is i64::MIN, which Go accepts.
            return Some(GoDuration(0i64.wrapping_sub_unsigned(total)));
        }
        i64::try_from(total).ok().map(GoDuration)
    }

    /// The duration of a measured span (saturating at Go's largest duration).
    pub fn from_std(duration: std::time::Duration) -> GoDuration {
        GoDuration(i64::try_from(duration.as_nanos()).unwrap_or(i64::MAX))
    }

    /// As a `std` duration; `None` for zero or negative durations.
    pub fn to_std(self) -> Option<std::time::Duration> {
        u64::try_from(self.0)
            .ok()
            .filter(|&n| n > 0)
            .map(std::time::Duration::from_nanos)
    }
}

/// Go's `leadingInt`: the leading decimal digits; `None` when they overflow 1<<63.
fn leading_int(s: &[u8]) -> Option<(u64, &[u8])> {
    let mut x: u64 = 0;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        if x > LIMIT / 10 {
            return None;
        }
        x = x * 10 + u64::from(s[i] - b'0');
        if x > LIMIT {
            return None;
        }
        i += 1;
    }
    Some((x, &s[i..]))
}

/// Go's `leadingFraction`: the digits after a decimal point and their scale; past what fits,
/// digits are consumed but no longer add precision.
fn leading_fraction(s: &[u8]) -> (u64, f64, &[u8]) {
    let (mut x, mut scale, mut overflow) = (0u64, 1f64, false);
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        if !overflow {
            if x > (LIMIT - 1) / 10 {
                overflow = true;
            } else {
                let y = x * 10 + u64::from(s[i] - b'0');
                if y > LIMIT {
                    overflow = true;
                } else {
                    x = y;
                    scale *= 10.0;
                }
            }
        }
        i += 1;
    }
    (x, scale, &s[i..])
}

/// Go's `fmtFrac`: the fraction of `v / 10^precision` without trailing zeros (and without
/// the point when it is zero), prepended to `out`; returns the integer part.
fn prepend_fraction(out: &mut Vec<u8>, mut v: u64, precision: u32) -> u64 {
    let mut printing = false;
    for _ in 0..precision {
        let digit = v % 10;
        printing = printing || digit != 0;
        if printing {
            out.push(b'0' + u8::try_from(digit).unwrap_or(0));
        }
        v /= 10;
    }
    if printing {
        out.push(b'.');
    }
    v
}

fn prepend_int(out: &mut Vec<u8>, mut v: u64) {
    if v == 0 {
        out.push(b'0');
        return;
    }
    while v > 0 {
        out.push(b'0' + u8::try_from(v % 10).unwrap_or(0));
        v /= 10;
    }
}

/// Go's `Duration.String`: `72h3m0.5s`, `1.5s`, `300ms`, `1.2µs`, `0s`.
impl fmt::Display for GoDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Built backwards, as Go builds it, then reversed.
        let mut out: Vec<u8> = Vec::with_capacity(32);
        let mut u = self.0.unsigned_abs();
        if u < SECOND {
            out.push(b's');
            let precision = match u {
                0 => return f.write_str("0s"),
                u if u < MICROSECOND => {
                    out.push(b'n');
                    0
                }
                u if u < MILLISECOND => {
                    // "µ" (U+00B5) backwards.
                    out.extend_from_slice(&[0xb5, 0xc2]);
                    3
                }
                _ => {
                    out.push(b'm');
                    6
                }
            };
            u = prepend_fraction(&mut out, u, precision);
            prepend_int(&mut out, u);
        } else {
            out.push(b's');
            u = prepend_fraction(&mut out, u, 9);
            prepend_int(&mut out, u % 60);
            u /= 60;
            if u > 0 {
                out.push(b'm');
                prepend_int(&mut out, u % 60);
                u /= 60;
                if u > 0 {
                    out.push(b'h');
                    prepend_int(&mut out, u);
                }
            }
        }
        if self.0 < 0 {
            out.push(b'-');
        }
        out.reverse();
        f.write_str(&String::from_utf8_lossy(&out))
    }
}

#[cfg(test)]
mod tests {
    use super::GoDuration;

    #[test]
    fn parses_what_go_parses() {
        let cases: &[(&str, Option<i64>)] = &[
            ("0", Some(0)),
            ("-0", Some(0)),
            ("1s", Some(1_000_000_000)),
            ("500ms", Some(500_000_000)),
            ("1m30s", Some(90_000_000_000)),
            ("1.5h", Some(5_400_000_000_000)),
            ("+5s", Some(5_000_000_000)),
            ("-1s", Some(-1_000_000_000)),
            (".5s", Some(500_000_000)),
            ("1.s", Some(1_000_000_000)),
            ("1.0000000009s", Some(1_000_000_000)),
            ("10us", Some(10_000)),
            ("10\u{b5}s", Some(10_000)),
            ("10\u{3bc}s", Some(10_000)),
            ("3ns", Some(3)),
            ("2h45m", Some(9_900_000_000_000)),
            ("9223372036854775807ns", Some(i64::MAX)),
            ("-9223372036854775808ns", Some(i64::MIN)),
            ("9223372036854775808ns", None),
            ("1", None),
            ("", None),
            ("-", None),
            (".", None),
            (".s", None),
            ("1S", None),
            ("1d", None),
            ("s", None),
            ("1s ", None),
            (" 1s", None),
            ("3000000h", None),
        ];
        for (text, want) in cases {
            assert_eq!(GoDuration::parse(text).map(|d| d.0), *want, "{text:?}");
        }
    }

    #[test]
    fn prints_as_go_prints() {
        let cases: &[(i64, &str)] = &[
            (0, "0s"),
            (1, "1ns"),
            (1_100, "1.1\u{b5}s"),
            (2_200_000, "2.2ms"),
            (1_234_567, "1.234567ms"),
            (1_000_000_000, "1s"),
            (1_500_000_000, "1.5s"),
            (90_000_000_000, "1m30s"),
            (7_200_000_000_000, "2h0m0s"),
            (-1_000_000_000, "-1s"),
            (-300_000_000, "-300ms"),
            (i64::MAX, "2562047h47m16.854775807s"),
            (i64::MIN, "-2562047h47m16.854775808s"),
        ];
        for (nanos, want) in cases {
            assert_eq!(GoDuration(*nanos).to_string(), *want);
        }
    }
}
