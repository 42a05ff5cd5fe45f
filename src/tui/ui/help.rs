//! The help overlay: every binding of the key table, grouped by where it applies; two
//! columns when the terminal is wide, scrollable (arrows, PgUp/PgDn) when it is short.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::Theme;
use crate::tui::action::Focus;
use crate::tui::keymap::{Context, bindings_in};

const COLUMN: u16 = 76;

pub fn lines(theme: &Theme) -> Vec<Line<'static>> {
    let mut lines: Vec<Line> = Vec::new();
    let sections = [("everywhere", Context::Global)]
        .into_iter()
        .chain(Focus::ALL.iter().map(|&f| (f.title(), Context::In(f))));
    for (name, ctx) in sections {
        let rows: Vec<Line> = bindings_in(ctx)
            .map(|b| {
                Line::from(vec![Span::styled(format!("  {:<12}", b.label), theme.key), Span::raw(b.help)])
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let heading =
            if ctx == Context::Global { name.to_string() } else { format!("when {name} has focus") };
        lines.push(Line::styled(heading, theme.title));
        lines.extend(rows);
    }
    lines.push(Line::styled("mouse: click a panel to focus it; click or drag the timeline", theme.dim));
    lines.push(Line::styled("to scrub; drag the viewport to orbit (Shift or right button:", theme.dim));
    lines.push(Line::styled("pan); the wheel zooms", theme.dim));
    lines
}

pub fn draw(frame: &mut Frame, theme: &Theme, area: Rect, scroll: u16) {
    let all = lines(theme);
    let columns: u16 = if area.width >= 2 * COLUMN + 4 { 2 } else { 1 };
    let per_column = (all.len() as u16).div_ceil(columns);
    let height = (per_column + 2).min(area.height);
    let width = (columns * COLUMN + 2).min(area.width);
    let [popup] = Layout::vertical([Constraint::Length(height)]).flex(Flex::Center).areas(area);
    let [popup] = Layout::horizontal([Constraint::Length(width)]).flex(Flex::Center).areas(popup);
    frame.render_widget(Clear, popup);
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
