//! Whole-rig repair: which primitives are repaired, with which limit and root, and a check of
//! the result by a second method (`diagnose::check`, which follows the validator on its own).

use super::*;
use crate::rig::{Mesh, Node, Primitive, Skin};

fn set(n: usize, joints: Vec<[u16; 4]>, weights: Vec<[f32; 4]>, storage: WeightStorage) -> InfluenceSet {
    InfluenceSet {
        set: n,
        joints: joints.into(),
        weights: weights.into(),
        weight_storage: storage,
        joints_accessor: 10 + 2 * n,
        weights_accessor: 11 + 2 * n,
    }
}

/// Nodes 0..3 are joints (0 -> 1 -> 2 parents-first is 0, 1, 2), node 3 draws mesh 0 with
/// skin 0; mesh 1 is skinned but drawn by no node with a skin.
fn rig(influences: Vec<InfluenceSet>, vertices: usize) -> Rig {
    let prim =
        Primitive { positions: vec![glam::Vec3::ZERO; vertices].into(), influences, ..Default::default() };
    let mut nodes = vec![Node::default(); 5];
    nodes[1].parent = Some(0);
    nodes[2].parent = Some(1);
    nodes[3].mesh = Some(0);
    nodes[3].skin = Some(0);
    nodes[4].mesh = Some(1);
    Rig {
        nodes,
        order: vec![0, 1, 2, 3, 4],
        skins: vec![Skin {
            joints: vec![2, 0, 1],
            inverse_bind: vec![glam::Mat4::IDENTITY; 3],
            // Joint positions parents-first: node 0 (position 1), node 1 (2), node 2 (0).
            joint_order: vec![1, 2, 0],
            joint_parent: vec![Some(2), None, Some(1)],
            ..Default::default()
        }],
        meshes: vec![
            Mesh { primitives: vec![prim.clone()], ..Default::default() },
            Mesh { primitives: vec![prim], ..Default::default() },
        ],
        ..Default::default()
    }
}

#[test]
fn the_limit_and_root_come_from_the_skin_and_undrawn_meshes_are_skipped() {
    let weights = vec![[0.0; 4], [0.5, 0.5, 0.0, 0.0]];
    // Vertex 1 names joint 3, beyond the skin's 3 joints (max index 2).
    let joints = vec![[0; 4], [1, 3, 0, 0]];
    let rig = rig(vec![set(0, joints, weights, WeightStorage::F32)], 2);
    let repair = repair(&rig, &Options::default());
    assert_eq!(repair.skipped, vec![SkippedPrimitive { mesh: 1, primitive: 0, reason: SkipReason::NoSkin }]);
    let [prim] = repair.primitives.as_slice() else {
        panic!("one primitive expected, got {:?}", repair.primitives);
    };
    assert_eq!((prim.touched, prim.rooted, prim.unresolved), (2, 1, 0));
    // The root is the first joint parents-first: position 1 (node 0).
    assert_eq!(prim.root_joint, 1);
    assert_eq!(prim.sets[0].joints, vec![[1, 0, 0, 0], [1, 0, 0, 0]]);
    assert_eq!(prim.sets[0].weights, WeightData::F32(vec![[1.0, 0.0, 0.0, 0.0]; 2]));
    assert_eq!(prim.sets[0].joints_accessor, 10);
    assert_eq!(prim.sets[0].weights_accessor, 11);
}

#[test]
fn untouched_primitives_are_not_listed_as_changed() {
    let rig = rig(vec![set(0, vec![[2, 0, 0, 0]], vec![[1.0, 0.0, 0.0, 0.0]], WeightStorage::F32)], 1);
    let repair = repair(&rig, &Options::default());
    assert_eq!(repair.touched(), 0);
    assert_eq!(repair.changed().count(), 0);
}

#[test]
fn u8_sets_keep_their_type_and_sum_to_255() {
    let w = |a: u8, b: u8| [f32::from(a) / 255.0, f32::from(b) / 255.0, 0.0, 0.0];
    let rig =
        rig(vec![set(0, vec![[0, 1, 0, 0]; 2], vec![w(128, 128), w(200, 55)], WeightStorage::U8Norm)], 2);
    let repair = repair(&rig, &Options::default());
    let prim = &repair.primitives[0];
    assert_eq!(prim.touched, 1);
    // Vertex 0 splits 128/127 (the tie to the lower joint), vertex 1 is untouched.
    assert_eq!(prim.sets[0].weights, WeightData::U8(vec![[128, 127, 0, 0], [200, 55, 0, 0]]));
}

#[test]
fn options_are_validated() {
    assert_eq!(
        Options { max_influences: Some(0), ..Default::default() }.validate(),
        Err(OptionsError::NoInfluences)
    );
    assert!(Options { prune_below: Some(1.0), ..Default::default() }.validate().is_err());
    assert!(Options { prune_below: Some(f32::NAN), ..Default::default() }.validate().is_err());
    assert!(Options { max_influences: Some(4), prune_below: Some(0.01) }.validate().is_ok());
}

/// Writes the repaired sets back into a copy of the rig, decoding integers as import does.
fn apply(rig: &Rig, repair: &Repair) -> Rig {
    let mut out = rig.clone();
    for p in &repair.primitives {
        let prim = &mut out.meshes[p.mesh].primitives[p.primitive];
        for (target, new) in prim.influences.iter_mut().zip(&p.sets) {
            target.joints = new.joints.clone().into();
            target.weights = match &new.weights {
                WeightData::F32(w) => w.clone().into(),
                WeightData::U8(w) => w.iter().map(|c| c.map(|c| f32::from(c) / 255.0)).collect(),
                WeightData::U16(w) => w.iter().map(|c| c.map(|c| f32::from(c) / 65535.0)).collect(),
            };
        }
    }
    out
}

#[test]
fn the_bad_weights_sample_comes_out_clean_by_diagnose() {
    let bytes = crate::samplegen::bad_weights();
    let rig = crate::import::load_bytes(&bytes, "bad-weights.glb", None).expect("the sample loads");
    let repair = repair(&rig, &Options::default());
    assert_eq!(repair.unresolved(), 0);
    // The faults table in samples/README.md: ten vertices with a validator finding
    // (1, 3, 5, 7, 9, 11, 13, 15, 17 of primitive 0 and 5 of primitive 1); vertex 19 only has
    // rigscope's own >4 influences, which is valid and left alone. Vertex 7 is all zero.
    assert_eq!(repair.touched(), 10);
    assert_eq!(repair.rooted(), 1);
    let fixed = apply(&rig, &repair);
    let report = crate::diagnose::check(&fixed, &crate::diagnose::Options::default());
    let weight_codes: Vec<&str> = report
        .findings
        .iter()
        .map(|f| f.code)
        .filter(|c| c.starts_with("ACCESSOR_WEIGHTS") || c.starts_with("ACCESSOR_JOINTS"))
        .collect();
    assert!(weight_codes.is_empty(), "{weight_codes:?}");
    // With at most 4 influences, vertex 19 (5 influences) is repaired too.
    let capped = super::repair(&rig, &Options { max_influences: Some(4), ..Default::default() });
    assert_eq!(capped.touched(), 11);
    let report = crate::diagnose::check(&apply(&rig, &capped), &crate::diagnose::Options::default());
    assert_eq!(report.with_code("RIG_MORE_THAN_4_INFLUENCES").count(), 0);
}
