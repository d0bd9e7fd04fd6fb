// STUB
pub enum Document<'a> {
    Json(&'a str),
    Yaml(serde_json::Value),
}
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct StreamError {
    pub index: usize,
    pub message: String,
}
pub fn decode_documents(bytes: &[u8]) -> Result<Vec<Document<'_>>, StreamError> {
    let text = std::str::from_utf8(bytes).map_err(|e| StreamError {
        index: 0,
        message: e.to_string(),
    })?;
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        let mut out = Vec::new();
        let mut it =
            serde_json::Deserializer::from_str(text).into_iter::<&serde_json::value::RawValue>();
        while let Some(v) = it.next() {
            let v = v.map_err(|e| StreamError {
                index: out.len(),
                message: e.to_string(),
            })?;
            out.push(Document::Json(v.get()));
        }
        return Ok(out);
    }
    let mut out = Vec::new();
    for doc in text.split("\n---") {
        if doc.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = yaml_serde::from_str(doc).map_err(|e| StreamError {
            index: out.len(),
            message: e.to_string(),
        })?;
        out.push(Document::Yaml(v));
    }
    Ok(out)
}
