//! Catalog validation (`opm validate`): converts the catalog into the model, gathering every
//! conversion problem, then runs the model rules over what converted and draws upstream's
//! `invalid index:` tree. Checks never print; findings are returned as data.

pub mod registry;
pub mod rule;
pub mod rules;

use crate::declcfg::{DeclarativeConfig, Origin};
use crate::diag::tree::Node;
use crate::diag::{go_quote as q, Diagnostic, Subject};
use crate::model::convert::{self, Gaps};
use crate::model::{Bundle, Channel, Model, Package};
use rule::{Check, Placement, Rule, Scope};
use std::collections::BTreeSet;

/// The outcome of validating one catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogVerdict {
    /// Every problem, conversion problems first (upstream check order), then model problems
    /// (sorted deterministic order)
    pub diagnostics: Vec<Diagnostic>,
    /// The model problems as upstream's tree (a bundle listed by several channels appears
    /// under each, while `diagnostics` lists its problems once).
    tree: Option<Node>,
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
                let origin = d.origin.as_ref()?;
                let first_line = d.message.lines().next().unwrap_or_default();
                Some(format!("{origin}: {first_line}"))
            })
            .collect()
    }

    /// The model problems as upstream's `invalid index` tree, if there are any.
    pub fn tree(&self) -> Option<&Node> {
        self.tree.as_ref()
    }
}

fn is_conversion_rule(id: &str) -> bool {
    convert::rule::ALL.contains(&id)
}

pub fn validate_catalog(cfg: &crate::declcfg::DeclarativeConfig) -> CatalogVerdict {
    validate_with(cfg, registry::ALL)
}

/// Validates `cfg` with only `rules` (conversion always runs; conversion findings of rules
/// not in `rules` are left out).
pub fn validate_with(cfg: &DeclarativeConfig, rules: &[&Rule]) -> CatalogVerdict {
    validate_converted(&convert::convert(cfg), rules)
}

/// [`validate_with`] for a catalog already converted, so that a caller can
/// keep the model (`opm serve` serves it once it passed).
pub fn validate_converted(conversion: &convert::Conversion, rules: &[&Rule]) -> CatalogVerdict {
    let enabled: BTreeSet<&str> = rules.iter().map(|rule| rule.id).collect();
    let mut diagnostics: Vec<Diagnostic> = conversion
        .diagnostics
        .iter()
        .filter(|diagnostic| enabled.contains(diagnostic.rule))
        .cloned()
        .collect();
    let (tree, model_diagnostics) = check_model(&conversion.model, &conversion.gaps, rules);
    diagnostics.extend(model_diagnostics);
    CatalogVerdict {
        diagnostics,
        tree: tree.has_children().then_some(tree),
    }
}

/// Runs the model rules over `model` (packages, channels and bundles in name order),
/// skipping the packages in `gaps`: conversion reported a problem about them, so their
/// model is incomplete and upstream would not have validated it. Returns the
/// `invalid index` tree (empty when nothing failed) and the findings, each bundle finding
/// listed once.
pub fn check_model(model: &Model, gaps: &Gaps, rules: &[&Rule]) -> (Node, Vec<Diagnostic>) {
    let mut walker = Walker {
        rules,
        diagnostics: Vec::new(),
        seen_bundle_findings: BTreeSet::new(),
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
    diagnostics: Vec<Diagnostic>,
    seen_bundle_findings: BTreeSet<(&'static str, String, String, String)>,
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

    fn record(&mut self, rule: &Rule, subject: Subject, message: String, origin: Option<Origin>) {
        self.diagnostics.push(Diagnostic {
            rule: rule.id,
            severity: rule.severity,
            message,
            subject,
            origin,
        });
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
                node.push(Node::leaf(message.clone()));
                let subject = Subject::Package {
                    name: package.name.clone(),
                };
                self.record(rule, subject, message, package.origin.clone());
            }
        }
    }

    fn channel(&mut self, package: &Package, channel: &Channel) -> Node {
        let mut node = Node::new(format!("invalid channel {}", q(&channel.name)));
        self.channel_lines(package, channel, Placement::BeforeChildren, &mut node);
        for bundle in channel.bundles.values() {
            let child = self.bundle(bundle);
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
                node.push(Node::leaf(message.clone()));
                let subject = Subject::Channel {
                    package: package.name.clone(),
                    name: channel.name.clone(),
                };
                self.record(rule, subject, message, channel.origin.clone());
            }
        }
    }

    fn bundle(&mut self, bundle: &Bundle) -> Node {
        let mut node = Node::new(format!("invalid bundle {}", q(&bundle.name)));
        let rules = self.rules_of(Scope::Bundle);
        for rule in rules {
            let Check::Bundle(check) = rule.check else {
                continue;
            };
            for message in check(bundle) {
                node.push(Node::leaf(message.clone()));
                let key = (
                    rule.id,
                    bundle.package.clone(),
                    bundle.name.clone(),
                    message.clone(),
                );
                if self.seen_bundle_findings.insert(key) {
                    let subject = Subject::Bundle {
                        package: bundle.package.clone(),
                        name: bundle.name.clone(),
                    };
                    self.record(rule, subject, message, bundle.origin.clone());
                }
            }
        }
        node
    }
}
