//! Bulk reads of checked accessors straight from their buffer bytes: one tight loop per
//! accessor (a plain `chunks` walk when the elements are tightly packed) instead of gltf's
//! per-element iterator, which re-slices and bounds-checks every element. This is the load's
//! one pass over the vertex data.
//!
//! Only plain accessors (a bufferView and no sparse part) are read here; `Source::elements`
//! says which. The others still go through gltf's readers, which apply sparse substitution.
//! Both paths give the same values bit for bit (tested in `tests.rs`).

use glam::Vec3;

/// The elements of one plain accessor: `count` elements of `elem` bytes, `stride` apart,
/// from the start of `bytes`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Elements<'a> {
    pub bytes: &'a [u8],
    pub stride: usize,
    pub elem: usize,
    pub count: usize,
}

impl Elements<'_> {
    /// Every element decoded from its `N` bytes, or `None` when `N` is not the element
    /// size or the bytes run out (neither happens after `Source::check`; the caller then
    /// falls back to gltf's reader and its error). Collected into `C` from an iterator of
    /// known length, so that an `Arc<[T]>` is allocated once at its size and filled in
    /// place (collecting a `Vec` and converting it would copy the whole array).
    pub(crate) fn decode<const N: usize, T, C: FromIterator<T>>(
        &self,
        decode: impl Fn(&[u8; N]) -> T,
    ) -> Option<C> {
        if N != self.elem || self.stride < N {
            return None;
        }
        if self.stride == N {
            let (chunks, _) = self.bytes.as_chunks::<N>();
            return Some(chunks.get(..self.count)?.iter().map(decode).collect());
        }
        // Every element's N bytes are there: the last one's start plus N is within `bytes`.
        let last = self.count.checked_sub(1).map_or(Some(0), |l| l.checked_mul(self.stride))?;
        if self.count > 0 && last.checked_add(N)? > self.bytes.len() {
            return None;
        }
        // Each `stride`-byte chunk then starts with a whole element (the zeros are never used).
        let element = |c: &[u8]| c.first_chunk::<N>().map_or_else(|| decode(&[0; N]), &decode);
        Some(self.bytes.chunks(self.stride).take(self.count).map(element).collect())
    }
}

fn f32_at<const N: usize>(b: &[u8; N], at: usize) -> f32 {
    let word = [b[at], b[at + 1], b[at + 2], b[at + 3]];
    f32::from_le_bytes(word)
}

fn u16_at<const N: usize>(b: &[u8; N], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

pub(crate) fn vec3(b: &[u8; 12]) -> Vec3 {
    Vec3::new(f32_at(b, 0), f32_at(b, 4), f32_at(b, 8))
}

pub(crate) fn f32x4(b: &[u8; 16]) -> [f32; 4] {
    [f32_at(b, 0), f32_at(b, 4), f32_at(b, 8), f32_at(b, 12)]
}

pub(crate) fn u8x4(b: &[u8; 4]) -> [u8; 4] {
    *b
}

pub(crate) fn u16x4(b: &[u8; 8]) -> [u16; 4] {
    [u16_at(b, 0), u16_at(b, 2), u16_at(b, 4), u16_at(b, 6)]
}

pub(crate) fn u8_index(b: &[u8; 1]) -> u32 {
    u32::from(b[0])
}

pub(crate) fn u16_index(b: &[u8; 2]) -> u32 {
    u32::from(u16_at(b, 0))
}

pub(crate) fn u32_index(b: &[u8; 4]) -> u32 {
    u32::from_le_bytes(*b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_and_strided_elements() {
        let bytes: Vec<u8> = (0u8..24).collect();
        let packed = Elements { bytes: &bytes, stride: 4, elem: 4, count: 6 };
        assert_eq!(
            packed.decode(u32_index),
            Some(
                (0..6)
                    .map(|k| u32::from_le_bytes([4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3]))
                    .collect::<Vec<_>>()
            )
        );
        // Two-byte elements every 6 bytes: 0x0100, 0x0706, ...
        let strided = Elements { bytes: &bytes, stride: 6, elem: 2, count: 4 };
        let want = [0x0100, 0x0706, 0x0D0C, 0x1312];
        assert_eq!(strided.decode(u16_index), Some(want.to_vec()));
        // Straight into an Arc, the same values; the last element may end the bytes.
        let arc: Option<std::sync::Arc<[u32]>> =
            Elements { bytes: &bytes[..20], ..strided }.decode(u16_index);
        assert_eq!(arc.as_deref(), Some(&want[..]));
        // Wrong element size or too few bytes: no values, never a panic.
        assert_eq!(packed.decode::<2, _, Vec<_>>(u16_index), None);
        assert_eq!(Elements { count: 7, ..packed }.decode::<4, _, Vec<_>>(u32_index), None);
        assert_eq!(Elements { count: 5, ..strided }.decode::<2, _, Vec<_>>(u16_index), None);
        assert_eq!(Elements { bytes: &bytes[..19], ..strided }.decode::<2, _, Vec<_>>(u16_index), None);
        assert_eq!(Elements { count: 0, ..strided }.decode(u16_index), Some(Vec::new()));
    }

    #[test]
    fn little_endian_decoding() {
        let one = 1.0f32.to_le_bytes();
        let mut b = [0u8; 12];
        b[4..8].copy_from_slice(&one);
        assert_eq!(vec3(&b), Vec3::new(0.0, 1.0, 0.0));
        assert_eq!(u16x4(&[1, 0, 0, 1, 255, 255, 2, 0]), [1, 256, 65535, 2]);
        assert_eq!(u8x4(&[1, 2, 3, 4]), [1, 2, 3, 4]);
        assert_eq!(u8_index(&[200]), 200);
    }
}
