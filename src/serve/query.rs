//! The questions `api.Registry` answers, over the index (upstream:
//! `pkg/cache/cache.go`, `pkg/cache/pkgs.go`), with upstream's messages. Every
//! list is in name order (packages, then channels, then bundles), where
//! upstream follows Go's map order. Reads blobs from disk; no gRPC here.

use super::api;
use super::convert::{self, ConvertError, Objects, Place};
use super::index::{Channel, Gvk, Index, Package};
use crate::encoding::json::go_quote as q;
use std::ops::Bound;

/// Why a question has no answer.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// What upstream reports as a plain error (gRPC code `Unknown`): an
    /// unknown package, channel or bundle, or nothing that matches.
    #[error("{0}")]
    NoAnswer(String),
    /// A custom-schema query with a bad schema or package name.
    #[error("invalid custom schema query: {0}")]
    InvalidQuery(String),
    /// A blob that could not be read again or converted.
    #[error(transparent)]
    Convert(#[from] ConvertError),
}

/// The pattern upstream checks custom-schema query names against.
pub const META_KEY_PATTERN: &str = "^[a-zA-Z0-9][a-zA-Z0-9._-]*$";

/// Whether a custom-schema name or package name can be queried (and stored
/// in a cache directory): [`META_KEY_PATTERN`].
pub fn valid_meta_key(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

fn entry(package: &str, channel: &str, bundle: &str, replaces: &str) -> api::ChannelEntry {
    api::ChannelEntry {
        package_name: package.to_string(),
        channel_name: channel.to_string(),
        bundle_name: bundle.to_string(),
        replaces: replaces.to_string(),
    }
}

fn provides(provided: &[Gvk], group: &str, version: &str, kind: &str) -> bool {
    provided
        .iter()
        .any(|gvk| gvk.group == group && gvk.version == version && gvk.kind == kind)
}

fn no_provider(group: &str, version: &str, kind: &str) -> QueryError {
    QueryError::NoAnswer(format!(
        "no channel entries found that provide group:{} version:{} kind:{}",
        q(group),
        q(version),
        q(kind)
    ))
}

impl Index {
    fn package(&self, name: &str) -> Result<&Package, QueryError> {
        self.packages
            .get(name)
            .ok_or_else(|| QueryError::NoAnswer(format!("package {} not found", q(name))))
    }

    fn channel<'a>(&'a self, package: &'a Package, name: &str) -> Result<&'a Channel, QueryError> {
        package.channels.get(name).ok_or_else(|| {
            QueryError::NoAnswer(format!(
                "package {}, channel {} not found",
                q(&package.name),
                q(name)
            ))
        })
    }

    /// The API bundle listed as `name` in `channel`.
    pub(super) fn api_bundle(
        &self,
        package: &Package,
        channel: &Channel,
        name: &str,
        objects: Objects,
    ) -> Result<api::Bundle, QueryError> {
        let entry = channel.entries.get(name).ok_or_else(|| {
            QueryError::NoAnswer(format!(
                "package {}, channel {}, bundle {} not found",
                q(&package.name),
                q(&channel.name),
                q(name)
            ))
        })?;
        let Some(bundle) = self.bundles.get(entry.bundle) else {
            return Err(QueryError::NoAnswer(format!(
                "bundle {} not found",
                q(name)
            )));
        };
        let blob = self.bundle_blob(bundle).map_err(ConvertError::from)?;
        let place = Place {
            channel: &channel.name,
            entry,
            deprecation: bundle.deprecation.as_deref(),
        };
        Ok(convert::bundle(&blob, place, objects, || {
            self.package_blob(package)
        })?)
    }

    /// A bundle as the single-bundle questions answer it: without `replaces`
    /// and `skips`.
    fn trimmed_bundle(
        &self,
        package: &Package,
        channel: &Channel,
        name: &str,
    ) -> Result<api::Bundle, QueryError> {
        let mut bundle = self.api_bundle(package, channel, name, Objects::Include)?;
        bundle.replaces.clear();
        bundle.skips.clear();
        Ok(bundle)
    }

    /// `ListPackages`.
    pub fn list_packages(&self) -> Vec<String> {
        self.packages.keys().cloned().collect()
    }

    /// `GetPackage`: channels by name, each with its head.
    pub fn get_package(&self, name: &str) -> Result<api::Package, QueryError> {
        let package = self.package(name)?;
        Ok(api::Package {
            name: package.name.clone(),
            channels: package
                .channels
                .values()
                .map(|channel| api::Channel {
                    name: channel.name.clone(),
                    csv_name: channel.head.clone(),
                    deprecation: channel
                        .deprecation
                        .as_ref()
                        .map(|message| api::Deprecation {
                            message: message.clone(),
                        }),
                })
                .collect(),
            default_channel_name: package.default_channel.clone(),
            deprecation: package
                .deprecation
                .as_ref()
                .map(|message| api::Deprecation {
                    message: message.clone(),
                }),
        })
    }

    /// `GetBundle`.
    pub fn get_bundle(
        &self,
        package: &str,
        channel: &str,
        name: &str,
    ) -> Result<api::Bundle, QueryError> {
        let package = self.package(package)?;
        let channel = self.channel(package, channel)?;
        self.trimmed_bundle(package, channel, name)
    }

    /// `GetBundleForChannel`: the channel head.
    pub fn get_bundle_for_channel(
        &self,
        package: &str,
        channel: &str,
    ) -> Result<api::Bundle, QueryError> {
        let package = self.package(package)?;
        let channel = self.channel(package, channel)?;
        self.trimmed_bundle(package, channel, &channel.head)
    }

    /// `GetChannelEntriesThatReplace`: every entry whose `replaces` or `skips`
    /// names `name` (each such skip gives one more entry, as upstream).
    pub fn channel_entries_that_replace(
        &self,
        name: &str,
    ) -> Result<Vec<api::ChannelEntry>, QueryError> {
        let mut entries = Vec::new();
        for package in self.packages.values() {
            for channel in package.channels.values() {
                for (bundle, e) in &channel.entries {
                    if e.replaces == name {
                        entries.push(entry(&package.name, &channel.name, bundle, &e.replaces));
                    }
                    for skip in &e.skips {
                        if skip == name && *skip != e.replaces {
                            entries.push(entry(&package.name, &channel.name, bundle, &e.replaces));
                        }
                    }
                }
            }
        }
        if entries.is_empty() {
            return Err(QueryError::NoAnswer(format!(
                "no channel entries found that replace {name}"
            )));
        }
        Ok(entries)
    }

    /// `GetBundleThatReplaces`: the first bundle of the channel (by name) that
    /// replaces or skips `name`.
    pub fn bundle_that_replaces(
        &self,
        name: &str,
        package: &str,
        channel: &str,
    ) -> Result<api::Bundle, QueryError> {
        let package = self
            .packages
            .get(package)
            .ok_or_else(|| QueryError::NoAnswer(format!("package {package} not found")))?;
        let channel = self.channel(package, channel)?;
        let found = channel
            .entries
            .iter()
            .find(|(_, e)| e.replaces == name || e.skips.iter().any(|s| s == name));
        match found {
            Some((bundle, _)) => self.trimmed_bundle(package, channel, bundle),
            None => Err(QueryError::NoAnswer(format!(
                "no entry found for package {}, channel {}",
                q(&package.name),
                q(&channel.name)
            ))),
        }
    }

    /// The entries upstream lists for a bundle that provides an API: its
    /// `replaces` edge, then each skip (not repeating `replaces`; only skips
    /// listed in the channel unless `any_skip`).
    fn entries_for(
        package: &Package,
        channel: &Channel,
        bundle: &str,
        any_skip: bool,
        out: &mut Vec<api::ChannelEntry>,
    ) {
        let Some(e) = channel.entries.get(bundle) else {
            return;
        };
        out.push(entry(&package.name, &channel.name, bundle, &e.replaces));
        for skip in &e.skips {
            if *skip != e.replaces && (any_skip || channel.entries.contains_key(skip)) {
                out.push(entry(&package.name, &channel.name, bundle, skip));
            }
        }
    }

    /// `GetChannelEntriesThatProvide` (the plural is not compared, as upstream).
    pub fn channel_entries_that_provide(
        &self,
        group: &str,
        version: &str,
        kind: &str,
    ) -> Result<Vec<api::ChannelEntry>, QueryError> {
        self.providers(group, version, kind, false)
    }

    /// `GetLatestChannelEntriesThatProvide`: channel heads only.
    pub fn latest_channel_entries_that_provide(
        &self,
        group: &str,
        version: &str,
        kind: &str,
    ) -> Result<Vec<api::ChannelEntry>, QueryError> {
        self.providers(group, version, kind, true)
    }

    /// The channel entries whose bundle provides the API (of every entry, or
    /// of each channel's head only, which then lists its skips only when they
    /// are entries of the channel), in package and channel order.
    fn providers(
        &self,
        group: &str,
        version: &str,
        kind: &str,
        heads_only: bool,
    ) -> Result<Vec<api::ChannelEntry>, QueryError> {
        let mut entries = Vec::new();
        for package in self.packages.values() {
            for channel in package.channels.values() {
                let candidates: Vec<(&String, &_)> = if heads_only {
                    channel
                        .entries
                        .get_key_value(&channel.head)
                        .into_iter()
                        .collect()
                } else {
                    channel.entries.iter().collect()
                };
                for (name, e) in candidates {
                    let provided = self.bundles.get(e.bundle).map(|b| b.provided.as_slice());
                    if provides(provided.unwrap_or_default(), group, version, kind) {
                        Self::entries_for(package, channel, name, !heads_only, &mut entries);
                    }
                }
            }
        }
        if entries.is_empty() {
            return Err(no_provider(group, version, kind));
        }
        Ok(entries)
    }

    /// `GetDefaultBundleThatProvides`: among the providing channel heads, by
    /// package name, the first in its package's default channel.
    pub fn default_bundle_that_provides(
        &self,
        group: &str,
        version: &str,
        kind: &str,
    ) -> Result<api::Bundle, QueryError> {
        let latest = self.latest_channel_entries_that_provide(group, version, kind)?;
        for e in &latest {
            let Some(package) = self.packages.get(&e.package_name) else {
                continue;
            };
            if e.channel_name == package.default_channel {
                return self.get_bundle(&e.package_name, &e.channel_name, &e.bundle_name);
            }
        }
        Err(QueryError::NoAnswer(format!(
            "no entry found that provides group:{} version:{} kind:{}",
            q(group),
            q(version),
            q(kind)
        )))
    }

    /// `ListBundles`, one bundle at a time: the channel entry after `after`
    /// (the first when `None`) in the order of the listing (packages, channels
    /// and bundles by name), or `None` after the last.
    pub fn next_listed(&self, after: Option<&Listed>) -> Option<Listed> {
        fn from(name: Option<&str>, included: bool) -> (Bound<&str>, Bound<&str>) {
            let start = match name {
                None => Bound::Unbounded,
                Some(name) if included => Bound::Included(name),
                Some(name) => Bound::Excluded(name),
            };
            (start, Bound::Unbounded)
        }
        let packages = self
            .packages
            .range::<str, _>(from(after.map(|a| a.package.as_str()), true));
        for (package_name, package) in packages {
            let after = after.filter(|a| a.package == *package_name);
            let channels = package
                .channels
                .range::<str, _>(from(after.map(|a| a.channel.as_str()), true));
            for (channel_name, channel) in channels {
                let after = after.filter(|a| a.channel == *channel_name);
                let mut entries = channel
                    .entries
                    .range::<str, _>(from(after.map(|a| a.bundle.as_str()), false));
                if let Some((bundle, _)) = entries.next() {
                    return Some(Listed {
                        package: package_name.clone(),
                        channel: channel_name.clone(),
                        bundle: bundle.clone(),
                    });
                }
            }
        }
        None
    }

    /// `ListBundles`' answer for one channel entry: `csvJson` and `object`
    /// left out for bundles with an image.
    pub fn listed_bundle(&self, listed: &Listed) -> Result<api::Bundle, QueryError> {
        let package = self.package(&listed.package)?;
        let channel = self.channel(package, &listed.channel)?;
        self.api_bundle(package, channel, &listed.bundle, Objects::OmitWhenImage)
    }

    /// Checks the names of an `ExperimentalListPackageCustomSchemas` query.
    pub fn check_custom_schema_query(schema: &str, package: &str) -> Result<(), QueryError> {
        for (what, value, may_be_empty) in
            [("schema", schema, false), ("packageName", package, true)]
        {
            if value.is_empty() && may_be_empty {
                continue;
            }
            if value.is_empty() {
                return Err(QueryError::InvalidQuery(format!(
                    "invalid {what}: must not be empty"
                )));
            }
            if !valid_meta_key(value) {
                return Err(QueryError::InvalidQuery(format!(
                    "invalid {what} {}: must match {META_KEY_PATTERN}",
                    q(value)
                )));
            }
        }
        Ok(())
    }

    /// `ExperimentalListPackageCustomSchemas`, one blob at a time: the next
    /// blob of `schema` whose package is `package` (`""`: blobs without a
    /// package), in catalog order, from `*position` in [`Index::metas`]
    /// (which it moves past the blob); `None` after the last.
    pub fn next_custom_schema(
        &self,
        schema: &str,
        package: &str,
        position: &mut usize,
    ) -> Option<Result<prost_types::Struct, QueryError>> {
        while let Some(meta) = self.metas.get(*position) {
            *position += 1;
            if meta.schema != schema || meta.package != package {
                continue;
            }
            match self.value(meta.payload) {
                Ok(value) => {
                    if let Some(blob) = convert::to_struct(value) {
                        return Some(Ok(blob));
                    }
                }
                Err(error) => return Some(Err(QueryError::Convert(error.into()))),
            }
        }
        None
    }
}

/// A channel entry's place in `ListBundles`' order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub package: String,
    pub channel: String,
    pub bundle: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `next_listed` walks every channel entry once, packages, channels and bundles by name.
    #[test]
    fn listing_visits_every_entry_in_name_order() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/serve/custom");
        let index = Index::load(std::path::Path::new(dir), dir).expect("a valid catalog");
        let mut nested = Vec::new();
        for (package, p) in &index.packages {
            for (channel, c) in &p.channels {
                for bundle in c.entries.keys() {
                    nested.push((package.clone(), channel.clone(), bundle.clone()));
                }
            }
        }
        let mut listed = Vec::new();
        let mut after = None;
        while let Some(next) = index.next_listed(after.as_ref()) {
            listed.push((
                next.package.clone(),
                next.channel.clone(),
                next.bundle.clone(),
            ));
            after = Some(next);
        }
        assert!(nested.len() > 3, "{nested:?}");
        assert_eq!(listed, nested);
    }

    #[test]
    fn meta_keys() {
        for good in ["a", "olm.template", "A-b_c.9"] {
            assert!(valid_meta_key(good), "{good}");
        }
        for bad in ["", ".a", "-a", "a/b", "../x", "a b", "é"] {
            assert!(!valid_meta_key(bad), "{bad}");
        }
    }
}
