//! The wide skinning kernel, written once against `crate::lanes` and run with AVX2 + FMA
//! where the CPU has them. Eight vertices per step.
//!
//! Each vertex's blend is worked two matrix columns per register (`WideJoint` stores
//! x | y, then z | w). Two vertices then share a register, one per half: their columns
//! are paired by `low_halves`/`high_halves` (one cross-half shuffle per column pair). The
//! block's 24 input floats are read with `vec3_pair_spreads` (one load and three shuffles
//! per pair, each coordinate spread over its vertex's half) and written with
//! `store_vec3_pairs` (one 16-byte store per vertex), and every slice is cut into whole
//! blocks once (`as_chunks`): lane-by-lane loads, stores and per-vertex bounds checks made
//! this kernel 1.7x the instructions of 81ad760's hand-written one (callgrind, CesiumMan).
//! The eight normals' lengths are gathered into one register so that a single `sqrt` and
//! `div` serve all eight.
//!
//! Per vertex it performs the portable loop's float operations in the same order, each
//! multiply-add fused (the portable loop uses `mul_add`), so both give the same bits (up to
//! the sign of an exact zero):
//! - blend: each column `J[j0] * w0`, then `J[jk] * wk + acc` fused, influences in order;
//! - position `z * pz + (y * py + (x * px + w))`, normal `z * nz + (y * ny + x * nx)`,
//!   fused;
//! - normals: `1 / sqrt((x^2 + y^2) + z^2)` and the same finite-and-positive test as
//!   glam's `normalize_or_zero`.

use glam::Vec3;

use super::skin_wide::{WideInput, WideJoint};
use crate::lanes::{self, F32x8, I32x8, Isa, Kernel};

/// Vertices per step of the kernel.
pub(super) const BLOCK: usize = 8;

/// Skins whole blocks of `BLOCK` vertices with AVX2 and returns how many vertices were
/// done (0 off the AVX2 backend); the caller does the rest. `normals_out` empty =
/// positions only.
pub(super) fn skin(
    wide: WideInput,
    positions_in: &[Vec3],
    normals_in: &[Vec3],
    positions_out: &mut [Vec3],
    normals_out: &mut [Vec3],
) -> usize {
    // The portable lanes would do each fused multiply-add as a libm call on x86-64 without
    // FMA, and elsewhere are not measured yet: the portable loop does those vertices.
    if lanes::Backend::current() != lanes::Backend::Avx2 {
        return 0;
    }
    let with_normals = !normals_out.is_empty();
    let mut n = positions_in.len().min(positions_out.len()).min(wide.joints.len()).min(wide.weights.len());
    if with_normals {
        n = n.min(normals_in.len()).min(normals_out.len());
    }
    let n = n / BLOCK * BLOCK;
    let blocks = Blocks {
        palette: &wide.palette.entries,
        joints: &wide.joints[..n],
        weights: &wide.weights[..n],
        p_in: &positions_in[..n],
        p_out: &mut positions_out[..n],
        n_in: if with_normals { &normals_in[..n] } else { &[] },
        n_out: if with_normals { &mut normals_out[..n] } else { &mut [] },
    };
    if with_normals {
        lanes::run(SkinBlocks::<true>(blocks))
    } else {
        lanes::run(SkinBlocks::<false>(blocks))
    }
    n
}

/// The kernel's slices, all `n` long (a multiple of `BLOCK`), the normal ones empty when
/// `NORMALS` is false.
pub(super) struct Blocks<'a> {
    pub palette: &'a [WideJoint; 256],
    pub joints: &'a [[u8; 4]],
    pub weights: &'a [[f32; 4]],
    pub p_in: &'a [Vec3],
    pub p_out: &'a mut [Vec3],
    pub n_in: &'a [Vec3],
    pub n_out: &'a mut [Vec3],
}

/// The kernel, with or without normals.
pub(super) struct SkinBlocks<'a, const NORMALS: bool>(pub Blocks<'a>);

impl<const NORMALS: bool> Kernel for SkinBlocks<'_, NORMALS> {
    type Output = ();

    #[inline(always)]
    fn run<S: Isa>(self) {
        let a = self.0;
        // Whole blocks as arrays: one length check per slice, none per vertex.
        let (joints, _) = a.joints.as_chunks::<BLOCK>();
        let (weights, _) = a.weights.as_chunks::<BLOCK>();
        let (p_in, _) = a.p_in.as_chunks::<BLOCK>();
        let (p_out, _) = a.p_out.as_chunks_mut::<BLOCK>();
        let blocks = joints.iter().zip(weights).zip(p_in.iter().zip(p_out));
        if NORMALS {
            let (n_in, _) = a.n_in.as_chunks::<BLOCK>();
            let (n_out, _) = a.n_out.as_chunks_mut::<BLOCK>();
            for (((j, w), (p, p_out)), (n, n_out)) in blocks.zip(n_in.iter().zip(n_out)) {
                let block = Block { palette: a.palette, joints: j, weights: w, p_in: p, n_in: n };
                let [p0, n0] = block.pair::<S, 0, true>();
                let [p1, n1] = block.pair::<S, 1, true>();
                let [p2, n2] = block.pair::<S, 2, true>();
                let [p3, n3] = block.pair::<S, 3, true>();
                F32x8::store_vec3_pairs([p0, p1, p2, p3], p_out);
                let rcp = reciprocal_lengths(&[n0, n1, n2, n3]);
                let units = [
                    unit(n0, rcp.spread::<0>()),
                    unit(n1, rcp.spread::<1>()),
                    unit(n2, rcp.spread::<2>()),
                    unit(n3, rcp.spread::<3>()),
                ];
                F32x8::store_vec3_pairs(units, n_out);
            }
        } else {
            for ((j, w), (p, p_out)) in blocks {
                let block = Block { palette: a.palette, joints: j, weights: w, p_in: p, n_in: p };
                let [p0, _] = block.pair::<S, 0, false>();
                let [p1, _] = block.pair::<S, 1, false>();
                let [p2, _] = block.pair::<S, 2, false>();
                let [p3, _] = block.pair::<S, 3, false>();
                F32x8::store_vec3_pairs([p0, p1, p2, p3], p_out);
            }
        }
    }
}

/// `n` scaled by `rcp`; zero where `rcp` is (a normal with no direction: the select
/// keeps NaN * 0 out).
#[inline(always)]
fn unit<S: Isa>(n: F32x8<S>, rcp: F32x8<S>) -> F32x8<S> {
    let zero = F32x8::ZERO;
    rcp.gt(zero).select_f32(n * rcp, zero)
}

/// One block's inputs.
struct Block<'a> {
    palette: &'a [WideJoint; 256],
    joints: &'a [[u8; 4]; BLOCK],
    weights: &'a [[f32; 4]; BLOCK],
    p_in: &'a [Vec3; BLOCK],
    /// `p_in` again when there are no normals (not read then).
    n_in: &'a [Vec3; BLOCK],
}

impl Block<'_> {
    /// Vertices `2K` and `2K + 1`, one per half: the position and (when `NORMALS`, else
    /// zero) the unnormalised normal.
    #[inline(always)]
    fn pair<S: Isa, const K: usize, const NORMALS: bool>(&self) -> [F32x8<S>; 2] {
        let [xya, zwa] = self.blend::<S>(2 * K);
        let [xyb, zwb] = self.blend::<S>(2 * K + 1);
        let (x, y) = (xya.low_halves(xyb), xya.high_halves(xyb));
        let (z, w) = (zwa.low_halves(zwb), zwa.high_halves(zwb));
        let [px, py, pz] = F32x8::vec3_pair_spreads::<K>(self.p_in);
        let position = z.mul_add(pz, y.mul_add(py, x.mul_add(px, w)));
        if !NORMALS {
            return [position, F32x8::ZERO];
        }
        let [nx, ny, nz] = F32x8::vec3_pair_spreads::<K>(self.n_in);
        [position, z.mul_add(nz, y.mul_add(ny, x * nx))]
    }

    /// The blended matrix of vertex `v` of the block as columns x | y and z | w. Indexing
    /// the 256-entry palette with a `u8` needs no bounds check.
    #[inline(always)]
    fn blend<S: Isa>(&self, v: usize) -> [F32x8<S>; 2] {
        let (joints, weights) = (&self.joints[v], &self.weights[v]);
        let [xy, zw] = self.palette[usize::from(joints[0])].halves();
        let w0 = F32x8::splat(weights[0]);
        let (mut xy, mut zw) = (F32x8::new(xy) * w0, F32x8::new(zw) * w0);
        for k in 1..4 {
            let [mxy, mzw] = self.palette[usize::from(joints[k])].halves();
            let wk = F32x8::splat(weights[k]);
            xy = F32x8::new(mxy).mul_add(wk, xy);
            zw = F32x8::new(mzw).mul_add(wk, zw);
        }
        [xy, zw]
    }
}

/// `(x^2 + y^2) + z^2` of each half's vertex, in every lane of its half.
#[inline(always)]
fn len2<S: Isa>(v: F32x8<S>) -> F32x8<S> {
    let sq = v * v;
    (sq.spread::<0>() + sq.spread::<1>()) + sq.spread::<2>()
}

/// `1 / length` of the eight normals of `n` (two per register, fourth lanes ignored) in
/// lanes `[0, 2, 4, 6, 1, 3, 5, 7]` of the block's order: pair `k`'s two in lanes `k` and
/// `4 + k`, where `spread::<k>` finds them. 0 where that is not finite and positive.
#[inline(always)]
fn reciprocal_lengths<S: Isa>(n: &[F32x8<S>; BLOCK / 2]) -> F32x8<S> {
    let lane = I32x8::new([0, 1, 2, 3, 0, 1, 2, 3]);
    let all = lane.eq(I32x8::splat(1)).select_f32(len2(n[1]), len2(n[0]));
    let all = lane.eq(I32x8::splat(2)).select_f32(len2(n[2]), all);
    let all = lane.eq(I32x8::splat(3)).select_f32(len2(n[3]), all);
    let rcp = F32x8::splat(1.0) / all.sqrt();
    let ok = rcp.lt(F32x8::splat(f32::INFINITY)) & rcp.gt(F32x8::ZERO);
    ok.select_f32(rcp, F32x8::ZERO)
}
