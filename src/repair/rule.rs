//! The Khronos validator's per-vertex influence rule, restated over one vertex's slots so that
//! `repair` can tell a vertex that needs no change from one that does, and can verify its own
//! output before handing it on.
//!
//! Same rule as `diagnose::weights` (which cites the validator source); it is restated here
//! rather than shared because `diagnose` builds findings while `repair` only needs a verdict
//! per vertex, and a second statement of the rule lets each check the other in tests.

/// One stored influence slot, with the weight as the validator reads it: an f32 widened to
/// f64, or an integer code divided by 255 / 65535 in f64.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Slot {
    pub joint: u16,
    pub weight: f64,
}

/// What the validator says about one vertex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Verdict {
    /// Any error: out-of-range joint, duplicate weighted joint, negative or non-finite weight,
    /// or a running sum outside the tolerance.
    pub error: bool,
    /// ACCESSOR_JOINTS_USED_ZERO_WEIGHT: a zero weight paired with a joint other than 0.
    pub zero_weight_joint: bool,
    /// Distinct in-range joints with a positive weight.
    pub influences: usize,
}

impl Verdict {
    pub fn clean(&self) -> bool {
        !self.error && !self.zero_weight_joint
    }
}

/// Judges one vertex. `slots` holds `sets * 4` entries set by set (`slots[4 * set + c]`);
/// the validator visits them component-major: `for c in 0..4 { for set in sets }`.
/// The running sum is rounded to f32 after every addition and compared in f64 with
/// `2e-7` per summed weight.
pub(crate) fn judge(slots: &[Slot], max_joint: usize, seen: &mut Vec<u16>) -> Verdict {
    seen.clear();
    let sets = slots.len() / 4;
    let mut verdict = Verdict::default();
    let mut sum = 0.0f32;
    let mut threshold = 0.0f64;
    for c in 0..4 {
        for set in 0..sets {
            let Some(slot) = slots.get(4 * set + c) else {
                continue;
            };
            if !slot.weight.is_finite() {
                // ACCESSOR_INVALID_FLOAT (NaN never reaches the sum test; inf fails it anyway).
                verdict.error = true;
            }
            if usize::from(slot.joint) > max_joint {
                verdict.error = true;
                continue;
            }
            if slot.weight != 0.0 {
                let unique = !seen.contains(&slot.joint);
                if unique {
                    seen.push(slot.joint);
                } else {
                    verdict.error = true;
                }
                if slot.weight < 0.0 {
                    verdict.error = true;
                } else if unique {
                    sum = (f64::from(sum) + slot.weight) as f32;
                    threshold += 2e-7;
                    verdict.influences += 1;
                }
            } else if slot.joint != 0 {
                verdict.zero_weight_joint = true;
            }
        }
    }
    if (f64::from(sum) - 1.0).abs() > threshold {
        verdict.error = true;
    }
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(joints: &[u16], weights: &[f64]) -> Vec<Slot> {
        joints.iter().zip(weights).map(|(&joint, &weight)| Slot { joint, weight }).collect()
    }

    fn verdict(joints: &[u16], weights: &[f64], max_joint: usize) -> Verdict {
        judge(&slots(joints, weights), max_joint, &mut Vec::new())
    }

    #[test]
    fn a_normalised_vertex_is_clean() {
        let v = verdict(&[1, 2, 0, 0], &[0.75, 0.25, 0.0, 0.0], 5);
        assert!(v.clean());
        assert_eq!(v.influences, 2);
    }

    #[test]
    fn each_fault_is_an_error() {
        // Sum 0.5 is far outside 2 * 2e-7.
        assert!(verdict(&[1, 2, 0, 0], &[0.25, 0.25, 0.0, 0.0], 5).error);
        // Joint 6 is beyond max joint 5.
        assert!(verdict(&[6, 0, 0, 0], &[1.0, 0.0, 0.0, 0.0], 5).error);
        // Joint 3 twice.
        assert!(verdict(&[3, 3, 0, 0], &[0.5, 0.5, 0.0, 0.0], 5).error);
        assert!(verdict(&[2, 3, 0, 0], &[1.25, -0.25, 0.0, 0.0], 5).error);
        assert!(verdict(&[2, 3, 0, 0], &[f64::NAN, 1.0, 0.0, 0.0], 5).error);
        assert!(verdict(&[2, 0, 0, 0], &[f64::INFINITY, 0.0, 0.0, 0.0], 5).error);
    }

    #[test]
    fn a_named_joint_with_zero_weight_is_a_warning_only() {
        let v = verdict(&[4, 2, 0, 0], &[1.0, 0.0, 0.0, 0.0], 5);
        assert!(!v.error);
        assert!(v.zero_weight_joint);
    }

    #[test]
    fn tolerance_is_two_e_minus_7_per_summed_weight() {
        // One weight: 1 - 2^-23 is 1.19e-7 away from 1, inside 2e-7; 1 - 2^-22 (2.4e-7) is not.
        let near = 1.0 - f64::powi(2.0, -23);
        let far = 1.0 - f64::powi(2.0, -22);
        assert!(!verdict(&[0, 0, 0, 0], &[near, 0.0, 0.0, 0.0], 0).error);
        assert!(verdict(&[0, 0, 0, 0], &[far, 0.0, 0.0, 0.0], 0).error);
        // Two weights summing to 1 - 2^-22: inside 2 * 2e-7 = 4e-7.
        assert!(!verdict(&[0, 1, 0, 0], &[0.5, 0.5 - f64::powi(2.0, -22), 0.0, 0.0], 1).error);
    }

    #[test]
    fn sets_are_visited_component_major() {
        // Set 0 = [1, 2, 0, 0], set 1 = [3, 0, 0, 0]: every set is read, so three distinct
        // joints are counted and 0.5 + 0.25 + 0.25 sums to exactly 1.
        let v = verdict(&[1, 2, 0, 0, 3, 0, 0, 0], &[0.5, 0.25, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0], 3);
        assert!(v.clean());
        assert_eq!(v.influences, 3);
    }
}
