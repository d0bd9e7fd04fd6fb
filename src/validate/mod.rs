// STUB
pub struct CatalogVerdict {
    pub messages: Vec<String>,
}
impl CatalogVerdict {
    pub fn locations(&self) -> Vec<String> {
        vec![]
    }
    pub fn passed(&self) -> bool {
        self.messages.is_empty()
    }
    pub fn message(&self) -> Option<String> {
        if self.messages.is_empty() {
            None
        } else {
            Some(self.messages.join("\n"))
        }
    }
}
pub fn validate_catalog(_cfg: &crate::declcfg::DeclarativeConfig) -> CatalogVerdict {
    CatalogVerdict { messages: vec![] }
}
