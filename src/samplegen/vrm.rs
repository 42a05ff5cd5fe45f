//! VRM avatars dressed on the walker: `walker-vrm1.vrm` (`VRMC_vrm` 1.0) and `walker-vrm0.vrm`
//! (the VRM 0.x `VRM` extension). Same skeleton, skin and body as `walker.glb` (nodes 0..=16
//! are the joints, node 17 the body), without the walker's clips, plus two morph targets on
//! the body (0: the head pushed forward, 1: the head raised) that the expressions bind.
//!
//! Humanoid mapping (both files): hips 0, spine 1, chest 2, neck 3, head 4, left arm 5-7,
//! right arm 8-10, left leg 11-13, right leg 14-16 (the walker's left is +X, facing +Z as
//! VRM 1.0 wants; the 0.x file keeps that facing, which VRM 0.x would have at -Z).

use glam::{DMat4, DQuat, DVec3};
use serde_json::{Value, json};

use super::builder::GltfBuilder;
use super::shapes::{SkinnedMesh, ellipsoid, lathe};
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

/// `MAPPING` and the eyes.
fn mapping() -> impl Iterator<Item = (&'static str, usize)> {
    MAPPING.iter().copied().chain([("leftEye", LEFT_EYE), ("rightEye", RIGHT_EYE)])
}

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
    eyes(&mut b);
    b
}

/// The eye bones under the head (nodes 18 left, 19 right, the left at +X) and a small
/// eyeball on each, skinned to its eye alone (node 20, skin 1), set forward of the bone so
/// that turning the eye moves its vertices.
fn eyes(b: &mut GltfBuilder) {
    let left = b.node("eye.L", Some(HEAD), DVec3::new(0.035, 0.06, 0.07), DQuat::IDENTITY);
    let right = b.node("eye.R", Some(HEAD), DVec3::new(-0.035, 0.06, 0.07), DQuat::IDENTITY);
    debug_assert_eq!((left, right), (LEFT_EYE, RIGHT_EYE));
    let skin = b.skin("eyes", &[left, right], HEAD);
    let ball = lathe(&ellipsoid(0.0, 0.012, 7), 8, 0.012, 0.012);
    let mut mesh = SkinnedMesh::default();
    for (slot, eye) in [(0u8, left), (1u8, right)] {
        let placement = b.bind_global(eye) * DMat4::from_translation(DVec3::new(0.0, 0.0, 0.012));
        mesh.add(&ball, placement, |_| vec![(slot, 1.0)]);
    }
    let primitive = mesh.write(b);
    let mesh = b.mesh("eyes", vec![primitive]);
    b.mesh_node("eyes", mesh, Some(skin));
}

/// The head joint, and the eye bones `eyes` adds under it.
const HEAD: usize = 4;
const LEFT_EYE: usize = 18;
const RIGHT_EYE: usize = 19;

/// `walker-vrm1.vrm`: a VRM 1.0 avatar with three expressions (two presets, one custom) and a
/// bone lookAt.
pub fn walker_vrm1() -> Vec<u8> {
    walker_vrm1_builder().to_glb()
}

/// Range maps the test's gaze sweeps past (clamping), inner and outer different.
fn walker_look_at() -> Value {
    json!({
        "type": "bone",
        "offsetFromHeadBone": [0.0, 0.06, 0.0],
        "rangeMapHorizontalInner": { "inputMaxValue": 30.0, "outputScale": 12.0 },
        "rangeMapHorizontalOuter": { "inputMaxValue": 25.0, "outputScale": 18.0 },
        "rangeMapVerticalDown": { "inputMaxValue": 10.0, "outputScale": 8.0 },
        "rangeMapVerticalUp": { "inputMaxValue": 15.0, "outputScale": 11.0 }
    })
}

fn walker_expressions() -> Value {
    let bind = |index: usize, weight: f64| json!({ "node": BODY, "index": index, "weight": weight });
    json!({
        "preset": {
            "happy": { "morphTargetBinds": [bind(0, 1.0)] },
            "blink": { "morphTargetBinds": [bind(1, 1.0)] }
        },
        "custom": {
            "nod": { "isBinary": true, "morphTargetBinds": [bind(0, 0.5), bind(1, 0.25)] }
        }
    })
}

/// `walker-vrm1-gaze-expressions.vrm`: the same avatar whose lookAt drives the
/// lookLeft/Right/Up/Down expressions (range maps out to weights below 1), and whose `happy`
/// blends the lookAt expressions out (`overrideLookAt`), so the override is exercised too.
pub fn walker_vrm1_gaze_expressions() -> Vec<u8> {
    let bind = |index: usize, weight: f64| json!({ "node": BODY, "index": index, "weight": weight });
    vrm1(
        json!({
            "type": "expression",
            "offsetFromHeadBone": [0.0, 0.06, 0.0],
            "rangeMapHorizontalInner": { "inputMaxValue": 30.0, "outputScale": 0.6 },
            "rangeMapHorizontalOuter": { "inputMaxValue": 25.0, "outputScale": 0.9 },
            "rangeMapVerticalDown": { "inputMaxValue": 10.0, "outputScale": 0.8 },
            "rangeMapVerticalUp": { "inputMaxValue": 15.0, "outputScale": 1.0 }
        }),
        json!({
            "preset": {
                "happy": { "morphTargetBinds": [bind(0, 1.0)], "overrideLookAt": "blend", "overrideBlink": "block" },
                "blink": { "morphTargetBinds": [bind(1, 1.0)] },
                "lookLeft": { "morphTargetBinds": [bind(0, 0.6)] },
                "lookRight": { "morphTargetBinds": [bind(1, 0.5)] },
                "lookUp": { "morphTargetBinds": [bind(1, 0.8)] },
                "lookDown": { "morphTargetBinds": [bind(0, 0.3)] }
            },
            "custom": {
                "nod": { "isBinary": true, "morphTargetBinds": [bind(0, 0.5), bind(1, 0.25)] }
            }
        }),
    )
}

/// The walker as a VRM 1.0 avatar with this `lookAt` and these `expressions`.
fn vrm1(look_at: Value, expressions: Value) -> Vec<u8> {
    vrm1_builder(look_at, expressions).to_glb()
}

/// `vrm1`'s avatar, ready for more nodes and extensions.
fn vrm1_builder(look_at: Value, expressions: Value) -> GltfBuilder {
    let mut b = avatar();
    let bones: serde_json::Map<String, Value> =
        mapping().map(|(name, node)| (name.to_string(), json!({ "node": node }))).collect();
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
            "lookAt": look_at,
            "expressions": expressions
        }),
    );
    b
}

/// `walker-vrm1.vrm`'s avatar, ready for more nodes and extensions.
pub(super) fn walker_vrm1_builder() -> GltfBuilder {
    vrm1_builder(walker_look_at(), walker_expressions())
}

/// A VRM 0.x degree map with the linear curve (the only one three-vrm plays).
fn degree_map(x_range: f64, y_range: f64) -> Value {
    json!({ "curve": [0, 0, 0, 1, 1, 1, 1, 0], "xRange": x_range, "yRange": y_range })
}

/// `walker-vrm0.vrm`: the same avatar as a VRM 0.x file (bone array, blend shape groups with
/// 0..100 weights that bind a mesh).
pub fn walker_vrm0() -> Vec<u8> {
    let (b, _) = walker_vrm0_builder(|_| {});
    b.to_glb()
}

/// `walker-vrm0.vrm`'s avatar with the nodes `more` adds, and its `VRM` extension (for more
/// fields) left out of the builder until the caller sets it.
pub(super) fn walker_vrm0_builder(more: impl FnOnce(&mut GltfBuilder)) -> (GltfBuilder, Value) {
    let mut b = avatar();
    more(&mut b);
    let bones: Vec<Value> = mapping().map(|(name, node)| json!({ "bone": name, "node": node })).collect();
    let bind = |index: usize, weight: f64| json!({ "mesh": 0, "index": index, "weight": weight });
    let group = |name: &str, preset: &str, binary: bool, binds: Vec<Value>| json!({ "name": name, "presetName": preset, "isBinary": binary, "binds": binds, "materialValues": [] });
    let extension = json!({
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
            "firstPerson": {
                "firstPersonBone": HEAD,
                "firstPersonBoneOffset": { "x": 0.0, "y": 0.06, "z": 0.0 },
                "meshAnnotations": [],
                "lookAtTypeName": "Bone",
                "lookAtHorizontalInner": degree_map(30.0, 12.0),
                "lookAtHorizontalOuter": degree_map(25.0, 18.0),
                "lookAtVerticalDown": degree_map(10.0, 8.0),
                "lookAtVerticalUp": degree_map(15.0, 11.0)
            },
            "blendShapeMaster": {
                "blendShapeGroups": [
                    group("Joy", "joy", false, vec![bind(0, 100.0)]),
                    group("Blink", "blink", false, vec![bind(1, 100.0)]),
                    group("Nod", "unknown", true, vec![bind(0, 50.0), bind(1, 25.0)])
                ]
            }
    });
    b.extension("VRM", extension.clone());
    (b, extension)
}
