//! `check --format json` over several files (`format_version` is the single-file document's,
//! `diagnose::json::FORMAT_VERSION`). One file given by name keeps
//! the single-file document (`diagnose::to_json`); this one wraps that document per file.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::diagnose::ReportDoc;
use crate::diagnose::batch::{FileCheck, Summary};

#[derive(Debug, Serialize)]
pub struct BatchDoc<'a> {
    pub format_version: u32,
    pub files: usize,
    pub failed_files: usize,
    pub unreadable_files: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub counts: &'a BTreeMap<&'static str, usize>,
    pub results: Vec<FileDoc<'a>>,
}

/// One file: its path, whether it fails the run, and the single-file document's fields.
#[derive(Debug, Serialize)]
pub struct FileDoc<'a> {
    pub file: &'a str,
    pub failed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_error: Option<&'a str>,
    #[serde(flatten)]
    pub report: ReportDoc<'a>,
}

pub fn to_json<'a>(files: &'a [FileCheck], summary: &'a Summary, deny_warnings: bool) -> BatchDoc<'a> {
    BatchDoc {
        format_version: crate::diagnose::CHECK_FORMAT_VERSION,
        files: summary.files,
        failed_files: summary.failed,
        unreadable_files: summary.unreadable,
        errors: summary.errors,
        warnings: summary.warnings,
        infos: summary.infos,
        counts: &summary.counts,
        results: files
            .iter()
            .map(|f| FileDoc {
                file: &f.path,
                failed: f.fails(deny_warnings),
                load_error: f.load_error.as_deref(),
                report: ReportDoc::of(&f.report),
            })
            .collect(),
    }
}
