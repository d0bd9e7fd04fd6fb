//! `opm alpha catalog build|base`: catalog images built without a container
//! engine.

use clap::{Args, Subcommand};

pub const CATALOG_BUILD_LONG: &str =
    "Build the image of a file-based catalog without a container engine.

The image is laid out as the Dockerfile of \"opm generate dockerfile\" lays it out:
the catalog under /configs, a serve cache built now under /tmp/cache (so the
catalog pod is ready at once), the label
operators.operatorframework.io.index.configs.v1=/configs, ENTRYPOINT [\"/bin/opm\"],
CMD [\"serve\", \"/configs\", \"--cache-dir=/tmp/cache\"], port 50051, USER 1001,
every path readable (and the cache writable) by any UID in group 0, and
/bin/grpc_health_probe for OLM's probes.

The base is this opm itself (a layer holding the running binary; only a static
build can be one, see \"opm version\"), or --base IMAGE (e.g.
quay.io/operator-framework/opm:latest), onto which the catalog and cache layers
go. The catalog is validated first (as \"opm validate\" does): a catalog that
fails builds nothing. The image's manifest digest is printed on stdout; the same
catalog always gives the same digest (file times are SOURCE_DATE_EPOCH, or the
epoch).

DESTINATION is file://X.tar or file://X.tar.gz (an OCI archive, for
\"podman load\" or \"skopeo copy oci-archive:\"), oci://DIR[:TAG] (an OCI image
layout) or image://REF (pushed to a registry).

Examples:
  opm alpha catalog build catalog/ image://quay.io/example/catalog:v1
  opm alpha catalog build catalog/ file://catalog.tar --tag v1
  opm alpha catalog build catalog/ oci://out:v1 --base quay.io/operator-framework/opm:latest";

pub const CATALOG_BASE_LONG: &str =
    "Write the image of this opm alone: /bin/opm (the running binary, which must be a
static build), /bin/grpc_health_probe (a link to it), a world-writable /tmp,
USER 1001, port 50051 and ENTRYPOINT [\"/bin/opm\"]. \"opm generate dockerfile -i\" and
\"-b\" can name it once it is in a registry or in the container engine's storage,
so that the Dockerfile's catalog image runs this opm.

DESTINATION is file://X.tar[.gz], oci://DIR[:TAG] or image://REF, as for
\"opm alpha catalog build\".

Examples:
  opm alpha catalog base image://quay.io/example/opm:v1
  opm alpha catalog base file://opm.tar --tag v1 && podman load -i opm.tar";

#[derive(Debug, Args)]
#[command(subcommand_value_name = "command")]
pub struct CatalogArgs {
    #[command(subcommand)]
    pub command: CatalogCommand,
}

#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Build a catalog image without a container engine
    #[command(long_about = CATALOG_BUILD_LONG, override_usage = "<fbcRootDir> <DESTINATION>")]
    Build(CatalogBuildArgs),
    /// Write the base image of this opm (for "opm generate dockerfile -i")
    #[command(long_about = CATALOG_BASE_LONG, override_usage = "<DESTINATION>")]
    Base(CatalogBaseArgs),
}

#[derive(Debug, Args)]
pub struct CatalogBuildArgs {
    /// <fbcRootDir> <DESTINATION>
    #[arg(value_name = "ARGS")]
    pub args: Vec<String>,
    /// The image to put the catalog onto: a registry reference, oci://DIR[:TAG] or file://X.tar[.gz] (default: this opm, when it is a static build)
    #[arg(long, value_name = "IMAGE")]
    pub base: Option<String>,
    /// The image's tag inside an archive or layout (default: latest)
    #[arg(short = 't', long, value_name = "TAG")]
    pub tag: Option<String>,
    /// Extra labels for the image, of the form 'key=value' (repeatable, or comma-separated)
    #[arg(short = 'l', long, value_name = "KEY=VALUE")]
    pub extra_labels: Vec<String>,
}

#[derive(Debug, Args)]
pub struct CatalogBaseArgs {
    /// <DESTINATION>
    #[arg(value_name = "DESTINATION")]
    pub args: Vec<String>,
    /// The image's tag inside an archive or layout (default: latest)
    #[arg(short = 't', long, value_name = "TAG")]
    pub tag: Option<String>,
}
