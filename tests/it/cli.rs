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

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rigscope-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn every_malformed_file_exits_2_naming_the_file_without_a_panic() {
    let dir = temp_dir("malformed");
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
    let dir = temp_dir("folder");
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

#[test]
fn a_closed_pipe_ends_quietly() {
    for json in [false, true] {
        let mut args = vec!["pose".to_string(), sample("walker.glb")];
        if json {
            args.push("--json".into());
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_rigscope"))
            .args(&args)
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
    assert!(n > 1, "--max does not shorten the JSON");
}
