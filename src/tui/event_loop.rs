//! The animation player's loop: draw only if something changed, wait for input until the
//! next frame deadline, drain every pending event, then advance playback by the real `dt`.
//! Paused and idle, it sleeps in `poll` and draws nothing.

use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crossterm::QueueableCommand;
use crossterm::event::{self, Event, KeyEventKind};
use crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};

use super::action::Action;
use super::app::App;
use super::keymap;
use super::terminal::Term;
use super::ui::{self, Areas, MouseState, ViewportCache};
use super::watch::Watch;

/// How long an idle wait lasts before checking for a termination signal again.
const IDLE_POLL: Duration = Duration::from_millis(250);
/// A stall (a suspended process, a slow terminal) never jumps the clip further than this.
const MAX_DT: f32 = 0.25;

pub fn run(
    terminal: &mut Term,
    app: &mut App,
    written: &AtomicU64,
    stop: &Arc<AtomicUsize>,
    watch: Option<&Watch>,
) -> io::Result<()> {
    let frame = Duration::from_secs_f64(1.0 / app.fps as f64);
    let mut cache = ViewportCache::default();
    let mut areas = Areas::default();
    let mut mouse = MouseState::default();
    let mut last_tick = Instant::now();
    let mut last_draw = Instant::now();
    while !app.quit && stop.load(Ordering::Relaxed) == 0 {
        if app.dirty {
            let started = Instant::now();
            let before = written.load(Ordering::Relaxed);
            // The markers go through the terminal's own buffered writer, so a frame leaves
            // in two writes (ratatui flushes after the cells, then the end marker) rather
            // than a write per kilobyte.
            terminal.backend_mut().queue(BeginSynchronizedUpdate)?;
            let mut t = app.evaluate();
            terminal.draw(|f| areas = ui::draw(f, app, &mut cache))?;
            terminal.backend_mut().queue(EndSynchronizedUpdate)?;
            terminal.backend_mut().flush()?;
            app.dirty = false;
            t.raster_ms = cache.raster_ms;
            t.frame_ms = started.elapsed().as_secs_f32() * 1000.0;
            t.draw_ms = (t.frame_ms - t.sample_ms - t.pose_ms - t.skin_ms - t.raster_ms).max(0.0);
            t.bytes = written.load(Ordering::Relaxed) - before;
            let since = last_draw.elapsed().as_secs_f32();
            t.fps = if since > 0.0 { 1.0 / since } else { 0.0 };
            app.timings = t;
            last_draw = Instant::now();
        }
        let timeout = if app.is_playing() {
            (last_tick + frame).saturating_duration_since(Instant::now())
        } else {
            IDLE_POLL
        };
        if event::poll(timeout)? {
            loop {
                if let Some(action) = translate(event::read()?, app, &areas, &mut mouse) {
                    app.update(action);
                }
                if !event::poll(Duration::ZERO)? {
                    break;
                }
            }
        }
        if let Some(w) = watch {
            w.apply_pending(app);
        }
        let now = Instant::now();
        if app.is_playing() {
            if now >= last_tick + frame {
                let dt = (now - last_tick).as_secs_f32().min(MAX_DT);
                app.update(Action::Tick(dt));
                last_tick = now;
            }
        } else {
            last_tick = now;
        }
    }
    Ok(())
}

fn translate(ev: Event, app: &App, areas: &Areas, mouse: &mut MouseState) -> Option<Action> {
    match ev {
        Event::Key(k) if k.kind != KeyEventKind::Release => {
            keymap::action_for(&k, app.focus, app.tree.filtering, app.show_help)
        }
        Event::Mouse(m) => ui::mouse_action(areas, app, m, mouse),
        // A resize needs a redraw; `ToggleHelp` twice would be a hack, so say it plainly.
        Event::Resize(..) => Some(Action::Redraw),
        _ => None,
    }
}
