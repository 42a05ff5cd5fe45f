//! What the viewer derives from the files: the rig (with the clip list's `all` entry), its
//! posed workspaces, its diagnostics, the `--compare` rig and the files `M` writes beside.
//! Built whole on load and on every live reload, by the watcher's thread as well as at start;
//! it holds none of the user's choices, so that a reload cannot lose one.

use std::sync::OnceLock;
use std::time::Instant;

use super::player::Player;
use super::{Launch, Timings};
use crate::anim::{Engine, Workspace};
use crate::rig::Rig;
use crate::tui::compare::Compare;
use crate::tui::expression::ManualExpression;
use crate::tui::problems::{ProblemVertex, problem_vertices};

pub struct Session {
    pub rig: Rig,
    /// The last clip is the viewer's `all` entry (every clip at once), not one of the file's.
    pub all_entry: bool,
    pub ws: Workspace,
    /// The bind pose for the ghost, evaluated the first time the ghost is drawn (a whole
    /// skinned copy of the mesh that most sessions never show; see `bind_pose`).
    bind: OnceLock<Workspace>,
    /// The pose skinned with the chosen engine's influences (None for `Stored`); the viewport
    /// draws it over a ghost of the stored-weights result.
    pub engine_ws: Option<Workspace>,
    /// `--springs`: the spring bones, stepped by a fixed dt from the clip's start to the
    /// playback time (time going back, a seek back or a loop, starts them again).
    pub springs: Option<crate::vrm::Stepper>,
    /// Every diagnostic of the rig (`rigscope check`'s rules).
    pub diag: crate::diagnose::Report,
    /// Every vertex a weight rule flags, worst first: the weights panel's list, the
    /// viewport's marks and what `e` / `E` walk.
    pub vertex_problems: Vec<ProblemVertex>,
    /// Rest-pose world matrices (for "IBM * bind world" in the details panel).
    pub rest_globals: Vec<glam::Mat4>,
    /// `--compare B`: the second rig, posed with the first.
    pub compare: Option<Compare>,
    /// The character's file and the `--anim` files, which `M` merges into a new file.
    pub file: Option<std::path::PathBuf>,
    pub anims: Option<crate::attach::AnimSet>,
}

impl Session {
    /// The session for `rig`, posed at `launch`'s clip and time.
    pub fn new(rig: Rig, launch: &Launch) -> Session {
        Session::open(rig, launch).0
    }

    /// The session and the player that starts it: the clip and time `launch` asks for, which
    /// the first pose is evaluated at.
    pub(super) fn open(mut rig: Rig, launch: &Launch) -> (Session, Player) {
        // The clip list ends with `all` (every clip of the file at once) when there are
        // several to combine or `--clip all` asked for it. It joins the list after the
        // checks, so that they speak only of the file's clips.
        let offer_all = rig.own_clips().nth(1).is_some() || launch.clip == Some(rig.clips.len());
        let all = if offer_all && rig.plays_all(crate::rig::ALL_CLIPS) { rig.all_clips() } else { None };
        let mut player = Player::new(&rig, all.as_ref(), launch);
        let clip_data = player.clip.and_then(|c| rig.clips.get(c).or(all.as_ref()));
        // The weight checks and the skinned pose are independent reads of the rig, and both
        // stand between opening the file and its first frame: they run side by side.
        let (ws, diag) = rayon::join(
            || Workspace::at(&rig, clip_data, player.playback.time),
            || crate::diagnose::check(&rig, &crate::diagnose::Options::default()),
        );
        let all_entry = all.is_some();
        rig.clips.extend(all);
        player.clip = player.clip.filter(|&c| c < rig.clips.len());
        player.refresh(&rig);
        player.expression = ManualExpression::of(&rig);
        let compare = launch.compare.clone().map(|b| {
            let mut compare = Compare::new(&rig, b);
            compare.evaluate(&rig, player.clip, player.playback.time);
            compare
        });
        let session = Session {
            vertex_problems: problem_vertices(&diag, &ws),
            rest_globals: rig.rest_world(),
            ws,
            bind: OnceLock::new(),
            engine_ws: None,
            springs: launch.spring_dt.map(crate::vrm::Stepper::new),
            diag,
            compare,
            file: launch.file.clone(),
            anims: launch.anims.clone(),
            all_entry,
            rig,
        };
        (session, player)
    }

    /// What the `--anim` files added nothing for, said where the user looks (until the next key).
    pub fn warnings(&self) -> Option<String> {
        (!self.rig.anim_warnings.is_empty()).then(|| self.rig.anim_warnings.join("; "))
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

    /// Skins a second workspace with `engine`'s influences at `clip` and `t` (none for
    /// `Stored`, which is the main workspace itself, or for an engine that would not load
    /// the file: it draws nothing of it, and the stored weights stay).
    pub fn set_engine(&mut self, engine: Engine, clip: Option<usize>, t: f32) {
        let drawn = engine != Engine::Stored && engine.refusal(&self.rig).is_none();
        self.engine_ws = drawn.then(|| {
            let clip = clip.and_then(|c| self.rig.clips.get(c));
            let mut ws = Workspace::at(&self.rig, clip, t);
            ws.set_engine(&self.rig, engine);
            ws
        });
    }

    /// Poses every workspace at `clip` and `t`, holding `held` over the clip's expressions,
    /// and returns the time its stages took, for the status bar (the only clock it reads).
    pub fn evaluate(
        &mut self,
        clip_index: Option<usize>,
        t: f32,
        held: Option<&ManualExpression>,
    ) -> Timings {
        let mut timings = Timings::default();
        let clip = clip_index.and_then(|c| self.rig.clips.get(c));
        let rig = &self.rig;
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
            compare.evaluate(&self.rig, clip_index, t);
        }
        timings
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
