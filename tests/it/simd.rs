//! `RIGSCOPE_SIMD` picks the kernels' path for the whole program, and every path draws and
//! poses the same bytes: the portable ("scalar") path is the definition the vector paths
//! are held to, on the bundled samples and (when `RIGSCOPE_ASSETS` is set) every shared asset.
//! An unknown value is named on stderr, once, with the known ones.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::assets::{assets_dir, skip_notice};
use super::cli::sample;

/// stdout of `rigscope args` with `RIGSCOPE_SIMD=simd` (None: unset).
fn run(simd: Option<&str>, args: &[&str]) -> Vec<u8> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rigscope"));
    cmd.args(args).env_remove("RIGSCOPE_SIMD").env_remove("NO_COLOR").stdin(Stdio::null());
    if let Some(simd) = simd {
        cmd.env("RIGSCOPE_SIMD", simd);
    }
    let out = cmd.output().expect("run rigscope");
    assert!(
        out.status.success(),
        "{args:?} with RIGSCOPE_SIMD={simd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        ["walker.glb", "tentacle.glb", "seed-arm.gltf", "bad-weights.glb"].map(|s| sample(s).into()).to_vec();
    match assets_dir() {
        Some(dir) => {
            for entry in std::fs::read_dir(&dir).expect("assets dir").flatten() {
                for file in std::fs::read_dir(entry.path()).into_iter().flatten().flatten() {
                    let path = file.path();
                    if path.extension().is_some_and(|e| e == "glb" || e == "gltf") {
                        files.push(path);
                    }
                }
            }
        }
        None => skip_notice("the SIMD path comparison on the shared assets"),
    }
    files
}

#[test]
fn bench_reports_the_path_the_environment_asks_for() {
    let walker = sample("walker.glb");
    let doc = |simd| -> serde_json::Value {
        serde_json::from_slice(&run(simd, &["bench", &walker, "--frames", "1", "--json"])).expect("JSON")
    };
    assert_eq!(doc(Some("scalar"))["simd"], "scalar");
    let auto = doc(None)["simd"].as_str().map(str::to_owned).expect("simd is a string");
    assert!(["avx2", "neon", "scalar"].contains(&auto.as_str()), "{auto}");
    // Any other value asks for the best the CPU has (`avx512` from older scripts included).
    assert_eq!(doc(Some("avx2"))["simd"], auto.as_str());
    assert_eq!(doc(Some("avx512"))["simd"], auto.as_str());
}

#[test]
fn every_path_renders_and_poses_the_same_bytes() {
    for file in files() {
        let file = file.display().to_string();
        for mode in ["braille", "halfblock", "ascii"] {
            let args = ["render", &file, "--mode", mode, "--size", "100x40", "--bones", "--color", "always"];
            let reference = run(Some("scalar"), &args);
            for simd in [None, Some("avx2")] {
                assert!(
                    run(simd, &args) == reference,
                    "render {file} --mode {mode}: {simd:?} differs from scalar"
                );
            }
        }
        let args = ["pose", &file, "--json"];
        let reference = run(Some("scalar"), &args);
        for simd in [None, Some("avx2")] {
            assert!(run(simd, &args) == reference, "pose {file}: {simd:?} differs from scalar");
        }
    }
}

#[test]
fn an_unknown_value_is_named_once_with_the_known_ones() {
    let walker = sample("walker.glb");
    let out = Command::new(env!("CARGO_BIN_EXE_rigscope"))
        .args(["pose", &walker, "--json", "--no-positions"])
        .env("RIGSCOPE_SIMD", "bogus")
        .stdin(Stdio::null())
        .output()
        .expect("run rigscope");
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let note = "rigscope: note: RIGSCOPE_SIMD=bogus is not a known value (scalar, avx2, avx512): \
                using the best the CPU has\n";
    assert_eq!(stderr, note);
    // The same bytes as with no value at all.
    assert!(out.stdout == run(None, &["pose", &walker, "--json", "--no-positions"]));
    // Known values say nothing.
    for known in ["scalar", "avx2", "AVX512"] {
        let out = Command::new(env!("CARGO_BIN_EXE_rigscope"))
            .args(["pose", &walker, "--json", "--no-positions"])
            .env("RIGSCOPE_SIMD", known)
            .stdin(Stdio::null())
            .output()
            .expect("run rigscope");
        assert!(out.stderr.is_empty(), "{known}: {}", String::from_utf8_lossy(&out.stderr));
    }
}
