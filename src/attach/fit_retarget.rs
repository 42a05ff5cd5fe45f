//! `fit`'s account of retargeting, measured rather than predicted: which reference pose is
//! used and why, whether the rigs face different ways, their hips heights and the ratio, each
//! rig's arm pose from its reference, and how far raw binding and retargeting each leave the
//! limbs from the source's (`measure`). The advice is whichever of the two misses less.

use glam::Vec3;
use serde::Serialize;

use super::BindOptions;
use super::bind::{NodeBinding, rebind_clip, threejs_clips};
use super::body::{Body, ReferencePose, angle};
use super::landmarks::Landmark;
use super::measure::{Measured, Played, identity_miss, measure};
use super::retarget::Retarget;
use crate::rig::{Channel, Clip, Rig};

/// A limb further than this from the source's direction is seen.
pub const LIMB_DEGREES: f32 = 10.0;
/// Hips drifting more than this many hips heights from the source's travel are seen.
pub const DRIFT: f32 = 0.1;
/// The contract's identities hold within this at every key.
const IDENTITY_RADIANS: f32 = 1e-5;

#[derive(Debug, Clone, Serialize)]
pub struct RetargetFit {
    /// `bind` or `rest`.
    pub reference: &'static str,
    /// Each rig whose rest is not its bind pose, with the joint that differs most.
    pub rest_not_bind: Vec<RestNotBind>,
    /// The angle between the two body frames; `null` without landmarks on both.
    pub facing_degrees: Option<f32>,
    pub character_hips_height: Option<f32>,
    pub library_hips_height: Option<f32>,
    /// `H_T / H_S` as applied; `null` when the ratio is refused.
    pub ratio: Option<f32>,
    pub character_arms: Option<ArmPose>,
    pub library_arms: Option<ArmPose>,
    /// Played raw, measured.
    pub raw: Measured,
    /// Retargeted, measured; `null` when retargeting refuses the pair.
    pub retargeted: Option<Measured>,
    /// The contract's identity, worst over every key of every retargeted clip.
    pub identity_radians: Option<f32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RestNotBind {
    /// `character` or `library`.
    pub rig: &'static str,
    pub joint: String,
    pub degrees: f32,
}

/// The upper arms' angles below the body's left axis (right axis for the right arm) in the
/// reference pose, and what that makes the pose.
#[derive(Debug, Clone, Serialize)]
pub struct ArmPose {
    pub left_degrees: f32,
    pub right_degrees: f32,
    /// `T-pose`, `A-pose`, or `null` (arms down, or the two sides disagree).
    pub pose: Option<&'static str>,
}

/// The account, its sentences and the problems among them.
pub fn retarget_fit(
    character: &Rig,
    lib: &Rig,
    binding: &NodeBinding,
    options: &BindOptions,
) -> (RetargetFit, Vec<String>, Vec<String>) {
    let reference = options.retarget.unwrap_or_default();
    // Each rig's body in each pose once: on rigs of 100k nodes they are most of the work.
    let (bind_t, bind_s) = (Body::new(character, ReferencePose::Bind), Body::new(lib, ReferencePose::Bind));
    let (rest_t, rest_s) = (Body::new(character, ReferencePose::Rest), Body::new(lib, ReferencePose::Rest));
    let clips = threejs_clips(lib);
    let names: Vec<String> = clips.iter().enumerate().map(|(i, c)| c.name_or_index(i)).collect();
    let raw_channels: Vec<_> = clips.iter().map(|c| rebind_clip(c, binding).0).collect();
    let raw = measure(character, &bind_t, lib, &bind_s, &played(&clips, &names, &raw_channels));

    let mut sentences = Vec::new();
    let mut problems = Vec::new();
    let in_reference = |bind: &Body, rest: &Body| match reference {
        ReferencePose::Bind => bind.clone(),
        ReferencePose::Rest => rest.clone(),
    };
    let retarget =
        Retarget::from_bodies(in_reference(&bind_t, &rest_t), in_reference(&bind_s, &rest_s), reference);
    let (retargeted, identity) = match &retarget {
        Ok(r) => {
            let baked: Vec<_> = clips.iter().map(|c| r.clip(character, lib, c, binding)).collect();
            let channels: Vec<_> = baked.iter().map(|(c, _)| c.clone()).collect();
            let identity = clips
                .iter()
                .zip(&baked)
                .map(|(c, (ch, src))| identity_miss(character, lib, r, c, ch, src))
                .fold(0.0f32, f32::max);
            (
                Some(measure(character, &bind_t, lib, &bind_s, &played(&clips, &names, &channels))),
                Some(identity),
            )
        }
        Err(refused) => {
            problems.push(refused.to_string());
            (None, None)
        }
    };
    let (body_t, body_s) = (in_reference(&bind_t, &rest_t), in_reference(&bind_s, &rest_s));
    let rest_not_bind: Vec<RestNotBind> =
        [("character", character, &rest_t, &bind_t), ("library", lib, &rest_s, &bind_s)]
            .into_iter()
            .filter_map(|(which, rig, rest, bind)| {
                rest_vs_bind(rig, rest, bind).map(|(joint, degrees)| RestNotBind {
                    rig: which,
                    joint,
                    degrees,
                })
            })
            .collect();
    let facing_degrees = match (body_t.frame, body_s.frame) {
        (Some(t), Some(s)) => Some(angle(t, s).to_degrees()),
        _ => None,
    };
    let fit = RetargetFit {
        reference: reference.label(),
        rest_not_bind,
        facing_degrees,
        character_hips_height: body_t.hips_height,
        library_hips_height: body_s.hips_height,
        ratio: retarget.as_ref().ok().map(|r| r.ratio),
        character_arms: arm_pose(&bind_t),
        library_arms: arm_pose(&bind_s),
        raw,
        retargeted,
        identity_radians: identity,
    };
    describe(&fit, options, &mut sentences, &mut problems);
    (fit, sentences, problems)
}

fn played<'a>(clips: &'a [Clip], names: &'a [String], channels: &'a [Vec<Channel>]) -> Vec<Played<'a>> {
    clips
        .iter()
        .zip(names)
        .zip(channels)
        .map(|((c, n), ch)| Played { name: n, source: c, channels: ch })
        .collect()
}

/// The joint whose rest world rotation is furthest from its bind pose's, over 1 degree, from
/// `rig`'s two bodies.
fn rest_vs_bind(rig: &Rig, rest: &Body, bind: &Body) -> Option<(String, f32)> {
    let joints = rig.skins.iter().flat_map(|s| s.joints.iter().copied());
    joints
        .filter(|&j| j < rig.nodes.len())
        .map(|j| (j, angle(rest.rotations[j], bind.rotations[j]).to_degrees()))
        .filter(|(_, d)| *d > 1.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(j, d)| (rig.node_label(j), d))
}

/// Each upper arm's angle below the body's side axis, from the upper arm to the forearm.
fn arm_pose(body: &Body) -> Option<ArmPose> {
    let frame = body.frame?;
    let at =
        |l: Landmark| body.landmarks.get(l).and_then(|n| body.globals.get(n)).map(|m| m.w_axis.truncate());
    let below = |upper: Landmark, lower: Landmark, side: Vec3| -> Option<f32> {
        let d = (at(lower)? - at(upper)?).try_normalize()?;
        Some(d.dot(frame * side).clamp(-1.0, 1.0).acos().to_degrees())
    };
    let left = below(Landmark::LeftUpperArm, Landmark::LeftLowerArm, Vec3::X)?;
    let right = below(Landmark::RightUpperArm, Landmark::RightLowerArm, Vec3::NEG_X)?;
    let pose = match (left + right) / 2.0 {
        _ if (left - right).abs() > 15.0 => None,
        m if m < 15.0 => Some("T-pose"),
        m if m <= 65.0 => Some("A-pose"),
        _ => None,
    };
    Some(ArmPose { left_degrees: left, right_degrees: right, pose })
}

/// How far a way of playing leaves the worst limb from the source's direction.
fn excess(m: &Measured) -> f32 {
    m.worst_limb.as_ref().map_or(0.0, |w| w.degrees)
}

fn looks_right(m: &Measured) -> bool {
    excess(m) <= LIMB_DEGREES && m.hips_drift.is_none_or(|d| d <= DRIFT)
}

fn said(m: &Measured) -> String {
    let limb = match &m.worst_limb {
        Some(w) if w.reference_degrees >= 1.0 => format!(
            "worst limb {} {:.0}° from the source's ({:.0}° in the reference poses; {} at {:.2} s)",
            w.limb, w.degrees, w.reference_degrees, w.clip, w.time
        ),
        Some(w) => format!(
            "worst limb {} {:.0}° from the source's ({} at {:.2} s)",
            w.limb, w.degrees, w.clip, w.time
        ),
        None => "no limb to compare (no humanoid landmarks in common)".to_string(),
    };
    match m.hips_drift {
        Some(d) if d.is_finite() => format!("{limb}, hips {d:.2} hips heights off the source's travel"),
        // Keys (or key times) past f32's range carry the hips past any number.
        Some(_) => format!(
            "{limb}, hips off the source's travel by more than a number holds (keys or times out of range)"
        ),
        None => limb,
    }
}

fn describe(
    fit: &RetargetFit,
    options: &BindOptions,
    sentences: &mut Vec<String>,
    problems: &mut Vec<String>,
) {
    let flag = if fit.reference == "rest" { "--retarget=rest" } else { "--retarget" };
    sentences.push(match fit.reference {
        "rest" => "retargeting measures each bone's change from the nodes' rest (--retarget=rest, as asked)".to_string(),
        _ => "retargeting measures each bone's change from the bind pose (the inverse bind matrices: the pose the mesh was bound in; --retarget's default)".to_string(),
    });
    for r in &fit.rest_not_bind {
        let tail = if fit.reference == "rest" {
            ": --retarget=rest measures from a pose the mesh was not bound in"
        } else {
            ""
        };
        sentences.push(format!(
            "the {}'s rest is not its bind pose ({} differs by {:.0}°){tail}",
            r.rig, r.joint, r.degrees
        ));
    }
    sentences.push(match fit.facing_degrees {
        Some(d) if d > 10.0 => format!("the rigs face {d:.0}° apart (body frames from the hips, head and upper arms): retargeting turns the motion into the character's body; raw values turn it in the library's"),
        Some(d) => format!("the rigs face the same way (body frames {d:.0}° apart)"),
        None => "one of the rigs lacks the hips, a head (or neck or spine) and two upper arms (or legs) that make a body frame: they are assumed to face the same way".to_string(),
    });
    if let (Some(t), Some(s)) = (fit.character_hips_height, fit.library_hips_height) {
        let ratio = fit.ratio.map_or("refused".to_string(), |r| format!("{r:.3}"));
        sentences.push(format!("hips {t:.3} above the lowest joint on the character, {s:.3} on the library (world units): travel scaled by {ratio}"));
    }
    if let (Some(t), Some(s)) = (&fit.character_arms, &fit.library_arms) {
        let name = |a: &ArmPose| {
            a.pose.map_or_else(
                || format!("arms {:.0}° below the side", (a.left_degrees + a.right_degrees) / 2.0),
                |p| format!("{} {p}", article(p)),
            )
        };
        if t.pose != s.pose || (t.left_degrees - s.left_degrees).abs() > LIMB_DEGREES {
            sentences.push(format!(
                "the character's bind pose is {} and the library's {}: retargeted, the arms keep the character's pose",
                name(t),
                name(s)
            ));
        }
    }
    let raw = format!("played raw: {}", said(&fit.raw));
    sentences.push(raw.clone());
    if let Some(r) = &fit.retargeted {
        sentences.push(format!("retargeted ({flag}): {}", said(r)));
    }
    if let Some(i) = fit.identity_radians.filter(|i| i.is_nan() || *i > IDENTITY_RADIANS) {
        problems.push(format!(
            "retargeting misses its own identities by {i:.1e} rad at some key: please report this file pair"
        ));
    }
    let retargeted = fit.retargeted.as_ref();
    if fit.raw.worst_limb.is_none() && fit.raw.hips_drift.is_none() {
        sentences.push(
            "no advice: the rigs share no humanoid landmark (hips, head, limbs, by the names docs/clips.md lists) to measure the clips by"
                .to_string(),
        );
        return;
    }
    let better = |r: &Measured| excess(r) + 1.0 < excess(&fit.raw);
    match (options.retarget.is_some(), retargeted) {
        (false, Some(r)) if !looks_right(&fit.raw) && better(r) => problems.push(format!(
            "played raw, the clips will not look like the source ({}); {flag} leaves {}",
            said(&fit.raw),
            said(r)
        )),
        (false, _) if !looks_right(&fit.raw) => problems.push(format!("played raw, the clips will not look like the source: {}", said(&fit.raw))),
        (false, _) => sentences.push("advice: play raw; it already keeps the limbs where the source has them".to_string()),
        (true, Some(r)) if !looks_right(r) && excess(&fit.raw) + 1.0 < excess(r) => problems.push(format!(
            "retargeted, the clips will not look like the source ({}); played raw they miss less ({}), so leave {flag} off",
            said(r),
            said(&fit.raw)
        )),
        (true, Some(r)) if !looks_right(r) => problems.push(format!("retargeted, the clips will not look like the source: {}", said(r))),
        (true, Some(_)) => sentences.push(format!("advice: {flag} keeps the limbs where the source has them (checked above)")),
        (true, None) => {}
    }
}

/// "a" or "an" before a figure name ("an A-pose", "a T-pose").
fn article(word: &str) -> &'static str {
    match word.chars().next() {
        Some('A' | 'E' | 'I' | 'O' | 'a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hips_drift_past_any_number_is_said_in_words() {
        let at = |hips_drift| said(&Measured { worst_limb: None, hips_drift });
        assert!(at(Some(0.25)).ends_with("hips 0.25 hips heights off the source's travel"));
        let endless = at(Some(f32::INFINITY));
        assert!(endless.contains("more than a number holds") && !endless.contains("inf "), "{endless}");
        assert!(!looks_right(&Measured { worst_limb: None, hips_drift: Some(f32::INFINITY) }));
    }
}
