//! `opm alpha list packages|channels|bundles`: the rows of upstream's tables,
//! from the checked model of a catalog (an invalid catalog is an error, as
//! upstream's model conversion is).

use super::render::RenderError;
use crate::declcfg::DeclarativeConfig;
use crate::encoding::json::go_quote;
use crate::model::Model;

/// What to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    Packages,
    Channels,
    Bundles,
}

#[derive(Debug, thiserror::Error)]
pub enum ListError {
    #[error("cannot list non-index {}", go_quote(.0))]
    NotAnIndex(String),
    #[error(transparent)]
    Render(#[from] RenderError),
    /// The catalog does not convert to a valid model (upstream's message).
    #[error("{0}")]
    Invalid(String),
    #[error("package {} not found", go_quote(.0))]
    UnknownPackage(String),
}

/// One table: the header and the rows, cells as upstream prints them, and
/// the same rows as JSON objects (`-o json`).
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub objects: Vec<serde_json::Value>,
}

/// Lists `what` of `config`, for one package or all.
///
/// # Errors
/// An invalid catalog, or an unknown package.
pub fn list(
    config: &DeclarativeConfig,
    what: What,
    package: Option<&str>,
) -> Result<Table, ListError> {
    // One conversion serves both the validation and the tables.
    let conversion = crate::model::convert::convert(config.clone());
    let verdict = crate::validate::validate_converted(&conversion, crate::validate::registry::ALL);
    if let Some(message) = verdict.message() {
        return Err(ListError::Invalid(message));
    }
    let model = conversion.model;
    let packages: Vec<&crate::model::Package> = match package {
        Some(name) if what != What::Packages => vec![model
            .packages
            .get(name)
            .ok_or_else(|| ListError::UnknownPackage(name.to_string()))?],
        _ => model.packages.values().collect(),
    };
    Ok(match what {
        What::Packages => packages_table(config, &model)?,
        What::Channels => channels_table(&packages),
        What::Bundles => bundles_table(&packages),
    })
}

/// Maps a render failure of a non-catalog reference to upstream's message.
pub fn render_error(reference: &str, error: RenderError) -> ListError {
    match error {
        RenderError::NotAllowed { .. } => ListError::NotAnIndex(reference.to_string()),
        other => ListError::Render(other),
    }
}

fn strings(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| (*c).to_string()).collect()
}

fn packages_table(config: &DeclarativeConfig, model: &Model) -> Result<Table, ListError> {
    let mut table = Table {
        header: strings(&["NAME", "DISPLAY NAME", "DEFAULT CHANNEL"]),
        rows: Vec::new(),
        objects: Vec::new(),
    };
    for package in model.packages.values() {
        let default = package.default_channel.clone().unwrap_or_default();
        let display = display_name(config, package)?;
        table.objects.push(serde_json::json!({
            "name": package.name,
            "displayName": display,
            "defaultChannel": default,
        }));
        table
            .rows
            .push(vec![package.name.clone(), display, default]);
    }
    Ok(table)
}

/// The display name of the default channel head's CSV (empty without one).
fn display_name(
    config: &DeclarativeConfig,
    package: &crate::model::Package,
) -> Result<String, ListError> {
    let Some(channel) = package
        .default_channel
        .as_ref()
        .and_then(|name| package.channels.get(name))
    else {
        return Ok(String::new());
    };
    let Ok(head) = channel.head() else {
        return Ok(String::new());
    };
    let bundle = super::catalog::bundle_with_objects(config, &package.name, &head.name)?;
    Ok(bundle
        .as_ref()
        .and_then(super::migrate::bundle_csv)
        .and_then(|csv| {
            csv.get("spec")?
                .get("displayName")?
                .as_str()
                .map(str::to_string)
        })
        .unwrap_or_default())
}

fn channels_table(packages: &[&crate::model::Package]) -> Table {
    let mut table = Table {
        header: strings(&["PACKAGE", "CHANNEL", "HEAD"]),
        rows: Vec::new(),
        objects: Vec::new(),
    };
    for package in packages {
        for channel in package.channels.values() {
            let head = match channel.head() {
                Ok(head) => head.name.clone(),
                Err(error) => format!("ERROR: {error}"),
            };
            table.objects.push(serde_json::json!({
                "package": package.name,
                "channel": channel.name,
                "head": head,
            }));
            table
                .rows
                .push(vec![package.name.clone(), channel.name.clone(), head]);
        }
    }
    table
}

fn bundles_table(packages: &[&crate::model::Package]) -> Table {
    let mut table = Table {
        header: strings(&[
            "PACKAGE",
            "CHANNEL",
            "BUNDLE",
            "REPLACES",
            "SKIPS",
            "SKIP RANGE",
            "IMAGE",
        ]),
        rows: Vec::new(),
        objects: Vec::new(),
    };
    for package in packages {
        for channel in package.channels.values() {
            for bundle in channel.bundles.values() {
                table.objects.push(serde_json::json!({
                    "package": package.name,
                    "channel": channel.name,
                    "bundle": bundle.name,
                    "replaces": bundle.replaces,
                    "skips": bundle.skips,
                    "skipRange": bundle.skip_range,
                    "image": bundle.image,
                }));
                table.rows.push(vec![
                    package.name.clone(),
                    channel.name.clone(),
                    bundle.name.clone(),
                    bundle.replaces.clone(),
                    bundle.skips.join(","),
                    bundle.skip_range.clone(),
                    bundle.image.clone(),
                ]);
            }
        }
    }
    table
}
