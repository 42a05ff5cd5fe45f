//! Clipping against planes in homogeneous coordinates: polygons (Sutherland-Hodgman) and
//! segments (parametric). A plane is a `Vec4` of coefficients; a point `p` is kept when
//! `plane.dot(p) >= 0`. The same code clips in clip space (the near plane, the guard band)
//! and in screen space (points written as `(x, y, z, 1)`). Everything is fixed-size: no
//! allocation per primitive.

use glam::Vec4;

/// Clip space: in front of the near plane. With reversed depth `z_clip = near`, `w` is the
/// view distance, and the near plane is `w = z_clip`.
pub(super) const NEAR: Vec4 = Vec4::new(0.0, 0.0, -1.0, 1.0);

/// How far beyond the viewport (in viewport half-widths) triangles may reach before they
/// are cut: far enough that real scenes almost never need it, close enough that snapped
/// screen coordinates stay within the filler's limit for any raster size.
pub(super) const GUARD: f32 = 32.0;

/// Clip space: the near plane and the four guard-band planes `|x|, |y| <= GUARD * w`.
pub(super) const CLIP_PLANES: [Vec4; 5] = [
    NEAR,
    Vec4::new(-1.0, 0.0, 0.0, GUARD),
    Vec4::new(1.0, 0.0, 0.0, GUARD),
    Vec4::new(0.0, -1.0, 0.0, GUARD),
    Vec4::new(0.0, 1.0, 0.0, GUARD),
];

/// A polygon vertex: a homogeneous position and one scalar carried along.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct ClipVertex {
    pub p: Vec4,
    pub s: f32,
}

/// Each plane adds at most one vertex to a convex polygon: a triangle clipped by five
/// planes has at most eight.
pub(super) const MAX_VERTICES: usize = 3 + CLIP_PLANES.len();

#[derive(Debug, Clone, Copy)]
pub(super) struct Polygon {
    pub v: [ClipVertex; MAX_VERTICES],
    pub n: usize,
}

impl Polygon {
    pub(super) fn triangle(a: ClipVertex, b: ClipVertex, c: ClipVertex) -> Polygon {
        let mut v = [ClipVertex::default(); MAX_VERTICES];
        v[0] = a;
        v[1] = b;
        v[2] = c;
        Polygon { v, n: 3 }
    }

    pub(super) fn vertices(&self) -> &[ClipVertex] {
        &self.v[..self.n.min(MAX_VERTICES)]
    }

    /// Keep the part on the inner side of each plane. Planes the polygon lies wholly
    /// inside cost one dot product per vertex and change nothing. Clipping more planes
    /// than `MAX_VERTICES - 3` could overflow; extra vertices are then dropped, which
    /// only our own callers could cause and none does.
    pub(super) fn clip(&mut self, planes: &[Vec4]) {
        for &plane in planes {
            if self.n == 0 {
                return;
            }
            let src = *self;
            let mut n = 0;
            let mut push = |v: ClipVertex| {
                if let Some(slot) = self.v.get_mut(n) {
                    *slot = v;
                    n += 1;
                }
            };
            let verts = src.vertices();
            let Some(&last) = verts.last() else {
                return;
            };
            let mut prev = last;
            let mut dprev = plane.dot(prev.p);
            for &cur in verts {
                let dcur = plane.dot(cur.p);
                if dcur >= 0.0 {
                    if dprev < 0.0 {
                        push(lerp(prev, cur, dprev / (dprev - dcur)));
                    }
                    push(cur);
                } else if dprev >= 0.0 {
                    push(lerp(prev, cur, dprev / (dprev - dcur)));
                }
                prev = cur;
                dprev = dcur;
            }
            self.n = n;
        }
    }
}

fn lerp(a: ClipVertex, b: ClipVertex, t: f32) -> ClipVertex {
    ClipVertex { p: a.p + (b.p - a.p) * t, s: a.s + (b.s - a.s) * t }
}

/// Whether `p` is inside every plane (`project` writes this out for its hot loop; tests
/// check the two agree).
#[cfg(test)]
pub(super) fn inside_all(p: Vec4, planes: &[Vec4]) -> bool {
    planes.iter().all(|pl| pl.dot(p) >= 0.0)
}

/// Cut the segment `a`-`b` to the part inside every plane; `None` when nothing is left
/// or a coordinate is not finite. (Polygons expect finite input: callers filter first.)
pub(super) fn clip_segment(
    a: ClipVertex,
    b: ClipVertex,
    planes: &[Vec4],
) -> Option<(ClipVertex, ClipVertex)> {
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for &plane in planes {
        let (da, db) = (plane.dot(a.p), plane.dot(b.p));
        if !(da.is_finite() && db.is_finite()) || (da < 0.0 && db < 0.0) {
            return None;
        }
        if da < 0.0 {
            t0 = t0.max(da / (da - db));
        } else if db < 0.0 {
            t1 = t1.min(da / (da - db));
        }
    }
    (t0 <= t1).then(|| (lerp(a, b, t0), lerp(a, b, t1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cv(x: f32, y: f32, z: f32, w: f32, s: f32) -> ClipVertex {
        ClipVertex { p: Vec4::new(x, y, z, w), s }
    }

    #[test]
    fn triangle_across_one_plane_becomes_a_quad() {
        // Keep x <= 1 (plane -x + w >= 0 with w = 1). Vertices at x = 0, 2, 0.
        let keep = Vec4::new(-1.0, 0.0, 0.0, 1.0);
        let mut poly = Polygon::triangle(
            cv(0.0, 0.0, 0.0, 1.0, 0.0),
            cv(2.0, 0.0, 0.0, 1.0, 1.0),
            cv(0.0, 2.0, 0.0, 1.0, 0.0),
        );
        poly.clip(&[keep]);
        // Edge c->a is inside (c kept, then a); a->b crosses at t = 1/2: (1, 0), s = 0.5;
        // b->c crosses at t = 1/2: (1, 1), s = 0.5.
        let got: Vec<(f32, f32, f32)> = poly.vertices().iter().map(|v| (v.p.x, v.p.y, v.s)).collect();
        assert_eq!(got, vec![(0.0, 0.0, 0.0), (1.0, 0.0, 0.5), (1.0, 1.0, 0.5), (0.0, 2.0, 0.0)]);
    }

    #[test]
    fn near_plane_cut_in_clip_space() {
        // w - z >= 0 with z = 0.1 (the near distance): vertex w = 2.1 kept, w = -1.9 cut.
        // Along a->b: d goes 2.0 -> -2.0, crossing at t = 1/2 where w = 0.1 = z.
        let mut poly = Polygon::triangle(
            cv(0.0, 0.0, 0.1, 2.1, 0.0),
            cv(4.0, 0.0, 0.1, -1.9, 0.0),
            cv(0.0, 4.0, 0.1, 2.1, 0.0),
        );
        poly.clip(&[NEAR]);
        assert_eq!(poly.n, 4);
        for v in poly.vertices() {
            assert!(v.p.w >= 0.1 - 1e-6);
        }
        assert!(poly.v[1].p.abs_diff_eq(Vec4::new(2.0, 0.0, 0.1, 0.1), 1e-6));
    }

    #[test]
    fn fully_outside_is_empty_and_fully_inside_unchanged() {
        let mut out = Polygon::triangle(
            cv(0.0, 0.0, 1.0, -1.0, 0.0),
            cv(1.0, 0.0, 1.0, -2.0, 0.0),
            cv(0.0, 1.0, 1.0, -3.0, 0.0),
        );
        out.clip(&CLIP_PLANES);
        assert_eq!(out.n, 0);
        let tri = Polygon::triangle(
            cv(0.0, 0.0, 0.1, 1.0, 0.0),
            cv(1.0, 0.0, 0.1, 1.0, 0.0),
            cv(0.0, 1.0, 0.1, 1.0, 0.0),
        );
        let mut same = tri;
        same.clip(&CLIP_PLANES);
        assert_eq!(same.vertices(), tri.vertices());
    }

    #[test]
    fn many_planes_at_once_stay_within_capacity() {
        // A huge triangle: the visible band is y/w in [-32, 32] near t = 1/2 of the way
        // from the bottom edge to the apex, where the near plane (w - z = 0.9 - 1.8 t)
        // also cuts; the left and right guard planes cut the +-5000 wide sides.
        let mut poly = Polygon::triangle(
            cv(-1e4, -1e4, 0.1, 1.0, 0.0),
            cv(1e4, -1e4, 0.1, 1.0, 0.0),
            cv(0.0, 1e4, 1.9, 1.0, 0.0),
        );
        poly.clip(&CLIP_PLANES);
        assert!(poly.n >= 4 && poly.n <= MAX_VERTICES, "{}", poly.n);
        for v in poly.vertices() {
            // Inside every plane up to rounding on coordinates of size 1e4.
            assert!(CLIP_PLANES.iter().all(|pl| pl.dot(v.p) > -0.1), "{v:?}");
            assert!(v.p.x.abs() <= 32.1 && v.p.y.abs() <= 32.1);
        }
    }

    #[test]
    fn segment_clipping() {
        let keep = Vec4::new(-1.0, 0.0, 0.0, 1.0); // x <= 1
        let (a, b) = clip_segment(cv(0.0, 0.0, 0.0, 1.0, 0.0), cv(4.0, 4.0, 0.0, 1.0, 1.0), &[keep]).unwrap();
        assert_eq!(a.p, Vec4::new(0.0, 0.0, 0.0, 1.0));
        assert_eq!((b.p.x, b.p.y, b.s), (1.0, 1.0, 0.25));
        // Reversed direction clips the start instead.
        let (a, _) = clip_segment(cv(4.0, 4.0, 0.0, 1.0, 1.0), cv(0.0, 0.0, 0.0, 1.0, 0.0), &[keep]).unwrap();
        assert_eq!((a.p.x, a.p.y, a.s), (1.0, 1.0, 0.25));
        assert!(clip_segment(cv(2.0, 0.0, 0.0, 1.0, 0.0), cv(3.0, 0.0, 0.0, 1.0, 0.0), &[keep]).is_none());
        assert!(
            clip_segment(cv(f32::NAN, 0.0, 0.0, 1.0, 0.0), cv(0.0, 0.0, 0.0, 1.0, 0.0), &[keep]).is_none()
        );
    }
}
