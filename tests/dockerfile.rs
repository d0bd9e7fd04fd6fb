use crate::util::Test;

const DEFAULT: &str = "# The builder image is expected to contain
# /bin/opm (with serve subcommand)
FROM quay.io/operator-framework/opm:latest as builder

# Copy FBC root into image at /configs and pre-populate serve cache
ADD catalog /configs
RUN [\"/bin/opm\", \"serve\", \"/configs\", \"--cache-dir=/tmp/cache\", \"--cache-only\"]

FROM quay.io/operator-framework/opm:latest
# The base image is expected to contain
# /bin/opm (with serve subcommand) and /bin/grpc_health_probe

# Configure the entrypoint and command
ENTRYPOINT [\"/bin/opm\"]
CMD [\"serve\", \"/configs\", \"--cache-dir=/tmp/cache\"]

COPY --from=builder /configs /configs
COPY --from=builder /tmp/cache /tmp/cache

# Set FBC-specific label for the location of the FBC root directory
# in the image
LABEL operators.operatorframework.io.index.configs.v1=/configs
";

#[test]
fn generate_dockerfile_defaults() {
    let out = Test::new()
        .dir("catalog")
        .args(["generate", "dockerfile", "catalog"])
        .run()
        .success();
    assert_eq!(out.read("catalog.Dockerfile"), DEFAULT);
}

#[test]
fn generate_dockerfile_never_overwrites() {
    let out = Test::new()
        .dir("catalog")
        .file("catalog.Dockerfile", "mine\n")
        .args(["generate", "dockerfile", "catalog"])
        .run()
        .failure(&["path \"catalog.Dockerfile\": file already exists"]);
    assert_eq!(out.read("catalog.Dockerfile"), "mine\n");
}

#[test]
fn generate_dockerfile_failure_leaves_nothing() {
    for args in [
        vec!["generate", "dockerfile", "catalog", "-i", ""],
        vec!["generate", "dockerfile", "catalog", "-b", "scratch"],
        vec!["generate", "dockerfile", "catalog", "-l", "novalue"],
        vec!["generate", "dockerfile", "missing"],
    ] {
        let out = Test::new().dir("catalog").args(args.clone()).run();
        assert_eq!(out.code, 1, "{args:?}");
        assert!(!out.exists("catalog.Dockerfile"), "{args:?} left a file");
        assert!(!out.exists("missing.Dockerfile"), "{args:?} left a file");
        let leftovers: Vec<_> = std::fs::read_dir(&out.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "catalog")
            .collect();
        assert!(leftovers.is_empty(), "{args:?} left {leftovers:?}");
    }
}

#[test]
fn generate_dockerfile_labels_sorted() {
    let out = Test::new()
        .dir("catalog")
        .args([
            "generate",
            "dockerfile",
            "catalog",
            "-l",
            "z=1,a=2",
            "-l",
            "m=3",
        ])
        .run()
        .success();
    assert!(out.read("catalog.Dockerfile").ends_with(
        "LABEL operators.operatorframework.io.index.configs.v1=/configs\n\n# Set other custom labels\nLABEL \"a\"=\"2\"\nLABEL \"m\"=\"3\"\nLABEL \"z\"=\"1\"\n"
    ));
}
