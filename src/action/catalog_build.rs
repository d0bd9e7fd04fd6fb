//! `opm alpha catalog build DIR DEST` and `opm alpha catalog base DEST`:
//! catalog images without a container engine.
//!
//! A catalog image is laid out as `opm generate dockerfile` lays it out: the
//! catalog under `/configs`, a serve cache under `/tmp/cache` (built here,
//! so the pod is ready at once), the configs label, `ENTRYPOINT
//! ["/bin/opm"]`, `CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]`,
//! port 50051, a non-root user, and `/bin/grpc_health_probe` for OLM's
//! probes. Its base is this opm (one layer: the running binary, which must
//! be a static build, and the probe link to it) or another image.
//!
//! The catalog is copied into a private directory with the permissions the
//! image gives it (everything readable by every user; the cache writable by
//! group 0, the group OpenShift runs every random UID in), validated there
//! exactly as `opm serve` (and `opm validate`) validate it, and the cache is
//! written there: its digest covers every byte and mode of both trees, so
//! the copy must be what the layers hold. The layers are packed from that
//! copy. Nothing is written but the destination, and nothing at all when
//! the catalog fails.

use super::render::LABEL_CONFIGS;
use crate::encoding::civil::format_utc;
use crate::image::build::layer::{Entry, Source};
use crate::image::build::{self, BuildError, Destination, ImageBuilder};
use crate::image::remote::PullError;
use crate::image::PullOptions;
use crate::serve::cache::{self, CacheError, Modes};
use crate::serve::index::{Index, IndexError};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Where the catalog goes in the image.
pub const CONFIGS_DIR: &str = "/configs";
/// Where the serve cache goes in the image.
pub const CACHE_DIR: &str = "/tmp/cache";
/// The port `opm serve` listens on (upstream's default).
pub const PORT: &str = "50051/tcp";
/// The user the image runs as when its base names none (upstream's opm
/// image runs as 1001).
pub const USER: &str = "1001";
/// Where the binary and the probe are.
pub const OPM_PATH: &str = "/bin/opm";
pub const PROBE_PATH: &str = "/bin/grpc_health_probe";
/// The search path the image's processes get (so that OLM's exec probe,
/// `grpc_health_probe -addr=:50051`, finds the probe).
pub const PATH_ENV: &str = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

const CATALOG_DIR_MODE: u32 = 0o755;
const CATALOG_FILE_MODE: u32 = 0o644;
/// `/tmp`: world-writable, sticky.
const TMP_MODE: u32 = 0o1777;

/// `opm alpha catalog build`.
#[derive(Debug, Clone)]
pub struct BuildCatalog {
    /// The catalog directory, relative to `working_dir` or absolute.
    pub dir: PathBuf,
    /// The directory as the user named it, for messages.
    pub display: String,
    pub destination: Destination,
    /// Another image to build on (any reference form), instead of this opm.
    pub base: Option<String>,
    /// More labels for the image config.
    pub labels: BTreeMap<String, String>,
    pub pull: PullOptions,
    pub working_dir: PathBuf,
    /// The modification time of every file in the new layers and the
    /// image's creation time (`SOURCE_DATE_EPOCH`, or 0).
    pub epoch: u64,
}

/// `opm alpha catalog base`.
#[derive(Debug, Clone)]
pub struct BuildBase {
    pub destination: Destination,
    pub pull: PullOptions,
    pub working_dir: PathBuf,
    pub epoch: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum CatalogBuildError {
    #[error(transparent)]
    Destination(#[from] build::destination::DestinationError),
    #[error("stat {}: {}", .path, crate::fsutil::io_message(.source))]
    Stat {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("provided root path {} is not a directory", crate::encoding::json::go_quote(.0))]
    NotADirectory(String),
    /// The catalog fails validation (shown as `opm validate` shows it).
    #[error(transparent)]
    Invalid(#[from] IndexError),
    #[error("write the serve cache: {0}")]
    Cache(#[from] CacheError),
    #[error("base image: {0}")]
    Base(#[from] PullError),
    #[error("base image {}: {message}", crate::encoding::json::go_quote(.reference))]
    BaseConfig { reference: String, message: String },
    /// No `--base`, and this opm cannot run on its own.
    #[error("this opm is linked dynamically ({target}), so it cannot be an image's only content: give --base IMAGE (e.g. quay.io/operator-framework/opm:latest), or build the static opm (scripts/build-static) and run that")]
    NotSelfContained { target: &'static str },
    #[error("find the running opm: {0}")]
    CurrentExe(#[source] std::io::Error),
    #[error(transparent)]
    Image(#[from] BuildError),
}

impl CatalogBuildError {
    /// `opm validate`'s lines, when the catalog failed it.
    pub fn validation_lines(&self) -> &[String] {
        match self {
            CatalogBuildError::Invalid(IndexError::Invalid { shown }) => &shown.lines,
            _ => &[],
        }
    }
}

impl BuildCatalog {
    /// Builds and writes the image; returns its manifest digest.
    pub fn run(&self, progress: &mut dyn FnMut(&str)) -> Result<String, CatalogBuildError> {
        self.destination.check_free(&self.working_dir)?;
        let dir = self.working_dir.join(&self.dir);
        match std::fs::metadata(&dir) {
            Err(source) => {
                return Err(CatalogBuildError::Stat {
                    path: self.display.clone(),
                    source,
                })
            }
            Ok(meta) if !meta.is_dir() => {
                return Err(CatalogBuildError::NotADirectory(self.display.clone()))
            }
            Ok(_) => {}
        }
        // Without a base this opm must be able to be one: said at once.
        let base = match &self.base {
            Some(reference) => Base::Image(reference),
            None => Base::Opm(opm_layer()?),
        };

        let stage = crate::fsutil::TempDir::new("opm-catalog-", None)
            .map_err(|e| BuildError::io("create", &std::env::temp_dir(), &e))?;
        let configs = stage.path().join("configs");
        build::copy_tree(&dir, &configs, CATALOG_DIR_MODE, CATALOG_FILE_MODE)?;
        let index = Index::load(&configs, &self.display)?;
        progress(&format!(
            "Validated {} ({} packages, {} bundles)",
            self.display,
            index.packages.len(),
            index.bundles.len()
        ));
        let cache_dir = stage.path().join("cache");
        cache::build(&cache_dir, &configs, &index, Modes::IMAGE)?;
        drop(index);

        let mut builder = ImageBuilder::new(self.epoch)?;
        let config = match base {
            Base::Image(reference) => {
                progress(&format!("Pulling base image {reference}"));
                let pulled = crate::image::source::pull(reference, &self.pull)?;
                let (config, diff_ids) = parse_base_config(&pulled.config, reference)?;
                builder.base(pulled, &diff_ids)?;
                config
            }
            Base::Opm(layer) => {
                builder.layer(layer.into_iter().map(Ok))?;
                base_config(self.epoch)
            }
        };
        builder.layer(
            build::tree_entries(&configs, rooted(CONFIGS_DIR))?
                .into_iter()
                .map(Ok),
        )?;
        let mut cache_layer = vec![Entry::dir("tmp/", TMP_MODE)];
        cache_layer.extend(build::tree_entries(&cache_dir, rooted(CACHE_DIR))?);
        builder.layer(cache_layer.into_iter().map(Ok))?;
        let base_layers = builder.layer_count().saturating_sub(2);
        let config = catalog_config(config, &self.labels, self.epoch, base_layers);
        let image = builder.finish(config)?;
        let digest = self
            .destination
            .write(&image, &self.working_dir, &self.pull, progress)?;
        Ok(digest)
    }
}

/// What a catalog image is built on.
enum Base<'a> {
    /// An image, by reference.
    Image(&'a str),
    /// This opm: the entries of its layer.
    Opm(Vec<Entry>),
}

impl BuildBase {
    /// Builds and writes the base image; returns its manifest digest.
    pub fn run(&self, progress: &mut dyn FnMut(&str)) -> Result<String, CatalogBuildError> {
        self.destination.check_free(&self.working_dir)?;
        let mut builder = ImageBuilder::new(self.epoch)?;
        builder.layer(opm_layer()?.into_iter().map(Ok))?;
        let image = builder.finish(base_config(self.epoch))?;
        Ok(self
            .destination
            .write(&image, &self.working_dir, &self.pull, progress)?)
    }
}

/// `/configs` as a layer path (`configs`).
fn rooted(path: &str) -> &str {
    path.trim_start_matches('/')
}

/// The layer of this opm: `/bin/opm` (the running binary), the probe
/// linked to it, and `/tmp`.
fn opm_layer() -> Result<Vec<Entry>, CatalogBuildError> {
    if !crate::SELF_CONTAINED {
        return Err(CatalogBuildError::NotSelfContained {
            target: env!("OPM_TARGET"),
        });
    }
    let exe = std::env::current_exe().map_err(CatalogBuildError::CurrentExe)?;
    Ok(vec![
        Entry::dir("bin/", 0o755),
        Entry::file(rooted(OPM_PATH), 0o755, Source::Path(exe)),
        Entry::symlink(rooted(PROBE_PATH), "opm"),
        Entry::dir("tmp/", TMP_MODE),
    ])
}

/// The config of this opm's own image.
fn base_config(epoch: u64) -> Map<String, Value> {
    let mut config = Map::new();
    config.insert("created".into(), json!(created(epoch)));
    config.insert(
        "architecture".into(),
        json!(crate::image::go_arch(std::env::consts::ARCH)),
    );
    config.insert("os".into(), json!(std::env::consts::OS));
    config.insert(
        "config".into(),
        json!({
            "User": USER,
            "ExposedPorts": {PORT: {}},
            "Env": [PATH_ENV],
            "Entrypoint": [OPM_PATH],
            "WorkingDir": "/",
        }),
    );
    // One entry per layer, as image builders expect.
    config.insert(
        "history".into(),
        json!([{
            "created": created(epoch),
            "created_by": "opm alpha catalog base: /bin/opm, /bin/grpc_health_probe, /tmp",
        }]),
    );
    config
}

fn created(epoch: u64) -> String {
    format_utc(i64::try_from(epoch).unwrap_or(i64::MAX))
}

/// A base image's config, without its `rootfs`, and its layers' `diff_ids`.
fn parse_base_config(
    bytes: &[u8],
    reference: &str,
) -> Result<(Map<String, Value>, Vec<String>), CatalogBuildError> {
    let fail = |message: String| CatalogBuildError::BaseConfig {
        reference: reference.to_string(),
        message,
    };
    let mut config: Map<String, Value> = serde_json::from_slice(bytes)
        .map_err(|e| fail(format!("its config is not a JSON object: {e}")))?;
    let diff_ids = config
        .remove("rootfs")
        .and_then(|rootfs| rootfs.get("diff_ids").cloned())
        .and_then(|ids| serde_json::from_value::<Vec<String>>(ids).ok())
        .ok_or_else(|| fail("its config has no rootfs.diff_ids".to_string()))?;
    if config
        .get("os")
        .and_then(Value::as_str)
        .is_some_and(|os| os != "linux")
    {
        return Err(fail("it is not a linux image".to_string()));
    }
    if let Some(container) = config.get("config") {
        if !container.is_object() && !container.is_null() {
            return Err(fail("its config's \"config\" is not an object".to_string()));
        }
    }
    Ok((config, diff_ids))
}

/// `config` (a base's) as the catalog image's: the entrypoint, command,
/// port and labels of the catalog, the base's user or [`USER`], the creation
/// time, and the history of the catalog's two layers after the base's
/// (`base_layers` of them: a base without a history gets one entry per
/// layer, since image builders count entries against layers).
fn catalog_config(
    mut config: Map<String, Value>,
    labels: &BTreeMap<String, String>,
    epoch: u64,
    base_layers: usize,
) -> Map<String, Value> {
    let created = created(epoch);
    config.insert("created".into(), json!(created));
    let container = config
        .entry("config")
        .or_insert_with(|| Value::Object(Map::new()));
    if !container.is_object() {
        *container = Value::Object(Map::new());
    }
    if let Value::Object(container) = container {
        let user_set = container
            .get("User")
            .and_then(Value::as_str)
            .is_some_and(|user| !user.is_empty());
        if !user_set {
            container.insert("User".into(), json!(USER));
        }
        let ports = container
            .entry("ExposedPorts")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(ports) = ports {
            ports.insert(PORT.into(), json!({}));
        } else {
            *ports = json!({PORT: {}});
        }
        if !container.contains_key("Env") {
            container.insert("Env".into(), json!([PATH_ENV]));
        }
        container.insert("Entrypoint".into(), json!([OPM_PATH]));
        container.insert(
            "Cmd".into(),
            json!(["serve", CONFIGS_DIR, format!("--cache-dir={CACHE_DIR}")]),
        );
        let all = container
            .entry("Labels")
            .or_insert_with(|| Value::Object(Map::new()));
        if !all.is_object() {
            *all = Value::Object(Map::new());
        }
        if let Value::Object(all) = all {
            all.insert(LABEL_CONFIGS.into(), json!(CONFIGS_DIR));
            for (key, value) in labels {
                all.insert(key.clone(), json!(value));
            }
        }
    }
    let history = config.entry("history").or_insert_with(|| {
        Value::Array(
            (0..base_layers)
                .map(|_| json!({"created": created, "created_by": "(a layer of the base image)"}))
                .collect(),
        )
    });
    if !history.is_array() {
        *history = Value::Array(Vec::new());
    }
    if let Value::Array(history) = history {
        for what in ["the catalog at /configs", "the serve cache at /tmp/cache"] {
            history.push(json!({
                "created": created,
                "created_by": format!("opm alpha catalog build: {what}"),
            }));
        }
    }
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_config_keeps_the_base_and_sets_what_olm_needs() {
        let base = json!({
            "architecture": "amd64",
            "os": "linux",
            "config": {
                "User": "65532",
                "Env": ["PATH=/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"],
                "Entrypoint": ["/bin/sh"],
                "Labels": {"base": "yes"}
            },
            "rootfs": {"type": "layers", "diff_ids": ["sha256:aa", "sha256:bb"]},
            "history": [{"created_by": "one"}, {"created_by": "two"}]
        });
        let (config, diff_ids) =
            parse_base_config(&serde_json::to_vec(&base).unwrap(), "base:v1").unwrap();
        assert_eq!(diff_ids, ["sha256:aa", "sha256:bb"]);
        let labels = BTreeMap::from([("extra".to_string(), "1".to_string())]);
        let config = Value::Object(catalog_config(config, &labels, 0, 2));
        assert_eq!(config["created"], "1970-01-01T00:00:00Z");
        assert!(config.get("rootfs").is_none());
        let container = &config["config"];
        assert_eq!(container["User"], "65532");
        assert_eq!(container["Entrypoint"], json!(["/bin/opm"]));
        assert_eq!(
            container["Cmd"],
            json!(["serve", "/configs", "--cache-dir=/tmp/cache"])
        );
        assert_eq!(container["ExposedPorts"], json!({"50051/tcp": {}}));
        assert_eq!(
            container["Env"][1],
            "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"
        );
        assert_eq!(
            container["Labels"],
            json!({"base": "yes", LABEL_CONFIGS: "/configs", "extra": "1"})
        );
        assert_eq!(config["history"].as_array().unwrap().len(), 4);

        // A base without a user or environment gets ours.
        let bare = catalog_config(Map::new(), &BTreeMap::new(), 1_700_000_000, 3);
        let bare = Value::Object(bare);
        // A base without a history gets an entry per layer, then ours.
        assert_eq!(bare["history"].as_array().unwrap().len(), 5);
        assert_eq!(bare["config"]["User"], "1001");
        assert_eq!(bare["config"]["Env"], json!([PATH_ENV]));
        assert_eq!(bare["created"], "2023-11-14T22:13:20Z");
    }

    #[test]
    fn base_configs_that_cannot_be_built_on_are_refused() {
        for (bad, message) in [
            (&b"[]"[..], "not a JSON object"),
            (br#"{"os":"linux"}"#, "no rootfs.diff_ids"),
            (
                br#"{"os":"windows","rootfs":{"diff_ids":[]}}"#,
                "not a linux image",
            ),
        ] {
            let error = parse_base_config(bad, "b").unwrap_err().to_string();
            assert!(error.contains(message), "{error}");
        }
    }
}
