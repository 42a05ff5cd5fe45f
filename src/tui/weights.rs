//! The skin-weights panel's model: the selected bone's influence statistics and the selected
//! vertex. Pure data, computed on selection change.

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
