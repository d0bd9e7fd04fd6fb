//! `opm bundle validate DIR|IMAGE` (also `opm alpha bundle validate`):
//! resolve the target, run the format and content checks, print the result.
//!
//! Text output: on failure, stderr gets upstream's
//! `Error: Bundle validation errors: e1,e2,…` line, then one line per finding
//! (`  - <severity> [<rule>] <file>: <message>`), warnings after a blank line;
//! on success, warnings (`warning: [<rule>] <file>: <message>`) and upstream's
//! `All validation tests have been completed successfully`. JSON output goes
//! to stdout. Exit 1 when there is an error.

use crate::bundle::validate::{validate, BundleReport, Optional, Options};
use crate::cli::bundle::{BundleValidateArgs, FindingsFormat};
use crate::ExitStatus;
use anyhow::bail;

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
    let optional =
        Optional::parse_list(&optional_validators).map_err(|e| super::usage(e.to_string()))?;
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
    let bundle = super::read_bundle(&target, &image_builder, global)?;
    let mut report = validate(&bundle, &Options { optional });
    report.locate(&bundle, bundle.shown_as());
    if output_format == FindingsFormat::Sarif {
        let log = crate::diag::sarif::log(&report.findings, crate::bundle::rules::ALL);
        let mut text = serde_json::to_string_pretty(&log)?;
        text.push('\n');
        crate::output::stdout(text.as_bytes())?;
    } else if output_format == FindingsFormat::Json {
        let findings: Vec<serde_json::Value> =
            report.findings.iter().map(|f| f.to_json()).collect();
        let mut text = serde_json::to_string_pretty(&serde_json::json!({
            "passed": report.passed(),
            "findings": findings,
        }))?;
        text.push('\n');
        crate::output::stdout(text.as_bytes())?;
    } else {
        print_text(&report)?;
    }
    Ok(if report.passed() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// Prints a report as `opm bundle validate` does (also used by `bundle build`): one line per
/// finding (`FILE:LINE:COL: severity[rule]: message`), in check order, then upstream's
/// success line, or a summary as the error.
pub(super) fn print_text(report: &BundleReport) -> anyhow::Result<()> {
    for finding in &report.findings {
        crate::output::info(&finding.line());
    }
    let count = |n: usize, what: &str| match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    };
    let (errors, warnings) = (report.errors().count(), report.warnings().count());
    if errors == 0 {
        crate::output::info("All validation tests have been completed successfully");
        return Ok(());
    }
    let mut summary = format!("Bundle validation errors: {}", count(errors, "error"));
    if warnings > 0 {
        summary.push_str(&format!(", {}", count(warnings, "warning")));
    }
    bail!(summary)
}
