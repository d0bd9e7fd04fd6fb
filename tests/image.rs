//! Pulling from a real registry (`docker-registry`, pushed to with skopeo):
//! labels, layers and digests; credentials; TLS; tampering; image indexes;
//! registries that are down or failing.

use crate::util::registry::{
    free_port, sha256, ImageSpec, Layout, PushOptions, Registry, Written, LAYER_GZIP, LAYER_TAR,
    LAYER_ZSTD,
};
use crate::util::{error_chain, Test};
use opm::image::auth::AuthFiles;
use opm::image::remote::{self, Limits, PullErrorKind, RetryPolicy};
use opm::image::{PullOptions, PulledImage, Transport};
use std::io::{Read as _, Write as _};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const BUNDLE_PACKAGE: &str = "operators.operatorframework.io.bundle.package.v1";

fn http() -> PullOptions {
    options(Transport {
        use_http: true,
        skip_tls_verify: false,
    })
}

fn options(transport: Transport) -> PullOptions {
    PullOptions {
        transport,
        // No credential files: the tests never read the user's own.
        auth: AuthFiles { paths: Vec::new() },
        progress: false,
        platform: None,
        root_ca: None,
        limits: Limits::default(),
    }
}

fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        attempts: 3,
        first_delay: Duration::from_millis(50),
    }
}

fn bundle_image() -> ImageSpec {
    ImageSpec::new("amd64")
        .label(BUNDLE_PACKAGE, "foo")
        .label(
            "operators.operatorframework.io.bundle.channels.v1",
            "stable",
        )
        .layer(
            LAYER_GZIP,
            &[("manifests/foo.csv.yaml", "kind: ClusterServiceVersion\n")],
        )
        .layer(
            LAYER_ZSTD,
            &[("metadata/annotations.yaml", "annotations: {}\n")],
        )
        .layer(LAYER_TAR, &[("tests/scorecard/config.yaml", "x: 1\n")])
}

/// Writes `spec` as `<repository>:v1` and pushes it.
fn push_image(registry: &Registry, repository: &str, spec: &ImageSpec) -> Written {
    let mut layout = Layout::new();
    let written = layout.add_image("v1", spec);
    registry.push(
        layout.path(),
        "v1",
        &format!("{repository}:v1"),
        &PushOptions::default(),
    );
    written
}

fn auth_file(dir: &Path, json: &str) -> AuthFiles {
    let path = dir.join("auth.json");
    std::fs::write(&path, json).unwrap();
    AuthFiles { paths: vec![path] }
}

fn basic(user: &str, password: &str) -> String {
    opm::encoding::base64::encode(format!("{user}:{password}").as_bytes())
}

fn assert_layers_verified(image: &PulledImage, written: &Written) {
    let digests: Vec<&str> = image.layers.iter().map(|l| l.digest.as_str()).collect();
    assert_eq!(digests, written.layers);
    for layer in &image.layers {
        let bytes = std::fs::read(&layer.path).unwrap();
        assert_eq!(sha256(&bytes), layer.digest);
        assert_eq!(bytes.len() as u64, layer.size);
        assert!(layer.path.starts_with(image.dir.path()));
    }
}

#[test]
fn pull_anonymous_over_http_reads_labels_and_layers() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let written = push_image(&registry, "team/foo-bundle", &bundle_image());
    let reference = format!("{}:v1", registry.reference("team/foo-bundle"));

    let image = remote::pull(&reference, &http()).unwrap();
    assert_eq!(image.reference, reference);
    assert_eq!(image.manifest_digest, written.manifest);
    assert_eq!(image.platform, None);
    assert_eq!(image.labels[BUNDLE_PACKAGE], "foo");
    assert_eq!(image.labels.len(), 2);
    let types: Vec<&str> = image.layers.iter().map(|l| l.media_type.as_str()).collect();
    assert_eq!(types, [LAYER_GZIP, LAYER_ZSTD, LAYER_TAR]);
    assert_layers_verified(&image, &written);

    // The same image by digest, and by tag and digest together.
    let by_digest = format!(
        "{}@{}",
        registry.reference("team/foo-bundle"),
        written.manifest
    );
    let image = remote::pull(&by_digest, &http()).unwrap();
    assert_eq!(image.manifest_digest, written.manifest);
    let both = format!("{reference}@{}", written.manifest);
    assert_eq!(
        remote::pull(&both, &http()).unwrap().manifest_digest,
        written.manifest
    );

    // Dropping the image removes its files.
    let dir = image.dir.path().to_path_buf();
    drop(image);
    assert!(!dir.exists());
}

#[test]
fn pull_docker_schema2_image() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let spec = ImageSpec::new("amd64")
        .label(BUNDLE_PACKAGE, "bar")
        .layer(LAYER_GZIP, &[("manifests/a.yaml", "a: 1\n")])
        .layer(LAYER_GZIP, &[("metadata/b.yaml", "b: 2\n")]);
    let mut layout = Layout::new();
    let written = layout.add_image("v1", &spec);
    registry.push(
        layout.path(),
        "v1",
        "bar:v1",
        &PushOptions {
            all: false,
            format: Some("v2s2"),
        },
    );
    let image = remote::pull(&format!("{}/bar:v1", registry.host), &http()).unwrap();
    assert_ne!(
        image.manifest_digest, written.manifest,
        "converted manifest"
    );
    assert_eq!(image.labels[BUNDLE_PACKAGE], "bar");
    assert_eq!(image.layers.len(), 2);
    for layer in &image.layers {
        assert_eq!(
            layer.media_type,
            "application/vnd.docker.image.rootfs.diff.tar.gzip"
        );
    }
    assert_layers_verified(&image, &written);
}

#[test]
fn missing_tag_and_repository_are_not_found() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    push_image(&registry, "foo", &bundle_image());

    let reference = format!("{}/foo:nope", registry.host);
    let error = remote::pull(&reference, &http()).unwrap_err();
    assert_eq!(
        error_chain(&error),
        format!(
            "failed to pull image \"{reference}\": tag \"nope\" not found in repository \"{}/foo\"",
            registry.host
        )
    );

    let reference = format!("{}/nothing/here:v1", registry.host);
    let error = remote::pull(&reference, &http()).unwrap_err();
    // Distribution answers MANIFEST_UNKNOWN here, others NAME_UNKNOWN.
    assert!(
        matches!(
            error.kind,
            PullErrorKind::RepositoryNotFound { .. } | PullErrorKind::NotFound { .. }
        ),
        "{error}"
    );
    assert!(error_chain(&error).ends_with("/nothing/here\""), "{error}");
}

#[test]
fn pull_with_credentials_from_the_auth_file() {
    let Some(registry) = Registry::basic("alice", "s3cret-pw") else {
        return;
    };
    let written = push_image(&registry, "private/app", &bundle_image());
    let reference = format!("{}:v1", registry.reference("private/app"));
    let dir = tempfile::tempdir().unwrap();

    // The `auth` form.
    let mut options = http();
    options.auth = auth_file(
        dir.path(),
        &format!(
            r#"{{"auths": {{"{}": {{"auth": "{}"}}}}}}"#,
            registry.host,
            basic("alice", "s3cret-pw")
        ),
    );
    let image = remote::pull(&reference, &options).unwrap();
    assert_eq!(image.manifest_digest, written.manifest);
    assert_layers_verified(&image, &written);

    // The `username`/`password` form.
    options.auth = auth_file(
        dir.path(),
        &format!(
            r#"{{"auths": {{"{}": {{"username": "alice", "password": "s3cret-pw"}}}}}}"#,
            registry.host
        ),
    );
    assert_eq!(remote::pull(&reference, &options).unwrap().layers.len(), 3);
}

#[test]
fn wrong_or_missing_credentials_are_unauthorized_without_the_password() {
    let Some(registry) = Registry::basic("alice", "s3cret-pw") else {
        return;
    };
    push_image(&registry, "private/app", &bundle_image());
    let reference = format!("{}:v1", registry.reference("private/app"));
    let dir = tempfile::tempdir().unwrap();

    let mut options = http();
    options.auth = auth_file(
        dir.path(),
        &format!(
            r#"{{"auths": {{"{}": {{"auth": "{}"}}}}}}"#,
            registry.host,
            basic("alice", "wrong-Pa55word")
        ),
    );
    let error = remote::pull(&reference, &options).unwrap_err();
    let text = error_chain(&error);
    assert!(
        matches!(
            error.kind,
            PullErrorKind::Unauthorized {
                with_credentials: true,
                ..
            }
        ),
        "{text}"
    );
    assert!(text.contains("unauthorized"), "{text}");
    assert!(text.contains(&registry.host), "{text}");
    assert!(!text.contains("wrong-Pa55word"), "{text}");
    assert!(!text.contains(&basic("alice", "wrong-Pa55word")), "{text}");
    assert!(!format!("{error:?}").contains("wrong-Pa55word"));

    let error = remote::pull(&reference, &http()).unwrap_err();
    assert!(
        matches!(
            error.kind,
            PullErrorKind::Unauthorized {
                with_credentials: false,
                ..
            }
        ),
        "{error}"
    );
    assert!(error_chain(&error).contains("none were found"), "{error}");
}

#[test]
fn scoped_credentials_are_used_for_the_namespace() {
    let Some(registry) = Registry::basic("alice", "s3cret-pw") else {
        return;
    };
    push_image(&registry, "team/app", &bundle_image());
    push_image(&registry, "other/app", &bundle_image());
    let dir = tempfile::tempdir().unwrap();
    let mut options = http();
    options.auth = auth_file(
        dir.path(),
        &format!(
            r#"{{"auths": {{
                "{host}": {{"auth": "{wrong}"}},
                "{host}/team": {{"auth": "{right}"}}
            }}}}"#,
            host = registry.host,
            wrong = basic("alice", "wrong"),
            right = basic("alice", "s3cret-pw"),
        ),
    );
    let image = remote::pull(&format!("{}:v1", registry.reference("team/app")), &options).unwrap();
    assert_eq!(image.layers.len(), 3);
    let error =
        remote::pull(&format!("{}:v1", registry.reference("other/app")), &options).unwrap_err();
    assert!(
        matches!(error.kind, PullErrorKind::Unauthorized { .. }),
        "{error}"
    );
}

#[test]
fn https_needs_a_trusted_certificate_or_skip_tls_verify() {
    let Some(registry) = Registry::tls() else {
        return;
    };
    let written = push_image(&registry, "secure/app", &bundle_image());
    let reference = format!("{}:v1", registry.reference("secure/app"));

    let skip = options(Transport {
        use_http: false,
        skip_tls_verify: true,
    });
    let image = remote::pull(&reference, &skip).unwrap();
    assert_eq!(image.manifest_digest, written.manifest);
    assert_layers_verified(&image, &written);

    let verify = options(Transport::default());
    let started = Instant::now();
    let error = remote::pull(&reference, &verify).unwrap_err();
    let text = error_chain(&error);
    assert!(matches!(error.kind, PullErrorKind::Tls { .. }), "{text}");
    assert!(text.contains("certificate"), "{text}");
    assert!(text.contains(&registry.host), "{text}");
    // A certificate failure is not retried.
    assert!(started.elapsed() < Duration::from_secs(2), "{text}");
}

/// The CA roots: the system's when it has any (`SSL_CERT_FILE` naming the
/// registry's CA makes it trusted); on a system without any (an empty
/// image), the ones built into opm, so certificates are still verified
/// (an unknown issuer), never refused for want of a CA store.
#[test]
fn registry_certificates_are_checked_against_the_system_roots_or_the_built_in_ones() {
    let Some(registry) = Registry::tls() else {
        return;
    };
    push_image(&registry, "secure/app", &bundle_image());
    let reference = format!("{}:v1", registry.reference("secure/app"));
    let empty = tempfile::tempdir().unwrap();
    let no_file = empty.path().join("none.pem");
    std::fs::write(&no_file, "").unwrap();
    let unpack = |test: Test| {
        test.args(["bundle", "unpack", reference.as_str(), "-o", "out"])
            .run()
    };

    let trusted = unpack(
        Test::new()
            .env("SSL_CERT_FILE", registry.ca_file().to_str().unwrap())
            .env("SSL_CERT_DIR", empty.path().to_str().unwrap()),
    );
    // Pulled (the image is no valid bundle: what unpack says next).
    trusted.failure(&["bundle format validation failed"]);

    let built_in = unpack(
        Test::new()
            .env("SSL_CERT_FILE", no_file.to_str().unwrap())
            .env("SSL_CERT_DIR", empty.path().to_str().unwrap()),
    )
    .failure(&["TLS failure talking to registry", "UnknownIssuer"]);
    assert!(
        !built_in.stderr.contains("No CA certificates"),
        "{}",
        built_in.stderr
    );
}

#[test]
fn plain_http_against_a_tls_registry_fails_clearly() {
    let Some(registry) = Registry::tls() else {
        return;
    };
    push_image(&registry, "secure/app", &bundle_image());
    let error =
        remote::pull(&format!("{}:v1", registry.reference("secure/app")), &http()).unwrap_err();
    assert!(
        matches!(error.kind, PullErrorKind::HttpToHttps { .. }),
        "{error}"
    );
    assert!(error_chain(&error).contains("speaks HTTPS"), "{error}");
}

#[test]
fn https_against_a_plain_registry_fails_clearly() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let error = remote::pull(
        &format!("{}:v1", registry.reference("x")),
        &options(Transport::default()),
    )
    .unwrap_err();
    assert!(matches!(error.kind, PullErrorKind::Tls { .. }), "{error}");
    assert!(error_chain(&error).contains("--use-http"), "{error}");
}

#[test]
fn a_tampered_layer_is_refused_naming_its_digest() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let written = push_image(&registry, "tampered", &bundle_image());
    let reference = format!("{}/tampered:v1", registry.host);
    let target = &written.layers[1];
    let data = registry.blob_data(target);
    let mut bytes = std::fs::read(&data).unwrap();
    bytes[0] ^= 0xff;
    std::fs::write(&data, &bytes).unwrap();

    let error = remote::pull(&reference, &http()).unwrap_err();
    match &error.kind {
        PullErrorKind::DigestMismatch { digest, .. } => assert_eq!(digest, target),
        other => panic!("not a digest mismatch: {other}"),
    }
    assert!(error_chain(&error).contains(target.as_str()), "{error}");

    // Longer than its descriptor says: stopped, not stored.
    bytes.extend_from_slice(&[0; 4096]);
    std::fs::write(&data, &bytes).unwrap();
    let error = remote::pull(&reference, &http()).unwrap_err();
    assert!(
        matches!(&error.kind, PullErrorKind::Oversized { digest, .. } if digest == target),
        "{error}"
    );
}

#[test]
fn a_tampered_config_is_refused() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let written = push_image(&registry, "tampered-config", &bundle_image());
    let data = registry.blob_data(&written.config);
    let mut bytes = std::fs::read(&data).unwrap();
    let last = bytes.len() - 2;
    bytes[last] = b' ';
    std::fs::write(&data, &bytes).unwrap();
    let error =
        remote::pull(&format!("{}/tampered-config:v1", registry.host), &http()).unwrap_err();
    assert!(
        matches!(&error.kind, PullErrorKind::DigestMismatch { digest, .. } if *digest == written.config),
        "{error}"
    );
    assert!(
        error_chain(&error).starts_with("failed to pull image"),
        "{error}"
    );
}

#[test]
fn an_image_index_picks_linux_amd64_and_says_so() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let mut layout = Layout::new();
    let (index_digest, written) = layout.add_index(
        "v1",
        &[
            ImageSpec::new("arm64")
                .label("arch", "arm64")
                .layer(LAYER_GZIP, &[("arm", "arm64")]),
            ImageSpec::new("amd64")
                .label("arch", "amd64")
                .layer(LAYER_GZIP, &[("x86", "amd64")]),
        ],
    );
    registry.push(
        layout.path(),
        "v1",
        "multi:v1",
        &PushOptions {
            all: true,
            format: None,
        },
    );
    let reference = format!("{}/multi:v1", registry.host);

    let image = remote::pull(&reference, &http()).unwrap();
    assert_eq!(image.platform.as_deref(), Some("linux/amd64"));
    assert_eq!(image.labels["arch"], "amd64");
    assert_eq!(image.manifest_digest, index_digest);
    assert_layers_verified(&image, &written[1]);

    let mut arm = http();
    arm.platform = Some("linux/arm64".to_string());
    let image = remote::pull(&reference, &arm).unwrap();
    assert_eq!(image.platform.as_deref(), Some("linux/arm64"));
    assert_eq!(image.labels["arch"], "arm64");
    assert_layers_verified(&image, &written[0]);

    let mut missing = http();
    missing.platform = Some("linux/s390x".to_string());
    let error = remote::pull(&reference, &missing).unwrap_err();
    assert!(
        error_chain(&error).ends_with(
            "no image for platform \"linux/s390x\" in the image index \
             (it has linux/arm64, linux/amd64)"
        ),
        "{error}"
    );
}

#[test]
fn a_registry_that_is_down_fails_after_bounded_retries() {
    let reference = format!("127.0.0.1:{}/foo:v1", free_port());
    let started = Instant::now();
    let error = remote::pull_with_retry(&reference, &http(), &fast_retry()).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        matches!(error.kind, PullErrorKind::Connect { attempts: 3, .. }),
        "{error}"
    );
    let text = error_chain(&error);
    assert!(text.starts_with(&format!("failed to pull image \"{reference}\"")));
    assert!(text.contains("connection refused"), "{text}");
    assert!(text.contains("gave up after 3 attempts"), "{text}");
}

/// Answers every request with HTTP 500 and counts them.
struct FailingServer {
    host: String,
    requests: Arc<AtomicUsize>,
}

impl FailingServer {
    fn start() -> FailingServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let host = listener.local_addr().unwrap().to_string();
        let requests = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { break };
                let mut request = Vec::new();
                let mut buffer = [0; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buffer) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => request.extend_from_slice(&buffer[..n]),
                    }
                }
                counter.fetch_add(1, Ordering::SeqCst);
                let _ = stream.write_all(
                    b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n\
                      Content-Length: 12\r\nConnection: close\r\n\r\nstorage down",
                );
            }
        });
        FailingServer { host, requests }
    }
}

#[test]
fn a_failing_registry_is_reported_after_bounded_retries() {
    let server = FailingServer::start();
    let reference = format!("{}/foo:v1", server.host);
    let started = Instant::now();
    let error = remote::pull_with_retry(&reference, &http(), &fast_retry()).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        matches!(
            error.kind,
            PullErrorKind::Status {
                status: 500,
                attempts: 3,
                ..
            }
        ),
        "{error}"
    );
    assert_eq!(
        error_chain(&error),
        format!(
            "failed to pull image \"{reference}\": registry \"{}\" answered HTTP 500: \
             storage down (gave up after 3 attempts)",
            server.host
        )
    );
    assert!(server.requests.load(Ordering::SeqCst) >= 3);
}

#[test]
fn invalid_references_and_platforms_fail_before_any_request() {
    let error = remote::pull("Quay.io/Foo:v1", &http()).unwrap_err();
    assert_eq!(
        error_chain(&error),
        "failed to pull image \"Quay.io/Foo:v1\": invalid reference format: \
         repository name must be lowercase"
    );
    let mut options = http();
    options.platform = Some("linux".to_string());
    let error = remote::pull("localhost:1/foo:v1", &options).unwrap_err();
    assert!(
        matches!(error.kind, PullErrorKind::InvalidPlatform { .. }),
        "{error}"
    );
}
