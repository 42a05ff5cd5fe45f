//! `walker-walk.vrma`: the walker's walk cycle as a VRM animation (`VRMC_vrm_animation` 1.0),
//! to be played on the VRM avatars of `vrm.rs`. Nodes 0..=16 are the walker's skeleton (same
//! names and rest pose) mapped to the same humanoid bones; the walk clip moves them as in
//! `walker.glb` (hips translation and rotations, LINEAR). Node 17 is the `happy` expression
//! and node 18 the custom `nod` one (weight = translation x, per the VRMA specification), node
//! 19 the lookAt node (its rotation is the gaze). A .vrma has no mesh.

use glam::{DQuat, DVec3};
use serde_json::{Value, json};

use super::builder::{GltfBuilder, Interpolation, Track};
use super::cycle::{looping, timeline};
use super::trig::{rot_x, rot_y, sin};
use super::walker::{SKELETON, rest_rotation, walk};

/// The walker's joints as VRM 1.0 bones, by node.
const BONES: [&str; 17] = [
    "hips",
    "spine",
    "chest",
    "neck",
    "head",
    "leftUpperArm",
    "leftLowerArm",
    "leftHand",
    "rightUpperArm",
    "rightLowerArm",
    "rightHand",
    "leftUpperLeg",
    "leftLowerLeg",
    "leftFoot",
    "rightUpperLeg",
    "rightLowerLeg",
    "rightFoot",
];

pub fn walker_walk_vrma() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    for (index, &(name, parent, [x, y, z])) in SKELETON.iter().enumerate() {
        b.node(name, parent, DVec3::new(x, y, z), rest_rotation(index));
    }
    let happy = b.node("happy", None, DVec3::ZERO, DQuat::IDENTITY);
    let nod = b.node("nod", None, DVec3::ZERO, DQuat::IDENTITY);
    let look_at = b.node("lookAt", None, DVec3::ZERO, DQuat::IDENTITY);

    const INTERVALS: usize = 24;
    let times = timeline(1.0, INTERVALS);
    let mut tracks = walk();
    // Weights rise and fall over the second (0..1), the custom one crossing 0.5 for a binary test.
    tracks.push(Track::translations(
        happy,
        &times,
        &looping(INTERVALS, |p| DVec3::new(0.5 - 0.5 * sin(p + 1.2), 0.0, 0.0)),
    ));
    tracks.push(Track::translations(
        nod,
        &times,
        &looping(INTERVALS, |p| DVec3::new(0.5 + 0.45 * sin(p), 0.0, 0.0)),
    ));
    tracks.push(Track::rotations(
        look_at,
        Interpolation::Linear,
        &times,
        // Up to 40 degrees of yaw and 20 of pitch: past every range map of the avatars.
        &looping(INTERVALS, |p| rot_y(0.7 * sin(p)) * rot_x(0.35 * sin(2.0 * p))),
    ));
    b.animation("walk", &tracks);

    let bones: serde_json::Map<String, Value> =
        BONES.iter().enumerate().map(|(node, &name)| (name.to_string(), json!({ "node": node }))).collect();
    b.extension(
        "VRMC_vrm_animation",
        json!({
            "specVersion": "1.0",
            "humanoid": { "humanBones": bones },
            "expressions": { "preset": { "happy": { "node": happy } }, "custom": { "nod": { "node": nod } } },
            "lookAt": { "node": look_at }
        }),
    );
    b.to_glb()
}
