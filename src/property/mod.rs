//! Property types and the typed views of their values that more than one
//! layer needs. No I/O.

pub mod csv_metadata;
pub mod shape;

use crate::encoding::base64;
use crate::encoding::json::type_name as json_type_name;
use serde_json::Value;

pub const PACKAGE: &str = "olm.package";
pub const PACKAGE_REQUIRED: &str = "olm.package.required";
pub const GVK: &str = "olm.gvk";
pub const GVK_REQUIRED: &str = "olm.gvk.required";
pub const BUNDLE_OBJECT: &str = "olm.bundle.object";
pub const CSV_METADATA: &str = "olm.csv.metadata";
pub const CHANNEL: &str = "olm.channel";

/// Why an `olm.bundle.object` value does not decode, in Go's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BundleObjectError {
    /// The property has no `value` key.
    #[error("unexpected end of JSON input")]
    Missing,
    /// The value is not an object (the JSON type name).
    #[error("json: cannot unmarshal {0} into Go value of type property.BundleObject")]
    NotAnObject(&'static str),
    /// `data` is not a string (the JSON type name).
    #[error("json: cannot unmarshal {0} into Go struct field BundleObject.data of type []uint8")]
    DataNotAString(&'static str),
    #[error(transparent)]
    Base64(#[from] base64::CorruptInput),
}

/// Decodes an `olm.bundle.object` value (`{"data": <base64>}`) like upstream's
/// `property.BundleObject`, returning the manifest bytes (empty when absent).
pub fn bundle_object_data(value: Option<&Value>) -> Result<Vec<u8>, BundleObjectError> {
    Ok(base64::decode_go(bundle_object_base64(value)?.as_bytes())?)
}

/// Checks an `olm.bundle.object` value decodes, without keeping the bytes.
pub fn check_bundle_object(value: Option<&Value>) -> Result<(), BundleObjectError> {
    base64::validate_go(bundle_object_base64(value)?.as_bytes())?;
    Ok(())
}

/// The base64 text of an `olm.bundle.object` value ("" when absent).
pub fn bundle_object_base64(value: Option<&Value>) -> Result<&str, BundleObjectError> {
    let Some(value) = value else {
        return Err(BundleObjectError::Missing);
    };
    let map = match value {
        Value::Null => return Ok(""),
        Value::Object(map) => map,
        other => return Err(BundleObjectError::NotAnObject(json_type_name(other))),
    };
    match crate::encoding::json::field(map, "data") {
        None | Some(Value::Null) => Ok(""),
        Some(Value::String(text)) => Ok(text),
        Some(other) => Err(BundleObjectError::DataNotAString(json_type_name(other))),
    }
}
