//! `opm bundle build` (also `opm alpha bundle build`): generate the bundle's
//! metadata and Dockerfile (upstream's `generate` with `--overwrite`),
//! validate the bundle, then build its image with a container tool or
//! without one (an OCI archive, an OCI layout, or a push).
//!
//! A container tool reads `bundle.Dockerfile` and the metadata from disk, so
//! those are written (upstream's behaviour); a build without one writes
//! nothing but its output: the generated annotations go into the image only.
//! Nothing is left behind by a failure: generated files stay staged while
//! the bundle is validated on a private copy of what the image will hold,
//! and are committed only right before the tool runs, undone if that fails.
//! No printing: progress lines go to the caller's callback, the validation
//! report is returned.

use crate::action::bundle_generate::{
    annotations_yaml, GenerateBundle, GenerateError, GeneratedBundle,
};
use crate::bundle::annotations::{
    self, CHANNELS_LABEL, DEFAULT_CHANNEL_LABEL, MEDIATYPE_LABEL, PACKAGE_LABEL,
    SEED_MEDIATYPE_LABEL,
};
use crate::bundle::validate::{validate, BundleReport, Options};
use crate::bundle::BundleDir;
use crate::declcfg::load::io_message;

use crate::fsutil::{Batch, StageError};
use crate::image::tool::{ContainerTool, ExecError};
use crate::image::{build, PullOptions};
pub use build::Destination;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What to build from, and where the image goes.
#[derive(Debug, Clone)]
pub struct BuildBundle {
    /// Generation, with `overwrite` = `--overwrite`.
    pub generate: GenerateBundle,
    pub skip_validation: bool,
    pub output: Output,
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
    #[error("read {}: {source}", .path.display())]
    Annotations {
        path: PathBuf,
        #[source]
        source: crate::bundle::annotations::ParseError,
    },
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error(transparent)]
    Image(#[from] build::BuildError),
    #[error(transparent)]
    Input(#[from] crate::fsutil::InputError),
    /// The output a daemonless build would write is already there.
    #[error(transparent)]
    Destination(#[from] build::destination::DestinationError),
    /// `--output-dir` asks for files; a daemonless build writes none.
    #[error("--output-dir cannot be used with {destination}: a build without a container tool writes nothing but the image (run \"opm bundle generate -u DIR\" to write the bundle's files)")]
    OutputDir { destination: String },
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
    /// The files a container tool reads; empty for a daemonless build.
    batch: Batch,
    /// `manifests/`, `metadata/` (and `tests/scorecard/`) as the image will
    /// hold them.
    view: crate::fsutil::TempDir,
    labels: BTreeMap<String, String>,
    working_dir: PathBuf,
    output: Output,
}

/// A file of the image that is not (yet) on disk: staged for a container
/// tool, or generated for the image only.
enum Contents<'a> {
    Staged(&'a Path),
    Generated(&'a [u8]),
}

impl BuildBundle {
    /// Generates (staged for a container tool, in memory otherwise) and
    /// validates the bundle; an output that is already there is refused
    /// first.
    pub fn prepare(&self, progress: &mut dyn FnMut(&str)) -> Result<Prepared, BuildError> {
        if let Output::Daemonless(destination) = &self.output {
            destination.check_free(&self.generate.working_dir)?;
            if self.generate.output_dir.is_some() {
                return Err(BuildError::OutputDir {
                    destination: destination.to_string(),
                });
            }
        }
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
        let (generated, batch, annotations) = match &self.output {
            Output::Tool { .. } => {
                let (generated, batch) = generate.stage(progress)?;
                (generated, batch, None)
            }
            Output::Daemonless(_) => {
                let resolved = generate.resolve(progress)?;
                let kept = generate.kept_annotations(&resolved.annotations, progress)?;
                let annotations_path = generate.annotations_path();
                let generated = GeneratedBundle {
                    media_type: resolved.media_type,
                    package: resolved.package,
                    channels: resolved.channels,
                    default_channel: resolved.default_channel,
                    manifests_dir: generate.working_dir.join(&generate.directory),
                    metadata_dir: annotations_path
                        .parent()
                        .unwrap_or(Path::new("/"))
                        .to_path_buf(),
                    annotations_written: false,
                    dockerfile_written: false,
                };
                let text = kept
                    .is_none()
                    .then(|| (annotations_path, annotations_yaml(&resolved.annotations)));
                (generated, Batch::new(), text)
            }
        };
        let view =
            crate::fsutil::TempDir::new("opm-bundle-", None).map_err(|error| BuildError::Io {
                op: "mkdir",
                path: std::env::temp_dir(),
                error,
            })?;
        let mut overlay: BTreeMap<PathBuf, Contents<'_>> = batch
            .staged()
            .map(|(target, temp)| (target.to_path_buf(), Contents::Staged(temp)))
            .collect();
        if let Some((path, text)) = &annotations {
            overlay.insert(path.clone(), Contents::Generated(text.as_bytes()));
        }
        let temporaries: BTreeSet<&Path> = batch.staged().map(|(_, temp)| temp).collect();
        assemble_view(&generated, &overlay, &temporaries, view.path())?;
        drop(overlay);
        // The view is read once: for its labels and for validation.
        let bundle = BundleDir::read(view.path());
        let bytes = bundle
            .metadata_file("annotations.yaml")
            .map_err(|error| BuildError::Io {
                op: "open",
                path: generated.metadata_dir.join("annotations.yaml"),
                error: error.into_io_error(),
            })?;
        let mut labels =
            annotations::parse_yaml(bytes).map_err(|source| BuildError::Annotations {
                path: generated.metadata_dir.join("annotations.yaml"),
                source,
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
            let mut report = validate(&bundle, &Options::default());
            report.locate(&bundle, shown_as.as_deref());
            report
        });
        Ok(Prepared {
            generated,
            report,
            batch,
            view,
            labels,
            working_dir: generate.working_dir,
            output: self.output.clone(),
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
        let existing = annotations::parse_yaml(&bytes)
            .map_err(|source| BuildError::Annotations { path, source })?;
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
    /// Builds the image. For a container tool the generated files are put
    /// in place first, and put back as they were when the build fails. A
    /// daemonless build returns the image's manifest digest.
    pub fn build(
        self,
        pull: &PullOptions,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Option<String>, BuildError> {
        progress("Building bundle image");
        let Prepared {
            batch,
            view,
            labels,
            working_dir,
            output,
            ..
        } = self;
        let destination = match output {
            Output::Tool { tool, tag } => {
                // The tool reads bundle.Dockerfile and the bundle from disk.
                let undo = batch.commit_undoable()?;
                crate::image::tool::run(&tool.build_argv(&tag), &working_dir)?;
                undo.keep();
                return Ok(None);
            }
            Output::Daemonless(destination) => destination,
        };
        let image = build::build_bundle_image(view.path(), &labels)?;
        let digest = destination.write(&image, &working_dir, pull, progress)?;
        Ok(Some(digest))
    }
}

/// Copies into `view` what the image will hold: the manifests directory as
/// `manifests/`, the metadata directory as `metadata/`, and
/// `tests/scorecard/` beside `metadata/` when present, with the files of
/// `overlay` in place of (or besides) those on disk; `temporaries` (staged
/// files beside their targets) are left out.
fn assemble_view(
    generated: &GeneratedBundle,
    overlay: &BTreeMap<PathBuf, Contents<'_>>,
    temporaries: &BTreeSet<&Path>,
    view: &Path,
) -> Result<(), BuildError> {
    // The bundle directory: what links may point into.
    let root = generated
        .metadata_dir
        .parent()
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let copy = |source: &Path, dest: &str| {
        copy_staged_tree(source, &root, overlay, temporaries, &view.join(dest))
    };
    copy(&generated.manifests_dir, "manifests")?;
    copy(&generated.metadata_dir, "metadata")?;
    let scorecard = root.join("tests/scorecard");
    if scorecard.is_dir() {
        copy(&scorecard, "tests/scorecard")?;
    }
    Ok(())
}

/// Copies the files under `source` to `dest`, with the contents of `overlay`
/// replacing (or adding to) those on disk.
/// Symbolic links to files inside `root` are copied as files; a link out of
/// `root`, a FIFO, device or socket is refused (nothing outside the bundle may
/// end up in its image); linked directories are not followed.
fn copy_staged_tree(
    source: &Path,
    root: &Path,
    overlay: &BTreeMap<PathBuf, Contents<'_>>,
    temporaries: &BTreeSet<&Path>,
    dest: &Path,
) -> Result<(), BuildError> {
    let io = |op: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |error| BuildError::Io { op, path, error }
    };
    // Each file of `dest`: a file to copy, or generated bytes.
    let mut files: BTreeMap<PathBuf, Result<PathBuf, &[u8]>> = BTreeMap::new();
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
                files.insert(relative.to_path_buf(), Ok(path.to_path_buf()));
            }
        }
    }
    for (target, contents) in overlay {
        if let Ok(relative) = target.strip_prefix(source) {
            let contents = match contents {
                Contents::Staged(temp) => Ok(temp.to_path_buf()),
                Contents::Generated(bytes) => Err(*bytes),
            };
            files.insert(relative.to_path_buf(), contents);
        }
    }
    std::fs::create_dir_all(dest).map_err(io("mkdir", dest))?;
    for (relative, contents) in files {
        let to = dest.join(&relative);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(io("mkdir", parent))?;
        }
        match contents {
            Ok(from) => {
                std::fs::copy(&from, &to).map_err(io("open", &from))?;
            }
            Err(bytes) => std::fs::write(&to, bytes).map_err(io("write", &to))?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: foo.v0.1.0\nspec:\n  version: 0.1.0\n";

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
            output: Output::Tool {
                tool: ContainerTool::Podman,
                tag: "example.com/foo:v1".to_string(),
            },
        }
    }

    fn daemonless(dir: &Path, directory: &str) -> BuildBundle {
        BuildBundle {
            output: Output::Daemonless(Destination::Archive {
                path: PathBuf::from("out.tar"),
                gzip: false,
                tag: "latest".to_string(),
            }),
            ..input(dir, directory)
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
        let dir = crate::testkit::tree(&[
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
    fn a_daemonless_build_writes_nothing_while_preparing() {
        let dir = crate::testkit::tree(&[
            ("bundle/manifests/csv.yaml", CSV),
            ("bundle/metadata/other.yaml", "kept: true\n"),
        ]);
        let before = listing(dir.path());
        let mut build = daemonless(dir.path(), "bundle/manifests");
        build.generate.package = "foo".to_string();
        build.generate.channels = "stable".to_string();
        let prepared = build.prepare(&mut |_| {}).unwrap();
        assert_eq!(listing(dir.path()), before, "nothing staged on disk");
        assert!(!prepared.generated.annotations_written);
        let view = prepared.view.path();
        let annotations = std::fs::read_to_string(view.join("metadata/annotations.yaml")).unwrap();
        assert!(annotations.contains("package.v1: foo\n"), "{annotations}");
        assert!(view.join("metadata/other.yaml").is_file());
        assert!(!view.join("bundle.Dockerfile").exists());
        assert_eq!(prepared.labels[PACKAGE_LABEL], "foo");
    }

    #[test]
    fn an_existing_output_is_refused_before_any_work() {
        // The manifests directory does not even exist: the output is checked first.
        let dir = crate::testkit::tree(&[("out.tar", "mine"), ("layout/index.json", "{}")]);
        let error = daemonless(dir.path(), "nope")
            .prepare(&mut |_| {})
            .unwrap_err();
        assert_eq!(error.to_string(), "path \"out.tar\": file already exists");
        let mut layout = daemonless(dir.path(), "nope");
        layout.output = Output::Daemonless(Destination::Layout {
            dir: PathBuf::from("layout"),
            tag: "latest".to_string(),
        });
        let error = layout.prepare(&mut |_| {}).unwrap_err();
        assert_eq!(
            error.to_string(),
            "path \"layout\": already exists and is not an empty directory"
        );
        let mut output_dir = daemonless(dir.path(), "nope");
        output_dir.generate.output_dir = Some(PathBuf::from("copy"));
        output_dir.output = Output::Daemonless(Destination::Archive {
            path: PathBuf::from("new.tar"),
            gzip: false,
            tag: "latest".to_string(),
        });
        assert!(matches!(
            output_dir.prepare(&mut |_| {}),
            Err(BuildError::OutputDir { .. })
        ));
    }

    #[test]
    fn missing_values_come_from_existing_annotations() {
        let annotations = "annotations:\n  operators.operatorframework.io.bundle.channel.default.v1: beta\n  operators.operatorframework.io.bundle.channels.v1: stable,beta\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  operators.operatorframework.io.bundle.metadata.v1: metadata/\n  operators.operatorframework.io.bundle.package.v1: foo\n";
        let dir = crate::testkit::tree(&[
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
        let dir = crate::testkit::tree(&[]);
        let error = input(dir.path(), "nope").prepare(&mut |_| {}).unwrap_err();
        assert_eq!(error.to_string(), "stat nope: no such file or directory");
        assert_eq!(listing(dir.path()).len(), 1);
    }
}
