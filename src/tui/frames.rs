//! The frame grid of a clip: the step `,` and `.` move by, and the time of frame N. Times
//! are computed as frame count times step (in f64), never by adding steps one after the
//! other, so twelve steps of 1/24 s land on 0.5 s exactly, where the twelfth key is.

use crate::rig::Clip;

/// Used when a clip's keys suggest no frame rate (or there is no clip).
const DEFAULT_STEP: f64 = 1.0 / 30.0;

/// The longest key spacing still taken as a frame: 20 fps. Keys further apart are sparse
/// keys (a 0.25 s spacing is an animator's key every sixth frame, not 4 fps).
const LONGEST_FRAME: f64 = 1.0 / 20.0;

/// Frame rates tried for sparse keys, in order: the first whose frames every key lands on
/// wins (30 first, the usual default of exporters and players).
const RATES: [f64; 4] = [30.0, 24.0, 25.0, 60.0];

/// Key spacings closer than this (seconds) count as one spacing: f32 key times differ in
/// their last digits (0.0416666 and 0.0416667 are both 1/24).
const SPACING_BIN: f64 = 1e-4;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameGrid {
    /// Seconds per frame.
    pub step: f64,
}

impl FrameGrid {
    /// `--step` when given, else the clip's frame length (`from_keys`).
    pub fn for_clip(clip: Option<&Clip>, step: Option<f64>) -> FrameGrid {
        match step {
            Some(step) if step.is_finite() && step > 0.0 => FrameGrid { step },
            _ => FrameGrid::of(clip),
        }
    }

    /// The clip's frame length, from its keys. The most common key spacing when it is a
    /// frame or less (a few closer keys, a doubled key, do not set the step); when the
    /// duration is (within a thousandth of a frame) a whole number of those, the duration
    /// divided by that number, which undoes the rounding of key times stored as f32
    /// (CesiumMan's keys are 0.0416666 s apart, not 1/24). Keys further apart than a frame
    /// are sparse: the step is the first of 30, 24, 25 and 60 fps whose frames every key
    /// lands on, else 1/30 s.
    pub fn of(clip: Option<&Clip>) -> FrameGrid {
        let Some(clip) = clip else { return FrameGrid { step: DEFAULT_STEP } };
        let Some(spacing) = most_common_spacing(clip) else { return FrameGrid { step: DEFAULT_STEP } };
        if spacing > LONGEST_FRAME {
            let on_grid = |rate: f64| {
                clip.channels.iter().flat_map(|c| c.times.iter()).all(|&t| {
                    let f = f64::from(t) * rate;
                    (f - f.round()).abs() < 1e-2
                })
            };
            let rate = RATES.into_iter().find(|&r| on_grid(r));
            return FrameGrid { step: rate.map_or(DEFAULT_STEP, |r| 1.0 / r) };
        }
        let duration = f64::from(clip.duration);
        let frames = (duration / spacing).round();
        let step = if frames >= 1.0 && (frames * spacing - duration).abs() < spacing * 1e-3 {
            duration / frames
        } else {
            spacing
        };
        FrameGrid { step }
    }

    /// Frames per second, for the status bar.
    pub fn rate(self) -> f64 {
        1.0 / self.step
    }

    /// The time of the frame nearest to `t`, kept within `0..=duration`.
    pub fn snapped(self, t: f32, duration: f32) -> f32 {
        self.time_of(self.frame_at(t)).clamp(0.0, duration.max(0.0))
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

/// The spacing between consecutive keys that occurs most often (ties: the shorter), the
/// smallest of its bin; None when no two keys are apart.
fn most_common_spacing(clip: &Clip) -> Option<f64> {
    let mut bins: std::collections::BTreeMap<i64, (usize, f64)> = std::collections::BTreeMap::new();
    for ch in &clip.channels {
        for w in ch.times.windows(2) {
            let d = f64::from(w[1]) - f64::from(w[0]);
            if d > SPACING_BIN && d.is_finite() {
                let bin = bins.entry((d / SPACING_BIN).round() as i64).or_insert((0, d));
                bin.0 += 1;
                bin.1 = bin.1.min(d);
            }
        }
    }
    // BTreeMap order is shortest first, and `max_by_key` keeps the last of equals: reversed,
    // the shortest of equally common spacings wins.
    bins.values().rev().max_by_key(|(n, _)| *n).map(|&(_, d)| d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{Channel, Interpolation, Property};

    fn clip(times: Vec<f32>) -> Clip {
        let duration = times.last().copied().unwrap_or(0.0);
        let values = vec![0.0; times.len() * 3];
        Clip {
            vrm: None,
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

    /// Keys every 0.25 s step by a frame, not by 0.25 s. 0.25 s is 7.5
    /// frames at 30 fps and 6 at 24: the grid is 24 fps.
    #[test]
    fn sparse_keys_step_by_a_frame_rate_their_keys_land_on() {
        let sparse: Vec<f32> = (0..=8).map(|i| i as f32 * 0.25).collect();
        let grid = FrameGrid::of(Some(&clip(sparse)));
        assert!((grid.step - 1.0 / 24.0).abs() < 1e-12, "{}", grid.step);
        // 0.3, 0.5 and 1.1 s are frames 9, 15 and 33 at 30 fps.
        let grid = FrameGrid::of(Some(&clip(vec![0.0, 0.3, 0.5, 1.1])));
        assert!((grid.step - 1.0 / 30.0).abs() < 1e-12, "{}", grid.step);
        // On no usual grid (0.37 s is 11.1 frames at 30, 8.88 at 24, 9.25 at 25, 22.2 at 60).
        let grid = FrameGrid::of(Some(&clip(vec![0.0, 0.37, 0.74])));
        assert_eq!(grid.step, 1.0 / 30.0);
        assert_eq!(FrameGrid::of(None).step, 1.0 / 30.0);
        assert_eq!(FrameGrid::of(Some(&clip(vec![0.5]))).step, 1.0 / 30.0);
    }

    /// A few keys closer together (an inserted key, a doubled one) do not set the step: the
    /// most common spacing does.
    #[test]
    fn the_most_common_spacing_wins_over_the_smallest() {
        let mut times: Vec<f32> = (0..=30).map(|i| i as f32 / 30.0).collect();
        times.insert(5, 4.5 / 30.0);
        let grid = FrameGrid::of(Some(&clip(times)));
        assert!((grid.step - 1.0 / 30.0).abs() < 1e-9, "{}", grid.step);
    }

    #[test]
    fn a_given_step_wins_and_snapping_lands_on_frames() {
        let c = clip((0..=8).map(|i| i as f32 * 0.25).collect());
        let grid = FrameGrid::for_clip(Some(&c), Some(1.0 / 30.0));
        assert_eq!(grid.step, 1.0 / 30.0);
        assert_eq!(FrameGrid::for_clip(Some(&c), Some(0.0)), FrameGrid::of(Some(&c)));
        // 0.51 s is frame 15.3: frame 15, 0.5 s; past the end, the end.
        assert_eq!(grid.snapped(0.51, 2.0), 0.5);
        assert_eq!(grid.snapped(2.2, 2.0), 2.0);
        assert_eq!(grid.snapped(-0.1, 2.0), 0.0);
    }
}
