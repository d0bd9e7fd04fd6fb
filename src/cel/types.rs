//! CEL types, substitutions and assignability, as cel-go's checker computes them.

use super::MAX_TYPE_DEPTH;
use std::fmt::Write as _;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Ty {
    Error,
    Dyn,
    /// `google.protobuf.Any`, which the checker treats like `dyn`.
    Any,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    Str,
    Bytes,
    Timestamp,
    Duration,
    List(Box<Ty>),
    Map(Box<Ty>, Box<Ty>),
    Type(Option<Box<Ty>>),
    Param(usize),
    Object(String),
}

pub(super) fn list(t: Ty) -> Ty {
    Ty::List(Box::new(t))
}

pub(super) fn map(k: Ty, v: Ty) -> Ty {
    Ty::Map(Box::new(k), Box::new(v))
}

pub(super) fn type_of(t: Ty) -> Ty {
    Ty::Type(Some(Box::new(t)))
}

pub(super) fn is_dyn(t: &Ty) -> bool {
    matches!(t, Ty::Dyn | Ty::Any)
}

pub(super) fn is_dyn_or_error(t: &Ty) -> bool {
    matches!(t, Ty::Dyn | Ty::Any | Ty::Error)
}

pub(super) fn is_primitive(t: &Ty) -> bool {
    matches!(
        t,
        Ty::Bool | Ty::Int | Ty::Uint | Ty::Double | Ty::Str | Ty::Bytes
    )
}

pub(super) fn format_type(t: &Ty) -> String {
    let mut out = String::new();
    write_type(t, &mut out, 0);
    out
}

pub(super) fn write_type(t: &Ty, out: &mut String, d: usize) {
    if d > MAX_TYPE_DEPTH {
        out.push_str("dyn");
        return;
    }
    match t {
        Ty::Error => out.push_str("!error!"),
        Ty::Dyn => out.push_str("dyn"),
        Ty::Any => out.push_str("any"),
        Ty::Null => out.push_str("null"),
        Ty::Bool => out.push_str("bool"),
        Ty::Int => out.push_str("int"),
        Ty::Uint => out.push_str("uint"),
        Ty::Double => out.push_str("double"),
        Ty::Str => out.push_str("string"),
        Ty::Bytes => out.push_str("bytes"),
        Ty::Timestamp => out.push_str("timestamp"),
        Ty::Duration => out.push_str("duration"),
        Ty::List(e) => {
            out.push_str("list(");
            write_type(e, out, d + 1);
            out.push(')');
        }
        Ty::Map(k, v) => {
            out.push_str("map(");
            write_type(k, out, d + 1);
            out.push_str(", ");
            write_type(v, out, d + 1);
            out.push(')');
        }
        Ty::Type(None) => out.push_str("type"),
        Ty::Type(Some(inner)) => {
            out.push_str("type(");
            write_type(inner, out, d + 1);
            out.push(')');
        }
        Ty::Param(i) => {
            let _ = write!(out, "_var{i}");
        }
        Ty::Object(name) => out.push_str(name),
    }
}

/// Type-parameter substitutions with an undo trail, so a failed overload
/// match can be rolled back without copying the whole mapping.
#[derive(Default)]
pub(super) struct Subst {
    pub(super) values: Vec<Option<Ty>>,
    pub(super) trail: Vec<(usize, Option<Ty>)>,
}

impl Subst {
    pub(super) fn fresh(&mut self) -> Ty {
        self.values.push(None);
        Ty::Param(self.values.len() - 1)
    }

    pub(super) fn find(&self, t: &Ty) -> Option<Ty> {
        match t {
            Ty::Param(i) => self.values.get(*i).cloned().flatten(),
            _ => None,
        }
    }

    pub(super) fn set(&mut self, param: &Ty, value: Ty) {
        if let Ty::Param(i) = param {
            if let Some(slot) = self.values.get_mut(*i) {
                let old = slot.replace(value);
                self.trail.push((*i, old));
            }
        }
    }

    pub(super) fn rollback(&mut self) {
        while let Some((i, old)) = self.trail.pop() {
            if let Some(slot) = self.values.get_mut(i) {
                *slot = old;
            }
        }
    }
}

/// Whether `t1` may be assigned to `t2`, binding type parameters on the way.
pub(super) fn assignable(m: &mut Subst, t1: &Ty, t2: &Ty, d: usize) -> bool {
    if d > MAX_TYPE_DEPTH {
        return false;
    }
    if matches!(t2, Ty::Param(_)) {
        let (valid, has_sub) = valid_substitution(m, t1, t2, d + 1);
        if valid {
            return true;
        }
        if has_sub {
            return false;
        }
    }
    if matches!(t1, Ty::Param(_)) {
        return valid_substitution(m, t2, t1, d + 1).0;
    }
    if is_dyn_or_error(t1) || is_dyn_or_error(t2) {
        return true;
    }
    if *t1 == Ty::Null {
        return matches!(t2, Ty::Null | Ty::Object(_) | Ty::Timestamp | Ty::Duration);
    }
    if is_primitive(t1) {
        return t1 == t2;
    }
    match (t1, t2) {
        (Ty::List(a), Ty::List(b)) => assignable(m, a, b, d + 1),
        (Ty::Map(k1, v1), Ty::Map(k2, v2)) => {
            assignable(m, k1, k2, d + 1) && assignable(m, v1, v2, d + 1)
        }
        (Ty::Object(a), Ty::Object(b)) => a == b,
        (Ty::Type(_), Ty::Type(_)) => true,
        (Ty::Timestamp, Ty::Timestamp) | (Ty::Duration, Ty::Duration) => true,
        _ => false,
    }
}

/// Whether `param` (or what it is bound to) can stand for `t`; the second
/// flag tells whether `param` was already bound.
pub(super) fn valid_substitution(m: &mut Subst, t: &Ty, param: &Ty, d: usize) -> (bool, bool) {
    if let Some(sub) = m.find(param) {
        if *t == sub {
            return (true, true);
        }
        if assignable(m, t, &sub, d + 1) {
            let general = most_general(t, &sub, d + 1);
            m.set(param, general);
            return (true, true);
        }
        return (false, true);
    }
    if not_referenced_in(m, param, t, d + 1) {
        m.set(param, t.clone());
        return (true, false);
    }
    (false, false)
}

pub(super) fn not_referenced_in(m: &Subst, param: &Ty, within: &Ty, d: usize) -> bool {
    if d > MAX_TYPE_DEPTH || param == within {
        return false;
    }
    match within {
        Ty::Param(_) => match m.find(within) {
            None => true,
            Some(sub) => not_referenced_in(m, param, &sub, d + 1),
        },
        Ty::List(e) => not_referenced_in(m, param, e, d + 1),
        Ty::Map(k, v) => {
            not_referenced_in(m, param, k, d + 1) && not_referenced_in(m, param, v, d + 1)
        }
        _ => true,
    }
}

pub(super) fn most_general(t1: &Ty, t2: &Ty, d: usize) -> Ty {
    if equal_or_less_specific(t1, t2, d) {
        t1.clone()
    } else {
        t2.clone()
    }
}

pub(super) fn equal_or_less_specific(t1: &Ty, t2: &Ty, d: usize) -> bool {
    if d > MAX_TYPE_DEPTH {
        return false;
    }
    if is_dyn(t1) || matches!(t1, Ty::Param(_)) {
        return true;
    }
    if is_dyn(t2) || matches!(t2, Ty::Param(_)) {
        return false;
    }
    match (t1, t2) {
        (Ty::List(a), Ty::List(b)) => equal_or_less_specific(a, b, d + 1),
        (Ty::Map(k1, v1), Ty::Map(k2, v2)) => {
            equal_or_less_specific(k1, k2, d + 1) && equal_or_less_specific(v1, v2, d + 1)
        }
        (Ty::Type(_), Ty::Type(_)) => true,
        _ => t1 == t2,
    }
}

/// Replaces bound type parameters; unbound ones become `dyn` when `to_dyn`.
pub(super) fn substitute(m: &Subst, t: &Ty, to_dyn: bool, d: usize) -> Ty {
    if d > MAX_TYPE_DEPTH {
        return Ty::Dyn;
    }
    if let Some(sub) = m.find(t) {
        return substitute(m, &sub, to_dyn, d + 1);
    }
    match t {
        Ty::Param(_) if to_dyn => Ty::Dyn,
        Ty::List(e) => list(substitute(m, e, to_dyn, d + 1)),
        Ty::Map(k, v) => map(
            substitute(m, k, to_dyn, d + 1),
            substitute(m, v, to_dyn, d + 1),
        ),
        Ty::Type(Some(inner)) => type_of(substitute(m, inner, to_dyn, d + 1)),
        _ => t.clone(),
    }
}
