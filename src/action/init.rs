//! `opm init`: an `olm.package` blob from a name, a default channel, and
//! optional description and icon files.

use crate::declcfg::{Icon, Package};
use crate::encoding::json::go_quote;

#[derive(Debug, Clone)]
pub struct Init {
    pub package: String,
    pub default_channel: String,
    /// Path of a file whose whole content becomes the description ("" for none).
    pub description_path: String,
    /// Path of an image file for the icon ("" for none).
    pub icon_path: String,
}

#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error("open description file: open {path}: {}", crate::declcfg::load::io_message(.source))]
    Description {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("open icon file: open {path}: {}", crate::declcfg::load::io_message(.source))]
    Icon {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("detect icon mediatype: Empty buffer")]
    EmptyIcon,
    #[error("detected invalid type {}: not an image", go_quote(.mime))]
    NotAnImage { mime: String },
}

impl Init {
    pub fn run(&self) -> Result<Package, InitError> {
        let description = if self.description_path.is_empty() {
            String::new()
        } else {
            let bytes =
                std::fs::read(&self.description_path).map_err(|source| InitError::Description {
                    path: self.description_path.clone(),
                    source,
                })?;
            String::from_utf8_lossy(&bytes).into_owned()
        };
        let icon = if self.icon_path.is_empty() {
            None
        } else {
            let data = std::fs::read(&self.icon_path).map_err(|source| InitError::Icon {
                path: self.icon_path.clone(),
                source,
            })?;
            if data.is_empty() {
                return Err(InitError::EmptyIcon);
            }
            let mime = super::icon::detect_mime(&data);
            if !mime.starts_with("image/") {
                return Err(InitError::NotAnImage {
                    mime: mime.to_string(),
                });
            }
            Some(Icon {
                base64: Some(crate::encoding::base64::encode(&data)),
                media_type: mime.to_string(),
            })
        };
        Ok(Package {
            name: self.package.clone(),
            default_channel: self.default_channel.clone(),
            icon,
            description,
            properties: Vec::new(),
            origin: None,
            deferred: None,
        })
    }
}
