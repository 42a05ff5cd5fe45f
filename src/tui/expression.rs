//! An expression of a VRM avatar held at a weight by hand (the viewer's expression keys), fed
//! through the same pose step as a `.vrma` clip's expression tracks.

use crate::anim::Pose;
use crate::rig::{Clip, Rig, VrmPlay};

/// Weight steps per unit: the keys move the weight by a tenth.
const STEPS: u8 = 10;

/// The avatar's expressions and the one the user holds, if any.
#[derive(Debug, Clone)]
pub struct ManualExpression {
    /// The avatar's expressions without tracks, for clips that play none of them.
    avatar: VrmPlay,
    /// Which drive something (bind a morph target the avatar has, with a weight).
    drives: Vec<bool>,
    /// Index into the avatar's expressions, None while no expression is held.
    pub selected: Option<usize>,
    /// The held weight in tenths, 0..=STEPS.
    pub tenths: u8,
}

impl ManualExpression {
    /// None for a file that is not a VRM avatar or has no expressions.
    pub fn of(rig: &Rig) -> Option<ManualExpression> {
        let vrm = rig.vrm.as_ref()?;
        let expressions = crate::vrma::avatar_expressions(rig, vrm);
        if expressions.is_empty() {
            return None;
        }
        let drives = expressions.iter().map(|e| crate::vrma::drives_something(rig, e)).collect();
        Some(ManualExpression {
            avatar: VrmPlay { expressions, gaze: None },
            drives,
            selected: None,
            tenths: 0,
        })
    }

    /// The avatar's expressions in `rig` (a reloaded file) with the same expression held, by
    /// name, at the same weight.
    pub fn rematched(&self, rig: &Rig) -> Option<ManualExpression> {
        let mut fresh = ManualExpression::of(rig)?;
        let name = self.selected.and_then(|i| self.avatar.expressions.get(i)).map(|e| e.name.as_str());
        fresh.selected = name.and_then(|n| fresh.avatar.expressions.iter().position(|e| e.name == n));
        fresh.tenths = self.tenths;
        Some(fresh)
    }

    /// The weight held, 0..1.
    pub fn weight(&self) -> f32 {
        f32::from(self.tenths) / f32::from(STEPS)
    }

    /// The held expression (an index into the avatar's expressions) and its weight.
    pub fn held(&self) -> Option<(usize, f32)> {
        self.selected.map(|i| (i, self.weight()))
    }

    /// None, then each expression in file order, then none again.
    pub fn cycle(&mut self) {
        let n = self.avatar.expressions.len();
        self.selected = match self.selected {
            None => Some(0),
            Some(i) if i + 1 < n => Some(i + 1),
            Some(_) => None,
        };
    }

    /// Moves the weight by `steps` tenths, within 0..1.
    pub fn step(&mut self, steps: i8) {
        self.tenths = self.tenths.saturating_add_signed(steps).min(STEPS);
    }

    /// The status line: "expression happy at 0.6", and whether it moves nothing.
    pub fn status(&self) -> String {
        let Some(i) = self.selected else {
            return "no expression held (the clip's own weights play)".into();
        };
        let name = self.avatar.expressions.get(i).map_or("?", |e| e.name.as_str());
        let mut text = format!("expression {name} at {:.1}", self.weight());
        if !self.drives.get(i).copied().unwrap_or(false) {
            text.push_str(" (it binds no morph target: nothing moves)");
        }
        text
    }

    /// Holds the selected expression in `pose`, already sampled from `clip` at `t`: the clip's
    /// own expressions and gaze play around it, or the avatar's untracked ones.
    pub fn apply(&self, clip: Option<&Clip>, t: f32, pose: &mut Pose) {
        let Some(held) = self.held() else { return };
        let play = clip.and_then(|c| c.vrm.as_deref()).unwrap_or(&self.avatar);
        crate::anim::vrm_pose::apply_set(play, t, Some(held), pose);
    }
}
