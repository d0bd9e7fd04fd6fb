// STUB
pub fn yaml_to_json(text: &str) -> Result<serde_json::Value, String> {
    yaml_serde::from_str(text).map_err(|e| e.to_string())
}
