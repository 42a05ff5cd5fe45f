//! The command line as a user meets it: exit codes, messages naming the file, JSON shapes,
//! a closed pipe, and the viewer refusing to run without a terminal.

use std::io::Read;
use std::process::{Command, Stdio};

use serde_json::Value;

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the built binary with `args`, stdin closed.
pub fn rigscope(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_rigscope"))
        .args(args)
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .output()
        .expect("run rigscope");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Path of a committed sample.
pub fn sample(name: &str) -> String {
    format!("{}/samples/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn temp_dir(tag: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    super::temp::folder(&format!("cli-{tag}"))
}

#[test]
fn every_malformed_file_exits_2_naming_the_file_without_a_panic() {
    let (_guard, dir) = temp_dir("malformed");
    for (name, bytes, phrase) in super::malformed::cases() {
        let path = super::malformed::write_case(&dir, name, &bytes).expect("write case");
        let shown = path.display().to_string();
        for cmd in ["inspect", "pose", "check", "render"] {
            let run = rigscope(&[cmd, &shown]);
            assert_eq!(run.code, 2, "{cmd} {name}: exit {} stderr {}", run.code, run.stderr);
            assert!(
                run.stderr.starts_with(&format!("rigscope: error: {shown}: ")),
                "{cmd} {name}: {}",
                run.stderr
            );
            assert!(run.stderr.contains(phrase), "{cmd} {name}: expected '{phrase}' in {}", run.stderr);
            assert!(!run.stderr.contains("panicked"), "{cmd} {name} panicked: {}", run.stderr);
            assert!(run.stdout.is_empty(), "{cmd} {name} printed to stdout");
        }
    }
}

#[test]
fn a_missing_file_and_a_folder_are_input_errors() {
    let run = rigscope(&["inspect", "no/such/file.glb"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.starts_with("rigscope: error: no/such/file.glb: "), "{}", run.stderr);
    let (_guard, dir) = temp_dir("folder");
    let run = rigscope(&["inspect", dir.to_str().expect("utf8")]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn unknown_clip_names_the_file_and_lists_the_clips() {
    let run = rigscope(&["pose", &sample("tentacle.glb"), "--clip", "dance"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("tentacle.glb: no clip named or numbered 'dance'"), "{}", run.stderr);
    assert!(run.stderr.contains("wave") && run.stderr.contains("spline"), "{}", run.stderr);
    let run = rigscope(&["render", &sample("tentacle.glb"), "--clip", "7"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    // A negative index reaches the clip lookup, not clap's "unexpected argument".
    let run = rigscope(&["pose", &sample("tentacle.glb"), "--clip", "-1"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("tentacle.glb: no clip named or numbered '-1'"), "{}", run.stderr);
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [
        vec!["pose", "x.glb", "--time", "abc"],
        vec!["render", "x.glb", "--size", "0x10"],
        vec!["render", "x.glb", "--mode", "pixels"],
        vec!["frobnicate"],
        vec!["--fps", "500"],
    ] {
        let run = rigscope(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"));
        // The same prefix as every other rigscope error, clap's usage errors included.
        assert!(run.stderr.starts_with("rigscope: error:"), "{args:?}: {}", run.stderr);
    }
    let run = rigscope(&["render", &sample("walker.glb"), "--pitch", "200"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("walker.glb: --pitch must be within -90..90 degrees"), "{}", run.stderr);
    let run = rigscope(&["pose", &sample("seed-arm.gltf"), "--time", "NaN"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("seed-arm.gltf: --time must be a finite number"), "{}", run.stderr);
    // A negative number is a value out of range for its option, not an unknown flag.
    for (args, option) in [
        (vec!["bench", "x.glb", "--frames", "-1"], "'--frames <FRAMES>'"),
        (vec!["check", "x.glb", "--max", "-1"], "'--max <N>'"),
        (vec!["normalize", "x.glb", "-o", "y.glb", "--max-influences", "-3"], "'--max-influences <N>'"),
        (vec!["--fps", "-5"], "'--fps <FPS>'"),
    ] {
        let run = rigscope(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!("invalid value '{}' for {option}", args[args.len() - 1])),
            "{}",
            run.stderr
        );
    }
    let run = rigscope(&["normalize", &sample("bad-weights.glb"), "-o", "unused.glb", "--prune", "-0.5"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("--prune must be a number from 0 up to (not including) 1, not -0.5"),
        "{}",
        run.stderr
    );
}

#[test]
fn help_and_version_exit_0() {
    let run = rigscope(&["--help"]);
    assert_eq!(run.code, 0);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    for cmd in ["inspect", "pose", "render", "check"] {
        assert!(run.stdout.contains(cmd), "--help lists {cmd}");
    }
    assert_eq!(rigscope(&["--version"]).code, 0);
}

#[test]
fn the_viewer_refuses_a_pipe_and_points_to_render() {
    // `output()` captures stdout through a pipe, so the viewer must refuse.
    for args in [vec![], vec![sample("walker.glb")]] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = rigscope(&args);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr.contains("not a terminal") && run.stderr.contains("rigscope render"),
            "{}",
            run.stderr
        );
    }
    // What is wrong with the file comes first, whatever stdout is.
    let run = rigscope(&["no/such/file.glb"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.starts_with("rigscope: error: no/such/file.glb: "), "{}", run.stderr);
    let run = rigscope(&[&sample("walker.glb"), "--clip", "dance"]);
    assert!(run.stderr.contains("walker.glb: no clip named or numbered 'dance'"), "{}", run.stderr);
}

#[test]
fn inspect_json_describes_the_walker() {
    let run = rigscope(&["inspect", &sample("walker.glb"), "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(doc["format_version"], 1);
    for key in ["nodes", "skins", "meshes", "clips"] {
        assert!(doc[key].is_array(), "{key}");
    }
    assert!(doc["skins"][0]["joint_count"].as_u64().expect("joints") >= 15);
    let clips: Vec<&str> =
        doc["clips"].as_array().expect("clips").iter().filter_map(|c| c["name"].as_str()).collect();
    assert!(clips.contains(&"walk") && clips.contains(&"idle"), "{clips:?}");
    let prim = &doc["meshes"][0]["primitives"][0];
    assert_eq!(prim["skinned"], true);
    assert!(prim["max_influences"].as_u64().expect("n") >= 1);
}

#[test]
fn pose_defaults_to_eleven_times_over_the_first_clip() {
    let run = rigscope(&["pose", &sample("tentacle.glb"), "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let duration = doc["clip"]["duration"].as_f64().expect("duration");
    let times: Vec<f64> =
        doc["frames"].as_array().expect("frames").iter().map(|f| f["t"].as_f64().expect("t")).collect();
    assert_eq!(times.len(), 11);
    for (i, t) in times.iter().enumerate() {
        assert!((t - duration * i as f64 / 10.0).abs() < 1e-6, "{times:?}");
    }
}

/// Runs rigscope with `args`, reads its first 64 bytes of output and closes the pipe: its exit
/// status and what it wrote to stderr.
pub fn close_after_first_bytes(args: &[String]) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rigscope"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first = [0u8; 64];
    child.stdout.as_mut().expect("stdout").read_exact(&mut first).expect("some output");
    drop(child.stdout.take());
    let status = child.wait().expect("wait");
    let mut err = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut err).expect("stderr");
    (status, err)
}

#[test]
fn a_closed_pipe_ends_quietly() {
    for json in [false, true] {
        let mut args = vec!["pose".to_string(), sample("walker.glb")];
        if json {
            args.push("--json".into());
        }
        let (status, err) = close_after_first_bytes(&args);
        assert_eq!(status.code(), Some(0), "json={json}: {err}");
        assert!(err.is_empty(), "json={json}: {err}");
    }
}

#[test]
fn render_is_deterministic_and_sized() {
    let args = [
        "render",
        &sample("walker.glb"),
        "--clip",
        "walk",
        "--time",
        "0.25",
        "--size",
        "60x20",
        "--color",
        "always",
    ];
    let a = rigscope(&args);
    let b = rigscope(&args);
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert_eq!(a.stdout, b.stdout);
    let plain = rigscope(&["render", &sample("walker.glb"), "--size", "60x20", "--color", "never"]);
    assert!(!plain.stdout.contains('\u{1b}'));
    let lines: Vec<&str> = plain.stdout.lines().collect();
    assert_eq!(lines.len(), 20);
    assert!(lines.iter().all(|l| l.chars().count() == 60));
    assert!(plain.stdout.chars().any(|c| ('\u{2801}'..='\u{28ff}').contains(&c)), "braille dots drawn");
}

/// Cells of a plain render that hold a drawn dot (not blank, not the gizmo's axis letters).
fn drawn_cells(frame: &str) -> usize {
    frame.chars().filter(|c| ('\u{2801}'..='\u{28ff}').contains(c)).count()
}

#[test]
fn render_of_a_file_without_meshes_draws_its_skeleton() {
    // seed-arm with its mesh node, mesh and skin dropped: nodes and a clip, like a .vrma.
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(sample("seed-arm.gltf")).expect("sample"))
            .expect("JSON");
    let nodes = doc["nodes"].as_array_mut().expect("nodes");
    nodes.retain(|n| n.get("mesh").is_none());
    let kept = nodes.len();
    let object = doc.as_object_mut().expect("object");
    object.remove("meshes");
    object.remove("skins");
    doc["scenes"][0]["nodes"] = serde_json::json!([0]);
    let (_guard, dir) = super::temp::folder("skeleton-only");
    let skeleton = dir.join("arm-skeleton.gltf");
    std::fs::write(&skeleton, serde_json::to_vec(&doc).expect("JSON")).expect("write");
    // One node and nothing else: only the axis gizmo can be drawn.
    let lone = dir.join("lone.gltf");
    std::fs::write(&lone, r#"{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{}]}"#)
        .expect("write");
    let render = |file: &std::path::Path, extra: &[&str]| {
        let path = file.to_str().expect("UTF-8");
        let run = rigscope(&[&["render", path, "--size", "60x20", "--color", "never"], extra].concat());
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    assert_eq!(rigscope::load(&skeleton).expect("loads").nodes.len(), kept);
    let by_default = render(&skeleton, &[]);
    // The same picture as asking for the bones, and more than the gizmo alone.
    assert_eq!(by_default, render(&skeleton, &["--bones"]));
    let gizmo = drawn_cells(&render(&lone, &[]));
    assert!(drawn_cells(&by_default) > gizmo + 10, "{gizmo} gizmo cells:\n{by_default}");
    // Over a mesh the skeleton stays opt-in.
    let arm = std::path::Path::new(&sample("seed-arm.gltf")).to_path_buf();
    assert_ne!(render(&arm, &[]), render(&arm, &["--bones"]));
}

/// Every error code bad-weights.glb contains: ignoring them leaves only its warnings.
const ERRORS_IN_BAD_WEIGHTS: &str = "ACCESSOR_WEIGHTS_NON_NORMALIZED,ACCESSOR_WEIGHTS_NEGATIVE,\
ACCESSOR_INVALID_FLOAT,ACCESSOR_JOINTS_INDEX_OOB,ACCESSOR_JOINTS_INDEX_DUPLICATE";

#[test]
fn check_exit_codes_follow_the_findings() {
    let bad = rigscope(&["check", &sample("bad-weights.glb")]);
    assert_eq!(bad.code, 1, "{}", bad.stdout);
    assert!(bad.stdout.contains("ACCESSOR_WEIGHTS_NON_NORMALIZED"));
    let clean = rigscope(&["check", &sample("walker.glb")]);
    assert_eq!(clean.code, 0, "{}", clean.stdout);
    let ignored = rigscope(&["check", &sample("bad-weights.glb"), "--ignore", ERRORS_IN_BAD_WEIGHTS]);
    assert_eq!(ignored.code, 0, "{}", ignored.stdout);
    // Codes are matched whatever their case.
    let lower = ERRORS_IN_BAD_WEIGHTS.to_lowercase();
    let ignored = rigscope(&["check", &sample("bad-weights.glb"), "--ignore", &lower]);
    assert_eq!(ignored.code, 0, "{}", ignored.stdout);
    assert!(!ignored.stderr.contains("no such code"), "{}", ignored.stderr);
    let strict = rigscope(&[
        "check",
        &sample("bad-weights.glb"),
        "--deny-warnings",
        "--ignore",
        ERRORS_IN_BAD_WEIGHTS,
    ]);
    assert_eq!(strict.code, 1, "{}", strict.stdout);
    let json = rigscope(&["check", &sample("bad-weights.glb"), "--json", "--max", "1"]);
    let doc: Value = serde_json::from_str(&json.stdout).expect("JSON");
    let n = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == "ACCESSOR_WEIGHTS_NON_NORMALIZED")
        .count();
    // `--max` lists the worst of each code in every format and counts the rest.
    assert_eq!(n, 1, "--max 1 lists one finding per code");
    let total = doc["counts"]["ACCESSOR_WEIGHTS_NON_NORMALIZED"].as_u64().expect("count");
    assert_eq!(doc["omitted"]["ACCESSOR_WEIGHTS_NON_NORMALIZED"].as_u64(), Some(total - 1));
    let all = rigscope(&["check", &sample("bad-weights.glb"), "--json", "--max", "all"]);
    let all: Value = serde_json::from_str(&all.stdout).expect("JSON");
    assert!(all.get("omitted").is_none(), "{all}");
    assert_eq!(all["findings"].as_array().map(Vec::len), Some(14));
}

#[test]
fn help_works_as_a_command() {
    // `help` and `help SUB` print what `--help` and `SUB --help` print.
    let run = rigscope(&["help"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, rigscope(&["--help"]).stdout);
    for cmd in ["pose", "render", "check", "completions", "man"] {
        let run = rigscope(&["help", cmd]);
        assert_eq!(run.code, 0, "help {cmd}: {}", run.stderr);
        assert!(run.stdout.contains(&format!("Usage: rigscope {cmd}")), "{}", run.stdout);
        assert_eq!(run.stdout, rigscope(&[cmd, "--help"]).stdout, "help {cmd}");
    }
    // A near miss is still named with a suggestion.
    let run = rigscope(&["hlep"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("did you mean 'help'"), "{}", run.stderr);
}

#[test]
fn check_max_help_says_it_caps_joint_findings_too() {
    let run = rigscope(&["check", "--help"]);
    assert!(run.stdout.contains("vertices and joints alike"), "{}", run.stdout);
}

/// The JSON of a .gltf sample, read directly (not through rigscope).
fn gltf_json(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(sample(name)).expect("read")).expect("JSON")
}

/// Floats of accessor `index` of a .gltf whose one buffer is a data URI.
fn accessor_floats(doc: &Value, index: usize) -> Vec<f32> {
    use base64::Engine;
    let accessor = &doc["accessors"][index];
    assert_eq!(accessor["componentType"], 5126, "float accessor");
    let view = &doc["bufferViews"][accessor["bufferView"].as_u64().expect("view") as usize];
    let uri = doc["buffers"][0]["uri"].as_str().expect("uri");
    let data = uri.split_once(";base64,").expect("data URI").1;
    let bytes = base64::engine::general_purpose::STANDARD.decode(data).expect("base64");
    let per = match accessor["type"].as_str() {
        Some("SCALAR") => 1,
        Some("VEC3") => 3,
        Some("VEC4") => 4,
        other => panic!("type {other:?}"),
    };
    let start =
        (view["byteOffset"].as_u64().unwrap_or(0) + accessor["byteOffset"].as_u64().unwrap_or(0)) as usize;
    let count = accessor["count"].as_u64().expect("count") as usize * per;
    (0..count)
        .map(|i| f32::from_le_bytes(bytes[start + 4 * i..start + 4 * i + 4].try_into().expect("4 bytes")))
        .collect()
}

fn floats(v: &Value) -> Vec<f32> {
    v.as_array().expect("array").iter().map(|x| x.as_f64().expect("number") as f32).collect()
}

#[test]
fn pose_rest_local_trs_are_the_files_own_values() {
    let file = gltf_json("seed-arm.gltf");
    let run = rigscope(&["pose", &sample("seed-arm.gltf"), "--rest", "--local", "--no-positions", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(doc["format_version"], 1);
    assert_eq!(doc["clip"], Value::Null);
    let frames = doc["frames"].as_array().expect("frames");
    assert_eq!(frames.len(), 1, "--rest is one frame");
    assert!(frames[0]["meshes"].as_array().expect("meshes").is_empty(), "--no-positions");
    let nodes = frames[0]["nodes"].as_array().expect("nodes");
    assert_eq!(nodes.len(), file["nodes"].as_array().expect("nodes").len());
    for n in nodes {
        let i = n["node"].as_u64().expect("index") as usize;
        let own = &file["nodes"][i];
        let or = |key: &str, default: Vec<f32>| if own[key].is_null() { default } else { floats(&own[key]) };
        assert_eq!(floats(&n["translation"]), or("translation", vec![0.0; 3]), "node {i}");
        assert_eq!(floats(&n["rotation"]), or("rotation", vec![0.0, 0.0, 0.0, 1.0]), "node {i}");
        assert_eq!(floats(&n["scale"]), or("scale", vec![1.0; 3]), "node {i}");
    }
    // b31 (node 3) hangs off b2 off b1 off root, translations only: its world position is
    // the sum of theirs, (0.2 + 0.2 + 0.2, 0.1, 0).
    let world = floats(&nodes[3]["world"]);
    let expected = [0.6f32, 0.1, 0.0];
    for (got, want) in world[12..15].iter().zip(expected) {
        assert!((got - want).abs() < 1e-6, "{world:?}");
    }
    // Without --local the fields are not there (the document is as before).
    let plain = rigscope(&["pose", &sample("seed-arm.gltf"), "--rest", "--json"]);
    let plain: Value = serde_json::from_str(&plain.stdout).expect("JSON");
    assert!(plain["frames"][0]["nodes"][0].get("translation").is_none());
    assert!(!plain["frames"][0]["meshes"].as_array().expect("meshes").is_empty());
}

#[test]
fn pose_local_rotation_at_a_key_is_the_keys_value() {
    // Clip `bend` turns b1 (node 1) with sampler 0: at a key time, LINEAR sampling gives the
    // key's own value.
    let file = gltf_json("seed-arm.gltf");
    let sampler = &file["animations"][1]["samplers"][0];
    assert_eq!(file["animations"][1]["channels"][0]["target"]["node"], 1);
    let times = accessor_floats(&file, sampler["input"].as_u64().expect("input") as usize);
    let values = accessor_floats(&file, sampler["output"].as_u64().expect("output") as usize);
    let key = 1;
    let t = times[key].to_string();
    let run = rigscope(&[
        "pose",
        &sample("seed-arm.gltf"),
        "--clip",
        "bend",
        "--time",
        &t,
        "--node",
        "b1",
        "--local",
        "--json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let nodes = doc["frames"][0]["nodes"].as_array().expect("nodes");
    assert_eq!(nodes.len(), 1);
    assert_eq!(nodes[0]["name"], "b1");
    let rotation = floats(&nodes[0]["rotation"]);
    // The sampled value is renormalised, as glTF says; the file's keys are unit already.
    for (got, want) in rotation.iter().zip(&values[4 * key..4 * key + 4]) {
        assert!((got - want).abs() < 1e-6, "{rotation:?} vs {:?}", &values[4 * key..4 * key + 4]);
    }
    // Text output shows the same line.
    let text = rigscope(&[
        "pose",
        &sample("seed-arm.gltf"),
        "--clip",
        "bend",
        "--time",
        &t,
        "--node",
        "1",
        "--local",
    ]);
    assert!(text.stdout.contains("local T [0.2 0 0] R (x,y,z,w)"), "{}", text.stdout);
}

#[test]
fn pose_node_selects_by_name_or_number_and_refuses_unknown_ones() {
    let arm = sample("seed-arm.gltf");
    let run = rigscope(&["pose", &arm, "--rest", "--json", "--node", "b32", "--node", "#0", "--node", "0"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let listed: Vec<u64> = doc["frames"][0]["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| n["node"].as_u64().expect("n"))
        .collect();
    assert_eq!(listed, [0, 4], "node order, each once");
    assert!(doc["frames"][0]["meshes"].as_array().expect("meshes").is_empty(), "no mesh on those nodes");
    // The mesh node brings its primitive's 13 positions (the accessor's count in the file).
    let run = rigscope(&["pose", &arm, "--rest", "--json", "--node", "arm"]);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let meshes = doc["frames"][0]["meshes"].as_array().expect("meshes");
    assert_eq!(meshes.len(), 1);
    assert_eq!(meshes[0]["positions"].as_array().expect("positions").len(), 13);
    for key in ["b4", "6", "#6"] {
        let run = rigscope(&["pose", &arm, "--node", key]);
        assert_eq!(run.code, 2, "{key}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!("seed-arm.gltf: no node named or numbered '{key}'")),
            "{}",
            run.stderr
        );
        assert!(run.stdout.is_empty());
    }
    assert!(rigscope(&["pose", &arm, "--node", "B31"]).stderr.contains("did you mean 'b31'"));
    // --rest and --clip ask for different things.
    assert_eq!(rigscope(&["pose", &arm, "--rest", "--clip", "bend"]).code, 2);
    assert_eq!(rigscope(&["render", &arm, "--rest", "--time", "1"]).code, 2);
}

#[test]
fn a_time_past_the_clip_is_said_and_shows_the_last_frame() {
    let arm = sample("seed-arm.gltf");
    // `translate` lasts 2 s: its last key time in the file.
    let file = gltf_json("seed-arm.gltf");
    let input = file["animations"][0]["samplers"][0]["input"].as_u64().expect("input") as usize;
    let end = accessor_floats(&file, input).into_iter().fold(0.0f32, f32::max);
    assert_eq!(end, 2.0);
    let late = rigscope(&["pose", &arm, "--clip", "translate", "--time", "99", "--json"]);
    let last = rigscope(&["pose", &arm, "--clip", "translate", "--time", "2", "--json"]);
    assert_eq!(late.code, 0);
    assert_eq!(
        late.stderr,
        "rigscope: note: ".to_string()
            + &arm
            + ": --time 99 is past the end of clip translate (2 s long): showing t = 2\n"
    );
    assert!(last.stderr.is_empty(), "{}", last.stderr);
    let (mut late, last): (Value, Value) = (
        serde_json::from_str(&late.stdout).expect("JSON"),
        serde_json::from_str(&last.stdout).expect("JSON"),
    );
    assert_eq!(late["frames"][0]["t"], 99.0, "the time is echoed as given");
    late["frames"][0]["t"] = last["frames"][0]["t"].clone();
    assert_eq!(late, last);
    let early = rigscope(&["pose", &arm, "--clip", "translate", "--time", "-1", "--no-positions"]);
    assert!(early.stderr.contains("--time -1 is before the start of clip translate"), "{}", early.stderr);
    let render = |t: &str| rigscope(&["render", &arm, "--clip", "translate", "--time", t, "--size", "40x12"]);
    let (late, last) = (render("99"), render("2"));
    assert!(late.stderr.contains("--time 99 is past the end"), "{}", late.stderr);
    assert_eq!(late.stdout, last.stdout);
}

#[test]
fn render_opens_on_the_viewers_camera_and_can_show_the_rest_pose() {
    let walker = sample("walker.glb");
    let render = |extra: &[&str]| {
        let mut args = vec!["render", walker.as_str(), "--size", "60x20", "--color", "never"];
        args.extend_from_slice(extra);
        let run = rigscope(&args);
        assert_eq!(run.code, 0, "{extra:?}: {}", run.stderr);
        run.stdout
    };
    // The viewer opens at yaw 25, pitch 10 (src/tui/app.rs); render's defaults are those.
    let default = render(&[]);
    assert_eq!(default, render(&["--yaw", "25", "--pitch", "10"]));
    assert_ne!(default, render(&["--yaw", "0", "--pitch", "0"]));
    // The rest pose is not the walk's first frame.
    assert_ne!(render(&["--rest"]), render(&["--clip", "walk", "--time", "0.25"]));
}

#[test]
fn completions_and_man_pages_name_every_command() {
    let commands =
        ["inspect", "pose", "render", "check", "diff", "normalize", "record", "bench", "completions", "man"];
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = rigscope(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        for cmd in commands {
            assert!(run.stdout.contains(cmd), "{shell} completes {cmd}");
        }
        assert!(run.stdout.contains("no-positions"), "{shell} completes pose's flags");
    }
    assert_eq!(rigscope(&["completions", "tcsh"]).code, 2);
    let man = rigscope(&["man"]);
    assert_eq!(man.code, 0, "{}", man.stderr);
    assert!(man.stdout.contains(".TH rigscope 1"), "{}", man.stdout);
    for cmd in commands {
        assert!(man.stdout.contains(&format!("rigscope\\-{cmd}(1)")), "man lists {cmd}");
    }
    // What clap does not know, before the version, as man-pages(7) orders a page.
    let sections: Vec<&str> = man.stdout.lines().filter_map(|l| l.strip_prefix(".SH ")).collect();
    assert_eq!(
        sections,
        [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "SUBCOMMANDS",
            "\"KEY BINDINGS\"",
            "\"EXIT STATUS\"",
            "ENVIRONMENT",
            "\"SEE ALSO\"",
            "VERSION"
        ],
        "{}",
        man.stdout
    );
    for word in ["RIGSCOPE_SIMD", "NO_COLOR", "COLORTERM", "SIGTERM", "docs/commands.md"] {
        assert!(man.stdout.contains(word), "man says {word}: {}", man.stdout);
    }
    let pose = rigscope(&["man", "pose"]);
    assert!(pose.stdout.contains(".TH rigscope-pose 1"), "{}", pose.stdout);
    assert!(pose.stdout.contains("\\fBrigscope pose\\fR"), "{}", pose.stdout);
    assert!(pose.stdout.contains("\\-\\-no\\-positions"), "{}", pose.stdout);
    let run = rigscope(&["man", "frobnicate"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no command named 'frobnicate'"), "{}", run.stderr);
}

#[test]
fn inspect_says_what_each_skin_deforms() {
    // The nodes that name each skin, read with the gltf crate rather than rigscope's loader.
    let bytes = std::fs::read(sample("walker.glb")).expect("read");
    let gltf = gltf::Gltf::from_slice(&bytes).expect("glTF");
    let users: Vec<(usize, usize, Option<usize>)> = gltf
        .nodes()
        .filter_map(|n| Some((n.skin()?.index(), n.index(), n.mesh().map(|m| m.index()))))
        .collect();
    assert!(!users.is_empty());
    let run = rigscope(&["inspect", &sample("walker.glb"), "--json"]);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    for (s, skin) in doc["skins"].as_array().expect("skins").iter().enumerate() {
        let listed: Vec<(usize, usize, Option<usize>)> = (skin["deforms"]
            .as_array()
            .expect("deforms")
            .iter())
        .map(|u| (s, u["node"].as_u64().expect("node") as usize, u["mesh"].as_u64().map(|m| m as usize)))
        .collect();
        let expected: Vec<_> = users.iter().copied().filter(|u| u.0 == s).collect();
        assert_eq!(listed, expected, "skin {s}");
    }
    let (_, node, mesh) = users[0];
    let mesh = mesh.expect("a mesh");
    let mesh_name = gltf.meshes().nth(mesh).and_then(|m| m.name().map(str::to_string)).expect("named");
    let node_name = gltf.nodes().nth(node).and_then(|n| n.name().map(str::to_string)).expect("named");
    let text = rigscope(&["inspect", &sample("walker.glb")]).stdout;
    assert!(
        text.contains(&format!("deforms mesh #{mesh} \"{mesh_name}\" on node {node} \"{node_name}\"")),
        "{text}"
    );
}

/// A .gltf with `n` root nodes, a skin per node but the last, and `n` clips (each moving one
/// node), in `dir`: enough indices to reach two digits.
fn many_indices(dir: &std::path::Path, n: usize) -> String {
    use base64::Engine;
    let mut bytes = Vec::new();
    for f in [0.0f32, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0] {
        bytes.extend_from_slice(&f.to_le_bytes());
    }
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    );
    let nodes: Vec<Value> = (0..n).map(|i| serde_json::json!({ "name": format!("n{i}") })).collect();
    let skins: Vec<Value> =
        (0..n - 1).map(|i| serde_json::json!({ "name": format!("skin{i}"), "joints": [i] })).collect();
    let clips: Vec<Value> = (0..n)
        .map(|i| {
            serde_json::json!({
                "name": format!("clip{i}"),
                "channels": [{ "sampler": 0, "target": { "node": i, "path": "translation" } }],
                "samplers": [{ "input": 0, "output": 1 }]
            })
        })
        .collect();
    let doc = serde_json::json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": (0..n).collect::<Vec<_>>() }],
        "nodes": nodes,
        "skins": skins,
        "animations": clips,
        "buffers": [{ "byteLength": bytes.len(), "uri": uri }],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": 8 },
            { "buffer": 0, "byteOffset": 8, "byteLength": 24 }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0] },
            { "bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3" }
        ]
    });
    let path = dir.join("many.gltf");
    std::fs::write(&path, serde_json::to_vec(&doc).expect("JSON")).expect("write");
    path.display().to_string()
}

/// The lines of the section headed `title` in inspect's text.
fn section<'a>(text: &'a str, title: &str) -> Vec<&'a str> {
    let start = text.find(&format!("\n{title}")).expect("section");
    text[start + 1..].lines().skip(1).take_while(|l| !l.is_empty()).collect()
}

#[test]
fn inspect_columns_line_up_past_index_9() {
    let (_guard, dir) = temp_dir("many");
    let file = many_indices(&dir, 12);
    let run = rigscope(&["inspect", &file]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let skins: Vec<&str> =
        section(&run.stdout, "skins (11)").into_iter().filter(|l| l.starts_with("  #")).collect();
    let clips = section(&run.stdout, "clips (12)");
    assert_eq!((skins.len(), clips.len()), (11, 12), "{}", run.stdout);
    // Every name starts in the same column, #0 as #10, and so does the column after it.
    for (lines, later) in [(skins, " joints"), (clips, " s ")] {
        for needle in ["\"", later] {
            let columns: Vec<Option<usize>> = lines.iter().map(|l| l.find(needle)).collect();
            assert!(columns.iter().all(|c| *c == columns[0] && c.is_some()), "{needle}: {lines:#?}");
        }
    }
}

#[test]
fn check_tables_keep_their_columns_whatever_the_cell_widths() {
    let run = rigscope(&["check", &sample("bad-weights.glb"), "--max", "100"]);
    let mut header: Option<&str> = None;
    let mut rows = 0;
    for line in run.stdout.lines() {
        if line.trim_start().starts_with("mesh/primitive") {
            header = Some(line);
            continue;
        }
        let Some(h) = header else { continue };
        if !line.starts_with("  ") || line.trim_start().starts_with("...") {
            header = None;
            continue;
        }
        // Left-aligned lists start under their headings; the right-aligned sum ends under its.
        let chars: Vec<char> = line.chars().collect();
        // Joints read `2=#2 3=#3 ...`, weights `[0.5, ...]`.
        for (heading, first) in [(" joints", "0123456789"), (" weights", "[")] {
            let at = h.find(heading).expect("heading") + 1;
            assert!(first.contains(chars[at]), "{heading} in\n{h}\n{line}");
        }
        let sum_end = h.find(" sum").expect("sum") + 4;
        assert!(!chars[sum_end - 1].is_whitespace() && chars[sum_end] == ' ', "sum in\n{h}\n{line}");
        rows += 1;
    }
    // One row per vertex finding the file has (14 findings, all about vertices).
    assert_eq!(rows, 14, "{}", run.stdout);
}

/// The real viewer in tmux: `--time 99` is said on the terminal once the viewer has closed,
/// and Ctrl-C ends it with 130 as shells report an interrupted program (128 + SIGINT).
/// Skipped with a note when tmux is not installed.
#[test]
fn ctrl_c_ends_the_viewer_with_130_and_a_clamped_time_is_said() {
    let Some(tmux) = super::tmux::Tmux::new("the Ctrl-C test") else { return };
    let walker = sample("walker.glb");
    let cmd =
        format!("{} {walker} --time 99 --paused; echo EXITED $?; sleep 30", env!("CARGO_BIN_EXE_rigscope"));
    tmux.start("ctrlc", 120, 40, &cmd);
    let wait_for = |needle: &str| tmux.wait_for("ctrlc", &[needle]);
    // The clamped start: the clip's end, 1 s.
    wait_for("1.0000 / 1.0000 s");
    tmux.run(&["send-keys", "-t", "ctrlc", "C-c"]);
    let after = wait_for("EXITED");
    assert!(after.contains("EXITED 130"), "{after}");
    let note =
        format!("rigscope: note: {walker}: --time 99 is past the end of clip walk (1 s long): showing t = 1");
    assert!(after.contains(&note), "{after}");
}

/// A node name longer than the usual 24-column field widens the name column for the whole
/// text output, so every matrix row still starts in the same column.
#[test]
fn pose_text_rows_stay_aligned_past_long_names() {
    let mut doc = gltf_json("seed-arm.gltf");
    let long = "a_joint_name_from_a_real_pipeline_export_42";
    doc["nodes"][1]["name"] = Value::from(long);
    let (_guard, dir) = temp_dir("long-names");
    let file = dir.join("long.gltf");
    std::fs::write(&file, serde_json::to_vec(&doc).expect("JSON")).expect("write");
    let run = rigscope(&["pose", file.to_str().expect("UTF-8"), "--rest", "--no-positions"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let rows: Vec<&str> = run.stdout.lines().filter(|l| l.ends_with(']') && l.contains(" | ")).collect();
    assert_eq!(rows.len(), doc["nodes"].as_array().expect("nodes").len(), "{}", run.stdout);
    assert!(rows.iter().any(|r| r.contains(long)), "{}", run.stdout);
    let starts: Vec<usize> = rows.iter().map(|r| r.chars().position(|c| c == '[').expect("[")).collect();
    assert!(starts.iter().all(|&s| s == starts[0]), "{starts:?}\n{}", run.stdout);
}

#[test]
fn pose_json_writes_each_time_as_asked() {
    // Times with more digits than an f32 holds (the first from issue 37), one that is an
    // f32 exactly, and 0.1 (no f32 is 0.1): each comes back as the same f64.
    let asked = ["23.986666870117187", "0.30000000000000004", "1.5", "0.1"];
    let mut args = vec!["pose".to_string(), sample("tentacle.glb"), "--json".into(), "--no-positions".into()];
    for t in asked {
        args.extend(["--time".to_string(), t.to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = rigscope(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let back: Vec<f64> =
        doc["frames"].as_array().expect("frames").iter().map(|f| f["t"].as_f64().expect("t")).collect();
    let want: Vec<f64> = asked.iter().map(|t| t.parse().expect("number")).collect();
    assert_eq!(back, want);
}

/// `TERM=dumb` cannot move a cursor: the viewer refuses with exit 2 and points to `render`,
/// whatever stdout is (the check comes before the one for a terminal).
#[test]
fn term_dumb_refuses_the_viewer_and_points_to_render() {
    let out = Command::new(env!("CARGO_BIN_EXE_rigscope"))
        .arg(sample("walker.glb"))
        .env("TERM", "dumb")
        .stdin(Stdio::null())
        .output()
        .expect("run rigscope");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("rigscope: error: TERM=dumb: "), "{stderr}");
    assert!(stderr.contains("`rigscope render FILE`"), "{stderr}");
    assert!(out.stdout.is_empty());
}

/// The man page lists every binding of the viewer's key table (the table the help overlay is
/// drawn from), and has EXIT STATUS and ENVIRONMENT sections naming what rigscope reads.
#[test]
fn the_man_page_has_key_bindings_exit_status_and_environment() {
    let man = rigscope(&["man"]);
    assert_eq!(man.code, 0, "{}", man.stderr);
    let page = &man.stdout;
    // roff's escapes, as clap_mangen's roff writes them.
    let roff = |s: &str| s.replace('\\', "\\\\").replace('-', "\\-").replace('\'', "\\*(Aq");
    let sections: Vec<&str> = page.lines().filter(|l| l.starts_with(".SH ")).collect();
    let at = |name: &str| {
        sections.iter().position(|s| *s == name).unwrap_or_else(|| panic!("{name} in {sections:?}"))
    };
    assert!(at(".SH SUBCOMMANDS") < at(".SH \"KEY BINDINGS\""));
    assert!(at(".SH \"KEY BINDINGS\"") < at(".SH \"EXIT STATUS\""));
    assert!(at(".SH \"EXIT STATUS\"") < at(".SH ENVIRONMENT"));
    for b in rigscope::tui::keymap::BINDINGS {
        assert!(
            page.contains(&format!("\\fB{}\\fR\n{}", roff(b.label), roff(b.help))),
            "man misses {:?}",
            b.label
        );
    }
    for var in ["TERM", "COLORTERM", "NO_COLOR", "RIGSCOPE_SIMD", "RIGSCOPE_ASSETS", "COMPLETE"] {
        assert!(page.contains(&format!(".TP\n\\fB{var}\\fR\n")), "ENVIRONMENT misses {var}");
    }
    for code in ["0", "1", "2", "130, 143, 129"] {
        assert!(page.contains(&format!(".TP\n\\fB{code}\\fR\n")), "EXIT STATUS misses {code}");
    }
}

/// Completions that ask the binary (fish's protocol: one candidate a line, a tab before its
/// help): `--ignore` offers the check codes with that prefix, after a comma too; `--clip`
/// offers the clips of the file typed before it (the walker's are walk and idle).
#[test]
fn completion_asks_the_binary_for_codes_and_clip_names() {
    let complete = |words: &[&str]| -> Vec<String> {
        let out = Command::new(env!("CARGO_BIN_EXE_rigscope"))
            .arg("--")
            .args(words)
            .env("COMPLETE", "fish")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::null())
            .output()
            .expect("run rigscope");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.split('\t').next().unwrap_or("").to_string())
            .collect()
    };
    let mut expected: Vec<String> = rigscope::diagnose::codes::ALL
        .iter()
        .filter(|c| c.id.starts_with("RIG_JOINT_"))
        .map(|c| c.id.to_string())
        .collect();
    assert!(expected.contains(&"RIG_JOINT_UNUSED".to_string()), "{expected:?}");
    let mut got = complete(&["rigscope", "check", "x.glb", "--ignore", "RIG_JOINT_"]);
    got.sort();
    expected.sort();
    assert_eq!(got, expected);
    let got = complete(&["rigscope", "check", "--ignore", "RIG_JOINT_UNUSED,RIG_JOINT_U"]);
    assert_eq!(got, vec!["RIG_JOINT_UNUSED,RIG_JOINT_UNUSED".to_string()]);
    assert_eq!(complete(&["rigscope", "samples/walker.glb", "--clip", ""]), vec!["walk", "idle"]);
    assert_eq!(complete(&["rigscope", "pose", "samples/walker.glb", "--clip", "i"]), vec!["idle"]);
    // No file on the line, or one that does not load: nothing, and no error in the line.
    assert!(complete(&["rigscope", "pose", "--clip", ""]).is_empty());
    assert!(complete(&["rigscope", "pose", "Cargo.toml.glb", "--clip", ""]).is_empty());
    // The script a shell sources calls rigscope back.
    let run = rigscope(&["completions", "bash", "--dynamic"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("COMPLETE=\"bash\"") || run.stdout.contains("COMPLETE=bash"),
        "{}",
        run.stdout
    );
}
