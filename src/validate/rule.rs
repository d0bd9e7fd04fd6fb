//! What a validation rule is: an id, a default severity, a one-line summary, where its
//! findings go in upstream's tree, what it needs from the conversion, and its check.

use crate::diag::Severity;
use crate::model::{Bundle, Channel, Package};

/// One check, as data plus a plain function.
#[derive(Debug)]
pub struct Rule {
    /// Stable kebab-case id, `<subject>-<problem>`.
    pub id: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
    /// What it checks, why it matters and how to fix it (`opm validate --explain`).
    pub details: &'static str,
    /// Where its findings point, relative to what it checks.
    pub at: At,
    pub check: Check,
}

/// Where a rule's findings point (a JSON pointer relative to a blob).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// A field of the checked object's own blob (`""`: the blob itself).
    Blob(&'static str),
    /// A field of the channel entry that lists the checked bundle, in the channel's blob.
    Entry(&'static str),
}

/// Where a rule looks and how its findings are placed among a node's children.
#[derive(Debug, Clone, Copy)]
pub enum Check {
    /// Made while converting wire types into the model (`model::convert`), which reports
    /// findings with this rule's id.
    Conversion,
    /// A check of one package; findings become lines of its `invalid package` node.
    Package(Placement, fn(&Package) -> Vec<String>),
    /// A check of one channel; findings become lines of its `invalid channel` node.
    Channel(Placement, fn(&Channel) -> Vec<String>),
    /// A check of one bundle as listed by one channel.
    Bundle(fn(&Bundle) -> Vec<String>),
    /// A check of one bundle that needs its whole package (every channel's entries).
    BundleInPackage(fn(&Package, &Bundle) -> Vec<String>),
}

/// Whether a package's or channel's own lines come before or after its child nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    BeforeChildren,
    AfterChildren,
}

/// The level of the model a rule looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Conversion,
    Package,
    Channel,
    Bundle,
}

impl Rule {
    pub fn scope(&self) -> Scope {
        match self.check {
            Check::Conversion => Scope::Conversion,
            Check::Package(..) => Scope::Package,
            Check::Channel(..) => Scope::Channel,
            Check::Bundle(..) | Check::BundleInPackage(..) => Scope::Bundle,
        }
    }
}
