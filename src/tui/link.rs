//! What the link to the terminal can carry, learnt from the terminal's answers.
//!
//! After each frame the event loop asks the terminal a question it answers in order (where
//! is the cursor), and sends nothing more until the answer comes: so at most one frame is
//! ever in flight, and a slow link (SSH, a serial line) never builds a backlog between a key
//! and the screen. Each answer's round trip, with the frame's size, says the link's delay
//! and throughput. This module keeps those figures; it reads no clock and does no I/O, so
//! it is tested with made-up round trips.

use std::collections::VecDeque;
use std::time::Duration;

/// How many recent frames the estimates cover (a few seconds on a slow link).
const WINDOW: usize = 32;

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
    /// Frames per second the link carried (one frame per round trip).
    pub fps: f32,
    /// Estimated throughput in bytes per second; `None` when frames cost nothing measurable
    /// beyond the round trip (a fast link).
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
    /// (bytes, round trip in seconds) of the most recent answered frames.
    trips: VecDeque<(f32, f32)>,
}

impl Link {
    pub fn new(interval: Duration) -> Link {
        Link { answers: Answers::Unknown, interval, trips: VecDeque::with_capacity(WINDOW) }
    }

    pub fn answers(&self) -> Answers {
        self.answers
    }

    /// Whether to ask the terminal after the next frame.
    pub fn asks(&self) -> bool {
        self.answers != Answers::No
    }

    /// The terminal answered the question sent after a frame of `bytes` bytes, `trip` after
    /// the frame was flushed.
    pub fn answered(&mut self, bytes: u64, trip: Duration) {
        self.answers = Answers::Yes;
        if self.trips.len() == WINDOW {
            self.trips.pop_front();
        }
        self.trips.push_back((bytes as f32, trip.as_secs_f32()));
    }

    /// The question after a frame went unanswered.
    pub fn unanswered(&mut self) {
        self.answers = Answers::No;
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
        // trip = rtt + bytes / throughput: a least-squares line through the frames when their
        // sizes differ enough to tell the two apart.
        let var = self.trips.iter().map(|t| (t.0 - mean_bytes).powi(2)).sum::<f32>() / n;
        let cov = self.trips.iter().map(|t| (t.0 - mean_bytes) * (t.1 - mean_trip)).sum::<f32>() / n;
        let fitted = (var > (0.1 * mean_bytes).powi(2) && cov > 0.0)
            .then(|| (cov / var, mean_trip - cov / var * mean_bytes))
            .filter(|&(_, rtt)| rtt >= 0.0);
        let (rtt, bytes_per_s) = match fitted {
            Some((per_byte, rtt)) => (rtt, Some(1.0 / per_byte)),
            // All frames about the same size: the smallest trip is the best bound on the delay,
            // and what is left of the mean trip is the frame's transfer.
            None => {
                let transfer = mean_trip - min_trip;
                (min_trip, (transfer > 0.002).then(|| mean_bytes / transfer))
            }
        };
        let interval = self.interval.as_secs_f32();
        Some(LinkStats {
            fps: if mean_trip > 0.0 { 1.0 / mean_trip.max(interval) } else { 1.0 / interval },
            bytes_per_s,
            rtt,
            limiting: mean_trip > interval,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn a_fitted_line_gives_delay_and_throughput() {
        // 50 ms round trip and 125 000 bytes/s: 5 000 bytes take 50 + 40 ms, 10 000 take 50 + 80.
        let mut link = Link::new(ms(33));
        for i in 0..10 {
            let (bytes, trip) = if i % 2 == 0 { (5_000, 90) } else { (10_000, 130) };
            link.answered(bytes, ms(trip));
        }
        let s = link.stats().expect("answered");
        assert!((s.rtt - 0.050).abs() < 1e-4, "{s:?}");
        assert!((s.bytes_per_s.expect("fitted") - 125_000.0).abs() < 100.0, "{s:?}");
        // Mean trip 110 ms: about 9 frames a second, below the 30 asked for.
        assert!((s.fps - 1.0 / 0.110).abs() < 0.01, "{s:?}");
        assert!(s.limiting);
    }

    #[test]
    fn a_fast_terminal_is_not_the_limit() {
        let mut link = Link::new(ms(33));
        for _ in 0..5 {
            link.answered(7_500, ms(1));
        }
        let s = link.stats().expect("answered");
        assert!(!s.limiting);
        // Frames come at the cap, not at one per millisecond.
        assert!((s.fps - 1.0 / 0.033).abs() < 0.01, "{s:?}");
        assert_eq!(s.bytes_per_s, None);
        assert!((s.rtt - 0.001).abs() < 1e-6);
    }

    #[test]
    fn same_size_frames_bound_the_delay_by_the_quickest() {
        let mut link = Link::new(ms(33));
        for trip in [100, 120, 110] {
            link.answered(8_000, ms(trip));
        }
        let s = link.stats().expect("answered");
        assert!((s.rtt - 0.100).abs() < 1e-6);
        // Mean 110 ms, 10 ms of it the transfer: 8 000 bytes per 10 ms.
        assert!((s.bytes_per_s.expect("transfer") - 800_000.0).abs() < 1_000.0, "{s:?}");
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
        link.answered(20_000, ms(600));
        assert!((link.max_dt() - (1.2 + 0.033)).abs() < 1e-4);
    }
}
