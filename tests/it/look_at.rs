//! lookAt aimed at a target point (issue 52 item 3) against three-vrm 3.5.5 running in Node:
//! `tests/fixtures/vrm/three-vrm/look-at.mjs` set `vrm.lookAt.target` on the bone-type,
//! expression-type and VRM 0.x avatars, at rest and while walker-walk.vrma plays, for targets
//! all round the head and past every range map, and while the spring avatars step
//! (`three-vrm-look-at.json`). Compared here: yaw and pitch, the head's and eyes' world
//! matrices and the morph target weights the look expressions give.

use glam::DVec3;
use serde_json::Value;

use crate::cli::rigscope;
use crate::vrm::fixture;
use rigscope::anim::Workspace;
use rigscope::vrm::{Look, LookAtTarget};

/// Yaw and pitch, in radians (the documents hold degrees): both sides compute them in f64,
/// but a bound `.vrma`'s keys are f32 here (the humanoid step baked into them), so a walking
/// head differs by about 2e-8.
const ANGLE: f64 = 1e-6;
/// World matrix entries (metres for the translation) and morph weights: rigscope's matrices
/// are f32, whose steps near 1.6 m are 1.2e-7.
const MATRIX: f64 = 1e-6;

fn reference() -> Value {
    let path = format!("{}/tests/fixtures/vrm/three-vrm/three-vrm-look-at.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("reference")).expect("JSON")
}

fn load(file: &str) -> rigscope::rig::Rig {
    rigscope::import::load(std::path::Path::new(&fixture(file))).expect("fixture")
}

fn point(entry: &Value) -> DVec3 {
    let p: Vec<f64> =
        entry["point"].as_array().expect("point").iter().map(|x| x.as_f64().expect("x")).collect();
    DVec3::new(p[0], p[1], p[2])
}

/// Asserts that one frame of rigscope equals three-vrm's; returns the largest differences
/// (angle, matrix).
fn compare(what: &str, look: Look, ws: &Workspace, theirs: &Value) -> (f64, f64) {
    let (yaw, pitch) = (theirs["yaw"].as_f64().expect("yaw"), theirs["pitch"].as_f64().expect("pitch"));
    let angle = (look.yaw - yaw).abs().max((look.pitch - pitch).abs()).to_radians();
    assert!(angle <= ANGLE, "{what}: yaw, pitch {} {} vs {yaw} {pitch}", look.yaw, look.pitch);
    let mut matrix = 0.0f64;
    for (node, world) in theirs["worlds"].as_object().expect("worlds") {
        let n: usize = node.parse().expect("node");
        for (a, b) in ws.globals[n].to_cols_array().iter().zip(world.as_array().expect("matrix")) {
            matrix = matrix.max((f64::from(*a) - b.as_f64().expect("entry")).abs());
        }
    }
    for (node, weights) in theirs["morphs"].as_object().expect("morphs") {
        let n: usize = node.parse().expect("node");
        for (a, b) in ws.pose.morph_weights[n].iter().zip(weights.as_array().expect("weights")) {
            matrix = matrix.max((f64::from(*a) - b.as_f64().expect("weight")).abs());
        }
    }
    assert!(matrix <= MATRIX, "{what}: world matrices or morph weights differ by {matrix}");
    (angle, matrix)
}

#[test]
fn the_gaze_follows_a_target_as_three_vrm_aims_it() {
    let reference = reference();
    let anim = load("walker-walk.vrma");
    let poses = reference["poses"].as_array().expect("poses");
    assert_eq!(poses.len(), 3 * 4 * 11);
    let mut worst = (0.0f64, 0.0f64);
    let mut clamped = 0;
    for entry in poses {
        let file = entry["file"].as_str().expect("file");
        let avatar = load(file);
        let bound =
            entry["animation"].as_str().map(|_| rigscope::vrma::bind(&avatar, &anim, 0).expect("bind"));
        let clip = bound.as_ref().map(|b| &b.clip);
        let t = entry["t"].as_f64().unwrap_or(0.0);
        let target = LookAtTarget::new(&avatar, point(entry)).expect("the avatar has a lookAt");
        let mut ws = Workspace::new(&avatar);
        let look = rigscope::vrm::sample_aimed(&avatar, clip, t, None, &target, &mut ws).expect("aimed");
        ws.update_matrices(&avatar);
        let what = format!("{file} t={t} {}", entry["target"]);
        let (angle, matrix) = compare(&what, look, &ws, entry);
        worst = (worst.0.max(angle), worst.1.max(matrix));
        if look.yaw.abs() > 30.0 || look.pitch.abs() > 15.0 {
            clamped += 1;
        }
    }
    // Most targets lie past the range maps' inputs, so the clamp is exercised.
    assert!(clamped > 100, "{clamped}");
    eprintln!("lookAt vs three-vrm: angles within {:.1e} rad, matrices within {:.1e}", worst.0, worst.1);
}

/// While the spring avatars step, each step's gaze is seen from the head as the previous
/// step's render left it, and it runs before the springs (three-vrm's `VRM.update`).
#[test]
fn the_gaze_steps_with_the_springs_as_three_vrm_steps_it() {
    let reference = reference();
    let anim = load("walker-walk.vrma");
    for run in reference["steps"].as_array().expect("steps") {
        let file = run["file"].as_str().expect("file");
        let avatar = load(file);
        let bound = rigscope::vrma::bind(&avatar, &anim, 0).expect("bind");
        let target = LookAtTarget::new(&avatar, point(run)).expect("lookAt");
        let dt = run["dt"].as_f64().expect("dt");
        let mut stepper = rigscope::vrm::Stepper::new(dt).with_look_at(Some(target));
        let mut ws = Workspace::new(&avatar);
        let frames = run["frames"].as_array().expect("frames");
        let mut stale = 0.0f64;
        for (k, theirs) in frames.iter().enumerate() {
            stepper.advance_to(&avatar, Some(&bound.clip), (k + 1) as f64 * dt, &mut ws);
            ws.update_matrices(&avatar);
            let look = stepper.look().expect("a step aims the gaze");
            // Worlds only: the binary `nod` sits at its 0.5 split at some steps, where the
            // mixer's f64 clock and the f32 step time fall on different sides.
            let mut theirs = theirs.clone();
            theirs["morphs"] = serde_json::json!({});
            compare(&format!("{file} step {}", k + 1), look, &ws, &theirs);
            // The head of this very step would give another gaze: the order is tested.
            let fresh = LookAtTarget::new(&avatar, point(run)).expect("lookAt");
            let now = fresh.look(fresh.head_world(&avatar, &ws.pose));
            stale = stale.max((now.yaw - look.yaw).abs().to_radians());
        }
        assert!(stale > 100.0 * ANGLE, "{file}: the stored head changes nothing ({stale})");
    }
}

/// `pose --look-at X,Y,Z` reports the gaze and turns the eyes as the library does;
/// `--look-at camera` aims at the eye of render's default camera, which the test frames itself.
#[test]
fn pose_takes_a_point_or_the_camera() {
    let reference = reference();
    let entry = reference["poses"]
        .as_array()
        .expect("poses")
        .iter()
        .find(|p| p["file"] == "walker-vrm1.vrm" && p["t"].is_null() && p["target"] == "past_maps")
        .expect("entry");
    let file = fixture("walker-vrm1.vrm");
    let run = rigscope(&[
        "pose",
        &file,
        "--rest",
        "--look-at",
        "1.5,2.5,1",
        "--json",
        "--node",
        "18",
        "--no-positions",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let frame = &doc["frames"][0];
    assert_eq!(frame["look_at"]["target"], serde_json::json!([1.5, 2.5, 1.0]));
    for key in ["yaw", "pitch"] {
        let (a, b) = (frame["look_at"][key].as_f64().expect("angle"), entry[key].as_f64().expect("angle"));
        assert!((a - b).abs().to_radians() <= ANGLE, "{key}: {a} vs {b}");
    }
    let world = frame["nodes"][0]["world"].as_array().expect("world");
    for (a, b) in world.iter().zip(entry["worlds"]["18"].as_array().expect("eye")) {
        assert!((a.as_f64().expect("f") - b.as_f64().expect("f")).abs() <= MATRIX);
    }

    let avatar = load("walker-vrm1.vrm");
    let mut ws = Workspace::new(&avatar);
    ws.evaluate(&avatar, None, 0.0);
    let yaw = rigscope::render::OPENING_YAW_DEGREES.to_radians();
    let pitch = rigscope::render::OPENING_PITCH_DEGREES.to_radians();
    let eye = rigscope::render::framed_camera(&ws, yaw, pitch, 1.0).eye().as_dvec3();
    let run = rigscope(&["pose", &file, "--rest", "--look-at", "camera", "--json", "--no-positions"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let aimed: Vec<f64> = doc["frames"][0]["look_at"]["target"]
        .as_array()
        .expect("target")
        .iter()
        .map(|x| x.as_f64().expect("x"))
        .collect();
    assert!((DVec3::new(aimed[0], aimed[1], aimed[2]) - eye).length() < 1e-9, "{aimed:?} vs {eye}");
    // The opening view looks from the front, a little to the side and above: the eyes turn
    // towards it.
    let yaw = doc["frames"][0]["look_at"]["yaw"].as_f64().expect("yaw");
    assert!(yaw.signum() == eye.x.signum() && yaw.abs() > 1.0, "{yaw} {eye}");
}

/// A file without a lookAt says so and poses as it would without `--look-at`; bad values
/// are refused with a message.
#[test]
fn look_at_without_a_lookat_or_with_a_bad_point() {
    let walker = format!("{}/samples/walker.glb", env!("CARGO_MANIFEST_DIR"));
    let run = rigscope(&["pose", &walker, "--rest", "--look-at", "0,1,2", "--json", "--no-positions"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("--look-at: not a VRM avatar"), "{}", run.stderr);
    let plain = rigscope(&["pose", &walker, "--rest", "--json", "--no-positions"]);
    assert_eq!(run.stdout, plain.stdout);
    let file = fixture("walker-vrm1.vrm");
    for bad in ["1,2", "a,b,c", "1,2,3,4", "nan,0,0"] {
        let run = rigscope(&["render", &file, "--look-at", bad]);
        assert_eq!(run.code, 2, "{bad}");
        assert!(run.stderr.contains("neither `camera` nor a point"), "{bad}: {}", run.stderr);
    }
}
