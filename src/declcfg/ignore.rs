// STUB
#[derive(Debug, thiserror::Error)]
#[error("ignore")]
pub struct IgnoreError;
pub struct IndexIgnore;
impl IndexIgnore {
    pub fn load(_root: &std::path::Path) -> Result<IndexIgnore, IgnoreError> { Ok(IndexIgnore) }
    pub fn is_ignored(&self, _rel: &[&str]) -> bool { false }
}
