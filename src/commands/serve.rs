use crate::cli::serve::ServeArgs;
use crate::cli::GlobalArgs;
use crate::encoding::json::go_quote;
use crate::serve::{write_termination_log, Serve};
use crate::ExitStatus;
use anyhow::bail;

pub(super) fn run(args: ServeArgs, global: &GlobalArgs) -> anyhow::Result<ExitStatus> {
    // Profiling endpoints are Go's; the flags are accepted and do nothing.
    let ServeArgs {
        dirs,
        termination_log,
        port,
        pprof_addr: _,
        pprof_capture_profiles: _,
        cache_dir,
        cache_only,
        cache_enforce_integrity,
    } = args;
    let dir = super::exactly_one(&dirs)?;
    let result = check_dir(dir).and_then(|()| {
        Serve {
            dir: dir.to_string(),
            port,
            debug: global.debug,
            cache_dir,
            cache_only,
            cache_enforce_integrity,
            log: crate::output::info,
        }
        .run()
        .map_err(anyhow::Error::from)
    });
    if let Err(error) = &result {
        // A catalog that fails validation is shown as `opm validate` shows it.
        let shown = error.chain().find_map(|cause| match cause.downcast_ref() {
            Some(crate::serve::ServeError::Index(crate::serve::index::IndexError::Invalid {
                shown,
            })) => Some(shown),
            _ => None,
        });
        let mut text = String::new();
        for line in shown
            .map(|shown| shown.lines.as_slice())
            .unwrap_or_default()
        {
            crate::output::info(line);
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&crate::diag::error_chain(error.chain()));
        write_termination_log(&termination_log, &text);
    }
    result.map(|()| ExitStatus::Success)
}

fn check_dir(dir: &str) -> anyhow::Result<()> {
    match std::fs::metadata(dir) {
        Err(e) => bail!("stat {dir}: {}", crate::declcfg::load::io_message(&e)),
        Ok(meta) if !meta.is_dir() => bail!("{} is not a directory", go_quote(dir)),
        Ok(_) => Ok(()),
    }
}
