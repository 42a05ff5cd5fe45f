//! What a user sees of a clip played on another rig, measured rather than predicted: each
//! limb's direction in its own body frame against the source's at 11 times per clip, and the
//! hips' travel per hips height; plus the contract's identity for a retargeted clip at every
//! key (`../shared/docs/skinning.md`, "Checks"). `fit` measures raw binding and retargeting
//! alike, so its advice is what puts the limbs where the source has them.

use glam::{Mat4, Quat, Vec3};
use serde::Serialize;

use super::body::{Body, angle};
use super::landmarks::Landmark;
use super::retarget::Retarget;
use crate::anim::{Pose, compute_globals, sample};
use crate::rig::{Channel, Clip, Property, Rig};

/// Times per clip the limbs are compared at: its start, its end and 9 between.
pub const SAMPLES: usize = 11;

/// The limbs compared, from joint to joint (the spine ends at the head, else the neck, else
/// the topmost spine joint).
const LIMBS: [(&str, Landmark, Landmark); 9] = [
    ("spine", Landmark::Hips, Landmark::Head),
    ("left upper arm", Landmark::LeftUpperArm, Landmark::LeftLowerArm),
    ("left forearm", Landmark::LeftLowerArm, Landmark::LeftHand),
    ("right upper arm", Landmark::RightUpperArm, Landmark::RightLowerArm),
    ("right forearm", Landmark::RightLowerArm, Landmark::RightHand),
    ("left thigh", Landmark::LeftUpperLeg, Landmark::LeftLowerLeg),
    ("left shin", Landmark::LeftLowerLeg, Landmark::LeftFoot),
    ("right thigh", Landmark::RightUpperLeg, Landmark::RightLowerLeg),
    ("right shin", Landmark::RightLowerLeg, Landmark::RightFoot),
];

fn joint(body: &Body, landmark: Landmark) -> Option<usize> {
    if landmark == Landmark::Head { body.landmarks.top() } else { body.landmarks.get(landmark) }
}

/// The worst a limb misses its source's direction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LimbMiss {
    pub limb: String,
    /// The angle between its direction and the source's, each in its own body frame.
    pub degrees: f32,
    /// The same angle in the two reference poses: what an A-pose character retargeted from a
    /// T-pose source keeps by design.
    pub reference_degrees: f32,
    pub clip: String,
    /// Seconds into the clip.
    pub time: f32,
}

/// One way of playing a library's clips on the character, measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Measured {
    /// The limb furthest from the source's direction, over every clip and sample time;
    /// `null` when the rigs share no limb.
    pub worst_limb: Option<LimbMiss>,
    /// The largest difference of the hips' travel from the clip's start, per hips height,
    /// in body axes; `null` without hips on both.
    pub hips_drift: Option<f32>,
}

/// A clip as the character plays it, beside the source clip it came from.
pub struct Played<'a> {
    pub name: &'a str,
    pub source: &'a Clip,
    pub channels: &'a [Channel],
}

/// Measures `played` on `character` against each source clip on `source`. The bodies give
/// each rig's frame, landmarks and hips height (the bind pose's, as the mesh shows them).
pub fn measure(character: &Rig, target: &Body, source: &Rig, from: &Body, played: &[Played]) -> Measured {
    let limbs: Vec<(&str, [usize; 2], [usize; 2])> = LIMBS
        .iter()
        .filter_map(|&(name, a, b)| {
            Some((name, [joint(target, a)?, joint(target, b)?], [joint(from, a)?, joint(from, b)?]))
        })
        .collect();
    // Without a frame on both rigs, both are taken to face the same way.
    let both = target.frame.is_some() && from.frame.is_some();
    let frame = |b: &Body| b.frame.filter(|_| both).unwrap_or(Quat::IDENTITY).inverse();
    let (f_t, f_s) = (frame(target), frame(from));
    let height = |b: &Body| b.hips_height.filter(|h| *h > 0.0);
    let hips = (|| {
        let hips = |b: &Body| b.landmarks.get(Landmark::Hips);
        Some((hips(target)?, hips(from)?, height(target)?, height(from)?))
    })();

    let between = |g_t: &[Mat4], g_s: &[Mat4], [ta, tb]: [usize; 2], [sa, sb]: [usize; 2]| {
        let at = |g: &[Mat4], n: usize| g[n].w_axis.truncate();
        let dt = (f_t * (at(g_t, tb) - at(g_t, ta))).try_normalize()?;
        let ds = (f_s * (at(g_s, sb) - at(g_s, sa))).try_normalize()?;
        Some(dt.dot(ds).clamp(-1.0, 1.0).acos().to_degrees())
    };
    let gaps: Vec<f32> = limbs
        .iter()
        .map(|(_, t, s)| between(&target.globals, &from.globals, *t, *s).unwrap_or(0.0))
        .collect();
    let mut out = Measured::default();
    let (mut pose_t, mut pose_s) = (Pose::rest(character), Pose::rest(source));
    let mut g_t = vec![Mat4::IDENTITY; character.nodes.len()];
    let mut g_s = vec![Mat4::IDENTITY; source.nodes.len()];
    for clip in played {
        let on_character =
            Clip { name: None, channels: clip.channels.to_vec(), duration: clip.source.duration, vrm: None };
        let mut start: Option<(Vec3, Vec3)> = None;
        for k in 0..SAMPLES {
            // The fraction first: a duration near f32's largest times 10 would be infinite.
            let t = clip.source.duration * (k as f32 / (SAMPLES - 1) as f32);
            pose_t.reset(character);
            sample(&on_character, t, &mut pose_t);
            compute_globals(character, &pose_t, &mut g_t);
            pose_s.reset(source);
            sample(clip.source, t, &mut pose_s);
            compute_globals(source, &pose_s, &mut g_s);
            for ((name, t_pair, s_pair), gap) in limbs.iter().zip(&gaps) {
                let Some(degrees) = between(&g_t, &g_s, *t_pair, *s_pair) else { continue };
                if out.worst_limb.as_ref().is_none_or(|w| degrees > w.degrees) {
                    out.worst_limb = Some(LimbMiss {
                        limb: name.to_string(),
                        degrees,
                        reference_degrees: *gap,
                        clip: clip.name.to_string(),
                        time: t,
                    });
                }
            }
            let at = |g: &[Mat4], n: usize| g[n].w_axis.truncate();
            if let Some((th, sh, h_t, h_s)) = hips {
                let (pt, ps) = (f_t * at(&g_t, th) / h_t, f_s * at(&g_s, sh) / h_s);
                let (t0, s0) = *start.get_or_insert((pt, ps));
                let drift = ((pt - t0) - (ps - s0)).length();
                out.hips_drift = Some(out.hips_drift.unwrap_or(0.0).max(drift));
            }
        }
    }
    out
}

/// The contract's identity at every key of a retargeted clip: the largest angle between
/// `W_T(j, t) * inverse(R_T(j))` and `A * W_S(s, t) * inverse(R_S(s)) * inverse(A)`, over
/// its rotation channels (`sources[i]` is channel `i`'s source node).
pub fn identity_miss(
    character: &Rig,
    source: &Rig,
    retarget: &Retarget,
    clip: &Clip,
    channels: &[Channel],
    sources: &[usize],
) -> f32 {
    let (target, from, turn) = (&retarget.target, &retarget.source, retarget.turn);
    let rotations: Vec<(&Channel, usize)> = channels
        .iter()
        .zip(sources)
        .filter(|(c, _)| c.property == Property::Rotation)
        .map(|(c, &s)| (c, s))
        .collect();
    let mut times: Vec<f32> = rotations.iter().flat_map(|(c, _)| c.times.iter().copied()).collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    let played = Clip { name: None, channels: channels.to_vec(), duration: clip.duration, vrm: None };
    let (mut pose_t, mut pose_s) = (Pose::rest(character), Pose::rest(source));
    let mut g_t = vec![Mat4::IDENTITY; character.nodes.len()];
    let mut g_s = vec![Mat4::IDENTITY; source.nodes.len()];
    let rotation = |m: &Mat4| m.to_scale_rotation_translation().1;
    let mut worst = 0.0f32;
    for t in times {
        pose_t.reset(character);
        sample(&played, t, &mut pose_t);
        compute_globals(character, &pose_t, &mut g_t);
        pose_s.reset(source);
        sample(clip, t, &mut pose_s);
        compute_globals(source, &pose_s, &mut g_s);
        for (c, s) in rotations.iter().filter(|(c, _)| c.times.binary_search_by(|x| x.total_cmp(&t)).is_ok())
        {
            let seen = rotation(&g_t[c.node]) * target.rotations[c.node].inverse();
            let wanted = turn * rotation(&g_s[*s]) * from.rotations[*s].inverse() * turn.inverse();
            worst = worst.max(angle(seen, wanted));
        }
    }
    worst
}
