//! The viewer over a simulated slow link: the real binary in a pty, its output through a
//! relay that buffers up to 2 MiB (as OpenSSH's channel window does) and delivers at a set
//! rate and delay to a terminal emulator (`vt100`) that answers cursor-position questions
//! as a terminal does; keys and answers travel back with the same delay.
//!
//! The measurement (key-to-screen latency, frames delivered) is an ignored test, run by hand:
//!
//! ```text
//! cargo build --release
//! RIGSCOPE_ASSETS=../shared/assets RIGSCOPE_BIN=target/release/rigscope \
//!   SLOW_LINK_KBIT=1000 cargo test --test it slow_link_measure -- --ignored --nocapture
//! ```
//!
//! The test that always runs is the one a slow link cannot break: a terminal that never
//! answers still gets a viewer that starts, plays and quits.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::sync::{Arc, Condvar, Mutex, mpsc};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// The link between the viewer and the terminal.
#[derive(Debug, Clone, Copy)]
pub struct LinkSpec {
    /// Bits per second each way; `None` for no limit.
    pub bits_per_s: Option<u64>,
    pub rtt: Duration,
    /// Bytes the relay holds before the viewer's writes block.
    pub buffer: usize,
    /// Whether the terminal answers cursor-position questions.
    pub answers: bool,
}

/// What the emulator shows and what it has counted, shared with the relay's threads.
struct Screen {
    parser: vt100::Parser<Answerer>,
    /// Frames seen: the end of each synchronized update (`ESC[?2026l`).
    frames: usize,
    /// The tail of the last delivered bytes, so a marker split between two pieces counts.
    tail: Vec<u8>,
    /// Bytes delivered to the emulator.
    delivered: u64,
    /// The viewer's side of the pty has closed and every byte it wrote has been delivered.
    closed: bool,
}

/// Collects the answers the emulator owes: a cursor-position report for each `ESC[6n`.
struct Answerer {
    answers: bool,
    pending: Vec<u8>,
}

impl vt100::Callbacks for Answerer {
    fn unhandled_csi(
        &mut self,
        screen: &mut vt100::Screen,
        i1: Option<u8>,
        _i2: Option<u8>,
        params: &[&[u16]],
        c: char,
    ) {
        if self.answers && c == 'n' && i1.is_none() && params.first().is_some_and(|p| p.first() == Some(&6)) {
            let (row, col) = screen.cursor_position();
            self.pending.extend_from_slice(format!("\x1b[{};{}R", row + 1, col + 1).as_bytes());
        }
    }
}

const SYNC_END: &[u8] = b"\x1b[?2026l";

/// The viewer running behind the link.
pub struct Session {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    screen: Arc<Mutex<Screen>>,
    uplink: mpsc::Sender<(Instant, Vec<u8>)>,
    rtt: Duration,
}

impl Session {
    /// Starts `bin args` in a `cols` x `rows` pty behind `link`.
    pub fn start(bin: &str, args: &[&str], cols: u16, rows: u16, link: LinkSpec) -> Session {
        let pty = native_pty_system()
            .openpty(PtySize { rows, cols, pixel_width: 0, pixel_height: 0 })
            .expect("a pty");
        let mut cmd = CommandBuilder::new(bin);
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        cmd.env("COLORTERM", "truecolor");
        cmd.env_remove("NO_COLOR");
        let child = pty.slave.spawn_command(cmd).expect("the viewer starts");
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().expect("pty reader");
        let mut writer = pty.master.take_writer().expect("pty writer");
        let parser = vt100::Parser::new_with_callbacks(
            rows.try_into().expect("rows > 0"),
            cols.try_into().expect("cols > 0"),
            0,
            Answerer { answers: link.answers, pending: Vec::new() },
        );
        let screen =
            Arc::new(Mutex::new(Screen { parser, frames: 0, tail: Vec::new(), delivered: 0, closed: false }));
        let per_byte = link.bits_per_s.map(|b| Duration::from_secs_f64(8.0 / b as f64));
        let half = link.rtt / 2;

        // The relay: what the viewer wrote and the link has not yet carried.
        let relay = Arc::new((Mutex::new((VecDeque::<u8>::new(), false)), Condvar::new()));
        {
            let relay = relay.clone();
            let cap = link.buffer;
            std::thread::spawn(move || {
                let mut buf = [0u8; 16 * 1024];
                loop {
                    let n = match reader.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    let (lock, cv) = &*relay;
                    let mut q = lock.lock().expect("relay");
                    // A full relay stops reading, so the viewer's writes block as over SSH.
                    while q.0.len() >= cap {
                        q = cv.wait(q).expect("relay");
                    }
                    q.0.extend(&buf[..n]);
                    cv.notify_all();
                }
                let (lock, cv) = &*relay;
                lock.lock().expect("relay").1 = true;
                cv.notify_all();
            });
        }
        // The uplink: keys and answers, each delivered half a round trip after it was sent.
        let (uplink, up_rx) = mpsc::channel::<(Instant, Vec<u8>)>();
        std::thread::spawn(move || {
            for (due, bytes) in up_rx {
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
                if writer.write_all(&bytes).and_then(|()| writer.flush()).is_err() {
                    break;
                }
            }
        });
        // The downlink: pieces leave the relay at the link's rate and reach the terminal half
        // a round trip later.
        let (wire, wire_rx) = mpsc::channel::<(Instant, Vec<u8>)>();
        {
            let relay = relay.clone();
            std::thread::spawn(move || {
                const PIECE: usize = 1024;
                let mut free_at = Instant::now();
                loop {
                    let piece: Vec<u8> = {
                        let (lock, cv) = &*relay;
                        let mut q = lock.lock().expect("relay");
                        while q.0.is_empty() && !q.1 {
                            q = cv.wait(q).expect("relay");
                        }
                        if q.0.is_empty() {
                            break;
                        }
                        let n = q.0.len().min(PIECE);
                        let piece = q.0.drain(..n).collect();
                        cv.notify_all();
                        piece
                    };
                    let now = Instant::now();
                    free_at = free_at.max(now);
                    if let Some(per_byte) = per_byte {
                        free_at += per_byte * piece.len() as u32;
                        std::thread::sleep(free_at.saturating_duration_since(Instant::now()));
                    }
                    if wire.send((free_at + half, piece)).is_err() {
                        break;
                    }
                }
            });
        }
        {
            let screen = screen.clone();
            let uplink = uplink.clone();
            std::thread::spawn(move || {
                for (due, piece) in wire_rx {
                    std::thread::sleep(due.saturating_duration_since(Instant::now()));
                    let mut s = screen.lock().expect("screen");
                    s.parser.process(&piece);
                    s.delivered += piece.len() as u64;
                    let mut scan = std::mem::take(&mut s.tail);
                    scan.extend_from_slice(&piece);
                    s.frames += scan.windows(SYNC_END.len()).filter(|w| *w == SYNC_END).count();
                    s.tail = scan[scan.len().saturating_sub(SYNC_END.len() - 1)..].to_vec();
                    let answer = std::mem::take(&mut s.parser.callbacks_mut().pending);
                    if !answer.is_empty() && uplink.send((Instant::now() + half, answer)).is_err() {
                        break;
                    }
                }
                screen.lock().expect("screen").closed = true;
            });
        }
        Session { child, screen, uplink, rtt: link.rtt }
    }

    /// The viewer's process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.process_id()
    }

    /// Types `bytes` at the terminal; returns when they were typed.
    pub fn send(&self, bytes: &[u8]) -> Instant {
        let now = Instant::now();
        let _ = self.uplink.send((now + self.rtt / 2, bytes.to_vec()));
        now
    }

    pub fn contents(&self) -> String {
        self.screen.lock().expect("screen").parser.screen().contents()
    }

    /// (frames, bytes) delivered so far.
    pub fn delivered(&self) -> (usize, u64) {
        let s = self.screen.lock().expect("screen");
        (s.frames, s.delivered)
    }

    /// Waits until the screen satisfies `ok`; returns how long that took, or `None` after `limit`.
    pub fn wait_for(&self, limit: Duration, ok: impl Fn(&str) -> bool) -> Option<Duration> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if ok(&self.contents()) {
                return Some(start.elapsed());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        None
    }

    /// Waits until the viewer's side of the pty has closed (it exited) and everything it
    /// wrote has reached the screen; whether that happened within `limit`.
    pub fn wait_closed(&self, limit: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < limit {
            if self.screen.lock().expect("screen").closed {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    /// Waits up to `limit` for the viewer to exit; its exit code, or `None` (then it is killed).
    pub fn exit(mut self, limit: Duration) -> Option<u32> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status.exit_code());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        None
    }
}

/// A viewer still running when its session ends (a failed assertion, a test that reaped it
/// itself) is killed, so no test leaves one behind.
impl Drop for Session {
    fn drop(&mut self) {
        // `Ok(None)`: still ours and running. A child reaped elsewhere (`wait4`) answers
        // with an error, and its pid is not signalled: it may belong to another process now.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `(k/n)` as the status bar writes the current clip: the last such pair on `screen`.
fn clip_position(screen: &str) -> Option<(usize, usize)> {
    let pair = |s: &str| -> Option<(usize, usize)> {
        let (inner, _) = s.split_once(')')?;
        let (k, n) = inner.split_once('/')?;
        Some((k.parse().ok()?, n.parse().ok()?))
    };
    screen.match_indices('(').filter_map(|(i, _)| pair(&screen[i + 1..])).next_back()
}

/// The binary to run: RIGSCOPE_BIN (to measure another build), else this test build's.
fn viewer_bin() -> String {
    std::env::var("RIGSCOPE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_rigscope").into())
}

/// A terminal that never answers (a serial console, a recorder): the viewer starts, plays and
/// quits normally, with the terminal restored.
#[test]
fn a_terminal_that_never_answers_still_plays_and_quits() {
    let bin = viewer_bin();
    let walker = super::cli::sample("walker.glb");
    let link = LinkSpec { bits_per_s: None, rtt: Duration::ZERO, buffer: 2 << 20, answers: false };
    let session = Session::start(&bin, &[&walker], 120, 40, link);
    let limit = crate::PATIENCE;
    let time_of = |screen: &str| -> Option<String> {
        let at = screen.find(" / 1.0000 s")?;
        screen[..at].rsplit(' ').next().map(str::to_owned)
    };
    session
        .wait_for(limit, |s| s.contains("Keyframes: walk") && time_of(s).is_some())
        .unwrap_or_else(|| panic!("the first frame never came:\n{}", session.contents()));
    let t0 = time_of(&session.contents());
    // The clock paces frames once the question has gone unanswered (crossterm waits 2 s).
    session
        .wait_for(limit, |s| time_of(s).is_some_and(|t| Some(t) != t0))
        .unwrap_or_else(|| panic!("time never advanced from {t0:?}:\n{}", session.contents()));
    session.send(b"q");
    assert_eq!(session.exit(limit), Some(0), "the viewer quits with status 0");
}

/// Key-to-screen latency and frames delivered, Fox at 200x60 (see the module docs for the
/// command). Settings: SLOW_LINK_KBIT (default 1000; 0 for no limit), SLOW_LINK_RTT_MS (50),
/// SLOW_LINK_PLAY_S (20), SLOW_LINK_PRESS_LIMIT_S (30, the longest wait for one key),
/// SLOW_LINK_ARGS (more arguments for the viewer, such as `--color 256`),
/// RIGSCOPE_BIN (the binary to measure, default the test build's).
#[test]
#[ignore = "a measurement over a minute long: run by hand, see the module docs"]
fn slow_link_measure() {
    let Some(assets) = std::env::var_os("RIGSCOPE_ASSETS") else {
        println!("skipping the slow-link measurement: RIGSCOPE_ASSETS is not set");
        return;
    };
    let fox = std::path::Path::new(&assets).join("Fox/Fox.glb");
    let env_num = |name: &str, default: u64| -> u64 {
        std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
    };
    let kbit = env_num("SLOW_LINK_KBIT", 1000);
    let rtt = Duration::from_millis(env_num("SLOW_LINK_RTT_MS", 50));
    let play = Duration::from_secs(env_num("SLOW_LINK_PLAY_S", 20));
    let bin = viewer_bin();
    let link =
        LinkSpec { bits_per_s: (kbit > 0).then_some(kbit * 1000), rtt, buffer: 2 << 20, answers: true };
    let fox = fox.to_string_lossy().into_owned();
    let extra = std::env::var("SLOW_LINK_ARGS").unwrap_or_default();
    let args: Vec<&str> = std::iter::once(fox.as_str()).chain(extra.split_whitespace()).collect();
    let session = Session::start(&bin, &args, 200, 60, link);
    let first = session.wait_for(Duration::from_secs(60), |s| clip_position(s).is_some());
    let first = first.unwrap_or_else(|| panic!("no first frame:\n{}", session.contents()));
    std::thread::sleep(play.saturating_sub(Duration::from_secs(5)));
    let (f0, b0) = session.delivered();
    std::thread::sleep(Duration::from_secs(5));
    let (f1, b1) = session.delivered();
    let fps = (f1 - f0) as f64 / 5.0;
    let rate = (b1 - b0) as f64 / 5.0;
    let press_limit = Duration::from_secs(env_num("SLOW_LINK_PRESS_LIMIT_S", 30));
    let mut latencies = Vec::new();
    let press_start = Instant::now();
    let (fp0, _) = session.delivered();
    for _ in 0..5 {
        let (k, n) = clip_position(&session.contents()).expect("a clip in the status bar");
        let next = k % n + 1;
        session.send(b"c");
        let shown = session.wait_for(press_limit, |s| clip_position(s) == Some((next, n)));
        latencies.push(shown);
        if shown.is_none() {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let (fp1, _) = session.delivered();
    let contents = session.contents();
    let status =
        contents.lines().rev().find(|l| clip_position(l).is_some()).unwrap_or_default().trim().to_owned();
    let press_fps = (fp1 - fp0) as f64 / press_start.elapsed().as_secs_f64();
    session.send(b"q");
    let quit = Instant::now();
    let code = session.exit(Duration::from_secs(10));
    let fmt = |l: &Option<Duration>| {
        l.map_or(format!("> {} s", press_limit.as_secs()), |d| format!("{:.2} s", d.as_secs_f64()))
    };
    println!(
        "slow link {kbit} kbit/s, RTT {} ms: first frame {:.2} s; playing {fps:.1} frames/s, {:.0} KB/s; \
         keys {:?}; worst {}; {press_fps:.1} frames/s while pressing; quit {} in {:.2} s\n  status: {status}",
        rtt.as_millis(),
        first.as_secs_f64(),
        rate / 1e3,
        latencies.iter().map(fmt).collect::<Vec<_>>(),
        fmt(&latencies.iter().copied().max_by_key(|l| l.unwrap_or(Duration::MAX)).flatten()),
        code.map_or("killed".into(), |c| format!("status {c}")),
        quit.elapsed().as_secs_f64(),
    );
}

#[test]
fn clip_position_reads_the_status_bar() {
    assert_eq!(clip_position("x\n ▶ Survey (2/3)   0.5 / 3.4 s\nhints"), Some((2, 3)));
    assert_eq!(clip_position("no clip here"), None);
}

/// Fewer bytes where it is free: ratatui sends only the cells that changed, so a frame that
/// only advances time re-sends what moved (the viewport, the playhead, the time, the selected
/// bone's transform), never the bone tree or the weights panel, and costs a fraction of the
/// first frame's bytes.
#[test]
fn a_playing_frame_resends_only_what_changed() {
    use ratatui::backend::CrosstermBackend;
    use ratatui::layout::Rect;
    use ratatui::{Terminal, TerminalOptions, Viewport};
    use rigscope::render::ColorDepth;
    use rigscope::tui::action::Action;
    use rigscope::tui::ui::{self, ViewportCache};
    use rigscope::tui::{App, Launch};

    let rig = rigscope::load(std::path::Path::new(&super::cli::sample("walker.glb"))).expect("sample");
    let mut app = App::new(rig, &Launch { color: ColorDepth::TrueColor, ..Launch::default() });
    let area = Rect::new(0, 0, 200, 60);
    // A fixed viewport asks the backend nothing, so the bytes land in a Vec to be counted.
    let options = TerminalOptions { viewport: Viewport::Fixed(area) };
    let written = std::rc::Rc::new(std::cell::Cell::new(0));
    let out = Counter(written.clone());
    let mut terminal = Terminal::with_options(CrosstermBackend::new(out), options).expect("term");
    let mut cache = ViewportCache::default();
    let mut frame = |app: &mut App, terminal: &mut Terminal<CrosstermBackend<Counter>>| {
        app.evaluate();
        let mut areas = ui::Areas::default();
        let before = written.get();
        let buffer =
            terminal.draw(|f| areas = ui::draw(f, app, &mut cache).areas).expect("draw").buffer.clone();
        (buffer, areas, written.get() - before)
    };
    let (first, _, first_bytes) = frame(&mut app, &mut terminal);
    app.update(Action::Tick(0.1));
    let (second, areas, second_bytes) = frame(&mut app, &mut terminal);
    let changed = first.diff(&second);
    assert!(!changed.is_empty(), "time moved: something must change");
    let inside = |r: Rect, x: u16, y: u16| r.contains(ratatui::layout::Position { x, y });
    for &(x, y, _) in &changed {
        // The details panel shows the selected bone's animated transform: it changes too.
        assert!(!inside(areas.tree, x, y) && !inside(areas.weights, x, y), "cell {x},{y} re-sent: {areas:?}");
    }
    let still = |r: Rect| changed.iter().any(|&(x, y, _)| inside(r, x, y));
    assert!(still(areas.viewport) && still(areas.status), "the viewport and the time changed");
    assert!(changed.len() < usize::from(area.width * area.height) / 2, "{} cells", changed.len());
    assert!(second_bytes * 2 < first_bytes, "first frame {first_bytes} B, next {second_bytes} B");
}

/// Counts the bytes a terminal would be sent.
struct Counter(std::rc::Rc<std::cell::Cell<usize>>);

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.set(self.0.get() + buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// When the link sets the pace the status bar says so, and `t` adds the link's figures.
#[test]
fn the_status_bar_says_when_the_link_is_the_limit() {
    use rigscope::render::ColorDepth;
    use rigscope::tui::action::Action;
    use rigscope::tui::link::LinkStats;
    use rigscope::tui::{App, Launch};

    let rig = rigscope::load(std::path::Path::new(&super::cli::sample("walker.glb"))).expect("sample");
    let mut app = App::new(rig, &Launch { color: ColorDepth::None, ..Launch::default() });
    let screen = |app: &mut App| super::tui::screen(app, 160, 48);
    let link = LinkStats { fps: 9.0, bytes_per_s: Some(125_000.0), rtt: 0.05, limiting: true };
    app.status.timings.link = Some(LinkStats { limiting: false, ..link });
    assert!(!screen(&mut app).contains("link:"), "a link that is not the limit goes unmentioned");
    app.status.timings.link = Some(link);
    assert!(screen(&mut app).contains("link: 9 fps, 125 KB/s, RTT 50 ms"), "{}", screen(&mut app));
    app.update(Action::ToggleStats);
    assert!(screen(&mut app).contains("link 9 fps, 125 KB/s, RTT 50 ms"), "{}", screen(&mut app));
    app.status.timings.link = None;
    app.status.timings.unanswered = true;
    assert!(screen(&mut app).contains("link: no answer, clock paced"), "{}", screen(&mut app));
}
