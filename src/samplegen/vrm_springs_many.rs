//! `walker-springs-300.vrm`: the VRM 1.0 walker avatar (`vrm.rs`, nodes 0..=20) with a few
//! hundred spring joints, the size of a VRoid avatar's hair and skirt, for timing the spring
//! bones (`rigscope bench`'s `springs` stage).
//!
//! - hair: 24 chains around the head, each a root under the head (turned `k / 24` of a turn
//!   about +Y, 12 cm up and 9 cm out) and 8 more nodes 4 cm apart going out and down: 9 nodes,
//!   8 joints that swing (the last node is only a tail), 192 in all;
//! - skirt: 16 chains around the hips, each a root 12 cm out and 7 more nodes 5 cm apart going
//!   down and out: 8 nodes, 7 joints, 112 in all.
//!
//! Node layout: hair chain `c` is nodes `21 + 9c ..= 29 + 9c` (`hair.c.0`..`hair.c.8`); skirt
//! chain `c` is nodes `237 + 8c ..= 244 + 8c` (`skirt.c.0`..`skirt.c.7`); 365 nodes.
//!
//! Colliders: a sphere on the head and one on the chest (group `head`, the hair's), a capsule
//! down each thigh and a sphere on the hips (group `legs`, the skirt's).

use glam::{DQuat, DVec3};
use serde_json::{Value, json};

use super::trig::{rot_y, sin_cos};
use super::vrm::walker_vrm1_builder;

const HIPS: usize = 0;
const CHEST: usize = 2;
const HEAD: usize = 4;
const THIGH_L: usize = 11;
const THIGH_R: usize = 14;

pub const HAIR_CHAINS: usize = 24;
pub const HAIR_NODES: usize = 9;
pub const SKIRT_CHAINS: usize = 16;
pub const SKIRT_NODES: usize = 8;

/// One chain of `count` nodes under `parent`: a root at `root` turned `turn` about +Y, each
/// further node `step` from the last in the root's space.
fn chain(
    b: &mut super::builder::GltfBuilder,
    name: &str,
    parent: usize,
    root: DVec3,
    turn: DQuat,
    step: DVec3,
    count: usize,
) -> Vec<usize> {
    let mut nodes = vec![b.node(&format!("{name}.0"), Some(parent), root, turn)];
    for i in 1..count {
        let last = nodes[i - 1];
        nodes.push(b.node(&format!("{name}.{i}"), Some(last), step, DQuat::IDENTITY));
    }
    nodes
}

/// A spring over `nodes`: every node a joint, the last only a tail.
fn spring(name: &str, nodes: &[usize], group: usize, stiffness: f64, drag: f64, radius: f64) -> Value {
    let last = nodes.len() - 1;
    let joints: Vec<Value> = nodes
        .iter()
        .enumerate()
        .map(|(i, &node)| {
            if i == last {
                json!({ "node": node })
            } else {
                json!({ "node": node, "hitRadius": radius, "stiffness": stiffness, "gravityPower": 0.5,
                        "gravityDir": [0.0, -1.0, 0.0], "dragForce": drag })
            }
        })
        .collect();
    json!({ "name": name, "colliderGroups": [group], "joints": joints })
}

/// `walker-springs-300.vrm`.
pub fn walker_springs_300() -> Vec<u8> {
    let mut b = walker_vrm1_builder();
    let mut springs = Vec::new();
    for c in 0..HAIR_CHAINS {
        let angle = std::f64::consts::TAU * c as f64 / HAIR_CHAINS as f64;
        let (s, co) = sin_cos(angle);
        let root = DVec3::new(0.09 * s, 0.12, 0.09 * co);
        let name = format!("hair.{c}");
        let nodes = chain(&mut b, &name, HEAD, root, rot_y(angle), DVec3::new(0.0, -0.03, 0.027), HAIR_NODES);
        springs.push(spring(&name, &nodes, 0, 1.0, 0.4, 0.01));
    }
    for c in 0..SKIRT_CHAINS {
        let angle = std::f64::consts::TAU * c as f64 / SKIRT_CHAINS as f64;
        let (s, co) = sin_cos(angle);
        let root = DVec3::new(0.12 * s, -0.02, 0.12 * co);
        let name = format!("skirt.{c}");
        let nodes =
            chain(&mut b, &name, HIPS, root, rot_y(angle), DVec3::new(0.0, -0.048, 0.014), SKIRT_NODES);
        springs.push(spring(&name, &nodes, 1, 1.5, 0.5, 0.015));
    }
    let capsule = |node: usize| json!({ "node": node, "shape": { "capsule": { "offset": [0.0, 0.0, 0.0], "radius": 0.07, "tail": [0.0, -0.4, 0.0] } } });
    b.extension(
        "VRMC_springBone",
        json!({
            "specVersion": "1.0",
            "colliders": [
                { "node": HEAD, "shape": { "sphere": { "offset": [0.0, 0.08, 0.0], "radius": 0.1 } } },
                { "node": CHEST, "shape": { "sphere": { "offset": [0.0, 0.05, 0.0], "radius": 0.14 } } },
                capsule(THIGH_L),
                capsule(THIGH_R),
                { "node": HIPS, "shape": { "sphere": { "offset": [0.0, 0.0, 0.0], "radius": 0.13 } } }
            ],
            "colliderGroups": [
                { "name": "head", "colliders": [0, 1] },
                { "name": "legs", "colliders": [2, 3, 4] }
            ],
            "springs": springs
        }),
    );
    b.to_glb()
}
