//! Repairing one vertex: from its stored slots (every `JOINTS_n`/`WEIGHTS_n` set) to new slots
//! in the same layout that pass the validator's influence rule.
//!
//! Steps: keep in-range joints with a finite positive weight; add up repeated joints;
//! normalise; prune small weights (never the largest); keep the largest `cap`; normalise
//! again; quantise per the sets' storage; pack sorted by weight descending (ties: lower joint
//! first) into set 0 components 0..4, then set 1, ...; fill the rest with joint 0, weight 0.
//! A vertex with no usable weight goes wholly to the skin's root joint.
//!
//! A vertex that already passes the rule (no warning either) and that the options leave
//! alone is kept exactly as stored, so repair touches only what needs it.

use super::quantize::{float_weights, largest_remainder};
use super::rule::{Slot, judge};

/// One stored weight, in the component type of its `WEIGHTS_n` accessor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StoredWeight {
    F32(f32),
    /// Normalised unsigned byte: the weight is `c / 255`.
    U8(u8),
    /// Normalised unsigned short: the weight is `c / 65535`.
    U16(u16),
}

impl StoredWeight {
    /// The weight as the validator reads it.
    pub fn value(self) -> f64 {
        match self {
            StoredWeight::F32(w) => f64::from(w),
            StoredWeight::U8(c) => f64::from(c) / 255.0,
            StoredWeight::U16(c) => f64::from(c) / 65535.0,
        }
    }

    /// Zero in the same component type.
    fn zero(self) -> Self {
        match self {
            StoredWeight::F32(_) => StoredWeight::F32(0.0),
            StoredWeight::U8(_) => StoredWeight::U8(0),
            StoredWeight::U16(_) => StoredWeight::U16(0),
        }
    }

    /// Bit-exact equality (so NaN equals the same NaN and -0 differs from +0).
    fn same(self, other: Self) -> bool {
        match (self, other) {
            (StoredWeight::F32(a), StoredWeight::F32(b)) => a.to_bits() == b.to_bits(),
            _ => self == other,
        }
    }
}

/// One slot: a joint index (into the skin's joints) and its stored weight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoredSlot {
    pub joint: u16,
    pub weight: StoredWeight,
}

/// What the vertex may use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Limits {
    /// Largest valid joint index (the validator's limit for the mesh).
    pub max_joint: usize,
    /// Joint that takes a vertex with no usable weight.
    pub root: u16,
    /// Most influences kept (at most the slot count).
    pub cap: usize,
    /// Normalised weights below this are dropped (0 keeps all).
    pub prune: f64,
}

/// What happened to one vertex.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Outcome {
    /// The new slots differ from the stored ones.
    pub changed: bool,
    /// No usable weight: the vertex was given to the root joint.
    pub rooted: bool,
    /// The new slots pass the validator rule with no warning.
    pub clean: bool,
    /// Largest change of any one joint's total weight, stored vs new.
    pub max_change: f64,
}

/// Buffers reused across vertices.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    slots: Vec<Slot>,
    seen: Vec<u16>,
    /// (joint, weight) of the usable influences.
    influences: Vec<(u16, f64)>,
    targets: Vec<f64>,
    codes: Vec<u32>,
    order: Vec<usize>,
    floats: Vec<f32>,
}

/// How the vertex's weights are quantised: one grid for all of its slots.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Grid {
    /// Every set stores f32.
    Float,
    /// Integer codes out of this many steps: 255 when any set stores u8, else 65535.
    /// Finer sets store the same values exactly (65535 = 255 * 257) and f32 sets store
    /// `f32(c / steps)`, whose rounding stays far inside the validator's tolerance.
    Steps(u32),
}

fn grid(slots: &[StoredSlot]) -> Grid {
    let has = |f: fn(&StoredWeight) -> bool| slots.iter().any(|s| f(&s.weight));
    if has(|w| matches!(w, StoredWeight::U8(_))) {
        Grid::Steps(255)
    } else if has(|w| matches!(w, StoredWeight::U16(_))) {
        Grid::Steps(65535)
    } else {
        Grid::Float
    }
}

/// Repairs one vertex. `stored` and `out` hold `4 * sets` slots, set by set; `out` keeps
/// each slot's component type. `out` is always filled (a copy of `stored` when unchanged).
pub(crate) fn repair_vertex(
    stored: &[StoredSlot],
    limits: &Limits,
    s: &mut Scratch,
    out: &mut [StoredSlot],
) -> Outcome {
    s.slots.clear();
    s.slots.extend(stored.iter().map(|slot| Slot { joint: slot.joint, weight: slot.weight.value() }));
    let before = judge(&s.slots, limits.max_joint, &mut s.seen);

    s.influences.clear();
    for slot in &s.slots {
        if usize::from(slot.joint) > limits.max_joint || !(slot.weight.is_finite() && slot.weight > 0.0) {
            continue;
        }
        match s.influences.iter_mut().find(|(j, _)| *j == slot.joint) {
            Some((_, w)) => *w += slot.weight,
            None => s.influences.push((slot.joint, slot.weight)),
        }
    }
    let total: f64 = s.influences.iter().map(|&(_, w)| w).sum();
    let over_cap = s.influences.len() > limits.cap;
    let below_prune = s.influences.iter().any(|&(_, w)| w / total < limits.prune);
    if before.clean() && !over_cap && !below_prune {
        out.copy_from_slice(stored);
        return Outcome { changed: false, rooted: false, clean: true, max_change: 0.0 };
    }

    let rooted = s.influences.is_empty() || !(total.is_finite() && total > 0.0);
    if rooted {
        s.influences.clear();
        s.influences.push((limits.root, 1.0));
    }
    s.influences.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    normalise(&mut s.influences);
    if limits.prune > 0.0 {
        let mut k = 0;
        // Sorted descending: the first (largest) influence always stays.
        s.influences.retain(|&(_, w)| {
            k += 1;
            k == 1 || w >= limits.prune
        });
        normalise(&mut s.influences);
    }
    s.influences.truncate(limits.cap.max(1));
    normalise(&mut s.influences);

    quantise_and_pack(stored, limits, s, out);
    let after = judge(&s.slots, limits.max_joint, &mut s.seen);
    let changed = stored.iter().zip(out.iter()).any(|(a, b)| a.joint != b.joint || !a.weight.same(b.weight));
    Outcome { changed, rooted, clean: after.clean(), max_change: max_change(stored, out) }
}

fn normalise(influences: &mut [(u16, f64)]) {
    let total: f64 = influences.iter().map(|&(_, w)| w).sum();
    if total > 0.0 && total.is_finite() {
        for (_, w) in influences.iter_mut() {
            *w /= total;
        }
    }
}

/// Quantises `s.influences` (sorted, normalised) onto the vertex's grid and writes `out`;
/// leaves the validator's view of `out` in `s.slots`.
fn quantise_and_pack(stored: &[StoredSlot], limits: &Limits, s: &mut Scratch, out: &mut [StoredSlot]) {
    let n = s.influences.len().min(out.len());
    s.influences.truncate(n);
    s.targets.clear();
    s.targets.extend(s.influences.iter().map(|&(_, w)| w));
    for (slot, from) in out.iter_mut().zip(stored) {
        *slot = StoredSlot { joint: 0, weight: from.weight.zero() };
    }
    match grid(stored) {
        Grid::Steps(steps) => {
            largest_remainder(&s.targets, steps, &mut s.codes, &mut s.order);
            let mut k = 0;
            for (&(joint, _), &code) in s.influences.iter().zip(&s.codes) {
                // A weight too small for the grid leaves its slot to the next influence.
                if code == 0 {
                    continue;
                }
                if let Some(slot) = out.get_mut(k) {
                    *slot = StoredSlot { joint, weight: encode(slot.weight, code, steps) };
                    k += 1;
                }
            }
            fill_validator_view(out, &mut s.slots);
        }
        Grid::Float => {
            let (slots, seen, influences) = (&mut s.slots, &mut s.seen, &s.influences);
            let max_joint = limits.max_joint;
            float_weights(&s.targets, &mut s.floats, |weights| {
                for (k, slot) in out.iter_mut().enumerate() {
                    *slot = match (influences.get(k), weights.get(k)) {
                        (Some(&(joint, _)), Some(&w)) if w != 0.0 => {
                            StoredSlot { joint, weight: StoredWeight::F32(w) }
                        }
                        _ => StoredSlot { joint: 0, weight: StoredWeight::F32(0.0) },
                    };
                }
                fill_validator_view(out, slots);
                judge(slots, max_joint, seen).clean()
            });
        }
    }
}

/// `code` out of `steps`, stored in the component type of `like`.
fn encode(like: StoredWeight, code: u32, steps: u32) -> StoredWeight {
    match like {
        StoredWeight::U8(_) => StoredWeight::U8(u8::try_from(code).unwrap_or(u8::MAX)),
        StoredWeight::U16(_) => {
            let scaled = if steps == 255 { code * 257 } else { code };
            StoredWeight::U16(u16::try_from(scaled).unwrap_or(u16::MAX))
        }
        StoredWeight::F32(_) => StoredWeight::F32((f64::from(code) / f64::from(steps)) as f32),
    }
}

fn fill_validator_view(out: &[StoredSlot], slots: &mut Vec<Slot>) {
    slots.clear();
    slots.extend(out.iter().map(|slot| Slot { joint: slot.joint, weight: slot.weight.value() }));
}

/// Largest change of one joint's total weight (finite stored weights, any joint index).
fn max_change(stored: &[StoredSlot], out: &[StoredSlot]) -> f64 {
    let total = |slots: &[StoredSlot], joint: u16| -> f64 {
        slots.iter().filter(|s| s.joint == joint).map(|s| s.weight.value()).filter(|w| w.is_finite()).sum()
    };
    stored.iter().chain(out).map(|s| (total(stored, s.joint) - total(out, s.joint)).abs()).fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits { max_joint: 5, root: 2, cap: 8, prune: 0.0 };

    fn f32_slots(joints: &[u16], weights: &[f32]) -> Vec<StoredSlot> {
        joints
            .iter()
            .zip(weights)
            .map(|(&joint, &w)| StoredSlot { joint, weight: StoredWeight::F32(w) })
            .collect()
    }

    fn u8_slots(joints: &[u16], codes: &[u8]) -> Vec<StoredSlot> {
        joints
            .iter()
            .zip(codes)
            .map(|(&joint, &c)| StoredSlot { joint, weight: StoredWeight::U8(c) })
            .collect()
    }

    fn run(stored: &[StoredSlot], limits: &Limits) -> (Outcome, Vec<StoredSlot>) {
        let mut out = stored.to_vec();
        let outcome = repair_vertex(stored, limits, &mut Scratch::default(), &mut out);
        (outcome, out)
    }

    fn joints(slots: &[StoredSlot]) -> Vec<u16> {
        slots.iter().map(|s| s.joint).collect()
    }

    fn floats(slots: &[StoredSlot]) -> Vec<f32> {
        slots.iter().map(|s| if let StoredWeight::F32(w) = s.weight { w } else { f32::NAN }).collect()
    }

    #[test]
    fn a_clean_vertex_is_kept_exactly() {
        // Unsorted but valid: repair leaves it alone.
        let stored = f32_slots(&[1, 3, 0, 0], &[0.25, 0.75, 0.0, 0.0]);
        let (outcome, out) = run(&stored, &LIMITS);
        assert!(!outcome.changed && outcome.clean);
        assert_eq!(out, stored);
    }

    #[test]
    fn u8_halves_become_128_and_127() {
        // 128 + 128 = 256: each is 0.5 of the total; 127.5 each on 255 steps, the tie goes to
        // the lower joint index (joint 1 before joint 4, equal weights).
        let stored = u8_slots(&[4, 1, 0, 0], &[128, 128, 0, 0]);
        let (outcome, out) = run(&stored, &LIMITS);
        assert!(outcome.changed && outcome.clean);
        assert_eq!(joints(&out), vec![1, 4, 0, 0]);
        let codes: Vec<StoredWeight> = out.iter().map(|s| s.weight).collect();
        assert_eq!(
            codes,
            vec![StoredWeight::U8(128), StoredWeight::U8(127), StoredWeight::U8(0), StoredWeight::U8(0)]
        );
        // Joint 1 went from 128/255 to 128/255, joint 4 from 128/255 to 127/255.
        assert!((outcome.max_change - 1.0 / 255.0).abs() < 1e-12);
    }

    #[test]
    fn u16_weights_sum_to_65535() {
        // 0.25 + 0.25 of 65535 each: both halves 32767.5, the tie to joint 0 (lower index).
        let stored: Vec<StoredSlot> = [(3u16, 16384u16), (0, 16384), (0, 0), (0, 0)]
            .iter()
            .map(|&(joint, c)| StoredSlot { joint, weight: StoredWeight::U16(c) })
            .collect();
        let (outcome, out) = run(&stored, &LIMITS);
        assert!(outcome.clean);
        assert_eq!(joints(&out), vec![0, 3, 0, 0]);
        assert_eq!(out[0].weight, StoredWeight::U16(32768));
        assert_eq!(out[1].weight, StoredWeight::U16(32767));
    }

    #[test]
    fn duplicates_merge_and_out_of_range_joints_go() {
        // Joint 3 twice (0.25 + 0.25), joint 7 beyond max joint 5, joint 1 0.5: merged 3 = 0.5
        // and 1 = 0.5 over a usable total of 1; the tie goes to joint 1.
        let stored = f32_slots(&[3, 7, 3, 1], &[0.25, 0.3, 0.25, 0.5]);
        let (outcome, out) = run(&stored, &LIMITS);
        assert!(outcome.clean);
        assert_eq!(joints(&out), vec![1, 3, 0, 0]);
        assert_eq!(floats(&out), vec![0.5, 0.5, 0.0, 0.0]);
    }

    #[test]
    fn nan_and_negative_weights_are_dropped() {
        let stored = f32_slots(&[2, 3, 4, 0], &[f32::NAN, 0.5, -0.25, 0.0]);
        let (outcome, out) = run(&stored, &LIMITS);
        assert!(outcome.clean);
        assert_eq!(joints(&out), vec![3, 0, 0, 0]);
        assert_eq!(floats(&out), vec![1.0, 0.0, 0.0, 0.0]);
        // Joint 3 went from 0.5 to 1; joint 4 from -0.25 to 0.
        assert_eq!(outcome.max_change, 0.5);
    }

    #[test]
    fn zero_weight_slots_get_joint_0() {
        let stored = f32_slots(&[4, 2, 0, 0], &[1.0, 0.0, 0.0, 0.0]);
        let (outcome, out) = run(&stored, &LIMITS);
        assert!(outcome.changed && outcome.clean);
        assert_eq!(joints(&out), vec![4, 0, 0, 0]);
        assert_eq!(outcome.max_change, 0.0);
    }

    #[test]
    fn an_all_zero_vertex_goes_to_the_root() {
        let stored = f32_slots(&[0, 0, 0, 0], &[0.0; 4]);
        let (outcome, out) = run(&stored, &LIMITS);
        assert!(outcome.rooted && outcome.clean);
        assert_eq!(joints(&out), vec![2, 0, 0, 0]);
        assert_eq!(floats(&out), vec![1.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn max_influences_keeps_the_largest() {
        // Two sets: 0.4, 0.3, 0.2, 0.1 in set 0; nothing in set 1. Keep 2: 0.4 and 0.3 become
        // 4/7 and 3/7.
        let mut stored = f32_slots(&[1, 2, 3, 4], &[0.4, 0.3, 0.2, 0.1]);
        stored.extend(f32_slots(&[0; 4], &[0.0; 4]));
        let limits = Limits { cap: 2, ..LIMITS };
        let (outcome, out) = run(&stored, &limits);
        assert!(outcome.clean);
        assert_eq!(joints(&out), vec![1, 2, 0, 0, 0, 0, 0, 0]);
        let w = floats(&out);
        assert!((f64::from(w[0]) - 4.0 / 7.0).abs() < 1e-6);
        assert!((f64::from(w[1]) - 3.0 / 7.0).abs() < 1e-6);
        assert!(w[2..].iter().all(|&x| x == 0.0));
    }

    #[test]
    fn a_vertex_over_the_slot_count_spills_into_set_1_in_order() {
        // Five influences over two sets, valid: kept as stored without options.
        let mut stored = f32_slots(&[4, 5, 3, 2], &[0.25, 0.25, 0.125, 0.125]);
        stored.extend(f32_slots(&[1, 0, 0, 0], &[0.25, 0.0, 0.0, 0.0]));
        let (outcome, _) = run(&stored, &LIMITS);
        assert!(!outcome.changed);
        // With prune 0.2 the two 0.125 go: 0.25 * 3 renormalised to 1/3 each, sorted with
        // ties by joint: 1, 4, 5.
        let (outcome, out) = run(&stored, &Limits { prune: 0.2, ..LIMITS });
        assert!(outcome.clean);
        assert_eq!(joints(&out), vec![1, 4, 5, 0, 0, 0, 0, 0]);
        let w = floats(&out);
        for x in &w[0..3] {
            assert!((f64::from(*x) - 1.0 / 3.0).abs() < 1e-6);
        }
    }

    #[test]
    fn prune_never_drops_the_largest() {
        let stored = f32_slots(&[1, 2, 3, 4], &[0.25; 4]);
        let (outcome, out) = run(&stored, &Limits { prune: 0.5, ..LIMITS });
        assert!(outcome.clean);
        assert_eq!(joints(&out), vec![1, 0, 0, 0]);
        assert_eq!(floats(&out), vec![1.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn mixed_u8_and_f32_sets_share_the_255_grid() {
        let mut stored = u8_slots(&[1, 2, 0, 0], &[100, 100, 0, 0]);
        stored.extend(f32_slots(&[3, 0, 0, 0], &[0.5, 0.0, 0.0, 0.0]));
        let (outcome, out) = run(&stored, &LIMITS);
        assert!(outcome.clean);
        // Totals: 100/255, 100/255, 0.5 -> about 0.305, 0.305, 0.389 of their sum.
        assert_eq!(joints(&out), vec![3, 1, 2, 0, 0, 0, 0, 0]);
    }

    /// Deterministic pseudo-random f32 vertices, two sets, random faults: every output must
    /// pass the rule with no warning (checked by the rule module, a second statement of the
    /// validator), and sum to 1 in f64 within the validator's tolerance.
    #[test]
    fn random_float_vertices_always_pass() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut scratch = Scratch::default();
        let mut seen = Vec::new();
        for _ in 0..20_000 {
            let mut stored = Vec::with_capacity(8);
            for _ in 0..8 {
                let r = next();
                let joint = (r % 8) as u16; // 6 and 7 are out of range
                let weight = match (r >> 8) % 10 {
                    0 => 0.0,
                    1 => -0.1,
                    2 if (r >> 12) % 4 == 0 => f32::NAN,
                    _ => ((r >> 20) % 1_000_000) as f32 / 1_000_000.0 * 3.0,
                };
                stored.push(StoredSlot { joint, weight: StoredWeight::F32(weight) });
            }
            let mut out = stored.clone();
            let outcome = repair_vertex(&stored, &LIMITS, &mut scratch, &mut out);
            let slots: Vec<Slot> =
                out.iter().map(|s| Slot { joint: s.joint, weight: s.weight.value() }).collect();
            let verdict = judge(&slots, LIMITS.max_joint, &mut seen);
            assert!(outcome.clean && verdict.clean(), "{stored:?} -> {out:?}");
            let sum: f64 = slots.iter().map(|s| s.weight).sum();
            assert!((sum - 1.0).abs() <= 2e-7 * verdict.influences as f64, "{out:?}");
        }
    }
}
