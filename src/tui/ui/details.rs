//! Bone (or, without a skin, node) details: where the selected node sits in the hierarchy, its local transform at rest
//! and now, its world position, and how well its inverse bind matrix matches the bind pose.

use glam::{Mat4, Quat, Vec3};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, cols, count, num, panel};
use crate::anim::{BindVerdict, RestBind};
use crate::diagnose::Options;
use crate::rig::Transform;
use crate::tui::app::App;

/// `shared`: the weights panel takes this place when it has focus (narrow screens). Returns
/// the largest useful scroll.
pub fn draw(frame: &mut Frame, app: &App, theme: &Theme, area: Rect, shared: bool) -> u16 {
    // On narrow screens this panel shares its place with the weights panel.
    // A file without a skin has nodes but no bones.
    let title = match (shared, app.session.rig.skins.is_empty()) {
        (true, _) => " Details (⇧Tab: weights) ",
        (false, true) => " Node details ",
        (false, false) => " Bone details ",
    };
    let mut block = panel(title.into(), false, theme);
    // A line wider than the panel goes on below (indented past its label), so no value
    // is cut off on the right.
    let width = usize::from(area.width.saturating_sub(2));
    let lines = super::help::wrap(lines(app, theme, width), width);
    // Every value stays reachable: the panel scrolls ({ and }) when it is too short, and
    // its bottom border says how much is above and below.
    let visible = usize::from(area.height.saturating_sub(2));
    let max = lines.len().saturating_sub(visible);
    let scroll = usize::from(app.panels.details_scroll).min(max);
    if max > 0 {
        let below = max - scroll;
        let hint = match (scroll, below) {
            (0, b) => format!(" }}: {b} more ↓ "),
            (a, 0) => format!(" {{: {a} more ↑ "),
            (a, b) => format!(" {{ ↑{a}  }} ↓{b} "),
        };
        block = block.title_bottom(Line::styled(hint, theme.key));
    }
    let shown: Vec<Line> = lines.into_iter().skip(scroll).collect();
    frame.render_widget(Paragraph::new(shown).block(block), area);
    u16::try_from(max).unwrap_or(u16::MAX)
}

/// Every line the panel has for the selected node, most telling first.
fn lines(app: &App, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let Some(node) = app.selected() else {
        return vec![Line::styled("(nothing selected)", theme.dim)];
    };
    let full = app.panels.full_precision;
    let rig = &app.session.rig;
    let n = &rig.nodes[node];
    let label = |s: &str| Span::styled(format!("{s:<9}"), theme.label);
    let parent = n.parent.map_or("root".to_string(), |p| format!("parent {} ({p})", rig.node_label(p)));
    let (name, number) = (rig.node_label(node), format!("  node {node}"));
    let mut lines = if cols(&name) + cols(&number) <= width {
        vec![Line::from(vec![Span::styled(name, theme.title), Span::raw(number)])]
    } else {
        vec![Line::styled(super::fit(&name, width), theme.title), Line::raw(number.trim_start().to_string())]
    };
    lines.extend([Line::raw(family_line(
        &format!("{parent}, {}", count(n.children.len(), "child", "children")),
        n.children.iter().map(|&c| rig.node_label(c)),
        width,
    ))]);
    if let Some(bone) = rig.vrm.as_ref().and_then(|v| v.bone_of(node)) {
        lines.push(Line::from(vec![label("humanoid"), Span::raw(bone.to_string())]));
    }
    lines.extend(vrm_lines(app, theme, &label));
    lines.extend(super::fit::lines(app, node, theme));
    let world = app.session.ws.globals.get(node).map(|m| m.w_axis.truncate()).unwrap_or(Vec3::NAN);
    lines.push(Line::from(vec![label("world"), Span::raw(vec3(world, full))]));
    if let Some(compare) = &app.session.compare {
        let delta = crate::tui::compare::detail_line(compare, rig, &app.session.ws, node);
        lines.push(Line::from(vec![label("vs B"), Span::raw(delta)]));
    }
    if let Some(m) = n.mesh {
        let skin = n.skin.map_or("no skin".to_string(), |s| format!("skin {}", s + 1));
        lines.push(Line::from(vec![label("mesh"), Span::raw(format!("{m} {}, {skin}", app.mesh_label(m)))]));
    }
    let joint_ibm = app.selected_joint().and_then(|j| {
        app.selection
            .skin
            .and_then(|s| app.session.rig.skins.get(s))
            .and_then(|s| s.inverse_bind.get(j))
            .map(|m| (j, m))
    });
    if let Some((_, ibm)) = joint_ibm {
        let w = &app.selection.weights;
        lines.push(Line::from(vec![
            label("weights"),
            Span::raw(if w.vertices.is_empty() {
                "no vertex".to_string()
            } else {
                // Labelled: a bare "0.030/0.843/1.000" left the reader to guess the order.
                format!(
                    "{}, min {} mean {} max {}",
                    count(w.vertices.len(), "vertex", "vertices"),
                    num(w.min, 3, full),
                    num(w.mean, 3, full),
                    num(w.max, 3, full)
                )
            }),
        ]));
        if let (Some(s), Some(j)) = (app.selection.skin, app.selected_joint()) {
            let measure = RestBind::measure(rig, s, &app.session.rest_globals);
            let rest_world = app.session.rest_globals.get(node).copied().unwrap_or(Mat4::IDENTITY);
            lines.extend(bind_lines(&measure, j, *ibm, rest_world, theme, &label));
        }
    } else if app.selection.skin.is_some() {
        lines.push(Line::styled("not a joint of this skin", theme.dim));
    }
    let now = app.session.ws.pose.locals.get(node).copied().unwrap_or(n.rest);
    let animated = app.player.animated.get(node).copied().unwrap_or(false);
    let rest_kind = if n.matrix.is_some() { "rest (from matrix)" } else { "rest" };
    lines.push(Line::styled(
        format!("local {rest_kind} / now{}", if animated { " (animated)" } else { "" }),
        theme.dim,
    ));
    lines.extend(trs_lines(n.rest, now, full, &label));
    if let Some((j, ibm)) = joint_ibm {
        lines.push(Line::styled(format!("inverse bind matrix, joint {j} (rows)"), theme.dim));
        for r in 0..4 {
            let row = ibm.row(r);
            // In columns when they fit; a narrow panel gets one decimal fewer so that a
            // row stays one line (wrapped, a row would read as two).
            let columns = format!(" {:>9.4} {:>9.4} {:>9.4} {:>9.4}", row.x, row.y, row.z, row.w);
            let narrow = format!("{:.3} {:.3} {:.3} {:.3}", row.x, row.y, row.z, row.w);
            if full {
                // Every digit rarely fits: the row is labelled and wraps indented past the
                // label, so a wrapped row cannot read as the next one.
                let values = format!("{:?} {:?} {:?} {:?}", row.x, row.y, row.z, row.w);
                lines.push(Line::from(vec![Span::styled(format!(" r{r} "), theme.dim), Span::raw(values)]));
            } else {
                lines.push(Line::raw(if cols(&columns) <= width || cols(&narrow) > width {
                    columns
                } else {
                    narrow
                }));
            }
        }
    }
    if let Some(s) = app.selection.skin {
        let name = rig.skins.get(s).and_then(|k| k.name.as_deref()).unwrap_or("");
        lines.push(Line::styled(format!("skin {}/{} {name}", s + 1, rig.skins.len()), theme.dim));
        lines.push(Line::raw(app.skin_deforms(s)));
    }
    lines
}

/// While a `.vrma` plays on a VRM avatar: every expression with its weight now (as three-vrm
/// holds it, before binary rounding and overrides; a held expression at its held weight), and that spring bones stand still.
fn vrm_lines(app: &App, theme: &Theme, label: &dyn Fn(&str) -> Span<'static>) -> Vec<Line<'static>> {
    let Some(play) =
        app.player.clip.and_then(|c| app.session.rig.clips.get(c)).and_then(|c| c.vrm.as_deref())
    else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    if !play.expressions.is_empty() {
        let held = app.player.expression.as_ref().and_then(|e| e.held());
        let weights = crate::anim::vrm_pose::weights_held(play, app.player.playback.time, held);
        let full = app.panels.full_precision;
        let list: Vec<String> = play
            .expressions
            .iter()
            .zip(weights)
            .map(|(e, w)| format!("{} {}", e.name, num(w, 3, full)))
            .collect();
        lines.push(Line::from(vec![label("express."), Span::raw(list.join(", "))]));
    }
    if app.session.rig.vrm.as_ref().is_some_and(|v| !v.springs.is_empty()) && app.session.springs.is_none() {
        lines.push(Line::styled("spring bones are not simulated (start with --springs)", theme.warning));
    }
    lines
}

/// Whether the joint's rest pose is where its inverse bind matrix says the bind pose
/// was, in words: `check`'s verdict (`RestBind`, the same measure and tolerance, so a
/// quantized skin's dequantization is no mismatch), and when it is one, how far apart the
/// two are (scene units) and by what angle. A rest pose that is not the bind pose is common
/// and harmless (the mesh is skinned from the bind pose either way); it matters when a tool
/// treats the rest pose as the bind pose.
fn bind_lines(
    measure: &RestBind,
    joint: usize,
    ibm: Mat4,
    rest_world: Mat4,
    theme: &Theme,
    label: &dyn Fn(&str) -> Span<'static>,
) -> Vec<Line<'static>> {
    let one = |text: &'static str, style| vec![Line::from(vec![label("bind"), Span::styled(text, style)])];
    if !ibm.inverse().is_finite() {
        return one("the inverse bind matrix cannot be inverted", theme.error);
    }
    // Where the bind pose put the joint: relative to the root joint for a joint that check
    // names alone (as its finding measures it), in the file's own terms for a whole skin.
    let bind_world = match measure.verdict(joint, Options::default().ibm_tolerance) {
        BindVerdict::Kept => return one(KEPT, theme.ok),
        BindVerdict::Unknown => return one("the rest pose is not finite", theme.error),
        BindVerdict::Joint { .. } => measure.common.unwrap_or(Mat4::IDENTITY) * ibm.inverse(),
        BindVerdict::Skin => ibm.inverse(),
    };
    let (_, r_bind, t_bind) = bind_world.to_scale_rotation_translation();
    let (_, r_rest, t_rest) = rest_world.to_scale_rotation_translation();
    let dist = t_bind.distance(t_rest);
    let angle = r_bind.angle_between(r_rest).to_degrees();
    vec![
        Line::from(vec![label("bind"), Span::styled(NOT_KEPT, theme.warning)]),
        Line::from(vec![label(""), Span::raw(format!("{dist:.3} units and {angle:.1}° apart"))]),
    ]
}

/// The bind line's two verdicts, for tests that compare them with `check`.
pub const KEPT: &str = "the rest pose is the bind pose";
pub const NOT_KEPT: &str = "the rest pose is not the bind pose:";

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
fn trs_lines<'a>(
    rest: Transform,
    now: Transform,
    full: bool,
    label: &dyn Fn(&str) -> Span<'a>,
) -> Vec<Line<'a>> {
    let q = |r: Quat| [r.x, r.y, r.z, r.w].iter().map(|&v| num(v, 3, full)).collect::<Vec<_>>().join(" ");
    let rows = [
        ("  T", vec3(rest.translation, full), vec3(now.translation, full)),
        ("  R", q(rest.rotation), q(now.rotation)),
        ("  S", vec3(rest.scale, full), vec3(now.scale, full)),
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

fn vec3(v: Vec3, full: bool) -> String {
    format!("{} {} {}", num(v.x, 3, full), num(v.y, 3, full), num(v.z, 3, full))
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
