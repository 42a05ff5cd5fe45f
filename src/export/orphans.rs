//! Old weights accessors that held NaN or infinite values and that nothing uses any more.
//!
//! The Khronos validator checks the data of every float accessor, used or not, so such an
//! accessor would keep the copy failing (ACCESSOR_INVALID_FLOAT) after its primitive moved to
//! the repaired data. It is emptied instead of deleted: its `bufferView` (and `byteOffset`,
//! `sparse`) are removed, which the spec reads as all zeros, and no index in the file moves.
//!
//! Only done when every place that can name an accessor is known: the core properties, plus
//! `EXT_mesh_gpu_instancing`. A file using any extension outside `NO_ACCESSORS` is left alone.

use serde_json::Value;
use std::collections::HashSet;

/// Extension name prefixes known not to refer to accessors.
const NO_ACCESSORS: &[&str] = &[
    "KHR_materials_",
    "KHR_texture_",
    "EXT_texture_",
    "MSFT_texture_dds",
    "KHR_lights_punctual",
    "KHR_mesh_quantization",
    "KHR_xmp_json_ld",
    "KHR_animation_pointer",
    "EXT_mesh_gpu_instancing",
];

/// Empties each accessor in `candidates` that nothing refers to; returns those emptied.
pub(super) fn empty_unused(json: &mut Value, candidates: &[usize]) -> Vec<usize> {
    let Some(used) = referenced(json) else {
        return Vec::new();
    };
    let mut emptied = Vec::new();
    for &index in candidates {
        if used.contains(&index) || emptied.contains(&index) {
            continue;
        }
        if let Some(accessor) =
            json.pointer_mut(&format!("/accessors/{index}")).and_then(Value::as_object_mut)
        {
            accessor.remove("bufferView");
            accessor.remove("byteOffset");
            accessor.remove("sparse");
            emptied.push(index);
        }
    }
    emptied
}

/// Every accessor index the document names, or None when an extension in use might name
/// accessors in a way this does not know.
fn referenced(json: &Value) -> Option<HashSet<usize>> {
    let known = |name: &str| NO_ACCESSORS.iter().any(|prefix| name.starts_with(prefix));
    if let Some(used) = json.get("extensionsUsed").and_then(Value::as_array)
        && used.iter().any(|e| !e.as_str().is_some_and(known))
    {
        return None;
    }
    let mut out = HashSet::new();
    let mut add = |v: Option<&Value>| {
        if let Some(i) = v.and_then(Value::as_u64).and_then(|i| usize::try_from(i).ok()) {
            out.insert(i);
        }
    };
    let each = |v: &Value, key: &str| -> Vec<Value> {
        v.get(key).and_then(Value::as_array).cloned().unwrap_or_default()
    };
    let values = |v: Option<&Value>| -> Vec<Value> {
        v.and_then(Value::as_object).map(|m| m.values().cloned().collect()).unwrap_or_default()
    };
    for mesh in each(json, "meshes") {
        for prim in each(&mesh, "primitives") {
            for v in values(prim.get("attributes")) {
                add(Some(&v));
            }
            add(prim.get("indices"));
            for target in each(&prim, "targets") {
                for v in values(Some(&target)) {
                    add(Some(&v));
                }
            }
        }
    }
    for skin in each(json, "skins") {
        add(skin.get("inverseBindMatrices"));
    }
    for animation in each(json, "animations") {
        for sampler in each(&animation, "samplers") {
            add(sampler.get("input"));
            add(sampler.get("output"));
        }
    }
    for node in each(json, "nodes") {
        let instancing = node.get("extensions").and_then(|e| e.get("EXT_mesh_gpu_instancing"));
        for v in values(instancing.and_then(|i| i.get("attributes"))) {
            add(Some(&v));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_unreferenced_accessors_are_emptied() {
        let mut doc = json!({
            "accessors": [
                {"bufferView": 0, "byteOffset": 4, "componentType": 5126, "count": 1, "type": "VEC4"},
                {"bufferView": 1, "componentType": 5126, "count": 1, "type": "VEC4"},
                {"bufferView": 2, "componentType": 5126, "count": 1, "type": "SCALAR"}
            ],
            "meshes": [{"primitives": [{"attributes": {"WEIGHTS_0": 1}}]}],
            "animations": [{"samplers": [{"input": 2, "output": 2}]}]
        });
        assert_eq!(empty_unused(&mut doc, &[0, 1, 2]), vec![0]);
        assert_eq!(doc["accessors"][0], json!({"componentType": 5126, "count": 1, "type": "VEC4"}));
        assert_eq!(doc["accessors"][1]["bufferView"], 1);
    }

    #[test]
    fn an_unknown_extension_leaves_everything() {
        let mut doc = json!({
            "extensionsUsed": ["KHR_materials_unlit", "VENDOR_thing"],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 1, "type": "VEC4"}]
        });
        assert!(empty_unused(&mut doc, &[0]).is_empty());
        assert_eq!(doc["accessors"][0]["bufferView"], 0);
    }

    #[test]
    fn instancing_attributes_count_as_references() {
        let mut doc = json!({
            "extensionsUsed": ["EXT_mesh_gpu_instancing"],
            "nodes": [{"extensions": {"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": 0}}}}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 1, "type": "VEC3"}]
        });
        assert!(empty_unused(&mut doc, &[0]).is_empty());
    }
}
