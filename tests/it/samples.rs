//! The generated sample rigs in `samples/`.
//!
//! The committed files must be exactly what `rigscope::samplegen::all()` writes. Their content
//! is checked by a second method: the bytes are taken apart here with serde_json and plain
//! byte slicing (GLB chunks, data URIs, accessors, node TRS), never with the generator's own
//! structs, and expected values come from the task's description of each rig or from the
//! glTF specification.

use std::collections::BTreeSet;

use base64::prelude::{BASE64_STANDARD, Engine};
use glam::{DMat4, DQuat, DVec3};
use rigscope::samplegen::{self, BAD_WEIGHTS_FAULTS};
use serde_json::Value;

/// One parsed sample: its JSON document and its (only) buffer.
struct Doc {
    json: Value,
    bin: Vec<u8>,
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let word: [u8; 4] = bytes[at..at + 4].try_into().expect("4 bytes");
    u32::from_le_bytes(word)
}

/// Reads a GLB by its chunk headers, checking the layout rules on the way.
fn parse_glb(name: &str, bytes: &[u8]) -> Doc {
    assert_eq!(&bytes[0..4], b"glTF", "{name}: magic");
    assert_eq!(u32_at(bytes, 4), 2, "{name}: GLB version");
    assert_eq!(u32_at(bytes, 8) as usize, bytes.len(), "{name}: header length");
    let json_len = u32_at(bytes, 12) as usize;
    assert_eq!(&bytes[16..20], b"JSON", "{name}: first chunk type");
    assert_eq!(json_len % 4, 0, "{name}: JSON chunk padded to 4");
    let json_bytes = &bytes[20..20 + json_len];
    let text = std::str::from_utf8(json_bytes).expect("JSON chunk is UTF-8");
    assert!(text.trim_end_matches(' ').ends_with('}'), "{name}: JSON padded with spaces only");
    let json: Value = serde_json::from_str(text.trim_end_matches(' ')).expect("JSON chunk parses");
    let bin_at = 20 + json_len;
    let bin_len = u32_at(bytes, bin_at) as usize;
    assert_eq!(&bytes[bin_at + 4..bin_at + 8], b"BIN\0", "{name}: second chunk type");
    assert_eq!(bin_len % 4, 0, "{name}: BIN chunk padded to 4");
    assert_eq!(bin_at + 8 + bin_len, bytes.len(), "{name}: nothing after the BIN chunk");
    let bin = bytes[bin_at + 8..].to_vec();
    assert_eq!(json["buffers"][0]["byteLength"].as_u64(), Some(bin.len() as u64));
    assert!(json["buffers"][0].get("uri").is_none(), "{name}: GLB buffer has no uri");
    Doc { json, bin }
}

/// Reads a `.gltf` whose one buffer is a base64 data URI.
fn parse_gltf(name: &str, bytes: &[u8]) -> Doc {
    let json: Value = serde_json::from_slice(bytes).expect("valid JSON");
    let uri = json["buffers"][0]["uri"].as_str().expect("buffer uri");
    let payload = uri.strip_prefix("data:application/octet-stream;base64,").expect("data URI");
    let bin = BASE64_STANDARD.decode(payload).expect("base64");
    assert_eq!(json["buffers"][0]["byteLength"].as_u64(), Some(bin.len() as u64), "{name}");
    Doc { json, bin }
}

fn sample(name: &str) -> Doc {
    let bytes = samplegen::all()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| b)
        .unwrap_or_else(|| panic!("no sample {name}"));
    if name.ends_with(".gltf") { parse_gltf(name, &bytes) } else { parse_glb(name, &bytes) }
}

fn width(kind: &str) -> usize {
    match kind {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        other => panic!("unexpected accessor type {other}"),
    }
}

fn idx(v: &Value) -> usize {
    v.as_u64().expect("an index") as usize
}

impl Doc {
    /// Accessor `index` as elements of f64 components (normalised integers divided by their max).
    fn read(&self, index: usize) -> Vec<Vec<f64>> {
        let a = &self.json["accessors"][index];
        let view = &self.json["bufferViews"][idx(&a["bufferView"])];
        let size = match a["componentType"].as_u64() {
            Some(5121) => 1,
            Some(5123) => 2,
            Some(5125) | Some(5126) => 4,
            other => panic!("componentType {other:?}"),
        };
        let n = width(a["type"].as_str().expect("type"));
        let stride = view["byteStride"].as_u64().map_or(size * n, |s| s as usize);
        let base = idx(&view["byteOffset"]) + a["byteOffset"].as_u64().unwrap_or(0) as usize;
        let normalized = a["normalized"].as_bool().unwrap_or(false);
        let count = idx(&a["count"]);
        assert!(
            base + stride * count.saturating_sub(1) + size * n <= self.bin.len(),
            "accessor {index} in bounds"
        );
        (0..count)
            .map(|i| {
                (0..n)
                    .map(|c| {
                        let at = base + i * stride + c * size;
                        let b = &self.bin[at..at + size];
                        match (a["componentType"].as_u64(), normalized) {
                            (Some(5126), _) => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                            (Some(5121), false) => f64::from(b[0]),
                            (Some(5121), true) => f64::from(b[0]) / 255.0,
                            (Some(5123), false) => f64::from(u16::from_le_bytes([b[0], b[1]])),
                            (Some(5123), true) => f64::from(u16::from_le_bytes([b[0], b[1]])) / 65535.0,
                            _ => f64::from(u32_at(b, 0)),
                        }
                    })
                    .collect()
            })
            .collect()
    }

    fn nodes(&self) -> &Vec<Value> {
        self.json["nodes"].as_array().expect("nodes")
    }

    fn node_names(&self) -> Vec<&str> {
        self.nodes().iter().map(|n| n["name"].as_str().expect("every node is named")).collect()
    }

    /// The single skinned primitive list of the single skinned mesh node.
    fn primitives(&self) -> &Vec<Value> {
        self.json["meshes"][0]["primitives"].as_array().expect("primitives")
    }

    fn skin_joints(&self) -> Vec<usize> {
        self.json["skins"][0]["joints"].as_array().expect("joints").iter().map(idx).collect()
    }

    fn parent_of(&self, node: usize) -> Option<usize> {
        self.nodes().iter().position(|n| {
            n["children"].as_array().is_some_and(|c| c.iter().any(|x| x.as_u64() == Some(node as u64)))
        })
    }

    /// Global bind transform of `node`, recomputed from the file's TRS (or matrix).
    fn global(&self, node: usize) -> DMat4 {
        let n = &self.nodes()[node];
        let vec = |key: &str, default: Vec<f64>| -> Vec<f64> {
            n[key].as_array().map_or(default, |a| a.iter().map(|x| x.as_f64().expect("number")).collect())
        };
        let local = if let Some(m) = n["matrix"].as_array() {
            let cols: Vec<f64> = m.iter().map(|x| x.as_f64().expect("number")).collect();
            DMat4::from_cols_slice(&cols)
        } else {
            // Values are f32 in the file's meaning: read as f32, widen.
            let f = |v: Vec<f64>| -> Vec<f64> { v.into_iter().map(|x| f64::from(x as f32)).collect() };
            let t = f(vec("translation", vec![0.0; 3]));
            let r = f(vec("rotation", vec![0.0, 0.0, 0.0, 1.0]));
            let s = f(vec("scale", vec![1.0; 3]));
            DMat4::from_translation(DVec3::new(t[0], t[1], t[2]))
                * DMat4::from_quat(DQuat::from_xyzw(r[0], r[1], r[2], r[3]))
                * DMat4::from_scale(DVec3::new(s[0], s[1], s[2]))
        };
        match self.parent_of(node) {
            Some(p) => self.global(p) * local,
            None => local,
        }
    }

    /// Per vertex, every (joint, weight) slot over all JOINTS_n / WEIGHTS_n sets, in order.
    fn influences(&self, primitive: &Value) -> Vec<Vec<(u32, f32)>> {
        let attributes = &primitive["attributes"];
        let mut out: Vec<Vec<(u32, f32)>> = Vec::new();
        for set in 0.. {
            let (Some(j), Some(w)) =
                (attributes.get(format!("JOINTS_{set}")), attributes.get(format!("WEIGHTS_{set}")))
            else {
                break;
            };
            let joints = self.read(idx(j));
            let weights = self.read(idx(w));
            out.resize(joints.len(), Vec::new());
            for (v, (js, ws)) in joints.iter().zip(&weights).enumerate() {
                out[v].extend(js.iter().zip(ws).map(|(&j, &w)| (j as u32, w as f32)));
            }
        }
        out
    }
}

/// The Khronos rule: weights accumulated in f32 in slot order, |sum - 1| <= 2e-7 * count.
fn normalised(slots: &[(u32, f32)]) -> bool {
    let mut sum = 0.0f32;
    for &(_, w) in slots {
        sum += w;
    }
    (sum - 1.0).abs() <= 2e-7 * slots.len() as f32
}

const FILES: [&str; 5] =
    ["seed-arm.gltf", "tentacle.glb", "walker.glb", "bad-weights.glb", "walker-springs-300.vrm"];

#[test]
fn committed_files_are_what_the_generator_writes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let generated = samplegen::all();
    let names: Vec<&str> = generated.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, FILES);
    for (name, bytes) in generated {
        let committed = std::fs::read(dir.join(name)).unwrap_or_default();
        assert!(
            committed == bytes,
            "samples/{name} differs from rigscope::samplegen ({} bytes committed, {} generated): \
             run `cargo run --example gen-samples` and commit the result",
            committed.len(),
            bytes.len()
        );
    }
}

#[test]
fn generation_is_deterministic() {
    assert!(samplegen::all() == samplegen::all());
}

#[test]
fn every_sample_follows_the_layout_rules() {
    for name in FILES {
        let doc = sample(name);
        let json = &doc.json;
        assert_eq!(json["asset"]["generator"], "rigscope samplegen", "{name}");
        assert_eq!(json["asset"]["version"], "2.0", "{name}");
        assert_eq!(json["scene"], 0, "{name}");
        assert!(!json["scenes"][0]["nodes"].as_array().expect("scene roots").is_empty());
        assert_eq!(doc.node_names().len(), doc.nodes().len());

        for (i, view) in json["bufferViews"].as_array().expect("views").iter().enumerate() {
            let offset = idx(&view["byteOffset"]);
            assert_eq!(offset % 4, 0, "{name}: bufferView {i} aligned");
            assert!(offset + idx(&view["byteLength"]) <= doc.bin.len(), "{name}: bufferView {i} in buffer");
        }

        let view_of = |accessor: usize| &json["bufferViews"][idx(&json["accessors"][accessor]["bufferView"])];
        for primitive in doc.primitives() {
            for (semantic, accessor) in primitive["attributes"].as_object().expect("attributes") {
                assert_eq!(view_of(idx(accessor))["target"], 34962, "{name}: {semantic} view target");
            }
            if let Some(indices) = primitive.get("indices") {
                assert_eq!(view_of(idx(indices))["target"], 34963, "{name}: index view target");
            }
            // POSITION min/max must be present and equal to the data's bounds.
            let position = idx(&primitive["attributes"]["POSITION"]);
            let data = doc.read(position);
            for c in 0..3 {
                let lo = data.iter().map(|p| p[c]).fold(f64::INFINITY, f64::min);
                let hi = data.iter().map(|p| p[c]).fold(f64::NEG_INFINITY, f64::max);
                let a = &json["accessors"][position];
                assert_eq!(a["min"][c].as_f64().map(|x| x as f32), Some(lo as f32), "{name}: min[{c}]");
                assert_eq!(a["max"][c].as_f64().map(|x| x as f32), Some(hi as f32), "{name}: max[{c}]");
            }
        }
        // Optional in glTF: the bench's spring avatar has none (it plays a .vrma).
        for animation in json["animations"].as_array().into_iter().flatten() {
            for sampler in animation["samplers"].as_array().expect("samplers") {
                let times: Vec<f64> = doc.read(idx(&sampler["input"])).into_iter().map(|t| t[0]).collect();
                assert!(times.windows(2).all(|w| w[0] < w[1]), "{name}: key times increase");
                let a = &json["accessors"][idx(&sampler["input"])];
                assert_eq!(a["min"][0].as_f64(), times.first().copied(), "{name}: input min");
                assert_eq!(a["max"][0].as_f64(), times.last().copied(), "{name}: input max");
            }
        }
    }
}

#[test]
fn inverse_bind_matrices_invert_the_bind_pose() {
    for name in FILES {
        let doc = sample(name);
        for skin in doc.json["skins"].as_array().expect("skins") {
            let joints: Vec<usize> = skin["joints"].as_array().expect("joints").iter().map(idx).collect();
            let matrices = doc.read(idx(&skin["inverseBindMatrices"]));
            assert_eq!(matrices.len(), joints.len(), "{name}: one IBM per joint");
            for (&joint, m) in joints.iter().zip(&matrices) {
                let ibm = DMat4::from_cols_slice(m);
                let product = ibm * doc.global(joint);
                assert!(
                    product.abs_diff_eq(DMat4::IDENTITY, 1e-6),
                    "{name}: joint {joint}: IBM * G = {product}"
                );
            }
        }
    }
}

#[test]
fn seed_arm_is_the_teaching_rig() {
    let doc = sample("seed-arm.gltf");
    let names = doc.node_names();
    // The joints, by name, as the task describes them.
    let joint_names: Vec<&str> = doc.skin_joints().iter().map(|&j| names[j]).collect();
    assert_eq!(joint_names, ["root", "b1", "b2", "b31", "b32"]);
    let node = |n: &str| names.iter().position(|x| *x == n).expect("node");
    let local = |n: &str| doc.global(doc.parent_of(node(n)).expect("parent")).inverse() * doc.global(node(n));
    for (n, expected) in [
        ("b1", [0.2, 0.0, 0.0]),
        ("b2", [0.2, 0.0, 0.0]),
        ("b31", [0.2, 0.1, 0.0]),
        ("b32", [0.2, -0.1, 0.0]),
    ] {
        let t = local(n).w_axis.truncate();
        assert!((t - DVec3::from(expected)).length() < 1e-7, "{n} at {t}");
    }
    assert!(doc.parent_of(node("root")).is_none());
    assert_eq!(doc.json["skins"][0]["skeleton"], node("root"));

    // The mesh node is its own root and carries the skin.
    let mesh_node = doc.nodes().iter().position(|n| n.get("mesh").is_some()).expect("mesh node");
    assert!(doc.parent_of(mesh_node).is_none());
    assert_eq!(doc.nodes()[mesh_node]["skin"], 0);

    let primitive = &doc.primitives()[0];
    assert_eq!(primitive["mode"], 2, "LINE_LOOP");
    let outline = [
        (-0.1, 0.05),
        (0.1, 0.05),
        (0.3, 0.05),
        (0.45, 0.06),
        (0.6, 0.15),
        (0.65, 0.1),
        (0.5, 0.0),
        (0.65, -0.1),
        (0.6, -0.15),
        (0.45, -0.06),
        (0.3, -0.05),
        (0.1, -0.05),
        (-0.1, -0.05),
    ];
    let positions = doc.read(idx(&primitive["attributes"]["POSITION"]));
    assert_eq!(positions.len(), 13);
    for (p, (x, y)) in positions.iter().zip(outline) {
        assert_eq!((p[0] as f32, p[1] as f32, p[2]), (x as f32, y as f32, 0.0));
    }

    // "root 1 | root .5 b1 .5 | b1 .5 b2 .5 | b2 .3 b31 .7 | ..." from the task, by joint name.
    let table: [&[(&str, f32)]; 13] = [
        &[("root", 1.0)],
        &[("root", 0.5), ("b1", 0.5)],
        &[("b1", 0.5), ("b2", 0.5)],
        &[("b2", 0.3), ("b31", 0.7)],
        &[("b2", 0.2), ("b31", 0.8)],
        &[("b31", 1.0)],
        &[("b31", 0.5), ("b32", 0.5)],
        &[("b32", 1.0)],
        &[("b2", 0.2), ("b32", 0.8)],
        &[("b2", 0.3), ("b32", 0.7)],
        &[("b1", 0.5), ("b2", 0.5)],
        &[("root", 0.5), ("b1", 0.5)],
        &[("root", 1.0)],
    ];
    let influences = doc.influences(primitive);
    for (v, (slots, expected)) in influences.iter().zip(table).enumerate() {
        let used: Vec<(&str, f32)> =
            slots.iter().filter(|s| s.1 != 0.0).map(|&(j, w)| (joint_names[j as usize], w)).collect();
        assert_eq!(used, expected, "vertex {v}");
        assert!(slots.iter().all(|&(j, w)| w != 0.0 || j == 0), "vertex {v}: unused slots use joint 0");
        assert!(normalised(slots), "vertex {v}");
    }

    // translate: b1 moves y 0, 0.2, 0, -0.2, 0 at 0, 0.5, 1, 1.5, 2 s; b32 goes out to x 0.4.
    let clips = clip_channels(&doc);
    let b1 = &clips["translate"][&(node("b1"), "translation".to_owned())];
    assert_eq!(b1.interpolation, "LINEAR");
    assert_eq!(b1.times, [0.0, 0.5, 1.0, 1.5, 2.0]);
    let ys: Vec<f32> = b1.values.iter().map(|v| v[1] as f32).collect();
    assert_eq!(ys, [0.0, 0.2, 0.0, -0.2, 0.0]);
    assert!(b1.values.iter().all(|v| v[0] as f32 == 0.2 && v[2] == 0.0));
    let b32 = &clips["translate"][&(node("b32"), "translation".to_owned())];
    let xs: Vec<f32> = b32.values.iter().map(|v| v[0] as f32).collect();
    assert_eq!(xs.first(), Some(&0.2));
    assert_eq!(xs.iter().copied().fold(f32::MIN, f32::max), 0.4);
    assert_eq!(xs.last(), Some(&0.2));

    // bend: LINEAR rotations of b1 and b2 about z only.
    let bend = &clips["bend"];
    for joint in ["b1", "b2"] {
        let channel = &bend[&(node(joint), "rotation".to_owned())];
        assert_eq!(channel.interpolation, "LINEAR");
        assert!(channel.values.iter().all(|q| q[0] == 0.0 && q[1] == 0.0));
        assert!(channel.values.iter().any(|q| q[2].abs() > 0.1), "{joint} bends");
    }
}

/// One animation channel as read from the file.
struct Channel {
    interpolation: String,
    times: Vec<f64>,
    values: Vec<Vec<f64>>,
}

type Clips = std::collections::BTreeMap<String, std::collections::BTreeMap<(usize, String), Channel>>;

fn clip_channels(doc: &Doc) -> Clips {
    let mut clips = Clips::new();
    for animation in doc.json["animations"].as_array().expect("animations") {
        let name = animation["name"].as_str().expect("named clip").to_owned();
        let entry = clips.entry(name).or_default();
        for channel in animation["channels"].as_array().expect("channels") {
            let sampler = &animation["samplers"][idx(&channel["sampler"])];
            let key = (
                idx(&channel["target"]["node"]),
                channel["target"]["path"].as_str().expect("path").to_owned(),
            );
            entry.insert(
                key,
                Channel {
                    interpolation: sampler["interpolation"].as_str().unwrap_or("LINEAR").to_owned(),
                    times: doc.read(idx(&sampler["input"])).into_iter().map(|t| t[0]).collect(),
                    values: doc.read(idx(&sampler["output"])),
                },
            );
        }
    }
    clips
}

#[test]
fn smooth_rigs_have_weights_that_sum_to_one() {
    for name in ["tentacle.glb", "walker.glb", "seed-arm.gltf"] {
        let doc = sample(name);
        let joint_count = doc.skin_joints().len() as u32;
        for primitive in doc.primitives() {
            for (v, slots) in doc.influences(primitive).iter().enumerate() {
                assert!(normalised(slots), "{name}: vertex {v}: {slots:?}");
                assert!(slots.iter().all(|&(j, w)| w >= 0.0 && j < joint_count), "{name}: vertex {v}");
                assert!(
                    slots.iter().all(|&(j, w)| w != 0.0 || j == 0),
                    "{name}: vertex {v}: zero weight on joint"
                );
            }
        }
    }
}

#[test]
fn tentacle_is_a_long_chain_with_one_clip_per_interpolation() {
    let doc = sample("tentacle.glb");
    assert!(doc.skin_joints().len() >= 8);
    let primitive = &doc.primitives()[0];
    let positions = doc.read(idx(&primitive["attributes"]["POSITION"]));
    assert!(positions.len() >= 2000, "{} vertices", positions.len());
    assert!(primitive["attributes"].get("NORMAL").is_some());
    // Two to four influences per vertex.
    for (v, slots) in doc.influences(primitive).iter().enumerate() {
        let used = slots.iter().filter(|s| s.1 > 0.0).count();
        assert!((2..=4).contains(&used), "vertex {v}: {used} influences");
    }
    let clips = clip_channels(&doc);
    let names: Vec<&str> = clips.keys().map(String::as_str).collect();
    assert_eq!(names, ["snap", "spline", "wave"]);
    for (clip, interpolation) in [("wave", "LINEAR"), ("snap", "STEP"), ("spline", "CUBICSPLINE")] {
        for ((_, path), channel) in &clips[clip] {
            assert_eq!(path, "rotation");
            assert_eq!(channel.interpolation, interpolation, "{clip}");
        }
    }
    // CUBICSPLINE keys are (in-tangent, value, out-tangent) and the tangents are not zero.
    for channel in clips["spline"].values() {
        assert_eq!(channel.values.len(), 3 * channel.times.len());
        for key in channel.values.chunks(3) {
            let tangent_norm = |q: &Vec<f64>| q.iter().map(|x| x * x).sum::<f64>().sqrt();
            assert!(tangent_norm(&key[0]) > 1e-3 && tangent_norm(&key[2]) > 1e-3);
            assert!((tangent_norm(&key[1]) - 1.0).abs() < 1e-6, "values are unit quaternions");
        }
    }
}

#[test]
fn walker_is_a_person_sized_humanoid() {
    let doc = sample("walker.glb");
    let names = doc.node_names();
    let joints: Vec<&str> = doc.skin_joints().iter().map(|&j| names[j]).collect();
    assert!(joints.len() >= 15);
    for part in ["hips", "spine", "chest", "neck", "head"] {
        assert!(joints.contains(&part), "{part}");
    }
    for side in ["L", "R"] {
        for part in ["upper_arm", "forearm", "hand", "thigh", "shin", "foot"] {
            let name = format!("{part}.{side}");
            assert!(joints.contains(&name.as_str()), "{name}");
        }
    }
    assert_eq!(doc.primitives().len(), 1);
    let primitive = &doc.primitives()[0];
    let positions = doc.read(idx(&primitive["attributes"]["POSITION"]));
    assert!(positions.len() >= 5000, "{} vertices", positions.len());
    assert!(primitive["attributes"].get("NORMAL").is_some());
    let axis = |c: usize| {
        let lo = positions.iter().map(|p| p[c]).fold(f64::INFINITY, f64::min);
        let hi = positions.iter().map(|p| p[c]).fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    };
    let (floor, top) = axis(1);
    assert!(floor.abs() < 1e-4, "feet at y = {floor}");
    assert!((1.7..=1.9).contains(&top), "height {top}");
    // Facing +Z: the toes and nose stick out further in front than anything behind.
    let (back, front) = axis(2);
    assert!(front > -back, "front {front}, back {back}");
    // Left (+X) and right are mirror images in extent.
    let (right, left) = axis(0);
    assert!((left + right).abs() < 1e-4);

    let clips = clip_channels(&doc);
    assert!(clips.contains_key("walk") && clips.contains_key("idle"));
    let walk_end = clips["walk"].values().map(|c| c.times.last().copied().unwrap_or(0.0)).fold(0.0, f64::max);
    assert!((0.5..=2.0).contains(&walk_end), "walk lasts {walk_end} s");
}

#[test]
fn looping_clips_end_where_they_start() {
    for (name, clip) in [("walker.glb", "walk"), ("walker.glb", "idle"), ("tentacle.glb", "wave")] {
        let doc = sample(name);
        let clips = clip_channels(&doc);
        for ((node, path), channel) in &clips[clip] {
            assert_eq!(channel.interpolation, "LINEAR");
            assert_eq!(channel.values.first(), channel.values.last(), "{name} {clip}: node {node} {path}");
        }
    }
}

/// Which faults a vertex has, judged as the Khronos validator (2.0.0-dev.3.10) judges them:
/// its weight sum leaves out negative weights, out-of-range joints and joints already used by
/// the vertex, and a NaN poisons the sum so that it is not reported as non-normalised.
fn faults_of(slots: &[(u32, f32)], joint_count: u32) -> Vec<&'static str> {
    let mut faults = Vec::new();
    if slots.iter().any(|s| !s.1.is_finite()) {
        faults.push("ACCESSOR_INVALID_FLOAT");
    }
    if slots.iter().any(|s| s.1 < 0.0) {
        faults.push("ACCESSOR_WEIGHTS_NEGATIVE");
    }
    if slots.iter().any(|s| s.0 >= joint_count) {
        faults.push("ACCESSOR_JOINTS_INDEX_OOB");
    }
    if slots.iter().any(|s| s.1 == 0.0 && s.0 != 0) {
        faults.push("ACCESSOR_JOINTS_USED_ZERO_WEIGHT");
    }
    let mut seen = BTreeSet::new();
    let mut sum = 0.0f32;
    let mut duplicate = false;
    for &(j, w) in slots {
        if w != 0.0 && !seen.insert(j) {
            duplicate = true;
        } else if (w > 0.0 || w.is_nan()) && j < joint_count {
            sum += w;
        }
    }
    if duplicate {
        faults.push("ACCESSOR_JOINTS_INDEX_DUPLICATE");
    }
    if (sum - 1.0).abs() > 2e-7 * slots.len() as f32 {
        faults.push("ACCESSOR_WEIGHTS_NON_NORMALIZED");
    }
    if slots.iter().filter(|s| s.1 != 0.0).count() > 4 {
        faults.push("RIG_MORE_THAN_4_INFLUENCES");
    }
    faults
}

#[test]
fn bad_weights_faults_are_exactly_where_the_table_says() {
    let doc = sample("bad-weights.glb");
    let joint_count = doc.skin_joints().len() as u32;
    let mut found = BTreeSet::new();
    for (p, primitive) in doc.primitives().iter().enumerate() {
        for (v, slots) in doc.influences(primitive).iter().enumerate() {
            for code in faults_of(slots, joint_count) {
                found.insert((code.to_owned(), p, v));
            }
        }
    }
    let listed: BTreeSet<(String, usize, usize)> =
        BAD_WEIGHTS_FAULTS.iter().map(|&(c, p, v)| (c.to_owned(), p, v)).collect();
    assert_eq!(found, listed);

    // The second primitive stores normalised u8 weights; the first has a second weight set.
    let primitives = doc.primitives();
    let accessor =
        |p: usize, semantic: &str| &doc.json["accessors"][idx(&primitives[p]["attributes"][semantic])];
    assert_eq!(accessor(1, "WEIGHTS_0")["componentType"], 5121);
    assert_eq!(accessor(1, "WEIGHTS_0")["normalized"], true);
    assert!(primitives[0]["attributes"].get("WEIGHTS_1").is_some());
    // Raw u8 sums: 255 everywhere except the one vertex at 256.
    let raw = doc.read(idx(&primitives[1]["attributes"]["WEIGHTS_0"]));
    for (v, w) in raw.iter().enumerate() {
        let sum: f64 = w.iter().map(|x| (x * 255.0).round()).sum();
        assert_eq!(sum, if v == 5 { 256.0 } else { 255.0 }, "vertex {v}");
    }
    assert_eq!(doc.json["animations"].as_array().map(Vec::len), Some(1));
}

/// The bench's spring avatar, read from its JSON alone: a few hundred spring joints in
/// chains that follow the hierarchy, on the walker's VRM 1.0 humanoid, with colliders on
/// nodes the file has.
#[test]
fn walker_springs_300_has_a_few_hundred_chained_spring_joints() {
    let doc = sample("walker-springs-300.vrm");
    let json = &doc.json;
    let nodes = doc.nodes();
    let ext = &json["extensions"]["VRMC_springBone"];
    assert_eq!(ext["specVersion"], "1.0");
    let springs = ext["springs"].as_array().expect("springs");
    assert_eq!(springs.len(), 24 + 16);
    let mut swinging = 0;
    for spring in springs {
        let joints: Vec<usize> =
            spring["joints"].as_array().expect("joints").iter().map(|j| idx(&j["node"])).collect();
        for pair in joints.windows(2) {
            assert_eq!(
                doc.parent_of(pair[1]),
                Some(pair[0]),
                "{}: a chain follows the hierarchy",
                spring["name"]
            );
        }
        // Every joint but the last, which is only the tail of the one before.
        swinging += joints.len() - 1;
        let root = joints[0];
        let parent = doc.parent_of(root).expect("under the body");
        assert!(parent == 4 || parent == 0, "hair under the head, skirt under the hips");
    }
    assert_eq!(swinging, 24 * 8 + 16 * 7);
    for collider in ext["colliders"].as_array().expect("colliders") {
        assert!(idx(&collider["node"]) < nodes.len());
    }
    assert_eq!(json["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["head"]["node"], 4);
}
