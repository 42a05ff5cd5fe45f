//! What the app says back (the status line's message, the note about the file, the last
//! frame's timings, text for the clipboard) and what the event loop is to do next.

use super::Timings;
use crate::tui::action::Action;

/// The status bar's line about the file: what the last reload changed, or why it failed.
#[derive(Debug, Clone, PartialEq)]
pub struct FileNote {
    pub text: String,
    /// The file on disk is broken: the viewer still shows the last good load.
    pub error: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Status {
    /// One line of feedback for the status bar ("no keys on this bone").
    pub message: Option<String>,
    /// What the last live reload (or `M`) did, or why it failed (kept until the next key).
    pub file_note: Option<FileNote>,
    /// The last frame that was completely drawn: the status bar shows it whole, rather than
    /// this frame's stages beside the previous frame's raster and total.
    pub timings: Timings,
    /// Text for the terminal's clipboard: the event loop sends it (OSC 52), see `App::take_clipboard`.
    pub clipboard: Option<String>,
}

impl Status {
    pub fn say(&mut self, text: impl Into<String>) {
        self.message = Some(text.into());
    }

    /// Before each action: the last message answered the last key. A reload's summary is
    /// read once; a broken file's error stays until a good load.
    pub fn update(&mut self, action: Action) {
        self.message = None;
        if !matches!(action, Action::Tick(_) | Action::Redraw)
            && self.file_note.as_ref().is_some_and(|n| !n.error)
        {
            self.file_note = None;
        }
    }
}

/// What the event loop does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// Frames per second while playing.
    pub fps: u32,
    pub quit: bool,
    /// Something visible changed: redraw.
    pub dirty: bool,
    /// The pose must be evaluated again before drawing.
    pub pose_dirty: bool,
}
