//! The gaze aimed at a target point, as three-vrm 3.5.5's `VRMLookAt` computes it
//! (`packages/three-vrm-core/src/lookAt/VRMLookAt.ts`): `lookAt(position)` turns the point
//! into yaw and pitch seen from the head, then the avatar's applier (`VRMLookAtBoneApplier`,
//! `VRMLookAtExpressionApplier`, through `VRMLookAtRangeMap`) turns those into eye rotations
//! or look expressions: the same appliers a `.vrma` lookAt track goes through
//! (`anim::vrm_pose`).
//!
//! A pose stage after the clip is sampled (humanoid bones and expression tracks) and before
//! node constraints and spring bones, in three-vrm's order (`VRMCore.update`: humanoid,
//! lookAt, expressions; `VRM.update`: then constraints, then springs). A target replaces the
//! `.vrma` lookAt track: the mixer sets yaw and pitch from the track, then `VRMLookAt.update`
//! calls `lookAt(target)`, which sets them again.
//!
//! `lookAt` reads the head's `matrixWorld` as three.js last stored it; only a render (or the
//! spring bones' own updates) refreshes it, so the caller says which head matrix that is.

use glam::{DMat4, DQuat, DVec3};

use crate::anim::Pose;
use crate::anim::vrm_pose::{apply_expressions, look_expressions, track_weights, turn_eyes};
use crate::rig::{Clip, Eye, LookAt, LookAtKind, PlayedExpression, Rig};

/// Where the user asks the avatar to look.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Aim {
    /// A point in world space.
    Point([f64; 3]),
    /// The eye of the camera that draws the frame.
    Camera,
}

impl Aim {
    /// The point aimed at, `camera` being `eye`.
    pub fn point(self, eye: glam::Vec3) -> DVec3 {
        match self {
            Aim::Point(p) => DVec3::from(p),
            Aim::Camera => eye.as_dvec3(),
        }
    }
}

/// Where the avatar looks and what it turns to do so, resolved against the avatar once.
#[derive(Debug, Clone)]
pub struct LookAtTarget {
    /// The target, in world space.
    pub point: DVec3,
    look_at: LookAt,
    /// The raw head bone (`getRawBoneNode("head")`).
    head: usize,
    /// `_restHeadWorldQuaternion`: the head's world rotation when `VRMLookAt` is made (the
    /// humanoid loader has computed the bones' world matrices on the rest pose by then).
    rest_head: DQuat,
    /// The eye bones the bone type turns.
    eyes: Vec<Eye>,
    /// Every expression of the avatar, untracked: what the expression type sets when no
    /// `.vrma` brings the avatar's expressions with it.
    expressions: Vec<PlayedExpression>,
}

/// The gaze as `VRMLookAt` holds it, in degrees: yaw about y (positive towards the face's
/// left), pitch about x (positive looks down).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Look {
    pub yaw: f64,
    pub pitch: f64,
}

/// Why an avatar cannot aim its gaze.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoGaze {
    NotVrm,
    NoLookAt,
    NoHead,
}

impl std::fmt::Display for NoGaze {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NoGaze::NotVrm => "not a VRM avatar, so nothing looks at the target",
            NoGaze::NoLookAt => {
                "the avatar defines no lookAt (three-vrm makes none), so nothing looks at the target"
            }
            NoGaze::NoHead => "the avatar maps no head bone, which three-vrm's lookAt looks from",
        })
    }
}

impl LookAtTarget {
    /// The avatar's lookAt aimed at `point`.
    pub fn new(rig: &Rig, point: DVec3) -> Result<Self, NoGaze> {
        let vrm = rig.vrm.as_ref().ok_or(NoGaze::NotVrm)?;
        let look_at = vrm.look_at.clone().ok_or(NoGaze::NoLookAt)?;
        let head = vrm.node_of("head").filter(|&n| n < rig.nodes.len()).ok_or(NoGaze::NoHead)?;
        let rest = Pose::rest(rig);
        let rest_head = rotation_of(world_of(rig, &rest, head));
        let mut eyes = Vec::new();
        if look_at.kind == LookAtKind::Bone {
            for (bone, left) in [("leftEye", true), ("rightEye", false)] {
                let Some(node) = vrm.node_of(bone).filter(|&n| n < rig.nodes.len()) else { continue };
                let parent = rig.nodes[node].parent.map_or(DMat4::IDENTITY, |p| world_of(rig, &rest, p));
                eyes.push(Eye {
                    node,
                    left,
                    parent_rest: rotation_of(parent).as_quat(),
                    rest: rig.nodes[node].rest.rotation,
                });
            }
        }
        let expressions = crate::vrma::avatar_expressions(rig, vrm);
        Ok(Self { point, look_at, head, rest_head, eyes, expressions })
    }

    /// The head bone whose world matrix `look` reads.
    pub fn head(&self) -> usize {
        self.head
    }

    /// Whether the bone type has no eye bone to turn (the gaze then moves nothing).
    pub fn turns_nothing(&self) -> bool {
        self.look_at.kind == LookAtKind::Bone && self.eyes.is_empty()
    }

    /// `VRMLookAt.lookAt(position)` with the head at `head_world`: the direction from the
    /// lookAt origin (`getLookAtWorldPosition`: the offset through the head's matrix) to the
    /// target, turned by the head's rotation since rest (`_restHeadWorldQuaternion` times the
    /// inverse of `getLookAtWorldQuaternion`), as azimuth and altitude
    /// (`calcAzimuthAltitude`) relative to `faceFront`'s, each wrapped to -180..180
    /// (`sanitizeAngle`).
    pub fn look(&self, head_world: DMat4) -> Look {
        let head_turn = self.rest_head * rotation_of(head_world).conjugate();
        let origin = head_world.transform_point3(DVec3::from(self.look_at.offset.map(f64::from)));
        let direction = normalize(head_turn * (self.point - origin));
        let face_front = if self.look_at.face_back { DVec3::NEG_Z } else { DVec3::Z };
        let (azimuth_from, altitude_from) = azimuth_altitude(face_front);
        let (azimuth_to, altitude_to) = azimuth_altitude(direction);
        let yaw = sanitize_angle(azimuth_to - azimuth_from);
        let pitch = sanitize_angle(altitude_from - altitude_to);
        Look { yaw: yaw.to_degrees(), pitch: pitch.to_degrees() }
    }

    /// The head's world matrix from `pose` as it stands: what three.js holds once the pose
    /// has been rendered (a held frame).
    pub fn head_world(&self, rig: &Rig, pose: &Pose) -> DMat4 {
        world_of(rig, pose, self.head)
    }

    /// The appliers and the expression manager for `look`, on `pose` (sampled from `clip` at
    /// `t`): the bone type sets the eyes' rotations; the expression type sets lookUp, lookDown,
    /// lookLeft and lookRight over the expression tracks of a `.vrma` clip (or over none),
    /// then applies every expression as `VRMExpressionManager.update` does.
    pub fn apply(&self, clip: Option<&Clip>, t: f32, look: Look, pose: &mut Pose) {
        let (yaw, pitch) = (look.yaw as f32, look.pitch as f32);
        match self.look_at.kind {
            LookAtKind::Bone => turn_eyes(&self.look_at, &self.eyes, yaw, pitch, pose),
            LookAtKind::Expression => {
                let play = clip.and_then(|c| c.vrm.as_deref());
                let (expressions, mut weights) = match play {
                    Some(play) => (play.expressions.as_slice(), track_weights(play, t, None)),
                    None => (self.expressions.as_slice(), vec![0.0; self.expressions.len()]),
                };
                look_expressions(expressions, &self.look_at, yaw, pitch, &mut weights);
                apply_expressions(expressions, &weights, pose);
            }
        }
    }

    /// `look` from `head_world` (`None`: the head as `pose` has it), then `apply`.
    pub fn aim(
        &self,
        rig: &Rig,
        clip: Option<&Clip>,
        t: f32,
        head_world: Option<DMat4>,
        pose: &mut Pose,
    ) -> Look {
        let head = head_world.unwrap_or_else(|| self.head_world(rig, pose));
        let look = self.look(head);
        self.apply(clip, t, look, pose);
        look
    }
}

/// `getWorldQuaternionLite`: the rotation of a world matrix (`Matrix4.decompose`).
fn rotation_of(m: DMat4) -> DQuat {
    m.to_scale_rotation_translation().1
}

/// three.js `Vector3.normalize`: a zero vector stays zero.
fn normalize(v: DVec3) -> DVec3 {
    let length = v.length();
    if length == 0.0 { v } else { v / length }
}

/// `calcAzimuthAltitude`: (atan2(-z, x), atan2(y, the length in the xz plane)), radians.
fn azimuth_altitude(v: DVec3) -> (f64, f64) {
    let azimuth = (-v.z).atan2(v.x);
    let altitude = v.y.atan2((v.x * v.x + v.z * v.z).sqrt());
    (azimuth, altitude)
}

/// `sanitizeAngle`: `angle` less the nearest whole number of turns, with JavaScript's
/// `Math.round` (halves go up, so half a turn back stays -180 degrees).
fn sanitize_angle(angle: f64) -> f64 {
    let turns = js_round(angle / 2.0 / std::f64::consts::PI);
    angle - 2.0 * std::f64::consts::PI * turns
}

/// JavaScript's `Math.round`: the nearest integer, halves towards +infinity.
fn js_round(x: f64) -> f64 {
    let floor = x.floor();
    if x - floor >= 0.5 { floor + 1.0 } else { floor }
}

/// The world matrix of `node` in `pose`, in f64 as three.js composes it (`Matrix4.compose`
/// of each local position, quaternion and scale, or the file matrix).
fn world_of(rig: &Rig, pose: &Pose, node: usize) -> DMat4 {
    let mut world = DMat4::IDENTITY;
    let mut at = Some(node);
    let mut hops = 0;
    while let Some(n) = at.filter(|&n| n < rig.nodes.len() && hops <= rig.nodes.len()) {
        world = local_of(rig, pose, n) * world;
        at = rig.nodes[n].parent;
        hops += 1;
    }
    world
}

fn local_of(rig: &Rig, pose: &Pose, node: usize) -> DMat4 {
    let file_matrix =
        pose.use_matrix.get(node).copied().unwrap_or(false).then(|| rig.nodes[node].matrix).flatten();
    if let Some(m) = file_matrix {
        return m.as_dmat4();
    }
    let t = pose.locals.get(node).copied().unwrap_or_default();
    DMat4::from_scale_rotation_translation(
        t.scale.as_dvec3(),
        t.rotation.as_dquat(),
        t.translation.as_dvec3(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: a face looking down +Z sees +X at 90 degrees of yaw, up at -90 of pitch.
    #[test]
    fn azimuth_and_altitude_are_measured_from_the_face() {
        let (az, alt) = azimuth_altitude(DVec3::new(1.0, 1.0, 0.0));
        assert_eq!((az, alt), (0.0, std::f64::consts::FRAC_PI_4));
        let (front, _) = azimuth_altitude(DVec3::Z);
        assert_eq!(front, -std::f64::consts::FRAC_PI_2);
    }

    /// Half a turn each way wraps as JavaScript rounds: +pi and -pi both come out -pi,
    /// where Rust's own `round` would give +pi for -pi.
    #[test]
    fn half_turns_wrap_as_javascript_rounds_them() {
        let pi = std::f64::consts::PI;
        assert_eq!(sanitize_angle(pi), -pi);
        assert_eq!(sanitize_angle(-pi), -pi);
        assert_eq!(sanitize_angle(1.5 * pi), -0.5 * pi);
        assert_eq!(sanitize_angle(-1.5 * pi), 0.5 * pi);
        assert_eq!((js_round(-0.5), js_round(0.5), js_round(-1.5), js_round(2.4)), (0.0, 1.0, -1.0, 2.0));
    }

    /// `normalize` leaves zero alone, as three.js divides by `length() || 1`.
    #[test]
    fn a_zero_direction_stays_zero() {
        assert_eq!(normalize(DVec3::ZERO), DVec3::ZERO);
        assert_eq!(normalize(DVec3::new(0.0, 3.0, 4.0)), DVec3::new(0.0, 0.6, 0.8));
    }
}
