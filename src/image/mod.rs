//! Container images: references (parsing and normalisation).

pub mod reference;
