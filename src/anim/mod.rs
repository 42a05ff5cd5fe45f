//! Per-frame jobs: sample a clip into a `Pose`, turn it into world and joint matrices,
//! morph and skin every mesh primitive. `Workspace` owns every scratch buffer, sized once
//! per rig and reused each frame. `Playback` (time, speed, loop mode) is separate from sampling.
//! Everything here is pure: no I/O, no clock, and no panic on odd data from a file.
//!
//! The shape of it (other modules are written against these names):
//!
//! ```text
//! pub struct Pose { pub locals: Vec<Transform>, pub use_matrix: Vec<bool>, pub morph_weights: Vec<Vec<f32>> }
//! impl Pose { pub fn rest(rig: &Rig) -> Pose; pub fn reset(&mut self, rig: &Rig); }
//! pub fn sample(clip: &Clip, t: f32, pose: &mut Pose);
//! pub struct DeformedPrimitive { pub node: usize, pub mesh: usize, pub primitive: usize,
//!     pub skin: Option<usize>, pub instance: Option<usize>, pub positions: Vec<Vec3>,
//!     pub normals: Vec<Vec3> }
//! pub struct Workspace { pub pose: Pose, pub globals: Vec<Mat4>,
//!     pub joint_matrices: Vec<Vec<Mat4>>, pub primitives: Vec<DeformedPrimitive> }
//! impl Workspace { pub fn new(rig: &Rig) -> Self;
//!     pub fn evaluate(&mut self, rig: &Rig, clip: Option<&Clip>, t: f32); }
//! pub struct Playback { .. }  // time, speed, LoopMode { Loop, Once, PingPong }, paused
//! ```

mod bind;
mod crosscheck;
mod engine;
mod hierarchy;
mod interpolate;
mod morph;
mod palette;
mod playback;
mod pose;
mod pose_cache;
mod sample;
mod sampler;
mod skin_lanes;
mod skin_wide;
mod skinning;
mod tracks;
pub mod vrm_pose;
mod workspace;

#[cfg(test)]
pub(crate) mod test_rig;
#[cfg(test)]
mod tracks_tests;

pub use bind::{BindVerdict, PLACEMENT_TOLERANCE, RestBind, bind_placements};
pub use crosscheck::crosscheck;
pub use engine::{Drawn, Engine, Fate, drawn_influences, drawn_point, drawn_vertex, skinned_input};
pub use hierarchy::{bind_globals, compute_bind_globals, compute_globals, compute_joint_matrices};
pub use morph::morphed_position;
pub use playback::{LoopMode, Playback};
pub use pose::Pose;
pub use sample::{SampleInfo, key_count, sample, sample_channel};
pub use sampler::Sampler;
pub use skinning::{skin_point, skin_point_lists};
pub use workspace::{DeformedPrimitive, Workspace, model_size, model_size_at_bind};
