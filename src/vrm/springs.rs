//! A VRM avatar's spring bones as three-vrm 3.5.5 builds them from the file
//! (`@pixiv/three-vrm-springbone`, `VRMSpringBoneLoaderPlugin`): joints with their tail and
//! settings, colliders and collider groups, and the chains (VRM 1.0 `springs`, VRM 0.x bone
//! groups) they came from. Plain data: reading it is `read_springs`, stepping it `spring_step`.

use glam::DVec3;
use serde::Serialize;

/// Everything `VRMSpringBoneManager` holds for one avatar. Empty when the file has none.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SpringBones {
    /// `VRMSpringBoneJoint`s in the order `addJoint` received them (the manager's set order).
    pub joints: Vec<SpringJoint>,
    pub colliders: Vec<Collider>,
    pub groups: Vec<ColliderGroup>,
    /// VRM 1.0 springs or VRM 0.x bone groups, in file order.
    pub chains: Vec<Chain>,
}

impl SpringBones {
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }
}

/// One spring joint: `bone` swings so that its tail follows the simulated point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpringJoint {
    /// The node that rotates.
    pub node: usize,
    /// The node whose position is the tail (VRM 1.0: the next joint of the spring; VRM 0.x:
    /// the first child), or none: then the tail is 7 cm along the bone's own offset.
    pub tail: Option<usize>,
    pub settings: JointSettings,
    /// Collider groups (indices into `SpringBones::groups`) the tail collides with.
    pub groups: Vec<usize>,
    /// The node whose space the tail is simulated in (`center`), or the world.
    pub center: Option<usize>,
    /// The chain (index into `SpringBones::chains`) the joint belongs to.
    pub chain: usize,
}

/// `VRMSpringBoneJointSettings` with three-vrm's defaults already applied.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct JointSettings {
    pub hit_radius: f64,
    pub stiffness: f64,
    pub gravity_power: f64,
    /// World space, not normalised (three-vrm uses it as given).
    pub gravity_dir: DVec3,
    pub drag_force: f64,
}

impl Default for JointSettings {
    /// `VRMSpringBoneJoint`'s constructor defaults.
    fn default() -> Self {
        Self {
            hit_radius: 0.0,
            stiffness: 1.0,
            gravity_power: 0.0,
            gravity_dir: DVec3::NEG_Y,
            drag_force: 0.4,
        }
    }
}

/// A collider on a node, with its offset in the node's space.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Collider {
    pub node: usize,
    pub shape: Shape,
    /// JSON pointer of the collider, for findings.
    #[serde(skip)]
    pub pointer: String,
}

/// `VRMSpringBoneColliderShapeSphere` / `Capsule` / `Plane`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "lowercase", tag = "type")]
pub enum Shape {
    /// `inside`: the tail is kept inside the sphere instead of outside it.
    Sphere {
        offset: DVec3,
        radius: f64,
        inside: bool,
    },
    Capsule {
        offset: DVec3,
        tail: DVec3,
        radius: f64,
        inside: bool,
    },
    /// The tail is kept on the side `normal` points to.
    Plane {
        offset: DVec3,
        normal: DVec3,
    },
}

impl Shape {
    pub fn offset(&self) -> DVec3 {
        match *self {
            Shape::Sphere { offset, .. } | Shape::Capsule { offset, .. } | Shape::Plane { offset, .. } => {
                offset
            }
        }
    }

    /// The radius, none for a plane.
    pub fn radius(&self) -> Option<f64> {
        match *self {
            Shape::Sphere { radius, .. } | Shape::Capsule { radius, .. } => Some(radius),
            Shape::Plane { .. } => None,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Shape::Sphere { inside: false, .. } => "sphere",
            Shape::Sphere { inside: true, .. } => "inside sphere",
            Shape::Capsule { inside: false, .. } => "capsule",
            Shape::Capsule { inside: true, .. } => "inside capsule",
            Shape::Plane { .. } => "plane",
        }
    }
}

/// A named set of colliders (indices into `SpringBones::colliders`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColliderGroup {
    pub name: Option<String>,
    pub colliders: Vec<usize>,
}

/// A VRM 1.0 spring or a VRM 0.x bone group, as the file lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chain {
    pub name: Option<String>,
    /// VRM 1.0: the joint nodes in order (the last one is only a tail); VRM 0.x: the roots.
    pub nodes: Vec<usize>,
    pub center: Option<usize>,
    pub groups: Vec<usize>,
    /// JSON pointer of the spring or bone group, for findings.
    pub pointer: String,
}
