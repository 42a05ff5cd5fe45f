//! Per-vertex checks of `JOINTS_n`/`WEIGHTS_n`: the validator's influence rules, plus
//! rigscope's ">4 influences" rule, and how many vertices each skin joint weights (what the
//! problems do on screen is measured in `consequence`).
//!
//! The rules follow `InfluencesChecker` in KhronosGroup/glTF-Validator
//! `lib/src/data_access/validate_accessors.dart` (the version that accumulates `_threshold`):
//! - the joint limit of a mesh is `min(skin.joints.length) - 1` over every node that uses the
//!   mesh with a skin (the first such skin in node order names the limit); a mesh no node
//!   uses with a skin is not checked at all, nor is a primitive whose joints/weights counts
//!   differ from its vertex count;
//! - components are visited in the order `for c in 0..4 { for set in sets { .. } }`;
//! - `joint > limit`: ACCESSOR_JOINTS_INDEX_OOB, and the weight is not read;
//! - `weight != 0`: the joint joins the vertex's joint set; if it was there already,
//!   ACCESSOR_JOINTS_INDEX_DUPLICATE. Then `weight < 0`: ACCESSOR_WEIGHTS_NEGATIVE; else if
//!   the joint was new: `sum = f32(sum + weight)` and `threshold += 2e-7`;
//! - `weight == 0` (so also -0.0) with `joint != 0`: ACCESSOR_JOINTS_USED_ZERO_WEIGHT;
//! - after the 4th component: `|sum - 1| > threshold` is ACCESSOR_WEIGHTS_NON_NORMALIZED.
//!   Like the validator (Dart doubles) this compares in f64; `sum` is an f32 so `sum - 1` is
//!   exact either way, and the f32/f64 choice only matters if a multiple of 2^-24 came within
//!   f32 rounding of `2e-7 * n`, which no n up to 64 does (see the test below).
//!   A NaN sum never compares greater; an infinite one always does.
//! - NaN or infinite float weights are ACCESSOR_INVALID_FLOAT at `/accessors/N`, once per
//!   accessor (the validator's per-accessor element checker), independent of the above.
//!
//! Normalised integer weights were decoded by import to `f32(c / 255)` (or 65535); the
//! validator sums `c / 255` in f64, so the integer code is recovered (`round(w * 255)`, exact
//! since the f32 error is far below half a step) and divided again in f64.
//!
//! The validator repeats ACCESSOR_WEIGHTS_NON_NORMALIZED once per `WEIGHTS_n` accessor;
//! rigscope reports it once per vertex (pointer `WEIGHTS_` of the first set), so counts differ
//! from the validator's only for primitives with more than one influence set.
//!
//! Hot loop: no allocation per vertex (scratch vectors are reused); a `Finding` and its
//! strings are built only when a rule fires.

use super::codes::{self, Code};
use super::finding::{Finding, Sink, VertexFinding, dart_num};
use crate::rig::{InfluenceSet, Mesh, Rig, WeightStorage};
use std::collections::HashSet;

/// How each mesh is skinned: the distinct skins nodes use it with, and the validator's limit.
#[derive(Debug, Clone, Default)]
pub(crate) struct MeshSkins {
    pub skins: Vec<usize>,
    /// `min(skin.joints.len())` and the first skin (node order) that has that many joints.
    pub limit: Option<(usize, usize)>,
}

/// For every mesh, the skins it is drawn with (validator: `maxJoints`, `limitingSkinIndex`).
pub(crate) fn mesh_skins(rig: &Rig) -> Vec<MeshSkins> {
    let mut out = vec![MeshSkins::default(); rig.meshes.len()];
    for node in &rig.nodes {
        let (Some(m), Some(s)) = (node.mesh, node.skin) else {
            continue;
        };
        let (Some(entry), Some(skin)) = (out.get_mut(m), rig.skins.get(s)) else {
            continue;
        };
        if !entry.skins.contains(&s) {
            entry.skins.push(s);
        }
        let count = skin.joints.len();
        if entry.limit.is_none_or(|(min, _)| count < min) {
            entry.limit = Some((count, s));
        }
    }
    out
}

/// One primitive's place in the summary table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PrimitiveSummary {
    pub mesh: usize,
    pub primitive: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mesh_name: Option<String>,
    pub vertices: usize,
    pub influence_sets: usize,
    /// False when the validator would skip the primitive's weights (no node uses the mesh
    /// with a skin, or joints/weights counts differ from the vertex count).
    pub checked: bool,
    /// Findings by code for this primitive (after `ignore`).
    pub counts: std::collections::BTreeMap<&'static str, usize>,
}

/// Runs the per-vertex rules over every skinned primitive. Returns, per skin, how many
/// vertices give each joint (by position in `skin.joints`) a summed, non-zero weight.
pub(crate) fn check_weights(
    rig: &Rig,
    sink: &mut Sink,
    summaries: &mut Vec<PrimitiveSummary>,
) -> Vec<Vec<u32>> {
    let mut joint_use: Vec<Vec<u32>> = rig.skins.iter().map(|s| vec![0; s.joints.len()]).collect();
    let mut scan = Scan::default();
    let mut float_checked: HashSet<usize> = HashSet::new();
    for (m, (mesh, skinning)) in rig.meshes.iter().zip(mesh_skins(rig)).enumerate() {
        let limit = skinning.limit.filter(|&(count, _)| count > 0);
        // Joint use is counted for every skin the mesh is drawn with, so up to the
        // largest; the validator's rules stop at the smallest (the limit).
        let widest = skinning.skins.iter().filter_map(|&s| rig.skins.get(s)).map(|s| s.joints.len()).max();
        let mut mesh_use = vec![0u32; limit.and(widest).unwrap_or(0)];
        for (p, prim) in mesh.primitives.iter().enumerate() {
            if !prim.is_skinned() {
                continue;
            }
            let vertices = prim.vertex_count();
            let sets = &prim.influences;
            let counts_match = sets.iter().all(|s| s.joints.len() == vertices && s.weights.len() == vertices);
            let checked = limit.is_some() && counts_match;
            summaries.push(summary(mesh, m, p, vertices, sets.len(), checked));
            let Some((count, limiting_skin)) = limit.filter(|_| checked) else {
                continue;
            };
            let ctx = PrimitiveCtx {
                mesh: m,
                primitive: p,
                sets,
                max_joint: count - 1,
                limiting_skin,
                skin_joints: rig.skins.get(limiting_skin).map_or(&[][..], |s| s.joints.as_slice()),
                float_check: sets
                    .iter()
                    .map(|s| {
                        s.weight_storage == WeightStorage::F32 && float_checked.insert(s.weights_accessor)
                    })
                    .collect(),
            };
            scan.primitive(&ctx, vertices, &mut mesh_use, sink);
        }
        for &s in &skinning.skins {
            if let Some(uses) = joint_use.get_mut(s) {
                for (total, &n) in uses.iter_mut().zip(&mesh_use) {
                    *total += n;
                }
            }
        }
    }
    joint_use
}

fn summary(mesh: &Mesh, m: usize, p: usize, vertices: usize, sets: usize, checked: bool) -> PrimitiveSummary {
    PrimitiveSummary {
        mesh: m,
        primitive: p,
        mesh_name: mesh.name.clone(),
        vertices,
        influence_sets: sets,
        checked,
        counts: Default::default(),
    }
}

struct PrimitiveCtx<'a> {
    mesh: usize,
    primitive: usize,
    sets: &'a [InfluenceSet],
    max_joint: usize,
    limiting_skin: usize,
    /// The limiting skin's joints (node numbers).
    skin_joints: &'a [usize],
    /// Per set: NaN/inf checks run for this set (float storage, accessor not yet checked).
    float_check: Vec<bool>,
}

/// A per-influence rule that fired, kept until the vertex's sum is known.
#[derive(Debug, Clone, Copy)]
struct Event {
    code: Code,
    set: usize,
    component: usize,
    joint: u16,
    value: f64,
}

/// Scratch state reused for every vertex.
#[derive(Default)]
struct Scan {
    /// Joints seen with a non-zero weight (the validator's `_currentIndices`).
    seen: Vec<u16>,
    /// Joints past the limit seen with a positive weight (counted once for joint use).
    beyond: Vec<u16>,
    /// The weights that went into the sum, in visiting order.
    summed: Vec<f32>,
    events: Vec<Event>,
}

/// The weight the validator reads: f32 as stored, or the integer code over 255 / 65535.
fn validator_weight(w: f32, storage: WeightStorage) -> f64 {
    let w = f64::from(w);
    match storage {
        WeightStorage::F32 => w,
        WeightStorage::U8Norm => (w * 255.0).round() / 255.0,
        WeightStorage::U16Norm => (w * 65535.0).round() / 65535.0,
    }
}

impl Scan {
    /// Every vertex of the primitive, in order. With one influence set, each goes through
    /// `CleanVertex::passes` first, in a loop per weight storage (so that the compiler can
    /// fix the storage in each), and only a vertex it does not pass takes the full scan.
    fn primitive(&mut self, ctx: &PrimitiveCtx, vertices: usize, mesh_use: &mut [u32], sink: &mut Sink) {
        let ([set], &[float_check]) = (ctx.sets, ctx.float_check.as_slice()) else {
            for v in 0..vertices {
                self.full_vertex(ctx, v, mesh_use, sink);
            }
            return;
        };
        let mut run = |storage: WeightStorage| {
            let clean = CleanVertex { max_joint: ctx.max_joint, storage, float_check };
            let influences = set.joints.iter().zip(set.weights.iter()).take(vertices);
            for (v, (joints, weights)) in influences.enumerate() {
                if !clean.passes(joints, weights, mesh_use) {
                    self.full_vertex(ctx, v, mesh_use, sink);
                }
            }
        };
        match set.weight_storage {
            WeightStorage::F32 => run(WeightStorage::F32),
            WeightStorage::U8Norm => run(WeightStorage::U8Norm),
            WeightStorage::U16Norm => run(WeightStorage::U16Norm),
        }
    }

    fn full_vertex(&mut self, ctx: &PrimitiveCtx, v: usize, mesh_use: &mut [u32], sink: &mut Sink) {
        self.seen.clear();
        self.beyond.clear();
        self.summed.clear();
        self.events.clear();
        let mut sum = 0.0f32;
        let mut threshold = 0.0f64;
        for c in 0..4 {
            for (i, set) in ctx.sets.iter().enumerate() {
                let (Some(joints), Some(weights)) = (set.joints.get(v), set.weights.get(v)) else {
                    continue;
                };
                let joint = joints[c];
                let raw = weights[c];
                if ctx.float_check[i] && !raw.is_finite() {
                    self.event(codes::INVALID_FLOAT, i, c, joint, f64::from(raw));
                }
                if usize::from(joint) > ctx.max_joint {
                    self.event(codes::JOINTS_INDEX_OOB, i, c, joint, 0.0);
                    // Out of range for the smallest skin the mesh is drawn with, but a
                    // larger skin's joint, which the weight then uses.
                    if validator_weight(raw, set.weight_storage) > 0.0 && !self.beyond.contains(&joint) {
                        self.beyond.push(joint);
                        if let Some(n) = mesh_use.get_mut(usize::from(joint)) {
                            *n += 1;
                        }
                    }
                    continue;
                }
                let w = validator_weight(raw, set.weight_storage);
                if w != 0.0 {
                    let unique = !self.seen.contains(&joint);
                    if unique {
                        self.seen.push(joint);
                    } else {
                        self.event(codes::JOINTS_INDEX_DUPLICATE, i, c, joint, w);
                    }
                    if w < 0.0 {
                        self.event(codes::WEIGHTS_NEGATIVE, i, c, joint, w);
                    } else if unique {
                        sum = (f64::from(sum) + w) as f32;
                        threshold += 2e-7;
                        self.summed.push(raw);
                        if let Some(n) = mesh_use.get_mut(usize::from(joint)) {
                            *n += 1;
                        }
                    }
                } else if joint != 0 {
                    self.event(codes::JOINTS_USED_ZERO_WEIGHT, i, c, joint, w);
                }
            }
        }
        let non_normalized = (f64::from(sum) - 1.0).abs() > threshold;
        let n = self.summed.len();
        if self.events.is_empty() && !non_normalized && n <= 4 {
            return;
        }
        self.report(ctx, v, sum, threshold, non_normalized, sink);
    }

    fn event(&mut self, code: Code, set: usize, component: usize, joint: u16, value: f64) {
        self.events.push(Event { code, set, component, joint, value });
    }

    /// Builds the findings of one vertex (only reached when a rule fired).
    fn report(
        &mut self,
        ctx: &PrimitiveCtx,
        v: usize,
        sum: f32,
        threshold: f64,
        non_normalized: bool,
        sink: &mut Sink,
    ) {
        let mut joints = Vec::with_capacity(ctx.sets.len() * 4);
        let mut weights = Vec::with_capacity(ctx.sets.len() * 4);
        for set in ctx.sets {
            if let (Some(j), Some(w)) = (set.joints.get(v), set.weights.get(v)) {
                joints.extend_from_slice(j);
                weights.extend_from_slice(w);
            }
        }
        let n = self.summed.len();
        let skin = ctx.skin_joints;
        let joint_nodes = joints.iter().map(|&j| skin.get(usize::from(j)).copied()).collect();
        let base = VertexFinding {
            vertex: v,
            set: None,
            component: None,
            joints,
            joint_nodes,
            weights,
            sum,
            n: n as u32,
            threshold,
            dropped_weight: None,
        };
        let attributes = format!("/meshes/{}/primitives/{}/attributes", ctx.mesh, ctx.primitive);
        let first = 4 * v;
        for e in &self.events {
            if !sink.wants(e.code) {
                continue;
            }
            let set = &ctx.sets[e.set];
            let index = first + e.component;
            let c = e.component;
            let (pointer, message) = match e.code.id {
                "ACCESSOR_INVALID_FLOAT" => (
                    format!("/accessors/{}", set.weights_accessor),
                    format!("Accessor element at index {index} is {}.", dart_num(e.value)),
                ),
                "ACCESSOR_JOINTS_INDEX_OOB" => (
                    format!("{attributes}/JOINTS_{}", set.set),
                    format!(
                        "Joints accessor element at index {index} (component index {c}) has value {} that is greater than the maximum joint index ({}) set by skin {}.",
                        e.joint, ctx.max_joint, ctx.limiting_skin
                    ),
                ),
                "ACCESSOR_JOINTS_INDEX_DUPLICATE" => (
                    format!("{attributes}/JOINTS_{}", set.set),
                    format!(
                        "Joints accessor element at index {index} (component index {c}) has value {} that is already in use for the vertex.",
                        e.joint
                    ),
                ),
                "ACCESSOR_WEIGHTS_NEGATIVE" => (
                    format!("{attributes}/WEIGHTS_{}", set.set),
                    format!(
                        "Weights accessor element at index {index} (component index {c}) has negative value {}.",
                        dart_num(e.value)
                    ),
                ),
                // ACCESSOR_JOINTS_USED_ZERO_WEIGHT, the only other per-influence event.
                _ => (
                    format!("{attributes}/JOINTS_{}", set.set),
                    format!(
                        "Joints accessor element at index {index} (component index {c}) is used with zero weight but has non-zero value ({}).",
                        e.joint
                    ),
                ),
            };
            sink.push(vertex_finding(
                e.code,
                ctx,
                pointer,
                message,
                VertexFinding { set: Some(set.set), component: Some(c), ..base.clone() },
            ));
        }
        if non_normalized && sink.wants(codes::WEIGHTS_NON_NORMALIZED) {
            let first_set = ctx.sets.first().map_or(0, |s| s.set);
            let message = format!(
                "Weights accessor elements (at indices {}..{}) have non-normalized sum: {}.",
                first,
                first + 3,
                dart_num(f64::from(sum))
            );
            sink.push(vertex_finding(
                codes::WEIGHTS_NON_NORMALIZED,
                ctx,
                format!("{attributes}/WEIGHTS_{first_set}"),
                message,
                base.clone(),
            ));
        }
        if n > 4 && sink.wants(codes::MORE_THAN_4_INFLUENCES) {
            self.summed.sort_by(|a, b| b.total_cmp(a));
            let dropped: f32 = self.summed[4..].iter().sum();
            let message = format!(
                "Vertex has {n} non-zero influences; an engine that keeps the 4 largest drops {dropped} of its weight."
            );
            let first_set = ctx.sets.first().map_or(0, |s| s.set);
            sink.push(vertex_finding(
                codes::MORE_THAN_4_INFLUENCES,
                ctx,
                format!("{attributes}/WEIGHTS_{first_set}"),
                message,
                VertexFinding { dropped_weight: Some(dropped), ..base },
            ));
        }
    }
}

/// The usual vertex in one pass, without the scratch vectors (the full scan was most of a
/// large rig's wait before its first frame): one influence set and no rule fires.
struct CleanVertex {
    max_joint: usize,
    storage: WeightStorage,
    float_check: bool,
}

impl CleanVertex {
    /// Takes `Scan::full_vertex`'s steps in its order (same sum, same threshold) and returns
    /// false, having changed nothing, wherever that would record an event or a finding, so
    /// the full scan then runs and reports it.
    #[inline(always)]
    fn passes(&self, joints: &[u16; 4], weights: &[f32; 4], mesh_use: &mut [u32]) -> bool {
        let mut seen = [0u16; 4];
        let mut n = 0;
        let mut sum = 0.0f32;
        let mut threshold = 0.0f64;
        for (&joint, &raw) in joints.iter().zip(weights) {
            if (self.float_check && !raw.is_finite()) || usize::from(joint) > self.max_joint {
                return false;
            }
            let w = validator_weight(raw, self.storage);
            if w != 0.0 {
                if w < 0.0 || seen[..n].contains(&joint) {
                    return false;
                }
                seen[n] = joint;
                n += 1;
                sum = (f64::from(sum) + w) as f32;
                threshold += 2e-7;
            } else if joint != 0 {
                return false;
            }
        }
        if (f64::from(sum) - 1.0).abs() > threshold {
            return false;
        }
        for &joint in &seen[..n] {
            if let Some(uses) = mesh_use.get_mut(usize::from(joint)) {
                *uses += 1;
            }
        }
        true
    }
}

fn vertex_finding(
    code: Code,
    ctx: &PrimitiveCtx,
    pointer: String,
    message: String,
    vertex: VertexFinding,
) -> Finding {
    Finding {
        code: code.id,
        severity: code.severity,
        pointer,
        message,
        mesh: Some(ctx.mesh),
        primitive: Some(ctx.primitive),
        vertex: Some(vertex),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass path against the full scan on vertices that break each rule (and on
    /// clean ones): wherever it accepts a vertex, the full scan finds nothing and counts
    /// the same joints; wherever it declines, it has counted nothing.
    #[test]
    fn the_one_pass_path_accepts_exactly_what_the_full_scan_finds_clean() {
        let third = 1.0f32 / 3.0;
        let rows: Vec<([u16; 4], [f32; 4])> = vec![
            ([0, 1, 2, 3], [0.25, 0.25, 0.25, 0.25]),
            ([2, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
            ([1, 2, 3, 0], [third, third, third, 0.0]),
            ([0, 1, 0, 0], [0.5, 0.5, 0.0, 0.0]),
            ([0, 1, 2, 0], [0.5, 0.5, 0.0, 0.0]), // zero weight on joint 2
            ([0, 0, 0, 0], [0.5, 0.5, 0.0, 0.0]), // duplicate joint 0
            ([0, 9, 0, 0], [0.5, 0.5, 0.0, 0.0]), // out of range
            ([0, 1, 0, 0], [1.5, -0.5, 0.0, 0.0]), // negative
            ([0, 1, 0, 0], [0.5, 0.4, 0.0, 0.0]), // not normalised
            ([0, 1, 0, 0], [0.5, f32::NAN, 0.0, 0.0]),
            ([0, 1, 0, 0], [f32::INFINITY, 0.0, 0.0, 0.0]),
            ([0, 0, 0, 0], [0.0, 0.0, 0.0, 0.0]),
            ([3, 2, 1, 0], [0.5000001, 0.2499999, 0.25, 0.0]),
            ([3, 2, 1, 0], [0.5001, 0.2499, 0.25, 0.0]),
        ];
        for float_check in [true, false] {
            for storage in [WeightStorage::F32, WeightStorage::U8Norm] {
                let set = InfluenceSet {
                    set: 0,
                    joints: rows.iter().map(|r| r.0).collect(),
                    weights: rows.iter().map(|r| r.1).collect(),
                    weight_storage: storage,
                    joints_accessor: 0,
                    weights_accessor: 1,
                };
                let sets = [set];
                let ctx = PrimitiveCtx {
                    mesh: 0,
                    primitive: 0,
                    sets: &sets,
                    max_joint: 3,
                    limiting_skin: 0,
                    skin_joints: &[0, 1, 2, 3],
                    float_check: vec![float_check],
                };
                for (v, (joints, weights)) in rows.iter().enumerate() {
                    let mut fast_use = [0u32; 4];
                    let clean = CleanVertex { max_joint: ctx.max_joint, storage, float_check };
                    let accepted = clean.passes(joints, weights, &mut fast_use);
                    // The full scan alone: its own sets of events, sums and counts.
                    let mut full_use = [0u32; 4];
                    let mut scan = Scan::default();
                    let mut sink = Sink::new(&[]);
                    scan.full_vertex(&ctx, v, &mut full_use, &mut sink);
                    let clean = sink.findings.is_empty();
                    assert_eq!(accepted, clean, "row {v}, storage {storage:?}, float check {float_check}");
                    if accepted {
                        assert_eq!(fast_use, full_use, "row {v}");
                    } else {
                        assert_eq!(fast_use, [0; 4], "row {v}");
                    }
                }
            }
        }
    }
}
