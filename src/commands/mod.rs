//! Thin glue between the command line and the actions: check arguments the
//! way upstream (cobra) does, build the action input, run it, print.

mod bundle;
mod bundle_build;
mod bundle_generate;
mod bundle_init;
mod bundle_list;
mod bundle_unpack;
mod bundle_validate;
mod convert_template;
mod diff;
mod dockerfile;
mod init;
mod list;
mod migrate;
mod render;
mod render_graph;
mod render_template;
mod serve;
mod validate;

use crate::cli::{AlphaCommand, Cli, Command, GenerateCommand};
use crate::ExitStatus;
use anyhow::bail;

pub fn dispatch(cli: Cli) -> anyhow::Result<ExitStatus> {
    let Cli { global, command } = cli;
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
        Command::Version => {
            crate::output::stdout(version_line().as_bytes())?;
            Ok(ExitStatus::Success)
        }
        Command::Completion(args) => {
            let mut command = <Cli as clap::CommandFactory>::command();
            let mut script = Vec::new();
            clap_complete::generate(args.shell, &mut command, "opm", &mut script);
            crate::output::stdout(&script)?;
            Ok(ExitStatus::Success)
        }
    }
}

/// Upstream's `opm version` line, with our build facts.
fn version_line() -> String {
    format!(
        "Version: version.Version{{OpmVersion:\"v{}\", GitCommit:\"{}\", BuildDate:\"{}\", GoOs:\"{}\", GoArch:\"{}\"}}\n",
        env!("CARGO_PKG_VERSION"),
        option_env!("OPM_GIT_COMMIT").unwrap_or("unknown"),
        option_env!("OPM_BUILD_DATE").unwrap_or("unknown"),
        std::env::consts::OS,
        match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            other => other,
        }
    )
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
        _ => bail!("accepts 1 arg(s), received {}", args.len()),
    }
}

/// Upstream's check of `-o/--output` for catalog output.
fn output_format(value: &str) -> anyhow::Result<crate::declcfg::write::Format> {
    match value {
        "json" => Ok(crate::declcfg::write::Format::Json),
        "yaml" => Ok(crate::declcfg::write::Format::Yaml),
        other => bail!(
            "invalid --output value {}, expected (json|yaml)",
            crate::encoding::json::go_quote(other)
        ),
    }
}

/// The `-b/--image-builder` values of the commands that pull a bundle image.
pub(crate) fn check_image_builder(image_builder: &str) -> anyhow::Result<()> {
    if !["none", "docker", "podman"].contains(&image_builder) {
        anyhow::bail!(
            "invalid --image-builder value {}: must be one of [none, docker, podman]",
            crate::encoding::json::go_quote(image_builder)
        );
    }
    Ok(())
}

/// A bundle given as a directory or an image: an `image://` reference, or
/// anything that is not an existing path, is pulled and unpacked into a
/// temporary directory that lives as long as this value.
pub(crate) struct BundleDir {
    dir: std::path::PathBuf,
    _unpacked: Option<crate::fsutil::TempDir>,
}

impl BundleDir {
    /// The directory the user named, when the bundle is one (not an unpacked image).
    pub(crate) fn shown_as(&self) -> Option<&std::path::Path> {
        self._unpacked.is_none().then_some(self.dir.as_path())
    }

    pub(crate) fn resolve(
        target: &str,
        image_builder: &str,
        global: &crate::cli::GlobalArgs,
    ) -> anyhow::Result<BundleDir> {
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
            Some(reference) => {
                let unpacked = crate::action::unpack_image::unpack_bundle_image(
                    &reference,
                    image_builder,
                    &pull_options(global)?,
                )?;
                BundleDir {
                    dir: unpacked.path().to_path_buf(),
                    _unpacked: Some(unpacked),
                }
            }
            None => BundleDir {
                dir: std::path::PathBuf::from(target),
                _unpacked: None,
            },
        })
    }

    pub(crate) fn path(&self) -> &std::path::Path {
        &self.dir
    }
}
