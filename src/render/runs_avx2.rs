//! The covered run of each row of a long triangle (`fill::Triangle::scan_box`), four rows
//! per step in f64 lanes (x86_64 only; AVX2 checked at run time).
//!
//! Each edge bounds a row's covered columns by the floor of an integer quotient whose
//! numerator moves by a fixed step a row (see `fill::RowRuns`). `RowRuns` steps each
//! quotient from row to row with a remainder: exact and division-free, but a chain of
//! dependent operations a row, after three 64-bit divisions per triangle to start it. The
//! long triangles of a dense mesh are slivers (CesiumMan-x32 at 400x240: 24 x 12 pixel
//! boxes on average, three rows in four empty), so those chains were most of their cost.
//! Here every row's quotient is a division of its own, four rows to an instruction, with
//! no chain from row to row.
//!
//! Exactness: numerators and divisors are integers below 2^52 in magnitude (checked, or
//! `None`), so they and the products that form them are exact in f64, and the rounded
//! quotient has the floor of the exact one. The exact `n / d` is either an integer (then
//! exactly representable, below 2^52) or at least `1 / d` from one, while the rounding
//! error is at most `|n / d| 2^-53 < 1 / (2d)`.
//!
//! The set-up's long triangles up to 32 columns wide (nearly all of them) have every
//! centre of their box tested instead (`cover`), which costs less still: these runs are
//! left for wider boxes and for the triangles the set-up does not take.

use std::arch::x86_64::*;

use super::MAX_SIDE;
use super::fill::{EdgeBound, edge_bound};
use crate::isa::{Isa, compiled_for_isa};

/// Rows worked out per call.
pub(super) const RUN_ROWS: usize = 32;

/// Numerators and divisors stay below this in magnitude (see the module comment).
const EXACT: i64 = 1 << 52;

/// A flat edge (no column step) bounds a run as a falling edge whose quotient is its
/// value times `FLAT_SCALE` (dividing by `1 / FLAT_SCALE`, a power of two: exact), plus
/// `FLAT_SCALE - 1`: a value `v >= 0` then bounds the run at column `FLAT_SCALE - 1` or
/// beyond, past any raster's last column (sides are at most `raster::MAX_SIDE`), and
/// `v <= -1` at `-1` or before, ending it. The sum rounds, but monotonically, and both
/// thresholds are representable.
const FLAT_SCALE: f64 = 65536.0;

/// The covered columns of each row worked out by `RowRunner::block`: `first[r]..=last[r]`
/// when the row has any.
pub(super) struct Runs {
    pub first: [i32; RUN_ROWS],
    pub last: [i32; RUN_ROWS],
}

impl Default for Runs {
    fn default() -> Self {
        Runs { first: [0; RUN_ROWS], last: [0; RUN_ROWS] }
    }
}

/// One edge's bound as `RowRunner::block` divides it out: row `r`'s bound is
/// `floor((num + step r) / div) + add`, the first column of the run for a rising edge,
/// the last for a falling or flat one.
#[derive(Clone, Copy)]
struct LaneBound {
    num: f64,
    step: f64,
    div: f64,
    add: f64,
    rising: bool,
}

impl LaneBound {
    /// The bound of an edge with column step `a`, row step `b` and value `e` at the first
    /// column of the first row (`fill::edge_bound`'s quotients), and the largest magnitude
    /// its numerator reaches over `rows` rows, or the divisor if larger (edge values are
    /// below 2^62, steps below 2^37, rows at most `raster::MAX_SIDE`: no overflow).
    #[inline(always)]
    fn new(a: i64, b: i64, e: i64, rows: usize) -> (LaneBound, i64) {
        let (num, step, div, add, rising) = match edge_bound(a, b, e) {
            EdgeBound::Rising { num, step, div } => (num, step, div as f64, 1.0, true),
            EdgeBound::Falling { num, step, div } => (num, step, div as f64, 0.0, false),
            EdgeBound::Flat => (e, b, 1.0 / FLAT_SCALE, FLAT_SCALE - 1.0, false),
        };
        let reach = (num.abs() + step.abs() * rows as i64).max(a.abs());
        (LaneBound { num: num as f64, step: step as f64, div, add, rising }, reach)
    }
}

/// The covered runs of a box's rows, worked out `RUN_ROWS` rows at a time (`block`).
pub(super) struct RowRunner {
    isa: Isa,
    bounds: [LaneBound; 3],
    cols: f64,
}

impl RowRunner {
    /// For a box `cols` columns wide and `rows` rows high and edges with column steps `a`,
    /// row steps `b` and values `e` at its first column of the first row (covered where
    /// all three are >= 0). `None` without AVX2, when a side is over `raster::MAX_SIDE`
    /// (no raster's is), or when the values are too large to be exact in f64 (not on a
    /// raster's guard band); `fill::RowRuns` then does it.
    #[inline(always)]
    pub(super) fn new(a: [i64; 3], b: [i64; 3], e: [i64; 3], cols: usize, rows: usize) -> Option<RowRunner> {
        if cols > MAX_SIDE || rows > MAX_SIDE {
            return None;
        }
        let isa = Isa::best()?;
        let (b0, reach0) = LaneBound::new(a[0], b[0], e[0], rows);
        let (b1, reach1) = LaneBound::new(a[1], b[1], e[1], rows);
        let (b2, reach2) = LaneBound::new(a[2], b[2], e[2], rows);
        let fits = reach0.max(reach1).max(reach2) < EXACT;
        fits.then_some(RowRunner { isa, bounds: [b0, b1, b2], cols: cols as f64 })
    }

    /// The runs of the `count` rows (at most `RUN_ROWS`, within the box) from row `from`:
    /// bit `r` of the result is set when row `from + r` has one, `out.first[r]..=
    /// out.last[r]`: the runs `fill::RowRuns` gives, row for row.
    #[inline(always)]
    pub(super) fn block(&self, from: usize, count: usize, out: &mut Runs) -> u64 {
        assert!(count <= RUN_ROWS);
        // SAFETY: the CPU has `isa` (`new`); `count` is at most `RUN_ROWS`.
        let bits = unsafe { runs_for(self.isa, &self.bounds, self.cols, from as f64, count, out) };
        if count == RUN_ROWS { bits } else { bits & ((1 << count) - 1) }
    }
}

compiled_for_isa! {
    /// `runs` compiled for `isa`.
    unsafe fn runs_for(bounds: &[LaneBound; 3], cols: f64, from: f64, count: usize, out: &mut Runs) -> u64 => runs
}

/// `RowRunner::block`'s bits (rows past `count` in the last four included) and runs.
///
/// SAFETY (caller): AVX2 present; `count <= RUN_ROWS`.
#[inline(always)]
unsafe fn runs(bounds: &[LaneBound; 3], cols: f64, from: f64, count: usize, out: &mut Runs) -> u64 {
    // SAFETY: AVX2 present (caller); the stores write four lanes at `block <= RUN_ROWS - 4`.
    unsafe {
        let splat = _mm256_set1_pd;
        let (num, step, div) = (
            [splat(bounds[0].num), splat(bounds[1].num), splat(bounds[2].num)],
            [splat(bounds[0].step), splat(bounds[1].step), splat(bounds[2].step)],
            [splat(bounds[0].div), splat(bounds[1].div), splat(bounds[2].div)],
        );
        let add = [splat(bounds[0].add), splat(bounds[1].add), splat(bounds[2].add)];
        let rising = [lanes_if(bounds[0].rising), lanes_if(bounds[1].rising), lanes_if(bounds[2].rising)];
        let (none, last_col, past) = (splat(-1.0), splat(cols - 1.0), splat(cols));
        let four = splat(4.0);
        let mut r = _mm256_add_pd(splat(from), _mm256_set_pd(3.0, 2.0, 1.0, 0.0));
        let mut bits = 0u64;
        for block in (0..count).step_by(4) {
            let (mut first, mut last) = (_mm256_setzero_pd(), last_col);
            for k in 0..3 {
                // Exact: integers below 2^52 (`RowRunner::new`).
                let n = _mm256_add_pd(num[k], _mm256_mul_pd(step[k], r));
                let bound = _mm256_add_pd(_mm256_floor_pd(_mm256_div_pd(n, div[k])), add[k]);
                // 0 leaves `first` as it is, `past` leaves `last`.
                first = _mm256_max_pd(first, _mm256_and_pd(bound, rising[k]));
                last = _mm256_min_pd(last, _mm256_blendv_pd(bound, past, rising[k]));
            }
            // Within -1..=cols, so the conversions are exact.
            let (first, last) = (_mm256_min_pd(first, past), _mm256_max_pd(last, none));
            let covered = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LE_OQ>(first, last)) as u64;
            bits |= covered << block;
            _mm_storeu_si128(out.first.as_mut_ptr().add(block).cast(), _mm256_cvtpd_epi32(first));
            _mm_storeu_si128(out.last.as_mut_ptr().add(block).cast(), _mm256_cvtpd_epi32(last));
            r = _mm256_add_pd(r, four);
        }
        bits
    }
}

/// All ones when `yes`, else all zeros.
///
/// SAFETY (caller): AVX present.
#[inline(always)]
unsafe fn lanes_if(yes: bool) -> __m256d {
    // SAFETY: AVX present (caller).
    unsafe { _mm256_castsi256_pd(_mm256_set1_epi64x(-i64::from(yes))) }
}
