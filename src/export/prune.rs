//! What nothing in the copy refers to any more: the old weights accessors a repair replaced,
//! the compressed views Draco decoding left behind, and whatever the input itself left
//! unused. Such accessors and buffer views are removed and the merged buffer keeps only the
//! bytes a remaining view covers, so the copy has no UNUSED_OBJECT and does not grow.
//!
//! Indices move as little as possible: a hole is filled by the last objects of the array
//! (in order), so when a repair appended as many accessors as it left unused, each new one
//! takes an old one's place and no other index in the file changes.
//!
//! Only done when every place that can name an accessor or a buffer view is known: the core
//! properties plus the extensions in `KNOWN`. A file using anything else is left whole.

use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};

/// Extension name prefixes known not to refer to accessors or buffer views, or whose
/// references are followed here (the instancing attributes).
const KNOWN: &[&str] = &[
    "KHR_materials_",
    "KHR_texture_",
    "EXT_texture_",
    "MSFT_texture_dds",
    "KHR_lights_punctual",
    "EXT_lights_image_based",
    "KHR_mesh_quantization",
    "KHR_xmp_json_ld",
    "KHR_animation_pointer",
    "EXT_mesh_gpu_instancing",
    "KHR_mesh_gpu_instancing",
    // VRM 1.0: node, mesh, morph target, material, texture and image indices, never an
    // accessor or a buffer view (an image's bufferView is core glTF, followed as such).
    "VRMC_vrm",
    "VRMC_springBone",
    "VRMC_node_constraint",
    "VRMC_materials_mtoon",
    "VRMC_materials_hdr_emissiveMultiplier",
];

/// VRM 0.x's one extension, named exactly (it is no prefix of the others).
const VRM0: &str = "VRM";

const INSTANCING: &[&str] = &["EXT_mesh_gpu_instancing", "KHR_mesh_gpu_instancing"];

/// What was removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    pub accessors: usize,
    pub buffer_views: usize,
    /// Bytes of the merged buffer no remaining view covered.
    pub bytes: usize,
}

/// Removes unreferenced accessors and buffer views from `json` and their bytes from
/// `merged` (every view already points into it, as buffer 0). `None` when an extension in
/// use may refer to them in a way this does not know; nothing is changed then.
pub(super) fn prune(json: &mut Value, merged: &mut Vec<u8>) -> Option<Pruned> {
    let known = |name: &str| name == VRM0 || KNOWN.iter().any(|prefix| name.starts_with(prefix));
    if let Some(used) = json.get("extensionsUsed").and_then(Value::as_array)
        && used.iter().any(|e| !e.as_str().is_some_and(known))
    {
        return None;
    }
    let accessor_count = json.get("accessors").and_then(Value::as_array).map_or(0, Vec::len);
    let mut used = BTreeSet::new();
    accessor_refs(json, &mut |slot| {
        if let Some(i) = index(slot) {
            used.insert(i);
        }
    });
    let accessors = compact(json, "accessors", accessor_count, &used);
    accessor_refs(json, &mut |slot| remap(slot, &accessors.map));

    let view_count = json.get("bufferViews").and_then(Value::as_array).map_or(0, Vec::len);
    let mut used = BTreeSet::new();
    view_refs(json, &mut |slot| {
        if let Some(i) = index(slot) {
            used.insert(i);
        }
    });
    let views = compact(json, "bufferViews", view_count, &used);
    view_refs(json, &mut |slot| remap(slot, &views.map));
    let bytes = compact_bytes(json, merged);
    Some(Pruned { accessors: accessors.removed, buffer_views: views.removed, bytes })
}

fn index(slot: &Value) -> Option<usize> {
    slot.as_u64().and_then(|i| usize::try_from(i).ok())
}

fn remap(slot: &mut Value, map: &HashMap<usize, usize>) {
    if let Some(new) = index(slot).and_then(|i| map.get(&i)) {
        *slot = json!(new);
    }
}

/// How one array was compacted: moved indices (old -> new) and the count removed.
struct Compacted {
    map: HashMap<usize, usize>,
    removed: usize,
}

/// Keeps the entries of top-level array `key` whose index is in `used`; the holes below the
/// new length are filled, in order, by the kept entries above it.
fn compact(json: &mut Value, key: &str, count: usize, used: &BTreeSet<usize>) -> Compacted {
    let kept = used.iter().filter(|&&i| i < count).count();
    let holes: Vec<usize> = (0..kept).filter(|i| !used.contains(i)).collect();
    let movers: Vec<usize> = used.iter().copied().filter(|&i| i >= kept && i < count).collect();
    let map: HashMap<usize, usize> = movers.iter().copied().zip(holes.iter().copied()).collect();
    if let Some(array) = json.get_mut(key).and_then(Value::as_array_mut) {
        for (&from, &to) in &map {
            array.swap(from, to);
        }
        array.truncate(kept);
        if array.is_empty()
            && let Some(root) = json.as_object_mut()
        {
            root.remove(key);
        }
    }
    Compacted { map, removed: count - kept }
}

/// Every JSON slot that names an accessor.
fn accessor_refs(json: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    for mesh in array_mut(json, "meshes") {
        for prim in array_mut(mesh, "primitives") {
            values_mut(prim.get_mut("attributes"), f);
            if let Some(slot) = prim.get_mut("indices") {
                f(slot);
            }
            for target in array_mut(prim, "targets") {
                values_mut(Some(target), f);
            }
        }
    }
    for skin in array_mut(json, "skins") {
        if let Some(slot) = skin.get_mut("inverseBindMatrices") {
            f(slot);
        }
    }
    for animation in array_mut(json, "animations") {
        for sampler in array_mut(animation, "samplers") {
            for key in ["input", "output"] {
                if let Some(slot) = sampler.get_mut(key) {
                    f(slot);
                }
            }
        }
    }
    for node in array_mut(json, "nodes") {
        for name in INSTANCING {
            let attributes = node
                .get_mut("extensions")
                .and_then(|e| e.get_mut(*name))
                .and_then(|i| i.get_mut("attributes"));
            values_mut(attributes, f);
        }
    }
}

/// Every JSON slot that names a buffer view.
fn view_refs(json: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    for accessor in array_mut(json, "accessors") {
        if let Some(slot) = accessor.get_mut("bufferView") {
            f(slot);
        }
        if let Some(sparse) = accessor.get_mut("sparse") {
            for part in ["indices", "values"] {
                if let Some(slot) = sparse.get_mut(part).and_then(|p| p.get_mut("bufferView")) {
                    f(slot);
                }
            }
        }
    }
    for image in array_mut(json, "images") {
        if let Some(slot) = image.get_mut("bufferView") {
            f(slot);
        }
    }
}

fn array_mut<'v>(v: &'v mut Value, key: &str) -> impl Iterator<Item = &'v mut Value> {
    v.get_mut(key).and_then(Value::as_array_mut).into_iter().flatten()
}

fn values_mut(v: Option<&mut Value>, f: &mut dyn FnMut(&mut Value)) {
    for slot in v.and_then(Value::as_object_mut).into_iter().flat_map(|m| m.values_mut()) {
        f(slot);
    }
}

/// Keeps only the bytes of `merged` that some buffer view covers. Overlapping views stay
/// overlapping; each kept run moves by a multiple of 4, so every alignment is kept.
/// Returns the number of bytes removed.
fn compact_bytes(json: &mut Value, merged: &mut Vec<u8>) -> usize {
    let Some(views) = json.get_mut("bufferViews").and_then(Value::as_array_mut) else {
        let removed = merged.len();
        merged.clear();
        return removed;
    };
    let range = |v: &Value| -> Option<(usize, usize)> {
        let start = v.get("byteOffset").map_or(Some(0), Value::as_u64)?;
        let len = v.get("byteLength").and_then(Value::as_u64)?;
        let start = usize::try_from(start).ok()?;
        Some((start, start.checked_add(usize::try_from(len).ok()?)?))
    };
    let mut ranges: Vec<(usize, usize)> = views.iter().filter_map(range).collect();
    if ranges.len() != views.len() || ranges.iter().any(|&(_, end)| end > merged.len()) {
        // A view this cannot read: leave the bytes as they are.
        return 0;
    }
    ranges.sort_unstable();
    // Runs of overlapping or touching views, each copied once.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (start, end) in ranges {
        match runs.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => runs.push((start, end)),
        }
    }
    let mut out = Vec::with_capacity(merged.len());
    let mut moved = Vec::with_capacity(runs.len());
    for &(start, end) in &runs {
        // The run keeps its offset modulo 4.
        let at = out.len() + (start % 4 + 4 - out.len() % 4) % 4;
        out.resize(at, 0);
        out.extend_from_slice(merged.get(start..end).unwrap_or_default());
        moved.push((start, end, at));
    }
    for view in views.iter_mut() {
        let Some((start, _)) = range(view) else { continue };
        if let Some(&(run_start, _, at)) = moved.iter().find(|&&(s, e, _)| s <= start && start <= e) {
            view["byteOffset"] = json!(start - run_start + at);
        }
    }
    let removed = merged.len().saturating_sub(out.len());
    *merged = out;
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unused_objects_go_and_the_tail_fills_the_holes() {
        // Accessors 1 and 2 are unused; 3 and 4 (appended by a repair) take their places.
        let mut doc = json!({
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": 1, "type": "SCALAR"},
                {"bufferView": 1, "componentType": 5121, "count": 1, "type": "VEC4", "name": "old joints"},
                {"bufferView": 2, "componentType": 5126, "count": 1, "type": "VEC4", "name": "old weights"},
                {"bufferView": 3, "componentType": 5121, "count": 1, "type": "VEC4", "name": "joints"},
                {"bufferView": 4, "componentType": 5126, "count": 1, "type": "VEC4", "name": "weights"}
            ],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 0, "byteLength": 4},
                {"buffer": 0, "byteOffset": 4, "byteLength": 4},
                {"buffer": 0, "byteOffset": 8, "byteLength": 16},
                {"buffer": 0, "byteOffset": 24, "byteLength": 4},
                {"buffer": 0, "byteOffset": 28, "byteLength": 16}
            ],
            "meshes": [{"primitives": [{"attributes": {"JOINTS_0": 3, "WEIGHTS_0": 4}}]}],
            "animations": [{"samplers": [{"input": 0, "output": 0}]}]
        });
        let mut merged: Vec<u8> = (0..44).collect();
        let pruned = prune(&mut doc, &mut merged);
        assert_eq!(pruned, Some(Pruned { accessors: 2, buffer_views: 2, bytes: 20 }));
        assert_eq!(doc["meshes"][0]["primitives"][0]["attributes"], json!({"JOINTS_0": 1, "WEIGHTS_0": 2}));
        assert_eq!(doc["animations"][0]["samplers"][0], json!({"input": 0, "output": 0}));
        let names: Vec<_> =
            doc["accessors"].as_array().unwrap().iter().map(|a| a.get("name").cloned()).collect();
        assert_eq!(names, vec![None, Some(json!("joints")), Some(json!("weights"))]);
        // Views 3 and 4 moved into 1 and 2, their bytes packed after view 0's.
        assert_eq!(doc["accessors"][1]["bufferView"], 1);
        assert_eq!(doc["bufferViews"][1], json!({"buffer": 0, "byteOffset": 4, "byteLength": 4}));
        assert_eq!(doc["bufferViews"][2], json!({"buffer": 0, "byteOffset": 8, "byteLength": 16}));
        let expected: Vec<u8> = (0..4).chain(24..44).collect();
        assert_eq!(merged, expected);
    }

    #[test]
    fn alignment_and_shared_bytes_are_kept() {
        // View 1 starts at an odd offset (u8 data) and view 2 overlaps it.
        let mut doc = json!({
            "accessors": [
                {"bufferView": 1, "componentType": 5121, "count": 3, "type": "SCALAR"},
                {"bufferView": 2, "componentType": 5121, "count": 2, "type": "SCALAR"}
            ],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 0, "byteLength": 8},
                {"buffer": 0, "byteOffset": 9, "byteLength": 3},
                {"buffer": 0, "byteOffset": 10, "byteLength": 2}
            ],
            "meshes": [{"primitives": [{"attributes": {"_A": 0, "_B": 1}}]}]
        });
        let mut merged: Vec<u8> = (0..12).collect();
        let pruned = prune(&mut doc, &mut merged).expect("pruned");
        assert_eq!(pruned.buffer_views, 1);
        // The run 9..12 lands at 1 (9 mod 4), the overlap kept.
        assert_eq!(doc["bufferViews"][0]["byteOffset"], 2);
        assert_eq!(doc["bufferViews"][1]["byteOffset"], 1);
        assert_eq!(merged, vec![0, 9, 10, 11]);
        assert_eq!(doc["accessors"][0]["bufferView"], 1);
        assert_eq!(doc["accessors"][1]["bufferView"], 0);
    }

    #[test]
    fn an_unknown_extension_leaves_everything() {
        let mut doc = json!({
            "extensionsUsed": ["VENDOR_thing"],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 1, "type": "VEC4"}],
            "bufferViews": [{"buffer": 0, "byteLength": 16}]
        });
        let before = doc.clone();
        let mut merged = vec![0; 16];
        assert_eq!(prune(&mut doc, &mut merged), None);
        assert_eq!(doc, before);
        assert_eq!(merged.len(), 16);
    }

    #[test]
    fn instancing_attributes_and_images_count_as_references() {
        let mut doc = json!({
            "extensionsUsed": ["EXT_mesh_gpu_instancing"],
            "nodes": [{"extensions": {"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": 0}}}}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 1, "type": "VEC3"}],
            "bufferViews": [{"buffer": 0, "byteLength": 12}, {"buffer": 0, "byteOffset": 12, "byteLength": 4}],
            "images": [{"bufferView": 1, "mimeType": "image/png"}]
        });
        let mut merged = vec![1; 16];
        let pruned = prune(&mut doc, &mut merged);
        assert_eq!(pruned, Some(Pruned::default()));
        assert_eq!(merged.len(), 16);
    }
}
