//! What the viewer actually delivered: frames and bytes written to the terminal over the
//! last seconds. The status bar's frame rate and the link's throughput are read from here,
//! so they report frames that went out, not the last frame's interval (which reads 33-35 fps
//! at `--fps 30` when 29.4 go out) nor a fitted estimate of the link (which can exceed the
//! link's cap). Pure: it is given the instants, so tests make them up.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The span the figures cover: long enough to average a few slow-link round trips, short
/// enough that a pause's last frames leave it soon after playback resumes.
const WINDOW: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, Default)]
pub struct Delivered {
    /// When each recent frame finished going out, and its bytes; oldest first.
    frames: VecDeque<(Instant, u64)>,
}

impl Delivered {
    /// A frame of `bytes` bytes finished going out at `at`.
    pub fn wrote(&mut self, at: Instant, bytes: u64) {
        self.frames.push_back((at, bytes));
        while self.frames.front().is_some_and(|&(t, _)| at.saturating_duration_since(t) > WINDOW) {
            self.frames.pop_front();
        }
    }

    /// The span from the first frame kept to the last, when there are two.
    fn span(&self) -> Option<f64> {
        let (first, last) = (self.frames.front()?.0, self.frames.back()?.0);
        let span = last.saturating_duration_since(first).as_secs_f64();
        (self.frames.len() >= 2 && span > 0.0).then_some(span)
    }

    /// Frames per second written over the window: the frames after the first, over the
    /// time from the first to the last.
    pub fn fps(&self) -> Option<f32> {
        let span = self.span()?;
        Some(((self.frames.len() - 1) as f64 / span) as f32)
    }

    /// Bytes per second written over the window, counted as `fps` counts frames.
    pub fn bytes_per_s(&self) -> Option<f32> {
        let bytes: u64 = self.frames.iter().skip(1).map(|f| f.1).sum();
        Some((bytes as f64 / self.span()?) as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames 34 ms apart are 29.4 a second (not the cap of 30, nor
    /// one interval's 1 / 0.030 = 33); 3 400 bytes each are 100 000 bytes a second.
    #[test]
    fn rates_count_what_went_out() {
        let mut d = Delivered::default();
        assert_eq!(d.fps(), None);
        let t0 = Instant::now();
        d.wrote(t0, 3_400);
        assert_eq!(d.fps(), None, "one frame has no rate");
        for i in 1..=40u64 {
            d.wrote(t0 + Duration::from_millis(34 * i), 3_400);
        }
        let fps = d.fps().expect("rate");
        assert!((fps - 1.0 / 0.034).abs() < 1e-3, "{fps}");
        assert!((29.4..29.5).contains(&fps));
        let rate = d.bytes_per_s().expect("rate");
        assert!((rate - 100_000.0).abs() < 1.0, "{rate}");
    }

    /// Frames older than the window leave it: after a pause the figures are the new frames'.
    #[test]
    fn old_frames_leave_the_window() {
        let mut d = Delivered::default();
        let t0 = Instant::now();
        for i in 0..10u64 {
            d.wrote(t0 + Duration::from_millis(10 * i), 100);
        }
        let t1 = t0 + Duration::from_secs(10);
        for i in 0..=10u64 {
            d.wrote(t1 + Duration::from_millis(100 * i), 1_000);
        }
        assert_eq!(d.frames.len(), 11);
        assert!((d.fps().expect("rate") - 10.0).abs() < 1e-3);
        assert!((d.bytes_per_s().expect("rate") - 10_000.0).abs() < 0.5);
    }
}
