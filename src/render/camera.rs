//! The orbit camera: a target point, yaw and pitch around it, a distance, a vertical field
//! of view and a near plane. It owns the view and projection matrices and nothing else: it
//! does not know about rasters or cells, only the physical aspect ratio it is given.
//!
//! Conventions (right-handed, Y up, like glTF): yaw 0 and pitch 0 put the eye on +Z of the
//! target looking towards -Z, so a glTF character (which faces +Z) is seen from the front.
//! The projection is perspective with an infinite far plane and reversed depth:
//! `z_ndc = near / view_distance`, 1 on the near plane and falling towards 0 far away.
//! Reversed depth spends f32 precision evenly over distance, and with no far plane nothing
//! behind the model is ever cut off. Clip space keeps the usual `w = view distance`.

use glam::{Mat4, Vec3, Vec4};

/// Pitch stays short of straight up or down so that the view basis never degenerates.
pub const PITCH_LIMIT: f32 = 89.0 * std::f32::consts::PI / 180.0;
/// The view the viewer opens on, and `rigscope render`'s default: a three-quarter view from
/// the front right, slightly from above, so that depth reads at a glance.
pub const OPENING_YAW_DEGREES: f32 = 25.0;
pub const OPENING_PITCH_DEGREES: f32 = 10.0;
/// Closest and farthest the eye may be from the target (zoom clamps to these).
pub const MIN_DISTANCE: f32 = 1e-4;
pub const MAX_DISTANCE: f32 = 1e7;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// The point the camera orbits and looks at.
    pub target: Vec3,
    /// Rotation about +Y in radians; positive moves the eye towards +X.
    pub yaw: f32,
    /// Elevation in radians; positive looks down from above. Kept within `PITCH_LIMIT`.
    pub pitch: f32,
    /// Eye-to-target distance.
    pub distance: f32,
    /// Vertical field of view in radians.
    pub fov_y: f32,
    /// Near plane distance (> 0). `zoom` scales it with `distance`.
    pub near: f32,
}

impl Default for Camera {
    fn default() -> Self {
        Camera {
            target: Vec3::ZERO,
            yaw: 0.0,
            pitch: 0.0,
            distance: 3.0,
            fov_y: 45f32.to_radians(),
            near: 0.01,
        }
    }
}

impl Camera {
    /// Unit vector from the target towards the eye.
    pub fn back(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        Vec3::new(cp * sy, sp, cp * cy)
    }

    /// Unit vector pointing where the camera looks.
    pub fn forward(&self) -> Vec3 {
        -self.back()
    }

    /// Unit vector to the right of the view (horizontal: pitch never rolls the camera).
    pub fn right(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        Vec3::new(cy, 0.0, -sy)
    }

    /// Unit vector up in the view.
    pub fn up(&self) -> Vec3 {
        self.right().cross(self.forward())
    }

    pub fn eye(&self) -> Vec3 {
        self.target + self.back() * self.distance
    }

    /// World -> view space (right-handed, the camera looks down -Z).
    pub fn view(&self) -> Mat4 {
        let (r, u, b) = (self.right(), self.up(), self.back());
        let eye = self.eye();
        Mat4::from_cols(
            Vec4::new(r.x, u.x, b.x, 0.0),
            Vec4::new(r.y, u.y, b.y, 0.0),
            Vec4::new(r.z, u.z, b.z, 0.0),
            Vec4::new(-r.dot(eye), -u.dot(eye), -b.dot(eye), 1.0),
        )
    }

    /// View -> clip space for a viewport `aspect` = physical width / height (a bad
    /// aspect counts as 1). Infinite far plane, reversed depth (see the module comment).
    pub fn proj(&self, aspect: f32) -> Mat4 {
        let aspect = sane_aspect(aspect);
        let f = 1.0 / (self.fov_y * 0.5).tan();
        Mat4::from_cols(
            Vec4::new(f / aspect, 0.0, 0.0, 0.0),
            Vec4::new(0.0, f, 0.0, 0.0),
            Vec4::new(0.0, 0.0, 0.0, -1.0),
            Vec4::new(0.0, 0.0, self.near, 0.0),
        )
    }

    /// World -> clip space.
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        self.proj(aspect) * self.view()
    }

    /// Where a world point lands in normalised device coordinates (x right, y up, both
    /// -1..1 across the viewport; z is the reversed depth), or `None` when it is not in
    /// front of the near plane or is not finite.
    pub fn project_ndc(&self, p: Vec3, aspect: f32) -> Option<Vec3> {
        let c = self.view_proj(aspect) * p.extend(1.0);
        let ndc = c.truncate() / c.w;
        (c.w >= self.near && ndc.is_finite()).then_some(ndc)
    }

    /// Turn around the target. Pitch is clamped to `PITCH_LIMIT`; yaw wraps to 0..2pi so
    /// that it never grows large enough to lose precision. Non-finite input is ignored.
    pub fn orbit(&mut self, dyaw: f32, dpitch: f32) {
        if dyaw.is_finite() {
            self.yaw = (self.yaw + dyaw).rem_euclid(std::f32::consts::TAU);
        }
        if dpitch.is_finite() {
            self.pitch = (self.pitch + dpitch).clamp(-PITCH_LIMIT, PITCH_LIMIT);
        }
    }

    /// Move the eye towards (factor < 1) or away from (factor > 1) the target. The near
    /// plane scales along so that its ratio to the distance, and so depth precision and
    /// what the near plane cuts at the target, stay the same. Non-positive or non-finite
    /// factors are ignored.
    pub fn zoom(&mut self, factor: f32) {
        if !(factor.is_finite() && factor > 0.0) {
            return;
        }
        let d = (self.distance * factor).clamp(MIN_DISTANCE, MAX_DISTANCE);
        let applied = d / self.distance;
        self.distance = d;
        self.near *= applied;
    }

    /// Slide the target (and the eye with it) across the view. `dx` and `dy` are fractions
    /// of the view's visible height at the target's distance: `pan(0.1, 0.0)` moves the
    /// camera right by a tenth of the visible height, so the scene moves left.
    pub fn pan(&mut self, dx: f32, dy: f32) {
        if !(dx.is_finite() && dy.is_finite()) {
            return;
        }
        let visible_height = 2.0 * self.distance * (self.fov_y * 0.5).tan();
        self.target += (self.right() * dx + self.up() * dy) * visible_height;
    }

    /// Aim at the box `min..max` and back off until the whole box is in view for a viewport
    /// of the given physical aspect, whatever the yaw and pitch: the box's bounding sphere
    /// is fitted inside the narrower of the two fields of view, with a small margin. Yaw,
    /// pitch and fov are kept. A non-finite box leaves the camera unchanged; an empty
    /// (point) box is treated as a unit sphere so that the view is still usable.
    pub fn frame(&mut self, min: Vec3, max: Vec3, aspect: f32) {
        if !(min.is_finite() && max.is_finite()) {
            return;
        }
        let (lo, hi) = (min.min(max), min.max(max));
        let mut radius = (hi - lo).length() * 0.5;
        if !(radius.is_finite() && radius > 0.0) {
            radius = 1.0;
        }
        let half_y = self.fov_y * 0.5;
        let half_x = (half_y.tan() * sane_aspect(aspect)).atan();
        let half = half_y.min(half_x);
        const MARGIN: f32 = 1.05;
        self.target = (lo + hi) * 0.5;
        self.distance = (radius / half.sin() * MARGIN).clamp(MIN_DISTANCE, MAX_DISTANCE);
        // The sphere's nearest point is at distance - radius >= distance * (1 - sin(half));
        // 1% of the distance stays in front of it for any fov below ~160 degrees.
        self.near = self.distance * 0.01;
    }
}

fn sane_aspect(aspect: f32) -> f32 {
    if aspect.is_finite() && aspect > 0.0 { aspect } else { 1.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-4
    }

    #[test]
    fn target_projects_to_the_centre() {
        let mut cam = Camera {
            target: Vec3::new(1.0, 2.0, -3.0),
            yaw: 0.7,
            pitch: -0.4,
            distance: 5.0,
            ..Camera::default()
        };
        for aspect in [0.5, 1.0, 2.0] {
            let ndc = cam.project_ndc(cam.target, aspect).unwrap();
            assert!(close(ndc.x, 0.0) && close(ndc.y, 0.0), "{ndc:?}");
            // Reversed depth: near / distance.
            assert!(close(ndc.z, cam.near / cam.distance));
        }
        cam.orbit(1.0, 0.3);
        let ndc = cam.project_ndc(cam.target, 1.0).unwrap();
        assert!(close(ndc.x, 0.0) && close(ndc.y, 0.0));
    }

    #[test]
    fn default_view_axes() {
        // yaw 0, pitch 0: eye on +Z looking down -Z, +X to the right, +Y up.
        let cam = Camera::default();
        assert!(cam.eye().abs_diff_eq(Vec3::new(0.0, 0.0, 3.0), 1e-6));
        let right = cam.project_ndc(Vec3::X, 1.0).unwrap();
        let up = cam.project_ndc(Vec3::Y, 1.0).unwrap();
        assert!(right.x > 0.0 && close(right.y, 0.0));
        assert!(up.y > 0.0 && close(up.x, 0.0));
        // A point 1 to the right at distance 3: x_ndc = (1/3) / tan(22.5 deg) = 0.80474.
        assert!(close(right.x, 0.804_738));
        // Aspect 2 halves x.
        let wide = cam.project_ndc(Vec3::X, 2.0).unwrap();
        assert!(close(wide.x, 0.402_369));
    }

    #[test]
    fn behind_the_eye_and_nan_do_not_project() {
        let cam = Camera::default();
        assert!(cam.project_ndc(Vec3::new(0.0, 0.0, 10.0), 1.0).is_none());
        // Between the eye and the near plane (near = 0.01, eye at z = 3).
        assert!(cam.project_ndc(Vec3::new(0.0, 0.0, 2.995), 1.0).is_none());
        assert!(cam.project_ndc(Vec3::new(f32::NAN, 0.0, 0.0), 1.0).is_none());
    }

    #[test]
    fn yaw_moves_eye_towards_plus_x_and_pitch_clamps() {
        let mut cam = Camera::default();
        cam.orbit(std::f32::consts::FRAC_PI_2, 0.0);
        assert!(cam.eye().abs_diff_eq(Vec3::new(3.0, 0.0, 0.0), 1e-5));
        cam.orbit(0.0, 10.0);
        assert_eq!(cam.pitch, PITCH_LIMIT);
        cam.orbit(0.0, -20.0);
        assert_eq!(cam.pitch, -PITCH_LIMIT);
        cam.orbit(f32::NAN, f32::INFINITY);
        assert_eq!(cam.pitch, -PITCH_LIMIT);
        assert!(close(cam.yaw, std::f32::consts::FRAC_PI_2));
        // Positive pitch looks down from above: the eye is above the target.
        let mut above = Camera::default();
        above.orbit(0.0, 0.5);
        assert!(above.eye().y > 0.0);
    }

    #[test]
    fn zoom_scales_distance_and_near() {
        let mut cam = Camera::default();
        cam.zoom(0.5);
        assert!(close(cam.distance, 1.5) && close(cam.near, 0.005));
        cam.zoom(0.0);
        cam.zoom(-2.0);
        cam.zoom(f32::NAN);
        assert!(close(cam.distance, 1.5));
        cam.zoom(1e-12);
        assert_eq!(cam.distance, MIN_DISTANCE);
    }

    #[test]
    fn pan_moves_the_old_target_off_centre_by_hand_computed_amount() {
        // Visible height at the target is 2 d tan(fov/2). Panning right by 0.1 of it puts
        // the old target 0.1 * that to the left, i.e. at x_ndc = -0.1 * 2 = -0.2 for aspect 1.
        let mut cam = Camera::default();
        let old = cam.target;
        cam.pan(0.1, 0.0);
        let ndc = cam.project_ndc(old, 1.0).unwrap();
        assert!(close(ndc.x, -0.2) && close(ndc.y, 0.0), "{ndc:?}");
        cam.pan(0.0, 0.25);
        let ndc = cam.project_ndc(old, 1.0).unwrap();
        assert!(close(ndc.x, -0.2) && close(ndc.y, -0.5), "{ndc:?}");
    }

    #[test]
    fn frame_puts_all_corners_in_view() {
        let (min, max) = (Vec3::new(-0.3, 0.0, -0.2), Vec3::new(0.5, 1.8, 0.4));
        for aspect in [0.4, 1.0, 2.5] {
            for (yaw, pitch) in [(0.0, 0.0), (0.8, 0.5), (3.0, -1.2), (5.0, 1.5)] {
                let mut cam = Camera::default();
                cam.orbit(yaw, pitch);
                cam.frame(min, max, aspect);
                assert!(close(cam.target.y, 0.9));
                for i in 0..8 {
                    let corner = Vec3::new(
                        if i & 1 == 0 { min.x } else { max.x },
                        if i & 2 == 0 { min.y } else { max.y },
                        if i & 4 == 0 { min.z } else { max.z },
                    );
                    let ndc = cam.project_ndc(corner, aspect).unwrap();
                    assert!(ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0, "{aspect} {yaw} {ndc:?}");
                    assert!(ndc.z > 0.0 && ndc.z <= 1.0);
                }
            }
        }
    }

    #[test]
    fn frame_ignores_nan_and_handles_a_point() {
        let mut cam = Camera::default();
        let before = cam;
        cam.frame(Vec3::NAN, Vec3::ONE, 1.0);
        assert_eq!(cam, before);
        cam.frame(Vec3::ONE, Vec3::ONE, 1.0);
        assert_eq!(cam.target, Vec3::ONE);
        assert!(cam.distance > 1.0 && cam.near > 0.0);
    }
}
