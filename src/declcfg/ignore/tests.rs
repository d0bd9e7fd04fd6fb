use super::*;
use std::collections::BTreeSet;
use std::fs;

/// Writes `files` (path, content) under a fresh directory.
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, content) in files {
        let full = dir.path().join(path);
        fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        fs::write(full, content).expect("write");
    }
    dir
}

/// The files the loader would read: every regular file that is neither
/// an `.indexignore` nor ignored.
fn kept(root: &Path) -> BTreeSet<String> {
    let ignore = IndexIgnore::load(root).expect("load");
    let mut out = BTreeSet::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.expect("walk");
        if entry.file_type().is_dir() || entry.file_name() == IGNORE_FILE {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(root)
            .expect("rel")
            .to_string_lossy()
            .to_string();
        let comps: Vec<&str> = rel.split('/').collect();
        if !ignore.is_ignored(&comps) {
            out.insert(rel);
        }
    }
    out
}

/// The conformance cases under fbc-render/indexignore-*: the catalog
/// tree and the files whose documents appear in the recorded stdout.
#[test]
fn conformance_cases() {
    struct Case {
        name: &'static str,
        files: &'static [(&'static str, &'static str)],
        kept: &'static [&'static str],
    }
    let cases = [
            Case {
                name: "indexignore-dir-pattern-and-reinclude",
                files: &[
                    (".indexignore", "pkgC/\n"),
                    ("pkgC/sub/.indexignore", "!x.yaml\n"),
                    ("pkgC/sub/x.yaml", "c"),
                    ("pkgC/y.yaml", "broken"),
                    ("pkgD/d.yaml", "d"),
                ],
                kept: &["pkgC/sub/x.yaml", "pkgD/d.yaml"],
            },
            Case {
                name: "indexignore-globs",
                files: &[
                    (".indexignore", "ba?.yaml\n[xy]*.yaml\n**/gen/*.json\n"),
                    ("bad.yaml", ""),
                    ("bat.yaml", ""),
                    ("bats.yaml", ""),
                    ("q/gen/a.json", ""),
                    ("q/gen/a.yaml", ""),
                    ("x1.yaml", ""),
                    ("z1.yaml", ""),
                ],
                kept: &["bats.yaml", "q/gen/a.yaml", "z1.yaml"],
            },
            Case {
                name: "indexignore-itself-not-parsed",
                files: &[
                    (".indexignore", "schema: olm.package\n"),
                    ("a/.indexignore", "{not json"),
                    ("a/p.yaml", ""),
                ],
                kept: &["a/p.yaml"],
            },
            Case {
                name: "indexignore-negation",
                files: &[
                    (".indexignore", "# ignore everything yaml\n*.yaml\n\n  !keep.yaml  \n"),
                    ("drop.yaml", ""),
                    ("keep.yaml", ""),
                    ("sub/drop2.yaml", ""),
                    ("sub/keep.yaml", ""),
                ],
                kept: &["keep.yaml", "sub/keep.yaml"],
            },
            Case {
                name: "indexignore-nested-scoped",
                files: &[
                    ("a/.indexignore", "skip.yaml\nsub/anchored.yaml\n"),
                    ("a/deeper/skip.yaml", ""),
                    ("a/ok.yaml", ""),
                    ("a/skip.yaml", ""),
                    ("a/sub/anchored.yaml", ""),
                    ("a/x/sub/anchored.yaml", ""),
                    ("b/skip.yaml", ""),
                ],
                kept: &["a/ok.yaml", "a/x/sub/anchored.yaml", "b/skip.yaml"],
            },
            Case {
                name: "indexignore-seed-example",
                files: &[
                    ("other.yaml", ""),
                    (
                        "pkgA/.indexignore",
                        "# seed example\n**/*\n!*.json\n!*.yaml\n**/objects/*.json\n**/objects/*.yaml\n",
                    ),
                    ("pkgA/README.md", ""),
                    ("pkgA/catalog.json", ""),
                    ("pkgA/channel.yaml", ""),
                    ("pkgA/notes.txt", ""),
                    ("pkgA/objects/x.json", ""),
                    ("pkgA/objects/y.yaml", ""),
                    ("pkgA/sub/objects/z.yaml", ""),
                ],
                kept: &["other.yaml", "pkgA/catalog.json", "pkgA/channel.yaml"],
            },
        ];
    for case in cases {
        let dir = tree(case.files);
        let want: BTreeSet<String> = case.kept.iter().map(|s| s.to_string()).collect();
        assert_eq!(kept(dir.path()), want, "{}", case.name);
    }
}

#[test]
fn from_sources_patterns() {
    // (domain, content, path, ignored)
    let cases: &[(&[&str], &str, &str, bool)] = &[
        (&[], "*.yaml", "a.yaml", true),
        (&[], "*.yaml", "d/a.yaml", true),
        (&[], "*.yaml", "a.json", false),
        (&["d"], "*.yaml", "a.yaml", false),
        (&["d"], "*.yaml", "d/a.yaml", true),
        (&["d"], "*.yaml", "e/d/a.yaml", false),
        (&[], "dir/", "dir", false),
        (&[], "dir/", "dir/f", true),
        (&[], "dir/", "x/dir/f", true),
        (&[], "a/b", "a/b", true),
        (&[], "a/b", "a/b/c", true),
        (&[], "a/b", "x/a/b", false),
        (&[], "a/b/", "a/b", false),
        (&[], "a/b/", "a/b/c", true),
        (&[], "/a", "a", true),
        (&[], "/a", "b/a", false),
        (&[], "a/**", "a/b/c", true),
        (&[], "a/**", "a", false),
        (&[], "a/**/c", "a/c", true),
        (&[], "a/**/c", "a/b/b/c", true),
        (&[], "a/**/c", "a/b/d", false),
        (&[], "**/c", "c", true),
        (&[], "**/c", "x/y/c", true),
        (&[], "?.txt", "a.txt", true),
        (&[], "?.txt", "ab.txt", false),
        (&[], "[a-c].txt", "b.txt", true),
        (&[], "[a-c].txt", "d.txt", false),
        (&[], "[!a-c].txt", "d.txt", true),
        (&[], "[^a-c].txt", "a.txt", false),
        (&[], "[[:digit:]]x", "7x", true),
        (&[], "[[:digit:]]x", "ax", false),
        (&[], "[[:nope:]]x", "ax", false),
        (&[], "[]]", "]", true),
        (&[], "\\*", "*", true),
        (&[], "\\*", "a", false),
        (&[], "a\\", "a", false),
        (&[], "[", "[", false),
        (&[], "**.yaml", "x.yaml", true),
        (&[], "*", "anything", true),
        (&[], "*a*b", "xxaxxb", true),
        (&[], "*a*b", "xxaxxc", false),
        (&[], ".indexignore", "x/.indexignore", true),
        (&[], "#not", "#not", false),
        (&[], "\\#yes", "#yes", true),
        (&[], "x\u{a0}", "x", true),
        (&[], "*.yaml\n!keep.yaml", "keep.yaml", false),
        (&[], "!keep.yaml\n*.yaml", "keep.yaml", true),
        (&[], "*.yaml\r\n!keep.yaml\r\n", "keep.yaml", false),
        (&[], "sub\n!sub", "sub/f", false),
    ];
    for (domain, content, path, want) in cases {
        let ign = IndexIgnore::from_sources(&[(
            domain.iter().map(|s| s.to_string()).collect(),
            content.to_string(),
        )]);
        let comps: Vec<&str> = path.split('/').collect();
        assert_eq!(
            ign.is_ignored(&comps),
            *want,
            "{domain:?} {content:?} {path}"
        );
    }
}

#[test]
fn directory_named_indexignore_is_excluded() {
    let ign = IndexIgnore::from_sources(&[]);
    let cases: &[(&str, bool)] = &[
        (".indexignore/a.yaml", true),
        ("a/.indexignore", true),
        ("a.yaml", false),
    ];
    for (path, want) in cases {
        let comps: Vec<&str> = path.split('/').collect();
        assert_eq!(ign.is_ignored(&comps), *want, "{path}");
    }
}

#[test]
fn trim_and_scan() {
    let cases: &[(&[u8], &[u8])] = &[
        (b"  a  ", b"a"),
        (b"\t\x0b\x0ca\r", b"a"),
        ("\u{3000}a\u{85}".as_bytes(), b"a"),
        (b"\xffa\xff", b"\xffa\xff"),
        (b"", b""),
    ];
    for (input, want) in cases {
        assert_eq!(trim_space(input), *want, "{input:?}");
    }
    let lines: &[(&[u8], &[&[u8]])] = &[
        (b"a\nb", &[b"a", b"b"]),
        (b"a\r\nb\r\n", &[b"a", b"b"]),
        (b"\n\n", &[b"", b""]),
        (b"", &[]),
    ];
    for (input, want) in lines {
        assert_eq!(
            scan_lines(input, true).expect("scan"),
            want.to_vec(),
            "{input:?}"
        );
    }
    let long = vec![b'a'; MAX_LINE];
    assert!(scan_lines(&long, true).is_err());
    assert!(scan_lines(&long[1..], true).is_ok());
}

#[test]
fn load_errors_name_the_file() {
    let dir = tree(&[("a/.indexignore", &"x".repeat(MAX_LINE))]);
    let err = IndexIgnore::load(dir.path()).expect_err("too long");
    assert!(err.path.ends_with("a/.indexignore"), "{err}");
    assert!(err.to_string().contains("token too long"), "{err}");

    let missing = dir.path().join("nope");
    let err = IndexIgnore::load(&missing).expect_err("missing root");
    assert_eq!(err.path, missing);
}
