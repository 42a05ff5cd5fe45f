//! `engine-weights.glb`: the weight problems on which engines disagree, one per vertex, for
//! running the engines themselves (tests/fixtures/engines/) against rigscope's profiles.
//!
//! The rig is `bad-weights.glb`'s strip (joints `j0`..`j5` along +X, 0.5 apart, joint index ==
//! node index; node 6 `strip` holds mesh 0 and skin 0; the `wiggle` clip), with one primitive of
//! float weights in three influence sets (`JOINTS_0/WEIGHTS_0` .. `JOINTS_2/WEIGHTS_2`). Every
//! joint index is in range, so Blender imports the file (`bad-weights.glb` has one that is not).
//! Every fault sits on a top-edge vertex (odd index) listed in [`ENGINE_WEIGHTS_FAULTS`]; the
//! other vertices blend the two joints around them, summing to 1, in set 0 only.

use serde_json::json;

use super::bad_weights::{strip, strip_joints, wiggle};
use super::builder::{GltfBuilder, Kind, MODE_TRIANGLES, Usage};

const JOINTS: usize = 6;
#[cfg(test)]
const COLUMNS: usize = 13;

/// One vertex's three sets: (joints, weights) each.
type Sets = [([u8; 4], [f32; 4]); 3];

const NONE: ([u8; 4], [f32; 4]) = ([0; 4], [0.0; 4]);

/// (vertex, what is wrong) of every fault.
pub const ENGINE_WEIGHTS_FAULTS: &[(usize, &str)] = &[
    (1, "weights sum to 0.5"),
    (3, "weights sum to 1.6"),
    (5, "every weight 0"),
    (7, "+0.5 and -0.5: the sum is 0"),
    (9, "a NaN weight beside 0.5"),
    (11, "a quarter of the weight in the third set (sum 1)"),
    (13, "a weight of 3.4e38"),
    (15, "a total weight of 5e-5"),
    (17, "1.25 and -0.25: the sum is 1"),
    (19, "two weights of 3.4e38 (the f32 sum overflows)"),
];

/// The faulty vertices' sets, in the table's order.
fn faulty(vertex: usize) -> Option<Sets> {
    let set0 = |j: [u8; 4], w: [f32; 4]| [(j, w), NONE, NONE];
    Some(match vertex {
        1 => set0([0, 1, 0, 0], [0.25, 0.25, 0.0, 0.0]),
        3 => set0([1, 2, 0, 0], [1.0, 0.6, 0.0, 0.0]),
        5 => set0([0, 0, 0, 0], [0.0; 4]),
        7 => set0([1, 2, 0, 0], [0.5, -0.5, 0.0, 0.0]),
        9 => set0([2, 3, 0, 0], [f32::NAN, 0.5, 0.0, 0.0]),
        11 => [([2, 3, 0, 0], [0.5, 0.25, 0.0, 0.0]), NONE, ([4, 0, 0, 0], [0.25, 0.0, 0.0, 0.0])],
        13 => set0([3, 4, 0, 0], [3.4e38, 0.0, 0.0, 0.0]),
        15 => set0([3, 4, 0, 0], [5e-5, 0.0, 0.0, 0.0]),
        17 => set0([4, 5, 0, 0], [1.25, -0.25, 0.0, 0.0]),
        19 => set0([4, 5, 0, 0], [3.4e38, 3.4e38, 0.0, 0.0]),
        _ => return None,
    })
}

pub fn engine_weights() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let joints = strip_joints(&mut b);
    let skin = b.skin("strip", &joints, 0);
    let primitive = primitive(&mut b);
    let mesh = b.mesh("strip", vec![primitive]);
    b.mesh_node("strip", mesh, Some(skin));
    wiggle(&mut b, &joints);
    b.to_glb()
}

/// Clean influences of column `c`: joint k at x = 0.5 k, halves in between.
fn clean(c: usize) -> Sets {
    let k = u8::try_from(c / 2).unwrap_or(0);
    let last = u8::try_from(JOINTS - 1).unwrap_or(0);
    let set0 = if c % 2 == 1 && k < last {
        ([k, k + 1, 0, 0], [0.5, 0.5, 0.0, 0.0])
    } else {
        ([k.min(last), 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
    };
    [set0, NONE, NONE]
}

fn primitive(b: &mut GltfBuilder) -> serde_json::Value {
    let (positions, indices) = strip(-0.1, 0.1);
    let sets: Vec<Sets> = (0..positions.len()).map(|v| faulty(v).unwrap_or_else(|| clean(v / 2))).collect();
    let position = b.positions(&positions);
    let mut attributes = serde_json::Map::new();
    attributes.insert("POSITION".into(), json!(position));
    for s in 0..3 {
        let joints: Vec<u8> = sets.iter().flat_map(|v| v[s].0).collect();
        let weights: Vec<f32> = sets.iter().flat_map(|v| v[s].1).collect();
        let joints = b.accessor(&joints, Kind::Vec4, Usage::VERTEX);
        let weights = b.accessor(&weights, Kind::Vec4, Usage::VERTEX);
        attributes.insert(format!("JOINTS_{s}"), json!(joints));
        attributes.insert(format!("WEIGHTS_{s}"), json!(weights));
    }
    let indices = b.indices(&indices);
    json!({ "attributes": attributes, "indices": indices, "mode": MODE_TRIANGLES })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_fault_has_its_data_and_no_joint_is_out_of_range() {
        for &(v, _) in ENGINE_WEIGHTS_FAULTS {
            assert!(faulty(v).is_some(), "vertex {v}");
        }
        for v in 0..2 * COLUMNS {
            let sets = faulty(v).unwrap_or_else(|| clean(v / 2));
            assert!(sets.iter().all(|(j, _)| j.iter().all(|&j| usize::from(j) < JOINTS)), "vertex {v}");
        }
    }
}
