//! What is drawn over the scene regardless of depth: the skeleton (bones as lines, joints
//! as dots, one bone highlighted) and the axis gizmo. Overlay pixels win over surfaces in
//! any draw order (see `raster::Layer`).

use glam::{Vec3, Vec4};

use super::camera::Camera;
use super::clip::{ClipVertex, NEAR, clip_segment};
use super::color::Rgb;
use super::project::to_screen;
use super::raster::Raster;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoneStyle {
    pub bone: Rgb,
    pub selected: Rgb,
    pub joint: Rgb,
    /// Joints are squares of side `2 * joint_radius + 1` pixels.
    pub joint_radius: usize,
}

impl Default for BoneStyle {
    fn default() -> Self {
        BoneStyle {
            bone: Rgb::new(255, 170, 0),
            selected: Rgb::new(0, 255, 255),
            joint: Rgb::WHITE,
            joint_radius: 1,
        }
    }
}

/// Gizmo colours: x red, y green, z blue (a lighter blue than pure, which is hard to
/// read on dark terminals).
pub const AXIS_X: Rgb = Rgb::RED;
pub const AXIS_Y: Rgb = Rgb::GREEN;
pub const AXIS_Z: Rgb = Rgb::new(60, 120, 255);

/// Draw bones (world-space segments) and joints over everything. `selected` indexes
/// `segments`; that bone is drawn in the highlight colour after the others, and the
/// joints after it so that they stay visible. Parts behind the near plane are cut;
/// non-finite points are skipped; an out-of-range `selected` highlights nothing.
pub fn draw_bones(
    raster: &mut Raster,
    camera: &Camera,
    segments: &[(Vec3, Vec3)],
    joints: &[Vec3],
    selected: Option<usize>,
    style: &BoneStyle,
) {
    let vp = camera.view_proj(raster.aspect());
    let (w, h) = (raster.width(), raster.height());
    let bone = |raster: &mut Raster, a: Vec3, b: Vec3, c: Rgb| {
        let ca = ClipVertex { p: vp * a.extend(1.0), s: 0.0 };
        let cb = ClipVertex { p: vp * b.extend(1.0), s: 0.0 };
        if let Some((ca, cb)) = clip_segment(ca, cb, &[NEAR]) {
            raster.overlay_line(to_screen(ca.p, w, h), to_screen(cb.p, w, h), c);
        }
    };
    for (i, &(a, b)) in segments.iter().enumerate() {
        if Some(i) != selected {
            bone(raster, a, b, style.bone);
        }
    }
    if let Some(&(a, b)) = selected.and_then(|i| segments.get(i)) {
        bone(raster, a, b, style.selected);
    }
    for &j in joints {
        let c = vp * j.extend(1.0);
        if c.is_finite() && NEAR.dot(c) >= 0.0 {
            raster.overlay_dot(to_screen(c, w, h), style.joint_radius, style.joint);
        }
    }
}

/// Draw the world axes in the bottom-left corner as the camera sees them (rotation only,
/// no perspective), each about an eighth of the raster's shorter side long. Axes further
/// from the viewer are drawn first so that the nearest one is on top.
pub fn draw_axis_gizmo(raster: &mut Raster, camera: &Camera) {
    let (w, h) = (raster.width(), raster.height());
    let pa = raster.pixel_aspect();
    // Length in horizontal pixels; vertical extents are divided by the pixel aspect so
    // that the gizmo is not stretched in ASCII mode.
    let len = ((w as f32).min(h as f32 * pa) / 8.0).max(3.0);
    // The centre of the pixel two pixels in from the left and bottom edges, plus the
    // length, so that every axis direction fits.
    let ox = (len + 2.0).floor();
    let oy = (h as f32 - len / pa - 3.0).floor();
    let origin = Vec3::new(ox + 0.5, oy + 0.5, 0.0);
    let view = camera.view();
    let mut axes =
        [(Vec3::X, AXIS_X, 'x'), (Vec3::Y, AXIS_Y, 'y'), (Vec3::Z, AXIS_Z, 'z')].map(|(axis, c, ch)| {
            let d = view * Vec4::new(axis.x, axis.y, axis.z, 0.0);
            (d, c, ch)
        });
    // View z grows towards the viewer: draw the most negative (farthest) first.
    axes.sort_by(|a, b| a.0.z.total_cmp(&b.0.z));
    for (d, c, ch) in axes {
        let on_screen = Vec3::new(d.x, -d.y / pa, 0.0);
        raster.overlay_line(origin, origin + on_screen * len, c);
        // The letter just past the tip (`LABEL_GAP` on screen, whatever the pixels'
        // shape), so that it covers the cell beyond the axis rather than the axis, kept
        // inside the raster for an axis that runs to its edge. An axis pointing at the
        // viewer (or away) has its tip at the origin, where a letter would hide the other
        // two: it goes unlabelled.
        let flat = Vec3::new(d.x, -d.y, 0.0);
        if flat.length() >= LABELLED_MIN {
            let way = flat.normalize() * LABEL_GAP;
            let at = origin + on_screen * len + Vec3::new(way.x, way.y / pa, 0.0);
            let inside = |v: f32, side: usize| v.clamp(0.5, (side as f32 - 0.5).max(0.5));
            raster.overlay_label(Vec3::new(inside(at.x, w), inside(at.y, h), 0.0), ch, c);
        }
    }
}

/// How far past an axis tip its letter is placed, in horizontal dots (a braille cell's
/// width; vertical distances are divided by the pixel aspect).
const LABEL_GAP: f32 = 2.0;
/// The shortest on-screen axis (as a fraction of its full length) that gets a letter.
const LABELLED_MIN: f32 = 0.3;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::GlyphMode;
    use crate::render::glyphs::{Cell, Grid};
    use crate::render::raster::{Label, Layer, Paint};

    #[test]
    fn gizmo_from_the_default_camera() {
        // 80x48 square pixels: length 48 / 8 = 6; origin pixel (6 + 2, 48 - 6 - 3) =
        // (8, 39). From the front, x points right, y up, z at the viewer (a dot, drawn
        // last since it is nearest).
        let mut r = Raster::new(80, 48, 1.0);
        draw_axis_gizmo(&mut r, &Camera::default());
        for x in 9..=14 {
            assert_eq!(r.color_at(x, 39), Some(AXIS_X), "x {x}");
        }
        for y in 33..=38 {
            assert_eq!(r.color_at(8, y), Some(AXIS_Y), "y {y}");
        }
        assert_eq!(r.color_at(8, 39), Some(AXIS_Z));
        assert_eq!(r.lit_pixels().len(), 6 + 6 + 1);
        assert_eq!(r.layer_at(8, 39), Layer::Overlay);
        // Letters 2 dots past the tips (14.5 + 2, 39.5) and (8.5, 33.5 - 2); none for z,
        // whose tip is the origin.
        let label = |x, y, ch, color| Label { x, y, ch, color };
        assert_eq!(r.labels, [label(16, 39, 'x', AXIS_X), label(8, 31, 'y', AXIS_Y)]);
        // Packed into braille cells of 2 x 4 dots, each letter takes its cell.
        let mut grid = Grid::default();
        crate::render::pack(&r, GlyphMode::Braille, &mut grid);
        let cell = |x: usize, y: usize| grid.cells[y * grid.width + x];
        assert_eq!((cell(8, 9).ch, cell(8, 9).fg), ('x', Some(AXIS_X)));
        assert_eq!((cell(4, 7).ch, cell(4, 7).fg), ('y', Some(AXIS_Y)));
        // A cleared raster forgets them.
        r.clear();
        crate::render::pack(&r, GlyphMode::Braille, &mut grid);
        assert!(grid.cells.iter().all(|c| *c == Cell::BLANK));
    }

    /// The gizmo of a camera turned by `yaw` and `pitch` from the default one, on an 80x48
    /// raster of pixels `aspect` times as tall as wide.
    fn gizmo(yaw: f32, pitch: f32, aspect: f32) -> Raster {
        let mut cam = Camera::default();
        cam.orbit(yaw, pitch);
        let mut r = Raster::new(80, 48, aspect);
        draw_axis_gizmo(&mut r, &cam);
        r
    }

    #[test]
    fn gizmo_turns_with_the_camera() {
        // Yaw 90 degrees: the eye is on +X looking towards -X; right = forward x up =
        // -X x Y = -Z, so +Z points left (6 pixels, to column 2) and +X at the viewer.
        let r = gizmo(std::f32::consts::FRAC_PI_2, 0.0, 1.0);
        assert_eq!(r.color_at(2, 39), Some(AXIS_Z));
        assert!(!r.is_lit(9, 39));
        assert_eq!(r.color_at(8, 39), Some(AXIS_X));
        // ASCII pixels are twice as tall: 80x48 is physically 80x96, so the length is
        // 80 / 8 = 10 columns and the y axis 10 / 2 = 5 rows; origin (10 + 2, 48 - 5 - 3)
        // = (12, 40).
        let r = gizmo(0.0, 0.0, 2.0);
        assert_eq!(r.color_at(12, 40), Some(AXIS_Z));
        assert_eq!(r.color_at(22, 40), Some(AXIS_X));
        assert_eq!(r.color_at(12, 35), Some(AXIS_Y));
        assert!(!r.is_lit(12, 34) && !r.is_lit(23, 40));
        // Its letters: 2 columns past x's tip (22.5 + 2), one row (2 / 2) above y's (35.5 - 1).
        let label = |x, y, ch, color| Label { x, y, ch, color };
        assert_eq!(r.labels, [label(24, 40, 'x', AXIS_X), label(12, 34, 'y', AXIS_Y)]);
    }

    #[test]
    fn letters_of_axes_that_run_to_an_edge_stay_inside() {
        // Yaw 180: x points left, to column 2, its letter would be at 0.5 - 0.5 (clamped to
        // the first column). Pitch 90 (looking straight down): z points down to the bottom
        // rows, its letter clamped to the last row.
        let r = gizmo(std::f32::consts::PI, 0.0, 1.0);
        assert!(r.labels.iter().any(|l| l.ch == 'x' && l.x == 0 && l.y == 39), "{:?}", r.labels);
        let r = gizmo(0.0, std::f32::consts::FRAC_PI_2, 1.0);
        assert!(r.labels.iter().any(|l| l.ch == 'z' && l.y == 47), "{:?}", r.labels);
        assert_eq!(r.labels.len(), 2, "{:?}", r.labels);
    }

    #[test]
    fn bones_draw_over_surfaces_with_the_selected_one_highlighted() {
        // Same projection as the mesh tests: 40x40, default camera; (x, y, 0) lands at
        // 20 (1 + 0.804738 x), 20 (1 - 0.804738 y).
        let mut r = Raster::new(40, 40, 1.0);
        let wall = |x: f32, y: f32| Vec3::new(x, y, 0.9);
        // A wall in front of everything.
        r.fill_triangle([wall(0.0, 0.0), wall(40.0, 0.0), wall(0.0, 40.0)], [1.0; 3], Paint::Lit(Rgb::WHITE));
        r.fill_triangle(
            [wall(40.0, 0.0), wall(40.0, 40.0), wall(0.0, 40.0)],
            [1.0; 3],
            Paint::Lit(Rgb::WHITE),
        );
        let segments = [
            (Vec3::new(-0.5, 0.0, 0.0), Vec3::new(0.5, 0.0, 0.0)),
            (Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.0, 0.5, 0.0)),
        ];
        let joints = [Vec3::new(0.5, 0.0, 0.0), Vec3::new(f32::NAN, 0.0, 0.0)];
        let style = BoneStyle::default();
        draw_bones(&mut r, &Camera::default(), &segments, &joints, Some(1), &style);
        // Bone 0 along row 20 from x 11.95 to 28.05; bone 1 up column 20 to y 15.98.
        assert_eq!(r.color_at(12, 20), Some(style.bone));
        assert_eq!(r.color_at(20, 17), Some(style.selected));
        // The selected bone is drawn after the others: it owns their shared pixel.
        assert_eq!(r.color_at(20, 20), Some(style.selected));
        // Joint at (28.05, 20): a 3x3 square around pixel (28, 20).
        for (x, y) in [(27, 19), (28, 20), (29, 21)] {
            assert_eq!(r.color_at(x, y), Some(style.joint));
        }
        assert_eq!(r.color_at(30, 20), Some(Rgb::WHITE));
    }

    #[test]
    fn bones_behind_the_eye_are_cut_or_dropped() {
        let mut r = Raster::new(40, 40, 1.0);
        let segments = [
            (Vec3::ZERO, Vec3::new(0.0, -1.0, 6.0)),
            (Vec3::new(0.0, 0.0, 5.0), Vec3::new(1.0, 0.0, 6.0)),
            (Vec3::NAN, Vec3::ZERO),
        ];
        let joints = [Vec3::new(0.0, 0.0, 5.0)];
        draw_bones(&mut r, &Camera::default(), &segments, &joints, Some(7), &BoneStyle::default());
        let lit = r.lit_pixels();
        assert!(!lit.is_empty());
        assert!(lit.iter().all(|&(x, y)| x == 20 && y >= 20), "{lit:?}");
    }
}
