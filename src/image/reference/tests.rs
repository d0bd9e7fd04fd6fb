use super::*;

const H64: &str = "e9d32369b107d0ceeee228c4dc19eff372c26009f29a2fc8f22327508f608542";

fn ok(s: &str) -> Reference {
    Reference::parse_normalized(s).unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

fn err(s: &str) -> String {
    match Reference::parse_normalized(s) {
        Ok(r) => panic!("{s:?} parsed as {r}"),
        Err(e) => e.to_string(),
    }
}

/// Input, then the expected domain, path, tag and digest.
type Expected<'a> = (String, &'a str, &'a str, Option<&'a str>, Option<String>);

#[test]
fn normalization() {
    let h96 = "a".repeat(96);
    let h128 = "b".repeat(128);
    let cases: Vec<Expected> = vec![
        ("busybox".into(), "docker.io", "library/busybox", None, None),
        (
            "busybox:1.36".into(),
            "docker.io",
            "library/busybox",
            Some("1.36"),
            None,
        ),
        (
            "docker.io/library/busybox".into(),
            "docker.io",
            "library/busybox",
            None,
            None,
        ),
        (
            "docker.io/busybox".into(),
            "docker.io",
            "library/busybox",
            None,
            None,
        ),
        (
            "index.docker.io/busybox".into(),
            "docker.io",
            "library/busybox",
            None,
            None,
        ),
        (
            "index.docker.io/org/repo:v1".into(),
            "docker.io",
            "org/repo",
            Some("v1"),
            None,
        ),
        (
            "devopstales/trivy-operator:2.1".into(),
            "docker.io",
            "devopstales/trivy-operator",
            Some("2.1"),
            None,
        ),
        ("localhost/foo".into(), "localhost", "foo", None, None),
        (
            "localhost:5000/foo".into(),
            "localhost:5000",
            "foo",
            None,
            None,
        ),
        (
            "localhost:5000".into(),
            "docker.io",
            "library/localhost",
            Some("5000"),
            None,
        ),
        (
            "127.0.0.1:5000/x:v1".into(),
            "127.0.0.1:5000",
            "x",
            Some("v1"),
            None,
        ),
        ("[::1]:5000/x".into(), "[::1]:5000", "x", None, None),
        (
            "[2001:db8::1]/x/y:t".into(),
            "[2001:db8::1]",
            "x/y",
            Some("t"),
            None,
        ),
        ("Quay.IO/foo".into(), "Quay.IO", "foo", None, None),
        (
            "quay.io/foo/op:v1".into(),
            "quay.io",
            "foo/op",
            Some("v1"),
            None,
        ),
        (
            "quay.io/foo/bar:Tag_1.2-3".into(),
            "quay.io",
            "foo/bar",
            Some("Tag_1.2-3"),
            None,
        ),
        (
            "registry.io/foo/project--id.module--name.ver---sion--name".into(),
            "registry.io",
            "foo/project--id.module--name.ver---sion--name",
            None,
            None,
        ),
        (
            "example.com/some_separator__underscore/myimage".into(),
            "example.com",
            "some_separator__underscore/myimage",
            None,
            None,
        ),
        (
            "gcr.io/knative-releases/knative.dev/eventing-kogito/cmd/controller:v1.1.0".into(),
            "gcr.io",
            "knative-releases/knative.dev/eventing-kogito/cmd/controller",
            Some("v1.1.0"),
            None,
        ),
        (
            format!("docker.io/bitnami/kubectl@sha256:{H64}"),
            "docker.io",
            "bitnami/kubectl",
            None,
            Some(format!("sha256:{H64}")),
        ),
        (
            format!("localhost:5000/foo/foo-bundle@sha256:{}", "a".repeat(64)),
            "localhost:5000",
            "foo/foo-bundle",
            None,
            Some(format!("sha256:{}", "a".repeat(64))),
        ),
        (
            format!("quay.io/a/b:v1@sha384:{h96}"),
            "quay.io",
            "a/b",
            Some("v1"),
            Some(format!("sha384:{h96}")),
        ),
        (
            format!("a/b@sha512:{h128}"),
            "docker.io",
            "a/b",
            None,
            Some(format!("sha512:{h128}")),
        ),
        (
            format!("xn--7o8h.com/myimage:xn--7o8h.com@sha512:{h128}"),
            "xn--7o8h.com",
            "myimage",
            Some("xn--7o8h.com"),
            Some(format!("sha512:{h128}")),
        ),
        // The registry guess accepts `foo_bar.com`, the grammar does not: the whole
        // string becomes a registry-less path, as upstream returns it.
        ("foo_bar.com/app".into(), "", "foo_bar.com/app", None, None),
    ];
    for (input, domain, path, tag, digest) in &cases {
        let r = ok(input);
        assert_eq!(r.domain, *domain, "{input}");
        assert_eq!(r.path, *path, "{input}");
        assert_eq!(r.tag.as_deref(), *tag, "{input}");
        assert_eq!(r.digest, *digest, "{input}");
        if domain.is_empty() {
            assert_eq!(r.name(), *path);
        } else {
            assert_eq!(r.name(), format!("{domain}/{path}"));
        }
        // The printed form is canonical: it parses to itself.
        assert_eq!(ok(&r.to_string()), r, "{input}");
    }
    assert_eq!(
        ok(&format!("a:{}", "t".repeat(128))).tag.unwrap().len(),
        128
    );
    assert_eq!(
        ok("busybox:1.36").to_string(),
        "docker.io/library/busybox:1.36"
    );
}

#[test]
fn errors() {
    let long_name = format!("quay.io/{}", "a".repeat(248));
    let cases: Vec<(String, &str)> = vec![
            // Conformance cases (fbc-validate c14-*).
            ("quay.io/foo/foo:bad tag".into(), "invalid reference format"),
            ("quay.io/foo/foo@sha256:abc".into(), "invalid reference format"),
            ("quay.io/foo/op::v1".into(), "invalid reference format"),
            (
                "quay.io/Foo/foo:v1".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            (
                "quay.io/example/Foo-bundle:v1.0.0".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            (
                "quay.io/example/Foo_Bar-bundle:v1.0.0".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            (
                "Quay.IO".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            (
                "Foo/bar".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            (
                "Quay.IO/Foo:bad tag".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            // The lower-case check covers everything up to the first `:`, digest
            // algorithm included.
            (
                "quay.io/foo@SHA256:abc".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            (
                "quay.io/Foo@sha256:abc".into(),
                "invalid reference format: repository name must be lowercase",
            ),
            ("".into(), "invalid reference format"),
            (":tag".into(), "invalid reference format"),
            ("quay.io/".into(), "invalid reference format"),
            ("quay.io//foo".into(), "invalid reference format"),
            ("quay.io/foo/".into(), "invalid reference format"),
            ("quay.io/-foo".into(), "invalid reference format"),
            ("quay.io/foo-".into(), "invalid reference format"),
            ("quay.io/foo..bar".into(), "invalid reference format"),
            ("quay.io/foo___bar".into(), "invalid reference format"),
            ("quay.io/foo._bar".into(), "invalid reference format"),
            ("quay.io/__foo".into(), "invalid reference format"),
            ("quay.io:http/foo".into(), "invalid reference format"),
            ("quay.io:/foo".into(), "invalid reference format"),
            ("-quay.io/foo".into(), "invalid reference format"),
            ("quay-.io/foo".into(), "invalid reference format"),
            ("qu_ay.io:5000/foo".into(), "invalid reference format"),
            ("foo_bar.com:8080/app".into(), "invalid reference format"),
            ("quay.io/foo:.tag".into(), "invalid reference format"),
            ("quay.io/foo:-tag".into(), "invalid reference format"),
            ("quay.io/foo:ta~g".into(), "invalid reference format"),
            (format!("quay.io/foo:{}", "t".repeat(129)), "invalid reference format"),
            ("quay.io/foo@".into(), "invalid reference format"),
            ("quay.io/foo@sha256".into(), "invalid reference format"),
            ("quay.io/foo@@sha256:abc".into(), "invalid reference format"),
            ("quay.io/foo:v1:v2".into(), "invalid reference format"),
            ("quay.io/foo bar".into(), "invalid reference format"),
            ("quay.io/fóo".into(), "invalid reference format"),
            ("[::1/x".into(), "invalid reference format"),
            ("[]:5000/x".into(), "invalid reference format"),
            ("[::g]:5000/x".into(), "invalid reference format"),
            ("[::1]5000/x".into(), "invalid reference format"),
            (
                H64.to_string(),
                "invalid repository name (e9d32369b107d0ceeee228c4dc19eff372c26009f29a2fc8f22327508f608542), cannot specify 64-byte hexadecimal strings",
            ),
            (long_name, "repository name must not be more than 255 characters"),
            (
                format!("{}a:tag", "a/".repeat(123)),
                "repository name must not be more than 255 characters",
            ),
        ];
    for (input, want) in &cases {
        assert_eq!(err(input), *want, "input {input:?}");
    }
    // Digests: the reference up to the encoded part, and that part as a unit repeated.
    let digests: &[(&str, &str, usize, &str)] = &[
        (
            "quay.io/foo@sha256:",
            "a",
            63,
            "invalid checksum digest length",
        ),
        (
            "quay.io/foo@sha256:",
            "a",
            65,
            "invalid checksum digest length",
        ),
        (
            "quay.io/foo@sha512:",
            "a",
            64,
            "invalid checksum digest length",
        ),
        (
            "quay.io/foo@sha256:",
            "A",
            64,
            "invalid checksum digest format",
        ),
        (
            "quay.io/foo:v1@Sha256:",
            "a",
            64,
            "invalid checksum digest format",
        ),
        ("quay.io/foo@md5:", "a", 32, "unsupported digest algorithm"),
        (
            "quay.io/foo@sha256+b64:",
            "a",
            64,
            "unsupported digest algorithm",
        ),
        (
            "quay.io/foo@ssha256:",
            "abcd1234",
            9,
            "unsupported digest algorithm",
        ),
        (
            "quay.io/foo:v1@MD5:",
            "a",
            32,
            "invalid checksum digest format",
        ),
    ];
    for (head, unit, count, want) in digests {
        let input = format!("{head}{}", unit.repeat(*count));
        assert_eq!(err(&input), *want, "input {input:?}");
    }
    // The limit counts the registry: 255 characters in total is still fine.
    let max = format!("quay.io/{}", "a".repeat(247));
    assert_eq!(max.len(), 255);
    assert_eq!(ok(&max).name(), max);
    assert!(Reference::parse_normalized(&format!("{}a:tag", "a/".repeat(122))).is_ok());
}

#[test]
fn bare_uppercase_message_of_parse() {
    // `Parse` itself: upper case anywhere the grammar forbids it, found by lower-casing.
    assert_eq!(
        parse_reference("quay.io/Foo").unwrap_err(),
        ReferenceError::NameContainsUppercase
    );
    assert_eq!(parse_reference("").unwrap_err(), ReferenceError::NameEmpty);
    assert_eq!(
        ReferenceError::NameContainsUppercase.to_string(),
        "repository name must be lowercase"
    );
    assert_eq!(
        ReferenceError::NameEmpty.to_string(),
        "repository name must have at least one component"
    );
}

#[test]
fn canonical_names() {
    assert!(Reference::parse_named("docker.io/library/foo").is_ok());
    assert!(Reference::parse_named("test:8080/foo").is_ok());
    for not_canonical in [
        "foo",
        "library/foo",
        "docker.io/foo",
        "test.com",
        "test_com/foo",
    ] {
        assert_eq!(
            Reference::parse_named(not_canonical).unwrap_err(),
            ReferenceError::NameNotCanonical,
            "{not_canonical}"
        );
    }
    assert_eq!(
        ReferenceError::NameNotCanonical.to_string(),
        "repository name must be canonical"
    );
}

#[test]
fn familiar_forms_and_defaults() {
    let r = ok("busybox");
    assert_eq!(r.familiar_name(), "busybox");
    assert_eq!(
        r.with_default_tag().to_string(),
        "docker.io/library/busybox:latest"
    );
    assert_eq!(ok("org/repo:v1").familiar_string(), "org/repo:v1");
    // Found by the image_reference fuzz target: `a/b` would name docker.io/a/b.
    assert_eq!(ok("library/a/b").familiar_name(), "library/a/b");
    assert_eq!(ok("library/a/b").familiar_string(), "library/a/b");
    assert_eq!(ok("quay.io/a/b").familiar_name(), "quay.io/a/b");
    let both = ok(&format!("quay.io/a/b:v1@sha256:{H64}"));
    assert_eq!(both.to_string(), format!("quay.io/a/b:v1@sha256:{H64}"));
    assert_eq!(
        both.docker_ref().to_string(),
        format!("quay.io/a/b@sha256:{H64}")
    );
    assert_eq!(both.with_default_tag(), both);
    assert_eq!(
        ok("quay.io/a/b").docker_ref().tag.as_deref(),
        Some("latest")
    );
    assert_eq!(ok("quay.io/a/b:v2").docker_ref().tag.as_deref(), Some("v2"));
}

#[test]
fn grammar_pieces() {
    for c in ["a", "a.b", "a_b", "a__b", "a-b", "a---b", "a.b-c_d__e", "0"] {
        assert!(is_path_component(c), "{c}");
    }
    for c in [
        "", "A", "a.", ".a", "a..b", "a___b", "a-.b", "a._b", "a/b", "é",
    ] {
        assert!(!is_path_component(c), "{c}");
    }
    for d in [
        "a", "a.b", "A-b.C", "a:1", "0101.com", "[::1]", "[::1]:80", "[AbC::]",
    ] {
        assert!(is_domain(d), "{d}");
    }
    for d in [
        "", "a.", ".a", "a..b", "-a", "a-", "a:", "a:b", "a:1:2", "[]", "[::1]:", "[:",
    ] {
        assert!(!is_domain(d), "{d}");
    }
}

#[test]
fn odd_inputs_never_panic() {
    const ALPHABET: &[&str] = &[
        "a",
        "Z",
        "0",
        "f",
        ".",
        "/",
        ":",
        "@",
        "-",
        "_",
        "__",
        "[",
        "]",
        "::1",
        "sha256",
        "sha256:",
        H64,
        " ",
        "é",
        "localhost",
        "docker.io",
        "5000",
        "\u{0}",
        "+",
    ];
    for s in crate::testkit::random_strings(0x2545_f491_4f6c_dd1d, ALPHABET, 10, 3000) {
        if let Ok(r) = Reference::parse_normalized(&s) {
            assert_eq!(
                Reference::parse_normalized(&r.to_string()),
                Ok(r.clone()),
                "{s}"
            );
            let _ = (r.familiar_string(), r.docker_ref());
        }
        let _ = Reference::parse_named(&s);
    }
}
