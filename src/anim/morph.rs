//! Morph targets: `p = base + sum_k w_k * delta_k`, written into a caller-owned buffer.
//! Runs before skinning, on the primitive's stored (bind-space) attributes.

use glam::Vec3;

use crate::rig::MorphTarget;

/// Which attribute of a morph target to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Attribute {
    Position,
    Normal,
}

/// `out = base + sum_k weights[k] * deltas_k`. Zero weights cost nothing; a non-finite
/// weight is skipped so one broken weight cannot turn the whole primitive into NaN.
/// Extra targets or weights are ignored; a target shorter than `base` moves only its
/// vertices.
pub(crate) fn morph_into(
    base: &[Vec3],
    targets: &[MorphTarget],
    weights: &[f32],
    attribute: Attribute,
    out: &mut [Vec3],
) {
    morph_range(base, targets, weights, attribute, 0, out);
}

/// Vertex `v`'s position after the morph weights: `morph_into`'s sum for one vertex (so the
/// same bits), for code that needs a few vertices.
pub fn morphed_position(base: &[Vec3], targets: &[MorphTarget], weights: &[f32], v: usize) -> Vec3 {
    let mut p = [Vec3::ZERO];
    if v < base.len() {
        morph_range(base, targets, weights, Attribute::Position, v, &mut p);
    }
    p[0]
}

/// The sum for vertices `first..first + out.len()` of `base` (clamped to it), target by
/// target, so a whole primitive walks each delta array once.
fn morph_range(
    base: &[Vec3],
    targets: &[MorphTarget],
    weights: &[f32],
    attribute: Attribute,
    first: usize,
    out: &mut [Vec3],
) {
    for (o, &b) in out.iter_mut().zip(base.get(first..).unwrap_or_default()) {
        *o = b;
    }
    for (target, &w) in targets.iter().zip(weights) {
        if w == 0.0 || !w.is_finite() {
            continue;
        }
        let deltas = match attribute {
            Attribute::Position => target.positions.as_deref(),
            Attribute::Normal => target.normals.as_deref(),
        };
        let deltas = deltas.and_then(|d| d.get(first..)).unwrap_or_default();
        for (o, &d) in out.iter_mut().zip(deltas) {
            *o += d * w;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_weighted_deltas_of_every_target() {
        let base = [Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
        let targets = [
            MorphTarget {
                positions: Some(vec![Vec3::new(0.0, 2.0, 0.0), Vec3::new(4.0, 0.0, 0.0)].into()),
                normals: Some(vec![Vec3::Z, Vec3::Z].into()),
            },
            MorphTarget { positions: Some(vec![Vec3::new(0.0, 0.0, 8.0), Vec3::ZERO].into()), normals: None },
        ];
        let mut out = [Vec3::splat(99.0); 2];
        morph_into(&base, &targets, &[0.5, 0.25], Attribute::Position, &mut out);
        // v0: (1,0,0) + 0.5 (0,2,0) + 0.25 (0,0,8) = (1,1,2); v1: (0,1,0) + 0.5 (4,0,0) = (2,1,0)
        assert_eq!(out, [Vec3::new(1.0, 1.0, 2.0), Vec3::new(2.0, 1.0, 0.0)]);
        morph_into(&base, &targets, &[0.5, 0.25], Attribute::Normal, &mut out);
        assert_eq!(out, [Vec3::new(1.0, 0.0, 0.5), Vec3::new(0.0, 1.0, 0.5)]);
    }

    #[test]
    fn nan_weights_and_short_targets_do_not_poison() {
        let base = [Vec3::ONE, Vec3::ONE];
        let targets = [
            MorphTarget { positions: Some(vec![Vec3::X].into()), normals: None },
            MorphTarget { positions: Some(vec![Vec3::Y, Vec3::Y].into()), normals: None },
        ];
        let mut out = [Vec3::ZERO; 2];
        morph_into(&base, &targets, &[1.0, f32::NAN], Attribute::Position, &mut out);
        assert_eq!(out, [Vec3::new(2.0, 1.0, 1.0), Vec3::ONE]);
    }

    #[test]
    fn one_vertex_is_the_whole_primitive_sum_and_outside_is_the_origin() {
        let base = [Vec3::ONE, Vec3::new(0.0, 2.0, 0.0), Vec3::new(3.0, 0.0, 0.0)];
        let targets = [
            MorphTarget { positions: Some(vec![Vec3::X, Vec3::Z].into()), normals: None },
            MorphTarget { positions: Some(vec![Vec3::Y, Vec3::Y, Vec3::Y].into()), normals: None },
        ];
        let weights = [0.5, -2.0];
        // By hand: v0 = (1,1,1) + 0.5 x - 2 y = (1.5,-1,1); v1 = (0,2,0) + 0.5 z - 2 y = (0,0,0.5);
        // v2 = (3,0,0) - 2 y (the first target is too short for it) = (3,-2,0).
        let expected = [Vec3::new(1.5, -1.0, 1.0), Vec3::new(0.0, 0.0, 0.5), Vec3::new(3.0, -2.0, 0.0)];
        for (v, e) in expected.iter().enumerate() {
            assert_eq!(morphed_position(&base, &targets, &weights, v), *e, "v{v}");
        }
        assert_eq!(morphed_position(&base, &targets, &weights, 3), Vec3::ZERO);
    }
}
