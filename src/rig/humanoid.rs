//! VRM avatars: which node is which humanoid bone, and the expressions (blend shape groups)
//! with their morph target binds, as the file maps them; plus the specification's table of
//! humanoid bones (required, parent) that `diagnose` checks the mapping against.
//!
//! Names are kept as the file spells them (VRM 0.x and 1.0 name the thumb bones differently);
//! `canonical` gives the VRM 1.0 name, which the bone table uses. Nothing here reads files.

use super::look_at::{LookAt, Overrides};
use serde::Serialize;

/// Which VRM extension the mapping came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum VrmVersion {
    /// `extensions.VRM` (VRM 0.x).
    #[serde(rename = "0.x")]
    V0,
    /// `extensions.VRMC_vrm` (VRM 1.0).
    #[serde(rename = "1.0")]
    V1,
}

/// A VRM avatar's humanoid mapping and expressions.
#[derive(Debug, Clone, PartialEq)]
pub struct Vrm {
    pub version: VrmVersion,
    /// Every mapping entry in file order, duplicates included (the checks report them).
    pub bones: Vec<HumanBone>,
    pub expressions: Vec<Expression>,
    /// The gaze set-up, when the file has one (three-vrm has no lookAt otherwise).
    pub look_at: Option<LookAt>,
    /// The spring bones (VRM 0.x `secondaryAnimation`, 1.0 `VRMC_springBone`) as three-vrm
    /// builds them; empty when the file has none.
    pub springs: crate::vrm::SpringBones,
    /// The node constraints (`VRMC_node_constraint`) as three-vrm builds them; empty when the
    /// file has none.
    pub constraints: crate::vrm::NodeConstraints,
    /// Title, version, authors and licence, as the file states them.
    pub meta: crate::vrm::Meta,
}

/// What a VRM animation (`.vrma`, `VRMC_vrm_animation`) says its nodes are.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VrmAnimationMap {
    /// (VRM 1.0 bone name, node) in file order.
    pub bones: Vec<(String, usize)>,
    /// (expression name, is a preset, node): the node's translation x is the weight.
    pub expressions: Vec<(String, bool, usize)>,
    /// The node whose rotation is the gaze.
    pub look_at: Option<usize>,
}

/// One humanoid mapping entry.
#[derive(Debug, Clone, PartialEq)]
pub struct HumanBone {
    /// The bone name as the file spells it (`leftUpperArm`, VRM 0.x `leftThumbIntermediate`).
    pub name: String,
    pub node: usize,
    /// JSON pointer of the entry, for findings.
    pub pointer: String,
}

/// One expression (VRM 1.0) or blend shape group (VRM 0.x).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expression {
    /// The preset or custom name (VRM 1.0 key; VRM 0.x `name`).
    pub name: String,
    /// VRM 1.0: listed under `preset`; VRM 0.x: the group's `presetName` unless `unknown`.
    pub preset: Option<String>,
    pub is_binary: bool,
    pub binds: Vec<MorphBind>,
    /// VRM 1.0 `overrideBlink` / `overrideLookAt` / `overrideMouth` (VRM 0.x has none).
    #[serde(skip)]
    pub overrides: Overrides,
}

/// One morph target an expression drives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MorphBind {
    /// VRM 1.0 binds name a node...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<usize>,
    /// ...VRM 0.x binds name a mesh (every node drawing it is driven).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mesh: Option<usize>,
    /// Morph target index.
    pub index: usize,
    /// Target weight at full expression, 0..1 (VRM 0.x stores 0..100; divided by 100 here
    /// as three-vrm's `VRMExpressionLoaderPlugin` does).
    pub weight: f32,
}

impl Vrm {
    /// The humanoid bone name of `node` (the first entry mapping it), as the file spells it.
    pub fn bone_of(&self, node: usize) -> Option<&str> {
        self.bones.iter().find(|b| b.node == node).map(|b| b.name.as_str())
    }

    /// The node mapped to bone `canonical_name` (VRM 1.0 name; first entry wins).
    pub fn node_of(&self, canonical_name: &str) -> Option<usize> {
        self.bones.iter().find(|b| canonical(&b.name, self.version) == canonical_name).map(|b| b.node)
    }
}

/// The VRM 1.0 name of a bone. VRM 0.x's thumb is Proximal, Intermediate, Distal where 1.0's
/// is Metacarpal, Proximal, Distal (three-vrm `VRMHumanoidLoaderPlugin._v0Import` renames the
/// same way); every other name is the same in both.
pub fn canonical(name: &str, version: VrmVersion) -> &str {
    if version == VrmVersion::V1 {
        return name;
    }
    match name {
        "leftThumbProximal" => "leftThumbMetacarpal",
        "leftThumbIntermediate" => "leftThumbProximal",
        "rightThumbProximal" => "rightThumbMetacarpal",
        "rightThumbIntermediate" => "rightThumbProximal",
        other => other,
    }
}

/// A row of the specification's bone table (VRM 1.0 `humanoid.md`, "List of humanoid bones").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoneSpec {
    pub name: &'static str,
    /// The bone the specification names as its parent (`None` for hips).
    pub parent: Option<&'static str>,
    /// Required in VRM 1.0.
    pub required_v1: bool,
    /// Required in VRM 0.x (its README, "Defined bones": chest and neck are required too).
    pub required_v0: bool,
    /// "Needs Parent Bone: Yes": the bone may only be mapped when its parent is.
    pub needs_parent: bool,
}

const fn bone(
    name: &'static str,
    parent: Option<&'static str>,
    req1: bool,
    req0: bool,
    needs: bool,
) -> BoneSpec {
    BoneSpec { name, parent, required_v1: req1, required_v0: req0, needs_parent: needs }
}

const R: bool = true;
const O: bool = false;

/// Every humanoid bone, parents before children, under its VRM 1.0 name.
pub const BONES: &[BoneSpec] = &[
    bone("hips", None, R, R, O),
    bone("spine", Some("hips"), R, R, O),
    bone("chest", Some("spine"), O, R, O),
    bone("upperChest", Some("chest"), O, O, R),
    bone("neck", Some("upperChest"), O, R, O),
    bone("head", Some("neck"), R, R, O),
    bone("leftEye", Some("head"), O, O, O),
    bone("rightEye", Some("head"), O, O, O),
    bone("jaw", Some("head"), O, O, O),
    bone("leftUpperLeg", Some("hips"), R, R, O),
    bone("leftLowerLeg", Some("leftUpperLeg"), R, R, O),
    bone("leftFoot", Some("leftLowerLeg"), R, R, O),
    bone("leftToes", Some("leftFoot"), O, O, O),
    bone("rightUpperLeg", Some("hips"), R, R, O),
    bone("rightLowerLeg", Some("rightUpperLeg"), R, R, O),
    bone("rightFoot", Some("rightLowerLeg"), R, R, O),
    bone("rightToes", Some("rightFoot"), O, O, O),
    bone("leftShoulder", Some("upperChest"), O, O, O),
    bone("leftUpperArm", Some("leftShoulder"), R, R, O),
    bone("leftLowerArm", Some("leftUpperArm"), R, R, O),
    bone("leftHand", Some("leftLowerArm"), R, R, O),
    bone("rightShoulder", Some("upperChest"), O, O, O),
    bone("rightUpperArm", Some("rightShoulder"), R, R, O),
    bone("rightLowerArm", Some("rightUpperArm"), R, R, O),
    bone("rightHand", Some("rightLowerArm"), R, R, O),
    bone("leftThumbMetacarpal", Some("leftHand"), O, O, O),
    bone("leftThumbProximal", Some("leftThumbMetacarpal"), O, O, R),
    bone("leftThumbDistal", Some("leftThumbProximal"), O, O, R),
    bone("leftIndexProximal", Some("leftHand"), O, O, O),
    bone("leftIndexIntermediate", Some("leftIndexProximal"), O, O, R),
    bone("leftIndexDistal", Some("leftIndexIntermediate"), O, O, R),
    bone("leftMiddleProximal", Some("leftHand"), O, O, O),
    bone("leftMiddleIntermediate", Some("leftMiddleProximal"), O, O, R),
    bone("leftMiddleDistal", Some("leftMiddleIntermediate"), O, O, R),
    bone("leftRingProximal", Some("leftHand"), O, O, O),
    bone("leftRingIntermediate", Some("leftRingProximal"), O, O, R),
    bone("leftRingDistal", Some("leftRingIntermediate"), O, O, R),
    bone("leftLittleProximal", Some("leftHand"), O, O, O),
    bone("leftLittleIntermediate", Some("leftLittleProximal"), O, O, R),
    bone("leftLittleDistal", Some("leftLittleIntermediate"), O, O, R),
    bone("rightThumbMetacarpal", Some("rightHand"), O, O, O),
    bone("rightThumbProximal", Some("rightThumbMetacarpal"), O, O, R),
    bone("rightThumbDistal", Some("rightThumbProximal"), O, O, R),
    bone("rightIndexProximal", Some("rightHand"), O, O, O),
    bone("rightIndexIntermediate", Some("rightIndexProximal"), O, O, R),
    bone("rightIndexDistal", Some("rightIndexIntermediate"), O, O, R),
    bone("rightMiddleProximal", Some("rightHand"), O, O, O),
    bone("rightMiddleIntermediate", Some("rightMiddleProximal"), O, O, R),
    bone("rightMiddleDistal", Some("rightMiddleIntermediate"), O, O, R),
    bone("rightRingProximal", Some("rightHand"), O, O, O),
    bone("rightRingIntermediate", Some("rightRingProximal"), O, O, R),
    bone("rightRingDistal", Some("rightRingIntermediate"), O, O, R),
    bone("rightLittleProximal", Some("rightHand"), O, O, O),
    bone("rightLittleIntermediate", Some("rightLittleProximal"), O, O, R),
    bone("rightLittleDistal", Some("rightLittleIntermediate"), O, O, R),
];

/// The table row of a bone, by its VRM 1.0 name.
pub fn bone_spec(canonical_name: &str) -> Option<&'static BoneSpec> {
    BONES.iter().find(|b| b.name == canonical_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_parents_first_and_every_parent_is_a_bone() {
        for (i, b) in BONES.iter().enumerate() {
            if let Some(p) = b.parent {
                let at = BONES.iter().position(|x| x.name == p);
                assert!(at.is_some_and(|at| at < i), "{} before its parent {p}", b.name);
            }
        }
        // 15 required in 1.0 (humanoid.md), 17 in 0.x (chest and neck as well); 55 bones in all.
        assert_eq!(BONES.iter().filter(|b| b.required_v1).count(), 15);
        assert_eq!(BONES.iter().filter(|b| b.required_v0).count(), 17);
        assert_eq!(BONES.len(), 55);
    }

    #[test]
    fn vrm0_thumbs_are_renamed_and_nothing_else() {
        assert_eq!(canonical("leftThumbProximal", VrmVersion::V0), "leftThumbMetacarpal");
        assert_eq!(canonical("rightThumbIntermediate", VrmVersion::V0), "rightThumbProximal");
        assert_eq!(canonical("leftThumbDistal", VrmVersion::V0), "leftThumbDistal");
        assert_eq!(canonical("leftThumbProximal", VrmVersion::V1), "leftThumbProximal");
        assert_eq!(canonical("leftIndexProximal", VrmVersion::V0), "leftIndexProximal");
    }
}
