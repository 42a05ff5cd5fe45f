//! The three.js profile against three.js itself: `tests/fixtures/engines/*.three.json` were
//! written by `three-reference.mjs` (three r187's GLTFLoader and SkinnedMesh, in Node; see
//! the README there). `pose --engine three --json` must put every vertex where three.js draws
//! it, and `check --json` must measure the same worst displacement from the stored-weights
//! result as three.js does, both within 1e-4 of the model's bounding-box diagonal; the
//! vertices three.js draws at NaN are the ones `check` says vanish.
//!
//! The bundled sample always runs; CesiumMan-legacy (weights not normalised) reads the rig
//! from `$RIGSCOPE_ASSETS` and is skipped with a note without it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::assets::assets_dir;
use super::cli::{rigscope, sample};

/// Of the model's bounding-box diagonal.
const TOLERANCE: f64 = 1e-4;

fn reference(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/engines").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).expect("reference JSON")).expect("JSON")
}

fn json(args: &[&str]) -> Value {
    let run = rigscope(args);
    assert!(run.code == 0 || run.code == 1, "{args:?}: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

fn key(v: &Value) -> (u64, u64, u64) {
    let n = |k: &str| v[k].as_u64().expect(k);
    (n("mesh"), n("primitive"), n("vertex"))
}

/// Checks `file` against the three.js reference; returns how many positions were compared.
fn agrees_with_three(file: &str, reference: &Value) -> usize {
    assert_eq!(reference["three"], "187");
    let check = json(&["check", file, "--json"]);
    let consequences = &check["consequences"];
    let diagonal = consequences["diagonal"].as_f64().expect("diagonal");
    assert!(diagonal > 0.0);
    let tolerance = TOLERANCE * diagonal;
    assert_eq!(consequences["samples"], reference["poses"], "the same poses are compared");

    // Worst displacement per problem vertex.
    let measured: BTreeMap<_, _> =
        reference["worst"].as_array().expect("worst").iter().map(|w| (key(w), w)).collect();
    let vanishing: Vec<_> = reference["vanishes"].as_array().expect("vanishes").iter().map(key).collect();
    let mut checked = BTreeMap::new();
    for v in consequences["vertices"].as_array().expect("vertices") {
        let three = &v["engines"]["three"];
        let got = three["distance"].as_f64().expect("distance");
        let want = measured.get(&key(v)).map_or(0.0, |w| w["distance"].as_f64().expect("distance"));
        assert!(
            (got - want).abs() <= tolerance,
            "{file} vertex {:?}: rigscope {got}, three.js {want}",
            key(v)
        );
        assert_eq!(three["vanishes"].as_bool(), Some(vanishing.contains(&key(v))), "{file} {:?}", key(v));
        checked.insert(key(v), got);
    }
    // Every vertex three.js moves by more than the tolerance is one check reports.
    for (k, w) in &measured {
        let d = w["distance"].as_f64().expect("distance");
        assert!(
            d <= tolerance || checked.contains_key(k),
            "{file}: three.js moves {k:?} by {d}, check misses it"
        );
    }
    for k in &vanishing {
        assert!(checked.contains_key(k), "{file}: three.js draws {k:?} at NaN, check misses it");
    }

    // Positions, pose by pose.
    let mut compared = 0;
    for frame in reference["frames"].as_array().expect("frames") {
        let t = frame["t"].as_f64().expect("t").to_string();
        let clip = frame["clip"].as_u64().map(|c| format!("#{c}"));
        let mut args = vec!["pose", file, "--engine", "three", "--json"];
        match &clip {
            Some(c) => args.extend(["--clip", c, "--time", &t]),
            None => args.push("--rest"),
        }
        let pose = json(&args);
        assert_eq!(pose["engine"], "three");
        let meshes = pose["frames"][0]["meshes"].as_array().expect("meshes");
        for want in frame["meshes"].as_array().expect("meshes") {
            let (node, primitive) = (want["node"].as_u64(), want["primitive"].as_u64());
            let got = meshes
                .iter()
                .find(|m| m["node"].as_u64() == node && m["primitive"].as_u64() == primitive)
                .expect("the same node and primitive");
            let every = want["every"].as_u64().expect("every") as usize;
            let got = got["positions"].as_array().expect("positions");
            for (i, p) in want["positions"].as_array().expect("positions").iter().enumerate() {
                let v = i * every;
                let p = p.as_array().expect("xyz");
                if p.iter().any(Value::is_null) {
                    // three.js draws it at NaN; check said it vanishes (above).
                    continue;
                }
                let q = got[v].as_array().expect("xyz");
                let d = p
                    .iter()
                    .zip(q)
                    .map(|(a, b)| (a.as_f64().expect("x") - b.as_f64().expect("x")).powi(2))
                    .sum::<f64>()
                    .sqrt();
                assert!(d <= tolerance, "{file} {clip:?} t={t} node {node:?} vertex {v}: {d} from three.js");
                compared += 1;
            }
        }
    }
    compared
}

#[test]
fn the_three_profile_draws_the_bad_weights_sample_as_three_js_does() {
    let compared = agrees_with_three(&sample("bad-weights.glb"), &reference("bad-weights.three.json"));
    // 18 poses of 52 vertices, less the one drawn at NaN.
    assert_eq!(compared, 18 * 51);
}

#[test]
fn the_three_profile_draws_cesium_man_legacy_as_three_js_does() {
    let Some(dir) = assets_dir() else { return };
    let file = dir.join("CesiumMan-legacy/CesiumMan.glb");
    let reference = reference("CesiumMan-legacy.three.json");
    let compared = agrees_with_three(&file.display().to_string(), &reference);
    assert!(compared > 500, "{compared}");
    // The 210 vertices whose weights do not sum to 1 all move; the worst by 0.45 of the model.
    let check = json(&["check", &file.display().to_string(), "--json"]);
    let three = check["consequences"]["engines"]
        .as_array()
        .expect("engines")
        .iter()
        .find(|e| e["engine"] == "three")
        .cloned();
    let three = three.expect("three");
    assert_eq!(three["moved"], 210);
    let fraction = three["worst"]["fraction"].as_f64().expect("fraction");
    assert!((0.44..0.46).contains(&fraction), "{fraction}");
}

#[test]
fn every_code_check_reports_on_the_bad_weights_sample_is_explained() {
    let check = json(&["check", &sample("bad-weights.glb"), "--json"]);
    let codes: Vec<&str> = check["counts"].as_object().expect("counts").keys().map(String::as_str).collect();
    assert!(codes.len() >= 7, "{codes:?}");
    for code in codes {
        let run = rigscope(&["check", "--explain", code]);
        assert_eq!(run.code, 0, "{code}: {}", run.stderr);
        for heading in [
            "What it means:",
            "Why it matters:",
            "What each engine does with it:",
            "What `rigscope normalize` changes:",
        ] {
            assert!(run.stdout.contains(heading), "{code}: {}", run.stdout);
        }
    }
    // Lower case is the same code; a misspelt one exits 2 and names the nearest.
    assert_eq!(rigscope(&["check", "--explain", "rig_more_than_4_influences"]).code, 0);
    let run = rigscope(&["check", "--explain", "ACCESSOR_WEIGHTS_NON_NORMALISED"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("did you mean ACCESSOR_WEIGHTS_NON_NORMALIZED?"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
}

#[test]
fn render_and_record_draw_with_the_engine_asked_for() {
    let file = sample("bad-weights.glb");
    let frame = |engine: &str| {
        let run =
            rigscope(&["render", &file, "--rest", "--size", "60x20", "--color", "never", "--engine", engine]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    // Stored is the default; three.js puts vertex 7 (all weights zero, at the origin when
    // stored) 0.76 units away on its first joint, which the frame shows.
    let stored = frame("stored");
    assert_eq!(stored, rigscope(&["render", &file, "--rest", "--size", "60x20", "--color", "never"]).stdout);
    assert_ne!(frame("three"), stored);
    for command in ["pose", "render"] {
        let run = rigscope(&[command, &file, "--engine", "unity"]);
        assert_eq!(run.code, 2);
        assert!(run.stderr.contains("unity-gltfast"), "{}", run.stderr);
    }
    let (_guard, dir) = super::temp::folder("engines");
    let out = |name: &str| dir.join(name).display().to_string();
    for (engine, name) in [("stored", "a.cast"), ("three", "b.cast")] {
        let run = rigscope(&[
            "record",
            &file,
            "-o",
            &out(name),
            "--fps",
            "2",
            "--size",
            "40x12",
            "--engine",
            engine,
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let read = |name: &str| std::fs::read(dir.join(name)).expect("recording");
    assert_ne!(read("a.cast"), read("b.cast"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_lists_every_engine_profile() {
    let run = rigscope(&["help"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let listed = run.stdout.split("Engine profiles").nth(1).expect("an engine section");
    for engine in rigscope::anim::Engine::ALL {
        assert!(
            listed.lines().any(|l| l.trim_start().starts_with(engine.name())),
            "{}: {listed}",
            engine.name()
        );
    }
}
