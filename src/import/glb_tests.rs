//! Whole-loader tests of the fast .glb path: container faults through `load_bytes` (each a
//! clear error naming the file, never a panic), a .glb loading into the same `Rig` as the
//! same asset written as .gltf (embedded and external buffer), and the bulk accessor reads
//! giving what gltf's own readers give. The .glb/.gltf conversions here are written from the
//! container spec, independently of `glb.rs`.

use super::*;
use base64::Engine as _;
use glam::Vec3;
use serde_json::{Value, json};
use std::path::PathBuf;

/// The JSON text and BIN chunk of a well-formed .glb, read by hand.
fn unpack(glb: &[u8]) -> (Value, Vec<u8>) {
    let word = |at: usize| u32::from_le_bytes([glb[at], glb[at + 1], glb[at + 2], glb[at + 3]]) as usize;
    let json_len = word(12);
    let json: Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap_or_default();
    let bin_at = 20 + json_len;
    let bin =
        if glb.len() > bin_at { glb[bin_at + 8..bin_at + 8 + word(bin_at)].to_vec() } else { Vec::new() };
    (json, bin)
}

/// A .glb of `json` and `bin`, both padded to 4 bytes as the spec asks.
fn pack(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut text = serde_json::to_vec(json).unwrap_or_default();
    text.resize(text.len().next_multiple_of(4), b' ');
    let mut data = bin.to_vec();
    data.resize(data.len().next_multiple_of(4), 0);
    let total = 12 + 8 + text.len() + 8 + data.len();
    let mut out = b"glTF".to_vec();
    for word in [2, total, text.len()] {
        out.extend_from_slice(&(word as u32).to_le_bytes());
    }
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&data);
    out
}

fn data_uri(bytes: &[u8]) -> String {
    format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// A rig as comparable text, without its source name. `Debug` prints every float's shortest
/// round-trip form, so equal text means equal values.
fn fingerprint(rig: &Rig) -> String {
    let mut rig = rig.clone();
    rig.source.clear();
    format!("{rig:?}")
}

/// A fresh folder, removed when the guard drops (pass or fail), and its path.
fn temp_folder(tag: &str) -> (tempfile::TempDir, PathBuf) {
    let dir =
        tempfile::Builder::new().prefix(&format!("rigscope-glb-{tag}-")).tempdir().expect("temp folder");
    let path = dir.path().to_path_buf();
    (dir, path)
}

/// Every .glb the tests can see: the bundled samples and, when `RIGSCOPE_ASSETS` is set,
/// the shared assets.
fn glb_files() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = crate::samplegen::all()
        .into_iter()
        .filter(|(name, _)| name.ends_with(".glb"))
        .map(|(name, bytes)| (name.to_string(), bytes))
        .collect();
    if let Some(root) = std::env::var_os("RIGSCOPE_ASSETS").map(PathBuf::from) {
        for dir in std::fs::read_dir(&root).into_iter().flatten().flatten() {
            for file in std::fs::read_dir(dir.path()).into_iter().flatten().flatten() {
                let path = file.path();
                if path.extension().is_some_and(|e| e == "glb")
                    && let Ok(bytes) = std::fs::read(&path)
                {
                    out.push((path.display().to_string(), bytes));
                }
            }
        }
    }
    out
}

#[test]
fn a_glb_loads_as_the_same_rig_as_its_gltf_forms() {
    let files = glb_files();
    assert!(files.len() >= 3);
    for (name, glb) in files {
        let from_glb = load_bytes(&glb, &name, None).map(|r| fingerprint(&r)).map_err(|e| e.to_string());
        let (mut json, bin) = unpack(&glb);
        let byte_length = json["buffers"][0]["byteLength"].as_u64().unwrap_or_default() as usize;
        let bin = &bin[..byte_length];

        json["buffers"][0]["uri"] = json!(data_uri(bin));
        let embedded = serde_json::to_vec(&json).unwrap_or_default();
        let from_embedded =
            load_bytes(&embedded, "x.gltf", None).map(|r| fingerprint(&r)).map_err(|e| e.to_string());
        assert_eq!(from_glb, from_embedded, "{name}: .glb vs .gltf with a data URI");

        let (_dir_guard, dir) = temp_folder("external");
        json["buffers"][0]["uri"] = json!("the%20buffer.bin");
        std::fs::write(dir.join("the buffer.bin"), bin).ok();
        std::fs::write(dir.join("x.gltf"), serde_json::to_vec(&json).unwrap_or_default()).ok();
        let from_external = load(&dir.join("x.gltf")).map(|r| fingerprint(&r)).map_err(|e| e.to_string());
        assert_eq!(from_glb, from_external, "{name}: .glb vs .gltf with an external buffer");
    }
}

#[test]
fn a_gltf_sample_packed_as_glb_loads_as_the_same_rig() {
    let text = crate::samplegen::seed_arm();
    let mut json: Value = serde_json::from_slice(&text).unwrap_or_default();
    let uri = json["buffers"][0]["uri"].as_str().unwrap_or_default().to_string();
    let payload = uri.split_once(',').map(|(_, p)| p).unwrap_or_default();
    let bin = base64::engine::general_purpose::STANDARD.decode(payload).unwrap_or_default();
    assert!(!bin.is_empty());
    json["buffers"][0].as_object_mut().map(|b| b.remove("uri"));
    let glb = pack(&json, &bin);
    let a = load_bytes(&text, "seed-arm.gltf", None).map(|r| fingerprint(&r)).map_err(|e| e.to_string());
    let b = load_bytes(&glb, "seed-arm.glb", None).map(|r| fingerprint(&r)).map_err(|e| e.to_string());
    assert!(a.is_ok());
    assert_eq!(a, b);
}

/// A document whose accessors exercise both read paths: interleaved (strided) POSITION and
/// NORMAL, byte joints, normalized short weights, byte indices, a sparse morph target (gltf's
/// reader) and one without bufferView (zeros).
fn interleaved_document() -> Vec<u8> {
    let points = [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, -2.5]];
    let mut bytes = Vec::new();
    for p in &points {
        for v in p.iter().chain(&[0.0, 0.0, 1.0]) {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    }
    let joints_at = bytes.len();
    bytes.extend_from_slice(&[0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0]);
    let weights_at = bytes.len();
    for w in [[65535u16, 0, 0, 0], [32768, 32767, 0, 0], [65535, 0, 0, 0], [1, 2, 3, 65529]] {
        for c in w {
            bytes.extend_from_slice(&c.to_le_bytes());
        }
    }
    let indices_at = bytes.len();
    bytes.extend_from_slice(&[0, 1, 2, 2, 1, 3, 0, 0]);
    let sparse_at = bytes.len();
    bytes.extend_from_slice(&[2, 0, 0, 0]);
    for v in [0.5f32, 0.25, 0.125] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let doc = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bytes.len(), "uri": data_uri(&bytes)}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": joints_at, "byteStride": 24},
            {"buffer": 0, "byteOffset": joints_at, "byteLength": 16},
            {"buffer": 0, "byteOffset": weights_at, "byteLength": 32},
            {"buffer": 0, "byteOffset": indices_at, "byteLength": 6},
            {"buffer": 0, "byteOffset": sparse_at, "byteLength": 16}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [0.0, 0.0, -2.5], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 0, "byteOffset": 12, "componentType": 5126, "count": 4, "type": "VEC3"},
            {"bufferView": 1, "componentType": 5121, "count": 4, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5123, "normalized": true, "count": 4, "type": "VEC4"},
            {"bufferView": 3, "componentType": 5121, "count": 6, "type": "SCALAR"},
            {"componentType": 5126, "count": 4, "type": "VEC3",
             "sparse": {"count": 1, "indices": {"bufferView": 4, "componentType": 5121},
                        "values": {"bufferView": 4, "byteOffset": 4}}},
            {"componentType": 5126, "count": 4, "type": "VEC3"}
        ],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": 0, "NORMAL": 1, "JOINTS_0": 2, "WEIGHTS_0": 3},
            "indices": 4,
            "targets": [{"POSITION": 5, "NORMAL": 6}]
        }], "weights": [0.0]}]
    });
    serde_json::to_vec(&doc).unwrap_or_default()
}

#[test]
fn bulk_reads_equal_gltfs_readers() {
    let mut inputs = glb_files();
    inputs.extend(crate::samplegen::all().into_iter().map(|(n, b)| (n.to_string(), b)));
    inputs.push(("interleaved.gltf".to_string(), interleaved_document()));
    for (name, bytes) in inputs {
        let fast = build(&bytes, &name, None, true).map(|r| fingerprint(&r)).map_err(|f| f.message());
        let reference = build(&bytes, &name, None, false).map(|r| fingerprint(&r)).map_err(|f| f.message());
        assert!(fast.is_ok(), "{name}: {fast:?}");
        assert_eq!(fast, reference, "{name}");
    }
}

#[test]
fn interleaved_attributes_read_by_hand() {
    let rig = load_bytes(&interleaved_document(), "interleaved.gltf", None).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    let p = &rig.meshes[0].primitives[0];
    assert_eq!(p.positions[3], Vec3::new(1.0, 1.0, -2.5));
    assert_eq!(p.normals.as_deref().map(|n| n[2]), Some(Vec3::Z));
    assert_eq!(p.indices.as_deref(), Some(&[0, 1, 2, 2, 1, 3][..]));
    let set = &p.influences[0];
    assert_eq!(set.joints[3], [1, 1, 0, 0]);
    assert_eq!(set.weights[1], [32768.0 / 65535.0, 32767.0 / 65535.0, 0.0, 0.0]);
    // Sparse: element 2 replaced, the others zero.
    let morph = p.morph_targets[0].positions.as_deref().unwrap_or_default();
    assert_eq!(morph, [Vec3::ZERO, Vec3::ZERO, Vec3::new(0.5, 0.25, 0.125), Vec3::ZERO]);
}

/// The good .glb the fault cases start from: one triangle in the BIN chunk.
fn good_glb() -> Vec<u8> {
    let mut bin = Vec::new();
    for v in [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    let json = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [{"buffer": 0, "byteLength": bin.len()}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}]
    });
    pack(&json, &bin)
}

fn set_word(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

#[test]
fn every_container_fault_is_an_error_naming_the_file() {
    let good = good_glb();
    assert!(load_bytes(&good, "model.glb", None).is_ok());
    let json_len = u32::from_le_bytes([good[12], good[13], good[14], good[15]]) as usize;
    let bin_at = 20 + json_len;

    let mut cases: Vec<(&str, Vec<u8>, &str)> = Vec::new();
    cases.push((
        "header cut",
        good[..10].to_vec(),
        "truncated .glb: the 12-byte header is cut off after 10 bytes",
    ));
    let mut v = good.clone();
    set_word(&mut v, 4, 3);
    cases.push(("version 3", v, "unsupported .glb version 3"));
    let mut v = good.clone();
    set_word(&mut v, 8, 16);
    cases.push(("no room for JSON", v, "too small for a JSON chunk (missing JSON chunk)"));
    cases.push(("file cut", good[..good.len() - 1].to_vec(), "truncated .glb: the header says"));
    let mut v = good.clone();
    v[16..20].copy_from_slice(b"BIN\0");
    cases.push(("first chunk BIN", v, "the first chunk is not the JSON chunk (its type is 0x004E4942)"));
    let mut v = good.clone();
    set_word(&mut v, 12, u32::MAX);
    cases.push(("JSON past the end", v, "truncated .glb: the JSON chunk at byte 12 needs 4294967295 bytes"));
    let mut v = good.clone();
    set_word(&mut v, bin_at, 1000);
    cases.push(("BIN past the end", v, "truncated .glb: the BIN chunk at byte"));
    let mut v = good.clone();
    v[bin_at + 4..bin_at + 8].copy_from_slice(b"JSON");
    cases.push(("second JSON", v, "corrupt .glb: a second JSON chunk"));
    let mut v = good[..bin_at].to_vec();
    v.extend_from_slice(&[0; 4]);
    let total = v.len() as u32;
    set_word(&mut v, 8, total);
    cases.push(("chunk header cut", v, "the chunk header at byte"));
    let mut v = good[..bin_at].to_vec();
    let total = v.len() as u32;
    set_word(&mut v, 8, total);
    cases.push(("no BIN chunk", v, "buffers[0]: has no uri and the file has no .glb BIN chunk"));
    let mut v = good.clone();
    let bin_len = u32::from_le_bytes([v[bin_at], v[bin_at + 1], v[bin_at + 2], v[bin_at + 3]]);
    set_word(&mut v, bin_at, bin_len - 4);
    v.truncate(v.len() - 4);
    let total = v.len() as u32;
    set_word(&mut v, 8, total);
    cases.push(("BIN shorter than the buffer", v, "buffers[0]: has 32 bytes but its byteLength is 36"));

    for (what, bytes, phrase) in cases {
        let err = error_of(load_bytes(&bytes, "dir/model.glb", None));
        assert!(err.starts_with("dir/model.glb: "), "{what}: {err}");
        assert!(err.contains(phrase), "{what}: {err}");
    }
}

#[test]
fn chunk_oddities_that_still_load_are_findings() {
    let good = good_glb();
    let mut extra = good.clone();
    extra.extend_from_slice(&4u32.to_le_bytes());
    extra.extend_from_slice(b"XTRA");
    extra.extend_from_slice(&[0; 4]);
    let total = extra.len() as u32;
    set_word(&mut extra, 8, total);
    let mut trailing = good.clone();
    trailing.extend_from_slice(&[0; 5]);
    for (bytes, code) in [(extra, "GLB_UNKNOWN_CHUNK_TYPE"), (trailing, "GLB_LENGTH_MISMATCH")] {
        let rig = load_bytes(&bytes, "model.glb", None).map_err(|e| e.to_string());
        let Ok(rig) = rig else { panic!("{rig:?}") };
        assert_eq!(rig.findings.iter().map(|f| f.code).collect::<Vec<_>>(), vec![code]);
        assert_eq!(rig.meshes[0].primitives[0].positions.len(), 3);
    }
}

fn error_of(result: Result<Rig, ImportError>) -> String {
    match result {
        Ok(_) => "loaded without error".to_string(),
        Err(e) => e.to_string(),
    }
}
