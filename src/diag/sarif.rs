//! Findings as a SARIF 2.1.0 log (Static Analysis Results Interchange Format), the format code
//! scanning services (GitHub's among them) read to annotate the lines of a pull request.
//!
//! One run; the driver lists the rules the results refer to (by id, sorted), each result names
//! its rule, level, message and, when known, the file (a relative URI) and the line and column
//! (counted in Unicode code points, as `columnKind` says).

use super::{Diagnostic, Rule, Severity};
use serde_json::{json, Map, Value};

/// The SARIF log of `findings`; `rules` gives the summaries of their rules (rules not found
/// there are listed by id alone).
pub fn log(findings: &[Diagnostic], rules: &[Rule]) -> Value {
    let mut used: Vec<&str> = findings.iter().map(|finding| finding.rule).collect();
    used.sort_unstable();
    used.dedup();
    let descriptors: Vec<Value> = used
        .iter()
        .map(|id| {
            let mut descriptor = Map::new();
            descriptor.insert("id".into(), (*id).into());
            if let Some(rule) = rules.iter().find(|rule| rule.id == *id) {
                descriptor.insert("shortDescription".into(), json!({ "text": rule.summary }));
                descriptor.insert("fullDescription".into(), json!({ "text": rule.details }));
                descriptor.insert(
                    "defaultConfiguration".into(),
                    json!({ "level": level(rule.severity) }),
                );
            }
            Value::Object(descriptor)
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|finding| {
            let mut result = Map::new();
            result.insert("ruleId".into(), finding.rule.into());
            let index = used.binary_search(&finding.rule).unwrap_or_default();
            result.insert("ruleIndex".into(), index.into());
            result.insert("level".into(), level(finding.severity).into());
            result.insert("message".into(), json!({ "text": finding.message }));
            if let Some(location) = &finding.location {
                let mut physical = Map::new();
                physical.insert(
                    "artifactLocation".into(),
                    json!({ "uri": uri(&location.file) }),
                );
                if let Some(position) = location.position {
                    physical.insert(
                        "region".into(),
                        json!({ "startLine": position.line, "startColumn": position.column }),
                    );
                }
                result.insert(
                    "locations".into(),
                    json!([{ "physicalLocation": Value::Object(physical) }]),
                );
            }
            Value::Object(result)
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "opm",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": "https://olm.operatorframework.io/",
                    "rules": descriptors,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A file path as a relative URI reference: `/` separators, and the characters a URI does not
/// allow percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.replace('\\', "/").bytes() {
        match byte {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'.'
            | b'_'
            | b'~'
            | b'/'
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
            | b'@' => out.push(char::from(byte)),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Location, Subject};
    use crate::encoding::locate::Position;

    #[test]
    fn findings_become_results_of_their_rules() {
        let mut located = Diagnostic::error(
            "package-no-channels",
            Subject::Package { name: "a".into() },
            "package must contain at least one channel",
        );
        let mut location = Location::file("cat/my dir/a.yaml");
        location.position = Some(Position { line: 3, column: 5 });
        located.location = Some(location);
        let bare = Diagnostic::error("alpha-rule", Subject::Catalog, "no place");
        let rules = [Rule {
            id: "package-no-channels",
            severity: Severity::Error,
            summary: "a package has no channel",
            details: "details",
        }];
        let log = log(&[located, bare], &rules);
        let run = &log["runs"][0];
        assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "alpha-rule");
        assert_eq!(
            run["tool"]["driver"]["rules"][1]["shortDescription"]["text"],
            "a package has no channel"
        );
        let result = &run["results"][0];
        assert_eq!(result["ruleIndex"], 1);
        assert_eq!(
            result["locations"][0]["physicalLocation"],
            json!({"artifactLocation": {"uri": "cat/my%20dir/a.yaml"}, "region": {"startLine": 3, "startColumn": 5}})
        );
        assert!(run["results"][1].get("locations").is_none());
    }
}
