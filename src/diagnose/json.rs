//! Machine-readable form of a `Report` (`format_version` is `FORMAT_VERSION`), for one file
//! and, per file, for many (`report::checks::json`, the same version).
//!
//! ```json
//! { "format_version": 3, "errors": 0, "warnings": 1, "infos": 0,
//!   "counts": { "CODE": 1 }, "primitives": [ { "mesh": 0, "primitive": 0, ... } ],
//!   "findings": [ { "code": "...", "severity": "error", "pointer": "/meshes/0/...",
//!                   "message": "...", "mesh": 0, "primitive": 0, "vertex": 12,
//!                   "joints": [..], "weights": [..], "sum": 0.5, "n": 2, ... } ],
//!   "consequences": { "diagonal": 1.8, "samples": 97,
//!     "engines": [ { "engine": "three", "label": "three.js r187", "moved": 12,
//!                    "worst": { "mesh": 0, "primitive": 0, "vertex": 22, "distance": 0.83,
//!                               "fraction": 0.46, "clip": 0, "time": 0.8 } } ],
//!     "vertices": [ { "mesh": 0, "primitive": 0, "vertex": 22,
//!                     "engines": { "three": { "distance": .., "fraction": .., "clip": 0, "time": 0.8 } } } ] } }
//! ```
//! Version 2 replaced the findings' `world_error` estimate by `consequences`, measured.
//! Version 3 lists at most `--max` findings per code (the worst first; `omitted` counts the
//! rest), and adds `joint_nodes`, `refuses`, `stored_vanishes` and `vertices_omitted`.
//! Vertex-only fields are present only on vertex findings; NaN and infinite numbers are
//! written as `null` (JSON has no such numbers).

use std::collections::BTreeMap;

use serde::Serialize;

use super::finding::Finding;
use super::report::Report;
use super::weights::PrimitiveSummary;

/// The version of the `check --json` documents, one file's and many files'.
pub const FORMAT_VERSION: u32 = 3;

/// The document `check --json` writes. Serialised straight from the report's own values, so
/// f32 numbers keep their shortest f32 text (`0.999`, not `0.9990000128746033`).
#[derive(Debug, Serialize)]
pub struct CheckDoc<'a> {
    pub format_version: u32,
    #[serde(flatten)]
    pub report: ReportDoc<'a>,
}

/// One report's counts and findings: the body of `check --json`, and of each file's entry
/// when many files are checked.
#[derive(Debug, Serialize)]
pub struct ReportDoc<'a> {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub counts: &'a BTreeMap<&'static str, usize>,
    pub primitives: &'a [PrimitiveSummary],
    /// At most `--max` per code (the worst first), in report order.
    pub findings: &'a [Finding],
    /// Per code, the findings left out of `findings` (absent when none was).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub omitted: &'a BTreeMap<&'static str, usize>,
    pub consequences: &'a super::consequence::Consequences,
}

impl<'a> ReportDoc<'a> {
    pub fn of(report: &'a Report) -> Self {
        ReportDoc {
            errors: report.error_count(),
            warnings: report.warning_count(),
            infos: report.info_count(),
            counts: &report.counts,
            primitives: &report.primitives,
            findings: &report.findings,
            omitted: &report.omitted,
            consequences: &report.consequences,
        }
    }
}

pub fn to_json(report: &Report) -> CheckDoc<'_> {
    CheckDoc { format_version: FORMAT_VERSION, report: ReportDoc::of(report) }
}
