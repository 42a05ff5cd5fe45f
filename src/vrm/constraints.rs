//! A VRM avatar's node constraints (`VRMC_node_constraint` 1.0) as three-vrm 3.5.5 builds
//! them (`@pixiv/three-vrm-node-constraint`, `VRMNodeConstraintLoaderPlugin`): one roll, aim
//! or rotation constraint per destination node, its initial state (`setInitState`) and the
//! order `VRMNodeConstraintManager.update` runs them in. Plain data: reading it is
//! `read_constraints`, applying it `constraint_step`.

use glam::{DQuat, DVec3};
use serde::Serialize;

/// Everything `VRMNodeConstraintManager` holds for one avatar. Empty when the file has none.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NodeConstraints {
    /// In the order `addConstraint` received them: by destination node index.
    pub constraints: Vec<NodeConstraint>,
    /// Indices into `constraints` in the order `update` runs them: each after the
    /// constraints on its dependencies and their ancestors (`_processConstraint`).
    pub order: Vec<usize>,
}

impl NodeConstraints {
    pub fn is_empty(&self) -> bool {
        self.constraints.is_empty()
    }
}

/// One constraint: `destination`'s rotation follows `source`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeConstraint {
    /// The node carrying the extension, whose rotation the constraint sets.
    pub destination: usize,
    pub source: usize,
    #[serde(flatten)]
    pub kind: ConstraintKind,
    /// As the file gives it (default 1); outside 0..1 it extrapolates, as three-vrm's slerp does.
    pub weight: f64,
    /// `setInitState`: the destination's and the source's local rotation at load.
    #[serde(skip)]
    pub rest: InitialState,
    /// JSON pointer of the constraint object, for findings.
    pub pointer: String,
}

/// The rotations `setInitState` keeps (the rest pose's local rotations).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct InitialState {
    pub destination: DQuat,
    pub source: DQuat,
}

/// `VRMRollConstraint`, `VRMAimConstraint`, `VRMRotationConstraint`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "lowercase", tag = "type")]
pub enum ConstraintKind {
    /// The destination turns with the source's twist about `axis` (its local axis).
    Roll { axis: Axis },
    /// The destination's local `axis` points at the source.
    Aim { axis: Axis },
    /// The destination turns as the source turns from its rest rotation.
    Rotation,
}

impl ConstraintKind {
    pub fn name(&self) -> &'static str {
        match self {
            ConstraintKind::Roll { .. } => "roll",
            ConstraintKind::Aim { .. } => "aim",
            ConstraintKind::Rotation => "rotation",
        }
    }
}

/// A `rollAxis` or `aimAxis` as the file spells it, with the vector three-vrm's setter makes
/// of it (the zero vector for a name it does not know). Serialised as the name, or null.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Axis {
    /// `X`, `PositiveX`, ...; none when the file's value is not one of them.
    pub name: Option<&'static str>,
    pub vector: DVec3,
}

impl Serialize for Axis {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.name.serialize(serializer)
    }
}

/// `rollAxis` names and their vectors (`VRMRollConstraint.rollAxis` setter).
pub const ROLL_AXES: [(&str, DVec3); 3] = [("X", DVec3::X), ("Y", DVec3::Y), ("Z", DVec3::Z)];

/// `aimAxis` names and their vectors (`VRMAimConstraint.aimAxis` setter).
pub const AIM_AXES: [(&str, DVec3); 6] = [
    ("PositiveX", DVec3::X),
    ("NegativeX", DVec3::NEG_X),
    ("PositiveY", DVec3::Y),
    ("NegativeY", DVec3::NEG_Y),
    ("PositiveZ", DVec3::Z),
    ("NegativeZ", DVec3::NEG_Z),
];

impl Axis {
    /// The axis `name` denotes among `names`, or the zero vector three-vrm computes with.
    pub fn named(name: &str, names: &[(&'static str, DVec3)]) -> Axis {
        match names.iter().find(|(n, _)| *n == name) {
            Some(&(name, vector)) => Axis { name: Some(name), vector },
            None => Axis { name: None, vector: DVec3::ZERO },
        }
    }
}
