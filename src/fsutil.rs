//! File-system helpers: atomic writes, either no-clobber ([`write_new_file`])
//! or replacing in batches ([`Batch`]). A write either fully happens or leaves
//! nothing behind.

use std::io::Write as _;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("path {}: file already exists", crate::encoding::json::go_quote(&.path.display().to_string()))]
    Exists { path: PathBuf },
    #[error("write {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Writes `contents` to `path` through a temporary file in the same
/// directory, refusing to replace an existing file (even one created
/// concurrently).
pub fn write_new_file(path: &Path, contents: &[u8]) -> Result<(), WriteError> {
    if path.symlink_metadata().is_ok() {
        return Err(WriteError::Exists {
            path: path.to_path_buf(),
        });
    }
    let io = |source: std::io::Error| WriteError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(".opm-")
        .tempfile_in(dir)
        .map_err(io)?;
    temp.write_all(contents).map_err(io)?;
    temp.as_file().sync_all().map_err(io)?;
    // Files are created 0600 by tempfile; give them the usual 0666 & ~umask.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = 0o666 & !current_umask();
        temp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(io)?;
    }
    temp.persist_noclobber(path).map_err(|e| {
        if e.error.kind() == std::io::ErrorKind::AlreadyExists {
            WriteError::Exists {
                path: path.to_path_buf(),
            }
        } else {
            io(e.error)
        }
    })?;
    Ok(())
}

/// A failed step of a [`Batch`]: the operation (`mkdir`, `open`, `write`,
/// `rename`), the path it was applied to, and the OS error.
#[derive(Debug, thiserror::Error)]
#[error("{op} {}", .path.display())]
pub struct StageError {
    pub op: &'static str,
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// File writes that either all happen or leave nothing behind: each file is
/// first written in full to a temporary file next to its target
/// ([`Batch::stage`]); only when every file is staged does [`Batch::commit`]
/// rename them into place, replacing existing files. Dropping an uncommitted
/// batch removes its temporary files and the directories it created.
///
/// A target is never truncated or written in place, so a batch may safely
/// replace a file with a copy of itself.
#[derive(Debug, Default)]
pub struct Batch {
    staged: Vec<(tempfile::NamedTempFile, PathBuf)>,
    created_dirs: Vec<PathBuf>,
}

impl Batch {
    pub fn new() -> Batch {
        Batch::default()
    }

    /// Writes `contents` to a temporary file beside `path` (creating the
    /// missing parent directories) and gives it the permission bits `mode`.
    pub fn stage(&mut self, path: &Path, contents: &[u8], mode: u32) -> Result<(), StageError> {
        let fail = |op, source| StageError {
            op,
            path: path.to_path_buf(),
            source,
        };
        if path.is_dir() {
            return Err(fail(
                "open",
                std::io::Error::from(std::io::ErrorKind::IsADirectory),
            ));
        }
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        self.create_dir_all(dir)?;
        let mut temp = tempfile::Builder::new()
            .prefix(".opm-")
            .tempfile_in(dir)
            .map_err(|e| fail("open", e))?;
        temp.write_all(contents).map_err(|e| fail("write", e))?;
        temp.as_file().sync_all().map_err(|e| fail("write", e))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            temp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(mode))
                .map_err(|e| fail("chmod", e))?;
        }
        #[cfg(not(unix))]
        let _ = mode;
        self.staged.push((temp, path.to_path_buf()));
        Ok(())
    }

    /// Like `mkdir -p`, remembering each directory it creates.
    fn create_dir_all(&mut self, dir: &Path) -> Result<(), StageError> {
        if dir.is_dir() {
            return Ok(());
        }
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            self.create_dir_all(parent)?;
        }
        match std::fs::create_dir(dir) {
            Ok(()) => {
                self.created_dirs.push(dir.to_path_buf());
                Ok(())
            }
            Err(_) if dir.is_dir() => Ok(()),
            // Go's MkdirAll reports a file in the way as "not a directory".
            Err(source) if source.kind() == std::io::ErrorKind::AlreadyExists => Err(StageError {
                op: "mkdir",
                path: dir.to_path_buf(),
                source: std::io::Error::from(std::io::ErrorKind::NotADirectory),
            }),
            Err(source) => Err(StageError {
                op: "mkdir",
                path: dir.to_path_buf(),
                source,
            }),
        }
    }

    /// Moves every staged file to its target, in staging order (a later
    /// file for the same target wins).
    pub fn commit(mut self) -> Result<(), StageError> {
        for (temp, path) in std::mem::take(&mut self.staged) {
            temp.persist(&path).map_err(|e| StageError {
                op: "rename",
                path,
                source: e.error,
            })?;
        }
        self.created_dirs.clear();
        Ok(())
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        // Temporary files go first, so the directories are empty again.
        self.staged.clear();
        for dir in self.created_dirs.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// The permission bits of a new file created with `requested` (Go's
/// `os.WriteFile(path, data, requested)`): the process umask applies.
pub fn new_file_mode(requested: u32) -> u32 {
    #[cfg(unix)]
    {
        requested & !current_umask()
    }
    #[cfg(not(unix))]
    {
        requested
    }
}

#[cfg(unix)]
fn current_umask() -> u32 {
    // Read from /proc to avoid the racy set-and-restore of umask(2).
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_to_overwrite_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.Dockerfile");
        write_new_file(&path, b"one").unwrap();
        assert!(matches!(
            write_new_file(&path, b"two"),
            Err(WriteError::Exists { .. })
        ));
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
    #[test]
    fn batch_commits_all_or_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a/b/file");
        std::fs::create_dir_all(dir.path().join("blocker/x.yaml")).unwrap();
        let mut batch = Batch::new();
        batch.stage(&target, b"one", 0o644).unwrap();
        let error = batch
            .stage(&dir.path().join("blocker/x.yaml"), b"two", 0o644)
            .unwrap_err();
        assert_eq!(error.op, "open");
        drop(batch);
        assert!(
            !dir.path().join("a").exists(),
            "created directories removed"
        );

        let mut batch = Batch::new();
        batch.stage(&target, b"one", 0o600).unwrap();
        batch.stage(&target, b"two", 0o600).unwrap();
        assert!(!target.exists(), "nothing in place before commit");
        batch.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"two");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&target).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let names: Vec<_> = std::fs::read_dir(dir.path().join("a/b")).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary files left");
    }
}
