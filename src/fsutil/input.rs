//! Reading input files (catalog files, bundle manifests and metadata) safely: only regular
//! files, or symbolic links to regular files that stay inside the tree being read, and never
//! more bytes than the size limit, counted while reading (a file's reported size is not
//! trusted). FIFOs, devices and sockets are refused by name without being opened, so a
//! hostile tree can neither hang a command nor feed it an endless stream.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Which size limit applies to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// A file of a file-based catalog (or of a template): `OPM_MAX_FILE_SIZE`, 1 GiB.
    Catalog,
    /// A bundle's manifest or metadata file: `OPM_MAX_MANIFEST_SIZE`, 64 MiB.
    Manifest,
}

impl Limit {
    /// The environment variable that changes the limit.
    pub fn variable(self) -> &'static str {
        match self {
            Limit::Catalog => "OPM_MAX_FILE_SIZE",
            Limit::Manifest => "OPM_MAX_MANIFEST_SIZE",
        }
    }

    /// The limit when its variable is unset or empty.
    pub fn default_bytes(self) -> u64 {
        match self {
            Limit::Catalog => 1 << 30,
            Limit::Manifest => 64 << 20,
        }
    }

    /// The limit in bytes, from the environment (read once per process).
    pub fn bytes(self) -> Result<u64, InputError> {
        static CATALOG: OnceLock<Result<u64, InputError>> = OnceLock::new();
        static MANIFEST: OnceLock<Result<u64, InputError>> = OnceLock::new();
        let cell = match self {
            Limit::Catalog => &CATALOG,
            Limit::Manifest => &MANIFEST,
        };
        cell.get_or_init(|| self.read_env()).clone()
    }

    fn read_env(self) -> Result<u64, InputError> {
        match std::env::var(self.variable()) {
            Ok(value) if !value.trim().is_empty() => {
                parse_size(&value).ok_or_else(|| InputError::BadLimit {
                    variable: self.variable(),
                    value,
                })
            }
            _ => Ok(self.default_bytes()),
        }
    }
}

/// Parses a size: bytes, or a number with a binary suffix (`K`/`KiB`, `M`/`MiB`, `G`/`GiB`,
/// `T`/`TiB`). Zero is refused.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = text.split_at(digits);
    let number: u64 = number.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        "t" | "tib" => 40,
        _ => return None,
    };
    number.checked_mul(1 << shift).filter(|&bytes| bytes > 0)
}

/// Why an input file was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// A FIFO, device, socket or directory where a file was expected.
    #[error("{} is {kind}, not a regular file", .path.display())]
    NotRegular { path: PathBuf, kind: &'static str },
    /// A symbolic link whose target lies outside the tree being read.
    #[error("{} is a symbolic link to {}, outside {}", .path.display(), .target.display(), .tree.display())]
    LinkOutside {
        path: PathBuf,
        target: PathBuf,
        tree: PathBuf,
    },
    /// More bytes than the limit.
    #[error("{} is larger than the limit of {limit} bytes (set {variable} to raise it)", .path.display())]
    TooLarge {
        path: PathBuf,
        limit: u64,
        variable: &'static str,
    },
    /// A size-limit variable that does not hold a size.
    #[error("invalid {variable} {value:?}: expected a size in bytes, such as 1073741824 or 1GiB")]
    BadLimit {
        variable: &'static str,
        value: String,
    },
    /// The file could not be opened or read; `kind` keeps the OS error's kind and `message` its
    /// text without Rust's ` (os error N)` suffix, lower-cased as Go prints it.
    #[error("{message}")]
    Io {
        path: PathBuf,
        kind: std::io::ErrorKind,
        message: String,
    },
}

impl InputError {
    fn io(path: &Path, error: &std::io::Error) -> InputError {
        InputError::Io {
            path: path.to_path_buf(),
            kind: error.kind(),
            message: super::io_message(error),
        }
    }

    /// The message without the file's path in front, for callers that name the file
    /// themselves (`manifests/x.yaml: is a named pipe (FIFO), not a regular file`).
    pub fn reason(&self) -> String {
        let full = self.to_string();
        let path = match self {
            InputError::NotRegular { path, .. }
            | InputError::LinkOutside { path, .. }
            | InputError::TooLarge { path, .. } => path.display().to_string(),
            InputError::BadLimit { .. } | InputError::Io { .. } => return full,
        };
        full.strip_prefix(&path)
            .map_or(full.clone(), |rest| rest.trim_start().to_string())
    }

    /// As an I/O error, for callers that frame every failure to read a file as one
    /// (`open PATH: TEXT`): an OS error keeps its kind and Go-style text, a refusal becomes
    /// an error of kind `Other` whose text is [`Self::reason`].
    pub fn into_io_error(self) -> std::io::Error {
        match self {
            InputError::Io { kind, message, .. } => std::io::Error::new(kind, message),
            refused => std::io::Error::other(refused.reason()),
        }
    }

    /// For an OS error, its Go-style text (callers frame it as upstream does, e.g.
    /// `read FILE: TEXT`); `None` for the refusals of this module, whose messages are complete.
    pub fn io_message(&self) -> Option<&str> {
        match self {
            InputError::Io { message, .. } => Some(message),
            _ => None,
        }
    }
}

/// What a non-regular file is, for messages.
fn kind_of(file_type: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt as _;
    if file_type.is_file() {
        None
    } else if file_type.is_dir() {
        Some("a directory")
    } else if file_type.is_fifo() {
        Some("a named pipe (FIFO)")
    } else if file_type.is_char_device() {
        Some("a character device")
    } else if file_type.is_block_device() {
        Some("a block device")
    } else if file_type.is_socket() {
        Some("a socket")
    } else {
        Some("not a file")
    }
}

/// Checks that `path` may be read as content of the tree `tree`: a regular file, or a symbolic
/// link (through any chain of links) to a regular file inside `tree`. Nothing is opened.
pub fn check_input(path: &Path, tree: &Path) -> Result<std::fs::Metadata, InputError> {
    let link = std::fs::symlink_metadata(path).map_err(|e| InputError::io(path, &e))?;
    let metadata = if link.file_type().is_symlink() {
        let target = path.canonicalize().map_err(|e| InputError::io(path, &e))?;
        let root = tree.canonicalize().map_err(|e| InputError::io(tree, &e))?;
        if !target.starts_with(&root) {
            return Err(InputError::LinkOutside {
                path: path.to_path_buf(),
                target,
                tree: tree.to_path_buf(),
            });
        }
        std::fs::metadata(&target).map_err(|e| InputError::io(path, &e))?
    } else {
        link
    };
    if let Some(kind) = kind_of(metadata.file_type()) {
        return Err(InputError::NotRegular {
            path: path.to_path_buf(),
            kind,
        });
    }
    Ok(metadata)
}

/// Reads the input file `path` of the tree `tree` (see [`check_input`]), refusing more than
/// `limit` bytes.
pub fn read_input(path: &Path, tree: &Path, limit: Limit) -> Result<Vec<u8>, InputError> {
    read_bounded(path, tree, limit.bytes()?, limit.variable())
}

/// Opens the input file `path` of the tree `tree` (see [`check_input`]) for reading parts of it
/// (`FileExt::read_exact_at`); its metadata as opened.
pub fn open_input(
    path: &Path,
    tree: &Path,
) -> Result<(std::fs::File, std::fs::Metadata), InputError> {
    check_input(path, tree)?;
    open_checked(path)
}

/// Opens `path` without blocking, then checks what was opened: a file swapped for a FIFO after
/// [`check_input`] must not hang a read.
fn open_checked(path: &Path) -> Result<(std::fs::File, std::fs::Metadata), InputError> {
    let file = {
        use std::os::unix::fs::OpenOptionsExt as _;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)
            .map_err(|e| InputError::io(path, &e))?
    };
    let opened = file.metadata().map_err(|e| InputError::io(path, &e))?;
    if let Some(kind) = kind_of(opened.file_type()) {
        return Err(InputError::NotRegular {
            path: path.to_path_buf(),
            kind,
        });
    }
    Ok((file, opened))
}

fn read_bounded(
    path: &Path,
    tree: &Path,
    max: u64,
    variable: &'static str,
) -> Result<Vec<u8>, InputError> {
    let too_large = || InputError::TooLarge {
        path: path.to_path_buf(),
        limit: max,
        variable,
    };
    let metadata = check_input(path, tree)?;
    if metadata.len() > max {
        return Err(too_large());
    }
    let (file, opened) = open_checked(path)?;
    let capacity = usize::try_from(opened.len().min(max)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity);
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| InputError::io(path, &e))?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("1073741824"), Some(1 << 30));
        assert_eq!(parse_size("1GiB"), Some(1 << 30));
        assert_eq!(parse_size(" 512 MiB "), Some(512 << 20));
        assert_eq!(parse_size("64m"), Some(64 << 20));
        assert_eq!(parse_size("2K"), Some(2048));
        for bad in ["", "0", "-1", "1.5G", "ten", "1PB", "99999999999999999999"] {
            assert_eq!(parse_size(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn only_regular_files_inside_the_tree_are_read() {
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.yaml");
        std::fs::write(&secret, "password: x\n").unwrap();
        let tree = tempfile::tempdir().unwrap();
        let root = tree.path();
        std::fs::write(root.join("a.yaml"), "a: 1\n").unwrap();
        std::os::unix::fs::symlink("a.yaml", root.join("inside.yaml")).unwrap();
        std::os::unix::fs::symlink(&secret, root.join("outside.yaml")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", root.join("zero.yaml")).unwrap();
        std::fs::create_dir(root.join("dir.yaml")).unwrap();
        let fifo = root.join("fifo.yaml");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());

        let read = |name: &str| read_input(&root.join(name), root, Limit::Manifest);
        assert_eq!(read("a.yaml").unwrap(), b"a: 1\n");
        assert_eq!(read("inside.yaml").unwrap(), b"a: 1\n");
        assert!(matches!(
            read("outside.yaml"),
            Err(InputError::LinkOutside { target, .. }) if target == secret.canonicalize().unwrap()
        ));
        // /dev/zero is outside the tree; inside it would still be a device.
        assert!(matches!(
            read("zero.yaml"),
            Err(InputError::LinkOutside { .. })
        ));
        assert_eq!(
            read("fifo.yaml").unwrap_err().to_string(),
            format!(
                "{} is a named pipe (FIFO), not a regular file",
                fifo.display()
            )
        );
        assert_eq!(
            read("fifo.yaml").unwrap_err().reason(),
            "is a named pipe (FIFO), not a regular file"
        );
        assert!(matches!(
            read("dir.yaml"),
            Err(InputError::NotRegular {
                kind: "a directory",
                ..
            })
        ));
        let missing = read("missing.yaml").unwrap_err();
        assert_eq!(missing.io_message(), Some("no such file or directory"));
        // The tree's own root may be reached through a link.
        let link = outside.path().join("tree");
        std::os::unix::fs::symlink(root, &link).unwrap();
        assert_eq!(
            read_input(&link.join("inside.yaml"), &link, Limit::Manifest).unwrap(),
            b"a: 1\n"
        );
    }

    #[test]
    fn the_size_limit_is_counted_while_reading() {
        let tree = tempfile::tempdir().unwrap();
        let root = tree.path();
        std::fs::write(root.join("ten.yaml"), "0123456789").unwrap();
        let read = |max| read_bounded(&root.join("ten.yaml"), root, max, "OPM_MAX_FILE_SIZE");
        assert_eq!(read(10).unwrap(), b"0123456789");
        assert_eq!(
            read(9).unwrap_err().to_string(),
            format!(
                "{} is larger than the limit of 9 bytes (set OPM_MAX_FILE_SIZE to raise it)",
                root.join("ten.yaml").display()
            )
        );
        // A sparse file is refused from its size, before a byte is read.
        let sparse = std::fs::File::create(root.join("sparse.yaml")).unwrap();
        sparse.set_len(2 << 30).unwrap();
        assert!(matches!(
            read_input(&root.join("sparse.yaml"), root, Limit::Catalog),
            Err(InputError::TooLarge { limit, .. }) if limit == 1 << 30
        ));
        // A file whose reported size is small but whose content is not (here /proc, which
        // reports 0) is stopped at the limit while reading.
        let status = Path::new("/proc/self/status");
        assert!(matches!(
            read_bounded(status, Path::new("/proc"), 16, "X"),
            Err(InputError::TooLarge { limit: 16, .. })
        ));
    }

    #[test]
    fn devices_are_refused_without_reading() {
        let error = read_input(Path::new("/dev/zero"), Path::new("/dev"), Limit::Catalog);
        assert!(matches!(
            error,
            Err(InputError::NotRegular {
                kind: "a character device",
                ..
            })
        ));
    }
}
