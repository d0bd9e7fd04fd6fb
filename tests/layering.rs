//! The modules of `src/` depend on each other one way only (ARCHITECTURE.md draws it): each
//! top-level module sits in a layer and names (`crate::…`) only modules of lower layers, so
//! there is no import cycle. A new module must be given its layer here.

use std::collections::BTreeMap;
use std::path::Path;

/// The layers, lowest first. A module may use the modules of any lower layer, none of its own
/// layer or above.
const LAYERS: &[&[&str]] = &[
    &["cel", "gosort", "output", "testkit"],
    &["encoding"],
    &["fsutil", "property", "semver"],
    &["diag"],
    &["declcfg"],
    &["image"],
    &["model"],
    &["bundle"],
    &["validate"],
    &["serve", "template"],
    &["action"],
    &["cli"],
    &["commands", "probe"],
];

/// The crate root files, which wire everything together and may use any module.
const ROOTS: &[&str] = &["lib", "main"];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The top-level module a file below `src/` belongs to (`cel` for `cel.rs`, `diag` for
/// `diag/sarif.rs`).
fn module_of(relative: &str) -> &str {
    let first = relative.split('/').next().unwrap_or(relative);
    first.strip_suffix(".rs").unwrap_or(first)
}

/// The modules a source text names through `crate::`, with the 1-based line of each use.
/// Comment lines are passed over (doc comments may mention any module).
fn uses(text: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            let tail = &rest[at + "crate::".len()..];
            let name: String = tail
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.push((name, number + 1));
            }
            rest = tail;
        }
    }
    found
}

/// Every use that breaks the layering, as `file:line: from -> to (why)`, for `files` given as
/// (path relative to `src/`, text).
fn violations(files: &[(String, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (relative, text) in files {
        let from = module_of(relative);
        if ROOTS.contains(&from) {
            continue;
        }
        let Some(from_layer) = layer_of(from) else {
            problems.push(format!("{relative}: module `{from}` has no layer"));
            continue;
        };
        for (to, line) in uses(text) {
            if to == from {
                continue;
            }
            match layer_of(&to) {
                None => problems.push(format!(
                    "{relative}:{line}: {from} -> {to} (`{to}` has no layer)"
                )),
                Some(to_layer) if to_layer >= from_layer => problems.push(format!(
                    "{relative}:{line}: {from} -> {to} (layer {from_layer} may use only layers below it; `{to}` is in layer {to_layer})"
                )),
                Some(_) => {}
            }
        }
    }
    problems
}

fn read_tree(dir: &Path, base: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_tree(&path, base, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            let relative = path
                .strip_prefix(base)
                .expect("below src")
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
            out.push((relative, text));
        }
    }
}

#[test]
fn src_modules_depend_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    read_tree(&src, &src, &mut files);
    assert!(
        files.len() > 50,
        "read only {} files below src/",
        files.len()
    );
    let problems = violations(&files);
    assert!(
        problems.is_empty(),
        "layering broken:\n{}",
        problems.join("\n")
    );
    // Every layer names a module that exists, so the table does not rot.
    let modules: BTreeMap<&str, ()> = files.iter().map(|(f, _)| (module_of(f), ())).collect();
    for module in LAYERS.iter().flat_map(|layer| layer.iter()) {
        assert!(modules.contains_key(module), "no module `{module}` in src/");
    }
}

#[test]
fn an_upward_or_sideways_use_is_reported() {
    let files = vec![
        (
            "diag/mod.rs".to_string(),
            "use crate::encoding::json;\nuse crate::declcfg::Origin;\n".to_string(),
        ),
        (
            "serve/mod.rs".to_string(),
            "// crate::action in a comment is fine\nfn f() { crate::template::x(); }\n".to_string(),
        ),
        ("newmod.rs".to_string(), "fn f() {}\n".to_string()),
        ("cel.rs".to_string(), "use crate::nowhere::X;\n".to_string()),
        (
            "lib.rs".to_string(),
            "use crate::commands::x;\n".to_string(),
        ),
    ];
    let problems = violations(&files);
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(problems[0].starts_with("diag/mod.rs:2: diag -> declcfg"));
    assert!(problems[1].starts_with("serve/mod.rs:2: serve -> template"));
    assert_eq!(problems[2], "newmod.rs: module `newmod` has no layer");
    assert!(problems[3].starts_with("cel.rs:1: cel -> nowhere"));
}
