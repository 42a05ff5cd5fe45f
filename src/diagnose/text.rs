//! Plain-text rendering of a `Report`: totals, one block per skinned primitive, then the
//! findings of each code (the worst first where "worst" has a meaning).

use super::finding::Finding;
use super::report::{Report, display_order, order_words};
use crate::report::count;
use crate::rig::Severity;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Renders the report; each code lists at most `max_per_code` findings.
pub fn render_text(report: &Report, max_per_code: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}, {}, {}",
        Severity::Error.count(report.error_count()),
        Severity::Warning.count(report.warning_count()),
        Severity::Info.count(report.info_count())
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
    let measured = c.vertices.len() + c.vertices_omitted;
    if measured == 0 {
        return;
    }
    let samples = match c.sample_stride {
        1 => "its keys and midpoints".to_string(),
        n => format!("every {n}th of its keys and midpoints (so many vertices are flagged)"),
    };
    let _ = writeln!(
        out,
        "\nWhat engines draw: {} against their stored-weights place, worst over the rest pose and every clip at {samples} (the model is {} units across)",
        count(measured, "problem vertex", "problem vertices"),
        short(c.diagonal)
    );
    for s in &c.engines {
        if let Some(why) = &s.refuses {
            let _ =
                writeln!(out, "  {}: will not import this file ({why}), so it draws nothing of it", s.label);
            continue;
        }
        let vanish = match s.vanished {
            0 => String::new(),
            1 => "; 1 vertex vanishes (the engine gives it no position)".to_string(),
            n => format!("; {n} vertices vanish (the engine gives them no position)"),
        };
        let Some(w) = s.worst else {
            let _ = writeln!(out, "  {}: no vertex moves{vanish}", s.label);
            continue;
        };
        let moves = format!(
            "{} {}",
            count(s.moved, "vertex", "vertices"),
            if s.moved == 1 { "moves" } else { "move" }
        );
        let mesh = report
            .primitives
            .iter()
            .find(|p| (p.mesh, p.primitive) == (w.mesh, w.primitive))
            .and_then(|p| p.mesh_name.clone())
            .unwrap_or_else(|| w.mesh.to_string());
        let when = match w.at.clip {
            Some(clip) => format!("clip {} at {:.2} s", c.clip_label(clip), w.at.time),
            None => "in the rest pose".to_string(),
        };
        let worst = match w.at.distance.is_finite() {
            true => format!("worst {} of the model ({} units)", short(w.at.fraction), short(w.at.distance)),
            false => "worst drawn where the stored weights give no position".to_string(),
        };
        let _ = writeln!(
            out,
            "  {}: {moves}; {worst}, vertex {} of mesh {mesh} primitive {}, {when}{vanish}",
            s.label, w.vertex, w.primitive,
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

fn primitives(report: &Report, severities: &BTreeMap<&str, Severity>, out: &mut String) {
    for row in &report.primitives {
        let name = row.mesh_name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
        let _ = writeln!(
            out,
            "\nmesh {}{name} primitive {}: {}, {}",
            row.mesh,
            row.primitive,
            count(row.vertices, "vertex", "vertices"),
            count(row.influence_sets, "influence set", "influence sets")
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
            let severity = severities.get(code).map_or("", |&s| s.name());
            let _ = writeln!(out, "  {count:>8}  {severity:<7}  {code}");
        }
    }
}

fn code_section(report: &Report, code: &str, max: usize, out: &mut String) {
    let mut found: Vec<&Finding> = report.with_code(code).collect();
    let Some(first) = found.first() else {
        return;
    };
    let severity = first.severity.name();
    let is_vertex = first.vertex.is_some();
    let total = report.counts.get(code).copied().unwrap_or(found.len());
    display_order(code, &mut found);
    let _ = writeln!(out, "\n{code} ({severity}): {total}{}", order_words(code));
    let shown = &found[..found.len().min(max)];
    if is_vertex {
        vertex_table(report, shown, out);
    } else {
        for f in shown {
            let _ = writeln!(out, "  {}  {}", f.pointer, f.message);
        }
    }
    if total > shown.len() {
        let _ = writeln!(out, "  ... and {} more", total - shown.len());
    }
}

/// The vertex findings as a table whose columns are as wide as their widest cell, so that
/// no index, joint list or weight list pushes the later columns out of line.
fn vertex_table(report: &Report, found: &[&Finding], out: &mut String) {
    const HEADER: [&str; 8] = [
        "mesh/primitive",
        "vertex",
        "joints (skin joint = node)",
        "weights",
        "sum",
        "weights summed (sum tolerance)",
        "rule",
        "farthest an engine draws it",
    ];
    // Numbers align right, lists and words left.
    const RIGHT: [bool; 8] = [false, true, false, false, true, false, false, false];
    let rows: Vec<[String; 8]> = (found.iter())
        .filter_map(|f| {
            let v = f.vertex.as_ref()?;
            Some([
                format!("{}/{}", f.mesh.unwrap_or(0), f.primitive.unwrap_or(0)),
                v.vertex.to_string(),
                joint_list(&v.joints, &v.joint_nodes),
                format!("{:?}", v.weights),
                v.sum.to_string(),
                format!("{} ({:.1e})", v.n, v.threshold),
                rule(f),
                most_moved(report, f, v.vertex),
            ])
        })
        .collect();
    // The widths most findings need, so that tables of different codes look alike.
    let mut widths = [14, 7, 26, 40, 11, 14, 28, 0];
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

/// `2=#18 3=#19 0=#7 0=#7`: each skin joint index with the node it is (`7=none` past the
/// skin's joints), so a rig without names can be matched with the viewer and `diff`.
fn joint_list(joints: &[u16], nodes: &[Option<usize>]) -> String {
    let cells: Vec<String> = (joints.iter().enumerate())
        .map(|(i, j)| match nodes.get(i).copied().flatten() {
            Some(node) => format!("{j}=#{node}"),
            None => format!("{j}=none"),
        })
        .collect();
    cells.join(" ")
}

/// The engines that draw the vertex farthest from its stored-weights place, and how far
/// (`three.js r187 and 9 others: 34.8 units`), or the ones that give it no position, or `-`.
fn most_moved(report: &Report, f: &Finding, vertex: usize) -> String {
    let (Some(mesh), Some(primitive)) = (f.mesh, f.primitive) else {
        return "-".to_string();
    };
    let Some(row) = (report.consequences.vertices.iter())
        .find(|r| (r.mesh, r.primitive, r.vertex) == (mesh, primitive, vertex))
    else {
        return "-".to_string();
    };
    let moved =
        row.engines.iter().filter(|(_, d)| !d.vanishes && d.fraction > super::consequence::MOVE_FRACTION);
    let far = moved.clone().map(|(_, d)| d.distance).fold(0.0f32, f32::max);
    let farthest: Vec<&str> =
        moved.filter(|(_, d)| short(d.distance) == short(far)).map(|(e, _)| e.label()).collect();
    let vanishing: Vec<&str> =
        row.engines.iter().filter(|(_, d)| d.vanishes).map(|(e, _)| e.label()).collect();
    let mut parts = Vec::new();
    if !farthest.is_empty() && far.is_finite() {
        parts.push(format!("{}: {} units", engine_names(&farthest), short(far)));
    } else if !farthest.is_empty() {
        parts.push(format!("{}: drawn, where the stored weights give no position", engine_names(&farthest)));
    }
    if !vanishing.is_empty() {
        let verb = if vanishing.len() == 1 { "does not draw it" } else { "do not draw it" };
        parts.push(format!("{} {verb}", engine_names(&vanishing)));
    }
    if parts.is_empty() { "-".to_string() } else { parts.join("; ") }
}

/// `three.js r187`, `three.js r187 and Godot 4`, `three.js r187 and 9 others`.
fn engine_names(labels: &[&str]) -> String {
    match labels {
        [] => String::new(),
        [one] => one.to_string(),
        [one, two] => format!("{one} and {two}"),
        [first, rest @ ..] => format!("{first} and {} others", rest.len()),
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
            format!("sum off 1 by {:.2e}, over its tolerance", (1.0 - v.sum).abs())
        }
        "ACCESSOR_JOINTS_INDEX_OOB" => format!("JOINTS_{set}[{c}] out of range"),
        "ACCESSOR_JOINTS_INDEX_DUPLICATE" => format!("JOINTS_{set}[{c}] repeated"),
        "ACCESSOR_WEIGHTS_NEGATIVE" => format!("WEIGHTS_{set}[{c}] < 0"),
        "ACCESSOR_JOINTS_USED_ZERO_WEIGHT" => format!("JOINTS_{set}[{c}] names a joint at weight 0"),
        "ACCESSOR_INVALID_FLOAT" => format!("WEIGHTS_{set}[{c}] not finite"),
        "RIG_MORE_THAN_4_INFLUENCES" => {
            format!("{} weights, 4 kept would drop {}", v.n, v.dropped_weight.unwrap_or(0.0))
        }
        _ => String::new(),
    }
}
