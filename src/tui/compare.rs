//! `rigscope A --compare B`: the second rig, posed at the viewer's time with the clip of the
//! same name, drawn as a ghost over A; the selected joint's difference for the details panel.
//!
//! Joints and clips are matched as `rigscope diff` matches them (`diff::JointMap`).

use crate::anim::Workspace;
use crate::diff::{JointMap, angle_between};
use crate::rig::Rig;

/// B's ghost: warm, so that it reads apart from the grey bind-pose ghost.
pub const GHOST_COLOR: crate::render::Rgb = crate::render::Rgb::new(190, 120, 60);

pub struct Compare {
    pub rig: Rig,
    pub ws: Workspace,
    map: JointMap,
}

/// How far B's matched joint is from A's in the current pose.
#[derive(Debug, Clone, PartialEq)]
pub struct JointDelta {
    /// B's name for the joint (it may have been renamed).
    pub name: String,
    pub distance: f32,
    pub degrees: f32,
}

impl Compare {
    pub fn new(a: &Rig, mut b: Rig) -> Self {
        let map = JointMap::new(a, &b, crate::diff::DEFAULT_TOLERANCE);
        // A's `all` entry plays B's clips all at once too.
        if a.clips.iter().any(|c| c.name.as_deref() == Some(crate::rig::ALL_CLIPS)) {
            b.add_all_clips(crate::rig::ALL_CLIPS);
        }
        let ws = Workspace::new(&b);
        Compare { rig: b, ws, map }
    }

    /// B's clip matching A's clip `clip` by label (none: B's rest pose).
    pub fn clip_for(&self, a: &Rig, clip: Option<usize>) -> Option<usize> {
        let label = a.clip_label(clip?);
        (0..self.rig.clips.len()).find(|&j| self.rig.clip_label(j) == label)
    }

    /// Poses B at time `t` of the clip matching A's `clip`.
    pub fn evaluate(&mut self, a: &Rig, clip: Option<usize>, t: f32) {
        let clip = self.clip_for(a, clip).and_then(|c| self.rig.clips.get(c));
        self.ws.evaluate(&self.rig, clip, t);
    }

    /// The selected node of A against its match in B, both as posed now; `None` when B has
    /// no such joint.
    pub fn joint_delta(&self, a_ws: &Workspace, node: usize) -> Option<JointDelta> {
        let m = self.map.a_to_b.get(node).copied().flatten()?;
        let (ga, gb) = (a_ws.globals.get(node)?, self.ws.globals.get(m)?);
        let (_, ra, ta) = ga.to_scale_rotation_translation();
        let (_, rb, tb) = gb.to_scale_rotation_translation();
        Some(JointDelta {
            name: self.rig.node_label(m),
            distance: ta.distance(tb),
            degrees: angle_between(ra, rb).to_degrees(),
        })
    }
}

/// The details panel's line: `B: 0.0123 away, 4.5 deg` (with B's name when it differs).
pub fn detail_line(compare: &Compare, a: &Rig, a_ws: &Workspace, node: usize) -> String {
    match compare.joint_delta(a_ws, node) {
        None => "no such joint in B".to_string(),
        Some(d) => {
            let renamed =
                if d.name == a.node_label(node) { String::new() } else { format!(" (B: {})", d.name) };
            format!("{:.4} away, {:.2} deg{renamed}", d.distance, d.degrees)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moved_joint_shows_its_distance_in_the_matching_clip() {
        let a = crate::load_bytes(&crate::samplegen::seed_arm(), "a.gltf", None).expect("loads");
        let mut b = a.clone();
        let b31 = a.nodes.iter().position(|n| n.name.as_deref() == Some("b31")).expect("b31");
        b.nodes[b31].rest.translation.y += 0.05;
        let mut compare = Compare::new(&a, b);
        let bend = a.find_clip("bend");
        assert_eq!(compare.clip_for(&a, bend), bend);
        let mut ws = Workspace::new(&a);
        ws.evaluate(&a, bend.map(|c| &a.clips[c]), 1.0);
        compare.evaluate(&a, bend, 1.0);
        // Rotations keep lengths: 0.05 in b2's frame is 0.05 in the world.
        let d = compare.joint_delta(&ws, b31).expect("matched");
        assert!((d.distance - 0.05).abs() < 1e-5 && d.degrees < 1e-3, "{d:?}");
        let root = 0;
        assert!(compare.joint_delta(&ws, root).expect("root").distance < 1e-6);
        assert_eq!(detail_line(&compare, &a, &ws, b31), "0.0500 away, 0.00 deg");
    }
}
