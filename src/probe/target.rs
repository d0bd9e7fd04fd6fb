//! What `-addr` names, read as grpc-go's `DialContext` reads a dial target: a URL whose scheme
//! picks a resolver (`dns:`, `unix:`, `unix-abstract:`, `passthrough:`), anything else handed
//! to `passthrough` whole (`:50051`, `localhost:50051`, `10.0.0.1:50051`) and dialled as Go's
//! `net.Dial("tcp", …)` dials it. Also the channel's authority (the `:authority` header, and
//! the name a TLS certificate is checked against), and the addresses a target resolves to.

use crate::encoding::json::go_quote;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Where to connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// `passthrough`: an address for Go's `net.Dial("tcp", …)` (`host:port`).
    Tcp(String),
    /// The `dns` resolver: a host (never empty) and a port (443 by default).
    Dns { host: String, port: String },
    /// A Unix socket path.
    Unix(String),
    /// A socket in Linux's abstract namespace.
    UnixAbstract(String),
}

/// A dial target: where to connect and the authority grpc-go gives the channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub endpoint: Endpoint,
    authority: String,
}

/// Why grpc-go refuses a target before connecting; the text follows `failed to connect service
/// at "ADDR": ` in the original's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// Go's `*url.Error` for the target with the default scheme put in front.
    #[error("parse {}: {reason}", go_quote(.url))]
    Parse { url: String, reason: String },
    /// The resolver the scheme names refused the target.
    #[error("failed to exit idle mode: failed to start resolver: {0}")]
    Resolver(String),
}

/// The parts of Go's `url.Parse` a dial target needs.
#[derive(Debug, Default)]
struct Url {
    scheme: String,
    opaque: String,
    host: String,
    path: String,
}

impl Url {
    /// grpc-go's `Target.Endpoint`: the path, else the opaque part, without a leading `/`.
    fn endpoint(&self) -> &str {
        let endpoint = if self.path.is_empty() {
            &self.opaque
        } else {
            &self.path
        };
        endpoint.strip_prefix('/').unwrap_or(endpoint)
    }
}

/// Go's `url.Parse`, as far as a dial target goes; the error is the message of Go's
/// `*url.Error` without its `parse "URL": ` framing.
fn parse_url(raw: &str) -> Result<Url, String> {
    let (raw, fragment) = raw.split_once('#').unwrap_or((raw, ""));
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    let mut url = Url::default();
    let (scheme, rest) = scheme_of(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    let rest = if rest.ends_with('?') && rest.matches('?').count() == 1 {
        &rest[..rest.len() - 1]
    } else {
        rest.split_once('?').map_or(rest, |(before, _)| before)
    };
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest.to_string();
            return Ok(url);
        }
        let segment = rest.split_once('/').map_or(rest, |(first, _)| first);
        if segment.contains(':') {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    let mut path = rest;
    if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let authority = &rest[2..];
        let (authority, after) = match authority.find('/') {
            Some(at) => (&authority[..at], &authority[at..]),
            None => (authority, ""),
        };
        url.host = authority
            .rsplit_once('@')
            .map_or(authority, |(_, host)| host)
            .to_string();
        path = after;
    }
    url.path = unescape(path)?;
    unescape(fragment)?;
    Ok(url)
}

/// Go's `getScheme`.
fn scheme_of(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".into()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// Go's `unescape` of a path or fragment: `%XX` sequences decoded, a bad one refused.
fn unescape(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |at: usize| bytes.get(at).and_then(|b| (*b as char).to_digit(16));
            match (hex(i + 1), hex(i + 2)) {
                (Some(high), Some(low)) => {
                    out.push(u8::try_from(high * 16 + low).unwrap_or(0));
                    i += 3;
                    continue;
                }
                _ => {
                    let bad: String = text[i..].chars().take(3).collect();
                    return Err(format!("invalid URL escape {}", go_quote(&bad)));
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Go's `net.SplitHostPort`, with its error text (`address X: missing port in address`).
pub fn split_host_port(hostport: &str) -> Result<(&str, &str), String> {
    let fail = |why: &str| Err(format!("address {hostport}: {why}"));
    let Some(colon) = hostport.rfind(':') else {
        return fail("missing port in address");
    };
    let (host, from, to) = if hostport.starts_with('[') {
        let Some(end) = hostport.find(']') else {
            return fail("missing ']' in address");
        };
        if end + 1 == hostport.len() {
            return fail("missing port in address");
        }
        if end + 1 != colon {
            if hostport.as_bytes()[end + 1] == b':' {
                return fail("too many colons in address");
            }
            return fail("missing port in address");
        }
        (&hostport[1..end], 1, end + 1)
    } else {
        let host = &hostport[..colon];
        if host.contains(':') {
            return fail("too many colons in address");
        }
        (host, 0, 0)
    };
    if hostport[from..].contains('[') {
        return fail("unexpected '[' in address");
    }
    if hostport[to..].contains(']') {
        return fail("unexpected ']' in address");
    }
    Ok((host, &hostport[colon + 1..]))
}

/// grpc-go's `encodeAuthority`: bytes outside RFC 3986's authority characters as `%XX`.
fn encode_authority(authority: &str) -> String {
    let mut out = String::with_capacity(authority.len());
    for b in authority.bytes() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'_'
                    | b'.'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b':'
                    | b'['
                    | b']'
                    | b'@'
            );
        if keep {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The `dns` resolver's `parseTarget`: host and port, 443 when no port is given, `localhost`
/// for an empty host.
fn dns_host_port(endpoint: &str) -> Result<(String, String), String> {
    const DEFAULT_PORT: &str = "443";
    if endpoint.is_empty() {
        return Err("dns resolver: missing address".into());
    }
    if endpoint.parse::<IpAddr>().is_ok() {
        return Ok((endpoint.to_string(), DEFAULT_PORT.to_string()));
    }
    if let Ok((host, port)) = split_host_port(endpoint) {
        if port.is_empty() {
            return Err("dns resolver: missing port after port-separator colon".into());
        }
        let host = if host.is_empty() { "localhost" } else { host };
        return Ok((host.to_string(), port.to_string()));
    }
    let with_port = format!("{endpoint}:{DEFAULT_PORT}");
    match split_host_port(&with_port) {
        Ok((host, port)) => Ok((host.to_string(), port.to_string())),
        Err(error) => Err(format!(
            "invalid target address {endpoint}, error info: {error}"
        )),
    }
}

impl Target {
    /// Reads `-addr` as `grpc.DialContext` does: a URL with a registered scheme, or else the
    /// whole text behind `passthrough:///`.
    pub fn parse(addr: &str) -> Result<Target, TargetError> {
        if let Ok(url) = parse_url(addr) {
            match url.scheme.as_str() {
                "dns" => {
                    let (host, port) =
                        dns_host_port(url.endpoint()).map_err(TargetError::Resolver)?;
                    return Ok(Target::with_endpoint(
                        Endpoint::Dns { host, port },
                        url.endpoint(),
                    ));
                }
                "unix" | "unix-abstract" => {
                    if !url.host.is_empty() {
                        return Err(TargetError::Resolver(format!(
                            "invalid (non-empty) authority: {}",
                            url.host
                        )));
                    }
                    let path = if url.path.is_empty() {
                        url.opaque.clone()
                    } else {
                        url.path.clone()
                    };
                    let endpoint = if url.scheme == "unix" {
                        Endpoint::Unix(path)
                    } else {
                        Endpoint::UnixAbstract(path)
                    };
                    return Ok(Target {
                        endpoint,
                        authority: "localhost".into(),
                    });
                }
                "passthrough" => {
                    let endpoint = url.endpoint().to_string();
                    return Ok(Target::with_endpoint(
                        Endpoint::Tcp(endpoint.clone()),
                        &endpoint,
                    ));
                }
                _ => {}
            }
        }
        let canonical = format!("passthrough:///{addr}");
        let url = parse_url(&canonical).map_err(|reason| TargetError::Parse {
            url: canonical.split('#').next().unwrap_or_default().to_string(),
            reason,
        })?;
        let endpoint = url.endpoint().to_string();
        Ok(Target::with_endpoint(
            Endpoint::Tcp(endpoint.clone()),
            &endpoint,
        ))
    }

    fn with_endpoint(endpoint: Endpoint, text: &str) -> Target {
        let authority = if text.starts_with(':') {
            format!("localhost{}", encode_authority(text))
        } else {
            encode_authority(text)
        };
        Target {
            endpoint,
            authority,
        }
    }

    /// The channel's authority: the TLS server name when `-tls-server-name` gives one (as
    /// grpc-go takes it from the credentials), else the target's.
    pub fn authority<'a>(&'a self, server_name: &'a str) -> &'a str {
        if server_name.is_empty() {
            &self.authority
        } else {
            server_name
        }
    }
}

/// The port of a `host:port`: a number, or one of the service names Go knows without
/// `/etc/services`.
fn port_number(port: &str) -> Option<u16> {
    if let Ok(number) = port.parse::<u16>() {
        return Some(number);
    }
    let known = [
        ("ftp", 21),
        ("ftps", 990),
        ("gopher", 70),
        ("http", 80),
        ("https", 443),
        ("imap2", 143),
        ("imap3", 220),
        ("imaps", 993),
        ("pop3", 110),
        ("pop3s", 995),
        ("smtp", 25),
        ("submissions", 465),
        ("ssh", 22),
        ("telnet", 23),
    ];
    known
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(port))
        .map(|(_, number)| *number)
}

/// How a host name becomes addresses: literal addresses need no lookup; an empty host is the
/// local machine (Go dials `0.0.0.0`, which Linux routes to itself) and `localhost` is the
/// loopback addresses, both without `/etc/hosts` or a resolver, so the probe works in an
/// empty image; other names go through the system resolver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Addresses {
    Known(Vec<SocketAddr>),
    Lookup { host: String, port: u16 },
}

/// The addresses of `host` and `port` (`None` when Go could not dial them at all: a bad port,
/// an IPv6 zone).
pub fn addresses(host: &str, port: &str) -> Option<Addresses> {
    let port = port_number(port)?;
    if host.is_empty() {
        return Some(Addresses::Known(vec![SocketAddr::new(
            IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            port,
        )]));
    }
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Some(Addresses::Known(vec![SocketAddr::new(ip, port)]));
    }
    let name = host.strip_suffix('.').unwrap_or(host);
    if name.eq_ignore_ascii_case("localhost") {
        return Some(Addresses::Known(vec![
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port),
            SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), port),
        ]));
    }
    if host.contains('%') {
        return None;
    }
    Some(Addresses::Lookup {
        host: host.to_string(),
        port,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp(addr: &str) -> (Endpoint, String) {
        let target = Target::parse(addr).unwrap();
        let authority = target.authority("").to_string();
        (target.endpoint, authority)
    }

    #[test]
    fn plain_addresses_pass_through() {
        let cases = [
            (":50051", ":50051", "localhost:50051"),
            ("localhost:50051", "localhost:50051", "localhost:50051"),
            ("127.0.0.1:50051", "127.0.0.1:50051", "127.0.0.1:50051"),
            ("[::1]:50051", "[::1]:50051", "[::1]:50051"),
            ("example.com:443", "example.com:443", "example.com:443"),
            ("passthrough:///host:1", "host:1", "host:1"),
            ("xds:///host:1", "xds:///host:1", "xds:%2F%2F%2Fhost:1"),
            ("a b:1", "a b:1", "a%20b:1"),
            ("host:1?query", "host:1", "host:1"),
            ("%41:1", "A:1", "A:1"),
        ];
        for (addr, endpoint, authority) in cases {
            assert_eq!(
                tcp(addr),
                (Endpoint::Tcp(endpoint.to_string()), authority.to_string()),
                "{addr}"
            );
        }
    }

    #[test]
    fn schemes_pick_resolvers() {
        let target = Target::parse("dns:///example.com").unwrap();
        assert_eq!(
            target.endpoint,
            Endpoint::Dns {
                host: "example.com".into(),
                port: "443".into()
            }
        );
        assert_eq!(target.authority(""), "example.com");
        let target = Target::parse("dns:localhost:5").unwrap();
        assert_eq!(target.authority("override"), "override");
        let target = Target::parse("unix:///tmp/s.sock").unwrap();
        assert_eq!(target.endpoint, Endpoint::Unix("/tmp/s.sock".into()));
        assert_eq!(target.authority(""), "localhost");
        let target = Target::parse("unix:relative.sock").unwrap();
        assert_eq!(target.endpoint, Endpoint::Unix("relative.sock".into()));
        let target = Target::parse("unix-abstract:name").unwrap();
        assert_eq!(target.endpoint, Endpoint::UnixAbstract("name".into()));
    }

    #[test]
    fn refused_targets_have_grpc_go_messages() {
        let cases = [
            ("x%zz:1", "parse \"passthrough:///x%zz:1\": invalid URL escape \"%zz\""),
            ("a\u{1}b", "parse \"passthrough:///a\\x01b\": net/url: invalid control character in URL"),
            ("dns:///", "failed to exit idle mode: failed to start resolver: dns resolver: missing address"),
            ("dns:///[::1]:", "failed to exit idle mode: failed to start resolver: dns resolver: missing port after port-separator colon"),
            ("dns:///a:b:c", "failed to exit idle mode: failed to start resolver: invalid target address a:b:c, error info: address a:b:c:443: too many colons in address"),
            ("unix://host/x", "failed to exit idle mode: failed to start resolver: invalid (non-empty) authority: host"),
        ];
        for (addr, want) in cases {
            assert_eq!(Target::parse(addr).unwrap_err().to_string(), want, "{addr}");
        }
    }

    #[test]
    fn hosts_become_addresses_without_a_resolver_where_go_needs_none() {
        let v4 = |a: [u8; 4], p| SocketAddr::new(IpAddr::V4(Ipv4Addr::from(a)), p);
        assert_eq!(
            addresses("", "50051"),
            Some(Addresses::Known(vec![v4([0, 0, 0, 0], 50051)]))
        );
        assert_eq!(
            addresses("LocalHost", "http"),
            Some(Addresses::Known(vec![
                v4([127, 0, 0, 1], 80),
                SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), 80)
            ]))
        );
        assert_eq!(
            addresses("10.1.2.3", "1"),
            Some(Addresses::Known(vec![v4([10, 1, 2, 3], 1)]))
        );
        assert_eq!(addresses("h", "70000"), None);
        assert_eq!(
            addresses("example.com", "443"),
            Some(Addresses::Lookup {
                host: "example.com".into(),
                port: 443
            })
        );
        assert_eq!(split_host_port("[::1]:5"), Ok(("::1", "5")));
        assert_eq!(
            split_host_port("a"),
            Err("address a: missing port in address".into())
        );
    }
}
