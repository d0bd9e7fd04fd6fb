//! Registry credentials from the files podman, skopeo and docker use, in
//! their order: `REGISTRY_AUTH_FILE`, `${XDG_RUNTIME_DIR}/containers/auth.json`,
//! `~/.config/containers/auth.json`, `$DOCKER_CONFIG/config.json` (or
//! `~/.docker/config.json`). Within a file, entries scoped to a namespace or
//! repository (`registry/namespace/repo`) win over broader ones, longest first.
//!
//! Secrets never reach `Debug` output or error messages.

use crate::encoding::base64;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A user name and password (or identity token) for one registry.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("username", &self.username)
            .field("password", &"<redacted>")
            .finish()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("read credentials file {path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("credentials file {path} is not valid JSON: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("credentials file {path}: the entry for {key} has an invalid \"auth\" value")]
    BadEntry { path: PathBuf, key: String },
}

/// Where to look for credential files, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthFiles {
    pub paths: Vec<PathBuf>,
}

impl AuthFiles {
    /// The search list for this process's environment.
    pub fn from_env() -> AuthFiles {
        AuthFiles::from_vars(|name| std::env::var_os(name).map(PathBuf::from))
    }

    /// The search list given a variable lookup (for tests).
    pub fn from_vars(var: impl Fn(&str) -> Option<PathBuf>) -> AuthFiles {
        let mut paths = Vec::new();
        if let Some(file) = var("REGISTRY_AUTH_FILE").filter(|p| !p.as_os_str().is_empty()) {
            paths.push(file);
        }
        if let Some(runtime) = var("XDG_RUNTIME_DIR").filter(|p| !p.as_os_str().is_empty()) {
            paths.push(runtime.join("containers/auth.json"));
        }
        let home = var("HOME").filter(|p| !p.as_os_str().is_empty());
        match var("XDG_CONFIG_HOME").filter(|p| !p.as_os_str().is_empty()) {
            Some(config) => paths.push(config.join("containers/auth.json")),
            None => {
                if let Some(home) = &home {
                    paths.push(home.join(".config/containers/auth.json"));
                }
            }
        }
        match var("DOCKER_CONFIG").filter(|p| !p.as_os_str().is_empty()) {
            Some(dir) => paths.push(dir.join("config.json")),
            None => {
                if let Some(home) = &home {
                    paths.push(home.join(".docker/config.json"));
                }
            }
        }
        AuthFiles { paths }
    }

    /// The credentials for `registry` (host[:port]) and `repository` (path
    /// without the registry), or `None` for anonymous access. Missing files
    /// are skipped; unreadable or malformed ones are errors.
    pub fn lookup(
        &self,
        registry: &str,
        repository: &str,
    ) -> Result<Option<Credentials>, AuthError> {
        for path in &self.paths {
            let text = match std::fs::read_to_string(path) {
                Ok(text) => text,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => {
                    return Err(AuthError::Read {
                        path: path.clone(),
                        message: crate::declcfg::load::io_message(&e),
                    })
                }
            };
            if let Some(found) = lookup_in(path, &text, registry, repository)? {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }
}

/// The keys to try for an image, most specific first: `reg/a/b/c`, `reg/a/b`,
/// `reg/a`, `reg` (plus docker.io's legacy spellings).
fn candidate_keys(registry: &str, repository: &str) -> Vec<String> {
    let components: Vec<&str> = repository.split('/').filter(|c| !c.is_empty()).collect();
    let mut keys: Vec<String> = (1..=components.len())
        .rev()
        .map(|n| format!("{registry}/{}", components[..n].join("/")))
        .collect();
    keys.push(registry.to_string());
    if registry == "docker.io" {
        keys.push("https://index.docker.io/v1/".to_string());
        keys.push("index.docker.io".to_string());
        keys.push("registry-1.docker.io".to_string());
    }
    keys
}

/// A registry key as written in a file, normalised: docker writes
/// `https://host/v1/`, podman writes `host` or `host/namespace`.
fn normalise_key(key: &str) -> String {
    let key = key
        .strip_prefix("https://")
        .or_else(|| key.strip_prefix("http://"))
        .unwrap_or(key);
    let key = key.trim_end_matches('/');
    // Docker's legacy `host/v1` and `host/v2` suffixes name the host only.
    let key = key
        .strip_suffix("/v1")
        .or_else(|| key.strip_suffix("/v2"))
        .unwrap_or(key);
    key.to_string()
}

fn lookup_in(
    path: &Path,
    text: &str,
    registry: &str,
    repository: &str,
) -> Result<Option<Credentials>, AuthError> {
    let value: Value = serde_json::from_str(text).map_err(|e| AuthError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let Some(auths) = value.get("auths").and_then(Value::as_object) else {
        return Ok(None);
    };
    // Normalised key → original key; several spellings of one key: the
    // lexically first original wins, so the choice is deterministic.
    let mut entries: BTreeMap<String, &str> = BTreeMap::new();
    for key in auths.keys() {
        entries.entry(normalise_key(key)).or_insert(key.as_str());
    }
    for candidate in candidate_keys(registry, repository) {
        let normalised = normalise_key(&candidate);
        let Some(original) = entries.get(&normalised) else {
            continue;
        };
        let entry = &auths[*original];
        if let Some(credentials) = entry_credentials(entry).map_err(|()| AuthError::BadEntry {
            path: path.to_path_buf(),
            key: (*original).to_string(),
        })? {
            return Ok(Some(credentials));
        }
    }
    Ok(None)
}

/// An entry's credentials: `auth` (base64 `user:password`), or
/// `username`/`password`, or an `identitytoken`.
fn entry_credentials(entry: &Value) -> Result<Option<Credentials>, ()> {
    let text = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or("");
    let auth = text("auth");
    if !auth.is_empty() {
        let decoded = base64::decode_go(auth.as_bytes()).map_err(|_| ())?;
        let decoded = String::from_utf8(decoded).map_err(|_| ())?;
        let (username, password) = decoded.split_once(':').ok_or(())?;
        return Ok(Some(Credentials {
            username: username.to_string(),
            password: password.to_string(),
        }));
    }
    let (username, password) = (text("username"), text("password"));
    if !username.is_empty() || !password.is_empty() {
        return Ok(Some(Credentials {
            username: username.to_string(),
            password: password.to_string(),
        }));
    }
    let token = text("identitytoken");
    if !token.is_empty() {
        // Docker's convention for identity tokens.
        return Ok(Some(Credentials {
            username: "<token>".to_string(),
            password: token.to_string(),
        }));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(user: &str, password: &str) -> String {
        base64::encode(format!("{user}:{password}").as_bytes())
    }

    fn files(contents: &[(&str, String)]) -> (tempfile::TempDir, AuthFiles) {
        let dir = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for (name, text) in contents {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            paths.push(path);
        }
        (dir, AuthFiles { paths })
    }

    #[test]
    fn search_order_follows_the_container_tools() {
        let env: BTreeMap<&str, &str> = [
            ("REGISTRY_AUTH_FILE", "/a/auth.json"),
            ("XDG_RUNTIME_DIR", "/run/user/0"),
            ("HOME", "/home/u"),
            ("DOCKER_CONFIG", "/d"),
        ]
        .into_iter()
        .collect();
        let files = AuthFiles::from_vars(|name| env.get(name).map(PathBuf::from));
        assert_eq!(
            files.paths,
            [
                "/a/auth.json",
                "/run/user/0/containers/auth.json",
                "/home/u/.config/containers/auth.json",
                "/d/config.json"
            ]
            .map(PathBuf::from)
        );
        let files = AuthFiles::from_vars(|name| (name == "HOME").then(|| PathBuf::from("/h")));
        assert_eq!(
            files.paths,
            ["/h/.config/containers/auth.json", "/h/.docker/config.json"].map(PathBuf::from)
        );
    }

    #[test]
    fn scoped_entries_win_longest_first() {
        let text = format!(
            r#"{{"auths": {{
                "reg.example:5000": {{"auth": "{}"}},
                "reg.example:5000/team": {{"auth": "{}"}},
                "reg.example:5000/team/app": {{"username": "app", "password": "p3"}}
            }}}}"#,
            auth("host", "p1"),
            auth("team", "p2")
        );
        let (_dir, files) = files(&[("auth.json", text)]);
        let who = |repo: &str| {
            files
                .lookup("reg.example:5000", repo)
                .unwrap()
                .map(|c| c.username)
        };
        assert_eq!(who("team/app").as_deref(), Some("app"));
        assert_eq!(who("team/other").as_deref(), Some("team"));
        assert_eq!(who("teamwork/x").as_deref(), Some("host"));
        assert_eq!(who("x").as_deref(), Some("host"));
        assert_eq!(files.lookup("other.example", "x").unwrap(), None);
    }

    #[test]
    fn earlier_files_win_and_missing_files_are_skipped() {
        let first = format!(
            r#"{{"auths": {{"r.io": {{"auth": "{}"}}}}}}"#,
            auth("one", "1")
        );
        let second = format!(
            r#"{{"auths": {{"r.io": {{"auth": "{}"}}}}}}"#,
            auth("two", "2")
        );
        let (dir, mut files) = files(&[("a.json", first), ("b.json", second)]);
        files.paths.insert(0, dir.path().join("missing.json"));
        let found = files.lookup("r.io", "x/y").unwrap().unwrap();
        assert_eq!(found.username, "one");
    }

    #[test]
    fn docker_hub_legacy_keys() {
        let text = format!(
            r#"{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{}"}}}}}}"#,
            auth("hub", "pw")
        );
        let (_dir, files) = files(&[("config.json", text)]);
        let found = files
            .lookup("docker.io", "library/busybox")
            .unwrap()
            .unwrap();
        assert_eq!(found.username, "hub");
    }

    #[test]
    fn secrets_stay_out_of_debug_and_errors() {
        let credentials = Credentials {
            username: "u".into(),
            password: "s3cret".into(),
        };
        assert!(!format!("{credentials:?}").contains("s3cret"));
        let (_dir, files) = files(&[(
            "auth.json",
            r#"{"auths": {"r.io": {"auth": "%%%s3cret"}}}"#.into(),
        )]);
        let error = files.lookup("r.io", "x").unwrap_err().to_string();
        assert!(!error.contains("s3cret"), "{error}");
        let (_dir, files) = self::files(&[("auth.json", "{not json".into())]);
        assert!(matches!(
            files.lookup("r.io", "x"),
            Err(AuthError::Parse { .. })
        ));
    }
}
