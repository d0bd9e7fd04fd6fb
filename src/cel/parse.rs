//! The recursive-descent parser, with ANTLR's wording of syntax errors and cel-go's macros.

use super::ast::{max_depth, qualified_name, Kind, Node};
use super::diag::{escape_display, Diag};
use super::lex::{
    check_unescape, Tk, TokSet, Token, AFTER_MEMBER, EXPR_START, MEMBER_START, RESERVED,
};
use super::types::Ty;
use super::MAX_RECURSION;

mod macros;

/// Why parsing stopped: a syntax error (the first one is reported) or one of
/// cel-go's recursion limits.
pub(super) enum Stop {
    Syntax(Diag),
    Limit(&'static str),
}

pub(super) type PResult<T> = Result<T, Stop>;

pub(super) const RULE_LIMIT: &str = "expression recursion limit exceeded: 250";
pub(super) const VISIT_LIMIT: &str = "max recursion depth exceeded";

/// Grammar rules whose nesting cel-go's parse listener limits.
#[derive(Clone, Copy)]
pub(super) enum Rule {
    Expr,
    Relation,
    Calc,
    Member,
}

pub(super) struct Parser<'a> {
    pub(super) src: &'a [char],
    pub(super) tokens: Vec<Token>,
    pub(super) pos: usize,
    /// Non-syntax errors cel-go's visitor reports.
    pub(super) errors: Vec<Diag>,
    /// Tokens that may follow an expression in each enclosing context.
    pub(super) follow: Vec<TokSet>,
    pub(super) depths: [usize; 4],
}

impl<'a> Parser<'a> {
    pub(super) fn new(src: &'a [char], tokens: Vec<Token>) -> Self {
        Parser {
            src,
            tokens,
            pos: 0,
            errors: Vec::new(),
            follow: Vec::new(),
            depths: [0; 4],
        }
    }

    // --- token access -----------------------------------------------------

    pub(super) fn tok(&self, ahead: usize) -> Token {
        let last = self.tokens.len() - 1;
        self.tokens[(self.pos + ahead).min(last)]
    }

    pub(super) fn cur(&self) -> Tk {
        self.tok(0).kind
    }

    pub(super) fn peek(&self) -> Tk {
        self.tok(1).kind
    }

    pub(super) fn advance(&mut self) -> Token {
        let t = self.tok(0);
        if t.kind != Tk::Eof {
            self.pos += 1;
        }
        t
    }

    pub(super) fn text(&self, t: Token) -> String {
        self.src[t.start..t.end].iter().collect()
    }

    pub(super) fn display(&self, t: Token) -> String {
        if t.kind == Tk::Eof {
            "'<EOF>'".to_string()
        } else {
            format!("'{}'", escape_display(&self.text(t)))
        }
    }

    // --- errors -------------------------------------------------------------

    pub(super) fn syntax(&self, t: Token, msg: String) -> Stop {
        Stop::Syntax(Diag::at(t.start, format!("Syntax error: {msg}")))
    }

    /// ANTLR's `sync` failure: the current token is not in `expected`.
    pub(super) fn sync_error(&self, expected: TokSet) -> Stop {
        let t = self.tok(0);
        let how = if expected.has(self.peek()) {
            "extraneous input"
        } else {
            "mismatched input"
        };
        self.syntax(
            t,
            format!("{how} {} expecting {}", self.display(t), expected.display()),
        )
    }

    /// ANTLR's `match` with single-token deletion and insertion.
    pub(super) fn expect(&mut self, kind: Tk, follow: TokSet) -> PResult<Token> {
        let t = self.tok(0);
        if t.kind == kind {
            return Ok(self.advance());
        }
        let msg = if self.peek() == kind {
            format!(
                "extraneous input {} expecting {}",
                self.display(t),
                kind.display()
            )
        } else if follow.has(t.kind) {
            format!("missing {} at {}", kind.display(), self.display(t))
        } else {
            format!(
                "mismatched input {} expecting {}",
                self.display(t),
                kind.display()
            )
        };
        Err(self.syntax(t, msg))
    }

    /// ANTLR's "no viable alternative" for a decision that started at token
    /// index `from` and failed at token index `at`.
    pub(super) fn no_viable(&self, from: usize, at: usize) -> Stop {
        let last = self.tokens.len() - 1;
        let start = self.tokens[from.min(last)];
        let bad = self.tokens[at.min(last)];
        let text: String = self.src[start.start..bad.end.max(start.start)]
            .iter()
            .collect();
        self.syntax(
            bad,
            format!("no viable alternative at input '{}'", escape_display(&text)),
        )
    }

    pub(super) fn context_follow(&self) -> TokSet {
        self.follow
            .last()
            .copied()
            .unwrap_or(TokSet::of(&[Tk::Eof]))
    }

    pub(super) fn after_member(&self) -> TokSet {
        AFTER_MEMBER.with(self.context_follow())
    }

    pub(super) fn enter(&mut self, rule: Rule) -> PResult<()> {
        let d = &mut self.depths[rule as usize];
        *d += 1;
        if *d > MAX_RECURSION {
            Err(Stop::Limit(RULE_LIMIT))
        } else {
            Ok(())
        }
    }

    pub(super) fn leave(&mut self, rule: Rule, count: usize) {
        let d = &mut self.depths[rule as usize];
        *d = d.saturating_sub(count);
    }

    pub(super) fn counted(node: Node) -> PResult<Node> {
        if node.depth > MAX_RECURSION {
            Err(Stop::Limit(VISIT_LIMIT))
        } else {
            Ok(node)
        }
    }

    // --- grammar --------------------------------------------------------------

    pub(super) fn parse_start(&mut self) -> PResult<Node> {
        let e = self.parse_expr()?;
        if self.cur() != Tk::Eof {
            let t = self.tok(0);
            let how = if self.peek() == Tk::Eof {
                "extraneous input"
            } else {
                "mismatched input"
            };
            return Err(self.syntax(t, format!("{how} {} expecting <EOF>", self.display(t))));
        }
        Ok(e)
    }

    /// `expr : conditionalOr ('?' conditionalOr ':' expr)?`
    pub(super) fn parse_expr(&mut self) -> PResult<Node> {
        self.enter(Rule::Expr)?;
        let cond = self.parse_logic(true)?;
        let out = if self.cur() == Tk::Question {
            let q = self.advance();
            self.follow.push(TokSet::of(&[Tk::Colon]));
            let then = self.parse_logic(true)?;
            self.follow.pop();
            self.expect(Tk::Colon, EXPR_START)?;
            let other = self.parse_expr()?;
            let depth = 1 + max_depth([&cond, &then, &other]);
            Self::counted(Node::call("_?_:_", vec![cond, then, other], q.start, depth))?
        } else {
            cond
        };
        self.leave(Rule::Expr, 1);
        Ok(out)
    }

    /// `conditionalOr` / `conditionalAnd`, built as cel-go's balanced tree.
    pub(super) fn parse_logic(&mut self, or: bool) -> PResult<Node> {
        let (op, func) = if or {
            (Tk::Or, "_||_")
        } else {
            (Tk::And, "_&&_")
        };
        let first = if or {
            self.parse_logic(false)?
        } else {
            self.parse_relation()?
        };
        if self.cur() != op {
            return Ok(first);
        }
        let mut terms = vec![Some(first)];
        let mut ops = Vec::new();
        while self.cur() == op {
            ops.push(self.advance().start);
            let term = if or {
                self.parse_logic(false)?
            } else {
                self.parse_relation()?
            };
            terms.push(Some(term));
        }
        Ok(balance(&mut terms, &ops, func, 0, ops.len() - 1))
    }

    /// `relation : calc | relation op relation` (all one precedence level).
    pub(super) fn parse_relation(&mut self) -> PResult<Node> {
        self.enter(Rule::Relation)?;
        let mut lhs = self.parse_calc()?;
        let mut pushes = 0;
        while let Some(func) = relation_function(self.cur()) {
            let op = self.advance();
            pushes += 1;
            self.enter(Rule::Relation)?;
            self.enter(Rule::Relation)?;
            let rhs = self.parse_calc()?;
            self.leave(Rule::Relation, 1);
            let depth = 1 + max_depth([&lhs, &rhs]);
            lhs = Self::counted(Node::call(func, vec![lhs, rhs], op.start, depth))?;
        }
        self.leave(Rule::Relation, 1 + pushes);
        Ok(lhs)
    }

    pub(super) fn parse_calc(&mut self) -> PResult<Node> {
        self.enter(Rule::Calc)?;
        let out = self.calc_level(1)?;
        self.leave(Rule::Calc, 1);
        Ok(out)
    }

    /// Precedence climbing over `* / %` (2) and `+ -` (1).
    pub(super) fn calc_level(&mut self, min_prec: u8) -> PResult<Node> {
        let mut lhs = self.parse_unary()?;
        let mut pushes = 0;
        while let Some((func, prec)) = calc_operator(self.cur()) {
            if prec < min_prec {
                break;
            }
            let op = self.advance();
            pushes += 1;
            self.enter(Rule::Calc)?;
            self.enter(Rule::Calc)?;
            let rhs = self.calc_level(prec + 1)?;
            self.leave(Rule::Calc, 1);
            let depth = 1 + max_depth([&lhs, &rhs]);
            lhs = Self::counted(Node::call(func, vec![lhs, rhs], op.start, depth))?;
        }
        self.leave(Rule::Calc, pushes);
        Ok(lhs)
    }

    /// `unary : member | '!'+ member | '-'+ member`
    pub(super) fn parse_unary(&mut self) -> PResult<Node> {
        match self.cur() {
            Tk::Bang => {
                let first = self.tok(0).start;
                let mut count = 0usize;
                while self.cur() == Tk::Bang {
                    self.advance();
                    count += 1;
                }
                match self.cur() {
                    Tk::Minus => {
                        if !matches!(self.peek(), Tk::Int | Tk::Float) {
                            return Err(self.no_viable(self.pos, self.pos + 1));
                        }
                    }
                    t if MEMBER_START.has(t) => {}
                    _ => {
                        let t = self.tok(0);
                        return Err(self.syntax(
                            t,
                            format!(
                                "extraneous input {} expecting {}",
                                self.display(t),
                                EXPR_START.display()
                            ),
                        ));
                    }
                }
                let m = self.parse_member()?;
                Ok(if count % 2 == 1 {
                    let depth = m.depth;
                    Node::call("!_", vec![m], first, depth)
                } else {
                    m
                })
            }
            Tk::Minus => {
                let first_index = self.pos;
                let first = self.tok(0).start;
                let mut count = 0usize;
                while self.tok(count).kind == Tk::Minus {
                    count += 1;
                }
                let next = self.tok(count).kind;
                if count == 1 && matches!(next, Tk::Int | Tk::Float) {
                    // A negative numeric literal.
                    return self.parse_member();
                }
                if !MEMBER_START.has(next) {
                    return Err(self.no_viable(first_index, first_index + count));
                }
                for _ in 0..count {
                    self.advance();
                }
                let m = self.parse_member()?;
                Ok(if count % 2 == 1 {
                    let depth = m.depth;
                    Node::call("-_", vec![m], first, depth)
                } else {
                    m
                })
            }
            t if MEMBER_START.has(t) => self.parse_member(),
            _ => Err(self.sync_error(EXPR_START)),
        }
    }

    /// `member : primary ('.' IDENT ('(' args ')')? | '[' expr ']' | '{' fields '}')*`
    pub(super) fn parse_member(&mut self) -> PResult<Node> {
        self.enter(Rule::Member)?;
        let mut e = self.parse_primary()?;
        let mut pushes = 0;
        loop {
            match self.cur() {
                Tk::Dot => {
                    let dot = self.advance();
                    pushes += 1;
                    self.enter(Rule::Member)?;
                    let follow = self.after_member().with(TokSet::of(&[Tk::LParen]));
                    let id = self.expect(Tk::Ident, follow)?;
                    let name = self.text(id);
                    if self.cur() == Tk::LParen {
                        let open = self.advance();
                        let (args, close) = self.parse_call_args()?;
                        let depth = 1 + e.depth.max(max_depth(&args));
                        let node = self.receiver_call_or_macro(&name, e, args, open.start, depth);
                        if let Some(stop) = close {
                            return Err(stop);
                        }
                        e = Self::counted(node)?;
                    } else {
                        let depth = 1 + e.depth;
                        e = Self::counted(Node::new(
                            Kind::Select {
                                operand: Box::new(e),
                                field: name,
                                test_only: false,
                            },
                            dot.start,
                            depth,
                        ))?;
                    }
                }
                Tk::LBracket => {
                    let open = self.advance();
                    pushes += 1;
                    self.enter(Rule::Member)?;
                    self.follow.push(TokSet::of(&[Tk::RBracket]));
                    let index = self.parse_expr()?;
                    self.follow.pop();
                    let follow = self.after_member();
                    self.expect(Tk::RBracket, follow)?;
                    let depth = 1 + max_depth([&e, &index]);
                    e = Self::counted(Node::call("_[_]", vec![e, index], open.start, depth))?;
                }
                Tk::LBrace => {
                    let open = self.advance();
                    pushes += 1;
                    self.enter(Rule::Member)?;
                    e = self.parse_message(e, open.start)?;
                }
                _ => break,
            }
        }
        self.leave(Rule::Member, 1 + pushes);
        Ok(e)
    }

    /// Arguments after an opening parenthesis; a failure at the closing
    /// parenthesis is returned separately so macros still see the arguments.
    pub(super) fn parse_call_args(&mut self) -> PResult<(Vec<Node>, Option<Stop>)> {
        self.follow.push(TokSet::of(&[Tk::Comma, Tk::RParen]));
        let mut args = Vec::new();
        let cur = self.cur();
        if cur != Tk::RParen {
            if !EXPR_START.has(cur) {
                return Err(self.sync_error(EXPR_START.with(TokSet::of(&[Tk::RParen]))));
            }
            loop {
                args.push(self.parse_expr()?);
                if self.cur() == Tk::Comma {
                    self.advance();
                } else {
                    break;
                }
            }
        }
        self.follow.pop();
        let follow = self.after_member();
        let close = self.expect(Tk::RParen, follow).err();
        Ok((args, close))
    }

    /// `member '{' (IDENT ':' expr (',' IDENT ':' expr)*)? ','? '}'`
    pub(super) fn parse_message(&mut self, target: Node, brace: usize) -> PResult<Node> {
        let name = qualified_name(&target);
        if name.is_none() {
            self.errors
                .push(Diag::at(target.pos, "expected a qualified name"));
        }
        let mark = self.errors.len();
        let start_set = TokSet::of(&[Tk::RBrace, Tk::Comma, Tk::Ident]);
        if !start_set.has(self.cur()) {
            return Err(self.sync_error(start_set));
        }
        let mut fields = Vec::new();
        if self.cur() == Tk::Ident {
            loop {
                self.advance();
                self.expect(Tk::Colon, EXPR_START)?;
                self.follow.push(TokSet::of(&[Tk::Comma, Tk::RBrace]));
                fields.push(self.parse_expr()?);
                self.follow.pop();
                if self.cur() == Tk::Comma && self.peek() == Tk::Ident {
                    self.advance();
                } else {
                    break;
                }
            }
        }
        self.close_aggregate(Tk::RBrace)?;
        let Some(name) = name else {
            self.errors.truncate(mark);
            return Ok(Node::error(brace));
        };
        let depth = target.depth.max(max_depth(&fields));
        Ok(Node::new(Kind::Message { name, fields }, brace, depth))
    }

    /// The optional trailing comma and the closing token of a list, map or
    /// message literal.
    pub(super) fn close_aggregate(&mut self, close: Tk) -> PResult<()> {
        if self.cur() == Tk::Comma {
            self.advance();
        } else if self.cur() != close {
            return Err(self.sync_error(TokSet::of(&[close, Tk::Comma])));
        }
        let follow = self.after_member();
        self.expect(close, follow)?;
        Ok(())
    }

    pub(super) fn parse_primary(&mut self) -> PResult<Node> {
        match self.cur() {
            Tk::Dot | Tk::Ident => self.parse_ident_or_call(),
            Tk::LParen => {
                self.advance();
                self.follow.push(TokSet::of(&[Tk::RParen]));
                let e = self.parse_expr()?;
                self.follow.pop();
                let follow = self.after_member();
                self.expect(Tk::RParen, follow)?;
                Ok(e)
            }
            Tk::LBracket => {
                let open = self.advance();
                let start_set = EXPR_START.with(TokSet::of(&[Tk::Comma, Tk::RBracket]));
                if !start_set.has(self.cur()) {
                    return Err(self.sync_error(start_set));
                }
                let mut elems = Vec::new();
                if EXPR_START.has(self.cur()) {
                    self.follow.push(TokSet::of(&[Tk::Comma, Tk::RBracket]));
                    loop {
                        elems.push(self.parse_expr()?);
                        if self.cur() == Tk::Comma && EXPR_START.has(self.peek()) {
                            self.advance();
                        } else {
                            break;
                        }
                    }
                    self.follow.pop();
                }
                self.close_aggregate(Tk::RBracket)?;
                let depth = max_depth(&elems);
                Ok(Node::new(Kind::List(elems), open.start, depth))
            }
            Tk::LBrace => {
                let open = self.advance();
                let start_set = EXPR_START.with(TokSet::of(&[Tk::Comma, Tk::RBrace]));
                if !start_set.has(self.cur()) {
                    return Err(self.sync_error(start_set));
                }
                let mut entries = Vec::new();
                if EXPR_START.has(self.cur()) {
                    loop {
                        self.follow.push(TokSet::of(&[Tk::Colon]));
                        let key = self.parse_expr()?;
                        self.follow.pop();
                        self.expect(Tk::Colon, EXPR_START)?;
                        self.follow.push(TokSet::of(&[Tk::Comma, Tk::RBrace]));
                        let value = self.parse_expr()?;
                        self.follow.pop();
                        entries.push((key, value));
                        if self.cur() == Tk::Comma && EXPR_START.has(self.peek()) {
                            self.advance();
                        } else {
                            break;
                        }
                    }
                }
                self.close_aggregate(Tk::RBrace)?;
                let depth = entries
                    .iter()
                    .map(|(k, v)| k.depth.max(v.depth))
                    .max()
                    .unwrap_or(0);
                Ok(Node::new(Kind::Map(entries), open.start, depth))
            }
            Tk::Minus if matches!(self.peek(), Tk::Int | Tk::Float) => {
                let sign = self.advance();
                Ok(self.literal(Some(sign.start)))
            }
            Tk::Int
            | Tk::Uint
            | Tk::Float
            | Tk::Str
            | Tk::Bytes
            | Tk::True
            | Tk::False
            | Tk::Null => Ok(self.literal(None)),
            _ => Err(self.sync_error(EXPR_START)),
        }
    }

    /// `'.'? IDENT ('(' args ')')?`
    pub(super) fn parse_ident_or_call(&mut self) -> PResult<Node> {
        let start = self.tok(0).start;
        let leading_dot = self.cur() == Tk::Dot;
        let id = if leading_dot {
            self.advance();
            let follow = self.after_member().with(TokSet::of(&[Tk::LParen]));
            self.expect(Tk::Ident, follow)?
        } else {
            self.advance()
        };
        let raw = self.text(id);
        let name = if leading_dot {
            format!(".{raw}")
        } else {
            raw.clone()
        };
        let reserved = RESERVED.contains(&raw.as_str());
        if reserved {
            self.errors
                .push(Diag::at(start, format!("reserved identifier: {raw}")));
        }
        if self.cur() != Tk::LParen {
            return Ok(if reserved {
                Node::error(id.start)
            } else {
                Node::ident(&name, id.start)
            });
        }
        let open = self.advance();
        let mark = self.errors.len();
        let (args, close) = self.parse_call_args()?;
        let node = if reserved {
            // cel-go does not visit the arguments of a reserved name.
            self.errors.truncate(mark);
            Node::error(open.start)
        } else {
            self.global_call_or_macro(&name, args, open.start)
        };
        match close {
            Some(stop) => Err(stop),
            None => Ok(node),
        }
    }

    pub(super) fn literal(&mut self, sign: Option<usize>) -> Node {
        let t = self.advance();
        let pos = sign.unwrap_or(t.start);
        let text = self.text(t);
        let negative = if sign.is_some() { "-" } else { "" };
        let (kind, problem) = match t.kind {
            Tk::Int => {
                let (digits, radix) = match text.strip_prefix("0x") {
                    Some(hex) => (hex, 16),
                    None => (text.as_str(), 10),
                };
                let ok = i64::from_str_radix(&format!("{negative}{digits}"), radix).is_ok();
                (
                    Kind::Literal(Ty::Int),
                    (!ok).then_some("invalid int literal"),
                )
            }
            Tk::Uint => {
                let body = &text[..text.len().saturating_sub(1)];
                let (digits, radix) = match body.strip_prefix("0x") {
                    Some(hex) => (hex, 16),
                    None => (body, 10),
                };
                let ok = u64::from_str_radix(digits, radix).is_ok();
                (
                    Kind::Literal(Ty::Uint),
                    (!ok).then_some("invalid uint literal"),
                )
            }
            Tk::Float => {
                let ok = format!("{negative}{text}")
                    .parse::<f64>()
                    .is_ok_and(f64::is_finite);
                (
                    Kind::Literal(Ty::Double),
                    (!ok).then_some("invalid double literal"),
                )
            }
            Tk::Str => (Kind::Literal(Ty::Str), check_unescape(&text, false).err()),
            Tk::Bytes => (
                Kind::Literal(Ty::Bytes),
                check_unescape(&text[1..], true).err(),
            ),
            Tk::True | Tk::False => (Kind::Literal(Ty::Bool), None),
            _ => (Kind::Literal(Ty::Null), None),
        };
        if let Some(msg) = problem {
            self.errors.push(Diag::at(pos, msg));
            return Node::error(pos);
        }
        Node::new(kind, pos, 0)
    }
}

/// cel-go's balanced tree for a chain of `&&` or `||`: `ops[i]` sits between
/// `terms[i]` and `terms[i + 1]`.
pub(super) fn balance(
    terms: &mut [Option<Node>],
    ops: &[usize],
    func: &str,
    lo: usize,
    hi: usize,
) -> Node {
    let mid = (lo + hi).div_ceil(2);
    let left = if mid == lo {
        take_term(terms, mid, ops[mid])
    } else {
        balance(terms, ops, func, lo, mid - 1)
    };
    let right = if mid == hi {
        take_term(terms, mid + 1, ops[mid])
    } else {
        balance(terms, ops, func, mid + 1, hi)
    };
    let depth = max_depth([&left, &right]);
    Node::call(func, vec![left, right], ops[mid], depth)
}

pub(super) fn take_term(terms: &mut [Option<Node>], i: usize, pos: usize) -> Node {
    terms
        .get_mut(i)
        .and_then(Option::take)
        .unwrap_or_else(|| Node::error(pos))
}

pub(super) fn relation_function(kind: Tk) -> Option<&'static str> {
    Some(match kind {
        Tk::Eq => "_==_",
        Tk::Ne => "_!=_",
        Tk::Lt => "_<_",
        Tk::Le => "_<=_",
        Tk::Gt => "_>_",
        Tk::Ge => "_>=_",
        Tk::In => "@in",
        _ => return None,
    })
}

pub(super) fn calc_operator(kind: Tk) -> Option<(&'static str, u8)> {
    Some(match kind {
        Tk::Star => ("_*_", 2),
        Tk::Slash => ("_/_", 2),
        Tk::Percent => ("_%_", 2),
        Tk::Plus => ("_+_", 1),
        Tk::Minus => ("_-_", 1),
        _ => return None,
    })
}
