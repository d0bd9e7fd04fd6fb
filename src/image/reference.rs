//! Container image references (`quay.io/org/repo:tag@sha256:…`).
//!
//! Upstream `opm` checks bundle and related image pull specs with `ParseNormalizedNamed` from
//! `go.podman.io/image/v5/docker/reference`, the containers/image copy of the Docker
//! distribution reference grammar, and uses `github.com/opencontainers/go-digest` v1.0.0 for
//! digests. This module reproduces that parser and its error texts. The copy differs from
//! today's github.com/distribution/reference in ways users can see, and we follow the copy:
//!
//! * the first path element is a registry only if it contains `.` or `:` or is `localhost`
//!   (so `Foo/bar` is `docker.io/Foo/bar` and is rejected as upper-case);
//! * the upper-case message does not name the repository
//!   (`invalid reference format: repository name must be lowercase`);
//! * the 255-character limit applies to the whole name, registry included.
//!
//! One extension: registries written as a bracketed IPv6 address (`[::1]:5000/x`) are
//! accepted, as in distribution/reference v0.6, so that such references can be pulled.
//! Upstream `opm validate` rejects them with `invalid reference format`.

use std::fmt;

/// Registry used when a reference names none.
pub const DEFAULT_DOMAIN: &str = "docker.io";
/// Registry alias rewritten to [`DEFAULT_DOMAIN`].
pub const LEGACY_DEFAULT_DOMAIN: &str = "index.docker.io";
/// Namespace of single-element Docker Hub names (`busybox` → `library/busybox`).
pub const OFFICIAL_REPO_NAME: &str = "library";
/// Tag assumed when a reference has neither tag nor digest.
pub const DEFAULT_TAG: &str = "latest";
/// Longest repository name, registry included.
pub const NAME_TOTAL_LENGTH_MAX: usize = 255;

/// Why a reference was refused. `Display` gives the upstream text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReferenceError {
    /// `ErrReferenceInvalidFormat`: the string does not follow the grammar.
    #[error("invalid reference format")]
    InvalidFormat,
    /// `ParseNormalizedNamed`: the repository path (up to the first `:`) has upper case.
    #[error("invalid reference format: repository name must be lowercase")]
    RemoteNameNotLowercase,
    /// `ErrNameContainsUppercase`: the grammar would match once lower-cased.
    #[error("repository name must be lowercase")]
    NameContainsUppercase,
    /// `ErrNameEmpty`.
    #[error("repository name must have at least one component")]
    NameEmpty,
    /// `ErrNameTooLong`.
    #[error("repository name must not be more than 255 characters")]
    NameTooLong,
    /// `ErrNameNotCanonical` (from [`Reference::parse_named`]).
    #[error("repository name must be canonical")]
    NameNotCanonical,
    /// A bare 64-hex-digit string, which would be an image ID, not a name.
    #[error("invalid repository name ({0}), cannot specify 64-byte hexadecimal strings")]
    HexIdentifier(String),
    /// go-digest `ErrDigestInvalidFormat`.
    #[error("invalid checksum digest format")]
    DigestInvalidFormat,
    /// go-digest `ErrDigestInvalidLength`.
    #[error("invalid checksum digest length")]
    DigestInvalidLength,
    /// go-digest `ErrDigestUnsupported`.
    #[error("unsupported digest algorithm")]
    DigestUnsupported,
}

/// A normalized, named image reference.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Reference {
    /// Registry host with optional port (`docker.io`, `localhost:5000`, `[::1]:5000`).
    /// Empty when the first element looked like a registry to the normalizer (it has a `.`)
    /// but is not one in the grammar, e.g. `foo_bar.com/app`: upstream then keeps the whole
    /// name as a path, and so do we.
    pub domain: String,
    /// Repository path below the registry (`library/busybox`, `org/repo`).
    pub path: String,
    /// Tag without the `:`.
    pub tag: Option<String>,
    /// Digest `algorithm:hex` without the `@`.
    pub digest: Option<String>,
}

impl Reference {
    /// `ParseNormalizedNamed`: accepts familiar forms (`busybox`, `org/repo:tag`) and fills in
    /// `docker.io` and `library/`; no default tag is added (see [`Reference::with_default_tag`]).
    pub fn parse_normalized(s: &str) -> Result<Reference, ReferenceError> {
        if is_identifier(s) {
            return Err(ReferenceError::HexIdentifier(s.to_string()));
        }
        let (domain, remainder) = split_docker_domain(s);
        let remote_name = remainder.split(':').next().unwrap_or_default();
        if remote_name.to_lowercase() != remote_name {
            return Err(ReferenceError::RemoteNameNotLowercase);
        }
        parse_reference(&format!("{domain}/{remainder}"))
    }

    /// `ParseNamed`: like [`Reference::parse_normalized`] but the input must already be in
    /// the fully qualified form it normalizes to.
    pub fn parse_named(s: &str) -> Result<Reference, ReferenceError> {
        let named = Reference::parse_normalized(s)?;
        if named.to_string() != s {
            return Err(ReferenceError::NameNotCanonical);
        }
        Ok(named)
    }

    /// Full repository name `domain/path` (just `path` in the rare registry-less case, see
    /// [`Reference::domain`]).
    pub fn name(&self) -> String {
        if self.domain.is_empty() {
            self.path.clone()
        } else {
            format!("{}/{}", self.domain, self.path)
        }
    }

    /// `TagNameOnly`: the same reference with tag `latest` when it has neither tag nor
    /// digest.
    pub fn with_default_tag(&self) -> Reference {
        let mut r = self.clone();
        if r.tag.is_none() && r.digest.is_none() {
            r.tag = Some(DEFAULT_TAG.to_string());
        }
        r
    }

    /// `ParseDockerRef` normalization: a reference with both tag and digest keeps only the
    /// digest; one with neither gets `latest`.
    pub fn docker_ref(&self) -> Reference {
        let mut r = self.with_default_tag();
        if r.digest.is_some() {
            r.tag = None;
        }
        r
    }

    /// `FamiliarName`: the short name users type, with `docker.io/` removed on Docker Hub, and
    /// `library/` too when one name follows it (`docker.io/library/a/b` is `library/a/b`,
    /// which reads back as itself, not `a/b`, which would name `docker.io/a/b`).
    pub fn familiar_name(&self) -> String {
        if self.domain != DEFAULT_DOMAIN {
            return self.name();
        }
        match self.path.split_once('/') {
            Some((OFFICIAL_REPO_NAME, rest)) if !rest.contains('/') => rest.to_string(),
            _ => self.path.clone(),
        }
    }

    /// `FamiliarString`: the familiar name with tag and digest.
    pub fn familiar_string(&self) -> String {
        let mut out = self.familiar_name();
        push_suffixes(&mut out, self);
        out
    }
}

impl fmt::Display for Reference {
    /// The full normalized form `domain/path[:tag][@digest]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = self.name();
        push_suffixes(&mut out, self);
        f.write_str(&out)
    }
}

fn push_suffixes(out: &mut String, r: &Reference) {
    if let Some(tag) = &r.tag {
        out.push(':');
        out.push_str(tag);
    }
    if let Some(digest) = &r.digest {
        out.push('@');
        out.push_str(digest);
    }
}

/// `splitDockerDomain` of the containers/image copy: the text before the first `/` is the
/// registry only when it contains `.` or `:` or is `localhost`; `index.docker.io` becomes
/// `docker.io`; a single-element Docker Hub path gets the `library/` namespace.
fn split_docker_domain(name: &str) -> (String, String) {
    let (mut domain, mut remainder) = match name.split_once('/') {
        Some((first, rest)) if first.contains(['.', ':']) || first == "localhost" => {
            (first.to_string(), rest.to_string())
        }
        _ => (DEFAULT_DOMAIN.to_string(), name.to_string()),
    };
    if domain == LEGACY_DEFAULT_DOMAIN {
        domain = DEFAULT_DOMAIN.to_string();
    }
    if domain == DEFAULT_DOMAIN && !remainder.contains('/') {
        remainder = format!("{OFFICIAL_REPO_NAME}/{remainder}");
    }
    (domain, remainder)
}

/// `Parse` of the containers/image copy, on an already normalized string: match the reference
/// grammar (classifying failures as upper case or plain format errors), check the name
/// length, split registry and path, then validate the digest with go-digest's rules.
fn parse_reference(s: &str) -> Result<Reference, ReferenceError> {
    let Some(parts) = match_reference(s) else {
        if s.is_empty() {
            return Err(ReferenceError::NameEmpty);
        }
        if match_reference(&s.to_lowercase()).is_some() {
            return Err(ReferenceError::NameContainsUppercase);
        }
        return Err(ReferenceError::InvalidFormat);
    };
    if parts.name.len() > NAME_TOTAL_LENGTH_MAX {
        return Err(ReferenceError::NameTooLong);
    }
    let (domain, path) = split_name(parts.name);
    if let Some(digest) = parts.digest {
        validate_digest(digest)?;
    }
    Ok(Reference {
        domain: domain.to_string(),
        path: path.to_string(),
        tag: parts.tag.map(str::to_string),
        digest: parts.digest.map(str::to_string),
    })
}

/// The three captures of the anchored reference pattern `name[:tag][@digest]`.
struct ReferenceParts<'a> {
    name: &'a str,
    tag: Option<&'a str>,
    digest: Option<&'a str>,
}

/// Matches the whole reference pattern. The split is unambiguous: neither name nor tag may
/// contain `@`, so the digest follows the first `@`; a `:` after the last `/` cannot be a
/// registry port (which must be followed by `/`), so it introduces the tag.
fn match_reference(s: &str) -> Option<ReferenceParts<'_>> {
    let (rest, digest) = match s.split_once('@') {
        Some((rest, digest)) => {
            if !is_digest_pattern(digest) {
                return None;
            }
            (rest, Some(digest))
        }
        None => (s, None),
    };
    let (name, tag) = match rest.rfind(':') {
        Some(i) if !rest[i..].contains('/') => {
            let tag = &rest[i + 1..];
            if !is_tag(tag) {
                return None;
            }
            (&rest[..i], Some(tag))
        }
        _ => (rest, None),
    };
    if !is_name(name) {
        return None;
    }
    Some(ReferenceParts { name, tag, digest })
}

/// `[domain "/"] path-component ("/" path-component)*`.
fn is_name(name: &str) -> bool {
    if is_remote_name(name) {
        return true;
    }
    match name.split_once('/') {
        Some((domain, path)) => is_domain(domain) && is_remote_name(path),
        None => false,
    }
}

/// The anchored name pattern's captures: the optional registry group is tried first, so a
/// first element that is a valid registry is taken as one (`a/b` → `a`, `b`), exactly as
/// Go's leftmost-first matching does.
fn split_name(name: &str) -> (&str, &str) {
    match name.split_once('/') {
        Some((domain, path)) if is_domain(domain) && is_remote_name(path) => (domain, path),
        _ => ("", name),
    }
}

/// `path-component ("/" path-component)*`.
fn is_remote_name(path: &str) -> bool {
    path.split('/').all(is_path_component)
}

/// `[a-z0-9]+ (separator [a-z0-9]+)*` where a separator is `.`, `_`, `__` or one or more
/// `-`.
fn is_path_component(component: &str) -> bool {
    let bytes = component.as_bytes();
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if !bytes.first().is_some_and(|&b| alnum(b)) || !bytes.last().is_some_and(|&b| alnum(b)) {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        if alnum(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && matches!(bytes[i], b'.' | b'_' | b'-') {
            i += 1;
        }
        let separator = &component[start..i];
        let valid = matches!(separator, "." | "_" | "__")
            || (!separator.is_empty() && separator.bytes().all(|b| b == b'-'));
        if !valid {
            return false;
        }
    }
    true
}

/// Registry: `host [":" port]`, where the host is dot-separated labels of letters, digits
/// and inner hyphens (upper case allowed), or a bracketed IPv6 address (our extension, see
/// the module documentation).
fn is_domain(domain: &str) -> bool {
    let (host_ok, port) = match domain.strip_prefix('[') {
        Some(bracketed) => match bracketed.split_once(']') {
            Some((address, port)) => (
                !address.is_empty() && address.bytes().all(|b| b.is_ascii_hexdigit() || b == b':'),
                port,
            ),
            None => return false,
        },
        None => {
            let (host, port) = match domain.find(':') {
                Some(i) => domain.split_at(i),
                None => (domain, ""),
            };
            (host.split('.').all(is_domain_component), port)
        }
    };
    let port_ok = match port.strip_prefix(':') {
        None => port.is_empty(),
        Some(digits) => !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()),
    };
    host_ok && port_ok
}

/// `[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]`.
fn is_domain_component(component: &str) -> bool {
    let bytes = component.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        }
        _ => false,
    }
}

/// `[\w][\w.-]{0,127}` with ASCII word characters.
fn is_tag(tag: &str) -> bool {
    let bytes = tag.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    !bytes.is_empty()
        && bytes.len() <= 128
        && word(bytes[0])
        && bytes.iter().all(|&b| word(b) || b == b'.' || b == b'-')
}

/// The reference grammar's digest pattern:
/// `[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}`.
fn is_digest_pattern(digest: &str) -> bool {
    let Some((algorithm, hex)) = digest.split_once(':') else {
        return false;
    };
    let component = |c: &str| {
        let b = c.as_bytes();
        !b.is_empty() && b[0].is_ascii_alphabetic() && b.iter().all(u8::is_ascii_alphanumeric)
    };
    algorithm.split(['-', '_', '+', '.']).all(component)
        && hex.len() >= 32
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// go-digest v1.0.0 `Digest.Validate` for a string that already matched the reference
/// grammar: sha256, sha384 and sha512 are supported (the ones upstream `opm` links in) and
/// need exactly 64/96/128 lower-case hex digits; any other algorithm is "unsupported" when it
/// follows go-digest's lower-case algorithm grammar and "invalid format" otherwise.
fn validate_digest(digest: &str) -> Result<(), ReferenceError> {
    let Some((algorithm, encoded)) = digest.split_once(':') else {
        return Err(ReferenceError::DigestInvalidFormat);
    };
    if algorithm.is_empty() || encoded.is_empty() {
        return Err(ReferenceError::DigestInvalidFormat);
    }
    let hex_len = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => {
            return Err(if is_go_digest_pattern(algorithm, encoded) {
                ReferenceError::DigestUnsupported
            } else {
                ReferenceError::DigestInvalidFormat
            });
        }
    };
    if encoded.len() != hex_len {
        return Err(ReferenceError::DigestInvalidLength);
    }
    if !encoded
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(ReferenceError::DigestInvalidFormat);
    }
    Ok(())
}

/// go-digest `DigestRegexpAnchored`: `[a-z0-9]+([.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+`.
fn is_go_digest_pattern(algorithm: &str, encoded: &str) -> bool {
    let component = |c: &str| {
        !c.is_empty()
            && c.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    };
    algorithm.split(['.', '+', '_', '-']).all(component)
        && !encoded.is_empty()
        && encoded
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'=' | b'_' | b'-'))
}

/// The anchored identifier pattern `[a-f0-9]{64}`.
fn is_identifier(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests;
