//! The status bar: clip, time / duration, speed, loop mode and frame rate, then the key
//! hints taken from the key table, or the per-stage timings when they are toggled on.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, fit};
use crate::anim::LoopMode;
use crate::tui::app::App;
use crate::tui::keymap::{BINDINGS, Context};
use crate::tui::link::LinkStats;

pub fn draw(frame: &mut Frame, app: &App, theme: &Theme, area: Rect) {
    let pb = &app.player.playback;
    let clip = match app.player.clip {
        Some(c) => app.clip_place(c),
        None if !app.session.rig.clips.is_empty() => {
            format!("rest pose ({}/{})", app.file_clips() + 1, app.file_clips() + 1)
        }
        None => "no clip".into(),
    };
    let state = if app.is_playing() { "▶" } else { "⏸" };
    let mode = match pb.mode {
        LoopMode::Loop => "loop",
        LoopMode::Once => "once",
        LoopMode::PingPong => "ping-pong",
    };
    let t = &app.status.timings;
    let perf = if let Some(link) = t.link.filter(|l| l.limiting && app.is_playing()) {
        // The terminal's answers, not drawing, hold the frame rate down: say so.
        format!("link: {}", link_figures(&link))
    } else if app.is_playing() {
        format!("{:.0} fps  {:.1} ms/frame", t.fps, t.frame_ms)
    } else {
        // Paused, the viewer only redraws on input: a frame rate would mean nothing.
        format!("idle  {:.1} ms/frame", t.frame_ms)
    };
    // Each field with its rank: on a narrow screen whole fields go, lowest rank first, rather
    // than the line being cut mid-word. The message answers the last key pressed; the time
    // is also in the viewport's title.
    let mut fields = vec![
        (Span::styled(format!(" {state} {clip} "), theme.title), 6),
        (Span::raw(format!(" {:.4} / {:.4} s ", pb.time, pb.duration)), 4),
        // The frame and its rate outrank the focus, which the panel's border also shows: at
        // 80 columns (an SSH default) stepping by frames must say where it landed.
        (Span::raw(frame_of(app)), 1),
        (Span::raw(format!(" {:.2}x ", pb.speed)), 3),
        (Span::raw(format!(" {mode} ")), 2),
        (Span::styled(format!(" {perf} "), theme.dim), 0),
        (Span::styled(format!(" focus: {} ", app.focus_name()), theme.focus), 0),
    ];
    if let Some(stepper) = &app.session.springs {
        // The springs are a simulation: say how far it has run, and that seeks restart it.
        let text = format!(
            " springs: {} steps of {:.4} s from 0, restart on seek/loop ",
            stepper.steps(),
            stepper.dt()
        );
        fields.push((Span::styled(text, theme.dim), 2));
    }
    if let Some(m) = &app.status.message {
        fields.push((Span::styled(format!(" {m}"), theme.warning), 5));
    }
    let width = usize::from(area.width);
    // A prompt being typed, or a message too long to share the first line (a command
    // line to copy), takes the hints' line whole.
    let clip_w = fields.first().map_or(0, |f| f.0.width());
    let long = app.status.message.as_ref().filter(|m| clip_w + super::cols(m) + 1 > width);
    if long.is_some() {
        fields.pop();
    }
    let first = Line::from(fit_fields(fields, width));
    if let Some(p) = &app.overlays.prompt {
        let line = Line::from(vec![
            Span::styled(format!(" {}", p.label()), theme.key),
            Span::raw(format!("{}_", p.text)),
            Span::styled("  Enter: go  Esc: cancel", theme.dim),
        ]);
        frame.render_widget(Paragraph::new(vec![first, line]), area);
        return;
    }
    // What a live reload changed, or why it failed, is news the user is waiting for: it takes
    // the second line until the next key (an error stays until a good load).
    if let Some(note) = &app.status.file_note {
        let style = if note.error { theme.warning } else { theme.title };
        let line = Line::from(Span::styled(fit(&format!(" {}", note.text), width), style));
        frame.render_widget(Paragraph::new(vec![first, line]), area);
        return;
    }
    if let Some(m) = long {
        let line = Line::styled(fit(&format!(" {m}"), width), theme.warning);
        frame.render_widget(Paragraph::new(vec![first, line]), area);
        return;
    }
    // Toggled on, the stage timings (those `rigscope bench` reports) take the hints' line,
    // where they fit in 80 columns.
    if app.panels.show_stats {
        let stages = [
            format!(" sample {:.3}", t.sample_ms),
            format!(" pose {:.3}", t.pose_ms),
            format!(" skin {:.2}", t.skin_ms),
            format!(" raster {:.2}", t.raster_ms),
            format!(" draw {:.2}", t.draw_ms),
            format!(" frame {:.2} ms", t.frame_ms),
            format!("  {} B", t.bytes),
            match (&t.link, t.unanswered) {
                (Some(link), _) => format!("  link {}", link_figures(link)),
                (None, true) => "  link: no answer, clock paced".into(),
                (None, false) => String::new(),
            },
        ];
        let stages = ranked_in_order(stages.into_iter().map(|s| Span::styled(s, theme.dim)).collect());
        let lines = vec![first, Line::from(fit_fields(stages, width))];
        frame.render_widget(Paragraph::new(lines), area);
        return;
    }
    // The focused panel's keys first, then those that work everywhere.
    let here = BINDINGS.iter().filter(|b| b.context == Context::In(app.panels.focus));
    let everywhere = BINDINGS.iter().filter(|b| b.context == Context::Global);
    let hints: Vec<Span> = here
        .chain(everywhere)
        .filter_map(|b| b.hint.map(|short| (b.label, short)))
        .flat_map(|(label, short)| {
            // One field per hint: a key never shows without what it does.
            [Span::styled(format!(" {label}"), theme.key), Span::styled(format!(" {short} "), theme.dim)]
        })
        .collect();
    let hints = fit_fields(pairs_ranked_in_order(hints), width);
    frame.render_widget(Paragraph::new(vec![first, Line::from(hints)]), area);
}

/// " frame 12 @ 24 fps ": the frame the time is on, when it is on one (stepping and the go-to
/// prompt's "12f" count these), and the rate of the frames (the clip's, or `--step`).
fn frame_of(app: &App) -> String {
    if app.player.clip.is_none() {
        return String::new();
    }
    let f = app.player.frames.frame_at(app.player.playback.time);
    if (app.player.frames.time_of(f) - app.player.playback.time).abs() < 1e-4 {
        let rate = app.player.frames.rate();
        let rate =
            if (rate - rate.round()).abs() < 1e-3 { format!("{rate:.0}") } else { format!("{rate:.2}") };
        format!(" frame {f} @ {rate} fps ")
    } else {
        String::new()
    }
}

/// "9 fps, 110 KB/s, RTT 60 ms": what the link carried over the last frames.
fn link_figures(link: &LinkStats) -> String {
    let rate = match link.bytes_per_s {
        // Past 10 MB/s a measured rate and "too fast to measure" alternate frame to frame;
        // neither limits the viewer, so both read the same.
        Some(b) if b >= 10e6 => "fast".into(),
        Some(b) => format!("{:.0} KB/s", b / 1e3),
        None => "fast".into(),
    };
    format!("{:.0} fps, {rate}, RTT {:.0} ms", link.fps, link.rtt * 1000.0)
}

/// Ranks that drop fields from the end: the first field ranks highest.
fn ranked_in_order(spans: Vec<Span<'_>>) -> Vec<(Span<'_>, usize)> {
    let n = spans.len();
    spans.into_iter().enumerate().map(|(i, s)| (s, n - i)).collect()
}

/// Like `ranked_in_order`, but a key and its description (two spans) share one rank, so they
/// go together.
fn pairs_ranked_in_order(spans: Vec<Span<'_>>) -> Vec<(Span<'_>, usize)> {
    let n = spans.len();
    spans.into_iter().enumerate().map(|(i, s)| (s, n - i / 2)).collect()
}

/// The spans of `fields` (in display order, each with a rank) that fit in `width` columns:
/// while they do not, the spans of the lowest rank go, but never the last rank left. A
/// field left alone and still too wide is cut with "…".
fn fit_fields<'a>(mut fields: Vec<(Span<'a>, usize)>, width: usize) -> Vec<Span<'a>> {
    let total = |f: &[(Span, usize)]| f.iter().map(|(s, _)| s.width()).sum::<usize>();
    while total(&fields) > width {
        let lowest = fields.iter().map(|f| f.1).min().unwrap_or(0);
        if fields.iter().all(|f| f.1 == lowest) {
            break;
        }
        fields.retain(|f| f.1 != lowest);
    }
    let mut spans: Vec<Span> = fields.into_iter().map(|(s, _)| s).collect();
    if let [only] = spans.as_mut_slice()
        && only.width() > width
    {
        only.content = fit(&only.content, width).into();
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::{fit_fields, pairs_ranked_in_order};
    use ratatui::text::Span;

    fn text(spans: &[Span]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn whole_fields_go_lowest_rank_first() {
        let fields = || vec![(Span::raw(" walk "), 3), (Span::raw(" 0.500 s "), 1), (Span::raw(" loop "), 2)];
        assert_eq!(text(&fit_fields(fields(), 21)), " walk  0.500 s  loop ");
        // 20 columns: the time (rank 1) goes although it is not last; 12 are left.
        assert_eq!(text(&fit_fields(fields(), 20)), " walk  loop ");
        assert_eq!(text(&fit_fields(fields(), 11)), " walk ");
        // The last field left is cut with "…" rather than dropped.
        assert_eq!(text(&fit_fields(fields(), 4)), " wa…");
        // A key and its description go together.
        let hints = vec![Span::raw(" q"), Span::raw(" quit "), Span::raw(" ?"), Span::raw(" help ")];
        assert_eq!(text(&fit_fields(pairs_ranked_in_order(hints), 12)), " q quit ");
    }
}
