//! Building an image with a container tool (`docker`, `podman`, `buildah`)
//! from `bundle.Dockerfile`, with upstream's exact command lines. The tool
//! inherits stdout and stderr; a failure names the command line as a shell
//! would take it (`Failed to exec "docker build … .": exit status N`).

use crate::encoding::json::go_quote;
use std::path::Path;

/// The container tools `bundle build` can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerTool {
    Docker,
    Podman,
    Buildah,
}

impl ContainerTool {
    /// The tool named `name`, if it is one of ours.
    pub fn parse(name: &str) -> Option<ContainerTool> {
        match name {
            "docker" => Some(ContainerTool::Docker),
            "podman" => Some(ContainerTool::Podman),
            "buildah" => Some(ContainerTool::Buildah),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ContainerTool::Docker => "docker",
            ContainerTool::Podman => "podman",
            ContainerTool::Buildah => "buildah",
        }
    }

    /// Upstream's `BuildBundleImage` command line: build `bundle.Dockerfile`
    /// with context `.`, tagged `tag`.
    pub fn build_argv(self, tag: &str) -> Vec<String> {
        let args: &[&str] = match self {
            ContainerTool::Docker => &["docker", "build"],
            ContainerTool::Podman => &["podman", "build"],
            ContainerTool::Buildah => &["buildah", "bud", "--format=docker"],
        };
        args.iter()
            .copied()
            .chain(["-f", "bundle.Dockerfile", "-t", tag, "."])
            .map(str::to_string)
            .collect()
    }
}

/// A command that could not be run or did not succeed. `Display` starts as
/// upstream's message does, but shows the command line as a shell would take
/// it, where upstream prints Go's `[]string{"docker", "build", …}`.
#[derive(Debug, thiserror::Error)]
#[error("Failed to exec \"{}\": {reason}", shell_line(.argv))]
pub struct ExecError {
    pub argv: Vec<String>,
    /// Go's wording: `exit status N`, `signal: killed`,
    /// `exec: "docker": executable file not found in $PATH`.
    pub reason: String,
}

/// Runs `argv` in `dir` (the program found through `PATH`), sharing our
/// stdout and stderr, and waits for it.
pub fn run(argv: &[String], dir: &Path) -> Result<(), ExecError> {
    let fail = |reason: String| ExecError {
        argv: argv.to_vec(),
        reason,
    };
    let Some((program, args)) = argv.split_first() else {
        return Err(fail("exec: no command".to_string()));
    };
    let Some(path) = look_path(program) else {
        return Err(fail(format!(
            "exec: {}: executable file not found in $PATH",
            go_quote(program)
        )));
    };
    let status = std::process::Command::new(path)
        .args(args)
        .current_dir(dir)
        .status()
        .map_err(|e| {
            fail(if e.kind() == std::io::ErrorKind::NotFound {
                format!(
                    "exec: {}: executable file not found in $PATH",
                    go_quote(program)
                )
            } else {
                format!(
                    "fork/exec {program}: {}",
                    crate::declcfg::load::io_message(&e)
                )
            })
        })?;
    if status.success() {
        return Ok(());
    }
    Err(fail(exit_reason(status)))
}

/// Go's `exec.LookPath`: a name with a slash as it is, else the first
/// executable regular file of that name in an absolute `PATH` directory (Go
/// refuses what it finds through relative ones). Directories that cannot be
/// searched are passed over, as Go does, instead of ending the search with
/// "permission denied".
fn look_path(program: &str) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    if program.contains('/') {
        return Some(std::path::PathBuf::from(program));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Go's `ExitError` text.
fn exit_reason(status: std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            let name = match signal {
                1 => "hangup",
                2 => "interrupt",
                3 => "quit",
                6 => "aborted",
                9 => "killed",
                11 => "segmentation fault",
                13 => "broken pipe",
                15 => "terminated",
                other => return format!("signal: signal {other}"),
            };
            return format!("signal: {name}");
        }
    }
    status.to_string()
}

/// `argv` as one shell command line: words of only safe characters as they
/// are, the others in single quotes (a `'` inside written `'\''`).
fn shell_line(argv: &[String]) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c);
    let words: Vec<String> = argv
        .iter()
        .map(|word| {
            if !word.is_empty() && word.chars().all(safe) {
                word.clone()
            } else {
                format!("'{}'", word.replace('\'', "'\\''"))
            }
        })
        .collect();
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_are_upstreams() {
        let cases = [
            (
                ContainerTool::Docker,
                "docker build -f bundle.Dockerfile -t quay.io/x/y:v1 .",
            ),
            (
                ContainerTool::Podman,
                "podman build -f bundle.Dockerfile -t quay.io/x/y:v1 .",
            ),
            (
                ContainerTool::Buildah,
                "buildah bud --format=docker -f bundle.Dockerfile -t quay.io/x/y:v1 .",
            ),
        ];
        for (tool, expected) in cases {
            assert_eq!(tool.build_argv("quay.io/x/y:v1").join(" "), expected);
            assert_eq!(ContainerTool::parse(tool.name()), Some(tool));
        }
        assert_eq!(ContainerTool::parse("none"), None);
    }

    #[test]
    fn errors_read_like_go() {
        let error = ExecError {
            argv: ContainerTool::Docker.build_argv("a\"b"),
            reason: "exit status 3".to_string(),
        };
        assert_eq!(
            error.to_string(),
            r#"Failed to exec "docker build -f bundle.Dockerfile -t 'a"b' .": exit status 3"#
        );
        let odd = ExecError {
            argv: vec!["podman".into(), "it's".into(), String::new(), "a b".into()],
            reason: "signal: killed".to_string(),
        };
        assert_eq!(
            odd.to_string(),
            r#"Failed to exec "podman 'it'\''s' '' 'a b'": signal: killed"#
        );
        let missing = run(
            &["opm-test-no-such-tool".to_string()],
            std::path::Path::new("."),
        )
        .unwrap_err();
        assert_eq!(
            missing.reason,
            "exec: \"opm-test-no-such-tool\": executable file not found in $PATH"
        );
    }
}
