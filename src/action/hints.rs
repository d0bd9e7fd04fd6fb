//! The next step after a failure, where it is obvious from what is on disk:
//! a directory that is not what the command expects (a bundle given where a
//! catalog goes, a directory of bundles, a bundle's `manifests/`, a bundle
//! root given as its manifests), or a container tool without its daemon.
//! Only looks; the command decides whether to say it.

use std::path::{Path, PathBuf};

/// A directory that holds bundles rather than a file-based catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotACatalog {
    /// A bundle directory (`manifests/` and `metadata/`).
    Bundle,
    /// A bundle's `manifests/`; `bundle` is the bundle directory, spelled
    /// from the path given.
    Manifests { bundle: String },
    /// A directory whose subdirectories (or their subdirectories) are
    /// bundles: the first few, spelled from the path given, sorted.
    Bundles { bundles: Vec<String>, more: bool },
}

/// How many bundles of a directory of bundles a hint names.
const NAMED: usize = 3;

/// What `dir` (as the user spelled it) holds, when it is bundles and not a
/// catalog.
pub fn not_a_catalog(dir: &str) -> Option<NotACatalog> {
    let path = Path::new(dir);
    if is_bundle(path) {
        return Some(NotACatalog::Bundle);
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    let named_manifests = path.file_name().is_some_and(|name| name == "manifests");
    if named_manifests && is_bundle(parent.unwrap_or(Path::new("."))) {
        let bundle = match parent {
            Some(parent) => parent.display().to_string(),
            None => ".".to_string(),
        };
        return Some(NotACatalog::Manifests { bundle });
    }
    let mut bundles: Vec<PathBuf> = walkdir::WalkDir::new(path)
        .min_depth(1)
        .max_depth(2)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_dir() && is_bundle(entry.path()))
        .map(walkdir::DirEntry::into_path)
        .collect();
    if bundles.is_empty() {
        return None;
    }
    let more = bundles.len() > NAMED;
    bundles.truncate(NAMED);
    Some(NotACatalog::Bundles {
        bundles: bundles
            .iter()
            .map(|bundle| bundle.display().to_string())
            .collect(),
        more,
    })
}

/// Whether `dir` is a bundle directory: `manifests/` and `metadata/`.
fn is_bundle(dir: &Path) -> bool {
    dir.join("manifests").is_dir() && dir.join("metadata").is_dir()
}

/// The manifests directory to use when `directory` (a `-d` value) is a
/// bundle root, with `manifests/` in it and no manifests of its own:
/// `bundle/manifests` for `bundle`.
pub fn manifests_of_bundle_root(directory: &str) -> Option<String> {
    let path = Path::new(directory);
    if !path.join("manifests").is_dir() {
        return None;
    }
    let has_manifests = std::fs::read_dir(path).ok()?.flatten().any(|entry| {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        entry.file_type().is_ok_and(|t| t.is_file())
            && (name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json"))
    });
    if has_manifests {
        return None;
    }
    Some(path.join("manifests").display().to_string())
}

/// Whether no Docker daemon can be reached: `DOCKER_HOST` (or the default
/// `/var/run/docker.sock`) names a socket that is not there. A TCP
/// `DOCKER_HOST` is taken to be reachable.
pub fn docker_daemon_missing() -> bool {
    let host = std::env::var("DOCKER_HOST").unwrap_or_default();
    let socket = match host.as_str() {
        "" => "/var/run/docker.sock",
        unix if unix.starts_with("unix://") => &unix["unix://".len()..],
        _ => return false,
    };
    std::fs::symlink_metadata(socket).is_err()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(dirs: &[&str]) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        for dir in dirs {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        root
    }

    #[test]
    fn bundles_are_told_from_catalogs() {
        let root = tree(&[
            "b/manifests",
            "b/metadata",
            "many/etcd/0.9.4/manifests",
            "many/etcd/0.9.4/metadata",
            "many/etcd/0.9.5/manifests",
            "many/etcd/0.9.5/metadata",
            "many/flat/manifests",
            "many/flat/metadata",
            "many/z/1/manifests",
            "many/z/1/metadata",
            "catalog/foo",
        ]);
        let at = |p: &str| root.path().join(p).display().to_string();
        assert_eq!(not_a_catalog(&at("b")), Some(NotACatalog::Bundle));
        assert_eq!(
            not_a_catalog(&at("b/manifests")),
            Some(NotACatalog::Manifests { bundle: at("b") })
        );
        assert_eq!(
            not_a_catalog(&at("many")),
            Some(NotACatalog::Bundles {
                bundles: vec![
                    at("many/etcd/0.9.4"),
                    at("many/etcd/0.9.5"),
                    at("many/flat")
                ],
                more: true,
            })
        );
        assert_eq!(not_a_catalog(&at("catalog")), None);
        assert_eq!(not_a_catalog(&at("missing")), None);
    }

    #[test]
    fn a_bundle_root_points_at_its_manifests() {
        let root = tree(&["b/manifests", "flat/manifests"]);
        std::fs::write(root.path().join("flat/csv.yaml"), "kind: x\n").unwrap();
        let at = |p: &str| root.path().join(p).display().to_string();
        assert_eq!(manifests_of_bundle_root(&at("b")), Some(at("b/manifests")));
        assert_eq!(manifests_of_bundle_root(&at("flat")), None);
        assert_eq!(manifests_of_bundle_root(&at("b/manifests")), None);
    }
}
