//! Vertex deformation after morphing: linear blend skinning (`p' = sum_i w_i * J_i * p`
//! over every influence set, stored weights as is) and the rigid case (`p' = G(node) * p`).
//! Blending the matrices first and transforming once costs 4 matrix scale-adds per vertex
//! instead of 4 full transforms plus a sum.
//!
//! Two paths give the same numbers:
//! - `skin_fast` (one influence set, every joint matrix finite: every real file): a
//!   3x4 palette (`Affine34`, the last row of an affine joint matrix is never read), a
//!   branch-free inner loop over zipped slices (no bounds checks, no per-vertex
//!   allocation; a bad joint index reads a zero matrix, a non-finite weight counts as 0),
//!   chunked so that big meshes are split over the rayon pool (persistent threads, no
//!   spawn per frame) above `PARALLEL_MIN_VERTICES`. When the skin fits the wide palette
//!   (<= 255 joints) and the CPU has AVX2 and FMA, each chunk's vertices go through the
//!   wide kernel (`skin_lanes`, on `skin_wide`'s palette) first, and this loop does the few left over.
//! - `skin_in_place`, the general one, for several influence sets or a non-finite joint
//!   matrix (where `0 * inf` would differ from skipping the influence).
//!
//! The fast path performs the very same float operations in the same order as the general
//! one (column scale-adds `J * w + acc`, then `z * pz + (y * py + (x * px + w))`), so they
//! agree to the bit except for the sign of an exact zero; the tests check both against a
//! per-influence reference. Every multiply-add is fused (`mul_add`, correctly rounded on
//! every target), so the results are also the same bits on x86_64 with or without the
//! kernel and on aarch64 (where `mul_add` is NEON's `fmla`). On x86_64 the loops are
//! compiled a second time with FMA enabled and chosen at run time; without FMA hardware
//! (x86 from before 2013) `mul_add` is a libm call per lane: much slower, same bits.

use glam::{Affine3A, Mat3, Mat4, Vec3, Vec3A, Vec4};
use rayon::prelude::*;

use super::skin_wide::WideInput;
use crate::rig::InfluenceSet;

/// Adds `sum_k w_k * J[joints_k]` to `acc`, each column fused: `J * w + acc`. An influence
/// whose weight is zero or not finite, or whose joint index is past the skin's joints, is
/// skipped: it is a finding for that vertex only, and skipping it keeps the rest of the
/// vertex's influences.
#[inline(always)]
fn accumulate(acc: &mut Mat4, joint_matrices: &[Mat4], joints: &[u16; 4], weights: &[f32; 4]) {
    accumulate_slots(acc, joint_matrices, joints.iter().copied().zip(weights.iter().copied()));
}

/// `accumulate` over any run of (joint, weight) slots, in order.
#[inline(always)]
fn accumulate_slots(acc: &mut Mat4, joint_matrices: &[Mat4], slots: impl Iterator<Item = (u16, f32)>) {
    for (j, w) in slots {
        if w == 0.0 || !w.is_finite() {
            continue;
        }
        if let Some(m) = joint_matrices.get(usize::from(j)) {
            let w = Vec4::splat(w);
            acc.x_axis = m.x_axis.mul_add(w, acc.x_axis);
            acc.y_axis = m.y_axis.mul_add(w, acc.y_axis);
            acc.z_axis = m.z_axis.mul_add(w, acc.z_axis);
            acc.w_axis = m.w_axis.mul_add(w, acc.w_axis);
        }
    }
}

/// One point skinned with `slots` (joint, weight), in order: the kernel's own blend and
/// transform (`accumulate`, then `point`), so a vertex measured here lands on the very bits
/// `skin_in_place` and `skin_fast` draw it at when the slots are its influence sets in order.
/// For code that needs a few vertices (the viewer's vertex panel, an engine's odd vertices).
pub fn skin_point(slots: &[(u16, f32)], joint_matrices: &[Mat4], p: Vec3) -> Vec3 {
    crate::lanes::with_fma!(skin_point_body(slots: &[(u16, f32)], joint_matrices: &[Mat4], p: Vec3) -> Vec3)
}

/// `skin_point` of each of `lists` (a range of `slots`, and whether it skins the origin of
/// bind space instead of `p`), into `out` in order: one dispatch to the FMA build for a
/// vertex's many weightings (`check` measures a problem vertex under every engine profile).
pub fn skin_point_lists(
    joint_matrices: &[Mat4],
    p: Vec3,
    slots: &[(u16, f32)],
    lists: &[(std::ops::Range<usize>, bool)],
    out: &mut Vec<Vec3>,
) {
    crate::lanes::with_fma!(skin_point_lists_body(
        joint_matrices: &[Mat4],
        p: Vec3,
        slots: &[(u16, f32)],
        lists: &[(std::ops::Range<usize>, bool)],
        out: &mut Vec<Vec3>
    ));
}

#[inline(always)]
fn skin_point_lists_body(
    joint_matrices: &[Mat4],
    p: Vec3,
    slots: &[(u16, f32)],
    lists: &[(std::ops::Range<usize>, bool)],
    out: &mut Vec<Vec3>,
) {
    out.clear();
    for (range, origin) in lists {
        let list = slots.get(range.clone()).unwrap_or_default();
        out.push(skin_point_body(list, joint_matrices, if *origin { Vec3::ZERO } else { p }));
    }
}

#[inline(always)]
fn skin_point_body(slots: &[(u16, f32)], joint_matrices: &[Mat4], p: Vec3) -> Vec3 {
    let mut m = Mat4::ZERO;
    accumulate_slots(&mut m, joint_matrices, slots.iter().copied());
    point(&m, p)
}

/// `xyz` of `m * (p, 1)`: the homogeneous formula of the spec, with the w of the blended
/// matrix ignored (weights that do not sum to 1 scale the result; that is the point).
/// Fused in the fast path's order: `z * pz + (y * py + (x * px + w))`.
#[inline(always)]
fn point(m: &Mat4, p: Vec3) -> Vec3 {
    let s = Vec4::splat;
    m.z_axis.mul_add(s(p.z), m.y_axis.mul_add(s(p.y), m.x_axis.mul_add(s(p.x), m.w_axis))).truncate()
}

/// `xyz` of `m * (n, 0)`, renormalised; a zero (or collapsed) normal stays zero, never NaN.
/// Fused in the fast path's order: `z * nz + (y * ny + x * nx)`.
#[inline(always)]
fn normal(m: &Mat4, n: Vec3) -> Vec3 {
    let s = Vec4::splat;
    let v = m.z_axis.mul_add(s(n.z), m.y_axis.mul_add(s(n.y), m.x_axis * n.x));
    v.truncate().normalize_or_zero()
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
    crate::lanes::with_fma!(skin_in_place_body(
        positions: &mut [Vec3],
        normals: &mut [Vec3],
        sets: &[InfluenceSet],
        joint_matrices: &[Mat4]
    ));
}

#[inline(always)]
fn skin_in_place_body(
    positions: &mut [Vec3],
    normals: &mut [Vec3],
    sets: &[InfluenceSet],
    joint_matrices: &[Mat4],
) {
    let Some((first, more)) = sets.split_first() else {
        return;
    };
    let influences = first.joints.iter().zip(first.weights.iter());
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

/// A joint matrix without its last row: columns x, y, z (the 3x3 part) and w (translation).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Affine34 {
    cols: [Vec3A; 4],
}

impl Affine34 {
    pub(crate) const ZERO: Affine34 = Affine34 { cols: [Vec3A::ZERO; 4] };

    #[cfg(test)]
    pub(crate) fn from_mat4(m: &Mat4) -> Self {
        let c = |v: glam::Vec4| Vec3A::from(v.truncate());
        Affine34 { cols: [c(m.x_axis), c(m.y_axis), c(m.z_axis), c(m.w_axis)] }
    }

    /// `m` affine (the last row is dropped).
    #[inline]
    pub(crate) fn from_affine_mat4(m: &Mat4) -> Self {
        let c = Vec3A::from_vec4;
        Affine34 { cols: [c(m.x_axis), c(m.y_axis), c(m.z_axis), c(m.w_axis)] }
    }

    #[inline]
    pub(crate) fn from_affine(m: &Affine3A) -> Self {
        Affine34 { cols: [m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis, m.translation] }
    }

    #[inline(always)]
    fn scaled(m: &Affine34, w: f32) -> Affine34 {
        Affine34 { cols: m.cols.map(|c| c * w) }
    }

    /// `self += m * w`, each column fused.
    #[inline(always)]
    fn add_scaled(&mut self, m: &Affine34, w: f32) {
        let w = Vec3A::splat(w);
        for (a, b) in self.cols.iter_mut().zip(&m.cols) {
            *a = b.mul_add(w, *a);
        }
    }

    /// `z * pz + (y * py + (x * px + w))`, fused.
    #[inline(always)]
    fn point(&self, p: Vec3A) -> Vec3A {
        let [x, y, z, w] = self.cols;
        z.mul_add(Vec3A::splat(p.z), y.mul_add(Vec3A::splat(p.y), x.mul_add(Vec3A::splat(p.x), w)))
    }

    /// `z * nz + (y * ny + x * nx)`, fused.
    #[inline(always)]
    fn vector(&self, n: Vec3A) -> Vec3A {
        let [x, y, z, _] = self.cols;
        z.mul_add(Vec3A::splat(n.z), y.mul_add(Vec3A::splat(n.y), x * n.x))
    }
}

/// Fills `palette` from `joint_matrices`; returns whether every matrix is finite (the fast
/// path's condition). (The pose stage writes the palettes itself; this is for tests.)
#[cfg(test)]
pub(crate) fn build_palette(joint_matrices: &[Mat4], palette: &mut Vec<Affine34>) -> bool {
    palette.clear();
    palette.extend(joint_matrices.iter().map(Affine34::from_mat4));
    joint_matrices.iter().all(|m| m.is_finite())
}

/// Meshes with at least this many vertices are skinned on every thread of the rayon pool.
/// Below it the hand-off costs more than it saves (`cargo bench skinning` shows both).
pub(crate) const PARALLEL_MIN_VERTICES: usize = 16_384;
/// Vertices per parallel work item: large enough to amortise the scheduling, small enough
/// to balance two cores with other work running.
const CHUNK: usize = 4096;

/// The vertex data `skin_fast` reads.
#[derive(Clone, Copy)]
pub(crate) struct SkinInput<'a> {
    pub positions: &'a [Vec3],
    /// Empty, or one per position.
    pub normals: &'a [Vec3],
    pub joints: &'a [[u16; 4]],
    pub weights: &'a [[f32; 4]],
    /// The same influences packed for the wide kernel, with its palette, when the skin fits.
    pub wide: Option<WideInput<'a>>,
}

/// Skins `input` into `positions` / `normals` (`normals` empty = positions only) with a
/// palette whose matrices are all finite. Vertices past the influence arrays get their
/// input value unchanged, as in `skin_in_place`.
pub(crate) fn skin_fast(
    input: SkinInput,
    palette: &[Affine34],
    positions: &mut [Vec3],
    normals: &mut [Vec3],
    parallel: bool,
) {
    let with_normals = !normals.is_empty()
        && normals.len() == positions.len()
        && input.normals.len() == input.positions.len();
    let n = positions.len();
    if parallel && n >= PARALLEL_MIN_VERTICES && rayon::current_num_threads() > 1 {
        if with_normals {
            positions
                .par_chunks_mut(CHUNK)
                .zip(normals.par_chunks_mut(CHUNK))
                .enumerate()
                .for_each(|(i, (p, nrm))| skin_chunk(input.range(i * CHUNK), palette, p, nrm));
        } else {
            positions
                .par_chunks_mut(CHUNK)
                .enumerate()
                .for_each(|(i, p)| skin_chunk(input.range(i * CHUNK).no_normals(), palette, p, &mut []));
        }
    } else if with_normals {
        skin_chunk(input, palette, positions, normals);
    } else {
        skin_chunk(input.no_normals(), palette, positions, &mut []);
    }
}

impl<'a> SkinInput<'a> {
    /// The same input starting at vertex `start` (empty slices past the end).
    fn range(self, start: usize) -> Self {
        let from = |len: usize| start.min(len);
        SkinInput {
            positions: self.positions.get(from(self.positions.len())..).unwrap_or_default(),
            normals: self.normals.get(from(self.normals.len())..).unwrap_or_default(),
            joints: self.joints.get(from(self.joints.len())..).unwrap_or_default(),
            weights: self.weights.get(from(self.weights.len())..).unwrap_or_default(),
            wide: self.wide.map(|w| w.range(start)),
        }
    }

    fn no_normals(self) -> Self {
        SkinInput { normals: &[], ..self }
    }
}

/// Blends the (at most 4) influences of one vertex. Branch-free: a bad joint reads zeros,
/// a non-finite weight scales by zero.
#[inline(always)]
fn blend(palette: &[Affine34], joints: &[u16; 4], weights: &[f32; 4]) -> Affine34 {
    let influence = |k: usize| {
        let joint = palette.get(usize::from(joints[k])).unwrap_or(&Affine34::ZERO);
        (joint, if weights[k].is_finite() { weights[k] } else { 0.0 })
    };
    let (joint, w) = influence(0);
    let mut m = Affine34::scaled(joint, w);
    for k in 1..4 {
        let (joint, w) = influence(k);
        m.add_scaled(joint, w);
    }
    m
}

/// `normalize_or_zero` of four vectors at once: one `sqrtps` and one `divps` instead of
/// four serial square roots and divisions (the latency that bounded the loop). Same
/// correctly rounded operations as glam's, so the same bits.
#[inline(always)]
fn normalize4(v: [Vec3A; 4]) -> [Vec3A; 4] {
    let len2 =
        Vec4::new(v[0].length_squared(), v[1].length_squared(), v[2].length_squared(), v[3].length_squared());
    let rcp = Vec4::ONE / len2.sqrt();
    let ok = rcp.is_finite_mask() & rcp.cmpgt(Vec4::ZERO);
    // Selecting the product, not the factor: a NaN or infinite normal times zero is NaN.
    let pick = |lane: usize, v: Vec3A| if ok.test(lane) { v * rcp[lane] } else { Vec3A::ZERO };
    [pick(0, v[0]), pick(1, v[1]), pick(2, v[2]), pick(3, v[3])]
}

/// One run of vertices: the wide kernel for what it can do, the portable loop for the
/// rest. `normals` empty = positions only.
fn skin_chunk(input: SkinInput, palette: &[Affine34], positions: &mut [Vec3], normals: &mut [Vec3]) {
    let done = match input.wide {
        Some(wide) => super::skin_lanes::skin(wide, input.positions, input.normals, positions, normals),
        None => 0,
    };
    if done == 0 {
        return skin_portable(input, palette, positions, normals);
    }
    let positions = positions.get_mut(done..).unwrap_or_default();
    let normals = normals.get_mut(done..).unwrap_or_default();
    skin_portable(input.range(done), palette, positions, normals);
}

/// The portable hot loop over one run of vertices. `normals` empty = positions only.
#[inline(never)]
fn skin_portable(input: SkinInput, palette: &[Affine34], positions: &mut [Vec3], normals: &mut [Vec3]) {
    crate::lanes::with_fma!(skin_portable_body(
        input: SkinInput,
        palette: &[Affine34],
        positions: &mut [Vec3],
        normals: &mut [Vec3]
    ));
}

#[inline(always)]
fn skin_portable_body(input: SkinInput, palette: &[Affine34], positions: &mut [Vec3], normals: &mut [Vec3]) {
    let with_normals = !normals.is_empty();
    let mut n = positions.len().min(input.positions.len()).min(input.joints.len()).min(input.weights.len());
    if with_normals {
        n = n.min(normals.len()).min(input.normals.len());
    }
    let (p_out, p_tail) = positions.split_at_mut(n);
    let cut = |len: usize| ..n.min(len);
    let p_in = input.positions.get(cut(input.positions.len())).unwrap_or_default();
    let w_in = input.weights.get(cut(input.weights.len())).unwrap_or_default();
    let j_in = input.joints.get(cut(input.joints.len())).unwrap_or_default();
    if with_normals {
        let (n_out, n_tail) = normals.split_at_mut(n);
        let n_in = input.normals.get(cut(input.normals.len())).unwrap_or_default();
        let (p_out4, p_out1) = p_out.as_chunks_mut::<4>();
        let (n_out4, n_out1) = n_out.as_chunks_mut::<4>();
        let (p_in4, p_in1) = p_in.as_chunks::<4>();
        let (n_in4, n_in1) = n_in.as_chunks::<4>();
        let (j4, j1) = j_in.as_chunks::<4>();
        let (w4, w1) = w_in.as_chunks::<4>();
        let outs = p_out4.iter_mut().zip(n_out4.iter_mut());
        let ins = p_in4.iter().zip(n_in4).zip(j4).zip(w4);
        for ((po, no), (((pi, ni), j), w)) in outs.zip(ins) {
            let mut nv = [Vec3A::ZERO; 4];
            for k in 0..4 {
                let m = blend(palette, &j[k], &w[k]);
                po[k] = Vec3::from(m.point(Vec3A::from(pi[k])));
                nv[k] = m.vector(Vec3A::from(ni[k]));
            }
            for (o, v) in no.iter_mut().zip(normalize4(nv)) {
                *o = Vec3::from(v);
            }
        }
        let outs = p_out1.iter_mut().zip(n_out1.iter_mut());
        let ins = p_in1.iter().zip(n_in1).zip(j1).zip(w1);
        for ((po, no), (((&p, &nrm), j), w)) in outs.zip(ins) {
            let m = blend(palette, j, w);
            *po = Vec3::from(m.point(Vec3A::from(p)));
            *no = Vec3::from(m.vector(Vec3A::from(nrm)).normalize_or_zero());
        }
        // Past the influence arrays: the input as is.
        for (o, &v) in n_tail.iter_mut().zip(input.normals.get(n..).unwrap_or_default()) {
            *o = v;
        }
    } else {
        for (((po, &p), j), w) in p_out.iter_mut().zip(p_in).zip(j_in).zip(w_in) {
            *po = Vec3::from(blend(palette, j, w).point(Vec3A::from(p)));
        }
    }
    for (o, &v) in p_tail.iter_mut().zip(input.positions.get(n..).unwrap_or_default()) {
        *o = v;
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
pub(super) mod tests {
    use super::*;
    use crate::rig::WeightStorage;
    use glam::Quat;

    fn close(a: Vec3, b: Vec3) -> bool {
        a.abs_diff_eq(b, 1e-5)
    }

    fn set(n: usize, joints: Vec<[u16; 4]>, weights: Vec<[f32; 4]>) -> InfluenceSet {
        InfluenceSet {
            set: n,
            joints: joints.into(),
            weights: weights.into(),
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

    /// The spec formula as literally as possible, in f64: each influence transforms the
    /// point, then the weighted results are summed (a second method: the code blends the
    /// matrices first). Skips the same influences (zero or non-finite weight, bad joint).
    pub(in crate::anim) fn reference_vertex(
        joints: &[Mat4],
        sets: &[([u16; 4], [f32; 4])],
        p: Vec3,
        n: Vec3,
    ) -> (glam::DVec3, glam::DVec3) {
        let (mut pos, mut nrm) = (glam::DVec3::ZERO, glam::DVec3::ZERO);
        for (j, w) in sets {
            for k in 0..4 {
                let Some(m) = joints.get(usize::from(j[k])) else { continue };
                if w[k] == 0.0 || !w[k].is_finite() {
                    continue;
                }
                let m = m.as_dmat4();
                let wk = f64::from(w[k]);
                pos += m.transform_point3(p.as_dvec3()) * wk;
                nrm += m.transform_vector3(n.as_dvec3()) * wk;
            }
        }
        (pos, nrm.normalize_or_zero())
    }

    /// A small deterministic generator (xorshift) for random-ish rigs.
    struct Rng(u32);
    impl Rng {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            self.0
        }
        fn unit(&mut self) -> f32 {
            (self.next() >> 8) as f32 / (1u32 << 24) as f32
        }
    }

    fn close_f64(a: Vec3, b: glam::DVec3, tol: f64) -> bool {
        let d = (a.as_dvec3() - b).abs().max_element();
        d <= tol * (1.0 + b.abs().max_element())
    }

    #[test]
    fn fast_path_matches_the_reference_and_the_general_path_on_a_random_rig() {
        let mut rng = Rng(0x9e37_79b9);
        let joints: Vec<Mat4> = (0..9)
            .map(|_| {
                let axis = Vec3::new(rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() + 0.1).normalize();
                let scale = Vec3::new(0.5 + rng.unit(), 0.5 + rng.unit(), 0.5 + rng.unit());
                let t = Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 4.0 - 2.0;
                Mat4::from_scale_rotation_translation(scale, Quat::from_axis_angle(axis, rng.unit() * 6.0), t)
            })
            .collect();
        // Past PARALLEL_MIN_VERTICES, and not a multiple of the chunk or of 4.
        let n = PARALLEL_MIN_VERTICES + 4099;
        let mut js = Vec::with_capacity(n);
        let mut ws = Vec::with_capacity(n);
        for v in 0..n {
            // Joint 9..11 do not exist; every 97th vertex has a NaN weight, every 5th a zero.
            let j = [0, 1, 2, 3].map(|_| (rng.next() % 12) as u16);
            let mut w = [rng.unit(), rng.unit(), rng.unit(), rng.unit()];
            if v % 5 == 0 {
                w[2] = 0.0;
            }
            if v % 97 == 0 {
                w[1] = f32::NAN;
            }
            js.push(j);
            ws.push(w);
        }
        let positions: Vec<Vec3> =
            (0..n + 3).map(|_| Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 2.0 - 1.0).collect();
        let normals: Vec<Vec3> = positions.iter().map(|p| p.cross(Vec3::Y) + Vec3::Z * 0.1).collect();
        let mut palette = Vec::new();
        assert!(build_palette(&joints, &mut palette));
        // Influence arrays shorter than the vertices: the last 3 keep their input values.
        let input =
            SkinInput { positions: &positions, normals: &normals, joints: &js, weights: &ws, wide: None };
        for parallel in [false, true] {
            let (mut p, mut nr) = (vec![Vec3::NAN; n + 3], vec![Vec3::NAN; n + 3]);
            skin_fast(input, &palette, &mut p, &mut nr, parallel);
            let (mut gp, mut gn) = (positions.clone(), normals.clone());
            skin_in_place(&mut gp, &mut gn, &[set(0, js.clone(), ws.clone())], &joints);
            for v in 0..n {
                let (rp, rn) = reference_vertex(&joints, &[(js[v], ws[v])], positions[v], normals[v]);
                assert!(close_f64(p[v], rp, 1e-5), "vertex {v}: {} vs {rp}", p[v]);
                assert!(close_f64(nr[v], rn, 1e-5), "normal {v}: {} vs {rn}", nr[v]);
                // The general path does the same operations: equal (up to the sign of 0).
                assert_eq!((p[v], nr[v]), (gp[v], gn[v]), "vertex {v}");
            }
            assert_eq!(&p[n..], &positions[n..]);
            assert_eq!(&nr[n..], &normals[n..]);
        }
        // Positions only.
        let mut p = vec![Vec3::NAN; n + 3];
        skin_fast(input, &palette, &mut p, &mut [], true);
        for v in (0..n).step_by(7) {
            let (rp, _) = reference_vertex(&joints, &[(js[v], ws[v])], positions[v], Vec3::ZERO);
            assert!(close_f64(p[v], rp, 1e-5), "vertex {v}");
        }
    }

    /// One vertex in plain scalar `f32`, in the documented order with every multiply-add
    /// fused: the bits every path (AVX2 kernel, portable loop on any architecture, general
    /// path) must give, up to the sign of an exact zero.
    fn scalar_fused(joints: &[Mat4], j: [u16; 4], w: [f32; 4], p: Vec3, n: Vec3) -> (Vec3, Vec3) {
        let cols = |k: usize| {
            let m = joints.get(usize::from(j[k])).copied().unwrap_or(Mat4::ZERO);
            [m.x_axis, m.y_axis, m.z_axis, m.w_axis].map(|c| c.truncate().to_array())
        };
        let weight = |k: usize| if w[k].is_finite() { w[k] } else { 0.0 };
        let mut m = cols(0).map(|c| c.map(|x| x * weight(0)));
        for k in 1..4 {
            let jk = cols(k);
            for c in 0..4 {
                for r in 0..3 {
                    m[c][r] = jk[c][r].mul_add(weight(k), m[c][r]);
                }
            }
        }
        let [x, y, z, t] = m;
        let pos = [0, 1, 2].map(|r| z[r].mul_add(p.z, y[r].mul_add(p.y, x[r].mul_add(p.x, t[r]))));
        let nrm = [0, 1, 2].map(|r| z[r].mul_add(n.z, y[r].mul_add(n.y, x[r] * n.x)));
        let rcp = 1.0 / ((nrm[0] * nrm[0] + nrm[1] * nrm[1]) + nrm[2] * nrm[2]).sqrt();
        let rcp = if rcp.is_finite() && rcp > 0.0 { rcp } else { 0.0 };
        (Vec3::from_array(pos), Vec3::from_array(nrm.map(|c| c * rcp)))
    }

    fn same_bits(a: Vec3, b: Vec3) -> bool {
        a.to_array()
            .iter()
            .zip(b.to_array())
            .all(|(x, y)| x.to_bits() == y.to_bits() || (*x == 0.0 && y == 0.0))
    }

    #[test]
    fn every_path_gives_the_fused_scalar_bits() {
        let mut rng = Rng(0x2545_f491);
        let joints: Vec<Mat4> = (0..5)
            .map(|_| {
                let axis = Vec3::new(rng.unit() - 0.5, rng.unit() + 0.1, rng.unit() - 0.5).normalize();
                let scale = Vec3::new(0.5 + rng.unit(), 0.5 + rng.unit(), 0.5 + rng.unit());
                let t = Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 10.0 - 5.0;
                Mat4::from_scale_rotation_translation(scale, Quat::from_axis_angle(axis, rng.unit() * 6.0), t)
            })
            .collect();
        let n = 203;
        // Joint 5 does not exist; every 7th vertex has a NaN weight.
        let js: Vec<[u16; 4]> = (0..n).map(|_| [0, 1, 2, 3].map(|_| (rng.next() % 6) as u16)).collect();
        let ws: Vec<[f32; 4]> = (0..n)
            .map(|v| {
                let w = [rng.unit(), rng.unit(), rng.unit(), rng.unit()];
                if v % 7 == 0 { [w[0], f32::NAN, w[2], w[3]] } else { w }
            })
            .collect();
        let positions: Vec<Vec3> =
            (0..n).map(|_| Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 3.0 - 1.5).collect();
        let normals: Vec<Vec3> = positions.iter().map(|p| p.cross(Vec3::X) + Vec3::Y * 0.3).collect();
        let mut palette = Vec::new();
        assert!(build_palette(&joints, &mut palette));
        let input =
            SkinInput { positions: &positions, normals: &normals, joints: &js, weights: &ws, wide: None };
        // `Portable` is what `RIGSCOPE_SIMD=scalar` runs: `with_fma!` then takes its baseline
        // copy (no FMA instructions, `mul_add` in software), which must give the same bits.
        for backend in crate::lanes::Backend::available() {
            backend.forced(|| {
                let (mut p, mut nr) = (vec![Vec3::NAN; n], vec![Vec3::NAN; n]);
                skin_fast(input, &palette, &mut p, &mut nr, false);
                let (mut gp, mut gn) = (positions.clone(), normals.clone());
                skin_in_place(&mut gp, &mut gn, &[set(0, js.clone(), ws.clone())], &joints);
                for v in 0..n {
                    let (sp, sn) = scalar_fused(&joints, js[v], ws[v], positions[v], normals[v]);
                    assert!(same_bits(p[v], sp) && same_bits(nr[v], sn), "{backend:?} fast path, vertex {v}");
                    assert!(
                        same_bits(gp[v], sp) && same_bits(gn[v], sn),
                        "{backend:?} general path, vertex {v}"
                    );
                }
            });
        }
    }

    #[test]
    fn a_non_finite_joint_matrix_is_reported_for_the_general_path() {
        let mut palette = Vec::new();
        assert!(!build_palette(
            &[Mat4::IDENTITY, Mat4::from_scale(Vec3::splat(f32::INFINITY))],
            &mut palette
        ));
        assert_eq!(palette.len(), 2);
    }
}
