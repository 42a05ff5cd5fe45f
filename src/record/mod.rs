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
}

/// The clip times of the frames from `from` to `to` (the end not included, so a looping clip
/// does not show its first pose twice) at `fps`: `round((to - from) * fps)` frames, at least
/// one.
pub fn frame_times(from: f32, to: f32, fps: u32) -> Vec<f32> {
    let fps = fps.max(1);
    let span = f64::from((to - from).max(0.0));
    let n = ((span * f64::from(fps)).round() as usize).max(1);
    (0..n).map(|i| (f64::from(from) + i as f64 / f64::from(fps)) as f32).collect()
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
        let mut springs = self.spring_dt.map(crate::vrm::Stepper::new);
        for (i, &t) in self.times.iter().enumerate() {
            match springs.as_mut() {
                Some(stepper) => {
                    stepper.advance_to(self.rig, self.clip, f64::from(t), &mut ws);
                    ws.update_matrices(self.rig);
                    ws.skin(self.rig);
                }
                None => ws.evaluate(self.rig, self.clip, t),
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
        assert_eq!(frame_times(0.0, 1.0, 4), vec![0.0, 0.25, 0.5, 0.75]);
        assert_eq!(frame_times(0.5, 0.5, 30), vec![0.5]);
        assert_eq!(frame_times(1.0, 0.0, 30), vec![1.0]);
        // 2.0 s at 15 fps: 30 frames, the last 1/15 s before the end.
        let t = frame_times(0.0, 2.0, 15);
        assert_eq!(t.len(), 30);
        assert!((t[29] - 29.0 / 15.0).abs() < 1e-6);
    }

    #[test]
    fn timestamps_are_whole_microseconds() {
        assert_eq!(seconds(0, 30), 0.0);
        assert_eq!(seconds(1, 30), 0.033333);
        assert_eq!(seconds(2, 3), 0.666667);
        assert_eq!(seconds(45, 15), 3.0);
    }
}
