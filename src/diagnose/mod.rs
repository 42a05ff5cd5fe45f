//! Weight and skin diagnostics: a pure function from a `Rig` to a `Report`.
//!
//! Where the Khronos glTF-Validator has a rule, `diagnose` applies the same rule with the same
//! code, severity, JSON pointer and message wording (each rule's module cites the validator
//! source it follows); rigscope's own rules use `RIG_` codes. Nothing here renormalises,
//! repairs or prints: the CLI decides exit codes from `Report::error_count` and friends, and
//! `render_text` / `to_json` only format.
//!
//! Findings import already recorded (`rig.findings`) are included as they are; the rules that
//! overlap with import (key times, unit quaternions) run only when import did not report that
//! code itself.

pub mod batch;
mod channels;
pub mod codes;
mod finding;
mod humanoid;
mod json;
mod nodes;
mod pose;
mod report;
mod skins;
mod text;
mod weights;

#[cfg(test)]
mod tests;

pub use channels::{NEAR_OPPOSITE_DOT, UNIT_LENGTH_THRESHOLD};
pub use codes::Code;
pub use finding::{Finding, VertexFinding};
pub use json::{CheckDoc, ReportDoc, to_json};
pub use pose::rest_globals;
pub use report::Report;
pub use text::render_text;
pub use weights::PrimitiveSummary;

use crate::rig::Rig;
use glam::Mat4;

/// What to check and how strictly.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Codes to leave out of the report entirely (like the validator's `ignoredIssues`).
    pub ignore: Vec<String>,
    /// `RIG_JOINT_FEW_VERTICES` fires for joints weighted by 1..few_vertices-1 vertices.
    pub few_vertices: u32,
    /// `RIG_IBM_BIND_MISMATCH` fires when an element of `G_rest * IBM` differs from the
    /// identity's by more than this.
    pub ibm_tolerance: f32,
}

impl Default for Options {
    fn default() -> Self {
        Self { ignore: Vec::new(), few_vertices: 4, ibm_tolerance: 1e-3 }
    }
}

/// Checks the rig, estimating world-space errors in the rest pose.
pub fn check(rig: &Rig, options: &Options) -> Report {
    let rest = rest_globals(rig);
    run(rig, options, &rest, &rest)
}

/// Checks the rig, estimating world-space errors of non-normalised vertices in the pose
/// given by `globals` (node world matrices, index = node index; missing entries are skipped).
/// Bind checks still use the rest pose: they compare the file's bind data with itself.
pub fn check_in_pose(rig: &Rig, options: &Options, globals: &[Mat4]) -> Report {
    let rest = rest_globals(rig);
    run(rig, options, &rest, globals)
}

fn run(rig: &Rig, options: &Options, rest: &[Mat4], globals: &[Mat4]) -> Report {
    let mut sink = finding::Sink::new(&options.ignore);
    // Import flags non-finite WEIGHTS per accessor; the weight rules below report the same
    // values per vertex, with the joints and weights, for every mesh drawn with a skin.
    let per_vertex: Vec<String> = rig
        .nodes
        .iter()
        .filter(|n| n.skin.is_some())
        .filter_map(|n| n.mesh.and_then(|m| rig.meshes.get(m)))
        .flat_map(|m| m.primitives.iter().flat_map(|p| p.influences.iter()))
        .map(|set| format!("/accessors/{}", set.weights_accessor))
        .collect();
    for f in &rig.findings {
        if f.code == codes::INVALID_FLOAT.id && per_vertex.contains(&f.pointer) {
            continue;
        }
        sink.push(f.into());
    }
    let import_has = |code: Code| rig.findings.iter().any(|f| f.code == code.id);

    let mut primitives = Vec::new();
    let joint_use = weights::check_weights(rig, globals, &mut sink, &mut primitives);
    let mut used_skins = vec![false; rig.skins.len()];
    for node in &rig.nodes {
        if let (Some(_), Some(s)) = (node.mesh, node.skin)
            && let Some(used) = used_skins.get_mut(s)
        {
            *used = true;
        }
    }
    let limits =
        skins::SkinLimits { few_vertices: options.few_vertices, ibm_tolerance: options.ibm_tolerance };
    skins::check_skins(rig, rest, &joint_use, &used_skins, &limits, &mut sink);
    nodes::check_nodes(rig, &mut sink);
    humanoid::check_humanoid(rig, &mut sink);
    let rules = channels::ChannelRules {
        key_times: !import_has(codes::ANIMATION_INPUT_NON_INCREASING)
            && !import_has(codes::ANIMATION_INPUT_NEGATIVE),
        unit_quaternions: !import_has(codes::NON_NORMALIZED_QUATERNION),
    };
    channels::check_channels(rig, &rules, &mut sink);
    let mut findings = sink.findings;
    soften_draco_sums(rig, &mut findings);
    Report::new(findings, primitives)
}

/// A Draco encoder quantises weights (12 bits by default), so decoded sums miss 1 by more
/// than the validator's tolerance in files every tool writes that way; the validator does
/// not decode Draco and never sees it. Such a sum is a warning that says where it comes from.
fn soften_draco_sums(rig: &Rig, findings: &mut [Finding]) {
    let draco = |m: Option<usize>, p: Option<usize>| {
        rig.storage.primitives.iter().any(|s| {
            Some(s.mesh) == m
                && Some(s.primitive) == p
                && s.compression == Some(crate::rig::Compression::Draco)
        })
    };
    for f in findings.iter_mut() {
        if f.code == codes::WEIGHTS_NON_NORMALIZED.id && draco(f.mesh, f.primitive) {
            f.severity = crate::rig::Severity::Warning;
            f.message.push_str(
                " (as decoded from the primitive's Draco stream, whose encoder quantised the weights; \
                 the Khronos validator does not decode Draco)",
            );
        }
    }
}
