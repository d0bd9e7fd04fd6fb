//! `opm bundle validate DIR|IMAGE` (also `opm alpha bundle validate`):
//! resolve the target, run the format and content checks, print the result.
//!
//! Text output: on failure, stderr gets upstream's
//! `Error: Bundle validation errors: e1,e2,…` line, then one line per finding
//! (`  - <severity> [<rule>] <file>: <message>`), warnings after a blank line;
//! on success, warnings (`warning: [<rule>] <file>: <message>`) and upstream's
//! `All validation tests have been completed successfully`. JSON output goes
//! to stdout. Exit 1 when there is an error.

use crate::bundle::validate::{validate_bundle_dir, BundleReport, Finding, Optional, Options};
use crate::cli::bundle::{BundleValidateArgs, FindingsFormat};
use crate::ExitStatus;
use serde::Serialize;

pub(super) fn run(
    args: BundleValidateArgs,
    global: &crate::cli::GlobalArgs,
) -> anyhow::Result<ExitStatus> {
    let BundleValidateArgs {
        target,
        tag,
        image_builder,
        optional_validators,
        output_format,
    } = args;
    super::check_image_builder(&image_builder)?;
    let optional = Optional::parse_list(&optional_validators).map_err(super::usage)?;
    let json = output_format == FindingsFormat::Json;
    let target: Vec<String> = target.into_iter().filter(|t| !t.is_empty()).collect();
    let target =
        match (target.as_slice(), tag.filter(|t| !t.is_empty())) {
            ([], None) => return Err(super::usage(
                "a bundle directory or image is required: opm bundle validate DIR|IMAGE, or --tag",
            )),
            ([one], None) => one.clone(),
            ([], Some(tag)) => tag,
            ([_, ..], Some(_)) => {
                return Err(super::usage(
                    "give the bundle either as an argument or with --tag, not both",
                ))
            }
            (many, None) => {
                return Err(super::usage(format!(
                    "accepts 1 arg(s), received {}",
                    many.len()
                )))
            }
        };
    let bundle = super::BundleDir::resolve(&target, &image_builder, global)?;
    let report = validate_bundle_dir(bundle.path(), &Options { optional });
    if json {
        let mut text = serde_json::to_string_pretty(&JsonReport {
            passed: report.passed(),
            findings: &report.findings,
        })?;
        text.push('\n');
        crate::output::stdout(text.as_bytes())?;
    } else {
        print_text(&report);
    }
    Ok(if report.passed() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

#[derive(Serialize)]
struct JsonReport<'a> {
    passed: bool,
    findings: &'a [Finding],
}

/// Prints a report as `opm bundle validate` does (also used by `bundle build`).
pub(super) fn print_text(report: &BundleReport) {
    match report.message() {
        Some(message) => {
            let mut text = message;
            for finding in report.errors() {
                text.push_str("\n  - ");
                text.push_str(&describe(finding, true));
            }
            let mut warnings = report.warnings().peekable();
            if warnings.peek().is_some() {
                text.push('\n');
            }
            for finding in warnings {
                text.push_str("\n  - ");
                text.push_str(&describe(finding, true));
            }
            crate::output::error(&text);
        }
        None => {
            for finding in report.warnings() {
                crate::output::warning(&describe(finding, false));
            }
            crate::output::info("All validation tests have been completed successfully");
        }
    }
}

/// `[<severity> ][<rule>] <file>: <message>`.
fn describe(finding: &Finding, with_severity: bool) -> String {
    let severity = match (with_severity, finding.severity) {
        (false, _) => "",
        (true, crate::bundle::validate::Severity::Error) => "error ",
        (true, crate::bundle::validate::Severity::Warning) => "warning ",
    };
    // Continuation lines of multi-line messages (CEL diagnostics) stay
    // inside the list item.
    let message = finding.message.replace('\n', "\n    ");
    match &finding.file {
        // Messages that start with their location are not prefixed again.
        Some(file)
            if message.starts_with(&format!("{file}:"))
                || message.starts_with(&format!("{file},")) =>
        {
            format!("{severity}[{}] {message}", finding.rule)
        }
        Some(file) => format!("{severity}[{}] {file}: {message}", finding.rule),
        None => format!("{severity}[{}]: {message}", finding.rule),
    }
}
