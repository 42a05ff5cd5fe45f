//! Rest-pose global transforms: what the checks use when the caller has no pose of its own.
//!
//! Kept local (rather than calling `anim`) so the diagnostics stay a pure function of the
//! `Rig`; it follows the same contract: local = `matrix` when the file gives one, else
//! `T * R * S`; global = `parent_global * local`, walked parents-first along `rig.order`.

use crate::rig::Rig;
use glam::Mat4;

/// World matrix of every node (index = node index) with every node at its file transform.
pub fn rest_globals(rig: &Rig) -> Vec<Mat4> {
    let mut globals = vec![Mat4::IDENTITY; rig.nodes.len()];
    for &n in &rig.order {
        let Some(node) = rig.nodes.get(n) else {
            continue;
        };
        let local = node.matrix.unwrap_or_else(|| node.rest.to_matrix());
        let parent = node.parent.and_then(|p| globals.get(p).copied()).unwrap_or(Mat4::IDENTITY);
        globals[n] = parent * local;
    }
    globals
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{Node, Transform};
    use glam::{Quat, Vec3};

    #[test]
    fn child_composes_after_parent() {
        // Parent: translate (1,0,0) and turn 90 deg about z; child: translate (1,0,0).
        // The child's origin lands at (1,0,0) + Rz(90)(1,0,0) = (1,1,0).
        let parent = Node {
            rest: Transform {
                translation: Vec3::X,
                rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
                scale: Vec3::ONE,
            },
            children: vec![1],
            ..Node::default()
        };
        let child =
            Node { parent: Some(0), matrix: Some(Mat4::from_translation(Vec3::X)), ..Node::default() };
        let rig = Rig { nodes: vec![parent, child], order: vec![0, 1], ..Rig::default() };
        let g = rest_globals(&rig);
        let origin = g[1].transform_point3(Vec3::ZERO);
        assert!((origin - Vec3::new(1.0, 1.0, 0.0)).length() < 1e-6, "{origin}");
    }
}
