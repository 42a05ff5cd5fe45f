//! The node hierarchy: parents and children (each node has at most one parent, no cycles),
//! the parents-first `order`, rest transforms (decomposed from `matrix`, which is also kept
//! verbatim), and scenes. Every walk is iterative: a 200 000-deep chain must not overflow
//! the stack.

use super::{Fault, findings::Findings};
use crate::rig::{Mesh, Node, Scene, Severity, Transform};
use glam::{Mat3, Mat4, Quat, Vec3, Vec4};
use gltf::json;

/// Threshold the Khronos validator uses for unit quaternions.
pub(crate) const UNIT_TOLERANCE: f32 = 0.00769;

pub(crate) struct Hierarchy {
    pub nodes: Vec<Node>,
    pub order: Vec<usize>,
    /// `rank[node]` = the node's position in `order`.
    pub rank: Vec<usize>,
    pub scenes: Vec<Scene>,
    pub default_scene: Option<usize>,
}

pub(crate) fn build(root: &json::Root, findings: &mut Findings) -> Result<Hierarchy, Fault> {
    let mut nodes = Vec::with_capacity(root.nodes.len());
    for (i, n) in root.nodes.iter().enumerate() {
        nodes.push(node(root, i, n, findings)?);
    }
    link_children(root, &mut nodes)?;
    let order = parents_first(&nodes)?;
    let mut rank = vec![0; nodes.len()];
    for (position, &n) in order.iter().enumerate() {
        rank[n] = position;
    }
    let scenes = scenes(root, &nodes, findings)?;
    let default_scene = match root.scene {
        Some(s) if s.value() < scenes.len() => Some(s.value()),
        Some(s) => {
            return Err(Fault::new("scene", format!("scene {} does not exist", s.value())));
        }
        None if scenes.is_empty() => None,
        None => Some(0),
    };
    Ok(Hierarchy { nodes, order, rank, scenes, default_scene })
}

fn node(root: &json::Root, i: usize, n: &json::Node, findings: &mut Findings) -> Result<Node, Fault> {
    let mesh = match n.mesh {
        Some(m) if m.value() >= root.meshes.len() => {
            return Err(Fault::new(format!("nodes[{i}].mesh"), format!("mesh {} does not exist", m.value())));
        }
        m => m.map(|m| m.value()),
    };
    let skin = match n.skin {
        Some(s) if s.value() >= root.skins.len() => {
            return Err(Fault::new(format!("nodes[{i}].skin"), format!("skin {} does not exist", s.value())));
        }
        s => s.map(|s| s.value()),
    };
    let matrix = n.matrix.map(|m| Mat4::from_cols_array(&m));
    // JSON numbers beyond f32's range read as infinite: every pose below the node is then
    // meaningless, which the rules further on would only show as NaN.
    let properties: [(&str, Option<&[f32]>); 4] = [
        ("matrix", n.matrix.as_ref().map(|m| &m[..])),
        ("translation", n.translation.as_ref().map(|t| &t[..])),
        ("rotation", n.rotation.as_ref().map(|r| &r.0[..])),
        ("scale", n.scale.as_ref().map(|s| &s[..])),
    ];
    let infinite = properties
        .into_iter()
        .filter(|(_, values)| values.is_some_and(|v| v.iter().any(|x| !x.is_finite())))
        .map(|(property, _)| property);
    for property in infinite {
        findings.push(
            "RIG_NODE_TRANSFORM_NOT_FINITE",
            Severity::Error,
            format!("/nodes/{i}/{property}"),
            format!("the {property} holds a value that is not a finite f32 (beyond about 3.4e38?); poses below this node are meaningless"),
        );
    }
    let rest = match matrix {
        Some(m) => {
            if n.translation.is_some() || n.rotation.is_some() || n.scale.is_some() {
                findings.push(
                    "NODE_MATRIX_TRS",
                    Severity::Error,
                    format!("/nodes/{i}"),
                    "the node has both a matrix and TRS properties; the matrix is used",
                );
            }
            let (rest, exact) = decompose(m);
            if !exact {
                findings.push(
                    "NODE_MATRIX_NON_TRS",
                    Severity::Warning,
                    format!("/nodes/{i}/matrix"),
                    "the matrix is not a translation * rotation * scale (shear, projection or zero scale); its decomposed rest transform is approximate",
                );
            }
            rest
        }
        None => {
            let rotation = n.rotation.map(|r| r.0).unwrap_or([0.0, 0.0, 0.0, 1.0]);
            let q = Quat::from_array(rotation);
            let len = q.length();
            if (len - 1.0).abs() > UNIT_TOLERANCE {
                findings.push(
                    "ROTATION_NON_UNIT",
                    Severity::Error,
                    format!("/nodes/{i}/rotation"),
                    format!("the rotation quaternion has length {len}, not 1"),
                );
            }
            Transform {
                translation: Vec3::from_array(n.translation.unwrap_or([0.0; 3])),
                rotation: q,
                scale: Vec3::from_array(n.scale.unwrap_or([1.0; 3])),
            }
        }
    };
    Ok(Node {
        name: n.name.clone(),
        parent: None,
        children: Vec::new(),
        rest,
        matrix,
        mesh,
        skin,
        weights: n.weights.clone(),
        instances: Vec::new(),
    })
}

/// Splits a node matrix into T * R * S. Returns false when the matrix is not exactly such a
/// product (shear, projection, zero scale): the rest transform is then an approximation and
/// `Node::matrix` is the truth.
pub(crate) fn decompose(m: Mat4) -> (Transform, bool) {
    let translation = m.w_axis.truncate();
    let (x, y, z) = (m.x_axis.truncate(), m.y_axis.truncate(), m.z_axis.truncate());
    let det = Mat3::from_cols(x, y, z).determinant();
    let scale = Vec3::new(x.length() * det.signum(), y.length(), z.length());
    if !det.is_finite() || det == 0.0 || scale.cmpeq(Vec3::ZERO).any() {
        let rest = Transform {
            translation,
            rotation: Quat::IDENTITY,
            scale: Vec3::new(x.length(), y.length(), z.length()),
        };
        return (rest, false);
    }
    let axes = Mat3::from_cols(x / scale.x, y / scale.y, z / scale.z);
    let rotation = Quat::from_mat3(&axes).normalize();
    let rest = Transform { translation, rotation, scale };
    let magnitude = m.to_cols_array().iter().fold(1.0f32, |a, v| a.max(v.abs()));
    let exact = m.row(3).abs_diff_eq(Vec4::W, 1e-6) && rest.to_matrix().abs_diff_eq(m, 1e-4 * magnitude);
    (rest, exact)
}

fn link_children(root: &json::Root, nodes: &mut [Node]) -> Result<(), Fault> {
    let count = nodes.len();
    for (i, n) in root.nodes.iter().enumerate() {
        for (k, child) in n.children.iter().flatten().enumerate() {
            let c = child.value();
            let at = format!("nodes[{i}].children[{k}]");
            if c >= count {
                return Err(Fault::new(at, format!("node {c} does not exist")));
            }
            if c == i {
                return Err(Fault::new(
                    at,
                    format!("node {i} lists itself as a child (the node hierarchy has a cycle)"),
                ));
            }
            if let Some(p) = nodes[c].parent {
                return Err(Fault::new(
                    at,
                    format!("node {c} is already a child of nodes[{p}]; a node may have only one parent"),
                ));
            }
            nodes[c].parent = Some(i);
            nodes[i].children.push(c);
        }
    }
    Ok(())
}

/// Every node, each parent before its children (depth-first from the parentless nodes in
/// index order). With one parent per node, a node that no root reaches sits on or under a
/// cycle; the fault names a node on the cycle itself.
pub(crate) fn parents_first(nodes: &[Node]) -> Result<Vec<usize>, Fault> {
    let mut order = Vec::with_capacity(nodes.len());
    let mut visited = vec![false; nodes.len()];
    let mut stack = Vec::new();
    for r in (0..nodes.len()).filter(|&n| nodes[n].parent.is_none()) {
        stack.push(r);
        while let Some(n) = stack.pop() {
            visited[n] = true;
            order.push(n);
            stack.extend(nodes[n].children.iter().rev().copied());
        }
    }
    if let Some(start) = visited.iter().position(|v| !v) {
        let on_cycle = cycle_member(nodes, start);
        return Err(Fault::new(
            format!("nodes[{on_cycle}]"),
            format!("the node hierarchy has a cycle: node {on_cycle} is its own ancestor"),
        ));
    }
    Ok(order)
}

/// Follows parents from `start` until a node repeats: that node is on the cycle.
fn cycle_member(nodes: &[Node], start: usize) -> usize {
    let mut seen = vec![false; nodes.len()];
    let mut n = start;
    while !seen[n] {
        seen[n] = true;
        match nodes[n].parent {
            Some(p) => n = p,
            None => break,
        }
    }
    n
}

fn scenes(root: &json::Root, nodes: &[Node], findings: &mut Findings) -> Result<Vec<Scene>, Fault> {
    let mut out = Vec::with_capacity(root.scenes.len());
    for (s, scene) in root.scenes.iter().enumerate() {
        let mut roots = Vec::with_capacity(scene.nodes.len());
        for (k, n) in scene.nodes.iter().enumerate() {
            let n = n.value();
            let Some(node) = nodes.get(n) else {
                return Err(Fault::new(
                    format!("scenes[{s}].nodes[{k}]"),
                    format!("node {n} does not exist"),
                ));
            };
            if node.parent.is_some() {
                findings.push(
                    "SCENE_NON_ROOT_NODE",
                    Severity::Error,
                    format!("/scenes/{s}/nodes/{k}"),
                    format!("node {n} is listed as a scene root but has a parent"),
                );
            }
            roots.push(n);
        }
        out.push(Scene { name: scene.name.clone(), roots });
    }
    Ok(out)
}

/// A node's own morph weights must match its mesh's morph target count.
pub(crate) fn check_node_weights(root: &json::Root, meshes: &[Mesh]) -> Result<(), Fault> {
    for (i, n) in root.nodes.iter().enumerate() {
        let Some(weights) = &n.weights else { continue };
        let Some(mesh) = n.mesh.and_then(|m| meshes.get(m.value())) else {
            continue;
        };
        if weights.len() != mesh.default_weights.len() {
            return Err(Fault::new(
                format!("nodes[{i}].weights"),
                format!(
                    "has {} values but its mesh has {} morph targets",
                    weights.len(),
                    mesh.default_weights.len()
                ),
            ));
        }
    }
    Ok(())
}
