//! Findings as data: `Diagnostic`, its `Severity` and `Subject`, and the `Report` that
//! gathers them. Renderers live in submodules (`tree` draws upstream's `invalid index:` tree).
//! Nothing here prints or decides exit codes.

pub mod tree;

use crate::declcfg::Origin;

/// The message of an error followed by those of its causes, joined by `": "` as Go's wrapped
/// errors read. A cause whose text the message already contains (an error that quotes its source,
/// as many upstream messages do) is not repeated.
pub fn error_chain<'a>(
    mut chain: impl Iterator<Item = &'a (dyn std::error::Error + 'static)>,
) -> String {
    let mut message = chain.next().map(ToString::to_string).unwrap_or_default();
    for cause in chain {
        let text = cause.to_string();
        if !text.is_empty() && !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
    }
    message
}

/// How serious a finding is. Only errors make a catalog fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
}

/// What a finding is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subject {
    Catalog,
    Package { name: String },
    Channel { package: String, name: String },
    Bundle { package: String, name: String },
    File { path: String },
}

/// One finding: which rule, how serious, the upstream-worded message, what it is about and
/// where the offending blob came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    pub subject: Subject,
    pub origin: Option<Origin>,
}

impl Diagnostic {
    pub fn error(rule: &'static str, subject: Subject, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            rule,
            severity: Severity::Error,
            message: message.into(),
            subject,
            origin: None,
        }
    }

    #[must_use]
    pub fn with_origin(mut self, origin: Option<Origin>) -> Diagnostic {
        self.origin = origin;
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// An ordered collection of findings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    diagnostics: Vec<Diagnostic>,
}

impl Report {
    pub fn new() -> Report {
        Report::default()
    }

    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    pub fn extend(&mut self, diagnostics: impl IntoIterator<Item = Diagnostic>) {
        self.diagnostics.extend(diagnostics);
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    pub fn is_empty(&self) -> bool {
        self.diagnostics.is_empty()
    }

    pub fn len(&self) -> usize {
        self.diagnostics.len()
    }

    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }
}

impl From<Vec<Diagnostic>> for Report {
    fn from(diagnostics: Vec<Diagnostic>) -> Report {
        Report { diagnostics }
    }
}

pub use crate::encoding::json::go_quote;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_tracks_errors() {
        let mut report = Report::new();
        assert!(!report.has_errors());
        report.push(Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error("x", Subject::Catalog, "w")
        });
        assert!(!report.has_errors());
        report.push(Diagnostic::error("y", Subject::Catalog, "e"));
        assert!(report.has_errors());
        assert_eq!(report.len(), 2);
    }

    #[derive(Debug, thiserror::Error)]
    #[error("{text}")]
    struct Layer {
        text: &'static str,
        #[source]
        source: Option<Box<Layer>>,
    }

    fn layers(texts: &[&'static str]) -> Layer {
        texts
            .iter()
            .rev()
            .fold(None, |source, text| {
                Some(Layer {
                    text,
                    source: source.map(Box::new),
                })
            })
            .unwrap()
    }

    #[test]
    fn error_chain_joins_causes_once() {
        let chain = |error: &Layer| {
            let mut items: Vec<&(dyn std::error::Error + 'static)> = vec![error];
            while let Some(next) = items.last().unwrap().source() {
                items.push(next);
            }
            error_chain(items.into_iter())
        };
        assert_eq!(
            chain(&layers(&[
                "read layer archive",
                "gzip",
                "invalid gzip header"
            ])),
            "read layer archive: gzip: invalid gzip header"
        );
        // A message that already quotes its cause does not repeat it.
        assert_eq!(
            chain(&layers(&["open x: permission denied", "permission denied"])),
            "open x: permission denied"
        );
        assert_eq!(chain(&layers(&["only"])), "only");
    }
}
