//! The syntax tree the parser builds and the checker walks.

use super::types::Ty;

#[derive(Debug)]
pub(super) enum Kind {
    /// Placeholder for an expression that already produced an error.
    Error,
    /// A literal: its type (`null`, bool, int, uint, double, string or bytes); the
    /// value itself is never needed.
    Literal(Ty),
    Ident(String),
    Select {
        operand: Box<Node>,
        field: String,
        test_only: bool,
    },
    Call {
        func: String,
        target: Option<Box<Node>>,
        args: Vec<Node>,
    },
    List(Vec<Node>),
    Map(Vec<(Node, Node)>),
    Message {
        name: String,
        fields: Vec<Node>,
    },
    Comprehension(Box<Comprehension>),
}

#[derive(Debug)]
pub(super) struct Comprehension {
    pub(super) iter_var: String,
    pub(super) range: Node,
    pub(super) init: Node,
    pub(super) cond: Node,
    pub(super) step: Node,
    pub(super) result: Node,
}

#[derive(Debug)]
pub(super) struct Node {
    pub(super) kind: Kind,
    /// Code-point offset cel-go attributes this expression to.
    pub(super) pos: usize,
    /// Nesting of the parse nodes cel-go's visitor counts against its
    /// recursion limit (conditionals, operators, selections, member calls,
    /// indexes).
    pub(super) depth: usize,
}

pub(super) const ACCU: &str = "__result__";

impl Node {
    pub(super) fn new(kind: Kind, pos: usize, depth: usize) -> Node {
        Node { kind, pos, depth }
    }

    pub(super) fn error(pos: usize) -> Node {
        Node::new(Kind::Error, pos, 0)
    }

    pub(super) fn ident(name: &str, pos: usize) -> Node {
        Node::new(Kind::Ident(name.to_string()), pos, 0)
    }

    pub(super) fn call(func: &str, args: Vec<Node>, pos: usize, depth: usize) -> Node {
        Node::new(
            Kind::Call {
                func: func.to_string(),
                target: None,
                args,
            },
            pos,
            depth,
        )
    }

    pub(super) fn int_lit(pos: usize) -> Node {
        Node::new(Kind::Literal(Ty::Int), pos, 0)
    }
}

pub(super) fn max_depth<'a>(nodes: impl IntoIterator<Item = &'a Node>) -> usize {
    nodes.into_iter().map(|n| n.depth).max().unwrap_or(0)
}

/// `a.b.c` as a dotted name when the expression is an identifier followed by
/// plain field selections.
pub(super) fn qualified_name(node: &Node) -> Option<String> {
    let mut parts = Vec::new();
    let mut cur = node;
    loop {
        match &cur.kind {
            Kind::Ident(name) => {
                parts.push(name.as_str());
                break;
            }
            Kind::Select {
                operand,
                field,
                test_only: false,
            } => {
                parts.push(field.as_str());
                cur = operand;
            }
            _ => return None,
        }
    }
    parts.reverse();
    Some(parts.join("."))
}
