//! The skin-weights panel: the mesh's problem vertices (a list, worst first, with a cursor
//! while the panel has focus), the selected bone's influence (count, min/mean/max,
//! histogram), and the selected vertex in plain words: each rule it breaks with what that
//! does to it, its joints and weights, and the sum skinning blends beside the validator's.
//! The vertex part is `VertexView`, which `y` copies as text.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, cols, count, fit, panel, wrap};
use crate::rig::Severity;
use crate::tui::action::Focus;
use crate::tui::app::App;
use crate::tui::problems::ProblemVertex;
use crate::tui::rules::short_label;
use crate::tui::vertex_view::{Tone, VertexView};
use crate::tui::weights::HISTOGRAM_BINS;

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// The marks of problem vertices, here and in the viewport (shapes differ, so they read
/// without colour).
pub const ERROR_MARK: char = '●';
pub const WARNING_MARK: char = '▲';

pub fn mark_of(s: Severity) -> char {
    if s == Severity::Error { ERROR_MARK } else { WARNING_MARK }
}

/// Returns the largest useful scroll of what is below the problem list (None: not focused,
/// nothing scrolls).
pub fn draw(frame: &mut Frame, app: &App, theme: &Theme, area: Rect) -> Option<u16> {
    let focused = app.panels.focus == Focus::Weights;
    let title = format!(" Skin weights [{}] ", app.view.engine.label());
    let mut block = panel(title, focused, theme);
    let inner_h = area.height.saturating_sub(2) as usize;
    let inner_w = area.width.saturating_sub(2) as usize;
    let mut lines = Vec::new();
    let mut measured = None;
    // While walking the problem list the selected vertex matters most: the list gets the
    // rows its words leave (3 to 6 of them), and the bone's statistics come last.
    if focused {
        let mut about = Vec::new();
        vertex(app, theme, inner_w, &mut about);
        // A short panel (the narrow layout's) keeps one row, so the vertex shows too.
        let least = if inner_h >= 16 { 3 } else { 1 };
        let rows = inner_h.saturating_sub(about.len() + 3).clamp(least, 6);
        problems(app, theme, focused, rows, inner_w, &mut lines);
        bone(app, theme, inner_w, &mut about);
        // The list stays; what is below it scrolls ({ and }) when it is too long, and the
        // bottom border says how much more there is.
        let visible = inner_h.saturating_sub(lines.len());
        let max = about.len().saturating_sub(visible);
        measured = Some(u16::try_from(max).unwrap_or(u16::MAX));
        let scroll = usize::from(app.panels.weights_scroll).min(max);
        if max > 0 {
            let hint = match (scroll, max - scroll) {
                (0, b) => format!(" }}: {b} more ↓ "),
                (a, 0) => format!(" {{: {a} more ↑ "),
                (a, b) => format!(" {{ ↑{a}  }} ↓{b} "),
            };
            block = block.title_bottom(Line::styled(hint, theme.key));
        }
        lines.extend(about.into_iter().skip(scroll));
    } else {
        problems(app, theme, focused, inner_h, inner_w, &mut lines);
        bone(app, theme, inner_w, &mut lines);
        vertex(app, theme, inner_w, &mut lines);
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
    measured
}

/// Counts by code, or (focused) the problem vertices around the cursor, `rows` of them.
fn problems<'a>(
    app: &App,
    theme: &Theme,
    focused: bool,
    rows: usize,
    width: usize,
    lines: &mut Vec<Line<'a>>,
) {
    let d = &app.session.diag;
    if d.findings.is_empty() {
        lines.push(Line::styled("no weight or skin problems", theme.ok));
        return;
    }
    let style = if d.error_count() > 0 { theme.error } else { theme.warning };
    let (e, w, i) = (d.error_count(), d.warning_count(), d.info_count());
    use crate::rig::Severity;
    let counts =
        format!("{}, {}, {}", Severity::Error.count(e), Severity::Warning.count(w), Severity::Info.count(i));
    lines.extend(wrap(&counts, width, 0).into_iter().map(|l| Line::styled(l, style)));
    let list = &app.session.vertex_problems;
    if focused && !list.is_empty() {
        // The list's key, where there is room for it.
        let keyed = rows > 1;
        lines.extend(keyed.then(|| {
            Line::styled(
                fit(
                    &format!(
                        "{} worst first ({ERROR_MARK} error {WARNING_MARK} warning)",
                        count(list.len(), "vertex", "vertices")
                    ),
                    width,
                ),
                theme.dim,
            )
        }));
        let room = rows.max(1);
        let start = app.selection.problem.saturating_sub(room - 1);
        let shown: Vec<(usize, &ProblemVertex)> = list.iter().enumerate().skip(start).take(room).collect();
        let rows: Vec<Row> = shown.iter().map(|(_, p)| row_parts(app, p)).collect();
        for ((i, p), text) in shown.iter().zip(problem_rows(&rows, width)) {
            let marker = if *i == app.selection.problem { "▸" } else { " " };
            let s =
                if *i == app.selection.problem { theme.selected } else { severity_style(p.severity, theme) };
            lines.push(Line::styled(format!("{marker}{} {text}", mark_of(p.severity)), s));
        }
        lines.push(Line::styled(
            fit(&format!("  {}/{}  Up/Down or e/E: walk them", app.selection.problem + 1, list.len()), width),
            theme.dim,
        ));
    } else {
        // The counts right-aligned in one column; a code too long for the panel wraps
        // after an underscore (never cut).
        let nw = d.counts.iter().take(4).map(|(_, n)| n.to_string().len()).max().unwrap_or(1);
        for (code, n) in d.counts.iter().take(4) {
            let sev = d.findings.iter().find(|f| f.code == *code).map_or(Severity::Info, |f| f.severity);
            let pad = 2 + nw + 1;
            let body = wrap(code, width, pad);
            for (k, l) in body.into_iter().enumerate() {
                let text = if k == 0 { format!("  {n:>nw$} {}", &l[pad..]) } else { l };
                lines.push(Line::styled(text, severity_style(sev, theme)));
            }
        }
        if d.counts.len() > 4 {
            lines.push(Line::styled(
                fit(&format!("  and {} more codes", d.counts.len() - 4), width),
                theme.dim,
            ));
        }
        if !list.is_empty() {
            let hint = format!(
                "  e walks the {} worst first (Shift-Tab here for the list)",
                count(list.len(), "problem vertex", "problem vertices")
            );
            lines.extend(wrap(&hint, width, 2).into_iter().map(|l| Line::styled(l, theme.dim)));
        }
    }
}

/// A problem row's parts: what is wrong (the worst rule's short label, "+1" per other
/// rule) and where (mesh name, primitive, vertex).
fn row_parts(app: &App, p: &ProblemVertex) -> Row {
    let findings: Vec<&crate::diagnose::Finding> =
        p.findings.iter().map(|&i| &app.session.diag.findings[i]).collect();
    let mut codes: Vec<&str> = findings.iter().map(|f| f.code).collect();
    codes.dedup();
    let label = findings.first().map_or_else(String::new, |f| short_label(f));
    let label = if codes.len() > 1 { format!("{label} +{}", codes.len() - 1) } else { label };
    let mesh = app
        .session
        .rig
        .meshes
        .get(p.mesh)
        .and_then(|m| m.name.clone())
        .unwrap_or_else(|| format!("mesh {}", p.mesh));
    Row { label, mesh, primitive: p.primitive, vertex: p.vertex }
}

struct Row {
    label: String,
    mesh: String,
    primitive: usize,
    vertex: usize,
}

/// Problem rows in `width` columns after a marker and a mark: the labels padded to one
/// column, then where. The primitive and vertex are never cut: a long mesh name is cut
/// with "…" (down to 6 columns), then left out ("prim 0 v5", then "p0 v5"), and only then
/// is a label cut.
fn problem_rows(rows: &[Row], width: usize) -> Vec<String> {
    const NAME_MIN: usize = 6;
    let width = width.saturating_sub(3);
    let label_w = rows.iter().map(|r| cols(&r.label)).max().unwrap_or(0);
    let widest = |f: &dyn Fn(&Row) -> String| rows.iter().map(|r| cols(&f(r))).max().unwrap_or(0);
    let long = |r: &Row| format!("prim {} v{}", r.primitive, r.vertex);
    let short = |r: &Row| format!("p{} v{}", r.primitive, r.vertex);
    let name_w = rows.iter().map(|r| cols(&r.mesh)).max().unwrap_or(0);
    let name_room = width.saturating_sub(label_w + 2 + widest(&long) + 1).min(name_w);
    let place = |r: &Row| -> String {
        if name_room >= name_w.min(NAME_MIN) {
            format!("{} {}", fit(&r.mesh, name_room), long(r))
        } else if label_w + 2 + widest(&long) <= width {
            long(r)
        } else {
            short(r)
        }
    };
    let place_w = widest(&place);
    let label_room = label_w.min(width.saturating_sub(place_w + 1));
    rows.iter()
        .map(|r| {
            let label = fit(&r.label, label_room);
            let pad = " ".repeat(label_room.saturating_sub(cols(&label)));
            let gap = if label_room < label_w { " " } else { "  " };
            format!("{label}{pad}{gap}{}", place(r))
        })
        .collect()
}

fn severity_style(s: Severity, theme: &Theme) -> Style {
    match s {
        Severity::Error => theme.error,
        Severity::Warning => theme.warning,
        Severity::Info => theme.dim,
    }
}

fn tone_style(t: Tone, theme: &Theme) -> Style {
    match t {
        Tone::Plain => Style::new(),
        Tone::Dim => theme.dim,
        Tone::Ok => theme.ok,
        Tone::Error => theme.error,
        Tone::Warning => theme.warning,
    }
}

fn bone<'a>(app: &App, theme: &Theme, width: usize, lines: &mut Vec<Line<'a>>) {
    let w = &app.selection.weights;
    match app.selected() {
        Some(node) if app.selected_joint().is_some() => {
            let tail = format!(": {}", count(w.vertices.len(), "vertex", "vertices"));
            let name = fit(&app.session.rig.node_label(node), width.saturating_sub(cols(&tail)).max(4));
            lines.push(Line::from(vec![Span::styled(name, theme.title), Span::raw(tail)]));
            if !w.vertices.is_empty() {
                let v = |x: f32| super::num(x, 3, app.panels.full_precision);
                lines.push(Line::raw(format!("  min {} mean {} max {}", v(w.min), v(w.mean), v(w.max))));
                lines.push(Line::from(vec![
                    Span::styled("  0 ", theme.dim),
                    Span::raw(histogram(&w.histogram)),
                    Span::styled(" 1", theme.dim),
                ]));
            }
        }
        Some(_) if app.selection.skin.is_none() => {
            lines.push(Line::styled("no skin in this file", theme.dim))
        }
        Some(_) => lines.push(Line::styled("not a joint of this skin", theme.dim)),
        None => lines.push(Line::styled("(no bone selected)", theme.dim)),
    }
}

/// The selected vertex (`VertexView`), wrapped to the panel: nothing is cut but the
/// joint names beside their weights.
fn vertex<'a>(app: &App, theme: &Theme, width: usize, lines: &mut Vec<Line<'a>>) {
    let Some(view) = VertexView::of_selected(app, app.panels.full_precision) else { return };
    let put = |lines: &mut Vec<Line<'a>>, text: &str, indent: usize, style: Style| {
        lines.extend(wrap(text, width, indent).into_iter().map(|l| Line::styled(l, style)));
    };
    put(lines, &view.heading, 0, theme.label);
    put(lines, &view.verdict.0, 2, tone_style(view.verdict.1, theme));
    for r in &view.rules {
        put(lines, &format!("{}: {}", r.severity.name(), r.code), 2, severity_style(r.severity, theme));
        for s in &r.sentences {
            put(lines, s, 4, Style::new());
        }
    }
    // Where engines draw it comes before the slots: it answers "what will I see".
    for (k, e) in view.engines.iter().enumerate() {
        put(lines, e, if k == 0 { 2 } else { 4 }, if k == 0 { theme.dim } else { Style::new() });
    }
    put(lines, &view.weights_title, 2, theme.dim);
    let rows: Vec<(String, String, bool)> =
        view.influences.iter().map(|i| (i.name.clone(), i.weight.clone(), !i.skipped)).collect();
    lines.extend(influence_lines(&rows, width, theme));
    put(lines, &view.drawn_sum.0, 2, tone_style(view.drawn_sum.1, theme));
    if let Some(s) = &view.validator_sum {
        put(lines, s, 2, theme.dim);
    }
}

/// One line per influence, the weights in one column: names padded to the longest shown,
/// and cut with "…" when the panel is too narrow for them beside the weights.
fn influence_lines<'a>(rows: &[(String, String, bool)], width: usize, theme: &Theme) -> Vec<Line<'a>> {
    const SKIPPED: &str = " left out";
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
    use super::{Row, influence_lines, problem_rows};
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
        assert_eq!(text(&rows, 44), ["  j2  1.2500000", "  j3 -0.2500000", "  j4        NaN left out"]);
    }

    #[test]
    fn problem_rows_keep_primitive_and_vertex_whole() {
        let row = |label: &str, mesh: &str, primitive, vertex| Row {
            label: label.into(),
            mesh: mesh.into(),
            primitive,
            vertex,
        };
        let rows = [
            row("all weights 0", "strips", 0, 7),
            row("sums to 1.004", "strips", 1, 5),
            row("negative weight +1", "a_long_mesh_name", 0, 15),
        ];
        // 44 columns: 41 after the marker and mark; labels padded to 18, 2 spaces, 11 for
        // "prim 0 v15" and its space: 10 left for the names.
        assert_eq!(
            problem_rows(&rows, 44),
            [
                "all weights 0       strips prim 0 v7",
                "sums to 1.004       strips prim 1 v5",
                "negative weight +1  a_long_me… prim 0 v15",
            ]
        );
        // 36: 33 left, 2 for names: they go (18 + 2 + 10 = 30).
        assert_eq!(problem_rows(&rows, 36)[1], "sums to 1.004       prim 1 v5");
        // 24: 21 left; "p0 v15" (6) and a space leave 14 for the labels.
        assert_eq!(
            problem_rows(&rows, 24),
            ["all weights 0  p0 v7", "sums to 1.004  p1 v5", "negative weig… p0 v15"]
        );
    }
}
