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
    locate_in_files_read(&mut report, &bundle);
    report.locate(bundle.root(), bundle.shown_as());
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

/// Finds the line and column of each finding in the bundle's files as [`BundleDir`] read them,
/// so that no file is read again for them ([`BundleReport::locate`] then names each file as the
/// user knows it).
///
/// [`BundleDir`]: crate::bundle::BundleDir
fn locate_in_files_read(report: &mut BundleReport, bundle: &crate::bundle::BundleDir) {
    let entries = || {
        bundle
            .manifests()
            .entries_or_none()
            .iter()
            .chain(bundle.metadata().entries_or_none())
    };
    crate::diag::resolve_positions_from(
        report
            .findings
            .iter_mut()
            .filter_map(|finding| finding.location.as_mut()),
        |file| {
            let path = bundle.root().join(file);
            let entry = entries().find(|entry| entry.path() == path)?;
            entry.bytes().ok().map(std::borrow::Cow::Borrowed)
        },
    );
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
