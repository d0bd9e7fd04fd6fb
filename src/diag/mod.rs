//! Findings as data: `Diagnostic`, its `Severity` and `Subject`, and the `Report` that
//! gathers them. Renderers live in submodules (`tree` draws upstream's `invalid index:` tree).
//! Nothing here prints or decides exit codes.

pub mod sarif;
pub mod tree;

use crate::encoding::locate::Position;
use std::sync::Arc;

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

/// Where a blob (or any document) came from: a file (relative to the working directory as the
/// user named it) and the 0-based index of the document in that file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub path: Arc<str>,
    pub document: usize,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, document {}", self.path, self.document + 1)
    }
}

/// A rule: what a finding is about. Its severity is every finding's severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Stable kebab-case id, `<subject>-<problem>`.
    pub id: &'static str,
    pub severity: Severity,
    /// One line: what is wrong when the rule fires.
    pub summary: &'static str,
    /// What the rule checks and why, for `--explain`.
    pub details: &'static str,
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

/// Where a finding is: a file as the user names it, the document in it (0-based), the field
/// (a JSON pointer into that document), and the line and column in the file once known
/// ([`resolve_positions_from`] finds them from the document and pointer).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    pub file: Arc<str>,
    pub document: Option<usize>,
    pub pointer: Option<String>,
    pub position: Option<Position>,
}

impl std::fmt::Display for Location {
    /// `FILE:LINE:COL`, or just `FILE` while the position is unknown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.file)?;
        if let Some(position) = self.position {
            write!(f, ":{}:{}", position.line, position.column)?;
        }
        Ok(())
    }
}

impl Location {
    pub fn file(file: impl Into<Arc<str>>) -> Location {
        Location {
            file: file.into(),
            document: None,
            pointer: None,
            position: None,
        }
    }

    /// The blob a catalog object came from.
    pub fn of(origin: &Origin) -> Location {
        Location {
            file: Arc::clone(&origin.path),
            document: Some(origin.document),
            pointer: None,
            position: None,
        }
    }
}

/// Finds the line and column of every location that names a document (and maybe a field)
/// but no position yet, from the bytes `bytes_of` gives for its file (split into documents once
/// per file). Locations of a file it gives nothing for keep their place as it is.
pub fn resolve_positions_from<'a, 'b>(
    locations: impl IntoIterator<Item = &'a mut Location>,
    mut bytes_of: impl FnMut(&str) -> Option<std::borrow::Cow<'b, [u8]>>,
) {
    let mut by_file: std::collections::BTreeMap<Arc<str>, Vec<&'a mut Location>> =
        std::collections::BTreeMap::new();
    for location in locations {
        if location.position.is_none() && location.document.is_some() {
            by_file
                .entry(Arc::clone(&location.file))
                .or_default()
                .push(location);
        }
    }
    for (file, locations) in by_file {
        let Some(bytes) = bytes_of(&file) else {
            continue;
        };
        let documents = crate::encoding::stream::document_texts(&bytes);
        for location in locations {
            if let Some(document) = location.document {
                location.position = position_in(&documents, document, location.pointer.as_deref());
            }
        }
    }
}

/// [`resolve_positions_from`] the files on disk, read again. Only for findings made after their
/// file was read and dropped (a catalog is streamed file by file: keeping every file's bytes
/// until the model rules have run would hold the whole catalog in memory); a file still at hand
/// is searched with [`resolve_positions_from`] or [`document_position`]. Files that cannot be
/// read again keep their locations as they are.
pub fn resolve_positions<'a>(locations: impl IntoIterator<Item = &'a mut Location>) {
    resolve_positions_from(locations, |file| {
        let path = std::path::Path::new(file);
        crate::fsutil::read_input(path, path, crate::fsutil::Limit::Catalog)
            .ok()
            .map(std::borrow::Cow::Owned)
    });
}

/// The line and column in the file `bytes` of document `document` (0-based), or of the field
/// `pointer` in it; `None` when the file does not split that far.
pub fn document_position(bytes: &[u8], document: usize, pointer: Option<&str>) -> Option<Position> {
    position_in(
        &crate::encoding::stream::document_texts(bytes),
        document,
        pointer,
    )
}

/// [`document_position`] in a file already split: the field's position when the document
/// parses that far, else the document's first node, else its start.
fn position_in(
    documents: &[crate::encoding::stream::DocumentText],
    document: usize,
    pointer: Option<&str>,
) -> Option<Position> {
    use crate::encoding::locate::locate;
    let document = documents.get(document)?;
    let inner = locate(&document.text, pointer.unwrap_or(""))
        .or_else(|| locate(&document.text, ""))
        .unwrap_or(Position { line: 1, column: 1 });
    let start = Position {
        line: document.line,
        column: document.column,
    };
    Some(start.offset(inner))
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

impl Subject {
    /// What the subject is, as upstream's messages name it (`package "a", channel "b"`);
    /// `None` for the catalog and for files, which the location names.
    pub fn describe(&self) -> Option<String> {
        match self {
            Subject::Catalog | Subject::File { .. } => None,
            Subject::Package { name } => Some(format!("package {}", go_quote(name))),
            Subject::Channel { package, name } => Some(format!(
                "package {}, channel {}",
                go_quote(package),
                go_quote(name)
            )),
            Subject::Bundle { package, name } => Some(format!(
                "package {}, bundle {}",
                go_quote(package),
                go_quote(name)
            )),
        }
    }
}

/// One finding: which rule, how serious, the upstream-worded message, what it is about and
/// where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    pub subject: Subject,
    pub location: Option<Location>,
}

impl Diagnostic {
    pub fn error(rule: &'static str, subject: Subject, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            rule,
            severity: Severity::Error,
            message: message.into(),
            subject,
            location: None,
        }
    }

    /// Placed in the blob `origin` came from.
    #[must_use]
    pub fn with_origin(mut self, origin: Option<Origin>) -> Diagnostic {
        self.location = origin.as_ref().map(Location::of);
        self
    }

    /// Placed at the field `pointer` (a JSON pointer) of its document.
    #[must_use]
    pub fn at(mut self, pointer: impl Into<String>) -> Diagnostic {
        if let Some(location) = &mut self.location {
            location.pointer = Some(pointer.into());
        }
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The file the finding is in, if any.
    pub fn file(&self) -> Option<&str> {
        self.location.as_ref().map(|location| &*location.file)
    }

    /// The finding as JSON: `rule`, `severity`, `message`, and what is known of its place
    /// (`file`, `line`, `column`, `document` counted from 1, `pointer`).
    pub fn to_json(&self) -> serde_json::Value {
        let mut object = serde_json::Map::new();
        object.insert("rule".into(), self.rule.into());
        object.insert("severity".into(), self.severity.to_string().into());
        object.insert("message".into(), self.message.clone().into());
        if let Some(location) = &self.location {
            object.insert("file".into(), location.file.to_string().into());
            if let Some(position) = location.position {
                object.insert("line".into(), position.line.into());
                object.insert("column".into(), position.column.into());
            }
            if let Some(document) = location.document {
                object.insert("document".into(), (document + 1).into());
            }
            if let Some(pointer) = &location.pointer {
                object.insert("pointer".into(), pointer.clone().into());
            }
        }
        serde_json::Value::Object(object)
    }

    /// `FILE:LINE:COL: severity[rule]` (what is known of the location).
    pub fn label(&self) -> String {
        match &self.location {
            Some(location) => format!("{location}: {}[{}]", self.severity, self.rule),
            None => format!("{}[{}]", self.severity, self.rule),
        }
    }

    /// The finding as `FILE:LINE:COL: severity[rule]: message`; further lines of a message of
    /// several lines (CEL's caret diagram) follow, indented by four spaces.
    pub fn line(&self) -> String {
        let message = self.message.trim_end().replace('\n', "\n    ");
        format!("{}: {message}", self.label())
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

    #[test]
    fn positions_come_from_the_bytes_given() {
        let yaml = b"a: 1\n---\nb: 2\nc:\n  - x\n  - y\n";
        let mut located = Location::file("nowhere/a.yaml");
        located.document = Some(1);
        located.pointer = Some("/c/1".into());
        let mut missing = Location::file("nowhere/a.yaml");
        missing.document = Some(5);
        let mut other = Location::file("nowhere/b.yaml");
        other.document = Some(0);
        resolve_positions_from([&mut located, &mut missing, &mut other], |file| {
            (file == "nowhere/a.yaml").then_some(std::borrow::Cow::Borrowed(&yaml[..]))
        });
        assert_eq!(located.position, Some(Position { line: 6, column: 5 }));
        assert_eq!(missing.position, None);
        assert_eq!(other.position, None);
        // A field the document does not have: the document's first node.
        assert_eq!(
            document_position(yaml, 1, Some("/d")),
            Some(Position { line: 3, column: 1 })
        );
        assert_eq!(document_position(yaml, 2, None), None);
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
