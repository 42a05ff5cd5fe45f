//! Retargeting on rigs made here from samplegen's walker: one turned 180 degrees, one under a
//! 0.01 node in centimetres, one whose rest is not its bind pose, an A-pose one. Each is
//! checked against what the source shows played on its own rig (through the ordinary pose
//! walk), turned, scaled or re-posed by hand, never against the retargeting code's terms.

use glam::{Mat4, Quat, Vec3};

use super::body::{ReferencePose, angle};
use super::{BindOptions, attach};
use crate::anim::{Pose, compute_globals, sample};
use crate::rig::{Clip, Node, Property, Rig, Transform};

fn walker() -> Rig {
    crate::import::load_bytes(&crate::samplegen::walker(), "walker.glb", None).unwrap()
}

fn node(rig: &Rig, name: &str) -> usize {
    rig.nodes.iter().position(|n| n.name.as_deref() == Some(name)).unwrap()
}

/// The inverse bind matrices made the rest pose's, as an exporter binding a posed rig writes.
pub(super) fn rebind(rig: &mut Rig) {
    let world = rig.rest_world();
    for skin in &mut rig.skins {
        skin.inverse_bind = skin.joints.iter().map(|&j| world[j].inverse()).collect();
    }
}

fn worlds(rig: &Rig, clip: &Clip, t: f32) -> Vec<Mat4> {
    let mut pose = Pose::rest(rig);
    sample(clip, t, &mut pose);
    let mut globals = vec![Mat4::IDENTITY; rig.nodes.len()];
    compute_globals(rig, &pose, &mut globals);
    globals
}

/// `character` with `source`'s walk attached (retargeted from `reference`, or raw).
fn attached(character: &Rig, source: &Rig, reference: Option<ReferencePose>) -> (Rig, Clip) {
    let mut rig = character.clone();
    attach(&mut rig, source, "lib.glb", &BindOptions { retarget: reference, ..BindOptions::default() })
        .unwrap();
    let clip = rig.clips[rig.attached[0].clip].clone();
    (rig, clip)
}

/// The walk's key times (every animated joint shares them).
fn key_times(source: &Rig) -> Vec<f32> {
    source.clips[0].channels[0].times.to_vec()
}

fn rotation(m: &Mat4) -> Quat {
    m.to_scale_rotation_translation().1
}

/// Largest difference between `expected(source world)` and the character's world, over the
/// walker's 17 joints at every key: (radians, distance).
fn largest_miss(
    character: &Rig,
    played: &Clip,
    source: &Rig,
    expected: impl Fn(usize, &Mat4) -> Mat4,
) -> (f32, f32) {
    let mut miss = (0.0f32, 0.0f32);
    for t in key_times(source) {
        let (on_t, on_s) = (worlds(character, played, t), worlds(source, &source.clips[0], t));
        for j in 0..17 {
            let want = expected(j, &on_s[j]);
            miss.0 = miss.0.max(angle(rotation(&on_t[j]), rotation(&want)));
            miss.1 = miss.1.max((on_t[j].w_axis - want.w_axis).truncate().length());
        }
    }
    miss
}

#[test]
fn a_rig_turned_180_degrees_plays_the_walk_turned_and_raw_binding_does_not() {
    let source = walker();
    let mut turned = walker();
    let hips = node(&turned, "hips");
    let half = Quat::from_rotation_y(std::f32::consts::PI);
    turned.nodes[hips].rest.rotation = half * turned.nodes[hips].rest.rotation;
    turned.nodes[hips].rest.translation = half * turned.nodes[hips].rest.translation;
    rebind(&mut turned);
    let turn = Mat4::from_quat(half);

    let (rig, played) = attached(&turned, &source, Some(ReferencePose::Bind));
    let (rad, dist) = largest_miss(&rig, &played, &source, |_, w| turn * *w);
    assert!(rad < 1e-5 && dist < 1e-5, "{rad} rad, {dist}");
    // Raw values put the hips' own rotation back: the body faces the source's way.
    let (rig, played) = attached(&turned, &source, None);
    let (rad, _) = largest_miss(&rig, &played, &source, |_, w| turn * *w);
    assert!(rad > 3.0, "{rad}");
}

/// `rig` under a root scaled by `scale`, its translations (rest and keys) times `units`.
fn under_root(mut rig: Rig, scale: f32, units: f32) -> Rig {
    let hips = node(&rig, "hips");
    let root = rig.nodes.len();
    for n in &mut rig.nodes {
        n.rest.translation *= units;
    }
    rig.nodes.push(Node {
        name: Some("Armature".into()),
        children: vec![hips],
        rest: Transform { scale: Vec3::splat(scale), ..Transform::IDENTITY },
        ..Node::default()
    });
    rig.nodes[hips].parent = Some(root);
    for r in rig.scenes.iter_mut().flat_map(|s| s.roots.iter_mut()) {
        if *r == hips {
            *r = root;
        }
    }
    rig.order.insert(0, root);
    for c in rig.clips.iter_mut().flat_map(|c| c.channels.iter_mut()) {
        if c.property == Property::Translation {
            c.values = c.values.iter().map(|v| v * units).collect();
        }
    }
    rig
}

/// `rig` in centimetres under a 0.01-scale root, the same size in the world.
fn in_centimetres(rig: Rig) -> Rig {
    let mut rig = under_root(rig, 0.01, 100.0);
    rebind(&mut rig);
    rig
}

#[test]
fn centimetres_under_a_hundredth_play_the_same_metres_either_way() {
    let metres = walker();
    let centimetres = in_centimetres(walker());
    // The same walk in the same world units on both: the worlds agree joint for joint.
    let (rig, played) = attached(&metres, &centimetres, Some(ReferencePose::Bind));
    let (rad, dist) = largest_miss(&rig, &played, &centimetres, |_, w| *w);
    assert!(rad < 1e-5 && dist < 1e-5, "{rad} rad, {dist}");
    let (rig, played) = attached(&centimetres, &metres, Some(ReferencePose::Bind));
    let (rad, dist) = largest_miss(&rig, &played, &metres, |_, w| *w);
    assert!(rad < 1e-5 && dist < 1e-4, "{rad} rad, {dist}");
    // Raw values put the metre hips 95 m up.
    let (rig, played) = attached(&metres, &centimetres, None);
    let hips = node(&rig, "hips");
    assert!(worlds(&rig, &played, 0.0)[hips].w_axis.y > 90.0);
}

#[test]
fn a_rest_that_is_not_the_bind_pose_is_not_the_reference() {
    let source = walker();
    let mut posed = walker();
    // The arms' rest reaches forward and the left hand is bent, while the inverse bind
    // matrices keep the walker's pose (a Blender export of a posed armature). The walk moves
    // the arms but not the hands.
    for name in ["upper_arm.L", "upper_arm.R"] {
        let arm = node(&posed, name);
        posed.nodes[arm].rest.rotation = Quat::from_rotation_x(-1.2) * posed.nodes[arm].rest.rotation;
    }
    let hand = node(&posed, "hand.L");
    posed.nodes[hand].rest.rotation = Quat::from_rotation_x(1.0);

    let (rig, played) = attached(&posed, &source, Some(ReferencePose::Bind));
    let (rad, dist) = largest_miss(&rig, &played, &source, |_, w| *w);
    assert!(rad < 1e-5 && dist < 1e-5, "{rad} rad, {dist}");
    // From the rest, the arms reach forward by the rest's 1.2 rad; raw, the hand stays bent.
    let (rig, played) = attached(&posed, &source, Some(ReferencePose::Rest));
    let (rad, _) = largest_miss(&rig, &played, &source, |_, w| *w);
    assert!((rad - 1.2).abs() < 1e-3, "{rad}");
    let (rig, played) = attached(&posed, &source, None);
    let (rad, _) = largest_miss(&rig, &played, &source, |_, w| *w);
    assert!((rad - 1.0).abs() < 1e-3, "{rad}");
}

/// The walker with both upper arms raised by `degrees` (rest, bind and the walk's keys).
pub(super) fn arms_raised(degrees: f32) -> Rig {
    let mut rig = walker();
    for (name, sign) in [("upper_arm.L", 1.0), ("upper_arm.R", -1.0)] {
        let arm = node(&rig, name);
        let up = Quat::from_rotation_z(sign * degrees.to_radians());
        rig.nodes[arm].rest.rotation = up * rig.nodes[arm].rest.rotation;
        for c in rig.clips.iter_mut().flat_map(|c| c.channels.iter_mut()) {
            if c.node == arm && c.property == Property::Rotation {
                let turned: Vec<f32> =
                    c.values.chunks_exact(4).flat_map(|q| (up * Quat::from_slice(q)).to_array()).collect();
                c.values = turned.into();
            }
        }
    }
    rebind(&mut rig);
    rig
}

#[test]
fn an_a_pose_character_swings_its_arms_from_its_own_pose() {
    let t_pose = arms_raised(90.0);
    let a_pose = arms_raised(50.0);
    // Each joint turns from its bind pose (taken from the inverse bind matrices) as the
    // source's turns from its own: W_T = W_S * inverse(B_S) * B_T, both rigs facing +Z.
    let bind = |rig: &Rig, j: usize| {
        let at = rig.skins[0].joints.iter().position(|&n| n == j).unwrap();
        rotation(&rig.skins[0].inverse_bind[at].inverse())
    };
    let (rig, played) = attached(&a_pose, &t_pose, Some(ReferencePose::Bind));
    let expected = |j: usize, w: &Mat4| {
        let r = rotation(w) * bind(&t_pose, j).inverse() * bind(&a_pose, j);
        Mat4::from_rotation_translation(r, w.w_axis.truncate())
    };
    let (rad, _) = largest_miss(&rig, &played, &t_pose, expected);
    assert!(rad < 1e-5, "{rad} rad");
    // The hips travel as the source's (the same legs, so the same height).
    let hips = node(&rig, "hips");
    for t in key_times(&t_pose) {
        let (on_t, on_s) = (worlds(&rig, &played, t), worlds(&t_pose, &t_pose.clips[0], t));
        assert!((on_t[hips].w_axis - on_s[hips].w_axis).length() < 1e-6);
    }
    // Raw, the A-pose arms swing from the T-pose, 40 degrees up.
    let (rig, played) = attached(&a_pose, &t_pose, None);
    let (rad, _) = largest_miss(&rig, &played, &t_pose, expected);
    assert!((rad - 40f32.to_radians()).abs() < 1e-3, "{rad}");
}

#[test]
fn the_same_skeleton_and_bind_pose_retargets_to_raw_binding() {
    let source = walker();
    let (rig, retargeted) = attached(&source, &source, Some(ReferencePose::Bind));
    let (_, raw) = attached(&source, &source, None);
    for t in key_times(&source) {
        let (mut a, mut b) = (Pose::rest(&rig), Pose::rest(&rig));
        sample(&retargeted, t, &mut a);
        sample(&raw, t, &mut b);
        for (x, y) in a.locals.iter().zip(&b.locals) {
            assert!(angle(x.rotation, y.rotation) < 1e-5, "t = {t}");
            assert!((x.translation - y.translation).length() < 1e-6, "t = {t}");
        }
    }
}

#[test]
fn a_hips_height_ratio_past_a_thousand_is_refused() {
    let source = walker();
    // A root scaled by 1e-38: the hips stand 0.87e-38 above the feet.
    let tiny = under_root(walker(), 1e-38, 1.0);
    let mut rig = walker();
    let refused = attach(
        &mut rig,
        &tiny,
        "tiny.glb",
        &BindOptions { retarget: Some(ReferencePose::Rest), ..BindOptions::default() },
    )
    .unwrap_err();
    assert!(refused.ratio > 1e30, "{refused:?}");
    assert!(refused.to_string().contains("outside 1e-3..1e3"), "{refused}");
    assert!(rig.attached.is_empty());
    // Played raw, the same pair binds.
    attach(&mut rig, &tiny, "tiny.glb", &BindOptions::default()).unwrap();
    assert_eq!(rig.attached.len(), source.clips.len());
}

#[test]
fn a_source_joint_collapsed_to_a_point_holds_its_reference_rotation() {
    // The source's left upper arm is scaled to nothing: it and the arm below it have no
    // world rotation while the walk plays, so the character's hold their bind rotations
    // (the walker's rest is its bind pose), while the other arm still swings.
    let mut source = walker();
    let arm = node(&source, "upper_arm.L");
    source.nodes[arm].rest.scale = Vec3::ZERO;
    let character = walker();
    let rest = character.rest_world();
    let (rig, played) = attached(&character, &source, Some(ReferencePose::Bind));
    assert!(played.channels.iter().all(|c| c.values.iter().all(|v| v.is_finite())));
    let (forearm, other) = (node(&rig, "forearm.L"), node(&rig, "upper_arm.R"));
    let mut swing = 0.0f32;
    for t in key_times(&source) {
        let on_t = worlds(&rig, &played, t);
        for j in [arm, forearm] {
            assert!(angle(rotation(&on_t[j]), rotation(&rest[j])) < 1e-5, "t = {t}, node {j}");
        }
        swing = swing.max(angle(rotation(&on_t[other]), rotation(&rest[other])));
    }
    assert!(swing > 0.1, "{swing}");
}
