//! The skinning inner loop in AVX2 + FMA, four vertices per step (x86_64 only; the caller
//! checks the CPU at run time). It is `unsafe` because the intrinsics need raw-pointer
//! loads and stores, and calling a `#[target_feature]` function needs the features
//! checked first (`lib.rs` lists the crate's other `unsafe`).
//!
//! Each vertex's blend is worked two matrix columns per 256-bit register, then split into
//! 128-bit columns for the transform. Pairing two vertices in 256-bit registers instead
//! would cost cross-lane shuffles (`vperm2f128`, `vpermps`) in every step; this split
//! costs one `vextractf128` per pair of columns. The 256-bit blend is faster than blending
//! column by column in 128-bit registers, and no slower on CPUs that split 256-bit
//! operations in two.
//!
//! Per vertex it performs the portable loop's float operations in the same order, each
//! multiply-add fused (the portable loop uses `mul_add`), so both give the same bits (up to
//! the sign of an exact zero):
//! - blend: each column `J[j0] * w0`, then `J[jk] * wk + acc` fused, influences in order;
//! - position `z * pz + (y * py + (x * px + w))`, normal `z * nz + (y * ny + x * nx)`,
//!   fused, with each coordinate broadcast from the vertex's own 16-byte load;
//! - normals: `(x^2 + y^2) + z^2` of four normals through three `hadd`s (the fourth lane is
//!   zero, and `z^2 + 0 = z^2`), one `sqrt` and one `div` for all four, and the same
//!   finite-and-positive test as glam's `normalize_or_zero`.

use std::arch::x86_64::*;

use glam::Vec3;

use super::skin_wide::{WideInput, WideJoint};
use crate::isa::{Isa, compiled_for_isa};

/// Vertices per step of the kernel.
const BLOCK: usize = 4;

/// Skins whole blocks of `BLOCK` vertices and returns how many vertices were done. A
/// vertex loads and stores 4 floats at its 3 (the store's spare lane is overwritten by the
/// next vertex), so the last vertex of every slice is left to the caller.
pub(super) fn skin(
    wide: WideInput,
    positions_in: &[Vec3],
    normals_in: &[Vec3],
    positions_out: &mut [Vec3],
    normals_out: &mut [Vec3],
) -> usize {
    let Some(isa) = Isa::best().filter(|_| is_x86_feature_detected!("fma")) else {
        return 0;
    };
    let with_normals = !normals_out.is_empty();
    let mut n = positions_in.len().min(positions_out.len()).min(wide.joints.len()).min(wide.weights.len());
    if with_normals {
        n = n.min(normals_in.len()).min(normals_out.len());
    }
    // Block b covers vertices 4b..4b+4 and touches floats up to 3 * (4b + 4) + 2, which
    // stays inside every slice when 4b + 5 <= n.
    let blocks = n.saturating_sub(1) / BLOCK;
    if blocks == 0 {
        return 0;
    }
    let args = Args {
        palette: &wide.palette.entries,
        joints: wide.joints.as_ptr(),
        weights: wide.weights.as_ptr().cast(),
        p_in: positions_in.as_ptr().cast(),
        p_out: positions_out.as_mut_ptr().cast(),
        n_in: normals_in.as_ptr().cast(),
        n_out: normals_out.as_mut_ptr().cast(),
    };
    // SAFETY: the CPU has `isa` and FMA (checked above). Every pointer comes from a slice
    // of at least `n` vertices (`Vec3` is `repr(C)`, three f32; weights are `[f32; 4]`),
    // and `blocks` was chosen so that every load and store stays inside them (see above).
    // The normal pointers are only used when `with_normals`, when they too hold `n`
    // vertices.
    unsafe {
        if with_normals {
            kernel_for::<true>(isa, &args, blocks);
        } else {
            kernel_for::<false>(isa, &args, blocks);
        }
    }
    blocks * BLOCK
}

struct Args<'a> {
    palette: &'a [WideJoint; 256],
    joints: *const [u8; 4],
    weights: *const f32,
    p_in: *const f32,
    p_out: *mut f32,
    n_in: *const f32,
    n_out: *mut f32,
}

/// The blended matrix of vertex `v` as its four columns x, y, z, w.
///
/// Two columns per 256-bit register (`WideJoint` stores x | y, then z | w): half the
/// multiply-adds of blending column by column, and the same operation on every lane, so
/// the same bits. The weights are broadcast straight from memory, on the load ports
/// rather than the shuffle units. Only the split into columns crosses lanes.
///
/// SAFETY (caller): AVX2 and FMA present; `v` is inside the joints and weights arrays.
#[inline(always)]
unsafe fn blend(a: &Args, v: usize) -> [__m128; 4] {
    // SAFETY: `v` is in bounds (caller), so its four weights are; indexing the 256-entry
    // palette with a `u8` cannot go out of bounds; `WideJoint` is 64-byte aligned, so the
    // aligned loads of its two halves are valid.
    unsafe {
        let joints = *a.joints.add(v);
        let w = a.weights.add(4 * v);
        let joint = |k: usize| a.palette[usize::from(joints[k])].as_ptr();
        let (m, w0) = (joint(0), _mm256_broadcast_ss(&*w));
        let mut xy = _mm256_mul_ps(_mm256_load_ps(m), w0);
        let mut zw = _mm256_mul_ps(_mm256_load_ps(m.add(8)), w0);
        for k in 1..4 {
            let (m, wk) = (joint(k), _mm256_broadcast_ss(&*w.add(k)));
            xy = _mm256_fmadd_ps(_mm256_load_ps(m), wk, xy);
            zw = _mm256_fmadd_ps(_mm256_load_ps(m.add(8)), wk, zw);
        }
        [
            _mm256_castps256_ps128(xy),
            _mm256_extractf128_ps::<1>(xy),
            _mm256_castps256_ps128(zw),
            _mm256_extractf128_ps::<1>(zw),
        ]
    }
}

compiled_for_isa! {
    features ("avx2,fma")
    /// `kernel` compiled for `isa` (with FMA).
    unsafe fn kernel_for<const NORMALS: bool>(a: &Args, blocks: usize) => kernel
}

/// The loop, compiled by `kernel_for` for each instruction set (see `crate::isa`).
///
/// SAFETY (caller): AVX2 and FMA present; every pointer of `a` valid for
/// `BLOCK * blocks + 1` vertices (the normal ones only when `NORMALS`).
#[inline(always)]
unsafe fn kernel<const NORMALS: bool>(a: &Args, blocks: usize) {
    // SAFETY: AVX2 and FMA present (caller); the memory accesses have their own comments.
    unsafe {
        for b in 0..blocks {
            let mut positions = [_mm_setzero_ps(); BLOCK];
            let mut normals = [_mm_setzero_ps(); BLOCK];
            for (i, (position, normal)) in positions.iter_mut().zip(&mut normals).enumerate() {
                let v = BLOCK * b + i;
                // SAFETY: v < BLOCK * blocks: every access below (4 floats at 3v) is in bounds
                // (caller).
                let [x, y, z, w] = blend(a, v);
                let p = _mm_loadu_ps(a.p_in.add(3 * v));
                let r = _mm_fmadd_ps(x, _mm_permute_ps::<0x00>(p), w);
                let r = _mm_fmadd_ps(y, _mm_permute_ps::<0x55>(p), r);
                *position = _mm_fmadd_ps(z, _mm_permute_ps::<0xAA>(p), r);
                if NORMALS {
                    let n = _mm_loadu_ps(a.n_in.add(3 * v));
                    let r = _mm_mul_ps(x, _mm_permute_ps::<0x00>(n));
                    let r = _mm_fmadd_ps(y, _mm_permute_ps::<0x55>(n), r);
                    *normal = _mm_fmadd_ps(z, _mm_permute_ps::<0xAA>(n), r);
                }
            }
            // The block's stores come after all of its loads (faster than storing each
            // position as soon as it is done: the compiler cannot move a load above a store
            // through these raw pointers).
            for (i, p) in positions.iter().enumerate() {
                // SAFETY: as above; vertices are stored in order, so each store's spare lane
                // lands on the next vertex before that vertex is written.
                _mm_storeu_ps(a.p_out.add(3 * (BLOCK * b + i)), *p);
            }
            if NORMALS {
                let rcp = reciprocal_lengths(&normals);
                let spread = [
                    _mm_permute_ps::<0x00>(rcp),
                    _mm_permute_ps::<0x55>(rcp),
                    _mm_permute_ps::<0xAA>(rcp),
                    _mm_permute_ps::<0xFF>(rcp),
                ];
                for (i, (n, r)) in normals.iter().zip(spread).enumerate() {
                    // A zero `r` marks a normal with no direction; the mask keeps NaN * 0 out.
                    let valid = _mm_cmp_ps::<_CMP_GT_OQ>(r, _mm_setzero_ps());
                    // SAFETY: as above.
                    _mm_storeu_ps(a.n_out.add(3 * (BLOCK * b + i)), _mm_and_ps(_mm_mul_ps(*n, r), valid));
                }
            }
        }
    }
}

/// `1 / length` of four normals (fourth lanes zero), 0 where that is not finite and
/// positive.
///
/// SAFETY (caller): AVX present.
#[inline(always)]
unsafe fn reciprocal_lengths(n: &[__m128; 4]) -> __m128 {
    // SAFETY: the caller's.
    unsafe {
        let square = |v: __m128| _mm_mul_ps(v, v);
        let sq = [square(n[0]), square(n[1]), square(n[2]), square(n[3])];
        // hadd: [a0+a1, a2+a3, b0+b1, b2+b3].
        let len2 = _mm_hadd_ps(_mm_hadd_ps(sq[0], sq[1]), _mm_hadd_ps(sq[2], sq[3]));
        let rcp = _mm_div_ps(_mm_set1_ps(1.0), _mm_sqrt_ps(len2));
        let finite = _mm_cmp_ps::<_CMP_LT_OQ>(rcp, _mm_set1_ps(f32::INFINITY));
        let positive = _mm_cmp_ps::<_CMP_GT_OQ>(rcp, _mm_setzero_ps());
        _mm_and_ps(rcp, _mm_and_ps(finite, positive))
    }
}
