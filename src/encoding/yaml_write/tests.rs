//! Tests of the YAML writer: go-yaml's scalar styles, folding, key order and implicit typing.

use super::order::*;
use super::resolve::*;
use super::*;
use std::path::PathBuf;

/// Round-trip fixtures, relative to the crate root: `<name>.json` holds one document as
/// JSON, `<name>.yaml` the exact bytes upstream printed for it.
const FIXTURE_DIR: &str = "testdata/yaml_write";

fn yaml(json: &str) -> String {
    let value: Value = serde_json::from_str(json).expect("test JSON must parse");
    let mut out = Vec::new();
    write_document(&value, &mut out);
    String::from_utf8(out).expect("output must be UTF-8")
}

fn check(cases: &[(&str, &str)]) {
    for (json, expected) in cases {
        assert_eq!(yaml(json), *expected, "input: {json}");
    }
}

fn quoted_json(text: &str) -> String {
    serde_json::to_string(&Value::String(text.to_string())).expect("strings serialize")
}

#[test]
fn block_layout() {
    check(&[
        (r#"{"b":{"c":{"d":1}},"a":2}"#, "a: 2\nb:\n  c:\n    d: 1\n"),
        // Sequences in a mapping are not indented further than their key.
        (r#"{"k":["a","b"]}"#, "k:\n- a\n- b\n"),
        (r#"{"k":{"l":["a"]}}"#, "k:\n  l:\n  - a\n"),
        (r#"[{"a":1,"b":2},{"c":3}]"#, "- a: 1\n  b: 2\n- c: 3\n"),
        (
            r#"{"x":[{"a":1,"b":[1,2]}]}"#,
            "x:\n- a: 1\n  b:\n  - 1\n  - 2\n",
        ),
        (r#"[["a","b"],"c",[["d"]]]"#, "- - a\n  - b\n- c\n- - - d\n"),
        (r#"[{"a":{"b":1}}]"#, "- a:\n    b: 1\n"),
    ]);
}

#[test]
fn empty_collections_null_and_booleans() {
    check(&[
        (
            r#"{"l":[],"m":{},"n":null,"t":true,"f":false}"#,
            "f: false\nl: []\nm: {}\n\"n\": null\nt: true\n",
        ),
        ("[]", "[]\n"),
        ("{}", "{}\n"),
        ("[[],{}]", "- []\n- {}\n"),
        (r#"{"a":{"b":[]}}"#, "a:\n  b: []\n"),
        ("null", "null\n"),
        ("true", "true\n"),
    ]);
}

#[test]
fn numbers_keep_their_text() {
    check(&[
        ("12345678901234567890", "12345678901234567890\n"),
        (
            r#"{"a":0.25,"b":1e-7,"c":-9223372036854775809,"d":1.0,"e":-0}"#,
            "a: 0.25\nb: 1e-7\nc: -9223372036854775809\nd: 1.0\ne: -0\n",
        ),
        ("[1,2.5,-3]", "- 1\n- 2.5\n- -3\n"),
        // serde_json itself normalizes the exponent while parsing.
        ("1E3", "1e+3\n"),
    ]);
}

#[test]
fn root_scalars() {
    check(&[
        (r#""abc""#, "abc\n"),
        (r#""""#, "\"\"\n"),
        (r#""a\nb""#, "|-\n  a\n  b\n"),
        (r#"" x""#, "' x'\n"),
    ]);
}

#[test]
fn strings_that_would_read_as_other_types_are_double_quoted() {
    let quoted = [
        // YAML 1.1 booleans and null.
        "y",
        "Y",
        "yes",
        "Yes",
        "YES",
        "n",
        "N",
        "no",
        "No",
        "NO",
        "true",
        "True",
        "TRUE",
        "false",
        "False",
        "FALSE",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "~",
        "null",
        "Null",
        "NULL",
        "",
        // Integers in every base Go accepts, with signs and underscores.
        "0",
        "17",
        "-17",
        "+1",
        "0123",
        "0x1F",
        "0X1f",
        "0o17",
        "0b101",
        "-0b101",
        "0b-101",
        "1_000",
        "1__0",
        "1_",
        "9223372036854775808",
        "18446744073709551615",
        // Floats, infinities and NaN.
        "1.0",
        "1.",
        ".5",
        "-.5",
        "+.5",
        "1e3",
        "1E+3",
        "1.5e-3",
        ".5e3",
        ".5_5",
        ".inf",
        "-.Inf",
        "+.INF",
        ".nan",
        ".NaN",
        "123456789012345678901234567890",
        // Integers beyond 64 bits.
        "0xFFFFFFFFFFFFFFFFFF",
        "0b11111111111111111111111111111111111111111111111111111111111111111",
        // Timestamps.
        "2020-01-01",
        "2020-1-1",
        "2020-02-29",
        "2001-12-14t21:59:43.10-05:00",
        "2001-12-14T21:59:43Z",
        "2001-12-14 21:59:43.10",
        "2001-12-14  21:59:43",
        "2001-12-14T21:59:43,5+01:00",
        // Sexagesimal numbers.
        "12:30",
        "1:20:30.5",
        "-1:59",
        "190:20:30",
    ];
    for text in quoted {
        assert_eq!(
            yaml(&quoted_json(text)),
            format!("\"{text}\"\n"),
            "input: {text:?}"
        );
    }
}

#[test]
fn strings_that_read_back_as_strings_stay_plain() {
    let plain = [
        "abc",
        "yes!",
        "yES",
        "nULL",
        "Nope",
        "~a",
        "<<",
        "=",
        "+",
        "0x",
        "0b2",
        "1e400",
        ".5e999",
        "1.2.3",
        "1_a",
        "_1",
        "0o8",
        "12:60",
        "12:30:x",
        "2020-02-30",
        "2021-02-29",
        "2020-13-01",
        "2020-01-01T10:00:00",
        "2020-01-01T25:00:00Z",
        "20200-01-01",
        "2020-01-01x",
        ".",
        "._5",
        "+-1",
        "a:b",
        "a#b",
        "?q",
        "-a",
        "http://x.io/a?b=c#d",
        "café crème",
        "日本語",
        "a\u{a0}b",
        "it's",
        "say \"hi\" \\ back",
        "v1.0.0",
    ];
    for text in plain {
        assert_eq!(
            yaml(&quoted_json(text)),
            format!("{text}\n"),
            "input: {text:?}"
        );
    }
}

#[test]
fn indicators_force_single_quotes() {
    check(&[
        (r#"{"k":" leading"}"#, "k: ' leading'\n"),
        (r#"{"k":"trailing "}"#, "k: 'trailing '\n"),
        (r#"{"k":"- dash"}"#, "k: '- dash'\n"),
        (r#"{"k":"-"}"#, "k: '-'\n"),
        (r#"{"k":"? q"}"#, "k: '? q'\n"),
        (r#"{"k":": c"}"#, "k: ': c'\n"),
        (r#"{"k":"a: b"}"#, "k: 'a: b'\n"),
        (r#"{"k":"key:"}"#, "k: 'key:'\n"),
        (r#"{"k":"foo #bar"}"#, "k: 'foo #bar'\n"),
        (r#"{"k":"---"}"#, "k: '---'\n"),
        (r#"{"k":"...x"}"#, "k: '...x'\n"),
        (r#"{"k":"'quote"}"#, "k: '''quote'\n"),
        (r#"{"k":"\"dq\""}"#, "k: '\"dq\"'\n"),
        (r##"{"k":"#"}"##, "k: '#'\n"),
        (r#"{"k":","}"#, "k: ','\n"),
        (r#"{"k":"[x]"}"#, "k: '[x]'\n"),
        (r#"{"k":"{x}"}"#, "k: '{x}'\n"),
        (r#"{"k":"&a"}"#, "k: '&a'\n"),
        (r#"{"k":"*a"}"#, "k: '*a'\n"),
        (r#"{"k":"!a"}"#, "k: '!a'\n"),
        (r#"{"k":"|a"}"#, "k: '|a'\n"),
        (r#"{"k":">a"}"#, "k: '>a'\n"),
        (r#"{"k":"%a"}"#, "k: '%a'\n"),
        (r#"{"k":"@a"}"#, "k: '@a'\n"),
        (r#"{"k":"`a"}"#, "k: '`a'\n"),
        // Keys are quoted the same way.
        (r#"{"- x":1,"a: b":2}"#, "'- x': 1\n'a: b': 2\n"),
    ]);
}

/// The analysis skips runs of ordinary bytes 16 at a time and spaces one at a time: the
/// character that decides the style is found at every offset around those blocks.
#[test]
fn deciding_character_found_at_every_offset() {
    for n in 1..50 {
        let run = "x".repeat(n);
        let style = |text: &str| yaml(&format!("{{\"k\":{}}}", quoted_json(text)));
        assert_eq!(style(&run), format!("k: {run}\n"), "run of {n}");
        assert_eq!(style(&format!("{run}:y")), format!("k: {run}:y\n"));
        assert_eq!(style(&format!("{run}: y")), format!("k: '{run}: y'\n"));
        assert_eq!(style(&format!("{run}:")), format!("k: '{run}:'\n"));
        assert_eq!(style(&format!("{run}#y")), format!("k: {run}#y\n"));
        assert_eq!(style(&format!("{run} #y")), format!("k: '{run} #y'\n"));
        assert_eq!(style(&format!("{run} y")), format!("k: {run} y\n"));
        assert_eq!(style(&format!("{run} ")), format!("k: '{run} '\n"));
        assert_eq!(style(&format!("{run}  y")), format!("k: {run}  y\n"));
        assert_eq!(style(&format!("{run}\u{7}")), format!("k: \"{run}\\a\"\n"));
        assert_eq!(
            style(&format!("{run}\n y")),
            format!("k: |-\n  {run}\n   y\n"),
            "a space after a break still allows a literal block"
        );
        assert_eq!(
            style(&format!("{run} \ny")),
            format!("k: \"{run} \\ny\"\n"),
            "a space before a break allows no literal block"
        );
    }
}

#[test]
fn unprintable_characters_force_double_quotes_with_escapes() {
    check(&[
        (r#"{"k":"tab\there"}"#, "k: \"tab\\there\"\n"),
        (
            r#"{"k":"a\u0001\u0007\u0008\u000b\u000c\u001b\u007f"}"#,
            "k: \"a\\x01\\a\\b\\v\\f\\e\\x7F\"\n",
        ),
        (r#"{"k":"nul\u0000"}"#, "k: \"nul\\0\"\n"),
        (r#"{"k":"cr\rlf"}"#, "k: \"cr\\rlf\"\n"),
        (
            r#"{"k":"rocket 🚀 done"}"#,
            "k: \"rocket \\U0001F680 done\"\n",
        ),
        (r#"{"k":"a\u0085b"}"#, "k: \"a\\Nb\"\n"),
        (r#"{"k":"a\u0080b"}"#, "k: \"a\\x80b\"\n"),
        (r#"{"k":"a\ufffeb"}"#, "k: \"a\\uFFFEb\"\n"),
        (r#"{"k":"\"\\\t"}"#, "k: \"\\\"\\\\\\t\"\n"),
        // A leading byte order mark makes libyaml escape every character.
        (r#"{"k":"\ufeffab"}"#, "k: \"\\uFEFF\\x61\\x62\"\n"),
        (r#"{"k":"a\ufeffb"}"#, "k: \"a\\uFEFFb\"\n"),
        // Non-ASCII printable characters are written as they are.
        (r#"{"k":"é\u00a0日本"}"#, "k: é\u{a0}日本\n"),
        (r#"{"k":"\t1"}"#, "k: \"\\t1\"\n"),
    ]);
}

#[test]
fn multi_line_strings_use_literal_blocks() {
    check(&[
        (r#"{"k":"line1\nline2"}"#, "k: |-\n  line1\n  line2\n"),
        (r#"{"k":"line1\nline2\n"}"#, "k: |\n  line1\n  line2\n"),
        (r#"{"k":"trailing\n\n"}"#, "k: |+\n  trailing\n\n"),
        (r#"{"k":"\n"}"#, "k: |2+\n\n"),
        (r#"{"k":"  indented\nsecond\n"}"#, "k: |2\n    indented\n  second\n"),
        (r#"{"k":"a\n\nb"}"#, "k: |-\n  a\n\n  b\n"),
        (r#"{"k":"a\n  b"}"#, "k: |-\n  a\n    b\n"),
        (r#"{"k":"a\n#b: c"}"#, "k: |-\n  a\n  #b: c\n"),
        (r#"{"k":{"l":"a\nb"}}"#, "k:\n  l: |-\n    a\n    b\n"),
        (r#"{"k":["a\nb","c"]}"#, "k:\n- |-\n  a\n  b\n- c\n"),
        (r#"[["a\nb"]]"#, "- - |-\n    a\n    b\n"),
        (r#"{"k":"a\nb","z":1}"#, "k: |-\n  a\n  b\nz: 1\n"),
        (r#"{"k":"a\n\n","z":1}"#, "k: |+\n  a\n\nz: 1\n"),
        // Lines are never folded inside a literal block.
        (
            r#"{"k":"a long line that goes on and on past the eighty column limit without any folding at all\nx"}"#,
            "k: |-\n  a long line that goes on and on past the eighty column limit without any folding at all\n  x\n",
        ),
        // A space before a line break, a trailing space, or unprintable characters rule out
        // the literal style.
        (r#"{"k":"a \nb"}"#, "k: \"a \\nb\"\n"),
        (r#"{"k":"a\nb "}"#, "k: \"a\\nb \"\n"),
        (r#"{"k":"\tcode\n"}"#, "k: \"\\tcode\\n\"\n"),
        (r#"{"k":"a\r\nb\r\n"}"#, "k: \"a\\r\\nb\\r\\n\"\n"),
    ]);
}

#[test]
fn line_separator_makes_a_multi_line_single_quoted_scalar() {
    // U+2028 is printable for libyaml but counts as a line break: plain is not allowed,
    // single quotes are, and the break is copied followed by indentation.
    check(&[(r#"{"k":"a\u2028b"}"#, "k: 'a\u{2028}  b'\n")]);
}

#[test]
fn long_scalars_fold_at_spaces_past_80_columns() {
    let words = |n: usize, first: &str| {
        let mut parts = vec![first.to_string()];
        parts.extend(std::iter::repeat_n("abcdefghi".to_string(), n - 1));
        parts.join(" ")
    };
    let eight = words(8, "abcdefghi");
    let two = words(2, "abcdefghi");
    let json = format!(r#"{{"k":"{}"}}"#, words(10, "abcdefghi"));
    assert_eq!(yaml(&json), format!("k: {eight}\n  {two}\n"));

    let json = format!(r#"{{"a":{{"k":"{}"}}}}"#, words(10, "abcdefghi"));
    assert_eq!(yaml(&json), format!("a:\n  k: {eight}\n    {two}\n"));

    let json = format!(r#"["{}"]"#, words(10, "abcdefghi"));
    assert_eq!(yaml(&json), format!("- {eight}\n  {two}\n"));
    let json = format!(r#"["{}"]"#, words(8, "abcdefghi"));
    assert_eq!(yaml(&json), format!("- {eight}\n"));

    // Single-quoted scalars fold the same way.
    let json = format!(r#"{{"k":"{}"}}"#, words(10, "@bcdefghi"));
    let expected = format!("k: '{}\n  {two}'\n", words(8, "@bcdefghi"));
    assert_eq!(yaml(&json), expected);

    // Double-quoted scalars fold too; a second space after the fold is kept by escaping
    // the line break.
    let json = format!(r#"{{"k":"{}"}}"#, words(10, "\\tbcdefghi"));
    let expected = format!("k: \"{}\n  {two}\"\n", words(8, "\\tbcdefghi"));
    assert_eq!(yaml(&json), expected);
    let json = format!(r#"{{"k":"{}  abcdefghi"}}"#, words(8, "\\tbcdefghi"));
    let expected = format!("k: \"{}\n  \\ abcdefghi\"\n", words(8, "\\tbcdefghi"));
    assert_eq!(yaml(&json), expected);

    // Runs of spaces are not broken, and text without spaces is never folded.
    let long_word = "x".repeat(120);
    let json = format!(r#"{{"k":"{long_word}"}}"#);
    assert_eq!(yaml(&json), format!("k: {long_word}\n"));
    let json = format!(r#"{{"k":"{long_word}  y"}}"#);
    assert_eq!(yaml(&json), format!("k: {long_word}  y\n"));
    let json = format!(r#"{{"k":"{long_word} y"}}"#);
    assert_eq!(yaml(&json), format!("k: {long_word}\n  y\n"));
}

#[test]
fn keys_are_quoted_like_values() {
    check(&[
        (
            r#"{"yes":1,"n":2,"1":3,"true":4,"null":5,"":6,"~":7}"#,
            "\"\": 6\n\"~\": 7\n\"1\": 3\n\"n\": 2\n\"null\": 5\n\"true\": 4\n\"yes\": 1\n",
        ),
        (r#"{"a\tb":1}"#, "\"a\\tb\": 1\n"),
    ]);
}

#[test]
fn long_and_multi_line_keys_use_explicit_entries() {
    let key128 = "k".repeat(128);
    let key129 = "k".repeat(129);
    let cases = [
        (format!(r#"{{"{key128}":"v"}}"#), format!("{key128}: v\n")),
        (
            format!(r#"{{"{key129}":"v"}}"#),
            format!("? {key129}\n: v\n"),
        ),
        (
            format!(r#"{{"{key129}":{{"a":1}}}}"#),
            format!("? {key129}\n: a: 1\n"),
        ),
        (
            format!(r#"{{"{key129}":["a"]}}"#),
            format!("? {key129}\n: - a\n"),
        ),
        (
            r#"{"a\nb":"v"}"#.to_string(),
            "? |-\n  a\n  b\n: v\n".to_string(),
        ),
        (
            r#"{"x":{"a\nb":"v"}}"#.to_string(),
            "x:\n  ? |-\n    a\n    b\n  : v\n".to_string(),
        ),
    ];
    for (json, expected) in &cases {
        assert_eq!(&yaml(json), expected, "input: {json}");
    }
}

#[test]
fn key_order_is_go_yaml_natural_order() {
    let keys = [
        "é", "b", "a10", "a9", "a1", "a b", "B", "10", "2", "1", "_x", "-x", "", "x010", "x10",
        "k\u{663}", "k2",
    ];
    let mut sorted: Vec<&str> = keys.to_vec();
    merge_sort_by(&mut sorted, |a, b| go_key_less(a, b));
    assert_eq!(
        sorted,
        [
            "", "-x", "_x", "1", "2", "10", "B", "a b", "a1", "a9", "a10", "b", "k2", "k\u{663}",
            "x10", "x010", "é",
        ]
    );
    let json = r#"{"yes":1,"n":2,"1":3,"10":4,"2":5,"":6,"a b":7,"- x":8,"key: x":9,"_u":10,"B":11,"a10":12,"a9":13,"true":14,"null":15}"#;
    assert_eq!(
        yaml(json),
        "\"\": 6\n'- x': 8\n_u: 10\n\"1\": 3\n\"2\": 5\n\"10\": 4\nB: 11\na b: 7\na9: 13\n\
         a10: 12\n'key: x': 9\n\"n\": 2\n\"null\": 15\n\"true\": 14\n\"yes\": 1\n"
    );
}

#[test]
fn key_comparison_details() {
    let less = [
        ("a1", "a01"),
        ("a0", "a00"),
        ("a1-", "a10"),
        ("a10", "a15"),
        ("a10", "a1a"),
        ("-", "_"),
        ("Z", "a"),
        ("z", "é"),
        ("ab", "abc"),
    ];
    for (a, b) in less {
        assert!(go_key_less(a, b), "{a:?} < {b:?}");
        assert!(!go_key_less(b, a), "not {b:?} < {a:?}");
    }
}

#[test]
fn unicode_classes_follow_go() {
    for c in ['a', 'Z', 'é', 'ß', '日', 'Ж', 'ʰ', 'ǅ'] {
        assert!(is_go_letter(c), "{c:?} is a letter");
    }
    for c in ['1', '_', '-', '\u{663}', '\u{2163}', '\u{301}', '²', ' '] {
        assert!(!is_go_letter(c), "{c:?} is not a letter");
    }
    for c in ['0', '9', '\u{663}', '\u{ff11}', '\u{1d7ce}'] {
        assert!(is_go_digit(c), "{c:?} is a digit");
    }
    for c in ['a', '²', '\u{2163}', '½'] {
        assert!(!is_go_digit(c), "{c:?} is not a digit");
    }
}

#[test]
fn go_number_parsing() {
    assert_eq!(go_parse_int(b"-9223372036854775808", 0), Ok(i64::MIN));
    assert_eq!(
        go_parse_int(b"9223372036854775808", 0),
        Err(NumError::Range)
    );
    assert_eq!(
        go_parse_uint(b"18446744073709551616", 0),
        Err(NumError::Range)
    );
    assert_eq!(go_parse_uint(b"+1", 0), Err(NumError::Syntax));
    assert_eq!(go_parse_uint(b"0x1f", 0), Ok(31));
    assert_eq!(go_parse_uint(b"017", 0), Ok(15));
    assert_eq!(go_parse_uint(b"0", 0), Ok(0));
    assert_eq!(go_parse_uint(b"08", 0), Err(NumError::Syntax));
    assert!(go_uint_syntax_ok(b"0x123456789abcdef0123"));
    assert!(!go_uint_syntax_ok(b"0x123456789abcdef0123g"));
    assert!(go_underscore_ok(b"1_000"));
    assert!(!go_underscore_ok(b"1__0"));
    assert!(!go_underscore_ok(b"_1"));
    assert!(go_underscore_ok(b"0x_1"));
    assert!(go_parse_float_ok(b".5"));
    assert!(go_parse_float_ok(b".5e-3"));
    assert!(!go_parse_float_ok(b".5e"));
    assert!(!go_parse_float_ok(b".e5"));
    assert!(!go_parse_float_ok(b".5.5"));
    assert!(!go_parse_float_ok(b".5e999"));
    assert!(is_yaml_style_float(b"-1.5e+3"));
    assert!(!is_yaml_style_float(b"1e"));
    assert!(!is_yaml_style_float(b"."));
}

#[test]
fn base60_floats() {
    for text in [
        "1:2",
        "12:30",
        "-1:59:59",
        "+1_0:00.5",
        "1:00.",
        "190:20:30",
    ] {
        assert!(is_base60_float(text), "{text}");
    }
    for text in [
        "12:60", "1:234", ":30", "1:", "1:2:", "a:1", "1::2", "1.5:30",
    ] {
        assert!(!is_base60_float(text), "{text}");
    }
}

#[test]
fn round_trips_recorded_upstream_output() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(FIXTURE_DIR);
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("fixture directory {}: {e}", dir.display()));
    let mut names: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no fixtures in {}", dir.display());
    let mut failures = Vec::new();
    for json_path in &names {
        let yaml_path = json_path.with_extension("yaml");
        let json = std::fs::read_to_string(json_path).expect("fixture JSON must be readable");
        let expected = std::fs::read(&yaml_path).expect("fixture YAML must be readable");
        let value: Value = serde_json::from_str(&json).expect("fixture JSON must parse");
        let mut out = Vec::new();
        write_document(&value, &mut out);
        if out != expected {
            let line = out
                .split(|&b| b == b'\n')
                .zip(expected.split(|&b| b == b'\n'))
                .position(|(a, b)| a != b)
                .map_or(0, |n| n + 1);
            failures.push(format!(
                "{} (first difference on line {line})",
                yaml_path.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures differ:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}
