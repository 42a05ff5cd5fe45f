//! One buffer from many: the original buffers end to end, each starting on a 4-byte
//! boundary (the largest alignment glTF asks of a buffer view's data), every buffer view
//! moved to buffer 0 at its old offset plus its buffer's start.

use super::ExportError;
use serde_json::{Value, json};

/// Extensions whose buffer views point at a second buffer by index (the compressed data);
/// merging would leave those indices dangling.
const BUFFER_INDEX_EXTENSIONS: &[&str] = &["EXT_meshopt_compression", "KHR_meshopt_compression"];

/// Concatenates `buffers` and rewrites `json`'s buffer views to point into the result.
/// The `buffers` array of `json` is left for `container` to replace.
pub(super) fn merge_buffers(json: &mut Value, buffers: &[Vec<u8>]) -> Result<Vec<u8>, ExportError> {
    if let Some(used) = json.get("extensionsUsed").and_then(Value::as_array) {
        for ext in used.iter().filter_map(Value::as_str) {
            if BUFFER_INDEX_EXTENSIONS.contains(&ext) {
                return Err(ExportError::Compressed(ext.to_string()));
            }
        }
    }
    let mut merged = Vec::with_capacity(buffers.iter().map(|b| b.len() + 3).sum());
    let mut starts = Vec::with_capacity(buffers.len());
    for buffer in buffers {
        align4(&mut merged);
        starts.push(merged.len() as u64);
        merged.extend_from_slice(buffer);
    }
    let Some(views) = json.get_mut("bufferViews").and_then(Value::as_array_mut) else {
        return Ok(merged);
    };
    for (i, view) in views.iter_mut().enumerate() {
        let at = format!("bufferViews[{i}]");
        let Some(view) = view.as_object_mut() else {
            return Err(ExportError::at(at, "is not an object"));
        };
        let buffer = view.get("buffer").and_then(Value::as_u64);
        let start = buffer
            .and_then(|b| usize::try_from(b).ok())
            .and_then(|b| starts.get(b))
            .ok_or_else(|| ExportError::at(format!("{at}.buffer"), "does not name a buffer"))?;
        let offset = match view.get("byteOffset") {
            None => 0,
            Some(v) => v
                .as_u64()
                .ok_or_else(|| ExportError::at(format!("{at}.byteOffset"), "is not a whole number"))?,
        };
        view.insert("buffer".into(), json!(0));
        view.insert("byteOffset".into(), json!(offset + start));
    }
    Ok(merged)
}

/// Pads with zeros to the next multiple of 4.
pub(super) fn align4(bytes: &mut Vec<u8>) {
    bytes.resize(bytes.len().next_multiple_of(4), 0);
}
