//! Evenly keyed looping cycles: key times and per-key phases for clips that must loop
//! seamlessly (the last key's value is bit-identical to the first's).

use super::trig::TAU;

/// Key times `period * i / intervals` for i in 0..=intervals.
pub fn timeline(period: f64, intervals: usize) -> Vec<f32> {
    (0..=intervals).map(|i| (period * i as f64 / intervals as f64) as f32).collect()
}

/// `f(phase)` at each key, phase = 2 pi i / intervals. The phase index wraps at the last key,
/// so that key is computed from exactly the same phase as the first.
pub fn looping<T>(intervals: usize, f: impl Fn(f64) -> T) -> Vec<T> {
    (0..=intervals).map(|i| f(TAU * (i % intervals.max(1)) as f64 / intervals as f64)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeline_ends_on_the_period() {
        assert_eq!(timeline(2.0, 4), vec![0.0, 0.5, 1.0, 1.5, 2.0]);
    }

    #[test]
    fn looping_repeats_the_first_phase_at_the_end() {
        let phases = looping(3, |p| p);
        assert_eq!(phases.len(), 4);
        assert_eq!(phases.first(), phases.last());
        assert!((phases[1] - TAU / 3.0).abs() < 1e-15);
    }
}
