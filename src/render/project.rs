//! Per-vertex work for a mesh, done once per vertex rather than once per triangle corner:
//! world -> clip space, the guard-band test, the viewport transform, and the head-light
//! term. Output goes into the raster's reused scratch buffer.

use glam::{Mat4, Vec3};

use super::clip::{CLIP_PLANES, inside_all};

/// One projected vertex.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ProjVertex {
    /// Clip-space position, for the clipping path.
    pub clip: glam::Vec4,
    /// Screen position (pixels, y down) and reversed depth; meaningful when `simple`.
    pub screen: Vec3,
    /// `normal . light`, signed: the caller picks the side (two-sided lighting). 0 when
    /// there is no usable normal.
    pub light: f32,
    /// Every coordinate is finite.
    pub finite: bool,
    /// In front of the near plane and inside the guard band: primitives made only of
    /// simple vertices skip clipping.
    pub simple: bool,
}

/// Project `positions` with `view_proj` onto a `width` x `height` viewport. `light_dir`
/// is the unit direction towards the light; `normals` is used only when it has one entry
/// per position.
pub(super) fn project_all(
    view_proj: Mat4,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    light_dir: Vec3,
    width: usize,
    height: usize,
    out: &mut Vec<ProjVertex>,
) {
    out.clear();
    out.reserve(positions.len());
    let normals = normals.filter(|n| n.len() == positions.len());
    for (i, &p) in positions.iter().enumerate() {
        let clip = view_proj * p.extend(1.0);
        let finite = clip.is_finite();
        let simple = finite && inside_all(clip, &CLIP_PLANES);
        let screen = if simple { to_screen(clip, width, height) } else { Vec3::ZERO };
        let light = normals.and_then(|n| n.get(i)).map_or(0.0, |n| n.normalize_or_zero().dot(light_dir));
        out.push(ProjVertex {
            clip,
            screen,
            light: if light.is_finite() { light } else { 0.0 },
            finite,
            simple,
        });
    }
}

/// Clip space -> screen space for a vertex known to be in front of the near plane.
#[inline]
pub(super) fn to_screen(clip: glam::Vec4, width: usize, height: usize) -> Vec3 {
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
    fn target_lands_mid_raster_and_flags_are_right() {
        let cam = Camera::default();
        let vp = cam.view_proj(2.0);
        let pts = [
            Vec3::ZERO,
            Vec3::new(0.0, 0.0, 5.0), // behind the eye
            Vec3::new(f32::NAN, 0.0, 0.0),
            Vec3::new(1e6, 0.0, 0.0), // far outside the guard band
        ];
        let normals = [Vec3::Z * 2.0, Vec3::Z, Vec3::Z, Vec3::ZERO];
        let mut out = Vec::new();
        project_all(vp, &pts, Some(&normals), cam.back(), 40, 20, &mut out);
        let s = out[0].screen;
        assert!((s.x - 20.0).abs() < 1e-4 && (s.y - 10.0).abs() < 1e-4);
        // Reversed depth at the target: near / distance = 0.01 / 3.
        assert!((s.z - 0.01 / 3.0).abs() < 1e-7);
        // The normal faces the eye (light = back vector = +Z): full light despite length 2.
        assert!((out[0].light - 1.0).abs() < 1e-6);
        assert!(out[0].simple && out[0].finite);
        assert!(out[1].finite && !out[1].simple);
        assert!(!out[2].finite && !out[2].simple);
        assert!(out[3].finite && !out[3].simple);
        assert_eq!(out[3].light, 0.0);
        // Same screen position from the clip path helper.
        assert!(to_screen(out[0].clip, 40, 20).abs_diff_eq(s, 1e-5));
    }
}
