//! The findings `diagnose` produces and the sink that collects them (honouring `ignore`).
//!
//! A finding is a validator-style record (code, severity, JSON pointer, message); findings
//! about one vertex also carry that vertex's whole influence list, so a reader can see why
//! a rule fired without opening the file.

use super::codes::Code;
use crate::rig::{self, Severity};
use serde::Serialize;

/// One problem found in the rig.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    /// JSON pointer into the file, as the Khronos glTF-Validator writes it.
    pub pointer: String,
    pub message: String,
    /// Mesh and primitive the finding is about, when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mesh: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primitive: Option<usize>,
    /// Present for findings about one vertex.
    #[serde(flatten)]
    pub vertex: Option<VertexFinding>,
}

/// The vertex a finding is about, with everything the rules looked at.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VertexFinding {
    pub vertex: usize,
    /// `n` of the `JOINTS_n`/`WEIGHTS_n` pair the rule fired on, for per-influence rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set: Option<usize>,
    /// Component (0..4) the rule fired on, for per-influence rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<usize>,
    /// Every influence of the vertex, set by set (set 0 components 0..4, then set 1, ...):
    /// indices into the skin's joints.
    pub joints: Vec<u16>,
    /// The node each of `joints` is (`null` past the skin's joints), in the skin that sets
    /// the validator's joint limit: the numbers the viewer and `diff` name joints by.
    pub joint_nodes: Vec<Option<usize>>,
    pub weights: Vec<f32>,
    /// The validator's running sum: non-zero, non-negative, first-seen, in-range weights,
    /// rounded to f32 after each addition.
    pub sum: f32,
    /// How many weights went into `sum`.
    pub n: u32,
    /// The validator's tolerance for `|sum - 1|`: 2e-7 added once per summed weight.
    pub threshold: f64,
    /// Weight an engine keeping the 4 largest influences would drop
    /// (only for `RIG_MORE_THAN_4_INFLUENCES`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_weight: Option<f32>,
}

impl Finding {
    /// A finding about the file as a whole or one of its objects (not one vertex).
    pub fn general(code: Code, pointer: String, message: String) -> Self {
        Self {
            code: code.id,
            severity: code.severity,
            pointer,
            message,
            mesh: None,
            primitive: None,
            vertex: None,
        }
    }

    /// `|1 - sum|` for vertex findings, the key "worst first" sorts by.
    pub fn sum_error(&self) -> Option<f32> {
        self.vertex.as_ref().map(|v| (1.0 - v.sum).abs())
    }
}

impl From<&rig::Finding> for Finding {
    fn from(f: &rig::Finding) -> Self {
        Self {
            code: f.code,
            severity: f.severity,
            pointer: f.pointer.clone(),
            message: f.message.clone(),
            mesh: None,
            primitive: None,
            vertex: None,
        }
    }
}

/// Collects findings, dropping the codes the caller asked to ignore.
pub(crate) struct Sink<'a> {
    ignore: &'a [String],
    pub findings: Vec<Finding>,
}

impl<'a> Sink<'a> {
    pub fn new(ignore: &'a [String]) -> Self {
        Self { ignore, findings: Vec::new() }
    }

    /// False for ignored codes: rules check this before building a finding, so an ignored
    /// per-vertex code costs no allocation.
    pub fn wants(&self, code: Code) -> bool {
        self.wants_id(code.id)
    }

    pub fn wants_id(&self, id: &str) -> bool {
        !self.ignore.iter().any(|c| c == id)
    }

    pub fn general(&mut self, code: Code, pointer: String, message: impl FnOnce() -> String) {
        if self.wants(code) {
            self.findings.push(Finding::general(code, pointer, message()));
        }
    }

    pub fn push(&mut self, finding: Finding) {
        if self.wants_id(finding.code) {
            self.findings.push(finding);
        }
    }
}

pub use crate::rig::key_times::dart_num;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sink_drops_ignored_codes() {
        let ignore = vec!["RIG_JOINT_UNUSED".to_string()];
        let mut sink = Sink::new(&ignore);
        sink.general(super::super::codes::JOINT_UNUSED, "/skins/0".into(), || "x".into());
        sink.general(super::super::codes::SKIN_NO_COMMON_ROOT, "/skins/0".into(), || "y".into());
        assert_eq!(sink.findings.len(), 1);
        assert_eq!(sink.findings[0].code, "SKIN_NO_COMMON_ROOT");
    }
}
