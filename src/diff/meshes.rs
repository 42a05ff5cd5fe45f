//! Mesh primitives: matched by their node (and primitive index), compared by weights per
//! vertex (by matched joint, so a reordered joint list is no change) and by skinned
//! positions in the rest pose and over every matched clip, when the vertex counts agree.

use std::collections::BTreeMap;

use serde::Serialize;

use super::clips::ClipSamples;
use super::joints::JointMap;
use crate::anim::Workspace;
use crate::rig::{Primitive, Rig};

/// Skinning work per clip is capped at about this many vertices x samples per side: a big
/// mesh is compared at every k-th sample time rather than every one.
const MAX_VERTEX_SAMPLES: usize = 20_000_000;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WeightPeak {
    pub vertex: usize,
    pub joint: String,
    pub a: f32,
    pub b: f32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WeightChanges {
    /// Vertices with any joint's weight changed by more than the tolerance.
    pub vertices: usize,
    /// The largest change of one joint's weight on one vertex.
    pub largest: WeightPeak,
    /// Each changed vertex with its largest change, largest first (at most `MAX_LISTED`).
    pub changes: Vec<WeightPeak>,
}

/// Changed vertices listed one by one; `vertices` still counts them all.
pub const MAX_LISTED: usize = 1000;

/// The largest distance between a vertex's skinned positions in `a` and `b`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeformedPeak {
    pub vertex: usize,
    pub distance: f32,
    /// The clip and time it was found at (null: the rest pose).
    pub clip: Option<String>,
    pub time: Option<f32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MeshChange {
    /// `node/primitive` labels: the node drawing the mesh and the primitive index.
    pub primitive: String,
    /// `[a, b]` vertex counts when they differ: nothing per vertex is compared then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology_differs: Option<[usize; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<WeightChanges>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deformed: Option<DeformedPeak>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MeshChanges {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<MeshChange>,
}

impl MeshChanges {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

pub fn compare_meshes(a: &Rig, b: &Rig, map: &JointMap, samples: &[ClipSamples], tol: f32) -> MeshChanges {
    let mut wa = Workspace::new(a);
    let mut wb = Workspace::new(b);
    let label = |rig: &Rig, node: usize, primitive: usize| format!("{}/{primitive}", rig.node_label(node));
    // (index in wa.primitives, index in wb.primitives)
    let mut pairs = Vec::new();
    for (i, p) in wa.primitives.iter().enumerate() {
        let target = map.a_to_b.get(p.node).copied().flatten();
        if let Some(j) =
            wb.primitives.iter().position(|q| Some(q.node) == target && q.primitive == p.primitive)
        {
            pairs.push((i, j));
        }
    }
    let mut out = MeshChanges {
        added: (0..wb.primitives.len())
            .filter(|j| !pairs.iter().any(|p| p.1 == *j))
            .map(|j| label(b, wb.primitives[j].node, wb.primitives[j].primitive))
            .collect(),
        removed: (0..wa.primitives.len())
            .filter(|i| !pairs.iter().any(|p| p.0 == *i))
            .map(|i| label(a, wa.primitives[i].node, wa.primitives[i].primitive))
            .collect(),
        changed: Vec::new(),
    };
    let mut changes: Vec<MeshChange> = pairs
        .iter()
        .map(|&(_, j)| MeshChange {
            primitive: label(b, wb.primitives[j].node, wb.primitives[j].primitive),
            ..MeshChange::default()
        })
        .collect();
    let mut same_topology = Vec::new();
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let (pa, pb) = (source(a, &wa, i), source(b, &wb, j));
        let (Some(pa), Some(pb)) = (pa, pb) else { continue };
        if pa.vertex_count() != pb.vertex_count() {
            changes[k].topology_differs = Some([pa.vertex_count(), pb.vertex_count()]);
            continue;
        }
        same_topology.push(k);
        let skin_a = wa.primitives[i].skin.map(|s| &a.skins[s].joints[..]).unwrap_or(&[]);
        let skin_b = wb.primitives[j].skin.map(|s| &b.skins[s].joints[..]).unwrap_or(&[]);
        changes[k].weights = weight_changes(pa, pb, skin_a, skin_b, map, a, b, tol);
    }
    // Rest pose, then every matched clip at its sample times.
    let mut peaks: Vec<Option<DeformedPeak>> = vec![None; pairs.len()];
    let mut measure = |wa: &Workspace, wb: &Workspace, clip: Option<&str>, t: Option<f32>| {
        for &k in &same_topology {
            let (i, j) = pairs[k];
            let (pa, pb) = (&wa.primitives[i].positions, &wb.primitives[j].positions);
            for (v, (x, y)) in pa.iter().zip(pb).enumerate() {
                let distance = x.distance(*y);
                if distance > tol && peaks[k].as_ref().is_none_or(|p| distance > p.distance) {
                    peaks[k] =
                        Some(DeformedPeak { vertex: v, distance, clip: clip.map(str::to_string), time: t });
                }
            }
        }
    };
    measure(&wa, &wb, None, None);
    let vertices: usize = same_topology.iter().map(|&k| wa.primitives[pairs[k].0].positions.len()).sum();
    if vertices > 0 {
        for s in samples {
            let stride = (vertices * s.times.len()).div_ceil(MAX_VERTEX_SAMPLES).max(1);
            for &t in s.times.iter().step_by(stride) {
                wa.evaluate(a, a.clips.get(s.a), t);
                wb.evaluate(b, b.clips.get(s.b), t);
                measure(&wa, &wb, Some(&s.label), Some(t));
            }
        }
    }
    for (k, peak) in peaks.into_iter().enumerate() {
        changes[k].deformed = peak;
    }
    out.changed = changes
        .into_iter()
        .filter(|c| c.topology_differs.is_some() || c.weights.is_some() || c.deformed.is_some())
        .collect();
    out
}

/// The rig's primitive behind a workspace entry.
fn source<'r>(rig: &'r Rig, ws: &Workspace, i: usize) -> Option<&'r Primitive> {
    let p = ws.primitives.get(i)?;
    rig.meshes.get(p.mesh)?.primitives.get(p.primitive)
}

/// Each vertex's weights summed per joint node (finite, non-zero, in-range influences), the
/// nodes of `a` mapped to `b`'s so that both sides name joints the same way.
fn joint_weights(p: &Primitive, v: usize, joints: &[usize], to_b: Option<&JointMap>) -> BTreeMap<i64, f32> {
    let mut out = BTreeMap::new();
    for (j, w) in p.influences_of(v) {
        let Some(&node) = joints.get(usize::from(j)) else { continue };
        if w == 0.0 || !w.is_finite() {
            continue;
        }
        // A joint of `a` with no match in `b` keeps a key no node of `b` can have.
        let key = match to_b {
            Some(map) => map.a_to_b.get(node).copied().flatten().map_or(-1 - node as i64, |m| m as i64),
            None => node as i64,
        };
        *out.entry(key).or_insert(0.0) += w;
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn weight_changes(
    pa: &Primitive,
    pb: &Primitive,
    skin_a: &[usize],
    skin_b: &[usize],
    map: &JointMap,
    a: &Rig,
    b: &Rig,
    tol: f32,
) -> Option<WeightChanges> {
    // Each changed vertex's largest change, then the largest first.
    let mut peaks: Vec<(f32, WeightPeak)> = Vec::new();
    for v in 0..pa.vertex_count() {
        let wa = joint_weights(pa, v, skin_a, Some(map));
        let wb = joint_weights(pb, v, skin_b, None);
        let mut peak: Option<(f32, i64, f32, f32)> = None;
        for key in wa.keys().chain(wb.keys()) {
            let (x, y) = (wa.get(key).copied().unwrap_or(0.0), wb.get(key).copied().unwrap_or(0.0));
            let delta = (x - y).abs();
            if delta > tol && peak.is_none_or(|p| delta > p.0) {
                peak = Some((delta, *key, x, y));
            }
        }
        if let Some((delta, key, x, y)) = peak {
            // A joint only `a` has keeps `a`'s name (its key is -1 - node in `a`).
            let joint = if key >= 0 { b.node_label(key as usize) } else { a.node_label((-1 - key) as usize) };
            peaks.push((delta, WeightPeak { vertex: v, joint, a: x, b: y }));
        }
    }
    let vertices = peaks.len();
    peaks.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.vertex.cmp(&y.1.vertex)));
    peaks.truncate(MAX_LISTED);
    let mut changes = peaks.into_iter().map(|(_, p)| p);
    let largest = changes.next()?;
    let mut listed = vec![largest.clone()];
    listed.extend(changes);
    Some(WeightChanges { vertices, largest, changes: listed })
}
