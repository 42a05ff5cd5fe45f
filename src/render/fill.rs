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

use crate::lanes::{I32x8, Portable};

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
pub(super) fn pixel_box<T: Fixed>(width: usize, height: usize, x: [T; 3], y: [T; 3]) -> [T; 4] {
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
pub(super) fn signed_area<T: Fixed>(x: [T; 3], y: [T; 3]) -> T {
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

/// One vertex's share of the box test, small enough (8 bytes) that a dense mesh's are
/// all in cache: `[first column, -last column, first row, -last row]` of the pixel centres
/// at or after / at or before the snapped point, clamped to `0..=width` and `-1..width`
/// (rows likewise; the raster's sides must fit i16). `first_centre` and `last_centre` are
/// monotonic, so the min / max over three vertices is the box's, and the clamps change
/// no verdict of `spans_hold_centre`, which then equals `box_has_centre` over every row. The
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
pub(super) fn edge_functions<T: Fixed>(x: [T; 3], y: [T; 3], cx: T, cy: T, sign: T) -> Edges<T> {
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
pub(super) fn attribute_planes<T: Fixed>(
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
pub(super) struct MaskBox {
    pub width: usize,
    pub px0: usize,
    pub py0: usize,
    pub rows: std::ops::RangeInclusive<usize>,
}

/// Scan the rows `at.rows` of a triangle that is not small, whose box is `cols` columns
/// wide and whose edges (`i64`: any size) are anchored at the box's first centre, with
/// its attribute planes asked for once a row is known to have a covered centre.
#[inline(always)]
pub(super) fn scan_long(
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
pub(super) fn scan_masked<const N: usize>(
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
pub(super) fn fill_covered(
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
pub(super) fn row_start((start, _, per_row): Plane, row: usize) -> f32 {
    start + per_row * row as f32
}

/// An attribute's value `q` columns right of its row's start `row_value` (see `row_start`).
#[inline(always)]
pub(super) fn at_column(row_value: f32, (_, per_column, _): Plane, q: usize) -> f32 {
    row_value + per_column * q as f32
}

/// Whether three snapped points (within `COORD_LIMIT`, so their differences fit either
/// integer) span less than `SMALL_EXTENT` both ways.
#[inline(always)]
pub(super) fn is_small<T: Fixed>(x: [T; 3], y: [T; 3]) -> bool {
    let small = T::from_side(SMALL_EXTENT as usize);
    let extent = |v: [T; 3]| v[0].max(v[1]).max(v[2]) - v[0].min(v[1]).min(v[2]);
    extent(x) < small && extent(y) < small
}

/// Triangles spanning less than this (in snapped units, 16 pixels) both ways are small:
/// their boxes are at most 16 columns wide.
pub(super) const SMALL_EXTENT: i64 = 16 * SUB;

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
#[path = "fill_tests.rs"]
mod tests;
