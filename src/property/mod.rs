//! Property types and the typed views of their values that more than one
//! layer needs. No I/O.

pub mod csv_metadata;

use crate::encoding::base64;
use crate::encoding::json::type_name as json_type_name;
use serde_json::Value;

pub const PACKAGE: &str = "olm.package";
pub const PACKAGE_REQUIRED: &str = "olm.package.required";
pub const GVK: &str = "olm.gvk";
pub const GVK_REQUIRED: &str = "olm.gvk.required";
pub const BUNDLE_OBJECT: &str = "olm.bundle.object";
pub const CSV_METADATA: &str = "olm.csv.metadata";

/// Decodes an `olm.bundle.object` value (`{"data": <base64>}`) like upstream's
/// `property.BundleObject`, returning the manifest bytes (empty when absent).
pub fn bundle_object_data(value: Option<&Value>) -> Result<Vec<u8>, String> {
    base64::decode_go(bundle_object_base64(value)?.as_bytes()).map_err(|e| e.to_string())
}

/// Checks an `olm.bundle.object` value decodes, without keeping the bytes.
pub fn check_bundle_object(value: Option<&Value>) -> Result<(), String> {
    base64::validate_go(bundle_object_base64(value)?.as_bytes())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The base64 text of an `olm.bundle.object` value ("" when absent).
pub fn bundle_object_base64(value: Option<&Value>) -> Result<&str, String> {
    let Some(value) = value else {
        return Err("unexpected end of JSON input".to_string());
    };
    let map = match value {
        Value::Null => return Ok(""),
        Value::Object(map) => map,
        other => {
            return Err(format!(
                "json: cannot unmarshal {} into Go value of type property.BundleObject",
                json_type_name(other)
            ))
        }
    };
    let data = map.get("data").or_else(|| {
        map.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("data"))
            .map(|(_, v)| v)
    });
    match data {
        None | Some(Value::Null) => Ok(""),
        Some(Value::String(text)) => Ok(text),
        Some(other) => Err(format!(
            "json: cannot unmarshal {} into Go struct field BundleObject.data of type []uint8",
            json_type_name(other)
        )),
    }
}
