//! How the panels read: which has focus, where the details and weights panels are scrolled
//! (within what the last frame measured), how values and curves are written; and the
//! overlays that take the keys while they are open (help, a prompt, the clip picker).

use super::{Schedule, Status};
use crate::rig::Rig;
use crate::tui::action::{Action, Focus, Measured};
use crate::tui::clip_picker::ClipPicker;
use crate::tui::prompt::Prompt;

#[derive(Debug, Clone, PartialEq)]
pub struct Panels {
    pub focus: Focus,
    pub show_stats: bool,
    /// First line of the details panel shown (clamped when drawn).
    pub details_scroll: u16,
    /// The same for the focused weights panel's part below its problem list.
    pub weights_scroll: u16,
    /// What the last frame measured (no scroll limit before the first one).
    pub measured: Limits,
    /// Values with every digit (`{:?}` of the f32) instead of 3 or 4 decimals.
    pub full_precision: bool,
    /// The keyframes panel plots this one of the selected bone's channels (None: the dope sheet).
    pub curves: Option<usize>,
    /// Rotation curves as Euler angles (`ui::curves::EULER`) rather than quaternion components.
    pub euler: bool,
}

/// The scroll limits and viewport size of the last frame drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub details_max: u16,
    pub weights_max: u16,
    /// The viewport's size in cells (for the `rigscope render` command line).
    pub viewport_cells: (u16, u16),
}

impl Default for Panels {
    fn default() -> Self {
        Panels {
            focus: Focus::Bones,
            show_stats: false,
            details_scroll: 0,
            weights_scroll: 0,
            measured: Limits { details_max: u16::MAX, weights_max: u16::MAX, viewport_cells: (120, 40) },
            full_precision: false,
            curves: None,
            euler: false,
        }
    }
}

impl Panels {
    /// `channels`: how many channels the selected bone has in the current clip (what `G` steps through).
    pub fn update(&mut self, action: Action, channels: usize, status: &mut Status) {
        match action {
            Action::FocusNext => {
                let i = Focus::ALL.iter().position(|&f| f == self.focus).unwrap_or(0);
                self.focus = Focus::ALL[(i + 1) % Focus::ALL.len()];
            }
            Action::Focus(f) => self.focus = f,
            Action::ToggleStats => self.show_stats = !self.show_stats,
            // The focused weights panel takes the details panel's column, and its keys.
            Action::ScrollDetails(n) if self.focus == Focus::Weights => {
                self.weights_scroll = scrolled(self.weights_scroll, n, self.measured.weights_max);
            }
            Action::ScrollDetails(n) => {
                self.details_scroll = scrolled(self.details_scroll, n, self.measured.details_max);
            }
            Action::TogglePrecision => self.full_precision = !self.full_precision,
            Action::ToggleEuler => {
                self.euler = !self.euler;
                if self.curves.is_none() {
                    status.say(format!(
                        "rotation curves as {} (G shows the curves)",
                        if self.euler { "Euler angles" } else { "quaternion components" }
                    ));
                }
            }
            // Each press plots the bone's next channel; after the last, the dope sheet.
            Action::ToggleCurves => {
                self.curves = match self.curves {
                    None => Some(0),
                    Some(i) if i + 1 < channels => Some(i + 1),
                    Some(_) => None,
                };
            }
            _ => {}
        }
    }

    /// A frame is drawn: nothing is left to draw, and what it measured is the limit the
    /// scroll keys keep to. A panel not drawn in it keeps the limit it had.
    pub(super) fn measure(&mut self, m: Measured, schedule: &mut Schedule) {
        schedule.dirty = false;
        self.measured.details_max = m.details_max.unwrap_or(self.measured.details_max);
        self.measured.weights_max = m.weights_max.unwrap_or(self.measured.weights_max);
        self.measured.viewport_cells = m.viewport_cells;
    }
}

fn scrolled(scroll: u16, by: i16, max: u16) -> u16 {
    scroll.min(max).saturating_add_signed(by).min(max)
}

/// What takes the keys while it is open (see `keymap::action_for_app`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overlays {
    pub help: bool,
    /// First line of the help overlay shown (clamped when drawn).
    pub help_scroll: u16,
    /// A line being typed at the bottom of the screen.
    pub prompt: Option<Prompt>,
    /// The clip picker's overlay, while it is open (`K`).
    pub picker: Option<ClipPicker>,
}

impl Overlays {
    pub fn update(&mut self, action: Action, rig: &Rig, status: &mut Status) {
        match action {
            Action::ToggleHelp => {
                self.help = !self.help;
                self.help_scroll = 0;
            }
            Action::HelpScroll(n) => self.help_scroll = self.help_scroll.saturating_add_signed(n),
            Action::PromptChar(c) => self.prompt.iter_mut().for_each(|p| p.text.push(c)),
            Action::PromptBackspace => {
                if let Some(p) = &mut self.prompt {
                    p.text.pop();
                }
            }
            Action::PromptCancel => self.prompt = None,
            Action::ToggleClipPicker => {
                self.picker = match self.picker {
                    Some(_) => None,
                    None if rig.clips.is_empty() => {
                        status.say("this file has no clips");
                        None
                    }
                    None => Some(ClipPicker::default()),
                };
            }
            Action::PickerChar(c) => {
                if let Some(p) = &mut self.picker {
                    p.filter.push(c);
                    p.cursor = 0;
                }
            }
            Action::PickerBackspace => {
                if let Some(p) = &mut self.picker {
                    p.filter.pop();
                    p.cursor = 0;
                }
            }
            Action::PickerMove(delta) => {
                if let Some(p) = &mut self.picker {
                    let n = p.entries(rig).len();
                    p.move_cursor(delta, n);
                }
            }
            _ => {}
        }
    }
}
