//! The animation player's loop: draw only if something changed, wait for input until the
//! next frame deadline, drain every pending event, then advance playback by the real `dt`.
//! Paused and idle, it sleeps in `poll` and draws nothing.
//!
//! Each frame is followed by a question the terminal answers once it has shown the frame,
//! and the next frame waits for that answer (see `link`): on a slow link the frame rate drops
//! to what the link carries, frames are skipped rather than queued, and a key shows in the
//! next frame. A terminal that does not answer is paced by the clock alone.

use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crossterm::QueueableCommand;
use crossterm::event::{self, Event, KeyEventKind};
use crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};

use super::action::Action;
use super::app::App;
use super::delivered::Delivered;
use super::keymap;
use super::link::{Answers, Link};
use super::terminal::{self, Term};
use super::ui::{self, Areas, MouseState, ViewportCache};
use super::watch::Watch;

/// How long an idle wait lasts before checking for a termination signal again.
const IDLE_POLL: Duration = Duration::from_millis(250);

pub fn run(
    terminal: &mut Term,
    app: &mut App,
    written: &AtomicU64,
    stop: &Arc<AtomicUsize>,
    watch: Option<&Watch>,
) -> io::Result<()> {
    let frame = Duration::from_secs_f64(1.0 / app.schedule.fps as f64);
    let mut cache = ViewportCache::default();
    let mut areas = Areas::default();
    let mut mouse = MouseState::default();
    let mut last_tick = Instant::now();
    let mut link = Link::new(frame);
    let mut delivered = Delivered::default();
    while !app.schedule.quit && stop.load(Ordering::Relaxed) == 0 {
        if app.schedule.dirty {
            let started = Instant::now();
            let before = written.load(Ordering::Relaxed);
            // The markers go through the terminal's own buffered writer, so a frame leaves
            // in two writes (ratatui flushes after the cells, then the end marker) rather
            // than a write per kilobyte.
            terminal.backend_mut().queue(BeginSynchronizedUpdate)?;
            let mut t = app.evaluate();
            let mut measured = None;
            terminal.draw(|f| {
                let drawn = ui::draw(f, app, &mut cache);
                areas = drawn.areas;
                measured = Some(drawn.measured);
            })?;
            terminal.backend_mut().queue(EndSynchronizedUpdate)?;
            terminal.backend_mut().flush()?;
            // The frame is out: what it measured bounds the next scroll keys.
            if let Some(m) = measured {
                app.update(Action::Measured(m));
            }
            t.raster_ms = cache.raster_ms;
            t.frame_ms = started.elapsed().as_secs_f32() * 1000.0;
            t.draw_ms = (t.frame_ms - t.sample_ms - t.pose_ms - t.skin_ms - t.raster_ms).max(0.0);
            t.bytes = written.load(Ordering::Relaxed) - before;
            if link.asks() {
                let sent = Instant::now();
                link.asked(sent, t.bytes);
                if link.wants_extra() {
                    // One more question stays outstanding from now on: the wait below ends
                    // at the answer one frame further back, so one more frame is in flight.
                    terminal::ask(terminal.backend_mut())?;
                    link.asked_extra(sent);
                }
                match terminal::round_trip() {
                    Ok(()) => link.answered(Instant::now()),
                    Err(_) => link.unanswered(),
                }
            }
            // Counted once the frame is out (and, on a terminal that answers, shown).
            delivered.wrote(Instant::now(), t.bytes);
            t.fps = delivered.fps().unwrap_or(0.0);
            // The link's pacing comes from its fitted estimate; what it shows is what went out.
            t.link = link.stats().map(|mut s| {
                s.fps = t.fps;
                s.bytes_per_s = delivered.bytes_per_s();
                s
            });
            t.unanswered = link.answers() == Answers::No;
            app.update(Action::Timed(t));
        }
        let timeout = if app.is_playing() {
            (last_tick + frame).saturating_duration_since(Instant::now())
        } else {
            IDLE_POLL
        };
        if event::poll(timeout)? {
            loop {
                let action = translate(event::read()?, app, &areas, &mut mouse);
                if action == Some(Action::Interrupt) {
                    stop.store(SIGINT, Ordering::SeqCst);
                    break;
                }
                if let Some(action) = action {
                    app.update(action);
                }
                if !event::poll(Duration::ZERO)? {
                    break;
                }
            }
        }
        if let Some(text) = app.take_clipboard() {
            // The terminal puts it on the clipboard (OSC 52), wherever the viewer runs.
            terminal.backend_mut().write_all(super::copy::osc52(&text).as_bytes())?;
            terminal.backend_mut().flush()?;
        }
        if let Some(w) = watch {
            w.apply_pending(app);
        }
        let now = Instant::now();
        if app.is_playing() {
            if now >= last_tick + frame {
                let dt = (now - last_tick).as_secs_f32().min(link.max_dt());
                app.update(Action::Tick(dt));
                last_tick = now;
            }
        } else {
            last_tick = now;
        }
    }
    read_late_answers(&link)
}

/// Answers to questions still outstanding at the end would arrive after the terminal is
/// restored and show up in the shell as typed text (`^[[12;1R`): read them first. crossterm
/// keeps an answer to itself, so the wait is for as long as one takes, not until each is seen.
fn read_late_answers(link: &Link) -> io::Result<()> {
    let Some(wait) = link.late_answers_within() else { return Ok(()) };
    let until = Instant::now() + wait;
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        if event::poll(left)? {
            event::read()?;
        }
    }
    Ok(())
}

/// SIGINT's number on every platform that has it; `run` reports it as the signal that
/// ended the viewer.
const SIGINT: usize = 2;

fn translate(ev: Event, app: &App, areas: &Areas, mouse: &mut MouseState) -> Option<Action> {
    match ev {
        Event::Key(k) if k.kind != KeyEventKind::Release => keymap::action_for_app(&k, app),
        Event::Mouse(m) => ui::mouse_action(areas, app, m, mouse),
        // A resize needs a redraw; `ToggleHelp` twice would be a hack, so say it plainly.
        Event::Resize(..) => Some(Action::Redraw),
        _ => None,
    }
}
