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
        bone(app, theme, inner_w, &mut lines);
    } else {
        bone(app, theme, inner_w, &mut lines);
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
        let shown: Vec<(usize, &Finding)> = app
            .vertex_problems
            .iter()
            .enumerate()
            .skip(start)
            .take(room)
            .map(|(i, &fi)| (i, &d.findings[fi]))
            .collect();
        let rows: Vec<(&str, String, String)> = shown
            .iter()
            .map(|(_, f)| {
                let (vertex, sum) = f.vertex.as_ref().map_or_else(Default::default, |v| {
                    (format!(" v{}", v.vertex), format!(" sum {:.4}", v.sum))
                });
                (f.code, vertex, sum)
            })
            .collect();
        for ((i, f), text) in shown.iter().zip(problem_rows(&rows, width)) {
            let marker = if *i == app.problem { "▸ " } else { "  " };
            let s = if *i == app.problem { theme.selected } else { severity_style(f.severity, theme) };
            lines.push(Line::styled(format!("{marker}{text}"), s));
        }
        lines.push(Line::styled(
            fit(
                &format!("  {}/{}  Enter: select that vertex", app.problem + 1, app.vertex_problems.len()),
                width,
            ),
            theme.dim,
        ));
    } else {
        // The counts right-aligned in one column, so every code starts (and is cut) at
        // the same place.
        let nw = d.counts.iter().take(4).map(|(_, n)| n.to_string().len()).max().unwrap_or(1);
        for (code, n) in d.counts.iter().take(4) {
            let sev = d.findings.iter().find(|f| f.code == *code).map_or(Severity::Info, |f| f.severity);
            lines.push(Line::styled(fit(&format!("  {n:>nw$} {code}"), width), severity_style(sev, theme)));
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

/// Problem rows ("ACCESSOR_JOINTS_IN… v15 sum 0.5000") in `width` columns after a
/// two-column marker, cut evenly: every code gets the same room (cut with "…" where
/// longer), so the vertex and sum columns line up; when that room would be too small to
/// tell codes apart, the sums go whole from every row, never a clipped number.
fn problem_rows(rows: &[(&str, String, String)], width: usize) -> Vec<String> {
    // Shorter than this a code no longer says which rule it is.
    const CODE_MIN: usize = 12;
    let width = width.saturating_sub(2);
    let code_w = rows.iter().map(|r| cols(r.0)).max().unwrap_or(0);
    for with_sum in [true, false] {
        let tail =
            |r: &(&str, String, String)| if with_sum { format!("{}{}", r.1, r.2) } else { r.1.clone() };
        let tail_w = rows.iter().map(|r| cols(&tail(r))).max().unwrap_or(0);
        let room = width.saturating_sub(tail_w).min(code_w);
        if room >= code_w.min(CODE_MIN) {
            return rows
                .iter()
                .map(|r| {
                    let code = fit(r.0, room);
                    let pad = " ".repeat(room.saturating_sub(cols(&code)));
                    format!("{code}{pad}{}", tail(r))
                })
                .collect();
        }
    }
    rows.iter().map(|r| fit(&format!("{}{}", r.0, r.1), width)).collect()
}

fn severity_style(s: Severity, theme: &Theme) -> ratatui::style::Style {
    match s {
        Severity::Error => theme.error,
        Severity::Warning => theme.warning,
        Severity::Info => theme.dim,
    }
}

fn bone<'a>(app: &App, theme: &Theme, width: usize, lines: &mut Vec<Line<'a>>) {
    let w = &app.weights;
    match app.selected() {
        Some(node) if app.selected_joint().is_some() => {
            let tail = format!(": {}", count(w.vertices.len(), "vertex", "vertices"));
            let name = fit(&app.rig.node_label(node), width.saturating_sub(cols(&tail)).max(4));
            lines.push(Line::from(vec![Span::styled(name, theme.title), Span::raw(tail)]));
            if !w.vertices.is_empty() {
                let v = |x: f32| super::num(x, 3, app.full_precision);
                lines.push(Line::raw(format!("  min {} mean {} max {}", v(w.min), v(w.mean), v(w.max))));
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
    // With a preview on, the weights listed are those drawn, not those stored.
    let drawn = app
        .preview_rig
        .as_ref()
        .and_then(|r| r.meshes.get(dp.mesh))
        .and_then(|m| m.primitives.get(dp.primitive));
    let findings: Vec<&Finding> = app
        .vertex_problems
        .iter()
        .map(|&i| &app.diag.findings[i])
        .filter(|f| f.mesh == Some(dp.mesh) && f.primitive == Some(dp.primitive))
        .filter(|f| f.vertex.as_ref().is_some_and(|x| x.vertex == v.vertex))
        .collect();
    // The verdict in words first, where the panel cannot cut it off, on the weights the file
    // stores (what the validator reads); with a preview on, the listed weights are not
    // those, so it says which it means.
    let (pass, fail) =
        if drawn.is_some() { ("stored weights pass", "stored weights FAIL") } else { ("passes", "FAILS") };
    let verdict = if findings.is_empty() {
        Line::styled(fit(&format!("  {pass} the validator's rules"), width), theme.ok)
    } else {
        let mut codes: Vec<&str> = findings.iter().map(|f| f.code).collect();
        codes.dedup();
        // The codes when they fit; else how many, as the problem list names them.
        let named = format!("  {fail} validation: {}", codes.join(", "));
        let counted = format!("  {fail} validation: {}", count(codes.len(), "rule", "rules"));
        Line::styled(fit(if cols(&named) <= width { &named } else { &counted }, width), theme.error)
    };
    lines.push(verdict);
    let prim = drawn.unwrap_or(prim);
    if drawn.is_some() {
        lines.push(Line::styled(
            fit(&format!("  weights as drawn: {}", app.preview.label()), width),
            theme.dim,
        ));
    }
    let full = app.full_precision;
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
        rows.push((name, if full { format!("{wt:?}") } else { format!("{wt:.7}") }, skinned));
    }
    lines.extend(influence_lines(&rows, width, theme));
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    let ok = n > 0 && f64::from((sum - 1.0).abs()) <= 2e-7 * n as f64;
    lines.push(Line::from(vec![
        Span::raw(format!(
            "  skinned sum {} n={n} ",
            if full { format!("{sum:?}") } else { format!("{sum:.8}") }
        )),
        if !ok {
            Span::styled(format!("off {:.1e}", (sum - 1.0).abs()), theme.error)
        } else if errors > 0 && drawn.is_none() {
            // The sum is fine but the weights are not: never "ok" beside an error. (With a
            // preview on, the errors are the stored weights', which the verdict names.)
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
    use super::{influence_lines, problem_rows};
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
    fn problem_rows_cut_every_code_to_one_width_then_drop_the_sums() {
        let rows = [
            ("ACCESSOR_JOINTS_INDEX_DUPLICATE", " v15".to_string(), " sum 0.5000".to_string()),
            ("ACCESSOR_WEIGHTS_NON_NORMALIZED", " v3".to_string(), " sum 1.2500".to_string()),
            ("RIG_SHORT", " v120".to_string(), " sum 0.9000".to_string()),
        ];
        let rows_at = |w| problem_rows(&rows, w);
        // 2 (marker) + 31 (longest code) + 16 (longest tail) = 49 columns: nothing cut,
        // short codes padded.
        assert_eq!(
            rows_at(49),
            [
                "ACCESSOR_JOINTS_INDEX_DUPLICATE v15 sum 0.5000",
                "ACCESSOR_WEIGHTS_NON_NORMALIZED v3 sum 1.2500",
                "RIG_SHORT                       v120 sum 0.9000",
            ]
        );
        // 44 columns: 42 after the marker, the longest tail (" v120 sum 0.9000") 16, so
        // every code gets 26 columns: 25 characters and "…".
        assert_eq!(
            rows_at(44),
            [
                "ACCESSOR_JOINTS_INDEX_DUP… v15 sum 0.5000",
                "ACCESSOR_WEIGHTS_NON_NORM… v3 sum 1.2500",
                "RIG_SHORT                  v120 sum 0.9000",
            ]
        );
        // 29: 27 - 16 leaves 11 (< 12) beside the sums, so the sums go from every row
        // and the codes get 27 - 5 = 22.
        assert_eq!(
            rows_at(29),
            ["ACCESSOR_JOINTS_INDEX… v15", "ACCESSOR_WEIGHTS_NON_… v3", "RIG_SHORT              v120"]
        );
    }
}
