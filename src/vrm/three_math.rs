//! three.js's quaternion and matrix operations as three 0.187 computes them
//! (`src/math/Quaternion.js`, `Matrix4.js`), in f64 as JavaScript does, where glam's own
//! differ in a way that changes results: slerp's short-angle branch, `setFromUnitVectors`'s
//! threshold for opposite vectors, `decompose`'s handling of a mirrored matrix.

use glam::{DMat4, DQuat, DVec3};

/// `Quaternion.setFromUnitVectors(from, to)`.
pub fn from_unit_vectors(from: DVec3, to: DVec3) -> DQuat {
    let r = from.dot(to) + 1.0;
    let (x, y, z, w) = if r < 1e-8 {
        if from.x.abs() > from.z.abs() { (-from.y, from.x, 0.0, 0.0) } else { (0.0, -from.z, from.y, 0.0) }
    } else {
        (from.y * to.z - from.z * to.y, from.z * to.x - from.x * to.z, from.x * to.y - from.y * to.x, r)
    };
    normalize(DQuat::from_xyzw(x, y, z, w))
}

/// `Quaternion.normalize`: a zero quaternion becomes the identity.
fn normalize(q: DQuat) -> DQuat {
    let length = q.length();
    if length == 0.0 { DQuat::IDENTITY } else { q / length }
}

/// `a.clone().slerp(b, t)`: the shorter way round; below an angle whose cosine is 0.9995 it
/// lerps and normalises. `t` outside 0..1 extrapolates.
pub fn slerp(a: DQuat, b: DQuat, t: f64) -> DQuat {
    let mut dot = a.dot(b);
    let b = if dot < 0.0 {
        dot = -dot;
        -b
    } else {
        b
    };
    let s = 1.0 - t;
    if dot < 0.9995 {
        let theta = dot.acos();
        let sin = theta.sin();
        let ratio_a = (s * theta).sin() / sin;
        let ratio_b = (t * theta).sin() / sin;
        a * ratio_a + b * ratio_b
    } else {
        normalize(a * s + b * t)
    }
}

/// The rotation `Matrix4.decompose` takes from `m` (columns divided by their lengths, the
/// first negated for a mirrored matrix; identity for a singular one).
pub fn rotation_of(m: DMat4) -> DQuat {
    let (x, y, z) = (m.x_axis.truncate(), m.y_axis.truncate(), m.z_axis.truncate());
    let det = x.dot(y.cross(z));
    if det == 0.0 {
        return DQuat::IDENTITY;
    }
    let sx = if det < 0.0 { -x.length() } else { x.length() };
    let (x, y, z) = (x * (1.0 / sx), y * (1.0 / y.length()), z * (1.0 / z.length()));
    from_rotation_columns(x, y, z)
}

/// `Quaternion.setFromRotationMatrix` on the columns of a rotation matrix.
fn from_rotation_columns(x: DVec3, y: DVec3, z: DVec3) -> DQuat {
    let (m11, m12, m13) = (x.x, y.x, z.x);
    let (m21, m22, m23) = (x.y, y.y, z.y);
    let (m31, m32, m33) = (x.z, y.z, z.z);
    let trace = m11 + m22 + m33;
    if trace > 0.0 {
        let s = 0.5 / (trace + 1.0).sqrt();
        DQuat::from_xyzw((m32 - m23) * s, (m13 - m31) * s, (m21 - m12) * s, 0.25 / s)
    } else if m11 > m22 && m11 > m33 {
        let s = 2.0 * (1.0 + m11 - m22 - m33).sqrt();
        DQuat::from_xyzw(0.25 * s, (m12 + m21) / s, (m13 + m31) / s, (m32 - m23) / s)
    } else if m22 > m33 {
        let s = 2.0 * (1.0 + m22 - m11 - m33).sqrt();
        DQuat::from_xyzw((m12 + m21) / s, 0.25 * s, (m23 + m32) / s, (m13 - m31) / s)
    } else {
        let s = 2.0 * (1.0 + m33 - m11 - m22).sqrt();
        DQuat::from_xyzw((m13 + m31) / s, (m23 + m32) / s, 0.25 * s, (m21 - m12) / s)
    }
}

/// `Vector3.normalize`: a zero vector stays zero.
pub fn normalize_vector(v: DVec3) -> DVec3 {
    let length = v.length();
    v / if length == 0.0 { 1.0 } else { length }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: DQuat, b: DQuat) -> bool {
        (a - b).length() < 1e-12 || (a + b).length() < 1e-12
    }

    #[test]
    fn rotation_of_a_scaled_and_mirrored_matrix_is_the_rotation_put_in() {
        let q = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, -0.5).normalize(), 2.7);
        let m =
            DMat4::from_scale_rotation_translation(DVec3::new(2.0, 0.5, 3.0), q, DVec3::new(1.0, 2.0, 3.0));
        assert!(close(rotation_of(m), q));
        // Mirrored in x: decompose negates the x scale and keeps the same rotation.
        let m = DMat4::from_scale_rotation_translation(DVec3::new(-2.0, 0.5, 3.0), q, DVec3::ZERO);
        assert!(close(rotation_of(m), q));
        assert_eq!(rotation_of(DMat4::ZERO), DQuat::IDENTITY);
    }

    #[test]
    fn slerp_takes_the_short_way_and_extrapolates_past_one() {
        let a = DQuat::IDENTITY;
        let b = DQuat::from_rotation_y(1.0);
        assert!(close(slerp(a, b, 0.25), DQuat::from_rotation_y(0.25)));
        assert!(close(slerp(a, -b, 0.5), DQuat::from_rotation_y(0.5)));
        assert!(close(slerp(a, b, 1.5), DQuat::from_rotation_y(1.5)));
        // Nearly equal: the lerp branch, still on the arc to rounding.
        let c = DQuat::from_rotation_y(0.01);
        assert!((slerp(a, c, 0.5).to_axis_angle().1 - 0.005).abs() < 1e-9);
    }

    #[test]
    fn from_unit_vectors_turns_from_onto_to() {
        let (from, to) = (DVec3::X, DVec3::new(0.0, 0.6, 0.8));
        assert!((from_unit_vectors(from, to) * from - to).length() < 1e-12);
        // Opposite: a half turn about an axis across `from`.
        let q = from_unit_vectors(DVec3::X, DVec3::NEG_X);
        assert!((q * DVec3::X + DVec3::X).length() < 1e-12);
        // A zero vector (an unknown axis) gives the identity.
        assert_eq!(from_unit_vectors(DVec3::ZERO, DVec3::Y), DQuat::IDENTITY);
    }
}
