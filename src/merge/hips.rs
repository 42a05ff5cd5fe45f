//! The hips joint of a rig and the body's up direction, which `--in-place` needs to tell a
//! clip's travel (across the ground) from its height (along up).
//!
//! The hips are the humanoid landmark (`attach::landmarks`: the VRM mapping, else the alias
//! table retargeting uses). The body's up points from the hips to the head (else the neck,
//! else the topmost spine joint) in
//! the rest pose's world space, as the retargeting body frame defines it (skinning.md); the
//! ground is the world plane across the axis nearest that line (+Y, glTF's up, for a rig
//! standing as the spec asks; +Y too when the rig has neither). A body leans a little even in
//! a T-pose (0.2 degrees on Ready Player Me's), and a ground tilted by that much would raise
//! or lower hips that travel metres across it.

use glam::Vec3;

use crate::attach::landmarks::{Landmark, Landmarks};
use crate::rig::Rig;

/// A rig's hips and the up of the ground it stands on (a world axis).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hips {
    pub node: usize,
    pub up: Vec3,
}

/// The hips and up of `rig`; `None` when no node is the hips.
pub fn hips(rig: &Rig) -> Option<Hips> {
    let landmarks = Landmarks::find(rig);
    let node = landmarks.get(Landmark::Hips)?;
    let world = rig.rest_world();
    let at = |n: usize| world.get(n).map(|m| m.w_axis.truncate());
    let body_up =
        landmarks.top().and_then(|head| Some(at(head)? - at(node)?)).and_then(|d| d.try_normalize());
    Some(Hips { node, up: body_up.map_or(Vec3::Y, nearest_axis) })
}

/// The world axis (+X, -X, +Y, ...) nearest the direction `d`.
fn nearest_axis(d: Vec3) -> Vec3 {
    let axes = [Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y, Vec3::Z, Vec3::NEG_Z];
    axes.into_iter().max_by(|a, b| a.dot(d).total_cmp(&b.dot(d))).unwrap_or(Vec3::Y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walker_stands_up_along_y_and_namespaces_do_not_hide_its_hips() {
        let mut walker = crate::import::load_bytes(&crate::samplegen::walker(), "walker.glb", None).unwrap();
        let hips_node = walker.nodes.iter().position(|n| n.name.as_deref() == Some("hips")).unwrap();
        let found = hips(&walker).expect("hips");
        assert_eq!(found.node, hips_node);
        assert_eq!(found.up, Vec3::Y);
        for node in &mut walker.nodes {
            node.name = node.name.as_ref().map(|n| format!("mixamorig:{}", n.to_uppercase()));
        }
        assert_eq!(hips(&walker).map(|h| h.node), Some(hips_node));
    }

    #[test]
    fn the_ground_is_across_the_world_axis_nearest_the_body() {
        assert_eq!(nearest_axis(Vec3::new(0.0, 0.99, 0.04).normalize()), Vec3::Y);
        // A file standing on Z (against the spec, as some exporters write them).
        assert_eq!(nearest_axis(Vec3::new(0.1, -0.2, 0.97).normalize()), Vec3::Z);
        assert_eq!(nearest_axis(Vec3::new(0.0, -1.0, 0.0)), Vec3::NEG_Y);
    }
}
