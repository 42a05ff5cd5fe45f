//! What changed between two versions of a rig: a pure function from two `Rig`s and a
//! tolerance to a `RigDiff` (no I/O; `render_text` and serde only format it).
//!
//! Everything is matched by name (a node or clip without one by `#index`): joints, skins,
//! clips, and mesh primitives by their node. Joints that lost their match are paired as a
//! rename when the structure leaves no doubt (same parent, same place among its children,
//! same rest transform); clips that lost theirs, when their keys are the same. Poses are compared by running both rigs through the same jobs the
//! viewer uses (`anim::Workspace`) at the same times. Every number is compared against one
//! tolerance (file units, radians, seconds, weights, matrix elements alike): differences at
//! or below it are not changes, so two exports of the same rig diff equal.

mod clips;
mod joints;
mod meshes;
mod text;

#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::rig::Rig;

pub use clips::{ClipChange, ClipChanges, ClipPair, InterpolationChange, PeakPosition, PeakRotation};
pub use joints::{JointChanges, JointMap, Rename, Reparent, RestChange, SkinChange, SkinChanges};
pub use meshes::{DeformedPeak, MeshChange, MeshChanges, WeightChanges, WeightPeak};
pub use text::render_text;

/// The default `--tol`: well above f32 round-off of a re-export, well below anything visible.
pub const DEFAULT_TOLERANCE: f32 = 1e-4;

/// Every change found between rig `a` and rig `b` (the `diff --json` document).
/// The version of the `diff --json` document.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RigDiff {
    pub format_version: u32,
    pub a: String,
    pub b: String,
    pub tolerance: f32,
    /// No change anywhere below.
    pub equal: bool,
    pub joints: JointChanges,
    pub skins: SkinChanges,
    pub clips: ClipChanges,
    pub meshes: MeshChanges,
}

/// Compares `a` with `b`: what `b` changes relative to `a`.
pub fn diff(a: &Rig, b: &Rig, tolerance: f32) -> RigDiff {
    let tol = if tolerance.is_finite() { tolerance.abs() } else { DEFAULT_TOLERANCE };
    let map = JointMap::new(a, b, tol);
    let joints = joints::compare_joints(a, b, &map, tol);
    let skins = joints::compare_skins(a, b, &map, tol);
    let (clips, samples) = clips::compare_clips(a, b, &map, tol);
    let meshes = meshes::compare_meshes(a, b, &map, &samples, tol);
    let equal = joints.is_empty() && skins.is_empty() && clips.is_empty() && meshes.is_empty();
    RigDiff {
        format_version: FORMAT_VERSION,
        a: a.source.clone(),
        b: b.source.clone(),
        tolerance: tol,
        equal,
        joints,
        skins,
        clips,
        meshes,
    }
}

/// The part of a `RigDiff` that needs no sampling: joints (added, removed, renamed,
/// reparented, rest pose) and clips (added, removed, renamed, duration), matched exactly as
/// `diff` matches them. Cheap enough for the viewer to run on every live reload.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outline {
    pub joints: JointChanges,
    /// `changed` holds only duration changes.
    pub clips: ClipChanges,
}

pub fn outline(a: &Rig, b: &Rig, tolerance: f32) -> Outline {
    let tol = if tolerance.is_finite() { tolerance.abs() } else { DEFAULT_TOLERANCE };
    let map = JointMap::new(a, b, tol);
    let pairs = clips::pair_clips(a, b, &map, tol);
    Outline {
        joints: joints::compare_joints(a, b, &map, tol),
        clips: clips::outline_clips(a, b, &pairs, tol),
    }
}

/// The angle in radians between two rotations (0 for `q` and `-q`). `2 atan2(|a - b|, |a + b|)`
/// rather than `2 acos(a . b)`: acos of a dot product rounded to 0.99999994 is already 0.04
/// degrees, which would make a file differ from itself.
pub fn angle_between(a: glam::Quat, b: glam::Quat) -> f32 {
    let (a, mut b) = (glam::Vec4::from(a.normalize()), glam::Vec4::from(b.normalize()));
    if a.dot(b) < 0.0 {
        b = -b;
    }
    2.0 * (a - b).length().atan2((a + b).length())
}
