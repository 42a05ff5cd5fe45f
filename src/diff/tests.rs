//! The diff on the seed arm (five joints, weights listed in `samplegen::seed_arm`), edited the
//! way re-exports change a rig. Expected magnitudes come from the edits themselves.

use glam::Vec3;

use super::*;
use crate::rig::Interpolation;

fn arm() -> Rig {
    crate::load_bytes(&crate::samplegen::seed_arm(), "seed-arm.gltf", None).expect("seed arm loads")
}

fn node(rig: &Rig, name: &str) -> usize {
    rig.nodes.iter().position(|n| n.name.as_deref() == Some(name)).expect(name)
}

fn close(x: f32, y: f32) -> bool {
    (x - y).abs() <= 1e-5
}

#[test]
fn a_rig_equals_itself_and_noise_below_the_tolerance() {
    let a = arm();
    assert!(diff(&a, &a, DEFAULT_TOLERANCE).equal);
    let mut b = arm();
    for n in &mut b.nodes {
        n.rest.translation += Vec3::splat(2e-6);
    }
    for w in std::sync::Arc::make_mut(&mut b.meshes[0].primitives[0].influences[0].weights) {
        w[0] += 1e-6;
    }
    let d = diff(&a, &b, DEFAULT_TOLERANCE);
    assert!(d.equal, "{}", render_text(&d));
    // The same noise is a change once the tolerance is below it.
    assert!(!diff(&a, &b, 1e-7).equal);
}

/// The judged case: one joint moved, one clip retimed, one vertex's weights renormalised.
/// Every change is reported and nothing else is.
#[test]
fn a_moved_joint_a_retimed_clip_and_renormalised_weights_are_each_found() {
    let mut a = arm();
    let mut b = arm();
    // The old export stored vertex 3 at 0.9 of its weight ((b2, 0.3), (b31, 0.7) scaled).
    std::sync::Arc::make_mut(&mut a.meshes[0].primitives[0].influences[0].weights)[3] =
        [0.27, 0.63, 0.0, 0.0];
    let b31 = node(&b, "b31");
    b.nodes[b31].rest.translation = Vec3::new(0.2, 0.15, 0.0);
    let bend = b.find_clip("bend").expect("bend");
    for ch in &mut b.clips[bend].channels {
        std::sync::Arc::make_mut(&mut ch.times).iter_mut().for_each(|t| *t *= 1.5);
    }
    b.clips[bend].duration *= 1.5;

    let d = diff(&a, &b, DEFAULT_TOLERANCE);
    assert!(!d.equal);
    let j = &d.joints;
    assert!(j.added.is_empty() && j.removed.is_empty() && j.renamed.is_empty() && j.reparented.is_empty());
    assert_eq!(j.rest.len(), 1, "{:?}", j.rest);
    assert_eq!(j.rest[0].joint, "b31");
    assert!(close(j.rest[0].translation, 0.05) && j.rest[0].rotation_deg == 0.0 && j.rest[0].scale == 0.0);
    // The file's inverse bind matrices were not touched.
    assert!(d.skins.is_empty(), "{:?}", d.skins);

    assert!(d.clips.added.is_empty() && d.clips.removed.is_empty());
    let by_name = |name: &str| d.clips.changed.iter().find(|c| c.clip == name).expect(name);
    let bend = by_name("bend");
    assert_eq!(bend.duration, Some([4.0, 6.0]));
    assert!(bend.channel_count.is_none() && bend.interpolation.is_empty());
    assert!(bend.channels_added.is_empty() && bend.channels_removed.is_empty());
    assert!(bend.rotation.as_ref().is_some_and(|r| r.degrees > 1.0), "{bend:?}");
    // `translate` is unchanged except that b31 (which it does not animate) sits 0.05 away in
    // its parent's frame: rotations keep lengths, so 0.05 in the world at every time.
    let translate = by_name("translate");
    assert!(translate.duration.is_none() && translate.rotation.is_none(), "{translate:?}");
    let p = translate.position.as_ref().expect("b31 moved");
    assert_eq!(p.joint, "b31");
    assert!(close(p.distance, 0.05), "{p:?}");

    assert_eq!(d.meshes.changed.len(), 1);
    let m = &d.meshes.changed[0];
    assert_eq!(m.primitive, "arm/0");
    let w = m.weights.as_ref().expect("weights changed");
    assert_eq!(w.vertices, 1);
    assert_eq!(w.changes, vec![w.largest.clone()]);
    assert_eq!((w.largest.vertex, w.largest.joint.as_str()), (3, "b31"));
    assert!(close(w.largest.a, 0.63) && close(w.largest.b, 0.7), "{w:?}");
    // Vertex 5 is weighted 1.0 to b31: it moves with it, 0.05 at least.
    assert!(m.deformed.as_ref().is_some_and(|p| p.distance >= 0.05 - 1e-5), "{m:?}");
}

#[test]
fn renormalised_weights_move_the_vertex_by_the_missing_fraction_at_rest() {
    let mut a = arm();
    let mut b = arm();
    a.clips.clear();
    b.clips.clear();
    std::sync::Arc::make_mut(&mut a.meshes[0].primitives[0].influences[0].weights)[3] =
        [0.27, 0.63, 0.0, 0.0];
    let d = diff(&a, &b, DEFAULT_TOLERANCE);
    let m = &d.meshes.changed[0];
    // At rest every G * IBM is the identity: vertex 3 lands at 0.9 p against p.
    let p = Vec3::new(0.45, 0.06, 0.0);
    let peak = m.deformed.as_ref().expect("moved");
    assert_eq!((peak.vertex, peak.clip.as_deref(), peak.time), (3, None, None));
    assert!(close(peak.distance, 0.1 * p.length()), "{peak:?}");
    let w = m.weights.as_ref().expect("weights");
    assert!(close(w.largest.a, 0.63) && close(w.largest.b, 0.7));
}

#[test]
fn renames_reparenting_and_interpolation_are_named() {
    let a = arm();
    let mut b = arm();
    let b32 = node(&b, "b32");
    b.nodes[b32].name = Some("b32_tip".into());
    let translate = b.find_clip("translate").expect("translate");
    b.clips[translate].channels[0].interpolation = Interpolation::Step;
    let d = diff(&a, &b, DEFAULT_TOLERANCE);
    assert_eq!(d.joints.renamed, vec![Rename { from: "b32".into(), to: "b32_tip".into() }]);
    assert!(d.joints.added.is_empty() && d.joints.removed.is_empty() && d.joints.rest.is_empty());
    let clip = d.clips.changed.iter().find(|c| c.clip == "translate").expect("translate");
    assert_eq!(clip.interpolation.len(), 1);
    assert_eq!((clip.interpolation[0].a, clip.interpolation[0].b), ("LINEAR", "STEP"));
    assert_eq!(clip.interpolation[0].channel, "b1.translation");
    assert!(clip.channels_added.is_empty() && clip.channels_removed.is_empty(), "{clip:?}");

    // b32 moved under b1 (and so to another place): a reparent, not a rename.
    let mut c = arm();
    let (b1, b2, b32) = (node(&c, "b1"), node(&c, "b2"), node(&c, "b32"));
    c.nodes[b2].children.retain(|&x| x != b32);
    c.nodes[b1].children.push(b32);
    c.nodes[b32].parent = Some(b1);
    let d = diff(&a, &c, DEFAULT_TOLERANCE);
    assert_eq!(d.joints.reparented.len(), 1);
    let r = &d.joints.reparented[0];
    assert_eq!((r.joint.as_str(), r.from.as_deref(), r.to.as_deref()), ("b32", Some("b2"), Some("b1")));
}

#[test]
fn joints_and_clips_only_one_side_has_are_added_or_removed() {
    let a = arm();
    let mut b = arm();
    let b31 = node(&b, "b31");
    // Another rest transform and another name: nothing says it is the same joint.
    b.nodes[b31].name = Some("finger".into());
    b.nodes[b31].rest.translation = Vec3::new(0.3, 0.1, 0.0);
    b.clips.remove(0);
    let d = diff(&a, &b, DEFAULT_TOLERANCE);
    assert_eq!(d.joints.added, vec!["finger".to_string()]);
    assert_eq!(d.joints.removed, vec!["b31".to_string()]);
    assert_eq!(d.clips.removed, vec!["translate".to_string()]);
    assert!(d.joints.renamed.is_empty());
}

#[test]
fn a_changed_inverse_bind_matrix_is_reported_with_its_size() {
    let a = arm();
    let mut b = arm();
    b.skins[0].inverse_bind[2].w_axis.x += 0.125;
    let d = diff(&a, &b, DEFAULT_TOLERANCE);
    let skin = &d.skins.changed[0];
    assert_eq!(skin.inverse_bind.len(), 1);
    assert_eq!(skin.inverse_bind[0].joint, "b2");
    assert!(close(skin.inverse_bind[0].max_element, 0.125));
    assert!(!skin.order_changed && skin.joints_added.is_empty());
}

#[test]
fn a_vertex_count_change_says_the_topology_differs() {
    let a = arm();
    let mut b = arm();
    let p = &mut b.meshes[0].primitives[0];
    p.positions = p.positions[..p.positions.len() - 1].into();
    let set = &mut p.influences[0];
    set.joints = set.joints[..set.joints.len() - 1].into();
    set.weights = set.weights[..set.weights.len() - 1].into();
    let d = diff(&a, &b, DEFAULT_TOLERANCE);
    let m = &d.meshes.changed[0];
    assert_eq!(m.topology_differs, Some([13, 12]));
    assert!(m.weights.is_none() && m.deformed.is_none());
}

/// A clip renamed in the new export, keys untouched, is one rename, not an addition and a
/// removal; a renamed clip whose keys also changed stays added and removed (nothing ties the
/// two together then).
#[test]
fn a_renamed_clip_is_matched_by_its_keys() {
    let a = arm();
    let mut b = arm();
    let bend = b.find_clip("bend").expect("bend");
    b.clips[bend].name = Some("bend_v2".into());
    let d = diff(&a, &b, DEFAULT_TOLERANCE);
    assert!(d.clips.added.is_empty() && d.clips.removed.is_empty(), "{}", render_text(&d));
    assert_eq!(d.clips.renamed, vec![Rename { from: "bend".into(), to: "bend_v2".into() }]);
    assert!(d.clips.changed.is_empty());
    assert!(render_text(&d).contains("renamed     bend -> bend_v2"));

    let ch = &mut b.clips[bend].channels[0];
    std::sync::Arc::make_mut(&mut ch.values)[0] += 0.1;
    let d = diff(&a, &b, DEFAULT_TOLERANCE);
    assert_eq!(d.clips.added, vec!["bend_v2".to_string()]);
    assert_eq!(d.clips.removed, vec!["bend".to_string()]);
    assert!(d.clips.renamed.is_empty());
}

/// The outline (the reload line's source) agrees with the full diff on what it covers.
#[test]
fn the_outline_reports_rest_moves_and_retimings_as_diff_does() {
    let a = arm();
    let mut b = arm();
    let b31 = node(&b, "b31");
    b.nodes[b31].rest.translation = Vec3::new(0.2, 0.15, 0.0);
    let bend = b.find_clip("bend").expect("bend");
    let before = b.clips[bend].duration;
    for ch in &mut b.clips[bend].channels {
        std::sync::Arc::make_mut(&mut ch.times).iter_mut().for_each(|t| *t *= 1.5);
    }
    b.clips[bend].duration *= 1.5;
    let o = outline(&a, &b, DEFAULT_TOLERANCE);
    let d = diff(&a, &b, DEFAULT_TOLERANCE);
    assert_eq!(o.joints, d.joints);
    assert_eq!(o.clips.changed.len(), 1);
    assert_eq!(o.clips.changed[0].clip, "bend");
    assert_eq!(o.clips.changed[0].duration, Some([before, before * 1.5]));
}
