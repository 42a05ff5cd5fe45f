//! The baked sampler (`Sampler` over `ClipTracks`) against the stateless reference
//! (`sample`, which reads the `Channel`s directly), value for value and bit for bit, on
//! hand-built clips covering every interpolation and odd shape, and on the bundled samples
//! and the shared assets (when `RIGSCOPE_ASSETS` is set) at many times in every order.

use std::path::PathBuf;

use glam::Vec4;

use super::interpolate::{Quat4, slerp_unit};
use super::pose::Pose;
use super::sample::sample;
use super::sampler::Sampler;
use super::test_rig::channel;
use crate::rig::{Channel, Clip, Interpolation, Node, Property, Rig};

/// Bit-exact equality of two poses (so -0 and 0 differ), with a message naming the slot.
fn assert_same_bits(reference: &Pose, baked: &Pose, what: &str) {
    assert_eq!(reference.use_matrix, baked.use_matrix, "{what}: use_matrix");
    for (node, (r, b)) in reference.locals.iter().zip(&baked.locals).enumerate() {
        let bits = |t: &crate::rig::Transform| {
            (
                t.translation.to_array().map(f32::to_bits),
                t.rotation.to_array().map(f32::to_bits),
                t.scale.to_array().map(f32::to_bits),
            )
        };
        assert_eq!(bits(r), bits(b), "{what}: node {node}: {r:?} vs {b:?}");
    }
    for (node, (r, b)) in reference.morph_weights.iter().zip(&baked.morph_weights).enumerate() {
        let bits = |w: &[f32]| w.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(r), bits(b), "{what}: weights of node {node}");
    }
}

/// Key times of every channel, their midpoints, and points just before, after and far
/// outside them.
fn probe_times(clip: &Clip) -> Vec<f32> {
    let mut times = vec![-1.0, 0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e9];
    for ch in &clip.channels {
        for w in ch.times.windows(2) {
            times.extend([w[0], (w[0] + w[1]) * 0.5, w[0] + (w[1] - w[0]) * 0.1]);
        }
        for &t in ch.times.iter() {
            times.extend([t, t - 1e-4, t + 1e-4]);
        }
    }
    let steps = 97;
    times.extend((0..=steps).map(|i| clip.duration * (i as f32 / steps as f32) * 1.1 - 0.05));
    times
}

/// Forwards, backwards and shuffled, one sampler throughout (cursor hits and misses).
fn check_clip(rig: &Rig, clip: &Clip, what: &str) {
    let times = probe_times(clip);
    let mut sorted: Vec<f32> = times.iter().copied().filter(|t| !t.is_nan()).collect();
    sorted.sort_by(f32::total_cmp);
    let mut order: Vec<f32> = sorted.clone();
    order.extend(sorted.iter().rev());
    let mut state = 7u32;
    for _ in 0..times.len() {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        order.push(times[(state >> 8) as usize % times.len()]);
    }
    let mut sampler = Sampler::new(clip);
    for &t in &order {
        let mut reference = Pose::rest(rig);
        sample(clip, t, &mut reference);
        let mut baked = Pose::rest(rig);
        sampler.sample(clip, t, &mut baked);
        assert_same_bits(&reference, &baked, &format!("{what} at t = {t}"));
    }
}

fn rig_with(nodes: usize) -> Rig {
    Rig { nodes: vec![Node { weights: Some(vec![0.5, 0.5]), ..Node::default() }; nodes], ..Rig::default() }
}

fn quat_keys(angles_deg: &[f32], axis: glam::Vec3, scale: f32) -> Vec<f32> {
    angles_deg
        .iter()
        .flat_map(|&a| {
            let q = glam::Quat::from_axis_angle(axis.normalize(), a.to_radians());
            (Vec4::from(q) * scale).to_array()
        })
        .collect()
}

#[test]
fn every_interpolation_and_odd_shape_matches_the_reference() {
    let times = [0.25, 0.5, 1.0, 1.75, 2.0];
    let trans = [0., 0., 0., 1., 2., 3., -4., 0., 1., 2., 2., -0., 9., 9., 9.];
    let cubic3: Vec<f32> = (0..45).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    let cubic4: Vec<f32> = (0..60).map(|i| ((i * 5) % 13) as f32 * 0.1 - 0.6).collect();
    let mut channels = Vec::new();
    // Six LINEAR rotations on one timeline (two Quat4 blocks, one padded), with sign flips,
    // large angles (the lane-by-lane fallback), non-unit and zero keys.
    let rotations: [(&[f32], glam::Vec3, f32); 6] = [
        (&[0., 10., 20., 30., 40.], glam::Vec3::X, 1.0),
        (&[0., 170., 350., 370., 30.], glam::Vec3::Y, 1.0),
        (&[5., 6., 7., 8., 9.], glam::Vec3::new(1., 2., 3.), 2.5),
        (&[0., 90., 180., 270., 360.], glam::Vec3::Z, 1.0),
        (&[1., 1., 1., 1., 1.], glam::Vec3::X, 1.0),
        (&[0., 1., 2., 3., 4.], glam::Vec3::Y, 0.0),
    ];
    for (node, (angles, axis, scale)) in rotations.into_iter().enumerate() {
        let mut keys = quat_keys(angles, axis, scale);
        if node == 1 {
            for v in &mut keys[8..12] {
                *v = -*v;
            }
        }
        channels.push(channel(node, Property::Rotation, Interpolation::Linear, &times, &keys));
    }
    channels.extend([
        channel(0, Property::Translation, Interpolation::Linear, &times, &trans),
        channel(1, Property::Translation, Interpolation::Step, &times, &trans),
        channel(2, Property::Translation, Interpolation::CubicSpline, &times, &cubic3),
        channel(0, Property::Scale, Interpolation::Linear, &times, &trans),
        channel(1, Property::Scale, Interpolation::CubicSpline, &times, &cubic3),
        channel(
            6,
            Property::Rotation,
            Interpolation::Step,
            &times,
            &quat_keys(&[0., 50., 100., 150., 200.], glam::Vec3::X, 3.0),
        ),
        channel(7, Property::Rotation, Interpolation::CubicSpline, &times, &cubic4),
        // Every channel stores its own copy of `times`, so timelines are shared by content.
        // Other timelines: a single key, unsorted times, values shorter than the times.
        channel(3, Property::Translation, Interpolation::Linear, &times, &trans),
        channel(4, Property::Translation, Interpolation::Linear, &[0.7], &[1., 2., 3.]),
        channel(4, Property::Rotation, Interpolation::Linear, &[0.7], &quat_keys(&[33.], glam::Vec3::Z, 1.0)),
        channel(5, Property::Translation, Interpolation::Linear, &[0.0, 2.0, 1.0, 3.0], &trans[..12]),
        channel(5, Property::Scale, Interpolation::Step, &[0.0, 1.0, 3.0], &trans[..6]),
        channel(
            8,
            Property::Rotation,
            Interpolation::Linear,
            &[0.0, 1.0, 1.0, 2.0],
            &quat_keys(&[0., 40., 80., 120.], glam::Vec3::X, 1.0),
        ),
        // Morph weights (all three interpolations), a target animated twice (the last
        // wins), a malformed width, and a node outside the rig.
        channel(
            9,
            Property::Weights,
            Interpolation::Linear,
            &times,
            &(0..10).map(|i| i as f32 * 0.1).collect::<Vec<_>>(),
        ),
        channel(
            10,
            Property::Weights,
            Interpolation::Step,
            &times,
            &(0..10).map(|i| i as f32 * 0.2).collect::<Vec<_>>(),
        ),
        channel(11, Property::Weights, Interpolation::CubicSpline, &times, &cubic3[..30]),
        channel(2, Property::Scale, Interpolation::Linear, &times, &trans),
        channel(2, Property::Scale, Interpolation::Step, &[0.0, 1.5], &trans[..6]),
        channel(
            99,
            Property::Rotation,
            Interpolation::Linear,
            &times,
            &quat_keys(&[0., 1., 2., 3., 4.], glam::Vec3::X, 1.0),
        ),
        channel(8, Property::Translation, Interpolation::Linear, &[], &[]),
    ]);
    let mut odd = channel(3, Property::Rotation, Interpolation::Linear, &times, &trans);
    odd.components = 3;
    channels.push(odd);
    let clip = Clip { vrm: None, name: None, channels, duration: 3.0 };
    check_clip(&rig_with(12), &clip, "hand-built clip");
    // A pose with fewer nodes than the channels name.
    check_clip(&rig_with(3), &clip, "hand-built clip, small rig");
}

/// Nodes whose translation, rotation and scale are LINEAR channels of one timeline are
/// baked per node, four at a time: a full block and a padded one, channels in scrambled
/// order, a node outside the small rig, file matrices to drop, and nodes next to them that
/// must stay per property (another timeline, a STEP scale, no scale, a target animated
/// twice).
/// Translation, rotation and scale channels (LINEAR, on `times`, four keys) for each of
/// `nodes`, scale first: large rotation steps (past the 4-term series), sign flips and
/// non-unit keys.
fn whole_node_channels(nodes: &[usize], times: &[f32; 4]) -> Vec<Channel> {
    let mut channels = Vec::new();
    for (i, &node) in nodes.iter().enumerate() {
        let f = i as f32;
        let translation: Vec<f32> = (0..12).map(|k| (k as f32 * 0.37 + f).sin() * 3.0).collect();
        let scale: Vec<f32> = (0..12).map(|k| 1.0 + (k as f32 * 0.21 - f).cos() * 0.5).collect();
        let angles = [f * 10.0, f * 10.0 + 30.0, f * 15.0 - 170.0, f * 3.0];
        let axis = glam::Vec3::new(1.0, f, 2.0);
        let mut rotation = quat_keys(&angles, axis, 1.0 + f * 0.1);
        if i % 2 == 1 {
            for v in &mut rotation[4..8] {
                *v = -*v;
            }
        }
        channels.push(channel(node, Property::Scale, Interpolation::Linear, times, &scale));
        channels.push(channel(node, Property::Rotation, Interpolation::Linear, times, &rotation));
        channels.push(channel(node, Property::Translation, Interpolation::Linear, times, &translation));
    }
    channels
}

#[test]
fn whole_nodes_with_consecutive_indices_match_the_reference() {
    // Nodes 1 to 6 (written through one slice of the pose: a full block and a padded one),
    // channels not in node order, some nodes with a file matrix to drop.
    let channels = whole_node_channels(&[2, 5, 3, 4, 1, 6], &[0.0, 0.25, 0.5, 2.0]);
    let clip = Clip { vrm: None, name: None, channels, duration: 2.0 };
    let mut rig = rig_with(9);
    for node in [1, 4, 6, 8] {
        rig.nodes[node].matrix = Some(glam::Mat4::from_translation(glam::Vec3::new(node as f32, 1.0, 2.0)));
    }
    check_clip(&rig, &clip, "consecutive whole nodes");
    // The range reaches past the pose: only the nodes inside it are written.
    rig.nodes.truncate(5);
    check_clip(&rig, &clip, "consecutive whole nodes, small rig");
}

#[test]
fn whole_nodes_four_at_a_time_match_the_reference() {
    let times = [0.0, 0.4, 1.0, 1.5];
    let mut channels = whole_node_channels(&[3, 0, 5, 1, 11, 2, 4], &times);
    let other = [0.5, 2.0];
    let pair = [1., 2., 3., -1., 0.5, 2.];
    let turn = quat_keys(&[0., 40.], glam::Vec3::Z, 1.0);
    channels.extend([
        // Node 6: whole, on another timeline.
        channel(6, Property::Translation, Interpolation::Linear, &other, &pair),
        channel(6, Property::Rotation, Interpolation::Linear, &other, &turn),
        channel(6, Property::Scale, Interpolation::Linear, &other, &pair),
        // Node 7: a STEP scale; node 8: no scale; node 9: rotation animated twice.
        channel(7, Property::Translation, Interpolation::Linear, &times, &[0.; 12]),
        channel(
            7,
            Property::Rotation,
            Interpolation::Linear,
            &times,
            &quat_keys(&[0., 1., 2., 3.], glam::Vec3::X, 1.0),
        ),
        channel(7, Property::Scale, Interpolation::Step, &times, &[2.; 12]),
        channel(8, Property::Translation, Interpolation::Linear, &times, &[1.; 12]),
        channel(
            8,
            Property::Rotation,
            Interpolation::Linear,
            &times,
            &quat_keys(&[5., 6., 7., 8.], glam::Vec3::Y, 1.0),
        ),
        channel(9, Property::Translation, Interpolation::Linear, &times, &[3.; 12]),
        channel(
            9,
            Property::Rotation,
            Interpolation::Linear,
            &times,
            &quat_keys(&[0., 9., 0., 9.], glam::Vec3::Y, 1.0),
        ),
        channel(9, Property::Rotation, Interpolation::Linear, &other, &turn),
        channel(9, Property::Scale, Interpolation::Linear, &times, &[0.5; 12]),
    ]);
    let clip = Clip { vrm: None, name: None, channels, duration: 2.0 };
    let mut rig = rig_with(12);
    for node in [0, 2, 6, 7, 10] {
        rig.nodes[node].matrix = Some(glam::Mat4::from_translation(glam::Vec3::new(node as f32, 1.0, 2.0)));
    }
    check_clip(&rig, &clip, "whole nodes");
    rig.nodes.truncate(4);
    check_clip(&rig, &clip, "whole nodes, small rig");
}

#[test]
fn rebakes_for_another_clip_and_on_bind() {
    let rig = rig_with(2);
    let first = Clip {
        vrm: None,
        name: None,
        channels: vec![channel(
            0,
            Property::Translation,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[0., 0., 0., 1., 1., 1.],
        )],
        duration: 1.0,
    };
    let mut second = first.clone();
    second.channels[0].values = vec![5., 5., 5., 7., 7., 7.].into();
    let mut sampler = Sampler::new(&first);
    let mut pose = Pose::rest(&rig);
    sampler.sample(&second, 0.5, &mut pose);
    assert_eq!(pose.locals[0].translation, glam::Vec3::splat(6.0));
    // Edited in place: noticed only after `bind`, as documented.
    std::sync::Arc::make_mut(&mut second.channels[0].values).copy_from_slice(&[1., 1., 1., 3., 3., 3.]);
    sampler.bind(&second);
    sampler.sample(&second, 0.5, &mut pose);
    assert_eq!(pose.locals[0].translation, glam::Vec3::splat(2.0));
}

#[test]
fn four_lane_slerp_has_the_bits_of_the_one_quaternion_slerp() {
    // Pairs from 0 to 359 degrees apart on several axes (some past the 4-term series and
    // past the trigonometric threshold), signs flipped, at many fractions.
    let axes = [glam::Vec3::X, glam::Vec3::new(1., 2., 2.) / 3.0, glam::Vec3::new(-3., 0.5, 1.).normalize()];
    let quat = |axis: glam::Vec3, deg: f32| Vec4::from(glam::Quat::from_axis_angle(axis, deg.to_radians()));
    for start in (0..360).step_by(7) {
        let lanes: Vec<(Vec4, Vec4)> = (0..4)
            .map(|lane| {
                let axis = axes[(start + lane) % 3];
                let a = quat(axis, start as f32);
                let spread = [3.0, 25.0, 70.0, 200.0][lane] * if start % 2 == 0 { 1.0 } else { 0.1 };
                let b = quat(axis, start as f32 + spread);
                (a, if (start + lane) % 3 == 0 { -b } else { b })
            })
            .collect();
        let a = Quat4::from_quats(&lanes.iter().map(|l| l.0).collect::<Vec<_>>());
        let b = Quat4::from_quats(&lanes.iter().map(|l| l.1).collect::<Vec<_>>());
        let interval = Quat4::interval(a, b);
        for i in 0..=20 {
            let s = i as f32 / 20.0;
            let four = Quat4::slerp(a, &interval, s).to_quats();
            for (lane, (qa, qb)) in lanes.iter().enumerate() {
                let one = slerp_unit(*qa, *qb, s);
                assert_eq!(
                    Vec4::from(four[lane]).to_array().map(f32::to_bits),
                    Vec4::from(one).to_array().map(f32::to_bits),
                    "start {start} lane {lane} s {s}"
                );
            }
        }
    }
}

fn assets_root() -> Option<PathBuf> {
    std::env::var_os("RIGSCOPE_ASSETS").map(PathBuf::from)
}

#[test]
fn bundled_samples_and_shared_assets_match_the_reference() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = ["walker.glb", "tentacle.glb", "bad-weights.glb", "seed-arm.gltf"]
        .iter()
        .map(|f| manifest.join("samples").join(f))
        .collect();
    match assets_root() {
        Some(root) => files.extend(
            [
                "CesiumMan-x32/CesiumMan-x32.glb",
                "CesiumMan/CesiumMan.glb",
                "InterpolationTest/InterpolationTest.gltf",
                "Fox/Fox.glb",
                "AnimatedMorphCube/AnimatedMorphCube.gltf",
                "RiggedFigure/RiggedFigure.glb",
            ]
            .iter()
            .map(|f| root.join(f)),
        ),
        None => eprintln!("note: RIGSCOPE_ASSETS not set: the shared assets are not compared"),
    }
    for file in files {
        let rig = crate::load(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (i, clip) in rig.clips.iter().enumerate() {
            check_clip(&rig, clip, &format!("{} clip {i}", file.display()));
        }
    }
}

/// `template` again on `node`, sharing its key arrays (as import gives channels that share a
/// sampler).
fn on_node(template: &Channel, node: usize) -> Channel {
    Channel { node, ..template.clone() }
}

#[test]
fn channels_sharing_a_sampler_are_baked_once_and_match_the_reference() {
    let times = [0.0, 0.4, 1.0, 1.5];
    let rotation = channel(
        0,
        Property::Rotation,
        Interpolation::Linear,
        &times,
        &quat_keys(&[0., 40., 170., 5.], glam::Vec3::Y, 1.0),
    );
    let mut channels: Vec<Channel> = (0..6).map(|n| on_node(&rotation, n)).collect();
    // Nodes 6 to 9 share all three: the first in clip order (node 7) is a whole node, the
    // others copy it.
    let whole = whole_node_channels(&[6], &times);
    channels.extend((7..10).flat_map(|n| whole.iter().map(move |c| on_node(c, n))));
    channels.extend(whole);
    let cubic: Vec<f32> = (0..36).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    let cubic = channel(10, Property::Translation, Interpolation::CubicSpline, &times, &cubic);
    let step = channel(
        10,
        Property::Scale,
        Interpolation::Step,
        &times,
        &[1., 2., 3., 4., 5., 6., 7., 8., 9., 1., 1., 1.],
    );
    channels.extend([on_node(&cubic, 11), cubic, on_node(&step, 11), step]);
    // The first channel of this pair animates node 20, outside the 14-node rig.
    let outside = channel(
        20,
        Property::Rotation,
        Interpolation::Step,
        &times,
        &quat_keys(&[1., 2., 3., 4.], glam::Vec3::X, 1.0),
    );
    let alias = on_node(&outside, 12);
    channels.extend([outside, alias]);
    // Equal keys in arrays of its own: baked for itself.
    channels.push(Channel {
        node: 13,
        times: rotation.times.to_vec().into(),
        values: rotation.values.to_vec().into(),
        ..rotation.clone()
    });
    let clip = Clip { vrm: None, name: None, channels, duration: 1.5 };
    // Baked: node 0's rotation, node 7's three, node 11's two, node 20's, node 13's.
    assert_eq!(super::tracks::ClipTracks::bake(&clip).baked_channels(), 1 + 3 + 2 + 1 + 1);
    let mut rig = rig_with(14);
    rig.nodes[8].matrix = Some(glam::Mat4::from_translation(glam::Vec3::X));
    check_clip(&rig, &clip, "shared samplers");
}
