//! What the link to the terminal can carry, learnt from the terminal's answers.
//!
//! After each frame the event loop asks the terminal a question it answers in order (where
//! is the cursor), and sends nothing more until an answer comes: so on a slow link (SSH, a
//! serial line) no backlog builds between a key and the screen. Each answer's round trip,
//! with the bytes it waited behind, says the link's delay and throughput. When the delay
//! rather than the throughput holds frames back (a fast link far away), a few more questions
//! are kept outstanding so that a few frames are in flight. This module keeps those figures;
//! it reads no clock and does no I/O, so it is tested with made-up round trips.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How many recent answers the estimates cover (a few seconds on a slow link).
const WINDOW: usize = 64;
/// At most this many questions beyond the one after each frame: more frames in flight would
/// only add to the wait between a key and the screen.
const MAX_EXTRA: usize = 3;
/// A terminal that has answered before is given this many late answers in a row (a stalled
/// link) before it is taken to have stopped answering.
const LATE_LIMIT: usize = 3;

/// Whether the terminal answers at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answers {
    /// No frame has been sent yet.
    Unknown,
    /// It answered: frames are paced by its answers.
    Yes,
    /// A question went unanswered (a serial console, a recorder, a pipe): frames are paced
    /// by the clock alone from then on.
    No,
}

/// The link's figures, for the status bar and the `t` timings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkStats {
    /// Frames per second the link carried.
    pub fps: f32,
    /// Estimated throughput in bytes per second; `None` until frames of different sizes have
    /// told the transfer apart from the delay.
    pub bytes_per_s: Option<f32>,
    /// Estimated round trip without any frame to carry, in seconds.
    pub rtt: f32,
    /// Waiting for answers held frames back below the frame-rate cap.
    pub limiting: bool,
}

#[derive(Debug, Clone)]
pub struct Link {
    answers: Answers,
    /// The frame interval `--fps` asks for.
    interval: Duration,
    /// Questions sent and not yet answered, oldest first: when each was sent, the bytes of
    /// the frame it followed (0 for a second question after the same frame), and the bytes
    /// then in flight ahead of it (its own frame's and every unanswered earlier one's).
    pending: VecDeque<(Instant, u64, u64)>,
    /// Bytes of the frames in `pending`.
    pending_bytes: u64,
    /// Per answer: (bytes the question waited behind, round trip in seconds).
    trips: VecDeque<(f32, f32)>,
    /// Questions kept outstanding beyond the one each frame waits for.
    extra: usize,
    /// Waits in a row that ended without an answer.
    late: usize,
}

impl Link {
    pub fn new(interval: Duration) -> Link {
        Link {
            answers: Answers::Unknown,
            interval,
            pending: VecDeque::new(),
            pending_bytes: 0,
            trips: VecDeque::with_capacity(WINDOW),
            extra: 0,
            late: 0,
        }
    }

    pub fn answers(&self) -> Answers {
        self.answers
    }

    /// Whether to ask the terminal after the next frame.
    pub fn asks(&self) -> bool {
        self.answers != Answers::No
    }

    /// A question left at `at`, after a frame of `bytes` bytes (0 for a second question
    /// after the same frame).
    pub fn asked(&mut self, at: Instant, bytes: u64) {
        self.pending_bytes += bytes;
        self.pending.push_back((at, bytes, self.pending_bytes));
    }

    /// A second question is kept outstanding from now on (see `wants_extra`).
    pub fn asked_extra(&mut self, at: Instant) {
        self.extra += 1;
        self.asked(at, 0);
    }

    /// The oldest question was answered at `at`.
    pub fn answered(&mut self, at: Instant) {
        self.answers = Answers::Yes;
        self.late = 0;
        let Some((sent, bytes, ahead)) = self.pending.pop_front() else { return };
        self.pending_bytes -= bytes;
        if bytes == 0 {
            // A second question after the same frame: its trip repeats the first's.
            return;
        }
        if self.trips.len() == WINDOW {
            self.trips.pop_front();
        }
        self.trips.push_back((ahead as f32, at.saturating_duration_since(sent).as_secs_f32()));
    }

    /// The wait for an answer ended without one. A terminal that never answered is paced
    /// by the clock from now on. One that did is on a stalled link: its answer is still to
    /// come, so the question stays outstanding (the next wait reads its answer, one frame
    /// further back), until `LATE_LIMIT` waits in a row have ended that way.
    pub fn unanswered(&mut self) {
        self.late += 1;
        if self.answers == Answers::Yes && self.late <= LATE_LIMIT {
            self.extra += 1;
        } else {
            self.answers = Answers::No;
        }
    }

    /// Whether one more question should be kept outstanding: the delay, not the throughput,
    /// holds frames below the cap, and the link carries two more frames in one round trip.
    pub fn wants_extra(&self) -> bool {
        let Some(s) = self.stats() else { return false };
        let frame = self.trips.iter().map(|t| t.0).sum::<f32>() / self.trips.len() as f32;
        let fits = s.bytes_per_s.map_or(0.0, |b| b * s.rtt / (2.0 * frame.max(1.0)));
        s.limiting && self.extra < MAX_EXTRA && (self.extra as f32) < fits.floor()
    }

    /// How long the answers to the questions still outstanding can take, when there are any
    /// from a terminal that answers: the slowest recent trip and a little, at most a second.
    pub fn late_answers_within(&self) -> Option<Duration> {
        if self.answers != Answers::Yes || self.pending.is_empty() {
            return None;
        }
        let slowest = self.trips.iter().map(|t| t.1).fold(0.0, f32::max);
        Some(Duration::from_secs_f32((1.5 * slowest + 0.05).min(1.0)))
    }

    /// The largest step playback takes in one tick. A stall (a suspended process) must not
    /// jump the clip far, but on a slow link the time between frames is the round trip,
    /// and clamping below it would slow the clip down.
    pub fn max_dt(&self) -> f32 {
        const STALL: f32 = 0.25;
        let slowest = self.trips.iter().map(|t| t.1).fold(0.0, f32::max);
        STALL.max(2.0 * slowest + self.interval.as_secs_f32())
    }

    /// The figures over the recent frames; `None` before the first answer.
    pub fn stats(&self) -> Option<LinkStats> {
        if self.answers != Answers::Yes || self.trips.is_empty() {
            return None;
        }
        let n = self.trips.len() as f32;
        let mean_bytes = self.trips.iter().map(|t| t.0).sum::<f32>() / n;
        let mean_trip = self.trips.iter().map(|t| t.1).sum::<f32>() / n;
        let min_trip = self.trips.iter().map(|t| t.1).fold(f32::INFINITY, f32::min);
        // trip = rtt + bytes / throughput: a least-squares line through the answers when the
        // bytes they waited behind differ enough to tell the two apart (the first, whole
        // screen frame against the rest, a clip change against playing).
        let var = self.trips.iter().map(|t| (t.0 - mean_bytes).powi(2)).sum::<f32>() / n;
        let cov = self.trips.iter().map(|t| (t.0 - mean_bytes) * (t.1 - mean_trip)).sum::<f32>() / n;
        let fitted = (var > (0.2 * mean_bytes).powi(2) && cov > 0.0)
            .then(|| (cov / var, mean_trip - cov / var * mean_bytes))
            .filter(|&(_, rtt)| rtt >= 0.0);
        let (rtt, bytes_per_s) = match fitted {
            Some((per_byte, rtt)) => (rtt, Some(1.0 / per_byte)),
            // Without a line, the quickest trip bounds the delay.
            None => (min_trip, None),
        };
        // Each trip carried 1 + extra frames.
        let per_s = (1 + self.extra) as f32 / mean_trip.max(f32::EPSILON);
        let cap = 1.0 / self.interval.as_secs_f32();
        Some(LinkStats { fps: per_s.min(cap), bytes_per_s, rtt, limiting: per_s < cap })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    /// Sends frames of `sizes` bytes one at a time over a link of `rtt` and `bytes_per_s`:
    /// each answer comes after the round trip and the frame's transfer.
    fn one_at_a_time(link: &mut Link, sizes: &[u64], rtt: f64, bytes_per_s: f64) {
        let mut now = Instant::now();
        for &bytes in sizes {
            link.asked(now, bytes);
            now += Duration::from_secs_f64(rtt + bytes as f64 / bytes_per_s);
            link.answered(now);
        }
    }

    #[test]
    fn a_fitted_line_gives_delay_and_throughput() {
        // 50 ms round trip and 125 000 bytes/s: 5 000 bytes take 50 + 40 ms, 40 000 take 50 + 320.
        let mut link = Link::new(ms(33));
        let sizes: Vec<u64> = (0..10).map(|i| if i % 5 == 0 { 40_000 } else { 5_000 }).collect();
        one_at_a_time(&mut link, &sizes, 0.050, 125_000.0);
        let s = link.stats().expect("answered");
        assert!((s.rtt - 0.050).abs() < 1e-3, "{s:?}");
        assert!((s.bytes_per_s.expect("fitted") - 125_000.0).abs() < 500.0, "{s:?}");
        // Mean trip (2 x 370 + 8 x 90) / 10 = 146 ms: about 7 frames a second, below 30.
        assert!((s.fps - 1.0 / 0.146).abs() < 0.05, "{s:?}");
        assert!(s.limiting);
        // 125 000 B/s x 50 ms is 6 250 bytes, not two more frames of 12 000 on average.
        assert!(!link.wants_extra());
    }

    #[test]
    fn a_fast_link_far_away_keeps_more_frames_in_flight() {
        // 10 Mbit/s, 50 ms: frames wait on the delay, and the link carries ten in a round trip.
        let mut link = Link::new(ms(33));
        let sizes: Vec<u64> = (0..10).map(|i| if i == 0 { 40_000 } else { 5_000 }).collect();
        one_at_a_time(&mut link, &sizes, 0.050, 1_250_000.0);
        assert!(link.stats().expect("answered").limiting);
        assert!(link.wants_extra());
        link.asked_extra(Instant::now());
        assert_eq!(link.pending.len(), 1);
        // Now two frames per trip: 2 / 54 ms is above the cap.
        let s = link.stats().expect("answered");
        assert!(!s.limiting, "{s:?}");
        assert!(!link.wants_extra());
    }

    #[test]
    fn a_nearby_terminal_is_not_the_limit() {
        let mut link = Link::new(ms(33));
        one_at_a_time(&mut link, &[7_500; 5], 0.001, 1e9);
        let s = link.stats().expect("answered");
        assert!(!s.limiting);
        // Frames come at the cap, not at one per millisecond.
        assert!((s.fps - 1.0 / 0.033).abs() < 0.01, "{s:?}");
        // Frames all alike: no line to fit, the quickest trip bounds the delay.
        assert_eq!(s.bytes_per_s, None);
        assert!((s.rtt - 0.001).abs() < 1e-5);
        assert!(!link.wants_extra());
    }

    #[test]
    fn an_answer_waits_behind_every_frame_in_flight() {
        let mut link = Link::new(ms(33));
        let t0 = Instant::now();
        link.asked(t0, 1_000);
        link.asked(t0, 0);
        link.asked(t0 + ms(10), 2_000);
        link.answered(t0 + ms(50));
        link.answered(t0 + ms(50));
        link.answered(t0 + ms(90));
        // The first waited behind its own frame; the third, asked while the first frame was
        // in flight, behind both: 3 000 bytes, 80 ms. The second repeats the first.
        let trips: Vec<(f32, f32)> = link.trips.iter().copied().collect();
        assert_eq!(trips.len(), 2);
        assert_eq!(trips[0], (1_000.0, 0.050));
        assert_eq!(trips[1].0, 3_000.0);
        assert!((trips[1].1 - 0.080).abs() < 1e-6);
        assert_eq!(link.pending_bytes, 0);
    }

    #[test]
    fn a_late_answer_is_read_by_the_next_wait() {
        let mut link = Link::new(ms(33));
        let t0 = Instant::now();
        link.asked(t0, 1_000);
        link.answered(t0 + ms(100));
        link.asked(t0 + ms(100), 1_000);
        link.unanswered();
        assert_eq!(link.answers(), Answers::Yes);
        assert!(link.asks());
        link.asked(t0 + ms(2_200), 1_000);
        // This wait ends at the late answer to the question asked at 100 ms.
        link.answered(t0 + ms(2_300));
        assert!(link.trips.back().is_some_and(|t| (t.1 - 2.2).abs() < 1e-6));
        assert_eq!(link.pending.len(), 1);
        // Late again and again: the link is gone, not slow.
        for _ in 0..LATE_LIMIT {
            link.unanswered();
            assert!(link.asks());
        }
        link.unanswered();
        assert!(!link.asks());
    }

    #[test]
    fn outstanding_answers_are_waited_for_at_the_end() {
        let mut link = Link::new(ms(33));
        let t0 = Instant::now();
        link.asked(t0, 5_000);
        link.answered(t0 + ms(100));
        assert_eq!(link.late_answers_within(), None, "nothing outstanding");
        link.asked_extra(t0 + ms(100));
        // 1.5 x 100 ms + 50 ms.
        let wait = link.late_answers_within().expect("one outstanding");
        assert!((wait.as_secs_f32() - 0.2).abs() < 1e-6, "{wait:?}");
        link.unanswered();
        link.unanswered();
        link.unanswered();
        link.unanswered();
        assert_eq!(link.late_answers_within(), None, "a silent terminal is not waited for");
    }

    #[test]
    fn silence_falls_back_to_the_clock() {
        let mut link = Link::new(ms(33));
        assert!(link.asks());
        assert_eq!(link.stats(), None);
        link.unanswered();
        assert!(!link.asks());
        assert_eq!(link.answers(), Answers::No);
        assert_eq!(link.stats(), None);
    }

    #[test]
    fn the_tick_clamp_follows_the_slowest_trip() {
        let mut link = Link::new(ms(33));
        assert_eq!(link.max_dt(), 0.25);
        one_at_a_time(&mut link, &[20_000], 0.600, 1e12);
        assert!((link.max_dt() - (1.2 + 0.033)).abs() < 1e-4);
    }
}
