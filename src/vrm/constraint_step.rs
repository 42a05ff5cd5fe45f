//! Applies node constraints to a pose exactly as three-vrm 3.5.5 does
//! (`@pixiv/three-vrm-node-constraint`): `VRMNodeConstraintManager.update` runs each
//! constraint in its dependency order, and `VRMRollConstraint.update`,
//! `VRMAimConstraint.update` and `VRMRotationConstraint.update` set the destination's local
//! rotation from the source's, in f64 as JavaScript computes.
//!
//! No constraint reads the rotation its destination had before (each starts from the
//! initial state), so the result depends only on this frame's pose: nothing is carried from
//! one frame to the next. The aim constraint reads world matrices, which three-vrm refreshes
//! first (`updateWorldMatrix(true, false)`); here they are computed from the pose as it stands.

use super::constraints::{ConstraintKind, NodeConstraint, NodeConstraints};
use super::three_math::{from_unit_vectors, normalize_vector, rotation_of, slerp};
use crate::anim::Pose;
use crate::rig::Rig;
use glam::{DMat4, DQuat};

/// Sets the rotation of every constrained node of `pose` (already sampled: the animation,
/// the humanoid, the gaze and the expressions), in update order.
pub fn apply(rig: &Rig, constraints: &NodeConstraints, pose: &mut Pose) {
    for &i in &constraints.order {
        let Some(c) = constraints.constraints.get(i) else { continue };
        if c.destination >= pose.locals.len() || c.source >= pose.locals.len() {
            continue;
        }
        let rotation = match c.kind {
            ConstraintKind::Roll { axis } => roll(c, axis.vector, pose),
            ConstraintKind::Aim { axis } => aim(rig, c, axis.vector, pose),
            ConstraintKind::Rotation => rotation(c, pose),
        };
        pose.locals[c.destination].rotation = rotation.as_quat();
        pose.use_matrix[c.destination] = false;
    }
}

fn source_rotation(c: &NodeConstraint, pose: &Pose) -> DQuat {
    pose.locals[c.source].rotation.as_dquat()
}

/// `VRMRollConstraint.update`: the source's turn from its rest, seen in the destination's
/// rest frame (`quatDelta`), keeps only its twist about `axis` (the swing that carries the
/// axis off itself is undone by `setFromUnitVectors`).
fn roll(c: &NodeConstraint, axis: glam::DVec3, pose: &Pose) -> DQuat {
    let dst_rest = c.rest.destination;
    let inv_src_rest_mul_dst_rest = c.rest.source.conjugate() * dst_rest;
    let delta = dst_rest.conjugate() * source_rotation(c, pose) * inv_src_rest_mul_dst_rest;
    let turned_axis = delta * axis;
    let swing_back = from_unit_vectors(turned_axis, axis);
    let target = dst_rest * swing_back * delta;
    slerp(dst_rest, target, c.weight)
}

/// `VRMRotationConstraint.update`: the destination turns from its rest as the source turns
/// from its own.
fn rotation(c: &NodeConstraint, pose: &Pose) -> DQuat {
    let src_delta = c.rest.source.conjugate() * source_rotation(c, pose);
    let target = c.rest.destination * src_delta;
    slerp(c.rest.destination, target, c.weight)
}

/// `VRMAimConstraint.update`: the rest aim axis in world space (`a0`) is turned onto the
/// direction from the destination to the source (`a1`), in the parent's frame.
fn aim(rig: &Rig, c: &NodeConstraint, axis: glam::DVec3, pose: &Pose) -> DQuat {
    let dst_rest = c.rest.destination;
    let parent = rig.nodes.get(c.destination).and_then(|n| n.parent);
    let parent_world = parent.map_or(DMat4::IDENTITY, |p| world(rig, pose, p));
    let parent_rotation = match parent {
        Some(_) => rotation_of(parent_world),
        None => DQuat::IDENTITY,
    };
    let destination_world = parent_world * local(rig, pose, c.destination);
    let source_world = world(rig, pose, c.source);
    let a0 = parent_rotation * (dst_rest * axis);
    let a1 = normalize_vector(source_world.w_axis.truncate() - destination_world.w_axis.truncate());
    let target = parent_rotation.conjugate() * from_unit_vectors(a0, a1) * parent_rotation * dst_rest;
    slerp(dst_rest, target, c.weight)
}

/// A node's local matrix in f64 (three.js composes it from the position, quaternion and
/// scale; a file matrix no channel has replaced stands as it is).
fn local(rig: &Rig, pose: &Pose, node: usize) -> DMat4 {
    if pose.use_matrix.get(node) == Some(&true)
        && let Some(matrix) = rig.nodes.get(node).and_then(|n| n.matrix)
    {
        return matrix.as_dmat4();
    }
    let t = pose.locals[node];
    DMat4::from_scale_rotation_translation(
        t.scale.as_dvec3(),
        t.rotation.as_dquat(),
        t.translation.as_dvec3(),
    )
}

/// A node's world matrix from the pose, parents first.
fn world(rig: &Rig, pose: &Pose, node: usize) -> DMat4 {
    let mut matrix = local(rig, pose, node);
    let mut at = rig.nodes.get(node).and_then(|n| n.parent);
    let mut hops = 0;
    while let Some(parent) = at.filter(|_| hops < rig.nodes.len()) {
        matrix = local(rig, pose, parent) * matrix;
        at = rig.nodes.get(parent).and_then(|n| n.parent);
        hops += 1;
    }
    matrix
}
