//! Forward-playback sampling with one cursor per channel. Playback mostly moves forward
//! by less than a key per frame, so the interval found last frame (or the next one) is
//! checked before falling back to the binary search. Results are identical to `sample`:
//! on strictly increasing key times the interval holding `t` is unique, and channels
//! whose times are not strictly increasing always use the binary search.

use super::pose::Pose;
use super::sample::{Span, apply_span, clamp_span, key_count, locate, sanitize_time, span_at};
use crate::rig::{Channel, Clip};

/// Per-channel cursors, reused frame after frame. Bound to a clip by the channels' key
/// storage; sampling a different clip rebinds (allocating only if it has more channels
/// than any clip seen before).
#[derive(Debug, Clone, Default)]
pub struct Sampler {
    cursors: Vec<ChannelCursor>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct ChannelCursor {
    /// Identity of the bound channel's key storage: address and length of `times`, length of
    /// `values`. Comparing them is how a clip change is noticed without a borrow (and
    /// without recomputing the key count, a division, every frame).
    times_addr: usize,
    times_len: usize,
    values_len: usize,
    keys: usize,
    /// Strictly increasing times: only then may the cursor shortcut the search.
    sorted: bool,
    /// Start of the interval used last time.
    key: usize,
}

impl ChannelCursor {
    fn bind(channel: &Channel) -> Self {
        let keys = key_count(channel);
        let sorted = channel.times.get(..keys).is_some_and(|times| times.windows(2).all(|w| w[0] < w[1]));
        Self {
            times_addr: channel.times.as_ptr() as usize,
            times_len: channel.times.len(),
            values_len: channel.values.len(),
            keys,
            sorted,
            key: 0,
        }
    }

    fn is_bound_to(&self, channel: &Channel) -> bool {
        self.times_addr == channel.times.as_ptr() as usize
            && self.times_len == channel.times.len()
            && self.values_len == channel.values.len()
    }
}

impl Sampler {
    /// A sampler bound to `clip`.
    pub fn new(clip: &Clip) -> Self {
        let mut sampler = Self::with_capacity(clip.channels.len());
        sampler.bind(clip);
        sampler
    }

    /// An unbound sampler with room for `channels` cursors, so binding a clip with at most
    /// that many channels never allocates.
    pub fn with_capacity(channels: usize) -> Self {
        Self { cursors: Vec::with_capacity(channels) }
    }

    /// Binds to `clip`, resetting every cursor.
    pub fn bind(&mut self, clip: &Clip) {
        self.cursors.clear();
        self.cursors.extend(clip.channels.iter().map(ChannelCursor::bind));
    }

    /// Same result as `sample(clip, t, pose)`, faster when `t` moves forward a little.
    pub fn sample(&mut self, clip: &Clip, t: f32, pose: &mut Pose) {
        if self.cursors.len() != clip.channels.len() {
            self.bind(clip);
        }
        let t = sanitize_time(t);
        for (cursor, channel) in self.cursors.iter_mut().zip(&clip.channels) {
            if !cursor.is_bound_to(channel) {
                *cursor = ChannelCursor::bind(channel);
            }
            if cursor.keys == 0 {
                continue;
            }
            let times = channel.times.get(..cursor.keys).unwrap_or_default();
            let span = if cursor.sorted { locate_from(times, t, &mut cursor.key) } else { locate(times, t) };
            apply_span(channel, span, pose);
        }
    }
}

/// Tries the cursor's interval and its two neighbours before the binary search; `times` must be
/// strictly increasing.
fn locate_from(times: &[f32], t: f32, cursor: &mut usize) -> Span {
    if let Some(span) = clamp_span(times, t) {
        return span;
    }
    let holds = |k: usize| match (times.get(k), times.get(k + 1)) {
        (Some(&t0), Some(&t1)) => t0 <= t && t < t1,
        _ => false,
    };
    // The same interval, the next (playing forwards) or the previous (scrubbing back).
    let k = if holds(*cursor) {
        *cursor
    } else if holds(*cursor + 1) {
        *cursor + 1
    } else if let Some(before) = cursor.checked_sub(1).filter(|&k| holds(k)) {
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
        second.channels[0].times = vec![0.0, 10.0];
        second.channels[0].values = vec![0., 0., 0., 10., 10., 10.];
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
