//! Tests of the checker against cel-go's messages.

use super::check_constraint_rule as check;

const EXPR_SET: &str = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

fn err(rule: &str) -> String {
    match check(rule) {
        Ok(()) => panic!("expected an error for {rule:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn conformance_rules() {
    // valid-dependencies
    assert_eq!(
        check(r#"properties.exists(p, p.type == "certified")"#),
        Ok(())
    );
    // deps-constraint-cel-syntax-error
    let e = err("properties.exists(p, p.type == ");
    assert!(e.starts_with("ERROR: <input>:1:"), "{e}");
    assert_eq!(
            e,
            format!(
                "ERROR: <input>:1:32: Syntax error: mismatched input '<EOF>' expecting {EXPR_SET}\n | properties.exists(p, p.type == \n | ...............................^"
            )
        );
}

#[test]
fn valid_expressions() {
    let cases = [
        "true",
        "!false",
        "1 < 2",
        r#""a" + "b" == "ab""#,
        r#"size("abc") == 3 && "abc".size() == 3"#,
        "[1, 2, 3].all(x, x > 0)",
        "[1, 2, 3].exists_one(x, x == 2)",
        "[1, 2].map(x, x * 2) == [2, 4]",
        "[1, 2].map(x, x > 1, x * 2).size() == 1",
        "[1, 2].filter(x, x > 1).size() == 1",
        r#"{"a": 1}.a == 1"#,
        r#"has({"a": 1}.a)"#,
        r#""a" in {"a": 1}"#,
        "2 in [1, 2]",
        "1u + 2u == 3u",
        "0x10 == 16 && 0x10u == 16u",
        "1.5e3 > 1.0 && .5 < 1.0 && 1e3 == 1000.0 && 2.5E-3 < 1.0",
        "-1 < 0 && -1.5 < 0.0",
        "b\"abc\" == b'abc' && B\"x\" != bR\"y\"",
        r#"r"\d+" == '\\d+' && R'a' == "a""#,
        "\"\"\"multi\nline\"\"\" != ''",
        "'''x''' == \"x\"",
        r#""\u263A\x41\101\U0001F600\a\b\f\n\r\t\v\"\'\\\?\`" != """#,
        "null == null",
        "true ? true : false",
        "properties.size() > 0 && size(properties) >= 1",
        r#"properties.exists(p, p.type == "olm.label" && p.value.label == "x")"#,
        "properties.all(p, has(p.type))",
        r#"properties.filter(p, p.type == "olm.gvk").size() == 1"#,
        r#"properties.map(p, p.type).exists(t, t == "a")"#,
        r#"type(1) == int && type("a") == string"#,
        r#"string(1) == "1" && int("1") == 1 && double(1) == 1.0 && uint(1) == 1u"#,
        r#"timestamp("2020-01-01T00:00:00Z") < timestamp("2021-01-01T00:00:00Z")"#,
        r#"duration("1s") < duration("2s") && timestamp("2020-01-01T00:00:00Z").getFullYear() == 2020"#,
        r#""abc".startsWith("a") && "abc".endsWith("c") && "abc".contains("b") && "abc".matches("^a") && matches("abc", "b")"#,
        "dyn(1) == 1",
        r#"[1, "a"].size() == 2 && {1: "a", "b": 2}.size() == 2"#,
        r#"properties[0].type == "x" && properties[0]["value"] != null"#,
        "// a comment\ntrue // trailing",
        ".properties.size() == 0",
        r#"[1, 2, ].size() == 2 && {"a": 1, }.size() == 1 && [,].size() == 0"#,
        "!!true && --1 == 1 && -(-1) == 1 && 1 - -1 == 2 && 4--4 == 8",
        "properties.exists(p, p.value)",
        r#"semver_compare("1.0.0", "2.0.0") == -1"#,
        r#"properties.exists(p, p.type == "olm.package" && p.value.packageName == "etcd" && semver_compare(p.value.version, "0.9.0") >= 0)"#,
        "-9223372036854775808 < 0 && 18446744073709551615u > 0u && 0x7fffffffffffffff > 0",
        r#"properties.exists_one(p, p.type == "a") || properties.exists(p, p.type in ["a", "b"])"#,
        r#"{"a": [1, 2]}.a[0] == 1"#,
        "google.protobuf.Struct{} != null",
        "type(properties[0]) == map",
        "\tproperties.exists(p,\n\tp.type == 'x')\r\n",
        "properties.exists(if_, if_.type == 'x')",
        "[[1], [2]].exists(l, l.exists(x, x == 2))",
        "{'a': true}['a']",
        "[true][0] || false",
    ];
    for rule in cases {
        assert_eq!(check(rule), Ok(()), "{rule}");
    }
}

#[test]
fn exact_syntax_errors() {
    // Expected texts as cel-go renders them (its own parser tests, where
    // cel-go reports more than the first syntax error only the first is
    // compared, see `syntax_error_positions`).
    let cases = [
            (
                "1 + $",
                format!("ERROR: <input>:1:5: Syntax error: token recognition error at: '$'\n | 1 + $\n | ....^\nERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {EXPR_SET}\n | 1 + $\n | .....^"),
            ),
            (
                "a | b",
                "ERROR: <input>:1:3: Syntax error: token recognition error at: '| '\n | a | b\n | ..^\nERROR: <input>:1:5: Syntax error: extraneous input 'b' expecting <EOF>\n | a | b\n | ....^".to_string(),
            ),
            (
                "{\"a\": 1}.\"a\"",
                "ERROR: <input>:1:10: Syntax error: mismatched input '\"a\"' expecting IDENTIFIER\n | {\"a\": 1}.\"a\"\n | .........^".to_string(),
            ),
            (
                "1 + 2\n3 +",
                "ERROR: <input>:2:1: Syntax error: mismatched input '3' expecting <EOF>\n | 3 +\n | ^".to_string(),
            ),
            (
                "\"\\xFh\"",
                format!("ERROR: <input>:1:1: Syntax error: token recognition error at: '\"\\xFh'\n | \"\\xFh\"\n | ^\nERROR: <input>:1:6: Syntax error: token recognition error at: '\"'\n | \"\\xFh\"\n | .....^\nERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting {EXPR_SET}\n | \"\\xFh\"\n | ......^"),
            ),
            (
                "TestAllTypes(){single_int32: 1, single_int64: 2}",
                "ERROR: <input>:1:13: expected a qualified name\n | TestAllTypes(){single_int32: 1, single_int64: 2}\n | ............^".to_string(),
            ),
            (
                "1.all(2, 3)",
                "ERROR: <input>:1:7: argument must be a simple name\n | 1.all(2, 3)\n | ......^".to_string(),
            ),
            (
                "      '😁' in ['😁', '😑', '😦'] \n\t\t\t&& in.😁",
                format!("ERROR: <input>:2:7: Syntax error: extraneous input 'in' expecting {EXPR_SET}\n |    && in.😁\n | ......^\nERROR: <input>:2:10: Syntax error: token recognition error at: '😁'\n |    && in.😁\n | .........\u{ff3e}"),
            ),
        ];
    for (rule, want) in cases {
        assert_eq!(err(rule), want, "{rule:?}");
    }
}

#[test]
fn syntax_error_positions() {
    // (rule, first line of the diagnostic)
    let cases = [
            ("1 + ", format!("ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {EXPR_SET}")),
            ("   ", format!("ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {EXPR_SET}")),
            ("1 + +", format!("ERROR: <input>:1:5: Syntax error: mismatched input '+' expecting {EXPR_SET}")),
            ("*@a | b", format!("ERROR: <input>:1:1: Syntax error: extraneous input '*' expecting {EXPR_SET}")),
            ("!", format!("ERROR: <input>:1:2: Syntax error: extraneous input '<EOF>' expecting {EXPR_SET}")),
            ("f(1,", format!("ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {EXPR_SET}")),
            ("f(1,)", format!("ERROR: <input>:1:5: Syntax error: mismatched input ')' expecting {EXPR_SET}")),
            ("a.", "ERROR: <input>:1:3: Syntax error: missing IDENTIFIER at '<EOF>'".to_string()),
            ("a.true", "ERROR: <input>:1:3: Syntax error: mismatched input 'true' expecting IDENTIFIER".to_string()),
            ("(1", "ERROR: <input>:1:3: Syntax error: missing ')' at '<EOF>'".to_string()),
            ("f(1 2)", "ERROR: <input>:1:5: Syntax error: extraneous input '2' expecting ')'".to_string()),
            ("[1, 2", "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {']', ','}".to_string()),
            ("[1 2]", "ERROR: <input>:1:4: Syntax error: extraneous input '2' expecting {']', ','}".to_string()),
            ("{1: 2", "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {'}', ','}".to_string()),
            ("{1 2}", "ERROR: <input>:1:4: Syntax error: missing ':' at '2'".to_string()),
            ("a ? b", "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting ':'".to_string()),
            ("a ? b c", "ERROR: <input>:1:7: Syntax error: missing ':' at 'c'".to_string()),
            ("-", "ERROR: <input>:1:2: Syntax error: no viable alternative at input '-'".to_string()),
            ("- )", "ERROR: <input>:1:3: Syntax error: no viable alternative at input '- )'".to_string()),
            ("!-a", "ERROR: <input>:1:3: Syntax error: no viable alternative at input '-a'".to_string()),
            ("1 = 2", "ERROR: <input>:1:3: Syntax error: token recognition error at: '= '".to_string()),
            ("a & b", "ERROR: <input>:1:3: Syntax error: token recognition error at: '& '".to_string()),
            ("\"abc", "ERROR: <input>:1:1: Syntax error: token recognition error at: '\"abc'".to_string()),
            ("'a\nb'", "ERROR: <input>:1:1: Syntax error: token recognition error at: ''a\\n'".to_string()),
            ("\"\\q\"", "ERROR: <input>:1:1: Syntax error: token recognition error at: '\"\\q'".to_string()),
            ("a b c", "ERROR: <input>:1:3: Syntax error: mismatched input 'b' expecting <EOF>".to_string()),
            ("a)", "ERROR: <input>:1:2: Syntax error: extraneous input ')' expecting <EOF>".to_string()),
            ("x{a 1}", "ERROR: <input>:1:5: Syntax error: missing ':' at '1'".to_string()),
            ("x{1: 2}", "ERROR: <input>:1:3: Syntax error: mismatched input '1' expecting {'}', ',', IDENTIFIER}".to_string()),
            ("a.b(", "ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}".to_string()),
            ("\n\n  1 +", format!("ERROR: <input>:3:6: Syntax error: mismatched input '<EOF>' expecting {EXPR_SET}")),
            ("true\n", "ERROR: <input>:2:1: Syntax error: mismatched input '<EOF>' expecting <EOF>".to_string()),
        ];
    for (rule, want) in cases {
        if rule == "true\n" {
            // A trailing newline is fine: EOF is accepted there.
            assert_eq!(check(rule), Ok(()));
            continue;
        }
        let got = err(rule);
        assert_eq!(got.lines().next(), Some(want.as_str()), "{rule:?}\n{got}");
    }
}

#[test]
fn parser_semantic_errors() {
    let cases = [
        ("if", "ERROR: <input>:1:1: reserved identifier: if"),
        (
            "package(x)",
            "ERROR: <input>:1:1: reserved identifier: package",
        ),
        (".while", "ERROR: <input>:1:1: reserved identifier: while"),
        (
            "x.all(1, true)",
            "ERROR: <input>:1:7: argument must be a simple name",
        ),
        (
            "x.exists(a.b, true)",
            "ERROR: <input>:1:11: argument must be a simple name",
        ),
        (
            "has(x)",
            "ERROR: <input>:1:5: invalid argument to has() macro",
        ),
        (
            "[1].map(1, 2)",
            "ERROR: <input>:1:9: argument is not an identifier",
        ),
        (
            "[1].filter(1, 2)",
            "ERROR: <input>:1:12: argument is not an identifier",
        ),
        (
            "9223372036854775808 > 0",
            "ERROR: <input>:1:1: invalid int literal",
        ),
        (
            "-9223372036854775809 < 0",
            "ERROR: <input>:1:1: invalid int literal",
        ),
        (
            "18446744073709551616u > 0u",
            "ERROR: <input>:1:1: invalid uint literal",
        ),
        ("1e400 > 0.0", "ERROR: <input>:1:1: invalid double literal"),
        (
            r#""\U00110000" == """#,
            "ERROR: <input>:1:1: unable to unescape string",
        ),
        ("f(){}", "ERROR: <input>:1:2: expected a qualified name"),
    ];
    for (rule, want) in cases {
        let got = err(rule);
        assert_eq!(got.lines().next(), Some(want), "{rule:?}\n{got}");
    }
}

#[test]
fn undeclared_references() {
    let cases = [
            ("foo", "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo\n | ^"),
            (
                r#"semver_compares(properties, "1.0.0") > 0"#,
                "ERROR: <input>:1:16: undeclared reference to 'semver_compares' (in container '')\n | semver_compares(properties, \"1.0.0\") > 0\n | ...............^",
            ),
            (
                "properties.exists(p, q)",
                "ERROR: <input>:1:22: undeclared reference to 'q' (in container '')\n | properties.exists(p, q)\n | .....................^",
            ),
            (
                "x.y.z == 1",
                "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x.y.z == 1\n | ^",
            ),
            (
                "properties.foo()",
                "ERROR: <input>:1:15: undeclared reference to 'foo' (in container '')\n | properties.foo()\n | ..............^",
            ),
            (
                "p.type == 'x' && properties.size() > 0",
                "ERROR: <input>:1:1: undeclared reference to 'p' (in container '')\n | p.type == 'x' && properties.size() > 0\n | ^",
            ),
            (
                "a == b",
                "ERROR: <input>:1:1: undeclared reference to 'a' (in container '')\n | a == b\n | ^\nERROR: <input>:1:6: undeclared reference to 'b' (in container '')\n | a == b\n | .....^",
            ),
            (
                "Msg{f: 1}",
                "ERROR: <input>:1:4: undeclared reference to 'Msg' (in container '')\n | Msg{f: 1}\n | ...^",
            ),
        ];
    for (rule, want) in cases {
        assert_eq!(err(rule), want, "{rule:?}");
    }
}

#[test]
fn error_list_is_sorted_and_truncated() {
    let rule = (0..150)
        .map(|i| format!("v{i}"))
        .collect::<Vec<_>>()
        .join(" || ");
    let got = err(&rule);
    let lines: Vec<&str> = got.lines().filter(|l| l.starts_with("ERROR:")).collect();
    assert_eq!(lines.len(), 100);
    assert!(lines[0].starts_with("ERROR: <input>:1:1: undeclared reference to 'v0'"));
    assert!(lines[1].starts_with("ERROR: <input>:1:7: undeclared reference to 'v1'"));
    assert!(got.ends_with("\n50 more errors were truncated"), "{got}");
}

#[test]
fn type_errors() {
    let cases = [
            ("1 + \"a\"", "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'"),
            ("1 == \"a\"", "ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, string)'"),
            ("1 == null", "ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, null)'"),
            ("properties.exists(p, 1)", "ERROR: <input>:1:18: found no matching overload for '_||_' applied to '(bool, int)'"),
            ("1.size() == 1", "ERROR: <input>:1:7: found no matching overload for 'size' applied to 'int.()'"),
            ("true.x", "ERROR: <input>:1:5: type 'bool' does not support field selection"),
            ("1.all(x, true)", "ERROR: <input>:1:1: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)"),
            ("-1u < 0u", "ERROR: <input>:1:1: found no matching overload for '-_' applied to '(uint)'"),
            ("!1", "ERROR: <input>:1:1: found no matching overload for '!_' applied to '(int)'"),
            ("properties + 1 == 2", "ERROR: <input>:1:12: found no matching overload for '_+_' applied to '(list(map(string, any)), int)'"),
            ("semver_compare(1) == 0", "ERROR: <input>:1:15: found no matching overload for 'semver_compare' applied to '(int)'"),
            ("'a'.semver_compare('b') == 0", "ERROR: <input>:1:19: found no matching overload for 'semver_compare' applied to 'string.(string)'"),
            ("true && 1", "ERROR: <input>:1:6: found no matching overload for '_&&_' applied to '(bool, int)'"),
        ];
    for (rule, want) in cases {
        let got = err(rule);
        assert_eq!(got.lines().next(), Some(want), "{rule:?}\n{got}");
    }
}

#[test]
fn non_bool_results() {
    let cases = [
        "1",
        "\"a\"",
        "1 + 2",
        "2.0 * 3.0",
        r#"semver_compare("1.0.0", "2.0.0")"#,
        "properties",
        "properties[0]",
        "properties[0].value",
        "properties.map(p, p.type)",
        "properties.filter(p, true)",
        "null",
        "dyn(true)",
        "true ? 1 : 2",
        "b'x'",
        "type(true)",
        "-(-1)",
        "!!1",
        "properties.size()",
        "{}",
        "[]",
    ];
    for rule in cases {
        assert_eq!(check(rule), Err(super::CelError::NotBool), "{rule}");
    }
}

#[test]
fn recursion_limits() {
    let limit = "ERROR: <input>:-1:0: expression recursion limit exceeded: 250";
    let visit = "ERROR: <input>:-1:0: max recursion depth exceeded";
    let ok_deep = [
        format!("{}true{}", "(".repeat(200), ")".repeat(200)),
        format!("{}true{}", "!(".repeat(200), ")".repeat(200)),
        format!("{}true{}", "true ? (".repeat(200), ") : false".repeat(200)),
        format!("{}true{}", "[".repeat(200), "]".repeat(200)) + ".size() == 1",
        vec!["true"; 10_000].join(" || "),
        vec!["true"; 10_000].join(" && "),
        format!("{}true", "!".repeat(50_000)),
    ];
    for rule in &ok_deep {
        assert_eq!(check(rule), Ok(()), "{}", &rule[..40]);
    }
    let too_deep = [
        (format!("{}true{}", "(".repeat(300), ")".repeat(300)), limit),
        (
            format!("{}true{}", "[".repeat(5_000), "]".repeat(5_000)),
            limit,
        ),
        ("(".repeat(100_000), limit),
        (
            format!("{}1{}", "{1: ".repeat(1_000), "}".repeat(1_000)),
            limit,
        ),
        (
            format!("{}x{}", "f(".repeat(10_000), ")".repeat(10_000)),
            limit,
        ),
        (format!("x{}", ".y".repeat(10_000)), limit),
        (format!("x{}", "[0]".repeat(10_000)), limit),
        (vec!["1"; 10_000].join(" + ") + " == 1", limit),
        (vec!["1"; 10_000].join(" == "), limit),
        (
            format!("properties{}{} == 1", ".y".repeat(245), " + 1".repeat(6)),
            visit,
        ),
    ];
    for (rule, want) in &too_deep {
        let got = err(rule);
        assert_eq!(
            got.lines().next(),
            Some(*want),
            "{}",
            &rule[..40.min(rule.len())]
        );
    }
    let huge = "1".repeat(100_001);
    assert_eq!(
        err(&huge),
        "ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100001, limit 100000"
    );
    // Deep but legal nesting of minus signs is flattened, not recursed.
    assert_eq!(
        check(&format!("{}1", "-".repeat(50_000))),
        Err(super::CelError::NotBool)
    );
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn never_panics_on_random_and_mutated_input() {
    let seeds = [
        r#"properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "1.0.0") >= 0)"#,
        r#"properties.all(p, has(p.value.x) ? p.value.x in [1, 2u, 3.0] : !(p.type != 'a'))"#,
        r#"{"a": b"\x00", 'b': r'''raw'''}.size() > -1 || [1,2,].map(x, x > 0, x * 2)[0] % 2 == 0"#,
        "x.y{a: 1, b: [2]}.c(.d, e)[f] - -1.5e-3 <= 0x1Fu",
    ];
    let fragments = [
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ".",
        ",",
        ":",
        "?",
        "!",
        "-",
        "+",
        "*",
        "/",
        "%",
        "==",
        "!=",
        "<",
        "<=",
        ">",
        ">=",
        "&&",
        "||",
        " in ",
        "true",
        "false",
        "null",
        "1",
        "1u",
        "0x1F",
        "1.5",
        ".5e3",
        "\"s\"",
        "'s'",
        "r'\\d'",
        "b\"b\"",
        "\"\"\"t\"\"\"",
        "x",
        "properties",
        "has",
        "all",
        "exists",
        "map",
        "filter",
        "exists_one",
        "size",
        "semver_compare",
        "if",
        "\\",
        "\"",
        "'",
        "\n",
        "\t",
        " ",
        "@",
        "$",
        "=",
        "&",
        "|",
        "😁",
        "é",
        "//c\n",
        "\\u00",
        "\\x",
        "\\U0011FFFF",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut inputs = Vec::new();
    for _ in 0..1500 {
        let len = rng.below(24);
        let mut s = String::new();
        for _ in 0..len {
            s.push_str(fragments[rng.below(fragments.len())]);
        }
        inputs.push(s);
    }
    for _ in 0..1500 {
        let mut chars: Vec<char> = seeds[rng.below(seeds.len())].chars().collect();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(chars.len() + 1);
            match rng.below(3) {
                0 if at < chars.len() => {
                    chars.remove(at);
                }
                1 => {
                    let f: Vec<char> = fragments[rng.below(fragments.len())].chars().collect();
                    for (k, c) in f.into_iter().enumerate() {
                        chars.insert(at + k, c);
                    }
                }
                _ if at < chars.len() => {
                    let swap = rng.below(chars.len());
                    chars.swap(at, swap);
                }
                _ => {}
            }
        }
        inputs.push(chars.into_iter().collect());
    }
    let mut ok = 0;
    for input in &inputs {
        match check(input) {
            Ok(()) => ok += 1,
            Err(e) => assert!(
                e.to_string().starts_with("ERROR: <input>:") || e == super::CelError::NotBool,
                "{input:?} -> {e}"
            ),
        }
    }
    // Some mutations stay valid; most do not.
    assert!(ok > 0 && ok < inputs.len());
}
