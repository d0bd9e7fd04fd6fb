//! go-yaml v2's timestamp resolution: a quick `YYYY-` check, then Go's
//! `time.Parse` with the four layouts go-yaml tries. Shared by the YAML
//! reader (what becomes a timestamp) and writer (what must be quoted).

/// One element of a Go time layout, as time.Parse interprets it.
#[derive(Clone, Copy)]
enum LayoutItem {
    /// `2006`: exactly four characters, parsed as a number.
    Year,
    /// `1`: one or two digits, 1-12.
    Month,
    /// `2`: one or two digits, checked against the month at the end.
    Day,
    /// `15`: one or two digits, 0-23.
    Hour,
    /// `4`, `5`: one or two digits, 0-59.
    MinuteOrSecond,
    /// `.999999999`: optional `.` or `,` followed by any number of digits.
    Fraction,
    /// `Z07:00`: `Z`, or a sign, two digits, `:`, two digits.
    Zone,
    /// Literal text; a space matches one or more spaces.
    Literal(u8),
}

/// go-yaml v2's `allowedTimestampFormats`, tried in order.
const TIMESTAMP_LAYOUTS: &[&str] = &[
    "2006-1-2T15:4:5.999999999Z07:00",
    "2006-1-2t15:4:5.999999999Z07:00",
    "2006-1-2 15:4:5.999999999",
    "2006-1-2",
];

/// The elements of Go's layouts that those layouts use, by their text (a longer one before
/// its prefix); any other byte is literal.
const LAYOUT_ELEMENTS: &[(&str, LayoutItem)] = &[
    ("2006", LayoutItem::Year),
    ("Z07:00", LayoutItem::Zone),
    (".999999999", LayoutItem::Fraction),
    ("15", LayoutItem::Hour),
    ("1", LayoutItem::Month),
    ("2", LayoutItem::Day),
    ("4", LayoutItem::MinuteOrSecond),
    ("5", LayoutItem::MinuteOrSecond),
];

/// A layout's elements, as `time.Parse` reads them from the layout's text.
fn layout_items(layout: &str) -> impl Iterator<Item = LayoutItem> + '_ {
    let mut rest = layout.as_bytes();
    std::iter::from_fn(move || {
        let (&first, tail) = rest.split_first()?;
        for (text, item) in LAYOUT_ELEMENTS {
            if let Some(after) = rest.strip_prefix(text.as_bytes()) {
                rest = after;
                return Some(*item);
            }
        }
        rest = tail;
        Some(LayoutItem::Literal(first))
    })
}

/// Whether go-yaml v2 resolves a plain scalar to a timestamp.
pub fn is_go_timestamp(text: &[u8]) -> bool {
    let leading_digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    if leading_digits != 4 || text.get(4) != Some(&b'-') {
        return false;
    }
    TIMESTAMP_LAYOUTS
        .iter()
        .any(|layout| go_time_parse(layout, text))
}

/// Go's getnum(value, false): one digit, or two when a second digit follows.
fn go_getnum(value: &[u8]) -> Option<(u32, &[u8])> {
    let first = *value.first().filter(|b| b.is_ascii_digit())?;
    let first = u32::from(first - b'0');
    match value.get(1) {
        Some(&second) if second.is_ascii_digit() => {
            Some((first * 10 + u32::from(second - b'0'), &value[2..]))
        }
        _ => Some((first, &value[1..])),
    }
}

fn two_digits(value: &[u8]) -> Option<u32> {
    match value {
        [a, b] if a.is_ascii_digit() && b.is_ascii_digit() => {
            Some(u32::from(a - b'0') * 10 + u32::from(b - b'0'))
        }
        _ => None,
    }
}

fn go_time_parse(layout: &str, text: &[u8]) -> bool {
    let mut value = text;
    let mut year = 0u32;
    let mut month = 0u32;
    let mut day = 0u32;
    for item in layout_items(layout) {
        match item {
            LayoutItem::Literal(b' ') => {
                if value.first().is_some_and(|&b| b != b' ') {
                    return false;
                }
                while value.first() == Some(&b' ') {
                    value = &value[1..];
                }
            }
            LayoutItem::Literal(byte) => match value.split_first() {
                Some((&first, rest)) if first == byte => value = rest,
                _ => return false,
            },
            LayoutItem::Year => {
                if value.len() < 4 || !value[..4].iter().all(u8::is_ascii_digit) {
                    return false;
                }
                year = value[..4]
                    .iter()
                    .fold(0, |acc, &b| acc * 10 + u32::from(b - b'0'));
                value = &value[4..];
            }
            LayoutItem::Month => match go_getnum(value) {
                Some((n, rest)) if (1..=12).contains(&n) => {
                    month = n;
                    value = rest;
                }
                _ => return false,
            },
            LayoutItem::Day => match go_getnum(value) {
                Some((n, rest)) => {
                    day = n;
                    value = rest;
                }
                None => return false,
            },
            LayoutItem::Hour => match go_getnum(value) {
                Some((n, rest)) if n < 24 => value = rest,
                _ => return false,
            },
            LayoutItem::MinuteOrSecond => match go_getnum(value) {
                Some((n, rest)) if n < 60 => value = rest,
                _ => return false,
            },
            LayoutItem::Fraction => {
                if value.len() >= 2 && matches!(value[0], b'.' | b',') && value[1].is_ascii_digit()
                {
                    let digits = value[1..].iter().take_while(|b| b.is_ascii_digit()).count();
                    value = &value[1 + digits..];
                }
            }
            LayoutItem::Zone => {
                if value.first() == Some(&b'Z') {
                    value = &value[1..];
                    continue;
                }
                if value.len() < 6 || value[3] != b':' || !matches!(value[0], b'+' | b'-') {
                    return false;
                }
                match (two_digits(&value[1..3]), two_digits(&value[4..6])) {
                    (Some(hours), Some(minutes)) if hours <= 24 && minutes <= 60 => {}
                    _ => return false,
                }
                value = &value[6..];
            }
        }
    }
    value.is_empty() && day >= 1 && day <= days_in_month(month, year)
}

fn days_in_month(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_follow_go_time_parse() {
        for text in [
            "2020-01-01",
            "2020-1-2",
            "2000-02-29",
            "2020-01-01T00:00:00Z",
            "2020-01-01t00:00:00.123456789012Z",
            "2020-01-01T23:59:59+24:00",
            "2020-01-01 1:2:3",
            "2020-01-01   1:2:3.5",
        ] {
            assert!(is_go_timestamp(text.as_bytes()), "{text} is a timestamp");
        }
        for text in [
            "1900-02-29",
            "2020-00-01",
            "2020-01-00",
            "2020-04-31",
            "2020-01-01T24:00:00Z",
            "2020-01-01T00:60:00Z",
            "2020-01-01T00:00:00",
            "2020-01-01T00:00:00+25:00",
            "2020-01-01T00:00:00+0100",
            "2020-01-01T00:00:00z",
            "2020-01-01 ",
            "2020-001-01",
            "02020-01-01",
            "+2020-01-01",
        ] {
            assert!(
                !is_go_timestamp(text.as_bytes()),
                "{text} is not a timestamp"
            );
        }
    }
}
