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
//! (slerp commutes with such products) and STEP / CUBICSPLINE stay as the file says. Expression
//! tracks (translation x = weight) drive the morph targets their avatar expressions bind,
//! summed per target as `VRMExpressionManager.update` does; they are sampled at the union of
//! their key times, which is exact for LINEAR tracks of non-binary expressions.
//!
//! Not played: lookAt (the gaze) and spring bones; each is named in `VrmaClip::notes`, as are
//! humanoid bones the avatar lacks and STEP / CUBICSPLINE humanoid tracks (three-vrm plays
//! those as LINEAR: a STEP track gets interpolated, a CUBICSPLINE one misread).

use crate::diagnose::rest_globals;
use crate::rig::{Channel, Clip, Interpolation, Property, Rig, VrmVersion, bone_spec, canonical};
use glam::{Mat4, Quat, Vec3};
use std::sync::Arc;

/// The bound clip and what of the animation it does not play.
#[derive(Debug, Clone)]
pub struct VrmaClip {
    pub clip: Clip,
    pub notes: Vec<String>,
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
    let anim_rest = rest_globals(anim);
    let avatar_rest = rest_globals(avatar);
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

    for ch in &source.channels {
        let Some((bone, _)) = map.bones.iter().find(|(_, n)| *n == ch.node) else {
            continue;
        };
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
            }
            _ => notes.push(format!(
                "{bone}: only rotations (and the hips translation) are played, as three-vrm does"
            )),
        }
    }
    channels.extend(expression_channels(avatar, anim, source, &mut notes));
    if map.look_at.is_some() {
        notes.push("lookAt (the gaze) is not played".to_string());
    }
    notes.push("spring bones are not simulated".to_string());
    let clip = Clip { name: source.name.clone(), channels, duration: source.duration };
    Ok(VrmaClip { clip, notes })
}

/// One weights channel per avatar node whose morph targets the animated expressions bind.
fn expression_channels(avatar: &Rig, anim: &Rig, source: &Clip, notes: &mut Vec<String>) -> Vec<Channel> {
    let (Some(vrm), Some(map)) = (&avatar.vrm, &anim.vrma) else {
        return Vec::new();
    };
    // (avatar expression, animation track) for every expression both sides know.
    let mut driven = Vec::new();
    for (name, _, node) in &map.expressions {
        let Some(track) =
            source.channels.iter().find(|c| c.node == *node && c.property == Property::Translation)
        else {
            continue;
        };
        let found = vrm.expressions.iter().find(|e| {
            let own = match (vrm.version, &e.preset) {
                (VrmVersion::V0, Some(p)) => v1_preset(p).unwrap_or(e.name.as_str()),
                _ => e.name.as_str(),
            };
            own == name
        });
        match found {
            Some(e) => {
                if e.is_binary || track.interpolation != Interpolation::Linear {
                    notes.push(format!("expression {name}: resampled at its keys (binary or not LINEAR)"));
                }
                driven.push((e, track));
            }
            None => notes.push(format!("the avatar has no expression {name}; its track is not played")),
        }
    }
    let mut out = Vec::new();
    for (node_index, node) in avatar.nodes.iter().enumerate() {
        let Some(mesh) = node.mesh.and_then(|m| avatar.meshes.get(m)) else { continue };
        let binds_here = |b: &crate::rig::MorphBind| b.node == Some(node_index) || b.mesh == node.mesh;
        let here: Vec<_> = driven.iter().filter(|(e, _)| e.binds.iter().any(binds_here)).collect();
        if here.is_empty() {
            continue;
        }
        let mut times: Vec<f32> = here.iter().flat_map(|(_, t)| t.times.iter().copied()).collect();
        times.sort_by(f32::total_cmp);
        times.dedup();
        let base = node.weights.clone().unwrap_or_else(|| mesh.default_weights.clone());
        let mut bound = vec![false; base.len()];
        // three-vrm clears every target any expression binds, animated or not.
        for e in &vrm.expressions {
            for b in e.binds.iter().filter(|b| binds_here(b)) {
                if let Some(x) = bound.get_mut(b.index) {
                    *x = true;
                }
            }
        }
        let mut values = Vec::with_capacity(times.len() * base.len());
        for &t in &times {
            let mut w: Vec<f32> = base.iter().zip(&bound).map(|(&v, &b)| if b { 0.0 } else { v }).collect();
            for (e, track) in &here {
                let weight = scalar_at(track, t);
                let output = if e.is_binary { if weight > 0.5 { 1.0 } else { 0.0 } } else { weight };
                for b in e.binds.iter().filter(|b| binds_here(b)) {
                    if let Some(x) = w.get_mut(b.index) {
                        *x += output * b.weight;
                    }
                }
            }
            values.extend(w);
        }
        out.push(Channel {
            node: node_index,
            property: Property::Weights,
            interpolation: Interpolation::Linear,
            times: Arc::from(times),
            components: base.len(),
            values: values.into(),
        });
    }
    out
}

/// The x component of a translation track at `t` (LINEAR, STEP; a CUBICSPLINE key's value).
fn scalar_at(track: &Channel, t: f32) -> f32 {
    let stride = if track.interpolation == Interpolation::CubicSpline { 9 } else { 3 };
    let offset = if track.interpolation == Interpolation::CubicSpline { 3 } else { 0 };
    let x = |k: usize| track.values.get(k * stride + offset).copied().unwrap_or(0.0);
    let times = &track.times;
    let Some(last) = times.len().checked_sub(1) else { return 0.0 };
    if t <= times[0] {
        return x(0);
    }
    if t >= times[last] {
        return x(last);
    }
    let k = times.partition_point(|&k| k <= t).saturating_sub(1);
    let (t0, t1) = (times[k], times[k + 1]);
    match track.interpolation {
        Interpolation::Step => x(k),
        _ => {
            let u = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
            x(k) + (x(k + 1) - x(k)) * u
        }
    }
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
        assert!(has("lookAt") && has("spring bones"), "{:?}", bound.notes);
        // The STEP track stays STEP on the avatar's spine (node 1).
        let on_spine: Vec<_> = bound.clip.channels.iter().filter(|c| c.node == 1).collect();
        assert!(!on_spine.is_empty() && on_spine.iter().all(|c| c.interpolation == Interpolation::Step));
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
