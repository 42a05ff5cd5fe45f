//! Vertex deformation after morphing, in place on the workspace buffers: linear blend
//! skinning (`p' = sum_i w_i * J_i * p` over every influence set, stored weights as is)
//! and the rigid case (`p' = G(node) * p`). Blending the matrices first and transforming
//! once costs 4 matrix scale-adds per vertex instead of 4 full transforms plus a sum.

use glam::{Mat3, Mat4, Vec3};

use crate::rig::InfluenceSet;

/// Adds `sum_k w_k * J[joints_k]` to `acc`. An influence whose weight is zero or not finite,
/// or whose joint index is past the skin's joints, is skipped: it is a finding for that
/// vertex only, and skipping it keeps the rest of the vertex's influences.
#[inline]
fn accumulate(acc: &mut Mat4, joint_matrices: &[Mat4], joints: &[u16; 4], weights: &[f32; 4]) {
    for (&j, &w) in joints.iter().zip(weights) {
        if w == 0.0 || !w.is_finite() {
            continue;
        }
        if let Some(m) = joint_matrices.get(usize::from(j)) {
            *acc += *m * w;
        }
    }
}

/// `xyz` of `m * (p, 1)`: the homogeneous formula of the spec, with the w of the blended
/// matrix ignored (weights that do not sum to 1 scale the result; that is the point).
#[inline]
fn point(m: &Mat4, p: Vec3) -> Vec3 {
    (*m * p.extend(1.0)).truncate()
}

/// `xyz` of `m * (n, 0)`, renormalised; a zero (or collapsed) normal stays zero, never NaN.
#[inline]
fn normal(m: &Mat4, n: Vec3) -> Vec3 {
    (*m * n.extend(0.0)).truncate().normalize_or_zero()
}

/// Skins `positions` (and `normals` when it has one entry per position) in place. Vertices
/// past the end of an influence set's arrays get nothing from that set; vertices past the
/// first set's arrays stay as they are.
pub(crate) fn skin_in_place(
    positions: &mut [Vec3],
    normals: &mut [Vec3],
    sets: &[InfluenceSet],
    joint_matrices: &[Mat4],
) {
    let Some((first, more)) = sets.split_first() else {
        return;
    };
    let influences = first.joints.iter().zip(&first.weights);
    let blended = |v: usize, joints: &[u16; 4], weights: &[f32; 4]| {
        let mut m = Mat4::ZERO;
        accumulate(&mut m, joint_matrices, joints, weights);
        for set in more {
            if let (Some(j), Some(w)) = (set.joints.get(v), set.weights.get(v)) {
                accumulate(&mut m, joint_matrices, j, w);
            }
        }
        m
    };
    if normals.len() == positions.len() {
        let vertices = positions.iter_mut().zip(normals.iter_mut());
        for (v, ((p, n), (j, w))) in vertices.zip(influences).enumerate() {
            let m = blended(v, j, w);
            *p = point(&m, *p);
            *n = normal(&m, *n);
        }
    } else {
        for (v, (p, (j, w))) in positions.iter_mut().zip(influences).enumerate() {
            *p = point(&blended(v, j, w), *p);
        }
    }
}

/// Moves a rigid primitive by its node's global transform. Normals use the cofactor
/// matrix (the inverse-transpose scaled by the determinant, sign kept): correct under
/// non-uniform scale where the plain upper 3x3 would tilt them, and still defined when a
/// scale is zero, where the inverse-transpose does not exist.
pub(crate) fn rigid_in_place(positions: &mut [Vec3], normals: &mut [Vec3], global: &Mat4) {
    for p in positions.iter_mut() {
        *p = global.transform_point3(*p);
    }
    let normal_matrix = normal_matrix(global);
    for n in normals.iter_mut() {
        *n = (normal_matrix * *n).normalize_or_zero();
    }
}

/// `sign(det) * cofactor(M3)`, where `cofactor(M3) = det(M3) * inverse(M3)^T`.
fn normal_matrix(global: &Mat4) -> Mat3 {
    let m = Mat3::from_mat4(*global);
    let (c0, c1, c2) = (m.x_axis, m.y_axis, m.z_axis);
    let cofactor = Mat3::from_cols(c1.cross(c2), c2.cross(c0), c0.cross(c1));
    // A mirror (det < 0) flips the cofactor; the inverse-transpose keeps the outward side.
    if m.determinant() < 0.0 { -cofactor } else { cofactor }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::WeightStorage;
    use glam::Quat;

    fn close(a: Vec3, b: Vec3) -> bool {
        a.abs_diff_eq(b, 1e-5)
    }

    fn set(n: usize, joints: Vec<[u16; 4]>, weights: Vec<[f32; 4]>) -> InfluenceSet {
        InfluenceSet {
            set: n,
            joints,
            weights,
            weight_storage: WeightStorage::F32,
            joints_accessor: 0,
            weights_accessor: 0,
        }
    }

    /// J0 moves by +x, J1 turns 90 degrees about z.
    fn two_joints() -> [Mat4; 2] {
        [Mat4::from_translation(Vec3::X), Mat4::from_quat(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2))]
    }

    #[test]
    fn blends_two_joints_with_the_stored_weights() {
        let joints = two_joints();
        let mut positions = [Vec3::X, Vec3::X];
        let mut normals = [Vec3::X, Vec3::X];
        let sets = [set(
            0,
            vec![[0, 1, 0, 0], [0, 1, 0, 0]],
            // Second vertex's weights sum to 0.5: used as stored, not renormalised.
            vec![[0.25, 0.75, 0.0, 0.0], [0.25, 0.25, 0.0, 0.0]],
        )];
        skin_in_place(&mut positions, &mut normals, &sets, &joints);
        // J0 (1,0,0) = (2,0,0), J1 (1,0,0) = (0,1,0)
        // v0: 0.25 (2,0,0) + 0.75 (0,1,0) = (0.5, 0.75, 0)
        assert!(close(positions[0], Vec3::new(0.5, 0.75, 0.0)), "{}", positions[0]);
        // v1: 0.25 (2,0,0) + 0.25 (0,1,0) = (0.5, 0.25, 0)
        assert!(close(positions[1], Vec3::new(0.5, 0.25, 0.0)), "{}", positions[1]);
        // normals: v0 (0.25, 0.75, 0) / sqrt(0.625) = (0.3162278, 0.9486833, 0)
        assert!(close(normals[0], Vec3::new(0.316_227_8, 0.948_683_3, 0.0)));
        // v1 (0.25, 0.25, 0) normalised = (0.7071068, 0.7071068, 0)
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert!(close(normals[1], Vec3::new(h, h, 0.0)));
    }

    #[test]
    fn bad_joint_index_and_nan_weight_are_skipped_for_that_influence_only() {
        let joints = two_joints();
        let mut positions = [Vec3::X, Vec3::X, Vec3::X];
        let mut normals = [Vec3::Y; 3];
        let sets = [set(
            0,
            vec![[0, 7, 0, 0], [0, 1, 1, 0], [0, 1, 0, 0]],
            vec![[0.5, 0.5, 0.0, 0.0], [0.5, f32::NAN, 0.5, 0.0], [0.25, 0.75, 0.0, 0.0]],
        )];
        skin_in_place(&mut positions, &mut normals, &sets, &joints);
        // v0: joint 7 does not exist -> 0.5 J0 (1,0,0) = (1,0,0)
        assert!(close(positions[0], Vec3::new(1.0, 0.0, 0.0)), "{}", positions[0]);
        // v1: the NaN influence is dropped -> 0.5 (2,0,0) + 0.5 (0,1,0) = (1, 0.5, 0)
        assert!(close(positions[1], Vec3::new(1.0, 0.5, 0.0)), "{}", positions[1]);
        // v2 untouched by its neighbours' faults
        assert!(close(positions[2], Vec3::new(0.5, 0.75, 0.0)));
        assert!(normals.iter().all(|n| n.is_finite()));
    }

    #[test]
    fn every_influence_set_counts() {
        let joints = two_joints();
        let mut positions = [Vec3::X];
        let sets = [
            set(0, vec![[0, 0, 0, 0]], vec![[0.5, 0.0, 0.0, 0.0]]),
            set(1, vec![[0, 1, 0, 0]], vec![[0.0, 0.5, 0.0, 0.0]]),
        ];
        skin_in_place(&mut positions, &mut [], &sets, &joints);
        // 0.5 (2,0,0) + 0.5 (0,1,0) = (1, 0.5, 0); dropping set 1 would give (1, 0, 0).
        assert!(close(positions[0], Vec3::new(1.0, 0.5, 0.0)), "{}", positions[0]);
    }

    #[test]
    fn zero_normals_stay_zero() {
        let joints = two_joints();
        let mut positions = [Vec3::X];
        let mut normals = [Vec3::ZERO];
        let sets = [set(0, vec![[1, 0, 0, 0]], vec![[1.0, 0.0, 0.0, 0.0]])];
        skin_in_place(&mut positions, &mut normals, &sets, &joints);
        assert_eq!(normals[0], Vec3::ZERO);
        let mut normals = [Vec3::ZERO];
        rigid_in_place(&mut positions, &mut normals, &Mat4::from_scale(Vec3::ZERO));
        assert_eq!(normals[0], Vec3::ZERO);
    }

    #[test]
    fn rigid_normals_follow_the_inverse_transpose() {
        let global = Mat4::from_scale_rotation_translation(
            Vec3::new(2.0, 1.0, 1.0),
            Quat::IDENTITY,
            Vec3::new(0.0, 0.0, 3.0),
        );
        let mut positions = [Vec3::new(1.0, 1.0, 0.0)];
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let mut normals = [Vec3::new(h, h, 0.0)];
        rigid_in_place(&mut positions, &mut normals, &global);
        assert!(close(positions[0], Vec3::new(2.0, 1.0, 3.0)));
        // inverse-transpose diag(1/2, 1, 1): (0.5, 1, 0) / |.| = (0.4472136, 0.8944272, 0);
        // the plain 3x3 would give (2, 1, 0) / |.| = (0.894, 0.447, 0).
        assert!(close(normals[0], Vec3::new(0.447_213_6, 0.894_427_2, 0.0)), "{}", normals[0]);
        // A mirror keeps the normal pointing the way the inverse-transpose points it:
        // diag(-1,1,1)^-T = diag(-1,1,1): (1,0,0) -> (-1,0,0).
        let mut normals = [Vec3::X];
        rigid_in_place(&mut [], &mut normals, &Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)));
        assert!(close(normals[0], Vec3::new(-1.0, 0.0, 0.0)));
    }
}
