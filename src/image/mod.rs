//! Container images: references (parsing and normalisation).

pub mod auth;
pub mod reference;
