//! Replays every input the fuzz targets found a problem with
//! (`testdata/fuzz/<target>/<name>`) and the committed seeds
//! (`fuzz/seeds/<target>/`) through the same code the `cargo fuzz` targets
//! run, on stable Rust. Inputs in `testdata/fuzz/<target>/handed-over/` are
//! problems in code being rewritten elsewhere: kept with their stack traces,
//! not replayed.

#[path = "../fuzz/src/lib.rs"]
mod harness;

use std::path::{Path, PathBuf};

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn replay(base: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(base);
    let mut failed = Vec::new();
    let mut count = 0;
    for (target, run) in harness::TARGETS {
        for input in inputs(&root.join(target)) {
            let bytes = std::fs::read(&input).expect("read a fuzz input");
            count += 1;
            if std::panic::catch_unwind(|| run(&bytes)).is_err() {
                failed.push(input.display().to_string());
            }
        }
    }
    assert!(failed.is_empty(), "fuzz inputs that fail: {failed:#?}");
    count
}

#[test]
fn fuzz_findings_stay_fixed() {
    replay("testdata/fuzz");
}

#[test]
fn fuzz_seeds_pass() {
    assert!(replay("fuzz/seeds") >= harness::TARGETS.len());
}

#[test]
fn fuzz_inputs_split_into_safe_files() {
    let files = harness::split_files(b"lead\0FILE:../a/./b\nx\0FILE:/\ny\0FILE:c d\n", "d.yaml");
    let names: Vec<(String, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.display().to_string(), *b))
        .collect();
    assert_eq!(
        names,
        [
            ("d.yaml".to_string(), &b"lead"[..]),
            ("a/b".to_string(), &b"x"[..]),
            ("d.yaml".to_string(), &b"y"[..]),
            ("c_d".to_string(), &b""[..]),
        ]
    );
}
