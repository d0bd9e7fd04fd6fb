//! The probe's command line, read as Go's `flag` package reads it for grpc-health-probe (a
//! `FlagSet` named "" with `ContinueOnError`): `-flag value`, `-flag=value`, `--flag`, bare
//! booleans (`-tls`, `-tls=false`), Go durations, parsing stopped at the first non-flag
//! argument or after `--`; the original ignores whatever follows. Errors carry Go's exact
//! messages, and [`usage`] is `PrintDefaults` under `Usage:`.

use super::duration::GoDuration;
use crate::encoding::json::go_quote;
use std::collections::BTreeMap;
use std::fmt;

/// What a flag holds, which decides how it is parsed and how its usage line reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    String,
    Duration,
    /// `-rpc-header`: a `flag.Value` of the probe's own (no type name in the usage).
    Header,
}

struct Flag {
    name: &'static str,
    kind: Kind,
    usage: &'static str,
    /// The default as Go's `DefValue` text.
    default: &'static str,
}

/// Every flag of grpc-health-probe v0.4.56 (`main.go`'s `init`), in Go's usage order (sorted by
/// name), with its usage text and default.
const FLAGS: &[Flag] = &[
    Flag { name: "addr", kind: Kind::String, default: "", usage: "(required) tcp host:port to connect" },
    Flag { name: "alts", kind: Kind::Bool, default: "false", usage: "use ALTS (default: false, INSECURE plaintext transport)" },
    Flag { name: "connect-timeout", kind: Kind::Duration, default: "1s", usage: "timeout for establishing connection" },
    Flag { name: "gzip", kind: Kind::Bool, default: "false", usage: "use GZIPCompressor for requests and GZIPDecompressor for response (default: false)" },
    Flag { name: "rpc-header", kind: Kind::Header, default: "map[]", usage: "additional RPC headers in 'name: value' format. May specify more than one via multiple flags." },
    Flag { name: "rpc-timeout", kind: Kind::Duration, default: "1s", usage: "timeout for health check rpc" },
    Flag { name: "service", kind: Kind::String, default: "", usage: "service name to check (default: \"\")" },
    Flag { name: "spiffe", kind: Kind::Bool, default: "false", usage: "use SPIFFE to obtain mTLS credentials" },
    Flag { name: "tls", kind: Kind::Bool, default: "false", usage: "use TLS (default: false, INSECURE plaintext transport)" },
    Flag { name: "tls-ca-cert", kind: Kind::String, default: "", usage: "(with -tls, optional) file containing trusted certificates for verifying server" },
    Flag { name: "tls-client-cert", kind: Kind::String, default: "", usage: "(with -tls, optional) client certificate for authenticating to the server (requires -tls-client-key)" },
    Flag { name: "tls-client-key", kind: Kind::String, default: "", usage: "(with -tls) client private key for authenticating to the server (requires -tls-client-cert)" },
    Flag { name: "tls-no-verify", kind: Kind::Bool, default: "false", usage: "(with -tls) don't verify the certificate (INSECURE) presented by the server (default: false)" },
    Flag { name: "tls-server-name", kind: Kind::String, default: "", usage: "(with -tls) override the hostname used to verify the server certificate" },
    Flag { name: "user-agent", kind: Kind::String, default: "grpc_health_probe", usage: "user-agent header value of health check requests" },
    Flag { name: "v", kind: Kind::Bool, default: "false", usage: "verbose logs" },
    Flag { name: "version", kind: Kind::Bool, default: "false", usage: "show probe version and exit" },
];

/// The `-rpc-header` values, as grpc-go's `metadata.MD` holds them: keys lower-cased, the
/// values of a key in the order given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RpcHeaders(pub BTreeMap<String, Vec<String>>);

impl RpcHeaders {
    /// The probe's `rpcHeaders.Set`: `name: value`, split at the first colon, the value's
    /// leading white space trimmed.
    fn add(&mut self, text: &str) -> Result<(), String> {
        let Some((key, value)) = text.split_once(':') else {
            return Err(format!(
                "invalid RPC header, expected 'key: value', got {}",
                go_quote(text)
            ));
        };
        self.0
            .entry(key.to_lowercase())
            .or_default()
            .push(value.trim_start().to_string());
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Go's `%s` of the probe's `rpcHeaders` value (a struct around the map): `{map[k:[v1 v2]]}`.
impl fmt::Display for RpcHeaders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{map[")?;
        for (i, (key, values)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{key}:[{}]", values.join(" "))?;
        }
        f.write_str("]}")
    }
}

/// The parsed command line, every flag at its default unless given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub addr: String,
    pub service: String,
    pub user_agent: String,
    pub connect_timeout: GoDuration,
    pub rpc_headers: RpcHeaders,
    pub rpc_timeout: GoDuration,
    pub tls: bool,
    pub tls_no_verify: bool,
    pub tls_ca_cert: String,
    pub tls_client_cert: String,
    pub tls_client_key: String,
    pub tls_server_name: String,
    pub alts: bool,
    pub verbose: bool,
    pub version: bool,
    pub gzip: bool,
    pub spiffe: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            addr: String::new(),
            service: String::new(),
            user_agent: "grpc_health_probe".to_string(),
            connect_timeout: GoDuration::SECOND,
            rpc_headers: RpcHeaders::default(),
            rpc_timeout: GoDuration::SECOND,
            tls: false,
            tls_no_verify: false,
            tls_ca_cert: String::new(),
            tls_client_cert: String::new(),
            tls_client_key: String::new(),
            tls_server_name: String::new(),
            alts: false,
            verbose: false,
            version: false,
            gzip: false,
            spiffe: false,
        }
    }
}

/// Why the command line was refused. Each message is Go's `flag` package's own; Go prints it,
/// then the usage ([`FlagError::Help`] prints only the usage).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlagError {
    /// `-h`, `-help`, `--help` (none is a flag of the probe).
    #[error("")]
    Help,
    #[error("bad flag syntax: {0}")]
    BadSyntax(String),
    #[error("flag provided but not defined: -{0}")]
    NotDefined(String),
    #[error("flag needs an argument: -{0}")]
    NeedsArgument(String),
    #[error("invalid boolean value {} for -{name}: parse error", go_quote(.value))]
    InvalidBoolean { name: String, value: String },
    #[error("invalid value {} for flag -{name}: {reason}", go_quote(.value))]
    InvalidValue {
        name: String,
        value: String,
        reason: String,
    },
}

/// Go's `strconv.ParseBool`.
fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Parses the arguments after the program name as `FlagSet.Parse` does. What follows the
/// first non-flag argument (or `--`) is left alone, as the original leaves it.
pub fn parse(args: &[String]) -> Result<Options, FlagError> {
    let mut options = Options::default();
    let mut rest = args;
    while let Some((arg, after)) = rest.split_first() {
        if arg.len() < 2 || !arg.starts_with('-') {
            break;
        }
        let dashes = if arg.starts_with("--") { 2 } else { 1 };
        if arg == "--" {
            break;
        }
        let mut name = &arg[dashes..];
        if name.is_empty() || name.starts_with('-') || name.starts_with('=') {
            return Err(FlagError::BadSyntax(arg.clone()));
        }
        rest = after;
        let mut value = None;
        if let Some(at) = name.find('=') {
            value = Some(&name[at + 1..]);
            name = &name[..at];
        }
        let Some(flag) = FLAGS.iter().find(|flag| flag.name == name) else {
            if name == "help" || name == "h" {
                return Err(FlagError::Help);
            }
            return Err(FlagError::NotDefined(name.to_string()));
        };
        if flag.kind == Kind::Bool {
            let value = match value {
                Some(text) => parse_bool(text).ok_or_else(|| FlagError::InvalidBoolean {
                    name: name.to_string(),
                    value: text.to_string(),
                })?,
                None => true,
            };
            set_bool(&mut options, flag.name, value);
            continue;
        }
        let value = match value {
            Some(text) => text,
            None => {
                let Some((next, after)) = rest.split_first() else {
                    return Err(FlagError::NeedsArgument(name.to_string()));
                };
                rest = after;
                next.as_str()
            }
        };
        let invalid = |reason: String| FlagError::InvalidValue {
            name: name.to_string(),
            value: value.to_string(),
            reason,
        };
        match flag.kind {
            Kind::Duration => {
                let duration =
                    GoDuration::parse(value).ok_or_else(|| invalid("parse error".into()))?;
                if flag.name == "connect-timeout" {
                    options.connect_timeout = duration;
                } else {
                    options.rpc_timeout = duration;
                }
            }
            Kind::Header => options.rpc_headers.add(value).map_err(invalid)?,
            Kind::String => *string_field(&mut options, flag.name) = value.to_string(),
            Kind::Bool => {}
        }
    }
    Ok(options)
}

fn set_bool(options: &mut Options, name: &str, value: bool) {
    let field = match name {
        "alts" => &mut options.alts,
        "gzip" => &mut options.gzip,
        "spiffe" => &mut options.spiffe,
        "tls" => &mut options.tls,
        "tls-no-verify" => &mut options.tls_no_verify,
        "v" => &mut options.verbose,
        _ => &mut options.version,
    };
    *field = value;
}

fn string_field<'a>(options: &'a mut Options, name: &str) -> &'a mut String {
    match name {
        "addr" => &mut options.addr,
        "service" => &mut options.service,
        "tls-ca-cert" => &mut options.tls_ca_cert,
        "tls-client-cert" => &mut options.tls_client_cert,
        "tls-client-key" => &mut options.tls_client_key,
        "tls-server-name" => &mut options.tls_server_name,
        _ => &mut options.user_agent,
    }
}

/// The usage text Go's `flag` package prints for the probe's flag set (`defaultUsage` of a
/// set named "": `Usage:`, then `PrintDefaults`).
pub fn usage() -> String {
    let mut text = String::from("Usage:\n");
    for flag in FLAGS {
        let mut line = format!("  -{}", flag.name);
        match flag.kind {
            Kind::Bool => {}
            Kind::String => line.push_str(" string"),
            Kind::Duration => line.push_str(" duration"),
            Kind::Header => line.push_str(" value"),
        }
        // A one-letter boolean keeps its usage on the same line.
        if line.len() <= 4 {
            line.push('\t');
        } else {
            line.push_str("\n    \t");
        }
        line.push_str(flag.usage);
        let zero = match flag.kind {
            Kind::Bool => "false",
            Kind::String => "",
            Kind::Duration => "0s",
            Kind::Header => "map[]",
        };
        if flag.default != zero {
            if flag.kind == Kind::String {
                line.push_str(&format!(" (default {})", go_quote(flag.default)));
            } else {
                line.push_str(&format!(" (default {})", flag.default));
            }
        }
        text.push_str(&line);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_string()).collect()
    }

    #[test]
    fn flags_are_in_go_usage_order() {
        let names: Vec<&str> = FLAGS.iter().map(|f| f.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
    }

    #[test]
    fn every_go_spelling_is_read() {
        let options = parse(&args(&[
            "-addr",
            ":50051",
            "--service=foo",
            "-tls",
            "-tls-no-verify=true",
            "-v=1",
            "-connect-timeout=1m30s",
            "--rpc-timeout",
            "500ms",
            "-rpc-header",
            "A: 1",
            "-rpc-header=a:  2",
            "-rpc-header=b:x:y",
            "-user-agent=",
            "-gzip=F",
        ]))
        .unwrap();
        assert_eq!(options.addr, ":50051");
        assert_eq!(options.service, "foo");
        assert!(options.tls && options.tls_no_verify && options.verbose && !options.gzip);
        assert_eq!(options.connect_timeout, GoDuration(90_000_000_000));
        assert_eq!(options.rpc_timeout, GoDuration(500_000_000));
        assert_eq!(options.user_agent, "");
        assert_eq!(options.rpc_headers.to_string(), "{map[a:[1 2] b:[x:y]]}");
    }

    #[test]
    fn parsing_stops_at_the_first_non_flag_argument() {
        let options = parse(&args(&["-addr=x:1", "extra", "-tls", "-bogus"])).unwrap();
        assert!(!options.tls);
        let options = parse(&args(&["-addr=x:1", "--", "-tls"])).unwrap();
        assert!(!options.tls);
        let options = parse(&args(&["-", "-tls"])).unwrap();
        assert!(!options.tls);
        // A bare boolean never takes the next argument as its value.
        let options = parse(&args(&["-tls", "false", "-v"])).unwrap();
        assert!(options.tls && !options.verbose);
    }

    #[test]
    fn refusals_carry_go_messages() {
        let cases: &[(&[&str], &str)] = &[
            (&["-bogus"], "flag provided but not defined: -bogus"),
            (&["--bogus=1"], "flag provided but not defined: -bogus"),
            (&["---x"], "bad flag syntax: ---x"),
            (&["-=x"], "bad flag syntax: -=x"),
            (&["-addr"], "flag needs an argument: -addr"),
            (&["-tls=yes"], "invalid boolean value \"yes\" for -tls: parse error"),
            (
                &["-connect-timeout", "5"],
                "invalid value \"5\" for flag -connect-timeout: parse error",
            ),
            (
                &["-rpc-header", "foo"],
                "invalid value \"foo\" for flag -rpc-header: invalid RPC header, expected 'key: value', got \"foo\"",
            ),
        ];
        for (words, want) in cases {
            assert_eq!(
                parse(&args(words)).unwrap_err().to_string(),
                *want,
                "{words:?}"
            );
        }
        for help in ["-h", "-help", "--help", "-help=false"] {
            assert_eq!(parse(&args(&[help])), Err(FlagError::Help));
        }
    }

    #[test]
    fn usage_is_go_print_defaults() {
        let text = usage();
        assert!(text.starts_with(
            "Usage:\n  -addr string\n    \t(required) tcp host:port to connect\n  -alts\n"
        ));
        assert!(text.contains("\n  -connect-timeout duration\n    \ttimeout for establishing connection (default 1s)\n"));
        assert!(text.contains("\n  -rpc-header value\n    \tadditional RPC headers in 'name: value' format. May specify more than one via multiple flags.\n"));
        assert!(text.contains("\n  -user-agent string\n    \tuser-agent header value of health check requests (default \"grpc_health_probe\")\n"));
        assert!(
            text.ends_with("\n  -v\tverbose logs\n  -version\n    \tshow probe version and exit\n")
        );
    }
}
