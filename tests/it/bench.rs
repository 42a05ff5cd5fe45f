//! `rigscope bench`: the JSON document's shape and sanity (never timing thresholds: the
//! numbers depend on the machine and its load).

use serde_json::Value;

use crate::cli::{rigscope, sample};

fn positive(v: &Value, what: &str) -> f64 {
    let x = v.as_f64().unwrap_or_else(|| panic!("{what} is not a number: {v}"));
    assert!(x.is_finite() && x > 0.0, "{what} = {x}");
    x
}

#[test]
fn bench_json_has_every_key_with_positive_finite_values() {
    let walker = sample("walker.glb");
    let run = rigscope(&["bench", &walker, "--frames", "5", "--json"]);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("bench --json is JSON");
    assert_eq!(doc["format_version"], 1);
    assert_eq!(doc["frames"], 5);
    positive(&doc["vertices"], "vertices");
    positive(&doc["joints"], "joints");
    // 200x60 cells by default: the viewport is part of that, two dots wide and four tall a cell.
    let dots = doc["viewport_dots"].as_array().expect("viewport_dots is an array");
    let (w, h) = (positive(&dots[0], "dots wide"), positive(&dots[1], "dots tall"));
    assert!(w <= 400.0 && h <= 240.0 && w % 2.0 == 0.0 && h % 4.0 == 0.0, "{w}x{h}");
    let stages = doc["stages"].as_object().expect("stages is an object");
    let mut names: Vec<&str> = stages.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["draw", "pose", "raster", "sample", "skin"]);
    for (name, stage) in stages {
        for key in ["median_ms", "p99_ms"] {
            // A stage can round to a time the clock does not resolve: finite and >= 0.
            let x = stage[key].as_f64().unwrap_or_else(|| panic!("{name}.{key} missing"));
            assert!(x.is_finite() && x >= 0.0, "{name}.{key} = {x}");
        }
        assert!(stage["p99_ms"].as_f64() >= stage["median_ms"].as_f64(), "{name}: p99 below median");
    }
    positive(&doc["skinning_vertices_per_s"], "skinning_vertices_per_s");
    // The one-core figures: the walker's clip animates joints, and it has a skin.
    for key in ["raster_one_core_ms_median", "sample_ns_per_animated_joint", "pose_ns_per_joint"] {
        positive(&doc[key], key);
    }
    let median = positive(&doc["frame_ms_median"], "frame_ms_median");
    let p99 = positive(&doc["frame_ms_p99"], "frame_ms_p99");
    assert!(p99 >= median);
    positive(&doc["bytes_per_frame_median"], "bytes_per_frame_median");
    // The first frame's time includes the load and then a whole frame's work.
    let load = positive(&doc["load_ms"], "load_ms");
    let first = positive(&doc["first_frame_ms"], "first_frame_ms");
    assert!(first > load, "first frame {first} ms before the load finished ({load} ms)");
    // Floats as docs/commands.md says: the shortest text of an f32 (no f64 noise digits).
    for number in run.stdout.split(|c: char| !(c.is_ascii_digit() || ".e-+".contains(c))) {
        if let (Ok(wide), Ok(narrow)) = (number.parse::<f64>(), number.parse::<f32>()) {
            let shortest: f64 = narrow.to_string().parse().expect("an f32 prints as a number");
            assert_eq!(wide, shortest, "{number} in {}", run.stdout);
        }
    }
}

#[test]
fn bench_text_names_the_stages_and_bad_input_exits_2() {
    let walker = sample("walker.glb");
    let run = rigscope(&["bench", &walker, "--frames", "2", "--size", "80x24"]);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    for word in [
        "sample",
        "pose",
        "skin",
        "raster",
        "draw",
        "frame",
        "vertices/s",
        "bytes per frame",
        "first frame",
        "on one core",
    ] {
        assert!(run.stdout.contains(word), "missing {word}: {}", run.stdout);
    }
    let run = rigscope(&["bench", "/nonexistent/rig.glb"]);
    assert_eq!(run.code, 2);
    let run = rigscope(&["bench", &walker, "--frames", "0"]);
    assert_eq!(run.code, 2);
}
