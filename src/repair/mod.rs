//! Weight repair: a pure function from a `Rig` to new `JOINTS_n`/`WEIGHTS_n` data that passes
//! the Khronos validator's influence rule (see `rule`), in the same sets and component types.
//!
//! Nothing here reads or writes files, and the `Rig` is not changed: `export` writes the
//! result into a copy of the glTF file. Only primitives the validator checks are repaired:
//! those of meshes that some node draws with a skin (the joint limit and root joint come from
//! that skin, the validator's "limiting" skin: the one with the fewest joints, first in node
//! order). Within them only vertices that fail the rule, warn, or that the options change
//! are rewritten; the others keep their stored bytes. `movement` measures what a repair does
//! to the posed mesh.

mod movement;
mod quantize;
mod rule;
mod vertex;

pub use movement::{Movement, VertexRef, clip_movement, rest_movement};
pub use vertex::{StoredSlot, StoredWeight};

use crate::rig::{InfluenceSet, Rig, WeightStorage};
use vertex::{Limits, Scratch, repair_vertex};

/// What to do beyond making weights valid.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Options {
    /// Keep at most this many influences per vertex (the smallest go, the rest renormalise).
    pub max_influences: Option<usize>,
    /// Drop normalised weights below this (never a vertex's largest), then renormalise.
    pub prune_below: Option<f32>,
}

/// Options that cannot be applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OptionsError {
    #[error("--max-influences must be at least 1")]
    NoInfluences,
    #[error("--prune must be a number from 0 up to (not including) 1, not {0}")]
    PruneOutOfRange(f32),
}

impl Options {
    pub fn validate(&self) -> Result<(), OptionsError> {
        if self.max_influences == Some(0) {
            return Err(OptionsError::NoInfluences);
        }
        if let Some(p) = self.prune_below
            && !(p.is_finite() && (0.0..1.0).contains(&p))
        {
            return Err(OptionsError::PruneOutOfRange(p));
        }
        Ok(())
    }
}

/// The repaired data of one `WEIGHTS_n` accessor, in its component type.
#[derive(Debug, Clone, PartialEq)]
pub enum WeightData {
    F32(Vec<[f32; 4]>),
    U8(Vec<[u8; 4]>),
    U16(Vec<[u16; 4]>),
}

/// New data for one `JOINTS_n`/`WEIGHTS_n` pair.
#[derive(Debug, Clone, PartialEq)]
pub struct RepairedSet {
    /// The `n` of the pair.
    pub set: usize,
    /// The accessors the primitive used until now.
    pub joints_accessor: usize,
    pub weights_accessor: usize,
    pub joints: Vec<[u16; 4]>,
    pub weights: WeightData,
    /// The old weights held a NaN or infinite value. The validator checks every float
    /// accessor, used or not, so `export` empties the old one once nothing uses it.
    pub old_non_finite: bool,
}

/// One primitive's repair.
#[derive(Debug, Clone, PartialEq)]
pub struct RepairedPrimitive {
    pub mesh: usize,
    pub primitive: usize,
    pub vertices: usize,
    /// Vertices whose stored slots changed.
    pub touched: usize,
    /// Vertices with no usable weight, given wholly to the root joint.
    pub rooted: usize,
    /// Vertices that still fail the rule after repair (0 unless something is badly wrong;
    /// reported rather than hidden).
    pub unresolved: usize,
    /// Largest change of one joint's total weight in one vertex.
    pub max_weight_change: f64,
    /// The joint that took vertices with no usable weight (index into the skin's joints).
    pub root_joint: usize,
    /// The skin that set the joint limit and the root.
    pub skin: usize,
    /// Every set of the primitive, in set order (all of them, even when few vertices moved).
    pub sets: Vec<RepairedSet>,
}

/// Why a skinned primitive was left as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// No node draws the mesh with a skin (the validator does not check it either).
    NoSkin,
    /// The skin has more joints than a `JOINTS_n` value can name.
    TooManyJoints,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkippedPrimitive {
    pub mesh: usize,
    pub primitive: usize,
    pub reason: SkipReason,
}

/// The repair of a whole rig.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Repair {
    /// Every checked skinned primitive, touched or not, in (mesh, primitive) order.
    pub primitives: Vec<RepairedPrimitive>,
    pub skipped: Vec<SkippedPrimitive>,
}

impl Repair {
    /// Primitives whose data changed: the only ones `export` rewrites.
    pub fn changed(&self) -> impl Iterator<Item = &RepairedPrimitive> {
        self.primitives.iter().filter(|p| p.touched > 0)
    }

    pub fn touched(&self) -> usize {
        self.primitives.iter().map(|p| p.touched).sum()
    }

    pub fn rooted(&self) -> usize {
        self.primitives.iter().map(|p| p.rooted).sum()
    }

    pub fn unresolved(&self) -> usize {
        self.primitives.iter().map(|p| p.unresolved).sum()
    }

    pub fn vertices(&self) -> usize {
        self.primitives.iter().map(|p| p.vertices).sum()
    }

    pub fn max_weight_change(&self) -> f64 {
        self.primitives.iter().map(|p| p.max_weight_change).fold(0.0, f64::max)
    }
}

/// Repairs every skinned primitive the validator would check. `options` must have passed
/// `Options::validate` (invalid values are clamped to harmless ones, never a panic).
pub fn repair(rig: &Rig, options: &Options) -> Repair {
    let limits = mesh_limits(rig);
    let mut out = Repair::default();
    let mut scratch = Scratch::default();
    for (m, mesh) in rig.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            if !prim.is_skinned() {
                continue;
            }
            let skip = |reason| SkippedPrimitive { mesh: m, primitive: p, reason };
            let Some(&(count, skin)) = limits.get(m).and_then(Option::as_ref) else {
                out.skipped.push(skip(SkipReason::NoSkin));
                continue;
            };
            let root = rig.skins.get(skin).and_then(|s| s.joint_order.first().copied()).unwrap_or(0);
            let Ok(root16) = u16::try_from(root) else {
                out.skipped.push(skip(SkipReason::TooManyJoints));
                continue;
            };
            let sets = &prim.influences;
            let slots = 4 * sets.len();
            let vertex_limits = Limits {
                max_joint: count - 1,
                root: root16,
                cap: options.max_influences.unwrap_or(slots).clamp(1, slots.max(1)),
                prune: options.prune_below.map_or(0.0, |b| f64::from(b).clamp(0.0, 1.0)),
            };
            let mut repaired = repair_primitive(sets, prim.vertex_count(), &vertex_limits, &mut scratch);
            repaired.mesh = m;
            repaired.primitive = p;
            repaired.root_joint = root;
            repaired.skin = skin;
            out.primitives.push(repaired);
        }
    }
    out
}

/// For each mesh: the smallest joint count of the skins nodes draw it with, and that skin
/// (the first in node order on ties), as the validator picks its limit. Skins without
/// joints give no limit.
fn mesh_limits(rig: &Rig) -> Vec<Option<(usize, usize)>> {
    let mut out: Vec<Option<(usize, usize)>> = vec![None; rig.meshes.len()];
    for node in &rig.nodes {
        let (Some(m), Some(s)) = (node.mesh, node.skin) else {
            continue;
        };
        let (Some(entry), Some(skin)) = (out.get_mut(m), rig.skins.get(s)) else {
            continue;
        };
        let count = skin.joints.len();
        if count > 0 && entry.is_none_or(|(min, _)| count < min) {
            *entry = Some((count, s));
        }
    }
    out
}

fn stored_weight(w: f32, storage: WeightStorage) -> StoredWeight {
    // Import decoded integer weights as c / 255 (or 65535); the code comes back exactly.
    match storage {
        WeightStorage::F32 => StoredWeight::F32(w),
        WeightStorage::U8Norm => StoredWeight::U8((w * 255.0).round().clamp(0.0, 255.0) as u8),
        WeightStorage::U16Norm => StoredWeight::U16((w * 65535.0).round().clamp(0.0, 65535.0) as u16),
    }
}

fn repair_primitive(
    sets: &[InfluenceSet],
    vertices: usize,
    limits: &Limits,
    s: &mut Scratch,
) -> RepairedPrimitive {
    let mut new_sets: Vec<RepairedSet> = sets
        .iter()
        .map(|set| RepairedSet {
            set: set.set,
            joints_accessor: set.joints_accessor,
            weights_accessor: set.weights_accessor,
            joints: Vec::with_capacity(vertices),
            weights: match set.weight_storage {
                WeightStorage::F32 => WeightData::F32(Vec::with_capacity(vertices)),
                WeightStorage::U8Norm => WeightData::U8(Vec::with_capacity(vertices)),
                WeightStorage::U16Norm => WeightData::U16(Vec::with_capacity(vertices)),
            },
            old_non_finite: set.weights.iter().flatten().any(|w| !w.is_finite()),
        })
        .collect();
    let mut result = RepairedPrimitive {
        mesh: 0,
        primitive: 0,
        vertices,
        touched: 0,
        rooted: 0,
        unresolved: 0,
        max_weight_change: 0.0,
        root_joint: 0,
        skin: 0,
        sets: Vec::new(),
    };
    let mut stored = Vec::with_capacity(4 * sets.len());
    let mut out = Vec::with_capacity(4 * sets.len());
    for v in 0..vertices {
        stored.clear();
        for set in sets {
            // Import checked that every set has one entry per vertex; a short one reads as
            // empty slots rather than a panic.
            let joints = set.joints.get(v).copied().unwrap_or([0; 4]);
            let weights = set.weights.get(v).copied().unwrap_or([0.0; 4]);
            for (joint, w) in joints.into_iter().zip(weights) {
                stored.push(StoredSlot { joint, weight: stored_weight(w, set.weight_storage) });
            }
        }
        out.clear();
        out.extend_from_slice(&stored);
        let outcome = repair_vertex(&stored, limits, s, &mut out);
        result.touched += usize::from(outcome.changed);
        result.rooted += usize::from(outcome.rooted);
        result.unresolved += usize::from(!outcome.clean);
        result.max_weight_change = result.max_weight_change.max(outcome.max_change);
        for (set, chunk) in new_sets.iter_mut().zip(out.chunks(4)) {
            push_slots(set, chunk);
        }
    }
    result.sets = new_sets;
    result
}

/// Appends one vertex's four slots to a set, in the set's component type.
fn push_slots(set: &mut RepairedSet, chunk: &[StoredSlot]) {
    let mut joints = [0u16; 4];
    for (j, slot) in joints.iter_mut().zip(chunk) {
        *j = slot.joint;
    }
    set.joints.push(joints);
    match &mut set.weights {
        WeightData::F32(v) => {
            v.push(component(chunk, |w| if let StoredWeight::F32(x) = w { x } else { 0.0 }))
        }
        WeightData::U8(v) => v.push(component(chunk, |w| if let StoredWeight::U8(x) = w { x } else { 0 })),
        WeightData::U16(v) => v.push(component(chunk, |w| if let StoredWeight::U16(x) = w { x } else { 0 })),
    }
}

fn component<T: Copy + Default>(chunk: &[StoredSlot], get: impl Fn(StoredWeight) -> T) -> [T; 4] {
    let mut out = [T::default(); 4];
    for (o, slot) in out.iter_mut().zip(chunk) {
        *o = get(slot.weight);
    }
    out
}

#[cfg(test)]
mod tests;
