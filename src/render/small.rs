//! Small triangles (under 64 pixels across, `SET_UP_EXTENT`), set up in `i32`: one at a
//! time (`SmallTriangle`, `fill_snapped`'s path for most of a dense mesh's triangles) or
//! sixteen at a time by the candidate filter (`SmallLanes`), and drawn from that set-up
//! with the same pixels, values and order as `fill::Triangle` draws them.

use std::ops::Range;

use super::fill::{
    Edges, MaskBox, Plane, SPAN_MAX_SIDE, SUB, Triangle, at_column, attribute_planes, edge_functions,
    is_small, pixel_box, row_start, scan_masked, signed_area,
};

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
}
