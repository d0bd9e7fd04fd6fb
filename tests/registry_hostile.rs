//! Registries that misbehave, through the real `opm` binary (`render`,
//! `bundle unpack`, `bundle validate`): a deliberately hostile HTTP server
//! (tests/util/hostile.rs) streams, stalls, trickles, cuts off, redirects in
//! a loop and answers errors; a real `docker-registry` serves damaged
//! layers. Each failure is one exact message with exit code 1, within
//! seconds and a 1 GiB address space, with nothing left in the output or
//! temporary directory.

use crate::util::hostile::{HostileRegistry, Reply, Request};
use crate::util::registry::{ImageSpec, Layout, PushOptions, Registry, Written, LAYER_GZIP};
use crate::util::{Output, Test};
use std::io::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

const BUNDLE: &str = "testdata/rules/annotations-missing/valid-all-labels";
const REPOSITORY: &str = "hostile/etcd";
/// The address space `opm` may use in these tests.
const MEMORY: u64 = 1 << 30;
/// The longest any of these runs may take.
const WITHIN: Duration = Duration::from_secs(10);
/// A short rate window, so that silence is noticed within the tests' time.
const WINDOW: (&str, &str) = ("OPM_REGISTRY_RATE_WINDOW", "2");

/// A bundle image holding `files` of [`BUNDLE`] in one gzip layer, with
/// its annotations as labels.
fn bundle_spec(files: &[&str]) -> ImageSpec {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(BUNDLE);
    let read = |path: &str| std::fs::read_to_string(root.join(path)).expect("bundle file");
    let contents: Vec<(&str, String)> = files.iter().map(|f| (*f, read(f))).collect();
    let files: Vec<(&str, &str)> = contents.iter().map(|(f, c)| (*f, c.as_str())).collect();
    let mut spec = ImageSpec::new("amd64").layer(LAYER_GZIP, &files);
    let annotations = read("metadata/annotations.yaml");
    for line in annotations.lines().skip(1) {
        let (key, value) = line.trim().split_once(": ").expect("annotation");
        spec = spec.label(key, value);
    }
    spec
}

/// The whole bundle as an image tagged `v1` in an OCI layout.
fn bundle_layout() -> (Layout, Written) {
    let mut layout = Layout::new();
    let spec = bundle_spec(&["manifests/csv.yaml", "metadata/annotations.yaml"]);
    let written = layout.add_image("v1", &spec);
    (layout, written)
}

/// The commands that pull an image, and how each introduces the failure.
#[derive(Debug, Clone, Copy)]
enum Command {
    Render,
    Unpack,
    Validate,
}

impl Command {
    fn args(self, reference: &str) -> Vec<String> {
        let args: &[&str] = match self {
            Command::Render => &["render", reference, "--use-http"],
            Command::Unpack => &["bundle", "unpack", reference, "--use-http", "-o", "out"],
            Command::Validate => &["bundle", "validate", reference, "--use-http"],
        };
        args.iter().map(|a| a.to_string()).collect()
    }

    /// The whole first line of stderr for a failed pull.
    fn pull_error(self, reference: &str, message: &str) -> String {
        let pull = format!("failed to pull image \"{reference}\": {message}");
        match self {
            Command::Render => format!("Error: render reference \"{reference}\": {pull}\n"),
            Command::Unpack | Command::Validate => format!("Error: {pull}\n"),
        }
    }
}

/// Runs `command` on `reference` with `env`, in a fresh directory whose
/// `tmp/` is the temporary directory, under the memory cap.
fn run(command: Command, reference: &str, env: &[(&str, &str)]) -> (Output, Duration) {
    let mut test = Test::new().dir("tmp").memory_limit(MEMORY);
    let tmp = test.path().join("tmp");
    test = test.env("TMPDIR", tmp.to_str().unwrap());
    for (key, value) in env {
        test = test.env(key, value);
    }
    let started = Instant::now();
    let out = test.args(command.args(reference)).run();
    (out, started.elapsed())
}

/// `command` fails with exactly `stderr`, exit code 1, within [`WITHIN`],
/// printing nothing and leaving nothing behind; returns how long it took.
fn fails(command: Command, reference: &str, env: &[(&str, &str)], stderr: &str) -> Duration {
    let (out, elapsed) = run(command, reference, env);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (1, stderr),
        "{command:?}: stdout:\n{}",
        out.stdout
    );
    assert_eq!(out.stdout, "", "{command:?}");
    assert!(elapsed < WITHIN, "{command:?} took {elapsed:?}");
    let left: Vec<_> = std::fs::read_dir(out.dir.join("tmp"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "{command:?} left {left:?} in the temp dir");
    assert!(
        !out.exists("out"),
        "{command:?} created the output directory"
    );
    elapsed
}

fn pull_fails(command: Command, reference: &str, env: &[(&str, &str)], message: &str) -> Duration {
    fails(
        command,
        reference,
        env,
        &command.pull_error(reference, message),
    )
}

fn manifests(request: &Request) -> bool {
    request.method == "GET" && request.is_manifest()
}

fn status(code: u16, headers: &[(&str, &str)], body: &str) -> Reply {
    Reply::Status {
        code,
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        body: body.as_bytes().to_vec(),
    }
}

/// A server that misbehaves with `reply` on every manifest request and
/// serves everything else.
fn on_manifests(layout: &Layout, reply: Reply) -> HostileRegistry {
    HostileRegistry::start(layout.path(), move |request| {
        if request.is_manifest() {
            reply.clone()
        } else {
            Reply::Serve
        }
    })
}

#[test]
fn an_endless_chunked_manifest_stops_at_the_limit() {
    let (layout, _) = bundle_layout();
    let server = on_manifests(&layout, Reply::Endless);
    let reference = format!("{}:v1", server.reference(REPOSITORY));
    let message = "manifest of tag \"v1\" exceeds the limit of 4194304 bytes";
    for command in [Command::Render, Command::Unpack, Command::Validate] {
        let before = server.bytes_sent();
        let elapsed = pull_fails(command, &reference, &[], message);
        assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
        // The limit, plus what the sockets' buffers took in before `opm`
        // hung up; nowhere near the gigabytes offered.
        let sent = server.bytes_sent() - before;
        assert!(sent < 64 << 20, "{command:?}: {sent} bytes sent");
    }
    assert_eq!(server.count(manifests), 3);
}

#[test]
fn a_trickling_registry_is_too_slow() {
    let (layout, _) = bundle_layout();
    let server = on_manifests(&layout, Reply::Trickle);
    let reference = format!("{}:v1", server.reference(REPOSITORY));
    let rate = [("OPM_REGISTRY_MIN_RATE", "100"), WINDOW];
    let elapsed = pull_fails(
        Command::Render,
        &reference,
        &rate,
        "manifest of tag \"v1\": transfer slower than 100 bytes/s over 2 s (OPM_REGISTRY_MIN_RATE)",
    );
    assert!(elapsed >= Duration::from_secs(2), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");

    // With the rate check off, the deadline ends it.
    let deadline = [
        ("OPM_REGISTRY_MIN_RATE", "0"),
        ("OPM_REGISTRY_TIMEOUT", "3"),
        WINDOW,
    ];
    let elapsed = pull_fails(
        Command::Unpack,
        &reference,
        &deadline,
        &format!(
            "manifest of tag \"v1\": registry \"{}\" did not finish within 3 s \
             (OPM_REGISTRY_TIMEOUT)",
            server.host
        ),
    );
    assert!(elapsed >= Duration::from_secs(3), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(6), "{elapsed:?}");
    // Neither is worth another attempt.
    assert_eq!(server.count(manifests), 2);
}

#[test]
fn a_stalled_registry_is_given_up_on_after_one_window() {
    let (layout, written) = bundle_layout();
    let server = on_manifests(&layout, Reply::Stall);
    let reference = format!("{}:v1", server.reference(REPOSITORY));
    let elapsed = pull_fails(
        Command::Validate,
        &reference,
        &[WINDOW],
        "manifest of tag \"v1\": no data from registry for 2 s",
    );
    assert!(elapsed >= Duration::from_secs(2), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    assert_eq!(server.count(manifests), 1);

    // Silent halfway through a layer (with the rate check off, which would
    // otherwise find the first window too slow).
    let layer = written.layers[0].clone();
    let target = layer.clone();
    let server = HostileRegistry::start(layout.path(), move |request| {
        if request.path.ends_with(&target) {
            Reply::StallHalfway
        } else {
            Reply::Serve
        }
    });
    let reference = format!("{}:v1", server.reference(REPOSITORY));
    let elapsed = pull_fails(
        Command::Unpack,
        &reference,
        &[WINDOW, ("OPM_REGISTRY_MIN_RATE", "0")],
        &format!("layer \"{layer}\": no data from registry for 2 s"),
    );
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[test]
fn a_cut_off_manifest_says_how_much_came() {
    let (layout, written) = bundle_layout();
    let server = on_manifests(&layout, Reply::CutOff);
    let reference = format!("{}:v1", server.reference(REPOSITORY));
    let size = std::fs::metadata(layout.path().join(format!(
        "blobs/sha256/{}",
        written.manifest.trim_start_matches("sha256:")
    )))
    .unwrap()
    .len();
    let elapsed = pull_fails(
        Command::Render,
        &reference,
        &[],
        &format!(
            "manifest of tag \"v1\": registry closed the connection after {} of {size} bytes \
             (gave up after 4 attempts)",
            size / 2
        ),
    );
    // Retried: 0.5 s + 1 s + 2 s between four attempts.
    assert!(elapsed >= Duration::from_millis(3500), "{elapsed:?}");
    assert_eq!(server.count(manifests), 4);
}

#[test]
fn a_cut_off_layer_says_how_much_came() {
    let (layout, written) = bundle_layout();
    let layer = written.layers[0].clone();
    let target = layer.clone();
    let server = HostileRegistry::start(layout.path(), move |request| {
        if request.path.ends_with(&target) {
            Reply::CutOff
        } else {
            Reply::Serve
        }
    });
    let reference = format!("{}:v1", server.reference(REPOSITORY));
    let size = std::fs::metadata(layout.path().join(format!(
        "blobs/sha256/{}",
        layer.trim_start_matches("sha256:")
    )))
    .unwrap()
    .len();
    pull_fails(
        Command::Unpack,
        &reference,
        &[],
        &format!(
            "layer \"{layer}\": registry closed the connection after {} of {size} bytes \
             (gave up after 4 attempts)",
            size / 2
        ),
    );
    assert_eq!(server.count(|r| r.path.ends_with(&layer)), 4);
}

#[test]
fn forbidden_keeps_the_registrys_words_and_hides_the_credentials() {
    let (layout, _) = bundle_layout();
    let server = HostileRegistry::start(layout.path(), |request| {
        if request.path == "/v2/" {
            status(401, &[("WWW-Authenticate", r#"Basic realm="hostile""#)], "")
        } else if request.is_manifest() {
            // A registry that echoes what it was sent.
            let sent = request
                .headers
                .get("authorization")
                .cloned()
                .unwrap_or_default();
            status(
                403,
                &[("Content-Type", "application/json")],
                &format!(
                    r#"{{"errors":[{{"code":"DENIED","message":"requested access to the resource is denied (you sent {sent})"}}]}}"#
                ),
            )
        } else {
            Reply::Serve
        }
    });
    let reference = format!("{}:v1", server.reference(REPOSITORY));
    let message = "denied: requested access to the resource is denied (you sent Basic <redacted>)";
    let test = Test::new();
    let auth = test.path().join("auth.json");
    let secret = opm::encoding::base64::encode(b"alice:s3cret-Pa55word");
    std::fs::write(
        &auth,
        format!(r#"{{"auths":{{"{}":{{"auth":"{secret}"}}}}}}"#, server.host),
    )
    .unwrap();
    let env = [("REGISTRY_AUTH_FILE", auth.to_str().unwrap())];
    for command in [Command::Render, Command::Unpack, Command::Validate] {
        pull_fails(command, &reference, &env, message);
    }
    // Never retried.
    assert_eq!(server.count(manifests), 3);
}

#[test]
fn unauthorized_without_credentials_says_none_were_found() {
    let (layout, _) = bundle_layout();
    let server = HostileRegistry::start(layout.path(), |request| {
        let body = r#"{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}"#;
        if request.path == "/v2/" || request.is_manifest() {
            status(
                401,
                &[("WWW-Authenticate", r#"Basic realm="hostile""#)],
                body,
            )
        } else {
            Reply::Serve
        }
    });
    let reference = format!("{}:v1", server.reference(REPOSITORY));
    let message = format!(
        "unauthorized: registry \"{host}\" requires credentials for \"{host}/{REPOSITORY}\" \
         and none were found (or the repository does not exist)",
        host = server.host
    );
    for command in [Command::Render, Command::Unpack, Command::Validate] {
        pull_fails(command, &reference, &[], &message);
    }
    assert_eq!(server.count(manifests), 3);
}

#[test]
fn a_bearer_token_is_fetched_and_its_answer_is_bounded() {
    let (layout, _) = bundle_layout();
    let host = std::sync::Arc::new(std::sync::OnceLock::<String>::new());
    let realm = std::sync::Arc::clone(&host);
    let server = HostileRegistry::start(layout.path(), move |request| {
        let challenge = format!(
            r#"Bearer realm="http://{}/token",service="hostile""#,
            realm.get().unwrap()
        );
        let authorized =
            request.headers.get("authorization").map(String::as_str) == Some("Bearer t0ken");
        if request.path.starts_with("/token?") {
            if request
                .path
                .contains("scope=repository%3Ahostile%2Fetcd%3Apull")
                && request.path.contains("service=hostile")
                && request.repeat == 0
            {
                status(200, &[], r#"{"token":"t0ken"}"#)
            } else {
                Reply::Endless
            }
        } else if request.path == "/v2/" || !authorized {
            status(401, &[("WWW-Authenticate", &challenge)], "")
        } else {
            Reply::Serve
        }
    });
    host.set(server.host.clone()).unwrap();
    let reference = format!("{}:v1", server.reference(REPOSITORY));
    let (out, _) = run(Command::Render, &reference, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("\"name\": \"etcdoperator.v0.9.4\""));
    // The next token answer never ends.
    pull_fails(
        Command::Render,
        &reference,
        &[],
        "token from \"127.0.0.1\" exceeds the limit of 1048576 bytes",
    );
}

#[test]
fn a_redirect_loop_fails_at_once() {
    let (layout, _) = bundle_layout();
    let server = on_manifests(&layout, Reply::RedirectLoop);
    let reference = format!("{}:v1", server.reference(REPOSITORY));
    let message = format!(
        "too many redirects: registry \"{}\" redirects in a loop or more than 10 times",
        server.host
    );
    let elapsed = pull_fails(Command::Render, &reference, &[], &message);
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
    // One request and ten redirects, never tried again.
    assert_eq!(server.count(manifests), 11);
    pull_fails(Command::Validate, &reference, &[], &message);
}

/// Renders `reference` successfully, returning stdout.
fn renders(reference: &str) -> (String, Duration) {
    let (out, elapsed) = run(Command::Render, reference, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    (out.stdout, elapsed)
}

#[test]
fn too_many_requests_is_retried_after_the_time_asked() {
    let (layout, _) = bundle_layout();
    let server = HostileRegistry::start(layout.path(), |request| {
        if manifests(request) && request.repeat == 0 {
            status(429, &[("Retry-After", "1")], "slow down")
        } else {
            Reply::Serve
        }
    });
    let reference = format!("{}:v1", server.reference(REPOSITORY));
    let (first, elapsed) = renders(&reference);
    assert!(elapsed >= Duration::from_secs(1), "{elapsed:?}");
    assert_eq!(server.count(manifests), 2);
    let (again, _) = renders(&reference);
    assert_eq!(first, again);
    assert!(first.contains("\"image\": \""));

    // A wait beyond the deadline (and beyond what a clock holds) is not
    // waited for.
    for wait in ["3600", "99999999999999999"] {
        let server = on_manifests(&layout, status(429, &[("Retry-After", wait)], "Slow down"));
        let reference = format!("{}:v1", server.reference(REPOSITORY));
        let elapsed = pull_fails(
            Command::Validate,
            &reference,
            &[],
            &format!(
                "registry \"{}\" answered HTTP 429: slow down (it asks to retry after {wait} s)",
                server.host
            ),
        );
        assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
        assert_eq!(server.count(manifests), 1);
    }
}

#[test]
fn a_server_error_is_retried_a_bounded_number_of_times() {
    let (layout, _) = bundle_layout();
    let server = HostileRegistry::start(layout.path(), |request| {
        if manifests(request) && request.repeat == 0 {
            status(500, &[], "storage down")
        } else {
            Reply::Serve
        }
    });
    let reference = format!("{}:v1", server.reference(REPOSITORY));
    let (first, _) = renders(&reference);
    let (again, _) = renders(&reference);
    assert_eq!(first, again);
    assert_eq!(server.count(manifests), 3);

    let server = on_manifests(&layout, status(500, &[], "Storage down"));
    let reference = format!("{}:v1", server.reference(REPOSITORY));
    let elapsed = pull_fails(
        Command::Unpack,
        &reference,
        &[],
        &format!(
            "registry \"{}\" answered HTTP 500: storage down (gave up after 4 attempts)",
            server.host
        ),
    );
    assert!(elapsed >= Duration::from_millis(3500), "{elapsed:?}");
    assert_eq!(server.count(manifests), 4);
}

/// Pushes a bundle image whose second layer is `bytes`, labelled as a gzip
/// tar, to a real registry; returns the reference and that layer's digest.
fn push_damaged(registry: &Registry, repository: &str, bytes: Vec<u8>) -> (String, String) {
    let spec = bundle_spec(&["metadata/annotations.yaml"]).blob_layer(LAYER_GZIP, bytes);
    let mut layout = Layout::new();
    let written = layout.add_image("v1", &spec);
    registry.push(
        layout.path(),
        "v1",
        &format!("{repository}:v1"),
        &PushOptions::default(),
    );
    (
        format!("{}:v1", registry.reference(repository)),
        written.layers[1].clone(),
    )
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

#[test]
fn damaged_layers_say_what_is_wrong_with_the_archive() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    // A gzip header whose flags byte sets reserved bits.
    let mut bad_header = gzip(b"manifests/");
    bad_header[3] = 0xe0;
    // A valid header, then a deflate stream of garbage.
    let mut bad_data = gzip(&[b'x'; 4096]);
    let middle = bad_data.len() / 2;
    for byte in &mut bad_data[10..middle] {
        *byte = 0xff;
    }
    let not_gzip = b"this is not a layer archive\n".repeat(40);
    for (repository, bytes, why) in [
        ("damaged/header", bad_header, "invalid gzip header"),
        ("damaged/data", bad_data, "corrupt deflate stream"),
        (
            "damaged/plain",
            not_gzip,
            "the layer is neither gzip- nor zstd-compressed, and not a tar archive either: \
             numeric field was not a number: not a la when getting cksum for this is not a \
             layer archive\\nthis is not a layer archive\\nthis is not a layer archive\\n\
             this is not a la",
        ),
    ] {
        let (reference, layer) = push_damaged(&registry, repository, bytes);
        let message = format!(
            "failed to unpack image \"{reference}\": layer \"{layer}\" (2 of 2): \
             read layer archive: {why}"
        );
        fails(
            Command::Unpack,
            &reference,
            &[],
            &format!("Error: {message}\n"),
        );
        fails(
            Command::Render,
            &reference,
            &[],
            &format!("Error: render reference \"{reference}\": {message}\n"),
        );
    }
}

#[test]
fn bad_settings_are_clear_errors() {
    let (out, _) = run(
        Command::Render,
        "127.0.0.1:1/x:v1",
        &[("OPM_REGISTRY_TIMEOUT", "ten")],
    );
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (
            1,
            "Error: invalid OPM_REGISTRY_TIMEOUT \"ten\": expected a number of seconds \
             greater than 0\n"
        )
    );
}

/// Starts `opm` on `args` with `tmp` as its temporary directory, waits until
/// it has created something there, sends it `signal` and returns how it ended
/// and what was left in `tmp` and `cwd`.
fn interrupt(args: &[&str], cwd: &Path, tmp: &Path, signal: i32) -> (Option<i32>, Vec<String>) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_opm"))
        .args(args)
        .current_dir(cwd)
        .env("TMPDIR", tmp)
        .env("OPM_REGISTRY_MIN_RATE", "0")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run opm");
    let started = Instant::now();
    while std::fs::read_dir(tmp).unwrap().next().is_none() {
        assert!(started.elapsed() < WITHIN, "opm never used its temp dir");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Let the download reach the stall.
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill(2) on the child's own pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    let status = child.wait().expect("wait for opm");
    assert!(started.elapsed() < WITHIN);
    let mut left: Vec<String> = [tmp, cwd]
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "tmp")
        .collect();
    left.sort();
    (status.code(), left)
}

#[test]
fn an_interrupted_pull_leaves_nothing_behind() {
    let (layout, written) = bundle_layout();
    let target = written.layers[0].clone();
    let server = HostileRegistry::start(layout.path(), move |request| {
        if request.path.ends_with(&target) {
            Reply::StallHalfway
        } else {
            Reply::Serve
        }
    });
    let reference = format!("{}:v1", server.reference(REPOSITORY));
    for (signal, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        for args in [
            vec!["bundle", "unpack", &reference, "--use-http", "-o", "out"],
            vec!["render", &reference, "--use-http"],
        ] {
            let work = tempfile::tempdir().unwrap();
            let tmp = work.path().join("tmp");
            std::fs::create_dir(&tmp).unwrap();
            let (status, left) = interrupt(&args, work.path(), &tmp, signal);
            assert_eq!(status, Some(code), "{args:?} on signal {signal}");
            assert!(left.is_empty(), "{args:?} left {left:?}");
        }
    }
}
