//! A tmux server of one test's own, for the real viewer in a real terminal. Its socket lives
//! in a temp folder of its own; dropping the guard kills the server (and with it the shell
//! and viewer in its pane, by SIGHUP) and only then removes the folder, however the test
//! ends: removing the folder first would leave `kill-server` without a socket to reach.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::PATIENCE;

pub struct Tmux {
    socket: PathBuf,
    // Dropped after `Drop::drop` has killed the server.
    dir: (tempfile::TempDir, PathBuf),
}

impl Tmux {
    /// A server-to-be in a fresh folder, or `None` (with a note naming `what`) when tmux is
    /// not installed.
    pub fn new(what: &str) -> Option<Tmux> {
        let ok = Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success());
        if !ok {
            println!("skipping {what}: tmux is not installed");
            return None;
        }
        let dir = super::temp::folder("tmux");
        Some(Tmux { socket: dir.1.join("tmux.sock"), dir })
    }

    /// The folder the socket is in, free for the test's own files.
    pub fn dir(&self) -> &Path {
        &self.dir.1
    }

    /// Runs `tmux ARGS` against this server; its stdout.
    pub fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").arg("-S").arg(&self.socket).args(args).output().expect("tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Starts session `name` of `cols` x `rows` running the shell command `cmd`.
    pub fn start(&self, name: &str, cols: u16, rows: u16, cmd: &str) {
        let (cols, rows) = (cols.to_string(), rows.to_string());
        self.run(&["new-session", "-d", "-s", name, "-x", &cols, "-y", &rows, cmd]);
    }

    /// The pane of session `name` as text, wrapped lines joined.
    pub fn capture(&self, name: &str) -> String {
        self.run(&["capture-pane", "-p", "-J", "-t", name])
    }

    /// Polls the pane until `ok` holds for one capture (a capture can come while a frame is
    /// half written, so every condition is judged on the same one); panics after `PATIENCE`.
    pub fn wait_until(&self, name: &str, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.capture(name);
            if ok(&screen) {
                return screen;
            }
            if start.elapsed() > PATIENCE {
                panic!("{what} never appeared within {PATIENCE:?}:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Polls until every one of `needles` is on one capture.
    pub fn wait_for(&self, name: &str, needles: &[&str]) -> String {
        self.wait_until(name, &format!("{needles:?}"), |s| needles.iter().all(|n| s.contains(n)))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-S").arg(&self.socket).arg("kill-server").output();
    }
}
