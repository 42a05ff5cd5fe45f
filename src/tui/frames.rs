//! The frame grid of a clip: the step `,` and `.` move by, and the time of frame N. Times
//! are computed as frame count times step (in f64), never by adding steps one after the
//! other, so twelve steps of 1/24 s land on 0.5 s exactly, where the twelfth key is.

use crate::rig::Clip;

/// Used when a clip has no two keys apart (or there is no clip).
const DEFAULT_STEP: f64 = 1.0 / 30.0;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameGrid {
    /// Seconds per frame.
    pub step: f64,
}

impl FrameGrid {
    /// The clip's smallest key spacing; when the clip's duration is (within a thousandth
    /// of a frame) a whole number of those, the duration divided by that number, which
    /// undoes the rounding of key times stored as f32 (CesiumMan's keys are 0.0416666 s
    /// apart, not 1/24).
    pub fn of(clip: Option<&Clip>) -> FrameGrid {
        let Some(clip) = clip else { return FrameGrid { step: DEFAULT_STEP } };
        let mut smallest = f32::INFINITY;
        for ch in &clip.channels {
            for w in ch.times.windows(2) {
                let d = w[1] - w[0];
                if d > 1e-4 && d < smallest {
                    smallest = d;
                }
            }
        }
        if !smallest.is_finite() {
            return FrameGrid { step: DEFAULT_STEP };
        }
        let (d, duration) = (f64::from(smallest), f64::from(clip.duration));
        let frames = (duration / d).round();
        let step =
            if frames >= 1.0 && (frames * d - duration).abs() < d * 1e-3 { duration / frames } else { d };
        FrameGrid { step }
    }

    /// The frame nearest to `t`.
    pub fn frame_at(self, t: f32) -> i64 {
        (f64::from(t) / self.step).round() as i64
    }

    /// The time of frame `n`.
    pub fn time_of(self, n: i64) -> f32 {
        (n as f64 * self.step) as f32
    }

    /// The time `frames` frames from the frame nearest to `t`.
    pub fn stepped(self, t: f32, frames: i32) -> f32 {
        self.time_of(self.frame_at(t) + i64::from(frames))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{Channel, Interpolation, Property};

    fn clip(times: Vec<f32>) -> Clip {
        let duration = times.last().copied().unwrap_or(0.0);
        let values = vec![0.0; times.len() * 3];
        Clip {
            name: None,
            duration,
            channels: vec![Channel {
                node: 0,
                property: Property::Translation,
                interpolation: Interpolation::Linear,
                components: 3,
                times: times.into(),
                values: values.into(),
            }],
        }
    }

    #[test]
    fn twelve_steps_of_rounded_24ths_land_on_the_twelfth_key() {
        // Key times as an exporter writes them in f32: i * 0.041666627 (CesiumMan's
        // spacing), 48 keys up to 2 s.
        let times: Vec<f32> = (0..=48).map(|i| i as f32 * 0.041_666_627).collect();
        let mut c = clip(times);
        c.duration = 2.0;
        let grid = FrameGrid::of(Some(&c));
        assert!((grid.step - 1.0 / 24.0).abs() < 1e-12, "{}", grid.step);
        let mut t = 0.0;
        for _ in 0..12 {
            t = grid.stepped(t, 1);
        }
        assert_eq!(t, 0.5);
        assert_eq!(grid.frame_at(t), 12);
        // Back again to exactly 0.
        for _ in 0..12 {
            t = grid.stepped(t, -1);
        }
        assert_eq!(t, 0.0);
    }

    #[test]
    fn irregular_keys_step_by_the_smallest_spacing() {
        let grid = FrameGrid::of(Some(&clip(vec![0.0, 0.3, 0.5, 1.1])));
        assert!((grid.step - 0.2).abs() < 1e-6, "{}", grid.step);
        assert_eq!(FrameGrid::of(None).step, 1.0 / 30.0);
        assert_eq!(FrameGrid::of(Some(&clip(vec![0.5]))).step, 1.0 / 30.0);
    }
}
