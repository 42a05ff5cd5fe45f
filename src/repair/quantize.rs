//! Turning exact target weights (f64, summing to 1) into stored values that still sum to 1
//! the way the validator adds them: largest-remainder rounding on an integer grid
//! (255 or 65535 steps), or f32 rounding with the residual moved onto the largest weight.

/// Integer codes for `targets` on a grid of `steps` that add up to exactly `steps`.
///
/// Each target gets `floor(t * steps)`; the steps still missing go one each to the largest
/// remainders. Tie rule: equal remainders go to the earlier target. Callers pass targets
/// sorted by weight descending (then joint ascending), so a tie favours the larger weight,
/// then the lower joint index: [0.5, 0.5] on 255 steps becomes [128, 127].
pub(crate) fn largest_remainder(targets: &[f64], steps: u32, codes: &mut Vec<u32>, order: &mut Vec<usize>) {
    codes.clear();
    order.clear();
    let total: f64 = targets.iter().sum();
    if targets.is_empty() || !(total.is_finite() && total > 0.0) {
        return;
    }
    let scale = f64::from(steps) / total;
    let mut assigned: i64 = 0;
    for &t in targets {
        let code = (t * scale).floor().clamp(0.0, f64::from(steps)) as u32;
        codes.push(code);
        assigned += i64::from(code);
    }
    let remainder = |i: usize| targets.get(i).map_or(0.0, |&t| t * scale) - f64::from(codes[i]);
    order.extend(0..targets.len());
    // Stable sort: equal remainders keep target order (the tie rule above).
    order.sort_by(|&a, &b| remainder(b).total_cmp(&remainder(a)));
    let mut missing = i64::from(steps) - assigned;
    // Each pass hands out at most one step per target; rounding in `t * scale` can leave the
    // floors short by up to `targets.len()`, never more, so one pass is the normal case.
    while missing > 0 {
        for &i in order.iter() {
            if missing == 0 {
                break;
            }
            codes[i] += 1;
            missing -= 1;
        }
    }
    // Floors can only overshoot through rounding of `t * scale` above an integer; take the
    // excess back from the smallest remainders.
    while missing < 0 {
        let before = missing;
        for &i in order.iter().rev() {
            if missing == 0 {
                break;
            }
            if codes[i] > 0 {
                codes[i] -= 1;
                missing += 1;
            }
        }
        if missing == before {
            break;
        }
    }
}

/// f32 weights for `targets` (in slot order) that pass `passes` (the validator's running-sum
/// test for the slot layout). Each target is rounded to f32, then the f64 residual
/// `1 - sum` is added to the first (largest) weight; a few one-ulp nudges follow if the
/// running sum still misses. Returns whether `passes` accepted the result.
pub(crate) fn float_weights(
    targets: &[f64],
    out: &mut Vec<f32>,
    mut passes: impl FnMut(&[f32]) -> bool,
) -> bool {
    out.clear();
    out.extend(targets.iter().map(|&t| t as f32));
    if out.is_empty() {
        return false;
    }
    for _ in 0..4 {
        if passes(out) {
            return true;
        }
        let exact: f64 = out.iter().map(|&w| f64::from(w)).sum();
        let residual = 1.0 - exact;
        let first = f64::from(out[0]);
        let adjusted = (first + residual) as f32;
        if adjusted == out[0] {
            // The residual is below half an ulp of the largest weight: nudge by one ulp.
            out[0] = if residual > 0.0 { next_up(out[0]) } else { next_down(out[0]) };
        } else {
            out[0] = adjusted;
        }
    }
    passes(out)
}

fn next_up(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    let bits = x.to_bits();
    f32::from_bits(if x > 0.0 { bits + 1 } else { bits - 1 })
}

fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(targets: &[f64], steps: u32) -> Vec<u32> {
        let mut out = Vec::new();
        largest_remainder(targets, steps, &mut out, &mut Vec::new());
        out
    }

    #[test]
    fn u8_halves_split_128_127_with_the_tie_to_the_first() {
        // 0.5 * 255 = 127.5 twice: floors 127 + 127 = 254, one step missing, equal
        // remainders 0.5: the first target takes it.
        assert_eq!(codes(&[0.5, 0.5], 255), vec![128, 127]);
    }

    #[test]
    fn u16_quarters_and_largest_remainders() {
        // 0.25 * 65535 = 16383.75 four times: floors sum 65532, three steps missing, all
        // remainders equal: the first three take one each.
        assert_eq!(codes(&[0.25; 4], 65535), vec![16384, 16384, 16384, 16383]);
        // 0.5, 0.25, 0.25 -> 32767.5, 16383.75, 16383.75: floors sum 65533; the two .75
        // remainders beat the .5.
        assert_eq!(codes(&[0.5, 0.25, 0.25], 65535), vec![32767, 16384, 16384]);
    }

    #[test]
    fn the_largest_remainder_wins_on_u8() {
        // 255 * [0.375, 0.375, 0.25] = 95.625, 95.625, 63.75: floors sum 253; the .75 takes
        // the first missing step, the tie between the .625s goes to the earlier.
        assert_eq!(codes(&[0.375, 0.375, 0.25], 255), vec![96, 95, 64]);
    }

    #[test]
    fn codes_always_sum_to_the_grid() {
        // Deterministic pseudo-random targets (a fixed LCG), 1 to 8 weights per vertex.
        let mut state = 0x2545_f491_u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as f64 / f64::from(1u32 << 31)
        };
        for round in 0..2000 {
            let n = 1 + round % 8;
            let raw: Vec<f64> = (0..n).map(|_| next() + 1e-6).collect();
            let total: f64 = raw.iter().sum();
            let targets: Vec<f64> = raw.iter().map(|w| w / total).collect();
            for steps in [255, 65535] {
                let c = codes(&targets, steps);
                assert_eq!(c.iter().sum::<u32>(), steps, "{targets:?}");
                for (code, t) in c.iter().zip(&targets) {
                    // Never more than one step from the exact value.
                    assert!((f64::from(*code) - t * f64::from(steps)).abs() < 1.0 + 1e-9);
                }
            }
        }
    }

    #[test]
    fn float_weights_move_the_residual_onto_the_first() {
        use super::super::rule::{Slot, judge};
        // One set, slots in order: the validator's running f32 sum must land within 3 * 2e-7.
        let passes = |w: &[f32]| {
            let mut slots = [Slot { joint: 0, weight: 0.0 }; 4];
            for (k, (slot, &x)) in slots.iter_mut().zip(w).enumerate() {
                *slot = Slot { joint: k as u16, weight: f64::from(x) };
            }
            judge(&slots, 3, &mut Vec::new()).clean()
        };
        let mut out = Vec::new();
        assert!(float_weights(&[0.7, 0.2, 0.1], &mut out, passes), "{out:?}");
        // Only the first weight may move, and by no more than a few ulps.
        assert_eq!(out[1], 0.2f32);
        assert_eq!(out[2], 0.1f32);
        assert!((f64::from(out[0]) - 0.7).abs() < 1e-6);
        // A test that rejects the first attempt: the first weight is adjusted.
        let mut calls = 0;
        let ok = float_weights(&[0.5, 0.5], &mut out, |_| {
            calls += 1;
            calls > 1
        });
        assert!(ok);
        assert_eq!(calls, 2);
    }

    #[test]
    fn next_up_and_down_step_one_ulp() {
        assert_eq!(next_up(1.0), 1.0 + f32::EPSILON);
        assert_eq!(next_down(1.0), 1.0 - f32::EPSILON / 2.0);
    }
}
