//! `inspect`'s default text is a glance: an animation library of 22 clips on a 65-joint
//! skeleton (Mixamo's count) fits in 150 lines, with each kind's total and largest items;
//! `--sizes` lists every accessor. Sizes are checked against the file's own JSON.

use glam::{DQuat, DVec3};
use rigscope::samplegen::builder::{GltfBuilder, Interpolation, Kind, Track, Usage};
use serde_json::{Value, json};

use super::cli::rigscope;

const JOINTS: usize = 65;
const CLIPS: usize = 22;
const KEYS: usize = 30;
const VERTICES: usize = 200;

/// A chain of 65 joints with one skinned strip, and 22 clips each turning every joint and
/// moving the first: 22 x 66 channels, one output accessor each.
fn library() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let mut joints = Vec::new();
    for k in 0..JOINTS {
        let parent = joints.last().copied();
        let offset = if parent.is_some() { DVec3::new(0.0, 0.1, 0.0) } else { DVec3::ZERO };
        joints.push(b.node(&format!("mixamorig:Bone{k}"), parent, offset, DQuat::IDENTITY));
    }
    let skin = b.skin("armature", &joints, joints[0]);
    let positions: Vec<DVec3> =
        (0..VERTICES).map(|v| DVec3::new((v % 2) as f64 * 0.1, v as f64 * 0.03, 0.0)).collect();
    let pos = b.positions(&positions);
    let bone: Vec<u8> = (0..VERTICES).flat_map(|v| [(v * JOINTS / VERTICES) as u8, 0, 0, 0]).collect();
    let joints_0 = b.accessor(&bone, Kind::Vec4, Usage::VERTEX);
    let weights: Vec<f32> = (0..VERTICES).flat_map(|_| [1.0f32, 0.0, 0.0, 0.0]).collect();
    let weights_0 = b.accessor(&weights, Kind::Vec4, Usage::VERTEX);
    let strip: Vec<u32> = (0..VERTICES as u32 - 2).flat_map(|i| [i, i + 1, i + 2]).collect();
    let indices = b.indices(&strip);
    let primitive = json!({
        "attributes": { "POSITION": pos, "JOINTS_0": joints_0, "WEIGHTS_0": weights_0 },
        "indices": indices,
    });
    let mesh = b.mesh("body", vec![primitive]);
    b.mesh_node("body", mesh, Some(skin));
    let times: Vec<f32> = (0..KEYS).map(|k| k as f32 / 30.0).collect();
    for c in 0..CLIPS {
        let turn: Vec<DQuat> =
            (0..KEYS).map(|k| DQuat::from_rotation_z((k * (c + 1)) as f64 * 0.01)).collect();
        let mut tracks: Vec<Track> =
            joints.iter().map(|&j| Track::rotations(j, Interpolation::Linear, &times, &turn)).collect();
        let travel: Vec<DVec3> = (0..KEYS).map(|k| DVec3::new(0.0, 0.0, k as f64 * 0.1)).collect();
        tracks.push(Track::translations(joints[0], &times, &travel));
        b.animation(&format!("Armature|clip_{c}"), &tracks);
    }
    b.to_gltf_embedded()
}

/// Bytes an accessor holds, from the file's JSON: count x components x component size.
fn accessor_bytes(a: &Value) -> u64 {
    let components = match a["type"].as_str().unwrap() {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        other => panic!("{other}"),
    };
    let size = match a["componentType"].as_u64().unwrap() {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        _ => 4,
    };
    a["count"].as_u64().unwrap() * components * size
}

/// `12,345`: digits in threes, as the report writes byte counts.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn a_22_clip_library_is_a_glance_and_sizes_lists_every_accessor() {
    let (_guard, dir) = super::temp::folder("inspect-glance");
    let file = dir.join("library.gltf");
    let bytes = library();
    std::fs::write(&file, &bytes).expect("write");
    let doc: Value = serde_json::from_slice(&bytes).expect("json");
    let accessors: Vec<u64> = doc["accessors"].as_array().unwrap().iter().map(accessor_bytes).collect();
    assert!(accessors.len() > CLIPS * (JOINTS + 1), "one output accessor per channel");
    let file = file.to_str().unwrap();

    let glance = rigscope(&["inspect", file]);
    assert_eq!(glance.code, 0, "{}", glance.stderr);
    let lines = glance.stdout.lines().count();
    assert!(lines <= 150, "{lines} lines:\n{}", glance.stdout);
    assert!(glance.stdout.contains("clips (22)"), "{}", glance.stdout);
    // The total and the three largest accessors, largest first, from the JSON (the inverse
    // bind matrices, 65 x 64 B, then WEIGHTS_0, 200 x 16 B, then POSITION, 200 x 12 B).
    let total: u64 = accessors.iter().sum();
    let mut order: Vec<usize> = (0..accessors.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(accessors[i]));
    assert_eq!([accessors[order[0]], accessors[order[1]], accessors[order[2]]], [4160, 3200, 2400]);
    let line =
        glance.stdout.lines().find(|l| l.trim_start().starts_with("accessors")).expect("accessors line");
    let want = format!(
        "in {} accessors; largest #{} 4.1 KiB, #{} 3.1 KiB, #{} 2.3 KiB",
        accessors.len(),
        order[0],
        order[1],
        order[2]
    );
    assert!(line.contains(&want), "{line}\nwant {want}");
    assert!(line.contains(&format!("accessors  {} B", grouped(total))), "{line}");
    assert!(glance.stdout.contains("inspect --sizes"), "says where the rest is");
    assert!(!glance.stdout.contains("accessor #"), "no per-accessor rows by default");

    let full = rigscope(&["inspect", file, "--sizes"]);
    assert_eq!(full.code, 0, "{}", full.stderr);
    let rows: Vec<&str> = full.stdout.lines().filter(|l| l.trim_start().starts_with("accessor #")).collect();
    assert_eq!(rows.len(), accessors.len());
    assert!(rows[order[0]].ends_with("4,160 B (4.1 KiB)"), "{}", rows[order[0]]);
    assert_eq!(full.stdout.lines().filter(|l| l.trim_start().starts_with("animation #")).count(), CLIPS);
}
