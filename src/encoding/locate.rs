//! Where things are in a file, for messages: the line and column of a byte offset, and of the
//! field a JSON pointer (RFC 6901) names inside one JSON or YAML document. Findings carry a
//! document and a pointer; the position is looked up in the file's bytes while they are at hand
//! (a document that does not load, a bundle's files), so a loader that succeeds never pays for
//! it. Findings of the model rules, made after a streamed catalog's files were dropped, find
//! theirs by reading the file again, and only when shown ([`crate::diag::resolve_positions`]).

use super::yaml_read::raw::{Event, Parser};

/// A 1-based line and column; columns count characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub line: u64,
    pub column: u64,
}

impl Position {
    /// `inner`, a position relative to a document that starts here, relative to the file.
    pub fn offset(self, inner: Position) -> Position {
        Position {
            line: self.line + inner.line - 1,
            column: if inner.line == 1 {
                self.column + inner.column - 1
            } else {
                inner.column
            },
        }
    }
}

/// The position of byte `offset` of `text` (clamped to its end).
pub fn position_at(text: &[u8], offset: usize) -> Position {
    let before = &text[..offset.min(text.len())];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    Position {
        line: before.iter().filter(|&&b| b == b'\n').count() as u64 + 1,
        column: String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count() as u64
            + 1,
    }
}

/// Escapes one JSON pointer segment (`~` → `~0`, `/` → `~1`).
pub fn pointer_segment(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

fn segments(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// The position, relative to the start of `document` (the text of one JSON or YAML document),
/// of the field `pointer` names: the key of a mapping member, or the start of a sequence item
/// (the document's start for `""`). `None` when the document does not parse that far or has
/// no such field. JSON is read as the YAML it also is.
pub fn locate(document: &[u8], pointer: &str) -> Option<Position> {
    enum Frame {
        Map { key: Option<String>, at_key: bool },
        Seq { index: usize },
    }
    let want = segments(pointer);
    let mut parser = Parser::new(document)?;
    let mut stack: Vec<Frame> = Vec::new();
    let mut key_marks: Vec<Option<Position>> = Vec::new();
    // The path of the node about to start, and whether it matches `want` so far.
    loop {
        let (event, mark) = parser.next_event().ok()?;
        let here = Position {
            line: mark.line + 1,
            column: mark.column + 1,
        };
        // The segment this event's node sits at, for value nodes.
        let is_node = matches!(
            event,
            Event::Scalar { .. }
                | Event::Alias { .. }
                | Event::SequenceStart { .. }
                | Event::MappingStart { .. }
        );
        if is_node {
            // A mapping key is not a value node: remember it and move on.
            if let Some(Frame::Map { key, at_key }) = stack.last_mut() {
                if *at_key {
                    *key = match &event {
                        Event::Scalar { value, .. } => {
                            Some(String::from_utf8_lossy(value).into_owned())
                        }
                        _ => None,
                    };
                    *at_key = false;
                    if let Some(last) = key_marks.last_mut() {
                        *last = Some(here);
                    }
                    if let Event::MappingStart { .. } | Event::SequenceStart { .. } = event {
                        // A complex key: skip it whole.
                        skip_node(&mut parser)?;
                    }
                    continue;
                }
            }
            let path: Vec<String> = stack
                .iter()
                .map(|frame| match frame {
                    Frame::Map { key, .. } => key.clone().unwrap_or_default(),
                    Frame::Seq { index } => index.to_string(),
                })
                .collect();
            if path == want {
                let key_mark = match stack.last() {
                    Some(Frame::Map { .. }) => key_marks.last().copied().flatten(),
                    _ => None,
                };
                return Some(key_mark.unwrap_or(here));
            }
            let on_the_way = want.len() > path.len() && want[..path.len()] == path[..];
            match event {
                Event::MappingStart { .. } | Event::SequenceStart { .. } if !on_the_way => {
                    skip_node(&mut parser)?;
                    advance(&mut stack);
                }
                Event::MappingStart { .. } => {
                    stack.push(Frame::Map {
                        key: None,
                        at_key: true,
                    });
                    key_marks.push(None);
                }
                Event::SequenceStart { .. } => stack.push(Frame::Seq { index: 0 }),
                _ => advance(&mut stack),
            }
            continue;
        }
        match event {
            Event::MappingEnd | Event::SequenceEnd => {
                if let Some(Frame::Map { .. }) = stack.pop() {
                    key_marks.pop();
                }
                advance(&mut stack);
                if stack.is_empty() {
                    return None;
                }
            }
            Event::StreamEnd | Event::DocumentEnd => return None,
            _ => {}
        }
    }

    /// After a value node: the next member of a mapping is a key; a sequence moves on.
    fn advance(stack: &mut [Frame]) {
        match stack.last_mut() {
            Some(Frame::Map { at_key, .. }) => *at_key = true,
            Some(Frame::Seq { index }) => *index += 1,
            None => {}
        }
    }

    /// Consumes the rest of a collection whose start event was just read.
    fn skip_node(parser: &mut Parser<'_>) -> Option<()> {
        let mut depth = 1usize;
        while depth > 0 {
            match parser.next_event().ok()?.0 {
                Event::MappingStart { .. } | Event::SequenceStart { .. } => depth += 1,
                Event::MappingEnd | Event::SequenceEnd => depth -= 1,
                Event::StreamEnd => return None,
                _ => {}
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u64, column: u64) -> Option<Position> {
        Some(Position { line, column })
    }

    #[test]
    fn offsets_become_lines_and_columns() {
        let text = "ab\ncdé\nf".as_bytes();
        assert_eq!(position_at(text, 0), Position { line: 1, column: 1 });
        assert_eq!(position_at(text, 3), Position { line: 2, column: 1 });
        assert_eq!(position_at(text, 7), Position { line: 2, column: 4 });
        assert_eq!(position_at(text, 99), Position { line: 3, column: 2 });
    }

    #[test]
    fn pointers_find_yaml_fields() {
        let yaml = b"schema: olm.channel\nname: stable\nentries:\n  - name: a.v1\n  - name: a.v2\n    replaces: a.v1\nproperties:\n- type: x\n  value:\n    deep: [1, {k: v}]\n";
        assert_eq!(locate(yaml, ""), at(1, 1));
        assert_eq!(locate(yaml, "/name"), at(2, 1));
        assert_eq!(locate(yaml, "/entries"), at(3, 1));
        assert_eq!(locate(yaml, "/entries/1"), at(5, 5));
        assert_eq!(locate(yaml, "/entries/1/replaces"), at(6, 5));
        assert_eq!(locate(yaml, "/properties/0/value/deep/1/k"), at(10, 16));
        assert_eq!(locate(yaml, "/entries/2"), None);
        assert_eq!(locate(yaml, "/nothing"), None);
    }

    #[test]
    fn pointers_find_json_fields() {
        let json = br#"{
    "schema": "olm.bundle",
    "properties": [
        {"type": "olm.package", "value": {"packageName": "a/b~c"}},
        {"type": "olm.gvk"}
    ]
}"#;
        assert_eq!(locate(json, "/schema"), at(2, 5));
        assert_eq!(locate(json, "/properties/1"), at(5, 9));
        assert_eq!(locate(json, "/properties/0/value/packageName"), at(4, 43));
        assert_eq!(pointer_segment("a/b~c"), "a~1b~0c");
        let odd = br#"{"a/b": {"c~d": 1}}"#;
        assert_eq!(locate(odd, "/a~1b/c~0d"), at(1, 10));
    }

    #[test]
    fn broken_documents_find_what_comes_before_the_break() {
        let yaml = b"a: 1\nb: [\n";
        assert_eq!(locate(yaml, "/a"), at(1, 1));
        assert_eq!(locate(yaml, "/c"), None);
    }
}
