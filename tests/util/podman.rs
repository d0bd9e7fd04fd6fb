//! Podman for the tests, hermetic: its own storage, run and temporary
//! directories, `HOME`, `XDG_RUNTIME_DIR` and auth file; the `vfs` storage
//! driver and runc (crun cannot set rlimits in this sandbox); every
//! container it started is removed when the value is dropped. Only root
//! runs it (rootless podman needs subordinate id ranges and a user
//! session); another user's tests are skipped, saying so.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub struct Podman {
    dir: tempfile::TempDir,
}

impl Podman {
    /// A podman for this test, or `None` (the test is skipped) when podman
    /// or runc is missing, when not running as root, or when podman cannot
    /// run here.
    pub fn new() -> Option<Podman> {
        if !crate::util::have_tool("podman", "podman") || !crate::util::have_tool("runc", "runc") {
            return None;
        }
        // SAFETY: getuid has no preconditions.
        if unsafe { libc::getuid() } != 0 {
            crate::util::skip("runs podman as root only (rootless podman needs /etc/subuid ranges and a user session)");
            return None;
        }
        let dir = tempfile::tempdir().expect("podman directory");
        for sub in ["home", "xdg", "tmp"] {
            std::fs::create_dir(dir.path().join(sub)).expect("podman directories");
        }
        std::fs::write(dir.path().join("auth.json"), "{}").expect("auth file");
        // Only this configuration: the sandbox's limits (runc, which can set
        // rlimits here, and explicit ones for every container, `podman
        // build`'s too), no systemd, no journald.
        std::fs::write(
            dir.path().join("containers.conf"),
            "[containers]\n\
             default_ulimits = [\"nofile=1024:1024\", \"nproc=1024:1024\"]\n\
             [engine]\n\
             runtime = \"runc\"\n\
             cgroup_manager = \"cgroupfs\"\n\
             events_logger = \"file\"\n",
        )
        .expect("containers.conf");
        let podman = Podman { dir };
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

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// `podman` with this test's storage and environment.
    pub fn command(&self) -> Command {
        let mut command = Command::new("podman");
        command
            .arg("--root")
            .arg(self.path("storage"))
            .arg("--runroot")
            .arg(self.path("run"))
            .arg("--tmpdir")
            .arg(self.path("tmp"))
            .args(["--storage-driver", "vfs", "--runtime", "runc"])
            .args(["--cgroup-manager", "cgroupfs", "--events-backend", "file"])
            .env("HOME", self.path("home"))
            .env("XDG_RUNTIME_DIR", self.path("xdg"))
            .env("XDG_CONFIG_HOME", self.path("home/.config"))
            .env("REGISTRY_AUTH_FILE", self.path("auth.json"))
            .env("TMPDIR", self.path("tmp"))
            .env("CONTAINERS_CONF", self.path("containers.conf"))
            .stdin(Stdio::null());
        command
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
