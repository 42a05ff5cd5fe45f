//! `filter_avx2`'s set-up sixteen triangles at a time in 512-bit AVX-512, for CPUs with
//! `Isa::Avx512` (`SmallFilter::set_up16` calls it). Per lane it performs
//! `filter_avx2::Lanes`' operations in the same order, so it sets up the same integers
//! and floats, bit for bit; the lane tests become mask registers. The eight-lane set-up
//! was bound by its vector operations; sixteen lanes to an operation do more work a cycle
//! with half the instructions (see PERFORMANCE.md).
//!
//! The eight-lane code is mirrored here line for line rather than shared: the two use
//! other register types, and lane tests that are vectors there and mask registers here.
//! One body generic over both would go through a layer of vector traits whose every call
//! must be inlined into the kernel, which the compiler does not promise (see `crate::isa`). The set-up test
//! holds both to the filler's scalar set-up, bit for bit.

use std::arch::x86_64::*;

use super::bin::Tri;
use super::fill::{LANES, SET_UP_EXTENT, SMALL_EXTENT, SUB, SUB_BITS, SmallLanes};
use super::filter_avx2::Screen;
use super::project::NOT_SIMPLE;

/// Sixteen triangles set up as `fill::SmallTriangle::new` sets one up, a triangle per
/// lane, as `filter_avx2::Lanes` sets up eight (see its fields). Lanes that are not `ok`,
/// or not small, hold values of no use.
struct Lanes16 {
    judged: __mmask16,
    tall: __mmask16,
    wide: __mmask16,
    small: __mmask16,
    sized: __mmask16,
    x: [__m512i; 3],
    y: [__m512i; 3],
    z: [__m512; 3],
    light: [__m512; 3],
    px0: __m512i,
    px1: __m512i,
    py0: __m512i,
    py1: __m512i,
    cx: __m512i,
    cy: __m512i,
    flat: __mmask16,
    /// All ones on a front face.
    front: __m512i,
    a: [__m512i; 3],
    b: [__m512i; 3],
    c: [__m512i; 3],
}

/// `SmallFilter::set_up16` (see there) with AVX-512.
///
/// SAFETY (caller): AVX-512F, VL and BW present (`Isa::Avx512`); `screen.verts` holds
/// `last + 1` vertices.
#[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw")]
pub(super) unsafe fn set_up16(
    screen: &Screen,
    smooth: Option<f32>,
    tris: &[Tri; LANES],
    out: &mut SmallLanes,
) -> (u32, u32) {
    // SAFETY: the caller's.
    let l = unsafe { Lanes16::new(screen, tris) };
    let covered = l.covered();
    let dropped = l.dropped(covered);
    let no_box = _mm512_cmpgt_epi32_mask(l.px0, l.px1) | _mm512_cmpgt_epi32_mask(l.py0, l.py1);
    let unusable = no_box | l.flat | dropped;
    let set_up = !unusable & l.sized;
    if set_up != 0 {
        l.store(smooth, out);
        let ones = _mm512_set1_epi32(-1);
        // SAFETY: stores of the 64 bytes of `out.long` and `out.covered`.
        unsafe {
            _mm512_storeu_si512(
                out.long.as_mut_ptr().cast(),
                _mm512_maskz_mov_epi32(!l.small & l.sized, ones),
            );
            // The filler reads the centres of the judged triangles only.
            _mm512_storeu_si512(out.covered.as_mut_ptr().cast(), _mm512_maskz_mov_epi32(l.judged, covered));
        }
    }
    // A triangle of this size that is not set up draws nothing: no area, no centre of the
    // raster in its box, or (small) none covered.
    (u32::from(set_up), u32::from(!l.sized))
}

/// One corner of sixteen triangles (`corner`).
struct Corner {
    /// Lanes whose index is in range and whose vertex is simple.
    ok: __mmask16,
    x: __m512i,
    y: __m512i,
    z: __m512,
    light: __m512,
}

/// For each corner `K` (0 to 2), the lane of the 48 indices (three registers of sixteen)
/// that each triangle's corner is: word `3 t + K` for triangle `t`. `PICK_AB` takes it
/// from the first two registers (words 0 to 31; a lane past them takes any); `PICK_C` then
/// takes the words from 32 on from the third (16 + j is its word j) and keeps the others.
const PICK_AB: [[i32; 16]; 3] = pick_lanes(false);
const PICK_C: [[i32; 16]; 3] = pick_lanes(true);

const fn pick_lanes(third: bool) -> [[i32; 16]; 3] {
    let mut out = [[0i32; 16]; 3];
    let mut k = 0i32;
    while k < 3 {
        let mut t = 0i32;
        while t < 16 {
            let word = 3 * t + k;
            out[k as usize][t as usize] = match (third, word >= 32) {
                (false, _) => word & 31,
                (true, true) => 16 + word - 32,
                (true, false) => t,
            };
            t += 1;
        }
        k += 1;
    }
    out
}

/// Corner `K` of the triangles `tris`, whose 48 indices are `thirds`.
///
/// SAFETY (caller): as for `set_up16`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw")]
unsafe fn corner<const K: usize>(screen: &Screen, tris: &[Tri; LANES], thirds: &[__m512i; 3]) -> Corner {
    // SAFETY: loads of the 64 bytes of each table row.
    let (ab, c) = unsafe {
        (_mm512_loadu_si512(PICK_AB[K].as_ptr().cast()), _mm512_loadu_si512(PICK_C[K].as_ptr().cast()))
    };
    let index = _mm512_permutex2var_epi32(_mm512_permutex2var_epi32(thirds[0], ab, thirds[1]), c, thirds[2]);
    // In range: at most the last index, unsigned.
    let in_range = _mm512_cmple_epu32_mask(index, _mm512_set1_epi32(screen.last));
    // SAFETY: every index is clamped to `0..=last` (caller's bounds): x, y, z and the light
    // are the first four words of each `ProjVertex`. Each vertex is read with a load of its
    // own, its index clamped in a general register, as in `filter_avx2::Lanes::new`.
    let xyzl = |t: usize| unsafe {
        let i = (tris[t][K] as usize).min(screen.last as usize);
        _mm_loadu_ps(screen.verts.add(4 * i).cast::<f32>())
    };
    // Vertices t | t + 4 | t + 8 | t + 12 per register, then a 4 x 4 transpose in each
    // 128 bits: lane 4 j + t holds vertex 4 j + t.
    let quad = |t: usize| {
        let v = _mm512_castps128_ps512(xyzl(t));
        let v = _mm512_insertf32x4::<1>(v, xyzl(t + 4));
        let v = _mm512_insertf32x4::<2>(v, xyzl(t + 8));
        _mm512_insertf32x4::<3>(v, xyzl(t + 12))
    };
    let (r0, r1, r2, r3) = (quad(0), quad(1), quad(2), quad(3));
    let (t0, t1) = (_mm512_unpacklo_ps(r0, r1), _mm512_unpackhi_ps(r0, r1));
    let (t2, t3) = (_mm512_unpacklo_ps(r2, r3), _mm512_unpackhi_ps(r2, r3));
    let (pd, ps) = (_mm512_castps_pd, _mm512_castpd_ps);
    let y = _mm512_castps_si512(ps(_mm512_unpackhi_pd(pd(t0), pd(t2))));
    Corner {
        // Simple: `y` is not `NOT_SIMPLE`.
        ok: _mm512_mask_cmpneq_epi32_mask(in_range, y, _mm512_set1_epi32(NOT_SIMPLE)),
        x: _mm512_castps_si512(ps(_mm512_unpacklo_pd(pd(t0), pd(t2)))),
        y,
        z: ps(_mm512_unpacklo_pd(pd(t1), pd(t3))),
        light: ps(_mm512_unpackhi_pd(pd(t1), pd(t3))),
    }
}

impl Lanes16 {
    /// SAFETY (caller): as for `set_up16`.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw")]
    unsafe fn new(screen: &Screen, tris: &[Tri; LANES]) -> Lanes16 {
        let set1 = _mm512_set1_epi32;
        let zero = _mm512_setzero_si512();
        // The 48 indices, triangle by triangle, in three registers (`Tri` is three u32, so
        // `tris` is 192 bytes).
        // SAFETY: loads of the 192 bytes of `tris`.
        let third = |i: usize| unsafe { _mm512_loadu_si512(tris.as_ptr().cast::<__m512i>().add(i)) };
        let thirds = [third(0), third(1), third(2)];
        // One call per corner, each compiled for its own: as a loop over the corners, the
        // compiler kept the loop, its permutes' indices worked out at run time and the
        // corners' registers in memory.
        // SAFETY: the caller's.
        let (c0, c1, c2) = unsafe {
            (
                corner::<0>(screen, tris, &thirds),
                corner::<1>(screen, tris, &thirds),
                corner::<2>(screen, tris, &thirds),
            )
        };
        let ok = c0.ok & c1.ok & c2.ok;
        let (x, y) = ([c0.x, c1.x, c2.x], [c0.y, c1.y, c2.y]);
        let (z, light) = ([c0.z, c1.z, c2.z], [c0.light, c1.light, c2.light]);
        let min = |v: [__m512i; 3]| _mm512_min_epi32(_mm512_min_epi32(v[0], v[1]), v[2]);
        let max = |v: [__m512i; 3]| _mm512_max_epi32(_mm512_max_epi32(v[0], v[1]), v[2]);
        let (x_min, x_max, y_min, y_max) = (min(x), max(x), min(y), max(y));
        let under = |limit: i32| {
            let below =
                |hi: __m512i, lo: __m512i| _mm512_cmplt_epi32_mask(_mm512_sub_epi32(hi, lo), set1(limit));
            ok & below(x_max, x_min) & below(y_max, y_min)
        };
        let (small, sized) = (under(SMALL_EXTENT as i32), under(SET_UP_EXTENT as i32));
        const HALF: i32 = (SUB / 2) as i32;
        let first =
            |v: __m512i| _mm512_srai_epi32::<{ SUB_BITS }>(_mm512_add_epi32(v, set1(SUB as i32 - 1 - HALF)));
        let last_c = |v: __m512i| _mm512_srai_epi32::<{ SUB_BITS }>(_mm512_sub_epi32(v, set1(HALF)));
        let px0 = _mm512_max_epi32(first(x_min), zero);
        let px1 = _mm512_min_epi32(last_c(x_max), set1(screen.max_col));
        let py0 = _mm512_max_epi32(first(y_min), zero);
        let py1 = _mm512_min_epi32(last_c(y_max), set1(screen.max_row));
        let within =
            |n: i32, lo: __m512i, hi: __m512i| _mm512_cmplt_epi32_mask(_mm512_sub_epi32(hi, lo), set1(n));
        let narrow = within(4, px0, px1) & within(8, py0, py1);
        let wide = !within(4, px0, px1) & within(8, px0, px1) & within(4, py0, py1);
        let judged = small & (narrow | wide);
        let tall = !within(4, py0, py1) & judged;
        let wide = small & wide;
        // Set-up sides are below 2^14: products below 2^28 (other lanes may wrap; unused).
        let sub = _mm512_sub_epi32;
        let mul = _mm512_mullo_epi32;
        let area = sub(mul(sub(x[1], x[0]), sub(y[2], y[0])), mul(sub(y[1], y[0]), sub(x[2], x[0])));
        let flat = _mm512_cmpeq_epi32_mask(area, zero);
        let front = _mm512_srai_epi32::<31>(area);
        let signed = |v: __m512i| sub(_mm512_xor_si512(v, front), front);
        let cx = _mm512_add_epi32(_mm512_slli_epi32::<{ SUB_BITS }>(px0), set1(HALF));
        let cy = _mm512_add_epi32(_mm512_slli_epi32::<{ SUB_BITS }>(py0), set1(HALF));
        let (mut a, mut b, mut c) = ([zero; 3], [zero; 3], [zero; 3]);
        for k in 0..3 {
            let (i, j) = ((k + 1) % 3, (k + 2) % 3);
            let (dx, dy) = (sub(x[j], x[i]), sub(y[j], y[i]));
            let value = signed(sub(mul(dx, sub(cy, y[i])), mul(dy, sub(cx, x[i]))));
            let (dx, dy) = (signed(dx), signed(dy));
            let top_left = _mm512_cmplt_epi32_mask(dy, zero)
                | _mm512_mask_cmpgt_epi32_mask(_mm512_cmpeq_epi32_mask(dy, zero), dx, zero);
            // The bias is 0 on a top or left edge, else 1.
            c[k] = _mm512_mask_sub_epi32(value, !top_left, value, set1(1));
            a[k] = _mm512_slli_epi32::<{ SUB_BITS }>(sub(zero, dy));
            b[k] = _mm512_slli_epi32::<{ SUB_BITS }>(dx);
        }
        Lanes16 {
            judged,
            tall,
            wide,
            small,
            sized,
            x,
            y,
            z,
            light,
            px0,
            px1,
            py0,
            py1,
            cx,
            cy,
            flat,
            front,
            a,
            b,
            c,
        }
    }

    /// `filter_avx2::Lanes::covered`, sixteen lanes.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw")]
    fn covered(&self) -> __m512i {
        let set1 = _mm512_set1_epi32;
        let Lanes16 { a, b, c, .. } = *self;
        let step = |e: [__m512i; 3], d: [__m512i; 3]| -> [__m512i; 3] {
            [_mm512_add_epi32(e[0], d[0]), _mm512_add_epi32(e[1], d[1]), _mm512_add_epi32(e[2], d[2])]
        };
        // Or-ed into `out`: bit `p` set where a centre's edge values `e` are not all at
        // least zero (the sign bit of their or, moved to bit `p`).
        let outside = |e: &[__m512i; 3], p: i32, out: __m512i| {
            let or = _mm512_or_si512(_mm512_or_si512(e[0], e[1]), e[2]);
            let sign = _mm512_srlv_epi32(or, set1(31 - p));
            _mm512_or_si512(out, _mm512_and_si512(sign, set1(1 << p)))
        };
        let mut out = _mm512_setzero_si512();
        let mut row = c;
        for r in 0..4 {
            let mut e = row;
            for q in 0..4 {
                out = outside(&e, 4 * r + q, out);
                e = step(e, a);
            }
            row = step(row, b);
        }
        // Written out again, as in `filter_avx2::Lanes::covered`.
        if self.tall != 0 {
            for r in 4..8 {
                let mut e = row;
                for q in 0..4 {
                    out = outside(&e, 4 * r + q, out);
                    e = step(e, a);
                }
                row = step(row, b);
            }
        }
        let covered = _mm512_andnot_si512(out, self.centres::<2>());
        if self.wide == 0 {
            return covered;
        }
        let at = |v: __m512i, m: i32| _mm512_and_si512(v, set1(m));
        let mut out = _mm512_or_si512(
            _mm512_or_si512(at(out, 0xf), _mm512_slli_epi32::<4>(at(out, 0xf0))),
            _mm512_or_si512(_mm512_slli_epi32::<8>(at(out, 0xf00)), _mm512_slli_epi32::<12>(at(out, 0xf000))),
        );
        let mut row: [__m512i; 3] = [
            _mm512_add_epi32(c[0], _mm512_slli_epi32::<2>(a[0])),
            _mm512_add_epi32(c[1], _mm512_slli_epi32::<2>(a[1])),
            _mm512_add_epi32(c[2], _mm512_slli_epi32::<2>(a[2])),
        ];
        for r in 0..4 {
            let mut e = row;
            for q in 4..8 {
                out = outside(&e, 8 * r + q, out);
                e = step(e, a);
            }
            row = step(row, b);
        }
        _mm512_mask_blend_epi32(self.wide, covered, _mm512_andnot_si512(out, self.centres::<3>()))
    }

    /// `filter_avx2::Lanes::centres`, sixteen lanes.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw")]
    fn centres<const ROW_BITS: u32>(&self) -> __m512i {
        let (set1, ones, zero) = (_mm512_set1_epi32, _mm512_set1_epi32(-1), _mm512_setzero_si512());
        // The bits below `n` (0 to 32 and more: a shift by 32 or more gives zero).
        let below =
            |n: __m512i| _mm512_andnot_si512(_mm512_sllv_epi32(ones, _mm512_max_epi32(n, zero)), ones);
        let row_width = 1 << ROW_BITS;
        let cols = _mm512_add_epi32(_mm512_sub_epi32(self.px1, self.px0), set1(1));
        let mut each_row = _mm512_and_si512(below(cols), set1((1 << row_width) - 1));
        let mut width = row_width;
        while width < 32 {
            each_row = _mm512_or_si512(each_row, _mm512_sllv_epi32(each_row, set1(width)));
            width *= 2;
        }
        let rows = _mm512_add_epi32(_mm512_sub_epi32(self.py1, self.py0), set1(1));
        _mm512_and_si512(each_row, below(_mm512_slli_epi32::<ROW_BITS>(rows)))
    }

    /// Where a judged triangle surely draws nothing: no area, or none of the at most 32
    /// centres of its box covered (`covered`, given).
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw")]
    fn dropped(&self, covered: __m512i) -> __mmask16 {
        self.judged & (self.flat | _mm512_cmpeq_epi32_mask(covered, _mm512_setzero_si512()))
    }

    /// `filter_avx2::store`, sixteen lanes: the set-up and planes, with the same operations
    /// in the same order.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw")]
    fn store(&self, smooth: Option<f32>, out: &mut SmallLanes) {
        let put = |to: &mut [i32; LANES], v: __m512i| {
            // SAFETY: a store of the 64 bytes of `to`.
            unsafe { _mm512_storeu_si512(to.as_mut_ptr().cast(), v) }
        };
        let put_f = |to: &mut [f32; LANES], v: __m512| {
            // SAFETY: as for `put`.
            unsafe { _mm512_storeu_ps(to.as_mut_ptr(), v) }
        };
        for k in 0..3 {
            put(&mut out.a[k], self.a[k]);
            put(&mut out.b[k], self.b[k]);
            put(&mut out.c[k], self.c[k]);
        }
        let frame = [self.px0, self.px1, self.py0, self.py1, self.cx, self.cy];
        for (to, v) in out.frame.iter_mut().zip(frame) {
            put(to, v);
        }
        put(&mut out.front, self.front);
        let (mul, sub, add) = (_mm512_mul_ps, _mm512_sub_ps, _mm512_add_ps);
        let to_px = |v: __m512i| mul(_mm512_cvtepi32_ps(v), _mm512_set1_ps(1.0 / SUB as f32));
        let isub = _mm512_sub_epi32;
        let (x1, y1) = (to_px(isub(self.x[1], self.x[0])), to_px(isub(self.y[1], self.y[0])));
        let (x2, y2) = (to_px(isub(self.x[2], self.x[0])), to_px(isub(self.y[2], self.y[0])));
        let inv_area = _mm512_div_ps(_mm512_set1_ps(1.0), sub(mul(x1, y2), mul(y1, x2)));
        let (ox, oy) = (to_px(isub(self.cx, self.x[0])), to_px(isub(self.cy, self.y[0])));
        for (to, v) in out.basis.iter_mut().zip([x1, y1, x2, y2, inv_area, ox, oy]) {
            put_f(to, v);
        }
        // `fill::PlaneBasis::plane` of the corner values `v`, in its order.
        let plane = |v: [__m512; 3]| {
            let (d1, d2) = (sub(v[1], v[0]), sub(v[2], v[0]));
            let ddx = mul(sub(mul(d1, y2), mul(d2, y1)), inv_area);
            let ddy = mul(sub(mul(d2, x1), mul(d1, x2)), inv_area);
            [add(add(v[0], mul(ddx, ox)), mul(ddy, oy)), ddx, ddy]
        };
        for (to, v) in out.z_plane.iter_mut().zip(plane(self.z)) {
            put_f(to, v);
        }
        out.shaded = smooth.is_some();
        if let Some(ambient) = smooth {
            // As in `filter_avx2::store`: the light negated on a back face, then
            // `ambient + (1 - ambient) * max(cos, 0)`.
            // (In integer lanes: the float forms need AVX-512DQ.)
            let back = _mm512_andnot_si512(self.front, _mm512_set1_epi32(i32::MIN));
            let (ambient, lit) = (_mm512_set1_ps(ambient), _mm512_set1_ps(1.0 - ambient));
            let flip = |raw: __m512| _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(raw), back));
            let shade = |raw: __m512| add(ambient, mul(lit, _mm512_max_ps(flip(raw), _mm512_setzero_ps())));
            let corners = [shade(self.light[0]), shade(self.light[1]), shade(self.light[2])];
            for (to, v) in out.s_plane.iter_mut().zip(plane(corners)) {
                put_f(to, v);
            }
        }
    }
}
