//! One rig's terms for retargeting (`../shared/docs/skinning.md`, "Clips from another file"):
//! its reference pose (`bind` from the inverse bind matrices, or `rest`), each joint's world
//! rotation there `R(j)`, its body frame `F` from the humanoid landmarks and its hips height
//! `H`. Pure: `retarget` builds keys from two of these, `fit` reports them.

use glam::{Mat3, Mat4, Quat, Vec3};

use super::landmarks::{Landmark, Landmarks};
use crate::anim::{Pose, RestBind, bind_globals, compute_bind_globals, compute_globals};
use crate::rig::Rig;

/// Which pose a clip's change of each bone is measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReferencePose {
    /// The pose the mesh was bound in, from the inverse bind matrices.
    #[default]
    Bind,
    /// The nodes' own rest transforms.
    Rest,
}

impl ReferencePose {
    pub fn label(self) -> &'static str {
        match self {
            ReferencePose::Bind => "bind",
            ReferencePose::Rest => "rest",
        }
    }
}

/// A rig in its reference pose, seen as a body.
#[derive(Debug, Clone)]
pub struct Body {
    /// World matrix of every node in the reference pose.
    pub globals: Vec<Mat4>,
    /// `R(j)`: the rotation of each world matrix, scale divided out.
    pub rotations: Vec<Quat>,
    pub landmarks: Landmarks,
    /// `F`: columns left, up, forward; `None` without hips, a top and a left-right pair.
    pub frame: Option<Quat>,
    /// `H`: the hips above the lowest joint along the body's up (world up without a frame);
    /// `None` without hips.
    pub hips_height: Option<f32>,
}

impl Body {
    pub fn new(rig: &Rig, reference: ReferencePose) -> Body {
        let globals = reference_globals(rig, reference);
        let rotations = globals.iter().map(|m| world_rotation(m).unwrap_or(Quat::IDENTITY)).collect();
        let landmarks = Landmarks::find(rig);
        let at = |l: Option<usize>| l.and_then(|n| globals.get(n)).map(|m| m.w_axis.truncate());
        let frame = body_frame(&landmarks, at);
        let up = frame.map_or(Vec3::Y, |f| f * Vec3::Y);
        let lowest = joints(rig).filter_map(|j| at(Some(j))).map(|p| p.dot(up)).min_by(f32::total_cmp);
        let hips_height = at(landmarks.get(Landmark::Hips)).map(|h| h.dot(up) - lowest.unwrap_or(0.0));
        Body { globals, rotations, landmarks, frame, hips_height }
    }

    /// The 3x3 part (rotation and scale) of `node`'s reference world matrix; identity for none.
    pub fn linear(&self, node: Option<usize>) -> Mat3 {
        node.and_then(|n| self.globals.get(n)).map_or(Mat3::IDENTITY, |m| Mat3::from_mat4(*m))
    }

    /// `R(node)`; identity for none.
    pub fn rotation(&self, node: Option<usize>) -> Quat {
        node.and_then(|n| self.rotations.get(n)).copied().unwrap_or(Quat::IDENTITY)
    }

    /// `node`'s reference local transform: `inverse(G(parent)) * G(node)`.
    pub fn local(&self, rig: &Rig, node: usize) -> Mat4 {
        let own = self.globals.get(node).copied().unwrap_or(Mat4::IDENTITY);
        match rig.nodes.get(node).and_then(|n| n.parent).and_then(|p| self.globals.get(p)) {
            Some(parent) => parent.inverse() * own,
            None => own,
        }
    }
}

/// Every node's world matrix in `reference`. Bind: a joint of the first skin that lists it
/// sits at `X * inverse(IBM)`, `X = G_rest(r) * IBM(r)` for that skin's root joint `r`; other
/// nodes take their rest local under their parent.
pub fn reference_globals(rig: &Rig, reference: ReferencePose) -> Vec<Mat4> {
    let pose = Pose::rest(rig);
    let mut rest = vec![Mat4::IDENTITY; rig.nodes.len()];
    compute_globals(rig, &pose, &mut rest);
    if reference == ReferencePose::Rest {
        return rest;
    }
    let placements: Vec<Mat4> = (0..rig.skins.len())
        .map(|s| {
            RestBind::measure(rig, s, &rest)
                .common
                .filter(|x| x.is_finite() && x.determinant().abs() > f32::MIN_POSITIVE)
                .unwrap_or(Mat4::IDENTITY)
        })
        .collect();
    let bind = bind_globals(rig, &placements);
    let mut globals = rest;
    compute_bind_globals(rig, &pose, &bind, &mut globals);
    globals
}

/// The rotation of a world matrix with its scale divided out (columns normalised); `None`
/// when a column has collapsed (a zero scale) or a number is not finite, where no rotation
/// is defined.
pub fn world_rotation(m: &Mat4) -> Option<Quat> {
    let (scale, rotation, _) = m.to_scale_rotation_translation();
    let defined = scale.is_finite() && scale.abs().min_element() > f32::MIN_POSITIVE;
    defined.then(|| rotation.normalize()).filter(|q| q.is_finite())
}

/// The angle between two rotations in radians, accurate near zero (where `acos` of a dot
/// product is not: its f32 floor is 7e-4 rad).
pub fn angle(a: Quat, b: Quat) -> f32 {
    let d = a.normalize() * b.normalize().inverse();
    2.0 * d.xyz().length().atan2(d.w.abs())
}

/// The skin joints of `rig`, or every node when it has no skin.
fn joints(rig: &Rig) -> Box<dyn Iterator<Item = usize> + '_> {
    if rig.skins.iter().any(|s| !s.joints.is_empty()) {
        Box::new(rig.skins.iter().flat_map(|s| s.joints.iter().copied()))
    } else {
        Box::new(0..rig.nodes.len())
    }
}

/// `F` from the landmark positions: up from the hips to the top, left from the right upper
/// arm to the left one (the upper legs without arms) made orthogonal to up, forward = left x up.
fn body_frame(landmarks: &Landmarks, at: impl Fn(Option<usize>) -> Option<Vec3>) -> Option<Quat> {
    let up = (at(landmarks.top())? - at(landmarks.get(Landmark::Hips))?).try_normalize()?;
    let pair = |l: Landmark, r: Landmark| Some(at(landmarks.get(l))? - at(landmarks.get(r))?);
    let across = pair(Landmark::LeftUpperArm, Landmark::RightUpperArm)
        .filter(|d| d.reject_from(up).length() > 1e-6)
        .or_else(|| pair(Landmark::LeftUpperLeg, Landmark::RightUpperLeg))?;
    let left = across.reject_from(up).try_normalize()?;
    let forward = left.cross(up);
    Some(Quat::from_mat3(&Mat3::from_cols(left, up, forward)).normalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walker() -> Rig {
        crate::import::load_bytes(&crate::samplegen::walker(), "walker.glb", None).unwrap()
    }

    #[test]
    fn the_walker_faces_z_with_its_left_on_x_and_its_hips_at_their_height() {
        let body = Body::new(&walker(), ReferencePose::Bind);
        let frame = body.frame.expect("frame");
        assert!(angle(frame, Quat::IDENTITY) < 1e-5, "{frame:?}");
        // samplegen's walker: hips at 0.95 over a sole at 0, the lowest joint (the feet) at
        // 0.95 - 0.06 - 0.42 - 0.39 = 0.08.
        assert!((body.hips_height.unwrap() - 0.87).abs() < 1e-5, "{:?}", body.hips_height);
    }

    #[test]
    fn bind_comes_from_the_inverse_bind_matrices_whatever_the_rest_says() {
        let mut rig = walker();
        let arm = rig.nodes.iter().position(|n| n.name.as_deref() == Some("upper_arm.L")).unwrap();
        let bound = Body::new(&rig, ReferencePose::Bind).globals[arm];
        rig.nodes[arm].rest.rotation = Quat::from_rotation_x(-1.2) * rig.nodes[arm].rest.rotation;
        let bind = Body::new(&rig, ReferencePose::Bind);
        let rest = Body::new(&rig, ReferencePose::Rest);
        assert!(bind.globals[arm].abs_diff_eq(bound, 1e-6));
        let turned = rest.rotations[arm] * bind.rotations[arm].inverse();
        assert!((angle(turned, Quat::IDENTITY) - 1.2).abs() < 1e-5);
    }
}
