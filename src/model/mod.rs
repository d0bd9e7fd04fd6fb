//! The linked catalog model: packages own channels, channels own bundles (one copy of a
//! bundle per channel that lists it, as upstream does). Maps are `BTreeMap`s keyed by name so
//! every walk is in name order. Built from wire types by `convert`; holds no I/O.

pub mod convert;
pub mod dns;
pub mod property;

use crate::declcfg::{Icon, Origin, Property, RelatedImage};
use crate::semver::{PreRelease, Version};
use std::collections::{BTreeMap, BTreeSet};

/// A whole catalog, packages by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Model {
    pub packages: BTreeMap<String, Package>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Package {
    pub name: String,
    pub description: String,
    pub icon: Option<Icon>,
    /// The default channel's name; `None` when the package blob left it empty.
    pub default_channel: Option<String>,
    /// Boxed: most packages have one channel, and a map node has room for eleven values.
    pub channels: BTreeMap<String, Box<Channel>>,
    pub deprecation: Option<Deprecation>,
    pub properties: Vec<Property>,
    pub origin: Option<Origin>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Channel {
    pub name: String,
    pub package: String,
    /// Boxed: a bundle is large, most channels list few, and a map node has room for eleven.
    pub bundles: BTreeMap<String, Box<Bundle>>,
    pub deprecation: Option<Deprecation>,
    /// Internal-use channel properties, carried through.
    pub properties: Vec<Property>,
    pub origin: Option<Origin>,
}

/// A bundle as listed by one channel: the channel entry's edges plus the `olm.bundle` blob's
/// data (absent when the blob is missing or could not be read).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bundle {
    pub name: String,
    pub package: String,
    pub channel: String,
    pub replaces: String,
    pub skips: Vec<String>,
    pub skip_range: String,
    pub image: String,
    pub properties: Vec<Property>,
    pub related_images: Vec<RelatedImage>,
    /// How many `olm.bundle.object` properties the blob has (their data is
    /// not kept: the loader already checked it decodes).
    pub object_count: usize,
    /// The `olm.package` version; `None` when unknown or invalid.
    pub version: Option<Version>,
    /// The `olm.package` release; `None` when absent or invalid.
    pub release: Option<Release>,
    pub deprecation: Option<Deprecation>,
    /// Where the `olm.bundle` blob came from.
    pub origin: Option<Origin>,
    /// Where the channel entry that lists it is: the channel blob and the entry's index.
    pub entry: Option<(Origin, usize)>,
}

/// A release version: dot-separated prerelease-style identifiers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// The text as written (identical to the canonical form, parsing being strict).
    pub text: String,
    pub parts: Vec<PreRelease>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deprecation {
    pub message: String,
}

impl Bundle {
    /// `<version>` or `<version>-<release>`: the key under which upstream compares versions.
    pub fn version_key(&self) -> Option<String> {
        let version = self.version.as_ref()?;
        Some(match &self.release {
            Some(release) => format!("{version}-{}", release.text),
            None => version.to_string(),
        })
    }
}

/// Why a channel's upgrade graph is invalid (upstream: `Channel.Head` and
/// `validateReplacesChain`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    #[error("no channel head found in graph")]
    NoHead,
    #[error("multiple channel heads found in graph: {}", .0.join(", "))]
    MultipleHeads(Vec<String>),
    #[error("detected cycle in replaces chain of upgrade graph: {}", .0.join(" -> "))]
    Cycle(Vec<String>),
    #[error("channel contains one or more stranded bundles: {}", .0.join(", "))]
    Stranded(Vec<String>),
}

impl Channel {
    /// The bundle no other entry replaces or skips.
    ///
    /// # Errors
    /// `NoHead` or `MultipleHeads` when there is not exactly one such bundle.
    pub fn head(&self) -> Result<&Bundle, GraphError> {
        let mut incoming: BTreeSet<&str> = BTreeSet::new();
        for bundle in self.bundles.values() {
            if !bundle.replaces.is_empty() {
                incoming.insert(&bundle.replaces);
            }
            incoming.extend(bundle.skips.iter().map(String::as_str));
        }
        let heads: Vec<&Bundle> = self
            .bundles
            .values()
            .map(|bundle| &**bundle)
            .filter(|bundle| !incoming.contains(bundle.name.as_str()))
            .collect();
        match heads.as_slice() {
            [] => Err(GraphError::NoHead),
            [head] => Ok(head),
            many => Err(GraphError::MultipleHeads(
                many.iter().map(|bundle| bundle.name.clone()).collect(),
            )),
        }
    }

    /// Checks the channel's upgrade graph: exactly one head, no cycle along the replaces
    /// chain from the head, and every entry either on that chain or skipped by some entry.
    /// The chain stops at an entry whose `replaces` is skipped by any entry of the channel.
    ///
    /// # Errors
    /// The first problem found, in that order.
    pub fn validate_graph(&self) -> Result<(), GraphError> {
        let head = self.head()?;
        let skipped: BTreeSet<&str> = self
            .bundles
            .values()
            .flat_map(|bundle| bundle.skips.iter().map(String::as_str))
            .collect();
        let mut path: Vec<&str> = vec![head.name.as_str()];
        let mut visited: BTreeSet<&str> = BTreeSet::from([head.name.as_str()]);
        let mut current = Some(head);
        while let Some(bundle) = current {
            let target = bundle.replaces.as_str();
            if skipped.contains(target) {
                break;
            }
            if visited.contains(target) {
                let start = path.iter().position(|name| *name == target).unwrap_or(0);
                let mut cycle: Vec<String> =
                    path[start..].iter().map(ToString::to_string).collect();
                cycle.push(target.to_string());
                return Err(GraphError::Cycle(cycle));
            }
            visited.insert(target);
            path.push(target);
            current = self.bundles.get(target).map(|bundle| &**bundle);
        }
        let stranded: Vec<String> = self
            .bundles
            .keys()
            .filter(|name| !visited.contains(name.as_str()) && !skipped.contains(name.as_str()))
            .cloned()
            .collect();
        if stranded.is_empty() {
            Ok(())
        } else {
            Err(GraphError::Stranded(stranded))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(entries: &[(&str, &str, &[&str])]) -> Channel {
        let mut channel = Channel {
            name: "stable".into(),
            package: "foo".into(),
            ..Channel::default()
        };
        for (name, replaces, skips) in entries {
            channel.bundles.insert(
                name.to_string(),
                Box::new(Bundle {
                    name: name.to_string(),
                    package: "foo".into(),
                    channel: "stable".into(),
                    replaces: replaces.to_string(),
                    skips: skips.iter().map(ToString::to_string).collect(),
                    ..Bundle::default()
                }),
            );
        }
        channel
    }

    #[test]
    fn graph_rules() {
        let cases: Vec<(&str, Channel, Result<(), &str>)> = vec![
            ("ok/single", channel(&[("a", "", &[])]), Ok(())),
            (
                "ok/chain",
                channel(&[("a", "", &[]), ("b", "a", &[])]),
                Ok(()),
            ),
            (
                "ok/tail-replaces-missing",
                channel(&[("a", "zzz", &[]), ("b", "a", &[])]),
                Ok(()),
            ),
            (
                "ok/skipped-leaf",
                channel(&[("a", "", &[]), ("c", "", &["a"])]),
                Ok(()),
            ),
            (
                "error/two-heads",
                channel(&[("a", "", &[]), ("b", "", &[]), ("c", "", &[])]),
                Err("multiple channel heads found in graph: a, b, c"),
            ),
            (
                "error/self-replace",
                channel(&[("a", "a", &[])]),
                Err("no channel head found in graph"),
            ),
            (
                "error/cycle",
                channel(&[("c", "b", &[]), ("b", "a", &[]), ("a", "b", &[])]),
                Err("detected cycle in replaces chain of upgrade graph: b -> a -> b"),
            ),
            (
                "error/skipped-replaces-strands",
                channel(&[("v1", "", &[]), ("v2", "v1", &[]), ("v3", "v2", &["v2"])]),
                Err("channel contains one or more stranded bundles: v1"),
            ),
            (
                "error/stranded",
                channel(&[
                    ("a", "", &[]),
                    ("b", "a", &[]),
                    ("x", "", &[]),
                    ("y", "x", &["b"]),
                ]),
                Err("channel contains one or more stranded bundles: a"),
            ),
        ];
        for (name, channel, expected) in cases {
            let got = channel.validate_graph().map_err(|error| error.to_string());
            assert_eq!(got, expected.map_err(str::to_string), "{name}");
        }
    }

    #[test]
    fn cycle_through_head() {
        // Head h replaces a, a replaces b, b replaces a: the cycle starts at a.
        let channel = channel(&[("h", "a", &[]), ("a", "b", &[]), ("b", "a", &[])]);
        assert_eq!(
            channel.validate_graph().map_err(|e| e.to_string()),
            Err("detected cycle in replaces chain of upgrade graph: a -> b -> a".to_string())
        );
    }
}
