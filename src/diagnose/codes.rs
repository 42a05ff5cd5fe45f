//! Every finding code `diagnose` can emit, each with its fixed severity.
//!
//! Codes that the Khronos glTF-Validator has keep its name and its severity (as declared in
//! KhronosGroup/glTF-Validator `lib/src/errors.dart`); rigscope's own codes start with `RIG_`.

use crate::rig::Severity;

/// A finding code and the severity it always carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    pub id: &'static str,
    pub severity: Severity,
}

const fn error(id: &'static str) -> Code {
    Code { id, severity: Severity::Error }
}

const fn warning(id: &'static str) -> Code {
    Code { id, severity: Severity::Warning }
}

const fn info(id: &'static str) -> Code {
    Code { id, severity: Severity::Info }
}

// Per-vertex skin data (validator: DataError, checked in data_access/validate_accessors.dart).
pub const JOINTS_INDEX_OOB: Code = error("ACCESSOR_JOINTS_INDEX_OOB");
pub const JOINTS_INDEX_DUPLICATE: Code = error("ACCESSOR_JOINTS_INDEX_DUPLICATE");
pub const WEIGHTS_NEGATIVE: Code = error("ACCESSOR_WEIGHTS_NEGATIVE");
pub const WEIGHTS_NON_NORMALIZED: Code = error("ACCESSOR_WEIGHTS_NON_NORMALIZED");
pub const JOINTS_USED_ZERO_WEIGHT: Code = warning("ACCESSOR_JOINTS_USED_ZERO_WEIGHT");
pub const INVALID_FLOAT: Code = error("ACCESSOR_INVALID_FLOAT");

// Skins (validator: base/skin.dart).
pub const INVALID_IBM: Code = error("ACCESSOR_INVALID_IBM");
pub const INVALID_IBM_ACCESSOR_COUNT: Code = error("INVALID_IBM_ACCESSOR_COUNT");
pub const SKIN_NO_COMMON_ROOT: Code = error("SKIN_NO_COMMON_ROOT");
pub const SKIN_SKELETON_INVALID: Code = error("SKIN_SKELETON_INVALID");

// Nodes (validator: base/node.dart and the node pass of base/gltf.dart).
pub const NODE_SKINNED_MESH_LOCAL_TRANSFORMS: Code = warning("NODE_SKINNED_MESH_LOCAL_TRANSFORMS");
pub const NODE_SKINNED_MESH_NON_ROOT: Code = warning("NODE_SKINNED_MESH_NON_ROOT");
pub const NODE_SKIN_WITH_NON_SKINNED_MESH: Code = error("NODE_SKIN_WITH_NON_SKINNED_MESH");
pub const NODE_SKINNED_MESH_WITHOUT_SKIN: Code = warning("NODE_SKINNED_MESH_WITHOUT_SKIN");

// Animations (validator: base/animation.dart).
pub const ANIMATION_CHANNEL_TARGET_NODE_SKIN: Code = warning("ANIMATION_CHANNEL_TARGET_NODE_SKIN");
pub const ANIMATION_INPUT_NEGATIVE: Code = error("ACCESSOR_ANIMATION_INPUT_NEGATIVE");
pub const ANIMATION_INPUT_NON_INCREASING: Code = error("ACCESSOR_ANIMATION_INPUT_NON_INCREASING");
pub const NON_NORMALIZED_QUATERNION: Code =
    error("ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION");

// rigscope's own.
pub const JOINT_UNUSED: Code = info("RIG_JOINT_UNUSED");
pub const JOINT_FEW_VERTICES: Code = info("RIG_JOINT_FEW_VERTICES");
pub const MORE_THAN_4_INFLUENCES: Code = warning("RIG_MORE_THAN_4_INFLUENCES");
pub const IBM_BIND_MISMATCH: Code = info("RIG_IBM_BIND_MISMATCH");
pub const ROTATION_HEMISPHERE_FLIP: Code = info("RIG_ROTATION_HEMISPHERE_FLIP");
pub const ROTATION_NEAR_OPPOSITE: Code = warning("RIG_ROTATION_NEAR_OPPOSITE");

// VRM humanoid rules (rigscope's own; see diagnose/humanoid.rs and docs/vrm.md).
pub const VRM_REQUIRED_BONE_MISSING: Code = error("RIG_VRM_REQUIRED_BONE_MISSING");
pub const VRM_BONE_MAPPED_TWICE: Code = error("RIG_VRM_BONE_MAPPED_TWICE");
pub const VRM_NODE_MAPPED_TWICE: Code = error("RIG_VRM_NODE_MAPPED_TWICE");
pub const VRM_BONE_PARENT: Code = error("RIG_VRM_BONE_PARENT");
pub const VRM_BONE_NEEDS_PARENT: Code = error("RIG_VRM_BONE_NEEDS_PARENT");
pub const VRM_UNKNOWN_BONE: Code = warning("RIG_VRM_UNKNOWN_BONE");

// VRM spring bone rules (see diagnose/springs.rs and docs/vrm.md).
pub const VRM_SPRING_NOT_A_CHAIN: Code = error("RIG_VRM_SPRING_NOT_A_CHAIN");
pub const VRM_SPRING_JOINT_SHARED: Code = error("RIG_VRM_SPRING_JOINT_SHARED");
pub const VRM_SPRING_ZERO_LENGTH: Code = warning("RIG_VRM_SPRING_ZERO_LENGTH");
pub const VRM_SPRING_NEGATIVE_RADIUS: Code = error("RIG_VRM_SPRING_NEGATIVE_RADIUS");

// `check` over several files (diagnose/batch.rs): a file it cannot load.
pub const LOAD_FAILED: Code = error("RIG_LOAD_FAILED");

/// Every code the rules above emit, and `check`'s own for a file it cannot load.
pub const ALL: &[Code] = &[
    JOINTS_INDEX_OOB,
    JOINTS_INDEX_DUPLICATE,
    WEIGHTS_NEGATIVE,
    WEIGHTS_NON_NORMALIZED,
    JOINTS_USED_ZERO_WEIGHT,
    INVALID_FLOAT,
    INVALID_IBM,
    INVALID_IBM_ACCESSOR_COUNT,
    SKIN_NO_COMMON_ROOT,
    SKIN_SKELETON_INVALID,
    NODE_SKINNED_MESH_LOCAL_TRANSFORMS,
    NODE_SKINNED_MESH_NON_ROOT,
    NODE_SKIN_WITH_NON_SKINNED_MESH,
    NODE_SKINNED_MESH_WITHOUT_SKIN,
    ANIMATION_CHANNEL_TARGET_NODE_SKIN,
    ANIMATION_INPUT_NEGATIVE,
    ANIMATION_INPUT_NON_INCREASING,
    NON_NORMALIZED_QUATERNION,
    JOINT_UNUSED,
    JOINT_FEW_VERTICES,
    MORE_THAN_4_INFLUENCES,
    IBM_BIND_MISMATCH,
    ROTATION_HEMISPHERE_FLIP,
    ROTATION_NEAR_OPPOSITE,
    VRM_REQUIRED_BONE_MISSING,
    VRM_BONE_MAPPED_TWICE,
    VRM_NODE_MAPPED_TWICE,
    VRM_BONE_PARENT,
    VRM_BONE_NEEDS_PARENT,
    VRM_UNKNOWN_BONE,
    LOAD_FAILED,
    VRM_SPRING_NOT_A_CHAIN,
    VRM_SPRING_JOINT_SHARED,
    VRM_SPRING_ZERO_LENGTH,
    VRM_SPRING_NEGATIVE_RADIUS,
];

/// Codes the loader records in `Rig::findings` (they appear in `check` reports too).
pub const LOAD_CODES: &[&str] = &[
    "ACCESSOR_NORMALIZED_INVALID",
    "MESH_PRIMITIVE_POSITION_ACCESSOR_WITHOUT_BOUNDS",
    "NODE_MATRIX_NON_TRS",
    "NODE_MATRIX_TRS",
    "RIG_ATTRIBUTE_IGNORED",
    "RIG_NODE_TRANSFORM_NOT_FINITE",
    "RIG_PRIMITIVE_WITHOUT_POSITION",
    "ROTATION_NON_UNIT",
    "SCENE_NON_ROOT_NODE",
    "SKIN_JOINT_DUPLICATE",
    "SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE",
    "UNDECLARED_EXTENSION",
    "RIG_IBM_EXTRA_MATRICES",
    "RIG_INSTANCING_IGNORED",
    "RIG_ANIMATION_POINTER_INVALID",
    "RIG_VRM_INVALID",
    "RIG_VRM_SPRING_COLLIDER_NODE",
    "RIG_VRM_CONSTRAINT_SOURCE",
    "RIG_VRM_CONSTRAINT_CYCLE",
    "RIG_VRM_CONSTRAINT_WEIGHT",
    "RIG_VRM_CONSTRAINT_AXIS",
];

/// Whether any rule or the loader can report `id`.
pub fn is_known(id: &str) -> bool {
    ALL.iter().any(|c| c.id == id) || LOAD_CODES.contains(&id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_listed_once() {
        for (i, a) in ALL.iter().enumerate() {
            assert!(!ALL[i + 1..].iter().any(|b| b.id == a.id), "{} twice", a.id);
            assert!(!LOAD_CODES.contains(&a.id), "{} in both lists", a.id);
        }
        assert!(is_known("ACCESSOR_WEIGHTS_NON_NORMALIZED"));
        assert!(is_known("ROTATION_NON_UNIT"));
        assert!(!is_known("ACCESSOR_WEIGHTS_NON_NORMALISED"));
    }
}
