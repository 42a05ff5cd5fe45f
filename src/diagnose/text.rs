//! Plain-text rendering of a `Report`: totals, one block per skinned primitive, then the
//! findings of each code (the worst first where "worst" has a meaning).

use super::codes;
use super::finding::Finding;
use super::report::Report;
use crate::rig::Severity;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Renders the report; each code lists at most `max_per_code` findings.
pub fn render_text(report: &Report, max_per_code: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} error(s), {} warning(s), {} info(s)",
        report.error_count(),
        report.warning_count(),
        report.info_count()
    );
    let mut severities = BTreeMap::new();
    for f in &report.findings {
        severities.entry(f.code).or_insert(f.severity);
    }
    primitives(report, &severities, &mut out);
    for &code in report.counts.keys() {
        code_section(report, code, max_per_code, &mut out);
    }
    out
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

fn primitives(report: &Report, severities: &BTreeMap<&str, Severity>, out: &mut String) {
    for row in &report.primitives {
        let name = row.mesh_name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
        let _ = writeln!(
            out,
            "\nmesh {}{name} primitive {}: {} vertices, {} influence set(s)",
            row.mesh, row.primitive, row.vertices, row.influence_sets
        );
        if !row.checked {
            let _ = writeln!(
                out,
                "  weights not checked: no node draws this mesh with a skin, or JOINTS/WEIGHTS counts differ from the vertex count"
            );
        }
        if row.counts.is_empty() && row.checked {
            let _ = writeln!(out, "  no findings");
        }
        for (code, count) in &row.counts {
            let severity = severities.get(code).map_or("", |&s| severity_name(s));
            let _ = writeln!(out, "  {count:>8}  {severity:<7}  {code}");
        }
    }
}

fn code_section(report: &Report, code: &str, max: usize, out: &mut String) {
    let mut found: Vec<&Finding> = report.with_code(code).collect();
    let Some(first) = found.first() else {
        return;
    };
    let severity = severity_name(first.severity);
    let is_vertex = first.vertex.is_some();
    let total = found.len();
    let order = if code == codes::WEIGHTS_NON_NORMALIZED.id {
        found.sort_by(|a, b| worst(b.sum_error()).total_cmp(&worst(a.sum_error())));
        ", worst first by |1 - sum|"
    } else if code == codes::MORE_THAN_4_INFLUENCES.id {
        let dropped = |f: &Finding| f.vertex.as_ref().and_then(|v| v.dropped_weight);
        found.sort_by(|a, b| worst(dropped(b)).total_cmp(&worst(dropped(a))));
        ", worst first by dropped weight"
    } else {
        ""
    };
    let _ = writeln!(out, "\n{code} ({severity}): {total}{order}");
    if is_vertex {
        let _ = writeln!(
            out,
            "  {:<9} {:>7}  {:<24} {:<40} {:>11} {:>3} {:>9}  {:<28} world error",
            "mesh/prim", "vertex", "joints", "weights", "sum", "n", "threshold", "rule",
        );
    }
    for f in found.iter().take(max) {
        match &f.vertex {
            Some(v) => {
                let joints = format!("{:?}", v.joints);
                let weights = format!("{:?}", v.weights);
                let place = format!("{}/{}", f.mesh.unwrap_or(0), f.primitive.unwrap_or(0));
                let world = v.world_error.map(|e| format!("{e:.4}")).unwrap_or_else(|| "-".to_string());
                let _ = writeln!(
                    out,
                    "  {place:<9} {:>7}  {joints:<24} {weights:<40} {:>11} {:>3} {:>9.1e}  {:<28} {world}",
                    v.vertex,
                    v.sum,
                    v.n,
                    v.threshold,
                    rule(f)
                );
            }
            None => {
                let _ = writeln!(out, "  {}  {}", f.pointer, f.message);
            }
        }
    }
    if total > max {
        let _ = writeln!(out, "  ... and {} more", total - max);
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

/// The rule that fired, in a few words.
fn rule(f: &Finding) -> String {
    let Some(v) = &f.vertex else {
        return String::new();
    };
    let set = v.set.unwrap_or(0);
    let c = v.component.unwrap_or(0);
    match f.code {
        "ACCESSOR_WEIGHTS_NON_NORMALIZED" => {
            format!("|1-sum| {:.2e} > {:.1e}", (1.0 - v.sum).abs(), v.threshold)
        }
        "ACCESSOR_JOINTS_INDEX_OOB" => format!("JOINTS_{set}[{c}] out of range"),
        "ACCESSOR_JOINTS_INDEX_DUPLICATE" => format!("JOINTS_{set}[{c}] repeated"),
        "ACCESSOR_WEIGHTS_NEGATIVE" => format!("WEIGHTS_{set}[{c}] < 0"),
        "ACCESSOR_JOINTS_USED_ZERO_WEIGHT" => format!("JOINTS_{set}[{c}] != 0, weight 0"),
        "ACCESSOR_INVALID_FLOAT" => format!("WEIGHTS_{set}[{c}] not finite"),
        "RIG_MORE_THAN_4_INFLUENCES" => {
            format!("n > 4, drops {}", v.dropped_weight.unwrap_or(0.0))
        }
        _ => String::new(),
    }
}
