//! `check --format junit`: JUnit XML for CI test reports. One test suite, one test case per
//! file (classname `rigscope.check`, name the path): a file that fails the run is a failure
//! whose type is its first failing code and whose text lists every finding; findings of a
//! passing file go to the case's system-out.
//!
//! The document keeps to the attributes the Jenkins/Surefire schema (`junit-10.xsd`) allows,
//! which GitLab, Jenkins, Azure and the GitHub test-report actions all read. No time stamps:
//! the same files give the same bytes.

use std::io::{self, Write};

use quick_xml::escape::escape;

use crate::diagnose::batch::{FileCheck, Summary};
use crate::rig::Severity;

pub fn write_junit(
    files: &[FileCheck],
    summary: &Summary,
    deny_warnings: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    let counts = format!(r#"tests="{}" failures="{}" errors="0""#, summary.files, summary.failed);
    writeln!(out, r#"<testsuites name="rigscope" {counts}>"#)?;
    writeln!(out, r#"  <testsuite name="rigscope check" {counts} skipped="0">"#)?;
    for f in files {
        let name = xml_text(&f.path);
        let mut listing: String = f
            .report
            .findings
            .iter()
            .map(|x| {
                format!("{} {}{}: {}\n", x.severity.name(), x.code, pointer_suffix(&x.pointer), x.message)
            })
            .collect();
        for (code, n) in &f.report.omitted {
            listing.push_str(&format!("... and {n} more {code} (rigscope check --max)\n"));
        }
        write!(out, r#"    <testcase name="{name}" classname="rigscope.check""#)?;
        if f.fails(deny_warnings) {
            let failing = |s: Severity| s == Severity::Error || (deny_warnings && s == Severity::Warning);
            let first = f.report.findings.iter().find(|x| failing(x.severity)).map_or("", |x| x.code);
            let message = format!(
                "{}, {}",
                Severity::Error.count(f.report.error_count()),
                Severity::Warning.count(f.report.warning_count())
            );
            writeln!(out, ">")?;
            writeln!(
                out,
                r#"      <failure type="{first}" message="{}">{}</failure>"#,
                xml_text(&message),
                xml_text(&listing)
            )?;
            writeln!(out, "    </testcase>")?;
        } else if !listing.is_empty() {
            writeln!(out, ">")?;
            writeln!(out, "      <system-out>{}</system-out>", xml_text(&listing))?;
            writeln!(out, "    </testcase>")?;
        } else {
            writeln!(out, "/>")?;
        }
    }
    writeln!(out, "  </testsuite>")?;
    writeln!(out, "</testsuites>")
}

/// Escaped text with the control characters XML 1.0 cannot hold (possible in file names) left
/// out.
fn xml_text(s: &str) -> String {
    let allowed: String = s.chars().filter(|&c| c >= ' ' || matches!(c, '\t' | '\n' | '\r')).collect();
    escape(allowed.as_str()).into_owned()
}

/// ` /meshes/0` after the code, nothing for a finding about the whole file.
fn pointer_suffix(pointer: &str) -> String {
    if pointer.is_empty() { String::new() } else { format!(" {pointer}") }
}

#[cfg(test)]
mod tests {
    #[test]
    fn xml_text_escapes_markup_and_drops_control_characters() {
        assert_eq!(super::xml_text("a<b>&\"c\u{1}\n"), "a&lt;b&gt;&amp;&quot;c\n");
    }
}
