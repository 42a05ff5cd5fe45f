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

use crate::lanes::{self, I32x8, Isa, Kernel, Portable};

pub(super) const SUB_BITS: u32 = 8;
/// Sub-pixel steps per pixel of the snapped coordinates.
pub(super) const SUB: i64 = 1 << SUB_BITS;
/// Screen coordinates beyond this many pixels from the origin are refused; callers clip
/// first (the mesh drawer clips to a guard band, `Raster::fill_triangle` to the raster's
/// surroundings). With 8 sub-pixel bits, edge products then stay below 2^60.
pub(super) const COORD_LIMIT: f32 = (1u32 << 20) as f32;

/// Snap a screen coordinate (|v| <= `COORD_LIMIT`) to the nearest 1/`SUB` pixel, halves
/// rounding up. Done in f64 on a shifted, positive value so that the cast truncation is a
/// floor: cheaper than `round()` (a libm call on baseline x86-64) and the same for every
/// caller, so shared vertices always snap alike.
#[inline(always)]
pub(super) fn to_fixed(v: f32) -> i64 {
    const SHIFT: f64 = (1u64 << 40) as f64;
    // Wrapping: the kernels snap every lane and keep only the valid ones, so an infinite
    // `v` (saturated to i64::MIN by the cast) must not trap in a debug build.
    ((f64::from(v) * SUB as f64 + 0.5 + SHIFT) as i64).wrapping_sub(1i64 << 40)
}

/// First pixel whose centre `i*SUB + SUB/2` is at or right of (below) the snapped `min`:
/// `ceil((min - SUB/2) / SUB)`. SUB is a power of two, so this is an arithmetic shift (a
/// floor for negative values too).
#[inline(always)]
fn first_centre<T: Fixed>(min: T) -> T {
    (min - T::from(SUB as i16 / 2) + T::from(SUB as i16 - 1)) >> SUB_BITS
}

/// Last pixel whose centre is at or left of (above) the snapped `max`.
#[inline(always)]
fn last_centre<T: Fixed>(max: T) -> T {
    (max - T::from(SUB as i16 / 2)) >> SUB_BITS
}

/// The pixel box of three snapped points on a `width` x `height` raster: `[first column,
/// last column, first row, last row]` of the pixel centres it reaches, clamped to the
/// raster (no centre when a first is past its last).
#[inline(always)]
fn pixel_box<T: Fixed>(width: usize, height: usize, x: [T; 3], y: [T; 3]) -> [T; 4] {
    let zero = T::from(0);
    [
        first_centre(x[0].min(x[1]).min(x[2])).max(zero),
        last_centre(x[0].max(x[1]).max(x[2])).min(T::from_side(width) - T::from(1)),
        first_centre(y[0].min(y[1]).min(y[2])).max(zero),
        last_centre(y[0].max(y[1]).max(y[2])).min(T::from_side(height) - T::from(1)),
    ]
}

/// Twice the signed area of the snapped triangle; negative when it is counter-clockwise as
/// seen (glTF's front face), because y grows down.
#[inline(always)]
fn signed_area<T: Fixed>(x: [T; 3], y: [T; 3]) -> T {
    (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0])
}

/// Whether the pixel box of three snapped points holds a pixel centre of the raster
/// columns `0..width` and rows `rows`: the test `Triangle::snapped_in` starts with, cheap
/// enough to run first on every triangle of a dense mesh (most fail it).
#[inline(always)]
pub(super) fn box_has_centre(width: usize, rows: &Range<usize>, x: [i32; 3], y: [i32; 3]) -> bool {
    let [px0, px1, py0, py1] = pixel_box(width, rows.end, x.map(i64::from), y.map(i64::from));
    px0 <= px1 && py0.max(rows.start as i64) <= py1
}

/// The raster rows `(first, last)` whose centres the pixel box of three snapped points
/// reaches, when that box holds a pixel centre of the `width` x `height` raster. A band of
/// rows `r` passes `box_has_centre` exactly when `first < r.end` and `last >= r.start`: the
/// mesh drawer's binning decides every band at once with this.
#[inline(always)]
pub(super) fn centre_rows(width: usize, height: usize, x: [i32; 3], y: [i32; 3]) -> Option<(usize, usize)> {
    let [px0, px1, py0, py1] = pixel_box(width, height, x.map(i64::from), y.map(i64::from));
    (px0 <= px1 && py0 <= py1).then_some((py0 as usize, py1 as usize))
}

/// One vertex's share of the box test, small enough (8 bytes) that a dense mesh's are
/// all in cache: `[first column, -last column, first row, -last row]` of the pixel centres
/// at or after / at or before the snapped point, clamped to `0..=width` and `-1..width`
/// (rows likewise; the raster's sides must fit i16). `first_centre` and `last_centre` are
/// monotonic, so the min / max over three vertices is the box's, and the clamps change
/// no verdict of `spans_hold_centre`, which then equals `centre_rows(..).is_some()`. The
/// last column and row are stored negated so that the box of three vertices is one
/// element-wise minimum (a single SIMD min on x86-64).
#[inline(always)]
pub(super) fn centre_span(width: usize, height: usize, x: i32, y: i32) -> [i16; 4] {
    // `first_centre` and `last_centre` in i32: a simple vertex is within the guard band,
    // far from overflowing.
    const HALF: i32 = (SUB / 2) as i32;
    let (w, h) = (width.min(SPAN_MAX_SIDE) as i32, height.min(SPAN_MAX_SIDE) as i32);
    // `max` then `min` rather than `clamp`, whose bounds check (never failing: `hi` is not
    // negative) kept the projection from doing four vertices' spans as SIMD.
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

/// A triangle ready to scan: snapped, oriented, with its pixel box.
pub(super) struct Triangle {
    x: [i64; 3],
    y: [i64; 3],
    z: [f32; 3],
    /// Which input vertex each of `x`, `y`, `z` came from (orientation may swap two).
    order: [usize; 3],
    front: bool,
    /// Spans less than `SMALL_EXTENT` both ways: its edge values fit `i32` (see `scan_masks`).
    small: bool,
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
        let area = signed_area(x, y);
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
        Some(Triangle {
            x,
            y,
            z,
            order,
            front,
            small: is_small(x, y),
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
        let (cx, cy) = (self.px0 as i64 * SUB + SUB / 2, self.py0 as i64 * SUB + SUB / 2);
        attribute_planes(self.x, self.y, cx, cy, self.z, s)
    }

    /// The edge functions: per-pixel steps along x (`a`) and y (`b`), and the values at the
    /// box's first candidate centre (`c`), biased by the fill rule so that a centre is
    /// covered exactly when all three are >= 0.
    #[inline(always)]
    fn edges(&self) -> Edges<i64> {
        let (cx, cy) = (self.px0 as i64 * SUB + SUB / 2, self.py0 as i64 * SUB + SUB / 2);
        edge_functions(self.x, self.y, cx, cy, 1)
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
        let (a, b, c) = self.edges();
        let cols = self.px1 - self.px0 + 1;
        if self.small {
            // At most 16 columns: the narrowest lanes that hold the box.
            match cols {
                0..=8 => self.scan_masks::<1>((a, b, c), s, f),
                _ => self.scan_masks::<2>((a, b, c), s, f),
            }
            return;
        }
        let at = MaskBox { width: self.width, px0: self.px0, py0: self.py0, rows: self.row0..=self.row1 };
        scan_long(&at, (a, b, c), cols, || self.planes(s()), f);
    }

    /// `scan_box` for a small triangle (see `scan_masked`).
    #[inline(always)]
    fn scan_masks<const N: usize>(
        &self,
        (a, b, c): Edges<i64>,
        s: impl Fn() -> [f32; 3],
        f: impl FnMut(usize, f32, f32),
    ) {
        let to_i32 = |v: [i64; 3]| v.map(|v| v as i32);
        let (cols, edges) = (self.px1 - self.px0 + 1, (to_i32(a), to_i32(b), to_i32(c)));
        let boxed = MaskBox { width: self.width, px0: self.px0, py0: self.py0, rows: self.row0..=self.row1 };
        scan_masked::<N>(&boxed, cols, edges, || self.planes(s()), f);
    }
}

/// Edge functions: per-pixel steps along x (`a`) and y (`b`), and the values at the box's
/// first candidate centre (`c`), biased by the fill rule so that a centre is covered
/// exactly when all three are >= 0.
pub(super) type Edges<T> = ([T; 3], [T; 3], [T; 3]);

/// The integers the snapped coordinates are worked in: `i64` in general, `i32` for small
/// triangles (see `scan_masked`).
pub(super) trait Fixed:
    Copy
    + Ord
    + From<i16>
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Neg<Output = Self>
    + std::ops::Shr<u32, Output = Self>
{
    fn to_f32(self) -> f32;
    /// A raster side (the i32 path's are at most `SPAN_MAX_SIDE`).
    fn from_side(side: usize) -> Self;
}

impl Fixed for i32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self as f32
    }

    #[inline(always)]
    fn from_side(side: usize) -> Self {
        side as i32
    }
}

impl Fixed for i64 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self as f32
    }

    #[inline(always)]
    fn from_side(side: usize) -> Self {
        side as i64
    }
}

/// The edge functions of the oriented triangle `x`, `y` (snapped) for a box whose first
/// candidate centre is (`cx`, `cy`). Edge k is opposite vertex k: from vertex k+1 to k+2.
/// `sign` is 1, or -1 to reverse every edge (see `SmallTriangle`).
#[inline(always)]
fn edge_functions<T: Fixed>(x: [T; 3], y: [T; 3], cx: T, cy: T, sign: T) -> Edges<T> {
    // A function rather than a closure: the compiler left the closure out of line, a
    // call per edge on the binning's path.
    #[inline(always)]
    fn edge<T: Fixed>(x: [T; 3], y: [T; 3], (cx, cy): (T, T), sign: T, k: usize) -> (T, T, T) {
        let (zero, one, sub) = (T::from(0), T::from(1), T::from(SUB as i16));
        let (i, j) = ((k + 1) % 3, (k + 2) % 3);
        let (dx, dy) = (x[j] - x[i], y[j] - y[i]);
        let value = dx * (cy - y[i]) - dy * (cx - x[i]);
        let (dx, dy, value) = (dx * sign, dy * sign, value * sign);
        let top_left = dy < zero || (dy == zero && dx > zero);
        let bias = if top_left { zero } else { one };
        (-dy * sub, dx * sub, value - bias)
    }
    let c = (cx, cy);
    let (e0, e1, e2) = (edge(x, y, c, sign, 0), edge(x, y, c, sign, 1), edge(x, y, c, sign, 2));
    ([e0.0, e1.0, e2.0], [e0.1, e1.1, e2.1], [e0.2, e1.2, e2.2])
}

/// The depth plane and the plane of `s` (both in the oriented vertex order) of the
/// triangle `x`, `y` (snapped), each as (value at the box's first candidate centre
/// (`cx`, `cy`), step per column, step per row), in pixel units. Every caller gets the
/// same floats from the same integers, whatever their width.
#[inline(always)]
fn attribute_planes<T: Fixed>(
    x: [T; 3],
    y: [T; 3],
    cx: T,
    cy: T,
    z: [f32; 3],
    s: [f32; 3],
) -> (Plane, Plane) {
    let basis = PlaneBasis::new(x, y, cx, cy);
    (basis.plane(z), basis.plane(s))
}

/// What every attribute plane of one triangle shares, in pixel units: the two sides from
/// vertex 0, the inverse of the area they span, and the box's first candidate centre
/// relative to vertex 0. `filter` works these out eight triangles at a time with the same
/// operations in the same order, so `plane` gives the same bits either way.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct PlaneBasis {
    pub x1: f32,
    pub y1: f32,
    pub x2: f32,
    pub y2: f32,
    pub inv_area: f32,
    pub ox: f32,
    pub oy: f32,
}

impl PlaneBasis {
    #[inline(always)]
    pub(super) fn new<T: Fixed>(x: [T; 3], y: [T; 3], cx: T, cy: T) -> PlaneBasis {
        let to_px = |v: T| v.to_f32() / SUB as f32;
        let (x1, y1) = (to_px(x[1] - x[0]), to_px(y[1] - y[0]));
        let (x2, y2) = (to_px(x[2] - x[0]), to_px(y[2] - y[0]));
        let inv_area = 1.0 / (x1 * y2 - y1 * x2);
        let (ox, oy) = (to_px(cx - x[0]), to_px(cy - y[0]));
        PlaneBasis { x1, y1, x2, y2, inv_area, ox, oy }
    }

    /// The plane of the per-vertex values `v`.
    #[inline(always)]
    pub(super) fn plane(&self, v: [f32; 3]) -> Plane {
        let PlaneBasis { x1, y1, x2, y2, inv_area, ox, oy } = *self;
        let (d1, d2) = (v[1] - v[0], v[2] - v[0]);
        let ddx = (d1 * y2 - d2 * y1) * inv_area;
        let ddy = (d2 * x1 - d1 * x2) * inv_area;
        (v[0] + ddx * ox + ddy * oy, ddx, ddy)
    }
}

/// Where a triangle's rows are drawn: the raster's width, the box's first column and row
/// (where the edge functions and planes are anchored), and the rows to scan.
struct MaskBox {
    width: usize,
    px0: usize,
    py0: usize,
    rows: std::ops::RangeInclusive<usize>,
}

/// Scan the rows `at.rows` of a triangle that is not small, whose box is `cols` columns
/// wide and whose edges (`i64`: any size) are anchored at the box's first centre, with
/// its attribute planes asked for once a row is known to have a covered centre.
#[inline(always)]
fn scan_long(
    at: &MaskBox,
    (a, b, c): Edges<i64>,
    cols: usize,
    planes: impl Fn() -> (Plane, Plane),
    f: impl FnMut(usize, f32, f32),
) {
    // The edge values at the first column of the first row scanned (of a band).
    let first_row = (at.rows.start() - at.py0) as i64;
    let e = [c[0] + b[0] * first_row, c[1] + b[1] * first_row, c[2] + b[2] * first_row];
    scan_rows(at, (a, b, e), cols, planes, f);
}

/// `scan_long`'s rows, each row's covered run stepped from the row before's (`RowRuns`);
/// `e` holds the edge values at the first column of the first row scanned.
#[inline(always)]
fn scan_rows(
    at: &MaskBox,
    (a, b, e): Edges<i64>,
    cols: usize,
    planes: impl Fn() -> (Plane, Plane),
    mut f: impl FnMut(usize, f32, f32),
) {
    let (z_plane, s_plane) = planes();
    let mut runs = RowRuns::new(a, b, e);
    for py in at.rows.clone() {
        let row = py - at.py0;
        // The covered centres of a row are consecutive (the triangle is convex).
        let Some(run) = runs.next_row(cols) else {
            continue;
        };
        fill_run(at.width, (at.px0, py, row), run, (z_plane, s_plane), &mut f);
    }
}

/// Scan a small triangle whose box is `cols` (at most 16) columns wide: each row's
/// coverage is one bit mask worked out for all its columns at once, with no branch per
/// pixel (whose outcome, on slivers, is a coin toss), and the attribute planes are set up
/// at the first covered pixel. The edge values fit `i32`: the triangle spans less than
/// `SMALL_EXTENT` (2^12) both ways, so each edge's steps are below 2^20 per pixel, its
/// value at the box's first centre below 2^25, and every value of the box below 2^27.
/// The attributes are evaluated as `Triangle::scan_box` evaluates them (`row_start`,
/// `at_column`), so the values are the same.
#[inline(always)]
fn scan_masked<const N: usize>(
    at: &MaskBox,
    cols: usize,
    (a, b, c): Edges<i32>,
    planes: impl Fn() -> (Plane, Plane),
    mut f: impl FnMut(usize, f32, f32),
) {
    let keep = (1u32 << cols) - 1;
    let lanes = ColumnLanes::<N>::new(a);
    let mut set_up = None;
    let first_row = (at.rows.start() - at.py0) as i32;
    let mut e = [c[0] + b[0] * first_row, c[1] + b[1] * first_row, c[2] + b[2] * first_row];
    let scanned = at.rows.end() - at.rows.start() + 1;
    if N == 1 && scanned <= 8 {
        // At most 8 x 8 centres: every row's mask first, with no branch, then the covered
        // centres alone. A row loop that branched on each row's mask and looped over its
        // run mispredicted on these boxes, which mostly hold one or two covered centres.
        let mut all = 0;
        for r in 0..scanned {
            all |= u64::from(lanes.covered(e) & keep) << (8 * r);
            e = [e[0] + b[0], e[1] + b[1], e[2] + b[2]];
        }
        if all == 0 {
            return;
        }
        let rows = *at.rows.start()..at.rows.end() + 1;
        fill_covered(at.width, (at.px0, at.py0), (all, 3, rows.start), &rows, planes(), f);
        return;
    }
    for py in at.rows.clone() {
        let row = py - at.py0;
        let mask = lanes.covered(e) & keep;
        e = [e[0] + b[0], e[1] + b[1], e[2] + b[2]];
        if mask == 0 {
            continue;
        }
        let (z_plane, s_plane) = *set_up.get_or_insert_with(&planes);
        let (z, sv) = (row_start(z_plane, row), row_start(s_plane, row));
        let base = py * at.width + at.px0;
        // The covered columns are one run (the triangle is convex). Not `fill_run`, which
        // is slower compiled here.
        let (first, last) = (mask.trailing_zeros() as usize, 31 - mask.leading_zeros() as usize);
        for q in first..=last {
            f(base + q, at_column(z, z_plane, q), at_column(sv, s_plane, q));
        }
    }
}

/// Call `f` for each centre set in `covered`, in bit order (row by row, left to right):
/// bit `r << row_bits | q` is the centre `q` columns right of `px0` on raster row `first + r`.
/// Rows outside `rows` are left out. The attributes are anchored at the box's first centre
/// (`px0`, `py0`) and worked out as every path works them out (`row_start`, `at_column`).
#[inline(always)]
fn fill_covered(
    width: usize,
    (px0, py0): (usize, usize),
    (mut covered, row_bits, first): (u64, u32, usize),
    rows: &Range<usize>,
    (z_plane, s_plane): (Plane, Plane),
    mut f: impl FnMut(usize, f32, f32),
) {
    while covered != 0 {
        let bit = covered.trailing_zeros() as usize;
        covered &= covered - 1;
        let (py, q) = (first + (bit >> row_bits), bit & ((1 << row_bits) - 1));
        if rows.contains(&py) {
            let row = py - py0;
            let (z, s) = (row_start(z_plane, row), row_start(s_plane, row));
            f(py * width + px0 + q, at_column(z, z_plane, q), at_column(s, s_plane, q));
        }
    }
}

/// Call `f` for the centres `first..=last` (columns from `px0`) of raster row `py`, which
/// is row `row` of the box the attribute planes are anchored at, with the attributes
/// worked out as every path works them out (`row_start`, `at_column`).
#[inline(always)]
fn fill_run(
    width: usize,
    (px0, py, row): (usize, usize, usize),
    (first, last): (usize, usize),
    (z_plane, s_plane): (Plane, Plane),
    f: &mut impl FnMut(usize, f32, f32),
) {
    let (z, s) = (row_start(z_plane, row), row_start(s_plane, row));
    let base = py * width + px0;
    for q in first..=last {
        f(base + q, at_column(z, z_plane, q), at_column(s, s_plane, q));
    }
}

/// An attribute's value at the first candidate centre of box row `row`. With `at_column`,
/// the one formula every path evaluates a pixel's attributes by, so that they all give the
/// same bits: a multiply and an add from the row's start, rather than stepping pixel by
/// pixel (which also rounds once per step, and costs a step per column left of a row's
/// covered run).
#[inline(always)]
fn row_start((start, _, per_row): Plane, row: usize) -> f32 {
    start + per_row * row as f32
}

/// An attribute's value `q` columns right of its row's start `row_value` (see `row_start`).
#[inline(always)]
fn at_column(row_value: f32, (_, per_column, _): Plane, q: usize) -> f32 {
    row_value + per_column * q as f32
}

/// Draw the triangle of snapped points `x`, `y` (within `COORD_LIMIT`) with finite depths
/// `z` over the raster rows `rows`: what `Triangle::snapped_in` then `scan_box` draw,
/// nothing for a back face when `cull`, and `s(front facing)` giving the per-vertex
/// scalars (in the caller's order) once a pixel is known to be covered. Small triangles,
/// most of a dense mesh's, take `scan_masked` straight from here in 32-bit integers,
/// without the general set-up.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn fill_snapped(
    (width, height): (usize, usize),
    rows: &Range<usize>,
    x: [i32; 3],
    y: [i32; 3],
    z: [f32; 3],
    cull: bool,
    s: impl Fn(bool) -> [f32; 3],
    f: impl FnMut(usize, f32, f32),
) {
    if !is_small(x, y) || width.max(height) > SPAN_MAX_SIDE {
        let wide = |v: [i32; 3]| v.map(i64::from);
        let Some(tri) = Triangle::snapped_in(width, height, rows.clone(), wide(x), wide(y), z) else {
            return;
        };
        let front = tri.front_facing();
        if front || !cull {
            tri.scan_box(|| s(front), f);
        }
        return;
    }
    let Some(tri) = SmallTriangle::new(width, height, x, y) else {
        return;
    };
    if cull && !tri.front {
        return;
    }
    let (front, cx, cy) = (tri.front, tri.cx, tri.cy);
    fill_small((width, height), rows, &tri, || attribute_planes(x, y, cx, cy, z, s(front)), f);
}

/// Draw a small triangle set up as `SmallTriangle::new` sets it up (in `filter` too,
/// sixteen at a time) over the raster rows `rows`, with its attribute planes (in pixel
/// units, from the box's first centre) asked for once a pixel is known to be covered.
#[inline(always)]
pub(super) fn fill_small(
    (width, height): (usize, usize),
    rows: &Range<usize>,
    tri: &SmallTriangle,
    planes: impl Fn() -> (Plane, Plane),
    f: impl FnMut(usize, f32, f32),
) {
    let SmallTriangle { edges, px0, px1, py0, .. } = *tri;
    let Some((row0, row1)) = tri.rows_in(height, rows) else {
        return;
    };
    if px0 == px1 && row0 == row1 {
        // A single candidate centre, as for most triangles of a dense mesh that get this
        // far: its edge values and attributes directly, as `scan_masked` works them out.
        let (_, b, c) = edges;
        let row = row0 - py0;
        let e = [c[0] + b[0] * row, c[1] + b[1] * row, c[2] + b[2] * row];
        if (e[0] | e[1] | e[2]) >= 0 {
            let (z_plane, s_plane) = planes();
            let row = row as usize;
            let (z, sv) = (row_start(z_plane, row), row_start(s_plane, row));
            let mut f = f;
            f(row0 as usize * width + px0 as usize, at_column(z, z_plane, 0), at_column(sv, s_plane, 0));
        }
        return;
    }
    let at = MaskBox { width, px0: px0 as usize, py0: py0 as usize, rows: row0 as usize..=row1 as usize };
    match px1 - px0 + 1 {
        cols @ 0..=4 => scan_masked::<1>(&at, cols as usize, edges, planes, f),
        cols @ 5..=8 => scan_masked::<2>(&at, cols as usize, edges, planes, f),
        cols => scan_masked::<4>(&at, cols as usize, edges, planes, f),
    }
}

/// A triangle spanning less than `SET_UP_EXTENT` (every small one) set up in i32, as
/// `Triangle::snapped_in` sets up any triangle: its pixel box on the raster and edge functions anchored at the box's
/// first centre (`cx`, `cy`).
///
/// `Triangle` swaps two vertices of a front face so that the edge functions are
/// non-negative inside. That reverses every edge, which exactly negates its value at any
/// point, so here the edges are worked out in the given vertex order and negated, with no
/// data moved: the same covered centres. The attribute planes are then set up in the given
/// order too, which gives `Triangle`'s floats: swapping two vertices only changes the sign
/// of each product difference in them, and of the area they are divided by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct SmallTriangle {
    pub edges: Edges<i32>,
    pub front: bool,
    pub px0: i32,
    pub px1: i32,
    pub py0: i32,
    pub py1: i32,
    pub cx: i32,
    pub cy: i32,
}

impl SmallTriangle {
    /// `None` when the box of the snapped points `x`, `y` (spanning less than
    /// `SET_UP_EXTENT` both ways, on a raster whose sides are at most `SPAN_MAX_SIDE`)
    /// holds no pixel centre of the raster, or the triangle has no area.
    #[inline(always)]
    pub(super) fn new(width: usize, height: usize, x: [i32; 3], y: [i32; 3]) -> Option<SmallTriangle> {
        // Sides below 2^15, coordinates below 2^28.
        let [px0, px1, py0, py1] = pixel_box(width, height, x, y);
        if px0 > px1 || py0 > py1 {
            return None;
        }
        // Below 2^29: the sides are below 2^14.
        let area = signed_area(x, y);
        if area == 0 {
            return None;
        }
        let front = area < 0;
        const HALF: i32 = (SUB / 2) as i32;
        let (cx, cy) = (px0 * SUB as i32 + HALF, py0 * SUB as i32 + HALF);
        let edges = edge_functions(x, y, cx, cy, if front { -1 } else { 1 });
        Some(SmallTriangle { edges, front, px0, px1, py0, py1, cx, cy })
    }

    /// The first and last rows of the box within the raster rows `rows` (of a raster
    /// `height` rows high), if any.
    #[inline(always)]
    fn rows_in(&self, height: usize, rows: &Range<usize>) -> Option<(i32, i32)> {
        let row0 = self.py0.max(rows.start as i32);
        let row1 = self.py1.min(rows.end.min(height) as i32 - 1);
        (row0 <= row1).then_some((row0, row1))
    }

    /// Whether the box holds a single pixel centre and the triangle misses it.
    #[inline(always)]
    fn misses_its_only_centre(&self) -> bool {
        let (_, _, c) = self.edges;
        self.px0 == self.px1 && self.py0 == self.py1 && (c[0] | c[1] | c[2]) < 0
    }
}

/// Triangles `SmallLanes` holds.
pub(super) const LANES: usize = 16;

/// Sixteen small triangles set up at once (`filter::SmallFilter`), a triangle per
/// lane: what `SmallTriangle::new` and `PlaneBasis::new` give for each, and its depth
/// plane.
///
/// The set-up writes every field with 32- or 64-byte stores: aligned to a cache line, with
/// the flag last, no store straddles two lines. On the stack at whatever offset, half of
/// them did, and the set-up waited on them.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub(super) struct SmallLanes {
    /// Per edge: the step per column, the step per row, the value at the first centre.
    pub a: [[i32; LANES]; 3],
    pub b: [[i32; LANES]; 3],
    pub c: [[i32; LANES]; 3],
    /// `[px0, px1, py0, py1, cx, cy]`.
    pub frame: [[i32; LANES]; 6],
    /// All ones on a front face.
    pub front: [i32; LANES],
    /// `[x1, y1, x2, y2, inv_area, ox, oy]`.
    pub basis: [[f32; LANES]; 7],
    /// The depth plane: value at the first centre, step per column, step per row.
    pub z_plane: [[f32; LANES]; 3],
    /// The plane of the corners' smooth-shaded values, as `z_plane`.
    pub s_plane: [[f32; LANES]; 3],
    /// All ones where the triangle is not small (`SMALL_EXTENT`): it is scanned as
    /// `Triangle::scan_box` scans one, from these edges and planes.
    pub long: [i32; LANES],
    /// For a small triangle whose box holds at most 4 x 8 or 8 x 4 centres, the centres of its box
    /// that it covers: bit `4 r + q` for the centre `q` columns right of and `r` rows below
    /// the first (`px0`, `py0`), `8 r + q` in a box more than four columns wide. 0 for a
    /// larger box, which the filler scans itself.
    pub covered: [u32; LANES],
    /// Whether `s_plane` is set (the filter was given `Shader::Smooth`'s ambient term).
    pub shaded: bool,
}

impl SmallLanes {
    /// Lane `k`'s triangle.
    #[inline(always)]
    pub(super) fn triangle(&self, k: usize) -> SmallTriangle {
        let edge = |e: &[[i32; LANES]; 3]| [e[0][k], e[1][k], e[2][k]];
        let f = |i: usize| self.frame[i][k];
        SmallTriangle {
            edges: (edge(&self.a), edge(&self.b), edge(&self.c)),
            front: self.front[k] != 0,
            px0: f(0),
            px1: f(1),
            py0: f(2),
            py1: f(3),
            cx: f(4),
            cy: f(5),
        }
    }

    /// Draw lane `k`'s triangle, whose depth and scalar planes are `planes`, over the raster
    /// rows `rows`: what `fill_small` draws of it, pixel for pixel and in its order. Where
    /// the covered centres are known, it visits those alone, with no branch per row or
    /// column (the filler's loops mispredicted on most of these tiny triangles).
    #[inline(always)]
    pub(super) fn fill(
        &self,
        k: usize,
        (width, height): (usize, usize),
        rows: &Range<usize>,
        planes: (Plane, Plane),
        f: impl FnMut(usize, f32, f32),
    ) {
        let covered = u64::from(self.covered[k]);
        if covered == 0 {
            self.scan(k, (width, height), rows, planes, f);
            return;
        }
        let (px0, py0) = (self.frame[0][k] as usize, self.frame[2][k] as usize);
        // Four bits to a row in a box up to four columns wide, else eight.
        let row_bits = if self.frame[1][k] - self.frame[0][k] < 4 { 2 } else { 3 };
        fill_covered(width, (px0, py0), (covered, row_bits, py0), rows, planes, f);
    }

    /// `fill` of a triangle whose covered centres are not known (larger boxes, and every
    /// triangle that is not small, scanned as `Triangle::scan_box` scans it), out of
    /// line: most set-up triangles are smaller, and their loop stays small. Boxes up to
    /// `MASK_COLS` wide have every centre tested instead (`scan_row_masks`).
    #[inline(never)]
    fn scan(
        &self,
        k: usize,
        size: (usize, usize),
        rows: &Range<usize>,
        planes: (Plane, Plane),
        f: impl FnMut(usize, f32, f32),
    ) {
        let tri = self.triangle(k);
        let mut f = f;
        if scan_row_masks(&tri, size, rows, planes, &mut f) {
            return;
        }
        if self.long[k] == 0 {
            fill_small(size, rows, &tri, || planes, f);
            return;
        }
        let (width, height) = size;
        let Some((row0, row1)) = tri.rows_in(height, rows) else {
            return;
        };
        let at = MaskBox {
            width,
            px0: tri.px0 as usize,
            py0: tri.py0 as usize,
            rows: row0 as usize..=row1 as usize,
        };
        let wide = |v: [i32; 3]| v.map(i64::from);
        let (a, b, c) = tri.edges;
        scan_long(&at, (wide(a), wide(b), wide(c)), (tri.px1 - tri.px0 + 1) as usize, || planes, f);
    }

    /// Lane `k`'s plane of smooth-shaded values, when the filter worked them out.
    #[inline(always)]
    pub(super) fn s_plane(&self, k: usize) -> Option<Plane> {
        self.shaded.then(|| (self.s_plane[0][k], self.s_plane[1][k], self.s_plane[2][k]))
    }

    /// Lane `k`'s depth plane, and the basis of its other planes.
    #[inline(always)]
    pub(super) fn planes(&self, k: usize) -> (Plane, PlaneBasis) {
        let b = |i: usize| self.basis[i][k];
        let basis = PlaneBasis { x1: b(0), y1: b(1), x2: b(2), y2: b(3), inv_area: b(4), ox: b(5), oy: b(6) };
        ((self.z_plane[0][k], self.z_plane[1][k], self.z_plane[2][k]), basis)
    }
}

/// `SmallLanes::scan` of lane `k`'s triangle `tri`, whose planes are `planes`, each row's
/// covered centres found by testing them all (`RowMasks`): the same pixels,
/// values and order. False, having drawn nothing, for a box more than `MASK_COLS` wide
/// or `MASK_ROWS` tall.
#[inline(always)]
fn scan_row_masks(
    tri: &SmallTriangle,
    (width, height): (usize, usize),
    rows: &Range<usize>,
    (z_plane, s_plane): (Plane, Plane),
    f: &mut impl FnMut(usize, f32, f32),
) -> bool {
    let Some((row0, row1)) = tri.rows_in(height, rows) else {
        // No row of the box in `rows`: nothing to draw, whichever way.
        return true;
    };
    let count = (row1 - row0 + 1) as usize;
    if count > MASK_ROWS {
        return false;
    }
    let mut masks = [0u32; MASK_ROWS];
    let cols = (tri.px1 - tri.px0 + 1) as usize;
    if cols > MASK_COLS {
        return false;
    }
    let (a, b, c) = tri.edges;
    let first = row0 - tri.py0;
    let e = [c[0] + b[0] * first, c[1] + b[1] * first, c[2] + b[2] * first];
    let mut nonempty = lanes::run(RowMasks { a, b, e, cols, rows: count, masks: &mut masks });
    let (px0, py0) = (tri.px0 as usize, tri.py0 as usize);
    while nonempty != 0 {
        let r = nonempty.trailing_zeros() as usize;
        nonempty &= nonempty - 1;
        let py = row0 as usize + r;
        let row = py - py0;
        let (z, s) = (row_start(z_plane, row), row_start(s_plane, row));
        let base = py * width + px0;
        let mut covered = masks[r];
        while covered != 0 {
            let q = covered.trailing_zeros() as usize;
            covered &= covered - 1;
            f(base + q, at_column(z, z_plane, q), at_column(s, s_plane, q));
        }
    }
    true
}

/// The widest box `RowMasks` takes: four vectors a row.
const MASK_COLS: usize = 32;
/// The most rows it takes at once: a set-up triangle spans less than 64 pixels.
const MASK_ROWS: usize = 64;

/// The covered centres of `rows` rows (at most `MASK_ROWS`) of a box `cols` wide (1 to
/// `MASK_COLS`), the edges stepping by `a` a column and `b` a row from the values `e` at
/// its first column: bit `q` of `masks[r]` is set when all three edge values at column `q`
/// of row `r` are at least zero. Returns bit `r` set when `masks[r]` is not 0. Every
/// centre is tested, with no division and no branch: these are mostly slivers, most of
/// their rows empty, and stepping each row's run from the edges' quotients cost more.
///
/// The values are worked out in i32, as adds from the first: exact where every edge value
/// of the box, and of the columns past it to the next multiple of 8, fits (set-up
/// triangles span less than 64 pixels: their values stay below 2^30).
struct RowMasks<'a> {
    a: [i32; 3],
    b: [i32; 3],
    e: [i32; 3],
    cols: usize,
    rows: usize,
    masks: &'a mut [u32; MASK_ROWS],
}

impl Kernel for RowMasks<'_> {
    type Output = u64;
    #[inline(always)]
    fn run<S: Isa>(self) -> u64 {
        match self.cols {
            0..=8 => self.groups::<S, 1>(),
            9..=16 => self.groups::<S, 2>(),
            _ => self.groups::<S, 4>(),
        }
    }
}

impl RowMasks<'_> {
    /// `run` for a box of at most `8 * G` columns, eight at a time.
    #[inline(always)]
    fn groups<S: Isa, const G: usize>(self) -> u64 {
        let RowMasks { a, b, e, cols, rows, masks } = self;
        let column = I32x8::<S>::new([0, 1, 2, 3, 4, 5, 6, 7]);
        let mut values = [[I32x8::ZERO; 3]; G];
        for k in 0..3 {
            values[0][k] = I32x8::splat(e[k]) + column * I32x8::splat(a[k]);
        }
        for g in 1..G {
            for k in 0..3 {
                values[g][k] = values[g - 1][k] + I32x8::splat(a[k].wrapping_mul(8));
            }
        }
        let down = [I32x8::splat(b[0]), I32x8::splat(b[1]), I32x8::splat(b[2])];
        let keep = if cols >= 32 { u32::MAX } else { (1u32 << cols) - 1 };
        let mut nonempty = 0u64;
        for (r, mask) in masks.iter_mut().enumerate().take(rows.min(MASK_ROWS)) {
            let mut m = 0u32;
            for (g, v) in values.iter_mut().enumerate() {
                // The sign bits of the or of the three are the centres not covered.
                m |= (!(v[0] | v[1] | v[2]).bitmask() & 0xff) << (8 * g);
                for k in 0..3 {
                    v[k] = v[k] + down[k];
                }
            }
            *mask = m & keep;
            nonempty |= u64::from(m & keep != 0) << r;
        }
        nonempty
    }
}

/// Whether three snapped points (within `COORD_LIMIT`) on a `width` x `height` raster
/// make a small triangle whose box holds a single pixel centre, which it misses: such a
/// triangle draws nothing in any band. Larger ones are not judged (false).
#[inline(always)]
pub(super) fn small_misses_its_only_centre(width: usize, height: usize, x: [i32; 3], y: [i32; 3]) -> bool {
    is_small(x, y)
        && width.max(height) <= SPAN_MAX_SIDE
        && SmallTriangle::new(width, height, x, y).is_some_and(|t| t.misses_its_only_centre())
}

/// Whether three snapped points (within `COORD_LIMIT`, so their differences fit either
/// integer) span less than `SMALL_EXTENT` both ways.
#[inline(always)]
fn is_small<T: Fixed>(x: [T; 3], y: [T; 3]) -> bool {
    let small = T::from_side(SMALL_EXTENT as usize);
    let extent = |v: [T; 3]| v[0].max(v[1]).max(v[2]) - v[0].min(v[1]).min(v[2]);
    extent(x) < small && extent(y) < small
}

/// Triangles spanning less than this (in snapped units, 16 pixels) both ways are small:
/// their boxes are at most 16 columns wide.
pub(super) const SMALL_EXTENT: i64 = 16 * SUB;

/// Triangles spanning less than this (64 pixels) both ways are set up in `i32` sixteen at a
/// time by the filter (`SmallLanes`), small or not: their sides are below 2^14, so the
/// products in their area and edge values below 2^28.
pub(super) const SET_UP_EXTENT: i64 = 64 * SUB;

/// The three edges' steps across the first `8 * N` columns of a row (`a[k] * q`), set up
/// once per small triangle; `covered` turns a row's first-column edge values into the bit
/// mask of its covered columns (bit q: all three `e[k] + a[k] * q` at least zero), all
/// columns at once (the compiler kept a column loop scalar). The filler runs outside
/// `lanes::run`: these are the portable lanes, which the baseline vectorises.
#[derive(Clone, Copy)]
struct ColumnLanes<const N: usize> {
    steps: [[I32x8<Portable>; N]; 3],
}

impl<const N: usize> ColumnLanes<N> {
    #[inline(always)]
    fn new(a: [i32; 3]) -> Self {
        let column = I32x8::new([0, 1, 2, 3, 4, 5, 6, 7]);
        let steps = a.map(|a| {
            let mut steps = [I32x8::ZERO; N];
            for (g, s) in steps.iter_mut().enumerate() {
                *s = I32x8::splat(a) * (column + I32x8::splat(8 * g as i32));
            }
            steps
        });
        ColumnLanes { steps }
    }

    /// The sign bits of the or of the three edge values are the uncovered columns.
    #[inline(always)]
    fn covered(&self, e: [i32; 3]) -> u32 {
        let e = e.map(I32x8::splat);
        let mut uncovered = 0;
        for g in 0..N {
            let or = (e[0] + self.steps[0][g]) | (e[1] + self.steps[1][g]) | (e[2] + self.steps[2][g]);
            uncovered |= or.bitmask() << (8 * g);
        }
        !uncovered
    }
}

/// The covered run of each row of a box, stepped from row to row. For edge k the columns
/// `q` with `e_k + a_k q >= 0` are `q >= floor((-e_k - 1) / a_k) + 1` when the edge rises
/// (`a_k > 0`), `q <= floor(e_k / -a_k)` when it falls, all or none when it is flat; `e_k`
/// grows by `b_k` a row. Each bound is the floor of a numerator that moves by a fixed
/// amount a row over a fixed divisor, so it is divided out once per triangle and then
/// stepped with a remainder: no division per row, and exact in integers.
struct RowRuns {
    bounds: [Bound; 3],
}

#[derive(Clone, Copy)]
enum Bound {
    /// A rising edge: the first covered column is `floor + 1`.
    First(FloorStep),
    /// A falling edge: the last covered column is `floor`.
    Last(FloorStep),
    /// A flat edge (`a == 0`): every column while `e >= 0`, none after.
    Flat { e: i64, b: i64 },
}

impl Bound {
    /// The bound of an edge with column step `a`, row step `b` and value `e` at the first
    /// column of the first row: `floor((num + step r) / div)` on row `r` (plus one for the
    /// first column of a rising edge), or for a flat edge its sign alone.
    #[inline(always)]
    fn new(a: i64, b: i64, e: i64) -> Bound {
        match a {
            0 => Bound::Flat { e, b },
            a if a > 0 => Bound::First(FloorStep::new(-e - 1, -b, a)),
            a => Bound::Last(FloorStep::new(e, b, -a)),
        }
    }
}

impl RowRuns {
    /// Edges with column steps `a`, row steps `b` and values `e` at the first column of
    /// the first row to scan (edge values and steps of coordinates within `COORD_LIMIT`:
    /// below 2^62 and 2^37).
    #[inline(always)]
    fn new(a: [i64; 3], b: [i64; 3], e: [i64; 3]) -> RowRuns {
        // Spelled out rather than `[0, 1, 2].map(..)`, whose closure the compiler called
        // out of line.
        RowRuns {
            bounds: [
                Bound::new(a[0], b[0], e[0]),
                Bound::new(a[1], b[1], e[1]),
                Bound::new(a[2], b[2], e[2]),
            ],
        }
    }

    /// The first and last covered column in `0..cols` of the current row, if any; then
    /// moves to the next row.
    #[inline(always)]
    fn next_row(&mut self, cols: usize) -> Option<(usize, usize)> {
        let (mut first, mut last) = (0, cols as i64 - 1);
        for bound in &mut self.bounds {
            match bound {
                Bound::First(step) => first = first.max(step.next() + 1),
                Bound::Last(step) => last = last.min(step.next()),
                Bound::Flat { e, b } => {
                    if *e < 0 {
                        last = -1;
                    }
                    *e += *b;
                }
            }
        }
        (first <= last).then_some((first as usize, last as usize))
    }
}

/// `floor((n + delta * i) / d)` for i = 0, 1, 2, ... and a fixed `d > 0`: the quotient
/// and remainder of the first and of `delta`, then one add and a carry a step.
#[derive(Clone, Copy)]
struct FloorStep {
    q: i64,
    r: i64,
    dq: i64,
    dr: i64,
    d: i64,
}

impl FloorStep {
    #[inline(always)]
    fn new(n: i64, delta: i64, d: i64) -> FloorStep {
        FloorStep {
            q: n.div_euclid(d),
            r: n.rem_euclid(d),
            dq: delta.div_euclid(d),
            dr: delta.rem_euclid(d),
            d,
        }
    }

    /// The current floor; then steps to the next.
    #[inline(always)]
    fn next(&mut self) -> i64 {
        let q = self.q;
        self.q += self.dq;
        self.r += self.dr;
        let carry = i64::from(self.r >= self.d);
        self.q += carry;
        self.r -= carry * self.d;
        q
    }
}

#[cfg(test)]
mod tests {
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
    fn centre_rows_decides_every_band_as_box_has_centre_does() {
        // Snapped coordinates around, on and between centres, partly off the raster.
        let vals: Vec<i32> = (-4..44).map(|k| k * 47 - 400).collect();
        let bands = [0..8, 0..3, 3..8, 2..5, 7..8, 4..4];
        for &x0 in vals.iter().step_by(2) {
            for &y0 in &vals {
                for (dx, dy) in [(37, 200), (90, 61), (5, 3), (300, 20)] {
                    let (x, y) = ([x0, x0 + dx, x0 + dx / 2], [y0, y0 + dy / 3, y0 + dy]);
                    let rows = centre_rows(8, 8, x, y);
                    for band in &bands {
                        let via_rows = rows.is_some_and(|(a, b)| a < band.end && b >= band.start);
                        assert_eq!(via_rows, box_has_centre(8, band, x, y), "{x:?} {y:?} {band:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn spans_decide_as_centre_rows_does() {
        // Coordinates around centres, off every side, and at the guard band's reach.
        let mut vals: Vec<i32> = (-4..44).map(|k| k * 47 - 400).collect();
        vals.extend([-(1 << 28), -300_000, 20_000, 1 << 28]);
        for (w, h) in [(8, 8), (1, 3), (400, 240)] {
            for &x0 in &vals {
                for &y0 in vals.iter().step_by(3) {
                    for (dx, dy) in [(37, 200), (90, 61), (5, 3), (300, 20), (100_000, -90)] {
                        let (x, y) = ([x0, x0 + dx, x0 + dx / 2], [y0, y0 + dy / 3, y0 + dy]);
                        let s: [[i16; 4]; 3] = std::array::from_fn(|k| centre_span(w, h, x[k], y[k]));
                        let want = centre_rows(w, h, x, y).is_some();
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
    fn a_miss_of_the_only_centre_is_a_scan_that_draws_nothing() {
        // Small triangles swept across a pixel: whenever the quick test says "miss", the
        // scan calls nothing, and whenever the box holds one centre and the scan draws,
        // the quick test says "no miss".
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
                    let snap = |c: fn(&Vec3) -> f32| v.each_ref().map(|p| to_fixed(c(p)) as i32);
                    if small_misses_its_only_centre(8, 8, snap(|p| p.x), snap(|p| p.y)) {
                        assert_eq!(drawn, 0, "{v:?}");
                        misses += 1;
                    } else if t.px0 == t.px1 && t.row0 == t.row1 {
                        assert_eq!(drawn, 1, "{v:?}");
                        hits += 1;
                    }
                }
            }
        }
        assert!(misses > 100 && hits > 100, "{misses} {hits}");
    }

    /// `scan_box` as it was before the covered runs: every candidate of the box tested,
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
    fn small_triangles_fill_as_the_general_set_up_does() {
        // `fill_snapped` sets small triangles up in i32 without swapping a front face's
        // vertices; every pixel, depth and scalar must be `Triangle`'s (which swaps), bit
        // for bit, both facings, culled or not, over a band or the whole raster.
        let mut seed = 11u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 40) as f32 / (1u64 << 24) as f32
        };
        let (mut drawn, mut singles, mut culled) = (0, 0, 0);
        for k in 0..20_000 {
            let size = [0.6, 1.5, 4.0, 15.0][k % 4];
            let (ox, oy) = (next() * 40.0 - 2.0, next() * 30.0 - 2.0);
            let mut corner = || to_fixed(ox + next() * size) as i32;
            let x = [corner(), corner(), corner()];
            let mut corner = || to_fixed(oy + next() * size) as i32;
            let y = [corner(), corner(), corner()];
            let z = [next(), next(), next()];
            let s = [next(), next(), next()];
            let rows = if k % 3 == 0 { 5..19 } else { 0..30 };
            let cull = k % 5 == 0;
            let mut got = Vec::new();
            let shade = |front: bool| s.map(|v| if front { v } else { -v });
            fill_snapped((36, 30), &rows, x, y, z, cull, shade, |i, z, s| {
                got.push((i, z.to_bits(), s.to_bits()))
            });
            let mut want = Vec::new();
            let wide = |v: [i32; 3]| v.map(i64::from);
            if let Some(t) = Triangle::snapped_in(36, 30, rows.clone(), wide(x), wide(y), z)
                && (t.front_facing() || !cull)
            {
                let s = shade(t.front_facing());
                t.scan(s, |i, z, s| want.push((i, z.to_bits(), s.to_bits())));
                singles += usize::from(t.px0 == t.px1 && t.row0 == t.row1 && !want.is_empty());
            } else if cull {
                culled += 1;
            }
            assert_eq!(got, want, "{x:?} {y:?} {rows:?} cull {cull}");
            drawn += got.len();
        }
        assert!(drawn > 40_000 && singles > 500 && culled > 500, "{drawn} {singles} {culled}");
    }

    #[test]
    fn covered_runs_draw_what_testing_every_candidate_draws() {
        // Triangles of every size from sub-pixel to larger than the raster, slivers in
        // every direction, vertices on centres and on edges, over a band of the rows.
        let mut seed = 3u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 40) as f32 / (1u64 << 24) as f32
        };
        let (mut drawn, mut wide) = (0, 0);
        for k in 0..20_000 {
            let size = [0.7, 3.0, 12.0, 40.0, 200.0][k % 5];
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
            wide += usize::from(!t.small);
        }
        assert!(drawn > 100_000 && wide > 1500, "{drawn} {wide}");
    }

    #[test]
    fn column_lanes_agree_with_testing_each_column() {
        // Edge values and steps of the sizes a small triangle's can have (below 2^25 and
        // 2^20), around zero where the verdicts change, for every lane width.
        let mut seed = 11u64;
        let mut next = move |bits: u32| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) as i32 >> (31 - bits)).wrapping_sub(1 << (bits - 1))
        };
        let mut checked = 0;
        for _ in 0..20_000 {
            let a = [next(21), next(21), next(12)];
            let e = [next(26), next(14), next(25)];
            fn check<const N: usize>(a: [i32; 3], e: [i32; 3]) {
                let covered = ColumnLanes::<N>::new(a).covered(e);
                for q in 0..8 * N {
                    let inside = (0..3).all(|k| e[k] + a[k] * q as i32 >= 0);
                    assert_eq!(covered >> q & 1 == 1, inside, "{a:?} {e:?} {q}");
                }
            }
            check::<1>(a, e);
            check::<2>(a, e);
            checked += 1;
        }
        assert_eq!(checked, 20_000);
    }

    #[test]
    fn scalars_are_asked_for_only_when_a_pixel_is_covered() {
        // Slivers and sub-pixel triangles swept across a few pixels: `scan_box` calls `s`
        // once for a small triangle that draws, never for one that does not (most of a
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
                    if t.small {
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
    fn row_runs_are_the_runs_of_non_negative_edges() {
        // Every mix of rising, falling and flat edges, row steps of either sign, values
        // far on either side of zero, over several rows: each row's run is the one found
        // by testing every column.
        let steps = [-700, -256, -3, 0, 1, 256, 999, 1 << 36, -(1 << 36) + 7];
        let starts = [-5000, -1000, -257, -256, -1, 0, 1, 255, 256, 4000, -(1 << 50) - 3, (1 << 49) + 1];
        let mut runs_seen = 0;
        for a0 in steps {
            for a1 in steps {
                for e0 in starts {
                    for (e1, b0, b1) in
                        [(-1000, 77, -300), (256, 0, 1 << 20), (4000, -300, 0), (0, 1 << 20, 77)]
                    {
                        for (a2, e2, b2) in [(0, 0, 0), (-512, 3000, -300), (300, -600, 77), (0, -1, 1 << 20)]
                        {
                            let (a, b, e) = ([a0, a1, a2], [b0, b1, b2], [e0, e1, e2]);
                            for cols in [1, 2, 9, 30] {
                                let mut runs = RowRuns::new(a, b, e);
                                for row in 0..4i64 {
                                    let inside: Vec<usize> = (0..cols)
                                        .filter(|&q| (0..3).all(|k| e[k] + b[k] * row + a[k] * q as i64 >= 0))
                                        .collect();
                                    let want = inside.first().map(|&f| (f, *inside.last().unwrap()));
                                    assert_eq!(
                                        runs.next_row(cols),
                                        want,
                                        "{a:?} {b:?} {e:?} {cols} row {row}"
                                    );
                                    runs_seen += usize::from(want.is_some());
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(runs_seen > 10_000, "{runs_seen}");
    }

    #[test]
    fn floor_steps_are_the_integer_floors() {
        // Numerators and steps of either sign and every magnitude the edges can have,
        // divisors from 1 up: each step's floor is the one worked out in i128.
        let mut seed = 9u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seed >> 8
        };
        let signed = |v: u64, neg: bool| if neg { -(v as i64) } else { v as i64 };
        for _ in 0..20_000 {
            let d = ((next() >> 16) >> (next() % 40)).max(1) as i64;
            let n = signed(next() >> (next() % 56 + 2), next() % 2 == 0);
            let delta = signed(next() >> (next() % 40 + 20), next() % 2 == 0);
            let mut step = FloorStep::new(n, delta, d);
            for i in 0..50i128 {
                let want = (i128::from(n) + i128::from(delta) * i).div_euclid(i128::from(d));
                assert_eq!(i128::from(step.next()), want, "({n} + {delta} * {i}) / {d}");
            }
        }
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
}
