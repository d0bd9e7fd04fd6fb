//! What tests need from outside the repository: the shared conformance kit
//! and corpus (`../shared` beside the repository, or `$OPM_SHARED`), and
//! system tools. A test that finds one missing says so in one line on stderr
//! and passes; with `OPM_TEST_ALL=1` (set by CI) it fails instead, so nothing
//! is skipped where everything is meant to run.
//!
//! One file for both test crates: the library's unit tests declare it as a
//! module, `tests/util` includes it by path.
#![allow(
    dead_code,
    reason = "one file for two test crates, and each uses only part of it"
)]

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The environment variable that turns every skip into a failure.
pub(crate) const TEST_ALL: &str = "OPM_TEST_ALL";

/// Where the shared kit is: `$OPM_SHARED`, else `../shared` beside the
/// repository.
pub(crate) fn shared_root() -> PathBuf {
    match std::env::var_os("OPM_SHARED") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    }
}

/// `relative` inside the shared kit (`"conformance/cases/init"`,
/// `"corpus/fbc"`), or `None` after saying the calling test is skipped.
pub(crate) fn shared(relative: &str) -> Option<PathBuf> {
    let path = shared_root().join(relative);
    if path.exists() {
        return Some(path);
    }
    skip(&format!(
        "needs the shared kit: {} not found (set OPM_SHARED to the kit's directory)",
        path.display()
    ));
    None
}

/// Whether `tool` is on `PATH`.
pub(crate) fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
}

/// Whether `tool` is on `PATH`; if not, says the calling test is skipped
/// (and how to install it).
pub(crate) fn have_tool(tool: &str, package: &str) -> bool {
    let found = on_path(tool);
    if !found {
        skip(&format!(
            "needs `{tool}` (apt-get install {package}; scripts/test installs it when run as root)"
        ));
    }
    found
}

/// Says on stderr, in one line, that the calling test is skipped and why
/// (the caller then returns); panics instead when `OPM_TEST_ALL` is set.
///
/// Written to the stderr stream itself, not through `eprintln!`, so that
/// the test harness does not capture it: a skip is always visible.
pub(crate) fn skip(reason: &str) {
    let test = std::thread::current()
        .name()
        .filter(|name| *name != "main")
        .unwrap_or("a test")
        .to_string();
    if std::env::var_os(TEST_ALL).is_some_and(|v| !v.is_empty() && v != "0") {
        panic!("{test} cannot run: {reason} ({TEST_ALL} is set, so nothing may be skipped)");
    }
    let _ = writeln!(std::io::stderr(), "skipped {test}: {reason}");
}

/// A temporary directory holding `files`: each a path relative to it (parent directories are
/// created) and its contents.
pub(crate) fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, contents) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }
    dir
}

/// `count` strings of fewer than `max_len` pieces of `alphabet`, drawn by a xorshift generator
/// started at `seed`: odd but reproducible input for tests that a parser never panics and
/// round-trips what it accepts.
pub(crate) fn random_strings(
    seed: u64,
    alphabet: &[&str],
    max_len: u64,
    count: usize,
) -> Vec<String> {
    let mut seed = seed;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    (0..count)
        .map(|_| {
            let len = next() % max_len;
            (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect()
        })
        .collect()
}
