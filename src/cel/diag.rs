//! Diagnostics: a problem at a position, rendered as cel-go's `Issues.Err()` text.

use super::MAX_ERRORS;

/// One reported problem; `at` is a code-point offset into the source, `None`
/// for cel-go's "no location" (displayed as line -1, column 0, no snippet).
#[derive(Debug, Clone)]
pub(super) struct Diag {
    pub(super) at: Option<usize>,
    pub(super) msg: String,
}

impl Diag {
    pub(super) fn at(offset: usize, msg: impl Into<String>) -> Self {
        Diag {
            at: Some(offset),
            msg: msg.into(),
        }
    }

    pub(super) fn nowhere(msg: String) -> Self {
        Diag { at: None, msg }
    }
}

/// Renders diagnostics like cel-go's `Errors.ToDisplayString`.
pub(super) fn render(src: &[char], mut diags: Vec<Diag>) -> String {
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
pub(super) fn escape_display(text: &str) -> String {
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
