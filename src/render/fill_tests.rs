use super::*;

fn covered(w: usize, h: usize, v: [Vec3; 3]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if let Some(t) = Triangle::new(w, h, v) {
        t.scan([0.0; 3], |i, _, _| out.push((i % w, i / w)));
    }
    out.sort_by_key(|&(x, y)| (y, x));
    out
}

fn p(x: f32, y: f32) -> Vec3 {
    Vec3::new(x, y, 0.5)
}

#[test]
fn top_left_rule_on_centres_lying_on_edges() {
    // Vertices on pixel centres of a 4x4 raster. Edges: top y = 0.5 (drawn), left
    // x = 0.5 (drawn), hypotenuse x + y = 4 (a right/bottom edge: centres on it are
    // not drawn). Drawn: centres (i+.5, j+.5) with i + j <= 2.
    let a = covered(4, 4, [p(0.5, 0.5), p(3.5, 0.5), p(0.5, 3.5)]);
    assert_eq!(a, vec![(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (0, 2)]);
    // The other half of the square: hypotenuse is now its top-left side (drawn), x = 3.5
    // is a right edge and y = 3.5 a bottom edge (not drawn).
    // Drawn: i + j >= 3 with i <= 2 and j <= 2.
    let b = covered(4, 4, [p(3.5, 0.5), p(3.5, 3.5), p(0.5, 3.5)]);
    assert_eq!(b, vec![(2, 1), (1, 2), (2, 2)]);
    // Winding does not change coverage.
    assert_eq!(covered(4, 4, [p(0.5, 0.5), p(0.5, 3.5), p(3.5, 0.5)]), a);
}

#[test]
fn shared_edge_pixels_are_drawn_exactly_once() {
    // Two triangles splitting a quad along an irregular diagonal: every centre of the
    // quad's interior is covered once, none twice.
    let q = [p(0.3, 0.2), p(7.9, 1.1), p(7.2, 6.8), p(0.1, 5.3)];
    let mut count = [0u8; 64];
    for tri in [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] {
        for (x, y) in covered(8, 8, tri) {
            count[y * 8 + x] += 1;
        }
    }
    assert!(count.iter().all(|&c| c <= 1));
    // Centre (4.5, 3.5) is well inside the quad.
    assert_eq!(count[3 * 8 + 4], 1);
}

#[test]
fn far_outside_vertices_fill_the_visible_part_only() {
    // Hypotenuse x + y = 5: centres with i + j + 1 < 5, i.e. i + j <= 3, in a 4x4 raster:
    // 1 + 2 + 3 + 4 = 10 pixels.
    let v = [p(-50.0, -50.0), p(55.0, -50.0), p(-50.0, 55.0)];
    let c = covered(4, 4, v);
    assert_eq!(c.len(), 10);
    assert!(c.iter().all(|&(x, y)| x + y <= 3));
    // Entirely off to the right: nothing, no panic.
    assert!(covered(4, 4, [p(10.0, 0.0), p(20.0, 0.0), p(10.0, 9.0)]).is_empty());
}

#[test]
fn bad_coordinates_are_refused() {
    assert!(Triangle::new(4, 4, [p(f32::NAN, 0.0), p(3.0, 0.0), p(0.0, 3.0)]).is_none());
    assert!(Triangle::new(4, 4, [p(f32::INFINITY, 0.0), p(3.0, 0.0), p(0.0, 3.0)]).is_none());
    assert!(Triangle::new(4, 4, [p(1e9, 0.0), p(3.0, 0.0), p(0.0, 3.0)]).is_none());
    let mut bad_z = p(3.0, 0.0);
    bad_z.z = f32::NAN;
    assert!(Triangle::new(4, 4, [p(0.0, 0.0), bad_z, p(0.0, 3.0)]).is_none());
    // Degenerate (collinear) and zero-sized rasters.
    assert!(Triangle::new(4, 4, [p(0.0, 0.0), p(1.0, 1.0), p(3.0, 3.0)]).is_none());
    assert!(Triangle::new(0, 4, [p(0.0, 0.0), p(3.0, 0.0), p(0.0, 3.0)]).is_none());
}

#[test]
fn attributes_interpolate_linearly() {
    // z = 0.1 + 0.1 * x over the plane, s = y / 8; sampled at centres.
    let v = [Vec3::new(0.0, 0.0, 0.1), Vec3::new(8.0, 0.0, 0.9), Vec3::new(0.0, 8.0, 0.1)];
    let t = Triangle::new(8, 8, v).unwrap();
    let mut seen = 0;
    t.scan([0.0, 0.0, 1.0], |i, z, s| {
        let (x, y) = ((i % 8) as f32 + 0.5, (i / 8) as f32 + 0.5);
        assert!((z - (0.1 + 0.1 * x)).abs() < 1e-5, "z at {x},{y}: {z}");
        assert!((s - y / 8.0).abs() < 1e-5);
        seen += 1;
    });
    // Centres with x + y < 8: i + j <= 6 over 8x8 -> 1 + 2 + ... + 7 = 28.
    assert_eq!(seen, 28);
}

#[test]
fn bands_together_draw_the_whole_triangle_with_the_same_values() {
    // Split rows 0..3 and 3..8: the union of the bands is the full scan, pixel for
    // pixel and value for value (the attribute planes do not depend on the band).
    let v = [Vec3::new(0.3, 0.7, 0.2), Vec3::new(7.6, 2.1, 0.9), Vec3::new(1.9, 7.8, 0.4)];
    let scan = |rows: Range<usize>| {
        let mut out = Vec::new();
        if let Some(t) = Triangle::new_in(8, 8, rows, v) {
            t.scan([0.1, 0.5, 1.0], |i, z, s| out.push((i, z.to_bits(), s.to_bits())));
        }
        out
    };
    let whole = scan(0..8);
    assert!(whole.len() > 10);
    let mut parts = scan(0..3);
    assert!(parts.iter().all(|&(i, _, _)| i < 3 * 8));
    parts.extend(scan(3..8));
    assert_eq!(parts, whole);
    // A band the triangle does not reach, and an empty band.
    assert!(Triangle::new_in(8, 8, 0..1, [p(1.0, 3.0), p(6.0, 3.0), p(3.0, 7.0)]).is_none());
    assert!(Triangle::new_in(8, 8, 4..4, v).is_none());
}

#[test]
fn bounding_box_rounding_matches_floor_and_ceil() {
    // Centres are at i + 0.5. A box with none inside is refused: x in [1.6, 2.4],
    // and y in [-0.4, 0.4] (negative coordinates round the same way). A box reaching
    // the centre row y = 0.5 is kept; which centres are covered is `scan`'s job.
    assert!(Triangle::new(8, 8, [p(1.6, 1.0), p(2.4, 1.0), p(2.0, 5.0)]).is_none());
    assert!(Triangle::new(8, 8, [p(1.0, -0.4), p(6.0, -0.4), p(3.0, 0.4)]).is_none());
    assert!(Triangle::new(8, 8, [p(1.0, -2.0), p(6.0, -2.0), p(3.0, 0.5)]).is_some());
    // The quick test agrees with the full set-up on every box of a sweep that puts
    // vertex coordinates just around, on and between pixel centres, in and out of a
    // band of rows 2..5 of an 8x8 raster.
    let vals: Vec<i32> = (-3..40).map(|k| k * 53 - 300).collect();
    for &x0 in &vals {
        for &y0 in vals.iter().step_by(3) {
            let (x, y) = ([x0, x0 + 37, x0 + 90], [y0, y0 + 200, y0 + 61]);
            let z = [0.5; 3];
            let full = Triangle::snapped_in(8, 8, 2..5, x.map(i64::from), y.map(i64::from), z).is_some();
            assert_eq!(box_has_centre(8, &(2..5), x, y), full, "{x:?} {y:?}");
        }
    }
}

#[test]
fn spans_decide_as_the_box_test_does() {
    // Coordinates around centres, off every side, and at the guard band's reach.
    let mut vals: Vec<i32> = (-4..44).map(|k| k * 47 - 400).collect();
    vals.extend([-(1 << 28), -300_000, 20_000, 1 << 28]);
    for (w, h) in [(8, 8), (1, 3), (400, 240)] {
        for &x0 in &vals {
            for &y0 in vals.iter().step_by(3) {
                for (dx, dy) in [(37, 200), (90, 61), (5, 3), (300, 20), (100_000, -90)] {
                    let (x, y) = ([x0, x0 + dx, x0 + dx / 2], [y0, y0 + dy / 3, y0 + dy]);
                    let s: [[i16; 4]; 3] = std::array::from_fn(|k| centre_span(w, h, x[k], y[k]));
                    let want = box_has_centre(w, &(0..h), x, y);
                    assert_eq!(spans_hold_centre(s[0], s[1], s[2]), want, "{w}x{h} {x:?} {y:?}");
                    assert!(spans_hold_centre(s[0], SPAN_ANY, s[2]));
                    assert!(spans_hold_centre(SPAN_ANY, SPAN_ANY, s[2]));
                    assert!(spans_hold_centre(SPAN_ANY, SPAN_ANY, SPAN_ANY));
                }
            }
        }
    }
}

#[test]
fn tiny_triangles_draw_their_covered_centres() {
    // Small triangles swept across a pixel: the scan draws exactly the covered centres,
    // and a box of one centre is sometimes missed, sometimes hit.
    let (mut misses, mut hits) = (0, 0);
    for i in 0..40 {
        for j in 0..40 {
            let (ox, oy) = (2.0 + i as f32 * 0.05, 2.0 + j as f32 * 0.05);
            for v in [
                [p(ox, oy), p(ox + 0.9, oy + 0.1), p(ox + 0.2, oy + 0.8)],
                [p(ox, oy), p(ox + 0.2, oy + 0.8), p(ox + 0.9, oy + 0.1)],
                [p(ox, oy + 0.5), p(ox + 0.5, oy), p(ox + 0.5, oy + 0.5)],
            ] {
                let Some(t) = Triangle::new(8, 8, v) else { continue };
                // The scan without the shortcut: every candidate of the box.
                let mut drawn = 0;
                let (a, b, c) = t.edges();
                for py in t.row0..=t.row1 {
                    for px in t.px0..=t.px1 {
                        let (r, q) = ((py - t.py0) as i64, (px - t.px0) as i64);
                        if (0..3).all(|k| c[k] + b[k] * r + a[k] * q >= 0) {
                            drawn += 1;
                        }
                    }
                }
                let mut scanned = 0;
                t.scan([0.0; 3], |_, _, _| scanned += 1);
                assert_eq!(scanned, drawn, "{v:?}");
                if t.px0 == t.px1 && t.row0 == t.row1 {
                    misses += usize::from(drawn == 0);
                    hits += usize::from(drawn == 1);
                }
            }
        }
    }
    assert!(misses > 100 && hits > 100, "{misses} {hits}");
}

/// `scan_box` by its definition: every candidate of the box tested,
/// the attributes stepped across the whole row.
fn scan_every_candidate(t: &Triangle, s: [f32; 3]) -> Vec<(usize, u32, u32)> {
    let (a, b, c) = t.edges();
    let ((z_start, dzdx, dzdy), (s_start, dsdx, dsdy)) = t.planes(s);
    let mut out = Vec::new();
    for py in t.row0..=t.row1 {
        let row = (py - t.py0) as i64;
        for px in t.px0..=t.px1 {
            let q = (px - t.px0) as i64;
            if (0..3).all(|k| c[k] + b[k] * row + a[k] * q >= 0) {
                // A multiply and an add from the row's value, as the filler evaluates it.
                let z = (z_start + dzdy * row as f32) + dzdx * q as f32;
                let sv = (s_start + dsdy * row as f32) + dsdx * q as f32;
                out.push((py * t.width + px, z.to_bits(), sv.to_bits()));
            }
        }
    }
    out
}

#[test]
fn scans_draw_what_testing_every_candidate_draws() {
    // Triangles of every size from sub-pixel to larger than the raster, slivers in
    // every direction, vertices on centres and on edges, over a band of the rows.
    let mut seed = 3u64;
    let mut next = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    // Counted: triangles scanned by rows (not masked), and masked ones over 16 columns.
    let (mut drawn, mut wide, mut four) = (0, 0, 0);
    for k in 0..20_000 {
        let size = [0.7, 3.0, 12.0, 40.0, 90.0, 200.0][k % 6];
        let o = Vec3::new(next() * 60.0 - 5.0, next() * 40.0 - 5.0, 0.0);
        let mut corner = || {
            let (dx, dy) = (next() * size, next() * size);
            // Snapped to 1/4 pixel every third time: centres and edges are hit exactly.
            let snap = |v: f32| if k % 3 == 0 { (v * 4.0).round() / 4.0 + 0.5 } else { v };
            Vec3::new(snap(o.x + dx), snap(o.y + dy), 0.1 + next())
        };
        let mut v = [corner(), corner(), corner()];
        if k % 4 == 1 {
            // A sliver: the third corner near the line through the first two.
            v[2] = v[0].lerp(v[1], next() * 1.4 - 0.2) + Vec3::new(next() - 0.5, next() - 0.5, 0.0) * 0.3;
        }
        let rows = if k % 2 == 0 { 0..40 } else { 7..23 };
        let Some(t) = Triangle::new_in(50, 40, rows, v) else { continue };
        let s = [next(), next(), next()];
        let mut got = Vec::new();
        t.scan(s, |i, z, sv| got.push((i, z.to_bits(), sv.to_bits())));
        let want = scan_every_candidate(&t, s);
        assert_eq!(got, want, "{v:?}");
        drawn += got.len();
        wide += usize::from(!t.masked);
        four += usize::from(t.masked && t.px1 - t.px0 >= 16);
    }
    assert!(drawn > 100_000 && wide > 600 && four > 400, "{drawn} {wide} {four}");
}

/// `row_masks` run through `crate::lanes::run`, on the backend it picks.
struct RowMasks(Edges<i32>, usize, usize);

impl crate::lanes::Kernel for RowMasks {
    type Output = ([u32; MASK_ROWS], u64);
    fn run<S: Isa>(self) -> Self::Output {
        let mut masks = [0; MASK_ROWS];
        let covered = row_masks::<S>(self.0, self.1, self.2, &mut masks);
        (masks, covered)
    }
}

#[test]
fn row_masks_agree_with_testing_each_centre() {
    // Edge values and steps of the sizes a masked triangle's can have (below 2^27 at the
    // first centre, steps below 2^22), around zero where the verdicts change, for every
    // box width, on every backend this CPU has.
    let mut seed = 11u64;
    let mut next = move |bits: u32| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((seed >> 33) as i32 >> (31 - bits)).wrapping_sub(1 << (bits - 1))
    };
    let mut covered = 0;
    for k in 0..20_000 {
        let (a, b, e) =
            ([next(23), next(21), next(12)], [next(12), next(23), next(21)], [next(27), next(14), next(25)]);
        let (cols, rows) = (1 + k % MASK_COLS, 1 + k % 7);
        for backend in crate::lanes::Backend::available() {
            let (masks, nonempty) = backend.forced(|| crate::lanes::run(RowMasks((a, b, e), cols, rows)));
            for (r, mask) in masks.iter().enumerate() {
                for q in 0..32 {
                    let at = |k: usize| e[k] + b[k] * r as i32 + a[k] * q as i32;
                    let inside = r < rows && q < cols && (0..3).all(|k| at(k) >= 0);
                    assert_eq!(mask >> q & 1 == 1, inside, "{a:?} {b:?} {e:?} {r} {q}");
                }
                assert_eq!(nonempty >> r & 1 == 1, *mask != 0);
            }
            covered += nonempty.count_ones();
        }
    }
    assert!(covered > 5_000, "{covered}");
}

#[test]
fn scalars_are_asked_for_only_when_a_pixel_is_covered() {
    // Slivers and sub-pixel triangles swept across a few pixels: `scan_box` calls `s`
    // once for a masked triangle that draws, never for one that does not (most of a
    // dense mesh's), and at most once for a large one.
    let (mut drawing, mut blank) = (0, 0);
    for i in 0..60 {
        for j in 0..30 {
            let (ox, oy) = (1.0 + i as f32 * 0.071, 1.0 + j as f32 * 0.13);
            for v in [
                [p(ox, oy), p(ox + 3.9, oy + 0.2), p(ox + 0.1, oy + 0.25)],
                [p(ox, oy), p(ox + 0.3, oy + 0.6), p(ox + 0.5, oy + 0.1)],
                [p(ox, oy), p(ox + 30.0, oy + 1.1), p(ox + 0.2, oy + 0.3)],
            ] {
                let Some(t) = Triangle::new(48, 12, v) else { continue };
                let asked = std::cell::Cell::new(0);
                let mut drawn = 0;
                t.scan_box(
                    || {
                        asked.set(asked.get() + 1);
                        [0.0; 3]
                    },
                    |_, _, _| drawn += 1,
                );
                if t.masked {
                    assert_eq!(asked.get(), usize::from(drawn > 0), "{v:?}");
                } else {
                    assert!(asked.get() <= 1 && (drawn == 0 || asked.get() == 1), "{v:?}");
                }
                if drawn > 0 {
                    drawing += 1;
                } else {
                    blank += 1;
                }
            }
        }
    }
    assert!(drawing > 1000 && blank > 200, "{drawing} {blank}");
}

#[test]
fn facing_follows_what_the_viewer_sees() {
    // Top-left -> top-right -> bottom-left is clockwise as seen on screen: a back face
    // (glTF fronts are counter-clockwise as seen).
    let t = Triangle::new(4, 4, [p(0.5, 0.5), p(3.5, 0.5), p(0.5, 3.5)]).unwrap();
    assert!(!t.front_facing());
    let t = Triangle::new(4, 4, [p(0.5, 0.5), p(0.5, 3.5), p(3.5, 0.5)]).unwrap();
    assert!(t.front_facing());
}
