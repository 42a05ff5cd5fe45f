//! How glTF primitive modes turn an index list into triangles, segments and points
//! (glTF 2.0, section 3.7.2.1). It yields vertex indices only and never reads vertex data,
//! so callers check the indices against their arrays (an index may be out of range).

use crate::rig::Topology;

/// Whether the topology makes triangles.
pub(super) fn is_triangles(t: Topology) -> bool {
    matches!(t, Topology::Triangles | Topology::TriangleStrip | Topology::TriangleFan)
}

/// Whether the topology makes line segments.
pub(super) fn is_lines(t: Topology) -> bool {
    matches!(t, Topology::Lines | Topology::LineLoop | Topology::LineStrip)
}

/// The vertex index at position `k` of the drawing order (`k < count` is the caller's).
#[inline]
fn at(indices: Option<&[u32]>, k: usize) -> usize {
    match indices {
        Some(ix) => ix.get(k).map_or(usize::MAX, |&i| i as usize),
        None => k,
    }
}

/// Number of entries in the drawing order: the indices, or every vertex.
fn count(indices: Option<&[u32]>, vertices: usize) -> usize {
    indices.map_or(vertices, <[u32]>::len)
}

/// Each triangle of a triangle topology, with glTF's winding for strips and fans so that
/// front faces stay counter-clockwise. Other topologies yield nothing.
pub(super) fn for_each_triangle(
    t: Topology,
    indices: Option<&[u32]>,
    vertices: usize,
    mut f: impl FnMut([usize; 3]),
) {
    let n = count(indices, vertices);
    let ix = |k| at(indices, k);
    match t {
        // The common case gets its own loop: no per-index branch on `indices`.
        Topology::Triangles => match indices {
            Some(list) => {
                for t in list.chunks_exact(3) {
                    if let [a, b, c] = *t {
                        f([a as usize, b as usize, c as usize]);
                    }
                }
            }
            None => {
                for k in 0..n / 3 {
                    f([3 * k, 3 * k + 1, 3 * k + 2]);
                }
            }
        },
        Topology::TriangleStrip => {
            for k in 0..n.saturating_sub(2) {
                let odd = k % 2;
                f([ix(k), ix(k + 1 + odd), ix(k + 2 - odd)]);
            }
        }
        Topology::TriangleFan => {
            for k in 0..n.saturating_sub(2) {
                f([ix(k + 1), ix(k + 2), ix(0)]);
            }
        }
        _ => {}
    }
}

/// Each segment of a line topology; other topologies yield nothing.
pub(super) fn for_each_segment(
    t: Topology,
    indices: Option<&[u32]>,
    vertices: usize,
    mut f: impl FnMut([usize; 2]),
) {
    let n = count(indices, vertices);
    let ix = |k| at(indices, k);
    match t {
        Topology::Lines => {
            for k in 0..n / 2 {
                f([ix(2 * k), ix(2 * k + 1)]);
            }
        }
        Topology::LineStrip | Topology::LineLoop => {
            for k in 0..n.saturating_sub(1) {
                f([ix(k), ix(k + 1)]);
            }
            if t == Topology::LineLoop && n >= 2 {
                f([ix(n - 1), ix(0)]);
            }
        }
        _ => {}
    }
}

/// Every entry of the drawing order, whatever the topology (for point display).
pub(super) fn for_each_point(indices: Option<&[u32]>, vertices: usize, mut f: impl FnMut(usize)) {
    for k in 0..count(indices, vertices) {
        f(at(indices, k));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tris(t: Topology, ix: Option<&[u32]>, n: usize) -> Vec<[usize; 3]> {
        let mut v = Vec::new();
        for_each_triangle(t, ix, n, |x| v.push(x));
        v
    }

    fn segs(t: Topology, n: usize) -> Vec<[usize; 2]> {
        let mut v = Vec::new();
        for_each_segment(t, None, n, |x| v.push(x));
        v
    }

    #[test]
    fn triangle_modes_follow_the_gltf_spec() {
        assert_eq!(tris(Topology::Triangles, None, 7), vec![[0, 1, 2], [3, 4, 5]]);
        // Strip: {i, i + (1 + i%2), i + (2 - i%2)}: i = 1 gives {1, 3, 2}.
        assert_eq!(tris(Topology::TriangleStrip, None, 5), vec![[0, 1, 2], [1, 3, 2], [2, 3, 4]]);
        // Fan: {i + 1, i + 2, 0}.
        assert_eq!(tris(Topology::TriangleFan, None, 4), vec![[1, 2, 0], [2, 3, 0]]);
        assert_eq!(tris(Topology::Triangles, Some(&[5, 6, 7, 1]), 8), vec![[5, 6, 7]]);
        assert!(tris(Topology::Lines, None, 6).is_empty());
        assert!(tris(Topology::TriangleStrip, None, 1).is_empty());
    }

    #[test]
    fn line_modes_follow_the_gltf_spec() {
        assert_eq!(segs(Topology::Lines, 5), vec![[0, 1], [2, 3]]);
        assert_eq!(segs(Topology::LineStrip, 3), vec![[0, 1], [1, 2]]);
        assert_eq!(segs(Topology::LineLoop, 3), vec![[0, 1], [1, 2], [2, 0]]);
        assert!(segs(Topology::LineLoop, 1).is_empty());
        assert!(segs(Topology::Triangles, 6).is_empty());
    }

    #[test]
    fn points_walk_the_indices() {
        let mut v = Vec::new();
        for_each_point(Some(&[3, 3, 9]), 4, |i| v.push(i));
        assert_eq!(v, vec![3, 3, 9]);
    }
}
