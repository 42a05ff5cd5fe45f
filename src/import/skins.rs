//! Skins: joints, inverse bind matrices (identity when the file has none), and the skin's
//! own joint hierarchy: `joint_order` (positions in `joints`, parents first) and
//! `joint_parent` (nearest ancestor that is a joint of the same skin). Both come from the
//! node hierarchy, whatever order the file lists the joints in.

use super::accessors::{self, Format, Normalized, Source};
use super::nodes::Hierarchy;
use super::{Fault, findings::Findings};
use crate::rig::{Node, Severity, Skin};
use glam::Mat4;
use gltf::json::accessor::{ComponentType, Type};
use std::collections::HashMap;

const INVERSE_BIND: Format = Format {
    role: "inverseBindMatrices",
    need: "MAT4 of FLOAT",
    allowed: &[(Type::Mat4, ComponentType::F32)],
    normalized: Normalized::Never,
};

pub(crate) fn build(
    src: &Source<'_>,
    hierarchy: &Hierarchy,
    findings: &mut Findings,
) -> Result<Vec<Skin>, Fault> {
    let mut out = Vec::with_capacity(src.json().skins.len());
    for (s, skin) in src.doc().skins().enumerate() {
        out.push(one(src, s, &skin, hierarchy, findings)?);
    }
    Ok(out)
}

fn one(
    src: &Source<'_>,
    s: usize,
    skin: &gltf::Skin<'_>,
    hierarchy: &Hierarchy,
    findings: &mut Findings,
) -> Result<Skin, Fault> {
    let Some(json) = src.json().skins.get(s) else {
        return Err(Fault::new(format!("skins[{s}]"), "does not exist"));
    };
    let node_count = hierarchy.nodes.len();
    if json.joints.is_empty() {
        return Err(Fault::new(format!("skins[{s}].joints"), "is empty (a skin needs at least one joint)"));
    }
    let mut joints = Vec::with_capacity(json.joints.len());
    for (k, j) in json.joints.iter().enumerate() {
        if j.value() >= node_count {
            return Err(Fault::new(
                format!("skins[{s}].joints[{k}]"),
                format!("node {} does not exist", j.value()),
            ));
        }
        joints.push(j.value());
    }
    let skeleton = match json.skeleton {
        Some(n) if n.value() >= node_count => {
            return Err(Fault::new(
                format!("skins[{s}].skeleton"),
                format!("node {} does not exist", n.value()),
            ));
        }
        n => n.map(|n| n.value()),
    };
    let inverse_bind_accessor = json.inverse_bind_matrices.map(|a| a.value());
    let inverse_bind = match inverse_bind_accessor {
        None => vec![Mat4::IDENTITY; joints.len()],
        Some(a) => {
            let at = format!("skins[{s}].inverseBindMatrices");
            let acc = src.check(a, &INVERSE_BIND, &at, findings)?;
            report_ibm_stride(src, s, a, findings);
            src.charge_copy(&acc, &at)?;
            let reader = skin.reader(src.data());
            let mats = accessors::collect(&acc, reader.read_inverse_bind_matrices(), [[0.0; 4]; 4], &at)?;
            if mats.len() < joints.len() {
                return Err(Fault::new(
                    at,
                    format!(
                        "accessors[{a}] has {} matrices but the skin has {} joints",
                        mats.len(),
                        joints.len()
                    ),
                ));
            }
            // The validator's INVALID_IBM_ACCESSOR_COUNT is only for too few matrices (refused
            // above); too many is valid glTF, so rigscope's own note says what it ignores.
            if mats.len() > joints.len() {
                findings.push(
                    "RIG_IBM_EXTRA_MATRICES",
                    Severity::Info,
                    format!("/skins/{s}/inverseBindMatrices"),
                    format!(
                        "{} inverse bind matrices for {} joints; the extra ones are ignored",
                        mats.len(),
                        joints.len()
                    ),
                );
            }
            accessors::report_non_finite(
                findings,
                a,
                16,
                mats.iter().flatten().flatten().copied(),
                "inverse bind matrix",
            );
            mats.iter().take(joints.len()).map(Mat4::from_cols_array_2d).collect()
        }
    };
    report_duplicates(s, &joints, findings);
    let mut joint_order: Vec<usize> = (0..joints.len()).collect();
    joint_order.sort_by_key(|&k| hierarchy.rank.get(joints[k]).copied().unwrap_or(usize::MAX));
    Ok(Skin {
        name: json.name.clone(),
        joint_parent: joint_parents(&hierarchy.nodes, &joints),
        joints,
        inverse_bind,
        inverse_bind_accessor,
        skeleton,
        joint_order,
    })
}

/// KhronosGroup/glTF-Validator `lib/src/base/skin.dart` (`Skin.link`): a buffer view read by
/// an inverse-bind-matrices accessor must not define `byteStride` at all, whatever its value
/// (SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE, a LinkError, so an error). The matrices still read.
fn report_ibm_stride(src: &Source<'_>, s: usize, accessor: usize, findings: &mut Findings) {
    let root = src.json();
    let view = root
        .accessors
        .get(accessor)
        .and_then(|a| a.buffer_view)
        .and_then(|v| root.buffer_views.get(v.value()));
    if view.is_some_and(|v| v.byte_stride.is_some()) {
        findings.push(
            "SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE",
            Severity::Error,
            format!("/skins/{s}/inverseBindMatrices"),
            "bufferView.byteStride must not be defined for buffer views used by inverse bind matrices accessors.",
        );
    }
}

fn report_duplicates(s: usize, joints: &[usize], findings: &mut Findings) {
    let mut first: HashMap<usize, usize> = HashMap::new();
    for (k, &j) in joints.iter().enumerate() {
        if let Some(&earlier) = first.get(&j) {
            findings.push(
                "SKIN_JOINT_DUPLICATE",
                Severity::Error,
                format!("/skins/{s}/joints/{k}"),
                format!("node {j} is listed twice as a joint (positions {earlier} and {k})"),
            );
        } else {
            first.insert(j, k);
        }
    }
}

/// For each joint, the position (in `joints`) of its nearest ancestor that is also a joint.
/// Non-joint ancestors are memoised, so each is walked at most once per skin.
pub(crate) fn joint_parents(nodes: &[Node], joints: &[usize]) -> Vec<Option<usize>> {
    let mut position: HashMap<usize, usize> = HashMap::with_capacity(joints.len());
    for (k, &j) in joints.iter().enumerate() {
        position.entry(j).or_insert(k);
    }
    let mut above: HashMap<usize, Option<usize>> = HashMap::new();
    let mut path = Vec::new();
    joints
        .iter()
        .map(|&j| {
            path.clear();
            let mut current = nodes.get(j).and_then(|n| n.parent);
            let found = loop {
                let Some(n) = current else { break None };
                if let Some(&k) = position.get(&n) {
                    break Some(k);
                }
                if let Some(&known) = above.get(&n) {
                    break known;
                }
                path.push(n);
                current = nodes.get(n).and_then(|n| n.parent);
            };
            for &n in &path {
                above.insert(n, found);
            }
            found
        })
        .collect()
}
