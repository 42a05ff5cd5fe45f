//! The viewer's state and the one place that changes it: `App::update(action)`.
//!
//! `update` never reads the clock or the terminal: time arrives as `Action::Tick(dt)`, so a
//! test can drive the app with a key sequence and get the same screen every time.

#[cfg(test)]
mod all_entry;
mod reload;

use std::time::Instant;

use glam::Vec3;

use super::action::{Action, Focus, PromptKind};
use super::clip_picker::ClipPicker;
use super::frames::FrameGrid;
use super::problems::{ProblemVertex, problem_vertices};
use super::prompt::Prompt;
use super::tree::BoneTree;
use super::weights::{BoneWeights, VertexRef};
use crate::anim::{Engine, LoopMode, Playback, Workspace};
use crate::render::{Camera, ColorDepth, DrawMode, GlyphMode, framed_camera};
use crate::rig::Rig;

pub use reload::{FileNote, changes};

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

/// Viewport toggles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    pub mode: GlyphMode,
    pub draw: DrawMode,
    pub bones: bool,
    pub names: bool,
    pub ghost: bool,
    /// A library clip's own skeleton beside the character (`L`).
    pub source_ghost: bool,
    pub heatmap: bool,
    /// Every problem vertex marked in the viewport, by severity.
    pub marks: bool,
}

/// Time spent per pipeline stage in one frame: the stages `rigscope bench` reports.
/// `evaluate` returns sample, pose and skin (summed over the weights preview's second
/// workspace when one is shown; 0 when the pose did not change), the event loop adds the
/// rest and stores the whole in `App::timings` once the frame is out.
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

pub const SPEEDS: [f32; 12] = [-4.0, -2.0, -1.0, -0.5, -0.25, -0.1, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0];

pub struct App {
    pub rig: Rig,
    pub ws: Workspace,
    /// The bind pose for the ghost, evaluated the first time the ghost is drawn (a whole
    /// skinned copy of the mesh that most sessions never show; see `bind_pose`).
    bind: std::sync::OnceLock<Workspace>,
    pub playback: Playback,
    pub clip: Option<usize>,
    pub skin: Option<usize>,
    pub tree: BoneTree,
    pub focus: Focus,
    pub camera: Camera,
    pub view: View,
    /// The render mode to restore when the heatmap is turned off.
    pub mode_before_heatmap: Option<GlyphMode>,
    pub color: ColorDepth,
    pub fps: u32,
    pub weights: BoneWeights,
    pub vertex: Option<VertexRef>,
    /// Whose weights the viewport draws (`p` cycles `Engine::ALL`); `Stored` by default.
    pub engine: Engine,
    /// The pose skinned with `engine`'s influences (None for `Stored`); the viewport draws
    /// it over a ghost of the stored-weights result.
    pub engine_ws: Option<Workspace>,
    /// `--springs`: the spring bones, stepped by a fixed dt from the clip's start to the
    /// playback time (time going back, a seek back or a loop, starts them again).
    pub springs: Option<crate::vrm::Stepper>,
    /// Index into `vertex_problems` of the weights panel's cursor.
    pub problem: usize,
    /// Every diagnostic of the rig (`rigscope check`'s rules), computed once at start.
    pub diag: crate::diagnose::Report,
    /// Every vertex a weight rule flags, worst first: the weights panel's list, the
    /// viewport's marks and what `e` / `E` walk.
    pub vertex_problems: Vec<ProblemVertex>,
    pub show_help: bool,
    /// First line of the help overlay shown (clamped when drawn).
    pub help_scroll: u16,
    pub show_stats: bool,
    /// The last frame that was completely drawn: the status bar shows it whole, rather than
    /// this frame's stages beside the previous frame's raster and total.
    pub timings: Timings,
    /// One line of feedback for the status bar ("no keys on this bone").
    pub message: Option<String>,
    pub quit: bool,
    /// Something visible changed: redraw.
    pub dirty: bool,
    /// The pose must be evaluated again before drawing.
    pub pose_dirty: bool,
    /// Per node: animated by the current clip.
    pub animated: Vec<bool>,
    /// Per node: a joint of the current skin that no vertex weights.
    pub unweighted: Vec<bool>,
    /// Rest-pose world matrices (for "IBM * bind world" in the details panel).
    pub rest_globals: Vec<glam::Mat4>,
    /// Rows the bone tree showed in the last draw (for page up/down).
    pub tree_page: usize,
    /// First line of the details panel shown (clamped when drawn).
    pub details_scroll: u16,
    /// The largest useful `details_scroll` in the last draw (the panel writes it; no
    /// limit before the first draw).
    pub details_max: std::sync::atomic::AtomicU16,
    /// The same two for the focused weights panel's part below its problem list.
    pub weights_scroll: u16,
    pub weights_max: std::sync::atomic::AtomicU16,
    /// Values with every digit (`{:?}` of the f32) instead of 3 or 4 decimals.
    pub full_precision: bool,
    /// A line being typed at the bottom of the screen.
    pub prompt: Option<Prompt>,
    /// Text for the terminal's clipboard: the event loop sends it (OSC 52) and clears it.
    pub clipboard: Option<String>,
    /// The tree shows every node of the file rather than the current skin's bones.
    pub show_nodes: bool,
    /// The keyframes panel plots this one of the selected bone's channels (None: the dope sheet).
    pub curves: Option<usize>,
    /// Rotation curves as Euler angles (`ui::curves::EULER`) rather than quaternion components.
    pub euler: bool,
    /// The viewport's size in cells as last drawn (for the `rigscope render` command line).
    pub viewport_cells: (u16, u16),
    /// The current clip's frame grid (what `,` and `.` step by, and timeline clicks land on).
    pub frames: FrameGrid,
    /// `--step`, kept for every clip the user moves to.
    pub step: Option<f64>,
    /// The camera distance that frames the rig (zoom 1), for the viewport's title.
    pub framed_distance: f32,
    /// `--compare B`: the second rig, posed with the first.
    pub compare: Option<crate::tui::compare::Compare>,
    /// What the last live reload changed, or why it failed (kept until the next one).
    pub file_note: Option<FileNote>,
    /// The character's file and the `--anim` files, which `M` merges into a new file.
    pub file: Option<std::path::PathBuf>,
    pub anims: Option<crate::attach::AnimSet>,
    /// The last clip is the viewer's `all` entry (every clip at once), not one of the file's.
    pub all_entry: bool,
    /// The clip picker's overlay, while it is open (`K`).
    pub picker: Option<ClipPicker>,
    /// A VRM avatar's expression held by hand (`X`, `(` `)`); None for other files.
    pub expression: Option<super::expression::ManualExpression>,
}

impl App {
    pub fn new(mut rig: Rig, launch: &Launch) -> App {
        // The clip list ends with `all` (every clip of the file at once) when there are
        // several to combine or `--clip all` asked for it. It joins the list after the
        // checks, so that they speak only of the file's clips.
        let offer_all = rig.own_clips().nth(1).is_some() || launch.clip == Some(rig.clips.len());
        let all = if offer_all && rig.plays_all(crate::rig::ALL_CLIPS) { rig.all_clips() } else { None };
        // An --anim file that adds nothing is said where the user looks (until the next key).
        let message = (!rig.anim_warnings.is_empty()).then(|| rig.anim_warnings.join("; "));
        let clip = launch.clip.or(if rig.clips.is_empty() { None } else { Some(0) });
        let clip_data = clip.and_then(|c| rig.clips.get(c).or(all.as_ref()));
        let duration = clip_data.map_or(0.0, |c| c.duration);
        let mut playback = Playback::new(duration);
        playback.seek(launch.time);
        playback.paused = launch.paused || duration <= 0.0;
        let skin = if rig.skins.is_empty() { None } else { Some(0) };
        let tree = BoneTree::new(&rig, skin);
        // The weight checks and the skinned pose are independent reads of the rig: on two
        // cores they overlap, which is most of the wait before the first frame.
        let (ws, diag) = rayon::join(
            || Workspace::at(&rig, clip_data, playback.time),
            || crate::diagnose::check(&rig, &crate::diagnose::Options::default()),
        );
        let all_entry = all.is_some();
        rig.clips.extend(all);
        let clip = clip.filter(|&c| c < rig.clips.len());
        let rest_globals = rig.rest_world();
        // A three-quarter view from slightly above reads better than a flat front view.
        let camera = framed_camera(
            &ws,
            crate::render::OPENING_YAW_DEGREES.to_radians(),
            crate::render::OPENING_PITCH_DEGREES.to_radians(),
            1.0,
        );
        let compare = launch.compare.clone().map(|b| {
            let mut compare = crate::tui::compare::Compare::new(&rig, b);
            compare.evaluate(&rig, clip, playback.time);
            compare
        });
        let mut app = App {
            ws,
            bind: std::sync::OnceLock::new(),
            playback,
            clip,
            skin,
            tree,
            focus: Focus::Bones,
            camera,
            mode_before_heatmap: None,
            view: View {
                mode: launch.mode,
                draw: DrawMode::Shaded,
                bones: true,
                names: false,
                ghost: false,
                source_ghost: false,
                heatmap: false,
                marks: true,
            },
            color: launch.color,
            fps: launch.fps.clamp(1, 120),
            weights: BoneWeights::default(),
            vertex: None,
            engine: Engine::Stored,
            engine_ws: None,
            springs: launch.spring_dt.map(crate::vrm::Stepper::new),
            problem: 0,
            diag,
            vertex_problems: Vec::new(),
            show_help: false,
            help_scroll: 0,
            show_stats: false,
            timings: Timings::default(),
            message,
            quit: false,
            dirty: true,
            pose_dirty: false,
            tree_page: 10,
            compare,
            animated: Vec::new(),
            unweighted: Vec::new(),
            rest_globals,
            details_scroll: 0,
            details_max: std::sync::atomic::AtomicU16::new(u16::MAX),
            weights_scroll: 0,
            weights_max: std::sync::atomic::AtomicU16::new(u16::MAX),
            full_precision: false,
            prompt: None,
            clipboard: None,
            show_nodes: false,
            curves: None,
            euler: false,
            viewport_cells: (120, 40),
            frames: FrameGrid::for_clip(clip.and_then(|c| rig.clips.get(c)), launch.step),
            step: launch.step,
            framed_distance: camera.distance,
            file_note: None,
            file: launch.file.clone(),
            anims: launch.anims.clone(),
            all_entry,
            picker: None,
            expression: super::expression::ManualExpression::of(&rig),
            rig,
        };
        app.vertex_problems = problem_vertices(&app.diag, &app.ws);
        app.refresh_clip_info();
        app.refresh_skin();
        if launch.engine != Engine::Stored {
            app.show_engine(launch.engine);
        }
        app
    }

    /// The bind pose (every joint at its inverse bind), skinned on first use.
    pub fn bind_pose(&self) -> &Workspace {
        self.bind.get_or_init(|| {
            let mut bind = Workspace::new(&self.rig);
            bind.evaluate_bind(&self.rig);
            bind
        })
    }

    /// How many clips the file (with its `--anim` files) has: the clip list without the
    /// `all` entry.
    pub fn file_clips(&self) -> usize {
        self.rig.clips.len() - usize::from(self.all_entry)
    }

    /// Where clip `c` is in the clip list, for titles: `walk (1/2)`, `all (2 clips at once)`.
    pub fn clip_place(&self, c: usize) -> String {
        let n = self.file_clips();
        if c >= n {
            format!("{} ({n} clips at once)", self.rig.clip_label(c))
        } else {
            format!("{} ({}/{n})", self.rig.clip_label(c), c + 1)
        }
    }

    /// The selected node, if any.
    pub fn selected(&self) -> Option<usize> {
        self.tree.selected
    }

    /// The selected node's position in the current skin's joint list.
    pub fn selected_joint(&self) -> Option<usize> {
        let node = self.selected()?;
        self.skin.and_then(|s| self.rig.skins.get(s)).and_then(|s| s.joints.iter().position(|&j| j == node))
    }

    /// The user's zoom: how much closer than the framing distance the camera is (1 when framed).
    pub fn zoom(&self) -> f32 {
        let z = self.framed_distance / self.camera.distance;
        if z.is_finite() && z > 0.0 { z } else { 1.0 }
    }

    /// Whether playback advances on ticks.
    pub fn is_playing(&self) -> bool {
        !self.playback.paused && self.playback.duration > 0.0
    }

    /// Applies one action. Time only moves through `Action::Tick`.
    pub fn update(&mut self, action: Action) {
        self.message = None;
        // A reload's summary is read once; a broken file's error stays until a good load.
        if !matches!(action, Action::Tick(_) | Action::Redraw)
            && self.file_note.as_ref().is_some_and(|n| !n.error)
        {
            self.file_note = None;
        }
        let before = (self.playback.time, self.clip, self.engine);
        match action {
            Action::Tick(dt) => {
                if !self.is_playing() {
                    return;
                }
                self.playback.advance(dt);
            }
            Action::Redraw => {}
            Action::Quit => self.quit = true,
            Action::ToggleHelp => {
                self.show_help = !self.show_help;
                self.help_scroll = 0;
            }
            Action::HelpScroll(n) => self.help_scroll = self.help_scroll.saturating_add_signed(n),
            Action::Escape => {
                if self.show_help {
                    self.show_help = false;
                } else if !self.tree.filter.is_empty() {
                    self.tree.filter.clear();
                    self.tree.rebuild(&self.rig);
                }
            }
            Action::ToggleStats => self.show_stats = !self.show_stats,
            Action::CycleExpression | Action::ExpressionWeight(_) => self.hold_expression(action),
            Action::FocusNext => {
                let i = Focus::ALL.iter().position(|&f| f == self.focus).unwrap_or(0);
                self.focus = Focus::ALL[(i + 1) % Focus::ALL.len()];
            }
            Action::Focus(f) => self.focus = f,
            Action::TogglePlay => {
                if self.playback.duration <= 0.0 {
                    self.message = Some("nothing to play: no clip with keys".into());
                } else {
                    // Replaying a finished `once` clip starts it over.
                    if self.playback.paused && self.playback.mode == LoopMode::Once && self.at_end() {
                        self.playback.seek(if self.playback.speed < 0.0 {
                            self.playback.duration
                        } else {
                            0.0
                        });
                    }
                    self.playback.paused = !self.playback.paused;
                }
            }
            Action::StepFrames(n) => {
                self.playback.paused = true;
                self.playback.seek(self.frames.stepped(self.playback.time, n));
            }
            Action::PrevKey => self.jump_key(false),
            Action::NextKey => self.jump_key(true),
            Action::JumpStart => self.playback.seek(0.0),
            Action::JumpEnd => self.playback.seek(self.playback.duration),
            Action::SpeedUp => self.change_speed(1),
            Action::SpeedDown => self.change_speed(-1),
            Action::CycleLoop => {
                self.playback.mode = match self.playback.mode {
                    LoopMode::Loop => LoopMode::Once,
                    LoopMode::Once => LoopMode::PingPong,
                    LoopMode::PingPong => LoopMode::Loop,
                }
            }
            Action::NextClip => self.cycle_clip(1),
            Action::PrevClip => self.cycle_clip(-1),
            Action::Seek(t) => {
                self.playback.paused = true;
                self.playback.seek(t);
            }
            Action::NextSkin => self.step_skin(1),
            Action::PrevSkin => self.step_skin(-1),
            Action::SelectUp => self.move_selection(-1),
            Action::SelectDown => self.move_selection(1),
            Action::SelectPageUp => self.move_selection(-(self.tree_page.max(1) as isize)),
            Action::SelectPageDown => self.move_selection(self.tree_page.max(1) as isize),
            Action::SelectRow(r) => {
                self.tree.select_row(r);
                self.refresh_selection();
            }
            Action::SelectNode(node) => {
                self.focus = Focus::Keys;
                if self.tree.reveal(&self.rig, node) {
                    self.refresh_selection();
                } else {
                    self.message = Some(format!(
                        "{} is not in this skin's tree (N lists every node)",
                        self.rig.node_label(node)
                    ));
                }
            }
            Action::Collapse => {
                self.tree.collapse(&self.rig);
                self.refresh_selection();
            }
            Action::Expand => self.tree.expand(&self.rig),
            Action::ToggleCollapse => self.tree.toggle(&self.rig),
            Action::StartFilter => {
                self.tree.filtering = true;
                self.focus = Focus::Bones;
            }
            Action::FilterChar(c) => {
                self.tree.filter.push(c);
                self.tree.rebuild(&self.rig);
                self.refresh_selection();
            }
            Action::FilterBackspace => {
                self.tree.filter.pop();
                self.tree.rebuild(&self.rig);
                self.refresh_selection();
            }
            Action::FilterAccept => self.tree.filtering = false,
            Action::FilterCancel => {
                self.tree.filtering = false;
                self.tree.filter.clear();
                self.tree.rebuild(&self.rig);
            }
            Action::Orbit { yaw, pitch } => self.camera.orbit(yaw.to_radians(), pitch.to_radians()),
            Action::Zoom(f) => self.camera.zoom(f),
            Action::Pan { x, y } => self.camera.pan(x, y),
            Action::Reframe => {
                let (yaw, pitch) = (self.camera.yaw, self.camera.pitch);
                self.camera = framed_camera(&self.ws, yaw, pitch, 1.0);
                self.framed_distance = self.camera.distance;
            }
            Action::RenderBraille => self.view.mode = GlyphMode::Braille,
            Action::RenderHalfBlock => self.view.mode = GlyphMode::HalfBlock,
            Action::RenderAscii => self.view.mode = GlyphMode::Ascii,
            Action::CycleColor => {
                self.color = self.color.next();
                self.message = Some(format!("colours: {}", self.color.label()));
            }
            Action::CycleDrawMode => {
                self.view.draw = match self.view.draw {
                    DrawMode::Shaded => DrawMode::Wireframe,
                    DrawMode::Wireframe => DrawMode::Points,
                    DrawMode::Points => DrawMode::Shaded,
                }
            }
            Action::ToggleBones => self.view.bones = !self.view.bones,
            Action::ToggleNames => {
                if self.view.bones {
                    self.view.names = !self.view.names;
                } else {
                    // Names are drawn at the skeleton's joints: with the skeleton hidden, `n`
                    // did nothing visible. Asking for names brings the skeleton back.
                    self.view.bones = true;
                    self.view.names = true;
                    self.message = Some("skeleton shown with its names (b hides it)".into());
                }
            }
            Action::ToggleGhost => self.view.ghost = !self.view.ghost,
            Action::ToggleSourceGhost => self.view.source_ghost = !self.view.source_ghost,
            Action::ToggleHeatmap => {
                // Weights read best as colours: the heatmap draws in half blocks, and turning
                // it off goes back to the mode the user had.
                self.view.heatmap = !self.view.heatmap;
                if self.view.heatmap {
                    self.mode_before_heatmap = Some(self.view.mode);
                    self.view.mode = GlyphMode::HalfBlock;
                } else if let Some(m) = self.mode_before_heatmap.take() {
                    self.view.mode = m;
                }
            }
            Action::NextVertex => self.cycle_vertex(1),
            Action::PrevVertex => self.cycle_vertex(-1),
            Action::NearestVertex => self.pick_nearest_vertex(),
            Action::ProblemUp => self.walk_problems(-1, false),
            Action::ProblemDown => self.walk_problems(1, false),
            // From anywhere: the weights panel takes focus, as it says what is wrong.
            Action::NextProblem => {
                self.focus = Focus::Weights;
                self.walk_problems(1, true);
            }
            Action::PrevProblem => {
                self.focus = Focus::Weights;
                self.walk_problems(-1, true);
            }
            Action::JumpToProblem => self.jump_to_problem(),
            Action::ToggleMarks => {
                self.view.marks = !self.view.marks;
                if self.view.marks && self.vertex_problems.is_empty() {
                    self.message = Some("no problem vertices to mark".into());
                }
            }
            Action::CycleEngine(dir) => {
                let all = Engine::ALL;
                let i = all.iter().position(|&e| e == self.engine).unwrap_or(0) as isize;
                self.show_engine(all[(i + dir).rem_euclid(all.len() as isize) as usize]);
            }
            // The focused weights panel takes the details panel's column, and its keys.
            Action::ScrollDetails(n) if self.focus == Focus::Weights => {
                let max = self.weights_max.load(std::sync::atomic::Ordering::Relaxed);
                self.weights_scroll = self.weights_scroll.min(max).saturating_add_signed(n).min(max);
            }
            Action::ScrollDetails(n) => {
                let max = self.details_max.load(std::sync::atomic::Ordering::Relaxed);
                self.details_scroll = self.details_scroll.min(max).saturating_add_signed(n).min(max);
            }
            Action::TogglePrecision => self.full_precision = !self.full_precision,
            Action::Copy => self.copy(),
            Action::RenderCommand => {
                let (cols, rows) = self.viewport_cells;
                let (cmd, lost) = super::copy::render_command(self, cols, rows);
                let note = if lost.is_empty() {
                    String::new()
                } else {
                    format!(" (not reproduced: {})", lost.join(", "))
                };
                self.message = Some(format!("copied{note}: {cmd}"));
                self.clipboard = Some(cmd);
            }
            Action::StartPrompt(PromptKind::Merge) => self.start_merge_prompt(),
            Action::StartPrompt(kind) => {
                if kind == PromptKind::Skin && self.rig.skins.len() < 2 {
                    let n = self.rig.skins.len();
                    self.message =
                        Some(format!("{} in this file", crate::tui::ui::count(n, "skin", "skins")));
                } else {
                    self.prompt = Some(Prompt::new(kind));
                }
            }
            Action::PromptChar(c) => {
                if let Some(p) = &mut self.prompt {
                    p.text.push(c);
                }
            }
            Action::PromptBackspace => {
                if let Some(p) = &mut self.prompt {
                    p.text.pop();
                }
            }
            Action::PromptCancel => self.prompt = None,
            Action::PromptAccept => {
                if let Some(p) = self.prompt.take() {
                    self.accept_prompt(&p);
                }
            }
            Action::ResetSpeed => self.playback.speed = 1.0,
            Action::ToggleNodes => {
                if self.rig.skins.is_empty() {
                    self.message = Some("no skin in this file: the tree already lists every node".into());
                } else {
                    self.show_nodes = !self.show_nodes;
                    self.rebuild_tree();
                    self.refresh_selection();
                }
            }
            Action::ToggleClipPicker => {
                self.picker = match self.picker {
                    Some(_) => None,
                    None if self.rig.clips.is_empty() => {
                        self.message = Some("this file has no clips".into());
                        None
                    }
                    None => Some(ClipPicker::default()),
                };
            }
            Action::PickerChar(c) => {
                if let Some(p) = &mut self.picker {
                    p.filter.push(c);
                    p.cursor = 0;
                }
            }
            Action::PickerBackspace => {
                if let Some(p) = &mut self.picker {
                    p.filter.pop();
                    p.cursor = 0;
                }
            }
            Action::PickerMove(delta) => {
                if let Some(p) = &mut self.picker {
                    let n = p.entries(&self.rig).len();
                    p.move_cursor(delta, n);
                }
            }
            Action::PickerAccept => {
                if let Some(p) = &self.picker {
                    match p.chosen(&self.rig) {
                        Some(clip) => {
                            self.picker = None;
                            self.switch_clip(Some(clip));
                        }
                        None => self.message = Some(format!("no clip matches '{}'", p.filter)),
                    }
                }
            }
            Action::ToggleEuler => {
                self.euler = !self.euler;
                if self.curves.is_none() {
                    self.message = Some(format!(
                        "rotation curves as {} (G shows the curves)",
                        if self.euler { "Euler angles" } else { "quaternion components" }
                    ));
                }
            }
            Action::ToggleCurves => {
                // Each press plots the bone's next channel; after the last, the dope sheet.
                let sel = self.selected();
                let n = self
                    .clip
                    .and_then(|c| self.rig.clips.get(c))
                    .map_or(0, |c| c.channels.iter().filter(|ch| Some(ch.node) == sel).count());
                self.curves = match self.curves {
                    None => Some(0),
                    Some(i) if i + 1 < n => Some(i + 1),
                    Some(_) => None,
                };
            }
        }
        if (self.playback.time, self.clip, self.engine) != before {
            self.pose_dirty = true;
        }
        self.dirty = true;
    }

    /// `X` picks the expression to hold, `(` `)` move its weight; the status line says which.
    fn hold_expression(&mut self, action: Action) {
        let Some(held) = &mut self.expression else {
            self.message = Some("no VRM expressions in this file".into());
            return;
        };
        match action {
            Action::CycleExpression => held.cycle(),
            Action::ExpressionWeight(steps) => held.step(steps),
            _ => {}
        }
        self.message = Some(held.status());
        self.pose_dirty = true;
    }

    /// Re-evaluates the pose when playback moved. Called by the loop before drawing; it
    /// returns the time its stages took, for the status bar (the only clock it reads).
    pub fn evaluate(&mut self) -> Timings {
        let mut timings = Timings::default();
        if self.pose_dirty {
            let clip = self.clip.and_then(|c| self.rig.clips.get(c));
            let (rig, t) = (&self.rig, self.playback.time);
            let held = self.expression.as_ref();
            let hold = |ws: &mut Workspace| {
                if let Some(held) = held {
                    held.apply(clip, t, &mut ws.pose);
                }
            };
            match self.springs.as_mut() {
                Some(stepper) => {
                    let sample = |ws: &mut Workspace| {
                        stepper.advance_to(rig, clip, f64::from(t), ws);
                        hold(ws);
                    };
                    evaluate_timed(&mut self.ws, rig, sample, &mut timings);
                    if let Some(ws) = &mut self.engine_ws {
                        let pose = &self.ws.pose;
                        evaluate_timed(ws, rig, |w: &mut Workspace| w.pose.clone_from(pose), &mut timings);
                    }
                }
                None => {
                    evaluate_timed(
                        &mut self.ws,
                        rig,
                        |ws: &mut Workspace| {
                            ws.sample_pose(rig, clip, t);
                            hold(ws);
                        },
                        &mut timings,
                    );
                    if let Some(ws) = &mut self.engine_ws {
                        evaluate_timed(
                            ws,
                            rig,
                            |w: &mut Workspace| {
                                w.sample_pose(rig, clip, t);
                                hold(w);
                            },
                            &mut timings,
                        );
                    }
                }
            }
            if let Some(compare) = &mut self.compare {
                compare.evaluate(&self.rig, self.clip, self.playback.time);
            }
            self.pose_dirty = false;
        }
        timings
    }

    fn at_end(&self) -> bool {
        let t = self.playback.time;
        if self.playback.speed < 0.0 { t <= 0.0 } else { t >= self.playback.duration }
    }

    /// One frame: `--step`, else the clip's frame length from its keys (`FrameGrid::of`).
    pub fn frame_step(&self) -> f32 {
        self.frames.step as f32
    }

    fn change_speed(&mut self, dir: i32) {
        let cur = self.playback.speed;
        let idx = SPEEDS.iter().position(|&s| (s - cur).abs() < 1e-6).unwrap_or(9) as i32;
        let next = (idx + dir).clamp(0, SPEEDS.len() as i32 - 1) as usize;
        self.playback.speed = SPEEDS[next];
    }

    fn cycle_clip(&mut self, dir: isize) {
        let n = self.rig.clips.len();
        if n == 0 {
            self.message = Some("this file has no clips".into());
            return;
        }
        // The clips, then the rest pose (no clip) as one more entry.
        let cur = self.clip.unwrap_or(n) as isize;
        let next = (cur + dir).rem_euclid(n as isize + 1) as usize;
        self.switch_clip((next < n).then_some(next));
    }

    /// Plays `clip` (None: the rest pose) from its start, keeping the speed, loop mode and
    /// whether playback was paused.
    fn switch_clip(&mut self, clip: Option<usize>) {
        self.clip = clip;
        let was_paused = self.playback.paused;
        let (speed, mode) = (self.playback.speed, self.playback.mode);
        let duration = self.clip.map_or(0.0, |c| self.rig.clips[c].duration);
        self.playback = Playback::new(duration);
        self.playback.speed = speed;
        self.playback.mode = mode;
        self.playback.paused = was_paused || self.playback.duration <= 0.0;
        self.refresh_clip_info();
    }

    /// Which nodes the current clip animates, and its frame grid.
    fn refresh_clip_info(&mut self) {
        self.frames = FrameGrid::for_clip(self.clip.and_then(|c| self.rig.clips.get(c)), self.step);
        self.animated = vec![false; self.rig.nodes.len()];
        if let Some(clip) = self.clip.and_then(|c| self.rig.clips.get(c)) {
            for node in clip.moved_nodes() {
                if let Some(a) = self.animated.get_mut(node) {
                    *a = true;
                }
            }
        }
    }

    /// Recomputes what depends on the current skin: which of its joints no vertex weights,
    /// and the selected bone's weights. Both are whole-mesh scans (milliseconds on a
    /// 200k-vertex rig, before its first frame): they run side by side on the pool.
    pub(super) fn refresh_skin(&mut self) {
        let joint = self.selected_joint();
        let (unweighted, weights) = rayon::join(
            || unweighted_nodes(&self.rig, &self.ws, self.skin),
            || BoneWeights::compute(&self.rig, &self.ws, self.skin, joint),
        );
        self.unweighted = unweighted;
        self.set_weights(weights);
    }

    /// Key times of the selected bone's channels in the current clip (all channels if none).
    pub fn key_times(&self) -> Vec<f32> {
        let Some(clip) = self.clip.and_then(|c| self.rig.clips.get(c)) else { return Vec::new() };
        let sel = self.selected();
        let mine: Vec<&crate::rig::Channel> = clip.channels.iter().filter(|c| Some(c.node) == sel).collect();
        let chans: Vec<&crate::rig::Channel> =
            if mine.is_empty() { clip.channels.iter().collect() } else { mine };
        let mut times: Vec<f32> =
            chans.iter().flat_map(|c| c.times.iter().copied()).filter(|t| t.is_finite()).collect();
        times.sort_by(f32::total_cmp);
        times.dedup_by(|a, b| (*a - *b).abs() < 1e-5);
        times
    }

    fn jump_key(&mut self, forward: bool) {
        let times = self.key_times();
        let t = self.playback.time;
        let target = if forward {
            times.iter().copied().find(|&k| k > t + 1e-5)
        } else {
            times.iter().rev().copied().find(|&k| k < t - 1e-5)
        };
        match target {
            Some(k) => {
                self.playback.paused = true;
                self.playback.seek(k);
            }
            None => self.message = Some(if forward { "no later key" } else { "no earlier key" }.into()),
        }
    }

    fn move_selection(&mut self, delta: isize) {
        self.tree.move_selection(delta);
        self.refresh_selection();
    }

    /// Recomputes what depends on the selected bone (its weight statistics and vertex).
    fn refresh_selection(&mut self) {
        // Another bone's details start at the top (its name), not where the last one was.
        self.details_scroll = 0;
        self.set_weights(BoneWeights::compute(&self.rig, &self.ws, self.skin, self.selected_joint()));
    }

    fn set_weights(&mut self, weights: BoneWeights) {
        self.weights = weights;
        self.vertex = self.weights.vertices.first().copied();
    }

    fn cycle_vertex(&mut self, dir: isize) {
        let list = &self.weights.vertices;
        if list.is_empty() {
            self.message = Some("the selected bone influences no vertex".into());
            return;
        }
        let cur = self.vertex.and_then(|v| list.iter().position(|&x| x == v)).map_or(-1, |i| i as isize);
        let next = (cur + dir).rem_euclid(list.len() as isize) as usize;
        self.vertex = Some(list[next]);
    }

    fn pick_nearest_vertex(&mut self) {
        let Some(node) = self.selected() else { return };
        let at = self.ws.globals.get(node).map(|m| m.w_axis.truncate()).unwrap_or(Vec3::ZERO);
        self.vertex = self.weights.nearest(&self.ws, at);
        if self.vertex.is_none() {
            self.message = Some("the selected bone influences no vertex".into());
        }
    }

    /// Draws with `engine`'s influences and says so in the status line.
    fn show_engine(&mut self, engine: Engine) {
        self.set_engine(engine);
        self.message = Some(match engine.refusal(&self.rig) {
            Some(why) => format!(
                "engine: {} would not import this file ({why}); drawn as stored (p/P: next/previous)",
                engine.label()
            ),
            None => format!("engine: {} (p/P: next/previous)", engine.label()),
        });
    }

    /// Draws with `engine`'s influences (a second workspace skinned with them; none for
    /// `Stored`, which is the main workspace itself).
    pub(super) fn set_engine(&mut self, engine: Engine) {
        self.engine = engine;
        // An engine that would not load the file draws nothing of it; the stored weights stay.
        let drawn = engine != Engine::Stored && engine.refusal(&self.rig).is_none();
        self.engine_ws = drawn.then(|| {
            let clip = self.clip.and_then(|c| self.rig.clips.get(c));
            let mut ws = Workspace::at(&self.rig, clip, self.playback.time);
            ws.set_engine(&self.rig, engine);
            ws
        });
    }

    /// Moves the problem cursor by `dir` (wrapping round when `wrap`, else stopping at the
    /// ends) and selects that vertex: walking the list shows each problem at once.
    fn walk_problems(&mut self, dir: isize, wrap: bool) {
        let n = self.vertex_problems.len();
        if n == 0 {
            self.message = Some("no problem vertices: every weight passes".into());
            return;
        }
        let cur = self.problem.min(n - 1) as isize;
        // The first `e` shows the problem under the cursor (the worst, at start) rather
        // than stepping past it.
        let on_cursor = self.vertex_problems.get(cur as usize).is_some_and(|p| {
            p.prim.is_some_and(|prim| self.vertex == Some(VertexRef { prim, vertex: p.vertex }))
        });
        let dir = if wrap && !on_cursor { 0 } else { dir };
        self.problem = if wrap {
            (cur + dir).rem_euclid(n as isize) as usize
        } else {
            (cur + dir).clamp(0, n as isize - 1) as usize
        };
        self.jump_to_problem();
    }

    /// Selects the vertex of the problem under the cursor, and a joint it uses in the tree.
    fn jump_to_problem(&mut self) {
        let Some(p) = self.vertex_problems.get(self.problem).cloned() else {
            self.message = Some("no vertex problem to jump to".into());
            return;
        };
        let (mesh, primitive) = (p.mesh, p.primitive);
        let Some(prim) = p.prim else {
            self.message = Some(format!("mesh {mesh} primitive {primitive} is not drawn by any node"));
            return;
        };
        let Some(vf) =
            p.findings.first().and_then(|&i| self.diag.findings.get(i)).and_then(|f| f.vertex.clone())
        else {
            return;
        };
        // Select the joint with the largest weight so that the tree, heatmap and weights
        // agree; an index past the skin's joints (the problem itself, perhaps) cannot be
        // selected, so the heaviest joint that exists wins.
        let skin = self.ws.primitives[prim].skin;
        let joints = skin.and_then(|s| self.rig.skins.get(s)).map_or(&[][..], |k| &k.joints[..]);
        let best = vf
            .joints
            .iter()
            .zip(&vf.weights)
            .filter(|&(&j, w)| w.is_finite() && (j as usize) < joints.len())
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(&j, _)| j as usize);
        if let (Some(s), Some(j)) = (skin, best)
            && let Some(&node) = joints.get(j)
        {
            let new_skin = self.skin != Some(s);
            if new_skin {
                self.skin = Some(s);
                self.tree = BoneTree::new(&self.rig, self.skin);
            }
            self.tree.filter.clear();
            self.tree.rebuild(&self.rig);
            self.tree.selected = Some(node);
            if new_skin { self.refresh_skin() } else { self.refresh_selection() }
        }
        self.vertex = Some(VertexRef { prim, vertex: vf.vertex });
        self.weights_scroll = 0;
    }

    /// "210 ACCESSOR_WEIGHTS_NON_NORMALIZED, 2 RIG_JOINT_UNUSED" (or "no problems").
    pub fn problems_summary(&self) -> String {
        if self.diag.counts.is_empty() {
            return "no weight or skin problems".into();
        }
        let parts: Vec<String> = self.diag.counts.iter().map(|(code, n)| format!("{n} {code}")).collect();
        parts.join(", ")
    }
}

/// `Workspace::evaluate`'s three stages, each timed for the status bar; `sample` fills the
/// pose (the clip sampled, with the spring bones stepped under `--springs`).
fn evaluate_timed(ws: &mut Workspace, rig: &Rig, sample: impl FnOnce(&mut Workspace), timings: &mut Timings) {
    let ms = |since: Instant| since.elapsed().as_secs_f32() * 1000.0;
    let started = Instant::now();
    sample(ws);
    timings.sample_ms += ms(started);
    let started = Instant::now();
    ws.update_matrices(rig);
    timings.pose_ms += ms(started);
    let started = Instant::now();
    ws.skin(rig);
    timings.skin_ms += ms(started);
}

/// Per node, whether it is a joint of `skin` that no vertex of the skin's primitives
/// weights (false for every other node).
fn unweighted_nodes(rig: &Rig, ws: &Workspace, skin: Option<usize>) -> Vec<bool> {
    let mut unweighted = vec![false; rig.nodes.len()];
    let Some(joints) = skin.and_then(|s| rig.skins.get(s)).map(|s| &s.joints) else { return unweighted };
    let mut used = vec![false; joints.len()];
    for dp in ws.primitives.iter().filter(|p| p.skin == skin) {
        let Some(prim) = rig.meshes.get(dp.mesh).and_then(|m| m.primitives.get(dp.primitive)) else {
            continue;
        };
        prim.for_each_influences(|_, slots| {
            for &(j, w) in slots {
                if w != 0.0
                    && let Some(u) = used.get_mut(j as usize)
                {
                    *u = true;
                }
            }
        });
    }
    for (&node, _) in joints.iter().zip(&used).filter(|(_, used)| !**used) {
        if let Some(f) = unweighted.get_mut(node) {
            *f = true;
        }
    }
    unweighted
}
