//! `opm alpha convert-template basic|substitutes [FILE|-] [-o json|yaml]`.

use crate::action::convert_template::{convert, write, Kind};
use crate::cli::authoring::{ConvertArgs, ConvertTemplateCommand};
use crate::cli::CatalogFormat;
use crate::encoding::json::go_quote;
use crate::ExitStatus;
use anyhow::bail;
use std::io::Read as _;

/// The bytes of `file`, or of standard input for `-`, within the catalog
/// file size limit.
pub(super) fn read_file_or_stdin(file: &str) -> anyhow::Result<Vec<u8>> {
    let limit = crate::fsutil::Limit::Catalog;
    if file == "-" {
        let max = limit.bytes()?;
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(max.saturating_add(1))
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > max {
            bail!(
                "standard input is larger than {max} bytes ({})",
                limit.variable()
            );
        }
        return Ok(bytes);
    }
    let path = std::path::Path::new(file);
    let tree = path.parent().unwrap_or(std::path::Path::new("."));
    crate::fsutil::read_input(path, tree, limit).map_err(|e| match e.io_message() {
        Some(text) => anyhow::anyhow!("open {file}: {text}"),
        None => anyhow::Error::new(e),
    })
}

pub(super) fn run(command: ConvertTemplateCommand) -> anyhow::Result<ExitStatus> {
    let (kind, ConvertArgs { file, output }) = match command {
        ConvertTemplateCommand::Basic(args) => (Kind::Basic, args),
        ConvertTemplateCommand::Substitutes(args) => (Kind::Substitutes, args),
    };
    let yaml = match output.known("(json|yaml)")? {
        CatalogFormat::Json => false,
        CatalogFormat::Yaml => true,
    };
    let file = match file.as_slice() {
        [] => "-",
        [one] => one.as_str(),
        many => bail!("accepts at most 1 arg(s), received {}", many.len()),
    };
    let bytes = read_file_or_stdin(file)
        .map_err(|_| anyhow::anyhow!("unable to open input: {}", go_quote(file)))?;
    let template = convert(&bytes, kind).map_err(|e| anyhow::anyhow!("converting: {e}"))?;
    crate::output::stdout(write(&template, yaml).as_bytes())?;
    Ok(ExitStatus::Success)
}
