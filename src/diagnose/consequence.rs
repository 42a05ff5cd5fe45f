//! What weight problems do on screen, measured: for each problem vertex and each engine
//! profile, the farthest the engine draws it from where the stored weights put it, over the
//! rest pose and every clip sampled at each of its key times and halfway between consecutive
//! ones, with the clip and time of the worst. Distances are in world units, and as a fraction
//! of the model's size as drawn (`anim::model_size`), in the same space.
//!
//! Only the problem vertices are skinned (one blended matrix per vertex, per engine, per
//! sample), so a 100k-vertex rig with a handful of problems costs a pose per sample, not a
//! mesh. Both positions come from the same joint matrices and the same morphed position, through
//! the skinning kernel's own point function and the engine's fate (`anim::drawn_point`), so a
//! distance here is the distance between the very points the viewer draws.

use std::collections::BTreeMap;

use glam::Vec3;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::screen::{Screen, Weighting};
use crate::anim::{
    Engine, Fate, Workspace, drawn_point, drawn_vertex, model_size_at_bind, morphed_position,
    skin_point_lists,
};
use crate::rig::{Clip, Rig};

/// Vertex-skins one `measure` does at most (problem vertices x profiles that change them x
/// poses): past it, each clip keeps every n-th sample (and its last), so that a rig whose
/// every vertex is flagged is still checked in seconds. `Consequences::sample_stride` says n.
pub const MAX_WORK: usize = 20_000_000;

/// A vertex "moves" under an engine when it lands farther than this fraction of the model's
/// size from its stored-weights position (below it is rounding: a sum 1e-7 from 1).
pub const MOVE_FRACTION: f32 = 1e-5;

/// A weight at least this large (in magnitude) can skin a point past f32's range.
const HUGE_WEIGHT: f32 = 1e18;

/// The worst an engine does to one vertex.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Displacement {
    /// Distance from the stored-weights position, in world units; infinite (JSON: null) when
    /// the stored weights give the vertex no position where the engine draws it
    /// (`stored_vanishes`).
    pub distance: f32,
    /// `distance` over the model's bounding-box diagonal.
    pub fraction: f32,
    /// The clip where it is worst; `None` for the rest pose (or when nothing moves).
    pub clip: Option<usize>,
    /// Seconds into `clip` (0 for the rest pose).
    pub time: f32,
    /// The engine gives the vertex no position in some pose measured (a NaN weight kept, a
    /// sum of 0 divided by, a weight so large that the skinned point overflows): its
    /// triangles are not drawn. `distance` is then 0: there is no place to measure.
    pub vanishes: bool,
    /// The stored weights give the vertex no position (a weight so large the skinned point
    /// overflows) in the pose of the worst, while the engine draws it: it moves, as far as can be.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stored_vanishes: bool,
}

/// One problem vertex and what each engine profile does to it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VertexConsequence {
    pub mesh: usize,
    pub primitive: usize,
    pub vertex: usize,
    /// Per profile (every one `measure` was given), in that order; JSON: an object keyed by
    /// profile name.
    #[serde(serialize_with = "by_name")]
    pub engines: Vec<(Engine, Displacement)>,
}

/// One profile over every problem vertex.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EngineSummary {
    #[serde(serialize_with = "engine_name")]
    pub engine: Engine,
    pub label: &'static str,
    /// Problem vertices that move more than `MOVE_FRACTION` of the model.
    pub moved: usize,
    /// Problem vertices the engine gives no position (`Displacement::vanishes`).
    pub vanished: usize,
    /// Why the engine would not load the file at all (`Engine::refusal`); nothing is measured
    /// for it then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refuses: Option<String>,
    /// The vertex that moves most, when one moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst: Option<WorstVertex>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WorstVertex {
    pub mesh: usize,
    pub primitive: usize,
    pub vertex: usize,
    #[serde(flatten)]
    pub at: Displacement,
}

/// Every measurement of one rig.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Consequences {
    /// The model's size as drawn (`anim::model_size`), in world units.
    pub diagonal: f32,
    /// How many poses were compared (the rest pose plus every clip's samples).
    pub samples: usize,
    /// 1 when every key time and midpoint was compared; n when only every n-th was (see
    /// `MAX_WORK`).
    pub sample_stride: usize,
    pub engines: Vec<EngineSummary>,
    /// In the order the vertices were given (only those of listed findings after
    /// `Report::listed`).
    pub vertices: Vec<VertexConsequence>,
    /// Measured vertices left out of `vertices` with their findings (`Report::listed`).
    #[serde(skip_serializing_if = "is_zero")]
    pub vertices_omitted: usize,
    /// Each clip's label (`Rig::clip_label`: its name, or `#N`), for the text.
    #[serde(skip)]
    pub clip_labels: Vec<String>,
}

impl Consequences {
    /// How a clip is named in the text: its name, or `#N` unnamed.
    pub fn clip_label(&self, clip: usize) -> String {
        self.clip_labels.get(clip).cloned().unwrap_or_else(|| format!("#{clip}"))
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Consequences {
    /// What `engine` does to the vertex, if it was measured.
    pub fn of(&self, mesh: usize, primitive: usize, vertex: usize, engine: Engine) -> Option<Displacement> {
        let row =
            self.vertices.iter().find(|r| (r.mesh, r.primitive, r.vertex) == (mesh, primitive, vertex))?;
        row.engines.iter().find(|(e, _)| *e == engine).map(|(_, d)| *d)
    }
}

/// The times a clip is compared at: every key time of every channel, and the midpoint of each
/// pair of consecutive ones, ascending (one time, 0, for a clip without keys).
pub fn sample_times(clip: &Clip) -> Vec<f32> {
    let mut keys: Vec<f32> =
        clip.channels.iter().flat_map(|c| c.times.iter().copied()).filter(|t| t.is_finite()).collect();
    keys.sort_by(f32::total_cmp);
    keys.dedup();
    let Some(&first) = keys.first() else {
        return vec![0.0];
    };
    let mut times = vec![first];
    for pair in keys.windows(2) {
        times.push(0.5 * (pair[0] + pair[1]));
        times.push(pair[1]);
    }
    times
}

/// What `measure` starts from: a workspace at the bind pose and the model's size there.
/// Neither depends on the rule checks, so `check` makes it alongside them; and `measure`
/// samples its poses in this same workspace (each pose is sampled and its matrices made
/// afresh) rather than building a second one.
pub struct BindStart {
    ws: Workspace,
    diagonal: f32,
}

impl BindStart {
    pub fn new(rig: &Rig) -> Self {
        let ws = Workspace::at_bind(rig);
        let diagonal = model_size_at_bind(&ws);
        BindStart { ws, diagonal }
    }
}

/// One drawn copy of a problem vertex: the node drawing it with a skin.
struct Target {
    /// Index into `vertices` (the caller's list).
    row: usize,
    node: usize,
    skin: usize,
    mesh: usize,
    primitive: usize,
    vertex: usize,
    /// The distinct slot lists to skin at each pose, laid end to end in `slots`: the stored
    /// one first, then each engine's unless an earlier list is the same (Babylon.js skins
    /// with the stored slots and divides), with whether it skins the origin
    /// (`Fate::FromOrigin`).
    slots: Vec<(u16, f32)>,
    lists: Vec<(std::ops::Range<usize>, bool)>,
    /// Per engine: its list and fate, or `None` when it is not measured: it gives every
    /// joint the same total weight as the stored slots do and skins the vertex plainly (so it
    /// draws it in the same place), or it would not load the file.
    engines: Vec<Option<(usize, Fate)>>,
}

impl Target {
    /// The index of `slots` (skinning `p`, or the origin) among the lists, added if new.
    fn list(&mut self, slots: &[(u16, f32)], origin: bool) -> usize {
        let found = self.lists.iter().position(|(r, o)| *o == origin && self.slots[r.clone()] == *slots);
        found.unwrap_or_else(|| {
            let start = self.slots.len();
            self.slots.extend_from_slice(slots);
            self.lists.push((start..self.slots.len(), origin));
            self.lists.len() - 1
        })
    }
}

/// Each joint's total finite, non-zero weight, by joint: two slot lists that agree here skin
/// a vertex identically.
fn per_joint(slots: &[(u16, f32)]) -> Vec<(u16, f32)> {
    let mut out: Vec<(u16, f32)> = Vec::with_capacity(slots.len());
    for &(j, w) in slots.iter().filter(|s| s.1 != 0.0 && s.1.is_finite()) {
        match out.iter_mut().find(|o| o.0 == j) {
            Some(o) => o.1 += w,
            None => out.push((j, w)),
        }
    }
    out.sort_by_key(|o| o.0);
    out
}

/// Measures `engines` on `vertices` (mesh, primitive, vertex). A vertex no node draws with a
/// skin is listed with zero displacement (engines only change skinned vertices).
pub fn measure(rig: &Rig, vertices: &[(usize, usize, usize)], engines: &[Engine]) -> Consequences {
    measure_from(BindStart::new(rig), rig, vertices, engines, MAX_WORK, true)
}

/// `measure` from a `BindStart` of `rig` made beforehand.
pub fn measure_with(
    start: BindStart,
    rig: &Rig,
    vertices: &[(usize, usize, usize)],
    engines: &[Engine],
) -> Consequences {
    measure_from(start, rig, vertices, engines, MAX_WORK, true)
}

/// `measure` with `max_work` in place of `MAX_WORK`.
#[cfg(test)]
fn measure_within(
    rig: &Rig,
    vertices: &[(usize, usize, usize)],
    engines: &[Engine],
    max_work: usize,
) -> Consequences {
    measure_from(BindStart::new(rig), rig, vertices, engines, max_work, true)
}

/// `measure` with the kernel at every pose of every engine: what the screen must not change.
#[cfg(test)]
fn measure_unscreened(rig: &Rig, vertices: &[(usize, usize, usize)], engines: &[Engine]) -> Consequences {
    measure_from(BindStart::new(rig), rig, vertices, engines, MAX_WORK, false)
}

fn measure_from(
    start: BindStart,
    rig: &Rig,
    vertices: &[(usize, usize, usize)],
    engines: &[Engine],
    max_work: usize,
    screened: bool,
) -> Consequences {
    let BindStart { mut ws, diagonal } = start;
    let refusals: Vec<Option<String>> = engines.iter().map(|e| e.refusal(rig)).collect();
    let mut targets = Vec::new();
    let mut scratch = Vec::new();
    for (row, &(mesh, primitive, vertex)) in vertices.iter().enumerate() {
        let Some(prim) = rig.meshes.get(mesh).and_then(|m| m.primitives.get(primitive)) else {
            continue;
        };
        if vertex >= prim.vertex_count() {
            continue;
        }
        for d in ws.primitives.iter().filter(|d| (d.mesh, d.primitive) == (mesh, primitive)) {
            let Some(skin) = d.skin else { continue };
            let joints = rig.skins.get(skin).map_or(0, |s| s.joints.len());
            let stored: Vec<(u16, f32)> = prim.influences_of(vertex).collect();
            let base = per_joint(&stored);
            let mut t = Target {
                row,
                node: d.node,
                skin,
                mesh,
                primitive,
                vertex,
                slots: Vec::new(),
                lists: Vec::new(),
                engines: Vec::with_capacity(engines.len()),
            };
            t.list(&stored, false);
            // Weights this large can carry the stored point past f32's range, and an engine
            // that draws the vertex where the stored weights do then gives it no position
            // either: it is measured too, to say so.
            let may_overflow = stored.iter().any(|s| s.1.abs() >= HUGE_WEIGHT);
            for (&e, refused) in engines.iter().zip(&refusals) {
                let fate = drawn_vertex(e, &prim.influences, vertex, joints, &mut scratch);
                let same = fate == Fate::Skinned && per_joint(&scratch) == base && !may_overflow;
                let measured =
                    (refused.is_none() && !same).then(|| (t.list(&scratch, fate == Fate::FromOrigin), fate));
                t.engines.push(measured);
            }
            targets.push(t);
        }
    }
    let zero = Displacement {
        distance: 0.0,
        fraction: 0.0,
        clip: None,
        time: 0.0,
        vanishes: false,
        stored_vanishes: false,
    };
    let mut worst = vec![vec![zero; engines.len()]; vertices.len()];
    for t in &targets {
        for (e, measured) in t.engines.iter().enumerate() {
            worst[t.row][e].vanishes |= matches!(measured, Some((_, Fate::Vanishes)));
        }
    }
    let pairs: usize = targets.iter().map(|t| t.engines.iter().filter(|e| e.is_some()).count()).sum();
    // Without a pair to measure there is no pose to sample (and the stride is 1).
    let times: Vec<Vec<f32>> =
        if pairs > 0 { rig.clips.iter().map(sample_times).collect() } else { Vec::new() };
    let all_poses = 1 + times.iter().map(Vec::len).sum::<usize>();
    let sample_stride = (pairs.saturating_mul(all_poses)).div_ceil(max_work.max(1)).max(1);
    let poses: Vec<(Option<usize>, f32)> = if pairs > 0 {
        std::iter::once((None, 0.0))
            .chain(times.iter().enumerate().flat_map(|(c, t)| {
                let last = t.len().saturating_sub(1);
                t.iter()
                    .enumerate()
                    .filter(move |(i, _)| i % sample_stride == 0 || *i == last)
                    .map(move |(_, &time)| (Some(c), time))
            }))
            .collect()
    } else {
        Vec::new()
    };
    let needs = screen_poses(rig, &mut ws, &poses, &targets, screened);
    // Per pose, the targets measured there, ascending (ties go to the first, as in one pass).
    let mut every = Vec::new();
    let mut by_pose: Vec<Vec<usize>> = vec![Vec::new(); poses.len()];
    for (k, needs) in needs.iter().enumerate() {
        if needs.iter().any(|n| matches!(n, Need::All)) {
            every.push(k);
            continue;
        }
        let mut at: Vec<usize> = needs
            .iter()
            .flat_map(|n| if let Need::At(p) = n { p.as_slice() } else { &[] })
            .copied()
            .collect();
        at.sort_unstable();
        at.dedup();
        for i in at {
            by_pose[i].push(k);
        }
    }
    let mut skinned = Vec::new();
    for (i, &(clip, time)) in poses.iter().enumerate() {
        if every.is_empty() && by_pose[i].is_empty() {
            continue;
        }
        let mut here = by_pose[i].clone();
        here.extend_from_slice(&every);
        here.sort_unstable();
        ws.sample_pose(rig, clip.and_then(|c| rig.clips.get(c)), time);
        ws.update_matrices(rig);
        for (t, needs) in here.iter().map(|&k| (&targets[k], &needs[k])) {
            let Some(joints) = ws.joint_matrices.get(t.skin) else { continue };
            let p = morphed(rig, &ws, t);
            skin_point_lists(joints, p, &t.slots, &t.lists, &mut skinned);
            let stored = skinned[0];
            let placement = ws.placement(t.skin);
            for (e, (measured, need)) in t.engines.iter().zip(needs).enumerate() {
                let best = &mut worst[t.row][e];
                let Some((list, fate)) = *measured else { continue };
                if best.vanishes || !need.at(i) {
                    continue;
                }
                let drawn = drawn_point(fate, skinned[list], p, &placement);
                if !drawn.is_finite() {
                    *best = Displacement { vanishes: true, clip, time, ..zero };
                    continue;
                }
                // Drawn where the stored weights give no position: as far as can be.
                let distance = if stored.is_finite() { drawn.distance(stored) } else { f32::INFINITY };
                if distance > best.distance {
                    best.stored_vanishes = !stored.is_finite();
                    best.distance = distance;
                    best.fraction =
                        if diagonal > 0.0 || !stored.is_finite() { distance / diagonal } else { 0.0 };
                    best.clip = clip;
                    best.time = time;
                }
            }
        }
    }
    let samples = poses.len();
    let rows: Vec<VertexConsequence> = vertices
        .iter()
        .zip(worst)
        .map(|(&(mesh, primitive, vertex), w)| VertexConsequence {
            mesh,
            primitive,
            vertex,
            engines: engines.iter().copied().zip(w).collect(),
        })
        .collect();
    let summaries = (engines.iter().zip(refusals).enumerate())
        .map(|(e, (&engine, refuses))| summarise(engine, e, refuses, &rows))
        .collect();
    let clip_labels = (0..rig.clips.len()).map(|c| rig.clip_label(c)).collect();
    Consequences {
        diagonal,
        samples,
        sample_stride,
        engines: summaries,
        vertices: rows,
        vertices_omitted: 0,
        clip_labels,
    }
}

/// Which poses the kernel measures one engine of one target at.
enum Need {
    /// Every pose: weights or a fate the screen does not bound.
    All,
    /// These pose indices, ascending.
    At(Vec<usize>),
}

impl Need {
    fn at(&self, pose: usize) -> bool {
        match self {
            Need::All => true,
            Need::At(poses) => poses.binary_search(&pose).is_ok(),
        }
    }
}

/// A target's screen over every pose: per weighting, the best lower bound so far and the
/// poses whose upper bound reached it when they were screened.
struct Screened {
    screen: Screen,
    /// Per engine, its weighting in `screen`, if it has one.
    of_engine: Vec<Option<usize>>,
    low: Vec<f32>,
    kept: Vec<Vec<(usize, f32)>>,
    /// `kept`'s lengths when last pruned, so that pruning stays linear over the poses.
    pruned: Vec<usize>,
    /// The screen could not bound some pose: every pose is measured.
    failed: bool,
}

impl Screened {
    fn new(t: &Target, joint_count: usize) -> Option<Screened> {
        let mut keys: Vec<(usize, f32)> = Vec::new();
        let mut of_engine = vec![None; t.engines.len()];
        for (e, measured) in t.engines.iter().enumerate() {
            let Some((list, fate)) = *measured else { continue };
            let divisor = match fate {
                Fate::Skinned => 1.0,
                Fate::Divided(sum) => sum,
                _ => continue,
            };
            let same = |&(l, d): &(usize, f32)| l == list && d.to_bits() == divisor.to_bits();
            of_engine[e] = Some(keys.iter().position(same).unwrap_or_else(|| {
                keys.push((list, divisor));
                keys.len() - 1
            }));
        }
        if keys.is_empty() {
            return None;
        }
        let slots = |l: usize| &t.slots[t.lists[l].0.clone()];
        let weightings: Vec<Weighting> =
            keys.iter().map(|&(l, divisor)| Weighting { slots: slots(l), divisor }).collect();
        let screen = Screen::new(slots(0), &weightings, joint_count)?;
        let n = keys.len();
        Some(Screened {
            screen,
            of_engine,
            low: vec![f32::NEG_INFINITY; n],
            kept: (0..n).map(|_| Vec::with_capacity(16)).collect(),
            pruned: vec![0; n],
            failed: false,
        })
    }

    fn add(&mut self, pose: usize, bounds: &[(f32, f32)]) {
        for (m, &(low, high)) in bounds.iter().enumerate() {
            self.low[m] = self.low[m].max(low);
            if high < self.low[m] {
                continue;
            }
            let kept = &mut self.kept[m];
            kept.push((pose, high));
            if kept.len() > 2 * self.pruned[m].max(32) {
                let low = self.low[m];
                kept.retain(|k| k.1 >= low);
                self.pruned[m] = kept.len();
            }
        }
    }

    /// The poses engine `e` is measured at.
    fn need(&self, e: usize) -> Need {
        match self.of_engine[e] {
            Some(m) if !self.failed => {
                Need::At(self.kept[m].iter().filter(|k| k.1 >= self.low[m]).map(|k| k.0).collect())
            }
            _ => Need::All,
        }
    }
}

/// Per target, per engine, the poses the kernel measures it at: where the screen bounds an
/// engine's weighting, only the poses whose upper bound reaches the highest lower bound over
/// every pose (no other can hold the worst, or tie it); every pose otherwise, or unless
/// `screened`. `ws` is left at the last pose.
fn screen_poses(
    rig: &Rig,
    ws: &mut Workspace,
    poses: &[(Option<usize>, f32)],
    targets: &[Target],
    screened: bool,
) -> Vec<Vec<Need>> {
    let joint_count = |t: &Target| ws.joint_matrices.get(t.skin).map_or(0, Vec::len);
    let mut screens: Vec<Option<Screened>> =
        targets.iter().map(|t| Screened::new(t, joint_count(t)).filter(|_| screened)).collect();
    if screens.iter().any(Option::is_some) {
        let mut bounds = Vec::new();
        for (i, &(clip, time)) in poses.iter().enumerate() {
            ws.sample_pose(rig, clip.and_then(|c| rig.clips.get(c)), time);
            ws.update_matrices(rig);
            for (t, screened) in targets.iter().zip(&mut screens) {
                let Some(s) = screened.as_mut().filter(|s| !s.failed) else { continue };
                let joints = ws.joint_matrices.get(t.skin).map_or(&[][..], Vec::as_slice);
                if s.screen.bounds(joints, morphed(rig, ws, t), &mut bounds) {
                    s.add(i, &bounds);
                } else {
                    s.failed = true;
                }
            }
        }
    }
    (targets.iter().zip(&screens))
        .map(|(t, screened)| {
            (t.engines.iter().enumerate())
                .map(|(e, measured)| match (measured, screened) {
                    // Not measured, or vanishing in every pose: nothing to measure.
                    (None | Some((_, Fate::Vanishes)), _) => Need::At(Vec::new()),
                    (Some(_), Some(s)) => s.need(e),
                    (Some(_), None) => Need::All,
                })
                .collect()
        })
        .collect()
}

fn summarise(engine: Engine, e: usize, refuses: Option<String>, rows: &[VertexConsequence]) -> EngineSummary {
    let moved = |d: &Displacement| d.fraction > MOVE_FRACTION;
    let mut summary =
        EngineSummary { engine, label: engine.label(), moved: 0, vanished: 0, refuses, worst: None };
    for row in rows {
        let d = row.engines[e].1;
        summary.vanished += usize::from(d.vanishes);
        if !moved(&d) {
            continue;
        }
        summary.moved += 1;
        if summary.worst.is_none_or(|w| d.distance > w.at.distance) {
            summary.worst =
                Some(WorstVertex { mesh: row.mesh, primitive: row.primitive, vertex: row.vertex, at: d });
        }
    }
    summary
}

/// The vertex's position after the node's current morph weights.
fn morphed(rig: &Rig, ws: &Workspace, t: &Target) -> Vec3 {
    let Some(prim) = rig.meshes.get(t.mesh).and_then(|m| m.primitives.get(t.primitive)) else {
        return Vec3::ZERO;
    };
    let weights = ws.pose.morph_weights.get(t.node).map_or(&[][..], Vec::as_slice);
    morphed_position(&prim.positions, &prim.morph_targets, weights, t.vertex)
}

fn engine_name<S: Serializer>(engine: &Engine, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(engine.name())
}

fn by_name<S: Serializer>(engines: &[(Engine, Displacement)], s: S) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(engines.len()))?;
    for (engine, d) in engines {
        map.serialize_entry(engine.name(), d)?;
    }
    map.end()
}

/// The profiles `check` measures: every one but `Stored`.
pub fn measured_engines() -> Vec<Engine> {
    Engine::ALL.iter().copied().filter(|&e| e != Engine::Stored).collect()
}

/// The distinct (mesh, primitive, vertex) of every vertex finding, in report order, then of
/// every vertex drawn with a skin that has weight outside its first influence set (engines
/// read one, two or every set, so they disagree there even when no rule fires).
pub fn problem_vertices(rig: &Rig, findings: &[super::Finding]) -> Vec<(usize, usize, usize)> {
    let mut seen = BTreeMap::new();
    for f in findings {
        if let (Some(m), Some(p), Some(v)) = (f.mesh, f.primitive, f.vertex.as_ref()) {
            let next = seen.len();
            seen.entry((m, p, v.vertex)).or_insert(next);
        }
    }
    let drawn_with_skin = |m: usize| rig.nodes.iter().any(|n| n.mesh == Some(m) && n.skin.is_some());
    for (m, mesh) in rig.meshes.iter().enumerate().filter(|(m, _)| drawn_with_skin(*m)) {
        for (p, prim) in mesh.primitives.iter().enumerate().filter(|(_, p)| p.influences.len() > 1) {
            for set in &prim.influences[1..] {
                for (v, w) in set.weights.iter().enumerate() {
                    if w.iter().any(|&w| w != 0.0) {
                        let next = seen.len();
                        seen.entry((m, p, v)).or_insert(next);
                    }
                }
            }
        }
    }
    let mut list: Vec<_> = seen.into_iter().collect();
    list.sort_by_key(|&(_, order)| order);
    list.into_iter().map(|(key, _)| key).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{Channel, Interpolation, Property};
    use glam::Mat4;

    fn clip(times: &[f32]) -> Clip {
        let channel = |t: &[f32]| Channel {
            node: 0,
            property: Property::Translation,
            interpolation: Interpolation::Linear,
            times: t.to_vec().into(),
            values: vec![0.0; 3 * t.len()].into(),
            components: 3,
        };
        Clip { vrm: None, name: None, duration: 0.0, channels: vec![channel(times), channel(&[0.5, 2.0])] }
    }

    #[test]
    fn sample_times_are_every_key_of_every_channel_and_the_midpoints() {
        assert_eq!(sample_times(&clip(&[0.0, 1.0])), vec![0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0]);
        assert_eq!(sample_times(&Clip::default()), vec![0.0]);
    }

    #[test]
    fn slot_lists_that_give_each_joint_the_same_weight_skin_alike() {
        assert_eq!(per_joint(&[(3, 0.5), (1, 0.25), (3, 0.25), (0, 0.0)]), vec![(1, 0.25), (3, 0.75)]);
        assert_eq!(per_joint(&[(1, 0.25), (3, 0.75), (7, f32::NAN)]), per_joint(&[(3, 0.75), (1, 0.25)]));
    }

    /// A vertex at (1, 0, 0) on joint 0 with weight 0.5; the clip moves joint 0 along x from
    /// 0 to 4 over keys 0, 1, 2 (samples 0, 0.5, 1, 1.5, 2). three.js draws it at weight 1:
    /// `0.5 |(1 + x, 0, 0)|` apart, worst 2.5 at t = 2.
    #[test]
    fn past_the_work_budget_every_nth_sample_and_the_last_are_compared() {
        use crate::rig::{InfluenceSet, Mesh, Node, Primitive, Skin};
        let set = InfluenceSet {
            joints: vec![[0; 4]].into(),
            weights: vec![[0.5, 0.0, 0.0, 0.0]].into(),
            ..InfluenceSet::default()
        };
        let mut moving = clip(&[0.0, 1.0, 2.0]);
        moving.channels.truncate(1);
        moving.channels[0].values = vec![0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 4.0, 0.0, 0.0].into();
        let rig = Rig {
            nodes: vec![Node::default(), Node { mesh: Some(0), skin: Some(0), ..Node::default() }],
            order: vec![0, 1],
            skins: vec![Skin { joints: vec![0], inverse_bind: vec![Mat4::IDENTITY], ..Skin::default() }],
            meshes: vec![Mesh {
                primitives: vec![Primitive {
                    positions: vec![Vec3::X].into(),
                    influences: vec![set],
                    ..Primitive::default()
                }],
                ..Mesh::default()
            }],
            clips: vec![moving],
            ..Rig::default()
        };
        let keeps = Engine::GlTfast { bones: 4 };
        let all = measure_within(&rig, &[(0, 0, 0)], &[Engine::Three, keeps], usize::MAX);
        assert_eq!((all.samples, all.sample_stride), (6, 1));
        // glTFast at 4 bones keeps the weights: nothing to measure, so it costs nothing.
        let d = all.of(0, 0, 0, Engine::Three).expect("measured");
        assert_eq!((d.distance, d.clip, d.time), (2.5, Some(0), 2.0));
        assert_eq!(all.of(0, 0, 0, keeps).map(|d| d.distance), Some(0.0));
        // 1 vertex-profile x 6 poses over a budget of 3: every 2nd sample (0, 1, 2) and the
        // last (2) of the clip, plus the rest pose.
        let some = measure_within(&rig, &[(0, 0, 0)], &[Engine::Three, keeps], 3);
        assert_eq!((some.samples, some.sample_stride), (4, 2));
        assert_eq!(some.of(0, 0, 0, Engine::Three), Some(d));
    }

    /// The screen only spares the kernel poses that cannot be the worst: every generated rig
    /// with weight problems, and CesiumMan-legacy's 210 vertices when the shared assets are
    /// there, measure the same with the kernel at every pose of every engine.
    #[test]
    fn the_screen_changes_no_measurement() {
        let mut rigs: Vec<Rig> = crate::samplegen::all()
            .into_iter()
            .chain(crate::samplegen::engine_fixtures())
            .map(|(name, bytes)| crate::import::load_bytes(&bytes, name, None).expect("a sample loads"))
            .collect();
        match std::env::var_os("RIGSCOPE_ASSETS") {
            Some(dir) => rigs.push(
                crate::import::load(&std::path::Path::new(&dir).join("CesiumMan-legacy/CesiumMan.glb"))
                    .expect("CesiumMan-legacy loads"),
            ),
            None => eprintln!("note: RIGSCOPE_ASSETS unset: CesiumMan-legacy not compared"),
        }
        let engines = measured_engines();
        let mut compared = 0;
        for rig in &rigs {
            let report = super::super::check(rig, &super::super::Options::default());
            let vertices = problem_vertices(rig, &report.findings);
            let screened = measure(rig, &vertices, &engines);
            assert_eq!(screened, measure_unscreened(rig, &vertices, &engines), "{}", rig.source);
            compared += screened.vertices.len();
        }
        assert!(compared > 0, "no sample has a problem vertex to compare");
    }
}
