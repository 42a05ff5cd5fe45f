//! VRM spring bone rules (vrm-c/vrm-specification `specification/VRMC_springBone-1.0/
//! README.md`: a spring's joints follow one chain of the hierarchy from its root to its tip,
//! a node is a joint of one spring only, radii are not negative), plus the joint three-vrm
//! cannot swing: one whose tail sits on it (a zero-length segment, often a chain's last
//! joint in VRM 0.x). Colliders on nodes the file lacks are reported at load
//! (`RIG_VRM_SPRING_COLLIDER_NODE`), as three-vrm skips them there.

use super::codes;
use super::finding::Sink;
use crate::rig::{Rig, VrmVersion};

pub(crate) fn check_springs(rig: &Rig, sink: &mut Sink) {
    let Some(vrm) = &rig.vrm else {
        return;
    };
    let springs = &vrm.springs;
    let label = |node: usize| format!("{} (node {node})", rig.node_label(node));
    if vrm.version == VrmVersion::V1 {
        for chain in &springs.chains {
            for (j, pair) in chain.nodes.windows(2).enumerate() {
                let (joint, next) = (pair[0], pair[1]);
                if rig.nodes.get(next).and_then(|n| n.parent) != Some(joint) {
                    sink.general(codes::VRM_SPRING_NOT_A_CHAIN, format!("{}/joints/{}", chain.pointer, j + 1), || {
                        format!(
                            "Joint {} of spring {} is {}, which is not a child of the joint before it, {}: a spring's joints follow one chain of the hierarchy.",
                            j + 1,
                            chain_name(chain.name.as_deref(), &chain.pointer),
                            label(next),
                            label(joint)
                        )
                    });
                }
            }
        }
    }
    // A node swung by joints of two chains.
    let mut first_chain: Vec<Option<usize>> = vec![None; rig.nodes.len()];
    for joint in &springs.joints {
        let Some(slot) = first_chain.get_mut(joint.node) else { continue };
        match *slot {
            Some(chain) if chain != joint.chain => {
                let (a, b) = (&springs.chains[chain], &springs.chains[joint.chain]);
                sink.general(codes::VRM_SPRING_JOINT_SHARED, b.pointer.clone(), || {
                    format!(
                        "{} is a joint of spring {} and of spring {}: each step swings it twice, and the later spring wins.",
                        label(joint.node),
                        chain_name(a.name.as_deref(), &a.pointer),
                        chain_name(b.name.as_deref(), &b.pointer)
                    )
                });
            }
            Some(_) => {}
            None => *slot = Some(joint.chain),
        }
    }
    for joint in &springs.joints {
        let offset = match joint.tail {
            Some(tail) => rig.nodes.get(tail).map(|n| n.rest.translation.length()),
            // three-vrm's tail without a child: 7 cm along the bone's own offset.
            None => rig.nodes.get(joint.node).map(|n| n.rest.translation.length()),
        };
        if offset == Some(0.0) {
            let chain = &springs.chains[joint.chain];
            sink.general(codes::VRM_SPRING_ZERO_LENGTH, chain.pointer.clone(), || {
                let tail = match joint.tail {
                    Some(tail) => format!("its tail {} sits on it", label(tail)),
                    None => "it has no child and no offset from its parent, so three-vrm's 7 cm tail has no direction".to_string(),
                };
                format!(
                    "Joint {} of spring {}: {tail}; the segment has no length and three-vrm never swings it.",
                    label(joint.node),
                    chain_name(chain.name.as_deref(), &chain.pointer)
                )
            });
        }
    }
    let mut reported_hit = vec![false; springs.chains.len()];
    for joint in &springs.joints {
        let radius = joint.settings.hit_radius;
        if radius < 0.0 && !reported_hit[joint.chain] {
            reported_hit[joint.chain] = true;
            let chain = &springs.chains[joint.chain];
            sink.general(codes::VRM_SPRING_NEGATIVE_RADIUS, chain.pointer.clone(), || {
                format!(
                    "Joint {} of spring {} has hit radius {radius}: a negative radius lets the tail sink into colliders.",
                    label(joint.node),
                    chain_name(chain.name.as_deref(), &chain.pointer)
                )
            });
        }
    }
    for (c, collider) in springs.colliders.iter().enumerate() {
        if let Some(radius) = collider.shape.radius().filter(|r| *r < 0.0) {
            sink.general(codes::VRM_SPRING_NEGATIVE_RADIUS, collider.pointer.clone(), || {
                format!(
                    "The {} collider {c} on {} has radius {radius}: a negative radius pulls tails in instead of pushing them out.",
                    collider.shape.kind(),
                    label(collider.node)
                )
            });
        }
    }
}

fn chain_name(name: Option<&str>, pointer: &str) -> String {
    match name {
        Some(name) => format!("'{name}'"),
        None => pointer.rsplit('/').next().map_or(pointer.to_string(), |i| format!("#{i}")),
    }
}
