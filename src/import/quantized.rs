//! VEC3 vertex data stored as integers (KHR_mesh_quantization): POSITION, NORMAL and morph
//! target deltas as (unsigned) bytes or shorts, normalized or not, turned into floats once
//! at load (float accessors pass through, so morph targets of mixed types read alike). Normalized components follow the glTF spec's decoding (`c / 127`, `c / 65535`,
//! ...); plain integers are their value. The scale and offset a quantizer chose live in the
//! file's transforms (the rigid mesh's node, or a skin's inverse bind matrices), so nothing
//! here applies them.

use super::Fault;
use super::accessors::{self, CheckedAccessor, Source, snorm8, snorm16, unorm8, unorm16};
use std::sync::Arc;

use glam::Vec3;
use gltf::json::accessor::ComponentType as C;

/// Floats for every element of a checked VEC3 accessor of any component type: in bulk when
/// it is plain, through gltf's reader for its own type (which applies sparse substitution)
/// otherwise.
pub(crate) fn vec3s(src: &Source<'_>, acc: &CheckedAccessor, at: &str) -> Result<Arc<[Vec3]>, Fault> {
    let n = acc.normalized;
    let direct = src.elements(acc).and_then(|e| match acc.component {
        C::I8 => e.decode(|b: &[u8; 3]| decode(b.map(|c| c as i8), n, snorm8)),
        C::U8 => e.decode(|b: &[u8; 3]| decode(*b, n, unorm8)),
        C::I16 => e.decode(|b: &[u8; 6]| decode(words(b).map(|w| w as i16), n, snorm16)),
        C::U16 => e.decode(|b: &[u8; 6]| decode(words(b), n, unorm16)),
        C::F32 => e.decode(super::direct::vec3),
        _ => None,
    });
    if let Some(values) = direct {
        return Ok(values);
    }
    let values = src.doc().accessors().nth(acc.index).and_then(|a| match acc.component {
        C::I8 => read(a, src.data(), n, snorm8),
        C::U8 => read(a, src.data(), n, unorm8),
        C::I16 => read(a, src.data(), n, snorm16),
        C::U16 => read(a, src.data(), n, unorm16),
        C::F32 => read(a, src.data(), false, |x: f32| x),
        _ => None,
    });
    Ok(accessors::collect(acc, values.map(Vec::into_iter), Vec3::ZERO, at)?.into())
}

fn read<'a, 's, T, F>(
    accessor: gltf::Accessor<'a>,
    data: F,
    normalized: bool,
    norm: fn(T) -> f32,
) -> Option<Vec<Vec3>>
where
    T: gltf::accessor::Item + Copy + Into<f32>,
    F: Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]>,
{
    let iter = gltf::accessor::Iter::<[T; 3]>::new(accessor, data)?;
    Some(iter.map(|c| decode(c, normalized, norm)).collect())
}

fn decode<T: Copy + Into<f32>>(c: [T; 3], normalized: bool, norm: fn(T) -> f32) -> Vec3 {
    if normalized { Vec3::from_array(c.map(norm)) } else { Vec3::from_array(c.map(Into::into)) }
}

fn words(b: &[u8; 6]) -> [u16; 3] {
    [u16::from_le_bytes([b[0], b[1]]), u16::from_le_bytes([b[2], b[3]]), u16::from_le_bytes([b[4], b[5]])]
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use serde_json::json;

    /// Two vertices stored every way KHR_mesh_quantization allows for what rigscope reads:
    /// positions as normalized shorts, normals as normalized bytes (4-byte stride), morph
    /// deltas as plain bytes, normalized shorts, and a sparse plain short accessor with no
    /// bufferView. Expected values are the spec's formulas worked by hand.
    #[test]
    fn every_quantized_vertex_form_loads_as_the_spec_decodes_it() {
        let shorts = |v: &[i16]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let mut bytes = Vec::new();
        let mut views = Vec::new();
        let mut view = |data: Vec<u8>, stride: Option<usize>| {
            bytes.resize(bytes.len().next_multiple_of(4), 0);
            let mut v = json!({"buffer": 0, "byteOffset": bytes.len(), "byteLength": data.len()});
            if let Some(s) = stride {
                v["byteStride"] = json!(s);
            }
            bytes.extend_from_slice(&data);
            views.push(v);
            views.len() - 1
        };
        let position = view(shorts(&[-32768, 0, 32767, 0, 16384, -16384, 1, 0]), Some(8));
        let normal = view(vec![0, 0, 127, 0, 0x81, 0, 0, 0], Some(4));
        let delta_bytes = view(vec![1, 2, 3, 0, 0xFC, 5, 0xFA, 0], Some(4));
        let delta_shorts = view(shorts(&[0, 32767, 0, 0, -32767, 0, 0, 0]), Some(8));
        let sparse_index = view(vec![1, 0, 0, 0], None);
        let sparse_value = view(shorts(&[7, -8, 9]), None);
        let acc = |view: usize, component: u32, normalized: bool| json!({"bufferView": view, "componentType": component, "count": 2, "type": "VEC3", "normalized": normalized});
        let sparse = json!({"componentType": 5122, "count": 2, "type": "VEC3",
            "sparse": {"count": 1, "indices": {"bufferView": sparse_index, "componentType": 5121},
                       "values": {"bufferView": sparse_value}}});
        let uri = base64::engine::general_purpose::STANDARD.encode(&bytes);
        let doc = json!({
            "asset": {"version": "2.0"},
            "extensionsUsed": ["KHR_mesh_quantization"], "extensionsRequired": ["KHR_mesh_quantization"],
            "buffers": [{"byteLength": bytes.len(), "uri": format!("data:application/octet-stream;base64,{uri}")}],
            "bufferViews": views,
            "accessors": [acc(position, 5122, true), acc(normal, 5120, true), acc(delta_bytes, 5120, false),
                          acc(delta_shorts, 5122, true), sparse],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1},
                "targets": [{"POSITION": 2, "NORMAL": 3}, {"POSITION": 4}]}], "weights": [0.0, 0.0]}],
            "nodes": [{"mesh": 0}], "scenes": [{"nodes": [0]}]
        });
        let rig = crate::import::load_bytes(&serde_json::to_vec(&doc).unwrap_or_default(), "q.gltf", None);
        let rig = rig.unwrap_or_else(|e| panic!("{e}"));
        let prim = &rig.meshes[0].primitives[0];
        let third = 16384.0 / 32767.0;
        assert_eq!(
            prim.positions,
            vec![Vec3::new(-1.0, 0.0, 1.0), Vec3::new(third, -third, 1.0 / 32767.0)].into()
        );
        assert_eq!(prim.normals.as_deref().map(<[_]>::to_vec), Some(vec![Vec3::Z, Vec3::NEG_X]));
        let targets = &prim.morph_targets;
        assert_eq!(
            targets[0].positions.as_deref().map(<[_]>::to_vec),
            Some(vec![Vec3::new(1.0, 2.0, 3.0), Vec3::new(-4.0, 5.0, -6.0)])
        );
        assert_eq!(targets[0].normals.as_deref().map(<[_]>::to_vec), Some(vec![Vec3::Y, Vec3::NEG_X]));
        assert_eq!(
            targets[1].positions.as_deref().map(<[_]>::to_vec),
            Some(vec![Vec3::ZERO, Vec3::new(7.0, -8.0, 9.0)])
        );
        let stored = &rig.storage.primitives[0].attributes;
        let names: Vec<String> = stored
            .iter()
            .map(|a| format!("{} {} {} {}", a.name, a.kind, a.component, a.normalized))
            .collect();
        assert_eq!(names, ["POSITION VEC3 SHORT true", "NORMAL VEC3 BYTE true"]);
    }

    #[test]
    fn integers_decode_per_the_spec_normalized_or_not() {
        // Plain integers are their value; normalized ones are divided per the glTF spec.
        assert_eq!(decode([-3i8, 0, 127], false, snorm8), Vec3::new(-3.0, 0.0, 127.0));
        assert_eq!(decode([-128i8, 0, 127], true, snorm8), Vec3::new(-1.0, 0.0, 1.0));
        assert_eq!(decode([65535u16, 0, 13107], true, unorm16), Vec3::new(1.0, 0.0, 0.2));
        assert_eq!(decode([65535u16, 7, 1], false, unorm16), Vec3::new(65535.0, 7.0, 1.0));
        assert_eq!(decode([-32768i16, 16384, 2], false, snorm16), Vec3::new(-32768.0, 16384.0, 2.0));
        assert_eq!(words(&[1, 0, 0, 1, 255, 255]), [1, 256, 65535]);
    }
}
