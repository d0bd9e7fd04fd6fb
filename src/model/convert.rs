//! Conversion of wire types (`declcfg`) into the linked `Model`, gathering every conversion
//! problem instead of stopping at the first (upstream: `declcfg.ConvertToModel`).
//!
//! Problems are reported with upstream's wording, in upstream's check order: packages,
//! channels, bundles (each in input order), the missing-bundle post check (packages by
//! name), then deprecations. After a problem the offending blob is dropped or kept as
//! described at each check; blobs of a rejected package are skipped without further
//! reports. `Gaps` lists the packages whose conversion reported a problem: their model is
//! incomplete, so model checks skip them rather than report consequences.

use super::property::{self, PackageProperty, Properties};
use super::{dns, Bundle, Channel, Deprecation, Model, Package, Release};
use crate::declcfg::{
    DeclarativeConfig, Origin, PackageScopedReference, SCHEMA_BUNDLE, SCHEMA_CHANNEL,
    SCHEMA_PACKAGE,
};
use crate::diag::{go_quote as q, Diagnostic, Subject};
use crate::image::reference::Reference;
use crate::semver::{parse_release, Version};
use std::collections::{BTreeMap, BTreeSet};

pub mod rule;

/// Packages whose model is incomplete because conversion reported a problem about them
/// (upstream would have stopped before validating any model).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gaps {
    pub packages: BTreeSet<String>,
}

impl Gaps {
    pub fn package(&self, package: &str) -> bool {
        self.packages.contains(package)
    }
}

/// The result of a conversion: the model built from everything that converted, the
/// conversion problems, and where the model is incomplete.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversion {
    pub model: Model,
    pub diagnostics: Vec<Diagnostic>,
    pub gaps: Gaps,
}

impl Conversion {
    pub fn is_clean(&self) -> bool {
        self.diagnostics.is_empty()
    }
}

/// Builds the model from `cfg`, gathering every conversion problem. The model takes its data
/// out of `cfg`, and each blob is freed once converted, so that the loaded catalog and the
/// model are not both held whole.
pub fn convert(cfg: DeclarativeConfig) -> Conversion {
    let DeclarativeConfig {
        packages,
        channels,
        bundles,
        deprecations,
        others,
    } = cfg;
    drop(others);
    let mut converter = Converter::default();
    converter.packages(packages);
    converter.channels(channels);
    converter.bundles(bundles);
    converter.missing_bundles();
    converter.default_channels();
    converter.deprecations(&deprecations);
    converter.record_gaps();
    Conversion {
        model: converter.model,
        diagnostics: converter.diagnostics,
        gaps: converter.gaps,
    }
}

#[derive(Default)]
struct Converter {
    model: Model,
    diagnostics: Vec<Diagnostic>,
    gaps: Gaps,
    /// Package names seen, accepted or rejected.
    seen_packages: BTreeSet<String>,
    /// Packages rejected for a missing or invalid name: blobs that belong to them are
    /// skipped without reporting them as belonging to an unknown package.
    rejected: BTreeSet<String>,
    /// `defaultChannel` of each accepted package blob.
    default_channels: BTreeMap<String, String>,
    /// Entry names of dropped channels, per package: their bundles are not reported as
    /// missing from every channel.
    dropped_entries: BTreeMap<String, BTreeSet<String>>,
    /// Names of the accepted `olm.bundle` blobs, per package.
    package_bundles: BTreeMap<String, BTreeSet<String>>,
}

fn package_subject(name: &str) -> Subject {
    Subject::Package {
        name: name.to_string(),
    }
}

fn channel_subject(package: &str, name: &str) -> Subject {
    Subject::Channel {
        package: package.to_string(),
        name: name.to_string(),
    }
}

fn bundle_subject(package: &str, name: &str) -> Subject {
    Subject::Bundle {
        package: package.to_string(),
        name: name.to_string(),
    }
}

/// A readable rendering of a deprecation reference (upstream prints a Go struct dump).
fn reference_text(reference: &PackageScopedReference) -> String {
    format!(
        "{{schema: {}, name: {}}}",
        q(&reference.schema),
        q(&reference.name)
    )
}

impl Converter {
    fn report(
        &mut self,
        rule: &'static str,
        subject: Subject,
        message: String,
        origin: Option<&Origin>,
    ) {
        self.diagnostics
            .push(Diagnostic::error(rule, subject, message).with_origin(origin.cloned()));
    }

    /// [`Self::report`], at the field `pointer` of the blob.
    fn report_at(
        &mut self,
        rule: &'static str,
        subject: Subject,
        message: String,
        origin: Option<&Origin>,
        pointer: String,
    ) {
        self.diagnostics.push(
            Diagnostic::error(rule, subject, message)
                .with_origin(origin.cloned())
                .at(pointer),
        );
    }

    fn packages(&mut self, packages: Vec<crate::declcfg::Package>) {
        for package in packages {
            if package.name.is_empty() {
                self.rejected.insert(String::new());
                self.report(
                    rule::PACKAGE_NAME_MISSING,
                    Subject::Catalog,
                    "config contains package with no name".to_string(),
                    package.origin.as_ref(),
                );
                continue;
            }
            // The first blob of a package wins; later ones are dropped.
            if !self.seen_packages.insert(package.name.clone()) {
                self.report(
                    rule::PACKAGE_DUPLICATE,
                    package_subject(&package.name),
                    format!("duplicate package {}", q(&package.name)),
                    package.origin.as_ref(),
                );
                continue;
            }
            // A package with an invalid name is rejected with everything that belongs to it
            // (upstream stops here; what is in it is not checked either).
            let errors = dns::dns1123_label_errors(&package.name);
            if !errors.is_empty() {
                self.rejected.insert(package.name.clone());
                self.report_at(
                    rule::PACKAGE_NAME_INVALID,
                    package_subject(&package.name),
                    format!(
                        "invalid package name {}: [{}]",
                        q(&package.name),
                        errors.join(" ")
                    ),
                    package.origin.as_ref(),
                    "/name".to_string(),
                );
                continue;
            }
            self.default_channels
                .insert(package.name.clone(), package.default_channel);
            self.model.packages.insert(
                package.name.clone(),
                Package {
                    name: package.name,
                    description: package.description,
                    icon: package.icon,
                    default_channel: None,
                    channels: BTreeMap::new(),
                    deprecation: None,
                    properties: package.properties,
                    origin: package.origin,
                },
            );
        }
    }

    fn channels(&mut self, channels: Vec<crate::declcfg::Channel>) {
        for channel in &channels {
            let entries = channel.entries.as_deref().unwrap_or_default();
            if self.rejected.contains(&channel.package) {
                continue;
            }
            let Some(package) = self.model.packages.get(&channel.package) else {
                self.report_at(
                    rule::CHANNEL_PACKAGE_UNKNOWN,
                    channel_subject(&channel.package, &channel.name),
                    format!(
                        "unknown package {} for channel {}",
                        q(&channel.package),
                        q(&channel.name)
                    ),
                    channel.origin.as_ref(),
                    "/package".to_string(),
                );
                continue;
            };
            let problem = if channel.name.is_empty() {
                Some((
                    rule::CHANNEL_NAME_MISSING,
                    package_subject(&channel.package),
                    format!(
                        "package {} contains channel with no name",
                        q(&channel.package)
                    ),
                ))
            } else if package.channels.contains_key(&channel.name) {
                Some((
                    rule::CHANNEL_DUPLICATE,
                    channel_subject(&channel.package, &channel.name),
                    format!(
                        "package {} has duplicate channel {}",
                        q(&channel.package),
                        q(&channel.name)
                    ),
                ))
            } else {
                None
            };
            if let Some((rule, subject, message)) = problem {
                // The channel is dropped; its entries are remembered so that their bundles
                // are not also reported as listed by no channel.
                self.report(rule, subject, message, channel.origin.as_ref());
                self.dropped_entries
                    .entry(channel.package.clone())
                    .or_default()
                    .extend(entries.iter().map(|entry| entry.name.clone()));
                continue;
            }

            let mut model_channel = Channel {
                name: channel.name.clone(),
                package: channel.package.clone(),
                bundles: BTreeMap::new(),
                deprecation: None,
                properties: channel.properties.clone(),
                origin: channel.origin.clone(),
            };
            let mut reported: BTreeSet<&str> = BTreeSet::new();
            for (index, entry) in entries.iter().enumerate() {
                // The first entry of a name wins.
                if model_channel.bundles.contains_key(&entry.name) {
                    if reported.insert(&entry.name) {
                        self.report_at(
                            rule::CHANNEL_DUPLICATE_ENTRY,
                            channel_subject(&channel.package, &channel.name),
                            format!(
                                "invalid package {}, channel {}: duplicate entry {}",
                                q(&channel.package),
                                q(&channel.name),
                                q(&entry.name)
                            ),
                            channel.origin.as_ref(),
                            format!("/entries/{index}"),
                        );
                    }
                    continue;
                }
                model_channel.bundles.insert(
                    entry.name.clone(),
                    Box::new(Bundle {
                        name: entry.name.clone(),
                        package: channel.package.clone(),
                        channel: channel.name.clone(),
                        replaces: entry.replaces.clone(),
                        skips: entry.skips.clone(),
                        skip_range: entry.skip_range.clone(),
                        entry: channel.origin.clone().map(|origin| (origin, index)),
                        ..Bundle::default()
                    }),
                );
            }
            if let Some(package) = self.model.packages.get_mut(&channel.package) {
                package
                    .channels
                    .insert(channel.name.clone(), Box::new(model_channel));
            }
        }
    }

    fn bundles(&mut self, bundles: Vec<crate::declcfg::Bundle>) {
        for bundle in bundles {
            if self.accept_bundle(&bundle) {
                self.convert_bundle(bundle);
            }
        }
    }

    /// Whether the blob belongs to a known package and is the first of its name there.
    fn accept_bundle(&mut self, bundle: &crate::declcfg::Bundle) -> bool {
        let (package, name) = (&bundle.package, &bundle.name);
        let subject = bundle_subject(package, name);
        let problem = if package.is_empty() {
            (
                rule::BUNDLE_PACKAGE_MISSING,
                format!("package name must be set for bundle {}", q(name)),
            )
        } else if self.rejected.contains(package) {
            return false;
        } else if !self.model.packages.contains_key(package) {
            (
                rule::BUNDLE_PACKAGE_UNKNOWN,
                format!("unknown package {} for bundle {}", q(package), q(name)),
            )
        } else if !self
            .package_bundles
            .entry(package.clone())
            .or_default()
            .insert(name.clone())
        {
            // The first blob of a bundle name wins.
            (
                rule::BUNDLE_DUPLICATE,
                format!("package {} has duplicate bundle {}", q(package), q(name)),
            )
        } else {
            return true;
        };
        self.report(problem.0, subject, problem.1, bundle.origin.as_ref());
        false
    }

    fn convert_bundle(&mut self, bundle: crate::declcfg::Bundle) {
        let (properties, package_property) = self.bundle_properties(&bundle);
        self.check_images(&bundle);
        let (version, release) = match &package_property {
            Some(package_property) => self.bundle_version(&bundle, package_property),
            None => (None, None),
        };
        let object_count = properties.map_or(0, |properties| properties.bundle_objects.len());
        // Bundle objects are the bulk of a catalog; the model keeps the other
        // properties only (the objects were checked while loading and above).
        let kept_properties: Vec<_> = bundle
            .properties
            .into_iter()
            .filter(|p| p.kind != crate::property::BUNDLE_OBJECT)
            .collect();

        // Every channel that lists the bundle gets a copy; the last one takes the data.
        let mut targets: Vec<&mut Bundle> = self
            .model
            .packages
            .get_mut(&bundle.package)
            .map(|model_package| {
                model_package
                    .channels
                    .values_mut()
                    .filter_map(|channel| channel.bundles.get_mut(&bundle.name).map(|b| &mut **b))
                    .collect()
            })
            .unwrap_or_default();
        let found = !targets.is_empty();
        if let Some(last) = targets.pop() {
            for target in targets {
                target.image.clone_from(&bundle.image);
                target.properties.clone_from(&kept_properties);
                target.related_images.clone_from(&bundle.related_images);
                target.object_count = object_count;
                target.version.clone_from(&version);
                target.release.clone_from(&release);
                target.origin.clone_from(&bundle.origin);
            }
            last.image = bundle.image;
            last.properties = kept_properties;
            last.related_images = bundle.related_images;
            last.object_count = object_count;
            last.version = version;
            last.release = release;
            last.origin = bundle.origin.clone();
        }
        let (package, name) = (&bundle.package, &bundle.name);
        let in_dropped_channel = self
            .dropped_entries
            .get(package)
            .is_some_and(|entries| entries.contains(name));
        if !found && !in_dropped_channel {
            self.report(
                rule::BUNDLE_NOT_IN_CHANNEL,
                bundle_subject(package, name),
                format!(
                    "package {}, bundle {} not found in any channel entries",
                    q(package),
                    q(name)
                ),
                bundle.origin.as_ref(),
            );
        }
    }

    /// Parses the properties and finds the single `olm.package` property, reporting why
    /// there is none.
    fn bundle_properties(
        &mut self,
        bundle: &crate::declcfg::Bundle,
    ) -> (Option<Properties>, Option<PackageProperty>) {
        let (package, name) = (&bundle.package, &bundle.name);
        let origin = bundle.origin.as_ref();
        let properties = match property::parse(&bundle.properties) {
            Ok(properties) => properties,
            Err(error) => {
                self.report_at(
                    rule::BUNDLE_PROPERTIES_INVALID,
                    bundle_subject(package, name),
                    format!("parse properties for bundle {}: {error}", q(name)),
                    origin,
                    "/properties".to_string(),
                );
                return (None, None);
            }
        };
        let [package_property] = properties.packages.as_slice() else {
            self.report_at(
                rule::BUNDLE_PACKAGE_PROPERTY_COUNT,
                bundle_subject(package, name),
                format!(
                    "package {} bundle {} must have exactly 1 {} property, found {}",
                    q(package),
                    q(name),
                    q(crate::property::PACKAGE),
                    properties.packages.len()
                ),
                origin,
                "/properties".to_string(),
            );
            return (Some(properties), None);
        };
        let package_property = package_property.clone();
        if &package_property.package_name != package {
            self.report_at(
                rule::BUNDLE_PACKAGE_PROPERTY_MISMATCH,
                bundle_subject(package, name),
                format!(
                    "package {} does not match {} property {}",
                    q(package),
                    q(crate::property::PACKAGE),
                    q(&package_property.package_name)
                ),
                origin,
                "/properties".to_string(),
            );
        }
        (Some(properties), Some(package_property))
    }

    fn bundle_version(
        &mut self,
        bundle: &crate::declcfg::Bundle,
        package_property: &PackageProperty,
    ) -> (Option<Version>, Option<Release>) {
        let subject = bundle_subject(&bundle.package, &bundle.name);
        let origin = bundle.origin.as_ref();
        let version = match Version::parse(&package_property.version) {
            Ok(version) => Some(version),
            Err(error) => {
                self.report_at(
                    rule::BUNDLE_VERSION_INVALID,
                    subject.clone(),
                    format!(
                        "error parsing bundle {} version {}: {error}",
                        q(&bundle.name),
                        q(&package_property.version)
                    ),
                    origin,
                    "/properties".to_string(),
                );
                None
            }
        };
        if package_property.release.is_empty() {
            return (version, None);
        }
        let release = match parse_release(&package_property.release) {
            Ok(parts) => Some(Release {
                text: package_property.release.clone(),
                parts,
            }),
            Err(error) => {
                self.report_at(
                    rule::BUNDLE_RELEASE_INVALID,
                    subject,
                    format!(
                        "error parsing bundle {} release version {}: {error}",
                        q(&bundle.name),
                        q(&package_property.release)
                    ),
                    origin,
                    "/properties".to_string(),
                );
                None
            }
        };
        (version, release)
    }

    fn check_images(&mut self, bundle: &crate::declcfg::Bundle) {
        let subject = bundle_subject(&bundle.package, &bundle.name);
        let prefix = format!("package {} bundle {}", q(&bundle.package), q(&bundle.name));
        let mut pull_specs = vec![("image".to_string(), &bundle.image)];
        pull_specs.extend(
            bundle
                .related_images
                .iter()
                .enumerate()
                .map(|(index, related)| (format!("relatedImages[{index}].image"), &related.image)),
        );
        for (what, pull_spec) in pull_specs {
            if pull_spec.is_empty() {
                continue;
            }
            if let Err(error) = Reference::parse_normalized(pull_spec) {
                self.report_at(
                    rule::BUNDLE_IMAGE_INVALID,
                    subject.clone(),
                    format!(
                        "{prefix} {what}: invalid image pull spec {}: {error}",
                        q(pull_spec)
                    ),
                    bundle.origin.as_ref(),
                    "/image".to_string(),
                );
            }
        }
    }

    /// Every channel entry needs an `olm.bundle` blob (upstream checks only the last channel
    /// of each package; every channel is checked here).
    fn missing_bundles(&mut self) {
        let mut problems = Vec::new();
        for (name, package) in &self.model.packages {
            let blobs = self.package_bundles.get(name);
            let missing: BTreeSet<&String> = package
                .channels
                .values()
                .flat_map(|channel| channel.bundles.keys())
                .filter(|entry| !blobs.is_some_and(|blobs| blobs.contains(*entry)))
                .collect();
            if missing.is_empty() {
                continue;
            }
            let list: Vec<&str> = missing.iter().map(|entry| entry.as_str()).collect();
            problems.push((
                name.clone(),
                package.origin.clone(),
                format!(
                    "no olm.bundle blobs found in package {} for olm.channel entries [{}]",
                    q(name),
                    list.join(" ")
                ),
            ));
        }
        for (package, origin, message) in problems {
            self.report(
                rule::CHANNEL_ENTRY_BUNDLE_MISSING,
                package_subject(&package),
                message,
                origin.as_ref(),
            );
        }
    }

    /// A named default channel that no channel blob defines becomes an empty channel, as
    /// upstream does (it then fails the model's "at least one bundle" check).
    fn default_channels(&mut self) {
        for (name, package) in &mut self.model.packages {
            let default_channel = self.default_channels.get(name).cloned().unwrap_or_default();
            if default_channel.is_empty() {
                continue;
            }
            package
                .channels
                .entry(default_channel.clone())
                .or_insert_with(|| {
                    Box::new(Channel {
                        name: default_channel.clone(),
                        package: name.clone(),
                        origin: package.origin.clone(),
                        ..Channel::default()
                    })
                });
            package.default_channel = Some(default_channel);
        }
    }

    fn deprecations(&mut self, deprecations: &[crate::declcfg::Deprecation]) {
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        for (index, deprecation) in deprecations.iter().enumerate() {
            let package = &deprecation.package;
            let origin = deprecation.origin.as_ref();
            if package.is_empty() {
                self.report(
                    rule::DEPRECATION_PACKAGE_MISSING,
                    Subject::Catalog,
                    format!("package name must be set for deprecation item {index}"),
                    origin,
                );
                continue;
            }
            if self.rejected.contains(package) {
                continue;
            }
            if !self.model.packages.contains_key(package) {
                self.report_at(
                    rule::DEPRECATION_PACKAGE_UNKNOWN,
                    package_subject(package),
                    format!(
                        "cannot apply deprecations to an unknown package {}",
                        q(package)
                    ),
                    origin,
                    "/package".to_string(),
                );
                continue;
            }
            // Only the first deprecations blob of a package is applied.
            if !seen.insert(package) {
                self.report(
                    rule::DEPRECATION_DUPLICATE,
                    package_subject(package),
                    format!(
                        "expected a maximum of one deprecation per package: {}",
                        q(package)
                    ),
                    origin,
                );
                continue;
            }
            let mut references: BTreeSet<&PackageScopedReference> = BTreeSet::new();
            for (position, entry) in deprecation
                .entries
                .as_deref()
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let reference = &entry.reference;
                let subject = package_subject(package);
                if reference.schema.is_empty() {
                    self.report(
                        rule::DEPRECATION_ENTRY_SCHEMA_MISSING,
                        subject,
                        format!(
                            "schema must be set for deprecation entry [{position}] for package {}",
                            q(package)
                        ),
                        origin,
                    );
                    continue;
                }
                if !references.insert(reference) {
                    self.report(
                        rule::DEPRECATION_ENTRY_DUPLICATE,
                        subject,
                        format!(
                            "duplicate deprecation entry {} for package {}",
                            reference_text(reference),
                            q(package)
                        ),
                        origin,
                    );
                    continue;
                }
                let applied = Deprecation {
                    message: entry.message.clone(),
                };
                let problem = self.apply_deprecation(package, reference, position, applied);
                if let Some((rule, message)) = problem {
                    self.report(rule, subject, message, origin);
                }
            }
        }
    }

    fn record_gaps(&mut self) {
        for diagnostic in &self.diagnostics {
            let package = match &diagnostic.subject {
                Subject::Package { name } => name,
                Subject::Channel { package, .. } | Subject::Bundle { package, .. } => package,
                Subject::Catalog | Subject::File { .. } => continue,
            };
            if self.model.packages.contains_key(package) {
                self.gaps.packages.insert(package.clone());
            }
        }
    }

    fn apply_deprecation(
        &mut self,
        package: &str,
        reference: &PackageScopedReference,
        position: usize,
        deprecation: Deprecation,
    ) -> Option<(&'static str, String)> {
        let known_bundle = self
            .package_bundles
            .get(package)
            .is_some_and(|bundles| bundles.contains(&reference.name));
        let model_package = self.model.packages.get_mut(package)?;
        match reference.schema.as_str() {
            SCHEMA_BUNDLE => {
                if !known_bundle {
                    return Some((
                        rule::DEPRECATION_BUNDLE_UNKNOWN,
                        format!(
                            "cannot deprecate bundle {} for package {}: bundle not found",
                            q(&reference.name),
                            q(package)
                        ),
                    ));
                }
                for channel in model_package.channels.values_mut() {
                    if let Some(bundle) = channel.bundles.get_mut(&reference.name) {
                        bundle.deprecation = Some(deprecation.clone());
                    }
                }
                None
            }
            SCHEMA_CHANNEL => match model_package.channels.get_mut(&reference.name) {
                Some(channel) => {
                    channel.deprecation = Some(deprecation);
                    None
                }
                None => Some((
                    rule::DEPRECATION_CHANNEL_UNKNOWN,
                    format!(
                        "cannot deprecate channel {} for package {}: channel not found",
                        q(&reference.name),
                        q(package)
                    ),
                )),
            },
            SCHEMA_PACKAGE => {
                if reference.name.is_empty() {
                    model_package.deprecation = Some(deprecation);
                    None
                } else {
                    Some((
                        rule::DEPRECATION_PACKAGE_REFERENCE_NAMED,
                        format!(
                            "package name must be empty for deprecated package {} (specified {})",
                            q(package),
                            q(&reference.name)
                        ),
                    ))
                }
            }
            _ => Some((
                rule::DEPRECATION_SCHEMA_UNKNOWN,
                format!(
                    "cannot deprecate object {} referenced by entry {position} for package {}: object schema unknown",
                    reference_text(reference),
                    q(package)
                ),
            )),
        }
    }
}
