//! Command-line types (clap derive) and nothing else: no I/O, no logic.
//!
//! Positional arguments and `-o` values are taken as plain strings so that
//! `commands` can report upstream's exact (cobra) messages for them.

pub mod authoring;
pub mod bundle;
pub mod serve;

use clap::{Args, Parser, Subcommand};

const ROOT_LONG: &str =
    "CLI to interact with operator-registry and build indexes of operator content.

To view help related to alpha features, set HELP_ALPHA=true in the environment.";

/// Whether hidden alpha flags are shown (`HELP_ALPHA=true`).
pub fn help_alpha() -> bool {
    std::env::var("HELP_ALPHA").is_ok_and(|v| v == "true")
}

#[derive(Debug, Parser)]
#[command(
    name = "opm",
    about = "CLI to interact with operator-registry and build indexes of operator content",
    long_about = ROOT_LONG,
    disable_version_flag = true,
    propagate_version = false
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args, Clone, Default)]
pub struct GlobalArgs {
    /// skip TLS certificate verification for container image registries while pulling bundles
    #[arg(long, global = true)]
    pub skip_tls_verify: bool,
    /// use plain HTTP for container image registries while pulling bundles
    #[arg(long, global = true)]
    pub use_http: bool,
    /// skip TLS certificate verification for container image registries while pulling bundles or index (deprecated: use --use-http and --skip-tls-verify instead)
    #[arg(long, global = true, hide = true)]
    pub skip_tls: bool,
    /// enable debug logging
    #[arg(long, global = true, hide = true)]
    pub debug: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Operator bundle commands
    Bundle(bundle::BundleArgs),
    /// Run an alpha subcommand
    #[command(hide = !help_alpha())]
    Alpha(AlphaArgs),
    /// Generate a stream of file-based catalog objects from catalogs and bundles
    Render(RenderArgs),
    /// Validate the declarative index config
    #[command(long_about = "Validate the declarative config JSON file(s) in a given directory")]
    Validate(ValidateArgs),
    /// Generate various artifacts for declarative config indexes
    Generate(GenerateArgs),
    /// Generate an olm.package declarative config blob
    Init(InitArgs),
    /// serve declarative configs
    #[command(long_about = serve::SERVE_LONG)]
    Serve(serve::ServeArgs),
    /// Migrate a file-based catalog to a new file-based catalog applying optional migrations
    Migrate(authoring::MigrateArgs),
    /// Print the opm version
    Version,
    /// Generate the autocompletion script for the specified shell
    Completion(CompletionArgs),
}

#[derive(Debug, Args)]
#[command(
    long_about = "Generate a stream of file-based catalog objects to stdout from the provided
catalog images, file-based catalog directories, bundle images, and bundle directories."
)]
pub struct RenderArgs {
    /// catalog-image | catalog-directory | bundle-image | bundle-directory
    #[arg(value_name = "REF")]
    pub refs: Vec<String>,
    /// Output format of the streamed file-based catalog objects (json|yaml)
    #[arg(short, long, default_value = "json")]
    pub output: String,
    /// Name of the last migration to run (default: none)
    #[arg(long, default_value = "", long_help = MIGRATE_LEVEL_HELP)]
    pub migrate_level: String,
    /// Perform all available schema migrations on the rendered FBC
    #[arg(long)]
    pub migrate: bool,
    /// (ALPHA: This flag will be removed or renamed in a future release, potentially without notice) template for image reference to use when rendering bundle directories (fields: {{.Package}}, {{.Name}}, {{.Version}})
    #[arg(long, hide = !help_alpha(), default_value = "")]
    pub alpha_image_ref_template: String,
}

pub const MIGRATE_LEVEL_HELP: &str = "Name of the last migration to run (default: none)

The migrator will run all migrations up to and including the selected level.

Available migrators:
  - none                          : do nothing
  - bundle-object-to-csv-metadata : migrates bundles' \"olm.bundle.object\" to \"olm.csv.metadata\"";

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Directory of the file-based catalog
    #[arg(value_name = "DIRECTORY")]
    pub dirs: Vec<String>,
    /// Output format (json|yaml, upstream's result; sarif, every finding for code scanning);
    /// without it, problems are printed one per line as FILE:LINE:COL: severity[rule]: message
    #[arg(short, long, default_value = "")]
    pub output: String,
    /// Print every rule (id, severity, summary) and exit
    #[arg(long)]
    pub list_rules: bool,
    /// Print what a rule checks and exit
    #[arg(long, value_name = "RULE")]
    pub explain: Option<String>,
    /// Treat warnings (upgrade-graph checks beyond upstream's) as errors
    #[arg(long)]
    pub strict: bool,
}

#[derive(Debug, Args)]
pub struct AlphaArgs {
    #[command(subcommand)]
    pub command: AlphaCommand,
}

#[derive(Debug, Subcommand)]
pub enum AlphaCommand {
    /// Operator bundle commands (the same as `opm bundle`)
    Bundle(bundle::BundleArgs),
    /// List contents of an index
    #[command(long_about = "The list subcommands print the contents of an index.

NOTE: This is meant to be used for convenience and human-readability only. The
CLI and output format are subject to change, so it is not recommended to depend
on the output in any programs or scripts. Use the \"render\" subcommand (or -o json)
to do more complex processing and automation.")]
    List(authoring::ListArgs),
    /// Generate mermaid-formatted view of upgrade graph of operators in an index
    RenderGraph(authoring::RenderGraphArgs),
    /// Render a catalog template (auto-detects type from schema if TYPE not specified)
    RenderTemplate(authoring::RenderTemplateArgs),
    /// Convert existing FBC to a supported template type
    ConvertTemplate(authoring::ConvertTemplateArgs),
    /// Show what changed between two catalogs
    Diff(authoring::DiffArgs),
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    #[command(subcommand)]
    pub command: GenerateCommand,
}

#[derive(Debug, Subcommand)]
pub enum GenerateCommand {
    /// Generate a Dockerfile for a file-based catalog
    #[command(long_about = "Generate a Dockerfile for a file-based catalog.

This command creates a Dockerfile in the same directory as the <fbcRootDir>
(named <fbcDirName>.Dockerfile) that can be used to build the index. If a
Dockerfile with the same name already exists, this command will fail.

When specifying extra labels, note that if duplicate keys exist, only the last
value of each duplicate key will be added to the generated Dockerfile.")]
    Dockerfile(DockerfileArgs),
}

#[derive(Debug, Args)]
pub struct DockerfileArgs {
    /// The file-based catalog root directory
    #[arg(value_name = "FBC_ROOT_DIR")]
    pub dirs: Vec<String>,
    /// Image base to use to build catalog. [default: quay.io/operator-framework/opm:latest]
    #[arg(short = 'i', long)]
    pub base_image: Option<String>,
    /// Image in which to build catalog (deprecated: use --base-image instead)
    #[arg(long, hide = true)]
    pub binary_image: Option<String>,
    /// Image to use as a build stage. [default: quay.io/operator-framework/opm:latest]
    #[arg(short = 'b', long)]
    pub builder_image: Option<String>,
    /// Extra labels to include in the generated Dockerfile. Labels should be of the form 'key=value'.
    #[arg(short = 'l', long)]
    pub extra_labels: Vec<String>,
}

pub const DEFAULT_OPM_IMAGE: &str = "quay.io/operator-framework/opm:latest";

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The name of the package
    #[arg(value_name = "PACKAGE_NAME")]
    pub names: Vec<String>,
    /// The channel that subscriptions will default to if unspecified
    #[arg(short = 'c', long, default_value = "")]
    pub default_channel: String,
    /// Path to the operator's README.md (or other documentation)
    #[arg(short = 'd', long, default_value = "")]
    pub description: String,
    /// Path to package's icon
    #[arg(short = 'i', long, default_value = "")]
    pub icon: String,
    /// Output format (json|yaml)
    #[arg(short = 'o', long, default_value = "json")]
    pub output: String,
}

#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// The shell to generate the script for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn global_flags_work_after_the_subcommand() {
        let cli = Cli::try_parse_from(["opm", "render", "x", "--use-http"]).unwrap();
        assert!(cli.global.use_http);
    }
}
