//! The weights panel: on samples/bad-weights.glb at 120
//! columns the weights panel names every rule a vertex breaks, whole and with a sentence,
//! never calls a warning a failure, says mesh, primitive and vertex on every row; the
//! heatmap has a legend; `y` copies what the panel shows; the viewport marks every problem
//! vertex by severity. The faults are those samples/README.md lists.

use ratatui::layout::Rect;
use rigscope::render::ColorDepth;
use rigscope::rig::Severity;
use rigscope::tui::action::{Action, Focus};
use rigscope::tui::ui;
use rigscope::tui::{App, Launch};

use super::cli::sample;
use super::tui::{press, screen};

fn open(path: &str) -> App {
    let rig = rigscope::load(std::path::Path::new(path)).expect("rig loads");
    App::new(rig, &Launch { paused: true, color: ColorDepth::None, ..Launch::default() })
}

/// The weights panel's text at 120x40 (the right-hand column, borders off), one string
/// per row, trailing spaces trimmed.
fn panel_rows(s: &str) -> Vec<String> {
    let area = ui::layout(Rect::new(0, 0, 120, 40), Focus::Weights, 30).weights;
    s.lines()
        .skip(usize::from(area.y) + 1)
        .take(usize::from(area.height.saturating_sub(2)))
        .map(|l| {
            let row: String = l
                .trim_matches('"')
                .chars()
                .skip(usize::from(area.x) + 1)
                .take(usize::from(area.width) - 2)
                .collect();
            row.trim_end().to_string()
        })
        .collect()
}

/// Rows joined by spaces with runs of spaces collapsed: the wrapped sentences read whole.
fn joined(rows: &[String]) -> String {
    rows.join(" ").split_whitespace().collect::<Vec<_>>().join(" ")
}

fn focus_weights(a: &mut App) {
    while a.panels.focus != Focus::Weights {
        a.update(Action::FocusNext);
    }
}

/// Every problem vertex in turn (Enter on the first, then Down): its rules named whole,
/// each under its own severity word with a sentence after it, its row saying where, and
/// no "fail" anywhere on the screen.
#[test]
fn every_problem_vertex_names_its_rules_whole_at_120_columns() {
    let mut a = open(&sample("bad-weights.glb"));
    focus_weights(&mut a);
    press(&mut a, "\n");
    // samples/README.md: ten faulty vertices in primitive 0, one in primitive 1.
    assert_eq!(a.session.vertex_problems.len(), 11);
    for k in 0..a.session.vertex_problems.len() {
        assert_eq!(a.selection.problem, k);
        let p = a.session.vertex_problems[k].clone();
        let s = screen(&mut a, 120, 40);
        let rows = panel_rows(&s);
        assert!(!s.to_lowercase().contains("fail"), "{s}");
        let place = format!("strips prim {} v{}", p.primitive, p.vertex);
        assert!(
            rows.iter().any(|r| r.starts_with('▸') && r.ends_with(&place)),
            "{place} selected in {rows:#?}"
        );
        assert!(
            rows.iter()
                .any(|r| r == &format!("mesh 0 \"strips\", primitive {}, vertex {}", p.primitive, p.vertex)),
            "{rows:#?}"
        );
        for &i in &p.findings {
            let f = &a.session.diag.findings[i];
            let word = if f.severity == Severity::Error { "error" } else { "warning" };
            let at = rows.iter().position(|r| r.trim() == format!("{word}: {}", f.code));
            let at = at.unwrap_or_else(|| panic!("{word}: {} whole on one row in {rows:#?}", f.code));
            // The sentence follows, indented under it.
            assert!(rows[at + 1].starts_with("    ") && rows[at + 1].trim().len() > 10, "{rows:#?}");
        }
        press(&mut a, "j");
    }
    // Vertex 17 (joint 2 listed at weight 0) is only a warning: said so, in those words.
    let k = a
        .session
        .vertex_problems
        .iter()
        .position(|p| (p.primitive, p.vertex) == (0, 17))
        .expect("v17 listed");
    a.selection.problem = k;
    press(&mut a, "\n");
    let s = screen(&mut a, 120, 40);
    let text = joined(&panel_rows(&s));
    assert!(text.contains("1 warning, no errors warning: ACCESSOR_JOINTS_USED_ZERO_WEIGHT"), "{s}");
    assert!(text.contains("j2 is listed with weight 0: it does not move the vertex"), "{s}");
    assert!(!text.contains("error: ACCESSOR_JOINTS_USED_ZERO_WEIGHT"), "{s}");
}

/// Vertex 7 (all weights 0) says it collapses to the origin; vertex 3 (0.25 + 0.25) that
/// engines keeping the weights pull it half way there. The screen is the snapshot.
#[test]
fn the_all_zero_vertex_collapses_to_the_origin_in_words() {
    let mut a = open(&sample("bad-weights.glb"));
    focus_weights(&mut a);
    let k =
        a.session.vertex_problems.iter().position(|p| (p.primitive, p.vertex) == (0, 7)).expect("v7 listed");
    a.selection.problem = k;
    press(&mut a, "\n");
    let s = screen(&mut a, 120, 40);
    let text = joined(&panel_rows(&s));
    assert!(text.contains("error: ACCESSOR_WEIGHTS_NON_NORMALIZED all weights are 0: the vertex collapses to the scene's origin"), "{s}");
    insta::assert_snapshot!(s);
    let k =
        a.session.vertex_problems.iter().position(|p| (p.primitive, p.vertex) == (0, 3)).expect("v3 listed");
    a.selection.problem = k;
    press(&mut a, "\n");
    let text = joined(&panel_rows(&screen(&mut a, 120, 40)));
    assert!(
        text.contains(
            "the weights sum to 0.500: engines that keep them pull it 50% of the way to the scene's origin"
        ),
        "{text}"
    );
}

/// After `rigscope normalize` only RIG_MORE_THAN_4_INFLUENCES is left (a warning): the
/// header says 0 errors and the panel agrees, with no error and no failure anywhere.
#[test]
fn after_normalize_the_warning_left_is_a_warning() {
    let (_guard, dir) = super::temp::folder("weights-words");
    let out = dir.join("normalized.glb");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_rigscope"))
        .args(["normalize", &sample("bad-weights.glb"), "-o", out.to_str().expect("utf-8 path")])
        .output()
        .expect("normalize runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let mut a = open(out.to_str().expect("utf-8 path"));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!((a.session.diag.error_count(), a.session.diag.warning_count()), (0, 1));
    focus_weights(&mut a);
    press(&mut a, "\n");
    let s = screen(&mut a, 120, 40);
    let rows = panel_rows(&s);
    assert_eq!(rows[0], "0 errors, 1 warning, 0 infos", "{rows:#?}");
    let text = joined(&rows);
    assert!(
        text.contains("1 warning, no errors warning: RIG_MORE_THAN_4_INFLUENCES 5 joints weigh this vertex"),
        "{s}"
    );
    assert!(!text.contains("error:") && !s.to_lowercase().contains("fail"), "{s}");
    insta::assert_snapshot!(s);
}

/// `y` in the weights panel copies the panel's vertex part: with every digit on (P), each
/// of its rows is in the copied text, which also holds both sums and the rules' names.
/// Vertex 9 stores 1.25 on j2 and -0.25 on j3.
#[test]
fn y_copies_what_the_panel_shows() {
    let mut a = open(&sample("bad-weights.glb"));
    focus_weights(&mut a);
    let k =
        a.session.vertex_problems.iter().position(|p| (p.primitive, p.vertex) == (0, 9)).expect("v9 listed");
    a.selection.problem = k;
    press(&mut a, "\nF");
    let rows = panel_rows(&screen(&mut a, 120, 40));
    press(&mut a, "y");
    let copied = a.status.clipboard.clone().expect("copied text");
    let flat = copied.split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        "error: ACCESSOR_WEIGHTS_NEGATIVE j3 has a negative weight, -0.250",
        "error: ACCESSOR_WEIGHTS_NON_NORMALIZED the validator's sum is 1.250",
        "j2 1.25",
        "j3 -0.25",
        // 1.25 + (-0.25) as drawn; the validator leaves the negative weight out.
        "sum as drawn: 1.0 over 2 weights, which is 1",
        "the validator's sum: 1.25 over 1 weight",
    ] {
        assert!(flat.contains(want), "{want:?} in {copied}");
    }
    // Every row of the panel from the vertex's heading to the bone's statistics.
    let from = rows.iter().position(|r| r.starts_with("mesh 0 \"strips\"")).expect("heading");
    let to = rows.iter().position(|r| r.starts_with("j2: ")).unwrap_or(rows.len());
    assert!(to > from + 6, "{rows:#?}");
    let mut text = String::new();
    for r in &rows[from..to] {
        let r = r.split_whitespace().collect::<Vec<_>>().join(" ");
        // A wrapped sentence's rows are each part of one copied line.
        assert!(flat.contains(&r), "{r:?} not in {copied}");
        text.push_str(&r);
    }
    assert!(!copied.contains("0.0, 0.0"), "no padded slots: {copied}");
}

/// `H` shows the selected bone's weights as colours and says what they mean; the problem
/// marks have their key beside it.
#[test]
fn the_heatmap_and_the_marks_have_a_legend() {
    let mut a = open(&sample("bad-weights.glb"));
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("● error ▲ warning ◉ selected"), "{s}");
    assert!(!s.contains("weight on j0"), "{s}");
    press(&mut a, "H");
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("weight on j0: 0 ██████████ 1, none: grey"), "{s}");
    // `m` hides the marks and their key.
    press(&mut a, "m");
    let s = screen(&mut a, 120, 40);
    assert!(!s.contains("● error") && s.contains("weight on j0"), "{s}");
}

/// The marks: every problem vertex's cell (its position through the viewer's camera)
/// holds an error or warning mark (or the selected vertex's), an error's wherever an
/// error vertex projects; with `m` off none is drawn.
#[test]
fn every_problem_vertex_is_marked_by_severity() {
    let mut a = open(&sample("bad-weights.glb"));
    let s = screen(&mut a, 120, 40);
    let vp = ui::layout(Rect::new(0, 0, 120, 40), a.panels.focus, ui::tree::wanted_width(&a)).viewport;
    let inner = Rect::new(vp.x + 1, vp.y + 1, vp.width - 2, vp.height - 2);
    let grid: Vec<Vec<char>> = s.lines().map(|l| l.trim_matches('"').chars().collect()).collect();
    let aspect = f32::from(inner.width) / (f32::from(inner.height) * 2.0);
    let mut marked = 0;
    for p in &a.session.vertex_problems {
        let prim = p.prim.expect("drawn");
        let pos = a.session.ws.primitives[prim].positions[p.vertex];
        let Some(ndc) = a.view.camera.project_ndc(pos, aspect) else { continue };
        if ndc.x.abs() > 1.0 || ndc.y.abs() > 1.0 {
            continue;
        }
        let x = usize::from(inner.x) + ((ndc.x * 0.5 + 0.5) * f32::from(inner.width)) as usize;
        let y = usize::from(inner.y) + ((0.5 - ndc.y * 0.5) * f32::from(inner.height)) as usize;
        let c = grid[y][x];
        let want: &[char] =
            if p.severity == Severity::Error { &['●', '◉'] } else { &['●', '▲', '◉'] };
        assert!(want.contains(&c), "v{} of prim {} at ({x}, {y}) shows {c:?}\n{s}", p.vertex, p.primitive);
        marked += 1;
    }
    // Every one of the 11 is in view at the opening camera.
    assert_eq!(marked, 11);
    press(&mut a, "m");
    let s = screen(&mut a, 120, 40);
    let viewport: String = s
        .lines()
        .skip(usize::from(inner.y))
        .take(usize::from(inner.height))
        .map(|l| {
            l.trim_matches('"')
                .chars()
                .skip(usize::from(inner.x))
                .take(usize::from(inner.width))
                .collect::<String>()
        })
        .collect();
    assert!(!viewport.contains('●') && !viewport.contains('▲'), "{s}");
}

/// The viewport's title row at 120x40.
fn viewport_title(s: &str, a: &App) -> String {
    let vp = ui::layout(Rect::new(0, 0, 120, 40), a.panels.focus, ui::tree::wanted_width(a)).viewport;
    let line = s.lines().nth(usize::from(vp.y)).expect("title row").trim_matches('"');
    line.chars().skip(usize::from(vp.x)).take(usize::from(vp.width)).collect()
}

/// The viewport's inside at 120x40, as text.
fn viewport_cells(s: &str, a: &App) -> String {
    let vp = ui::layout(Rect::new(0, 0, 120, 40), a.panels.focus, ui::tree::wanted_width(a)).viewport;
    s.lines()
        .skip(usize::from(vp.y) + 1)
        .take(usize::from(vp.height) - 2)
        .map(|l| {
            l.trim_matches('"')
                .chars()
                .skip(usize::from(vp.x) + 1)
                .take(usize::from(vp.width) - 2)
                .collect::<String>()
                + "\n"
        })
        .collect()
}

/// `--engine NAME` on the viewer: the first frame is drawn as that profile draws it, as if
/// `p` had been pressed to reach it, and the status line says which.
#[test]
fn the_viewer_starts_with_the_engine_asked_for() {
    use rigscope::anim::Engine;
    let rig = rigscope::load(std::path::Path::new(&sample("bad-weights.glb"))).expect("rig loads");
    let launch = Launch { paused: true, color: ColorDepth::None, engine: Engine::Three, ..Launch::default() };
    let mut a = App::new(rig, &launch);
    assert_eq!(a.view.engine, Engine::Three);
    let s = screen(&mut a, 120, 40);
    assert!(viewport_title(&s, &a).starts_with("┌ Viewport: three"), "{s}");
    let mut b = open(&sample("bad-weights.glb"));
    press(&mut b, "p");
    let pressed = screen(&mut b, 120, 40);
    assert_eq!(viewport_cells(&s, &a), viewport_cells(&pressed, &b));

    // clap takes the option (it used to answer with a `-- --engine` tip); the viewer then
    // refuses a stdout that is not a terminal, as without it.
    let run = super::cli::rigscope(&[&sample("walker.glb"), "--engine", "three"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("stdout is not a terminal"), "{}", run.stderr);
}

/// `p` walks every engine profile by name, in `Engine::ALL`'s order, and comes back to
/// the stored weights; the title says which. three.js gives vertex 7 (all weights 0) a
/// weight of 1 on its first slot's joint, j0: the drawing changes, and the vertex lands
/// 0.756637 from the origin where the stored weights leave it, the distance `rigscope
/// normalize` reports for the same vertex at rest (it gives the vertex to the root joint).
#[test]
fn p_cycles_the_engine_profiles_and_draws_each_over_the_stored_result() {
    use rigscope::anim::Engine;
    let mut a = open(&sample("bad-weights.glb"));
    let stored = screen(&mut a, 120, 40);
    assert!(!viewport_title(&stored, &a).contains("ghost"), "{stored}");
    for &engine in &Engine::ALL[1..] {
        press(&mut a, "p");
        assert_eq!(a.view.engine, engine);
        let s = screen(&mut a, 120, 40);
        let title = viewport_title(&s, &a);
        assert!(title.starts_with(&format!("┌ Viewport: {} ", engine.label())), "{title}");
        assert!(s.contains(&format!("[{}]", engine.label())), "{s}");
    }
    press(&mut a, "p");
    assert_eq!(a.view.engine, Engine::Stored);
    // `P` goes the other way round: from stored to the last profile, then back.
    press(&mut a, "P");
    assert_eq!(a.view.engine, Engine::ALL[Engine::ALL.len() - 1]);
    assert!(
        a.status.message.as_deref().is_some_and(|m| m.contains("p/P: next/previous")),
        "{:?}",
        a.status.message
    );
    for &engine in Engine::ALL[..Engine::ALL.len() - 1].iter().rev() {
        press(&mut a, "P");
        assert_eq!(a.view.engine, engine);
    }
    // The same screen as before, but for the status line saying which engine.
    let above = |s: &str| s.lines().take(38).collect::<Vec<_>>().join("\n");
    assert_eq!(above(&screen(&mut a, 120, 40)), above(&stored));

    press(&mut a, "p");
    assert_eq!(a.view.engine, Engine::Three);
    let three = screen(&mut a, 120, 40);
    assert_ne!(viewport_cells(&three, &a), viewport_cells(&stored, &a));
    let prim = a
        .session
        .vertex_problems
        .iter()
        .find(|p| (p.primitive, p.vertex) == (0, 7))
        .and_then(|p| p.prim)
        .expect("v7");
    let engine_ws = a.session.engine_ws.as_ref().expect("three.js is drawn by its own workspace");
    let moved = engine_ws.primitives[prim].positions[7].distance(a.session.ws.primitives[prim].positions[7]);
    assert!((moved - 0.756637).abs() < 1e-5, "{moved}");
    // The panel says it for that vertex, and `y` copies it.
    focus_weights(&mut a);
    let k =
        a.session.vertex_problems.iter().position(|p| (p.primitive, p.vertex) == (0, 7)).expect("v7 listed");
    a.selection.problem = k;
    press(&mut a, "\n");
    let text = joined(&panel_rows(&screen(&mut a, 120, 40)));
    assert!(text.contains("three, unreal, unreal-16bit: 0.757 off now"), "{text}");
    // Blender refuses the file (joint 7 of a 6-joint skin at v13), and the panel says so.
    assert!(text.contains("blender: would not import this file"), "{text}");
    assert!(text.contains("weights as three.js r187 draws them"), "{text}");
    press(&mut a, "y");
    assert!(
        a.status.clipboard.as_deref().is_some_and(|c| c.contains("0.757 off now")),
        "{:?}",
        a.status.clipboard
    );
}

/// `e` from any panel: the first press shows the worst problem vertex (not the second),
/// with the weights panel focused to say what is wrong; later presses walk on, wrapping
/// round; `E` walks back.
#[test]
fn e_walks_problem_vertices_worst_first_from_anywhere() {
    let mut a = open(&sample("bad-weights.glb"));
    assert_eq!(a.panels.focus, Focus::Bones);
    press(&mut a, "e");
    assert_eq!((a.panels.focus, a.selection.problem), (Focus::Weights, 0));
    let first = &a.session.vertex_problems[0];
    assert_eq!(a.selection.vertex.map(|v| (Some(v.prim), v.vertex)), Some((first.prim, first.vertex)));
    // Worst first: no later vertex is measured worse.
    for pair in a.session.vertex_problems.windows(2) {
        assert!(pair[0].consequence >= pair[1].consequence, "{pair:?}");
    }
    press(&mut a, "e");
    assert_eq!(a.selection.problem, 1);
    press(&mut a, "EE");
    assert_eq!(a.selection.problem, a.session.vertex_problems.len() - 1);
}
