//! The skinning inner loop in 256-bit AVX2, eight vertices per step (x86_64 only; the
//! caller checks the CPU at run time). Nearly all of the crate's `unsafe` is here (the
//! rest is one guarded call in `pose_cache`): the intrinsics need raw-pointer loads and
//! stores, and calling a `#[target_feature]` function needs the feature checked first.
//! Measured: 2-3x the portable SSE2 loop (see PERFORMANCE.md).
//!
//! Per vertex it performs the portable loop's float operations in the same order, without
//! FMA (Rust never contracts a multiply and an add), so both give the same bits (up to the
//! sign of an exact zero):
//! - blend: each column `sum_k P[j_k] * w_k`, influences in order (two 8-float halves);
//! - transpose the blended matrices of vertices A and B into `[col A | col B]` pairs, so
//!   the transform `((x * px + y * py) + z * pz) + w` runs on both vertices at once;
//! - normals: `(x^2 + y^2) + z^2` of eight normals through three `hadd`s (the fourth lane
//!   is zero, and `z^2 + 0 = z^2`), one `sqrt` and one `div` for all eight, and the same
//!   finite-and-positive test as glam's `normalize_or_zero`.

use std::arch::x86_64::*;

use glam::Vec3;

use super::skin_wide::{WideInput, WideJoint};

/// Skins whole blocks of 8 vertices and returns how many vertices were done. A block
/// loads 8 floats at a pair's first position (2 floats past the pair) and stores 4 floats
/// per vertex (1 past it), so the last vertex of every slice is left to the caller.
pub(super) fn skin(
    wide: WideInput,
    positions_in: &[Vec3],
    normals_in: &[Vec3],
    positions_out: &mut [Vec3],
    normals_out: &mut [Vec3],
) -> usize {
    if !is_x86_feature_detected!("avx2") {
        return 0;
    }
    let with_normals = !normals_out.is_empty();
    let mut n = positions_in.len().min(positions_out.len()).min(wide.joints.len()).min(wide.weights.len());
    if with_normals {
        n = n.min(normals_in.len()).min(normals_out.len());
    }
    // Block b covers vertices 8b..8b+8 and touches floats up to 3 * (8b + 8) + 2, which
    // stays inside every slice when 8b + 9 <= n.
    let blocks = n.saturating_sub(1) / 8;
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
    // SAFETY: AVX2 is present (checked above). Every pointer comes from a slice of at
    // least `n` vertices (`Vec3` is `repr(C)`, three f32; weights are `[f32; 4]`), and
    // `blocks` was chosen so that every load and store stays inside them (see above). The
    // normal pointers are only used when `with_normals`, when they too hold `n` vertices.
    unsafe {
        if with_normals {
            kernel::<true>(&args, blocks);
        } else {
            kernel::<false>(&args, blocks);
        }
    }
    blocks * 8
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

/// The blended matrix of vertex `v` as columns `[x | y]`, `[z | w]`.
///
/// SAFETY (caller): AVX2 present; `v` is inside the joints and weights arrays.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn blend(a: &Args, v: usize) -> (__m256, __m256) {
    // SAFETY: `v` is in bounds (caller); indexing the 256-entry palette with a `u8` cannot
    // go out of bounds; `WideJoint` is 64-byte aligned, so both aligned loads are valid.
    unsafe {
        let joints = *a.joints.add(v);
        let w = a.weights.add(4 * v);
        let joint = |k: usize| a.palette[usize::from(joints[k])].as_ptr();
        let w0 = _mm256_broadcast_ss(&*w);
        let mut lo = _mm256_mul_ps(_mm256_load_ps(joint(0)), w0);
        let mut hi = _mm256_mul_ps(_mm256_load_ps(joint(0).add(8)), w0);
        for k in 1..4 {
            let wk = _mm256_broadcast_ss(&*w.add(k));
            lo = _mm256_add_ps(lo, _mm256_mul_ps(_mm256_load_ps(joint(k)), wk));
            hi = _mm256_add_ps(hi, _mm256_mul_ps(_mm256_load_ps(joint(k).add(8)), wk));
        }
        (lo, hi)
    }
}

/// `((c0 * x + c1 * y) + c2 * z)` with x, y, z the pair's coordinates spread over each half.
#[target_feature(enable = "avx2")]
#[inline]
fn linear(c: &[__m256; 4], xyz: __m256) -> __m256 {
    let spread =
        |i: i32| _mm256_permutevar8x32_ps(xyz, _mm256_setr_epi32(i, i, i, i, i + 3, i + 3, i + 3, i + 3));
    let xy = _mm256_add_ps(_mm256_mul_ps(c[0], spread(0)), _mm256_mul_ps(c[1], spread(1)));
    _mm256_add_ps(xy, _mm256_mul_ps(c[2], spread(2)))
}

/// Stores the pair `[A | B]` at `out` (A) and `out + 3` (B), 4 floats each: B's store
/// overwrites A's spare lane, and B's spare lane is overwritten by the next vertex.
///
/// SAFETY (caller): AVX2 present; `out .. out + 7` is writable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store_pair(out: *mut f32, pair: __m256) {
    // SAFETY: in bounds (caller).
    unsafe {
        _mm_storeu_ps(out, _mm256_castps256_ps128(pair));
        _mm_storeu_ps(out.add(3), _mm256_extractf128_ps(pair, 1));
    }
}

/// SAFETY (caller): AVX2 present; every pointer of `a` valid for `8 * blocks + 1`
/// vertices (the normal ones only when `NORMALS`).
#[target_feature(enable = "avx2")]
unsafe fn kernel<const NORMALS: bool>(a: &Args, blocks: usize) {
    for b in 0..blocks {
        let mut normals = [_mm256_setzero_ps(); 4];
        for (pair, normal) in normals.iter_mut().enumerate() {
            let v = 8 * b + 2 * pair;
            // SAFETY: v + 1 < 8 * blocks + 1: every access below is in bounds (caller).
            unsafe {
                let (a_lo, a_hi) = blend(a, v);
                let (b_lo, b_hi) = blend(a, v + 1);
                let c = [
                    _mm256_permute2f128_ps(a_lo, b_lo, 0x20),
                    _mm256_permute2f128_ps(a_lo, b_lo, 0x31),
                    _mm256_permute2f128_ps(a_hi, b_hi, 0x20),
                    _mm256_permute2f128_ps(a_hi, b_hi, 0x31),
                ];
                let p = linear(&c, _mm256_loadu_ps(a.p_in.add(3 * v)));
                store_pair(a.p_out.add(3 * v), _mm256_add_ps(p, c[3]));
                if NORMALS {
                    *normal = linear(&c, _mm256_loadu_ps(a.n_in.add(3 * v)));
                }
            }
        }
        if NORMALS {
            let rcp = reciprocal_lengths(&normals);
            // Lane 0 of each half is A | B, lane 1 C | D, and so on (see reciprocal_lengths).
            let spread = [
                _mm256_permute_ps(rcp, 0x00),
                _mm256_permute_ps(rcp, 0x55),
                _mm256_permute_ps(rcp, 0xAA),
                _mm256_permute_ps(rcp, 0xFF),
            ];
            for (pair, (n, r)) in normals.iter().zip(spread).enumerate() {
                // SAFETY: as above.
                unsafe { store_pair(a.n_out.add(3 * (8 * b + 2 * pair)), _mm256_mul_ps(*n, r)) };
            }
        }
    }
}

/// `1 / length` of the eight normals held as pairs `[A | B], [C | D], [E | F], [G | H]`,
/// returned as `[A, C, E, G | B, D, F, H]`; 0 where that is not finite and positive.
#[target_feature(enable = "avx2")]
#[inline]
fn reciprocal_lengths(pairs: &[__m256; 4]) -> __m256 {
    let sq = pairs.map(|p| _mm256_mul_ps(p, p));
    // hadd: [a0+a1, a2+a3, b0+b1, b2+b3 | same for the high halves].
    let abcd = _mm256_hadd_ps(sq[0], sq[1]);
    let efgh = _mm256_hadd_ps(sq[2], sq[3]);
    let len2 = _mm256_hadd_ps(abcd, efgh);
    let rcp = _mm256_div_ps(_mm256_set1_ps(1.0), _mm256_sqrt_ps(len2));
    let finite = _mm256_cmp_ps::<_CMP_LT_OQ>(rcp, _mm256_set1_ps(f32::INFINITY));
    let positive = _mm256_cmp_ps::<_CMP_GT_OQ>(rcp, _mm256_setzero_ps());
    _mm256_and_ps(rcp, _mm256_and_ps(finite, positive))
}
