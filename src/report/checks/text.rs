//! `check` text over several files: each file's findings as single-file `check` prints them,
//! then one summary with the findings counted per code (and severity) over all files.

use std::io::{self, Write};

use super::severity_name;
use crate::diagnose::batch::{FileCheck, Summary};
use crate::diagnose::render_text;

pub fn write_text(files: &[FileCheck], summary: &Summary, max: usize, out: &mut dyn Write) -> io::Result<()> {
    for f in files {
        writeln!(out, "{}", f.path)?;
        match &f.load_error {
            Some(message) => writeln!(out, "error RIG_LOAD_FAILED: {message}")?,
            None => out.write_all(render_text(&f.report, max).as_bytes())?,
        }
        writeln!(out)?;
    }
    writeln!(
        out,
        "{} file(s) checked, {} failed ({} could not be loaded): {} error(s), {} warning(s), {} info(s)",
        summary.files, summary.failed, summary.unreadable, summary.errors, summary.warnings, summary.infos
    )?;
    for ((code, severity), n) in &summary.by_severity {
        writeln!(out, "  {n:>8}  {:<8} {code}", severity_name(*severity))?;
    }
    Ok(())
}
