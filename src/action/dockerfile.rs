//! Pure text part of `opm generate dockerfile`: where the Dockerfile goes,
//! how `-l/--extra-labels` values are parsed, and the Dockerfile itself.
//!
//! Mirrors upstream `cmd/opm/generate` (`newDockerfileCmd`, `parseLabels`)
//! and `alpha/action.GenerateDockerfile` (HEAD template), with the
//! project's fix for `.`-like directory arguments.

use crate::encoding::json::go_quote;
use crate::fsutil::{write_new_file, WriteError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where the Dockerfile goes and what the ADD line names, from the user's directory argument:
/// lexical clean, parent + last element (`./cat/` → `cat.Dockerfile`); when the last element
/// is `.` or `..`, the directory's real name (from the absolute path) is used and the file
/// goes next to that directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DockerfileTarget {
    /// Path of the Dockerfile to create (relative to the working directory
    /// when the argument is relative).
    pub dockerfile_path: PathBuf,
    /// The directory name used in `ADD <dir_name> /configs`.
    pub dir_name: String,
}

/// Computes the Dockerfile location for `dir_arg`, resolving `.`/`..` against `cwd`.
pub fn target_for(dir_arg: &str, cwd: &Path) -> DockerfileTarget {
    // Upstream: filepath.Clean, filepath.Split, Join(dir, name+".Dockerfile").
    let cleaned = clean(dir_arg);
    let (dir, name) = split(&cleaned);
    if !name.is_empty() && name != "." && name != ".." {
        return DockerfileTarget {
            dockerfile_path: PathBuf::from(format!("{dir}{name}.Dockerfile")),
            dir_name: name.to_string(),
        };
    }
    // Upstream would write `..Dockerfile` with `ADD . /configs` (or worse for
    // `..`); the project names the directory by its absolute path instead
    // and puts the file in that directory's parent, the build context.
    let abs = if cleaned.starts_with('/') {
        cleaned.clone()
    } else {
        clean(&format!("{}/{}", cwd.to_string_lossy(), cleaned))
    };
    let (_, base) = split(&abs);
    if base.is_empty() {
        // The filesystem root has no parent: keep the file in the root and
        // add the whole context.
        return DockerfileTarget {
            dockerfile_path: PathBuf::from("/.Dockerfile"),
            dir_name: ".".to_string(),
        };
    }
    let path = if cleaned.starts_with('/') {
        let (parent, _) = split(&abs);
        format!("{parent}{base}.Dockerfile")
    } else {
        clean(&format!("{cleaned}/../{base}.Dockerfile"))
    };
    DockerfileTarget {
        dockerfile_path: PathBuf::from(path),
        dir_name: base.to_string(),
    }
}

/// Go `filepath.Split` on a cleaned path: everything up to and including
/// the last `/`, and the rest.
fn split(path: &str) -> (&str, &str) {
    match path.rfind('/') {
        Some(i) => (&path[..=i], &path[i + 1..]),
        None => ("", path),
    }
}

/// Go `filepath.Clean` (Unix): purely lexical.
fn clean(path: &str) -> String {
    if path.is_empty() {
        return ".".to_string();
    }
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for comp in path.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// Parses repeated `-l/--extra-labels` values: each value split on commas with CSV rules (Go encoding/csv, as pflag's StringSlice does: quotes, `""` escapes, a bare quote is an error), then each item at the first `=`; returns sorted unique keys (last wins) or the error text (`invalid label "<item>"`, or the CSV error text pflag gives for a bare quote — see the conformance case).
pub fn parse_labels(values: &[String]) -> Result<BTreeMap<String, String>, LabelError> {
    // pflag parses every flag value before the command runs, so a CSV
    // error anywhere wins over a malformed label anywhere.
    let mut items = Vec::new();
    for value in values {
        match read_csv_record(value) {
            Ok(fields) => items.extend(fields),
            Err(source) => {
                return Err(LabelError::Csv {
                    value: value.clone(),
                    source,
                })
            }
        }
    }
    let mut labels = BTreeMap::new();
    for item in items {
        match item.split_once('=') {
            Some((k, v)) => {
                labels.insert(k.to_string(), v.to_string());
            }
            None => return Err(LabelError::NoEquals(item)),
        }
    }
    Ok(labels)
}

/// Why `-l/--extra-labels` values are refused, as upstream (pflag, then opm) words it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LabelError {
    #[error("invalid argument {} for \"-l, --extra-labels\" flag: {source}", go_quote(.value))]
    Csv { value: String, source: CsvError },
    /// An item without `=`.
    #[error("invalid label {}", go_quote(.0))]
    NoEquals(String),
}

/// An error of Go's `encoding/csv` reader, in its words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CsvError {
    /// No record at all (`io.EOF`).
    #[error("EOF")]
    Eof,
    /// A quote where the strict rules forbid it; `record_line` is where the record started.
    #[error("{}parse error on line {line}, column {column}: {problem}", if .record_line != .line { format!("record on line {record_line}; ") } else { String::new() })]
    Quote {
        record_line: usize,
        line: usize,
        column: usize,
        problem: &'static str,
    },
}

/// pflag `readAsCSV`: an empty value is no items; otherwise the first
/// record of a default `encoding/csv` reader over the value.
fn read_csv_record(value: &str) -> Result<Vec<String>, CsvError> {
    if value.is_empty() {
        return Ok(Vec::new());
    }
    CsvReader {
        data: value.as_bytes(),
        off: 0,
        num_line: 0,
    }
    .read_record()
}

/// Minimal `encoding/csv.Reader` (comma `,`, strict quotes), enough to read
/// one record with the same fields, line/column numbers and error texts.
struct CsvReader<'a> {
    data: &'a [u8],
    off: usize,
    num_line: usize,
}

const ERR_BARE_QUOTE: &str = "bare \" in non-quoted-field";
const ERR_QUOTE: &str = "extraneous or missing \" in quoted-field";

impl<'a> CsvReader<'a> {
    /// `readLine`: the next line with its `\n`; `\r\n` becomes `\n`, a
    /// final `\r` before end of input is dropped. `None` at end of input.
    fn read_line(&mut self) -> Option<Vec<u8>> {
        let rest = &self.data[self.off..];
        let (mut line, eof) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (rest[..=i].to_vec(), false),
            None => (rest.to_vec(), true),
        };
        self.off += line.len();
        self.num_line += 1;
        if line.is_empty() {
            return None;
        }
        if eof && line.last() == Some(&b'\r') {
            line.pop();
        }
        let n = line.len();
        if n >= 2 && line[n - 2] == b'\r' && line[n - 1] == b'\n' {
            line.truncate(n - 1);
            line[n - 2] = b'\n';
        }
        Some(line)
    }

    fn err(start: usize, line: usize, col: usize, problem: &'static str) -> CsvError {
        CsvError::Quote {
            record_line: start,
            line,
            column: col,
            problem,
        }
    }

    /// `readRecord` with `LazyQuotes` and `TrimLeadingSpace` off.
    fn read_record(mut self) -> Result<Vec<String>, CsvError> {
        // Skip empty lines; end of input before any record is io.EOF.
        let mut line = loop {
            match self.read_line() {
                None => return Err(CsvError::Eof),
                Some(l) if l.is_empty() || l == b"\n" => continue,
                Some(l) => break l,
            }
        };
        let rec_line = self.num_line;
        let (mut pos_line, mut pos_col) = (self.num_line, 1usize);
        let mut fields: Vec<Vec<u8>> = Vec::new();
        // `at` is the read position inside `line`.
        let mut at = 0usize;
        'field: loop {
            if line.get(at) != Some(&b'"') {
                // Unquoted field: up to the next comma or the end of line.
                let cur = &line[at..];
                let comma = cur.iter().position(|&b| b == b',');
                let field = match comma {
                    Some(i) => &cur[..i],
                    None => cur.strip_suffix(b"\n").unwrap_or(cur),
                };
                if let Some(j) = field.iter().position(|&b| b == b'"') {
                    return Err(Self::err(
                        rec_line,
                        self.num_line,
                        pos_col + j,
                        ERR_BARE_QUOTE,
                    ));
                }
                fields.push(field.to_vec());
                match comma {
                    Some(i) => {
                        at += i + 1;
                        pos_col += i + 1;
                        continue 'field;
                    }
                    None => break 'field,
                }
            }
            // Quoted field, possibly spanning lines.
            let mut buf: Vec<u8> = Vec::new();
            at += 1;
            pos_col += 1;
            loop {
                let cur = &line[at..];
                if let Some(i) = cur.iter().position(|&b| b == b'"') {
                    buf.extend_from_slice(&cur[..i]);
                    at += i + 1;
                    pos_col += i + 1;
                    let rest = &line[at..];
                    if rest.first() == Some(&b'"') {
                        // `""` is an escaped quote.
                        buf.push(b'"');
                        at += 1;
                        pos_col += 1;
                    } else if rest.first() == Some(&b',') {
                        at += 1;
                        pos_col += 1;
                        fields.push(buf);
                        continue 'field;
                    } else if rest.is_empty() || rest == b"\n" {
                        fields.push(buf);
                        break 'field;
                    } else {
                        return Err(Self::err(rec_line, self.num_line, pos_col - 1, ERR_QUOTE));
                    }
                } else if !cur.is_empty() {
                    buf.extend_from_slice(cur);
                    pos_col += cur.len();
                    line = self.read_line().unwrap_or_default();
                    at = 0;
                    if !line.is_empty() {
                        pos_line += 1;
                        pos_col = 1;
                    }
                } else {
                    return Err(Self::err(rec_line, pos_line, pos_col, ERR_QUOTE));
                }
            }
        }
        Ok(fields
            .into_iter()
            .map(|f| String::from_utf8_lossy(&f).into_owned())
            .collect())
    }
}

/// The Dockerfile text (HEAD template, scratch variant when base == "scratch", extra labels block).
pub fn render(
    base_image: &str,
    builder_image: &str,
    dir_name: &str,
    labels: &BTreeMap<String, String>,
) -> String {
    let mut out = String::new();
    out.push_str("# The builder image is expected to contain\n");
    out.push_str("# /bin/opm (with serve subcommand)\n");
    out.push_str(&format!("FROM {builder_image} as builder\n\n"));
    out.push_str("# Copy FBC root into image at /configs and pre-populate serve cache\n");
    out.push_str(&format!("ADD {dir_name} /configs\n"));
    out.push_str(
        "RUN [\"/bin/opm\", \"serve\", \"/configs\", \"--cache-dir=/tmp/cache\", \"--cache-only\"]\n\n",
    );
    out.push_str(&format!("FROM {base_image}\n"));
    if base_image == "scratch" {
        // Binary-less base: the catalog must be served by extracting content.
        out.push_str("# OLMv0 CatalogSources that use binary-less images must set:\n");
        out.push_str("# spec:\n");
        out.push_str("#   grpcPodConfig:\n");
        out.push_str("#     extractContent:\n");
        out.push_str("#       catalogDir: /configs\n");
        out.push_str("#       cacheDir: /tmp/cache\n");
    } else {
        out.push_str("# The base image is expected to contain\n");
        out.push_str("# /bin/opm (with serve subcommand) and /bin/grpc_health_probe\n\n");
        out.push_str("# Configure the entrypoint and command\n");
        out.push_str("ENTRYPOINT [\"/bin/opm\"]\n");
        out.push_str("CMD [\"serve\", \"/configs\", \"--cache-dir=/tmp/cache\"]\n");
    }
    out.push('\n');
    out.push_str("COPY --from=builder /configs /configs\n");
    out.push_str("COPY --from=builder /tmp/cache /tmp/cache\n\n");
    out.push_str("# Set FBC-specific label for the location of the FBC root directory\n");
    out.push_str("# in the image\n");
    out.push_str("LABEL operators.operatorframework.io.index.configs.v1=/configs\n");
    if !labels.is_empty() {
        // Keys and values go in verbatim, in key order (text/template ranges
        // over a map in sorted key order and does not escape).
        out.push_str("\n# Set other custom labels\n");
        for (k, v) in labels {
            out.push_str(&format!("LABEL \"{k}\"=\"{v}\"\n"));
        }
    }
    out
}

/// `opm generate dockerfile`: checks the inputs, then writes the Dockerfile
/// atomically next to the catalog directory, never replacing a file.
#[derive(Debug, Clone)]
pub struct GenerateDockerfile {
    pub dir: String,
    pub base_image: String,
    pub builder_image: String,
    pub extra_labels: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum DockerfileError {
    #[error(transparent)]
    Labels(#[from] LabelError),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("stat {dir}: {}", crate::declcfg::load::io_message(.source))]
    Stat {
        dir: String,
        #[source]
        source: std::io::Error,
    },
    #[error("provided root path {} is not a directory", go_quote(.dir))]
    NotADirectory { dir: String },
    #[error("base image is unset")]
    BaseImageUnset,
    #[error("get working directory: {0}")]
    WorkingDirectory(#[source] std::io::Error),
}

impl GenerateDockerfile {
    /// Writes the Dockerfile and returns its path. On failure nothing is written.
    pub fn run(&self) -> Result<PathBuf, DockerfileError> {
        let labels = parse_labels(&self.extra_labels)?;
        let cwd = std::env::current_dir().map_err(DockerfileError::WorkingDirectory)?;
        let target = target_for(&self.dir, &cwd);
        if target.dockerfile_path.symlink_metadata().is_ok() {
            return Err(WriteError::Exists {
                path: target.dockerfile_path,
            }
            .into());
        }
        match std::fs::metadata(&self.dir) {
            Err(source) => {
                return Err(DockerfileError::Stat {
                    dir: self.dir.clone(),
                    source,
                })
            }
            Ok(meta) if !meta.is_dir() => {
                return Err(DockerfileError::NotADirectory {
                    dir: self.dir.clone(),
                })
            }
            Ok(_) => {}
        }
        // Upstream creates the file before noticing an empty base image; we
        // check first so a failure leaves nothing behind.
        if self.base_image.is_empty() {
            return Err(DockerfileError::BaseImageUnset);
        }
        let text = render(
            &self.base_image,
            &self.builder_image,
            &target.dir_name,
            &labels,
        );
        write_new_file(&target.dockerfile_path, text.as_bytes())?;
        Ok(target.dockerfile_path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CASES: &str = "conformance/cases/generate-dockerfile";
    const DEFAULT_IMAGE: &str = "quay.io/operator-framework/opm:latest";

    /// (case, dir arg, base, builder, `-l` values, expected `out/` file)
    type OutputCase = (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static [&'static str],
        &'static str,
    );

    /// (`-l` values, expected labels or error text)
    type LabelCase = (
        &'static [&'static str],
        Result<&'static [(&'static str, &'static str)], &'static str>,
    );

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn strings(values: &[&str]) -> Vec<String> {
        values.iter().map(|s| s.to_string()).collect()
    }

    /// Every conformance case that writes a Dockerfile: the directory
    /// argument, images, `-l` values, and the expected file under `out/`.
    #[test]
    fn conformance_outputs() {
        let Some(cases_dir) = crate::testkit::shared(CASES) else {
            return;
        };
        let cases: &[OutputCase] = &[
            (
                "base-image-long",
                "catalog",
                "registry.example.com/opm:v1.40",
                DEFAULT_IMAGE,
                &[],
                "catalog.Dockerfile",
            ),
            (
                "base-image-short",
                "catalog",
                "registry.example.com/opm:v1.40",
                DEFAULT_IMAGE,
                &[],
                "catalog.Dockerfile",
            ),
            (
                "base-scratch",
                "catalog",
                "scratch",
                DEFAULT_IMAGE,
                &[],
                "catalog.Dockerfile",
            ),
            (
                "base-scratch-with-labels",
                "catalog",
                "scratch",
                DEFAULT_IMAGE,
                &["a=b"],
                "catalog.Dockerfile",
            ),
            (
                "binary-image-alias",
                "catalog",
                "example.com/my-opm:1",
                "example.com/my-opm:1",
                &[],
                "catalog.Dockerfile",
            ),
            (
                "binary-image-with-builder",
                "catalog",
                "example.com/my-opm:1",
                "example.com/b:2",
                &[],
                "catalog.Dockerfile",
            ),
            (
                "builder-and-base",
                "catalog",
                "example.com/base:2",
                "example.com/b:1",
                &[],
                "catalog.Dockerfile",
            ),
            (
                "builder-image",
                "catalog",
                DEFAULT_IMAGE,
                "registry.example.com/opm-builder:v2",
                &[],
                "catalog.Dockerfile",
            ),
            (
                "content-not-read",
                "catalog",
                DEFAULT_IMAGE,
                DEFAULT_IMAGE,
                &[],
                "catalog.Dockerfile",
            ),
            (
                "defaults",
                "catalog",
                DEFAULT_IMAGE,
                DEFAULT_IMAGE,
                &[],
                "catalog.Dockerfile",
            ),
            (
                "dot-dot-cleaned",
                "other/../catalog",
                DEFAULT_IMAGE,
                DEFAULT_IMAGE,
                &[],
                "catalog.Dockerfile",
            ),
            (
                "labels-comma-split-and-repeat",
                "catalog",
                DEFAULT_IMAGE,
                DEFAULT_IMAGE,
                &["z=1=2,c=d", "a=b"],
                "catalog.Dockerfile",
            ),
            (
                "labels-csv-quoting",
                "catalog",
                DEFAULT_IMAGE,
                DEFAULT_IMAGE,
                &["\"a=1,2\",b=3"],
                "catalog.Dockerfile",
            ),
            (
                "labels-duplicate-last-wins",
                "catalog",
                DEFAULT_IMAGE,
                DEFAULT_IMAGE,
                &["k=first", "k=second", "other=x"],
                "catalog.Dockerfile",
            ),
            (
                "labels-single",
                "catalog",
                DEFAULT_IMAGE,
                DEFAULT_IMAGE,
                &["com.example.team=catalog"],
                "catalog.Dockerfile",
            ),
            (
                "labels-verbatim-values",
                "catalog",
                DEFAULT_IMAGE,
                DEFAULT_IMAGE,
                &[
                    "desc=a value with spaces",
                    "url=https://x.io/a?b=c",
                    "empty=",
                ],
                "catalog.Dockerfile",
            ),
            (
                "nested-path",
                "build/ctx/catalog",
                DEFAULT_IMAGE,
                DEFAULT_IMAGE,
                &[],
                "build/ctx/catalog.Dockerfile",
            ),
            (
                "trailing-slash",
                "./catalog/",
                DEFAULT_IMAGE,
                DEFAULT_IMAGE,
                &[],
                "catalog.Dockerfile",
            ),
        ];
        for (case, arg, base, builder, values, out_file) in cases {
            let target = target_for(arg, Path::new("/work/case/in"));
            assert_eq!(target.dockerfile_path, PathBuf::from(out_file), "{case}");
            let labels = parse_labels(&strings(values)).expect(case);
            let got = render(base, builder, &target.dir_name, &labels);
            let path = cases_dir.join(case).join("out").join(out_file);
            let want = std::fs::read_to_string(path).expect("recorded Dockerfile");
            assert_eq!(got, want, "{case}");
        }
    }

    #[test]
    fn conformance_label_errors() {
        // (case, -l values, expected message)
        let cases: &[(&str, &[&str], &str)] = &[
            ("label-without-equals", &["novalue"], "invalid label \"novalue\""),
            (
                "labels-bare-quote-refused",
                &["q=x\"y"],
                "invalid argument \"q=x\\\"y\" for \"-l, --extra-labels\" flag: parse error on line 1, column 4: bare \" in non-quoted-field",
            ),
        ];
        for (_, values, want) in cases {
            let got = parse_labels(&strings(values)).expect_err(want).to_string();
            assert_eq!(&got, want);
        }
        // The messages are the ones the recorded cases expect.
        let Some(cases_dir) = crate::testkit::shared(CASES) else {
            return;
        };
        for (case, values, _) in cases {
            let got = parse_labels(&strings(values)).expect_err(case).to_string();
            let path = cases_dir.join(case).join("stderr-contains");
            let recorded = std::fs::read_to_string(path).expect("recorded stderr");
            assert!(
                got.contains(recorded.trim_end()),
                "{case}: {got:?} vs {recorded:?}"
            );
        }
    }

    #[test]
    fn targets() {
        // (arg, cwd, dockerfile path, dir name)
        let cases: &[(&str, &str, &str, &str)] = &[
            ("catalog", "/w", "catalog.Dockerfile", "catalog"),
            ("./catalog/", "/w", "catalog.Dockerfile", "catalog"),
            ("catalog//", "/w", "catalog.Dockerfile", "catalog"),
            ("other/../catalog", "/w", "catalog.Dockerfile", "catalog"),
            (
                "build/ctx/catalog",
                "/w",
                "build/ctx/catalog.Dockerfile",
                "catalog",
            ),
            ("/abs/x/cat", "/w", "/abs/x/cat.Dockerfile", "cat"),
            ("/abs/x/cat/", "/w", "/abs/x/cat.Dockerfile", "cat"),
            ("../cat", "/w/in", "../cat.Dockerfile", "cat"),
            (".", "/w/cat", "../cat.Dockerfile", "cat"),
            ("./", "/w/cat", "../cat.Dockerfile", "cat"),
            ("", "/w/cat", "../cat.Dockerfile", "cat"),
            ("..", "/w/cat/in", "../../cat.Dockerfile", "cat"),
            ("../..", "/w/cat/a/b", "../../../cat.Dockerfile", "cat"),
            ("sub/..", "/w/cat", "../cat.Dockerfile", "cat"),
            ("/abs/x/..", "/w", "/abs.Dockerfile", "abs"),
            ("/", "/w", "/.Dockerfile", "."),
            (".", "/", "/.Dockerfile", "."),
        ];
        for (arg, cwd, path, name) in cases {
            let got = target_for(arg, Path::new(cwd));
            assert_eq!(got.dockerfile_path, PathBuf::from(path), "{arg:?} in {cwd}");
            assert_eq!(got.dir_name, *name, "{arg:?} in {cwd}");
        }
    }

    #[test]
    fn clean_matches_go() {
        let cases: &[(&str, &str)] = &[
            ("", "."),
            (".", "."),
            ("./", "."),
            ("a/./b", "a/b"),
            ("a//b/", "a/b"),
            ("a/../..", ".."),
            ("../../a", "../../a"),
            ("/..", "/"),
            ("/../a/", "/a"),
            ("a/b/../../c", "c"),
        ];
        for (input, want) in cases {
            assert_eq!(clean(input), *want, "{input:?}");
        }
    }

    #[test]
    fn label_parsing() {
        let cases: &[LabelCase] = &[
            (&[], Ok(&[])),
            (&[""], Ok(&[])),
            (&["a=b", ""], Ok(&[("a", "b")])),
            (&["a=b,c=d"], Ok(&[("a", "b"), ("c", "d")])),
            (&["a==b"], Ok(&[("a", "=b")])),
            (&["=v"], Ok(&[("", "v")])),
            (&["\"a=\"\"q\"\"\""], Ok(&[("a", "\"q\"")])),
            (&["\"a=x\ny\""], Ok(&[("a", "x\ny")])),
            (&["a=b\nc=d"], Ok(&[("a", "b")])),
            (&["\na=b"], Ok(&[("a", "b")])),
            (&["a=b\r"], Ok(&[("a", "b")])),
            (&["a=b,"], Err("invalid label \"\"")),
            (&["\n"], Err("invalid argument \"\\n\" for \"-l, --extra-labels\" flag: EOF")),
            (
                &["bad", "x\"y"],
                Err("invalid argument \"x\\\"y\" for \"-l, --extra-labels\" flag: parse error on line 1, column 2: bare \" in non-quoted-field"),
            ),
            (
                &["a=1,b\"2"],
                Err("invalid argument \"a=1,b\\\"2\" for \"-l, --extra-labels\" flag: parse error on line 1, column 6: bare \" in non-quoted-field"),
            ),
            (
                &["\"a=1\"x"],
                Err("invalid argument \"\\\"a=1\\\"x\" for \"-l, --extra-labels\" flag: parse error on line 1, column 5: extraneous or missing \" in quoted-field"),
            ),
            (
                &["\"abc"],
                Err("invalid argument \"\\\"abc\" for \"-l, --extra-labels\" flag: parse error on line 1, column 5: extraneous or missing \" in quoted-field"),
            ),
            (
                &["\"a\nbc"],
                Err("invalid argument \"\\\"a\\nbc\" for \"-l, --extra-labels\" flag: record on line 1; parse error on line 2, column 3: extraneous or missing \" in quoted-field"),
            ),
            (&["k\u{a0}"], Err("invalid label \"k\\u00a0\"")),
            (&["\u{1}é"], Err("invalid label \"\\x01é\"")),
        ];
        for (values, want) in cases {
            let got = parse_labels(&strings(values)).map_err(|e| e.to_string());
            match want {
                Ok(pairs) => assert_eq!(got, Ok(labels(pairs)), "{values:?}"),
                Err(msg) => assert_eq!(got, Err(msg.to_string()), "{values:?}"),
            }
        }
    }

    #[test]
    fn render_variants() {
        let plain = render("b", "u", "d", &BTreeMap::new());
        assert!(plain.starts_with("# The builder image is expected to contain\n"));
        assert!(plain.contains("FROM u as builder\n"));
        assert!(plain.contains("ADD d /configs\n"));
        assert!(plain.contains("FROM b\n# The base image is expected to contain\n"));
        assert!(plain.ends_with("LABEL operators.operatorframework.io.index.configs.v1=/configs\n"));
        let quoted = render("b", "u", "d", &labels(&[("a", "x\"y")]));
        assert!(quoted.ends_with("\n\n# Set other custom labels\nLABEL \"a\"=\"x\"y\"\n"));
    }
}
