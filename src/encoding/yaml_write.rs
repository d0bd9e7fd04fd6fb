// STUB
pub fn write_document(value: &serde_json::Value, out: &mut Vec<u8>) {
    out.extend_from_slice(yaml_serde::to_string(value).unwrap_or_default().as_bytes());
}
