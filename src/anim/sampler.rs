//! Playback and scrubbing sampling with one cursor per timeline. Playback mostly moves by
//! less than a key per frame, so the interval found last time (then the next one, then the
//! previous one) is checked before falling back to the binary search. The clip is baked
//! once into `ClipTracks` (flat key-major values, shared timelines, see `tracks.rs`);
//! results are identical to `sample`: on strictly increasing key times the interval
//! holding `t` is unique, timelines whose times are not strictly increasing always use the
//! binary search, and the baked arithmetic is `write_span`'s.

use super::pose::Pose;
use super::sample::{Span, clamp_span, locate, sanitize_time, span_at, span_between};
use super::tracks::ClipTracks;
use crate::rig::Clip;

/// A clip baked for sampling plus one cursor per timeline, reused frame after frame.
/// Bound to a clip by its channels' key storage; sampling a different clip rebakes it
/// (allocating: once per clip change, never per frame).
#[derive(Debug, Clone, Default)]
pub struct Sampler {
    tracks: ClipTracks,
    /// Per timeline: start of the interval used last time.
    cursors: Vec<usize>,
    /// Per timeline: where the current time falls (scratch, rewritten every sample).
    spans: Vec<Span>,
}

impl Sampler {
    /// A sampler bound to `clip`.
    pub fn new(clip: &Clip) -> Self {
        let mut sampler = Self::default();
        sampler.bind(clip);
        sampler
    }

    /// An unbound sampler; it bakes the first clip it samples. `channels` is a hint only
    /// (the baked layout is sized by the clip).
    pub fn with_capacity(channels: usize) -> Self {
        Self { tracks: ClipTracks::default(), cursors: Vec::with_capacity(channels), spans: Vec::new() }
    }

    /// Bakes `clip` and resets every cursor.
    pub fn bind(&mut self, clip: &Clip) {
        self.tracks = ClipTracks::bake(clip);
        let timelines = self.tracks.timelines().len();
        self.cursors.clear();
        self.cursors.resize(timelines, 0);
        self.spans.clear();
        self.spans.resize(timelines, Span::Hold(0));
    }

    /// Same result as `sample(clip, t, pose)`, faster when `t` moves a little either way.
    pub fn sample(&mut self, clip: &Clip, t: f32, pose: &mut Pose) {
        if !self.tracks.is_baked_from(clip) {
            self.bind(clip);
        }
        let t = sanitize_time(t);
        let timelines = self.tracks.timelines();
        for ((timeline, cursor), span) in timelines.iter().zip(&mut self.cursors).zip(&mut self.spans) {
            *span = if timeline.sorted {
                locate_from(&timeline.times, t, cursor)
            } else {
                locate(&timeline.times, t)
            };
        }
        self.tracks.apply(clip, &self.spans, pose);
        if let Some(play) = &clip.vrm {
            super::vrm_pose::apply(play, t, pose);
        }
    }
}

/// Tries the cursor's interval and its two neighbours before the binary search; `times` must be
/// strictly increasing.
#[inline]
fn locate_from(times: &[f32], t: f32, cursor: &mut usize) -> Span {
    // The hit paths first, without `clamp_span`: on strictly increasing times, `times[k] <= t
    // < times[k + 1]` already puts `t` before the last key, and after the first one unless
    // `k == 0` and `t` is the first key (clamped to `Hold(0)`, so left to the general path).
    let k = *cursor;
    if let (Some(&t0), Some(&t1)) = (times.get(k), times.get(k.wrapping_add(1))) {
        if t < t1 && (t0 < t || (t0 == t && k > 0)) {
            return span_between(k, t0, t1, t);
        }
        // The next interval (playing forwards); its start is after the first key.
        if let Some(&t2) = times.get(k.wrapping_add(2))
            && t1 <= t
            && t < t2
        {
            *cursor = k + 1;
            return span_between(k + 1, t1, t2, t);
        }
    }
    if let Some(span) = clamp_span(times, t) {
        return span;
    }
    let holds = |k: usize| match (times.get(k), times.get(k + 1)) {
        (Some(&t0), Some(&t1)) => t0 <= t && t < t1,
        _ => false,
    };
    // The previous interval (scrubbing back), else the binary search.
    let k = if let Some(before) = cursor.checked_sub(1).filter(|&k| holds(k)) {
        before
    } else {
        match locate(times, t) {
            Span::Between(k, _) | Span::Hold(k) => k,
        }
    };
    *cursor = k;
    span_at(times, k, t)
}

#[cfg(test)]
mod tests {
    use super::super::sample::sample;
    use super::*;
    use crate::anim::test_rig::{channel, two_node_rig};
    use crate::rig::{Interpolation, Property};

    fn clip() -> Clip {
        let h = std::f32::consts::FRAC_1_SQRT_2;
        Clip {
            vrm: None,
            name: None,
            duration: 4.0,
            channels: vec![
                channel(
                    0,
                    Property::Translation,
                    Interpolation::Linear,
                    &[0.5, 1.0, 1.5, 2.5, 4.0],
                    &[0., 0., 0., 1., 2., 3., 4., 0., 1., 2., 2., 2., 9., 9., 9.],
                ),
                channel(
                    1,
                    Property::Rotation,
                    Interpolation::Linear,
                    &[0.0, 1.0, 3.0],
                    &[0., 0., 0., 1., 0., 0., h, h, 0., 0., -1., 0.],
                ),
                channel(
                    1,
                    Property::Scale,
                    Interpolation::CubicSpline,
                    &[0.0, 2.0],
                    &[0., 0., 0., 1., 1., 1., 1., 2., 3., 3., 2., 1., 2., 2., 2., 0., 0., 0.],
                ),
                // Not increasing: must fall back to the binary search and still agree.
                channel(
                    0,
                    Property::Scale,
                    Interpolation::Step,
                    &[0.0, 2.0, 1.0, 3.0],
                    &[1., 1., 1., 2., 2., 2., 3., 3., 3., 4., 4., 4.],
                ),
            ],
        }
    }

    #[test]
    fn cursor_sampling_matches_binary_search_forward_backward_and_jumping() {
        let rig = two_node_rig();
        let clip = clip();
        let mut sampler = Sampler::new(&clip);
        let mut times: Vec<f32> = (0..=120).map(|i| i as f32 / 24.0 - 0.5).collect();
        times.extend([3.0, 0.2, 4.5, 1.0, 1.0, 0.99, f32::NAN, 2.5, -1.0, f32::INFINITY]);
        times.extend((0..60).rev().map(|i| i as f32 / 15.0));
        for &t in &times {
            let mut by_search = Pose::rest(&rig);
            sample(&clip, t, &mut by_search);
            let mut by_cursor = Pose::rest(&rig);
            sampler.sample(&clip, t, &mut by_cursor);
            assert_eq!(by_search, by_cursor, "t = {t}");
        }
    }

    #[test]
    fn rebinds_when_given_another_clip() {
        let rig = two_node_rig();
        let first = clip();
        let mut second = clip();
        second.channels.truncate(2);
        second.channels[0].times = vec![0.0, 10.0].into();
        second.channels[0].values = vec![0., 0., 0., 10., 10., 10.].into();
        let mut sampler = Sampler::new(&first);
        sampler.sample(&first, 3.9, &mut Pose::rest(&rig));
        let mut by_cursor = Pose::rest(&rig);
        sampler.sample(&second, 5.0, &mut by_cursor);
        let mut by_search = Pose::rest(&rig);
        sample(&second, 5.0, &mut by_search);
        assert_eq!(by_cursor, by_search);
        assert_eq!(by_cursor.locals[0].translation, glam::Vec3::splat(5.0));
    }
}
