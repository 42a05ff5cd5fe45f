//! VRM values of the wrong type or out of range, on copies of the walker avatars broken here:
//! each is a `RIG_VRM_INVALID` warning naming its JSON path in `check`, and what the avatar
//! then does is computed by hand from the fixtures' own numbers (tests/fixtures/vrm/README.md,
//! `src/samplegen/vrma.rs` for the walk's tracks), never from rigscope's output.

use serde_json::{Value, json};

use crate::vrm::{check_broken, fixture, join_glb, split_glb};

/// `file`'s JSON with `edit` applied, as text.
fn edited(json: &str, edit: impl Fn(&mut Value)) -> String {
    let mut doc: Value = serde_json::from_str(json).expect("fixture JSON");
    edit(&mut doc);
    doc.to_string()
}

/// The outer range map out to 1e300 degrees over 1e300 of yaw, `happy`'s bind weight
/// 3.4e38 and `nod`'s `isBinary` a string.
fn break_v1(doc: &mut Value) {
    let vrm = &mut doc["extensions"]["VRMC_vrm"];
    vrm["lookAt"]["rangeMapHorizontalOuter"] = json!({ "inputMaxValue": 1e300, "outputScale": 1e300 });
    vrm["expressions"]["preset"]["happy"]["morphTargetBinds"][0]["weight"] = json!(3.4e38);
    vrm["expressions"]["custom"]["nod"]["isBinary"] = json!("yes");
}

fn broken_v1() -> rigscope::Rig {
    let bytes = std::fs::read(fixture("walker-vrm1.vrm")).expect("fixture");
    let (json, bin) = split_glb(&bytes);
    let glb = join_glb(&edited(&json, break_v1), &bin);
    rigscope::load_bytes(&glb, "broken-walker-vrm1.vrm", None).expect("a broken VRM extension still loads")
}

#[test]
fn check_names_each_broken_value_by_its_json_path() {
    let (code, findings) = check_broken("walker-vrm1.vrm", "values", |json| edited(json, break_v1));
    let e = "/extensions/VRMC_vrm/expressions";
    let l = "/extensions/VRMC_vrm/lookAt/rangeMapHorizontalOuter";
    let mut expected: Vec<(String, String)> = [
        format!("{e}/custom/nod/isBinary"),
        format!("{e}/preset/happy/morphTargetBinds/0/weight"),
        format!("{l}/inputMaxValue"),
        format!("{l}/outputScale"),
    ]
    .into_iter()
    .map(|p| ("RIG_VRM_INVALID".to_string(), p))
    .collect();
    expected.sort();
    assert_eq!(findings, expected);
    // Warnings only: the avatar still checks out otherwise.
    assert_eq!(code, 0);
}

/// At t = 0.25 s (a key: 6 of 24 intervals) the walk's gaze has yaw 0.7 sin(pi/2) = 0.7 rad
/// = 40.1070 degrees and pitch 0.35 sin(pi) = 0. The outer map, clamped to 180 in and 360
/// out, turns the left eye 360 x 40.1070 / 180 = 80.2141 degrees about +Y (18, the
/// fixture's own outer scale, without the break), where 1e300 read as f32 made it NaN.
#[test]
fn a_range_map_of_1e300_is_clamped_so_the_eyes_turn_by_hand_computed_angles() {
    let avatar = broken_v1();
    let anim = rigscope::load(std::path::Path::new(&fixture("walker-walk.vrma"))).expect("vrma");
    let bound = rigscope::vrma::bind(&avatar, &anim, 0).expect("bind");
    let mut ws = rigscope::anim::Workspace::new(&avatar);
    ws.evaluate(&avatar, Some(&bound.clip), 0.25);
    let (axis, angle) = ws.pose.locals[18].rotation.to_axis_angle();
    let expected = 2.0 * 0.7f64.to_degrees();
    assert!((f64::from(angle.to_degrees()) - expected).abs() < 1e-3, "{axis} {}", angle.to_degrees());
    assert!((axis.y - 1.0).abs() < 1e-4, "{axis}");
}

/// `happy` (target 0, bind weight clamped from 3.4e38 to 1) at t = 0.25 has the walk's weight
/// 0.5 - 0.5 sin(pi/2 + 1.2) = 0.5 - 0.5 cos 1.2 = 0.318821; `nod` (target 0 x 0.5, 1 x 0.25)
/// has 0.5 + 0.45 sin(pi/2) = 0.95 and, its `isBinary` read as false, outputs 0.95, not 1.
/// So target 0 is 0.318821 + 0.95 x 0.5 = 0.793821 and target 1 is 0.95 x 0.25 = 0.2375,
/// and every skinned vertex stays finite and near the body (the walker is under 2 m tall).
#[test]
fn a_bind_weight_of_3_4e38_is_clamped_and_a_string_is_binary_reads_as_false() {
    let avatar = broken_v1();
    let anim = rigscope::load(std::path::Path::new(&fixture("walker-walk.vrma"))).expect("vrma");
    let bound = rigscope::vrma::bind(&avatar, &anim, 0).expect("bind");
    let happy =
        avatar.vrm.as_ref().expect("vrm").expressions.iter().find(|e| e.name == "happy").expect("happy");
    let body = happy.binds[0].node.expect("a VRM 1.0 bind names its node");
    let mut ws = rigscope::anim::Workspace::new(&avatar);
    ws.evaluate(&avatar, Some(&bound.clip), 0.25);
    let happy_weight = 0.5 - 0.5 * 1.2f64.cos();
    let expected = [happy_weight + 0.95 * 0.5, 0.95 * 0.25];
    let morphs = &ws.pose.morph_weights[body];
    for (got, want) in morphs.iter().zip(expected) {
        assert!((f64::from(*got) - want).abs() < 1e-5, "{morphs:?} against {expected:?}");
    }
    for primitive in &ws.primitives {
        for p in &primitive.positions {
            assert!(p.is_finite() && p.length() < 3.0, "vertex at {p}");
        }
    }
}
