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

use glam::Vec3;

use super::camera::Camera;
use super::clip::{CLIP_PLANES, ClipVertex, MAX_VERTICES, NEAR, Polygon, clip_segment};
use super::color::Rgb;
use super::fill::Triangle;
use super::line;
use super::project::{ProjVertex, project_all, to_screen};
use super::raster::{Layer, Paint, Raster, edge, surface};
use super::topology::{
    for_each_point, for_each_segment, for_each_triangle, is_lines, is_triangles,
};
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
        MeshView {
            positions,
            normals: None,
            indices: None,
            topology,
            scalars: None,
        }
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

/// Draw one primitive of a mesh into the raster. See the module comment for the policy.
pub fn draw_mesh(
    raster: &mut Raster,
    camera: &Camera,
    mesh: &MeshView,
    style: &MeshStyle,
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
    };
    let usable_normals = mesh.normals.filter(|v| v.len() == n);
    let lit_shader = match (style.shading, usable_normals) {
        (Shading::Smooth, Some(_)) => Shader::Smooth {
            ambient: style.ambient,
        },
        _ => Shader::Flat {
            ambient: style.ambient,
            light,
        },
    };
    let flat_shader = heat.map_or(Shader::Constant(1.0), Shader::Scalar);
    let smooth = matches!(lit_shader, Shader::Smooth { .. });

    let Raster {
        width,
        height,
        depth,
        color,
        layer,
        scratch,
        ..
    } = raster;
    let (w, h) = (*width, *height);
    let normals = if smooth && heat.is_none() && style.mode == DrawMode::Shaded {
        usable_normals
    } else {
        None
    };
    project_all(vp, mesh.positions, normals, light, w, h, scratch);
    let verts: &[ProjVertex] = scratch;
    let (depth, color, layer): (&mut [f32], &mut [Rgb], &mut [Layer]) = (depth, color, layer);
    let cull = style.cull_backfaces;

    let triangles = is_triangles(mesh.topology);
    if triangles && style.hidden_lines && style.mode != DrawMode::Shaded {
        // Depth only, so that the edges and points drawn next hide behind the mesh's own
        // surfaces.
        let k = Shader::Constant(0.0);
        fill_triangles(mesh, verts, w, h, k, cull, |i, z, _| {
            if let Some(d) = depth.get_mut(i)
                && z > *d
            {
                *d = z;
            }
        });
    }
    let unlit = |i: usize, z: f32, s: f32| edge(depth, color, layer, i, z, true, || paint.color(s));
    match style.mode {
        DrawMode::Shaded if triangles => {
            let shader = if heat.is_some() {
                flat_shader
            } else {
                lit_shader
            };
            fill_triangles(mesh, verts, w, h, shader, cull, |i, z, s| {
                surface(depth, color, layer, i, z, || paint.color(s))
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
    let Raster {
        width,
        height,
        depth,
        color,
        layer,
        scratch,
        ..
    } = raster;
    let (w, h) = (*width, *height);
    project_all(vp, mesh.positions, None, Vec3::ZERO, w, h, scratch);
    let verts: &[ProjVertex] = scratch;
    let (depth, color, layer): (&mut [f32], &mut [Rgb], &mut [Layer]) = (depth, color, layer);
    let pixel = |i: usize, z: f32, _: f32| edge(depth, color, layer, i, z, false, || c);
    let k = Shader::Constant(1.0);
    if is_triangles(mesh.topology) {
        triangle_edges(mesh, verts, w, h, k, pixel)
    } else if is_lines(mesh.topology) {
        segments(mesh, verts, w, h, k, pixel)
    } else {
        points(mesh, verts, w, h, k, pixel)
    }
}

/// The three vertices of a triangle if all exist and are finite.
#[inline]
fn fetch<const N: usize>(verts: &[ProjVertex], ix: [usize; N]) -> Option<[ProjVertex; N]> {
    let mut out = [ProjVertex::default(); N];
    for (o, &i) in out.iter_mut().zip(&ix) {
        let v = verts.get(i)?;
        if !v.finite {
            return None;
        }
        *o = *v;
    }
    Some(out)
}

fn fill_triangles(
    mesh: &MeshView,
    verts: &[ProjVertex],
    w: usize,
    h: usize,
    shader: Shader,
    cull: bool,
    mut pixel: impl FnMut(usize, f32, f32),
) -> DrawStats {
    let mut stats = DrawStats::default();
    for_each_triangle(mesh.topology, mesh.indices, verts.len(), |ix| {
        stats.primitives += 1;
        let Some(v) = fetch(verts, ix) else {
            stats.skipped += 1;
            return;
        };
        // `raw` is what gets interpolated (and clipped); `finish` turns it into `s` once
        // the facing is known.
        let (raw, flat) = match shader {
            Shader::Smooth { .. } => ([v[0].light, v[1].light, v[2].light], 0.0),
            Shader::Flat { ambient, light } => {
                let p = ix.map(|i| mesh.positions.get(i).copied().unwrap_or(Vec3::ZERO));
                let n = (p[1] - p[0]).cross(p[2] - p[0]);
                let cos = n.dot(light) / n.length();
                let cos = if cos.is_finite() { cos.abs() } else { 0.0 };
                ([0.0; 3], ambient + (1.0 - ambient) * cos)
            }
            Shader::Scalar(s) => (ix.map(|i| s.get(i).copied().unwrap_or(0.0)), 0.0),
            Shader::Constant(k) => ([k; 3], 0.0),
        };
        let finish = |r: f32, front: bool| match shader {
            Shader::Smooth { ambient } => {
                let cos = if front { r } else { -r };
                ambient + (1.0 - ambient) * cos.max(0.0)
            }
            Shader::Flat { .. } => flat,
            Shader::Scalar(_) | Shader::Constant(_) => r,
        };
        if v[0].simple && v[1].simple && v[2].simple {
            let Some(tri) = Triangle::new(w, h, [v[0].screen, v[1].screen, v[2].screen]) else {
                return;
            };
            let front = tri.front_facing();
            if cull && !front {
                return;
            }
            tri.scan(raw.map(|r| finish(r, front)), &mut pixel);
            return;
        }
        let cv = |k: usize| ClipVertex {
            p: v[k].clip,
            s: raw[k],
        };
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
        let s: [f32; MAX_VERTICES] = std::array::from_fn(|k| finish(poly.v[k].s, front));
        for k in 1..n - 1 {
            if let Some(tri) = Triangle::new(w, h, [pts[0], pts[k], pts[k + 1]]) {
                tri.scan([s[0], s[k], s[k + 1]], &mut pixel);
            }
        }
    });
    stats
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
    a: &ProjVertex,
    b: &ProjVertex,
    s: [f32; 2],
    w: usize,
    h: usize,
    pixel: &mut impl FnMut(usize, f32, f32),
) {
    if a.simple && b.simple {
        line::scan(w, h, a.screen, b.screen, s, pixel);
        return;
    }
    let ca = ClipVertex { p: a.clip, s: s[0] };
    let cb = ClipVertex { p: b.clip, s: s[1] };
    if let Some((ca, cb)) = clip_segment(ca, cb, &[NEAR]) {
        let (pa, pb) = (to_screen(ca.p, w, h), to_screen(cb.p, w, h));
        line::scan(w, h, pa, pb, [ca.s, cb.s], pixel);
    }
}

fn triangle_edges(
    mesh: &MeshView,
    verts: &[ProjVertex],
    w: usize,
    h: usize,
    shader: Shader,
    mut pixel: impl FnMut(usize, f32, f32),
) -> DrawStats {
    let mut stats = DrawStats::default();
    for_each_triangle(mesh.topology, mesh.indices, verts.len(), |ix| {
        stats.primitives += 1;
        let Some(v) = fetch(verts, ix) else {
            stats.skipped += 1;
            return;
        };
        for (a, b) in [(0, 1), (1, 2), (2, 0)] {
            let s = [unlit(shader, ix[a]), unlit(shader, ix[b])];
            segment(&v[a], &v[b], s, w, h, &mut pixel);
        }
    });
    stats
}

fn segments(
    mesh: &MeshView,
    verts: &[ProjVertex],
    w: usize,
    h: usize,
    shader: Shader,
    mut pixel: impl FnMut(usize, f32, f32),
) -> DrawStats {
    let mut stats = DrawStats::default();
    for_each_segment(mesh.topology, mesh.indices, verts.len(), |ix| {
        stats.primitives += 1;
        let Some(v) = fetch(verts, ix) else {
            stats.skipped += 1;
            return;
        };
        let s = [unlit(shader, ix[0]), unlit(shader, ix[1])];
        segment(&v[0], &v[1], s, w, h, &mut pixel);
    });
    stats
}

fn points(
    mesh: &MeshView,
    verts: &[ProjVertex],
    w: usize,
    h: usize,
    shader: Shader,
    mut pixel: impl FnMut(usize, f32, f32),
) -> DrawStats {
    let mut stats = DrawStats::default();
    for_each_point(mesh.indices, verts.len(), |i| {
        stats.primitives += 1;
        let Some([v]) = fetch(verts, [i]) else {
            stats.skipped += 1;
            return;
        };
        // Not simple: behind the near plane or far outside the view. Either way unseen.
        if !v.simple {
            return;
        }
        let p = v.screen;
        if p.x >= 0.0 && p.y >= 0.0 && p.x < w as f32 && p.y < h as f32 {
            let (x, y) = ((p.x as usize).min(w - 1), (p.y as usize).min(h - 1));
            pixel(y * w + x, p.z, unlit(shader, i));
        }
    });
    stats
}
