// STUB
pub fn detect_mime(_bytes: &[u8]) -> &'static str { "" }
