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
        let (node, vertex) = compare(&walker, &copy, budget);
        // Quantized positions never come back exact: a zero would mean nothing was compared.
        assert!(node < 1e-2 && vertex > 0.0, "{name}: {node:e} {vertex:e}");
    }
}
