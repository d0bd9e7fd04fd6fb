//! Command-line types (clap derive) and how they are presented: no I/O.
//!
//! Positional arguments are taken as plain strings and closed-set flags as
//! [`Choice`]s of a `ValueEnum` (every value parses), so that `commands` can
//! report upstream's exact (cobra) messages for them, in upstream's order of
//! checks; the sets are still known to clap for help and shell completion. [`command`] gives the command tree the look of upstream's
//! cobra help: a usage line with the exact arguments (each command's
//! `override_usage` holds its arguments part), Flags and Global Flags
//! sections, no empty defaults.

pub mod authoring;
pub mod bundle;
pub mod catalog;
pub mod serve;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::{ArgAction, Args, CommandFactory as _, Parser, Subcommand};

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
    about = "operator package manager",
    long_about = ROOT_LONG,
    disable_version_flag = true,
    disable_help_subcommand = true,
    propagate_version = false
)]
pub struct Cli {
    /// version for opm
    #[arg(long, help_heading = "Flags")]
    pub version: bool,
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Without one, `opm` prints its help (or, with `--version`, its version).
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Global Flags")]
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
    #[command(
        arg_required_else_help = true,
        long_about = "Generate operator bundle metadata and build bundle image."
    )]
    Bundle(bundle::BundleArgs),
    /// Run an alpha subcommand
    #[command(hide = !help_alpha(), arg_required_else_help = true)]
    Alpha(AlphaArgs),
    /// Generate a stream of file-based catalog objects from catalogs and bundles
    #[command(
        long_about = "Generate a stream of file-based catalog objects to stdout from the provided
catalog images, file-based catalog directories, bundle images, and bundle directories."
    )]
    Render(RenderArgs),
    /// Validate the declarative index config
    #[command(long_about = "Validate the declarative config JSON file(s) in a given directory")]
    Validate(ValidateArgs),
    /// Generate various artifacts for file-based catalogs
    #[command(arg_required_else_help = true)]
    Generate(GenerateArgs),
    /// Generate an olm.package declarative config blob
    Init(InitArgs),
    /// serve declarative configs
    #[command(long_about = serve::SERVE_LONG)]
    Serve(serve::ServeArgs),
    /// Migrate a file-based catalog to a new file-based catalog applying optional migrations
    Migrate(authoring::MigrateArgs),
    /// Print the opm version
    Version(VersionArgs),
    /// Generate the autocompletion script for the specified shell
    Completion(CompletionArgs),
    /// Help about any command
    #[command(
        long_about = "Help provides help for any command in the application.
Simply type opm help [path to command] for full details.",
        override_usage = "[command]"
    )]
    Help(HelpArgs),
}

/// `opm help [command]...`: the words of the command to describe.
#[derive(Debug, Args)]
pub struct HelpArgs {
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
#[command(
    override_usage = "<catalog-image | catalog-directory | bundle-image | bundle-directory>..."
)]
pub struct RenderArgs {
    /// catalog-image | catalog-directory | bundle-image | bundle-directory
    #[arg(value_name = "REF")]
    pub refs: Vec<String>,
    /// Output format of the streamed file-based catalog objects (json|yaml)
    #[arg(short, long, default_value = "json", value_parser = choice::<CatalogFormat>())]
    pub output: Choice<CatalogFormat>,
    #[arg(long, default_value = "", help = MIGRATE_LEVEL_HELP)]
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
#[command(override_usage = "<directory>")]
pub struct ValidateArgs {
    /// Directory of the file-based catalog
    #[arg(value_name = "DIRECTORY")]
    pub dirs: Vec<String>,
    /// Output format: json|yaml (upstream's result) or sarif (every finding); without it,
    /// one line per finding (FILE:LINE:COL: severity[rule]: message)
    #[arg(short, long, default_value = "", value_parser = choice::<ValidateFormat>())]
    pub output: Choice<ValidateFormat>,
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

/// `-o` of `render`, `migrate`, `init` and `alpha convert-template`: how catalog objects are
/// written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CatalogFormat {
    Json,
    Yaml,
}

/// `validate -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ValidateFormat {
    /// One line per finding (the default, `-o ""`).
    #[value(name = "")]
    Text,
    Json,
    Yaml,
    Sarif,
}

#[derive(Debug, Args)]
#[command(subcommand_value_name = "command")]
pub struct AlphaArgs {
    #[command(subcommand)]
    pub command: AlphaCommand,
}

#[derive(Debug, Subcommand)]
pub enum AlphaCommand {
    /// Operator bundle commands (the same as `opm bundle`)
    #[command(
        arg_required_else_help = true,
        long_about = "Generate operator bundle metadata and build bundle image."
    )]
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
    /// Build catalog images without a container engine
    #[command(arg_required_else_help = true)]
    Catalog(catalog::CatalogArgs),
}

#[derive(Debug, Args)]
#[command(subcommand_value_name = "command")]
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
value of each duplicate key will be added to the generated Dockerfile.

A separate builder and base image can be specified. The builder image may not be \"scratch\".")]
    Dockerfile(DockerfileArgs),
}

#[derive(Debug, Args)]
#[command(override_usage = "<fbcRootDir>")]
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
#[command(override_usage = "<packageName>")]
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
    #[arg(short = 'o', long, default_value = "json", value_parser = choice::<CatalogFormat>())]
    pub output: Choice<CatalogFormat>,
}

#[derive(Debug, Args)]
pub struct VersionArgs {
    /// Output format: the version line (default) or json
    #[arg(short = 'o', long, value_enum)]
    pub output: Option<VersionFormat>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum VersionFormat {
    Json,
}

#[derive(Debug, Args)]
#[command(override_usage = "<bash|elvish|fish|powershell|zsh>")]
pub struct CompletionArgs {
    /// The shell to generate the script for
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// A closed set of values that `commands` checks itself, with upstream's
/// message: every value parses, and help and shell completion offer the set.
/// (The bundle commands' sets, kept as strings.)
#[derive(Debug, Clone, Copy)]
pub struct OneOf(pub &'static [&'static str]);

impl TypedValueParser for OneOf {
    type Value = String;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(command, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            self.0.iter().map(|value| PossibleValue::new(*value)),
        ))
    }
}

/// The value of a closed-set flag: one of `T`'s values (matched exactly, as upstream
/// compares), or what was typed otherwise, which the command rejects with upstream's message
/// once the checks upstream makes first have passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice<T> {
    Known(T),
    Other(String),
}

impl<T> Choice<T> {
    /// The known value, or the error for the text typed; `expected` is what
    /// upstream's message lists (`(json|yaml)`).
    pub fn known(self, expected: &'static str) -> Result<T, InvalidOutput> {
        match self {
            Choice::Known(value) => Ok(value),
            Choice::Other(value) => Err(InvalidOutput { value, expected }),
        }
    }
}

/// An `-o/--output` value outside the command's set, in upstream's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid --output value {}, expected {expected}", crate::encoding::json::go_quote(.value))]
pub struct InvalidOutput {
    /// The text typed.
    pub value: String,
    /// The values upstream's message lists.
    pub expected: &'static str,
}

/// The parser of a [`Choice`] flag (`value_parser = choice::<T>()`).
pub fn choice<T>() -> ChoiceParser<T> {
    ChoiceParser(std::marker::PhantomData)
}

#[derive(Debug)]
pub struct ChoiceParser<T>(std::marker::PhantomData<T>);

impl<T> Clone for ChoiceParser<T> {
    fn clone(&self) -> Self {
        ChoiceParser(std::marker::PhantomData)
    }
}

impl<T: clap::ValueEnum + Clone + Send + Sync + 'static> TypedValueParser for ChoiceParser<T> {
    type Value = Choice<T>;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Choice<T>, clap::Error> {
        let text = clap::builder::StringValueParser::new().parse_ref(command, arg, value)?;
        Ok(match T::from_str(&text, false) {
            Ok(known) => Choice::Known(known),
            Err(_) => Choice::Other(text),
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            T::value_variants()
                .iter()
                .filter_map(clap::ValueEnum::to_possible_value)
                .filter(|value| !value.get_name().is_empty()),
        ))
    }
}

/// The command tree as `opm` presents it, cobra-like: see the module docs.
pub fn command() -> clap::Command {
    cobra_style(Cli::command(), "opm")
}

/// Cobra's usage block (what follows the description in the help, and an
/// argument error): usage line, flags, global flags, and for a group how to
/// get a subcommand's help.
pub fn usage_template(runnable: bool, path: &str) -> String {
    let mut template = String::from("Usage:\n  {usage}\n\n{all-args}");
    if !runnable {
        template.push_str(&format!(
            "\n\nUse \"{path} [command] --help\" for more information about a command."
        ));
    }
    template
}

/// Upstream's help layout for `command` (reached as `path`) and its
/// subcommands: the long description, `Usage:` with the exact arguments,
/// `Flags:` (including `-h, --help`), `Global Flags:`; `-h` and `--help`
/// print the same; arguments are described by the usage line, not listed.
fn cobra_style(command: clap::Command, path: &str) -> clap::Command {
    let name = command.get_name().to_string();
    let runnable = command.get_subcommands().next().is_none();
    let usage = if runnable {
        let arguments = match command.get_overridden_usage() {
            Some(arguments) => arguments.to_string(),
            None => command
                .get_positionals()
                .filter(|arg| !arg.is_hide_set())
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" "),
        };
        [path, arguments.as_str(), "[flags]"]
            .iter()
            .filter(|part| !part.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ")
    } else if path == "opm" {
        "opm [flags]\n  opm [command]".to_string()
    } else {
        format!("{path} [command]")
    };
    let description = command
        .get_long_about()
        .or(command.get_about())
        .map(ToString::to_string)
        .unwrap_or_default();
    let template = format!("{{before-help}}{}", usage_template(runnable, path));
    let mut command = command
        .override_usage(usage)
        .before_help(description)
        .help_template(template)
        .subcommand_help_heading("Available Commands")
        // One line per flag, never wrapped, as cobra prints them.
        .term_width(0)
        .disable_help_flag(true)
        .disable_help_subcommand(true)
        .arg(
            clap::Arg::new("help")
                .short('h')
                .long("help")
                .action(ArgAction::HelpShort)
                .help(format!("help for {name}"))
                .help_heading("Flags"),
        )
        .mut_args(|arg| {
            // Values the description already lists are not listed again
            // (shell completion still offers them).
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            let values = arg.get_possible_values();
            let arg = if !values.is_empty() && values.iter().all(|v| help.contains(v.get_name())) {
                arg.hide_possible_values(true)
            } else {
                arg
            };
            let arg = if arg.is_positional() {
                arg.hide_short_help(true)
            } else if arg.get_help_heading().is_none() {
                arg.help_heading("Flags")
            } else {
                arg
            };
            let takes_value = arg.get_action().takes_values();
            if takes_value && arg.get_default_values().iter().all(|v| v.is_empty()) {
                arg.hide_default_value(true)
            } else {
                arg
            }
        });
    let names: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_string())
        .collect();
    for sub in names {
        let sub_path = format!("{path} {sub}");
        command = command.mut_subcommand(&sub, |sub| cobra_style(sub, &sub_path));
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
        command().debug_assert();
    }

    #[test]
    fn global_flags_work_after_the_subcommand() {
        let matches = command()
            .try_get_matches_from(["opm", "render", "x", "--use-http"])
            .unwrap();
        let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches).unwrap();
        assert!(cli.global.use_http);
    }

    /// Every runnable command's usage line names its arguments as upstream's
    /// cobra `Use` does, with their exact counts.
    #[test]
    fn usage_lines() {
        let mut root = command();
        root.build();
        let usage = |path: &[&str]| {
            let found = path.iter().fold(&root, |c, name| {
                c.find_subcommand(name).expect("subcommand")
            });
            found
                .get_overridden_usage()
                .map(ToString::to_string)
                .unwrap_or_default()
        };
        let cases: &[(&[&str], &str)] = &[
            (&[], "opm [flags]\n  opm [command]"),
            (&["validate"], "opm validate <directory> [flags]"),
            (
                &["render"],
                "opm render <catalog-image | catalog-directory | bundle-image | bundle-directory>... [flags]",
            ),
            (&["init"], "opm init <packageName> [flags]"),
            (&["generate"], "opm generate [command]"),
            (&["generate", "dockerfile"], "opm generate dockerfile <fbcRootDir> [flags]"),
            (&["bundle"], "opm bundle [command]"),
            (&["bundle", "generate"], "opm bundle generate [flags]"),
            (&["bundle", "build"], "opm bundle build [DIR [DESTINATION]] [flags]"),
            (&["bundle", "validate"], "opm bundle validate [DIR|IMAGE] [flags]"),
            (&["bundle", "list"], "opm bundle list <DIR|IMAGE> [flags]"),
            (&["bundle", "init"], "opm bundle init [SRC|-] [flags]"),
            (
                &["alpha", "bundle", "unpack"],
                "opm alpha bundle unpack BUNDLE_NAME[:TAG|@DIGEST] [flags]",
            ),
            (&["version"], "opm version [flags]"),
            (&["help"], "opm help [command] [flags]"),
        ];
        for (path, expected) in cases {
            assert_eq!(usage(path), *expected, "{path:?}");
        }
    }
}
