//! How the viewport draws: the camera, the glyphs and draw mode, what is overlaid, the colour
//! depth and whose weights are drawn. Kept whole on reload; only a rig of another size
//! re-frames the camera.

use super::Status;
use super::session::Session;
use crate::anim::{Engine, Workspace};
use crate::render::{Camera, ColorDepth, DrawMode, GlyphMode, framed_camera};
use crate::tui::action::Action;

/// How much larger or smaller the framing may get, and how far (in framing distances) its
/// centre may move, before the old camera no longer shows the rig: a re-export nudges the
/// bounds by far less; another rig (a Fox replaced by a CesiumMan) by far more.
const FRAMING_SCALE: f32 = 1.5;
const FRAMING_SHIFT: f32 = 0.15;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    pub camera: Camera,
    /// The camera distance that frames the rig (zoom 1), for the viewport's title.
    pub framed_distance: f32,
    pub mode: GlyphMode,
    pub draw: DrawMode,
    pub bones: bool,
    pub names: bool,
    pub ghost: bool,
    /// A library clip's own skeleton beside the character (`L`).
    pub source_ghost: bool,
    pub heatmap: bool,
    /// The render mode to restore when the heatmap is turned off.
    pub mode_before_heatmap: Option<GlyphMode>,
    /// Every problem vertex marked in the viewport, by severity.
    pub marks: bool,
    pub color: ColorDepth,
    /// Whose weights the viewport draws (`p` cycles `Engine::ALL`); `Stored` by default.
    pub engine: Engine,
}

impl View {
    /// A three-quarter view from slightly above reads better than a flat front view.
    pub fn new(ws: &Workspace, mode: GlyphMode, color: ColorDepth) -> View {
        let camera = framed_camera(
            ws,
            crate::render::OPENING_YAW_DEGREES.to_radians(),
            crate::render::OPENING_PITCH_DEGREES.to_radians(),
            1.0,
        );
        View {
            camera,
            framed_distance: camera.distance,
            mode,
            draw: DrawMode::Shaded,
            bones: true,
            names: false,
            ghost: false,
            source_ghost: false,
            heatmap: false,
            mode_before_heatmap: None,
            marks: true,
            color,
            engine: Engine::Stored,
        }
    }

    /// The user's zoom: how much closer than the framing distance the camera is (1 when framed).
    pub fn zoom(&self) -> f32 {
        let z = self.framed_distance / self.camera.distance;
        if z.is_finite() && z > 0.0 { z } else { 1.0 }
    }

    pub fn update(&mut self, action: Action, session: &Session, status: &mut Status) {
        match action {
            Action::Orbit { yaw, pitch } => self.camera.orbit(yaw.to_radians(), pitch.to_radians()),
            Action::Zoom(f) => self.camera.zoom(f),
            Action::Pan { x, y } => self.camera.pan(x, y),
            Action::Reframe => {
                self.camera = framed_camera(&session.ws, self.camera.yaw, self.camera.pitch, 1.0);
                self.framed_distance = self.camera.distance;
            }
            Action::RenderBraille => self.mode = GlyphMode::Braille,
            Action::RenderHalfBlock => self.mode = GlyphMode::HalfBlock,
            Action::RenderAscii => self.mode = GlyphMode::Ascii,
            Action::CycleColor => {
                self.color = self.color.next();
                status.say(format!("colours: {}", self.color.label()));
            }
            Action::CycleDrawMode => {
                self.draw = match self.draw {
                    DrawMode::Shaded => DrawMode::Wireframe,
                    DrawMode::Wireframe => DrawMode::Points,
                    DrawMode::Points => DrawMode::Shaded,
                }
            }
            Action::ToggleBones => self.bones = !self.bones,
            Action::ToggleNames if self.bones => self.names = !self.names,
            Action::ToggleNames => {
                // Names are drawn at the skeleton's joints: with the skeleton hidden, `n`
                // did nothing visible. Asking for names brings the skeleton back.
                self.bones = true;
                self.names = true;
                status.say("skeleton shown with its names (b hides it)");
            }
            Action::ToggleGhost => self.ghost = !self.ghost,
            Action::ToggleSourceGhost => self.source_ghost = !self.source_ghost,
            Action::ToggleHeatmap => {
                // Weights read best as colours: the heatmap draws in half blocks, and turning
                // it off goes back to the mode the user had.
                self.heatmap = !self.heatmap;
                if self.heatmap {
                    self.mode_before_heatmap = Some(self.mode);
                    self.mode = GlyphMode::HalfBlock;
                } else if let Some(m) = self.mode_before_heatmap.take() {
                    self.mode = m;
                }
            }
            Action::ToggleMarks => {
                self.marks = !self.marks;
                if self.marks && session.vertex_problems.is_empty() {
                    status.say("no problem vertices to mark");
                }
            }
            _ => {}
        }
    }

    /// After a reload: when the new rig's bounds differ from the old one's beyond what the
    /// user's zoom and pan account for, the camera is framed anew from the user's angles and
    /// at the user's zoom, so a re-framed view looks as the user had it, on the new rig.
    /// Both framings are taken at the same time of the same clip, so a walk cycle's stride
    /// does not count as a change. True when it re-framed.
    pub(super) fn rematch(&mut self, old: &Workspace, new: &Workspace) -> bool {
        let (yaw, pitch) = (self.camera.yaw, self.camera.pitch);
        let was = framed_camera(old, yaw, pitch, 1.0);
        let now = framed_camera(new, yaw, pitch, 1.0);
        let scale = now.distance / was.distance;
        let shift = now.target.distance(was.target) / was.distance;
        let same = scale.is_finite()
            && (1.0 / FRAMING_SCALE..=FRAMING_SCALE).contains(&scale)
            && shift.is_finite()
            && shift <= FRAMING_SHIFT;
        if !same {
            let zoom = self.zoom();
            self.camera = framed_camera(new, yaw, pitch, zoom);
            self.framed_distance = self.camera.distance * zoom;
        }
        !same
    }
}
