//! VRM avatars in motion: the node constraints and the spring bones as three-vrm 3.5.5 loads
//! and updates them. The pose stages run after a clip is sampled, in three-vrm's `VRM.update`
//! order (the animation, then node constraints, then spring bones); nothing here reads files
//! or the clock: time advances only by the steps the caller asks for.

mod constraint_step;
mod constraints;
mod look_at;
mod meta;
mod read_constraints;
mod read_springs;
mod spring_step;
mod springs;
mod three_math;

pub use constraints::{Axis, ConstraintKind, InitialState, NodeConstraint, NodeConstraints};
pub use look_at::{Aim, Look, LookAtTarget, NoGaze};
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
    /// The gaze's target, aimed each step before the springs move.
    look_at: Option<LookAtTarget>,
    /// The gaze of the last step.
    look: Option<Look>,
}

impl Stepper {
    pub fn new(dt: f64) -> Self {
        Self { dt, sim: None, done: 0, look_at: None, look: None }
    }

    /// Each step aims the gaze at `target` (or at nothing) between sampling and the springs.
    pub fn with_look_at(mut self, target: Option<LookAtTarget>) -> Self {
        self.set_look_at(target);
        self
    }

    /// Changes the gaze's target. The steps already taken keep the gaze they had; the
    /// springs do not restart, as three-vrm's do not when `lookAt.target` moves.
    pub fn set_look_at(&mut self, target: Option<LookAtTarget>) {
        self.look_at = target;
    }

    /// The gaze of the frame `advance_to` left, when a target is set.
    pub fn look(&self) -> Option<Look> {
        self.look_at.as_ref().and(self.look)
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
        self.look = None;
    }

    /// The clip time the next step samples at.
    pub fn next_step_time(&self) -> f32 {
        ((self.done + 1) as f64 * self.dt) as f32
    }

    /// Takes the next step once `pose` holds the clip sampled at `next_step_time`: the stages
    /// three-vrm's `vrm.update` runs after the humanoid bones and the expression tracks (the
    /// gaze, then the spring bones). `false`, and nothing done, without spring bones.
    pub fn step_sampled(&mut self, rig: &Rig, clip: Option<&Clip>, pose: &mut Pose) -> bool {
        let Some(springs) = rig.vrm.as_ref().map(|v| &v.springs).filter(|s| !s.is_empty()) else {
            return false;
        };
        let t = self.next_step_time();
        let sim = self.sim.get_or_insert_with(|| SpringSim::new(rig, springs));
        if let Some(look_at) = &self.look_at {
            // The head as the last step's render left it (three.js's stored matrixWorld).
            let head = sim.stored_world(look_at.head());
            self.look = Some(look_at.aim(rig, clip, t, Some(head), pose));
        }
        sim.step(rig, pose, self.dt);
        self.done += 1;
        true
    }

    /// Leaves in `workspace`'s pose the frame after `step_count(t, dt)` steps (matrices and
    /// skinning are the caller's), stepping on from where the last call left off.
    pub fn advance_to(&mut self, rig: &Rig, clip: Option<&Clip>, t: f64, workspace: &mut Workspace) -> usize {
        let target = step_count(t, self.dt);
        let springs = rig.vrm.as_ref().map(|v| &v.springs).filter(|s| !s.is_empty());
        let Some(springs) = springs else {
            let t = (target as f64 * self.dt) as f32;
            workspace.sample_pose(rig, clip, t);
            if let Some(look_at) = &self.look_at {
                self.look = Some(look_at.aim(rig, clip, t, None, &mut workspace.pose));
            }
            self.done = target;
            return target;
        };
        if self.sim.is_none() || target < self.done {
            self.reset();
            self.sim = Some(SpringSim::new(rig, springs));
        }
        if self.done == target {
            // Nothing to step: the pose is the last step's, sampled again.
            let t = (target as f64 * self.dt) as f32;
            workspace.sample_pose(rig, clip, t);
            if let (Some(look_at), Some(look)) = (&self.look_at, self.look) {
                look_at.apply(clip, t, look, &mut workspace.pose);
            }
            if let Some(sim) = &self.sim {
                sim.apply(&mut workspace.pose);
            }
        }
        while self.done < target {
            workspace.sample_pose(rig, clip, self.next_step_time());
            if !self.step_sampled(rig, clip, &mut workspace.pose) {
                break;
            }
        }
        target
    }
}

/// Leaves in `workspace`'s pose the frame at `t` with the gaze aimed at `look_at`
/// (matrices and skinning are the caller's). With `dt`, the spring bones are stepped from the
/// clip's start as `simulate` does, each step's gaze seen from the head as the last step left
/// it; the frame after no step is the loaded state, which no gaze has moved (`None`).
/// Without, a held frame: the gaze is seen from the head as this pose places it.
pub fn sample_aimed(
    rig: &Rig,
    clip: Option<&Clip>,
    t: f64,
    dt: Option<f64>,
    look_at: &LookAtTarget,
    workspace: &mut Workspace,
) -> Option<Look> {
    match dt {
        Some(dt) => {
            let mut stepper = Stepper::new(dt).with_look_at(Some(look_at.clone()));
            stepper.advance_to(rig, clip, t, workspace);
            stepper.look()
        }
        None => {
            workspace.sample_pose(rig, clip, t as f32);
            Some(look_at.aim(rig, clip, t as f32, None, &mut workspace.pose))
        }
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
