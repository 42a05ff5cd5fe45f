//! One buffer from many: the original buffers end to end, each starting on a 4-byte
//! boundary (the largest alignment glTF asks of a buffer view's data), every buffer view
//! moved to buffer 0 at its old offset plus its buffer's start.
//!
//! Meshopt-compressed views are written plainly: a view's own `buffer`/`byteOffset` hold
//! its uncompressed data (the fallback the file carries, or what loading decoded into it),
//! so the extension is dropped from views, buffers and the declarations, and the compressed
//! bytes, no longer named by any view, are left for `prune` to remove.

use super::ExportError;
use serde_json::{Value, json};

/// Extensions whose buffer views name a second, compressed copy of their data.
pub(super) const MESHOPT: &[&str] = &["EXT_meshopt_compression", "KHR_meshopt_compression"];

/// Concatenates `buffers` and rewrites `json`'s buffer views to point into the result.
/// The `buffers` array of `json` is left for `container` to replace.
pub(super) fn merge_buffers(json: &mut Value, buffers: &[Vec<u8>]) -> Result<Vec<u8>, ExportError> {
    drop_meshopt(json);
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

/// Removes the meshopt extensions from buffer views, buffers and `extensionsUsed`/
/// `extensionsRequired` (see the module comment).
fn drop_meshopt(json: &mut Value) {
    for key in ["bufferViews", "buffers"] {
        for item in json.get_mut(key).and_then(Value::as_array_mut).into_iter().flatten() {
            let Some(object) = item.as_object_mut() else { continue };
            let empty = object.get_mut("extensions").and_then(Value::as_object_mut).is_some_and(|ext| {
                ext.retain(|name, _| !MESHOPT.contains(&name.as_str()));
                ext.is_empty()
            });
            if empty {
                object.remove("extensions");
            }
        }
    }
    let Some(root) = json.as_object_mut() else { return };
    for key in ["extensionsUsed", "extensionsRequired"] {
        let empty = root.get_mut(key).and_then(Value::as_array_mut).is_some_and(|list| {
            list.retain(|e| !e.as_str().is_some_and(|name| MESHOPT.contains(&name)));
            list.is_empty()
        });
        if empty {
            root.remove(key);
        }
    }
}

/// Pads with zeros to the next multiple of 4.
pub(super) fn align4(bytes: &mut Vec<u8>) {
    bytes.resize(bytes.len().next_multiple_of(4), 0);
}
