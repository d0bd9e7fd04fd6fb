//! The two message shapes content validation reports in:
//!
//! * operator-framework/api's `errors.Error`, without the level word upstream
//!   prints first (a finding's severity is its rule's, shown once by the
//!   report): `Field <f>, Value <v>: <detail>` (field and value each
//!   optional; an empty-string value still counts), and its CSV form
//!   `(<csv>) <detail>` (upstream's `Error: Value : (<csv>) <detail>`, whose
//!   empty value is dropped);
//! * Kubernetes field errors: `<path>: Invalid value: "x": <detail>`,
//!   `<path>: Required value`, `<path>: Forbidden: <detail>`, ….
//!
//! Where upstream prints a Go struct dump (`%v`, `%#v`) of a bad value, a
//! compact JSON rendering of the same value is printed instead.

use crate::encoding::json::{compact, go_quote};
use serde_json::Value;

/// operator-framework/api `errors.Error.Error()` without its level word:
/// `field` is left out when empty, `value` when `None`; with neither, the
/// detail alone.
pub(crate) fn api(field: &str, value: Option<&str>, detail: &str) -> String {
    let detail_after = if detail.is_empty() {
        String::new()
    } else {
        format!(": {detail}")
    };
    match (field.is_empty(), value) {
        (false, Some(v)) => format!("Field {field}, Value {v}{detail_after}"),
        (false, None) => format!("Field {field}{detail_after}"),
        (true, Some(v)) => format!("Value {v}{detail_after}"),
        (true, None) => detail.to_string(),
    }
}

/// `ErrInvalidCSV`/`WarnInvalidCSV`: `(<csv>) <detail>`.
pub(crate) fn csv(csv_name: &str, detail: &str) -> String {
    format!("({csv_name}) {detail}")
}

/// A bad value in a Kubernetes field error.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Bad {
    Str(String),
    /// A number or boolean, printed as is.
    Plain(String),
    /// Anything else: upstream dumps a Go struct; we print compact JSON.
    Json(Value),
}

impl Bad {
    /// Go `%v` (strings unquoted).
    pub(crate) fn display(&self) -> String {
        match self {
            Bad::Str(s) | Bad::Plain(s) => s.clone(),
            Bad::Json(v) => compact(v),
        }
    }

    /// How a field error prints it (strings quoted with `%q`).
    fn quoted(&self) -> String {
        match self {
            Bad::Str(s) => go_quote(s),
            Bad::Plain(s) => s.clone(),
            Bad::Json(v) => compact(v),
        }
    }
}

/// The kind of a Kubernetes field error.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FieldKind {
    Invalid(Bad),
    Required,
    Forbidden,
    /// `Unsupported value: <v>: supported values: "a", "b"`.
    Unsupported(Bad, &'static [&'static str]),
    TooLong,
}

/// A Kubernetes `field.Error`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldError {
    pub path: String,
    pub kind: FieldKind,
    pub detail: String,
}

impl FieldError {
    pub(crate) fn invalid(path: impl Into<String>, value: Bad, detail: impl Into<String>) -> Self {
        FieldError {
            path: path.into(),
            kind: FieldKind::Invalid(value),
            detail: detail.into(),
        }
    }

    pub(crate) fn required(path: impl Into<String>, detail: impl Into<String>) -> Self {
        FieldError {
            path: path.into(),
            kind: FieldKind::Required,
            detail: detail.into(),
        }
    }

    pub(crate) fn forbidden(path: impl Into<String>, detail: impl Into<String>) -> Self {
        FieldError {
            path: path.into(),
            kind: FieldKind::Forbidden,
            detail: detail.into(),
        }
    }

    pub(crate) fn unsupported(
        path: impl Into<String>,
        value: Bad,
        supported: &'static [&'static str],
    ) -> Self {
        FieldError {
            path: path.into(),
            kind: FieldKind::Unsupported(value, supported),
            detail: String::new(),
        }
    }

    /// `field.Error.Error()`.
    pub(crate) fn message(&self) -> String {
        let mut s = match &self.kind {
            FieldKind::Invalid(v) => format!("Invalid value: {}", v.quoted()),
            FieldKind::Required => "Required value".to_string(),
            FieldKind::Forbidden => "Forbidden".to_string(),
            FieldKind::TooLong => "Too long".to_string(),
            FieldKind::Unsupported(v, supported) => {
                let list: Vec<String> = supported.iter().map(|s| go_quote(s)).collect();
                format!(
                    "Unsupported value: {}: supported values: {}",
                    v.quoted(),
                    list.join(", ")
                )
            }
        };
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        format!("{}: {s}", self.path)
    }

    /// The bad value as operator-framework/api prints it (`%v`); required
    /// and forbidden errors carry an empty string.
    pub(crate) fn bad_value(&self) -> String {
        match &self.kind {
            FieldKind::Invalid(v) | FieldKind::Unsupported(v, _) => v.display(),
            FieldKind::Required | FieldKind::Forbidden | FieldKind::TooLong => String::new(),
        }
    }
}

/// Kubernetes `ErrorList.ToAggregate().Error()`: one message as is, several
/// as `[m1, m2]` (duplicates removed).
pub(crate) fn aggregate(errors: &[FieldError]) -> String {
    let mut messages: Vec<String> = Vec::new();
    for e in errors {
        let m = e.message();
        if !messages.contains(&m) {
            messages.push(m);
        }
    }
    if messages.len() == 1 {
        messages.remove(0)
    } else {
        format!("[{}]", messages.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_shapes() {
        assert_eq!(
            csv("etcdoperator.v0.9.4", "install modes not found"),
            "(etcdoperator.v0.9.4) install modes not found"
        );
        assert_eq!(
            api("", None, "couldn't parse plural.group from crd name: x"),
            "couldn't parse plural.group from crd name: x"
        );
        assert_eq!(
            api("Spec.DisplayName", Some("field"), "required field missing"),
            "Field Spec.DisplayName, Value field: required field missing"
        );
        assert_eq!(
            api("Spec.DisplayName", None, "required field missing"),
            "Field Spec.DisplayName: required field missing"
        );
        assert_eq!(
            api("", Some("etcdoperator.v0.9.4"), "provided annotation x"),
            "Value etcdoperator.v0.9.4: provided annotation x"
        );
    }

    #[test]
    fn field_shapes() {
        let e = FieldError::invalid(
            "metadata.name",
            Bad::Str("x".into()),
            "must be spec.names.plural+\".\"+spec.group",
        );
        assert_eq!(
            e.message(),
            "metadata.name: Invalid value: \"x\": must be spec.names.plural+\".\"+spec.group"
        );
        let e = FieldError::unsupported(
            "spec.scope",
            Bad::Str("Global".into()),
            &["Cluster", "Namespaced"],
        );
        assert_eq!(
            e.message(),
            "spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\""
        );
        let a = FieldError::required("metadata.name", "name or generateName is required");
        let b = FieldError::forbidden("metadata.namespace", "not allowed on this type");
        assert_eq!(aggregate(std::slice::from_ref(&a)), a.message());
        assert_eq!(
            aggregate(&[a.clone(), b.clone(), a]),
            "[metadata.name: Required value: name or generateName is required, metadata.namespace: Forbidden: not allowed on this type]"
        );
    }
}
