//! Decoding the node tree into typed values: anchors, aliases and their expansion budget, merge keys (go-yaml v2's decoder stage).

use super::json::go_sharp_v;
use super::resolve::scalar;
use super::tree::{parse_first_document, Node, Tree};
use super::{YamlError, MAX_DEPTH, MERGE_TAG};
use std::collections::{HashMap, HashSet};

pub(super) enum YVal {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    /// An integer beyond 64 bits: exact decimal digits. `float` holds the float64 upstream makes
    /// of it when it reads it as a float (decimal spelling); `None` when upstream keeps a
    /// `*big.Int`.
    Big {
        digits: String,
        float: Option<f64>,
    },
    Float(f64),
    Str(String),
    Map(YMap),
    Seq(Vec<YVal>),
}

#[derive(Hash, PartialEq, Eq)]
pub(super) enum KeyId {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(u64),
    Str(String),
}

/// A Go `map[interface{}]interface{}`: keys compare like Go interface values; entries keep the
/// order in which their key first appeared.
pub(super) struct YMap {
    pub(super) entries: Vec<(YVal, YVal)>,
    /// Built once the map grows past `SMALL_MAP` entries; smaller maps are searched linearly.
    pub(super) index: HashMap<KeyId, usize>,
}

pub(super) const SMALL_MAP: usize = 16;

impl YMap {
    pub(super) fn new() -> Self {
        YMap {
            entries: Vec::new(),
            index: HashMap::new(),
        }
    }

    pub(super) fn key_id(key: &YVal) -> Option<KeyId> {
        Some(match key {
            YVal::Null => KeyId::Null,
            YVal::Bool(b) => KeyId::Bool(*b),
            YVal::Int(i) => KeyId::Int(*i),
            YVal::Uint(u) => KeyId::Uint(*u),
            YVal::Float(f) if f.is_nan() => return None,
            YVal::Float(f) => KeyId::Float((f + 0.0).to_bits()),
            YVal::Str(s) => KeyId::Str(s.clone()),
            YVal::Big { .. } | YVal::Map(_) | YVal::Seq(_) => return None,
        })
    }

    pub(super) fn same_key(a: &YVal, b: &YVal) -> bool {
        match (a, b) {
            (YVal::Null, YVal::Null) => true,
            (YVal::Bool(x), YVal::Bool(y)) => x == y,
            (YVal::Int(x), YVal::Int(y)) => x == y,
            (YVal::Uint(x), YVal::Uint(y)) => x == y,
            (YVal::Float(x), YVal::Float(y)) => x == y,
            (YVal::Str(x), YVal::Str(y)) => x == y,
            _ => false,
        }
    }

    pub(super) fn set(&mut self, key: YVal, value: YVal) {
        if self.entries.len() < SMALL_MAP {
            if let Some(entry) = self
                .entries
                .iter_mut()
                .find(|(k, _)| Self::same_key(k, &key))
            {
                entry.1 = value;
                return;
            }
            self.entries.push((key, value));
            if self.entries.len() == SMALL_MAP {
                for (at, (k, _)) in self.entries.iter().enumerate() {
                    if let Some(id) = Self::key_id(k) {
                        self.index.entry(id).or_insert(at);
                    }
                }
            }
            return;
        }
        if let Some(id) = Self::key_id(&key) {
            if let Some(&at) = self.index.get(&id) {
                self.entries[at].1 = value;
                return;
            }
            self.index.insert(id, self.entries.len());
        }
        self.entries.push((key, value));
    }
}

pub(super) struct Decoder<'t> {
    pub(super) tree: &'t Tree,
    /// How many bytes of scalars (plus one per node) aliases may copy in.
    pub(super) alias_budget: u64,
    pub(super) alias_bytes: u64,
    pub(super) decode_count: u64,
    pub(super) alias_count: u64,
    pub(super) alias_depth: u32,
    pub(super) active: HashSet<usize>,
}

/// How much a document's aliases may expand, against its own size.
pub const ALIAS_EXPANSION_FACTOR: u64 = 10;

/// What aliases may expand to in a document of `size` bytes: [`ALIAS_EXPANSION_FACTOR`] times its
/// size, and at least 1 MiB.
///
/// Deliberate difference: go-yaml bounds aliasing by node counts only, so one large anchored
/// scalar referenced a few thousand times (a 1 MB file turned into 3 GB of values) passes there.
pub(super) fn alias_budget(size: usize) -> u64 {
    (size as u64)
        .saturating_mul(ALIAS_EXPANSION_FACTOR)
        .max(1 << 20)
}

pub(super) fn excessive_expansion(budget: u64) -> YamlError {
    YamlError::yaml(format!(
        "document contains excessive aliasing: aliases expand to more than {budget} bytes \
         ({ALIAS_EXPANSION_FACTOR} times the document's size, at least 1 MiB)"
    ))
}

/// Checks, without building any value, that the aliases of the first document of `input` stay
/// within [`alias_budget`], for readers that decode YAML by other means (go-yaml v3 semantics
/// through yaml_serde). Only that limit is checked: a document this reader cannot parse passes,
/// for the other reader to report in its own words.
pub fn check_alias_expansion(input: &[u8]) -> Result<(), YamlError> {
    let input: &[u8] = if input.is_empty() { b"\n" } else { input };
    let Ok(Some(tree)) = parse_first_document(input) else {
        return Ok(());
    };
    // Post-order over the tree: an alias's target (an earlier, finished node) is measured
    // before the alias. `full` is a node's size with aliases expanded (one per node plus the
    // text of scalars); `aliased` the part of it that aliases bring in.
    let count = tree.nodes.len();
    let (mut full, mut aliased) = (vec![0u64; count], vec![0u64; count]);
    let mut done = vec![false; count];
    let mut stack = vec![(tree.root, false)];
    while let Some((n, children_done)) = stack.pop() {
        let children = match &tree.nodes[n] {
            Node::Mapping(children) | Node::Sequence(children) => children.as_slice(),
            _ => &[],
        };
        if !children_done && !children.is_empty() {
            stack.push((n, true));
            stack.extend(children.iter().rev().map(|&child| (child, false)));
            continue;
        }
        (full[n], aliased[n]) = match &tree.nodes[n] {
            Node::Scalar { value, .. } => (1 + value.len() as u64, 0),
            // A target still open is an anchor that contains itself: the decoder reports it.
            Node::Alias { target, .. } if done[*target] => (full[*target], full[*target]),
            Node::Alias { .. } => (0, 0),
            Node::Mapping(_) | Node::Sequence(_) => {
                children.iter().fold((1u64, 0u64), |sum, &c| {
                    (
                        sum.0.saturating_add(full[c]),
                        sum.1.saturating_add(aliased[c]),
                    )
                })
            }
        };
        done[n] = true;
    }
    let budget = alias_budget(input.len());
    if aliased[tree.root] > budget {
        return Err(excessive_expansion(budget));
    }
    Ok(())
}

pub(super) fn allowed_alias_ratio(decode_count: u64) -> f64 {
    const LOW: u64 = 400_000;
    const HIGH: u64 = 4_000_000;
    if decode_count <= LOW {
        0.99
    } else if decode_count >= HIGH {
        0.10
    } else {
        0.99 - 0.89 * ((decode_count - LOW) as f64 / (HIGH - LOW) as f64)
    }
}

pub(super) fn fail_want_map() -> YamlError {
    YamlError::yaml("map merge requires map or sequence of maps as the value")
}

impl Decoder<'_> {
    pub(super) fn count(&mut self) -> Result<(), YamlError> {
        self.decode_count += 1;
        if self.alias_depth > 0 {
            self.alias_count += 1;
            self.spend(1)?;
        }
        if self.alias_count > 100
            && self.decode_count > 1000
            && self.alias_count as f64 / self.decode_count as f64
                > allowed_alias_ratio(self.decode_count)
        {
            return Err(YamlError::yaml("document contains excessive aliasing"));
        }
        Ok(())
    }

    /// Charges `bytes` to what aliases copy in (one per node, plus the text of scalars).
    pub(super) fn spend(&mut self, bytes: usize) -> Result<(), YamlError> {
        self.alias_bytes = self.alias_bytes.saturating_add(bytes as u64);
        if self.alias_bytes > self.alias_budget {
            return Err(excessive_expansion(self.alias_budget));
        }
        Ok(())
    }

    pub(super) fn enter_alias(&mut self, node: usize, name: &str) -> Result<(), YamlError> {
        if !self.active.insert(node) {
            return Err(YamlError::yaml(format!(
                "anchor '{name}' value contains itself"
            )));
        }
        self.alias_depth += 1;
        Ok(())
    }

    pub(super) fn leave_alias(&mut self, node: usize) {
        self.alias_depth -= 1;
        self.active.remove(&node);
    }

    /// Decodes node `n`, placed at nesting `depth` (0 for the document root).
    pub(super) fn value(&mut self, n: usize, depth: usize) -> Result<YVal, YamlError> {
        self.count()?;
        let tree = self.tree;
        match &tree.nodes[n] {
            Node::Scalar {
                value,
                tag,
                implicit,
            } => {
                if self.alias_depth > 0 {
                    self.spend(value.len())?;
                }
                scalar(value, tag, *implicit)
            }
            Node::Alias { name, target } => {
                self.enter_alias(n, name)?;
                let decoded = self.value(*target, depth)?;
                self.leave_alias(n);
                Ok(decoded)
            }
            Node::Mapping(children) => {
                if depth >= MAX_DEPTH {
                    return Err(YamlError::too_deep('{'));
                }
                let mut map = YMap::new();
                self.fill(children, &mut map, depth + 1)?;
                Ok(YVal::Map(map))
            }
            Node::Sequence(children) => {
                if depth >= MAX_DEPTH {
                    return Err(YamlError::too_deep('['));
                }
                let mut items = Vec::with_capacity(children.len());
                for &child in children {
                    items.push(self.value(child, depth + 1)?);
                }
                Ok(YVal::Seq(items))
            }
        }
    }

    pub(super) fn is_merge(&self, n: usize) -> bool {
        matches!(&self.tree.nodes[n], Node::Scalar { value, tag, implicit }
            if value == "<<" && (*implicit || tag == MERGE_TAG))
    }

    /// Decodes the key/value pairs of a mapping into `map` (its entries sit at `depth`).
    pub(super) fn fill(
        &mut self,
        children: &[usize],
        map: &mut YMap,
        depth: usize,
    ) -> Result<(), YamlError> {
        for pair in children.chunks(2) {
            let key_node = pair[0];
            if let Some(&value_node) = pair.get(1) {
                if self.is_merge(key_node) {
                    self.merge(value_node, map, depth)?;
                    continue;
                }
                let key = self.value(key_node, depth)?;
                if matches!(key, YVal::Map(_) | YVal::Seq(_)) {
                    return Err(YamlError::yaml(format!(
                        "invalid map key: {}",
                        go_sharp_v(&key, true, false)
                    )));
                }
                let value = self.value(value_node, depth)?;
                map.set(key, value);
            }
        }
        Ok(())
    }

    pub(super) fn merge_mapping(
        &mut self,
        n: usize,
        map: &mut YMap,
        depth: usize,
    ) -> Result<(), YamlError> {
        self.count()?;
        let tree = self.tree;
        match &tree.nodes[n] {
            Node::Mapping(children) => self.fill(children, map, depth),
            Node::Alias { name, target } => {
                self.enter_alias(n, name)?;
                self.merge_mapping(*target, map, depth)?;
                self.leave_alias(n);
                Ok(())
            }
            _ => Err(fail_want_map()),
        }
    }

    pub(super) fn is_mapping_or_alias_to_one(&self, n: usize) -> bool {
        match &self.tree.nodes[n] {
            Node::Mapping(_) => true,
            Node::Alias { target, .. } => matches!(self.tree.nodes[*target], Node::Mapping(_)),
            _ => false,
        }
    }

    pub(super) fn merge(
        &mut self,
        n: usize,
        map: &mut YMap,
        depth: usize,
    ) -> Result<(), YamlError> {
        let tree = self.tree;
        match &tree.nodes[n] {
            Node::Mapping(_) | Node::Alias { .. } => {
                if !self.is_mapping_or_alias_to_one(n) {
                    return Err(fail_want_map());
                }
                self.merge_mapping(n, map, depth)
            }
            Node::Sequence(children) => {
                for &child in children.iter().rev() {
                    if !self.is_mapping_or_alias_to_one(child) {
                        return Err(fail_want_map());
                    }
                    self.merge_mapping(child, map, depth)?;
                }
                Ok(())
            }
            Node::Scalar { .. } => Err(fail_want_map()),
        }
    }
}
