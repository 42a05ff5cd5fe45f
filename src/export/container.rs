//! The outer file: a .glb (12-byte header, JSON chunk padded with spaces, BIN chunk padded
//! with zeros, each to 4 bytes), or a .gltf whose single buffer is a base64 data URI or, when
//! a URI is given for it, a .bin file beside it.

use super::{ExportError, Format};
use base64::Engine as _;
use serde_json::{Map, Value, json};

/// The framed file, and the .bin it names when the buffer is not inside it.
pub(super) struct Framed {
    pub file: Vec<u8>,
    pub bin: Option<Vec<u8>>,
}

/// Replaces `json.buffers` with the one merged buffer and frames the file. With `bin_uri`, a
/// .gltf names its buffer by that URI and the buffer comes back as the second file.
pub(super) fn write(
    mut json: Value,
    mut merged: Vec<u8>,
    format: Format,
    bin_uri: Option<&str>,
) -> Result<Framed, ExportError> {
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
        if format == Format::Gltf
            && let Some(uri) = bin_uri
        {
            buffer.insert("uri".into(), json!(uri));
        } else if format == Format::Gltf {
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
            let has_buffer = json.get("buffers").is_some();
            Ok(Framed { file: text, bin: bin_uri.filter(|_| has_buffer).map(|_| merged) })
        }
        Format::Glb => Ok(Framed { file: glb(&json, merged)?, bin: None }),
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
