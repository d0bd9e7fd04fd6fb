//! Upgrade graphs of a catalog's channels (`opm alpha render-graph`, and
//! `render-template -o mermaid`): upstream's mermaid flowchart byte for
//! byte (`MermaidWriter`: channels by name, entries by decreasing version,
//! `--minimum-edge` and package filters, OLMv0 decorations), and the same
//! graph as Graphviz DOT or JSON, which have no size limit.
//!
//! The graph is built once ([`Graph::build`]) as an ordered list of nodes and
//! edges per channel, exactly in the order upstream writes them; each format
//! is a rendering of that list.

use super::{ChannelEntry, DeclarativeConfig, SCHEMA_BUNDLE, SCHEMA_CHANNEL, SCHEMA_PACKAGE};
use crate::encoding::json::go_quote;
use crate::semver::{Range, Version};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// What to draw.
#[derive(Debug, Clone, Default)]
pub struct GraphOptions {
    /// `--minimum-edge`: only this bundle's package, and edges to versions
    /// at or above it.
    pub minimum_edge: String,
    /// `-p`: only this package.
    pub package: String,
    /// Mark skipped nodes and the edges OLMv0 ignores.
    pub v0_semantics: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    #[error("unknown minimum edge name: {}", go_quote(.0))]
    UnknownMinimumEdge(String),
    #[error("bundle {} has multiple {} properties, expected exactly 1", go_quote(.0), go_quote(crate::property::PACKAGE))]
    PackageProperties(String),
    #[error("parse properties for bundle {}: {reason}", go_quote(.bundle))]
    Properties { bundle: String, reason: String },
    #[error("bundle {} has invalid version {}: {reason}", go_quote(.bundle), go_quote(.version))]
    Version {
        bundle: String,
        version: String,
        reason: String,
    },
}

/// How an edge came about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EdgeKind {
    Replace,
    Skip,
    SkipRange(String),
}

impl EdgeKind {
    /// The kind's name in drawings and JSON.
    pub fn name(&self) -> &'static str {
        match self {
            EdgeKind::Replace => "replace",
            EdgeKind::Skip => "skip",
            EdgeKind::SkipRange(_) => "skipRange",
        }
    }
}

/// One line of a channel's drawing, in upstream's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// An entry: its name and decoration (`deprecated`, `skipped`,
    /// `deprecatedskipped`).
    Node {
        name: String,
        class: Option<&'static str>,
    },
    Edge(Edge),
}

/// An edge from an older entry to a newer one; `ignored` when OLMv0
/// semantics say it is never taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    pub from: String,
    pub to: String,
    pub kind: EdgeKind,
    pub ignored: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphChannel {
    pub name: String,
    pub deprecated: bool,
    pub items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphPackage {
    pub name: String,
    pub deprecated: bool,
    pub channels: Vec<GraphChannel>,
}

/// The drawn graph, packages by name, and the warnings met building it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    pub packages: Vec<GraphPackage>,
    /// Upstream styles only the last deprecated package it meets.
    pub styled_package: Option<String>,
    /// Ids of deprecated channels, in the order they were drawn.
    pub deprecated_channels: Vec<String>,
    /// Numbers of the edges OLMv0 ignores (edges are numbered in drawing
    /// order over all channels, by channel name).
    pub ignored_links: Vec<usize>,
    /// Entry versions, for the JSON form.
    pub versions: HashMap<String, Version>,
    pub warnings: Vec<String>,
}

fn bundle_version(bundle: &super::Bundle) -> Result<Version, GraphError> {
    let packages: Vec<&super::Property> = bundle
        .properties
        .iter()
        .filter(|p| p.kind == crate::property::PACKAGE)
        .collect();
    let [property] = packages.as_slice() else {
        return Err(GraphError::PackageProperties(bundle.name.clone()));
    };
    let version = property
        .value
        .as_ref()
        .and_then(|v| v.get("version"))
        .map(|v| match v {
            serde_json::Value::String(s) => Ok(s.clone()),
            other => Err(GraphError::Properties {
                bundle: bundle.name.clone(),
                reason: format!(
                    "parse property[0] of type \"olm.package\": json: cannot unmarshal {} into Go struct field Package.version of type string",
                    crate::encoding::json::type_name(other)
                ),
            }),
        })
        .transpose()?
        .unwrap_or_default();
    Version::parse(&version).map_err(|e| GraphError::Version {
        bundle: bundle.name.clone(),
        version,
        reason: e.to_string(),
    })
}

impl Graph {
    /// Builds the graph of `cfg` as upstream's `MermaidWriter.WriteChannels` walks it.
    ///
    /// # Errors
    /// A bundle without exactly one `olm.package` version, or an unknown
    /// minimum edge.
    pub fn build(cfg: &DeclarativeConfig, options: &GraphOptions) -> Result<Graph, GraphError> {
        let mut channels: Vec<&super::Channel> = cfg.channels.iter().collect();
        crate::gosort::slice(&mut channels, |a, b| a.name < b.name);
        let mut versions: HashMap<String, Version> = HashMap::new();
        for bundle in &cfg.bundles {
            if !versions.contains_key(&bundle.name) {
                versions.insert(bundle.name.clone(), bundle_version(bundle)?);
            }
        }
        let zero = Version::new(0, 0, 0);
        let version_of = |name: &str| versions.get(name).unwrap_or(&zero).clone();
        let mut min_version = zero.clone();
        if !options.minimum_edge.is_empty() {
            min_version = versions
                .get(&options.minimum_edge)
                .cloned()
                .ok_or_else(|| GraphError::UnknownMinimumEdge(options.minimum_edge.clone()))?;
        }
        let min_edge_package = if options.minimum_edge.is_empty() {
            String::new()
        } else {
            channels
                .iter()
                .find(|c| entries(c).iter().any(|e| e.name == options.minimum_edge))
                .map(|c| c.package.clone())
                .unwrap_or_default()
        };
        let mut by_package: HashSet<&str> = HashSet::new();
        let mut by_channel: HashSet<&str> = HashSet::new();
        let mut by_bundle: HashSet<&str> = HashSet::new();
        for deprecation in &cfg.deprecations {
            for entry in deprecation.entries.iter().flatten() {
                match entry.reference.schema.as_str() {
                    SCHEMA_PACKAGE => {
                        by_package.insert(&deprecation.package);
                    }
                    SCHEMA_CHANNEL => {
                        by_channel.insert(&entry.reference.name);
                    }
                    SCHEMA_BUNDLE => {
                        by_bundle.insert(&entry.reference.name);
                    }
                    _ => {}
                }
            }
        }
        let mut packages: BTreeMap<String, Vec<GraphChannel>> = BTreeMap::new();
        let mut styled_package = None;
        let mut deprecated_channels = Vec::new();
        let mut ignored_links = Vec::new();
        let mut link = 0usize;
        let mut warnings = Vec::new();
        for channel in channels {
            let Some(filtered) = filter_channel(
                channel,
                options,
                &version_of,
                &min_version,
                &min_edge_package,
            ) else {
                continue;
            };
            if by_package.contains(channel.package.as_str()) {
                styled_package = Some(channel.package.clone());
            }
            if by_channel.contains(channel.name.as_str()) {
                deprecated_channels.push(format!("{}-{}", channel.package, channel.name));
            }
            let mut sorted: Vec<&ChannelEntry> = filtered.iter().collect();
            crate::gosort::slice(&mut sorted, |a, b| {
                version_of(&a.name) > version_of(&b.name)
            });
            let mut skipped: HashSet<String> = HashSet::new();
            let mut items = Vec::new();
            for entry in sorted {
                let class = match (
                    by_bundle.contains(entry.name.as_str()),
                    skipped.contains(&entry.name),
                ) {
                    (true, true) => Some("deprecatedskipped"),
                    (true, false) => Some("deprecated"),
                    (false, true) => Some("skipped"),
                    (false, false) => None,
                };
                items.push(Item::Node {
                    name: entry.name.clone(),
                    class,
                });
                for skip in &entry.skips {
                    // Upstream's `handleSemantics(skip, …, captureNewEntry)`.
                    let ignored = options.v0_semantics && !skipped.insert(skip.clone());
                    items.push(Item::Edge(Edge {
                        from: skip.clone(),
                        to: entry.name.clone(),
                        kind: EdgeKind::Skip,
                        ignored,
                    }));
                }
                if !entry.skip_range.is_empty() {
                    match Range::parse(&entry.skip_range) {
                        Ok(range) => {
                            for other in &filtered {
                                if range.contains(&version_of(&other.name)) {
                                    items.push(Item::Edge(Edge {
                                        from: other.name.clone(),
                                        to: entry.name.clone(),
                                        kind: EdgeKind::SkipRange(entry.skip_range.clone()),
                                        ignored: options.v0_semantics
                                            && skipped.contains(&entry.name),
                                    }));
                                }
                            }
                        }
                        Err(error) => warnings.push(format!(
                            "ignoring invalid SkipRange for package/edge {}/{}: {error}",
                            go_quote(&channel.package),
                            go_quote(&entry.name)
                        )),
                    }
                }
                if !entry.replaces.is_empty() {
                    items.push(Item::Edge(Edge {
                        from: entry.replaces.clone(),
                        to: entry.name.clone(),
                        kind: EdgeKind::Replace,
                        ignored: options.v0_semantics && skipped.contains(&entry.name),
                    }));
                }
            }
            for item in &items {
                if let Item::Edge(edge) = item {
                    if edge.ignored {
                        ignored_links.push(link);
                    }
                    link += 1;
                }
            }
            packages
                .entry(channel.package.clone())
                .or_default()
                .push(GraphChannel {
                    name: channel.name.clone(),
                    deprecated: by_channel.contains(channel.name.as_str()),
                    items,
                });
        }
        let packages = packages
            .into_iter()
            .map(|(name, channels)| GraphPackage {
                deprecated: by_package.contains(name.as_str()),
                name,
                channels,
            })
            .collect();
        Ok(Graph {
            packages,
            styled_package,
            deprecated_channels,
            ignored_links,
            versions,
            warnings,
        })
    }

    /// Upstream's mermaid text.
    pub fn mermaid(&self) -> String {
        let mut out = String::from(
            "graph LR\n  classDef deprecated fill:#E8960F\n  classDef skipped stroke:#FF0000,stroke-width:4px\n  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px\n",
        );
        let mut classes: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for package in &self.packages {
            out.push_str(&format!("  %% package {}\n", go_quote(&package.name)));
            out.push_str(&format!("  subgraph {}\n", go_quote(&package.name)));
            for channel in &package.channels {
                let id = format!("{}-{}", package.name, channel.name);
                out.push_str(&format!("    %% channel {}\n", go_quote(&channel.name)));
                out.push_str(&format!("    subgraph {id}[{}]\n", go_quote(&channel.name)));
                for item in &channel.items {
                    match item {
                        Item::Node { name, class } => {
                            out.push_str(&format!("      {id}-{name}[{}]\n", go_quote(name)));
                            if let Some(class) = class {
                                classes
                                    .entry(class)
                                    .or_default()
                                    .push(format!("{id}-{name}"));
                            }
                        }
                        Item::Edge(Edge { from, to, kind, .. }) => {
                            let label = match kind {
                                EdgeKind::SkipRange(range) => format!("\"skipRange({range})\""),
                                other => other.name().to_string(),
                            };
                            out.push_str(&format!(
                                "      {id}-{from}[{}]-- {label} --> {id}-{to}[{}]\n",
                                go_quote(from),
                                go_quote(to)
                            ));
                        }
                    }
                }
                out.push_str("    end\n");
            }
            out.push_str("  end\n");
        }
        if let Some(package) = &self.styled_package {
            out.push_str(&format!("style {package} fill:#989695\n"));
        }
        for id in &self.deprecated_channels {
            out.push_str(&format!("style {id} fill:#DCD0FF\n"));
        }
        for (class, mut ids) in classes {
            ids.sort();
            out.push_str(&format!("class {} {class}\n", ids.join(",")));
        }
        if !self.ignored_links.is_empty() {
            let links: Vec<String> = self.ignored_links.iter().map(ToString::to_string).collect();
            out.push_str(&format!(
                "linkStyle {} stroke:#FF0000,stroke-width:3px,stroke-dasharray:5;\n",
                links.join(",")
            ));
        }
        out
    }

    /// The graph as Graphviz DOT: a cluster per package and channel, the
    /// same node ids, labels and decorations as the mermaid form.
    pub fn dot(&self) -> String {
        let mut out = String::from("digraph catalog {\n  rankdir=LR;\n  node [shape=box];\n");
        for package in &self.packages {
            out.push_str(&format!(
                "  subgraph {} {{\n    label={};\n",
                dot_id(&format!("cluster_{}", package.name)),
                dot_id(&package.name)
            ));
            if package.deprecated {
                out.push_str("    style=filled;\n    fillcolor=\"#989695\";\n");
            }
            for channel in &package.channels {
                let id = format!("{}-{}", package.name, channel.name);
                out.push_str(&format!(
                    "    subgraph {} {{\n      label={};\n",
                    dot_id(&format!("cluster_{id}")),
                    dot_id(&channel.name)
                ));
                if channel.deprecated {
                    out.push_str("      style=filled;\n      fillcolor=\"#DCD0FF\";\n");
                }
                for item in &channel.items {
                    match item {
                        Item::Node { name, class } => {
                            let style = match class {
                                Some("deprecated") => ", style=filled, fillcolor=\"#E8960F\"",
                                Some("skipped") => ", color=\"#FF0000\", penwidth=4",
                                Some(_) => {
                                    ", style=filled, fillcolor=\"#E8960F\", color=\"#FF0000\", penwidth=4"
                                }
                                None => "",
                            };
                            out.push_str(&format!(
                                "      {} [label={}{style}];\n",
                                dot_id(&format!("{id}-{name}")),
                                dot_id(name)
                            ));
                        }
                        Item::Edge(edge) => {
                            let (from, to) = (&edge.from, &edge.to);
                            let label = match &edge.kind {
                                EdgeKind::SkipRange(range) => format!("skipRange({range})"),
                                other => other.name().to_string(),
                            };
                            let style = if edge.ignored {
                                ", color=\"#FF0000\", style=dashed"
                            } else {
                                ""
                            };
                            out.push_str(&format!(
                                "      {} -> {} [label={}{style}];\n",
                                dot_id(&format!("{id}-{from}")),
                                dot_id(&format!("{id}-{to}")),
                                dot_id(&label)
                            ));
                        }
                    }
                }
                out.push_str("    }\n");
            }
            out.push_str("  }\n");
        }
        out.push_str("}\n");
        out
    }

    /// The graph as one JSON document: packages, channels, nodes (with
    /// their versions and decorations) and edges.
    pub fn json(&self) -> serde_json::Value {
        use serde_json::json;
        let packages: Vec<serde_json::Value> = self
            .packages
            .iter()
            .map(|package| {
                let channels: Vec<serde_json::Value> = package
                    .channels
                    .iter()
                    .map(|channel| {
                        let mut nodes = Vec::new();
                        let mut edges = Vec::new();
                        for item in &channel.items {
                            match item {
                                Item::Node { name, class } => nodes.push(json!({
                                    "name": name,
                                    "version": self.versions.get(name).map(ToString::to_string),
                                    "deprecated": matches!(class, Some("deprecated" | "deprecatedskipped")),
                                    "skipped": matches!(class, Some("skipped" | "deprecatedskipped")),
                                })),
                                Item::Edge(edge) => {
                                    let mut value = json!({
                                        "from": edge.from,
                                        "to": edge.to,
                                        "kind": edge.kind.name(),
                                        "ignored": edge.ignored,
                                    });
                                    if let EdgeKind::SkipRange(range) = &edge.kind {
                                        value["skipRange"] = json!(range);
                                    }
                                    edges.push(value);
                                }
                            }
                        }
                        json!({
                            "name": channel.name,
                            "deprecated": channel.deprecated,
                            "nodes": nodes,
                            "edges": edges,
                        })
                    })
                    .collect();
                json!({
                    "name": package.name,
                    "deprecated": package.deprecated,
                    "channels": channels,
                })
            })
            .collect();
        json!({ "packages": packages })
    }
}

/// A DOT identifier: always quoted, with `"` and `\` escaped.
fn dot_id(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        if c == '\n' {
            out.push_str("\\n");
            continue;
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn entries(channel: &super::Channel) -> &[ChannelEntry] {
    channel.entries.as_deref().unwrap_or_default()
}

/// Upstream's `filterChannel`: the entries (and edges) to draw, or `None`
/// when nothing is left.
fn filter_channel(
    channel: &super::Channel,
    options: &GraphOptions,
    version_of: &dyn Fn(&str) -> Version,
    min_version: &Version,
    min_edge_package: &str,
) -> Option<Vec<ChannelEntry>> {
    let all = entries(channel);
    if options.minimum_edge.is_empty() && options.package.is_empty() {
        return Some(all.to_vec());
    }
    if !options.package.is_empty() && channel.package != options.package {
        return None;
    }
    if !min_edge_package.is_empty() && channel.package != min_edge_package {
        return None;
    }
    let mut out = Vec::new();
    for entry in all {
        let mut kept = ChannelEntry {
            name: entry.name.clone(),
            ..ChannelEntry::default()
        };
        let had_edges =
            !entry.replaces.is_empty() || !entry.skips.is_empty() || !entry.skip_range.is_empty();
        if options.minimum_edge.is_empty() {
            kept.replaces = entry.replaces.clone();
            kept.skips = entry.skips.clone();
            kept.skip_range = entry.skip_range.clone();
            out.push(kept);
            continue;
        }
        if entry.name == options.minimum_edge {
            out.push(kept);
            continue;
        }
        if !entry.replaces.is_empty() && version_of(&entry.replaces) >= *min_version {
            kept.replaces = entry.replaces.clone();
        }
        let skips: Vec<String> = entry
            .skips
            .iter()
            .filter(|s| version_of(s) >= *min_version)
            .cloned()
            .collect();
        if !skips.is_empty() {
            kept.skips = skips;
        }
        if !entry.skip_range.is_empty() {
            if let Ok(range) = Range::parse(&entry.skip_range) {
                if range.contains(min_version) {
                    kept.skip_range = entry.skip_range.clone();
                }
            }
        }
        let has_edges =
            !kept.replaces.is_empty() || !kept.skips.is_empty() || !kept.skip_range.is_empty();
        if has_edges || (!had_edges && version_of(&kept.name) >= *min_version) {
            out.push(kept);
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Every package named by the graph's channels (for callers that check `-p`).
pub fn package_names(cfg: &DeclarativeConfig) -> BTreeSet<&str> {
    cfg.channels.iter().map(|c| c.package.as_str()).collect()
}
