//! The viewer's state, split at the reload seam: the `Session` (everything derived from the
//! files, rebuilt on load and on every reload) and the small parts that hold what the user
//! chose (`Player`, `Selection`, `View`, `Panels`, `Overlays`), each with its own `update`,
//! beside what the app says back (`Status`) and what the loop does next (`Schedule`).
//!
//! The viewer changes it only through `App`'s methods: `update(action)` for keys, the mouse and
//! what the event loop reports (time passed, what a frame measured), `evaluate` for the pose
//! before a frame, `reload` / `reload_failed` for the watched file. `update` never reads the
//! clock or the terminal: time arrives as `Action::Tick(dt)`, so a test can drive the app with
//! a key sequence and get the same screen every time.

#[cfg(test)]
mod all_entry;
mod panels;
mod player;
mod reload;
mod selection;
mod session;
mod status;
mod view;

use super::action::{Action, Part, PromptKind};
use super::prompt::Prompt;
use crate::anim::{Engine, Workspace};
use crate::render::{ColorDepth, GlyphMode};
use crate::rig::Rig;

pub use panels::{Limits, Overlays, Panels};
pub use player::Player;
pub use reload::changes;
pub use selection::{Moved, Selection, mesh_label, skin_deforms};
pub use session::Session;
pub use status::{FileNote, Schedule, Status};
pub use view::View;

/// How the app was asked to start (from the command line).
#[derive(Debug, Clone)]
pub struct Launch {
    pub clip: Option<usize>,
    pub time: f32,
    pub paused: bool,
    pub mode: GlyphMode,
    pub fps: u32,
    pub color: ColorDepth,
    /// Capture the mouse (off: the terminal selects text as usual).
    pub mouse: bool,
    /// `--compare B`: a second rig drawn as a ghost over this one.
    pub compare: Option<Rig>,
    /// The file to watch and reload when it changes (None: `--no-watch`, or no file).
    pub watch: Option<std::path::PathBuf>,
    /// `--step`: seconds per frame for every clip (None: each clip's own, from its keys).
    pub step: Option<f64>,
    /// `--anim` files bound onto the rig at every (re)load; watched too.
    pub anims: Option<crate::attach::AnimSet>,
    /// The character's file (None: the bundled sample), for `M` to write beside.
    pub file: Option<std::path::PathBuf>,
    /// `--engine`: whose weights the viewport draws at start.
    pub engine: Engine,
    /// `--springs --dt`: the VRM spring bones stepped in steps of this many seconds.
    pub spring_dt: Option<f64>,
}

impl Default for Launch {
    fn default() -> Self {
        Launch {
            clip: None,
            time: 0.0,
            paused: false,
            mode: GlyphMode::Braille,
            fps: 30,
            color: ColorDepth::TrueColor,
            mouse: true,
            compare: None,
            watch: None,
            step: None,
            anims: None,
            file: None,
            engine: Engine::Stored,
            spring_dt: None,
        }
    }
}

/// Time spent per pipeline stage in one frame: the stages `rigscope bench` reports.
/// `evaluate` returns sample, pose and skin (summed over the weights preview's second
/// workspace when one is shown; 0 when the pose did not change), the event loop adds the
/// rest and reports the whole (`Action::Timed`) once the frame is out.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timings {
    pub sample_ms: f32,
    pub pose_ms: f32,
    pub skin_ms: f32,
    pub raster_ms: f32,
    pub draw_ms: f32,
    pub frame_ms: f32,
    /// Frames written per second over the last seconds (`delivered`), not one interval's.
    pub fps: f32,
    /// Bytes written to the terminal for the last frame.
    pub bytes: u64,
    /// What the link to the terminal carries, once the terminal has answered; its frame
    /// rate and throughput are those written (`delivered`), not the link's fitted estimate.
    pub link: Option<super::link::LinkStats>,
    /// The terminal never answered: frames are paced by the clock alone.
    pub unanswered: bool,
}

pub struct App {
    /// Everything derived from the files; replaced whole by a reload.
    pub session: Session,
    /// The clip, its playback and a held expression.
    pub player: Player,
    /// The skin, bone, vertex and problem pointed at.
    pub selection: Selection,
    /// The camera and how the viewport draws.
    pub view: View,
    /// Focus, scrolls and how values read.
    pub panels: Panels,
    /// Help, a prompt, the clip picker: whichever takes the keys.
    pub overlays: Overlays,
    pub status: Status,
    pub schedule: Schedule,
}

impl App {
    pub fn new(rig: Rig, launch: &Launch) -> App {
        let (session, player) = Session::open(rig, launch);
        let mut app = App {
            selection: Selection::new(&session),
            view: View::new(&session.ws, launch.mode, launch.color),
            player,
            panels: Panels::default(),
            overlays: Overlays::default(),
            status: Status { message: session.warnings(), ..Status::default() },
            schedule: Schedule { fps: launch.fps.clamp(1, 120), quit: false, dirty: true, pose_dirty: false },
            session,
        };
        if launch.engine != Engine::Stored {
            app.show_engine(launch.engine);
        }
        app
    }

    /// Applies one action: each goes to the part that owns it (`Action::part`); the few that
    /// join parts are done here. Time only moves through `Action::Tick`.
    pub fn update(&mut self, action: Action) {
        // What the loop reports of a frame that is out: no key was pressed, nothing to redraw.
        match action {
            Action::Measured(m) => {
                self.panels.measure(m, &mut self.schedule);
                return;
            }
            Action::Timed(t) => {
                self.status.timings = t;
                return;
            }
            _ => self.status.update(action),
        }
        if matches!(action, Action::Tick(_)) && !self.player.is_playing() {
            return;
        }
        let before = (self.player.pose_inputs(), self.view.engine);
        if let Some(focus) = action.focuses() {
            self.panels.focus = focus;
        }
        let session = &self.session;
        match action.part() {
            Part::Player => self.player.update(action, session, self.selection.selected(), &mut self.status),
            Part::Selection => {
                let moved = self.selection.update(action, session, &mut self.status);
                if moved.bone {
                    self.panels.details_scroll = 0;
                }
                if moved.vertex {
                    self.panels.weights_scroll = 0;
                }
            }
            Part::View => self.view.update(action, session, &mut self.status),
            Part::Panels => self.panels.update(action, self.bone_channels(), &mut self.status),
            Part::Overlays => self.overlays.update(action, &session.rig, &mut self.status),
            Part::App => self.act(action),
        }
        if (self.player.pose_inputs(), self.view.engine) != before {
            self.schedule.pose_dirty = true;
        }
        self.schedule.dirty = true;
    }

    /// The actions that join parts.
    fn act(&mut self, action: Action) {
        let rig = &self.session.rig;
        match action {
            Action::Quit | Action::Interrupt => self.schedule.quit = true,
            Action::Escape if self.overlays.help => self.overlays.help = false,
            Action::Escape if !self.selection.tree.filter.is_empty() => self.selection.clear_filter(rig),
            Action::CycleEngine(dir) => {
                let all = Engine::ALL;
                let i = all.iter().position(|&e| e == self.view.engine).unwrap_or(0) as isize;
                self.show_engine(all[(i + dir).rem_euclid(all.len() as isize) as usize]);
            }
            Action::Copy => self.copy(),
            Action::RenderCommand => self.render_command(),
            Action::StartPrompt(PromptKind::Merge) => self.start_merge_prompt(),
            Action::StartPrompt(PromptKind::Skin) if rig.skins.len() < 2 => {
                let n = rig.skins.len();
                self.status.say(format!("{} in this file", crate::tui::ui::count(n, "skin", "skins")));
            }
            Action::StartPrompt(kind) => self.overlays.prompt = Some(Prompt::new(kind)),
            Action::PromptAccept => {
                if let Some(p) = self.overlays.prompt.take() {
                    self.accept_prompt(&p);
                }
            }
            Action::PickerAccept => {
                if let Some(p) = &self.overlays.picker {
                    match p.chosen(rig) {
                        Some(clip) => {
                            self.overlays.picker = None;
                            self.player.switch_clip(rig, Some(clip));
                        }
                        None => self.status.say(format!("no clip matches '{}'", p.filter)),
                    }
                }
            }
            _ => {}
        }
    }

    /// Re-evaluates the pose when what it depends on changed. Called by the loop before
    /// drawing; it returns the time its stages took, for the status bar.
    pub fn evaluate(&mut self) -> Timings {
        if !self.schedule.pose_dirty {
            return Timings::default();
        }
        self.schedule.pose_dirty = false;
        let (clip, t) = (self.player.clip, self.player.playback.time);
        self.session.evaluate(clip, t, self.player.expression.as_ref())
    }

    /// Text for the terminal's clipboard, once.
    pub fn take_clipboard(&mut self) -> Option<String> {
        self.status.clipboard.take()
    }

    /// Draws with `engine`'s influences and says so in the status line.
    fn show_engine(&mut self, engine: Engine) {
        self.view.engine = engine;
        self.session.set_engine(engine, self.player.clip, self.player.playback.time);
        self.status.say(match engine.refusal(&self.session.rig) {
            Some(why) => format!(
                "engine: {} would not import this file ({why}); drawn as stored (p/P: next/previous)",
                engine.label()
            ),
            None => format!("engine: {} (p/P: next/previous)", engine.label()),
        });
    }

    /// How many channels the selected bone has in the current clip.
    fn bone_channels(&self) -> usize {
        let sel = self.selected();
        self.player
            .clip
            .and_then(|c| self.session.rig.clips.get(c))
            .map_or(0, |c| c.channels.iter().filter(|ch| Some(ch.node) == sel).count())
    }

    /// The bind pose (every joint at its inverse bind), skinned on first use.
    pub fn bind_pose(&self) -> &Workspace {
        self.session.bind_pose()
    }

    /// How many clips the file (with its `--anim` files) has: the clip list without the
    /// `all` entry.
    pub fn file_clips(&self) -> usize {
        self.session.file_clips()
    }

    /// Where clip `c` is in the clip list, for titles: `walk (1/2)`, `all (2 clips at once)`.
    pub fn clip_place(&self, c: usize) -> String {
        let n = self.file_clips();
        let rig = &self.session.rig;
        if c >= n {
            format!("{} ({n} clips at once)", rig.clip_label(c))
        } else {
            format!("{} ({}/{n})", rig.clip_label(c), c + 1)
        }
    }

    /// The selected node, if any.
    pub fn selected(&self) -> Option<usize> {
        self.selection.selected()
    }

    /// The selected node's position in the current skin's joint list.
    pub fn selected_joint(&self) -> Option<usize> {
        self.selection.selected_joint(&self.session.rig)
    }

    /// The user's zoom: how much closer than the framing distance the camera is (1 when framed).
    pub fn zoom(&self) -> f32 {
        self.view.zoom()
    }

    /// Whether playback advances on ticks.
    pub fn is_playing(&self) -> bool {
        self.player.is_playing()
    }

    /// One frame: `--step`, else the clip's frame length from its keys (`FrameGrid::of`).
    pub fn frame_step(&self) -> f32 {
        self.player.frame_step()
    }

    /// Key times of the selected bone's channels in the current clip (all channels if none).
    pub fn key_times(&self) -> Vec<f32> {
        self.player.key_times(&self.session.rig, self.selected())
    }

    /// "210 ACCESSOR_WEIGHTS_NON_NORMALIZED, 2 RIG_JOINT_UNUSED" (or "no problems").
    pub fn problems_summary(&self) -> String {
        let diag = &self.session.diag;
        if diag.counts.is_empty() {
            return "no weight or skin problems".into();
        }
        let parts: Vec<String> = diag.counts.iter().map(|(code, n)| format!("{n} {code}")).collect();
        parts.join(", ")
    }
}
