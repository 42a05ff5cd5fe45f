//! `rigscope A --compare B` in the viewer: B drawn as a ghost, the selected joint's delta in
//! the bone details. B is the seed arm with b31 moved 0.05 in its parent's frame.

use rigscope::render::ColorDepth;
use rigscope::tui::{App, Launch};

use super::cli::sample;
use super::tui::screen;

#[test]
fn the_compared_rig_is_a_ghost_and_the_selected_joint_shows_its_delta() {
    let a = rigscope::load(std::path::Path::new(&sample("seed-arm.gltf"))).expect("loads");
    let mut b = a.clone();
    let b31 = a.nodes.iter().position(|n| n.name.as_deref() == Some("b31")).expect("b31");
    b.nodes[b31].rest.translation.y += 0.05;
    let launch = Launch { paused: true, time: 1.0, color: ColorDepth::None, ..Launch::default() };
    let plain = screen(&mut App::new(a.clone(), &launch), 120, 40);
    let mut app = App::new(a, &Launch { compare: Some(b), ..launch });
    app.selection.tree.selected = Some(b31);
    let s = screen(&mut app, 120, 40);
    assert!(s.contains("ghost: B"), "{s}");
    // Rotations keep lengths: 0.05 in b2's frame is 0.05 in the world, whatever the pose.
    assert!(s.contains("vs B     0.0500 away, 0.00 deg"), "{s}");
    assert!(!plain.contains("vs B"));
    // The ghost adds dots where B's outline leaves A's.
    let dots = |s: &str| s.chars().filter(|c| ('\u{2801}'..='\u{28ff}').contains(c)).count();
    assert!(dots(&s) > dots(&plain), "{} vs {}", dots(&s), dots(&plain));
    insta::assert_snapshot!(s);
}

/// When B has no clip of the current clip's name, its ghost is its rest pose, and the
/// viewport's title says so.
#[test]
fn a_b_without_the_clip_is_said_to_be_at_rest() {
    let a = rigscope::load(std::path::Path::new(&sample("seed-arm.gltf"))).expect("loads");
    let mut b = a.clone();
    for clip in &mut b.clips {
        clip.name = Some(format!("{}-renamed", clip.name.as_deref().unwrap_or("clip")));
    }
    let launch = Launch { paused: true, time: 1.0, color: ColorDepth::None, ..Launch::default() };
    let s = screen(&mut App::new(a.clone(), &Launch { compare: Some(b), ..launch.clone() }), 160, 48);
    assert!(s.contains("ghost: B at rest (no such clip in B)"), "{s}");
    let s = screen(&mut App::new(a.clone(), &Launch { compare: Some(a), ..launch }), 160, 48);
    assert!(s.contains("ghost: B") && !s.contains("B at rest"), "{s}");
}
