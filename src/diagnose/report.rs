//! The result of `check`: findings in a stable order plus counts per primitive and overall.
//!
//! A report can be cut down to a listing (`Report::listed`): at most N findings per code, the
//! first in the order every output shows them (the worst first where "worst" has a meaning), with the
//! counts still over every finding and the number left out per code. `check` keeps only that
//! listing of each file, so a file of a million findings costs a listing's memory in every
//! output format, not a million findings'.

use super::codes;
use super::consequence::Consequences;
use super::finding::Finding;
use super::weights::PrimitiveSummary;
use crate::rig::Severity;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// Sorted by (severity, code, mesh, primitive, vertex); ties keep the order the rules
    /// found them in (file order, then the validator's component order). After `listed`: per
    /// code at most the listing's length, in `display_order`.
    pub findings: Vec<Finding>,
    /// One row per skinned mesh primitive, with its findings counted by code.
    pub primitives: Vec<PrimitiveSummary>,
    /// Findings counted by code over the whole rig (listed or not).
    pub counts: BTreeMap<&'static str, usize>,
    /// Findings counted by code and severity over the whole rig (listed or not).
    pub severities: BTreeMap<(&'static str, Severity), usize>,
    /// Per code, the findings `listed` left out of `findings`.
    pub omitted: BTreeMap<&'static str, usize>,
    /// What each engine profile does to the vertices the findings name.
    pub consequences: Consequences,
}

impl Report {
    pub(crate) fn new(mut findings: Vec<Finding>, mut primitives: Vec<PrimitiveSummary>) -> Self {
        findings
            .sort_by_key(|f| (f.severity, f.code, f.mesh, f.primitive, f.vertex.as_ref().map(|v| v.vertex)));
        primitives.sort_by_key(|r| (r.mesh, r.primitive));
        let mut counts = BTreeMap::new();
        let mut severities = BTreeMap::new();
        for f in &findings {
            *counts.entry(f.code).or_insert(0) += 1;
            *severities.entry((f.code, f.severity)).or_insert(0) += 1;
            if let (Some(m), Some(p)) = (f.mesh, f.primitive)
                && let Ok(row) = primitives.binary_search_by_key(&(m, p), |r| (r.mesh, r.primitive))
            {
                *primitives[row].counts.entry(f.code).or_insert(0) += 1;
            }
        }
        Self {
            findings,
            primitives,
            counts,
            severities,
            omitted: BTreeMap::new(),
            consequences: Consequences::default(),
        }
    }

    /// Findings of `severity`, listed or not.
    pub fn count(&self, severity: Severity) -> usize {
        self.severities.iter().filter(|((_, s), _)| *s == severity).map(|(_, n)| n).sum()
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

    /// Listed findings with this code, in report order.
    pub fn with_code<'a>(&'a self, code: &'a str) -> impl Iterator<Item = &'a Finding> + 'a {
        self.findings.iter().filter(move |f| f.code == code)
    }

    /// The report with at most `max` findings per code (`None`: all): each code's first in
    /// `display_order` (its worst), kept in report order; the rest counted in `omitted`. The
    /// measured consequences are kept for the listed vertices only (every engine's summary
    /// still covers every problem vertex).
    pub fn listed(mut self, max: Option<usize>) -> Self {
        let Some(max) = max else { return self };
        if self.counts.values().all(|&n| n <= max) {
            return self;
        }
        let mut by_code: BTreeMap<&'static str, Vec<(usize, Finding)>> = BTreeMap::new();
        for (i, f) in std::mem::take(&mut self.findings).into_iter().enumerate() {
            by_code.entry(f.code).or_default().push((i, f));
        }
        let mut kept = Vec::new();
        for (code, mut list) in by_code {
            if list.len() > max {
                list.sort_by(|a, b| display_cmp(code, &a.1, &b.1));
                *self.omitted.entry(code).or_insert(0) += list.len() - max;
                list.truncate(max);
            }
            kept.extend(list);
        }
        kept.sort_by_key(|(i, _)| *i);
        self.findings = kept.into_iter().map(|(_, f)| f).collect();
        let listed: std::collections::BTreeSet<(usize, usize, usize)> = (self.findings.iter())
            .filter_map(|f| Some((f.mesh?, f.primitive?, f.vertex.as_ref()?.vertex)))
            .collect();
        let vertices = &mut self.consequences.vertices;
        let before = vertices.len();
        vertices.retain(|r| listed.contains(&(r.mesh, r.primitive, r.vertex)));
        self.consequences.vertices_omitted += before - vertices.len();
        self
    }
}

/// The order each code's findings are shown in: the worst first where "worst" has a meaning
/// (`|1 - sum|` for non-normalised weights, the weight dropped for more than 4 influences;
/// a NaN counts as worst so it is never hidden), else report order. Stable.
pub fn display_order(code: &str, found: &mut [&Finding]) {
    found.sort_by(|a, b| display_cmp(code, a, b));
}

fn display_cmp(code: &str, a: &Finding, b: &Finding) -> std::cmp::Ordering {
    if code == codes::WEIGHTS_NON_NORMALIZED.id {
        worst(b.sum_error()).total_cmp(&worst(a.sum_error()))
    } else if code == codes::MORE_THAN_4_INFLUENCES.id {
        let dropped = |f: &Finding| f.vertex.as_ref().and_then(|v| v.dropped_weight);
        worst(dropped(b)).total_cmp(&worst(dropped(a)))
    } else {
        std::cmp::Ordering::Equal
    }
}

/// How `display_order` ranks a code's findings, in words for a heading ("" for report order).
pub fn order_words(code: &str) -> &'static str {
    if code == codes::WEIGHTS_NON_NORMALIZED.id {
        ", worst first by |1 - sum|"
    } else if code == codes::MORE_THAN_4_INFLUENCES.id {
        ", worst first by dropped weight"
    } else {
        ""
    }
}

/// Sort key for "worst first": NaN counts as worst so it is never hidden.
fn worst(v: Option<f32>) -> f32 {
    match v {
        Some(x) if x.is_nan() => f32::INFINITY,
        Some(x) => x,
        None => f32::NEG_INFINITY,
    }
}
