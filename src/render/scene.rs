//! One viewport frame of a rig: every deformed primitive, the optional bind-pose ghost, the
//! skeleton and the axis gizmo, drawn into a `Raster`. Shared by the viewer and
//! `rigscope render`, so both show the same picture for the same state.

use glam::Vec3;

use super::ansi::ColorDepth;
use super::camera::Camera;
use super::color::Rgb;
use super::glyphs::GlyphMode;
use super::mesh::{Coloring, DEFAULT_GHOST_COLOR, DrawMode, MeshStyle, MeshView, draw_ghost, draw_mesh};
use super::overlay::{BoneStyle, draw_axis_gizmo, draw_bones};
use super::raster::Raster;
use crate::anim::Workspace;
use crate::rig::{Primitive, Rig};

/// What to draw besides the mesh.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SceneOptions {
    pub draw: DrawMode,
    pub bones: bool,
    /// The skin whose skeleton is drawn (every node's bone when None).
    pub skin: Option<usize>,
    /// Node whose bone (to its parent) is highlighted.
    pub selected: Option<usize>,
    pub ghost: bool,
    /// Colour vertices by their weight on this joint (position in the skin's `joints`).
    pub heat_joint: Option<usize>,
    /// A vertex to mark (index into `Workspace::primitives`, vertex).
    pub marked_vertex: Option<(usize, usize)>,
    pub gizmo: bool,
    /// Draw the primitives that `skin` does not deform as faint ghosts, so the skin's own
    /// mesh stands out (a file with many skins).
    pub dim_other_skins: bool,
}

impl Default for SceneOptions {
    fn default() -> Self {
        SceneOptions {
            draw: DrawMode::Shaded,
            bones: false,
            skin: None,
            selected: None,
            ghost: false,
            heat_joint: None,
            marked_vertex: None,
            gizmo: true,
            dim_other_skins: false,
        }
    }
}

/// Buffers reused frame to frame (heat scalars, bone segments).
#[derive(Debug, Default)]
pub struct SceneScratch {
    scalars: Vec<f32>,
    segments: Vec<(Vec3, Vec3)>,
    segment_nodes: Vec<usize>,
    joints: Vec<Vec3>,
}

const MARK: Rgb = Rgb::new(255, 0, 255);

/// A primitive's deformed `positions` with its topology and index list.
fn view_of<'a>(positions: &'a [Vec3], prim: &'a Primitive) -> MeshView<'a> {
    let view = MeshView::new(positions, prim.topology);
    match &prim.indices {
        Some(indices) => view.with_indices(indices),
        None => view,
    }
}

/// Every primitive of `rig` as posed in `ws`, as a ghost (the bind pose, or the second rig of
/// `--compare`).
pub fn draw_ghosts(raster: &mut Raster, camera: &Camera, rig: &Rig, ws: &Workspace, color: Rgb) {
    for dp in &ws.primitives {
        if let Some(prim) = rig.meshes.get(dp.mesh).and_then(|m| m.primitives.get(dp.primitive)) {
            draw_ghost(raster, camera, &view_of(&dp.positions, prim), color);
        }
    }
}

/// Draws the rig as posed in `ws` (and `bind` for the ghost) into a cleared raster.
pub fn draw_scene(
    raster: &mut Raster,
    camera: &Camera,
    rig: &Rig,
    ws: &Workspace,
    bind: Option<&Workspace>,
    opts: &SceneOptions,
    scratch: &mut SceneScratch,
) {
    raster.clear();
    if opts.ghost
        && let Some(bind) = bind
    {
        draw_ghosts(raster, camera, rig, bind, DEFAULT_GHOST_COLOR);
    }
    for dp in &ws.primitives {
        let Some(prim) = rig.meshes.get(dp.mesh).and_then(|m| m.primitives.get(dp.primitive)) else {
            continue;
        };
        if opts.dim_other_skins && dp.skin != opts.skin {
            draw_ghost(raster, camera, &view_of(&dp.positions, prim), DEFAULT_GHOST_COLOR);
            continue;
        }
        let mut view = view_of(&dp.positions, prim);
        if dp.normals.len() == dp.positions.len() {
            view.normals = Some(&dp.normals);
        }
        let mut style = MeshStyle { mode: opts.draw, ..MeshStyle::default() };
        if let Some(joint) = opts.heat_joint
            && dp.skin.is_some()
            && dp.skin == opts.skin
        {
            scratch.scalars.clear();
            scratch.scalars.extend((0..prim.vertex_count()).map(|v| joint_weight(prim, v, joint)));
            view.scalars = Some(&scratch.scalars);
            style.coloring = Coloring::Heat;
        }
        draw_mesh(raster, camera, &view, &style);
    }
    if opts.bones {
        skeleton(rig, ws, opts.skin, scratch);
        let selected = opts.selected.and_then(|n| scratch.segment_nodes.iter().position(|&s| s == n));
        draw_bones(raster, camera, &scratch.segments, &scratch.joints, selected, &BoneStyle::default());
    }
    if let Some((p, v)) = opts.marked_vertex
        && let Some(pos) = ws.primitives.get(p).and_then(|dp| dp.positions.get(v))
    {
        let vp = camera.view_proj(raster.aspect());
        let c = vp * pos.extend(1.0);
        if c.is_finite() && c.w > 0.0 {
            let ndc = c.truncate() / c.w;
            raster.overlay_dot(raster.ndc_to_screen(ndc), 1, MARK);
        }
    }
    if opts.gizmo {
        draw_axis_gizmo(raster, camera);
    }
}

/// The weight of `joint` on vertex `v`, summed over all influence sets (0 when absent).
fn joint_weight(prim: &crate::rig::Primitive, v: usize, joint: usize) -> f32 {
    let w: f32 =
        prim.influences_of(v).filter(|&(j, x)| j as usize == joint && x.is_finite()).map(|(_, x)| x).sum();
    w.clamp(0.0, 1.0)
}

/// Bone segments (joint to nearest joint ancestor) and joint positions in world space.
fn skeleton(rig: &Rig, ws: &Workspace, skin: Option<usize>, s: &mut SceneScratch) {
    s.segments.clear();
    s.segment_nodes.clear();
    s.joints.clear();
    let pos = |n: usize| ws.globals.get(n).map(|m| m.w_axis.truncate());
    match skin.and_then(|i| rig.skins.get(i)) {
        Some(skin) => {
            for (j, &node) in skin.joints.iter().enumerate() {
                let Some(p) = pos(node) else { continue };
                s.joints.push(p);
                if let Some(parent) = skin.joint_parent.get(j).copied().flatten()
                    && let Some(q) = skin.joints.get(parent).and_then(|&pn| pos(pn))
                {
                    s.segments.push((q, p));
                    s.segment_nodes.push(node);
                }
            }
        }
        None => {
            for (n, node) in rig.nodes.iter().enumerate() {
                let Some(p) = pos(n) else { continue };
                s.joints.push(p);
                if let Some(q) = node.parent.and_then(pos) {
                    s.segments.push((q, p));
                    s.segment_nodes.push(n);
                }
            }
        }
    }
}

/// Axis-aligned bounds of every deformed vertex (joint positions when there is no mesh).
pub fn bounds(ws: &Workspace) -> (Vec3, Vec3) {
    if let Some(b) = ws.bounds() {
        return b;
    }
    let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
    for p in ws.globals.iter().map(|m| m.w_axis.truncate()).filter(|p| p.is_finite()) {
        lo = lo.min(p);
        hi = hi.max(p);
    }
    if lo.cmpgt(hi).any() { (Vec3::splat(-1.0), Vec3::splat(1.0)) } else { (lo, hi) }
}

/// A camera that frames `ws` from the front, with yaw/pitch in radians and a zoom factor.
pub fn framed_camera(ws: &Workspace, yaw: f32, pitch: f32, zoom: f32) -> Camera {
    let (lo, hi) = bounds(ws);
    // Through `orbit`, which keeps the pitch within `PITCH_LIMIT` (straight up or down
    // has no "up" for the view) and the yaw within one turn.
    let mut cam = Camera::default();
    cam.orbit(yaw, pitch);
    // Aspect 1 fits the narrower field of view: right for any viewport at least as wide
    // as it is tall, which every layout here is.
    cam.frame(lo, hi, 1.0);
    if zoom.is_finite() && zoom > 0.0 {
        cam.zoom(1.0 / zoom);
    }
    cam
}

/// The glyphs to pack with: without colour, braille keeps its shading by dithering the dots.
pub fn glyphs_for(mode: GlyphMode, depth: ColorDepth) -> GlyphMode {
    match (mode, depth) {
        (GlyphMode::Braille, ColorDepth::None) => GlyphMode::BrailleDither,
        _ => mode,
    }
}

/// For output without colour: a half block whose two halves differ only in colour becomes a
/// full block, so the shape still reads; colours are dropped.
pub fn strip_color(grid: &mut super::glyphs::Grid) {
    for cell in &mut grid.cells {
        if cell.ch == '\u{2580}' && cell.bg.is_some() {
            cell.ch = '\u{2588}';
        }
        cell.fg = None;
        cell.bg = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::DeformedPrimitive;
    use crate::rig::{Node, Rig};

    fn workspace(positions: &[&[Vec3]]) -> Workspace {
        let rig = Rig { nodes: vec![Node::default(), Node::default()], order: vec![0, 1], ..Rig::default() };
        let mut ws = Workspace::new(&rig);
        ws.globals[1] = glam::Mat4::from_translation(Vec3::new(2.0, -3.0, 4.0));
        ws.primitives = positions
            .iter()
            .map(|p| DeformedPrimitive {
                node: 0,
                mesh: 0,
                primitive: 0,
                skin: None,
                instance: None,
                positions: p.to_vec(),
                normals: Vec::new(),
            })
            .collect();
        ws
    }

    #[test]
    fn bounds_cover_every_finite_vertex_of_every_primitive() {
        let nan = Vec3::new(f32::NAN, 100.0, 100.0);
        let inf = Vec3::new(0.0, f32::INFINITY, 0.0);
        let ws = workspace(&[&[nan, Vec3::new(1.0, 2.0, 3.0)], &[], &[inf, Vec3::new(-1.0, 0.0, 5.0)]]);
        assert_eq!(bounds(&ws), (Vec3::new(-1.0, 0.0, 3.0), Vec3::new(1.0, 2.0, 5.0)));
    }

    #[test]
    fn without_finite_vertices_the_joints_then_a_unit_box_are_framed() {
        let ws = workspace(&[&[Vec3::NAN]]);
        assert_eq!(bounds(&ws), (Vec3::new(0.0, -3.0, 0.0), Vec3::new(2.0, 0.0, 4.0)));
        let mut ws = workspace(&[]);
        ws.globals.iter_mut().for_each(|g| *g = glam::Mat4::NAN);
        assert_eq!(bounds(&ws), (Vec3::splat(-1.0), Vec3::splat(1.0)));
    }
}
