//! Extraction of tar entries below the destination: paths made only of real directories, links resolved without leaving it, whiteouts applied.

use super::decompress::{Meter, Trip};
use super::{
    create_dir, display_name, link_destination, link_text, normalize, printable, rel_path,
    relative_text, remove, sys, Limits, Refusal, UnpackError, MAX_ENTRY_METADATA,
    MAX_SYMLINK_FOLLOWS,
};
use std::collections::{HashSet, VecDeque};
use std::ffi::OsString;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

// Extraction

/// A path below `dest` made only of normal components (no `.`, `..` or
/// root), each of which is known to be a real directory when it is a parent.
pub(super) type Rel = Vec<OsString>;

pub(super) struct Extractor<'a> {
    pub(super) dest: &'a Path,
    pub(super) limits: Limits,
    pub(super) entries: &'a mut u64,
    pub(super) meter: Rc<Meter>,
    /// Every path this layer created or wrote, with all its ancestors: a
    /// whiteout only hides what earlier layers left.
    pub(super) layer_paths: HashSet<PathBuf>,
    pub(super) buf: Vec<u8>,
    /// Whether the layer's first bytes named no compression.
    pub(super) uncompressed: bool,
    /// Entries of this layer read so far.
    pub(super) layer_entries: u64,
}

/// What an entry asks for, once its type is understood.
pub(super) enum Kind {
    Directory,
    File,
    Symlink,
    HardLink,
    Fifo,
    Device,
}

impl Extractor<'_> {
    pub(super) fn run<R: Read>(
        &mut self,
        archive: &mut tar::Archive<R>,
    ) -> Result<(), UnpackError> {
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
    pub(super) fn stream_error(&self, source: io::Error) -> UnpackError {
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

    pub(super) fn entry_error(&self, name: &str, source: io::Error) -> UnpackError {
        match self.stream_error(source) {
            UnpackError::Archive { source } => UnpackError::Entry {
                entry: name.to_string(),
                source,
            },
            limit => limit,
        }
    }

    pub(super) fn apply_entry<R: Read>(
        &mut self,
        mut entry: tar::Entry<'_, R>,
    ) -> Result<(), UnpackError> {
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

    pub(super) fn symlink(
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
    pub(super) fn drain(&mut self, entry: &mut impl Read, name: &str) -> Result<(), UnpackError> {
        loop {
            match entry.read(&mut self.buf) {
                Ok(0) => return Ok(()),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.entry_error(name, e)),
            }
        }
    }

    pub(super) fn directory(
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

    pub(super) fn file<R: Read>(
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

    pub(super) fn hard_link(
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

    pub(super) fn whiteout(
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
    pub(super) fn opaque(&mut self, dir: Rel) -> Result<(), UnpackError> {
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

    pub(super) fn full(&self, rel: &[OsString]) -> PathBuf {
        let mut path = self.dest.to_path_buf();
        path.extend(rel);
        path
    }

    /// Marks `rel` and its ancestors as written by this layer.
    pub(super) fn record(&mut self, rel: &[OsString]) {
        let mut path = rel_path(rel);
        while !path.as_os_str().is_empty() && self.layer_paths.insert(path.clone()) {
            path.pop();
        }
    }

    pub(super) fn resolve_create(
        &mut self,
        name: &str,
        parent: &[OsString],
    ) -> Result<Rel, UnpackError> {
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
    pub(super) fn resolve(
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
    pub(super) fn clear_leaf(
        &self,
        parent: Rel,
        leaf: &OsString,
    ) -> Result<(PathBuf, Rel), UnpackError> {
        let mut rel = parent;
        rel.push(leaf.clone());
        let path = self.full(&rel);
        remove(&path)?;
        Ok((path, rel))
    }
}
