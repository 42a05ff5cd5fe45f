//! Per-vertex skin influences: turning raw (joint, weight) pairs into the four JOINTS_0 /
//! WEIGHTS_0 slots so that the stored f32 weights sum to 1 as exactly as f32 allows.
//!
//! The Khronos validator accumulates the weights in f32 in slot order and accepts
//! |sum - 1| <= 2e-7 * n. Dividing by the total and rounding each weight can miss by a few
//! ulps, so the last non-zero slot is stored as 1 - (running f32 sum of the others): adding
//! it back then lands within half an ulp of 1.

/// Up to four (joint, weight) slots; unused slots are (0, 0.0) as the spec recommends.
pub type Slots = [(u8, f32); 4];

/// Raw weights below this share of the vertex's total are dropped: they change nothing
/// visible, and one that rounds to 0 would leave a joint index with zero weight (which the
/// validator warns about).
const MIN_SHARE: f32 = 1e-3;

/// Keeps the four largest raw weights (ties: lower joint first) that carry at least
/// `MIN_SHARE` of the total, normalises them to sum to 1 and orders the slots by decreasing
/// weight. An empty or all-zero input gives the first joint full weight, so a generator can
/// never emit an unskinned vertex.
pub fn normalise(raw: &[(u8, f32)]) -> Slots {
    let raw_total: f32 = raw.iter().map(|&(_, w)| w.max(0.0)).sum();
    let mut kept: Vec<(u8, f32)> =
        raw.iter().copied().filter(|&(_, w)| w > 0.0 && w >= raw_total * MIN_SHARE).collect();
    kept.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    kept.truncate(4);
    let mut slots: Slots = [(0, 0.0); 4];
    if kept.is_empty() {
        slots[0] = (raw.first().map_or(0, |r| r.0), 1.0);
        return slots;
    }
    let total: f64 = kept.iter().map(|&(_, w)| f64::from(w)).sum();
    let last = kept.len() - 1;
    let mut running = 0.0f32;
    for (index, (slot, &(joint, weight))) in slots.iter_mut().zip(&kept).enumerate() {
        let stored = if index == last { 1.0 - running } else { (f64::from(weight) / total) as f32 };
        running += stored;
        *slot = (joint, stored);
    }
    slots
}

/// Splits slots into the JOINTS_0 and WEIGHTS_0 component arrays.
pub fn split(slots: &[Slots]) -> (Vec<u8>, Vec<f32>) {
    let joints = slots.iter().flatten().map(|&(j, _)| j).collect();
    let weights = slots.iter().flatten().map(|&(_, w)| w).collect();
    (joints, weights)
}

/// Weights for a chain of regions along a coordinate `s` that grows from the first region to
/// the last: `joints[k]` owns the span between `borders[k-1]` and `borders[k]`, and each
/// border `(s_b, half_width)` blends its two neighbours with a smoothstep over
/// `s_b +- half_width`. `borders.len()` must be `joints.len() - 1`.
pub fn along_chain(s: f32, joints: &[u8], borders: &[(f32, f32)]) -> Vec<(u8, f32)> {
    let mut region = 0;
    for (index, &(border, half)) in borders.iter().enumerate() {
        if s >= border + half {
            region = index + 1;
            continue;
        }
        if s > border - half {
            let x = (s - (border - half)) / (2.0 * half);
            let t = x * x * (3.0 - 2.0 * x);
            let before = joints.get(index).copied().unwrap_or(0);
            let after = joints.get(index + 1).copied().unwrap_or(before);
            return vec![(before, 1.0 - t), (after, t)];
        }
        break;
    }
    vec![(joints.get(region).copied().unwrap_or(0), 1.0)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The validator's check: f32 running sum in slot order.
    fn passes_khronos_sum(slots: &Slots) -> bool {
        let mut sum = 0.0f32;
        for &(_, w) in slots {
            sum += w;
        }
        (sum - 1.0).abs() <= 2e-7 * 4.0
    }

    #[test]
    fn awkward_ratios_still_sum_to_one() {
        // Thirds, sevenths and near-equal weights are the classic rounding traps.
        let cases: [&[(u8, f32)]; 4] = [
            &[(0, 1.0), (1, 1.0), (2, 1.0)],
            &[(3, 1.0), (4, 2.0), (5, 4.0)],
            &[(0, 0.1), (1, 0.2), (2, 0.3), (3, 0.4)],
            &[(0, 0.333), (1, 0.333), (2, 0.334), (7, 1e-3), (9, 5e-4)],
        ];
        for raw in cases {
            let slots = normalise(raw);
            assert!(passes_khronos_sum(&slots), "{raw:?} -> {slots:?}");
            assert!(slots.iter().all(|&(_, w)| w >= 0.0));
        }
    }

    #[test]
    fn keeps_the_four_largest_and_orders_them() {
        let slots = normalise(&[(1, 0.1), (2, 0.4), (3, 0.05), (4, 0.2), (5, 0.25)]);
        let joints: Vec<u8> = slots.iter().map(|s| s.0).collect();
        assert_eq!(joints, vec![2, 5, 4, 1]);
        // 0.05 dropped: the rest rescale by 1 / 0.95.
        assert!((slots[0].1 - 0.4 / 0.95).abs() < 1e-6);
    }

    #[test]
    fn negligible_weights_are_dropped_not_stored_as_zero() {
        let slots = normalise(&[(1, 1.0), (2, 1e-30), (3, 1.0)]);
        assert_eq!(slots, [(1, 0.5), (3, 0.5), (0, 0.0), (0, 0.0)]);
    }

    #[test]
    fn unused_slots_are_joint_zero_weight_zero() {
        let slots = normalise(&[(4, 2.0)]);
        assert_eq!(slots, [(4, 1.0), (0, 0.0), (0, 0.0), (0, 0.0)]);
    }

    #[test]
    fn chain_blends_only_near_borders() {
        let joints = [10, 11, 12];
        let borders = [(1.0, 0.125), (2.0, 0.25)];
        assert_eq!(along_chain(0.5, &joints, &borders), vec![(10, 1.0)]);
        assert_eq!(along_chain(1.5, &joints, &borders), vec![(11, 1.0)]);
        assert_eq!(along_chain(3.0, &joints, &borders), vec![(12, 1.0)]);
        // Exactly on a border the smoothstep is 1/2.
        assert_eq!(along_chain(2.0, &joints, &borders), vec![(11, 0.5), (12, 0.5)]);
    }
}
