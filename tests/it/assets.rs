//! The real assets in `$RIGSCOPE_ASSETS` (see its INDEX.md): every rig loads, and its counts,
//! clip names and durations agree with the facts INDEX.md lists (computed independently of
//! rigscope, copied into `FACTS` below). Key values, vertices and inverse bind matrices are
//! compared with a second reading of the raw bytes by the tiny accessor reader in this file,
//! which shares no code with `rigscope::import`.
//!
//! Skipped (with a note) when `RIGSCOPE_ASSETS` is not set.

use base64::Engine as _;
use serde_json::Value;
use std::path::{Path, PathBuf};

struct Facts {
    file: &'static str,
    nodes: usize,
    joints_per_skin: &'static [usize],
    meshes: usize,
    primitives: usize,
    vertices: usize,
    /// (name, channels, duration in s); INDEX.md gives durations to 4 decimals.
    clips: &'static [(Option<&'static str>, usize, f32)],
    /// Nodes with a `matrix`, where INDEX.md says.
    matrix_nodes: Option<usize>,
    /// Skinned vertices whose weights sum more than 2e-3 away from 1 (None: no skin).
    off_weights: Option<usize>,
}

const FACTS: &[Facts] = &[
    Facts {
        file: "AnimatedMorphCube/AnimatedMorphCube.gltf",
        nodes: 1,
        joints_per_skin: &[],
        meshes: 1,
        primitives: 1,
        vertices: 24,
        clips: &[(Some("Square"), 1, 4.2)],
        matrix_nodes: None,
        off_weights: None,
    },
    Facts {
        file: "AnimatedTriangle/AnimatedTriangle.gltf",
        nodes: 1,
        joints_per_skin: &[],
        meshes: 1,
        primitives: 1,
        vertices: 3,
        clips: &[(None, 1, 1.0)],
        matrix_nodes: None,
        off_weights: None,
    },
    Facts {
        file: "BoxAnimated/BoxAnimated.gltf",
        nodes: 4,
        joints_per_skin: &[],
        meshes: 2,
        primitives: 2,
        vertices: 320,
        clips: &[(None, 2, 3.7083)],
        matrix_nodes: None,
        off_weights: None,
    },
    Facts {
        file: "CesiumMan-x32/CesiumMan-x32.glb",
        nodes: 22,
        joints_per_skin: &[19],
        meshes: 1,
        primitives: 1,
        vertices: 104_736,
        clips: &[(None, 57, 2.0)],
        matrix_nodes: None,
        off_weights: Some(0),
    },
    Facts {
        file: "CesiumMan/CesiumMan.glb",
        nodes: 22,
        joints_per_skin: &[19],
        meshes: 1,
        primitives: 1,
        vertices: 3273,
        clips: &[(None, 57, 2.0)],
        matrix_nodes: Some(2),
        off_weights: Some(0),
    },
    Facts {
        file: "CesiumMan-legacy/CesiumMan.glb",
        nodes: 22,
        joints_per_skin: &[19],
        meshes: 1,
        primitives: 1,
        vertices: 3273,
        clips: &[(None, 57, 2.0)],
        matrix_nodes: Some(1),
        off_weights: Some(210),
    },
    Facts {
        file: "Fox/Fox.glb",
        nodes: 26,
        joints_per_skin: &[24],
        meshes: 1,
        primitives: 1,
        vertices: 1728,
        clips: &[(Some("Survey"), 21, 3.4167), (Some("Walk"), 21, 0.7083), (Some("Run"), 21, 1.1583)],
        matrix_nodes: None,
        off_weights: Some(0),
    },
    Facts {
        file: "InterpolationTest/InterpolationTest.gltf",
        nodes: 12,
        joints_per_skin: &[],
        meshes: 10,
        primitives: 10,
        vertices: 220,
        clips: &[
            (Some("Step Scale"), 1, 1.6667),
            (Some("Linear Scale"), 1, 1.6667),
            (Some("CubicSpline Scale"), 1, 1.6667),
            (Some("Step Rotation"), 1, 1.7083),
            (Some("CubicSpline Rotation"), 1, 1.7083),
            (Some("Linear Rotation"), 1, 1.7083),
            (Some("Step Translation"), 1, 1.7083),
            (Some("CubicSpline Translation"), 1, 1.6667),
            (Some("Linear Translation"), 1, 1.6667),
        ],
        matrix_nodes: None,
        off_weights: None,
    },
    Facts {
        file: "RiggedFigure/RiggedFigure.glb",
        nodes: 22,
        joints_per_skin: &[19],
        meshes: 1,
        primitives: 1,
        vertices: 370,
        clips: &[(None, 57, 1.25)],
        matrix_nodes: Some(1),
        off_weights: Some(0),
    },
    Facts {
        file: "RiggedSimple/RiggedSimple.glb",
        nodes: 5,
        joints_per_skin: &[2],
        meshes: 1,
        primitives: 1,
        vertices: 160,
        clips: &[(None, 3, 2.0833)],
        matrix_nodes: Some(3),
        off_weights: Some(0),
    },
    Facts {
        file: "SimpleMorph/SimpleMorph.gltf",
        nodes: 1,
        joints_per_skin: &[],
        meshes: 1,
        primitives: 1,
        vertices: 3,
        clips: &[(None, 1, 4.0)],
        matrix_nodes: None,
        off_weights: None,
    },
    Facts {
        file: "SimpleSkin/SimpleSkin.gltf",
        nodes: 3,
        joints_per_skin: &[2],
        meshes: 1,
        primitives: 1,
        vertices: 10,
        clips: &[(None, 1, 5.5)],
        matrix_nodes: None,
        off_weights: Some(0),
    },
];

/// Says a test was skipped where a person sees it: straight to stderr, past the test
/// harness's output capture (which would swallow `println!` from a passing test).
pub fn skip_notice(what: &str) {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "note: skipping {what}: RIGSCOPE_ASSETS is not set (see docs/development.md)"
    );
}

pub fn assets_dir() -> Option<PathBuf> {
    match std::env::var_os("RIGSCOPE_ASSETS") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            skip_notice("asset tests");
            None
        }
    }
}

/// The second method: a JSON + buffer reader written for this test only.
struct Raw {
    json: Value,
    buffers: Vec<Vec<u8>>,
}

impl Raw {
    fn open(path: &Path) -> Raw {
        let bytes = std::fs::read(path).expect("read asset");
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let (json, bin): (Value, Option<Vec<u8>>) = if bytes.starts_with(b"glTF") {
            let json_len = u32_at(12) as usize;
            let json = serde_json::from_slice(&bytes[20..20 + json_len]).expect("glb json");
            let bin_at = 20 + json_len;
            let bin = (bin_at + 8 <= bytes.len()).then(|| {
                let len = u32_at(bin_at) as usize;
                bytes[bin_at + 8..bin_at + 8 + len].to_vec()
            });
            (json, bin)
        } else {
            (serde_json::from_slice(&bytes).expect("json"), None)
        };
        let dir = path.parent().expect("folder");
        let mut bin = bin;
        let buffers = json["buffers"]
            .as_array()
            .expect("buffers")
            .iter()
            .map(|b| match b["uri"].as_str() {
                None => bin.take().expect("BIN chunk"),
                Some(uri) if uri.starts_with("data:") => {
                    let payload = &uri[uri.find(',').expect("comma") + 1..];
                    base64::engine::general_purpose::STANDARD.decode(payload).expect("base64")
                }
                Some(uri) => std::fs::read(dir.join(uri)).expect("external buffer"),
            })
            .collect();
        Raw { json, buffers }
    }

    /// Element `i` of accessor `a` as floats, normalised integers decoded per the spec.
    /// None for sparse accessors, which this reader does not handle.
    fn element(&self, a: usize, i: usize) -> Option<Vec<f32>> {
        let acc = &self.json["accessors"][a];
        if acc.get("sparse").is_some() {
            return None;
        }
        let comps: usize = match acc["type"].as_str()? {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            _ => return None,
        };
        let ct = acc["componentType"].as_u64()?;
        let size: usize = match ct {
            5120 | 5121 => 1,
            5122 | 5123 => 2,
            _ => 4,
        };
        let normalized = acc["normalized"].as_bool().unwrap_or(false);
        let view = &self.json["bufferViews"][acc["bufferView"].as_u64()? as usize];
        let stride = view["byteStride"].as_u64().map_or(comps * size, |s| s as usize);
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
            + acc["byteOffset"].as_u64().unwrap_or(0) as usize
            + i * stride;
        let data = &self.buffers[view["buffer"].as_u64()? as usize];
        let value = |k: usize| -> f32 {
            let b = &data[start + k * size..start + (k + 1) * size];
            match (ct, normalized) {
                (5126, _) => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                (5121, true) => b[0] as f32 / 255.0,
                (5123, true) => u16::from_le_bytes([b[0], b[1]]) as f32 / 65535.0,
                (5120, true) => (b[0] as i8 as f32 / 127.0).max(-1.0),
                (5122, true) => (i16::from_le_bytes([b[0], b[1]]) as f32 / 32767.0).max(-1.0),
                (5121, false) => b[0] as f32,
                (5123, false) => u16::from_le_bytes([b[0], b[1]]) as f32,
                _ => f32::NAN,
            }
        };
        Some((0..comps).map(value).collect())
    }
}

#[test]
fn every_indexed_asset_loads_with_the_listed_facts() {
    let Some(dir) = assets_dir() else { return };
    let index = std::fs::read_to_string(dir.join("INDEX.md")).expect("INDEX.md");
    let mut compared_keys = 0;
    for facts in FACTS {
        assert!(index.contains(&format!("assets/{}", facts.file)), "{} is not in INDEX.md", facts.file);
        let path = dir.join(facts.file);
        let rig = match rigscope::load(&path) {
            Ok(rig) => rig,
            Err(e) => panic!("{e}"),
        };
        let f = facts.file;
        assert_eq!(rig.nodes.len(), facts.nodes, "{f} nodes");
        assert_eq!(rig.order.len(), facts.nodes, "{f} order");
        let joints: Vec<usize> = rig.skins.iter().map(|s| s.joints.len()).collect();
        assert_eq!(joints, facts.joints_per_skin, "{f} joints per skin");
        assert_eq!(rig.meshes.len(), facts.meshes, "{f} meshes");
        let prims: usize = rig.meshes.iter().map(|m| m.primitives.len()).sum();
        assert_eq!(prims, facts.primitives, "{f} primitives");
        let vertices: usize = rig.meshes.iter().flat_map(|m| &m.primitives).map(|p| p.vertex_count()).sum();
        assert_eq!(vertices, facts.vertices, "{f} vertices");
        assert_eq!(rig.clips.len(), facts.clips.len(), "{f} clips");
        for (clip, &(name, channels, duration)) in rig.clips.iter().zip(facts.clips) {
            // INDEX.md says "(unnamed)" both for no name and for an empty one.
            let stored = clip.name.as_deref().filter(|n| !n.is_empty());
            assert_eq!(stored, name, "{f} clip name");
            assert_eq!(clip.channels.len(), channels, "{f} {name:?} channels");
            assert!(
                (clip.duration - duration).abs() < 1e-4,
                "{f} {name:?}: duration {} vs {duration}",
                clip.duration
            );
        }
        if let Some(n) = facts.matrix_nodes {
            let with_matrix = rig.nodes.iter().filter(|n| n.matrix.is_some()).count();
            assert_eq!(with_matrix, n, "{f} matrix nodes");
        }
        if let Some(off) = facts.off_weights {
            assert_eq!(count_off_weights(&rig), off, "{f} vertices with off weight sums");
        }
        compared_keys += compare_with_raw(&rig, &path);
    }
    assert!(compared_keys > 0);
}

/// Skinned vertices whose weights (all sets) sum more than 2e-3 away from 1.
fn count_off_weights(rig: &rigscope::Rig) -> usize {
    let mut off = 0;
    for prim in rig.meshes.iter().flat_map(|m| &m.primitives) {
        for v in 0..prim.vertex_count() {
            let sum: f32 = prim.influences.iter().map(|s| s.weights[v].iter().sum::<f32>()).sum();
            if prim.is_skinned() && (sum - 1.0).abs() > 2e-3 {
                off += 1;
            }
        }
    }
    off
}

/// Compares first keys, first vertices and first inverse bind matrices with the raw reader.
/// Returns how many channels were compared.
fn compare_with_raw(rig: &rigscope::Rig, path: &Path) -> usize {
    let raw = Raw::open(path);
    let f = path.display();
    let mut compared = 0;
    for (a, clip) in rig.clips.iter().enumerate() {
        let anim = &raw.json["animations"][a];
        for (c, ch) in clip.channels.iter().enumerate() {
            let channel = &anim["channels"][c];
            assert_eq!(channel["target"]["node"].as_u64(), Some(ch.node as u64), "{f}");
            let s = channel["sampler"].as_u64().expect("sampler") as usize;
            let sampler = &anim["samplers"][s];
            let input = sampler["input"].as_u64().expect("input") as usize;
            let output = sampler["output"].as_u64().expect("output") as usize;
            let (Some(t0), Some(v0)) = (raw.element(input, 0), raw.element(output, 0)) else {
                continue;
            };
            assert_eq!(ch.times[0], t0[0], "{f} clip {a} channel {c} first key time");
            // Weights outputs are scalars: the first `components` of them form element 0.
            let expected: Vec<f32> = if v0.len() == ch.components {
                v0
            } else {
                (0..ch.components).filter_map(|k| raw.element(output, k).map(|e| e[0])).collect()
            };
            assert_eq!(&ch.values[..ch.components], &expected[..], "{f} clip {a} channel {c}");
            compared += 1;
        }
    }
    for (m, mesh) in rig.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let attrs = &raw.json["meshes"][m]["primitives"][p]["attributes"];
            let pos = attrs["POSITION"].as_u64().expect("POSITION") as usize;
            let last = prim.vertex_count() - 1;
            for v in [0, last] {
                if let Some(e) = raw.element(pos, v) {
                    assert_eq!(prim.positions[v].to_array().to_vec(), e, "{f} vertex {v}");
                }
            }
            if let (Some(set), Some(w)) = (
                prim.influences.first(),
                attrs["WEIGHTS_0"].as_u64().and_then(|w| raw.element(w as usize, last)),
            ) {
                assert_eq!(set.weights[last].to_vec(), w, "{f} last vertex weights");
            }
        }
    }
    for (s, skin) in rig.skins.iter().enumerate() {
        if let Some(ibm) = raw.json["skins"][s]["inverseBindMatrices"].as_u64() {
            let last = skin.joints.len() - 1;
            let e = raw.element(ibm as usize, last).expect("IBM");
            assert_eq!(skin.inverse_bind[last].to_cols_array().to_vec(), e, "{f} IBM");
        }
    }
    compared
}

#[test]
fn fox_and_cesium_man_details() {
    let Some(dir) = assets_dir() else { return };
    let fox = rigscope::load(&dir.join("Fox/Fox.glb")).expect("Fox loads");
    assert_eq!(fox.skins[0].joints.len(), 24);
    assert_eq!(fox.clips.len(), 3);
    // Joint order must be parents-first: every joint's joint parent comes earlier.
    let skin = &fox.skins[0];
    let mut seen = vec![false; skin.joints.len()];
    for &k in &skin.joint_order {
        if let Some(p) = skin.joint_parent[k] {
            assert!(seen[p], "joint {k} before its parent {p}");
        }
        seen[k] = true;
    }

    let man = rigscope::load(&dir.join("CesiumMan/CesiumMan.glb")).expect("CesiumMan loads");
    assert_eq!(man.nodes.iter().filter(|n| n.matrix.is_some()).count(), 2);
    // Its clip starts after 0: the first key is kept as stored, not shifted.
    assert!((man.clips[0].channels[0].times[0] - 0.0417).abs() < 1e-4);
}

#[test]
fn inspect_json_counts_agree_with_the_index() {
    let Some(dir) = assets_dir() else { return };
    for facts in FACTS {
        let path = dir.join(facts.file);
        let run = super::cli::rigscope(&["inspect", path.to_str().expect("utf8"), "--json"]);
        assert_eq!(run.code, 0, "{}: {}", facts.file, run.stderr);
        let doc: Value = serde_json::from_str(&run.stdout).expect("inspect JSON");
        let f = facts.file;
        assert_eq!(doc["nodes"].as_array().map(Vec::len), Some(facts.nodes), "{f}");
        let joints: Vec<usize> = doc["skins"]
            .as_array()
            .expect("skins")
            .iter()
            .map(|s| s["joint_count"].as_u64().expect("n") as usize)
            .collect();
        assert_eq!(joints, facts.joints_per_skin, "{f}");
        let meshes = doc["meshes"].as_array().expect("meshes");
        assert_eq!(meshes.len(), facts.meshes, "{f}");
        let prims: Vec<&Value> =
            meshes.iter().flat_map(|m| m["primitives"].as_array().expect("prims")).collect();
        assert_eq!(prims.len(), facts.primitives, "{f}");
        let vertices: u64 = prims.iter().map(|p| p["vertices"].as_u64().expect("vertices")).sum();
        assert_eq!(vertices as usize, facts.vertices, "{f}");
        let clips = doc["clips"].as_array().expect("clips");
        assert_eq!(clips.len(), facts.clips.len(), "{f}");
        for (c, &(_, channels, duration)) in clips.iter().zip(facts.clips) {
            assert_eq!(c["channels"].as_u64(), Some(channels as u64), "{f}");
            assert!((c["duration"].as_f64().expect("duration") - duration as f64).abs() < 1e-4, "{f}");
        }
    }
}

/// Evaluates every clip of every asset at 11 times: all world matrices and positions are
/// finite, and at each channel's first key time the sampled local value is the stored key
/// (as the independent raw reader reads it).
#[test]
fn sampled_poses_are_finite_and_hit_the_stored_first_keys() {
    use rigscope::anim::{Pose, Workspace, sample};
    use rigscope::rig::{Interpolation, Property};
    let Some(dir) = assets_dir() else { return };
    for facts in FACTS {
        let path = dir.join(facts.file);
        let rig = rigscope::load(&path).expect("loads");
        let raw = Raw::open(&path);
        let mut ws = Workspace::new(&rig);
        for (a, clip) in rig.clips.iter().enumerate() {
            for i in 0..=10 {
                let t = clip.duration * i as f32 / 10.0;
                ws.evaluate(&rig, Some(clip), t);
                assert!(ws.globals.iter().all(|m| m.is_finite()), "{} clip {a} t={t}", facts.file);
                for p in &ws.primitives {
                    assert!(p.positions.iter().all(|v| v.is_finite()), "{} clip {a} t={t}", facts.file);
                }
            }
            for (c, ch) in clip.channels.iter().enumerate() {
                let s =
                    raw.json["animations"][a]["channels"][c]["sampler"].as_u64().expect("sampler") as usize;
                let output =
                    raw.json["animations"][a]["samplers"][s]["output"].as_u64().expect("output") as usize;
                // CUBICSPLINE stores (in-tangent, value, out-tangent): the value is element 1.
                let first = if ch.interpolation == Interpolation::CubicSpline { 1 } else { 0 };
                if ch.property == Property::Weights {
                    continue; // scalar layout; covered by compare_with_raw
                }
                let Some(stored) = raw.element(output, first) else { continue };
                let mut pose = Pose::rest(&rig);
                sample(clip, ch.times[0], &mut pose);
                let local = pose.locals[ch.node];
                let got: Vec<f32> = match ch.property {
                    Property::Translation => local.translation.to_array().to_vec(),
                    Property::Scale => local.scale.to_array().to_vec(),
                    _ => local.rotation.to_array().to_vec(),
                };
                for (g, e) in got.iter().zip(&stored) {
                    // Rotations are normalised after sampling; stored keys are unit within 1e-6.
                    assert!(
                        (g - e).abs() < 2e-6,
                        "{} clip {a} channel {c}: {got:?} vs {stored:?}",
                        facts.file
                    );
                }
            }
        }
    }
}

/// Where a skin's inverse bind matrices invert the rest pose (G_rest * IBM = I), skinning in
/// the rest pose must give back the stored positions (times the weight sum, which is 1 for
/// normalised vertices; others are skipped).
#[test]
fn rest_pose_skinning_returns_stored_positions_where_rest_is_bind() {
    use rigscope::anim::Workspace;
    let Some(dir) = assets_dir() else { return };
    let mut checked = 0;
    for facts in FACTS {
        let rig = rigscope::load(&dir.join(facts.file)).expect("loads");
        let mut ws = Workspace::new(&rig);
        ws.evaluate(&rig, None, 0.0);
        for dp in ws.primitives.iter() {
            let Some(s) = dp.skin else { continue };
            let skin = &rig.skins[s];
            let rest_is_bind = skin
                .joints
                .iter()
                .zip(&skin.inverse_bind)
                .all(|(&j, ibm)| (ws.globals[j] * *ibm).abs_diff_eq(glam::Mat4::IDENTITY, 1e-4));
            if !rest_is_bind {
                continue;
            }
            let prim = &rig.meshes[dp.mesh].primitives[dp.primitive];
            let scale = prim.positions.iter().map(|p| p.length()).fold(1.0f32, f32::max);
            for (v, (got, stored)) in dp.positions.iter().zip(prim.positions.iter()).enumerate() {
                let sum: f32 = prim.influences.iter().flat_map(|set| set.weights[v]).sum();
                if (sum - 1.0).abs() > 1e-5 {
                    continue;
                }
                assert!(
                    (*got - *stored).length() <= 1e-4 * scale,
                    "{} vertex {v}: {got} vs stored {stored}",
                    facts.file
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 1, "at least one asset has its bind pose as rest pose");
}

/// `check` on the real assets reports exactly the validator-coded findings the Khronos
/// glTF-Validator reported for them (INDEX.md; its codes about unused objects, buffer view
/// targets and image sizes are outside rigscope's checks), and rigscope's own unused-joint
/// rule finds Fox's two joints that weight no vertex.
#[test]
fn check_agrees_with_the_validator_results_in_the_index() {
    let Some(dir) = assets_dir() else { return };
    /// (file, validator codes with their counts, exit status of `check`)
    type Expected = (&'static str, &'static [(&'static str, u64)], i32);
    let expected: &[Expected] = &[
        ("AnimatedMorphCube/AnimatedMorphCube.gltf", &[], 0),
        ("AnimatedTriangle/AnimatedTriangle.gltf", &[], 0),
        ("BoxAnimated/BoxAnimated.gltf", &[], 0),
        (
            "CesiumMan-legacy/CesiumMan.glb",
            &[("NODE_SKINNED_MESH_NON_ROOT", 1), ("ACCESSOR_WEIGHTS_NON_NORMALIZED", 210)],
            1,
        ),
        ("CesiumMan/CesiumMan.glb", &[("NODE_SKINNED_MESH_NON_ROOT", 1)], 0),
        ("CesiumMan-x32/CesiumMan-x32.glb", &[("NODE_SKINNED_MESH_NON_ROOT", 1)], 0),
        ("Fox/Fox.glb", &[], 0),
        ("InterpolationTest/InterpolationTest.gltf", &[], 0),
        ("RiggedFigure/RiggedFigure.glb", &[("NODE_SKINNED_MESH_NON_ROOT", 1)], 0),
        ("RiggedSimple/RiggedSimple.glb", &[("NODE_SKINNED_MESH_NON_ROOT", 1)], 0),
        ("SimpleMorph/SimpleMorph.gltf", &[], 0),
        ("SimpleSkin/SimpleSkin.gltf", &[("ACCESSOR_JOINTS_USED_ZERO_WEIGHT", 2)], 0),
    ];
    for &(file, codes, exit) in expected {
        let path = dir.join(file);
        let run = super::cli::rigscope(&["check", path.to_str().expect("utf8"), "--json"]);
        assert_eq!(run.code, exit, "{file}: {}", run.stderr);
        let doc: Value = serde_json::from_str(&run.stdout).expect("check JSON");
        let counts = doc["counts"].as_object().expect("counts");
        let validator_codes: Vec<(&str, u64)> = counts
            .iter()
            .filter(|(code, _)| !code.starts_with("RIG_"))
            .map(|(code, n)| (code.as_str(), n.as_u64().expect("count")))
            .collect();
        let mut want: Vec<(&str, u64)> = codes.to_vec();
        want.sort();
        assert_eq!(validator_codes, want, "{file}");
        let unused = counts.get("RIG_JOINT_UNUSED").and_then(Value::as_u64).unwrap_or(0);
        assert_eq!(unused, if file.starts_with("Fox") { 2 } else { 0 }, "{file} unused joints");
    }
}
