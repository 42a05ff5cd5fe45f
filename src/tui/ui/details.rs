//! Bone (or, without a skin, node) details: where the selected node sits in the hierarchy, its local transform at rest
//! and now, its world position, and how well its inverse bind matrix matches the bind pose.

use glam::{Mat4, Quat, Vec3};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, cols, count, panel};
use crate::rig::Transform;
use crate::tui::app::App;

/// `shared`: the weights panel takes this place when it has focus (narrow screens).
pub fn draw(frame: &mut Frame, app: &App, theme: &Theme, area: Rect, shared: bool) {
    // On narrow screens this panel shares its place with the weights panel.
    // A file without a skin has nodes but no bones.
    let title = match (shared, app.rig.skins.is_empty()) {
        (true, _) => " Details (⇧Tab: weights) ",
        (false, true) => " Node details ",
        (false, false) => " Bone details ",
    };
    let block = panel(title.into(), false, theme);
    let Some(node) = app.selected() else {
        frame.render_widget(Paragraph::new(Line::styled("(nothing selected)", theme.dim)).block(block), area);
        return;
    };
    let rig = &app.rig;
    let n = &rig.nodes[node];
    let label = |s: &str| Span::styled(format!("{s:<9}"), theme.label);
    // Most telling first: what a short panel cuts is the raw matrix at the end.
    let parent = n.parent.map_or("root".to_string(), |p| format!("parent {} ({p})", rig.node_label(p)));
    let mut lines = vec![
        Line::from(vec![
            Span::styled(rig.node_label(node), theme.title),
            Span::raw(format!("  node {node}")),
        ]),
        Line::raw(family_line(
            &format!("{parent}, {}", count(n.children.len(), "child", "children")),
            n.children.iter().map(|&c| rig.node_label(c)),
            usize::from(area.width.saturating_sub(2)),
        )),
    ];
    let world = app.ws.globals.get(node).map(|m| m.w_axis.truncate()).unwrap_or(Vec3::NAN);
    lines.push(Line::from(vec![label("world"), Span::raw(vec3(world))]));
    if let Some(compare) = &app.compare {
        let delta = crate::tui::compare::detail_line(compare, rig, &app.ws, node);
        lines.push(Line::from(vec![label("vs B"), Span::raw(delta)]));
    }
    let joint_ibm = app.selected_joint().and_then(|j| {
        app.skin.and_then(|s| app.rig.skins.get(s)).and_then(|s| s.inverse_bind.get(j)).map(|m| (j, m))
    });
    if let Some((_, ibm)) = joint_ibm {
        let w = &app.weights;
        lines.push(Line::from(vec![
            label("weights"),
            Span::raw(if w.vertices.is_empty() {
                "no vertex".to_string()
            } else {
                format!(
                    "{}, {:.3}/{:.3}/{:.3}",
                    count(w.vertices.len(), "vertex", "vertices"),
                    w.min,
                    w.mean,
                    w.max
                )
            }),
        ]));
        let bind_world = app.rest_globals.get(node).copied().unwrap_or(Mat4::IDENTITY);
        let err = max_abs_diff(*ibm * bind_world, Mat4::IDENTITY);
        let style = if err > 1e-3 { theme.warning } else { theme.ok };
        lines.push(Line::from(vec![
            label("IBM·rest"),
            Span::styled(format!("max |x - I| {err:.1e}"), style),
            Span::styled(if err > 1e-3 { " rest is not bind" } else { "" }, theme.dim),
        ]));
    } else if app.skin.is_some() {
        lines.push(Line::styled("not a joint of this skin", theme.dim));
    }
    let now = app.ws.pose.locals.get(node).copied().unwrap_or(n.rest);
    let animated = app.animated.get(node).copied().unwrap_or(false);
    let rest_kind = if n.matrix.is_some() { "rest (from matrix)" } else { "rest" };
    lines.push(Line::styled(
        format!("{rest_kind} / now{}", if animated { " (animated)" } else { "" }),
        theme.dim,
    ));
    lines.extend(trs_lines(n.rest, now, &label));
    if let Some((j, ibm)) = joint_ibm {
        lines.push(Line::styled(format!("inverse bind matrix, joint {j} (rows)"), theme.dim));
        for r in 0..4 {
            let row = ibm.row(r);
            lines.push(Line::raw(format!(" {:>9.4} {:>9.4} {:>9.4} {:>9.4}", row.x, row.y, row.z, row.w)));
        }
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// "parent hips (0), 3 children: spine, thigh.L +1 more": as many children's names as fit
/// in `width` columns, whole, then how many were left out.
fn family_line(head: &str, children: impl ExactSizeIterator<Item = String>, width: usize) -> String {
    let total = children.len();
    let mut out = head.to_string();
    for (i, name) in children.enumerate() {
        let sep = if i == 0 { ": " } else { ", " };
        let left = total - i - 1;
        let more = if left > 0 { format!(" +{left} more") } else { String::new() };
        if cols(&out) + cols(sep) + cols(&name) + cols(&more) > width {
            // Not even the first name fits: the count alone says enough.
            if i > 0 {
                out.push_str(&format!(" +{} more", total - i));
            }
            break;
        }
        out.push_str(sep);
        out.push_str(&name);
    }
    out
}

/// Rest and current T, R, S, one property per line when the current value differs, else one.
fn trs_lines<'a>(rest: Transform, now: Transform, label: &dyn Fn(&str) -> Span<'a>) -> Vec<Line<'a>> {
    let q = |r: Quat| format!("{:.3} {:.3} {:.3} {:.3}", r.x, r.y, r.z, r.w);
    let rows = [
        ("  T", vec3(rest.translation), vec3(now.translation)),
        ("  R", q(rest.rotation), q(now.rotation)),
        ("  S", vec3(rest.scale), vec3(now.scale)),
    ];
    let mut lines = Vec::new();
    for (name, r, n) in rows {
        lines.push(Line::from(vec![label(name), Span::raw(r.clone())]));
        if n != r {
            lines.push(Line::from(vec![label("   now"), Span::raw(n)]));
        }
    }
    lines
}

fn vec3(v: Vec3) -> String {
    format!("{:.3} {:.3} {:.3}", v.x, v.y, v.z)
}

fn max_abs_diff(a: Mat4, b: Mat4) -> f32 {
    a.to_cols_array().iter().zip(b.to_cols_array()).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

#[cfg(test)]
mod tests {
    use super::family_line;

    fn line(names: &[&str], width: usize) -> String {
        family_line("root, 3 children", names.iter().map(|s| s.to_string()), width)
    }

    #[test]
    fn children_are_named_while_they_fit_then_counted() {
        let names = ["spine", "thigh.L", "thigh.R"];
        // "root, 3 children" is 16 columns; ": spine, thigh.L, thigh.R" 25 more.
        assert_eq!(line(&names, 41), "root, 3 children: spine, thigh.L, thigh.R");
        // One column short: thigh.R gives way to " +1 more" (": spine, thigh.L +1 more").
        assert_eq!(line(&names, 40), "root, 3 children: spine, thigh.L +1 more");
        assert_eq!(line(&names, 39), "root, 3 children: spine +2 more");
        // ": spine +2 more" needs 15 columns after the 16 of the head.
        assert_eq!(line(&names, 31), "root, 3 children: spine +2 more");
        assert_eq!(line(&names, 30), "root, 3 children");
        assert_eq!(line(&[], 80), "root, 3 children");
    }
}
