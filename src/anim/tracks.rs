//! `ClipTracks`: one clip baked for the cursor sampler, built once per clip from its
//! `Channel`s (which stay as imported). Key times that several channels share (exporters
//! write one time accessor per channel, mostly with the same contents) become one
//! `Timeline`, so the interval holding `t` is found once for all of them. Channels on the
//! same timeline with the same property and interpolation form a group whose values are
//! stored key-major (all channels' values at key `k` side by side), already widened to SIMD
//! types, with LINEAR/STEP rotation keys already through `normalize_quat`; LINEAR rotations
//! are slerped four channels at a time. Every value is what `sample::write_span` gives for
//! the same channel, bit for bit; the tests in `tracks_tests.rs` check that.
//!
//! What is not baked goes through `apply_span` on the clip's own channel, in clip order:
//! morph weights, channels of an unusual width, and every channel of a target (node and
//! property) that more than one channel animates (the last one wins, as in `sample`).
//! Finding the span per timeline is the sampler's job, not this module's.

use glam::{Vec3, Vec3A, Vec4};

use super::interpolate::{Quat4, SlerpInterval, hermite_weights, normalize_quat};
use super::pose::Pose;
use super::sample::{Span, apply_span, key_count};
use crate::rig::{Channel, Clip, Interpolation, Property, Transform};

/// One clip, baked. Immutable once built; the per-frame state (cursors, spans) is the
/// sampler's.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClipTracks {
    /// Identity of the clip this was built from.
    identity: ClipId,
    timelines: Vec<Timeline>,
    /// Every node a baked translation, rotation or scale channel writes, once each: they
    /// stop using their file matrix.
    trs_nodes: Vec<usize>,
    vec3: Vec<Vec3Group>,
    linear_rotations: Vec<LinearRotationGroup>,
    rotations: Vec<RotationGroup>,
    /// (channel index, timeline) of the channels sampled through `apply_span`.
    generic: Vec<(usize, usize)>,
}

/// Key times shared by one or more channels (already cut to the channels' key count).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Timeline {
    pub times: Vec<f32>,
    /// Strictly increasing: only then may a cursor shortcut the binary search.
    pub sorted: bool,
}

/// How the clip being sampled is recognised without holding a borrow, in constant time
/// (checking every channel cost a third of a frame): the address and length of its channel
/// list and the key storage of its first and last channels. Another clip (another rig, or a
/// clone) differs in these; a clip whose keys are edited in place is not noticed, which is
/// why `Sampler::bind` is public.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ClipId {
    channels: usize,
    len: usize,
    first: ChannelId,
    last: ChannelId,
}

impl ClipId {
    fn of(clip: &Clip) -> Self {
        Self {
            channels: clip.channels.as_ptr() as usize,
            len: clip.channels.len(),
            first: clip.channels.first().map(ChannelId::of).unwrap_or_default(),
            last: clip.channels.last().map(ChannelId::of).unwrap_or_default(),
        }
    }
}

/// Address and length of a channel's key storage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ChannelId {
    times: usize,
    times_len: usize,
    values: usize,
    values_len: usize,
}

impl ChannelId {
    fn of(channel: &Channel) -> Self {
        Self {
            times: channel.times.as_ptr() as usize,
            times_len: channel.times.len(),
            values: channel.values.as_ptr() as usize,
            values_len: channel.values.len(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Vec3Target {
    Translation,
    Scale,
}

/// Translation or scale channels (3 components) of one timeline and interpolation.
#[derive(Debug, Clone)]
struct Vec3Group {
    timeline: usize,
    target: Vec3Target,
    interpolation: Interpolation,
    nodes: Vec<usize>,
    /// Key-major: key `k` is `nodes.len()` values (STEP, LINEAR) or `nodes.len()` triples
    /// (in-tangent, value, out-tangent) for CUBICSPLINE.
    values: Vec<Vec3A>,
}

/// LINEAR rotation channels of one timeline, four per `Quat4` block (the last block padded
/// with identity lanes); key `k` is `blocks` blocks. Keys are already normalised, and what
/// slerp needs of each key interval besides its first key is precomputed.
#[derive(Debug, Clone)]
struct LinearRotationGroup {
    timeline: usize,
    nodes: Vec<usize>,
    blocks: usize,
    values: Vec<Quat4>,
    /// Interval `k` (keys `k`, `k + 1`) is `blocks` entries.
    intervals: Vec<SlerpInterval>,
}

/// STEP (keys normalised) or CUBICSPLINE (keys as stored: the spline runs on raw values and
/// only its result is normalised) rotation channels of one timeline.
#[derive(Debug, Clone)]
struct RotationGroup {
    timeline: usize,
    interpolation: Interpolation,
    nodes: Vec<usize>,
    /// Key-major like `Vec3Group::values`.
    values: Vec<Vec4>,
}

/// How a channel is baked, decided once in `bake`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Vec3(Vec3Target),
    Rotation,
    Generic,
}

impl ClipTracks {
    /// Bakes `clip`. Allocates; meant to run once per clip, not per frame.
    pub fn bake(clip: &Clip) -> Self {
        let mut tracks = Self { identity: ClipId::of(clip), ..Self::default() };
        let kinds = kinds(clip);
        // (timeline, kind, interpolation) -> channel indices, in clip order.
        let mut groups: Vec<((usize, Kind, Interpolation), Vec<usize>)> = Vec::new();
        for (index, (channel, kind)) in clip.channels.iter().zip(kinds).enumerate() {
            let Some(kind) = kind else { continue };
            let timeline = tracks.timeline_of(channel);
            if kind == Kind::Generic {
                tracks.generic.push((index, timeline));
                continue;
            }
            let key = (timeline, kind, channel.interpolation);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, members)) => members.push(index),
                None => groups.push((key, vec![index])),
            }
        }
        for ((timeline, kind, interpolation), members) in groups {
            let channels: Vec<&Channel> = members.iter().map(|&i| &clip.channels[i]).collect();
            let keys = tracks.timelines[timeline].times.len();
            let nodes: Vec<usize> = channels.iter().map(|c| c.node).collect();
            tracks.trs_nodes.extend(&nodes);
            match kind {
                Kind::Vec3(target) => tracks.vec3.push(Vec3Group {
                    timeline,
                    target,
                    interpolation,
                    nodes,
                    values: key_major(&channels, keys, vec3),
                }),
                Kind::Rotation if interpolation == Interpolation::Linear => {
                    let normalised = key_major(&channels, keys, |e| Vec4::from(normalize_quat(quat(e))));
                    let per_key = channels.len();
                    let values: Vec<Quat4> = normalised
                        .chunks_exact(per_key.max(1))
                        .flat_map(|key| key.chunks(4).map(Quat4::from_quats))
                        .collect();
                    let blocks = per_key.div_ceil(4);
                    let intervals = values
                        .iter()
                        .zip(values.iter().skip(blocks))
                        .map(|(&a, &b)| Quat4::interval(a, b))
                        .collect();
                    tracks.linear_rotations.push(LinearRotationGroup {
                        timeline,
                        nodes,
                        blocks,
                        values,
                        intervals,
                    });
                }
                Kind::Rotation => {
                    let step = interpolation == Interpolation::Step;
                    let values = key_major(&channels, keys, |e| {
                        if step { Vec4::from(normalize_quat(quat(e))) } else { quat(e) }
                    });
                    tracks.rotations.push(RotationGroup { timeline, interpolation, nodes, values });
                }
                Kind::Generic => {}
            }
        }
        tracks.trs_nodes.sort_unstable();
        tracks.trs_nodes.dedup();
        tracks
    }

    /// True when `clip` is (by `ClipId`) the one this was baked from.
    pub fn is_baked_from(&self, clip: &Clip) -> bool {
        self.identity == ClipId::of(clip)
    }

    pub fn timelines(&self) -> &[Timeline] {
        &self.timelines
    }

    /// Writes every channel into `pose`, given the span of each timeline at the current
    /// time (`spans[i]` for `timelines()[i]`). `clip` must be the baked one
    /// (`is_baked_from`); it is read only for the channels that are not baked.
    pub fn apply(&self, clip: &Clip, spans: &[Span], pose: &mut Pose) {
        // As `apply_span`: only a node inside the pose has its flag cleared.
        let nodes = pose.locals.len();
        for &node in &self.trs_nodes {
            if let Some(flag) = pose.use_matrix.get_mut(node).filter(|_| node < nodes) {
                *flag = false;
            }
        }
        for group in &self.vec3 {
            let (Some(&span), Some(timeline)) =
                (spans.get(group.timeline), self.timelines.get(group.timeline))
            else {
                continue;
            };
            group.apply(span, &timeline.times, pose);
        }
        for group in &self.linear_rotations {
            if let Some(&span) = spans.get(group.timeline) {
                group.apply(span, pose);
            }
        }
        for group in &self.rotations {
            let (Some(&span), Some(timeline)) =
                (spans.get(group.timeline), self.timelines.get(group.timeline))
            else {
                continue;
            };
            group.apply(span, &timeline.times, pose);
        }
        for &(channel, timeline) in &self.generic {
            if let (Some(channel), Some(&span)) = (clip.channels.get(channel), spans.get(timeline)) {
                apply_span(channel, span, pose);
            }
        }
    }

    /// The index of the timeline with `channel`'s key times, added when new.
    fn timeline_of(&mut self, channel: &Channel) -> usize {
        let times = channel.times.get(..key_count(channel)).unwrap_or_default();
        let same = |t: &Timeline| {
            t.times.len() == times.len() && t.times.iter().zip(times).all(|(a, b)| a.to_bits() == b.to_bits())
        };
        if let Some(i) = self.timelines.iter().position(same) {
            return i;
        }
        let sorted = times.windows(2).all(|w| w[0] < w[1]);
        self.timelines.push(Timeline { times: times.to_vec(), sorted });
        self.timelines.len() - 1
    }
}

/// The kind of every channel, `None` for one without a complete key (`sample` skips those).
/// A target animated by more than one channel keeps all of them generic, so they still
/// apply in clip order after the baked groups (whose targets they cannot share).
fn kinds(clip: &Clip) -> Vec<Option<Kind>> {
    let mut kinds: Vec<Option<Kind>> = clip
        .channels
        .iter()
        .map(|c| {
            (key_count(c) > 0).then_some(match (c.property, c.components) {
                (Property::Translation, 3) => Kind::Vec3(Vec3Target::Translation),
                (Property::Scale, 3) => Kind::Vec3(Vec3Target::Scale),
                (Property::Rotation, 4) => Kind::Rotation,
                _ => Kind::Generic,
            })
        })
        .collect();
    let mut targets: Vec<(usize, u8, usize)> = clip
        .channels
        .iter()
        .zip(&kinds)
        .enumerate()
        .filter(|(_, (_, kind))| kind.is_some())
        .map(|(i, (c, _))| (c.node, property_rank(c.property), i))
        .collect();
    targets.sort_unstable();
    for pair in targets.windows(2) {
        let [(node_a, prop_a, a), (node_b, prop_b, b)] = [pair[0], pair[1]];
        if (node_a, prop_a) == (node_b, prop_b) {
            kinds[a] = Some(Kind::Generic);
            kinds[b] = Some(Kind::Generic);
        }
    }
    kinds
}

fn property_rank(p: Property) -> u8 {
    match p {
        Property::Translation => 0,
        Property::Rotation => 1,
        Property::Scale => 2,
        Property::Weights => 3,
    }
}

/// The channels' elements laid out key-major: for each key, each channel's elements of that
/// key (1, or 3 for CUBICSPLINE), converted by `element`. All channels share the timeline,
/// so each has `keys` complete keys.
fn key_major<T>(channels: &[&Channel], keys: usize, element: impl Fn(&[f32]) -> T) -> Vec<T> {
    let mut out = Vec::with_capacity(keys * channels.len() * 3);
    for k in 0..keys {
        for channel in channels {
            let c = channel.components;
            let per_key = if channel.interpolation == Interpolation::CubicSpline { 3 } else { 1 };
            for e in k * per_key..(k + 1) * per_key {
                // Always in range: every channel on a timeline has exactly `keys` complete
                // keys (the timeline is its times cut to `key_count`).
                out.push(element(channel.values.get(e * c..(e + 1) * c).unwrap_or(&[0.0; 4])));
            }
        }
    }
    out
}

fn vec3(e: &[f32]) -> Vec3A {
    match e {
        [x, y, z, ..] => Vec3A::new(*x, *y, *z),
        _ => Vec3A::ZERO,
    }
}

fn quat(e: &[f32]) -> Vec4 {
    match e {
        [x, y, z, w, ..] => Vec4::new(*x, *y, *z, *w),
        _ => Vec4::W,
    }
}

/// The local transform of `node` (its file-matrix flag is cleared once per frame in
/// `ClipTracks::apply`).
#[inline(always)]
fn animated_local(pose: &mut Pose, node: usize) -> Option<&mut Transform> {
    pose.locals.get_mut(node)
}

impl Vec3Group {
    fn apply(&self, span: Span, times: &[f32], pose: &mut Pose) {
        let n = self.nodes.len();
        let cubic = self.interpolation == Interpolation::CubicSpline;
        let stride = if cubic { 3 * n } else { n };
        let key = |k: usize| self.values.get(k * stride..(k + 1) * stride).unwrap_or_default();
        let target = self.target;
        let write = move |pose: &mut Pose, node: usize, v: Vec3A| {
            if let Some(local) = animated_local(pose, node) {
                match target {
                    Vec3Target::Translation => local.translation = Vec3::from(v),
                    Vec3Target::Scale => local.scale = Vec3::from(v),
                }
            }
        };
        match (span, self.interpolation) {
            (Span::Hold(k), _) | (Span::Between(k, _), Interpolation::Step) => {
                if cubic {
                    for (&node, e) in self.nodes.iter().zip(key(k).chunks_exact(3)) {
                        write(pose, node, e[1]);
                    }
                } else {
                    for (&node, &v) in self.nodes.iter().zip(key(k)) {
                        write(pose, node, v);
                    }
                }
            }
            (Span::Between(k, s), Interpolation::Linear) => {
                for ((&node, &a), &b) in self.nodes.iter().zip(key(k)).zip(key(k + 1)) {
                    write(pose, node, a + (b - a) * s);
                }
            }
            (Span::Between(k, s), Interpolation::CubicSpline) => {
                let [h0, h1, h2, h3] = hermite_weights(s, interval(times, k));
                for ((&node, e0), e1) in
                    self.nodes.iter().zip(key(k).chunks_exact(3)).zip(key(k + 1).chunks_exact(3))
                {
                    write(pose, node, e0[1] * h0 + e0[2] * h1 + e1[1] * h2 + e1[0] * h3);
                }
            }
        }
    }
}

impl LinearRotationGroup {
    fn apply(&self, span: Span, pose: &mut Pose) {
        let key = |k: usize| self.values.get(k * self.blocks..(k + 1) * self.blocks).unwrap_or_default();
        let write = |pose: &mut Pose, nodes: &[usize], q: Quat4| {
            for (&node, q) in nodes.iter().zip(q.to_quats()) {
                if let Some(local) = animated_local(pose, node) {
                    local.rotation = q;
                }
            }
        };
        match span {
            Span::Hold(k) => {
                for (nodes, &q) in self.nodes.chunks(4).zip(key(k)) {
                    write(pose, nodes, q);
                }
            }
            Span::Between(k, s) => {
                let intervals =
                    self.intervals.get(k * self.blocks..(k + 1) * self.blocks).unwrap_or_default();
                for ((nodes, &a), interval) in self.nodes.chunks(4).zip(key(k)).zip(intervals) {
                    write(pose, nodes, Quat4::slerp(a, interval, s));
                }
            }
        }
    }
}

impl RotationGroup {
    fn apply(&self, span: Span, times: &[f32], pose: &mut Pose) {
        let n = self.nodes.len();
        let cubic = self.interpolation == Interpolation::CubicSpline;
        let stride = if cubic { 3 * n } else { n };
        let key = |k: usize| self.values.get(k * stride..(k + 1) * stride).unwrap_or_default();
        let write = |pose: &mut Pose, node: usize, q: glam::Quat| {
            if let Some(local) = animated_local(pose, node) {
                local.rotation = q;
            }
        };
        match (span, cubic) {
            (Span::Hold(k) | Span::Between(k, _), false) => {
                for (&node, &q) in self.nodes.iter().zip(key(k)) {
                    write(pose, node, glam::Quat::from_vec4(q));
                }
            }
            (Span::Hold(k), true) => {
                for (&node, e) in self.nodes.iter().zip(key(k).chunks_exact(3)) {
                    write(pose, node, normalize_quat(e[1]));
                }
            }
            (Span::Between(k, s), true) => {
                let [h0, h1, h2, h3] = hermite_weights(s, interval(times, k));
                for ((&node, e0), e1) in
                    self.nodes.iter().zip(key(k).chunks_exact(3)).zip(key(k + 1).chunks_exact(3))
                {
                    write(pose, node, normalize_quat(e0[1] * h0 + e0[2] * h1 + e1[1] * h2 + e1[0] * h3));
                }
            }
        }
    }
}

/// `times[k+1] - times[k]`, 0 when out of range (as `write_span` does).
fn interval(times: &[f32], k: usize) -> f32 {
    match (times.get(k), times.get(k + 1)) {
        (Some(&t0), Some(&t1)) => t1 - t0,
        _ => 0.0,
    }
}
