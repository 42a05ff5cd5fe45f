//! Real pipeline outputs (tests/fixtures/pipeline, made by its make.sh with gltfpack 1.3 and
//! glTF Transform 4.5.1 from the project's samples) pose like the samples they came from.
//!
//! The tools reorder and merge vertices, add or drop nodes, and resample clips, so the
//! comparison is by name (nodes, clips) and by nearest vertex (found once, in the rest pose).
//! Every difference must stay inside the error the tool's quantization can cause, computed
//! from its bit counts and the sample's own size and motion (see `Budget`).

use glam::Vec3;
use rigscope::Rig;
use rigscope::anim::Workspace;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pipeline").join(name)
}

fn load(path: &Path) -> Rig {
    rigscope::load(path).unwrap_or_else(|e| panic!("{e}"))
}

/// Every deformed vertex of every primitive, in scene space, in one list.
fn vertices(ws: &Workspace) -> Vec<Vec3> {
    ws.primitives.iter().flat_map(|p| p.positions.iter().copied()).collect()
}

/// For each of `of`, the index of its nearest point in `among` (a grid of `cell`-sized
/// buckets; the points of a lossy copy sit within a fraction of a cell of their originals).
fn nearest(of: &[Vec3], among: &[Vec3], cell: f32) -> Vec<usize> {
    use std::collections::HashMap;
    let key = |p: Vec3| (p / cell).floor().as_ivec3();
    let mut grid: HashMap<glam::IVec3, Vec<usize>> = HashMap::new();
    for (i, &p) in among.iter().enumerate() {
        grid.entry(key(p)).or_default().push(i);
    }
    of.iter()
        .map(|&p| {
            let k = key(p);
            let mut best = (f32::INFINITY, usize::MAX);
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        for &i in grid.get(&(k + glam::IVec3::new(dx, dy, dz))).into_iter().flatten() {
                            let d = p.distance(among[i]);
                            if d < best.0 {
                                best = (d, i);
                            }
                        }
                    }
                }
            }
            assert!(best.1 != usize::MAX, "no vertex of the original near {p}");
            best.1
        })
        .collect()
}

fn diagonal(points: &[Vec3]) -> f32 {
    let (lo, hi) =
        points.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    lo.distance(hi)
}

/// What a tool's quantization can change, from its bit counts (its documented defaults).
struct Budget {
    /// POSITION steps across the bbox: gltfpack's `-vp 14` unsigned integers have 2^14 - 1;
    /// glTF Transform's `quantizePosition: 14` spends one of the 14 bits on the sign
    /// (`quantizeAttribute`: 2^13 - 1 steps per unit) and scales the largest extent to one
    /// unit (`getPositionQuantizationVolume`).
    position_steps: f32,
    /// Animation rotation bits; `None` when the clips are stored as they were.
    rotation_bits: Option<i32>,
    /// Skin weights stored as normalized u8.
    u8_weights: bool,
    /// Largest change per value a key-reduction step allowed (glTF Transform `resample`).
    resample_tolerance: f32,
    /// Times to compare at, as fractions of a second; `None`: 48 steps over each clip.
    /// gltfpack resamples clips at 30 Hz: only times that are both one of its samples and
    /// a key of the sample's 24 Hz clips carry no resampling error (multiples of 1/6 s).
    every: Option<f32>,
}

impl Budget {
    /// Error of a node's world placement, over the bbox diagonal: every ancestor's rotation
    /// error turns the rest of the chain (at most one diagonal long), plus translation and
    /// scale stored at 16 bits, for each of `depth` levels.
    fn node(&self, depth: usize) -> f32 {
        let rotation = self.rotation_bits.map_or(0.0, |b| 4.0 / (2f32.powi(b) - 1.0));
        let trs16 = if self.rotation_bits.is_some() { 2.0 / 65535.0 } else { 0.0 };
        depth as f32 * (rotation + trs16 + 2.0 * self.resample_tolerance)
    }

    /// Half a position step along each axis of a cube as large as the bbox, turned by the
    /// joint matrices (scaled up to 10% by the clips).
    fn position(&self) -> f32 {
        1.1 * 3f32.sqrt() / 2.0 / self.position_steps
    }
}

/// Checks `copy` against `original` over every clip (matched by name): each named node's
/// world position within `Budget::node`, each vertex within its own bound (see below).
/// Returns the largest (node, vertex) errors over the bbox diagonal.
fn compare(original: &Rig, copy: &Rig, budget: &Budget) -> (f32, f32) {
    let rest_o = vertices(&Workspace::new(original));
    let rest_c = vertices(&Workspace::new(copy));
    let diag = diagonal(&rest_o);
    let map = nearest(&rest_c, &rest_o, diag / 200.0);
    let depth = (0..original.nodes.len())
        .map(|mut i| {
            let mut d = 1;
            while let Some(p) = original.nodes[i].parent {
                d += 1;
                i = p;
            }
            d
        })
        .max()
        .unwrap_or(1);
    let node_budget = budget.node(depth);
    let prim = &original.meshes[0].primitives[0];
    assert_eq!(original.meshes.len() * original.meshes[0].primitives.len(), 1, "one primitive");
    let (mut node_err, mut vertex_err) = (0f32, 0f32);
    for (c, clip) in original.clips.iter().enumerate() {
        let name = clip.name.clone().unwrap_or_else(|| original.clip_label(c));
        let k = copy.find_clip(&name).unwrap_or_else(|| panic!("{}: no clip {name}", copy.source));
        let times: Vec<f32> = match budget.every {
            Some(dt) => (0..).map(|i| i as f32 * dt).take_while(|&t| t <= clip.duration + 1e-4).collect(),
            None => (0..=48).map(|s| clip.duration * s as f32 / 48.0).collect(),
        };
        for t in times {
            let wo = Workspace::at(original, Some(clip), t);
            let wc = Workspace::at(copy, Some(&copy.clips[k]), t);
            for (i, node) in original.nodes.iter().enumerate() {
                let Some(j) = copy.nodes.iter().position(|n| n.name.is_some() && n.name == node.name) else {
                    continue;
                };
                let d = wo.globals[i].w_axis.truncate().distance(wc.globals[j].w_axis.truncate()) / diag;
                assert!(
                    d <= node_budget,
                    "{}: node {:?} at {name} {t}: {d:e} > {node_budget:e}",
                    copy.source,
                    node.name
                );
                node_err = node_err.max(d);
            }
            let (vo, vc) = (vertices(&wo), vertices(&wc));
            let joints = original.nodes.iter().find_map(|n| n.skin).map(|s| &wo.joint_matrices[s]);
            for (v, &o) in map.iter().enumerate() {
                // Weights rounded to 1/255 (4 slots, each at most half a step off, summing
                // to 1 still) move a vertex by at most 2/255 of the widest gap between where
                // its joints would put it.
                let spread = match (joints, budget.u8_weights) {
                    (Some(joints), true) => {
                        let p = prim.positions[o];
                        let placed: Vec<Vec3> = prim
                            .influences_of(o)
                            .filter(|&(_, w)| w > 0.0)
                            .map(|(j, _)| joints[usize::from(j)].transform_point3(p))
                            .collect();
                        let widest = placed
                            .iter()
                            .flat_map(|a| placed.iter().map(move |b| a.distance(*b)))
                            .fold(0.0, f32::max);
                        2.0 / 255.0 * widest / diag
                    }
                    _ => 0.0,
                };
                let bound = budget.position() + spread + node_budget;
                let d = vc[v].distance(vo[o]) / diag;
                assert!(d <= bound, "{}: vertex {v} at {name} {t}: {d:e} > {bound:e}", copy.source);
                vertex_err = vertex_err.max(d);
            }
        }
    }
    (node_err, vertex_err)
}

const GLTFPACK: Budget = Budget {
    position_steps: 16383.0,
    rotation_bits: Some(12),
    u8_weights: true,
    resample_tolerance: 0.0,
    every: Some(1.0 / 6.0),
};

#[test]
fn quantized_and_meshopt_walkers_pose_like_the_sample() {
    let walker = load(Path::new(&super::cli::sample("walker.glb")));
    let transform = Budget {
        position_steps: 8191.0,
        rotation_bits: None,
        u8_weights: true,
        resample_tolerance: 0.0,
        every: None,
    };
    let transform_meshopt = Budget { rotation_bits: Some(16), ..transform };
    let transform_optimize = Budget { resample_tolerance: 1e-4, ..transform_meshopt };
    for (name, budget) in [
        ("walker.gltfpack.glb", &GLTFPACK),
        ("walker.gltfpack-cc.glb", &GLTFPACK),
        ("walker.quantize.glb", &transform),
        ("walker.meshopt.glb", &transform_meshopt),
        ("walker.optimize.glb", &transform_optimize),
    ] {
        let copy = load(&fixture(name));
        let (_, vertex) = compare(&walker, &copy, budget);
        // Quantized positions never come back exact: a zero would mean nothing was compared.
        assert!(vertex > 0.0, "{name}");
    }
    // KHR_meshopt_compression with the vertex codec's version 1.
    let arm = load(Path::new(&super::cli::sample("seed-arm.gltf")));
    let (_, vertex) = compare(&arm, &load(&fixture("seed-arm.gltfpack-khr.glb")), &GLTFPACK);
    assert!(vertex > 0.0, "seed-arm.gltfpack-khr.glb");
}

/// gltfpack puts a skinned mesh's dequantization into the inverse bind matrices and leaves
/// a scale on its node that the spec says to ignore (../shared/docs/skinning.md); a rigid
/// mesh's goes on its node, which then must apply. Both files must say so, or the pose
/// comparisons above and below would not be testing those two cases.
#[test]
fn gltfpack_dequantizes_on_the_skinned_node_and_on_the_rigid_node() {
    for name in ["walker.gltfpack.glb", "rigid-walker.gltfpack.glb"] {
        let rig = load(&fixture(name));
        let node = rig.nodes.iter().find(|n| n.mesh.is_some()).expect("a mesh node");
        let scale = node.rest.scale;
        assert!(scale.max_element() < 1e-3, "{name}: the mesh node's scale {scale} is not a dequantization");
        assert_eq!(node.skin.is_some(), name.starts_with("walker"), "{name}");
    }
}

/// The rigid variant (make.sh: walker's mesh unskinned and hung under `chest`) moves with
/// the chest: each vertex is `world(chest) * p` for the sample's stored `p`.
#[test]
fn a_quantized_rigid_mesh_moves_with_its_node() {
    let walker = load(Path::new(&super::cli::sample("walker.glb")));
    let copy = load(&fixture("rigid-walker.gltfpack.glb"));
    let chest = walker.nodes.iter().position(|n| n.name.as_deref() == Some("chest")).expect("chest");
    let stored = &walker.meshes[0].primitives[0].positions;
    let place = |ws: &Workspace| -> Vec<Vec3> {
        stored.iter().map(|&p| ws.globals[chest].transform_point3(p)).collect()
    };
    let rest_o = place(&Workspace::new(&walker));
    let diag = diagonal(&rest_o);
    let map = nearest(&vertices(&Workspace::new(&copy)), &rest_o, diag / 200.0);
    let bound = GLTFPACK.position() + GLTFPACK.node(4);
    let mut worst = 0f32;
    for (c, clip) in walker.clips.iter().enumerate() {
        let k = copy.find_clip(clip.name.as_deref().unwrap_or_default()).unwrap_or(c);
        let mut t = 0.0;
        while t <= clip.duration {
            let (wo, wc) =
                (Workspace::at(&walker, Some(clip), t), Workspace::at(&copy, Some(&copy.clips[k]), t));
            let (vo, vc) = (place(&wo), vertices(&wc));
            for (v, &o) in map.iter().enumerate() {
                let d = vc[v].distance(vo[o]) / diag;
                assert!(d <= bound, "vertex {v} at {t}: {d:e} > {bound:e}");
                worst = worst.max(d);
            }
            t += 1.0 / 6.0;
        }
    }
    assert!(worst > 0.0, "quantized positions never come back exact");
}

/// 64-bit FNV-1a, as reference-decode.mjs computes it.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Every compressed view (ATTRIBUTES, TRIANGLES and INDICES; filters NONE, OCTAHEDRAL,
/// QUATERNION, EXPONENTIAL and KHR's COLOR; EXT and KHR) decodes to the bytes meshoptimizer's
/// own JavaScript decoder gave (meshopt-reference.json, from make.sh): exactly, except that
/// the integer results of the OCTAHEDRAL, QUATERNION and COLOR filters may be one unit
/// apart (its SIMD path rounds ties down where its scalar path, which rigscope's decoder
/// follows, rounds them up).
#[test]
fn meshopt_views_decode_to_the_values_meshoptimizer_gives() {
    use base64::Engine as _;
    let text = std::fs::read_to_string(fixture("meshopt-reference.json")).expect("reference");
    let reference: serde_json::Value = serde_json::from_str(&text).expect("json");
    let mut seen = std::collections::BTreeSet::new();
    for (file, views) in reference.as_object().expect("files") {
        let bytes = std::fs::read(fixture(file)).expect("fixture");
        let raw = rigscope::import::load_raw_bytes(&bytes, file, None).unwrap_or_else(|e| panic!("{e}"));
        for (index, want) in views.as_object().expect("views") {
            let view = &raw.json["bufferViews"][index.parse::<usize>().expect("index")];
            let buffer = &raw.buffers[view["buffer"].as_u64().expect("buffer") as usize];
            let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
            let got = &buffer[start..start + view["byteLength"].as_u64().expect("length") as usize];
            let (mode, filter) = (want["mode"].as_str().unwrap_or(""), want["filter"].as_str().unwrap_or(""));
            let at = format!("{file} bufferViews[{index}] ({mode} {filter})");
            seen.insert(format!("{mode} {filter}"));
            let Some(encoded) = want["base64"].as_str() else {
                let hash = u64::from_str_radix(want["fnv1a64"].as_str().expect("hash"), 16).expect("hex");
                assert_eq!(fnv1a64(got), hash, "{at}");
                continue;
            };
            let expected = base64::engine::general_purpose::STANDARD.decode(encoded).expect("base64");
            assert_eq!(got.len(), expected.len(), "{at}");
            let stride = view["byteStride"].as_u64().unwrap_or(0);
            let off_by = |a: i64, b: i64| (a - b).abs();
            let worst = match (filter, stride) {
                ("EXPONENTIAL", _) => i64::from(got != expected.as_slice()),
                ("COLOR", 4) => {
                    got.iter().zip(&expected).map(|(&a, &b)| off_by(a.into(), b.into())).max().unwrap_or(0)
                }
                (_, 4) => got
                    .iter()
                    .zip(&expected)
                    .map(|(&a, &b)| off_by((a as i8).into(), (b as i8).into()))
                    .max()
                    .unwrap_or(0),
                (f, _) => got
                    .chunks_exact(2)
                    .zip(expected.chunks_exact(2))
                    .map(|(a, b)| {
                        let (a, b) = ([a[0], a[1]], [b[0], b[1]]);
                        if f == "COLOR" {
                            off_by(u16::from_le_bytes(a).into(), u16::from_le_bytes(b).into())
                        } else {
                            off_by(i16::from_le_bytes(a).into(), i16::from_le_bytes(b).into())
                        }
                    })
                    .max()
                    .unwrap_or(0),
            };
            assert!(worst <= 1, "{at}: a value is {worst} units off");
        }
    }
    for kind in ["TRIANGLES", "INDICES", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL", "COLOR"] {
        assert!(seen.iter().any(|s| s.contains(kind)), "no {kind} view was checked: {seen:?}");
    }
}

/// A texture whose image is only in EXT_texture_webp (no `source`), which the file
/// requires: rigscope draws no textures, so it loads and poses like the sample.
#[test]
fn a_webp_only_texture_does_not_block_loading() {
    let copy = load(&fixture("seed-arm.webp.glb"));
    let arm = load(Path::new(&super::cli::sample("seed-arm.gltf")));
    assert_eq!(copy.storage.extensions.len(), 1);
    assert_eq!(copy.storage.extensions[0].name, "EXT_texture_webp");
    assert!(copy.storage.extensions[0].required);
    assert_eq!(copy.storage.extensions[0].handling, rigscope::rig::ExtensionHandling::Ignored);
    let (a, b) =
        (Workspace::at(&arm, Some(&arm.clips[1]), 1.3), Workspace::at(&copy, Some(&copy.clips[1]), 1.3));
    assert_eq!(vertices(&a), vertices(&b));
}

/// `inspect --json` lists the file's extensions with what rigscope does with them, and each
/// primitive's stored formats as the file's own JSON declares them (read here directly).
#[test]
fn inspect_shows_extensions_and_stored_formats() {
    let path = fixture("walker.gltfpack-cc.glb");
    let bytes = std::fs::read(&path).expect("fixture");
    let json_len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
    let file: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).expect("json");
    let run = super::cli::rigscope(&["inspect", path.to_str().expect("utf8"), "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("inspect --json");
    assert_eq!(doc["extensions_used"], file["extensionsUsed"]);
    assert_eq!(doc["extensions_required"], file["extensionsRequired"]);
    for e in doc["extensions"].as_array().expect("extensions") {
        assert_eq!((e["required"].as_bool(), e["handling"].as_str()), (Some(true), Some("applied")), "{e}");
    }
    let prim = &doc["meshes"][0]["primitives"][0];
    assert_eq!(prim["compression"], "meshopt");
    let names =
        [(5120, "BYTE"), (5121, "UNSIGNED_BYTE"), (5122, "SHORT"), (5123, "UNSIGNED_SHORT"), (5126, "FLOAT")];
    let declared = &file["meshes"][0]["primitives"][0];
    let mut expected: Vec<(String, usize)> = declared["attributes"]
        .as_object()
        .expect("attributes")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().expect("index") as usize))
        .collect();
    expected.push(("indices".into(), declared["indices"].as_u64().expect("indices") as usize));
    let listed = prim["attributes"].as_array().expect("attributes");
    assert_eq!(listed.len(), expected.len());
    for (name, accessor) in expected {
        let a = &file["accessors"][accessor];
        let got =
            listed.iter().find(|l| l["name"] == name.as_str()).unwrap_or_else(|| panic!("{name} not listed"));
        let component = names.iter().find(|(c, _)| Some(*c) == a["componentType"].as_u64()).map(|(_, n)| *n);
        assert_eq!(got["type"], a["type"], "{name}");
        assert_eq!(got["component"].as_str(), component, "{name}");
        assert_eq!(got["normalized"].as_bool(), Some(a["normalized"].as_bool().unwrap_or(false)), "{name}");
    }
    // The text form says the same in one line per primitive.
    let run = super::cli::rigscope(&["inspect", path.to_str().expect("utf8")]);
    assert!(run.stdout.contains(
        "extensions KHR_mesh_quantization (required, applied), EXT_meshopt_compression (required, applied)"
    ));
    assert!(
        run.stdout.contains(
            "stored (meshopt-compressed): POSITION VEC3 UNSIGNED_SHORT, NORMAL VEC3 BYTE normalized"
        )
    );
    assert!(run.stdout.contains("WEIGHTS_0 VEC4 UNSIGNED_BYTE normalized"));
}

/// For outputs of real rigs made by hand with the tools of make.sh (Fox, CesiumMan, ...), each
/// beside a `.twin.glb` that glTF Transform itself decoded and dequantized to plain floats
/// (meshoptimizer's JavaScript decoder, then `dequantize`): rigscope's poses of the two,
/// node by node and vertex by vertex, over every clip, differ by less than 1e-4 of the bbox
/// diagonal. Set RIGSCOPE_PIPELINE_TWINS to the folder; skipped without it (CI has no node).
#[test]
fn real_pipeline_outputs_pose_like_their_reference_decoding() {
    let Some(dir) = std::env::var_os("RIGSCOPE_PIPELINE_TWINS") else {
        eprintln!(
            "note: skipping the real pipeline outputs: RIGSCOPE_PIPELINE_TWINS is not set (see make.sh)"
        );
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("folder")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "glb") && !p.to_string_lossy().ends_with(".twin.glb"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .glb in {dir:?}");
    for path in files {
        let twin = path.with_extension("twin.glb");
        let (rig, reference) = (load(&path), load(&twin));
        let diag = diagonal(&vertices(&Workspace::new(&reference)));
        let (mut node_err, mut vertex_err) = (0f32, 0f32);
        for (c, clip) in rig.clips.iter().enumerate() {
            for s in 0..=20 {
                let t = clip.duration * s as f32 / 20.0;
                let (a, b) = (
                    Workspace::at(&rig, Some(clip), t),
                    Workspace::at(&reference, Some(&reference.clips[c]), t),
                );
                for (ga, gb) in a.globals.iter().zip(&b.globals) {
                    node_err = node_err.max(ga.w_axis.truncate().distance(gb.w_axis.truncate()) / diag);
                }
                for (va, vb) in vertices(&a).iter().zip(&vertices(&b)) {
                    vertex_err = vertex_err.max(va.distance(*vb) / diag);
                }
            }
        }
        eprintln!("{}: nodes {node_err:.1e}, vertices {vertex_err:.1e} of the bbox diagonal", path.display());
        assert!(node_err < 1e-4 && vertex_err < 1e-4, "{}", path.display());
    }
}

/// `gltfpack -c -cf`: the compressed views' own buffer (a fallback file) holds the same data
/// uncompressed. rigscope reads the fallback then, and decodes only when it is missing.
#[test]
fn a_fallback_buffer_with_data_is_used_and_decoding_replaces_a_missing_one() {
    let arm = load(Path::new(&super::cli::sample("seed-arm.gltf")));
    let with_fallback = load(&fixture("seed-arm.gltfpack-cf.gltf"));
    compare(&arm, &with_fallback, &GLTFPACK);

    let (_guard, dir) = super::temp::folder("fallback");
    let name = "seed-arm.gltfpack-cf";
    let text = std::fs::read_to_string(fixture(&format!("{name}.gltf"))).expect("gltf");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    // Compressed streams garbled: a loader that decoded them would fail or get other values.
    let mut compressed = std::fs::read(fixture(&format!("{name}.bin"))).expect("bin");
    for view in doc["bufferViews"].as_array().expect("views") {
        let Some(ext) = view["extensions"].get("EXT_meshopt_compression") else { continue };
        let start = ext["byteOffset"].as_u64().unwrap_or(0) as usize;
        let end = start + ext["byteLength"].as_u64().expect("length") as usize;
        compressed[start..end].iter_mut().for_each(|b| *b = 0xA5);
    }
    std::fs::write(dir.join(format!("{name}.gltf")), &text).expect("write");
    std::fs::write(dir.join(format!("{name}.bin")), &compressed).expect("write");
    std::fs::copy(fixture(&format!("{name}.fallback.bin")), dir.join(format!("{name}.fallback.bin")))
        .expect("copy");
    let garbled = load(&dir.join(format!("{name}.gltf")));
    let pose = |rig: &Rig| vertices(&Workspace::at(rig, Some(&rig.clips[1]), 1.3));
    assert_eq!(pose(&garbled), pose(&with_fallback));

    // Without the fallback file, the (intact) streams are decoded instead.
    std::fs::copy(fixture(&format!("{name}.bin")), dir.join(format!("{name}.bin"))).expect("copy");
    std::fs::remove_file(dir.join(format!("{name}.fallback.bin"))).expect("remove");
    let decoded = load(&dir.join(format!("{name}.gltf")));
    compare(&arm, &decoded, &GLTFPACK);
}

/// A quantizer folds the dequantization into the inverse bind matrices, so the whole skin
/// differs from its rest pose by that transform: `check` does not report it as a finding.
#[test]
fn check_does_not_report_the_dequantization_as_a_bind_mismatch() {
    for name in ["walker.gltfpack.glb", "walker.quantize.glb", "walker.gltfpack-cc.glb"] {
        let path = fixture(name);
        let run = super::cli::rigscope(&["check", path.to_str().expect("utf8"), "--json"]);
        assert!(!run.stdout.contains("RIG_IBM_BIND_MISMATCH"), "{name}: {}", run.stdout);
        assert!(
            run.stdout.contains("\"errors\": 0") || run.stdout.contains("\"errors\":0"),
            "{name}: {}",
            run.stdout
        );
    }
}
