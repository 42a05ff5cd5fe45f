//! Small triangles (under 64 pixels across, `SET_UP_EXTENT`), set up in `i32`: one at a
//! time (`SmallTriangle`, `fill_snapped`'s path for most of a dense mesh's triangles) or
//! sixteen at a time by the candidate filter (`SmallLanes`), and drawn from that set-up
//! with the same pixels, values and order as `fill::Triangle` draws them.

use std::ops::Range;

use super::fill::{
    Edges, MaskBox, Plane, PlaneBasis, SPAN_MAX_SIDE, SUB, Triangle, at_column, attribute_planes,
    edge_functions, fill_covered, is_small, pixel_box, row_start, scan_long, scan_masked, signed_area,
};
use crate::lanes::{self, I32x8, Isa, Kernel};

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
        cols @ 0..=8 => scan_masked::<1>(&at, cols as usize, edges, planes, f),
        cols => scan_masked::<2>(&at, cols as usize, edges, planes, f),
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

/// Triangles spanning less than this (64 pixels) both ways are set up in `i32` sixteen at a
/// time by the filter (`SmallLanes`), small or not: their sides are below 2^14, so the
/// products in their area and edge values below 2^28.
pub(super) const SET_UP_EXTENT: i64 = 64 * SUB;
