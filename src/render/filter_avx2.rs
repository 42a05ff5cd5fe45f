//! The candidate filter's two tests in 256-bit AVX2, eight triangles per step (x86_64
//! only; checked at run time). See `bin::for_each_candidate`, which calls both.
//!
//! `span_pass` is the first test (does a triangle's pixel box hold a pixel centre?) read
//! from the vertices' centre spans, as `fill::spans_hold_centre` decides it one triangle
//! at a time: it runs on every triangle of a big mesh, eight at a time here. Both tests
//! read the vertices with a load each rather than with gathers, which were slower.
//!
//! `may_draw` is the second. Most triangles of a dense mesh that pass the span test still
//! cover no pixel centre. Each cost the scalar
//! filler a full set-up and a mispredicted branch or three to find that out. Here a small
//! triangle's edge functions are evaluated at every centre of its box, eight triangles at
//! a time, with no branch, and those that cover nothing are dropped before the filler
//! sees them. Only triangles the filler would draw nothing from are dropped: three
//! vertices in range and simple, less than `fill::SMALL_EXTENT` across both ways and a box
//! of at most 4 x 8 or 8 x 4 pixel centres, columns x rows (every triangle under four
//! pixels across fits 4 x 4, and so do many a little larger; the centres past 4 x 4 are
//! tested only in blocks that need them), and no area or no centre covered, worked out with `fill::SmallTriangle`'s
//! integers (the same box, edge functions and fill rule; integer arithmetic, so exactly
//! its verdicts). Everything else is passed on, to be drawn, clipped or counted as skipped.
//!
//! `SmallFilter` is `may_draw` for the one-thread fill, which also hands on the set-up it
//! has made: for every triangle under 64 pixels across (`fill::SET_UP_EXTENT`), the box,
//! the edge functions, the facing and the depth plane, sixteen at a time (as two blocks of
//! eight here, as one in `filter_avx512` with AVX-512), in the filler's
//! integers and with its float operations in its order, so the same bits. The filler then
//! starts at the triangle's rows.

use std::arch::x86_64::*;
use std::ops::Range;

use super::bin::{Tri, TriangleList};
use super::fill::{LANES, SET_UP_EXTENT, SMALL_EXTENT, SPAN_MAX_SIDE, SUB, SUB_BITS, SmallLanes};
use super::project::{NOT_SIMPLE, ProjVertex};
use crate::isa::{Isa, compiled_for_isa};

/// Triangles `span_pass` takes per call: one `u64` of pass bits per 64.
pub(super) const SPAN_PASS_MAX: usize = 512;

/// The span test of the triangles at the positions `range` of `list`, as many whole
/// blocks of eight as fit in `SPAN_PASS_MAX`: bit `i % 64` of `pass[i / 64]` is set when
/// the triangle at `range.start + i` passes (see `fill::spans_hold_centre`; an index out
/// of range reads the `SPAN_ANY` that ends `spans`, and passes). Returns how many triangles
/// were tested: none without AVX2, or when the indices cannot be read as whole blocks.
pub(super) fn span_pass(
    list: TriangleList,
    range: Range<usize>,
    spans: &[[i16; 4]],
    pass: &mut [u64; SPAN_PASS_MAX / 64],
) -> usize {
    let count = range.len().min(SPAN_PASS_MAX) / 8 * 8;
    let end = range.start + count;
    let indices = list.indices;
    let readable = indices.is_none_or(|ix| ix.len() / 3 >= end);
    if count == 0 || spans.is_empty() || !readable {
        return 0;
    }
    // The greatest index the blocks read, when known without reading them.
    let greatest = match indices {
        Some(_) => list.max.map(|m| m as usize),
        None => Some(3 * end - 1),
    };
    let Some(isa) = Isa::best() else {
        return 0;
    };
    *pass = [0; SPAN_PASS_MAX / 64];
    let (spans, last) = (spans.as_ptr().cast(), spans.len() - 1);
    let blocks = Blocks { indices, first: range.start, count, spans, last };
    // SAFETY: the CPU has `isa`. A listed block reads the 24 indices of its triangles, all
    // before `end`, inside `indices` (`readable`); `span_test8` reads spans at indices
    // clamped to `0..=last`, or at indices known to be at most `last`: inside `spans`.
    // Unclamped, the test is faster.
    unsafe {
        if greatest.is_some_and(|g| g <= last) {
            span_blocks_for::<false>(isa, &blocks, pass)
        } else {
            span_blocks_for::<true>(isa, &blocks, pass)
        }
    }
    count
}

/// What `span_pass` tests: `count` triangles (whole blocks of eight) from position
/// `first` of the list `indices` (`None`: the vertices in order), and the spans they read,
/// `last` being the index of the last.
struct Blocks<'a> {
    indices: Option<&'a [u32]>,
    first: usize,
    count: usize,
    spans: *const i64,
    last: usize,
}

compiled_for_isa! {
    /// `span_blocks` compiled for `isa`.
    unsafe fn span_blocks_for<const CLAMP: bool>(
        b: &Blocks,
        pass: &mut [u64; SPAN_PASS_MAX / 64],
    ) => span_blocks
}

/// How far ahead of the span test its indices are fetched, in indices (2 KB): see
/// `span_blocks`.
const INDEX_PREFETCH: usize = 512;

/// The bits of `span_pass` for `b`, or-ed into `pass` (cleared); with `CLAMP`, every
/// index read is clamped to `b.last`.
///
/// SAFETY (caller): AVX2 present; `b.indices`, when given, holds the indices of every
/// triangle tested; `b.spans` holds `b.last + 1` spans; without `CLAMP`, no index read
/// is greater than `b.last`.
#[inline(always)]
unsafe fn span_blocks<const CLAMP: bool>(b: &Blocks, pass: &mut [u64; SPAN_PASS_MAX / 64]) {
    for block in 0..b.count / 8 {
        let first = b.first + 8 * block;
        // SAFETY: the caller's.
        let bits = unsafe {
            match b.indices {
                Some(ix) => {
                    let p = ix.as_ptr().add(3 * first);
                    // The indices are the one long stream the raster reads, and the first
                    // load of each block waited on it. Two lines per block of 96 bytes
                    // fetch every line of it; past the end too (a prefetch does not fault).
                    _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(INDEX_PREFETCH).cast());
                    _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(INDEX_PREFETCH + 16).cast());
                    span_test8::<CLAMP>(b.spans, b.last, |j| *p.add(j) as usize)
                }
                None => span_test8::<CLAMP>(b.spans, b.last, |j| 3 * first + j),
            }
        };
        pass[block / 8] |= u64::from(bits) << (8 * (block % 8));
    }
}

/// The span test of eight triangles, corner `k` of triangle `t` being vertex
/// `corner(3 t + k)`: bit `t` set when triangle `t` passes. Each span is read with a load
/// of its own, which beat two 64-bit gathers per corner.
///
/// SAFETY (caller): AVX2 present; `corner(j)` safe to call for `j < 24`; `spans` holds
/// `last + 1` spans of 8 bytes; without `CLAMP`, `corner(j)` is at most `last`.
#[inline(always)]
unsafe fn span_test8<const CLAMP: bool>(
    spans: *const i64,
    last: usize,
    corner: impl Fn(usize) -> usize,
) -> u32 {
    // SAFETY: AVX2 present (caller).
    unsafe {
        // SAFETY: the index is clamped to `0..=last`, or known to be in it (caller's bounds).
        let span = |j: usize| *spans.add(if CLAMP { corner(j).min(last) } else { corner(j) });
        // Triangles 0..4, then 4..8, a span per 64-bit lane (a loop, not a closure: see
        // `Isa`).
        let mut fails = 0;
        for t in [0, 4] {
            // Corner k's spans of the four triangles; the array is built by hand: through
            // `array::map`, a build with link-time optimisation left `_mm256_set_epi64x`
            // out of line, uncompiled for AVX2, and the raster ran far slower.
            let mut s = [_mm256_setzero_si256(); 3];
            for (k, corner) in s.iter_mut().enumerate() {
                let at = |u: usize| span(3 * (t + u) + k);
                *corner = _mm256_set_epi64x(at(3), at(2), at(1), at(0));
            }
            // The box: the element-wise minimum of [first col, -last col, first row, -last row].
            let m = _mm256_min_epi16(_mm256_min_epi16(s[0], s[1]), s[2]);
            // first + -last per axis, in i32: no saturation to think about.
            let sums = _mm256_madd_epi16(m, _mm256_set1_epi16(1));
            let worst = _mm256_max_epi32(sums, _mm256_shuffle_epi32::<0b10_11_00_01>(sums));
            // A centre on both axes when neither sum is positive.
            let fail = _mm256_cmpgt_epi32(worst, _mm256_setzero_si256());
            fails |= (_mm256_movemask_pd(_mm256_castsi256_pd(fail)) as u32) << t;
        }
        !fails & 0xff
    }
}

/// Bit `i` set unless `tris[i]` (at most 64 of them) is sure to draw nothing on the
/// `width` x `height` raster (see the module comment): all set when the CPU lacks AVX2.
pub(super) fn may_draw(tris: &[Tri], verts: &[ProjVertex], width: usize, height: usize) -> u64 {
    let all = if tris.len() >= 64 { u64::MAX } else { (1u64 << tris.len()) - 1 };
    // The last vertex index goes in i32 lanes.
    let (Some(isa), Some(screen)) = (Isa::best(), Screen::new(verts, width, height)) else {
        return all;
    };
    if tris.len() > 64 {
        return all;
    }
    // SAFETY: the CPU has `isa`; `block8` reads `verts` only at indices clamped to
    // `0..=last` (see `Screen`).
    let bits = unsafe { may_draw_for(isa, &screen, tris) };
    // Lanes past the end were padding.
    bits & all
}

compiled_for_isa! {
    /// `may_draw_blocks` compiled for `isa`.
    unsafe fn may_draw_for(screen: &Screen, tris: &[Tri]) -> u64 => may_draw_blocks
}

/// `may_draw`'s bits for `tris` (at most 64), block by block; lanes past the end hold
/// padding.
///
/// SAFETY (caller): as for `block8`.
#[inline(always)]
unsafe fn may_draw_blocks(screen: &Screen, tris: &[Tri]) -> u64 {
    let (mut bits, mut pad) = (0u64, [[0u32; 3]; 8]);
    for (k, block) in tris.chunks(8).enumerate() {
        // SAFETY: the caller's.
        let m = unsafe { block8(screen, super::bin::padded(block, &mut pad)) };
        bits |= u64::from(m) << (8 * k);
    }
    bits
}

/// Raw views of the projected vertices, and the raster's last column and row.
pub(super) struct Screen {
    /// `ProjVertex` is `repr(C)`: x (i32) at 4-byte word 0, y at word 1, four words each.
    pub(super) verts: *const i32,
    /// The last vertex index.
    pub(super) last: i32,
    pub(super) max_col: i32,
    pub(super) max_row: i32,
}

impl Screen {
    /// `None` when there are no vertices, or the vertex indices or the raster are too big
    /// for the lanes (the filler's small path also wants sides of at most `SPAN_MAX_SIDE`).
    fn new(verts: &[ProjVertex], width: usize, height: usize) -> Option<Screen> {
        let n = verts.len();
        let fits = n > 0 && n <= i32::MAX as usize && width.max(height) <= SPAN_MAX_SIDE;
        fits.then(|| Screen {
            verts: verts.as_ptr().cast(),
            last: n as i32 - 1,
            max_col: width as i32 - 1,
            max_row: height as i32 - 1,
        })
    }
}

/// The bits of `may_draw` for eight triangles.
///
/// SAFETY (caller): AVX2 present; `screen.verts` holds `last + 1` vertices.
#[inline(always)]
unsafe fn block8(screen: &Screen, tris: &[Tri; 8]) -> u32 {
    // SAFETY: AVX2 present (caller).
    unsafe {
        // SAFETY: the caller's.
        let l = Lanes::new(screen, tris);
        (!_mm256_movemask_ps(_mm256_castsi256_ps(l.dropped(l.covered()))) & 0xff) as u32
    }
}

/// Eight triangles set up as `fill::SmallTriangle::new` sets one up, a triangle per lane.
/// Lanes that are not `ok`, or not small, hold values of no use.
struct Lanes {
    /// All ones where `small` and the box holds at most 4 x 8 or 8 x 4 centres of the
    /// raster (columns x rows).
    judged: __m256i,
    /// All ones where `judged` and the box has more than four rows.
    tall: __m256i,
    /// All ones where `judged` and the box has more than four columns.
    wide: __m256i,
    /// All ones where all three vertices are in range and simple, and the triangle spans
    /// less than `fill::SMALL_EXTENT` both ways.
    small: __m256i,
    /// The same for `fill::SET_UP_EXTENT`: the triangles `SmallFilter` sets up.
    sized: __m256i,
    x: [__m256i; 3],
    y: [__m256i; 3],
    /// Each corner's depth and light (`ProjVertex::z`, `ProjVertex::light`).
    z: [__m256; 3],
    light: [__m256; 3],
    px0: __m256i,
    px1: __m256i,
    py0: __m256i,
    py1: __m256i,
    cx: __m256i,
    cy: __m256i,
    /// All ones where the area is zero.
    flat: __m256i,
    /// All ones on a front face, whose edges are reversed (negated, see `SmallTriangle`).
    front: __m256i,
    a: [__m256i; 3],
    b: [__m256i; 3],
    c: [__m256i; 3],
}

impl Lanes {
    /// SAFETY (caller): AVX2 present; `screen.verts` holds `last + 1` vertices.
    #[inline(always)]
    unsafe fn new(screen: &Screen, tris: &[Tri; 8]) -> Lanes {
        // SAFETY: AVX2 present (caller).
        unsafe {
            let set1 = _mm256_set1_epi32;
            let zero = _mm256_setzero_si256();
            let last = set1(screen.last);
            // The 24 indices, triangle by triangle (`Tri` is three u32, so `tris` is 96
            // bytes), sorted into one register per corner by a permute of each third and two
            // blends, for the range test; the loads below read them again one by one.
            let third = |i: usize| _mm256_loadu_si256(tris.as_ptr().cast::<__m256i>().add(i));
            let thirds = [third(0), third(1), third(2)];
            // Corner k of triangle t is word 3 t + k: word (3 t + k) % 8 of third
            // (3 t + k) / 8. Each third is permuted so that lane t holds that word, and
            // the blends take each lane from its third.
            let pick = |k: i32| {
                let word = |t: i32| (3 * t + k) % 8;
                let idx =
                    _mm256_setr_epi32(word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7));
                let from = |i: usize| _mm256_permutevar8x32_epi32(thirds[i], idx);
                let (f0, f1, f2) = (from(0), from(1), from(2));
                match k {
                    // Lanes 3..6 from the second third, 6..8 from the last.
                    0 => _mm256_blend_epi32::<0b1100_0000>(_mm256_blend_epi32::<0b0011_1000>(f0, f1), f2),
                    // Lanes 3..5, 5..8.
                    1 => _mm256_blend_epi32::<0b1110_0000>(_mm256_blend_epi32::<0b0001_1000>(f0, f1), f2),
                    // Lanes 2..5, 5..8.
                    _ => _mm256_blend_epi32::<0b1110_0000>(_mm256_blend_epi32::<0b0001_1100>(f0, f1), f2),
                }
            };
            let mut ok = set1(-1);
            let (mut x, mut y) = ([zero; 3], [zero; 3]);
            let (mut z, mut light) = ([_mm256_setzero_ps(); 3], [_mm256_setzero_ps(); 3]);
            for k in 0..3 {
                let index = pick(k as i32);
                // In range: the unsigned minimum with the last index is the index itself.
                let clamped_v = _mm256_min_epu32(index, last);
                ok = _mm256_and_si256(ok, _mm256_cmpeq_epi32(clamped_v, index));
                // SAFETY: every index is clamped to `0..=last` (caller's bounds): x, y, z and
                // the light are the first four words of each `ProjVertex`. Each vertex is read
                // with a load of its own, which beat gathers (as in `span_test8`). Its index
                // is read from `tris` and clamped in a general register: taken from the
                // clamped lanes instead, the compiler moved each address out of a vector
                // register, two shuffles apiece.
                let xyzl = |t: usize| {
                    let i = (tris[t][k] as usize).min(screen.last as usize);
                    screen.verts.add(4 * i).cast::<f32>()
                };
                // Vertices t | t + 4 per register, then a 4 x 4 transpose in each half.
                let pair = |t: usize| _mm256_loadu2_m128(xyzl(t + 4), xyzl(t));
                let (r0, r1, r2, r3) = (pair(0), pair(1), pair(2), pair(3));
                let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
                let (t2, t3) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
                let (pd, ps) = (_mm256_castps_pd, _mm256_castpd_ps);
                x[k] = _mm256_castps_si256(ps(_mm256_unpacklo_pd(pd(t0), pd(t2))));
                y[k] = _mm256_castps_si256(ps(_mm256_unpackhi_pd(pd(t0), pd(t2))));
                z[k] = ps(_mm256_unpacklo_pd(pd(t1), pd(t3)));
                light[k] = ps(_mm256_unpackhi_pd(pd(t1), pd(t3)));
                // Simple: `y` is not `NOT_SIMPLE` (a simple vertex is inside the guard band).
                ok = _mm256_andnot_si256(_mm256_cmpeq_epi32(y[k], set1(NOT_SIMPLE)), ok);
            }
            let min = |v: [__m256i; 3]| _mm256_min_epi32(_mm256_min_epi32(v[0], v[1]), v[2]);
            let max = |v: [__m256i; 3]| _mm256_max_epi32(_mm256_max_epi32(v[0], v[1]), v[2]);
            let (x_min, x_max, y_min, y_max) = (min(x), max(x), min(y), max(y));
            let under = |limit: i32| {
                let below =
                    |hi: __m256i, lo: __m256i| _mm256_cmpgt_epi32(set1(limit), _mm256_sub_epi32(hi, lo));
                _mm256_and_si256(ok, _mm256_and_si256(below(x_max, x_min), below(y_max, y_min)))
            };
            let (small, sized) = (under(SMALL_EXTENT as i32), under(SET_UP_EXTENT as i32));
            // `fill::SmallTriangle::new`'s box: first and last centres, clamped to the raster.
            const HALF: i32 = (SUB / 2) as i32;
            let first = |v: __m256i| {
                _mm256_srai_epi32::<{ SUB_BITS as i32 }>(_mm256_add_epi32(v, set1(SUB as i32 - 1 - HALF)))
            };
            let last_c =
                |v: __m256i| _mm256_srai_epi32::<{ SUB_BITS as i32 }>(_mm256_sub_epi32(v, set1(HALF)));
            let px0 = _mm256_max_epi32(first(x_min), zero);
            let px1 = _mm256_min_epi32(last_c(x_max), set1(screen.max_col));
            let py0 = _mm256_max_epi32(first(y_min), zero);
            let py1 = _mm256_min_epi32(last_c(y_max), set1(screen.max_row));
            // A box of at most four centres across and eight down (or none: a first past
            // its last); `tall` where it has more than four rows.
            let within =
                |n: i32, lo: __m256i, hi: __m256i| _mm256_cmpgt_epi32(set1(n), _mm256_sub_epi32(hi, lo));
            let narrow = _mm256_and_si256(within(4, px0, px1), within(8, py0, py1));
            let wide = _mm256_andnot_si256(
                within(4, px0, px1),
                _mm256_and_si256(within(8, px0, px1), within(4, py0, py1)),
            );
            let judged = _mm256_and_si256(small, _mm256_or_si256(narrow, wide));
            let tall = _mm256_andnot_si256(within(4, py0, py1), judged);
            let wide = _mm256_and_si256(small, wide);
            // Set-up sides are below 2^14: products below 2^28 (other lanes may wrap; unused).
            let sub = _mm256_sub_epi32;
            let mul = _mm256_mullo_epi32;
            let area = sub(mul(sub(x[1], x[0]), sub(y[2], y[0])), mul(sub(y[1], y[0]), sub(x[2], x[0])));
            let flat = _mm256_cmpeq_epi32(area, zero);
            let front = _mm256_srai_epi32::<31>(area);
            let signed = |v: __m256i| sub(_mm256_xor_si256(v, front), front);
            let cx = _mm256_add_epi32(_mm256_slli_epi32::<{ SUB_BITS as i32 }>(px0), set1(HALF));
            let cy = _mm256_add_epi32(_mm256_slli_epi32::<{ SUB_BITS as i32 }>(py0), set1(HALF));
            // Per edge: the step per column (a), per row (b) and the value at (cx, cy) (c), as
            // `fill::edge_functions` makes them.
            let (mut a, mut b, mut c) = ([zero; 3], [zero; 3], [zero; 3]);
            for k in 0..3 {
                let (i, j) = ((k + 1) % 3, (k + 2) % 3);
                let (dx, dy) = (sub(x[j], x[i]), sub(y[j], y[i]));
                let value = signed(sub(mul(dx, sub(cy, y[i])), mul(dy, sub(cx, x[i]))));
                let (dx, dy) = (signed(dx), signed(dy));
                let top_left = _mm256_or_si256(
                    _mm256_cmpgt_epi32(zero, dy),
                    _mm256_and_si256(_mm256_cmpeq_epi32(dy, zero), _mm256_cmpgt_epi32(dx, zero)),
                );
                // The bias is 0 on a top or left edge (top_left all ones), else 1.
                c[k] = sub(sub(value, set1(1)), top_left);
                a[k] = _mm256_slli_epi32::<{ SUB_BITS as i32 }>(sub(zero, dy));
                b[k] = _mm256_slli_epi32::<{ SUB_BITS as i32 }>(dx);
            }
            Lanes {
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
    }

    /// Per lane, the centres of the box (at most 4 x 8 or 8 x 4 for a judged triangle) that
    /// the triangle covers: bit `4 r + q` for the centre `q` columns right of and `r` rows
    /// below the first, or `8 r + q` in a `wide` box, from the edge functions there, as the
    /// filler evaluates them. Rows 4 to 7 only in blocks that have a `tall` lane, columns 4
    /// to 7 only in blocks that have a `wide` one: thin slivers are common in dense meshes
    /// (two thirds of the triangles the filler would scan row by row on CesiumMan-x32), but
    /// every block paying for 32 centres slowed the samples down.
    #[inline(always)]
    unsafe fn covered(&self) -> __m256i {
        // SAFETY: AVX2 present (caller).
        unsafe {
            let set1 = _mm256_set1_epi32;
            let Lanes { a, b, c, .. } = *self;
            let step = |e: [__m256i; 3], d: [__m256i; 3]| -> [__m256i; 3] {
                std::array::from_fn(|k| _mm256_add_epi32(e[k], d[k]))
            };
            // Or-ed into `out`: bit `p` set where a centre's edge values `e` are not all at
            // least zero (the sign bit of their or, moved to bit `p`). The uncovered
            // centres are gathered, and the box applied once at the end: per centre, no
            // compare against the box and no bit built at run time (the loops unroll, so
            // `p` is a constant).
            let outside = |e: &[__m256i; 3], p: i32, out: __m256i| {
                let or = _mm256_or_si256(_mm256_or_si256(e[0], e[1]), e[2]);
                let sign = _mm256_srlv_epi32(or, set1(31 - p));
                _mm256_or_si256(out, _mm256_and_si256(sign, set1(1 << p)))
            };
            let mut out = _mm256_setzero_si256();
            let mut row = c;
            for r in 0..4 {
                let mut e = row;
                for q in 0..4 {
                    out = outside(&e, 4 * r + q, out);
                    e = step(e, a);
                }
                row = step(row, b);
            }
            // Rows 4 to 7 written out again, as are the wide boxes' columns below: as one
            // closure called three times, the compiler left it out of line, and every
            // intrinsic in it with it (see `crate::isa`).
            if _mm256_movemask_ps(_mm256_castsi256_ps(self.tall)) != 0 {
                for r in 4..8 {
                    let mut e = row;
                    for q in 0..4 {
                        out = outside(&e, 4 * r + q, out);
                        e = step(e, a);
                    }
                    row = step(row, b);
                }
            }
            let covered = _mm256_andnot_si256(out, self.centres::<2>());
            if _mm256_movemask_ps(_mm256_castsi256_ps(self.wide)) == 0 {
                return covered;
            }
            // A wide box's rows are eight bits apart: its first four columns' bits spread
            // out, then columns 4 to 7 of its (at most four) rows.
            let at = |v: __m256i, m: i32| _mm256_and_si256(v, set1(m));
            let mut out = _mm256_or_si256(
                _mm256_or_si256(at(out, 0xf), _mm256_slli_epi32::<4>(at(out, 0xf0))),
                _mm256_or_si256(
                    _mm256_slli_epi32::<8>(at(out, 0xf00)),
                    _mm256_slli_epi32::<12>(at(out, 0xf000)),
                ),
            );
            let mut row: [__m256i; 3] =
                std::array::from_fn(|k| _mm256_add_epi32(c[k], _mm256_slli_epi32::<2>(a[k])));
            for r in 0..4 {
                let mut e = row;
                for q in 4..8 {
                    out = outside(&e, 8 * r + q, out);
                    e = step(e, a);
                }
                row = step(row, b);
            }
            _mm256_blendv_epi8(covered, _mm256_andnot_si256(out, self.centres::<3>()), self.wide)
        }
    }

    /// Per lane, the bits of the centres of its box (at most eight rows, and columns of
    /// `1 << ROW_BITS` bits): bit `(r << ROW_BITS) + q` for each `r <= py1 - py0` and
    /// `q <= px1 - px0`; none for a box without a centre.
    #[inline(always)]
    unsafe fn centres<const ROW_BITS: i32>(&self) -> __m256i {
        // SAFETY: AVX2 present (caller).
        unsafe {
            let (set1, ones, zero) = (_mm256_set1_epi32, _mm256_set1_epi32(-1), _mm256_setzero_si256());
            // The bits below `n` (0 to 32 and more: a shift by 32 or more gives zero).
            let below =
                |n: __m256i| _mm256_andnot_si256(_mm256_sllv_epi32(ones, _mm256_max_epi32(n, zero)), ones);
            let row_width = 1 << ROW_BITS;
            let cols = _mm256_add_epi32(_mm256_sub_epi32(self.px1, self.px0), set1(1));
            let mut each_row = _mm256_and_si256(below(cols), set1((1 << row_width) - 1));
            let mut width = row_width;
            while width < 32 {
                each_row = _mm256_or_si256(each_row, _mm256_sllv_epi32(each_row, set1(width)));
                width *= 2;
            }
            let rows = _mm256_add_epi32(_mm256_sub_epi32(self.py1, self.py0), set1(1));
            _mm256_and_si256(each_row, below(_mm256_slli_epi32::<ROW_BITS>(rows)))
        }
    }

    /// All ones where a judged triangle surely draws nothing: no area, or none of the at
    /// most 32 centres of its box covered (`covered`, given).
    #[inline(always)]
    unsafe fn dropped(&self, covered: __m256i) -> __m256i {
        // SAFETY: AVX2 present (caller).
        unsafe {
            let draws_nothing =
                _mm256_or_si256(self.flat, _mm256_cmpeq_epi32(covered, _mm256_setzero_si256()));
            _mm256_and_si256(self.judged, draws_nothing)
        }
    }
}

/// `may_draw` that also sets small triangles up, eight at a time, for the one-thread fill
/// (`bin::for_each_set_up`): the filler then starts at their rows.
pub(super) struct SmallFilter {
    isa: Isa,
    screen: Screen,
    /// The ambient term of `Shader::Smooth`, when the set-up also shades (see `store`).
    smooth: Option<f32>,
}

impl SmallFilter {
    /// `None` without AVX2, or when the vertices or the raster are too big for the lanes
    /// (see `Screen::new`). With `smooth` (`Shader::Smooth`'s ambient term), the lanes also
    /// get each triangle's plane of shaded values.
    pub(super) fn new(
        verts: &[ProjVertex],
        width: usize,
        height: usize,
        smooth: Option<f32>,
    ) -> Option<Self> {
        Some(SmallFilter { isa: Isa::best()?, screen: Screen::new(verts, width, height)?, smooth })
    }

    /// Ask the cache for the vertices of `tris` (a block `set_up8` takes next).
    ///
    /// The vertices were projected a while before the set-up reads them, and in a mesh
    /// bigger than the cache most of them have gone to the last level by then: each block
    /// waited on its 24 loads. Fetched one block ahead, they arrive while the block before
    /// is set up (a whole batch ahead gained nothing). Two plain loops: over
    /// `tris.iter().flatten()` the compiler made a loop that cost more than it saved.
    #[inline(always)]
    pub(super) fn prefetch(&self, tris: &[Tri]) {
        for t in tris {
            for &i in t {
                // The index may be out of range: a prefetch does not fault, and the set-up
                // clamps it before the load.
                let at = self.screen.verts.wrapping_add(4 * i as usize);
                // SAFETY: a prefetch reads nothing the program sees and cannot fault.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(at.cast()) };
            }
        }
    }

    /// For sixteen triangles: (bits of those set up in `out`, bits of the others, to go
    /// through the filler's own checks). Set up: three vertices in range and simple, less
    /// than `fill::SET_UP_EXTENT` across both ways, some area and a centre of the raster in
    /// the box, and not dropped by `may_draw`'s test. The other triangles of that size and
    /// of simple vertices draw nothing and are in neither.
    pub(super) fn set_up16(&self, tris: &[Tri; LANES], out: &mut SmallLanes) -> (u32, u32) {
        // SAFETY (both ways): `new` found the CPU has `isa`, and took `screen` from slices
        // whose lengths bound every index the set-up reads at (see `Screen`).
        if self.isa == Isa::Avx512 {
            return unsafe { super::filter_avx512::set_up16(&self.screen, self.smooth, tris, out) };
        }
        // Sixteen are two eights; were they not, every triangle would go to the filler.
        let ([first, second], []) = tris.as_chunks::<8>() else {
            return (0, (1 << LANES) - 1);
        };
        unsafe {
            let (set_up, other) = set_up8_avx2(&self.screen, self.smooth, first, out, 0);
            let (more, others) = set_up8_avx2(&self.screen, self.smooth, second, out, 8);
            (set_up | more << 8, other | others << 8)
        }
    }
}

/// `set_up8` compiled for AVX2 alone: with AVX-512, `filter_avx512` sets sixteen up
/// instead, so this is not compiled for it as the other kernels are (see `crate::isa`).
///
/// SAFETY (caller): as for `set_up8`.
#[target_feature(enable = "avx2")]
unsafe fn set_up8_avx2(
    screen: &Screen,
    smooth: Option<f32>,
    tris: &[Tri; 8],
    out: &mut SmallLanes,
    base: usize,
) -> (u32, u32) {
    // SAFETY: the caller's.
    unsafe { set_up8(screen, smooth, tris, out, base) }
}

/// `SmallFilter::set_up16` of eight triangles, into lanes `base..base + 8` of `out`.
///
/// SAFETY (caller): as for `block8`; `base` is 0 or 8.
#[inline(always)]
unsafe fn set_up8(
    screen: &Screen,
    smooth: Option<f32>,
    tris: &[Tri; 8],
    out: &mut SmallLanes,
    base: usize,
) -> (u32, u32) {
    // SAFETY: AVX2 present (caller).
    unsafe {
        // SAFETY: the caller's.
        let l = Lanes::new(screen, tris);
        let covered = l.covered();
        let dropped = l.dropped(covered);
        let no_box = _mm256_or_si256(_mm256_cmpgt_epi32(l.px0, l.px1), _mm256_cmpgt_epi32(l.py0, l.py1));
        let unusable = _mm256_or_si256(_mm256_or_si256(no_box, l.flat), dropped);
        let set_up = _mm256_andnot_si256(unusable, l.sized);
        let bits = |v: __m256i| (_mm256_movemask_ps(_mm256_castsi256_ps(v)) & 0xff) as u32;
        let (set_up, sized) = (bits(set_up), bits(l.sized));
        if set_up != 0 {
            store(&l, smooth, out, base);
            // SAFETY: stores of 32 bytes at lane `base` (0 or 8) of sixteen.
            _mm256_storeu_si256(
                out.long.as_mut_ptr().add(base).cast(),
                _mm256_andnot_si256(l.small, l.sized),
            );
            // The filler reads the centres of the judged triangles only.
            let covered = _mm256_and_si256(covered, l.judged);
            _mm256_storeu_si256(out.covered.as_mut_ptr().add(base).cast(), covered);
        }
        // A triangle of this size that is not set up draws nothing: no area, no centre of the
        // raster in its box, or (small) none covered.
        (set_up, !sized & 0xff)
    }
}

/// Write the lanes' set-up and planes (`fill::PlaneBasis`, with its operations in its
/// order: the same bits) to `out`: the depth plane, and with `smooth` the plane of the
/// values `Shader::Smooth` gives the corners (its `finish`, lane by lane, also in order).
#[inline(always)]
unsafe fn store(l: &Lanes, smooth: Option<f32>, out: &mut SmallLanes, base: usize) {
    // SAFETY: AVX2 present (caller).
    unsafe {
        let put = |to: &mut [i32; LANES], v: __m256i| {
            // SAFETY: a store of 32 bytes at lane `base` (0 or 8, caller) of sixteen.
            _mm256_storeu_si256(to.as_mut_ptr().add(base).cast(), v)
        };
        let put_f = |to: &mut [f32; LANES], v: __m256| {
            // SAFETY: as for `put`.
            _mm256_storeu_ps(to.as_mut_ptr().add(base), v)
        };
        for k in 0..3 {
            put(&mut out.a[k], l.a[k]);
            put(&mut out.b[k], l.b[k]);
            put(&mut out.c[k], l.c[k]);
        }
        for (to, v) in out.frame.iter_mut().zip([l.px0, l.px1, l.py0, l.py1, l.cx, l.cy]) {
            put(to, v);
        }
        put(&mut out.front, l.front);
        let (mul, sub, add) = (_mm256_mul_ps, _mm256_sub_ps, _mm256_add_ps);
        // `v as f32 / SUB`: the conversion rounds to nearest as `as` does, and dividing by a
        // power of two is multiplying by its exact inverse.
        let to_px = |v: __m256i| mul(_mm256_cvtepi32_ps(v), _mm256_set1_ps(1.0 / SUB as f32));
        let isub = _mm256_sub_epi32;
        let (x1, y1) = (to_px(isub(l.x[1], l.x[0])), to_px(isub(l.y[1], l.y[0])));
        let (x2, y2) = (to_px(isub(l.x[2], l.x[0])), to_px(isub(l.y[2], l.y[0])));
        let inv_area = _mm256_div_ps(_mm256_set1_ps(1.0), sub(mul(x1, y2), mul(y1, x2)));
        let (ox, oy) = (to_px(isub(l.cx, l.x[0])), to_px(isub(l.cy, l.y[0])));
        for (to, v) in out.basis.iter_mut().zip([x1, y1, x2, y2, inv_area, ox, oy]) {
            put_f(to, v);
        }
        let basis = Basis { x1, y1, x2, y2, inv_area, ox, oy };
        for (to, v) in out.z_plane.iter_mut().zip(basis.plane(l.z)) {
            put_f(to, v);
        }
        out.shaded = smooth.is_some();
        if let Some(ambient) = smooth {
            // The light (the fourth word) negated on a back face, then
            // `ambient + (1 - ambient) * max(cos, 0)`. Where `cos` is -0, `max` may give
            // either zero, and so may the scalar one: `ambient` plus a zero is the same either way.
            let back = _mm256_andnot_ps(_mm256_castsi256_ps(l.front), _mm256_set1_ps(-0.0));
            let (ambient, lit) = (_mm256_set1_ps(ambient), _mm256_set1_ps(1.0 - ambient));
            let shade = |raw: __m256| {
                add(ambient, mul(lit, _mm256_max_ps(_mm256_xor_ps(raw, back), _mm256_setzero_ps())))
            };
            for (to, v) in out.s_plane.iter_mut().zip(basis.plane([
                shade(l.light[0]),
                shade(l.light[1]),
                shade(l.light[2]),
            ])) {
                put_f(to, v);
            }
        }
    }
}

/// `fill::PlaneBasis` of eight triangles, a triangle per lane.
struct Basis {
    x1: __m256,
    y1: __m256,
    x2: __m256,
    y2: __m256,
    inv_area: __m256,
    ox: __m256,
    oy: __m256,
}

impl Basis {
    /// `PlaneBasis::plane` of the corner values `v`, in its order.
    ///
    /// SAFETY (caller): AVX2 present.
    #[inline(always)]
    unsafe fn plane(&self, v: [__m256; 3]) -> [__m256; 3] {
        let Basis { x1, y1, x2, y2, inv_area, ox, oy } = *self;
        // SAFETY: AVX2 present (caller).
        unsafe {
            let (mul, sub, add) = (_mm256_mul_ps, _mm256_sub_ps, _mm256_add_ps);
            let (d1, d2) = (sub(v[1], v[0]), sub(v[2], v[0]));
            let ddx = mul(sub(mul(d1, y2), mul(d2, y1)), inv_area);
            let ddy = mul(sub(mul(d2, x1), mul(d1, x2)), inv_area);
            [add(add(v[0], mul(ddx, ox)), mul(ddy, oy)), ddx, ddy]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fill::{SPAN_ANY, centre_span, fill_snapped, spans_hold_centre, to_fixed};
    use crate::render::project::State;

    /// `count` triangles of three vertices near each other, `sizes[k % len]` pixels
    /// across, scattered over and a few pixels around a `w` x `h` raster; every seventh
    /// vertex is not simple and every fiftieth triangle has an index out of range.
    fn scattered_triangles(
        seed: u64,
        count: usize,
        sizes: &[f32],
        (w, h): (usize, usize),
    ) -> (Vec<ProjVertex>, Vec<Tri>) {
        let mut seed = seed;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 40) as f32 / (1u64 << 24) as f32
        };
        let mut verts = Vec::new();
        for k in 0..count {
            let (cx, cy) = (next() * (w + 8) as f32 - 4.0, next() * (h + 8) as f32 - 4.0);
            let size = sizes[k % sizes.len()];
            for _ in 0..3 {
                let (x, y) = (to_fixed(cx + next() * size) as i32, to_fixed(cy + next() * size) as i32);
                let (z, light) = (0.1 + 0.8 * next(), next() - 0.5);
                verts.push(if verts.len() % 7 == 3 {
                    ProjVertex::not_simple(State::Clip, light)
                } else {
                    ProjVertex { x, y, z, light }
                });
            }
        }
        let n = verts.len() as u32;
        let tris = (0..n / 3)
            .map(|k| {
                let t = [3 * k, 3 * k + 1, 3 * k + 2];
                if k % 50 == 7 { [t[0], n + k, t[2]] } else { t }
            })
            .collect();
        (verts, tris)
    }

    /// Whether the filter knows which centres the triangle of snapped corners `x`, `y`
    /// covers: less than 16 pixels across both ways, and at most four pixel centres of a
    /// `w` x `h` raster between its lowest and highest corner across and eight down, or
    /// eight across and four down, counted one by one.
    fn judged((w, h): (usize, usize), x: [i32; 3], y: [i32; 3]) -> bool {
        let fits = |c: [i32; 3], side: usize, most: usize| {
            let (lo, hi) = (*c.iter().min().unwrap(), *c.iter().max().unwrap());
            let centres = (0..side as i32).filter(|i| (lo..=hi).contains(&(i * 256 + 128))).count();
            hi - lo < 16 * 256 && centres <= most
        };
        (fits(x, w, 4) && fits(y, h, 8)) || (fits(x, w, 8) && fits(y, h, 4))
    }

    /// `check()` with each instruction set this CPU has (see `Isa`); a note when none.
    fn with_each_isa(what: &str, check: impl Fn()) {
        let isas: Vec<Isa> = Isa::available().collect();
        for isa in &isas {
            isa.forced(&check);
        }
        if isas.is_empty() {
            eprintln!("note: no AVX2 here; {what} is not tested");
        }
    }

    #[test]
    fn span_pass_decides_as_the_scalar_test() {
        with_each_isa("span_pass", || {
            // Random spans of vertices in and around a 40 x 30 raster, every ninth not simple,
            // an index list with some indices out of range, over ranges of every length and
            // start: every bit must be `spans_hold_centre`'s verdict, for the list (its
            // maximum known or not), for the list with those indices brought in range (read
            // unclamped when its maximum is known) and for vertices in order.
            let mut seed = 9u64;
            let mut next = move |m: u32| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (seed >> 33) as u32 % m
            };
            let n = 3000;
            // Three vertices within a pixel or so of each other, a group at a time.
            let mut spans = Vec::new();
            while spans.len() < n {
                let (cx, cy) = (next(46 * 256) as i32 - 3 * 256, next(36 * 256) as i32 - 3 * 256);
                for _ in 0..3 {
                    let (x, y) = (cx + next(300) as i32, cy + next(300) as i32);
                    spans.push(if spans.len() % 9 == 4 { SPAN_ANY } else { centre_span(40, 30, x, y) });
                }
            }
            spans.push(SPAN_ANY);
            let span = |i: u32| spans[(i as usize).min(n)];
            let indices: Vec<u32> = (0..3 * n as u32)
                .map(|k| {
                    let base = (k / 3 * 3) % n as u32;
                    if k % 97 == 5 { n as u32 + k } else { base + next(3) }
                })
                .collect();
            let in_range: Vec<u32> = indices.iter().map(|&i| i % n as u32).collect();
            let max = |ix: &[u32]| ix.iter().copied().max();
            let lists = [
                TriangleList { indices: Some(&indices), max: None },
                TriangleList { indices: Some(&indices), max: max(&indices) },
                TriangleList { indices: Some(&in_range), max: None },
                TriangleList { indices: Some(&in_range), max: max(&in_range) },
                TriangleList { indices: None, max: None },
            ];
            let (mut tested, mut passed) = (0, 0);
            for (start, len) in [(0, 1000), (3, 517), (100, 8), (40, 7), (995, 5), (7, 0)] {
                for list in lists {
                    let mut pass = [0; SPAN_PASS_MAX / 64];
                    let done = span_pass(list, start..start + len, &spans, &mut pass);
                    assert_eq!(done, len.min(SPAN_PASS_MAX) / 8 * 8);
                    for i in 0..done {
                        let k = start + i;
                        let t = match list.indices {
                            Some(ix) => [ix[3 * k], ix[3 * k + 1], ix[3 * k + 2]],
                            None => [3 * k as u32, 3 * k as u32 + 1, 3 * k as u32 + 2],
                        };
                        let want = spans_hold_centre(span(t[0]), span(t[1]), span(t[2]));
                        assert_eq!(pass[i / 64] >> (i % 64) & 1 == 1, want, "triangle {k} {t:?}");
                        passed += usize::from(want);
                    }
                    tested += done;
                }
            }
            assert!(tested > 2000 && passed > 200 && passed < tested - 200, "{tested} {passed}");
        });
    }

    #[test]
    fn only_triangles_that_draw_nothing_are_dropped() {
        with_each_isa("may_draw", || {
            // Vertices scattered over and around a 37 x 23 raster, every seventh not simple;
            // triangles of three nearby vertices (sub-pixel to a few pixels), some with an index
            // out of range. Each must be kept exactly when it is not judged (see the module
            // comment) or the filler draws a pixel of it.
            let (w, h) = (37, 23);
            let (verts, tris) = scattered_triangles(5, 6000, &[0.3, 0.9, 2.0, 3.9, 6.0], (w, h));
            let (mut dropped, mut kept_drawing) = (0, 0);
            for batch in tris.chunks(61) {
                let bits = may_draw(batch, &verts, w, h);
                assert_eq!(bits >> batch.len(), 0);
                for (i, t) in batch.iter().enumerate() {
                    let kept = bits >> i & 1 == 1;
                    let Some(v) = t.map(|i| verts.get(i as usize)).into_iter().collect::<Option<Vec<_>>>()
                    else {
                        assert!(kept, "{t:?} has an index out of range");
                        continue;
                    };
                    let (x, y) = ([v[0].x, v[1].x, v[2].x], [v[0].y, v[1].y, v[2].y]);
                    // A vertex that is not simple has no position to draw (`NOT_SIMPLE`).
                    let simple = v.iter().all(|v| v.simple());
                    let judged = simple && judged((w, h), x, y);
                    let mut draws = false;
                    if simple {
                        fill_snapped(
                            (w, h),
                            &(0..h),
                            x,
                            y,
                            [0.5; 3],
                            false,
                            |_| [0.0; 3],
                            |_, _, _| draws = true,
                        );
                    }
                    assert_eq!(kept, !judged || draws, "{x:?} {y:?}");
                    dropped += usize::from(!kept);
                    kept_drawing += usize::from(judged && draws);
                }
            }
            assert!(dropped > 1000 && kept_drawing > 500, "{dropped} {kept_drawing}");
        });
    }

    #[test]
    fn small_triangles_are_set_up_as_the_filler_sets_them_up() {
        use crate::render::fill::{PlaneBasis, SmallTriangle, fill_small};
        with_each_isa("SmallFilter", || {
            // Triangles from sub-pixel to ninety pixels across over and around a 37 x 23
            // raster, every seventh vertex not simple, some indices out of range. A lane set up
            // must hold `SmallTriangle::new`'s integers and `PlaneBasis`'s floats bit for bit,
            // and draw `fill_snapped`'s pixels; a lane in neither set must draw nothing; only
            // triangles 64 pixels across or more go to the filler's own set-up.
            let (w, h) = (37, 23);
            let sizes = [0.3, 0.9, 2.0, 3.9, 6.0, 11.0, 15.9, 21.0, 0.6, 2.5, 40.0, 63.0, 90.0];
            let (verts, tris) = scattered_triangles(11, 4000, &sizes, (w, h));
            let filter = SmallFilter::new(&verts, w, h, None).unwrap();
            let mut lanes = SmallLanes::default();
            // The same with smooth shading: `ambient + (1 - ambient) * max(0, +-light)`.
            let ambient = 0.2f32;
            let shading = SmallFilter::new(&verts, w, h, Some(ambient)).unwrap();
            let mut shaded = SmallLanes::default();
            let smooth = |v: &[&ProjVertex; 3], front: bool| {
                v.map(|v| ambient + (1.0 - ambient) * (if front { v.light } else { -v.light }).max(0.0))
            };
            let (mut set_up_drawing, mut left_out, mut judged_drawing, mut long_drawing) = (0, 0, 0, 0);
            let extent =
                |v: [i32; 3]| i64::from(*v.iter().max().unwrap()) - i64::from(*v.iter().min().unwrap());
            // `s` per vertex, depending on the facing as the mesh drawer's shading does.
            let shade = |v: &[&ProjVertex; 3], front: bool| v.map(|v| if front { v.light } else { -v.light });
            for block in tris.chunks_exact(LANES) {
                let (set_up, other) = filter.set_up16(block.try_into().unwrap(), &mut lanes);
                assert_eq!(set_up & other, 0);
                assert_eq!(shading.set_up16(block.try_into().unwrap(), &mut shaded), (set_up, other));
                assert!(lanes.s_plane(0).is_none());
                for (k, t) in block.iter().enumerate() {
                    let Some(v) = t.map(|i| verts.get(i as usize)).into_iter().collect::<Option<Vec<_>>>()
                    else {
                        assert_eq!(other >> k & 1, 1, "{t:?} has an index out of range");
                        continue;
                    };
                    let v = [v[0], v[1], v[2]];
                    let (x, y, z) = (v.map(|v| v.x), v.map(|v| v.y), v.map(|v| v.z));
                    let mut want = Vec::new();
                    // A vertex that is not simple has no position to draw (`NOT_SIMPLE`).
                    if v.iter().all(|v| v.simple()) {
                        fill_snapped(
                            (w, h),
                            &(0..h),
                            x,
                            y,
                            z,
                            false,
                            |front| shade(&v, front),
                            |i, z, s| want.push((i, z.to_bits(), s.to_bits())),
                        );
                    }
                    let widest = extent(x).max(extent(y));
                    if set_up >> k & 1 == 1 {
                        assert!(widest < SET_UP_EXTENT, "{x:?} {y:?}");
                        assert_eq!(lanes.long[k] != 0, widest >= SMALL_EXTENT, "{x:?} {y:?}");
                        let tri = SmallTriangle::new(w, h, x, y).unwrap();
                        assert_eq!(lanes.triangle(k), tri, "{x:?} {y:?}");
                        let (z_plane, basis) = lanes.planes(k);
                        let expected = PlaneBasis::new(x, y, tri.cx, tri.cy);
                        assert_eq!(basis, expected, "{x:?} {y:?}");
                        let bits = |p: (f32, f32, f32)| [p.0.to_bits(), p.1.to_bits(), p.2.to_bits()];
                        assert_eq!(bits(z_plane), bits(expected.plane(z)), "{x:?} {y:?}");
                        let s_plane = shaded.s_plane(k).expect("shaded");
                        assert_eq!(bits(s_plane), bits(expected.plane(smooth(&v, tri.front))), "{x:?} {y:?}");
                        assert_eq!(bits(shaded.planes(k).0), bits(z_plane));
                        let planes = || (z_plane, basis.plane(shade(&v, tri.front)));
                        if widest < SMALL_EXTENT {
                            let mut got = Vec::new();
                            fill_small((w, h), &(0..h), &lanes.triangle(k), planes, |i, z, s| {
                                got.push((i, z.to_bits(), s.to_bits()))
                            });
                            assert_eq!(got, want, "{x:?} {y:?}");
                        }
                        // And through the covered centres, where the lanes know them (a box of
                        // at most 4 x 8 or 8 x 4 centres): the same pixels, values and order.
                        let judged = judged((w, h), x, y);
                        assert_eq!(lanes.covered[k] != 0, judged, "{x:?} {y:?}");
                        let mut through_lanes = Vec::new();
                        lanes.fill(k, (w, h), &(0..h), planes(), |i, z, s| {
                            through_lanes.push((i, z.to_bits(), s.to_bits()))
                        });
                        assert_eq!(through_lanes, want, "{x:?} {y:?}");
                        // A band of rows draws the rows of `want` in it.
                        let band = 5..11;
                        let mut banded = Vec::new();
                        lanes.fill(k, (w, h), &band, planes(), |i, z, s| {
                            banded.push((i, z.to_bits(), s.to_bits()))
                        });
                        let in_band: Vec<_> =
                            want.iter().copied().filter(|&(i, _, _)| band.contains(&(i / w))).collect();
                        assert_eq!(banded, in_band, "{x:?} {y:?}");
                        judged_drawing += usize::from(judged);
                        set_up_drawing += usize::from(!want.is_empty());
                        long_drawing += usize::from(!want.is_empty() && widest >= SMALL_EXTENT);
                    } else if other >> k & 1 == 0 {
                        assert!(v.iter().all(|v| v.simple()) && want.is_empty(), "{x:?} {y:?}");
                        left_out += 1;
                    } else if v.iter().all(|v| v.simple()) {
                        assert!(widest >= SET_UP_EXTENT, "{x:?} {y:?}");
                    }
                }
            }
            assert!(set_up_drawing > 300 && left_out > 300, "{set_up_drawing} {left_out}");
            assert!(judged_drawing > 100 && judged_drawing < set_up_drawing, "{judged_drawing}");
            assert!(long_drawing > 100, "{long_drawing}");
        });
    }
}
