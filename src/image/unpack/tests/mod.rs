use super::*;
use std::io::Write as _;

use std::os::unix::fs::PermissionsExt as _;

mod paths;
mod streams;

const TAR: &str = "application/vnd.oci.image.layer.v1.tar";
const TAR_GZIP: &str = "application/vnd.oci.image.layer.v1.tar+gzip";
const TAR_ZSTD: &str = "application/vnd.oci.image.layer.v1.tar+zstd";
const DOCKER_GZIP: &str = "application/vnd.docker.image.rootfs.diff.tar.gzip";

/// Two zstd frames made by the `zstd` CLI (1.5.4), the first with a content
/// checksum, the second without, of a ustar archive (GNU tar) holding
/// `manifests/csv.yaml` and `metadata/annotations.yaml`.
const ZSTD_FIXTURE: &[u8] = include_bytes!("../testdata/layer.tar.zst");

/// A layer built with the tar crate's `Builder`, which only accepts
/// well-formed names. Files and directories get the usual modes unless a
/// test is about modes (`file_mode`, `dir_mode`).
struct Layer {
    builder: tar::Builder<Vec<u8>>,
}

impl Layer {
    fn new() -> Layer {
        Layer {
            builder: tar::Builder::new(Vec::new()),
        }
    }

    fn header(kind: tar::EntryType, mode: u32, size: u64) -> tar::Header {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(kind);
        header.set_mode(mode);
        header.set_size(size);
        header.set_mtime(0);
        header
    }

    /// A directory with the usual mode, 0o755.
    fn dir(self, path: &str) -> Layer {
        self.dir_mode(path, 0o755)
    }

    fn dir_mode(mut self, path: &str, mode: u32) -> Layer {
        let mut header = Layer::header(tar::EntryType::Directory, mode, 0);
        self.builder
            .append_data(&mut header, path, io::empty())
            .unwrap();
        self
    }

    /// A regular file with the usual mode, 0o644.
    fn file(self, path: &str, data: &[u8]) -> Layer {
        self.file_mode(path, 0o644, data)
    }

    fn file_mode(mut self, path: &str, mode: u32, data: &[u8]) -> Layer {
        let mut header = Layer::header(tar::EntryType::Regular, mode, data.len() as u64);
        self.builder.append_data(&mut header, path, data).unwrap();
        self
    }

    fn symlink(mut self, path: &str, target: &str) -> Layer {
        let mut header = Layer::header(tar::EntryType::Symlink, 0o777, 0);
        self.builder.append_link(&mut header, path, target).unwrap();
        self
    }

    fn hard_link(mut self, path: &str, target: &str) -> Layer {
        let mut header = Layer::header(tar::EntryType::Link, 0o644, 0);
        self.builder.append_link(&mut header, path, target).unwrap();
        self
    }

    fn tar(self) -> Vec<u8> {
        self.builder.into_inner().unwrap()
    }
}

/// Appends one entry written byte by byte, for names and links the builder
/// refuses (`..`, absolute), and odd types.
fn raw_entry(out: &mut Vec<u8>, name: &[u8], kind: tar::EntryType, link: &[u8], data: &[u8]) {
    raw_entry_sized(out, name, kind, link, data, data.len() as u64);
}

fn raw_entry_sized(
    out: &mut Vec<u8>,
    name: &[u8],
    kind: tar::EntryType,
    link: &[u8],
    data: &[u8],
    size: u64,
) {
    let mut header = tar::Header::new_gnu();
    header.as_old_mut().name[..name.len()].copy_from_slice(name);
    header.as_old_mut().linkname[..link.len()].copy_from_slice(link);
    header.set_entry_type(kind);
    header.set_mode(0o644);
    header.set_size(size);
    header.set_mtime(0);
    header.set_cksum();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out.resize(out.len().next_multiple_of(512), 0);
}

fn raw_end(mut out: Vec<u8>) -> Vec<u8> {
    out.extend_from_slice(&[0; 1024]);
    out
}

fn raw_layer(entries: &[(&[u8], tar::EntryType, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, kind, link) in entries {
        raw_entry(&mut out, name, *kind, link, b"");
    }
    raw_end(out)
}

/// A layer of entries with contents (and no link target): name, type, data.
fn raw_files(entries: &[(&[u8], tar::EntryType, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, kind, data) in entries {
        raw_entry(&mut out, name, *kind, b"", data);
    }
    raw_end(out)
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

/// A temporary directory holding `dest`, so that a write escaping `dest`
/// lands somewhere the test can see.
struct Sandbox {
    root: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        let root = tempfile::tempdir().unwrap();
        fs::create_dir(root.path().join("dest")).unwrap();
        Sandbox { root }
    }

    fn dest(&self) -> PathBuf {
        self.root.path().join("dest")
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dest().join(rel)
    }

    fn apply(&self, layers: &[(&[u8], &str)]) -> Result<State, UnpackError> {
        self.apply_with(layers, Limits::default())
    }

    fn apply_with(&self, layers: &[(&[u8], &str)], limits: Limits) -> Result<State, UnpackError> {
        let mut state = State::new(limits);
        for (data, media_type) in layers {
            apply_layer(*data, media_type, &self.dest(), &mut state)?;
        }
        Ok(state)
    }

    fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path(rel)).unwrap()
    }

    fn mode(&self, rel: &str) -> u32 {
        fs::symlink_metadata(self.path(rel))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    }

    fn exists(&self, rel: &str) -> bool {
        fs::symlink_metadata(self.path(rel)).is_ok()
    }

    fn link(&self, rel: &str) -> PathBuf {
        fs::read_link(self.path(rel)).unwrap()
    }

    /// Everything in the sandbox outside `dest`.
    fn outside(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name != "dest")
            .collect();
        names.sort();
        names
    }
}

fn refusal(result: Result<State, UnpackError>) -> (String, Refusal) {
    match result {
        Err(UnpackError::Refused { entry, reason }) => (entry, reason),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn extracts_nested_directories_and_files() {
    let sandbox = Sandbox::new();
    let layer = Layer::new()
        .dir("manifests/")
        .file("manifests/csv.yaml", b"kind: ClusterServiceVersion\n")
        .dir("metadata/")
        .file("metadata/annotations.yaml", b"annotations: {}\n")
        // No directory entries for these parents: they are created.
        .file("a/b/c/deep.txt", b"deep")
        .tar();
    let state = sandbox.apply(&[(&layer, TAR)]).unwrap();
    assert_eq!(
        sandbox.read("manifests/csv.yaml"),
        "kind: ClusterServiceVersion\n"
    );
    assert_eq!(
        sandbox.read("metadata/annotations.yaml"),
        "annotations: {}\n"
    );
    assert_eq!(sandbox.read("a/b/c/deep.txt"), "deep");
    assert_eq!(sandbox.mode("a/b"), 0o755);
    assert_eq!(state.entries(), 5);
    // Everything up to the first end-of-archive block was read and counted.
    assert_eq!(state.bytes(), layer.len() as u64 - 512);
    assert!(sandbox.outside().is_empty());
}

#[test]
fn modes_gain_owner_access_and_lose_special_bits() {
    let sandbox = Sandbox::new();
    let layer = Layer::new()
        .dir_mode("ro/", 0o500)
        .dir_mode("shared/", 0o2775)
        .file_mode("ro/readonly", 0o400, b"r")
        .file_mode("exec", 0o755, b"x")
        .file_mode("none", 0o000, b"n")
        .file_mode("setuid", 0o4755, b"s")
        .file_mode("sticky", 0o1666, b"t")
        .tar();
    sandbox.apply(&[(&layer, TAR)]).unwrap();
    assert_eq!(sandbox.mode("ro"), 0o700);
    assert_eq!(sandbox.mode("shared"), 0o775);
    assert_eq!(sandbox.mode("ro/readonly"), 0o600);
    assert_eq!(sandbox.mode("exec"), 0o755);
    assert_eq!(sandbox.mode("none"), 0o600);
    assert_eq!(sandbox.mode("setuid"), 0o755);
    assert_eq!(sandbox.mode("sticky"), 0o666);
}

#[test]
fn root_and_dot_prefixes_are_accepted() {
    let sandbox = Sandbox::new();
    let layer = raw_files(&[
        (b"./", tar::EntryType::Directory, b""),
        (b"./x", tar::EntryType::Regular, b"dot"),
        (b"y", tar::EntryType::Regular, b"plain"),
        (b".//z/./w", tar::EntryType::Regular, b"odd"),
        // An old-style regular entry whose name ends in `/` is a directory.
        (b"olddir/", tar::EntryType::new(0), b""),
    ]);
    sandbox.apply(&[(&layer, TAR)]).unwrap();
    assert_eq!(sandbox.read("x"), "dot");
    assert_eq!(sandbox.read("y"), "plain");
    assert_eq!(sandbox.read("z/w"), "odd");
    assert!(sandbox.path("olddir").is_dir());
}

#[test]
fn only_a_directory_may_name_the_root() {
    let sandbox = Sandbox::new();
    let layer = raw_layer(&[(b"./", tar::EntryType::Regular, b"")]);
    // `./` as a regular entry is a directory (old-style); a symlink is not.
    sandbox.apply(&[(&layer, TAR)]).unwrap();
    let layer = raw_layer(&[(b"/", tar::EntryType::Symlink, b"x")]);
    assert_eq!(
        refusal(sandbox.apply(&[(&layer, TAR)])),
        ("/".to_string(), Refusal::RootEntry)
    );
}

#[test]
fn later_layers_overwrite_earlier_ones() {
    let sandbox = Sandbox::new();
    let first = Layer::new()
        .file("file", b"old")
        .file("becomes-dir", b"file")
        .dir("becomes-file/")
        .file("becomes-file/inside", b"inside")
        .dir("merged/")
        .file("merged/kept", b"kept")
        .symlink("link", "file")
        .tar();
    let second = Layer::new()
        .file_mode("file", 0o600, b"new")
        .dir_mode("becomes-dir/", 0o750)
        .file("becomes-dir/child", b"child")
        .file("becomes-file", b"now a file")
        .dir_mode("merged/", 0o700)
        .file("merged/added", b"added")
        // Writing over a symlink replaces the link, never its target.
        .file("link", b"link replaced")
        .tar();
    sandbox
        .apply(&[(&first, TAR), (&gzip(&second), TAR_GZIP)])
        .unwrap();
    assert_eq!(sandbox.read("file"), "new");
    assert_eq!(sandbox.mode("file"), 0o600);
    assert_eq!(sandbox.read("becomes-dir/child"), "child");
    assert_eq!(sandbox.mode("becomes-dir"), 0o750);
    assert_eq!(sandbox.read("becomes-file"), "now a file");
    assert_eq!(sandbox.read("merged/kept"), "kept");
    assert_eq!(sandbox.read("merged/added"), "added");
    assert_eq!(sandbox.mode("merged"), 0o700);
    assert!(!fs::symlink_metadata(sandbox.path("link"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(sandbox.read("link"), "link replaced");
}

#[test]
fn directory_entry_replaces_a_symlink_instead_of_following_it() {
    let sandbox = Sandbox::new();
    let first = Layer::new()
        .dir("real/")
        .file("real/old", b"old")
        .symlink("d", "real")
        .tar();
    let second = Layer::new().dir("d/").file("d/new", b"new").tar();
    sandbox.apply(&[(&first, TAR), (&second, TAR)]).unwrap();
    assert!(fs::symlink_metadata(sandbox.path("d")).unwrap().is_dir());
    assert_eq!(sandbox.read("d/new"), "new");
    assert!(!sandbox.exists("real/new"));
    assert_eq!(sandbox.read("real/old"), "old");
}

#[test]
fn whiteouts_remove_earlier_content_and_are_not_written() {
    let sandbox = Sandbox::new();
    let first = Layer::new()
        .file("gone", b"x")
        .dir("gone-dir/")
        .file("gone-dir/child", b"x")
        .file("kept", b"x")
        .dir("sub/")
        .file("sub/gone", b"x")
        .file("target", b"target")
        .symlink("link", "target")
        .tar();
    let second = Layer::new()
        .file(".wh.gone", b"")
        .file(".wh.gone-dir", b"")
        .file("sub/.wh.gone", b"")
        // Whiting out a link removes the link, not what it points to.
        .file(".wh.link", b"")
        // Nothing to hide: fine.
        .file(".wh.never-there", b"")
        .file("missing-dir/.wh.x", b"")
        // aufs bookkeeping names are ignored.
        .file(".wh..wh.plnk", b"")
        .tar();
    sandbox.apply(&[(&first, TAR), (&second, TAR)]).unwrap();
    assert!(!sandbox.exists("gone"));
    assert!(!sandbox.exists("gone-dir"));
    assert!(!sandbox.exists("sub/gone"));
    assert!(!sandbox.exists("link"));
    assert!(sandbox.exists("kept"));
    assert_eq!(sandbox.read("target"), "target");
    assert!(sandbox.path("sub").is_dir());
    assert!(!sandbox.exists("missing-dir"));
    let mut names: Vec<String> = fs::read_dir(sandbox.dest())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["kept", "sub", "target"]);
}

#[test]
fn whiteout_does_not_hide_its_own_layer() {
    let sandbox = Sandbox::new();
    let first = Layer::new().file("f", b"lower").tar();
    // The file comes before its whiteout in the same layer: the whiteout
    // hides only the lower copy, which the new one replaced.
    let second = Layer::new().file("f", b"upper").file(".wh.f", b"").tar();
    sandbox.apply(&[(&first, TAR), (&second, TAR)]).unwrap();
    assert_eq!(sandbox.read("f"), "upper");
}

#[test]
fn opaque_whiteout_clears_the_directory_of_earlier_layers_only() {
    let sandbox = Sandbox::new();
    let first = Layer::new()
        .dir("d/")
        .file("d/old", b"old")
        .dir("d/sub/")
        .file("d/sub/old", b"old")
        .file("d/sub/also-old", b"old")
        .file("outside-d", b"kept")
        .tar();
    // The marker comes after some of this layer's entries in `d`: they stay.
    let second = Layer::new()
        .file("d/sub/new", b"new")
        .dir("d/")
        .file("d/.wh..wh..opq", b"")
        .file("d/later", b"later")
        .tar();
    sandbox.apply(&[(&first, TAR), (&second, TAR)]).unwrap();
    assert!(!sandbox.exists("d/old"));
    assert!(!sandbox.exists("d/sub/old"));
    assert!(!sandbox.exists("d/sub/also-old"));
    assert_eq!(sandbox.read("d/sub/new"), "new");
    assert_eq!(sandbox.read("d/later"), "later");
    assert_eq!(sandbox.read("outside-d"), "kept");
    assert!(!sandbox.exists("d/.wh..wh..opq"));
}
