//! Manifests and image indexes: fetching one (its size capped while it
//! streams, its digest checked when the reference or index names one),
//! parsing OCI and Docker schema 2 forms, choosing a platform from an index,
//! and reading an image config's labels.

use super::blob::{valid_digest, Digest};
use super::error::{BlobKind, PullErrorKind};
use super::transport::Call;
use super::{Session, Subject};
use crate::encoding::json::go_quote;
use reqwest::Method;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;

/// Largest manifest or image index accepted (containers/image uses the same).
pub const MAX_MANIFEST_SIZE: u64 = 4 << 20;
/// Largest image config accepted (containers/image uses the same).
pub const MAX_CONFIG_SIZE: u64 = 4 << 20;

pub(super) const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";
const DOCKER_LIST: &str = "application/vnd.docker.distribution.manifest.list.v2+json";
const ACCEPTED_MANIFESTS: &[&str] = &[OCI_MANIFEST, OCI_INDEX, DOCKER_MANIFEST, DOCKER_LIST];

impl Session {
    /// Fetches the manifest `reference` (a tag or a digest) names. With
    /// `expected` (its digest, and the size an index declares), the body
    /// must match them. Returns the body and its digest.
    pub(super) async fn manifest(
        &self,
        reference: &str,
        expected: Option<(&Digest, Option<u64>)>,
    ) -> Result<(Vec<u8>, String), PullErrorKind> {
        let (name, what) = match expected {
            Some((digest, _)) => {
                let name = format!("manifest {}", go_quote(&digest.to_string()));
                (name.clone(), name)
            }
            None => (
                format!("tag {}", go_quote(reference)),
                format!("manifest of tag {}", go_quote(reference)),
            ),
        };
        if let Some((_, Some(size))) = expected {
            if size > MAX_MANIFEST_SIZE {
                return Err(PullErrorKind::TooLarge {
                    what,
                    limit: MAX_MANIFEST_SIZE,
                });
            }
        }
        let call = Call {
            registry: &self.registry,
            what: &what,
        };
        let path = format!("manifests/{reference}");
        let (path, subject) = (&path, &Subject::Named(name));
        let body = self
            .http
            .retrying(|deadline| async move {
                let request = self
                    .repository_request(Method::GET, path)
                    .header(reqwest::header::ACCEPT, ACCEPTED_MANIFESTS.join(", "));
                let response = self.http.send(request, deadline, true, call).await?;
                if !response.status().is_success() {
                    return Err(self.failure(response, deadline, call, subject).await);
                }
                self.http
                    .body(response, deadline, call)
                    .read_to_end(MAX_MANIFEST_SIZE)
                    .await
            })
            .await?;
        let size = body.len() as u64;
        let digest = match expected {
            Some((expected, declared)) => {
                let actual = expected.hash(&body);
                if actual != expected.to_string() {
                    return Err(PullErrorKind::DigestMismatch {
                        blob: BlobKind::Manifest,
                        digest: expected.to_string(),
                        actual,
                    });
                }
                if let Some(declared) = declared.filter(|&d| d != size) {
                    return Err(PullErrorKind::SizeMismatch {
                        blob: BlobKind::Manifest,
                        digest: expected.to_string(),
                        expected: declared,
                        actual: size,
                    });
                }
                actual
            }
            None => Digest::sha256().hash(&body),
        };
        Ok((body, digest))
    }

    /// The image manifest an image index entry names, checked and parsed.
    pub(super) async fn index_child(
        &self,
        entry: &Descriptor,
    ) -> Result<ImageManifest, PullErrorKind> {
        let digest = valid_digest(BlobKind::Manifest, &entry.digest)?;
        let (body, _) = self
            .manifest(&entry.digest, Some((&digest, Some(entry.size))))
            .await?;
        match parse_manifest(&body, &entry.digest)? {
            Manifest::Image(manifest) => Ok(manifest),
            Manifest::Index(_) => Err(PullErrorKind::UnsupportedManifest {
                name: entry.digest.clone(),
                reason: "an image index inside an image index".to_string(),
            }),
        }
    }
}

/// A content descriptor (`mediaType`, `digest`, `size`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Descriptor {
    #[serde(default)]
    pub(super) media_type: String,
    pub(super) digest: String,
    pub(super) size: u64,
    #[serde(default)]
    pub(super) platform: Option<Platform>,
}

impl Descriptor {
    /// The verified layer this descriptor names, once its blob is at `path`.
    pub(super) fn layer(&self, path: std::path::PathBuf) -> crate::image::Layer {
        crate::image::Layer {
            path,
            media_type: self.media_type.clone(),
            digest: self.digest.clone(),
            size: self.size,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawManifest {
    schema_version: Option<i64>,
    #[serde(default)]
    media_type: Option<String>,
    #[serde(default)]
    config: Option<Descriptor>,
    #[serde(default)]
    layers: Option<Vec<Descriptor>>,
    #[serde(default)]
    manifests: Option<Vec<Descriptor>>,
}

#[derive(Debug)]
pub(super) struct ImageManifest {
    pub(super) config: Descriptor,
    pub(super) layers: Vec<Descriptor>,
}

impl ImageManifest {
    /// Refuses an image whose layers together announce more than [`super::MAX_LAYERS_SIZE`]
    /// bytes, before any of them is fetched.
    pub(super) fn check_layers_size(&self) -> Result<(), PullErrorKind> {
        let total = self
            .layers
            .iter()
            .fold(0u64, |sum, layer| sum.saturating_add(layer.size));
        if total > super::MAX_LAYERS_SIZE {
            return Err(PullErrorKind::TooLarge {
                what: format!("the layer data of the image ({total} bytes)"),
                limit: super::MAX_LAYERS_SIZE,
            });
        }
        Ok(())
    }
}

#[derive(Debug)]
pub(super) struct ImageIndex {
    pub(super) manifests: Vec<Descriptor>,
}

#[derive(Debug)]
pub(super) enum Manifest {
    Image(ImageManifest),
    Index(ImageIndex),
}

/// Parses an OCI or Docker schema 2 image manifest or index.
pub(super) fn parse_manifest(body: &[u8], name: &str) -> Result<Manifest, PullErrorKind> {
    let invalid = |message: String| PullErrorKind::InvalidContent {
        blob: BlobKind::Manifest,
        name: name.to_string(),
        message,
    };
    let unsupported = |reason: String| PullErrorKind::UnsupportedManifest {
        name: name.to_string(),
        reason,
    };
    let raw: RawManifest = serde_json::from_slice(body).map_err(|e| invalid(e.to_string()))?;
    if raw.schema_version != Some(2) {
        return Err(unsupported(match raw.schema_version {
            Some(version) => format!("schema version {version} (only version 2 is supported)"),
            None => "no schema version".to_string(),
        }));
    }
    let is_index = match raw.media_type.as_deref() {
        Some(OCI_INDEX | DOCKER_LIST) => true,
        Some(OCI_MANIFEST | DOCKER_MANIFEST) => false,
        Some(other) => return Err(unsupported(format!("media type {}", go_quote(other)))),
        None => raw.manifests.is_some(),
    };
    if is_index {
        let manifests = raw
            .manifests
            .ok_or_else(|| invalid("an image index without \"manifests\"".to_string()))?;
        return Ok(Manifest::Index(ImageIndex { manifests }));
    }
    let config = raw
        .config
        .ok_or_else(|| invalid("an image manifest without \"config\"".to_string()))?;
    Ok(Manifest::Image(ImageManifest {
        config,
        layers: raw.layers.unwrap_or_default(),
    }))
}

/// The labels of an image config (`config.Labels`, possibly absent or null).
pub(super) fn config_labels(
    body: &[u8],
    digest: &str,
) -> Result<BTreeMap<String, String>, PullErrorKind> {
    #[derive(Deserialize)]
    struct ConfigFile {
        #[serde(default)]
        config: Option<ContainerConfig>,
    }
    #[derive(Deserialize)]
    struct ContainerConfig {
        #[serde(default, rename = "Labels")]
        labels: Option<BTreeMap<String, String>>,
    }
    let file: ConfigFile =
        serde_json::from_slice(body).map_err(|e| PullErrorKind::InvalidContent {
            blob: BlobKind::Config,
            name: digest.to_string(),
            message: e.to_string(),
        })?;
    Ok(file.config.and_then(|c| c.labels).unwrap_or_default())
}

/// An image platform: `os/architecture[/variant]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Platform {
    #[serde(default)]
    pub os: String,
    #[serde(default)]
    pub architecture: String,
    #[serde(default)]
    pub variant: Option<String>,
}

impl Platform {
    /// Parses `os/arch[/variant]`.
    pub fn parse(text: &str) -> Option<Platform> {
        let mut parts = text.split('/');
        let os = parts.next().filter(|s| !s.is_empty())?;
        let architecture = parts.next().filter(|s| !s.is_empty())?;
        let variant = match parts.next() {
            Some("") => return None,
            Some(v) => Some(v.to_string()),
            None => None,
        };
        if parts.next().is_some() {
            return None;
        }
        Some(Platform {
            os: os.to_string(),
            architecture: architecture.to_string(),
            variant,
        })
    }

    /// The platform this program runs on, in OCI (Go) spelling.
    pub fn host() -> Platform {
        let os = match std::env::consts::OS {
            "macos" => "darwin",
            other => other,
        };
        let (architecture, variant) = match std::env::consts::ARCH {
            "x86_64" => ("amd64", None),
            "x86" => ("386", None),
            "aarch64" => ("arm64", None),
            "arm" => ("arm", Some("v7")),
            "powerpc64" if cfg!(target_endian = "little") => ("ppc64le", None),
            "loongarch64" => ("loong64", None),
            other => (other, None),
        };
        Platform {
            os: os.to_string(),
            architecture: architecture.to_string(),
            variant: variant.map(str::to_string),
        }
    }

    fn linux_amd64() -> Platform {
        Platform {
            os: "linux".to_string(),
            architecture: "amd64".to_string(),
            variant: None,
        }
    }

    /// Whether an index entry's platform satisfies this wanted platform: no
    /// wanted variant accepts any; arm64's variant `v8` is its default.
    fn accepts(&self, candidate: &Platform) -> bool {
        let normal = |p: &Platform| match (p.architecture.as_str(), p.variant.as_deref()) {
            ("arm64", Some("v8")) => None,
            (_, variant) => variant.map(str::to_string),
        };
        self.os == candidate.os
            && self.architecture == candidate.architecture
            && (self.variant.is_none() || normal(self) == normal(candidate))
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.os, self.architecture)?;
        if let Some(variant) = &self.variant {
            write!(f, "/{variant}")?;
        }
        Ok(())
    }
}

/// Picks the entry of an image index to pull: the wanted platform, or else
/// linux/amd64 if present, else the host's platform.
pub(super) fn select_platform<'a>(
    entries: &'a [Descriptor],
    wanted: Option<&Platform>,
) -> Result<(&'a Descriptor, Platform), PullErrorKind> {
    let candidates: Vec<Platform> = match wanted {
        Some(platform) => vec![platform.clone()],
        None => {
            let host = Platform::host();
            let amd64 = Platform::linux_amd64();
            if host.accepts(&amd64) {
                vec![amd64]
            } else {
                vec![amd64, host]
            }
        }
    };
    for candidate in &candidates {
        let found = entries.iter().find_map(|entry| {
            let platform = entry.platform.as_ref()?;
            candidate
                .accepts(platform)
                .then(|| (entry, platform.clone()))
        });
        if let Some(found) = found {
            return Ok(found);
        }
    }
    let available = entries
        .iter()
        .filter_map(|e| e.platform.as_ref())
        .filter(|p| p.os != "unknown" && p.architecture != "unknown")
        .map(Platform::to_string)
        .collect();
    Err(PullErrorKind::NoPlatform {
        wanted: candidates.iter().map(Platform::to_string).collect(),
        available,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(platform: &str, digest: char) -> Descriptor {
        Descriptor {
            media_type: OCI_MANIFEST.to_string(),
            digest: format!("sha256:{}", digest.to_string().repeat(64)),
            size: 10,
            platform: Platform::parse(platform),
        }
    }

    #[test]
    fn platform_parse_and_display() {
        for (text, ok) in [
            ("linux/amd64", true),
            ("linux/arm/v7", true),
            ("linux", false),
            ("linux/", false),
            ("/amd64", false),
            ("linux/arm/", false),
            ("a/b/c/d", false),
        ] {
            let parsed = Platform::parse(text);
            assert_eq!(parsed.is_some(), ok, "{text}");
            if let Some(p) = parsed {
                assert_eq!(p.to_string(), text);
            }
        }
    }

    #[test]
    fn index_prefers_linux_amd64() {
        let entries = [
            entry("linux/arm64", 'a'),
            entry("linux/amd64", 'b'),
            entry("unknown/unknown", 'c'),
        ];
        let (chosen, platform) = select_platform(&entries, None).unwrap();
        assert_eq!(chosen.digest, entries[1].digest);
        assert_eq!(platform.to_string(), "linux/amd64");
    }

    #[test]
    fn index_honours_the_wanted_platform_and_variants() {
        let entries = [
            entry("linux/amd64", 'a'),
            entry("linux/arm/v6", 'b'),
            entry("linux/arm/v7", 'c'),
            entry("linux/arm64/v8", 'd'),
        ];
        let pick = |wanted: &str| {
            select_platform(&entries, Platform::parse(wanted).as_ref())
                .map(|(e, p)| (e.digest.chars().last().unwrap(), p.to_string()))
        };
        assert_eq!(pick("linux/arm/v7").unwrap(), ('c', "linux/arm/v7".into()));
        assert_eq!(pick("linux/arm").unwrap(), ('b', "linux/arm/v6".into()));
        assert_eq!(pick("linux/arm64").unwrap(), ('d', "linux/arm64/v8".into()));
        assert_eq!(pick("linux/arm64/v8").unwrap().0, 'd');
        let error = pick("linux/s390x").unwrap_err().to_string();
        assert_eq!(
            error,
            "no image for platform \"linux/s390x\" in the image index \
             (it has linux/amd64, linux/arm/v6, linux/arm/v7, linux/arm64/v8)"
        );
    }

    #[test]
    fn index_without_amd64_falls_back_to_the_host() {
        let host = Platform::host();
        let entries = [entry("linux/s390x", 'a'), entry(&host.to_string(), 'b')];
        let result = select_platform(&entries, None);
        if host.accepts(&Platform::linux_amd64()) {
            let (chosen, _) = result.unwrap();
            assert_eq!(chosen.digest, entries[1].digest);
        } else {
            assert_eq!(result.unwrap().1, host);
        }
        let only_other = [entry("windows/riscv64", 'a')];
        let error = select_platform(&only_other, None).unwrap_err();
        assert!(matches!(error, PullErrorKind::NoPlatform { .. }));
        assert!(error.to_string().contains("\"linux/amd64\""), "{error}");
    }

    #[test]
    fn manifests_of_both_formats_and_indexes_parse() {
        let docker = br#"{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",
            "config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"sha256:aa","size":3},
            "layers":[{"mediaType":"application/vnd.docker.image.rootfs.diff.tar.gzip","digest":"sha256:bb","size":4}]}"#;
        let Manifest::Image(image) = parse_manifest(docker, "x").unwrap() else {
            panic!("not an image manifest");
        };
        assert_eq!(image.layers.len(), 1);
        assert_eq!(image.config.size, 3);
        let index = br#"{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json",
            "digest":"sha256:cc","size":5,"platform":{"os":"linux","architecture":"amd64"}}]}"#;
        assert!(matches!(
            parse_manifest(index, "x").unwrap(),
            Manifest::Index(_)
        ));
        let v1 = br#"{"schemaVersion":1,"name":"x","tag":"y","fsLayers":[]}"#;
        let error = parse_manifest(v1, "x").unwrap_err().to_string();
        assert!(error.contains("schema version 1"), "{error}");
        let error = parse_manifest(b"{", "x").unwrap_err();
        assert!(matches!(error, PullErrorKind::InvalidContent { .. }));
    }

    #[test]
    fn labels_come_from_the_config() {
        let labels =
            config_labels(br#"{"config":{"Labels":{"a":"1","b":"2"}}}"#, "sha256:x").unwrap();
        assert_eq!(labels.len(), 2);
        assert!(config_labels(br#"{"config":{"Labels":null}}"#, "d")
            .unwrap()
            .is_empty());
        assert!(config_labels(br#"{}"#, "d").unwrap().is_empty());
        assert!(config_labels(br#"{"config":{"Labels":{"a":1}}}"#, "d").is_err());
    }
}
