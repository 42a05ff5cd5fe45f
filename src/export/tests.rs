//! Export checked by taking its output apart by hand (GLB words, JSON values, byte ranges)
//! and by loading it again with `import`.

use super::*;
use crate::import::{RawAsset, load_bytes, load_raw_bytes};
use crate::repair::{self, RepairedPrimitive, RepairedSet, WeightData};
use serde_json::{Value, json};

fn word(bytes: &[u8], at: usize) -> usize {
    let b: [u8; 4] = bytes[at..at + 4].try_into().expect("4 bytes");
    u32::from_le_bytes(b) as usize
}

/// (JSON, BIN) of a .glb, checking the framing rules on the way.
fn split_glb(bytes: &[u8]) -> (Value, Vec<u8>) {
    assert_eq!(&bytes[0..4], b"glTF");
    assert_eq!(word(bytes, 4), 2);
    assert_eq!(word(bytes, 8), bytes.len());
    let json_len = word(bytes, 12);
    assert_eq!(json_len % 4, 0);
    assert_eq!(&bytes[16..20], b"JSON");
    let json: Value = serde_json::from_slice(&bytes[20..20 + json_len]).expect("JSON chunk");
    let at = 20 + json_len;
    if at == bytes.len() {
        return (json, Vec::new());
    }
    let bin_len = word(bytes, at);
    assert_eq!(bin_len % 4, 0);
    assert_eq!(&bytes[at + 4..at + 8], b"BIN\0");
    assert_eq!(at + 8 + bin_len, bytes.len());
    (json, bytes[at + 8..].to_vec())
}

fn raw(json: Value, buffers: Vec<Vec<u8>>) -> RawAsset {
    RawAsset { json, buffers, is_glb: false, draco_primitives: Vec::new(), external_images: Vec::new() }
}

#[test]
fn buffers_merge_on_4_byte_boundaries() {
    let json = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": 5, "name": "first", "uri": "a.bin"}, {"byteLength": 4, "uri": "b.bin"}],
        "bufferViews": [
            {"buffer": 1, "byteOffset": 2, "byteLength": 2},
            {"buffer": 0, "byteLength": 5, "extras": {"keep": true}},
            {"buffer": 1, "byteLength": 2}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5121, "count": 2, "type": "SCALAR"},
            {"bufferView": 1, "componentType": 5121, "count": 5, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5121, "count": 2, "type": "SCALAR"}
        ],
        "meshes": [{"primitives": [{"attributes": {"_A": 0, "_B": 1, "_C": 2}}]}]
    });
    let input = raw(json, vec![vec![1, 2, 3, 4, 5], vec![6, 7, 8, 9]]);
    let bytes = write(&input, &Repair::default(), Format::Glb).expect("writes").bytes;
    let (out, bin) = split_glb(&bytes);
    // Buffer 0 at 0..5, three zero bytes, buffer 1 at 8..12.
    assert_eq!(bin, vec![1, 2, 3, 4, 5, 0, 0, 0, 6, 7, 8, 9]);
    assert_eq!(out["buffers"], json!([{"byteLength": 12, "name": "first"}]));
    assert_eq!(out["bufferViews"][0], json!({"buffer": 0, "byteOffset": 10, "byteLength": 2}));
    assert_eq!(
        out["bufferViews"][1],
        json!({"buffer": 0, "byteOffset": 0, "byteLength": 5, "extras": {"keep": true}})
    );
}

#[test]
fn gltf_output_embeds_the_buffer_as_a_data_uri() {
    let json = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": 3}],
        "bufferViews": [{"buffer": 0, "byteLength": 3}],
        "images": [{"bufferView": 0, "mimeType": "image/png"}]
    });
    let input = raw(json, vec![vec![1, 2, 3]]);
    let bytes = write(&input, &Repair::default(), Format::Gltf).expect("writes").bytes;
    let out: Value = serde_json::from_slice(&bytes).expect("JSON");
    // Only starts are aligned, so the buffer stays 3 bytes: base64 of 01 02 03 is "AQID".
    assert_eq!(
        out["buffers"],
        json!([{"byteLength": 3, "uri": "data:application/octet-stream;base64,AQID"}])
    );
}

#[test]
fn no_data_means_no_buffer_and_no_bin_chunk() {
    let input = raw(json!({"asset": {"version": "2.0"}}), Vec::new());
    let bytes = write(&input, &Repair::default(), Format::Glb).expect("writes").bytes;
    let (out, bin) = split_glb(&bytes);
    assert!(bin.is_empty());
    assert_eq!(out, json!({"asset": {"version": "2.0"}}));
}

#[test]
fn meshopt_views_are_written_plainly_and_the_compressed_bytes_dropped() {
    // View 0's data is in buffer 0 (the fallback, as loading leaves it); its compressed
    // copy is buffer 1, which nothing else names.
    let json = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["EXT_meshopt_compression", "KHR_materials_unlit"],
        "extensionsRequired": ["EXT_meshopt_compression"],
        "buffers": [
            {"byteLength": 4, "extensions": {"EXT_meshopt_compression": {"fallback": true}}},
            {"byteLength": 3}
        ],
        "bufferViews": [{"buffer": 0, "byteLength": 4, "byteStride": 4, "extensions": {"EXT_meshopt_compression":
            {"buffer": 1, "byteLength": 3, "byteStride": 4, "mode": "ATTRIBUTES", "count": 1}}}],
        "accessors": [{"bufferView": 0, "componentType": 5121, "count": 1, "type": "VEC4"}],
        "meshes": [{"primitives": [{"attributes": {"JOINTS_0": 0}}]}]
    });
    let input = raw(json, vec![vec![1, 2, 3, 4], vec![9, 9, 9]]);
    let written = write(&input, &Repair::default(), Format::Glb).expect("writes");
    let (out, bin) = split_glb(&written.bytes);
    assert_eq!(out["extensionsUsed"], json!(["KHR_materials_unlit"]));
    assert!(out.get("extensionsRequired").is_none());
    assert_eq!(out["bufferViews"], json!([{"buffer": 0, "byteOffset": 0, "byteLength": 4, "byteStride": 4}]));
    assert_eq!(out["buffers"], json!([{"byteLength": 4}]));
    assert_eq!(bin, vec![1, 2, 3, 4]);
    // Merged, buffer 1 followed at byte 4: its 3 bytes are what went.
    assert_eq!(written.pruned.map(|p| p.bytes), Some(3));
}

fn one_set_repair(joints_accessor: usize, joint: u16) -> Repair {
    Repair {
        primitives: vec![RepairedPrimitive {
            mesh: 0,
            primitive: 0,
            vertices: 1,
            touched: 1,
            rooted: 0,
            unresolved: 0,
            max_weight_change: 0.0,
            root_joint: 0,
            skin: 0,
            sets: vec![RepairedSet {
                set: 0,
                joints_accessor,
                weights_accessor: 1,
                joints: vec![[joint, 0, 0, 0]],
                weights: WeightData::U16(vec![[65535, 0, 0, 0]]),
                old_non_finite: false,
            }],
        }],
        skipped: Vec::new(),
    }
}

#[test]
fn new_accessors_keep_component_types_and_names() {
    let json = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": 2}],
        "accessors": [
            {"componentType": 5121, "count": 1, "type": "VEC4", "name": "joints"},
            {"componentType": 5123, "normalized": true, "count": 1, "type": "VEC4"}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 7, "JOINTS_0": 0, "WEIGHTS_0": 1}}]}]
    });
    let bytes =
        write(&raw(json, vec![vec![9, 9]]), &one_set_repair(0, 3), Format::Glb).expect("writes").bytes;
    let (out, bin) = split_glb(&bytes);
    // The new accessors (appended as 2 and 3) take the places of the old ones, which
    // nothing uses any more.
    assert_eq!(
        out["meshes"][0]["primitives"][0]["attributes"],
        json!({"POSITION": 7, "JOINTS_0": 0, "WEIGHTS_0": 1})
    );
    assert_eq!(out["accessors"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        out["accessors"][0],
        json!({"bufferView": 0, "componentType": 5121, "count": 1, "type": "VEC4", "name": "joints"})
    );
    assert_eq!(
        out["accessors"][1],
        json!({"bufferView": 1, "componentType": 5123, "count": 1, "type": "VEC4", "normalized": true})
    );
    assert_eq!(
        out["bufferViews"][0],
        json!({"buffer": 0, "byteOffset": 0, "byteLength": 4, "target": 34962})
    );
    assert_eq!(
        out["bufferViews"][1],
        json!({"buffer": 0, "byteOffset": 4, "byteLength": 8, "target": 34962})
    );
    // Joints 3 0 0 0, weights 65535 0 0 0 little-endian; the old bytes no view named are gone.
    assert_eq!(bin, vec![3, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn a_joint_beyond_255_does_not_fit_unsigned_bytes() {
    let json = json!({
        "asset": {"version": "2.0"},
        "accessors": [{"componentType": 5121, "count": 1, "type": "VEC4"}],
        "meshes": [{"primitives": [{"attributes": {"JOINTS_0": 0, "WEIGHTS_0": 1}}]}]
    });
    let err = write(&raw(json, Vec::new()), &one_set_repair(0, 300), Format::Glb);
    assert!(matches!(err, Err(ExportError::JointTooLarge { joint: 300, .. })), "{err:?}");
}

#[test]
fn the_bad_weights_sample_round_trips_with_only_skin_data_changed() {
    let bytes = crate::samplegen::bad_weights();
    let rig = load_bytes(&bytes, "in.glb", None).expect("loads");
    let input = load_raw_bytes(&bytes, "in.glb", None).expect("loads raw");
    let repair = repair::repair(&rig, &repair::Options::default());
    for format in [Format::Glb, Format::Gltf] {
        let written = write(&input, &repair, format).expect("writes");
        let out = written.bytes;
        // The old JOINTS_n/WEIGHTS_n (two sets on primitive 0, one on primitive 1; the NaN
        // among them, samples/README.md vertex 11) are gone, and their views; the new ones
        // took their places.
        let pruned = written.pruned.expect("pruned");
        assert_eq!((pruned.accessors, pruned.buffer_views), (6, 6));
        let old_count = input.json["accessors"].as_array().map(Vec::len);
        let json: Value = match format {
            Format::Glb => split_glb(&out).0,
            Format::Gltf => serde_json::from_slice(&out).expect("JSON"),
        };
        assert_eq!(json["accessors"].as_array().map(Vec::len), old_count);
        let back = load_bytes(&out, "out", None).expect("output loads");
        for (a, b) in rig.meshes.iter().zip(&back.meshes) {
            for (pa, pb) in a.primitives.iter().zip(&b.primitives) {
                assert_eq!(pa.positions, pb.positions);
                assert_eq!(pa.indices, pb.indices);
            }
        }
        assert_eq!(rig.skins[0].inverse_bind, back.skins[0].inverse_bind);
        // Vertex 7 of primitive 0 (all zero) now belongs wholly to the root, joint 0.
        let set = &back.meshes[0].primitives[0].influences[0];
        assert_eq!(set.joints[7], [0, 0, 0, 0]);
        assert_eq!(set.weights[7], [1.0, 0.0, 0.0, 0.0]);
        // Primitive 1 vertex 5: u8 128 + 128 became 128 + 127.
        let set = &back.meshes[0].primitives[1].influences[0];
        let codes = set.weights[5].map(|w| (w * 255.0).round() as u8);
        assert_eq!(codes.iter().map(|&c| u32::from(c)).sum::<u32>(), 255);
        assert_eq!(codes[0], 128);
    }
}

#[test]
fn formats_come_from_the_extension() {
    assert_eq!(Format::from_path(Path::new("a/b.GLB")), Some(Format::Glb));
    assert_eq!(Format::from_path(Path::new("b.gltf")), Some(Format::Gltf));
    assert_eq!(Format::from_path(Path::new("b.obj")), None);
    assert_eq!(Format::from_path(Path::new("glb")), None);
}

/// A buffer with no bytes (byteLength left out) whose views nothing reads loads; its copy
/// must still have a buffer for those views to name, or the copy would not load.
#[test]
fn views_of_an_empty_buffer_keep_a_buffer_in_the_copy() {
    let json = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": 0}],
        "bufferViews": [{"buffer": 0, "byteOffset": 8, "byteLength": 12}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 1, "type": "VEC3"}],
        "meshes": [{"primitives": [{"attributes": {"NORMAL": 0}}]}],
        "nodes": [{"mesh": 0}]
    });
    for format in [Format::Glb, Format::Gltf] {
        let input = raw(json.clone(), vec![Vec::new()]);
        let bytes = write(&input, &Repair::default(), format).expect("writes").bytes;
        let copy = load_bytes(&bytes, "copy", None);
        assert!(copy.is_ok(), "{format:?}: {:?}", copy.err());
        let out: Value = match format {
            Format::Glb => split_glb(&bytes).0,
            Format::Gltf => serde_json::from_slice(&bytes).expect("JSON"),
        };
        assert_eq!(out["buffers"][0]["byteLength"], 4, "{format:?}");
        assert_eq!(out["bufferViews"][0]["buffer"], 0, "{format:?}");
    }
}

/// A library whose clip reads times from a strided view and rotations from a sparse,
/// normalized SHORT accessor; the merged file copies both as stored, packed.
fn library_with_odd_accessors() -> RawAsset {
    // Buffer: times 0.0 and 1.0 at stride 8 (bytes 0..12), sparse indices (u8 1 at 12),
    // sparse values (one SHORT VEC4 at 16..24).
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&0.0f32.to_le_bytes());
    bytes.extend_from_slice(&[0xAA; 4]);
    bytes.extend_from_slice(&1.0f32.to_le_bytes());
    bytes.push(1);
    bytes.extend_from_slice(&[0; 3]);
    for v in [0i16, 0, 0, 32767] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let json = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bytes.len()}],
        "bufferViews": [
            {"buffer": 0, "byteLength": 12, "byteStride": 8},
            {"buffer": 0, "byteOffset": 12, "byteLength": 1},
            {"buffer": 0, "byteOffset": 16, "byteLength": 8}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0], "name": "times"},
            {"componentType": 5122, "normalized": true, "count": 2, "type": "VEC4", "extras": {"kept": 1},
             "sparse": {"count": 1, "indices": {"bufferView": 1, "componentType": 5121}, "values": {"bufferView": 2}}}
        ]
    });
    raw(json, vec![bytes])
}

#[test]
fn stored_keys_are_copied_packed_with_their_json_and_computed_times_are_shared() {
    let character = raw(
        json!({"asset": {"version": "2.0"}, "buffers": [{"byteLength": 4}],
               "bufferViews": [{"buffer": 0, "byteLength": 4}], "nodes": [{"name": "hips"}]}),
        vec![vec![7, 7, 7, 7]],
    );
    let library = library_with_odd_accessors();
    let stored = NewChannel {
        node: 0,
        property: crate::rig::Property::Rotation,
        interpolation: crate::rig::Interpolation::Step,
        keys: NewKeys::Stored { library: 0, input: 0, output: 1 },
    };
    let times: std::sync::Arc<[f32]> = vec![0.0, 0.5].into();
    let computed = |values: Vec<f32>| NewChannel {
        node: 0,
        property: crate::rig::Property::Translation,
        interpolation: crate::rig::Interpolation::Linear,
        keys: NewKeys::Computed { times: times.clone(), values: values.into() },
    };
    let clips = [
        NewClip {
            name: "a".into(),
            extras: Some(json!({"from": "lib"})),
            channels: vec![stored.clone(), computed(vec![1.0; 6])],
        },
        NewClip { name: "b".into(), extras: None, channels: vec![stored, computed(vec![2.0; 6])] },
    ];
    let written = write_with_clips(&character, &[&library], &clips, Format::Glb, None).expect("writes");
    let (out, bin) = split_glb(&written.bytes);
    // The character's view and bytes first, unchanged.
    assert_eq!(out["bufferViews"][0], json!({"buffer": 0, "byteOffset": 0, "byteLength": 4}));
    assert_eq!(&bin[..4], &[7, 7, 7, 7]);
    let accessors = out["accessors"].as_array().expect("accessors");
    // Library accessors 0 and 1 once each (clip b reuses them), then one shared time
    // accessor and the two value accessors.
    assert_eq!(accessors.len(), 5);
    assert_eq!(accessors[0]["name"], "times");
    assert_eq!((&accessors[0]["min"], &accessors[0]["max"]), (&json!([0.0]), &json!([1.0])));
    let view = |i: usize| &out["bufferViews"][accessors[i]["bufferView"].as_u64().expect("view") as usize];
    assert!(view(0).get("byteStride").is_none(), "packed");
    let at = |v: &Value| v["byteOffset"].as_u64().expect("offset") as usize;
    let times_bytes = &bin[at(view(0))..at(view(0)) + 8];
    assert_eq!(times_bytes, [0.0f32.to_le_bytes(), 1.0f32.to_le_bytes()].concat());
    let sparse = &accessors[1];
    assert!(sparse.get("bufferView").is_none());
    assert_eq!(
        (&sparse["componentType"], &sparse["normalized"], &sparse["extras"]),
        (&json!(5122), &json!(true), &json!({"kept": 1}))
    );
    let values_view =
        &out["bufferViews"][sparse["sparse"]["values"]["bufferView"].as_u64().expect("view") as usize];
    assert_eq!(&bin[at(values_view)..at(values_view) + 8], &[0, 0, 0, 0, 0, 0, 0xFF, 0x7F]);
    let index_view =
        &out["bufferViews"][sparse["sparse"]["indices"]["bufferView"].as_u64().expect("view") as usize];
    assert_eq!(bin[at(index_view)], 1);
    assert_eq!(
        accessors[2],
        json!({"bufferView": accessors[2]["bufferView"], "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [0.5]})
    );
    assert_eq!(accessors[3]["type"], "VEC3");
    let animations = out["animations"].as_array().expect("animations");
    assert_eq!(animations[0]["extras"], json!({"from": "lib"}));
    assert_eq!(animations[0]["samplers"][0], json!({"input": 0, "output": 1, "interpolation": "STEP"}));
    assert_eq!(animations[1]["samplers"][1], json!({"input": 2, "output": 4, "interpolation": "LINEAR"}));
    assert_eq!(
        animations[1]["channels"][1],
        json!({"sampler": 1, "target": {"node": 0, "path": "translation"}})
    );
    // It loads, and plays the stored rotation's decoded values.
    let rig = load_bytes(&written.bytes, "out.glb", None).expect("loads");
    assert_eq!(&rig.clips[0].channels[0].values[..], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
}

#[test]
fn a_gltf_names_its_bin() {
    let character = raw(
        json!({"asset": {"version": "2.0"}, "buffers": [{"byteLength": 4, "uri": "old.bin"}],
               "bufferViews": [{"buffer": 0, "byteLength": 4}]}),
        vec![vec![1, 2, 3, 4]],
    );
    let written =
        write_with_clips(&character, &[], &[], Format::Gltf, Some("new%20one.bin")).expect("writes");
    let out: Value = serde_json::from_slice(&written.bytes).expect("JSON");
    assert_eq!(out["buffers"], json!([{"byteLength": 4, "uri": "new%20one.bin"}]));
    assert_eq!(written.bin, Some(vec![1, 2, 3, 4]));
}
