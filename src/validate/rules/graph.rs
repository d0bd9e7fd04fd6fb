//! Upgrade-graph checks beyond upstream's: warnings (errors with `opm validate --strict`) about
//! graphs upstream accepts but that do not do what their authors meant.

use super::package::when;
use crate::diag::{go_quote as q, Severity};
use crate::model::{Bundle, Channel};
use crate::semver::{RangeOp, Version};
use crate::validate::rule::{At, Check, Placement, Rule};
use std::collections::BTreeSet;

/// Checks that a `skipRange` admits no version above the bundle's own: an installed newer
/// version would otherwise be "upgraded" to this older bundle. Upstream: operator-registry
/// pull request 2090 (open). A range without an upper bound is not flagged.
pub const BUNDLE_SKIP_RANGE_BEYOND_VERSION: Rule = Rule {
    id: "bundle-skip-range-beyond-version",
    severity: Severity::Warning,
    summary: "a channel entry's skipRange admits versions above the bundle's own",
    details: "The entry's `skipRange` admits versions above the bundle's own version (for instance `<2.0.0` on version 1.0.0). A cluster that runs a newer version in that range would be offered this older bundle as an upgrade. Bound the range by the bundle's version (`<1.0.0`). A warning; `--strict` makes it an error.",
    at: At::Entry("/skipRange"),
    check: Check::Bundle(bundle_skip_range_beyond_version),
};

fn bundle_skip_range_beyond_version(bundle: &Bundle) -> Vec<String> {
    let Some(version) = &bundle.version else {
        return Vec::new();
    };
    let Ok(range) = crate::semver::Range::parse(&bundle.skip_range) else {
        return Vec::new();
    };
    if bundle.skip_range.is_empty() {
        return Vec::new();
    }
    // The highest version each alternative admits, when it has an upper bound.
    let beyond = range
        .alternatives()
        .iter()
        .filter_map(|alternative| upper_bound(alternative))
        .any(|bound| bound > version);
    when(
        beyond,
        &format!(
            "skipRange {} admits versions above the bundle's own version {version}: an installed newer version would move to this older bundle",
            q(&bundle.skip_range)
        ),
    )
}

/// The upper bound of one alternative of a range (`<`, `<=` or `=`), the tightest one.
fn upper_bound(alternative: &[crate::semver::Comparator]) -> Option<&Version> {
    alternative
        .iter()
        .filter(|c| matches!(c.op, RangeOp::Lt | RangeOp::Le | RangeOp::Eq))
        .map(|c| &c.version)
        .min()
}

/// Checks that every entry of a channel can reach its head: following `replaces`, `skips` and
/// `skipRange` edges backwards from the head, every entry is met. An entry that is not is one
/// an installed operator can never upgrade from. Only channels with a single head are checked
/// (`channel-graph-invalid` reports the others).
pub const BUNDLE_UNREACHABLE: Rule = Rule {
    id: "bundle-unreachable",
    severity: Severity::Warning,
    summary: "a channel entry has no upgrade path to the channel head",
    details: "Following `replaces`, `skips` and `skipRange` edges from an entry never reaches the channel head: an operator installed at that version never gets an upgrade in this channel. A warning; `--strict` makes it an error. Checked only in channels with a single head.",
    at: At::Blob("/entries"),
    check: Check::Channel(Placement::AfterChildren, bundle_unreachable),
};

fn bundle_unreachable(channel: &Channel) -> Vec<String> {
    let Ok(head) = channel.head() else {
        return Vec::new();
    };
    let mut reached: BTreeSet<&str> = BTreeSet::from([head.name.as_str()]);
    let mut pending = vec![head];
    while let Some(bundle) = pending.pop() {
        let range = crate::semver::Range::parse(&bundle.skip_range).ok();
        for other in channel.bundles.values() {
            let edge =
                bundle.replaces == other.name
                    || bundle.skips.contains(&other.name)
                    || range.as_ref().zip(other.version.as_ref()).is_some_and(
                        |(range, version)| !bundle.skip_range.is_empty() && range.contains(version),
                    );
            if edge && reached.insert(other.name.as_str()) {
                pending.push(other);
            }
        }
    }
    channel
        .bundles
        .keys()
        .filter(|name| !reached.contains(name.as_str()))
        .map(|name| {
            format!(
                "bundle {} has no upgrade path to the channel head {}: no entry on the way to the head replaces, skips or covers it with a skipRange",
                q(name),
                q(&head.name)
            )
        })
        .collect()
}

/// Explains a channel with several heads: which entries they are and why each is one (nothing
/// replaces or skips it). The error itself is `channel-graph-invalid`'s.
pub const CHANNEL_HEADS_AMBIGUOUS: Rule = Rule {
    id: "channel-heads-ambiguous",
    severity: Severity::Warning,
    summary: "a channel has several heads: which entries, and why",
    details: "A channel with several heads (entries that nothing replaces or skips) fails channel-graph-invalid, as upstream, which only counts them. This warning names each head and the edges it has, so it is clear which entry should replace or skip the others.",
    at: At::Blob("/entries"),
    check: Check::Channel(Placement::AfterChildren, channel_heads_ambiguous),
};

fn channel_heads_ambiguous(channel: &Channel) -> Vec<String> {
    let Err(crate::model::GraphError::MultipleHeads(heads)) = channel.head() else {
        return Vec::new();
    };
    let described: Vec<String> = heads
        .iter()
        .filter_map(|name| channel.bundles.get(name))
        .map(|bundle| {
            let edges: Vec<String> = (!bundle.replaces.is_empty())
                .then(|| format!("replaces {}", q(&bundle.replaces)))
                .into_iter()
                .chain(
                    (!bundle.skips.is_empty())
                        .then(|| format!("skips {}", bundle.skips.join(", "))),
                )
                .collect();
            match edges.as_slice() {
                [] => format!("{} (no edges)", q(&bundle.name)),
                _ => format!("{} ({})", q(&bundle.name), edges.join("; ")),
            }
        })
        .collect();
    vec![format!(
        "{} entries are heads, since no entry replaces or skips them: {}; one of them should replace or skip the others",
        described.len(),
        described.join(", ")
    )]
}

/// Checks that an entry's `replaces` names a bundle some channel of the package lists; upstream
/// accepts a dangling `replaces` (a pruned catalog), but then the edge leads nowhere.
pub const CHANNEL_REPLACES_UNKNOWN: Rule = Rule {
    id: "channel-replaces-unknown",
    severity: Severity::Warning,
    summary: "a channel entry replaces a bundle that is in no channel of the package",
    details: "An entry `replaces` a bundle that is in no channel of the package (often a version pruned from the catalog). Upgrades from that version cannot be served from this catalog. A warning; `--strict` makes it an error.",
    at: At::Entry("/replaces"),
    check: Check::BundleInPackage(channel_replaces_unknown),
};

fn channel_replaces_unknown(package: &crate::model::Package, bundle: &Bundle) -> Vec<String> {
    let listed = |name: &str| {
        package
            .channels
            .values()
            .any(|channel| channel.bundles.contains_key(name))
    };
    when(
        !bundle.replaces.is_empty() && !listed(&bundle.replaces),
        &format!(
            "replaces {}, which is in no channel of the package",
            q(&bundle.replaces)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle(name: &str, version: &str, replaces: &str, skip_range: &str) -> Bundle {
        Bundle {
            name: name.into(),
            package: "p".into(),
            channel: "stable".into(),
            replaces: replaces.into(),
            skip_range: skip_range.into(),
            version: Version::parse(version).ok(),
            ..Bundle::default()
        }
    }

    fn channel(bundles: Vec<Bundle>) -> Channel {
        Channel {
            name: "stable".into(),
            package: "p".into(),
            bundles: bundles
                .into_iter()
                .map(|b| (b.name.clone(), Box::new(b)))
                .collect(),
            ..Channel::default()
        }
    }

    /// Nothing replaces or skips p.v2, nor p.x: both are heads.
    fn two_heads() -> Channel {
        channel(vec![
            bundle("p.v2", "2.0.0", "p.v1", ""),
            bundle("p.v1", "1.0.0", "", ""),
            bundle("p.x", "0.5.0", "", ""),
        ])
    }

    #[test]
    fn skip_ranges_beyond_the_version_warn() {
        for (range, warns) in [
            ("<1.2.0", false),
            ("<=1.2.0", false),
            (">=1.0.0", false),
            (">=1.0.0 <1.3.0", true),
            ("<1.0.0 || =2.0.0", true),
            ("", false),
        ] {
            let found = bundle_skip_range_beyond_version(&bundle("p.v1.2.0", "1.2.0", "", range));
            assert_eq!(!found.is_empty(), warns, "{range}: {found:?}");
        }
    }

    #[test]
    fn unreachable_entries_are_named() {
        // With several heads there is no one head to reach (channel-heads-ambiguous says so):
        // the graph is not checked, though nothing leads from p.x to p.v2.
        assert!(bundle_unreachable(&two_heads()).is_empty());
        // Upstream accepts this graph (one head, every entry on the chain or skipped), yet
        // p.a and p.b only skip each other: nothing leads from them to the head.
        let mut stuck = channel(vec![
            bundle("p.v3", "3.0.0", "p.v2", ""),
            bundle("p.v2", "2.0.0", "", ""),
            bundle("p.a", "1.0.0", "", ""),
            bundle("p.b", "1.1.0", "", ""),
        ]);
        stuck.bundles.get_mut("p.a").unwrap().skips = vec!["p.b".into()];
        stuck.bundles.get_mut("p.b").unwrap().skips = vec!["p.a".into()];
        assert!(stuck.validate_graph().is_ok());
        assert_eq!(
            bundle_unreachable(&stuck),
            [
                "bundle \"p.a\" has no upgrade path to the channel head \"p.v3\": no entry on the way to the head replaces, skips or covers it with a skipRange",
                "bundle \"p.b\" has no upgrade path to the channel head \"p.v3\": no entry on the way to the head replaces, skips or covers it with a skipRange",
            ]
        );
    }

    #[test]
    fn several_heads_are_explained() {
        assert_eq!(
            channel_heads_ambiguous(&two_heads()),
            ["2 entries are heads, since no entry replaces or skips them: \"p.v2\" (replaces \"p.v1\"), \"p.x\" (no edges); one of them should replace or skip the others"]
        );
    }
}
