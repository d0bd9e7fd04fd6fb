//! File-system helpers: atomic writes, either no-clobber ([`write_new_file`])
//! or replacing in batches ([`Batch`]), where a write either fully happens or
//! leaves nothing behind; and safe reads of input files ([`read_input`]).

pub mod cleanup;
mod input;
mod staged;

pub use cleanup::{TempDir, TempFile};
pub use input::{check_input, open_input, parse_size, read_input, InputError, Limit};
pub use staged::{rename_noreplace, StagedDir};

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
    write_new_file_with(path, |file| file.write_all(contents))
}

/// [`write_new_file`] of what `write` writes into the (buffered) file: a
/// stream that need not be in memory. Nothing is left at `path` when
/// `write` fails.
pub fn write_new_file_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), WriteError> {
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
    let mut temp = TempFile::new_in(dir, ".opm-").map_err(io)?;
    {
        let mut buffered = std::io::BufWriter::with_capacity(256 << 10, temp.as_file_mut());
        write(&mut buffered).map_err(io)?;
        buffered.flush().map_err(io)?;
    }
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

/// The OS error text without Rust's " (os error N)" suffix, as Go prints it.
pub fn io_message(error: &std::io::Error) -> String {
    let text = error.to_string();
    let text = match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    };
    // Go spells these in lower case.
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => text,
    }
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
    staged: Vec<(TempFile, PathBuf)>,
    created_dirs: Vec<(PathBuf, cleanup::Guard)>,
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
        let mut temp = TempFile::new_in(dir, ".opm-").map_err(|e| fail("open", e))?;
        temp.as_file_mut()
            .write_all(contents)
            .map_err(|e| fail("write", e))?;
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
                let guard = cleanup::remove_empty_dir_on_signal(dir);
                self.created_dirs.push((dir.to_path_buf(), guard));
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

    /// Every staged file: its target and the temporary file that holds the
    /// contents, in staging order (a later entry for a target wins).
    pub fn staged(&self) -> impl Iterator<Item = (&Path, &Path)> {
        self.staged
            .iter()
            .map(|(temp, target)| (target.as_path(), temp.path()))
    }

    /// Commits like [`Batch::commit`], keeping what it replaced: dropping
    /// the returned [`Undo`] puts every target back as it was (restoring
    /// replaced files, removing new ones and the directories the batch
    /// created) unless [`Undo::keep`] was called. A commit that fails half
    /// way is undone before the error is returned.
    pub fn commit_undoable(mut self) -> Result<Undo, StageError> {
        let mut undo = Undo {
            targets: Vec::new(),
            created_dirs: std::mem::take(&mut self.created_dirs),
        };
        for (temp, path) in std::mem::take(&mut self.staged) {
            if !undo.targets.iter().any(|(target, _, _)| *target == path) {
                let backup = backup_of(&path)?;
                // Registered before the rename: a signal in between finds the backup (or
                // nothing) and restores it.
                let guard = match &backup {
                    Some(backup) => cleanup::restore_on_signal(backup.path(), &path),
                    None => cleanup::remove_on_signal(&path),
                };
                undo.targets.push((path.clone(), backup, guard));
            }
            temp.persist(&path).map_err(|e| StageError {
                op: "rename",
                path,
                source: e.error,
            })?;
        }
        Ok(undo)
    }

    /// Moves every staged file to its target like [`Batch::commit`], but
    /// never replaces a file, not even one created after it was staged: the
    /// first target in the way stops the commit (an `AlreadyExists` error),
    /// and the files already moved and the directories the batch created
    /// are removed again, so a failure leaves nothing behind. Each target
    /// must be staged once.
    pub fn commit_new(mut self) -> Result<(), StageError> {
        let mut placed: Vec<PathBuf> = Vec::new();
        for (temp, path) in std::mem::take(&mut self.staged) {
            if let Err(e) = temp.persist_noclobber(&path) {
                for done in placed.iter().rev() {
                    let _ = std::fs::remove_file(done);
                }
                // Dropping `self` removes the created directories.
                return Err(StageError {
                    op: "rename",
                    path,
                    source: e.error,
                });
            }
            placed.push(path);
        }
        self.created_dirs.clear();
        Ok(())
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
        for (dir, _) in self.created_dirs.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// A copy of `path` beside it (`None` when there is no such file), kept
/// until the [`Undo`] that owns it is dropped.
fn backup_of(path: &Path) -> Result<Option<TempFile>, StageError> {
    match path.symlink_metadata() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(StageError {
                op: "stat",
                path: path.to_path_buf(),
                source,
            })
        }
        Ok(_) => {}
    }
    let fail = |source| StageError {
        op: "backup",
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let backup = TempFile::new_in(dir, ".opm-").map_err(fail)?;
    // `copy` also carries the permission bits over.
    std::fs::copy(path, backup.path()).map_err(fail)?;
    Ok(Some(backup))
}

/// The way back from a [`Batch::commit_undoable`]: restores the previous
/// state of every target when dropped, unless [`Undo::keep`] was called.
#[derive(Debug)]
pub struct Undo {
    /// Each target once, with a copy of what it held before (`None`: it did
    /// not exist).
    targets: Vec<(PathBuf, Option<TempFile>, cleanup::Guard)>,
    created_dirs: Vec<(PathBuf, cleanup::Guard)>,
}

impl Undo {
    /// Keeps the committed files.
    pub fn keep(mut self) {
        self.targets.clear();
        self.created_dirs.clear();
    }
}

impl Drop for Undo {
    fn drop(&mut self) {
        for (path, backup, _guard) in self.targets.drain(..).rev() {
            let _ = match backup {
                Some(backup) => backup.persist(&path).map_err(|e| e.error),
                None => std::fs::remove_file(&path),
            };
        }
        for (dir, _) in self.created_dirs.iter().rev() {
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

    #[test]
    fn commit_new_never_replaces_and_undoes_itself() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("new/a");
        let second = dir.path().join("new/b");
        let mut batch = Batch::new();
        batch.stage(&first, b"one", 0o644).unwrap();
        batch.stage(&second, b"two", 0o644).unwrap();
        // Appears after staging, before the commit.
        std::fs::write(&second, b"theirs").unwrap();
        let error = batch.commit_new().unwrap_err();
        assert_eq!(error.path, second);
        assert_eq!(error.source.kind(), std::io::ErrorKind::AlreadyExists);
        assert!(!first.exists(), "the files already moved are removed");
        assert_eq!(std::fs::read(&second).unwrap(), b"theirs");
        let names: Vec<_> = std::fs::read_dir(dir.path().join("new"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["b"], "no temporary files left");

        let mut batch = Batch::new();
        batch.stage(&first, b"one", 0o644).unwrap();
        batch.commit_new().unwrap();
        assert_eq!(std::fs::read(&first).unwrap(), b"one");
    }

    #[test]
    fn undoable_commit_restores_unless_kept() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("old");
        std::fs::write(&old, b"before").unwrap();
        let new = dir.path().join("sub/new");
        let listing = |dir: &Path| {
            let mut names: Vec<_> = walkdir::WalkDir::new(dir)
                .into_iter()
                .map(|e| e.unwrap().path().to_path_buf())
                .collect();
            names.sort();
            names
        };
        let before = listing(dir.path());

        let stage = || {
            let mut batch = Batch::new();
            batch.stage(&old, b"after", 0o600).unwrap();
            batch.stage(&new, b"one", 0o644).unwrap();
            batch.stage(&old, b"again", 0o600).unwrap();
            assert_eq!(batch.staged().count(), 3);
            batch
        };
        let undo = stage().commit_undoable().unwrap();
        assert_eq!(std::fs::read(&old).unwrap(), b"again");
        assert_eq!(std::fs::read(&new).unwrap(), b"one");
        drop(undo);
        assert_eq!(std::fs::read(&old).unwrap(), b"before");
        assert_eq!(
            listing(dir.path()),
            before,
            "new files and directories removed"
        );

        stage().commit_undoable().unwrap().keep();
        assert_eq!(std::fs::read(&old).unwrap(), b"again");
        assert_eq!(std::fs::read(&new).unwrap(), b"one");
        assert_eq!(
            listing(dir.path()).len(),
            before.len() + 2,
            "no backups left"
        );
    }
}
