//! The outer file: a .glb (12-byte header, JSON chunk padded with spaces, BIN chunk padded
//! with zeros, each to 4 bytes) or a .gltf whose single buffer is a base64 data URI.

use super::{ExportError, Format};
use base64::Engine as _;
use serde_json::{Map, Value, json};

/// Replaces `json.buffers` with the one merged buffer and frames the file.
pub(super) fn write(mut json: Value, mut merged: Vec<u8>, format: Format) -> Result<Vec<u8>, ExportError> {
    let root =
        json.as_object_mut().ok_or_else(|| ExportError::at("", "the document is not a JSON object"))?;
    let has_views = root.get("bufferViews").and_then(Value::as_array).is_some_and(|v| !v.is_empty());
    if merged.is_empty() && !has_views {
        // A buffer must have byteLength >= 1; with no data there is no buffer at all.
        root.remove("buffers");
    } else {
        // Views of an empty buffer (never read, so the file loaded) still need a buffer to
        // name: 4 zero bytes, as a BIN chunk would be padded.
        if merged.is_empty() {
            merged.resize(4, 0);
        }
        // Keep the first buffer's name, extensions and extras; its uri and length are new.
        let mut buffer = match root.get("buffers").and_then(|b| b.get(0)).and_then(Value::as_object) {
            Some(first) => first.clone(),
            None => Map::new(),
        };
        buffer.remove("uri");
        buffer.insert("byteLength".into(), json!(merged.len()));
        if format == Format::Gltf {
            let encoded = base64::engine::general_purpose::STANDARD.encode(&merged);
            buffer.insert("uri".into(), json!(format!("data:application/octet-stream;base64,{encoded}")));
        }
        root.insert("buffers".into(), json!([buffer]));
    }
    match format {
        Format::Gltf => {
            let mut text =
                serde_json::to_vec_pretty(&json).map_err(|e| ExportError::at("", e.to_string()))?;
            text.push(b'\n');
            Ok(text)
        }
        Format::Glb => glb(&json, merged),
    }
}

pub(crate) fn glb(json: &Value, mut bin: Vec<u8>) -> Result<Vec<u8>, ExportError> {
    let mut text = serde_json::to_vec(json).map_err(|e| ExportError::at("", e.to_string()))?;
    text.resize(text.len().next_multiple_of(4), b' ');
    bin.resize(bin.len().next_multiple_of(4), 0);
    let bin_chunk = if bin.is_empty() { 0 } else { 8 + bin.len() };
    let total = 12 + 8 + text.len() + bin_chunk;
    let word = |n: usize| u32::try_from(n).map(u32::to_le_bytes).map_err(|_| ExportError::TooLarge(total));
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&word(total)?);
    out.extend_from_slice(&word(text.len())?);
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    if !bin.is_empty() {
        out.extend_from_slice(&word(bin.len())?);
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
    }
    Ok(out)
}
