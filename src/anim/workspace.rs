//! `Workspace`: every per-frame buffer for one rig, sized once in `new` and reused by
//! `evaluate` (reset -> sample -> globals -> joint matrices -> morph -> skin) without
//! allocating. Owns nothing from the rig; a rig other than the one it was built for is
//! safe (no panic) but gives meaningless output.

use glam::{Mat4, Vec3, Vec3A};

use super::engine::{Engine, Fate, drawn_influences, drawn_point, skinned_input};
use super::hierarchy::{bind_globals, compute_bind_globals, update_globals, update_joint_matrices};
use super::morph::morphed_position;
use super::morph::{Attribute, morph_into};
use super::palette::Palette;
use super::pose::Pose;
use super::pose_cache::PoseCache;
use super::sampler::Sampler;
use super::skin_wide::{PackedInfluences, WideInput};
use super::skinning::{SkinInput, rigid_in_place, skin_fast, skin_in_place, skin_point};
use crate::rig::{Clip, InfluenceSet, Primitive, Rig};

/// One drawable primitive of one mesh node, deformed for the current frame, in world space.
#[derive(Debug, Clone, PartialEq)]
pub struct DeformedPrimitive {
    pub node: usize,
    pub mesh: usize,
    pub primitive: usize,
    /// The skin applied: `Some` when the node has a (valid) skin AND the primitive has
    /// influences; `None` means rigid (`G(node) * p`).
    pub skin: Option<usize>,
    /// Which of the node's GPU instances (`Node::instances`) this copy is: rigid, at
    /// `G(node) * instance * p`. `None` for a node drawn once.
    pub instance: Option<usize>,
    pub positions: Vec<Vec3>,
    /// One per position, or empty when the primitive has no normals.
    pub normals: Vec<Vec3>,
}

/// One primitive as an engine profile draws it.
#[derive(Debug, Clone)]
struct EngineDraw {
    sets: Vec<InfluenceSet>,
    /// `(vertex, fate)` of the vertices not simply skinned with `sets`.
    fates: Vec<(usize, Fate)>,
}

#[derive(Debug, Clone)]
pub struct Workspace {
    pub pose: Pose,
    /// Global (world) matrix of every node.
    pub globals: Vec<Mat4>,
    /// `J_i` per skin, per joint (indexed like `skin.joints`).
    pub joint_matrices: Vec<Vec<Mat4>>,
    /// One per (node with a mesh, instance, primitive index), in node-index order.
    pub primitives: Vec<DeformedPrimitive>,
    /// Bind-pose global of each node that is a joint (`placement * inverse(IBM)`), fixed
    /// per rig.
    bind: Vec<Option<Mat4>>,
    /// Per skin: `RestBind::placement`, what the bind pose applies to stored positions.
    placements: Vec<Mat4>,
    sampler: Sampler,
    /// Per skin: the joint matrices as skinning palettes, written by `update_matrices`.
    palettes: Vec<Palette>,
    /// The pose stage's per-rig constants (`None` where its fast walk would not be exact);
    /// assumes the rig does not change while this `Workspace` lives, see `pose_cache`.
    pose_cache: Option<PoseCache>,
    /// Per entry of `primitives`: its influences packed for the wide skinning kernel (one
    /// influence set, skin of at most 255 joints), built once per rig.
    packed: Vec<Option<PackedInfluences>>,
    /// Morphed positions and normals of the primitive being skinned, when a morph target
    /// is active (otherwise skinning reads the stored attributes directly).
    morphed: (Vec<Vec3>, Vec<Vec3>),
    /// Split big meshes over the rayon pool.
    parallel: bool,
    /// Whose weights skinning uses (`Stored` unless `set_engine` said otherwise).
    engine: Engine,
    /// Per mesh, per primitive: the engine's influences and the vertices it treats otherwise
    /// (`Fate`), where they differ from the stored ones (empty for `Stored`).
    drawn: Vec<Vec<Option<EngineDraw>>>,
}

impl Workspace {
    /// Sizes every buffer for `rig` and fills them with the rest pose.
    pub fn new(rig: &Rig) -> Self {
        Self::at(rig, None, 0.0)
    }

    /// Sizes every buffer for `rig` and fills them with the frame at `t` of `clip`: what
    /// `new` then `evaluate` give, skinned once instead of twice (a 200k-vertex rig's
    /// viewer start-up waited on both).
    pub fn at(rig: &Rig, clip: Option<&Clip>, t: f32) -> Self {
        let mut workspace = Self::sized(rig, true);
        workspace.evaluate(rig, clip, t);
        workspace
    }

    /// Sizes the positions for `rig` and fills them with the bind pose (`evaluate_bind`),
    /// for reading that pose's positions and sampling matrices, not for drawing: no
    /// normals (every primitive is as one stored without them), and the influences are
    /// not packed for the wide kernel (a later `skin` takes the portable loop, same
    /// positions). `check` builds one of these before the viewer's first frame.
    pub fn at_bind(rig: &Rig) -> Self {
        let mut workspace = Self::sized(rig, false);
        workspace.evaluate_bind(rig);
        workspace
    }

    /// Every buffer sized for `rig`, nothing evaluated yet; `drawn`: the normals and the
    /// wide kernel's influences too. The vertex buffers start zeroed, not as copies of the
    /// stored ones: every constructor evaluates at once, and that writes every entry.
    fn sized(rig: &Rig, drawn: bool) -> Self {
        let mut primitives = Vec::new();
        let mut packed = Vec::new();
        for (node_index, node) in rig.nodes.iter().enumerate() {
            let Some((mesh_index, mesh)) = node.mesh.and_then(|m| Some((m, rig.meshes.get(m)?))) else {
                continue;
            };
            // Import keeps instances off skinned nodes, so an instanced copy is always rigid.
            let copies: Vec<Option<usize>> = if node.instances.is_empty() {
                vec![None]
            } else {
                (0..node.instances.len()).map(Some).collect()
            };
            for instance in copies {
                for (primitive_index, primitive) in mesh.primitives.iter().enumerate() {
                    let skin = node
                        .skin
                        .filter(|&s| s < rig.skins.len() && primitive.is_skinned() && instance.is_none());
                    packed.push(
                        match (skin.and_then(|s| rig.skins.get(s)), primitive.influences.as_slice()) {
                            (Some(skin), [set]) if drawn => PackedInfluences::new(set, skin.joints.len()),
                            _ => None,
                        },
                    );
                    primitives.push(DeformedPrimitive {
                        node: node_index,
                        mesh: mesh_index,
                        primitive: primitive_index,
                        skin,
                        instance,
                        positions: vec![Vec3::ZERO; primitive.positions.len()],
                        normals: if drawn { normals_buffer(primitive) } else { Vec::new() },
                    });
                }
            }
        }
        let max_channels = rig.clips.iter().map(|c| c.channels.len()).max();
        let placements = super::bind::bind_placements(rig);
        Self {
            pose: Pose::rest(rig),
            globals: vec![Mat4::IDENTITY; rig.nodes.len()],
            joint_matrices: rig.skins.iter().map(|s| vec![Mat4::IDENTITY; s.joints.len()]).collect(),
            primitives,
            bind: bind_globals(rig, &placements),
            placements,
            sampler: Sampler::with_capacity(max_channels.unwrap_or(0)),
            palettes: Vec::new(),
            pose_cache: PoseCache::new(rig),
            packed,
            morphed: (Vec::new(), Vec::new()),
            parallel: true,
            engine: Engine::Stored,
            drawn: Vec::new(),
        }
    }

    /// The frame at time `t` of `clip` (the rest pose when `clip` is `None`): the three
    /// stages below, in order.
    pub fn evaluate(&mut self, rig: &Rig, clip: Option<&Clip>, t: f32) {
        self.sample_pose(rig, clip, t);
        self.update_matrices(rig);
        self.skin(rig);
    }

    /// Stage 1: rest pose, then the clip's channels at `t` (cursor sampler), then a VRM
    /// avatar's node constraints (which follow the sampled pose, at rest too).
    pub fn sample_pose(&mut self, rig: &Rig, clip: Option<&Clip>, t: f32) {
        self.pose.reset(rig);
        if let Some(clip) = clip {
            self.sampler.sample(clip, t, &mut self.pose);
        }
        crate::vrm::constrain(rig, &mut self.pose);
    }

    /// Stage 2: world matrices of every node and the joint matrices of every skin, from
    /// the current `pose`.
    /// The skinning palettes are written here too, from the same 3x4 products.
    pub fn update_matrices(&mut self, rig: &Rig) {
        if let Some(cache) = &self.pose_cache
            && cache.update(rig, &self.pose, &mut self.globals, &mut self.joint_matrices, &mut self.palettes)
        {
            return;
        }
        let affine = update_globals(rig, &self.pose, &mut self.globals);
        update_joint_matrices(rig, &self.globals, affine, &mut self.joint_matrices, &mut self.palettes);
    }

    /// Stage 3: morph and skin (or move rigidly) every primitive with the current
    /// matrices.
    pub fn skin(&mut self, rig: &Rig) {
        self.deform(rig, false);
    }

    /// Whether big meshes are skinned on every core (the default).
    pub fn parallel(&self) -> bool {
        self.parallel
    }

    /// Skin on the calling thread only (`false`), or split big meshes over the rayon pool.
    /// The result is the same either way.
    pub fn set_parallel(&mut self, on: bool) {
        self.parallel = on;
    }

    /// Where skin `s`'s bind pose is drawn (`RestBind::placement`; identity for a skin the
    /// rig does not have).
    pub fn placement(&self, s: usize) -> Mat4 {
        self.placements.get(s).copied().unwrap_or(Mat4::IDENTITY)
    }

    /// Whose weights skinning uses.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Skin with the influences `engine` draws (`Engine::Stored`, the default, is the file's
    /// own) from now on, and re-skin the current frame with them. The profile's influences are
    /// computed once here, not per frame.
    pub fn set_engine(&mut self, rig: &Rig, engine: Engine) {
        if engine == self.engine {
            return;
        }
        self.engine = engine;
        self.drawn = if engine == Engine::Stored {
            Vec::new()
        } else {
            let joints = mesh_joint_counts(rig);
            (rig.meshes.iter().zip(joints))
                .map(|(mesh, joints)| {
                    (mesh.primitives.iter())
                        .map(|p| {
                            let drawn = drawn_influences(engine, p, joints);
                            let sets = drawn.sets.into_owned();
                            Some(EngineDraw { sets, fates: drawn.fates }).filter(|_| p.is_skinned())
                        })
                        .collect()
                })
                .collect()
        };
        for (packed, out) in self.packed.iter_mut().zip(&self.primitives) {
            let skin = out.skin.and_then(|s| rig.skins.get(s));
            let primitive = rig.meshes.get(out.mesh).and_then(|m| m.primitives.get(out.primitive));
            *packed = match (skin, primitive) {
                (Some(skin), Some(p)) => match influences(&self.drawn, out.mesh, out.primitive, p) {
                    [set] => PackedInfluences::new(set, skin.joints.len()),
                    _ => None,
                },
                _ => None,
            };
        }
        self.skin(rig);
    }

    /// The bind pose, placed where the rig draws it: for the bind-pose ghost and the model's
    /// size. Each joint's global is `P * inverse(IBM)` (the first skin listing it; a singular
    /// IBM leaves the rest-pose value), other nodes hang off their parents with their rest
    /// transforms. `P` is the skin's placement (`RestBind::placement`): identity when the rest
    /// pose keeps the bind pose, so every joint matrix is then exactly identity (set, not
    /// multiplied, so no round-off creeps in) and skinned primitives are their stored positions
    /// after morphing (rest weights), as the spec says. Rigid primitives use their bind
    /// globals (a prop parented to a hand follows the hand's bind pose).
    ///
    /// Where the whole skin is moved alike, `P` is that shared matrix: a quantized skin's
    /// dequantization (its stored positions are the quantizer's grid), or an exporter's
    /// centimetre-to-metre, Z-up-to-Y-up root. Its joint matrices are then `P` and its mesh is
    /// drawn in the world the rest pose is drawn in, not in bind space.
    pub fn evaluate_bind(&mut self, rig: &Rig) {
        self.pose.reset(rig);
        compute_bind_globals(rig, &self.pose, &self.bind, &mut self.globals);
        for (s, joints) in self.joint_matrices.iter_mut().enumerate() {
            joints.fill(self.placements.get(s).copied().unwrap_or(Mat4::IDENTITY));
        }
        // A `skin` without `update_matrices` after this must use the same matrices.
        for (palette, joints) in self.palettes.iter_mut().zip(&self.joint_matrices) {
            palette.begin(joints.len());
            for joint in joints {
                palette.push(&glam::Affine3A::from_mat4(*joint));
            }
        }
        self.deform(rig, true);
    }

    /// Axis-aligned bounds of every finite vertex of the current frame, `None` without one.
    /// In SIMD lanes: a large rig's box is a hot loop before the viewer's first frame, and the
    /// minima and maxima of finite values are exact in any width.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        let (mut lo, mut hi) = (Vec3A::splat(f32::INFINITY), Vec3A::splat(f32::NEG_INFINITY));
        for d in &self.primitives {
            for &p in &d.positions {
                let p = Vec3A::from(p);
                if p.is_finite() {
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
            }
        }
        (lo.x <= hi.x).then(|| (Vec3::from(lo), Vec3::from(hi)))
    }

    /// Morph, then skin or move rigidly, every primitive, into its buffers.
    fn deform(&mut self, rig: &Rig, bind_pose: bool) {
        let parallel = self.parallel;
        let Workspace {
            primitives,
            joint_matrices,
            globals,
            pose,
            palettes,
            packed,
            morphed,
            drawn,
            placements,
            ..
        } = self;
        for (index, out) in primitives.iter_mut().enumerate() {
            let Some(primitive) = rig.meshes.get(out.mesh).and_then(|m| m.primitives.get(out.primitive))
            else {
                continue;
            };
            let sets = influences(drawn, out.mesh, out.primitive, primitive);
            let weights = pose.morph_weights.get(out.node).map_or(&[][..], Vec::as_slice);
            let targets = &primitive.morph_targets;
            let fast = out.skin.filter(|_| !bind_pose).and_then(|s| {
                let [set] = sets else { return None };
                let palette = palettes.get(s).filter(|p| p.finite)?;
                let normals_match =
                    primitive.normals.as_ref().is_none_or(|n| n.len() == primitive.positions.len());
                normals_match.then_some((set, palette))
            });
            if let Some((set, palette)) = fast {
                let wide = match (packed.get(index), &palette.wide) {
                    (Some(Some(packed)), Some(wide)) => Some(WideInput {
                        palette: wide,
                        joints: &packed.joints,
                        weights: packed.weights(set),
                    }),
                    _ => None,
                };
                let stored_normals = primitive.normals.as_deref().unwrap_or_default();
                let input = if morph_active(targets, weights) {
                    let (positions, normals) = &mut *morphed;
                    positions.resize(primitive.positions.len(), Vec3::ZERO);
                    morph_into(&primitive.positions, targets, weights, Attribute::Position, positions);
                    normals.resize(stored_normals.len(), Vec3::ZERO);
                    morph_into(stored_normals, targets, weights, Attribute::Normal, normals);
                    SkinInput { positions, normals, joints: &set.joints, weights: &set.weights, wide }
                } else {
                    SkinInput {
                        positions: &primitive.positions,
                        normals: stored_normals,
                        joints: &set.joints,
                        weights: &set.weights,
                        wide,
                    }
                };
                skin_fast(input, &palette.narrow, &mut out.positions, &mut out.normals, parallel);
                apply_fates(drawn, primitive, weights, placements, joint_matrices, out);
                continue;
            }
            morph_into(&primitive.positions, targets, weights, Attribute::Position, &mut out.positions);
            if let Some(normals) = &primitive.normals {
                morph_into(normals, targets, weights, Attribute::Normal, &mut out.normals);
            }
            let joints = out.skin.and_then(|s| joint_matrices.get(s));
            match joints {
                Some(_) if bind_pose => match out.skin.and_then(|s| placements.get(s)) {
                    Some(placement) if *placement != Mat4::IDENTITY => {
                        rigid_in_place(&mut out.positions, &mut out.normals, placement)
                    }
                    _ => {
                        for n in &mut out.normals {
                            *n = n.normalize_or_zero();
                        }
                    }
                },
                Some(joints) => {
                    skin_in_place(&mut out.positions, &mut out.normals, sets, joints);
                    apply_fates(drawn, primitive, weights, placements, joint_matrices, out);
                }
                None => {
                    let global = *globals.get(out.node).unwrap_or(&Mat4::IDENTITY);
                    let instance = out.instance.and_then(|k| rig.nodes.get(out.node)?.instances.get(k));
                    let world = instance.map_or(global, |m| global * *m);
                    rigid_in_place(&mut out.positions, &mut out.normals, &world);
                }
            }
        }
    }
}

/// The model's size as drawn: the diagonal of the bounding box of its bind pose, placed where
/// the rig draws it (`Workspace::evaluate_bind`), in world units, the space every distance
/// rigscope measures on a drawn model is in (a centimetre mesh under a 0.01 root is its size
/// in metres, as three.js's world bounding box gives it). 0 without a drawn vertex. Every
/// comparison of a distance with the model's size goes through this (or `model_size_at_bind`
/// on a workspace already at the bind pose).
pub fn model_size(rig: &Rig) -> f32 {
    model_size_at_bind(&Workspace::at_bind(rig))
}

/// `model_size` of the rig `ws` was made for, `ws` being at its bind pose (`at_bind`, or
/// `evaluate_bind` last).
pub fn model_size_at_bind(ws: &Workspace) -> f32 {
    ws.bounds().map_or(0.0, |(lo, hi)| (hi - lo).length())
}

/// Where the engine profile draws the vertices it does not simply skin (`Fate`), over the
/// kernel's skinned positions of `out`.
fn apply_fates(
    drawn: &[Vec<Option<EngineDraw>>],
    primitive: &Primitive,
    morph_weights: &[f32],
    placements: &[Mat4],
    joint_matrices: &[Vec<Mat4>],
    out: &mut DeformedPrimitive,
) {
    let Some(Some(draw)) = drawn.get(out.mesh).and_then(|m| m.get(out.primitive)) else { return };
    let placement = out.skin.and_then(|s| placements.get(s)).copied().unwrap_or(Mat4::IDENTITY);
    let joints = out.skin.and_then(|s| joint_matrices.get(s)).map_or(&[][..], Vec::as_slice);
    let mut slots = Vec::new();
    for &(v, fate) in &draw.fates {
        if let Some(p) = out.positions.get_mut(v) {
            let unskinned =
                morphed_position(&primitive.positions, &primitive.morph_targets, morph_weights, v);
            let skinned = match fate {
                Fate::FromOrigin => {
                    slots.clear();
                    slots.extend(
                        draw.sets
                            .iter()
                            .filter_map(|s| Some((s.joints.get(v)?, s.weights.get(v)?)))
                            .flat_map(|(j, w)| j.iter().copied().zip(w.iter().copied())),
                    );
                    skin_point(&slots, joints, skinned_input(fate, unskinned))
                }
                _ => *p,
            };
            *p = drawn_point(fate, skinned, unskinned, &placement);
        }
    }
}

/// The influences a primitive is skinned with: the engine's where it has its own, else the
/// stored ones.
fn influences<'a>(
    drawn: &'a [Vec<Option<EngineDraw>>],
    mesh: usize,
    primitive: usize,
    stored: &'a Primitive,
) -> &'a [InfluenceSet] {
    match drawn.get(mesh).and_then(|m| m.get(primitive)) {
        Some(Some(d)) => &d.sets,
        _ => &stored.influences,
    }
}

/// Per mesh, the fewest joints of a skin some node draws it with (`usize::MAX` when none
/// does): the joints every influence can name.
pub(crate) fn mesh_joint_counts(rig: &Rig) -> Vec<usize> {
    let mut out = vec![usize::MAX; rig.meshes.len()];
    for node in &rig.nodes {
        if let (Some(m), Some(skin)) = (node.mesh, node.skin.and_then(|s| rig.skins.get(s)))
            && let Some(count) = out.get_mut(m)
        {
            *count = (*count).min(skin.joints.len());
        }
    }
    out
}

/// Whether morphing changes anything: some target with a finite, non-zero weight.
fn morph_active(targets: &[crate::rig::MorphTarget], weights: &[f32]) -> bool {
    targets.iter().zip(weights).any(|(_, &w)| w != 0.0 && w.is_finite())
}

/// A normal per position (zeros past the stored ones if the file has fewer), or empty
/// without normals.
fn normals_buffer(primitive: &Primitive) -> Vec<Vec3> {
    match &primitive.normals {
        Some(_) => vec![Vec3::ZERO; primitive.positions.len()],
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::test_rig::channel;
    use crate::rig::{
        InfluenceSet, Interpolation, Mesh, MorphTarget, Node, Property, Skin, Transform, WeightStorage,
    };
    use glam::Quat;

    fn close(a: Vec3, b: Vec3) -> bool {
        a.abs_diff_eq(b, 1e-5)
    }

    fn at(translation: Vec3) -> Transform {
        Transform { translation, ..Transform::IDENTITY }
    }

    /// Nodes: 0 root joint at the origin; 1 joint above it at (0,1,0), resting turned 90
    /// degrees about z (so rest != bind); 2 the skinned mesh node, moved by (100,0,0), which
    /// skinning must ignore; 3 a rigid prop hanging off joint 1 at (1,0,0); 4 an empty node.
    /// Bind pose: joint 0 at the origin, joint 1 at (0,1,0) unrotated.
    fn rig() -> Rig {
        let rz90 = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let influences = InfluenceSet {
            set: 0,
            joints: vec![[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]].into(),
            weights: vec![[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]].into(),
            weight_storage: WeightStorage::F32,
            joints_accessor: 0,
            weights_accessor: 0,
        };
        let skinned = Primitive {
            positions: vec![Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::new(1.0, 1.0, 0.0)].into(),
            normals: Some(vec![Vec3::X; 3].into()),
            influences: vec![influences],
            morph_targets: vec![MorphTarget {
                positions: Some(vec![Vec3::ZERO, Vec3::new(0.0, 0.0, 2.0), Vec3::ZERO].into()),
                normals: None,
            }],
            ..Primitive::default()
        };
        let unskinned = Primitive { positions: vec![Vec3::ZERO].into(), ..Primitive::default() };
        let prop = Primitive {
            positions: vec![Vec3::ZERO, Vec3::X].into(),
            normals: Some(vec![Vec3::X, Vec3::Y].into()),
            ..Primitive::default()
        };
        Rig {
            nodes: vec![
                Node { children: vec![1], ..Node::default() },
                Node {
                    parent: Some(0),
                    children: vec![3],
                    rest: Transform { translation: Vec3::Y, rotation: rz90, scale: Vec3::ONE },
                    ..Node::default()
                },
                Node {
                    rest: at(Vec3::new(100.0, 0.0, 0.0)),
                    mesh: Some(0),
                    skin: Some(0),
                    ..Node::default()
                },
                Node { parent: Some(1), rest: at(Vec3::X), mesh: Some(1), ..Node::default() },
                Node::default(),
            ],
            order: vec![0, 2, 4, 1, 3],
            skins: vec![Skin {
                joints: vec![0, 1],
                inverse_bind: vec![Mat4::IDENTITY, Mat4::from_translation(-Vec3::Y)],
                ..Skin::default()
            }],
            meshes: vec![
                Mesh { primitives: vec![skinned, unskinned], default_weights: vec![0.5], ..Mesh::default() },
                Mesh { primitives: vec![prop], ..Mesh::default() },
            ],
            ..Rig::default()
        }
    }

    /// Joint 1 turns from 0 to 90 degrees about z over one second.
    fn clip() -> Clip {
        let h = std::f32::consts::FRAC_1_SQRT_2;
        Clip {
            vrm: None,
            name: None,
            duration: 1.0,
            channels: vec![channel(
                1,
                Property::Rotation,
                Interpolation::Linear,
                &[0.0, 1.0],
                &[0., 0., 0., 1., 0., 0., h, h],
            )],
        }
    }

    #[test]
    fn one_entry_per_mesh_node_primitive_in_node_order() {
        let ws = Workspace::new(&rig());
        let layout: Vec<_> = ws
            .primitives
            .iter()
            .map(|p| (p.node, p.mesh, p.primitive, p.skin, p.positions.len(), p.normals.len()))
            .collect();
        assert_eq!(layout, vec![(2, 0, 0, Some(0), 3, 3), (2, 0, 1, None, 1, 0), (3, 1, 0, None, 2, 2)]);
    }

    #[test]
    fn skinned_vertices_follow_the_joints_and_ignore_the_mesh_node() {
        let rig = rig();
        let clip = clip();
        // Built straight at t = 1 (`at`); `evaluate` moves it to t = 0.5 below.
        let mut ws = Workspace::at(&rig, Some(&clip), 1.0);
        let skinned = &ws.primitives[0];
        // v0 on joint 0 (identity): (1,0,0), no +100 from the mesh node.
        assert!(close(skinned.positions[0], Vec3::X), "{}", skinned.positions[0]);
        // v1: morph (1,1,0) + 0.5 (0,0,2) = (1,1,1) -IBM-> (1,0,1) -Rz90-> (0,1,1) -T-> (0,2,1)
        assert!(close(skinned.positions[1], Vec3::new(0.0, 2.0, 1.0)));
        // v2: 0.5 (1,1,0) + 0.5 J1 (1,1,0) = 0.5 (1,1,0) + 0.5 (0,2,0) = (0.5, 1.5, 0)
        assert!(close(skinned.positions[2], Vec3::new(0.5, 1.5, 0.0)));
        // normal of v1: (1,0,0) turned 90 degrees -> (0,1,0)
        assert!(close(skinned.normals[1], Vec3::Y));
        // A primitive without influences on the skinned node is rigid: it does move by +100.
        assert!(close(ws.primitives[1].positions[0], Vec3::new(100.0, 0.0, 0.0)));
        // J1 = T(0,1,0) Rz90 T(0,-1,0) keeps the joint itself, (0,1,0), in place.
        assert!(close(ws.joint_matrices[0][1].transform_point3(Vec3::Y), Vec3::Y));

        // Halfway: 45 degrees. v1 -IBM-> (1,0,1) -> (0.7071068, 0.7071068, 1) + (0,1,0)
        ws.evaluate(&rig, Some(&clip), 0.5);
        let v1 = ws.primitives[0].positions[1];
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert!(close(v1, Vec3::new(h, 1.0 + h, 1.0)), "{v1}");
    }

    #[test]
    fn an_engine_profile_skins_with_its_own_weights_and_stored_comes_back_exactly() {
        let mut rig = rig();
        // v0 weighs half on joint 0, v2 a quarter on each joint: sums 0.5.
        let set = &mut rig.meshes[0].primitives[0].influences[0];
        set.weights = vec![[0.5, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.25, 0.25, 0.0, 0.0]].into();
        let clip = clip();
        let mut ws = Workspace::at(&rig, Some(&clip), 1.0);
        let stored = ws.primitives.clone();
        // Stored: v0 = 0.5 (1,0,0); v2 = 0.25 (1,1,0) + 0.25 (0,2,0) = (0.25, 0.75, 0).
        assert!(close(stored[0].positions[0], Vec3::new(0.5, 0.0, 0.0)));
        assert!(close(stored[0].positions[2], Vec3::new(0.25, 0.75, 0.0)));
        ws.set_engine(&rig, Engine::Three);
        assert_eq!(ws.engine(), Engine::Three);
        // three.js divides by the sum: v0 = (1,0,0); v2 = 0.5 (1,1,0) + 0.5 (0,2,0).
        assert!(close(ws.primitives[0].positions[0], Vec3::X));
        assert!(close(ws.primitives[0].positions[2], Vec3::new(0.5, 1.5, 0.0)));
        // Later frames keep the engine's weights.
        ws.evaluate(&rig, Some(&clip), 1.0);
        assert!(close(ws.primitives[0].positions[0], Vec3::X));
        ws.set_engine(&rig, Engine::Stored);
        assert_eq!(ws.primitives, stored);
    }

    #[test]
    fn at_bind_is_new_then_evaluate_bind_and_samples_poses_alike() {
        let rig = rig();
        let mut second = Workspace::new(&rig);
        second.evaluate_bind(&rig);
        let mut first = Workspace::at_bind(&rig);
        // Positions only: the normals the full workspace has are not made at all.
        assert!(second.primitives.iter().any(|p| !p.normals.is_empty()));
        assert!(first.primitives.iter().all(|p| p.normals.is_empty()));
        let bits = |ws: &Workspace| {
            let vectors = ws.primitives.iter().flat_map(|p| p.positions.iter());
            let mut out: Vec<u32> = vectors.flat_map(|v| v.to_array().map(f32::to_bits)).collect();
            let matrices = ws.globals.iter().chain(ws.joint_matrices.iter().flatten());
            out.extend(matrices.flat_map(|m| m.to_cols_array().map(f32::to_bits)));
            out
        };
        assert_eq!(bits(&first), bits(&second));
        // Nothing packed: `skin` takes the portable loop, with the same results.
        assert!(first.packed.iter().all(Option::is_none));
        for ws in [&mut first, &mut second] {
            ws.sample_pose(&rig, Some(&clip()), 0.5);
            ws.update_matrices(&rig);
            ws.skin(&rig);
        }
        assert_eq!(bits(&first), bits(&second));
    }

    #[test]
    fn rigid_props_follow_their_parent_joint() {
        let rig = rig();
        let mut ws = Workspace::new(&rig);
        ws.evaluate(&rig, Some(&clip()), 1.0);
        let prop = &ws.primitives[2];
        // G3 = T(0,1,0) Rz90 T(1,0,0): (0,0,0) -> (0,1,0) + (0,1,0) = (0,2,0);
        // (1,0,0) -> (2,0,0) -> (0,2,0) -> (0,3,0)
        assert!(close(prop.positions[0], Vec3::new(0.0, 2.0, 0.0)));
        assert!(close(prop.positions[1], Vec3::new(0.0, 3.0, 0.0)));
        // normals turn 90 degrees: x -> y, y -> -x
        assert!(close(prop.normals[0], Vec3::Y));
        assert!(close(prop.normals[1], -Vec3::X));
    }

    #[test]
    fn no_clip_is_the_rest_pose() {
        let rig = rig();
        let mut ws = Workspace::new(&rig);
        ws.evaluate(&rig, Some(&clip()), 0.0);
        ws.evaluate(&rig, None, 0.0);
        // Rest has joint 1 turned 90 degrees, same as the clip's end.
        assert!(close(ws.primitives[0].positions[1], Vec3::new(0.0, 2.0, 1.0)));
        assert_eq!(ws.pose, Pose::rest(&rig));
    }

    #[test]
    fn bind_pose_puts_joints_at_inverse_bind_and_skinned_vertices_at_their_stored_places() {
        let rig = rig();
        let mut ws = Workspace::new(&rig);
        ws.evaluate_bind(&rig);
        assert_eq!(ws.globals[0], Mat4::IDENTITY);
        assert_eq!(ws.globals[1], Mat4::from_translation(Vec3::Y));
        assert!(ws.joint_matrices[0].iter().all(|&j| j == Mat4::IDENTITY));
        // Stored positions after morph (rest weight 0.5 on v1's (0,0,2)).
        assert_eq!(
            ws.primitives[0].positions,
            vec![Vec3::X, Vec3::new(1.0, 1.0, 1.0), Vec3::new(1.0, 1.0, 0.0)]
        );
        // The prop follows joint 1's bind pose: (0,1,0) + (1,0,0).
        assert!(close(ws.primitives[2].positions[0], Vec3::new(1.0, 1.0, 0.0)));
        // And the animated pose again afterwards.
        ws.evaluate(&rig, Some(&clip()), 1.0);
        assert!(close(ws.primitives[0].positions[1], Vec3::new(0.0, 2.0, 1.0)));
    }

    #[test]
    fn evaluate_reuses_its_buffers() {
        let rig = rig();
        let clip = clip();
        let mut ws = Workspace::new(&rig);
        let before = (
            ws.globals.as_ptr(),
            ws.joint_matrices[0].as_ptr(),
            ws.primitives[0].positions.as_ptr(),
            ws.primitives[0].normals.as_ptr(),
            ws.pose.morph_weights[2].as_ptr(),
        );
        for i in 0..10 {
            ws.evaluate(&rig, Some(&clip), i as f32 * 0.1);
        }
        ws.evaluate_bind(&rig);
        let after = (
            ws.globals.as_ptr(),
            ws.joint_matrices[0].as_ptr(),
            ws.primitives[0].positions.as_ptr(),
            ws.primitives[0].normals.as_ptr(),
            ws.pose.morph_weights[2].as_ptr(),
        );
        assert_eq!(before, after);
    }

    #[test]
    fn a_different_rig_does_not_panic() {
        let mut ws = Workspace::new(&rig());
        ws.evaluate(&Rig::default(), Some(&clip()), 0.5);
        ws.evaluate_bind(&Rig::default());
        let mut ws = Workspace::new(&Rig::default());
        ws.evaluate(&rig(), Some(&clip()), 0.5);
        assert!(ws.primitives.is_empty());
    }

    /// On the bundled samples: every skinned vertex at several times against the spec
    /// formula evaluated per influence in f64 (from the same joint matrices and the rig's
    /// own morph targets and influences), on one core and on the pool.
    #[test]
    fn samples_skin_like_the_per_influence_reference() {
        use crate::anim::skinning::tests::reference_vertex;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
        for name in ["walker.glb", "tentacle.glb"] {
            let rig = crate::import::load(&dir.join(name)).expect("bundled sample loads");
            let mut ws = Workspace::new(&rig);
            let mut checked = 0;
            for (i, parallel) in [(0, false), (1, true), (2, false), (3, true)] {
                ws.set_parallel(parallel);
                let clip = rig.clips.first();
                let t = clip.map_or(0.0, |c| c.duration) * i as f32 / 3.0;
                ws.evaluate(&rig, clip, t);
                for dp in ws.primitives.iter().filter(|d| d.skin.is_some()) {
                    let prim = &rig.meshes[dp.mesh].primitives[dp.primitive];
                    let joints = &ws.joint_matrices[dp.skin.unwrap()];
                    let weights = &ws.pose.morph_weights[dp.node];
                    for v in 0..prim.positions.len() {
                        let mut p = prim.positions[v];
                        let mut n = prim.normals.as_ref().map_or(Vec3::ZERO, |n| n[v]);
                        for (target, &w) in prim.morph_targets.iter().zip(weights) {
                            p += target.positions.as_ref().map_or(Vec3::ZERO, |d| d[v]) * w;
                            n += target.normals.as_ref().map_or(Vec3::ZERO, |d| d[v]) * w;
                        }
                        let sets: Vec<_> =
                            prim.influences.iter().map(|s| (s.joints[v], s.weights[v])).collect();
                        let (rp, rn) = reference_vertex(joints, &sets, p, n);
                        let tol = 1e-5 * (1.0 + rp.abs().max_element());
                        assert!(
                            (dp.positions[v].as_dvec3() - rp).abs().max_element() <= tol,
                            "{name} v{v} t{t}"
                        );
                        if !dp.normals.is_empty() {
                            assert!(
                                (dp.normals[v].as_dvec3() - rn).abs().max_element() <= 1e-5,
                                "{name} n{v}"
                            );
                        }
                        checked += 1;
                    }
                }
            }
            assert!(checked > 100, "{name}: only {checked} vertices checked");
        }
    }

    #[test]
    fn each_gpu_instance_is_a_rigid_copy_at_world_times_instance() {
        let mut rig = rig();
        rig.nodes[3].instances =
            vec![Mat4::from_translation(Vec3::new(0.0, 0.0, 5.0)), Mat4::from_scale(Vec3::splat(2.0))];
        let ws = Workspace::new(&rig);
        let copies: Vec<_> = ws.primitives.iter().filter(|p| p.node == 3).collect();
        assert_eq!(copies.iter().map(|p| p.instance).collect::<Vec<_>>(), [Some(0), Some(1)]);
        // Node 3's world is T(0,1,0) Rz(90) T(1,0,0); Rz(90) takes (x,y,z) to (-y,x,z).
        // Instance 0: (0,0,0) -> (0,0,5) -> (1,0,5) -> (0,1,5) -> (0,2,5); X -> (0,3,5).
        // Instance 1: (0,0,0) -> (0,2,0) as before without the z; X -> 2X -> (3,0,0) -> (0,4,0).
        let v = Vec3::new;
        for (copy, want) in
            copies.iter().zip([[v(0.0, 2.0, 5.0), v(0.0, 3.0, 5.0)], [v(0.0, 2.0, 0.0), v(0.0, 4.0, 0.0)]])
        {
            for (got, want) in copy.positions.iter().zip(want) {
                assert!(got.abs_diff_eq(want, 1e-6), "{got} vs {want}");
            }
            assert!(copy.normals[0].abs_diff_eq(Vec3::Y, 1e-6), "{}", copy.normals[0]);
            assert!(copy.skin.is_none());
        }
        assert_eq!(ws.primitives.iter().filter(|p| p.node == 2 && p.instance.is_none()).count(), 2);
    }
}
