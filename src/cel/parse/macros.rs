//! cel-go's macros (`has`, `all`, `exists`, `exists_one`, `map`, `filter`),
//! recognised where a global or receiver call is parsed and expanded into
//! comprehensions.

use super::super::ast::{max_depth, Comprehension, Kind, Node, ACCU};
use super::super::diag::Diag;
use super::super::types::Ty;
use super::Parser;

impl Parser<'_> {
    pub(super) fn global_call_or_macro(
        &mut self,
        name: &str,
        mut args: Vec<Node>,
        pos: usize,
    ) -> Node {
        let depth = max_depth(&args);
        if name == "has" && args.len() == 1 {
            let arg = args.remove(0);
            return match arg.kind {
                Kind::Select {
                    operand,
                    field,
                    test_only: false,
                } => Node::new(
                    Kind::Select {
                        operand,
                        field,
                        test_only: true,
                    },
                    pos,
                    arg.depth,
                ),
                _ => {
                    self.errors
                        .push(Diag::at(arg.pos, "invalid argument to has() macro"));
                    Node::error(pos)
                }
            };
        }
        Node::new(
            Kind::Call {
                func: name.to_string(),
                target: None,
                args,
            },
            pos,
            depth,
        )
    }

    pub(super) fn receiver_call_or_macro(
        &mut self,
        name: &str,
        target: Node,
        mut args: Vec<Node>,
        pos: usize,
        depth: usize,
    ) -> Node {
        let quantifier = matches!(name, "all" | "exists" | "exists_one") && args.len() == 2;
        let mapping =
            (name == "map" && matches!(args.len(), 2 | 3)) || (name == "filter" && args.len() == 2);
        if !quantifier && !mapping {
            return Node::new(
                Kind::Call {
                    func: name.to_string(),
                    target: Some(Box::new(target)),
                    args,
                },
                pos,
                depth,
            );
        }
        let var = match &args[0].kind {
            Kind::Ident(v) => v.clone(),
            _ => {
                let msg = if quantifier {
                    "argument must be a simple name"
                } else {
                    "argument is not an identifier"
                };
                self.errors.push(Diag::at(args[0].pos, msg));
                return Node::error(pos);
            }
        };
        let accu = || Node::ident(ACCU, pos);
        let bool_lit = || Node::new(Kind::Literal(Ty::Bool), pos, 0);
        let append = |item: Node| {
            let d = item.depth;
            Node::call(
                "_+_",
                vec![accu(), Node::new(Kind::List(vec![item]), pos, d)],
                pos,
                d,
            )
        };
        let last = args.pop().unwrap_or_else(|| Node::error(pos));
        let (init, cond, step, result) = match name {
            "all" => (
                bool_lit(),
                accu(),
                Node::call("_&&_", vec![accu(), last], pos, depth),
                accu(),
            ),
            "exists" => (
                bool_lit(),
                Node::call("!_", vec![accu()], pos, 0),
                Node::call("_||_", vec![accu(), last], pos, depth),
                accu(),
            ),
            "exists_one" => (
                Node::int_lit(pos),
                Node::call("_<=_", vec![accu(), Node::int_lit(pos)], pos, 0),
                Node::call(
                    "_?_:_",
                    vec![
                        last,
                        Node::call("_+_", vec![accu(), Node::int_lit(pos)], pos, 0),
                        accu(),
                    ],
                    pos,
                    depth,
                ),
                Node::call("_==_", vec![accu(), Node::int_lit(pos)], pos, 0),
            ),
            "filter" => {
                let step = append(Node::ident(&var, pos));
                (
                    Node::new(Kind::List(Vec::new()), pos, 0),
                    bool_lit(),
                    Node::call("_?_:_", vec![last, step, accu()], pos, depth),
                    accu(),
                )
            }
            _ => {
                // map, with an optional filter predicate before the transform
                let step = append(last);
                let step = if args.len() == 2 {
                    let pred = args.pop().unwrap_or_else(|| Node::error(pos));
                    Node::call("_?_:_", vec![pred, step, accu()], pos, depth)
                } else {
                    step
                };
                (
                    Node::new(Kind::List(Vec::new()), pos, 0),
                    bool_lit(),
                    step,
                    accu(),
                )
            }
        };
        Node::new(
            Kind::Comprehension(Box::new(Comprehension {
                iter_var: var,
                range: target,
                init,
                cond,
                step,
                result,
            })),
            pos,
            depth,
        )
    }
}
