//! The result of `check`: findings in a stable order plus counts per primitive and overall.

use super::consequence::Consequences;
use super::finding::Finding;
use super::weights::PrimitiveSummary;
use crate::rig::Severity;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// Sorted by (severity, code, mesh, primitive, vertex); ties keep the order the rules
    /// found them in (file order, then the validator's component order).
    pub findings: Vec<Finding>,
    /// One row per skinned mesh primitive, with its findings counted by code.
    pub primitives: Vec<PrimitiveSummary>,
    /// Findings counted by code over the whole rig.
    pub counts: BTreeMap<&'static str, usize>,
    /// What each engine profile does to the vertices the findings name.
    pub consequences: Consequences,
}

impl Report {
    pub(crate) fn new(mut findings: Vec<Finding>, mut primitives: Vec<PrimitiveSummary>) -> Self {
        findings
            .sort_by_key(|f| (f.severity, f.code, f.mesh, f.primitive, f.vertex.as_ref().map(|v| v.vertex)));
        primitives.sort_by_key(|r| (r.mesh, r.primitive));
        let mut counts = BTreeMap::new();
        for f in &findings {
            *counts.entry(f.code).or_insert(0) += 1;
            if let (Some(m), Some(p)) = (f.mesh, f.primitive)
                && let Ok(row) = primitives.binary_search_by_key(&(m, p), |r| (r.mesh, r.primitive))
            {
                *primitives[row].counts.entry(f.code).or_insert(0) += 1;
            }
        }
        Self { findings, primitives, counts, consequences: Consequences::default() }
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == severity).count()
    }

    pub fn error_count(&self) -> usize {
        self.count(Severity::Error)
    }

    pub fn warning_count(&self) -> usize {
        self.count(Severity::Warning)
    }

    pub fn info_count(&self) -> usize {
        self.count(Severity::Info)
    }

    /// Findings with this code, in report order.
    pub fn with_code<'a>(&'a self, code: &'a str) -> impl Iterator<Item = &'a Finding> + 'a {
        self.findings.iter().filter(move |f| f.code == code)
    }
}
