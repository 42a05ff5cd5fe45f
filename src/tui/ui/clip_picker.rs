//! The clip picker's overlay: the filter being typed, then one row per matching clip
//! (name, duration, the `--anim` file it came from), the cursor's row marked (▸) as well as
//! highlighted, so that it shows without colour.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState};

use super::Theme;
use super::help::popup;
use crate::tui::app::App;
use crate::tui::clip_picker::ClipPicker;

const WIDTH: u16 = 72;

pub fn draw(frame: &mut Frame, app: &App, picker: &ClipPicker, theme: &Theme, area: Rect) {
    let entries = picker.entries(&app.session.rig);
    let rows = u16::try_from(entries.len().max(1)).unwrap_or(u16::MAX);
    let popup = popup(frame, area, WIDTH, rows.saturating_add(2).max(4));
    let block = Block::bordered()
        .title(format!(
            " Clips ({} of {}); Enter plays, Esc closes ",
            entries.len(),
            app.session.rig.clips.len()
        ))
        .title_bottom(Line::styled(format!(" filter: {}_ ", picker.filter), theme.key))
        .border_style(theme.focus);
    if entries.is_empty() {
        let none = ListItem::new(Line::styled("(no clip matches the filter)", theme.dim));
        frame.render_widget(List::new([none]).block(block), popup);
        return;
    }
    let name_width = entries.iter().map(|e| super::cols(&e.name)).max().unwrap_or(0);
    let items: Vec<ListItem> = entries
        .iter()
        .map(|e| {
            let mut spans = vec![
                Span::raw(format!("{}{} ", e.name, " ".repeat(name_width - super::cols(&e.name)))),
                Span::styled(format!("{:>7.2}s", e.duration), theme.dim),
            ];
            if let Some(file) = &e.file {
                spans.push(Span::styled(format!("  {file}"), theme.label));
            }
            if app.player.clip == Some(e.clip) {
                spans.push(Span::styled("  (playing)", theme.animated));
            }
            ListItem::new(Line::from(spans))
        })
        .collect();
    let mut state = ListState::default().with_selected(Some(picker.cursor.min(entries.len() - 1)));
    let list = List::new(items).block(block).highlight_style(theme.selected).highlight_symbol("▸ ");
    frame.render_stateful_widget(list, popup, &mut state);
}
