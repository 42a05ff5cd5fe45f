//! Local -> global: one linear walk over `rig.order` (parents first), then per-skin joint
//! matrices `J_i = G(joint_i) * IBM_i` and, from the same products, the skinning palettes.
//! Also the bind-pose globals (`inverse(IBM)`), which depend only on the rig and are
//! computed once.
//!
//! The per-frame walk works in 3x4 (`Affine3A`): `T * R * S` built directly, 3x4 times 3x4
//! (the last row of every glTF transform is `0 0 0 1`, so `Mat4` products only add zeros).
//! Every product is fused (`mat4_mul`, `affine_mul`; compiled a second time with FMA and
//! chosen at run time, see `lanes::with_fma!`). The 3x4 walk's operations are those of the `Mat4`
//! walk in the same order, minus the products by exact zeros, so the matrices are the same
//! bits up to the sign of a zero. A file matrix
//! whose last row is not `0 0 0 1`, or a non-finite result (where `0 * inf` in the dropped
//! row would matter), falls back to the `Mat4` walk for the frame, which is exact.

use glam::{Affine3A, Mat4, Vec3A, Vec4, Vec4Swizzles};

use super::palette::Palette;
use super::pose::Pose;
use crate::rig::Rig;

/// `globals[n] = globals[parent] * local(n)` for every node of `rig.order`. A node whose
/// parent index is invalid is treated as a root; nodes missing from `order` keep their
/// previous value.
pub fn compute_globals(rig: &Rig, pose: &Pose, globals: &mut [Mat4]) {
    update_globals(rig, pose, globals);
}

/// `compute_globals`; returns whether every global is affine (last row `0 0 0 1`) and
/// finite, so the joint matrices may be computed in 3x4 too.
pub(crate) fn update_globals(rig: &Rig, pose: &Pose, globals: &mut [Mat4]) -> bool {
    crate::lanes::with_fma!(update_globals_body(rig: &Rig, pose: &Pose, globals: &mut [Mat4]) -> bool)
}

#[inline(always)]
fn update_globals_body(rig: &Rig, pose: &Pose, globals: &mut [Mat4]) -> bool {
    if affine_globals(rig, pose, globals) {
        return true;
    }
    walk(rig, globals, |node| pose.local_matrix(rig, node), |_| None);
    false
}

/// The 3x4 walk; false (globals partly written) when a file matrix is not affine or a
/// result is not finite. In a parents-first order the caller's `Mat4` walk then rewrites
/// every node the same way it would have.
#[inline(always)]
fn affine_globals(rig: &Rig, pose: &Pose, globals: &mut [Mat4]) -> bool {
    // Any non-finite entry turns this into NaN (inf * 0); an overflowing sum of finite
    // entries does too, which only costs the exact fallback.
    let mut probe = Vec3A::ZERO;
    for &node in &rig.order {
        let Some(local) = local_affine(rig, pose, node) else {
            return false;
        };
        let parent = rig.nodes.get(node).and_then(|n| n.parent).and_then(|p| globals.get(p));
        let global = match parent {
            Some(p) => Affine3A::from_mat4(affine_mul(p, &Mat4::from(local))),
            None => local,
        };
        probe += sum_of_columns(&global) * 0.0;
        if let Some(slot) = globals.get_mut(node) {
            *slot = Mat4::from(global);
        }
    }
    probe == Vec3A::ZERO
}

/// `a * b`, each column `a.z * b.z + (a.y * b.y + (a.x * b.x + a.w * b.w))` with every
/// multiply-add fused. Fused, a product takes about half the instructions of separate
/// multiplies and adds (the pose stage is little else), and each entry is rounded once per
/// multiply-add instead of once per multiply and once per add. Every product of globals and joint matrices goes through this or `affine_mul`
/// (the general paths and `PoseCache` alike), so they all give the same bits. For affine
/// `a` and `b` the result's last row is `0 0 0 1` again (its zeros possibly `-0.0`)
/// wherever they are finite, and its first three rows do not depend on the last rows'
/// signs of zero.
#[inline(always)]
pub(crate) fn mat4_mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let column = |c: Vec4| {
        a.z_axis
            .mul_add(c.zzzz(), a.y_axis.mul_add(c.yyyy(), a.x_axis.mul_add(c.xxxx(), a.w_axis * c.wwww())))
    };
    Mat4::from_cols(column(b.x_axis), column(b.y_axis), column(b.z_axis), column(b.w_axis))
}

/// `mat4_mul` for an affine `b` (last row `0 0 0 1`), without the products by its zeros:
/// the same entries, up to the sign of an exact zero (`a.w * 0` adds `+-0`), and the same
/// bits in the last column (`a.w * 1` is `a.w`).
#[inline(always)]
pub(crate) fn affine_mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let column = |c: Vec4, inner: Vec4| {
        a.z_axis.mul_add(c.zzzz(), a.y_axis.mul_add(c.yyyy(), a.x_axis.mul_add(c.xxxx(), inner)))
    };
    let first = |c: Vec4| a.z_axis.mul_add(c.zzzz(), a.y_axis.mul_add(c.yyyy(), a.x_axis * c.xxxx()));
    Mat4::from_cols(first(b.x_axis), first(b.y_axis), first(b.z_axis), column(b.w_axis, a.w_axis))
}

#[inline(always)]
fn sum_of_columns(m: &Affine3A) -> Vec3A {
    m.matrix3.x_axis + m.matrix3.y_axis + m.matrix3.z_axis + m.translation
}

/// `Pose::local_matrix` in 3x4; `None` for a file matrix whose last row is not `0 0 0 1`.
#[inline]
fn local_affine(rig: &Rig, pose: &Pose, node: usize) -> Option<Affine3A> {
    let file_matrix = match pose.use_matrix.get(node) {
        Some(true) => rig.nodes.get(node).and_then(|n| n.matrix),
        _ => None,
    };
    match (file_matrix, pose.locals.get(node)) {
        (Some(m), _) => affine(&m),
        (None, Some(l)) => {
            Some(Affine3A::from_scale_rotation_translation(l.scale, l.rotation, l.translation))
        }
        (None, None) => Some(Affine3A::IDENTITY),
    }
}

#[inline]
fn affine(m: &Mat4) -> Option<Affine3A> {
    let last_row = [m.x_axis.w, m.y_axis.w, m.z_axis.w, m.w_axis.w];
    (last_row == [0.0, 0.0, 0.0, 1.0]).then(|| Affine3A::from_mat4(*m))
}

/// `joint_matrices[s][i] = G(skin.joints[i]) * IBM_i`. A missing inverse bind matrix is
/// identity (as glTF says); a joint node outside `globals` uses identity for `G`.
pub fn compute_joint_matrices(rig: &Rig, globals: &[Mat4], joint_matrices: &mut [Vec<Mat4>]) {
    for (skin, out) in rig.skins.iter().zip(joint_matrices.iter_mut()) {
        mat4_joint_matrices(skin, globals, out);
    }
}

fn mat4_joint_matrices(skin: &crate::rig::Skin, globals: &[Mat4], out: &mut [Mat4]) {
    for (i, (o, &joint)) in out.iter_mut().zip(&skin.joints).enumerate() {
        let global = globals.get(joint).copied().unwrap_or(Mat4::IDENTITY);
        let inverse_bind = skin.inverse_bind.get(i).copied().unwrap_or(Mat4::IDENTITY);
        *o = mat4_mul(&global, &inverse_bind);
    }
}

/// `compute_joint_matrices`, and each skin's skinning palette from the same products.
/// `globals_affine`: what `update_globals` returned. Products with a non-affine factor,
/// and skins with a non-finite matrix, are done in `Mat4` (exactly the old values).
pub(crate) fn update_joint_matrices(
    rig: &Rig,
    globals: &[Mat4],
    globals_affine: bool,
    joint_matrices: &mut [Vec<Mat4>],
    palettes: &mut Vec<Palette>,
) {
    crate::lanes::with_fma!(update_joint_matrices_body(
        rig: &Rig,
        globals: &[Mat4],
        globals_affine: bool,
        joint_matrices: &mut [Vec<Mat4>],
        palettes: &mut Vec<Palette>,
    ))
}

#[inline(always)]
fn update_joint_matrices_body(
    rig: &Rig,
    globals: &[Mat4],
    globals_affine: bool,
    joint_matrices: &mut [Vec<Mat4>],
    palettes: &mut Vec<Palette>,
) {
    palettes.resize_with(joint_matrices.len(), Palette::default);
    for ((skin, out), palette) in rig.skins.iter().zip(joint_matrices.iter_mut()).zip(palettes.iter_mut()) {
        palette.begin(out.len().min(skin.joints.len()));
        let mut probe = Vec3A::ZERO;
        for (i, (o, &joint)) in out.iter_mut().zip(&skin.joints).enumerate() {
            let global = globals.get(joint).unwrap_or(&Mat4::IDENTITY);
            let inverse_bind = skin.inverse_bind.get(i).unwrap_or(&Mat4::IDENTITY);
            let product = match affine(inverse_bind).filter(|_| globals_affine) {
                Some(inverse_bind) => {
                    let j = Affine3A::from_mat4(affine_mul(global, &Mat4::from(inverse_bind)));
                    *o = Mat4::from(j);
                    j
                }
                None => {
                    *o = mat4_mul(global, inverse_bind);
                    if !o.is_finite() {
                        probe = Vec3A::NAN;
                    }
                    Affine3A::from_mat4(*o)
                }
            };
            probe += sum_of_columns(&product) * 0.0;
            palette.push(&product);
        }
        if probe != Vec3A::ZERO {
            // Recompute in Mat4 (the dropped last row may hold a NaN) and tell the truth.
            mat4_joint_matrices(skin, globals, out);
            palette.finite = out.iter().all(|m| m.is_finite());
        }
    }
}

/// For each node, its bind-pose global `placement * inverse(IBM)` when it is a joint of
/// some skin with an invertible IBM; the first skin that lists the node wins (skins sharing a
/// joint should agree; when they do not, `diagnose` is where that is reported).
/// `placements` is per skin (`RestBind::placement`): where the rig draws the bind pose.
pub fn bind_globals(rig: &Rig, placements: &[Mat4]) -> Vec<Option<Mat4>> {
    let mut out = vec![None; rig.nodes.len()];
    for (s, skin) in rig.skins.iter().enumerate() {
        let dequantize = placements.get(s).copied().unwrap_or(Mat4::IDENTITY);
        for (i, &joint) in skin.joints.iter().enumerate() {
            let inverse_bind = skin.inverse_bind.get(i).copied().unwrap_or(Mat4::IDENTITY);
            let Some(slot) = out.get_mut(joint) else {
                continue;
            };
            if slot.is_some() {
                continue;
            }
            let bind = dequantize * inverse_bind.inverse();
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
    crate::lanes::with_fma!(bind_globals_body(rig: &Rig, pose: &Pose, bind: &[Option<Mat4>], globals: &mut [Mat4]))
}

#[inline(always)]
fn bind_globals_body(rig: &Rig, pose: &Pose, bind: &[Option<Mat4>], globals: &mut [Mat4]) {
    walk(rig, globals, |node| pose.local_matrix(rig, node), |node| bind.get(node).copied().flatten());
}

/// The parents-first walk shared by the animated and the bind-pose globals: `fixed(node)`
/// overrides the global outright, else `parent_global * local(node)`.
#[inline(always)]
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
                mat4_mul(&parent, &local(node))
            }
        };
        if let Some(slot) = globals.get_mut(node) {
            *slot = global;
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
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

    /// The `Mat4` formulas, written out independently of the 3x4 walk.
    fn mat4_reference(rig: &Rig, pose: &Pose) -> (Vec<Mat4>, Vec<Vec<Mat4>>) {
        let mut globals = vec![Mat4::IDENTITY; rig.nodes.len()];
        for &n in &rig.order {
            let parent = rig.nodes[n].parent.map_or(Mat4::IDENTITY, |p| globals[p]);
            globals[n] = mat4_mul(&parent, &pose.local_matrix(rig, n));
        }
        let joints = rig
            .skins
            .iter()
            .map(|s| {
                s.joints
                    .iter()
                    .enumerate()
                    .map(|(i, &j)| {
                        mat4_mul(&globals[j], &s.inverse_bind.get(i).copied().unwrap_or(Mat4::IDENTITY))
                    })
                    .collect()
            })
            .collect();
        (globals, joints)
    }

    /// Same bits, except that an exact zero may have either sign (NaN equals NaN).
    fn same(a: &Mat4, b: &Mat4) -> bool {
        let (a, b) = (a.to_cols_array(), b.to_cols_array());
        a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits() || x == y || (x.is_nan() && y.is_nan()))
    }

    /// A chain of 12 nodes with random TRS (non-uniform scale), node 3 a file matrix, and a
    /// skin over every other node with random inverse binds (one missing).
    fn chain(file_matrix: Mat4, inverse_bind: Mat4) -> (Rig, Pose) {
        let mut seed = 0x2545_f491u32;
        let mut unit = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed >> 8) as f32 / (1u32 << 24) as f32
        };
        let mut nodes = Vec::new();
        for i in 0..12usize {
            let axis = Vec3::new(unit() - 0.5, unit() + 0.1, unit() - 0.5).normalize();
            let rest = trs(
                Vec3::new(unit(), unit(), unit()) * 2.0 - 1.0,
                Quat::from_axis_angle(axis, unit() * 6.0),
                Vec3::new(0.5 + unit(), 0.5 + unit(), 0.5 + unit()),
            );
            let mut n = node(i.checked_sub(1), rest);
            if i == 3 {
                n.matrix = Some(file_matrix);
            }
            nodes.push(n);
        }
        let joints: Vec<usize> = (0..12).step_by(2).collect();
        let mut ibms: Vec<Mat4> =
            joints.iter().map(|&j| Mat4::from_translation(Vec3::splat(j as f32 * -0.5))).collect();
        ibms[1] =
            Mat4::from_scale_rotation_translation(Vec3::splat(0.5), Quat::from_rotation_x(1.0), Vec3::Y);
        if inverse_bind != Mat4::IDENTITY {
            ibms[2] = inverse_bind;
        }
        // The last joint has no IBM: identity.
        ibms.pop();
        let rig = Rig {
            nodes,
            order: (0..12).collect(),
            skins: vec![Skin { joints, inverse_bind: ibms, ..Skin::default() }],
            ..Rig::default()
        };
        let pose = Pose::rest(&rig);
        (rig, pose)
    }

    /// The general path's outputs for `pose`: globals, joint matrices, palettes (also the
    /// reference `pose_cache`'s tests compare with).
    pub(in crate::anim) fn update(rig: &Rig, pose: &Pose) -> (Vec<Mat4>, Vec<Vec<Mat4>>, Vec<Palette>) {
        let mut globals = vec![Mat4::ZERO; rig.nodes.len()];
        let mut joints: Vec<Vec<Mat4>> = rig.skins.iter().map(|s| vec![Mat4::ZERO; s.joints.len()]).collect();
        let mut palettes = Vec::new();
        let affine = update_globals(rig, pose, &mut globals);
        update_joint_matrices(rig, &globals, affine, &mut joints, &mut palettes);
        (globals, joints, palettes)
    }

    #[test]
    fn the_3x4_walk_gives_the_mat4_values_and_palettes() {
        let sheared =
            Mat4::from_cols_array(&[1., 0., 0., 0., 1., 1., 0., 0., 0., 0., 1., 0., 0., 0., 5., 1.]);
        // Affine everywhere; then a projective file matrix; then a projective IBM.
        let mut projective = sheared;
        projective.x_axis.w = 0.25;
        for (file_matrix, ibm) in
            [(sheared, Mat4::IDENTITY), (projective, Mat4::IDENTITY), (sheared, projective)]
        {
            let (rig, pose) = chain(file_matrix, ibm);
            let (want_globals, want_joints) = mat4_reference(&rig, &pose);
            let (globals, joints, palettes) = update(&rig, &pose);
            for (n, (g, w)) in globals.iter().zip(&want_globals).enumerate() {
                assert!(same(g, w), "node {n}: {g} vs {w}");
            }
            for (i, (j, w)) in joints[0].iter().zip(&want_joints[0]).enumerate() {
                assert!(same(j, w), "joint {i}: {j} vs {w}");
                let p = &palettes[0];
                assert_eq!(p.narrow[i], crate::anim::skinning::Affine34::from_mat4(w), "joint {i}");
                let wide = p.wide.as_ref().expect("6 joints fit").entries[i].0;
                let c = w.to_cols_array();
                let want: Vec<f32> = (0..16).map(|k| if k % 4 == 3 { 0.0 } else { c[k] }).collect();
                assert_eq!(wide.iter().flat_map(|v| v.to_array()).collect::<Vec<_>>(), want, "joint {i}");
            }
            assert!(palettes[0].finite);
        }
    }

    #[test]
    fn a_non_finite_pose_gives_the_mat4_values_and_an_unfinite_palette() {
        let (rig, mut pose) = chain(Mat4::IDENTITY, Mat4::IDENTITY);
        pose.locals[5].translation.x = f32::INFINITY;
        let (want_globals, want_joints) = mat4_reference(&rig, &pose);
        let (globals, joints, palettes) = update(&rig, &pose);
        assert!(globals.iter().zip(&want_globals).all(|(g, w)| same(g, w)));
        assert!(joints[0].iter().zip(&want_joints[0]).all(|(g, w)| same(g, w)));
        // The Mat4 walk's last row holds the NaN the 3x4 one would have dropped.
        // (0 0 0 1) . (inf, y, z, 1) = 0 * inf + ... = NaN.
        assert!(globals[5].w_axis.w.is_nan());
        assert!(!palettes[0].finite);
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
        let bind = bind_globals(&rig, &[Mat4::IDENTITY; 2]);
        assert_eq!(bind.len(), 3);
        // First skin wins for node 0; node 2 has no IBM in skin 1 -> identity.
        assert_eq!(bind[0], Some(Mat4::from_translation(Vec3::new(0.0, 2.0, 0.0))));
        assert_eq!(bind[1], None);
        assert_eq!(bind[2], Some(Mat4::IDENTITY));
    }
}
