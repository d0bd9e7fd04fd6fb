//! Upstream's `├──`/`└──` error tree (`invalid index:` … `invalid bundle "x":` …).
//!
//! A `Node` is a message with ordered children; a node without children prints as a leaf.
//! Rendering mirrors upstream's validation error text exactly, including the final trim.

/// One line of the tree and the nodes below it; a leaf may name the finding it shows (an
/// index into the caller's findings), for [`Node::render_with`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Node {
    pub message: String,
    pub children: Vec<Node>,
    pub finding: Option<usize>,
}

impl Node {
    pub fn new(message: impl Into<String>) -> Node {
        Node {
            message: message.into(),
            children: Vec::new(),
            finding: None,
        }
    }

    pub fn leaf(message: impl Into<String>) -> Node {
        Node::new(message)
    }

    /// A leaf showing finding `index`.
    pub fn finding(message: impl Into<String>, index: usize) -> Node {
        Node {
            finding: Some(index),
            ..Node::new(message)
        }
    }

    pub fn push(&mut self, child: Node) {
        self.children.push(child);
    }

    /// Adds `child` only when it has children of its own (upstream's `orNil`).
    pub fn push_if_failed(&mut self, child: Node) {
        if !child.children.is_empty() {
            self.children.push(child);
        }
    }

    pub fn has_children(&self) -> bool {
        !self.children.is_empty()
    }

    /// The full text: each node on its own line, `:` after nodes with children, connectors
    /// before children, and surrounding whitespace trimmed (no trailing newline).
    pub fn render(&self) -> String {
        self.render_with(&|_| None)
    }

    /// [`Node::render`], with `note(finding)` after each leaf that names a finding and gets a
    /// note (`  (note)`).
    pub fn render_with(&self, note: &dyn Fn(usize) -> Option<String>) -> String {
        let mut out = String::new();
        self.render_into(&mut out, &[], true, note);
        out.trim().to_string()
    }

    fn render_into(
        &self,
        out: &mut String,
        prefix: &[&'static str],
        last: bool,
        note: &dyn Fn(usize) -> Option<String>,
    ) {
        for part in prefix {
            out.push_str(part);
        }
        out.push_str(&self.message);
        if !self.children.is_empty() {
            out.push(':');
        }
        if let Some(text) = self.finding.and_then(note) {
            out.push_str("  (");
            out.push_str(&text);
            out.push(')');
        }
        out.push('\n');
        let count = self.children.len();
        for (index, child) in self.children.iter().enumerate() {
            let mut child_prefix: Vec<&'static str> = prefix.to_vec();
            // The parent's own connector becomes a continuation (or blank) column.
            if let Some(connector) = child_prefix.last_mut() {
                *connector = if last { "    " } else { "│   " };
            }
            let child_last = index + 1 == count;
            child_prefix.push(if child_last {
                "└── "
            } else {
                "├── "
            });
            child.render_into(out, &child_prefix, child_last, note);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(message: &str, children: Vec<Node>) -> Node {
        Node {
            message: message.to_string(),
            children,
            finding: None,
        }
    }

    fn leaf(message: &str) -> Node {
        Node::leaf(message)
    }

    #[test]
    fn renders_spec_sample_exactly() {
        let tree = node(
            "invalid index",
            vec![
                node(
                    "invalid package \"foo\"",
                    vec![
                        node(
                            "invalid channel \"stable\"",
                            vec![
                                leaf(
                                    "multiple channel heads found in graph: foo.v1.0.0, foo.v2.0.0",
                                ),
                                node(
                                    "invalid bundle \"foo.v2.0.0\"",
                                    vec![
                                        leaf("skip[0] is empty"),
                                        leaf("bundle image must be set"),
                                    ],
                                ),
                            ],
                        ),
                        node(
                            "invalid channel \"beta\"",
                            vec![leaf("channel must contain at least one bundle")],
                        ),
                    ],
                ),
                node(
                    "invalid package \"bar\"",
                    vec![node(
                        "invalid channel \"x\"",
                        vec![leaf("no channel head found in graph")],
                    )],
                ),
            ],
        );
        let expected = "invalid index:
├── invalid package \"foo\":
│   ├── invalid channel \"stable\":
│   │   ├── multiple channel heads found in graph: foo.v1.0.0, foo.v2.0.0
│   │   └── invalid bundle \"foo.v2.0.0\":
│   │       ├── skip[0] is empty
│   │       └── bundle image must be set
│   └── invalid channel \"beta\":
│       └── channel must contain at least one bundle
└── invalid package \"bar\":
    └── invalid channel \"x\":
        └── no channel head found in graph";
        assert_eq!(tree.render(), expected);
    }

    #[test]
    fn renders_single_paths() {
        let tree = node(
            "invalid index",
            vec![node(
                "invalid package \"foo\"",
                vec![leaf("default channel must be set")],
            )],
        );
        assert_eq!(
            tree.render(),
            "invalid index:\n└── invalid package \"foo\":\n    └── default channel must be set"
        );
    }

    #[test]
    fn leaf_root_and_trimming() {
        assert_eq!(leaf("  message  \n").render(), "message");
        let tree = node("root", vec![leaf("trailing space ")]);
        assert_eq!(tree.render(), "root:\n└── trailing space");
    }

    #[test]
    fn push_if_failed_skips_empty_nodes() {
        let mut root = Node::new("invalid index");
        root.push_if_failed(Node::new("invalid package \"ok\""));
        assert!(!root.has_children());
        root.push_if_failed(node("invalid package \"bad\"", vec![leaf("x")]));
        assert_eq!(root.children.len(), 1);
    }
}
