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

use std::cell::Cell;
use std::collections::{HashSet, VecDeque};
use std::ffi::OsString;
use std::fs;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

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

// ---------------------------------------------------------------------------
// Decompression

/// The decompressed layer stream, its compression chosen by magic bytes.
enum Decoder<R: Read> {
    Plain(Sniffed<R>),
    Gzip(Box<flate2::read::MultiGzDecoder<Sniffed<R>>>),
    Zstd(Box<ZstdDecoder<BufReader<Sniffed<R>>>>),
}

/// The stream with the bytes read to recognise it put back in front.
type Sniffed<R> = io::Chain<io::Take<io::Cursor<[u8; 4]>>, R>;

impl<R: Read> Decoder<R> {
    fn new(mut reader: R) -> io::Result<Decoder<R>> {
        let mut magic = [0u8; 4];
        let mut len = 0;
        while len < magic.len() {
            match reader.read(&mut magic[len..]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let kind = &magic[..len];
        let gzip = kind.starts_with(&[0x1f, 0x8b]);
        // A zstd stream may also start with a skippable frame (magic
        // 0x184d2a50 to 0x184d2a5f, little-endian).
        let zstd = kind == [0x28, 0xb5, 0x2f, 0xfd]
            || (len == 4 && magic[0] & 0xf0 == 0x50 && magic[1..] == [0x2a, 0x4d, 0x18]);
        let stream = io::Cursor::new(magic).take(len as u64).chain(reader);
        Ok(if gzip {
            // Several gzip members in a row are one stream, as in Go.
            Decoder::Gzip(Box::new(flate2::read::MultiGzDecoder::new(stream)))
        } else if zstd {
            Decoder::Zstd(Box::new(ZstdDecoder::new(BufReader::new(stream))))
        } else {
            Decoder::Plain(stream)
        })
    }
}

impl<R: Read> Read for Decoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Decoder::Plain(r) => r.read(buf),
            Decoder::Gzip(r) => r.read(buf),
            Decoder::Zstd(r) => r.read(buf),
        }
    }
}

/// A zstd stream of any number of frames (ruzstd's streaming decoder reads
/// one), skippable frames skipped. The decoder's window cap (128 MiB, as
/// libzstd) bounds its memory.
struct ZstdDecoder<R> {
    source: R,
    frame: FrameDecoder,
    in_frame: bool,
}

impl<R: BufRead> ZstdDecoder<R> {
    fn new(source: R) -> ZstdDecoder<R> {
        ZstdDecoder {
            source,
            frame: FrameDecoder::new(),
            in_frame: false,
        }
    }
}

impl<R: BufRead> Read for ZstdDecoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.in_frame {
                while self.frame.can_collect() == 0 && !self.frame.is_finished() {
                    self.frame
                        .decode_blocks(&mut self.source, BlockDecodingStrategy::UptoBlocks(1))
                        .map_err(io::Error::other)?;
                }
                let n = self.frame.read(buf)?;
                if n > 0 {
                    return Ok(n);
                }
                self.in_frame = false;
            }
            if self.source.fill_buf()?.is_empty() {
                return Ok(0);
            }
            match self.frame.reset(&mut self.source) {
                Ok(()) => self.in_frame = true,
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    let length = u64::from(length);
                    let skipped = io::copy(&mut (&mut self.source).take(length), &mut io::sink())?;
                    if skipped != length {
                        return Err(io::ErrorKind::UnexpectedEof.into());
                    }
                }
                Err(e) => return Err(io::Error::other(e)),
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Metering

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trip {
    Total,
    Metadata,
}

/// Counts the decompressed bytes the tar reader consumes. It sits under the
/// tar reader so that no byte escapes it: the tar crate reads GNU long names
/// and PAX records into memory before handing out an entry, and those reads
/// are capped here (by [`MAX_ENTRY_METADATA`]) while `metadata` is set.
#[derive(Debug)]
struct Meter {
    limit: u64,
    used: Cell<u64>,
    metadata: Cell<Option<u64>>,
    tripped: Cell<Option<Trip>>,
}

impl Meter {
    fn count(&self, n: u64) -> io::Result<()> {
        let used = self.used.get().saturating_add(n);
        if used > self.limit {
            self.tripped.set(Some(Trip::Total));
            return Err(io::Error::other("uncompressed size limit reached"));
        }
        self.used.set(used);
        if let Some(metadata) = self.metadata.get() {
            let metadata = metadata.saturating_add(n);
            if metadata > MAX_ENTRY_METADATA {
                self.tripped.set(Some(Trip::Metadata));
                return Err(io::Error::other("extended header limit reached"));
            }
            self.metadata.set(Some(metadata));
        }
        Ok(())
    }

    fn remaining(&self) -> u64 {
        self.limit.saturating_sub(self.used.get())
    }
}

struct Metered<R> {
    inner: R,
    meter: Rc<Meter>,
}

impl<R: Read> Read for Metered<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.meter.count(n as u64)?;
        Ok(n)
    }
}

// ---------------------------------------------------------------------------
// Extraction

/// A path below `dest` made only of normal components (no `.`, `..` or
/// root), each of which is known to be a real directory when it is a parent.
type Rel = Vec<OsString>;

struct Extractor<'a> {
    dest: &'a Path,
    limits: Limits,
    entries: &'a mut u64,
    meter: Rc<Meter>,
    /// Every path this layer created or wrote, with all its ancestors: a
    /// whiteout only hides what earlier layers left.
    layer_paths: HashSet<PathBuf>,
    buf: Vec<u8>,
    /// Whether the layer's first bytes named no compression.
    uncompressed: bool,
    /// Entries of this layer read so far.
    layer_entries: u64,
}

/// What an entry asks for, once its type is understood.
enum Kind {
    Directory,
    File,
    Symlink,
    HardLink,
    Fifo,
    Device,
}

impl Extractor<'_> {
    fn run<R: Read>(&mut self, archive: &mut tar::Archive<R>) -> Result<(), UnpackError> {
        let mut entries = archive
            .entries()
            .map_err(|source| self.stream_error(source))?;
        loop {
            self.meter.metadata.set(Some(0));
            let next = entries.next();
            self.meter.metadata.set(None);
            let entry = match next {
                None => return Ok(()),
                Some(Err(source)) => return Err(self.stream_error(source)),
                Some(Ok(entry)) => entry,
            };
            *self.entries += 1;
            self.layer_entries += 1;
            if *self.entries > self.limits.max_entries {
                return Err(UnpackError::TooManyEntries {
                    limit: self.limits.max_entries,
                });
            }
            self.apply_entry(entry)?;
        }
    }

    /// The error for a failed read of the layer stream: a tripped limit if
    /// that is what stopped it, or data that was never an archive.
    fn stream_error(&self, source: io::Error) -> UnpackError {
        match self.meter.tripped.get() {
            Some(Trip::Total) => UnpackError::TooLarge {
                limit: self.limits.max_total_bytes,
            },
            Some(Trip::Metadata) => UnpackError::HeaderTooLarge {
                limit: MAX_ENTRY_METADATA,
            },
            None if self.uncompressed && self.layer_entries == 0 => UnpackError::NotAnArchive {
                source: printable(source),
            },
            None => UnpackError::Archive {
                source: printable(source),
            },
        }
    }

    fn entry_error(&self, name: &str, source: io::Error) -> UnpackError {
        match self.stream_error(source) {
            UnpackError::Archive { source } => UnpackError::Entry {
                entry: name.to_string(),
                source,
            },
            limit => limit,
        }
    }

    fn apply_entry<R: Read>(&mut self, mut entry: tar::Entry<'_, R>) -> Result<(), UnpackError> {
        let raw_path = entry.path_bytes().into_owned();
        let name = display_name(&raw_path);
        let refuse = |reason| UnpackError::Refused {
            entry: name.clone(),
            reason,
        };
        let header = entry.header();
        let mode = header.mode();
        let kind = match header.entry_type() {
            tar::EntryType::Directory => Kind::Directory,
            // An old-style regular entry whose name ends in `/` is a directory.
            tar::EntryType::Regular if raw_path.ends_with(b"/") => Kind::Directory,
            // Sparse entries are expanded by the tar reader.
            tar::EntryType::Regular | tar::EntryType::Continuous | tar::EntryType::GNUSparse => {
                Kind::File
            }
            tar::EntryType::Symlink => Kind::Symlink,
            tar::EntryType::Link => Kind::HardLink,
            tar::EntryType::Fifo => Kind::Fifo,
            tar::EntryType::Char | tar::EntryType::Block => Kind::Device,
            // Global PAX records only carry defaults (times, owners) that are
            // not applied anyway; containerd ignores them too.
            tar::EntryType::XGlobalHeader => return self.drain(&mut entry, &name),
            other => return Err(refuse(Refusal::UnsupportedType(other.as_byte()))),
        };
        let link = entry
            .link_name_bytes()
            .map(|l| l.into_owned())
            .unwrap_or_default();
        let comps = normalize(&raw_path).map_err(refuse)?;

        // Whiteouts come before the type check: whatever their type, they
        // are markers, never written.
        if let Some((last, parent)) = comps.split_last() {
            if let Some(hidden) = last.as_encoded_bytes().strip_prefix(b".wh.") {
                self.drain(&mut entry, &name)?;
                return self.whiteout(&name, parent, hidden);
            }
        }
        let Some((leaf, parent)) = comps.split_last() else {
            // The root itself: a directory entry for it (`./`) changes nothing,
            // the caller owns `dest`; anything else would replace the root.
            return match kind {
                Kind::Directory => self.drain(&mut entry, &name),
                _ => Err(refuse(Refusal::RootEntry)),
            };
        };
        let mode = mode.map_err(|_| refuse(Refusal::BadMode))?;
        match kind {
            Kind::Directory => {
                self.drain(&mut entry, &name)?;
                self.directory(&name, parent, leaf, mode)
            }
            Kind::File => self.file(&mut entry, &name, parent, leaf, mode),
            Kind::Symlink => {
                self.drain(&mut entry, &name)?;
                let parent = self.resolve_create(&name, parent)?;
                let text = link_text(&parent, &link).map_err(refuse)?;
                let (path, rel) = self.clear_leaf(parent, leaf)?;
                self.symlink(&name, &text, path, &rel)
            }
            Kind::HardLink => {
                self.drain(&mut entry, &name)?;
                if link.is_empty() {
                    return Err(refuse(Refusal::MissingLinkTarget));
                }
                self.hard_link(&name, parent, leaf, &link)
            }
            Kind::Device => Err(refuse(Refusal::Device)),
            Kind::Fifo => {
                self.drain(&mut entry, &name)?;
                let parent = self.resolve_create(&name, parent)?;
                self.clear_leaf(parent, leaf)?;
                Ok(())
            }
        }
    }

    fn symlink(
        &mut self,
        name: &str,
        text: &[u8],
        path: PathBuf,
        rel: &[OsString],
    ) -> Result<(), UnpackError> {
        sys::symlink(text, &path).map_err(|source| match source.kind() {
            io::ErrorKind::Unsupported => UnpackError::Refused {
                entry: name.to_string(),
                reason: Refusal::SymlinksUnsupported,
            },
            _ => UnpackError::Write { path, source },
        })?;
        self.record(rel);
        Ok(())
    }

    /// Reads and discards the rest of an entry's data, so that only headers
    /// are read while the tar reader looks for the next entry.
    fn drain(&mut self, entry: &mut impl Read, name: &str) -> Result<(), UnpackError> {
        loop {
            match entry.read(&mut self.buf) {
                Ok(0) => return Ok(()),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.entry_error(name, e)),
            }
        }
    }

    fn directory(
        &mut self,
        name: &str,
        parent: &[OsString],
        leaf: &OsString,
        mode: u32,
    ) -> Result<(), UnpackError> {
        let mut rel = self.resolve_create(name, parent)?;
        rel.push(leaf.clone());
        let path = self.full(&rel);
        match fs::symlink_metadata(&path) {
            // A directory over a directory merges; anything else (a file, or
            // a symbolic link even to a directory) is replaced.
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                remove(&path)?;
                create_dir(&path)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => create_dir(&path)?,
            Err(source) => return Err(UnpackError::Write { path, source }),
        }
        sys::set_mode(&path, (mode | 0o700) & 0o777)
            .map_err(|source| UnpackError::Write { path, source })?;
        self.record(&rel);
        Ok(())
    }

    fn file<R: Read>(
        &mut self,
        entry: &mut tar::Entry<'_, R>,
        name: &str,
        parent: &[OsString],
        leaf: &OsString,
        mode: u32,
    ) -> Result<(), UnpackError> {
        // The announced size is checked before anything is written: a header
        // claiming more than is left is refused at once.
        let expected = entry.size();
        if expected > self.meter.remaining() {
            return Err(UnpackError::TooLarge {
                limit: self.limits.max_total_bytes,
            });
        }
        let parent = self.resolve_create(name, parent)?;
        let (path, rel) = self.clear_leaf(parent, leaf)?;
        // `create_new` (O_EXCL) also refuses to follow a symbolic link that
        // might have appeared at the path.
        let mut file = sys::create_new(&path).map_err(|source| UnpackError::Write {
            path: path.clone(),
            source,
        })?;
        self.record(&rel);
        let before = self.meter.used.get();
        let mut written: u64 = 0;
        loop {
            let n = match entry.read(&mut self.buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.entry_error(name, e)),
            };
            file.write_all(&self.buf[..n])
                .map_err(|source| UnpackError::Write {
                    path: path.clone(),
                    source,
                })?;
            written += n as u64;
        }
        if written != expected {
            return Err(UnpackError::Truncated {
                entry: name.to_string(),
                expected,
                actual: written,
            });
        }
        // Holes of a sparse entry are written as zeros without coming from
        // the stream: count them too.
        let from_stream = self.meter.used.get() - before;
        if self
            .meter
            .count(written.saturating_sub(from_stream))
            .is_err()
        {
            return Err(UnpackError::TooLarge {
                limit: self.limits.max_total_bytes,
            });
        }
        sys::set_file_mode(&file, (mode | 0o600) & 0o777)
            .map_err(|source| UnpackError::Write { path, source })?;
        Ok(())
    }

    fn hard_link(
        &mut self,
        name: &str,
        parent: &[OsString],
        leaf: &OsString,
        target: &[u8],
    ) -> Result<(), UnpackError> {
        let refuse = |reason| UnpackError::Refused {
            entry: name.to_string(),
            reason,
        };
        // The target is an archive path like any other (normalised, `..`
        // above the root refused, parents resolved inside `dest`), and must
        // already exist: a hard link shares an existing inode, and tar
        // writers always put the first name of a file before its links.
        let target = normalize(target).map_err(refuse)?;
        let Some((target_leaf, target_parent)) = target.split_last() else {
            return Err(refuse(Refusal::HardLinkToDirectory));
        };
        let mut target_rel = self
            .resolve(name, target_parent, false)?
            .ok_or_else(|| refuse(Refusal::HardLinkMissing))?;
        let target_dir = target_rel.clone();
        target_rel.push(target_leaf.clone());
        let target_path = self.full(&target_rel);
        let meta = match fs::symlink_metadata(&target_path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(refuse(Refusal::HardLinkMissing))
            }
            Err(source) => {
                return Err(UnpackError::Write {
                    path: target_path,
                    source,
                })
            }
        };
        if meta.is_dir() {
            return Err(refuse(Refusal::HardLinkToDirectory));
        }
        let parent = self.resolve_create(name, parent)?;
        let mut rel = parent.clone();
        rel.push(leaf.clone());
        if rel == target_rel {
            self.record(&rel);
            return Ok(());
        }
        if meta.file_type().is_symlink() {
            // Sharing the link's inode would reuse text checked for another
            // directory; write a link to the same place instead.
            let text = fs::read_link(&target_path).map_err(|source| UnpackError::Write {
                path: target_path.clone(),
                source,
            })?;
            let text = sys::bytes(text.as_os_str()).ok_or_else(|| refuse(Refusal::UnusableName))?;
            let (destination, _) = link_destination(&target_dir, &text).map_err(refuse)?;
            let text = relative_text(&parent, &destination);
            let (path, rel) = self.clear_leaf(parent, leaf)?;
            return self.symlink(name, &text, path, &rel);
        }
        let (path, rel) = self.clear_leaf(parent, leaf)?;
        fs::hard_link(&target_path, &path).map_err(|source| UnpackError::Write { path, source })?;
        self.record(&rel);
        Ok(())
    }

    fn whiteout(
        &mut self,
        name: &str,
        parent: &[OsString],
        hidden: &[u8],
    ) -> Result<(), UnpackError> {
        let Some(dir) = self.resolve(name, parent, false)? else {
            // Nothing there to hide.
            return Ok(());
        };
        if hidden == b".wh..opq" {
            return self.opaque(dir);
        }
        if hidden.starts_with(b".wh.") {
            // Other `.wh..wh.` names are aufs bookkeeping: not files, nothing
            // to hide.
            return Ok(());
        }
        if hidden.is_empty() || hidden == b"." || hidden == b".." {
            return Err(UnpackError::Refused {
                entry: name.to_string(),
                reason: Refusal::BadWhiteout,
            });
        }
        let hidden = sys::component(hidden).ok_or_else(|| UnpackError::Refused {
            entry: name.to_string(),
            reason: Refusal::UnusableName,
        })?;
        let mut rel = dir;
        rel.push(hidden);
        if self.layer_paths.contains(&rel_path(&rel)) {
            // A whiteout hides lower layers only, never its own layer.
            return Ok(());
        }
        remove(&self.full(&rel))
    }

    /// Removes from `dir` everything earlier layers put there, keeping what
    /// this layer wrote (whatever the order of the entries).
    fn opaque(&mut self, dir: Rel) -> Result<(), UnpackError> {
        let mut pending = vec![rel_path(&dir)];
        while let Some(rel) = pending.pop() {
            let path = self.dest.join(&rel);
            let listing = fs::read_dir(&path).map_err(|source| UnpackError::Write {
                path: path.clone(),
                source,
            })?;
            for child in listing {
                let child = child.map_err(|source| UnpackError::Write {
                    path: path.clone(),
                    source,
                })?;
                let child_rel = rel.join(child.file_name());
                if !self.layer_paths.contains(&child_rel) {
                    remove(&child.path())?;
                    continue;
                }
                let file_type = child.file_type().map_err(|source| UnpackError::Write {
                    path: child.path(),
                    source,
                })?;
                if file_type.is_dir() {
                    pending.push(child_rel);
                }
            }
        }
        Ok(())
    }

    fn full(&self, rel: &[OsString]) -> PathBuf {
        let mut path = self.dest.to_path_buf();
        path.extend(rel);
        path
    }

    /// Marks `rel` and its ancestors as written by this layer.
    fn record(&mut self, rel: &[OsString]) {
        let mut path = rel_path(rel);
        while !path.as_os_str().is_empty() && self.layer_paths.insert(path.clone()) {
            path.pop();
        }
    }

    fn resolve_create(&mut self, name: &str, parent: &[OsString]) -> Result<Rel, UnpackError> {
        // With `create`, a missing directory is created and a non-directory
        // is refused inside `resolve`; `None` cannot come back, but is
        // reported as what it would mean rather than trusted away.
        self.resolve(name, parent, true)?
            .ok_or_else(|| UnpackError::Refused {
                entry: name.to_string(),
                reason: Refusal::ParentNotDirectory,
            })
    }

    /// Walks `comps` below `dest` without ever letting the kernel follow a
    /// symbolic link: each component is looked at with `symlink_metadata`;
    /// links are resolved here, inside `dest` (an absolute target restarts at
    /// `dest`, a `..` above `dest` is refused). Returns the real directory
    /// reached. Missing directories are created when `create`; otherwise a
    /// missing or non-directory component gives `None`.
    fn resolve(
        &mut self,
        name: &str,
        comps: &[OsString],
        create: bool,
    ) -> Result<Option<Rel>, UnpackError> {
        let refuse = |reason| UnpackError::Refused {
            entry: name.to_string(),
            reason,
        };
        let mut pending: VecDeque<OsString> = comps.iter().cloned().collect();
        let mut rel: Rel = Vec::new();
        let mut follows = 0;
        while let Some(comp) = pending.pop_front() {
            let bytes = comp.as_encoded_bytes();
            if bytes.is_empty() || bytes == b"." {
                continue;
            }
            if bytes == b".." {
                if rel.pop().is_none() {
                    return Err(refuse(Refusal::ParentEscapes));
                }
                continue;
            }
            rel.push(comp);
            let path = self.full(&rel);
            match fs::symlink_metadata(&path) {
                Ok(meta) if meta.is_dir() => {}
                Ok(meta) if meta.file_type().is_symlink() => {
                    follows += 1;
                    if follows > MAX_SYMLINK_FOLLOWS {
                        return Err(refuse(Refusal::SymlinkLoop));
                    }
                    rel.pop();
                    let target = fs::read_link(&path)
                        .map_err(|source| UnpackError::Write { path, source })?;
                    let target = sys::bytes(target.as_os_str())
                        .ok_or_else(|| refuse(Refusal::UnusableName))?;
                    if target.starts_with(b"/") {
                        rel.clear();
                    }
                    for part in target.split(|&b| b == b'/').rev() {
                        let part =
                            sys::component(part).ok_or_else(|| refuse(Refusal::UnusableName))?;
                        pending.push_front(part);
                    }
                }
                Ok(_) if create => return Err(refuse(Refusal::ParentNotDirectory)),
                Ok(_) => return Ok(None),
                Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
                    create_dir(&path)?;
                    sys::set_mode(&path, 0o755)
                        .map_err(|source| UnpackError::Write { path, source })?;
                    self.record(&rel);
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(source) => return Err(UnpackError::Write { path, source }),
            }
        }
        Ok(Some(rel))
    }

    /// Removes whatever is at `parent/leaf` (never following a link) so that
    /// the entry can be created there; returns its full and relative path.
    fn clear_leaf(&self, parent: Rel, leaf: &OsString) -> Result<(PathBuf, Rel), UnpackError> {
        let mut rel = parent;
        rel.push(leaf.clone());
        let path = self.full(&rel);
        remove(&path)?;
        Ok((path, rel))
    }
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
