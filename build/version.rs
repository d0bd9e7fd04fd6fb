//! What `opm version` reports about the build, as compile-time environment
//! variables: `OPM_GIT_COMMIT` (the commit checked out, asked of git when the
//! sources are a git checkout and git is installed; "unknown" otherwise, as
//! in a source tarball), `OPM_BUILD_DATE` (UTC, ISO 8601; `SOURCE_DATE_EPOCH`
//! makes it reproducible), `OPM_TOOLCHAIN` (`rustc -V`) and `OPM_TARGET` (the
//! target triple built for, e.g. `x86_64-unknown-linux-musl`). Packagers may set
//! `OPM_GIT_COMMIT` and `OPM_BUILD_DATE` themselves. Nothing here can fail
//! the build.

use std::path::{Path, PathBuf};

#[path = "../src/encoding/civil.rs"]
mod civil;
use std::process::Command;

pub fn emit() {
    for variable in ["OPM_GIT_COMMIT", "OPM_BUILD_DATE", "SOURCE_DATE_EPOCH"] {
        println!("cargo:rerun-if-env-changed={variable}");
    }
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let commit = given("OPM_GIT_COMMIT")
        .unwrap_or_else(|| git_commit(&manifest_dir).unwrap_or_else(|| "unknown".to_string()));
    let date = given("OPM_BUILD_DATE").unwrap_or_else(build_date);
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let toolchain = output(Command::new(rustc).arg("-V")).unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=OPM_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=OPM_BUILD_DATE={date}");
    println!("cargo:rustc-env=OPM_TOOLCHAIN={toolchain}");
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".to_string());
    println!("cargo:rustc-env=OPM_TARGET={target}");
}

/// A non-empty environment variable.
fn given(variable: &str) -> Option<String> {
    std::env::var(variable)
        .ok()
        .filter(|value| !value.is_empty())
}

/// The trimmed stdout of a command that succeeded.
fn output(command: &mut Command) -> Option<String> {
    let out = command.output().ok().filter(|out| out.status.success())?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// The commit of the checkout at `dir`, and the files that say when it
/// changes (HEAD, the branch it points to, packed refs) for cargo to watch.
fn git_commit(dir: &Path) -> Option<String> {
    // Reading the commit is safe in a checkout someone else owns (a clone
    // made by root, built by another user): say so, or git refuses.
    let safe = format!("safe.directory={}", dir.display());
    let git = |args: &[&str]| {
        output(
            Command::new("git")
                .arg("-c")
                .arg(&safe)
                .arg("-C")
                .arg(dir)
                .args(args),
        )
    };
    let commit = git(&["rev-parse", "--verify", "HEAD"])?;
    for file in ["HEAD", "packed-refs"] {
        if let Some(path) = git(&["rev-parse", "--path-format=absolute", "--git-path", file]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(path) = git(&["rev-parse", "--path-format=absolute", "--git-path", &branch]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    Some(commit)
}

/// Now, or `SOURCE_DATE_EPOCH`, as `2006-01-02T15:04:05Z`.
fn build_date() -> String {
    let seconds = given("SOURCE_DATE_EPOCH")
        .and_then(|epoch| epoch.parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| elapsed.as_secs() as i64)
        });
    civil::format_utc(seconds)
}
