//! How a skin's rest pose stands to its bind pose: one measure shared by `check`
//! (IBM_BIND_MISMATCH), the viewer's bone details and the bind-pose ghost, so the three
//! cannot disagree.
//!
//! The measure is the rest-pose joint matrix `G_rest(joint) * IBM` of every joint. When the
//! rest pose is the bind pose they are all identity. When every joint shares one matrix the
//! whole bind-space mesh is moved alike (a Z-up turn above the skeleton), and on a skin whose
//! POSITION is stored as integers (KHR_mesh_quantization) that shared matrix is the
//! dequantization the quantizer folded into the inverse bind matrices (gltfpack and
//! glTF Transform both do), so it is no mismatch at all: it is how the grid becomes the mesh.
//! That shared matrix is also where the rig draws its bind pose (`RestBind::placement`): the
//! bind-pose ghost and the model's size (`Workspace::model_size`) are taken there, in the world
//! every other distance is measured in.

use glam::Mat4;

use super::hierarchy::compute_globals;
use super::pose::Pose;
use crate::rig::Rig;

/// `G_rest * IBM` of every joint of one skin, and what the skin stores its positions as.
#[derive(Debug, Clone, PartialEq)]
pub struct RestBind {
    /// Per joint (indexed like `skin.joints`); `None` where the rest global is not finite
    /// (reported at the node instead) or the joint has no inverse bind matrix.
    pub joints: Vec<Option<Mat4>>,
    /// The skin's root joint's matrix, which every joint should share.
    pub common: Option<Mat4>,
    /// A mesh skinned by this skin stores POSITION as integers.
    pub quantized: bool,
}

/// How one joint's rest pose stands to its bind pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BindVerdict {
    /// The rest pose is the bind pose (for a quantized skin: up to the dequantization).
    Kept,
    /// The joint moves bind-space vertices differently from the skin's root joint: its
    /// matrix differs from `common` by `diff` in some element (NaN when not finite).
    Joint { diff: f32 },
    /// Every joint alike is off by `common` (a transform above the skeleton).
    Skin,
    /// The joint's rest global is not finite, or it has no inverse bind matrix.
    Unknown,
}

impl RestBind {
    /// Measures skin `s` of `rig` against the rest-pose globals `rest`.
    pub fn measure(rig: &Rig, s: usize, rest: &[Mat4]) -> RestBind {
        let Some(skin) = rig.skins.get(s) else {
            return RestBind { joints: Vec::new(), common: None, quantized: false };
        };
        let joints: Vec<Option<Mat4>> = skin
            .joints
            .iter()
            .zip(&skin.inverse_bind)
            .map(|(&node, ibm)| rest.get(node).filter(|g| g.is_finite()).map(|g| *g * *ibm))
            .collect();
        let root = skin.joint_order.first().copied().unwrap_or(0);
        let common = joints.get(root).copied().flatten();
        RestBind { joints, common, quantized: quantized_positions(rig, s) }
    }

    /// How far joint `j`'s matrix is from the root joint's (largest element difference; NaN
    /// when either is not finite), or `None` when it cannot be measured.
    pub fn joint_diff(&self, j: usize) -> Option<f32> {
        let m = self.joints.get(j).copied().flatten()?;
        Some(max_abs_diff(&m, &self.common?))
    }

    /// Whether joint `j` differs from the root joint by more than `tolerance`.
    pub fn joint_is_odd(&self, j: usize, tolerance: f32) -> bool {
        self.joint_diff(j).is_some_and(|d| d.is_nan() || d > tolerance)
    }

    /// Whether the whole skin is off by one transform that is not a dequantization: no joint
    /// is odd, and the shared matrix is not identity.
    pub fn skin_is_off(&self, tolerance: f32) -> bool {
        let Some(common) = self.common else { return false };
        let off = max_abs_diff(&common, &Mat4::IDENTITY);
        let odd = (0..self.joints.len()).any(|j| self.joint_is_odd(j, tolerance));
        !odd && (off.is_nan() || off > tolerance) && !self.quantized
    }

    /// Joint `j`'s verdict, exactly as `check` reports it: a joint finding when it is odd, the
    /// skin finding when the whole skin is off, else kept.
    pub fn verdict(&self, j: usize, tolerance: f32) -> BindVerdict {
        match self.joint_diff(j) {
            None => BindVerdict::Unknown,
            Some(diff) if diff.is_nan() || diff > tolerance => BindVerdict::Joint { diff },
            Some(_) if self.skin_is_off(tolerance) => BindVerdict::Skin,
            Some(_) => BindVerdict::Kept,
        }
    }

    /// Where the rig draws its bind pose: the transform from the stored (bind-space) positions
    /// to the world the rest pose is drawn in. The shared matrix when the whole skin is moved
    /// alike (a quantized skin's dequantization; an exporter's centimetre-to-metre or Z-up
    /// root, whose bind space is not the world); identity when the rest pose keeps the bind
    /// pose within `PLACEMENT_TOLERANCE` (bind space is the world), and when the shared matrix
    /// is not finite or not invertible (no placement to trust).
    pub fn placement(&self) -> Mat4 {
        match self.common {
            Some(common)
                if common.is_finite()
                    && common.determinant().abs() > f32::MIN_POSITIVE
                    && (self.quantized || max_abs_diff(&common, &Mat4::IDENTITY) > PLACEMENT_TOLERANCE) =>
            {
                common
            }
            _ => Mat4::IDENTITY,
        }
    }
}

/// The element difference from identity below which a skin's shared matrix is round-off and
/// the bind pose is drawn where it is stored (`check`'s default `ibm_tolerance`).
pub const PLACEMENT_TOLERANCE: f32 = 1e-3;

/// Every skin's `placement`, measured against the rig's rest pose.
pub fn bind_placements(rig: &Rig) -> Vec<Mat4> {
    let mut rest = vec![Mat4::IDENTITY; rig.nodes.len()];
    compute_globals(rig, &Pose::rest(rig), &mut rest);
    (0..rig.skins.len()).map(|s| RestBind::measure(rig, s, &rest).placement()).collect()
}

fn quantized_attribute(p: &crate::rig::PrimitiveStorage) -> bool {
    p.attributes.iter().any(|a| a.name == "POSITION" && a.component != "FLOAT")
}

/// Whether a mesh skinned by skin `s` stores POSITION as integers (KHR_mesh_quantization).
fn quantized_positions(rig: &Rig, s: usize) -> bool {
    let quantized = |m: usize| rig.storage.primitives.iter().any(|p| p.mesh == m && quantized_attribute(p));
    rig.nodes.iter().filter(|n| n.skin == Some(s)).filter_map(|n| n.mesh).any(quantized)
}

/// Largest element difference; NaN when any element of either is NaN.
fn max_abs_diff(a: &Mat4, b: &Mat4) -> f32 {
    a.to_cols_array()
        .iter()
        .zip(b.to_cols_array().iter())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f32, |m, d| if m.is_nan() || d.is_nan() { f32::NAN } else { m.max(d) })
}
