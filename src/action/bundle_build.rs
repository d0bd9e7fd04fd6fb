//! `opm bundle build` (also `opm alpha bundle build`): generate the bundle's
//! metadata and Dockerfile (upstream's `generate` with `--overwrite`),
//! validate the bundle, then build its image with a container tool or
//! without one (an OCI archive, an OCI layout, or a push).
//!
//! Nothing is left behind by a failure: generated files stay staged while
//! the bundle is validated on a private copy of what the image will hold,
//! and are committed only right before the image is built, undone if that
//! fails. No printing: progress lines go to the caller's callback, the
//! validation report is returned.

use crate::action::bundle_generate::{
    parse_annotations_file, GenerateBundle, GenerateError, GeneratedBundle, CHANNELS_LABEL,
    DEFAULT_CHANNEL_LABEL, MEDIATYPE_LABEL, PACKAGE_LABEL, SEED_MEDIATYPE_LABEL,
};
use crate::bundle::validate::{validate_bundle_dir, BundleReport, Options};
use crate::declcfg::load::io_message;
use crate::fsutil::{Batch, StageError};
use crate::image::tool::{ContainerTool, ExecError};
use crate::image::{build, PullOptions};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What to build from.
#[derive(Debug, Clone)]
pub struct BuildBundle {
    /// Generation, with `overwrite` = `--overwrite`.
    pub generate: GenerateBundle,
    pub skip_validation: bool,
}

/// Where the image goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// `<tool> build -f bundle.Dockerfile -t <tag> .` in the working
    /// directory; the image stays in the tool's storage.
    Tool { tool: ContainerTool, tag: String },
    /// Built without a container tool.
    Daemonless(Destination),
}

/// Where a daemonless build puts the image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// An OCI image archive (gzip-compressed when `gzip`), its image named
    /// `tag`.
    Archive {
        path: PathBuf,
        gzip: bool,
        tag: String,
    },
    /// An OCI image layout directory, its image named `tag`.
    Layout { dir: PathBuf, tag: String },
    /// Pushed to a registry.
    Push { reference: String },
}

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Generate(#[from] GenerateError),
    #[error("{op} {}: {}", .path.display(), io_message(.error))]
    Io {
        op: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("read {}: {message}", .path.display())]
    Annotations { path: PathBuf, message: String },
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error(transparent)]
    Image(#[from] build::BuildError),
    #[error(transparent)]
    Input(#[from] crate::fsutil::InputError),
}

impl From<StageError> for BuildError {
    fn from(error: StageError) -> BuildError {
        BuildError::Io {
            op: error.op,
            path: error.path,
            error: error.source,
        }
    }
}

/// A bundle generated (staged, not yet in place) and checked, ready to be
/// built. Dropping it leaves every file as it was.
#[derive(Debug)]
pub struct Prepared {
    pub generated: GeneratedBundle,
    /// `None` with `skip_validation`.
    pub report: Option<BundleReport>,
    batch: Batch,
    /// `manifests/`, `metadata/` (and `tests/scorecard/`) as the image will
    /// hold them.
    view: crate::fsutil::TempDir,
    labels: BTreeMap<String, String>,
    working_dir: PathBuf,
}

impl BuildBundle {
    /// Generates (staged) and validates the bundle.
    pub fn prepare(&self, progress: &mut dyn FnMut(&str)) -> Result<Prepared, BuildError> {
        let given = &self.generate.directory;
        // Upstream stats the directory as given, before generating.
        if let Err(error) = std::fs::metadata(self.generate.working_dir.join(given)) {
            return Err(GenerateError::Stat {
                path: given.clone(),
                error,
            }
            .into());
        }
        let generate = self.with_existing_annotations()?;
        let (generated, batch) = generate.stage(progress)?;
        let view =
            crate::fsutil::TempDir::new("opm-bundle-", None).map_err(|error| BuildError::Io {
                op: "mkdir",
                path: std::env::temp_dir(),
                error,
            })?;
        assemble_view(&generated, &batch, view.path())?;
        let annotations_path = view.path().join("metadata/annotations.yaml");
        let bytes = std::fs::read(&annotations_path).map_err(|error| BuildError::Io {
            op: "open",
            path: generated.metadata_dir.join("annotations.yaml"),
            error,
        })?;
        let mut labels =
            parse_annotations_file(&bytes).map_err(|message| BuildError::Annotations {
                path: generated.metadata_dir.join("annotations.yaml"),
                message,
            })?;
        // A CSV-less bundle annotated with the design's key (no `.v1`) also
        // gets the standard label, which tools read.
        if !labels.contains_key(MEDIATYPE_LABEL) {
            if let Some(value) = labels.get(SEED_MEDIATYPE_LABEL).cloned() {
                labels.insert(MEDIATYPE_LABEL.to_string(), value);
            }
        }
        // Findings name the files where the user has them: in the bundle directory.
        let shown_as = generated.metadata_dir.parent().map(|dir| {
            dir.strip_prefix(&generate.working_dir)
                .unwrap_or(dir)
                .to_path_buf()
        });
        let report = (!self.skip_validation).then(|| {
            let mut report = validate_bundle_dir(view.path(), &Options::default());
            report.locate(view.path(), shown_as.as_deref());
            report
        });
        Ok(Prepared {
            generated,
            report,
            batch,
            view,
            labels,
            working_dir: generate.working_dir,
        })
    }

    /// Without `--overwrite` an existing annotations file is kept, so the
    /// package, channels and default channel that are not given are taken
    /// from it (upstream infers them from a nested layout instead, which
    /// cannot succeed beside an existing `metadata/` directory).
    fn with_existing_annotations(&self) -> Result<GenerateBundle, BuildError> {
        let mut generate = self.generate.clone();
        if generate.overwrite {
            return Ok(generate);
        }
        let path = generate.annotations_path();
        let Ok(bytes) = crate::bundle::read_file(&path) else {
            return Ok(generate);
        };
        let existing = parse_annotations_file(&bytes)
            .map_err(|message| BuildError::Annotations { path, message })?;
        let fill = |value: &mut String, key: &str| {
            if value.is_empty() {
                if let Some(found) = existing.get(key) {
                    value.clone_from(found);
                }
            }
        };
        fill(&mut generate.package, PACKAGE_LABEL);
        fill(&mut generate.channels, CHANNELS_LABEL);
        fill(&mut generate.default_channel, DEFAULT_CHANNEL_LABEL);
        Ok(generate)
    }
}

impl Prepared {
    /// Puts the generated files in place and builds the image; when the
    /// build fails, the files are put back as they were.
    pub fn build(
        self,
        output: &Output,
        pull: &PullOptions,
        progress: &mut dyn FnMut(&str),
    ) -> Result<(), BuildError> {
        progress("Building bundle image");
        let Prepared {
            batch,
            view,
            labels,
            working_dir,
            ..
        } = self;
        let destination = match output {
            Output::Tool { tool, tag } => {
                // The tool reads bundle.Dockerfile and the bundle from disk.
                let undo = batch.commit_undoable()?;
                crate::image::tool::run(&tool.build_argv(tag), &working_dir)?;
                undo.keep();
                return Ok(());
            }
            Output::Daemonless(destination) => destination,
        };
        let image = build::build_bundle_image(view.path(), &labels)?;
        let undo = batch.commit_undoable()?;
        match destination {
            Destination::Archive { path, gzip, tag } => {
                build::write_oci_archive(&image, &working_dir.join(path), tag, *gzip)?;
                progress(&format!("Wrote {}", path.display()));
            }
            Destination::Layout { dir, tag } => {
                let target = working_dir.join(dir);
                let existed = target.exists();
                if let Err(error) = build::write_oci_layout(&image, &target, tag) {
                    if !existed {
                        let _ = std::fs::remove_dir_all(&target);
                    }
                    return Err(error.into());
                }
                progress(&format!("Wrote {}", dir.display()));
            }
            Destination::Push { reference } => {
                let digest = build::push(&image, reference, pull)?;
                progress(&format!("Pushed {reference}@{digest}"));
            }
        }
        undo.keep();
        Ok(())
    }
}

/// Copies into `view` what the image will hold once the batch is committed:
/// the manifests directory as `manifests/`, the metadata directory as
/// `metadata/`, and `tests/scorecard/` beside `metadata/` when present.
fn assemble_view(
    generated: &GeneratedBundle,
    batch: &Batch,
    view: &Path,
) -> Result<(), BuildError> {
    // The bundle directory: what links may point into.
    let root = generated
        .metadata_dir
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    copy_staged_tree(
        &generated.manifests_dir,
        &root,
        batch,
        &view.join("manifests"),
    )?;
    copy_staged_tree(
        &generated.metadata_dir,
        &root,
        batch,
        &view.join("metadata"),
    )?;
    let scorecard = root.join("tests/scorecard");
    if scorecard.is_dir() {
        copy_staged_tree(&scorecard, &root, batch, &view.join("tests/scorecard"))?;
    }
    Ok(())
}

/// Copies the files under `source` to `dest`, as they will be after the
/// batch is committed: staged contents replace (or add to) those on disk.
/// Symbolic links to files inside `root` are copied as files; a link out of
/// `root`, a FIFO, device or socket is refused (nothing outside the bundle may
/// end up in its image); linked directories are not followed.
fn copy_staged_tree(
    source: &Path,
    root: &Path,
    batch: &Batch,
    dest: &Path,
) -> Result<(), BuildError> {
    let io = |op: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |error| BuildError::Io { op, path, error }
    };
    let temporaries: BTreeSet<&Path> = batch.staged().map(|(_, temp)| temp).collect();
    let mut files: BTreeMap<PathBuf, PathBuf> = BTreeMap::new();
    if source.is_dir() {
        for entry in walkdir::WalkDir::new(source).sort_by_file_name() {
            let entry = entry.map_err(|e| {
                let path = e.path().unwrap_or(source).to_path_buf();
                io("open", &path)(e.into())
            })?;
            let path = entry.path();
            if entry.file_type().is_dir() || temporaries.contains(path) {
                continue;
            }
            if entry.file_type().is_symlink() && path.is_dir() {
                continue;
            }
            crate::fsutil::check_input(path, root)?;
            if let Ok(relative) = path.strip_prefix(source) {
                files.insert(relative.to_path_buf(), path.to_path_buf());
            }
        }
    }
    for (target, temp) in batch.staged() {
        if let Ok(relative) = target.strip_prefix(source) {
            files.insert(relative.to_path_buf(), temp.to_path_buf());
        }
    }
    std::fs::create_dir_all(dest).map_err(io("mkdir", dest))?;
    for (relative, from) in files {
        let to = dest.join(&relative);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(io("mkdir", parent))?;
        }
        std::fs::copy(&from, &to).map_err(io("open", &from))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: foo.v0.1.0\nspec:\n  version: 0.1.0\n";

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, contents) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, contents).unwrap();
        }
        dir
    }

    fn input(dir: &Path, directory: &str) -> BuildBundle {
        BuildBundle {
            generate: GenerateBundle {
                directory: PathBuf::from(directory),
                output_dir: None,
                package: String::new(),
                channels: String::new(),
                default_channel: String::new(),
                base_image: "scratch".to_string(),
                overwrite: false,
                working_dir: dir.to_path_buf(),
            },
            skip_validation: false,
        }
    }

    fn listing(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        walkdir::WalkDir::new(dir)
            .sort_by_file_name()
            .into_iter()
            .map(|e| {
                let e = e.unwrap();
                let bytes = if e.file_type().is_file() {
                    std::fs::read(e.path()).unwrap()
                } else {
                    Vec::new()
                };
                (e.path().to_path_buf(), bytes)
            })
            .collect()
    }

    #[test]
    fn the_view_holds_staged_files_and_nothing_is_in_place() {
        let dir = tree(&[
            ("bundle/my-manifests/csv.yaml", CSV),
            ("bundle/my-manifests/sub/extra.yaml", "kind: ConfigMap\n"),
            (
                "bundle/tests/scorecard/config.yaml",
                "kind: Configuration\n",
            ),
        ]);
        let before = listing(dir.path());
        let mut build = input(dir.path(), "bundle/my-manifests");
        build.generate.package = "foo".to_string();
        build.generate.channels = "stable".to_string();
        let prepared = build.prepare(&mut |_| {}).unwrap();
        let view = prepared.view.path();
        assert_eq!(
            std::fs::read_to_string(view.join("manifests/csv.yaml")).unwrap(),
            CSV
        );
        assert!(view.join("manifests/sub/extra.yaml").is_file());
        assert!(view.join("tests/scorecard/config.yaml").is_file());
        assert_eq!(prepared.labels[PACKAGE_LABEL], "foo");
        assert_eq!(prepared.labels[DEFAULT_CHANNEL_LABEL], "stable");
        assert!(prepared.report.is_some(), "validated");
        let names: Vec<_> = std::fs::read_dir(view.join("metadata"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["annotations.yaml"]);
        // Only staged: two temporary files and the new metadata directory.
        assert_eq!(listing(dir.path()).len(), before.len() + 3);
        assert!(!dir.path().join("bundle.Dockerfile").exists());
        drop(prepared);
        assert_eq!(listing(dir.path()), before);
    }

    #[test]
    fn missing_values_come_from_existing_annotations() {
        let annotations = "annotations:\n  operators.operatorframework.io.bundle.channel.default.v1: beta\n  operators.operatorframework.io.bundle.channels.v1: stable,beta\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  operators.operatorframework.io.bundle.metadata.v1: metadata/\n  operators.operatorframework.io.bundle.package.v1: foo\n";
        let dir = tree(&[
            ("bundle/manifests/csv.yaml", CSV),
            ("bundle/metadata/annotations.yaml", annotations),
        ]);
        let prepared = input(dir.path(), "bundle/manifests")
            .prepare(&mut |_| {})
            .unwrap();
        assert!(!prepared.generated.annotations_written);
        assert_eq!(prepared.generated.default_channel, "beta");
        assert_eq!(prepared.labels[CHANNELS_LABEL], "stable,beta");

        let mut overwrite = input(dir.path(), "bundle/manifests");
        overwrite.generate.overwrite = true;
        assert!(matches!(
            overwrite.prepare(&mut |_| {}),
            Err(BuildError::Generate(GenerateError::Inference { .. }))
        ));
    }

    #[test]
    fn a_missing_directory_is_reported_as_given() {
        let dir = tree(&[]);
        let error = input(dir.path(), "nope").prepare(&mut |_| {}).unwrap_err();
        assert_eq!(error.to_string(), "stat nope: no such file or directory");
        assert_eq!(listing(dir.path()).len(), 1);
    }
}
