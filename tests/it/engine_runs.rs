//! The `babylon` and `blender` profiles against Babylon.js and Blender themselves:
//! `tests/fixtures/engines/*.babylon.json` were written by `babylon-reference.mjs` (Babylon.js
//! 9.35 with its glTF loader, in Node on a NullEngine) and `*.blender.json` by
//! `blender-reference.py` (Blender 4.5.15 as the `bpy` module, its glTF importer and the
//! depsgraph-evaluated mesh at each key time); the README there has the commands.
//!
//! `pose --engine babylon|blender --json` must put every vertex where the engine draws it,
//! within 1e-4 of the model's size, and give no position (null) where the engine gives none;
//! `check --json`'s per-engine counts (vertices moved, vertices vanishing) must be the
//! engine's own, counted from its positions against the stored-weights ones. Blender refuses
//! `bad-weights.glb` (a joint index out of range), and `check` must say so.
//!
//! The files: `engine-weights.glb` (tests/fixtures/engines, one weight problem per vertex, see
//! `samplegen::engine_weights`), `samples/bad-weights.glb`, and CesiumMan-legacy from
//! `$RIGSCOPE_ASSETS` (skipped with a note without it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::Value;

use super::assets::assets_dir;
use super::cli::{rigscope, sample};

/// (mesh, primitive, vertex).
type Id = (u64, u64, u64);

/// Of the model's size.
const TOLERANCE: f64 = 1e-4;
/// `diagnose::consequence::MOVE_FRACTION`: a vertex "moves" past this fraction of the model.
const MOVE_FRACTION: f64 = 1e-5;

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/engines").join(name).display().to_string()
}

fn reference(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture(name)).expect("reference JSON")).expect("JSON")
}

fn json(args: &[&str]) -> Value {
    let run = rigscope(args);
    assert!(run.code == 0 || run.code == 1, "{args:?}: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

/// `pose --json` positions of (node, primitive) at one reference frame, under `engine`.
fn pose_positions(file: &str, engine: &str, frame: &Value) -> BTreeMap<(u64, u64), Vec<Option<[f64; 3]>>> {
    let t = frame["t"].as_f64().expect("t").to_string();
    let clip = frame["clip"].as_u64().map(|c| format!("#{c}"));
    let mut args = vec!["pose", file, "--engine", engine, "--json"];
    match &clip {
        Some(c) => args.extend(["--clip", c, "--time", &t]),
        None => args.push("--rest"),
    }
    let pose = json(&args);
    assert_eq!(pose["engine"], engine);
    let mut out = BTreeMap::new();
    for m in pose["frames"][0]["meshes"].as_array().expect("meshes") {
        let key = (m["node"].as_u64().expect("node"), m["primitive"].as_u64().expect("primitive"));
        out.insert(key, m["positions"].as_array().expect("positions").iter().map(xyz).collect());
    }
    out
}

fn id(v: &Value) -> Id {
    let n = |k: &str| v[k].as_u64().unwrap_or(0);
    (n("mesh"), n("primitive"), n("vertex"))
}

fn xyz(v: &Value) -> Option<[f64; 3]> {
    let a = v.as_array()?;
    Some([a.first()?.as_f64()?, a.get(1)?.as_f64()?, a.get(2)?.as_f64()?])
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>().sqrt()
}

/// What one engine did in the reference, against rigscope's profile: every position compared,
/// and the vertices (mesh, primitive, vertex) it moves from the stored-weights place and those
/// it gives no position, counted from the engine's own positions.
struct Compared {
    positions: usize,
    moved: BTreeSet<Id>,
    vanished: BTreeSet<Id>,
}

/// Compares `pose --engine ENGINE` with `path` of each reference frame ("gpu" for Babylon's
/// shader, "positions" for Blender) and counts what the engine moves against `pose`'s stored
/// positions at the same frames.
fn compare(file: &str, engine: &str, reference: &Value, path: &str, diagonal: f64) -> Compared {
    let mut out = Compared { positions: 0, moved: BTreeSet::new(), vanished: BTreeSet::new() };
    for frame in reference["frames"].as_array().expect("frames") {
        let drawn = pose_positions(file, engine, frame);
        let stored = pose_positions(file, "stored", frame);
        for want in frame["meshes"].as_array().expect("meshes") {
            let key = (want["node"].as_u64().expect("node"), want["primitive"].as_u64().expect("primitive"));
            let mesh = want["mesh"].as_u64().expect("mesh");
            let every = want["every"].as_u64().unwrap_or(1) as usize;
            let (got, base) = (&drawn[&key], &stored[&key]);
            for (i, p) in want[path].as_array().expect("positions").iter().enumerate() {
                let v = i * every;
                let id = (mesh, key.1, v as u64);
                match (xyz(p), got[v]) {
                    (None, None) => {
                        out.vanished.insert(id);
                    }
                    (Some(p), Some(q)) => {
                        let d = distance(p, q);
                        assert!(d <= TOLERANCE * diagonal, "{file} {engine} {frame:?}: vertex {v} {d} off");
                        if base[v].is_none_or(|b| distance(p, b) > MOVE_FRACTION * diagonal) {
                            out.moved.insert(id);
                        }
                    }
                    (p, q) => panic!(
                        "{file} {engine} clip {} t {}: vertex {v}: engine {p:?}, rigscope {q:?}",
                        frame["clip"], frame["t"]
                    ),
                }
                out.positions += 1;
            }
        }
    }
    out
}

/// `check --json`'s summary line for `engine`, and the model's size.
fn check_summary(file: &str, engine: &str) -> (Value, f64, Value) {
    let check = json(&["check", file, "--json"]);
    let diagonal = check["consequences"]["diagonal"].as_f64().expect("diagonal");
    let summary = (check["consequences"]["engines"].as_array().expect("engines").iter())
        .find(|e| e["engine"] == engine)
        .cloned()
        .expect("the engine's summary");
    (summary, diagonal, check)
}

/// The vertices `check` says `engine` moves or makes vanish.
fn check_sets(check: &Value, engine: &str) -> (BTreeSet<Id>, BTreeSet<Id>) {
    let (mut moved, mut vanished) = (BTreeSet::new(), BTreeSet::new());
    for v in check["consequences"]["vertices"].as_array().expect("vertices") {
        let id = id(v);
        let d = &v["engines"][engine];
        if d["vanishes"] == true {
            vanished.insert(id);
        } else if d["stored_vanishes"] == true || d["fraction"].as_f64().unwrap_or(0.0) > MOVE_FRACTION {
            moved.insert(id);
        }
    }
    (moved, vanished)
}

#[test]
fn the_babylon_profile_draws_as_babylon_s_shader_on_files_with_weight_problems() {
    for (file, name) in [
        (fixture("engine-weights.glb"), "engine-weights.babylon.json"),
        (sample("bad-weights.glb"), "bad-weights.babylon.json"),
    ] {
        let reference = reference(name);
        assert_eq!(reference["babylon"], "9.35.0");
        let (summary, diagonal, check) = check_summary(&file, "babylon");
        let seen = compare(&file, "babylon", &reference, "gpu", diagonal);
        assert_eq!(
            seen.positions,
            reference["poses"].as_u64().unwrap_or(0) as usize
                * 26
                * if name.starts_with("bad") { 2 } else { 1 }
        );
        // Babylon's own list of the vertices it moves (its shader against the stored weights,
        // from its bone matrices) and of those it does not draw.
        let listed =
            |key: &str| -> BTreeSet<Id> { reference[key].as_array().expect(key).iter().map(id).collect() };
        let moved_by_babylon: BTreeSet<_> = (reference["worst"].as_array().expect("worst").iter())
            .filter(|w| w["distance"].as_f64().unwrap_or(0.0) > MOVE_FRACTION * diagonal)
            .map(id)
            .collect();
        let vanishing = listed("vanishes");
        assert_eq!(seen.vanished, vanishing, "{name}");
        let (moved, vanished) = check_sets(&check, "babylon");
        assert_eq!(moved, moved_by_babylon, "{name}: moved");
        assert_eq!(vanished, vanishing, "{name}: vanished");
        assert_eq!(summary["moved"].as_u64(), Some(moved_by_babylon.len() as u64), "{name}");
        assert_eq!(summary["vanished"].as_u64(), Some(vanishing.len() as u64), "{name}");
    }
}

#[test]
fn the_blender_profile_draws_as_blender_at_every_key() {
    let file = fixture("engine-weights.glb");
    let reference = reference("engine-weights.blender.json");
    assert_eq!(reference["blender"], "4.5.15 LTS");
    let (summary, diagonal, check) = check_summary(&file, "blender");
    let seen = compare(&file, "blender", &reference, "positions", diagonal);
    // 9 keys of the 2 s clip, 26 vertices each.
    assert_eq!(seen.positions, 9 * 26);
    let (moved, vanished) = check_sets(&check, "blender");
    assert!(seen.vanished.is_empty() && vanished.is_empty(), "Blender draws every vertex somewhere");
    assert_eq!(moved, seen.moved);
    assert_eq!(summary["moved"].as_u64(), Some(seen.moved.len() as u64));
}

#[test]
fn check_says_blender_will_not_import_a_file_with_a_joint_index_out_of_range() {
    let reference = reference("bad-weights.blender.json");
    assert!(reference["refused"].as_str().is_some_and(|r| r.contains("IndexError")), "{reference}");
    let file = sample("bad-weights.glb");
    let (summary, _, _) = check_summary(&file, "blender");
    assert_eq!(summary["moved"], 0);
    let refuses = summary["refuses"].as_str().expect("a refusal");
    assert!(refuses.contains("vertex 13 names joint 7") && refuses.contains("6 joints"), "{refuses}");
    let text = rigscope(&["check", &file]).stdout;
    assert!(text.contains("Blender: will not import this file"), "{text}");
    let pose = rigscope(&["pose", &file, "--engine", "blender"]);
    assert_eq!(pose.code, 2);
    assert!(pose.stderr.contains("Blender would not import"), "{}", pose.stderr);
}

#[test]
fn babylon_and_blender_draw_cesium_man_legacy_as_their_profiles_say() {
    let Some(dir) = assets_dir() else { return };
    let file = dir.join("CesiumMan-legacy/CesiumMan.glb").display().to_string();
    for (engine, name, path) in [
        ("babylon", "CesiumMan-legacy.babylon.json", "gpu"),
        ("blender", "CesiumMan-legacy.blender.json", "positions"),
    ] {
        let reference = reference(name);
        let (summary, diagonal, _) = check_summary(&file, engine);
        let seen = compare(&file, engine, &reference, path, diagonal);
        assert!(seen.positions > 300, "{engine}: {}", seen.positions);
        assert!(seen.vanished.is_empty());
        // The 210 vertices whose weights do not sum to 1 are drawn renormalised by both.
        assert_eq!(summary["moved"], 210, "{engine}");
    }
    let babylon = reference("CesiumMan-legacy.babylon.json");
    assert_eq!(babylon["worst"].as_array().map(Vec::len), Some(210));
}

/// Weights of 3.4e38 (`engine-weights.glb` vertex 13 alone, 19 twice): the stored weights
/// skin the point past f32's range, so `pose` writes it as null and `render` leaves it out;
/// an engine that renormalises draws it, and `check` says that engine moves it (from no
/// stored place) while one that keeps the weights (glTFast at 4 bones) makes it vanish.
#[test]
fn a_vertex_no_engine_can_place_is_null_in_pose_and_vanishes_in_check() {
    let file = fixture("engine-weights.glb");
    let frame = serde_json::json!({ "clip": 0, "t": 1.0 });
    let stored = &pose_positions(&file, "stored", &frame)[&(6, 0)];
    let three = &pose_positions(&file, "three", &frame)[&(6, 0)];
    assert!(stored[13].is_none() && stored[19].is_none(), "{:?}", &stored[13..20]);
    assert!(three[13].is_some() && three[19].is_some());
    let check = json(&["check", &file, "--json"]);
    let (moved, vanished) = check_sets(&check, "three");
    assert!(moved.contains(&(0, 0, 13)) && !vanished.contains(&(0, 0, 13)));
    let (_, vanished) = check_sets(&check, "unity-gltfast");
    assert!(vanished.contains(&(0, 0, 13)) && vanished.contains(&(0, 0, 19)), "{vanished:?}");
    let text = rigscope(&["check", &file]).stdout;
    assert!(text.contains("Unity glTFast: "), "{text}");
    assert!(text.contains("vertices vanish (the engine gives them no position)"), "{text}");
}

#[test]
fn the_committed_engine_fixture_is_what_the_generator_writes() {
    for (name, bytes) in rigscope::samplegen::engine_fixtures() {
        let committed = std::fs::read(fixture(name)).expect("fixture");
        assert!(committed == bytes, "{name} differs: run `cargo run --example gen-samples`");
    }
}
