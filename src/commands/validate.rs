use crate::cli::ValidateArgs;
use crate::declcfg::load::{load_dir_counted, BundleObjects};
use crate::encoding::json::{go_quote, Pretty};
use crate::ExitStatus;
use anyhow::bail;
use serde_json::{Map, Value};
use std::path::Path;

pub(super) fn run(args: ValidateArgs) -> anyhow::Result<ExitStatus> {
    let ValidateArgs { dirs, output } = args;
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
    let (message, locations) = match loaded {
        Err(error) => (
            Some(
                error
                    .errors
                    .iter()
                    .map(|e| e.message.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            error.errors.iter().map(|e| e.location()).collect(),
        ),
        Ok(config) => {
            let verdict = crate::validate::validate_catalog(&config);
            (verdict.message(), verdict.locations())
        }
    };
    match output.as_str() {
        "" => match message {
            None => Ok(ExitStatus::Success),
            Some(mut message) => {
                for location in locations {
                    message.push_str("\n  in ");
                    message.push_str(&location);
                }
                Err(match not_a_catalog_hint(dir) {
                    Some(hint) => super::with_hint(anyhow::Error::msg(message), hint),
                    None => anyhow::Error::msg(message),
                })
            }
        },
        "json" | "yaml" => {
            let passed = message.is_none();
            let text = if output == "json" {
                result_json(message.as_deref())
            } else {
                result_yaml(message.as_deref())
            };
            crate::output::stdout(text.as_bytes())?;
            Ok(if passed {
                ExitStatus::Success
            } else {
                ExitStatus::Failure
            })
        }
        other => Err(super::usage(format!(
            "invalid --output value {}, expected (json|yaml)",
            go_quote(other)
        ))),
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
