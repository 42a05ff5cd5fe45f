//! Whole-loader unit tests on small documents built here: component decoding, buffer rules,
//! hierarchy order, skins' joint hierarchy, zeros/sparse accessors, findings. Every expected
//! value is derived by hand or from the glTF spec's formulas, next to the assertion.

use super::*;
use crate::rig::{Interpolation, Property, Severity, Topology, WeightStorage};
use base64::Engine as _;
use glam::{Quat, Vec3};
use serde_json::{Value, json};

const BYTE: u32 = 5120;
const UNSIGNED_BYTE: u32 = 5121;
const SHORT: u32 = 5122;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const FLOAT: u32 = 5126;

/// Builds one binary buffer (as a data URI) with a view and an accessor per `add`.
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

    /// A POSITION accessor (with the bounds the spec requires).
    fn positions(&mut self, points: &[[f32; 3]]) -> usize {
        let flat: Vec<f32> = points.iter().flatten().copied().collect();
        let a = self.floats(&flat, "VEC3", points.len());
        let mut min = [f32::MAX; 3];
        let mut max = [f32::MIN; 3];
        for p in points {
            for i in 0..3 {
                min[i] = min[i].min(p[i]);
                max[i] = max[i].max(p[i]);
            }
        }
        self.accessors[a]["min"] = json!(min);
        self.accessors[a]["max"] = json!(max);
        a
    }

    fn normalized(&mut self, accessor: usize) {
        self.accessors[accessor]["normalized"] = json!(true);
    }

    /// Adds the buffer, views and accessors to `doc` and serialises it.
    fn finish(self, mut doc: Value) -> Vec<u8> {
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&self.bytes)
        );
        doc["asset"] = json!({"version": "2.0"});
        doc["buffers"] = json!([{"byteLength": self.bytes.len(), "uri": uri}]);
        doc["bufferViews"] = json!(self.views);
        doc["accessors"] = json!(self.accessors);
        serde_json::to_vec(&doc).unwrap_or_default()
    }
}

fn load(bytes: &[u8]) -> Result<Rig, ImportError> {
    load_bytes(bytes, "test.gltf", None)
}

fn load_json(doc: Value) -> Result<Rig, ImportError> {
    load(&serde_json::to_vec(&doc).unwrap_or_default())
}

fn error_of(result: Result<Rig, ImportError>) -> String {
    match result {
        Ok(_) => "loaded without error".to_string(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn weights_of_every_storage_decode_as_stored() {
    let mut bin = Bin::default();
    let pos = bin.positions(&[[0.0, 0.0, 0.0]]);
    let j0 = bin.add(&[0, 1, 2, 3], "VEC4", UNSIGNED_BYTE, 1);
    let w0 = bin.add(&[255, 51, 1, 0], "VEC4", UNSIGNED_BYTE, 1);
    bin.normalized(w0);
    let j1: Vec<u8> = [4u16, 300, 0, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let j1 = bin.add(&j1, "VEC4", UNSIGNED_SHORT, 1);
    let w1: Vec<u8> = [65535u16, 13107, 1, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let w1 = bin.add(&w1, "VEC4", UNSIGNED_SHORT, 1);
    bin.normalized(w1);
    let j2 = bin.add(&[5, 6, 7, 8], "VEC4", UNSIGNED_BYTE, 1);
    let w2 = bin.floats(&[0.5, 0.25, 0.125, 0.0625], "VEC4", 1);
    let doc = bin.finish(json!({
        "meshes": [{"primitives": [{"attributes": {
            "POSITION": pos, "JOINTS_0": j0, "WEIGHTS_0": w0, "JOINTS_1": j1, "WEIGHTS_1": w1,
            "JOINTS_2": j2, "WEIGHTS_2": w2
        }}]}]
    }));
    let rig = load(&doc).map_err(|e| e.to_string());
    let Ok(rig) = rig else {
        panic!("{rig:?}");
    };
    let sets = &rig.meshes[0].primitives[0].influences;
    assert_eq!(sets.len(), 3);
    assert_eq!(sets[0].set, 0);
    assert_eq!(sets[0].weight_storage, WeightStorage::U8Norm);
    assert_eq!(sets[0].joints, vec![[0, 1, 2, 3]].into());
    // The spec's decoding for normalised unsigned bytes: c / 255.
    assert_eq!(sets[0].weights, vec![[1.0, 51.0 / 255.0, 1.0 / 255.0, 0.0]].into());
    assert_eq!((sets[0].joints_accessor, sets[0].weights_accessor), (j0, w0));
    assert_eq!(sets[1].weight_storage, WeightStorage::U16Norm);
    assert_eq!(sets[1].joints, vec![[4, 300, 0, 0]].into());
    assert_eq!(sets[1].weights, vec![[1.0, 13107.0 / 65535.0, 1.0 / 65535.0, 0.0]].into());
    assert_eq!(sets[2].weight_storage, WeightStorage::F32);
    assert_eq!(sets[2].weights, vec![[0.5, 0.25, 0.125, 0.0625]].into());
}

#[test]
fn indices_of_every_width_widen_to_u32() {
    let mut bin = Bin::default();
    let pos = bin.positions(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let i8s = bin.add(&[2, 1, 0], "SCALAR", UNSIGNED_BYTE, 3);
    let i16s: Vec<u8> = [1u16, 2, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let i16s = bin.add(&i16s, "SCALAR", UNSIGNED_SHORT, 3);
    let i32s: Vec<u8> = [0u32, 2, 1].iter().flat_map(|v| v.to_le_bytes()).collect();
    let i32s = bin.add(&i32s, "SCALAR", UNSIGNED_INT, 3);
    let doc = bin.finish(json!({"meshes": [{"primitives": [
        {"attributes": {"POSITION": pos}, "indices": i8s},
        {"attributes": {"POSITION": pos}, "indices": i16s, "mode": 5},
        {"attributes": {"POSITION": pos}, "indices": i32s, "mode": 0},
        {"attributes": {"POSITION": pos}}
    ]}]}));
    let rig = load(&doc).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    let prims = &rig.meshes[0].primitives;
    assert_eq!(prims[0].indices.as_deref(), Some(&[2, 1, 0][..]));
    assert_eq!(prims[1].indices.as_deref(), Some(&[1, 2, 0][..]));
    assert_eq!(prims[1].topology, Topology::TriangleStrip);
    assert_eq!(prims[2].indices.as_deref(), Some(&[0, 2, 1][..]));
    assert_eq!(prims[2].topology, Topology::Points);
    assert_eq!(prims[3].indices, None);
    assert_eq!(prims[3].positions[1], Vec3::new(1.0, 0.0, 0.0));
}

/// One node animated by `count` rotation keys stored as `component` integers.
fn rotation_clip(data: &[u8], component: u32) -> Result<Rig, ImportError> {
    let mut bin = Bin::default();
    let times = bin.floats(&[0.0, 1.0], "SCALAR", 2);
    let out = bin.add(data, "VEC4", component, 2);
    bin.normalized(out);
    let doc = bin.finish(json!({
        "nodes": [{}],
        "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}],
                        "samplers": [{"input": times, "output": out}]}]
    }));
    load(&doc)
}

#[test]
fn normalised_rotations_decode_per_the_spec() {
    // BYTE: max(c / 127, -1); -128 clamps to -1.
    let rig = rotation_clip(&[0, 0, 127, 0, 0, 0, 0x80, 64], BYTE).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    let ch = &rig.clips[0].channels[0];
    assert_eq!(ch.components, 4);
    assert_eq!(ch.values, vec![0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0, 64.0 / 127.0].into());

    let rig = rotation_clip(&[0, 0, 0, 255, 0, 0, 255, 0], UNSIGNED_BYTE);
    let values = rig.map(|r| r.clips[0].channels[0].values.clone()).ok();
    assert_eq!(values.as_deref().map(<[_]>::to_vec), Some(vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0]));

    let shorts: Vec<u8> =
        [0i16, 0, -32768, 16384, 0, 32767, 0, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let rig = rotation_clip(&shorts, SHORT);
    let values = rig.map(|r| r.clips[0].channels[0].values.to_vec()).ok();
    // SHORT: max(c / 32767, -1).
    let expected = vec![0.0, 0.0, -1.0, 16384.0 / 32767.0, 0.0, 1.0, 0.0, 0.0];
    assert_eq!(values, Some(expected));

    let ushorts: Vec<u8> = [0u16, 0, 0, 65535, 0, 0, 32768, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let rig = rotation_clip(&ushorts, UNSIGNED_SHORT);
    let values = rig.map(|r| r.clips[0].channels[0].values.to_vec()).ok();
    let expected = vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 32768.0 / 65535.0, 0.0];
    assert_eq!(values, Some(expected));
}

#[test]
fn clip_channels_copy_their_sampler_data_and_duration_is_the_last_key() {
    let mut bin = Bin::default();
    let t_short = bin.floats(&[0.5, 1.0], "SCALAR", 2);
    let t_long = bin.floats(&[0.25, 2.0, 3.5], "SCALAR", 3);
    let moves = bin.floats(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "VEC3", 2);
    // CUBICSPLINE: (in-tangent, value, out-tangent) per key, 3 keys -> 9 elements.
    let spline: Vec<f32> = (0..27).map(|i| i as f32).collect();
    let scales = bin.floats(&spline, "VEC3", 9);
    let doc = bin.finish(json!({
        "nodes": [{"children": [1]}, {}],
        "animations": [{"name": "Walk", "channels": [
            {"sampler": 0, "target": {"node": 0, "path": "translation"}},
            {"sampler": 1, "target": {"node": 1, "path": "scale"}}
        ], "samplers": [
            {"input": t_short, "output": moves, "interpolation": "STEP"},
            {"input": t_long, "output": scales, "interpolation": "CUBICSPLINE"}
        ]}]
    }));
    let rig = load(&doc).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    let clip = &rig.clips[0];
    assert_eq!(clip.name.as_deref(), Some("Walk"));
    assert_eq!(clip.duration, 3.5);
    let a = &clip.channels[0];
    assert_eq!((a.node, a.property, a.interpolation), (0, Property::Translation, Interpolation::Step));
    assert_eq!(a.times, vec![0.5, 1.0].into());
    assert_eq!(a.values, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0].into());
    let b = &clip.channels[1];
    assert_eq!((b.property, b.interpolation, b.components), (Property::Scale, Interpolation::CubicSpline, 3));
    assert_eq!(b.values, spline.into());
    assert!(rig.findings.is_empty(), "{:?}", rig.findings);
}

#[test]
fn morph_weights_channels_have_one_component_per_target() {
    let mut bin = Bin::default();
    let pos = bin.positions(&[[0.0; 3], [1.0, 0.0, 0.0]]);
    let d1 = bin.floats(&[0.0, 1.0, 0.0, 0.0, 1.0, 0.0], "VEC3", 2);
    let d2 = bin.floats(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "VEC3", 2);
    let times = bin.floats(&[0.0, 1.0], "SCALAR", 2);
    let weights = bin.add(&[0, 255, 255, 0], "SCALAR", UNSIGNED_BYTE, 4);
    bin.normalized(weights);
    let doc = bin.finish(json!({
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos},
                    "targets": [{"POSITION": d1}, {"NORMAL": d2}]}]}],
        "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}],
                        "samplers": [{"input": times, "output": weights}]}]
    }));
    let rig = load(&doc).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    let mesh = &rig.meshes[0];
    assert_eq!(mesh.default_weights, vec![0.0, 0.0]);
    let targets = &mesh.primitives[0].morph_targets;
    assert_eq!(targets.len(), 2);
    assert_eq!(
        targets[0].positions.as_deref().map(<[_]>::to_vec),
        Some(vec![Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 1.0, 0.0)])
    );
    assert_eq!(targets[0].normals, None);
    assert_eq!(targets[1].positions, None);
    let ch = &rig.clips[0].channels[0];
    assert_eq!(ch.components, 2);
    assert_eq!(ch.values, vec![0.0, 1.0, 1.0, 0.0].into());
}

#[test]
fn order_is_parents_first_whatever_the_listing_order() {
    // 3 is the root; 3 -> 1 -> {0, 4}; 4 -> 2. Node 5 is a second root.
    let rig = load_json(json!({
        "asset": {"version": "2.0"},
        "nodes": [{}, {"children": [0, 4]}, {}, {"children": [1]}, {"children": [2]}, {}]
    }));
    let rig = rig.map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("load failed: {rig:?}") };
    // Depth-first from the roots in index order, children in listed order.
    assert_eq!(rig.order, vec![3, 1, 0, 4, 2, 5]);
    assert_eq!(rig.nodes[2].parent, Some(4));
    assert_eq!(rig.nodes[1].children, vec![0, 4]);
    assert_eq!(rig.default_scene, None);
}

#[test]
fn a_200000_deep_chain_loads_without_recursion() {
    const N: usize = 200_000;
    let nodes: Vec<Value> =
        (0..N).map(|i| if i + 1 < N { json!({"children": [i + 1]}) } else { json!({}) }).collect();
    // Joints listed children-first: position k holds node N-1-k.
    let joints: Vec<usize> = (0..N).rev().collect();
    let doc = json!({
        "asset": {"version": "2.0"},
        "nodes": nodes,
        "skins": [{"joints": joints}],
        "scenes": [{"nodes": [0]}]
    });
    let rig = load_json(doc);
    let rig = rig.map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("load failed: {rig:?}") };
    assert_eq!(rig.order.len(), N);
    assert!(rig.order.iter().enumerate().all(|(i, &n)| i == n));
    assert_eq!(rig.nodes[N - 1].parent, Some(N - 2));
    assert_eq!(rig.default_scene, Some(0));
    let skin = &rig.skins[0];
    // Node N-1-k's parent node N-2-k sits at position k+1.
    assert_eq!(skin.joint_parent[0], Some(1));
    assert_eq!(skin.joint_parent[N - 1], None);
    assert!((0..N - 1).all(|k| skin.joint_parent[k] == Some(k + 1)));
    assert_eq!(skin.joint_order[0], N - 1);
    assert_eq!(skin.joint_order[N - 1], 0);
}

#[test]
fn joint_hierarchy_of_a_skin_listed_children_first() {
    // root(0, not a joint) -> hip(1) -> spine(2) -> head(3)
    //                          hip(1) -> group(5, not a joint) -> leg(4)
    let rig = load_json(json!({
        "asset": {"version": "2.0"},
        "nodes": [{"name": "root", "children": [1]}, {"name": "hip", "children": [2, 5]},
                  {"name": "spine", "children": [3]}, {"name": "head"}, {"name": "leg"},
                  {"name": "group", "children": [4]}],
        "skins": [{"joints": [3, 4, 2, 1], "skeleton": 1}]
    }));
    let rig = rig.map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("load failed: {rig:?}") };
    let skin = &rig.skins[0];
    assert_eq!(skin.joints, vec![3, 4, 2, 1]);
    assert_eq!(skin.skeleton, Some(1));
    assert_eq!(skin.inverse_bind_accessor, None);
    assert_eq!(skin.inverse_bind, vec![glam::Mat4::IDENTITY; 4]);
    // head -> spine (position 2); leg -> hip through the non-joint group (position 3);
    // spine -> hip (3); hip's only ancestor is the non-joint root.
    assert_eq!(skin.joint_parent, vec![Some(2), Some(3), Some(3), None]);
    // Node order 0,1,2,3,5,4: hip (pos 3), spine (2), head (0), leg (1).
    assert_eq!(skin.joint_order, vec![3, 2, 0, 1]);
}

#[test]
fn cycles_and_second_parents_are_refused() {
    let cycle = load_json(json!({"asset": {"version": "2.0"},
        "nodes": [{"children": [1]}, {"children": [2]}, {"children": [1]}]}));
    let message = error_of(cycle);
    assert!(message.contains("already a child"), "{message}");

    let cycle = load_json(json!({"asset": {"version": "2.0"},
        "nodes": [{}, {"children": [2]}, {"children": [1]}]}));
    let message = error_of(cycle);
    assert!(message.starts_with("test.gltf: nodes["), "{message}");
    assert!(message.contains("cycle"), "{message}");

    let own_child = load_json(json!({"asset": {"version": "2.0"}, "nodes": [{"children": [0]}]}));
    assert!(error_of(own_child).contains("cycle"));
}

#[test]
fn matrix_nodes_keep_the_matrix_and_get_a_decomposed_rest() {
    // T(1,2,3) * R(90 deg about Z) * S(2): columns R*(2,0,0) = (0,2,0), R*(0,2,0) = (-2,0,0).
    let matrix = [0.0, 2.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 2.0, 3.0, 1.0];
    let rig = load_json(json!({"asset": {"version": "2.0"}, "nodes": [{"matrix": matrix}]}));
    let rig = rig.map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("load failed: {rig:?}") };
    let node = &rig.nodes[0];
    assert_eq!(node.matrix, Some(glam::Mat4::from_cols_array(&matrix)));
    assert!(node.rest.translation.abs_diff_eq(Vec3::new(1.0, 2.0, 3.0), 1e-6));
    assert!(node.rest.scale.abs_diff_eq(Vec3::splat(2.0), 1e-6));
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let expected = Quat::from_xyzw(0.0, 0.0, half, half);
    assert!(node.rest.rotation.abs_diff_eq(expected, 1e-6));
    assert!(rig.findings.is_empty());

    // A sheared matrix loads, keeps its matrix, and is reported.
    let sheared = [1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    let rig = load_json(json!({"asset": {"version": "2.0"}, "nodes": [{"matrix": sheared}]}));
    let codes: Vec<&str> = rig.map(|r| r.findings.iter().map(|f| f.code).collect()).unwrap_or_default();
    assert_eq!(codes, vec!["NODE_MATRIX_NON_TRS"]);
}

#[test]
fn node_trs_and_weights_are_kept_as_given() {
    let rig = load_json(json!({"asset": {"version": "2.0"}, "scene": 1,
        "scenes": [{"nodes": []}, {"name": "main", "nodes": [0]}],
        "nodes": [{"name": "a", "translation": [1.0, 2.0, 3.0], "rotation": [0.0, 0.0, 0.0, 2.0],
                   "scale": [4.0, 5.0, 6.0]}]}));
    let rig = rig.map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("load failed: {rig:?}") };
    let n = &rig.nodes[0];
    assert_eq!(n.rest.translation, Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(n.rest.rotation, Quat::from_xyzw(0.0, 0.0, 0.0, 2.0));
    assert_eq!(n.rest.scale, Vec3::new(4.0, 5.0, 6.0));
    assert_eq!(n.matrix, None);
    assert_eq!(rig.default_scene, Some(1));
    assert_eq!(rig.scenes[1].roots, vec![0]);
    assert_eq!(rig.scenes[1].name.as_deref(), Some("main"));
    let found: Vec<(&str, &str)> = rig.findings.iter().map(|f| (f.code, f.pointer.as_str())).collect();
    assert_eq!(found, vec![("ROTATION_NON_UNIT", "/nodes/0/rotation")]);
}

#[test]
fn node_numbers_beyond_f32_are_reported_where_they_are() {
    // 1e39 is a finite JSON number but infinite as f32; 3e38 fits.
    let rig = load_json(json!({"asset": {"version": "2.0"},
        "nodes": [{"translation": [1e39, 0.0, 0.0]}, {"scale": [1.0, -1e39, 1.0]},
                  {"matrix": [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1e40, 0.0, 1.0]},
                  {"translation": [3e38, 0.0, 0.0]}]}));
    let rig = rig.map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("load failed: {rig:?}") };
    let found: Vec<&str> = rig
        .findings
        .iter()
        .filter(|f| f.code == "RIG_NODE_TRANSFORM_NOT_FINITE")
        .map(|f| f.pointer.as_str())
        .collect();
    assert_eq!(found, ["/nodes/0/translation", "/nodes/1/scale", "/nodes/2/matrix"]);
}

#[test]
fn external_buffers_follow_the_folder_rules() {
    let guard = tempfile::Builder::new().prefix("rigscope-import-ext-").tempdir().expect("temp folder");
    let dir = guard.path().to_path_buf();
    let data: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 2.0, 3.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(dir.join("geo.bin"), &data).ok();
    let doc = |uri: &str| {
        serde_json::to_vec(&json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": 24, "uri": uri}],
            "bufferViews": [{"buffer": 0, "byteLength": 24}],
            "accessors": [{"bufferView": 0, "componentType": FLOAT, "count": 2, "type": "VEC3",
                           "min": [0.0, 0.0, 0.0], "max": [1.0, 2.0, 3.0]}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}]
        }))
        .unwrap_or_default()
    };
    let rig = load_bytes(&doc("geo.bin"), "a.gltf", Some(&dir));
    let positions = rig.map(|r| r.meshes[0].primitives[0].positions.clone()).ok();
    assert_eq!(positions.as_deref().map(<[_]>::to_vec), Some(vec![Vec3::ZERO, Vec3::new(1.0, 2.0, 3.0)]));

    let from_memory = error_of(load_bytes(&doc("geo.bin"), "a.gltf", None));
    assert!(from_memory.contains("buffers[0].uri: refers to the external file"), "{from_memory}");
    let up = error_of(load_bytes(&doc("../geo.bin"), "a.gltf", Some(&dir)));
    assert!(up.starts_with("a.gltf: buffers[0].uri: path '../geo.bin'"), "{up}");
    let absolute = error_of(load_bytes(&doc("/etc/passwd"), "a.gltf", Some(&dir)));
    assert!(absolute.contains("buffers[0].uri: absolute path"), "{absolute}");
    let remote = error_of(load_bytes(&doc("http://example.com/geo.bin"), "a.gltf", Some(&dir)));
    assert!(remote.contains("buffers[0].uri: 'http://example.com/geo.bin' is a remote"), "{remote}");
    let missing = error_of(load_bytes(&doc("nope.bin"), "a.gltf", Some(&dir)));
    assert!(missing.contains("buffers[0].uri: the file 'nope.bin' does not exist"), "{missing}");

    std::fs::write(dir.join("short.bin"), &data[..20]).ok();
    let short = error_of(load_bytes(&doc("short.bin"), "a.gltf", Some(&dir)));
    assert!(short.contains("buffers[0]: has 20 bytes but its byteLength is 24"), "{short}");
}

#[test]
fn accessors_without_a_view_are_zeros_and_sparse_values_land_on_them() {
    let mut bin = Bin::default();
    let sparse_index = bin.add(&[1, 0, 0, 0], "SCALAR", UNSIGNED_BYTE, 1);
    let sparse_value = bin.floats(&[5.0, 6.0, 7.0], "VEC3", 1);
    let view = |a: usize, bin: &Bin| bin.accessors[a]["bufferView"].clone();
    let index_view = view(sparse_index, &bin);
    let value_view = view(sparse_value, &bin);
    bin.accessors.push(json!({"componentType": FLOAT, "count": 3, "type": "VEC3",
        "min": [0.0, 0.0, 0.0], "max": [5.0, 6.0, 7.0],
        "sparse": {"count": 1, "indices": {"bufferView": index_view, "componentType": UNSIGNED_BYTE},
                   "values": {"bufferView": value_view}}}));
    let sparse = bin.accessors.len() - 1;
    bin.accessors.push(json!({"componentType": FLOAT, "count": 2, "type": "VEC3",
        "min": [0.0, 0.0, 0.0], "max": [0.0, 0.0, 0.0]}));
    let zeros = bin.accessors.len() - 1;
    let doc = bin.finish(json!({"meshes": [{"primitives": [
        {"attributes": {"POSITION": sparse}}, {"attributes": {"POSITION": zeros}}
    ]}]}));
    let rig = load(&doc).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    let prims = &rig.meshes[0].primitives;
    assert_eq!(prims[0].positions, vec![Vec3::ZERO, Vec3::new(5.0, 6.0, 7.0), Vec3::ZERO].into());
    assert_eq!(prims[1].positions, vec![Vec3::ZERO; 2].into());
}

#[test]
fn a_primitive_without_position_loads_empty() {
    let mut bin = Bin::default();
    let normals = bin.floats(&[0.0, 0.0, 1.0], "VEC3", 1);
    let doc = bin.finish(json!({"meshes": [{"primitives": [{"attributes": {"NORMAL": normals}}]}]}));
    let rig = load(&doc).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    let prim = &rig.meshes[0].primitives[0];
    assert_eq!(prim.vertex_count(), 0);
    assert_eq!(prim.normals, None);
    assert_eq!(rig.findings[0].code, "RIG_PRIMITIVE_WITHOUT_POSITION");
}

#[test]
fn odd_key_data_loads_with_findings() {
    let mut bin = Bin::default();
    let pos = bin.positions(&[[0.0; 3]]);
    // Patch a NaN into the stored x: JSON cannot carry one, binary data can.
    let nan_at = bin.views[0]["byteOffset"].as_u64().unwrap_or(0) as usize;
    bin.bytes[nan_at..nan_at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let times = bin.floats(&[-1.0, 1.0, 1.0], "SCALAR", 3);
    let rotations = bin.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], "VEC4", 3);
    let doc = bin.finish(json!({
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}],
        "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}],
                        "samplers": [{"input": times, "output": rotations}]}]
    }));
    let rig = load(&doc).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    let found: Vec<(&str, &str)> = rig.findings.iter().map(|f| (f.code, f.pointer.as_str())).collect();
    let expect = [
        ("ACCESSOR_INVALID_FLOAT", format!("/accessors/{pos}")),
        ("ACCESSOR_ANIMATION_INPUT_NON_INCREASING", "/animations/0/samplers/0/input".to_string()),
        ("ACCESSOR_ANIMATION_INPUT_NEGATIVE", "/animations/0/samplers/0/input".to_string()),
        ("ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION", format!("/accessors/{rotations}")),
    ];
    for (code, pointer) in &expect {
        assert!(found.contains(&(code, pointer.as_str())), "{code} {pointer} in {found:?}");
    }
    assert_eq!(found.len(), expect.len(), "{found:?}");
    // The data is kept as stored.
    assert!(rig.meshes[0].primitives[0].positions[0].x.is_nan());
    assert_eq!(rig.clips[0].channels[0].times, vec![-1.0, 1.0, 1.0].into());
    assert_eq!(rig.clips[0].duration, 1.0);
}

#[test]
fn key_times_are_reported_per_key_once_per_sampler() {
    let mut bin = Bin::default();
    let pos = bin.positions(&[[0.0; 3]]);
    // Keys 2 and 3 are each at or below the key before them: two findings, as the
    // validator's AnimationInputChecker gives, although two channels share the sampler.
    let times = bin.floats(&[0.0, 1.0, 0.5, 0.25], "SCALAR", 4);
    let moves = bin.floats(&[0.0; 12], "VEC3", 4);
    let doc = bin.finish(json!({
        "nodes": [{"mesh": 0}, {}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}],
        "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}},
                                     {"sampler": 0, "target": {"node": 1, "path": "translation"}}],
                        "samplers": [{"input": times, "output": moves}]}]
    }));
    let rig = load(&doc).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    let found: Vec<&str> = rig
        .findings
        .iter()
        .filter(|f| f.code == "ACCESSOR_ANIMATION_INPUT_NON_INCREASING")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        found,
        [
            "Animation input accessor element at index 2 is less than or equal to previous: 0.5 <= 1.0.",
            "Animation input accessor element at index 3 is less than or equal to previous: 0.25 <= 0.5.",
        ]
    );
    let report = crate::diagnose::check(&rig, &crate::diagnose::Options::default());
    assert_eq!(report.with_code("ACCESSOR_ANIMATION_INPUT_NON_INCREASING").count(), 2);
}

#[test]
fn an_ibm_view_with_a_byte_stride_is_reported_per_skin() {
    let mut bin = Bin::default();
    let pos = bin.positions(&[[0.0; 3]]);
    let identity = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    let strided = bin.floats(&identity, "MAT4", 1);
    let plain = bin.floats(&identity, "MAT4", 1);
    // 64 is the element size: the stride changes nothing, yet the validator's rule is that
    // it is defined at all.
    bin.views[bin.accessors[strided]["bufferView"].as_u64().map_or(0, |v| v as usize)]["byteStride"] =
        json!(64);
    let doc = bin.finish(json!({
        "nodes": [{"mesh": 0}, {}, {}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}],
        "skins": [{"joints": [1], "inverseBindMatrices": plain},
                  {"joints": [2], "inverseBindMatrices": strided},
                  {"joints": [1], "inverseBindMatrices": strided}]
    }));
    let rig = load(&doc).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    let found: Vec<(&str, Severity)> = rig
        .findings
        .iter()
        .filter(|f| f.code == "SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE")
        .map(|f| (f.pointer.as_str(), f.severity))
        .collect();
    assert_eq!(
        found,
        [
            ("/skins/1/inverseBindMatrices", Severity::Error),
            ("/skins/2/inverseBindMatrices", Severity::Error)
        ]
    );
    assert_eq!(rig.skins[1].inverse_bind[0], glam::Mat4::IDENTITY);
}

#[test]
fn more_matrices_than_joints_is_valid_and_only_noted() {
    let mut bin = Bin::default();
    let pos = bin.positions(&[[0.0; 3]]);
    let identity = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    let two: Vec<f32> = identity.iter().chain(&identity).copied().collect();
    let ibm = bin.floats(&two, "MAT4", 2);
    let doc = bin.finish(json!({
        "nodes": [{"mesh": 0}, {}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}],
        "skins": [{"joints": [1], "inverseBindMatrices": ibm}]
    }));
    let rig = load(&doc).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    // The validator reports INVALID_IBM_ACCESSOR_COUNT only for `count < joints`.
    let found: Vec<(&str, Severity)> = rig.findings.iter().map(|f| (f.code, f.severity)).collect();
    assert_eq!(found, [("RIG_IBM_EXTRA_MATRICES", Severity::Info)]);
    assert_eq!(rig.skins[0].inverse_bind.len(), 1);
}

#[test]
fn check_counts_non_unit_rotation_keys_per_key_and_channel() {
    let mut bin = Bin::default();
    let pos = bin.positions(&[[0.0; 3]]);
    let times = bin.floats(&[0.0, 1.0, 2.0], "SCALAR", 3);
    // Keys 1 (length 0.5) and 2 (length 2) are not unit; two channels share the sampler,
    // so the validator's QuaternionFloatChecker reports 2 keys x 2 channels.
    let turns = bin.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 2.0], "VEC4", 3);
    let doc = bin.finish(json!({
        "nodes": [{"mesh": 0}, {}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}],
        "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}},
                                     {"sampler": 0, "target": {"node": 1, "path": "rotation"}}],
                        "samplers": [{"input": times, "output": turns}]}]
    }));
    let rig = load(&doc).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    let report = crate::diagnose::check(&rig, &crate::diagnose::Options::default());
    let found: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.code == "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION")
        .map(|f| f.pointer.as_str())
        .collect();
    assert_eq!(
        found,
        [
            "/animations/0/channels/0/sampler",
            "/animations/0/channels/0/sampler",
            "/animations/0/channels/1/sampler",
            "/animations/0/channels/1/sampler"
        ]
    );
}

#[test]
fn cubicspline_tangents_need_not_be_unit() {
    let mut bin = Bin::default();
    let times = bin.floats(&[0.0, 1.0], "SCALAR", 2);
    // Per key: in-tangent (zero), value (unit), out-tangent (length 3).
    let keys = [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 3.0, 0.0, 0.0, 0.0, //
        0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0,
    ];
    let out = bin.floats(&keys, "VEC4", 6);
    let doc = bin.finish(json!({
        "nodes": [{}],
        "animations": [{"channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}],
                        "samplers": [{"input": times, "output": out, "interpolation": "CUBICSPLINE"}]}]
    }));
    let rig = load(&doc).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    assert!(rig.findings.is_empty(), "{:?}", rig.findings);
}

#[test]
fn byte_range_faults_name_the_accessor_and_view() {
    let mut bin = Bin::default();
    let pos = bin.positions(&[[0.0; 3], [1.0; 3]]);
    bin.accessors[pos]["count"] = json!(3);
    let doc = bin.finish(json!({"meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}]}));
    let message = error_of(load(&doc));
    // 3 VEC3 floats = 36 bytes, the view holds 2 * 12 = 24.
    assert_eq!(
        message,
        "test.gltf: meshes[0].primitives[0].attributes.POSITION: accessors[0]: needs 36 bytes but bufferViews[0] has 24"
    );

    let mut bin = Bin::default();
    let pos = bin.positions(&[[0.0; 3], [1.0; 3]]);
    bin.views[0]["byteStride"] = json!(8);
    let doc = bin.finish(json!({"meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}]}));
    let message = error_of(load(&doc));
    assert!(
        message.contains("bufferViews[0]: byteStride 8 is smaller than the 12-byte elements"),
        "{message}"
    );

    let mut bin = Bin::default();
    let pos = bin.positions(&[[0.0; 3]]);
    bin.accessors[pos]["count"] = json!(0);
    let doc = bin.finish(json!({"meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}]}));
    assert!(error_of(load(&doc)).contains("accessors[0]: count is 0"));
}

#[test]
fn glb_with_bin_chunk_loads() {
    let mut bin = Bin::default();
    let pos = bin.positions(&[[1.0, 2.0, 3.0]]);
    let mut doc: Value = json!({"asset": {"version": "2.0"}, "generator": "x",
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}]});
    doc["asset"]["generator"] = json!("hand-made");
    doc["buffers"] = json!([{"byteLength": bin.bytes.len()}]);
    doc["bufferViews"] = json!(bin.views);
    doc["accessors"] = json!(bin.accessors);
    let mut text = serde_json::to_vec(&doc).unwrap_or_default();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + 8 + bin.bytes.len();
    let mut glb = b"glTF".to_vec();
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&(total as u32).to_le_bytes());
    glb.extend_from_slice(&(text.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&text);
    glb.extend_from_slice(&(bin.bytes.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&bin.bytes);
    let rig = load_bytes(&glb, "t.glb", None).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    assert_eq!(rig.generator.as_deref(), Some("hand-made"));
    assert_eq!(rig.source, "t.glb");
    assert_eq!(rig.meshes[0].primitives[0].positions, vec![Vec3::new(1.0, 2.0, 3.0)].into());

    let cut = error_of(load_bytes(&glb[..glb.len() - 4], "t.glb", None));
    assert!(cut.starts_with("t.glb: truncated .glb"), "{cut}");
}

/// A document using most of what the loader reads: skin with IBMs, two influence sets,
/// indices, a morph target, a sparse accessor, and a clip on every path.
fn rich_document() -> Value {
    let mut bin = Bin::default();
    let pos = bin.positions(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let normals = bin.floats(&[0.0, 0.0, 1.0].repeat(3), "VEC3", 3);
    let j0 = bin.add(&[0, 1, 0, 0].repeat(3), "VEC4", UNSIGNED_BYTE, 3);
    let w0 = bin.add(&[128, 127, 0, 0].repeat(3), "VEC4", UNSIGNED_BYTE, 3);
    bin.normalized(w0);
    let j1: Vec<u8> = [1u16, 0, 0, 0].repeat(3).iter().flat_map(|v| v.to_le_bytes()).collect();
    let j1 = bin.add(&j1, "VEC4", UNSIGNED_SHORT, 3);
    let w1 = bin.floats(&[0.0; 12], "VEC4", 3);
    let indices: Vec<u8> = [0u16, 1, 2].iter().flat_map(|v| v.to_le_bytes()).collect();
    let indices = bin.add(&indices, "SCALAR", UNSIGNED_SHORT, 3);
    let delta = bin.floats(&[0.0, 0.5, 0.0].repeat(3), "VEC3", 3);
    let mut ibm = Vec::new();
    for _ in 0..2 {
        ibm.extend_from_slice(&glam::Mat4::IDENTITY.to_cols_array());
    }
    let ibm = bin.floats(&ibm, "MAT4", 2);
    let times = bin.floats(&[0.0, 1.0], "SCALAR", 2);
    let moves = bin.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0], "VEC3", 2);
    let turns: Vec<u8> = [0i16, 0, 0, 32767, 0, 0, 32767, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let turns = bin.add(&turns, "VEC4", SHORT, 2);
    bin.normalized(turns);
    let spline = bin.floats(&[1.0; 18], "VEC3", 6);
    let weights = bin.floats(&[0.0, 1.0], "SCALAR", 2);
    let sparse_index = bin.add(&[2, 0, 0, 0], "SCALAR", UNSIGNED_BYTE, 1);
    let sparse_value = bin.floats(&[9.0, 9.0, 9.0], "VEC3", 1);
    let (iv, vv) = (
        bin.accessors[sparse_index]["bufferView"].clone(),
        bin.accessors[sparse_value]["bufferView"].clone(),
    );
    bin.accessors.push(json!({"bufferView": bin.accessors[pos]["bufferView"].clone(),
        "componentType": FLOAT, "count": 3, "type": "VEC3",
        "min": [0.0, 0.0, 0.0], "max": [9.0, 9.0, 9.0],
        "sparse": {"count": 1, "indices": {"bufferView": iv, "componentType": UNSIGNED_BYTE},
                   "values": {"bufferView": vv}}}));
    let sparse = bin.accessors.len() - 1;
    let doc = bin.finish(json!({
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"children": [1, 3], "mesh": 0, "skin": 0},
                  {"children": [2], "translation": [0.0, 1.0, 0.0]},
                  {"rotation": [0.0, 0.0, 0.0, 1.0]},
                  {"mesh": 1, "weights": [0.5],
                   "matrix": [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]}],
        "meshes": [
            {"primitives": [{"attributes": {"POSITION": pos, "NORMAL": normals, "JOINTS_0": j0,
                "WEIGHTS_0": w0, "JOINTS_1": j1, "WEIGHTS_1": w1}, "indices": indices}]},
            {"primitives": [{"attributes": {"POSITION": sparse}, "targets": [{"POSITION": delta}]}],
             "weights": [0.0]}
        ],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": ibm, "skeleton": 1}],
        "animations": [{"channels": [
            {"sampler": 0, "target": {"node": 1, "path": "translation"}},
            {"sampler": 1, "target": {"node": 2, "path": "rotation"}},
            {"sampler": 2, "target": {"node": 1, "path": "scale"}},
            {"sampler": 3, "target": {"node": 3, "path": "weights"}}
        ], "samplers": [
            {"input": times, "output": moves},
            {"input": times, "output": turns, "interpolation": "STEP"},
            {"input": times, "output": spline, "interpolation": "CUBICSPLINE"},
            {"input": times, "output": weights}
        ]}]
    }));
    serde_json::from_slice(&doc).unwrap_or(Value::Null)
}

/// JSON pointers of every value in `value` for which `pick` holds, depth first.
fn pointers(value: &Value, at: String, pick: &dyn Fn(&Value) -> bool, out: &mut Vec<String>) {
    if pick(value) {
        out.push(at.clone());
    }
    match value {
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                pointers(v, format!("{at}/{i}"), pick, out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                pointers(v, format!("{at}/{k}"), pick, out);
            }
        }
        _ => {}
    }
}

#[test]
fn the_rich_document_loads_cleanly() {
    let rig = load_json(rich_document()).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    assert!(rig.findings.is_empty(), "{:?}", rig.findings);
    assert_eq!(rig.clips[0].channels.len(), 4);
    assert_eq!(rig.meshes[1].primitives[0].positions[2], Vec3::splat(9.0));
}

#[test]
fn no_number_in_the_file_can_make_the_loader_panic() {
    let doc = rich_document();
    let mut numbers = Vec::new();
    pointers(&doc, String::new(), &|v| v.is_number(), &mut numbers);
    assert!(numbers.len() > 100);
    let edge_values = [
        json!(0),
        json!(1),
        json!(2),
        json!(3),
        json!(5121),
        json!(65535),
        json!(4294967295u64),
        json!(18446744073709551615u64),
        json!(-1),
        json!(1e30),
    ];
    for pointer in &numbers {
        for value in &edge_values {
            let mut mutated = doc.clone();
            if let Some(slot) = mutated.pointer_mut(pointer) {
                *slot = value.clone();
            }
            // Either outcome is fine; reaching the next iteration means no panic.
            let _ = load_json(mutated);
        }
    }
}

#[test]
fn no_changed_name_or_missing_property_can_make_the_loader_panic() {
    let doc = rich_document();
    let mut strings = Vec::new();
    pointers(&doc, String::new(), &|v| v.is_string(), &mut strings);
    let names = [
        "SCALAR",
        "VEC2",
        "VEC3",
        "VEC4",
        "MAT3",
        "MAT4",
        "rotation",
        "weights",
        "scale",
        "pointer",
        "CUBICSPLINE",
        "STEP",
        "",
    ];
    for pointer in strings.iter().filter(|p| !p.starts_with("/buffers")) {
        for name in names {
            let mut mutated = doc.clone();
            if let Some(slot) = mutated.pointer_mut(pointer) {
                *slot = json!(name);
            }
            let _ = load_json(mutated);
        }
    }
    let mut everything = Vec::new();
    pointers(&doc, String::new(), &|_| true, &mut everything);
    for pointer in everything.iter().filter(|p| !p.is_empty()) {
        let Some((parent, key)) = pointer.rsplit_once('/') else {
            continue;
        };
        let mut mutated = doc.clone();
        match mutated.pointer_mut(parent) {
            Some(Value::Object(map)) => {
                map.remove(key);
            }
            Some(Value::Array(items)) => {
                if let Ok(i) = key.parse::<usize>() {
                    items.remove(i);
                }
            }
            _ => continue,
        }
        let _ = load_json(mutated);
    }
    // Attribute names moved to other semantics (TANGENT, sets 1..2, custom names).
    for (m, p) in [(0, 0), (1, 0)] {
        let attrs = format!("/meshes/{m}/primitives/{p}/attributes");
        let Some(Value::Object(map)) = doc.pointer(&attrs) else {
            continue;
        };
        for key in map.keys() {
            for renamed in ["TANGENT", "NORMAL", "JOINTS_2", "WEIGHTS_2", "_CUSTOM", "COLOR_0"] {
                let mut mutated = doc.clone();
                if let Some(Value::Object(target)) = mutated.pointer_mut(&attrs)
                    && let Some(v) = target.remove(key)
                {
                    target.insert(renamed.to_string(), v);
                }
                let _ = load_json(mutated);
            }
        }
    }
    let mut with_tangent = doc.clone();
    if let Some(Value::Object(target)) = with_tangent.pointer_mut("/meshes/1/primitives/0/targets/0") {
        target.insert("TANGENT".to_string(), json!(0));
    }
    let _ = load_json(with_tangent);
}

#[test]
fn no_corrupted_or_truncated_glb_can_make_the_loader_panic() {
    let mut doc = rich_document();
    let uri = doc["buffers"][0]["uri"].as_str().unwrap_or_default().to_string();
    let payload = uri.split_once(',').map(|(_, p)| p).unwrap_or_default();
    let bin = base64::engine::general_purpose::STANDARD.decode(payload).unwrap_or_default();
    doc["buffers"][0] = json!({"byteLength": bin.len()});
    let text = serde_json::to_vec(&doc).unwrap_or_default();
    let mut glb = b"glTF".to_vec();
    let total = 12 + 8 + text.len().next_multiple_of(4) + 8 + bin.len().next_multiple_of(4);
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&(total as u32).to_le_bytes());
    glb.extend_from_slice(&(text.len().next_multiple_of(4) as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&text);
    glb.resize(20 + text.len().next_multiple_of(4), b' ');
    glb.extend_from_slice(&(bin.len().next_multiple_of(4) as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&bin);
    glb.resize(total, 0);
    assert!(load_bytes(&glb, "t.glb", None).is_ok());

    for cut in 0..glb.len() {
        assert!(load_bytes(&glb[..cut], "t.glb", None).is_err());
    }
    // Corrupt the header, chunk headers and every byte of the binary chunk.
    let bin_start = total - bin.len().next_multiple_of(4) - 8;
    let positions = (0..20).chain(bin_start..total);
    for at in positions {
        for value in [0u8, 0xFF, glb[at].wrapping_add(1)] {
            let mut bad = glb.clone();
            bad[at] = value;
            let _ = load_bytes(&bad, "t.glb", None);
        }
    }
}

#[test]
fn custom_attributes_and_boundless_positions_load_with_findings() {
    let mut bin = Bin::default();
    let pos = bin.positions(&[[0.0; 3]]);
    let ids = bin.floats(&[7.0], "SCALAR", 1);
    bin.accessors[pos].as_object_mut().map(|a| a.remove("min"));
    let doc = bin.finish(json!({"meshes": [{"primitives": [
        {"attributes": {"POSITION": pos, "_BATCHID": ids}}
    ]}]}));
    let rig = load(&doc).map_err(|e| e.to_string());
    let Ok(rig) = rig else { panic!("{rig:?}") };
    let found: Vec<(&str, &str)> = rig.findings.iter().map(|f| (f.code, f.pointer.as_str())).collect();
    assert_eq!(
        found,
        vec![
            ("RIG_ATTRIBUTE_IGNORED", "/meshes/0/primitives/0/attributes"),
            ("MESH_PRIMITIVE_POSITION_ACCESSOR_WITHOUT_BOUNDS", "/meshes/0/primitives/0/attributes/POSITION"),
        ]
    );
}

#[test]
fn garbage_and_empty_input_are_refused() {
    assert_eq!(error_of(load(b"")), "test.gltf: the file is empty");
    assert!(error_of(load(b"\x00\x01\x02")).contains("not a glTF file"));
    assert!(error_of(load(b"{\"asset\":")).contains("invalid JSON"));
    assert!(error_of(load(b"glTF\x02\x00")).contains("truncated .glb"));
}

/// A channel with no target node is allowed by glTF (ignored unless an extension names what
/// it animates); it loads the same whether or not the text happens to contain the pointer
/// extension's name, which once chose between a strict and a tolerant parse.
#[test]
fn a_channel_without_a_target_node_loads_alike_whatever_the_text_names() {
    let build = |channel: Value, extras: &str| {
        let mut bin = Bin::default();
        let times = bin.floats(&[0.0, 1.0], "SCALAR", 2);
        let out = bin.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0], "VEC4", 2);
        bin.finish(json!({
            "nodes": [{}],
            "extras": {"note": extras},
            "animations": [{"channels": [
                {"sampler": 0, "target": {"node": 0, "path": "rotation"}},
                channel
            ], "samplers": [{"input": times, "output": out}]}]
        }))
    };
    for channel in [json!({"sampler": 0, "target": {"path": "rotation"}}), json!({"sampler": 0})] {
        let plain = load(&build(channel.clone(), "")).map_err(|e| e.to_string());
        let named = load(&build(channel.clone(), "KHR_animation_pointer")).map_err(|e| e.to_string());
        let (Ok(plain), Ok(named)) = (plain, named) else { panic!("{channel}: refused") };
        for rig in [&plain, &named] {
            assert_eq!(rig.clips[0].channels.len(), 1, "{channel}: only the targeted channel plays");
            assert_eq!(rig.clips[0].channels[0].values, vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0].into());
        }
    }
}

/// A pointer channel plays only when `extensionsUsed` declares the extension; undeclared,
/// it is listed as not previewed and the extension object is UNDECLARED_EXTENSION.
#[test]
fn an_undeclared_animation_pointer_is_not_followed() {
    let build = |declared: bool| {
        let mut bin = Bin::default();
        let times = bin.floats(&[0.0, 1.0], "SCALAR", 2);
        let out = bin.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0], "VEC4", 2);
        let mut doc = json!({
            "nodes": [{}],
            "animations": [{"channels": [{"sampler": 0, "target": {"path": "pointer",
                "extensions": {"KHR_animation_pointer": {"pointer": "/nodes/0/rotation"}}}}],
                "samplers": [{"input": times, "output": out}]}]
        });
        if declared {
            doc["extensionsUsed"] = json!(["KHR_animation_pointer"]);
        }
        bin.finish(doc)
    };
    let declared = load(&build(true)).map_err(|e| e.to_string());
    let undeclared = load(&build(false)).map_err(|e| e.to_string());
    let (Ok(declared), Ok(undeclared)) = (declared, undeclared) else { panic!("refused") };
    assert_eq!(declared.clips[0].channels.len(), 1);
    assert!(!declared.findings.iter().any(|f| f.code == "UNDECLARED_EXTENSION"));
    assert_eq!(undeclared.clips[0].channels.len(), 0);
    assert_eq!(undeclared.unpreviewed_channels.len(), 1);
    let found: Vec<&str> = undeclared
        .findings
        .iter()
        .filter(|f| f.code == "UNDECLARED_EXTENSION")
        .map(|f| f.pointer.as_str())
        .collect();
    assert_eq!(found, ["/animations/0/channels/0/target/extensions/KHR_animation_pointer"]);
}

/// Attributes with custom names are never read, so one naming an accessor that does not
/// exist is ignored like the rest; gltf-json keeps only one of them, chosen by key order,
/// which once made the verdict depend on how the keys were sorted.
#[test]
fn custom_attributes_are_ignored_in_any_order_even_out_of_range() {
    // serde_json writes keys sorted: "A_CUSTOM" < "POSITION" < "Z_CUSTOM" in both cases.
    for (a, z) in [(0, 99), (99, 0)] {
        let mut bin = Bin::default();
        let positions = bin.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3", 3);
        let attributes = json!({"A_CUSTOM": a, "POSITION": positions, "Z_CUSTOM": z});
        let doc = bin.finish(
            json!({"meshes": [{"primitives": [{"attributes": attributes}]}], "nodes": [{"mesh": 0}]}),
        );
        let rig = load(&doc).map_err(|e| e.to_string());
        let Ok(rig) = rig else { panic!("A_CUSTOM {a}, Z_CUSTOM {z}: {rig:?}") };
        assert_eq!(rig.meshes[0].primitives[0].positions[1], Vec3::new(1.0, 0.0, 0.0));
        assert!(rig.findings.iter().any(|f| f.code == "RIG_ATTRIBUTE_IGNORED"), "A_CUSTOM {a}, Z_CUSTOM {z}");
    }
}

mod shared;

/// A load reads the file's JSON text once, whatever the file holds: every extension reader
/// reads the one document.
#[test]
fn a_load_parses_the_json_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for file in [
        "samples/walker.glb",
        "samples/seed-arm.gltf",
        "tests/fixtures/vrm/walker-springs-vrm1.vrm",
        "tests/fixtures/vrm/walker-constraints-vrm1.vrm",
        "tests/fixtures/vrm/walker-springs-vrm0.vrm",
        "tests/fixtures/vrm/walker-walk.vrma",
        "tests/fixtures/pipeline/walker.meshopt.glb",
        "tests/fixtures/pipeline/seed-arm.gltfpack-cf.gltf",
        "tests/fixtures/pipeline/draco-walker.glb",
        "tests/fixtures/pointer/swing-pointer.gltf",
        "tests/fixtures/instancing/pegs-instanced.glb",
    ] {
        let before = parse::parses();
        let rig = super::load(&root.join(file));
        assert!(rig.is_ok(), "{file}: {:?}", rig.err());
        assert_eq!(parse::parses() - before, 1, "{file}");
    }
}
