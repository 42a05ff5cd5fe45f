//! The bone tree panel: joints of the current skin, collapsible, filterable, with markers
//! for joints animated in the current clip (~) and joints that weight no vertex (∅).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState};

use super::{Theme, cols, count, fit, panel};
use crate::tui::action::Focus;
use crate::tui::app::App;
use crate::tui::tree::Row;

pub fn draw(frame: &mut Frame, app: &App, theme: &Theme, area: Rect) {
    let skin_title = match app.selection.skin.and_then(|s| app.session.rig.skins.get(s).map(|k| (s, k))) {
        Some((i, skin)) if app.session.rig.skins.len() > 1 => {
            format!(
                " Bones: skin {}/{}, {} ",
                i + 1,
                app.session.rig.skins.len(),
                count(skin.joints.len(), "joint", "joints")
            )
        }
        Some((_, skin)) => format!(" Bones ({}) ", count(skin.joints.len(), "joint", "joints")),
        None => format!(" Nodes ({}; no skin) ", app.session.rig.nodes.len()),
    };
    let skin_title = if app.selection.show_nodes {
        format!(" Nodes ({}; N: bones) ", app.session.rig.nodes.len())
    } else {
        skin_title
    };
    let skin_title = if app.selection.tree.filter.is_empty() {
        skin_title
    } else {
        let matches = app
            .selection
            .tree
            .rows()
            .iter()
            .filter(|r| {
                app.session
                    .rig
                    .node_label(r.node)
                    .to_lowercase()
                    .contains(&app.selection.tree.filter.to_lowercase())
            })
            .count();
        format!("{}, {matches} match ", skin_title.trim_end())
    };
    let mut block = panel(skin_title, app.panels.focus == Focus::Bones, theme);
    if app.selection.tree.filtering || !app.selection.tree.filter.is_empty() {
        let cursor = if app.selection.tree.filtering { "_" } else { "" };
        block =
            block.title_bottom(Line::styled(format!(" /{}{cursor} ", app.selection.tree.filter), theme.key));
    } else {
        block = block.title_bottom(Line::styled(" ~ animated  ∅ no weights ", theme.dim));
    }
    let rows = app.selection.tree.rows();
    if rows.is_empty() {
        let msg =
            if app.selection.tree.filter.is_empty() { "(no nodes)" } else { "(no bone matches the filter)" };
        frame.render_widget(List::new([ListItem::new(Line::styled(msg, theme.dim))]).block(block), area);
        return;
    }
    let width = usize::from(area.width.saturating_sub(2));
    let items: Vec<ListItem> = rows.iter().map(|r| ListItem::new(row_line(app, r, theme, width))).collect();
    let mut state = ListState::default().with_selected(app.selection.tree.selected_row());
    *state.offset_mut() = scroll_offset(app, area);
    let list = List::new(items).block(block).highlight_style(theme.selected);
    frame.render_stateful_widget(list, area, &mut state);
}

/// Levels indented two columns each; deeper levels take one column each, up to half
/// the panel, and say their depth in a number, so a 40-level chain stays readable.
const FULL_LEVELS: usize = 8;

/// The indent of a row at `depth` in a panel `width` columns wide, and whether it is
/// compressed (then the row shows its depth).
fn indent(depth: usize, width: usize) -> (usize, bool) {
    let wanted = 2 * depth.min(FULL_LEVELS) + depth.saturating_sub(FULL_LEVELS);
    (wanted.min((width / 2).max(2 * FULL_LEVELS)), depth > FULL_LEVELS)
}

/// One row in `width` columns: indent, depth (deep rows), fold marker, name, and the
/// VRM humanoid bone, the animated / unweighted markers (and, in the node browser, the
/// node's mesh and skin).
/// A name too long is cut with "…" so that the markers after it stay.
fn row_line<'a>(app: &'a App, r: &Row, theme: &Theme, width: usize) -> Line<'a> {
    let fold = if !r.has_children {
        "  "
    } else if r.collapsed {
        "▸ "
    } else {
        "▾ "
    };
    let name_style = if r.joint { theme.label } else { theme.dim };
    let (pad, deep) = indent(r.depth, width);
    let depth = if deep { format!("{} ", r.depth) } else { String::new() };
    let mut markers: Vec<Span> = Vec::new();
    if let Some(bone) = app.session.rig.vrm.as_ref().and_then(|v| v.bone_of(r.node)) {
        markers.push(Span::styled(format!(" [{bone}]"), theme.key));
    }
    if app.player.animated.get(r.node).copied().unwrap_or(false) {
        markers.push(Span::styled(" ~", theme.animated));
    }
    if r.joint && app.selection.unweighted.get(r.node).copied().unwrap_or(false) {
        markers.push(Span::styled(" ∅", theme.warning));
    }
    if app.selection.show_nodes || app.selection.skin.is_none() {
        let node = &app.session.rig.nodes[r.node];
        if let Some(m) = node.mesh {
            let skin = node.skin.map_or(String::new(), |s| format!(" skin {}", s + 1));
            markers.push(Span::styled(format!(" mesh {m}{skin}"), theme.key));
        }
    }
    let used = pad + cols(&depth) + cols(fold) + markers.iter().map(|m| m.width()).sum::<usize>();
    let name = fit(&app.session.rig.node_label(r.node), width.saturating_sub(used).max(4));
    let mut spans = vec![
        Span::raw(" ".repeat(pad)),
        Span::styled(depth, theme.dim),
        Span::styled(fold, theme.dim),
        Span::styled(name, name_style),
    ];
    spans.extend(markers);
    Line::from(spans)
}

/// The width the tree panel needs to show its widest row whole, borders included, with
/// every row unfolded (so the panel keeps its width while the user folds and filters): the
/// layout widens the panel towards it when the screen has room.
pub fn wanted_width(app: &App) -> u16 {
    let theme = Theme::new(false);
    let widest = app
        .selection
        .tree
        .every_row()
        .iter()
        .map(|r| row_line(app, r, &theme, usize::MAX / 4).width())
        .max()
        .unwrap_or(0);
    u16::try_from(widest + 2).unwrap_or(u16::MAX)
}

/// First visible row: keeps the selection on screen without remembering scroll state.
fn scroll_offset(app: &App, area: Rect) -> usize {
    let visible = area.height.saturating_sub(2) as usize;
    let sel = app.selection.tree.selected_row().unwrap_or(0);
    if visible == 0 { 0 } else { sel.saturating_sub(visible - 1) }
}

/// The tree row under screen row `y`, if any.
pub fn row_at(area: Rect, app: &App, y: u16) -> Option<usize> {
    if y <= area.y || y + 1 >= area.y + area.height {
        return None;
    }
    let row = scroll_offset(app, area) + (y - area.y - 1) as usize;
    (row < app.selection.tree.rows().len()).then_some(row)
}

#[cfg(test)]
mod tests {
    use super::indent;

    #[test]
    fn deep_rows_indent_less_and_stop_at_half_the_panel() {
        // Two columns a level to depth 8, then one.
        assert_eq!(indent(3, 40), (6, false));
        assert_eq!(indent(8, 40), (16, false));
        assert_eq!(indent(12, 40), (20, true));
        // A 40-column panel stops at 20 columns: depth 12 and 30 look the same but
        // print their depth.
        assert_eq!(indent(30, 40), (20, true));
        // A narrow panel still indents the first 8 levels fully.
        assert_eq!(indent(10, 20), (16, true));
    }
}
