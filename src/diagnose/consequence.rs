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

use super::screen::{LANES, Screen, Weighting, column_lengths};
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
    /// The distinct ways the measured engines draw the vertex: engines that skin the same
    /// list with the same fate draw the same point, so it is placed once for all of them.
    /// An engine is not measured when it gives every joint the same total weight as the
    /// stored slots do and skins the vertex plainly (it draws it in the same place), when
    /// the vertex vanishes there in every pose, or when it would not load the file.
    measures: Vec<Measure>,
    /// Some measure draws the vertex where the bind pose puts it (`Fate::Undeformed`).
    undeformed: bool,
    /// Bounds for the measures that skin plainly or divide, when they can be bounded.
    screen: Option<Screen>,
}

/// One list and fate of a target, and the engines (indices into `measure`'s) drawing so.
struct Measure {
    list: usize,
    fate: Fate,
    engines: Vec<usize>,
    /// Its lane in the target's screen, when the screen bounds it.
    lane: Option<usize>,
    /// The highest lower bound over the poses screened so far.
    low: f32,
    /// The poses whose upper bound reached `low` when screened, with that bound; after the
    /// screen, the poses the kernel measures it at, ascending.
    kept: Vec<(usize, f32)>,
    /// `kept`'s length when last pruned, so that pruning stays linear over the poses.
    pruned: usize,
    /// Measured at every pose: the screen does not bound it.
    every: bool,
}

impl Measure {
    fn screened(&mut self, pose: usize, low: f32, high: f32) {
        self.low = self.low.max(low);
        if high < self.low {
            return;
        }
        self.kept.push((pose, high));
        if self.kept.len() > 2 * self.pruned.max(32) {
            let low = self.low;
            self.kept.retain(|k| k.1 >= low);
            self.pruned = self.kept.len();
        }
    }

    /// Whether the kernel measures it at `pose`, asked for ascending poses: `kept` is
    /// consumed from the front.
    fn at(&self, pose: usize, next: &mut usize) -> bool {
        if self.every {
            return true;
        }
        let hit = self.kept.get(*next).is_some_and(|k| k.0 == pose);
        *next += usize::from(hit);
        hit
    }
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

    /// Engine `e` draws the vertex with list `list` and `fate`.
    fn measure(&mut self, list: usize, fate: Fate, e: usize) {
        let same = |m: &&mut Measure| m.list == list && same_fate(m.fate, fate);
        match self.measures.iter_mut().find(same) {
            Some(m) => m.engines.push(e),
            None => self.measures.push(Measure {
                list,
                fate,
                engines: vec![e],
                lane: None,
                low: f32::NEG_INFINITY,
                kept: Vec::new(),
                pruned: 0,
                every: true,
            }),
        }
        self.undeformed |= fate == Fate::Undeformed;
    }

    /// Gives the measures that skin plainly or divide a lane of a screen, if they can be
    /// bounded.
    fn screen(&mut self, joint_count: usize) {
        let divisor = |fate: Fate| match fate {
            Fate::Skinned => Some(1.0),
            Fate::Divided(sum) => Some(sum),
            _ => None,
        };
        let slots = |l: usize| &self.slots[self.lists[l].0.clone()];
        let weightings: Vec<Weighting> = (self.measures.iter())
            .filter_map(|m| Some(Weighting { slots: slots(m.list), divisor: divisor(m.fate)? }))
            .collect();
        if weightings.is_empty() {
            return;
        }
        self.screen = Screen::new(slots(0), &weightings, joint_count);
        if self.screen.is_some() {
            let screened = self.measures.iter_mut().filter(|m| divisor(m.fate).is_some());
            for (lane, m) in screened.enumerate() {
                m.lane = Some(lane);
                m.every = false;
                m.kept.reserve(64);
            }
        }
    }

    /// The screen could not bound a pose: every measure is measured at every pose.
    fn unscreen(&mut self) {
        self.screen = None;
        for m in &mut self.measures {
            m.every = true;
        }
    }
}

/// Fates that place a skinned point identically (a divisor compared by its bits, so that a
/// NaN sum groups with itself).
fn same_fate(a: Fate, b: Fate) -> bool {
    match (a, b) {
        (Fate::Divided(x), Fate::Divided(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
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

/// Everything a vertex's measurement depends on, bit for bit: its primitive, position, morph
/// deltas and every influence slot. Two vertices with the same key measure the same (a mesh
/// split along its UV seams repeats each seam vertex), so only the first is measured.
fn vertex_key(rig: &Rig, mesh: usize, primitive: usize, vertex: usize) -> Option<Vec<u32>> {
    let prim = rig.meshes.get(mesh)?.primitives.get(primitive)?;
    let bits = |v: Vec3| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()];
    let mut key = vec![mesh as u32, primitive as u32];
    key.extend(bits(*prim.positions.get(vertex)?));
    for target in prim.morph_targets.iter() {
        match target.positions.as_ref().and_then(|d| d.get(vertex)) {
            Some(&d) => key.extend(bits(d)),
            None => key.push(u32::MAX),
        }
    }
    for set in &prim.influences {
        match (set.joints.get(vertex), set.weights.get(vertex)) {
            (Some(j), Some(w)) => {
                key.extend(j.iter().map(|&j| u32::from(j)));
                key.extend(w.iter().map(|w| w.to_bits()));
            }
            _ => key.push(u32::MAX),
        }
    }
    Some(key)
}

/// Measures `engines` on `vertices` (mesh, primitive, vertex). A vertex no node draws with a
/// skin is listed with zero displacement (engines only change skinned vertices).
pub fn measure(rig: &Rig, vertices: &[(usize, usize, usize)], engines: &[Engine]) -> Consequences {
    measure_from(BindStart::new(rig), rig, vertices, engines, MAX_WORK)
}

/// `measure` from a `BindStart` of `rig` made beforehand.
pub fn measure_with(
    start: BindStart,
    rig: &Rig,
    vertices: &[(usize, usize, usize)],
    engines: &[Engine],
) -> Consequences {
    measure_from(start, rig, vertices, engines, MAX_WORK)
}

/// `measure` with `max_work` in place of `MAX_WORK`.
#[cfg(test)]
fn measure_within(
    rig: &Rig,
    vertices: &[(usize, usize, usize)],
    engines: &[Engine],
    max_work: usize,
) -> Consequences {
    measure_from(BindStart::new(rig), rig, vertices, engines, max_work)
}

fn measure_from(
    start: BindStart,
    rig: &Rig,
    vertices: &[(usize, usize, usize)],
    engines: &[Engine],
    max_work: usize,
) -> Consequences {
    let BindStart { mut ws, diagonal } = start;
    let refusals: Vec<Option<String>> = engines.iter().map(|e| e.refusal(rig)).collect();
    let zero = Displacement {
        distance: 0.0,
        fraction: 0.0,
        clip: None,
        time: 0.0,
        vanishes: false,
        stored_vanishes: false,
    };
    let mut worst = vec![vec![zero; engines.len()]; vertices.len()];
    // Rows that repeat an earlier row's key take its result at the end: (row, earlier row).
    let mut repeats = Vec::new();
    let mut first_of = std::collections::HashMap::new();
    let mut targets = Vec::new();
    // Vertex-profile pairs to measure, repeated rows counted, for the work budget.
    let mut pairs = 0usize;
    let mut scratch = Vec::new();
    for (row, &(mesh, primitive, vertex)) in vertices.iter().enumerate() {
        let Some(prim) = rig.meshes.get(mesh).and_then(|m| m.primitives.get(primitive)) else {
            continue;
        };
        if vertex >= prim.vertex_count() {
            continue;
        }
        let first = vertex_key(rig, mesh, primitive, vertex).map(|key| *first_of.entry(key).or_insert(row));
        let repeated = first.is_some_and(|f| f != row);
        if let Some(f) = first.filter(|_| repeated) {
            repeats.push((row, f));
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
                measures: Vec::new(),
                undeformed: false,
                screen: None,
            };
            t.list(&stored, false);
            // Weights this large can carry the stored point past f32's range, and an engine
            // that draws the vertex where the stored weights do then gives it no position
            // either: it is measured too, to say so.
            let may_overflow = stored.iter().any(|s| s.1.abs() >= HUGE_WEIGHT);
            for (e, (&engine, refused)) in engines.iter().zip(&refusals).enumerate() {
                let fate = drawn_vertex(engine, &prim.influences, vertex, joints, &mut scratch);
                let same = fate == Fate::Skinned && per_joint(&scratch) == base && !may_overflow;
                if refused.is_some() || same {
                    continue;
                }
                pairs += 1;
                if fate == Fate::Vanishes {
                    worst[row][e].vanishes = true;
                } else if !repeated {
                    let list = t.list(&scratch, fate == Fate::FromOrigin);
                    t.measure(list, fate, e);
                }
            }
            if !t.measures.is_empty() {
                t.screen(joints);
                targets.push(t);
            }
        }
    }
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
    screen_poses(rig, &mut ws, &poses, &mut targets);
    let every = targets.iter().flat_map(|t| &t.measures).any(|m| m.every);
    let mut needed = vec![every; poses.len()];
    for k in targets.iter().flat_map(|t| &t.measures).flat_map(|m| &m.kept) {
        needed[k.0] = true;
    }
    let mut next: Vec<Vec<usize>> = targets.iter().map(|t| vec![0; t.measures.len()]).collect();
    let (mut skinned, mut here) = (Vec::new(), Vec::new());
    for (i, &(clip, time)) in poses.iter().enumerate().filter(|&(i, _)| needed[i]) {
        ws.sample_pose(rig, clip.and_then(|c| rig.clips.get(c)), time);
        ws.update_matrices(rig);
        for (t, next) in targets.iter().zip(&mut next) {
            here.clear();
            here.extend(t.measures.iter().zip(next.iter_mut()).map(|(m, n)| m.at(i, n)));
            if !here.contains(&true) {
                continue;
            }
            let Some(joints) = ws.joint_matrices.get(t.skin) else { continue };
            let p = morphed(rig, &ws, t);
            skin_point_lists(joints, p, &t.slots, &t.lists, &mut skinned);
            let stored = skinned[0];
            let placement = if t.undeformed { ws.placement(t.skin) } else { glam::Mat4::IDENTITY };
            for m in t.measures.iter().zip(&here).filter(|h| *h.1).map(|h| h.0) {
                let drawn = drawn_point(m.fate, skinned[m.list], p, &placement);
                // Drawn where the stored weights give no position: as far as can be.
                let distance = if stored.is_finite() { drawn.distance(stored) } else { f32::INFINITY };
                for &e in &m.engines {
                    let best = &mut worst[t.row][e];
                    if best.vanishes {
                        continue;
                    }
                    if !drawn.is_finite() {
                        *best = Displacement { vanishes: true, clip, time, ..zero };
                    } else if distance > best.distance {
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
    }
    for (row, first) in repeats {
        worst[row] = worst[first].clone();
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

/// The screen's pass over every pose: each screened measure keeps only the poses whose upper
/// bound reaches the highest lower bound over all of them (no other can hold its worst, or
/// tie it). `ws` is left at the last pose.
fn screen_poses(rig: &Rig, ws: &mut Workspace, poses: &[(Option<usize>, f32)], targets: &mut [Target]) {
    if targets.iter().all(|t| t.screen.is_none()) {
        return;
    }
    let mut lengths: Vec<Vec<glam::Vec4>> = vec![Vec::new(); rig.skins.len()];
    let (mut low, mut high) = ([0.0; LANES], [0.0; LANES]);
    for (i, &(clip, time)) in poses.iter().enumerate() {
        ws.sample_pose(rig, clip.and_then(|c| rig.clips.get(c)), time);
        ws.update_matrices(rig);
        for (joints, lengths) in ws.joint_matrices.iter().zip(&mut lengths) {
            column_lengths(joints, lengths);
        }
        for t in targets.iter_mut() {
            let p = morphed(rig, ws, t);
            let joints = ws.joint_matrices.get(t.skin).map_or(&[][..], Vec::as_slice);
            let lengths = lengths.get(t.skin).map_or(&[][..], Vec::as_slice);
            let Some(screen) = t.screen.as_mut() else { continue };
            if !screen.bounds(joints, lengths, p, &mut low, &mut high) {
                t.unscreen();
                continue;
            }
            for m in &mut t.measures {
                if let Some(l) = m.lane {
                    m.screened(i, low[l], high[l]);
                }
            }
        }
    }
    for m in targets.iter_mut().flat_map(|t| &mut t.measures).filter(|m| !m.every) {
        let low = m.low;
        m.kept.retain(|k| k.1 >= low);
    }
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

    /// The measurement as the spec states it, one engine, one vertex and one pose at a time,
    /// with the kernel's single-list point function: what grouping engines by list and
    /// fate, and measuring a repeated vertex once, must not change.
    fn measure_one_by_one(
        rig: &Rig,
        vertices: &[(usize, usize, usize)],
        engines: &[Engine],
    ) -> Vec<Vec<Displacement>> {
        use crate::anim::{skin_point, skinned_input};
        let mut ws = Workspace::at_bind(rig);
        let diagonal = model_size_at_bind(&ws);
        let zero = Displacement {
            distance: 0.0,
            fraction: 0.0,
            clip: None,
            time: 0.0,
            vanishes: false,
            stored_vanishes: false,
        };
        let mut poses = vec![(None, 0.0)];
        for (c, clip) in rig.clips.iter().enumerate() {
            poses.extend(sample_times(clip).into_iter().map(|t| (Some(c), t)));
        }
        let mut out = Vec::new();
        let mut slots = Vec::new();
        for &(mesh, primitive, vertex) in vertices {
            let prim = &rig.meshes[mesh].primitives[primitive];
            let stored: Vec<(u16, f32)> = prim.influences_of(vertex).collect();
            let huge = stored.iter().any(|s| s.1.abs() >= HUGE_WEIGHT);
            let mut row = vec![zero; engines.len()];
            for (e, &engine) in engines.iter().enumerate() {
                if engine.refusal(rig).is_some() {
                    continue;
                }
                let best = &mut row[e];
                for &(clip, time) in &poses {
                    ws.sample_pose(rig, clip.and_then(|c| rig.clips.get(c)), time);
                    ws.update_matrices(rig);
                    let drawers: Vec<(usize, usize)> = (ws.primitives.iter())
                        .filter(|d| (d.mesh, d.primitive) == (mesh, primitive))
                        .filter_map(|d| Some((d.node, d.skin?)))
                        .collect();
                    for (node, skin) in drawers {
                        let fate = drawn_vertex(
                            engine,
                            &prim.influences,
                            vertex,
                            rig.skins[skin].joints.len(),
                            &mut slots,
                        );
                        if fate == Fate::Skinned && per_joint(&slots) == per_joint(&stored) && !huge {
                            continue;
                        }
                        if fate == Fate::Vanishes {
                            best.vanishes = true;
                        }
                        if best.vanishes {
                            continue;
                        }
                        let joints = &ws.joint_matrices[skin];
                        let weights = ws.pose.morph_weights.get(node).map_or(&[][..], Vec::as_slice);
                        let p = morphed_position(&prim.positions, &prim.morph_targets, weights, vertex);
                        let at = skin_point(&stored, joints, p);
                        let drawn = drawn_point(
                            fate,
                            skin_point(&slots, joints, skinned_input(fate, p)),
                            p,
                            &ws.placement(skin),
                        );
                        if !drawn.is_finite() {
                            *best = Displacement { vanishes: true, clip, time, ..zero };
                            continue;
                        }
                        let distance = if at.is_finite() { drawn.distance(at) } else { f32::INFINITY };
                        if distance > best.distance {
                            *best = Displacement {
                                distance,
                                fraction: if diagonal > 0.0 || !at.is_finite() {
                                    distance / diagonal
                                } else {
                                    0.0
                                },
                                clip,
                                time,
                                vanishes: false,
                                stored_vanishes: !at.is_finite(),
                            };
                        }
                    }
                }
            }
            out.push(row);
        }
        out
    }

    /// Every generated rig with weight problems, and CesiumMan-legacy's 210 vertices (many
    /// of them seam copies) when the shared assets are there, measure the same one by one.
    #[test]
    fn grouped_measurement_equals_the_one_by_one_measurement() {
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
            let grouped = measure(rig, &vertices, &engines);
            assert_eq!(grouped.sample_stride, 1, "{}: the reference samples every pose", rig.source);
            let rows: Vec<Vec<Displacement>> =
                grouped.vertices.iter().map(|r| r.engines.iter().map(|e| e.1).collect()).collect();
            assert_eq!(rows, measure_one_by_one(rig, &vertices, &engines), "{}", rig.source);
            compared += rows.len();
        }
        assert!(compared > 0, "no sample has a problem vertex to compare");
    }
}
