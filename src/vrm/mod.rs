//! VRM avatars in motion: the node constraints and the spring bones as three-vrm 3.5.5 loads
//! and updates them. The pose stages run after a clip is sampled, in three-vrm's `VRM.update`
//! order (the animation, then node constraints, then spring bones); nothing here reads files
//! or the clock: time advances only by the steps the caller asks for.

mod constraint_step;
mod constraints;
mod meta;
mod read_constraints;
mod read_springs;
mod spring_step;
mod springs;
mod three_math;

pub use constraints::{Axis, ConstraintKind, InitialState, NodeConstraint, NodeConstraints};
pub use meta::{Meta, read as read_meta};
pub use read_constraints::{Nodes, read as read_constraints};
pub use read_springs::{Problem, Tree, read as read_springs};
pub use spring_step::{SpringSim, step_count};
pub use springs::{Chain, Collider, ColliderGroup, JointSettings, Shape, SpringBones, SpringJoint};

use crate::anim::{Pose, Workspace};
use crate::rig::{Clip, Rig};

/// The default step: three-vrm's examples call `vrm.update` once per 60 Hz frame.
pub const DEFAULT_DT: f64 = 1.0 / 60.0;

/// The node constraint stage: three-vrm's `VRM.update` runs `nodeConstraintManager.update()`
/// after the humanoid, the lookAt and the expressions (`VRMCore.update`) and before the spring
/// bones. Does nothing for a rig without constraints.
pub fn constrain(rig: &Rig, pose: &mut Pose) {
    if let Some(vrm) = &rig.vrm
        && !vrm.constraints.is_empty()
    {
        constraint_step::apply(rig, &vrm.constraints, pose);
    }
}

/// Samples `clip` into `workspace`'s pose at the end of `steps` steps of `dt` from the clip's
/// start, the spring bones stepped once per step (`mixer.update(dt)` then `vrm.update(dt)`),
/// and returns the time reached. Without spring bones this is one sample at that time.
/// The caller then updates the matrices and skins.
pub fn simulate(rig: &Rig, clip: Option<&Clip>, steps: usize, dt: f64, workspace: &mut Workspace) -> f64 {
    Stepper::new(dt).advance_to(rig, clip, steps as f64 * dt, workspace);
    steps as f64 * dt
}

/// Spring bones stepped forward as time moves on: a clip played frame by frame takes only
/// the new steps each frame, and starts again from the initial state when time goes back
/// (a seek or a loop), as a fresh `simulate` would.
#[derive(Debug, Clone)]
pub struct Stepper {
    dt: f64,
    sim: Option<SpringSim>,
    /// Steps taken since the initial state.
    done: usize,
}

impl Stepper {
    pub fn new(dt: f64) -> Self {
        Self { dt, sim: None, done: 0 }
    }

    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Steps taken since the last reset.
    pub fn steps(&self) -> usize {
        self.done
    }

    /// Back to the initial state (the next `advance_to` starts from the clip's start).
    pub fn reset(&mut self) {
        self.sim = None;
        self.done = 0;
    }

    /// Leaves in `workspace`'s pose the frame after `step_count(t, dt)` steps (matrices and
    /// skinning are the caller's), stepping on from where the last call left off.
    pub fn advance_to(&mut self, rig: &Rig, clip: Option<&Clip>, t: f64, workspace: &mut Workspace) -> usize {
        let target = step_count(t, self.dt);
        let springs = rig.vrm.as_ref().map(|v| &v.springs).filter(|s| !s.is_empty());
        let Some(springs) = springs else {
            workspace.sample_pose(rig, clip, (target as f64 * self.dt) as f32);
            self.done = target;
            return target;
        };
        if self.sim.is_none() || target < self.done {
            self.sim = Some(SpringSim::new(rig, springs));
            self.done = 0;
        }
        let Some(sim) = self.sim.as_mut() else { return 0 };
        if self.done == target {
            // Nothing to step: the pose is the last step's, sampled again.
            workspace.sample_pose(rig, clip, (target as f64 * self.dt) as f32);
            sim.apply(&mut workspace.pose);
        }
        while self.done < target {
            self.done += 1;
            workspace.sample_pose(rig, clip, (self.done as f64 * self.dt) as f32);
            sim.step(rig, &mut workspace.pose, self.dt);
        }
        target
    }
}

/// `Workspace::evaluate` with the spring bones stepped: the frame after the whole number of
/// steps of `dt` nearest to `t`. Returns the number of steps.
pub fn evaluate(rig: &Rig, clip: Option<&Clip>, t: f64, dt: f64, workspace: &mut Workspace) -> usize {
    let steps = step_count(t, dt);
    simulate(rig, clip, steps, dt, workspace);
    workspace.update_matrices(rig);
    workspace.skin(rig);
    steps
}

#[cfg(test)]
mod tests;
