//! `PoseCache`: the pose stage's per-rig constants, worked out once when a `Workspace` is built,
//! and the fast per-frame walk that reads them. Each step of the hierarchy walk is
//! precomputed (node, parent, file matrix) and the steps are ordered level by level, so
//! that consecutive products seldom wait on each other (where a level holds one node, its
//! child takes it from registers instead of memory); the inverse bind matrices are
//! checked affine once, and every skin's joint matrices and palette are written in place
//! from the products (no second pass converting `Mat4` joint matrices to the palette).
//!
//! Every matrix here is affine, and is kept in `Mat4` form with its last row `0 0 0 1`:
//! the 3x4 products (`hierarchy::affine_mul`) then keep that row (`0 * x + 0 * y + 0 * z` and
//! `... + 1`, up to the sign of a zero, which `positive_zero_row` clears), so the walk reads
//! its parents from, and writes its results straight to, the public `Mat4` globals with no
//! conversion, and no lane of a column holds a leftover value that could drift into
//! denormals down a chain. The other floats are those of
//! `hierarchy::update_globals` / `update_joint_matrices`: the same operations in the same
//! order (the quaternion -> rotation below is glam's `Mat3A::from_quat`, lane by lane), so
//! the public globals and joint matrices are the same bits.
//!
//! The cache holds the rig's values (parents, file matrices, inverse binds), so it assumes
//! they do not change while the `Workspace` lives: nothing in rigscope mutates a rig under
//! a live `Workspace` (the TUI's weight previews build a new rig and a new `Workspace`).
//! A rig of another shape is detected and handled by the general path; one of the same
//! shape but different values gives stale output, as a `Workspace` of another rig always
//! did. The cache is only built where it is exact: `order` lists every node once, parents
//! first, and every file matrix and inverse bind matrix is affine. Otherwise, and on a frame
//! with a non-finite matrix, the caller takes the general path.

use glam::{BVec4A, Mat4, Vec4, Vec4Swizzles};

use super::hierarchy::affine_mul;
use super::palette::Palette;
use super::pose::Pose;
use super::skin_wide::WideJoint;
use super::skinning::Affine34;
use crate::rig::{Rig, Transform};

/// `Step::parent` of a root.
const ROOT: u32 = u32::MAX;
/// `Step::file` of a node without a file matrix.
const NO_FILE: u32 = u32::MAX;

/// One node of the parents-first walk.
#[derive(Debug, Clone, Copy)]
struct Step {
    node: u32,
    parent: u32,
    /// Index into `PoseCache::file_matrices`, or `NO_FILE`.
    file: u32,
    /// The parent is the step before, alone on its level: the walk takes it from
    /// registers instead of from memory (see `PoseCache::new`).
    chained: bool,
}

#[derive(Debug, Clone)]
struct SkinCache {
    /// Each joint's node; one outside the rig has an identity global.
    joints: Vec<u32>,
    /// The inverse bind matrices (identity where missing), last rows exactly `0 0 0 1`.
    inverse_bind: Vec<Mat4>,
}

#[derive(Debug, Clone)]
pub(crate) struct PoseCache {
    steps: Vec<Step>,
    /// Last rows exactly `0 0 0 1`.
    file_matrices: Vec<Mat4>,
    skins: Vec<SkinCache>,
}

impl PoseCache {
    /// `None` when the fast walk would not be exact for `rig` (see the module comment).
    pub(crate) fn new(rig: &Rig) -> Option<Self> {
        let n = rig.nodes.len();
        let index = |i: usize| u32::try_from(i).ok().filter(|&i| i != u32::MAX);
        index(n)?;
        let mut seen = vec![false; n];
        let mut steps = Vec::with_capacity(n);
        let mut file_matrices = Vec::new();
        for &node in &rig.order {
            if seen.get(node).copied() != Some(false) {
                return None;
            }
            seen[node] = true;
            let parent = match rig.nodes[node].parent.filter(|&p| p < n) {
                Some(p) if seen[p] => index(p)?,
                Some(_) => return None,
                None => ROOT,
            };
            let file = match rig.nodes[node].matrix {
                Some(m) => {
                    file_matrices.push(affine(&m)?);
                    index(file_matrices.len() - 1)?
                }
                None => NO_FILE,
            };
            steps.push(Step { node: index(node)?, parent, file, chained: false });
        }
        if steps.len() != n {
            return None;
        }
        // Level by level instead of depth first: a node's parent is still walked before it,
        // so every global is the same, but consecutive steps no longer wait on each other's
        // product (a depth-first walk is one long chain of dependent products).
        let mut depth = vec![0u32; n];
        for step in &steps {
            if let Some(&d) = depth.get(step.parent as usize) {
                depth[step.node as usize] = d + 1;
            }
        }
        steps.sort_by_key(|s| depth[s.node as usize]);
        // Where a level holds one node, nothing overlaps its product: the walk waits for it.
        // A child that comes right after such a parent then takes the parent from registers,
        // which is a shorter wait than a store and a reload (a chain of single children,
        // as in the tentacle). Elsewhere the reload is cheaper, as the
        // registers need three more lane shuffles, and the walk is bound by throughput.
        let mut on_level = vec![0u32; n];
        for step in &steps {
            on_level[depth[step.node as usize] as usize] += 1;
        }
        for i in 1..steps.len() {
            let (parent, step) = (steps[i - 1], &mut steps[i]);
            step.chained = step.parent == parent.node && on_level[depth[parent.node as usize] as usize] == 1;
        }
        let mut skins = Vec::with_capacity(rig.skins.len());
        for skin in &rig.skins {
            let joints = skin.joints.iter().map(|&j| index(j.min(n))).collect::<Option<Vec<_>>>()?;
            let inverse_bind = (0..skin.joints.len())
                .map(|i| affine(skin.inverse_bind.get(i).unwrap_or(&Mat4::IDENTITY)))
                .collect::<Option<Vec<_>>>()?;
            skins.push(SkinCache { joints, inverse_bind });
        }
        Some(PoseCache { steps, file_matrices, skins })
    }

    /// Whether this cache was built for a rig of `rig`'s shape, and the buffers fit it.
    fn fits(&self, rig: &Rig, pose: &Pose, globals: &[Mat4], joint_matrices: &[Vec<Mat4>]) -> bool {
        let n = self.steps.len();
        n == rig.nodes.len()
            && pose.locals.len() == n
            && pose.use_matrix.len() == n
            && globals.len() == n
            && self.skins.len() == rig.skins.len()
            && self.skins.len() == joint_matrices.len()
            && self.skins.iter().zip(&rig.skins).zip(joint_matrices).all(|((cached, skin), out)| {
                cached.joints.len() == skin.joints.len() && out.len() == skin.joints.len()
            })
    }

    /// The globals, joint matrices and palettes of `pose`, as `update_globals` followed by
    /// `update_joint_matrices` would write them. False, with the outputs partly written,
    /// when the cache does not fit `rig` or some matrix is not finite: the caller then
    /// runs the general path, which rewrites everything.
    pub(crate) fn update(
        &self,
        rig: &Rig,
        pose: &Pose,
        globals: &mut [Mat4],
        joint_matrices: &mut [Vec<Mat4>],
        palettes: &mut Vec<Palette>,
    ) -> bool {
        if !self.fits(rig, pose, globals, joint_matrices) {
            return false;
        }
        let cache = self;
        crate::lanes::with_fma!(walk(
            cache: &PoseCache,
            pose: &Pose,
            globals: &mut [Mat4],
            joint_matrices: &mut [Vec<Mat4>],
            palettes: &mut Vec<Palette>
        ) -> bool)
    }
}

/// `PoseCache::update` once the cache is known to fit `pose` and the outputs.
#[inline(always)]
fn walk(
    cache: &PoseCache,
    pose: &Pose,
    globals: &mut [Mat4],
    joint_matrices: &mut [Vec<Mat4>],
    palettes: &mut Vec<Palette>,
) -> bool {
    // Every product's entries are summed into `probe`, which is non-finite once some entry
    // was (or finite entries overflowed, which only costs the general path): one test at
    // the end instead of one per matrix.
    let mut probe = Vec4::ZERO;
    // The last global; the first step is never chained.
    let mut last = Mat4::IDENTITY;
    for step in &cache.steps {
        let node = step.node as usize;
        let local = match cache.file_matrices.get(step.file as usize) {
            Some(m) if pose.use_matrix[node] => *m,
            _ => local_trs(&pose.locals[node]),
        };
        let parent = if step.chained { Some(&last) } else { globals.get(step.parent as usize) };
        let global = match parent {
            Some(parent) => kept(affine_mul(parent, &local), &mut probe),
            None => kept(local, &mut probe),
        };
        globals[node] = global;
        last = global;
    }
    palettes.resize_with(joint_matrices.len(), Palette::default);
    for ((skin, out), palette) in cache.skins.iter().zip(joint_matrices.iter_mut()).zip(palettes.iter_mut()) {
        // `fits` made `out`, `skin.joints` and `skin.inverse_bind` the same length, so
        // every slot of the palette is set.
        let (narrow, wide) = palette.in_place(out.len());
        let joints = out.iter_mut().zip(narrow).zip(&skin.joints).zip(&skin.inverse_bind);
        let mut joint = |(((o, n), &joint), inverse_bind): (((&mut Mat4, &mut Affine34), &u32), &Mat4)| {
            let global = globals.get(joint as usize).unwrap_or(&Mat4::IDENTITY);
            let m = kept(affine_mul(global, inverse_bind), &mut probe);
            *o = m;
            *n = Affine34::from_affine_mat4(&m);
            m
        };
        // Two loops, so that neither has a branch on the wide table.
        match wide {
            Some(wide) => {
                for (j, w) in joints.zip(wide) {
                    *w = WideJoint::from_affine_mat4(&joint(j));
                }
            }
            None => {
                for j in joints {
                    joint(j);
                }
            }
        }
    }
    // Any non-finite lane turns into NaN (inf * 0); the last row's lanes are finite.
    probe.xyz() * 0.0 == glam::Vec3::ZERO
}

/// `positive_zero_row(m)`, its entries added to `probe`.
#[inline(always)]
fn kept(m: Mat4, probe: &mut Vec4) -> Mat4 {
    let m = positive_zero_row(m);
    *probe += m.x_axis + m.y_axis + m.z_axis + m.w_axis;
    m
}

/// `m` with the zeros of its last row made `+0.0`, as `Mat4::from(Affine3A)` writes them
/// (`0.0 * -s` is `-0.0`). Finite `m` only (where those entries are zeros). A lane select,
/// off the dependency chain of the walk: it used to add `(-0, -0, -0, +0)` to each column,
/// three cycles of latency per node.
#[inline(always)]
fn positive_zero_row(m: Mat4) -> Mat4 {
    const XYZ: BVec4A = BVec4A::new(true, true, true, false);
    let row = |v: Vec4| Vec4::select(XYZ, v, Vec4::ZERO);
    Mat4::from_cols(row(m.x_axis), row(m.y_axis), row(m.z_axis), m.w_axis)
}

/// `m` with its last row made exactly `0 0 0 1` (not `-0`); `None` unless it was that.
fn affine(m: &Mat4) -> Option<Mat4> {
    let last_row = [m.x_axis.w, m.y_axis.w, m.z_axis.w, m.w_axis.w];
    (last_row == [0.0, 0.0, 0.0, 1.0]).then(|| {
        let c = |v: Vec4, w: f32| v.truncate().extend(w);
        Mat4::from_cols(c(m.x_axis, 0.0), c(m.y_axis, 0.0), c(m.z_axis, 0.0), c(m.w_axis, 1.0))
    })
}

/// `Mat4::from(Affine3A::from_scale_rotation_translation(scale, rotation, translation))`:
/// the same float operations as glam's `Mat3A::from_quat`, four lanes at a time (the zeros
/// of the last row may be `-0.0`).
#[inline(always)]
fn local_trs(l: &Transform) -> Mat4 {
    let q = Vec4::from(l.rotation);
    let q2 = q + q; // x2 y2 z2 .
    let squares = q * q2; // xx yy zz .
    let mixed = q.xyxw() * q2.yzzw(); // xy yz xz .
    let w = q.wwww() * q2.zxyw(); // wz wx wy .
    let plus = mixed + w; // xy+wz yz+wx xz+wy
    let minus = mixed - w; // xy-wz yz-wx xz-wy
    let diagonal = Vec4::ONE - (squares.yxxw() + squares.zzyw()); // 1-(yy+zz) 1-(xx+zz) 1-(xx+yy)
    let x_axis = Vec4::new(diagonal.x, plus.x, minus.z, 0.0);
    let y_axis = Vec4::new(minus.x, diagonal.y, plus.y, 0.0);
    let z_axis = Vec4::new(plus.z, minus.y, diagonal.z, 0.0);
    let s = l.scale;
    Mat4::from_cols(x_axis * s.x, y_axis * s.y, z_axis * s.z, l.translation.extend(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::hierarchy::tests::update as general_path;
    use crate::rig::{Node, Skin};
    use glam::{Affine3A, Quat, Vec3};

    fn bits(m: &Mat4) -> [u32; 16] {
        m.to_cols_array().map(f32::to_bits)
    }

    fn rng(mut seed: u32) -> impl FnMut() -> f32 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        }
    }

    fn random_transform(unit: &mut impl FnMut() -> f32) -> Transform {
        Transform {
            translation: Vec3::new(unit(), unit(), unit()) * 10.0,
            // Normalised or not: the formula is the same either way.
            rotation: Quat::from_xyzw(unit(), unit(), unit(), unit()),
            scale: Vec3::new(unit(), unit(), unit()) * 3.0,
        }
    }

    #[test]
    fn local_trs_is_glams_to_the_bit() {
        let mut unit = rng(0x9e37_79b9);
        for _ in 0..1000 {
            let l = random_transform(&mut unit);
            let want =
                Mat4::from(Affine3A::from_scale_rotation_translation(l.scale, l.rotation, l.translation));
            assert_eq!(bits(&positive_zero_row(local_trs(&l))), bits(&want), "{l:?}");
        }
    }

    #[test]
    fn affine_mul_is_the_fused_product_entry_by_entry_and_close_to_the_exact_one() {
        // Entry (row r, column c) worked out one scalar at a time with `f32::mul_add` in
        // the documented order, and the exact product in f64 as a second method: the fused
        // one rounds each entry at most three times, so it is within a few ulps of exact.
        let mut unit = rng(0x1234_5678);
        for _ in 0..1000 {
            let (a, b) = (random_transform(&mut unit), random_transform(&mut unit));
            let a = Mat4::from(Affine3A::from_scale_rotation_translation(a.scale, a.rotation, a.translation));
            let b = Mat4::from(Affine3A::from_scale_rotation_translation(b.scale, b.rotation, b.translation));
            let got = positive_zero_row(affine_mul(&a, &b));
            let (ga, gb) = (a.to_cols_array_2d(), b.to_cols_array_2d());
            let mut want = Mat4::IDENTITY.to_cols_array_2d();
            for c in 0..4 {
                for r in 0..3 {
                    let inner =
                        if c == 3 { ga[0][r].mul_add(gb[c][0], ga[3][r]) } else { ga[0][r] * gb[c][0] };
                    want[c][r] = ga[2][r].mul_add(gb[c][2], ga[1][r].mul_add(gb[c][1], inner));
                    let exact: f64 = (0..3).map(|k| f64::from(ga[k][r]) * f64::from(gb[c][k])).sum::<f64>()
                        + if c == 3 { f64::from(ga[3][r]) } else { 0.0 };
                    let scale =
                        (0..3).map(|k| (f64::from(ga[k][r]) * f64::from(gb[c][k])).abs()).sum::<f64>()
                            + if c == 3 { f64::from(ga[3][r]).abs() } else { 0.0 };
                    let err = (f64::from(want[c][r]) - exact).abs();
                    assert!(
                        err <= 4.0 * f64::from(f32::EPSILON) * scale,
                        "({r}, {c}): {} vs {exact}",
                        want[c][r]
                    );
                }
            }
            assert_eq!(bits(&got), bits(&Mat4::from_cols_array_2d(&want)));
        }
    }

    /// 16 nodes in a tree (node i hangs off node (i - 1) / 2), random TRS with non-uniform
    /// scale; node 5 has a sheared file matrix whose last row holds `-0.0`. One skin over
    /// every third node, one joint outside the rig, and one inverse bind missing.
    fn tree() -> Rig {
        let mut unit = rng(0x2545_f491);
        let shear =
            Mat4::from_cols_array(&[1., 0., -0., 0., 1., 1., 0., -0., 0., 0., 1., 0., 0., 0., 5., 1.]);
        let nodes = (0..16usize)
            .map(|i| Node {
                parent: i.checked_sub(1).map(|p| p / 2),
                rest: random_transform(&mut unit),
                matrix: (i == 5).then_some(shear),
                ..Node::default()
            })
            .collect();
        let joints: Vec<usize> = (0..16).step_by(3).chain([99]).collect();
        let mut inverse_bind: Vec<Mat4> = joints
            .iter()
            .map(|_| {
                let t = random_transform(&mut unit);
                Mat4::from_scale_rotation_translation(t.scale, t.rotation.normalize(), t.translation)
            })
            .collect();
        inverse_bind.pop();
        Rig {
            nodes,
            order: (0..16).collect(),
            skins: vec![Skin { joints, inverse_bind, ..Skin::default() }],
            ..Rig::default()
        }
    }

    fn assert_same_as_general(rig: &Rig, cache: &PoseCache, pose: &Pose) {
        let (want_globals, want_joints, want_palettes) = general_path(rig, pose);
        let mut globals = vec![Mat4::ZERO; rig.nodes.len()];
        let mut joints: Vec<Vec<Mat4>> = rig.skins.iter().map(|s| vec![Mat4::ZERO; s.joints.len()]).collect();
        let mut palettes = Vec::new();
        // `update` (with FMA where the CPU has it) and the baseline `walk` alike.
        for baseline in [false, true] {
            let done = if baseline {
                walk(cache, pose, &mut globals, &mut joints, &mut palettes)
            } else {
                cache.update(rig, pose, &mut globals, &mut joints, &mut palettes)
            };
            assert!(done);
            for (n, (g, w)) in globals.iter().zip(&want_globals).enumerate() {
                assert_eq!(bits(g), bits(w), "node {n}");
            }
            for (s, (got, want)) in joints.iter().zip(&want_joints).enumerate() {
                for (i, (j, w)) in got.iter().zip(want).enumerate() {
                    assert_eq!(bits(j), bits(w), "skin {s} joint {i}");
                }
            }
            assert_eq!(palettes.len(), want_palettes.len());
            for (p, w) in palettes.iter().zip(&want_palettes) {
                assert_eq!(p.narrow, w.narrow);
                assert_eq!(p.wide, w.wide);
                assert!(p.finite && w.finite);
            }
            globals.fill(Mat4::NAN);
            joints.iter_mut().for_each(|j| j.fill(Mat4::NAN));
            palettes.clear();
        }
    }

    #[test]
    fn the_cached_walk_writes_what_the_general_path_writes() {
        let rig = tree();
        let cache = PoseCache::new(&rig).expect("affine, parents first");
        let mut pose = Pose::rest(&rig);
        assert_same_as_general(&rig, &cache, &pose);
        // The file matrix overridden by a sampled channel, and other locals moved.
        let mut unit = rng(77);
        pose.use_matrix[5] = false;
        for l in pose.locals.iter_mut().step_by(2) {
            *l = random_transform(&mut unit);
        }
        assert_same_as_general(&rig, &cache, &pose);
    }

    #[test]
    fn the_samples_give_the_general_paths_bits_at_every_frame() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
        for name in ["walker.glb", "tentacle.glb"] {
            let rig = crate::import::load(&dir.join(name)).expect("bundled sample loads");
            let cache = PoseCache::new(&rig).expect("the samples are affine");
            let mut pose = Pose::rest(&rig);
            let clip = rig.clips.first().expect("the samples are animated");
            for i in 0..=12 {
                pose.reset(&rig);
                crate::anim::sample(clip, clip.duration * i as f32 / 12.0, &mut pose);
                assert_same_as_general(&rig, &cache, &pose);
            }
        }
    }

    #[test]
    fn single_children_take_their_parent_from_registers_with_the_same_bits() {
        let chained = |rig: &Rig| {
            let cache = PoseCache::new(rig).expect("affine, parents first");
            cache.steps.iter().map(|s| (s.node, s.chained)).collect::<Vec<_>>()
        };
        // The binary tree: only the root is alone on its level, and of its two children
        // only the first follows it.
        let mut want = vec![(0, false), (1, true), (2, false)];
        want.extend((3..16).map(|i| (i, false)));
        assert_eq!(chained(&tree()), want);

        // A chain with a file matrix in it, then a fork: of the two children of the
        // chain's end, the first follows it.
        let mut rig = tree();
        for (i, node) in rig.nodes.iter_mut().enumerate() {
            node.parent = i.checked_sub(1).map(|p| if i == 15 { 13 } else { p });
        }
        let mut want: Vec<_> = (0..16).map(|i| (i, i > 0)).collect();
        want[15].1 = false;
        assert_eq!(chained(&rig), want);
        let cache = PoseCache::new(&rig).unwrap();
        let mut pose = Pose::rest(&rig);
        assert_same_as_general(&rig, &cache, &pose);
        let mut unit = rng(5);
        pose.use_matrix[5] = false;
        for l in pose.locals.iter_mut().skip(1).step_by(3) {
            *l = random_transform(&mut unit);
        }
        assert_same_as_general(&rig, &cache, &pose);
    }

    #[test]
    fn a_skin_too_big_for_the_wide_table_gets_the_general_paths_palette() {
        let mut rig = tree();
        let mut unit = rng(11);
        rig.nodes = (0..300usize)
            .map(|i| Node {
                parent: i.checked_sub(1).map(|p| p / 3),
                rest: random_transform(&mut unit),
                ..Node::default()
            })
            .collect();
        rig.order = (0..300).collect();
        rig.skins[0].joints = (0..300).rev().collect();
        rig.skins[0].inverse_bind = vec![Mat4::from_translation(glam::Vec3::new(1.0, -2.0, 0.5)); 300];
        let cache = PoseCache::new(&rig).unwrap();
        assert_same_as_general(&rig, &cache, &Pose::rest(&rig));
        let (_, _, palettes) = general_path(&rig, &Pose::rest(&rig));
        assert!(palettes[0].wide.is_none() && palettes[0].narrow.len() == 300);
    }

    #[test]
    fn no_cache_where_it_would_not_be_exact() {
        let mut projective_ibm = tree();
        projective_ibm.skins[0].inverse_bind[1].x_axis.w = 0.25;
        assert!(PoseCache::new(&projective_ibm).is_none());
        let mut projective_file = tree();
        projective_file.nodes[5].matrix.as_mut().unwrap().w_axis.w = 2.0;
        assert!(PoseCache::new(&projective_file).is_none());
        let mut child_first = tree();
        child_first.order.swap(0, 1);
        assert!(PoseCache::new(&child_first).is_none());
        let mut missing = tree();
        missing.order.pop();
        assert!(PoseCache::new(&missing).is_none());
        let mut twice = tree();
        twice.order[15] = 14;
        assert!(PoseCache::new(&twice).is_none());
    }

    #[test]
    fn a_non_finite_pose_or_another_rig_is_left_to_the_general_path() {
        let rig = tree();
        let cache = PoseCache::new(&rig).expect("affine, parents first");
        let mut pose = Pose::rest(&rig);
        let mut globals = vec![Mat4::ZERO; rig.nodes.len()];
        let mut joints: Vec<Vec<Mat4>> = rig.skins.iter().map(|s| vec![Mat4::ZERO; s.joints.len()]).collect();
        let mut palettes = Vec::new();
        pose.locals[7].translation.y = f32::INFINITY;
        assert!(!cache.update(&rig, &pose, &mut globals, &mut joints, &mut palettes));
        pose.locals[7].translation.y = f32::NAN;
        assert!(!cache.update(&rig, &pose, &mut globals, &mut joints, &mut palettes));
        let mut other = tree();
        other.nodes.pop();
        other.order.pop();
        assert!(!cache.update(&other, &Pose::rest(&other), &mut globals, &mut joints, &mut palettes));
    }
}
