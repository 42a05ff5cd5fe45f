//! `bad-weights.glb`: a strip rig whose skin weights are broken on purpose, each fault at a
//! known vertex listed in [`BAD_WEIGHTS_FAULTS`], so diagnostics can be checked exactly.
//!
//! Node layout: nodes 0..=5 are joints `j0`..`j5` (a chain along +X, 0.5 apart; joint index ==
//! node index), node 6 `strips` holds mesh 0 (two primitives) and skin 0.
//!
//! Both primitives are a strip of 12 quads: columns c = 0..=12 at x = 0.25 c, vertex 2c at the
//! bottom edge and 2c + 1 at the top, so every fault sits on a top edge and the bottom edges
//! stay clean. Clean vertices blend the two joints around them (joint k at x = 0.5 k).
//! Primitive 0 (y -0.1..0.1) has float WEIGHTS_0 plus JOINTS_1/WEIGHTS_1; primitive 1
//! (y 0.3..0.5) has normalised u8 WEIGHTS_0 that sum to exactly 255 except at one vertex.
//! Clip: `wiggle` (2 s).

use glam::{DQuat, DVec3};
use serde_json::json;

use super::builder::{GltfBuilder, Interpolation, Kind, MODE_TRIANGLES, Track, Usage};
use super::cycle::{looping, timeline};
use super::trig::{rot_z, sin};

/// (code, primitive, vertex) of every fault, exactly as the Khronos glTF-Validator
/// (2.0.0-dev.3.10) reports them, plus rigscope's own RIG_MORE_THAN_4_INFLUENCES. Every other
/// vertex of both primitives is clean: weights >= 0 summing to 1, distinct in-range joints,
/// joint 0 in unused slots, at most 4 influences.
///
/// The validator's weight sum leaves out negative weights, out-of-range joints and a repeated
/// joint's later slots, so the negative, out-of-range and duplicate vertices (9, 13, 15) are
/// also NON_NORMALIZED to it (sums 1.25, 0.5, 0.5) although their stored weights add up to 1.
/// A NaN makes the sum NaN, which it does not report as non-normalised.
pub const BAD_WEIGHTS_FAULTS: &[(&str, usize, usize)] = &[
    ("ACCESSOR_WEIGHTS_NON_NORMALIZED", 0, 1), // sum 0.999
    ("ACCESSOR_WEIGHTS_NON_NORMALIZED", 0, 3), // sum 0.5
    ("ACCESSOR_WEIGHTS_NON_NORMALIZED", 0, 5), // sum 1.6
    ("ACCESSOR_WEIGHTS_NON_NORMALIZED", 0, 7), // all zero
    ("ACCESSOR_WEIGHTS_NEGATIVE", 0, 9),
    ("ACCESSOR_WEIGHTS_NON_NORMALIZED", 0, 9),
    ("ACCESSOR_INVALID_FLOAT", 0, 11),
    ("ACCESSOR_JOINTS_INDEX_OOB", 0, 13),
    ("ACCESSOR_WEIGHTS_NON_NORMALIZED", 0, 13),
    ("ACCESSOR_JOINTS_INDEX_DUPLICATE", 0, 15),
    ("ACCESSOR_WEIGHTS_NON_NORMALIZED", 0, 15),
    ("ACCESSOR_JOINTS_USED_ZERO_WEIGHT", 0, 17),
    ("RIG_MORE_THAN_4_INFLUENCES", 0, 19),
    ("ACCESSOR_WEIGHTS_NON_NORMALIZED", 1, 5), // u8 128 + 128 = 256
];

const JOINTS: usize = 6;
const COLUMNS: usize = 13;

/// A vertex's (JOINTS_0, WEIGHTS_0, JOINTS_1, WEIGHTS_1).
type SlotSets = ([u8; 4], [f32; 4], [u8; 4], [f32; 4]);

/// One faulty vertex of primitive 0: (vertex, JOINTS_0, WEIGHTS_0, JOINTS_1, WEIGHTS_1).
type Faulty = (usize, [u8; 4], [f32; 4], [u8; 4], [f32; 4]);

const NO_SET_1: ([u8; 4], [f32; 4]) = ([0; 4], [0.0; 4]);

const FAULTY: [Faulty; 10] = [
    // Sum 0.999: off by a little.
    (1, [0, 0, 0, 0], [0.999, 0.0, 0.0, 0.0], NO_SET_1.0, NO_SET_1.1),
    // Sum 0.5.
    (3, [0, 1, 0, 0], [0.25, 0.25, 0.0, 0.0], NO_SET_1.0, NO_SET_1.1),
    // Sum 1.6.
    (5, [1, 0, 0, 0], [1.6, 0.0, 0.0, 0.0], NO_SET_1.0, NO_SET_1.1),
    // All zero, joints all 0 so that nothing else is wrong.
    (7, [0, 0, 0, 0], [0.0, 0.0, 0.0, 0.0], NO_SET_1.0, NO_SET_1.1),
    // A negative weight; the sum is still 1.
    (9, [2, 3, 0, 0], [1.25, -0.25, 0.0, 0.0], NO_SET_1.0, NO_SET_1.1),
    // NaN in the first slot.
    (11, [2, 3, 0, 0], [f32::NAN, 0.5, 0.0, 0.0], NO_SET_1.0, NO_SET_1.1),
    // Joint 7 with only six joints in the skin.
    (13, [3, 7, 0, 0], [0.5, 0.5, 0.0, 0.0], NO_SET_1.0, NO_SET_1.1),
    // Joint 3 twice, both slots weighted.
    (15, [3, 3, 0, 0], [0.5, 0.5, 0.0, 0.0], NO_SET_1.0, NO_SET_1.1),
    // Joint 2 named in a slot whose weight is 0.
    (17, [4, 2, 0, 0], [1.0, 0.0, 0.0, 0.0], NO_SET_1.0, NO_SET_1.1),
    // Five distinct joints over two sets; the weights are exact binary fractions summing to 1.
    (19, [4, 5, 3, 2], [0.25, 0.25, 0.125, 0.125], [1, 0, 0, 0], [0.25, 0.0, 0.0, 0.0]),
];

/// The vertex of primitive 1 whose u8 weights sum to 256.
const U8_FAULT_VERTEX: usize = 5;

pub fn bad_weights() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let joints = strip_joints(&mut b);
    let skin = b.skin("strip", &joints, 0);

    let float_strip = float_primitive(&mut b);
    let byte_strip = byte_primitive(&mut b);
    let mesh = b.mesh("strips", vec![float_strip, byte_strip]);
    b.mesh_node("strips", mesh, Some(skin));
    wiggle(&mut b, &joints);
    b.to_glb()
}

/// Joints `j0`..`j5`, a chain along +X 0.5 apart (joint index == node index).
pub(super) fn strip_joints(b: &mut GltfBuilder) -> Vec<usize> {
    let mut joints = Vec::with_capacity(JOINTS);
    for k in 0..JOINTS {
        let (parent, offset) = match joints.last() {
            Some(&p) => (Some(p), DVec3::new(0.5, 0.0, 0.0)),
            None => (None, DVec3::ZERO),
        };
        joints.push(b.node(&format!("j{k}"), parent, offset, DQuat::IDENTITY));
    }
    joints
}

/// The `wiggle` clip (2 s): every joint but the first turns about z, each a little later.
pub(super) fn wiggle(b: &mut GltfBuilder, joints: &[usize]) {
    const INTERVALS: usize = 8;
    let times = timeline(2.0, INTERVALS);
    let tracks: Vec<Track> = joints
        .iter()
        .enumerate()
        .skip(1)
        .map(|(k, &node)| {
            let keys = looping(INTERVALS, |p| rot_z(0.25 * sin(p - 0.5 * k as f64)));
            Track::rotations(node, Interpolation::Linear, &times, &keys)
        })
        .collect();
    b.animation("wiggle", &tracks);
}

/// Positions of a strip between `y0` and `y1`, and its triangles facing +Z.
pub(super) fn strip(y0: f64, y1: f64) -> (Vec<DVec3>, Vec<u32>) {
    let positions = (0..COLUMNS)
        .flat_map(|c| {
            let x = 0.25 * c as f64;
            [DVec3::new(x, y0, 0.0), DVec3::new(x, y1, 0.0)]
        })
        .collect();
    let indices = (0..COLUMNS as u32 - 1)
        .flat_map(|c| {
            let v = 2 * c;
            [v, v + 2, v + 1, v + 1, v + 2, v + 3]
        })
        .collect();
    (positions, indices)
}

/// Clean influences of column `c`: joint k at x = 0.5 k, halves in between.
fn clean(c: usize) -> [(u8, f32); 2] {
    let k = u8::try_from(c / 2).unwrap_or(0);
    let last = u8::try_from(JOINTS - 1).unwrap_or(0);
    if c % 2 == 1 && k < last { [(k, 0.5), (k + 1, 0.5)] } else { [(k.min(last), 1.0), (0, 0.0)] }
}

fn float_primitive(b: &mut GltfBuilder) -> serde_json::Value {
    let (positions, indices) = strip(-0.1, 0.1);
    let mut sets: Vec<SlotSets> = (0..positions.len())
        .map(|v| {
            let [(j0, w0), (j1, w1)] = clean(v / 2);
            ([j0, j1, 0, 0], [w0, w1, 0.0, 0.0], NO_SET_1.0, NO_SET_1.1)
        })
        .collect();
    for &(vertex, j0, w0, j1, w1) in &FAULTY {
        if let Some(slot) = sets.get_mut(vertex) {
            *slot = (j0, w0, j1, w1);
        }
    }
    let joints_0: Vec<u8> = sets.iter().flat_map(|s| s.0).collect();
    let weights_0: Vec<f32> = sets.iter().flat_map(|s| s.1).collect();
    let joints_1: Vec<u8> = sets.iter().flat_map(|s| s.2).collect();
    let weights_1: Vec<f32> = sets.iter().flat_map(|s| s.3).collect();
    let position = b.positions(&positions);
    let joints_0 = b.accessor(&joints_0, Kind::Vec4, Usage::VERTEX);
    let weights_0 = b.accessor(&weights_0, Kind::Vec4, Usage::VERTEX);
    let joints_1 = b.accessor(&joints_1, Kind::Vec4, Usage::VERTEX);
    let weights_1 = b.accessor(&weights_1, Kind::Vec4, Usage::VERTEX);
    let indices = b.indices(&indices);
    json!({
        "attributes": {
            "POSITION": position,
            "JOINTS_0": joints_0,
            "WEIGHTS_0": weights_0,
            "JOINTS_1": joints_1,
            "WEIGHTS_1": weights_1,
        },
        "indices": indices,
        "mode": MODE_TRIANGLES,
    })
}

fn byte_primitive(b: &mut GltfBuilder) -> serde_json::Value {
    let (positions, indices) = strip(0.3, 0.5);
    let mut joints = Vec::with_capacity(positions.len() * 4);
    let mut weights = Vec::with_capacity(positions.len() * 4);
    for v in 0..positions.len() {
        let [(j0, w0), (j1, _)] = clean(v / 2);
        let (j1, q0, q1) = if v == U8_FAULT_VERTEX {
            // 128 + 128 = 256: 1/255 too much once dequantised.
            (j0 + 1, 128u8, 128u8)
        } else {
            // Round the first weight, give the second the rest: exactly 255 in total.
            let q0 = (w0 * 255.0).round() as u8;
            (j1, q0, 255 - q0)
        };
        joints.extend_from_slice(&[j0, if q1 == 0 { 0 } else { j1 }, 0, 0]);
        weights.extend_from_slice(&[q0, q1, 0, 0]);
    }
    let position = b.positions(&positions);
    let joints = b.accessor(&joints, Kind::Vec4, Usage::VERTEX);
    let weights = b.accessor(&weights, Kind::Vec4, Usage::VERTEX_NORMALIZED);
    let indices = b.indices(&indices);
    json!({
        "attributes": { "POSITION": position, "JOINTS_0": joints, "WEIGHTS_0": weights },
        "indices": indices,
        "mode": MODE_TRIANGLES,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_data_name_the_same_vertices() {
        let mut from_table: Vec<(usize, usize)> =
            BAD_WEIGHTS_FAULTS.iter().map(|&(_, p, v)| (p, v)).collect();
        let mut from_data: Vec<(usize, usize)> = FAULTY.iter().map(|f| (0, f.0)).collect();
        from_data.push((1, U8_FAULT_VERTEX));
        from_table.sort_unstable();
        from_table.dedup();
        from_data.sort_unstable();
        assert_eq!(from_table, from_data);
    }

    #[test]
    fn clean_columns_blend_neighbouring_joints() {
        assert_eq!(clean(0), [(0, 1.0), (0, 0.0)]);
        assert_eq!(clean(3), [(1, 0.5), (2, 0.5)]);
        // Column 12 sits at x = 3, past the last joint (x = 2.5): all on j5.
        assert_eq!(clean(12), [(5, 1.0), (0, 0.0)]);
        assert_eq!(clean(11), [(5, 1.0), (0, 0.0)]);
    }
}
