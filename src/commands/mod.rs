//! Thin glue between the command line and the actions: check arguments the
//! way upstream (cobra) does, build the action input, run it, print.

mod bundle;
mod bundle_build;
mod bundle_generate;
mod bundle_init;
mod bundle_list;
mod bundle_unpack;
mod bundle_validate;
mod catalog;
mod convert_template;
mod diff;
mod dockerfile;
mod init;
mod list;
mod migrate;
mod progress;
pub(crate) mod removed;
mod render;
mod render_graph;
mod render_template;
mod serve;
pub(crate) mod usage;
mod validate;

use crate::cli::{AlphaCommand, Cli, Command, GenerateCommand};
use crate::ExitStatus;
use anyhow::bail;
pub(crate) use usage::{usage, with_hint};

pub fn dispatch(cli: Cli) -> anyhow::Result<ExitStatus> {
    let Cli {
        global,
        version,
        command,
    } = cli;
    let Some(command) = command else {
        // Bare `opm`: its help, on stdout.
        let text = if version {
            version_line()
        } else {
            crate::cli::command().render_help().to_string()
        };
        crate::output::stdout(text.as_bytes())?;
        return Ok(ExitStatus::Success);
    };
    match command {
        Command::Bundle(args) => {
            check_transport_flags(&global)?;
            bundle::run(args, "opm bundle", &global)
        }
        Command::Alpha(crate::cli::AlphaArgs { command }) => match command {
            AlphaCommand::Bundle(args) => {
                check_transport_flags(&global)?;
                bundle::run(args, "opm alpha bundle", &global)
            }
            AlphaCommand::List(args) => list::run(args.command, &global),
            AlphaCommand::RenderGraph(args) => render_graph::run(args, &global),
            AlphaCommand::RenderTemplate(args) => render_template::run(args, &global),
            AlphaCommand::ConvertTemplate(args) => convert_template::run(args.command),
            AlphaCommand::Diff(args) => diff::run(args, &global),
            AlphaCommand::Catalog(args) => catalog::run(args.command, &global),
        },
        Command::Migrate(args) => migrate::run(args, &global),
        Command::Render(args) => {
            // Upstream checks these where it builds a registry client.
            check_transport_flags(&global)?;
            render::run(args, &global)
        }
        Command::Validate(args) => validate::run(args),
        Command::Generate(args) => match args.command {
            GenerateCommand::Dockerfile(args) => dockerfile::run(args),
        },
        Command::Init(args) => init::run(args),
        Command::Serve(args) => serve::run(args, &global),
        Command::Version(crate::cli::VersionArgs { output }) => {
            let text = match output {
                None => version_line(),
                Some(crate::cli::VersionFormat::Json) => version_json(),
            };
            crate::output::stdout(text.as_bytes())?;
            Ok(ExitStatus::Success)
        }
        // `opm help X` is read as `opm X --help` before parsing; this is
        // only reached without a command.
        Command::Help(_) => {
            let text = crate::cli::command().render_help().to_string();
            crate::output::stdout(text.as_bytes())?;
            Ok(ExitStatus::Success)
        }
        Command::Completion(args) => {
            let mut command = crate::cli::command();
            let mut script = Vec::new();
            clap_complete::generate(args.shell, &mut command, "opm", &mut script);
            crate::output::stdout(&script)?;
            Ok(ExitStatus::Success)
        }
    }
}

/// The build facts `opm version` reports (from build/version.rs).
struct Version {
    opm_version: String,
    git_commit: &'static str,
    build_date: &'static str,
    os: &'static str,
    arch: &'static str,
    toolchain: &'static str,
    /// The target triple built for.
    target: &'static str,
    /// `static` (no shared library, not even the C library's: the binary
    /// runs in an empty image) or `dynamic`.
    linking: &'static str,
}

fn version() -> Version {
    Version {
        opm_version: format!("v{}", env!("CARGO_PKG_VERSION")),
        git_commit: env!("OPM_GIT_COMMIT"),
        build_date: env!("OPM_BUILD_DATE"),
        os: std::env::consts::OS,
        // Go's names, as upstream prints them.
        arch: crate::image::go_arch(std::env::consts::ARCH),
        toolchain: env!("OPM_TOOLCHAIN"),
        target: env!("OPM_TARGET"),
        linking: if crate::SELF_CONTAINED {
            "static"
        } else {
            "dynamic"
        },
    }
}

/// Upstream's `opm version` line (Go's `%#v` of its `version.Version`), with
/// the toolchain that built us, the target and how the binary is linked as
/// three more fields.
fn version_line() -> String {
    let v = version();
    let quote = crate::encoding::json::go_quote;
    format!(
        "Version: version.Version{{OpmVersion:{}, GitCommit:{}, BuildDate:{}, GoOs:{}, GoArch:{}, Toolchain:{}, Target:{}, Linking:{}}}\n",
        quote(&v.opm_version),
        quote(v.git_commit),
        quote(v.build_date),
        quote(v.os),
        quote(v.arch),
        quote(v.toolchain),
        quote(v.target),
        quote(v.linking)
    )
}

/// `opm version -o json`: the same facts under upstream's JSON field names.
fn version_json() -> String {
    let Version {
        opm_version,
        git_commit,
        build_date,
        os,
        arch,
        toolchain,
        target,
        linking,
    } = version();
    let value = serde_json::json!({
        "opmVersion": opm_version,
        "gitCommit": git_commit,
        "buildDate": build_date,
        "goOs": os,
        "goArch": arch,
        "toolchain": toolchain,
        "target": target,
        "linking": linking,
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// How to pull images, from the global flags and the environment.
fn pull_options(global: &crate::cli::GlobalArgs) -> anyhow::Result<crate::image::PullOptions> {
    use std::io::IsTerminal as _;
    Ok(crate::image::PullOptions {
        transport: crate::image::Transport {
            // The deprecated --skip-tls alone means plain HTTP.
            use_http: global.use_http || global.skip_tls,
            skip_tls_verify: global.skip_tls_verify,
        },
        auth: crate::image::auth::AuthFiles::from_env(),
        progress: std::io::stderr().is_terminal(),
        platform: None,
        root_ca: None,
        limits: crate::image::remote::Limits::from_env()?,
    })
}

/// Upstream's flag-combination errors for the registry transport flags.
fn check_transport_flags(global: &crate::cli::GlobalArgs) -> anyhow::Result<()> {
    if global.skip_tls && global.use_http {
        bail!("invalid flag combination: cannot use --use-http with --skip-tls");
    }
    if global.skip_tls && global.skip_tls_verify {
        bail!("invalid flag combination: cannot use --skip-tls-verify with --skip-tls");
    }
    if global.use_http && global.skip_tls_verify {
        bail!("invalid flag combination: --use-http and --skip-tls-verify cannot both be true");
    }
    Ok(())
}

/// Cobra's `ExactArgs(1)` message.
fn exactly_one(args: &[String]) -> anyhow::Result<&str> {
    match args {
        [one] => Ok(one),
        _ => Err(usage(format!("accepts 1 arg(s), received {}", args.len()))),
    }
}

/// Upstream's check of `-o/--output` for catalog output.
fn output_format(
    value: crate::cli::Choice<crate::cli::CatalogFormat>,
) -> anyhow::Result<crate::declcfg::write::Format> {
    match value.known("(json|yaml)") {
        Ok(crate::cli::CatalogFormat::Json) => Ok(crate::declcfg::write::Format::Json),
        Ok(crate::cli::CatalogFormat::Yaml) => Ok(crate::declcfg::write::Format::Yaml),
        Err(invalid) => Err(usage(invalid.to_string())),
    }
}

/// Checks a `-b/--image-builder` value of the commands that pull a bundle
/// image.
pub(crate) fn check_image_builder(image_builder: &str) -> anyhow::Result<()> {
    if !crate::cli::bundle::PULL_IMAGE_BUILDERS.contains(&image_builder) {
        return Err(usage(format!(
            "invalid --image-builder value {}: must be one of [none, docker, podman]",
            crate::encoding::json::go_quote(image_builder)
        )));
    }
    Ok(())
}

/// Reads a bundle given as a directory or an image: an `image://` reference, or anything that
/// is not an existing path, is pulled and unpacked into a temporary directory that lives as long
/// as the value returned.
pub(crate) fn read_bundle(
    target: &str,
    image_builder: &str,
    global: &crate::cli::GlobalArgs,
) -> anyhow::Result<crate::bundle::BundleDir> {
    let image = match target.strip_prefix("image://") {
        Some(reference) => Some(reference.to_string()),
        None => match std::fs::metadata(target) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // A missing local path is an error, not a pull from Docker Hub.
                crate::image::source::Source::of(target)?;
                Some(target.to_string())
            }
            Err(e) => anyhow::bail!("stat {target}: {}", crate::declcfg::load::io_message(&e)),
            Ok(meta) if !meta.is_dir() => anyhow::bail!(
                "{} is not a directory",
                crate::encoding::json::go_quote(target)
            ),
            Ok(_) if crate::image::source::is_layout_dir(std::path::Path::new(target)) => {
                Some(target.to_string())
            }
            Ok(_) => None,
        },
    };
    Ok(match image {
        Some(reference) => crate::bundle::BundleDir::read_unpacked(
            crate::action::unpack_image::unpack_bundle_image(
                &reference,
                image_builder,
                &pull_options(global)?,
            )?,
        ),
        None => crate::bundle::BundleDir::read(std::path::Path::new(target)),
    })
}
