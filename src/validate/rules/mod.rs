//! The rules, one small unit each, grouped by what they look at.

pub mod bundle;
pub mod channel;
pub mod conversion;
pub mod graph;
pub mod package;

#[cfg(test)]
mod tests;
