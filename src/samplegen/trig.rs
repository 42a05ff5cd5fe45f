//! Sine and cosine from IEEE basic operations only, plus the rotations built on them.
//!
//! The samples must be byte-identical on every machine, and `f64::sin` defers to the platform's
//! libm, whose last-bit rounding differs between systems. Additions, multiplications and
//! divisions are correctly rounded everywhere (Rust never fuses them into FMAs on its own), so
//! a range-reduced Taylor series gives the same bits on every machine. The generators also do
//! all geometry in glam's f64 types, which are scalar code (the f32 types use SIMD whose
//! operation order is per-architecture).

use glam::{DQuat, DVec3};

pub const TAU: f64 = std::f64::consts::TAU;

/// (sin x, cos x), accurate to about 1e-16 for |x| < 1e3 (more than the samples need).
pub fn sin_cos(x: f64) -> (f64, f64) {
    // Cody-Waite split of pi/2 (fdlibm's pio2_1 / pio2_1t): HI has only 33 significant bits,
    // so k * HI is exact for |k| < 2^20 and the reduction loses nothing.
    const HI: f64 = 1.570_796_326_734_125_6;
    const LO: f64 = 6.077_100_506_506_192e-11;
    let k = (x / HI).round();
    let r = (x - k * HI) - k * LO;
    let (s, c) = taylor(r);
    // Quadrant: k mod 4, also for negative k.
    match (k.rem_euclid(4.0)) as u8 {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

pub fn sin(x: f64) -> f64 {
    sin_cos(x).0
}

pub fn cos(x: f64) -> f64 {
    sin_cos(x).1
}

/// Taylor series for |r| <= pi/4 in Horner form (no `powi`, whose lowering may vary):
/// sin r = r (1 - r^2/(2*3) (1 - r^2/(4*5) (1 - ...))), terms up to r^17; cos likewise to r^18.
fn taylor(r: f64) -> (f64, f64) {
    let r2 = r * r;
    let mut s = 1.0;
    for n in (1..=8u32).rev() {
        s = 1.0 - r2 / f64::from((2 * n) * (2 * n + 1)) * s;
    }
    let mut c = 1.0;
    for n in (1..=9u32).rev() {
        c = 1.0 - r2 / f64::from((2 * n - 1) * (2 * n)) * c;
    }
    (r * s, c)
}

/// Rotation by `angle` radians about the unit vector `axis`.
pub fn axis_angle(axis: DVec3, angle: f64) -> DQuat {
    let (s, c) = sin_cos(angle * 0.5);
    let v = axis * s;
    DQuat::from_xyzw(v.x, v.y, v.z, c)
}

pub fn rot_x(angle: f64) -> DQuat {
    axis_angle(DVec3::X, angle)
}

pub fn rot_y(angle: f64) -> DQuat {
    axis_angle(DVec3::Y, angle)
}

pub fn rot_z(angle: f64) -> DQuat {
    axis_angle(DVec3::Z, angle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_the_platform_libm() {
        let mut x = -40.0;
        while x < 40.0 {
            let (s, c) = sin_cos(x);
            assert!((s - x.sin()).abs() < 1e-15, "sin {x}");
            assert!((c - x.cos()).abs() < 1e-15, "cos {x}");
            x += 0.0137;
        }
    }

    #[test]
    fn exact_at_quadrant_points() {
        assert_eq!(sin_cos(0.0), (0.0, 1.0));
        let (s, c) = sin_cos(std::f64::consts::FRAC_PI_2);
        assert_eq!(s, 1.0);
        assert!(c.abs() < 1e-16);
    }

    #[test]
    fn axis_angle_matches_glam() {
        let axis = DVec3::new(0.3, 0.0, 1.0).normalize();
        let ours = axis_angle(axis, 0.8);
        let glams = DQuat::from_axis_angle(axis, 0.8);
        assert!(ours.abs_diff_eq(glams, 1e-15));
    }
}
