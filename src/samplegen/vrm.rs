//! VRM avatars dressed on the walker: `walker-vrm1.vrm` (`VRMC_vrm` 1.0) and `walker-vrm0.vrm`
//! (the VRM 0.x `VRM` extension). Same skeleton, skin and body as `walker.glb` (nodes 0..=16
//! are the joints, node 17 the body), without the walker's clips, plus two morph targets on
//! the body (0: the head pushed forward, 1: the head raised) that the expressions bind.
//!
//! Humanoid mapping (both files): hips 0, spine 1, chest 2, neck 3, head 4, left arm 5-7,
//! right arm 8-10, left leg 11-13, right leg 14-16 (the walker's left is +X, facing +Z as
//! VRM 1.0 wants; the 0.x file keeps that facing, which VRM 0.x would have at -Z).

use glam::DVec3;
use serde_json::{Value, json};

use super::builder::GltfBuilder;
use super::walker::figure;

/// (VRM 1.0 bone name, node).
const MAPPING: [(&str, usize); 17] = [
    ("hips", 0),
    ("spine", 1),
    ("chest", 2),
    ("neck", 3),
    ("head", 4),
    ("leftUpperArm", 5),
    ("leftLowerArm", 6),
    ("leftHand", 7),
    ("rightUpperArm", 8),
    ("rightLowerArm", 9),
    ("rightHand", 10),
    ("leftUpperLeg", 11),
    ("leftLowerLeg", 12),
    ("leftFoot", 13),
    ("rightUpperLeg", 14),
    ("rightLowerLeg", 15),
    ("rightFoot", 16),
];

/// The body node, which carries the mesh and its morph targets.
const BODY: usize = 17;

/// Vertices above this height belong to the head and neck, which the morph targets move.
const HEAD_FROM: f64 = 1.55;

/// The walker with the morph targets; returns the builder ready for a VRM extension.
fn avatar() -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let mut figure = figure(&mut b);
    let offsets = |delta: DVec3| -> Vec<DVec3> {
        figure.positions.iter().map(|p| if p.y > HEAD_FROM { delta } else { DVec3::ZERO }).collect()
    };
    let forward = offsets(DVec3::new(0.0, 0.0, 0.04));
    let up = offsets(DVec3::new(0.0, 0.03, 0.0));
    let targets = [b.positions(&forward), b.positions(&up)];
    if let Some(primitive) = figure.primitive.as_object_mut() {
        primitive.insert("targets".into(), json!([{ "POSITION": targets[0] }, { "POSITION": targets[1] }]));
    }
    let mesh = b.mesh("walker", vec![figure.primitive]);
    let body = b.mesh_node("walker", mesh, Some(figure.skin));
    debug_assert_eq!(body, BODY);
    b
}

/// `walker-vrm1.vrm`: a VRM 1.0 avatar with three expressions (two presets, one custom).
pub fn walker_vrm1() -> Vec<u8> {
    let mut b = avatar();
    let bones: serde_json::Map<String, Value> =
        MAPPING.iter().map(|&(name, node)| (name.to_string(), json!({ "node": node }))).collect();
    let bind = |index: usize, weight: f64| json!({ "node": BODY, "index": index, "weight": weight });
    b.extension(
        "VRMC_vrm",
        json!({
            "specVersion": "1.0",
            "meta": {
                "name": "walker",
                "authors": ["rigscope samplegen"],
                "licenseUrl": "https://vrm.dev/licenses/1.0/",
                "avatarPermission": "everyone",
                "commercialUsage": "corporation",
                "creditNotation": "unnecessary",
                "allowRedistribution": true,
                "modification": "allowModificationRedistribution"
            },
            "humanoid": { "humanBones": bones },
            "expressions": {
                "preset": {
                    "happy": { "morphTargetBinds": [bind(0, 1.0)] },
                    "blink": { "morphTargetBinds": [bind(1, 1.0)] }
                },
                "custom": {
                    "nod": { "isBinary": true, "morphTargetBinds": [bind(0, 0.5), bind(1, 0.25)] }
                }
            }
        }),
    );
    b.to_glb()
}

/// `walker-vrm0.vrm`: the same avatar as a VRM 0.x file (bone array, blend shape groups with
/// 0..100 weights that bind a mesh).
pub fn walker_vrm0() -> Vec<u8> {
    let mut b = avatar();
    let bones: Vec<Value> =
        MAPPING.iter().map(|&(name, node)| json!({ "bone": name, "node": node })).collect();
    let bind = |index: usize, weight: f64| json!({ "mesh": 0, "index": index, "weight": weight });
    let group = |name: &str, preset: &str, binary: bool, binds: Vec<Value>| json!({ "name": name, "presetName": preset, "isBinary": binary, "binds": binds, "materialValues": [] });
    b.extension(
        "VRM",
        json!({
            "specVersion": "0.0",
            "exporterVersion": "rigscope samplegen",
            "meta": {
                "title": "walker",
                "version": "1",
                "author": "rigscope samplegen",
                "allowedUserName": "Everyone",
                "licenseName": "CC0"
            },
            "humanoid": { "humanBones": bones },
            "blendShapeMaster": {
                "blendShapeGroups": [
                    group("Joy", "joy", false, vec![bind(0, 100.0)]),
                    group("Blink", "blink", false, vec![bind(1, 100.0)]),
                    group("Nod", "unknown", true, vec![bind(0, 50.0), bind(1, 25.0)])
                ]
            }
        }),
    );
    b.to_glb()
}
