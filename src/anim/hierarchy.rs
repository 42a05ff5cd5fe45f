//! Local -> global: one linear walk over `rig.order` (parents first), then per-skin joint
//! matrices `J_i = G(joint_i) * IBM_i`. Also the bind-pose globals (`inverse(IBM)`), which
//! depend only on the rig and are computed once.

use glam::Mat4;

use super::pose::Pose;
use crate::rig::Rig;

/// `globals[n] = globals[parent] * local(n)` for every node of `rig.order`. A node whose
/// parent index is invalid is treated as a root; nodes missing from `order` keep their
/// previous value.
pub fn compute_globals(rig: &Rig, pose: &Pose, globals: &mut [Mat4]) {
    walk(rig, globals, |node| pose.local_matrix(rig, node), |_| None);
}

/// `joint_matrices[s][i] = G(skin.joints[i]) * IBM_i`. A missing inverse bind matrix is
/// identity (as glTF says); a joint node outside `globals` uses identity for `G`.
pub fn compute_joint_matrices(rig: &Rig, globals: &[Mat4], joint_matrices: &mut [Vec<Mat4>]) {
    for (skin, out) in rig.skins.iter().zip(joint_matrices.iter_mut()) {
        for (i, (o, &joint)) in out.iter_mut().zip(&skin.joints).enumerate() {
            let global = globals.get(joint).copied().unwrap_or(Mat4::IDENTITY);
            let inverse_bind = skin.inverse_bind.get(i).copied().unwrap_or(Mat4::IDENTITY);
            *o = global * inverse_bind;
        }
    }
}

/// For each node, its bind-pose global `inverse(IBM)` when it is a joint of some skin with
/// an invertible IBM; the first skin that lists the node wins (skins sharing a joint should
/// agree; when they do not, `diagnose` is where that is reported).
pub fn bind_globals(rig: &Rig) -> Vec<Option<Mat4>> {
    let mut out = vec![None; rig.nodes.len()];
    for skin in &rig.skins {
        for (i, &joint) in skin.joints.iter().enumerate() {
            let inverse_bind = skin.inverse_bind.get(i).copied().unwrap_or(Mat4::IDENTITY);
            let Some(slot) = out.get_mut(joint) else {
                continue;
            };
            if slot.is_some() {
                continue;
            }
            let bind = inverse_bind.inverse();
            if inverse_bind.determinant().abs() > f32::MIN_POSITIVE && bind.is_finite() {
                *slot = Some(bind);
            }
        }
    }
    out
}

/// Globals of the bind pose: a joint sits at its `inverse(IBM)`; every other node (including
/// children of joints, such as a prop held in a hand) is `parent_global * rest local`.
pub fn compute_bind_globals(rig: &Rig, pose: &Pose, bind: &[Option<Mat4>], globals: &mut [Mat4]) {
    walk(rig, globals, |node| pose.local_matrix(rig, node), |node| bind.get(node).copied().flatten());
}

/// The parents-first walk shared by the animated and the bind-pose globals: `fixed(node)`
/// overrides the global outright, else `parent_global * local(node)`.
fn walk(
    rig: &Rig,
    globals: &mut [Mat4],
    local: impl Fn(usize) -> Mat4,
    fixed: impl Fn(usize) -> Option<Mat4>,
) {
    for &node in &rig.order {
        let global = match fixed(node) {
            Some(g) => g,
            None => {
                let parent = rig
                    .nodes
                    .get(node)
                    .and_then(|n| n.parent)
                    .and_then(|p| globals.get(p).copied())
                    .unwrap_or(Mat4::IDENTITY);
                parent * local(node)
            }
        };
        if let Some(slot) = globals.get_mut(node) {
            *slot = global;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{Node, Skin, Transform};
    use glam::{Quat, Vec3};

    fn close(a: Vec3, b: Vec3) -> bool {
        a.abs_diff_eq(b, 1e-5)
    }

    fn node(parent: Option<usize>, rest: Transform) -> Node {
        Node { parent, rest, ..Node::default() }
    }

    fn trs(t: Vec3, r: Quat, s: Vec3) -> Transform {
        Transform { translation: t, rotation: r, scale: s }
    }

    #[test]
    fn local_is_translation_rotation_scale_in_that_order() {
        let rz90 = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let rig = Rig {
            nodes: vec![node(None, trs(Vec3::new(1.0, 2.0, 3.0), rz90, Vec3::new(2.0, 3.0, 4.0)))],
            order: vec![0],
            ..Rig::default()
        };
        let mut globals = vec![Mat4::ZERO; 1];
        compute_globals(&rig, &Pose::rest(&rig), &mut globals);
        // (1,1,1) -S-> (2,3,4) -Rz90: (x,y)->(-y,x)-> (-3,2,4) -T-> (-2,4,7)
        let p = globals[0].transform_point3(Vec3::ONE);
        assert!(close(p, Vec3::new(-2.0, 4.0, 7.0)), "{p}");
    }

    #[test]
    fn matrix_nodes_use_the_file_matrix_and_children_compose_on_it() {
        // A sheared matrix: x' = x + y, then moved by (0, 0, 5). TRS cannot express it.
        let shear = Mat4::from_cols_array(&[1., 0., 0., 0., 1., 1., 0., 0., 0., 0., 1., 0., 0., 0., 5., 1.]);
        let mut parent = node(None, Transform::IDENTITY);
        parent.matrix = Some(shear);
        let child = node(Some(0), trs(Vec3::new(0.0, 2.0, 0.0), Quat::IDENTITY, Vec3::ONE));
        let rig = Rig { nodes: vec![parent, child], order: vec![0, 1], ..Rig::default() };
        let mut globals = vec![Mat4::ZERO; 2];
        compute_globals(&rig, &Pose::rest(&rig), &mut globals);
        assert_eq!(globals[0], shear);
        // child origin: (0,2,0) -> shear -> (2,2,0) -> +z5 -> (2,2,5)
        assert!(close(globals[1].transform_point3(Vec3::ZERO), Vec3::new(2.0, 2.0, 5.0)));
    }

    #[test]
    fn joint_matrix_is_global_times_inverse_bind_along_a_parent_chain() {
        let rz90 = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let up = Vec3::new(0.0, 1.0, 0.0);
        let rig = Rig {
            nodes: vec![
                node(None, trs(up, rz90, Vec3::ONE)),
                node(Some(0), trs(up, Quat::IDENTITY, Vec3::ONE)),
            ],
            order: vec![0, 1],
            skins: vec![Skin {
                joints: vec![1, 0],
                // Bound with joint 1 at (0, 2, 0); joint 0 has no IBM (identity).
                inverse_bind: vec![Mat4::from_translation(Vec3::new(0.0, -2.0, 0.0))],
                ..Skin::default()
            }],
            ..Rig::default()
        };
        let mut globals = vec![Mat4::ZERO; 2];
        compute_globals(&rig, &Pose::rest(&rig), &mut globals);
        let mut joints = vec![vec![Mat4::ZERO; 2]];
        compute_joint_matrices(&rig, &globals, &mut joints);
        // G1 = T(0,1,0) Rz90 T(0,1,0): origin -> Rz90 (0,1,0) = (-1,0,0) -> + (0,1,0) = (-1,1,0).
        // (0,2,0) -IBM-> (0,0,0) -G1-> (-1,1,0)
        assert!(close(joints[0][0].transform_point3(Vec3::new(0.0, 2.0, 0.0)), Vec3::new(-1.0, 1.0, 0.0)));
        // (1,2,0) -IBM-> (1,0,0); G1 (1,0,0) = T(0,1,0) Rz90 (1,1,0) = T(0,1,0) (-1,1,0) = (-1,2,0)
        assert!(close(joints[0][0].transform_point3(Vec3::new(1.0, 2.0, 0.0)), Vec3::new(-1.0, 2.0, 0.0)));
        // Joint 0 without IBM: J = G0; (1,0,0) -Rz90-> (0,1,0) -T-> (0,2,0)
        assert!(close(joints[0][1].transform_point3(Vec3::X), Vec3::new(0.0, 2.0, 0.0)));
    }

    #[test]
    fn bind_globals_invert_the_inverse_bind_and_skip_singular_ones() {
        let rig = Rig {
            nodes: vec![Node::default(), Node::default(), Node::default()],
            skins: vec![
                Skin {
                    joints: vec![0, 1, 9],
                    inverse_bind: vec![
                        Mat4::from_translation(Vec3::new(0.0, -2.0, 0.0)),
                        Mat4::ZERO,
                        Mat4::IDENTITY,
                    ],
                    ..Skin::default()
                },
                Skin {
                    joints: vec![0, 2],
                    inverse_bind: vec![Mat4::from_translation(Vec3::X)],
                    ..Skin::default()
                },
            ],
            ..Rig::default()
        };
        let bind = bind_globals(&rig);
        assert_eq!(bind.len(), 3);
        // First skin wins for node 0; node 2 has no IBM in skin 1 -> identity.
        assert_eq!(bind[0], Some(Mat4::from_translation(Vec3::new(0.0, 2.0, 0.0))));
        assert_eq!(bind[1], None);
        assert_eq!(bind[2], Some(Mat4::IDENTITY));
    }
}
