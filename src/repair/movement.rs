//! How far a weight repair moves the mesh: the same rig with old and new weights, posed the
//! same way, compared vertex by vertex in world space.
//!
//! Both rigs must come from the same file (the repaired one written by `export`), so their
//! drawable primitives pair up one to one; pairs that do not match are skipped.

use crate::anim::Workspace;
use crate::rig::Rig;

/// A vertex of one drawn primitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VertexRef {
    pub node: usize,
    pub mesh: usize,
    pub primitive: usize,
    pub vertex: usize,
}

/// The largest world-space distance between old and new positions.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Movement {
    pub max: f32,
    /// Where `max` happened (None when nothing moved).
    pub at: Option<VertexRef>,
    /// When `max` happened, in seconds (clip comparisons only).
    pub time: Option<f32>,
    /// Position pairs not compared because one of them is not finite (a NaN stored
    /// position), summed over every sampled time.
    pub non_finite: usize,
}

impl Movement {
    fn merge(&mut self, other: Movement) {
        if other.max > self.max {
            self.max = other.max;
            self.at = other.at;
            self.time = other.time;
        }
        self.non_finite += other.non_finite;
    }
}

/// Movement in the rest pose (every node at its file transform, no clip).
pub fn rest_movement(before: &Rig, after: &Rig) -> Movement {
    let (mut a, mut b) = (Workspace::new(before), Workspace::new(after));
    a.evaluate(before, None, 0.0);
    b.evaluate(after, None, 0.0);
    compare(&a, &b, None)
}

/// Largest movement over `samples` evenly spaced times from 0 to the clip's duration
/// (both ends included; one sample at 0 for a clip of zero length). None for a clip index
/// either rig lacks.
pub fn clip_movement(before: &Rig, after: &Rig, clip: usize, samples: usize) -> Option<Movement> {
    let (clip_a, clip_b) = (before.clips.get(clip)?, after.clips.get(clip)?);
    let duration = if clip_a.duration.is_finite() { clip_a.duration.max(0.0) } else { 0.0 };
    let samples = if duration > 0.0 { samples.max(2) } else { 1 };
    let (mut a, mut b) = (Workspace::new(before), Workspace::new(after));
    let mut worst = Movement::default();
    for k in 0..samples {
        let t = if samples == 1 { 0.0 } else { duration * k as f32 / (samples - 1) as f32 };
        a.evaluate(before, Some(clip_a), t);
        b.evaluate(after, Some(clip_b), t);
        worst.merge(compare(&a, &b, Some(t)));
    }
    Some(worst)
}

fn compare(a: &Workspace, b: &Workspace, time: Option<f32>) -> Movement {
    let mut out = Movement { time, ..Movement::default() };
    for (pa, pb) in a.primitives.iter().zip(&b.primitives) {
        if (pa.node, pa.mesh, pa.primitive) != (pb.node, pb.mesh, pb.primitive) {
            continue;
        }
        for (v, (p, q)) in pa.positions.iter().zip(&pb.positions).enumerate() {
            if !(p.is_finite() && q.is_finite()) {
                out.non_finite += 1;
                continue;
            }
            let d = p.distance(*q);
            if d > out.max {
                out.max = d;
                out.at = Some(VertexRef { node: pa.node, mesh: pa.mesh, primitive: pa.primitive, vertex: v });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{
        Channel, Clip, InfluenceSet, Interpolation, Mesh, Node, Primitive, Property, Skin, Transform,
    };
    use glam::{Mat4, Vec3};

    /// One joint (node 0) at x = 2 in its rest pose, bound at the origin; node 1 draws one
    /// vertex at (1, 0, 0) skinned to it with weight `w`. The clip moves the joint to x = 4
    /// at t = 1.
    fn rig(w: f32) -> Rig {
        let mut nodes = vec![Node::default(); 2];
        nodes[0].rest = Transform { translation: Vec3::new(2.0, 0.0, 0.0), ..Transform::IDENTITY };
        nodes[1].mesh = Some(0);
        nodes[1].skin = Some(0);
        let set = InfluenceSet {
            joints: vec![[0; 4]].into(),
            weights: vec![[w, 0.0, 0.0, 0.0]].into(),
            ..Default::default()
        };
        let prim = Primitive { positions: vec![Vec3::X].into(), influences: vec![set], ..Default::default() };
        let channel = Channel {
            node: 0,
            property: Property::Translation,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 1.0].into(),
            values: vec![2.0, 0.0, 0.0, 4.0, 0.0, 0.0].into(),
            components: 3,
        };
        Rig {
            nodes,
            order: vec![0, 1],
            skins: vec![Skin {
                joints: vec![0],
                inverse_bind: vec![Mat4::IDENTITY],
                joint_order: vec![0],
                joint_parent: vec![None],
                ..Default::default()
            }],
            meshes: vec![Mesh { primitives: vec![prim], ..Default::default() }],
            clips: vec![Clip { vrm: None, name: None, channels: vec![channel], duration: 1.0 }],
            ..Default::default()
        }
    }

    #[test]
    fn rest_and_clip_movement_follow_the_weight_change() {
        // Weight 0.5 -> 1: the vertex is w * (joint x + 1). Rest: 0.5 * 3 = 1.5 vs 3, moved
        // 1.5. Clip end: 0.5 * 5 = 2.5 vs 5, moved 2.5 at t = 1.
        let (before, after) = (rig(0.5), rig(1.0));
        let rest = rest_movement(&before, &after);
        assert!((rest.max - 1.5).abs() < 1e-6);
        assert_eq!(rest.at, Some(VertexRef { node: 1, mesh: 0, primitive: 0, vertex: 0 }));
        let clip = clip_movement(&before, &after, 0, 31).expect("clip 0 exists");
        assert!((clip.max - 2.5).abs() < 1e-5, "{clip:?}");
        assert_eq!(clip.time, Some(1.0));
        assert!(clip_movement(&before, &after, 1, 31).is_none());
    }

    #[test]
    fn non_finite_positions_are_counted_not_compared() {
        // Skinning skips a NaN weight (the vertex collapses to the origin, a finite point), so
        // a NaN weight is compared normally: 0 vs 1 * (2 + 1) = 3.
        let moved = rest_movement(&rig(f32::NAN), &rig(1.0));
        assert!((moved.max - 3.0).abs() < 1e-6 && moved.non_finite == 0, "{moved:?}");
        // A NaN position cannot be compared at all.
        let mut broken = rig(1.0);
        std::sync::Arc::make_mut(&mut broken.meshes[0].primitives[0].positions)[0] = Vec3::NAN;
        let moved = rest_movement(&broken, &rig(1.0));
        assert_eq!((moved.max, moved.non_finite), (0.0, 1));
    }
}
