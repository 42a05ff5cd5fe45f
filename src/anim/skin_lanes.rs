//! The wide skinning kernel, written once against `crate::lanes` and run with AVX2 + FMA
//! where the CPU has them. Eight vertices per step.
//!
//! Each vertex's blend is worked two matrix columns per register (`WideJoint` stores
//! x | y, then z | w). Two vertices then share a register, one per half: their columns
//! are paired by `low_halves`/`high_halves` (one cross-half shuffle per column pair), and
//! each coordinate is broadcast within its half by `spread`. The eight normals' lengths
//! are gathered into one register so that a single `sqrt` and `div` serve all eight.
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
        let blocks = a.p_in.len() / BLOCK;
        for b in 0..blocks {
            let p_in = block_of(a.p_in, b);
            let n_in = if NORMALS { block_of(a.n_in, b) } else { [Vec3::ZERO; BLOCK] };
            let mut positions = [F32x8::<S>::ZERO; BLOCK / 2];
            let mut normals = [F32x8::<S>::ZERO; BLOCK / 2];
            for pair in 0..BLOCK / 2 {
                let (va, vb) = (BLOCK * b + 2 * pair, BLOCK * b + 2 * pair + 1);
                let [xya, zwa] = blend::<S>(&a, va);
                let [xyb, zwb] = blend::<S>(&a, vb);
                let (x, y) = (xya.low_halves(xyb), xya.high_halves(xyb));
                let (z, w) = (zwa.low_halves(zwb), zwa.high_halves(zwb));
                let p = two(p_in[2 * pair], p_in[2 * pair + 1]);
                let r = x.mul_add(p.spread::<0>(), w);
                let r = y.mul_add(p.spread::<1>(), r);
                positions[pair] = z.mul_add(p.spread::<2>(), r);
                if NORMALS {
                    let n = two(n_in[2 * pair], n_in[2 * pair + 1]);
                    let r = x * n.spread::<0>();
                    let r = y.mul_add(n.spread::<1>(), r);
                    normals[pair] = z.mul_add(n.spread::<2>(), r);
                }
            }
            for (pair, p) in positions.iter().enumerate() {
                store(a.p_out, BLOCK * b + 2 * pair, *p);
            }
            if NORMALS {
                let rcp = reciprocal_lengths(&normals);
                let zero = F32x8::ZERO;
                let spread = [rcp.spread::<0>(), rcp.spread::<1>(), rcp.spread::<2>(), rcp.spread::<3>()];
                for (pair, (n, r)) in normals.iter().zip(spread).enumerate() {
                    // A zero `r` marks a normal with no direction; the select keeps NaN * 0 out.
                    store(a.n_out, BLOCK * b + 2 * pair, r.gt(zero).select_f32(*n * r, zero));
                }
            }
        }
    }
}

/// Block `b` of `s` (zeros past its end, which the kernel never reaches).
#[inline(always)]
fn block_of(s: &[Vec3], b: usize) -> [Vec3; BLOCK] {
    match s.get(BLOCK * b..BLOCK * (b + 1)).and_then(|s| <&[Vec3; BLOCK]>::try_from(s).ok()) {
        Some(block) => *block,
        None => [Vec3::ZERO; BLOCK],
    }
}

/// Two vertices, one per half: `[a.x, a.y, a.z, 0, b.x, b.y, b.z, 0]`.
#[inline(always)]
fn two<S: Isa>(a: Vec3, b: Vec3) -> F32x8<S> {
    F32x8::new([a.x, a.y, a.z, 0.0, b.x, b.y, b.z, 0.0])
}

/// Stores the two vertices of `v` (see `two`) at `at` and `at + 1`.
#[inline(always)]
fn store<S: Isa>(out: &mut [Vec3], at: usize, v: F32x8<S>) {
    let l = v.0;
    if let Some([a, b]) = out.get_mut(at..at + 2).and_then(|s| <&mut [Vec3; 2]>::try_from(s).ok()) {
        *a = Vec3::new(l[0], l[1], l[2]);
        *b = Vec3::new(l[4], l[5], l[6]);
    }
}

/// The blended matrix of vertex `v` as columns x | y and z | w. Indexing the 256-entry
/// palette with a `u8` needs no bounds check.
#[inline(always)]
fn blend<S: Isa>(a: &Blocks, v: usize) -> [F32x8<S>; 2] {
    let (joints, weights) =
        (a.joints.get(v).copied().unwrap_or_default(), a.weights.get(v).copied().unwrap_or_default());
    let [xy, zw] = a.palette[usize::from(joints[0])].halves();
    let w0 = F32x8::splat(weights[0]);
    let (mut xy, mut zw) = (F32x8::new(xy) * w0, F32x8::new(zw) * w0);
    for k in 1..4 {
        let [mxy, mzw] = a.palette[usize::from(joints[k])].halves();
        let wk = F32x8::splat(weights[k]);
        xy = F32x8::new(mxy).mul_add(wk, xy);
        zw = F32x8::new(mzw).mul_add(wk, zw);
    }
    [xy, zw]
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
