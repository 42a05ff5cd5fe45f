//! Bone details: where the selected node sits in the hierarchy, its local transform at rest
//! and now, its world position, and how well its inverse bind matrix matches the bind pose.

use glam::{Mat4, Quat, Vec3};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, panel};
use crate::tui::app::App;

pub fn draw(frame: &mut Frame, app: &App, theme: &Theme, area: Rect) {
    let block = panel(" Bone details ".into(), false, theme);
    let Some(node) = app.selected() else {
        frame.render_widget(Paragraph::new(Line::styled("(nothing selected)", theme.dim)).block(block), area);
        return;
    };
    let rig = &app.rig;
    let n = &rig.nodes[node];
    let label = |s: &str| Span::styled(format!("{s:<9}"), theme.label);
    let mut lines = vec![
        Line::from(vec![
            Span::styled(rig.node_label(node), theme.title),
            Span::raw(format!("  node {node}")),
        ]),
        Line::from(vec![
            label("parent"),
            Span::raw(n.parent.map_or("(root)".to_string(), |p| format!("{} (node {p})", rig.node_label(p)))),
        ]),
        Line::from(vec![label("children"), Span::raw(n.children.len().to_string())]),
    ];
    let now = app.ws.pose.locals.get(node).copied().unwrap_or(n.rest);
    let rest_kind = if n.matrix.is_some() { "rest (matrix)" } else { "rest" };
    lines.push(Line::styled(rest_kind, theme.dim));
    lines.extend(trs_lines(n.rest.translation, n.rest.rotation, n.rest.scale, &label));
    lines.push(Line::styled(
        if app.animated.get(node).copied().unwrap_or(false) { "now (animated)" } else { "now" },
        theme.dim,
    ));
    lines.extend(trs_lines(now.translation, now.rotation, now.scale, &label));
    let world = app.ws.globals.get(node).map(|m| m.w_axis.truncate()).unwrap_or(Vec3::NAN);
    lines.push(Line::from(vec![label("world"), Span::raw(vec3(world))]));

    if let Some(j) = app.selected_joint()
        && let Some(ibm) = app.skin.and_then(|s| app.rig.skins.get(s)).and_then(|s| s.inverse_bind.get(j))
    {
        lines.push(Line::styled(format!("inverse bind matrix (joint {j}, rows)"), theme.dim));
        for r in 0..4 {
            let row = ibm.row(r);
            lines.push(Line::raw(format!("  {:>9.4} {:>9.4} {:>9.4} {:>9.4}", row.x, row.y, row.z, row.w)));
        }
        let bind_world = app.rest_globals.get(node).copied().unwrap_or(Mat4::IDENTITY);
        let err = max_abs_diff(*ibm * bind_world, Mat4::IDENTITY);
        let style = if err > 1e-3 { theme.warning } else { theme.ok };
        lines.push(Line::from(vec![
            label("IBM·bind"),
            Span::styled(format!("max |x - I| = {err:.2e}"), style),
            Span::styled(if err > 1e-3 { "  (rest pose is not the bind pose)" } else { "" }, theme.dim),
        ]));
        let w = &app.weights;
        lines.push(Line::from(vec![
            label("weights"),
            Span::raw(if w.vertices.is_empty() {
                "no vertex".to_string()
            } else {
                format!("{} vertices, {:.3} / {:.3} / {:.3}", w.vertices.len(), w.min, w.mean, w.max)
            }),
        ]));
    } else if app.skin.is_some() {
        lines.push(Line::styled("not a joint of this skin", theme.dim));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

fn trs_lines<'a>(t: Vec3, r: Quat, s: Vec3, label: &dyn Fn(&str) -> Span<'a>) -> Vec<Line<'a>> {
    vec![
        Line::from(vec![label("  T"), Span::raw(vec3(t))]),
        Line::from(vec![label("  R"), Span::raw(format!("{:.3} {:.3} {:.3} {:.3}", r.x, r.y, r.z, r.w))]),
        Line::from(vec![label("  S"), Span::raw(vec3(s))]),
    ]
}

fn vec3(v: Vec3) -> String {
    format!("{:.3} {:.3} {:.3}", v.x, v.y, v.z)
}

fn max_abs_diff(a: Mat4, b: Mat4) -> f32 {
    a.to_cols_array().iter().zip(b.to_cols_array()).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}
