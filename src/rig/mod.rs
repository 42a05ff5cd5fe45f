//! Immutable runtime data for one glTF asset: the node hierarchy, skins, meshes and clips.
//!
//! A `Rig` is built once by `import` (which validates everything structural) and is never
//! mutated afterwards. Per-frame state lives in `anim::Workspace`, not here. Node indices are
//! the file's own indices, so every report can name nodes the way the file does; `order`
//! lists the same nodes parents-first so that hierarchy walks are one linear loop.

mod all_clips;
mod finding;
mod humanoid;
mod indices;
pub mod key_times;
mod look_at;
mod rest_world;
mod sizes;
mod storage;
mod transform;
mod vrm_play;

pub use all_clips::ALL_CLIPS;
pub use finding::{Finding, Severity, VertexFinding};
pub use humanoid::{
    BONES, BoneSpec, Expression, HumanBone, MorphBind, Vrm, VrmAnimationMap, VrmVersion, bone_spec, canonical,
};
pub use indices::Indices;
pub use look_at::{LookAt, LookAtKind, Override, Overrides, RangeMap};
pub use sizes::{GpuEstimate, Sizes, TextureSize, mip_chain_bytes};
pub use storage::{AttributeFormat, Compression, ExtensionHandling, ExtensionUse, PrimitiveStorage, Storage};
pub use transform::Transform;
pub use vrm_play::{Eye, Gaze, PlayedExpression, VrmPlay};

use glam::{Mat4, Vec3};
use std::sync::Arc;

/// One loaded glTF asset.
#[derive(Debug, Clone, Default)]
pub struct Rig {
    /// The file name as the user gave it, for messages.
    pub source: String,
    /// `asset.generator`, when the file says which tool wrote it.
    pub generator: Option<String>,
    /// Every node, in file order (index = glTF node index).
    pub nodes: Vec<Node>,
    /// Every node index, ordered so that each parent comes before its children.
    pub order: Vec<usize>,
    pub scenes: Vec<Scene>,
    /// `scene` from the file, else 0 when there is at least one scene.
    pub default_scene: Option<usize>,
    pub skins: Vec<Skin>,
    pub meshes: Vec<Mesh>,
    pub clips: Vec<Clip>,
    /// Channels the file animates that rigscope does not play (`KHR_animation_pointer` on a
    /// material, camera, light, ...), listed so that reports can say so.
    pub unpreviewed_channels: Vec<UnpreviewedChannel>,
    /// Per clip, per channel: its index among the file's channels, where that differs from
    /// its place in `Clip::channels` (`KHR_animation_pointer` channels follow the core ones,
    /// and one on a mesh's weights becomes a channel per node). Empty: the same index.
    pub channel_file_index: Vec<Vec<usize>>,
    /// Per clip, how many of its first channels are core glTF channels; the rest came from
    /// `KHR_animation_pointer`. Empty: every channel is core.
    pub core_channels: Vec<usize>,
    /// Data-level oddities found at load (never structural faults: those are errors).
    pub findings: Vec<Finding>,
    /// How the file stored its data (extensions, attribute formats, compression).
    pub storage: Storage,
    /// The VRM humanoid mapping and expressions, for a VRM 0.x or 1.0 avatar.
    pub vrm: Option<Vrm>,
    /// What a VRM animation file's nodes are (`VRMC_vrm_animation`), for a `.vrma`.
    pub vrma: Option<VrmAnimationMap>,
    /// Clips that came from other files (`--anim LIB`), bound to these nodes at load: where
    /// each came from and how each of its channels bound. Empty for a file on its own.
    pub attached: Vec<AttachedClip>,
    /// What the `--anim` files added nothing for, or less than they seem to, one warning each
    /// naming the file (`attach::anim_warnings`): every command shows them.
    pub anim_warnings: Vec<String>,
}

/// A clip of another file, bound to this rig's nodes by name (see `attach`).
#[derive(Debug, Clone, Default)]
pub struct AttachedClip {
    /// Its index in `Rig::clips`.
    pub clip: usize,
    /// The file it came from, as the user named it.
    pub file: String,
    /// Its name in that file (`Clip::name` is `name (file)`).
    pub name: String,
    /// One per channel of `Rig::clips[clip]`, in order: the source node and how it bound.
    pub bound: Vec<BoundChannel>,
    /// One per track of the source clip that binds, and how: the count `fit` gives (a
    /// retargeted clip's channels are not its tracks).
    pub tracks: Vec<BindHow>,
    /// The tracks that bound to nothing, named as three.js names them
    /// (`mixamorigHips.quaternion`), once each, in the clip's order.
    pub unbound: Vec<String>,
    /// `rigscope fit`'s sentences for this clip and its file (unbound tracks, root motion,
    /// rest and scale differences), for the viewer's fit lines.
    pub fit: Vec<String>,
    /// The clip's own rig, for the viewer's ghost of it (`None` for a `.vrma`).
    pub source: Option<SourceRig>,
}

/// A library rig and one of its clips, with where the viewer draws it beside the character.
#[derive(Debug, Clone)]
pub struct SourceRig {
    pub rig: std::sync::Arc<Rig>,
    pub clip: usize,
    /// Its world turned into the character's body (retargeting's `A`; identity played raw).
    pub turn: glam::Quat,
    /// Its world scaled to the character's (`H_T / H_S`; 1 played raw).
    pub scale: f32,
    /// Where its world origin is drawn: beside the character, to its left.
    pub beside: glam::Vec3,
}

/// How one channel of an attached clip found its node.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundChannel {
    /// The source file's node name, as stored.
    pub source: String,
    pub how: BindHow,
}

/// Which rule bound a channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindHow {
    /// The names are equal as three.js's GLTFLoader makes them (the default binding).
    Exact,
    /// By a loose rule (`--bind loose`): its name, e.g. `prefix`, `prefix+case`.
    Rule(&'static str),
    /// By a line of the `--map` file.
    Map,
}

impl BindHow {
    /// `exact`, `map`, or the rule's name, for reports.
    pub fn label(&self) -> &str {
        match self {
            BindHow::Exact => "exact",
            BindHow::Rule(r) => r,
            BindHow::Map => "map",
        }
    }
}

/// A node of the hierarchy.
#[derive(Debug, Clone, Default)]
pub struct Node {
    pub name: Option<String>,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Rest transform from the file (decomposed from `matrix` when the file gives one).
    pub rest: Transform,
    /// The file's `matrix`, kept verbatim: it is the local transform while no channel
    /// animates this node (decomposing it would lose shear and precision).
    pub matrix: Option<Mat4>,
    pub mesh: Option<usize>,
    pub skin: Option<usize>,
    /// Morph target weights given on the node; they override the mesh's defaults.
    pub weights: Option<Vec<f32>>,
    /// GPU instancing (`EXT_mesh_gpu_instancing`): one transform per instance, each drawn
    /// at `world * instance`. Empty for a node drawn once (the usual case).
    pub instances: Vec<Mat4>,
}

/// A scene: the roots it lists.
#[derive(Debug, Clone, Default)]
pub struct Scene {
    pub name: Option<String>,
    pub roots: Vec<usize>,
}

/// A skin: joints (node indices) with one inverse bind matrix each.
#[derive(Debug, Clone, Default)]
pub struct Skin {
    pub name: Option<String>,
    /// Node index of each joint; `JOINTS_n` values index into this list.
    pub joints: Vec<usize>,
    /// One per joint; identity when the file has no `inverseBindMatrices`.
    pub inverse_bind: Vec<Mat4>,
    /// Accessor index of the inverse bind matrices, when the file has them.
    pub inverse_bind_accessor: Option<usize>,
    pub skeleton: Option<usize>,
    /// Positions in `joints`, ordered parents-first (a joint's nearest joint ancestor
    /// comes before it).
    pub joint_order: Vec<usize>,
    /// For each joint (by position in `joints`), the position of its nearest ancestor
    /// that is also a joint of this skin.
    pub joint_parent: Vec<Option<usize>>,
}

/// A mesh: primitives plus default morph weights.
#[derive(Debug, Clone, Default)]
pub struct Mesh {
    pub name: Option<String>,
    pub primitives: Vec<Primitive>,
    /// `mesh.weights`, or zeros (one per morph target) when absent.
    pub default_weights: Vec<f32>,
}

/// How a primitive's indices connect its vertices (glTF `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Topology {
    Points,
    Lines,
    LineLoop,
    LineStrip,
    #[default]
    Triangles,
    TriangleStrip,
    TriangleFan,
}

/// One drawable part of a mesh. Attribute arrays are all `positions.len()` long.
///
/// Accessor data is shared, never copied per use: every primitive, influence set, morph
/// target and channel reading the same accessor (in the same decoded form) holds the same
/// `Arc`. Code that changes one user's data builds a new array (`Arc::make_mut`), so the
/// others keep what the file stores.
#[derive(Debug, Clone, Default)]
pub struct Primitive {
    pub topology: Topology,
    pub positions: Arc<[Vec3]>,
    pub normals: Option<Arc<[Vec3]>>,
    /// Vertex indices; `None` means the vertices are drawn in order.
    pub indices: Option<Indices>,
    /// One entry per `JOINTS_n`/`WEIGHTS_n` pair, in set order (n = 0, 1, ...).
    pub influences: Vec<InfluenceSet>,
    pub morph_targets: Vec<MorphTarget>,
}

/// How `WEIGHTS_n` was stored; integer kinds were decoded as c/255 or c/65535.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WeightStorage {
    #[default]
    F32,
    U8Norm,
    U16Norm,
}

/// One `JOINTS_n`/`WEIGHTS_n` pair, exactly as stored (no renormalisation, no clamping).
#[derive(Debug, Clone, Default)]
pub struct InfluenceSet {
    /// The `n` of `JOINTS_n`/`WEIGHTS_n`.
    pub set: usize,
    /// Indices into the skin's `joints`; may be out of range (a finding, never a panic).
    pub joints: Arc<[[u16; 4]]>,
    pub weights: Arc<[[f32; 4]]>,
    pub weight_storage: WeightStorage,
    pub joints_accessor: usize,
    pub weights_accessor: usize,
}

/// Per-vertex deltas of one morph target.
#[derive(Debug, Clone, Default)]
pub struct MorphTarget {
    pub positions: Option<Arc<[Vec3]>>,
    pub normals: Option<Arc<[Vec3]>>,
}

/// What an animation channel drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Property {
    Translation,
    Rotation,
    Scale,
    /// Morph target weights.
    Weights,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interpolation {
    Step,
    Linear,
    CubicSpline,
}

/// One glTF animation.
#[derive(Debug, Clone, Default)]
pub struct Clip {
    pub name: Option<String>,
    pub channels: Vec<Channel>,
    /// The largest key time of all channels (0 for a clip without keys).
    pub duration: f32,
    /// A `.vrma` bound to a VRM avatar: its expressions and gaze, played after the channels.
    pub vrm: Option<Arc<VrmPlay>>,
}

impl Clip {
    /// The clip's name, or `animation_{index}` for an unnamed one: the name three.js's
    /// GLTFLoader gives it, which is what `fit`, `--anim` and `merge` call it.
    pub fn name_or_index(&self, index: usize) -> String {
        self.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| format!("animation_{index}"))
    }

    /// Every node the clip moves: its channels' targets, then the eyes a `.vrma`'s gaze
    /// turns. A node can appear more than once.
    pub fn moved_nodes(&self) -> impl Iterator<Item = usize> + '_ {
        let eyes = self.vrm.iter().flat_map(|p| p.gaze.iter()).flat_map(|g| g.eyes.iter().map(|e| e.node));
        self.channels.iter().map(|ch| ch.node).chain(eyes)
    }

    /// How many distinct nodes the clip moves.
    pub fn animated_nodes(&self) -> usize {
        let mut nodes: Vec<usize> = self.moved_nodes().collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes.len()
    }
}

/// One channel with its sampler's data (shared with every channel of the same sampler).
#[derive(Debug, Clone)]
pub struct Channel {
    pub node: usize,
    pub property: Property,
    pub interpolation: Interpolation,
    /// Key times in seconds, as stored (import records non-increasing times as findings).
    pub times: Arc<[f32]>,
    /// Key values, flattened: `components` floats per element. For CUBICSPLINE each key
    /// holds three elements (in-tangent, value, out-tangent), as glTF stores them.
    pub values: Arc<[f32]>,
    /// Floats per element: 3 for translation/scale, 4 for rotation (x, y, z, w),
    /// the morph target count for weights.
    pub components: usize,
}

/// An animation channel that is loaded but not previewed: its target is not a node's
/// transform or morph weights.
#[derive(Debug, Clone, PartialEq)]
pub struct UnpreviewedChannel {
    /// Index of the clip (glTF animation) it belongs to.
    pub clip: usize,
    /// Index of the channel in the file's animation.
    pub channel: usize,
    /// The `KHR_animation_pointer` JSON pointer it animates (`/materials/0/emissiveFactor`).
    pub pointer: String,
    pub interpolation: Interpolation,
    /// Key times in seconds, as stored.
    pub times: Arc<[f32]>,
    /// Why it is not played, in a few words.
    pub reason: String,
}

impl Rig {
    /// The scene that reports and views show: the file's `scene`, else the first.
    pub fn scene(&self) -> Option<&Scene> {
        self.default_scene.and_then(|s| self.scenes.get(s))
    }

    /// Nodes of the shown scene in node-index order (every node when the file has no scene).
    pub fn scene_nodes(&self) -> Vec<usize> {
        let Some(scene) = self.scene() else {
            return (0..self.nodes.len()).collect();
        };
        let mut inside = vec![false; self.nodes.len()];
        let mut stack: Vec<usize> = scene.roots.clone();
        while let Some(n) = stack.pop() {
            if let Some(flag) = inside.get_mut(n)
                && !*flag
            {
                *flag = true;
                stack.extend(self.nodes[n].children.iter().copied());
            }
        }
        (0..self.nodes.len()).filter(|&n| inside[n]).collect()
    }

    /// The ancestors of `node`, its parent first (none for a root or an unknown node). Import
    /// refuses cycles; the walk still stops after as many steps as there are nodes.
    pub fn ancestors(&self, node: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.nodes.get(node).and_then(|n| n.parent), |&p| {
            self.nodes.get(p).and_then(|n| n.parent)
        })
        .take(self.nodes.len())
    }

    /// True for nodes that any skin uses as a joint.
    pub fn joint_flags(&self) -> Vec<bool> {
        let mut flags = vec![false; self.nodes.len()];
        for skin in &self.skins {
            for &j in &skin.joints {
                if let Some(f) = flags.get_mut(j) {
                    *f = true;
                }
            }
        }
        flags
    }

    /// Display name of a node: its name, or `#index` when it has none.
    pub fn node_label(&self, node: usize) -> String {
        match self.nodes.get(node).and_then(|n| n.name.as_deref()) {
            Some(name) if !name.is_empty() => name.to_string(),
            _ => format!("#{node}"),
        }
    }

    /// The index in the file's animation of channel `channel` of clip `clip`, for reports
    /// that point into the file.
    pub fn file_channel(&self, clip: usize, channel: usize) -> usize {
        self.channel_file_index.get(clip).and_then(|c| c.get(channel)).copied().unwrap_or(channel)
    }

    /// Display name of a clip: its name, or `#index`.
    pub fn clip_label(&self, clip: usize) -> String {
        match self.clips.get(clip).and_then(|c| c.name.as_deref()) {
            Some(name) if !name.is_empty() => name.to_string(),
            _ => format!("#{clip}"),
        }
    }

    /// Finds a clip by exact name, or by index when `key` is a number. `#N` is always
    /// index N (as `clip_label` writes unnamed clips), for a file whose clip names are
    /// themselves numbers.
    ///
    /// A clip from another file is found by its full label (`dance (lib.glb)`) and also by its
    /// bare name, before the rig's own clips: with `--anim LIB --clip NAME` the user means
    /// LIB's clip even when the character has one of the same name (Mixamo names them all
    /// `mixamo.com`).
    ///
    /// A name also matches past Blender's `OBJECT|` prefix (`Walk` finds `Armature|Walk`,
    /// `Rig_Medium|Walk` finds `Armature|Walk`) when exactly one clip matches so: the other
    /// files' clips right after their exact names (two such are ambiguous: none is found),
    /// the rig's own last.
    pub fn find_clip(&self, key: &str) -> Option<usize> {
        if let Some(a) = self.attached.iter().find(|a| a.name == key) {
            return Some(a.clip);
        }
        let unique = |found: Vec<usize>| match found.as_slice() {
            [one] => Some(*one),
            _ => None,
        };
        // Several other-file clips by that name are ambiguous, not a reason to pick the rig's own.
        match self.past_prefix(key, true).as_slice() {
            [] => {}
            [one] => return Some(*one),
            _ => return None,
        }
        if let Some(i) = self.clips.iter().position(|c| c.name.as_deref() == Some(key)) {
            return Some(i);
        }
        let number = key.strip_prefix('#').unwrap_or(key);
        if let Some(i) = number.parse::<usize>().ok().filter(|&i| i < self.clips.len()) {
            return Some(i);
        }
        unique(self.past_prefix(key, false))
    }

    /// The clips whose name past Blender's `OBJECT|` prefix is `key`'s past its own: the other
    /// files' clips when any of them match, else the rig's own.
    pub fn clips_past_prefix(&self, key: &str) -> Vec<usize> {
        let attached = self.past_prefix(key, true);
        if attached.is_empty() { self.past_prefix(key, false) } else { attached }
    }

    /// `clips_past_prefix` among the other files' clips (`attached`) or the rig's own.
    fn past_prefix(&self, key: &str, attached: bool) -> Vec<usize> {
        let key = unprefixed_clip_name(key);
        if attached {
            return (self.attached.iter())
                .filter(|a| unprefixed_clip_name(&a.name) == key)
                .map(|a| a.clip)
                .collect();
        }
        let mut from_other_file = vec![false; self.clips.len()];
        for a in &self.attached {
            if let Some(flag) = from_other_file.get_mut(a.clip) {
                *flag = true;
            }
        }
        (0..self.clips.len())
            .filter(|&i| !from_other_file[i])
            .filter(|&i| self.clips[i].name.as_deref().is_some_and(|n| unprefixed_clip_name(n) == key))
            .collect()
    }
}

/// A clip name without Blender's `OBJECT|` prefix: `Armature|Walk` is `Walk` (the exporter
/// names each action after the object it was made on).
pub fn unprefixed_clip_name(name: &str) -> &str {
    name.rsplit_once('|').map_or(name, |(_, rest)| rest)
}

impl Primitive {
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Every (joint, weight) slot of vertex `v` over all influence sets, in set order, as
    /// stored (zeros, NaN and out-of-range joints included: callers decide what they mean).
    pub fn influences_of(&self, v: usize) -> impl Iterator<Item = (u16, f32)> + '_ {
        self.influences
            .iter()
            .filter_map(move |set| Some((set.joints.get(v)?, set.weights.get(v)?)))
            .flat_map(|(j, w)| j.iter().copied().zip(w.iter().copied()))
    }

    /// Calls `f(v, slots)` for every vertex with influence slots, `slots` being what
    /// `influences_of(v)` yields, in the same order. For whole-mesh passes: one influence set
    /// (the usual case) is read as fixed arrays rather than through the per-vertex iterator
    /// chain (a fifth of the wait before a 200k-vertex rig's first frame went there).
    pub fn for_each_influences(&self, mut f: impl FnMut(usize, &[(u16, f32)])) {
        if let [set] = self.influences.as_slice() {
            let rows = set.joints.iter().zip(set.weights.iter()).take(self.vertex_count());
            for (v, (j, w)) in rows.enumerate() {
                f(v, &[(j[0], w[0]), (j[1], w[1]), (j[2], w[2]), (j[3], w[3])]);
            }
            return;
        }
        let mut slots = Vec::new();
        for v in 0..self.vertex_count() {
            slots.clear();
            slots.extend(self.influences_of(v));
            if !slots.is_empty() {
                f(v, &slots);
            }
        }
    }

    pub fn is_skinned(&self) -> bool {
        !self.influences.is_empty()
    }

    /// Triangles this primitive draws (0 for points and lines).
    pub fn triangle_count(&self) -> usize {
        let n = self.indices.as_ref().map_or(self.positions.len(), |i| i.len());
        match self.topology {
            Topology::Triangles => n / 3,
            Topology::TriangleStrip | Topology::TriangleFan => n.saturating_sub(2),
            _ => 0,
        }
    }

    /// Vertex indices in drawing order (the stored indices, or 0..n).
    pub fn index_at(&self, i: usize) -> u32 {
        match &self.indices {
            Some(idx) => idx[i],
            None => i as u32,
        }
    }

    /// Number of indices (or vertices, without an index buffer) the primitive draws.
    pub fn index_count(&self) -> usize {
        self.indices.as_ref().map_or(self.positions.len(), |i| i.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_are_found_by_name_then_number_and_always_by_hash_number() {
        let clip = |name: Option<&str>| Clip { name: name.map(String::from), ..Clip::default() };
        // Two clips named "1" (the second unreachable by name), and one unnamed.
        let rig = Rig { clips: vec![clip(Some("1")), clip(Some("1")), clip(None)], ..Rig::default() };
        assert_eq!(rig.find_clip("1"), Some(0));
        assert_eq!(rig.find_clip("2"), Some(2));
        assert_eq!(rig.find_clip("#1"), Some(1));
        assert_eq!(rig.find_clip("#2"), Some(2));
        assert_eq!(rig.find_clip("#3"), None);
        assert_eq!(rig.find_clip("#"), None);
        assert_eq!(rig.find_clip("-1"), None);
    }

    fn set(n: usize, joints: Vec<[u16; 4]>, weights: Vec<[f32; 4]>) -> InfluenceSet {
        InfluenceSet { set: n, joints: joints.into(), weights: weights.into(), ..InfluenceSet::default() }
    }

    /// Every vertex's slots through the per-vertex iterator, the definition.
    fn by_vertex(p: &Primitive) -> Vec<(usize, Vec<(u16, f32)>)> {
        (0..p.vertex_count())
            .map(|v| (v, p.influences_of(v).collect::<Vec<_>>()))
            .filter(|(_, s)| !s.is_empty())
            .collect()
    }

    fn by_pass(p: &Primitive) -> Vec<(usize, Vec<(u16, f32)>)> {
        let mut out = Vec::new();
        p.for_each_influences(|v, slots| out.push((v, slots.to_vec())));
        out
    }

    #[test]
    fn one_pass_over_the_influences_gives_each_vertex_its_slots_in_order() {
        let positions = vec![Vec3::ZERO; 3];
        let one = Primitive {
            positions: positions.clone().into(),
            // Ragged: the set is longer than the vertex count in joints, shorter in weights.
            influences: vec![set(
                0,
                vec![[1, 2, 3, 4], [5, 6, 7, 8], [9, 9, 9, 9], [0; 4]],
                vec![[0.5, 0.5, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]],
            )],
            ..Primitive::default()
        };
        assert_eq!(by_pass(&one), by_vertex(&one));
        assert_eq!(
            by_pass(&one),
            vec![
                (0, vec![(1, 0.5), (2, 0.5), (3, 0.0), (4, 0.0)]),
                (1, vec![(5, 1.0), (6, 0.0), (7, 0.0), (8, 0.0)]),
            ]
        );
        let two = Primitive {
            positions: positions.into(),
            influences: vec![
                set(0, vec![[1, 2, 3, 4]; 3], vec![[0.25; 4]; 3]),
                set(1, vec![[7, 7, 7, 7]; 2], vec![[0.5; 4]; 2]),
            ],
            ..Primitive::default()
        };
        let expected = by_vertex(&two);
        assert_eq!(expected.len(), 3);
        assert_eq!(expected[0].1.len(), 8);
        assert_eq!(expected[2].1.len(), 4);
        assert_eq!(by_pass(&two), expected);
        assert!(
            by_pass(&Primitive { positions: vec![Vec3::ZERO; 2].into(), ..Primitive::default() }).is_empty()
        );
    }
}
