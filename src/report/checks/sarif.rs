//! `check --format sarif`: a SARIF 2.1.0 log for code scanning (GitHub's
//! `upload-sarif`, Azure DevOps, IDE viewers), one run, one result per finding.
//!
//! Results point at the file (`artifactLocation.uri`, relative paths as given, `/`-separated)
//! and at the glTF object by its JSON pointer (a logical location): a `.glb` has no lines to
//! point into, so no `region` is given. `partialFingerprints` are code + pointer + vertex, so
//! that code scanning tracks one finding across runs without hashing binary files.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde_sarif::sarif::{
    ArtifactLocation, Invocation, Location, LogicalLocation, Message, MultiformatMessageString, Notification,
    PhysicalLocation, ReportingConfiguration, ReportingDescriptor, Result as SarifResult, ResultLevel, Run,
    Sarif, Tool, ToolComponent,
};

use super::TOOL;
use crate::diagnose::batch::{FileCheck, Summary};
use crate::rig::Severity;

/// The schema the log names; the one `serde-sarif` is generated from and tests validate against.
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

pub fn to_sarif(files: &[FileCheck], summary: &Summary) -> Sarif {
    let codes: Vec<&'static str> = summary.counts.keys().copied().collect();
    let rules: Vec<ReportingDescriptor> = codes
        .iter()
        .map(|code| {
            let level = summary.severity(code).map_or(ResultLevel::Warning, level);
            let origin = if code.starts_with("RIG_") {
                "rigscope's own rule"
            } else {
                "the Khronos glTF-Validator's rule"
            };
            ReportingDescriptor::builder()
                .id(code.to_string())
                .short_description(
                    MultiformatMessageString::builder().text(format!("{code}: {origin}")).build(),
                )
                .default_configuration(
                    ReportingConfiguration::builder().level(serde_json::json!(level)).build(),
                )
                .build()
        })
        .collect();
    let driver = ToolComponent::builder()
        .name(TOOL.to_string())
        .version(env!("CARGO_PKG_VERSION").to_string())
        .rules(rules)
        .build();
    let mut results = Vec::new();
    for f in files {
        for finding in &f.report.findings {
            let physical = PhysicalLocation::builder()
                .artifact_location(ArtifactLocation::builder().uri(uri(&f.path)).build())
                .build();
            let mut location = Location::builder().physical_location(physical).build();
            if !finding.pointer.is_empty() {
                location.logical_locations = Some(vec![
                    LogicalLocation::builder()
                        .fully_qualified_name(finding.pointer.clone())
                        .kind("object".to_string())
                        .build(),
                ]);
            }
            let vertex = finding.vertex.as_ref().map(|v| v.vertex.to_string()).unwrap_or_default();
            let fingerprint = format!("{}|{}|{}|{vertex}", f.path, finding.code, finding.pointer);
            let mut result = SarifResult::builder()
                .message(Message::builder().text(finding.message.clone()).build())
                .rule_id(finding.code.to_string())
                .level(level(finding.severity))
                .locations(vec![location])
                .partial_fingerprints(BTreeMap::from([("rigscopeFinding/v1".to_string(), fingerprint)]))
                .build();
            result.rule_index = codes.iter().position(|c| *c == finding.code).map(|i| i as i64);
            results.push(result);
        }
    }
    // Findings `--max` left out of the listing: one note per file and code, so a reader of
    // the log knows the results are not every finding.
    let mut notes = Vec::new();
    for f in files {
        for (code, n) in &f.report.omitted {
            let artifact = ArtifactLocation::builder().uri(uri(&f.path)).build();
            let location = Location::builder()
                .physical_location(PhysicalLocation::builder().artifact_location(artifact).build())
                .build();
            notes.push(
                Notification::builder()
                    .message(
                        Message::builder()
                            .text(format!(
                                "{}: {n} more {code} findings not listed (rigscope check --max)",
                                f.path
                            ))
                            .build(),
                    )
                    .level(serde_json::json!("note"))
                    .locations(vec![location])
                    .build(),
            );
        }
    }
    let mut run = Run::builder().tool(Tool::builder().driver(driver).build()).results(results).build();
    if !notes.is_empty() {
        run.invocations = Some(vec![
            Invocation::builder().execution_successful(true).tool_execution_notifications(notes).build(),
        ]);
    }
    Sarif::builder().schema(SCHEMA.to_string()).version(serde_json::json!("2.1.0")).runs(vec![run]).build()
}

pub fn write_sarif(files: &[FileCheck], summary: &Summary, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &to_sarif(files, summary))
        .map_err(crate::report::json_io_error)?;
    writeln!(out)
}

fn level(severity: Severity) -> ResultLevel {
    match severity {
        Severity::Error => ResultLevel::Error,
        Severity::Warning => ResultLevel::Warning,
        Severity::Info => ResultLevel::Note,
    }
}

/// A path as a URI reference: `/` separators, and the few characters a URI cannot hold as
/// they are percent-encoded. Absolute paths become `file://` URIs.
fn uri(path: &str) -> String {
    let slashed = path.replace('\\', "/");
    let mut out = String::with_capacity(slashed.len());
    for c in slashed.chars() {
        match c {
            'A'..='Z'
            | 'a'..='z'
            | '0'..='9'
            | '-'
            | '.'
            | '_'
            | '~'
            | '/'
            | '@'
            | '!'
            | '$'
            | '&'
            | '\''
            | '('
            | ')'
            | '*'
            | '+'
            | ','
            | ';'
            | '=' => out.push(c),
            _ => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
        }
    }
    let out = out.strip_prefix("./").map(str::to_string).unwrap_or(out);
    // A Windows drive ("C:/..."): the one colon kept, in an absolute file URI. Every other
    // colon is encoded, so a relative name such as "x:y.glb" cannot read as a URI scheme.
    let drive = slashed.as_bytes();
    if drive.len() > 2 && drive[0].is_ascii_alphabetic() && drive[1] == b':' && drive[2] == b'/' {
        format!("file:///{}:{}", &slashed[..1], out.get(4..).unwrap_or_default())
    } else if out.starts_with('/') {
        format!("file://{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri("assets/a b.glb"), "assets/a%20b.glb");
        assert_eq!(uri("./x/y#1.gltf"), "x/y%231.gltf");
        assert_eq!(uri("/tmp/r.glb"), "file:///tmp/r.glb");
        assert_eq!(uri("C:\\rigs\\é.glb"), "file:///C:/rigs/%C3%A9.glb");
        // RFC 3986: a relative reference's first segment holds no colon.
        assert_eq!(uri("x:y.glb"), "x%3Ay.glb");
        assert_eq!(uri("./a,b:c%d.glb"), "a,b%3Ac%25d.glb");
    }
}
