//! How `diagnose` builds findings (`rig::Finding`, the loader's type too) and the sink that
//! collects them (honouring `ignore`). Findings about one vertex also carry that vertex's
//! whole influence list, so a reader can see why a rule fired without opening the file.

use super::codes::Code;
pub use crate::rig::{Finding, VertexFinding};

impl Finding {
    /// A finding about the file as a whole or one of its objects (not one vertex).
    pub fn general(code: Code, pointer: String, message: String) -> Self {
        Self::new(code.id, code.severity, pointer, message)
    }

    /// `|1 - sum|` for vertex findings, the key "worst first" sorts by.
    pub fn sum_error(&self) -> Option<f32> {
        self.vertex.as_ref().map(|v| (1.0 - v.sum).abs())
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
