//! Recordings of a clip as the viewer's viewport draws it, for sharing without rigscope:
//! an asciicast v2 file (`cast`: the frames as terminal output, for asciinema and its web
//! player) or an animated GIF (`gif`: the raster's dots as pixels). Pure: bytes in memory,
//! no file or terminal I/O, and the same inputs always give the same bytes (no wall-clock
//! timestamps, frame times from the frame number).

mod cast;
mod gif;

pub use cast::cast;
pub use gif::{GifError, gif};

use crate::anim::{Engine, Workspace};
use crate::render::{Camera, GlyphMode, Raster, SceneOptions, SceneScratch, draw_scene, framed_camera};
use crate::rig::{Clip, Rig};

/// What to record: the rig, the clip (None: the rest pose), the viewport's size in cells,
/// how it draws, and the frames' clip times.
pub struct Take<'a> {
    pub rig: &'a Rig,
    pub clip: Option<&'a Clip>,
    pub cols: usize,
    pub rows: usize,
    pub mode: GlyphMode,
    pub scene: SceneOptions,
    /// Camera yaw, pitch (radians) and zoom, framed on the first frame's pose and then held
    /// still, so the character moves in the picture as it does in the viewer.
    pub yaw: f32,
    pub pitch: f32,
    pub zoom: f32,
    pub times: Vec<f32>,
    pub fps: u32,
    /// Whose weights skin the mesh (`Engine::Stored`: the file's own).
    pub engine: Engine,
    /// Step the VRM spring bones in steps of this many seconds from the clip's start: each
    /// frame shows the whole number of steps nearest its time.
    pub spring_dt: Option<f64>,
    /// Where the VRM avatar's gaze is aimed (`Camera`: the take's fixed camera).
    pub look_at: Option<crate::vrm::Aim>,
}

/// The most frames times viewport cells one recording draws: each cell takes a few bytes in
/// a .cast and a few pixels in a .gif, all held in memory until the file is written, so this
/// keeps a recording well under a gigabyte (26,041 frames at the default 80x24 cells, 29
/// minutes at the default 15 fps; a GIF counts each cell `--scale` squared times).
pub const MAX_FRAME_CELLS: u64 = 50_000_000;

/// A recording of more frames than `MAX_FRAME_CELLS` allows at its size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TooManyFrames {
    /// Frames asked for (infinite for an endless range).
    pub frames: f64,
    /// The most frames allowed at this size.
    pub most: u64,
}

impl std::fmt::Display for TooManyFrames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.frames {
            n if n.is_infinite() => write!(f, "endless frames")?,
            n if n < 1e12 => write!(f, "{n} frames")?,
            n => write!(f, "{n:.1e} frames")?,
        }
        write!(f, " are more than record draws at this size ({} at most)", self.most)
    }
}

/// The clip times of the frames from `from` to `to` (the end not included, so a looping clip
/// does not show its first pose twice) at `fps`: `round((to - from) * fps)` frames, at least
/// one, or `TooManyFrames` when that many frames of `cells` cells each pass `MAX_FRAME_CELLS`.
pub fn frame_times(from: f32, to: f32, fps: u32, cells: usize) -> Result<Vec<f32>, TooManyFrames> {
    let fps = fps.max(1);
    let span = (f64::from(to) - f64::from(from)).max(0.0);
    let frames = (span * f64::from(fps)).round().max(1.0);
    let most = MAX_FRAME_CELLS / (cells.max(1) as u64);
    if frames.is_nan() || frames > most as f64 {
        return Err(TooManyFrames { frames, most });
    }
    let n = frames as usize;
    Ok((0..n).map(|i| (f64::from(from) + i as f64 / f64::from(fps)) as f32).collect())
}

impl Take<'_> {
    /// Draws every frame in order and hands each raster to `frame`.
    pub fn draw_frames<E>(&self, mut frame: impl FnMut(usize, &Raster) -> Result<(), E>) -> Result<(), E> {
        let first = self.times.first().copied().unwrap_or(0.0);
        let mut ws = Workspace::at(self.rig, self.clip, first);
        ws.set_engine(self.rig, self.engine);
        let camera: Camera = framed_camera(&ws, self.yaw, self.pitch, self.zoom);
        let mut raster = Raster::for_grid(self.cols, self.rows, self.mode);
        let mut scratch = SceneScratch::default();
        let look_at = self
            .look_at
            .and_then(|aim| crate::vrm::LookAtTarget::new(self.rig, aim.point(camera.eye())).ok());
        let mut springs = self.spring_dt.map(|dt| crate::vrm::Stepper::new(dt).with_look_at(look_at.clone()));
        for (i, &t) in self.times.iter().enumerate() {
            match (springs.as_mut(), &look_at) {
                (Some(stepper), _) => {
                    stepper.advance_to(self.rig, self.clip, f64::from(t), &mut ws);
                    ws.update_matrices(self.rig);
                    ws.skin(self.rig);
                }
                (None, Some(target)) => {
                    crate::vrm::sample_aimed(self.rig, self.clip, f64::from(t), None, target, &mut ws);
                    ws.update_matrices(self.rig);
                    ws.skin(self.rig);
                }
                (None, None) => ws.evaluate(self.rig, self.clip, t),
            }
            draw_scene(&mut raster, &camera, self.rig, &ws, None, &self.scene, &mut scratch);
            frame(i, &raster)?;
        }
        Ok(())
    }
}

/// The time a frame is shown at, in seconds from the recording's start, rounded to the
/// microsecond so the text of every timestamp is exact and the same on every machine.
fn seconds(frame: usize, fps: u32) -> f64 {
    (frame as f64 * 1e6 / f64::from(fps.max(1))).round() / 1e6
}

#[cfg(test)]
mod take_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_times_cover_the_range_without_its_end() {
        let times = |from, to, fps| frame_times(from, to, fps, 80 * 24).expect("within the limit");
        assert_eq!(times(0.0, 1.0, 4), vec![0.0, 0.25, 0.5, 0.75]);
        assert_eq!(times(0.5, 0.5, 30), vec![0.5]);
        assert_eq!(times(1.0, 0.0, 30), vec![1.0]);
        // 2.0 s at 15 fps: 30 frames, the last 1/15 s before the end.
        let t = times(0.0, 2.0, 15);
        assert_eq!(t.len(), 30);
        assert!((t[29] - 29.0 / 15.0).abs() < 1e-6);
    }

    #[test]
    fn ranges_past_the_limit_are_refused_before_any_frame_is_made() {
        // 50,000,000 cells / (100 x 50 cells) = 10,000 frames: 1000 s at 10 fps fits, one
        // more frame does not.
        assert_eq!(frame_times(0.0, 1000.0, 10, 5000).map(|t| t.len()), Ok(10_000));
        let past = frame_times(0.0, 1000.1, 10, 5000);
        assert_eq!(past, Err(TooManyFrames { frames: 10_001.0, most: 10_000 }));
        for end in [f32::INFINITY, 3e38, 1e8] {
            let e = frame_times(0.0, end, 60, 80 * 24).expect_err("too long");
            assert_eq!(e.most, 26_041);
            assert!(e.frames >= 6e9, "{end}: {}", e.frames);
        }
        let endless = frame_times(0.0, f32::INFINITY, 15, 1).expect_err("endless").to_string();
        assert!(endless.starts_with("endless frames"), "{endless}");
        let huge = frame_times(-3e38, 3e38, 60, 1).expect_err("huge").to_string();
        assert!(huge.starts_with("3.6e40 frames"), "{huge}");
    }

    #[test]
    fn timestamps_are_whole_microseconds() {
        assert_eq!(seconds(0, 30), 0.0);
        assert_eq!(seconds(1, 30), 0.033333);
        assert_eq!(seconds(2, 3), 0.666667);
        assert_eq!(seconds(45, 15), 3.0);
    }
}
