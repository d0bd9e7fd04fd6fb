//! Writing one image layer: a tar stream with normalised headers (the given
//! modes and owners, one fixed modification time, no owner names), gzip
//! compressed with fixed settings, streamed into a file while both digests
//! are computed (the layer's, of the compressed bytes, and its `diff_id`, of
//! the tar), so a layer of any size never sits in memory.

use super::sha256_hex;
use sha2::Digest as _;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The gzip level (flate2's default, spelled out so it never drifts).
pub(super) const GZIP_LEVEL: u32 = 6;
/// The gzip header's operating system field: "unknown", on every host.
pub(super) const GZIP_OS_UNKNOWN: u8 = 255;

/// One entry of a layer.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Relative, `/`-separated, without a leading `/`.
    pub path: String,
    /// Permission bits (and set-id or sticky bits).
    pub mode: u32,
    pub uid: u64,
    pub gid: u64,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub enum Kind {
    Dir,
    File(Source),
    /// A symbolic link to the target given.
    Symlink(String),
}

/// Where a file's contents come from.
#[derive(Debug, Clone)]
pub enum Source {
    Bytes(Vec<u8>),
    /// Read while the layer is written; it must keep its size meanwhile.
    Path(PathBuf),
}

impl Entry {
    /// A directory owned by root.
    pub fn dir(path: impl Into<String>, mode: u32) -> Entry {
        Entry {
            path: path.into(),
            mode,
            uid: 0,
            gid: 0,
            kind: Kind::Dir,
        }
    }

    /// A file owned by root.
    pub fn file(path: impl Into<String>, mode: u32, source: Source) -> Entry {
        Entry {
            path: path.into(),
            mode,
            uid: 0,
            gid: 0,
            kind: Kind::File(source),
        }
    }

    /// A symbolic link owned by root.
    pub fn symlink(path: impl Into<String>, target: impl Into<String>) -> Entry {
        Entry {
            path: path.into(),
            mode: 0o777,
            uid: 0,
            gid: 0,
            kind: Kind::Symlink(target.into()),
        }
    }
}

/// The digests of a written layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// `sha256:…` of the compressed bytes.
    pub digest: String,
    /// Compressed size.
    pub size: u64,
    /// `sha256:…` of the tar.
    pub diff_id: String,
}

/// A writer that hashes and counts what passes through it.
struct Hashing<W> {
    inner: W,
    hash: sha2::Sha256,
    count: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(bytes)?;
        self.hash.update(&bytes[..written]);
        self.count += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W> Hashing<W> {
    fn new(inner: W) -> Hashing<W> {
        Hashing {
            inner,
            hash: sha2::Sha256::new(),
            count: 0,
        }
    }

    fn digest(self) -> (W, String, u64) {
        let hex = sha256_hex(&self.hash.finalize());
        (self.inner, format!("sha256:{hex}"), self.count)
    }
}

type Compressed<W> = Hashing<flate2::write::GzEncoder<Hashing<W>>>;

/// A layer being written into `W` (a file, or memory).
pub struct LayerWriter<W: Write> {
    tar: tar::Builder<Compressed<W>>,
    mtime: u64,
}

impl<W: Write> LayerWriter<W> {
    /// Every entry gets the modification time `mtime` (seconds since the epoch).
    pub fn new(out: W, mtime: u64) -> LayerWriter<W> {
        let gzip = flate2::GzBuilder::new()
            .mtime(0)
            .operating_system(GZIP_OS_UNKNOWN)
            .write(Hashing::new(out), flate2::Compression::new(GZIP_LEVEL));
        let tar = tar::Builder::new(Hashing::new(gzip));
        LayerWriter { tar, mtime }
    }

    /// Appends `entry`; a file given by path is streamed from disk.
    pub fn append(&mut self, entry: &Entry) -> std::io::Result<()> {
        let mut header = tar::Header::new_gnu();
        header.set_mtime(self.mtime);
        header.set_uid(entry.uid);
        header.set_gid(entry.gid);
        header.set_mode(entry.mode);
        match &entry.kind {
            Kind::Dir => {
                header.set_entry_type(tar::EntryType::Directory);
                header.set_size(0);
                let path = if entry.path.ends_with('/') {
                    entry.path.clone()
                } else {
                    format!("{}/", entry.path)
                };
                self.tar.append_data(&mut header, path, std::io::empty())
            }
            Kind::Symlink(target) => {
                header.set_entry_type(tar::EntryType::Symlink);
                header.set_size(0);
                self.tar.append_link(&mut header, &entry.path, target)
            }
            Kind::File(Source::Bytes(bytes)) => {
                header.set_entry_type(tar::EntryType::Regular);
                header.set_size(bytes.len() as u64);
                self.tar
                    .append_data(&mut header, &entry.path, bytes.as_slice())
            }
            Kind::File(Source::Path(path)) => {
                let file = std::fs::File::open(path)?;
                let size = file.metadata()?.len();
                header.set_entry_type(tar::EntryType::Regular);
                header.set_size(size);
                let reader = Exact {
                    inner: file.take(size),
                    remaining: size,
                    path,
                };
                self.tar.append_data(&mut header, &entry.path, reader)
            }
        }
    }

    /// Ends the tar and the gzip stream; the digests and the output.
    pub fn finish(self) -> std::io::Result<(W, Written)> {
        let tar = self.tar.into_inner()?;
        let (gzip, diff_id, _) = tar.digest();
        let out = gzip.finish()?;
        let (mut out, digest, size) = out.digest();
        out.flush()?;
        Ok((
            out,
            Written {
                digest,
                size,
                diff_id,
            },
        ))
    }
}

/// Reads exactly `remaining` bytes, failing if the file ends sooner (it
/// shrank while the layer was written).
struct Exact<'a, R> {
    inner: R,
    remaining: u64,
    path: &'a Path,
}

impl<R: Read> Read for Exact<'_, R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if self.remaining == 0 {
            return Ok(0);
        }
        let read = self.inner.read(buffer)?;
        if read == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("{} changed while it was read", self.path.display()),
            ));
        }
        self.remaining -= read as u64;
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(entries: &[Entry], mtime: u64) -> (Vec<u8>, Written) {
        let mut writer = LayerWriter::new(Vec::new(), mtime);
        for entry in entries {
            writer.append(entry).unwrap();
        }
        writer.finish().unwrap()
    }

    fn gunzip(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    #[test]
    fn digests_are_of_the_compressed_bytes_and_of_the_tar() {
        let (bytes, written) = layer(
            &[
                Entry::dir("bin", 0o755),
                Entry::file("bin/a", 0o755, Source::Bytes(b"#!x".to_vec())),
                Entry::symlink("bin/b", "a"),
            ],
            0,
        );
        assert_eq!(written.size, bytes.len() as u64);
        assert_eq!(
            written.digest,
            format!("sha256:{}", sha256_hex(&sha2::Sha256::digest(&bytes)))
        );
        let tar = gunzip(&bytes);
        assert_eq!(
            written.diff_id,
            format!("sha256:{}", sha256_hex(&sha2::Sha256::digest(&tar)))
        );
        // Magic, deflate, no flags, mtime 0, then XFL and OS 255.
        assert_eq!(&bytes[..8], &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0]);
        assert_eq!(bytes[9], GZIP_OS_UNKNOWN);

        let mut archive = tar::Archive::new(tar.as_slice());
        let entries: Vec<(String, u32, tar::EntryType, Option<String>)> = archive
            .entries()
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let header = e.header();
                (
                    e.path().unwrap().display().to_string(),
                    header.mode().unwrap(),
                    header.entry_type(),
                    e.link_name().unwrap().map(|l| l.display().to_string()),
                )
            })
            .collect();
        assert_eq!(
            entries,
            [
                ("bin/".to_string(), 0o755, tar::EntryType::Directory, None),
                ("bin/a".to_string(), 0o755, tar::EntryType::Regular, None),
                (
                    "bin/b".to_string(),
                    0o777,
                    tar::EntryType::Symlink,
                    Some("a".to_string())
                ),
            ]
        );
    }

    #[test]
    fn the_same_entries_give_the_same_layer_and_mtime_is_honoured() {
        let temp = tempfile::tempdir().unwrap();
        let file = temp.path().join("f");
        std::fs::write(&file, "payload").unwrap();
        let entries = [
            Entry::dir("configs", 0o755),
            Entry {
                path: "configs/f".into(),
                mode: 0o664,
                uid: 1001,
                gid: 0,
                kind: Kind::File(Source::Path(file.clone())),
            },
        ];
        let (one, a) = layer(&entries, 1_700_000_000);
        let (two, b) = layer(&entries, 1_700_000_000);
        assert_eq!((one, a.clone()), (two, b));
        let (_, other) = layer(&entries, 0);
        assert_ne!(other.diff_id, a.diff_id);
        let tar = gunzip(&layer(&entries, 1_700_000_000).0);
        let mut archive = tar::Archive::new(tar.as_slice());
        for entry in archive.entries().unwrap() {
            let entry = entry.unwrap();
            assert_eq!(entry.header().mtime().unwrap(), 1_700_000_000);
        }
        let tar = gunzip(&layer(&entries, 0).0);
        let mut archive = tar::Archive::new(tar.as_slice());
        let mut entries = archive.entries().unwrap();
        entries.next();
        let mut file_entry = entries.next().unwrap().unwrap();
        assert_eq!(file_entry.header().uid().unwrap(), 1001);
        let mut text = String::new();
        file_entry.read_to_string(&mut text).unwrap();
        assert_eq!(text, "payload");
    }
}
