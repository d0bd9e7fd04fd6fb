//! DNS-1123 label validation for package names, and the other apimachinery
//! name validators bundle validation needs (DNS-1123 subdomain, DNS-1035
//! label, label value, qualified name).
//!
//! `opm validate` rejects a package whose name is not a DNS-1123 label and prints the list of
//! messages from Kubernetes apimachinery `validation.IsDNS1123Label` in Go `%v` form
//! (`[msg1 msg2]`). The texts below are those of apimachinery's
//! `pkg/util/validation/validation.go` as built into upstream `opm`, including the double space
//! before `or` that its `RegexError` helper produces.

/// Longest label DNS (RFC 1123) allows.
pub const DNS1123_LABEL_MAX_LENGTH: usize = 63;

/// The label pattern quoted in the error message.
const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";

const DNS1123_LABEL_ERR_MSG: &str = "a lowercase RFC 1123 label must consist of lower case \
     alphanumeric characters or '-', and must start and end with an alphanumeric character";

/// The messages `IsDNS1123Label` returns for `value`, in its order; empty when valid.
///
/// Length is counted in bytes (Go `len`). The length check and the pattern check are
/// independent, so a long invalid name gets both messages; a name that is a valid DNS-1123
/// subdomain (dot-separated labels) gets `must not contain dots` instead of the pattern text.
pub fn dns1123_label_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_LABEL_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_LABEL_MAX_LENGTH));
    }
    if !is_label(value) {
        if is_subdomain(value) {
            // A valid subdomain that is not a valid label: the length was handled above,
            // so the dots are the problem (upstream's reasoning too).
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_ERR_MSG,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// True when `value` is a valid DNS-1123 label (no messages).
pub fn is_dns1123_label(value: &str) -> bool {
    dns1123_label_errors(value).is_empty()
}

/// Longest DNS-1123 subdomain.
pub const DNS1123_SUBDOMAIN_MAX_LENGTH: usize = 253;

const DNS1123_SUBDOMAIN_FMT: &str =
    r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

const DNS1123_SUBDOMAIN_ERR_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower \
     case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric \
     character";

const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";

const DNS1035_LABEL_ERR_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric \
     characters or '-', start with an alphabetic character, and end with an alphanumeric \
     character";

const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

const LABEL_VALUE_ERR_MSG: &str = "a valid label must be an empty string or consist of \
     alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric \
     character";

const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";

const QUALIFIED_NAME_ERR_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', \
     and must start and end with an alphanumeric character";

/// Longest label value and name part of a qualified name.
const LABEL_VALUE_MAX_LENGTH: usize = 63;

/// The messages of apimachinery `IsDNS1123Subdomain`, in its order; empty when valid.
pub fn dns1123_subdomain_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH));
    }
    if !is_subdomain(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_ERR_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// The messages of apimachinery `IsDNS1035Label`; empty when valid.
pub fn dns1035_label_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_LABEL_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_LABEL_MAX_LENGTH));
    }
    let bytes = value.as_bytes();
    let valid = bytes.first().is_some_and(u8::is_ascii_lowercase) && is_label(value);
    if !valid {
        errs.push(regex_error(
            DNS1035_LABEL_ERR_MSG,
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// The messages of apimachinery `IsValidLabelValue`; empty when valid (the empty
/// string is a valid label value).
pub fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_VALUE_MAX_LENGTH {
        errs.push(max_len_error(LABEL_VALUE_MAX_LENGTH));
    }
    if !value.is_empty() && !is_qualified_name_part(value) {
        errs.push(regex_error(
            LABEL_VALUE_ERR_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// The messages of apimachinery `IsQualifiedName` (`[prefix/]name`); empty when valid.
pub fn qualified_name_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                for msg in dns1123_subdomain_errors(prefix) {
                    errs.push(format!("prefix part {msg}"));
                }
            }
            *name
        }
        _ => {
            return vec![format!(
                "{} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(
                    QUALIFIED_NAME_ERR_MSG,
                    QUALIFIED_NAME_FMT,
                    &["MyName", "my.name", "123-abc"]
                )
            )]
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > LABEL_VALUE_MAX_LENGTH {
        errs.push(format!(
            "name part {}",
            max_len_error(LABEL_VALUE_MAX_LENGTH)
        ));
    }
    if !is_qualified_name_part(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_ERR_MSG,
                QUALIFIED_NAME_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// Matches `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`.
fn is_qualified_name_part(value: &str) -> bool {
    let bytes = value.as_bytes();
    let edge = |b: u8| b.is_ascii_alphanumeric();
    match (bytes.first(), bytes.last()) {
        (Some(&first), Some(&last)) => {
            edge(first)
                && edge(last)
                && bytes
                    .iter()
                    .all(|&b| edge(b) || b == b'-' || b == b'_' || b == b'.')
        }
        _ => false,
    }
}

/// Matches `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$` (no length limit, as the regular expression
/// itself has none).
fn is_label(value: &str) -> bool {
    let bytes = value.as_bytes();
    let edge = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    match (bytes.first(), bytes.last()) {
        (Some(&first), Some(&last)) => {
            edge(first) && edge(last) && bytes.iter().all(|&b| edge(b) || b == b'-')
        }
        _ => false,
    }
}

/// Matches the DNS-1123 subdomain pattern: labels joined by single dots.
fn is_subdomain(value: &str) -> bool {
    value.split('.').all(is_label)
}

/// apimachinery `MaxLenError`.
fn max_len_error(length: usize) -> String {
    format!("must be no more than {length} characters")
}

/// apimachinery `RegexError`: each example is written as `'<ex>', ` and examples after the
/// first are preceded by ` or `, hence `'my-name',  or '123-abc', `.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{fmt}')");
    }
    let mut out = format!("{msg} (e.g. ");
    for (i, example) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push('\'');
        out.push_str(example);
        out.push_str("', ");
    }
    out.push_str("regex used for validation is '");
    out.push_str(fmt);
    out.push_str("')");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATTERN_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    const TOO_LONG: &str = "must be no more than 63 characters";
    const DOTS: &str = "must not contain dots";

    /// Go `%v` of a string slice, as the caller prints it.
    fn go_list(v: &[String]) -> String {
        format!("[{}]", v.join(" "))
    }

    #[test]
    fn messages() {
        let long_ok = "a".repeat(63);
        let long = "a".repeat(64);
        let long_bad = format!("{}-", "a".repeat(64));
        let long_dotted = format!("{}.b", "a".repeat(63));
        let cases: Vec<(&str, Vec<&str>)> = vec![
            ("foo", vec![]),
            ("a", vec![]),
            ("0", vec![]),
            ("123-abc", vec![]),
            ("my--name", vec![]),
            (&long_ok, vec![]),
            ("foo.bar", vec![DOTS]),
            ("a.b.c", vec![DOTS]),
            ("Foo_Bar", vec![PATTERN_MSG]),
            ("Foo", vec![PATTERN_MSG]),
            ("foo-", vec![PATTERN_MSG]),
            ("-foo", vec![PATTERN_MSG]),
            ("", vec![PATTERN_MSG]),
            ("foo..bar", vec![PATTERN_MSG]),
            (".foo", vec![PATTERN_MSG]),
            ("foo.", vec![PATTERN_MSG]),
            ("foo.Bar", vec![PATTERN_MSG]),
            ("foo\n", vec![PATTERN_MSG]),
            ("föo", vec![PATTERN_MSG]),
            (&long, vec![TOO_LONG]),
            (&long_bad, vec![TOO_LONG, PATTERN_MSG]),
            (&long_dotted, vec![TOO_LONG, DOTS]),
        ];
        for (input, want) in cases {
            assert_eq!(dns1123_label_errors(input), want, "input {input:?}");
            assert_eq!(is_dns1123_label(input), want.is_empty());
        }
    }

    #[test]
    fn conformance_lines() {
        // The caller writes `invalid package name "<name>": <Go %v of the list>`.
        let line = |name: &str| {
            format!(
                "invalid package name \"{name}\": {}",
                go_list(&dns1123_label_errors(name))
            )
        };
        assert_eq!(
            line("foo.bar"),
            "invalid package name \"foo.bar\": [must not contain dots]"
        );
        assert_eq!(
            line("Foo_Bar"),
            "invalid package name \"Foo_Bar\": [a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]"
        );
        let long = "a".repeat(64);
        assert_eq!(
            line(&long),
            format!("invalid package name \"{long}\": [must be no more than 63 characters]")
        );
    }

    #[test]
    fn regex_error_forms() {
        assert_eq!(
            regex_error("m", "f", &[]),
            "m (regex used for validation is 'f')"
        );
        assert_eq!(
            regex_error("m", "f", &["a"]),
            "m (e.g. 'a', regex used for validation is 'f')"
        );
    }

    #[test]
    fn other_validators() {
        assert!(dns1123_subdomain_errors("etcdoperator.v0.9.4").is_empty());
        assert_eq!(
            dns1123_subdomain_errors("EtcdOperator_v0.9.4"),
            vec!["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]
        );
        assert_eq!(
            label_value_errors("-x"),
            vec!["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]
        );
        assert!(label_value_errors("").is_empty());
        assert!(qualified_name_errors("app.kubernetes.io/name").is_empty());
        assert_eq!(
            qualified_name_errors("bad key!"),
            vec!["name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]
        );
        assert_eq!(
            qualified_name_errors("/x"),
            vec!["prefix part must be non-empty"]
        );
        assert_eq!(qualified_name_errors("a/b/c").len(), 1);
        assert!(dns1035_label_errors("v1beta1").is_empty());
        assert_eq!(dns1035_label_errors("1v").len(), 1);
    }

    #[test]
    fn odd_inputs_never_panic() {
        for s in [
            "\u{0}",
            "é.é",
            "..",
            ".",
            "-",
            "a-",
            "\u{10ffff}",
            " ",
            "a b",
        ] {
            let _ = dns1123_label_errors(s);
        }
    }
}
