//! Upstream's cache digest (`pkg/cache/json.go`, `pkg/cache/tar.go`): FNV-64a
//! over a tar stream of the catalog directory followed by a tar stream of the
//! cache's `cache/` directory, each written the way Go's `archive/tar` writes
//! the entries of `fs.WalkDir` with owner, group and times zeroed (only name,
//! mode, size and type remain). Reproduced byte for byte, so that upstream's
//! `opm serve` accepts a cache we wrote and we accept one it wrote.

use std::io::Read as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

const BLOCK: usize = 512;
const NAME_SIZE: usize = 100;
const PREFIX_SIZE: usize = 155;
/// The largest size an 11-digit octal field holds.
const MAX_OCTAL_SIZE: u64 = 0o777_7777_7777;

/// FNV-64a.
#[derive(Debug, Clone, Copy)]
pub struct Fnv64a(u64);

impl Default for Fnv64a {
    fn default() -> Self {
        Fnv64a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv64a {
    pub fn write(&mut self, bytes: &[u8]) {
        let mut hash = self.0;
        for &byte in bytes {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = hash;
    }

    /// The sum as Go's `%x` of its 8 big-endian bytes.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

/// Why a directory could not be hashed.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct DigestError {
    pub path: String,
    #[source]
    pub source: std::io::Error,
}

impl DigestError {
    /// Whether the directory itself did not exist (upstream skips a missing
    /// cache tree).
    fn is_missing_root(&self) -> bool {
        self.path == "." && self.source.kind() == std::io::ErrorKind::NotFound
    }
}

/// The digest of a catalog and a cache tree (the `cache/` directory, which
/// may be absent).
pub fn digest(catalog: &Path, cache_tree: &Path) -> Result<String, DigestError> {
    let mut hash = Fnv64a::default();
    write_tar(&mut hash, catalog)?;
    match write_tar(&mut hash, cache_tree) {
        Err(error) if error.is_missing_root() => {}
        other => other?,
    }
    Ok(hash.hex())
}

/// Hashes the tar stream of `root` (entries named as `fs.WalkDir` names
/// them: `.`, then relative paths, lexically, depth first; symbolic links
/// left out), ending with the two zero blocks of `tar.Writer.Close`.
pub fn write_tar(hash: &mut Fnv64a, root: &Path) -> Result<(), DigestError> {
    let fail = |path: &[u8], source| DigestError {
        path: String::from_utf8_lossy(path).into_owned(),
        source,
    };
    let meta = std::fs::metadata(root).map_err(|e| fail(b".", e))?;
    let mut buffer = vec![0; 64 * 1024];
    walk(hash, root, b".".to_vec(), &meta, &mut buffer, &fail)?;
    hash.write(&[0; 2 * BLOCK]);
    Ok(())
}

fn walk(
    hash: &mut Fnv64a,
    path: &Path,
    name: Vec<u8>,
    meta: &std::fs::Metadata,
    buffer: &mut [u8],
    fail: &dyn Fn(&[u8], std::io::Error) -> DigestError,
) -> Result<(), DigestError> {
    let mode = meta.permissions().mode() & 0o7777;
    if meta.is_dir() {
        write_header(hash, &name, mode, 0, b'5');
        let mut entries = std::fs::read_dir(path)
            .map_err(|e| fail(&name, e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| fail(&name, e))?;
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            let file_type = entry.file_type().map_err(|e| fail(&name, e))?;
            if file_type.is_symlink() {
                continue;
            }
            let child = if name == b"." {
                entry.file_name().as_bytes().to_vec()
            } else {
                [&name[..], b"/", entry.file_name().as_bytes()].concat()
            };
            let meta = entry.metadata().map_err(|e| fail(&child, e))?;
            walk(hash, &entry.path(), child, &meta, buffer, fail)?;
        }
        return Ok(());
    }
    if !meta.is_file() {
        return Err(fail(
            &name,
            std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "only regular files and directories can be hashed",
            ),
        ));
    }
    let size = meta.len();
    write_header(hash, &name, mode, size, b'0');
    let mut file = std::fs::File::open(path).map_err(|e| fail(&name, e))?;
    let mut total = 0u64;
    loop {
        let read = file.read(buffer).map_err(|e| fail(&name, e))?;
        if read == 0 {
            break;
        }
        total += read as u64;
        if total > size {
            break;
        }
        hash.write(&buffer[..read]);
    }
    if total != size {
        return Err(fail(
            &name,
            std::io::Error::other("the file changed size while it was read"),
        ));
    }
    let pad = (BLOCK - (size % BLOCK as u64) as usize) % BLOCK;
    hash.write(&[0; BLOCK][..pad]);
    Ok(())
}

/// Go's `splitUSTARPath`: a long ASCII name split at a slash into a prefix
/// (at most 155 bytes) and a name (at most 100).
fn split_ustar(name: &[u8]) -> Option<(&[u8], &[u8])> {
    let mut length = name.len();
    if length <= NAME_SIZE || !name.is_ascii() {
        return None;
    }
    if length > PREFIX_SIZE + 1 {
        length = PREFIX_SIZE + 1;
    } else if name[length - 1] == b'/' {
        length -= 1;
    }
    let i = name[..length].iter().rposition(|&b| b == b'/')?;
    let suffix = name.len() - i - 1;
    if i == 0 || suffix > NAME_SIZE || suffix == 0 || i > PREFIX_SIZE {
        return None;
    }
    Some((&name[..i], &name[i + 1..]))
}

/// Go's `formatString`: copy, NUL-terminate when shorter; when longer, the
/// first bytes, without a trailing slash.
fn put_string(field: &mut [u8], value: &[u8]) {
    let n = value.len().min(field.len());
    field[..n].copy_from_slice(&value[..n]);
    if value.len() < field.len() {
        field[value.len()] = 0;
    }
    if value.len() > field.len() && field[field.len() - 1] == b'/' {
        let kept = field.iter().rposition(|&b| b != b'/').map_or(0, |i| i + 1);
        field[kept] = 0;
    }
}

/// Go's `formatOctal`: zero-padded octal digits and a NUL; zero when the
/// value does not fit.
fn put_octal(field: &mut [u8], value: u64) {
    let digits = field.len() - 1;
    let value = if value < 1 << (3 * digits) { value } else { 0 };
    let text = format!("{value:0digits$o}");
    put_string(field, text.as_bytes());
}

/// Magic, version and checksum (Go's `block.setFormat` for USTAR and PAX).
fn finish(block: &mut [u8; BLOCK]) {
    block[257..263].copy_from_slice(b"ustar\0");
    block[263..265].copy_from_slice(b"00");
    let sum: u64 = block
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if (148..156).contains(&i) {
                32
            } else {
                u64::from(b)
            }
        })
        .sum();
    put_octal(&mut block[148..155], sum);
    block[155] = b' ';
}

/// Go's `templateV7Plus`: every numeric field written, times zero.
fn template(name: &[u8], prefix: &[u8], mode: u32, size: u64, typeflag: u8) -> [u8; BLOCK] {
    let mut block = [0; BLOCK];
    block[156] = typeflag;
    put_string(&mut block[0..100], name);
    put_string(&mut block[157..257], b"");
    put_octal(&mut block[100..108], u64::from(mode));
    put_octal(&mut block[108..116], 0);
    put_octal(&mut block[116..124], 0);
    put_octal(&mut block[124..136], size);
    put_octal(&mut block[136..148], 0);
    put_string(&mut block[265..297], b"");
    put_string(&mut block[297..329], b"");
    put_octal(&mut block[329..337], 0);
    put_octal(&mut block[337..345], 0);
    put_string(&mut block[345..500], prefix);
    block
}

/// Go's `formatPAXRecord`: `<length> <key>=<value>\n`, the length counting itself.
fn pax_record(key: &str, value: &[u8]) -> Vec<u8> {
    let record = |size: usize| {
        [
            size.to_string().as_bytes(),
            b" ",
            key.as_bytes(),
            b"=",
            value,
            b"\n",
        ]
        .concat()
    };
    let mut size = key.len() + value.len() + 3;
    size += size.to_string().len();
    let first = record(size);
    if first.len() == size {
        first
    } else {
        record(first.len())
    }
}

/// One entry's header, as `tar.Writer.WriteHeader` picks the format: USTAR
/// when the name and size fit, otherwise PAX records for them.
fn write_header(hash: &mut Fnv64a, name: &[u8], mode: u32, size: u64, typeflag: u8) {
    let long = !name.is_ascii() || name.len() > NAME_SIZE;
    let split = split_ustar(name);
    let ustar_name = !long || split.is_some();
    if ustar_name && size <= MAX_OCTAL_SIZE {
        let (prefix, short) = split.unwrap_or((b"", name));
        let mut block = template(short, prefix, mode, size, typeflag);
        finish(&mut block);
        hash.write(&block);
        return;
    }
    let mut records = Vec::new();
    if long {
        records.extend(pax_record("path", name));
    }
    if size > MAX_OCTAL_SIZE {
        records.extend(pax_record("size", size.to_string().as_bytes()));
    }
    // The extended header's own name: <dir>/PaxHeaders.0/<file>, ASCII only,
    // at most 100 bytes, no trailing slash.
    let cut = name.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
    let (dir, file) = name.split_at(cut);
    let dir = dir.strip_suffix(b"/").unwrap_or(dir);
    let joined: Vec<u8> = if dir.is_empty() {
        [b"PaxHeaders.0/", file].concat()
    } else {
        [dir, b"/PaxHeaders.0/", file].concat()
    };
    let mut pax_name: Vec<u8> = joined.into_iter().filter(u8::is_ascii).collect();
    pax_name.truncate(NAME_SIZE);
    while pax_name.last() == Some(&b'/') {
        pax_name.pop();
    }
    let mut block = [0; BLOCK];
    block[156] = b'x';
    put_string(&mut block[0..100], &pax_name);
    put_octal(&mut block[100..108], 0);
    put_octal(&mut block[108..116], 0);
    put_octal(&mut block[116..124], 0);
    put_octal(&mut block[124..136], records.len() as u64);
    put_octal(&mut block[136..148], 0);
    finish(&mut block);
    hash.write(&block);
    hash.write(&records);
    hash.write(&[0; BLOCK][..(BLOCK - records.len() % BLOCK) % BLOCK]);

    let ascii: Vec<u8> = name.iter().copied().filter(u8::is_ascii).collect();
    let mut block = template(&ascii, b"", mode, size, typeflag);
    finish(&mut block);
    hash.write(&block);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv64a_known_values() {
        let mut hash = Fnv64a::default();
        assert_eq!(hash.hex(), "cbf29ce484222325");
        hash.write(b"a");
        assert_eq!(hash.hex(), "af63dc4c8601ec8c");
    }

    #[test]
    fn pax_record_lengths() {
        assert_eq!(pax_record("path", b"abc"), b"12 path=abc\n");
        // 98 bytes without the length: two digits make 100, which needs three.
        let record = pax_record("path", &[b'x'; 91]);
        assert_eq!(record.len(), 101);
        assert!(record.starts_with(b"101 path="));
    }

    fn file(path: &Path, text: &str, mode: u32) {
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn dir(path: &Path, mode: u32) {
        std::fs::create_dir_all(path).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    /// The expected values were computed by Go 1.19 running upstream's
    /// `fsToTar` and `ComputeDigest` on the same tree: USTAR names, a name
    /// split into prefix and name, PAX names (too long, not ASCII), set-uid
    /// and sticky modes, an empty file and a symbolic link (left out).
    #[test]
    fn digest_matches_go_archive_tar() {
        let temp = tempfile::tempdir().unwrap();
        let catalog = temp.path().join("catalog");
        dir(&catalog.join("dir"), 0o755);
        dir(&catalog, 0o755);
        file(&catalog.join("a.json"), "{}\n", 0o644);
        file(&catalog.join("dir/b.yaml"), "x: 1\n", 0o600);
        file(
            &catalog.join(format!("dir/{}.json", "l".repeat(120))),
            "long\n",
            0o644,
        );
        let split = catalog.join("d".repeat(60));
        dir(&split, 0o755);
        file(
            &split.join(format!("{}.json", "e".repeat(50))),
            "split",
            0o644,
        );
        file(&catalog.join("é.json"), "", 0o4755);
        std::os::unix::fs::symlink("a.json", catalog.join("link")).unwrap();
        let base = temp.path().join("base");
        dir(&base.join("cache/metas/s/p"), 0o750);
        for d in ["cache", "cache/metas", "cache/metas/s"] {
            dir(&base.join(d), 0o750);
        }
        file(&base.join("cache/packages.json"), "{}", 0o640);
        file(&base.join("cache/metas/s/p/x.json"), "{\"a\":1}\n", 0o640);

        assert_eq!(
            digest(&catalog, &base.join("cache")).unwrap(),
            "cccaa2459edddc58"
        );
        assert_eq!(
            digest(&catalog, &base.join("none")).unwrap(),
            "1f82b00d0945f2a3"
        );
    }

    #[test]
    fn ustar_split() {
        let long = [vec![b'd'; 60], b"/".to_vec(), vec![b'f'; 60]].concat();
        assert_eq!(split_ustar(&long), Some((&long[..60], &long[61..])));
        assert_eq!(split_ustar(&[b'f'; 120]), None);
        assert_eq!(split_ustar(b"short/name"), None);
    }
}
