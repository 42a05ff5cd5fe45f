//! Malformed files: each row of `cases()` is a file that must be refused with an error that
//! names the file and says what is wrong (the row's phrase). The files are built here from
//! JSON and byte helpers, so every fault is exactly the one the row names.
//!
//! `cases()` is meant for reuse (the CLI exit-code test): write each row with `write_case`
//! and run on the path. No row needs an external .bin to exist: the rows about external
//! buffers are about refusing them or about one being missing.

use base64::Engine as _;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const UNSIGNED_BYTE: u32 = 5121;
const UNSIGNED_SHORT: u32 = 5123;
const FLOAT: u32 = 5126;

/// One buffer of binary data with a view and an accessor per `add`.
#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    fn add(&mut self, data: &[u8], ty: &str, component: u32, count: usize) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        self.views.push(json!({
            "buffer": 0, "byteOffset": self.bytes.len(), "byteLength": data.len()
        }));
        self.bytes.extend_from_slice(data);
        self.accessors.push(json!({
            "bufferView": self.views.len() - 1, "componentType": component,
            "count": count, "type": ty
        }));
        self.accessors.len() - 1
    }

    fn floats(&mut self, values: &[f32], ty: &str, count: usize) -> usize {
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.add(&data, ty, FLOAT, count)
    }

    /// Three vertices of a triangle, with the bounds the spec requires on POSITION.
    fn triangle(&mut self) -> usize {
        let a = self.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3", 3);
        self.accessors[a]["min"] = json!([0.0, 0.0, 0.0]);
        self.accessors[a]["max"] = json!([1.0, 1.0, 0.0]);
        a
    }

    fn data_uri(&self) -> String {
        format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&self.bytes)
        )
    }

    /// `doc` with this buffer embedded as a data URI, serialised.
    fn gltf(self, doc: Value) -> Vec<u8> {
        let uri = self.data_uri();
        self.gltf_with_uri(doc, &uri)
    }

    fn gltf_with_uri(self, mut doc: Value, uri: &str) -> Vec<u8> {
        doc["asset"] = json!({"version": "2.0"});
        doc["buffers"] = json!([{"byteLength": self.bytes.len(), "uri": uri}]);
        doc["bufferViews"] = json!(self.views);
        doc["accessors"] = json!(self.accessors);
        serde_json::to_vec(&doc).unwrap_or_default()
    }

    /// `doc` as a .glb whose BIN chunk holds this buffer.
    fn glb(self, mut doc: Value) -> Vec<u8> {
        doc["asset"] = json!({"version": "2.0"});
        doc["buffers"] = json!([{"byteLength": self.bytes.len()}]);
        doc["bufferViews"] = json!(self.views);
        doc["accessors"] = json!(self.accessors);
        glb_bytes(&serde_json::to_vec(&doc).unwrap_or_default(), &self.bytes)
    }
}

/// A .glb container: 12-byte header, JSON chunk (space-padded), BIN chunk (zero-padded).
fn glb_bytes(json_text: &[u8], bin: &[u8]) -> Vec<u8> {
    let mut text = json_text.to_vec();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let mut data = bin.to_vec();
    while !data.len().is_multiple_of(4) {
        data.push(0);
    }
    let total = 12 + 8 + text.len() + 8 + data.len();
    let mut out = b"glTF".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&data);
    out
}

fn json_bytes(doc: Value) -> Vec<u8> {
    serde_json::to_vec(&doc).unwrap_or_default()
}

/// A two-joint skin on a skinned triangle; `ibm` is the inverse bind accessor's
/// (type, count) or None for no IBMs.
fn skinned(ibm: Option<(&str, usize)>, joints: Value) -> Vec<u8> {
    let mut bin = Bin::default();
    let pos = bin.triangle();
    let j = bin.add(&[0u8; 12], "VEC4", UNSIGNED_BYTE, 3);
    let w = bin.floats(&[1.0, 0.0, 0.0, 0.0].repeat(3), "VEC4", 3);
    let mut skin = json!({"joints": joints});
    if let Some((ty, count)) = ibm {
        let floats = if ty == "MAT3" { 9 } else { 16 };
        let a = bin.floats(&vec![0.0; floats * count], ty, count);
        skin["inverseBindMatrices"] = json!(a);
    }
    bin.gltf(json!({
        "nodes": [{"mesh": 0, "skin": 0}, {"children": [2]}, {}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "JOINTS_0": j, "WEIGHTS_0": w}}]}],
        "skins": [skin]
    }))
}

/// One node animated by a sampler with `keys` key times and `outputs` VEC3 outputs.
fn animated(interpolation: &str, keys: usize, outputs: usize, target_node: usize) -> Vec<u8> {
    let mut bin = Bin::default();
    let times: Vec<f32> = (0..keys).map(|k| k as f32).collect();
    let input = bin.floats(&times, "SCALAR", keys);
    let output = bin.floats(&vec![1.0; outputs * 3], "VEC3", outputs);
    bin.gltf(json!({
        "nodes": [{}],
        "animations": [{"channels": [{"sampler": 0, "target": {"node": target_node, "path": "translation"}}],
                        "samplers": [{"input": input, "output": output, "interpolation": interpolation}]}]
    }))
}

/// A document whose only buffer lives at `uri`.
fn external(uri: &str) -> Vec<u8> {
    let mut bin = Bin::default();
    let pos = bin.triangle();
    bin.gltf_with_uri(json!({"meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}]}), uri)
}

/// (name, file bytes, phrase the error must contain). The name doubles as the file stem.
pub fn cases() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let mut rows: Vec<(&'static str, Vec<u8>, &'static str)> = Vec::new();

    rows.push(("empty", Vec::new(), "the file is empty"));
    rows.push(("garbage", b"\x00\x01\x02 this is not a model \xff\xfe".to_vec(), "not a glTF file"));

    let good_glb = {
        let mut bin = Bin::default();
        let pos = bin.triangle();
        bin.glb(json!({"meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}]}))
    };
    rows.push(("truncated_glb", good_glb[..good_glb.len() - 10].to_vec(), "truncated .glb: the header says"));
    let mut bad_magic = good_glb.clone();
    bad_magic[..4].copy_from_slice(b"gLTF");
    rows.push(("bad_magic", bad_magic, "neither the .glb magic 'glTF' nor a JSON object"));
    let mut bad_version = good_glb.clone();
    bad_version[4..8].copy_from_slice(&1u32.to_le_bytes());
    rows.push(("glb_version_1", bad_version, "unsupported .glb version 1"));
    let mut bad_chunk = good_glb.clone();
    bad_chunk[16..20].copy_from_slice(b"JSOX");
    rows.push(("glb_first_chunk_not_json", bad_chunk, "the first chunk is not the JSON chunk"));

    rows.push(("bad_json", b"{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [".to_vec(), "invalid JSON"));
    rows.push((
        "not_gltf_json",
        json_bytes(json!({"nodes": []})),
        "not a valid glTF document: missing field `asset`",
    ));
    rows.push((
        "gltf_1",
        json_bytes(json!({"asset": {"version": "1.0"}})),
        "asset.version: glTF \"1.0\" is not supported",
    ));
    // Draco is decoded; a primitive whose stream is missing or not Draco is named.
    let draco = |views: Value, buffers: Value| {
        json_bytes(json!({"asset": {"version": "2.0"},
            "extensionsUsed": ["KHR_draco_mesh_compression"],
            "extensionsRequired": ["KHR_draco_mesh_compression"],
            "accessors": [{"componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 1]}],
            "bufferViews": views, "buffers": buffers,
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0},
                "extensions": {"KHR_draco_mesh_compression": {"bufferView": 0, "attributes": {"POSITION": 0}}}}]}]}))
    };
    rows.push((
        "draco_without_stream",
        draco(json!([]), json!([])),
        "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression.bufferView: bufferView 0 does not exist",
    ));
    rows.push((
        "draco_garbage_stream",
        draco(
            json!([{"buffer": 0, "byteLength": 8}]),
            json!([{"byteLength": 8, "uri": "data:application/octet-stream;base64,RFJBQ08CAgEBAAA="}]),
        ),
        "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression: the Draco data in bufferViews[0] cannot be decoded",
    ));

    rows.push((
        "missing_buffer_file",
        external("missing.bin"),
        "buffers[0].uri: the file 'missing.bin' does not exist",
    ));
    rows.push(("path_escape", external("../outside.bin"), "buffers[0].uri: path '../outside.bin' uses '..'"));
    rows.push((
        "percent_encoded_escape",
        external("%2E%2E/outside.bin"),
        "buffers[0].uri: path '../outside.bin' uses '..'",
    ));
    rows.push(("absolute_path", external("/etc/passwd"), "buffers[0].uri: absolute path '/etc/passwd'"));
    rows.push((
        "remote_uri",
        external("https://example.com/model.bin"),
        "buffers[0].uri: 'https://example.com/model.bin' is a remote or non-file URI",
    ));
    rows.push((
        "short_data_uri",
        {
            let mut bin = Bin::default();
            let pos = bin.triangle();
            let short = format!(
                "data:application/octet-stream;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(&bin.bytes[..30])
            );
            bin.gltf_with_uri(
                json!({"meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}]}),
                &short,
            )
        },
        "buffers[0]: has 30 bytes but its byteLength is 36",
    ));

    // One zero-filled accessor (no bufferView) of 96 MB drawn by three primitives: more zeros
    // than a file of a few hundred bytes may claim (docs/loading.md "Limits").
    rows.push((
        "zero_fill_per_use",
        {
            let mut bin = Bin::default();
            bin.triangle();
            bin.accessors.push(json!({"componentType": FLOAT, "count": 8_000_000, "type": "VEC3"}));
            let zeros = bin.accessors.len() - 1;
            let prim = json!({"attributes": {"POSITION": zeros}});
            bin.gltf(json!({"meshes": [{"primitives": [prim.clone(), prim.clone(), prim]}]}))
        },
        "accessors[1]: claims 8000000 VEC3 elements but has no bufferView",
    ));

    rows.push((
        "accessor_overrun",
        {
            let mut bin = Bin::default();
            let pos = bin.triangle();
            bin.accessors[pos]["count"] = json!(4);
            bin.gltf(json!({"meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}]}))
        },
        "meshes[0].primitives[0].attributes.POSITION: accessors[0]: needs 48 bytes but bufferViews[0] has 36",
    ));
    rows.push((
        "view_past_buffer",
        {
            let mut bin = Bin::default();
            let pos = bin.triangle();
            bin.views[0]["byteOffset"] = json!(8);
            bin.gltf(json!({"meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}]}))
        },
        "bufferViews[0]: ends at byte 44 but buffers[0] has 36 bytes",
    ));
    rows.push((
        "sparse_index_out_of_range",
        {
            let mut bin = Bin::default();
            let index = bin.add(&[7, 0, 0, 0], "SCALAR", UNSIGNED_BYTE, 1);
            let value = bin.floats(&[1.0, 2.0, 3.0], "VEC3", 1);
            let iv = bin.accessors[index]["bufferView"].clone();
            let vv = bin.accessors[value]["bufferView"].clone();
            bin.accessors.push(json!({"componentType": FLOAT, "count": 3, "type": "VEC3",
                "min": [0.0, 0.0, 0.0], "max": [1.0, 2.0, 3.0],
                "sparse": {"count": 1, "indices": {"bufferView": iv, "componentType": UNSIGNED_BYTE},
                           "values": {"bufferView": vv}}}));
            bin.gltf(json!({"meshes": [{"primitives": [{"attributes": {"POSITION": 2}}]}]}))
        },
        "accessors[2].sparse.indices: index 7 is out of range for count 3",
    ));

    rows.push((
        "node_cycle",
        json_bytes(json!({"asset": {"version": "2.0"},
            "nodes": [{"children": [1]}, {"children": [2]}, {"children": [3]}, {"children": [1]}]})),
        "already a child of nodes[0]",
    ));
    rows.push((
        "detached_cycle",
        json_bytes(json!({"asset": {"version": "2.0"},
            "nodes": [{}, {"children": [2]}, {"children": [1]}]})),
        "the node hierarchy has a cycle",
    ));
    rows.push((
        "child_missing",
        json_bytes(json!({"asset": {"version": "2.0"}, "nodes": [{"children": [4]}]})),
        "nodes[0].children[0]: index out of range",
    ));

    rows.push((
        "ibm_wrong_type",
        skinned(Some(("MAT3", 2)), json!([1, 2])),
        "skins[0].inverseBindMatrices: accessors[3] is MAT3 of FLOAT, but inverseBindMatrices must be MAT4 of FLOAT",
    ));
    rows.push((
        "too_few_ibms",
        skinned(Some(("MAT4", 1)), json!([1, 2])),
        "skins[0].inverseBindMatrices: accessors[3] has 1 matrices but the skin has 2 joints",
    ));
    rows.push((
        "skin_joint_missing_node",
        skinned(None, json!([1, 9])),
        "skins[0].joints[1]: index out of range",
    ));
    rows.push((
        "joints_vec3",
        {
            let mut bin = Bin::default();
            let pos = bin.triangle();
            let j = bin.add(&[0u8; 9], "VEC3", UNSIGNED_BYTE, 3);
            let w = bin.floats(&[1.0, 0.0, 0.0, 0.0].repeat(3), "VEC4", 3);
            bin.gltf(json!({
                "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "JOINTS_0": j, "WEIGHTS_0": w}}]}]
            }))
        },
        "meshes[0].primitives[0].attributes.JOINTS_0: accessors[1] is VEC3 of UNSIGNED_BYTE, but JOINTS_n must be VEC4",
    ));
    rows.push((
        "weights_without_joints",
        {
            let mut bin = Bin::default();
            let pos = bin.triangle();
            let w = bin.floats(&[1.0, 0.0, 0.0, 0.0].repeat(3), "VEC4", 3);
            bin.gltf(json!({
                "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "WEIGHTS_1": w}}]}]
            }))
        },
        "attributes.WEIGHTS_1: has no matching JOINTS_1",
    ));
    rows.push((
        "attribute_length_mismatch",
        {
            let mut bin = Bin::default();
            let pos = bin.triangle();
            let j: Vec<u8> = [0u16; 8].iter().flat_map(|v| v.to_le_bytes()).collect();
            let j = bin.add(&j, "VEC4", UNSIGNED_SHORT, 2);
            let w = bin.floats(&[1.0, 0.0, 0.0, 0.0].repeat(3), "VEC4", 3);
            bin.gltf(json!({
                "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "JOINTS_0": j, "WEIGHTS_0": w}}]}]
            }))
        },
        "attributes.JOINTS_0: has 2 elements but POSITION has 3",
    ));
    rows.push((
        "index_out_of_range",
        {
            let mut bin = Bin::default();
            let pos = bin.triangle();
            let i = bin.add(&[0, 1, 3, 0], "SCALAR", UNSIGNED_BYTE, 3);
            bin.gltf(json!({"meshes": [{"primitives": [{"attributes": {"POSITION": pos}, "indices": i}]}]}))
        },
        "meshes[0].primitives[0].indices: index 3 (element 2) is out of range for 3 vertices",
    ));

    rows.push((
        "bad_cubicspline_count",
        animated("CUBICSPLINE", 2, 4, 0),
        "animations[0].samplers[0].output: accessors[1] has 4 elements but CUBICSPLINE with 2 keys needs 3 * 2 = 6",
    ));
    rows.push((
        "bad_linear_count",
        animated("LINEAR", 3, 2, 0),
        "accessors[1] has 2 elements but LINEAR with 3 keys needs 3",
    ));
    rows.push((
        "channel_missing_node",
        animated("LINEAR", 2, 2, 5),
        "animations[0].channels[0].target.node: node 5 does not exist",
    ));
    rows.push((
        "sampler_input_not_float",
        {
            let mut bin = Bin::default();
            let input = bin.add(&[0, 1, 0, 0], "SCALAR", UNSIGNED_BYTE, 2);
            let output = bin.floats(&[0.0; 6], "VEC3", 2);
            bin.gltf(json!({
                "nodes": [{}],
                "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "scale"}}],
                                "samplers": [{"input": input, "output": output}]}]
            }))
        },
        "animations[0].samplers[0].input: accessors[0] is SCALAR of UNSIGNED_BYTE, but a sampler input must be SCALAR of FLOAT",
    ));
    rows
}

/// Writes a case to `dir` as `<name>.glb` or `<name>.gltf` (by its first bytes).
pub fn write_case(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let ext = if bytes.starts_with(b"glTF") || bytes.starts_with(b"gLTF") { "glb" } else { "gltf" };
    let path = dir.join(format!("{name}.{ext}"));
    std::fs::write(&path, bytes)?;
    Ok(path)
}

#[test]
fn every_malformed_file_is_refused_with_a_specific_message() {
    let (_guard, dir) = super::temp::folder("malformed");
    let mut failures = Vec::new();
    for (name, bytes, phrase) in cases() {
        let path = write_case(&dir, name, &bytes).expect("write case");
        let shown = path.display().to_string();
        match rigscope::load(&path) {
            Ok(_) => failures.push(format!("{name}: loaded, expected '{phrase}'")),
            Err(e) => {
                let message = e.to_string();
                if e.file != shown || !message.starts_with(&format!("{shown}: ")) {
                    failures.push(format!("{name}: error does not name the file: {message}"));
                }
                if !message.contains(phrase) {
                    failures.push(format!("{name}: expected '{phrase}' in: {message}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_table_has_distinct_names_and_phrases() {
    let rows = cases();
    let mut names: Vec<_> = rows.iter().map(|r| r.0).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), rows.len());
    assert!(rows.iter().all(|r| !r.2.is_empty()));
}

#[test]
fn the_well_formed_bases_of_the_table_do_load() {
    // Guards against rows failing for a reason other than the one they name: the same
    // builders with the fault left out must load.
    let loads = |bytes: Vec<u8>| rigscope::load_bytes(&bytes, "ok.gltf", None).map(|_| ());
    assert!(loads(skinned(Some(("MAT4", 2)), json!([1, 2]))).is_ok());
    assert!(loads(skinned(None, json!([1, 2]))).is_ok());
    assert!(loads(animated("CUBICSPLINE", 2, 6, 0)).is_ok());
    assert!(loads(animated("LINEAR", 3, 3, 0)).is_ok());
    let mut bin = Bin::default();
    let pos = bin.triangle();
    assert!(loads(bin.glb(json!({"meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}]}))).is_ok());
}
