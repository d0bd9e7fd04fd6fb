//! Catalog authoring commands: `alpha render-template`, `alpha
//! convert-template`, `alpha list`, `alpha render-graph`, `alpha diff` and
//! `migrate`.

use super::{choice, CatalogFormat, Choice};
use clap::{Args, Subcommand};

pub const RENDER_TEMPLATE_LONG: &str = "Render a catalog template with optional type specification.

If TYPE is specified, it must be one of: 
 - basic
 - semver
 - substitutes

If TYPE is not specified, the template type will be auto-detected from the schema field in the input file.

When FILE is '-' or not provided, the template is read from standard input.
FILE must not match a supported TYPE name when TYPE is not provided, to avoid ambiguity.

Bundle entries may name bundle images, bundle directories, OCI layouts (oci://DIR[:TAG])
and OCI archives (file://X.tar[.gz]).

Examples:
  opm alpha render-template basic template.yaml
  opm alpha render-template semver template.yaml
  opm alpha render-template template.yaml  # auto-detect type
  opm alpha render-template < template.yaml  # auto-detect from stdin
  opm alpha render-template template.yaml --reuse-bundles catalog/  # pull only new bundles";

#[derive(Debug, Args)]
#[command(long_about = RENDER_TEMPLATE_LONG)]
pub struct RenderTemplateArgs {
    /// [TYPE] [FILE]
    #[arg(value_name = "ARGS")]
    pub args: Vec<String>,
    /// Output format (json|yaml|mermaid)
    #[arg(short, long, default_value = "json", value_parser = choice::<TemplateFormat>())]
    pub output: Choice<TemplateFormat>,
    /// Name of the last migration to run (default: none)
    #[arg(long, default_value = "", long_help = super::MIGRATE_LEVEL_HELP)]
    pub migrate_level: String,
    /// Take bundles from this rendered catalog (directory or image) instead of pulling them, when
    /// an entry's image equals a bundle's image there (repeatable)
    #[arg(long, value_name = "REF")]
    pub reuse_bundles: Vec<String>,
    /// With --reuse-bundles, pull tag references again (digest references are always reused)
    #[arg(long)]
    pub refresh_tags: bool,
}

#[derive(Debug, Args)]
pub struct ConvertTemplateArgs {
    #[command(subcommand)]
    pub command: ConvertTemplateCommand,
}

#[derive(Debug, Subcommand)]
pub enum ConvertTemplateCommand {
    /// Generate a basic template from existing FBC
    #[command(long_about = "Generate a basic template from existing FBC.

This command outputs a basic catalog template to STDOUT from input FBC.
If no argument is specified or is '-' input is assumed from STDIN.")]
    Basic(ConvertArgs),
    /// Generate a substitutes template from existing FBC
    #[command(long_about = "Generate a substitutes template from existing FBC.

This command outputs a substitutes catalog template to STDOUT from input FBC.
If no argument is specified or is '-' input is assumed from STDIN.")]
    Substitutes(ConvertArgs),
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// [<fbc-file> | -]
    #[arg(value_name = "FBC_FILE")]
    pub file: Vec<String>,
    /// Output format (json|yaml)
    #[arg(short, long, default_value = "json", value_parser = choice::<CatalogFormat>())]
    pub output: Choice<CatalogFormat>,
}

const LIST_NOTE: &str =
    "NOTE: This is meant to be used for convenience and human-readability only. The
CLI and output format are subject to change, so it is not recommended to depend
on the output in any programs or scripts. Use the \"render\" subcommand (or -o json)
to do more complex processing and automation.";

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(subcommand)]
    pub command: ListCommand,
}

#[derive(Debug, Subcommand)]
pub enum ListCommand {
    /// List packages in an index
    #[command(long_about = format!("The \"packages\" command lists the packages from the specified index.\n\n{LIST_NOTE}"))]
    Packages(ListTargetArgs),
    /// List package channels in an index
    #[command(long_about = format!("The \"channels\" command lists the channels from the specified index and package.\n\n{LIST_NOTE}"))]
    Channels(ListTargetArgs),
    /// List package bundles in an index
    #[command(long_about = format!("The \"bundles\" command lists the bundles from the specified index and package.
Bundles that exist in multiple channels are duplicated in the output (one
for each channel in which the bundle is present).\n\n{LIST_NOTE}"))]
    Bundles(ListTargetArgs),
}

#[derive(Debug, Args)]
pub struct ListTargetArgs {
    /// <indexRef> [packageName]
    #[arg(value_name = "ARGS")]
    pub args: Vec<String>,
    /// Output format: a table (default) or json (one object per row)
    #[arg(short, long, default_value = "", value_parser = choice::<ListFormat>())]
    pub output: Choice<ListFormat>,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Generate mermaid-formatted view of upgrade graphs of operators in an index

Mermaid refuses texts over 30,000 characters by default: -o dot (Graphviz) and
-o json (nodes and edges) have no such limit."
)]
pub struct RenderGraphArgs {
    /// [index-image | fbc-dir]...
    #[arg(value_name = "REF")]
    pub refs: Vec<String>,
    /// the channel edge to be used as the lower bound of the set of edges composing the upgrade graph; default is to include all edges
    #[arg(long, default_value = "")]
    pub minimum_edge: String,
    /// a specific package name to filter output; default is to include all packages in reference
    #[arg(short = 'p', long, default_value = "")]
    pub package_name: String,
    /// whether to indicate OLMv0 semantics in the output; default is to simply represent the upgrade graph
    #[arg(long)]
    pub draw_v0_semantics: bool,
    /// Output format (mermaid|dot|json)
    #[arg(short, long, default_value = "mermaid", value_parser = choice::<GraphFormat>())]
    pub output: Choice<GraphFormat>,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Show what changed between two catalogs (directories or images):
packages, channels, channel entries and their edges, default channels, bundles,
bundle properties and deprecations, in name order.

Exit status 0 whatever the difference; with --exit-code, 1 when the catalogs differ."
)]
pub struct DiffArgs {
    /// OLD NEW
    #[arg(value_name = "CATALOG")]
    pub refs: Vec<String>,
    /// Output format (text|json)
    #[arg(short, long, default_value = "text", value_parser = choice::<DiffFormat>())]
    pub output: Choice<DiffFormat>,
    /// Exit with status 1 when the catalogs differ
    #[arg(long)]
    pub exit_code: bool,
}

#[derive(Debug, Args)]
#[command(
    long_about = "Migrate a file-based catalog image or directory to a new file-based catalog,
optionally applying migrations.

The input catalogRef may be a container image reference or a local directory
containing a file-based catalog.

NOTE: the --output=json format produces streamable, concatenated JSON files.
These are suitable to opm and jq, but may not be supported by arbitrary JSON
parsers that assume that a file contains exactly one valid JSON object."
)]
pub struct MigrateArgs {
    /// <catalogRef> <outputDir>
    #[arg(value_name = "ARGS")]
    pub args: Vec<String>,
    /// Output format (json|yaml)
    #[arg(short, long, default_value = "json", value_parser = choice::<CatalogFormat>())]
    pub output: Choice<CatalogFormat>,
    /// Name of the last migration to run (default: none)
    #[arg(long, default_value = "", long_help = super::MIGRATE_LEVEL_HELP)]
    pub migrate_level: String,
}

/// `alpha render-template -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TemplateFormat {
    Json,
    Yaml,
    Mermaid,
}

/// `alpha list -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    /// Aligned columns (the default, `-o ""`).
    #[value(name = "")]
    Table,
    Json,
}

/// `alpha render-graph -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphFormat {
    Mermaid,
    Dot,
    Json,
}

/// `alpha diff -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    Text,
    Json,
}
