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
//! - `springs` (VRM avatars with spring bones): the VRM stages that follow sampling, in
//!   three-vrm's order, for each spring step of 1/60 s up to the frame's time: the gaze aimed
//!   at the camera, then the spring bones (`vrm::Stepper::step_sampled`), with the clip
//!   sampled again for each step before the frame's own (a real cost of stepping faster than
//!   frames come). It sits between `sample` and `pose` in the frame, so the frame skinned and
//!   drawn is the sprung one.
//!
//! Frames step by 1/30 s (the viewer's default rate) from time 0, wrapping at the clip's
//! end. One warm-up frame (the first, full-screen draw) is not counted in the stages; it
//! gives `first_frame_ms`, the time from opening the file to that frame (with `load_ms`,
//! the import alone).
//!
//! The stages run as the viewer runs them, on every core where the work is split (big
//! meshes are skinned and rasterised on rayon's pool). Then, as the targets in
//! `PERFORMANCE.md` are stated, on one core: the raster of each frame drawn on a
//! one-thread pool, skinning without the pool, and sampling and the pose stage in hot
//! loops (their calls take well under a microsecond, too little to time one by one).

use std::io::{self, Write};
use std::time::Instant;

use super::args::BenchArgs;
use super::histogram::Histogram;
use super::output::{self, Failure};
use crate::render::ColorDepth;
use crate::tui::headless::HeadlessScreen;
use crate::tui::{App, Launch};

/// Bumped when a key of the JSON document changes meaning.
const FORMAT_VERSION: u32 = 1;
const FRAME_STEP: f32 = 1.0 / 30.0;

/// Every stage's times in milliseconds, and bytes written, per frame: histograms, so that
/// memory stays flat however many frames run.
#[derive(Debug, Default)]
struct Samples {
    sample: Histogram,
    springs: Histogram,
    pose: Histogram,
    skin: Histogram,
    raster: Histogram,
    draw: Histogram,
    frame: Histogram,
    bytes: Histogram,
}

pub fn run(args: &BenchArgs) -> Result<u8, Failure> {
    let started_all = Instant::now();
    let rig = super::load_rig_with(&args.file, &args.anim)?;
    let load_ms = started_all.elapsed().as_secs_f64() * 1000.0;
    let source = rig.source.clone();
    // With --anim, the first clip of the first LIB: that is what the user came to time.
    let clip = super::pick_clip(&rig, None)?;
    let color = if args.ansi256 { ColorDepth::Ansi256 } else { ColorDepth::TrueColor };
    let launch = Launch { clip, color, ..Launch::default() };
    let mut app = App::new(rig, &launch);
    let (cols, rows) = args.size;
    let io_err = |e: io::Error| Failure::input(format!("{source}: {e}"));
    let mut screen = HeadlessScreen::new(cols, rows).map_err(io_err)?;
    let duration = clip.and_then(|c| app.session.rig.clips.get(c)).map_or(0.0, |c| c.duration);

    let mut samples = Samples::default();
    let mut first_frame_ms = 0.0;
    let has_springs = app.session.rig.vrm.as_ref().is_some_and(|v| !v.springs.is_empty());
    let mut springs = has_springs.then(|| {
        let eye = app.view.camera.eye().as_dvec3();
        let look_at = crate::vrm::LookAtTarget::new(&app.session.rig, eye).ok();
        crate::vrm::Stepper::new(crate::vrm::DEFAULT_DT).with_look_at(look_at)
    });
    for frame in 0..=args.frames {
        let t = frame_time(duration, frame);
        app.player.playback.time = t;
        if frame == 0 {
            // The warm-up frame is the one a user waits for after opening the file: the
            // pose `App::new` skinned (at t = 0), drawn as the viewer draws it.
            screen.draw(&app).map_err(io_err)?;
            first_frame_ms = started_all.elapsed().as_secs_f64() * 1000.0;
            continue;
        }
        let clip_data = clip.and_then(|c| app.session.rig.clips.get(c));
        let started = Instant::now();
        let mut spring_ms = 0.0;
        let sampled = match springs.as_mut() {
            Some(stepper) => {
                let steps = crate::vrm::step_count(f64::from(t), stepper.dt());
                if steps < stepper.steps() {
                    // Wrapped at the clip's end: the viewer starts the springs again.
                    stepper.reset();
                }
                while stepper.steps() + 1 < steps {
                    app.session.ws.sample_pose(&app.session.rig, clip_data, stepper.next_step_time());
                    stepper.step_sampled(&app.session.rig, clip_data, &mut app.session.ws.pose);
                }
                let before = Instant::now();
                spring_ms += (before - started).as_secs_f64() * 1000.0;
                let at = if stepper.steps() < steps { stepper.next_step_time() } else { t };
                app.session.ws.sample_pose(&app.session.rig, clip_data, at);
                let sampled = Instant::now();
                if stepper.steps() < steps {
                    stepper.step_sampled(&app.session.rig, clip_data, &mut app.session.ws.pose);
                }
                spring_ms += sampled.elapsed().as_secs_f64() * 1000.0;
                samples.sample.record((sampled - before).as_secs_f64() * 1000.0);
                samples.springs.record(spring_ms);
                Instant::now()
            }
            None => {
                app.session.ws.sample_pose(&app.session.rig, clip_data, t);
                let sampled = Instant::now();
                samples.sample.record((sampled - started).as_secs_f64() * 1000.0);
                sampled
            }
        };
        app.session.ws.update_matrices(&app.session.rig);
        let posed = Instant::now();
        app.session.ws.skin(&app.session.rig);
        let skinned = Instant::now();
        let bytes = screen.draw(&app).map_err(io_err)?;
        let drawn = Instant::now();
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1000.0;
        let raster = f64::from(screen.raster_ms());
        samples.pose.record(ms(sampled, posed));
        samples.skin.record(ms(posed, skinned));
        samples.raster.record(raster);
        samples.draw.record((ms(skinned, drawn) - raster).max(0.0));
        samples.frame.record(ms(started, drawn));
        samples.bytes.record(bytes as f64);
    }

    let vertices: usize = app.session.ws.primitives.iter().map(|p| p.positions.len()).sum();
    let joints: usize = app.session.rig.skins.iter().map(|s| s.joints.len()).sum();
    let animated = clip.and_then(|c| app.session.rig.clips.get(c)).map_or(0, |c| c.animated_nodes());
    let one_core_raster = one_core_raster(&mut screen, &mut app, clip, args.frames).map_err(io_err)?;
    let one_core_skin = one_core_skinning(&mut app, args.frames);
    let (sample_ns, pose_ns) = hot_loops(&mut app, clip, 100 * args.frames);
    let report = Report {
        dots: screen.raster_size(),
        vertices,
        joints,
        animated,
        frames: args.frames,
        skin_one_core_ms: one_core_skin.median(),
        raster_one_core_ms: one_core_raster.median(),
        sample_ns,
        pose_ns,
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
fn one_core_skinning(app: &mut App, frames: u32) -> Histogram {
    let parallel = app.session.ws.parallel();
    app.session.ws.set_parallel(false);
    let mut out = Histogram::default();
    for _ in 0..frames {
        let started = Instant::now();
        app.session.ws.skin(&app.session.rig);
        out.record(started.elapsed().as_secs_f64() * 1000.0);
    }
    app.session.ws.set_parallel(parallel);
    out
}

/// The raster stage alone on one core: `frames` frames posed and skinned as in the
/// pipeline, each drawn on a one-thread pool. Empty when no pool can be made.
fn one_core_raster(
    screen: &mut HeadlessScreen,
    app: &mut App,
    clip: Option<usize>,
    frames: u32,
) -> io::Result<Histogram> {
    let mut out = Histogram::default();
    let Ok(pool) = rayon::ThreadPoolBuilder::new().num_threads(1).build() else {
        return Ok(out);
    };
    let clip = clip.and_then(|c| app.session.rig.clips.get(c));
    let duration = clip.map_or(0.0, |c| c.duration);
    for frame in 1..=frames {
        app.session.ws.evaluate(&app.session.rig, clip, frame_time(duration, frame));
        pool.install(|| screen.draw(app))?;
        out.record(f64::from(screen.raster_ms()));
    }
    Ok(out)
}

/// Mean nanoseconds per call of the sampling and the pose stages, each run `calls` times
/// in a row on one core (sampling stepping through the clip frame by frame).
fn hot_loops(app: &mut App, clip: Option<usize>, calls: u32) -> (f64, f64) {
    let clip = clip.and_then(|c| app.session.rig.clips.get(c));
    let duration = clip.map_or(0.0, |c| c.duration);
    let started = Instant::now();
    for frame in 1..=calls {
        app.session.ws.sample_pose(&app.session.rig, clip, frame_time(duration, frame));
    }
    let sample = started.elapsed().as_secs_f64() * 1e9 / f64::from(calls.max(1));
    let started = Instant::now();
    for _ in 0..calls {
        app.session.ws.update_matrices(&app.session.rig);
    }
    let pose = started.elapsed().as_secs_f64() * 1e9 / f64::from(calls.max(1));
    (sample, pose)
}

/// The clip time of frame `frame`: 1/30 s steps from 0, wrapping at the clip's end.
fn frame_time(duration: f32, frame: u32) -> f32 {
    if duration > 0.0 { (frame as f32 * FRAME_STEP) % duration } else { 0.0 }
}

/// `total` shared out over `n`; 0 when there is nothing to share it over.
fn per_unit(total: f64, n: usize) -> f64 {
    if n > 0 { total / n as f64 } else { 0.0 }
}

struct Report {
    /// The viewport's raster, in dots.
    dots: (usize, usize),
    vertices: usize,
    joints: usize,
    /// Nodes the clip animates.
    animated: usize,
    frames: u32,
    skin_one_core_ms: f64,
    raster_one_core_ms: f64,
    /// Hot-loop means per call (see `hot_loops`).
    sample_ns: f64,
    pose_ns: f64,
    /// Reading and importing the file.
    load_ms: f64,
    /// From the start of the load to the first frame drawn (load, viewer set-up, frame).
    first_frame_ms: f64,
    samples: Samples,
}

impl Report {
    /// The stages in pipeline order; `springs` only for an avatar with spring bones.
    fn stages(&self) -> Vec<(&'static str, &Histogram)> {
        let s = &self.samples;
        let mut stages = vec![("sample", &s.sample)];
        if s.springs.count() > 0 {
            stages.push(("springs", &s.springs));
        }
        stages.extend([("pose", &s.pose), ("skin", &s.skin), ("raster", &s.raster), ("draw", &s.draw)]);
        stages
    }

    /// Vertices per second for a stage time in ms; 0 when the time is too small to measure.
    fn per_second(&self, ms: f64) -> f64 {
        if ms > 0.0 { self.vertices as f64 / (ms / 1000.0) } else { 0.0 }
    }

    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        // As f32, like every float rigscope writes: the shortest text that reads back as
        // the same f32 (an f64 carries noise digits such as 0.9342830000000001). A JSON
        // value holds an f64, so it gets the f64 of that short text, which prints as it.
        let f = |x: f64| (x as f32).to_string().parse::<f64>().unwrap_or(f64::NAN);
        let mut stages = serde_json::Map::new();
        for (name, values) in self.stages() {
            stages.insert(
                name.to_string(),
                serde_json::json!({ "median_ms": f(values.median()), "p99_ms": f(values.percentile(0.99)) }),
            );
        }
        let doc = serde_json::json!({
            "format_version": FORMAT_VERSION,
            "vertices": self.vertices,
            "joints": self.joints,
            "frames": self.frames,
            "viewport_dots": [self.dots.0, self.dots.1],
            "stages": stages,
            "skinning_vertices_per_s": f(self.per_second(self.skin_one_core_ms)),
            "raster_one_core_ms_median": f(self.raster_one_core_ms),
            "sample_ns_per_animated_joint": f(per_unit(self.sample_ns, self.animated)),
            "pose_ns_per_joint": f(per_unit(self.pose_ns, self.joints)),
            "frame_ms_median": f(self.samples.frame.median()),
            "frame_ms_p99": f(self.samples.frame.percentile(0.99)),
            "bytes_per_frame_median": f(self.samples.bytes.median()),
            "load_ms": f(self.load_ms),
            "first_frame_ms": f(self.first_frame_ms),
            "simd": crate::simd_path(),
        });
        output::write_json(&doc, out)
    }

    fn write_text(&self, source: &str, args: &BenchArgs, out: &mut dyn Write) -> io::Result<()> {
        let (cols, rows) = args.size;
        writeln!(
            out,
            "{source}: {} vertices, {} joints, {} frames at {cols}x{rows} cells (viewport {}x{} dots), {} kernels",
            self.vertices,
            self.joints,
            self.frames,
            self.dots.0,
            self.dots.1,
            crate::simd_path()
        )?;
        // Microseconds: the sampling and pose stages of a character take well under one.
        let us = |ms: f64| ms * 1000.0;
        let s = &self.samples;
        writeln!(out, "{:<8} {:>11} {:>11}", "stage", "median us", "p99 us")?;
        for (name, values) in self.stages() {
            writeln!(out, "{name:<8} {:>11.1} {:>11.1}", us(values.median()), us(values.percentile(0.99)))?;
        }
        let frame = s.frame.median();
        writeln!(out, "{:<8} {:>11.1} {:>11.1}", "frame", us(frame), us(s.frame.percentile(0.99)))?;
        writeln!(out, "on one core:")?;
        writeln!(
            out,
            "  sampling {:.1} ns per animated joint ({}), pose {:.1} ns per joint ({}) (hot loops)",
            per_unit(self.sample_ns, self.animated),
            self.animated,
            per_unit(self.pose_ns, self.joints),
            self.joints
        )?;
        writeln!(out, "  raster {:.1} us median", us(self.raster_one_core_ms))?;
        writeln!(
            out,
            "skinning: {:.1} M vertices/s on one core, {:.1} M vertices/s in the pipeline",
            self.per_second(self.skin_one_core_ms) / 1e6,
            self.per_second(s.skin.median()) / 1e6
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
            self.samples.bytes.median(),
            self.samples.bytes.percentile(0.99),
            if args.ansi256 { "256 colours" } else { "24-bit colour" }
        )
    }
}
