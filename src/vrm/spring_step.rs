//! Steps spring bones exactly as three-vrm 3.5.5 does (`@pixiv/three-vrm-springbone`):
//! `VRMSpringBoneManager` (`setInitState`, `update`, `_sortJoints`, `_insertJointSort`),
//! `VRMSpringBoneJoint` (`setInitState`, `update`, `_collision`, `_calcWorldSpaceBoneLength`)
//! and the collider shapes' `calculateCollision`.
//!
//! three-vrm reads each object's `matrixWorld` as three.js last stored it, which is not
//! always fresh: a joint's tail is read before the tail is updated in the same step, and at
//! load time a node no humanoid bone hangs under has never had its world matrix computed.
//! The result depends on that, so this keeps three.js's stored world matrices itself and
//! updates them at the moments three.js does, in f64 as JavaScript computes. Between steps
//! every world matrix is recomputed, as `renderer.render` (`scene.updateMatrixWorld`) does.

use super::springs::{Shape, SpringBones};
use crate::anim::Pose;
use crate::rig::{Rig, VrmVersion};
use glam::{DMat3, DMat4, DQuat, DVec3};

/// A three.js object the manager touches: a glTF node, a collider (a child three-vrm adds to
/// its node, after the node's own children), or the scene group above every root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Object {
    Node(usize),
    Collider(usize),
    Scene,
}

/// The simulation of one avatar's spring bones from its initial state.
#[derive(Debug, Clone)]
pub struct SpringSim {
    springs: SpringBones,
    /// `_sortedJoints`: joint indices, each after the joints it depends on.
    order: Vec<usize>,
    /// `_ancestors`: updated before any joint, the first with its parents.
    ancestors: Vec<Object>,
    /// Per joint: the objects `traverseChildrenUntilConditionMet` updates after it.
    below: Vec<Vec<Object>>,
    joints: Vec<JointState>,
    /// Per node: its parent (`Scene` for a root).
    parents: Vec<Object>,
    /// Per node: whether some joint rotates it.
    is_joint: Vec<bool>,
    /// Per node: three.js's `matrixWorld` as last stored.
    world: Vec<DMat4>,
    /// Per node: the local matrix of this step.
    local: Vec<DMat4>,
    /// Per node: the rotation the springs last gave it (`bone.quaternion`), for joint nodes.
    rotation: Vec<DQuat>,
    /// Per collider: `colliderMatrix`.
    collider_matrix: Vec<DMat4>,
}

#[derive(Debug, Clone, Default)]
struct JointState {
    initial_local: DMat4,
    initial_rotation: DQuat,
    initial_child: DVec3,
    bone_axis: DVec3,
    current_tail: DVec3,
    prev_tail: DVec3,
}

impl SpringSim {
    /// The state three-vrm's loader leaves: joints sorted, `setInitState` run on the rest
    /// pose with the world matrices three-vrm has at that moment.
    pub fn new(rig: &Rig, springs: &SpringBones) -> Self {
        let n = rig.nodes.len();
        let parents: Vec<Object> =
            rig.nodes.iter().map(|node| node.parent.map_or(Object::Scene, Object::Node)).collect();
        let mut is_joint = vec![false; n];
        for joint in &springs.joints {
            is_joint[joint.node] = true;
        }
        let rest = Pose::rest(rig);
        let local: Vec<DMat4> = (0..n).map(|i| rest.local_matrix(rig, i).as_dmat4()).collect();
        let rotation = rest.locals.iter().map(|t| t.rotation.as_dquat()).collect();
        let mut sim = Self {
            springs: springs.clone(),
            order: Vec::new(),
            ancestors: Vec::new(),
            below: Vec::new(),
            joints: vec![JointState::default(); springs.joints.len()],
            parents,
            is_joint,
            world: vec![DMat4::IDENTITY; n],
            local,
            rotation,
            collider_matrix: vec![DMat4::IDENTITY; springs.colliders.len()],
        };
        sim.sort(rig);
        sim.below = (0..springs.joints.len())
            .map(|j| sim.until_joints(rig, Object::Node(springs.joints[j].node)))
            .collect();
        sim.load_worlds(rig);
        for i in 0..sim.order.len() {
            let j = sim.order[i];
            let bone = sim.springs.joints[j].node;
            sim.update_world(Object::Node(bone));
            sim.init_joint(&rest, j);
        }
        sim.render();
        sim
    }

    /// What three.js has stored before the spring plugin's `setInitState`: VRM 0.x runs
    /// `gltf.scene.updateMatrixWorld()` first; VRM 1.0 does not, and only the humanoid bones
    /// and their ancestors have been computed (`VRMHumanoidRig` calls
    /// `updateWorldMatrix(true, false)` on each); everything else is still the identity.
    fn load_worlds(&mut self, rig: &Rig) {
        let vrm = rig.vrm.as_ref();
        let all = vrm.is_none_or(|v| v.version == VrmVersion::V0);
        let mut fresh = vec![all; rig.nodes.len()];
        for bone in vrm.map_or(&[][..], |v| v.bones.as_slice()) {
            let mut at = Some(bone.node);
            while let Some(node) = at.filter(|&n| n < fresh.len()) {
                fresh[node] = true;
                at = rig.nodes[node].parent;
            }
        }
        let globals = self.fresh_worlds();
        for (node, world) in globals.into_iter().enumerate() {
            self.world[node] = if fresh[node] { world } else { DMat4::IDENTITY };
        }
    }

    /// One `vrm.update(dt)` of the springs, then the render's full world matrix update.
    /// `pose` holds this step's animated locals; the joints' rotations are written into it.
    pub fn step(&mut self, rig: &Rig, pose: &mut Pose, dt: f64) {
        for node in 0..self.local.len() {
            if self.is_joint[node] {
                let t = pose.locals[node];
                self.local[node] = DMat4::from_scale_rotation_translation(
                    t.scale.as_dvec3(),
                    self.rotation[node],
                    t.translation.as_dvec3(),
                );
            } else {
                self.local[node] = pose.local_matrix(rig, node).as_dmat4();
            }
        }
        for i in 0..self.ancestors.len() {
            let object = self.ancestors[i];
            if i == 0 {
                self.update_with_parents(object);
            } else {
                self.update_world(object);
            }
        }
        for i in 0..self.order.len() {
            let j = self.order[i];
            let bone = self.springs.joints[j].node;
            self.update_world(Object::Node(bone));
            self.update_joint(j, dt);
            for k in 0..self.below[j].len() {
                let object = self.below[j][k];
                self.update_world(object);
            }
        }
        self.render();
        self.apply(pose);
    }

    /// `node`'s world matrix as three.js has it stored now (between steps: as the last
    /// step's render left it).
    pub fn stored_world(&self, node: usize) -> DMat4 {
        self.world.get(node).copied().unwrap_or(DMat4::IDENTITY)
    }

    /// Writes the joints' current rotations into `pose`.
    pub fn apply(&self, pose: &mut Pose) {
        for (node, is_joint) in self.is_joint.iter().enumerate() {
            if *is_joint {
                pose.locals[node].rotation = self.rotation[node].as_quat();
                pose.use_matrix[node] = false;
            }
        }
    }

    /// Every node's world matrix from this step's locals (`scene.updateMatrixWorld`).
    fn render(&mut self) {
        self.world = self.fresh_worlds();
    }

    fn fresh_worlds(&self) -> Vec<DMat4> {
        let mut out: Vec<Option<DMat4>> = vec![None; self.local.len()];
        for node in 0..self.local.len() {
            self.fresh_world(node, &mut out);
        }
        out.into_iter().map(|m| m.unwrap_or(DMat4::IDENTITY)).collect()
    }

    fn fresh_world(&self, node: usize, out: &mut [Option<DMat4>]) -> DMat4 {
        // Iterative: a deep chain must not overflow the stack.
        let mut chain = Vec::new();
        let mut at = Some(node);
        while let Some(n) = at {
            if out[n].is_some() || chain.contains(&n) {
                break;
            }
            chain.push(n);
            at = match self.parents[n] {
                Object::Node(p) => Some(p),
                _ => None,
            };
        }
        for &n in chain.iter().rev() {
            let parent = match self.parents[n] {
                Object::Node(p) => out[p].unwrap_or(DMat4::IDENTITY),
                _ => DMat4::IDENTITY,
            };
            out[n] = Some(parent * self.local[n]);
        }
        out[node].unwrap_or(DMat4::IDENTITY)
    }

    fn parent_world(&self, object: Object) -> DMat4 {
        match self.parent(object) {
            Some(Object::Node(p)) => self.world[p],
            _ => DMat4::IDENTITY,
        }
    }

    fn parent(&self, object: Object) -> Option<Object> {
        match object {
            Object::Node(n) => Some(self.parents[n]),
            Object::Collider(c) => Some(Object::Node(self.springs.colliders[c].node)),
            Object::Scene => None,
        }
    }

    /// `updateWorldMatrix(false, false)`; a collider also refreshes its `colliderMatrix`
    /// (`updateColliderMatrix`: the node's matrix with the offset moved into its translation).
    fn update_world(&mut self, object: Object) {
        match object {
            Object::Node(n) => self.world[n] = self.parent_world(object) * self.local[n],
            Object::Collider(c) => {
                let mut m = self.parent_world(object);
                let offset = self.springs.colliders[c].shape.offset();
                m.w_axis = m.transform_point3(offset).extend(1.0);
                self.collider_matrix[c] = m;
            }
            Object::Scene => {}
        }
    }

    /// `updateWorldMatrix(true, false)`.
    fn update_with_parents(&mut self, object: Object) {
        let mut chain = vec![object];
        while let Some(parent) = self.parent(*chain.last().unwrap_or(&Object::Scene)) {
            if chain.len() > self.local.len() + 2 {
                break;
            }
            chain.push(parent);
        }
        for &o in chain.iter().rev() {
            self.update_world(o);
        }
    }

    fn children(&self, rig: &Rig, object: Object) -> Vec<Object> {
        match object {
            Object::Node(n) => {
                let nodes = rig.nodes[n].children.iter().map(|&c| Object::Node(c));
                let colliders = (0..self.springs.colliders.len())
                    .filter(|&c| self.springs.colliders[c].node == n)
                    .map(Object::Collider);
                nodes.chain(colliders).collect()
            }
            Object::Collider(_) => Vec::new(),
            Object::Scene => {
                (0..rig.nodes.len()).filter(|&n| rig.nodes[n].parent.is_none()).map(Object::Node).collect()
            }
        }
    }

    /// `traverseChildrenUntilConditionMet(object, …)` with "is a joint" as the condition: the
    /// descendants in pre-order, not entering joints.
    fn until_joints(&self, rig: &Rig, object: Object) -> Vec<Object> {
        let mut out = Vec::new();
        let mut stack: Vec<Object> = self.children(rig, object).into_iter().rev().collect();
        while let Some(o) = stack.pop() {
            if matches!(o, Object::Node(n) if self.is_joint[n]) {
                continue;
            }
            out.push(o);
            stack.extend(self.children(rig, o).into_iter().rev());
        }
        out
    }

    /// `_sortJoints`: `_insertJointSort` for every joint in order, then `_ancestors` from the
    /// lowest common ancestor of what the joints depend on.
    fn sort(&mut self, rig: &Rig) {
        let count = self.springs.joints.len();
        let mut on_node: Vec<Vec<usize>> = vec![Vec::new(); rig.nodes.len()];
        for (j, joint) in self.springs.joints.iter().enumerate() {
            on_node[joint.node].push(j);
        }
        let mut sorter = Sorter {
            tried: vec![false; count],
            done: vec![false; count],
            order: Vec::new(),
            ancestors: Vec::new(),
        };
        for j in 0..count {
            self.insert(j, &on_node, &mut sorter);
        }
        self.order = sorter.order;
        if let Some(lca) = self.lowest_common_ancestor(&sorter.ancestors) {
            self.ancestors = vec![lca];
            let below = self.until_joints(rig, lca);
            self.ancestors.extend(below);
        }
    }

    fn insert(&self, j: usize, on_node: &[Vec<usize>], s: &mut Sorter) {
        if s.done[j] || s.tried[j] {
            return;
        }
        s.tried[j] = true;
        let joint = &self.springs.joints[j];
        // `dependencies`: the bone's parent, then every collider of its groups (a set).
        let mut dependencies = vec![self.parents[joint.node]];
        for &g in &joint.groups {
            for &c in &self.springs.groups[g].colliders {
                if !dependencies.contains(&Object::Collider(c)) {
                    dependencies.push(Object::Collider(c));
                }
            }
        }
        for dependency in dependencies {
            let mut path = vec![dependency];
            while let Some(parent) = self.parent(*path.last().unwrap_or(&Object::Scene)) {
                if path.len() > self.local.len() + 2 {
                    break;
                }
                path.push(parent);
            }
            let mut met_joint = false;
            let mut ancestor = None;
            for &object in path.iter().rev() {
                match object {
                    Object::Node(n) if !on_node[n].is_empty() => {
                        met_joint = true;
                        for &k in &on_node[n] {
                            self.insert(k, on_node, s);
                        }
                    }
                    _ if !met_joint => ancestor = Some(object),
                    _ => {}
                }
            }
            if let Some(a) = ancestor
                && !s.ancestors.contains(&a)
            {
                s.ancestors.push(a);
            }
        }
        s.order.push(j);
        s.done[j] = true;
    }

    /// `lowestCommonAncestor`: walking up from each object in turn, the first object every
    /// one of them has passed through.
    fn lowest_common_ancestor(&self, objects: &[Object]) -> Option<Object> {
        let mut counts: Vec<(Object, usize)> = Vec::new();
        for &object in objects {
            let mut current = Some(object);
            let mut steps = 0;
            while let Some(o) = current {
                let count = match counts.iter_mut().find(|(k, _)| *k == o) {
                    Some((_, c)) => {
                        *c += 1;
                        *c
                    }
                    None => {
                        counts.push((o, 1));
                        1
                    }
                };
                if count == objects.len() {
                    return Some(o);
                }
                current = self.parent(o);
                steps += 1;
                if steps > self.local.len() + 2 {
                    break;
                }
            }
        }
        None
    }

    fn center_to_world(&self, j: usize) -> DMat4 {
        self.springs.joints[j].center.map_or(DMat4::IDENTITY, |c| self.world[c])
    }

    fn world_to_center(&self, j: usize) -> DMat4 {
        self.center_to_world(j).inverse()
    }

    /// `VRMSpringBoneJoint.setInitState`.
    fn init_joint(&mut self, rest: &Pose, j: usize) {
        let joint = &self.springs.joints[j];
        let bone = joint.node;
        let position = rest.locals[bone].translation.as_dvec3();
        let initial_child = match joint.tail {
            Some(tail) => rest.locals[tail].translation.as_dvec3(),
            None => normalize(position) * 0.07,
        };
        let to_center = self.world_to_center(j);
        let tail = to_center.transform_point3(self.world[bone].transform_point3(initial_child));
        self.joints[j] = JointState {
            initial_local: self.local[bone],
            initial_rotation: self.rotation[bone],
            initial_child,
            bone_axis: normalize(initial_child),
            current_tail: tail,
            prev_tail: tail,
        };
    }

    /// `VRMSpringBoneJoint.update(delta)`.
    fn update_joint(&mut self, j: usize, delta: f64) {
        if delta <= 0.0 {
            return;
        }
        let joint = &self.springs.joints[j];
        let (bone, s) = (joint.node, joint.settings);
        let state = &self.joints[j];
        let bone_world = self.world[bone];
        let parent_world = self.parent_world(Object::Node(bone));
        // `_calcWorldSpaceBoneLength`: the tail as three.js last stored it.
        let bone_position = bone_world.w_axis.truncate();
        let tail_position = match joint.tail {
            Some(tail) => self.world[tail].w_axis.truncate(),
            None => bone_world.transform_point3(state.initial_child),
        };
        let length = (bone_position - tail_position).length();
        let axis = direction(parent_world, direction(state.initial_local, state.bone_axis));
        let inertia = (state.current_tail - state.prev_tail) * (1.0 - s.drag_force);
        let mut next = self.center_to_world(j).transform_point3(state.current_tail + inertia);
        next += axis * (s.stiffness * delta);
        next += s.gravity_dir * (s.gravity_power * delta);
        next = normalize(next - bone_position) * length + bone_position;
        self.collide(j, &mut next, bone_position, length);
        let to_center = self.world_to_center(j);
        let initial_inverse = (parent_world * self.joints[j].initial_local).inverse();
        let state = &mut self.joints[j];
        state.prev_tail = state.current_tail;
        state.current_tail = to_center.transform_point3(next);
        let to = normalize(initial_inverse.transform_point3(next));
        let rotation = state.initial_rotation * from_unit_vectors(state.bone_axis, to);
        self.rotation[bone] = rotation;
        let (scale, _, translation) = self.local[bone].to_scale_rotation_translation();
        self.local[bone] = DMat4::from_scale_rotation_translation(scale, rotation, translation);
        self.world[bone] = parent_world * self.local[bone];
    }

    /// `VRMSpringBoneJoint._collision`: each collider of each group, in order.
    fn collide(&self, j: usize, tail: &mut DVec3, bone_position: DVec3, length: f64) {
        let joint = &self.springs.joints[j];
        for &g in &joint.groups {
            for &c in &self.springs.groups[g].colliders {
                let shape = &self.springs.colliders[c].shape;
                let (distance, push) =
                    collision(shape, self.collider_matrix[c], *tail, joint.settings.hit_radius);
                if distance < 0.0 {
                    *tail += push * -distance;
                    let from_bone = *tail - bone_position;
                    *tail = from_bone * (length / from_bone.length()) + bone_position;
                }
            }
        }
    }
}

struct Sorter {
    tried: Vec<bool>,
    done: Vec<bool>,
    order: Vec<usize>,
    ancestors: Vec<Object>,
}

/// `calculateCollision` of each shape: the signed distance of a sphere of radius `radius` at
/// `point` from the collider, and the direction that pushes it out (meaningful when negative).
fn collision(shape: &Shape, matrix: DMat4, point: DVec3, radius: f64) -> (f64, DVec3) {
    let origin = matrix.w_axis.truncate();
    let outside = |target: DVec3, r: f64, inside: bool| {
        let length = target.length();
        let distance = if inside { r - radius - length } else { length - radius - r };
        if distance < 0.0 {
            let unit = target * (1.0 / length);
            (distance, if inside { -unit } else { unit })
        } else {
            (distance, target)
        }
    };
    match *shape {
        Shape::Sphere { radius: r, inside, .. } => outside(point - origin, r, inside),
        Shape::Capsule { offset, tail, radius: r, inside } => {
            let axis = matrix.transform_point3(tail - offset) - origin;
            let length_sq = axis.length_squared();
            let mut target = point - origin;
            let dot = axis.dot(target);
            if dot <= 0.0 {
            } else if length_sq <= dot {
                target -= axis;
            } else {
                target -= axis * (dot / length_sq);
            }
            outside(target, r, inside)
        }
        Shape::Plane { normal, .. } => {
            let target = point - origin;
            let normal_matrix = DMat3::from_mat4(matrix).inverse().transpose();
            let n = normalize(normal_matrix * normal);
            (target.dot(n) - radius, n)
        }
    }
}

/// three.js `Vector3.normalize`: a zero vector stays zero.
fn normalize(v: DVec3) -> DVec3 {
    let length = v.length();
    v / if length == 0.0 { 1.0 } else { length }
}

/// three.js `Vector3.transformDirection`: the upper 3x3 applied, then normalised.
fn direction(m: DMat4, v: DVec3) -> DVec3 {
    normalize(m.transform_vector3(v))
}

/// three.js `Quaternion.setFromUnitVectors`.
fn from_unit_vectors(from: DVec3, to: DVec3) -> DQuat {
    let r = from.dot(to) + 1.0;
    let (x, y, z, w) = if r < 1e-8 {
        if from.x.abs() > from.z.abs() { (-from.y, from.x, 0.0, 0.0) } else { (0.0, -from.z, from.y, 0.0) }
    } else {
        (from.y * to.z - from.z * to.y, from.z * to.x - from.x * to.z, from.x * to.y - from.y * to.x, r)
    };
    let length = (x * x + y * y + z * z + w * w).sqrt();
    if length == 0.0 {
        DQuat::IDENTITY
    } else {
        DQuat::from_xyzw(x / length, y / length, z / length, w / length)
    }
}

/// How many steps of `dt` reach `t` from the clip's start: `t / dt` rounded (three-vrm
/// steps by whatever it is given; a whole number of equal steps is what a fixed-rate loop
/// calling `vrm.update(dt)` does).
pub fn step_count(t: f64, dt: f64) -> usize {
    // NaN, zero and negative times or steps all take no steps.
    if t.is_nan() || dt.is_nan() || t <= 0.0 || dt <= 0.0 {
        return 0;
    }
    (t / dt).round() as usize
}
