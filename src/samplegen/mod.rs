//! samplegen: the project's own sample rigs, written deterministically from code.
//!
//! Every function returns the bytes of one file; nothing here touches the file system
//! (`examples/gen-samples.rs` writes them into `samples/`, and a test checks the committed
//! files still match). The same bytes come out on every run and machine: JSON objects have a
//! fixed key order, floats are written through one formatter, and sines come from `trig`
//! rather than the platform's libm.
//!
//! | file | what it exercises |
//! |---|---|
//! | `seed-arm.gltf` | the seed material's 5-joint teaching rig, LINE_LOOP outline, embedded buffer |
//! | `tentacle.glb` | a 10-joint chain, smooth 2-4 joint weights, LINEAR / STEP / CUBICSPLINE clips |
//! | `walker.glb` | a 17-joint humanoid with walk and idle cycles (the binary's default rig) |
//! | `bad-weights.glb` | deliberately broken weights at the vertices [`BAD_WEIGHTS_FAULTS`] lists |
//! | `walker-springs-300.vrm` | the walker as a VRM 1.0 avatar with 304 spring joints (hair, skirt), for timing springs |
//!
//! The VRM avatars made from the walker (`vrm_fixtures`) are test fixtures, written into
//! `tests/fixtures/vrm/`; `engine-weights.glb` (`engine_fixtures`), the weight problems engines
//! disagree on, is written into `tests/fixtures/engines/`.
//!
//! Each generator module documents its node and joint index layout.

mod bad_weights;
pub mod builder;
mod cycle;
mod engine_weights;
mod influences;
mod seed_arm;
mod shapes;
pub mod stress;
mod tentacle;
mod trig;
mod vrm;
mod vrm_constraints;
mod vrm_springs;
mod vrm_springs_many;
mod vrma;
mod walker;

pub use bad_weights::{BAD_WEIGHTS_FAULTS, bad_weights};
pub use engine_weights::{ENGINE_WEIGHTS_FAULTS, engine_weights};
pub use seed_arm::{SEED_ARM_JOINTS, SEED_ARM_OUTLINE, SEED_ARM_WEIGHTS, seed_arm};
pub use tentacle::tentacle;
pub use vrm::{walker_vrm0, walker_vrm1, walker_vrm1_gaze_expressions};
pub use vrm_constraints::walker_constraints_vrm1;
pub use vrm_springs::{walker_springs_vrm0, walker_springs_vrm1};
pub use vrm_springs_many::{HAIR_CHAINS, HAIR_NODES, SKIRT_CHAINS, SKIRT_NODES, walker_springs_300};
pub use vrma::walker_walk_vrma;
pub use walker::walker;

/// The `asset.generator` string of every sample.
pub const GENERATOR: &str = "rigscope samplegen";

/// Every sample as (file name in `samples/`, bytes), in a fixed order.
pub fn all() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("seed-arm.gltf", seed_arm()),
        ("tentacle.glb", tentacle()),
        ("walker.glb", walker()),
        ("bad-weights.glb", bad_weights()),
        ("walker-springs-300.vrm", walker_springs_300()),
    ]
}

/// The engine test fixtures as (file name in `tests/fixtures/engines/`, bytes).
pub fn engine_fixtures() -> Vec<(&'static str, Vec<u8>)> {
    vec![("engine-weights.glb", engine_weights())]
}

/// The VRM test fixtures as (file name in `tests/fixtures/vrm/`, bytes).
pub fn vrm_fixtures() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("walker-vrm1.vrm", walker_vrm1()),
        ("walker-vrm0.vrm", walker_vrm0()),
        ("walker-vrm1-gaze-expressions.vrm", walker_vrm1_gaze_expressions()),
        ("walker-walk.vrma", walker_walk_vrma()),
        ("walker-springs-vrm1.vrm", walker_springs_vrm1()),
        ("walker-springs-vrm0.vrm", walker_springs_vrm0()),
        ("walker-constraints-vrm1.vrm", walker_constraints_vrm1()),
    ]
}
