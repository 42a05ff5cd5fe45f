//! The projection's inner loop in 512-bit AVX-512, sixteen vertices per step, for CPUs
//! with `Isa::Avx512` (`project_avx2::project` calls it, then finishes with its own
//! eight-lane loop). Per vertex it performs `project_avx2::kernel`'s operations, lane for
//! lane and in the same order (no FMA), so all three paths give `project_one`'s bits; the
//! lane tests become mask registers. Half the instructions per vertex of the eight-lane
//! loop, which was not bound by the execution units, so it pays even on CPUs that run a
//! 512-bit operation as two halves.

use std::arch::x86_64::*;

use super::clip::GUARD;
use super::fill::{SPAN_ANY, SUB};
use super::project::{NOT_SIMPLE, ProjVertex, State};
use super::project_avx2::{Args, Params};

/// The x, y and z of the sixteen `Vec3`s at `p` (48 floats), one vertex per lane.
///
/// SAFETY (caller): AVX-512F present; `p .. p + 48` readable.
#[inline(always)]
unsafe fn load_xyz(p: *const f32) -> [__m512; 3] {
    // SAFETY: in bounds, AVX-512F present (caller).
    unsafe {
        let (a, b, c) = (_mm512_loadu_ps(p), _mm512_loadu_ps(p.add(16)), _mm512_loadu_ps(p.add(32)));
        // Coordinate `k` of vertex `v` is float 3 v + k: from `a` and `b` (their floats
        // 0..32) for lanes 0..11 or so, then the lanes whose float is 32 or more from `c`.
        let lanes = |f: &dyn Fn(i32) -> i32| {
            let idx: [i32; 16] = std::array::from_fn(|v| f(v as i32));
            _mm512_loadu_si512(idx.as_ptr().cast())
        };
        let axis = |k: i32| {
            let float = |v: i32| 3 * v + k;
            let from_ab = _mm512_permutex2var_ps(a, lanes(&|v| float(v) & 31), b);
            // Index 16 + j takes float j of `c`; index v keeps lane v.
            let from_c = lanes(&|v| if float(v) >= 32 { 16 + float(v) - 32 } else { v });
            _mm512_permutex2var_ps(from_ab, from_c, c)
        };
        [axis(0), axis(1), axis(2)]
    }
}

/// Lanes where `v` is finite.
///
/// SAFETY (caller): AVX-512F present.
#[inline(always)]
unsafe fn finite(v: __m512) -> __mmask16 {
    // SAFETY: the caller's.
    unsafe { _mm512_cmp_ps_mask::<_CMP_LT_OQ>(_mm512_abs_ps(v), _mm512_set1_ps(f32::INFINITY)) }
}

/// `project_avx2::snap`, sixteen lanes.
///
/// SAFETY (caller): AVX-512F present.
#[inline(always)]
unsafe fn snap(x: __m512) -> __m512i {
    // SAFETY: the caller's.
    unsafe {
        let floor = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(x);
        let frac = _mm512_sub_ps(x, floor);
        let non_negative = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(x, _mm512_set1_ps(-0.5));
        let at_least = _mm512_mask_blend_ps(
            non_negative,
            _mm512_set1_ps(0.5 - 1.0 / 16384.0),
            _mm512_set1_ps(0.5 - 1.0 / 8192.0),
        );
        let up = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(frac, at_least);
        let whole = _mm512_cvttps_epi32(floor);
        _mm512_mask_add_epi32(whole, up, whole, _mm512_set1_epi32(1))
    }
}

/// Projects `blocks` blocks of 16 vertices as `project_avx2::kernel` projects blocks of 8.
///
/// SAFETY (caller): AVX-512F, VL and BW present (`Isa::Avx512`); `a` valid for `16 * blocks`
/// vertices (the spans only when `SPANS`).
#[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw")]
pub(super) unsafe fn kernel<const SPANS: bool>(params: &Params, a: &Args, blocks: usize) {
    let splat = _mm512_set1_ps;
    let rows = |r: [f32; 4]| [splat(r[0]), splat(r[1]), splat(r[2]), splat(r[3])];
    let m = [rows(params.m[0]), rows(params.m[1]), rows(params.m[2]), rows(params.m[3])];
    let light = [splat(params.light[0]), splat(params.light[1]), splat(params.light[2])];
    let (half_width, half_height) = (splat(params.half_sub[0]), splat(params.half_sub[1]));
    let (one, zero) = (splat(1.0), _mm512_setzero_ps());
    // The spans' bounds, packed as the spans are (see below): per 128 bits, four words for
    // the width, then four for the height.
    let packed = |x: i32, y: i32| _mm512_packs_epi32(_mm512_set1_epi32(x), _mm512_set1_epi32(y));
    let [w, h] = params.span_sides;
    let (hi_first, lo_neg_last) = (packed(w, h), packed(1 - w, 1 - h));
    let span_any = _mm512_set1_epi16(SPAN_ANY[0]);
    for b in 0..blocks {
        // SAFETY: 48 floats from vertex 16b, inside `ps` (caller).
        let [x, y, z] = unsafe { load_xyz(a.ps.add(48 * b)) };
        let row = |r: &[__m512; 4]| {
            let xy = _mm512_add_ps(_mm512_mul_ps(r[0], x), _mm512_mul_ps(r[1], y));
            _mm512_add_ps(_mm512_add_ps(xy, _mm512_mul_ps(r[2], z)), r[3])
        };
        let [cx, cy, cz, cw] = [row(&m[0]), row(&m[1]), row(&m[2]), row(&m[3])];
        let g = _mm512_mul_ps(splat(GUARD), cw);
        let inside = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_abs_ps(cx), g)
            & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(_mm512_abs_ps(cy), g);
        let in_front = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(cw, zero) & _mm512_cmp_ps_mask::<_CMP_GE_OQ>(cw, cz);
        // SAFETY (for the helpers here and below): AVX-512F is present (caller). Every
        // coordinate is tested for finiteness: `GUARD * w` overflows to infinity for a finite
        // but huge `w`, and an infinite x or y is then "inside" the band.
        let simple = unsafe { finite(cx) & finite(cy) & finite(cz) & finite(cw) } & in_front & inside;
        let inv_w = _mm512_div_ps(one, cw);
        let sx = _mm512_mul_ps(_mm512_add_ps(_mm512_mul_ps(cx, inv_w), one), half_width);
        let sy = _mm512_mul_ps(_mm512_sub_ps(one, _mm512_mul_ps(cy, inv_w)), half_height);
        let sz = _mm512_maskz_mov_ps(simple, _mm512_mul_ps(cz, inv_w));
        let (fx, fy) = unsafe { (snap(sx), snap(sy)) };
        let lit = match a.ns {
            Some(ns) => {
                // SAFETY: as for the positions (caller).
                let [nx, ny, nz] = unsafe { load_xyz(ns.add(48 * b)) };
                let len2 = _mm512_add_ps(
                    _mm512_add_ps(_mm512_mul_ps(nx, nx), _mm512_mul_ps(ny, ny)),
                    _mm512_mul_ps(nz, nz),
                );
                let rcp = _mm512_div_ps(one, _mm512_sqrt_ps(len2));
                // `normalize_or_zero` keeps a reciprocal length that is finite and
                // positive: exactly where 0 < len2 < inf (the square root of the smallest
                // subnormal is 3.7e-23), known before the square root.
                let ok = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(len2, zero)
                    & _mm512_cmp_ps_mask::<_CMP_LT_OQ>(len2, splat(f32::INFINITY));
                let unit = |c: __m512| _mm512_maskz_mul_ps(ok, c, rcp);
                let l = _mm512_add_ps(
                    _mm512_add_ps(_mm512_mul_ps(unit(nx), light[0]), _mm512_mul_ps(unit(ny), light[1])),
                    _mm512_mul_ps(unit(nz), light[2]),
                );
                // A unit vector's components are below 2 (even with a subnormal length), so
                // with a bounded light the dot product is finite: tested only otherwise.
                if params.light_bounded { l } else { _mm512_maskz_mov_ps(unsafe { finite(l) }, l) }
            }
            None => zero,
        };
        // Not simple: the state in x (Invalid, less one if finite), `NOT_SIMPLE` in y.
        // Rare: worked out only for blocks that have such a vertex.
        let state = if simple == 0xffff {
            _mm512_setzero_si512()
        } else {
            let is_finite = unsafe { finite(cx) & finite(cy) & finite(cz) & finite(cw) };
            let invalid = _mm512_set1_epi32(State::Invalid as i32);
            _mm512_mask_sub_epi32(invalid, is_finite, invalid, _mm512_set1_epi32(1))
        };
        let vx = _mm512_castsi512_ps(_mm512_mask_blend_epi32(simple, state, fx));
        let vy = _mm512_castsi512_ps(_mm512_mask_blend_epi32(simple, _mm512_set1_epi32(NOT_SIMPLE), fy));
        // SAFETY: vertices 16b..16b+16 are inside `verts` (caller).
        unsafe { store_verts(a.verts.add(16 * b), [vx, vy], sz, lit) };
        if SPANS {
            // `fill::centre_span` in 16-bit lanes, twice as many to an operation: each
            // coordinate's first and last centre shifted out in 32 bits, then packed with
            // saturation, which the clamps to the raster undo (the bounds fit 16 bits).
            const HALF: i32 = (SUB / 2) as i32;
            let set1 = _mm512_set1_epi32;
            let first_centre =
                |v: __m512i| _mm512_srai_epi32::<8>(_mm512_add_epi32(v, set1(SUB as i32 - 1 - HALF)));
            let last_centre = |v: __m512i| _mm512_srai_epi32::<8>(_mm512_sub_epi32(v, set1(HALF)));
            // Per 128 bits (vertices 4j..4j + 4): the four x values, then the four y values.
            let firsts = _mm512_packs_epi32(first_centre(fx), first_centre(fy));
            let lasts = _mm512_packs_epi32(last_centre(fx), last_centre(fy));
            let zero = _mm512_setzero_si512();
            let firsts = _mm512_min_epi16(_mm512_max_epi16(firsts, zero), hi_first);
            let neg_lasts = _mm512_subs_epi16(zero, lasts);
            let neg_lasts = _mm512_min_epi16(_mm512_max_epi16(neg_lasts, lo_neg_last), _mm512_set1_epi16(1));
            // Per vertex [first, -last] of x, and of y, then the two as one 64-bit span:
            // per 128 bits the spans of vertices (0, 1 | 4, 5 | ...) and (2, 3 | 6, 7 | ...).
            let (xs, ys) =
                (_mm512_unpacklo_epi16(firsts, neg_lasts), _mm512_unpackhi_epi16(firsts, neg_lasts));
            let (s01, s23) = (_mm512_unpacklo_epi32(xs, ys), _mm512_unpackhi_epi32(xs, ys));
            let first = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
            let second = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
            // `SPAN_ANY` for the vertices that are not simple.
            let spans = |order: __m512i, simple: u8| {
                _mm512_mask_blend_epi64(simple, span_any, _mm512_permutex2var_epi64(s01, order, s23))
            };
            let out = a.spans.cast::<__m512i>();
            // SAFETY: the 128 bytes of spans 16b..16b+16 are inside `spans` (caller).
            unsafe {
                _mm512_storeu_si512(out.add(2 * b), spans(first, simple as u8));
                _mm512_storeu_si512(out.add(2 * b + 1), spans(second, (simple >> 8) as u8));
            }
        }
    }
}

/// Writes sixteen `ProjVertex`es from their fields across the lanes, four per 64-byte
/// store.
///
/// SAFETY (caller): AVX-512F present; `out .. out + 16` writable.
#[inline(always)]
unsafe fn store_verts(out: *mut ProjVertex, [x, y]: [__m512; 2], z: __m512, l: __m512) {
    // SAFETY: the caller's; `ProjVertex` is `repr(C)`, x, y, z, light (4 bytes each), 16
    // bytes, so four vertices are one 64-byte store, all inside `out .. out + 16`.
    unsafe {
        let pd = |v: __m512| _mm512_castps_pd(v);
        let (xy01, xy23) = (pd(_mm512_unpacklo_ps(x, y)), pd(_mm512_unpackhi_ps(x, y)));
        let (zl01, zl23) = (pd(_mm512_unpacklo_ps(z, l)), pd(_mm512_unpackhi_ps(z, l)));
        // Vertices (0 | 4 | 8 | 12), (1 | 5 | 9 | 13), (2 | ...), (3 | ...), per 128 bits.
        let v0 = _mm512_castpd_ps(_mm512_unpacklo_pd(xy01, zl01));
        let v1 = _mm512_castpd_ps(_mm512_unpackhi_pd(xy01, zl01));
        let v2 = _mm512_castpd_ps(_mm512_unpacklo_pd(xy23, zl23));
        let v3 = _mm512_castpd_ps(_mm512_unpackhi_pd(xy23, zl23));
        // A 4 x 4 transpose of 128-bit blocks.
        let t0 = _mm512_shuffle_f32x4::<0x44>(v0, v1); // 0 4 1 5
        let t1 = _mm512_shuffle_f32x4::<0x44>(v2, v3); // 2 6 3 7
        let t2 = _mm512_shuffle_f32x4::<0xEE>(v0, v1); // 8 12 9 13
        let t3 = _mm512_shuffle_f32x4::<0xEE>(v2, v3); // 10 14 11 15
        let out = out.cast::<f32>();
        _mm512_storeu_ps(out, _mm512_shuffle_f32x4::<0x88>(t0, t1));
        _mm512_storeu_ps(out.add(16), _mm512_shuffle_f32x4::<0xDD>(t0, t1));
        _mm512_storeu_ps(out.add(32), _mm512_shuffle_f32x4::<0x88>(t2, t3));
        _mm512_storeu_ps(out.add(48), _mm512_shuffle_f32x4::<0xDD>(t2, t3));
    }
}
