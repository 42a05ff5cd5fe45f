use super::*;
use crate::lanes::Backend;
use crate::render::fill::{SPAN_ANY, Triangle, centre_span, spans_hold_centre, to_fixed};
use crate::render::project::State;

/// `count` triangles of three vertices near each other, `sizes[k % len]` pixels
/// across, scattered over and a few pixels around a `w` x `h` raster; every seventh
/// vertex is not simple and every fiftieth triangle has an index out of range.
fn scattered_triangles(
    seed: u64,
    count: usize,
    sizes: &[f32],
    (w, h): (usize, usize),
) -> (Vec<ProjVertex>, Vec<Tri>) {
    let mut seed = seed;
    let mut next = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut verts = Vec::new();
    for k in 0..count {
        let (cx, cy) = (next() * (w + 8) as f32 - 4.0, next() * (h + 8) as f32 - 4.0);
        let size = sizes[k % sizes.len()];
        for _ in 0..3 {
            let (x, y) = (to_fixed(cx + next() * size) as i32, to_fixed(cy + next() * size) as i32);
            let (z, light) = (0.1 + 0.8 * next(), next() - 0.5);
            verts.push(if verts.len() % 7 == 3 {
                ProjVertex::not_simple(State::Clip, light)
            } else {
                ProjVertex { x, y, z, light }
            });
        }
    }
    let n = verts.len() as u32;
    let tris = (0..n / 3)
        .map(|k| {
            let t = [3 * k, 3 * k + 1, 3 * k + 2];
            if k % 50 == 7 { [t[0], n + k, t[2]] } else { t }
        })
        .collect();
    (verts, tris)
}

/// Along one axis, the corners `c` (snapped) of a triangle on a raster `side` pixels long:
/// their spread, and how many pixel centres lie between the lowest and the highest,
/// counted one by one.
fn spread_and_centres(c: [i32; 3], side: usize) -> (i32, usize) {
    let (lo, hi) = (c[0].min(c[1]).min(c[2]), c[0].max(c[1]).max(c[2]));
    (hi - lo, (0..side as i32).filter(|i| (lo..=hi).contains(&(i * 256 + 128))).count())
}

/// Whether the filter knows which centres the triangle of snapped corners `x`, `y`
/// covers: less than 16 pixels across both ways, and the pixel centres of a `w` x `h`
/// raster between its lowest and highest corner fit 32 bits in rows of the fewest bits of
/// 2, 4, 8 or 16 that hold its columns.
fn judged((w, h): (usize, usize), x: [i32; 3], y: [i32; 3]) -> bool {
    let ((wide, cols), (tall, rows)) = (spread_and_centres(x, w), spread_and_centres(y, h));
    let row = [2, 4, 8, 16].into_iter().find(|&bits| cols <= bits);
    wide < 16 * 256 && tall < 16 * 256 && row.is_some_and(|bits| rows * bits <= 32)
}

/// Whether the filter works out row by row which centres a triangle of snapped corners
/// `x`, `y` covers (see `Lanes::masked`): not judged, less than 64 pixels across both ways,
/// with area, and a box of 1 to 32 columns and a row or more of the `w` x `h` raster.
fn masked((w, h): (usize, usize), x: [i32; 3], y: [i32; 3]) -> bool {
    let ((wide, cols), (tall, rows)) = (spread_and_centres(x, w), spread_and_centres(y, h));
    let area =
        i64::from(x[1] - x[0]) * i64::from(y[2] - y[0]) - i64::from(y[1] - y[0]) * i64::from(x[2] - x[0]);
    let narrow = wide < 64 * 256 && tall < 64 * 256;
    !judged((w, h), x, y) && narrow && area != 0 && (1..=32).contains(&cols) && rows > 0
}

/// `check()` with each backend this CPU has (see `crate::lanes`).
fn with_each_backend(check: impl Fn()) {
    for backend in Backend::available() {
        backend.forced(&check);
    }
}

#[test]
fn span_pass_decides_as_the_scalar_test() {
    with_each_backend(|| {
        // Random spans of vertices in and around a 40 x 30 raster, every ninth not simple,
        // an index list with some indices out of range, over ranges of every length and
        // start: every bit must be `spans_hold_centre`'s verdict, for the list, for the
        // list with those indices brought in range and for vertices in order.
        let mut seed = 9u64;
        let mut next = move |m: u32| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as u32 % m
        };
        let n = 3000;
        // Three vertices within a pixel or so of each other, a group at a time.
        let mut spans = Vec::new();
        while spans.len() < n {
            let (cx, cy) = (next(46 * 256) as i32 - 3 * 256, next(36 * 256) as i32 - 3 * 256);
            for _ in 0..3 {
                let (x, y) = (cx + next(300) as i32, cy + next(300) as i32);
                spans.push(if spans.len() % 9 == 4 { SPAN_ANY } else { centre_span(40, 30, x, y) });
            }
        }
        spans.push(SPAN_ANY);
        let span = |i: u32| spans[(i as usize).min(n)];
        let indices: Vec<u32> = (0..3 * n as u32)
            .map(|k| {
                let base = (k / 3 * 3) % n as u32;
                if k % 97 == 5 { n as u32 + k } else { base + next(3) }
            })
            .collect();
        let in_range: Vec<u32> = indices.iter().map(|&i| i % n as u32).collect();
        let lists = [Some(&indices[..]), Some(&in_range[..]), None];
        let (mut tested, mut passed) = (0, 0);
        for (start, len) in [(0, 1000), (3, 517), (100, 8), (40, 7), (995, 5), (7, 0)] {
            for list in lists {
                let mut pass = [0; SPAN_PASS_MAX / 64];
                let done = span_pass(list, start..start + len, &spans, &mut pass);
                assert_eq!(done, len.min(SPAN_PASS_MAX) / 8 * 8);
                for i in 0..done {
                    let k = start + i;
                    let t = match list {
                        Some(ix) => [ix[3 * k], ix[3 * k + 1], ix[3 * k + 2]],
                        None => [3 * k as u32, 3 * k as u32 + 1, 3 * k as u32 + 2],
                    };
                    let want = spans_hold_centre(span(t[0]), span(t[1]), span(t[2]));
                    assert_eq!(pass[i / 64] >> (i % 64) & 1 == 1, want, "triangle {k} {t:?}");
                    passed += usize::from(want);
                }
                tested += done;
            }
        }
        assert!(tested > 2000 && passed > 200 && passed < tested - 200, "{tested} {passed}");
    });
}

#[test]
fn only_triangles_that_draw_nothing_are_dropped() {
    with_each_backend(|| {
        // Vertices scattered over and around a 37 x 23 raster, every seventh not simple;
        // triangles of three nearby vertices (sub-pixel to a few pixels), some with an index
        // out of range. Each must be kept exactly when it is neither judged nor masked (see
        // the module comment) or the filler draws a pixel of it.
        let (w, h) = (37, 23);
        let sizes = [0.3, 0.9, 2.0, 3.9, 6.0, 9.0, 15.0, 25.0, 40.0];
        let (verts, tris) = scattered_triangles(5, 12000, &sizes, (w, h));
        let (mut dropped, mut kept_drawing, mut kept_masked) = (0, 0, 0);
        // Kept judged triangles by the bits of their rows, log 2.
        let mut layouts = [0; 5];
        for batch in tris.chunks(61) {
            // Whatever `known` held before must not matter.
            let (mut known, mut masks) = ([Known { covered: 9, ..Known::default() }; 64], vec![7]);
            let (bits, set) = may_draw(batch, &verts, w, h, &mut known, &mut masks);
            assert_eq!((bits >> batch.len(), set & !bits), (0, 0));
            for (i, t) in batch.iter().enumerate() {
                let kept = bits >> i & 1 == 1;
                let Known { covered, set_up, light } =
                    if set >> i & 1 == 1 { known[i] } else { Known::default() };
                let Some(v) = t.map(|i| verts.get(i as usize)).into_iter().collect::<Option<Vec<_>>>() else {
                    assert!(kept, "{t:?} has an index out of range");
                    continue;
                };
                let (x, y) = ([v[0].x, v[1].x, v[2].x], [v[0].y, v[1].y, v[2].y]);
                // A vertex that is not simple has no position to draw (`NOT_SIMPLE`).
                let simple = v.iter().all(|v| v.simple());
                let judged = simple && judged((w, h), x, y);
                let masked = simple && masked((w, h), x, y);
                let mut draws = false;
                let wide = |v: [i32; 3]| v.map(i64::from);
                if simple && let Some(t) = Triangle::snapped_in(w, h, 0..h, wide(x), wide(y), [0.5; 3]) {
                    t.scan([0.0; 3], |_, _, _| draws = true);
                }
                assert_eq!(kept, !(judged || masked) || draws, "{x:?} {y:?}");
                // A kept judged or masked triangle comes set up, with the centres it
                // covers: they draw, in every band of rows, exactly what the filler's own
                // scan draws, with the same depths and scalars to the bit, facing the same
                // way.
                let candidate = Candidate { tri: *t, covered, set_up, light };
                assert_eq!(candidate.judged(), kept && (judged || masked) && draws, "{x:?} {y:?}");
                assert_eq!(set_up.rows != 0, kept && masked && draws, "{x:?} {y:?}");
                if candidate.judged() {
                    if set_up.rows == 0 {
                        layouts[usize::from(set_up.row_bits).min(4)] += 1;
                    }
                    // The vertices' light values come along, in the triangle's order.
                    assert_eq!(
                        light.map(f32::to_bits),
                        [v[0].light, v[1].light, v[2].light].map(f32::to_bits)
                    );
                    let z = [v[0].z, v[1].z, v[2].z];
                    let s = [0.1, 0.9, 0.4];
                    for rows in [0..h, 0..5, 5..h, 9..11] {
                        let t = Triangle::snapped_in(w, h, rows.clone(), wide(x), wide(y), z);
                        let (mut scanned, mut known) = (Vec::new(), Vec::new());
                        if let Some(t) = t {
                            assert_eq!(t.front_facing(), set_up.front);
                            t.scan(s, |i, z, s| scanned.push((i, z.to_bits(), s.to_bits())));
                        }
                        let mut push = |i: usize, z: f32, s: f32| known.push((i, z.to_bits(), s.to_bits()));
                        match set_up.rows {
                            0 => set_up.scan(covered, w, &rows, || s, &mut push),
                            _ => set_up.scan_rows(candidate.kept_rows(&masks), w, &rows, || s, &mut push),
                        }
                        assert_eq!(known, scanned, "{x:?} {y:?} rows {rows:?}");
                        // The rows it covers, first and last, and how many centres.
                        let (first, last, count) = candidate.extent(&masks);
                        if rows == (0..h) {
                            let drawn: Vec<usize> = scanned.iter().map(|&(i, _, _)| i / w).collect();
                            assert_eq!((drawn[0], drawn[drawn.len() - 1]), (first, last));
                            assert_eq!(scanned.len(), count as usize);
                        }
                    }
                }
                dropped += usize::from(!kept);
                kept_drawing += usize::from(judged && draws);
                kept_masked += usize::from(masked && draws);
            }
        }
        assert!(
            dropped > 1000 && kept_drawing > 500 && kept_masked > 300,
            "{dropped} {kept_drawing} {kept_masked}"
        );
        assert!(layouts[1..].iter().all(|&n| n > 20), "{layouts:?}");
    });
}
