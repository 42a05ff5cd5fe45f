//! Joints and skins: which node of `b` each node of `a` is, and what changed about them.
//!
//! Nodes are matched by label (name, or `#index` without one). A joint of `a` left without a
//! match is paired with an unmatched joint of `b` as a rename only when both hang off the
//! same (matched) parent at the same place among its children, have as many children and the
//! same rest transform: the structure then says they are the same joint.

use std::collections::HashMap;

use glam::Mat4;
use serde::Serialize;

use super::angle_between;
use crate::rig::{Rig, Transform};

/// A node of `a` to its node in `b` and back, with the renames found.
#[derive(Debug, Clone, Default)]
pub struct JointMap {
    pub a_to_b: Vec<Option<usize>>,
    pub b_to_a: Vec<Option<usize>>,
    /// (node in `a`, node in `b`) pairs matched by structure rather than by name.
    pub renames: Vec<(usize, usize)>,
    /// Nodes compared as joints: those any skin uses (every node when no skin has joints).
    pub a_joints: Vec<bool>,
    pub b_joints: Vec<bool>,
}

impl JointMap {
    pub fn new(a: &Rig, b: &Rig, tol: f32) -> Self {
        let mut map = JointMap {
            a_to_b: vec![None; a.nodes.len()],
            b_to_a: vec![None; b.nodes.len()],
            renames: Vec::new(),
            a_joints: compared_nodes(a),
            b_joints: compared_nodes(b),
        };
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for n in (0..b.nodes.len()).rev() {
            if let Some(name) = name_of(b, n) {
                by_name.insert(name, n);
            }
        }
        for n in 0..a.nodes.len() {
            if let Some(&m) = name_of(a, n).and_then(|name| by_name.get(name))
                && map.b_to_a[m].is_none()
            {
                map.a_to_b[n] = Some(m);
                map.b_to_a[m] = Some(n);
            }
        }
        // Unnamed nodes, and named ones left over, are matched by structure. Parents first,
        // so that a renamed parent lets its renamed children pair too.
        for &n in &a.order {
            if map.a_to_b[n].is_some() {
                continue;
            }
            let found = (0..b.nodes.len()).find(|&m| {
                map.b_to_a[m].is_none()
                    && map.a_joints[n] == map.b_joints[m]
                    && same_place(a, b, n, m, &map, tol)
            });
            if let Some(m) = found {
                map.a_to_b[n] = Some(m);
                map.b_to_a[m] = Some(n);
                // Two unnamed nodes that match are the same node, not a rename.
                if name_of(a, n).is_some() || name_of(b, m).is_some() {
                    map.renames.push((n, m));
                }
            }
        }
        map
    }

    /// The joint pairs compared: nodes that are joints in `a` or `b`, matched in both.
    pub fn joint_pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.a_to_b.iter().enumerate().filter_map(|(n, m)| {
            let m = (*m)?;
            (self.a_joints[n] || self.b_joints[m]).then_some((n, m))
        })
    }
}

/// A node's name when it has a non-empty one.
fn name_of(rig: &Rig, n: usize) -> Option<&str> {
    rig.nodes[n].name.as_deref().filter(|s| !s.is_empty())
}

/// Joints when any skin has some, else every node (a rig without skins is all structure).
fn compared_nodes(rig: &Rig) -> Vec<bool> {
    let flags = rig.joint_flags();
    if flags.iter().any(|&f| f) { flags } else { vec![true; rig.nodes.len()] }
}

/// Whether `b`'s node `m` sits where `a`'s node `n` does, with the same rest transform.
fn same_place(a: &Rig, b: &Rig, n: usize, m: usize, map: &JointMap, tol: f32) -> bool {
    let (na, nb) = (&a.nodes[n], &b.nodes[m]);
    let parent_matches = match (na.parent, nb.parent) {
        (None, None) => true,
        (Some(pa), Some(pb)) => map.a_to_b[pa] == Some(pb),
        _ => false,
    };
    let slot = |rig: &Rig, node: usize| {
        rig.nodes[node].parent.and_then(|p| rig.nodes[p].children.iter().position(|&c| c == node))
    };
    parent_matches
        && slot(a, n) == slot(b, m)
        && na.children.len() == nb.children.len()
        && rest_change(&na.rest, &nb.rest).max() <= tol
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rename {
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reparent {
    pub joint: String,
    /// Parent labels in `a` and `b` (null for a root).
    pub from: Option<String>,
    pub to: Option<String>,
}

/// How far a joint's rest (local) transform moved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RestChange {
    pub joint: String,
    /// Distance between the rest translations.
    pub translation: f32,
    /// Angle between the rest rotations, in degrees.
    pub rotation_deg: f32,
    /// Largest difference of one scale component.
    pub scale: f32,
    pub translation_a: [f32; 3],
    pub translation_b: [f32; 3],
}

impl RestChange {
    /// The largest of the three differences, rotation in radians: what the tolerance bounds.
    fn max(&self) -> f32 {
        self.translation.max(self.rotation_deg.to_radians()).max(self.scale)
    }
}

fn rest_change(a: &Transform, b: &Transform) -> RestChange {
    RestChange {
        joint: String::new(),
        translation: a.translation.distance(b.translation),
        rotation_deg: angle_between(a.rotation, b.rotation).to_degrees(),
        scale: (a.scale - b.scale).abs().max_element(),
        translation_a: a.translation.to_array(),
        translation_b: b.translation.to_array(),
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct JointChanges {
    /// Joints of `b` with no match in `a`, and of `a` with none in `b`.
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub renamed: Vec<Rename>,
    pub reparented: Vec<Reparent>,
    /// Joints whose rest transform differs by more than the tolerance, largest first.
    pub rest: Vec<RestChange>,
}

impl JointChanges {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.renamed.is_empty()
            && self.reparented.is_empty()
            && self.rest.is_empty()
    }
}

pub fn compare_joints(a: &Rig, b: &Rig, map: &JointMap, tol: f32) -> JointChanges {
    let mut out = JointChanges {
        added: (0..b.nodes.len())
            .filter(|&m| map.b_joints[m] && map.b_to_a[m].is_none())
            .map(|m| b.node_label(m))
            .collect(),
        removed: (0..a.nodes.len())
            .filter(|&n| map.a_joints[n] && map.a_to_b[n].is_none())
            .map(|n| a.node_label(n))
            .collect(),
        renamed: map
            .renames
            .iter()
            .map(|&(n, m)| Rename { from: a.node_label(n), to: b.node_label(m) })
            .collect(),
        ..JointChanges::default()
    };
    for (n, m) in map.joint_pairs() {
        let (pa, pb) = (a.nodes[n].parent, b.nodes[m].parent);
        let same_parent = match (pa, pb) {
            (None, None) => true,
            (Some(pa), Some(pb)) => map.a_to_b[pa] == Some(pb),
            _ => false,
        };
        if !same_parent {
            out.reparented.push(Reparent {
                joint: b.node_label(m),
                from: pa.map(|p| a.node_label(p)),
                to: pb.map(|p| b.node_label(p)),
            });
        }
        let mut change = rest_change(&a.nodes[n].rest, &b.nodes[m].rest);
        if change.max() > tol {
            change.joint = b.node_label(m);
            out.rest.push(change);
        }
    }
    out.rest.sort_by(|x, y| y.max().total_cmp(&x.max()));
    out
}

/// One joint's inverse bind matrix change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InverseBindChange {
    pub joint: String,
    /// Largest difference of one matrix element.
    pub max_element: f32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SkinChange {
    pub skin: String,
    /// Joints in `b`'s list and not in `a`'s, and the reverse (by matched node).
    pub joints_added: Vec<String>,
    pub joints_removed: Vec<String>,
    /// Same joints, listed in another order (`JOINTS_n` values then mean other joints).
    pub order_changed: bool,
    /// Joints whose inverse bind matrix changed by more than the tolerance, largest first.
    pub inverse_bind: Vec<InverseBindChange>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SkinChanges {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<SkinChange>,
}

impl SkinChanges {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

fn skin_label(rig: &Rig, s: usize) -> String {
    match rig.skins[s].name.as_deref() {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => format!("#{s}"),
    }
}

/// Skins matched by name (`#index` without one).
pub fn skin_pairs(a: &Rig, b: &Rig) -> Vec<(usize, usize)> {
    (0..a.skins.len())
        .filter_map(|s| {
            let label = skin_label(a, s);
            (0..b.skins.len()).find(|&t| skin_label(b, t) == label).map(|t| (s, t))
        })
        .collect()
}

pub fn compare_skins(a: &Rig, b: &Rig, map: &JointMap, tol: f32) -> SkinChanges {
    let pairs = skin_pairs(a, b);
    let mut out = SkinChanges {
        added: (0..b.skins.len())
            .filter(|t| !pairs.iter().any(|p| p.1 == *t))
            .map(|t| skin_label(b, t))
            .collect(),
        removed: (0..a.skins.len())
            .filter(|s| !pairs.iter().any(|p| p.0 == *s))
            .map(|s| skin_label(a, s))
            .collect(),
        changed: Vec::new(),
    };
    for (s, t) in pairs {
        let (sa, sb) = (&a.skins[s], &b.skins[t]);
        let mapped: Vec<Option<usize>> =
            sa.joints.iter().map(|&n| map.a_to_b.get(n).copied().flatten()).collect();
        let mut change = SkinChange { skin: skin_label(b, t), ..SkinChange::default() };
        change.joints_added =
            sb.joints.iter().filter(|m| !mapped.contains(&Some(**m))).map(|&m| b.node_label(m)).collect();
        change.joints_removed = sa
            .joints
            .iter()
            .zip(&mapped)
            .filter(|(_, m)| m.is_none_or(|m| !sb.joints.contains(&m)))
            .map(|(&n, _)| a.node_label(n))
            .collect();
        let same_set = change.joints_added.is_empty() && change.joints_removed.is_empty();
        change.order_changed = same_set && mapped.iter().zip(&sb.joints).any(|(m, &j)| *m != Some(j));
        for (i, m) in mapped.iter().enumerate() {
            let Some(j) = m.and_then(|m| sb.joints.iter().position(|&x| x == m)) else { continue };
            let (ia, ib) = (ibm(sa.inverse_bind.get(i)), ibm(sb.inverse_bind.get(j)));
            let max_element = (ia - ib).to_cols_array().into_iter().map(f32::abs).fold(0.0f32, f32::max);
            if max_element > tol {
                change
                    .inverse_bind
                    .push(InverseBindChange { joint: b.node_label(sb.joints[j]), max_element });
            }
        }
        change.inverse_bind.sort_by(|x, y| y.max_element.total_cmp(&x.max_element));
        if !same_set || change.order_changed || !change.inverse_bind.is_empty() {
            out.changed.push(change);
        }
    }
    out
}

fn ibm(m: Option<&Mat4>) -> Mat4 {
    m.copied().unwrap_or(Mat4::IDENTITY)
}
