//! `ClipTracks`: one clip baked for the cursor sampler, built once per clip from its
//! `Channel`s (which stay as imported). Key times that several channels share (exporters
//! write one time accessor per channel, mostly with the same contents) become one
//! `Timeline`, so the interval holding `t` is found once for all of them. Channels on the
//! same timeline with the same property and interpolation form a group whose values are
//! stored key-major (all channels' values at key `k` side by side), already widened to SIMD
//! types, with LINEAR/STEP rotation keys already through `normalize_quat`; LINEAR rotations
//! are slerped four channels at a time. Nodes whose translation, rotation and scale are all
//! LINEAR channels of one timeline (what exporters usually write for a skeleton) are baked
//! per node instead (`NodeGroup`): four nodes at a time, translations and scales lerped as
//! structure of arrays beside the slerped rotations, and each node's whole `Transform`
//! written at once. Every value is what `sample::write_span` gives for the same channel,
//! bit for bit; the tests in `tracks_tests.rs` check that.
//!
//! Channels that share a sampler (the same key times and values, so import gave them the
//! same arrays) and drive the same property of different nodes are baked once: the others
//! copy the first one's sampled value (`Alias`), so a sampler shared by thousands of
//! channels costs one channel's baked keys.
//!
//! What is not baked goes through `apply_span` on the clip's own channel, in clip order:
//! morph weights, channels of an unusual width, and every channel of a target (node and
//! property) that more than one channel animates (the last one wins, as in `sample`).
//! Finding the span per timeline is the sampler's job, not this module's.

use std::collections::HashMap;
use std::sync::Arc;

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
    /// Every node a baked translation, rotation or scale channel writes outside
    /// `node_groups`, once each: they stop using their file matrix.
    trs_nodes: Vec<usize>,
    node_groups: Vec<NodeGroup>,
    vec3: Vec<Vec3Group>,
    linear_rotations: Vec<LinearRotationGroup>,
    rotations: Vec<RotationGroup>,
    /// (channel index, timeline) of the channels sampled through `apply_span`.
    generic: Vec<(usize, usize)>,
    aliases: Vec<Alias>,
}

/// A channel sampled exactly as an earlier one of the clip (same key times, values,
/// interpolation and property, on another node): its node gets that channel's result.
#[derive(Debug, Clone, Copy)]
struct Alias {
    channel: usize,
    /// The node the earlier channel writes, and this channel's.
    from: usize,
    to: usize,
    property: Property,
    /// The earlier channel's timeline.
    timeline: usize,
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

/// Nodes whose translation, rotation and scale are each animated by one LINEAR channel,
/// all three on one timeline, four per block (the last block padded: zero translation
/// and scale, identity rotation, never written); key `k` is `blocks` blocks. Rotation keys
/// are normalised and their intervals precomputed as in `LinearRotationGroup`.
#[derive(Debug, Clone)]
struct NodeGroup {
    timeline: usize,
    /// In increasing order.
    nodes: Vec<usize>,
    /// `Some((first, end))` when `nodes` is `first..end` (a skeleton's joints
    /// usually are): the pose is then written through one slice, without a bounds check
    /// per node.
    contiguous: Option<(usize, usize)>,
    blocks: usize,
    keys: Vec<TrsBlock>,
    /// Interval `k` (keys `k`, `k + 1`) is `blocks` entries.
    intervals: Vec<TrsInterval>,
}

/// What the lerp and slerp need of one key interval of a block besides its first key:
/// `b - a` for `ts` (the same subtraction `a + (b - a) * s` does, done once when baking,
/// so the same bits) and the slerp's `SlerpInterval`.
#[derive(Debug, Clone, Copy)]
struct TrsInterval {
    ts_delta: [Vec4; 6],
    rotation: SlerpInterval,
}

/// One key of four nodes. Translations and scales are laid out so that each node's
/// fields come out of the lerp (which is lane-wise, so the layout does not change a bit)
/// ready to store: `ts[i]` is node `i`'s `(tx, ty, tz, sx)`, `ts[4]` is nodes 0 and 1's
/// `(sy, sz)`, `ts[5]` nodes 2 and 3's. Rotations are structure of arrays for the slerp.
#[derive(Debug, Clone, Copy)]
struct TrsBlock {
    ts: [Vec4; 6],
    rotation: Quat4,
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
        let mut kinds = kinds(clip);
        let sources = shared_sources(clip, &kinds);
        for (kind, source) in kinds.iter_mut().zip(&sources) {
            if source.is_some() {
                *kind = None;
            }
        }
        let mut known: HashMap<Vec<u32>, usize> = HashMap::new();
        let timelines: Vec<Option<usize>> = clip
            .channels
            .iter()
            .zip(&kinds)
            .map(|(channel, kind)| kind.map(|_| tracks.timeline_of(channel, &mut known)))
            .collect();
        for (channel, source) in sources.iter().enumerate() {
            let Some(source) = *source else { continue };
            let (Some(timeline), Some(from), Some(to)) =
                (timelines[source], clip.channels.get(source), clip.channels.get(channel))
            else {
                continue;
            };
            let property = to.property;
            tracks.aliases.push(Alias { channel, from: from.node, to: to.node, property, timeline });
            tracks.trs_nodes.push(to.node);
        }
        let whole = whole_nodes(clip, &kinds, &timelines);
        let mut in_node_group = vec![false; clip.channels.len()];
        // `whole` is sorted by timeline: each run of one timeline is one group.
        for run in whole.chunk_by(|a, b| a.0 == b.0) {
            let timeline = run[0].0;
            let members: Vec<[usize; 3]> = run.iter().map(|&(_, _, m)| m).collect();
            for &i in members.iter().flatten() {
                in_node_group[i] = true;
            }
            let mut group = NodeGroup {
                timeline,
                nodes: run.iter().map(|&(_, node, _)| node).collect(),
                contiguous: None,
                blocks: 0,
                keys: Vec::new(),
                intervals: Vec::new(),
            };
            group.bake(clip, &members, tracks.timelines[timeline].times.len());
            tracks.node_groups.push(group);
        }
        // (timeline, kind, interpolation) -> channel indices, in clip order.
        let mut groups: Vec<((usize, Kind, Interpolation), Vec<usize>)> = Vec::new();
        let rest = kinds.into_iter().zip(timelines).zip(in_node_group);
        for (index, (channel, ((kind, timeline), grouped))) in clip.channels.iter().zip(rest).enumerate() {
            let (Some(kind), Some(timeline), false) = (kind, timeline, grouped) else { continue };
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
        for group in &self.node_groups {
            if let Some(&span) = spans.get(group.timeline) {
                group.apply(span, pose);
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
        // After every group: the earlier channels' values are final (an alias's source is
        // the only channel on its target, so nothing later writes it).
        let nodes = pose.locals.len();
        for alias in &self.aliases {
            let Some(&span) = spans.get(alias.timeline) else { continue };
            match pose.locals.get(alias.from).copied() {
                Some(from) if alias.to < nodes => {
                    let to = &mut pose.locals[alias.to];
                    match alias.property {
                        Property::Translation => to.translation = from.translation,
                        Property::Rotation => to.rotation = from.rotation,
                        Property::Scale => to.scale = from.scale,
                        Property::Weights => {}
                    }
                }
                // The earlier channel's node is outside the pose: sample this one itself.
                _ => {
                    if let Some(channel) = clip.channels.get(alias.channel) {
                        apply_span(channel, span, pose);
                    }
                }
            }
        }
        for &(channel, timeline) in &self.generic {
            if let (Some(channel), Some(&span)) = (clip.channels.get(channel), spans.get(timeline)) {
                apply_span(channel, span, pose);
            }
        }
    }

    /// How many channels are baked into groups (aliases and generic channels are not).
    #[cfg(test)]
    pub(crate) fn baked_channels(&self) -> usize {
        let nodes = |g: &NodeGroup| 3 * g.nodes.len();
        self.node_groups.iter().map(nodes).sum::<usize>()
            + self.vec3.iter().map(|g| g.nodes.len()).sum::<usize>()
            + self.linear_rotations.iter().map(|g| g.nodes.len()).sum::<usize>()
            + self.rotations.iter().map(|g| g.nodes.len()).sum::<usize>()
    }

    /// The index of the timeline with `channel`'s key times, added when new.
    /// The timeline of `channel`'s keys (by their bits), added when new; `known` maps each
    /// timeline's key bits to its index, so a clip of many timelines is one pass.
    fn timeline_of(&mut self, channel: &Channel, known: &mut HashMap<Vec<u32>, usize>) -> usize {
        let times = channel.times.get(..key_count(channel)).unwrap_or_default();
        let bits: Vec<u32> = times.iter().map(|t| t.to_bits()).collect();
        if let Some(&i) = known.get(&bits) {
            return i;
        }
        let sorted = times.windows(2).all(|w| w[0] < w[1]);
        self.timelines.push(Timeline { times: times.to_vec(), sorted });
        known.insert(bits, self.timelines.len() - 1);
        self.timelines.len() - 1
    }
}

/// (timeline, node, [translation, rotation, scale] channel indices) of every node whose
/// three properties are baked (not generic) LINEAR channels of one timeline, in node order.
/// `kinds` already made every target with more than one channel generic, so each such node
/// has exactly these three baked channels.
fn whole_nodes(
    clip: &Clip,
    kinds: &[Option<Kind>],
    timelines: &[Option<usize>],
) -> Vec<(usize, usize, [usize; 3])> {
    // (timeline, node, [translation, rotation, scale] channel indices).
    let mut found: Vec<(usize, usize, [Option<usize>; 3])> = Vec::new();
    let mut place: HashMap<(usize, usize), usize> = HashMap::new();
    for (i, ((channel, kind), timeline)) in clip.channels.iter().zip(kinds).zip(timelines).enumerate() {
        let slot = match kind {
            Some(Kind::Vec3(Vec3Target::Translation)) => 0,
            Some(Kind::Rotation) => 1,
            Some(Kind::Vec3(Vec3Target::Scale)) => 2,
            _ => continue,
        };
        let Some(timeline) = *timeline else { continue };
        if channel.interpolation != Interpolation::Linear {
            continue;
        }
        match place.get(&(timeline, channel.node)) {
            Some(&at) => found[at].2[slot] = Some(i),
            None => {
                let mut slots = [None; 3];
                slots[slot] = Some(i);
                place.insert((timeline, channel.node), found.len());
                found.push((timeline, channel.node, slots));
            }
        }
    }
    let mut whole: Vec<(usize, usize, [usize; 3])> = found
        .into_iter()
        .filter_map(|(timeline, node, slots)| match slots {
            [Some(t), Some(r), Some(s)] => Some((timeline, node, [t, r, s])),
            _ => None,
        })
        .collect();
    whole.sort_unstable();
    whole
}

/// For every channel, the earlier channel it samples exactly as (the same `times` and
/// `values` arrays, interpolation, property and width), when both are baked kinds. Import
/// shares one sampler's arrays among its channels, so pointer equality finds them without
/// comparing keys.
fn shared_sources(clip: &Clip, kinds: &[Option<Kind>]) -> Vec<Option<usize>> {
    let mut first: HashMap<(usize, usize, Property, Interpolation, usize), usize> = HashMap::new();
    let mut sources = vec![None; clip.channels.len()];
    for (i, (channel, kind)) in clip.channels.iter().zip(kinds).enumerate() {
        if !matches!(kind, Some(Kind::Vec3(_) | Kind::Rotation)) {
            continue;
        }
        let key = (
            Arc::as_ptr(&channel.times).cast::<f32>() as usize,
            Arc::as_ptr(&channel.values).cast::<f32>() as usize,
            channel.property,
            channel.interpolation,
            channel.components,
        );
        match first.get(&key) {
            Some(&source) => sources[i] = Some(source),
            None => {
                first.insert(key, i);
            }
        }
    }
    sources
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

impl NodeGroup {
    /// Fills `keys` and `intervals` from the [translation, rotation, scale] channels of
    /// each node (in `nodes` order), all with `keys` complete keys.
    fn bake(&mut self, clip: &Clip, members: &[[usize; 3]], keys: usize) {
        let channel = |i: usize| [&clip.channels[i]];
        // Per node, its keys in order.
        let translations: Vec<Vec<Vec3A>> =
            members.iter().map(|m| key_major(&channel(m[0]), keys, vec3)).collect();
        let rotations: Vec<Vec<Vec4>> = members
            .iter()
            .map(|m| key_major(&channel(m[1]), keys, |e| Vec4::from(normalize_quat(quat(e)))))
            .collect();
        let scales: Vec<Vec<Vec3A>> = members.iter().map(|m| key_major(&channel(m[2]), keys, vec3)).collect();
        self.blocks = members.len().div_ceil(4);
        let consecutive = self.nodes.windows(2).all(|w| w[0].checked_add(1) == Some(w[1]));
        self.contiguous = match (self.nodes.first(), self.nodes.last()) {
            (Some(&first), Some(&last)) if consecutive => last.checked_add(1).map(|end| (first, end)),
            _ => None,
        };
        let at = |values: &[Vec<Vec3A>], k: usize, node: usize| {
            values.get(node).and_then(|v| v.get(k)).copied().unwrap_or(Vec3A::ZERO)
        };
        self.keys = (0..keys)
            .flat_map(|k| (0..self.blocks).map(move |b| (k, b)))
            .map(|(k, b)| {
                let quats: Vec<Vec4> = rotations
                    .iter()
                    .skip(4 * b)
                    .take(4)
                    .map(|r| r.get(k).copied().unwrap_or(Vec4::W))
                    .collect();
                let t = [0, 1, 2, 3].map(|i| at(&translations, k, 4 * b + i));
                let s = [0, 1, 2, 3].map(|i| at(&scales, k, 4 * b + i));
                TrsBlock {
                    ts: [
                        t[0].extend(s[0].x),
                        t[1].extend(s[1].x),
                        t[2].extend(s[2].x),
                        t[3].extend(s[3].x),
                        Vec4::new(s[0].y, s[0].z, s[1].y, s[1].z),
                        Vec4::new(s[2].y, s[2].z, s[3].y, s[3].z),
                    ],
                    rotation: Quat4::from_quats(&quats),
                }
            })
            .collect();
        self.intervals = self
            .keys
            .iter()
            .zip(self.keys.iter().skip(self.blocks))
            .map(|(a, b)| TrsInterval {
                ts_delta: [0, 1, 2, 3, 4, 5].map(|i| b.ts[i] - a.ts[i]),
                rotation: Quat4::interval(a.rotation, b.rotation),
            })
            .collect();
    }

    fn apply(&self, span: Span, pose: &mut Pose) {
        let key = |k: usize| self.keys.get(k * self.blocks..(k + 1) * self.blocks).unwrap_or_default();
        match span {
            Span::Hold(k) => {
                let a = key(k);
                self.write(pose, a.len(), |i| a[i]);
            }
            Span::Between(k, s) => {
                let intervals =
                    self.intervals.get(k * self.blocks..(k + 1) * self.blocks).unwrap_or_default();
                let a = key(k);
                let blocks = a.len().min(intervals.len());
                self.write(
                    pose,
                    blocks,
                    #[inline(always)]
                    |i| lerp_block(&a[i], &intervals[i], s),
                );
            }
        }
    }

    /// Each node's whole local transform from its lane of `block(i)` (`i < blocks`), and
    /// its file-matrix flag cleared (as `apply_span` does: only for a node inside the pose).
    #[inline(always)]
    fn write(&self, pose: &mut Pose, blocks: usize, block: impl Fn(usize) -> TrsBlock) {
        if let Some((start, end)) = self.contiguous
            && let Some(locals) = pose.locals.get_mut(start..end)
            && let Some(flags) = pose.use_matrix.get_mut(start..end)
        {
            // Whole blocks of four without a per-node length check, then the padded one.
            let (mut locals, mut flags) = (locals.chunks_exact_mut(4), flags.chunks_exact_mut(4));
            let mut i = 0;
            for (local, flag) in locals.by_ref().zip(flags.by_ref()) {
                if i >= blocks {
                    return;
                }
                local.copy_from_slice(&transforms(&block(i)));
                flag.fill(false);
                i += 1;
            }
            let (locals, flags) = (locals.into_remainder(), flags.into_remainder());
            if i < blocks {
                for ((local, flag), transform) in locals.iter_mut().zip(flags).zip(transforms(&block(i))) {
                    *local = transform;
                    *flag = false;
                }
            }
            return;
        }
        for (i, nodes) in self.nodes.chunks(4).take(blocks).enumerate() {
            for (&node, transform) in nodes.iter().zip(transforms(&block(i))) {
                if let Some(local) = pose.locals.get_mut(node) {
                    *local = transform;
                    if let Some(flag) = pose.use_matrix.get_mut(node) {
                        *flag = false;
                    }
                }
            }
        }
    }
}

/// From key `a` across `interval` at `s`: `Vec3Group`'s `a + (b - a) * s` lane by lane
/// (`b - a` precomputed), and the slerp.
#[inline(always)]
fn lerp_block(a: &TrsBlock, interval: &TrsInterval, s: f32) -> TrsBlock {
    let lerp = |a: Vec4, d: Vec4| a + d * s;
    let [a0, a1, a2, a3, a4, a5] = a.ts;
    let [d0, d1, d2, d3, d4, d5] = interval.ts_delta;
    TrsBlock {
        ts: [lerp(a0, d0), lerp(a1, d1), lerp(a2, d2), lerp(a3, d3), lerp(a4, d4), lerp(a5, d5)],
        rotation: Quat4::slerp(a.rotation, &interval.rotation, s),
    }
}

/// The four nodes' transforms of `block`, lane by lane.
#[inline(always)]
fn transforms(block: &TrsBlock) -> [Transform; 4] {
    let [r0, r1, r2, r3, s01, s23] = block.ts;
    let [q0, q1, q2, q3] = block.rotation.to_quats();
    let node = |r: Vec4, rotation, sy: f32, sz: f32| Transform {
        translation: Vec3::new(r.x, r.y, r.z),
        rotation,
        scale: Vec3::new(r.w, sy, sz),
    };
    [
        node(r0, q0, s01.x, s01.y),
        node(r1, q1, s01.z, s01.w),
        node(r2, q2, s23.x, s23.y),
        node(r3, q3, s23.z, s23.w),
    ]
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
