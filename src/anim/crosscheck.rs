//! The fast paths held to the general ones on any rig, for the fuzz targets and the tests:
//! the baked sampler against `sample`, the pose cache against `compute_globals` and
//! `compute_joint_matrices`, and the packed / wide skinning against `skin_in_place`. The
//! contract is the same bits (an exact zero may differ in sign), and never a NaN where the
//! general path has none.

use glam::{Mat4, Vec3};

use super::hierarchy::{compute_globals, compute_joint_matrices};
use super::morph::{Attribute, morph_into};
use super::pose::Pose;
use super::sample::sample;
use super::skinning::{rigid_in_place, skin_in_place};
use super::workspace::Workspace;
use crate::rig::{Clip, Rig};

/// Evaluates `clip` at `t` both ways in a fresh `Workspace`; `Err` names the first slot
/// where the two differ.
pub fn crosscheck(rig: &Rig, clip: Option<&Clip>, t: f32) -> Result<(), String> {
    let mut ws = Workspace::new(rig);
    ws.evaluate(rig, clip, t);

    let mut pose = Pose::rest(rig);
    if let Some(clip) = clip {
        sample(clip, t, &mut pose);
    }
    // Node constraints have one path, which both sides run after sampling.
    crate::vrm::constrain(rig, &mut pose);
    for (node, (want, got)) in pose.locals.iter().zip(&ws.pose.locals).enumerate() {
        let bits =
            |t: &crate::rig::Transform| (t.translation.to_array(), t.rotation.to_array(), t.scale.to_array());
        let (w, g) = (bits(want), bits(got));
        if !(same(&w.0, &g.0) && same(&w.1, &g.1) && same(&w.2, &g.2)) {
            return Err(format!("t={t}: node {node} sampled {got:?}, the reference gives {want:?}"));
        }
    }
    for (node, (want, got)) in pose.morph_weights.iter().zip(&ws.pose.morph_weights).enumerate() {
        if !same(want, got) {
            return Err(format!("t={t}: morph weights of node {node}: {got:?} vs {want:?}"));
        }
    }

    let mut globals = vec![Mat4::IDENTITY; rig.nodes.len()];
    compute_globals(rig, &pose, &mut globals);
    for (node, (want, got)) in globals.iter().zip(&ws.globals).enumerate() {
        if !same(&want.to_cols_array(), &got.to_cols_array()) {
            return Err(format!("t={t}: world matrix of node {node}: {got} vs {want}"));
        }
    }
    let mut joints: Vec<Vec<Mat4>> = rig.skins.iter().map(|s| vec![Mat4::IDENTITY; s.joints.len()]).collect();
    compute_joint_matrices(rig, &globals, &mut joints);
    for (skin, (want, got)) in joints.iter().zip(&ws.joint_matrices).enumerate() {
        for (joint, (w, g)) in want.iter().zip(got).enumerate() {
            if !same(&w.to_cols_array(), &g.to_cols_array()) {
                return Err(format!("t={t}: skin {skin} joint matrix {joint}: {g} vs {w}"));
            }
        }
    }

    for out in &ws.primitives {
        let Some(primitive) = rig.meshes.get(out.mesh).and_then(|m| m.primitives.get(out.primitive)) else {
            continue;
        };
        let weights = pose.morph_weights.get(out.node).map_or(&[][..], Vec::as_slice);
        let mut positions = vec![Vec3::ZERO; primitive.positions.len()];
        morph_into(
            &primitive.positions,
            &primitive.morph_targets,
            weights,
            Attribute::Position,
            &mut positions,
        );
        let mut normals = vec![Vec3::ZERO; out.normals.len()];
        if let Some(stored) = &primitive.normals {
            morph_into(stored, &primitive.morph_targets, weights, Attribute::Normal, &mut normals);
        }
        match out.skin.and_then(|s| joints.get(s)) {
            Some(joints) => skin_in_place(&mut positions, &mut normals, &primitive.influences, joints),
            None => rigid_in_place(&mut positions, &mut normals, &globals[out.node]),
        }
        let what = format!("t={t}: node {} mesh {} primitive {}", out.node, out.mesh, out.primitive);
        for (v, (want, got)) in positions.iter().zip(&out.positions).enumerate() {
            if !same(&want.to_array(), &got.to_array()) {
                return Err(format!("{what}: vertex {v} at {got}, the reference gives {want}"));
            }
        }
        for (v, (want, got)) in normals.iter().zip(&out.normals).enumerate() {
            if !same(&want.to_array(), &got.to_array()) {
                return Err(format!("{what}: normal {v} is {got}, the reference gives {want}"));
            }
        }
    }
    Ok(())
}

/// Same bits, except that an exact zero may have either sign and NaN equals NaN.
fn same(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.to_bits() == y.to_bits() || (*x == 0.0 && *y == 0.0) || (x.is_nan() && y.is_nan())
        })
}

#[cfg(test)]
mod tests {
    use super::crosscheck;

    /// Every bundled sample, every clip, at key-ish and odd times (NaN, negative, huge).
    #[test]
    fn the_samples_agree_on_every_path() {
        let times = [f32::NAN, -1.0, 0.0, 0.1, 0.37, 0.5, 1.0, 2.5, 1e9, f32::INFINITY];
        for (name, bytes) in crate::samplegen::all() {
            let rig = crate::load_bytes(&bytes, name, None).expect("a sample loads");
            let clips: Vec<Option<&crate::rig::Clip>> =
                std::iter::once(None).chain(rig.clips.iter().map(Some)).collect();
            for clip in clips {
                for t in times {
                    if let Err(e) = crosscheck(&rig, clip, t) {
                        panic!("{name}: {e}");
                    }
                }
            }
        }
    }
}
