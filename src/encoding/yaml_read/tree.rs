//! The node tree of one document, built from libyaml's events (go-yaml v2's parser stage).

use super::json::go_lossy;
use super::{parse_failure, raw, YamlError};
use std::collections::HashMap;

pub(super) enum Node {
    Scalar {
        value: String,
        tag: String,
        implicit: bool,
    },
    Alias {
        name: String,
        target: usize,
    },
    Mapping(Vec<usize>),
    Sequence(Vec<usize>),
}

pub(super) struct Tree {
    pub(super) nodes: Vec<Node>,
    pub(super) root: usize,
    pub(super) max_depth: usize,
    pub(super) alias_nodes: usize,
}

pub(super) fn owned_text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|error| go_lossy(error.as_bytes()))
}

pub(super) fn lossy(bytes: &[u8]) -> String {
    go_lossy(bytes)
}

/// Reads the first document of the stream into a node tree. `None` when the stream holds no
/// document (blank or comment-only text).
pub(super) fn parse_first_document(input: &[u8]) -> Result<Option<Tree>, YamlError> {
    let mut parser = raw::Parser::new(input)
        .ok_or_else(|| YamlError::yaml("failed to initialize YAML parser"))?;
    let mut next = || {
        parser
            .next_event()
            .map(|(event, _)| event)
            .map_err(parse_failure)
    };

    match next()? {
        raw::Event::StreamStart => {}
        _ => return Err(YamlError::yaml("unknown problem parsing YAML content")),
    }
    match next()? {
        raw::Event::StreamEnd => return Ok(None),
        raw::Event::DocumentStart => {}
        _ => return Err(YamlError::yaml("unknown problem parsing YAML content")),
    }

    let mut nodes: Vec<Node> = Vec::new();
    let mut anchors: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut stack: Vec<usize> = Vec::new();
    let mut max_depth = 0usize;
    let mut alias_nodes = 0usize;
    let root;
    loop {
        let event = next()?;
        let (index, opens) = match event {
            raw::Event::Scalar {
                anchor,
                tag,
                value,
                plain_implicit,
            } => {
                let index = nodes.len();
                nodes.push(Node::Scalar {
                    value: owned_text(value),
                    tag: tag.map(owned_text).unwrap_or_default(),
                    implicit: plain_implicit,
                });
                if let Some(anchor) = anchor {
                    anchors.insert(anchor, index);
                }
                (index, false)
            }
            raw::Event::Alias { anchor } => {
                let name = lossy(&anchor);
                let Some(&target) = anchors.get(&anchor) else {
                    return Err(YamlError::yaml(format!(
                        "unknown anchor '{name}' referenced"
                    )));
                };
                alias_nodes += 1;
                let index = nodes.len();
                nodes.push(Node::Alias { name, target });
                (index, false)
            }
            raw::Event::SequenceStart { anchor } => {
                let index = nodes.len();
                nodes.push(Node::Sequence(Vec::new()));
                if let Some(anchor) = anchor {
                    anchors.insert(anchor, index);
                }
                (index, true)
            }
            raw::Event::MappingStart { anchor } => {
                let index = nodes.len();
                nodes.push(Node::Mapping(Vec::new()));
                if let Some(anchor) = anchor {
                    anchors.insert(anchor, index);
                }
                (index, true)
            }
            raw::Event::SequenceEnd | raw::Event::MappingEnd => {
                if let Some(closed) = stack.pop() {
                    if stack.is_empty() {
                        root = closed;
                        break;
                    }
                }
                continue;
            }
            _ => return Err(YamlError::yaml("unknown problem parsing YAML content")),
        };
        match stack.last() {
            Some(&parent) => match &mut nodes[parent] {
                Node::Mapping(children) | Node::Sequence(children) => children.push(index),
                _ => {}
            },
            None if !opens => {
                root = index;
                break;
            }
            None => {}
        }
        if opens {
            stack.push(index);
            max_depth = max_depth.max(stack.len());
        }
    }
    // go-yaml expects the document end before it decodes; reading it may still fail.
    next()?;
    Ok(Some(Tree {
        nodes,
        root,
        max_depth,
        alias_nodes,
    }))
}
