//! The viewer's timeline and curves: frame stepping,
//! timeline clicks on frames, curves per component, dope-sheet clicks, and the status line.
//! Screens at fixed sizes, times and cameras, through the real key table.

use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;
use rigscope::render::ColorDepth;
use rigscope::rig::{Interpolation, Rig};
use rigscope::tui::action::Action;
use rigscope::tui::ui::{self, MouseState};
use rigscope::tui::{App, Launch};

use super::cli::sample;
use super::tui::{press, screen};

fn walker() -> Rig {
    rigscope::load(std::path::Path::new(&sample("walker.glb"))).expect("walker loads")
}

fn paused() -> Launch {
    Launch { paused: true, color: ColorDepth::None, ..Launch::default() }
}

/// The walker with every clip keyed only every 6th of its 1/24 s frames: keys 0.25 s apart,
/// as an animator's sparse keys are.
fn sparse_walker() -> Rig {
    let mut rig = walker();
    for clip in &mut rig.clips {
        for ch in &mut clip.channels {
            assert_ne!(ch.interpolation, Interpolation::CubicSpline, "the walker's keys are linear");
            let keep: Vec<usize> = (0..ch.times.len()).filter(|i| i % 6 == 0).collect();
            ch.times = keep.iter().map(|&i| ch.times[i]).collect::<Vec<f32>>().into();
            let n = ch.components;
            ch.values = keep
                .iter()
                .flat_map(|&i| ch.values[i * n..(i + 1) * n].to_vec())
                .collect::<Vec<f32>>()
                .into();
        }
    }
    rig
}

fn status_line(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len() - 2].to_string()
}

/// Keys 0.25 s apart: `.` steps one frame of the grid the keys land on (0.25 s is 6 frames at
/// 24 fps and 7.5 at 30, so 24 fps), not to the next key; `--step 1/30` wins over it.
#[test]
fn stepping_goes_by_frames_not_by_sparse_keys() {
    let rig = sparse_walker();
    let times = &rig.clips[0].channels[0].times;
    assert!((times[1] - times[0] - 0.25).abs() < 1e-4, "{times:?}");
    let mut a = App::new(rig.clone(), &paused());
    press(&mut a, "..");
    assert!((a.player.playback.time - 2.0 / 24.0).abs() < 1e-6, "{}", a.player.playback.time);
    let s = screen(&mut a, 120, 40);
    assert!(status_line(&s).contains(" frame 2 @ 24 fps "), "{s}");
    insta::assert_snapshot!(s);

    let mut a = App::new(rig, &Launch { step: Some(1.0 / 30.0), ..paused() });
    press(&mut a, "...");
    assert!((a.player.playback.time - 0.1).abs() < 1e-6, "{}", a.player.playback.time);
    let s = screen(&mut a, 120, 40);
    assert!(status_line(&s).contains(" frame 3 @ 30 fps "), "{s}");
    // Another clip keeps the step the user gave.
    press(&mut a, "c");
    assert_eq!(a.player.frames.step, 1.0 / 30.0);
}

/// A click anywhere on the timeline lands on a frame: every column's time is a whole number
/// of 1/24 s frames, within the clip.
#[test]
fn a_timeline_click_lands_on_a_frame() {
    let a = App::new(walker(), &paused());
    let areas = ui::layout(Rect::new(0, 0, 80, 24), a.panels.focus, ui::tree::wanted_width(&a));
    let tl = areas.timeline;
    let mut state = MouseState::default();
    let mut seen = Vec::new();
    for column in tl.x..tl.x + tl.width {
        let ev = MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column,
            row: tl.y,
            modifiers: KeyModifiers::NONE,
        };
        let Some(Action::Seek(t)) = ui::mouse_action(&areas, &a, ev, &mut state) else {
            panic!("column {column} did not seek");
        };
        let frame = f64::from(t) * 24.0;
        assert!((frame - frame.round()).abs() < 1e-4, "column {column}: t = {t} is frame {frame}");
        assert!((0.0..=1.0).contains(&t), "{t}");
        seen.push(t);
    }
    // The columns span the clip: the first is its start, the last its end.
    assert_eq!(seen.first(), Some(&0.0));
    assert_eq!(seen.last(), Some(&1.0));
}

/// A click on a dope-sheet row selects the bone that row animates (read off the row's label
/// on screen), unfolding the tree to it, and focuses the panel.
#[test]
fn a_dope_sheet_click_selects_that_rows_bone() {
    let mut a = App::new(walker(), &paused());
    let s = screen(&mut a, 120, 40);
    let areas = ui::layout(Rect::new(0, 0, 120, 40), a.panels.focus, ui::tree::wanted_width(&a));
    let keys = areas.keys;
    let selected = a.selected().expect("a bone is selected");
    // The first row whose label names a bone other than the selected one.
    let lines: Vec<&str> = s.lines().collect();
    let (y, name) = (keys.y + 2..keys.y + keys.height - 1)
        .find_map(|y| {
            let row: String =
                lines[usize::from(y)].trim_matches('"').chars().skip(usize::from(keys.x) + 1).collect();
            // "RL head   ◆··◆": property and interpolation letters, then the bone's name.
            let name = row.split_whitespace().nth(1)?.to_string();
            (name != a.session.rig.node_label(selected)
                && a.session.rig.nodes.iter().any(|n| n.name.as_deref() == Some(&name)))
            .then_some((y, name))
        })
        .unwrap_or_else(|| panic!("no other bone's row in\n{s}"));
    let node = (0..a.session.rig.nodes.len()).find(|&n| a.session.rig.node_label(n) == name).expect("node");
    // Fold the root so that the bone's row is hidden in the tree: the click unfolds it.
    press(&mut a, "\n");
    assert!(!a.selection.tree.rows().iter().any(|r| r.node == node));
    let ev = MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: keys.x + 3,
        row: y,
        modifiers: KeyModifiers::NONE,
    };
    let mut state = MouseState::default();
    let action = ui::mouse_action(&areas, &a, ev, &mut state);
    assert_eq!(action, Some(Action::SelectNode(node)));
    a.update(Action::SelectNode(node));
    assert_eq!(a.selected(), Some(node));
    assert_eq!(a.panels.focus, rigscope::tui::action::Focus::Keys);
    assert!(a.selection.tree.rows().iter().any(|r| r.node == node));
    // The ruler row is no bone's.
    let ruler = MouseEvent { row: keys.y + 1, ..ev };
    assert_eq!(
        ui::mouse_action(&areas, &a, ruler, &mut state),
        Some(Action::Focus(rigscope::tui::action::Focus::Keys))
    );
}

/// Tab on a file with one skin: nowhere to go, but the status line says what the skin deforms
/// (the walker's one skinned node draws its one mesh), at 80x24.
#[test]
fn tab_says_what_the_skin_deforms() {
    let mut a = App::new(walker(), &paused());
    let user = (0..a.session.rig.nodes.len())
        .find(|&n| a.session.rig.nodes[n].skin == Some(0))
        .expect("a skinned node");
    let mesh = a.session.rig.nodes[user].mesh.expect("it draws a mesh");
    press(&mut a, "\t");
    let expected = format!(
        "1 skin in this file: deforms node {user} {} (mesh {mesh} {})",
        a.session.rig.node_label(user),
        a.mesh_label(mesh)
    );
    assert_eq!(a.status.message.as_deref(), Some(expected.as_str()));
    let s = screen(&mut a, 80, 24);
    assert!(s.contains("1 skin in this file: deforms node"), "{s}");
    insta::assert_snapshot!(s);
}

/// The hips' translation: each component in a strip of its own range. y moves between 0.92
/// and 0.95 (the extremes of its linear keys, read here from the file's values), and its
/// strip is labelled with exactly those.
#[test]
fn curves_scale_each_component_to_its_own_range() {
    let mut a = App::new(walker(), &paused());
    let hips = a.selected().expect("hips");
    assert_eq!(a.session.rig.node_label(hips), "hips");
    let clip = &a.session.rig.clips[0];
    let mine: Vec<_> = clip.channels.iter().filter(|c| c.node == hips).collect();
    let which = mine.iter().position(|c| c.property == rigscope::rig::Property::Translation).expect("T");
    assert_eq!(mine[which].interpolation, Interpolation::Linear);
    let ys: Vec<f32> = mine[which].values.chunks(3).map(|v| v[1]).collect();
    let lo = ys.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = ys.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    assert!(hi - lo > 0.01 && hi - lo < 0.05, "{lo}..{hi}");
    press(&mut a, &"G".repeat(which + 1));
    assert_eq!(a.panels.curves, Some(which));
    let s = screen(&mut a, 120, 40);
    assert!(s.contains(&format!("y max {hi:.4}")), "{s}");
    assert!(s.contains(&format!("min {lo:.4}")), "{s}");
    insta::assert_snapshot!(s);
}

/// Rotation curves as Euler angles: the hips' rotation replaced by a turn about Z from 0 to
/// 120 degrees (slerp, so the angle grows evenly): X and Y stay 0, Z spans 0..120, and the
/// order is named. `E` again goes back to quaternion components.
#[test]
fn rotation_curves_offer_euler_angles_with_their_order() {
    let mut rig = walker();
    let hips = (0..rig.nodes.len()).find(|&n| rig.node_label(n) == "hips").expect("hips");
    let ch = rig.clips[0]
        .channels
        .iter_mut()
        .find(|c| c.node == hips && c.property == rigscope::rig::Property::Rotation)
        .expect("hips rotation");
    ch.interpolation = Interpolation::Linear;
    ch.times = vec![0.0, 1.0].into();
    let z = |deg: f32| glam::Quat::from_rotation_z(deg.to_radians()).to_array();
    ch.values = [z(0.0), z(120.0)].concat().into();
    let mut a = App::new(rig, &Launch { time: 0.5, ..paused() });
    let which = a.session.rig.clips[0]
        .channels
        .iter()
        .filter(|c| c.node == hips)
        .position(|c| c.property == rigscope::rig::Property::Rotation)
        .expect("R");
    press(&mut a, &"G".repeat(which + 1));
    press(&mut a, "A");
    let s = screen(&mut a, 120, 40);
    // Labelled with its range on one row or max and min on two, as the panel's rows allow.
    assert!(s.contains("Z° 0.0..120.0") || s.contains("Z° max 120.0"), "{s}");
    assert!(s.contains("X° = 0.0 (flat)") && s.contains("Y° = 0.0 (flat)"), "{s}");
    // Half way, the slerp is 60 degrees about Z.
    assert!(s.contains("Euler XYZ intrinsic (R = Rx·Ry·Rz) = (0.00°, 0.00°, 60.00°)"), "{s}");
    insta::assert_snapshot!(s);
    press(&mut a, "A");
    let s = screen(&mut a, 120, 40);
    // w = cos(angle / 2): 1 at the start, cos 60° = 0.5 at the end.
    assert!(s.contains("w 0.5000..1.0000") || s.contains("w max 1.0000"), "{s}");
    assert!(!s.contains("Euler XYZ"), "{s}");
}

/// `F` shows every digit: the bone's weight statistics, labelled min, mean and max (computed
/// here by a scan of the walker's weights for the hips), and the selected vertex's skinned
/// sum (summed here from its stored influences), both as `{:?}` prints the f32.
#[test]
fn precision_shows_labelled_statistics_and_the_sum_in_full() {
    let mut a = App::new(walker(), &paused());
    let hips = a.selected_joint().expect("hips is a joint");
    let (mut lo, mut hi, mut total, mut n) = (f32::INFINITY, f32::NEG_INFINITY, 0.0f64, 0usize);
    for p in &a.session.ws.primitives {
        let prim = &a.session.rig.meshes[p.mesh].primitives[p.primitive];
        prim.for_each_influences(|_, slots| {
            let w: f32 = slots.iter().filter(|(j, _)| usize::from(*j) == hips).map(|s| s.1).sum();
            if w > 0.0 {
                lo = lo.min(w);
                hi = hi.max(w);
                total += f64::from(w);
                n += 1;
            }
        });
    }
    assert_eq!(n, a.selection.weights.vertices.len());
    let mean = (total / n as f64) as f32;
    press(&mut a, "F");
    let s = screen(&mut a, 250, 60);
    // The details panel's text, its wrapped lines joined.
    let d = ui::layout(Rect::new(0, 0, 250, 60), a.panels.focus, ui::tree::wanted_width(&a)).details;
    let panel: Vec<String> = s
        .lines()
        .skip(usize::from(d.y) + 1)
        .take(usize::from(d.height) - 2)
        .map(|l| {
            l.trim_matches('"')
                .chars()
                .skip(usize::from(d.x) + 1)
                .take(usize::from(d.width) - 2)
                .collect::<String>()
                .trim()
                .to_string()
        })
        .collect();
    let at =
        panel.iter().position(|l| l.starts_with("weights  757 vertices")).unwrap_or_else(|| panic!("{s}"));
    let line = format!("{} {}", panel[at], panel[at + 1]);
    assert!(line.contains(&format!("min {lo:?} mean ")), "{line}");
    assert!(line.contains(&format!(" max {hi:?}")), "{line}");
    // The mean as the app sums it (f32 or f64) may differ in the last digit: read it back.
    let shown: f32 = line
        .split("mean ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .expect("mean")
        .parse()
        .expect("a number");
    assert!((shown - mean).abs() <= 1e-6, "{shown} vs {mean}");
    assert!(
        line.split("mean ").nth(1).expect("mean").split_whitespace().next().expect("n").len() > 5,
        "{line}"
    );

    let v = a.selection.vertex.expect("the bone's first vertex");
    let p = &a.session.ws.primitives[v.prim];
    let prim = &a.session.rig.meshes[p.mesh].primitives[p.primitive];
    let sum: f32 = prim.influences_of(v.vertex).map(|(_, w)| w).filter(|w| *w != 0.0).sum();
    a.update(Action::Focus(rigscope::tui::action::Focus::Weights));
    let s = screen(&mut a, 250, 60);
    assert!(s.contains(&format!("sum as drawn: {sum:?} over ")), "{s}");
}

/// At 80x24 the curve view has rows for two strips: a translation moving only along z (its
/// x and y held at 0 and 0.95) shows z's strip, not two flat ones.
#[test]
fn short_curve_views_show_the_moving_components_first() {
    let mut rig = walker();
    let hips = (0..rig.nodes.len()).find(|&n| rig.node_label(n) == "hips").expect("hips");
    let ch = rig.clips[0]
        .channels
        .iter_mut()
        .find(|c| c.node == hips && c.property == rigscope::rig::Property::Translation)
        .expect("hips translation");
    ch.times = vec![0.0, 1.0].into();
    ch.values = vec![0.0, 0.95, 0.0, 0.0, 0.95, 0.25].into();
    let mut a = App::new(rig, &paused());
    let which = a.session.rig.clips[0]
        .channels
        .iter()
        .filter(|c| c.node == hips)
        .position(|c| c.property == rigscope::rig::Property::Translation)
        .expect("T");
    press(&mut a, &"G".repeat(which + 1));
    let s = screen(&mut a, 80, 24);
    assert!(s.contains("z 0.0000..0.2500") || s.contains("z max 0.2500"), "{s}");
    insta::assert_snapshot!(s);
}

/// Reloading a rig three times the size (the walker scaled at its root, as replacing one
/// character by another does): the view is framed anew, so the rig fills the viewport as
/// before rather than overflowing it, and the reload line says so first, within 80 columns.
#[test]
fn a_reload_of_a_bigger_rig_re_frames_the_view() {
    let mut a = App::new(walker(), &paused());
    let before = screen(&mut a, 80, 24);
    let mut big = walker();
    for n in 0..big.nodes.len() {
        if big.nodes[n].parent.is_none() {
            big.nodes[n].rest.scale *= 3.0;
        }
    }
    a.reload(rigscope::tui::Session::new(big, &paused()));
    let s = screen(&mut a, 80, 24);
    let note = s.lines().next_back().expect("the reload line");
    assert!(note.contains(" reloaded, view re-framed: rest pose moved: 1 joint (hips)"), "{s}");
    // The same camera angles, and the rig framed as the walker was: the viewport draws the
    // same picture (the scale is uniform), the status lines aside.
    let viewport = |s: &str| -> Vec<String> {
        s.lines().take(16).map(|l| l.trim_matches('"').chars().skip(30).collect()).collect()
    };
    assert_eq!(viewport(&s), viewport(&before));
    insta::assert_snapshot!(s);
}
