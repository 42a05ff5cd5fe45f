//! The memory bound docs/loading.md "Limits" states, held: small files that claim huge counts (zero-filled
//! accessors of 100M elements, 67M keys, one mesh drawn by many nodes or a million instances,
//! a sampler shared by thousands of channels, a meshopt fallback of 900 MB, an accessor shared
//! by hundreds of meshes) are refused with a
//! message naming the file and the part of it at fault, or run inside the bound; every command
//! and the viewer run as a child whose peak RSS the kernel reports (`wait4`, Linux only).
//!
//! The files are built here and committed to `fuzz/regressions/pipeline/` so the fuzz
//! targets replay them too; `RIGSCOPE_REGEN=1 cargo test --test it limits` rewrites them.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// docs/loading.md "Limits": peak memory <= PER_INPUT_BYTE x input size + CONSTANT.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const PER_INPUT_BYTE: u64 = 100;
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const CONSTANT: u64 = 768 << 20;

/// One crafted file and what loading it must say (`None`: it loads).
struct Crafted {
    name: &'static str,
    json: Value,
    refused_with: Option<&'static [&'static str]>,
}

fn zero_accessor(count: u64, ty: &str) -> Value {
    json!({"componentType": 5126, "count": count, "type": ty})
}

fn data_uri(bytes: &[u8]) -> String {
    use base64::Engine as _;
    format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

fn crafted() -> Vec<Crafted> {
    let asset = json!({"version": "2.0"});
    let one_mesh = |vertices: u64| {
        json!([{"primitives": [{"attributes": {"POSITION": 0}}]}])
            .as_array()
            .cloned()
            .map(|m| (m, zero_accessor(vertices, "VEC3")))
    };
    let mut files = Vec::new();

    let (meshes, positions) = one_mesh(100_000_000).unwrap_or_default();
    files.push(Crafted {
        name: "amplify-zero-positions.gltf",
        json: json!({"asset": asset, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
            "meshes": meshes, "accessors": [positions]}),
        refused_with: Some(&[
            "meshes[0].primitives[0].attributes.POSITION",
            "accessors[0]",
            "100000000 VEC3",
        ]),
    });

    files.push(Crafted {
        name: "amplify-zero-keys.gltf",
        json: json!({"asset": asset, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{}],
            "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}],
                "samplers": [{"input": 0, "output": 1}]}],
            "accessors": [zero_accessor(67_108_864, "SCALAR"), zero_accessor(67_108_864, "VEC4")]}),
        refused_with: Some(&["animations[0].samplers[0].input", "accessors[0]", "67108864"]),
    });

    // 64 nodes draw one zero-filled 100k-vertex mesh: 6.4M vertices per frame.
    let (meshes, positions) = one_mesh(100_000).unwrap_or_default();
    files.push(Crafted {
        name: "amplify-many-nodes.gltf",
        json: json!({"asset": asset, "scene": 0, "scenes": [{"nodes": (0..64).collect::<Vec<_>>()}],
            "nodes": vec![json!({"mesh": 0}); 64], "meshes": meshes, "accessors": [positions]}),
        refused_with: Some(&["nodes[", "draws mesh 0 (100000 vertices)"]),
    });

    // A million instances of the same mesh.
    let (meshes, positions) = one_mesh(100_000).unwrap_or_default();
    files.push(Crafted {
        name: "amplify-many-instances.gltf",
        json: json!({"asset": asset, "extensionsUsed": ["EXT_mesh_gpu_instancing"], "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0, "extensions": {"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": 1}}}}],
            "meshes": meshes, "accessors": [positions, zero_accessor(1_000_000, "VEC3")]}),
        refused_with: Some(&["nodes[0].extensions.EXT_mesh_gpu_instancing.attributes.TRANSLATION", "1000000 instances"]),
    });

    // 4,000 channels share one sampler of 1,000 stored keys (16 kB): read once and baked
    // once for sampling, it loads (a copy and a bake per channel took 9 x 64 MB).
    let keys = 1000usize;
    let mut bytes: Vec<u8> = (0..keys).flat_map(|k| (k as f32 * 0.01).to_le_bytes()).collect();
    bytes.extend((0..keys).flat_map(|_| [0.0f32, 0.0, 0.0, 1.0]).flat_map(f32::to_le_bytes));
    let channels = 4000;
    files.push(Crafted {
        name: "amplify-shared-sampler.gltf",
        json: json!({"asset": asset, "scene": 0, "scenes": [{"nodes": [0]}],
            "nodes": std::iter::once(json!({"children": (1..=channels).collect::<Vec<_>>()}))
                .chain((0..channels).map(|_| json!({}))).collect::<Vec<_>>(),
            "animations": [{"channels": (0..channels).map(|i| json!({"sampler": 0, "target": {"node": i + 1, "path": "rotation"}})).collect::<Vec<_>>(),
                "samplers": [{"input": 0, "output": 1}]}],
            "buffers": [{"byteLength": bytes.len(), "uri": data_uri(&bytes)}],
            "bufferViews": [{"buffer": 0, "byteLength": keys * 4}, {"buffer": 0, "byteOffset": keys * 4, "byteLength": keys * 16}],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": keys, "type": "SCALAR", "min": [0.0], "max": [(keys - 1) as f32 * 0.01]},
                {"bufferView": 1, "componentType": 5126, "count": keys, "type": "VEC4"}]}),
        refused_with: None,
    });

    let compressed = [0u8; 64];
    files.push(Crafted {
        name: "amplify-meshopt-fallback.gltf",
        json: json!({"asset": asset, "extensionsUsed": ["EXT_meshopt_compression"],
            "extensionsRequired": ["EXT_meshopt_compression"], "scene": 0, "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0}], "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
            "buffers": [{"byteLength": 64, "uri": data_uri(&compressed)},
                {"byteLength": 900_000_000, "extensions": {"EXT_meshopt_compression": {"fallback": true}}}],
            "bufferViews": [{"buffer": 1, "byteLength": 1200, "byteStride": 12, "extensions": {"EXT_meshopt_compression":
                {"buffer": 0, "byteLength": 64, "byteStride": 12, "count": 100, "mode": "ATTRIBUTES"}}}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": 100, "type": "VEC3", "min": [0, 0, 0], "max": [0, 0, 0]}]}),
        refused_with: Some(&["buffers[1].byteLength", "900000000"]),
    });

    // 500 meshes name one zero-filled 40k-vertex POSITION (480 kB), one node draws the first:
    // decoded once and shared, it loads (copied per use, it would be 240 MB).
    let meshes = vec![json!({"primitives": [{"attributes": {"POSITION": 0}}]}); 500];
    files.push(Crafted {
        name: "amplify-shared-positions.gltf",
        json: json!({"asset": asset, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
            "meshes": meshes, "accessors": [{"componentType": 5126, "count": 40_000, "type": "VEC3", "min": [0, 0, 0], "max": [0, 0, 0]}]}),
        refused_with: None,
    });

    // Inside every limit: 16 nodes draw one zero-filled 16k-vertex mesh with normals, and a
    // sparse-only morph target (zeros with one stored delta) plays on it.
    let vertices = 16_384u64;
    let mut sparse = 0u32.to_le_bytes().to_vec();
    sparse.extend([0.0f32, 1.0, 0.0].iter().flat_map(|v| v.to_le_bytes()));
    files.push(Crafted {
        name: "amplify-drawn-inside.gltf",
        json: json!({"asset": asset, "scene": 0, "scenes": [{"nodes": (0..16).collect::<Vec<_>>()}],
            "nodes": (0..16).map(|i| json!({"mesh": 0, "translation": [i, 0, 0]})).collect::<Vec<_>>(),
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}, "targets": [{"POSITION": 2}]}], "weights": [0.5]}],
            "buffers": [{"byteLength": sparse.len(), "uri": data_uri(&sparse)}],
            "bufferViews": [{"buffer": 0, "byteLength": 4}, {"buffer": 0, "byteOffset": 4, "byteLength": 12}],
            "accessors": [
                {"componentType": 5126, "count": vertices, "type": "VEC3", "min": [0, 0, 0], "max": [0, 0, 0]},
                zero_accessor(vertices, "VEC3"),
                {"componentType": 5126, "count": vertices, "type": "VEC3", "min": [0, 0, 0], "max": [0, 1, 0],
                 "sparse": {"count": 1, "indices": {"bufferView": 0, "componentType": 5125}, "values": {"bufferView": 1}}}]}),
        refused_with: None,
    });
    files
}

fn regressions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz").join("regressions").join("pipeline")
}

/// The committed files are exactly what `crafted` builds (RIGSCOPE_REGEN=1 rewrites them).
#[test]
fn the_crafted_files_are_committed_as_built() {
    // fuzz/ is its own package, so a published rigscope crate does not hold these files.
    if !Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/Cargo.toml").is_file() {
        eprintln!("note: skipping the committed-files check: fuzz/ is not here (a packaged crate)");
        return;
    }
    for file in crafted() {
        let bytes = serde_json::to_vec(&file.json).unwrap_or_default();
        let path = regressions().join(file.name);
        if std::env::var_os("RIGSCOPE_REGEN").is_some() {
            std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        let committed = std::fs::read(&path).unwrap_or_default();
        assert!(committed == bytes, "{} differs from what this test builds", path.display());
    }
}

/// Loading each file in process: the refusal names the file and the part at fault.
#[test]
fn huge_claims_are_refused_naming_the_file_and_the_part() {
    for file in crafted() {
        let bytes = serde_json::to_vec(&file.json).unwrap_or_default();
        let result = rigscope::import::load_bytes(&bytes, file.name, None);
        match (file.refused_with, result) {
            (Some(says), Err(e)) => {
                let e = e.to_string();
                assert!(e.starts_with(&format!("{}: ", file.name)), "{e}");
                for part in says {
                    assert!(e.contains(part), "{}: {part:?} missing from {e}", file.name);
                }
            }
            (Some(_), Ok(_)) => panic!("{} loads", file.name),
            (None, Err(e)) => panic!("{} is refused: {e}", file.name),
            (None, Ok(rig)) if file.name == "amplify-shared-sampler.gltf" => {
                let channels = &rig.clips[0].channels;
                assert_eq!(channels.len(), 4000);
                let (times, values) = (&channels[0].times, &channels[0].values);
                assert!(times.iter().enumerate().all(|(k, &t)| t == k as f32 * 0.01));
                assert!(values.chunks(4).all(|q| q == [0.0, 0.0, 0.0, 1.0]) && values.len() == 4000);
                let shared = channels.iter().all(|c| {
                    std::sync::Arc::ptr_eq(&c.times, times) && std::sync::Arc::ptr_eq(&c.values, values)
                });
                assert!(shared, "every channel holds the sampler's one decoded input and output");
            }
            (None, Ok(rig)) if file.name == "amplify-shared-positions.gltf" => {
                let first = &rig.meshes[0].primitives[0].positions;
                assert_eq!((rig.meshes.len(), first.len()), (500, 40_000));
                assert!(first.iter().all(|p| *p == glam::Vec3::ZERO));
                let shared =
                    rig.meshes.iter().all(|m| std::sync::Arc::ptr_eq(&m.primitives[0].positions, first));
                assert!(shared, "every mesh holds the one decoded accessor");
            }
            (None, Ok(rig)) => {
                assert_eq!(rig.nodes.len(), 16);
                assert_eq!(rig.meshes[0].primitives[0].positions.len(), 16_384);
            }
        }
    }
}

#[cfg(target_os = "linux")]
mod peak {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use super::super::slow_link::{LinkSpec, Session};

    /// How a child ended and its peak RSS in bytes, twice: `peak` from the kernel's rusage
    /// (exact, but `exec` keeps the test process's own high-water mark, so it can only be
    /// more) and `seen`, the child's `VmHWM` as last read while it ran (its own).
    pub struct Run {
        pub code: i32,
        pub peak: u64,
        pub seen: u64,
    }

    fn vm_hwm(pid: libc::pid_t) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    }

    /// Reaps child `pid` (polling, killing it after `limit`) and reads its rusage.
    pub fn reap(pid: u32, limit: Duration) -> Run {
        let pid = pid as libc::pid_t;
        let start = Instant::now();
        let mut seen = 0;
        loop {
            seen = seen.max(vm_hwm(pid).unwrap_or(0));
            let mut status = 0;
            // SAFETY: `rusage` is plain old data the kernel fills; `status` is a valid int.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: wait4 on our own child, with valid pointers to the two outputs.
            let done = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
            assert!(done >= 0, "wait4 failed: {}", std::io::Error::last_os_error());
            if done == pid {
                let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
                // ru_maxrss is in kilobytes on Linux.
                return Run { code, peak: u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024, seen };
            }
            if start.elapsed() > limit {
                // SAFETY: signalling our own child.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Runs `rigscope args`, stdout to `out` (pose writes a lot), stderr returned.
    pub fn command(args: &[&str], out: &std::path::Path) -> (Run, String) {
        let err = out.with_extension("stderr");
        // Reaped by `reap` with wait4, which std's `wait` cannot give the rusage of.
        #[allow(clippy::zombie_processes)]
        let child = Command::new(env!("CARGO_BIN_EXE_rigscope"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(out).expect("stdout file"))
            .stderr(std::fs::File::create(&err).expect("stderr file"))
            .spawn()
            .expect("rigscope starts");
        // Only a command that hangs runs into this; a loaded machine is slow, not stuck.
        let run = reap(child.id(), Duration::from_secs(600));
        (run, std::fs::read_to_string(&err).unwrap_or_default())
    }

    /// Opens `file` in the viewer in a pty; for a file that loads, waits for the first
    /// frame and quits with `q`. The screen is returned for messages.
    pub fn viewer(file: &str, loads: bool) -> (Run, String) {
        let link = LinkSpec { bits_per_s: None, rtt: Duration::ZERO, buffer: 2 << 20, answers: true };
        let session = Session::start(env!("CARGO_BIN_EXE_rigscope"), &[file], 120, 40, link);
        let pid = session.pid().expect("the viewer's pid");
        let limit = crate::PATIENCE;
        if loads {
            session
                .wait_for(limit, |s| s.contains("Viewport:"))
                .unwrap_or_else(|| panic!("the viewer never drew {file}:\n{}", session.contents()));
            session.send(b"q");
        }
        let run = reap(pid, limit);
        // What the viewer printed before exiting may still be arriving from the pty: wait
        // for the end of its output, however long a loaded machine takes to relay it.
        assert!(session.wait_closed(limit), "the viewer's output never ended:\n{}", session.contents());
        (run, session.contents())
    }
}

/// Every command and the viewer on every crafted file: a clear refusal (status 2, the
/// file and the part named) or a normal run, always under the bound docs/loading.md states.
#[test]
fn peak_memory_stays_under_the_stated_bound() {
    #[cfg(not(target_os = "linux"))]
    {
        eprintln!("note: peak memory is measured on Linux only (wait4); skipped");
    }
    #[cfg(target_os = "linux")]
    {
        let (_guard, dir) = super::temp::folder("limits");
        let mut table = Vec::new();
        for file in crafted() {
            let path = dir.join(file.name);
            let bytes = serde_json::to_vec(&file.json).unwrap_or_default();
            std::fs::write(&path, &bytes).expect("crafted file");
            let bound = PER_INPUT_BYTE * bytes.len() as u64 + CONSTANT;
            let p = path.to_string_lossy().into_owned();
            let normalized = dir.join("normalized.glb").to_string_lossy().into_owned();
            let runs: [(&str, Vec<&str>); 6] = [
                ("inspect", vec!["inspect", &p]),
                ("check", vec!["check", &p]),
                ("pose", vec!["pose", "--json", "--time", "0.5", &p]),
                ("render", vec!["render", "--size", "40x12", &p]),
                ("normalize", vec!["normalize", "--force", "-o", &normalized, &p]),
                ("bench", vec!["bench", "--frames", "3", "--size", "40x12", &p]),
            ];
            let mut results: Vec<(&str, peak::Run, String)> = runs
                .iter()
                .map(|(what, args)| {
                    let (run, err) = peak::command(args, &dir.join("out"));
                    (*what, run, err)
                })
                .collect();
            let (run, screen) = peak::viewer(&p, file.refused_with.is_none());
            results.push(("viewer", run, screen));
            for (what, run, said) in results {
                table.push(format!(
                    "{:32} {what:9} {:>5.1} MB (rusage with the test's own: {:.1} MB)",
                    file.name,
                    run.seen as f64 / 1048576.0,
                    run.peak as f64 / 1048576.0
                ));
                assert!(
                    run.peak <= bound,
                    "{} {what}: peak {} bytes over the bound {bound} ({PER_INPUT_BYTE} x {} + {CONSTANT})",
                    file.name,
                    run.peak,
                    bytes.len()
                );
                match file.refused_with {
                    Some(says) => {
                        assert_eq!(run.code, 2, "{} {what}: {said}", file.name);
                        assert!(
                            said.contains(file.name) && said.contains(says[0]),
                            "{} {what}: {said}",
                            file.name
                        );
                    }
                    // check exits 1 for the missing POSITION bounds' findings, never 2.
                    None => assert!(
                        run.code == 0 || run.code == 1,
                        "{} {what}: status {}: {said}",
                        file.name,
                        run.code
                    ),
                }
            }
        }
        eprintln!("peak RSS per file and command:\n{}", table.join("\n"));
    }
}
