//! Bundle media types and their detection from a manifests directory
//! (upstream's `GetMediaType`): Helm chart, registry+v1 (a CSV), or plain.

use crate::bundle::files::{Entry, Listing};
use crate::fsutil::InputError;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MediaType {
    RegistryV1,
    RegistryV2,
    Plain,
    Helm,
}

impl MediaType {
    /// The annotation value `generate` writes.
    pub fn as_str(self) -> &'static str {
        match self {
            MediaType::RegistryV1 => "registry+v1",
            MediaType::RegistryV2 => "registry+v2",
            MediaType::Plain => "plain",
            MediaType::Helm => "helm",
        }
    }

    /// The media type as CSV-less tooling writes it: `plain+v0` for plain
    /// bundles (what `init` writes and the `olm.bundle.mediatype` property
    /// holds), where `generate` keeps upstream's `plain`.
    pub fn label(self) -> &'static str {
        match self {
            MediaType::Plain => "plain+v0",
            other => other.as_str(),
        }
    }

    /// Reads an annotation value; `plain` and `plain+v0` are the same type.
    pub fn parse(value: &str) -> Option<MediaType> {
        match value {
            "registry+v1" => Some(MediaType::RegistryV1),
            "registry+v2" => Some(MediaType::RegistryV2),
            "plain" | "plain+v0" => Some(MediaType::Plain),
            "helm" => Some(MediaType::Helm),
            _ => None,
        }
    }
}

/// The documents of a manifest file that are JSON objects carrying a
/// non-empty `kind` (what upstream's decoder accepts as an object). Every
/// document is read, not only the first (a deliberate difference from
/// upstream); a file that was not read or does not decode yields nothing.
pub fn objects(entry: &Entry) -> Vec<std::borrow::Cow<'_, Value>> {
    let Ok(Ok(documents)) = entry.documents() else {
        return Vec::new();
    };
    documents
        .iter()
        .filter_map(|document| document.value().ok())
        .filter(|value| {
            value
                .get("kind")
                .and_then(Value::as_str)
                .is_some_and(|k| !k.is_empty())
        })
        .collect()
}

/// Why upstream's media-type detection failed; `Display` is upstream's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DetectError {
    /// No file directly inside the directory.
    #[error("The directory {} contains no yaml files", .dir.display())]
    NoFiles { dir: std::path::PathBuf },
    /// A file that could not be opened or read. Upstream's message leaves out the OS error, so
    /// it is kept here but not offered as the cause (an error chain would print it).
    #[error("Unable to read file {} in bundle", .path.display())]
    Unreadable {
        path: std::path::PathBuf,
        error: InputError,
    },
    /// A file the safe reader refuses (not a regular file, a link out of the bundle, over the
    /// size limit).
    #[error(transparent)]
    Refused(InputError),
}

/// Upstream's media-type detection over the files directly inside a listed
/// directory (lexical order; sub-directories are ignored), reading every
/// document of each file.
pub fn detect(listing: &Listing) -> Result<MediaType, DetectError> {
    let files: Vec<&Entry> = listing
        .entries_or_none()
        .iter()
        .filter(|e| !e.is_dir())
        .collect();
    if files.is_empty() {
        return Err(DetectError::NoFiles {
            dir: listing.dir().to_path_buf(),
        });
    }
    let mut has_csv = false;
    let mut is_chart = false;
    for entry in files {
        let bytes = entry.bytes().map_err(|e| match e {
            InputError::Io { .. } => DetectError::Unreadable {
                path: entry.path().to_path_buf(),
                error: e.clone(),
            },
            refused => DetectError::Refused(refused.clone()),
        })?;
        if entry.name() == "Chart.yaml" && chart_name(bytes).is_some_and(|n| !n.is_empty()) {
            is_chart = true;
        }
        if objects(entry)
            .iter()
            .any(|o| o.get("kind").and_then(Value::as_str) == Some("ClusterServiceVersion"))
        {
            has_csv = true;
        }
    }
    Ok(if is_chart {
        MediaType::Helm
    } else if has_csv {
        MediaType::RegistryV1
    } else {
        MediaType::Plain
    })
}

/// The `name` of a Helm `Chart.yaml`.
fn chart_name(bytes: &[u8]) -> Option<String> {
    let value = crate::encoding::yaml_read::yaml_bytes_to_json(bytes).ok()?;
    value
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], Result<MediaType, ()>);

    #[test]
    fn detection() {
        let csv = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: x}\n";
        let cases: &[Case<'_>] = &[
            ("csv", &[("csv.yaml", csv)], Ok(MediaType::RegistryV1)),
            (
                "csv-json",
                &[("csv.json", "{\"kind\": \"ClusterServiceVersion\"}")],
                Ok(MediaType::RegistryV1),
            ),
            ("readme", &[("README.md", "# hi\n")], Ok(MediaType::Plain)),
            (
                "csv-in-subdir",
                &[("sub/csv.yaml", csv), ("cm.yaml", "kind: ConfigMap\n")],
                Ok(MediaType::Plain),
            ),
            (
                "csv-second-doc",
                &[("all.yaml", &format!("kind: ConfigMap\n---\n{csv}"))],
                Ok(MediaType::RegistryV1),
            ),
            (
                "chart",
                &[("Chart.yaml", "name: x\n"), ("csv.yaml", csv)],
                Ok(MediaType::Helm),
            ),
            ("empty", &[], Err(())),
        ];
        for (name, files, expected) in cases {
            let d = crate::testkit::tree(files);
            let listing = Listing::read(d.path());
            assert_eq!(detect(&listing).map_err(|_| ()), *expected, "{name}");
        }
    }
}
