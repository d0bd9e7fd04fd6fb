//! Catalog validation (`opm validate`): converts the catalog into the model, gathering every
//! conversion problem, then runs the model rules over what converted and draws upstream's
//! `invalid index:` tree. Checks never print; findings are returned as data.

pub mod registry;
pub mod rule;
pub mod rules;

use crate::declcfg::{DeclarativeConfig, Origin};
use crate::diag::tree::Node;
use crate::diag::{go_quote as q, Diagnostic, Severity, Subject};
use crate::model::convert::{self, Gaps};
use crate::model::{Bundle, Channel, Model, Package};
use rule::{At, Check, Placement, Rule, Scope};
use std::collections::{BTreeMap, BTreeSet};

/// The outcome of validating one catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogVerdict {
    /// Every problem, conversion problems first (upstream check order), then model problems
    /// (sorted deterministic order)
    pub diagnostics: Vec<Diagnostic>,
    /// The model problems as upstream's tree (a bundle listed by several channels appears
    /// under each, while `diagnostics` lists its problems once).
    tree: Option<Node>,
    /// Where the model problems start in `diagnostics` (the tree's leaves count from there).
    model_offset: usize,
}

impl CatalogVerdict {
    pub fn passed(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The error text upstream prints: conversion messages (one per line), then the `invalid index:` tree of the model problems (if any), joined with "\n"; byte-identical to upstream when there is a single conversion problem or only model problems.
    pub fn message(&self) -> Option<String> {
        let mut parts: Vec<String> = self
            .diagnostics
            .iter()
            .filter(|diagnostic| is_conversion_rule(diagnostic.rule))
            .map(|diagnostic| diagnostic.message.clone())
            .collect();
        if let Some(tree) = &self.tree {
            parts.push(tree.render());
        }
        if parts.is_empty() {
            None
        } else {
            Some(parts.join("\n"))
        }
    }

    /// Where each problem comes from, for the lines after the message:
    /// `catalog/a.yaml, document 2: <message>`, in diagnostic order.
    pub fn locations(&self) -> Vec<String> {
        self.diagnostics
            .iter()
            .filter_map(|d| {
                let location = d.location.as_ref()?;
                let first_line = d.message.lines().next().unwrap_or_default();
                let document = location.document.map_or(0, |d| d + 1);
                Some(format!(
                    "{}, document {document}: {first_line}",
                    location.file
                ))
            })
            .collect()
    }

    /// A copy with the line and column of every finding, read from the catalog files again:
    /// the findings come from the model, built after each file was parsed and dropped.
    fn located(&self) -> CatalogVerdict {
        let mut verdict = self.clone();
        crate::diag::resolve_positions(
            verdict
                .diagnostics
                .iter_mut()
                .filter_map(|diagnostic| diagnostic.location.as_mut()),
        );
        verdict
    }

    /// The failure as text, each problem once: conversion problems one per line
    /// (`FILE:LINE:COL: error[rule]: message`), then upstream's `invalid index:` tree of the
    /// model problems with each leaf's place and rule after it. `None` when nothing failed.
    pub fn text(&self) -> Option<(Vec<String>, Option<String>)> {
        if self.passed() && self.diagnostics.is_empty() {
            return None;
        }
        // Model warnings are not in upstream's tree: they get a line, with what they are about.
        let warnings = self.diagnostics[self.model_offset..]
            .iter()
            .filter(|d| !d.is_error())
            .map(|d| {
                let mut d = d.clone();
                if let Some(subject) = d.subject.describe() {
                    d.message = format!("{subject}: {}", d.message);
                }
                d.line()
            });
        let lines = self.diagnostics[..self.model_offset]
            .iter()
            .map(Diagnostic::line)
            .chain(warnings)
            .collect();
        let tree = self.tree.as_ref().map(|tree| {
            tree.render_with(&|index| {
                self.diagnostics
                    .get(self.model_offset + index)
                    .map(Diagnostic::label)
            })
        });
        Some((lines, tree))
    }

    /// The model problems as upstream's `invalid index` tree, if there are any.
    pub fn tree(&self) -> Option<&Node> {
        self.tree.as_ref()
    }
}

fn is_conversion_rule(id: &str) -> bool {
    convert::rule::ALL.contains(&id)
}

/// What checking a catalog directory found: files that could not be loaded (then nothing was
/// checked), or the verdict.
#[derive(Debug)]
pub enum Outcome {
    Load(crate::declcfg::load::LoadError),
    Checked(CatalogVerdict),
}

/// How a failed check is shown: one line per problem (`FILE:LINE:COL: severity[rule]:
/// message`), then a summary: upstream's `invalid index:` tree of the model problems (each
/// leaf with its place and rule), or the number of errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub lines: Vec<String>,
    pub summary: Option<String>,
}

impl Outcome {
    /// Checks a loaded catalog (with `strict`, warnings are errors), or keeps the load error.
    /// Positions are found when the findings are shown ([`Outcome::shown`],
    /// [`Outcome::findings`]), not for upstream's message.
    pub fn of(
        loaded: Result<DeclarativeConfig, crate::declcfg::load::LoadError>,
        strict: bool,
    ) -> Outcome {
        match loaded {
            Err(error) => Outcome::Load(error),
            Ok(config) => {
                let empty = config.is_empty();
                // The rules read the model only: the loaded blobs go before they run.
                let conversion = convert::convert(config);
                let mut verdict = validate_converted_with(&conversion, registry::ALL, strict);
                if empty {
                    verdict.diagnostics.insert(
                        0,
                        Diagnostic {
                            rule: crate::declcfg::load::CATALOG_EMPTY,
                            severity: if strict {
                                Severity::Error
                            } else {
                                Severity::Warning
                            },
                            message: "the catalog holds no file-based catalog object".into(),
                            subject: Subject::Catalog,
                            location: None,
                        },
                    );
                    verdict.model_offset += 1;
                }
                Outcome::of_verdict(verdict)
            }
        }
    }

    /// Wraps a verdict.
    pub fn of_verdict(verdict: CatalogVerdict) -> Outcome {
        Outcome::Checked(verdict)
    }

    pub fn failed(&self) -> bool {
        match self {
            Outcome::Load(_) => true,
            Outcome::Checked(verdict) => !verdict.passed(),
        }
    }

    fn errors(&self) -> usize {
        match self {
            Outcome::Load(error) => error.errors.len(),
            Outcome::Checked(verdict) => {
                verdict.diagnostics.iter().filter(|d| d.is_error()).count()
            }
        }
    }

    /// Upstream's error message (for `-o json|yaml`, whose shape upstream fixes).
    pub fn message(&self) -> Option<String> {
        match self {
            Outcome::Load(error) => Some(
                error
                    .errors
                    .iter()
                    .map(|e| e.message.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            Outcome::Checked(verdict) => verdict.message(),
        }
    }

    /// Every finding on its own: model problems, which upstream shows inside its tree, carry
    /// what they are about in their message (`package "a", channel "b": ...`).
    pub fn findings(&self) -> Vec<Diagnostic> {
        match self {
            Outcome::Load(error) => error.errors.iter().map(|e| e.diagnostic()).collect(),
            Outcome::Checked(verdict) => verdict
                .located()
                .diagnostics
                .into_iter()
                .enumerate()
                .map(|(index, mut diagnostic)| {
                    if index >= verdict.model_offset {
                        if let Some(subject) = diagnostic.subject.describe() {
                            diagnostic.message = format!("{subject}: {}", diagnostic.message);
                        }
                    }
                    diagnostic
                })
                .collect(),
        }
    }

    /// The problems as text; the summary is `None` when nothing failed (warnings only). `dir`
    /// names the catalog in the summary.
    pub fn shown(&self, dir: &str) -> Shown {
        let (lines, tree) = match self {
            Outcome::Load(error) => {
                let lines = error.errors.iter().map(|e| e.diagnostic().line()).collect();
                (lines, None)
            }
            Outcome::Checked(verdict) => verdict.located().text().unwrap_or_default(),
        };
        let summary = self.failed().then(|| {
            tree.unwrap_or_else(|| match self.errors() {
                1 => format!("1 error in {}", q(dir)),
                n => format!("{n} errors in {}", q(dir)),
            })
        });
        Shown { lines, summary }
    }
}

pub fn validate_catalog(cfg: &crate::declcfg::DeclarativeConfig) -> CatalogVerdict {
    validate_with(cfg, registry::ALL)
}

/// Validates `cfg` with only `rules` (conversion always runs; conversion findings of rules
/// not in `rules` are left out).
pub fn validate_with(cfg: &DeclarativeConfig, rules: &[&Rule]) -> CatalogVerdict {
    validate_converted(&convert::convert(cfg.clone()), rules)
}

/// [`validate_with`] for a catalog already converted, so that a caller can
/// keep the model (`opm serve` serves it once it passed).
pub fn validate_converted(conversion: &convert::Conversion, rules: &[&Rule]) -> CatalogVerdict {
    validate_converted_with(conversion, rules, false)
}

/// [`validate_converted`]; with `strict`, the findings of warning rules are errors.
pub fn validate_converted_with(
    conversion: &convert::Conversion,
    rules: &[&Rule],
    strict: bool,
) -> CatalogVerdict {
    let enabled: BTreeSet<&str> = rules.iter().map(|rule| rule.id).collect();
    let mut diagnostics: Vec<Diagnostic> = conversion
        .diagnostics
        .iter()
        .filter(|diagnostic| enabled.contains(diagnostic.rule))
        .cloned()
        .collect();
    let (tree, model_diagnostics) = check_model(&conversion.model, &conversion.gaps, rules, strict);
    let model_offset = diagnostics.len();
    diagnostics.extend(model_diagnostics);
    CatalogVerdict {
        diagnostics,
        tree: tree.has_children().then_some(tree),
        model_offset,
    }
}

/// Runs the model rules over `model` (packages, channels and bundles in name order),
/// skipping the packages in `gaps`: conversion reported a problem about them, so their
/// model is incomplete and upstream would not have validated it. Returns the
/// `invalid index` tree (empty when nothing failed) and the findings, each bundle finding
/// listed once.
pub fn check_model(
    model: &Model,
    gaps: &Gaps,
    rules: &[&Rule],
    strict: bool,
) -> (Node, Vec<Diagnostic>) {
    let mut walker = Walker {
        rules,
        strict,
        diagnostics: Vec::new(),
        seen_bundle_findings: BTreeMap::new(),
    };
    let mut root = Node::new("invalid index");
    for package in model.packages.values() {
        if gaps.package(&package.name) {
            continue;
        }
        root.push_if_failed(walker.package(package));
    }
    (root, walker.diagnostics)
}

struct Walker<'a> {
    rules: &'a [&'a Rule],
    /// Whether warnings count as errors (`opm validate --strict`).
    strict: bool,
    diagnostics: Vec<Diagnostic>,
    /// Bundle findings already recorded (a bundle listed by several channels is checked in
    /// each), with their index.
    seen_bundle_findings: BTreeMap<(&'static str, String, String, String), usize>,
}

impl<'a> Walker<'a> {
    fn rules_of(&self, scope: Scope) -> Vec<&'a Rule> {
        let rules: &'a [&'a Rule] = self.rules;
        rules
            .iter()
            .copied()
            .filter(|rule| rule.scope() == scope)
            .collect()
    }

    /// Records a finding of `rule` about the object whose blob came from `origin` (and, for a
    /// bundle, whose channel entry is `entry`), placed where the rule points.
    fn record(
        &mut self,
        rule: &Rule,
        subject: Subject,
        message: String,
        origin: Option<&Origin>,
        entry: Option<&(Origin, usize)>,
    ) -> usize {
        let location = match (rule.at, entry) {
            (At::Entry(field), Some((channel, index))) => {
                let mut location = crate::diag::Location::of(channel);
                location.pointer = Some(format!("/entries/{index}{field}"));
                Some(location)
            }
            (At::Entry(_), None) => origin.map(crate::diag::Location::of),
            (At::Blob(field), _) => origin.map(|origin| {
                let mut location = crate::diag::Location::of(origin);
                location.pointer = (!field.is_empty()).then(|| field.to_string());
                location
            }),
        };
        let severity = if self.strict {
            Severity::Error
        } else {
            rule.severity
        };
        self.diagnostics.push(Diagnostic {
            rule: rule.id,
            severity,
            message,
            subject,
            location,
        });
        self.diagnostics.len() - 1
    }

    /// Adds the leaf of finding `index` to `node`: upstream's tree shows errors only.
    fn leaf(&self, node: &mut Node, message: String, index: usize) {
        if self.diagnostics[index].is_error() {
            node.push(Node::finding(message, index));
        }
    }

    fn package(&mut self, package: &Package) -> Node {
        let mut node = Node::new(format!("invalid package {}", q(&package.name)));
        self.package_lines(package, Placement::BeforeChildren, &mut node);
        for channel in package.channels.values() {
            let child = self.channel(package, channel);
            node.push_if_failed(child);
        }
        self.package_lines(package, Placement::AfterChildren, &mut node);
        node
    }

    fn package_lines(&mut self, package: &Package, placement: Placement, node: &mut Node) {
        let rules = self.rules_of(Scope::Package);
        for rule in rules {
            let Check::Package(at, check) = rule.check else {
                continue;
            };
            if at != placement {
                continue;
            }
            for message in check(package) {
                let subject = Subject::Package {
                    name: package.name.clone(),
                };
                let leaf = message.clone();
                let index = self.record(rule, subject, message, package.origin.as_ref(), None);
                self.leaf(node, leaf, index);
            }
        }
    }

    fn channel(&mut self, package: &Package, channel: &Channel) -> Node {
        let mut node = Node::new(format!("invalid channel {}", q(&channel.name)));
        self.channel_lines(package, channel, Placement::BeforeChildren, &mut node);
        for bundle in channel.bundles.values() {
            let child = self.bundle(package, bundle);
            node.push_if_failed(child);
        }
        self.channel_lines(package, channel, Placement::AfterChildren, &mut node);
        node
    }

    fn channel_lines(
        &mut self,
        package: &Package,
        channel: &Channel,
        placement: Placement,
        node: &mut Node,
    ) {
        let rules = self.rules_of(Scope::Channel);
        for rule in rules {
            let Check::Channel(at, check) = rule.check else {
                continue;
            };
            if at != placement {
                continue;
            }
            for message in check(channel) {
                let subject = Subject::Channel {
                    package: package.name.clone(),
                    name: channel.name.clone(),
                };
                let leaf = message.clone();
                let index = self.record(rule, subject, message, channel.origin.as_ref(), None);
                self.leaf(node, leaf, index);
            }
        }
    }

    fn bundle(&mut self, package: &Package, bundle: &Bundle) -> Node {
        let mut node = Node::new(format!("invalid bundle {}", q(&bundle.name)));
        let rules = self.rules_of(Scope::Bundle);
        for rule in rules {
            let messages = match rule.check {
                Check::Bundle(check) => check(bundle),
                Check::BundleInPackage(check) => check(package, bundle),
                _ => continue,
            };
            for message in messages {
                let key = (
                    rule.id,
                    bundle.package.clone(),
                    bundle.name.clone(),
                    message.clone(),
                );
                let index = match self.seen_bundle_findings.get(&key) {
                    Some(&index) => index,
                    None => {
                        let subject = Subject::Bundle {
                            package: bundle.package.clone(),
                            name: bundle.name.clone(),
                        };
                        let index = self.record(
                            rule,
                            subject,
                            message.clone(),
                            bundle.origin.as_ref(),
                            bundle.entry.as_ref(),
                        );
                        self.seen_bundle_findings.insert(key, index);
                        index
                    }
                };
                self.leaf(&mut node, message, index);
            }
        }
        node
    }
}
