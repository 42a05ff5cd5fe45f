//! What a load may allocate from numbers the file declares rather than bytes it holds:
//! zero-filled accessors, data a use cannot share, decoded (meshopt) buffers, and the
//! vertices every frame draws. Accessor data the `Rig` shares is counted once.
//! Each limit is a constant plus a multiple of the input's size (the file plus the bytes of
//! its buffers as read), so a few hundred bytes of JSON cannot ask for gigabytes, while
//! every file whose data is actually stored stays well inside. docs/loading.md "Limits" states the
//! peak memory these rules give.

use super::Fault;
use crate::rig::{Mesh, Node};

/// Bytes made from nothing the file stores, over the whole load: zero-filled accessors (no
/// bufferView, or the base of sparse ones), each counted once however many use it (they
/// share one decoded copy); an accessor decoded in a second form (as vertices and as keys);
/// uses that still copy an accessor for themselves (a skin's inverse bind matrices, a node's
/// instances) after its first; and sampler outputs the file does not hold once, times
/// `SAMPLER_EXPANSION` per bake. Repeated reads of an accessor in the same form cost
/// nothing and are not counted. This constant plus `ZERO_FILL_PER_INPUT_BYTE` per input
/// byte. Sparse-only morph targets legitimately expand.
pub(crate) const ZERO_FILL_BYTES: u64 = 64 << 20;
pub(crate) const ZERO_FILL_PER_INPUT_BYTE: u64 = 16;

/// Sampling bakes key values wider (SIMD lanes, slerp intervals): up to this many times
/// their size again, once per set of key arrays, interpolation and property in a clip
/// (channels sharing a sampler share the bake, see `anim::tracks`). Sampler outputs the
/// file does not hold once (zeros, or an output another sampler read) are charged that much
/// per bake.
pub(crate) const SAMPLER_EXPANSION: u64 = 8;

/// Decoded meshopt fallback buffers, allocated at their declared `byteLength`: this
/// constant plus `DECODED_PER_INPUT_BYTE` per input byte (meshopt's codecs expand at most
/// a few tens of times, so a real file stays inside).
pub(crate) const DECODED_BYTES: u64 = 64 << 20;
pub(crate) const DECODED_PER_INPUT_BYTE: u64 = 32;

/// Vertices drawn per frame (every node with a mesh, once per GPU instance): this constant
/// plus one per `INPUT_BYTES_PER_DRAWN_VERTEX` input bytes. Each drawn copy gets its own
/// world-space buffers, so a mesh drawn by many nodes or instances multiplies memory; a
/// file drawing each stored vertex once always fits (a stored position takes at least 4
/// bytes, even quantized).
pub(crate) const DRAWN_VERTICES: u64 = 4 << 20;
pub(crate) const INPUT_BYTES_PER_DRAWN_VERTEX: u64 = 4;

/// The limits of one load, from the size of its input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    pub input_bytes: u64,
}

impl Budget {
    /// The input as read: the file and every buffer it brought (a .glb's BIN chunk twice,
    /// a data URI's bytes as text and decoded), before anything is decoded or zero-filled.
    pub(crate) fn of_input(file: &[u8], buffers: &[std::borrow::Cow<'_, [u8]>]) -> Self {
        let input_bytes = buffers.iter().fold(file.len() as u64, |n, b| n.saturating_add(b.len() as u64));
        Self { input_bytes }
    }

    pub(crate) fn zero_fill(&self) -> u64 {
        ZERO_FILL_BYTES.saturating_add(self.input_bytes.saturating_mul(ZERO_FILL_PER_INPUT_BYTE))
    }

    pub(crate) fn decoded(&self) -> u64 {
        DECODED_BYTES.saturating_add(self.input_bytes.saturating_mul(DECODED_PER_INPUT_BYTE))
    }

    pub(crate) fn drawn_vertices(&self) -> u64 {
        DRAWN_VERTICES.saturating_add(self.input_bytes / INPUT_BYTES_PER_DRAWN_VERTEX)
    }

    /// Refuses a file whose nodes (and their instances) draw more vertices per frame than
    /// `drawn_vertices`, naming the node that crosses the limit.
    pub(crate) fn check_drawn(&self, nodes: &[Node], meshes: &[Mesh]) -> Result<(), Fault> {
        let limit = self.drawn_vertices();
        let mut total = 0u64;
        for (i, node) in nodes.iter().enumerate() {
            let Some(mesh) = node.mesh.and_then(|m| meshes.get(m)) else { continue };
            let vertices: u64 = mesh.primitives.iter().map(|p| p.positions.len() as u64).sum();
            let copies = node.instances.len().max(1) as u64;
            total = total.saturating_add(vertices.saturating_mul(copies));
            if total > limit {
                return Err(Fault::new(
                    format!("nodes[{i}]"),
                    format!(
                        "draws mesh {} ({vertices} vertices) {copies} time(s), bringing the vertices drawn per frame to {total}, more than rigscope draws for a {}-byte input ({limit})",
                        node.mesh.unwrap_or_default(),
                        self.input_bytes
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::load_bytes;

    /// A triangle whose indices are `indices` zero-filled UNSIGNED_INTs: 36 + 4 x indices
    /// zero bytes, none of them drawn vertices.
    fn zero_indices(indices: u64) -> Vec<u8> {
        let doc = serde_json::json!({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0}], "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
            "accessors": [{"componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [0, 0, 0]},
                {"componentType": 5125, "count": indices, "type": "SCALAR"}]});
        serde_json::to_vec(&doc).unwrap_or_default()
    }

    #[test]
    fn zero_fill_up_to_the_budget_loads_and_one_element_more_is_refused() {
        // Index counts of 8 digits keep the file's length, and so the budget, fixed.
        let len = zero_indices(10_000_000).len() as u64;
        let budget = ZERO_FILL_BYTES + ZERO_FILL_PER_INPUT_BYTE * len;
        let fits = (budget - 36) / 4;
        assert_eq!(zero_indices(fits).len() as u64, len);
        let rig = load_bytes(&zero_indices(fits), "fits.gltf", None);
        assert!(rig.is_ok(), "{:?}", rig.err());
        let err = load_bytes(&zero_indices(fits + 1), "over.gltf", None).err().map(|e| e.to_string());
        let err = err.unwrap_or_default();
        assert!(
            err.starts_with("over.gltf: meshes[0].primitives[0].indices: accessors[1]: claims")
                && err.contains(&format!("{} SCALAR elements", fits + 1)),
            "{err}"
        );
    }

    /// `primitives` triangles whose indices are zero-filled UNSIGNED_INTs, primitive k
    /// reading index accessor `1 + k % accessors` (each of `indices` elements).
    fn shared_zero_indices(primitives: usize, accessors: usize, indices: u64) -> Vec<u8> {
        let prims: Vec<_> = (0..primitives)
            .map(|k| serde_json::json!({"attributes": {"POSITION": 0}, "indices": 1 + k % accessors}))
            .collect();
        let mut list = vec![
            serde_json::json!({"componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [0, 0, 0]}),
        ];
        list.extend(
            (0..accessors)
                .map(|_| serde_json::json!({"componentType": 5125, "count": indices, "type": "SCALAR"})),
        );
        let doc = serde_json::json!({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0}], "meshes": [{"primitives": prims}], "accessors": list});
        serde_json::to_vec(&doc).unwrap_or_default()
    }

    #[test]
    fn an_accessors_zeros_are_charged_once_however_many_use_them() {
        let len = shared_zero_indices(4, 1, 10_000_000).len() as u64;
        let budget = ZERO_FILL_BYTES + ZERO_FILL_PER_INPUT_BYTE * len;
        // Four primitives share zeros that fill the whole budget once: they load, sharing them.
        let fits = (budget - 36) / 4;
        let rig = load_bytes(&shared_zero_indices(4, 1, fits), "shared.gltf", None);
        let rig = rig.unwrap_or_else(|e| panic!("{e}"));
        let prims = &rig.meshes[0].primitives;
        let first = prims[0].indices.as_ref().map(|i| i.shared().clone());
        assert!(prims.iter().all(|p| p.indices.as_ref().map(|i| i.shared()) == first.as_ref()));
        assert_eq!(first.map(|i| i.len() as u64), Some(fits));
        // Two accessors of zeros count both: the budget holds 36 + 8 x half bytes and no more
        // (7-digit counts keep the file, and so the budget, fixed).
        let len = shared_zero_indices(2, 2, 1_000_000).len() as u64;
        let half = (ZERO_FILL_BYTES + ZERO_FILL_PER_INPUT_BYTE * len - 36) / 8;
        let two = load_bytes(&shared_zero_indices(2, 2, half), "two.gltf", None);
        assert!(two.is_ok(), "{:?}", two.err());
        let err =
            load_bytes(&shared_zero_indices(2, 2, half + 1), "over.gltf", None).err().map(|e| e.to_string());
        let err = err.unwrap_or_default();
        assert!(err.starts_with("over.gltf: meshes[0].primitives[1].indices: accessors[2]: claims"), "{err}");
    }

    /// 40 channels translating nodes 0..40 with the same 100,000 stored keys (1.2 MB of
    /// values), all through sampler 0, or each through its own sampler (its own input
    /// accessor over the same bytes, the same output accessor).
    fn shared_keys(samplers_per_channel: bool) -> Vec<u8> {
        use base64::Engine as _;
        let (keys, channels) = (100_000usize, 40usize);
        let mut bytes: Vec<u8> = (0..keys).flat_map(|k| (k as f32).to_le_bytes()).collect();
        bytes.extend((0..3 * keys).flat_map(|i| (i as f32).to_le_bytes()));
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&bytes)
        );
        let samplers = if samplers_per_channel { channels } else { 1 };
        let sampler = |s: usize| serde_json::json!({"input": s + 1, "output": 0});
        let channel = |n: usize| serde_json::json!({"sampler": if samplers_per_channel { n } else { 0 }, "target": {"node": n, "path": "translation"}});
        let mut list =
            vec![serde_json::json!({"bufferView": 1, "componentType": 5126, "count": keys, "type": "VEC3"})];
        let time = serde_json::json!({"bufferView": 0, "componentType": 5126, "count": keys, "type": "SCALAR", "min": [0.0], "max": [(keys - 1) as f32]});
        list.extend(std::iter::repeat_n(time, samplers));
        let doc = serde_json::json!({"asset": {"version": "2.0"}, "nodes": vec![serde_json::json!({}); channels],
            "animations": [{"channels": (0..channels).map(channel).collect::<Vec<_>>(), "samplers": (0..samplers).map(sampler).collect::<Vec<_>>()}],
            "buffers": [{"byteLength": bytes.len(), "uri": uri}],
            "bufferViews": [{"buffer": 0, "byteLength": 4 * keys}, {"buffer": 0, "byteOffset": 4 * keys, "byteLength": 12 * keys}],
            "accessors": list});
        serde_json::to_vec(&doc).unwrap_or_default()
    }

    #[test]
    fn a_sampler_shared_by_channels_is_baked_and_charged_once_another_sampler_again() {
        // One sampler: its keys are read and baked once for all 40 channels; nothing is
        // charged, and every channel holds the same arrays.
        let rig = load_bytes(&shared_keys(false), "one.gltf", None).unwrap_or_else(|e| panic!("{e}"));
        let channels = &rig.clips[0].channels;
        assert!(channels.iter().all(|c| std::sync::Arc::ptr_eq(&c.values, &channels[0].values)));
        assert_eq!(channels[0].values[3 * 99_999 + 2], (3 * 99_999 + 2) as f32);
        // 40 samplers: the output is shared, but each sampler is its own bake, 8 x 1.2 MB
        // after the first. The input is ~3.7 MB (the file, with its buffer as base64 text,
        // plus the 1.6 MB decoded), a budget of ~127 MB: 13 more bakes fit (125 MB), the
        // 15th sampler's (samplers[14]) is past it.
        let file = shared_keys(true);
        let input = file.len() as u64 + 1_600_000;
        let budget = ZERO_FILL_BYTES + ZERO_FILL_PER_INPUT_BYTE * input;
        let per_bake = SAMPLER_EXPANSION * 1_200_000;
        let over = (budget / per_bake + 1) as usize;
        assert!(over < 40, "the file must cross the budget");
        let err = load_bytes(&file, "many.gltf", None).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            err.starts_with(&format!("many.gltf: animations[0].samplers[{over}].output: accessors[0] (100000 elements, a sampler output another sampler read")),
            "{err}"
        );
    }

    /// `nodes` nodes each drawing a zero-filled mesh of `vertices`.
    fn drawn(nodes: usize, vertices: u64) -> Vec<u8> {
        let doc = serde_json::json!({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
            "nodes": vec![serde_json::json!({"mesh": 0}); nodes],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
            "accessors": [{"componentType": 5126, "count": vertices, "type": "VEC3", "min": [0, 0, 0], "max": [0, 0, 0]}]});
        serde_json::to_vec(&doc).unwrap_or_default()
    }

    #[test]
    fn drawn_vertices_up_to_the_budget_load_and_one_more_node_is_refused() {
        // 4 nodes share a mesh of a quarter of the limit (7-digit counts: fixed length).
        let len = drawn(4, 1_000_000).len() as u64;
        let limit = DRAWN_VERTICES + len / INPUT_BYTES_PER_DRAWN_VERTEX;
        let quarter = limit / 4;
        assert!(load_bytes(&drawn(4, quarter), "fits.gltf", None).is_ok());
        let err = load_bytes(&drawn(5, quarter), "over.gltf", None).err().map(|e| e.to_string());
        let err = err.unwrap_or_default();
        assert!(
            err.starts_with(&format!("over.gltf: nodes[4]: draws mesh 0 ({quarter} vertices) 1 time(s)")),
            "{err}"
        );
    }
}
