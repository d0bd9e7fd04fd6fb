//! The declarations of operator-registry's environment and the type checker.

use super::ast::{qualified_name, Comprehension, Kind, Node, ACCU};
use super::diag::Diag;
use super::types::{
    assignable, format_type, is_dyn, is_dyn_or_error, list, map, most_general, substitute, type_of,
    Subst, Ty,
};
use super::MAX_TYPE_DEPTH;

/// One function overload; `Param(0)` and `Param(1)` are its type
/// parameters, instantiated afresh at each use.
pub(super) struct Overload {
    pub(super) instance: bool,
    pub(super) params: Vec<Ty>,
    pub(super) result: Ty,
}

pub(super) fn global(params: Vec<Ty>, result: Ty) -> Overload {
    Overload {
        instance: false,
        params,
        result,
    }
}

pub(super) fn member(params: Vec<Ty>, result: Ty) -> Overload {
    Overload {
        instance: true,
        params,
        result,
    }
}

/// The overloads declared for a function name: the CEL standard library plus
/// operator-registry's `semver_compare`.
pub(super) fn overloads(name: &str) -> Option<Vec<Overload>> {
    use Ty::{Bool, Bytes, Double, Duration, Int, Str, Timestamp, Uint};
    let a = || Ty::Param(0);
    let b = || Ty::Param(1);
    let same = |types: &[Ty], result: Option<Ty>| -> Vec<Overload> {
        types
            .iter()
            .map(|t| {
                global(
                    vec![t.clone(), t.clone()],
                    result.clone().unwrap_or_else(|| t.clone()),
                )
            })
            .collect()
    };
    let convert = |from: &[Ty], to: Ty| -> Vec<Overload> {
        from.iter()
            .map(|t| global(vec![t.clone()], to.clone()))
            .collect()
    };
    let ordered = [Bool, Int, Uint, Double, Str, Bytes, Timestamp, Duration];
    let list_of_a = || list(a());
    let map_of_ab = || map(a(), b());
    Some(match name {
        "_?_:_" => vec![global(vec![Bool, a(), a()], a())],
        "_&&_" | "_||_" => vec![global(vec![Bool, Bool], Bool)],
        "!_" => vec![global(vec![Bool], Bool)],
        "-_" => vec![global(vec![Int], Int), global(vec![Double], Double)],
        "_==_" | "_!=_" => vec![global(vec![a(), a()], Bool)],
        "_<_" | "_<=_" | "_>_" | "_>=_" => same(&ordered, Some(Bool)),
        "_+_" => {
            let mut v = same(&[Int, Uint, Double, Str, Bytes], None);
            v.push(global(vec![list_of_a(), list_of_a()], list_of_a()));
            v.push(global(vec![Timestamp, Duration], Timestamp));
            v.push(global(vec![Duration, Timestamp], Timestamp));
            v.push(global(vec![Duration, Duration], Duration));
            v
        }
        "_-_" => {
            let mut v = same(&[Int, Uint, Double], None);
            v.push(global(vec![Timestamp, Timestamp], Duration));
            v.push(global(vec![Timestamp, Duration], Timestamp));
            v.push(global(vec![Duration, Duration], Duration));
            v
        }
        "_*_" | "_/_" => same(&[Int, Uint, Double], None),
        "_%_" => same(&[Int, Uint], None),
        "_[_]" => vec![
            global(vec![list_of_a(), Int], a()),
            global(vec![map_of_ab(), a()], b()),
        ],
        "@in" => vec![
            global(vec![a(), list_of_a()], Bool),
            global(vec![a(), map_of_ab()], Bool),
        ],
        "size" => {
            let mut v = Vec::new();
            for t in [Str, Bytes, list_of_a(), map_of_ab()] {
                v.push(member(vec![t.clone()], Int));
                v.push(global(vec![t], Int));
            }
            v
        }
        "matches" => vec![member(vec![Str, Str], Bool), global(vec![Str, Str], Bool)],
        "contains" | "startsWith" | "endsWith" => vec![member(vec![Str, Str], Bool)],
        "type" => vec![global(vec![a()], type_of(a()))],
        "dyn" => vec![global(vec![a()], Ty::Dyn)],
        "int" => convert(&[Int, Uint, Double, Str, Timestamp, Duration], Int),
        "uint" => convert(&[Uint, Int, Double, Str], Uint),
        "double" => convert(&[Double, Int, Uint, Str], Double),
        "bool" => convert(&[Bool, Str], Bool),
        "string" => convert(
            &[Str, Bool, Int, Uint, Double, Bytes, Timestamp, Duration],
            Str,
        ),
        "bytes" => convert(&[Bytes, Str], Bytes),
        "timestamp" => convert(&[Timestamp, Str, Int], Timestamp),
        "duration" => convert(&[Duration, Str, Int], Duration),
        "getFullYear" | "getMonth" | "getDayOfYear" | "getDayOfMonth" | "getDate"
        | "getDayOfWeek" => vec![
            member(vec![Timestamp], Int),
            member(vec![Timestamp, Str], Int),
        ],
        "getHours" | "getMinutes" | "getSeconds" | "getMilliseconds" => vec![
            member(vec![Timestamp], Int),
            member(vec![Timestamp, Str], Int),
            member(vec![Duration], Int),
        ],
        "semver_compare" => vec![global(vec![Ty::Any, Ty::Any], Int)],
        _ => return None,
    })
}

/// Well-known protobuf message types the default type provider knows.
pub(super) const WELL_KNOWN_MESSAGES: [&str; 14] = [
    "google.protobuf.Any",
    "google.protobuf.Struct",
    "google.protobuf.Value",
    "google.protobuf.ListValue",
    "google.protobuf.BoolValue",
    "google.protobuf.BytesValue",
    "google.protobuf.DoubleValue",
    "google.protobuf.FloatValue",
    "google.protobuf.Int32Value",
    "google.protobuf.Int64Value",
    "google.protobuf.StringValue",
    "google.protobuf.UInt32Value",
    "google.protobuf.UInt64Value",
    "google.protobuf.Empty",
];

// ---------------------------------------------------------------------------
// Checker
// ---------------------------------------------------------------------------

pub(super) struct Checker {
    pub(super) subst: Subst,
    pub(super) scopes: Vec<(String, Ty)>,
    pub(super) errors: Vec<Diag>,
}

impl Checker {
    pub(super) fn new() -> Self {
        Checker {
            subst: Subst::default(),
            scopes: Vec::new(),
            errors: Vec::new(),
        }
    }

    pub(super) fn error(&mut self, pos: usize, msg: String) {
        self.errors.push(Diag::at(pos, msg));
    }

    pub(super) fn is_assignable(&mut self, t1: &Ty, t2: &Ty) -> bool {
        self.subst.trail.clear();
        let ok = assignable(&mut self.subst, t1, t2, 0);
        if ok {
            self.subst.trail.clear();
        } else {
            self.subst.rollback();
        }
        ok
    }

    pub(super) fn lookup_ident(&self, name: &str) -> Option<Ty> {
        let plain = name.strip_prefix('.').unwrap_or(name);
        if let Some((_, t)) = self.scopes.iter().rev().find(|(n, _)| n == plain) {
            return Some(t.clone());
        }
        Some(match plain {
            "properties" => list(map(Ty::Str, Ty::Any)),
            "int" => type_of(Ty::Int),
            "uint" => type_of(Ty::Uint),
            "double" => type_of(Ty::Double),
            "bool" => type_of(Ty::Bool),
            "string" => type_of(Ty::Str),
            "bytes" => type_of(Ty::Bytes),
            "null_type" => type_of(Ty::Null),
            "list" => type_of(list(Ty::Dyn)),
            "map" => type_of(map(Ty::Dyn, Ty::Dyn)),
            "type" => type_of(Ty::Type(None)),
            "google.protobuf.Timestamp" => type_of(Ty::Timestamp),
            "google.protobuf.Duration" => type_of(Ty::Duration),
            _ if WELL_KNOWN_MESSAGES.contains(&plain) => type_of(Ty::Object(plain.to_string())),
            _ => return None,
        })
    }

    pub(super) fn undeclared(&mut self, pos: usize, name: &str) {
        self.error(
            pos,
            format!("undeclared reference to '{name}' (in container '')"),
        );
    }

    pub(super) fn check(&mut self, e: &Node) -> Ty {
        match &e.kind {
            Kind::Error => Ty::Error,
            Kind::Literal(ty) => ty.clone(),
            Kind::Ident(name) => match self.lookup_ident(name) {
                Some(t) => t,
                None => {
                    self.undeclared(e.pos, name);
                    Ty::Error
                }
            },
            Kind::Select {
                operand,
                field: _,
                test_only,
            } => {
                if !test_only {
                    if let Some(t) = qualified_name(e).and_then(|q| self.lookup_ident(&q)) {
                        return t;
                    }
                }
                let operand_ty = self.check(operand);
                let target = substitute(&self.subst, &operand_ty, false, 0);
                let result = match &target {
                    Ty::Map(_, v) => (**v).clone(),
                    Ty::Object(_) => Ty::Dyn,
                    Ty::Param(_) => {
                        self.is_assignable(&Ty::Dyn, &target);
                        Ty::Dyn
                    }
                    t if is_dyn_or_error(t) => Ty::Dyn,
                    t => {
                        let msg =
                            format!("type '{}' does not support field selection", format_type(t));
                        self.error(e.pos, msg);
                        Ty::Error
                    }
                };
                if *test_only {
                    Ty::Bool
                } else {
                    substitute(&self.subst, &result, false, 0)
                }
            }
            Kind::Call { func, target, args } => {
                self.check_call(e.pos, func, target.as_deref(), args)
            }
            Kind::List(elems) => {
                let mut elem: Option<Ty> = None;
                for x in elems {
                    let t = self.check(x);
                    elem = Some(self.join(elem, t));
                }
                list(elem.unwrap_or_else(|| self.subst.fresh()))
            }
            Kind::Map(entries) => {
                let mut key: Option<Ty> = None;
                let mut value: Option<Ty> = None;
                for (k, v) in entries {
                    let kt = self.check(k);
                    key = Some(self.join(key, kt));
                    let vt = self.check(v);
                    value = Some(self.join(value, vt));
                }
                let k = key.unwrap_or_else(|| self.subst.fresh());
                let v = value.unwrap_or_else(|| self.subst.fresh());
                map(k, v)
            }
            Kind::Message { name, fields } => {
                let plain = name.strip_prefix('.').unwrap_or(name);
                if !WELL_KNOWN_MESSAGES.contains(&plain) {
                    self.undeclared(e.pos, name);
                    return Ty::Error;
                }
                for f in fields {
                    self.check(f);
                }
                Ty::Object(plain.to_string())
            }
            Kind::Comprehension(c) => self.check_comprehension(c),
        }
    }

    pub(super) fn join(&mut self, previous: Option<Ty>, current: Ty) -> Ty {
        match previous {
            None => current,
            Some(prev) => {
                if self.is_assignable(&prev, &current) {
                    most_general(&prev, &current, 0)
                } else {
                    Ty::Dyn
                }
            }
        }
    }

    pub(super) fn check_call(
        &mut self,
        pos: usize,
        func: &str,
        target: Option<&Node>,
        args: &[Node],
    ) -> Ty {
        let plain = func.strip_prefix('.').unwrap_or(func);
        let Some(target) = target else {
            return match overloads(plain) {
                Some(ovs) => self.resolve(pos, plain, &ovs, None, args),
                None => {
                    self.undeclared(pos, func);
                    Ty::Error
                }
            };
        };
        if let Some(q) = qualified_name(target) {
            let full = format!("{q}.{plain}");
            if let Some(ovs) = overloads(&full) {
                return self.resolve(pos, &full, &ovs, None, args);
            }
        }
        let target_ty = self.check(target);
        match overloads(plain) {
            Some(ovs) => self.resolve(pos, plain, &ovs, Some(target_ty), args),
            None => {
                self.undeclared(pos, plain);
                Ty::Error
            }
        }
    }

    pub(super) fn instantiate(&mut self, t: &Ty, base: usize, d: usize) -> Ty {
        if d > MAX_TYPE_DEPTH {
            return Ty::Dyn;
        }
        match t {
            Ty::Param(i) => Ty::Param(base + i),
            Ty::List(e) => list(self.instantiate(e, base, d + 1)),
            Ty::Map(k, v) => {
                let k = self.instantiate(k, base, d + 1);
                map(k, self.instantiate(v, base, d + 1))
            }
            Ty::Type(Some(inner)) => type_of(self.instantiate(inner, base, d + 1)),
            _ => t.clone(),
        }
    }

    pub(super) fn resolve(
        &mut self,
        pos: usize,
        name: &str,
        ovs: &[Overload],
        target: Option<Ty>,
        args: &[Node],
    ) -> Ty {
        let instance = target.is_some();
        let mut arg_types: Vec<Ty> = target.into_iter().collect();
        for a in args {
            let t = self.check(a);
            arg_types.push(t);
        }
        let mut result: Option<Ty> = None;
        for ov in ovs {
            if ov.instance != instance || ov.params.len() != arg_types.len() {
                continue;
            }
            let base = self.subst.values.len();
            let generic = ov.params.iter().chain([&ov.result]).any(mentions_param);
            if generic {
                self.subst.fresh();
                self.subst.fresh();
            }
            let params: Vec<Ty> = ov
                .params
                .iter()
                .map(|p| self.instantiate(p, base, 0))
                .collect();
            let result_ty = self.instantiate(&ov.result, base, 0);
            self.subst.trail.clear();
            let ok = arg_types
                .iter()
                .zip(&params)
                .all(|(a, p)| assignable(&mut self.subst, a, p, 0));
            if !ok {
                self.subst.rollback();
                continue;
            }
            self.subst.trail.clear();
            let rt = substitute(&self.subst, &result_ty, false, 0);
            result = Some(match result {
                None => rt,
                Some(prev) if !is_dyn(&prev) && prev != rt => Ty::Dyn,
                Some(prev) => prev,
            });
        }
        if let Some(t) = result {
            return t;
        }
        let shown: Vec<String> = arg_types
            .iter()
            .map(|t| format_type(&substitute(&self.subst, t, true, 0)))
            .collect();
        let signature = if instance {
            format!("{}.({})", shown[0], shown[1..].join(", "))
        } else {
            format!("({})", shown.join(", "))
        };
        self.error(
            pos,
            format!("found no matching overload for '{name}' applied to '{signature}'"),
        );
        Ty::Error
    }

    pub(super) fn check_comprehension(&mut self, c: &Comprehension) -> Ty {
        let range_ty = self.check(&c.range);
        let accu_ty = self.check(&c.init);
        let range = substitute(&self.subst, &range_ty, false, 0);
        let var_ty = match &range {
            Ty::List(e) => (**e).clone(),
            Ty::Map(k, _) => (**k).clone(),
            Ty::Param(_) => {
                self.is_assignable(&Ty::Dyn, &range);
                Ty::Dyn
            }
            t if is_dyn_or_error(t) => Ty::Dyn,
            t => {
                let msg = format!(
                    "expression of type '{}' cannot be range of a comprehension (must be list, map, or dynamic)",
                    format_type(t)
                );
                self.error(c.range.pos, msg);
                Ty::Error
            }
        };
        self.scopes.push((ACCU.to_string(), accu_ty.clone()));
        self.scopes.push((c.iter_var.clone(), var_ty));
        let cond_ty = self.check(&c.cond);
        self.assert_type(c.cond.pos, &Ty::Bool, &cond_ty);
        let step_ty = self.check(&c.step);
        self.assert_type(c.step.pos, &accu_ty, &step_ty);
        self.scopes.pop();
        let result_ty = self.check(&c.result);
        self.scopes.pop();
        substitute(&self.subst, &result_ty, false, 0)
    }

    pub(super) fn assert_type(&mut self, pos: usize, expected: &Ty, actual: &Ty) {
        if !self.is_assignable(expected, actual) {
            let msg = format!(
                "expected type '{}' but found '{}'",
                format_type(expected),
                format_type(actual)
            );
            self.error(pos, msg);
        }
    }
}

pub(super) fn mentions_param(t: &Ty) -> bool {
    match t {
        Ty::Param(_) => true,
        Ty::List(e) => mentions_param(e),
        Ty::Map(k, v) => mentions_param(k) || mentions_param(v),
        Ty::Type(Some(inner)) => mentions_param(inner),
        _ => false,
    }
}
