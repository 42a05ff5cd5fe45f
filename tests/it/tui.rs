//! Whole viewer screens at fixed sizes, times and cameras, after key sequences typed through
//! the real key table; and (when tmux is installed) the real binary in a real terminal.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use rigscope::render::ColorDepth;
use rigscope::tui::action::Action;
use rigscope::tui::ui::{self, ViewportCache};
use rigscope::tui::{App, Launch, Session, keymap};

use super::cli::sample;

fn app(file: &str, launch: Launch) -> App {
    let rig = rigscope::load(std::path::Path::new(&sample(file))).expect("sample loads");
    App::new(rig, &launch)
}

fn session(file: &str, launch: Launch) -> Session {
    let rig = rigscope::load(std::path::Path::new(&sample(file))).expect("sample loads");
    Session::new(rig, &launch)
}

fn paused() -> Launch {
    Launch { paused: true, color: ColorDepth::None, ..Launch::default() }
}

/// Types `keys` (one char per key; `\t` Tab, `\n` Enter, `\x1b` Esc, `\x08` Backspace)
/// through the key table.
pub fn press(app: &mut App, keys: &str) {
    for ch in keys.chars() {
        let code = match ch {
            '\t' => KeyCode::Tab,
            '\n' => KeyCode::Enter,
            '\x1b' => KeyCode::Esc,
            '\x08' => KeyCode::Backspace,
            c => KeyCode::Char(c),
        };
        let ev = KeyEvent::new(code, KeyModifiers::NONE);
        if let Some(action) = keymap::action_for_app(&ev, app) {
            app.update(action);
        }
    }
}

/// The whole screen at `width` x `height` cells, as text; what it measured goes back to the
/// app, as the event loop hands it.
pub fn screen(app: &mut App, width: u16, height: u16) -> String {
    app.evaluate();
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    let mut cache = ViewportCache::default();
    let mut measured = None;
    terminal
        .draw(|f| {
            measured = Some(ui::draw(f, app, &mut cache).measured);
        })
        .expect("draw");
    app.update(Action::Measured(measured.expect("drawn")));
    terminal.backend().to_string()
}

#[test]
fn walker_at_start_120x40() {
    let mut a = app("walker.glb", paused());
    let s = screen(&mut a, 120, 40);
    for text in
        ["Bones (17 joints)", "hips", "spine", "Keyframes: walk", "0.0000 / 1.0000 s", "Viewport: braille"]
    {
        assert!(s.contains(text), "missing {text:?}:\n{s}");
    }
    insta::assert_snapshot!(s);
}

#[test]
fn t_shows_the_bench_stages_in_place_of_the_hints_within_80_columns() {
    let mut a = app("walker.glb", Launch { time: 0.25, ..paused() });
    press(&mut a, "t");
    // Skipping to another time makes the pose dirty, so this frame evaluates every stage.
    press(&mut a, ".");
    let s = screen(&mut a, 80, 24);
    let last = s.lines().rev().find(|l| !l.trim_matches(['"', ' ']).is_empty()).expect("a status line");
    for stage in ["sample ", " pose ", " skin ", " raster ", " draw ", " frame ", " ms ", " B"] {
        assert!(last.contains(stage), "missing {stage:?} in {last:?}");
    }
    assert!(!s.contains("? help"), "the hints should give way to the timings:\n{s}");
    press(&mut a, "t");
    let s = screen(&mut a, 80, 24);
    assert!(s.contains("? help") && !s.contains(" raster "), "{s}");
}

#[test]
fn walker_80x24_shares_the_side_panel() {
    let mut a = app("walker.glb", paused());
    let s = screen(&mut a, 80, 24);
    assert!(s.contains("Details (⇧Tab: weights)") && !s.contains("Skin weights"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn playing_advances_time_by_the_ticks() {
    let mut a = app("walker.glb", Launch { color: ColorDepth::None, ..Launch::default() });
    for _ in 0..10 {
        a.update(Action::Tick(0.025));
    }
    assert!((a.player.playback.time - 0.25).abs() < 1e-5, "{}", a.player.playback.time);
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("0.2500 / 1.0000 s"), "{s}");
    // Space pauses; ticks no longer move time.
    press(&mut a, " ");
    a.update(Action::Tick(0.5));
    assert!((a.player.playback.time - 0.25).abs() < 1e-5);
    insta::assert_snapshot!(s);
}

#[test]
fn stepping_moves_by_the_clip_key_spacing() {
    // The walk keys are 1/24 s apart: three steps forward, one back = 2/24 s.
    let mut a = app("walker.glb", paused());
    press(&mut a, "...,");
    assert!((a.player.playback.time - 2.0 / 24.0).abs() < 1e-5, "{}", a.player.playback.time);
    // `]` jumps to the next key of the selected bone, `End` to the end.
    press(&mut a, "]");
    assert!((a.player.playback.time - 3.0 / 24.0).abs() < 1e-4, "{}", a.player.playback.time);
}

#[test]
fn selecting_a_bone_shows_its_channels_and_weights() {
    let mut a = app("walker.glb", paused());
    press(&mut a, "jjjj"); // hips -> spine -> chest -> neck -> head
    assert_eq!(a.selected().map(|n| a.session.rig.node_label(n)), Some("head".to_string()));
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("head  node 4"), "{s}");
    assert!(s.contains("rotation (x,y,z,w) = "), "{s}");
    assert!(s.contains("head: "), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn filtering_the_tree_by_name() {
    let mut a = app("walker.glb", paused());
    press(&mut a, "/fore\n");
    let rows: Vec<String> =
        a.selection.tree.rows().iter().map(|r| a.session.rig.node_label(r.node)).collect();
    assert!(rows.contains(&"forearm.L".to_string()) && rows.contains(&"forearm.R".to_string()), "{rows:?}");
    assert!(!rows.contains(&"thigh.L".to_string()), "{rows:?}");
    // The first match is selected, and the details follow it.
    assert_eq!(a.selection.tree.selected.map(|n| a.session.rig.node_label(n)), Some("forearm.L".to_string()));
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("/fore") && s.contains("forearm.L  node 6"), "{s}");
    insta::assert_snapshot!(s);
    press(&mut a, "\x1b");
    assert!(a.selection.tree.rows().len() >= 17);
}

#[test]
fn help_lists_every_binding() {
    let mut a = app("walker.glb", paused());
    press(&mut a, "?");
    let s = screen(&mut a, 160, 50);
    for b in keymap::BINDINGS {
        assert!(s.contains(b.help), "help misses {:?}", b.help);
    }
    insta::assert_snapshot!(s);
    press(&mut a, "?");
    assert!(!a.overlays.help);
}

#[test]
fn tiny_terminal_says_so() {
    let mut a = app("walker.glb", paused());
    let s = screen(&mut a, 40, 10);
    assert!(s.contains("terminal too small") && s.contains("have 40x10"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn bad_weights_lists_problems_and_jumps_to_one() {
    let mut a = app("bad-weights.glb", paused());
    assert!(!a.session.vertex_problems.is_empty());
    // Focus the weights panel (Shift-Tab three times), then Enter on the first problem.
    for _ in 0..3 {
        a.update(Action::FocusNext);
    }
    press(&mut a, "\n");
    let f = a.session.diag.findings[a.session.vertex_problems[0].findings[0]].clone();
    let v = a.selection.vertex.expect("a vertex is selected");
    assert_eq!(Some(v.vertex), f.vertex.as_ref().map(|x| x.vertex));
    // samples/README.md lists 11 faulty vertices (10 in primitive 0, 1 in primitive 1).
    let s = screen(&mut a, 120, 40);
    assert!(s.contains(f.code) && s.contains("1/11"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn clip_cycling_speed_and_loop_modes() {
    let mut a = app("tentacle.glb", paused());
    press(&mut a, "c");
    assert_eq!(a.player.clip, Some(1));
    press(&mut a, "C");
    assert_eq!(a.player.clip, Some(0));
    press(&mut a, "<<<");
    assert!((a.player.playback.speed - 0.1).abs() < 1e-6, "{}", a.player.playback.speed);
    press(&mut a, "<");
    assert!((a.player.playback.speed + 0.1).abs() < 1e-6, "reverse after 0.1x");
    press(&mut a, "l");
    assert_eq!(a.player.playback.mode, rigscope::anim::LoopMode::Once);
    // In the viewport `l` orbits; `o` still cycles the loop mode there.
    a.update(Action::Focus(rigscope::tui::action::Focus::Viewport));
    press(&mut a, "l");
    assert_eq!(a.player.playback.mode, rigscope::anim::LoopMode::Once);
    press(&mut a, "o");
    assert_eq!(a.player.playback.mode, rigscope::anim::LoopMode::PingPong);
}

#[test]
fn every_render_mode_draws_the_tentacle() {
    for (key, name) in [('1', "braille"), ('2', "half-block"), ('3', "ascii")] {
        let mut a = app("tentacle.glb", paused());
        press(&mut a, &key.to_string());
        let s = screen(&mut a, 100, 30);
        assert!(s.contains(&format!("Viewport: {name}")), "{s}");
        insta::assert_snapshot!(format!("tentacle_mode_{name}"), s);
    }
}

/// The real binary in a real terminal: bone names, the clip and an advancing time are on
/// screen, `q` quits with status 0, and the terminal is back to normal (main screen, cursor
/// shown, mouse reporting off). Skipped with a note when tmux is not installed.
#[test]
fn tmux_smoke_test() {
    let Some(tmux) = super::tmux::Tmux::new("the tmux smoke test") else { return };
    let bin = env!("CARGO_BIN_EXE_rigscope");
    let cmd = format!("{bin} {}; echo EXITED $?; sleep 30", sample("walker.glb"));
    tmux.start("smoke", 120, 40, &cmd);
    let first = tmux.wait_for("smoke", &["Keyframes: walk", "hips", "spine", "thigh.L", " / 1.0000 s"]);
    let time_of = |screen: &str| -> Option<f32> {
        let at = screen.find(" / 1.0000 s")?;
        screen[..at].rsplit(' ').next().and_then(|t| t.parse().ok())
    };
    let t0 = time_of(&first).expect("a time before / 1.0000 s");
    // Polled rather than read once after a fixed wait: on a loaded machine a capture can
    // come before the next frame, or catch none.
    tmux.wait_until("smoke", &format!("a time other than {t0}"), |s| time_of(s).is_some_and(|t| t != t0));
    // The mouse modes the viewer asked tmux for: button-event tracking (1002) in SGR
    // encoding, never any-motion tracking (1003), which would send every idle move.
    let mouse = tmux.run(&[
        "display-message",
        "-p",
        "-t",
        "smoke",
        "#{mouse_all_flag} #{mouse_button_flag} #{mouse_sgr_flag}",
    ]);
    assert_eq!(mouse.trim(), "0 1 1", "any-motion, button-event, SGR mouse modes while running");
    tmux.run(&["send-keys", "-t", "smoke", "q"]);
    let after = tmux.wait_for("smoke", &["EXITED"]);
    assert!(after.contains("EXITED 0"), "{after}");
    let state = tmux.run(&[
        "display-message",
        "-p",
        "-t",
        "smoke",
        "#{alternate_on} #{cursor_flag} #{mouse_any_flag}",
    ]);
    assert_eq!(state.trim(), "0 1 0", "alternate screen, cursor, mouse after quitting");
}

#[test]
fn mouse_scrubs_the_timeline_and_orbits_the_viewport() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    use ratatui::layout::Rect;
    use rigscope::tui::action::Focus;
    use rigscope::tui::ui::MouseState;
    let a = app("walker.glb", paused());
    let areas = ui::layout(Rect::new(0, 0, 160, 48), Focus::Bones, 30);
    let at = |kind, column, row| MouseEvent { kind, column, row, modifiers: KeyModifiers::NONE };
    let mut state = MouseState::default();
    // The timeline's last column is the clip's end, its first the start.
    let tl = areas.timeline;
    let end = ui::mouse_action(
        &areas,
        &a,
        at(MouseEventKind::Down(MouseButton::Left), tl.x + tl.width - 1, tl.y),
        &mut state,
    );
    assert_eq!(end, Some(Action::Seek(a.player.playback.duration)));
    let start =
        ui::mouse_action(&areas, &a, at(MouseEventKind::Drag(MouseButton::Left), tl.x, tl.y + 1), &mut state);
    assert_eq!(start, Some(Action::Seek(0.0)));
    ui::mouse_action(&areas, &a, at(MouseEventKind::Up(MouseButton::Left), tl.x, tl.y), &mut state);
    // Dragging in the viewport orbits by the distance moved.
    let v = areas.viewport;
    let (cx, cy) = (v.x + v.width / 2, v.y + v.height / 2);
    let down = ui::mouse_action(&areas, &a, at(MouseEventKind::Down(MouseButton::Left), cx, cy), &mut state);
    assert_eq!(down, Some(Action::Focus(Focus::Viewport)));
    let drag =
        ui::mouse_action(&areas, &a, at(MouseEventKind::Drag(MouseButton::Left), cx + 2, cy), &mut state);
    assert!(matches!(drag, Some(Action::Orbit { yaw, pitch }) if yaw > 0.0 && pitch == 0.0), "{drag:?}");
    let wheel = ui::mouse_action(&areas, &a, at(MouseEventKind::ScrollUp, cx, cy), &mut state);
    assert!(matches!(wheel, Some(Action::Zoom(f)) if f < 1.0), "{wheel:?}");
}

/// The bone tree's "weights no vertex" marks: the joints of the first skin for which a
/// plain scan of every skinned primitive's influences (written here) finds no non-zero
/// weight. Fox has two such joints (as `check` and glTF-Validator also say); the walker none.
#[test]
fn unweighted_joints_are_the_ones_no_vertex_weights() {
    let mut rigs = vec![("walker.glb".to_string(), sample("walker.glb"))];
    match super::assets::assets_dir() {
        Some(dir) => rigs.push(("Fox".to_string(), dir.join("Fox/Fox.glb").display().to_string())),
        None => super::assets::skip_notice("the unweighted-joint check on Fox"),
    }
    for (name, path) in rigs {
        let rig = rigscope::load(std::path::Path::new(&path)).expect("rig loads");
        let skin = &rig.skins[0];
        let mut weighted = vec![false; skin.joints.len()];
        for node in rig.nodes.iter().filter(|n| n.skin == Some(0)) {
            let mesh = &rig.meshes[node.mesh.expect("a skinned node has a mesh")];
            for set in mesh.primitives.iter().flat_map(|p| &p.influences) {
                for (joints, weights) in set.joints.iter().zip(set.weights.iter()) {
                    for (&j, &w) in joints.iter().zip(weights) {
                        if w != 0.0 {
                            weighted[j as usize] = true;
                        }
                    }
                }
            }
        }
        let want: Vec<usize> =
            skin.joints.iter().zip(&weighted).filter(|(_, w)| !**w).map(|(&node, _)| node).collect();
        let a = App::new(rig, &paused());
        let got: Vec<usize> =
            (0..a.selection.unweighted.len()).filter(|&n| a.selection.unweighted[n]).collect();
        let mut want = want;
        want.sort();
        assert_eq!(got, want, "{name}");
        assert_eq!(got.len(), if name == "Fox" { 2 } else { 0 }, "{name}");
    }
}

#[test]
fn the_tree_widens_for_long_names_while_the_viewport_has_room() {
    use ratatui::layout::Rect;
    use rigscope::tui::action::Focus;
    let tree = |w, h, wanted| ui::layout(Rect::new(0, 0, w, h), Focus::Bones, wanted).tree.width;
    // 160 wide: up to 3/10 of the screen (48), never under 30.
    assert_eq!(tree(160, 48, 38), 38);
    assert_eq!(tree(160, 48, 100), 48);
    assert_eq!(tree(160, 48, 12), 30);
    // 120 wide: the side panel (46) and 60 columns of viewport leave 14, so 30.
    assert_eq!(tree(120, 40, 38), 30);
    // 80 wide (the tree shares its column): 2/5 of the screen.
    assert_eq!(tree(80, 24, 38), 32);
    // The walker's rows fit in 30 columns: its layout is unchanged.
    let a = app("walker.glb", paused());
    assert!(ui::tree::wanted_width(&a) <= 30, "{}", ui::tree::wanted_width(&a));
}

#[test]
fn enter_on_a_problem_selects_the_heaviest_joint_that_exists() {
    // bad-weights.glb's out-of-range vertex weights joint 3 and the missing joint 7 half
    // each: the tree can only select joint 3. Every problem vertex with a usable joint
    // must select its heaviest one (the weights written in the file, by hand here).
    let mut a = app("bad-weights.glb", paused());
    for _ in 0..3 {
        a.update(Action::FocusNext);
    }
    let skin = a.session.rig.skins[0].joints.clone();
    let mut checked_oob = false;
    for k in 0..a.session.vertex_problems.len() {
        a.selection.problem = k;
        press(&mut a, "\n");
        let f = a.session.diag.findings[a.session.vertex_problems[k].findings[0]].clone();
        let vf = f.vertex.expect("a vertex finding");
        let usable: Vec<(usize, f32)> = vf
            .joints
            .iter()
            .zip(&vf.weights)
            .filter(|&(&j, w)| w.is_finite() && (j as usize) < skin.len())
            .map(|(&j, &w)| (j as usize, w))
            .collect();
        let Some(top) = usable.iter().map(|u| u.1).reduce(f32::max) else { continue };
        let selected = a.selection.tree.selected.expect("a node is selected");
        assert!(
            usable.iter().any(|&(j, w)| w == top && skin[j] == selected),
            "{} v{}: selected node {selected}, usable {usable:?}",
            f.code,
            vf.vertex
        );
        checked_oob |= f.code == "ACCESSOR_JOINTS_INDEX_OOB" && usable.len() < vf.joints.len();
    }
    assert!(checked_oob, "an out-of-range joint was among the problems");
}

/// Counts read "1 child", "2 children", and the children are named: seed-arm's joints are
/// root -> b1 -> b2 -> {b31, b32} (samples/README.md); InterpolationTest's clips animate
/// one node each.
#[test]
fn counts_of_one_are_singular() {
    let mut a = app("seed-arm.gltf", paused());
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("root, 1 child: b1 ") && s.contains("Bones (5 joints)"), "{s}");
    assert!(s.contains("Keyframes: translate (1/2), 2 channels "), "{s}");
    press(&mut a, "j");
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("parent root (0), 1 child: b2 "), "{s}");
    press(&mut a, "j");
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("parent b1 (1), 2 children: b31, b32 "), "{s}");
    press(&mut a, "j");
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("parent b2 (2), 0 children "), "{s}");
    let Some(dir) = super::assets::assets_dir() else { return };
    let rig = rigscope::load(&dir.join("InterpolationTest/InterpolationTest.gltf")).expect("rig loads");
    let mut a = App::new(rig, &paused());
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("Keyframes: Step Scale (1/9), 1 channel "), "{s}");
}

/// A file without a skin has nodes, not bones: the details panel says so, and nothing speaks
/// of "this skin" (a two-node glTF written here: lamp -> shade).
#[test]
fn a_file_without_a_skin_shows_node_details() {
    let json = r#"{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],
        "nodes":[{"name":"lamp","children":[1]},{"name":"shade","translation":[0,1,0]}]}"#;
    let rig = rigscope::load_bytes(json.as_bytes(), "lamp.gltf", None).expect("rig loads");
    let mut a = App::new(rig, &paused());
    for keys in ["", "j"] {
        press(&mut a, keys);
        let s = screen(&mut a, 120, 40);
        assert!(s.contains(" Node details ") && !s.contains("Bone details"), "{s}");
        assert!(!s.contains("this skin") && s.contains("no skin in this file"), "{s}");
    }
    assert!(screen(&mut a, 120, 40).contains("parent lamp (0), 0 children"));
    // With a skin the same panel is about bones.
    let mut a = app("seed-arm.gltf", paused());
    assert!(screen(&mut a, 120, 40).contains(" Bone details "));
}

/// The weights panel's lines (the right-hand column at 160x48), each with its runs of
/// spaces collapsed to one.
fn weights_panel(s: &str) -> Vec<String> {
    s.lines()
        .map(|l| l.trim_matches('"').trim_end_matches('│'))
        .filter_map(|l| l.rsplit('│').next())
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// Selects vertex `v` of bad-weights.glb's first primitive and returns the weights panel.
fn bad_weights_vertex(a: &mut App, v: usize) -> Vec<String> {
    let prim = a.session.ws.primitives.iter().position(|p| (p.mesh, p.primitive) == (0, 0)).expect("drawn");
    a.selection.vertex = Some(rigscope::tui::weights::VertexRef { prim, vertex: v });
    // Focused, the panel shows the vertex before the bone's statistics, and scrolls
    // (`}`) to what does not fit: every page, read in turn.
    a.update(Action::Focus(rigscope::tui::action::Focus::Weights));
    a.panels.weights_scroll = 0;
    let mut rows = weights_panel(&screen(a, 160, 48));
    for _ in 0..10 {
        press(a, "}");
        rows.extend(weights_panel(&screen(a, 160, 48)));
    }
    rows
}

/// The vertex view's two sums against bad-weights.glb's stored weights, added by hand:
/// the sum as drawn takes every finite non-zero weight on a joint the 6-joint skin has;
/// the validator's sum (`rigscope check`'s) adds a NaN (making the sum NaN) but skips an
/// out-of-range joint. The panel wraps its lines, so they are read joined.
#[test]
fn the_vertex_view_names_the_sum_skinning_uses_and_the_validators() {
    let mut a = app("bad-weights.glb", paused());
    let set = &a.session.rig.meshes[0].primitives[0].influences[0];
    assert_eq!(a.session.rig.skins[0].joints.len(), 6);
    // The faults as samples/README.md lists them.
    assert_eq!(set.joints[11], [2, 3, 0, 0]);
    assert!(set.weights[11][0].is_nan() && set.weights[11][1..] == [0.5, 0.0, 0.0]);
    assert_eq!((set.joints[13], set.weights[13]), ([3, 7, 0, 0], [0.5, 0.5, 0.0, 0.0]));
    assert_eq!((set.joints[9], set.weights[9]), ([2, 3, 0, 0], [1.25, -0.25, 0.0, 0.0]));
    let has = |panel: &[String], want: &str| {
        let joined = panel.join(" ");
        assert!(joined.contains(want), "{want:?} in {panel:#?}");
    };

    // v11: skinning drops the NaN and keeps 0.5 on j3; the validator's sum is NaN + 0.5.
    let p = bad_weights_vertex(&mut a, 11);
    has(&p, "j2 NaN left out");
    has(&p, "j3 0.5000000");
    has(&p, "sum as drawn: 0.50000000 over 1 weight: 0.5 short of 1");
    has(&p, "the validator's sum: NaN over 2 weights");
    // v13: joint 7 is past the skin; both sums are j3's 0.5.
    let p = bad_weights_vertex(&mut a, 13);
    has(&p, "joint 7 (not in skin) 0.5000000 left out");
    has(&p, "sum as drawn: 0.50000000 over 1 weight: 0.5 short of 1");
    has(&p, "the validator's sum: 0.50000000 over 1 weight");
    // v9: 1.25 - 0.25 skins to exactly 1, but a negative weight is an error: never "ok".
    // The validator leaves the negative weight out (1.25) and also calls it non-normalised.
    let p = bad_weights_vertex(&mut a, 9);
    has(&p, "sum as drawn: 1.00000000 over 2 weights, which is 1");
    has(&p, "2 errors");
    has(&p, "the validator's sum: 1.25000000 over 1 weight");
    // A clean vertex (v0: 1.0 on j0) passes, with no validator's sum.
    let p = bad_weights_vertex(&mut a, 0);
    has(&p, "passes the validator's rules");
    has(&p, "sum as drawn: 1.00000000 over 1 weight, which is 1");
    assert!(!p.join(" ").contains("validator's sum"), "{p:#?}");
}

/// Problem rows say where: mesh, primitive and vertex. bad-weights.glb has a faulty
/// vertex 5 in both primitives (samples/README.md: sum 1.6 in primitive 0, u8 128 + 128
/// in primitive 1), and the two rows tell them apart, at 160 and at 80 columns.
#[test]
fn problem_rows_say_mesh_primitive_and_vertex() {
    let mut a = app("bad-weights.glb", paused());
    a.update(Action::Focus(rigscope::tui::action::Focus::Weights));
    // The list is worst first; the primitive 1 vertex (off by 1/255) is far down it.
    let k = a.session.vertex_problems.iter().position(|p| (p.primitive, p.vertex) == (1, 5)).expect("listed");
    a.selection.problem = k - 1;
    press(&mut a, "j");
    let p = weights_panel(&screen(&mut a, 160, 48));
    assert!(p.iter().any(|l| l.ends_with("sums to 1.600 strips prim 0 v5")), "{p:#?}");
    assert!(p.iter().any(|l| l.ends_with("sums to 1.004 strips prim 1 v5")), "{p:#?}");
    // At 80x24 the shared panel is 28 columns wide: the place shortens, never cut.
    let s = screen(&mut a, 80, 24);
    assert!(s.contains(" prim 1 v5"), "{s}");
}

/// `n` with the skeleton hidden brings the skeleton back with its names (names are drawn at
/// the joints, so turning them on alone showed nothing). The walker's joint "head" is
/// named inside the viewport only when both are on.
#[test]
fn names_bring_back_a_hidden_skeleton() {
    use ratatui::layout::Rect;
    use rigscope::tui::action::Focus;
    let mut a = app("walker.glb", paused());
    let vp = ui::layout(Rect::new(0, 0, 160, 48), Focus::Bones, ui::tree::wanted_width(&a)).viewport;
    let in_viewport = |s: &str, word: &str| {
        s.lines().skip(vp.y as usize + 1).take(vp.height as usize - 2).any(|l| {
            let row: String =
                l.trim_matches('"').chars().skip(vp.x as usize + 1).take(vp.width as usize - 2).collect();
            row.contains(word)
        })
    };
    assert!(!in_viewport(&screen(&mut a, 160, 48), "head"), "no names at start");
    press(&mut a, "b");
    assert!(!a.view.bones);
    press(&mut a, "n");
    assert!(a.view.bones && a.view.names);
    let s = screen(&mut a, 160, 48);
    assert!(in_viewport(&s, "head") && s.contains("skeleton shown with its names"), "{s}");
    // With the skeleton shown, `n` toggles the names alone.
    press(&mut a, "n");
    assert!(a.view.bones && !a.view.names);
    assert!(!in_viewport(&screen(&mut a, 160, 48), "head"));
}

/// At the smallest size (60x18) the status bar drops whole fields instead of cutting one:
/// " ⏸ walk (1/2) " (14), " 0.0000 / 1.0000 s " (19), " 1.00x " (7) and " loop " (6) make
/// 46 columns; " frame 0 @ 24 fps " (18) would make 64, so it goes, after " idle  0.0
/// ms/frame " and " focus: bones " (the lowest rank: the panel's border shows the focus). The
/// hints keep " Down j select  Enter fold  q Ctrl-C quit  ? help " (50), as " Shift-Tab
/// panel " (17) would pass 60.
#[test]
fn a_narrow_status_bar_drops_whole_fields() {
    let mut a = app("walker.glb", paused());
    let s = screen(&mut a, 60, 18);
    let lines: Vec<&str> = s.lines().map(|l| l.trim_matches('"').trim_end()).collect();
    let [.., status, hints] = lines[..] else { panic!("{s}") };
    assert_eq!(status, " ⏸ walk (1/2)  0.0000 / 1.0000 s  1.00x  loop");
    assert_eq!(hints, " Down j select  Enter fold  q Ctrl-C quit  ? help");
    // A message outranks the time, which the viewport's title also shows.
    press(&mut a, "bn");
    let s = screen(&mut a, 60, 18);
    let status = s.lines().rev().nth(1).expect("status line").trim_matches('"').trim_end().to_string();
    assert_eq!(status, " ⏸ walk (1/2)  skeleton shown with its names (b hides it)");
}

/// Every panel at every size around the layout's thresholds (the minimum, the narrow and
/// wide layouts, the tree's widening) with every focus and a weights vertex selected:
/// drawn without a panic, and nothing written outside the screen (TestBackend would panic).
#[test]
fn every_panel_draws_at_sizes_around_the_layout_thresholds() {
    let mut a = app("bad-weights.glb", paused());
    press(&mut a, "x");
    for focus in 0..4 {
        for w in [1, 20, 59, 60, 61, 79, 80, 100, 109, 110, 111, 140, 160, 250] {
            for h in [1, 10, 17, 18, 19, 24, 48] {
                let s = screen(&mut a, w, h);
                assert_eq!(s.lines().count(), usize::from(h), "{w}x{h} focus {focus}");
            }
        }
        a.update(Action::FocusNext);
    }
}

/// After a live reload of the walker with its second clip selected: the same screen as
/// before, with the reload's summary on the hints' line; a broken save's error line the same.
#[test]
fn a_reload_summary_takes_the_hints_line() {
    let mut a = app("walker.glb", Launch { time: 0.25, ..paused() });
    press(&mut a, "c");
    let before = screen(&mut a, 120, 40);
    a.reload(session("walker.glb", paused()));
    let s = screen(&mut a, 120, 40);
    let last =
        |s: &str| s.lines().rev().find(|l| !l.trim_matches(['"', ' ']).is_empty()).unwrap_or("").to_string();
    assert!(last(&s).contains("reloaded: same joints, rest pose, vertices and clips"), "{s}");
    // Everything above the status bar's second line is as it was.
    let above = |s: &str| s.lines().take(38).collect::<Vec<_>>().join("\n");
    assert_eq!(above(&s), above(&before));
    insta::assert_snapshot!(s);
    a.reload_failed("walker.glb: truncated .glb: the header says 427036 bytes but the file has 213518");
    let s = screen(&mut a, 120, 40);
    assert!(last(&s).contains("reload failed, showing the last good load: walker.glb: truncated"), "{s}");
}

/// walker with three `--anim` libraries: its own walk and idle, each library's, and `all`.
fn many_clips() -> App {
    let fixture = |name: &str| format!("{}/tests/fixtures/clips/{name}", env!("CARGO_MANIFEST_DIR"));
    let mut rig = rigscope::load(std::path::Path::new(&sample("walker.glb"))).expect("sample loads");
    let files = ["anims.glb", "travel.glb", "quantized.glb"].map(|f| fixture(f).into()).to_vec();
    let set = rigscope::attach::AnimSet { files, ..Default::default() };
    rigscope::attach::load_with_anims(&mut rig, &set).expect("the libraries bind");
    App::new(rig, &paused())
}

#[test]
fn clip_picker_filters_by_name_and_file_and_plays_the_chosen_clip() {
    let mut a = many_clips();
    press(&mut a, "K");
    let s = screen(&mut a, 120, 40);
    // Every clip has a row: walker's two, two per library, and `all`.
    assert!(s.contains("Clips (9 of 9)"), "{s}");
    // Upper case finds lower-case names: the idles, walker's first, then the libraries' in
    // the order they were given.
    press(&mut a, "IDLE");
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("Clips (4 of 9)"), "{s}");
    insta::assert_snapshot!(s);
    let down = KeyEvent::new(KeyCode::Down, KeyModifiers::NONE);
    a.update(keymap::action_for_app(&down, &a).expect("Down moves the cursor"));
    press(&mut a, "\n");
    assert!(a.overlays.picker.is_none());
    let clip = a.player.clip.expect("a clip plays");
    assert_eq!(a.session.rig.clip_label(clip), "idle (anims.glb)");
    // As `c` switches: from the clip's start, for the clip's whole length (idle is 4 s).
    assert_eq!(a.player.playback.time, 0.0);
    assert!((a.player.playback.duration - 4.0).abs() < 1e-3, "{}", a.player.playback.duration);
}

#[test]
fn clip_picker_matches_the_library_file_and_esc_keeps_the_clip() {
    let mut a = many_clips();
    let before = a.player.clip;
    press(&mut a, "Ktravel");
    let picker = a.overlays.picker.clone().expect("the picker is open");
    let names: Vec<String> = picker.entries(&a.session.rig).into_iter().map(|e| e.name).collect();
    assert_eq!(names, ["walk", "idle"]);
    press(&mut a, "\x1b");
    assert!(a.overlays.picker.is_none());
    assert_eq!(a.player.clip, before);
    // Letters go back to being keys: `c` is the next clip again.
    press(&mut a, "c");
    assert_eq!(a.player.clip, before.map(|c| c + 1));
}

#[test]
fn clip_picker_stays_open_across_a_reload_and_lists_the_new_file_s_clips() {
    let mut a = many_clips();
    press(&mut a, "Kidle");
    a.reload(session("walker.glb", paused()));
    let picker = a.overlays.picker.clone().expect("the picker is still open");
    assert_eq!(picker.filter, "idle");
    // walker alone: its own idle is the one match left, without a library file.
    let entries = picker.entries(&a.session.rig);
    assert_eq!(entries.len(), 1);
    assert_eq!((entries[0].name.as_str(), entries[0].file.as_deref()), ("idle", None));
    press(&mut a, "\n");
    assert_eq!(a.player.clip.map(|c| a.session.rig.clip_label(c)).as_deref(), Some("idle"));
}
