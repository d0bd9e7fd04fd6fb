//! `opm alpha diff OLD NEW`: what changed between two catalogs, for a
//! reviewer of a catalog pull request. Packages, channels, channel entries
//! (and their `replaces`, `skips`, `skipRange`), default channels, package
//! metadata, bundles (image, properties, related images), deprecations and
//! other blobs; everything in name order, so the output is the same on every
//! run.

use crate::declcfg::{Bundle, Channel, ChannelEntry, DeclarativeConfig, Meta, Package};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Added, removed, or present in both with differences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Added,
    Removed,
    Changed,
}

impl Status {
    fn sign(self) -> char {
        match self {
            Status::Added => '+',
            Status::Removed => '-',
            Status::Changed => '~',
        }
    }

    fn word(self) -> &'static str {
        match self {
            Status::Added => "added",
            Status::Removed => "removed",
            Status::Changed => "changed",
        }
    }
}

/// A scalar field that differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldChange {
    pub field: &'static str,
    pub old: String,
    pub new: String,
}

/// A channel entry's edges.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Edges {
    pub replaces: String,
    pub skips: Vec<String>,
    pub skip_range: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryDiff {
    pub name: String,
    pub status: Status,
    pub old: Option<Edges>,
    pub new: Option<Edges>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelDiff {
    pub name: String,
    pub status: Status,
    pub entries: Vec<EntryDiff>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleDiff {
    pub name: String,
    pub status: Status,
    pub fields: Vec<FieldChange>,
    /// Properties (and related images) only in the new bundle, described.
    pub added: Vec<String>,
    /// Properties (and related images) only in the old bundle, described.
    pub removed: Vec<String>,
}

/// A deprecation entry (of the package, a channel or a bundle).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeprecationDiff {
    /// `package`, `channel NAME` or `bundle NAME`.
    pub subject: String,
    pub status: Status,
    pub old: String,
    pub new: String,
}

/// A blob of another schema, by schema and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherDiff {
    pub schema: String,
    pub name: String,
    pub status: Status,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageDiff {
    pub name: String,
    pub status: Status,
    pub fields: Vec<FieldChange>,
    pub channels: Vec<ChannelDiff>,
    pub bundles: Vec<BundleDiff>,
    pub deprecations: Vec<DeprecationDiff>,
    pub others: Vec<OtherDiff>,
}

/// Every difference, packages by name; `others` are blobs without a package.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CatalogDiff {
    pub packages: Vec<PackageDiff>,
    pub others: Vec<OtherDiff>,
}

/// One side's blobs of one package.
#[derive(Default)]
struct Side<'a> {
    package: Option<&'a Package>,
    channels: BTreeMap<&'a str, &'a Channel>,
    bundles: BTreeMap<&'a str, &'a Bundle>,
    /// Deprecation messages by subject.
    deprecations: BTreeMap<String, &'a str>,
    others: Others<'a>,
}

/// Other blobs by schema and name.
type Others<'a> = BTreeMap<(&'a str, &'a str), &'a Meta>;

fn sides(config: &DeclarativeConfig) -> (BTreeMap<&str, Side<'_>>, Others<'_>) {
    let mut out: BTreeMap<&str, Side<'_>> = BTreeMap::new();
    let mut loose = BTreeMap::new();
    for package in &config.packages {
        out.entry(&package.name).or_default().package = Some(package);
    }
    for channel in &config.channels {
        out.entry(&channel.package)
            .or_default()
            .channels
            .insert(&channel.name, channel);
    }
    for bundle in &config.bundles {
        out.entry(&bundle.package)
            .or_default()
            .bundles
            .insert(&bundle.name, bundle);
    }
    for deprecation in &config.deprecations {
        let side = out.entry(&deprecation.package).or_default();
        for entry in deprecation.entries.iter().flatten() {
            let subject = match entry.reference.schema.as_str() {
                crate::declcfg::SCHEMA_PACKAGE => "package".to_string(),
                crate::declcfg::SCHEMA_CHANNEL => format!("channel {}", entry.reference.name),
                crate::declcfg::SCHEMA_BUNDLE => format!("bundle {}", entry.reference.name),
                other => format!("{other} {}", entry.reference.name),
            };
            side.deprecations.insert(subject, &entry.message);
        }
    }
    for meta in &config.others {
        if meta.package.is_empty() {
            loose.insert((meta.schema.as_str(), meta.name.as_str()), meta);
        } else {
            out.entry(&meta.package)
                .or_default()
                .others
                .insert((&meta.schema, &meta.name), meta);
        }
    }
    (out, loose)
}

fn status<T>(old: Option<T>, new: Option<T>) -> Option<Status> {
    match (old, new) {
        (None, Some(_)) => Some(Status::Added),
        (Some(_), None) => Some(Status::Removed),
        (Some(_), Some(_)) => Some(Status::Changed),
        (None, None) => None,
    }
}

fn keys<'k, K: Ord + Clone + 'k, A, B>(
    a: &'k BTreeMap<K, A>,
    b: &'k BTreeMap<K, B>,
) -> BTreeSet<K> {
    a.keys().chain(b.keys()).cloned().collect()
}

fn field(changes: &mut Vec<FieldChange>, field: &'static str, old: &str, new: &str) {
    if old != new {
        changes.push(FieldChange {
            field,
            old: old.to_string(),
            new: new.to_string(),
        });
    }
}

fn edges(entry: &ChannelEntry) -> Edges {
    Edges {
        replaces: entry.replaces.clone(),
        skips: entry.skips.clone(),
        skip_range: entry.skip_range.clone(),
    }
}

fn channel_diff(name: &str, old: Option<&Channel>, new: Option<&Channel>) -> Option<ChannelDiff> {
    let status = status(old, new)?;
    let index = |c: Option<&Channel>| -> BTreeMap<String, Edges> {
        c.and_then(|c| c.entries.as_ref())
            .into_iter()
            .flatten()
            .map(|e| (e.name.clone(), edges(e)))
            .collect()
    };
    let (before, after) = (index(old), index(new));
    let mut entries = Vec::new();
    for name in keys(&before, &after) {
        let (o, n) = (before.get(&name), after.get(&name));
        let Some(entry_status) = status_of(o, n) else {
            continue;
        };
        entries.push(EntryDiff {
            name,
            status: entry_status,
            old: o.cloned(),
            new: n.cloned(),
        });
    }
    if status == Status::Changed && entries.is_empty() {
        return None;
    }
    Some(ChannelDiff {
        name: name.to_string(),
        status,
        entries,
    })
}

/// Like [`status`], but equal values are no change.
fn status_of<T: PartialEq>(old: Option<&T>, new: Option<&T>) -> Option<Status> {
    match (old, new) {
        (Some(a), Some(b)) if a == b => None,
        _ => status(old, new),
    }
}

/// The first 12 hex digits of the SHA-256 of `text`: tells two long values apart.
fn short_hash(text: &str) -> String {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(text.as_bytes());
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// A property as a reviewer reads it: its type and value (bundle objects
/// by kind and name, long values shortened).
fn describe_property(property: &crate::declcfg::Property) -> String {
    if property.kind == crate::property::BUNDLE_OBJECT {
        if let Some(object) = crate::property::bundle_object_data(property.value.as_ref())
            .ok()
            .and_then(|data| super::migrate::manifest_value(&data))
        {
            let kind = object.get("kind").and_then(Value::as_str).unwrap_or("?");
            let name = object
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("?");
            let digest = short_hash(&serde_json::to_string(&object).unwrap_or_default());
            return format!("{} {kind} {name} ({digest})", property.kind);
        }
    }
    let mut text = String::new();
    crate::encoding::json::write_compact(
        property.value.as_ref().unwrap_or(&Value::Null),
        &mut text,
        false,
    );
    const MAX: usize = 160;
    if text.chars().count() > MAX {
        let digest = short_hash(&text);
        text = text.chars().take(MAX).collect::<String>() + &format!("… ({digest})");
    }
    format!("{} {text}", property.kind)
}

fn bundle_diff(name: &str, old: Option<&Bundle>, new: Option<&Bundle>) -> Option<BundleDiff> {
    let status = status(old, new)?;
    let mut diff = BundleDiff {
        name: name.to_string(),
        status,
        fields: Vec::new(),
        added: Vec::new(),
        removed: Vec::new(),
    };
    if let (Some(old), Some(new)) = (old, new) {
        field(&mut diff.fields, "image", &old.image, &new.image);
        let describe = |b: &Bundle| -> Vec<String> {
            let mut all: Vec<String> = b.properties.iter().map(describe_property).collect();
            all.extend(
                b.related_images
                    .iter()
                    .map(|r| format!("relatedImage {} {}", r.name, r.image)),
            );
            all
        };
        let (before, after) = (describe(old), describe(new));
        let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
        for p in &before {
            *counts.entry(p).or_default() -= 1;
        }
        for p in &after {
            *counts.entry(p).or_default() += 1;
        }
        for (text, count) in counts {
            for _ in 0..count.max(0) {
                diff.added.push(text.to_string());
            }
            for _ in 0..(-count).max(0) {
                diff.removed.push(text.to_string());
            }
        }
        if diff.fields.is_empty() && diff.added.is_empty() && diff.removed.is_empty() {
            return None;
        }
    } else if let Some(bundle) = new.or(old) {
        if !bundle.image.is_empty() {
            diff.fields.push(FieldChange {
                field: "image",
                old: String::new(),
                new: bundle.image.clone(),
            });
        }
    }
    Some(diff)
}

fn package_diff(name: &str, old: &Side<'_>, new: &Side<'_>) -> Option<PackageDiff> {
    let empty = |s: &Side<'_>| {
        s.package.is_none() && s.channels.is_empty() && s.bundles.is_empty() && s.others.is_empty()
    };
    let status = match (empty(old), empty(new)) {
        (true, false) => Status::Added,
        (false, true) => Status::Removed,
        _ => Status::Changed,
    };
    let mut diff = PackageDiff {
        name: name.to_string(),
        status,
        fields: Vec::new(),
        channels: Vec::new(),
        bundles: Vec::new(),
        deprecations: Vec::new(),
        others: Vec::new(),
    };
    let text = |p: Option<&Package>, f: fn(&Package) -> String| p.map(f).unwrap_or_default();
    field(
        &mut diff.fields,
        "defaultChannel",
        &text(old.package, |p| p.default_channel.clone()),
        &text(new.package, |p| p.default_channel.clone()),
    );
    if status == Status::Changed {
        field(
            &mut diff.fields,
            "description",
            &text(old.package, |p| p.description.clone()),
            &text(new.package, |p| p.description.clone()),
        );
        let icon = |p: &Package| {
            p.icon
                .as_ref()
                .map(|i| {
                    format!(
                        "{} ({})",
                        i.media_type,
                        short_hash(i.base64.as_deref().unwrap_or(""))
                    )
                })
                .unwrap_or_default()
        };
        field(
            &mut diff.fields,
            "icon",
            &text(old.package, icon),
            &text(new.package, icon),
        );
    }
    for channel in keys(&old.channels, &new.channels) {
        diff.channels.extend(channel_diff(
            channel,
            old.channels.get(channel).copied(),
            new.channels.get(channel).copied(),
        ));
    }
    for bundle in keys(&old.bundles, &new.bundles) {
        diff.bundles.extend(bundle_diff(
            bundle,
            old.bundles.get(bundle).copied(),
            new.bundles.get(bundle).copied(),
        ));
    }
    for subject in keys(&old.deprecations, &new.deprecations) {
        let (o, n) = (
            old.deprecations.get(&subject),
            new.deprecations.get(&subject),
        );
        if let Some(status) = status_of(o, n) {
            diff.deprecations.push(DeprecationDiff {
                subject,
                status,
                old: o.map(|m| m.to_string()).unwrap_or_default(),
                new: n.map(|m| m.to_string()).unwrap_or_default(),
            });
        }
    }
    diff.others = others_diff(&old.others, &new.others);
    let unchanged = diff.fields.is_empty()
        && diff.channels.is_empty()
        && diff.bundles.is_empty()
        && diff.deprecations.is_empty()
        && diff.others.is_empty();
    (status != Status::Changed || !unchanged).then_some(diff)
}

fn others_diff(old: &Others<'_>, new: &Others<'_>) -> Vec<OtherDiff> {
    let mut out = Vec::new();
    for key in keys(old, new) {
        let (o, n) = (
            old.get(&key).map(|m| &m.blob),
            new.get(&key).map(|m| &m.blob),
        );
        if let Some(status) = status_of(o, n) {
            out.push(OtherDiff {
                schema: key.0.to_string(),
                name: key.1.to_string(),
                status,
            });
        }
    }
    out
}

/// Compares two catalogs (their bundle objects restored).
pub fn diff(old: &DeclarativeConfig, new: &DeclarativeConfig) -> CatalogDiff {
    let (before, loose_before) = sides(old);
    let (after, loose_after) = sides(new);
    let empty = Side::default();
    let mut packages = Vec::new();
    for name in keys(&before, &after) {
        let (o, n) = (
            before.get(name).unwrap_or(&empty),
            after.get(name).unwrap_or(&empty),
        );
        packages.extend(package_diff(name, o, n));
    }
    CatalogDiff {
        packages,
        others: others_diff(&loose_before, &loose_after),
    }
}

impl CatalogDiff {
    pub fn is_empty(&self) -> bool {
        self.packages.is_empty() && self.others.is_empty()
    }

    /// `N packages changed, …` (or `no differences`).
    pub fn summary(&self) -> String {
        if self.is_empty() {
            return "no differences".to_string();
        }
        let mut counts: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for package in &self.packages {
            *counts
                .entry(("package", package.status.word()))
                .or_default() += 1;
            for channel in &package.channels {
                *counts
                    .entry(("channel", channel.status.word()))
                    .or_default() += 1;
            }
            for bundle in &package.bundles {
                *counts.entry(("bundle", bundle.status.word())).or_default() += 1;
            }
            for deprecation in &package.deprecations {
                *counts
                    .entry(("deprecation", deprecation.status.word()))
                    .or_default() += 1;
            }
        }
        let mut parts = Vec::new();
        for what in ["package", "channel", "bundle", "deprecation"] {
            for how in ["added", "removed", "changed"] {
                if let Some(&n) = counts.get(&(what, how)) {
                    parts.push(format!("{n} {what}{} {how}", if n == 1 { "" } else { "s" }));
                }
            }
        }
        if !self.others.is_empty() {
            parts.push(format!("{} other blobs differ", self.others.len()));
        }
        parts.join(", ")
    }

    /// The human-readable form: one block per package, `+` added, `-`
    /// removed, `~` changed, then a summary line.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let edges = |e: &Edges| {
            let mut parts = Vec::new();
            if !e.replaces.is_empty() {
                parts.push(format!("replaces {}", e.replaces));
            }
            if !e.skips.is_empty() {
                parts.push(format!("skips {}", e.skips.join(", ")));
            }
            if !e.skip_range.is_empty() {
                parts.push(format!("skipRange {}", e.skip_range));
            }
            if parts.is_empty() {
                String::new()
            } else {
                format!(" ({})", parts.join("; "))
            }
        };
        let show = |text: &str| {
            if text.is_empty() {
                "(none)".to_string()
            } else {
                text.to_string()
            }
        };
        for package in &self.packages {
            out.push_str(&format!(
                "{} package {}\n",
                package.status.sign(),
                package.name
            ));
            for change in &package.fields {
                let (old, new) = if change.field == "description" {
                    (
                        format!("{} characters", change.old.chars().count()),
                        format!("{} characters", change.new.chars().count()),
                    )
                } else {
                    (show(&change.old), show(&change.new))
                };
                out.push_str(&format!("    {}: {old} -> {new}\n", change.field));
            }
            for channel in &package.channels {
                out.push_str(&format!(
                    "  {} channel {}\n",
                    channel.status.sign(),
                    channel.name
                ));
                for entry in &channel.entries {
                    let detail = match (entry.status, &entry.old, &entry.new) {
                        (Status::Changed, Some(old), Some(new)) => {
                            let mut parts = Vec::new();
                            if old.replaces != new.replaces {
                                parts.push(format!(
                                    "replaces {} -> {}",
                                    show(&old.replaces),
                                    show(&new.replaces)
                                ));
                            }
                            let (a, b): (BTreeSet<_>, BTreeSet<_>) =
                                (old.skips.iter().collect(), new.skips.iter().collect());
                            for s in b.difference(&a) {
                                parts.push(format!("+skips {s}"));
                            }
                            for s in a.difference(&b) {
                                parts.push(format!("-skips {s}"));
                            }
                            if a == b && old.skips != new.skips {
                                parts.push("skips reordered".to_string());
                            }
                            if old.skip_range != new.skip_range {
                                parts.push(format!(
                                    "skipRange {} -> {}",
                                    show(&old.skip_range),
                                    show(&new.skip_range)
                                ));
                            }
                            format!(": {}", parts.join("; "))
                        }
                        (_, _, Some(e)) | (_, Some(e), None) => edges(e),
                        _ => String::new(),
                    };
                    out.push_str(&format!(
                        "      {} {}{detail}\n",
                        entry.status.sign(),
                        entry.name
                    ));
                }
            }
            for bundle in &package.bundles {
                let image = match bundle.status {
                    Status::Changed => String::new(),
                    _ => bundle
                        .fields
                        .first()
                        .map(|f| format!(" ({})", f.new))
                        .unwrap_or_default(),
                };
                out.push_str(&format!(
                    "  {} bundle {}{image}\n",
                    bundle.status.sign(),
                    bundle.name
                ));
                if bundle.status == Status::Changed {
                    for change in &bundle.fields {
                        out.push_str(&format!(
                            "      {}: {} -> {}\n",
                            change.field,
                            show(&change.old),
                            show(&change.new)
                        ));
                    }
                    for p in &bundle.removed {
                        out.push_str(&format!("      - {p}\n"));
                    }
                    for p in &bundle.added {
                        out.push_str(&format!("      + {p}\n"));
                    }
                }
            }
            for deprecation in &package.deprecations {
                let message = match deprecation.status {
                    Status::Removed => String::new(),
                    _ => format!(": {}", deprecation.new),
                };
                out.push_str(&format!(
                    "  {} deprecated {}{message}\n",
                    deprecation.status.sign(),
                    deprecation.subject
                ));
            }
            for other in &package.others {
                out.push_str(&format!(
                    "  {} {} {}\n",
                    other.status.sign(),
                    other.schema,
                    other.name
                ));
            }
        }
        for other in &self.others {
            out.push_str(&format!(
                "{} {} {}\n",
                other.status.sign(),
                other.schema,
                other.name
            ));
        }
        out.push_str(&self.summary());
        out.push('\n');
        out
    }

    /// The machine-readable form.
    pub fn json(&self) -> Value {
        let edges = |e: &Option<Edges>| {
            e.as_ref().map(
                |e| json!({"replaces": e.replaces, "skips": e.skips, "skipRange": e.skip_range}),
            )
        };
        let fields = |fields: &[FieldChange]| -> Vec<Value> {
            fields
                .iter()
                .map(|f| json!({"field": f.field, "old": f.old, "new": f.new}))
                .collect()
        };
        let others = |others: &[OtherDiff]| -> Vec<Value> {
            others
                .iter()
                .map(|o| json!({"schema": o.schema, "name": o.name, "status": o.status.word()}))
                .collect()
        };
        let packages: Vec<Value> = self
            .packages
            .iter()
            .map(|p| {
                json!({
                    "name": p.name,
                    "status": p.status.word(),
                    "fields": fields(&p.fields),
                    "channels": p.channels.iter().map(|c| json!({
                        "name": c.name,
                        "status": c.status.word(),
                        "entries": c.entries.iter().map(|e| json!({
                            "name": e.name,
                            "status": e.status.word(),
                            "old": edges(&e.old),
                            "new": edges(&e.new),
                        })).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                    "bundles": p.bundles.iter().map(|b| json!({
                        "name": b.name,
                        "status": b.status.word(),
                        "fields": fields(&b.fields),
                        "propertiesAdded": b.added,
                        "propertiesRemoved": b.removed,
                    })).collect::<Vec<_>>(),
                    "deprecations": p.deprecations.iter().map(|d| json!({
                        "subject": d.subject,
                        "status": d.status.word(),
                        "old": d.old,
                        "new": d.new,
                    })).collect::<Vec<_>>(),
                    "others": others(&p.others),
                })
            })
            .collect();
        json!({
            "identical": self.is_empty(),
            "summary": self.summary(),
            "packages": packages,
            "others": others(&self.others),
        })
    }
}
