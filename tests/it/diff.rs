//! `rigscope diff A B` on real file pairs: a file against itself, against its `normalize`d
//! copy (only weights change), and against an edit of its JSON (one joint moved).

use serde_json::Value;

use super::cli::{rigscope, sample};

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rigscope-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

fn json(args: &[&str]) -> (i32, Value) {
    let run = rigscope(args);
    (
        run.code,
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr)),
    )
}

#[test]
fn a_file_diffs_equal_to_itself_and_bad_input_exits_2() {
    let walker = sample("walker.glb");
    let run = rigscope(&["diff", &walker, &walker]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains("equal"), "{}", run.stdout);
    let (code, doc) = json(&["diff", &walker, &walker, "--json"]);
    assert_eq!((code, doc["format_version"].as_u64(), doc["equal"].as_bool()), (0, Some(1), Some(true)));
    let run = rigscope(&["diff", &walker, "no/such.glb"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.starts_with("rigscope: error: no/such.glb: "), "{}", run.stderr);
    assert_eq!(rigscope(&["diff", &walker, &walker, "--tol", "-1"]).code, 2);
}

#[test]
fn a_normalized_copy_differs_in_weights_only() {
    let out = temp("normalized.glb");
    let run =
        rigscope(&["normalize", &sample("bad-weights.glb"), "-o", &out.display().to_string(), "--force"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (code, doc) = json(&["diff", &sample("bad-weights.glb"), &out.display().to_string(), "--json"]);
    assert_eq!(code, 1);
    for empty in ["joints", "skins", "clips"] {
        for (k, v) in doc[empty].as_object().expect(empty) {
            assert!(v.as_array().is_some_and(|a| a.is_empty()), "{empty}.{k}: {v}");
        }
    }
    let changed = doc["meshes"]["changed"].as_array().expect("changed");
    assert!(!changed.is_empty());
    // Vertex 7 of primitive 0 stores only zero weights (`check` lists its sum as 0);
    // normalize gives such a vertex to the skin's root joint: weight 0 -> 1, the largest
    // change any vertex can have.
    assert!(changed.iter().all(|c| c["weights"].is_object() && c.get("topology_differs").is_none()));
    let w = &changed[0]["weights"]["largest"];
    assert_eq!(changed[0]["primitive"], "strips/0");
    assert_eq!(
        (w["vertex"].as_u64(), w["a"].as_f64(), w["b"].as_f64()),
        (Some(7), Some(0.0), Some(1.0)),
        "{w}"
    );
}

#[test]
fn a_joint_moved_in_the_json_is_the_one_change_of_its_rest_pose() {
    let text = std::fs::read_to_string(sample("seed-arm.gltf")).expect("read");
    let mut gltf: Value = serde_json::from_str(&text).expect("gltf json");
    // Node 3 is b31 at (0.2, 0.1, 0): move it 0.05 along y.
    assert_eq!(gltf["nodes"][3]["name"], "b31");
    gltf["nodes"][3]["translation"] = serde_json::json!([0.2, 0.15, 0.0]);
    let edited = temp("seed-arm-moved.gltf");
    std::fs::write(&edited, serde_json::to_vec(&gltf).expect("json")).expect("write");
    let (code, doc) = json(&["diff", &sample("seed-arm.gltf"), &edited.display().to_string(), "--json"]);
    assert_eq!(code, 1);
    let rest = doc["joints"]["rest"].as_array().expect("rest");
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["joint"], "b31");
    assert!((rest[0]["translation"].as_f64().expect("f") - 0.05).abs() < 1e-5, "{}", rest[0]);
    assert!(doc["skins"]["changed"].as_array().is_some_and(|a| a.is_empty()));
    assert!(doc["joints"]["renamed"].as_array().is_some_and(|a| a.is_empty()));
    let run = rigscope(&["diff", &sample("seed-arm.gltf"), &edited.display().to_string()]);
    assert!(run.stdout.contains("rest pose   b31: translation moved 0.05"), "{}", run.stdout);
}
