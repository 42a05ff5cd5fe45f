//! VRM spring bones (issue 52) against three-vrm 3.5.5 running in Node: `pose --springs`
//! after each of 120 steps of 1/60 s equals what `tests/fixtures/vrm/three-vrm/step-springs.mjs`
//! recorded from `vrm.update(1/60)` (committed as `three-vrm-springs.json`), for every node's
//! world matrix, at rest under gravity and while walker-walk.vrma plays, on the spring
//! fixtures (VRM 1.0 with sphere, capsule and extended plane colliders and a center; VRM 0.x
//! bone groups with sphere colliders).

use serde_json::Value;

use crate::cli::rigscope;
use crate::vrm::fixture;

fn json_of(args: &[&str]) -> Value {
    let run = rigscope(args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

fn reference() -> Value {
    let path = format!("{}/tests/fixtures/vrm/three-vrm/three-vrm-springs.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("reference")).expect("JSON")
}

/// The avatar's height: the rest body's vertical extent, as drawn.
fn height(file: &str) -> f64 {
    let doc = json_of(&["pose", file, "--rest", "--json", "--node", "17"]);
    let positions = doc["frames"][0]["meshes"][0]["positions"].as_array().expect("positions");
    let ys: Vec<f64> = positions.iter().map(|p| p[1].as_f64().expect("y")).collect();
    ys.iter().cloned().fold(f64::MIN, f64::max) - ys.iter().cloned().fold(f64::MAX, f64::min)
}

#[test]
fn pose_with_springs_steps_as_three_vrm_does() {
    let reference = reference();
    for run in reference["runs"].as_array().expect("runs") {
        let file = fixture(run["file"].as_str().expect("file"));
        let tolerance = 1e-4 * height(&file);
        assert!(tolerance > 1e-5, "height {tolerance}");
        let steps = run["steps"].as_array().expect("steps");
        let times: Vec<String> = (0..steps.len()).map(|k| (k as f64 / 60.0).to_string()).collect();
        let anim = run["animation"].as_str().map(fixture);
        let mut args = vec!["pose", &file, "--springs", "--no-positions", "--json"];
        if let Some(anim) = &anim {
            args.extend(["--anim", anim]);
        } else {
            args.push("--rest");
        }
        for t in &times {
            args.extend(["--time", t]);
        }
        if anim.is_none() {
            // `--rest` takes no times: step the rest pose through a clip-less file instead.
            args.retain(|a| *a != "--rest");
        }
        let ours = json_of(&args);
        let frames = ours["frames"].as_array().expect("frames");
        assert_eq!(frames.len(), steps.len());
        let mut moved = 0.0f64;
        for (k, (mine, theirs)) in frames.iter().zip(steps).enumerate() {
            assert_eq!(mine["spring_steps"], k, "{file}");
            if k == 0 && anim.is_some() {
                // three-vrm's step 0 is the file as loaded, before the mixer first runs.
                continue;
            }
            for node in mine["nodes"].as_array().expect("nodes") {
                let n = node["node"].as_u64().expect("node") as usize;
                let Some(world) = theirs[n].as_array() else { continue };
                for (a, b) in node["world"].as_array().expect("world").iter().zip(world) {
                    let (a, b) = (a.as_f64().expect("f"), b.as_f64().expect("f"));
                    assert!(
                        (a - b).abs() <= tolerance,
                        "{file} {:?} step {k} node {n}: {a} vs {b}",
                        run["animation"]
                    );
                }
                let rest = steps[0][n].as_array().expect("rest");
                moved = moved.max((world[13].as_f64().expect("y") - rest[13].as_f64().expect("y")).abs());
            }
        }
        // The chains do swing: the comparison is not of two rest poses.
        assert!(moved > 0.02, "{file}: the springs moved only {moved}");
    }
}

/// `check`'s spring rules on broken copies of the VRM 1.0 spring avatar, each edit made here
/// (src/samplegen/vrm_springs.rs lays out the nodes: hair 21-24, tail 26-29).
#[test]
fn check_reports_the_spring_rules_on_broken_copies() {
    use crate::vrm::check_broken;
    let file = "walker-springs-vrm1.vrm";
    let springs = "/extensions/VRMC_springBone/springs";
    // The hair's third joint replaced by a tail node: not a child of the joint before it, and
    // node 28 becomes a joint of both springs.
    let (code, found) = check_broken(file, "spring-chain", |j| j.replace(r#""node":23,"#, r#""node":28,"#));
    assert_eq!(code, 1);
    assert!(
        found.contains(&("RIG_VRM_SPRING_NOT_A_CHAIN".into(), format!("{springs}/0/joints/2"))),
        "{found:?}"
    );
    assert!(
        found.contains(&("RIG_VRM_SPRING_NOT_A_CHAIN".into(), format!("{springs}/0/joints/3"))),
        "{found:?}"
    );
    assert!(found.contains(&("RIG_VRM_SPRING_JOINT_SHARED".into(), format!("{springs}/1"))), "{found:?}");
    // A collider on a node the file lacks.
    let (code, found) = check_broken(file, "spring-collider", |j| {
        j.replacen(r#"{"node":4,"shape""#, r#"{"node":99,"shape""#, 1)
    });
    assert_eq!(code, 1);
    assert_eq!(
        found,
        [(
            "RIG_VRM_SPRING_COLLIDER_NODE".to_string(),
            "/extensions/VRMC_springBone/colliders/0/node".to_string()
        )]
    );
    // Negative radii: a joint's hit radius and a collider's radius.
    let (code, found) = check_broken(file, "spring-radius", |j| {
        j.replace(r#""hitRadius":0.03"#, r#""hitRadius":-0.03"#)
            .replace(r#""radius":0.05"#, r#""radius":-0.05"#)
    });
    assert_eq!(code, 1);
    assert_eq!(
        found,
        [
            (
                "RIG_VRM_SPRING_NEGATIVE_RADIUS".to_string(),
                "/extensions/VRMC_springBone/colliders/1".to_string()
            ),
            ("RIG_VRM_SPRING_NEGATIVE_RADIUS".to_string(), format!("{springs}/1")),
        ]
    );
    // A zero-length segment: the tail's last node moved onto the joint before it.
    let (code, found) = check_broken(file, "spring-zero", |j| {
        j.replace(
            r#""name":"tail.3","translation":[0.0,-0.02,-0.08]"#,
            r#""name":"tail.3","translation":[0.0,0.0,0.0]"#,
        )
    });
    assert_eq!(code, 0, "a warning only");
    assert_eq!(found, [("RIG_VRM_SPRING_ZERO_LENGTH".to_string(), format!("{springs}/1"))]);
    // Every spring code has an explanation.
    for code in [
        "RIG_VRM_SPRING_NOT_A_CHAIN",
        "RIG_VRM_SPRING_JOINT_SHARED",
        "RIG_VRM_SPRING_ZERO_LENGTH",
        "RIG_VRM_SPRING_NEGATIVE_RADIUS",
        "RIG_VRM_SPRING_COLLIDER_NODE",
    ] {
        let run = rigscope(&["check", "--explain", code]);
        assert_eq!(run.code, 0, "{code}: {}", run.stderr);
        assert!(run.stdout.contains("three-vrm"), "{code}: {}", run.stdout);
    }
}

/// `inspect --json` lists the spring joints three-vrm builds (the bone of each joint of its
/// `VRMSpringBoneManager`, as step-springs.mjs recorded them, in its order), the colliders,
/// the meta and the lookAt.
#[test]
fn inspect_lists_the_springs_three_vrm_builds_and_the_meta() {
    let reference = reference();
    for run in reference["runs"].as_array().expect("runs").iter().filter(|r| r["animation"].is_null()) {
        let file = fixture(run["file"].as_str().expect("file"));
        let doc = json_of(&["inspect", &file, "--json"]);
        let vrm = &doc["vrm"];
        let joints: Vec<&Value> =
            vrm["springs"]["joints"].as_array().expect("joints").iter().map(|j| &j["node"]).collect();
        let theirs: Vec<&Value> = run["joints"].as_array().expect("joints").iter().collect();
        assert_eq!(joints, theirs, "{file}");
        let shapes: Vec<&str> = (vrm["springs"]["colliders"].as_array().expect("colliders").iter())
            .map(|c| c["shape"]["type"].as_str().expect("type"))
            .collect();
        let v1 = file.ends_with("vrm1.vrm");
        // src/samplegen/vrm_springs.rs: head and chest spheres, hips capsule and plane (1.0);
        // head sphere, two hips spheres (0.x).
        let expected: &[&str] =
            if v1 { &["sphere", "sphere", "capsule", "plane"] } else { &["sphere", "sphere", "sphere"] };
        assert_eq!(shapes, expected, "{file}");
        assert_eq!(vrm["meta"]["title"], "walker");
        assert_eq!(vrm["meta"]["authors"][0], "rigscope samplegen");
        let license_key = if v1 { "licenseUrl" } else { "licenseName" };
        assert!(vrm["meta"]["license"].get(license_key).is_some(), "{}", vrm["meta"]);
        assert_eq!(vrm["look_at"]["type"], "bone");
        assert_eq!(vrm["look_at"]["horizontal_outer"]["input_max"], 25.0);
    }
    let text = rigscope(&["inspect", &fixture("walker-springs-vrm1.vrm")]).stdout;
    assert!(text.contains("spring bones (2 chains, 6 joints, 4 colliders in 2 groups"), "{text}");
    assert!(text.contains("tail: colliders hips, center hips (node 0)"), "{text}");
}

/// The viewer with `--springs`: the pose is the simulation's after as many steps of dt as the
/// playback time holds, whatever frames were drawn on the way; the status line says so; going
/// back (a seek or a loop) starts the simulation again from the clip's start.
#[test]
fn the_viewer_steps_springs_at_a_fixed_dt_and_restarts_on_seek() {
    let path = fixture("walker-springs-vrm1.vrm");
    let rig = rigscope::import::load(std::path::Path::new(&path)).expect("avatar");
    let launch = rigscope::tui::Launch {
        paused: true,
        color: rigscope::render::ColorDepth::None,
        spring_dt: Some(1.0 / 60.0),
        ..Default::default()
    };
    let mut app = rigscope::tui::App::new(rig.clone(), &launch);
    // 0.5 s reached in uneven frames lands on the 30-step pose.
    for t in [0.013, 0.2, 0.21, 0.5] {
        app.player.playback.time = t;
        app.schedule.pose_dirty = true;
        app.evaluate();
    }
    let mut fresh = rigscope::anim::Workspace::new(&rig);
    rigscope::vrm::evaluate(&rig, None, 0.5, 1.0 / 60.0, &mut fresh);
    let hair_end = 24;
    assert!(app.session.ws.globals[hair_end].abs_diff_eq(fresh.globals[hair_end], 1e-6));
    let s = super::tui::screen(&mut app, 200, 50);
    assert!(s.contains("springs: 30 steps of 0.0167 s from 0, restart on seek/loop"), "{s}");
    // Back to 0.1 s: six steps from the start, as a fresh simulation.
    app.player.playback.time = 0.1;
    app.schedule.pose_dirty = true;
    app.evaluate();
    rigscope::vrm::evaluate(&rig, None, 0.1, 1.0 / 60.0, &mut fresh);
    assert!(app.session.ws.globals[hair_end].abs_diff_eq(fresh.globals[hair_end], 1e-6));
    assert_eq!(app.session.springs.as_ref().map(|s| s.steps()), Some(6));
}
