use super::*;
use std::io::Write as _;

use std::os::unix::fs::PermissionsExt as _;

const TAR: &str = "application/vnd.oci.image.layer.v1.tar";
const TAR_GZIP: &str = "application/vnd.oci.image.layer.v1.tar+gzip";
const TAR_ZSTD: &str = "application/vnd.oci.image.layer.v1.tar+zstd";
const DOCKER_GZIP: &str = "application/vnd.docker.image.rootfs.diff.tar.gzip";

/// Two zstd frames made by the `zstd` CLI (1.5.4), the first with a content
/// checksum, the second without, of a ustar archive (GNU tar) holding
/// `manifests/csv.yaml` and `metadata/annotations.yaml`.
const ZSTD_FIXTURE: &[u8] = include_bytes!("testdata/layer.tar.zst");

/// A layer built with the tar crate's `Builder`, which only accepts
/// well-formed names.
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

    fn dir(mut self, path: &str, mode: u32) -> Layer {
        let mut header = Layer::header(tar::EntryType::Directory, mode, 0);
        self.builder
            .append_data(&mut header, path, io::empty())
            .unwrap();
        self
    }

    fn file(mut self, path: &str, mode: u32, data: &[u8]) -> Layer {
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
        .dir("manifests/", 0o755)
        .file(
            "manifests/csv.yaml",
            0o644,
            b"kind: ClusterServiceVersion\n",
        )
        .dir("metadata/", 0o755)
        .file("metadata/annotations.yaml", 0o644, b"annotations: {}\n")
        // No directory entries for these parents: they are created.
        .file("a/b/c/deep.txt", 0o644, b"deep")
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
        .dir("ro/", 0o500)
        .dir("shared/", 0o2775)
        .file("ro/readonly", 0o400, b"r")
        .file("exec", 0o755, b"x")
        .file("none", 0o000, b"n")
        .file("setuid", 0o4755, b"s")
        .file("sticky", 0o1666, b"t")
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
    let mut out = Vec::new();
    raw_entry(&mut out, b"./", tar::EntryType::Directory, b"", b"");
    raw_entry(&mut out, b"./x", tar::EntryType::Regular, b"", b"dot");
    raw_entry(&mut out, b"y", tar::EntryType::Regular, b"", b"plain");
    raw_entry(&mut out, b".//z/./w", tar::EntryType::Regular, b"", b"odd");
    // An old-style regular entry whose name ends in `/` is a directory.
    raw_entry(&mut out, b"olddir/", tar::EntryType::new(0), b"", b"");
    sandbox.apply(&[(&raw_end(out), TAR)]).unwrap();
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
        .file("file", 0o644, b"old")
        .file("becomes-dir", 0o644, b"file")
        .dir("becomes-file/", 0o755)
        .file("becomes-file/inside", 0o644, b"inside")
        .dir("merged/", 0o755)
        .file("merged/kept", 0o644, b"kept")
        .symlink("link", "file")
        .tar();
    let second = Layer::new()
        .file("file", 0o600, b"new")
        .dir("becomes-dir/", 0o750)
        .file("becomes-dir/child", 0o644, b"child")
        .file("becomes-file", 0o644, b"now a file")
        .dir("merged/", 0o700)
        .file("merged/added", 0o644, b"added")
        // Writing over a symlink replaces the link, never its target.
        .file("link", 0o644, b"link replaced")
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
        .dir("real/", 0o755)
        .file("real/old", 0o644, b"old")
        .symlink("d", "real")
        .tar();
    let second = Layer::new()
        .dir("d/", 0o755)
        .file("d/new", 0o644, b"new")
        .tar();
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
        .file("gone", 0o644, b"x")
        .dir("gone-dir/", 0o755)
        .file("gone-dir/child", 0o644, b"x")
        .file("kept", 0o644, b"x")
        .dir("sub/", 0o755)
        .file("sub/gone", 0o644, b"x")
        .file("target", 0o644, b"target")
        .symlink("link", "target")
        .tar();
    let second = Layer::new()
        .file(".wh.gone", 0o644, b"")
        .file(".wh.gone-dir", 0o644, b"")
        .file("sub/.wh.gone", 0o644, b"")
        // Whiting out a link removes the link, not what it points to.
        .file(".wh.link", 0o644, b"")
        // Nothing to hide: fine.
        .file(".wh.never-there", 0o644, b"")
        .file("missing-dir/.wh.x", 0o644, b"")
        // aufs bookkeeping names are ignored.
        .file(".wh..wh.plnk", 0o644, b"")
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
    let first = Layer::new().file("f", 0o644, b"lower").tar();
    // The file comes before its whiteout in the same layer: the whiteout
    // hides only the lower copy, which the new one replaced.
    let second = Layer::new()
        .file("f", 0o644, b"upper")
        .file(".wh.f", 0o644, b"")
        .tar();
    sandbox.apply(&[(&first, TAR), (&second, TAR)]).unwrap();
    assert_eq!(sandbox.read("f"), "upper");
}

#[test]
fn opaque_whiteout_clears_the_directory_of_earlier_layers_only() {
    let sandbox = Sandbox::new();
    let first = Layer::new()
        .dir("d/", 0o755)
        .file("d/old", 0o644, b"old")
        .dir("d/sub/", 0o755)
        .file("d/sub/old", 0o644, b"old")
        .file("d/sub/also-old", 0o644, b"old")
        .file("outside-d", 0o644, b"kept")
        .tar();
    // The marker comes after some of this layer's entries in `d`: they stay.
    let second = Layer::new()
        .file("d/sub/new", 0o644, b"new")
        .dir("d/", 0o755)
        .file("d/.wh..wh..opq", 0o644, b"")
        .file("d/later", 0o644, b"later")
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

#[test]
fn whiteout_of_dot_or_dotdot_is_refused() {
    let sandbox = Sandbox::new();
    for name in [&b"d/.wh.."[..], b"d/.wh..."] {
        let layer = raw_layer(&[
            (b"d/", tar::EntryType::Directory, b""),
            (name, tar::EntryType::Regular, b""),
        ]);
        let (_, reason) = refusal(sandbox.apply(&[(&layer, TAR)]));
        assert_eq!(reason, Refusal::BadWhiteout);
        assert!(sandbox.path("d").is_dir());
    }
}

#[test]
fn dotdot_escaping_the_root_is_refused() {
    for name in [&b"../evil"[..], b"a/../../evil", b"./../evil", b"/../evil"] {
        let sandbox = Sandbox::new();
        let layer = raw_layer(&[(name, tar::EntryType::Regular, b"")]);
        let (entry, reason) = refusal(sandbox.apply(&[(&layer, TAR)]));
        assert_eq!(entry.as_bytes(), name);
        assert_eq!(reason, Refusal::PathEscapes);
        assert!(sandbox.outside().is_empty());
    }
}

#[test]
fn dotdot_inside_the_root_is_normalised() {
    let sandbox = Sandbox::new();
    let layer = raw_layer(&[(b"a/../b", tar::EntryType::Regular, b"")]);
    sandbox.apply(&[(&layer, TAR)]).unwrap();
    assert!(sandbox.path("b").is_file());
    assert!(sandbox.outside().is_empty());
}

#[test]
fn absolute_paths_land_inside_the_root() {
    let sandbox = Sandbox::new();
    let mut out = Vec::new();
    raw_entry(&mut out, b"/etc/x", tar::EntryType::Regular, b"", b"abs");
    raw_entry(&mut out, b"//double", tar::EntryType::Regular, b"", b"2");
    sandbox.apply(&[(&raw_end(out), TAR)]).unwrap();
    assert_eq!(sandbox.read("etc/x"), "abs");
    assert_eq!(sandbox.read("double"), "2");
}

#[test]
fn symlink_escaping_the_root_is_refused() {
    for target in [&b"../outside"[..], b"a/../../outside", b"/../outside"] {
        let sandbox = Sandbox::new();
        // The escaping link, then an entry that would be written through it.
        let layer = raw_layer(&[
            (b"link", tar::EntryType::Symlink, target),
            (b"link/file", tar::EntryType::Regular, b""),
        ]);
        let (entry, reason) = refusal(sandbox.apply(&[(&layer, TAR)]));
        assert_eq!((entry.as_str(), reason), ("link", Refusal::LinkEscapes));
        assert!(!sandbox.exists("link"));
        assert!(sandbox.outside().is_empty());
    }
}

#[test]
fn symlink_deeper_may_climb_to_the_root_but_not_above() {
    let sandbox = Sandbox::new();
    let ok = raw_layer(&[(b"a/b/up", tar::EntryType::Symlink, b"../../top")]);
    sandbox.apply(&[(&ok, TAR)]).unwrap();
    assert_eq!(sandbox.link("a/b/up"), Path::new("../../top"));
    let bad = raw_layer(&[(b"a/b/up2", tar::EntryType::Symlink, b"../../../top")]);
    let (_, reason) = refusal(sandbox.apply(&[(&bad, TAR)]));
    assert_eq!(reason, Refusal::LinkEscapes);
}

#[test]
fn absolute_symlink_targets_are_rewritten_relative_to_the_root() {
    let sandbox = Sandbox::new();
    // Written raw: the builder would tidy the `.` and `..` away itself.
    let layer = raw_layer(&[
        (b"top", tar::EntryType::Symlink, b"/etc/passwd"),
        (b"a/b/deep", tar::EntryType::Symlink, b"/etc/passwd"),
        (b"a/root", tar::EntryType::Symlink, b"/"),
        (b"a/odd", tar::EntryType::Symlink, b"x/../y"),
        (b"a/kept", tar::EntryType::Symlink, b"../etc/./passwd"),
    ]);
    sandbox.apply(&[(&layer, TAR)]).unwrap();
    assert_eq!(sandbox.link("top"), Path::new("etc/passwd"));
    assert_eq!(sandbox.link("a/b/deep"), Path::new("../../etc/passwd"));
    assert_eq!(sandbox.link("a/root"), Path::new(".."));
    assert_eq!(sandbox.link("a/odd"), Path::new("y"));
    assert_eq!(sandbox.link("a/kept"), Path::new("../etc/./passwd"));
}

#[test]
fn empty_symlink_target_is_refused() {
    let sandbox = Sandbox::new();
    let layer = raw_layer(&[(b"l", tar::EntryType::Symlink, b"")]);
    assert_eq!(
        refusal(sandbox.apply(&[(&layer, TAR)])).1,
        Refusal::EmptyLinkTarget
    );
    let layer = raw_layer(&[(b"h", tar::EntryType::Link, b"")]);
    assert_eq!(
        refusal(sandbox.apply(&[(&layer, TAR)])).1,
        Refusal::MissingLinkTarget
    );
}

#[test]
fn entries_through_symlinked_parents_stay_inside() {
    let sandbox = Sandbox::new();
    let first = Layer::new()
        .dir("usr/lib/", 0o755)
        .symlink("lib", "usr/lib")
        .symlink("abs", "/usr")
        .symlink("dot", ".")
        .tar();
    let second = Layer::new()
        .file("lib/libc.so", 0o644, b"libc")
        .file("abs/share/doc", 0o644, b"doc")
        .file("dot/dot/x", 0o644, b"x")
        .tar();
    sandbox.apply(&[(&first, TAR), (&second, TAR)]).unwrap();
    assert_eq!(sandbox.read("usr/lib/libc.so"), "libc");
    assert_eq!(sandbox.read("usr/share/doc"), "doc");
    assert_eq!(sandbox.read("x"), "x");
    assert!(fs::symlink_metadata(sandbox.path("lib"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(sandbox.outside().is_empty());
}

#[test]
fn parent_symlink_pointing_outside_is_refused() {
    // Layers never create such a link; one planted in `dest` beforehand
    // must still not be followed.
    let sandbox = Sandbox::new();
    std::os::unix::fs::symlink("..", sandbox.path("planted")).unwrap();
    let layer = Layer::new().file("planted/file", 0o644, b"x").tar();
    let (entry, reason) = refusal(sandbox.apply(&[(&layer, TAR)]));
    assert_eq!(
        (entry.as_str(), reason),
        ("planted/file", Refusal::ParentEscapes)
    );
    assert!(sandbox.outside().is_empty());
    // A whiteout through it removes nothing outside either.
    fs::write(sandbox.root.path().join("victim"), "v").unwrap();
    let layer = Layer::new().file("planted/.wh.victim", 0o644, b"").tar();
    let (_, reason) = refusal(sandbox.apply(&[(&layer, TAR)]));
    assert_eq!(reason, Refusal::ParentEscapes);
    assert_eq!(sandbox.outside(), ["victim"]);
}

#[test]
fn planted_absolute_symlink_is_resolved_inside_the_root() {
    let sandbox = Sandbox::new();
    let outside = sandbox.root.path().join("outside");
    fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, sandbox.path("planted")).unwrap();
    let layer = Layer::new().file("planted/file", 0o644, b"x").tar();
    sandbox.apply(&[(&layer, TAR)]).unwrap();
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
    let inside = sandbox.dest().join(outside.strip_prefix("/").unwrap());
    assert_eq!(fs::read_to_string(inside.join("file")).unwrap(), "x");
}

#[test]
fn symlink_loops_and_file_parents_are_refused() {
    let sandbox = Sandbox::new();
    let layer = Layer::new()
        .symlink("a", "b")
        .symlink("b", "a")
        .file("a/x", 0o644, b"")
        .tar();
    assert_eq!(
        refusal(sandbox.apply(&[(&layer, TAR)])).1,
        Refusal::SymlinkLoop
    );
    let layer = Layer::new()
        .file("f", 0o644, b"")
        .file("f/x", 0o644, b"")
        .tar();
    assert_eq!(
        refusal(sandbox.apply(&[(&layer, TAR)])).1,
        Refusal::ParentNotDirectory
    );
}

#[test]
fn hard_links_within_the_root() {
    let sandbox = Sandbox::new();
    let first = Layer::new().file("a/orig", 0o644, b"shared").tar();
    let second = Layer::new()
        .hard_link("b/copy", "a/orig")
        .file("c", 0o644, b"same layer")
        .hard_link("d", "./c")
        .tar();
    sandbox.apply(&[(&first, TAR), (&second, TAR)]).unwrap();
    assert_eq!(sandbox.read("b/copy"), "shared");
    assert_eq!(sandbox.read("d"), "same layer");
    use std::os::unix::fs::MetadataExt as _;
    let ino = |rel| fs::metadata(sandbox.path(rel)).unwrap().ino();
    assert_eq!(ino("a/orig"), ino("b/copy"));
}

#[test]
fn hard_link_outside_or_missing_is_refused() {
    let cases: [(&[u8], Refusal); 5] = [
        (b"../outside", Refusal::PathEscapes),
        (b"a/../../outside", Refusal::PathEscapes),
        (b"not-yet", Refusal::HardLinkMissing),
        (b"dir", Refusal::HardLinkToDirectory),
        (b"./", Refusal::HardLinkToDirectory),
    ];
    for (target, expected) in cases {
        let sandbox = Sandbox::new();
        fs::write(sandbox.root.path().join("outside"), "secret").unwrap();
        let layer = raw_layer(&[
            (b"dir/", tar::EntryType::Directory, b""),
            (b"link", tar::EntryType::Link, target),
            (b"not-yet", tar::EntryType::Regular, b""),
        ]);
        let (entry, reason) = refusal(sandbox.apply(&[(&layer, TAR)]));
        assert_eq!((entry.as_str(), reason), ("link", expected));
        assert!(!sandbox.exists("link"));
    }
}

#[test]
fn hard_link_to_a_symlink_becomes_a_symlink_to_the_same_place() {
    let sandbox = Sandbox::new();
    let layer = Layer::new()
        .file("target", 0o644, b"t")
        .symlink("a/b/l", "../../target")
        // Sharing the inode would give `m` the text `../../target`, which
        // climbs above the root from there.
        .hard_link("m", "a/b/l")
        .tar();
    sandbox.apply(&[(&layer, TAR)]).unwrap();
    assert_eq!(sandbox.link("m"), Path::new("target"));
    assert_eq!(sandbox.read("m"), "t");
}

#[test]
fn device_files_are_refused() {
    for kind in [tar::EntryType::Char, tar::EntryType::Block] {
        let sandbox = Sandbox::new();
        let layer = raw_layer(&[(b"dev/sda", kind, b"")]);
        let (entry, reason) = refusal(sandbox.apply(&[(&layer, TAR)]));
        assert_eq!((entry.as_str(), reason), ("dev/sda", Refusal::Device));
        assert!(!sandbox.exists("dev/sda"));
    }
}

#[test]
fn fifos_are_not_created_but_replace_earlier_files() {
    let sandbox = Sandbox::new();
    let first = Layer::new().file("pipe", 0o644, b"file").tar();
    let second = raw_layer(&[(b"pipe", tar::EntryType::Fifo, b"")]);
    sandbox.apply(&[(&first, TAR), (&second, TAR)]).unwrap();
    assert!(!sandbox.exists("pipe"));
}

#[test]
fn unsupported_entry_types_are_refused() {
    let sandbox = Sandbox::new();
    let layer = raw_layer(&[(b"vol", tar::EntryType::new(b'V'), b"")]);
    let (_, reason) = refusal(sandbox.apply(&[(&layer, TAR)]));
    assert_eq!(reason, Refusal::UnsupportedType(b'V'));
}

#[test]
fn nul_in_a_pax_path_is_refused() {
    let sandbox = Sandbox::new();
    let mut out = Vec::new();
    let record = b"17 path=a\0b/../c\n";
    raw_entry(&mut out, b"pax", tar::EntryType::XHeader, b"", record);
    raw_entry(&mut out, b"placeholder", tar::EntryType::Regular, b"", b"");
    let (_, reason) = refusal(sandbox.apply(&[(&raw_end(out), TAR)]));
    assert_eq!(reason, Refusal::NulInName);
}

#[test]
fn entry_count_limit_stops_extraction() {
    let sandbox = Sandbox::new();
    let mut layer = Layer::new();
    for i in 0..10 {
        layer = layer.file(&format!("f{i}"), 0o644, b"");
    }
    let layer = layer.tar();
    let limits = Limits {
        max_entries: 15,
        ..Limits::default()
    };
    // The count runs over all layers of the image.
    let err = sandbox
        .apply_with(&[(&layer, TAR), (&layer, TAR)], limits)
        .unwrap_err();
    assert!(matches!(err, UnpackError::TooManyEntries { limit: 15 }));
}

#[test]
fn decompression_bomb_is_stopped_by_the_byte_limit() {
    let sandbox = Sandbox::new();
    let zeros = vec![0u8; 8 << 20];
    let mut out = Vec::new();
    // 512 KiB fits; 8 MiB of zeros (a few KiB compressed) does not.
    raw_entry(
        &mut out,
        b"small",
        tar::EntryType::Regular,
        b"",
        &zeros[..1 << 19],
    );
    raw_entry(&mut out, b"bomb", tar::EntryType::Regular, b"", &zeros);
    let layer = gzip(&raw_end(out));
    assert!(layer.len() < 64 << 10);
    let limits = Limits {
        max_total_bytes: 4 << 20,
        ..Limits::default()
    };
    let err = sandbox
        .apply_with(&[(&layer, TAR_GZIP)], limits)
        .unwrap_err();
    assert!(matches!(err, UnpackError::TooLarge { limit } if limit == 4 << 20));
    // The announced size was checked first: the bomb was never created.
    assert!(!sandbox.exists("bomb"));
    assert_eq!(fs::metadata(sandbox.path("small")).unwrap().len(), 1 << 19);
}

#[test]
fn byte_limit_holds_when_data_is_not_announced() {
    // A stream of zero-size directory entries carries no announced sizes;
    // the bytes themselves are counted.
    let sandbox = Sandbox::new();
    let mut out = Vec::new();
    for i in 0..4096 {
        raw_entry(
            &mut out,
            format!("d{i}/").as_bytes(),
            tar::EntryType::Directory,
            b"",
            b"",
        );
    }
    let layer = gzip(&raw_end(out));
    let limits = Limits {
        max_total_bytes: 1 << 20,
        ..Limits::default()
    };
    let err = sandbox
        .apply_with(&[(&layer, TAR_GZIP)], limits)
        .unwrap_err();
    assert!(matches!(err, UnpackError::TooLarge { .. }));
}

#[test]
fn huge_announced_size_is_refused_before_writing() {
    let sandbox = Sandbox::new();
    let mut out = Vec::new();
    raw_entry_sized(
        &mut out,
        b"huge",
        tar::EntryType::Regular,
        b"",
        b"",
        1 << 40,
    );
    let err = sandbox.apply(&[(&raw_end(out), TAR)]).unwrap_err();
    assert!(matches!(err, UnpackError::TooLarge { .. }));
    assert!(!sandbox.exists("huge"));
}

#[test]
fn huge_long_name_is_stopped() {
    let sandbox = Sandbox::new();
    let name = vec![b'a'; 2 << 20];
    let mut out = Vec::new();
    raw_entry(
        &mut out,
        b"././@LongLink",
        tar::EntryType::GNULongName,
        b"",
        &name,
    );
    raw_entry(&mut out, b"x", tar::EntryType::Regular, b"", b"");
    let err = sandbox
        .apply(&[(&gzip(&raw_end(out)), TAR_GZIP)])
        .unwrap_err();
    assert!(matches!(
        err,
        UnpackError::HeaderTooLarge {
            limit: MAX_ENTRY_METADATA
        }
    ));
}

#[test]
fn truncated_entry_is_an_error() {
    let sandbox = Sandbox::new();
    let layer = Layer::new().file("f", 0o644, &[7; 4000]).tar();
    let err = sandbox.apply(&[(&layer[..2048], TAR)]).unwrap_err();
    assert!(
        matches!(&err, UnpackError::Truncated { entry, expected: 4000, actual } if entry == "f" && *actual == 1536),
        "{err:?}"
    );
}

#[test]
fn garbage_and_damaged_streams_are_errors() {
    let sandbox = Sandbox::new();
    let mut seed: u32 = 7;
    let garbage: Vec<u8> = (0..4096)
        .map(|_| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 16) as u8
        })
        .collect();
    // What is wrong is in the cause, which the message does not repeat.
    let chain = |error: &UnpackError| {
        let source = std::error::Error::source(error).map(ToString::to_string);
        format!("{error}: {}", source.unwrap_or_default())
    };
    let err = sandbox.apply(&[(&garbage, TAR_GZIP)]).unwrap_err();
    assert!(matches!(err, UnpackError::NotAnArchive { .. }), "{err:?}");
    let text = chain(&err);
    assert!(
        text.starts_with(
            "read layer archive: the layer is neither gzip- nor zstd-compressed, \
             and not a tar archive either: numeric field did not have utf-8 text: "
        ),
        "{text}"
    );
    // The header bytes the tar reader quotes come out printable and short.
    assert!(!text.chars().any(char::is_control), "{text}");
    assert!(text.contains("\\u{"), "{text}");
    assert!(text.chars().count() < 400, "{text}");
    let mut fake_gzip = vec![0x1f, 0x8b];
    fake_gzip.extend_from_slice(&garbage);
    let err = sandbox.apply(&[(&fake_gzip, TAR_GZIP)]).unwrap_err();
    assert!(matches!(err, UnpackError::Archive { .. }), "{err:?}");
    assert_eq!(chain(&err), "read layer archive: invalid gzip header");
    let mut fake_zstd = vec![0x28, 0xb5, 0x2f, 0xfd];
    fake_zstd.extend_from_slice(&garbage);
    assert!(sandbox.apply(&[(&fake_zstd, TAR_ZSTD)]).is_err());
    let layer = gzip(&Layer::new().file("f", 0o644, &garbage).tar());
    let err = sandbox
        .apply(&[(&layer[..layer.len() / 2], TAR_GZIP)])
        .unwrap_err();
    assert!(
        matches!(&err, UnpackError::Entry { entry, .. } if entry == "f"),
        "{err:?}"
    );
}

#[test]
fn empty_layer_is_accepted() {
    let sandbox = Sandbox::new();
    sandbox
        .apply(&[(b"", TAR), (&gzip(b""), TAR_GZIP), (&[0; 1024], TAR)])
        .unwrap();
}

#[test]
fn no_panic_on_damaged_input() {
    let layer = Layer::new()
        .dir("d/", 0o755)
        .file("d/f", 0o644, b"content")
        .symlink("l", "d/f")
        .hard_link("h", "d/f")
        .file(".wh.x", 0o644, b"")
        .tar();
    let compressed = gzip(&layer);
    let mut seed: u32 = 1;
    for round in 0..300 {
        for data in [&layer, &compressed] {
            let mut damaged = data.clone();
            if round % 3 == 0 {
                damaged.truncate(round * 7 % damaged.len());
            } else {
                for _ in 0..4 {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    let at = seed as usize % damaged.len();
                    damaged[at] = (seed >> 16) as u8;
                }
            }
            let sandbox = Sandbox::new();
            let _ = sandbox.apply(&[(&damaged, "application/octet-stream")]);
            assert!(sandbox.outside().is_empty());
        }
    }
}

#[test]
fn gzip_is_detected_by_magic_whatever_the_media_type() {
    let layer = Layer::new().file("f", 0o644, b"gz").tar();
    let compressed = gzip(&layer);
    for media_type in [TAR, TAR_ZSTD, DOCKER_GZIP, "application/octet-stream", ""] {
        let sandbox = Sandbox::new();
        sandbox.apply(&[(&compressed, media_type)]).unwrap();
        assert_eq!(sandbox.read("f"), "gz");
    }
    // A plain tar labelled gzip is read as what it is.
    let sandbox = Sandbox::new();
    sandbox
        .apply(&[(&layer, "application/vnd.oci.image.layer.v1.tar.gzip")])
        .unwrap();
    assert_eq!(sandbox.read("f"), "gz");
}

#[test]
fn concatenated_gzip_members_are_one_stream() {
    let layer = Layer::new().file("f", 0o644, &[b'z'; 3000]).tar();
    let mut compressed = gzip(&layer[..1000]);
    compressed.extend(gzip(&layer[1000..]));
    let sandbox = Sandbox::new();
    sandbox.apply(&[(&compressed, TAR_GZIP)]).unwrap();
    assert_eq!(sandbox.read("f").len(), 3000);
}

#[test]
fn zstd_fixture_from_the_cli_is_decompressed() {
    for media_type in [TAR_ZSTD, "application/octet-stream"] {
        let sandbox = Sandbox::new();
        sandbox.apply(&[(ZSTD_FIXTURE, media_type)]).unwrap();
        assert_eq!(
            sandbox.read("manifests/csv.yaml"),
            "kind: ClusterServiceVersion\nmetadata:\n  name: etcd.v0.9.4\n"
        );
        assert_eq!(
            sandbox.read("metadata/annotations.yaml"),
            "annotations:\n  operators.operatorframework.io.bundle.package.v1: etcd\n"
        );
    }
}

#[test]
fn zstd_frames_and_skippable_frames_are_read_in_order() {
    let layer = Layer::new()
        .file("a", 0o644, &[b'a'; 5000])
        .file("b", 0o644, b"b")
        .tar();
    let level = ruzstd::encoding::CompressionLevel::Fastest;
    // A skippable frame first: magic 0x184d2a53, 3 bytes of payload.
    let mut compressed = vec![0x53, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3];
    compressed.extend(ruzstd::encoding::compress_to_vec(&layer[..2000], level));
    compressed.extend([0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]);
    compressed.extend(ruzstd::encoding::compress_to_vec(&layer[2000..], level));
    let sandbox = Sandbox::new();
    sandbox.apply(&[(&compressed, TAR)]).unwrap();
    assert_eq!(sandbox.read("a").len(), 5000);
    assert_eq!(sandbox.read("b"), "b");
}

#[test]
fn encrypted_layers_are_refused() {
    let sandbox = Sandbox::new();
    let err = sandbox
        .apply(&[(b"", "application/vnd.oci.image.layer.v1.tar+gzip+encrypted")])
        .unwrap_err();
    assert!(matches!(err, UnpackError::UnsupportedMediaType { .. }));
}

#[test]
fn error_messages_name_the_entry() {
    let sandbox = Sandbox::new();
    let layer = raw_layer(&[(b"../evil\n", tar::EntryType::Regular, b"")]);
    let err = sandbox.apply(&[(&layer, TAR)]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "refuse layer entry \"../evil\\n\": the path climbs above the image root with `..`"
    );
    let long = vec![b'x'; 1000];
    assert_eq!(display_name(&long).chars().count(), MAX_NAME_IN_MESSAGE + 1);
}

/// A GNU sparse entry of `real_size` bytes whose only data, 512 bytes of
/// `s`, sits at the end; the rest is a hole.
fn sparse_layer(real_size: u64) -> Vec<u8> {
    let octal = |field: &mut [u8; 12], value: u64| {
        field.copy_from_slice(format!("{value:011o}\0").as_bytes());
    };
    let mut header = tar::Header::new_gnu();
    header.set_path("sparse").unwrap();
    header.set_entry_type(tar::EntryType::GNUSparse);
    header.set_mode(0o644);
    header.set_size(512);
    header.set_mtime(0);
    let gnu = header.as_gnu_mut().unwrap();
    octal(&mut gnu.realsize, real_size);
    octal(&mut gnu.sparse[0].offset, real_size - 512);
    octal(&mut gnu.sparse[0].numbytes, 512);
    header.set_cksum();
    let mut out = header.as_bytes().to_vec();
    out.extend_from_slice(&[b's'; 512]);
    raw_end(out)
}

#[test]
fn sparse_holes_count_against_the_byte_limit() {
    let limits = Limits {
        max_total_bytes: 4 << 20,
        ..Limits::default()
    };
    let sandbox = Sandbox::new();
    let layer = sparse_layer(1 << 20);
    let state = sandbox
        .apply_with(&[(&layer, TAR)], limits.clone())
        .unwrap();
    let data = fs::read(sandbox.path("sparse")).unwrap();
    assert_eq!(data.len(), 1 << 20);
    assert!(data[..(1 << 20) - 512].iter().all(|&b| b == 0));
    assert!(data[(1 << 20) - 512..].iter().all(|&b| b == b's'));
    assert!(state.bytes() >= 1 << 20);

    // 8 MiB announced by a layer of 2 KiB: refused before writing.
    let sandbox = Sandbox::new();
    let err = sandbox
        .apply_with(&[(&sparse_layer(8 << 20), TAR)], limits)
        .unwrap_err();
    assert!(matches!(err, UnpackError::TooLarge { .. }));
    assert!(!sandbox.exists("sparse"));
}
