//! Writing a directory tree all at once: the tree is written into a staging directory on the
//! same file system as its target, then renamed into place. A failure while writing (a full
//! disk, a signal) leaves the target as it was; nothing already in the target is replaced.

use super::cleanup::{self, TempDir};
use super::StageError;
use std::path::{Path, PathBuf};

/// A directory tree being written for `target`; write under [`StagedDir::path`], then
/// [`StagedDir::commit`]. Dropping it uncommitted removes everything it wrote.
#[derive(Debug)]
pub struct StagedDir {
    target: PathBuf,
    /// Taken (kept) once a new target has been renamed into place.
    staging: Option<TempDir>,
    staging_path: PathBuf,
    /// Whether `target` already existed (the tree is merged into it) or is created by the
    /// commit (the staging directory, beside it, is renamed to it).
    merge: bool,
    /// Missing parents of a new target, created for it; removed again if the tree is not
    /// committed.
    created_parents: Vec<(PathBuf, cleanup::Guard)>,
}

impl Drop for StagedDir {
    fn drop(&mut self) {
        // The staging directory goes first, so that the parents are empty again.
        drop(self.staging.take());
        for (dir, _) in self.created_parents.drain(..).rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

impl StagedDir {
    /// Starts a tree for `target`. An existing target must be a directory; the missing parents
    /// of a new one are created (and removed again if the tree is not committed).
    pub fn new(target: &Path) -> Result<StagedDir, StageError> {
        let fail = |op, source| StageError {
            op,
            path: target.to_path_buf(),
            source,
        };
        let merge = match target.symlink_metadata() {
            Ok(_) if target.is_dir() => true,
            Ok(_) => {
                return Err(fail(
                    "mkdir",
                    std::io::Error::from(std::io::ErrorKind::NotADirectory),
                ))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => return Err(fail("stat", e)),
        };
        let mut created_parents = Vec::new();
        let staging = if merge {
            TempDir::new(".opm-staging-", Some(target))
        } else {
            let parent = match target.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent,
                _ => Path::new("."),
            };
            let missing: Vec<&Path> = parent.ancestors().take_while(|p| !p.exists()).collect();
            for dir in missing.into_iter().rev() {
                std::fs::create_dir(dir).map_err(|source| StageError {
                    op: "mkdir",
                    path: dir.to_path_buf(),
                    source,
                })?;
                created_parents.push((dir.to_path_buf(), cleanup::remove_empty_dir_on_signal(dir)));
            }
            let name = target
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            TempDir::new(&format!(".{name}.opm-staging-"), Some(parent))
        }
        .map_err(|e| fail("mkdir", e))?;
        Ok(StagedDir {
            target: target.to_path_buf(),
            staging_path: staging.path().to_path_buf(),
            staging: Some(staging),
            merge,
            created_parents,
        })
    }

    /// Where the tree is written.
    pub fn path(&self) -> &Path {
        &self.staging_path
    }

    /// Moves the tree into place without replacing anything: a file (or a non-directory) of the
    /// tree that is already in the target stops the commit with `AlreadyExists`, and whatever
    /// was moved is moved back. Returns the paths created in the target, in tree order.
    pub fn commit(mut self) -> Result<Vec<PathBuf>, StageError> {
        if !self.merge {
            rename_noreplace(&self.staging_path, &self.target).map_err(|source| StageError {
                op: "rename",
                path: self.target.clone(),
                source,
            })?;
            // The staging directory is the target now.
            self.created_parents.clear();
            if let Some(staging) = self.staging.take() {
                staging.keep();
            }
            return Ok(walk(&self.target));
        }
        let mut moves = Vec::new();
        plan(&self.staging_path, &self.target, &mut moves)?;
        let mut done: Vec<(&Path, &Path, cleanup::Guard)> = Vec::new();
        for (from, to) in &moves {
            let guard = cleanup::restore_on_signal(to, from);
            if let Err(source) = rename_noreplace(from, to) {
                for (from, to, _) in done.iter().rev() {
                    let _ = std::fs::rename(to, from);
                }
                return Err(StageError {
                    op: "rename",
                    path: to.clone(),
                    source,
                });
            }
            done.push((from, to, guard));
        }
        // The parents existed already (the target did).
        Ok(moves.iter().flat_map(|(_, to)| walk(to)).collect())
    }
}

/// The renames that merge `from` into the existing directory `to`: whole subtrees where the
/// target has nothing, descending into directories both have.
fn plan(from: &Path, to: &Path, moves: &mut Vec<(PathBuf, PathBuf)>) -> Result<(), StageError> {
    let read = std::fs::read_dir(from).map_err(|source| StageError {
        op: "open",
        path: from.to_path_buf(),
        source,
    })?;
    let mut names: Vec<_> = read.filter_map(Result::ok).map(|e| e.file_name()).collect();
    names.sort();
    for name in names {
        let (source, target) = (from.join(&name), to.join(&name));
        match target.symlink_metadata() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => moves.push((source, target)),
            Ok(meta) if meta.is_dir() && source.is_dir() => plan(&source, &target, moves)?,
            Ok(_) => {
                return Err(StageError {
                    op: "rename",
                    path: target,
                    source: std::io::Error::from(std::io::ErrorKind::AlreadyExists),
                })
            }
            Err(source) => {
                return Err(StageError {
                    op: "stat",
                    path: target,
                    source,
                })
            }
        }
    }
    Ok(())
}

/// `path` and everything under it, in name order.
fn walk(path: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(path)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .map(walkdir::DirEntry::into_path)
        .collect()
}

/// Renames `from` to `to` unless `to` exists (`AlreadyExists`), atomically where the file
/// system supports it (Linux `renameat2(RENAME_NOREPLACE)`).
pub fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt as _;
    let c = |path: &Path| {
        std::ffi::CString::new(path.as_os_str().as_bytes())
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))
    };
    let (source, target) = (c(from)?, c(to)?);
    // The system call itself: not every C library has the wrapper (the
    // static musl build's does not).
    // SAFETY: both paths are NUL-terminated C strings that outlive the call.
    let result = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            source.as_ptr(),
            libc::AT_FDCWD,
            target.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if result == 0 {
        return Ok(());
    }
    let error = std::io::Error::last_os_error();
    match error.raw_os_error() {
        // A file system without the flag: check, then rename.
        Some(libc::EINVAL | libc::ENOSYS) => {
            if to.symlink_metadata().is_ok() {
                return Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists));
            }
            std::fs::rename(from, to)
        }
        _ => Err(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(dir: &Path) -> Vec<String> {
        walk(dir)
            .iter()
            .skip(1)
            .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
            .collect()
    }

    #[test]
    fn a_new_target_appears_whole() {
        let parent = tempfile::tempdir().unwrap();
        let target = parent.path().join("out");
        let staged = StagedDir::new(&target).unwrap();
        std::fs::create_dir(staged.path().join("manifests")).unwrap();
        std::fs::write(staged.path().join("manifests/a.yaml"), "a").unwrap();
        assert!(!target.exists());
        let created = staged.commit().unwrap();
        assert_eq!(created.len(), 3);
        assert_eq!(listing(&target), ["manifests", "manifests/a.yaml"]);
        assert_eq!(
            listing(parent.path()),
            ["out", "out/manifests", "out/manifests/a.yaml"]
        );
    }

    #[test]
    fn an_existing_target_is_merged_without_replacing() {
        let target = tempfile::tempdir().unwrap();
        let target = target.path();
        std::fs::create_dir(target.join("manifests")).unwrap();
        std::fs::write(target.join("manifests/mine.yaml"), "mine").unwrap();

        let staged = StagedDir::new(target).unwrap();
        std::fs::create_dir_all(staged.path().join("manifests")).unwrap();
        std::fs::create_dir_all(staged.path().join("metadata")).unwrap();
        std::fs::write(staged.path().join("manifests/a.yaml"), "a").unwrap();
        std::fs::write(staged.path().join("metadata/b.yaml"), "b").unwrap();
        staged.commit().unwrap();
        assert_eq!(
            listing(target),
            [
                "manifests",
                "manifests/a.yaml",
                "manifests/mine.yaml",
                "metadata",
                "metadata/b.yaml"
            ]
        );

        // A second tree with one clash moves nothing.
        let staged = StagedDir::new(target).unwrap();
        std::fs::create_dir_all(staged.path().join("manifests")).unwrap();
        std::fs::create_dir_all(staged.path().join("tests")).unwrap();
        std::fs::write(staged.path().join("manifests/mine.yaml"), "theirs").unwrap();
        std::fs::write(staged.path().join("tests/c.yaml"), "c").unwrap();
        let error = staged.commit().unwrap_err();
        assert_eq!(error.source.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(error.path, target.join("manifests/mine.yaml"));
        assert_eq!(
            std::fs::read(target.join("manifests/mine.yaml")).unwrap(),
            b"mine"
        );
        assert_eq!(listing(target).len(), 5, "{:?}", listing(target));
    }

    #[test]
    fn an_uncommitted_tree_leaves_nothing() {
        let parent = tempfile::tempdir().unwrap();
        let staged = StagedDir::new(&parent.path().join("out")).unwrap();
        std::fs::write(staged.path().join("a"), "a").unwrap();
        drop(staged);
        assert!(listing(parent.path()).is_empty());
        // Missing parents are created for the tree and go with it.
        let staged = StagedDir::new(&parent.path().join("x/y/out")).unwrap();
        assert_eq!(listing(parent.path()).len(), 3);
        drop(staged);
        assert!(listing(parent.path()).is_empty());
        let staged = StagedDir::new(&parent.path().join("x/y/out")).unwrap();
        staged.commit().unwrap();
        assert_eq!(listing(parent.path()), ["x", "x/y", "x/y/out"]);
        std::fs::remove_dir_all(parent.path().join("x")).unwrap();
        let staged = StagedDir::new(parent.path()).unwrap();
        std::fs::write(staged.path().join("a"), "a").unwrap();
        drop(staged);
        assert!(listing(parent.path()).is_empty());
    }

    #[test]
    fn rename_noreplace_refuses_an_existing_target() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, "a").unwrap();
        std::fs::write(&b, "b").unwrap();
        let error = rename_noreplace(&a, &b).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&b).unwrap(), b"b");
        rename_noreplace(&a, &dir.path().join("c")).unwrap();
        assert!(!a.exists());
    }
}
