//! The dope sheet: one row per animated channel over the clip's timeline (the selected
//! bone's channels first), key markers, the playhead, and the exact sampled value of each of
//! the selected bone's channels ("rotation = slerp(key 12, key 13, 0.37)").

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use super::{Theme, count, fit, num, panel};
use crate::anim::{SampleInfo, sample_channel};
use crate::report::interpolation_name;
use crate::rig::{Channel, Clip, Interpolation, Property};
use crate::tui::action::Focus;
use crate::tui::app::App;

/// Width of the channel-name column.
fn label_width(inner: Rect) -> u16 {
    (inner.width / 4).clamp(12, 28)
}

/// The columns that map to clip time (inside the panel's border, right of the labels).
pub fn timeline_area(keys: Rect) -> Rect {
    let inner = Block::bordered().inner(keys);
    let l = label_width(inner).min(inner.width);
    Rect { x: inner.x + l, width: inner.width - l, ..inner }
}

/// Clip time under screen column `col` of the timeline.
pub fn time_at(timeline: Rect, app: &App, col: u16) -> f32 {
    let span = timeline.width.saturating_sub(1).max(1) as f32;
    let x = col.saturating_sub(timeline.x).min(timeline.width.saturating_sub(1)) as f32;
    x / span * app.player.playback.duration
}

pub(super) fn column_of(t: f32, duration: f32, width: u16) -> u16 {
    if duration <= 0.0 || width == 0 {
        return 0;
    }
    let f = (t / duration).clamp(0.0, 1.0);
    (f * (width - 1) as f32).round() as u16
}

pub fn interp_letter(i: Interpolation) -> char {
    match i {
        Interpolation::Step => 'S',
        Interpolation::Linear => 'L',
        Interpolation::CubicSpline => 'C',
    }
}

pub use crate::report::property_name;

fn short_property(p: Property) -> &'static str {
    match p {
        Property::Translation => "T",
        Property::Rotation => "R",
        Property::Scale => "S",
        Property::Weights => "W",
    }
}

pub fn draw(frame: &mut Frame, app: &App, theme: &Theme, area: Rect) {
    let Some((ci, clip)) = app.player.clip.and_then(|c| app.session.rig.clips.get(c).map(|x| (c, x))) else {
        let block = panel(" Keyframes ".into(), app.panels.focus == Focus::Keys, theme);
        let text = if app.session.rig.clips.is_empty() {
            "(this file has no animation clips)"
        } else {
            "rest pose: no clip plays (c / C: back to the clips)"
        };
        frame.render_widget(Paragraph::new(Line::styled(text, theme.dim)).block(block), area);
        return;
    };
    let inner = Block::bordered().inner(area);
    let sel = app.selected();
    let (rows_h, value_lines) = row_heights(inner, clip, sel);
    // Channels rigscope loads but does not play (KHR_animation_pointer on materials, ...)
    // get rows after the played ones, so the clip's whole content is visible.
    let unplayed: Vec<_> = app.session.rig.unpreviewed_channels.iter().filter(|u| u.clip == ci).collect();
    let hidden = (clip.channels.len() + unplayed.len()).saturating_sub(rows_h);
    let title = format!(
        " {}: {}, {}{}{} ",
        if app.panels.curves.is_some() { "Curves" } else { "Keyframes" },
        app.clip_place(ci),
        count(clip.channels.len(), "channel", "channels"),
        if unplayed.is_empty() { String::new() } else { format!(", {} not previewed", unplayed.len()) },
        if hidden > 0 { format!(", {hidden} not shown") } else { String::new() }
    );
    let block = panel(title, app.panels.focus == Focus::Keys, theme);
    frame.render_widget(block, area);
    if inner.height < 2 || inner.width < 20 {
        return;
    }
    if let Some(which) = app.panels.curves {
        super::curves::draw(frame, app, theme, inner, label_width(inner), which);
        return;
    }
    let mine: Vec<&Channel> = clip.channels.iter().filter(|c| Some(c.node) == sel).collect();
    let l = label_width(inner);
    let tl = Rect { x: inner.x + l, width: inner.width - l, ..inner };
    let duration = app.player.playback.duration;
    let buf = frame.buffer_mut();

    // Ruler: start, middle and end times, and the playhead time above its column.
    let head_col = column_of(app.player.playback.time, duration, tl.width);
    write(buf, inner.x, inner.y, &format!("{:<w$}", "t (s)", w = l as usize), theme.dim);
    for (frac, align_right) in [(0.0f32, false), (0.5, false), (1.0, true)] {
        let text = format!("{:.2}", duration * frac);
        let col = column_of(duration * frac, duration, tl.width);
        let x = if align_right { (tl.x + col + 1).saturating_sub(text.len() as u16) } else { tl.x + col };
        write(buf, x, inner.y, &text, theme.dim);
    }
    for (row, ch) in row_order(clip, sel).take(rows_h).enumerate() {
        let y = inner.y + 1 + row as u16;
        let is_mine = Some(ch.node) == sel;
        // Property and interpolation first, so a narrow column still tells rows apart.
        let label = format!(
            "{}{} {}",
            short_property(ch.property),
            interp_letter(ch.interpolation),
            app.session.rig.node_label(ch.node)
        );
        let label = fit(&label, l as usize - 1);
        write(
            buf,
            inner.x,
            y,
            &format!("{label:<w$}", w = l as usize),
            if is_mine { theme.title } else { theme.label },
        );
        let (first, last) =
            (ch.times.first().copied().unwrap_or(0.0), ch.times.last().copied().unwrap_or(0.0));
        let (c0, c1) = (column_of(first, duration, tl.width), column_of(last, duration, tl.width));
        // One-column symbols go straight into their cells: this runs for every column of
        // every row each frame, and `set_stringn`'s grapheme walk was most of the panel's cost.
        for x in c0..=c1.min(tl.width.saturating_sub(1)) {
            put(buf, tl.x + x, y, "·", theme.dim);
        }
        let key_style = if is_mine { theme.key } else { theme.label };
        for &t in ch.times.iter() {
            put(buf, tl.x + column_of(t, duration, tl.width), y, "◆", key_style);
        }
    }
    for (row, u) in (clip.channels.len()..rows_h).zip(&unplayed) {
        let y = inner.y + 1 + row as u16;
        let target = if u.pointer.is_empty() { "(no target)" } else { u.pointer.as_str() };
        let label = fit(&format!("-{} {target}", interp_letter(u.interpolation)), l as usize - 1);
        write(buf, inner.x, y, &format!("{label:<w$}", w = l as usize), theme.dim);
        for &t in u.times.iter() {
            put(buf, tl.x + column_of(t, duration, tl.width), y, "◇", theme.dim);
        }
    }
    // The playhead: one highlighted column across the ruler and channel rows.
    for y in inner.y..inner.y + 1 + rows_h as u16 {
        if let Some(cell) = buf.cell_mut((tl.x + head_col, y)) {
            if cell.symbol() == " " {
                cell.set_symbol("│");
            }
            // Without colour a red column would vanish: reverse video marks it instead.
            cell.set_style(if theme.color { theme.playhead } else { theme.selected });
        }
    }
    // Exact values of the selected bone's channels at the playhead.
    for (i, ch) in mine.iter().take(value_lines).enumerate() {
        let y = inner.y + 1 + rows_h as u16 + i as u16;
        let line = value_line(ch, app.player.playback.time, app.panels.full_precision);
        Paragraph::new(line).render(Rect { x: inner.x, y, width: inner.width, height: 1 }, buf);
    }
}

/// The channel rows' height and the value lines' below them, in the panel's `inner` area.
fn row_heights(inner: Rect, clip: &Clip, sel: Option<usize>) -> (usize, usize) {
    let mine_count = clip.channels.iter().filter(|c| Some(c.node) == sel).count();
    let value_lines = mine_count.min((inner.height as usize).saturating_sub(2) / 2);
    ((inner.height as usize).saturating_sub(1 + value_lines), value_lines)
}

/// The channels in row order: the selected bone's first, then the others as the clip has them.
fn row_order(clip: &Clip, sel: Option<usize>) -> impl Iterator<Item = &Channel> {
    let mine = clip.channels.iter().filter(move |c| Some(c.node) == sel);
    mine.chain(clip.channels.iter().filter(move |c| Some(c.node) != sel))
}

/// The node whose channel row is at screen row `y` of the dope sheet drawn in `keys` (None
/// on the ruler, the value lines, a not-previewed row, or in the curve view).
pub fn node_at(keys: Rect, app: &App, y: u16) -> Option<usize> {
    let clip =
        app.player.clip.and_then(|c| app.session.rig.clips.get(c)).filter(|_| app.panels.curves.is_none())?;
    let inner = Block::bordered().inner(keys);
    let (rows_h, _) = row_heights(inner, clip, app.selected());
    let row = usize::from(y.checked_sub(inner.y + 1)?);
    if row >= rows_h {
        return None;
    }
    row_order(clip, app.selected()).nth(row).map(|ch| ch.node)
}

/// "rotation (x,y,z,w) = (...) = slerp(key 12, key 13, 0.37)"
pub fn value_line(ch: &Channel, t: f32, full: bool) -> Line<'static> {
    let mut out = vec![0.0f32; ch.components.max(1)];
    let info: SampleInfo = sample_channel(ch, t, &mut out);
    let comps = match ch.property {
        Property::Rotation => " (x,y,z,w)",
        Property::Translation | Property::Scale => " (x,y,z)",
        Property::Weights => "",
    };
    let values: Vec<String> = out.iter().map(|&v| num(v, 4, full)).collect();
    let first = ch.times.first().copied().unwrap_or(0.0);
    let last = ch.times.last().copied().unwrap_or(0.0);
    let how = match (ch.interpolation, info.next) {
        (_, None) if t < first => format!("key {} (held before the first key)", info.key),
        (_, None) if t > last => format!("key {} (held after the last key)", info.key),
        (_, None) => format!("key {}", info.key),
        (Interpolation::Step, Some(_)) => format!("step(key {})", info.key),
        (Interpolation::Linear, Some(n)) => {
            let f = if ch.property == Property::Rotation { "slerp" } else { "lerp" };
            format!("{f}(key {}, key {n}, {})", info.key, num(info.factor, 2, full))
        }
        (Interpolation::CubicSpline, Some(n)) => {
            format!("cubic(key {}, key {n}, {})", info.key, num(info.factor, 2, full))
        }
    };
    Line::from(vec![
        Span::styled(format!("{}{comps} = ", property_name(ch.property)), Style::new()),
        Span::raw(format!("({})", values.join(", "))),
        Span::raw(format!(" = {how} [{}]", interpolation_name(ch.interpolation))),
    ])
}

/// One single-width symbol into one cell; nothing outside the buffer.
fn put(buf: &mut Buffer, x: u16, y: u16, symbol: &str, style: Style) {
    if let Some(cell) = buf.cell_mut((x, y)) {
        cell.set_symbol(symbol).set_style(style);
    }
}

fn write(buf: &mut Buffer, x: u16, y: u16, text: &str, style: Style) {
    let area = buf.area;
    if y >= area.y + area.height || x >= area.x + area.width {
        return;
    }
    let max = (area.x + area.width - x) as usize;
    buf.set_stringn(x, y, text, max, style);
}
