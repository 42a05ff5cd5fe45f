//! VEC3 vertex data stored as integers (KHR_mesh_quantization): POSITION, NORMAL and morph
//! target deltas as (unsigned) bytes or shorts, normalized or not, turned into floats once
//! at load. Normalized components follow the glTF spec's decoding (`c / 127`, `c / 65535`,
//! ...); plain integers are their value. The scale and offset a quantizer chose live in the
//! file's transforms (the rigid mesh's node, or a skin's inverse bind matrices), so nothing
//! here applies them.

use super::Fault;
use super::accessors::{self, CheckedAccessor, Source, snorm8, snorm16, unorm8, unorm16};
use glam::Vec3;
use gltf::json::accessor::ComponentType as C;

/// Floats for every element of a checked integer VEC3 accessor: in bulk when it is plain,
/// through gltf's reader (which applies sparse substitution) otherwise.
pub(crate) fn vec3s(src: &Source<'_>, acc: &CheckedAccessor, at: &str) -> Result<Vec<Vec3>, Fault> {
    let n = acc.normalized;
    let direct = src.elements(acc).and_then(|e| match acc.component {
        C::I8 => e.decode(|b: &[u8; 3]| decode(b.map(|c| c as i8), n, snorm8)),
        C::U8 => e.decode(|b: &[u8; 3]| decode(*b, n, unorm8)),
        C::I16 => e.decode(|b: &[u8; 6]| decode(words(b).map(|w| w as i16), n, snorm16)),
        C::U16 => e.decode(|b: &[u8; 6]| decode(words(b), n, unorm16)),
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
        _ => None,
    });
    accessors::collect(acc, values.map(Vec::into_iter), Vec3::ZERO, at)
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
