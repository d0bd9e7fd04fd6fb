#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line benchmark tool"
)]
//! Benchmark baseline: read every file of a catalog directory and JSON-parse
//! each document once (no validation, no output), on one thread. The
//! benchmark compares `opm validate` and `opm render` against this.

use std::time::Instant;

fn main() {
    let Some(root) = std::env::args().nth(1) else {
        eprintln!("usage: parse_baseline DIR");
        std::process::exit(2);
    };
    let start = Instant::now();
    let mut documents = 0usize;
    let mut bytes = 0usize;
    for entry in walkdir::WalkDir::new(&root).sort_by_file_name() {
        let entry = entry.expect("walk");
        if !entry.file_type().is_file() {
            continue;
        }
        let data = std::fs::read(entry.path()).expect("read");
        bytes += data.len();
        let stream = serde_json::Deserializer::from_slice(&data).into_iter::<serde_json::Value>();
        for value in stream {
            let value = value.expect("every benchmark file is a JSON stream");
            std::hint::black_box(&value);
            documents += 1;
        }
    }
    println!(
        "{documents} documents, {} MB, parsed in {:.3} s",
        bytes / 1_000_000,
        start.elapsed().as_secs_f64()
    );
}
