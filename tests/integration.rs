//! The only integration-test binary: runs the built `opm` on temporary
//! directories and checks exit codes, stdout and stderr.

mod util;

mod authoring;
mod bundle_build;

mod bundle_generate;
mod bundle_init;
mod bundle_list;
mod bundle_malformed;
mod bundle_validate;
mod catalog_image;
mod cli;
mod corpus;
mod csvless;
mod diagnostics;
mod dockerfile;
mod fuzz;
mod hints;
mod hostile_files;
mod image;
mod image_build;
mod image_hostile;
mod image_tools;
mod init;
mod layering;
mod malformed;
mod probe;
mod registry_hostile;
mod related_images;
mod render;
mod serve;
mod validate;
