//! `KHR_animation_pointer`: pointer channels on node transforms and morph weights play exactly
//! like core channels; every other pointer is listed as not previewed. Fixtures in
//! `tests/fixtures/pointer` (written by its `make.py`): `swing-core.gltf` and
//! `swing-pointer.gltf` are the same scene and clip, the second with every target a pointer
//! and one more channel on a material.

use glam::Vec3;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use rigscope::anim::Workspace;
use rigscope::render::ColorDepth;
use rigscope::tui::ui::{self, ViewportCache};
use rigscope::tui::{App, Launch};
use serde_json::Value;

use super::cli::rigscope;

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/pointer/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn load(name: &str) -> rigscope::Rig {
    rigscope::load(fixture(name).as_ref()).expect("fixture loads")
}

#[test]
fn pointer_channels_sample_exactly_like_core_channels() {
    let core = load("swing-core.gltf");
    let pointer = load("swing-pointer.gltf");
    assert_eq!(pointer.clips[0].duration, core.clips[0].duration);
    // Reports point at the file's channels: the material channel (file index 0) is not
    // played, and the mesh-weights pointer (index 3) plays on two nodes.
    let file: Vec<usize> = (0..pointer.clips[0].channels.len()).map(|k| pointer.file_channel(0, k)).collect();
    assert_eq!(file, [1, 2, 3, 3]);
    assert_eq!(core.file_channel(0, 2), 2);
    let (mut a, mut b) = (Workspace::new(&core), Workspace::new(&pointer));
    for t in [0.0, 0.2, 0.5, 0.75, 1.0, 1.5] {
        a.evaluate(&core, core.clips.first(), t);
        b.evaluate(&pointer, pointer.clips.first(), t);
        assert_eq!(a.pose, b.pose, "t = {t}");
        assert_eq!(a.globals, b.globals, "t = {t}");
        assert_eq!(a.primitives, b.primitives, "t = {t}");
    }
}

#[test]
fn pointer_file_poses_match_the_values_worked_out_by_hand() {
    let rig = load("swing-pointer.gltf");
    let mut ws = Workspace::new(&rig);
    ws.evaluate(&rig, rig.clips.first(), 0.5);
    // Vertex 1 (1,0,0) with the morph delta (0,0,1) at weight w.
    // arm: w = 0.5 from /meshes/0/weights, turned 45 deg about z by /nodes/0/rotation.
    // lamp: w = 0.5, STEP translation still (3,0,0) at t = 0.5.
    // tip: has its own weights [0.25], which the mesh's animated weights do not touch.
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let want = [Vec3::new(h, h, 0.5), Vec3::new(4.0, 0.0, 0.5), Vec3::new(-2.0, 0.0, 0.25)];
    for (p, w) in ws.primitives.iter().zip(want) {
        assert!(p.positions[1].abs_diff_eq(w, 1e-6), "node {}: {} vs {w}", p.node, p.positions[1]);
    }
    ws.evaluate(&rig, rig.clips.first(), 1.0);
    assert!(ws.primitives[1].positions[1].abs_diff_eq(Vec3::new(4.0, 2.0, 1.0), 1e-6));
}

#[test]
fn inspect_lists_the_material_channel_as_not_previewed() {
    let run = rigscope(&["inspect", &fixture("swing-pointer.gltf"), "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let clip = &doc["clips"][0];
    // The mesh-weights pointer plays on two nodes (arm and lamp): 4 played channels.
    assert_eq!(clip["channels"], 4);
    let np = clip["not_previewed"].as_array().expect("not_previewed");
    assert_eq!(np.len(), 1);
    assert_eq!(np[0]["channel"], 0);
    assert_eq!(np[0]["pointer"], "/materials/0/pbrMetallicRoughness/baseColorFactor");
    assert_eq!(np[0]["interpolation"], "LINEAR");
    assert_eq!(np[0]["keys"], 2);
    let text = rigscope(&["inspect", &fixture("swing-pointer.gltf")]);
    assert!(
        text.stdout.contains("not previewed: channel 0 /materials/0/pbrMetallicRoughness/baseColorFactor"),
        "{}",
        text.stdout
    );
    // The core file has nothing unplayed, and its JSON has no such field.
    let core = rigscope(&["inspect", &fixture("swing-core.gltf"), "--json"]);
    let doc: Value = serde_json::from_str(&core.stdout).expect("JSON");
    assert!(doc["clips"][0].get("not_previewed").is_none());
}

#[test]
fn the_dope_sheet_shows_the_unplayed_channel_after_the_played_ones() {
    let launch = Launch { paused: true, color: ColorDepth::None, ..Launch::default() };
    let mut app = App::new(load("swing-pointer.gltf"), &launch);
    app.evaluate();
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("test terminal");
    let mut cache = ViewportCache::default();
    terminal
        .draw(|f| {
            ui::draw(f, &app, &mut cache);
        })
        .expect("draw");
    let screen = terminal.backend().to_string();
    assert!(screen.contains("4 channels, 1 not previewed"), "{screen}");
    assert!(screen.contains("-L /materials/0"), "{screen}");
    insta::assert_snapshot!(screen);
}

/// Pointers rigscope cannot play, or that point nowhere, load; only the nonexistent target is
/// a finding.
#[test]
fn odd_pointers_load_and_are_listed() {
    let text = std::fs::read_to_string(fixture("swing-pointer.gltf")).expect("fixture");
    let odd = text
        .replace("/materials/0/pbrMetallicRoughness/baseColorFactor", "/cameras/0/perspective/yfov")
        .replace("/nodes/1/translation", "/nodes/7/translation")
        .replace("/meshes/0/weights", "/extensions/KHR_lights_punctual/lights/0/color");
    let rig = rigscope::load_bytes(odd.as_bytes(), "odd.gltf", None).expect("loads");
    let pointers: Vec<&str> = rig.unpreviewed_channels.iter().map(|u| u.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        [
            "/cameras/0/perspective/yfov",
            "/nodes/7/translation",
            "/extensions/KHR_lights_punctual/lights/0/color"
        ]
    );
    let channels: Vec<usize> = rig.unpreviewed_channels.iter().map(|u| u.channel).collect();
    assert_eq!(channels, [0, 2, 3]);
    assert_eq!(rig.clips[0].channels.len(), 1);
    let invalid: Vec<&str> = rig
        .findings
        .iter()
        .filter(|f| f.code == "RIG_ANIMATION_POINTER_INVALID")
        .map(|f| f.pointer.as_str())
        .collect();
    assert_eq!(invalid, ["/animations/0/channels/2"]);
    // A pointer channel's faulty sampler is named by its place in the file.
    let bad = text.replace("\"sampler\": 2,", "\"sampler\": 9,");
    let err = rigscope::load_bytes(bad.as_bytes(), "bad.gltf", None).err().map(|e| e.to_string());
    assert!(
        err.as_deref().is_some_and(|e| e.contains("animations[0].channels[3]") && e.contains("sampler 9")),
        "{err:?}"
    );
    let bad = text.replace("\"sampler\": 2,", "");
    let err = rigscope::load_bytes(bad.as_bytes(), "bad.gltf", None).err().map(|e| e.to_string());
    assert!(
        err.as_deref().is_some_and(|e| e.contains("animations[0].channels[3].sampler: required")),
        "{err:?}"
    );
    // A pointer channel without its extension object is ignored, as glTF says of a channel
    // without a target node.
    let mut bare: Value = serde_json::from_str(&text).expect("JSON");
    let target = &mut bare["animations"][0]["channels"][1]["target"];
    target.as_object_mut().expect("target").remove("extensions");
    let bare = serde_json::to_vec(&bare).expect("JSON");
    let rig = rigscope::load_bytes(&bare, "bare.gltf", None).expect("loads");
    assert_eq!(rig.unpreviewed_channels.iter().filter(|u| u.pointer.is_empty()).count(), 1);
}

/// The pointer spec converts plain integer outputs to equal floats: BYTE translations play
/// like the FLOAT ones of the core file.
#[test]
fn integer_outputs_of_pointer_channels_convert_to_equal_floats() {
    use base64::Engine;
    let text = std::fs::read_to_string(fixture("swing-pointer.gltf")).expect("fixture");
    let mut doc: Value = serde_json::from_str(&text).expect("JSON");
    // (3,0,0), (3,2,0) as BYTE, not normalized, in a second buffer.
    let bytes = base64::engine::general_purpose::STANDARD.encode([3u8, 0, 0, 3, 2, 0]);
    let uri = format!("data:application/octet-stream;base64,{bytes}");
    doc["buffers"].as_array_mut().expect("buffers").push(serde_json::json!({"byteLength": 6, "uri": uri}));
    let view = doc["bufferViews"].as_array().expect("views").len();
    doc["bufferViews"].as_array_mut().expect("views").push(serde_json::json!({"buffer": 1, "byteLength": 6}));
    let accessor = doc["accessors"].as_array().expect("accessors").len();
    doc["accessors"]
        .as_array_mut()
        .expect("accessors")
        .push(serde_json::json!({"bufferView": view, "componentType": 5120, "count": 2, "type": "VEC3"}));
    doc["animations"][0]["samplers"][1]["output"] = accessor.into();
    let rig =
        rigscope::load_bytes(&serde_json::to_vec(&doc).expect("JSON"), "bytes.gltf", None).expect("loads");
    let core = load("swing-core.gltf");
    let (mut a, mut b) = (Workspace::new(&core), Workspace::new(&rig));
    for t in [0.0, 0.5, 1.0] {
        a.evaluate(&core, core.clips.first(), t);
        b.evaluate(&rig, rig.clips.first(), t);
        assert_eq!(a.primitives, b.primitives, "t = {t}");
    }
    assert!(b.primitives[1].positions[1].abs_diff_eq(Vec3::new(4.0, 2.0, 1.0), 0.0));
}
