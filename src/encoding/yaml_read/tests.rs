use super::json::{go_float_key, go_json_float};
use super::*;
use std::fmt::Write as _;

#[test]
fn duplicate_keys_are_found_with_lines() {
    let found = first_duplicate_key(b"name: a\nversion: 1.0.0\nx:\n  version: 2\nversion: 1.0.0\n")
        .unwrap();
    assert_eq!(
        (found.key.as_str(), found.first_line, found.line),
        ("version", 2, 5)
    );
    let nested = first_duplicate_key(b"a:\n- {k: 1, k: 2}\n").unwrap();
    assert_eq!((nested.key.as_str(), nested.line), ("k", 2));
    assert_eq!(first_duplicate_key(b"a: 1\nb: {a: 1}\nc: [a, a]\n"), None);
    assert_eq!(first_duplicate_key(b"a: [\n"), None);
    assert_eq!(first_duplicate_key(b"a: 1\n---\na: 1\na: 2\n"), None);
}

fn json(text: &str) -> String {
    match yaml_to_json(text) {
        Ok(value) => value.to_string(),
        Err(error) => format!("ERR {error}"),
    }
}

/// `value: <scalar>` → the JSON of the value.
fn scalar_json(scalar: &str) -> String {
    let text = json(&format!("v: {scalar}\n"));
    match text.strip_prefix("{\"v\":") {
        Some(rest) => rest.trim_end_matches('}').to_string(),
        None => text,
    }
}

#[test]
fn plain_scalar_resolution() {
    let cases: &[(&str, &str)] = &[
        // YAML 1.1 booleans
        ("y", "true"),
        ("Y", "true"),
        ("yes", "true"),
        ("Yes", "true"),
        ("YES", "true"),
        ("n", "false"),
        ("N", "false"),
        ("no", "false"),
        ("No", "false"),
        ("NO", "false"),
        ("true", "true"),
        ("True", "true"),
        ("TRUE", "true"),
        ("false", "false"),
        ("False", "false"),
        ("FALSE", "false"),
        ("on", "true"),
        ("On", "true"),
        ("ON", "true"),
        ("off", "false"),
        ("Off", "false"),
        ("OFF", "false"),
        ("yEs", "\"yEs\""),
        ("tRUE", "\"tRUE\""),
        // nulls
        ("~", "null"),
        ("null", "null"),
        ("Null", "null"),
        ("NULL", "null"),
        ("", "null"),
        ("nULL", "\"nULL\""),
        // integers
        ("0", "0"),
        ("42", "42"),
        ("+42", "42"),
        ("-17", "-17"),
        ("-0", "0"),
        ("0x1F", "31"),
        ("0X1f", "31"),
        ("0o17", "15"),
        ("0123", "83"),
        ("-0123", "-83"),
        ("0b101", "5"),
        ("-0b101", "-5"),
        ("1_000", "1000"),
        ("0x_1F", "31"),
        ("08", "8"),
        ("9223372036854775807", "9223372036854775807"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("9223372036854775808", "9223372036854775808"),
        ("18446744073709551615", "18446744073709551615"),
        // beyond 64 bits: digits kept (project decision)
        ("18446744073709551616", "18446744073709551616"),
        ("-9223372036854775809", "-9223372036854775809"),
        (
            "123456789012345678901234567890",
            "123456789012345678901234567890",
        ),
        ("0x10000000000000000", "18446744073709551616"),
        // floats
        ("1.0", "1"),
        ("1.50", "1.5"),
        ("1e3", "1000"),
        ("1E3", "1000"),
        ("1.", "1"),
        (".5", "0.5"),
        ("-.5", "-0.5"),
        ("+.5", "0.5"),
        ("0.25", "0.25"),
        ("3.25", "3.25"),
        ("-0.0", "-0"),
        ("1e21", "1e+21"),
        ("1e20", "100000000000000000000"),
        ("1e-6", "0.000001"),
        ("1e-7", "1e-7"),
        ("1.5e-10", "1.5e-10"),
        ("1.2345e300", "1.2345e+300"),
        ("1_000.5", "1000.5"),
        ("1e400", "\"1e400\""),
        (".5e400", "\".5e400\""),
        ("._5", "\"._5\""),
        // timestamps stay text
        ("2020-01-01", "\"2020-01-01\""),
        (
            "2001-12-14t21:59:43.10-05:00",
            "\"2001-12-14t21:59:43.10-05:00\"",
        ),
        // other text
        ("12:30", "\"12:30\""),
        ("0x", "\"0x\""),
        ("1_", "1"),
        ("+", "\"+\""),
        (".", "\".\""),
        ("<<", "\"<<\""),
        ("foo bar", "\"foo bar\""),
        ("0b", "\"0b\""),
        ("0b-101", "-5"),
        // quoted scalars are strings
        ("\"yes\"", "\"yes\""),
        ("'1.0'", "\"1.0\""),
        ("\"\"", "\"\""),
        ("'null'", "\"null\""),
        // tags
        ("!!str 12", "\"12\""),
        ("!!str yes", "\"yes\""),
        ("!!int \"12\"", "12"),
        ("!!float 3", "3"),
        ("!!float '1.5'", "1.5"),
        ("!!bool \"yes\"", "true"),
        ("!!null ''", "null"),
        ("!!timestamp 2020-01-01", "\"2020-01-01\""),
        ("!!binary aGVsbG8=", "\"hello\""),
        ("!custom 12", "\"12\""),
        ("! 12", "\"12\""),
    ];
    for (input, expected) in cases {
        assert_eq!(scalar_json(input), *expected, "scalar {input:?}");
    }
}

#[test]
fn nonfinite_values_fail_like_json_marshal() {
    let cases: &[(&str, &str)] = &[
        (".inf", "+Inf"),
        (".Inf", "+Inf"),
        ("+.INF", "+Inf"),
        ("-.inf", "-Inf"),
        (".nan", "NaN"),
        (".NaN", "NaN"),
    ];
    for (input, shown) in cases {
        assert_eq!(
            scalar_json(input),
            format!("ERR error converting YAML to JSON: json: unsupported value: {shown}"),
            "scalar {input:?}"
        );
    }
    // Go's encoder walks keys in sorted order: the first bad one is reported.
    assert_eq!(
        json("z: .inf\na: .nan\n"),
        "ERR error converting YAML to JSON: json: unsupported value: NaN"
    );
}

#[test]
fn tag_mismatches() {
    let cases: &[(&str, &str)] = &[
        ("!!int foo", "cannot decode !!str `foo` as a !!int"),
        ("!!int 1.5", "cannot decode !!float `1.5` as a !!int"),
        ("!!bool 1", "cannot decode !!int `1` as a !!bool"),
        ("!!null x", "cannot decode !!str `x` as a !!null"),
        ("!!float yes", "cannot decode !!bool `yes` as a !!float"),
        (
            "!!timestamp 12",
            "cannot decode !!int `12` as a !!timestamp",
        ),
        (
            "!!timestamp 2020-13-01",
            "cannot decode !!str `2020-13-01` as a !!timestamp",
        ),
        ("!!binary a", "!!binary value contains invalid base64 data"),
    ];
    for (input, message) in cases {
        assert_eq!(
            scalar_json(input),
            format!("ERR error converting YAML to JSON: yaml: {message}"),
            "scalar {input:?}"
        );
    }
}

#[test]
fn keys_become_strings() {
    let cases: &[(&str, &str)] = &[
        ("yes: no\nn: 2\n", r#"{"false":2,"true":false}"#),
        ("1: a\n0x10: b\n", r#"{"1":"a","16":"b"}"#),
        ("1.5: a\n", r#"{"1.5":"a"}"#),
        ("1.0: a\n", r#"{"1":"a"}"#),
        ("1e6: a\n", r#"{"1e+06":"a"}"#),
        ("100000.0: a\n", r#"{"100000":"a"}"#),
        ("0.1: a\n", r#"{"0.1":"a"}"#),
        ("3.14159265358979: a\n", r#"{"3.1415927":"a"}"#),
        ("0.00001: a\n", r#"{"1e-05":"a"}"#),
        (
            ".inf: a\n-.inf: b\n.nan: c\n",
            r#"{"-.inf":"b",".inf":"a",".nan":"c"}"#,
        ),
        (
            "123456789012345678901234567890: a\n",
            r#"{"1.2345679e+29":"a"}"#,
        ),
        ("2020-01-01: a\n", r#"{"2020-01-01":"a"}"#),
        ("'yes': a\n", r#"{"yes":"a"}"#),
        ("? a\n", r#"{"a":null}"#),
    ];
    for (input, expected) in cases {
        assert_eq!(json(input), *expected, "input {input:?}");
    }
    let failures: &[(&str, &str)] = &[
            (
                "~: e\n",
                "unsupported map key of type: %!s(<nil>), key: <nil>, value: \"e\"",
            ),
            (
                "18446744073709551615: [1, ~]\n",
                "unsupported map key of type: uint64, key: 0xffffffffffffffff, value: []interface {}{1, interface {}(nil)}",
            ),
            (
                "0x10000000000000000: 1\n",
                "unsupported map key of type: *big.Int, key: +18446744073709551616, value: 1",
            ),
        ];
    for (input, message) in failures {
        assert_eq!(
            json(input),
            format!("ERR error converting YAML to JSON: {message}"),
            "input {input:?}"
        );
    }
    assert_eq!(
        json("[a]: 1\n"),
        "ERR error converting YAML to JSON: yaml: invalid map key: []interface {}{\"a\"}"
    );
    assert_eq!(
            json("? {a: 1}\n: x\n"),
            "ERR error converting YAML to JSON: yaml: invalid map key: map[interface {}]interface {}{\"a\":1}"
        );
}

#[test]
fn duplicates_anchors_and_merges() {
    let cases: &[(&str, &str)] = &[
        ("k: 1\nk: 2\n", r#"{"k":2}"#),
        ("y: 1\ntrue: 2\n", r#"{"true":2}"#),
        (
            "base: &b {x: 1, y: [1, 2]}\ncopy: *b\n",
            r#"{"base":{"true":[1,2],"x":1},"copy":{"true":[1,2],"x":1}}"#,
        ),
        ("a: &x 5\nb: *x\n", r#"{"a":5,"b":5}"#),
        ("a: &x 1\nb: &x 2\nc: *x\n", r#"{"a":1,"b":2,"c":2}"#),
        (
            "d: &d {a: 1, b: 2}\ne:\n  <<: *d\n  b: 3\n",
            r#"{"d":{"a":1,"b":2},"e":{"a":1,"b":3}}"#,
        ),
        ("e:\n  b: 3\n  <<: {a: 1, b: 2}\n", r#"{"e":{"a":1,"b":2}}"#),
        (
            "<<: [{a: 1, b: 1}, {b: 2, c: 2}]\n",
            r#"{"a":1,"b":1,"c":2}"#,
        ),
        ("'<<': {a: 1}\n", r#"{"<<":{"a":1}}"#),
        ("!!merge <<: {a: 1}\n", r#"{"a":1}"#),
    ];
    for (input, expected) in cases {
        assert_eq!(json(input), *expected, "input {input:?}");
    }
    let failures: &[(&str, &str)] = &[
        ("a: *nope\n", "yaml: unknown anchor 'nope' referenced"),
        ("a: &a [*a]\n", "yaml: anchor 'a' value contains itself"),
        (
            "<<: 5\n",
            "yaml: map merge requires map or sequence of maps as the value",
        ),
        (
            "<<: [5]\n",
            "yaml: map merge requires map or sequence of maps as the value",
        ),
        (
            "a: &s [1]\n<<: *s\n",
            "yaml: map merge requires map or sequence of maps as the value",
        ),
    ];
    for (input, message) in failures {
        assert_eq!(
            json(input),
            format!("ERR error converting YAML to JSON: {message}"),
            "input {input:?}"
        );
    }
}

#[test]
fn documents_without_content_are_null() {
    for input in [
        "",
        "\n",
        "\n\n\n",
        "# just a comment\n",
        "---\n",
        "---\n# c\n",
        "~\n",
    ] {
        assert_eq!(yaml_to_json(input), Ok(Value::Null), "input {input:?}");
    }
    // Only the first document of the text is read.
    assert_eq!(json("a: 1\n...\nb: [\n"), r#"{"a":1}"#);
    assert_eq!(json("a: 1\n---\nb: 2\n"), r#"{"a":1}"#);
}

#[test]
fn syntax_errors_use_go_yaml_line_rule() {
    let cases: &[(&str, &str)] = &[
        (
            "schema: olm.package\nname: [foo\n",
            "yaml: line 2: did not find expected ',' or ']'",
        ),
        (
            "schema: a: b\n",
            "yaml: mapping values are not allowed in this context",
        ),
        (
            "x: 1\nschema: a: b\n",
            "yaml: line 2: mapping values are not allowed in this context",
        ),
        (
            "schema: a.b\n\tkey: v\n",
            "yaml: line 2: found a tab character that violates indentation",
        ),
        (
            "a:\n  - b\n  c: d\n",
            "yaml: line 2: did not find expected '-' indicator",
        ),
        ("a: 'x\n", "yaml: line 2: found unexpected end of stream"),
        ("@x\n", "yaml: found character that cannot start any token"),
        (
            "a: b\n@x\n",
            "yaml: line 2: found character that cannot start any token",
        ),
        (
            "key: [a, b\nc: d\n",
            "yaml: line 1: did not find expected ',' or ']'",
        ),
        (
            "- a\nb: c\n",
            "yaml: line 1: did not find expected '-' indicator",
        ),
    ];
    for (input, message) in cases {
        assert_eq!(
            json(input),
            format!("ERR error converting YAML to JSON: {message}"),
            "input {input:?}"
        );
    }
}

#[test]
fn encodings() {
    assert_eq!(
        yaml_bytes_to_json(b"\xff\xfe\x00garbage\n").map_err(|e| e.to_string()),
        Err("error converting YAML to JSON: yaml: incomplete UTF-16 character".to_string())
    );
    let utf16: Vec<u8> = [0xfeff_u16]
        .into_iter()
        .chain("a: 1\n".encode_utf16())
        .flat_map(u16::to_le_bytes)
        .collect();
    assert_eq!(
        yaml_bytes_to_json(&utf16).map(|v| v.to_string()),
        Ok(r#"{"a":1}"#.to_string())
    );
    assert_eq!(json("\u{feff}a: 1\n"), r#"{"a":1}"#);
    assert_eq!(
        yaml_bytes_to_json(b"a: \xff\n").map_err(|e| e.to_string()),
        Err("error converting YAML to JSON: yaml: invalid leading UTF-8 octet".to_string())
    );
    assert_eq!(
        json("a: \u{1}\n"),
        "ERR error converting YAML to JSON: yaml: control characters are not allowed"
    );
}

#[test]
fn go_float_printing() {
    let cases: &[(f64, &str)] = &[
        (1.0, "1"),
        (1.5, "1.5"),
        (0.1, "0.1"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1.5e21, "1.5e+21"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.25e-7, "1.25e-7"),
        (1e-10, "1e-10"),
        (123456789.0, "123456789"),
        (-0.0, "-0"),
        (0.0, "0"),
        (f64::MAX, "1.7976931348623157e+308"),
        (5e-324, "5e-324"),
    ];
    for (value, expected) in cases {
        assert_eq!(go_json_float(*value), *expected, "value {value}");
    }
    assert_eq!(go_float_key(1e6), "1e+06");
    assert_eq!(go_float_key(123456.0), "123456");
    assert_eq!(go_float_key(1234567.0), "1.234567e+06");
    assert_eq!(go_float_key(0.0001), "0.0001");
    assert_eq!(go_float_key(0.00001), "1e-05");
    assert_eq!(go_float_key(1e300), ".inf");
    assert_eq!(
        go_quote("a\"b\\c\n\u{1}é\u{a0}"),
        r#""a\"b\\c\n\x01é\u00a0""#
    );
}

#[test]
fn deep_and_aliased_documents() {
    let depth = MAX_DEPTH;
    let ok = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let value = yaml_to_json(&ok).expect("10000 levels are accepted");
    drop(value);
    let deep = format!("{}{}", "[".repeat(depth + 1), "]".repeat(depth + 1));
    assert_eq!(
            yaml_to_json(&deep).map_err(|e| e.to_string()),
            Err("error unmarshaling JSON: while decoding JSON: invalid character '[' exceeded max depth".to_string())
        );
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let p = i - 1;
        let _ = writeln!(
            bomb,
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]"
        );
    }
    assert_eq!(
        yaml_to_json(&bomb).map_err(|e| e.to_string()),
        Err(
            "error converting YAML to JSON: yaml: document contains excessive aliasing".to_string()
        )
    );
    // One large scalar referenced many times passes go-yaml's node ratio; its bytes do not.
    let big = "x".repeat(64 << 10);
    let mut scalars = format!("big: &big \"{big}\"\nrefs:\n");
    for i in 0..300 {
        let _ = writeln!(scalars, "  k{i}: *big");
    }
    let refused = yaml_to_json(&scalars).unwrap_err().to_string();
    assert_eq!(
        check_alias_expansion(scalars.as_bytes()).map_err(|e| e.to_string()),
        Err(refused.clone())
    );
    assert!(
        refused.starts_with(
            "error converting YAML to JSON: yaml: document contains excessive aliasing: \
                 aliases expand to more than"
        ),
        "{refused}"
    );
    // A few references stay within the budget.
    let mut fewer = format!("big: &big \"{big}\"\nrefs:\n");
    for i in 0..9 {
        let _ = writeln!(fewer, "  k{i}: *big");
    }
    assert!(yaml_to_json(&fewer).is_ok());
    assert!(check_alias_expansion(fewer.as_bytes()).is_ok());
    // Nested anchors multiply: each level doubles what the one below expands to.
    let mut doubling = "a0: &a0 \"xxxxxxxx\"\n".to_string();
    for i in 1..30 {
        let _ = writeln!(doubling, "a{i}: &a{i} [*a{p}, *a{p}]", p = i - 1);
    }
    assert!(check_alias_expansion(doubling.as_bytes()).is_err());
    assert!(check_alias_expansion(b"a: &a [*a]\n").is_ok());
    assert!(check_alias_expansion(b"a: [unclosed\n").is_ok());
    // Aliases nesting 300 levels deep, with enough plain content to stay under the
    // aliasing ratio.
    let mut chain = format!("pad: [{}]\na0: &a0 [1]\n", vec!["0"; 100_000].join(", "));
    for i in 1..300 {
        let _ = writeln!(chain, "a{i}: &a{i} [*a{}]", i - 1);
    }
    assert!(yaml_to_json(&chain).is_ok());
}
