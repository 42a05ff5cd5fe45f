//! `--in-place`: a clip with the hips' travel across the ground taken out. The hips stay where
//! the clip starts them in the ground plane (perpendicular to the body's up, `hips`), while
//! their height along up and every rotation play as before; the travel removed is measured
//! for root-motion playback.
//!
//! When nothing above the hips is animated, their parent's world matrix is constant, so the
//! ground-plane part of each key is a linear function of the key: every key (and every
//! CUBICSPLINE tangent) is corrected on its own, and the result is pinned at every time, not
//! only at the keys. When an ancestor moves too, the hips are corrected at the union of the
//! key times of their chain and written LINEAR between them.

use std::sync::Arc;

use glam::{Mat3, Mat4, Vec3};
use serde::Serialize;

use super::hips::Hips;
use crate::anim::{Pose, compute_globals, sample};
use crate::rig::{Channel, Clip, Interpolation, Property, Rig};

/// The travel taken out of one clip, in world units (metres in glTF).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Travel {
    /// How far the hips end from where they start, across the ground.
    pub distance: f32,
    /// The world direction of that travel (unit; zero when there is none).
    pub direction: [f32; 3],
    /// `distance` over the clip's duration.
    pub speed: f32,
    /// The farthest the hips strayed from where they start, across the ground.
    pub farthest: f32,
}

/// Pins the hips of `rig` (which `channels` animate) in the ground plane. `None` when the
/// clip does not move them across it (nothing changed).
pub fn remove_travel(rig: &Rig, hips: Hips, channels: &mut Vec<Channel>, duration: f32) -> Option<Travel> {
    let chain: Vec<usize> = rig.ancestors(hips.node).collect();
    let moves_chain = channels.iter().any(|c| chain.contains(&c.node) && c.property != Property::Weights);
    let up = hips.up;
    let across = |w: Vec3| w - up * w.dot(up);
    let travel = if moves_chain {
        pin_sampled(rig, hips.node, &chain, channels, across)?
    } else {
        let parent = rig.nodes.get(hips.node).and_then(|n| n.parent);
        let world = parent.and_then(|p| rig.rest_world().get(p).copied()).unwrap_or(Mat4::IDENTITY);
        let slot = channels
            .iter()
            .position(|c| c.node == hips.node && c.property == Property::Translation && c.components == 3)?;
        let (pinned, offsets) = pin_keys(&channels[slot], world, across)?;
        channels[slot] = pinned;
        offsets
    };
    let (first, rest) = travel.split_first()?;
    let last = rest.last().copied().unwrap_or(*first) - *first;
    let farthest = rest.iter().map(|o| (*o - *first).length()).fold(0.0f32, f32::max);
    let distance = last.length();
    Some(Travel {
        distance,
        direction: last.try_normalize().unwrap_or(Vec3::ZERO).to_array(),
        speed: if duration > 0.0 { distance / duration } else { 0.0 },
        farthest,
    })
}

/// The hips' translation channel with each key's ground-plane offset from the first key's
/// taken out, under a parent whose world matrix is `parent`. Returns it and each key's
/// offset across the ground before the change; `None` when no key moves across it.
fn pin_keys(channel: &Channel, parent: Mat4, across: impl Fn(Vec3) -> Vec3) -> Option<(Channel, Vec<Vec3>)> {
    let linear = Mat3::from_mat4(parent);
    let undo = invert(linear)?;
    let cubic = channel.interpolation == Interpolation::CubicSpline;
    let value_at = |k: usize| if cubic { 3 * k + 1 } else { k };
    let elements: Vec<Vec3> = channel.values.chunks_exact(3).map(Vec3::from_slice).collect();
    let keys = elements.len() / if cubic { 3 } else { 1 };
    let offsets: Vec<Vec3> =
        (0..keys).map(|k| across(parent.transform_point3(elements[value_at(k)]))).collect();
    let start = *offsets.first()?;
    if offsets.iter().all(|o| *o == start) {
        return None;
    }
    let values: Vec<f32> = elements
        .iter()
        .enumerate()
        .flat_map(|(e, &v)| {
            let tangent = cubic && e % 3 != 1;
            let fixed = if tangent {
                v - undo * across(linear * v)
            } else {
                v - undo * (across(parent.transform_point3(v)) - start)
            };
            fixed.to_array()
        })
        .collect();
    Some((Channel { values: values.into(), ..channel.clone() }, offsets))
}

/// The hips pinned at the union of the key times of their chain (see the module comment):
/// their translation channel is replaced by (or, without one, given) a LINEAR one. Returns
/// each time's offset across the ground before the change.
fn pin_sampled(
    rig: &Rig,
    hips: usize,
    chain: &[usize],
    channels: &mut Vec<Channel>,
    across: impl Fn(Vec3) -> Vec3,
) -> Option<Vec<Vec3>> {
    let moving = |c: &Channel| (c.node == hips || chain.contains(&c.node)) && c.property != Property::Weights;
    let mut times: Vec<f32> = channels
        .iter()
        .filter(|c| moving(c))
        .flat_map(|c| c.times.iter().copied())
        .filter(|t| t.is_finite())
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    let parent = rig.nodes.get(hips).and_then(|n| n.parent)?;
    let clip = Clip { channels: channels.iter().filter(|c| moving(c)).cloned().collect(), ..Clip::default() };
    let mut pose = Pose::rest(rig);
    let mut globals = vec![Mat4::IDENTITY; rig.nodes.len()];
    let mut offsets = Vec::with_capacity(times.len());
    let mut values = Vec::with_capacity(times.len() * 3);
    for &t in &times {
        pose.reset(rig);
        sample(&clip, t, &mut pose);
        compute_globals(rig, &pose, &mut globals);
        let world = globals[parent];
        let local = pose.locals[hips].translation;
        offsets.push(across(world.transform_point3(local)));
        let undo = invert(Mat3::from_mat4(world))?;
        values.push((local, undo));
    }
    let start = *offsets.first()?;
    if offsets.iter().all(|o| *o == start) {
        return None;
    }
    let pinned: Vec<f32> = values
        .iter()
        .zip(&offsets)
        .flat_map(|((local, undo), offset)| (*local - *undo * (*offset - start)).to_array())
        .collect();
    channels.retain(|c| !(c.node == hips && c.property == Property::Translation));
    channels.push(Channel {
        node: hips,
        property: Property::Translation,
        interpolation: Interpolation::Linear,
        times: times.into(),
        values: Arc::from(pinned),
        components: 3,
    });
    Some(offsets)
}

/// The inverse of a parent's rotation and scale; `None` when it flattens space.
fn invert(m: Mat3) -> Option<Mat3> {
    let det = m.determinant();
    (det.is_finite() && det.abs() > 1e-12).then(|| m.inverse())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::test_rig::channel;
    use crate::rig::{Node, Scene, Transform};
    use glam::Quat;

    /// `mover` > `hips` > `head`, the hips 1 above the mover's origin, scaled by 2 and turned
    /// a quarter about Y (so local X is world -Z): a parent that is not the identity.
    fn rig() -> Rig {
        let node = |name: &str, parent: Option<usize>, children: Vec<usize>, rest: Transform| Node {
            name: Some(name.into()),
            parent,
            children,
            rest,
            ..Node::default()
        };
        let turned = Transform {
            rotation: Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
            scale: Vec3::splat(2.0),
            ..Transform::IDENTITY
        };
        let up = |y: f32| Transform { translation: Vec3::new(0.0, y, 0.0), ..Transform::IDENTITY };
        Rig {
            nodes: vec![
                node("mover", None, vec![1], turned),
                node("hips", Some(0), vec![2], up(0.5)),
                node("head", Some(1), vec![], up(0.3)),
            ],
            order: vec![0, 1, 2],
            scenes: vec![Scene { name: None, roots: vec![0] }],
            default_scene: Some(0),
            ..Rig::default()
        }
    }

    /// World position of the hips at `t` under `channels`.
    fn hips_at(rig: &Rig, channels: &[Channel], t: f32) -> Vec3 {
        let clip = Clip { channels: channels.to_vec(), ..Clip::default() };
        let mut pose = Pose::rest(rig);
        sample(&clip, t, &mut pose);
        let mut globals = vec![Mat4::IDENTITY; rig.nodes.len()];
        compute_globals(rig, &pose, &mut globals);
        globals[1].w_axis.truncate()
    }

    const HIPS: Hips = Hips { node: 1, up: Vec3::Y };

    #[test]
    fn keys_under_a_still_parent_are_pinned_at_every_time_and_keep_their_height() {
        let rig = rig();
        // Local +X is world -Z; the parent's scale doubles every step.
        let travel = [0.0, 0.5, 0.0, 0.5, 0.6, 0.1, 1.0, 0.4, 0.0];
        let mut channels =
            vec![channel(1, Property::Translation, Interpolation::Linear, &[0.0, 1.0, 2.0], &travel)];
        let before = channels.clone();
        let t = remove_travel(&rig, HIPS, &mut channels, 2.0).expect("travels");
        // From local (0, 0.5, 0) to (1, 0.4, 0): 1 along local X, 2 in the world along -Z.
        assert!((t.distance - 2.0).abs() < 1e-5, "{t:?}");
        assert!((Vec3::from(t.direction) - Vec3::NEG_Z).length() < 1e-5, "{t:?}");
        assert!((t.speed - 1.0).abs() < 1e-5);
        assert_eq!(channels[0].interpolation, Interpolation::Linear);
        let start = hips_at(&rig, &before, 0.0);
        for i in 0..=40 {
            let s = i as f32 * 0.05;
            let (was, now) = (hips_at(&rig, &before, s), hips_at(&rig, &channels, s));
            assert!((now.x - start.x).abs() < 1e-5 && (now.z - start.z).abs() < 1e-5, "t={s}: {now}");
            assert!((now.y - was.y).abs() < 1e-5, "t={s}: height {} was {}", now.y, was.y);
        }
    }

    #[test]
    fn cubic_spline_tangents_lose_their_ground_part_too() {
        let rig = rig();
        // in-tangent, value, out-tangent per key.
        let values =
            [0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 3.0, 1.0, 0.0, 3.0, 1.0, 0.0, 1.0, 0.5, 2.0, 0.0, 0.0, 0.0];
        let mut channels =
            vec![channel(1, Property::Translation, Interpolation::CubicSpline, &[0.0, 1.0], &values)];
        let before = channels.clone();
        remove_travel(&rig, HIPS, &mut channels, 1.0).expect("travels");
        let start = hips_at(&rig, &before, 0.0);
        for i in 0..=20 {
            let s = i as f32 * 0.05;
            let (was, now) = (hips_at(&rig, &before, s), hips_at(&rig, &channels, s));
            assert!((now.x - start.x).abs() < 1e-5 && (now.z - start.z).abs() < 1e-5, "t={s}: {now}");
            assert!((now.y - was.y).abs() < 1e-5, "t={s}");
        }
    }

    #[test]
    fn under_a_moving_parent_the_hips_are_pinned_at_the_chains_key_times() {
        let rig = rig();
        let turn = |a: f32| Quat::from_rotation_y(a).to_array();
        let rotations: Vec<f32> = [turn(1.0), turn(2.0), turn(1.2)].concat();
        let mut channels = vec![
            channel(0, Property::Rotation, Interpolation::Linear, &[0.0, 0.5, 1.0], &rotations),
            channel(0, Property::Translation, Interpolation::Step, &[0.25], &[0.3, 0.0, -0.2]),
            channel(
                1,
                Property::Translation,
                Interpolation::Linear,
                &[0.0, 1.0],
                &[0.2, 0.5, 0.0, 0.9, 0.7, 0.1],
            ),
        ];
        let before = channels.clone();
        let t = remove_travel(&rig, HIPS, &mut channels, 1.0).expect("travels");
        let hips = channels.iter().find(|c| c.node == 1).expect("hips channel");
        assert_eq!(hips.interpolation, Interpolation::Linear);
        assert_eq!(&hips.times[..], &[0.0, 0.25, 0.5, 1.0]);
        let start = hips_at(&rig, &before, 0.0);
        for &s in hips.times.iter() {
            let (was, now) = (hips_at(&rig, &before, s), hips_at(&rig, &channels, s));
            assert!(
                (now.x - start.x).abs() < 1e-5 && (now.z - start.z).abs() < 1e-5,
                "t={s}: {now} vs {start}"
            );
            assert!((now.y - was.y).abs() < 1e-5, "t={s}");
        }
        let end = hips_at(&rig, &before, 1.0);
        assert!((t.distance - ((end - start) * Vec3::new(1.0, 0.0, 1.0)).length()).abs() < 1e-5);
        // The parent's channels are as they were.
        assert_eq!(channels.iter().filter(|c| c.node == 0).count(), 2);
    }

    #[test]
    fn a_clip_that_does_not_travel_is_left_alone() {
        let rig = rig();
        let mut channels = vec![channel(
            1,
            Property::Translation,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[0.0, 0.5, 0.0, 0.0, 0.9, 0.0],
        )];
        assert!(remove_travel(&rig, HIPS, &mut channels, 1.0).is_none());
        assert_eq!(&channels[0].values[..], &[0.0, 0.5, 0.0, 0.0, 0.9, 0.0]);
    }
}
