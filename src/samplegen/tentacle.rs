//! `tentacle.glb`: a tapering tube along +Y on a chain of ten joints, with smooth weights and
//! one clip per interpolation mode (`wave` LINEAR, `snap` STEP, `spline` CUBICSPLINE).
//!
//! Node layout: nodes 0..=9 are joints `seg0`..`seg9` (a chain, each 0.2 above its parent;
//! joint index == node index), node 10 `tentacle` holds mesh 0 and skin 0 (a separate root).
//! The tube has 100 rings of 24 vertices from y = 0 to 1.98 plus a pole at the tip (y = 2),
//! open at the base: 2401 vertices.

use glam::{DMat4, DQuat, DVec3};

use super::builder::{GltfBuilder, Interpolation, Track};
use super::cycle::{looping, timeline};
use super::shapes::{SkinnedMesh, lathe};
use super::trig::{TAU, axis_angle, cos, rot_x, rot_z, sin, sin_cos};

const JOINTS: usize = 10;
const BONE: f64 = 0.2;
const RINGS: usize = 100;
const SEGMENTS: u32 = 24;
const LENGTH: f64 = BONE * JOINTS as f64;

pub fn tentacle() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let mut joints = Vec::with_capacity(JOINTS);
    for k in 0..JOINTS {
        let (parent, offset) = match joints.last() {
            Some(&p) => (Some(p), DVec3::new(0.0, BONE, 0.0)),
            None => (None, DVec3::ZERO),
        };
        joints.push(b.node(&format!("seg{k}"), parent, offset, DQuat::IDENTITY));
    }
    let skin = b.skin("tentacle", &joints, 0);

    let mut body = SkinnedMesh::default();
    body.add(&lathe(&profile(), SEGMENTS, 1.0, 1.0), DMat4::IDENTITY, |p| weights(p.y));
    let primitive = body.write(&mut b);
    let mesh = b.mesh("tentacle", vec![primitive]);
    b.mesh_node("tentacle", mesh, Some(skin));

    b.animation("wave", &wave(&joints));
    b.animation("snap", &snap(&joints));
    b.animation("spline", &spline(&joints));
    b.to_glb()
}

/// Radius tapering from 0.15 to about 0.04, rounded into the tip pole over the last 0.15.
fn profile() -> Vec<(f64, f64)> {
    (0..=RINGS)
        .map(|i| {
            let y = LENGTH * i as f64 / RINGS as f64;
            let taper = 0.15 - 0.055 * y;
            let into_tip = ((y - 1.85) / 0.15).max(0.0);
            let r = if i == RINGS { 0.0 } else { taper * (1.0 - into_tip * into_tip).max(0.0).sqrt() };
            (y, r)
        })
        .collect()
}

/// Each joint pulls on the vertices around the middle of its bone with a smooth bump of
/// radius two bones, so every vertex has two to four influences.
fn weights(y: f64) -> Vec<(u8, f32)> {
    (0..JOINTS)
        .filter_map(|k| {
            let center = BONE * (k as f64 + 0.5);
            let d = (y - center).abs() / (2.0 * BONE);
            let joint = u8::try_from(k).ok()?;
            (d < 1.0).then_some((joint, ((1.0 - d * d) * (1.0 - d * d)) as f32))
        })
        .collect()
}

/// A sine travelling from base to tip: bends about z with a smaller swirl about x.
/// The last key repeats the first exactly (phase index wraps), so the loop is seamless.
fn wave(joints: &[usize]) -> Vec<Track> {
    const INTERVALS: usize = 32;
    let times = timeline(2.0, INTERVALS);
    joints
        .iter()
        .enumerate()
        .map(|(k, &node)| {
            let keys = looping(INTERVALS, |p| {
                let phase = p - 0.7 * k as f64;
                rot_z(0.22 * sin(phase)) * rot_x(0.08 * cos(phase))
            });
            Track::rotations(node, Interpolation::Linear, &times, &keys)
        })
        .collect()
}

/// Four held poses: curled forward, straight, curled sideways, curled back-and-sideways.
fn snap(joints: &[usize]) -> Vec<Track> {
    let times = [0.0, 0.5, 1.0, 1.5, 2.0];
    let poses = [rot_x(0.18), DQuat::IDENTITY, rot_z(-0.2), rot_x(-0.12) * rot_z(0.12), rot_x(0.18)];
    joints.iter().map(|&node| Track::rotations(node, Interpolation::Step, &times, &poses)).collect()
}

/// A slow sway about a tilted axis, keyed every quarter period with the exact derivative of
/// the quaternion as both tangents (Hermite then reproduces the curve closely).
fn spline(joints: &[usize]) -> Vec<Track> {
    const INTERVALS: usize = 4;
    const PERIOD: f64 = 3.0;
    const AMPLITUDE: f64 = 0.3;
    let omega = TAU / PERIOD;
    let axis = DVec3::new(0.3, 0.0, 1.0).normalize();
    let times = timeline(PERIOD, INTERVALS);
    joints
        .iter()
        .enumerate()
        .map(|(k, &node)| {
            let keys = looping(INTERVALS, |p| {
                // Offset 0.4 keeps even joint 0 off the sine's peaks, so no tangent is zero.
                let (s, c) = sin_cos(p + 0.6 * k as f64 + 0.4);
                let angle = AMPLITUDE * s;
                let rate = AMPLITUDE * omega * c;
                // d/dt (axis sin(a/2), cos(a/2)) = a'/2 (axis cos(a/2), -sin(a/2)).
                let (hs, hc) = sin_cos(angle * 0.5);
                let v = axis * (0.5 * rate * hc);
                let tangent = DQuat::from_xyzw(v.x, v.y, v.z, -0.5 * rate * hs);
                [tangent, axis_angle(axis, angle), tangent]
            });
            Track::spline_rotations(node, &times, &keys)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::influences::normalise;
    use super::*;

    #[test]
    fn every_vertex_has_two_to_four_influences() {
        for i in 0..=RINGS {
            let y = LENGTH * i as f64 / RINGS as f64;
            let n = normalise(&weights(y)).iter().filter(|s| s.1 > 0.0).count();
            assert!((2..=4).contains(&n), "y = {y}: {n} influences");
        }
    }

    #[test]
    fn spline_tangent_is_the_derivative_of_the_rotation() {
        // Compare one stored tangent with a central difference of the same curve.
        let axis = DVec3::new(0.3, 0.0, 1.0).normalize();
        let omega = TAU / 3.0;
        let q = |t: f64| axis_angle(axis, 0.3 * (omega * t + 0.6 * 2.0 + 0.4).sin());
        let h = 1e-6;
        let numeric = (q(h) - q(-h)) * (1.0 / (2.0 * h));
        let tracks = spline(&[0, 1, 2]);
        let stored = &tracks[2].values[0..4];
        for (s, n) in stored.iter().zip(numeric.to_array()) {
            assert!((f64::from(*s) - n).abs() < 1e-6, "{s} vs {n}");
        }
    }
}
