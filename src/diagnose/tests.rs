//! Acceptance tests of `check` on hand-built rigs. Expected values are worked out by hand
//! from the validator's rules (see `weights.rs`), never taken from the program's output.

use super::*;
use crate::rig::{
    Channel, Clip, InfluenceSet, Interpolation, Mesh, Node, Primitive, Property, Rig, Severity, Skin,
    Transform, WeightStorage,
};
use glam::{Mat4, Quat, Vec3};

const WEIGHTS_ACCESSOR: usize = 7;

/// A rig with `joints` joint nodes (node 0 the root, the others its children), one mesh node
/// (a scene root, after the joints) drawing mesh 0 with skin 0, and one primitive whose
/// influence sets are `sets` (JOINTS_n, WEIGHTS_n pairs).
/// One `JOINTS_n` / `WEIGHTS_n` pair: per-vertex joints and weights.
type Set = (Vec<[u16; 4]>, Vec<[f32; 4]>);

fn skinned(joints: usize, storage: WeightStorage, sets: &[Set]) -> Rig {
    let mut nodes: Vec<Node> = (0..joints)
        .map(|j| Node {
            parent: (j > 0).then_some(0),
            children: if j == 0 { (1..joints).collect() } else { vec![] },
            ..Node::default()
        })
        .collect();
    nodes.push(Node { mesh: Some(0), skin: Some(0), ..Node::default() });
    let vertices = sets.first().map_or(0, |s| s.0.len());
    let influences = sets
        .iter()
        .enumerate()
        .map(|(n, (j, w))| InfluenceSet {
            set: n,
            joints: j.clone().into(),
            weights: w.clone().into(),
            weight_storage: storage,
            joints_accessor: 100 + n,
            weights_accessor: WEIGHTS_ACCESSOR + n,
        })
        .collect();
    Rig {
        order: (0..nodes.len()).collect(),
        nodes,
        skins: vec![Skin {
            joints: (0..joints).collect(),
            inverse_bind: vec![Mat4::IDENTITY; joints],
            ..Skin::default()
        }],
        meshes: vec![Mesh {
            primitives: vec![Primitive {
                positions: vec![Vec3::ZERO; vertices].into(),
                influences,
                ..Primitive::default()
            }],
            ..Mesh::default()
        }],
        ..Rig::default()
    }
}

fn one_vertex(storage: WeightStorage, joints: [u16; 4], weights: [f32; 4]) -> Report {
    check(&skinned(8, storage, &[(vec![joints], vec![weights])]), &Options::default())
}

fn f32_vertex(joints: [u16; 4], weights: [f32; 4]) -> Report {
    one_vertex(WeightStorage::F32, joints, weights)
}

fn u8_vertex(codes: [u8; 4]) -> Report {
    let w = codes.map(|c| f32::from(c) / 255.0);
    one_vertex(WeightStorage::U8Norm, [0, 1, 2, 3], w)
}

fn u16_vertex(codes: [u16; 4]) -> Report {
    let w = codes.map(|c| f32::from(c) / 65535.0);
    one_vertex(WeightStorage::U16Norm, [0, 1, 2, 3], w)
}

fn count(report: &Report, code: Code) -> usize {
    report.with_code(code.id).count()
}

fn non_normalized(report: &Report) -> bool {
    count(report, codes::WEIGHTS_NON_NORMALIZED) > 0
}

fn only(report: &Report, code: Code) -> &Finding {
    let found: Vec<_> = report.with_code(code.id).collect();
    assert_eq!(found.len(), 1, "{code:?} in {:#?}", report.findings);
    found[0]
}

fn vertex_of(f: &Finding) -> &VertexFinding {
    f.vertex.as_ref().expect("a vertex finding")
}

// ---- the validator's weight-sum rule ------------------------------------------------------

#[test]
fn float_sums_that_pass() {
    // f32 sums rounded after each add land on exactly 1 (0.1+0.2+0.3+0.4 and 3 x f32(1/3)).
    assert!(!non_normalized(&f32_vertex([0, 1, 2, 3], [0.1, 0.2, 0.3, 0.4])));
    let third = 1.0f32 / 3.0;
    assert!(!non_normalized(&f32_vertex([0, 1, 2, 0], [third, third, third, 0.0])));
    // f32(0.4999999) = 0.5 - 3 * 2^-25; the f32 sum is 1 - 2^-23 (1.19e-7 off), under 4e-7.
    assert!(!non_normalized(&f32_vertex([0, 1, 0, 0], [0.5, 0.4999999, 0.0, 0.0])));
}

#[test]
fn float_sums_that_fail() {
    // 1e-5 off with n = 2: far over 4e-7.
    assert!(non_normalized(&f32_vertex([0, 1, 0, 0], [0.5, 0.49999, 0.0, 0.0])));
    // All zero: sum 0, n 0, threshold 0.
    let r = f32_vertex([0, 0, 0, 0], [0.0; 4]);
    let v = vertex_of(only(&r, codes::WEIGHTS_NON_NORMALIZED));
    assert_eq!((v.sum, v.n, v.threshold), (0.0, 0, 0.0));
}

#[test]
fn two_sets_of_eighths_pass() {
    let sets = [(vec![[0, 1, 2, 3]], vec![[0.125; 4]]), (vec![[4, 5, 6, 7]], vec![[0.125; 4]])];
    let r = check(&skinned(8, WeightStorage::F32, &sets), &Options::default());
    assert!(!non_normalized(&r));
    // More than 4 influences is rigscope's own warning; an engine keeping 4 drops half.
    let v = vertex_of(only(&r, codes::MORE_THAN_4_INFLUENCES));
    assert_eq!(v.n, 8);
    assert_eq!(v.dropped_weight, Some(0.5));
    assert_eq!(v.joints, vec![0, 1, 2, 3, 4, 5, 6, 7]);
}

#[test]
fn byte_weights() {
    // 3 x 85/255 = 1 (sum of f64 thirds rounded to f32 each step lands on 1).
    assert!(!non_normalized(&u8_vertex([85, 85, 85, 0])));
    // 256/255.
    assert!(non_normalized(&u8_vertex([128, 128, 0, 0])));
    let r = u8_vertex([254, 0, 0, 0]);
    let v = vertex_of(only(&r, codes::WEIGHTS_NON_NORMALIZED));
    assert_eq!(v.sum, 0.996_078_43_f32);
    assert_eq!(v.sum, (254.0f64 / 255.0) as f32);
    assert_eq!(v.n, 1);
    assert_eq!(v.threshold, 2e-7);
}

#[test]
fn short_weights() {
    // 65535/65535 up to one f32 rounding: passes. 65536/65535 is 1.5e-5 over: fails.
    assert!(!non_normalized(&u16_vertex([32768, 32767, 0, 0])));
    assert!(non_normalized(&u16_vertex([32768, 32768, 0, 0])));
}

#[test]
fn f32_or_f64_comparison_agree_for_every_reachable_sum() {
    // |sum - 1| of an f32 sum near 1 is a multiple of 2^-24 (2^-23 above 1). The validator
    // compares in f64 against 2e-7 added n times; comparing in f32 against f32(2e-7 * n)
    // gives the same verdict for every such multiple, so the choice cannot change a result.
    for n in 1..=64u32 {
        let mut t64 = 0.0f64;
        for _ in 0..n {
            t64 += 2e-7;
        }
        let t32 = 2e-7f32 * n as f32;
        for k in 0..4096u32 {
            let d = f64::from(k) * 2f64.powi(-24);
            assert_eq!(d > t64, (d as f32) > t32, "n {n} k {k}");
        }
    }
}

// ---- per-influence rules ----------------------------------------------------------------

#[test]
fn out_of_range_joint_is_reported_and_skipped() {
    // 8 joints: max index 7. Joint 9's weight 0.5 is not read, so the sum is 0.5.
    let r = f32_vertex([0, 9, 0, 0], [0.5, 0.5, 0.0, 0.0]);
    let f = only(&r, codes::JOINTS_INDEX_OOB);
    assert_eq!(f.pointer, "/meshes/0/primitives/0/attributes/JOINTS_0");
    assert_eq!(
        f.message,
        "Joints accessor element at index 1 (component index 1) has value 9 that is greater than the maximum joint index (7) set by skin 0."
    );
    let v = vertex_of(only(&r, codes::WEIGHTS_NON_NORMALIZED));
    assert_eq!((v.sum, v.n), (0.5, 1));
    // The joint check comes before the weight is read: a zero weight does not excuse it.
    let r = f32_vertex([0, 0, 8, 0], [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(count(&r, codes::JOINTS_INDEX_OOB), 1);
    assert!(!non_normalized(&r));
}

#[test]
fn joint_limit_is_the_smallest_skin_using_the_mesh() {
    // Mesh 0 is drawn with skin 0 (8 joints) and, by a second node, skin 1 (3 joints).
    let mut rig = skinned(8, WeightStorage::F32, &[(vec![[0, 3, 0, 0]], vec![[0.5, 0.5, 0.0, 0.0]])]);
    let before = check(&rig, &Options::default());
    assert_eq!(count(&before, codes::JOINTS_INDEX_OOB), 0);
    rig.skins.push(Skin { joints: vec![0, 1, 2], inverse_bind: vec![Mat4::IDENTITY; 3], ..Skin::default() });
    rig.nodes.push(Node { mesh: Some(0), skin: Some(1), ..Node::default() });
    rig.order.push(rig.nodes.len() - 1);
    let r = check(&rig, &Options::default());
    let f = only(&r, codes::JOINTS_INDEX_OOB);
    assert!(f.message.ends_with("maximum joint index (2) set by skin 1."), "{}", f.message);
}

#[test]
fn duplicate_joint_is_reported_and_not_summed() {
    let r = f32_vertex([1, 1, 0, 0], [0.5, 0.5, 0.0, 0.0]);
    let f = only(&r, codes::JOINTS_INDEX_DUPLICATE);
    let v = vertex_of(f);
    assert_eq!((v.set, v.component), (Some(0), Some(1)));
    assert_eq!(v.sum, 0.5);
    assert!(non_normalized(&r));
}

#[test]
fn duplicate_across_sets_in_validator_order() {
    // Visiting order is component-major: set 0 comp 0, set 1 comp 0, set 0 comp 1, ...
    // So joint 2 is first met in set 1 (comp 0) and the duplicate is set 0 comp 1.
    let sets = [
        (vec![[0, 2, 0, 0]], vec![[0.25, 0.25, 0.0, 0.0]]),
        (vec![[2, 3, 0, 0]], vec![[0.25, 0.25, 0.0, 0.0]]),
    ];
    let r = check(&skinned(8, WeightStorage::F32, &sets), &Options::default());
    let v = vertex_of(only(&r, codes::JOINTS_INDEX_DUPLICATE));
    assert_eq!((v.set, v.component), (Some(0), Some(1)));
}

#[test]
fn negative_weight_is_reported_and_not_summed() {
    let r = f32_vertex([0, 1, 2, 0], [0.6, 0.6, -0.2, 0.0]);
    let f = only(&r, codes::WEIGHTS_NEGATIVE);
    assert_eq!(f.pointer, "/meshes/0/primitives/0/attributes/WEIGHTS_0");
    // Summed: 0.6 + 0.6 only (f32 doubling is exact), so 1.2 and non-normalised.
    let v = vertex_of(only(&r, codes::WEIGHTS_NON_NORMALIZED));
    assert_eq!(v.sum, 0.6f32 * 2.0);
    assert_eq!(v.n, 2);
}

#[test]
fn negative_zero_is_zero() {
    let r = f32_vertex([0, 1, 0, 0], [1.0, -0.0, 0.0, 0.0]);
    assert_eq!(count(&r, codes::WEIGHTS_NEGATIVE), 0);
    assert!(!non_normalized(&r));
    // Joint 1 with a zero weight is the zero-weight warning.
    assert_eq!(count(&r, codes::JOINTS_USED_ZERO_WEIGHT), 1);
}

#[test]
fn zero_weight_on_nonzero_joint_warns() {
    let r = f32_vertex([0, 3, 0, 0], [1.0, 0.0, 0.0, 0.0]);
    let f = only(&r, codes::JOINTS_USED_ZERO_WEIGHT);
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(
        f.message,
        "Joints accessor element at index 1 (component index 1) is used with zero weight but has non-zero value (3)."
    );
    assert_eq!(r.error_count(), 0);
}

#[test]
fn nan_is_invalid_float_only() {
    let r = f32_vertex([0, 1, 0, 0], [f32::NAN, 1.0, 0.0, 0.0]);
    let f = only(&r, codes::INVALID_FLOAT);
    assert_eq!(f.pointer, format!("/accessors/{WEIGHTS_ACCESSOR}"));
    assert_eq!(f.message, "Accessor element at index 0 is NaN.");
    assert!(!non_normalized(&r));
    assert_eq!(r.error_count(), 1);
}

#[test]
fn infinity_is_invalid_float_and_non_normalized() {
    let r = f32_vertex([0, 0, 0, 0], [f32::INFINITY, 0.0, 0.0, 0.0]);
    assert_eq!(count(&r, codes::INVALID_FLOAT), 1);
    assert_eq!(only(&r, codes::INVALID_FLOAT).message, "Accessor element at index 0 is Infinity.");
    assert!(non_normalized(&r));
}

#[test]
fn invalid_float_reported_once_per_accessor() {
    // Two primitives share the weights accessor: the validator checks the accessor once.
    let mut rig = skinned(2, WeightStorage::F32, &[(vec![[0, 0, 0, 0]], vec![[f32::NAN, 0.0, 0.0, 0.0]])]);
    let prim = rig.meshes[0].primitives[0].clone();
    rig.meshes[0].primitives.push(prim);
    let r = check(&rig, &Options::default());
    assert_eq!(count(&r, codes::INVALID_FLOAT), 1);
}

#[test]
fn vertex_finding_lists_every_influence() {
    let sets = [
        (vec![[0, 1, 0, 0]], vec![[0.5, 0.25, 0.0, 0.0]]),
        (vec![[2, 0, 0, 0]], vec![[0.125, 0.0, 0.0, 0.0]]),
    ];
    let r = check(&skinned(4, WeightStorage::F32, &sets), &Options::default());
    let v = vertex_of(only(&r, codes::WEIGHTS_NON_NORMALIZED));
    assert_eq!(v.joints, vec![0, 1, 0, 0, 2, 0, 0, 0]);
    assert_eq!(v.weights, vec![0.5, 0.25, 0.0, 0.0, 0.125, 0.0, 0.0, 0.0]);
    assert_eq!(v.sum, 0.875);
    assert_eq!(v.n, 3);
}

#[test]
fn mesh_without_skinned_node_is_not_weight_checked() {
    let mut rig = skinned(2, WeightStorage::F32, &[(vec![[0, 0, 0, 0]], vec![[0.0; 4]])]);
    let mesh_node = rig.nodes.len() - 1;
    rig.nodes[mesh_node].skin = None;
    let r = check(&rig, &Options::default());
    assert!(!non_normalized(&r));
    assert_eq!(count(&r, codes::NODE_SKINNED_MESH_WITHOUT_SKIN), 1);
    assert!(!r.primitives[0].checked);
}

// ---- world error, joint usage -----------------------------------------------------------

/// Vertex 0 sits on joint 1 at (3, 4, 0) with weight 0.5 (sum 0.5); vertex 1 at the origin
/// on joint 0 with weight 1, so the bind pose's box is (0,0,0)..(3,4,0), diagonal 5. The clip
/// moves joint 1 from (3, 4, 0) to (3, 4, 12) over one second.
fn half_weight_rig() -> Rig {
    let mut rig = skinned(
        2,
        WeightStorage::F32,
        &[(vec![[1, 0, 0, 0], [0, 0, 0, 0]], vec![[0.5, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]])],
    );
    rig.meshes[0].primitives[0].positions = vec![Vec3::new(3.0, 4.0, 0.0), Vec3::ZERO].into();
    rig.nodes[1].rest.translation = Vec3::new(3.0, 4.0, 0.0);
    rig.skins[0].inverse_bind[1] = Mat4::from_translation(Vec3::new(-3.0, -4.0, 0.0));
    rig.clips = vec![Clip {
        vrm: None,
        name: None,
        duration: 1.0,
        channels: vec![Channel {
            node: 1,
            property: Property::Translation,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 1.0].into(),
            values: vec![3.0, 4.0, 0.0, 3.0, 4.0, 12.0].into(),
            components: 3,
        }],
    }];
    rig
}

#[test]
fn consequences_are_the_worst_distance_from_the_stored_result_over_rest_and_clips() {
    use crate::anim::Engine;
    let r = check(&half_weight_rig(), &Options::default());
    let c = &r.consequences;
    assert_eq!(c.diagonal, 5.0);
    // Rest, then the clip at 0, 0.5 and 1.
    assert_eq!(c.samples, 4);
    assert_eq!(c.vertices.len(), 1);
    // At t = 1, J1 = T(0, 0, 12): stored 0.5 (3, 4, 12), three.js (weight 1) (3, 4, 12);
    // 0.5 * 13 = 6.5 apart. At rest 2.5, at t = 0.5 0.5 * sqrt(61) < 6.5.
    let three = c.of(0, 0, 0, Engine::Three).expect("measured");
    assert_eq!(
        three,
        Displacement {
            distance: 6.5,
            fraction: 1.3,
            clip: Some(0),
            time: 1.0,
            vanishes: false,
            stored_vanishes: false
        }
    );
    // glTFast at 4 bones keeps the stored weights: nothing moves.
    assert_eq!(c.of(0, 0, 0, Engine::GlTfast { bones: 4 }).map(|d| d.distance), Some(0.0));
    let summary = c.engines.iter().find(|s| s.engine == Engine::Three).expect("three");
    assert_eq!(summary.moved, 1);
    assert_eq!(summary.worst.map(|w| (w.vertex, w.at)), Some((0, three)));
    // Babylon divides the position by the weights' sum (0.5): where three.js draws it.
    assert_eq!(c.of(0, 0, 0, Engine::Babylon), Some(three));
    assert_eq!(c.engines.iter().find(|s| s.engine == Engine::Babylon).map(|s| s.moved), Some(1));
    // The text says it in words, the unnamed clip as `#0`; the vertex row names the engines
    // that tie for the farthest, with units.
    let text = render_text(&r, 10);
    assert!(
        text.contains("three.js r187: 1 vertex moves; worst 1.3 of the model (6.5 units), vertex 0 of mesh 0 primitive 0, clip #0 at 1.00 s"),
        "{text}"
    );
    assert!(text.contains("What engines draw: 1 problem vertex against"), "{text}");
    assert!(text.contains("three.js r187 and 10 others: 6.5 units"), "{text}");
}

#[test]
fn unused_and_rarely_used_joints() {
    // 3 joints; joint 0 weights 4 vertices, joint 1 one vertex, joint 2 none.
    let joints = vec![[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0]];
    let weights =
        vec![[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]];
    let r = check(&skinned(3, WeightStorage::F32, &[(joints, weights)]), &Options::default());
    assert_eq!(only(&r, codes::JOINT_UNUSED).pointer, "/skins/0/joints/2");
    assert_eq!(only(&r, codes::JOINT_FEW_VERTICES).pointer, "/skins/0/joints/1");
}

#[test]
fn a_mesh_drawn_with_two_skins_uses_the_larger_skins_joints() {
    // Mesh 0 is drawn by node 5 with skin 0 (5 joints) and by a second node with skin 1
    // (joints 0..3 only). Vertex 0 weights joints 3 and 4: out of range for skin 1 (the
    // validator's limit is 3 joints, so two ACCESSOR_JOINTS_INDEX_OOB), but they are skin
    // 0's joints 3 and 4 and must not be called unused. Nothing weights skin 0's joint 2
    // nor skin 1's joint 2.
    let joints = vec![[3, 4, 0, 0], [0, 1, 0, 0]];
    let weights = vec![[0.5, 0.5, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]];
    let mut rig = skinned(5, WeightStorage::F32, &[(joints, weights)]);
    rig.skins.push(Skin { joints: vec![0, 1, 2], inverse_bind: vec![Mat4::IDENTITY; 3], ..Skin::default() });
    rig.nodes.push(Node { mesh: Some(0), skin: Some(1), ..Node::default() });
    rig.order.push(rig.nodes.len() - 1);
    let r = check(&rig, &Options::default());
    assert_eq!(count(&r, codes::JOINTS_INDEX_OOB), 2);
    let mut unused: Vec<&str> = r.with_code(codes::JOINT_UNUSED.id).map(|f| f.pointer.as_str()).collect();
    unused.sort_unstable();
    assert_eq!(unused, ["/skins/0/joints/2", "/skins/1/joints/2"]);
}

// ---- skins -------------------------------------------------------------------------------

#[test]
fn ibm_bottom_row_must_be_0001() {
    let mut rig = skinned(2, WeightStorage::F32, &[(vec![[0, 1, 0, 0]], vec![[0.5, 0.5, 0.0, 0.0]])]);
    rig.skins[0].inverse_bind_accessor = Some(3);
    // Matrix 1: component 15 (w_axis.w) is 2; component 3 (x_axis.w) is -0.0, which passes.
    let mut bad = Mat4::IDENTITY;
    bad.w_axis.w = 2.0;
    bad.x_axis.w = -0.0;
    rig.skins[0].inverse_bind[1] = bad;
    let r = check(&rig, &Options::default());
    let f = only(&r, codes::INVALID_IBM);
    assert_eq!(f.pointer, "/skins/0/inverseBindMatrices");
    assert_eq!(f.message, "Matrix element at index 31 (component index 15) contains invalid value: 2.0.");
}

#[test]
fn ibm_count_must_match_joints() {
    let mut rig = skinned(2, WeightStorage::F32, &[(vec![[0, 1, 0, 0]], vec![[0.5, 0.5, 0.0, 0.0]])]);
    rig.skins[0].inverse_bind_accessor = Some(3);
    rig.skins[0].inverse_bind.pop();
    let r = check(&rig, &Options::default());
    assert_eq!(
        only(&r, codes::INVALID_IBM_ACCESSOR_COUNT).message,
        "IBM accessor must have at least 2 elements. Found 1."
    );
}

#[test]
fn joints_need_a_common_root_and_skeleton_must_be_one() {
    let mut rig = skinned(3, WeightStorage::F32, &[(vec![[0, 1, 2, 0]], vec![[0.5, 0.25, 0.25, 0.0]])]);
    // Nodes 0 (with children 1, 2): node 0 is the only common root.
    rig.skins[0].skeleton = Some(0);
    let r = check(&rig, &Options::default());
    assert_eq!(count(&r, codes::SKIN_NO_COMMON_ROOT), 0);
    assert_eq!(count(&r, codes::SKIN_SKELETON_INVALID), 0);
    // Skeleton 1 is below node 0, so not an ancestor of joint 2.
    rig.skins[0].skeleton = Some(1);
    let r = check(&rig, &Options::default());
    assert_eq!(only(&r, codes::SKIN_SKELETON_INVALID).pointer, "/skins/0/skeleton");
    // Cut node 2 loose: joints 0..1 and 2 are in different trees.
    rig.nodes[2].parent = None;
    rig.nodes[0].children = vec![1];
    let r = check(&rig, &Options::default());
    assert_eq!(only(&r, codes::SKIN_NO_COMMON_ROOT).pointer, "/skins/0/joints");
}

#[test]
fn ibm_that_does_not_invert_the_rest_pose() {
    let mut rig = skinned(2, WeightStorage::F32, &[(vec![[0, 1, 0, 0]], vec![[0.5, 0.5, 0.0, 0.0]])]);
    rig.nodes[1].rest.translation = Vec3::new(0.0, 2.0, 0.0);
    // Identity IBM for a joint at (0, 2, 0): the joint matrix moves the mesh by 2.
    let r = check(&rig, &Options::default());
    let f = only(&r, codes::IBM_BIND_MISMATCH);
    assert_eq!(f.pointer, "/skins/0/joints/1");
    rig.skins[0].inverse_bind[1] = Mat4::from_translation(Vec3::new(0.0, -2.0, 0.0));
    let r = check(&rig, &Options::default());
    assert_eq!(count(&r, codes::IBM_BIND_MISMATCH), 0);
}

// ---- nodes ----------------------------------------------------------------------------------

#[test]
fn skinned_mesh_node_transforms() {
    let mut rig = skinned(2, WeightStorage::F32, &[(vec![[0, 1, 0, 0]], vec![[0.5, 0.5, 0.0, 0.0]])]);
    let mesh_node = rig.nodes.len() - 1;
    let r = check(&rig, &Options::default());
    assert_eq!(count(&r, codes::NODE_SKINNED_MESH_LOCAL_TRANSFORMS), 0);
    assert_eq!(count(&r, codes::NODE_SKINNED_MESH_NON_ROOT), 0);
    // Put the mesh node under joint 0 and give it a scale.
    rig.nodes[mesh_node].parent = Some(0);
    rig.nodes[0].children.push(mesh_node);
    rig.nodes[mesh_node].rest = Transform { scale: Vec3::splat(2.0), ..Transform::IDENTITY };
    let r = check(&rig, &Options::default());
    assert_eq!(only(&r, codes::NODE_SKINNED_MESH_LOCAL_TRANSFORMS).pointer, format!("/nodes/{mesh_node}"));
    assert_eq!(only(&r, codes::NODE_SKINNED_MESH_NON_ROOT).severity, Severity::Warning);
}

#[test]
fn skin_on_mesh_without_joints_data() {
    let mut rig = skinned(2, WeightStorage::F32, &[(vec![[0, 1, 0, 0]], vec![[0.5, 0.5, 0.0, 0.0]])]);
    rig.meshes[0].primitives[0].influences.clear();
    let r = check(&rig, &Options::default());
    assert_eq!(count(&r, codes::NODE_SKIN_WITH_NON_SKINNED_MESH), 1);
}

// ---- animations ------------------------------------------------------------------------------

fn rotation_clip(node: usize, interpolation: Interpolation, keys: &[[f32; 4]]) -> Clip {
    Clip {
        channels: vec![Channel {
            node,
            property: Property::Rotation,
            interpolation,
            times: (0..keys.len()).map(|k| k as f32).collect(),
            values: keys.iter().flatten().copied().collect(),
            components: 4,
        }],
        duration: keys.len().saturating_sub(1) as f32,
        ..Clip::default()
    }
}

fn animated(clip: Clip) -> Report {
    let mut rig = skinned(2, WeightStorage::F32, &[(vec![[0, 1, 0, 0]], vec![[0.5, 0.5, 0.0, 0.0]])]);
    rig.clips.push(clip);
    check(&rig, &Options::default())
}

#[test]
fn hemisphere_flip_and_near_opposite() {
    let id = [0.0, 0.0, 0.0, 1.0];
    let neg = [0.0, 0.0, 0.0, -1.0];
    let x180 = [1.0, 0.0, 0.0, 0.0];
    // id -> -id: dot -1, a flip but the same rotation; -id -> x180: dot 0, 180 deg apart.
    let r = animated(rotation_clip(1, Interpolation::Linear, &[id, neg, x180]));
    let f = only(&r, codes::ROTATION_HEMISPHERE_FLIP);
    assert_eq!(f.pointer, "/animations/0/channels/0/sampler");
    assert!(f.message.starts_with("1 of 2 "), "{}", f.message);
    assert!(only(&r, codes::ROTATION_NEAR_OPPOSITE).message.contains("keys 1 and 2"));
    // STEP never interpolates between keys.
    let r = animated(rotation_clip(1, Interpolation::Step, &[id, neg, x180]));
    assert_eq!(count(&r, codes::ROTATION_HEMISPHERE_FLIP), 0);
    assert_eq!(count(&r, codes::ROTATION_NEAR_OPPOSITE), 0);
    // A dot of exactly 0 (-0.0 here: 0 * 1 + ... + -1 * 0) and one of 0 up to f32 rounding:
    // a = 0.70710677 and b = 0.7071068 (the next f32) give -b*a + a*a = -4.2e-8. 180 degrees
    // apart, near opposite, but no hemisphere flip.
    let a = 0.707_106_77_f32;
    let b = f32::from_bits(a.to_bits() + 1);
    assert_eq!(b.to_string(), "0.7071068");
    for keys in [[neg, x180], [[0.0, 0.0, -b, -a], [0.0, 0.0, a, -a]]] {
        let r = animated(rotation_clip(1, Interpolation::Linear, &keys));
        assert_eq!(count(&r, codes::ROTATION_HEMISPHERE_FLIP), 0, "{keys:?}");
        assert_eq!(count(&r, codes::ROTATION_NEAR_OPPOSITE), 1, "{keys:?}");
    }
    // 90 deg apart (dot cos 45 deg): neither.
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let r = animated(rotation_clip(1, Interpolation::Linear, &[id, [0.0, 0.0, h, h]]));
    assert_eq!(count(&r, codes::ROTATION_HEMISPHERE_FLIP), 0);
    assert_eq!(count(&r, codes::ROTATION_NEAR_OPPOSITE), 0);
}

#[test]
fn rotation_keys_must_be_unit() {
    // |len - 1| = 0.01 > 0.00769 fails; 0.005 passes.
    let r =
        animated(rotation_clip(1, Interpolation::Linear, &[[0.0, 0.0, 0.0, 1.005], [0.0, 0.0, 0.0, 1.01]]));
    let f = only(&r, codes::NON_NORMALIZED_QUATERNION);
    assert!(
        f.message.starts_with("Animation sampler output accessor element at indices 4..7"),
        "{}",
        f.message
    );
    // CUBICSPLINE: tangents are not quaternions and are not checked.
    let big = [5.0, 5.0, 5.0, 5.0];
    let id = [0.0, 0.0, 0.0, 1.0];
    let mut clip = rotation_clip(1, Interpolation::CubicSpline, &[big, id, big, big, id, big]);
    // Two keys of three elements each.
    clip.channels[0].times = vec![0.0, 1.0].into();
    let r = animated(clip);
    assert_eq!(count(&r, codes::NON_NORMALIZED_QUATERNION), 0);
}

#[test]
fn key_times_must_increase() {
    let mut clip = rotation_clip(1, Interpolation::Linear, &[[0.0, 0.0, 0.0, 1.0]; 4]);
    clip.channels[0].times = vec![0.0, 1.0, 1.0, 0.5].into();
    let r = animated(clip);
    let found: Vec<_> = r.with_code(codes::ANIMATION_INPUT_NON_INCREASING.id).collect();
    assert_eq!(found.len(), 2);
    assert_eq!(
        found[1].message,
        "Animation input accessor element at index 3 is less than or equal to previous: 0.5 <= 1.0."
    );
}

#[test]
fn import_findings_are_kept_and_not_duplicated() {
    let mut rig = skinned(2, WeightStorage::F32, &[(vec![[0, 1, 0, 0]], vec![[0.5, 0.5, 0.0, 0.0]])]);
    let mut clip = rotation_clip(1, Interpolation::Linear, &[[0.0, 0.0, 0.0, 1.0]; 2]);
    clip.channels[0].times = vec![1.0, 1.0].into();
    rig.clips.push(clip);
    rig.findings.push(crate::rig::Finding::new(
        codes::ANIMATION_INPUT_NON_INCREASING.id,
        Severity::Error,
        "/animations/0/samplers/0/input".into(),
        "from import".into(),
    ));
    let r = check(&rig, &Options::default());
    assert_eq!(only(&r, codes::ANIMATION_INPUT_NON_INCREASING).message, "from import");
}

#[test]
fn trs_channel_on_skinned_mesh_node() {
    let mesh_node = 2; // skinned(2, ..) puts the mesh node after the 2 joints
    let r = animated(rotation_clip(mesh_node, Interpolation::Linear, &[[0.0, 0.0, 0.0, 1.0]; 2]));
    assert_eq!(
        only(&r, codes::ANIMATION_CHANNEL_TARGET_NODE_SKIN).pointer,
        "/animations/0/channels/0/target/path"
    );
}

// ---- report ------------------------------------------------------------------------------

#[test]
fn ignore_removes_codes_everywhere() {
    let rig = skinned(8, WeightStorage::F32, &[(vec![[0, 3, 0, 0]], vec![[0.5, 0.0, 0.0, 0.0]])]);
    let options =
        Options { ignore: vec![codes::WEIGHTS_NON_NORMALIZED.id.to_string()], ..Options::default() };
    let r = check(&rig, &options);
    assert!(!non_normalized(&r));
    assert!(!r.counts.contains_key(codes::WEIGHTS_NON_NORMALIZED.id));
    assert_eq!(count(&r, codes::JOINTS_USED_ZERO_WEIGHT), 1);
    assert_eq!(r.error_count(), 0);
}

#[test]
fn findings_sorted_by_severity_code_then_vertex() {
    // Vertex 0: fine but joint 3 with weight 0 (warning); vertex 1: sum 0.5 (error);
    // vertex 2: sum 0.25 (error).
    let joints = vec![[0, 3, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]];
    let weights = vec![[1.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0, 0.0], [0.25, 0.0, 0.0, 0.0]];
    let r = check(&skinned(4, WeightStorage::F32, &[(joints, weights)]), &Options::default());
    let order: Vec<(&str, Option<usize>)> = r
        .findings
        .iter()
        .filter(|f| f.mesh.is_some())
        .map(|f| (f.code, f.vertex.as_ref().map(|v| v.vertex)))
        .collect();
    assert_eq!(
        order,
        vec![
            ("ACCESSOR_WEIGHTS_NON_NORMALIZED", Some(1)),
            ("ACCESSOR_WEIGHTS_NON_NORMALIZED", Some(2)),
            ("ACCESSOR_JOINTS_USED_ZERO_WEIGHT", Some(0)),
        ]
    );
    let row = &r.primitives[0];
    assert_eq!((row.vertices, row.influence_sets), (3, 1));
    assert_eq!(row.counts.get("ACCESSOR_WEIGHTS_NON_NORMALIZED"), Some(&2));
    assert_eq!((r.error_count(), r.warning_count()), (2, 1));

    // Text: the worst sum (0.25) is listed before 0.5, and the limit holds.
    let text = render_text(&r, 1);
    let section =
        text.split("\nACCESSOR_WEIGHTS_NON_NORMALIZED (error): 2").nth(1).expect("a section for the code");
    assert!(section.contains(" 0.25 "), "{text}");
    assert!(!section.split("\n\n").next().unwrap_or("").contains(" 0.5 "), "{text}");
    assert!(section.contains("... and 1 more"), "{text}");

    // JSON: version, and vertex fields on vertex findings.
    let json = serde_json::to_value(to_json(&r)).expect("serialisable");
    assert_eq!(json["format_version"], 3);
    let first = &json["findings"][0];
    assert_eq!(first["code"], "ACCESSOR_WEIGHTS_NON_NORMALIZED");
    assert_eq!(first["severity"], "error");
    assert_eq!(first["vertex"], 1);
    assert_eq!(first["sum"], 0.5);
    assert_eq!(first["joints"], serde_json::json!([0, 0, 0, 0]));
    assert_eq!(first["pointer"], "/meshes/0/primitives/0/attributes/WEIGHTS_0");
}

#[test]
fn a_skin_moved_as_a_whole_is_one_finding_not_one_per_joint() {
    // Joints 0 -> 1 with IBMs that invert their rest pose, then the root is turned 90 degrees
    // about z: every joint matrix becomes the same rotation, so the skin is one finding.
    let mut rig = skinned(2, WeightStorage::F32, &[(vec![[0, 1, 0, 0]], vec![[0.5, 0.5, 0.0, 0.0]])]);
    rig.nodes[1].rest.translation = Vec3::new(0.0, 2.0, 0.0);
    rig.skins[0].inverse_bind[1] = Mat4::from_translation(Vec3::new(0.0, -2.0, 0.0));
    assert_eq!(count(&check(&rig, &Options::default()), codes::IBM_BIND_MISMATCH), 0);
    rig.nodes[0].rest.rotation = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let r = check(&rig, &Options::default());
    let f = only(&r, codes::IBM_BIND_MISMATCH);
    assert_eq!(f.pointer, "/skins/0");
    assert!(f.message.contains("turned 90.0 degrees about (0.000, 0.000, 1.000)"), "{}", f.message);
}

#[test]
fn a_mismatched_joint_says_how_far_it_pulls_its_vertices() {
    // Joint 1 sits at (0, 2, 0) with an identity IBM: its joint matrix moves a bind-space point
    // by (0, 2, 0), the root's by nothing; the vertex has weight 0.5 on it, so it is pulled 1.
    let mut rig = skinned(2, WeightStorage::F32, &[(vec![[0, 1, 0, 0]], vec![[0.5, 0.5, 0.0, 0.0]])]);
    rig.nodes[1].rest.translation = Vec3::new(0.0, 2.0, 0.0);
    let r = check(&rig, &Options::default());
    let f = only(&r, codes::IBM_BIND_MISMATCH);
    assert!(f.message.contains("rest pose is not its bind pose"), "{}", f.message);
    assert!(f.message.contains("up to 1.0000 scene units"), "{}", f.message);
    assert!(f.message.contains("spikes or shears"), "{}", f.message);
}

#[test]
fn a_mismatched_joint_that_weights_nothing_does_not_warn_of_spikes() {
    // Joint 2 weights no vertex and sits at (0, 3, 0) with an identity IBM.
    let joints = vec![[0, 1, 0, 0]];
    let weights = vec![[0.5, 0.5, 0.0, 0.0]];
    let mut rig = skinned(3, WeightStorage::F32, &[(joints, weights)]);
    rig.nodes[2].rest.translation = Vec3::new(0.0, 3.0, 0.0);
    let r = check(&rig, &Options::default());
    assert_eq!(only(&r, codes::JOINT_UNUSED).pointer, "/skins/0/joints/2");
    let f = only(&r, codes::IBM_BIND_MISMATCH);
    assert_eq!(f.pointer, "/skins/0/joints/2");
    assert!(f.message.contains("lands 3.0000 scene units off"), "{}", f.message);
    assert!(f.message.contains("nothing in the mesh moves wrongly"), "{}", f.message);
    assert!(!f.message.contains("spike"), "{}", f.message);
}

#[test]
fn a_skin_moved_as_a_whole_is_one_harmless_sentence_with_the_transform() {
    // The root turned 90 degrees about z and scaled 0.01 (a centimetre, Z-up export's root)
    // with identity IBMs: every joint alike, so one finding with the transform, no distance.
    let mut rig = skinned(1, WeightStorage::F32, &[(vec![[0, 0, 0, 0]], vec![[1.0, 0.0, 0.0, 0.0]])]);
    rig.meshes[0].primitives[0].positions = vec![Vec3::X].into();
    rig.nodes[0].rest.rotation = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    rig.nodes[0].rest.scale = Vec3::splat(0.01);
    let f = only(&check(&rig, &Options::default()), codes::IBM_BIND_MISMATCH).clone();
    assert_eq!(f.pointer, "/skins/0");
    assert!(f.message.starts_with("Harmless: the whole skin is moved as one by its root"), "{}", f.message);
    assert!(
        f.message.contains("turned 90.0 degrees about (0.000, 0.000, 1.000), scaled (0.010, 0.010, 0.010)"),
        "{}",
        f.message
    );
    assert!(!f.message.contains("units"), "{}", f.message);
    assert_eq!(f.message.matches(". ").count(), 0, "one sentence: {}", f.message);
}

#[test]
fn draco_weight_sums_are_errors_as_on_the_decoded_copy() {
    // 0.5 + 0.49 misses 1 by 1e-2: an error in the validator's rule whatever the storage.
    let mut rig = skinned(8, WeightStorage::F32, &[(vec![[0, 1, 0, 0]], vec![[0.5, 0.49, 0.0, 0.0]])]);
    rig.storage.primitives.push(crate::rig::PrimitiveStorage {
        mesh: 0,
        primitive: 0,
        compression: Some(crate::rig::Compression::Draco),
        ..Default::default()
    });
    let r = check(&rig, &Options::default());
    let f = only(&r, codes::WEIGHTS_NON_NORMALIZED);
    assert_eq!(f.severity, Severity::Error);
    assert!(f.message.contains("Draco stream"), "{}", f.message);
    assert_eq!(r.count(Severity::Warning), 0, "{:#?}", r.findings);
}

/// A rig in centimetres under a 0.01 root, as Mixamo's FBX exports are: the root (node 2, the
/// mesh node's and joint 0's parent) scales by 0.01 and turns -90 degrees about x (Z-up to
/// Y-up); the inverse bind matrices are the joints' own, without the root (bind space is
/// centimetres). The mesh spans (0, 0, 0)..(40, 30, 180) cm; drawn, 0.01 of that turned:
/// its diagonal is sqrt(40^2 + 30^2 + 180^2) / 100 = sqrt(34900) / 100 = 1.8682 m, which is
/// what three.js's world bounding box measures (the rest pose is the bind pose here).
#[test]
fn the_model_s_size_is_taken_as_drawn_under_a_centimetre_root() {
    let corner =
        [Vec3::ZERO, Vec3::new(40.0, 0.0, 0.0), Vec3::new(0.0, 30.0, 0.0), Vec3::new(40.0, 30.0, 180.0)];
    let joints = vec![[0, 0, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0]];
    // Vertex 1 sums to 0.5: a problem vertex three.js draws at double its stored offset.
    let weights =
        vec![[1.0, 0.0, 0.0, 0.0], [0.25, 0.25, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]];
    let mut rig = skinned(2, WeightStorage::F32, &[(joints, weights)]);
    rig.meshes[0].primitives[0].positions = corner.to_vec().into();
    rig.nodes[1].rest.translation = Vec3::new(0.0, 0.0, 90.0);
    rig.skins[0].inverse_bind[1] = Mat4::from_translation(Vec3::new(0.0, 0.0, -90.0));
    let root = Node {
        children: vec![0, 2],
        rest: crate::rig::Transform {
            translation: Vec3::ZERO,
            rotation: Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
            scale: Vec3::splat(0.01),
        },
        ..Node::default()
    };
    rig.nodes[0].parent = Some(3);
    rig.nodes[2].parent = Some(3);
    rig.nodes.push(root);
    rig.order = vec![3, 0, 1, 2];
    let want = 34900f32.sqrt() / 100.0;
    let size = crate::anim::model_size(&rig);
    assert!((size - want).abs() < 1e-5, "{size} vs {want}");
    let r = check(&rig, &Options::default());
    assert!((r.consequences.diagonal - want).abs() < 1e-5, "{}", r.consequences.diagonal);
    assert!(render_text(&r, 10).contains("(the model is 1.9 units across)"));
    // Every joint is off by the root alike: one harmless sentence, with the 0.01 in it.
    let f = only(&r, codes::IBM_BIND_MISMATCH);
    assert!(
        f.message.starts_with("Harmless:") && f.message.contains("scaled (0.010, 0.010, 0.010)"),
        "{}",
        f.message
    );
    // Vertex 1 at (40, 0, 0) cm on joint 0 with weight 0.25 + 0.25 on joint 1 (both at rest
    // where they were bound): stored 0.5 * 0.4 m from the origin, three.js 0.4 m; 0.2 m apart,
    // 0.2 / 1.8682 of the model, in the same (world) space.
    let three = r.consequences.of(0, 0, 1, crate::anim::Engine::Three).expect("measured");
    assert!((three.distance - 0.2).abs() < 1e-5, "{three:?}");
    assert!((three.fraction - 0.2 / want).abs() < 1e-5, "{three:?}");
}
