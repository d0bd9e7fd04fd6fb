//! A registry+v1 bundle directory (`manifests/` + `metadata/`) rendered as
//! the single `olm.bundle` blob upstream's `opm render` produces for it
//! (fbc.md §5.4 and §5.6, bundle.md §9).
//!
//! Two steps, because `--alpha-image-ref-template` needs the package, CSV
//! name and version before the image is known:
//!
//! 1. [`parse_bundle_dir`] reads and checks the directory (upstream's bundle
//!    parser) into a [`ParsedBundle`];
//! 2. [`ParsedBundle::render`] builds the blob for a chosen image.
//!
//! [`render_bundle_dir`] does both. Errors carry upstream's message; the
//! caller adds its own framing (`render reference "<dir>": …`).
//!
//! Deliberate difference from upstream: every document of a multi-document
//! manifest file is read (upstream keeps only the first).
//!
//! Where upstream decodes into large typed Kubernetes structs, only the
//! fields render uses are checked, with upstream's messages: the CSV spec
//! object, `spec.version`, `spec.release`, the owned/required CRD and API
//! service lists, `spec.relatedImages`, and each CRD's group, names and
//! versions. Type errors elsewhere (for example in the install strategy's
//! deployment specs, or a non-string CSV annotation) do not fail here;
//! container images whose path has the wrong type are ignored, and a
//! container without an image contributes `""` as upstream. A `null` entry in
//! the CSV's CRD or API service lists (upstream crashes on it) counts as an
//! entry with empty fields.

pub mod annotations;
pub mod csvless;
mod files;
pub mod mediatype;
mod parse;
mod parsed;
mod property_list;
mod render;
pub mod rules;
pub mod validate;

pub use files::{read_file, BundleDir, Doc, Entry, Listing, Manifest};
pub use parse::{parse, parse_bundle_dir};
pub use parsed::{BundleDirError, CrdError, CsvError, ParsedBundle, TemplateFields};
pub use render::sort_related_images;

/// Parses a bundle directory and renders it as upstream HEAD does (one
/// `olm.bundle` blob, properties in upstream's order, bundle objects last,
/// related images sorted by image, image = `image`).
pub fn render_bundle_dir(
    dir: &std::path::Path,
    image: &str,
) -> Result<crate::declcfg::Bundle, BundleDirError> {
    parse_bundle_dir(dir)?.render(image)
}

#[cfg(test)]
mod tests;
