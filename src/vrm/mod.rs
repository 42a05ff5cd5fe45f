//! VRM avatars in motion: the spring bones (and their stepping) as three-vrm 3.5.5 loads and
//! updates them. The pose stages run after a clip is sampled, in three-vrm's `VRM.update`
//! order (the animation, then node constraints, then spring bones); nothing here reads files
//! or the clock: time advances only by the steps the caller asks for.

mod read_springs;
mod spring_step;
mod springs;

pub use read_springs::{Problem, Tree, read as read_springs};
pub use spring_step::{SpringSim, step_count};
pub use springs::{Chain, Collider, ColliderGroup, JointSettings, Shape, SpringBones, SpringJoint};

use crate::anim::Workspace;
use crate::rig::{Clip, Rig};

/// The default step: three-vrm's examples call `vrm.update` once per 60 Hz frame.
pub const DEFAULT_DT: f64 = 1.0 / 60.0;

/// Samples `clip` into `workspace`'s pose at the end of `steps` steps of `dt` from the clip's
/// start, the spring bones stepped once per step (`mixer.update(dt)` then `vrm.update(dt)`),
/// and returns the time reached. Without spring bones this is one sample at that time.
/// The caller then updates the matrices and skins.
pub fn simulate(rig: &Rig, clip: Option<&Clip>, steps: usize, dt: f64, workspace: &mut Workspace) -> f64 {
    let springs = rig.vrm.as_ref().map(|v| &v.springs).filter(|s| !s.is_empty());
    let Some(springs) = springs else {
        let t = steps as f64 * dt;
        workspace.sample_pose(rig, clip, t as f32);
        return t;
    };
    let mut sim = SpringSim::new(rig, springs);
    workspace.sample_pose(rig, clip, 0.0);
    for k in 1..=steps {
        workspace.sample_pose(rig, clip, (k as f64 * dt) as f32);
        sim.step(rig, &mut workspace.pose, dt);
    }
    steps as f64 * dt
}
