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
    engines(report, &mut out);
    for &code in report.counts.keys() {
        code_section(report, code, max_per_code, &mut out);
    }
    out
}

/// One line per engine profile: how many problem vertices it draws elsewhere than the stored
/// weights do, and the worst of them.
fn engines(report: &Report, out: &mut String) {
    let c = &report.consequences;
    if c.vertices.is_empty() {
        return;
    }
    let samples = match c.sample_stride {
        1 => "its keys and midpoints".to_string(),
        n => format!("every {n}th of its keys and midpoints (so many vertices are flagged)"),
    };
    let _ = writeln!(
        out,
        "\nWhat engines draw: {} problem vertices against their stored-weights place, worst over the rest pose and every clip at {samples} (the model is {} units across)",
        c.vertices.len(),
        short(c.diagonal)
    );
    for s in &c.engines {
        let vanish = match s.vanished {
            0 => String::new(),
            1 => "; 1 vertex vanishes (its weights become NaN)".to_string(),
            n => format!("; {n} vertices vanish (their weights become NaN)"),
        };
        let Some(w) = s.worst else {
            let _ = writeln!(out, "  {}: no vertex moves{vanish}", s.label);
            continue;
        };
        let moves =
            if s.moved == 1 { "1 vertex moves".to_string() } else { format!("{} vertices move", s.moved) };
        let mesh = report
            .primitives
            .iter()
            .find(|p| (p.mesh, p.primitive) == (w.mesh, w.primitive))
            .and_then(|p| p.mesh_name.clone())
            .unwrap_or_else(|| w.mesh.to_string());
        let when = match w.at.clip {
            Some(clip) => format!("clip {clip} at {:.2} s", w.at.time),
            None => "in the rest pose".to_string(),
        };
        let _ = writeln!(
            out,
            "  {}: {moves}; worst {} of the model ({} units), vertex {} of mesh {mesh} primitive {}, {when}{vanish}",
            s.label,
            short(w.at.fraction),
            short(w.at.distance),
            w.vertex,
            w.primitive,
        );
    }
}

/// Two significant figures, the way a person says a size: 0.46, 1.3, 12, 1.1e-2.
fn short(x: f32) -> String {
    let a = x.abs();
    if a == 0.0 || !a.is_finite() {
        format!("{x}")
    } else if a >= 10.0 {
        format!("{x:.0}")
    } else if a >= 1.0 {
        format!("{x:.1}")
    } else if a >= 0.1 {
        format!("{x:.2}")
    } else {
        format!("{x:.1e}")
    }
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
    let shown = &found[..found.len().min(max)];
    if is_vertex {
        vertex_table(report, shown, out);
    } else {
        for f in shown {
            let _ = writeln!(out, "  {}  {}", f.pointer, f.message);
        }
    }
    if total > max {
        let _ = writeln!(out, "  ... and {} more", total - max);
    }
}

/// The vertex findings as a table whose columns are as wide as their widest cell, so that
/// no index, joint list or weight list pushes the later columns out of line.
fn vertex_table(report: &Report, found: &[&Finding], out: &mut String) {
    const HEADER: [&str; 9] =
        ["mesh/prim", "vertex", "joints", "weights", "sum", "n", "threshold", "rule", "moves most in"];
    // Numbers align right, lists and words left.
    const RIGHT: [bool; 9] = [false, true, false, false, true, true, true, false, false];
    let rows: Vec<[String; 9]> = (found.iter())
        .filter_map(|f| {
            let v = f.vertex.as_ref()?;
            Some([
                format!("{}/{}", f.mesh.unwrap_or(0), f.primitive.unwrap_or(0)),
                v.vertex.to_string(),
                format!("{:?}", v.joints),
                format!("{:?}", v.weights),
                v.sum.to_string(),
                v.n.to_string(),
                format!("{:.1e}", v.threshold),
                rule(f),
                most_moved(report, f, v.vertex),
            ])
        })
        .collect();
    // The widths most findings need, so that tables of different codes look alike.
    let mut widths = [9, 7, 24, 40, 11, 3, 9, 28, 0];
    for (w, h) in widths.iter_mut().zip(HEADER) {
        *w = (*w).max(h.chars().count());
    }
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let header = HEADER.map(String::from);
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::from(" ");
        for (i, cell) in row.iter().enumerate() {
            let w = widths[i];
            // The last column is not padded, so lines end without trailing blanks.
            let _ = match (RIGHT[i], i + 1 == row.len()) {
                (_, true) => write!(line, " {cell}"),
                (true, false) => write!(line, " {cell:>w$}"),
                (false, false) => write!(line, " {cell:<w$}"),
            };
        }
        let _ = writeln!(out, "{line}");
    }
}

/// The engine that draws the vertex farthest from its stored-weights place, and how far
/// (scene units), or `-` when none moves it.
fn most_moved(report: &Report, f: &Finding, vertex: usize) -> String {
    let (Some(mesh), Some(primitive)) = (f.mesh, f.primitive) else {
        return "-".to_string();
    };
    let row = report
        .consequences
        .vertices
        .iter()
        .find(|r| (r.mesh, r.primitive, r.vertex) == (mesh, primitive, vertex));
    let worst = row.and_then(|r| {
        r.engines
            .iter()
            .filter(|(_, d)| d.fraction > super::consequence::MOVE_FRACTION)
            .max_by(|a, b| a.1.distance.total_cmp(&b.1.distance))
    });
    match worst {
        Some((engine, d)) => format!("{} {:.4}", engine.name(), d.distance),
        None => match row.and_then(|r| r.engines.iter().find(|(_, d)| d.vanishes)) {
            Some((engine, _)) => format!("{} vanishes", engine.name()),
            None => "-".to_string(),
        },
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
