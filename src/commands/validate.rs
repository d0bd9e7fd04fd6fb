use crate::cli::{Choice, ValidateArgs, ValidateFormat};
use crate::declcfg::load::{load_dir_counted, BundleObjects};
use crate::encoding::json::{go_quote, Pretty};
use crate::validate::Outcome;
use crate::ExitStatus;
use anyhow::bail;
use serde_json::{Map, Value};
use std::path::Path;

pub(super) fn run(args: ValidateArgs) -> anyhow::Result<ExitStatus> {
    let ValidateArgs {
        dirs,
        output,
        list_rules,
        explain,
        strict,
    } = args;
    if list_rules {
        let rules = crate::validate::registry::every();
        let width = rules.iter().map(|rule| rule.id.len()).max().unwrap_or(0);
        let mut text = String::new();
        for rule in rules {
            text.push_str(&format!(
                "{:<width$}  {:<7}  {}\n",
                rule.id,
                rule.severity.to_string(),
                rule.summary
            ));
        }
        crate::output::stdout(text.as_bytes())?;
        return Ok(ExitStatus::Success);
    }
    if let Some(id) = explain {
        let rules = crate::validate::registry::every();
        let Some(rule) = rules.iter().find(|rule| rule.id == id) else {
            bail!(
                "unknown rule {} (opm validate --list-rules lists them)",
                go_quote(&id)
            );
        };
        let text = format!(
            "{}\nseverity: {}\n\n{}\n\n{}\n",
            rule.id, rule.severity, rule.summary, rule.details
        );
        crate::output::stdout(text.as_bytes())?;
        return Ok(ExitStatus::Success);
    }
    let dir = super::exactly_one(&dirs)?;
    match std::fs::metadata(dir) {
        Err(e) => bail!("stat {dir}: {}", crate::declcfg::load::io_message(&e)),
        Ok(meta) if !meta.is_dir() => bail!("{} is not a directory", go_quote(dir)),
        Ok(_) => {}
    }
    // Upstream checks the output format only after validating.
    let progress = std::sync::Arc::new(crate::declcfg::load::LoadProgress::default());
    let ticker = super::progress::Ticker::start(dir.to_string(), progress.clone());
    let loaded = load_dir_counted(Path::new(dir), dir, BundleObjects::Drop, &progress);
    drop(ticker);
    let outcome = Outcome::of(loaded, strict);
    match output {
        Choice::Known(ValidateFormat::Text) => {
            let shown = outcome.shown(dir);
            for line in &shown.lines {
                crate::output::info(line);
            }
            match shown.summary {
                Some(summary) => Err(match not_a_catalog_hint(dir) {
                    Some(hint) => super::with_hint(anyhow::Error::msg(summary), hint),
                    None => anyhow::Error::msg(summary),
                }),
                None => Ok(ExitStatus::Success),
            }
        }
        Choice::Known(ValidateFormat::Sarif) => {
            let log =
                crate::diag::sarif::log(&outcome.findings(), &crate::validate::registry::every());
            let mut text = serde_json::to_string_pretty(&log)?;
            text.push('\n');
            crate::output::stdout(text.as_bytes())?;
            Ok(if outcome.failed() {
                ExitStatus::Failure
            } else {
                ExitStatus::Success
            })
        }
        Choice::Known(format @ (ValidateFormat::Json | ValidateFormat::Yaml)) => {
            let message = outcome.message();
            let text = if format == ValidateFormat::Json {
                result_json(message.as_deref())
            } else {
                result_yaml(message.as_deref())
            };
            crate::output::stdout(text.as_bytes())?;
            Ok(if outcome.failed() {
                ExitStatus::Failure
            } else {
                ExitStatus::Success
            })
        }
        Choice::Other(value) => Err(super::usage(
            crate::cli::InvalidOutput {
                value,
                expected: "(json|yaml)",
            }
            .to_string(),
        )),
    }
}

/// What to check instead when `dir` holds bundles, not a catalog.
fn not_a_catalog_hint(dir: &str) -> Option<String> {
    use crate::action::hints::NotACatalog;
    Some(match crate::action::hints::not_a_catalog(dir)? {
        NotACatalog::Bundle => format!(
            "{dir} is a bundle directory, not a file-based catalog: check it with opm bundle validate {dir}"
        ),
        NotACatalog::Manifests { bundle } => format!(
            "{dir} is a bundle's manifests directory: check the bundle with opm bundle validate {bundle}"
        ),
        NotACatalog::Bundles { bundles, .. } => format!(
            "{dir} holds bundle directories, not a file-based catalog: check each with opm bundle validate (opm bundle validate {})",
            bundles.first().map_or("", String::as_str)
        ),
    })
}

/// Upstream's `{"passed", "error": {"message"}}` result, 2-space indented,
/// with Go's HTML escaping.
fn result_json(message: Option<&str>) -> String {
    let mut out = String::new();
    let mut w = Pretty {
        out: &mut out,
        indent: "  ",
        escape_html: true,
    };
    w.out.push('{');
    w.newline(1);
    w.key("passed");
    w.out
        .push_str(if message.is_none() { "true" } else { "false" });
    if let Some(message) = message {
        w.out.push(',');
        w.newline(1);
        w.key("error");
        w.out.push('{');
        w.newline(2);
        w.key("message");
        w.string(message);
        w.newline(1);
        w.out.push('}');
    }
    w.newline(0);
    w.out.push_str("}\n");
    out
}

/// The same result as YAML (keys sorted), plus upstream's extra newline.
fn result_yaml(message: Option<&str>) -> String {
    let mut map = Map::new();
    if let Some(message) = message {
        let mut error = Map::new();
        error.insert("message".into(), Value::String(message.to_string()));
        map.insert("error".into(), Value::Object(error));
    }
    map.insert("passed".into(), Value::Bool(message.is_none()));
    let mut bytes = Vec::new();
    crate::encoding::yaml_write::write_document(&Value::Object(map), &mut bytes);
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_result_shapes() {
        assert_eq!(result_json(None), "{\n  \"passed\": true\n}\n");
        assert_eq!(
            result_json(Some("a <b>")),
            "{\n  \"passed\": false,\n  \"error\": {\n    \"message\": \"a \\u003cb\\u003e\"\n  }\n}\n"
        );
    }
}
