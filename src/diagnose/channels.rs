//! Animation checks: TRS channels on skinned-mesh nodes, key times, unit quaternions, and
//! rotation keys whose neighbours sit in the other hemisphere or nearly opposite.
//!
//! From KhronosGroup/glTF-Validator `lib/src/base/animation.dart`:
//! - a translation/rotation/scale channel on a node with a skin is
//!   ANIMATION_CHANNEL_TARGET_NODE_SKIN at `/animations/A/channels/C/target/path`;
//! - `AnimationInputChecker` (see `rig::key_times`): per key, ACCESSOR_ANIMATION_INPUT_NEGATIVE
//!   or ACCESSOR_ANIMATION_INPUT_NON_INCREASING;
//! - `QuaternionFloatChecker`: `|sqrt(x²+y²+z²+w²) - 1| > 0.00769` is
//!   ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION at
//!   `/animations/A/channels/C/sampler`; for CUBICSPLINE only the value of each
//!   (in-tangent, value, out-tangent) triplet is checked. Scalar indices count tangents too.
//!
//! `rig::Channel` does not keep its sampler index, so key-time findings point at
//! `/animations/A/channels/C/sampler` instead of the validator's
//! `/animations/A/samplers/S/input`, and a sampler shared by two channels is reported twice.
//! Import reports key times per key at the validator's sampler pointer: `check` skips the
//! key-time rule when `rig.findings` has those codes, so it only runs on rigs built without
//! import. Quaternion length is always checked here (import's per-accessor note is dropped).

use super::codes;
use super::finding::{Sink, dart_num};
use crate::rig::key_times::key_time_issues;
use crate::rig::{Channel, Interpolation, Property, Rig};

/// The validator's `unitLengthThresholdVec4` (slightly above signed 8-bit quantisation error).
pub const UNIT_LENGTH_THRESHOLD: f64 = 0.00769;

/// Keys whose quaternions are at least 170 degrees apart as rotations (`|dot| <= cos 85°`):
/// the interpolated path between them is nearly undefined and flips with tiny edits.
pub const NEAR_OPPOSITE_DOT: f32 = 0.087_155_74;

/// Which of the import-overlapping rules to run.
pub(crate) struct ChannelRules {
    pub key_times: bool,
}

pub(crate) fn check_channels(rig: &Rig, rules: &ChannelRules, sink: &mut Sink) {
    for (a, clip) in rig.clips.iter().enumerate() {
        for (k, channel) in clip.channels.iter().enumerate() {
            let c = rig.file_channel(a, k);
            let trs = channel.property != Property::Weights;
            if trs && rig.nodes.get(channel.node).is_some_and(|n| n.skin.is_some()) {
                sink.general(
                    codes::ANIMATION_CHANNEL_TARGET_NODE_SKIN,
                    format!("/animations/{a}/channels/{c}/target/path"),
                    || "Animated TRS properties will not affect a skinned mesh.".to_string(),
                );
            }
            let sampler = || format!("/animations/{a}/channels/{c}/sampler");
            if rules.key_times {
                key_times(&channel.times, sink, sampler);
            }
            if channel.property == Property::Rotation && channel.components == 4 {
                unit_quaternions(channel, sink, sampler);
                if channel.interpolation != Interpolation::Step {
                    neighbours(channel, sink, sampler);
                }
            }
        }
    }
}

fn key_times(times: &[f32], sink: &mut Sink, pointer: impl Fn() -> String) {
    for issue in key_time_issues(times) {
        let code = if issue.code == codes::ANIMATION_INPUT_NEGATIVE.id {
            codes::ANIMATION_INPUT_NEGATIVE
        } else {
            codes::ANIMATION_INPUT_NON_INCREASING
        };
        sink.general(code, pointer(), || issue.message);
    }
}

/// The value quaternion of every key with the index of its first scalar in the output
/// accessor (CUBICSPLINE keys store in-tangent, value, out-tangent).
fn key_values(channel: &Channel) -> impl Iterator<Item = (usize, [f32; 4])> + '_ {
    let (stride, offset) = match channel.interpolation {
        Interpolation::CubicSpline => (12, 4),
        _ => (4, 0),
    };
    (0..channel.times.len()).filter_map(move |k| {
        let start = k * stride + offset;
        let q = channel.values.get(start..start + 4)?;
        Some((start, [q[0], q[1], q[2], q[3]]))
    })
}

fn unit_quaternions(channel: &Channel, sink: &mut Sink, pointer: impl Fn() -> String) {
    for (start, q) in key_values(channel) {
        let length = q.iter().map(|&v| f64::from(v) * f64::from(v)).sum::<f64>().sqrt();
        // `>` as the validator writes it: a NaN length is not reported here (NaN values
        // are ACCESSOR_INVALID_FLOAT in the validator's accessor pass).
        if (length - 1.0).abs() > UNIT_LENGTH_THRESHOLD {
            sink.general(codes::NON_NORMALIZED_QUATERNION, pointer(), || {
                format!(
                    "Animation sampler output accessor element at indices {}..{} is not of unit length: {}.",
                    start,
                    start + 3,
                    dart_num(length)
                )
            });
        }
    }
}

/// How far below 0 a dot product of two unit keys must be to put them in opposite
/// hemispheres: a dot of 0 (keys 180 degrees apart) has no shorter arc to miss, and f32 keys
/// whose exact dot is 0 give up to a few 1e-8 either side of it (4 products, each rounded at
/// 2^-24). Those pairs are `ROTATION_NEAR_OPPOSITE`, not a flip.
pub const FLIP_DOT: f32 = -1e-6;

/// Whether rotation keys `p` and `q` lie in opposite hemispheres (`p.q` below 0 by more
/// than round-off, relative to their lengths).
pub fn opposite_hemispheres(p: [f32; 4], q: [f32; 4]) -> bool {
    let dot: f64 = p.iter().zip(&q).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum();
    let lengths = f64::from(norm(&p)) * f64::from(norm(&q));
    dot < f64::from(FLIP_DOT) * lengths.max(f64::MIN_POSITIVE)
}

/// Counts consecutive key pairs in opposite hemispheres (`q·q' < 0`: a slerp without the
/// shortest-arc flip, or a cubic spline in raw quaternion space, takes the long way round)
/// and nearly opposite rotations; one finding per channel and rule.
fn neighbours(channel: &Channel, sink: &mut Sink, pointer: impl Fn() -> String) {
    let mut flips = (0usize, None::<usize>);
    let mut opposite = (0usize, None::<usize>);
    let mut pairs = 0usize;
    let mut previous: Option<[f32; 4]> = None;
    for (k, (_, q)) in key_values(channel).enumerate() {
        if let Some(p) = previous {
            pairs += 1;
            let dot: f32 = p.iter().zip(&q).map(|(a, b)| a * b).sum();
            let lengths = norm(&p) * norm(&q);
            if opposite_hemispheres(p, q) {
                flips.0 += 1;
                flips.1.get_or_insert(k - 1);
            }
            if lengths > 0.0 && (dot / lengths).abs() <= NEAR_OPPOSITE_DOT {
                opposite.0 += 1;
                opposite.1.get_or_insert(k - 1);
            }
        }
        previous = Some(q);
    }
    let key_time = |k: usize| channel.times.get(k).copied().unwrap_or(0.0);
    if let (count, Some(first)) = flips {
        sink.general(codes::ROTATION_HEMISPHERE_FLIP, pointer(), || {
            format!(
                "{count} of {pairs} consecutive rotation key pairs have a negative dot product (first: keys {first} and {}, t = {} s); interpolation must take the shortest arc.",
                first + 1,
                key_time(first)
            )
        });
    }
    if let (count, Some(first)) = opposite {
        sink.general(codes::ROTATION_NEAR_OPPOSITE, pointer(), || {
            format!(
                "{count} of {pairs} consecutive rotation key pairs are about 180 degrees apart (first: keys {first} and {}, t = {} s); the path between them is ambiguous.",
                first + 1,
                key_time(first)
            )
        });
    }
}

fn norm(q: &[f32; 4]) -> f32 {
    q.iter().map(|v| v * v).sum::<f32>().sqrt()
}
