//! Filling one screen-space triangle: integer edge functions over the triangle's pixel
//! bounding box, clamped to the raster. It owns coverage (which pixel centres are inside,
//! with the top-left rule) and attribute interpolation; what to do with a covered pixel
//! (depth test, colour) is the caller's closure.
//!
//! Coordinates are snapped to 1/256 pixel, so coverage is exact and two triangles that
//! share an edge never both cover, nor both miss, a pixel centre on it.
//!
//! Fill rule (top-left, as in Direct3D and OpenGL): a pixel is drawn when its centre
//! `(x + 0.5, y + 0.5)` is strictly inside the triangle, or lies exactly on a *top* edge
//! (horizontal, with the interior below it; y grows downwards) or a *left* edge (an edge on
//! the triangle's left side). Centres on right or bottom edges, and on vertices shared only
//! by such edges, are left to the neighbouring triangle.
//!
//! Attributes (depth `z` and the scalar `s`) are interpolated linearly in screen space.
//! That is exact for depth (reversed z = near / distance is affine in screen space) and
//! the usual Gouraud approximation for `s`.

use std::ops::Range;

use glam::Vec3;

use crate::lanes::{I32x8, Isa, Portable, WIDTH};

pub(super) const SUB_BITS: u32 = 8;
/// Sub-pixel steps per pixel of the snapped coordinates.
pub(super) const SUB: i64 = 1 << SUB_BITS;
/// Screen coordinates beyond this many pixels from the origin are refused; callers clip
/// first (the mesh drawer clips to a guard band, `Raster::fill_triangle` to the raster's
/// surroundings). With 8 sub-pixel bits, edge products then stay below 2^60.
pub(super) const COORD_LIMIT: f32 = (1u32 << 20) as f32;

/// Snap a screen coordinate (|v| <= `COORD_LIMIT`) to the nearest 1/`SUB` pixel, halves
/// rounding up. Done in f64 on a shifted, positive value so that the cast truncation is a
/// floor: cheaper than `round()`, and the same for every caller, so shared vertices always
/// snap alike.
#[inline(always)]
pub(super) fn to_fixed(v: f32) -> i64 {
    const SHIFT: f64 = (1u64 << 40) as f64;
    // Wrapping: the kernels snap every lane and keep only the valid ones, so an infinite
    // `v` (saturated to i64::MIN by the cast) must not trap in a debug build.
    ((f64::from(v) * SUB as f64 + 0.5 + SHIFT) as i64).wrapping_sub(1i64 << 40)
}

/// First pixel whose centre `i*SUB + SUB/2` is at or right of (below) the snapped `min`:
/// `ceil((min - SUB/2) / SUB)`, an arithmetic shift since SUB is a power of two.
#[inline(always)]
fn first_centre(min: i64) -> i64 {
    (min - SUB / 2 + SUB - 1) >> SUB_BITS
}

/// Last pixel whose centre is at or left of (above) the snapped `max`.
#[inline(always)]
fn last_centre(max: i64) -> i64 {
    (max - SUB / 2) >> SUB_BITS
}

/// The pixel box of three snapped points on a `width` x `height` raster: `[first column,
/// last column, first row, last row]` of the pixel centres it reaches, clamped to the
/// raster (no centre when a first is past its last).
#[inline(always)]
fn pixel_box(width: usize, height: usize, x: [i64; 3], y: [i64; 3]) -> [i64; 4] {
    [
        first_centre(x[0].min(x[1]).min(x[2])).max(0),
        last_centre(x[0].max(x[1]).max(x[2])).min(width as i64 - 1),
        first_centre(y[0].min(y[1]).min(y[2])).max(0),
        last_centre(y[0].max(y[1]).max(y[2])).min(height as i64 - 1),
    ]
}

/// Whether the pixel box of three snapped points holds a pixel centre of the raster
/// columns `0..width` and rows `rows`: the test `Triangle::snapped_in` starts with, cheap
/// enough to run first on every triangle of a dense mesh (most fail it).
#[inline(always)]
pub(super) fn box_has_centre(width: usize, rows: &Range<usize>, x: [i32; 3], y: [i32; 3]) -> bool {
    let [px0, px1, py0, py1] = pixel_box(width, rows.end, x.map(i64::from), y.map(i64::from));
    px0 <= px1 && py0.max(rows.start as i64) <= py1
}

/// One vertex's share of the box test, small enough (8 bytes) that a dense mesh's are
/// all in cache: `[first column, -last column, first row, -last row]` of the pixel centres
/// at or after / at or before the snapped point, clamped to `0..=width` and `-1..width`
/// (rows likewise; the raster's sides must fit i16). `first_centre` and `last_centre` are
/// monotonic, so the min / max over three vertices is the box's, and the clamps change
/// no verdict of `spans_hold_centre`, which then equals `box_has_centre` over every row.
/// The last column and row are stored negated so that the box of three vertices is one
/// element-wise minimum.
#[inline(always)]
pub(super) fn centre_span(width: usize, height: usize, x: i32, y: i32) -> [i16; 4] {
    // `first_centre` and `last_centre` in i32: a simple vertex is within the guard band.
    const HALF: i32 = (SUB / 2) as i32;
    let (w, h) = (width.min(SPAN_MAX_SIDE) as i32, height.min(SPAN_MAX_SIDE) as i32);
    // `max` then `min` rather than `clamp`, whose bounds check kept the projection from
    // doing four vertices' spans as SIMD.
    let first = |v: i32, hi: i32| ((v - HALF + (SUB as i32 - 1)) >> SUB_BITS).max(0).min(hi) as i16;
    let neg_last = |v: i32, hi: i32| (-((v - HALF) >> SUB_BITS)).max(1 - hi).min(1) as i16;
    [first(x, w), neg_last(x, w), first(y, h), neg_last(y, h)]
}

/// Rasters up to this side can use `centre_span`.
pub(super) const SPAN_MAX_SIDE: usize = i16::MAX as usize - 1;

/// A span that passes every box test: for vertices the spans cannot judge (not simple).
/// Below every first and every negated last a real span holds.
pub(super) const SPAN_ANY: [i16; 4] = [-(SPAN_MAX_SIDE as i16) - 1; 4];

/// Whether the pixel box of three vertices holds a pixel centre of the raster, from their
/// `centre_span`s: the first column is at most the last (`first + -last <= 0`), and the
/// same for rows.
#[inline(always)]
pub(super) fn spans_hold_centre(a: [i16; 4], b: [i16; 4], c: [i16; 4]) -> bool {
    let m: [i16; 4] = std::array::from_fn(|k| a[k].min(b[k]).min(c[k]));
    i32::from(m[0]) + i32::from(m[1]) <= 0 && i32::from(m[2]) + i32::from(m[3]) <= 0
}

/// An attribute across a triangle: (value at a point, step per column, step per row).
pub(super) type Plane = (f32, f32, f32);

/// What an attribute plane is made from, in pixels: corners 1 and 2 less corner 0 (in the
/// triangle's scan order), the reciprocal of twice the signed area, and the box's first
/// candidate centre less corner 0. The filter's lanes make these with the same operations
/// (`filter::Lanes::set_up`), so both paths give the same bits.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Basis {
    pub x1: f32,
    pub y1: f32,
    pub x2: f32,
    pub y2: f32,
    pub inv_area: f32,
    pub ox: f32,
    pub oy: f32,
}

impl Basis {
    /// `inv_area` from the corners.
    #[inline(always)]
    fn with_area(self) -> Basis {
        Basis { inv_area: 1.0 / (self.x1 * self.y2 - self.y1 * self.x2), ..self }
    }

    /// The plane of the per-corner values `v` (in scan order).
    #[inline(always)]
    pub(super) fn plane(&self, v: [f32; 3]) -> Plane {
        let Basis { x1, y1, x2, y2, inv_area, ox, oy } = *self;
        let (d1, d2) = (v[1] - v[0], v[2] - v[0]);
        let ddx = (d1 * y2 - d2 * y1) * inv_area;
        let ddy = (d2 * x1 - d1 * x2) * inv_area;
        (v[0] + ddx * ox + ddy * oy, ddx, ddy)
    }
}

/// A triangle the filter set up whole (`filter::Candidate`): the first candidate centre
/// of its box, its facing, its plane basis and its depth plane, and how its covered
/// centres are kept.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct SetUp {
    pub px0: u16,
    pub py0: u16,
    /// A row's bits in the covered centres, log 2 (see `scan`).
    pub row_bits: u8,
    /// For one kept as row masks (see `scan_rows`), the first kept row less `py0`, and
    /// how many are kept (0: the covered centres are bits, see `scan`).
    pub skip: u8,
    pub rows: u8,
    pub front: bool,
    pub basis: Basis,
    pub z: Plane,
}

impl SetUp {
    /// Call `f(pixel index, z, s)` for the centres in `covered` (bit `r << row_bits | q`:
    /// `q` columns right of and `r` rows below the first) on the rows `rows` of a raster
    /// `width` wide, as `Triangle::scan` would; `s` holds the per-vertex scalars in the
    /// caller's vertex order.
    #[inline]
    pub(super) fn scan(
        &self,
        covered: u32,
        width: usize,
        rows: &Range<usize>,
        s: impl Fn() -> [f32; 3],
        mut f: impl FnMut(usize, f32, f32),
    ) {
        let py0 = usize::from(self.py0);
        let row_bits = u32::from(self.row_bits);
        // The band's rows of the box.
        let first = rows.start.saturating_sub(py0).min(32) as u32;
        let count = rows.end.saturating_sub(py0).saturating_sub(first as usize).min(32) as u32;
        let band = 1u32.checked_shl(count << row_bits).map_or(u32::MAX, |b| b - 1);
        let mut bits = covered & band.checked_shl(first << row_bits).unwrap_or(0);
        if bits == 0 {
            return;
        }
        let s = s();
        // A front face was set up with corners 1 and 2 swapped (see `Triangle`).
        let s = if self.front { [s[0], s[2], s[1]] } else { s };
        let (z_plane, s_plane) = (self.z, self.basis.plane(s));
        let px0 = usize::from(self.px0);
        while bits != 0 {
            let bit = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let (row, q) = (bit >> row_bits, bit & ((1 << row_bits) - 1));
            let (z, s) = (row_start(z_plane, row), row_start(s_plane, row));
            f((py0 + row) * width + px0 + q, at_column(z, z_plane, q), at_column(s, s_plane, q));
        }
    }

    /// `scan` for a triangle whose covered centres are kept as row masks: `masks[r]` has
    /// bit `q` set for the centre `q` columns right of the first in box row `skip + r`.
    #[inline]
    pub(super) fn scan_rows(
        &self,
        masks: &[u32],
        width: usize,
        rows: &Range<usize>,
        s: impl Fn() -> [f32; 3],
        mut f: impl FnMut(usize, f32, f32),
    ) {
        let py0 = usize::from(self.py0);
        let first = py0 + usize::from(self.skip);
        let (lo, hi) = (rows.start.max(first), rows.end.min(first + masks.len()));
        let Some(band) = masks.get(lo.wrapping_sub(first)..hi.wrapping_sub(first)) else {
            return;
        };
        if band.iter().all(|&m| m == 0) {
            return;
        }
        let s = s();
        let s = if self.front { [s[0], s[2], s[1]] } else { s };
        let planes = (self.z, self.basis.plane(s));
        let at = (py0, usize::from(self.px0), width);
        for (py, &mask) in (lo..).zip(band) {
            draw_run(py, mask, at, planes, &mut f);
        }
    }
}

/// Edge functions: per-pixel steps along x (`a`) and y (`b`), and the values at the box's
/// first candidate centre (`c`), biased by the fill rule so that a centre is covered
/// exactly when all three are >= 0.
type Edges<T> = ([T; 3], [T; 3], [T; 3]);

/// A triangle ready to scan: snapped, oriented, with its pixel box.
pub(super) struct Triangle {
    x: [i64; 3],
    y: [i64; 3],
    z: [f32; 3],
    /// Which input vertex each of `x`, `y`, `z` came from (orientation may swap two).
    order: [usize; 3],
    front: bool,
    /// Spans less than `MASK_EXTENT` both ways and its box at most `MASK_COLS` columns
    /// wide: scanned as row masks in `i32` (see `scan_masks`).
    masked: bool,
    width: usize,
    px0: usize,
    px1: usize,
    /// First row of the pixel box: the attribute planes are anchored there whatever band
    /// is drawn, so a row's values do not depend on how the raster is split.
    py0: usize,
    /// The rows actually scanned: the pixel box cut to the band.
    row0: usize,
    row1: usize,
}

impl Triangle {
    /// Set up a triangle of screen points (x, y in pixels, z depth) for a raster of
    /// `width` x `height`. `None` when it covers no pixel centre of the raster, has zero
    /// area, or has a non-finite or out-of-limit coordinate.
    #[inline]
    pub(super) fn new(width: usize, height: usize, v: [Vec3; 3]) -> Option<Triangle> {
        Triangle::new_in(width, height, 0..height, v)
    }

    /// `new` drawing only the raster rows in `rows` (a band of a raster split between
    /// threads); `None` also when the triangle covers no pixel centre of the band.
    #[inline]
    pub(super) fn new_in(width: usize, height: usize, rows: Range<usize>, v: [Vec3; 3]) -> Option<Triangle> {
        let mut x = [0i64; 3];
        let mut y = [0i64; 3];
        for k in 0..3 {
            let p = v[k];
            if !(p.x.abs() <= COORD_LIMIT && p.y.abs() <= COORD_LIMIT && p.z.is_finite()) {
                return None;
            }
            x[k] = to_fixed(p.x);
            y[k] = to_fixed(p.y);
        }
        Triangle::snapped_in(width, height, rows, x, y, [v[0].z, v[1].z, v[2].z])
    }

    /// `new_in` for coordinates already snapped with `to_fixed` (within `COORD_LIMIT`) and
    /// finite depths.
    #[inline(always)]
    pub(super) fn snapped_in(
        width: usize,
        height: usize,
        rows: Range<usize>,
        mut x: [i64; 3],
        mut y: [i64; 3],
        mut z: [f32; 3],
    ) -> Option<Triangle> {
        if width == 0 || height == 0 {
            return None;
        }
        // Pixel i is a candidate when its centre i*SUB + SUB/2 lies within [min, max].
        // This test rejects most triangles of a dense mesh, so it comes before anything else.
        let [px0, px1, py0, py1] = pixel_box(width, height, x, y);
        let row0 = py0.max(rows.start as i64);
        let row1 = py1.min(rows.end.min(height) as i64 - 1);
        if px0 > px1 || row0 > row1 {
            return None;
        }
        // Twice the signed area; negative when counter-clockwise as seen (glTF's front
        // face), because y grows down.
        let area = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
        if area == 0 {
            return None;
        }
        let front = area < 0;
        let mut order = [0, 1, 2];
        if front {
            x.swap(1, 2);
            y.swap(1, 2);
            z.swap(1, 2);
            order.swap(1, 2);
        }
        let extent = |v: [i64; 3]| v[0].max(v[1]).max(v[2]) - v[0].min(v[1]).min(v[2]);
        let masked = extent(x) < MASK_EXTENT && extent(y) < MASK_EXTENT && px1 - px0 < MASK_COLS as i64;
        Some(Triangle {
            x,
            y,
            z,
            order,
            front,
            masked,
            width,
            px0: px0 as usize,
            px1: px1 as usize,
            py0: py0 as usize,
            row0: row0 as usize,
            row1: row1 as usize,
        })
    }

    /// Whether the triangle is counter-clockwise as seen on screen: glTF's front face.
    #[inline]
    pub(super) fn front_facing(&self) -> bool {
        self.front
    }

    /// The depth plane and the plane of `s` (per-vertex scalars in the caller's vertex
    /// order), each as (value at the box's first candidate centre, step per column, step
    /// per row), in pixel units.
    #[inline(always)]
    fn planes(&self, s: [f32; 3]) -> (Plane, Plane) {
        let s = [s[self.order[0]], s[self.order[1]], s[self.order[2]]];
        let (x, y) = (self.x, self.y);
        let to_px = |v: i64| v as f32 / SUB as f32;
        let basis = Basis {
            x1: to_px(x[1] - x[0]),
            y1: to_px(y[1] - y[0]),
            x2: to_px(x[2] - x[0]),
            y2: to_px(y[2] - y[0]),
            inv_area: 0.0,
            ox: to_px(self.px0 as i64 * SUB + SUB / 2 - x[0]),
            oy: to_px(self.py0 as i64 * SUB + SUB / 2 - y[0]),
        }
        .with_area();
        (basis.plane(self.z), basis.plane(s))
    }

    /// The edge functions (see `Edges`). Edge k is opposite vertex k: from vertex k+1 to k+2.
    #[inline(always)]
    fn edges(&self) -> Edges<i64> {
        let (cx, cy) = (self.px0 as i64 * SUB + SUB / 2, self.py0 as i64 * SUB + SUB / 2);
        let (x, y) = (self.x, self.y);
        let (mut a, mut b, mut c) = ([0; 3], [0; 3], [0; 3]);
        for k in 0..3 {
            let (i, j) = ((k + 1) % 3, (k + 2) % 3);
            let (dx, dy) = (x[j] - x[i], y[j] - y[i]);
            let top_left = dy < 0 || (dy == 0 && dx > 0);
            (a[k], b[k]) = (-dy * SUB, dx * SUB);
            c[k] = dx * (cy - y[i]) - dy * (cx - x[i]) - i64::from(!top_left);
        }
        (a, b, c)
    }

    /// Call `f(pixel index, z, s)` for every covered pixel, row by row, left to right.
    /// `s` holds the per-vertex scalars in the caller's vertex order.
    #[inline]
    pub(super) fn scan(&self, s: [f32; 3], f: impl FnMut(usize, f32, f32)) {
        self.scan_box(|| s, f);
    }

    /// `scan` with the per-vertex scalars asked for only once some pixel is known to be
    /// covered: a dense mesh's triangles mostly cover none of the few centres their box
    /// holds (thin slivers), and those then cost neither the shading nor the division of
    /// the attribute set-up.
    #[inline]
    pub(super) fn scan_box(&self, s: impl Fn() -> [f32; 3], f: impl FnMut(usize, f32, f32)) {
        let edges = self.edges();
        let planes = || self.planes(s());
        match self.masked {
            true => self.scan_masks(edges, planes, f),
            false => self.scan_rows(edges, planes, f),
        }
    }

    /// `scan_box` for a triangle that is not masked, in `i64` (any size), the planes set up
    /// at the first covered centre. A row's covered centres are one run (each edge
    /// function is linear along the row, so each keeps a half-line of it). Where each
    /// edge crosses zero along the row is worked out in `f64` and widened by a column
    /// each way, and the exact test runs only near those ends: a sliver's empty rows,
    /// most of its box, then cost a few tests each instead of a walk across the box.
    #[inline(always)]
    fn scan_rows(
        &self,
        (a, b, c): Edges<i64>,
        planes: impl Fn() -> (Plane, Plane),
        mut f: impl FnMut(usize, f32, f32),
    ) {
        let mut set_up = None;
        let last = (self.px1 - self.px0) as i64;
        // Edge k's value e + a q is at least zero for q at or past -e / a: the step's
        // reciprocal, once. The relative error of the crossing is a few 2^-53, far below
        // the column of margin wherever the crossing is near the box.
        let inverse = a.map(|a| if a == 0 { 0.0 } else { 1.0 / a as f64 });
        for py in self.row0..=self.row1 {
            let row = py - self.py0;
            let r = row as i64;
            let e = [c[0] + b[0] * r, c[1] + b[1] * r, c[2] + b[2] * r];
            let covered = |q: i64| ((e[0] + a[0] * q) | (e[1] + a[1] * q) | (e[2] + a[2] * q)) >= 0;
            // The run lies within `lo..=hi`: each edge bounds it from one side (or, not
            // stepping along the row, keeps the whole row or none of it).
            let (mut lo, mut hi) = (0.0f64, last as f64);
            let mut none = false;
            for k in 0..3 {
                let cross = -(e[k] as f64) * inverse[k];
                match a[k].signum() {
                    1 => lo = lo.max(cross),
                    -1 => hi = hi.min(cross),
                    _ => none |= e[k] < 0,
                }
            }
            // Saturating casts: a crossing far outside the box clamps to its side.
            let (lo, hi) = (
                (lo.floor() as i64).saturating_sub(1).max(0),
                (hi.ceil() as i64).saturating_add(1).min(last),
            );
            if none || lo > hi {
                continue;
            }
            let mut first = lo;
            while first <= hi && !covered(first) {
                first += 1;
            }
            if first > hi {
                continue;
            }
            let mut end = hi;
            while !covered(end) {
                end -= 1;
            }
            let (z_plane, s_plane) = *set_up.get_or_insert_with(&planes);
            let (zr, sr) = (row_start(z_plane, row), row_start(s_plane, row));
            for q in first as usize..=end as usize {
                f(py * self.width + self.px0 + q, at_column(zr, z_plane, q), at_column(sr, s_plane, q));
            }
        }
    }

    /// `scan_box` for a masked triangle: every row's coverage first (`row_masks`), then
    /// the covered centres alone, the planes set up only when there is one.
    #[inline(always)]
    fn scan_masks(
        &self,
        (a, b, c): Edges<i64>,
        planes: impl Fn() -> (Plane, Plane),
        mut f: impl FnMut(usize, f32, f32),
    ) {
        let (a, b, c) = (a.map(|v| v as i32), b.map(|v| v as i32), c.map(|v| v as i32));
        let first_row = (self.row0 - self.py0) as i32;
        let e = [c[0] + b[0] * first_row, c[1] + b[1] * first_row, c[2] + b[2] * first_row];
        let mut masks = [0u32; MASK_ROWS];
        let (cols, rows) = (self.px1 - self.px0 + 1, self.row1 - self.row0 + 1);
        // The filler runs outside `lanes::run`: the portable lanes, which the baseline
        // vectorises.
        let mut covered = row_masks::<Portable>((a, b, e), cols, rows, &mut masks);
        if covered == 0 {
            return;
        }
        let (planes, at) = (planes(), (self.py0, self.px0, self.width));
        while covered != 0 {
            let r = covered.trailing_zeros() as usize;
            covered &= covered - 1;
            draw_run(self.row0 + r, masks[r], at, planes, &mut f);
        }
    }
}

/// The covered centres of `rows` rows (at most `MASK_ROWS`) of a box `cols` columns wide
/// (1 to `MASK_COLS`), from the edges' steps per column and per row and their values at
/// its first centre (`Edges`): bit `q` of `masks[r]` is set when all three edge values at
/// column `q` of row `r` are at least zero. Returns bit `r` set when `masks[r]` is not 0.
/// Every centre is tested, eight columns at a time, with no branch on the outcome (on
/// slivers, a coin toss). The values fit `i32` for a masked triangle: it spans less than
/// `MASK_EXTENT` (2^14) both ways, so each edge's steps are below 2^22 per pixel and every
/// value of the box, and of the columns past it up to `MASK_COLS`, below 2^30.
#[inline(always)]
pub(super) fn row_masks<S: Isa>(
    (a, b, e): Edges<i32>,
    cols: usize,
    rows: usize,
    masks: &mut [u32; MASK_ROWS],
) -> u64 {
    let cols = cols.clamp(1, MASK_COLS);
    let keep = u32::MAX >> (32 - cols);
    // Each edge's steps across the columns, eight columns to a group.
    let column = I32x8::<S>::new([0, 1, 2, 3, 4, 5, 6, 7]);
    let mut groups = [[I32x8::<S>::ZERO; 3]; MASK_COLS / WIDTH];
    for k in 0..3 {
        groups[0][k] = column * I32x8::splat(a[k]);
        for g in 1..groups.len() {
            groups[g][k] = groups[g - 1][k] + I32x8::splat(a[k].wrapping_mul(WIDTH as i32));
        }
    }
    let mut e = e;
    let mut covered = 0;
    for (r, mask) in masks.iter_mut().enumerate().take(rows) {
        // The sign bits of the or of the three edge values are the uncovered centres.
        let mut uncovered = 0;
        for (g, steps) in groups.iter().enumerate().take(cols.div_ceil(WIDTH)) {
            let value = |k: usize| I32x8::splat(e[k]) + steps[k];
            uncovered |= (value(0) | value(1) | value(2)).bitmask() << (WIDTH * g);
        }
        *mask = !uncovered & keep;
        covered |= u64::from(*mask != 0) << r;
        e = [e[0].wrapping_add(b[0]), e[1].wrapping_add(b[1]), e[2].wrapping_add(b[2])];
    }
    covered
}

/// Call `f(pixel index, z, s)` for the centres of raster row `py` in `mask` (bit `q`: `q`
/// columns right of `px0`), the attribute planes anchored at box row `py0`, in a raster
/// `width` wide. The covered columns are one run (a triangle is convex).
#[inline(always)]
fn draw_run(
    py: usize,
    mask: u32,
    (py0, px0, width): (usize, usize, usize),
    (z_plane, s_plane): (Plane, Plane),
    f: &mut impl FnMut(usize, f32, f32),
) {
    if mask == 0 {
        return;
    }
    let row = py - py0;
    let (z, s) = (row_start(z_plane, row), row_start(s_plane, row));
    let (first, last) = (mask.trailing_zeros() as usize, 31 - mask.leading_zeros() as usize);
    for q in first..=last {
        f(py * width + px0 + q, at_column(z, z_plane, q), at_column(s, s_plane, q));
    }
}

/// An attribute's value at the first candidate centre of box row `row`. With `at_column`,
/// the one formula every path evaluates a pixel's attributes by, so that they all give the
/// same bits.
#[inline(always)]
fn row_start((start, _, per_row): Plane, row: usize) -> f32 {
    start + per_row * row as f32
}

/// An attribute's value `q` columns right of its row's start `row_value` (see `row_start`).
#[inline(always)]
fn at_column(row_value: f32, (_, per_column, _): Plane, q: usize) -> f32 {
    row_value + per_column * q as f32
}

/// Triangles spanning less than this (in snapped units, 16 pixels) both ways are small:
/// their boxes are at most 16 columns wide (the filter judges only these).
pub(super) const SMALL_EXTENT: i64 = 16 * SUB;

/// Triangles spanning less than this (in snapped units, 64 pixels) both ways, whose boxes
/// are at most `MASK_COLS` wide, are scanned as row masks (`Triangle::scan_masks`): their
/// boxes have at most `MASK_ROWS` rows.
pub(super) const MASK_EXTENT: i64 = 64 * SUB;
pub(super) const MASK_COLS: usize = 32;
pub(super) const MASK_ROWS: usize = 64;

#[cfg(test)]
#[path = "fill_tests.rs"]
mod tests;
