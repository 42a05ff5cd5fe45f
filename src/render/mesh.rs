//! Drawing a whole mesh primitive (and its bind-pose ghost) through the camera: per-vertex
//! projection once, then every triangle, segment or point of the topology, clipped where
//! needed and rasterised. It owns the drawing policy: shading, two-sided lighting,
//! wireframe with hidden-line removal, and what counts as an unusable primitive.
//!
//! Both sides of every triangle are drawn by default. Skinned meshes from real files are
//! often open (capes, hair cards), mirrored with flipped winding, or have inconsistent
//! winding; culling would hide real geometry, and a diagnostic viewer must not. Lighting is
//! two-sided as in OpenGL: a triangle seen from its back is lit with its normals negated,
//! so the inside of an open mesh is lit like the outside, while a vertex normal that
//! disagrees with its triangle's winding shows up dark (a real data problem worth seeing).
//! `MeshStyle::cull_backfaces` is there for closed, well-wound meshes.

use std::ops::Range;

use glam::Vec3;
use rayon::prelude::*;

use super::camera::Camera;
use super::canvas::Canvas;
use super::clip::{CLIP_PLANES, ClipVertex, MAX_VERTICES, NEAR, Polygon, clip_segment};
use super::color::Rgb;
use super::fill::{SPAN_MAX_SIDE, SUB_BITS, Triangle, box_has_centre};
use super::filter::{BIN_PARTS, Bin, Candidate, Projected, for_each_candidate};
use super::line;
use super::project::{ProjVertex, Projection, Scratch, State, project_all, to_screen};
use super::raster::{Paint, Raster};
use super::topology::{for_each_point, for_each_segment, for_each_triangle, is_lines, is_triangles};
use crate::rig::Topology;

/// The vertex data of one primitive, borrowed (typically from `anim`'s skinned output).
#[derive(Debug, Clone, Copy)]
pub struct MeshView<'a> {
    /// World-space positions.
    pub positions: &'a [Vec3],
    /// World-space normals, one per position (otherwise ignored: flat shading is used).
    pub normals: Option<&'a [Vec3]>,
    /// Vertex indices; `None` draws the vertices in order. Out-of-range indices skip the
    /// primitive they belong to.
    pub indices: Option<&'a [u32]>,
    pub topology: Topology,
    /// One scalar per position for `Coloring::Heat` (0..1 along the ramp).
    pub scalars: Option<&'a [f32]>,
}

impl<'a> MeshView<'a> {
    pub fn new(positions: &'a [Vec3], topology: Topology) -> MeshView<'a> {
        MeshView { positions, normals: None, indices: None, topology, scalars: None }
    }

    pub fn with_normals(mut self, normals: &'a [Vec3]) -> Self {
        self.normals = Some(normals);
        self
    }

    pub fn with_indices(mut self, indices: &'a [u32]) -> Self {
        self.indices = Some(indices);
        self
    }

    pub fn with_scalars(mut self, scalars: &'a [f32]) -> Self {
        self.scalars = Some(scalars);
        self
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DrawMode {
    /// Filled, depth-tested triangles (line and point topologies draw as lines and points).
    #[default]
    Shaded,
    /// Triangle edges.
    Wireframe,
    /// Vertices only.
    Points,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shading {
    /// One light value per triangle from its geometric normal.
    Flat,
    /// Per-vertex light from the vertex normals, interpolated (Gouraud). Falls back to
    /// flat when the mesh has no usable normals.
    #[default]
    Smooth,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Coloring {
    /// One colour, lit by the head-light when shaded.
    Solid(Rgb),
    /// Each vertex's scalar through the heatmap ramp, unlit so that the colour reads as the
    /// value (shading would turn yellow into olive). Needs `MeshView::scalars`; without
    /// one scalar per vertex the mesh is drawn as `Solid(DEFAULT_MESH_COLOR)`.
    Heat,
}

pub const DEFAULT_MESH_COLOR: Rgb = Rgb::new(200, 200, 200);
pub const DEFAULT_GHOST_COLOR: Rgb = Rgb::new(90, 90, 110);

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshStyle {
    pub mode: DrawMode,
    pub shading: Shading,
    pub coloring: Coloring,
    /// Light that reaches surfaces facing away from the head-light (0..1).
    pub ambient: f32,
    /// Skip triangles seen from their back (see the module comment for why it is off).
    pub cull_backfaces: bool,
    /// In `Wireframe` and `Points` modes, hide edges and vertices behind the mesh's own
    /// surfaces (the triangles are rasterised into depth only, first).
    pub hidden_lines: bool,
}

impl Default for MeshStyle {
    fn default() -> Self {
        MeshStyle {
            mode: DrawMode::Shaded,
            shading: Shading::Smooth,
            coloring: Coloring::Solid(DEFAULT_MESH_COLOR),
            ambient: 0.2,
            cull_backfaces: false,
            hidden_lines: true,
        }
    }
}

/// What a draw call went through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DrawStats {
    /// Triangles, segments or points of the topology (drawn or not).
    pub primitives: usize,
    /// Of those, how many were skipped as unusable: an index out of range or a
    /// non-finite vertex. Off-screen, culled or degenerate ones are not counted.
    pub skipped: usize,
}

/// How each vertex's scalar `s` is obtained and turned into the value the paint reads.
#[derive(Clone, Copy)]
enum Shader<'a> {
    /// `s` = ambient + (1 - ambient) * max(0, +-light), the sign chosen by facing.
    Smooth { ambient: f32 },
    /// One value per triangle from its world-space geometric normal.
    Flat { ambient: f32, light: Vec3 },
    /// The vertex's own scalar (heatmap).
    Scalar(&'a [f32]),
    /// A fixed value (unlit lines and points).
    Constant(f32),
}

impl Shader<'_> {
    /// The per-vertex values to interpolate (and clip), and the flat light value.
    #[inline]
    fn raw(self, mesh: &MeshView, light: [f32; 3], ix: [usize; 3]) -> ([f32; 3], f32) {
        match self {
            Shader::Smooth { .. } => (light, 0.0),
            Shader::Flat { ambient, light: dir } => {
                let p = ix.map(|i| mesh.positions.get(i).copied().unwrap_or(Vec3::ZERO));
                let n = (p[1] - p[0]).cross(p[2] - p[0]);
                let cos = n.dot(dir) / n.length();
                let cos = if cos.is_finite() { cos.abs() } else { 0.0 };
                ([0.0; 3], ambient + (1.0 - ambient) * cos)
            }
            Shader::Scalar(s) => (ix.map(|i| s.get(i).copied().unwrap_or(0.0)), 0.0),
            Shader::Constant(k) => ([k; 3], 0.0),
        }
    }

    /// Turn an interpolated raw value into `s` once the facing is known.
    #[inline]
    fn finish(self, raw: f32, flat: f32, front: bool) -> f32 {
        match self {
            Shader::Smooth { ambient } => {
                let cos = if front { raw } else { -raw };
                ambient + (1.0 - ambient) * cos.max(0.0)
            }
            Shader::Flat { .. } => flat,
            Shader::Scalar(_) | Shader::Constant(_) => raw,
        }
    }
}

/// Draw one primitive of a mesh into the raster. See the module comment for the policy.
pub fn draw_mesh(raster: &mut Raster, camera: &Camera, mesh: &MeshView, style: &MeshStyle) -> DrawStats {
    draw_mesh_by(raster, camera, mesh, style, true)
}

/// `draw_mesh`; `use_spans: false` walks every triangle instead of filtering a triangle list
/// by its vertices' centre spans (the reference the tests hold the filtered paths to).
pub(super) fn draw_mesh_by(
    raster: &mut Raster,
    camera: &Camera,
    mesh: &MeshView,
    style: &MeshStyle,
    use_spans: bool,
) -> DrawStats {
    let vp = camera.view_proj(raster.aspect());
    let light = camera.back();
    let n = mesh.positions.len();
    let heat = match (style.coloring, mesh.scalars) {
        (Coloring::Heat, Some(s)) if s.len() == n => Some(s),
        _ => None,
    };
    let paint = match (heat, style.coloring) {
        (Some(_), _) => Paint::Heat,
        (None, Coloring::Solid(c)) => Paint::Lit(c),
        (None, Coloring::Heat) => Paint::Lit(DEFAULT_MESH_COLOR),
    }
    .painter();
    let usable_normals = mesh.normals.filter(|v| v.len() == n);
    let lit_shader = match (style.shading, usable_normals) {
        (Shading::Smooth, Some(_)) => Shader::Smooth { ambient: style.ambient },
        _ => Shader::Flat { ambient: style.ambient, light },
    };
    let flat_shader = heat.map_or(Shader::Constant(1.0), Shader::Scalar);
    let smooth = matches!(lit_shader, Shader::Smooth { .. });

    let Raster { width, height, pixels, touched, scratch, pool_woken, .. } = raster;
    let (w, h) = (*width, *height);
    let normals =
        if smooth && heat.is_none() && style.mode == DrawMode::Shaded { usable_normals } else { None };
    let cull = style.cull_backfaces;

    let triangles = is_triangles(mesh.topology);
    let fills = triangles && (style.mode == DrawMode::Shaded || style.hidden_lines);
    let corners = mesh.indices.map_or(n, <[u32]>::len);
    let big = corners >= PARALLEL_MIN_CORNERS;
    let split = big && h >= 2 && rayon::current_num_threads() > 1;
    *pool_woken |= split;
    // Plain triangle lists (nearly every real mesh) are filtered by their vertices' centre
    // spans, for two bands once (`bin_parts`). Other topologies are walked whole.
    let listed = use_spans
        && fills
        && mesh.topology == Topology::Triangles
        && u32::try_from(n).is_ok()
        && w.max(h) <= SPAN_MAX_SIDE;
    // The spans are worked out during the projection, and only when they will be read.
    let projection = Projection { view_proj: vp, light_dir: light, width: w, height: h };
    project_all(projection, mesh.positions, normals, listed, scratch);
    let cut = if listed && split && scratch.cut.0 == h { scratch.cut.1 } else { h / 2 };
    let source = match (listed, split) {
        (true, true) => {
            let Scratch { verts, spans, bins, cut: next, .. } = scratch;
            bin_parts(mesh, Projected { verts, spans, width: w, height: h }, cut, bins, next);
            Source::Binned
        }
        (true, false) => Source::Listed,
        (false, _) => Source::Walk,
    };
    let verts: &Scratch = scratch;
    let mut canvas = Canvas::new(pixels, touched);
    let ctx = |shader| FillCtx { mesh, sc: verts, w, h, shader, cull };

    if triangles && style.hidden_lines && style.mode != DrawMode::Shaded {
        // Depth only, so that the edges and points drawn next hide behind the mesh's own
        // surfaces.
        let k = Shader::Constant(0.0);
        banded(canvas.reborrow(), (w, h), split.then_some(cut), |b, rows, mut band| {
            fill_band(ctx(k), source, b, rows, |i, z, _| band.depth_only(i, z))
        });
    }
    let unlit = |i: usize, z: f32, s: f32| canvas.edge(i, z, true, || paint.color(s));
    match style.mode {
        DrawMode::Shaded if triangles => {
            let shader = if heat.is_some() { flat_shader } else { lit_shader };
            banded(canvas.reborrow(), (w, h), split.then_some(cut), |b, rows, mut band| {
                fill_band(ctx(shader), source, b, rows, |i, z, s| band.surface(i, z, || paint.color(s)))
            })
        }
        DrawMode::Wireframe if triangles => triangle_edges(mesh, verts, w, h, flat_shader, unlit),
        DrawMode::Shaded | DrawMode::Wireframe if is_lines(mesh.topology) => {
            segments(mesh, verts, w, h, flat_shader, unlit)
        }
        _ => points(mesh, verts, w, h, flat_shader, unlit),
    }
}

/// Draw the edges (or segments, or points) of a mesh in one dim colour, depth-tested
/// against what is already drawn but writing no depth, so that it never hides anything
/// drawn after it. Meant for the bind pose behind the animated mesh: draw it after the
/// mesh so that the mesh occludes it.
pub fn draw_ghost(raster: &mut Raster, camera: &Camera, mesh: &MeshView, c: Rgb) -> DrawStats {
    let vp = camera.view_proj(raster.aspect());
    let Raster { width, height, pixels, touched, scratch, .. } = raster;
    let (w, h) = (*width, *height);
    let projection = Projection { view_proj: vp, light_dir: Vec3::ZERO, width: w, height: h };
    project_all(projection, mesh.positions, None, false, scratch);
    let verts: &Scratch = scratch;
    let mut canvas = Canvas::new(pixels, touched);
    let pixel = |i: usize, z: f32, _: f32| canvas.edge(i, z, false, || c);
    let k = Shader::Constant(1.0);
    if is_triangles(mesh.topology) {
        triangle_edges(mesh, verts, w, h, k, pixel)
    } else if is_lines(mesh.topology) {
        segments(mesh, verts, w, h, k, pixel)
    } else {
        points(mesh, verts, w, h, k, pixel)
    }
}

/// The vertices of a primitive if all exist and are finite.
#[inline]
fn fetch<const N: usize>(verts: &[ProjVertex], ix: [usize; N]) -> Option<[ProjVertex; N]> {
    let mut out = [ProjVertex::default(); N];
    for (o, &i) in out.iter_mut().zip(&ix) {
        let v = verts.get(i)?;
        if v.state() == State::Invalid {
            return None;
        }
        *o = *v;
    }
    Some(out)
}

/// Meshes with at least this many triangle corners (about 22k triangles) are filled in
/// two bands of rows on rayon's pool; below it the hand-off costs more than it saves.
const PARALLEL_MIN_CORNERS: usize = 65_536;

/// Run `fill(band, rows, the canvas of those rows)` over the whole raster: with a `split`
/// row (a big mesh, two threads, two rows or more) as two bands of rows on two threads,
/// else as band 0.
/// Each band sees its triangles in draw order and a pixel belongs to exactly one band, so
/// the result is the one-thread result exactly. The statistics do not depend on the band.
fn banded(
    canvas: Canvas,
    (w, h): (usize, usize),
    split: Option<usize>,
    fill: impl Fn(usize, Range<usize>, Canvas) -> DrawStats + Sync,
) -> DrawStats {
    match split {
        Some(cut) => {
            let (top_px, bottom_px) = canvas.split_at(cut * w);
            let fill = &fill;
            rayon::join(|| fill(0, 0..cut, top_px), || fill(1, cut..h, bottom_px)).0
        }
        None => fill(0, 0..h, canvas),
    }
}

/// A candidate's cost beyond its pixels, in pixels, for balancing the bands' work: the
/// set-up and shading (a rough figure; the cut only decides how the two threads share).
const CANDIDATE_COST: u64 = 10;

/// Where a band's triangles come from.
#[derive(Clone, Copy)]
enum Source {
    /// Every triangle of the topology, each tested against the band.
    Walk,
    /// The triangle list through the span filter (`filter::for_each_candidate`).
    Listed,
    /// The band's lists from `bin_parts`.
    Binned,
}

/// Filter the triangle list of a split fill, in `BIN_PARTS` parts on the pool's threads,
/// into `bins[part].lists[band]`: in draw order, the candidates that may draw into the
/// band's rows (`0..cut`, `cut..height`), and every one that is unusable or needs
/// clipping. `next` gets a cut closer to one that splits the candidates evenly: a
/// character's upper half holds most of them.
fn bin_parts(
    mesh: &MeshView,
    projected: Projected,
    cut: usize,
    bins: &mut [Bin; BIN_PARTS],
    next: &mut (usize, usize),
) {
    let primitives = mesh.indices.map_or(projected.verts.len(), <[u32]>::len) / 3;
    let (w, h) = (projected.width, projected.height);
    // Each band's work, estimated per candidate as a fixed cost plus the pixels it covers
    // (known for a judged triangle, else half its box).
    let bin = |range: Range<usize>, lists: &mut [Vec<Candidate>; 2], masks: &mut Vec<u32>| {
        lists.iter_mut().for_each(Vec::clear);
        masks.clear();
        let mut work = [0u64; 2];
        for_each_candidate(mesh.indices, range, projected, masks, |t, masks| {
            if t.judged() {
                // Judged: the rows of the centres it covers, first and last, decide.
                let (first, last, covered) = t.extent(masks);
                let cost = CANDIDATE_COST + u64::from(covered);
                for ((list, work), draws) in lists.iter_mut().zip(&mut work).zip([first < cut, last >= cut]) {
                    if draws {
                        list.push(t);
                        *work += cost;
                    }
                }
                return;
            }
            let v = t.tri.map(|i| projected.verts.get(i as usize).filter(|v| v.simple()));
            let pixels = match v {
                [Some(a), Some(b), Some(c)] => {
                    let side = |p: [i32; 3]| {
                        u64::from(
                            (p[0].max(p[1]).max(p[2]) - p[0].min(p[1]).min(p[2])).unsigned_abs() >> SUB_BITS,
                        ) + 1
                    };
                    side([a.x, b.x, c.x]) * side([a.y, b.y, c.y]) / 2
                }
                _ => 0,
            };
            for ((list, rows), work) in lists.iter_mut().zip([0..cut, cut..h]).zip(&mut work) {
                match v {
                    [Some(a), Some(b), Some(c)]
                        if !box_has_centre(w, &rows, [a.x, b.x, c.x], [a.y, b.y, c.y]) => {}
                    _ => {
                        list.push(t);
                        *work += CANDIDATE_COST + pixels;
                    }
                }
            }
        });
        work
    };
    bins.par_iter_mut().enumerate().for_each(|(k, part)| {
        let range = primitives * k / BIN_PARTS..primitives * (k + 1) / BIN_PARTS;
        part.work = bin(range, &mut part.lists, &mut part.masks);
    });
    // Where the work would split evenly were each band's spread evenly over its rows; it is
    // not, and the cut goes halfway there so as not to overshoot.
    let n = [0, 1].map(|band| bins.iter().map(|part| part.work[band]).sum::<u64>() as f64);
    let even = (n[0] + n[1]) / 2.0;
    let at = match n {
        _ if even == 0.0 => cut as f64,
        [n0, _] if n0 >= even => cut as f64 * even / n0,
        [n0, n1] => cut as f64 + (h - cut) as f64 * (even - n0) / n1,
    };
    *next = (h, (((cut as f64 + at) / 2.0).round() as usize).clamp(1, h - 1));
}

/// Fill the triangles of `cx.mesh` from `source` over the raster rows `rows` of `band`.
/// Every source passes on every triangle that may hold a pixel centre of the band, and
/// band 0 every unusable one, so all draw and count the same.
fn fill_band(
    cx: FillCtx,
    source: Source,
    band: usize,
    rows: Range<usize>,
    mut pixel: impl FnMut(usize, f32, f32),
) -> DrawStats {
    let FillCtx { mesh, sc, w, h, .. } = cx;
    let (mut primitives, mut skipped) = (mesh.indices.map_or(sc.verts.len(), <[u32]>::len) / 3, 0);
    // What the filter judged comes set up; the rest is filled from its vertices.
    let mut candidate = |t: &Candidate, masks: &[u32]| match t.judged() {
        true => fill_known(cx, &rows, t, masks, &mut pixel),
        false => skipped += usize::from(!fill_one(cx, &rows, t.tri.map(|i| i as usize), &mut pixel)),
    };
    match source {
        Source::Binned => {
            sc.bins.iter().for_each(|part| part.lists[band].iter().for_each(|t| candidate(t, &part.masks)))
        }
        Source::Listed => {
            let projected = Projected { verts: &sc.verts, spans: &sc.spans, width: w, height: h };
            let mut masks = Vec::new();
            for_each_candidate(mesh.indices, 0..primitives, projected, &mut masks, |t, masks| {
                candidate(&t, masks)
            });
        }
        Source::Walk => {
            primitives = 0;
            for_each_triangle(mesh.topology, mesh.indices, sc.verts.len(), |ix| {
                primitives += 1;
                skipped += usize::from(!fill_one(cx, &rows, ix, &mut pixel));
            });
        }
    }
    DrawStats { primitives, skipped }
}

/// The per-vertex values of `s` for a triangle of vertices `ix`, whose `light`s are
/// given, seen from its front or its back.
#[inline(always)]
fn shade(cx: FillCtx, light: [f32; 3], ix: [usize; 3], front: bool) -> [f32; 3] {
    let (raw, flat) = cx.shader.raw(cx.mesh, light, ix);
    raw.map(|r| cx.shader.finish(r, flat, front))
}

/// What one band's triangle loop reads.
#[derive(Clone, Copy)]
struct FillCtx<'a, 'm> {
    mesh: &'a MeshView<'m>,
    sc: &'a Scratch,
    w: usize,
    h: usize,
    shader: Shader<'m>,
    cull: bool,
}

/// Fill the triangle the filter judged and set up over the rows `rows`, its row masks (if
/// kept as such) in `masks`. Its vertices are in range and simple, and their light values
/// come with it.
#[inline(always)]
fn fill_known(
    cx: FillCtx,
    rows: &Range<usize>,
    t: &Candidate,
    masks: &[u32],
    pixel: &mut impl FnMut(usize, f32, f32),
) {
    let front = t.set_up.front;
    if !front && cx.cull {
        return;
    }
    let ix = t.tri.map(|i| i as usize);
    let s = || shade(cx, t.light, ix, front);
    match t.set_up.rows {
        0 => t.set_up.scan(t.covered, cx.w, rows, s, pixel),
        _ => t.set_up.scan_rows(t.kept_rows(masks), cx.w, rows, s, pixel),
    }
}

/// Fill triangle `ix` over the rows `rows`; false, drawing nothing, when it is unusable (a
/// vertex out of range or not finite).
#[inline(always)]
fn fill_one(
    cx: FillCtx,
    rows: &Range<usize>,
    ix: [usize; 3],
    pixel: &mut impl FnMut(usize, f32, f32),
) -> bool {
    let verts = &cx.sc.verts;
    let (Some(v0), Some(v1), Some(v2)) = (verts.get(ix[0]), verts.get(ix[1]), verts.get(ix[2])) else {
        return false;
    };
    if v0.simple() && v1.simple() && v2.simple() {
        // Most triangles of a dense mesh have no pixel centre in their box: rejected before
        // any set-up or shading.
        if box_has_centre(cx.w, rows, [v0.x, v1.x, v2.x], [v0.y, v1.y, v2.y]) {
            fill_simple(cx, rows, ix, [v0, v1, v2], pixel);
        }
    } else if [v0, v1, v2].iter().any(|v| v.state() == State::Invalid) {
        return false;
    } else {
        fill_clipped(cx, rows, ix, [v0, v1, v2], pixel);
    }
    true
}

/// A triangle of simple vertices whose box holds a pixel centre of the band.
#[inline(never)]
fn fill_simple(
    cx: FillCtx,
    rows: &Range<usize>,
    ix: [usize; 3],
    [v0, v1, v2]: [&ProjVertex; 3],
    pixel: &mut impl FnMut(usize, f32, f32),
) {
    let (x, y) = ([v0.x, v1.x, v2.x].map(i64::from), [v0.y, v1.y, v2.y].map(i64::from));
    let Some(tri) = Triangle::snapped_in(cx.w, cx.h, rows.clone(), x, y, [v0.z, v1.z, v2.z]) else {
        return;
    };
    let front = tri.front_facing();
    if front || !cx.cull {
        // Shaded only once a pixel is known to be covered.
        tri.scan_box(|| shade(cx, [v0.light, v1.light, v2.light], ix, front), pixel);
    }
}

/// A triangle with a vertex behind the near plane or outside the guard band (all finite):
/// clipped in clip space, then drawn as a fan.
#[inline(never)]
fn fill_clipped(
    cx: FillCtx,
    rows: &Range<usize>,
    ix: [usize; 3],
    [v0, v1, v2]: [&ProjVertex; 3],
    pixel: &mut impl FnMut(usize, f32, f32),
) {
    let FillCtx { mesh, sc, w, h, shader, cull } = cx;
    let (raw, flat) = shader.raw(mesh, [v0.light, v1.light, v2.light], ix);
    let cv = |k: usize| ClipVertex { p: sc.clip_pos(mesh.positions, ix[k]), s: raw[k] };
    let mut poly = Polygon::triangle(cv(0), cv(1), cv(2));
    poly.clip(&CLIP_PLANES);
    let n = poly.n.min(MAX_VERTICES);
    if n < 3 {
        return;
    }
    let mut pts = [Vec3::ZERO; MAX_VERTICES];
    for (p, c) in pts.iter_mut().zip(poly.vertices()) {
        *p = to_screen(c.p, w, h);
    }
    // Twice the signed area (shoelace); negative is counter-clockwise as seen.
    let mut area2 = 0.0;
    for k in 0..n {
        let (a, b) = (pts[k], pts[(k + 1) % n]);
        area2 += a.x * b.y - b.x * a.y;
    }
    let front = area2 < 0.0;
    if cull && !front {
        return;
    }
    let s: [f32; MAX_VERTICES] = std::array::from_fn(|k| shader.finish(poly.v[k].s, flat, front));
    for k in 1..n - 1 {
        if let Some(tri) = Triangle::new_in(w, h, rows.clone(), [pts[0], pts[k], pts[k + 1]]) {
            tri.scan([s[0], s[k], s[k + 1]], &mut *pixel);
        }
    }
}

/// The scalar of vertex `i` for unlit lines and points.
#[inline]
fn unlit(shader: Shader, i: usize) -> f32 {
    match shader {
        Shader::Scalar(s) => s.get(i).copied().unwrap_or(0.0),
        Shader::Constant(k) => k,
        Shader::Smooth { .. } | Shader::Flat { .. } => 1.0,
    }
}

/// One segment between projected vertices: direct when both are simple, else cut at the
/// near plane first (the screen rectangle is `line::scan`'s job).
fn segment(
    sc: &Scratch,
    positions: &[Vec3],
    ix: [usize; 2],
    s: [f32; 2],
    w: usize,
    h: usize,
    pixel: &mut impl FnMut(usize, f32, f32),
) {
    let Some([a, b]) = fetch(&sc.verts, ix) else {
        return;
    };
    if a.simple() && b.simple() {
        line::scan(w, h, a.screen(), b.screen(), s, pixel);
        return;
    }
    let ca = ClipVertex { p: sc.clip_pos(positions, ix[0]), s: s[0] };
    let cb = ClipVertex { p: sc.clip_pos(positions, ix[1]), s: s[1] };
    if let Some((ca, cb)) = clip_segment(ca, cb, &[NEAR]) {
        let (pa, pb) = (to_screen(ca.p, w, h), to_screen(cb.p, w, h));
        line::scan(w, h, pa, pb, [ca.s, cb.s], pixel);
    }
}

fn triangle_edges(
    mesh: &MeshView,
    sc: &Scratch,
    w: usize,
    h: usize,
    shader: Shader,
    mut pixel: impl FnMut(usize, f32, f32),
) -> DrawStats {
    let mut stats = DrawStats::default();
    for_each_triangle(mesh.topology, mesh.indices, sc.verts.len(), |ix| {
        if stats.usable(sc, ix) {
            for (a, b) in [(0, 1), (1, 2), (2, 0)] {
                let s = [unlit(shader, ix[a]), unlit(shader, ix[b])];
                segment(sc, mesh.positions, [ix[a], ix[b]], s, w, h, &mut pixel);
            }
        }
    });
    stats
}

fn segments(
    mesh: &MeshView,
    sc: &Scratch,
    w: usize,
    h: usize,
    shader: Shader,
    mut pixel: impl FnMut(usize, f32, f32),
) -> DrawStats {
    let mut stats = DrawStats::default();
    for_each_segment(mesh.topology, mesh.indices, sc.verts.len(), |ix| {
        if stats.usable(sc, ix) {
            let s = [unlit(shader, ix[0]), unlit(shader, ix[1])];
            segment(sc, mesh.positions, ix, s, w, h, &mut pixel);
        }
    });
    stats
}

impl DrawStats {
    /// Counts one primitive of the topology; false (and counted as skipped) when one of its
    /// vertices is out of range or not finite.
    fn usable<const N: usize>(&mut self, sc: &Scratch, ix: [usize; N]) -> bool {
        self.primitives += 1;
        let ok = fetch(&sc.verts, ix).is_some();
        if !ok {
            self.skipped += 1;
        }
        ok
    }
}

fn points(
    mesh: &MeshView,
    sc: &Scratch,
    w: usize,
    h: usize,
    shader: Shader,
    mut pixel: impl FnMut(usize, f32, f32),
) -> DrawStats {
    let mut stats = DrawStats::default();
    for_each_point(mesh.indices, sc.verts.len(), |i| {
        stats.primitives += 1;
        let Some([v]) = fetch(&sc.verts, [i]) else {
            stats.skipped += 1;
            return;
        };
        // Not simple: behind the near plane or far outside the view. Either way unseen.
        if !v.simple() {
            return;
        }
        let p = v.screen();
        if p.x >= 0.0 && p.y >= 0.0 && p.x < w as f32 && p.y < h as f32 {
            let (x, y) = ((p.x as usize).min(w - 1), (p.y as usize).min(h - 1));
            pixel(y * w + x, p.z, unlit(shader, i));
        }
    });
    stats
}

#[cfg(test)]
#[path = "mesh_tests.rs"]
mod tests;
