//! Runs every fixture of the content rules (`testdata/rules/<rule>/`)
//! through [`validate_bundle_dir`] with every optional validator enabled:
//! an `invalid-*` bundle yields at least one finding of its rule, a
//! `valid-*` bundle none.

use super::{content, validate_bundle_dir, Optional, Options};
use std::path::Path;

#[test]
fn every_content_rule_has_fixtures_that_behave() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/rules");
    let options = Options {
        optional: Optional::ALL.to_vec(),
    };
    let mut failures = Vec::new();
    for rule in content::rules() {
        let dir = base.join(rule);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            failures.push(format!("{rule}: no fixture directory {}", dir.display()));
            continue;
        };
        let mut cases: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        cases.sort();
        let (mut valid, mut invalid) = (0, 0);
        for case in cases {
            let case_name = case.file_name().unwrap().to_string_lossy().to_string();
            let report = validate_bundle_dir(&case, &options);
            let hits: Vec<&str> = report
                .findings
                .iter()
                .filter(|f| f.rule == rule)
                .map(|f| f.message.as_str())
                .collect();
            if case_name.starts_with("invalid-") {
                invalid += 1;
                if hits.is_empty() {
                    failures.push(format!(
                        "{rule}/{case_name}: expected a finding, got {:?}",
                        report.findings
                    ));
                }
            } else if case_name.starts_with("valid-") {
                valid += 1;
                if !hits.is_empty() {
                    failures.push(format!("{rule}/{case_name}: unexpected {hits:?}"));
                }
            }
        }
        if valid == 0 || invalid == 0 {
            failures.push(format!("{rule}: needs a valid-* and an invalid-* case"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rule_ids_are_unique_and_kebab_case() {
    let rules = content::rules();
    for (i, rule) in rules.iter().enumerate() {
        assert!(!rules[..i].contains(rule), "duplicate {rule}");
        assert!(
            rule.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !rule.starts_with('-')
                && !rule.ends_with('-'),
            "{rule}"
        );
    }
}

/// The real bundles of the shared corpus (`corpus/bundles`) validate without errors, except the few that upstream rejects
/// too: objects carrying a namespace, and a `minKubeVersion` that is not a
/// strict semantic version.
#[test]
fn corpus_bundles_validate() {
    let Some(base) = crate::testkit::shared("corpus/bundles") else {
        return;
    };
    let sources = std::fs::read_dir(&base).expect("readable corpus");
    let known_broken = [
        "certified/appdynamics-operator/26.7.0-1390",
        "certified/cilium-enterprise/v1.13.4",
        "certified/pachyderm-operator/v0.1.4",
        "marketplace/pachyderm-operator-rhmp/v0.1.4",
    ];
    let mut bundles = Vec::new();
    for source in sources.filter_map(Result::ok) {
        for operator in std::fs::read_dir(source.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            for version in std::fs::read_dir(operator.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                bundles.push(version.path());
            }
        }
    }
    bundles.sort();
    let mut failing = Vec::new();
    for bundle in &bundles {
        let report = validate_bundle_dir(bundle, &Options::default());
        if let Some(message) = report.message() {
            let name = bundle
                .strip_prefix(&base)
                .unwrap()
                .to_string_lossy()
                .to_string();
            if !known_broken.contains(&name.as_str()) {
                failing.push(format!("{name}: {message}"));
            }
        } else {
            let name = bundle
                .strip_prefix(&base)
                .unwrap()
                .to_string_lossy()
                .to_string();
            if known_broken.contains(&name.as_str()) {
                failing.push(format!("{name}: expected to fail"));
            }
        }
    }
    assert!(bundles.len() > 400, "{} bundles", bundles.len());
    assert!(failing.is_empty(), "{}", failing.join("\n"));
}
