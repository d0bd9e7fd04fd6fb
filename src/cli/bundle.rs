//! `opm bundle …` (also `opm alpha bundle …`): clap types only.

use super::OneOf;
use clap::{Args, Subcommand};

/// The `-b/--image-builder` values of the commands that pull a bundle image.
pub const PULL_IMAGE_BUILDERS: &[&str] = &["none", "docker", "podman"];
/// The `-b/--image-builder` values of `bundle build`.
pub const BUILD_IMAGE_BUILDERS: &[&str] = &["docker", "podman", "buildah", "none"];
/// The `-m/--mediatype` values of `bundle init`.
pub const MEDIA_TYPES: &[&str] = &["registry+v1", "registry+v2", "plain+v0"];

#[derive(Debug, Args)]
#[command(subcommand_value_name = "command")]
pub struct BundleArgs {
    #[command(subcommand)]
    pub command: BundleCommand,
}

#[derive(Debug, Subcommand)]
pub enum BundleCommand {
    /// Generate operator bundle metadata and Dockerfile
    #[command(long_about = GENERATE_LONG)]
    Generate(BundleGenerateArgs),
    /// Build operator bundle image
    #[command(long_about = BUILD_LONG)]
    Build(BundleBuildArgs),
    /// Validate bundle image or directory
    #[command(long_about = VALIDATE_LONG)]
    Validate(BundleValidateArgs),
    /// Unpacks the content of an operator bundle
    #[command(long_about = "Unpacks the content of an operator bundle into a directory")]
    Unpack(BundleUnpackArgs),
    /// List the objects OLM applies for a bundle, as a YAML stream
    #[command(long_about = LIST_LONG)]
    List(BundleListArgs),
    /// Initialize a bundle in the current directory
    #[command(long_about = INIT_LONG)]
    Init(BundleInitArgs),
}

const LIST_LONG: &str = "The \"opm bundle list\" command prints the Kubernetes objects OLM applies
for a bundle directory or bundle image, as a YAML stream (one document per
object, each preceded by ---), ready for kubectl apply -f -.

registry+v1: the CustomResourceDefinitions, the ClusterServiceVersion, then
  the other objects.
registry+v2: the CustomResourceDefinitions, a ClusterServiceVersion
  synthesised from metadata/bundle.yaml, the Deployments and the RBAC, then
  the objects it does not carry.
plain+v0: every object, in file order.

$ opm bundle list .
$ opm bundle list image://quay.io/my/bundle:v1.0.0 > manifests.yaml
$ opm bundle list . -o json | kubectl apply -f -";

const GENERATE_LONG: &str = "The \"opm alpha bundle generate\" command will generate operator
bundle metadata if needed and a Dockerfile to build Operator bundle image.

$ opm alpha bundle generate --directory /test/0.1.0/ --package test-operator \\
	--channels stable,beta --default stable

Note:
* All manifests yaml must be in the same directory.";

const BUILD_LONG: &str = "The \"opm bundle build\" command will generate operator
bundle metadata if needed and build a bundle image with operator manifests
and metadata for a specific version: with a container tool from the
generated bundle.Dockerfile, or without one (--image-builder none) into an
OCI archive, an OCI layout or straight to a registry.

$ opm bundle build --directory /test/0.1.0/ --tag quay.io/example/test-operator:v0.1.0 \\
	--package test-operator --channels stable,beta --default stable
$ opm bundle build ./bundle file://bundle.tar.gz
$ opm bundle build ./bundle image://quay.io/example/test-operator:v0.1.0

Note:
* Bundle manifests must be present in the bundle directory.
* The bundle is validated first (as \"opm bundle validate\" does); an invalid
  bundle is not built and no file is changed (--skip-validation skips this).";

const VALIDATE_LONG: &str = "The \"opm bundle validate\" command validates a bundle directory or a
bundle image: its format (manifests/ and metadata/, annotations, dependencies),
its content (supported kinds, ClusterServiceVersion and CustomResourceDefinition
rules, object metadata) and, on request, optional validators.

$ opm bundle validate ./my-operator/0.1.0/
$ opm bundle validate --tag quay.io/test/test-operator:latest";

const INIT_LONG: &str = "The \"opm bundle init\" command initializes the current directory as a
bundle: manifests/ and metadata/ (annotations.yaml, and dependencies.yaml or
bundle.yaml as the media type needs), plus a Dockerfile with -d.

SRC is a directory whose .yaml, .yml and .json files are copied into
manifests/, or - to read a YAML/JSON stream from stdin (one file per object).
When SRC holds no manifests, default resources are generated: a
ClusterServiceVersion for registry+v1, a Deployment otherwise. Without
--mediatype, the media type is inferred from the manifests: a
ClusterServiceVersion means registry+v1, else a Deployment means registry+v2,
else plain+v0. Existing files are never overwritten: if any file would be
replaced, or manifests/ or metadata/ is not empty, nothing is written.

Initialize defaults for registry+v1 in the current empty directory:
$ opm bundle init --mediatype registry+v1 .

Initialize defaults for registry+v2 in the current empty directory, with a Dockerfile:
$ opm bundle init --mediatype registry+v2 -d .

Fail to detect the media type in an empty directory:
$ opm bundle init .
Error: unable to infer mediatype when no manifests are present

Infer the media type (registry+v2) from the manifests in kiali-csvless/:
$ opm bundle init kiali-csvless";

#[derive(Debug, Args)]
#[command(override_usage = "[SRC|-]")]
pub struct BundleInitArgs {
    /// A directory of manifests (YAML/JSON streams) to include, or - to read them from stdin
    #[arg(value_name = "SRC")]
    pub src: Vec<String>,
    /// The media type of the bundle. One of: [registry+v1, registry+v2, plain+v0] (default: inferred from the manifests)
    #[arg(short = 'm', long, value_parser = OneOf(MEDIA_TYPES))]
    pub mediatype: Option<String>,
    /// Also write a Dockerfile that builds the bundle image
    #[arg(short = 'd', long)]
    pub generate_dockerfile: bool,
    /// The name of the package that bundle image belongs to (default: the current directory's name as a DNS-1123 label)
    #[arg(short = 'p', long)]
    pub package: Option<String>,
    /// The list of channels that bundle image belongs to (default: alpha)
    #[arg(short = 'c', long)]
    pub channels: Option<String>,
    /// The default channel for the bundle image (default: the first channel)
    #[arg(short = 'e', long = "default")]
    pub default_channel: Option<String>,
}

#[derive(Debug, Args)]
pub struct BundleGenerateArgs {
    /// Unexpected positional arguments (reported as upstream does)
    #[arg(hide = true)]
    pub extra: Vec<String>,
    /// The directory where bundle manifests for a specific version are located.
    #[arg(short = 'd', long)]
    pub directory: Option<String>,
    /// The name of the package that bundle image belongs to (Required if directory is not pointing to a bundle in the nested bundle format)
    #[arg(short = 'p', long, value_name = "directory")]
    pub package: Option<String>,
    /// The list of channels that bundle image belongs to (Required if directory is not pointing to a bundle in the nested bundle format)
    #[arg(short = 'c', long, value_name = "directory")]
    pub channels: Option<String>,
    /// The default channel for the bundle image
    #[arg(short = 'e', long = "default")]
    pub default_channel: Option<String>,
    /// Optional output directory for operator manifests
    #[arg(short = 'u', long)]
    pub output_dir: Option<String>,
    /// Use a custom image pullspec as the base bundle image
    #[arg(long, default_value = "scratch")]
    pub base_image: String,
}

#[derive(Debug, Args)]
#[command(override_usage = "[DIR [DESTINATION]]")]
pub struct BundleBuildArgs {
    /// The bundle directory (a directory holding manifests/ is a bundle root), then where to put the image: file://PATH.tar, file://PATH.tar.gz, oci://DIR or image://REF
    #[arg(value_name = "DIR [DESTINATION]")]
    pub target: Vec<String>,
    /// The directory where bundle manifests and metadata for a specific version are located
    #[arg(short = 'd', long)]
    pub directory: Option<String>,
    /// The image tag applied to the bundle image
    #[arg(short = 't', long)]
    pub tag: Option<String>,
    /// The name of the package that bundle image belongs to (Required if directory is not pointing to a bundle in the nested bundle format)
    #[arg(short = 'p', long, value_name = "directory")]
    pub package: Option<String>,
    /// The list of channels that bundle image belongs to (Required if directory is not pointing to a bundle in the nested bundle format)
    #[arg(short = 'c', long, value_name = "directory")]
    pub channels: Option<String>,
    /// Tool used to manage container images. One of: [docker, podman, buildah, none] (default: docker; none with a destination)
    #[arg(short = 'b', long, value_parser = OneOf(BUILD_IMAGE_BUILDERS))]
    pub image_builder: Option<String>,
    /// The default channel for the bundle image
    #[arg(short = 'e', long = "default")]
    pub default_channel: Option<String>,
    /// To overwrite annotations.yaml locally if existed. By default, overwrite is set to `false`.
    #[arg(short = 'o', long)]
    pub overwrite: bool,
    /// Optional output directory for operator manifests
    #[arg(short = 'u', long)]
    pub output_dir: Option<String>,
    /// Use a custom image pullspec as the base bundle image
    #[arg(long, default_value = "scratch")]
    pub base_image: String,
    /// Build the bundle without validating it first
    #[arg(long)]
    pub skip_validation: bool,
}

#[derive(Debug, Args)]
#[command(override_usage = "[DIR|IMAGE]")]
pub struct BundleValidateArgs {
    /// Bundle directory or image reference (`image://REF`, or a reference that is not an existing path)
    #[arg(value_name = "DIR|IMAGE")]
    pub target: Vec<String>,
    /// The path of a registry to pull from, image name and its tag that present the bundle image (e.g. quay.io/test/test-operator:latest), or a bundle directory
    #[arg(short = 't', long)]
    pub tag: Option<String>,
    /// Tool used to pull and unpack bundle images. One of: [none, docker, podman]
    #[arg(short = 'b', long, default_value = "none", value_parser = OneOf(PULL_IMAGE_BUILDERS))]
    pub image_builder: String,
    /// Specifies optional validations to be run. One or more of: [operatorhub, bundle-objects, good-practices]
    #[arg(short = 'o', long, default_value = "")]
    pub optional_validators: String,
    /// Format of the findings: text (on stderr, one line per finding), json or sarif (on stdout)
    #[arg(long, value_enum, default_value_t = FindingsFormat::Text)]
    pub output_format: FindingsFormat,
}

/// `bundle validate --output-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FindingsFormat {
    Text,
    Json,
    Sarif,
}

#[derive(Debug, Args)]
#[command(override_usage = "<DIR|IMAGE>")]
pub struct BundleListArgs {
    /// The bundle: a directory, an image reference, or image://REF
    #[arg(value_name = "DIR|IMAGE")]
    pub target: Vec<String>,
    /// Tool to pull and unpack an image with (none, docker, podman)
    #[arg(short = 'b', long, default_value = "none", value_parser = OneOf(PULL_IMAGE_BUILDERS))]
    pub image_builder: String,
    /// Output format: yaml (a stream) or json (one v1 List)
    #[arg(short = 'o', long, value_enum, default_value_t = ListFormat::Yaml)]
    pub output: ListFormat,
}

/// `bundle list -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    Yaml,
    Json,
}

#[derive(Debug, Args)]
#[command(override_usage = "BUNDLE_NAME[:TAG|@DIGEST]")]
pub struct BundleUnpackArgs {
    /// The bundle image: BUNDLE_NAME[:TAG|@DIGEST] (also image://REF)
    #[arg(value_name = "BUNDLE_NAME[:TAG|@DIGEST]")]
    pub image: Vec<String>,
    /// enable debug log output (also --debug)
    #[arg(short = 'd')]
    pub debug_short: bool,
    /// use plain HTTP (deprecated: use --use-http and --skip-tls-verify instead)
    #[arg(short = 's', hide = true)]
    pub skip_tls_short: bool,
    /// disable bundle validation
    #[arg(short = 'v', long)]
    pub skip_validation: bool,
    /// file path of a root CA to use when communicating with image registries
    #[arg(short = 'c', long, default_value = "")]
    pub root_ca: String,
    /// directory in which to unpack operator bundle content
    #[arg(short = 'o', long, default_value = "./")]
    pub out: String,
}
