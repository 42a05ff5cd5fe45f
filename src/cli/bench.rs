//! `rigscope bench FILE [--frames N] [--size WxH] [--json]`: the viewer's per-frame pipeline,
//! headless, timed stage by stage over N frames of the first clip.
//!
//! Stages, as the viewer runs them each frame while playing:
//! - `sample`: rest pose + cursor sampling of the clip (`Workspace::sample_pose`);
//! - `pose`: world and joint matrices (`Workspace::update_matrices`);
//! - `skin`: morph + skinning of every primitive (`Workspace::skin`);
//! - `raster`: `draw_scene` + `pack` into the viewport's grid, as timed by the viewport
//!   itself (`ViewportCache::raster_ms`);
//! - `draw`: the rest of a full-screen `tui::ui::draw` plus ratatui's diff, encoded by the
//!   crossterm backend and wrapped in DEC 2026 synchronised output, into a byte-counting
//!   writer. This is exactly what a terminal would receive for that frame (ratatui only
//!   sends the cells that changed since the previous frame), which is why the full app is
//!   drawn rather than `render::write_ansi` of the viewport alone (that would resend every
//!   cell, and miss the panels around it).
//!
//! Frames step by 1/30 s (the viewer's default rate) from time 0, wrapping at the clip's
//! end. One warm-up frame (the first, full-screen draw) is not counted in the stages; it
//! gives `first_frame_ms`, the time from opening the file to that frame (with `load_ms`,
//! the import alone).

use std::io::{self, Write};
use std::time::Instant;

use super::args::BenchArgs;
use super::output::{self, Failure};
use crate::render::ColorDepth;
use crate::tui::headless::HeadlessScreen;
use crate::tui::{App, Launch};

/// Bumped when a key of the JSON document changes meaning.
const FORMAT_VERSION: u32 = 1;
const FRAME_STEP: f32 = 1.0 / 30.0;

/// Per-frame samples of every stage, in milliseconds, and bytes written.
#[derive(Debug, Default)]
struct Samples {
    sample: Vec<f64>,
    pose: Vec<f64>,
    skin: Vec<f64>,
    raster: Vec<f64>,
    draw: Vec<f64>,
    frame: Vec<f64>,
    bytes: Vec<f64>,
}

pub fn run(args: &BenchArgs) -> Result<u8, Failure> {
    let started_all = Instant::now();
    let rig = super::load_rig(&args.file)?;
    let load_ms = started_all.elapsed().as_secs_f64() * 1000.0;
    let source = rig.source.clone();
    let clip = if rig.clips.is_empty() { None } else { Some(0) };
    let color = if args.ansi256 { ColorDepth::Ansi256 } else { ColorDepth::TrueColor };
    let launch = Launch { clip, color, ..Launch::default() };
    let mut app = App::new(rig, &launch);
    let (cols, rows) = args.size;
    let io_err = |e: io::Error| Failure::input(format!("{source}: {e}"));
    let mut screen = HeadlessScreen::new(cols, rows).map_err(io_err)?;
    let duration = clip.and_then(|c| app.rig.clips.get(c)).map_or(0.0, |c| c.duration);

    let mut samples = Samples::default();
    let mut first_frame_ms = 0.0;
    for frame in 0..=args.frames {
        let t = if duration > 0.0 { (frame as f32 * FRAME_STEP) % duration } else { 0.0 };
        app.playback.time = t;
        if frame == 0 {
            // The warm-up frame is the one a user waits for after opening the file: the
            // pose `App::new` skinned (at t = 0), drawn as the viewer draws it.
            screen.draw(&app).map_err(io_err)?;
            first_frame_ms = started_all.elapsed().as_secs_f64() * 1000.0;
            continue;
        }
        let clip_data = clip.and_then(|c| app.rig.clips.get(c));
        let started = Instant::now();
        app.ws.sample_pose(&app.rig, clip_data, t);
        let sampled = Instant::now();
        app.ws.update_matrices(&app.rig);
        let posed = Instant::now();
        app.ws.skin(&app.rig);
        let skinned = Instant::now();
        let bytes = screen.draw(&app).map_err(io_err)?;
        let drawn = Instant::now();
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1000.0;
        let raster = f64::from(screen.raster_ms());
        samples.sample.push(ms(started, sampled));
        samples.pose.push(ms(sampled, posed));
        samples.skin.push(ms(posed, skinned));
        samples.raster.push(raster);
        samples.draw.push((ms(skinned, drawn) - raster).max(0.0));
        samples.frame.push(ms(started, drawn));
        samples.bytes.push(bytes as f64);
    }

    let vertices: usize = app.ws.primitives.iter().map(|p| p.positions.len()).sum();
    let joints: usize = app.rig.skins.iter().map(|s| s.joints.len()).sum();
    let one_core_skin = one_core_skinning(&mut app, args.frames);
    let report = Report {
        vertices,
        joints,
        frames: args.frames,
        skin_one_core_ms: median(&one_core_skin),
        load_ms,
        first_frame_ms,
        samples,
    };
    output::with_stdout(|out| {
        if args.json { report.write_json(out) } else { report.write_text(&source, args, out) }
    })?;
    Ok(0)
}

/// The skinning stage alone on one core, `frames` times (the pose stays put: the work per
/// call does not depend on it).
fn one_core_skinning(app: &mut App, frames: u32) -> Vec<f64> {
    let parallel = app.ws.parallel();
    app.ws.set_parallel(false);
    let mut out = Vec::with_capacity(frames as usize);
    for _ in 0..frames {
        let started = Instant::now();
        app.ws.skin(&app.rig);
        out.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    app.ws.set_parallel(parallel);
    out
}

/// The value at rank `p` (0..=1) of the sorted samples, nearest-rank; 0 when empty.
fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn median(values: &[f64]) -> f64 {
    percentile(values, 0.5)
}

struct Report {
    vertices: usize,
    joints: usize,
    frames: u32,
    skin_one_core_ms: f64,
    /// Reading and importing the file.
    load_ms: f64,
    /// From the start of the load to the first frame drawn (load, viewer set-up, frame).
    first_frame_ms: f64,
    samples: Samples,
}

impl Report {
    fn stages(&self) -> [(&'static str, &[f64]); 5] {
        let s = &self.samples;
        [
            ("sample", &s.sample),
            ("pose", &s.pose),
            ("skin", &s.skin),
            ("raster", &s.raster),
            ("draw", &s.draw),
        ]
    }

    /// Vertices per second for a stage time in ms; 0 when the time is too small to measure.
    fn per_second(&self, ms: f64) -> f64 {
        if ms > 0.0 { self.vertices as f64 / (ms / 1000.0) } else { 0.0 }
    }

    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut stages = serde_json::Map::new();
        for (name, values) in self.stages() {
            stages.insert(
                name.to_string(),
                serde_json::json!({ "median_ms": median(values), "p99_ms": percentile(values, 0.99) }),
            );
        }
        let doc = serde_json::json!({
            "format_version": FORMAT_VERSION,
            "vertices": self.vertices,
            "joints": self.joints,
            "frames": self.frames,
            "stages": stages,
            "skinning_vertices_per_s": self.per_second(self.skin_one_core_ms),
            "frame_ms_median": median(&self.samples.frame),
            "frame_ms_p99": percentile(&self.samples.frame, 0.99),
            "bytes_per_frame_median": median(&self.samples.bytes),
            "load_ms": self.load_ms,
            "first_frame_ms": self.first_frame_ms,
        });
        output::write_json(&doc, out)
    }

    fn write_text(&self, source: &str, args: &BenchArgs, out: &mut dyn Write) -> io::Result<()> {
        let (cols, rows) = args.size;
        writeln!(
            out,
            "{source}: {} vertices, {} joints, {} frames at {cols}x{rows} cells",
            self.vertices, self.joints, self.frames
        )?;
        writeln!(out, "{:<8} {:>10} {:>10}", "stage", "median ms", "p99 ms")?;
        for (name, values) in self.stages() {
            writeln!(out, "{name:<8} {:>10.3} {:>10.3}", median(values), percentile(values, 0.99))?;
        }
        let frame = median(&self.samples.frame);
        writeln!(out, "{:<8} {:>10.3} {:>10.3}", "frame", frame, percentile(&self.samples.frame, 0.99))?;
        writeln!(
            out,
            "skinning: {:.1} M vertices/s on one core, {:.1} M vertices/s in the pipeline",
            self.per_second(self.skin_one_core_ms) / 1e6,
            self.per_second(median(&self.samples.skin)) / 1e6
        )?;
        writeln!(out, "frames/s: {:.0}", if frame > 0.0 { 1000.0 / frame } else { 0.0 })?;
        writeln!(
            out,
            "first frame: {:.1} ms after opening (load {:.1} ms)",
            self.first_frame_ms, self.load_ms
        )?;
        writeln!(
            out,
            "bytes per frame: {:.0} median, {:.0} p99 ({}, DEC 2026 wrapped)",
            median(&self.samples.bytes),
            percentile(&self.samples.bytes, 0.99),
            if args.ansi256 { "256 colours" } else { "24-bit colour" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_is_nearest_rank() {
        let v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(median(&v), 50.0);
        assert_eq!(percentile(&v, 0.99), 99.0);
        assert_eq!(percentile(&v, 1.0), 100.0);
        assert_eq!(percentile(&[3.0], 0.99), 3.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
        assert_eq!(median(&[f64::NAN, 2.0, 1.0]), 1.0);
    }
}
