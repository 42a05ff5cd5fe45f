//! What is played: the clip (an index into the session's clip list), its playback (time,
//! speed, loop mode, pause), its frame grid, and a VRM expression held by hand. On reload
//! the clip and the expression are found again by name.

use super::session::Session;
use super::{Launch, Status};
use crate::anim::{LoopMode, Playback};
use crate::rig::{Clip, Rig};
use crate::tui::action::Action;
use crate::tui::expression::ManualExpression;
use crate::tui::frames::FrameGrid;
use crate::tui::prompt::{Target, parse_target};

const SPEEDS: [f32; 12] = [-4.0, -2.0, -1.0, -0.5, -0.25, -0.1, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0];

#[derive(Debug, Clone)]
pub struct Player {
    pub playback: Playback,
    pub clip: Option<usize>,
    /// The current clip's frame grid (what `,` and `.` step by, and timeline clicks land on).
    pub frames: FrameGrid,
    /// `--step`, kept for every clip the user moves to.
    pub step: Option<f64>,
    /// Per node: animated by the current clip.
    pub animated: Vec<bool>,
    /// A VRM avatar's expression held by hand (`X`, `(` `)`); None for other files.
    pub expression: Option<ManualExpression>,
}

impl Player {
    /// `launch`'s clip (else the first) at its time; `all` is the clip list's `all` entry,
    /// which joins `rig.clips` after the checks.
    pub(super) fn new(rig: &Rig, all: Option<&Clip>, launch: &Launch) -> Player {
        let clip = launch.clip.or(if rig.clips.is_empty() { None } else { Some(0) });
        let duration = clip.and_then(|c| rig.clips.get(c).or(all)).map_or(0.0, |c| c.duration);
        let mut playback = Playback::new(duration);
        playback.seek(launch.time);
        playback.paused = launch.paused || duration <= 0.0;
        Player {
            playback,
            clip,
            frames: FrameGrid::for_clip(None, launch.step),
            step: launch.step,
            animated: Vec::new(),
            expression: None,
        }
    }

    /// Whether playback advances on ticks.
    pub fn is_playing(&self) -> bool {
        !self.playback.paused && self.playback.duration > 0.0
    }

    /// One frame: `--step`, else the clip's frame length from its keys (`FrameGrid::of`).
    pub fn frame_step(&self) -> f32 {
        self.frames.step as f32
    }

    /// What the pose depends on here: when it changes, the pose is evaluated again.
    pub fn pose_inputs(&self) -> (f32, Option<usize>, Option<(usize, f32)>) {
        (self.playback.time, self.clip, self.expression.as_ref().and_then(ManualExpression::held))
    }

    pub fn update(
        &mut self,
        action: Action,
        session: &Session,
        selected: Option<usize>,
        status: &mut Status,
    ) {
        let pb = &mut self.playback;
        match action {
            Action::Tick(dt) => pb.advance(dt),
            Action::TogglePlay if pb.duration <= 0.0 => status.say("nothing to play: no clip with keys"),
            Action::TogglePlay => {
                // Replaying a finished `once` clip starts it over.
                if pb.paused && pb.mode == LoopMode::Once && at_end(pb) {
                    pb.seek(if pb.speed < 0.0 { pb.duration } else { 0.0 });
                }
                pb.paused = !pb.paused;
            }
            Action::StepFrames(n) => {
                pb.paused = true;
                pb.seek(self.frames.stepped(pb.time, n));
            }
            Action::PrevKey => self.jump_key(&session.rig, selected, false, status),
            Action::NextKey => self.jump_key(&session.rig, selected, true, status),
            Action::JumpStart => pb.seek(0.0),
            Action::JumpEnd => pb.seek(pb.duration),
            Action::SpeedUp => change_speed(pb, 1),
            Action::SpeedDown => change_speed(pb, -1),
            Action::ResetSpeed => pb.speed = 1.0,
            Action::CycleLoop => {
                pb.mode = match pb.mode {
                    LoopMode::Loop => LoopMode::Once,
                    LoopMode::Once => LoopMode::PingPong,
                    LoopMode::PingPong => LoopMode::Loop,
                }
            }
            Action::NextClip => self.cycle_clip(&session.rig, 1, status),
            Action::PrevClip => self.cycle_clip(&session.rig, -1, status),
            Action::Seek(t) => {
                pb.paused = true;
                pb.seek(t);
            }
            Action::CycleExpression | Action::ExpressionWeight(_) => self.hold_expression(action, status),
            _ => {}
        }
    }

    /// `X` picks the expression to hold, `(` `)` move its weight; the status line says which.
    fn hold_expression(&mut self, action: Action, status: &mut Status) {
        let Some(held) = &mut self.expression else {
            status.say("no VRM expressions in this file");
            return;
        };
        match action {
            Action::CycleExpression => held.cycle(),
            Action::ExpressionWeight(steps) => held.step(steps),
            _ => {}
        }
        status.say(held.status());
    }

    fn cycle_clip(&mut self, rig: &Rig, dir: isize, status: &mut Status) {
        let n = rig.clips.len();
        if n == 0 {
            status.say("this file has no clips");
            return;
        }
        // The clips, then the rest pose (no clip) as one more entry.
        let cur = self.clip.unwrap_or(n) as isize;
        let next = (cur + dir).rem_euclid(n as isize + 1) as usize;
        self.switch_clip(rig, (next < n).then_some(next));
    }

    /// Plays `clip` (None: the rest pose) from its start, keeping the speed, loop mode and
    /// whether playback was paused.
    pub fn switch_clip(&mut self, rig: &Rig, clip: Option<usize>) {
        self.clip = clip;
        self.playback = restarted(&self.playback, self.clip.map_or(0.0, |c| rig.clips[c].duration));
        self.refresh(rig);
    }

    /// The go-to prompt's answer (`:`): a time in seconds or a frame, paused there; a target
    /// outside the clip says where playback landed instead.
    pub fn go_to(&mut self, text: &str, status: &mut Status) {
        let target = match parse_target(text) {
            Ok(_) if self.clip.is_none() => {
                return status.say("the rest pose has no timeline: pick a clip with c / C first");
            }
            Ok(target) => target,
            Err(e) => return status.say(e),
        };
        let t = match target {
            Target::Seconds(s) => s,
            Target::Frame(f) => self.frames.time_of(f),
        };
        let pb = &mut self.playback;
        pb.paused = true;
        pb.seek(t);
        if (pb.time - t).abs() > 1e-6 {
            let (now, last) = (self.frames.frame_at(pb.time), self.frames.frame_at(pb.duration));
            status.say(match target {
                Target::Frame(f) => {
                    format!("frame {f} is outside the clip: at frame {now} (the clip has frames 0 to {last})")
                }
                Target::Seconds(s) => format!(
                    "{s} s is outside the clip: at {:.4} s (the clip is 0 to {:.4} s)",
                    pb.time, pb.duration
                ),
            });
        }
    }

    /// Which nodes the current clip animates, and its frame grid.
    pub(super) fn refresh(&mut self, rig: &Rig) {
        self.frames = FrameGrid::for_clip(self.clip.and_then(|c| rig.clips.get(c)), self.step);
        self.animated = vec![false; rig.nodes.len()];
        if let Some(clip) = self.clip.and_then(|c| rig.clips.get(c)) {
            for node in clip.moved_nodes() {
                if let Some(a) = self.animated.get_mut(node) {
                    *a = true;
                }
            }
        }
    }

    /// Key times of the `selected` node's channels in the current clip (all channels if none).
    pub fn key_times(&self, rig: &Rig, selected: Option<usize>) -> Vec<f32> {
        let Some(clip) = self.clip.and_then(|c| rig.clips.get(c)) else { return Vec::new() };
        let mine: Vec<&crate::rig::Channel> =
            clip.channels.iter().filter(|c| Some(c.node) == selected).collect();
        let chans: Vec<&crate::rig::Channel> =
            if mine.is_empty() { clip.channels.iter().collect() } else { mine };
        let mut times: Vec<f32> =
            chans.iter().flat_map(|c| c.times.iter().copied()).filter(|t| t.is_finite()).collect();
        times.sort_by(f32::total_cmp);
        times.dedup_by(|a, b| (*a - *b).abs() < 1e-5);
        times
    }

    fn jump_key(&mut self, rig: &Rig, selected: Option<usize>, forward: bool, status: &mut Status) {
        let times = self.key_times(rig, selected);
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
            None => status.say(if forward { "no later key" } else { "no earlier key" }),
        }
    }

    /// After a reload: the same clip found by name in `new` (an unnamed one by its place),
    /// played on from the same time with the same settings, and the same expression held.
    /// Returns the clip's name when the new file has no such clip (the first one plays).
    pub(super) fn rematch(&mut self, old: &Session, new: &Session) -> Option<String> {
        let first = if new.rig.clips.is_empty() { None } else { Some(0) };
        let mut gone = None;
        let clip = match self.clip.map(|c| old.rig.clip_label(c)) {
            Some(name) => {
                let found = new.rig.clips.iter().position(|c| c.name.as_deref() == Some(name.as_str()));
                // An unnamed clip is known only by its place in the file.
                let found =
                    found.or_else(|| self.clip.filter(|&c| c < new.rig.clips.len() && name.starts_with('#')));
                if found.is_none() {
                    gone = Some(name);
                }
                found.or(first)
            }
            None => first,
        };
        let duration = clip.and_then(|c| new.rig.clips.get(c)).map_or(0.0, |c| c.duration);
        let time = self.playback.time;
        self.clip = clip;
        self.playback = restarted(&self.playback, duration);
        self.playback.seek(time);
        self.refresh(&new.rig);
        self.expression = match &self.expression {
            Some(held) => held.rematched(&new.rig),
            None => ManualExpression::of(&new.rig),
        };
        gone
    }
}

/// `pb`'s speed, loop mode and pause on a clip of `duration`, at its start (paused when there
/// is nothing to play).
fn restarted(pb: &Playback, duration: f32) -> Playback {
    let mut next = Playback::new(duration);
    next.speed = pb.speed;
    next.mode = pb.mode;
    next.paused = pb.paused || next.duration <= 0.0;
    next
}

fn at_end(pb: &Playback) -> bool {
    if pb.speed < 0.0 { pb.time <= 0.0 } else { pb.time >= pb.duration }
}

fn change_speed(pb: &mut Playback, dir: i32) {
    let idx = SPEEDS.iter().position(|&s| (s - pb.speed).abs() < 1e-6).unwrap_or(9) as i32;
    let next = (idx + dir).clamp(0, SPEEDS.len() as i32 - 1) as usize;
    pb.speed = SPEEDS[next];
}
