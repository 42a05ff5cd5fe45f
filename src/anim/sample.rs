//! Sampling: the value of one channel at time `t` (`sample_channel`), and a whole clip
//! written into a `Pose` (`sample`). Key lookup is a binary search that tolerates
//! non-increasing or NaN key times (import reports those; sampling must survive them).
//! The cursor-based forward-playback path lives in `sampler.rs` and shares `Span`.

use glam::{Quat, Vec4};

use super::interpolate::{hermite_weights, normalize_quat, slerp_shortest};
use super::pose::Pose;
use crate::rig::{Channel, Clip, Interpolation, Property};

/// Which keys produced a sampled value, so the UI can say "slerp(key 12, key 13, 0.37)".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleInfo {
    /// The key at or before `t` (the only key used when `next` is `None`).
    pub key: usize,
    /// The key interpolated towards; `None` when one key's value is held (before the first
    /// key, after the last, a single key, STEP, or a degenerate interval).
    pub next: Option<usize>,
    /// Position between `key` and `next` in 0..=1 (0 when `next` is `None`).
    pub factor: f32,
}

/// Where `t` falls among a channel's keys.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Span {
    /// The value of this key holds.
    Hold(usize),
    /// Between key `k` and `k + 1`, at `s` in 0..=1.
    Between(usize, f32),
}

/// Number of complete keys: times and values may disagree in a broken file, so only keys
/// with both a time and a full value count.
pub fn key_count(channel: &Channel) -> usize {
    let elements_per_key = match channel.interpolation {
        Interpolation::CubicSpline => 3,
        Interpolation::Step | Interpolation::Linear => 1,
    };
    let floats_per_key = elements_per_key * channel.components;
    if floats_per_key == 0 {
        return 0;
    }
    channel.times.len().min(channel.values.len() / floats_per_key)
}

/// NaN time is treated as 0, so a NaN clock shows the first key instead of freezing on an
/// arbitrary one.
pub(crate) fn sanitize_time(t: f32) -> f32 {
    if t.is_nan() { 0.0 } else { t }
}

/// Binary search for the interval holding `t`. `times` is already cut to `key_count`.
/// On sorted times the interval is the unique `k` with `times[k] <= t < times[k+1]`; on
/// unsorted times it is some in-range interval (never out of bounds).
pub(crate) fn locate(times: &[f32], t: f32) -> Span {
    if let Some(span) = clamp_span(times, t) {
        return span;
    }
    let i = times.partition_point(|&x| x <= t);
    let k = i.saturating_sub(1).min(times.len().saturating_sub(2));
    span_at(times, k, t)
}

/// The clamped cases shared by the binary search and the cursor: no interval to search
/// when there is at most one key, or `t` is at/before the first or at/after the last key.
/// The first key's time is not shifted to 0: before it, its value holds.
pub(crate) fn clamp_span(times: &[f32], t: f32) -> Option<Span> {
    let (Some(&first), Some(&last)) = (times.first(), times.last()) else {
        return Some(Span::Hold(0));
    };
    if times.len() == 1 || t <= first {
        Some(Span::Hold(0))
    } else if t >= last {
        Some(Span::Hold(times.len() - 1))
    } else {
        None
    }
}

/// The interval `k .. k+1` at `t`, `k + 1 < times.len()` required. A zero, negative or NaN
/// interval (unsorted keys) holds key `k` instead of dividing by it.
pub(crate) fn span_at(times: &[f32], k: usize, t: f32) -> Span {
    let (Some(&t0), Some(&t1)) = (times.get(k), times.get(k + 1)) else {
        return Span::Hold(k.min(times.len().saturating_sub(1)));
    };
    span_between(k, t0, t1, t)
}

/// `span_at` once `times[k]` and `times[k + 1]` are read (`t0`, `t1`).
#[inline(always)]
pub(crate) fn span_between(k: usize, t0: f32, t1: f32, t: f32) -> Span {
    let td = t1 - t0;
    let s = (t - t0) / td;
    if td > 0.0 && s >= 0.0 { Span::Between(k, s.min(1.0)) } else { Span::Hold(k) }
}

/// Samples one channel at `t` into `out` (`components` floats; extra slots are left alone,
/// missing ones are skipped). Rotations (4 components) come out as unit quaternions.
/// A channel without a complete key leaves `out` untouched and reports key 0.
pub fn sample_channel(channel: &Channel, t: f32, out: &mut [f32]) -> SampleInfo {
    let n = key_count(channel);
    if n == 0 {
        return SampleInfo { key: 0, next: None, factor: 0.0 };
    }
    let times = channel.times.get(..n).unwrap_or_default();
    write_span(channel, locate(times, sanitize_time(t)), out)
}

/// Samples every channel of `clip` at `t` into `pose`. Only channel targets are written;
/// everything else keeps what `pose` holds (normally the rest pose). A node whose
/// translation, rotation or scale is sampled stops using its file `matrix`.
pub fn sample(clip: &Clip, t: f32, pose: &mut Pose) {
    let t = sanitize_time(t);
    for channel in &clip.channels {
        let n = key_count(channel);
        if n == 0 {
            continue;
        }
        let times = channel.times.get(..n).unwrap_or_default();
        apply_span(channel, locate(times, t), pose);
    }
    if let Some(play) = &clip.vrm {
        super::vrm_pose::apply(play, t, pose);
    }
}

/// Writes one channel's value for `span` into its target node of `pose`.
pub(crate) fn apply_span(channel: &Channel, span: Span, pose: &mut Pose) {
    let node = channel.node;
    if channel.property == Property::Weights {
        if let Some(weights) = pose.morph_weights.get_mut(node) {
            write_span(channel, span, weights);
        }
        return;
    }
    let Some(local) = pose.locals.get_mut(node) else {
        return;
    };
    // Start from the current value so a channel with too few components changes only what
    // it has.
    let mut buf = match channel.property {
        Property::Translation => local.translation.extend(0.0).to_array(),
        Property::Scale => local.scale.extend(0.0).to_array(),
        Property::Rotation | Property::Weights => local.rotation.to_array(),
    };
    write_span(channel, span, &mut buf);
    match channel.property {
        Property::Translation => local.translation = Vec4::from_array(buf).truncate(),
        Property::Scale => local.scale = Vec4::from_array(buf).truncate(),
        // write_span already returns unit quaternions for 4 components; anything else is a
        // malformed channel whose partial write still has to become a rotation.
        Property::Rotation | Property::Weights if channel.components == 4 => {
            local.rotation = Quat::from_array(buf);
        }
        Property::Rotation | Property::Weights => {
            local.rotation = normalize_quat(Vec4::from_array(buf));
        }
    }
    if let Some(flag) = pose.use_matrix.get_mut(node) {
        *flag = false;
    }
}

/// Evaluates the channel's interpolation for `span` into `out`. The caller guarantees
/// `span`'s keys are below `key_count(channel)`; element reads still go through `get`.
pub(crate) fn write_span(channel: &Channel, span: Span, out: &mut [f32]) -> SampleInfo {
    // Spelling out the common widths lets the compiler specialise (and unroll) each copy.
    match channel.components {
        3 => write_span_with(channel, span, out, 3),
        4 => write_span_with(channel, span, out, 4),
        c => write_span_with(channel, span, out, c),
    }
}

#[inline(always)]
fn write_span_with(channel: &Channel, span: Span, out: &mut [f32], c: usize) -> SampleInfo {
    let cubic = channel.interpolation == Interpolation::CubicSpline;
    // CUBICSPLINE keys are (in-tangent, value, out-tangent): the value is element 3k + 1.
    let element =
        |index: usize| -> &[f32] { channel.values.get(index * c..(index + 1) * c).unwrap_or_default() };
    let value = |k: usize| {
        if cubic { element(3 * k + 1) } else { element(k) }
    };
    let rotation = channel.property == Property::Rotation && c == 4;

    let (k, s) = match span {
        Span::Hold(k) => {
            copy_value(value(k), rotation, out);
            return hold(k);
        }
        Span::Between(k, _) if channel.interpolation == Interpolation::Step => {
            copy_value(value(k), rotation, out);
            return hold(k);
        }
        Span::Between(k, s) => (k, s),
    };
    match channel.interpolation {
        Interpolation::Linear if rotation => {
            let q = slerp_shortest(to_vec4(value(k)), to_vec4(value(k + 1)), s);
            write_quat(q, out);
        }
        Interpolation::Linear | Interpolation::Step => {
            for ((o, &a), &b) in out.iter_mut().zip(value(k)).zip(value(k + 1)) {
                *o = a + (b - a) * s;
            }
        }
        Interpolation::CubicSpline => {
            let td = match (channel.times.get(k), channel.times.get(k + 1)) {
                (Some(&t0), Some(&t1)) => t1 - t0,
                _ => 0.0,
            };
            let [hv0, hb0, hv1, ha1] = hermite_weights(s, td);
            let (v0, b0) = (element(3 * k + 1), element(3 * k + 2));
            let (a1, v1) = (element(3 * k + 3), element(3 * k + 4));
            if rotation {
                let mut q = [0.0; 4];
                hermite_into(&mut q, [hv0, hb0, hv1, ha1], [v0, b0, v1, a1]);
                write_quat(normalize_quat(Vec4::from_array(q)), out);
            } else {
                hermite_into(out, [hv0, hb0, hv1, ha1], [v0, b0, v1, a1]);
            }
        }
    }
    SampleInfo { key: k, next: Some(k + 1), factor: s }
}

fn hold(k: usize) -> SampleInfo {
    SampleInfo { key: k, next: None, factor: 0.0 }
}

/// `out = h0 v_k + h1 b_k + h2 v_k+1 + h3 a_k+1`, component by component.
fn hermite_into(out: &mut [f32], h: [f32; 4], parts: [&[f32]; 4]) {
    let [v0, b0, v1, a1] = parts;
    let terms = v0.iter().zip(b0).zip(v1).zip(a1);
    for (o, (((&v0, &b0), &v1), &a1)) in out.iter_mut().zip(terms) {
        *o = h[0] * v0 + h[1] * b0 + h[2] * v1 + h[3] * a1;
    }
}

fn copy_value(value: &[f32], rotation: bool, out: &mut [f32]) {
    if rotation {
        write_quat(normalize_quat(to_vec4(value)), out);
    } else {
        for (o, &v) in out.iter_mut().zip(value) {
            *o = v;
        }
    }
}

fn to_vec4(v: &[f32]) -> Vec4 {
    match v {
        [x, y, z, w, ..] => Vec4::new(*x, *y, *z, *w),
        _ => Vec4::W,
    }
}

fn write_quat(q: Quat, out: &mut [f32]) {
    for (o, v) in out.iter_mut().zip(q.to_array()) {
        *o = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::test_rig::{channel, two_node_rig};
    use crate::rig::{Mesh, Node};
    use glam::Vec3;

    fn at(ch: &Channel, t: f32) -> ([f32; 4], SampleInfo) {
        let mut out = [f32::NAN; 4];
        let info = sample_channel(ch, t, &mut out);
        (out, info)
    }

    fn info(key: usize, next: Option<usize>, factor: f32) -> SampleInfo {
        SampleInfo { key, next, factor }
    }

    fn close(a: &[f32], b: &[f32]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
    }

    fn linear_translation() -> Channel {
        // First key after 0 (like the Cesium models): before it, the first value holds.
        channel(0, Property::Translation, Interpolation::Linear, &[1.0, 3.0], &[0., 0., 0., 2., 4., 6.])
    }

    #[test]
    fn linear_clamps_and_interpolates_without_shifting_the_timeline() {
        let ch = linear_translation();
        let (v, i) = at(&ch, 0.0);
        assert_eq!((&v[..3], i), (&[0., 0., 0.][..], info(0, None, 0.0)));
        let (v, i) = at(&ch, 1.0);
        assert_eq!((&v[..3], i), (&[0., 0., 0.][..], info(0, None, 0.0)));
        // Halfway in time: (1, 2, 3). Shifting the clip to start at 0 would give 2/3 of the way.
        let (v, i) = at(&ch, 2.0);
        assert_eq!((&v[..3], i), (&[1., 2., 3.][..], info(0, Some(1), 0.5)));
        let (v, _) = at(&ch, 1.5);
        assert_eq!(&v[..3], &[0.5, 1.0, 1.5]);
        let (v, i) = at(&ch, 3.0);
        assert_eq!((&v[..3], i), (&[2., 4., 6.][..], info(1, None, 0.0)));
        let (v, i) = at(&ch, 99.0);
        assert_eq!((&v[..3], i), (&[2., 4., 6.][..], info(1, None, 0.0)));
        // Only 3 components written for a translation.
        assert!(v[3].is_nan());
        // NaN time is time 0: before the first key.
        let (v, i) = at(&ch, f32::NAN);
        assert_eq!((&v[..3], i), (&[0., 0., 0.][..], info(0, None, 0.0)));
    }

    #[test]
    fn linear_at_an_inner_key_uses_that_key() {
        let ch = channel(
            0,
            Property::Scale,
            Interpolation::Linear,
            &[0.0, 1.0, 2.0],
            &[1., 1., 1., 3., 3., 3., 5., 7., 9.],
        );
        let (v, i) = at(&ch, 1.0);
        assert_eq!((&v[..3], i), (&[3., 3., 3.][..], info(1, Some(2), 0.0)));
        // 1.25: a quarter of the way from (3,3,3) to (5,7,9) = (3.5, 4, 4.5)
        let (v, _) = at(&ch, 1.25);
        assert_eq!(&v[..3], &[3.5, 4.0, 4.5]);
    }

    #[test]
    fn step_holds_the_key_at_or_before_t() {
        let ch = channel(
            0,
            Property::Translation,
            Interpolation::Step,
            &[0.0, 1.0, 2.0],
            &[10., 0., 0., 20., 0., 0., 30., 0., 0.],
        );
        for (t, key, x) in
            [(-1.0, 0, 10.0), (0.99, 0, 10.0), (1.0, 1, 20.0), (1.5, 1, 20.0), (2.0, 2, 30.0), (7.0, 2, 30.0)]
        {
            let (v, i) = at(&ch, t);
            assert_eq!((v[0], i), (x, info(key, None, 0.0)), "t = {t}");
        }
    }

    #[test]
    fn a_single_key_is_constant() {
        for interpolation in [Interpolation::Step, Interpolation::Linear] {
            let ch = channel(0, Property::Translation, interpolation, &[0.5], &[1., 2., 3.]);
            for t in [-1.0, 0.5, 2.0] {
                let (v, i) = at(&ch, t);
                assert_eq!((&v[..3], i), (&[1., 2., 3.][..], info(0, None, 0.0)));
            }
        }
        let cubic = channel(
            0,
            Property::Translation,
            Interpolation::CubicSpline,
            &[0.5],
            &[9., 9., 9., 1., 2., 3., 8., 8., 8.],
        );
        assert_eq!(&at(&cubic, 4.0).0[..3], &[1., 2., 3.]);
    }

    #[test]
    fn rotation_slerps_on_the_shortest_arc() {
        // Key 0: 10 degrees about z; key 1: 30 degrees about z stored negated (-q).
        let (s5, c5) = (0.087_155_74, 0.996_194_7);
        let (s15, c15) = (0.258_819_04, 0.965_925_8);
        let ch = channel(
            0,
            Property::Rotation,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[0., 0., s5, c5, 0., 0., -s15, -c15],
        );
        let (v, i) = at(&ch, 0.5);
        // 20 degrees about z: (0, 0, sin 10, cos 10); the long way would pass near 190 degrees.
        assert!(close(&v, &[0.0, 0.0, 0.173_648_18, 0.984_807_8]), "{v:?}");
        assert_eq!(i, info(0, Some(1), 0.5));
        // At the last key the stored (negated) value is returned: same rotation.
        let (v, _) = at(&ch, 1.0);
        assert!(close(&v, &[0., 0., -s15, -c15]));
    }

    #[test]
    fn non_unit_rotation_keys_come_out_unit() {
        let ch = channel(0, Property::Rotation, Interpolation::Step, &[0.0], &[0., 0., 0., 2.]);
        assert_eq!(at(&ch, 0.0).0, [0., 0., 0., 1.]);
    }

    #[test]
    fn cubic_spline_follows_the_hermite_formula() {
        // td = 2, s = 0.5: h00 = 0.5, td*h10 = 2 * 0.125 = 0.25, h01 = 0.5, td*h11 = -0.25.
        // Layout per key: in-tangent a, value v, out-tangent b (3 floats each).
        // x: v0 = 1, b0 = 2, a1 = 3, v1 = 5 -> 0.5 + 0.5 + 2.5 - 0.75 = 2.75
        // y: v1 = 4 only                   -> 0.5 * 4 = 2
        // z: b0 = 1 only                   -> 0.25
        let ch = channel(
            0,
            Property::Translation,
            Interpolation::CubicSpline,
            &[1.0, 3.0],
            &[
                7., 7., 7., /* a0 unused */ 1., 0., 0., /* v0 */ 2., 0., 1., /* b0 */
                3., 0., 0., /* a1 */ 5., 4., 0., /* v1 */ 7., 7., 7., /* b1 unused */
            ],
        );
        let (v, i) = at(&ch, 2.0);
        assert!(close(&v[..3], &[2.75, 2.0, 0.25]), "{v:?}");
        assert_eq!(i, info(0, Some(1), 0.5));
        // Clamped ends hold the values, not the tangents.
        assert_eq!(&at(&ch, 0.0).0[..3], &[1., 0., 0.]);
        assert_eq!(&at(&ch, 3.0).0[..3], &[5., 4., 0.]);
    }

    #[test]
    fn cubic_spline_rotation_is_normalised() {
        // identity -> 180 degrees about z with zero tangents; s = 0.5 gives
        // 0.5 (0,0,0,1) + 0.5 (0,0,1,0) = (0,0,0.5,0.5) -> normalised (0,0,0.7071,0.7071).
        let ch = channel(
            0,
            Property::Rotation,
            Interpolation::CubicSpline,
            &[0.0, 1.0],
            &[
                0., 0., 0., 0., 0., 0., 0., 1., 0., 0., 0., 0., //
                0., 0., 0., 0., 0., 0., 1., 0., 0., 0., 0., 0.,
            ],
        );
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert!(close(&at(&ch, 0.5).0, &[0., 0., h, h]));
    }

    #[test]
    fn weights_channel_lerps_every_target() {
        let ch = channel(0, Property::Weights, Interpolation::Linear, &[0.0, 1.0], &[0.0, 1.0, 1.0, 0.0]);
        assert_eq!(ch.components, 2);
        let mut out = [9.0; 3];
        let i = sample_channel(&ch, 0.25, &mut out);
        assert_eq!(out, [0.25, 0.75, 9.0]);
        assert_eq!(i, info(0, Some(1), 0.25));
    }

    #[test]
    fn broken_key_data_never_panics() {
        let mut ch = channel(
            0,
            Property::Translation,
            Interpolation::Linear,
            &[0.0, 2.0, 1.0, 1.0, f32::NAN, 3.0],
            &[0.; 18],
        );
        for interpolation in [Interpolation::Step, Interpolation::Linear, Interpolation::CubicSpline] {
            ch.interpolation = interpolation;
            for i in -10..60 {
                let (v, info) = at(&ch, i as f32 / 10.0);
                assert!(v[..3].iter().all(|x| x.is_finite()));
                assert!(info.key < key_count(&ch));
                assert!(info.next.is_none_or(|n| n < key_count(&ch)));
                assert!((0.0..=1.0).contains(&info.factor));
            }
        }
        // More times than values: only complete keys count (6 floats = 2 keys).
        ch.interpolation = Interpolation::Linear;
        ch.values = ch.values[..6].into();
        std::sync::Arc::make_mut(&mut ch.values)[3] = 4.0;
        assert_eq!(key_count(&ch), 2);
        assert_eq!(at(&ch, 10.0).0[0], 4.0);
        // No keys at all, or no components: nothing written.
        ch.values = Vec::new().into();
        let (v, i) = at(&ch, 1.0);
        assert!(v.iter().all(|x| x.is_nan()));
        assert_eq!(i, info(0, None, 0.0));
        ch.components = 0;
        ch.values = vec![1.0; 6].into();
        let (v, _) = at(&ch, 1.0);
        assert!(v.iter().all(|x| x.is_nan()));
    }

    #[test]
    fn sample_writes_only_channel_targets() {
        let mut rig = two_node_rig();
        rig.nodes.push(Node {
            mesh: Some(0),
            matrix: Some(glam::Mat4::from_scale(Vec3::splat(2.0))),
            ..Node::default()
        });
        rig.order.push(2);
        rig.meshes.push(Mesh { default_weights: vec![0.5, 0.5], ..Mesh::default() });
        rig.nodes[1].rest.translation = Vec3::new(7.0, 8.0, 9.0);
        rig.nodes[1].matrix = Some(glam::Mat4::from_translation(Vec3::new(7.0, 8.0, 9.0)));
        let clip = Clip {
            vrm: None,
            name: None,
            duration: 3.0,
            channels: vec![
                linear_translation(),
                channel(1, Property::Scale, Interpolation::Step, &[0.0], &[2., 2., 2.]),
                channel(2, Property::Weights, Interpolation::Step, &[0.0], &[1.0, 0.0]),
                // Targets a node that does not exist: ignored.
                channel(9, Property::Translation, Interpolation::Step, &[0.0], &[1.; 3]),
            ],
        };
        let mut pose = Pose::rest(&rig);
        sample(&clip, 2.0, &mut pose);
        assert_eq!(pose.locals[0].translation, Vec3::new(1.0, 2.0, 3.0));
        // Node 1: scale sampled, translation keeps its rest value, matrix no longer used.
        assert_eq!(pose.locals[1].scale, Vec3::splat(2.0));
        assert_eq!(pose.locals[1].translation, Vec3::new(7.0, 8.0, 9.0));
        assert!(!pose.use_matrix[1]);
        // Node 2: weights sampled, its matrix still applies (weights do not move a node).
        assert_eq!(pose.morph_weights[2], vec![1.0, 0.0]);
        assert!(pose.use_matrix[2]);
        assert_eq!(pose.locals[2], crate::rig::Transform::IDENTITY);
    }
}
