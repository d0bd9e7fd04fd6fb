//! Podman for the tests, in a [`Sandbox`]: its own storage (`vfs`), configuration (runc, which
//! can set rlimits in this sandbox where crun cannot; explicit rlimits for every container),
//! `HOME`, `XDG_RUNTIME_DIR` and auth file; every container it started is removed when the
//! value is dropped. Root only (see [`super::sandbox::container_engine`]).

use super::sandbox::Sandbox;
use std::path::Path;
use std::process::{Command, Output};

pub struct Podman {
    sandbox: Sandbox,
}

impl Podman {
    /// A podman for this test, or `None` (the test is skipped) when podman or runc is
    /// missing, when not running as root, or when podman cannot run here.
    pub fn new() -> Option<Podman> {
        if !super::sandbox::container_engine("podman") || !crate::util::have_tool("runc", "runc") {
            return None;
        }
        let podman = Podman {
            sandbox: Sandbox::new(),
        };
        let info = podman
            .command()
            .args(["info", "--format", "{{.Host.OCIRuntime.Name}}"])
            .output();
        match info {
            Ok(out) if out.status.success() => Some(podman),
            Ok(out) => {
                crate::util::skip(&format!(
                    "podman cannot run here: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
                None
            }
            Err(e) => {
                crate::util::skip(&format!("podman cannot run here: {e}"));
                None
            }
        }
    }

    /// `podman` in this test's sandbox.
    pub fn command(&self) -> Command {
        self.sandbox.tool("podman")
    }

    /// Runs podman with `args`; panics with its output when it fails.
    pub fn run<I, S>(&self, args: I) -> String
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let out = self.output(args);
        assert!(
            out.status.success(),
            "podman failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn output<I, S>(&self, args: I) -> Output
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.command().args(args).output().expect("run podman")
    }

    /// Loads an OCI archive; returns podman's answer.
    pub fn load(&self, archive: &Path) -> String {
        self.run([
            Path::new("load").as_os_str(),
            "-i".as_ref(),
            archive.as_os_str(),
        ])
    }
}

impl Drop for Podman {
    fn drop(&mut self) {
        let _ = self
            .command()
            .args(["rm", "--all", "--force", "--time", "0"])
            .output();
    }
}
