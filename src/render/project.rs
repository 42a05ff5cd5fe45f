//! Per-vertex work for a mesh, done once per vertex rather than once per triangle corner:
//! world -> clip space, the guard-band test, the viewport transform and snapping to the
//! filler's fixed-point grid, the head-light term, and for filtered triangle lists the
//! centre spans (see `filter`). Output goes into scratch buffers the raster keeps between
//! frames.
//!
//! Blocks of eight vertices go through `Wide`, written against `crate::lanes`, and the last
//! few through `project_one`; both give the same bits, which the tests check on every
//! backend.

use glam::{Mat4, Vec3, Vec4};

use super::clip::GUARD;
use super::fill::{SPAN_ANY, SPAN_MAX_SIDE, SUB, SUB_BITS, centre_span, to_fixed};
use super::filter::{BIN_PARTS, Bin};
pub(super) use super::vertex::{NOT_SIMPLE, ProjVertex, State};
use crate::lanes::{self, F32x8, I32x8, Isa, Kernel, WIDTH};

/// Buffers reused across draws.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scratch {
    pub verts: Vec<ProjVertex>,
    /// Each vertex's `fill::centre_span` (`SPAN_ANY` unless simple) when the mesh is
    /// filtered (see `filter`), then one more `SPAN_ANY`; else empty. Done here, while the
    /// vertex is in registers, rather than in a second pass over the vertices.
    pub spans: Vec<[i16; 4]>,
    /// The transform the vertices were projected with: clipped primitives (rare) redo
    /// their vertices' clip-space positions with it (`clip_pos`) rather than every vertex
    /// storing one.
    pub view_proj: Mat4,
    /// A split fill's candidates: per part of the triangle list, per band (see `mesh`).
    pub bins: [Bin; BIN_PARTS],
    /// (raster height, row) where the next binned fill's second band starts.
    pub cut: (usize, usize),
}

impl Scratch {
    /// The clip-space position of `positions[i]`, exactly as the projection computed it.
    #[inline]
    pub fn clip_pos(&self, positions: &[Vec3], i: usize) -> Vec4 {
        positions.get(i).map_or(Vec4::ZERO, |&p| self.view_proj * p.extend(1.0))
    }
}

/// Meshes with at least this many vertices are projected on every thread of the rayon
/// pool (persistent threads); below it one thread is faster than the hand-off.
const PARALLEL_MIN_VERTICES: usize = 16_384;
/// Vertices per task; a multiple of `lanes::WIDTH`.
const CHUNK: usize = 4096;

/// What a mesh is projected with: the camera's matrix, the unit direction towards the
/// light, and the viewport's size in pixels.
#[derive(Debug, Clone, Copy)]
pub(super) struct Projection {
    pub view_proj: Mat4,
    pub light_dir: Vec3,
    pub width: usize,
    pub height: usize,
}

/// Project `positions` with `projection`; `normals` is used only when it has one entry per
/// position. `with_spans` also fills `out.spans` (a side of at most
/// `fill::SPAN_MAX_SIDE`), else empties it.
pub(super) fn project_all(
    projection: Projection,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    with_spans: bool,
    out: &mut Scratch,
) {
    let Projection { view_proj, light_dir, width, height } = projection;
    let n = positions.len();
    // Every entry is overwritten below: no need to clear them first.
    out.verts.resize(n, ProjVertex::default());
    // One span per vertex, then `SPAN_ANY` for the filter's out-of-range indices (set
    // again: a bigger mesh drawn before left one of its spans there).
    out.spans.resize(if with_spans { n + 1 } else { 0 }, SPAN_ANY);
    if let Some(after) = out.spans.last_mut() {
        *after = SPAN_ANY;
    }
    out.view_proj = view_proj;
    let normals = normals.filter(|v| v.len() == n);
    let wide = Wide::new(view_proj, light_dir, width, height);
    // `spans` is empty or as long as `verts`.
    let run = |start: usize, verts: &mut [ProjVertex], spans: &mut [[i16; 4]]| {
        let end = start + verts.len();
        let ps = positions.get(start..end).unwrap_or_default();
        let ns = normals.and_then(|ns| ns.get(start..end));
        let wide = &wide;
        if spans.is_empty() {
            lanes::run(Chunk::<false> { wide, ps, ns, verts, spans });
        } else {
            lanes::run(Chunk::<true> { wide, ps, ns, verts, spans });
        }
    };
    let Scratch { verts, spans, .. } = out;
    let spans = spans.get_mut(..n).unwrap_or_default();
    if n >= PARALLEL_MIN_VERTICES && rayon::current_num_threads() > 1 {
        use rayon::prelude::*;
        if with_spans {
            let chunks = verts.par_chunks_mut(CHUNK).zip(spans.par_chunks_mut(CHUNK));
            chunks.enumerate().for_each(|(k, (v, s))| run(k * CHUNK, v, s));
        } else {
            verts.par_chunks_mut(CHUNK).enumerate().for_each(|(k, v)| run(k * CHUNK, v, &mut []));
        }
    } else {
        // Last chunk first. The raster then reads the vertices about in index order (an
        // exporter, or a vertex-fetch optimiser, numbers them in order of first use), and
        // the first ones are the freshest in the cache: a mesh bigger than the cache
        // starts on vertices still there.
        for start in (0..n).step_by(CHUNK).rev() {
            let end = (start + CHUNK).min(n);
            let spans = spans.get_mut(start..end).unwrap_or_default();
            run(start, &mut verts[start..end], spans);
        }
    }
}

/// A vertex's centre span for the filter, or one that passes every test when the vertex
/// is not simple.
#[inline(always)]
fn span_of(v: &ProjVertex, width: usize, height: usize) -> [i16; 4] {
    if v.simple() { centre_span(width, height, v.x, v.y) } else { SPAN_ANY }
}

/// One vertex: the reference for `Wide::project`, and the path for a mesh's last few
/// vertices.
#[inline(always)]
fn project_one(
    view_proj: Mat4,
    p: Vec3,
    normal: Option<Vec3>,
    light_dir: Vec3,
    width: usize,
    height: usize,
) -> ProjVertex {
    let clip = view_proj * p.extend(1.0);
    let mut v = ProjVertex::default();
    if clip.is_finite() {
        v = ProjVertex::not_simple(State::Clip, 0.0);
        // `inside_all(clip, &CLIP_PLANES)` written out: this runs once per vertex. A vertex
        // at the eye (w = 0, so x = y = 0 inside the band) has no screen position: it is
        // clipped.
        let g = GUARD * clip.w;
        if clip.w > 0.0 && clip.w >= clip.z && clip.x.abs() <= g && clip.y.abs() <= g {
            let s = to_screen(clip, width, height);
            // The guard band keeps |s.x|, |s.y| within the filler's limit for any
            // raster up to MAX_SIDE, so the snapped values fit in i32.
            v = ProjVertex { x: to_fixed(s.x) as i32, y: to_fixed(s.y) as i32, z: s.z, light: 0.0 };
        }
    }
    if let Some(n) = normal {
        let l = n.normalize_or_zero().dot(light_dir);
        v.light = if l.is_finite() { l } else { 0.0 };
    }
    v
}

/// `project_one` for eight vertices at a time, one per lane (`crate::lanes`). Every lane
/// does the one-vertex path's operations in its order, so the results are bit for bit the
/// same: `Mat4 * Vec4` is `((c0 x + c1 y) + c2 z) + c3` per row, and `to_screen`,
/// `normalize_or_zero` and `dot` are written out below as glam and `to_screen` do them.
struct Wide {
    view_proj: Mat4,
    light_dir: Vec3,
    /// The matrix by rows: `m[row][col]`.
    m: [[f32; 4]; 4],
    width: f32,
    height: f32,
    sides: (usize, usize),
}

/// `Wide::project_range` as a `lanes::Kernel`.
struct Chunk<'a, const SPANS: bool> {
    wide: &'a Wide,
    ps: &'a [Vec3],
    ns: Option<&'a [Vec3]>,
    verts: &'a mut [ProjVertex],
    spans: &'a mut [[i16; 4]],
}

impl<const SPANS: bool> Kernel for Chunk<'_, SPANS> {
    type Output = ();
    #[inline(always)]
    fn run<S: Isa>(self) {
        self.wide.project_range::<S, SPANS>(self.ps, self.ns, self.verts, self.spans);
    }
}

impl Wide {
    fn new(view_proj: Mat4, light_dir: Vec3, width: usize, height: usize) -> Wide {
        let cols = view_proj.to_cols_array_2d();
        Wide {
            view_proj,
            light_dir,
            sides: (width, height),
            m: std::array::from_fn(|r| std::array::from_fn(|c| cols[c][r])),
            width: width as f32,
            height: height as f32,
        }
    }

    /// Project `ps` (and `ns` when there are normals) into `verts`, and their spans into
    /// `spans` when `SPANS`; all of the same length.
    #[inline(always)]
    fn project_range<S: Isa, const SPANS: bool>(
        &self,
        ps: &[Vec3],
        ns: Option<&[Vec3]>,
        verts: &mut [ProjVertex],
        spans: &mut [[i16; 4]],
    ) {
        let (w, h) = self.sides;
        let done = verts.len() / WIDTH * WIDTH;
        // Whole blocks as arrays; without spans the kernel writes into a scratch block.
        let (blocks, _) = verts.as_chunks_mut::<WIDTH>();
        let (span_blocks, _) = spans.as_chunks_mut::<WIDTH>();
        let (p_blocks, _) = ps.as_chunks::<WIDTH>();
        let n_blocks = ns.map(|ns| ns.as_chunks::<WIDTH>().0);
        let mut no_spans = [SPAN_ANY; WIDTH];
        for (k, v) in blocks.iter_mut().enumerate() {
            let s = match span_blocks.get_mut(k) {
                Some(s) if SPANS => s,
                _ => &mut no_spans,
            };
            self.project::<S, SPANS>(&p_blocks[k], n_blocks.map(|ns| &ns[k]), v, s);
        }
        for (i, v) in verts.iter_mut().enumerate().skip(done) {
            *v = project_one(self.view_proj, ps[i], ns.map(|ns| ns[i]), self.light_dir, w, h);
            if SPANS {
                spans[i] = span_of(v, w, h);
            }
        }
    }

    /// Eight vertices into `verts`, and their spans into `spans` when `SPANS`.
    #[inline(always)]
    fn project<S: Isa, const SPANS: bool>(
        &self,
        p: &[Vec3; WIDTH],
        normals: Option<&[Vec3; WIDTH]>,
        verts: &mut [ProjVertex; WIDTH],
        spans: &mut [[i16; 4]; WIDTH],
    ) {
        let splat = F32x8::<S>::splat;
        let [x, y, z] = F32x8::vec3s(p);
        let m = &self.m;
        let (cx, cy, cz, cw) =
            (row(&m[0], x, y, z), row(&m[1], x, y, z), row(&m[2], x, y, z), row(&m[3], x, y, z));
        let finite = cx.finite() & cy.finite() & cz.finite() & cw.finite();
        let g = splat(GUARD) * cw;
        let simple = finite & cw.gt(F32x8::ZERO) & cw.ge(cz) & cx.abs().le(g) & cy.abs().le(g);
        // `to_screen`, lane by lane (lanes that are not simple are computed and dropped).
        let one = splat(1.0);
        let inv_w = one / cw;
        let sx = (cx * inv_w + one) * splat(0.5) * splat(self.width);
        let sy = (one - cy * inv_w) * splat(0.5) * splat(self.height);
        let sz = cz * inv_w;
        let light = match normals {
            Some(n) => {
                let [nx, ny, nz] = F32x8::vec3s(n);
                // `normalize_or_zero`: the reciprocal length, or the zero vector.
                let rcp = one / (nx * nx + ny * ny + nz * nz).sqrt();
                let ok = rcp.finite() & rcp.gt(F32x8::ZERO);
                let (ux, uy, uz) = (
                    ok.select_f32(nx * rcp, F32x8::ZERO),
                    ok.select_f32(ny * rcp, F32x8::ZERO),
                    ok.select_f32(nz * rcp, F32x8::ZERO),
                );
                let Vec3 { x: lx, y: ly, z: lz } = self.light_dir;
                let l = ux * splat(lx) + uy * splat(ly) + uz * splat(lz);
                l.finite().select_f32(l, F32x8::ZERO)
            }
            None => F32x8::ZERO,
        };
        // Snapped for every lane and kept for the simple ones: no branch per lane.
        let (fx, fy) = (snap(sx), snap(sy));
        let state = finite.select(I32x8::splat(State::Clip as i32), I32x8::splat(State::Invalid as i32));
        let x = simple.select(fx, state);
        let y = simple.select(fy, I32x8::splat(NOT_SIMPLE));
        let z = simple.select_f32(sz, F32x8::ZERO);
        let records = I32x8::records([x, y, z.to_bits(), light.to_bits()]);
        for (v, r) in verts.iter_mut().zip(&records) {
            let float = |w: i32| f32::from_bits(w as u32);
            *v = ProjVertex { x: r[0], y: r[1], z: float(r[2]), light: float(r[3]) };
        }
        if SPANS {
            let (w, h) = self.sides;
            let (x, y) = (centre_spans(w, fx, simple), centre_spans(h, fy, simple));
            *spans = I32x8::short_records([x[0], x[1], y[0], y[1]]);
        }
    }
}

/// `fill::to_fixed` of every lane within the guard band, as `i32` (other lanes give some
/// value), in f32. `to_fixed` is `trunc((x + 0.5) + 2^40) - 2^40` in f64 for `x = v * SUB`
/// (exact in either): `x + 0.5` is exact in f64 and adding 2^40 rounds it to a multiple of
/// 2^-12 (2^-13 when `x + 0.5 < 0`), ties to even, before the truncation. So it is
/// `floor(x) + 1` exactly when the fraction `x - floor(x)` (exact in f32) is at least
/// `0.5 - 2^-13` (`0.5 - 2^-14`), else `floor(x)`.
#[inline(always)]
fn snap<S: Isa>(v: F32x8<S>) -> I32x8<S> {
    let x = v * F32x8::splat(SUB as f32);
    let floor = x.floor();
    let at_least = x
        .ge(F32x8::splat(-0.5))
        .select_f32(F32x8::splat(0.5 - 1.0 / 8192.0), F32x8::splat(0.5 - 1.0 / 16384.0));
    // `floor` is an integer within i32 on the lanes that matter; `up` is -1 or 0.
    floor.to_i32() - (x - floor).ge(at_least)
}

/// `fill::centre_span` along one axis of `side` pixels, for eight snapped coordinates:
/// the first and the negated last centre, `SPAN_ANY`'s value where `keep` is not set.
#[inline(always)]
fn centre_spans<S: Isa>(side: usize, v: I32x8<S>, keep: I32x8<S>) -> [I32x8<S>; 2] {
    const HALF: i32 = (SUB / 2) as i32;
    let hi = I32x8::splat(side.min(SPAN_MAX_SIDE) as i32);
    let half = v - I32x8::splat(HALF);
    let first = (half + I32x8::splat(SUB as i32 - 1)).shr::<SUB_BITS>().max(I32x8::ZERO).min(hi);
    let neg_last = (-half.shr::<SUB_BITS>()).max(I32x8::splat(1) - hi).min(I32x8::splat(1));
    let any = I32x8::splat(i32::from(SPAN_ANY[0]));
    [keep.select(first, any), keep.select(neg_last, any)]
}

/// Row `m` of a matrix times `(x, y, z, 1)`, in glam's order.
#[inline(always)]
fn row<S: Isa>(m: &[f32; 4], x: F32x8<S>, y: F32x8<S>, z: F32x8<S>) -> F32x8<S> {
    F32x8::splat(m[0]) * x + F32x8::splat(m[1]) * y + F32x8::splat(m[2]) * z + F32x8::splat(m[3])
}

/// Clip space -> screen space for a vertex known to be in front of the near plane.
#[inline]
pub(super) fn to_screen(clip: Vec4, width: usize, height: usize) -> Vec3 {
    let inv_w = 1.0 / clip.w;
    Vec3::new(
        (clip.x * inv_w + 1.0) * 0.5 * width as f32,
        (1.0 - clip.y * inv_w) * 0.5 * height as f32,
        clip.z * inv_w,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::camera::Camera;

    #[test]
    fn target_lands_mid_raster_and_states_are_right() {
        let cam = Camera::default();
        let vp = cam.view_proj(2.0);
        let pts = [
            Vec3::ZERO,
            Vec3::new(0.0, 0.0, 5.0), // behind the eye
            Vec3::new(f32::NAN, 0.0, 0.0),
            Vec3::new(1e6, 0.0, 0.0), // far outside the guard band
        ];
        let normals = [Vec3::Z * 2.0, Vec3::Z, Vec3::Z, Vec3::ZERO];
        let mut out = Scratch::default();
        let projection = Projection { view_proj: vp, light_dir: cam.back(), width: 40, height: 20 };
        project_all(projection, &pts, Some(&normals), false, &mut out);
        let v = out.verts[0];
        // Centre (20, 10) in 1/256 pixel.
        assert_eq!((v.x, v.y), (20 * 256, 10 * 256));
        // Reversed depth at the target: near / distance = 0.01 / 3.
        assert!((v.z - 0.01 / 3.0).abs() < 1e-7);
        // The normal faces the eye (light = back vector = +Z): full light despite length 2.
        assert!((v.light - 1.0).abs() < 1e-6);
        assert_eq!(v.state(), State::Simple);
        assert_eq!(out.verts[1].state(), State::Clip);
        assert_eq!(out.verts[2].state(), State::Invalid);
        assert_eq!(out.verts[3].state(), State::Clip);
        assert_eq!(out.verts[3].light, 0.0);
        let clip: Vec<Vec4> = pts.iter().map(|p| vp * p.extend(1.0)).collect();
        assert!(v.screen().abs_diff_eq(to_screen(clip[0], 40, 20), 1e-5));
        assert_eq!(std::mem::size_of::<ProjVertex>(), 16);
        // The written-out guard test agrees with the planes.
        use crate::render::clip::{CLIP_PLANES, inside_all};
        for (v, c) in out.verts.iter().zip(&clip) {
            if v.state() != State::Invalid {
                assert_eq!(v.state() == State::Simple, inside_all(*c, &CLIP_PLANES));
            }
        }
    }

    #[test]
    fn big_meshes_split_over_threads_give_the_per_vertex_result() {
        let cam = Camera::default();
        let vp = cam.view_proj(2.0);
        let n = PARALLEL_MIN_VERTICES + CHUNK + 3;
        let pts: Vec<Vec3> = (0..n)
            .map(|i| Vec3::new((i % 97) as f32 * 0.03 - 1.5, (i % 89) as f32 * 0.02 - 0.9, 0.1))
            .collect();
        let normals: Vec<Vec3> = pts.iter().map(|p| Vec3::new(p.y, 1.0, 0.5)).collect();
        let mut out = Scratch::default();
        let projection = Projection { view_proj: vp, light_dir: cam.back(), width: 120, height: 80 };
        project_all(projection, &pts, Some(&normals), true, &mut out);
        assert_eq!(out.verts.len(), n);
        for i in (0..n).step_by(13).chain([n - 1]) {
            let v = project_one(vp, pts[i], Some(normals[i]), cam.back(), 120, 80);
            assert_eq!(bits(out.verts[i]), bits(v));
            let span = if v.simple() { centre_span(120, 80, v.x, v.y) } else { SPAN_ANY };
            assert_eq!(out.spans[i], span);
        }
        assert_eq!(out.clip_pos(&pts, 5), vp * pts[5].extend(1.0));
        assert_eq!(out.clip_pos(&pts, n), Vec4::ZERO);
        // A smaller mesh after it, in the same scratch: the span after its last vertex is
        // `SPAN_ANY` again (the filter reads it for indices out of range), not the span the
        // bigger mesh left there.
        let small = &pts[..n / 2];
        assert_ne!(out.spans[small.len()], SPAN_ANY, "the test needs a simple vertex there");
        project_all(projection, small, None, true, &mut out);
        assert_eq!(out.spans.len(), small.len() + 1);
        assert_eq!(out.spans[small.len()], SPAN_ANY);
    }

    /// Every field of a projected vertex, floats as bits (so -0.0 and NaN compare too).
    fn bits(v: ProjVertex) -> (i32, i32, u32, u32, State) {
        (v.x, v.y, v.z.to_bits(), v.light.to_bits(), v.state())
    }

    /// A small deterministic generator (64-bit LCG, high bits) in 0..1.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    /// Points and normals of every kind, `count` of each: points around the view, many
    /// behind the eye (z > 3 with the default camera), across the near plane, far outside
    /// the guard band, at the eye itself, and with NaN or infinite coordinates; normals
    /// of every length including zero, tiny (whose reciprocal length overflows), huge and
    /// non-finite.
    fn awkward_points(count: usize) -> (Vec<Vec3>, Vec<Vec3>) {
        let mut rng = Lcg(11);
        let mut pts = Vec::new();
        let mut normals = Vec::new();
        for k in 0..count {
            let mut r = |scale: f32| (rng.next() * 2.0 - 1.0) * scale;
            let p = match k % 8 {
                0 => Vec3::new(r(1.0), r(1.0), 3.0 + r(0.05)),
                1 => Vec3::new(r(1e6), r(1e6), r(1e6)),
                2 => Vec3::new(r(2.0), r(2.0), 2.99 + r(0.02)),
                3 => Vec3::new(0.0, 0.0, 3.0),
                4 => Vec3::new(r(1.0), [f32::NAN, f32::INFINITY, -f32::INFINITY][k % 3], r(1.0)),
                _ => Vec3::new(r(2.0), r(2.0), r(6.0)),
            };
            let n = match k % 7 {
                0 => Vec3::ZERO,
                1 => Vec3::new(r(1e-30), r(1e-30), r(1e-30)),
                2 => Vec3::new(r(1e30), r(1e30), r(1e30)),
                _ => Vec3::new(r(1.0), r(1.0), r(1.0)),
            };
            pts.push(p);
            normals.push(n);
        }
        normals[6].z = f32::NAN;
        normals[9].x = f32::INFINITY;
        (pts, normals)
    }

    /// The lanes compiled for the baseline alone (eight lanes, then one vertex at a time),
    /// on the calling thread.
    fn portable(projection: Projection, pts: &[Vec3], normals: Option<&[Vec3]>, with_spans: bool) -> Scratch {
        let Projection { view_proj, light_dir, width, height } = projection;
        let mut out = Scratch::default();
        out.verts.resize(pts.len(), ProjVertex::default());
        out.spans.resize(if with_spans { pts.len() } else { 0 }, SPAN_ANY);
        let wide = Wide::new(view_proj, light_dir, width, height);
        if with_spans {
            wide.project_range::<lanes::Portable, true>(pts, normals, &mut out.verts, &mut out.spans);
        } else {
            wide.project_range::<lanes::Portable, false>(pts, normals, &mut out.verts, &mut out.spans);
        }
        out
    }

    /// Checks every vertex of `out` (and its span when there are spans) against
    /// `project_one`; counts the states seen.
    fn check_against_one(
        out: &Scratch,
        projection: Projection,
        pts: &[Vec3],
        normals: Option<&[Vec3]>,
        states: &mut [usize; 3],
    ) {
        let Projection { view_proj, light_dir, width, height } = projection;
        assert_eq!(out.verts.len(), pts.len());
        for i in 0..pts.len() {
            let want = project_one(view_proj, pts[i], normals.map(|ns| ns[i]), light_dir, width, height);
            assert_eq!(bits(out.verts[i]), bits(want), "{i}: {:?} {:?}", pts[i], normals.map(|ns| ns[i]));
            let span = if want.simple() { centre_span(width, height, want.x, want.y) } else { SPAN_ANY };
            assert_eq!(out.spans.get(i).copied().unwrap_or(span), span, "{i}");
            states[want.state() as usize] += 1;
        }
    }

    #[test]
    fn every_path_equals_the_one_vertex_path() {
        let cam = Camera::default();
        let (pts, normals) = awkward_points(20_000);
        // Not a multiple of eight or four: the tail goes through the narrower paths.
        let n = pts.len() - 3;
        let mut out = Scratch::default();
        let mut states = [0; 3];
        for (w, h, aspect) in [(400, 240, 2.0), (7, 3, 1.0)] {
            let vp = cam.view_proj(aspect);
            // Lights no camera gives, which make some dot products overflow or NaN.
            let odd = [Vec3::new(3e38, -3e38, 1.0), Vec3::new(f32::NAN, 0.5, 0.5)];
            for light in [cam.back(), Vec3::new(-0.6, 0.0, -0.8), odd[0], odd[1]] {
                for normals in [Some(&normals[..n]), None] {
                    for with_spans in [true, false] {
                        let projection = Projection { view_proj: vp, light_dir: light, width: w, height: h };
                        project_all(projection, &pts[..n], normals, with_spans, &mut out);
                        assert_eq!(out.spans.len(), if with_spans { n + 1 } else { 0 });
                        assert!(out.spans.get(n).is_none_or(|&s| s == SPAN_ANY));
                        check_against_one(&out, projection, &pts[..n], normals, &mut states);
                        let alone = portable(projection, &pts[..n], normals, with_spans);
                        check_against_one(&alone, projection, &pts[..n], normals, &mut states);
                    }
                }
            }
        }
        // Every state is well represented.
        assert!(states.iter().all(|&k| k > 1000), "{states:?}");
    }

    #[test]
    fn every_backend_equals_the_one_vertex_path() {
        // `every_path_equals_the_one_vertex_path` runs the best backend this CPU has; here
        // each of them (on one thread: the choice is forced per thread).
        use crate::lanes::Backend;
        let cam = Camera::default();
        let (pts, normals) = awkward_points(4_000);
        let projection =
            Projection { view_proj: cam.view_proj(2.0), light_dir: cam.back(), width: 400, height: 240 };
        let mut states = [0; 3];
        let mut out = Scratch::default();
        let mut tried = Vec::new();
        for isa in Backend::available() {
            for normals in [Some(&normals[..]), None] {
                isa.forced(|| project_all(projection, &pts, normals, true, &mut out));
                check_against_one(&out, projection, &pts, normals, &mut states);
            }
            tried.push(isa);
        }
        eprintln!("note: projection backends tested: {tried:?}");
        assert!(states.iter().all(|&k| k > 100), "{states:?}");
    }

    #[test]
    fn a_vertex_at_the_eye_is_clipped_on_every_path() {
        // clip = (x, y, -1, z): the origin lands at w = 0 with x = y = 0, inside the guard
        // band's test and in front of the near plane, but it has no screen position.
        let view_proj = Mat4::from_cols(Vec4::X, Vec4::Y, Vec4::W, Vec4::new(0.0, 0.0, -1.0, 0.0));
        let projection = Projection { view_proj, light_dir: Vec3::Z, width: 40, height: 20 };
        let mut pts = vec![Vec3::ZERO; 13];
        pts[5] = Vec3::new(0.1, 0.2, 1.0);
        let want = project_one(view_proj, Vec3::ZERO, None, Vec3::Z, 40, 20);
        assert_eq!(want.state(), State::Clip);
        let mut out = Scratch::default();
        for with_spans in [true, false] {
            project_all(projection, &pts, None, with_spans, &mut out);
            let alone = portable(projection, &pts, None, with_spans);
            for verts in [&out.verts, &alone.verts] {
                let states: Vec<State> = verts.iter().map(ProjVertex::state).collect();
                let mut expected = vec![State::Clip; 13];
                expected[5] = State::Simple;
                assert_eq!(states, expected);
            }
            let mut states = [0; 3];
            check_against_one(&out, projection, &pts, None, &mut states);
            check_against_one(&alone, projection, &pts, None, &mut states);
        }
    }

    /// `pts` through every backend this CPU has, the default path and the portable
    /// one, each held to the one-vertex path; the states seen, counted.
    fn states_on_every_path(projection: Projection, pts: &[Vec3]) -> [usize; 3] {
        let mut states = [0; 3];
        let mut out = Scratch::default();
        for isa in crate::lanes::Backend::available() {
            for with_spans in [true, false] {
                isa.forced(|| project_all(projection, pts, None, with_spans, &mut out));
                check_against_one(&out, projection, pts, None, &mut states);
            }
        }
        for with_spans in [true, false] {
            project_all(projection, pts, None, with_spans, &mut out);
            check_against_one(&out, projection, pts, None, &mut states);
            let alone = portable(projection, pts, None, with_spans);
            check_against_one(&alone, projection, pts, None, &mut states);
        }
        states
    }

    #[test]
    fn an_overflowing_depth_is_invalid_on_every_path() {
        // clip = (x, y, 3e38 z, 1): inside the guard band and in front, but z overflows
        // to an infinity for |z| > 1.2 (the kernels take x and y within the band as
        // finite, so w and z are the ones they must test).
        let view_proj = Mat4::from_cols(Vec4::X, Vec4::Y, Vec4::new(0.0, 0.0, 3e38, 0.0), Vec4::W);
        let projection = Projection { view_proj, light_dir: Vec3::Z, width: 40, height: 20 };
        let pts: Vec<Vec3> =
            (0..37).map(|k| Vec3::new(0.01 * k as f32, -0.3, [-2.0, -0.5, 0.0, 2.0][k % 4])).collect();
        let states = states_on_every_path(projection, &pts);
        // -2 overflows to -inf (in front of w = 1 still), 2 to +inf (behind it).
        assert!(states[State::Simple as usize] > 0 && states[State::Invalid as usize] > 0, "{states:?}");
    }

    #[test]
    fn an_infinite_x_under_an_overflowing_guard_band_is_invalid_on_every_path() {
        // clip = (3e38 x, y, 0, 3e38 z): for z = 1, w is finite but `GUARD * w` overflows to
        // infinity, so an x that overflows (|x| > 1.2) passes the band test unless it is
        // tested for finiteness itself. Vertices near 1e38 in a file come out like this.
        let view_proj = Mat4::from_cols(
            Vec4::new(3e38, 0.0, 0.0, 0.0),
            Vec4::Y,
            Vec4::new(0.0, 0.0, 0.0, 3e38),
            Vec4::ZERO,
        );
        let projection = Projection { view_proj, light_dir: Vec3::Z, width: 40, height: 20 };
        let pts: Vec<Vec3> = (0..37).map(|k| Vec3::new([-2.0, 0.5, 2.0][k % 3], 0.1, 1.0)).collect();
        let states = states_on_every_path(projection, &pts);
        assert_eq!(project_one(view_proj, pts[0], None, Vec3::Z, 40, 20).state(), State::Invalid);
        assert!(states[State::Simple as usize] > 0 && states[State::Invalid as usize] > 0, "{states:?}");
    }

    #[test]
    fn every_length_and_start_equals_the_one_vertex_path() {
        // Every remainder after the eight-lane blocks, from every start.
        let cam = Camera::default();
        let (pts, normals) = awkward_points(64);
        let vp = cam.view_proj(1.5);
        let projection = Projection { view_proj: vp, light_dir: cam.back(), width: 90, height: 50 };
        let mut out = Scratch::default();
        let mut states = [0; 3];
        for start in 0..9 {
            for len in 0..=40 {
                let (ps, ns) = (&pts[start..start + len], &normals[start..start + len]);
                for (ns, with_spans) in [(Some(ns), true), (None, false), (Some(ns), false)] {
                    project_all(projection, ps, ns, with_spans, &mut out);
                    check_against_one(&out, projection, ps, ns, &mut states);
                    let alone = portable(projection, ps, ns, with_spans);
                    check_against_one(&alone, projection, ps, ns, &mut states);
                }
            }
        }
        assert!(states.iter().all(|&k| k > 1000), "{states:?}");
    }
}
