//! A real registry for the pull tests: Debian's `docker-registry` (the CNCF
//! distribution server) on 127.0.0.1 and a free port, with filesystem storage
//! in a temporary directory, in three flavours (plain HTTP, htpasswd basic
//! auth, TLS with a self-signed certificate). It is killed and its directory
//! removed on drop. Test images are written as OCI layouts here and pushed
//! with `skopeo`. Without those tools a test that needs them is skipped
//! (saying so), or fails when `OPM_TEST_ALL` is set (CI installs them).

use sha2::Digest as _;
use std::io::Write as _;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
pub const OCI_CONFIG: &str = "application/vnd.oci.image.config.v1+json";
pub const LAYER_TAR: &str = "application/vnd.oci.image.layer.v1.tar";
pub const LAYER_GZIP: &str = "application/vnd.oci.image.layer.v1.tar+gzip";
pub const LAYER_ZSTD: &str = "application/vnd.oci.image.layer.v1.tar+zstd";

fn run(command: &mut Command) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A port nothing listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("bind a free port")
        .port()
}

/// How the registry is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flavour {
    Plain,
    Basic { user: String, password: String },
    Tls,
}

pub struct Registry {
    child: Child,
    dir: tempfile::TempDir,
    /// Where skopeo runs (never with the user's credentials).
    sandbox: crate::util::sandbox::Sandbox,
    pub flavour: Flavour,
    /// `127.0.0.1:<port>`.
    pub host: String,
}

impl Registry {
    pub fn plain() -> Option<Registry> {
        Registry::start(Flavour::Plain)
    }

    pub fn basic(user: &str, password: &str) -> Option<Registry> {
        Registry::start(Flavour::Basic {
            user: user.to_string(),
            password: password.to_string(),
        })
    }

    pub fn tls() -> Option<Registry> {
        Registry::start(Flavour::Tls)
    }

    /// A registry, or `None` (the calling test is skipped) when a tool it
    /// needs is missing: `docker-registry`, `skopeo` (which pushes), and
    /// `htpasswd` or `openssl` for the flavours that need them.
    pub fn start(flavour: Flavour) -> Option<Registry> {
        let tools: &[(&str, &str)] = match flavour {
            Flavour::Plain => &[],
            Flavour::Basic { .. } => &[("htpasswd", "apache2-utils")],
            Flavour::Tls => &[("openssl", "openssl")],
        };
        for (tool, package) in [("docker-registry", "docker-registry"), ("skopeo", "skopeo")]
            .iter()
            .chain(tools)
        {
            if !crate::util::have_tool(tool, package) {
                return None;
            }
        }
        let dir = tempfile::tempdir().expect("registry directory");
        let root = dir.path();
        let port = free_port();
        let host = format!("127.0.0.1:{port}");
        let mut config = format!(
            "version: 0.1\n\
             log:\n  level: error\n  accesslog:\n    disabled: true\n\
             storage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\n\
             http:\n  addr: {host}\n",
            root.join("storage").display()
        );
        match &flavour {
            Flavour::Plain => {}
            Flavour::Basic { user, password } => {
                let line = run(Command::new("htpasswd").args(["-Bbn", user, password]));
                std::fs::write(root.join("htpasswd"), line).expect("write htpasswd");
                config.push_str(&format!(
                    "auth:\n  htpasswd:\n    realm: opm-test\n    path: {}\n",
                    root.join("htpasswd").display()
                ));
            }
            Flavour::Tls => {
                // A CA and a certificate for 127.0.0.1 that it signed, so
                // that a client can trust the CA (`ca_file`).
                let (ca, ca_key) = (root.join("ca.pem"), root.join("ca-key.pem"));
                let (cert, key) = (root.join("cert.pem"), root.join("key.pem"));
                let request = root.join("cert.csr");
                run(Command::new("openssl")
                    .args([
                        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    ])
                    .args(["-subj", "/CN=opm test CA"])
                    .args(["-addext", "basicConstraints=critical,CA:TRUE"])
                    .args(["-addext", "keyUsage=critical,keyCertSign"])
                    .arg("-keyout")
                    .arg(&ca_key)
                    .arg("-out")
                    .arg(&ca)
                    .stderr(Stdio::null()));
                run(Command::new("openssl")
                    .args(["req", "-new", "-newkey", "rsa:2048", "-nodes"])
                    .args(["-subj", "/CN=127.0.0.1"])
                    .arg("-keyout")
                    .arg(&key)
                    .arg("-out")
                    .arg(&request)
                    .stderr(Stdio::null()));
                let extensions = root.join("cert.ext");
                std::fs::write(
                    &extensions,
                    "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
                )
                .expect("write certificate extensions");
                run(Command::new("openssl")
                    .args(["x509", "-req", "-days", "2"])
                    .arg("-in")
                    .arg(&request)
                    .arg("-CA")
                    .arg(&ca)
                    .arg("-CAkey")
                    .arg(&ca_key)
                    .arg("-CAcreateserial")
                    .arg("-extfile")
                    .arg(&extensions)
                    .arg("-out")
                    .arg(&cert)
                    .stderr(Stdio::null()));
                config.push_str(&format!(
                    "  tls:\n    certificate: {}\n    key: {}\n",
                    cert.display(),
                    key.display()
                ));
            }
        }
        let config_path = root.join("config.yml");
        std::fs::write(&config_path, config).expect("write registry config");
        let log = std::fs::File::create(root.join("registry.log")).expect("registry log");
        let child = Command::new("docker-registry")
            .arg("serve")
            .arg(&config_path)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log handle"))
            .stderr(log)
            .spawn()
            .expect("start docker-registry");
        let mut registry = Registry {
            child,
            dir,
            sandbox: crate::util::sandbox::Sandbox::new(),
            flavour,
            host,
        };
        registry.wait_ready(port);
        Some(registry)
    }

    fn wait_ready(&mut self, port: u16) {
        let address = SocketAddr::from(([127, 0, 0, 1], port));
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "docker-registry exited ({status}):\n{}",
                    self.log().unwrap_or_default()
                );
            }
            assert!(
                Instant::now() < deadline,
                "docker-registry did not listen on {address} within 20 s:\n{}",
                self.log().unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn log(&self) -> Option<String> {
        std::fs::read_to_string(self.dir.path().join("registry.log")).ok()
    }

    /// Where the registry keeps a blob's bytes (to tamper with them).
    pub fn blob_data(&self, digest: &str) -> PathBuf {
        let hex = digest.strip_prefix("sha256:").expect("a sha256 digest");
        self.dir
            .path()
            .join("storage/docker/registry/v2/blobs/sha256")
            .join(&hex[..2])
            .join(hex)
            .join("data")
    }

    /// The CA that signed a TLS registry's certificate (PEM).
    pub fn ca_file(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }

    /// `<host>/<repository>`.
    pub fn reference(&self, repository: &str) -> String {
        format!("{}/{repository}", self.host)
    }

    /// Pushes the image tagged `tag` in the OCI layout `layout` to
    /// `<host>/<destination>` with skopeo (`all`: every image of an index).
    pub fn push(&self, layout: &Path, tag: &str, destination: &str, options: &PushOptions) {
        let mut command = self.sandbox.tool("skopeo");
        command
            .args(["--insecure-policy", "copy", "--quiet"])
            .arg("--dest-tls-verify=false");
        if let Flavour::Basic { user, password } = &self.flavour {
            command.arg(format!("--dest-creds={user}:{password}"));
        }
        if options.all {
            command.arg("--all");
        }
        match options.format {
            Some(format) => {
                command.args(["--format", format]);
            }
            // Keeps the manifests byte for byte, so their digests are known.
            None => {
                command.arg("--preserve-digests");
            }
        }
        command
            .arg(format!("oci:{}:{tag}", layout.display()))
            .arg(format!("docker://{}/{destination}", self.host));
        run(&mut command);
    }
}

#[derive(Debug, Default, Clone)]
pub struct PushOptions {
    pub all: bool,
    /// skopeo's `--format` (`v2s2` converts to a Docker schema 2 manifest).
    pub format: Option<&'static str>,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A layer's files: path and contents.
pub type Files = Vec<(String, Vec<u8>)>;

/// One image to write into a layout.
#[derive(Debug, Clone)]
pub struct ImageSpec {
    pub os: String,
    pub architecture: String,
    pub labels: Vec<(String, String)>,
    /// Media type and files (path, contents) of each layer.
    pub layers: Vec<(&'static str, Files)>,
    /// Uncompressed tar layers given as bytes (for hostile archives), after
    /// the others.
    pub raw_layers: Vec<Vec<u8>>,
    /// Layer blobs given byte for byte with the media type they claim (for
    /// damaged archives), after the others.
    pub blob_layers: Vec<(&'static str, Vec<u8>)>,
}

impl ImageSpec {
    pub fn new(architecture: &str) -> ImageSpec {
        ImageSpec {
            os: "linux".to_string(),
            architecture: architecture.to_string(),
            labels: Vec::new(),
            layers: Vec::new(),
            raw_layers: Vec::new(),
            blob_layers: Vec::new(),
        }
    }

    pub fn blob_layer(mut self, media_type: &'static str, bytes: Vec<u8>) -> ImageSpec {
        self.blob_layers.push((media_type, bytes));
        self
    }

    pub fn raw_layer(mut self, tar: Vec<u8>) -> ImageSpec {
        self.raw_layers.push(tar);
        self
    }

    pub fn label(mut self, key: &str, value: &str) -> ImageSpec {
        self.labels.push((key.to_string(), value.to_string()));
        self
    }

    pub fn layer(mut self, media_type: &'static str, files: &[(&str, &str)]) -> ImageSpec {
        self.layers.push((
            media_type,
            files
                .iter()
                .map(|(path, contents)| (path.to_string(), contents.as_bytes().to_vec()))
                .collect(),
        ));
        self
    }
}

/// The digests of what was written for one image.
#[derive(Debug, Clone)]
pub struct Written {
    pub manifest: String,
    pub config: String,
    pub layers: Vec<String>,
}

/// An OCI image layout under construction.
pub struct Layout {
    pub dir: tempfile::TempDir,
    entries: Vec<serde_json::Value>,
}

impl Layout {
    pub fn new() -> Layout {
        let dir = tempfile::tempdir().expect("layout directory");
        std::fs::create_dir_all(dir.path().join("blobs/sha256")).expect("blobs dir");
        std::fs::write(
            dir.path().join("oci-layout"),
            r#"{"imageLayoutVersion":"1.0.0"}"#,
        )
        .expect("write oci-layout");
        Layout {
            dir,
            entries: Vec::new(),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Stores a blob and returns its descriptor.
    pub fn blob(&self, media_type: &str, bytes: &[u8]) -> serde_json::Value {
        let digest = sha256(bytes);
        let hex = digest.trim_start_matches("sha256:");
        std::fs::write(self.dir.path().join("blobs/sha256").join(hex), bytes).expect("write blob");
        serde_json::json!({"mediaType": media_type, "digest": digest, "size": bytes.len()})
    }

    /// Writes an image's layers, config and manifest.
    pub fn image(&self, spec: &ImageSpec) -> (serde_json::Value, Written) {
        let mut layers = Vec::new();
        let mut diff_ids = Vec::new();
        for (media_type, files) in &spec.layers {
            let tar = tar_of(files);
            diff_ids.push(sha256(&tar));
            let bytes = match *media_type {
                LAYER_GZIP => {
                    let mut encoder =
                        flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                    encoder.write_all(&tar).expect("gzip");
                    encoder.finish().expect("gzip")
                }
                LAYER_ZSTD => ruzstd::encoding::compress_to_vec(
                    tar.as_slice(),
                    ruzstd::encoding::CompressionLevel::Fastest,
                ),
                _ => tar,
            };
            layers.push(self.blob(media_type, &bytes));
        }
        for tar in &spec.raw_layers {
            diff_ids.push(sha256(tar));
            layers.push(self.blob(LAYER_TAR, tar));
        }
        for (media_type, bytes) in &spec.blob_layers {
            diff_ids.push(sha256(bytes));
            layers.push(self.blob(media_type, bytes));
        }
        let labels: serde_json::Map<String, serde_json::Value> = spec
            .labels
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        let config = serde_json::json!({
            "architecture": spec.architecture,
            "os": spec.os,
            "config": {"Labels": labels},
            "rootfs": {"type": "layers", "diff_ids": diff_ids},
        });
        let config = self.blob(OCI_CONFIG, config.to_string().as_bytes());
        let manifest = serde_json::json!({
            "schemaVersion": 2,
            "mediaType": OCI_MANIFEST,
            "config": config,
            "layers": layers,
        });
        let mut descriptor = self.blob(OCI_MANIFEST, manifest.to_string().as_bytes());
        descriptor["platform"] =
            serde_json::json!({"os": spec.os, "architecture": spec.architecture});
        let written = Written {
            manifest: descriptor["digest"].as_str().unwrap().to_string(),
            config: config["digest"].as_str().unwrap().to_string(),
            layers: layers
                .iter()
                .map(|l| l["digest"].as_str().unwrap().to_string())
                .collect(),
        };
        (descriptor, written)
    }

    /// Adds a single-platform image under `tag`.
    pub fn add_image(&mut self, tag: &str, spec: &ImageSpec) -> Written {
        let (mut descriptor, written) = self.image(spec);
        descriptor
            .as_object_mut()
            .expect("descriptor")
            .remove("platform");
        self.tag(descriptor, tag);
        written
    }

    /// Adds an image index of several images under `tag`; returns the index
    /// digest and each image.
    pub fn add_index(&mut self, tag: &str, specs: &[ImageSpec]) -> (String, Vec<Written>) {
        let (descriptors, written): (Vec<_>, Vec<_>) = specs.iter().map(|s| self.image(s)).unzip();
        let index = serde_json::json!({
            "schemaVersion": 2,
            "mediaType": OCI_INDEX,
            "manifests": descriptors,
        });
        let descriptor = self.blob(OCI_INDEX, index.to_string().as_bytes());
        let digest = descriptor["digest"].as_str().unwrap().to_string();
        self.tag(descriptor, tag);
        (digest, written)
    }

    fn tag(&mut self, mut descriptor: serde_json::Value, tag: &str) {
        descriptor["annotations"] = serde_json::json!({"org.opencontainers.image.ref.name": tag});
        self.entries.push(descriptor);
        let index = serde_json::json!({"schemaVersion": 2, "manifests": self.entries});
        std::fs::write(self.dir.path().join("index.json"), index.to_string())
            .expect("write index.json");
    }
}

pub fn sha256(bytes: &[u8]) -> String {
    let digest = sha2::Sha256::digest(bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

fn tar_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, contents) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(contents.len() as u64);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_entry_type(tar::EntryType::Regular);
        builder
            .append_data(&mut header, path, contents.as_slice())
            .expect("tar entry");
    }
    builder.into_inner().expect("tar")
}
