//! A cheap first look at one problem vertex in one pose for `consequence`: for each engine
//! weighting, bounds between which the kernel's measured distance from the stored position
//! must lie. Skinning is linear in the weights, so the difference between two weightings is
//! `sum_j (w_j - s_j) M_j p`: one matrix-vector product per joint, shared by every engine,
//! and a few multiply-adds per engine. The rounding the kernel (with or without FMA) and this
//! screen can add is bounded from the same products' magnitudes, so a pose whose upper bound
//! is below another pose's lower bound cannot be the vertex's worst and the kernel need not
//! measure it there. The distances reported are always the kernel's own.
//!
//! Must not decide anything itself: it only bounds. Weights it cannot bound (non-finite
//! matrices, weights past `MAX_WEIGHT`) make `Screen::new` or `Screen::bounds` decline, and
//! the caller measures every pose.

use glam::{Mat4, Vec3, Vec4};

/// Weights (and divisors' reciprocals) above this are left to the kernel at every pose: the
/// bound's products could overflow.
const MAX_WEIGHT: f64 = 1e6;

/// Every f32 result below 1e-30 is treated as if it could be off by that much (underflow).
const FLOOR: f32 = 1e-30;

/// Weightings screened side by side (plain arrays the compiler vectorises): at most one per
/// measured engine profile; a vertex with more distinct weightings is not screened.
pub(super) const LANES: usize = 12;

/// One engine's weighting of the vertex: the slots the kernel skins, and what the skinned
/// point is divided by (1 for a plain skin, Babylon.js's sum of weights).
pub(super) struct Weighting<'a> {
    pub slots: &'a [(u16, f32)],
    pub divisor: f32,
}

pub(super) struct Screen {
    /// The distinct joints any weighting gives finite non-zero weight, within the skin.
    joints: Vec<usize>,
    /// Per joint: each weighting's weight minus the stored weight (0 past the last one).
    delta: Vec<[f32; LANES]>,
    /// The magnitude each weighting's rounding is bounded by.
    scale: [f32; LANES],
    /// A bound on the relative rounding of every sum involved (a multiple of f32's unit).
    unit: f32,
    /// Per joint, this pose: `M_j p`.
    products: Vec<Vec3>,
}

/// `(joint, weight)` of every slot the kernel adds in (`skinning::accumulate_slots`: finite,
/// non-zero, a joint of the skin), or `None` when a weight is past `MAX_WEIGHT`.
fn added(slots: &[(u16, f32)], joint_count: usize) -> Option<Vec<(usize, f64)>> {
    let kept = slots.iter().filter(|s| s.1 != 0.0 && s.1.is_finite() && usize::from(s.0) < joint_count);
    kept.map(|&(j, w)| (f64::from(w).abs() <= MAX_WEIGHT).then_some((usize::from(j), f64::from(w)))).collect()
}

impl Screen {
    /// The screen of `weightings` against `stored`, for a skin of `joint_count` joints.
    pub fn new(stored: &[(u16, f32)], weightings: &[Weighting], joint_count: usize) -> Option<Screen> {
        if weightings.len() > LANES {
            return None;
        }
        let stored = added(stored, joint_count)?;
        let mut lists = Vec::with_capacity(weightings.len());
        for w in weightings {
            let inverse = 1.0 / f64::from(w.divisor);
            if !inverse.is_finite() || inverse.abs() > MAX_WEIGHT {
                return None;
            }
            lists.push((added(w.slots, joint_count)?, inverse));
        }
        let mut joints: Vec<usize> =
            stored.iter().chain(lists.iter().flat_map(|l| l.0.iter())).map(|s| s.0).collect();
        joints.sort_unstable();
        joints.dedup();
        let most = lists.iter().map(|l| l.0.len()).chain([stored.len()]).max().unwrap_or(0);
        let per_joint = |slots: &[(usize, f64)], factor: f64| {
            let mut out = vec![0.0f64; joints.len()];
            for &(j, w) in slots {
                if let Ok(i) = joints.binary_search(&j) {
                    out[i] += w * factor;
                }
            }
            out
        };
        let magnitude = |slots: &[(usize, f64)]| slots.iter().map(|s| s.1.abs()).sum::<f64>();
        let base = per_joint(&stored, 1.0);
        let mut delta = vec![[0.0f32; LANES]; joints.len()];
        let mut scale = [0.0f32; LANES];
        for (lane, (slots, inverse)) in lists.iter().enumerate() {
            let mut size = 0.0;
            for (k, (w, s)) in per_joint(slots, *inverse).iter().zip(&base).enumerate() {
                delta[k][lane] = (w - s) as f32;
                size += (w - s).abs();
            }
            scale[lane] = (magnitude(slots) * inverse.abs() + magnitude(&stored) + size) as f32;
        }
        // The kernel adds `most` weighted matrices and transforms once (each step one
        // rounding with FMA, two without); the screen does as many and a distance; four
        // times that many units covers them all.
        let unit = 4.0 * (most as f32 + 8.0) * f32::EPSILON * 0.5;
        let products = vec![Vec3::ZERO; joints.len()];
        Some(Screen { joints, delta, scale, unit, products })
    }

    /// Bounds on the kernel's distance between each weighting's point and the stored one,
    /// lane by lane in `weightings` order (`low[l] <= distance <= high[l]`), with
    /// `joint_matrices`, their `column_lengths` and the (morphed) position `p`; `false` (and
    /// the bounds unspecified) when they cannot be bounded.
    pub fn bounds(
        &mut self,
        joint_matrices: &[Mat4],
        column_lengths: &[Vec4],
        p: Vec3,
        low: &mut [f32; LANES],
        high: &mut [f32; LANES],
    ) -> bool {
        let size = Vec4::new(p.x.abs(), p.y.abs(), p.z.abs(), 1.0);
        // The largest |sum_i |m_i| |p_i||, a bound on every sum the kernel rounds.
        let mut reach = 0.0f32;
        for (product, &j) in self.products.iter_mut().zip(&self.joints) {
            let (Some(m), Some(c)) = (joint_matrices.get(j), column_lengths.get(j)) else { return false };
            *product = m.transform_point3(p);
            reach = reach.max(c.dot(size));
        }
        if !reach.is_finite() || reach > 1e30 {
            return false;
        }
        let (mut x, mut y, mut z) = ([0.0f32; LANES], [0.0f32; LANES], [0.0f32; LANES]);
        for (row, q) in self.delta.iter().zip(&self.products) {
            for l in 0..LANES {
                x[l] += row[l] * q.x;
                y[l] += row[l] * q.y;
                z[l] += row[l] * q.z;
            }
        }
        let mut finite = true;
        for l in 0..LANES {
            let distance = (x[l] * x[l] + y[l] * y[l] + z[l] * z[l]).sqrt();
            let off = self.unit * (self.scale[l] * reach + distance) + FLOOR;
            low[l] = distance - off;
            high[l] = distance + off;
            finite &= low[l].is_finite() & high[l].is_finite();
        }
        finite
    }
}

/// Per joint, the lengths of its matrix's columns (xyz): what `Screen::bounds` bounds the
/// kernel's sums by, computed once per pose for every vertex.
pub(super) fn column_lengths(joint_matrices: &[Mat4], out: &mut Vec<Vec4>) {
    out.clear();
    out.extend(joint_matrices.iter().map(|m| {
        let l = |c: Vec4| c.truncate().length();
        Vec4::new(l(m.x_axis), l(m.y_axis), l(m.z_axis), l(m.w_axis))
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::skin_point;

    /// The kernel's distance lies within the bounds, for weightings that keep, drop,
    /// renormalise and divide, over a spread of poses (scaled, rotated, far from the origin).
    #[test]
    fn the_kernels_distance_lies_within_the_bounds() {
        let stored = [(0u16, 0.45f32), (1, 0.3), (2, 0.1), (3, 0.0)];
        let sum: f32 = stored.iter().map(|s| s.1).sum();
        let normalised: Vec<(u16, f32)> = stored.iter().map(|&(j, w)| (j, w / sum)).collect();
        let one = [(0u16, 1.0f32), (0, 0.0), (0, 0.0), (0, 0.0)];
        let weightings = [
            Weighting { slots: &normalised, divisor: 1.0 },
            Weighting { slots: &one, divisor: 1.0 },
            Weighting { slots: &stored, divisor: sum },
            Weighting { slots: &stored, divisor: 0.5 },
            Weighting { slots: &one, divisor: -2.0 },
            Weighting { slots: &normalised, divisor: 3.0 },
            Weighting { slots: &one, divisor: 0.25 },
            Weighting { slots: &normalised, divisor: 0.9 },
            Weighting { slots: &one, divisor: 1.5 },
        ];
        let mut screen = Screen::new(&stored, &weightings, 3).expect("bounded");
        // Joint 3 is past the skin: skipped, as the kernel skips it.
        assert_eq!(screen.joints, [0, 1, 2]);
        let (mut low, mut high, mut lengths) = ([0.0; LANES], [0.0; LANES], Vec::new());
        for step in 0..200 {
            let a = step as f32 * 0.37;
            let matrices: Vec<Mat4> = (0..3)
                .map(|j| {
                    Mat4::from_scale_rotation_translation(
                        Vec3::splat(1.0 + 0.1 * j as f32),
                        glam::Quat::from_rotation_y(a * (j + 1) as f32),
                        Vec3::new(100.0 * a.sin(), 3.0 * j as f32, -2.0),
                    )
                })
                .collect();
            let p = Vec3::new(0.3, 1.7, -0.2);
            column_lengths(&matrices, &mut lengths);
            assert!(screen.bounds(&matrices, &lengths, p, &mut low, &mut high));
            let at = skin_point(&stored, &matrices, p);
            for (w, (&low, &high)) in weightings.iter().zip(low.iter().zip(&high)) {
                let d = (skin_point(w.slots, &matrices, p) / w.divisor).distance(at);
                assert!(low <= d && d <= high, "step {step}: {low} <= {d} <= {high}");
                // Tight enough to tell poses apart.
                assert!(high - low <= 1e-3 * (1.0 + d), "{low} {high}");
            }
        }
    }

    #[test]
    fn weights_it_cannot_bound_are_declined() {
        let huge = [(0u16, 1e9f32)];
        assert!(Screen::new(&huge, &[], 1).is_none());
        let fine = [(0u16, 1.0f32)];
        assert!(Screen::new(&fine, &[Weighting { slots: &fine, divisor: 0.0 }], 1).is_none());
        let mut screen = Screen::new(&fine, &[Weighting { slots: &fine, divisor: 2.0 }], 1).expect("bounded");
        let (mut low, mut high, mut lengths) = ([0.0; LANES], [0.0; LANES], Vec::new());
        let far = [Mat4::from_translation(Vec3::splat(f32::INFINITY))];
        column_lengths(&far, &mut lengths);
        assert!(!screen.bounds(&far, &lengths, Vec3::ONE, &mut low, &mut high));
        assert!(!screen.bounds(&[], &[], Vec3::ONE, &mut low, &mut high));
        let many: Vec<Weighting> = (0..=LANES).map(|_| Weighting { slots: &fine, divisor: 2.0 }).collect();
        assert!(Screen::new(&fine, &many, 1).is_none(), "more weightings than lanes");
    }
}
