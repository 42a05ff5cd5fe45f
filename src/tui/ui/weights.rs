//! The skin-weights panel: the mesh's weight problems (a list with a cursor while the panel
//! has focus; Enter jumps to the vertex), the selected bone's influence (count,
//! min/mean/max, histogram), and the selected vertex's joints and weights with the sum that
//! skinning uses and, for a vertex with problems, the validator's sum the list shows.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, cols, count, fit, panel};
use crate::diagnose::Finding;
use crate::rig::Severity;
use crate::tui::action::Focus;
use crate::tui::app::App;
use crate::tui::weights::HISTOGRAM_BINS;

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

pub fn draw(frame: &mut Frame, app: &App, theme: &Theme, area: Rect) {
    let focused = app.focus == Focus::Weights;
    let title = format!(" Skin weights [{}] ", app.preview.label());
    let block = panel(title, focused, theme);
    let inner_h = block.inner(area).height as usize;
    let mut lines: Vec<Line> = Vec::new();
    let inner_w = block.inner(area).width as usize;
    problems(app, theme, focused, inner_h, inner_w, &mut lines);
    // While walking the problem list the selected vertex matters most; otherwise the bone.
    if focused {
        vertex(app, theme, inner_w, &mut lines);
        bone(app, theme, &mut lines);
    } else {
        bone(app, theme, &mut lines);
        vertex(app, theme, inner_w, &mut lines);
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// Counts by code, or (focused) the vertex problems around the cursor.
fn problems<'a>(
    app: &App,
    theme: &Theme,
    focused: bool,
    height: usize,
    width: usize,
    lines: &mut Vec<Line<'a>>,
) {
    let d = &app.diag;
    if d.findings.is_empty() {
        lines.push(Line::styled("no weight or skin problems", theme.ok));
        return;
    }
    let style = if d.error_count() > 0 { theme.error } else { theme.warning };
    lines.push(Line::styled(
        {
            let (e, w, i) = (d.error_count(), d.warning_count(), d.info_count());
            let counts = format!(
                "{}, {}, {}",
                count(e, "error", "errors"),
                count(w, "warning", "warnings"),
                count(i, "info", "infos")
            );
            fit(&counts, width)
        },
        style,
    ));
    if focused && !app.vertex_problems.is_empty() {
        let room = (height / 3).max(1);
        let start = app.problem.saturating_sub(room - 1);
        for (i, &fi) in app.vertex_problems.iter().enumerate().skip(start).take(room) {
            let f = &d.findings[fi];
            let marker = if i == app.problem { "▸ " } else { "  " };
            let s = if i == app.problem { theme.selected } else { severity_style(f.severity, theme) };
            let (vertex, sum) = f
                .vertex
                .as_ref()
                .map_or_else(Default::default, |v| (format!(" v{}", v.vertex), format!(" sum {:.4}", v.sum)));
            lines.push(Line::styled(problem_row(marker, f.code, &vertex, &sum, width), s));
        }
        lines.push(Line::styled(
            fit(
                &format!("  {}/{}  Enter: select that vertex", app.problem + 1, app.vertex_problems.len()),
                width,
            ),
            theme.dim,
        ));
    } else {
        for (code, n) in d.counts.iter().take(4) {
            let sev = d.findings.iter().find(|f| f.code == *code).map_or(Severity::Info, |f| f.severity);
            lines.push(Line::styled(fit(&format!("  {n} {code}"), width), severity_style(sev, theme)));
        }
        if d.counts.len() > 4 {
            lines.push(Line::styled(
                fit(&format!("  and {} more codes", d.counts.len() - 4), width),
                theme.dim,
            ));
        }
        if !app.vertex_problems.is_empty() {
            lines.push(Line::styled(fit("  Shift-Tab here to walk the vertex problems", width), theme.dim));
        }
    }
}

/// "▸ ACCESSOR_JOINTS_IN… v15 sum 0.5000" in `width` columns: the code gives way first (cut
/// with "…"), then the sum goes whole, so a clipped number never reads as another one.
fn problem_row(marker: &str, code: &str, vertex: &str, sum: &str, width: usize) -> String {
    // Shorter than this a code no longer says which rule it is.
    const CODE_MIN: usize = 12;
    for tail in [format!("{vertex}{sum}"), vertex.to_string()] {
        let room = width.saturating_sub(cols(marker) + cols(&tail));
        if cols(code) <= room || room >= CODE_MIN {
            return format!("{marker}{}{tail}", fit(code, room));
        }
    }
    fit(&format!("{marker}{code}{vertex}"), width)
}

fn severity_style(s: Severity, theme: &Theme) -> ratatui::style::Style {
    match s {
        Severity::Error => theme.error,
        Severity::Warning => theme.warning,
        Severity::Info => theme.dim,
    }
}

fn bone<'a>(app: &App, theme: &Theme, lines: &mut Vec<Line<'a>>) {
    let w = &app.weights;
    match app.selected() {
        Some(node) if app.selected_joint().is_some() => {
            lines.push(Line::from(vec![
                Span::styled(app.rig.node_label(node), theme.title),
                Span::raw(format!(": {}", count(w.vertices.len(), "vertex", "vertices"))),
            ]));
            if !w.vertices.is_empty() {
                lines.push(Line::raw(format!("  min {:.3} mean {:.3} max {:.3}", w.min, w.mean, w.max)));
                lines.push(Line::from(vec![
                    Span::styled("  0 ", theme.dim),
                    Span::raw(histogram(&w.histogram)),
                    Span::styled(" 1", theme.dim),
                ]));
            }
        }
        Some(_) if app.skin.is_none() => lines.push(Line::styled("no skin in this file", theme.dim)),
        Some(_) => lines.push(Line::styled("not a joint of this skin", theme.dim)),
        None => lines.push(Line::styled("(no bone selected)", theme.dim)),
    }
}

/// The selected vertex's influences and two sums that answer different questions:
/// - "skinned sum": what the skinning in the viewport blends, every finite non-zero weight
///   on a joint the skin has (negative ones too, a repeated joint twice), in slot order;
/// - "check sum" (only for a vertex with findings): the validator's sum that the problem
///   list and `rigscope check` print, which leaves out negative weights, out-of-range
///   joints and a repeated joint's later slots, and turns NaN with a NaN weight.
fn vertex<'a>(app: &App, theme: &Theme, width: usize, lines: &mut Vec<Line<'a>>) {
    let Some(v) = app.vertex else { return };
    let Some(dp) = app.ws.primitives.get(v.prim) else { return };
    let Some(prim) = app.rig.meshes.get(dp.mesh).and_then(|m| m.primitives.get(dp.primitive)) else { return };
    lines.push(Line::styled(
        format!("vertex {} (mesh {}.{})  v/V x", v.vertex, dp.mesh, dp.primitive),
        theme.label,
    ));
    let skin = dp.skin.and_then(|s| app.rig.skins.get(s));
    let mut sum = 0.0f32;
    let mut n = 0usize;
    // (name, weight, skinned) per influence; the padding slots (joint 0, weight 0) say nothing.
    let mut rows: Vec<(String, String, bool)> = Vec::new();
    for (j, wt) in prim.influences_of(v.vertex) {
        if wt == 0.0 && j == 0 {
            continue;
        }
        let joint = skin.and_then(|s| s.joints.get(j as usize));
        let name = joint.map_or_else(|| format!("joint {j} (out of range)"), |&nd| app.rig.node_label(nd));
        let skinned = joint.is_some() && wt.is_finite();
        if skinned && wt != 0.0 {
            sum += wt;
            n += 1;
        }
        rows.push((name, format!("{wt:.7}"), skinned));
    }
    lines.extend(influence_lines(&rows, width, theme));
    let findings: Vec<&Finding> = app
        .vertex_problems
        .iter()
        .map(|&i| &app.diag.findings[i])
        .filter(|f| f.mesh == Some(dp.mesh) && f.primitive == Some(dp.primitive))
        .filter(|f| f.vertex.as_ref().is_some_and(|x| x.vertex == v.vertex))
        .collect();
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    let ok = n > 0 && f64::from((sum - 1.0).abs()) <= 2e-7 * n as f64;
    lines.push(Line::from(vec![
        Span::raw(format!("  skinned sum {sum:.8} n={n} ")),
        if !ok {
            Span::styled(format!("off {:.1e}", (sum - 1.0).abs()), theme.error)
        } else if errors > 0 {
            // The sum is fine but the weights are not: never "ok" beside an error.
            Span::styled(format!("but {}", count(errors, "error", "errors")), theme.error)
        } else {
            Span::styled("ok", theme.ok)
        },
    ]));
    if let Some(check) = findings.first().and_then(|f| f.vertex.as_ref()) {
        lines.push(Line::from(vec![
            Span::raw(format!("  check sum   {:.8} n={}", check.sum, check.n)),
            Span::styled(" (as listed)", theme.dim),
        ]));
    }
}

/// One line per influence, the weights in one column: names padded to the longest shown,
/// and cut with "…" when the panel is too narrow for them beside the weights.
fn influence_lines<'a>(rows: &[(String, String, bool)], width: usize, theme: &Theme) -> Vec<Line<'a>> {
    const SKIPPED: &str = " skipped";
    let weight_w = rows.iter().map(|r| cols(&r.1)).max().unwrap_or(0);
    let note_w = if rows.iter().any(|r| !r.2) { cols(SKIPPED) } else { 0 };
    let room = width.saturating_sub(2 + 1 + weight_w + note_w).max(4);
    let name_w = rows.iter().map(|r| cols(&r.0)).max().unwrap_or(0).min(room);
    rows.iter()
        .map(|(name, weight, skinned)| {
            // Padded by terminal columns, not chars, so that wide names keep the column.
            let name = fit(name, name_w);
            let pad = " ".repeat(name_w.saturating_sub(cols(&name)));
            let mut spans = vec![Span::raw(format!("  {name}{pad} {weight:>weight_w$}"))];
            if !skinned {
                spans.push(Span::styled(SKIPPED, theme.dim));
            }
            Line::from(spans)
        })
        .collect()
}

fn histogram(bins: &[usize; HISTOGRAM_BINS]) -> String {
    let max = bins.iter().copied().max().unwrap_or(0).max(1);
    bins.iter().map(|&c| if c == 0 { ' ' } else { BARS[(c * (BARS.len() - 1)).div_ceil(max)] }).collect()
}

#[cfg(test)]
mod tests {
    use super::{influence_lines, problem_row};
    use crate::tui::ui::Theme;

    fn text(rows: &[(&str, &str, bool)], width: usize) -> Vec<String> {
        let rows: Vec<(String, String, bool)> =
            rows.iter().map(|&(n, w, s)| (n.to_string(), w.to_string(), s)).collect();
        influence_lines(&rows, width, &Theme::new(false)).iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn influence_weights_line_up_in_one_column() {
        // CesiumMan's vertex 0 names (22 and 13 columns).
        let rows = [("Skeleton_torso_joint_1", "0.1716089", true), ("torso_joint_3", "0.1322510", true)];
        assert_eq!(
            text(&rows, 44),
            ["  Skeleton_torso_joint_1 0.1716089", "  torso_joint_3          0.1322510"]
        );
        // 30 columns: 2 + 1 + 9 leave 18 for the names.
        assert_eq!(text(&rows, 30), ["  Skeleton_torso_jo… 0.1716089", "  torso_joint_3      0.1322510"]);
        // Signs and NaN right-aligned; the note after the weight column.
        let rows = [("j2", "1.2500000", true), ("j3", "-0.2500000", true), ("j4", "NaN", false)];
        assert_eq!(text(&rows, 44), ["  j2  1.2500000", "  j3 -0.2500000", "  j4        NaN skipped"]);
    }

    #[test]
    fn problem_rows_cut_the_code_then_drop_the_sum_never_a_number() {
        let row = |w| problem_row("▸ ", "ACCESSOR_JOINTS_INDEX_DUPLICATE", " v15", " sum 0.5000", w);
        // 2 + 31 + 4 + 11 = 48 columns in full.
        assert_eq!(row(48), "▸ ACCESSOR_JOINTS_INDEX_DUPLICATE v15 sum 0.5000");
        // 44 (the panel at 160 columns): the code keeps 44 - 2 - 15 = 27 columns, 26 + "…".
        assert_eq!(row(44), "▸ ACCESSOR_JOINTS_INDEX_DUPL… v15 sum 0.5000");
        // 28: the code would keep 11 columns beside the sum; without it, 22.
        assert_eq!(row(28), "▸ ACCESSOR_JOINTS_INDEX… v15");
        // 29: 12 columns beside the sum are still enough.
        assert_eq!(row(29), "▸ ACCESSOR_JO… v15 sum 0.5000");
        assert_eq!(row(10), "▸ ACCESSO…");
    }
}
