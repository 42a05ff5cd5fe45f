//! The help overlay: every binding of the key table, grouped by where it applies; two
//! columns when the terminal is wide, scrollable (arrows, PgUp/PgDn) when it is short.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::{Theme, cols};
use crate::tui::action::Focus;
use crate::tui::keymap::{Context, bindings_in};

const COLUMN: u16 = 76;

/// `lines` fitted to `width` columns: a line too long goes on at word breaks on lines
/// indented like its text (past the key column of a binding), so no word is cut.
pub(super) fn wrap(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        if line.width() <= width {
            out.push(line);
            continue;
        }
        // A binding's key column stays first; the rest is text to wrap.
        let (lead, text): (Vec<Span<'static>>, String) = match line.spans.as_slice() {
            [key, text] => (vec![key.clone()], text.content.to_string()),
            spans => (Vec::new(), spans.iter().map(|s| s.content.as_ref()).collect()),
        };
        let style = line.spans.last().map(|s| s.style).unwrap_or_default().patch(line.style);
        let indent: usize = lead.iter().map(Span::width).sum();
        let room = width.saturating_sub(indent).max(1);
        let mut first = true;
        let mut current = String::new();
        let flush = |current: &mut String, first: &mut bool, out: &mut Vec<Line<'static>>| {
            let mut spans = if *first { lead.clone() } else { vec![Span::raw(" ".repeat(indent))] };
            spans.push(Span::styled(std::mem::take(current), style));
            out.push(Line::from(spans));
            *first = false;
        };
        for word in text.split(' ').filter(|w| !w.is_empty()) {
            let needed = cols(&current) + usize::from(!current.is_empty()) + cols(word);
            if !current.is_empty() && needed > room {
                flush(&mut current, &mut first, &mut out);
            }
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(word);
        }
        flush(&mut current, &mut first, &mut out);
    }
    out
}

pub fn lines(theme: &Theme) -> Vec<Line<'static>> {
    let mut lines: Vec<Line> = Vec::new();
    let focused = Focus::ALL.iter().map(|&f| (format!("when {} has focus", f.title()), Context::In(f)));
    // The prompt's and the picker's bindings are written on the filter's rows, which name all three.
    let modes = [
        ("while the help is open".to_string(), Context::Help),
        (
            "while typing: the bone filter (/), a prompt (: # M), the clip picker (K)".to_string(),
            Context::Filter,
        ),
    ];
    let sections = std::iter::once(("everywhere".to_string(), Context::Global)).chain(focused).chain(modes);
    for (heading, ctx) in sections {
        let rows: Vec<Line> = bindings_in(ctx)
            .filter(|b| b.listed)
            .map(|b| {
                Line::from(vec![Span::styled(format!("  {:<12}", b.label), theme.key), Span::raw(b.help)])
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        lines.push(Line::styled(heading, theme.title));
        lines.extend(rows);
    }
    lines.push(Line::styled("mouse: click a panel to focus it, a bone's row to select it;", theme.dim));
    lines.push(Line::styled("click or drag the timeline to go to a frame; drag the viewport", theme.dim));
    lines.push(Line::styled("to orbit (Shift or right button: pan); the wheel zooms", theme.dim));
    lines
}

/// A `width` x `height` box centred in `area` (smaller if `area` is), cleared for an overlay.
pub(super) fn popup(frame: &mut Frame, area: Rect, width: u16, height: u16) -> Rect {
    let [popup] =
        Layout::vertical([Constraint::Length(height.min(area.height))]).flex(Flex::Center).areas(area);
    let [popup] =
        Layout::horizontal([Constraint::Length(width.min(area.width))]).flex(Flex::Center).areas(popup);
    frame.render_widget(Clear, popup);
    popup
}

pub fn draw(frame: &mut Frame, theme: &Theme, area: Rect, scroll: u16) {
    let columns: u16 = if area.width >= 2 * COLUMN + 4 { 2 } else { 1 };
    // A narrow screen wraps the lines rather than cutting them (the border takes two).
    let all = wrap(lines(theme), usize::from(area.width.saturating_sub(2).min(COLUMN)));
    let per_column = (all.len() as u16).div_ceil(columns);
    let popup = popup(frame, area, columns * COLUMN + 2, per_column + 2);
    let height = popup.height;
    let visible = height.saturating_sub(2);
    let max_scroll = per_column.saturating_sub(visible);
    let scroll = scroll.min(max_scroll);
    let more = if max_scroll > 0 { " (arrows scroll)" } else { "" };
    let block = Block::bordered()
        .title(format!(" Help: every binding; ? or Esc closes{more} "))
        .border_style(theme.focus);
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let cols = Layout::horizontal(vec![Constraint::Length(COLUMN); columns as usize]).split(inner);
    for (i, col) in cols.iter().enumerate() {
        let start = i * per_column as usize;
        let chunk: Vec<Line> = all.iter().skip(start).take(per_column as usize).cloned().collect();
        frame.render_widget(Paragraph::new(chunk).scroll((scroll, 0)), *col);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_help_wraps_at_word_breaks_and_keeps_every_word() {
        let theme = Theme::new(true);
        let words = |lines: &[Line]| -> Vec<String> {
            lines
                .iter()
                .flat_map(|l| l.spans.iter().flat_map(|s| s.content.split_whitespace().map(String::from)))
                .collect()
        };
        let full = lines(&theme);
        for width in [40, 58, 76] {
            let wrapped = wrap(lines(&theme), width);
            assert!(wrapped.iter().all(|l| l.width() <= width), "a line is wider than {width}");
            assert_eq!(words(&wrapped), words(&full), "width {width}");
        }
        assert!(wrap(lines(&theme), 40).len() > full.len());
        assert_eq!(wrap(lines(&theme), 200).len(), full.len());
    }
}
