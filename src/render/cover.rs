//! The covered centres of a set-up triangle's box, a row at a time and eight columns to an
//! AVX2 operation or sixteen to an AVX-512 one (x86_64 only; checked at run time), for the
//! triangles whose covered centres the set-up does not know (`fill::SmallLanes::scan`).
//!
//! Those are slivers for the most part, most of their box rows empty, and each row's run
//! worked out from the edges' quotients (`runs_avx2`, `fill::RowRuns`) cost more than the
//! row's pixels. Here every centre of the box is tested, three adds and a compare for
//! sixteen of them, with no division and no branch.

use std::arch::x86_64::*;

use super::fill::{LANES, SmallLanes};
use crate::isa::Isa;

/// The widest box `row_masks` takes: two AVX-512 operations a row, or four AVX2 ones.
pub(super) const MASK_COLS: usize = 32;
/// The most rows it takes at once: a set-up triangle spans less than 64 pixels.
pub(super) const MASK_ROWS: usize = 64;

/// The covered centres of `rows` rows (at most `MASK_ROWS`) of the box of lane `k`'s
/// triangle in `lanes`, from its row `first` on, the box being `cols` wide (1 to
/// `MASK_COLS`): bit `q` of `masks[r]` is set when all three edge values at column `q` of
/// row `first + r` are at least zero. Returns bit `r` set when `masks[r]` is not 0, or
/// `None` (nothing written) without AVX2.
///
/// The values are worked out in i32, as adds from the lane's: exact where every edge
/// value of the box, and of the columns past it to the next multiple of 16, fits (set-up
/// triangles span less than 64 pixels: their values stay below 2^30).
///
/// The edges are read from `lanes` here: handed over as values, they went through the
/// stack four bytes at a time and were read back sixteen at a time, and a load that
/// spans several stores waits for them to reach the cache.
pub(super) fn row_masks(
    lanes: &SmallLanes,
    k: usize,
    first: i32,
    cols: usize,
    rows: usize,
    masks: &mut [u32; MASK_ROWS],
) -> Option<u64> {
    let isa = Isa::best()?;
    if cols == 0 || cols > MASK_COLS || k >= LANES {
        return None;
    }
    let edge = |e: &[[i32; LANES]; 3]| [e[0][k], e[1][k], e[2][k]];
    let (a, b, c) = (edge(&lanes.a), edge(&lanes.b), edge(&lanes.c));
    let e = [c[0] + b[0] * first, c[1] + b[1] * first, c[2] + b[2] * first];
    let rows = rows.min(MASK_ROWS);
    // SAFETY: the CPU has `isa`.
    Some(unsafe {
        match isa {
            Isa::Avx512 => masks_avx512(a, b, e, cols, rows, masks),
            Isa::Avx2 => match cols {
                0..=8 => masks_avx2::<1>(a, b, e, cols, rows, masks),
                9..=16 => masks_avx2::<2>(a, b, e, cols, rows, masks),
                _ => masks_avx2::<4>(a, b, e, cols, rows, masks),
            },
        }
    })
}

/// `row_masks` of the edges stepping by `a` a column and `b` a row, with the values `e` at
/// the first column of the first row, for `rows <= MASK_ROWS`.
///
/// SAFETY (caller): AVX-512F, VL and BW present.
#[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw")]
unsafe fn masks_avx512(
    a: [i32; 3],
    b: [i32; 3],
    e: [i32; 3],
    cols: usize,
    rows: usize,
    masks: &mut [u32; MASK_ROWS],
) -> u64 {
    let set1 = _mm512_set1_epi32;
    let column = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    // Columns 0..16 and 16..32 of the first row, per edge.
    let first = |k: usize| _mm512_add_epi32(set1(e[k]), _mm512_mullo_epi32(column, set1(a[k])));
    let mut lo = [first(0), first(1), first(2)];
    let beyond = |k: usize| _mm512_add_epi32(lo[k], set1(a[k].wrapping_mul(16)));
    let mut hi = [beyond(0), beyond(1), beyond(2)];
    let down = [set1(b[0]), set1(b[1]), set1(b[2])];
    let keep = if cols >= 32 { u32::MAX } else { (1u32 << cols) - 1 };
    let (keep_lo, keep_hi) = (keep as u16, (keep >> 16) as u16);
    let zero = _mm512_setzero_si512();
    // All three at least zero: the or of the three is.
    let covered = |v: &[__m512i; 3], keep: u16| {
        let any = _mm512_or_si512(_mm512_or_si512(v[0], v[1]), v[2]);
        u32::from(_mm512_mask_cmpge_epi32_mask(keep, any, zero))
    };
    let step = |v: &mut [__m512i; 3]| {
        for k in 0..3 {
            v[k] = _mm512_add_epi32(v[k], down[k]);
        }
    };
    let mut nonempty = 0u64;
    for (r, mask) in masks.iter_mut().enumerate().take(rows) {
        let mut m = covered(&lo, keep_lo);
        step(&mut lo);
        if keep_hi != 0 {
            m |= covered(&hi, keep_hi) << 16;
            step(&mut hi);
        }
        *mask = m;
        nonempty |= u64::from(m != 0) << r;
    }
    nonempty
}

/// `masks_avx512` with AVX2, for a box of at most `8 * GROUPS` columns, eight at a time.
///
/// SAFETY (caller): AVX2 present.
#[target_feature(enable = "avx2")]
unsafe fn masks_avx2<const GROUPS: usize>(
    a: [i32; 3],
    b: [i32; 3],
    e: [i32; 3],
    cols: usize,
    rows: usize,
    masks: &mut [u32; MASK_ROWS],
) -> u64 {
    let set1 = _mm256_set1_epi32;
    let column = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    // Group g: columns 8 g to 8 g + 8 of the first row, per edge.
    let first = |k: usize| _mm256_add_epi32(set1(e[k]), _mm256_mullo_epi32(column, set1(a[k])));
    let mut values = [[first(0), first(1), first(2)]; GROUPS];
    for g in 1..GROUPS {
        for k in 0..3 {
            values[g][k] = _mm256_add_epi32(values[g - 1][k], set1(a[k].wrapping_mul(8)));
        }
    }
    let down = [set1(b[0]), set1(b[1]), set1(b[2])];
    let keep = if cols >= 32 { u32::MAX } else { (1u32 << cols) - 1 };
    let mut nonempty = 0u64;
    for (r, mask) in masks.iter_mut().enumerate().take(rows) {
        let mut m = 0u32;
        for (g, v) in values.iter_mut().enumerate() {
            // The sign bits of the or of the three are the centres not covered.
            let any = _mm256_or_si256(_mm256_or_si256(v[0], v[1]), v[2]);
            m |= (!(_mm256_movemask_ps(_mm256_castsi256_ps(any)) as u32) & 0xff) << (8 * g);
            for k in 0..3 {
                v[k] = _mm256_add_epi32(v[k], down[k]);
            }
        }
        *mask = m & keep;
        nonempty |= u64::from(m & keep != 0) << r;
    }
    nonempty
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_masks_test_every_centre() {
        let isas: Vec<Isa> = Isa::available().collect();
        if isas.is_empty() {
            eprintln!("note: no AVX2 here; row_masks is not tested");
            assert_eq!(row_masks(&SmallLanes::default(), 0, 0, 4, 4, &mut [0; MASK_ROWS]), None);
        }
        for isa in isas {
            isa.forced(every_centre);
        }
    }

    /// `row_masks_test_every_centre` with the instruction set `Isa::best` gives.
    fn every_centre() {
        // Random edges (steps of up to 64 pixels' worth) over boxes of every width: each
        // bit must be the edge functions' verdict at its centre, worked out on its own.
        let mut seed = 3u64;
        let mut next = move |m: i64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 24) as i64 % (2 * m + 1) - m
        };
        let (mut covered, mut centres, mut zeros) = (0, 0, 0);
        for trial in 0..3000 {
            let cols = trial % MASK_COLS + 1;
            let rows = (trial * 7) % MASK_ROWS + 1;
            // Steps that cross zero within the box now and then.
            let a: [i32; 3] = std::array::from_fn(|_| next(1 << 6) as i32 * 256);
            let b: [i32; 3] = std::array::from_fn(|_| next(1 << 6) as i32 * 256);
            // Multiples of 256 give values exactly zero at some centres (which count as
            // covered), the odd 1 either way values just past it.
            let e: [i32; 3] =
                std::array::from_fn(|k| (next(1 << 10) * 256 + next(1) - i64::from(a[k]) * 8) as i32);
            let mut masks = [0; MASK_ROWS];
            // In lane `k`, anchored `first` rows above the first row asked for.
            let (k, first) = (trial % LANES, (trial / 3 % 5) as i32);
            let mut lanes = SmallLanes::default();
            for i in 0..3 {
                (lanes.a[i][k], lanes.b[i][k], lanes.c[i][k]) = (a[i], b[i], e[i] - b[i] * first);
            }
            let nonempty = row_masks(&lanes, k, first, cols, rows, &mut masks).expect("AVX2");
            for (r, &got) in masks.iter().enumerate().take(rows) {
                let mut want = 0u32;
                for q in 0..cols {
                    let at =
                        |k: usize| i64::from(e[k]) + i64::from(a[k]) * q as i64 + i64::from(b[k]) * r as i64;
                    zeros += usize::from((0..3).any(|k| at(k) == 0) && (0..3).all(|k| at(k) >= 0));
                    if (0..3).all(|k| at(k) >= 0) {
                        want |= 1 << q;
                    }
                }
                assert_eq!(got, want, "{a:?} {b:?} {e:?} row {r} of {rows}, {cols} columns");
                assert_eq!(nonempty >> r & 1, u64::from(want != 0));
                covered += want.count_ones() as usize;
                centres += cols;
            }
            assert_eq!(nonempty.checked_shr(rows as u32).unwrap_or(0), 0);
        }
        assert!(covered > 20_000 && covered < centres - 20_000, "{covered} of {centres}");
        assert!(zeros > 100, "{zeros} covered centres on an edge");
        // Boxes it does not take.
        let lanes = SmallLanes::default();
        assert_eq!(row_masks(&lanes, 0, 0, 0, 4, &mut [0; MASK_ROWS]), None);
        assert_eq!(row_masks(&lanes, 0, 0, MASK_COLS + 1, 4, &mut [0; MASK_ROWS]), None);
        assert_eq!(row_masks(&lanes, LANES, 0, 4, 4, &mut [0; MASK_ROWS]), None);
    }
}
