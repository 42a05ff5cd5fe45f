//! Drawing: a function of `&App` that changes nothing of it. It writes the viewport's reusable
//! raster buffers (`ViewportCache`) and returns what it measured (scroll limits, the
//! viewport's size), which the loop hands back as `Action::Measured`. Each panel lives in its
//! own file; this one lays them out and routes the mouse.

mod clip_picker;
mod curves;
mod details;
mod fit;
mod help;
mod keyframes;
mod status;
mod theme;
pub mod tree;
mod viewport;
mod weights;

use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Wrap};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

pub use theme::Theme;
pub use viewport::ViewportCache;

use super::action::{Action, Focus, Measured};
use super::app::App;

/// Below this the panels cannot say anything useful.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 18;
/// From this width the details and weights panels get their own column.
const WIDE: u16 = 110;

/// Where each panel was drawn, for mouse hit-testing.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Areas {
    pub tree: Rect,
    pub viewport: Rect,
    pub details: Rect,
    pub weights: Rect,
    pub keys: Rect,
    /// The dope sheet's time axis (columns that map to clip time).
    pub timeline: Rect,
    pub status: Rect,
}

/// The bone tree's width unless its rows want more: enough for a few levels of a typical
/// rig's names.
const TREE_MIN: u16 = 30;

/// The bone tree's width: `wanted` (its widest row with borders, see `tree::wanted_width`)
/// within `TREE_MIN` and what the viewport can spare (at least 60 columns of viewport on
/// wide screens, 40 on narrow ones, and never more than 3/10 of the screen, 2/5 when the
/// tree shares its column).
fn tree_width(area: Rect, wanted: u16) -> u16 {
    let cap = if area.width >= WIDE {
        (area.width * 3 / 10).min(area.width.saturating_sub(46 + 60))
    } else {
        (area.width * 2 / 5).min(area.width.saturating_sub(40))
    };
    wanted.min(cap).max(TREE_MIN)
}

/// Splits the screen, the bone tree `tree_wanted` columns wide if there is room (see
/// `tree_width`). Pure, so tests can check it at any size.
pub fn layout(area: Rect, focus: Focus, tree_wanted: u16) -> Areas {
    let tree_w = tree_width(area, tree_wanted);
    let keys_h = (area.height / 4).clamp(6, 14);
    let [main, keys, status] =
        Layout::vertical([Constraint::Min(6), Constraint::Length(keys_h), Constraint::Length(2)]).areas(area);
    let mut a = Areas { keys, status, ..Default::default() };
    if area.width >= WIDE {
        let [tree, viewport, side] =
            Layout::horizontal([Constraint::Length(tree_w), Constraint::Min(40), Constraint::Length(46)])
                .areas(main);
        a.tree = tree;
        a.viewport = viewport;
        // Walking weight problems wants the whole column: the rules, their sentences and
        // the vertex's weights do not fit in half of it.
        if focus == Focus::Weights {
            a.weights = side;
        } else {
            let [details, weights] =
                Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(side);
            a.details = details;
            a.weights = weights;
        }
    } else {
        let [left, viewport] =
            Layout::horizontal([Constraint::Length(tree_w), Constraint::Min(20)]).areas(main);
        let [tree, info] =
            Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(left);
        a.tree = tree;
        a.viewport = viewport;
        // Narrow screens share one panel: weights while they have focus, details otherwise.
        if focus == Focus::Weights {
            a.weights = info;
        } else {
            a.details = info;
        }
    }
    a.timeline = keyframes::timeline_area(a.keys);
    a
}

/// What drawing a frame returns: where each panel went, and what the keys need to know.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Drawn {
    pub areas: Areas,
    pub measured: Measured,
}

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &App, cache: &mut ViewportCache) -> Drawn {
    let area = frame.area();
    let theme = Theme::new(app.view.color != crate::render::ColorDepth::None);
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let text = vec![
            Line::from("rigscope: terminal too small"),
            Line::from(format!(
                "need at least {MIN_WIDTH}x{MIN_HEIGHT}, have {}x{}",
                area.width, area.height
            )),
            Line::from("enlarge the window, or press q to quit"),
        ];
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }).style(theme.warning), area);
        return Drawn::measuring(Areas::default(), None, None);
    }
    let areas = layout(area, app.panels.focus, tree::wanted_width(app));
    tree::draw(frame, app, &theme, areas.tree);
    viewport::draw(frame, app, &theme, areas.viewport, cache);
    let details_max = (areas.details.area() > 0)
        .then(|| details::draw(frame, app, &theme, areas.details, areas.weights.area() == 0));
    let weights_max =
        if areas.weights.area() > 0 { weights::draw(frame, app, &theme, areas.weights) } else { None };
    keyframes::draw(frame, app, &theme, areas.keys);
    status::draw(frame, app, &theme, areas.status);
    if let Some(picker) = &app.overlays.picker {
        clip_picker::draw(frame, app, picker, &theme, area);
    }
    if app.overlays.help {
        help::draw(frame, &theme, area, app.overlays.help_scroll);
    }
    Drawn::measuring(areas, details_max, weights_max)
}

impl Drawn {
    fn measuring(areas: Areas, details_max: Option<u16>, weights_max: Option<u16>) -> Drawn {
        let measured = Measured { details_max, weights_max, viewport_cells: viewport_cells(&areas) };
        Drawn { areas, measured }
    }
}

/// The viewport's inside (without its border) in cells, as `rigscope render --size` takes it.
pub fn viewport_cells(areas: &Areas) -> (u16, u16) {
    (areas.viewport.width.saturating_sub(2).max(8), areas.viewport.height.saturating_sub(2).max(8))
}

/// `v` with `short` decimals, or (`full`) every digit the f32 has: the shortest decimal
/// that reads back as the same f32.
pub fn num(v: f32, short: usize, full: bool) -> String {
    if full { format!("{v:?}") } else { format!("{v:.short$}") }
}

pub use crate::report::count;

/// `s` in at most `width` terminal columns: cut with a closing "…" when it is wider, so a
/// reader sees that something is missing.
pub fn fit(s: &str, width: usize) -> String {
    if cols(s) <= width {
        return s.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for ch in s.chars() {
        let w = UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(ch);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// `s` in lines of at most `width` terminal columns, each after `indent` spaces: broken at
/// spaces, and a word too long for a line (a long code name) after an underscore, so that
/// nothing is cut.
pub fn wrap(s: &str, width: usize, indent: usize) -> Vec<String> {
    let room = width.saturating_sub(indent).max(8);
    let pad = " ".repeat(indent);
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in s.split(' ') {
        let mut word = word.to_string();
        loop {
            let need = if line.is_empty() { cols(&word) } else { cols(&line) + 1 + cols(&word) };
            if need <= room {
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(&word);
                break;
            }
            if !line.is_empty() {
                out.push(std::mem::take(&mut line));
                continue;
            }
            let (head, tail) = split_word(&word, room);
            out.push(head);
            word = tail;
        }
    }
    if !line.is_empty() || out.is_empty() {
        out.push(line);
    }
    out.into_iter().map(|l| format!("{pad}{l}")).collect()
}

/// A word wider than `room` split after its last underscore that fits, else at `room`.
fn split_word(word: &str, room: usize) -> (String, String) {
    let mut used = 0;
    let (mut cut, mut underscore) = (word.len(), None);
    for (i, ch) in word.char_indices() {
        let w = UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + w > room {
            cut = i;
            break;
        }
        used += w;
        if ch == '_' {
            underscore = Some(i + 1);
        }
    }
    let at = underscore
        .filter(|_| cut < word.len())
        .unwrap_or(cut)
        .max(word.chars().next().map_or(0, char::len_utf8));
    (word[..at].to_string(), word[at..].to_string())
}

/// Terminal columns `s` takes (a CJK character two, a combining mark none), as ratatui
/// lays it out.
pub fn cols(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// A bordered block whose title shows focus.
pub fn panel<'a>(title: String, focused: bool, theme: &Theme) -> Block<'a> {
    let block = Block::bordered().title(title);
    if focused {
        block.border_style(theme.focus).title_style(theme.focus)
    } else {
        block.border_style(theme.border)
    }
}

/// What a mouse drag started on.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum MouseState {
    #[default]
    Idle,
    Scrubbing,
    Orbiting {
        col: u16,
        row: u16,
    },
    Panning {
        col: u16,
        row: u16,
    },
}

/// Degrees of orbit per cell dragged.
const DRAG_ORBIT: f32 = 3.0;

/// Mouse: click focuses a panel; click or drag on the timeline scrubs; drag in the viewport
/// orbits (with Shift or the right button: pans); the wheel zooms; a click in the tree selects.
pub fn mouse_action(areas: &Areas, app: &App, ev: MouseEvent, state: &mut MouseState) -> Option<Action> {
    let pos = Position::new(ev.column, ev.row);
    match ev.kind {
        MouseEventKind::Down(button) => {
            if areas.timeline.contains(pos) {
                *state = MouseState::Scrubbing;
                return Some(seek_frame(areas, app, ev.column));
            }
            if areas.viewport.contains(pos) {
                let pan = button == MouseButton::Right || ev.modifiers.contains(KeyModifiers::SHIFT);
                *state = if pan {
                    MouseState::Panning { col: ev.column, row: ev.row }
                } else {
                    MouseState::Orbiting { col: ev.column, row: ev.row }
                };
                return Some(Action::Focus(Focus::Viewport));
            }
            if areas.tree.contains(pos) {
                // Rows start one line below the border; `tree::row_at` knows the scroll.
                if let Some(row) = tree::row_at(areas.tree, app, ev.row) {
                    return Some(Action::SelectRow(row));
                }
                return Some(Action::Focus(Focus::Bones));
            }
            if areas.keys.contains(pos) {
                if let Some(node) = keyframes::node_at(areas.keys, app, ev.row) {
                    return Some(Action::SelectNode(node));
                }
                return Some(Action::Focus(Focus::Keys));
            }
            if areas.weights.contains(pos) {
                return Some(Action::Focus(Focus::Weights));
            }
            None
        }
        MouseEventKind::Drag(_) => match *state {
            MouseState::Scrubbing => Some(seek_frame(areas, app, ev.column)),
            MouseState::Orbiting { col, row } => {
                *state = MouseState::Orbiting { col: ev.column, row: ev.row };
                let dx = ev.column as f32 - col as f32;
                let dy = ev.row as f32 - row as f32;
                Some(Action::Orbit { yaw: dx * DRAG_ORBIT, pitch: dy * DRAG_ORBIT * 2.0 })
            }
            MouseState::Panning { col, row } => {
                *state = MouseState::Panning { col: ev.column, row: ev.row };
                let w = areas.viewport.width.max(1) as f32;
                let h = areas.viewport.height.max(1) as f32;
                Some(Action::Pan {
                    x: -(ev.column as f32 - col as f32) / w,
                    y: (ev.row as f32 - row as f32) / h,
                })
            }
            MouseState::Idle => None,
        },
        MouseEventKind::Up(_) => {
            *state = MouseState::Idle;
            None
        }
        MouseEventKind::ScrollUp if areas.viewport.contains(pos) => Some(Action::Zoom(1.0 / 1.1)),
        MouseEventKind::ScrollDown if areas.viewport.contains(pos) => Some(Action::Zoom(1.1)),
        MouseEventKind::ScrollUp if areas.details.contains(pos) => Some(Action::ScrollDetails(-1)),
        MouseEventKind::ScrollDown if areas.details.contains(pos) => Some(Action::ScrollDetails(1)),
        MouseEventKind::ScrollUp if areas.tree.contains(pos) => Some(Action::SelectUp),
        MouseEventKind::ScrollDown if areas.tree.contains(pos) => Some(Action::SelectDown),
        _ => None,
    }
}

/// A click or drag on the timeline goes to the frame nearest the time under the pointer, so
/// `,` and `.` then step from a frame and the time shown is one the clip was authored at.
fn seek_frame(areas: &Areas, app: &App, column: u16) -> Action {
    let t = keyframes::time_at(areas.timeline, app, column);
    Action::Seek(app.player.frames.snapped(t, app.player.playback.duration))
}

#[cfg(test)]
mod tests {
    use super::{cols, fit, wrap};

    #[test]
    fn wrap_breaks_at_spaces_and_long_codes_after_underscores() {
        assert_eq!(wrap("the weights sum to 0.5", 12, 2), ["  the", "  weights", "  sum to 0.5"]);
        // 58 columns into 30: after the last underscore that fits, never cut.
        let code = "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION";
        let lines = wrap(&format!("error {code}"), 30, 0);
        assert_eq!(lines, ["error", "ACCESSOR_ANIMATION_SAMPLER_", "OUTPUT_NON_NORMALIZED_", "QUATERNION"]);
        assert_eq!(lines[1..].concat(), code);
        assert_eq!(wrap("", 10, 0), [""]);
    }

    #[test]
    fn fit_cuts_by_terminal_columns() {
        // ASCII: one column a char. "骨" (bone) takes two columns, "é" written as e plus a
        // combining accent takes one.
        assert_eq!((cols("hips"), cols("骨盤"), cols("e\u{301}")), (4, 4, 1));
        assert_eq!(fit("hips", 4), "hips");
        assert_eq!(fit("spine_01", 5), "spin…");
        // Three columns: one wide char (2) and the ellipsis (1); a second would overflow.
        assert_eq!(fit("骨盤骨", 3), "骨…");
        assert_eq!(cols(&fit("骨盤骨", 4)), 3);
        assert_eq!(fit("abc", 0), "");
    }
}
