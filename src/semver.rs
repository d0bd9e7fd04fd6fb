//! Semantic versions, version ranges and release versions.
//!
//! `opm` reads versions with the Go library blang/semver v4 (`Parse`, `ParseRange`) and checks
//! release versions with operator-registry's own rules built on blang's pre-release
//! identifiers. Users see the library's error texts verbatim (for example in
//! `error parsing bundle "b" version "v": <text>` or `invalid skipRange "r": <text>`), so this
//! module reproduces both the grammar and every message byte for byte, including the quirks of
//! blang's range tokenizer and wildcard expansion. The one deliberate difference: a range with
//! an empty alternative (`a || || b`) is rejected here, where blang accepts it and then crashes
//! when the range is evaluated.

use crate::encoding::json::go_quote;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// A version, range or release that does not parse. `Display` gives the upstream text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SemverError {
    message: String,
}

impl SemverError {
    fn new(message: impl Into<String>) -> Self {
        SemverError {
            message: message.into(),
        }
    }

    /// The error text, identical to what upstream prints.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// One dot-separated pre-release identifier (`rc`, `1`, `alpha-2`).
///
/// The derived order is semver precedence: numeric identifiers sort below alphanumeric ones,
/// numbers compare numerically and strings byte by byte (blang `PRVersion.Compare`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PreRelease {
    Numeric(u64),
    Alpha(String),
}

impl PreRelease {
    /// Parses one identifier the way blang `NewPRVersion` does: non-empty, only
    /// `[0-9A-Za-z-]`, and an all-digit identifier must not have leading zeros.
    pub fn parse(s: &str) -> Result<PreRelease, SemverError> {
        if s.is_empty() {
            return Err(SemverError::new("Prerelease is empty"));
        }
        if contains_only_digits(s) {
            if has_leading_zeroes(s) {
                return Err(SemverError::new(format!(
                    "Numeric PreRelease version must not contain leading zeroes {}",
                    go_quote(s)
                )));
            }
            return parse_go_uint(s).map(PreRelease::Numeric);
        }
        if contains_only_alphanumerics(s) {
            return Ok(PreRelease::Alpha(s.to_string()));
        }
        Err(SemverError::new(format!(
            "Invalid character(s) found in prerelease {}",
            go_quote(s)
        )))
    }
}

impl fmt::Display for PreRelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PreRelease::Numeric(n) => write!(f, "{n}"),
            PreRelease::Alpha(s) => f.write_str(s),
        }
    }
}

/// A strict semantic version `MAJOR.MINOR.PATCH[-PRE][+BUILD]`.
///
/// Equality, ordering and hashing follow semver precedence and therefore **ignore build
/// metadata**: `1.0.0+a == 1.0.0+b`, as with blang's `Compare`, which every upstream
/// comparison (channel ordering, range matching, duplicate detection by version) relies on.
/// Compare the `build` fields or the `Display` text when the metadata matters.
#[derive(Debug, Clone)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Vec<PreRelease>,
    pub build: Vec<String>,
}

impl Version {
    /// A release version without pre-release or build parts.
    pub fn new(major: u64, minor: u64, patch: u64) -> Version {
        Version {
            major,
            minor,
            patch,
            pre: Vec::new(),
            build: Vec::new(),
        }
    }

    /// blang `ParseTolerant` (CSV `spec.version`): trims spaces and one leading `v`, strips
    /// leading zeros of the first three dot-parts (a part left empty or starting with a
    /// non-digit gets a `0` in front, so `abc` fails as `0abc`), pads `1` and `1.2` to three
    /// parts, then parses strictly.
    pub fn parse_tolerant(s: &str) -> Result<Version, SemverError> {
        let s = s.trim();
        let s = s.strip_prefix('v').unwrap_or(s);
        let mut parts: Vec<String> = s.splitn(3, '.').map(str::to_string).collect();
        for part in &mut parts {
            if part.len() > 1 {
                let trimmed = part.trim_start_matches('0');
                *part = if trimmed.bytes().next().is_some_and(|b| b.is_ascii_digit()) {
                    trimmed.to_string()
                } else {
                    format!("0{trimmed}")
                };
            }
        }
        if parts.len() < 3 {
            if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
                return Err(SemverError::new(
                    "Short version cannot contain PreRelease/Build meta data",
                ));
            }
            while parts.len() < 3 {
                parts.push("0".to_string());
            }
        }
        Version::parse(&parts.join("."))
    }

    /// Strict parse, mirroring blang `Parse` step by step so that the first problem found
    /// (and its message) is the same: split at the first two dots, cut build metadata at the
    /// first `+`, then the pre-release at the first `-` of what is left, validate major,
    /// minor, patch, then each pre-release identifier, then each build identifier.
    pub fn parse(s: &str) -> Result<Version, SemverError> {
        if s.is_empty() {
            return Err(SemverError::new("Version string empty"));
        }
        let parts: Vec<&str> = s.splitn(3, '.').collect();
        if parts.len() != 3 {
            return Err(SemverError::new("No Major.Minor.Patch elements found"));
        }
        let major = parse_number_part(parts[0], "major", "Major")?;
        let minor = parse_number_part(parts[1], "minor", "Minor")?;

        let mut patch_str = parts[2];
        let mut build_parts: Vec<&str> = Vec::new();
        if let Some(i) = patch_str.find('+') {
            build_parts = patch_str[i + 1..].split('.').collect();
            patch_str = &patch_str[..i];
        }
        let mut pre_parts: Vec<&str> = Vec::new();
        if let Some(i) = patch_str.find('-') {
            pre_parts = patch_str[i + 1..].split('.').collect();
            patch_str = &patch_str[..i];
        }
        let patch = parse_number_part(patch_str, "patch", "Patch")?;

        let pre = pre_parts
            .into_iter()
            .map(PreRelease::parse)
            .collect::<Result<Vec<_>, _>>()?;

        let mut build = Vec::with_capacity(build_parts.len());
        for b in build_parts {
            if b.is_empty() {
                return Err(SemverError::new("Build meta data is empty"));
            }
            if !contains_only_alphanumerics(b) {
                return Err(SemverError::new(format!(
                    "Invalid character(s) found in build meta data {}",
                    go_quote(b)
                )));
            }
            build.push(b.to_string());
        }

        Ok(Version {
            major,
            minor,
            patch,
            pre,
            build,
        })
    }
}

/// Validates one of major/minor/patch with blang's checks in blang's order: characters,
/// leading zeros, then the unsigned 64-bit conversion (whose `strconv` error is passed on).
fn parse_number_part(part: &str, lower: &str, title: &str) -> Result<u64, SemverError> {
    if !contains_only_digits(part) {
        return Err(SemverError::new(format!(
            "Invalid character(s) found in {lower} number {}",
            go_quote(part)
        )));
    }
    if has_leading_zeroes(part) {
        return Err(SemverError::new(format!(
            "{title} number must not contain leading zeroes {}",
            go_quote(part)
        )));
    }
    parse_go_uint(part)
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl Hash for Version {
    // Consistent with `Eq`: build metadata is left out.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.major.hash(state);
        self.minor.hash(state);
        self.patch.hash(state);
        self.pre.hash(state);
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    /// blang `Version.Compare`: numeric core, then "has pre-release" sorts first, then the
    /// identifiers pairwise, then the shorter list first.
    fn cmp(&self, other: &Self) -> Ordering {
        self.major
            .cmp(&other.major)
            .then(self.minor.cmp(&other.minor))
            .then(self.patch.cmp(&other.patch))
            .then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => self.pre.cmp(&other.pre),
            })
    }
}

impl fmt::Display for Version {
    /// Canonical text as blang `Version.String` writes it, build metadata included.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        for (i, p) in self.pre.iter().enumerate() {
            f.write_str(if i == 0 { "-" } else { "." })?;
            write!(f, "{p}")?;
        }
        for (i, b) in self.build.iter().enumerate() {
            f.write_str(if i == 0 { "+" } else { "." })?;
            f.write_str(b)?;
        }
        Ok(())
    }
}

/// A comparison operator of a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeOp {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

impl RangeOp {
    /// blang `parseComparator`: the accepted spellings, nothing else (`~`, `^`, `=>` fail).
    fn parse(s: &str) -> Option<RangeOp> {
        match s {
            "" | "=" | "==" => Some(RangeOp::Eq),
            "!" | "!=" => Some(RangeOp::Ne),
            ">" => Some(RangeOp::Gt),
            ">=" => Some(RangeOp::Ge),
            "<" => Some(RangeOp::Lt),
            "<=" => Some(RangeOp::Le),
            _ => None,
        }
    }

    fn holds(self, ordering: Ordering) -> bool {
        match self {
            RangeOp::Eq => ordering == Ordering::Equal,
            RangeOp::Ne => ordering != Ordering::Equal,
            RangeOp::Gt => ordering == Ordering::Greater,
            RangeOp::Ge => ordering != Ordering::Less,
            RangeOp::Lt => ordering == Ordering::Less,
            RangeOp::Le => ordering != Ordering::Greater,
        }
    }
}

/// One `<op><version>` condition of a range, after wildcard expansion.
#[derive(Debug, Clone)]
pub struct Comparator {
    pub op: RangeOp,
    pub version: Version,
}

impl Comparator {
    /// Plain precedence comparison: pre-releases are not excluded (`<1.2.3` matches
    /// `1.2.3-rc.1`) and build metadata is ignored.
    pub fn matches(&self, v: &Version) -> bool {
        self.op.holds(v.cmp(&self.version))
    }
}

/// A blang range: alternatives separated by `||`, each a list of comparators that must all
/// hold. `Range::parse(">=1.0.0 <2.0.0 || 3.x")`.
#[derive(Debug, Clone)]
pub struct Range {
    alternatives: Vec<Vec<Comparator>>,
}

impl Range {
    /// blang `ParseRange`: tokenize, split at `||`, expand wildcards in every token, then
    /// build the comparators; each stage runs over the whole input before the next, so the
    /// error reported for an input with several problems is the one blang reports.
    pub fn parse(s: &str) -> Result<Range, SemverError> {
        let tokens = split_and_trim(s);
        let or_parts = split_or_parts(tokens)?;
        let expanded = expand_wildcard_version(or_parts)?;
        let mut alternatives = Vec::with_capacity(expanded.len());
        for part in &expanded {
            let mut comparators = Vec::with_capacity(part.len());
            for token in part {
                let (op_str, v_str) = split_comparator_version(token)?;
                comparators.push(build_comparator(token, &op_str, &v_str)?);
            }
            alternatives.push(comparators);
        }
        // blang accepts `a || || b` but its evaluation then calls a nil function and
        // crashes; refuse it once everything else has parsed, so that inputs upstream
        // rejects keep upstream's message.
        if alternatives.iter().any(Vec::is_empty) {
            return Err(SemverError::new("Empty element in range between two '||'"));
        }
        Ok(Range { alternatives })
    }

    /// True when every comparator of at least one alternative holds.
    pub fn contains(&self, v: &Version) -> bool {
        self.alternatives
            .iter()
            .any(|alt| alt.iter().all(|c| c.matches(v)))
    }

    /// The alternatives after wildcard expansion (for display and diagnostics).
    pub fn alternatives(&self) -> &[Vec<Comparator>] {
        &self.alternatives
    }
}

/// blang `buildVersionRange`, with the `Could not parse Range` wrapping `ParseRange` adds.
fn build_comparator(token: &str, op_str: &str, v_str: &str) -> Result<Comparator, SemverError> {
    let joined = format!("{op_str}{v_str}");
    let Some(op) = RangeOp::parse(op_str) else {
        return Err(SemverError::new(format!(
            "Could not parse Range {}: Could not parse comparator {} in {}",
            go_quote(token),
            go_quote(op_str),
            go_quote(&joined)
        )));
    };
    match Version::parse(v_str) {
        Ok(version) => Ok(Comparator { op, version }),
        Err(e) => Err(SemverError::new(format!(
            "Could not parse Range {}: Could not parse version {} in {}: {}",
            go_quote(token),
            go_quote(v_str),
            go_quote(&joined),
            e
        ))),
    }
}

/// blang `splitAndTrim`: split on ASCII spaces, except a space whose last preceding non-space
/// byte is `>`, `<` or `=` (so `> 1.0.0` stays one token); pieces shorter than two bytes
/// (before the spaces inside them are removed) are dropped, which is why `*`, `x` or a lone
/// `!` silently vanish.
fn split_and_trim(s: &str) -> Vec<String> {
    let bytes = s.as_bytes();
    let mut pieces: Vec<&str> = Vec::new();
    let mut last = 0usize;
    let mut last_char = 0u8;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b' ' && !matches!(last_char, b'>' | b'<' | b'=') {
            if last + 1 < i {
                pieces.push(&s[last..i]);
            }
            last = i + 1;
        } else if b != b' ' {
            last_char = b;
        }
    }
    if last + 1 < bytes.len() {
        pieces.push(&s[last..]);
    }
    pieces.into_iter().map(|p| p.replace(' ', "")).collect()
}

/// blang `splitORParts`.
fn split_or_parts(tokens: Vec<String>) -> Result<Vec<Vec<String>>, SemverError> {
    let mut parts = Vec::new();
    let mut current = Vec::new();
    let total = tokens.len();
    let mut after_last_or = 0usize;
    for (i, token) in tokens.into_iter().enumerate() {
        if token == "||" {
            if i == 0 {
                return Err(SemverError::new("First element in range is '||'"));
            }
            parts.push(std::mem::take(&mut current));
            after_last_or = i + 1;
        } else {
            current.push(token);
        }
    }
    if after_last_or == total {
        return Err(SemverError::new("Last element in range is '||'"));
    }
    parts.push(current);
    Ok(parts)
}

/// blang `splitComparatorVersion`: the operator is everything before the first Unicode
/// decimal digit, trimmed of white space; the version is the rest.
fn split_comparator_version(s: &str) -> Result<(String, String), SemverError> {
    match s.char_indices().find(|&(_, c)| is_go_digit(c)) {
        Some((i, _)) => Ok((s[..i].trim().to_string(), s[i..].to_string())),
        None => Err(SemverError::new(format!(
            "Could not get version from string: {}",
            go_quote(s)
        ))),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Wildcard {
    None,
    Major,
    Minor,
    Patch,
}

/// blang `getWildcardType`: decided by the number of dot-parts of the version and whether the
/// last one is exactly `x` (so `1.x.x` counts as a patch wildcard).
fn wildcard_type(v: &str) -> Wildcard {
    let parts: Vec<&str> = v.split('.').collect();
    if parts.last() != Some(&"x") {
        return Wildcard::None;
    }
    match parts.len() {
        1 => Wildcard::Major,
        2 => Wildcard::Minor,
        3 => Wildcard::Patch,
        _ => Wildcard::None,
    }
}

/// blang `createVersionFromWildcard`: first `.x.x` becomes `.x`, first `.x` becomes `.0`, and
/// a two-part result gets `.0` appended.
fn flatten_wildcard(v: &str) -> String {
    let flat = v.replacen(".x.x", ".x", 1).replacen(".x", ".0", 1);
    if flat.split('.').count() == 2 {
        format!("{flat}.0")
    } else {
        flat
    }
}

/// blang `incrementMajorVersion` / `incrementMinorVersion`: Go `strconv.Atoi` on one
/// dot-part, plus one (wrapping like Go's `int`), joined back. Upstream discards the error and
/// uses an empty version instead, so a failure yields `None` and the caller does the same.
fn increment_part(v: &str, index: usize) -> Option<String> {
    let mut parts: Vec<String> = v.split('.').map(str::to_string).collect();
    let n = parse_go_atoi(parts.get(index)?)?;
    parts[index] = n.wrapping_add(1).to_string();
    Some(parts.join("."))
}

/// blang `expandWildcardVersion`: every token must contain a digit; tokens containing `.x`
/// are rewritten into plain comparators. Operators outside the switch (such as `~`) are
/// dropped there, exactly as upstream does, so `~1.x` ends up as `1.0.0`.
fn expand_wildcard_version(parts: Vec<Vec<String>>) -> Result<Vec<Vec<String>>, SemverError> {
    let mut expanded = Vec::with_capacity(parts.len());
    for part in parts {
        let mut new_part = Vec::with_capacity(part.len());
        for token in part {
            let (op_str, v_str) = split_comparator_version(&token)?;
            if !token.contains(".x") {
                new_part.push(token);
                continue;
            }
            let kind = wildcard_type(&v_str);
            let flat = flatten_wildcard(&v_str);
            let (result_op, increment) = match op_str.as_str() {
                ">" => (">=", true),
                ">=" => (">=", false),
                "<" => ("<", false),
                "<=" => ("<", true),
                "" | "=" | "==" => {
                    new_part.push(format!(">={flat}"));
                    ("<", true)
                }
                "!=" | "!" => {
                    new_part.push(format!("<{flat}"));
                    (">=", true)
                }
                _ => ("", false),
            };
            let result_version = if increment {
                match kind {
                    Wildcard::Patch => increment_part(&flat, 1).unwrap_or_default(),
                    Wildcard::Minor => increment_part(&flat, 0).unwrap_or_default(),
                    Wildcard::None | Wildcard::Major => String::new(),
                }
            } else {
                flat
            };
            new_part.push(format!("{result_op}{result_version}"));
        }
        expanded.push(new_part);
    }
    Ok(expanded)
}

/// Longest accepted release string (operator-registry's release version rule).
pub const RELEASE_MAX_LENGTH: usize = 20;

/// Parses a bundle release (`olm.package` property `release`): dot-separated identifiers with
/// the pre-release identifier rules, at most 20 bytes. Errors read
/// `invalid release "<r>": exceeds maximum length of 20 characters` or
/// `invalid release "<r>": segment <i>: <identifier error>`, one `segment` line per bad
/// identifier joined by newlines (Go `errors.Join`). An empty string means "no release" and
/// yields an empty list; callers decide whether the field was present.
pub fn parse_release(s: &str) -> Result<Vec<PreRelease>, SemverError> {
    if s.is_empty() {
        return Ok(Vec::new());
    }
    if s.len() > RELEASE_MAX_LENGTH {
        return Err(SemverError::new(format!(
            "invalid release {}: exceeds maximum length of {RELEASE_MAX_LENGTH} characters",
            go_quote(s)
        )));
    }
    let mut release = Vec::new();
    let mut problems = Vec::new();
    for (i, segment) in s.split('.').enumerate() {
        match PreRelease::parse(segment) {
            Ok(p) => release.push(p),
            Err(e) => problems.push(format!("segment {i}: {e}")),
        }
    }
    if problems.is_empty() {
        Ok(release)
    } else {
        Err(SemverError::new(format!(
            "invalid release {}: {}",
            go_quote(s),
            problems.join("\n")
        )))
    }
}

/// Orders two releases of the same version: no release sorts before any release, otherwise
/// identifiers compare as pre-release identifiers and a shorter equal prefix sorts first.
pub fn compare_releases(a: &[PreRelease], b: &[PreRelease]) -> Ordering {
    a.cmp(b)
}

/// The characters blang's `numbers` set allows.
fn contains_only_digits(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit())
}

/// blang's `alphanum` set: ASCII letters, digits and `-`.
fn contains_only_alphanumerics(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// blang `hasLeadingZeroes`.
fn has_leading_zeroes(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// Go `strconv.ParseUint(s, 10, 64)` for a string already known to hold only ASCII digits,
/// with Go's error texts for the two failures left (empty, too large).
fn parse_go_uint(s: &str) -> Result<u64, SemverError> {
    if s.is_empty() {
        return Err(SemverError::new(format!(
            "strconv.ParseUint: parsing {}: invalid syntax",
            go_quote(s)
        )));
    }
    s.parse::<u64>().map_err(|_| {
        SemverError::new(format!(
            "strconv.ParseUint: parsing {}: value out of range",
            go_quote(s)
        ))
    })
}

/// Go `strconv.Atoi`: an optional sign, then one or more ASCII digits, fitting an `i64`.
fn parse_go_atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.strip_prefix('+').unwrap_or(s).parse::<i64>().ok()
}

/// Go `unicode.IsDigit` (general category Nd, Unicode 15.0 as in current Go releases). The
/// operator/version split of a range token happens at the first such character.
fn is_go_digit(c: char) -> bool {
    if c.is_ascii_digit() {
        return true;
    }
    if (c as u32) < 0x100 {
        return false;
    }
    // First code point of each run of ten decimal digits.
    const ZEROS: &[u32] = &[
        0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
        0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0,
        0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0,
        0xAA50, 0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0,
        0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0,
        0x11F50, 0x16A60, 0x16AC0, 0x16B50, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E950, 0x1FBF0,
    ];
    let cp = c as u32;
    // Mathematical alphanumeric digits form one longer run.
    (0x1D7CE..=0x1D7FF).contains(&cp) || ZEROS.iter().any(|&z| (z..z + 10).contains(&cp))
}

#[cfg(test)]
mod tests;
