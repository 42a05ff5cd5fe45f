//! `check` text over several files: each file's findings as single-file `check` prints them,
//! then one summary with the findings counted per code (and severity) over all files.

use std::io::{self, Write};

use crate::diagnose::batch::{FileCheck, Summary};
use crate::diagnose::render_text;
use crate::report::count;
use crate::rig::Severity;

pub fn write_text(files: &[FileCheck], summary: &Summary, max: usize, out: &mut dyn Write) -> io::Result<()> {
    for f in files {
        writeln!(out, "{}", f.path)?;
        match &f.load_error {
            Some(message) if f.report.findings.is_empty() => {
                writeln!(out, "not loaded (RIG_LOAD_FAILED is ignored): {message}")?
            }
            Some(message) => writeln!(out, "error RIG_LOAD_FAILED: {message}")?,
            None => out.write_all(render_text(&f.report, max).as_bytes())?,
        }
        writeln!(out)?;
    }
    writeln!(out, "{}", totals(summary))?;
    for ((code, severity), n) in &summary.by_severity {
        writeln!(out, "  {n:>8}  {:<8} {code}", severity.name())?;
    }
    write_failing(files, summary, out)
}

/// "3 files checked, 1 failed (1 could not be loaded): 2 errors, 1 warning, 0 infos".
pub(super) fn totals(summary: &Summary) -> String {
    format!(
        "{} checked, {} failed ({} could not be loaded): {}, {}, {}",
        count(summary.files, "file", "files"),
        summary.failed,
        summary.unreadable,
        Severity::Error.count(summary.errors),
        Severity::Warning.count(summary.warnings),
        Severity::Info.count(summary.infos)
    )
}

/// Every file that fails the run, with what fails it: the line to read after a red CI job.
pub(super) fn write_failing(files: &[FileCheck], summary: &Summary, out: &mut dyn Write) -> io::Result<()> {
    if summary.failed == 0 {
        return Ok(());
    }
    writeln!(out, "failed:")?;
    for f in files.iter().filter(|f| f.fails(summary.deny_warnings)) {
        let mut why = vec![Severity::Error.count(f.report.error_count())];
        if summary.deny_warnings && f.report.warning_count() > 0 {
            why.push(Severity::Warning.count(f.report.warning_count()));
        }
        if let Some(message) = &f.load_error {
            why.push(message.clone());
        }
        writeln!(out, "  {}: {}", f.path, why.join(", "))?;
    }
    Ok(())
}
