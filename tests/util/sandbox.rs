//! What the tools a test runs see of the machine: nothing of the user's. Every `opm` a test
//! starts ([`super::Test`]), and every `skopeo`, `podman` and `buildah`, gets a [`Sandbox`]: its
//! own `HOME`, XDG directories, `XDG_RUNTIME_DIR`, registry auth file, container storage
//! (`vfs`, under the sandbox) and configuration, and temporary directory. So no test reads the
//! user's registry credentials or runtime directory (which another user cannot even open:
//! `/run/containers/<uid>/auth.json`), and none writes into the system's container storage.
//!
//! Container engines (podman, buildah) run only as root: rootless ones need subordinate id
//! ranges and a user session, and leave a pause process behind; for another user the tests
//! that need them are skipped, saying so.

use std::path::PathBuf;
use std::process::{Command, Stdio};

pub struct Sandbox {
    dir: tempfile::TempDir,
}

impl Default for Sandbox {
    fn default() -> Self {
        Sandbox::new()
    }
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::Builder::new()
            .prefix("opm-test-sandbox-")
            .tempdir()
            .expect("sandbox directory");
        for sub in [
            "home", "xdg", "config", "data", "cache", "tmp", "storage", "run",
        ] {
            std::fs::create_dir(dir.path().join(sub)).expect("sandbox directories");
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(
                dir.path().join("xdg"),
                std::fs::Permissions::from_mode(0o700),
            )
            .expect("XDG_RUNTIME_DIR mode");
        }
        std::fs::write(dir.path().join("auth.json"), "{\"auths\":{}}\n").expect("auth file");
        std::fs::write(
            dir.path().join("storage.conf"),
            format!(
                "[storage]\ndriver = \"vfs\"\ngraphroot = \"{root}\"\nrunroot = \"{run}\"\n\
                 rootless_storage_path = \"{root}\"\n",
                root = dir.path().join("storage").display(),
                run = dir.path().join("run").display(),
            ),
        )
        .expect("storage.conf");
        // Only this configuration: the sandbox's limits (runc, which can set rlimits here, and
        // explicit ones for every container and build step), no systemd, no journald.
        std::fs::write(
            dir.path().join("containers.conf"),
            format!(
                "[containers]\n\
                 default_ulimits = [\"nofile=1024:1024\", \"nproc=1024:1024\"]\n\
                 [engine]\n\
                 runtime = \"runc\"\n\
                 cgroup_manager = \"cgroupfs\"\n\
                 events_logger = \"file\"\n\
                 tmp_dir = \"{}\"\n",
                dir.path().join("run/libpod").display()
            ),
        )
        .expect("containers.conf");
        Sandbox { dir }
    }

    fn sub(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The sandbox's environment on `command` (a test may still set its own afterwards).
    pub fn apply<'a>(&self, command: &'a mut Command) -> &'a mut Command {
        command
            .env("HOME", self.sub("home"))
            .env("XDG_RUNTIME_DIR", self.sub("xdg"))
            .env("XDG_CONFIG_HOME", self.sub("config"))
            .env("XDG_DATA_HOME", self.sub("data"))
            .env("XDG_CACHE_HOME", self.sub("cache"))
            .env("REGISTRY_AUTH_FILE", self.sub("auth.json"))
            .env("DOCKER_CONFIG", self.sub("home/.docker"))
            .env("CONTAINERS_STORAGE_CONF", self.sub("storage.conf"))
            .env("CONTAINERS_CONF", self.sub("containers.conf"))
            .env("TMPDIR", self.sub("tmp"))
            .env("BUILDAH_ISOLATION", "chroot")
    }

    /// `tool` (skopeo, podman, buildah) in the sandbox, with no input.
    pub fn tool(&self, tool: &str) -> Command {
        let mut command = Command::new(tool);
        self.apply(&mut command).stdin(Stdio::null());
        command
    }
}

/// Whether the container engine `tool` (podman, buildah) can run here for this user: it is
/// installed and the tests run as root; otherwise the calling test is skipped, saying why.
pub fn container_engine(tool: &str) -> bool {
    if !crate::util::have_tool(tool, tool) {
        return false;
    }
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        crate::util::skip(&format!(
            "runs {tool} as root only (rootless {tool} needs /etc/subuid ranges and a user session)"
        ));
        return false;
    }
    true
}
