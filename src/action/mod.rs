//! Use cases, one per command: plain input structs and `run`. No clap, no
//! stdout, no exit codes: results and errors are returned to `commands`.

pub mod bundle_build;
pub mod bundle_generate;
pub mod bundle_init;
pub mod bundle_list;
pub mod bundle_unpack;
pub mod catalog;
pub mod catalog_build;
pub mod convert_template;
pub mod diff;
pub mod dockerfile;
pub mod hints;
pub mod icon;
pub mod init;
pub mod list;
pub mod migrate;
pub mod render;
pub mod render_template;
pub mod template;
pub mod unpack_image;
