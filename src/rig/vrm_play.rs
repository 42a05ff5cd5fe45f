//! What a bound `.vrma` clip plays beyond node channels: the avatar's expressions and its
//! gaze, resolved against the avatar once at bind time (`vrma::bind`) so that the pose step
//! (`anim::vrm_pose`) is a few products per frame. Data only.

use super::{Channel, LookAt, Overrides};
use glam::Quat;

/// The VRM part of a bound clip.
#[derive(Debug, Clone)]
pub struct VrmPlay {
    /// Every expression of the avatar in file order: three-vrm clears and re-applies all of
    /// them each frame, animated or not.
    pub expressions: Vec<PlayedExpression>,
    /// The gaze track (a rotation, three-vrm's `VRMLookAtQuaternionProxy` track; its `node` is
    /// the .vrma's lookAt node, not an avatar node), when both the animation and the avatar
    /// have a lookAt.
    pub gaze: Option<Gaze>,
}

/// One avatar expression and the track that drives it, if any.
#[derive(Debug, Clone)]
pub struct PlayedExpression {
    /// The name three-vrm knows it by (VRM 0.x presets under their VRM 1.0 names).
    pub name: String,
    /// A translation track whose x is the weight.
    pub track: Option<Channel>,
    pub is_binary: bool,
    pub overrides: Overrides,
    /// (avatar node, morph target, weight at full expression).
    pub binds: Vec<(usize, usize, f32)>,
}

/// The gaze track and how the avatar applies it.
#[derive(Debug, Clone)]
pub struct Gaze {
    pub track: Channel,
    pub look_at: LookAt,
    /// The eye bones the bone type turns (empty for the expression type).
    pub eyes: Vec<Eye>,
}

/// An eye bone: `local = Pr⁻¹ n Pr R` for a normalized eye rotation `n`.
#[derive(Debug, Clone, Copy)]
pub struct Eye {
    pub node: usize,
    pub left: bool,
    /// Rest world rotation of the eye's parent (`Pr`).
    pub parent_rest: Quat,
    /// The eye's rest rotation (`R`).
    pub rest: Quat,
}
