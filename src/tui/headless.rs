//! The viewer's screen drawn without a terminal: the full `ui::draw` through ratatui's diff
//! and the crossterm encoder into a writer that only counts bytes, each frame wrapped in
//! synchronised output (DEC 2026) as the real loop does. `rigscope bench` and the criterion
//! benches use it to measure exactly what a terminal would receive.

use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crossterm::QueueableCommand;
use crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

use super::app::App;
use super::ui::{self, ViewportCache};

/// A `Write` that keeps only the count: the terminal's side of the pipe. The count is
/// shared because the backend owns its writer; atomic so that a screen can be drawn on a
/// thread pool (`rigscope bench` times the raster on a one-thread pool).
#[derive(Debug, Default, Clone)]
struct ByteCounter {
    bytes: Arc<AtomicU64>,
}

impl Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes.fetch_add(buf.len() as u64, Ordering::Relaxed);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A fixed-size screen that draws the app and counts the bytes of each frame.
pub struct HeadlessScreen {
    terminal: Terminal<CrosstermBackend<ByteCounter>>,
    bytes: Arc<AtomicU64>,
    cache: ViewportCache,
}

impl HeadlessScreen {
    pub fn new(cols: u16, rows: u16) -> io::Result<HeadlessScreen> {
        let counter = ByteCounter::default();
        let bytes = counter.bytes.clone();
        let options = TerminalOptions { viewport: Viewport::Fixed(Rect::new(0, 0, cols, rows)) };
        let terminal = Terminal::with_options(CrosstermBackend::new(counter), options)?;
        Ok(HeadlessScreen { terminal, bytes, cache: ViewportCache::default() })
    }

    /// Draws one frame of `app` (as posed now) and returns the bytes it sent.
    pub fn draw(&mut self, app: &App) -> io::Result<u64> {
        let before = self.bytes.load(Ordering::Relaxed);
        self.terminal.backend_mut().queue(BeginSynchronizedUpdate)?;
        let cache = &mut self.cache;
        self.terminal.draw(|f| {
            ui::draw(f, app, cache);
        })?;
        self.terminal.backend_mut().queue(EndSynchronizedUpdate)?;
        self.terminal.backend_mut().flush()?;
        Ok(self.bytes.load(Ordering::Relaxed) - before)
    }

    /// The viewport's raster size in dots (pixels) in the last frame.
    pub fn raster_size(&self) -> (usize, usize) {
        self.cache.raster_size()
    }

    /// How long the viewport's raster took in the last frame (ms).
    pub fn raster_ms(&self) -> f32 {
        self.cache.raster_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counter_counts_everything_written() {
        let mut c = ByteCounter::default();
        write!(c, "abc{}", 12).unwrap();
        c.write_all(&[0; 10]).unwrap();
        assert_eq!(c.bytes.load(Ordering::Relaxed), 15);
    }

    #[test]
    fn an_unchanged_screen_sends_only_the_sync_markers() {
        let rig = crate::import::load_bytes(crate::cli::BUNDLED_SAMPLE, "walker.glb", None).unwrap();
        let app = App::new(rig, &crate::tui::Launch { paused: true, ..Default::default() });
        let mut screen = HeadlessScreen::new(100, 30).unwrap();
        let first = screen.draw(&app).unwrap();
        let second = screen.draw(&app).unwrap();
        assert!(first > 3000, "the first frame draws the whole screen: {first} bytes");
        // DEC 2026 begin + end are 8 bytes each; nothing changed, so ratatui sends no cells,
        // only its cursor housekeeping (a few escapes, far below one row of cells).
        assert!((16..64).contains(&second), "an unchanged frame sent {second} bytes");
    }

    #[test]
    fn the_ghost_is_skinned_on_first_show_and_changes_the_screen() {
        let rig = crate::import::load_bytes(crate::cli::BUNDLED_SAMPLE, "walker.glb", None).unwrap();
        let launch = crate::tui::Launch { paused: true, time: 0.4, ..Default::default() };
        let mut app = App::new(rig, &launch);
        let mut screen = HeadlessScreen::new(100, 30).unwrap();
        screen.draw(&app).unwrap();
        let unchanged = screen.draw(&app).unwrap();
        app.update(crate::tui::action::Action::ToggleGhost);
        let with_ghost = screen.draw(&app).unwrap();
        // The walker is mid-stride at 0.4 s, so the bind-pose ghost covers cells the mesh
        // does not: those cells are sent.
        assert!(with_ghost > unchanged + 100, "ghost frame sent {with_ghost} bytes, still {unchanged}");

        let mut eager = crate::anim::Workspace::new(&app.session.rig);
        eager.evaluate_bind(&app.session.rig);
        let lazy = app.bind_pose();
        assert_eq!(lazy.globals, eager.globals);
        for (a, b) in lazy.primitives.iter().zip(&eager.primitives) {
            assert_eq!(a.positions, b.positions);
        }
    }
}
