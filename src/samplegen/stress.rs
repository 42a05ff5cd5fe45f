//! Files that are small to store but large to process: shapes a hostile sweep found quadratic,
//! at any size, for the benchmarks that keep their cost linear. Every node is unskinned and
//! every clip's channels share one timeline, so the file grows by a few dozen bytes per node
//! or channel.

use glam::{DQuat, DVec3};

use super::builder::{GltfBuilder, Interpolation, Track};

/// Two keys a second apart.
const TIMES: [f32; 2] = [0.0, 1.0];

fn turn() -> [DQuat; 2] {
    [DQuat::IDENTITY, DQuat::from_rotation_y(0.5)]
}

/// A library of `nodes` animated nodes under one root (`lib_0` ...), none of them a node of
/// any character: one clip, a rotation channel per node.
pub fn unbound_library(nodes: usize) -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let root = b.node("lib_root", None, DVec3::ZERO, DQuat::IDENTITY);
    let tracks: Vec<Track> = (0..nodes)
        .map(|i| {
            let n = b.node(&format!("lib_{i}"), Some(root), DVec3::X, DQuat::IDENTITY);
            Track::rotations(n, Interpolation::Linear, &TIMES, &turn())
        })
        .collect();
    b.animation("everything", &tracks);
    b.to_glb()
}

/// `nodes` nodes under one root named `node_0` ... (a character for maps that name nothing in
/// it, and for libraries that bind nothing).
pub fn wide_rig(nodes: usize) -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let root = b.node("root", None, DVec3::ZERO, DQuat::IDENTITY);
    for i in 0..nodes {
        b.node(&format!("node_{i}"), Some(root), DVec3::X, DQuat::IDENTITY);
    }
    b.to_glb()
}

/// A chain of four nodes (`hips`, `spine`, `neck`, `head`) with `clips` clips, each turning
/// one of them.
pub fn many_clips(clips: usize) -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let mut parent = None;
    let mut chain = Vec::new();
    for name in ["hips", "spine", "neck", "head"] {
        let n = b.node(name, parent, DVec3::Y, DQuat::IDENTITY);
        chain.push(n);
        parent = Some(n);
    }
    for c in 0..clips {
        let node = chain[c % chain.len()];
        b.animation(&format!("clip_{c}"), &[Track::rotations(node, Interpolation::Linear, &TIMES, &turn())]);
    }
    b.to_glb()
}

/// `roots` separate root nodes (`root_0` ...), each turned by the one clip: every one binds
/// to the same-named root of a copy of the file.
pub fn many_roots(roots: usize) -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let tracks: Vec<Track> = (0..roots)
        .map(|i| {
            let n = b.node(&format!("root_{i}"), None, DVec3::new(i as f64, 0.0, 0.0), DQuat::IDENTITY);
            Track::rotations(n, Interpolation::Linear, &TIMES, &turn())
        })
        .collect();
    b.animation("turn", &tracks);
    b.to_glb()
}

/// A chain of `nodes` nodes (`bone_0` the root), each with a rotation channel of `keys` keys
/// on one shared timeline of 30 keys a second.
pub fn long_chain(nodes: usize, keys: usize) -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let times: Vec<f32> = (0..keys).map(|k| k as f32 / 30.0).collect();
    let mut parent = None;
    let mut tracks = Vec::with_capacity(nodes);
    for i in 0..nodes {
        let n = b.node(&format!("bone_{i}"), parent, DVec3::new(0.0, 0.1, 0.0), DQuat::IDENTITY);
        parent = Some(n);
        let values: Vec<DQuat> =
            (0..keys).map(|k| DQuat::from_rotation_z(((k + i) % 7) as f64 * 0.01)).collect();
        tracks.push(Track::rotations(n, Interpolation::Linear, &times, &values));
    }
    b.animation("bend", &tracks);
    b.to_glb()
}

/// A `--map` file of `lines` lines sending `unbound_library`'s nodes to nodes no rig has
/// (`lib_N phantom_N`).
pub fn unmatched_map(lines: usize) -> String {
    (0..lines).map(|i| format!("lib_{i} phantom_{i}\n")).collect()
}
