//! The viewer's panels: values reachable at every size,
//! exact stepping and going to a time, skins back and forth, the node browser, copying,
//! and the weights panel's verdict. Screens at fixed sizes through the real key table.

use crossterm::event::KeyModifiers;
use rigscope::render::ColorDepth;
use rigscope::rig::Rig;
use rigscope::tui::action::{Action, Focus};
use rigscope::tui::ui;
use rigscope::tui::{App, Launch};

use super::cli::sample;
use super::tui::{press, screen};

fn load(path: &str) -> Rig {
    rigscope::load(std::path::Path::new(path)).expect("rig loads")
}

fn paused() -> Launch {
    Launch { paused: true, color: ColorDepth::None, ..Launch::default() }
}

fn app(file: &str) -> App {
    App::new(load(&sample(file)), &paused())
}

/// The text inside the details panel (its column, between its borders), top to bottom.
fn details_text(app: &mut App, width: u16, height: u16) -> Vec<String> {
    let s = screen(app, width, height);
    let area = ui::layout(
        ratatui::layout::Rect::new(0, 0, width, height),
        app.panels.focus,
        ui::tree::wanted_width(app),
    )
    .details;
    s.lines()
        .skip(usize::from(area.y) + 1)
        .take(usize::from(area.height.saturating_sub(2)))
        .map(|l| {
            l.trim_matches('"')
                .chars()
                .skip(usize::from(area.x) + 1)
                .take(usize::from(area.width) - 2)
                .collect()
        })
        .collect()
}

/// Every number of the selected joint's inverse bind matrix (as the file stores it, to 4
/// decimals; 3 in the 28 columns of the 80-column layout, where 4 would break a row in
/// two) is on screen at some scroll position of the details panel, in row order, at the
/// three sizes a user tried; `}` stops at the end.
fn every_ibm_value_is_reachable(mut a: App, what: &str) {
    let j = a.selected_joint().expect("a joint is selected");
    let ibm = a.session.rig.skins[0].inverse_bind[j];
    for (w, h) in [(80, 24), (120, 40), (160, 48)] {
        let decimals = if w < 110 { 3 } else { 4 };
        let want: Vec<String> =
            (0..4).flat_map(|r| ibm.row(r).to_array()).map(|v| format!("{v:.decimals$}")).collect();
        // The panel's lines put back together: the first window, then at each `}` the
        // lines it scrolled into view.
        a.panels.details_scroll = 0;
        let mut seen = details_text(&mut a, w, h);
        for _ in 0..40 {
            let before = a.panels.details_scroll;
            press(&mut a, "}");
            let moved = usize::from(a.panels.details_scroll - before);
            if moved == 0 {
                break;
            }
            let window = details_text(&mut a, w, h);
            seen.extend(window[window.len() - moved..].iter().cloned());
        }
        let text = seen.join("\n");
        let heading = text.find("inverse bind matrix").unwrap_or_else(|| panic!("{what} {w}x{h}:\n{text}"));
        let mut at = heading;
        for v in &want {
            let found = text[at..]
                .find(v.as_str())
                .unwrap_or_else(|| panic!("{what} {w}x{h}: {v} after {at}:\n{text}"));
            at += found + v.len();
        }
    }
}

#[test]
fn details_scroll_to_every_inverse_bind_value_at_every_size() {
    let mut a = app("walker.glb");
    press(&mut a, "jjjj"); // head
    every_ibm_value_is_reachable(a, "walker head");
    match super::assets::assets_dir() {
        Some(dir) => {
            let rig = load(&dir.join("CesiumMan/CesiumMan.glb").display().to_string());
            let mut a = App::new(rig, &paused());
            press(&mut a, "jjjjjj"); // Skeleton_arm_joint_L__3_, as in the issue
            every_ibm_value_is_reachable(a, "CesiumMan");
        }
        None => super::assets::skip_notice("the CesiumMan details check"),
    }
}

#[test]
fn details_at_80x24_scrolled_to_the_matrix() {
    let mut a = app("walker.glb");
    press(&mut a, "jjjj}}}}}}}}}}}}}}}}");
    let s = screen(&mut a, 80, 24);
    assert!(s.contains("{: ") && s.contains("more ↑"), "{s}");
    insta::assert_snapshot!(s);
}

/// The walker's walk keys are i/24 s for i = 0..=24 (samples/README.md), so key 12 is at
/// 0.5 s: twelve `.` from 0 are exactly there, and the sampled value is key 12's, not a
/// blend from key 11.
#[test]
fn twelve_steps_land_on_the_twelfth_key() {
    let mut a = app("walker.glb");
    press(&mut a, "jjjj............");
    assert_eq!(a.player.playback.time, 0.5);
    let s = screen(&mut a, 160, 48);
    assert!(s.contains("0.5000 / 1.0000 s") && s.contains("frame 12"), "{s}");
    assert!(s.contains("slerp(key 12, key 13, 0.00)"), "{s}");
}

/// CesiumMan's keys start at 1/24 s, and its file stores key 11 at exactly 0.5 s; the
/// smallest spacing between two stored key times is 0.041666031 s (f32 rounding), a little
/// under 1/24. Stepping used to add that spacing twelve times, reaching 0.4999924 s, short
/// of key 11 (`slerp(key 10, key 11, 1.00)`), while `--time 0.5` shows
/// `slerp(key 11, key 12, 0.00)`. Both must now show the same screen.
#[test]
fn cesium_man_stepping_matches_seeking() {
    let Some(dir) = super::assets::assets_dir() else {
        return super::assets::skip_notice("the CesiumMan stepping check");
    };
    let path = dir.join("CesiumMan/CesiumMan.glb").display().to_string();
    let mut stepped = App::new(load(&path), &paused());
    press(&mut stepped, "jjjjjj............");
    let mut seeked = App::new(load(&path), &Launch { time: 0.5, ..paused() });
    press(&mut seeked, "jjjjjj");
    assert_eq!(stepped.player.playback.time, seeked.player.playback.time);
    // The viewer frames the pose it opens on: the same camera for both, so that only the
    // time can differ.
    seeked.view.camera = stepped.view.camera;
    seeked.view.framed_distance = stepped.view.framed_distance;
    let (a, b) = (screen(&mut stepped, 160, 48), screen(&mut seeked, 160, 48));
    assert!(a.contains("slerp(key 11, key 12, 0.00)"), "{a}");
    assert_eq!(a, b);
    // `:` takes the same place as a frame number or in seconds.
    let mut typed = App::new(load(&path), &paused());
    typed.view.camera = stepped.view.camera;
    press(&mut typed, "jjjjjj:12f\n");
    assert_eq!(typed.player.playback.time, 0.5);
    press(&mut typed, ":0.5\n");
    assert_eq!(screen(&mut typed, 160, 48), b);
}

#[test]
fn go_to_prompt_takes_seconds_and_frames_and_says_what_is_wrong() {
    let mut a = app("walker.glb");
    press(&mut a, ":");
    assert!(a.overlays.prompt.is_some());
    press(&mut a, "0.25");
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("go to (seconds, or frame as 12f): 0.25_"), "{s}");
    insta::assert_snapshot!(s);
    press(&mut a, "\n");
    assert_eq!(a.player.playback.time, 0.25);
    assert!(a.overlays.prompt.is_none() && a.player.playback.paused);
    // Frame 18 of 1/24 s: 0.75 s (the step that `.` takes, computed in f64).
    press(&mut a, ":18f\n");
    assert_eq!(a.player.playback.time, 0.75);
    press(&mut a, ":abc\n");
    assert!(
        a.status.message.as_deref().is_some_and(|m| m.contains("'abc' is not a time")),
        "{:?}",
        a.status.message
    );
    press(&mut a, ":9\n");
    assert_eq!(a.player.playback.time, 1.0);
    assert!(
        a.status.message.as_deref().is_some_and(|m| m.contains("outside the clip")),
        "{:?}",
        a.status.message
    );
    // A frame past the end is named as a frame, with the last one (1 s at 1/24 s: 24).
    press(&mut a, ":200f\n");
    let said = a.status.message.clone().unwrap_or_default();
    assert!(
        said.contains("frame 200 is outside the clip: at frame 24 (the clip has frames 0 to 24)"),
        "{said}"
    );
    press(&mut a, ":inf\n");
    assert!(
        a.status.message.as_deref().is_some_and(|m| m.contains("'inf' is not a time")),
        "{:?}",
        a.status.message
    );
    // Esc leaves the prompt without moving; the prompt takes letters that are keys elsewhere.
    press(&mut a, ":q\x1b");
    assert!(a.overlays.prompt.is_none() && !a.schedule.quit && a.player.playback.time == 1.0);
    // The rest pose (after the last clip and `all`) has no timeline to go to.
    press(&mut a, "ccc:0.5\n");
    assert!(
        a.status.message.as_deref().is_some_and(|m| m.contains("the rest pose has no timeline")),
        "{:?}",
        a.status.message
    );
}

#[test]
fn the_clip_list_ends_with_the_rest_pose_and_backspace_resets_the_speed() {
    let mut a = app("walker.glb");
    press(&mut a, ">>");
    assert_eq!(a.player.playback.speed, 4.0);
    press(&mut a, "\x08");
    assert_eq!(a.player.playback.speed, 1.0);
    // walk, idle, then `all` (both at once), then the rest pose.
    press(&mut a, "cc");
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("all (2 clips at once)"), "{s}");
    press(&mut a, "c");
    assert_eq!(a.player.clip, None);
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("rest pose (3/3)") && s.contains("rest pose: no clip plays"), "{s}");
    // The pose is the rest pose: every node's local transform is its rest transform.
    for (n, node) in a.session.rig.nodes.iter().enumerate() {
        assert_eq!(a.session.ws.pose.locals[n], node.rest, "node {n}");
    }
    press(&mut a, "c");
    assert_eq!(a.player.clip, Some(0));
    press(&mut a, "C");
    assert_eq!(a.player.clip, None);
}

/// The tentacle with three more skins on copies of its mesh node: four skins, as files
/// with one skin per part have (the 84-skin rig). Each copy's inverse bind
/// matrices move its bind pose 0.6 units along -X, so the copies stand side by side.
fn four_skins() -> App {
    let mut rig = load(&sample("tentacle.glb"));
    let mesh_node = rig.nodes.iter().position(|n| n.skin == Some(0)).expect("a skinned node");
    for k in 1..4 {
        let mut skin = rig.skins[0].clone();
        let shift = glam::Mat4::from_translation(glam::Vec3::new(0.6 * k as f32, 0.0, 0.0));
        for ibm in &mut skin.inverse_bind {
            *ibm *= shift;
        }
        skin.name = Some(format!("part{k}"));
        rig.skins.push(skin);
        let mut node = rig.nodes[mesh_node].clone();
        node.name = Some(format!("body{k}"));
        node.skin = Some(k);
        let i = rig.nodes.len();
        rig.nodes.push(node);
        rig.order.push(i);
        rig.scenes[0].roots.push(i);
    }
    App::new(rig, &paused())
}

#[test]
fn skins_go_back_and_by_number_and_say_what_they_deform() {
    let mut a = four_skins();
    press(&mut a, "S");
    assert_eq!(a.selection.skin, Some(3));
    assert_eq!(a.status.message.as_deref(), Some("skin 4/4: deforms node 13 body3 (mesh 0 tentacle)"));
    press(&mut a, "\t");
    assert_eq!(a.selection.skin, Some(0));
    press(&mut a, "#3\n");
    assert_eq!(a.selection.skin, Some(2));
    let s = screen(&mut a, 160, 48);
    assert!(s.contains("Bones: skin 3/4") && s.contains("deforms node 12 body2"), "{s}");
    insta::assert_snapshot!(s);
    press(&mut a, "#9\n");
    assert_eq!(a.selection.skin, Some(2));
    assert!(
        a.status.message.as_deref().is_some_and(|m| m.contains("skins 1 to 4")),
        "{:?}",
        a.status.message
    );
    // One skin: nothing to go to, and it says so.
    let mut one = app("walker.glb");
    press(&mut one, "#");
    assert!(one.overlays.prompt.is_none() && one.status.message.as_deref() == Some("1 skin in this file"));
}

#[test]
fn node_browser_lists_every_node_with_its_mesh_and_skin() {
    let mut a = four_skins();
    press(&mut a, "N");
    assert_eq!(a.selection.tree.rows().len(), a.session.rig.nodes.len());
    let s = screen(&mut a, 160, 48);
    assert!(s.contains("focus: nodes") && s.contains("Nodes (14"), "{s}");
    assert!(s.contains("body2 mesh 0 skin 3"), "{s}");
    insta::assert_snapshot!(s);
    press(&mut a, "N");
    assert_eq!(a.selection.tree.rows().len(), 10);
    // A file without skins lists its nodes, and the status line agrees with the title.
    let Some(dir) = super::assets::assets_dir() else {
        return super::assets::skip_notice("the skinless node browser check");
    };
    let rig = load(&dir.join("BoxAnimated/BoxAnimated.gltf").display().to_string());
    let mut b = App::new(rig, &paused());
    let s = screen(&mut b, 120, 40);
    assert!(
        s.contains("Nodes (4; no skin)") && s.contains("focus: nodes") && !s.contains("focus: bones"),
        "{s}"
    );
}

#[test]
fn copy_sends_the_values_with_every_digit() {
    let mut a = app("walker.glb");
    press(&mut a, "jjjj....y");
    let text = a.status.clipboard.clone().expect("something to copy");
    let node = a.selected().expect("head");
    let ibm = a.session.rig.skins[0].inverse_bind[a.selected_joint().expect("a joint")];
    // The shortest decimals that read back as the same f32: parsing them gives the bits.
    let last_row: Vec<f32> = text
        .lines()
        .last()
        .expect("a line")
        .split_whitespace()
        .map(|v| v.parse().expect("a number"))
        .collect();
    assert_eq!(last_row, ibm.row(3).to_array());
    let rest = a.session.rig.nodes[node].rest.translation;
    let line = text.lines().find(|l| l.starts_with("local rest translation")).expect("rest translation");
    let got: Vec<f32> = line.split_whitespace().skip(3).map(|v| v.parse().expect("a number")).collect();
    assert_eq!(got, rest.to_array());
    assert!(a.status.message.as_deref().is_some_and(|m| m.contains("OSC 52")), "{:?}", a.status.message);
    // From the weights panel, the vertex.
    a.update(Action::Focus(Focus::Weights));
    press(&mut a, "y");
    let text = a.status.clipboard.clone().expect("a vertex to copy");
    let v = a.selection.vertex.expect("a vertex").vertex;
    assert!(text.starts_with(&format!("mesh 0 \"walker\", primitive 0, vertex {v}")), "{text}");
}

#[test]
fn full_precision_shows_every_digit() {
    let mut a = app("walker.glb");
    press(&mut a, "jjjj..F");
    let s = screen(&mut a, 160, 48);
    let ch =
        a.session.rig.clips[0].channels.iter().find(|c| Some(c.node) == a.selected()).expect("a channel");
    let mut out = vec![0.0f32; ch.components];
    rigscope::anim::sample_channel(ch, a.player.playback.time, &mut out);
    let want = out.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(", ");
    assert!(s.contains(&want), "{want}\n{s}");
}

#[test]
fn render_command_reproduces_the_view() {
    let mut a = app("walker.glb");
    press(&mut a, "..R");
    let cmd = a.status.clipboard.clone().expect("a command line");
    let walker = sample("walker.glb");
    assert!(cmd.starts_with(&format!("rigscope render {walker} --clip '#0' --time 0.083333336")), "{cmd}");
    // The viewer opens 25 degrees round and 10 down, framed (zoom 1).
    assert!(
        cmd.contains("--yaw 25.0 --pitch 10.0 --zoom 1.000 --size 120x40 --mode braille --bones"),
        "{cmd}"
    );
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("rigscope render"), "{s}");
}

#[test]
fn weights_panel_says_plainly_and_lists_what_is_drawn() {
    let mut a = app("bad-weights.glb");
    a.update(Action::Focus(Focus::Weights));
    press(&mut a, "\n");
    let s = screen(&mut a, 160, 48);
    // The worst vertex first: v11, whose NaN weight some engines keep, so that they
    // cannot place it at all. The panel's 44 columns hold the code whole, and what it does.
    assert_eq!(a.selection.vertex.map(|v| v.vertex), Some(11));
    assert!(s.contains("  error: ACCESSOR_INVALID_FLOAT"), "{s}");
    assert!(s.contains("the weight on j2 is NaN"), "{s}");
    assert!(s.contains("no position: its triangles vanish"), "{s}");
    // `p`: three.js's weights are listed, and the verdict says it is about the stored ones.
    press(&mut a, "p");
    let s = screen(&mut a, 160, 48);
    assert!(s.contains("weights as three.js r187 draws them"), "{s}");
    assert!(s.contains("1 error in the stored weights"), "{s}");
    insta::assert_snapshot!(s);
    let mut b = app("walker.glb");
    let s = screen(&mut b, 160, 48);
    assert!(s.contains("  passes the validator's rules"), "{s}");
}

/// `G` plots the selected bone's channels one after the other, then goes back to the
/// dope sheet. The walker's head has one channel (a rotation), so the plot's range is
/// that channel's, computed here from its keys' components with the same sampler.
#[test]
fn curves_plot_the_bone_channels_then_go_back() {
    let mut a = app("walker.glb");
    press(&mut a, "jjjj......G");
    assert_eq!(a.panels.curves, Some(0));
    let s = screen(&mut a, 160, 48);
    let ch =
        a.session.rig.clips[0].channels.iter().find(|c| Some(c.node) == a.selected()).expect("head channel");
    assert!(s.contains("Curves: walk") && s.contains("rotation head") && s.contains("Δ/key max"), "{s}");
    // The labels give the range of every sampled component: at least what the keys span.
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    let mut q = [0.0f32; 4];
    for &t in ch.times.iter() {
        rigscope::anim::sample_channel(ch, t, &mut q);
        for v in q {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    assert!(s.contains(&format!("max {hi:.3}")) && s.contains(&format!("min {lo:.3}")), "{lo} {hi}\n{s}");
    insta::assert_snapshot!(s);
    press(&mut a, "G");
    assert_eq!(a.panels.curves, None);
    assert!(screen(&mut a, 160, 48).contains("Keyframes: walk"));
}

#[test]
fn the_wheel_scrolls_the_details_panel() {
    use crossterm::event::{MouseEvent, MouseEventKind};
    use rigscope::tui::ui::MouseState;
    let a = app("walker.glb");
    let areas = ui::layout(ratatui::layout::Rect::new(0, 0, 120, 40), Focus::Bones, 30);
    let d = areas.details;
    let at = |kind| MouseEvent { kind, column: d.x + 2, row: d.y + 2, modifiers: KeyModifiers::NONE };
    let mut state = MouseState::default();
    assert_eq!(
        ui::mouse_action(&areas, &a, at(MouseEventKind::ScrollDown), &mut state),
        Some(Action::ScrollDetails(1))
    );
    assert_eq!(
        ui::mouse_action(&areas, &a, at(MouseEventKind::ScrollUp), &mut state),
        Some(Action::ScrollDetails(-1))
    );
}

/// A name too long for the tree is cut with "…" before its markers, which stay: the
/// walker's head (animated, `~`) renamed to 60 characters, at 80x24 (a 32-column tree).
#[test]
fn long_names_end_with_an_ellipsis_and_keep_their_markers() {
    let mut rig = load(&sample("walker.glb"));
    let head = (0..rig.nodes.len()).find(|&n| rig.node_label(n) == "head").expect("head");
    rig.nodes[head].name = Some(format!("head_{}", "x".repeat(55)));
    let mut a = App::new(rig, &paused());
    let s = screen(&mut a, 80, 24);
    let row = s.lines().find(|l| l.contains("head_")).unwrap_or_else(|| panic!("{s}"));
    let tree: String = row.trim_matches('"').split('│').nth(1).expect("the tree column").to_string();
    assert!(tree.trim_end().ends_with("x… ~"), "{tree:?}");
    // The row fills the panel exactly: nothing of the marker is cut.
    assert_eq!(
        ui::cols(&tree),
        usize::from(
            ui::layout(ratatui::layout::Rect::new(0, 0, 80, 24), a.panels.focus, ui::tree::wanted_width(&a))
                .tree
                .width
        ) - 2
    );
}

/// A chain of 40 joints with no mesh: the tree indents two columns a level to depth 8,
/// then one, up to half the panel, and rows past depth 8 say their depth; the deepest
/// joint is still readable, and selecting down the chain keeps it on screen.
#[test]
fn a_forty_level_chain_stays_readable() {
    use rigscope::rig::{Node, Scene, Skin};
    let n: usize = 40;
    let mut rig = Rig { source: "chain".into(), ..Rig::default() };
    for i in 0..n {
        let mut node = Node { name: Some(format!("bone{i:02}")), ..Node::default() };
        node.rest.translation.y = 0.1;
        node.parent = i.checked_sub(1);
        if i + 1 < n {
            node.children = vec![i + 1];
        }
        rig.nodes.push(node);
    }
    rig.order = (0..n).collect();
    rig.scenes = vec![Scene { name: None, roots: vec![0] }];
    rig.default_scene = Some(0);
    rig.skins = vec![Skin {
        name: Some("chain".into()),
        joints: (0..n).collect(),
        inverse_bind: vec![glam::Mat4::IDENTITY; n],
        joint_order: (0..n).collect(),
        joint_parent: (0..n).map(|i| i.checked_sub(1)).collect(),
        ..Skin::default()
    }];
    let mut a = App::new(rig, &paused());
    press(&mut a, &"j".repeat(39));
    assert_eq!(a.selected(), Some(39));
    let s = screen(&mut a, 160, 48);
    assert!(s.contains("39   bone39") && s.contains(" 9 ▾ bone09") && s.contains("   ▾ bone08"), "{s}");
    insta::assert_snapshot!(s);
}
