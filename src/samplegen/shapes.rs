//! Surfaces of revolution ("lathe" shapes) with smooth outward normals, and `SkinnedMesh`,
//! which places such surfaces in bind space, weights them, and writes one skinned primitive.
//!
//! A lathe is described by a profile of (y, r) points from bottom to top and an elliptical
//! cross-section: vertex = (rx * r * cos a, y, rz * r * sin a). A profile end with r = 0 is
//! closed by a single pole vertex. Tentacle and walker are both built from lathes.

use glam::{DMat4, DVec3};
use serde_json::{Value, json};

use super::builder::{GltfBuilder, Kind, MODE_TRIANGLES, Usage};
use super::influences::{Slots, normalise, split};
use super::trig::{TAU, sin_cos};

/// Triangles with per-vertex normals, in f64 until written.
#[derive(Debug, Clone, Default)]
pub struct Surface {
    pub positions: Vec<DVec3>,
    pub normals: Vec<DVec3>,
    /// Counter-clockwise seen from outside.
    pub indices: Vec<u32>,
}

enum Ring {
    Pole(u32),
    Loop(u32),
}

/// Revolves `profile` ((y, r) from bottom to top) with `segments` vertices per ring and
/// cross-section radii `radius_x`, `radius_z` multiplying r.
pub fn lathe(profile: &[(f64, f64)], segments: u32, radius_x: f64, radius_z: f64) -> Surface {
    let mut surface = Surface::default();
    let mut rings = Vec::with_capacity(profile.len());
    let last = profile.len().saturating_sub(1);
    let angles: Vec<(f64, f64)> =
        (0..segments).map(|j| sin_cos(TAU * f64::from(j) / f64::from(segments))).collect();
    for (i, &(y, r)) in profile.iter().enumerate() {
        let start = index_u32(surface.positions.len());
        if r == 0.0 && (i == 0 || i == last) {
            surface.positions.push(DVec3::new(0.0, y, 0.0));
            surface.normals.push(if i == 0 { DVec3::NEG_Y } else { DVec3::Y });
            rings.push(Ring::Pole(start));
            continue;
        }
        // Central differences along the profile; the normal is d/dprofile x d/dangle.
        let (y0, r0) = profile[i.saturating_sub(1)];
        let (y1, r1) = profile[(i + 1).min(last)];
        let (dy, dr) = (y1 - y0, r1 - r0);
        for &(s, c) in &angles {
            surface.positions.push(DVec3::new(radius_x * r * c, y, radius_z * r * s));
            let normal = DVec3::new(radius_z * dy * c, -radius_x * radius_z * dr, radius_x * dy * s);
            surface.normals.push(normal.normalize_or(DVec3::Y));
        }
        rings.push(Ring::Loop(start));
    }
    for pair in rings.windows(2) {
        for j in 0..segments {
            let k = (j + 1) % segments;
            match (&pair[0], &pair[1]) {
                (Ring::Loop(a), Ring::Loop(b)) => {
                    surface.indices.extend_from_slice(&[a + j, b + j, a + k, a + k, b + j, b + k])
                }
                (Ring::Pole(p), Ring::Loop(b)) => surface.indices.extend_from_slice(&[*p, b + j, b + k]),
                (Ring::Loop(a), Ring::Pole(p)) => surface.indices.extend_from_slice(&[a + j, *p, a + k]),
                (Ring::Pole(_), Ring::Pole(_)) => {}
            }
        }
    }
    surface
}

/// Resamples a polyline profile at `count` points evenly spaced by arc length, so that
/// rounded ends get as many rings as straight stretches of the same length.
pub fn resample(points: &[(f64, f64)], count: usize) -> Vec<(f64, f64)> {
    let lengths: Vec<f64> = points
        .windows(2)
        .map(|w| {
            let (dy, dr) = (w[1].0 - w[0].0, w[1].1 - w[0].1);
            (dy * dy + dr * dr).sqrt()
        })
        .collect();
    let total: f64 = lengths.iter().sum();
    let steps = count.saturating_sub(1).max(1);
    let mut out = Vec::with_capacity(count);
    let mut segment = 0;
    let mut walked = 0.0;
    for n in 0..count {
        let target = total * n as f64 / steps as f64;
        while segment + 1 < lengths.len() && walked + lengths[segment] < target {
            walked += lengths[segment];
            segment += 1;
        }
        let (Some(&a), Some(&b), Some(&len)) =
            (points.get(segment), points.get(segment + 1), lengths.get(segment))
        else {
            break;
        };
        let t = if len > 0.0 { ((target - walked) / len).clamp(0.0, 1.0) } else { 0.0 };
        out.push((a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t));
    }
    out
}

/// Profile of an ellipsoid of half height `half` centred at `center` (r from 0 to 1 and back),
/// with `count` points spaced evenly in latitude.
pub fn ellipsoid(center: f64, half: f64, count: usize) -> Vec<(f64, f64)> {
    let steps = count.saturating_sub(1).max(1) as f64;
    (0..count)
        .map(|n| {
            let (s, c) = sin_cos(std::f64::consts::PI * n as f64 / steps);
            // Exact zeros at the poles so `lathe` closes them.
            let r = if n == 0 || n + 1 == count { 0.0 } else { s };
            (center - half * c, r)
        })
        .collect()
}

/// One skinned triangle primitive assembled from placed, weighted surfaces.
#[derive(Debug, Clone, Default)]
pub struct SkinnedMesh {
    pub positions: Vec<DVec3>,
    pub normals: Vec<DVec3>,
    pub indices: Vec<u32>,
    pub slots: Vec<Slots>,
}

impl SkinnedMesh {
    /// Adds `surface`, built in a local frame, moved to bind space by `placement` (a rigid
    /// transform), weighting each vertex by `influence(local position)`.
    pub fn add(&mut self, surface: &Surface, placement: DMat4, influence: impl Fn(DVec3) -> Vec<(u8, f32)>) {
        let base = index_u32(self.positions.len());
        for (&p, &n) in surface.positions.iter().zip(&surface.normals) {
            self.positions.push(placement.transform_point3(p));
            self.normals.push(placement.transform_vector3(n).normalize_or(n));
            self.slots.push(normalise(&influence(p)));
        }
        self.indices.extend(surface.indices.iter().map(|i| i + base));
    }

    /// Writes the accessors and returns the primitive object.
    pub fn write(&self, builder: &mut GltfBuilder) -> Value {
        let (joints, weights) = split(&self.slots);
        let position = builder.positions(&self.positions);
        let normal = builder.vec3_attribute(&self.normals);
        let joints = builder.accessor(&joints, Kind::Vec4, Usage::VERTEX);
        let weights = builder.accessor(&weights, Kind::Vec4, Usage::VERTEX);
        let indices = builder.indices(&self.indices);
        json!({
            "attributes": { "POSITION": position, "NORMAL": normal, "JOINTS_0": joints, "WEIGHTS_0": weights },
            "indices": indices,
            "mode": MODE_TRIANGLES,
        })
    }
}

/// Vertex counts stay far below u32::MAX in every sample.
fn index_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triangle_normal(s: &Surface, tri: &[u32]) -> (DVec3, DVec3) {
        let p = |i: u32| s.positions[i as usize];
        let (a, b, c) = (p(tri[0]), p(tri[1]), p(tri[2]));
        ((b - a).cross(c - a), (a + b + c) / 3.0)
    }

    #[test]
    fn closed_ellipsoid_winds_outwards_with_outward_normals() {
        let s = lathe(&ellipsoid(1.0, 0.5, 9), 12, 0.3, 0.2);
        // 7 rings of 12 plus two poles.
        assert_eq!(s.positions.len(), 7 * 12 + 2);
        // 6 ring gaps of 2 triangles per segment, plus two fans.
        assert_eq!(s.indices.len(), (6 * 12 * 2 + 2 * 12) * 3);
        let center = DVec3::new(0.0, 1.0, 0.0);
        for tri in s.indices.chunks_exact(3) {
            let (n, centroid) = triangle_normal(&s, tri);
            assert!(n.dot(centroid - center) > 0.0, "triangle {tri:?} faces inwards");
        }
        for (p, n) in s.positions.iter().zip(&s.normals) {
            assert!(n.dot(*p - center) > 0.0);
            assert!((n.length() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn cylinder_side_normals_are_radial() {
        let s = lathe(&[(0.0, 1.0), (1.0, 1.0), (2.0, 1.0)], 8, 1.0, 1.0);
        for (p, n) in s.positions.iter().zip(&s.normals) {
            let radial = DVec3::new(p.x, 0.0, p.z).normalize();
            assert!((*n - radial).length() < 1e-12);
        }
    }

    #[test]
    fn resample_spaces_points_by_arc_length() {
        // An L of two unit legs, 5 points: corners at 0, 0.5, 1, 1.5, 2 along it.
        let out = resample(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)], 5);
        let expected = [(0.0, 0.0), (0.5, 0.0), (1.0, 0.0), (1.0, 0.5), (1.0, 1.0)];
        assert_eq!(out.len(), 5);
        for (a, b) in out.iter().zip(expected) {
            assert!((a.0 - b.0).abs() < 1e-12 && (a.1 - b.1).abs() < 1e-12, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn placement_moves_points_and_turns_normals() {
        let s = lathe(&[(0.0, 1.0), (1.0, 1.0)], 4, 1.0, 1.0);
        let mut mesh = SkinnedMesh::default();
        let m = DMat4::from_translation(DVec3::new(5.0, 0.0, 0.0))
            * DMat4::from_rotation_z(std::f64::consts::FRAC_PI_2);
        mesh.add(&s, m, |_| vec![(3, 1.0)]);
        // Local (1, 0, 0) turns to (0, 1, 0), then moves by +5 x.
        assert!((mesh.positions[0] - DVec3::new(5.0, 1.0, 0.0)).length() < 1e-12);
        assert!((mesh.normals[0] - DVec3::Y).length() < 1e-12);
        assert_eq!(mesh.slots[0], [(3, 1.0), (0, 0.0), (0, 0.0), (0, 0.0)]);
    }
}
