//! A VRM animation (`.vrma`, `VRMC_vrm_animation`) bound to a VRM avatar as three-vrm 3.5 plays
//! it, as one `rig::Clip` on the avatar's own nodes, so that playback needs no second path.
//!
//! three-vrm (pixiv/three-vrm, `packages/three-vrm-animation/src`): `VRMAnimationLoaderPlugin.
//! _parseAnimation` turns each humanoid rotation key `q` into a normalized one `P q W⁻¹` (`P`:
//! the .vrma's rest world rotation of the nearest mapped humanoid parent, else of hips' parent;
//! `W`: the bone's own) and the hips translation into world space; `createVRMAnimationClip`
//! negates x and z for a VRM 0.x avatar and scales the hips by the ratio of the rest hips
//! heights; `packages/three-vrm-core/src/humanoid/VRMHumanoidRig.update` sets each raw bone to
//! `Pr⁻¹ n Pr R` (`Pr`: the avatar's rest world rotation of the node's parent, `R`: its rest
//! rotation) and the hips position to the normalized world position in the parent's space.
//! Every step multiplies each key by constants on the left and right (the x/z negation is a
//! conjugation by a half turn about y), so it is applied here to the keys once: interpolation
//! (slerp commutes with such products) and STEP / CUBICSPLINE stay as the file says.
//!
//! Expressions and the gaze are not products of constants (binary expressions split at 0.5,
//! overrides, the gaze's yaw/pitch clamped by range maps), so the bound clip carries them as
//! `Clip::vrm` (`rig::VrmPlay`: the expression and lookAt tracks with the avatar's binds, eyes
//! and range maps resolved here once) and `anim::vrm_pose` applies them after each sampling.
//!
//! Named in `VrmaClip::notes`: humanoid bones or expressions the avatar lacks, a gaze track
//! on an avatar without lookAt, spring bones (simulated only with `--springs`), and non-LINEAR humanoid or
//! expression tracks (three-vrm plays those as LINEAR: a STEP track gets interpolated, a
//! CUBICSPLINE one misread).

use crate::rig::{
    Channel, Clip, Expression, Eye, Gaze, Interpolation, LookAtKind, PlayedExpression, Property, Rig, Vrm,
    VrmAnimationMap, VrmPlay, VrmVersion, bone_spec, canonical,
};
use glam::{Mat4, Quat, Vec3};
use std::sync::Arc;

/// The bound clip and what of the animation it does not play.
#[derive(Debug, Clone)]
pub struct VrmaClip {
    pub clip: Clip,
    pub notes: Vec<String>,
    pub counts: VrmaCounts,
}

/// How much of a .vrma clip binds to the avatar, in the animation's own terms (for `fit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct VrmaCounts {
    /// Tracks on humanoid bone nodes, and how many of them play (rotations and the hips
    /// translation of bones the avatar has).
    pub humanoid_tracks: usize,
    pub humanoid_bound: usize,
    /// Expression tracks, and how many drive an avatar expression that moves something (binds
    /// a morph target the avatar has, with a weight).
    pub expression_tracks: usize,
    pub expressions_bound: usize,
    /// Expression tracks bound to an avatar expression that drives nothing (no morph target
    /// bind that reaches one): they play, and nothing moves.
    pub expressions_inert: usize,
    /// Whether the clip has a gaze track, and whether it plays (the avatar has a lookAt).
    pub look_at_track: bool,
    pub look_at_played: bool,
}

impl VrmaCounts {
    /// "15 of 15 humanoid tracks bind, 2 of 2 expression tracks, lookAt played".
    pub fn describe(&self) -> String {
        let look_at = match (self.look_at_track, self.look_at_played) {
            (false, _) => "no lookAt track",
            (true, true) => "lookAt played",
            (true, false) => "lookAt not played (the avatar has none)",
        };
        let inert = match self.expressions_inert {
            0 => String::new(),
            n => format!(" ({n} more bound to an expression that drives nothing)"),
        };
        format!(
            "{} of {} humanoid tracks bind, {} of {} expression tracks{inert}, {look_at}",
            self.humanoid_bound, self.humanoid_tracks, self.expressions_bound, self.expression_tracks
        )
    }
}

/// Why a .vrma cannot be bound at all.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct VrmaError(pub String);

/// three-vrm's VRM 0.x preset names in VRM 1.0 terms (`VRMExpressionLoaderPlugin.v0v1PresetNameMap`).
fn v1_preset(v0: &str) -> Option<&'static str> {
    Some(match v0 {
        "a" => "aa",
        "e" => "ee",
        "i" => "ih",
        "o" => "oh",
        "u" => "ou",
        "blink" => "blink",
        "joy" => "happy",
        "angry" => "angry",
        "sorrow" => "sad",
        "fun" => "relaxed",
        "lookup" => "lookUp",
        "lookdown" => "lookDown",
        "lookleft" => "lookLeft",
        "lookright" => "lookRight",
        "blink_l" => "blinkLeft",
        "blink_r" => "blinkRight",
        "neutral" => "neutral",
        _ => return None,
    })
}

fn rotation_of(m: &Mat4) -> Quat {
    m.to_scale_rotation_translation().1
}

/// Binds clip `clip` of `anim` (a .vrma) to `avatar` (a VRM).
pub fn bind(avatar: &Rig, anim: &Rig, clip: usize) -> Result<VrmaClip, VrmaError> {
    let vrm = avatar.vrm.as_ref().ok_or_else(|| VrmaError(format!("{}: not a VRM avatar", avatar.source)))?;
    let map = anim.vrma.as_ref().ok_or_else(|| VrmaError(format!("{}: not a VRM animation", anim.source)))?;
    let source = anim.clips.get(clip).ok_or_else(|| VrmaError(format!("{}: no clip {clip}", anim.source)))?;
    let anim_rest = anim.rest_world();
    let avatar_rest = avatar.rest_world();
    let anim_node = |bone: &str| map.bones.iter().find(|(b, _)| b == bone).map(|&(_, n)| n);
    let parent_world = |rig: &Rig, rest: &[Mat4], node: usize| {
        rig.nodes
            .get(node)
            .and_then(|n| n.parent)
            .and_then(|p| rest.get(p))
            .copied()
            .unwrap_or(Mat4::IDENTITY)
    };
    let flip = vrm.version == VrmVersion::V0;
    let half_turn = Quat::from_xyzw(0.0, 1.0, 0.0, 0.0);
    let mut notes = Vec::new();
    let mut channels = Vec::new();

    let mut counts = VrmaCounts::default();
    for ch in &source.channels {
        let Some((bone, _)) = map.bones.iter().find(|(_, n)| *n == ch.node) else {
            continue;
        };
        counts.humanoid_tracks += 1;
        let Some(target) = vrm.node_of(canonical(bone, VrmVersion::V1)) else {
            notes.push(format!("the avatar has no {bone} bone; its track is not played"));
            continue;
        };
        if ch.interpolation != Interpolation::Linear && ch.property != Property::Weights {
            // three-vrm rebuilds humanoid tracks from their keys and plays them LINEAR.
            let how = if ch.interpolation == Interpolation::Step { "STEP" } else { "CUBICSPLINE" };
            notes.push(format!(
                "{bone}: a {how} track, played as the file says; three-vrm plays it differently"
            ));
        }
        match ch.property {
            Property::Rotation => {
                // Nearest humanoid parent the .vrma maps, else hips' parent (three-vrm "hipsParent").
                let mut parent = bone_spec(bone).and_then(|s| s.parent);
                while let Some(p) = parent {
                    if anim_node(p).is_some() {
                        break;
                    }
                    parent = bone_spec(p).and_then(|s| s.parent);
                }
                let p_world = match parent.and_then(anim_node) {
                    Some(n) => anim_rest[n],
                    None => anim_node("hips").map_or(Mat4::IDENTITY, |h| parent_world(anim, &anim_rest, h)),
                };
                let p = rotation_of(&p_world);
                let w_inv = rotation_of(&anim_rest[ch.node]).inverse();
                let pr = rotation_of(&parent_world(avatar, &avatar_rest, target));
                let r = avatar.nodes[target].rest.rotation;
                let (mut left, mut right) = (p, w_inv);
                if flip {
                    left = half_turn * left;
                    right *= half_turn.inverse();
                }
                left = pr.inverse() * left;
                right *= pr * r;
                let values: Vec<f32> = ch
                    .values
                    .chunks_exact(4)
                    .flat_map(|q| (left * Quat::from_xyzw(q[0], q[1], q[2], q[3]) * right).to_array())
                    .collect();
                channels.push(Channel { node: target, values: values.into(), ..ch.clone() });
                counts.humanoid_bound += 1;
            }
            Property::Translation if canonical(bone, VrmVersion::V1) == "hips" => {
                let hips_parent = parent_world(anim, &anim_rest, ch.node);
                let anim_y = anim_rest[ch.node].w_axis.y;
                let avatar_y = avatar_rest[target].w_axis.y;
                let scale = if anim_y.abs() > f32::EPSILON { avatar_y / anim_y } else { 1.0 };
                let to_local = parent_world(avatar, &avatar_rest, target).inverse();
                let per_key = if ch.interpolation == Interpolation::CubicSpline { 3 } else { 1 };
                let values: Vec<f32> = ch
                    .values
                    .chunks_exact(3)
                    .enumerate()
                    .flat_map(|(i, v)| {
                        // CUBICSPLINE tangents (elements 0 and 2 of each key) move without the offset.
                        let point = per_key == 1 || i % 3 == 1;
                        let v = Vec3::from_slice(v);
                        let mut w = if point {
                            hips_parent.transform_point3(v)
                        } else {
                            hips_parent.transform_vector3(v)
                        };
                        if flip {
                            w.x = -w.x;
                            w.z = -w.z;
                        }
                        w *= scale;
                        let raw =
                            if point { to_local.transform_point3(w) } else { to_local.transform_vector3(w) };
                        raw.to_array()
                    })
                    .collect();
                channels.push(Channel { node: target, values: values.into(), ..ch.clone() });
                counts.humanoid_bound += 1;
            }
            _ => notes.push(format!(
                "{bone}: only rotations (and the hips translation) are played, as three-vrm does"
            )),
        }
    }
    let play = VrmPlay {
        expressions: played_expressions(avatar, vrm, map, source, &mut notes),
        gaze: gaze(avatar, vrm, map, source, &avatar_rest, &mut notes),
    };
    let track_on = |node: usize, property: Property| {
        source.channels.iter().any(|c| c.node == node && c.property == property)
    };
    counts.expression_tracks =
        map.expressions.iter().filter(|(_, _, n)| track_on(*n, Property::Translation)).count();
    let bound = play.expressions.iter().filter(|e| e.track.is_some());
    counts.expressions_inert = bound.clone().filter(|e| !drives_something(avatar, e)).count();
    counts.expressions_bound = bound.count() - counts.expressions_inert;
    counts.look_at_track = map.look_at.is_some_and(|n| track_on(n, Property::Rotation));
    counts.look_at_played = play.gaze.is_some();
    if !vrm.springs.is_empty() {
        notes.push("the avatar's spring bones are simulated only with --springs".to_string());
    }
    let clip =
        Clip { name: source.name.clone(), channels, duration: source.duration, vrm: Some(Arc::new(play)) };
    Ok(VrmaClip { clip, notes, counts })
}

/// The name three-vrm gives an avatar expression: VRM 0.x presets under their VRM 1.0 names.
pub fn expression_name(vrm: &Vrm, e: &Expression) -> String {
    match (vrm.version, &e.preset) {
        (VrmVersion::V0, Some(p)) => v1_preset(p).unwrap_or(e.name.as_str()).to_string(),
        _ => e.name.clone(),
    }
}

/// Every avatar expression, untracked, with its binds resolved to avatar nodes (a VRM 0.x
/// bind names a mesh: every node drawing it).
pub fn avatar_expressions(avatar: &Rig, vrm: &Vrm) -> Vec<PlayedExpression> {
    vrm.expressions
        .iter()
        .map(|e| PlayedExpression {
            name: expression_name(vrm, e),
            track: None,
            is_binary: e.is_binary,
            overrides: e.overrides,
            binds: e
                .binds
                .iter()
                .flat_map(|b| {
                    let nodes: Vec<usize> = match (b.node, b.mesh) {
                        (Some(n), _) => vec![n],
                        (None, Some(m)) => {
                            (0..avatar.nodes.len()).filter(|&n| avatar.nodes[n].mesh == Some(m)).collect()
                        }
                        _ => Vec::new(),
                    };
                    nodes.into_iter().map(move |n| (n, b.index, b.weight))
                })
                .collect(),
        })
        .collect()
}

/// Every avatar expression with the track that drives it (three-vrm's `getExpressionTrackName`:
/// the last expression of that name).
fn played_expressions(
    avatar: &Rig,
    vrm: &Vrm,
    map: &VrmAnimationMap,
    source: &Clip,
    notes: &mut Vec<String>,
) -> Vec<PlayedExpression> {
    let mut out = avatar_expressions(avatar, vrm);
    for (name, _, node) in &map.expressions {
        let Some(track) =
            source.channels.iter().find(|c| c.node == *node && c.property == Property::Translation)
        else {
            continue;
        };
        match out.iter_mut().rev().find(|e| e.name == *name) {
            Some(e) => {
                if !drives_something(avatar, e) {
                    notes.push(format!(
                        "expression {name}: its track binds, but the avatar's {name} drives nothing (it binds no morph target the avatar has), so nothing moves"
                    ));
                }
                if track.interpolation != Interpolation::Linear {
                    notes.push(format!(
                        "expression {name}: a {} track, played as the file says; three-vrm plays it LINEAR",
                        if track.interpolation == Interpolation::Step { "STEP" } else { "CUBICSPLINE" }
                    ));
                }
                e.track = Some(track.clone());
            }
            None => notes.push(format!("the avatar has no expression {name}; its track is not played")),
        }
    }
    out
}

/// Whether expression `e` moves anything: one of its binds reaches a morph target of the
/// mesh its node draws, with a weight other than 0.
pub fn drives_something(avatar: &Rig, e: &PlayedExpression) -> bool {
    e.binds.iter().any(|&(node, target, weight)| {
        let mesh = avatar.nodes.get(node).and_then(|n| n.mesh).and_then(|m| avatar.meshes.get(m));
        weight != 0.0 && mesh.is_some_and(|m| target < m.default_weights.len())
    })
}

/// The gaze track and the avatar's lookAt (three-vrm adds the track only when the avatar has
/// a lookAt), with the eye bones' rest rotations for the bone type.
fn gaze(
    avatar: &Rig,
    vrm: &Vrm,
    map: &VrmAnimationMap,
    source: &Clip,
    avatar_rest: &[Mat4],
    notes: &mut Vec<String>,
) -> Option<Gaze> {
    let node = map.look_at?;
    let track = source.channels.iter().find(|c| c.node == node && c.property == Property::Rotation)?;
    let Some(look_at) = vrm.look_at.clone() else {
        notes.push("lookAt: the avatar defines none, so the gaze track is not played".to_string());
        return None;
    };
    let mut eyes = Vec::new();
    if look_at.kind == LookAtKind::Bone {
        for (bone, left) in [("leftEye", true), ("rightEye", false)] {
            let Some(n) = vrm.node_of(bone) else { continue };
            let parent =
                avatar.nodes[n].parent.and_then(|p| avatar_rest.get(p)).copied().unwrap_or(Mat4::IDENTITY);
            eyes.push(Eye {
                node: n,
                left,
                parent_rest: rotation_of(&parent),
                rest: avatar.nodes[n].rest.rotation,
            });
        }
        if eyes.is_empty() {
            notes.push(
                "the avatar's lookAt turns eye bones, but it maps none; the gaze moves nothing".to_string(),
            );
        }
    }
    Some(Gaze { track: track.clone(), look_at, eyes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn fixture(name: &str) -> Rig {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vrm").join(name);
        crate::import::load(&path).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn notes_name_missing_bones_and_tracks_three_vrm_plays_differently() {
        let mut avatar = fixture("walker-vrm1.vrm");
        let mut anim = fixture("walker-walk.vrma");
        if let Some(vrm) = avatar.vrm.as_mut() {
            vrm.bones.retain(|b| b.name != "leftFoot");
        }
        let spine =
            anim.vrma.as_ref().and_then(|m| m.bones.iter().find(|(b, _)| b == "spine")).map(|&(_, n)| n);
        for ch in &mut anim.clips[0].channels {
            if Some(ch.node) == spine {
                ch.interpolation = Interpolation::Step;
            }
        }
        let bound = bind(&avatar, &anim, 0).expect("bind");
        let has = |s: &str| bound.notes.iter().any(|n| n.contains(s));
        assert!(has("the avatar has no leftFoot bone"), "{:?}", bound.notes);
        assert!(has("spine: a STEP track"), "{:?}", bound.notes);
        // The walker avatar has a lookAt and no spring bones.
        assert!(!has("lookAt") && !has("spring bones"), "{:?}", bound.notes);
        // The STEP track stays STEP on the avatar's spine (node 1).
        let on_spine: Vec<_> = bound.clip.channels.iter().filter(|c| c.node == 1).collect();
        assert!(!on_spine.is_empty() && on_spine.iter().all(|c| c.interpolation == Interpolation::Step));
        // Without a lookAt the gaze is not played; spring bones need --springs.
        if let Some(vrm) = avatar.vrm.as_mut() {
            vrm.look_at = None;
            vrm.springs.joints.push(crate::vrm::SpringJoint {
                node: 1,
                tail: None,
                settings: crate::vrm::JointSettings::default(),
                groups: Vec::new(),
                center: None,
                chain: 0,
            });
        }
        let bound = bind(&avatar, &anim, 0).expect("bind");
        let has = |s: &str| bound.notes.iter().any(|n| n.contains(s));
        assert!(
            has("lookAt: the avatar defines none") && has("spring bones are simulated only with --springs")
        );
        assert!(bound.clip.vrm.as_ref().is_some_and(|p| p.gaze.is_none()));
    }

    #[test]
    fn files_that_are_not_vrm_are_refused_with_a_message() {
        let walker =
            crate::import::load_bytes(&crate::samplegen::walker(), "walker.glb", None).expect("walker");
        let anim = fixture("walker-walk.vrma");
        assert_eq!(
            bind(&walker, &anim, 0).map(|_| ()),
            Err(VrmaError("walker.glb: not a VRM avatar".into()))
        );
        let avatar = fixture("walker-vrm0.vrm");
        let err = bind(&avatar, &walker, 0).map(|_| ()).expect_err("not a vrma");
        assert_eq!(err, VrmaError("walker.glb: not a VRM animation".into()));
        assert!(bind(&avatar, &anim, 3).is_err());
    }
}
