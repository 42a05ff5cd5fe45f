//! The viewer's answers to the second new-user trial over SSH (issue 41): frame stepping,
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
    assert!((a.playback.time - 2.0 / 24.0).abs() < 1e-6, "{}", a.playback.time);
    let s = screen(&mut a, 120, 40);
    assert!(status_line(&s).contains(" frame 2 @ 24 fps "), "{s}");
    insta::assert_snapshot!(s);

    let mut a = App::new(rig, &Launch { step: Some(1.0 / 30.0), ..paused() });
    press(&mut a, "...");
    assert!((a.playback.time - 0.1).abs() < 1e-6, "{}", a.playback.time);
    let s = screen(&mut a, 120, 40);
    assert!(status_line(&s).contains(" frame 3 @ 30 fps "), "{s}");
    // Another clip keeps the step the user gave.
    press(&mut a, "c");
    assert_eq!(a.frames.step, 1.0 / 30.0);
}

/// A click anywhere on the timeline lands on a frame: every column's time is a whole number
/// of 1/24 s frames, within the clip.
#[test]
fn a_timeline_click_lands_on_a_frame() {
    let a = App::new(walker(), &paused());
    let areas = ui::layout(Rect::new(0, 0, 80, 24), a.focus, ui::tree::wanted_width(&a));
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
