// STUB
pub struct ParsedBundle;
impl ParsedBundle {
    pub fn parse(_dir: &std::path::Path) -> Result<ParsedBundle, String> {
        Err("bundle directories are not supported yet".into())
    }
    pub fn template_fields(&self) -> crate::action::template::BundleFields {
        Default::default()
    }
    pub fn render(&self, _image: &str) -> crate::declcfg::Bundle {
        Default::default()
    }
}
