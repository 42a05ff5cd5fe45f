//! The viewer's bind line and bind-pose ghost against `check` on quantized skins (issue 37):
//! the line says what `check` says for every joint, and the ghost is the dequantized mesh
//! where the rest pose draws it, not the quantizer's grid.

use std::path::Path;

use glam::{Quat, Vec3};
use rigscope::anim::Workspace;
use rigscope::diagnose::{Options, check};
use rigscope::render::ColorDepth;
use rigscope::tui::{App, Launch};
use rigscope::{Rig, load};

use super::tui::{press, screen};

/// Every pipeline fixture whose skinned POSITION is stored as integers (gltfpack, and
/// glTF Transform's quantize, meshopt and optimize), with the sample it was made from.
const QUANTIZED: [(&str, &str); 7] = [
    ("tests/fixtures/pipeline/walker.gltfpack.glb", "walker.glb"),
    ("tests/fixtures/pipeline/walker.gltfpack-cc.glb", "walker.glb"),
    ("tests/fixtures/pipeline/walker.quantize.glb", "walker.glb"),
    ("tests/fixtures/pipeline/walker.meshopt.glb", "walker.glb"),
    ("tests/fixtures/pipeline/walker.optimize.glb", "walker.glb"),
    ("tests/fixtures/pipeline/seed-arm.gltfpack-cf.gltf", "seed-arm.gltf"),
    ("tests/fixtures/pipeline/seed-arm.gltfpack-khr.glb", "seed-arm.gltf"),
];

fn rig(file: &str) -> Rig {
    load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).expect("fixture loads")
}

/// For every joint of skin 0, in tree order: whether the viewer's bind line says the rest
/// pose is the bind pose, and whether `check` has no IBM_BIND_MISMATCH for that joint or
/// for the whole skin.
fn verdicts(rig: Rig) -> Vec<(String, bool, bool)> {
    let report = check(&rig, &Options::default());
    let flagged = |j: usize| {
        report.findings.iter().any(|f| {
            f.code == "RIG_IBM_BIND_MISMATCH"
                && (f.pointer == "/skins/0" || f.pointer == format!("/skins/0/joints/{j}"))
        })
    };
    let launch = Launch { paused: true, color: ColorDepth::None, ..Launch::default() };
    let mut app = App::new(rig, &launch);
    let joints = app.session.rig.skins[0].joints.len();
    let mut out = Vec::new();
    for _ in 0..joints {
        let j = app.selected_joint().expect("a joint is selected");
        let s = screen(&mut app, 200, 60);
        let kept = s.contains("the rest pose is the bind pose");
        let not_kept = s.contains("the rest pose is not the bind pose");
        assert!(kept != not_kept, "one bind line for joint {j}:\n{s}");
        out.push((app.session.rig.node_label(app.session.rig.skins[0].joints[j]), kept, !flagged(j)));
        press(&mut app, "j");
    }
    let mut seen: Vec<String> = out.iter().map(|o| o.0.clone()).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), joints, "every joint was visited");
    out
}

fn assert_agree(what: &str, verdicts: &[(String, bool, bool)]) {
    for (name, viewer, check) in verdicts {
        assert_eq!(viewer, check, "{what}, joint {name}: viewer says kept={viewer}, check kept={check}");
    }
}

#[test]
fn the_bind_line_says_what_check_says_on_quantized_skins() {
    for (file, _) in QUANTIZED {
        let v = verdicts(rig(file));
        assert_agree(file, &v);
        // check reports nothing here: the shared transform is the dequantization.
        assert!(v.iter().all(|(_, viewer, _)| *viewer), "{file}: {v:?}");
    }
}

#[test]
fn the_bind_line_says_what_check_says_where_check_finds_a_mismatch() {
    // A joint moved in the rest pose of a quantized skin: check names it (and the joints
    // below it), and so does the viewer; the rest still agree.
    let mut moved = rig(QUANTIZED[0].0);
    let forearm = moved.nodes.iter().position(|n| n.name.as_deref() == Some("forearm.L")).expect("forearm.L");
    moved.nodes[forearm].rest.translation += Vec3::new(0.0, 0.0, 0.1);
    let v = verdicts(moved);
    assert_agree("walker.gltfpack.glb, forearm.L moved", &v);
    let odd: Vec<&str> = v.iter().filter(|o| !o.1).map(|o| o.0.as_str()).collect();
    assert_eq!(odd, ["forearm.L", "hand.L"]);

    // The whole unquantized walker turned at its root: the skin finding, on every joint.
    let mut turned = load(Path::new(&super::cli::sample("walker.glb"))).expect("sample loads");
    let hips = turned.nodes.iter().position(|n| n.name.as_deref() == Some("hips")).expect("hips");
    turned.nodes[hips].rest.rotation = Quat::from_rotation_x(0.5) * turned.nodes[hips].rest.rotation;
    let v = verdicts(turned);
    assert_agree("walker.glb, turned", &v);
    assert!(v.iter().all(|o| !o.1), "{v:?}");
}

/// Smallest box around every deformed position of `ws`.
fn bounds(ws: &Workspace) -> (Vec3, Vec3) {
    let all = ws.primitives.iter().flat_map(|p| p.positions.iter().copied());
    all.fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| (lo.min(p), hi.max(p)))
}

#[test]
fn the_bind_pose_ghost_is_the_dequantized_mesh_where_the_rest_pose_draws_it() {
    // Each fixture is one of the project's samples run through a quantizer: its ghost must
    // cover the sample's own mesh (stored positions, which are its bind pose) up to the
    // quantization step, and the skinned rest pose of the same file.
    for (file, source) in QUANTIZED {
        let quantized = rig(file);
        let rest = bounds(&Workspace::at(&quantized, None, 0.0));
        let launch = Launch { paused: true, color: ColorDepth::None, ..Launch::default() };
        let app = App::new(quantized, &launch);
        let ghost = bounds(app.bind_pose());
        let original = load(Path::new(&super::cli::sample(source))).expect("sample loads");
        let stored =
            original.meshes.iter().flat_map(|m| &m.primitives).flat_map(|p| p.positions.iter().copied());
        let stored = stored.fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| (lo.min(p), hi.max(p)));
        // 14-bit positions over a rig under 2 units tall: a step of about 1e-4.
        let step = 1e-3;
        for (what, want) in [("rest", rest), ("sample", stored)] {
            assert!(
                ghost.0.abs_diff_eq(want.0, step) && ghost.1.abs_diff_eq(want.1, step),
                "{file}: ghost {ghost:?}, {what} {want:?}"
            );
        }
    }
}
