//! Entering and leaving the full-screen terminal. The terminal is restored on every exit
//! path: normal return (the guard's `Drop`), an error (the guard is dropped while unwinding
//! the `?`), and a panic (the hook restores before the panic report prints).

use std::io::{self, BufWriter, Stdout, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crossterm::event::DisableMouseCapture;
use crossterm::execute;
use crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// Buffered stdout that counts the bytes written, so the viewer can show bytes per frame.
/// The buffer holds a whole frame (a 200x60 frame is ~10 KB; std's own stdout buffer is
/// 1 KB), so a frame leaves in a couple of writes when flushed, not in ten.
pub struct CountingStdout {
    inner: BufWriter<Stdout>,
    pub written: Arc<AtomicU64>,
}

impl Write for CountingStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

const FRAME_BUFFER: usize = 64 * 1024;

pub type Term = Terminal<CrosstermBackend<CountingStdout>>;

/// Mouse reporting of clicks, the wheel and motion only while a button is held (`?1002h`
/// button-event tracking), in SGR encoding (`?1006h`). crossterm's `EnableMouseCapture` also
/// turns on any-motion tracking (`?1003h`): every move of an idle pointer then crosses the
/// link as a report, which over SSH costs bytes and wakes the viewer for nothing; dragging
/// (orbit, scrub) is all the viewer reads motion for. `DisableMouseCapture` turns off every
/// mode, this one included.
pub struct ButtonMouseCapture;

/// The bytes `ButtonMouseCapture` writes: normal tracking (`?1000h`), button-event tracking
/// (`?1002h`), SGR coordinates (`?1006h`).
const BUTTON_MOUSE_CAPTURE: &str = "\x1b[?1000h\x1b[?1002h\x1b[?1006h";

impl crossterm::Command for ButtonMouseCapture {
    fn write_ansi(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        f.write_str(BUTTON_MOUSE_CAPTURE)
    }

    /// The Windows console has one mouse input mode, whatever the tracking asked for.
    #[cfg(windows)]
    fn execute_winapi(&self) -> io::Result<()> {
        crossterm::event::EnableMouseCapture.execute_winapi()
    }

    #[cfg(windows)]
    fn is_ansi_code_supported(&self) -> bool {
        crossterm::event::EnableMouseCapture.is_ansi_code_supported()
    }
}

/// Restores the terminal when dropped.
pub struct Guard;

impl Guard {
    /// Switches to the alternate screen in raw mode, with mouse reporting when `mouse`.
    pub fn enter(mouse: bool) -> io::Result<(Term, Guard, Arc<AtomicU64>)> {
        install_panic_hook();
        enable_raw_mode()?;
        let guard = Guard;
        execute!(io::stdout(), EnterAlternateScreen)?;
        if mouse {
            execute!(io::stdout(), ButtonMouseCapture)?;
        }
        let written = Arc::new(AtomicU64::new(0));
        let inner = BufWriter::with_capacity(FRAME_BUFFER, io::stdout());
        let out = CountingStdout { inner, written: written.clone() };
        let mut terminal = Terminal::new(CrosstermBackend::new(out))?;
        terminal.hide_cursor()?;
        // Cleared directly: ratatui's `Terminal::clear` first asks where the cursor is, and
        // a terminal that never answers would stop the viewer before its first frame.
        execute!(terminal.backend_mut(), Clear(ClearType::All))?;
        Ok((terminal, guard, written))
    }
}

/// Asks the terminal where its cursor is and waits for the oldest answer not yet read,
/// which comes after everything written before its question has been shown: the round trip
/// of a frame. Fails when no answer comes within crossterm's wait (2 s), as from a terminal
/// that never answers. Keys typed meanwhile stay queued for the event loop.
///
/// crossterm reads the answer (`ESC[row;colR`) itself and never hands it out as a key; the
/// same bytes from Shift+F3 and the like are taken as an answer too, so crossterm never
/// reports those keys anyway. Device attributes (`ESC[c`) would be unambiguous, but crossterm
/// offers no way to wait for that answer.
pub fn round_trip() -> io::Result<()> {
    crossterm::cursor::position().map(|_| ())
}

/// Asks where the cursor is without waiting: a later `round_trip` reads the answer, so one
/// more frame can be in flight meanwhile.
pub fn ask(out: &mut impl Write) -> io::Result<()> {
    out.write_all(b"\x1b[6n")?;
    out.flush()
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Leaves raw mode, the alternate screen and mouse reporting; shows the cursor. Idempotent.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(io::stdout(), DisableMouseCapture, LeaveAlternateScreen, crossterm::cursor::Show);
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The escape codes that go out: button-event tracking, never any-motion (`?1003h`).
    #[test]
    fn mouse_capture_tracks_motion_only_while_a_button_is_down() {
        let mut out = String::new();
        crossterm::Command::write_ansi(&ButtonMouseCapture, &mut out).expect("write");
        assert_eq!(out, "\u{1b}[?1000h\u{1b}[?1002h\u{1b}[?1006h");
        assert!(!out.contains("?1003h"));
    }
}
