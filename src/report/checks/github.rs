//! `check --format github`: one GitHub Actions workflow command per finding
//! (`::error file=PATH,title=CODE::message`), which the runner turns into annotations on the
//! file, then the summary as plain lines for the log.

use std::io::{self, Write};

use crate::diagnose::batch::{FileCheck, Summary};
use crate::rig::Severity;

pub fn write_github(files: &[FileCheck], summary: &Summary, out: &mut dyn Write) -> io::Result<()> {
    for f in files {
        for finding in &f.report.findings {
            let command = match finding.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let message = if finding.pointer.is_empty() {
                finding.message.clone()
            } else {
                format!("{} ({})", finding.message, finding.pointer)
            };
            writeln!(
                out,
                "::{command} file={},title={}::{}",
                escape_property(&f.path),
                escape_property(finding.code),
                escape_data(&message)
            )?;
        }
        for (code, n) in &f.report.omitted {
            writeln!(out, "{}: {n} more {code} findings not listed (rigscope check --max)", f.path)?;
        }
    }
    writeln!(out, "rigscope check: {}", super::text::totals(summary))?;
    super::text::write_failing(files, summary, out)
}

/// A workflow command's message: `%`, CR and LF escaped as the runner expects.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A workflow command's property value: as data, plus `:` and `,` which end a property.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_escape_the_runner_s_separators() {
        assert_eq!(escape_data("50% off\nnext"), "50%25 off%0Anext");
        assert_eq!(escape_property("a,b:c.glb"), "a%2Cb%3Ac.glb");
    }
}
