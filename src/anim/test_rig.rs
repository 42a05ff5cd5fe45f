//! Hand-built rigs and channels shared by the anim unit tests (the loader is not used here,
//! so every expected value stays traceable to numbers written in the test).

use crate::rig::{Channel, Interpolation, Node, Property, Rig};

pub(crate) fn channel(
    node: usize,
    property: Property,
    interpolation: Interpolation,
    times: &[f32],
    values: &[f32],
) -> Channel {
    let components = match property {
        Property::Translation | Property::Scale => 3,
        Property::Rotation => 4,
        Property::Weights => {
            let per_key = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
            values.len() / (times.len().max(1) * per_key)
        }
    };
    Channel {
        node,
        property,
        interpolation,
        times: times.to_vec().into(),
        values: values.to_vec().into(),
        components,
    }
}

/// Two unrelated root nodes with identity rest transforms.
pub(crate) fn two_node_rig() -> Rig {
    Rig { nodes: vec![Node::default(), Node::default()], order: vec![0, 1], ..Rig::default() }
}

/// Two joints (nodes 0 and 1, the second at (1, 0, 0)) and a mesh node (2) drawing one
/// primitive of two vertices with skin 0, each vertex wholly on one joint.
pub(crate) fn two_joint_rig() -> Rig {
    use crate::rig::{InfluenceSet, Mesh, Primitive, Skin, Transform};
    use glam::{Mat4, Vec3};
    let set = InfluenceSet {
        joints: vec![[0, 0, 0, 0], [1, 0, 0, 0]].into(),
        weights: vec![[1.0, 0.0, 0.0, 0.0]; 2].into(),
        ..InfluenceSet::default()
    };
    Rig {
        nodes: vec![
            Node { children: vec![1], ..Node::default() },
            Node {
                parent: Some(0),
                rest: Transform { translation: Vec3::X, ..Transform::IDENTITY },
                ..Node::default()
            },
            Node { mesh: Some(0), skin: Some(0), ..Node::default() },
        ],
        order: vec![0, 2, 1],
        skins: vec![Skin {
            joints: vec![0, 1],
            inverse_bind: vec![Mat4::IDENTITY, Mat4::from_translation(-Vec3::X)],
            ..Skin::default()
        }],
        meshes: vec![Mesh {
            primitives: vec![Primitive {
                positions: vec![Vec3::ZERO, Vec3::X].into(),
                influences: vec![set],
                ..Primitive::default()
            }],
            ..Mesh::default()
        }],
        ..Rig::default()
    }
}
