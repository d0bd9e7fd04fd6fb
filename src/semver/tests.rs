use super::*;

fn v(s: &str) -> Version {
    Version::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn parse_err(s: &str) -> String {
    match Version::parse(s) {
        Ok(v) => panic!("{s:?} parsed as {v}"),
        Err(e) => e.to_string(),
    }
}

fn range_err(s: &str) -> String {
    match Range::parse(s) {
        Ok(r) => panic!("{s:?} parsed as {r:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn version_errors_match_blang() {
    let cases: &[(&str, &str)] = &[
        ("", "Version string empty"),
        ("1", "No Major.Minor.Patch elements found"),
        ("1.0", "No Major.Minor.Patch elements found"),
        (
            "v1.0.0",
            r#"Invalid character(s) found in major number "v1""#,
        ),
        (
            " 1.0.0",
            r#"Invalid character(s) found in major number " 1""#,
        ),
        ("1.a.0", r#"Invalid character(s) found in minor number "a""#),
        (
            "1.0.0 ",
            r#"Invalid character(s) found in patch number "0 ""#,
        ),
        (
            "01.0.0",
            r#"Major number must not contain leading zeroes "01""#,
        ),
        (
            "1.02.0",
            r#"Minor number must not contain leading zeroes "02""#,
        ),
        (
            "1.0.03",
            r#"Patch number must not contain leading zeroes "03""#,
        ),
        (
            "0.1.0.1",
            r#"Invalid character(s) found in patch number "0.1""#,
        ),
        (
            "1.0.0-01",
            r#"Numeric PreRelease version must not contain leading zeroes "01""#,
        ),
        ("1.0.0-", "Prerelease is empty"),
        ("1.0.0-a..1", "Prerelease is empty"),
        ("1.0.0+", "Build meta data is empty"),
        ("1.0.0+a..b", "Build meta data is empty"),
        (
            "1.0.0-alpha_1",
            r#"Invalid character(s) found in prerelease "alpha_1""#,
        ),
        (
            "1.0.0+b_1",
            r#"Invalid character(s) found in build meta data "b_1""#,
        ),
        ("1..0", r#"strconv.ParseUint: parsing "": invalid syntax"#),
        (".1.0", r#"strconv.ParseUint: parsing "": invalid syntax"#),
        ("1.0.", r#"strconv.ParseUint: parsing "": invalid syntax"#),
        (
            "18446744073709551616.0.0",
            r#"strconv.ParseUint: parsing "18446744073709551616": value out of range"#,
        ),
        (
            "1.0.0-18446744073709551616",
            r#"strconv.ParseUint: parsing "18446744073709551616": value out of range"#,
        ),
        // The patch is validated before the pre-release, the pre-release before build.
        (
            "1.0.x-01",
            r#"Invalid character(s) found in patch number "x""#,
        ),
        (
            "1.0.0-01+",
            r#"Numeric PreRelease version must not contain leading zeroes "01""#,
        ),
        ("1.0.0-é", "Invalid character(s) found in prerelease \"é\""),
        (
            "1.0.0-a\tb",
            r#"Invalid character(s) found in prerelease "a\tb""#,
        ),
    ];
    for (input, want) in cases {
        assert_eq!(parse_err(input), *want, "input {input:?}");
    }
}

#[test]
fn versions_accepted() {
    let cases: &[(&str, u64, u64, u64, &[&str])] = &[
        ("0.0.0", 0, 0, 0, &[]),
        ("1.2.3", 1, 2, 3, &[]),
        ("1.0.0-0a", 1, 0, 0, &[]),
        ("1.0.0+01", 1, 0, 0, &["01"]),
        ("1.0.0+build.01", 1, 0, 0, &["build", "01"]),
        ("1.0.0-rc.1+build.5", 1, 0, 0, &["build", "5"]),
        ("18446744073709551615.0.0", u64::MAX, 0, 0, &[]),
    ];
    for (input, major, minor, patch, build) in cases {
        let parsed = v(input);
        assert_eq!(
            (parsed.major, parsed.minor, parsed.patch),
            (*major, *minor, *patch),
            "{input}"
        );
        assert_eq!(parsed.build, build.to_vec(), "{input}");
        assert_eq!(parsed.to_string(), *input, "round trip of {input}");
    }
    assert_eq!(v("1.0.0-0a").pre, vec![PreRelease::Alpha("0a".into())]);
    assert_eq!(
        v("1.0.0-rc.1-x.0").pre,
        vec![
            PreRelease::Alpha("rc".into()),
            PreRelease::Alpha("1-x".into()),
            PreRelease::Numeric(0)
        ]
    );
    assert_eq!(v("1.0.0-a-b+c-d").build, vec!["c-d".to_string()]);
}

#[test]
fn ordering_follows_semver_precedence() {
    let ascending = [
        "0.9.0",
        "1.0.0-0",
        "1.0.0-1",
        "1.0.0-2",
        "1.0.0-10",
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.2",
        "1.0.0-alpha.10",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
        "1.0.1",
        "1.1.0",
        "1.10.0",
        "2.0.0",
        "10.0.0",
    ];
    for pair in ascending.windows(2) {
        assert!(v(pair[0]) < v(pair[1]), "{} < {}", pair[0], pair[1]);
        assert!(v(pair[1]) > v(pair[0]), "{} > {}", pair[1], pair[0]);
    }
    // Upper-case letters sort before lower-case ones (byte order).
    assert!(v("1.0.0-Z") < v("1.0.0-a"));
}

#[test]
fn build_metadata_is_ignored_by_eq_ord_and_hash() {
    use std::collections::HashSet;
    assert_eq!(v("1.0.0+a"), v("1.0.0+b"));
    assert_eq!(v("1.0.0+b5"), v("1.0.0"));
    assert_eq!(v("1.0.0+a").cmp(&v("1.0.0")), Ordering::Equal);
    let set: HashSet<Version> = ["1.0.0+a", "1.0.0+b", "1.0.0"]
        .iter()
        .map(|s| v(s))
        .collect();
    assert_eq!(set.len(), 1);
    assert_ne!(v("1.0.0-a"), v("1.0.0"));
}

#[test]
fn pre_release_identifiers() {
    assert_eq!(PreRelease::parse("0"), Ok(PreRelease::Numeric(0)));
    assert_eq!(PreRelease::parse("12"), Ok(PreRelease::Numeric(12)));
    assert_eq!(PreRelease::parse("0a"), Ok(PreRelease::Alpha("0a".into())));
    assert_eq!(PreRelease::parse("-"), Ok(PreRelease::Alpha("-".into())));
    assert_eq!(
        PreRelease::parse("").unwrap_err().message(),
        "Prerelease is empty"
    );
    assert!(PreRelease::Numeric(99) < PreRelease::Alpha("0a".into()));
    assert_eq!(PreRelease::Numeric(7).to_string(), "7");
}

#[test]
fn range_errors_match_blang() {
    let cases: &[(&str, &str)] = &[
        (
            ">v0.1.0",
            r#"Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0""#,
        ),
        (
            ">=1.0",
            r#"Could not parse Range ">=1.0": Could not parse version "1.0" in ">=1.0": No Major.Minor.Patch elements found"#,
        ),
        (
            "~1.2.0",
            r#"Could not parse Range "~1.2.0": Could not parse comparator "~" in "~1.2.0""#,
        ),
        (
            "^1.2.0",
            r#"Could not parse Range "^1.2.0": Could not parse comparator "^" in "^1.2.0""#,
        ),
        (
            "=>1.2.0",
            r#"Could not parse Range "=>1.2.0": Could not parse comparator "=>" in "=>1.2.0""#,
        ),
        (
            ">=1.0.0,<2.0.0",
            r#"Could not parse Range ">=1.0.0,<2.0.0": Could not parse version "1.0.0,<2.0.0" in ">=1.0.0,<2.0.0": Invalid character(s) found in patch number "0,<2.0.0""#,
        ),
        (
            ">=1.0.0||<0.5.0",
            r#"Could not parse Range ">=1.0.0||<0.5.0": Could not parse version "1.0.0||<0.5.0" in ">=1.0.0||<0.5.0": Invalid character(s) found in patch number "0||<0.5.0""#,
        ),
        (
            "1.0.0|| 2.0.0",
            r#"Could not parse Range "1.0.0||": Could not parse version "1.0.0||" in "1.0.0||": Invalid character(s) found in patch number "0||""#,
        ),
        ("*", "Last element in range is '||'"),
        ("", "Last element in range is '||'"),
        ("x", "Last element in range is '||'"),
        ("1", "Last element in range is '||'"),
        ("   ", "Last element in range is '||'"),
        ("1.0.0 ||", "Last element in range is '||'"),
        ("|| 1.0.0", "First element in range is '||'"),
        (
            "1.X",
            r#"Could not parse Range "1.X": Could not parse version "1.X" in "1.X": No Major.Minor.Patch elements found"#,
        ),
        (
            "1.*",
            r#"Could not parse Range "1.*": Could not parse version "1.*" in "1.*": No Major.Minor.Patch elements found"#,
        ),
        (
            "1.2.*",
            r#"Could not parse Range "1.2.*": Could not parse version "1.2.*" in "1.2.*": Invalid character(s) found in patch number "*""#,
        ),
        ("abc", r#"Could not get version from string: "abc""#),
        (">=", r#"Could not get version from string: ">=""#),
        ("1.0.0 > ", r#"Could not get version from string: ">""#),
        // A token with no digit fails while wildcards are expanded, before any
        // comparator of an earlier token is checked.
        (">v1.0.0 abc", r#"Could not get version from string: "abc""#),
        ("1.x.3", r#"Could not get version from string: "<""#),
        ("1.2.x-beta", r#"Could not get version from string: "<""#),
        // One-letter tokens vanish, so this is `|| ||`.
        ("a || || b", "First element in range is '||'"),
        (
            "a1 || || b2",
            r#"Could not parse Range "a1": Could not parse comparator "a" in "a1""#,
        ),
        (
            "1.0.0 || || 2.0.0",
            "Empty element in range between two '||'",
        ),
        (
            "\t>1.0.0x",
            r#"Could not parse Range "\t>1.0.0x": Could not parse version "1.0.0x" in ">1.0.0x": Invalid character(s) found in patch number "0x""#,
        ),
    ];
    for (input, want) in cases {
        assert_eq!(range_err(input), *want, "input {input:?}");
    }
}

#[test]
fn ranges_accepted() {
    for ok in [
        ">=1.0.0 <2.0.0 || 3.x",
        "> 1.0.0",
        "< 0.6.0",
        ">=  1.0.0",
        "1.0.0",
        "=1.0.0",
        "==1.0.0",
        "!1.0.0",
        "!=1.0.0",
        "1.x",
        "1.2.x",
        ">=1.2.x",
        "<=1.x",
        "1.0.0-x",
        ">=1.2.3-x",
        "~1.x",
        "! 1.0.0",
        "1.0.0 - 2.0.0",
        ">1.0.0 x",
        "1.0.0 >= 1.0.0",
    ] {
        assert!(Range::parse(ok).is_ok(), "{ok:?}: {:?}", Range::parse(ok));
    }
}

fn matches(range: &str, version: &str) -> bool {
    Range::parse(range)
        .unwrap_or_else(|e| panic!("{range}: {e}"))
        .contains(&v(version))
}

#[test]
fn range_matching() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            ">=1.0.0 <1.2.3",
            &["1.0.0", "1.0.1", "1.2.0", "1.2.3-rc.1"],
            &["0.9.0", "1.0.0-rc.1", "1.2.3", "2.0.0"],
        ),
        (
            "<1.0.0 || >=2.0.0",
            &["0.9.0", "1.0.0-alpha", "2.0.0"],
            &["1.0.0", "1.5.0", "2.0.0-rc.1"],
        ),
        ("<1.2.3", &["1.2.3-rc.1", "0.0.1"], &["1.2.3", "1.2.3+b"]),
        (">1.0.0", &["2.0.0-alpha", "1.0.1"], &["1.0.0", "1.0.0+5"]),
        ("<2.0.0", &["2.0.0-alpha", "1.0.0-rc.1"], &["2.0.0"]),
        (">=1.0.0", &["1.0.0"], &["1.0.0-rc.1"]),
        ("=1.0.0", &["1.0.0+build5", "1.0.0"], &["1.0.1"]),
        ("1.0.0", &["1.0.0"], &["1.0.0-1"]),
        ("!=1.0.0", &["1.0.1", "1.0.0-1"], &["1.0.0"]),
        ("> 1.0.0", &["1.0.1"], &["1.0.0"]),
        ("< 0.6.0", &["0.5.9"], &["0.6.0"]),
        // fbc-validate m10-skiprange-spaced-operator-pass.
        ("< 0.6.0 !=0.5.1", &["0.5.0", "0.5.2"], &["0.5.1", "0.6.0"]),
        (
            ">=1.0.0 <2.0.0 || 3.x",
            &["1.0.0", "3.9.0"],
            &["2.0.0", "4.0.0"],
        ),
        // Wildcard expansion (blang expandWildcardVersion).
        ("1.2.x", &["1.2.0", "1.2.9"], &["1.1.9", "1.3.0"]),
        ("=1.2.x", &["1.2.5"], &["1.3.0"]),
        ("1.x", &["1.0.0", "1.9.9"], &["0.9.9", "2.0.0"]),
        ("1.x.x", &["1.0.0", "1.0.9"], &["1.1.0", "2.0.0"]),
        (">=1.2.x", &["1.2.0", "5.0.0"], &["1.1.9"]),
        (">=1.x", &["1.0.0"], &["0.9.0"]),
        (">1.2.x", &["1.3.0"], &["1.2.9"]),
        (">1.x", &["2.0.0"], &["1.9.9"]),
        ("<1.2.x", &["1.1.9"], &["1.2.0"]),
        ("<1.x", &["0.9.9"], &["1.0.0"]),
        ("<=1.2.x", &["1.2.9"], &["1.3.0"]),
        ("<=1.x", &["1.9.9"], &["2.0.0"]),
        ("<1.x.3", &["1.0.2"], &["1.0.3"]),
        // `!=` with a wildcard ANDs two disjoint conditions: nothing matches.
        ("!=1.2.x", &[], &["1.1.0", "1.2.0", "1.3.0"]),
        ("!1.x", &[], &["0.1.0", "1.0.0", "2.0.0"]),
        // Unknown operators vanish during wildcard expansion.
        ("~1.x", &["1.0.0"], &["1.0.1"]),
        // Single-character tokens are dropped.
        ("! 1.0.0", &["1.0.0"], &["1.0.1"]),
        (">1.0.0 x", &["1.0.1"], &["1.0.0"]),
        ("1.0.0 - 2.0.0", &[], &["1.0.0", "2.0.0", "1.5.0"]),
        ("1.0.0-x", &["1.0.0-x"], &["1.0.0"]),
        (">=1.2.3-x", &["1.2.3-y", "1.2.3"], &["1.2.3-w"]),
        (
            ">1.0.0 <2.0.0 || >3.0.0 !4.2.1",
            &["1.2.3", "1.9.9", "3.1.1"],
            &["4.2.1", "2.1.1"],
        ),
    ];
    for (range, yes, no) in cases {
        for version in *yes {
            assert!(matches(range, version), "{range:?} should match {version}");
        }
        for version in *no {
            assert!(
                !matches(range, version),
                "{range:?} should not match {version}"
            );
        }
    }
}

#[test]
fn tokenizer_quirks() {
    assert_eq!(split_and_trim("> 1.0.0"), vec![">1.0.0"]);
    assert_eq!(
        split_and_trim(">=  1.0.0 <2.0.0"),
        vec![">=1.0.0", "<2.0.0"]
    );
    assert_eq!(split_and_trim("a b cd"), vec!["cd"]);
    assert_eq!(split_and_trim("1.0.0 >"), vec!["1.0.0"]);
    assert_eq!(split_and_trim("1.0.0 > "), vec!["1.0.0", ">"]);
    assert_eq!(split_and_trim("  "), Vec::<String>::new());
    assert_eq!(split_and_trim("1 || 2"), vec!["||"]);
    let r = Range::parse("1.x").unwrap();
    assert_eq!(r.alternatives().len(), 1);
    assert_eq!(r.alternatives()[0].len(), 2);
    assert_eq!(r.alternatives()[0][0].op, RangeOp::Ge);
    assert_eq!(r.alternatives()[0][1].version.to_string(), "2.0.0");
}

#[test]
fn wildcard_increment_wraps_like_go_int() {
    assert_eq!(
        increment_part("9223372036854775807.0.0", 0).as_deref(),
        Some("-9223372036854775808.0.0")
    );
    assert_eq!(increment_part("1.0a.0", 1), None);
    assert_eq!(increment_part("1", 1), None);
    assert_eq!(parse_go_atoi("+5"), Some(5));
    assert_eq!(parse_go_atoi("-5"), Some(-5));
    assert_eq!(parse_go_atoi("+"), None);
    assert_eq!(parse_go_atoi("99999999999999999999"), None);
    let err = range_err(">9223372036854775807.x");
    assert!(err.contains("Could not parse comparator \">=-\""), "{err}");
}

#[test]
fn releases() {
    assert_eq!(parse_release(""), Ok(vec![]));
    assert_eq!(
        parse_release("2.el9"),
        Ok(vec![
            PreRelease::Numeric(2),
            PreRelease::Alpha("el9".into())
        ])
    );
    assert!(parse_release("aaaaaaaaaaaaaaaaaaaa").is_ok());
    let cases: &[(&str, &str)] = &[
            (
                "aaaaaaaaaaaaaaaaaaaaa",
                r#"invalid release "aaaaaaaaaaaaaaaaaaaaa": exceeds maximum length of 20 characters"#,
            ),
            (
                "01",
                r#"invalid release "01": segment 0: Numeric PreRelease version must not contain leading zeroes "01""#,
            ),
            (
                "1..a_b",
                "invalid release \"1..a_b\": segment 1: Prerelease is empty\nsegment 2: Invalid character(s) found in prerelease \"a_b\"",
            ),
            ("1.", "invalid release \"1.\": segment 1: Prerelease is empty"),
        ];
    for (input, want) in cases {
        assert_eq!(parse_release(input).unwrap_err().to_string(), *want);
    }
    let r = |s| parse_release(s).unwrap();
    assert_eq!(compare_releases(&r(""), &r("0")), Ordering::Less);
    assert_eq!(compare_releases(&r("1"), &r("1.0")), Ordering::Less);
    assert_eq!(compare_releases(&r("2"), &r("10")), Ordering::Less);
    assert_eq!(compare_releases(&r("10"), &r("a")), Ordering::Less);
    assert_eq!(compare_releases(&r("2.el9"), &r("2.el9")), Ordering::Equal);
}

#[test]
fn go_quote_matches_strconv_quote() {
    assert_eq!(go_quote("abc"), r#""abc""#);
    assert_eq!(go_quote("a\"b\\c"), r#""a\"b\\c""#);
    assert_eq!(
        go_quote("\u{7}\u{8}\u{c}\n\r\t\u{b}"),
        r#""\a\b\f\n\r\t\v""#
    );
    assert_eq!(go_quote("\u{0}\u{1b}\u{7f}"), r#""\x00\x1b\x7f""#);
    assert_eq!(go_quote("é☃🐳"), "\"é☃🐳\"");
    assert_eq!(go_quote("\u{a0}\u{200b}\u{85}"), r#""\u00a0\u200b\u0085""#);
    assert_eq!(go_quote("\u{e0001}"), r#""\U000e0001""#);
}

#[test]
fn go_digits() {
    assert!(is_go_digit('7'));
    assert!(is_go_digit('\u{663}'));
    assert!(is_go_digit('\u{ff19}'));
    assert!(is_go_digit('\u{1d7ff}'));
    assert!(!is_go_digit('²'));
    assert!(!is_go_digit('x'));
    assert_eq!(
            range_err(">\u{661}.0.0"),
            "Could not parse Range \">\u{661}.0.0\": Could not parse version \"\u{661}.0.0\" in \">\u{661}.0.0\": Invalid character(s) found in major number \"\u{661}\""
        );
}

/// Feeds generated strings to every parser: nothing may panic, and whatever parses must
/// print back to a string that parses to an equal value.
#[test]
fn odd_inputs_never_panic() {
    const ALPHABET: &[&str] = &[
        "0",
        "1",
        "9",
        "01",
        ".",
        "-",
        "+",
        "x",
        "X",
        "*",
        " ",
        "  ",
        "|",
        "||",
        ">",
        "<",
        "=",
        "!",
        "~",
        "^",
        ",",
        "a",
        "Z",
        "_",
        "\t",
        "é",
        "\u{661}",
        "v",
        "18446744073709551616",
        "9223372036854775807",
        ".x",
        ".x.x",
        "\n",
        "\u{0}",
    ];
    for s in crate::testkit::random_strings(0x9e37_79b9_7f4a_7c15, ALPHABET, 12, 3000) {
        if let Ok(parsed) = Version::parse(&s) {
            assert_eq!(parsed.to_string(), s);
        }
        if let Ok(r) = Range::parse(&s) {
            let _ = r.contains(&Version::new(1, 0, 0));
        }
        let _ = parse_release(&s);
        let _ = go_quote(&s);
    }
}
#[test]
fn tolerant() {
    let ok = |s: &str| Version::parse_tolerant(s).map(|v| v.to_string());
    assert_eq!(ok("v0.9.4").unwrap(), "0.9.4");
    assert_eq!(ok("1.2").unwrap(), "1.2.0");
    assert_eq!(ok(" 01.02.03 ").unwrap(), "1.2.3");
    assert_eq!(ok("1.0.0-rc.1").unwrap(), "1.0.0-rc.1");
    assert_eq!(
        ok("abc").unwrap_err().message(),
        "Invalid character(s) found in major number \"0abc\""
    );
    assert_eq!(
        ok("1.2-rc").unwrap_err().message(),
        "Short version cannot contain PreRelease/Build meta data"
    );
}
