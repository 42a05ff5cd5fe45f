//! Colours and emphasis in one place. Without colour (`NO_COLOR`, `--color never`) every
//! style keeps only its modifiers (bold, reverse, dim), so the screen still reads.

use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub color: bool,
    pub border: Style,
    pub focus: Style,
    pub title: Style,
    pub dim: Style,
    pub selected: Style,
    pub key: Style,
    pub playhead: Style,
    pub animated: Style,
    pub warning: Style,
    pub error: Style,
    pub ok: Style,
    pub label: Style,
}

impl Theme {
    pub fn new(color: bool) -> Theme {
        let c = |style: Style, fg: Color| if color { style.fg(fg) } else { style };
        Theme {
            color,
            border: c(Style::new(), Color::DarkGray),
            focus: c(Style::new().add_modifier(Modifier::BOLD), Color::Cyan),
            title: Style::new().add_modifier(Modifier::BOLD),
            dim: c(Style::new().add_modifier(Modifier::DIM), Color::DarkGray),
            selected: Style::new().add_modifier(Modifier::REVERSED),
            key: c(Style::new(), Color::Yellow),
            playhead: c(Style::new().add_modifier(Modifier::BOLD), Color::Red),
            animated: c(Style::new(), Color::Green),
            warning: c(Style::new().add_modifier(Modifier::BOLD), Color::Yellow),
            error: c(Style::new().add_modifier(Modifier::BOLD), Color::Red),
            ok: c(Style::new(), Color::Green),
            label: c(Style::new(), Color::Gray),
        }
    }
}
