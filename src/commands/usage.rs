//! Usage errors, in upstream's (cobra's) words and layout: `Error: <message>`
//! on stderr, then the usage of the command that was given (`Usage:`, its
//! flags and the global flags). clap's own errors are reworded the same way,
//! so every error looks alike whichever parser found it. Errors with an
//! obvious next step carry a hint, printed after them.

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// A wrong argument or flag value, found by a command: printed with the
/// command's usage after it.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// A usage error with `message` (cobra's `accepts 1 arg(s), received 2`).
pub(crate) fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

/// An error and the obvious next step: `Error: <error>`, then
/// `hint: <hint>` on stderr.
#[derive(Debug)]
pub struct Hinted {
    pub error: anyhow::Error,
    pub hint: String,
}

impl std::fmt::Display for Hinted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::diag::error_chain(self.error.chain()))
    }
}

impl std::error::Error for Hinted {}

/// `error`, with `hint` printed after it.
pub(crate) fn with_hint(error: impl Into<anyhow::Error>, hint: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(Hinted {
        error: error.into(),
        hint: hint.into(),
    })
}

/// How a clap error is to be reported.
pub enum ClapOutcome {
    /// Help or the version, asked for (or a group given no subcommand):
    /// this text on stdout, exit 0.
    Stdout(String),
    /// An error: `Error: <message>` on stderr, then `usage` (if any), exit 1.
    Error {
        message: String,
        usage: Option<String>,
    },
}

/// The names of the subcommands `args` (without the program name) reach in
/// `command`: `["bundle", "build"]` for `opm --use-http bundle build x`.
/// Flags before a subcommand are skipped: the groups only have switches.
pub fn subcommand_path(command: &clap::Command, args: &[String]) -> Vec<String> {
    let mut path = Vec::new();
    let mut current = command;
    for arg in args {
        if arg.starts_with('-') {
            continue;
        }
        match current.find_subcommand(arg) {
            Some(sub) => {
                path.push(sub.get_name().to_string());
                current = sub;
            }
            None => break,
        }
        if current.get_subcommands().next().is_none() {
            break;
        }
    }
    path
}

/// The built command at `path` under `command`.
fn find<'a>(command: &'a clap::Command, path: &[String]) -> &'a clap::Command {
    path.iter().fold(command, |current, name| {
        current.find_subcommand(name).unwrap_or(current)
    })
}

/// Cobra's usage block for the command at `path`: `Usage:`, flags, global
/// flags (the help without the description).
pub fn usage_text(command: &mut clap::Command, path: &[String]) -> String {
    command.build();
    let target = find(command, path).clone();
    let runnable = target.get_subcommands().next().is_none();
    let path_text = std::iter::once("opm")
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let mut target = target.help_template(crate::cli::usage_template(runnable, &path_text));
    let mut text = target.render_help().to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// How to report `error`, which clap raised parsing `args` (without the
/// program name) against `command`, in cobra's words.
pub fn clap_error(
    error: &clap::Error,
    command: &mut clap::Command,
    args: &[String],
) -> ClapOutcome {
    command.build();
    let path = subcommand_path(command, args);
    let path_text = std::iter::once("opm")
        .chain(path.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let text = |kind: ContextKind| match error.get(kind) {
        Some(ContextValue::String(value)) => value.clone(),
        Some(ContextValue::Strings(values)) => values.join(", "),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let message = match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            return ClapOutcome::Stdout(error.render().to_string());
        }
        // A group given no subcommand (`opm bundle`): its help.
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let mut help = find(command, &path).clone();
            return ClapOutcome::Stdout(help.render_help().to_string());
        }
        ErrorKind::InvalidSubcommand => {
            let mut message = format!(
                "unknown command {} for {}",
                go_quote(&text(ContextKind::InvalidSubcommand)),
                go_quote(&path_text)
            );
            let suggested = text(ContextKind::SuggestedSubcommand);
            if !suggested.is_empty() {
                message.push_str(&format!("\n\nDid you mean this?\n\t{suggested}\n"));
            }
            message.push_str(&format!("\nRun '{path_text} --help' for usage."));
            return ClapOutcome::Error {
                message,
                usage: None,
            };
        }
        ErrorKind::UnknownArgument => {
            let given = text(ContextKind::InvalidArg);
            if let Some(long) = given.strip_prefix("--") {
                let name = long.split_once('=').map_or(long, |(name, _)| name);
                format!("unknown flag: --{name}")
            } else if let Some(short) = given.strip_prefix('-') {
                let letter = short.chars().next().unwrap_or('-');
                format!("unknown shorthand flag: '{letter}' in {given}")
            } else {
                // Cobra's NoArgs.
                format!(
                    "unknown command {} for {}",
                    go_quote(&given),
                    go_quote(&path_text)
                )
            }
        }
        ErrorKind::InvalidValue if text(ContextKind::InvalidValue).is_empty() => {
            format!(
                "flag needs an argument: {}",
                flag_name(&text(ContextKind::InvalidArg))
            )
        }
        ErrorKind::InvalidValue => {
            let arg = text(ContextKind::InvalidArg);
            let value = go_quote(&text(ContextKind::InvalidValue));
            let what = if arg.starts_with('-') {
                format!("{} value {value}", flag_name(&arg))
            } else {
                format!("argument {value} for {}", go_quote(&path_text))
            };
            format!(
                "invalid {what}: must be one of [{}]",
                text(ContextKind::ValidValue)
            )
        }
        _ => {
            // clap's own sentence, without its `error: ` prefix and tips.
            let rendered = error.render().to_string();
            let first = rendered.lines().next().unwrap_or_default();
            first
                .strip_prefix("error: ")
                .unwrap_or(first)
                .trim()
                .to_string()
        }
    };
    ClapOutcome::Error {
        message,
        usage: Some(usage_text(command, &path)),
    }
}

/// The long name of a flag as clap displays it (`-o, --output <OUTPUT>`,
/// `--output <OUTPUT>`): `--output`.
fn flag_name(display: &str) -> String {
    display
        .split([',', ' ', '='])
        .map(str::trim)
        .find(|part| part.starts_with("--"))
        .or_else(|| display.split([' ', '=']).next())
        .unwrap_or(display)
        .to_string()
}

fn go_quote(text: &str) -> String {
    crate::encoding::json::go_quote(text)
}
