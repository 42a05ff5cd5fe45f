//! Fixed-memory statistics for `bench`: a log-bucketed histogram whose percentiles are within
//! half a percent of the exact nearest-rank values, so a run of 100,000 frames takes the
//! same memory as one of 1,000.

/// Counts of positive values in buckets `RATIO` apart from `MIN` up, plus exact zeros, the
/// exact minimum and maximum (a percentile never leaves them), and values past the top.
#[derive(Debug, Clone)]
pub struct Histogram {
    counts: Vec<u64>,
    zeros: u64,
    total: u64,
    min: f64,
    max: f64,
}

/// The smallest positive value told apart from zero (a nanosecond in milliseconds, a byte).
const MIN: f64 = 1e-6;
/// Consecutive bucket bounds differ by this factor: a bucket's middle is within 0.5% of
/// anything in it.
const RATIO: f64 = 1.01;
/// Buckets from `MIN` to `MIN * RATIO^BUCKETS` (about 1e12: 30 years in ms, a terabyte).
const BUCKETS: usize = 4_200;

impl Default for Histogram {
    fn default() -> Self {
        Histogram { counts: vec![0; BUCKETS], zeros: 0, total: 0, min: f64::INFINITY, max: f64::NEG_INFINITY }
    }
}

impl Histogram {
    /// Counts `v`; NaN, infinite and negative values are left out (they are not timings).
    pub fn record(&mut self, v: f64) {
        if !v.is_finite() || v < 0.0 {
            return;
        }
        self.total += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        if v < MIN {
            self.zeros += 1;
        } else {
            let bucket = ((v / MIN).ln() / RATIO.ln()) as usize;
            self.counts[bucket.min(BUCKETS - 1)] += 1;
        }
    }

    /// The value at rank `p` (0..=1), nearest-rank, as its bucket's geometric middle kept
    /// within the exact minimum and maximum; 0 when nothing was recorded.
    pub fn percentile(&self, p: f64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let rank = ((p * self.total as f64).ceil() as u64).clamp(1, self.total);
        if rank <= self.zeros {
            return self.min;
        }
        let mut seen = self.zeros;
        for (bucket, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                let middle = MIN * RATIO.powf(bucket as f64 + 0.5);
                return middle.clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// How many values were counted.
    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn median(&self) -> f64 {
        self.percentile(0.5)
    }
}

#[cfg(test)]
mod tests {
    use super::Histogram;

    /// The exact nearest-rank percentile, the definition the histogram approximates.
    fn nearest_rank(values: &[f64], p: f64) -> f64 {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted[rank - 1]
    }

    #[test]
    fn percentiles_are_within_half_a_percent_of_nearest_rank() {
        // Timings spread over six decades, in a scrambled order.
        let values: Vec<f64> =
            (0..10_007u64).map(|i| 1e-3 * 1.0017f64.powi(((i * 7919) % 10_007) as i32)).collect();
        let mut h = Histogram::default();
        values.iter().for_each(|&v| h.record(v));
        for p in [0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 1.0] {
            let (got, want) = (h.percentile(p), nearest_rank(&values, p));
            assert!((got / want - 1.0).abs() <= 0.005, "p{p}: {got} vs {want}");
        }
    }

    #[test]
    fn edges_are_exact() {
        let mut h = Histogram::default();
        assert_eq!(h.median(), 0.0);
        h.record(3.0);
        assert_eq!(h.median(), 3.0);
        assert_eq!(h.percentile(0.99), 3.0);
        let mut h = Histogram::default();
        for v in [f64::NAN, 2.0, 1.0, -1.0, f64::INFINITY, 0.0] {
            h.record(v);
        }
        // Three values count: 0, 1, 2.
        assert_eq!(h.percentile(0.0), 0.0);
        assert_eq!(h.percentile(1.0), 2.0);
        assert!((h.median() - 1.0).abs() <= 0.005);
    }
}
