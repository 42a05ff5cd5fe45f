//! The walker avatars with spring bones: `walker-springs-vrm1.vrm` (`VRMC_springBone` 1.0,
//! with an extended plane collider) and `walker-springs-vrm0.vrm` (VRM 0.x
//! `secondaryAnimation`). Both add the same nodes to the walker avatar (nodes 0..=20 as in
//! `vrm.rs`):
//!
//! - hair: 21 `hair.0` under the head (turned 0.2 rad about +Y), 22-24 `hair.1`..`hair.3`, each
//!   6 cm behind the last: it starts inside the head collider, so the first step pushes it out;
//! - tail: 25 `tail.base` under the hips (turned 0.3 rad about +X, no humanoid bone: VRM 1.0's
//!   loader has not computed its world matrix when the springs take their initial state),
//!   26 `tail.0`, 27-29 `tail.1`..`tail.3`, each 8 cm back and 2 cm down, simulated in the
//!   hips' space (`center`) with a sideways gravity.
//!
//! Colliders: a sphere on the head and one on the chest (the hair's group), a capsule down the
//! back of the hips (the tail's group), and in VRM 1.0 a plane under the hips facing up
//! (extended collider, sphere fallback).

use glam::{DQuat, DVec3};
use serde_json::json;

use super::builder::GltfBuilder;
use super::trig::axis_angle;
use super::vrm::{walker_vrm0_builder, walker_vrm1_builder};

const HIPS: usize = 0;
const CHEST: usize = 2;
const HEAD: usize = 4;

/// The hair and tail nodes: (hair joints, tail base, tail joints).
fn chains(b: &mut GltfBuilder) -> ([usize; 4], [usize; 4]) {
    let hair0 = b.node("hair.0", Some(HEAD), DVec3::new(0.0, 0.15, -0.02), axis_angle(DVec3::Y, 0.2));
    let hair1 = b.node("hair.1", Some(hair0), DVec3::new(0.0, 0.0, -0.06), DQuat::IDENTITY);
    let hair2 = b.node("hair.2", Some(hair1), DVec3::new(0.0, 0.0, -0.06), DQuat::IDENTITY);
    let hair3 = b.node("hair.3", Some(hair2), DVec3::new(0.0, 0.0, -0.06), DQuat::IDENTITY);
    let base = b.node("tail.base", Some(HIPS), DVec3::new(0.0, 0.0, -0.1), axis_angle(DVec3::X, 0.3));
    let tail0 = b.node("tail.0", Some(base), DVec3::new(0.0, 0.0, -0.03), DQuat::IDENTITY);
    let tail1 = b.node("tail.1", Some(tail0), DVec3::new(0.0, -0.02, -0.08), DQuat::IDENTITY);
    let tail2 = b.node("tail.2", Some(tail1), DVec3::new(0.0, -0.02, -0.08), DQuat::IDENTITY);
    let tail3 = b.node("tail.3", Some(tail2), DVec3::new(0.0, -0.02, -0.08), DQuat::IDENTITY);
    debug_assert_eq!((hair0, base), (21, 25));
    ([hair0, hair1, hair2, hair3], [tail0, tail1, tail2, tail3])
}

/// `walker-springs-vrm1.vrm`.
pub fn walker_springs_vrm1() -> Vec<u8> {
    let mut b = walker_vrm1_builder();
    let (hair, tail) = chains(&mut b);
    let joint = |node: usize, stiffness: f64, drag: f64| {
        json!({ "node": node, "hitRadius": 0.02, "stiffness": stiffness, "gravityPower": 1.0,
                "gravityDir": [0.0, -1.0, 0.0], "dragForce": drag })
    };
    let tail_joint = |node: usize, stiffness: f64| {
        json!({ "node": node, "hitRadius": 0.03, "stiffness": stiffness, "gravityPower": 0.6,
                "gravityDir": [0.3, -1.0, 0.0], "dragForce": 0.2 })
    };
    b.declare("VRMC_springBone_extended_collider");
    b.extension(
        "VRMC_springBone",
        json!({
            "specVersion": "1.0",
            "colliders": [
                { "node": HEAD, "shape": { "sphere": { "offset": [0.0, 0.08, 0.0], "radius": 0.11 } } },
                { "node": CHEST, "shape": { "sphere": { "offset": [0.0, 0.1, -0.1], "radius": 0.05 } } },
                { "node": HIPS, "shape": { "capsule": { "offset": [0.0, 0.0, -0.05], "radius": 0.06, "tail": [0.0, -0.3, -0.05] } } },
                { "node": HIPS, "shape": { "sphere": { "offset": [0.0, -0.2, 0.0], "radius": 0.0 } },
                  "extensions": { "VRMC_springBone_extended_collider": { "specVersion": "1.0",
                      "shape": { "plane": { "offset": [0.0, -0.2, 0.0], "normal": [0.0, 1.0, 0.0] } } } } }
            ],
            "colliderGroups": [
                { "name": "head", "colliders": [0, 1] },
                { "name": "hips", "colliders": [2, 3] }
            ],
            "springs": [
                { "name": "hair", "colliderGroups": [0],
                  "joints": [joint(hair[0], 0.8, 0.3), joint(hair[1], 0.6, 0.3), joint(hair[2], 0.5, 0.4), { "node": hair[3] }] },
                { "name": "tail", "colliderGroups": [1], "center": HIPS,
                  "joints": [tail_joint(tail[0], 1.2), tail_joint(tail[1], 1.0), tail_joint(tail[2], 0.8), { "node": tail[3] }] }
            ]
        }),
    );
    b.to_glb()
}

/// `walker-springs-vrm0.vrm`: the same chains as two bone groups (each root walked to its
/// end, so `hair.3` and `tail.3` are joints too, with three-vrm's 7 cm tail), sphere colliders
/// only (VRM 0.x has no others; their z is written negated, as VRM 0.x stores it).
pub fn walker_springs_vrm0() -> Vec<u8> {
    let mut nodes = None;
    let (mut b, mut extension) = walker_vrm0_builder(|b| nodes = Some(chains(b)));
    let Some((hair, tail)) = nodes else { return Vec::new() };
    let sphere = |x: f64, y: f64, z: f64, radius: f64| json!({ "offset": { "x": x, "y": y, "z": z }, "radius": radius });
    extension["secondaryAnimation"] = json!({
        "boneGroups": [
            { "comment": "hair", "stiffiness": 0.8, "gravityPower": 1.0, "gravityDir": { "x": 0.0, "y": -1.0, "z": 0.0 },
              "dragForce": 0.3, "center": -1, "hitRadius": 0.02, "bones": [hair[0]], "colliderGroups": [0] },
            { "comment": "tail", "stiffiness": 1.2, "gravityPower": 0.6, "gravityDir": { "x": 0.3, "y": -1.0, "z": 0.0 },
              "dragForce": 0.2, "center": HIPS, "hitRadius": 0.03, "bones": [tail[0]], "colliderGroups": [1] }
        ],
        "colliderGroups": [
            { "node": HEAD, "colliders": [sphere(0.0, 0.08, 0.0, 0.11)] },
            { "node": HIPS, "colliders": [sphere(0.0, 0.0, 0.05, 0.06), sphere(0.0, -0.15, 0.05, 0.06)] }
        ]
    });
    b.extension("VRM", extension);
    b.to_glb()
}
