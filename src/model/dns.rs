//! DNS-1123 label validation for package names.
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
