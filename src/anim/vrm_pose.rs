//! The pose step of a `.vrma` bound to a VRM avatar (`Clip::vrm`): after the clip's channels
//! are sampled, the gaze and the expressions are applied as three-vrm 3.5's `VRMCore.update`
//! does (pixiv/three-vrm, `packages/three-vrm-core/src`): `lookAt/VRMLookAt.update` then
//! `expressions/VRMExpressionManager.update`.
//!
//! The gaze: the lookAt track is sampled as a rotation (three.js slerps it, as here), turned
//! into yaw and pitch in degrees (`three-vrm-animation/src/VRMLookAtQuaternionProxy`:
//! Euler order YXZ), mapped through the avatar's range maps (which clamp) and turned back into
//! eye rotations (`VRMLookAtBoneApplier.applyYawPitch`) or lookUp/Down/Left/Right weights
//! (`VRMLookAtExpressionApplier.applyYawPitch`). That is not a product of constants, so it is
//! applied per frame here rather than baked into keys.

use super::pose::Pose;
use super::sample::sample_channel;
use crate::rig::{Channel, Eye, LookAt, LookAtKind, PlayedExpression, VrmPlay};
use glam::DQuat;

/// Applies `play` at time `t` to `pose` (whose channels are already sampled).
pub fn apply(play: &VrmPlay, t: f32, pose: &mut Pose) {
    apply_set(play, t, None, pose);
}

/// `apply` with expression `set.0` (an index into `play.expressions`) held at weight `set.1`:
/// three-vrm's `expressionManager.setValue` between the mixer's update and `vrm.update`. It
/// replaces that expression's track; the gaze still sets the look expressions after it.
pub fn apply_set(play: &VrmPlay, t: f32, set: Option<(usize, f32)>, pose: &mut Pose) {
    let weights = expression_weights(play, t, set, pose);
    apply_expressions(&play.expressions, &weights, pose);
}

/// Each expression's weight at `t` (three-vrm's `VRMExpression.weight`), in `play.expressions`
/// order, with `set` in place of its expression's track (clamped to 0..1 as `setValue` does),
/// after the gaze has set the look expressions; the bone-type gaze turns the eyes of `pose`
/// on the way.
pub fn expression_weights(play: &VrmPlay, t: f32, set: Option<(usize, f32)>, pose: &mut Pose) -> Vec<f32> {
    let mut weights = track_weights(play, t, set);
    if let Some(gaze) = &play.gaze {
        let (yaw, pitch) = yaw_pitch(&gaze.track, t);
        match gaze.look_at.kind {
            LookAtKind::Bone => turn_eyes(&gaze.look_at, &gaze.eyes, yaw, pitch, pose),
            LookAtKind::Expression => {
                look_expressions(&play.expressions, &gaze.look_at, yaw, pitch, &mut weights)
            }
        }
    }
    weights
}

/// Each expression's weight at `t` from its track (0 without one), `set` in its place:
/// the weights before the gaze sets the look expressions.
pub(crate) fn track_weights(play: &VrmPlay, t: f32, set: Option<(usize, f32)>) -> Vec<f32> {
    let mut weights: Vec<f32> =
        play.expressions.iter().map(|e| e.track.as_ref().map_or(0.0, |c| x_at(c, t))).collect();
    if let Some((i, value)) = set
        && let Some(w) = weights.get_mut(i)
    {
        *w = value.clamp(0.0, 1.0);
    }
    weights
}

/// The weights of `play`'s expressions at `t`, for display (no pose needed).
pub fn weights_at(play: &VrmPlay, t: f32) -> Vec<f32> {
    weights_held(play, t, None)
}

/// `weights_at` with `set` held as `apply_set` holds it.
pub fn weights_held(play: &VrmPlay, t: f32, set: Option<(usize, f32)>) -> Vec<f32> {
    let mut scratch = Pose::default();
    expression_weights(play, t, set, &mut scratch)
}

fn x_at(channel: &Channel, t: f32) -> f32 {
    let mut out = [0.0f32; 4];
    sample_channel(channel, t, &mut out);
    out[0]
}

/// The gaze at `t` as (yaw, pitch) in degrees: three.js `Euler.setFromQuaternion(q, 'YXZ')`
/// (through its rotation matrix), y is the yaw and x the pitch.
fn yaw_pitch(track: &Channel, t: f32) -> (f32, f32) {
    let mut out = [0.0, 0.0, 0.0, 1.0];
    sample_channel(track, t, &mut out);
    let [x, y, z, w] = out.map(f64::from);
    let m23 = 2.0 * (y * z - w * x);
    let m13 = 2.0 * (x * z + w * y);
    let m33 = 1.0 - 2.0 * (x * x + y * y);
    let m31 = 2.0 * (x * z - w * y);
    let m11 = 1.0 - 2.0 * (y * y + z * z);
    let pitch = (-m23.clamp(-1.0, 1.0)).asin();
    let yaw = if m23.abs() < 0.9999999 { m13.atan2(m33) } else { (-m31).atan2(m11) };
    (yaw.to_degrees() as f32, pitch.to_degrees() as f32)
}

/// `VRMLookAtBoneApplier.applyYawPitch`: per eye, Euler YXZ (pitch, yaw) from the range maps
/// (inner and outer swap between the eyes), conjugated by the face-front turn, then
/// `Pr⁻¹ n Pr R` as for any humanoid bone.
pub(crate) fn turn_eyes(maps: &LookAt, eyes: &[Eye], yaw: f32, pitch: f32, pose: &mut Pose) {
    for eye in eyes {
        let x = if pitch < 0.0 { -maps.vertical_down.map(-pitch) } else { maps.vertical_up.map(pitch) };
        let (negative, positive) = if eye.left {
            (maps.horizontal_inner, maps.horizontal_outer)
        } else {
            (maps.horizontal_outer, maps.horizontal_inner)
        };
        let y = if yaw < 0.0 { -negative.map(-yaw) } else { positive.map(yaw) };
        let (x, y) = (f64::from(x).to_radians(), f64::from(y).to_radians());
        // three.js Quaternion.setFromEuler, order YXZ, z = 0: Ry(y) Rx(x).
        let mut n = DQuat::from_rotation_y(y) * DQuat::from_rotation_x(x);
        if maps.face_back {
            // faceFront (0, 0, -1): a half turn about y.
            let half = DQuat::from_xyzw(0.0, 1.0, 0.0, 0.0);
            n = half * n * half.inverse();
        }
        let pr = eye.parent_rest.as_dquat();
        let local = pr.inverse() * n * pr * eye.rest.as_dquat();
        if let Some(l) = pose.locals.get_mut(eye.node) {
            l.rotation = local.as_quat().normalize();
        }
        if let Some(flag) = pose.use_matrix.get_mut(eye.node) {
            *flag = false;
        }
    }
}

/// `VRMLookAtExpressionApplier.applyYawPitch`, including its choices: a negative pitch raises
/// lookUp (through the vertical-up map), and both sides use the horizontal-outer map. The
/// manager's `setValue` clamps to 0..1.
pub(crate) fn look_expressions(
    expressions: &[PlayedExpression],
    maps: &LookAt,
    yaw: f32,
    pitch: f32,
    weights: &mut [f32],
) {
    let mut set = |name: &str, value: f32| {
        if let Some(i) = expressions.iter().rposition(|e| e.name == name) {
            weights[i] = value.clamp(0.0, 1.0);
        }
    };
    if pitch < 0.0 {
        set("lookDown", 0.0);
        set("lookUp", maps.vertical_up.map(-pitch));
    } else {
        set("lookUp", 0.0);
        set("lookDown", maps.vertical_down.map(pitch));
    }
    if yaw < 0.0 {
        set("lookLeft", 0.0);
        set("lookRight", maps.horizontal_outer.map(-yaw));
    } else {
        set("lookRight", 0.0);
        set("lookLeft", maps.horizontal_outer.map(yaw));
    }
}

const BLINK: [&str; 3] = ["blink", "blinkLeft", "blinkRight"];
const LOOK: [&str; 4] = ["lookLeft", "lookRight", "lookUp", "lookDown"];
const MOUTH: [&str; 5] = ["aa", "ee", "ih", "oh", "ou"];

/// `VRMExpressionManager.update`: every bound morph target is cleared, then each expression
/// adds `output x multiplier x bind weight` (output: 0 or 1 for a binary expression, split at
/// 0.5; multiplier: what the other expressions' overrides leave of blink, lookAt and mouth).
pub(crate) fn apply_expressions(expressions: &[PlayedExpression], weights: &[f32], pose: &mut Pose) {
    let output: Vec<f32> = expressions
        .iter()
        .zip(weights)
        .map(|(e, &w)| if e.is_binary { if w > 0.5 { 1.0 } else { 0.0 } } else { w })
        .collect();
    let (mut blink, mut look, mut mouth) = (1.0f32, 1.0f32, 1.0f32);
    for (e, &w) in expressions.iter().zip(&output) {
        blink -= e.overrides.blink.amount(w);
        look -= e.overrides.look_at.amount(w);
        mouth -= e.overrides.mouth.amount(w);
    }
    let (blink, look, mouth) = (blink.max(0.0), look.max(0.0), mouth.max(0.0));
    for e in expressions {
        for &(node, target, _) in &e.binds {
            if let Some(x) = pose.morph_weights.get_mut(node).and_then(|w| w.get_mut(target)) {
                *x = 0.0;
            }
        }
    }
    for (e, &w) in expressions.iter().zip(&output) {
        let name = e.name.as_str();
        let mut multiplier = 1.0;
        if BLINK.contains(&name) {
            multiplier *= blink;
        }
        if LOOK.contains(&name) {
            multiplier *= look;
        }
        if MOUTH.contains(&name) {
            multiplier *= mouth;
        }
        for &(node, target, bind) in &e.binds {
            if let Some(x) = pose.morph_weights.get_mut(node).and_then(|w| w.get_mut(target)) {
                *x += w * multiplier * bind;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{Interpolation, Property};
    use glam::Quat;
    use std::sync::Arc;

    fn still(q: Quat) -> Channel {
        Channel {
            node: 0,
            property: Property::Rotation,
            interpolation: Interpolation::Linear,
            times: Arc::from(vec![0.0f32]),
            values: Arc::from(q.to_array().to_vec()),
            components: 4,
        }
    }

    /// Yaw about y applied after pitch about x (Euler YXZ) comes back as (yaw, pitch), as
    /// three.js reads it; a pitch past 90 degrees folds back (asin), as it does there.
    #[test]
    fn the_gaze_reads_as_yaw_then_pitch_in_degrees() {
        let q = Quat::from_rotation_y(30f32.to_radians()) * Quat::from_rotation_x((-10f32).to_radians());
        let (yaw, pitch) = yaw_pitch(&still(q), 0.0);
        assert!((yaw - 30.0).abs() < 1e-4 && (pitch + 10.0).abs() < 1e-4, "{yaw} {pitch}");
        let (_, pitch) = yaw_pitch(&still(Quat::from_rotation_x(120f32.to_radians())), 0.0);
        assert!((pitch - 60.0).abs() < 1e-3, "{pitch}");
    }

    /// `RangeMap` clamps; `Override` amounts follow three-vrm's getters.
    #[test]
    fn range_maps_clamp_and_overrides_block_or_blend() {
        use crate::rig::{Override, RangeMap};
        let map = RangeMap { input_max: 20.0, output_scale: 8.0 };
        assert_eq!((map.map(10.0), map.map(40.0), map.map(-5.0)), (4.0, 8.0, 0.0));
        assert_eq!((Override::Block.amount(0.2), Override::Block.amount(0.0)), (1.0, 0.0));
        assert_eq!((Override::Blend.amount(0.25), Override::None.amount(1.0)), (0.25, 0.0));
    }
}
