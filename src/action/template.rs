//! The `--alpha-image-ref-template` mini language: text with `{{.Package}}`,
//! `{{.Name}}` and `{{.Version}}` actions, as upstream's Go text/template
//! use allows. Anything beyond field references is rejected when parsing.

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRefTemplate {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Field(String),
}

pub use crate::bundle::TemplateFields as BundleFields;

const NAME: &str = "image-ref-template";

/// What is wrong with an image reference template, in the words of Go's `text/template`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("template: {NAME}:{line}: unclosed action")]
    Unclosed { line: usize },
    #[error("template: {NAME}:{line}: missing value for command")]
    MissingValue { line: usize },
    #[error("template: {NAME}:{line}: unsupported action {}", crate::encoding::json::go_quote(.action))]
    Unsupported { line: usize, action: String },
    /// A field the bundle data does not have (found when the template is executed).
    #[error("template: {NAME}:1:2: executing {} at <.{field}>: can't evaluate field {field} in type action.bundleTemplateData", crate::encoding::json::go_quote(NAME))]
    UnknownField { field: String },
}

impl ImageRefTemplate {
    /// Parses `text`; errors read like Go's template parse errors.
    pub fn parse(text: &str) -> Result<ImageRefTemplate, TemplateError> {
        let mut parts = Vec::new();
        let mut rest = text;
        let mut line = 1;
        while let Some(start) = rest.find("{{") {
            if start > 0 {
                parts.push(Part::Text(rest[..start].to_string()));
            }
            line += rest[..start].matches('\n').count();
            let after = &rest[start + 2..];
            let Some(end) = after.find("}}") else {
                return Err(TemplateError::Unclosed { line });
            };
            let inner = after[..end].trim();
            let field = inner.strip_prefix('.').filter(|f| {
                !f.is_empty() && f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
            match field {
                Some(field) => parts.push(Part::Field(field.to_string())),
                None if inner.is_empty() => return Err(TemplateError::MissingValue { line }),
                None => {
                    return Err(TemplateError::Unsupported {
                        line,
                        action: inner.to_string(),
                    })
                }
            }
            rest = &after[end + 2..];
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_string()));
        }
        Ok(ImageRefTemplate { parts })
    }

    /// Fills the template in; an unknown field is an execution error.
    pub fn execute(&self, fields: &BundleFields) -> Result<String, TemplateError> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Field(field) => match field.as_str() {
                    "Package" => out.push_str(&fields.package),
                    "Name" => out.push_str(&fields.name),
                    "Version" => out.push_str(&fields.version),
                    other => {
                        return Err(TemplateError::UnknownField {
                            field: other.to_string(),
                        })
                    }
                },
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields() -> BundleFields {
        BundleFields {
            package: "foo".into(),
            name: "foo.v0.2.0".into(),
            version: "0.2.0".into(),
        }
    }

    #[test]
    fn fields_are_substituted() {
        let t =
            ImageRefTemplate::parse("quay.io/example/{{.Package}}-bundle:v{{ .Version }}").unwrap();
        assert_eq!(
            t.execute(&fields()).unwrap(),
            "quay.io/example/foo-bundle:v0.2.0"
        );
        let t = ImageRefTemplate::parse("fixed:latest").unwrap();
        assert_eq!(t.execute(&fields()).unwrap(), "fixed:latest");
    }

    #[test]
    fn errors() {
        assert_eq!(
            ImageRefTemplate::parse("a\nquay.io/{{.Package")
                .unwrap_err()
                .to_string(),
            "template: image-ref-template:2: unclosed action"
        );
        assert_eq!(
            ImageRefTemplate::parse("{{ .A-B }}")
                .unwrap_err()
                .to_string(),
            "template: image-ref-template:1: unsupported action \".A-B\""
        );
        assert!(ImageRefTemplate::parse("{{}}").is_err());
        let t = ImageRefTemplate::parse("quay.io/{{.Nope}}:1").unwrap();
        assert_eq!(
            t.execute(&fields()).unwrap_err().to_string(),
            "template: image-ref-template:1:2: executing \"image-ref-template\" at <.Nope>: can't evaluate field Nope in type action.bundleTemplateData"
        );
    }
}
