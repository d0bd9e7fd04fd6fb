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
mod tests {
    use super::*;

    const H64: &str = "e9d32369b107d0ceeee228c4dc19eff372c26009f29a2fc8f22327508f608542";

    fn ok(s: &str) -> Reference {
        Reference::parse_normalized(s).unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }

    fn err(s: &str) -> String {
        match Reference::parse_normalized(s) {
            Ok(r) => panic!("{s:?} parsed as {r}"),
            Err(e) => e.to_string(),
        }
    }

    /// Input, then the expected domain, path, tag and digest.
    type Expected<'a> = (String, &'a str, &'a str, Option<&'a str>, Option<String>);

    #[test]
    fn normalization() {
        let h96 = "a".repeat(96);
        let h128 = "b".repeat(128);
        let cases: Vec<Expected> = vec![
            ("busybox".into(), "docker.io", "library/busybox", None, None),
            (
                "busybox:1.36".into(),
                "docker.io",
                "library/busybox",
                Some("1.36"),
                None,
            ),
            (
                "docker.io/library/busybox".into(),
                "docker.io",
                "library/busybox",
                None,
                None,
            ),
            (
                "docker.io/busybox".into(),
                "docker.io",
                "library/busybox",
                None,
                None,
            ),
            (
                "index.docker.io/busybox".into(),
                "docker.io",
                "library/busybox",
                None,
                None,
            ),
            (
                "index.docker.io/org/repo:v1".into(),
                "docker.io",
                "org/repo",
                Some("v1"),
                None,
            ),
            (
                "devopstales/trivy-operator:2.1".into(),
                "docker.io",
                "devopstales/trivy-operator",
                Some("2.1"),
                None,
            ),
            ("localhost/foo".into(), "localhost", "foo", None, None),
            (
                "localhost:5000/foo".into(),
                "localhost:5000",
                "foo",
                None,
                None,
            ),
            (
                "localhost:5000".into(),
                "docker.io",
                "library/localhost",
                Some("5000"),
                None,
            ),
            (
                "127.0.0.1:5000/x:v1".into(),
                "127.0.0.1:5000",
                "x",
                Some("v1"),
                None,
            ),
            ("[::1]:5000/x".into(), "[::1]:5000", "x", None, None),
            (
                "[2001:db8::1]/x/y:t".into(),
                "[2001:db8::1]",
                "x/y",
                Some("t"),
                None,
            ),
            ("Quay.IO/foo".into(), "Quay.IO", "foo", None, None),
            (
                "quay.io/foo/op:v1".into(),
                "quay.io",
                "foo/op",
                Some("v1"),
                None,
            ),
            (
                "quay.io/foo/bar:Tag_1.2-3".into(),
                "quay.io",
                "foo/bar",
                Some("Tag_1.2-3"),
                None,
            ),
            (
                "registry.io/foo/project--id.module--name.ver---sion--name".into(),
                "registry.io",
                "foo/project--id.module--name.ver---sion--name",
                None,
                None,
            ),
            (
                "example.com/some_separator__underscore/myimage".into(),
                "example.com",
                "some_separator__underscore/myimage",
                None,
                None,
            ),
            (
                "gcr.io/knative-releases/knative.dev/eventing-kogito/cmd/controller:v1.1.0".into(),
                "gcr.io",
                "knative-releases/knative.dev/eventing-kogito/cmd/controller",
                Some("v1.1.0"),
                None,
            ),
            (
                format!("docker.io/bitnami/kubectl@sha256:{H64}"),
                "docker.io",
                "bitnami/kubectl",
                None,
                Some(format!("sha256:{H64}")),
            ),
            (
                format!("localhost:5000/foo/foo-bundle@sha256:{}", "a".repeat(64)),
                "localhost:5000",
                "foo/foo-bundle",
                None,
                Some(format!("sha256:{}", "a".repeat(64))),
            ),
            (
                format!("quay.io/a/b:v1@sha384:{h96}"),
                "quay.io",
                "a/b",
                Some("v1"),
                Some(format!("sha384:{h96}")),
            ),
            (
                format!("a/b@sha512:{h128}"),
                "docker.io",
                "a/b",
                None,
                Some(format!("sha512:{h128}")),
            ),
            (
                format!("xn--7o8h.com/myimage:xn--7o8h.com@sha512:{h128}"),
                "xn--7o8h.com",
                "myimage",
                Some("xn--7o8h.com"),
                Some(format!("sha512:{h128}")),
            ),
            // The registry guess accepts `foo_bar.com`, the grammar does not: the whole
            // string becomes a registry-less path, as upstream returns it.
            ("foo_bar.com/app".into(), "", "foo_bar.com/app", None, None),
        ];
        for (input, domain, path, tag, digest) in &cases {
            let r = ok(input);
            assert_eq!(r.domain, *domain, "{input}");
            assert_eq!(r.path, *path, "{input}");
            assert_eq!(r.tag.as_deref(), *tag, "{input}");
            assert_eq!(r.digest, *digest, "{input}");
            if domain.is_empty() {
                assert_eq!(r.name(), *path);
            } else {
                assert_eq!(r.name(), format!("{domain}/{path}"));
            }
            // The printed form is canonical: it parses to itself.
            assert_eq!(ok(&r.to_string()), r, "{input}");
        }
        assert_eq!(
            ok(&format!("a:{}", "t".repeat(128))).tag.unwrap().len(),
            128
        );
        assert_eq!(
            ok("busybox:1.36").to_string(),
            "docker.io/library/busybox:1.36"
        );
    }

    #[test]
    fn errors() {
        let long_name = format!("quay.io/{}", "a".repeat(248));
        let cases: Vec<(String, &str)> = vec![
            // Conformance cases (fbc-validate c14-*).
            ("quay.io/foo/foo:bad tag".into(), "invalid reference format"),
            ("quay.io/foo/foo@sha256:abc".into(), "invalid reference format"),
            ("quay.io/foo/op::v1".into(), "invalid reference format"),
            (
                "quay.io/Foo/foo:v1".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            (
                "quay.io/example/Foo-bundle:v1.0.0".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            (
                "quay.io/example/Foo_Bar-bundle:v1.0.0".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            (
                "Quay.IO".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            (
                "Foo/bar".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            (
                "Quay.IO/Foo:bad tag".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            // The lower-case check covers everything up to the first `:`, digest
            // algorithm included.
            (
                "quay.io/foo@SHA256:abc".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            (
                "quay.io/Foo@sha256:abc".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            ("".into(), "invalid reference format"),
            (":tag".into(), "invalid reference format"),
            ("quay.io/".into(), "invalid reference format"),
            ("quay.io//foo".into(), "invalid reference format"),
            ("quay.io/foo/".into(), "invalid reference format"),
            ("quay.io/-foo".into(), "invalid reference format"),
            ("quay.io/foo-".into(), "invalid reference format"),
            ("quay.io/foo..bar".into(), "invalid reference format"),
            ("quay.io/foo___bar".into(), "invalid reference format"),
            ("quay.io/foo._bar".into(), "invalid reference format"),
            ("quay.io/__foo".into(), "invalid reference format"),
            ("quay.io:http/foo".into(), "invalid reference format"),
            ("quay.io:/foo".into(), "invalid reference format"),
            ("-quay.io/foo".into(), "invalid reference format"),
            ("quay-.io/foo".into(), "invalid reference format"),
            ("qu_ay.io:5000/foo".into(), "invalid reference format"),
            ("foo_bar.com:8080/app".into(), "invalid reference format"),
            ("quay.io/foo:.tag".into(), "invalid reference format"),
            ("quay.io/foo:-tag".into(), "invalid reference format"),
            ("quay.io/foo:ta~g".into(), "invalid reference format"),
            (format!("quay.io/foo:{}", "t".repeat(129)), "invalid reference format"),
            ("quay.io/foo@".into(), "invalid reference format"),
            ("quay.io/foo@sha256".into(), "invalid reference format"),
            ("quay.io/foo@@sha256:abc".into(), "invalid reference format"),
            ("quay.io/foo:v1:v2".into(), "invalid reference format"),
            ("quay.io/foo bar".into(), "invalid reference format"),
            ("quay.io/fóo".into(), "invalid reference format"),
            ("[::1/x".into(), "invalid reference format"),
            ("[]:5000/x".into(), "invalid reference format"),
            ("[::g]:5000/x".into(), "invalid reference format"),
            ("[::1]5000/x".into(), "invalid reference format"),
            (
                format!("quay.io/foo@sha256:{}", "a".repeat(63)),
                "invalid checksum digest length",
            ),
            (
                format!("quay.io/foo@sha256:{}", "a".repeat(65)),
                "invalid checksum digest length",
            ),
            (
                format!("quay.io/foo@sha512:{}", "a".repeat(64)),
                "invalid checksum digest length",
            ),
            (
                format!("quay.io/foo@sha256:{}", "A".repeat(64)),
                "invalid checksum digest format",
            ),
            (
                format!("quay.io/foo:v1@Sha256:{}", "a".repeat(64)),
                "invalid checksum digest format",
            ),
            (
                format!("quay.io/foo@md5:{}", "a".repeat(32)),
                "unsupported digest algorithm",
            ),
            (
                format!("quay.io/foo@sha256+b64:{}", "a".repeat(64)),
                "unsupported digest algorithm",
            ),
            (
                format!("quay.io/foo@ssha256:{}", "abcd1234".repeat(9)),
                "unsupported digest algorithm",
            ),
            (
                format!("quay.io/foo:v1@MD5:{}", "a".repeat(32)),
                "invalid checksum digest format",
            ),
            (
                H64.to_string(),
                "invalid repository name (e9d32369b107d0ceeee228c4dc19eff372c26009f29a2fc8f22327508f608542), cannot specify 64-byte hexadecimal strings",
            ),
            (long_name, "repository name must not be more than 255 characters"),
            (
                format!("{}a:tag", "a/".repeat(123)),
                "repository name must not be more than 255 characters",
            ),
        ];
        for (input, want) in &cases {
            assert_eq!(err(input), *want, "input {input:?}");
        }
        // The limit counts the registry: 255 characters in total is still fine.
        let max = format!("quay.io/{}", "a".repeat(247));
        assert_eq!(max.len(), 255);
        assert_eq!(ok(&max).name(), max);
        assert!(Reference::parse_normalized(&format!("{}a:tag", "a/".repeat(122))).is_ok());
    }

    #[test]
    fn bare_uppercase_message_of_parse() {
        // `Parse` itself: upper case anywhere the grammar forbids it, found by lower-casing.
        assert_eq!(
            parse_reference("quay.io/Foo").unwrap_err(),
            ReferenceError::NameContainsUppercase
        );
        assert_eq!(parse_reference("").unwrap_err(), ReferenceError::NameEmpty);
        assert_eq!(
            ReferenceError::NameContainsUppercase.to_string(),
            "repository name must be lowercase"
        );
        assert_eq!(
            ReferenceError::NameEmpty.to_string(),
            "repository name must have at least one component"
        );
    }

    #[test]
    fn canonical_names() {
        assert!(Reference::parse_named("docker.io/library/foo").is_ok());
        assert!(Reference::parse_named("test:8080/foo").is_ok());
        for not_canonical in [
            "foo",
            "library/foo",
            "docker.io/foo",
            "test.com",
            "test_com/foo",
        ] {
            assert_eq!(
                Reference::parse_named(not_canonical).unwrap_err(),
                ReferenceError::NameNotCanonical,
                "{not_canonical}"
            );
        }
        assert_eq!(
            ReferenceError::NameNotCanonical.to_string(),
            "repository name must be canonical"
        );
    }

    #[test]
    fn familiar_forms_and_defaults() {
        let r = ok("busybox");
        assert_eq!(r.familiar_name(), "busybox");
        assert_eq!(
            r.with_default_tag().to_string(),
            "docker.io/library/busybox:latest"
        );
        assert_eq!(ok("org/repo:v1").familiar_string(), "org/repo:v1");
        // Found by the image_reference fuzz target: `a/b` would name docker.io/a/b.
        assert_eq!(ok("library/a/b").familiar_name(), "library/a/b");
        assert_eq!(ok("library/a/b").familiar_string(), "library/a/b");
        assert_eq!(ok("quay.io/a/b").familiar_name(), "quay.io/a/b");
        let both = ok(&format!("quay.io/a/b:v1@sha256:{H64}"));
        assert_eq!(both.to_string(), format!("quay.io/a/b:v1@sha256:{H64}"));
        assert_eq!(
            both.docker_ref().to_string(),
            format!("quay.io/a/b@sha256:{H64}")
        );
        assert_eq!(both.with_default_tag(), both);
        assert_eq!(
            ok("quay.io/a/b").docker_ref().tag.as_deref(),
            Some("latest")
        );
        assert_eq!(ok("quay.io/a/b:v2").docker_ref().tag.as_deref(), Some("v2"));
    }

    #[test]
    fn grammar_pieces() {
        for c in ["a", "a.b", "a_b", "a__b", "a-b", "a---b", "a.b-c_d__e", "0"] {
            assert!(is_path_component(c), "{c}");
        }
        for c in [
            "", "A", "a.", ".a", "a..b", "a___b", "a-.b", "a._b", "a/b", "é",
        ] {
            assert!(!is_path_component(c), "{c}");
        }
        for d in [
            "a", "a.b", "A-b.C", "a:1", "0101.com", "[::1]", "[::1]:80", "[AbC::]",
        ] {
            assert!(is_domain(d), "{d}");
        }
        for d in [
            "", "a.", ".a", "a..b", "-a", "a-", "a:", "a:b", "a:1:2", "[]", "[::1]:", "[:",
        ] {
            assert!(!is_domain(d), "{d}");
        }
    }

    #[test]
    fn odd_inputs_never_panic() {
        const ALPHABET: &[&str] = &[
            "a",
            "Z",
            "0",
            "f",
            ".",
            "/",
            ":",
            "@",
            "-",
            "_",
            "__",
            "[",
            "]",
            "::1",
            "sha256",
            "sha256:",
            H64,
            " ",
            "é",
            "localhost",
            "docker.io",
            "5000",
            "\u{0}",
            "+",
        ];
        for s in crate::testkit::random_strings(0x2545_f491_4f6c_dd1d, ALPHABET, 10, 3000) {
            if let Ok(r) = Reference::parse_normalized(&s) {
                assert_eq!(
                    Reference::parse_normalized(&r.to_string()),
                    Ok(r.clone()),
                    "{s}"
                );
                let _ = (r.familiar_string(), r.docker_ref());
            }
            let _ = Reference::parse_named(&s);
        }
    }
}
