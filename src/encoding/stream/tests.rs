use super::*;
use std::path::{Path, PathBuf};

fn show(input: &[u8]) -> Result<Vec<String>, StreamError> {
    check_spans(input);
    decode_documents(input).map(|documents| {
        documents
            .iter()
            .map(|document| match document {
                Document::Json(text) => format!("J {text}"),
                Document::Yaml(value) => format!("Y {value}"),
            })
            .collect()
    })
}

/// Every document read again from the bytes of its span alone is the document the stream gave,
/// and the iterator gives what `decode_documents` collects.
fn check_spans(input: &[u8]) {
    let mut documents = Vec::new();
    for item in Documents::new(input) {
        match item {
            Ok((document, span)) => {
                assert!(
                    span.start <= span.end && span.end <= input.len(),
                    "{span:?}"
                );
                let again = decode_span(&input[span.start..span.end], span.syntax);
                assert_eq!(again.as_ref(), Ok(&document), "input {input:?}, {span:?}");
                documents.push(document);
            }
            Err(error) => {
                assert_eq!(decode_documents(input), Err(error), "input {input:?}");
                return;
            }
        }
    }
    assert_eq!(decode_documents(input), Ok(documents), "input {input:?}");
}

fn ok(input: &str, expected: &[&str]) {
    assert_eq!(
        show(input.as_bytes()),
        Ok(expected.iter().map(|s| s.to_string()).collect()),
        "input {input:?}"
    );
}

fn fails(input: &str, index: usize, message: &str) {
    fails_bytes(input.as_bytes(), index, message);
}

/// The index of the failing document and the message.
fn fails_bytes(input: &[u8], index: usize, message: &str) {
    let error = show(input).expect_err("a stream error");
    assert_eq!(
        (error.index, error.to_string().as_str()),
        (index, message),
        "input {input:?}"
    );
}

#[test]
fn json_streams() {
    ok("", &[]);
    ok("   \n", &["Y null"]);
    ok(r#"{"a":1}"#, &[r#"J {"a":1}"#]);
    ok("  \n\t{\"a\": 1.50}\n", &[r#"J {"a": 1.50}"#]);
    ok(r#"{"a":1}{"b":2}"#, &[r#"J {"a":1}"#, r#"J {"b":2}"#]);
    ok(
        "{\"a\":1}\n\n{\"b\":[1,{\"c\":null}]}\n{}\n",
        &[r#"J {"a":1}"#, r#"J {"b":[1,{"c":null}]}"#, "J {}"],
    );
    // Later values need not be objects: the caller rejects them.
    ok(
        "{\"a\":1} [1,2] 5 \"s\" true null",
        &[
            r#"J {"a":1}"#,
            "J [1,2]",
            "J 5",
            "J \"s\"",
            "J true",
            "J null",
        ],
    );
    ok("{\"a\":1} 5", &[r#"J {"a":1}"#, "J 5"]);
    // Not sniffed as JSON: YAML flow syntax.
    ok("[1, 2]\n", &["Y [1,2]"]);
    ok("\u{feff}{\"a\": 1}\n", &[r#"Y {"a":1}"#]);
    let late = format!("{}{{\"a\": 1}}\n", " ".repeat(SNIFF_LEN));
    ok(&late, &[r#"Y {"a":1}"#]);
    let in_time = format!("{}{{\"a\": 1}}\n", " ".repeat(SNIFF_LEN - 1));
    ok(&in_time, &[r#"J {"a": 1}"#]);
}

#[test]
fn json_errors_and_fallback() {
    fails(
        r#"{"schema":"a.b"} xyz"#,
        1,
        "json: offset 18: invalid character 'x' looking for beginning of value",
    );
    // With at least four bytes left the rest is tried as YAML; a scalar is not a blob.
    fails(
        r#"{"schema":"a.b"} xyzw"#,
        1,
        "json: offset 18: invalid character 'x' looking for beginning of value",
    );
    fails(
        "{\"schema\":\"a.b\"}{\"schema\":\"c.d\"}\n---\nschema: e.f\n",
        2,
        "invalid character '-' in numeric literal",
    );
    fails("{\"a\":1}{\"b\":2}{\"c\":", 2, "unexpected EOF");
    fails("{\"a\":", 0, "unexpected EOF");
    fails(
        "{\"a\" 1}",
        0,
        "json: offset 6: invalid character '1' after object key",
    );
    fails(
        "{\"a\":1,@}",
        0,
        "json: offset 8: invalid character '@' looking for beginning of object key string",
    );
    fails(
        "{\"a\":1 2, \"b\": [}",
        0,
        "json: offset 8: invalid character '2' after object key:value pair",
    );
    fails(
        "{\"a\":[1 2, [}",
        0,
        "json: offset 9: invalid character '2' after array element",
    );
    fails(
        "{\"a\":tru, \"b\": [}",
        0,
        "json: offset 9: invalid character ',' in literal true (expecting 'e')",
    );
    fails(
        "{\"a\":nul, \"b\": [}",
        0,
        "json: offset 9: invalid character ',' in literal null (expecting 'l')",
    );
    fails(
        "{\"a\":1., \"b\": [}",
        0,
        "json: offset 8: invalid character ',' after decimal point in numeric literal",
    );
    fails(
        "{\"a\":1e, \"b\": [}",
        0,
        "json: offset 8: invalid character ',' in exponent of numeric literal",
    );
    fails(
        "{\"a\":\"\\q\"}",
        0,
        "json: offset 8: invalid character 'q' in string escape code",
    );
    fails(
        "{\"a\":\"\\u12x4\"}",
        0,
        "json: offset 11: invalid character 'x' in \\u hexadecimal character escape",
    );
    fails(
        "{\"a\":\"\t\", \"b\": [}",
        0,
        "json: offset 7: invalid character '\\t' in string literal",
    );
    fails(
        "{\"a\":'x', \"b\": [}",
        0,
        "json: offset 6: invalid character '\\'' looking for beginning of value",
    );
    fails(
        "{\"a\":\u{e9}, \"b\": [}",
        0,
        "json: offset 6: invalid character 'Ã' looking for beginning of value",
    );
    // One JSON object, then YAML documents.
    ok(
        "{\"schema\":\"olm.package\",\"name\":\"bar\"}\n---\nschema: olm.channel\nname: alpha\n",
        &[
            r#"J {"schema":"olm.package","name":"bar"}"#,
            r#"Y {"name":"alpha","schema":"olm.channel"}"#,
        ],
    );
    // A trailing comma: JSON fails, the YAML flow mapping reads it.
    ok(
        r#"{"schema":"olm.package","name":"x",}"#,
        &[r#"Y {"name":"x","schema":"olm.package"}"#],
    );
    // The first YAML document after a fallback must be a blob, else the JSON error wins.
    fails(
        "{\"schema\":\"a\"}\n{\"schema\": 5, }\n",
        1,
        "json: offset 30: invalid character '}' looking for beginning of object key string",
    );
    fails(
        "{\"schema\":\"a\"}\n{\"Schema\": \"x\", \"schema\": \"y\", }\n",
        1,
        "json: offset 47: invalid character '}' looking for beginning of object key string",
    );
    fails(
        "{\"schema\":\"a\"}\n{x: [}\n",
        1,
        "json: offset 17: invalid character 'x' looking for beginning of object key string",
    );
    // ... but only the first: later YAML documents report their own errors.
    fails(
        "{\"schema\":\"a\"}\n{x: 1}\n---\ny: [\n",
        2,
        "error converting YAML to JSON: yaml: line 1: did not find expected node content",
    );
    let nested = format!(
        "{{\"a\":{}{}}}",
        "[".repeat(MAX_JSON_DEPTH),
        "]".repeat(MAX_JSON_DEPTH)
    );
    fails(
        &nested,
        0,
        "json: offset 10005: invalid character '[' exceeded max depth",
    );
}

#[test]
fn yaml_separators() {
    ok("a: 1\n---\nb: 2\n", &[r#"Y {"a":1}"#, r#"Y {"b":2}"#]);
    ok("---\na: 1\n", &[r#"Y {"a":1}"#]);
    ok(
        "a: 1\n---\n---\nb: 2\n---\n",
        &[r#"Y {"a":1}"#, r#"Y {"b":2}"#],
    );
    ok(
        "a: 1\n--- # comment\nb: 2\n",
        &[r#"Y {"a":1}"#, r#"Y {"b":2}"#],
    );
    ok("a: 1\n---   \nb: 2", &[r#"Y {"a":1}"#, r#"Y {"b":2}"#]);
    ok("a: 1\n...\n---\nb: 2\n", &[r#"Y {"a":1}"#, r#"Y {"b":2}"#]);
    ok("a: 1\n---", &[r#"Y {"a":1}"#]);
    ok("---\n---\na: 1\n", &["Y null", r#"Y {"a":1}"#]);
    ok("\n---\na: 1\n", &["Y null", r#"Y {"a":1}"#]);
    ok("# header\n---\na: 1\n", &["Y null", r#"Y {"a":1}"#]);
    ok("a: 1\n---\n# only comment\n", &[r#"Y {"a":1}"#, "Y null"]);
    ok(
        "a: 1\n---\n---\n---\nb: 2\n",
        &[r#"Y {"a":1}"#, "Y null", r#"Y {"b":2}"#],
    );
    ok("\n\n\n", &["Y null"]);
    ok("# c", &["Y null"]);
    ok("---\n", &["Y null"]);
    ok("  ---\n", &["Y \"---\""]);
    ok(
        "a: |\n  text\n  --- not a separator\n",
        &[r#"Y {"a":"text\n--- not a separator\n"}"#],
    );
    fails(
        "a: 1\n--- foo: bar\nb: 2\n",
        0,
        "invalid Yaml document separator: foo: bar",
    );
    fails(
        "a: 1\n---\nb: 2\n----\n",
        1,
        "invalid Yaml document separator: -",
    );
    fails("a: 1\n---x\n", 0, "invalid Yaml document separator: x");
    fails(
        "a: 1\n---\nb: [\n",
        1,
        "error converting YAML to JSON: yaml: line 1: did not find expected node content",
    );
}

#[test]
fn yaml_line_endings_and_encodings() {
    ok(
        "schema: olm.package\r\nname: foo\r\n---\r\nschema: olm.channel\r\n",
        &[
            r#"Y {"name":"foo","schema":"olm.package"}"#,
            r#"Y {"schema":"olm.channel"}"#,
        ],
    );
    ok("a: b\r", &[r#"Y {"a":"b"}"#]);
    ok(
        "\u{feff}schema: olm.package\nname: foo\n",
        &[r#"Y {"name":"foo","schema":"olm.package"}"#],
    );
    fails_bytes(
        b"\xff\xfe\x00garbage",
        0,
        "error converting YAML to JSON: yaml: incomplete UTF-16 character",
    );
    fails_bytes(
        b"a: \xc3\n",
        0,
        "error converting YAML to JSON: yaml: invalid trailing UTF-8 octet",
    );
}

#[test]
fn document_texts_say_where_each_document_starts() {
    let starts = |bytes: &[u8]| -> Vec<(u64, u64)> {
        document_texts(bytes)
            .iter()
            .map(|d| (d.line, d.column))
            .collect()
    };
    assert_eq!(
        starts(b"a: 1\n---\nb: 2\n---\n\nc: 3\n"),
        [(1, 1), (3, 1), (5, 1)]
    );
    assert_eq!(starts(b"---\na: 1\n"), [(1, 1)]);
    assert_eq!(
        starts(b"{\"a\": 1}\n  {\"b\": 2} {}"),
        [(1, 1), (2, 3), (2, 12)]
    );
    assert_eq!(
        document_texts(b"a: 1\r\n---\r\nb: 2\r\n")[1].text,
        b"b: 2\n".to_vec()
    );
    // The JSON-then-YAML fallback splits like the decoder.
    assert_eq!(starts(b"{\"a\": 1} x: [\n"), [(1, 1), (1, 10)]);
}

#[test]
fn json_nested_too_deep_is_refused_without_a_yaml_pass() {
    // 100,000 levels: the JSON error stands (the YAML reading nests as deep, which go-yaml
    // refuses too), found in one linear scan.
    let deep = format!("{{\"a\":{}", "[".repeat(100_000));
    assert_eq!(
        decode_documents(deep.as_bytes()).map_err(|e| (e.index, e.to_string())),
        Err((
            0,
            "json: offset 10005: invalid character '[' exceeded max depth".to_string()
        ))
    );
    let second = format!("{{}}\n{}", "[".repeat(20_000));
    assert_eq!(
        decode_documents(second.as_bytes()).map_err(|e| e.index),
        Err(1)
    );
}

#[test]
fn invalid_utf8_json_is_decoded_like_go() {
    assert_eq!(
        show(b"{\"a\":\"x\xffy\",\"b\":\"\\ud800\",\"c\":\"\\ud83d\\ude00\",\"n\":1.50,\"a\":2}"),
        Ok(vec![r#"Y {"a":2,"b":"�","c":"😀","n":1.50}"#.to_string()])
    );
}

#[test]
fn odd_inputs_do_not_panic() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let alphabet = b"{}[]:,-\"'\\ \n\t\r#&*!|>?%@`0123456789.eE+xyzn~\xff\xfe\xc3\xa9";
    for round in 0..3000 {
        let len = (next() % 64) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                let r = next();
                if round % 3 == 0 {
                    r as u8
                } else {
                    alphabet[(r % alphabet.len() as u64) as usize]
                }
            })
            .collect();
        check_spans(&bytes);
        let mut json = b"{".to_vec();
        json.extend_from_slice(&bytes);
        check_spans(&json);
    }
    for depth in [1000, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 5] {
        let json = format!("{{\"a\":{}1{}}}", "[".repeat(depth), "]".repeat(depth));
        let _ = decode_documents(json.as_bytes());
        let yaml = format!("a: {}1{}\n", "[".repeat(depth), "]".repeat(depth));
        let _ = decode_documents(yaml.as_bytes());
        let yaml = format!("a: {}1{}\n", "{b: ".repeat(depth), "}".repeat(depth));
        let _ = decode_documents(yaml.as_bytes());
        let block: String = (0..depth.min(300))
            .map(|i| format!("{}- \n", "  ".repeat(i)))
            .collect();
        let _ = decode_documents(block.as_bytes());
    }
    let huge = format!(
        "a: {}\nb: 0x{}\nc: -{}\nd: 1e{}\n",
        "9".repeat(5000),
        "f".repeat(5000),
        "7".repeat(400),
        "9".repeat(50)
    );
    let value = decode_documents(huge.as_bytes()).expect("huge numbers convert");
    assert_eq!(value.len(), 1);
    let json = format!("{{\"a\": {}}}", "9".repeat(100_000));
    assert!(decode_documents(json.as_bytes()).is_ok());
}

// -----------------------------------------------------------------------------------------
// Conformance cases
// -----------------------------------------------------------------------------------------

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.file_name().is_some_and(|n| n != ".indexignore") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The recorded cases of `group`, named, or `None` (the test is skipped) when
/// the shared kit is not there.
fn case_dirs(group: &str) -> Option<Vec<(String, PathBuf)>> {
    let root = crate::testkit::shared(&format!("conformance/cases/{group}"))?;
    let entries = std::fs::read_dir(root).expect("readable conformance cases");
    let mut dirs: Vec<(String, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .map(|dir| {
            let name = dir.file_name().unwrap_or_default().to_string_lossy();
            (name.into_owned(), dir)
        })
        .collect();
    dirs.sort();
    Some(dirs)
}

/// A document's value (`None` for JSON text that does not parse).
fn document_value(document: Document<'_>) -> Option<Value> {
    match document {
        Document::Json(text) => serde_json::from_str(text).ok(),
        Document::Yaml(value) => Some(value),
    }
}

const DECODER_MESSAGES: &[&str] = &[
    "error converting YAML to JSON",
    "json: offset",
    "invalid Yaml document separator",
    "invalid character",
    "unexpected EOF",
];

/// fbc-load-errors: messages produced while splitting files match; cases whose message
/// comes from later checks split cleanly (or, for `object ''`, yield an empty document).
#[test]
fn conformance_load_errors() {
    let Some(cases) = case_dirs("fbc-load-errors") else {
        return;
    };
    let mut checked = 0;
    for (name, dir) in cases {
        let expected = std::fs::read_to_string(dir.join("stderr-contains")).unwrap_or_default();
        let first = expected.lines().next().unwrap_or_default();
        let tail = first
            .split_once("\": ")
            .map_or(first, |(_, rest)| rest)
            .trim();
        let mut errors = Vec::new();
        let mut empty_document = false;
        for file in files_under(&dir.join("in")) {
            let bytes = std::fs::read(&file).expect("readable case file");
            check_spans(&bytes);
            match decode_documents(&bytes) {
                Ok(documents) => {
                    empty_document |= documents.contains(&Document::Yaml(Value::Null));
                }
                Err(error) => errors.push(error.to_string()),
            }
        }
        if DECODER_MESSAGES.iter().any(|m| tail.starts_with(m)) {
            assert!(
                errors
                    .iter()
                    .any(|e| e.contains(tail) || tail.contains(e.as_str())),
                "{name}: expected {tail:?}, got {errors:?}"
            );
        } else if tail.contains("object '' is missing root schema field") {
            assert!(errors.is_empty() && empty_document, "{name}: {errors:?}");
        } else {
            assert!(errors.is_empty(), "{name}: unexpected {errors:?}");
        }
        checked += 1;
    }
    assert!(checked > 40, "only {checked} cases checked");
}

/// Splits a recorded output (JSON values back to back, or a YAML stream) into values.
fn expected_blobs(stdout: &str) -> Vec<Value> {
    match decode_documents(stdout.as_bytes()) {
        Ok(documents) => documents.into_iter().filter_map(document_value).collect(),
        Err(_) => Vec::new(),
    }
}

/// fbc-render: every input file splits cleanly, and each non-`olm.*` blob read equals a
/// blob of the recorded output (which sorts keys; both JSON and YAML outputs are read back).
#[test]
fn conformance_render_other_blobs() {
    let Some(cases) = case_dirs("fbc-render") else {
        return;
    };
    let mut compared = 0;
    for (name, dir) in cases {
        let exit = std::fs::read_to_string(dir.join("exit")).unwrap_or_default();
        if !exit.trim().is_empty() && exit.trim() != "0" {
            continue;
        }
        let stdout = std::fs::read_to_string(dir.join("stdout")).unwrap_or_default();
        let blobs = expected_blobs(&stdout);
        let ignores = files_under(&dir.join("in")).is_empty()
            || std::fs::read_dir(&dir).is_err()
            || name.starts_with("indexignore");
        for file in files_under(&dir.join("in")) {
            let bytes = std::fs::read(&file).expect("readable case file");
            check_spans(&bytes);
            let documents = match decode_documents(&bytes) {
                Ok(documents) => documents,
                Err(error) if ignores => {
                    let _ = error;
                    continue;
                }
                Err(error) => panic!("{name}: {} failed: {error}", file.display()),
            };
            for document in documents {
                let value = document_value(document).expect("valid JSON");
                let schema = value
                    .get("schema")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if schema.is_empty() || schema.starts_with("olm.") || name.contains("migrate") {
                    continue;
                }
                assert!(
                    blobs.contains(&value),
                    "{name}: blob {value} from {} not in the recorded output",
                    file.display()
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 10, "only {compared} blobs compared");
}
