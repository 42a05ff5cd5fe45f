//! The full-screen viewer: the only module that touches ratatui and crossterm.
//!
//! crossterm `Event` -> `keymap` -> `Action` -> `App::update` -> `ui::draw(&App)`.

pub mod action;
pub mod app;
pub mod compare;
mod copy;
mod event_loop;
pub mod frames;
pub mod headless;
pub mod keymap;
pub mod link;
mod navigate;
pub mod prompt;
mod terminal;
pub mod tree;
pub mod ui;
pub mod weights;

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub use app::{App, Launch};

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
    let (mut terminal, guard, written) = terminal::Guard::enter(launch.mouse)?;
    let result = event_loop::run(&mut terminal, &mut app, &written, &stop);
    drop(guard);
    done.store(true, Ordering::SeqCst);
    result.map_err(TuiError::from)?;
    Ok(match stop.load(Ordering::SeqCst) {
        0 => None,
        sig => Some(sig as i32),
    })
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
