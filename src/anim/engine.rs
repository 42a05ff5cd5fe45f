//! Engine profiles: what each runtime users ship to does with a vertex's skin influences
//! between the file and the draw (which sets it reads, whether it renormalises, how many
//! influences it keeps, how it quantises), as a pure function from the stored influences to
//! the ones that engine skins with. `Stored` (the file as written, every set) is the default
//! everywhere and is the identity.
//!
//! Each profile follows the engine's own source (or, where that is not public, its
//! documentation); docs/engines.md cites file and function for every rule below. Where an
//! engine's behaviour depends on a setting, each value is its own profile (`unity-gltfast`
//! is Unity's default 4 bones, `unity-gltfast-2bones` its 2-bone quality level, ...).
//!
//! Besides the weights, an engine may do something else with a vertex (`Fate`): Babylon.js
//! divides the skinned position by the weights' sum, Blender leaves a vertex of almost no
//! weight undeformed, and a NaN weight an engine keeps makes the vertex vanish. `drawn_point`
//! states each fate once, for the workspace that draws and for `check` that measures.
//!
//! Lives in `anim` because skinning is where it applies: `Workspace::set_engine` swaps a
//! primitive's influences for the profile's before skinning, and applies the fates after.

use std::borrow::Cow;

use glam::{Mat4, Vec3};

use crate::rig::{InfluenceSet, Primitive, Rig, WeightStorage};

/// A runtime whose treatment of skin weights rigscope reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Engine {
    /// The file as written: every influence set, weights as stored (the glTF spec's rule).
    #[default]
    Stored,
    /// three.js r187 (`GLTFLoader` + `SkinnedMesh`).
    Three,
    /// Babylon.js glTF 2.0 loader.
    Babylon,
    /// Unity with glTFast, at a quality level's skin weights (1, 2 or 4 bones; "unlimited"
    /// draws like 4 because glTFast reads only `JOINTS_0`/`WEIGHTS_0`).
    GlTfast { bones: u8 },
    /// Unity with UnityGLTF (Khronos), at a quality level's skin weights.
    UnityGltf { bones: u8 },
    /// Unreal Engine's glTF importer: at most 12 influences, weights quantised to `bits` bits
    /// (8 by default, 16 with high-precision skin weights).
    Unreal { bits: u8 },
    /// Godot 4's glTF importer.
    Godot,
    /// Blender's glTF importer (glTF-Blender-IO) and its armature deform.
    Blender,
}

impl Engine {
    /// Every profile, in the order `help` and the viewer list them.
    pub const ALL: &[Engine] = &[
        Engine::Stored,
        Engine::Three,
        Engine::Babylon,
        Engine::GlTfast { bones: 4 },
        Engine::GlTfast { bones: 2 },
        Engine::GlTfast { bones: 1 },
        Engine::UnityGltf { bones: 4 },
        Engine::UnityGltf { bones: 2 },
        Engine::UnityGltf { bones: 1 },
        Engine::Unreal { bits: 8 },
        Engine::Unreal { bits: 16 },
        Engine::Godot,
        Engine::Blender,
    ];

    /// The name the command line takes (`--engine NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Stored => "stored",
            Engine::Three => "three",
            Engine::Babylon => "babylon",
            Engine::GlTfast { bones: 1 } => "unity-gltfast-1bone",
            Engine::GlTfast { bones: 2 } => "unity-gltfast-2bones",
            Engine::GlTfast { .. } => "unity-gltfast",
            Engine::UnityGltf { bones: 1 } => "unity-gltf-1bone",
            Engine::UnityGltf { bones: 2 } => "unity-gltf-2bones",
            Engine::UnityGltf { .. } => "unity-gltf",
            Engine::Unreal { bits: 16 } => "unreal-16bit",
            Engine::Unreal { .. } => "unreal",
            Engine::Godot => "godot",
            Engine::Blender => "blender",
        }
    }

    /// The profile a command-line name means: every `name()`, plus the Unity quality levels
    /// that draw like the default (`-4bones`, `-unlimited`). Case-insensitive.
    pub fn from_name(name: &str) -> Option<Engine> {
        let name = name.trim().to_ascii_lowercase();
        let alias = match name.as_str() {
            "three.js" | "threejs" => Some(Engine::Three),
            "unity-gltfast-4bones" | "unity-gltfast-unlimited" => Some(Engine::GlTfast { bones: 4 }),
            "unity-gltf-4bones" | "unity-gltf-unlimited" => Some(Engine::UnityGltf { bones: 4 }),
            "unreal-8bit" => Some(Engine::Unreal { bits: 8 }),
            _ => None,
        };
        alias.or_else(|| Engine::ALL.iter().copied().find(|e| e.name() == name))
    }

    /// How reports and the viewer name the profile.
    pub fn label(self) -> &'static str {
        match self {
            Engine::Stored => "stored weights",
            Engine::Three => "three.js r187",
            Engine::Babylon => "Babylon.js",
            Engine::GlTfast { bones: 1 } => "Unity glTFast, 1 bone",
            Engine::GlTfast { bones: 2 } => "Unity glTFast, 2 bones",
            Engine::GlTfast { .. } => "Unity glTFast",
            Engine::UnityGltf { bones: 1 } => "UnityGLTF, 1 bone",
            Engine::UnityGltf { bones: 2 } => "UnityGLTF, 2 bones",
            Engine::UnityGltf { .. } => "UnityGLTF",
            Engine::Unreal { bits: 16 } => "Unreal, 16-bit weights",
            Engine::Unreal { .. } => "Unreal",
            Engine::Godot => "Godot 4",
            Engine::Blender => "Blender",
        }
    }

    /// One line on what the profile does, for help and reports.
    pub fn summary(self) -> &'static str {
        match self {
            Engine::Stored => "every influence set, weights exactly as stored (the glTF rule)",
            Engine::Three => {
                "set 0 only; every vertex's 4 weights divided by their sum (all zero: 1 on the first)"
            }
            Engine::Babylon => {
                "sets 0 and 1 (8 influences), weights as stored; the position divided by their sum (sum 0 or NaN: not drawn)"
            }
            Engine::GlTfast { bones: 4 } => "set 0 only, weights as stored (quality 4 bones or unlimited)",
            Engine::GlTfast { .. } => "set 0 only; the largest weights kept and divided by their sum",
            Engine::UnityGltf { bones: 4 } => "set 0 only; the 4 weights divided by their sum",
            Engine::UnityGltf { .. } => {
                "set 0 only, divided by its sum; Unity keeps the largest and rescales them"
            }
            Engine::Unreal { bits: 16 } => {
                "every set; the 12 largest kept, divided by their sum, 16-bit weights"
            }
            Engine::Unreal { .. } => "every set; the 12 largest kept, divided by their sum, 8-bit weights",
            Engine::Godot => "sets 0 and 1; weights divided by their sum, stored as 16-bit",
            Engine::Blender => {
                "every set as vertex groups (NaN as 0); the armature divides by the total, leaves a vertex of total <= 1e-4 undeformed; refuses a joint index out of range"
            }
        }
    }

    /// How many 4-slot sets the engine skins with for a primitive that stores `stored`.
    pub fn drawn_sets(self, stored: usize) -> usize {
        match self {
            Engine::Stored | Engine::Blender => stored,
            Engine::Three | Engine::GlTfast { .. } | Engine::UnityGltf { .. } => stored.min(1),
            Engine::Babylon | Engine::Godot => stored.min(2),
            Engine::Unreal { .. } => stored.min(UNREAL_MAX_INFLUENCES / 4),
        }
    }
}

/// Unreal Engine 5's `MAX_TOTAL_INFLUENCES`.
const UNREAL_MAX_INFLUENCES: usize = 12;

/// Blender's armature modifier deforms a vertex only when its groups' total weight is above
/// this (`armature_deform.cc`, `armature_vert_task_with_dvert`: `if (contrib > 0.0001f)`).
const BLENDER_MIN_CONTRIBUTION: f32 = 1e-4;

/// What an engine does with a vertex besides the weights it gives the joints.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fate {
    /// Skinned with the engine's slots (`sum w_i J_i p`).
    Skinned,
    /// Skinned with the slots, then divided by this, the sum of the weights (Babylon.js: the
    /// w of its summed skinning matrix). A sum of 0 or NaN leaves no position.
    Divided(f32),
    /// Left where the bind pose puts it, whatever the joints do (Blender, total weight at most
    /// `BLENDER_MIN_CONTRIBUTION`).
    Undeformed,
    /// Skinned with the slots from the origin of bind space, not from its own position:
    /// Blender's importer loses the position of a vertex whose weights' sum is NaN or
    /// overflows (it divides by that sum while moving the mesh into its bind pose).
    FromOrigin,
    /// Drawn at NaN (a NaN weight the engine multiplies in): its triangles are not drawn.
    Vanishes,
}

/// The point an engine skins for a vertex at `p` (morphed) of `fate`.
pub fn skinned_input(fate: Fate, p: Vec3) -> Vec3 {
    if fate == Fate::FromOrigin { Vec3::ZERO } else { p }
}

/// Where an engine draws a vertex of `fate`, from where the kernel skins `skinned_input` with
/// the engine's slots (`skinned`), the unskinned (morphed) position, and where the rig draws
/// the bind pose (`placement`, `RestBind::placement`). The one statement of each fate, for the
/// workspace and for `check`'s measure alike. NaN where the engine gives no position.
pub fn drawn_point(fate: Fate, skinned: Vec3, unskinned: Vec3, placement: &Mat4) -> Vec3 {
    match fate {
        Fate::Skinned | Fate::FromOrigin => skinned,
        Fate::Divided(sum) if sum != 0.0 && sum.is_finite() => skinned / sum,
        Fate::Divided(_) | Fate::Vanishes => Vec3::NAN,
        Fate::Undeformed => placement.transform_point3(unskinned),
    }
}

/// The influences an engine skins a primitive with, and the vertices it treats otherwise.
#[derive(Debug, Clone)]
pub struct Drawn<'a> {
    /// As many sets as `Engine::drawn_sets` says, 4 slots each (unused slots joint 0 weight
    /// 0); borrowed unchanged where the engine keeps the stored weights.
    pub sets: Cow<'a, [InfluenceSet]>,
    /// `(vertex, fate)` of every vertex whose fate is not `Fate::Skinned`, ascending.
    pub fates: Vec<(usize, Fate)>,
}

/// The influences `engine` skins `prim` with, for a skin of `joints` joints.
pub fn drawn_influences(engine: Engine, prim: &Primitive, joints: usize) -> Drawn<'_> {
    if prim.influences.is_empty() {
        return Drawn { sets: Cow::Borrowed(&prim.influences), fates: Vec::new() };
    }
    let count = engine.drawn_sets(prim.influences.len());
    let vertices = prim.influences.iter().map(|s| s.joints.len().min(s.weights.len())).min().unwrap_or(0);
    let keeps_weights = matches!(engine, Engine::Stored | Engine::Babylon);
    let mut fates = Vec::new();
    let mut slots = Vec::with_capacity(4 * count);
    if keeps_weights {
        for v in 0..vertices {
            match drawn_vertex(engine, &prim.influences, v, joints, &mut slots) {
                Fate::Skinned => {}
                fate => fates.push((v, fate)),
            }
        }
        let sets = match count == prim.influences.len() {
            true => Cow::Borrowed(prim.influences.as_slice()),
            false => Cow::Owned(prim.influences[..count].to_vec()),
        };
        return Drawn { sets, fates };
    }
    let mut joint_rows: Vec<Vec<[u16; 4]>> = vec![Vec::with_capacity(vertices); count];
    let mut weight_rows: Vec<Vec<[f32; 4]>> = vec![Vec::with_capacity(vertices); count];
    for v in 0..vertices {
        match drawn_vertex(engine, &prim.influences, v, joints, &mut slots) {
            Fate::Skinned => {}
            fate => fates.push((v, fate)),
        }
        for (s, chunk) in slots.chunks_exact(4).enumerate() {
            joint_rows[s].push([chunk[0].0, chunk[1].0, chunk[2].0, chunk[3].0]);
            weight_rows[s].push([chunk[0].1, chunk[1].1, chunk[2].1, chunk[3].1]);
        }
    }
    let sets = joint_rows
        .into_iter()
        .zip(weight_rows)
        .enumerate()
        .map(|(s, (j, w))| {
            let like = prim.influences.get(s).unwrap_or(&prim.influences[0]);
            InfluenceSet {
                set: s,
                joints: j.into(),
                weights: w.into(),
                weight_storage: like.weight_storage,
                joints_accessor: like.joints_accessor,
                weights_accessor: like.weights_accessor,
            }
        })
        .collect();
    Drawn { sets: Cow::Owned(sets), fates }
}

/// Vertex `v`'s influences as `engine` skins them, into `out`: exactly
/// `4 * engine.drawn_sets(sets.len())` slots `(joint, weight)`, set by set, for a skin of
/// `joints` joints; and what else the engine does with the vertex. Joint indices are passed
/// through (an out-of-range one stays a skipped influence, as in stored skinning). A weight
/// the engine keeps but is not finite is multiplied in by its GPU: the vertex vanishes.
pub fn drawn_vertex(
    engine: Engine,
    sets: &[InfluenceSet],
    v: usize,
    joints: usize,
    out: &mut Vec<(u16, f32)>,
) -> Fate {
    out.clear();
    let count = engine.drawn_sets(sets.len());
    for set in &sets[..count] {
        match (set.joints.get(v), set.weights.get(v)) {
            (Some(j), Some(w)) => out.extend(j.iter().copied().zip(w.iter().copied())),
            _ => out.extend([(0, 0.0); 4]),
        }
    }
    let storage = sets.first().map_or(WeightStorage::F32, |s| s.weight_storage);
    match engine {
        Engine::Stored => return Fate::Skinned,
        Engine::Babylon => return babylon(out, joints),
        Engine::Blender => return blender(out),
        Engine::Three => three(out, storage),
        Engine::GlTfast { bones } => gltfast(out, bones),
        Engine::UnityGltf { bones } => unity_gltf(out, bones),
        Engine::Unreal { bits } => unreal(out, bits),
        Engine::Godot => godot(out),
    }
    if out.iter().any(|s| !s.1.is_finite()) { Fate::Vanishes } else { Fate::Skinned }
}

impl Engine {
    /// Why the engine would not load `rig` at all, if it would not: Blender's glTF importer
    /// stops on a joint index past the skin's joints (`blender/imp/mesh.py`,
    /// `skin_into_bind_pose`: `joint_mats[js[:, i]]` over every slot raises `IndexError`,
    /// whatever the slot's weight). `None` for every other engine and rig.
    pub fn refusal(self, rig: &Rig) -> Option<String> {
        if self != Engine::Blender {
            return None;
        }
        for node in &rig.nodes {
            let (Some(m), Some(s)) = (node.mesh, node.skin) else { continue };
            let (Some(mesh), Some(skin)) = (rig.meshes.get(m), rig.skins.get(s)) else { continue };
            for (p, prim) in mesh.primitives.iter().enumerate() {
                for set in &prim.influences {
                    let bad = set.joints.iter().enumerate().find_map(|(v, j)| {
                        j.iter().find(|&&j| usize::from(j) >= skin.joints.len()).map(|&j| (v, j))
                    });
                    if let Some((v, j)) = bad {
                        return Some(format!(
                            "its importer stops at JOINTS_{} of mesh {m} primitive {p}: vertex {v} names joint {j} of a \
                             skin with {} joints",
                            set.set,
                            skin.joints.len()
                        ));
                    }
                }
            }
        }
        None
    }
}

/// Babylon.js 9.35 (glTF loader 9.28): sets 0 and 1 (`glTFLoader._loadVertexDataAsync` reads
/// `JOINTS_0/WEIGHTS_0` and `JOINTS_1/WEIGHTS_1` and no more), weights as stored. Its skinning
/// shader (`bonesVertex.fx`: `influence = sum mBones[j] * w`, then `finalWorld * influence *
/// vec4(position, 1)`) and its CPU path (`Mesh.applySkeleton`, then
/// `Vector3.TransformCoordinatesFromFloatsToRef`) both divide the position by the w of the
/// summed matrix, which is the sum of the weights of joints the skeleton has: the vertex is
/// drawn as if its weights were renormalised, and not at all when they sum to 0 or NaN.
fn babylon(slots: &[(u16, f32)], joints: usize) -> Fate {
    let sum = slots.iter().filter(|s| usize::from(s.0) < joints).fold(0.0f32, |sum, s| sum + s.1);
    if sum == 1.0 { Fate::Skinned } else { Fate::Divided(sum) }
}

/// three.js r187: `GLTFLoader` (`loadMesh`) calls `SkinnedMesh.normalizeSkinWeights` on every
/// skinned mesh: `scale = 1 / manhattanLength()` over the 4 weights (JS doubles, read through
/// `fromBufferAttribute`, so integer weights as `c / 255` or `c / 65535`); when `scale` is
/// infinite the weights become `(1, 0, 0, 0)`; `setXYZW` writes them back (f32, or
/// `Math.round(w * 255)` for normalised integers).
fn three(slots: &mut [(u16, f32)], storage: WeightStorage) {
    let scale_of = match storage {
        WeightStorage::F32 => None,
        WeightStorage::U8Norm => Some(255.0f64),
        WeightStorage::U16Norm => Some(65535.0f64),
    };
    // What `getX` returns: the f32 itself, or the integer code over its scale in f64.
    let read = |w: f32| match scale_of {
        None => f64::from(w),
        Some(s) => ((f64::from(w) * s).round() / s).max(-1.0),
    };
    // What `setXYZW` then `getX` give back.
    let write = |x: f64| match scale_of {
        None => x as f32,
        Some(s) => ((x * s + 0.5).floor() / s) as f32,
    };
    let manhattan = slots.iter().fold(0.0f64, |sum, &(_, w)| sum + read(w).abs());
    let scale = 1.0 / manhattan;
    if scale == f64::INFINITY {
        for (i, slot) in slots.iter_mut().enumerate() {
            slot.1 = write(if i == 0 { 1.0 } else { 0.0 });
        }
    } else {
        for slot in slots.iter_mut() {
            slot.1 = write(read(slot.1) * scale);
        }
    }
}

/// Unity glTFast (`VertexBufferBones.ScheduleVertexBonesJob`): with the quality level's
/// `skinWeights` below 4, `SortAndNormalizeBoneWeightsJob` selection-sorts the first
/// `skinWeights` slots by weight and divides them by their (f32) sum when it is positive and
/// more than 2e-7 from 1; at 4 bones and above (a player build) nothing runs. Unity then
/// skins with the first `skinWeights` slots.
fn gltfast(slots: &mut [(u16, f32)], bones: u8) {
    let n = usize::from(bones).min(slots.len());
    if n >= 4 || slots.len() < 4 {
        return;
    }
    let sorted = (0..3).all(|i| slots[i].1 >= slots[i + 1].1);
    if !sorted {
        for i in 0..n {
            let (mut max, mut at) = (slots[i].1, i);
            for (j, slot) in slots.iter().enumerate().take(4).skip(i + 1) {
                if slot.1 > max {
                    max = slot.1;
                    at = j;
                }
            }
            if at > i {
                slots.swap(at, i);
            }
        }
    }
    let sum = slots[..n].iter().fold(0.0f32, |s, &(_, w)| s + w);
    if (sum - 1.0).abs() > 2e-7 && sum > 0.0 {
        for slot in &mut slots[..n] {
            slot.1 /= sum;
        }
    }
    unity_quality(slots, n);
}

/// UnityGLTF (`ImporterSkinning.CreateBoneWeightArray`): the 4 weights divided by their f32
/// sum unless `Mathf.Approximately(sum, 0)`; then Unity's quality level keeps the `bones`
/// largest and rescales them to sum 1 (Unity's documented behaviour; its code is not public).
fn unity_gltf(slots: &mut [(u16, f32)], bones: u8) {
    let sum = slots.iter().fold(0.0f32, |s, &(_, w)| s + w);
    if !approximately(sum, 0.0) {
        for slot in slots.iter_mut() {
            slot.1 /= sum;
        }
    }
    let n = usize::from(bones);
    if n < slots.len() {
        // Stable: equal weights keep their slot order.
        slots.sort_by(|a, b| b.1.total_cmp(&a.1));
        let kept = slots[..n].iter().fold(0.0f32, |s, &(_, w)| s + w);
        if kept > 0.0 {
            for slot in &mut slots[..n] {
                slot.1 /= kept;
            }
        }
        unity_quality(slots, n);
    }
}

/// Unity skins with the first `n` slots only: the others weigh nothing.
fn unity_quality(slots: &mut [(u16, f32)], n: usize) {
    for slot in slots.iter_mut().skip(n) {
        *slot = (0, 0.0);
    }
}

/// `Mathf.Approximately`: `|b - a| < max(1e-6 * max(|a|, |b|), Mathf.Epsilon * 8)`.
fn approximately(a: f32, b: f32) -> bool {
    const EPSILON: f32 = f32::from_bits(1); // 1.4e-45, the smallest subnormal
    (b - a).abs() < (1e-6 * a.abs().max(b.abs())).max(EPSILON * 8.0)
}

/// Unreal's skeletal mesh build: influences sorted by weight, at most
/// `MAX_TOTAL_INFLUENCES` (12) kept, renormalised, then quantised to 8 (default) or 16 bits
/// with the rounding remainder given to the largest, so the codes sum to 255 / 65535 exactly.
/// A vertex with no positive weight goes wholly to the root joint (index 0).
fn unreal(slots: &mut [(u16, f32)], bits: u8) {
    let max = if bits == 16 { 65535.0f64 } else { 255.0f64 };
    let mut kept: Vec<(u16, f64)> =
        slots.iter().filter(|s| s.1 > 0.0 && s.1.is_finite()).map(|&(j, w)| (j, f64::from(w))).collect();
    kept.sort_by(|a, b| b.1.total_cmp(&a.1));
    kept.truncate(UNREAL_MAX_INFLUENCES.min(slots.len()));
    let sum: f64 = kept.iter().map(|k| k.1).sum();
    if kept.is_empty() || sum <= 0.0 {
        kept = vec![(0, 1.0)];
    }
    let sum: f64 = kept.iter().map(|k| k.1).sum();
    let mut codes: Vec<f64> = kept.iter().map(|k| (k.1 / sum * max).round()).collect();
    let total: f64 = codes.iter().sum();
    codes[0] += max - total;
    for (i, slot) in slots.iter_mut().enumerate() {
        *slot = match kept.get(i) {
            Some(&(j, _)) => (j, (codes[i] / max) as f32),
            None => (0, 0.0),
        };
    }
}

/// Godot 4 (`GLTFDocument::_parse_meshes`): 4 weights (8 with `WEIGHTS_1`) divided by their
/// f32 sum when it is positive; `RenderingServer` then stores each as
/// `uint16(CLAMP(w * 65535, 0, 65535))`, which the skinning shader reads back as `q / 65535`.
fn godot(slots: &mut [(u16, f32)]) {
    let total = slots.iter().fold(0.0f32, |s, &(_, w)| s + w);
    if total > 0.0 {
        for slot in slots.iter_mut() {
            slot.1 /= total;
        }
    }
    for slot in slots.iter_mut() {
        let q = (slot.1 * 65535.0).clamp(0.0, 65535.0).trunc();
        slot.1 = q / 65535.0;
    }
}

/// Blender 4.5 (glTF-Blender-IO `blender/imp/mesh.py`, then the armature modifier). Import,
/// `skin_into_bind_pose`: the f32 sum of every slot's weight, set by set; a vertex whose sum is
/// exactly 0 gets weight 1 on its first slot; one whose sum is NaN or overflows loses its
/// position (divided by that sum, it is stored at the origin). Then every non-zero weight is
/// added to its joint's vertex group with 'REPLACE' (a repeated joint keeps its last weight);
/// a group holds weights in 0..1 and a NaN becomes 0 there, so the vertex's other weights are
/// kept. Deform (`armature_deform.cc`, `armature_vert_task_with_dvert`):
/// `co += sum w_i (M_i co - co) / contrib` with `contrib` the total weight, only when
/// `contrib > 0.0001f`; at or below it the vertex is left undeformed.
fn blender(slots: &mut [(u16, f32)]) -> Fate {
    let raw_sum = slots.iter().fold(0.0f32, |s, &(_, w)| s + w);
    if raw_sum == 0.0
        && let Some(first) = slots.first_mut()
    {
        first.1 = 1.0;
    }
    let mut groups: Vec<(u16, f32)> = Vec::with_capacity(slots.len());
    for &(j, w) in slots.iter().filter(|s| s.1 != 0.0) {
        let w = if w.is_nan() { 0.0 } else { w.clamp(0.0, 1.0) };
        match groups.iter_mut().find(|g| g.0 == j) {
            Some(g) => g.1 = w,
            None => groups.push((j, w)),
        }
    }
    let total: f32 = groups.iter().map(|g| g.1).sum();
    let deformed = total > BLENDER_MIN_CONTRIBUTION;
    for (i, slot) in slots.iter_mut().enumerate() {
        *slot = match groups.get(i) {
            Some(&(j, w)) if deformed => (j, w / total),
            _ => (0, 0.0),
        };
    }
    match (deformed, raw_sum.is_finite()) {
        (false, _) => Fate::Undeformed,
        (true, true) => Fate::Skinned,
        (true, false) => Fate::FromOrigin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat4, Vec3};

    fn set(n: usize, rows: &[([u16; 4], [f32; 4])], storage: WeightStorage) -> InfluenceSet {
        InfluenceSet {
            set: n,
            joints: rows.iter().map(|r| r.0).collect(),
            weights: rows.iter().map(|r| r.1).collect(),
            weight_storage: storage,
            ..InfluenceSet::default()
        }
    }

    fn drawn(engine: Engine, sets: &[InfluenceSet], v: usize) -> Vec<(u16, f32)> {
        drawn_with_fate(engine, sets, v).0
    }

    /// For a skin of 6 joints.
    fn drawn_with_fate(engine: Engine, sets: &[InfluenceSet], v: usize) -> (Vec<(u16, f32)>, Fate) {
        let mut out = Vec::new();
        let fate = drawn_vertex(engine, sets, v, 6, &mut out);
        (out, fate)
    }

    #[test]
    fn names_round_trip_and_aliases_resolve() {
        for &e in Engine::ALL {
            assert_eq!(Engine::from_name(e.name()), Some(e), "{}", e.name());
            assert!(!e.label().is_empty() && !e.summary().is_empty());
        }
        assert_eq!(Engine::from_name("Unity-glTFast-unlimited"), Some(Engine::GlTfast { bones: 4 }));
        assert_eq!(Engine::from_name("unity-gltf-4bones"), Some(Engine::UnityGltf { bones: 4 }));
        assert_eq!(Engine::from_name("three.js"), Some(Engine::Three));
        assert_eq!(Engine::from_name("unity"), None);
        assert_eq!(Engine::default(), Engine::Stored);
    }

    #[test]
    fn stored_is_the_identity_and_borrows() {
        let prim = Primitive {
            positions: vec![glam::Vec3::ZERO].into(),
            influences: vec![
                set(0, &[([1, 2, 0, 0], [0.2, 0.1, 0.0, 0.0])], WeightStorage::F32),
                set(1, &[([3, 0, 0, 0], [0.3, 0.0, 0.0, 0.0])], WeightStorage::F32),
            ],
            ..Primitive::default()
        };
        assert!(matches!(drawn_influences(Engine::Stored, &prim, 4).sets, Cow::Borrowed(_)));
        let three = drawn_influences(Engine::Three, &prim, 4).sets;
        assert_eq!(three.len(), 1);
        // 0.2 / 0.3 and 0.1 / 0.3 in doubles, rounded to f32.
        assert_eq!(
            three[0].weights[0],
            [
                (0.2f32 as f64 / (0.2f32 as f64 + 0.1f32 as f64)) as f32,
                (0.1f32 as f64 / (0.2f32 as f64 + 0.1f32 as f64)) as f32,
                0.0,
                0.0
            ]
        );
        assert_eq!(drawn_influences(Engine::Blender, &prim, 4).sets.len(), 2);
        // Babylon keeps sets 0 and 1 as stored, and divides the position by 0.6.
        let babylon = drawn_influences(Engine::Babylon, &prim, 4);
        assert!(matches!(babylon.sets, Cow::Borrowed(_)));
        assert_eq!(babylon.fates, vec![(0, Fate::Divided(0.2 + 0.1 + 0.3))]);
    }

    /// Babylon.js: the position over the sum of the weights of joints the skeleton has
    /// (negative ones included, as its shader adds them); a sum of 0 or NaN draws nothing;
    /// a third set is not read. Checked against Babylon itself in tests/it/engine_runs.rs.
    #[test]
    fn babylon_divides_the_position_by_the_weights_sum() {
        let sets = [
            set(
                0,
                &[
                    ([0, 1, 0, 0], [0.25, 0.25, 0.0, 0.0]),
                    ([1, 2, 0, 0], [0.5, -0.5, 0.0, 0.0]),
                    ([2, 3, 0, 0], [f32::NAN, 0.5, 0.0, 0.0]),
                    ([3, 9, 0, 0], [0.5, 0.5, 0.0, 0.0]),
                    ([1, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
                ],
                WeightStorage::F32,
            ),
            set(1, &[([0, 0, 0, 0], [0.0; 4]); 5], WeightStorage::F32),
            set(2, &[([4, 0, 0, 0], [0.5, 0.0, 0.0, 0.0]); 5], WeightStorage::F32),
        ];
        let fate = |v| drawn_with_fate(Engine::Babylon, &sets, v).1;
        assert_eq!(fate(0), Fate::Divided(0.5));
        assert_eq!(fate(1), Fate::Divided(0.0));
        assert!(matches!(fate(2), Fate::Divided(s) if s.is_nan()));
        // Joint 9 is past the 6-joint skin: it reads a zero matrix, w included.
        assert_eq!(fate(3), Fate::Divided(0.5));
        // The third set's 0.5 is not read: the sum is exactly 1.
        assert_eq!(fate(4), Fate::Skinned);
        assert_eq!(drawn(Engine::Babylon, &sets, 4).len(), 8);
        let p = Vec3::new(2.0, 4.0, 6.0);
        assert_eq!(
            drawn_point(Fate::Divided(0.5), p, Vec3::ZERO, &Mat4::IDENTITY),
            Vec3::new(4.0, 8.0, 12.0)
        );
        assert!(drawn_point(Fate::Divided(0.0), p, Vec3::ZERO, &Mat4::IDENTITY).is_nan());
    }

    /// Blender: a NaN weight is 0 in its vertex group and the vertex's position is lost at
    /// import (skinned from the origin); a total of at most 1e-4 leaves the vertex undeformed;
    /// weights over 1 are clamped; an out-of-range joint makes the importer refuse the file.
    #[test]
    fn blender_zeroes_nan_leaves_tiny_totals_undeformed_and_refuses_bad_joints() {
        let sets = [set(
            0,
            &[
                ([2, 3, 0, 0], [f32::NAN, 0.5, 0.0, 0.0]),
                ([3, 4, 0, 0], [5e-5, 0.0, 0.0, 0.0]),
                ([4, 5, 0, 0], [3.4e38, 3.4e38, 0.0, 0.0]),
                ([1, 2, 0, 0], [0.5, -0.5, 0.0, 0.0]),
            ],
            WeightStorage::F32,
        )];
        let (slots, fate) = drawn_with_fate(Engine::Blender, &sets, 0);
        assert_eq!((slots[..2].to_vec(), fate), (vec![(2, 0.0), (3, 1.0)], Fate::FromOrigin));
        assert_eq!(drawn_with_fate(Engine::Blender, &sets, 1).1, Fate::Undeformed);
        // The f32 sum overflows: the position is lost; both clamp to 1, halves.
        let (slots, fate) = drawn_with_fate(Engine::Blender, &sets, 2);
        assert_eq!((slots[..2].to_vec(), fate), (vec![(4, 0.5), (5, 0.5)], Fate::FromOrigin));
        // +0.5 and -0.5 sum to exactly 0: weight 1 on the first slot; -0.5 clamps to 0.
        assert_eq!(
            drawn_with_fate(Engine::Blender, &sets, 3),
            (vec![(1, 1.0), (2, 0.0), (0, 0.0), (0, 0.0)], Fate::Skinned)
        );
        let placed = Mat4::from_translation(Vec3::X);
        assert_eq!(drawn_point(Fate::Undeformed, Vec3::ZERO, Vec3::Y, &placed), Vec3::new(1.0, 1.0, 0.0));

        let mut rig = crate::anim::test_rig::two_joint_rig();
        assert_eq!(Engine::Blender.refusal(&rig), None);
        let prim = &mut rig.meshes[0].primitives[0];
        prim.influences[0].joints = std::iter::repeat_n([0, 7, 0, 0], prim.positions.len()).collect();
        let why = Engine::Blender.refusal(&rig).expect("refused");
        assert!(why.contains("vertex 0 names joint 7"), "{why}");
        assert_eq!(Engine::Babylon.refusal(&rig), None);
    }

    /// `normalizeSkinWeights` by hand: sums of absolute values, zero to (1,0,0,0), set 1
    /// never read, integer weights renormalised and re-quantised by `setXYZW`.
    #[test]
    fn three_divides_by_the_manhattan_length_of_set_zero() {
        let sets = [
            set(
                0,
                &[
                    ([0, 1, 2, 3], [0.25, 0.25, 0.0, 0.0]),
                    ([4, 5, 0, 0], [0.0, 0.0, 0.0, 0.0]),
                    ([0, 1, 0, 0], [1.5, -0.5, 0.0, 0.0]),
                ],
                WeightStorage::F32,
            ),
            set(1, &[([7, 0, 0, 0], [0.5, 0.0, 0.0, 0.0]); 3], WeightStorage::F32),
        ];
        assert_eq!(drawn(Engine::Three, &sets, 0), vec![(0, 0.5), (1, 0.5), (2, 0.0), (3, 0.0)]);
        assert_eq!(drawn(Engine::Three, &sets, 1), vec![(4, 1.0), (5, 0.0), (0, 0.0), (0, 0.0)]);
        // |1.5| + |-0.5| = 2: 0.75 and -0.25 (the sum is then 0.5, as three.js leaves it).
        assert_eq!(drawn(Engine::Three, &sets, 2), vec![(0, 0.75), (1, -0.25), (0, 0.0), (0, 0.0)]);
        // Bytes 100 and 50 (sum 150/255): 100/150*255 = 170, 50/150*255 = 85.
        let bytes =
            [set(0, &[([0, 1, 0, 0], [100.0 / 255.0, 50.0 / 255.0, 0.0, 0.0])], WeightStorage::U8Norm)];
        let got = drawn(Engine::Three, &bytes, 0);
        assert_eq!(got[0].1, (170.0f64 / 255.0) as f32);
        assert_eq!(got[1].1, (85.0f64 / 255.0) as f32);
    }

    #[test]
    fn gltfast_sorts_and_rescales_only_below_four_bones() {
        let sets = [set(0, &[([1, 2, 3, 4], [0.1, 0.3, 0.2, 0.1])], WeightStorage::F32)];
        // 4 bones in a player build: untouched (sum 0.7 stays).
        assert_eq!(
            drawn(Engine::GlTfast { bones: 4 }, &sets, 0),
            vec![(1, 0.1), (2, 0.3), (3, 0.2), (4, 0.1)]
        );
        // 2 bones: joints 2 (0.3) and 3 (0.2) first, divided by 0.5 in f32; the rest unused.
        let two = drawn(Engine::GlTfast { bones: 2 }, &sets, 0);
        assert_eq!(two[..2], [(2, 0.3f32 / (0.3f32 + 0.2f32)), (3, 0.2f32 / (0.3f32 + 0.2f32))]);
        assert_eq!(two[2..], [(0, 0.0), (0, 0.0)]);
        assert_eq!(drawn(Engine::GlTfast { bones: 1 }, &sets, 0)[0], (2, 1.0));
        // All zero: nothing to rescale, the vertex keeps its zero weights.
        let zero = [set(0, &[([1, 2, 0, 0], [0.0; 4])], WeightStorage::F32)];
        assert!(drawn(Engine::GlTfast { bones: 2 }, &zero, 0).iter().all(|s| s.1 == 0.0));
    }

    #[test]
    fn unity_gltf_divides_by_the_sum_unless_it_is_zero() {
        let sets =
            [set(0, &[([1, 2, 3, 0], [0.2, 0.1, 0.1, 0.0]), ([1, 0, 0, 0], [0.0; 4])], WeightStorage::F32)];
        let s = 0.2f32 + 0.1 + 0.1;
        assert_eq!(
            drawn(Engine::UnityGltf { bones: 4 }, &sets, 0),
            vec![(1, 0.2 / s), (2, 0.1 / s), (3, 0.1 / s), (0, 0.0)]
        );
        assert_eq!(
            drawn(Engine::UnityGltf { bones: 4 }, &sets, 1),
            vec![(1, 0.0), (0, 0.0), (0, 0.0), (0, 0.0)]
        );
        // 2 bones: 0.5 and 0.25 kept (ties keep slot order), rescaled to 2/3 and 1/3.
        let two = drawn(Engine::UnityGltf { bones: 2 }, &sets, 0);
        assert_eq!(two[0].0, 1);
        assert_eq!(two[1].0, 2);
        assert!((two[0].1 - 2.0 / 3.0).abs() < 1e-6 && (two[1].1 - 1.0 / 3.0).abs() < 1e-6, "{two:?}");
    }

    #[test]
    fn unreal_keeps_the_largest_and_quantises_to_a_whole_sum() {
        // 0.5, 0.3, 0.1 (sum 0.9): 0.5/0.9*255 = 141.67 -> 142, 85, 28.33 -> 28: 255 exactly.
        let sets = [set(0, &[([1, 2, 3, 0], [0.3, 0.5, 0.1, 0.0])], WeightStorage::F32)];
        let got = drawn(Engine::Unreal { bits: 8 }, &sets, 0);
        assert_eq!(got.iter().map(|s| s.0).collect::<Vec<_>>(), [2, 1, 3, 0]);
        assert_eq!(got.iter().map(|s| (s.1 * 255.0).round() as i32).collect::<Vec<_>>(), [142, 85, 28, 0]);
        // Nothing weighted: the root joint.
        let zero = [set(0, &[([4, 5, 0, 0], [0.0; 4])], WeightStorage::F32)];
        assert_eq!(drawn(Engine::Unreal { bits: 16 }, &zero, 0)[0], (0, 1.0));
    }

    #[test]
    fn godot_divides_by_the_sum_then_truncates_to_16_bits() {
        let sets = [
            set(0, &[([1, 2, 0, 0], [0.2, 0.2, 0.0, 0.0])], WeightStorage::F32),
            set(1, &[([3, 0, 0, 0], [0.4, 0.0, 0.0, 0.0])], WeightStorage::F32),
        ];
        let got = drawn(Engine::Godot, &sets, 0);
        assert_eq!(got.len(), 8);
        // 0.2 / 0.8 = 0.25 -> 16383.75 -> 16383; 0.4 / 0.8 = 0.5 -> 32767.5 -> 32767.
        assert_eq!(got[0], (1, (16383.0f32 / 65535.0)));
        assert_eq!(got[4], (3, (32767.0f32 / 65535.0)));
    }

    #[test]
    fn blender_merges_repeats_and_divides_by_the_total() {
        let sets =
            [set(0, &[([1, 1, 2, 0], [0.2, 0.4, 0.4, 0.0]), ([5, 6, 0, 0], [0.0; 4])], WeightStorage::F32)];
        // Joint 1 keeps its last weight (0.4, 'REPLACE'); total 0.8.
        assert_eq!(drawn(Engine::Blender, &sets, 0), vec![(1, 0.5), (2, 0.5), (0, 0.0), (0, 0.0)]);
        // All zero: the first slot gets 1.
        assert_eq!(drawn(Engine::Blender, &sets, 1), vec![(5, 1.0), (0, 0.0), (0, 0.0), (0, 0.0)]);
    }
}
