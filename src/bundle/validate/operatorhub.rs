//! The `operatorhub` optional validator (operator-framework/api's
//! OperatorHub checks, newest wording): provider, maintainers, links,
//! capabilities and categories annotations, version, icon, minKubeVersion.
//!
//! Reads `OPERATOR_BUNDLE_CATEGORIES` (a JSON file `{"categories": [...]}`)
//! as upstream does, to replace the standard category list.

use super::csv::{annotations, list, strings, text};
use super::message;
use crate::bundle::rules::{finding, OPERATORHUB_CSV_INVALID, OPERATORHUB_ICON_MISSING};
use crate::diag::Diagnostic;
use crate::encoding::json::go_quote;
use crate::semver::Version;
use serde_json::Value;

/// Every rule of this module.
pub const RULES: &[&str] = &[OPERATORHUB_CSV_INVALID, OPERATORHUB_ICON_MISSING];

const CAPABILITIES: &[&str] = &[
    "Basic Install",
    "Seamless Upgrades",
    "Full Lifecycle",
    "Deep Insights",
    "Auto Pilot",
];

const CATEGORIES: &[&str] = &[
    "AI/Machine Learning",
    "Application Runtime",
    "Big Data",
    "Cloud Provider",
    "Developer Tools",
    "Database",
    "Integration & Delivery",
    "Logging & Tracing",
    "Monitoring",
    "Modernization & Migration",
    "Networking",
    "OpenShift Optional",
    "Security",
    "Storage",
    "Streaming & Messaging",
    "Observability",
];

const ICON_MEDIA_TYPES: &[&str] = &["image/gif", "image/jpeg", "image/png", "image/svg+xml"];

/// Runs the checks on the bundle's CSV.
pub fn check(csv: &Value, file: &str, out: &mut Vec<Diagnostic>) {
    let name = text(csv, &["metadata", "name"]);
    let mut errors: Vec<String> = Vec::new();
    if text(csv, &["spec", "provider", "name"]).is_empty() {
        errors.push("csv.Spec.Provider.Name not specified".into());
    }
    for maintainer in list(csv, &["spec", "maintainers"]) {
        let m_name = field(maintainer, "name");
        let email = field(maintainer, "email");
        if m_name.is_empty() || email.is_empty() {
            errors.push("csv.Spec.Maintainers elements should contain both name and email".into());
        }
        if !email.is_empty() {
            if let Err(e) = parse_mail_address(email) {
                errors.push(format!(
                    "csv.Spec.Maintainers email {email} is invalid: {e}"
                ));
            }
        }
    }
    for link in list(csv, &["spec", "links"]) {
        let l_name = field(link, "name");
        let url = field(link, "url");
        if l_name.is_empty() || url.is_empty() {
            errors.push("csv.Spec.Links elements should contain both name and url".into());
        }
        if !url.is_empty() {
            if let Err(e) = parse_request_uri(url) {
                errors.push(format!("csv.Spec.Links url {url} is invalid: {e}"));
            }
        }
    }
    let annotations = annotations(csv);
    let annotation = |key: &str| annotations.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    if let Some(capability) = annotation("capabilities") {
        if !CAPABILITIES.contains(&capability) {
            errors.push(format!(
                "csv.Metadata.Annotations.Capabilities {} is not a valid capabilities level",
                go_quote(capability)
            ));
        }
    }
    if let Some(categories) = annotation("categories") {
        errors.extend(check_categories(categories));
    }
    let version = text(csv, &["spec", "version"]);
    let unset = Version::parse_tolerant(version).map_or(true, |v| v == Version::new(0, 0, 0));
    if unset {
        errors.push("csv.Spec.Version must be set".into());
    }
    let icons = list(csv, &["spec", "icon"]);
    let mut icon_missing = false;
    if let Some(icon) = icons.first() {
        if icons.len() != 1 {
            errors.push("csv.Spec.Icon should only have one element".into());
        }
        let media_type = field(icon, "mediatype");
        if media_type.is_empty() || field(icon, "base64data").is_empty() {
            errors.push("csv.Spec.Icon elements should contain both data and mediatype".into());
        }
        if !media_type.is_empty() && !ICON_MEDIA_TYPES.contains(&media_type) {
            errors.push(format!(
                "csv.Spec.Icon {media_type} does not have a valid mediatype"
            ));
        }
    } else {
        icon_missing = true;
    }
    let min_kube = text(csv, &["spec", "minKubeVersion"]);
    let min_kube_invalid = !min_kube.is_empty() && Version::parse(min_kube).is_err();
    if min_kube_invalid {
        errors.push(format!(
            "csv.Spec.MinKubeVersion has an invalid value: {min_kube}"
        ));
    }
    for detail in errors {
        out.push(finding(
            OPERATORHUB_CSV_INVALID,
            message::csv(name, &detail),
            Some(file.to_string()),
        ));
    }
    if min_kube_invalid {
        out.push(finding(
            OPERATORHUB_CSV_INVALID,
            message::api(
                "",
                Some(name),
                &format!(
                    "unable to use csv.Spec.MinKubeVersion to verify the CRD/Webhook apis because it has an invalid value: {min_kube}"
                ),
            ),
            Some(file.to_string()),
        ));
    }
    if icon_missing {
        out.push(finding(
            OPERATORHUB_ICON_MISSING,
            message::csv(name, "csv.Spec.Icon not specified"),
            Some(file.to_string()),
        ));
    }
}

fn field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The categories annotation against the standard list, or the custom list
/// named by `OPERATOR_BUNDLE_CATEGORIES`.
fn check_categories(categories: &str) -> Vec<String> {
    let custom = std::env::var("OPERATOR_BUNDLE_CATEGORIES")
        .ok()
        .filter(|p| !p.is_empty());
    let (allowed, set_name): (Vec<String>, &str) = match custom {
        Some(path) => match custom_categories(&path) {
            Ok(list) => (list, "custom"),
            Err(e) => {
                return vec![format!(
                    "could not extract custom categories from OPERATOR_BUNDLE_CATEGORIES: {e}"
                )]
            }
        },
        None => (
            CATEGORIES.iter().map(|s| (*s).to_string()).collect(),
            "standard",
        ),
    };
    categories
        .split(',')
        .filter(|c| !allowed.iter().any(|a| a == c.trim()))
        .map(|c| {
            format!(
                "csv.Metadata.Annotations[\"categories\"] value {} is not in the set of {set_name} categories",
                go_quote(c)
            )
        })
        .collect()
}

/// Why the file `OPERATOR_BUNDLE_CATEGORIES` names gives no category list.
#[derive(Debug, thiserror::Error)]
enum CategoriesError {
    /// The path cannot be made absolute.
    #[error("finding category file: {0}")]
    Locate(#[source] std::io::Error),
    #[error("reading category file: open {}: {}", .path.display(), open_reason(.source))]
    Read {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("unmarshaling category file: {0}")]
    Unmarshal(#[source] serde_json::Error),
}

/// Go's words for a missing file; the OS error's own otherwise.
fn open_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        _ => e.to_string(),
    }
}

fn custom_categories(path: &str) -> Result<Vec<String>, CategoriesError> {
    let path = std::path::absolute(path).map_err(CategoriesError::Locate)?;
    let data = std::fs::read(&path).map_err(|source| CategoriesError::Read {
        path: path.clone(),
        source,
    })?;
    let value: Value = serde_json::from_slice(&data).map_err(CategoriesError::Unmarshal)?;
    Ok(strings(&value, &["categories"])
        .into_iter()
        .map(str::to_string)
        .collect())
}

/// Characters RFC 5322 allows in an atom.
fn is_atext(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || !c.is_ascii()
}

/// Why Go's `net/mail.ParseAddress` refuses an address, in its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum MailError {
    #[error("mail: no address")]
    NoAddress,
    #[error("mail: unclosed angle-addr")]
    UnclosedAngleAddr,
    #[error("mail: missing '@' or angle-addr")]
    MissingAtOrAngleAddr,
    #[error("mail: missing @ in addr-spec")]
    MissingAt,
    /// An empty local part.
    #[error("mail: missing word in phrase: mail: invalid string")]
    MissingWord,
    #[error("mail: invalid string")]
    InvalidString,
    #[error("mail: no domain in addr-spec")]
    NoDomain,
}

/// Go's `net/mail.ParseAddress`, for the shapes maintainers' emails take:
/// `local@domain` or `Name <local@domain>`.
fn parse_mail_address(address: &str) -> Result<(), MailError> {
    let s = address.trim();
    if s.is_empty() {
        return Err(MailError::NoAddress);
    }
    let spec = if let Some(open) = s.find('<') {
        let Some(inner) = s[open + 1..].strip_suffix('>') else {
            return Err(MailError::UnclosedAngleAddr);
        };
        inner
    } else if s.contains('@') {
        s
    } else {
        return Err(MailError::MissingAtOrAngleAddr);
    };
    let Some((local, domain)) = spec.rsplit_once('@') else {
        return Err(MailError::MissingAt);
    };
    let dot_atom = |part: &str| {
        !part.is_empty()
            && part
                .split('.')
                .all(|atom| !atom.is_empty() && atom.chars().all(is_atext))
    };
    let quoted = local.len() >= 2 && local.starts_with('"') && local.ends_with('"');
    if !quoted && !dot_atom(local) {
        return Err(if local.is_empty() {
            MailError::MissingWord
        } else {
            MailError::InvalidString
        });
    }
    if domain.is_empty() {
        return Err(MailError::NoDomain);
    }
    let literal = domain.starts_with('[') && domain.ends_with(']');
    if !(dot_atom(domain) || literal) {
        return Err(MailError::InvalidString);
    }
    Ok(())
}

/// Why Go's `url.ParseRequestURI` refuses a URL: `parse "<url>": <problem>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("parse {}: {problem}", go_quote(.url))]
struct UrlError {
    url: String,
    problem: UrlProblem,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum UrlProblem {
    #[error("net/url: invalid control character in URL")]
    ControlCharacter,
    #[error("empty url")]
    Empty,
    /// A colon first.
    #[error("missing protocol scheme")]
    MissingScheme,
    /// Neither a scheme nor an absolute path.
    #[error("invalid URI for request")]
    NotAbsolute,
    #[error("invalid character {} in host name", go_quote(&.0.to_string()))]
    HostCharacter(char),
}

/// Go's `url.ParseRequestURI`, with its error wording.
fn parse_request_uri(url: &str) -> Result<(), UrlError> {
    let fail = |problem| {
        Err(UrlError {
            url: url.to_string(),
            problem,
        })
    };
    if url.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return fail(UrlProblem::ControlCharacter);
    }
    if url.is_empty() {
        return fail(UrlProblem::Empty);
    }
    if url == "*" {
        return Ok(());
    }
    let mut scheme = "";
    let mut rest = url;
    for (i, c) in url.char_indices() {
        match c {
            'a'..='z' | 'A'..='Z' => {}
            '0'..='9' | '+' | '-' | '.' if i > 0 => {}
            ':' => {
                if i == 0 {
                    return fail(UrlProblem::MissingScheme);
                }
                scheme = &url[..i];
                rest = &url[i + 1..];
                break;
            }
            _ => break,
        }
    }
    let rest = rest.split_once('?').map_or(rest, |(r, _)| r);
    if !rest.starts_with('/') {
        return if scheme.is_empty() {
            fail(UrlProblem::NotAbsolute)
        } else {
            Ok(())
        };
    }
    if let Some(authority) = rest.strip_prefix("//").filter(|_| !scheme.is_empty()) {
        let authority = authority.split('/').next().unwrap_or_default();
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        if let Some(bad) = host.chars().find(|c| {
            matches!(
                c,
                ' ' | '<' | '>' | '"' | '{' | '}' | '|' | '\\' | '^' | '`'
            )
        }) {
            return fail(UrlProblem::HostCharacter(bad));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mail() {
        assert!(parse_mail_address("someone@example.com").is_ok());
        assert!(parse_mail_address("Some One <someone@example.com>").is_ok());
        assert!(parse_mail_address("\"a b\"@example.com").is_ok());
        assert!(parse_mail_address("a@[10.0.0.1]").is_ok());
        for (address, want) in [
            (" ", "mail: no address"),
            ("Some One <someone@example.com", "mail: unclosed angle-addr"),
            ("not-an-email", "mail: missing '@' or angle-addr"),
            ("Some One <someone>", "mail: missing @ in addr-spec"),
            (
                "@example.com",
                "mail: missing word in phrase: mail: invalid string",
            ),
            ("a..b@example.com", "mail: invalid string"),
            ("a@", "mail: no domain in addr-spec"),
            ("a@exa mple.com", "mail: invalid string"),
        ] {
            let got = parse_mail_address(address).unwrap_err();
            assert_eq!(got.to_string(), want, "{address}");
        }
    }

    #[test]
    fn urls() {
        assert!(parse_request_uri("https://example.com/docs").is_ok());
        assert!(parse_request_uri("/relative").is_ok());
        assert!(parse_request_uri("mailto:x@example.com").is_ok());
        assert!(parse_request_uri("*").is_ok());
        for (url, want) in [
            ("not a url", "parse \"not a url\": invalid URI for request"),
            (
                "https//coreos.com/operators/etcd/docs/latest/",
                "parse \"https//coreos.com/operators/etcd/docs/latest/\": invalid URI for request",
            ),
            (":x", "parse \":x\": missing protocol scheme"),
            ("", "parse \"\": empty url"),
            (
                "https://a\tb",
                "parse \"https://a\\tb\": net/url: invalid control character in URL",
            ),
            (
                "https://a{b/c",
                "parse \"https://a{b/c\": invalid character \"{\" in host name",
            ),
        ] {
            let got = parse_request_uri(url).unwrap_err();
            assert_eq!(got.to_string(), want, "{url}");
        }
    }

    #[test]
    fn custom_category_files() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.json");
        std::fs::write(&good, r#"{"categories": ["A", "B"]}"#).unwrap();
        assert_eq!(
            custom_categories(good.to_str().unwrap()).unwrap(),
            vec!["A", "B"]
        );
        let missing = dir.path().join("missing.json");
        assert_eq!(
            custom_categories(missing.to_str().unwrap())
                .unwrap_err()
                .to_string(),
            format!(
                "reading category file: open {}: no such file or directory",
                missing.display()
            )
        );
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, "{").unwrap();
        assert_eq!(
            custom_categories(bad.to_str().unwrap())
                .unwrap_err()
                .to_string(),
            "unmarshaling category file: EOF while parsing an object at line 1 column 1"
        );
        let empty = std::path::absolute("").unwrap_err();
        assert_eq!(
            CategoriesError::Locate(empty).to_string(),
            "finding category file: cannot make an empty path absolute"
        );
    }

    #[test]
    fn categories() {
        assert!(check_categories("Database, Monitoring").is_empty());
        assert_eq!(
            check_categories("Database,Foo"),
            vec!["csv.Metadata.Annotations[\"categories\"] value \"Foo\" is not in the set of standard categories"]
        );
    }
}
