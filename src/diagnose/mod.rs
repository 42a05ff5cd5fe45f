//! Weight and skin diagnostics: a pure function from a `Rig` to a `Report`.
//!
//! Where the Khronos glTF-Validator has a rule, `diagnose` applies the same rule with the same
//! code, severity, JSON pointer and message wording (each rule's module cites the validator
//! source it follows); rigscope's own rules use `RIG_` codes. Nothing here renormalises,
//! repairs or prints: the CLI decides exit codes from `Report::error_count` and friends, and
//! `render_text` / `to_json` only format.
//!
//! Findings import already recorded (`rig.findings`) are included as they are, but for two
//! codes: key-time rules run only when import (which reports them per key at the validator's
//! sampler pointer) did not, and import's per-accessor note of non-unit rotation keys gives
//! way to the per-key, per-channel rule here, which counts them as the validator does.

pub mod batch;
mod channels;
pub mod codes;
pub mod consequence;
pub mod explain;
mod finding;
mod humanoid;
mod json;
mod nodes;
mod report;
mod screen;
mod skins;
mod springs;
mod text;
mod weights;

#[cfg(test)]
mod tests;

pub use channels::{FLIP_DOT, NEAR_OPPOSITE_DOT, UNIT_LENGTH_THRESHOLD, opposite_hemispheres};
pub use codes::Code;
pub use consequence::{Consequences, Displacement, EngineSummary, VertexConsequence, WorstVertex};
pub use finding::{Finding, VertexFinding};
pub use json::{CheckDoc, FORMAT_VERSION as CHECK_FORMAT_VERSION, ReportDoc, to_json};
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

/// Checks the rig, then measures what every engine profile does to each vertex a rule
/// fired on (`Report::consequences`).
pub fn check(rig: &Rig, options: &Options) -> Report {
    // The bind-pose workspace the measurement starts from does not depend on the rules:
    // on two cores it is built while they run (it skins the whole model, as they read it).
    let (mut report, start) =
        rayon::join(|| run(rig, options, &rig.rest_world()), || consequence::BindStart::new(rig));
    let vertices = consequence::problem_vertices(rig, &report.findings);
    report.consequences = consequence::measure_with(start, rig, &vertices, &consequence::measured_engines());
    report
}

/// The humanoid rules alone: `check`'s `RIG_VRM_*` findings on a VRM avatar's mapping (none
/// for other files), for commands that play clips through it (`fit`).
pub fn humanoid_findings(rig: &Rig) -> Vec<finding::Finding> {
    let mut sink = finding::Sink::new(&[]);
    humanoid::check_humanoid(rig, &mut sink);
    sink.findings
}

fn run(rig: &Rig, options: &Options, rest: &[Mat4]) -> Report {
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
        // Import notes non-unit rotation keys once per accessor; the rule below reports
        // them as the validator does, once per key of each rotation channel.
        if f.code == codes::NON_NORMALIZED_QUATERNION.id {
            continue;
        }
        sink.push(f.clone());
    }
    let import_has = |code: Code| rig.findings.iter().any(|f| f.code == code.id);

    let mut primitives = Vec::new();
    let joint_use = weights::check_weights(rig, &mut sink, &mut primitives);
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
    springs::check_springs(rig, &mut sink);
    let rules = channels::ChannelRules {
        key_times: !import_has(codes::ANIMATION_INPUT_NON_INCREASING)
            && !import_has(codes::ANIMATION_INPUT_NEGATIVE),
    };
    channels::check_channels(rig, &rules, &mut sink);
    let mut findings = sink.findings;
    note_draco_sums(rig, &mut findings);
    Report::new(findings, primitives)
}

/// A Draco encoder quantises weights (12 bits by default), so decoded sums can miss 1 by
/// more than the validator's tolerance. The finding keeps the rule's severity (an error, as
/// the validator reports on the decoded copy) and says where the sum comes from.
fn note_draco_sums(rig: &Rig, findings: &mut [Finding]) {
    let draco = |m: Option<usize>, p: Option<usize>| {
        rig.storage.primitives.iter().any(|s| {
            Some(s.mesh) == m
                && Some(s.primitive) == p
                && s.compression == Some(crate::rig::Compression::Draco)
        })
    };
    for f in findings.iter_mut() {
        if f.code == codes::WEIGHTS_NON_NORMALIZED.id && draco(f.mesh, f.primitive) {
            f.message.push_str(
                " (as decoded from the primitive's Draco stream, whose encoder quantised the weights)",
            );
        }
    }
}
