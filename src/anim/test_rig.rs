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
