//! Clips: matched by name, then (as joints are) the clips left over by their content, so a
//! renamed clip reads as a rename; compared by their channels and by sampling both over the
//! same times with the viewer's own jobs (sample -> pose), joint by matched joint.

use serde::Serialize;

use super::angle_between;
use super::joints::{JointMap, Rename};
use crate::anim::Workspace;
use crate::report::{interpolation_name, property_name};
use crate::rig::{Clip, Rig};

/// Samples per second of clip time, and the most samples one clip gets.
const RATE: f32 = 60.0;
const MAX_SAMPLES: usize = 1201;

/// A matched clip pair and the times both were sampled at (for the mesh comparison).
#[derive(Debug, Clone)]
pub struct ClipSamples {
    pub a: usize,
    pub b: usize,
    pub label: String,
    pub times: Vec<f32>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InterpolationChange {
    pub channel: String,
    pub a: &'static str,
    pub b: &'static str,
}

/// The largest distance between a joint's world positions in `a` and `b`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeakPosition {
    pub joint: String,
    pub time: f32,
    pub distance: f32,
}

/// The largest angle between a joint's world rotations in `a` and `b`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeakRotation {
    pub joint: String,
    pub time: f32,
    pub degrees: f32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClipChange {
    pub clip: String,
    /// `[a, b]` when they differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<[f32; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel_count: Option<[usize; 2]>,
    /// Channels (`joint.property`) only `b` has, and only `a` has.
    pub channels_added: Vec<String>,
    pub channels_removed: Vec<String>,
    pub interpolation: Vec<InterpolationChange>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<PeakPosition>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation: Option<PeakRotation>,
}

impl ClipChange {
    fn is_empty(&self) -> bool {
        self.duration.is_none()
            && self.channel_count.is_none()
            && self.channels_added.is_empty()
            && self.channels_removed.is_empty()
            && self.interpolation.is_empty()
            && self.position.is_none()
            && self.rotation.is_none()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClipChanges {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// Clips whose name changed and whose keys did not (same channels on matched joints,
    /// same key times and values within the tolerance).
    pub renamed: Vec<Rename>,
    pub changed: Vec<ClipChange>,
}

impl ClipChanges {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.renamed.is_empty() && self.changed.is_empty()
    }
}

/// Clip `a` of rig `a` and clip `b` of rig `b` are one clip; `label` names it as `b` does.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipPair {
    pub a: usize,
    pub b: usize,
    pub label: String,
    /// Matched by content, not by name.
    pub renamed: bool,
}

/// Clips matched by label, then each clip left over in `a` with the first left over in `b`
/// that has the same keys: what `diff` and the viewer's reload line both report.
pub fn pair_clips(a: &Rig, b: &Rig, map: &JointMap, tol: f32) -> Vec<ClipPair> {
    let mut pairs: Vec<ClipPair> = Vec::new();
    for i in 0..a.clips.len() {
        let label = a.clip_label(i);
        if let Some(j) = (0..b.clips.len()).find(|&j| b.clip_label(j) == label) {
            pairs.push(ClipPair { a: i, b: j, label, renamed: false });
        }
    }
    for i in 0..a.clips.len() {
        if pairs.iter().any(|p| p.a == i) {
            continue;
        }
        let found = (0..b.clips.len())
            .find(|&j| !pairs.iter().any(|p| p.b == j) && same_keys(&a.clips[i], &b.clips[j], map, tol));
        if let Some(j) = found {
            pairs.push(ClipPair { a: i, b: j, label: b.clip_label(j), renamed: true });
        }
    }
    pairs
}

/// The same channels (on matched nodes, in any order) with the same interpolation, key times
/// and values within `tol`. A clip without channels matches nothing: an empty clip says
/// nothing about which clip it was.
fn same_keys(ca: &Clip, cb: &Clip, map: &JointMap, tol: f32) -> bool {
    let close =
        |x: &[f32], y: &[f32]| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| (p - q).abs() <= tol);
    !ca.channels.is_empty()
        && ca.channels.len() == cb.channels.len()
        && (ca.duration - cb.duration).abs() <= tol
        && ca.channels.iter().all(|x| {
            cb.channels.iter().any(|y| {
                map.a_to_b.get(x.node).copied().flatten() == Some(y.node)
                    && x.property == y.property
                    && x.interpolation == y.interpolation
                    && close(&x.times, &y.times)
                    && close(&x.values, &y.values)
            })
        })
}

/// Added, removed and renamed clips, and the clips whose duration changed: the part of the
/// comparison that needs no sampling.
pub fn outline_clips(a: &Rig, b: &Rig, pairs: &[ClipPair], tol: f32) -> ClipChanges {
    ClipChanges {
        added: (0..b.clips.len())
            .filter(|j| !pairs.iter().any(|p| p.b == *j))
            .map(|j| b.clip_label(j))
            .collect(),
        removed: (0..a.clips.len())
            .filter(|i| !pairs.iter().any(|p| p.a == *i))
            .map(|i| a.clip_label(i))
            .collect(),
        renamed: pairs
            .iter()
            .filter(|p| p.renamed)
            .map(|p| Rename { from: a.clip_label(p.a), to: p.label.clone() })
            .collect(),
        changed: pairs
            .iter()
            .filter_map(|p| {
                let (da, db) = (a.clips[p.a].duration, b.clips[p.b].duration);
                ((da - db).abs() > tol).then(|| ClipChange {
                    clip: p.label.clone(),
                    duration: Some([da, db]),
                    ..ClipChange::default()
                })
            })
            .collect(),
    }
}

/// Evenly spaced times from 0 to `duration`, both ends included.
pub fn sample_times(duration: f32) -> Vec<f32> {
    if !(duration > 0.0 && duration.is_finite()) {
        return vec![0.0];
    }
    let n = ((duration * RATE).ceil() as usize).clamp(1, MAX_SAMPLES - 1);
    (0..=n).map(|i| duration * i as f32 / n as f32).collect()
}

pub fn compare_clips(a: &Rig, b: &Rig, map: &JointMap, tol: f32) -> (ClipChanges, Vec<ClipSamples>) {
    let pairs = pair_clips(a, b, map, tol);
    let mut out = outline_clips(a, b, &pairs, tol);
    out.changed.clear();
    let mut samples = Vec::new();
    let mut wa = Workspace::new(a);
    let mut wb = Workspace::new(b);
    for ClipPair { a: i, b: j, label, .. } in pairs {
        let (ca, cb) = (&a.clips[i], &b.clips[j]);
        let mut change = ClipChange { clip: label.clone(), ..ClipChange::default() };
        if (ca.duration - cb.duration).abs() > tol {
            change.duration = Some([ca.duration, cb.duration]);
        }
        if ca.channels.len() != cb.channels.len() {
            change.channel_count = Some([ca.channels.len(), cb.channels.len()]);
        }
        compare_channels(a, b, ca, cb, map, &mut change);
        let times = sample_times(ca.duration.max(cb.duration));
        let (position, rotation) = sampled_peaks(a, b, ca, cb, map, &times, &mut wa, &mut wb);
        change.position = position.filter(|p| p.distance > tol);
        change.rotation = rotation.filter(|r| r.degrees.to_radians() > tol);
        if !change.is_empty() {
            out.changed.push(change);
        }
        samples.push(ClipSamples { a: i, b: j, label, times });
    }
    (out, samples)
}

/// Channels by (matched node, property): which only one side has, and interpolation changes.
fn compare_channels(a: &Rig, b: &Rig, ca: &Clip, cb: &Clip, map: &JointMap, change: &mut ClipChange) {
    let key_a = |ch: &crate::rig::Channel| {
        let node = map
            .a_to_b
            .get(ch.node)
            .copied()
            .flatten()
            .map_or_else(|| format!("a:{}", ch.node), |m| format!("b:{m}"));
        (node, ch.property)
    };
    let key_b = |ch: &crate::rig::Channel| (format!("b:{}", ch.node), ch.property);
    let label_a =
        |ch: &crate::rig::Channel| format!("{}.{}", a.node_label(ch.node), property_name(ch.property));
    let label_b =
        |ch: &crate::rig::Channel| format!("{}.{}", b.node_label(ch.node), property_name(ch.property));
    for ch in &cb.channels {
        match ca.channels.iter().find(|x| key_a(x) == key_b(ch)) {
            None => change.channels_added.push(label_b(ch)),
            Some(x) if x.interpolation != ch.interpolation => {
                change.interpolation.push(InterpolationChange {
                    channel: label_b(ch),
                    a: interpolation_name(x.interpolation),
                    b: interpolation_name(ch.interpolation),
                })
            }
            Some(_) => {}
        }
    }
    for ch in &ca.channels {
        if !cb.channels.iter().any(|x| key_b(x) == key_a(ch)) {
            change.channels_removed.push(label_a(ch));
        }
    }
}

/// Both clips posed at each time; the largest world position and rotation differences of
/// any matched joint.
#[allow(clippy::too_many_arguments)]
fn sampled_peaks(
    a: &Rig,
    b: &Rig,
    ca: &Clip,
    cb: &Clip,
    map: &JointMap,
    times: &[f32],
    wa: &mut Workspace,
    wb: &mut Workspace,
) -> (Option<PeakPosition>, Option<PeakRotation>) {
    let pairs: Vec<(usize, usize)> = map.joint_pairs().collect();
    let mut position: Option<PeakPosition> = None;
    let mut rotation: Option<PeakRotation> = None;
    for &t in times {
        wa.sample_pose(a, Some(ca), t);
        wa.update_matrices(a);
        wb.sample_pose(b, Some(cb), t);
        wb.update_matrices(b);
        for &(n, m) in &pairs {
            let (ga, gb) = (wa.globals[n], wb.globals[m]);
            let distance = ga.w_axis.truncate().distance(gb.w_axis.truncate());
            if position.as_ref().is_none_or(|p| distance > p.distance) {
                position = Some(PeakPosition { joint: b.node_label(m), time: t, distance });
            }
            let (_, ra, _) = ga.to_scale_rotation_translation();
            let (_, rb, _) = gb.to_scale_rotation_translation();
            let degrees = angle_between(ra, rb).to_degrees();
            if rotation.as_ref().is_none_or(|r| degrees > r.degrees) {
                rotation = Some(PeakRotation { joint: b.node_label(m), time: t, degrees });
            }
        }
    }
    (position, rotation)
}
