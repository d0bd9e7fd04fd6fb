//! Entries whose names or links point elsewhere: `..`, absolute paths, symlinks and hard links
//! that would leave the root, and the entry types that are refused.

use super::*;

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
    let layer = raw_files(&[
        (b"/etc/x", tar::EntryType::Regular, b"abs"),
        (b"//double", tar::EntryType::Regular, b"2"),
    ]);
    sandbox.apply(&[(&layer, TAR)]).unwrap();
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
        .dir("usr/lib/")
        .symlink("lib", "usr/lib")
        .symlink("abs", "/usr")
        .symlink("dot", ".")
        .tar();
    let second = Layer::new()
        .file("lib/libc.so", b"libc")
        .file("abs/share/doc", b"doc")
        .file("dot/dot/x", b"x")
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
    let layer = Layer::new().file("planted/file", b"x").tar();
    let (entry, reason) = refusal(sandbox.apply(&[(&layer, TAR)]));
    assert_eq!(
        (entry.as_str(), reason),
        ("planted/file", Refusal::ParentEscapes)
    );
    assert!(sandbox.outside().is_empty());
    // A whiteout through it removes nothing outside either.
    fs::write(sandbox.root.path().join("victim"), "v").unwrap();
    let layer = Layer::new().file("planted/.wh.victim", b"").tar();
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
    let layer = Layer::new().file("planted/file", b"x").tar();
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
        .file("a/x", b"")
        .tar();
    assert_eq!(
        refusal(sandbox.apply(&[(&layer, TAR)])).1,
        Refusal::SymlinkLoop
    );
    let layer = Layer::new().file("f", b"").file("f/x", b"").tar();
    assert_eq!(
        refusal(sandbox.apply(&[(&layer, TAR)])).1,
        Refusal::ParentNotDirectory
    );
}

#[test]
fn hard_links_within_the_root() {
    let sandbox = Sandbox::new();
    let first = Layer::new().file("a/orig", b"shared").tar();
    let second = Layer::new()
        .hard_link("b/copy", "a/orig")
        .file("c", b"same layer")
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
        .file("target", b"t")
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
    let first = Layer::new().file("pipe", b"file").tar();
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
