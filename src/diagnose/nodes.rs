//! Node checks about skinning: a skin on a mesh without joints data and the reverse
//! (validator `lib/src/base/node.dart`, `Node.link`), and skinned-mesh nodes whose own or
//! parents' transforms the spec says are ignored (validator node pass in `base/gltf.dart`:
//! for a node with a skin, `hasTransform` gives NODE_SKINNED_MESH_LOCAL_TRANSFORMS and any
//! parent at all gives NODE_SKINNED_MESH_NON_ROOT). Pointers are `/nodes/N`.

use super::codes;
use super::finding::Sink;
use crate::rig::{Node, Rig, Transform};
use glam::Mat4;

/// The validator's `Node.hasTransform`: a non-identity matrix or any non-default T, R or S.
pub(crate) fn has_transform(node: &Node) -> bool {
    match node.matrix {
        Some(m) => m != Mat4::IDENTITY,
        None => node.rest != Transform::IDENTITY,
    }
}

pub(crate) fn check_nodes(rig: &Rig, sink: &mut Sink) {
    for (i, node) in rig.nodes.iter().enumerate() {
        if let Some(mesh) = node.mesh.and_then(|m| rig.meshes.get(m)) {
            let skinned = mesh.primitives.iter().any(|p| p.is_skinned());
            if node.skin.is_some() && !skinned {
                sink.general(codes::NODE_SKIN_WITH_NON_SKINNED_MESH, format!("/nodes/{i}"), || {
                    "Node has skin defined, but mesh has no joints data.".to_string()
                });
            }
            if node.skin.is_none() && skinned {
                sink.general(codes::NODE_SKINNED_MESH_WITHOUT_SKIN, format!("/nodes/{i}"), || {
                    "Node uses skinned mesh, but has no skin defined.".to_string()
                });
            }
        }
        if node.skin.is_none() {
            continue;
        }
        if has_transform(node) {
            sink.general(codes::NODE_SKINNED_MESH_LOCAL_TRANSFORMS, format!("/nodes/{i}"), || {
                "Local transforms will not affect a skinned mesh.".to_string()
            });
        }
        if node.parent.is_some() {
            sink.general(codes::NODE_SKINNED_MESH_NON_ROOT, format!("/nodes/{i}"), || {
                let transformed = transformed_ancestor(rig, node)
                    .map(|a| format!(" Ancestor {} carries a transform.", rig.node_label(a)))
                    .unwrap_or_default();
                format!(
                    "Node with a skinned mesh is not root. Parent transforms will not affect a skinned mesh.{transformed}"
                )
            });
        }
    }
}

/// The nearest ancestor with a transform of its own, if any.
fn transformed_ancestor(rig: &Rig, node: &Node) -> Option<usize> {
    let mut next = node.parent;
    for _ in 0..rig.nodes.len() {
        let n = next?;
        let ancestor = rig.nodes.get(n)?;
        if has_transform(ancestor) {
            return Some(n);
        }
        next = ancestor.parent;
    }
    None
}
