//! Safe extraction of image layers into a directory.
//!
//! Layers come from registries and are untrusted. [`apply_layer`] applies one
//! layer (a tar stream, possibly gzip- or zstd-compressed) on top of what
//! earlier layers left in `dest`, with OCI whiteout semantics (containerd's
//! `archive.Apply`), and guarantees that nothing is created, modified or
//! removed outside `dest`.
//!
//! How the guarantee is kept, and the decisions taken for hostile input:
//!
//! - **Entry paths** are normalised lexically: empty and `.` components are
//!   dropped, `..` removes the previous component. A leading `/` is stripped,
//!   so `/etc/x`, `./etc/x` and `etc/x` all land in `dest/etc/x` (containerd
//!   and GNU tar do the same; the result is inside `dest` either way). A path
//!   whose `..` climbs above the root is refused.
//! - **Symbolic links are never followed by the kernel** while extracting.
//!   Parents are walked one component at a time with `symlink_metadata`; a
//!   parent that is a symbolic link (`lib -> usr/lib`) is resolved by hand,
//!   inside `dest`, like a chroot would: an absolute target starts again at
//!   `dest`, and a `..` that would climb above `dest` is refused. Files are
//!   created with `O_CREAT | O_EXCL` after whatever was at their path has been
//!   removed (never opened for writing in place).
//! - **Symbolic link targets** are checked when the link is created, relative
//!   to the directory the link really lands in: a target whose `..` climbs
//!   above `dest` is refused. Absolute targets are taken as relative to
//!   `dest` (the image root, as in a chroot) and rewritten into the equivalent
//!   relative target (`/etc/passwd` at `a/b/l` becomes `../../etc/passwd`), and
//!   a target with `..` after a name (`x/../y`) is rewritten into its lexical
//!   normal form. Every link written therefore has the form `../../name/name`
//!   (give or take `.` and empty components) with no more `..` than the depth
//!   of its directory, so even a reader that later follows the links with the
//!   host's kernel stays inside `dest` (which starts empty).
//! - **Hard links** must name an entry that already exists in `dest` (from
//!   this or an earlier layer), reached by the same normalisation and
//!   resolution as entry paths; directories cannot be linked. A hard link to a
//!   symbolic link is written as a new symbolic link to the same place, since
//!   the shared link text was only checked for the original's directory.
//! - **Device files** (character and block) are refused: an image has no
//!   business shipping them and they could give access to host hardware if
//!   the tree were ever used with privileges. **FIFOs** are not created (a
//!   reader opening one would block forever) but still replace whatever
//!   earlier layers had at their path. Tar cannot carry sockets.
//! - **Modes**: files get their mode bits with owner read/write added,
//!   directories with owner rwx added, both masked to `0o777` (no setuid,
//!   setgid or sticky bit). Ownership, times and extended attributes are not
//!   applied: everything belongs to the current user.
//! - **Limits** ([`Limits`]): the decompressed bytes of all layers of an image
//!   (plus zero runs expanded from sparse entries) and the number of entries
//!   are capped, the size a header announces is checked against what is left
//!   before anything is written, and the extended headers (long names, PAX
//!   records) of one entry may not exceed 1 MiB, so a decompression bomb or a
//!   header claiming gigabytes of name cannot fill the disk or memory.
//!
//! `decompress` reads the layer stream and meters it; `extract` writes its entries; the path and
//! link helpers they share, and the platform calls (`sys`), are here.

mod decompress;
mod extract;

use decompress::{Decoder, Meter, Metered};
use extract::{Extractor, Rel};
use std::cell::Cell;
use std::collections::HashSet;
use std::ffi::OsString;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::encoding::json::go_quote;

/// The most bytes the extended headers (GNU long names, PAX records) of one
/// entry may take: Go's `archive/tar`, which containerd uses, has the same cap.
pub const MAX_ENTRY_METADATA: u64 = 1 << 20;

/// Symbolic links followed while resolving one path (Linux's `ELOOP` limit).
const MAX_SYMLINK_FOLLOWS: u32 = 40;

/// Entry names longer than this are shortened in error messages.
const MAX_NAME_IN_MESSAGE: usize = 256;

/// Caps on what the layers of one image may unpack to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Decompressed tar bytes over all layers, plus zeros expanded from
    /// sparse entries.
    pub max_total_bytes: u64,
    /// Tar entries over all layers.
    pub max_entries: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_total_bytes: 2 << 30,
            max_entries: 1_000_000,
        }
    }
}

/// What the layers applied so far have used of the [`Limits`].
#[derive(Debug)]
pub struct State {
    pub limits: Limits,
    bytes: u64,
    entries: u64,
}

impl State {
    pub fn new(limits: Limits) -> State {
        State {
            limits,
            bytes: 0,
            entries: 0,
        }
    }

    /// Bytes counted against [`Limits::max_total_bytes`] so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Entries counted against [`Limits::max_entries`] so far.
    pub fn entries(&self) -> u64 {
        self.entries
    }
}

#[derive(Debug, thiserror::Error)]
pub enum UnpackError {
    /// The layer file itself could not be read.
    #[error("read {}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("layer media type {media_type} is not supported")]
    UnsupportedMediaType { media_type: String },
    /// The compressed stream or the tar headers are damaged.
    #[error("read layer archive")]
    Archive {
        #[source]
        source: io::Error,
    },
    /// The layer is not compressed as far as its first bytes tell, and its
    /// first tar header cannot be read either: not a layer at all.
    #[error(
        "read layer archive: the layer is neither gzip- nor zstd-compressed, \
         and not a tar archive either"
    )]
    NotAnArchive {
        #[source]
        source: io::Error,
    },
    /// The data of one entry could not be read (damaged compression).
    #[error("read layer entry {}", go_quote(.entry))]
    Entry {
        entry: String,
        #[source]
        source: io::Error,
    },
    #[error("layer entry {} is truncated: its header announces {expected} bytes, the archive holds {actual}", go_quote(.entry))]
    Truncated {
        entry: String,
        expected: u64,
        actual: u64,
    },
    #[error("refuse layer entry {}: {reason}", go_quote(.entry))]
    Refused { entry: String, reason: Refusal },
    #[error("write {}", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("image layers exceed the limit of {limit} uncompressed bytes")]
    TooLarge { limit: u64 },
    #[error("image layers exceed the limit of {limit} entries")]
    TooManyEntries { limit: u64 },
    #[error("a layer entry's extended headers exceed the limit of {limit} bytes")]
    HeaderTooLarge { limit: u64 },
}

/// Why an entry was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    NulInName,
    UnusableName,
    PathEscapes,
    RootEntry,
    LinkEscapes,
    EmptyLinkTarget,
    MissingLinkTarget,
    ParentEscapes,
    SymlinkLoop,
    ParentNotDirectory,
    HardLinkMissing,
    HardLinkToDirectory,
    Device,
    BadWhiteout,
    BadMode,
    SymlinksUnsupported,
    UnsupportedType(u8),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = match self {
            Refusal::NulInName => "the name contains a NUL byte",
            Refusal::UnusableName => "the name cannot be represented on this platform",
            Refusal::PathEscapes => "the path climbs above the image root with `..`",
            Refusal::RootEntry => "only a directory may name the image root",
            Refusal::LinkEscapes => "the symbolic link points above the image root",
            Refusal::EmptyLinkTarget => "the symbolic link has an empty target",
            Refusal::MissingLinkTarget => "the hard link has no target",
            Refusal::ParentEscapes => {
                "a parent directory is a symbolic link pointing above the image root"
            }
            Refusal::SymlinkLoop => "too many levels of symbolic links",
            Refusal::ParentNotDirectory => "a parent path is not a directory",
            Refusal::HardLinkMissing => "the hard link target has not been extracted",
            Refusal::HardLinkToDirectory => "the hard link target is a directory",
            Refusal::Device => "device files are not allowed in images",
            Refusal::BadWhiteout => "the whiteout names no file",
            Refusal::BadMode => "the mode field is invalid",
            Refusal::SymlinksUnsupported => "symbolic links are not supported on this platform",
            Refusal::UnsupportedType(flag) => {
                return write!(f, "entry type {:?} is not supported", char::from(*flag));
            }
        };
        f.write_str(text)
    }
}

/// Applies one layer on top of `dest`.
///
/// The compression is recognised by its magic bytes (gzip `1f 8b`; zstd
/// `28 b5 2f fd` or a zstd skippable frame; anything else is plain tar),
/// whatever the media type says: a tar stream starts with an entry name,
/// which never begins with those bytes, so this is never wrong for a real
/// layer, and it copes with layers labelled wrongly or oddly (`...tar+gzip`,
/// `...tar.gzip`, docker's `...rootfs.diff.tar.gzip`, `...tar+zstd`,
/// `...tar`, or an unknown type). Only encrypted layers (`+encrypted`),
/// which cannot be read without keys, are refused by media type.
pub fn apply_layer(
    reader: impl Read,
    media_type: &str,
    dest: &Path,
    state: &mut State,
) -> Result<(), UnpackError> {
    if media_type.ends_with("+encrypted") {
        return Err(UnpackError::UnsupportedMediaType {
            media_type: media_type.to_string(),
        });
    }
    let meter = Rc::new(Meter {
        limit: state.limits.max_total_bytes,
        used: Cell::new(state.bytes),
        metadata: Cell::new(None),
        tripped: Cell::new(None),
    });
    let stream = Decoder::new(reader).map_err(|source| UnpackError::Archive { source })?;
    let uncompressed = matches!(stream, Decoder::Plain(_));
    let mut archive = tar::Archive::new(Metered {
        inner: stream,
        meter: Rc::clone(&meter),
    });
    let mut extractor = Extractor {
        dest,
        limits: state.limits.clone(),
        entries: &mut state.entries,
        meter: Rc::clone(&meter),
        layer_paths: HashSet::new(),
        buf: vec![0; 64 * 1024],
        uncompressed,
        layer_entries: 0,
    };
    let result = extractor.run(&mut archive);
    state.bytes = meter.used.get();
    result
}

fn rel_path(rel: &[OsString]) -> PathBuf {
    rel.iter().collect()
}

fn create_dir(path: &Path) -> Result<(), UnpackError> {
    fs::create_dir(path).map_err(|source| UnpackError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Removes a file, link or whole directory tree at `path`, if any, without
/// following links (`remove_dir_all` does not follow them either).
fn remove(path: &Path) -> Result<(), UnpackError> {
    let result = match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    };
    result.map_err(|source| UnpackError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Normalises an archive path into components below the root: a leading `/`,
/// empty and `.` components are dropped, `..` removes the previous component;
/// a `..` with nothing left to remove climbs above the root and is refused.
fn normalize(raw: &[u8]) -> Result<Rel, Refusal> {
    if raw.contains(&0) {
        return Err(Refusal::NulInName);
    }
    let mut comps = Vec::new();
    for part in raw.split(|&b| b == b'/') {
        match part {
            b"" | b"." => {}
            b".." => {
                if comps.pop().is_none() {
                    return Err(Refusal::PathEscapes);
                }
            }
            _ => comps.push(sys::component(part).ok_or(Refusal::UnusableName)?),
        }
    }
    Ok(comps)
}

/// Where a symbolic link placed in the real directory `dir` (below the root)
/// with text `target` points, lexically, as components below the root (an
/// absolute target starts at the root), and whether the text is already in
/// the form that stays inside the root however its components resolve: no
/// `..` after a name. Refuses a target that climbs above the root.
fn link_destination<'t>(
    dir: &'t [OsString],
    target: &'t [u8],
) -> Result<(Vec<&'t [u8]>, bool), Refusal> {
    if target.is_empty() {
        return Err(Refusal::EmptyLinkTarget);
    }
    if target.contains(&0) {
        return Err(Refusal::NulInName);
    }
    let absolute = target.starts_with(b"/");
    let mut resolved: Vec<&[u8]> = if absolute {
        Vec::new()
    } else {
        dir.iter().map(|c| c.as_encoded_bytes()).collect()
    };
    let mut keep = !absolute;
    let mut seen_name = false;
    for part in target.split(|&b| b == b'/') {
        match part {
            b"" | b"." => {}
            b".." => {
                if seen_name {
                    keep = false;
                }
                if resolved.pop().is_none() {
                    return Err(Refusal::LinkEscapes);
                }
            }
            _ => {
                sys::component(part).ok_or(Refusal::UnusableName)?;
                seen_name = true;
                resolved.push(part);
            }
        }
    }
    Ok((resolved, keep))
}

/// The relative link text that leads from the directory `dir` to `to`
/// (both below the root): `..` up to their common ancestor, then names.
fn relative_text(dir: &[OsString], to: &[&[u8]]) -> Vec<u8> {
    let common = dir
        .iter()
        .zip(to)
        .take_while(|(a, b)| a.as_encoded_bytes() == **b)
        .count();
    let mut parts: Vec<&[u8]> = vec![b".."; dir.len() - common];
    parts.extend_from_slice(&to[common..]);
    if parts.is_empty() {
        return b".".to_vec();
    }
    parts.join(&b'/')
}

/// The text to write for a symbolic link placed in the real directory `dir`
/// with the archive's `target` (see the module comment): kept as written
/// when it is a relative target whose `..` all come first, else rewritten
/// into that form.
fn link_text(dir: &[OsString], target: &[u8]) -> Result<Vec<u8>, Refusal> {
    let (resolved, keep) = link_destination(dir, target)?;
    if keep {
        return Ok(target.to_vec());
    }
    Ok(relative_text(dir, &resolved))
}

/// An entry name fit for an error message.
/// A read error fit for a message. The tar reader quotes header bytes as
/// they are (`numeric field was not a number: …`); a cause carrying control
/// or bidirectional-format characters, or running long, is rewritten with
/// those escaped and shortened, so an archive cannot put terminal escapes
/// into a message.
fn printable(source: io::Error) -> io::Error {
    let unsafe_char = |c: char| {
        c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    let text = source.to_string();
    let long = text.chars().count() > MAX_NAME_IN_MESSAGE;
    if !long && !text.chars().any(unsafe_char) {
        return source;
    }
    let mut clean = String::new();
    for c in text.chars().take(MAX_NAME_IN_MESSAGE) {
        if unsafe_char(c) {
            clean.extend(c.escape_default());
        } else {
            clean.push(c);
        }
    }
    if long {
        clean.push('…');
    }
    io::Error::new(source.kind(), clean)
}

fn display_name(raw: &[u8]) -> String {
    let name = String::from_utf8_lossy(raw);
    match name.char_indices().nth(MAX_NAME_IN_MESSAGE) {
        Some((cut, _)) => format!("{}…", &name[..cut]),
        None => name.into_owned(),
    }
}

#[cfg(unix)]
mod sys {
    use std::ffi::{OsStr, OsString};
    use std::fs::{self, File, OpenOptions, Permissions};
    use std::io;
    use std::os::unix::ffi::OsStrExt as _;
    use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
    use std::path::Path;

    /// One path component from archive bytes.
    pub fn component(bytes: &[u8]) -> Option<OsString> {
        Some(OsStr::from_bytes(bytes).to_os_string())
    }

    pub fn bytes(s: &OsStr) -> Option<Vec<u8>> {
        Some(s.as_bytes().to_vec())
    }

    pub fn symlink(target: &[u8], link: &Path) -> io::Result<()> {
        std::os::unix::fs::symlink(OsStr::from_bytes(target), link)
    }

    pub fn create_new(path: &Path) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
    }

    pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
        fs::set_permissions(path, Permissions::from_mode(mode))
    }

    pub fn set_file_mode(file: &File, mode: u32) -> io::Result<()> {
        file.set_permissions(Permissions::from_mode(mode))
    }
}

#[cfg(not(unix))]
mod sys {
    use std::ffi::{OsStr, OsString};
    use std::fs::{File, OpenOptions};
    use std::io;
    use std::path::Path;

    /// One path component from archive bytes: it must be UTF-8 and hold no
    /// character that this platform reads as a separator, drive or stream.
    pub fn component(bytes: &[u8]) -> Option<OsString> {
        let s = std::str::from_utf8(bytes).ok()?;
        if s.contains(['\\', ':']) {
            return None;
        }
        Some(OsString::from(s))
    }

    pub fn bytes(s: &OsStr) -> Option<Vec<u8>> {
        Some(s.to_str()?.replace('\\', "/").into_bytes())
    }

    pub fn symlink(_target: &[u8], _link: &Path) -> io::Result<()> {
        Err(io::ErrorKind::Unsupported.into())
    }

    pub fn create_new(path: &Path) -> io::Result<File> {
        OpenOptions::new().write(true).create_new(true).open(path)
    }

    pub fn set_mode(_path: &Path, _mode: u32) -> io::Result<()> {
        Ok(())
    }

    pub fn set_file_mode(_file: &File, _mode: u32) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests;
