//! `walker-constraints-vrm1.vrm`: the walker VRM 1.0 avatar (nodes 0..=20 as in `vrm.rs`)
//! with twist and aim bones under `VRMC_node_constraint` 1.0, every kind three-vrm has:
//!
//! - 21 `upper_arm.L.twist` under the left upper arm: rotation, source 22, weight 0.5. Its
//!   source is another constraint's destination, listed after it, so the update order is
//!   not the file's;
//! - 22 `forearm.L.twist` under the left forearm: roll about X, source the left forearm,
//!   weight 0.6;
//! - 23 `forearm.R.twist` under the right forearm: roll about X, source the right upper arm
//!   (whose rest rotation is not the identity), weight 1;
//! - 24 `thigh.L.twist` under the left thigh: rotation, source the left shin, weight 0.3;
//! - 25 `look` under the neck, turned 0.3 rad about +Y: aim +Z at the left hand, weight 0.8;
//! - 26 `knee.aim` under 24 (so it waits for 24's constraint), turned 0.2 rad about +X: aim
//!   -Y at the right foot, weight 1.

use glam::{DQuat, DVec3};
use serde_json::{Value, json};

use super::trig::{rot_x, rot_y};
use super::vrm::walker_vrm1_builder;

const NECK: usize = 3;
const UPPER_ARM_L: usize = 5;
const FOREARM_L: usize = 6;
const HAND_L: usize = 7;
const UPPER_ARM_R: usize = 8;
const FOREARM_R: usize = 9;
const THIGH_L: usize = 11;
const SHIN_L: usize = 12;
const FOOT_R: usize = 16;

const EXTENSION: &str = "VRMC_node_constraint";

fn constraint(kind: &str, body: Value) -> Value {
    json!({ "specVersion": "1.0", "constraint": { kind: body } })
}

/// `walker-constraints-vrm1.vrm`.
pub fn walker_constraints_vrm1() -> Vec<u8> {
    let mut b = walker_vrm1_builder();
    let down = |y: f64| DVec3::new(0.0, y, 0.0);
    let upper_twist = b.node("upper_arm.L.twist", Some(UPPER_ARM_L), down(-0.14), DQuat::IDENTITY);
    let forearm_l = b.node("forearm.L.twist", Some(FOREARM_L), down(-0.12), DQuat::IDENTITY);
    let forearm_r = b.node("forearm.R.twist", Some(FOREARM_R), down(-0.12), DQuat::IDENTITY);
    let thigh = b.node("thigh.L.twist", Some(THIGH_L), down(-0.2), DQuat::IDENTITY);
    let look = b.node("look", Some(NECK), DVec3::new(0.0, 0.05, 0.08), rot_y(0.3));
    let knee = b.node("knee.aim", Some(thigh), DVec3::new(0.0, -0.1, 0.05), rot_x(0.2));
    debug_assert_eq!((upper_twist, knee), (21, 26));
    b.node_extension(
        upper_twist,
        EXTENSION,
        constraint("rotation", json!({ "source": forearm_l, "weight": 0.5 })),
    );
    b.node_extension(
        forearm_l,
        EXTENSION,
        constraint("roll", json!({ "source": FOREARM_L, "rollAxis": "X", "weight": 0.6 })),
    );
    b.node_extension(
        forearm_r,
        EXTENSION,
        constraint("roll", json!({ "source": UPPER_ARM_R, "rollAxis": "X", "weight": 1.0 })),
    );
    b.node_extension(thigh, EXTENSION, constraint("rotation", json!({ "source": SHIN_L, "weight": 0.3 })));
    b.node_extension(
        look,
        EXTENSION,
        constraint("aim", json!({ "source": HAND_L, "aimAxis": "PositiveZ", "weight": 0.8 })),
    );
    b.node_extension(
        knee,
        EXTENSION,
        constraint("aim", json!({ "source": FOOT_R, "aimAxis": "NegativeY", "weight": 1.0 })),
    );
    b.to_glb()
}
