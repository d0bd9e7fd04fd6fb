//! A small builder that writes files into a temporary directory, runs `opm`
//! there and returns what it printed.

pub mod hostile;
pub mod podman;
pub mod registry;
pub mod sandbox;
#[path = "../../src/testkit.rs"]
mod testkit;

pub(crate) use testkit::{have_tool, on_path, shared, skip};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub struct Test {
    dir: tempfile::TempDir,
    /// What `opm` sees of the machine (see [`sandbox`]).
    sandbox: sandbox::Sandbox,
    args: Vec<String>,
    env: Vec<(String, String)>,
    /// Where `opm` runs, relative to the temporary directory.
    cwd: Option<String>,
    stdin: Option<Vec<u8>>,
    /// An address-space cap for `opm` (run under `prlimit`).
    memory_limit: Option<u64>,
}

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub dir: PathBuf,
    // Keeps the directory alive while the output is inspected.
    _dir: tempfile::TempDir,
    sandbox: sandbox::Sandbox,
}

impl Test {
    pub fn new() -> Test {
        Test {
            dir: tempfile::tempdir().expect("temporary directory"),
            sandbox: sandbox::Sandbox::new(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
            stdin: None,
            memory_limit: None,
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `contents` at `relative` (parents created).
    pub fn file(self, relative: &str, contents: impl AsRef<[u8]>) -> Test {
        let path = self.dir.path().join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("create parents");
        std::fs::write(&path, contents).expect("write fixture");
        self
    }

    pub fn dir(self, relative: &str) -> Test {
        std::fs::create_dir_all(self.dir.path().join(relative)).expect("create dir");
        self
    }

    /// Copies a directory tree from the repository (e.g. `testdata/fbc/x`) to `relative`.
    pub fn copy(self, from: &str, relative: &str) -> Test {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(from);
        copy_tree(&source, &self.dir.path().join(relative));
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Test
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn env(mut self, key: &str, value: &str) -> Test {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    /// Runs `opm` in `relative` (created if missing) instead of the
    /// temporary directory itself; paths of the [`Output`] stay relative to
    /// the temporary directory.
    pub fn cwd(mut self, relative: &str) -> Test {
        std::fs::create_dir_all(self.dir.path().join(relative)).expect("create cwd");
        self.cwd = Some(relative.to_string());
        self
    }

    /// Feeds `bytes` to `opm` on stdin (otherwise stdin is empty).
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Test {
        self.stdin = Some(bytes.as_ref().to_vec());
        self
    }

    /// Runs `opm` with at most `bytes` of address space (`prlimit --as`):
    /// an allocation beyond it aborts `opm` instead of exiting with 1.
    pub fn memory_limit(mut self, bytes: u64) -> Test {
        self.memory_limit = Some(bytes);
        self
    }

    pub fn run(self) -> Output {
        use std::io::Write as _;
        let cwd = match &self.cwd {
            Some(relative) => self.dir.path().join(relative),
            None => self.dir.path().to_path_buf(),
        };
        let mut command = match self.memory_limit {
            Some(bytes) => {
                // util-linux is essential on Debian: always there.
                assert!(
                    on_path("prlimit"),
                    "`prlimit` (util-linux) is not installed"
                );
                let mut command = Command::new("prlimit");
                command
                    .arg(format!("--as={bytes}"))
                    .arg("--")
                    .arg(env!("CARGO_BIN_EXE_opm"));
                command
            }
            None => Command::new(env!("CARGO_BIN_EXE_opm")),
        };
        self.sandbox.apply(&mut command);
        let mut child = command
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run opm");
        let mut input = child.stdin.take().expect("stdin");
        let bytes = self.stdin.clone().unwrap_or_default();
        // Written from a thread so a large input cannot deadlock with the
        // output pipes; opm may exit without reading it.
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(&bytes);
        });
        let output = child.wait_with_output().expect("wait for opm");
        writer.join().expect("stdin writer");
        Output {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            dir: self.dir.path().to_path_buf(),
            _dir: self.dir,
            sandbox: self.sandbox,
        }
    }
}

impl Output {
    /// The sandbox `opm` ran in (its container storage, for instance).
    pub fn sandbox(&self) -> &sandbox::Sandbox {
        &self.sandbox
    }

    pub fn success(self) -> Output {
        assert_eq!(self.code, 0, "expected success; stderr:\n{}", self.stderr);
        self
    }

    /// Exit 1, no panic, and every fragment in stderr.
    pub fn failure(self, fragments: &[&str]) -> Output {
        assert_eq!(
            self.code, 1,
            "expected exit 1; stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        assert!(!self.stderr.contains("panicked"), "panic:\n{}", self.stderr);
        for fragment in fragments {
            assert!(
                self.stderr.contains(fragment),
                "stderr lacks {fragment:?}:\n{}",
                self.stderr
            );
        }
        self
    }

    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.dir.join(relative)).expect("read output file")
    }

    pub fn exists(&self, relative: &str) -> bool {
        self.dir.join(relative).symlink_metadata().is_ok()
    }
}

/// An error and its causes, joined by `: ` (how `opm` prints them).
pub fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    opm::diag::error_chain(std::iter::successors(Some(error), |e| e.source()))
}

pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk fixture");
        let target = to.join(entry.path().strip_prefix(from).expect("prefix"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("create dir");
        } else {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}

/// The bundle directories (`<source>/<operator>/<version>`, holding
/// `manifests/`) under the shared kit's `corpus/bundles/<sub>` (`""` for all
/// of them), sorted; `None` (the test is skipped) without the kit.
pub fn corpus_bundles(sub: &str) -> Option<Vec<PathBuf>> {
    let root = shared("corpus/bundles")?;
    let depth = if sub.is_empty() { 3 } else { 2 };
    let mut bundles: Vec<PathBuf> = walkdir::WalkDir::new(root.join(sub))
        .min_depth(depth)
        .max_depth(depth)
        .into_iter()
        .filter_map(Result::ok)
        .map(walkdir::DirEntry::into_path)
        .filter(|path| path.join("manifests").is_dir())
        .collect();
    bundles.sort();
    Some(bundles)
}
