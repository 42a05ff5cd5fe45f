//! The arithmetic of one key interval: lerp, shortest-arc slerp, cubic Hermite, and the
//! quaternion normalisation every rotation output goes through; also the same slerp four
//! quaternions at a time (`Quat4`, structure of arrays), which rounds exactly like the
//! one-quaternion path. No key lookup here.

use glam::{Quat, Vec4};

/// Squared lengths this close to 1 are unit to f32 precision (length off by < 1e-7):
/// valid keys take this exit and skip a square root and a division.
const UNIT_EPSILON: f32 = 2e-7;

/// Components of a unit rotation smaller than this are made exactly zero (see
/// `without_negligible`).
const NEGLIGIBLE: f32 = 1e-12;

/// Unit quaternion, or identity when `q` has no usable length (zero or non-finite), so a
/// broken key never fills a whole mesh with NaN; components under `NEGLIGIBLE` are zero.
pub(crate) fn normalize_quat(q: Vec4) -> Quat {
    let len2 = dot4(q, q);
    if (len2 - 1.0).abs() <= UNIT_EPSILON {
        return Quat::from_vec4(without_negligible(q));
    }
    let len = len2.sqrt();
    if len.is_finite() && len > 0.0 { Quat::from_vec4(without_negligible(q / len)) } else { Quat::IDENTITY }
}

/// `q` (a unit quaternion) with its components under `NEGLIGIBLE` made exactly zero.
///
/// Such a component is a rounding leftover (the sine of a multiple of pi worked out in
/// floating point: 4e-18 where the exact value is 0), and it turns the matrix rotations'
/// products (`x * x`, `x * z`) into subnormal numbers, which Intel cores work out about a
/// hundred times slower than normal ones (see PERFORMANCE.md). Zeroing it changes the
/// rotation by less than 1e-12 radians, far below what f32 resolves in a unit quaternion (6e-8).
#[inline(always)]
fn without_negligible(q: Vec4) -> Vec4 {
    Vec4::select(q.abs().cmplt(Vec4::splat(NEGLIGIBLE)), Vec4::ZERO, q)
}

/// The 4D dot product with a fixed grouping, `(xx + zz) + (yy + ww)` (the one glam's SSE2
/// code uses), so `Quat4`'s lane-wise version rounds identically on every platform.
#[inline(always)]
pub(crate) fn dot4(a: Vec4, b: Vec4) -> f32 {
    (a.x * b.x + a.z * b.z) + (a.y * b.y + a.w * b.w)
}

/// Below this dot product (quaternions more than 60 degrees apart, rotations more than
/// 120 degrees apart) the series of `slerp_weight` needs more terms, so slerp takes the
/// trigonometric route. Keys of real clips are almost always far closer.
const SERIES_MIN_DOT: f32 = 0.5;

/// Spherical linear interpolation on the shortest arc, result normalised.
/// Inputs are normalised first: the formula assumes unit quaternions.
pub(crate) fn slerp_shortest(a: Vec4, b: Vec4, s: f32) -> Quat {
    slerp_unit(Vec4::from(normalize_quat(a)), Vec4::from(normalize_quat(b)), s)
}

/// `slerp_shortest` for keys already through `normalize_quat` (the baked tracks store them
/// so): the same operations after that normalisation, so the same bits.
pub(crate) fn slerp_unit(a: Vec4, mut b: Vec4, s: f32) -> Quat {
    let mut dot = dot4(a, b);
    // q and -q are the same rotation; without this flip a small step becomes a near-full turn.
    if dot < 0.0 {
        b = -b;
        dot = -dot;
    }
    let dot = dot.min(1.0);
    if dot >= SERIES_MIN_DOT {
        return normalize_quat(a * slerp_weight(1.0 - s, dot) + b * slerp_weight(s, dot));
    }
    let theta = dot.acos();
    let sin_theta = theta.sin();
    let wa = ((1.0 - s) * theta).sin() / sin_theta;
    let wb = (s * theta).sin() / sin_theta;
    normalize_quat(a * wa + b * wb)
}

/// `sin(t * theta) / sin(theta)` for `cos(theta) = x`, without acos or sin: the power
/// series in `x - 1` (D. Eberly, "A fast and accurate algorithm for computing SLERP",
/// 2011), `t * (1 + b1 (x-1) (1 + b2 (x-1) (1 + ...)))` with
/// `b_i = (t^2 - i^2) / (i (2i + 1))`. Eight terms are exact to f32 precision for
/// `x >= SERIES_MIN_DOT` (angle error below 2e-7 rad) and four for `x >= 0.9` (below
/// 1e-8: neighbouring keys of real clips), and it is smooth at `x = 1` where the
/// trigonometric form divides 0 by 0.
#[inline]
fn slerp_weight(t: f32, x: f32) -> f32 {
    if x >= SHORT_SERIES_MIN_DOT { slerp_series::<4>(t, x) } else { slerp_series::<8>(t, x) }
}

#[inline(always)]
fn slerp_series<const TERMS: usize>(t: f32, x: f32) -> f32 {
    // b_i = U[i] t^2 - V[i], with U = 1 / (i (2i + 1)) and V = i / (2i + 1): no division.
    const U: [f32; 8] = [1. / 3., 1. / 10., 1. / 21., 1. / 36., 1. / 55., 1. / 78., 1. / 105., 1. / 136.];
    const V: [f32; 8] = [1. / 3., 2. / 5., 3. / 7., 4. / 9., 5. / 11., 6. / 13., 7. / 15., 8. / 17.];
    let xm1 = x - 1.0;
    let t2 = t * t;
    let mut acc = 1.0;
    for (u, v) in U.iter().zip(&V).take(TERMS).rev() {
        acc = 1.0 + (u * t2 - v) * xm1 * acc;
    }
    t * acc
}

/// Above this dot product `slerp_weight` uses its 4-term series, the only case `Quat4`
/// evaluates lane-wise (neighbouring keys of real clips are well above it).
const SHORT_SERIES_MIN_DOT: f32 = 0.9;

/// Four quaternions as structure of arrays: lane `i` of `x`, `y`, `z`, `w` is quaternion `i`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Quat4 {
    pub x: Vec4,
    pub y: Vec4,
    pub z: Vec4,
    pub w: Vec4,
}

impl Quat4 {
    pub const IDENTITY: Self = Self { x: Vec4::ZERO, y: Vec4::ZERO, z: Vec4::ZERO, w: Vec4::ONE };

    /// Packs up to four quaternions; missing lanes are identity.
    pub fn from_quats(quats: &[Vec4]) -> Self {
        let mut lanes = [Vec4::W; 4];
        for (lane, &q) in lanes.iter_mut().zip(quats) {
            *lane = q;
        }
        let m = glam::Mat4::from_cols(lanes[0], lanes[1], lanes[2], lanes[3]).transpose();
        Self { x: m.x_axis, y: m.y_axis, z: m.z_axis, w: m.w_axis }
    }

    /// The four quaternions, lane by lane.
    pub fn to_quats(self) -> [Quat; 4] {
        let m = glam::Mat4::from_cols(self.x, self.y, self.z, self.w).transpose();
        [m.x_axis, m.y_axis, m.z_axis, m.w_axis].map(Quat::from_vec4)
    }

    /// `dot4` lane by lane, same grouping.
    #[inline(always)]
    fn dot(self, o: Self) -> Vec4 {
        (self.x * o.x + self.z * o.z) + (self.y * o.y + self.w * o.w)
    }

    #[inline(always)]
    fn select(mask: glam::BVec4A, a: Self, b: Self) -> Self {
        Self {
            x: Vec4::select(mask, a.x, b.x),
            y: Vec4::select(mask, a.y, b.y),
            z: Vec4::select(mask, a.z, b.z),
            w: Vec4::select(mask, a.w, b.w),
        }
    }

    #[inline(always)]
    fn scale(self, f: Vec4) -> Self {
        Self { x: self.x * f, y: self.y * f, z: self.z * f, w: self.w * f }
    }

    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self { x: self.x + o.x, y: self.y + o.y, z: self.z + o.z, w: self.w + o.w }
    }

    /// The part of `slerp_unit` that depends only on the two keys (normalised), done once
    /// per key interval when a clip is baked: `b` on `a`'s side of the sphere (negated
    /// where `dot4(a, b) < 0`; negation is exact, so `dot4(a, near)` is the flipped dot bit
    /// for bit), `x - 1` for the clamped dot `x` the series runs on, and whether every lane
    /// takes the 4-term series.
    pub fn interval(a: Self, b: Self) -> SlerpInterval {
        let dot = a.dot(b);
        let flip = dot.cmplt(Vec4::ZERO);
        let near = Self::select(flip, Self { x: -b.x, y: -b.y, z: -b.z, w: -b.w }, b);
        // Vec4::min, like f32::min, returns 1 for a NaN dot.
        let x = Vec4::select(flip, -dot, dot).min(Vec4::ONE);
        let short = x.cmpge(Vec4::splat(SHORT_SERIES_MIN_DOT)).all();
        SlerpInterval { near, x_minus_1: x - Vec4::ONE, short }
    }

    /// `slerp_unit(a, b, s)` on each lane, with `interval = Quat4::interval(a, b)`: the
    /// same operations in the same order, so every lane has the bits `slerp_unit` gives.
    /// Lane-wise only when every lane takes the 4-term series; otherwise lane by lane.
    #[inline]
    pub fn slerp(a: Self, interval: &SlerpInterval, s: f32) -> Self {
        if !interval.short {
            // `near` is on `a`'s side, so `slerp_unit` flips nothing more.
            return Self::slerp_each(a, interval.near, s);
        }
        let wa = slerp_series4(1.0 - s, interval.x_minus_1);
        let wb = slerp_series4(s, interval.x_minus_1);
        a.scale(wa).add(interval.near.scale(wb)).normalize()
    }

    #[cold]
    fn slerp_each(a: Self, b: Self, s: f32) -> Self {
        let (qa, qb) = (a.to_quats(), b.to_quats());
        let mut out = [Vec4::W; 4];
        for ((o, qa), qb) in out.iter_mut().zip(qa).zip(qb) {
            *o = Vec4::from(slerp_unit(Vec4::from(qa), Vec4::from(qb), s));
        }
        Self::from_quats(&out)
    }

    /// `normalize_quat` on each lane.
    #[inline(always)]
    fn normalize(self) -> Self {
        let len2 = self.dot(self);
        let unit = (len2 - Vec4::ONE).abs().cmple(Vec4::splat(UNIT_EPSILON));
        if unit.all() {
            return self.without_negligible();
        }
        let len = len2.sqrt();
        let usable = len.cmpgt(Vec4::ZERO) & len.cmplt(Vec4::INFINITY);
        let divided = Self { x: self.x / len, y: self.y / len, z: self.z / len, w: self.w / len };
        Self::select(unit, self, Self::select(usable, divided, Self::IDENTITY)).without_negligible()
    }

    /// `without_negligible` on each lane (the identity has no such component).
    #[inline(always)]
    fn without_negligible(self) -> Self {
        let Self { x, y, z, w } = self;
        Self {
            x: without_negligible(x),
            y: without_negligible(y),
            z: without_negligible(z),
            w: without_negligible(w),
        }
    }
}

/// What `Quat4::slerp` needs of one key interval besides its first key (see
/// `Quat4::interval`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SlerpInterval {
    pub near: Quat4,
    pub x_minus_1: Vec4,
    pub short: bool,
}

/// `slerp_series::<4>` with one `t` and four `x` (given as `x - 1`): the same operations in
/// the same order.
#[inline(always)]
fn slerp_series4(t: f32, xm1: Vec4) -> Vec4 {
    const U: [f32; 4] = [1. / 3., 1. / 10., 1. / 21., 1. / 36.];
    const V: [f32; 4] = [1. / 3., 2. / 5., 3. / 7., 4. / 9.];
    let t2 = t * t;
    // `u * t2 - v` for the four terms at once (lane-wise, so the same bits); these depend
    // only on `t`, so a loop over blocks computes them once.
    let c: [f32; 4] = (Vec4::from(U) * t2 - Vec4::from(V)).into();
    let mut acc = Vec4::ONE;
    for c in c.into_iter().rev() {
        acc = Vec4::ONE + Vec4::splat(c) * xm1 * acc;
    }
    Vec4::splat(t) * acc
}

/// The four cubic Hermite basis weights at `s`, already multiplied by `td` for the tangents:
/// `(value_k, out_tangent_k, value_k+1, in_tangent_k+1)`.
pub(crate) fn hermite_weights(s: f32, td: f32) -> [f32; 4] {
    let s2 = s * s;
    let s3 = s2 * s;
    [2.0 * s3 - 3.0 * s2 + 1.0, td * (s3 - 2.0 * s2 + s), -2.0 * s3 + 3.0 * s2, td * (s3 - s2)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Quat, b: Quat) -> bool {
        Vec4::from(a).abs_diff_eq(Vec4::from(b), 1e-6)
    }

    /// The same slerp computed in f64, as a second method over many angles.
    fn trig_slerp(a: Vec4, b: Vec4, s: f32) -> Vec4 {
        let (a, mut b) = (a.as_dvec4(), b.as_dvec4());
        let mut dot = a.dot(b);
        if dot < 0.0 {
            b = -b;
            dot = -dot;
        }
        let theta = dot.min(1.0).acos();
        let s = f64::from(s);
        let q = (a * ((1.0 - s) * theta).sin() + b * (s * theta).sin()) / theta.sin();
        q.normalize().as_vec4()
    }

    #[test]
    fn slerp_matches_an_f64_slerp_over_every_angle() {
        let axis = glam::Vec3::new(1.0, 2.0, 2.0) / 3.0;
        let a = Vec4::from(Quat::from_axis_angle(glam::Vec3::Z, 0.3));
        let mut worst = 0.0f32;
        for deg in 2..=359 {
            // Quaternions up to 359 degrees of rotation apart; past 180 the flip kicks in.
            let turn = Quat::from_axis_angle(axis, (deg as f32).to_radians());
            let b = Vec4::from(turn * Quat::from_vec4(a));
            for i in 0..=16 {
                let s = i as f32 / 16.0;
                let ours = Vec4::from(slerp_shortest(a, b, s));
                let reference = trig_slerp(a, b, s);
                worst = worst.max((ours - reference).abs().max_element());
            }
        }
        assert!(worst < 2e-6, "worst error {worst}");
    }

    #[test]
    fn slerp_halfway_between_identity_and_quarter_turn_is_eighth_turn() {
        let a = Vec4::new(0.0, 0.0, 0.0, 1.0);
        // 90 degrees about z: (0, 0, sin 45, cos 45)
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let b = Vec4::new(0.0, 0.0, h, h);
        // 45 degrees about z: sin 22.5 = 0.38268343, cos 22.5 = 0.92387953
        let expected = Quat::from_xyzw(0.0, 0.0, 0.382_683_43, 0.923_879_5);
        assert!(close(slerp_shortest(a, b, 0.5), expected));
        // quarter of the way: 22.5 degrees -> sin 11.25 = 0.19509032, cos 11.25 = 0.98078528
        let quarter = Quat::from_xyzw(0.0, 0.0, 0.195_090_32, 0.980_785_3);
        assert!(close(slerp_shortest(a, b, 0.25), quarter));
    }

    #[test]
    fn slerp_takes_the_short_way_when_signs_flip() {
        // 10 degrees and the negated 30 degrees about z: the midpoint is +20 degrees.
        let a = Vec4::new(0.0, 0.0, 0.087_155_74, 0.996_194_7); // sin 5, cos 5
        let b = -Vec4::new(0.0, 0.0, 0.258_819_04, 0.965_925_8); // sin 15, cos 15
        let mid = slerp_shortest(a, b, 0.5);
        let expected = Quat::from_xyzw(0.0, 0.0, 0.173_648_18, 0.984_807_8); // sin 10, cos 10
        assert!(close(mid, expected), "{mid:?}");
    }

    #[test]
    fn near_equal_quaternions_stay_finite_and_unit() {
        let a = Vec4::new(0.0, 0.0, 0.0, 1.0);
        assert!(close(slerp_shortest(a, a, 0.3), Quat::IDENTITY));
        // 0.02 degrees apart, where sin(theta) is tiny: the midpoint is 0.01 degrees about x.
        let half = 0.02f32.to_radians() / 2.0;
        let b = Vec4::new(half.sin(), 0.0, 0.0, half.cos());
        let mid = slerp_shortest(a, b, 0.5);
        let q = 0.01f32.to_radians() / 2.0;
        assert!(close(mid, Quat::from_xyzw(q.sin(), 0.0, 0.0, q.cos())));
        assert!((Vec4::from(mid).length() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn broken_quaternions_become_identity_not_nan() {
        assert_eq!(normalize_quat(Vec4::ZERO), Quat::IDENTITY);
        assert_eq!(normalize_quat(Vec4::splat(f32::NAN)), Quat::IDENTITY);
        let q = normalize_quat(Vec4::new(0.0, 0.0, 0.0, 2.0));
        assert_eq!(q, Quat::IDENTITY);
    }

    #[test]
    fn negligible_components_become_zero_one_and_four_at_a_time() {
        // Rounding leftovers next to real rotations (the walker's keys at the middle of its
        // swing), each through both exits of the normalisation, and components just above
        // the threshold, which stay.
        let keys = [
            Vec4::new(0.019998666, -3.6732055e-18, -7.347391e-20, 0.9998),
            Vec4::new(0.0, 4.286264e-18, 0.0, 2.0),
            Vec4::new(2e-12, -2e-12, 0.6, 0.8),
            Vec4::new(-1e-30, 0.0, 0.0, -1.0),
        ];
        let want = [
            Quat::from_xyzw(0.019998666, 0.0, 0.0, 0.9998),
            Quat::IDENTITY,
            Quat::from_xyzw(2e-12, -2e-12, 0.6, 0.8),
            Quat::from_xyzw(0.0, 0.0, 0.0, -1.0),
        ];
        let bits = |q: Quat| Vec4::from(q).to_array().map(f32::to_bits);
        let four = Quat4::from_quats(&keys).normalize().to_quats();
        for k in 0..4 {
            assert_eq!(bits(normalize_quat(keys[k])), bits(want[k]), "key {k}");
            assert_eq!(bits(four[k]), bits(want[k]), "key {k}, four at a time");
        }
    }

    #[test]
    fn hermite_weights_match_the_basis_at_a_few_points() {
        // s = 0: only v_k; s = 1: only v_k+1.
        assert_eq!(hermite_weights(0.0, 2.0), [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(hermite_weights(1.0, 2.0), [0.0, 0.0, 1.0, 0.0]);
        // s = 0.5, td = 2: 0.5, 2*0.125, 0.5, 2*(-0.125)
        assert_eq!(hermite_weights(0.5, 2.0), [0.5, 0.25, 0.5, -0.25]);
    }

    #[test]
    fn series_weight_matches_the_sine_ratio() {
        // Both branches (4 and 8 terms) against sin(t theta) / sin(theta) in f64.
        for i in 0..=200 {
            let x = 0.5 + 0.5 * i as f32 / 200.0;
            let theta = f64::from(x).acos();
            for k in 0..=20 {
                let t = k as f32 / 20.0;
                let exact =
                    if theta == 0.0 { f64::from(t) } else { (f64::from(t) * theta).sin() / theta.sin() };
                let ours = f64::from(slerp_weight(t, x));
                assert!((ours - exact).abs() < 2e-6, "x {x} t {t}: {ours} vs {exact}");
            }
        }
    }
}
