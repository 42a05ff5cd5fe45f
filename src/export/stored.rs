//! Copying an accessor of another file as it is stored: its JSON (component type, normalized
//! flag, count, min/max, sparse substitution, name, extras) and the bytes of its elements, into
//! new buffer views of the merged buffer. Quantized (normalized-integer) key data stays
//! quantized and a sparse accessor stays sparse, so a reader decodes the same numbers from the
//! copy as from the original, whatever its decoder does with them. Elements are copied packed:
//! a stride in the source view (which glTF allows only for vertex attributes) is not kept.

use super::merge::align4;
use super::{ExportError, push};
use serde_json::{Map, Value, json};

/// Bytes per component of a glTF component type.
fn component_size(component_type: u64) -> Option<usize> {
    match component_type {
        5120 | 5121 => Some(1),
        5122 | 5123 => Some(2),
        5125 | 5126 => Some(4),
        _ => None,
    }
}

/// Components per element of an accessor type.
fn component_count(ty: &str) -> Option<usize> {
    match ty {
        "SCALAR" => Some(1),
        "VEC2" => Some(2),
        "VEC3" => Some(3),
        "VEC4" | "MAT2" => Some(4),
        "MAT3" => Some(9),
        "MAT4" => Some(16),
        _ => None,
    }
}

/// The file an accessor is copied from: its JSON and its buffers' bytes (as `RawAsset` holds
/// them, compressed views already decoded in place).
pub(super) struct From<'a> {
    pub json: &'a Value,
    pub buffers: &'a [Vec<u8>],
}

impl From<'_> {
    /// Appends accessor `index` of this file to `json` and `merged`; returns its new index.
    pub(super) fn copy_accessor(
        &self,
        index: usize,
        json: &mut Value,
        merged: &mut Vec<u8>,
    ) -> Result<usize, ExportError> {
        let at = format!("accessors[{index}]");
        let accessor = self
            .json
            .get("accessors")
            .and_then(|list| list.get(index))
            .and_then(Value::as_object)
            .ok_or_else(|| ExportError::at(&at, "does not exist in the library"))?;
        let component_type = accessor.get("componentType").and_then(Value::as_u64).unwrap_or(0);
        let size = component_size(component_type)
            .ok_or_else(|| ExportError::at(format!("{at}.componentType"), "is not a glTF component type"))?;
        let components = accessor
            .get("type")
            .and_then(Value::as_str)
            .and_then(component_count)
            .ok_or_else(|| ExportError::at(format!("{at}.type"), "is not a glTF accessor type"))?;
        let count = whole(accessor.get("count"), &format!("{at}.count"))?.unwrap_or(0);
        let element = size * components;

        let mut copy: Map<String, Value> = accessor.clone();
        // An extension on the accessor would need its declaration, and nothing in a sampler's
        // accessor is defined by one.
        copy.remove("extensions");
        copy.remove("byteOffset");
        if let Some(view) = accessor.get("bufferView") {
            let view = index_of(Some(view), &format!("{at}.bufferView"))?;
            let offset = whole(accessor.get("byteOffset"), &format!("{at}.byteOffset"))?.unwrap_or(0);
            let new_view = self.copy_range(view, offset, count, element, json, merged, &at)?;
            copy.insert("bufferView".into(), json!(new_view));
        }
        if let Some(sparse) = accessor.get("sparse").and_then(Value::as_object) {
            let sparse_at = format!("{at}.sparse");
            let n = whole(sparse.get("count"), &format!("{sparse_at}.count"))?.unwrap_or(0);
            let index_type =
                sparse.get("indices").and_then(|i| i.get("componentType")).and_then(Value::as_u64);
            let index_size = index_type.and_then(component_size).ok_or_else(|| {
                ExportError::at(format!("{sparse_at}.indices.componentType"), "is not a glTF component type")
            })?;
            let mut new_sparse = sparse.clone();
            new_sparse.remove("extensions");
            for (part, item) in [("indices", index_size), ("values", element)] {
                let part_at = format!("{sparse_at}.{part}");
                let object = sparse
                    .get(part)
                    .and_then(Value::as_object)
                    .ok_or_else(|| ExportError::at(&part_at, "is missing"))?;
                let view = index_of(object.get("bufferView"), &format!("{part_at}.bufferView"))?;
                let offset = whole(object.get("byteOffset"), &format!("{part_at}.byteOffset"))?.unwrap_or(0);
                let new_view = self.copy_range(view, offset, n, item, json, merged, &part_at)?;
                let mut new_part = object.clone();
                new_part.remove("byteOffset");
                new_part.remove("extensions");
                new_part.insert("bufferView".into(), json!(new_view));
                new_sparse.insert(part.into(), Value::Object(new_part));
            }
            copy.insert("sparse".into(), Value::Object(new_sparse));
        }
        push(json, "accessors", Value::Object(copy))
    }

    /// Copies `count` elements of `element` bytes, read from buffer view `view` at `offset`
    /// (with the view's stride), packed into a new view of `merged`; returns its index.
    #[allow(clippy::too_many_arguments)]
    fn copy_range(
        &self,
        view: usize,
        offset: usize,
        count: usize,
        element: usize,
        json: &mut Value,
        merged: &mut Vec<u8>,
        at: &str,
    ) -> Result<usize, ExportError> {
        let view_at = format!("bufferViews[{view}]");
        let source = self
            .json
            .get("bufferViews")
            .and_then(|list| list.get(view))
            .and_then(Value::as_object)
            .ok_or_else(|| ExportError::at(at, format!("names {view_at}, which does not exist")))?;
        let buffer = index_of(source.get("buffer"), &format!("{view_at}.buffer"))?;
        let start = whole(source.get("byteOffset"), &format!("{view_at}.byteOffset"))?.unwrap_or(0);
        let stride = whole(source.get("byteStride"), &format!("{view_at}.byteStride"))?;
        let stride = stride.unwrap_or(element);
        if stride < element {
            return Err(ExportError::at(format!("{view_at}.byteStride"), "is shorter than an element"));
        }
        let bytes = count
            .checked_sub(1)
            .and_then(|n| stride.checked_mul(n)?.checked_add(element))
            .and_then(|length| {
                let from = start.checked_add(offset)?;
                self.buffers.get(buffer)?.get(from..from.checked_add(length)?)
            })
            .ok_or_else(|| ExportError::at(at, format!("does not lie inside {view_at}'s buffer")))?;
        align4(merged);
        let at = merged.len();
        if stride == element {
            merged.extend_from_slice(bytes);
        } else {
            merged.extend(bytes.chunks(stride).flat_map(|e| e.iter().take(element)));
        }
        let view = json!({ "buffer": 0, "byteOffset": at, "byteLength": merged.len() - at });
        push(json, "bufferViews", view)
    }
}

/// An optional non-negative whole number.
fn whole(value: Option<&Value>, at: &str) -> Result<Option<usize>, ExportError> {
    match value {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| ExportError::at(at, "is not a whole number")),
    }
}

fn index_of(value: Option<&Value>, at: &str) -> Result<usize, ExportError> {
    whole(value, at)?.ok_or_else(|| ExportError::at(at, "is missing"))
}
