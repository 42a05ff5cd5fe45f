//! The projection's inner loop in 256-bit AVX2, eight vertices per step (x86_64 only; the
//! caller checks the CPU at run time). The render module's `unsafe` is here: the
//! intrinsics need raw-pointer loads and stores, and calling a `#[target_feature]`
//! function needs the feature checked first. It runs a fraction of the portable path's
//! instructions.
//!
//! Per vertex it performs `project::project_one`'s float operations in the same order,
//! without FMA (Rust never contracts a multiply and an add), so both give the same bits:
//! - three unaligned loads of eight `Vec3`s, shuffled into x, y and z across the lanes;
//! - the clip-space position `((m0 x + m1 y) + m2 z) + m3` per row, the finiteness,
//!   `w > 0` and guard-band tests, `to_screen` written out as it is there but for its
//!   scalings by 0.5 and the side, one multiply together with the snap's by 256 (powers of
//!   two apart: the same bits, see `Params::half_sub`);
//! - the snap to 1/256 pixel in f32 (`fixed`, which equals `fill::to_fixed` on every lane
//!   that is kept, see there), and the centre spans in 32-bit integers;
//! - `normalize_or_zero` and the dot product with the light as glam does them;
//! - the results transposed to `ProjVertex`es (`repr(C)`, 16 bytes) and spans.

use std::arch::x86_64::*;

use glam::{Mat4, Vec3};

use super::clip::GUARD;
use super::fill::{SPAN_ANY, SPAN_MAX_SIDE, SUB};
use super::project::{NOT_SIMPLE, ProjVertex, State};
use crate::isa::{Isa, compiled_for_isa};

/// Everything a block reads besides the vertices, splatted once per call.
pub(super) struct Params {
    /// The matrix by rows: `m[row][col]`.
    pub m: [[f32; 4]; 4],
    pub light: [f32; 3],
    /// Every component of `light` within +-1e37, so that its dot product with a vector of
    /// components below 2 is finite.
    pub light_bounded: bool,
    /// The sides as `fill::centre_span` clamps them.
    pub span_sides: [i32; 2],
    /// `width * 0.5 * SUB` and `height * 0.5 * SUB`: `to_screen` multiplies by 0.5, then
    /// by the side, and `fixed` by `SUB`. Scaling by a power of two is exact (here, far
    /// from overflow and underflow), so one multiply by this rounds to the same bits as
    /// the three.
    pub half_sub: [f32; 2],
}

impl Params {
    pub(super) fn new(view_proj: Mat4, light_dir: Vec3, width: usize, height: usize) -> Params {
        let cols = view_proj.to_cols_array_2d();
        Params {
            m: std::array::from_fn(|r| std::array::from_fn(|c| cols[c][r])),
            light: light_dir.to_array(),
            light_bounded: light_dir.is_finite() && light_dir.abs().max_element() <= 1e37,
            span_sides: [width, height].map(|s| s.min(SPAN_MAX_SIDE) as i32),
            half_sub: [width, height].map(|s| s as f32 * (SUB / 2) as f32),
        }
    }
}

/// Projects whole blocks of 8 vertices of `ps` (with the normals `ns` when given) into
/// `verts`, and their spans into `spans` when `SPANS`, and returns how many vertices were
/// done: the rest is left to the caller, and so is everything when the CPU lacks AVX2.
/// `ps`, `verts`, `ns` when given and `spans` when `SPANS` must be equally long.
pub(super) fn project<const SPANS: bool>(
    params: &Params,
    ps: &[Vec3],
    ns: Option<&[Vec3]>,
    verts: &mut [ProjVertex],
    spans: &mut [[i16; 4]],
) -> usize {
    let Some(isa) = Isa::best() else {
        return 0;
    };
    let mut n = ps.len().min(verts.len());
    if let Some(ns) = ns {
        n = n.min(ns.len());
    }
    if SPANS {
        n = n.min(spans.len());
    }
    let blocks = n / 8;
    let args = Args {
        ps: ps.as_ptr().cast(),
        ns: ns.map(|ns| ns.as_ptr().cast()),
        verts: verts.as_mut_ptr(),
        spans: spans.as_mut_ptr().cast(),
    };
    // With AVX-512, sixteen at a time first (pairs of blocks), then the last eight if any.
    let pairs = if isa == Isa::Avx512 { blocks / 2 } else { 0 };
    // SAFETY: the CPU has `isa`, and the sixteen-lane kernel is entered only with AVX-512.
    // Block b reads the 24 floats of vertices 8b..8b+8 of `ps` and `ns` (`Vec3` is
    // `repr(C)`, three f32) and writes those vertices of `verts` and, when `SPANS`, of
    // `spans` (`[i16; 4]`, 8 bytes): all inside the slices, which hold at least
    // `n >= 8 * blocks` vertices (see above).
    unsafe {
        if pairs > 0 {
            super::project_avx512::kernel::<SPANS>(params, &args, pairs);
        }
        kernel_for::<SPANS>(isa, params, &args.from(16 * pairs), blocks - 2 * pairs);
    };
    blocks * 8
}

/// Where a kernel reads and writes: vertex 0 of each.
pub(super) struct Args {
    pub ps: *const f32,
    pub ns: Option<*const f32>,
    pub verts: *mut ProjVertex,
    pub spans: *mut __m256i,
}

impl Args {
    /// The same from vertex `k` on.
    ///
    /// SAFETY (caller): every slice holds at least `k` vertices.
    unsafe fn from(&self, k: usize) -> Args {
        // SAFETY: the caller's (`spans` is 8 bytes a vertex, `ps` and `ns` 12).
        unsafe {
            Args {
                ps: self.ps.add(3 * k),
                ns: self.ns.map(|ns| ns.add(3 * k)),
                verts: self.verts.add(k),
                spans: self.spans.cast::<[i16; 4]>().add(k).cast(),
            }
        }
    }
}

/// `_MM_SHUFFLE(d, c, b, a)`.
const fn shuffle(d: i32, c: i32, b: i32, a: i32) -> i32 {
    (d << 6) | (c << 4) | (b << 2) | a
}

/// The x, y and z of the eight `Vec3`s at `p` (24 floats), one vertex per lane.
///
/// SAFETY (caller): AVX2 present; `p .. p + 24` readable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load_xyz(p: *const f32) -> [__m256; 3] {
    // SAFETY: in bounds (caller).
    let quad = |k: usize| unsafe { _mm_loadu_ps(p.add(4 * k)) };
    // Each 128-bit half holds two vertices' x y z x | y z x y | z x y z, the low half
    // vertices 0..4, the high half vertices 4..8.
    let m03 = _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(quad(0)), quad(3));
    let m14 = _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(quad(1)), quad(4));
    let m25 = _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(quad(2)), quad(5));
    let xy = _mm256_shuffle_ps::<{ shuffle(2, 1, 3, 2) }>(m14, m25); // x2 y2 x3 y3
    let yz = _mm256_shuffle_ps::<{ shuffle(1, 0, 2, 1) }>(m03, m14); // y0 z0 y1 z1
    let x = _mm256_shuffle_ps::<{ shuffle(2, 0, 3, 0) }>(m03, xy);
    let y = _mm256_shuffle_ps::<{ shuffle(3, 1, 2, 0) }>(yz, xy);
    let z = _mm256_shuffle_ps::<{ shuffle(3, 0, 3, 1) }>(yz, m25);
    [x, y, z]
}

#[target_feature(enable = "avx2")]
#[inline]
fn splat(v: f32) -> __m256 {
    _mm256_set1_ps(v)
}

/// All-ones lanes where `v` is finite.
#[target_feature(enable = "avx2")]
#[inline]
fn finite(v: __m256) -> __m256 {
    let abs = _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX)));
    _mm256_cmp_ps::<_CMP_LT_OQ>(abs, splat(f32::INFINITY))
}

/// `fill::to_fixed` of every lane that is within the guard band (other lanes give some
/// value). `to_fixed` is `trunc(((v * 256 + 0.5) + 2^40)` in f64 `) - 2^40`: with
/// `x = v * 256` (exact in f32 and f64), `x + 0.5` is exact in f64 and adding 2^40 rounds
/// it to a multiple of 2^-12 (2^-13 when `x + 0.5 < 0`), ties to even, before the
/// truncation. So it is `floor(x) + 1` exactly when the fraction `x - floor(x)` (exact in
/// f32) is at least `0.5 - 2^-13` (`0.5 - 2^-14`), else `floor(x)`: halves round up, and
/// so do fractions within one rounding step below them.
#[target_feature(enable = "avx2")]
#[inline]
#[cfg(test)]
fn fixed(v: __m256) -> __m256i {
    snap(_mm256_mul_ps(v, splat(SUB as f32)))
}

/// `fixed` of `x / SUB`: the kernels scale by `SUB` together with the raster's half side,
/// a power of two apart, so the product rounds to the same bits (see `Params::half_sub`).
#[target_feature(enable = "avx2")]
#[inline]
fn snap(x: __m256) -> __m256i {
    let floor = _mm256_floor_ps(x);
    let frac = _mm256_sub_ps(x, floor);
    let at_least = _mm256_blendv_ps(
        splat(0.5 - 1.0 / 16384.0),
        splat(0.5 - 1.0 / 8192.0),
        _mm256_cmp_ps::<_CMP_GE_OQ>(x, splat(-0.5)),
    );
    let up = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_GE_OQ>(frac, at_least));
    // `floor` is an integer within i32 on the lanes that matter; `up` is -1 or 0.
    _mm256_sub_epi32(_mm256_cvttps_epi32(floor), up)
}

/// `fill::centre_span`'s first and negated last centre along one axis of `side` pixels,
/// for eight snapped coordinates.
#[target_feature(enable = "avx2")]
#[inline]
fn centre_spans(side: i32, v: __m256i) -> [__m256i; 2] {
    const HALF: i32 = (SUB / 2) as i32;
    let first = _mm256_srai_epi32::<8>(_mm256_add_epi32(v, _mm256_set1_epi32(SUB as i32 - 1 - HALF)));
    let first = _mm256_min_epi32(_mm256_max_epi32(first, _mm256_setzero_si256()), _mm256_set1_epi32(side));
    let last = _mm256_srai_epi32::<8>(_mm256_sub_epi32(v, _mm256_set1_epi32(HALF)));
    let neg_last = _mm256_sub_epi32(_mm256_setzero_si256(), last);
    let neg_last =
        _mm256_min_epi32(_mm256_max_epi32(neg_last, _mm256_set1_epi32(1 - side)), _mm256_set1_epi32(1));
    [first, neg_last]
}

compiled_for_isa! {
    /// `kernel` compiled for `isa`.
    unsafe fn kernel_for<const SPANS: bool>(params: &Params, a: &Args, blocks: usize) => kernel
}

/// The loop, compiled by `kernel_for` for each instruction set (see `Isa`).
///
/// SAFETY (caller): AVX2 present; `a` valid for `8 * blocks` vertices (the spans only
/// when `SPANS`).
#[inline(always)]
unsafe fn kernel<const SPANS: bool>(params: &Params, a: &Args, blocks: usize) {
    // SAFETY: every operation below is an AVX2 intrinsic or helper, present (caller); the
    // memory accesses are covered by their own comments.
    unsafe {
        // Arrays built by hand: a closure given to `map` runs inside the standard library's
        // code, which is not compiled for AVX2 (see `Isa`).
        let rows = |r: [f32; 4]| [splat(r[0]), splat(r[1]), splat(r[2]), splat(r[3])];
        let m = [rows(params.m[0]), rows(params.m[1]), rows(params.m[2]), rows(params.m[3])];
        let light = [splat(params.light[0]), splat(params.light[1]), splat(params.light[2])];
        let (half_width, half_height) = (splat(params.half_sub[0]), splat(params.half_sub[1]));
        let one = splat(1.0);
        let span_any = _mm256_set1_epi32(i32::from(SPAN_ANY[0]));
        for b in 0..blocks {
            // SAFETY: 24 floats from vertex 8b, inside `ps` (caller).
            let [x, y, z] = load_xyz(a.ps.add(24 * b));
            let row = |r: &[__m256; 4]| {
                let xy = _mm256_add_ps(_mm256_mul_ps(r[0], x), _mm256_mul_ps(r[1], y));
                _mm256_add_ps(_mm256_add_ps(xy, _mm256_mul_ps(r[2], z)), r[3])
            };
            let [cx, cy, cz, cw] = [row(&m[0]), row(&m[1]), row(&m[2]), row(&m[3])];
            let g = _mm256_mul_ps(splat(GUARD), cw);
            let abs = |v: __m256| _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(i32::MAX)));
            let inside = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_LE_OQ>(abs(cx), g),
                _mm256_cmp_ps::<_CMP_LE_OQ>(abs(cy), g),
            );
            let in_front = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_GT_OQ>(cw, _mm256_setzero_ps()),
                _mm256_cmp_ps::<_CMP_GE_OQ>(cw, cz),
            );
            // Every coordinate is tested for finiteness: `GUARD * w` overflows to infinity
            // for a finite but huge `w`, and an infinite x or y is then "inside" the band.
            let all_finite =
                _mm256_and_ps(_mm256_and_ps(finite(cx), finite(cy)), _mm256_and_ps(finite(cz), finite(cw)));
            let simple = _mm256_and_ps(all_finite, _mm256_and_ps(in_front, inside));
            let simple_i = _mm256_castps_si256(simple);
            // `to_screen` and `fixed`, on every lane; only the simple ones are kept.
            let inv_w = _mm256_div_ps(one, cw);
            let sx = _mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(cx, inv_w), one), half_width);
            let sy = _mm256_mul_ps(_mm256_sub_ps(one, _mm256_mul_ps(cy, inv_w)), half_height);
            let sz = _mm256_and_ps(_mm256_mul_ps(cz, inv_w), simple);
            let (fx, fy) = (snap(sx), snap(sy));
            let lit = match a.ns {
                Some(ns) => {
                    // SAFETY: as for the positions (caller).
                    let [nx, ny, nz] = load_xyz(ns.add(24 * b));
                    let len2 = _mm256_add_ps(
                        _mm256_add_ps(_mm256_mul_ps(nx, nx), _mm256_mul_ps(ny, ny)),
                        _mm256_mul_ps(nz, nz),
                    );
                    let rcp = _mm256_div_ps(one, _mm256_sqrt_ps(len2));
                    // `normalize_or_zero` keeps a reciprocal length that is finite and
                    // positive: exactly where 0 < len2 < inf (the square root of the
                    // smallest subnormal is 3.7e-23), known before the square root.
                    let ok = _mm256_and_ps(
                        _mm256_cmp_ps::<_CMP_GT_OQ>(len2, _mm256_setzero_ps()),
                        _mm256_cmp_ps::<_CMP_LT_OQ>(len2, splat(f32::INFINITY)),
                    );
                    let unit = |c: __m256| _mm256_and_ps(_mm256_mul_ps(c, rcp), ok);
                    let l = _mm256_add_ps(
                        _mm256_add_ps(_mm256_mul_ps(unit(nx), light[0]), _mm256_mul_ps(unit(ny), light[1])),
                        _mm256_mul_ps(unit(nz), light[2]),
                    );
                    // A unit vector's components are below 2 (even with a subnormal
                    // length), so with a bounded light the dot product is finite: tested
                    // only otherwise.
                    if params.light_bounded { l } else { _mm256_and_ps(l, finite(l)) }
                }
                None => _mm256_setzero_ps(),
            };
            // Not simple: the state in x (Invalid, less one if finite: masks are -1), and
            // `NOT_SIMPLE` in y. Rare: worked out only for blocks that have such a vertex.
            let state = if _mm256_movemask_ps(simple) == 0xff {
                _mm256_setzero_si256()
            } else {
                let is_finite = _mm256_and_ps(
                    _mm256_and_ps(finite(cx), finite(cy)),
                    _mm256_and_ps(finite(cz), finite(cw)),
                );
                _mm256_add_epi32(_mm256_set1_epi32(State::Invalid as i32), _mm256_castps_si256(is_finite))
            };
            let vx = _mm256_blendv_epi8(state, fx, simple_i);
            let vy = _mm256_blendv_epi8(_mm256_set1_epi32(NOT_SIMPLE), fy, simple_i);
            // SAFETY: vertices 8b..8b+8 are inside `verts` (caller).
            store_verts(a.verts.add(8 * b), [_mm256_castsi256_ps(vx), _mm256_castsi256_ps(vy)], sz, lit);
            if SPANS {
                let keep = |v: __m256i| _mm256_blendv_epi8(span_any, v, simple_i);
                let [x0, x1] = centre_spans(params.span_sides[0], fx);
                let [y0, y1] = centre_spans(params.span_sides[1], fy);
                let [x0, x1, y0, y1] = [keep(x0), keep(x1), keep(y0), keep(y1)];
                // Per 128-bit half (vertices 0..4 | 4..8): x0 of 4, y0 of 4 and x1, y1.
                let (firsts, lasts) = (_mm256_packs_epi32(x0, y0), _mm256_packs_epi32(x1, y1));
                let (xs, ys) = (_mm256_unpacklo_epi16(firsts, lasts), _mm256_unpackhi_epi16(firsts, lasts));
                // Whole spans of vertices 0, 1 | 4, 5 and 2, 3 | 6, 7.
                let (s01, s23) = (_mm256_unpacklo_epi32(xs, ys), _mm256_unpackhi_epi32(xs, ys));
                // SAFETY: the 64 bytes of spans 8b..8b+8 are inside `spans` (caller).
                _mm256_storeu_si256(a.spans.add(2 * b), _mm256_permute2x128_si256::<0x20>(s01, s23));
                _mm256_storeu_si256(a.spans.add(2 * b + 1), _mm256_permute2x128_si256::<0x31>(s01, s23));
            }
        }
    }
}

/// Writes eight `ProjVertex`es from their fields across the lanes, two vertices per
/// 32-byte store.
///
/// SAFETY (caller): AVX2 present; `out .. out + 8` writable.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store_verts(out: *mut ProjVertex, [x, y]: [__m256; 2], z: __m256, l: __m256) {
    const _: () =
        assert!(std::mem::size_of::<ProjVertex>() == 16 && std::mem::align_of::<ProjVertex>() == 16);
    let pd = |v: __m256| _mm256_castps_pd(v);
    let (xy01, xy23) = (pd(_mm256_unpacklo_ps(x, y)), pd(_mm256_unpackhi_ps(x, y)));
    let (zl01, zl23) = (pd(_mm256_unpacklo_ps(z, l)), pd(_mm256_unpackhi_ps(z, l)));
    // Vertices (0 | 4), (1 | 5), (2 | 6), (3 | 7).
    let ps = |v: __m256d| _mm256_castpd_ps(v);
    let v = [
        ps(_mm256_unpacklo_pd(xy01, zl01)),
        ps(_mm256_unpackhi_pd(xy01, zl01)),
        ps(_mm256_unpacklo_pd(xy23, zl23)),
        ps(_mm256_unpackhi_pd(xy23, zl23)),
    ];
    let out = out.cast::<__m256>();
    // SAFETY: `ProjVertex` is `repr(C)`, x, y, z, light (4 bytes each) and 16-byte
    // aligned, so each pair of vertices is one 32-byte store, all inside
    // `out .. out + 8` (caller).
    unsafe {
        _mm256_storeu_ps(out.cast(), _mm256_permute2f128_ps::<0x20>(v[0], v[1]));
        _mm256_storeu_ps(out.add(1).cast(), _mm256_permute2f128_ps::<0x20>(v[2], v[3]));
        _mm256_storeu_ps(out.add(2).cast(), _mm256_permute2f128_ps::<0x31>(v[0], v[1]));
        _mm256_storeu_ps(out.add(3).cast(), _mm256_permute2f128_ps::<0x31>(v[2], v[3]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::fill::to_fixed;

    /// `fixed` and `to_fixed` of each value, as i32.
    fn both(vs: &[f32]) -> Vec<(f32, i32, i32)> {
        let mut out = Vec::new();
        for chunk in vs.chunks(8) {
            let mut lanes = [0.0f32; 8];
            lanes[..chunk.len()].copy_from_slice(chunk);
            let mut got = [0i32; 8];
            // SAFETY: AVX2 is present (the caller checked); local arrays of eight lanes.
            unsafe {
                let v = _mm256_loadu_ps(lanes.as_ptr());
                _mm256_storeu_si256(got.as_mut_ptr().cast(), fixed(v));
            }
            for (k, &v) in chunk.iter().enumerate() {
                out.push((v, got[k], to_fixed(v) as i32));
            }
        }
        out
    }

    #[test]
    fn fixed_snaps_as_to_fixed_does() {
        if !is_x86_feature_detected!("avx2") {
            return;
        }
        // The guard band keeps simple screen coordinates within 33 * 16384 / 2 pixels.
        let limit = 2.7e5f32;
        let mut vs = Vec::new();
        // Around every threshold where `to_fixed` steps (halves, and 2^-13 and 2^-14 below
        // them, where the f64 sum rounds up), a few ulps either side, at every scale: tiny
        // fractions near zero, and integers of every size up to the limit.
        let mut bases: Vec<f32> = (-2100..2100).map(|k| k as f32).collect();
        bases.extend((0..=27).flat_map(|e| {
            let p = (1u32 << e) as f32;
            [p, p - 1.0, p + 1.0, -p, -p - 1.0, -p + 1.0]
        }));
        for base in bases {
            for frac in
                [0.5, 0.5 - 1.0 / 8192.0, 0.5 - 1.0 / 16384.0, 0.5 - 3.0 / 32768.0, 0.0, 1e-9, 0.999_999]
            {
                let x = base + frac;
                for ulps in -4i32..=4 {
                    let v = f32::from_bits((x.to_bits() as i32).wrapping_add(ulps) as u32) / 256.0;
                    if v.abs() <= limit {
                        vs.push(v);
                    }
                }
            }
        }
        // Every bit pattern of a few binades around one pixel, and random ones below the limit.
        vs.extend((0..1u32 << 20).map(|k| f32::from_bits(0x3b80_0000 + k * 3)));
        vs.extend((0..1u32 << 20).map(|k| -f32::from_bits(0x3b80_0000 + k * 3)));
        let mut seed = 5u64;
        while vs.len() < 4_000_000 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let v = f32::from_bits((seed >> 32) as u32);
            if v.abs() <= limit {
                vs.push(v);
            }
        }
        vs.extend([0.0, -0.0, f32::MIN_POSITIVE, -f32::MIN_POSITIVE, 1e-40, -1e-40, limit, -limit]);
        let wrong: Vec<_> = both(&vs).into_iter().filter(|(_, got, want)| got != want).take(10).collect();
        assert!(wrong.is_empty(), "{wrong:?}");
    }

    #[test]
    fn eight_vec3s_load_as_lanes() {
        if !is_x86_feature_detected!("avx2") {
            return;
        }
        let floats: Vec<f32> = (0..24).map(|k| k as f32).collect();
        let mut lanes = [[0.0f32; 8]; 3];
        // SAFETY: AVX2 is present; 24 floats to read, arrays of eight to write.
        unsafe {
            for (lane, v) in lanes.iter_mut().zip(load_xyz(floats.as_ptr())) {
                _mm256_storeu_ps(lane.as_mut_ptr(), v);
            }
        }
        for (c, lane) in lanes.iter().enumerate() {
            assert_eq!(*lane, std::array::from_fn(|j| (3 * j + c) as f32));
        }
    }
}
