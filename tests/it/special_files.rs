//! FIFOs and devices where rigscope expects a file: as LIB, as a `--map` file, as a .gltf's
//! buffer, as the file itself. Each is refused at once, naming it, instead of waiting forever
//! for a FIFO's writer or reading /dev/zero until memory runs out.
#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use super::cli::sample;

/// Runs rigscope with `args`, killed past `PATIENCE` (a blocked open never returns):
/// the exit code (`None` when killed) and stderr.
fn run(args: &[&str]) -> (Option<i32>, String) {
    let dir = tempfile::Builder::new().prefix("rigscope-special-run-").tempdir().expect("temp");
    let err_path = dir.path().join("stderr");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rigscope"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("rigscope starts");
    let start = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if start.elapsed() > crate::PATIENCE {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    (code, std::fs::read_to_string(&err_path).unwrap_or_default())
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo").arg(path).status().is_ok_and(|s| s.success())
}

#[test]
fn fifos_and_devices_are_refused_as_not_regular_files() {
    let guard = tempfile::Builder::new().prefix("rigscope-special-").tempdir().expect("temp");
    let dir = guard.path();
    let (pipe, map) = (dir.join("pipe.glb"), dir.join("names.map"));
    if !mkfifo(&pipe) || !mkfifo(&map) || !mkfifo(&dir.join("arm.bin")) {
        eprintln!("special files: skipped, mkfifo is not available");
        return;
    }
    // seed-arm.gltf with its buffer named as the FIFO arm.bin.
    let text = std::fs::read_to_string(sample("seed-arm.gltf")).expect("sample");
    let mut json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    json["buffers"][0]["uri"] = "arm.bin".into();
    let arm = dir.join("arm.gltf");
    std::fs::write(&arm, serde_json::to_vec(&json).expect("JSON")).expect("gltf");

    let walker = sample("walker.glb");
    let s = |p: &Path| p.to_str().expect("UTF-8 path").to_string();
    let cases: Vec<(Vec<String>, String)> = vec![
        (vec!["fit".into(), walker.clone(), s(&pipe)], s(&pipe)),
        (vec!["fit".into(), walker.clone(), "/dev/zero".into()], "/dev/zero".into()),
        (vec!["pose".into(), walker.clone(), "--anim".into(), "/dev/zero".into()], "/dev/zero".into()),
        (vec!["fit".into(), walker.clone(), walker.clone(), "--map".into(), s(&map)], s(&map)),
        (vec!["inspect".into(), s(&arm)], "arm.bin".into()),
        (vec!["inspect".into(), s(&pipe)], s(&pipe)),
        (vec!["check".into(), "/dev/zero".into()], "/dev/zero".into()),
    ];
    for (args, named) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stderr) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("not a regular file"), "{args:?}: {stderr}");
        assert!(stderr.contains(&named), "{args:?} does not name {named}: {stderr}");
    }
}
