//! The full-screen viewer: the only module that touches ratatui and crossterm.
//!
//! crossterm `Event` -> `keymap` -> `Action` -> `App::update` -> `ui::draw(&App)`.

pub mod action;
pub mod app;
mod event_loop;
pub mod keymap;
mod terminal;
pub mod tree;
pub mod ui;
pub mod weights;

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

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

/// Opens the viewer on `rig` and returns when the user quits (or SIGTERM/SIGHUP arrives).
pub fn run(rig: Rig, launch: &Launch) -> Result<(), TuiError> {
    if !std::io::stdout().is_terminal() {
        return Err(TuiError::NotATerminal);
    }
    let stop = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP] {
        signal_hook::flag::register(sig, stop.clone())?;
    }
    let mut app = App::new(rig, launch);
    let (mut terminal, guard, written) = terminal::Guard::enter()?;
    let result = event_loop::run(&mut terminal, &mut app, &written, &stop);
    drop(guard);
    result.map_err(TuiError::from)
}
