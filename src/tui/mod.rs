//! The full-screen viewer: the only module that touches ratatui and crossterm.
//!
//! crossterm `Event` -> `keymap` -> `Action` -> `App::update` -> `ui::draw(&App)`, whose
//! measurements go back to `App::update` as an `Action`.

pub mod action;
pub mod app;
pub mod clip_picker;
pub mod compare;
mod copy;
pub mod delivered;
mod event_loop;
pub mod expression;
pub mod frames;
pub mod headless;
pub mod keymap;
pub mod link;
mod merge_key;
mod navigate;
pub mod problems;
pub mod prompt;
pub mod rules;
pub mod source_ghost;
mod terminal;
pub mod tree;
pub mod ui;
pub mod vertex_view;
pub mod watch;
pub mod weights;

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub use app::{App, Launch, Session};

use crate::rig::Rig;

/// Why the viewer could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error(
        "stdout is not a terminal: the viewer needs one (use `rigscope render FILE` for a frame as text)"
    )]
    NotATerminal,
    #[error("terminal error: {0}")]
    Io(#[from] std::io::Error),
}

/// Opens the viewer on `rig` and returns when the user quits. Returns the signal number when
/// SIGTERM or SIGHUP ended it, or SIGINT for Ctrl-C (the caller exits with 128 + that number,
/// as shells expect).
pub fn run(rig: Rig, launch: &Launch) -> Result<Option<i32>, TuiError> {
    if !std::io::stdout().is_terminal() {
        return Err(TuiError::NotATerminal);
    }
    let stop = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    watch_signals(stop.clone(), done.clone())?;
    let mut app = App::new(rig, launch);
    let watch = start_watch(launch, &mut app);
    let (mut terminal, guard, written) = terminal::Guard::enter(launch.mouse)?;
    let result = event_loop::run(&mut terminal, &mut app, &written, &stop, watch.as_ref());
    drop(guard);
    done.store(true, Ordering::SeqCst);
    result.map_err(TuiError::from)?;
    Ok(match stop.load(Ordering::SeqCst) {
        0 => None,
        sig => Some(sig as i32),
    })
}

/// Starts live reload when asked for. A watch that cannot start is a note in the status bar,
/// not a reason to refuse to show the file.
fn start_watch(launch: &Launch, app: &mut App) -> Option<watch::Watch> {
    let file = launch.watch.as_deref()?;
    match watch::Watch::start(file, launch, wake_event_loop) {
        Ok(w) => Some(w),
        Err(why) => {
            app.not_watching(&why);
            None
        }
    }
}

/// Wakes the event loop from its idle wait so that a reload shows at once: crossterm's wait
/// also listens for SIGWINCH (a resize), which redraws and changes nothing else. Elsewhere
/// the loop sees the reload when its idle wait ends.
fn wake_event_loop() {
    #[cfg(unix)]
    let _ = signal_hook::low_level::raise(signal_hook::consts::SIGWINCH);
}

/// How long the loop gets to notice a termination signal and leave cleanly.
#[cfg(unix)]
const GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// SIGTERM and SIGHUP ask the loop to stop. When the terminal is gone (a closed SSH session,
/// a killed tmux pane) the input reader can be stuck reading end-of-file and never return to
/// the loop, so after a grace period this thread restores what it can and exits itself.
#[cfg(unix)]
fn watch_signals(stop: Arc<AtomicUsize>, done: Arc<AtomicBool>) -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP])?;
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            stop.store(sig as usize, Ordering::SeqCst);
            std::thread::sleep(GRACE);
            if !done.load(Ordering::SeqCst) {
                terminal::restore();
                std::process::exit(128 + sig);
            }
        }
    });
    Ok(())
}
