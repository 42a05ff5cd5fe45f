//! Appending one repaired primitive's `JOINTS_n`/`WEIGHTS_n` data to the merged buffer as new
//! buffer views and accessors, in each old accessor's component type, and pointing the
//! primitive's attributes at them. Other primitives that shared the old accessors keep them.

use super::merge::align4;
use super::{ExportError, push};
use crate::repair::{RepairedPrimitive, WeightData};
use serde_json::{Map, Value, json};

const UNSIGNED_BYTE: u64 = 5121;
const UNSIGNED_SHORT: u64 = 5123;
const FLOAT: u64 = 5126;
const ARRAY_BUFFER: u64 = 34962;

pub(super) fn append(
    json: &mut Value,
    merged: &mut Vec<u8>,
    prim: &RepairedPrimitive,
) -> Result<(), ExportError> {
    let attributes_at = format!("meshes[{}].primitives[{}].attributes", prim.mesh, prim.primitive);
    for set in &prim.sets {
        let joints_at = format!("{attributes_at}.JOINTS_{}", set.set);
        let joints_type = component_type(json, set.joints_accessor, &joints_at)?;
        let mut bytes = Vec::with_capacity(set.joints.len() * 8);
        match joints_type {
            UNSIGNED_BYTE => {
                for &joint in set.joints.iter().flatten() {
                    let byte = u8::try_from(joint)
                        .map_err(|_| ExportError::JointTooLarge { at: joints_at.clone(), joint })?;
                    bytes.push(byte);
                }
            }
            UNSIGNED_SHORT => bytes.extend(set.joints.iter().flatten().flat_map(|j| j.to_le_bytes())),
            other => {
                return Err(ExportError::at(
                    format!("accessors[{}].componentType", set.joints_accessor),
                    format!("{other} is not a JOINTS_n component type"),
                ));
            }
        }
        let joints =
            add_accessor(json, merged, &bytes, joints_type, set.joints.len(), false, set.joints_accessor)?;

        let (weights_type, bytes, count) = match &set.weights {
            WeightData::F32(w) => {
                (FLOAT, w.iter().flatten().flat_map(|x| x.to_le_bytes()).collect(), w.len())
            }
            WeightData::U8(w) => (UNSIGNED_BYTE, w.iter().flatten().copied().collect::<Vec<u8>>(), w.len()),
            WeightData::U16(w) => {
                (UNSIGNED_SHORT, w.iter().flatten().flat_map(|x| x.to_le_bytes()).collect(), w.len())
            }
        };
        let normalized = weights_type != FLOAT;
        let weights =
            add_accessor(json, merged, &bytes, weights_type, count, normalized, set.weights_accessor)?;

        let attributes = json
            .pointer_mut(&format!("/meshes/{}/primitives/{}/attributes", prim.mesh, prim.primitive))
            .and_then(Value::as_object_mut)
            .ok_or_else(|| ExportError::at(attributes_at.clone(), "is missing"))?;
        attributes.insert(format!("JOINTS_{}", set.set), json!(joints));
        attributes.insert(format!("WEIGHTS_{}", set.set), json!(weights));
    }
    Ok(())
}

fn component_type(json: &Value, accessor: usize, at: &str) -> Result<u64, ExportError> {
    json.pointer(&format!("/accessors/{accessor}/componentType"))
        .and_then(Value::as_u64)
        .ok_or_else(|| ExportError::at(at, format!("accessor {accessor} has no componentType")))
}

/// Appends `bytes` as a new buffer view and a VEC4 accessor over it; returns the accessor's
/// index. The new accessor keeps the old one's name, so tools show the same label.
fn add_accessor(
    json: &mut Value,
    merged: &mut Vec<u8>,
    bytes: &[u8],
    component_type: u64,
    count: usize,
    normalized: bool,
    old: usize,
) -> Result<usize, ExportError> {
    align4(merged);
    let offset = merged.len();
    merged.extend_from_slice(bytes);
    let view = json!({
        "buffer": 0,
        "byteOffset": offset,
        "byteLength": bytes.len(),
        "target": ARRAY_BUFFER,
    });
    let view_index = push(json, "bufferViews", view)?;
    let mut accessor = Map::new();
    accessor.insert("bufferView".into(), json!(view_index));
    accessor.insert("componentType".into(), json!(component_type));
    accessor.insert("count".into(), json!(count));
    accessor.insert("type".into(), json!("VEC4"));
    if normalized {
        accessor.insert("normalized".into(), json!(true));
    }
    if let Some(name) = json.pointer(&format!("/accessors/{old}/name")) {
        accessor.insert("name".into(), name.clone());
    }
    push(json, "accessors", Value::Object(accessor))
}
