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
        let ca = ClipVertex {
            p: vp * a.extend(1.0),
            s: 0.0,
        };
        let cb = ClipVertex {
            p: vp * b.extend(1.0),
            s: 0.0,
        };
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
    let mut axes = [(Vec3::X, AXIS_X), (Vec3::Y, AXIS_Y), (Vec3::Z, AXIS_Z)].map(|(axis, c)| {
        let d = view * Vec4::new(axis.x, axis.y, axis.z, 0.0);
        (d, c)
    });
    // View z grows towards the viewer: draw the most negative (farthest) first.
    axes.sort_by(|a, b| a.0.z.total_cmp(&b.0.z));
    for (d, c) in axes {
        let tip = origin + Vec3::new(d.x * len, -d.y * len / pa, 0.0);
        raster.overlay_line(origin, tip, c);
    }
}
