//! `Pose`: the per-node local state a clip is sampled into (TRS, whether the file matrix
//! still applies, morph weights). Building the rest pose lives here; turning a pose into
//! matrices lives in `hierarchy.rs`.

use glam::Mat4;

use crate::rig::{Rig, Transform};

/// Local state of every node (index = node index).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pose {
    pub locals: Vec<Transform>,
    /// True while the node's local transform is its file `matrix` (a node with a matrix
    /// that no translation/rotation/scale channel has sampled).
    pub use_matrix: Vec<bool>,
    /// Morph target weights per node: the node's `weights`, else its mesh's defaults,
    /// else empty.
    pub morph_weights: Vec<Vec<f32>>,
}

impl Pose {
    /// The rest pose: every node as the file gives it.
    pub fn rest(rig: &Rig) -> Pose {
        let mut pose = Pose::default();
        pose.reset(rig);
        pose
    }

    /// Back to the rest pose. Reuses the buffers: allocates only when the node count or a
    /// node's weight count grew since the last reset.
    pub fn reset(&mut self, rig: &Rig) {
        let n = rig.nodes.len();
        self.locals.resize(n, Transform::IDENTITY);
        self.use_matrix.resize(n, false);
        self.morph_weights.resize_with(n, Vec::new);
        let slots = self.locals.iter_mut().zip(self.use_matrix.iter_mut()).zip(self.morph_weights.iter_mut());
        for (node, ((local, use_matrix), weights)) in rig.nodes.iter().zip(slots) {
            *local = node.rest;
            *use_matrix = node.matrix.is_some();
            let rest_weights = match &node.weights {
                Some(w) => w.as_slice(),
                None => node
                    .mesh
                    .and_then(|m| rig.meshes.get(m))
                    .map_or(&[][..], |m| m.default_weights.as_slice()),
            };
            weights.clear();
            // Most nodes have no weights: skip the (out-of-line) copy of nothing.
            if !rest_weights.is_empty() {
                weights.extend_from_slice(rest_weights);
            }
        }
    }

    /// The local matrix of `node`: the file matrix while `use_matrix` holds, else `T * R * S`.
    /// Identity for a node index outside the pose.
    pub fn local_matrix(&self, rig: &Rig, node: usize) -> Mat4 {
        let file_matrix = match self.use_matrix.get(node) {
            Some(true) => rig.nodes.get(node).and_then(|n| n.matrix),
            _ => None,
        };
        match (file_matrix, self.locals.get(node)) {
            (Some(m), _) => m,
            (None, Some(local)) => local.to_matrix(),
            (None, None) => Mat4::IDENTITY,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{Mesh, Node};
    use glam::{Quat, Vec3};

    #[test]
    fn rest_pose_takes_weights_from_node_then_mesh_then_nothing() {
        let matrix = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
        let rest =
            Transform { translation: Vec3::new(1.0, 2.0, 3.0), rotation: Quat::IDENTITY, scale: Vec3::ONE };
        let rig = Rig {
            nodes: vec![
                Node { mesh: Some(0), weights: Some(vec![0.25, 0.5]), ..Node::default() },
                Node { mesh: Some(0), ..Node::default() },
                Node { matrix: Some(matrix), rest, ..Node::default() },
                // A mesh index past the end must not panic.
                Node { mesh: Some(7), ..Node::default() },
            ],
            meshes: vec![Mesh { default_weights: vec![1.0, 0.0], ..Mesh::default() }],
            ..Rig::default()
        };
        let pose = Pose::rest(&rig);
        assert_eq!(pose.morph_weights[0], vec![0.25, 0.5]);
        assert_eq!(pose.morph_weights[1], vec![1.0, 0.0]);
        assert!(pose.morph_weights[2].is_empty());
        assert!(pose.morph_weights[3].is_empty());
        assert_eq!(pose.use_matrix, vec![false, false, true, false]);
        assert_eq!(pose.locals[2], rest);
        assert_eq!(pose.local_matrix(&rig, 2), matrix);
        assert_eq!(pose.local_matrix(&rig, 99), Mat4::IDENTITY);
    }

    #[test]
    fn reset_undoes_changes_in_place() {
        let rig = Rig {
            nodes: vec![Node {
                weights: Some(vec![0.5]),
                matrix: Some(Mat4::from_scale(Vec3::splat(2.0))),
                ..Node::default()
            }],
            ..Rig::default()
        };
        let mut pose = Pose::rest(&rig);
        let fresh = pose.clone();
        pose.locals[0].translation = Vec3::X;
        pose.use_matrix[0] = false;
        pose.morph_weights[0][0] = 9.0;
        let weights_ptr = pose.morph_weights[0].as_ptr();
        pose.reset(&rig);
        assert_eq!(pose, fresh);
        assert_eq!(pose.morph_weights[0].as_ptr(), weights_ptr);
    }
}
