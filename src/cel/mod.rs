//! Compile-time checking of the CEL (Common Expression Language) rules in
//! `olm.constraint` dependencies, as `opm bundle validate` does it with cel-go.
//!
//! The environment is the one operator-registry declares: a single variable
//! `properties` of type `list(map(string, any))`, the standard CEL functions,
//! operators and macros, and `semver_compare(any, any) -> int`. A rule is
//! accepted when it parses, type-checks, and its result type is `bool`.
//!
//! Errors are rendered like cel-go's `Issues.Err()` text: one
//! `ERROR: <input>:LINE:COL: MESSAGE` line per problem (sorted by position),
//! each followed by the offending source line and a caret line.
//!
//! The lexer follows the CEL ANTLR grammar (longest match, ANTLR's recovery
//! after an unrecognised character); the parser is recursive descent and
//! reports the first syntax error the way ANTLR's default error strategy words
//! it ("mismatched input", "extraneous input", "missing", "no viable
//! alternative"). Non-syntax parser errors (reserved identifiers, macro
//! arguments, literal ranges) and checker errors use cel-go's wording.
//!
//! One submodule a stage: `lex` (tokens), `parse` (into the `ast`), `check` (the
//! environment's declarations and the type checker, over `types`); `diag` renders the
//! errors.

mod ast;
mod check;
mod diag;
mod lex;
mod parse;
#[cfg(test)]
mod tests;
mod types;

use check::Checker;
use diag::{render, Diag};
use lex::lex;
use parse::{Parser, Stop};
use types::{substitute, Ty};

/// cel-go's default parser recursion limit.
const MAX_RECURSION: usize = 250;
/// cel-go's default expression size limit, in code points.
const MAX_CODE_POINTS: usize = 100_000;
/// cel-go reports at most this many errors.
const MAX_ERRORS: usize = 100;
/// Guard for the recursive type algorithms (types nest no deeper than the AST).
const MAX_TYPE_DEPTH: usize = 4096;

/// Why a constraint rule is not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CelError {
    /// Problems found while parsing or checking: cel-go's `Issues.Err()`
    /// text, one `ERROR: <input>:LINE:COL: MESSAGE` entry per problem.
    #[error("{0}")]
    Issues(String),
    /// A well-formed expression whose result is not a bool.
    #[error("cel expressions must have type Bool")]
    NotBool,
    /// The checking thread failed.
    #[error("ERROR: <input>:-1:0: internal error while checking the expression")]
    Internal,
}

/// Checks a constraint rule: it must parse as CEL, use only the declared
/// variable (`properties`) and functions/macros (standard CEL operators and
/// functions, macros `has`, `all`, `exists`, `exists_one`, `map`, `filter`,
/// plus `semver_compare`), and be of type bool where that is statically
/// known.
pub fn check_constraint_rule(rule: &str) -> Result<(), CelError> {
    // The parser and checker recurse once per nesting level (cel-go allows 250
    // levels); a dedicated thread gives them a stack that is ample even for
    // unoptimised builds. Only the pages actually used are committed.
    let owned = rule.to_owned();
    let spawned = std::thread::Builder::new()
        .name("cel-check".into())
        .stack_size(CHECK_STACK_BYTES)
        .spawn(move || check_rule(&owned));
    match spawned {
        Ok(handle) => handle.join().unwrap_or(Err(CelError::Internal)),
        Err(_) => check_rule(rule),
    }
}

/// Stack for the checking thread.
const CHECK_STACK_BYTES: usize = 64 << 20;

fn check_rule(rule: &str) -> Result<(), CelError> {
    let src: Vec<char> = rule.chars().collect();
    if src.len() > MAX_CODE_POINTS {
        let msg = format!(
            "expression code point size exceeds limit: size: {}, limit {}",
            src.len(),
            MAX_CODE_POINTS
        );
        return Err(issues(&src, vec![Diag::nowhere(msg)]));
    }
    let (tokens, mut diags) = lex(&src);
    let mut parser = Parser::new(&src, tokens);
    let parsed = parser.parse_start();
    diags.append(&mut parser.errors);
    let ast = match parsed {
        Err(Stop::Syntax(diag)) => {
            diags.push(diag);
            return Err(issues(&src, diags));
        }
        Err(Stop::Limit(msg)) => {
            diags.push(Diag::nowhere(msg.to_string()));
            return Err(issues(&src, diags));
        }
        Ok(ast) => ast,
    };
    if !diags.is_empty() {
        return Err(issues(&src, diags));
    }
    let mut checker = Checker::new();
    let ty = checker.check(&ast);
    if !checker.errors.is_empty() {
        return Err(issues(&src, checker.errors));
    }
    if substitute(&checker.subst, &ty, true, 0) == Ty::Bool {
        Ok(())
    } else {
        Err(CelError::NotBool)
    }
}

fn issues(src: &[char], diags: Vec<Diag>) -> CelError {
    CelError::Issues(render(src, diags))
}
