//! Checks of the dependencies file's entries (upstream's
//! `validateDependencies`): each `value` is decoded by `type` with Go's
//! `encoding/json` rules (keys match case-insensitively, unknown keys are
//! ignored, `null` is the zero value) and then checked.
//!
//! `olm.constraint` accepts every form OLM supports (`cel`, `package`, `gvk`
//! and the compound `all`, `any`, `not`, plus the deprecated `none`), nested
//! to any depth; upstream understands only `cel`. No printing here.

use crate::bundle::property_list::RawProperty;
use crate::bundle::rules::{
    finding, DEPENDENCY_CONSTRAINT_AMBIGUOUS, DEPENDENCY_CONSTRAINT_CEL_INVALID,
    DEPENDENCY_CONSTRAINT_FORM_IGNORED, DEPENDENCY_CONSTRAINT_INVALID, DEPENDENCY_GVK_INVALID,
    DEPENDENCY_LABEL_INVALID, DEPENDENCY_PACKAGE_INVALID, DEPENDENCY_UNPARSEABLE,
};
use crate::diag::Diagnostic;
use crate::encoding::gojson::{self, GoJsonError, GoStruct};
use crate::semver::Range;
use serde_json::Value;

/// Every rule of this module, in check order.
pub const RULES: &[&str] = &[
    DEPENDENCY_UNPARSEABLE,
    DEPENDENCY_GVK_INVALID,
    DEPENDENCY_PACKAGE_INVALID,
    DEPENDENCY_LABEL_INVALID,
    DEPENDENCY_CONSTRAINT_INVALID,
    DEPENDENCY_CONSTRAINT_CEL_INVALID,
    DEPENDENCY_CONSTRAINT_AMBIGUOUS,
    DEPENDENCY_CONSTRAINT_FORM_IGNORED,
];

const GVK: GoStruct = GoStruct {
    name: "registry.GVKDependency",
    fields: &["group", "version", "kind"],
};
const PACKAGE: GoStruct = GoStruct {
    name: "registry.PackageDependency",
    fields: &["packageName", "version"],
};
const LABEL: GoStruct = GoStruct {
    name: "registry.LabelDependency",
    fields: &["label"],
};

/// Checks every entry, in file order; `file` is the dependencies file
/// relative to the bundle root.
pub(super) fn check_dependencies(entries: &[RawProperty], file: &str) -> Vec<Diagnostic> {
    let mut findings = Vec::new();
    for entry in entries {
        let value = entry.value.as_deref();
        let checked = match entry.kind.as_str() {
            "olm.gvk" => gojson::decode_strings(value, &GVK)
                .map_err(ValueError::from)
                .map(|fields| gvk_problems(&fields[0], &fields[1], &fields[2])),
            "olm.package" => gojson::decode_strings(value, &PACKAGE)
                .map_err(ValueError::from)
                .map(|fields| {
                    package_problems(&fields[0], &fields[1])
                        .into_iter()
                        .map(|message| Problem::error(DEPENDENCY_PACKAGE_INVALID, message))
                        .collect()
                }),
            "olm.label" => gojson::decode_strings(value, &LABEL)
                .map_err(ValueError::from)
                .map(|fields| {
                    if fields[0].is_empty() {
                        vec![Problem::error(
                            DEPENDENCY_LABEL_INVALID,
                            "Label information is missing".into(),
                        )]
                    } else {
                        Vec::new()
                    }
                }),
            "olm.constraint" => decode_constraint_value(value).map(|c| constraint_problems(&c)),
            _ => Err(ValueError::UnknownType),
        };
        match checked {
            Ok(problems) => findings.extend(
                problems
                    .into_iter()
                    .map(|p| finding(p.rule, p.message, Some(file.to_string()))),
            ),
            Err(_) => findings.push(finding(
                DEPENDENCY_UNPARSEABLE,
                format!("couldn't parse dependency of type {}", entry.kind),
                Some(file.to_string()),
            )),
        }
    }
    findings
}

/// Why an entry's value does not decode into what its type needs (the entry
/// is then `couldn't parse dependency of type <type>`, which is all upstream
/// says).
#[derive(Debug, thiserror::Error)]
enum ValueError {
    /// A type this check does not know.
    #[error("unknown dependency type")]
    UnknownType,
    #[error(transparent)]
    Json(#[from] GoJsonError),
    /// A constraint (or a sub-constraint) that is not an object.
    #[error("not an object")]
    NotObject,
    /// A constraint's form (`cel`, `package`, `gvk`, `all`, …) that is not
    /// an object.
    #[error("{0} is not an object")]
    FormNotObject(&'static str),
    /// A string field holding another type.
    #[error("not a string")]
    NotString,
    /// A compound form whose `constraints` is not a list.
    #[error("constraints is not a list")]
    ConstraintsNotList,
}

struct Problem {
    rule: &'static str,
    message: String,
}

impl Problem {
    fn error(rule: &'static str, message: String) -> Problem {
        Problem { rule, message }
    }
}

fn gvk_problems(group: &str, version: &str, kind: &str) -> Vec<Problem> {
    [
        (group, "API Group is empty"),
        (version, "API Version is empty"),
        (kind, "API Kind is empty"),
    ]
    .into_iter()
    .filter(|(value, _)| value.is_empty())
    .map(|(_, message)| Problem::error(DEPENDENCY_GVK_INVALID, message.into()))
    .collect()
}

/// Upstream's `PackageDependency.Validate`.
fn package_problems(name: &str, version: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if name.is_empty() {
        problems.push("Package name is empty".to_string());
    }
    if version.is_empty() {
        problems.push("Package version is empty".to_string());
    } else if Range::parse(version).is_err() {
        problems.push("Invalid semver format version".to_string());
    }
    problems
}

/// OLM's `constraints.Constraint`, as far as it is checked.
#[derive(Debug, Default)]
struct Constraint {
    cel: Option<String>,
    package: Option<[String; 2]>,
    gvk: Option<[String; 3]>,
    /// `all`, `any`, `not`, `none`, with their sub-constraints.
    compound: Vec<(&'static str, Vec<Constraint>)>,
}

impl Constraint {
    /// The names of the forms set, in OLM's field order.
    fn forms(&self) -> Vec<&'static str> {
        let mut forms = Vec::new();
        if self.cel.is_some() {
            forms.push("cel");
        }
        if self.package.is_some() {
            forms.push("package");
        }
        if self.gvk.is_some() {
            forms.push("gvk");
        }
        forms.extend(self.compound.iter().map(|(name, _)| *name));
        forms
    }
}

const COMPOUND_FORMS: [&str; 4] = ["all", "any", "not", "none"];

fn decode_constraint_value(raw: Option<&str>) -> Result<Constraint, ValueError> {
    let text = raw.ok_or(GoJsonError::UnexpectedEnd)?;
    let value: Value = serde_json::from_str(text).map_err(GoJsonError::from)?;
    decode_constraint(&value)
}

/// Decodes one constraint like Go's `json.Unmarshal` (a type error anywhere
/// fails the whole value).
fn decode_constraint(value: &Value) -> Result<Constraint, ValueError> {
    let mut constraint = Constraint::default();
    match value {
        Value::Null => return Ok(constraint),
        Value::Object(_) => {}
        _ => return Err(ValueError::NotObject),
    }
    optional_string(gojson::field(value, "failureMessage"))?;
    if let Some(cel) = object_field(value, "cel")? {
        constraint.cel = Some(optional_string(gojson::field(cel, "rule"))?);
    }
    if let Some(package) = object_field(value, "package")? {
        constraint.package = Some([
            optional_string(gojson::field(package, "packageName"))?,
            optional_string(gojson::field(package, "versionRange"))?,
        ]);
    }
    if let Some(gvk) = object_field(value, "gvk")? {
        constraint.gvk = Some([
            optional_string(gojson::field(gvk, "group"))?,
            optional_string(gojson::field(gvk, "version"))?,
            optional_string(gojson::field(gvk, "kind"))?,
        ]);
    }
    for name in COMPOUND_FORMS {
        let Some(compound) = object_field(value, name)? else {
            continue;
        };
        let members = match gojson::field(compound, "constraints") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(decode_constraint)
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(ValueError::ConstraintsNotList),
        };
        constraint.compound.push((name, members));
    }
    Ok(constraint)
}

/// A pointer-to-struct field: absent or `null` is `None`.
fn object_field<'a>(value: &'a Value, name: &'static str) -> Result<Option<&'a Value>, ValueError> {
    match gojson::field(value, name) {
        None | Some(Value::Null) => Ok(None),
        Some(inner @ Value::Object(_)) => Ok(Some(inner)),
        Some(_) => Err(ValueError::FormNotObject(name)),
    }
}

/// A string field: absent or `null` is `""`.
fn optional_string(value: Option<&Value>) -> Result<String, ValueError> {
    match value {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(ValueError::NotString),
    }
}

/// The problems of a top-level constraint.
fn constraint_problems(constraint: &Constraint) -> Vec<Problem> {
    if constraint.forms().is_empty() {
        // Upstream's text: it knows only the `cel` form.
        return vec![Problem::error(
            DEPENDENCY_CONSTRAINT_INVALID,
            "The CEL field is missing".into(),
        )];
    }
    let mut problems = Vec::new();
    check_constraint(constraint, "", &mut problems);
    if constraint.cel.is_some() {
        // Upstream accepts any top-level constraint whose CEL rule is good,
        // whatever else it carries: problems elsewhere only warn.
        for problem in &mut problems {
            if !matches!(
                problem.rule,
                DEPENDENCY_CONSTRAINT_CEL_INVALID | DEPENDENCY_CONSTRAINT_AMBIGUOUS
            ) {
                problem.rule = DEPENDENCY_CONSTRAINT_FORM_IGNORED;
            }
        }
    }
    problems
}

/// Checks each form a constraint sets; `path` locates a nested constraint
/// (`all.constraints[0]`), empty at the top.
fn check_constraint(constraint: &Constraint, path: &str, problems: &mut Vec<Problem>) {
    let at = |message: &str| {
        if path.is_empty() {
            message.to_string()
        } else {
            format!("{path}: {message}")
        }
    };
    let forms = constraint.forms();
    match forms.len() {
        0 => problems.push(Problem::error(
            DEPENDENCY_CONSTRAINT_INVALID,
            at("The constraint is empty: set one of cel, package, gvk, all, any or not"),
        )),
        1 => {}
        _ => problems.push(Problem {
            rule: DEPENDENCY_CONSTRAINT_AMBIGUOUS,
            message: at(&format!(
                "The constraint sets more than one of cel, package, gvk, all, any, not ({}); OLM evaluates only one",
                forms.join(", ")
            )),
        }),
    }
    if let Some(rule) = &constraint.cel {
        if rule.is_empty() {
            problems.push(Problem::error(
                DEPENDENCY_CONSTRAINT_CEL_INVALID,
                at("The CEL expression is missing"),
            ));
        } else if let Err(message) = crate::cel::check_constraint_rule(rule) {
            problems.push(Problem::error(
                DEPENDENCY_CONSTRAINT_CEL_INVALID,
                at(&format!("Invalid CEL expression: {message}")),
            ));
        }
    }
    if let Some([name, range]) = &constraint.package {
        if name.is_empty() {
            problems.push(Problem::error(
                DEPENDENCY_CONSTRAINT_INVALID,
                at("Package name is empty"),
            ));
        }
        if range.is_empty() {
            problems.push(Problem::error(
                DEPENDENCY_CONSTRAINT_INVALID,
                at("Package version range is empty"),
            ));
        } else if let Err(e) = Range::parse(range) {
            problems.push(Problem::error(
                DEPENDENCY_CONSTRAINT_INVALID,
                at(&format!(
                    "Invalid semver format version range: {}",
                    e.message()
                )),
            ));
        }
    }
    if let Some([group, version, kind]) = &constraint.gvk {
        for mut problem in gvk_problems(group, version, kind) {
            problem.rule = DEPENDENCY_CONSTRAINT_INVALID;
            problem.message = at(&problem.message);
            problems.push(problem);
        }
    }
    for (name, members) in &constraint.compound {
        let prefix = if path.is_empty() {
            (*name).to_string()
        } else {
            format!("{path}.{name}")
        };
        if members.is_empty() {
            problems.push(Problem::error(
                DEPENDENCY_CONSTRAINT_INVALID,
                format!("{prefix}: The compound constraint lists no constraints"),
            ));
        }
        for (i, member) in members.iter().enumerate() {
            check_constraint(member, &format!("{prefix}.constraints[{i}]"), problems);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Severity;

    fn check(kind: &str, value: Option<&str>) -> Vec<(&'static str, Severity, String)> {
        let entry = RawProperty {
            kind: kind.to_string(),
            value: value.map(str::to_string),
        };
        check_dependencies(&[entry], "metadata/dependencies.yaml")
            .into_iter()
            .map(|f| (f.rule, f.severity, f.message))
            .collect()
    }

    fn messages(kind: &str, value: &str) -> Vec<String> {
        check(kind, Some(value)).into_iter().map(|f| f.2).collect()
    }

    #[test]
    fn unparseable_values() {
        for (kind, value) in [
            ("olm.gvk", None),
            ("olm.package", Some("\"a string\"")),
            ("olm.label", Some("[]")),
            ("olm.gvk", Some(r#"{"group": 1}"#)),
            ("olm.crd", Some(r#"{"group": "x"}"#)),
            ("olm.deprecated", Some("{}")),
            ("olm.constraint", None),
            ("olm.constraint", Some(r#"{"cel": "x"}"#)),
            ("olm.constraint", Some(r#"{"all": {"constraints": [1]}}"#)),
        ] {
            assert_eq!(
                check(kind, value),
                [(
                    DEPENDENCY_UNPARSEABLE,
                    Severity::Error,
                    format!("couldn't parse dependency of type {kind}")
                )],
                "{kind} {value:?}"
            );
        }
    }

    /// Why each constraint value does not decode (upstream prints none of
    /// it; the texts are for debugging).
    #[test]
    fn constraint_decoding_errors() {
        for (value, want) in [
            (None, "unexpected end of JSON input"),
            (Some("{"), "EOF while parsing an object at line 1 column 1"),
            (Some("1"), "not an object"),
            (Some(r#"{"cel": "x"}"#), "cel is not an object"),
            (Some(r#"{"failureMessage": 1}"#), "not a string"),
            (
                Some(r#"{"any": {"constraints": {}}}"#),
                "constraints is not a list",
            ),
            (
                Some(r#"{"all": {"constraints": [{"gvk": {"kind": 2}}]}}"#),
                "not a string",
            ),
        ] {
            let got = decode_constraint_value(value).map(|_| ()).unwrap_err();
            assert_eq!(got.to_string(), want, "{value:?}");
        }
        assert_eq!(
            ValueError::UnknownType.to_string(),
            "unknown dependency type"
        );
    }

    #[test]
    fn gvk_package_and_label_checks() {
        assert_eq!(
            messages("olm.gvk", "null"),
            [
                "API Group is empty",
                "API Version is empty",
                "API Kind is empty"
            ]
        );
        assert!(messages("olm.gvk", r#"{"Group": "g", "VERSION": "v1", "kind": "K"}"#).is_empty());
        assert_eq!(
            messages("olm.package", r#"{"version": "0.2.0"}"#),
            ["Package name is empty"]
        );
        assert_eq!(
            messages(
                "olm.package",
                r#"{"packageName": "p", "version": ">!0.2.0"}"#
            ),
            ["Invalid semver format version"]
        );
        assert_eq!(
            messages("olm.package", r#"{"packgeName": "p"}"#),
            ["Package name is empty", "Package version is empty"]
        );
        for good in [">=1.0.0 <2.0.0 || 3.x", "< 2.0.0", "1.x", "1.0.0 - 2.0.0"] {
            let value = serde_json::json!({"packageName": "p", "version": good}).to_string();
            assert!(messages("olm.package", &value).is_empty(), "{good}");
        }
        for bad in ["1.0.0||2.0.0", ">=1.0", "~1.2.0", "*"] {
            let value = serde_json::json!({"packageName": "p", "version": bad}).to_string();
            assert_eq!(
                messages("olm.package", &value),
                ["Invalid semver format version"],
                "{bad}"
            );
        }
        assert_eq!(
            messages("olm.label", "null"),
            ["Label information is missing"]
        );
        assert!(messages("olm.label", r#"{"label": "beta"}"#).is_empty());
    }

    #[test]
    fn cel_form_keeps_upstream_messages() {
        assert_eq!(
            messages("olm.constraint", "{}"),
            ["The CEL field is missing"]
        );
        assert_eq!(
            messages("olm.constraint", "null"),
            ["The CEL field is missing"]
        );
        assert_eq!(
            messages(
                "olm.constraint",
                r#"{"failureMessage": "x", "cel": {"rule": ""}}"#
            ),
            ["The CEL expression is missing"]
        );
        assert_eq!(
            messages("olm.constraint", r#"{"cel": {}}"#),
            ["The CEL expression is missing"]
        );
        let got = messages(
            "olm.constraint",
            r#"{"cel": {"rule": "properties.exists(p, p.type == "}}"#,
        );
        assert_eq!(got.len(), 1);
        assert!(got[0].starts_with("Invalid CEL expression: "), "{got:?}");
        assert!(messages(
            "olm.constraint",
            r#"{"cel": {"rule": "properties.exists(p, p.type == \"certified\")"}}"#
        )
        .is_empty());
    }

    #[test]
    fn every_olm_form_is_accepted() {
        for value in [
            r#"{"failureMessage": "needs etcd", "package": {"packageName": "etcd", "versionRange": ">=0.9.0"}}"#,
            r#"{"gvk": {"group": "etcd.database.coreos.com", "version": "v1beta2", "kind": "EtcdCluster"}}"#,
            r#"{"all": {"constraints": [{"package": {"packageName": "a", "versionRange": "1.x"}}, {"gvk": {"group": "g", "version": "v1", "kind": "K"}}]}}"#,
            r#"{"any": {"constraints": [{"cel": {"rule": "true"}}]}}"#,
            r#"{"not": {"constraints": [{"any": {"constraints": [{"package": {"packageName": "b", "versionRange": "<1.0.0"}}]}}]}}"#,
            r#"{"none": {"constraints": [{"package": {"packageName": "b", "versionRange": "<1.0.0"}}]}}"#,
        ] {
            assert!(messages("olm.constraint", value).is_empty(), "{value}");
        }
    }

    #[test]
    fn structure_of_each_form_is_checked() {
        assert_eq!(
            messages("olm.constraint", r#"{"package": {"versionRange": ">=1.0"}}"#),
            [
                "Package name is empty",
                "Invalid semver format version range: Could not parse Range \">=1.0\": Could not parse version \"1.0\" in \">=1.0\": No Major.Minor.Patch elements found",
            ]
        );
        assert_eq!(
            messages("olm.constraint", r#"{"package": {"packageName": "p"}}"#),
            ["Package version range is empty"]
        );
        assert_eq!(
            messages("olm.constraint", r#"{"gvk": {}}"#),
            [
                "API Group is empty",
                "API Version is empty",
                "API Kind is empty"
            ]
        );
        assert_eq!(
            messages(
                "olm.constraint",
                r#"{"all": {"constraints": [{"gvk": {"group": "g", "version": "v1"}}, {}, {"not": {}}]}}"#
            ),
            [
                "all.constraints[0]: API Kind is empty",
                "all.constraints[1]: The constraint is empty: set one of cel, package, gvk, all, any or not",
                "all.constraints[2].not: The compound constraint lists no constraints",
            ]
        );
        assert_eq!(
            messages(
                "olm.constraint",
                r#"{"any": {"constraints": [{"cel": {"rule": ""}}]}}"#
            ),
            ["any.constraints[0]: The CEL expression is missing"]
        );
    }

    #[test]
    fn several_forms_warn_and_upstream_accepted_cel_stays_accepted() {
        let got = check(
            "olm.constraint",
            Some(r#"{"cel": {"rule": "true"}, "package": {"packageName": ""}}"#),
        );
        assert!(got.iter().all(|f| f.1 == Severity::Warning), "{got:?}");
        assert_eq!(got[0].0, DEPENDENCY_CONSTRAINT_AMBIGUOUS);
        assert_eq!(got[1].0, DEPENDENCY_CONSTRAINT_FORM_IGNORED);
        assert_eq!(got.len(), 3);
        let got = check(
            "olm.constraint",
            Some(
                r#"{"gvk": {"group": "g", "version": "v1", "kind": "K"}, "any": {"constraints": [{}]}}"#,
            ),
        );
        assert_eq!(got[0].1, Severity::Warning);
        assert_eq!(got[1].1, Severity::Error);
    }
}
