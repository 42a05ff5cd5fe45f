//! A VRM expression held by hand in the viewer (`X`, then `(` `)`): the bound mesh's morph
//! weights are the expression's bind weights times the held weight, read here from the
//! fixture's own JSON (tests/fixtures/vrm/README.md), not from rigscope.

use rigscope::render::ColorDepth;
use rigscope::tui::{App, Launch};
use serde_json::Value;

use crate::tui::press;
use crate::vrm::fixture;

fn viewer(file: &str) -> App {
    let rig = rigscope::load(std::path::Path::new(&fixture(file))).expect("fixture loads");
    App::new(rig, &Launch { paused: true, color: ColorDepth::None, ..Launch::default() })
}

fn gltf_json(file: &str) -> Value {
    let bytes = std::fs::read(fixture(file)).expect("fixture reads");
    let len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
    serde_json::from_slice(&bytes[20..20 + len]).expect("JSON chunk")
}

/// Presses `X` until the status line names `name`.
fn hold(app: &mut App, name: &str) {
    for _ in 0..10 {
        press(app, "X");
        if app.status.message.as_deref().is_some_and(|m| m.starts_with(&format!("expression {name} at"))) {
            return;
        }
    }
    panic!("X never reached expression {name}: {:?}", app.status.message);
}

/// Node `node`'s morph target weights after the pose is evaluated.
fn morphs(app: &mut App, node: usize) -> Vec<f32> {
    app.evaluate();
    app.session.ws.pose.morph_weights[node].clone()
}

/// (node, target, weight) binds of `nod`, as the VRM 1.0 file writes them.
fn nod_binds_v1() -> Vec<(usize, usize, f32)> {
    let json = gltf_json("walker-vrm1.vrm");
    let binds = &json["extensions"]["VRMC_vrm"]["expressions"]["custom"]["nod"]["morphTargetBinds"];
    let binds = binds.as_array().expect("nod binds");
    (binds.iter())
        .map(|b| {
            let n = |k: &str| b[k].as_u64().expect("index") as usize;
            (n("node"), n("index"), b["weight"].as_f64().expect("weight") as f32)
        })
        .collect()
}

#[test]
fn a_held_expression_at_full_weight_sets_its_bind_weights() {
    let binds = nod_binds_v1();
    let node = binds[0].0;
    let mut app = viewer("walker-vrm1.vrm");
    assert_eq!(morphs(&mut app, node), vec![0.0, 0.0], "the rest pose holds no expression");
    hold(&mut app, "nod");
    assert_eq!(app.status.message.as_deref(), Some("expression nod at 0.0"));
    press(&mut app, &")".repeat(12));
    assert_eq!(app.status.message.as_deref(), Some("expression nod at 1.0"), "the weight stops at 1");
    let mut expected = vec![0.0f32; 2];
    for &(n, target, weight) in &binds {
        assert_eq!(n, node);
        expected[target] += weight;
    }
    assert_eq!(morphs(&mut app, node), expected);
    // `nod` is binary: three-vrm outputs 1 above 0.5 and 0 at or below it.
    press(&mut app, "((((");
    assert_eq!(app.status.message.as_deref(), Some("expression nod at 0.6"));
    assert_eq!(morphs(&mut app, node), expected);
    press(&mut app, "((");
    assert_eq!(app.status.message.as_deref(), Some("expression nod at 0.4"));
    assert_eq!(morphs(&mut app, node), vec![0.0, 0.0]);
    press(&mut app, "((((((");
    assert_eq!(app.status.message.as_deref(), Some("expression nod at 0.0"), "the weight stops at 0");
    press(&mut app, "R");
    let said = app.status.message.clone().unwrap_or_default();
    assert!(said.contains("not reproduced: the expression held by hand"), "{said}");
}

#[test]
fn a_vrm0_blend_shape_group_drives_every_node_drawing_its_mesh_at_a_hundredth() {
    let json = gltf_json("walker-vrm0.vrm");
    let group = (json["extensions"]["VRM"]["blendShapeMaster"]["blendShapeGroups"].as_array())
        .and_then(|g| g.iter().find(|g| g["name"] == "Joy"))
        .expect("Joy group")
        .clone();
    let bind = &group["binds"][0];
    let mesh = bind["mesh"].as_u64().expect("mesh");
    let target = bind["index"].as_u64().expect("index") as usize;
    let weight = bind["weight"].as_f64().expect("weight") as f32 / 100.0;
    let nodes: Vec<usize> = (json["nodes"].as_array().expect("nodes").iter().enumerate())
        .filter(|(_, n)| n["mesh"].as_u64() == Some(mesh))
        .map(|(i, _)| i)
        .collect();
    assert!(!nodes.is_empty());
    let mut app = viewer("walker-vrm0.vrm");
    // three-vrm names the VRM 0.x preset `joy` by its VRM 1.0 name.
    hold(&mut app, "happy");
    press(&mut app, "))))))");
    assert_eq!(app.status.message.as_deref(), Some("expression happy at 0.6"));
    for node in nodes {
        let got = morphs(&mut app, node);
        assert!((got[target] - 0.6 * weight).abs() < 1e-6, "node {node}: {got:?}");
    }
}

#[test]
fn files_without_vrm_expressions_say_so_and_x_comes_back_to_none() {
    let mut app = viewer("walker-vrm1.vrm");
    press(&mut app, "XXXX");
    assert_eq!(app.status.message.as_deref(), Some("no expression held (the clip's own weights play)"));
    let rig = rigscope::load(std::path::Path::new(&crate::cli::sample("walker.glb"))).expect("loads");
    let mut plain = App::new(rig, &Launch { paused: true, ..Launch::default() });
    press(&mut plain, "X");
    assert_eq!(plain.status.message.as_deref(), Some("no VRM expressions in this file"));
}

#[test]
fn an_expression_that_binds_no_morph_target_says_so() {
    let bytes = std::fs::read(fixture("walker-vrm1.vrm")).expect("fixture");
    let (json, bin) = crate::vrm::split_glb(&bytes);
    let bare = json.replace(
        r#""nod":{"isBinary":true,"morphTargetBinds":[{"index":0,"node":17,"weight":0.5},{"index":1,"node":17,"weight":0.25}]}"#,
        r#""nod":{"isBinary":true,"morphTargetBinds":[]}"#,
    );
    assert_ne!(bare, json, "the edit changed nothing");
    let (_guard, dir) = crate::temp::folder("bare-nod");
    let path = dir.join("bare-nod.vrm");
    std::fs::write(&path, crate::vrm::join_glb(&bare, &bin)).expect("write copy");
    let rig = rigscope::load(&path).expect("copy loads");
    let mut app = App::new(rig, &Launch { paused: true, ..Launch::default() });
    hold(&mut app, "nod");
    press(&mut app, "))))))))))");
    assert_eq!(
        app.status.message.as_deref(),
        Some("expression nod at 1.0 (it binds no morph target: nothing moves)")
    );
    assert_eq!(morphs(&mut app, 17), vec![0.0, 0.0]);
}

/// With the walk `.vrma` playing, its `happy` track gives way to the held weight (three-vrm's
/// `setValue` after the mixer) while its `nod` track still plays: the body's target 1 comes
/// from `nod` alone (0.25 per unit, no other expression binds it but the untracked `blink`),
/// which gives `nod`'s output, and target 0 is then `held x 1 + nod x 0.5`.
#[test]
fn a_held_expression_overrides_the_clips_track_for_that_expression_only() {
    let mut avatar = rigscope::load(std::path::Path::new(&fixture("walker-vrm1.vrm"))).expect("avatar");
    let anim = rigscope::load(std::path::Path::new(&fixture("walker-walk.vrma"))).expect("vrma");
    let bound = rigscope::vrma::bind(&avatar, &anim, 0).expect("binds");
    avatar.clips.push(bound.clip);
    let clip = Some(avatar.clips.len() - 1);
    let mut app = App::new(avatar, &Launch { paused: true, time: 0.3, clip, ..Launch::default() });
    let played = morphs(&mut app, 17);
    let nod = played[1] / 0.25;
    hold(&mut app, "happy");
    press(&mut app, ")))");
    let held = morphs(&mut app, 17);
    assert!((held[1] - played[1]).abs() < 1e-6, "nod still plays: {played:?} {held:?}");
    assert!((held[0] - (0.3 + 0.5 * nod)).abs() < 1e-6, "happy held at 0.3: {held:?} (nod {nod})");
    assert!((played[0] - 0.5 * nod - 0.3).abs() > 1e-3, "the clip's own happy is not 0.3 here: {played:?}");
    let screen = crate::tui::screen(&mut app, 160, 48);
    assert!(screen.contains("happy 0.300"), "the details panel shows the held weight:\n{screen}");
}

/// A live reload keeps the expression held, found by name in the re-read file, at its weight.
#[test]
fn a_reload_keeps_the_held_expression() {
    let binds = nod_binds_v1();
    let node = binds[0].0;
    let mut app = viewer("walker-vrm1.vrm");
    hold(&mut app, "nod");
    press(&mut app, "))))))))))");
    let held = morphs(&mut app, node);
    let rig = rigscope::load(std::path::Path::new(&fixture("walker-vrm1.vrm"))).expect("fixture loads");
    app.reload(rigscope::tui::Session::new(rig, &Launch { paused: true, ..Launch::default() }));
    assert_eq!(morphs(&mut app, node), held);
    press(&mut app, "(");
    assert_eq!(app.status.message.as_deref(), Some("expression nod at 0.9"));
}
