//! VRM humanoid rules (vrm-c/vrm-specification `specification/VRMC_vrm-1.0/humanoid.md`, and
//! `specification/0.0/README.md` "Defined bones" for 0.x): the required bones are mapped, each
//! bone to one node and each node to one bone, a bone whose row says "Needs Parent Bone: Yes"
//! only with its parent, and the mapped bones nest as the specification orders them.
//!
//! The order rule, as humanoid.md words it ("If no non-essential parent bone exists, look for
//! the parent bone of the parent bone"; non-humanoid nodes may sit in between): a mapped bone's
//! nearest mapped ancestor node must be the node of the nearest mapped bone up its chain of
//! specification parents, and hips has no mapped ancestor. Nothing is reported for files that
//! are not VRM avatars. Pointers name the mapping entry (`/extensions/VRMC_vrm/humanoid/
//! humanBones/leftHand`, `/extensions/VRM/humanoid/humanBones/7`).

use super::codes;
use super::finding::Sink;
use crate::rig::{BONES, Rig, Vrm, VrmVersion, bone_spec, canonical};

pub(crate) fn check_humanoid(rig: &Rig, sink: &mut Sink) {
    let Some(vrm) = &rig.vrm else {
        return;
    };
    let list = match vrm.version {
        VrmVersion::V0 => "/extensions/VRM/humanoid/humanBones",
        VrmVersion::V1 => "/extensions/VRMC_vrm/humanoid/humanBones",
    };
    let label = |node: usize| format!("{} (node {node})", rig.node_label(node));

    // First entry per bone and per node; later ones are the duplicates reported below.
    let mut node_of: Vec<Option<usize>> = vec![None; BONES.len()];
    let mut bone_at: Vec<Option<usize>> = vec![None; rig.nodes.len()];
    for bone in &vrm.bones {
        let name = canonical(&bone.name, vrm.version);
        let Some(b) = BONES.iter().position(|s| s.name == name) else {
            sink.general(codes::VRM_UNKNOWN_BONE, bone.pointer.clone(), || {
                format!(
                    "'{}' is not a humanoid bone of VRM {}; it is left out of the checks.",
                    bone.name,
                    version(vrm)
                )
            });
            continue;
        };
        match node_of[b] {
            Some(first) => sink.general(codes::VRM_BONE_MAPPED_TWICE, bone.pointer.clone(), || {
                format!(
                    "Bone {} is mapped to {} and again to {}; a bone maps to one node.",
                    bone.name,
                    label(first),
                    label(bone.node)
                )
            }),
            None => node_of[b] = Some(bone.node),
        }
        if let Some(slot) = bone_at.get_mut(bone.node) {
            match *slot {
                Some(other) if other != b => {
                    sink.general(codes::VRM_NODE_MAPPED_TWICE, bone.pointer.clone(), || {
                        format!(
                            "{} is mapped to {} and to {}; a node is one bone.",
                            label(bone.node),
                            BONES[other].name,
                            name
                        )
                    });
                }
                Some(_) => {}
                None => *slot = Some(b),
            }
        }
    }

    for (b, spec) in BONES.iter().enumerate() {
        let required = match vrm.version {
            VrmVersion::V0 => spec.required_v0,
            VrmVersion::V1 => spec.required_v1,
        };
        if required && node_of[b].is_none() {
            sink.general(codes::VRM_REQUIRED_BONE_MISSING, list.to_string(), || {
                format!("Required humanoid bone {} is not mapped (VRM {}).", spec.name, version(vrm))
            });
        }
    }

    for (b, spec) in BONES.iter().enumerate() {
        let Some(node) = node_of[b] else { continue };
        let pointer = || pointer_of(vrm, node, spec.name).unwrap_or_else(|| list.to_string());
        let parent_mapped =
            spec.parent.and_then(bone_spec).is_some_and(|p| mapped(&node_of, p.name).is_some());
        if spec.needs_parent && !parent_mapped {
            sink.general(codes::VRM_BONE_NEEDS_PARENT, pointer(), || {
                format!(
                    "{} is mapped without its parent bone {}, which it needs.",
                    spec.name,
                    spec.parent.unwrap_or("?")
                )
            });
        }
        let expected = expected_parent(&node_of, spec.parent);
        let actual = mapped_ancestor(rig, &bone_at, node);
        if expected.map(|(_, n)| n) != actual.map(|(_, n)| n) {
            sink.general(codes::VRM_BONE_PARENT, pointer(), || {
                let has = match actual {
                    Some((bone, n)) => {
                        format!("its nearest humanoid ancestor is {} {}", BONES[bone].name, label(n))
                    }
                    None => "it has no humanoid ancestor".to_string(),
                };
                let wants = match expected {
                    Some((name, n)) => format!("the specification puts it under {name} {}", label(n)),
                    None => "the specification makes it the root of the humanoid".to_string(),
                };
                format!("{} {}: {has}, but {wants}.", spec.name, label(node))
            });
        }
    }
}

fn version(vrm: &Vrm) -> &'static str {
    match vrm.version {
        VrmVersion::V0 => "0.x",
        VrmVersion::V1 => "1.0",
    }
}

fn mapped(node_of: &[Option<usize>], name: &str) -> Option<usize> {
    BONES.iter().position(|s| s.name == name).and_then(|b| node_of[b])
}

/// The nearest mapped bone up the specification's parent chain, with its node.
fn expected_parent(
    node_of: &[Option<usize>],
    mut parent: Option<&'static str>,
) -> Option<(&'static str, usize)> {
    while let Some(name) = parent {
        if let Some(node) = mapped(node_of, name) {
            return Some((name, node));
        }
        parent = bone_spec(name).and_then(|s| s.parent);
    }
    None
}

/// The nearest ancestor node mapped to a known bone, with that bone. Bounded by the node
/// count, as import guarantees no cycles but a walk must never hang.
fn mapped_ancestor(rig: &Rig, bone_at: &[Option<usize>], node: usize) -> Option<(usize, usize)> {
    let mut next = rig.nodes.get(node).and_then(|n| n.parent);
    for _ in 0..rig.nodes.len() {
        let n = next?;
        if let Some(Some(bone)) = bone_at.get(n) {
            return Some((*bone, n));
        }
        next = rig.nodes.get(n).and_then(|x| x.parent);
    }
    None
}

/// The pointer of the entry that maps `name` to `node`.
fn pointer_of(vrm: &Vrm, node: usize, name: &str) -> Option<String> {
    (vrm.bones.iter())
        .find(|b| b.node == node && canonical(&b.name, vrm.version) == name)
        .map(|b| b.pointer.clone())
}
