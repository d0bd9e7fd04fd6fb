//! `.indexignore` matching for catalog directories.
//!
//! Upstream `opm` builds one gitignore matcher for the whole catalog tree
//! (`joelanford/ignore` `NewMatcher`, backed by go-git's
//! `plumbing/format/gitignore`, v5.19 with the wildmatch port) and asks it,
//! for every regular file, whether the file is excluded. This module
//! reproduces that matcher: how the files are found and parsed, how each
//! pattern is scoped to its directory, and how one pattern matches a path.

use std::io;
use std::path::{Path, PathBuf};

/// Name of the per-directory ignore file.
const IGNORE_FILE: &str = ".indexignore";

/// `bufio.Scanner`'s default maximum token size: upstream reads every
/// `.indexignore` line by line with a default scanner, so a longer line makes
/// the whole load fail.
const MAX_LINE: usize = 64 * 1024;

/// A `.indexignore` file that could not be read (or walked to).
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct IgnoreError {
    /// The file or directory that failed.
    pub path: PathBuf,
    /// Why it failed.
    #[source]
    pub source: io::Error,
}

/// All `.indexignore` patterns of a catalog tree, each scoped to its directory.
#[derive(Debug, Clone)]
pub struct IndexIgnore {
    /// In increasing priority: later patterns are consulted first.
    patterns: Vec<Pattern>,
}

impl IndexIgnore {
    /// Scans `root` (walk in lexical order) for `.indexignore` files and parses them.
    pub fn load(root: &Path) -> Result<IndexIgnore, IgnoreError> {
        let mut ignore = IndexIgnore::empty();
        // `fs.WalkDir` visits names in byte order and does not follow
        // symlinked directories; walkdir with sorted names does the same.
        for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
            let entry = entry.map_err(|e| {
                let path = e
                    .path()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| root.to_path_buf());
                // A directory loop has no OS error behind it; keep its text.
                let text = e.to_string();
                let source = e.into_io_error().unwrap_or_else(|| io::Error::other(text));
                IgnoreError { path, source }
            })?;
            if entry.file_name() != IGNORE_FILE || entry.file_type().is_dir() {
                continue;
            }
            let path = entry.path();
            let bytes = crate::fsutil::read_input(path, root, crate::fsutil::Limit::Catalog)
                .map_err(|error| IgnoreError {
                    path: path.to_path_buf(),
                    source: match error {
                        crate::fsutil::InputError::Io { kind, message, .. } => {
                            io::Error::new(kind, message)
                        }
                        refused => io::Error::other(refused.to_string()),
                    },
                })?;
            let domain = domain_of(root, path);
            let lines = scan_lines(&bytes, true).map_err(|source| IgnoreError {
                path: path.to_path_buf(),
                source,
            })?;
            ignore.push_lines(&domain, &lines);
        }
        Ok(ignore)
    }

    /// Builds from (domain, file content) pairs, domain = directory components relative to root (for tests).
    ///
    /// Unlike [`IndexIgnore::load`], an over-long line is kept as a pattern
    /// instead of being an error, since there is no file to blame.
    pub fn from_sources(sources: &[(Vec<String>, String)]) -> IndexIgnore {
        let mut ignore = IndexIgnore::empty();
        for (domain, content) in sources {
            let domain: Vec<Vec<u8>> = domain.iter().map(|c| c.as_bytes().to_vec()).collect();
            // Infallible when the length limit is off.
            let lines = scan_lines(content.as_bytes(), false).unwrap_or_default();
            ignore.push_lines(&domain, &lines);
        }
        ignore
    }

    /// Whether the file at `rel` (components relative to the root; the file name last) is ignored.
    pub fn is_ignored(&self, rel: &[&str]) -> bool {
        let path: Vec<&[u8]> = rel.iter().map(|c| c.as_bytes()).collect();
        // go-git `matcher.Match`: last pattern first, the first one that
        // says anything decides. Upstream only ever asks about files.
        for pattern in self.patterns.iter().rev() {
            match pattern.matches(&path, false) {
                MatchResult::NoMatch => continue,
                MatchResult::Exclude => return true,
                MatchResult::Include => return false,
            }
        }
        false
    }

    /// `joelanford/ignore` seeds the matcher with the ignore file's own name
    /// (root domain, lowest priority) before any loaded pattern. Besides the
    /// files themselves, it excludes everything below a directory that
    /// happens to be named `.indexignore`.
    fn empty() -> IndexIgnore {
        IndexIgnore {
            patterns: vec![Pattern::parse(IGNORE_FILE.as_bytes(), &[])],
        }
    }

    /// `loadPatterns`: each line trimmed, comments and blank lines skipped.
    fn push_lines(&mut self, domain: &[Vec<u8>], lines: &[&[u8]]) {
        for line in lines {
            let line = trim_space(line);
            if line.is_empty() || line.starts_with(b"#") {
                continue;
            }
            self.patterns.push(Pattern::parse(line, domain));
        }
    }
}

/// The directory components of `file` relative to `root` (upstream:
/// `filepath.Dir(path)` split on the separator, with `.` meaning no domain).
fn domain_of(root: &Path, file: &Path) -> Vec<Vec<u8>> {
    let rel = file.strip_prefix(root).unwrap_or(file);
    let mut comps: Vec<Vec<u8>> = rel
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => Some(s.to_string_lossy().as_bytes().to_vec()),
            _ => None,
        })
        .collect();
    comps.pop();
    comps
}

/// Splits like `bufio.Scanner` with `ScanLines`: on `\n`, dropping one
/// trailing `\r`, the last line kept even without a newline. With `limit`,
/// a line of 64 KiB or more fails as the default scanner does.
fn scan_lines(data: &[u8], limit: bool) -> io::Result<Vec<&[u8]>> {
    let mut lines = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let (raw, next) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        if limit && raw.len() >= MAX_LINE {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "bufio.Scanner: token too long",
            ));
        }
        lines.push(raw.strip_suffix(b"\r").unwrap_or(raw));
        rest = next;
    }
    Ok(lines)
}

/// Go `strings.TrimSpace` on raw bytes: strips Unicode white space at both
/// ends; an invalid UTF-8 byte is never space.
fn trim_space(mut b: &[u8]) -> &[u8] {
    while let Some((c, n)) = first_char(b) {
        if !c.is_whitespace() {
            break;
        }
        b = &b[n..];
    }
    while let Some((c, n)) = last_char(b) {
        if !c.is_whitespace() {
            break;
        }
        b = &b[..b.len() - n];
    }
    b
}

fn first_char(b: &[u8]) -> Option<(char, usize)> {
    let head = &b[..b.len().min(4)];
    let valid = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    };
    valid.chars().next().map(|c| (c, c.len_utf8()))
}

fn last_char(b: &[u8]) -> Option<(char, usize)> {
    for n in 1..=b.len().min(4) {
        if let Ok(s) = std::str::from_utf8(&b[b.len() - n..]) {
            let mut chars = s.chars();
            return match (chars.next(), chars.next()) {
                (Some(c), None) => Some((c, n)),
                _ => None,
            };
        }
    }
    None
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MatchResult {
    NoMatch,
    Exclude,
    Include,
}

/// One parsed line (go-git `pattern`).
#[derive(Debug, Clone)]
struct Pattern {
    domain: Vec<Vec<u8>>,
    parts: Vec<Vec<u8>>,
    inclusion: bool,
    dir_only: bool,
    is_glob: bool,
}

impl Pattern {
    /// go-git `ParsePattern`.
    fn parse(line: &[u8], domain: &[Vec<u8>]) -> Pattern {
        let mut p = line;
        let mut inclusion = false;
        if let Some(rest) = p.strip_prefix(b"!") {
            inclusion = true;
            p = rest;
        }
        // Trailing spaces go unless the last one is escaped.
        if !p.ends_with(b"\\ ") {
            while let Some(rest) = p.strip_suffix(b" ") {
                p = rest;
            }
        }
        let mut dir_only = false;
        if let Some(rest) = p.strip_suffix(b"/") {
            dir_only = true;
            p = rest;
        }
        let is_glob = p.contains(&b'/');
        Pattern {
            domain: domain.to_vec(),
            parts: p.split(|&b| b == b'/').map(<[u8]>::to_vec).collect(),
            inclusion,
            dir_only,
            is_glob,
        }
    }

    /// go-git `pattern.Match`: the path must lie strictly inside the domain;
    /// the remainder is matched by name (no `/` in the pattern) or as an
    /// anchored glob.
    fn matches(&self, path: &[&[u8]], is_dir: bool) -> MatchResult {
        if path.len() <= self.domain.len() {
            return MatchResult::NoMatch;
        }
        if self
            .domain
            .iter()
            .zip(path)
            .any(|(d, p)| d.as_slice() != *p)
        {
            return MatchResult::NoMatch;
        }
        let rest = &path[self.domain.len()..];
        let hit = if self.is_glob {
            self.glob_match(rest, is_dir)
        } else {
            self.simple_name_match(rest, is_dir)
        };
        match (hit, self.inclusion) {
            (false, _) => MatchResult::NoMatch,
            (true, true) => MatchResult::Include,
            (true, false) => MatchResult::Exclude,
        }
    }

    /// go-git `simpleNameMatch`: any component may match; a directory-only
    /// pattern may not match the final (file) component. In v5.19 this holds
    /// for negations too, so `!dir` re-includes every file below `dir`.
    fn simple_name_match(&self, path: &[&[u8]], is_dir: bool) -> bool {
        let pat = self.parts.first().map(Vec::as_slice).unwrap_or(b"");
        for (i, name) in path.iter().enumerate() {
            if !wildmatch(pat, name) {
                continue;
            }
            return !(self.dir_only && !is_dir && i == path.len() - 1);
        }
        false
    }

    /// go-git `globMatch`: segment by segment, `**` skipping components;
    /// a pattern that consumes only a prefix of the path still matches
    /// (everything below a matched directory).
    fn glob_match(&self, mut path: &[&[u8]], is_dir: bool) -> bool {
        let mut matched = false;
        let mut can_traverse = false;
        let mut trailing_star = false;
        let last = self.parts.len().saturating_sub(1);
        for (i, seg) in self.parts.iter().enumerate() {
            if seg.is_empty() {
                can_traverse = false;
                continue;
            }
            if seg.as_slice() == b"**" {
                if i == last {
                    if !path.is_empty() || is_dir {
                        matched = true;
                        trailing_star = true;
                    }
                    break;
                }
                can_traverse = true;
                continue;
            }
            if path.is_empty() {
                return false;
            }
            if can_traverse {
                can_traverse = false;
                while let Some((first, rest)) = path.split_first() {
                    path = rest;
                    if wildmatch(seg, first) {
                        matched = true;
                        break;
                    } else if path.is_empty() {
                        matched = false;
                    }
                }
            } else {
                if !wildmatch(seg, path[0]) {
                    return false;
                }
                matched = true;
                path = &path[1..];
                // A file cannot stand for a directory segment.
                if path.is_empty() && i < last {
                    matched = false;
                }
            }
        }
        if matched && self.dir_only && !is_dir && (path.is_empty() || trailing_star) {
            matched = false;
        }
        matched
    }
}

/// go-git `dowild` return codes (git's `WM_*`).
const WM_MATCH: i32 = 0;
const WM_NOMATCH: i32 = 1;
const WM_ABORT_ALL: i32 = -1;

/// go-git `wildmatch`: one pattern segment against one path component,
/// without case folding or pathname mode (so `*` and `**` behave alike).
fn wildmatch(pattern: &[u8], text: &[u8]) -> bool {
    dowild(pattern, text) == WM_MATCH
}

/// Port of git's `dowild` (as carried by go-git) for flags = 0.
fn dowild(p: &[u8], text: &[u8]) -> i32 {
    let (mut pi, mut ti) = (0usize, 0usize);
    while pi < p.len() {
        let mut p_ch = p[pi];
        let t_ch = text.get(ti).copied();
        let t = t_ch.unwrap_or(0);
        if t_ch.is_none() && p_ch != b'*' {
            return WM_ABORT_ALL;
        }
        match p_ch {
            b'\\' => {
                // A trailing backslash escapes nothing and cannot match.
                let Some(&lit) = p.get(pi + 1) else {
                    return WM_NOMATCH;
                };
                if t != lit {
                    return WM_NOMATCH;
                }
                pi += 2;
                ti += 1;
            }
            b'?' => {
                pi += 1;
                ti += 1;
            }
            b'*' => {
                pi += 1;
                while p.get(pi) == Some(&b'*') {
                    pi += 1;
                }
                if pi >= p.len() {
                    return WM_MATCH;
                }
                loop {
                    if ti >= text.len() {
                        return WM_ABORT_ALL;
                    }
                    // Fast-forward to the next occurrence of a literal.
                    if !is_glob_special(p[pi]) {
                        let lit = p[pi];
                        match text[ti..].iter().position(|&b| b == lit) {
                            Some(off) => ti += off,
                            None => return WM_ABORT_ALL,
                        }
                    }
                    let m = dowild(&p[pi..], &text[ti..]);
                    if m != WM_NOMATCH {
                        return m;
                    }
                    ti += 1;
                }
            }
            b'[' => {
                pi += 1;
                let Some(&first) = p.get(pi) else {
                    return WM_ABORT_ALL;
                };
                p_ch = if first == b'^' { b'!' } else { first };
                let negated = p_ch == b'!';
                if negated {
                    pi += 1;
                    let Some(&c) = p.get(pi) else {
                        return WM_ABORT_ALL;
                    };
                    p_ch = c;
                }
                let mut prev: u8 = 0;
                let mut matched = false;
                loop {
                    if p_ch == b'\\' {
                        pi += 1;
                        let Some(&c) = p.get(pi) else {
                            return WM_ABORT_ALL;
                        };
                        p_ch = c;
                        if t == p_ch {
                            matched = true;
                        }
                    } else if p_ch == b'-' && prev != 0 && pi + 1 < p.len() && p[pi + 1] != b']' {
                        pi += 1;
                        p_ch = p[pi];
                        if p_ch == b'\\' {
                            pi += 1;
                            let Some(&c) = p.get(pi) else {
                                return WM_ABORT_ALL;
                            };
                            p_ch = c;
                        }
                        if t <= p_ch && t >= prev {
                            matched = true;
                        }
                        p_ch = 0;
                    } else if p_ch == b'[' && p.get(pi + 1) == Some(&b':') {
                        let s = pi + 2;
                        pi = s;
                        while pi < p.len() && p[pi] != b']' {
                            pi += 1;
                        }
                        if pi >= p.len() {
                            return WM_ABORT_ALL;
                        }
                        if pi < s + 1 || p[pi - 1] != b':' {
                            // Not a class after all: a literal '['.
                            pi = s - 2;
                            p_ch = b'[';
                            if t == p_ch {
                                matched = true;
                            }
                        } else {
                            match posix_class(&p[s..pi - 1], t) {
                                None => return WM_ABORT_ALL,
                                Some(true) => matched = true,
                                Some(false) => {}
                            }
                            p_ch = 0;
                        }
                    } else if t == p_ch {
                        matched = true;
                    }
                    prev = p_ch;
                    pi += 1;
                    let Some(&c) = p.get(pi) else {
                        return WM_ABORT_ALL;
                    };
                    if c == b']' {
                        break;
                    }
                    p_ch = c;
                }
                if matched == negated {
                    return WM_NOMATCH;
                }
                pi += 1;
                ti += 1;
            }
            _ => {
                if t != p_ch {
                    return WM_NOMATCH;
                }
                pi += 1;
                ti += 1;
            }
        }
    }
    if ti < text.len() {
        WM_NOMATCH
    } else {
        WM_MATCH
    }
}

/// git's `is_glob_special`.
fn is_glob_special(c: u8) -> bool {
    matches!(c, b'*' | b'?' | b'[' | b'\\')
}

/// `[:name:]` classes, ASCII only; `None` for an unknown name (which aborts
/// the whole match, as in git).
fn posix_class(name: &[u8], c: u8) -> Option<bool> {
    Some(match name {
        b"alnum" => c.is_ascii_alphanumeric(),
        b"alpha" => c.is_ascii_alphabetic(),
        b"blank" => c == b' ' || c == b'\t',
        b"cntrl" => c < 0x20 || c == 0x7f,
        b"digit" => c.is_ascii_digit(),
        b"graph" => c > b' ' && c < 0x7f,
        b"lower" => c.is_ascii_lowercase(),
        b"print" => (b' '..0x7f).contains(&c),
        b"punct" => c.is_ascii_punctuation(),
        b"space" => matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'),
        b"upper" => c.is_ascii_uppercase(),
        b"xdigit" => c.is_ascii_hexdigit(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
