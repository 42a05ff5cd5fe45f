//! `seed-arm.gltf`: the classic teaching rig of the seed material, small enough to check by hand.
//!
//! Node layout (joint index == node index, so JOINTS_0 values name nodes directly):
//!
//! | node | name | parent | translation    |
//! |------|------|--------|----------------|
//! | 0    | root | -      | (0, 0, 0)      |
//! | 1    | b1   | 0      | (0.2, 0, 0)    |
//! | 2    | b2   | 1      | (0.2, 0, 0)    |
//! | 3    | b31  | 2      | (0.2, 0.1, 0)  |
//! | 4    | b32  | 2      | (0.2, -0.1, 0) |
//! | 5    | arm  | -      | mesh 0, skin 0 (a second scene root; its transform is identity) |
//!
//! One LINE_LOOP primitive of 13 outline vertices with the weights below, stored verbatim (not
//! renormalised: they are the teaching data). Clips: `translate` (2 s) and `bend` (4 s).

use glam::{DQuat, DVec3};
use serde_json::json;

use super::builder::{GltfBuilder, Interpolation, Kind, MODE_LINE_LOOP, Track, Usage};
use super::trig::rot_z;

/// Joint names in skin order.
pub const SEED_ARM_JOINTS: [&str; 5] = ["root", "b1", "b2", "b31", "b32"];

/// Outline vertices (x, y); z = 0.
pub const SEED_ARM_OUTLINE: [[f32; 2]; 13] = [
    [-0.1, 0.05],
    [0.1, 0.05],
    [0.3, 0.05],
    [0.45, 0.06],
    [0.6, 0.15],
    [0.65, 0.1],
    [0.5, 0.0],
    [0.65, -0.1],
    [0.6, -0.15],
    [0.45, -0.06],
    [0.3, -0.05],
    [0.1, -0.05],
    [-0.1, -0.05],
];

/// Per-vertex (joint, weight) influences in slot order; unused slots are (0, 0).
pub const SEED_ARM_WEIGHTS: [[(u8, f32); 2]; 13] = [
    [(0, 1.0), (0, 0.0)],
    [(0, 0.5), (1, 0.5)],
    [(1, 0.5), (2, 0.5)],
    [(2, 0.3), (3, 0.7)],
    [(2, 0.2), (3, 0.8)],
    [(3, 1.0), (0, 0.0)],
    [(3, 0.5), (4, 0.5)],
    [(4, 1.0), (0, 0.0)],
    [(2, 0.2), (4, 0.8)],
    [(2, 0.3), (4, 0.7)],
    [(1, 0.5), (2, 0.5)],
    [(0, 0.5), (1, 0.5)],
    [(0, 1.0), (0, 0.0)],
];

pub fn seed_arm() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let root = b.node("root", None, DVec3::ZERO, DQuat::IDENTITY);
    let b1 = b.node("b1", Some(root), DVec3::new(0.2, 0.0, 0.0), DQuat::IDENTITY);
    let b2 = b.node("b2", Some(b1), DVec3::new(0.2, 0.0, 0.0), DQuat::IDENTITY);
    let b31 = b.node("b31", Some(b2), DVec3::new(0.2, 0.1, 0.0), DQuat::IDENTITY);
    let b32 = b.node("b32", Some(b2), DVec3::new(0.2, -0.1, 0.0), DQuat::IDENTITY);
    let skin = b.skin("arm", &[root, b1, b2, b31, b32], root);

    let positions: Vec<DVec3> =
        SEED_ARM_OUTLINE.iter().map(|&[x, y]| DVec3::new(f64::from(x), f64::from(y), 0.0)).collect();
    let joints: Vec<u8> = SEED_ARM_WEIGHTS.iter().flat_map(|&[(j0, _), (j1, _)]| [j0, j1, 0, 0]).collect();
    let weights: Vec<f32> =
        SEED_ARM_WEIGHTS.iter().flat_map(|&[(_, w0), (_, w1)]| [w0, w1, 0.0, 0.0]).collect();
    let position = b.positions(&positions);
    let joints = b.accessor(&joints, Kind::Vec4, Usage::VERTEX);
    let weights = b.accessor(&weights, Kind::Vec4, Usage::VERTEX);
    let primitive = json!({
        "attributes": { "POSITION": position, "JOINTS_0": joints, "WEIGHTS_0": weights },
        "mode": MODE_LINE_LOOP,
    });
    let mesh = b.mesh("arm", vec![primitive]);
    b.mesh_node("arm", mesh, Some(skin));

    // translate: b1 bobs +-0.2 in y around its rest; b32 slides out by 0.2 in x and back.
    // The b32 channel has fewer keys than b1's on purpose: both end at 2 s.
    let b1_y = [0.0, 0.2, 0.0, -0.2, 0.0];
    let b1_keys: Vec<DVec3> = b1_y.iter().map(|&y| DVec3::new(0.2, y, 0.0)).collect();
    let b32_keys = [DVec3::new(0.2, -0.1, 0.0), DVec3::new(0.4, -0.1, 0.0), DVec3::new(0.2, -0.1, 0.0)];
    b.animation(
        "translate",
        &[
            Track::translations(b1, &[0.0, 0.5, 1.0, 1.5, 2.0], &b1_keys),
            Track::translations(b32, &[0.0, 1.0, 2.0], &b32_keys),
        ],
    );

    // bend: b1 swings +-30 degrees and b2 +-45 degrees about z, in phase.
    let times = [0.0, 1.0, 2.0, 3.0, 4.0];
    let swing = [0.0, 1.0, 0.0, -1.0, 0.0];
    let keys = |amplitude: f64| -> Vec<DQuat> { swing.iter().map(|s| rot_z(s * amplitude)).collect() };
    let (deg30, deg45) = (std::f64::consts::FRAC_PI_6, std::f64::consts::FRAC_PI_4);
    b.animation(
        "bend",
        &[
            Track::rotations(b1, Interpolation::Linear, &times, &keys(deg30)),
            Track::rotations(b2, Interpolation::Linear, &times, &keys(deg45)),
        ],
    );
    b.to_gltf_embedded()
}
