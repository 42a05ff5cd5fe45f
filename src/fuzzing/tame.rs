//! When a fuzzed rig's numbers are ordinary: every number posing reads is finite and within
//! `LIMIT`, and its rest and bind world matrices are finite. What is computed from such a rig
//! (bound, retargeted or measured) must then be finite too; from any other rig it may not be,
//! as the rig itself says.

use glam::Mat4;

use crate::attach::body::{ReferencePose, reference_globals};
use crate::rig::Rig;

/// The largest magnitude an ordinary rig's numbers have.
pub const LIMIT: f32 = 1e3;

fn ordinary(values: &[f32]) -> bool {
    values.iter().all(|v| v.abs() <= LIMIT)
}

fn finite_matrices(matrices: &[Mat4]) -> bool {
    matrices.iter().all(|m| m.is_finite())
}

/// Whether `rig`'s rest transforms, inverse bind matrices and key times and values are all
/// within `LIMIT`, and its rest and bind world matrices finite.
pub fn tame(rig: &Rig) -> bool {
    let nodes = rig.nodes.iter().all(|n| {
        let rest = &n.rest;
        ordinary(&rest.translation.to_array())
            && ordinary(&rest.rotation.to_array())
            && ordinary(&rest.scale.to_array())
            && n.matrix.is_none_or(|m| ordinary(&m.to_cols_array()))
            && n.weights.as_deref().is_none_or(ordinary)
    });
    let skins = rig.skins.iter().all(|s| s.inverse_bind.iter().all(|m| ordinary(&m.to_cols_array())));
    let clips =
        rig.clips.iter().all(|c| c.channels.iter().all(|ch| ordinary(&ch.times) && ordinary(&ch.values)));
    nodes
        && skins
        && clips
        && finite_matrices(&reference_globals(rig, ReferencePose::Rest))
        && finite_matrices(&reference_globals(rig, ReferencePose::Bind))
}

/// Whether every number of `values` is finite.
pub fn finite(values: &[f32]) -> bool {
    values.iter().all(|v| v.is_finite())
}
