//! The rest pose's world matrices: every node at its file transform, composed parents-first.
//! Checks, retargeting, `.vrma` binding, `merge` and the viewer's details all start from
//! this one walk; the per-frame walk over a sampled pose is `anim::hierarchy`'s.

use super::Rig;
use glam::Mat4;

impl Rig {
    /// World matrix of every node (index = node index): local = `matrix` when the file
    /// gives one, else `T * R * S`; world = `parent_world * local`, walked along `order`.
    /// A node whose parent index is invalid is a root.
    pub fn rest_world(&self) -> Vec<Mat4> {
        let mut world = vec![Mat4::IDENTITY; self.nodes.len()];
        for &n in &self.order {
            let Some(node) = self.nodes.get(n) else {
                continue;
            };
            let local = node.matrix.unwrap_or_else(|| node.rest.to_matrix());
            world[n] = match node.parent.and_then(|p| world.get(p)) {
                Some(parent) => *parent * local,
                None => local,
            };
        }
        world
    }
}

#[cfg(test)]
mod tests {
    use crate::rig::{Node, Rig, Transform};
    use glam::{Mat4, Quat, Vec3};

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
        let origin = rig.rest_world()[1].transform_point3(Vec3::ZERO);
        assert!((origin - Vec3::new(1.0, 1.0, 0.0)).length() < 1e-6, "{origin}");
    }

    #[test]
    fn an_invalid_parent_index_makes_a_root() {
        let node = Node { parent: Some(7), matrix: Some(Mat4::from_translation(Vec3::Y)), ..Node::default() };
        let rig = Rig { nodes: vec![node], order: vec![0], ..Rig::default() };
        assert_eq!(rig.rest_world()[0], Mat4::from_translation(Vec3::Y));
    }
}
