//! The status bar: clip, time / duration, speed, loop mode and frame rate, then the key
//! hints taken from the key table, or the per-stage timings when they are toggled on.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::Theme;
use crate::anim::LoopMode;
use crate::tui::app::App;
use crate::tui::keymap::{BINDINGS, Context};

pub fn draw(frame: &mut Frame, app: &App, theme: &Theme, area: Rect) {
    let pb = &app.playback;
    let clip = match app.clip {
        Some(c) => format!("{} ({}/{})", app.rig.clip_label(c), c + 1, app.rig.clips.len()),
        None => "no clip".into(),
    };
    let state = if app.is_playing() { "▶" } else { "⏸" };
    let mode = match pb.mode {
        LoopMode::Loop => "loop",
        LoopMode::Once => "once",
        LoopMode::PingPong => "ping-pong",
    };
    let t = &app.timings;
    let perf = if app.is_playing() {
        format!("{:.0} fps  {:.1} ms/frame", t.fps, t.frame_ms)
    } else {
        // Paused, the viewer only redraws on input: a frame rate would mean nothing.
        format!("idle  {:.1} ms/frame", t.frame_ms)
    };
    let mut spans = vec![
        Span::styled(format!(" {state} {clip} "), theme.title),
        Span::raw(format!(" {:.3} / {:.3} s ", pb.time, pb.duration)),
        Span::raw(format!(" {:.2}x ", pb.speed)),
        Span::raw(format!(" {mode} ")),
        Span::styled(format!(" {perf} "), theme.dim),
        Span::styled(format!(" focus: {} ", app.focus.title()), theme.focus),
    ];
    if let Some(m) = &app.message {
        spans.push(Span::styled(format!(" {m}"), theme.warning));
    }
    // Toggled on, the stage timings (those `rigscope bench` reports) take the hints' line,
    // where they fit in 80 columns.
    if app.show_stats {
        let stages = format!(
            " sample {:.3} pose {:.3} skin {:.2} raster {:.2} draw {:.2} frame {:.2} ms  {} B",
            t.sample_ms, t.pose_ms, t.skin_ms, t.raster_ms, t.draw_ms, t.frame_ms, t.bytes
        );
        let lines = vec![Line::from(spans), Line::from(Span::styled(stages, theme.dim))];
        frame.render_widget(Paragraph::new(lines), area);
        return;
    }
    // The focused panel's keys first, then those that work everywhere.
    let here = BINDINGS.iter().filter(|b| b.context == Context::In(app.focus));
    let everywhere = BINDINGS.iter().filter(|b| b.context == Context::Global);
    let hints: Vec<Span> = here
        .chain(everywhere)
        .filter_map(|b| b.hint.map(|short| (b.label, short)))
        .flat_map(|(label, short)| {
            [Span::styled(format!(" {label}"), theme.key), Span::styled(format!(" {short} "), theme.dim)]
        })
        .collect();
    frame.render_widget(Paragraph::new(vec![Line::from(spans), Line::from(hints)]), area);
}
