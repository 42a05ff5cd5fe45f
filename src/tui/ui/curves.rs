//! The keyframes panel's curve view: one channel of the selected bone over the whole clip
//! as braille plots, one strip per component scaled to its own range (a rotation also as
//! Euler angles, `A`), sampled with the project's own sampler (so
//! it shows what playback shows, interpolation and all), the keys marked on the ruler and
//! the playhead across the plot. For a rotation, a strip below gives each key's angle to
//! the key before it, and marks a hemisphere flip (the quaternion's sign changing, which
//! a blend between the two keys takes the long way round unless it corrects for it).

use glam::{EulerRot, Quat};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph, Widget};

use super::Theme;
use super::keyframes::{column_of, property_name, value_line};
use crate::anim::{key_count, sample_channel};
use crate::rig::{Channel, Property};
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::keymap::BINDINGS;

const COMPONENTS: [&str; 4] = ["x", "y", "z", "w"];
const COLORS: [Color; 4] = [Color::Red, Color::Green, Color::Blue, Color::Yellow];
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// Angle between key `k - 1` and key `k` of a rotation channel in degrees (the shorter
/// way), and whether the stored quaternions lie in opposite hemispheres (a dot product below
/// 0 by more than round-off, as `check` counts them).
pub fn key_steps(ch: &Channel) -> Vec<(f32, bool)> {
    let n = key_count(ch);
    let mut keys = Vec::with_capacity(n);
    for k in 0..n {
        let mut q = [0.0f32; 4];
        sample_channel(ch, ch.times[k], &mut q);
        keys.push(Quat::from_array(q));
    }
    // The stored values, not the sampled ones: the sampler may already have normalised,
    // but the sign is what the file says.
    let stored = |k: usize| -> Option<Quat> {
        let per_key = if ch.interpolation == crate::rig::Interpolation::CubicSpline { 3 } else { 1 };
        let at = (k * per_key + usize::from(per_key == 3)) * 4;
        ch.values.get(at..at + 4).map(|v| Quat::from_xyzw(v[0], v[1], v[2], v[3]))
    };
    (1..n)
        .map(|k| {
            let angle = keys[k - 1].angle_between(keys[k]).to_degrees();
            let flip = match (stored(k - 1), stored(k)) {
                (Some(a), Some(b)) => crate::diagnose::opposite_hemispheres(a.to_array(), b.to_array()),
                _ => false,
            };
            (angle, flip)
        })
        .collect()
}

/// The Euler order the curves use: intrinsic X, then Y, then Z (R = Rx * Ry * Rz, glam's
/// `EulerRot::XYZ`; the same as extrinsic Z, Y, X).
pub const EULER: EulerRot = EulerRot::XYZ;
pub const EULER_LABEL: &str = "Euler XYZ intrinsic (R = Rx·Ry·Rz)";

/// Per component: the samples (time, value) over the clip, at evenly spaced times and at
/// every key (so the line and its range reach the keys' own values: a linear channel's
/// extremes are at its keys). A rotation in Euler mode is three angles in degrees,
/// unwrapped so that a turn past 180 degrees stays one continuous line rather than jumping
/// to -180.
fn sample_series(ch: &Channel, duration: f32, samples: usize, euler: bool) -> Vec<Vec<(f64, f64)>> {
    let comps = if euler { 3 } else { ch.components.clamp(1, 4) };
    let mut times: Vec<f32> =
        (0..samples).map(|i| duration * i as f32 / (samples.max(2) - 1) as f32).collect();
    times.extend(ch.times.iter().take(key_count(ch)).filter(|t| (0.0..=duration).contains(*t)));
    times.sort_by(f32::total_cmp);
    times.dedup();
    let mut series: Vec<Vec<(f64, f64)>> = vec![Vec::with_capacity(times.len()); comps];
    let mut out = vec![0.0f32; ch.components.max(1)];
    for t in times {
        sample_channel(ch, t, &mut out);
        let values: [f32; 4] = if euler {
            let (x, y, z) = Quat::from_slice(&out[..4]).normalize().to_euler(EULER);
            [x.to_degrees(), y.to_degrees(), z.to_degrees(), 0.0]
        } else {
            std::array::from_fn(|c| out.get(c).copied().unwrap_or(0.0))
        };
        for (c, s) in series.iter_mut().enumerate() {
            let mut v = f64::from(values[c]);
            if euler && let Some(&(_, prev)) = s.last() {
                v += 360.0 * ((prev - v) / 360.0).round();
            }
            if v.is_finite() {
                s.push((f64::from(t), v));
            }
        }
    }
    series
}

/// The range a component's line is drawn in: its own, widened when flat so that a
/// constant sits mid-strip.
fn range(points: &[(f64, f64)]) -> (f64, f64) {
    let lo = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let hi = points.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    if !(lo.is_finite() && hi.is_finite()) {
        return (-1.0, 1.0);
    }
    if hi - lo < 1e-6 { (lo - 0.5, hi + 0.5) } else { (lo, hi) }
}

/// Draws channel `which` (wrapping) of the selected bone's channels in `inner` (the
/// keyframes panel inside its border, `label_w` columns of labels on the left). Each
/// component gets a strip of its own, scaled to its own range and labelled with it: a
/// translation's y between 0.92 and 0.95 is a curve, not a flat line beside an x of 0.
pub fn draw(frame: &mut Frame, app: &App, theme: &Theme, inner: Rect, label_w: u16, which: usize) {
    let Some(clip) = app.player.clip.and_then(|c| app.session.rig.clips.get(c)) else { return };
    let mine: Vec<&Channel> = clip.channels.iter().filter(|c| Some(c.node) == app.selected()).collect();
    let buf = frame.buffer_mut();
    let text = |buf: &mut ratatui::buffer::Buffer, x: u16, y: u16, s: &str, style: Style| {
        let max = usize::from((inner.x + inner.width).saturating_sub(x));
        buf.set_stringn(x, y, s, max, style);
    };
    if mine.is_empty() {
        text(
            buf,
            inner.x,
            inner.y,
            "the selected bone has no channel in this clip: nothing to plot",
            theme.dim,
        );
        return;
    }
    let ch = mine[which % mine.len()];
    let duration = app.player.playback.duration.max(f32::MIN_POSITIVE);
    let tl = Rect { x: inner.x + label_w, width: inner.width.saturating_sub(label_w), ..inner };
    let rotation = ch.property == Property::Rotation && ch.components == 4;
    let euler = rotation && app.panels.euler;
    if tl.width < 4 {
        return;
    }
    // Samples at every braille column (two per cell).
    let series = sample_series(ch, duration, usize::from(tl.width) * 2, euler);
    let comps = series.len() as u16;
    // Rows: ruler, one strip per component, the angle strip (rotations, when there is room
    // for it and a row per component), the exact values at the playhead.
    let mut plot_h = inner.height.saturating_sub(2);
    let strip = rotation && plot_h > comps;
    if strip {
        plot_h -= 1;
    }
    if plot_h == 0 {
        return;
    }
    let plot = Rect { y: inner.y + 1, height: plot_h, ..tl };

    // The ruler row's label: what is plotted.
    let name = format!(
        "{} {} {}/{}",
        property_name(ch.property),
        app.session.rig.node_label(ch.node),
        which % mine.len() + 1,
        mine.len()
    );
    text(buf, inner.x, inner.y, &super::fit(&name, usize::from(label_w.saturating_sub(1))), theme.title);

    // Strips: as many components as there are rows for, the first rows to the first strips.
    // With fewer rows than components the moving ones come first: a flat component is one
    // number, which the value line below gives anyway.
    let shown = comps.min(plot_h);
    let mut y = plot.y;
    let label_cols = usize::from(label_w.saturating_sub(1));
    let flat = |points: &[(f64, f64)]| {
        let (lo, hi) =
            points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| (l.min(p.1), h.max(p.1)));
        hi - lo < 1e-6
    };
    let mut order: Vec<usize> = (0..series.len()).collect();
    if shown < comps {
        order.sort_by_key(|&c| flat(&series[c]));
    }
    let mut drawn: Vec<usize> = order.into_iter().take(usize::from(shown)).collect();
    drawn.sort_unstable();
    for (i, c) in drawn.into_iter().enumerate() {
        let points = &series[c];
        let h = plot_h / shown + u16::from((i as u16) < plot_h % shown);
        let area = Rect { y, height: h, ..plot };
        let (lo, hi) = range(points);
        let color = if theme.color { Style::new().fg(COLORS[c]) } else { theme.label };
        let comp = if euler { format!("{}°", ["X", "Y", "Z"][c]) } else { COMPONENTS[c].to_string() };
        let v = |x: f64| label_num(x as f32, if euler { 1 } else { 4 }, app.panels.full_precision);
        let (real_lo, real_hi) = (
            points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min),
            points.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max),
        );
        if real_hi - real_lo < 1e-6 {
            let label = format!("{comp} = {} (flat)", v(real_lo));
            text(buf, inner.x, y, &super::fit(&label, label_cols), color);
        } else if h == 1 {
            let label = format!("{comp} {}..{}", v(real_lo), v(real_hi));
            text(buf, inner.x, y, &super::fit(&label, label_cols), color);
        } else {
            text(buf, inner.x, y, &super::fit(&format!("{comp} max {}", v(real_hi)), label_cols), color);
            text(
                buf,
                inner.x,
                y + h - 1,
                &super::fit(&format!("  min {}", v(real_lo)), label_cols),
                theme.label,
            );
        }
        let style = if theme.color { Style::new().fg(COLORS[c]) } else { Style::new() };
        let data =
            Dataset::default().marker(Marker::Braille).graph_type(GraphType::Line).style(style).data(points);
        Chart::new(vec![data])
            .x_axis(Axis::default().bounds([0.0, f64::from(duration)]))
            .y_axis(Axis::default().bounds([lo, hi]))
            .render(area, buf);
        y += h;
    }

    // Keys on the ruler row, the playhead down the plot.
    for &t in ch.times.iter().take(key_count(ch)) {
        let x = tl.x + column_of(t, duration, tl.width);
        text(buf, x, inner.y, "◆", theme.key);
    }
    let head = tl.x + column_of(app.player.playback.time, duration, tl.width);
    for y in inner.y..plot.y + plot_h {
        if let Some(cell) = buf.cell_mut((head, y)) {
            if cell.symbol() == " " {
                cell.set_symbol("│");
            }
            cell.set_style(if theme.color { theme.playhead } else { theme.selected });
        }
    }

    let mut y = plot.y + plot_h;
    if strip {
        let steps = key_steps(ch);
        let max = steps.iter().map(|s| s.0).filter(|a| a.is_finite()).fold(0.0f32, f32::max);
        let flips: Vec<usize> = steps.iter().enumerate().filter(|(_, s)| s.1).map(|(k, _)| k + 1).collect();
        let biggest =
            steps.iter().enumerate().max_by(|a, b| a.1.0.total_cmp(&b.1.0)).map_or(0, |(k, _)| k + 1);
        let summary = if flips.is_empty() {
            format!("Δ/key max {max:.1}° (key {biggest})")
        } else {
            format!("Δ/key max {max:.1}°, {} flip", flips.len())
        };
        text(buf, inner.x, y, &super::fit(&summary, label_cols), theme.label);
        for (k, &(angle, flip)) in steps.iter().enumerate() {
            let Some(&t) = ch.times.get(k + 1) else { continue };
            let x = tl.x + column_of(t, duration, tl.width);
            let (glyph, style) = if flip {
                ("!".to_string(), theme.error)
            } else {
                // Below a twentieth of a degree the bars would only show round-off.
                let level = if max > 0.05 { ((angle / max) * 7.0).round() as usize } else { 0 };
                (
                    BARS[level.min(7)].to_string(),
                    if angle >= max * 0.999 && max > 1.0 { theme.warning } else { theme.dim },
                )
            };
            text(buf, x, y, &glyph, style);
        }
        y += 1;
    }
    let line: Line = if euler {
        euler_line(ch, app.player.playback.time, app.panels.full_precision)
    } else {
        value_line(ch, app.player.playback.time, app.panels.full_precision)
    };
    Paragraph::new(line).render(Rect { x: inner.x, y, width: inner.width, height: 1 }, buf);
}

/// `super::num`, without the sign of a value that shows as zero ("-0.0" reads as a bug).
fn label_num(x: f32, decimals: usize, full: bool) -> String {
    let s = super::num(x, decimals, full);
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') { s[1..].to_string() } else { s }
}

/// "Euler XYZ intrinsic (R = Rx·Ry·Rz) = (12.0°, -3.5°, 90.0°)  A: quaternion", the key
/// as the key table binds it.
fn euler_line(ch: &Channel, t: f32, full: bool) -> Line<'static> {
    let key = BINDINGS.iter().find(|b| b.action == Action::ToggleEuler).map_or("?", |b| b.label);
    let mut out = [0.0f32; 4];
    sample_channel(ch, t, &mut out);
    let (x, y, z) = Quat::from_array(out).normalize().to_euler(EULER);
    let deg = |v: f32| format!("{}°", label_num(v.to_degrees(), 2, full));
    Line::from(vec![
        Span::raw(format!("{EULER_LABEL} = ({}, {}, {})", deg(x), deg(y), deg(z))),
        Span::raw(format!("  {key}: quaternion")),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::Interpolation;

    #[test]
    fn key_steps_give_angles_and_sign_flips() {
        // Keys about Z: 0°, 90°, 90° again stored with the opposite sign (the same
        // rotation: a flip, and no angle), then 270°.
        let q = |deg: f32| Quat::from_rotation_z(deg.to_radians());
        let keys = [q(0.0), q(90.0), -q(90.0), q(270.0)];
        let ch = Channel {
            node: 0,
            property: Property::Rotation,
            interpolation: Interpolation::Linear,
            components: 4,
            times: vec![0.0, 1.0, 2.0, 3.0].into(),
            values: keys.iter().flat_map(|k| k.to_array()).collect(),
        };
        let steps = key_steps(&ch);
        assert_eq!(steps.len(), 3);
        assert!((steps[0].0 - 90.0).abs() < 1e-3 && !steps[0].1, "{:?}", steps[0]);
        // f32 acos near 1 leaves a few hundredths of a degree.
        assert!(steps[1].0.abs() < 0.1 && steps[1].1, "{:?}", steps[1]);
        // 90° to 270° about Z is 180° either way round. -q(90) = (0, 0, -0.707, -0.707)
        // and q(270) = (0, 0, sin 135°, cos 135°) = (0, 0, 0.707, -0.707): their dot is
        // -0.5 + 0.5 = 0, not negative, so no flip.
        assert!((steps[2].0 - 180.0).abs() < 1e-2 && !steps[2].1, "{:?}", steps[2]);
    }
}
