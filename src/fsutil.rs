//! File-system helpers: atomic, no-clobber writes. A write either fully
//! happens or leaves nothing behind.

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
}
