//! Skin checks: inverse bind matrices (validator rules and rigscope's bind mismatch),
//! the joints' common root and `skeleton`, and joints that weight no or few vertices.
//!
//! Validator rules follow KhronosGroup/glTF-Validator `lib/src/base/skin.dart`:
//! - common roots are the intersection of every joint's ancestor-or-self set; none is
//!   SKIN_NO_COMMON_ROOT at `/skins/S/joints`;
//! - a `skeleton` outside that set is SKIN_SKELETON_INVALID at `/skins/S/skeleton`;
//! - IBM count != joint count is INVALID_IBM_ACCESSOR_COUNT at `/skins/S/inverseBindMatrices`
//!   (only reachable when import keeps a short or long IBM list);
//! - `IbmMatrixFloatChecker`: components 3, 7, 11 must be exactly 0 and 15 exactly 1
//!   (column-major, so the bottom row), else ACCESSOR_INVALID_IBM, one finding per component,
//!   with the scalar element index `16 * matrix + component` as the validator counts it.

use super::codes;
use super::finding::{Sink, dart_num};
use crate::anim::RestBind;
use crate::rig::{Primitive, Rig, Skin};
use glam::Mat4;

/// Thresholds of rigscope's own skin rules.
pub(crate) struct SkinLimits {
    /// Joints weighted by fewer vertices than this (but more than 0) are reported.
    pub few_vertices: u32,
    /// Largest element difference of `G_rest * IBM` from identity that is not reported.
    pub ibm_tolerance: f32,
}

pub(crate) fn check_skins(
    rig: &Rig,
    rest: &[Mat4],
    joint_use: &[Vec<u32>],
    used_skins: &[bool],
    limits: &SkinLimits,
    sink: &mut Sink,
) {
    for (s, skin) in rig.skins.iter().enumerate() {
        ibm_rules(s, skin, sink);
        root_rules(rig, s, skin, sink);
        // Usage is only meaningful for skins some node draws a mesh with.
        let uses = joint_use.get(s).filter(|_| used_skins.get(s).copied().unwrap_or(false));
        bind_mismatch(rig, s, skin, rest, uses.map(Vec::as_slice), limits.ibm_tolerance, sink);
        if let Some(uses) = uses {
            usage_rules(rig, s, skin, uses, limits.few_vertices, sink);
        }
    }
}

fn ibm_rules(s: usize, skin: &Skin, sink: &mut Sink) {
    if skin.inverse_bind_accessor.is_none() {
        return;
    }
    let pointer = || format!("/skins/{s}/inverseBindMatrices");
    if skin.inverse_bind.len() != skin.joints.len() {
        sink.general(codes::INVALID_IBM_ACCESSOR_COUNT, pointer(), || {
            format!(
                "IBM accessor must have at least {} elements. Found {}.",
                skin.joints.len(),
                skin.inverse_bind.len()
            )
        });
    }
    for (m, ibm) in skin.inverse_bind.iter().enumerate() {
        let cols = ibm.to_cols_array();
        for (component, expected) in [(3usize, 0.0f32), (7, 0.0), (11, 0.0), (15, 1.0)] {
            let value = cols[component];
            // `!=` as the validator writes it: -0.0 passes, NaN fails.
            if value != expected {
                sink.general(codes::INVALID_IBM, pointer(), || {
                    format!(
                        "Matrix element at index {} (component index {component}) contains invalid value: {}.",
                        16 * m + component,
                        dart_num(f64::from(value))
                    )
                });
            }
        }
    }
}

/// Nodes that are an ancestor-or-self of every joint of the skin.
pub(crate) fn common_roots(rig: &Rig, skin: &Skin) -> Vec<usize> {
    let mut hits = vec![0usize; rig.nodes.len()];
    for &joint in &skin.joints {
        let mut node = Some(joint);
        // A chain longer than the node count would be a loop: import rejects those, but
        // the walk must still end.
        let mut steps = 0;
        while let Some(n) = node {
            let Some(hit) = hits.get_mut(n) else {
                break;
            };
            *hit += 1;
            steps += 1;
            if steps > rig.nodes.len() {
                break;
            }
            node = rig.nodes.get(n).and_then(|x| x.parent);
        }
    }
    hits.iter().enumerate().filter(|&(_, &h)| h == skin.joints.len()).map(|(n, _)| n).collect()
}

fn root_rules(rig: &Rig, s: usize, skin: &Skin, sink: &mut Sink) {
    if skin.joints.is_empty() {
        return;
    }
    let roots = common_roots(rig, skin);
    if roots.is_empty() {
        sink.general(codes::SKIN_NO_COMMON_ROOT, format!("/skins/{s}/joints"), || {
            "Joints do not have a common root.".to_string()
        });
    }
    if let Some(skeleton) = skin.skeleton
        && !roots.contains(&skeleton)
    {
        sink.general(codes::SKIN_SKELETON_INVALID, format!("/skins/{s}/skeleton"), || {
            "Skeleton node is not a common root.".to_string()
        });
    }
}

/// How far each joint's rest-pose joint matrix `G_rest * IBM` is from identity. This is the
/// matrix that moves bind-space vertices in the rest pose, so its difference from identity is
/// in world units for the translation part; a large one is the classic "spikes to the
/// origin" (IBMs computed for another hierarchy, or missing a parent transform).
///
/// When every joint is off by the same transform (a Z-up or scaled node above the skeleton,
/// as COLLADA exports have) the whole skin just sits elsewhere in the rest pose: that is one
/// finding for the skin, not one per joint. Joints off by something else are named one by one,
/// measured against the skin's root joint. A joint that weights no vertex (`uses`, when the
/// skin draws a mesh) moves nothing, so its finding says that instead of warning of spikes.
fn bind_mismatch(
    rig: &Rig,
    s: usize,
    skin: &Skin,
    rest: &[Mat4],
    uses: Option<&[u32]>,
    tolerance: f32,
    sink: &mut Sink,
) {
    let measure = RestBind::measure(rig, s, rest);
    let Some(common) = measure.common else { return };
    for (j, m) in measure.joints.iter().enumerate() {
        let (Some(m), Some(diff)) = (m, measure.joint_diff(j)) else { continue };
        // A NaN difference is reported too.
        if !measure.joint_is_odd(j, tolerance) {
            continue;
        }
        let node = skin.joints[j];
        let unused = uses.and_then(|u| u.get(j)) == Some(&0);
        sink.general(codes::IBM_BIND_MISMATCH, format!("/skins/{s}/joints/{j}"), || {
            let joint = joint_name(rig, j, node);
            if unused {
                let moved = (m.w_axis.truncate() - common.w_axis.truncate()).length();
                format!(
                    "{joint}: its rest pose is not its bind pose in the way the root joint's is (the point \
                     it was bound at lands {moved:.4} scene units off), but no vertex is weighted to it \
                     (RIG_JOINT_UNUSED), so nothing in the mesh moves wrongly; only weights added to it later would."
                )
            } else {
                let pulled = joint_pull(rig, s, j, &(*m - common));
                format!(
                    "{joint}: its rest pose is not its bind pose in the way the root joint's is: in the rest \
                     pose it pulls the vertices it weights up to {pulled:.4} scene units away from the rest of the mesh, \
                     so the mesh spikes or shears around it (the joint matrices differ by up to {diff:.3} per element)."
                )
            }
        });
    }
    if measure.skin_is_off(tolerance) {
        let (scale, rotation, translation) = common.to_scale_rotation_translation();
        let (axis, angle) = rotation.to_axis_angle();
        // Report the shorter way round: 270 degrees about x is 90 degrees about -x.
        let (axis, angle) =
            if angle > std::f32::consts::PI { (-axis, std::f32::consts::TAU - angle) } else { (axis, angle) };
        sink.general(codes::IBM_BIND_MISMATCH, format!("/skins/{s}"), || {
            format!(
                "Harmless: the whole skin is moved as one by its root, every joint alike (turned {:.1} degrees \
                 about ({:.3}, {:.3}, {:.3}), scaled ({:.3}, {:.3}, {:.3}), shifted ({:.4}, {:.4}, {:.4})), so the \
                 mesh keeps its shape and is drawn where the rest pose puts it, as an exporter's centimetre-to-metre \
                 or Z-up-to-Y-up root above the skeleton does.",
                angle.to_degrees(),
                axis.x,
                axis.y,
                axis.z,
                scale.x,
                scale.y,
                scale.z,
                translation.x,
                translation.y,
                translation.z,
            )
        });
    }
}

/// `joint 3 = #19 (Hips)`: a skin joint by its index and its node, named where the node is.
fn joint_name(rig: &Rig, j: usize, node: usize) -> String {
    match rig.nodes.get(node).and_then(|n| n.name.as_deref()).filter(|n| !n.is_empty()) {
        Some(name) => format!("Joint {j} = #{node} ({name})"),
        None => format!("Joint {j} = #{node}"),
    }
}

/// Every primitive a node draws with skin `s`.
fn skinned_primitives(rig: &Rig, s: usize) -> impl Iterator<Item = &Primitive> {
    (rig.nodes.iter())
        .filter(move |n| n.skin == Some(s))
        .filter_map(|n| n.mesh.and_then(|m| rig.meshes.get(m)))
        .flat_map(|m| m.primitives.iter())
}

/// How far joint `j` of skin `s` pulls a vertex off, at most: its weight times the distance
/// between where its joint matrix and the root joint's put the vertex (`delta` is their
/// difference). 0 when no vertex weights the joint.
fn joint_pull(rig: &Rig, s: usize, j: usize, delta: &Mat4) -> f32 {
    let mut most = 0.0f32;
    for p in skinned_primitives(rig, s) {
        p.for_each_influences(|v, slots| {
            let weight: f32 =
                slots.iter().filter(|&&(joint, w)| usize::from(joint) == j && w > 0.0).map(|s| s.1).sum();
            if weight > 0.0
                && let Some(&position) = p.positions.get(v)
            {
                most = most.max(weight * delta.transform_point3(position).length());
            }
        });
    }
    most
}

fn usage_rules(rig: &Rig, s: usize, skin: &Skin, uses: &[u32], few: u32, sink: &mut Sink) {
    for (j, (&node, &count)) in skin.joints.iter().zip(uses).enumerate() {
        let pointer = format!("/skins/{s}/joints/{j}");
        if count == 0 {
            sink.general(codes::JOINT_UNUSED, pointer, || {
                format!("{} has no weight on any vertex.", joint_name(rig, j, node))
            });
        } else if count < few {
            sink.general(codes::JOINT_FEW_VERTICES, pointer, || {
                format!(
                    "{} weights only {}.",
                    joint_name(rig, j, node),
                    crate::report::count(count as usize, "vertex", "vertices")
                )
            });
        }
    }
}
