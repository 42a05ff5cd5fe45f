//! Draco fixtures (glTF Transform's `draco` run over the project's own samples, see
//! tests/fixtures/pipeline/draco-normalize-make.sh) pose like the samples they were made from, within what
//! Draco's quantization allows. Draco reorders vertices, so each decoded vertex is first
//! matched to the sample's vertex it came from; the tolerance is derived from the
//! quantization bits the fixtures were made with and the sample's bounding box.

use glam::{Mat4, Vec3};
use rigscope::anim::Workspace;
use rigscope::rig::Rig;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// The bits draco-normalize-make.sh passes: `--quantize-position 14 --quantize-generic 12` (weights are a
/// generic attribute; joints are integers, which Draco stores losslessly).
const POSITION_BITS: i32 = 14;
const GENERIC_BITS: i32 = 12;

const PAIRS: &[(&str, &str)] = &[
    ("draco-walker.glb", "walker.glb"),
    ("draco-tentacle-sequential.glb", "tentacle.glb"),
    ("draco-tentacle-valence.glb", "tentacle.glb"),
];

fn path(folder: &str, name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(folder).join(name)
}

fn load(path: PathBuf) -> Rig {
    rigscope::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Half a quantization step of `bits` over `range`: Draco rounds to the nearest step.
fn half_step(range: f32, bits: i32) -> f32 {
    range / (2f32.powi(bits) - 1.0) / 2.0
}

/// For each decoded vertex, the sample vertex it came from: within half a position step
/// per axis, with the same joints and weights within half a generic step; among several
/// (seams share positions), the one with the nearest normal.
fn correspondence(sample: &Rig, decoded: &Rig, e_pos: f32, e_w: f32) -> Vec<usize> {
    let (a, b) = (&sample.meshes[0].primitives[0], &decoded.meshes[0].primitives[0]);
    let (sa, sb) = (&a.influences[0], &b.influences[0]);
    let cell = 4.0 * e_pos;
    let key = |p: Vec3| (p / cell).floor().as_ivec3();
    let mut grid: HashMap<glam::IVec3, Vec<usize>> = HashMap::new();
    for (i, &p) in a.positions.iter().enumerate() {
        grid.entry(key(p)).or_default().push(i);
    }
    let slop = 1e-6;
    let mut out = Vec::with_capacity(b.positions.len());
    for (v, &q) in b.positions.iter().enumerate() {
        let k = key(q);
        let mut best: Option<(f32, usize)> = None;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    for &i in grid.get(&(k + glam::IVec3::new(dx, dy, dz))).into_iter().flatten() {
                        let near = (a.positions[i] - q).abs().max_element() <= e_pos + slop;
                        let joints = sa.joints[i] == sb.joints[v];
                        let weights = sa.weights[i]
                            .iter()
                            .zip(&sb.weights[v])
                            .all(|(x, y)| (x - y).abs() <= e_w + slop);
                        if near && joints && weights {
                            let d = match (&a.normals, &b.normals) {
                                (Some(na), Some(nb)) => na[i].distance(nb[v]),
                                _ => 0.0,
                            };
                            if best.is_none_or(|(bd, _)| d < bd) {
                                best = Some((d, i));
                            }
                        }
                    }
                }
            }
        }
        let (_, i) = best.unwrap_or_else(|| panic!("decoded vertex {v} at {q} matches no sample vertex"));
        out.push(i);
    }
    out
}

/// The triangles as sets of three vertices (in `map`'s numbering), orientation kept.
/// Degenerate ones (two corners the same) are left out: the Draco encoder drops them, and
/// they cover nothing.
fn triangles(indices: &[u32], map: impl Fn(u32) -> usize) -> HashSet<[usize; 3]> {
    indices
        .chunks_exact(3)
        .map(|t| [map(t[0]), map(t[1]), map(t[2])])
        .filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
        .map(|t| {
            // The same triangle may start at any corner.
            let r = (0..3).min_by_key(|&k| t[k]).unwrap_or(0);
            [t[r], t[(r + 1) % 3], t[(r + 2) % 3]]
        })
        .collect()
}

/// Largest operator-norm bound of the linear part: the Frobenius norm.
fn linear_norm(m: &Mat4) -> f32 {
    (m.x_axis.truncate().length_squared()
        + m.y_axis.truncate().length_squared()
        + m.z_axis.truncate().length_squared())
    .sqrt()
}

#[test]
fn draco_fixtures_pose_like_their_samples_within_the_quantization_step() {
    for &(fixture, sample_name) in PAIRS {
        let sample = load(path("samples", sample_name));
        let decoded = load(path("tests/fixtures/pipeline", fixture));
        let a = &sample.meshes[0].primitives[0];
        let b = &decoded.meshes[0].primitives[0];
        let (lo, hi) = a.positions.iter().fold((Vec3::MAX, Vec3::MIN), |(l, h), p| (l.min(*p), h.max(*p)));
        let diagonal = (hi - lo).length();
        // Draco quantizes every axis over the largest extent of the box.
        let e_pos = half_step((hi - lo).max_element(), POSITION_BITS);
        let weights = a.influences[0].weights.iter().flatten();
        let (wl, wh) = weights.fold((f32::MAX, f32::MIN), |(l, h), &w| (l.min(w), h.max(w)));
        let e_w = half_step(wh - wl, GENERIC_BITS);

        let map = correspondence(&sample, &decoded, e_pos, e_w);
        assert_eq!(b.positions.len(), a.positions.len(), "{fixture}: vertex count");
        // Triangles compared by corner positions: seam vertices share a position, and which
        // twin a decoded vertex matched does not matter.
        let mut ids: HashMap<[u32; 3], usize> = HashMap::new();
        let at: Vec<usize> = a
            .positions
            .iter()
            .map(|p| {
                let n = ids.len();
                *ids.entry(p.to_array().map(f32::to_bits)).or_insert(n)
            })
            .collect();
        let sample_tris = triangles(a.indices.as_deref().expect("indexed"), |i| at[i as usize]);
        let decoded_tris = triangles(b.indices.as_deref().expect("indexed"), |i| at[map[i as usize]]);
        let missing = sample_tris.symmetric_difference(&decoded_tris).count();
        assert_eq!(missing, 0, "{fixture}: {missing} triangles differ");

        let mut worst = 0.0f32;
        for (c, clip) in sample.clips.iter().enumerate() {
            for k in 0..=8 {
                let t = clip.duration * k as f32 / 8.0;
                let ws_a = Workspace::at(&sample, Some(clip), t);
                let ws_b = Workspace::at(&decoded, decoded.clips.get(c), t);
                let skin = ws_a.primitives[0].skin.expect("skinned");
                let joints = &ws_a.joint_matrices[skin];
                let (pa, pb) = (&ws_a.primitives[0].positions, &ws_b.primitives[0].positions);
                for (v, &i) in map.iter().enumerate() {
                    // p' = sum w_k J_k p: a position error e moves it by at most
                    // sum w_k |J_k| e, a weight error d by at most sum d |J_k p|.
                    let (js, ws) = (&a.influences[0].joints[i], &a.influences[0].weights[i]);
                    let mut bound = 0.0;
                    for (&j, &w) in js.iter().zip(ws) {
                        let m = &joints[usize::from(j)];
                        bound += w.abs() * linear_norm(m) * e_pos * 3f32.sqrt()
                            + e_w * m.transform_point3(a.positions[i]).length();
                    }
                    let diff = pa[i].distance(pb[v]);
                    assert!(
                        diff <= bound * 1.001 + 1e-6,
                        "{fixture} clip {c} t {t}: vertex {v} (sample {i}) off by {diff}, bound {bound}"
                    );
                    worst = worst.max(diff / diagonal);
                }
            }
        }
        // Measured: 4.9e-5 (walker) and 1.1e-4 (tentacle) of the diagonal, mostly from the
        // 12-bit weights; the per-vertex bound above is the real check.
        assert!(worst < 2e-4, "{fixture}: {worst} of the diagonal");
    }
}

/// Google's own decoder (draco3dgltf, through glTF Transform; see draco-normalize-make.sh) wrote the
/// reference: rigscope's decoding gives the very same vertices, in the same order.
#[test]
fn draco_decoding_matches_the_reference_decoder_bit_for_bit() {
    let dir = "tests/fixtures/pipeline";
    let decoded = load(path(dir, "draco-tentacle-valence.glb"));
    let reference = load(path(dir, "draco-tentacle-valence.reference.glb"));
    let (a, b) = (&decoded.meshes[0].primitives[0], &reference.meshes[0].primitives[0]);
    let bits = |v: &[Vec3]| v.iter().map(|p| p.to_array().map(f32::to_bits)).collect::<Vec<_>>();
    assert_eq!(bits(&a.positions), bits(&b.positions));
    assert_eq!(a.normals.as_deref().map(bits), b.normals.as_deref().map(bits));
    assert_eq!(a.indices, b.indices);
    let (sa, sb) = (&a.influences[0], &b.influences[0]);
    assert_eq!(sa.joints, sb.joints);
    let weight_bits = |w: &[[f32; 4]]| w.iter().map(|x| x.map(f32::to_bits)).collect::<Vec<_>>();
    assert_eq!(weight_bits(&sa.weights), weight_bits(&sb.weights));
}

/// Draco's 12-bit weights miss the validator's sum tolerance once decoded; `check` reports
/// them as the validator reports the same decoded data stored plainly (Google's decoder's
/// output): the same count, all errors (issue 37), each message naming Draco.
#[test]
fn draco_quantised_weight_sums_are_errors_as_on_the_decoded_copy() {
    let check = |name: &str| {
        let file = path("tests/fixtures/pipeline", name).display().to_string();
        let run = super::cli::rigscope(&["check", &file, "--json"]);
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("check --json");
        (run.code, doc)
    };
    let (code, doc) = check("draco-tentacle-valence.glb");
    let sums: Vec<&serde_json::Value> = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == "ACCESSOR_WEIGHTS_NON_NORMALIZED")
        .collect();
    assert!(!sums.is_empty());
    for f in &sums {
        assert_eq!(f["severity"], "error");
        assert!(f["message"].as_str().is_some_and(|m| m.contains("Draco")), "{f}");
    }
    assert_eq!((code, doc["errors"].as_u64()), (1, Some(sums.len() as u64)));
    let (code, plain) = check("draco-tentacle-valence.reference.glb");
    assert_eq!((code, plain["errors"].as_u64()), (1, Some(sums.len() as u64)));
}

/// `inspect` says the primitive came Draco-compressed and that the extension was applied.
#[test]
fn inspect_says_the_primitive_came_draco_compressed() {
    let file = path("tests/fixtures/pipeline", "draco-walker.glb").display().to_string();
    let run = super::cli::rigscope(&["inspect", &file, "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("inspect --json");
    assert_eq!(doc["meshes"][0]["primitives"][0]["compression"], "draco");
    let ext = &doc["extensions"][0];
    assert_eq!(
        (ext["name"].as_str(), ext["handling"].as_str()),
        (Some("KHR_draco_mesh_compression"), Some("applied"))
    );
}
