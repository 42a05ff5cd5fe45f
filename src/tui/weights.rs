//! The skin-weights panel's model: the selected bone's influence statistics, the selected
//! vertex, and the "as engines would see it" previews. Pure data, computed on selection change.

use glam::Vec3;

use crate::anim::Workspace;
use crate::rig::Rig;

/// A vertex of one deformed primitive: `prim` indexes `Workspace::primitives`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VertexRef {
    pub prim: usize,
    pub vertex: usize,
}

pub const HISTOGRAM_BINS: usize = 10;

/// How the selected joint weighs the mesh.
#[derive(Debug, Clone, Default)]
pub struct BoneWeights {
    /// Every vertex with a non-zero weight on the joint, in primitive then vertex order.
    pub vertices: Vec<VertexRef>,
    pub min: f32,
    pub mean: f32,
    pub max: f32,
    /// Counts of weights in (0, 0.1], (0.1, 0.2], ... (0.9, 1] (and above 1 in the last bin).
    pub histogram: [usize; HISTOGRAM_BINS],
    /// Per vertex in `vertices`, the joint's weight there.
    pub weights: Vec<f32>,
}

impl BoneWeights {
    pub fn compute(rig: &Rig, ws: &Workspace, skin: Option<usize>, joint: Option<usize>) -> BoneWeights {
        let (Some(skin), Some(joint)) = (skin, joint) else { return BoneWeights::default() };
        let mut out = BoneWeights { min: f32::INFINITY, max: f32::NEG_INFINITY, ..Default::default() };
        let mut sum = 0.0f64;
        for (pi, dp) in ws.primitives.iter().enumerate() {
            if dp.skin != Some(skin) {
                continue;
            }
            let Some(prim) = rig.meshes.get(dp.mesh).and_then(|m| m.primitives.get(dp.primitive)) else {
                continue;
            };
            prim.for_each_influences(|v, slots| {
                let w: f32 = slots.iter().filter(|&&(j, _)| j as usize == joint).map(|&(_, w)| w).sum();
                if w != 0.0 && w.is_finite() {
                    out.vertices.push(VertexRef { prim: pi, vertex: v });
                    out.weights.push(w);
                    out.min = out.min.min(w);
                    out.max = out.max.max(w);
                    sum += w as f64;
                    let bin = ((w * HISTOGRAM_BINS as f32).ceil() as usize).clamp(1, HISTOGRAM_BINS) - 1;
                    out.histogram[bin] += 1;
                }
            });
        }
        if out.vertices.is_empty() {
            out.min = 0.0;
            out.max = 0.0;
        } else {
            out.mean = (sum / out.vertices.len() as f64) as f32;
        }
        out
    }

    /// The influenced vertex closest to `at` in the current pose.
    pub fn nearest(&self, ws: &Workspace, at: Vec3) -> Option<VertexRef> {
        self.vertices
            .iter()
            .copied()
            .filter_map(|v| {
                ws.primitives.get(v.prim)?.positions.get(v.vertex).map(|p| (v, p.distance_squared(at)))
            })
            .filter(|(_, d)| d.is_finite())
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(v, _)| v)
    }
}

/// Which weights the viewport skins with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preview {
    /// Exactly what the file stores.
    Stored,
    /// Every vertex's weights divided by their sum (what three.js does at load).
    Renormalised,
    /// Only the four largest influences, renormalised (what 4-influence engines keep).
    LargestFour,
}

impl Preview {
    pub fn next(self) -> Preview {
        match self {
            Preview::Stored => Preview::Renormalised,
            Preview::Renormalised => Preview::LargestFour,
            Preview::LargestFour => Preview::Stored,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Preview::Stored => "stored weights",
            Preview::Renormalised => "renormalised",
            Preview::LargestFour => "4 largest influences",
        }
    }

    /// A copy of the rig with its weights changed as this preview says (None for `Stored`).
    pub fn apply(self, rig: &Rig) -> Option<Rig> {
        if self == Preview::Stored {
            return None;
        }
        // The clone shares the rig's arrays; the weights get their own copy (`make_mut`)
        // before they change, so the rig shown with `Stored` keeps the file's.
        let mut out = rig.clone();
        for prim in out.meshes.iter_mut().flat_map(|m| m.primitives.iter_mut()) {
            let count = prim.vertex_count();
            let mut weights: Vec<&mut [[f32; 4]]> =
                prim.influences.iter_mut().map(|set| std::sync::Arc::make_mut(&mut set.weights)).collect();
            for v in 0..count {
                let mut slots: Vec<(usize, usize, f32)> = Vec::new();
                for (si, set) in weights.iter().enumerate() {
                    if let Some(w) = set.get(v) {
                        for (c, &x) in w.iter().enumerate() {
                            slots.push((si, c, if x.is_finite() && x > 0.0 { x } else { 0.0 }));
                        }
                    }
                }
                if self == Preview::LargestFour {
                    // Keep the four largest; ties keep the earlier slot, as engines do.
                    let mut order: Vec<usize> = (0..slots.len()).collect();
                    order.sort_by(|&a, &b| slots[b].2.total_cmp(&slots[a].2).then(a.cmp(&b)));
                    for &i in order.iter().skip(4) {
                        slots[i].2 = 0.0;
                    }
                }
                let sum: f32 = slots.iter().map(|s| s.2).sum();
                for &(si, c, x) in &slots {
                    let w = if sum > 0.0 { x / sum } else { 0.0 };
                    weights[si][v][c] = w;
                }
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{InfluenceSet, Mesh, Primitive};
    use glam::Vec3;
    use std::sync::Arc;

    #[test]
    fn a_preview_changes_its_own_copy_and_the_rig_keeps_the_stored_weights() {
        // Two primitives share one weights array, as import gives them for one accessor.
        let weights: Arc<[[f32; 4]]> = vec![[0.5, 0.25, 0.0, 0.0], [-1.0, 2.0, 0.0, 0.0]].into();
        let set = InfluenceSet { joints: vec![[0, 1, 0, 0]; 2].into(), weights, ..InfluenceSet::default() };
        let prim = Primitive {
            positions: vec![Vec3::ZERO; 2].into(),
            influences: vec![set],
            ..Primitive::default()
        };
        let rig = Rig {
            meshes: vec![Mesh { primitives: vec![prim.clone(), prim], ..Mesh::default() }],
            ..Rig::default()
        };
        let shown = Preview::Renormalised.apply(&rig).expect("a preview rig");
        // 0.5 and 0.25 over their sum 0.75; a negative weight counts as 0, leaving 2 alone.
        for p in &shown.meshes[0].primitives {
            assert_eq!(
                &*p.influences[0].weights,
                &[[0.5 / 0.75, 0.25 / 0.75, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]
            );
        }
        let stored = &rig.meshes[0].primitives;
        assert_eq!(&*stored[0].influences[0].weights, &[[0.5, 0.25, 0.0, 0.0], [-1.0, 2.0, 0.0, 0.0]]);
        assert!(Arc::ptr_eq(&stored[0].influences[0].weights, &stored[1].influences[0].weights));
    }
}
