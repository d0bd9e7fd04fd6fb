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
                    "could not extract custom categories from categories map[string]struct {{}}(nil): {e}"
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

fn custom_categories(path: &str) -> Result<Vec<String>, String> {
    let absolute = std::path::absolute(path).map_err(|e| format!("finding category file: {e}"))?;
    let data = std::fs::read(&absolute).map_err(|e| {
        let reason = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
            _ => e.to_string(),
        };
        format!(
            "reading category file: open {}: {reason}",
            absolute.display()
        )
    })?;
    let value: Value =
        serde_json::from_slice(&data).map_err(|e| format!("unmarshaling category file: {e}"))?;
    Ok(strings(&value, &["categories"])
        .into_iter()
        .map(str::to_string)
        .collect())
}

/// Characters RFC 5322 allows in an atom.
fn is_atext(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || !c.is_ascii()
}

/// Go's `net/mail.ParseAddress`, for the shapes maintainers' emails take:
/// `local@domain` or `Name <local@domain>`; errors use its wording.
fn parse_mail_address(address: &str) -> Result<(), String> {
    let s = address.trim();
    if s.is_empty() {
        return Err("mail: no address".into());
    }
    let spec = if let Some(open) = s.find('<') {
        let Some(inner) = s[open + 1..].strip_suffix('>') else {
            return Err("mail: unclosed angle-addr".into());
        };
        inner
    } else if s.contains('@') {
        s
    } else {
        return Err("mail: missing '@' or angle-addr".into());
    };
    let Some((local, domain)) = spec.rsplit_once('@') else {
        return Err("mail: missing @ in addr-spec".into());
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
            "mail: missing word in phrase: mail: invalid string".into()
        } else {
            "mail: invalid string".into()
        });
    }
    if domain.is_empty() {
        return Err("mail: no domain in addr-spec".into());
    }
    let literal = domain.starts_with('[') && domain.ends_with(']');
    if !(dot_atom(domain) || literal) {
        return Err("mail: invalid string".into());
    }
    Ok(())
}

/// Go's `url.ParseRequestURI`, with its error wording
/// (`parse "<url>": invalid URI for request`).
fn parse_request_uri(url: &str) -> Result<(), String> {
    let fail = |msg: &str| Err(format!("parse {}: {msg}", go_quote(url)));
    if url.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return fail("net/url: invalid control character in URL");
    }
    if url.is_empty() {
        return fail("empty url");
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
                    return fail("missing protocol scheme");
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
            fail("invalid URI for request")
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
            return fail(&format!(
                "invalid character {} in host name",
                go_quote(&bad.to_string())
            ));
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
        assert_eq!(
            parse_mail_address("not-an-email").unwrap_err(),
            "mail: missing '@' or angle-addr"
        );
        assert_eq!(parse_mail_address(" ").unwrap_err(), "mail: no address");
        assert!(parse_mail_address("a@").is_err());
    }

    #[test]
    fn urls() {
        assert!(parse_request_uri("https://example.com/docs").is_ok());
        assert!(parse_request_uri("/relative").is_ok());
        assert!(parse_request_uri("mailto:x@example.com").is_ok());
        assert_eq!(
            parse_request_uri("not a url").unwrap_err(),
            "parse \"not a url\": invalid URI for request"
        );
        assert_eq!(
            parse_request_uri("https//coreos.com/operators/etcd/docs/latest/").unwrap_err(),
            "parse \"https//coreos.com/operators/etcd/docs/latest/\": invalid URI for request"
        );
        assert_eq!(
            parse_request_uri(":x").unwrap_err(),
            "parse \":x\": missing protocol scheme"
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
