//! The arithmetic of one key interval: lerp, shortest-arc slerp, cubic Hermite, and the
//! quaternion normalisation every rotation output goes through. No key lookup here.

use glam::{Quat, Vec4};

/// Squared lengths this close to 1 are unit to f32 precision (length off by < 1e-7):
/// valid keys take this exit and skip a square root and a division.
const UNIT_EPSILON: f32 = 2e-7;

/// Unit quaternion, or identity when `q` has no usable length (zero or non-finite), so a
/// broken key never fills a whole mesh with NaN.
pub(crate) fn normalize_quat(q: Vec4) -> Quat {
    let len2 = q.length_squared();
    if (len2 - 1.0).abs() <= UNIT_EPSILON {
        return Quat::from_vec4(q);
    }
    let len = len2.sqrt();
    if len.is_finite() && len > 0.0 { Quat::from_vec4(q / len) } else { Quat::IDENTITY }
}

/// Below this dot product (quaternions more than 60 degrees apart, rotations more than
/// 120 degrees apart) the series of `slerp_weight` needs more terms, so slerp takes the
/// trigonometric route. Keys of real clips are almost always far closer.
const SERIES_MIN_DOT: f32 = 0.5;

/// Spherical linear interpolation on the shortest arc, result normalised.
/// Inputs are normalised first: the formula assumes unit quaternions.
pub(crate) fn slerp_shortest(a: Vec4, b: Vec4, s: f32) -> Quat {
    let a = Vec4::from(normalize_quat(a));
    let mut b = Vec4::from(normalize_quat(b));
    let mut dot = a.dot(b);
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
    if x >= 0.9 { slerp_series::<4>(t, x) } else { slerp_series::<8>(t, x) }
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
