//! Many files' check results and their one summary, for `check FILE|DIR...`.
//!
//! Pure: the caller loads and checks each file (in parallel) and hands the results here in the
//! order it wants them shown. A file that could not be loaded is one error for that file
//! (`RIG_LOAD_FAILED`, pointer `""`), never the end of a run, so every format reports it like
//! any other finding.

use std::collections::BTreeMap;

use super::codes::LOAD_FAILED;
use super::finding::Finding;
use super::report::Report;
use crate::rig::Severity;

/// One file's result, named as the user will read it (the path as found from the arguments).
#[derive(Debug, Clone, PartialEq)]
pub struct FileCheck {
    pub path: String,
    pub report: Report,
    /// The loader's message when the file could not be loaded (then `report` holds only the
    /// `RIG_LOAD_FAILED` finding).
    pub load_error: Option<String>,
}

impl FileCheck {
    pub fn checked(path: String, report: Report) -> Self {
        Self { path, report, load_error: None }
    }

    /// A file that could not be loaded: one `RIG_LOAD_FAILED` error, or none when `ignore`
    /// names that code (the file is still counted as not loaded, and says why).
    pub fn unreadable(path: String, message: String, ignore: &[String]) -> Self {
        let ignored = ignore.iter().any(|c| c == LOAD_FAILED.id);
        let findings = if ignored {
            Vec::new()
        } else {
            vec![Finding::general(LOAD_FAILED, String::new(), message.clone())]
        };
        Self { path, report: Report::new(findings, Vec::new()), load_error: Some(message) }
    }

    /// Whether this file fails the run: any error, or with `deny_warnings` any warning.
    pub fn fails(&self, deny_warnings: bool) -> bool {
        self.report.error_count() > 0 || (deny_warnings && self.report.warning_count() > 0)
    }
}

/// Totals over every file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub files: usize,
    /// Files that fail the run (errors, or warnings with `deny_warnings`).
    pub failed: usize,
    /// Whether warnings fail a file too.
    pub deny_warnings: bool,
    pub unreadable: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    /// Findings by code over all files.
    pub counts: BTreeMap<&'static str, usize>,
    /// Findings by code and severity over all files: a code reported with two severities
    /// (by different files or rules) has two entries, so no count depends on file order.
    pub by_severity: BTreeMap<(&'static str, Severity), usize>,
}

impl Summary {
    pub fn new(files: &[FileCheck], deny_warnings: bool) -> Self {
        let mut s = Summary { files: files.len(), deny_warnings, ..Summary::default() };
        for f in files {
            s.failed += usize::from(f.fails(deny_warnings));
            s.unreadable += usize::from(f.load_error.is_some());
            s.errors += f.report.error_count();
            s.warnings += f.report.warning_count();
            s.infos += f.report.info_count();
            for (&(code, severity), &n) in &f.report.severities {
                *s.counts.entry(code).or_insert(0) += n;
                *s.by_severity.entry((code, severity)).or_insert(0) += n;
            }
        }
        s
    }

    pub fn fails(&self) -> bool {
        self.failed > 0
    }

    /// The most severe severity `code` was reported with, if it was.
    pub fn severity(&self, code: &str) -> Option<Severity> {
        self.by_severity.keys().filter(|(c, _)| *c == code).map(|&(_, s)| s).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::codes::{self, Code};

    pub(crate) fn report(codes: &[Code]) -> Report {
        let findings = codes.iter().map(|c| Finding::general(*c, "/skins/0".into(), "m".into())).collect();
        Report::new(findings, Vec::new())
    }

    #[test]
    fn summary_counts_files_findings_and_load_failures() {
        let files = vec![
            FileCheck::checked("a.glb".into(), report(&[])),
            FileCheck::checked("b.glb".into(), report(&[codes::SKIN_NO_COMMON_ROOT, codes::JOINT_UNUSED])),
            FileCheck::checked("c.gltf".into(), report(&[codes::MORE_THAN_4_INFLUENCES])),
            FileCheck::unreadable("d.glb".into(), "not glTF".into(), &[]),
        ];
        let s = Summary::new(&files, false);
        assert_eq!((s.files, s.failed, s.unreadable), (4, 2, 1));
        assert_eq!((s.errors, s.warnings, s.infos), (2, 1, 1));
        assert_eq!(s.counts.get("RIG_LOAD_FAILED"), Some(&1));
        assert_eq!(s.counts.get("SKIN_NO_COMMON_ROOT"), Some(&1));
        assert_eq!(s.counts.len(), 4);
        // The warning-only file fails too once warnings are denied.
        assert_eq!(Summary::new(&files, true).failed, 3);
    }

    #[test]
    fn an_ignored_load_failure_is_still_counted_as_not_loaded_but_fails_nothing() {
        let ignore = vec![LOAD_FAILED.id.to_string()];
        let files = vec![FileCheck::unreadable("d.glb".into(), "not glTF".into(), &ignore)];
        let s = Summary::new(&files, true);
        assert_eq!((s.files, s.failed, s.unreadable, s.errors), (1, 0, 1, 0));
        assert!(s.counts.is_empty());
    }

    #[test]
    fn a_code_with_two_severities_is_counted_per_severity_in_any_file_order() {
        let error = Finding::general(codes::WEIGHTS_NON_NORMALIZED, "/meshes/0".into(), "m".into());
        let mut warning = error.clone();
        warning.severity = Severity::Warning;
        let a = FileCheck::checked("a.glb".into(), Report::new(vec![error.clone(), error], Vec::new()));
        let b = FileCheck::checked("b.glb".into(), Report::new(vec![warning], Vec::new()));
        let code = codes::WEIGHTS_NON_NORMALIZED.id;
        for files in [vec![a.clone(), b.clone()], vec![b, a]] {
            let s = Summary::new(&files, false);
            assert_eq!(s.counts.get(code), Some(&3));
            assert_eq!(s.by_severity.get(&(code, Severity::Error)), Some(&2));
            assert_eq!(s.by_severity.get(&(code, Severity::Warning)), Some(&1));
            assert_eq!(s.severity(code), Some(Severity::Error));
        }
    }
}
