//! `rigscope inspect`'s sizes against glTF Transform's `inspect` (its CSV output, committed
//! in tests/fixtures/inspect with the commands that made it): the same bytes per mesh,
//! animation and texture, and the same GPU estimate per texture.

use serde_json::Value;

use super::cli::{rigscope, sample};

/// The rows of one section of glTF Transform's CSV report, as header -> value maps.
fn section(csv: &str, title: &str) -> Vec<std::collections::HashMap<String, String>> {
    let lines: Vec<&str> = csv.lines().collect();
    let Some(at) = lines.iter().position(|l| l.trim() == title) else { return Vec::new() };
    let rows: Vec<&str> = lines[at + 2..].iter().take_while(|l| !l.trim().is_empty()).copied().collect();
    let Some((header, rows)) = rows.split_first() else { return Vec::new() };
    if !header.starts_with('#') {
        return Vec::new(); // "No textures found."
    }
    let split = |l: &str| -> Vec<String> {
        // Quoted fields hold commas ("JOINTS_0:u8, NORMAL:f32"): split outside quotes only.
        let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
        for c in l.chars() {
            match c {
                '"' => quoted = !quoted,
                ',' if !quoted => out.push(std::mem::take(&mut cur)),
                c => cur.push(c),
            }
        }
        out.push(cur);
        out
    };
    let names = split(header);
    rows.iter().map(|r| names.iter().cloned().zip(split(r)).collect()).collect()
}

fn check(file: &str, csv: &str) {
    let run = rigscope(&["inspect", file, "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let sizes = &doc["sizes"];
    let ours = |key: &str| -> Vec<u64> {
        sizes[key].as_array().expect(key).iter().map(|v| v.as_u64().expect("bytes")).collect()
    };
    let theirs = |title: &str, key: &str| -> Vec<u64> {
        section(csv, title).iter().map(|r| r[key].parse().expect("a number")).collect()
    };
    let meshes = theirs("MESHES", "size");
    assert!(!meshes.is_empty(), "{file}: no meshes in the fixture");
    assert_eq!(ours("meshes"), meshes, "{file}: mesh sizes");
    assert_eq!(ours("animations"), theirs("ANIMATIONS", "size"), "{file}: animation sizes");
    let textures = sizes["textures"].as_array().expect("textures");
    let (bytes, gpu): (Vec<u64>, Vec<u64>) = textures
        .iter()
        .map(|t| (t["bytes"].as_u64().expect("bytes"), t["gpu_bytes"].as_u64().expect("gpu_bytes")))
        .unzip();
    assert_eq!(bytes, theirs("TEXTURES", "size"), "{file}: texture sizes");
    assert_eq!(gpu, theirs("TEXTURES", "gpuSize"), "{file}: texture GPU sizes");
    let resolutions: Vec<String> =
        textures.iter().map(|t| format!("{}x{}", t["resolution"][0], t["resolution"][1])).collect();
    let expected: Vec<String> = section(csv, "TEXTURES").iter().map(|r| r["resolution"].clone()).collect();
    assert_eq!(resolutions, expected, "{file}: resolutions");
    // The estimate is the textures' and the meshes' sums.
    let total = gpu.iter().sum::<u64>() + meshes.iter().sum::<u64>();
    assert_eq!(doc["gpu_estimate"]["total"].as_u64(), Some(total), "{file}");
}

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/inspect/{name}.csv", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn walker_sizes_match_gltf_transform() {
    check(&sample("walker.glb"), &fixture("walker.glb"));
    // And the text output says them: the mesh's bytes and the estimate, at a glance and
    // in the full table.
    let run = rigscope(&["inspect", &sample("walker.glb")]);
    assert!(run.stdout.contains("  meshes     409,076 B (399.5 KiB) in 1 mesh\n"), "{}", run.stdout);
    assert!(run.stdout.contains("  GPU memory estimate 409,076 B"), "{}", run.stdout);
    let run = rigscope(&["inspect", &sample("walker.glb"), "--sizes"]);
    assert!(run.stdout.contains("  mesh #0    409,076 B (399.5 KiB)"), "{}", run.stdout);
    assert!(run.stdout.contains("  GPU memory estimate 409,076 B"), "{}", run.stdout);
}

#[test]
fn textured_rigs_sizes_and_gpu_estimates_match_gltf_transform() {
    let Some(assets) = std::env::var_os("RIGSCOPE_ASSETS") else {
        println!("skipping the textured rigs' sizes: RIGSCOPE_ASSETS is not set");
        return;
    };
    for (dir, name) in [("Fox", "Fox.glb"), ("CesiumMan", "CesiumMan.glb")] {
        let file = std::path::Path::new(&assets).join(dir).join(name);
        check(file.to_str().expect("UTF-8 path"), &fixture(name));
    }
}
