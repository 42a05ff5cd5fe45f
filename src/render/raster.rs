//! The raster: one flat buffer of pixels (depth, colour, layer) sized in dots, plus the
//! scratch space the mesh drawer reuses between frames. It owns allocation and the
//! low-level screen-space drawing calls (the per-pixel write rules are `canvas`'s); it
//! does not know about cameras or glyphs.
//!
//! Depth is reversed (see `camera`): larger is nearer, a cleared pixel holds 0. Pixel
//! (x, y) covers `[x, x+1) x [y, y+1)` in screen coordinates (x right, y down) and is
//! sampled at its centre `(x + 0.5, y + 0.5)`.
//!
//! A pixel keeps its three fields together (8 bytes): the depth test and the colour write
//! then touch one cache line and need one bounds check.

use std::ops::Range;

use glam::{Vec3, Vec4};

pub use super::canvas::Layer;
pub(super) use super::canvas::Pixel;
use super::canvas::{Canvas, Touched};
use super::clip::{ClipVertex, Polygon};
use super::color::{Rgb, Scaler, heat};
use super::fill::{COORD_LIMIT, Triangle};
use super::project::Scratch;

/// A terminal cell is about twice as tall as it is wide.
pub const CELL_ASPECT: f32 = 2.0;
/// Largest raster side in pixels. It bounds the fixed-point coordinates of the triangle
/// filler (see `fill`), and no terminal comes near it.
pub const MAX_SIDE: usize = 16384;

/// How a drawn primitive turns its interpolated scalar `s` into a colour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Paint {
    /// The colour scaled by `s` (`s` is the light intensity, 1 = the colour itself).
    Lit(Rgb),
    /// `s` through the heatmap ramp (see `color::heat`).
    Heat,
}

impl Paint {
    #[inline]
    pub fn color(self, s: f32) -> Rgb {
        self.painter().color(s)
    }

    /// The paint made ready for the pixel loops, which call `color` once per pixel.
    #[inline]
    pub(super) fn painter(self) -> Painter {
        match self {
            Paint::Lit(c) => Painter::Lit(Scaler::new(c)),
            Paint::Heat => Painter::Heat,
        }
    }
}

/// `Paint` with a lit colour's channels already converted (see `Scaler`).
#[derive(Debug, Clone, Copy)]
pub(super) enum Painter {
    Lit(Scaler),
    Heat,
}

impl Painter {
    /// `Paint::color`.
    #[inline]
    pub(super) fn color(self, s: f32) -> Rgb {
        match self {
            Painter::Lit(c) => c.scale(s),
            Painter::Heat => heat_out_of_line(s),
        }
    }
}

/// `heat`, kept out of line so that the pixel writers `Paint::color` is inlined into stay
/// small enough to inline into the fill's scans.
#[inline(never)]
fn heat_out_of_line(s: f32) -> Rgb {
    heat(s)
}

#[derive(Debug, Clone, Default)]
pub struct Raster {
    pub(super) width: usize,
    pub(super) height: usize,
    pub(super) pixel_aspect: f32,
    pub(super) pixels: Vec<Pixel>,
    /// Which blocks of `pixels` were written since the last `clear`.
    pub(super) touched: Touched,
    /// Projected vertices of the mesh being drawn; kept to reuse its allocation.
    pub(super) scratch: Scratch,
    /// Characters to print over the packed cells (the gizmo's axis letters), in drawing
    /// order: a later one wins a cell.
    pub(super) labels: Vec<Label>,
    /// Whether a mesh since the last `clear` was filled on two threads: the pool's threads
    /// are then awake, and packing can use them for little more than its own work.
    pub(super) pool_woken: bool,
}

/// A character printed over whichever cell holds the pixel (`x`, `y`) once the raster is
/// packed: text cannot be drawn in dots.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Label {
    pub x: usize,
    pub y: usize,
    pub ch: char,
    pub color: Rgb,
}

impl Raster {
    /// A cleared raster of `width` x `height` pixels whose pixels are `pixel_aspect` times
    /// as tall as wide (1 for braille dots and half-blocks, 2 for ASCII cells). Sides are
    /// clamped to `MAX_SIDE`; a bad aspect counts as 1.
    pub fn new(width: usize, height: usize, pixel_aspect: f32) -> Raster {
        let mut r = Raster::default();
        r.resize(width, height, pixel_aspect);
        r
    }

    /// Resize, keeping the allocation when it is large enough. A new size starts cleared;
    /// the same size keeps what is drawn, so that the viewer, which resizes to its panel
    /// before every `draw_scene` (which clears), does not clear every frame twice.
    pub fn resize(&mut self, width: usize, height: usize, pixel_aspect: f32) {
        let (width, height) = (width.min(MAX_SIDE), height.min(MAX_SIDE));
        self.pixel_aspect = if pixel_aspect.is_finite() && pixel_aspect > 0.0 { pixel_aspect } else { 1.0 };
        if (width, height) == (self.width, self.height) {
            return;
        }
        (self.width, self.height) = (width, height);
        self.pixels.resize(width * height, Pixel::default());
        self.touched.resize(width * height);
        self.clear();
    }

    /// Forget everything drawn; no allocation. Only the blocks written are visited.
    pub fn clear(&mut self) {
        self.touched.clear(&mut self.pixels);
        self.labels.clear();
        self.pool_woken = false;
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// Height / width of one pixel on screen.
    pub fn pixel_aspect(&self) -> f32 {
        self.pixel_aspect
    }

    /// Physical width / height of the whole raster: what `Camera::view_proj` wants.
    pub fn aspect(&self) -> f32 {
        if self.width == 0 || self.height == 0 {
            return 1.0;
        }
        self.width as f32 / (self.height as f32 * self.pixel_aspect)
    }

    /// Normalised device coordinates -> screen coordinates in pixels (y down).
    pub fn ndc_to_screen(&self, ndc: Vec3) -> Vec3 {
        Vec3::new((ndc.x + 1.0) * 0.5 * self.width as f32, (1.0 - ndc.y) * 0.5 * self.height as f32, ndc.z)
    }

    fn pixel(&self, x: usize, y: usize) -> Option<&Pixel> {
        if x < self.width && y < self.height { self.pixels.get(y * self.width + x) } else { None }
    }

    /// Row `y`'s pixels (empty when out of range).
    pub(super) fn row(&self, y: usize) -> &[Pixel] {
        if y < self.height {
            self.pixels.get(y * self.width..(y + 1) * self.width).unwrap_or(&[])
        } else {
            &[]
        }
    }

    /// Whether a pixel of row `y` in the columns `cols` may have been drawn since the last
    /// `clear` (false: they are all empty), from the written blocks' flags.
    pub(super) fn drawn_in(&self, y: usize, cols: Range<usize>) -> bool {
        let cols = cols.start.min(self.width)..cols.end.min(self.width);
        y < self.height && self.touched.any(y * self.width + cols.start..y * self.width + cols.end)
    }

    /// All the pixels, to draw into.
    pub(super) fn canvas(&mut self) -> Canvas<'_> {
        Canvas::new(&mut self.pixels, &self.touched)
    }

    pub fn layer_at(&self, x: usize, y: usize) -> Layer {
        self.pixel(x, y).map(|p| p.layer).unwrap_or_default()
    }

    /// The colour of a drawn pixel; `None` when empty or outside.
    pub fn color_at(&self, x: usize, y: usize) -> Option<Rgb> {
        self.pixel(x, y).filter(|p| p.layer != Layer::Empty).map(|p| p.color)
    }

    /// Stored depth (0 = nothing, larger = nearer); `None` outside.
    pub fn depth_at(&self, x: usize, y: usize) -> Option<f32> {
        self.pixel(x, y).map(|p| p.depth)
    }

    pub fn is_lit(&self, x: usize, y: usize) -> bool {
        self.layer_at(x, y) != Layer::Empty
    }

    /// Every drawn pixel as (x, y), row by row: handy for tests and debugging.
    pub fn lit_pixels(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for y in 0..self.height {
            for x in 0..self.width {
                if self.is_lit(x, y) {
                    out.push((x, y));
                }
            }
        }
        out
    }

    /// Fill a triangle given in screen coordinates (x, y in pixels, z = depth, larger
    /// nearer), depth-tested and depth-writing. `s` is the per-vertex scalar that `paint`
    /// turns into a colour. Pixels are covered by the top-left rule (see `fill`). Vertices
    /// far outside are cut to a margin around the raster first; non-finite ones draw
    /// nothing.
    pub fn fill_triangle(&mut self, v: [Vec3; 3], s: [f32; 3], paint: Paint) {
        let (w, h) = (self.width, self.height);
        let (mut canvas, painter) = (self.canvas(), paint.painter());
        let mut pixel = |i, z, s| canvas.surface(i, z, || painter.color(s));
        if !v.iter().all(|p| p.is_finite()) {
            return;
        }
        if v.iter().all(|p| p.x.abs() <= COORD_LIMIT && p.y.abs() <= COORD_LIMIT) {
            if let Some(tri) = Triangle::new(w, h, v) {
                tri.scan(s, pixel);
            }
            return;
        }
        // Screen points as (x, y, z, 1); the clipper's planes then bound x and y directly.
        const MARGIN: f32 = 1024.0;
        let planes = [
            Vec4::new(1.0, 0.0, 0.0, MARGIN),
            Vec4::new(-1.0, 0.0, 0.0, w as f32 + MARGIN),
            Vec4::new(0.0, 1.0, 0.0, MARGIN),
            Vec4::new(0.0, -1.0, 0.0, h as f32 + MARGIN),
        ];
        let cv = |k: usize| ClipVertex { p: v[k].extend(1.0), s: s[k] };
        let mut poly = Polygon::triangle(cv(0), cv(1), cv(2));
        poly.clip(&planes);
        let verts = poly.vertices();
        for k in 1..verts.len().saturating_sub(1) {
            let (a, b, c) = (verts[0], verts[k], verts[k + 1]);
            let tri = [a.p.truncate(), b.p.truncate(), c.p.truncate()];
            if let Some(tri) = Triangle::new(w, h, tri) {
                tri.scan([a.s, b.s, c.s], &mut pixel);
            }
        }
    }

    /// A line in screen coordinates, depth-tested with `EDGE_DEPTH_BIAS` and
    /// depth-writing (see `line` for the pixels it covers).
    pub fn line(&mut self, a: Vec3, b: Vec3, s: [f32; 2], paint: Paint) {
        let (w, h) = (self.width, self.height);
        let (mut canvas, painter) = (self.canvas(), paint.painter());
        super::line::scan(w, h, a, b, s, |i, z, s| canvas.edge(i, z, true, || painter.color(s)));
    }

    /// A line drawn over everything, not touching depth.
    pub fn overlay_line(&mut self, a: Vec3, b: Vec3, c: Rgb) {
        let (w, h) = (self.width, self.height);
        let mut canvas = self.canvas();
        super::line::scan(w, h, a, b, [1.0, 1.0], |i, _, _| canvas.overlay(i, c));
    }

    /// A square dot of side `2 * radius + 1` centred on the pixel containing `p`, drawn
    /// over everything. Parts outside the raster are dropped.
    pub fn overlay_dot(&mut self, p: Vec3, radius: usize, c: Rgb) {
        let Some((cx, cy)) = self.pixel_of(p) else {
            return;
        };
        let r = radius.min(MAX_SIDE);
        let x0 = cx.saturating_sub(r);
        let y0 = cy.saturating_sub(r);
        let x1 = (cx + r).min(self.width.saturating_sub(1));
        let y1 = (cy + r).min(self.height.saturating_sub(1));
        let w = self.width;
        let mut canvas = self.canvas();
        for y in y0..=y1 {
            for x in x0..=x1 {
                canvas.overlay(y * w + x, c);
            }
        }
    }

    /// The character `ch` over the cell that will hold the pixel containing `p`, on top of
    /// everything (see `Label`); dropped outside the raster.
    pub fn overlay_label(&mut self, p: Vec3, ch: char, color: Rgb) {
        if let Some((x, y)) = self.pixel_of(p) {
            self.labels.push(Label { x, y, ch, color });
        }
    }

    /// A single pixel, depth-tested like a line (`EDGE_DEPTH_BIAS`) and depth-writing.
    pub fn point(&mut self, p: Vec3, c: Rgb) {
        if let Some((x, y)) = self.pixel_of(p) {
            let w = self.width;
            self.canvas().edge(y * w + x, p.z, true, || c);
        }
    }

    /// The pixel containing screen point `p`, if it is inside and finite.
    pub fn pixel_of(&self, p: Vec3) -> Option<(usize, usize)> {
        let inside = |v: f32, n: usize| v.is_finite() && v >= 0.0 && v < n as f32;
        (inside(p.x, self.width) && inside(p.y, self.height))
            .then(|| ((p.x as usize).min(self.width - 1), (p.y as usize).min(self.height - 1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::glyphs::GlyphMode;

    const NEAR_C: Rgb = Rgb::GREEN;
    const FAR_C: Rgb = Rgb::RED;

    fn square(r: &mut Raster, z: f32, c: Rgb, x0: f32, x1: f32) {
        let p = |x, y| Vec3::new(x, y, z);
        r.fill_triangle([p(x0, 0.0), p(x1, 0.0), p(x1, 4.0)], [1.0; 3], Paint::Lit(c));
        r.fill_triangle([p(x0, 0.0), p(x1, 4.0), p(x0, 4.0)], [1.0; 3], Paint::Lit(c));
    }

    #[test]
    fn a_pixel_is_eight_bytes() {
        assert_eq!(std::mem::size_of::<Pixel>(), 8);
    }

    #[test]
    fn nearer_surface_wins_in_either_order() {
        // Far square over columns 0..4, near over 2..6 (larger z is nearer).
        for near_first in [false, true] {
            let mut r = Raster::new(6, 4, 1.0);
            if near_first {
                square(&mut r, 0.6, NEAR_C, 2.0, 6.0);
                square(&mut r, 0.3, FAR_C, 0.0, 4.0);
            } else {
                square(&mut r, 0.3, FAR_C, 0.0, 4.0);
                square(&mut r, 0.6, NEAR_C, 2.0, 6.0);
            }
            for y in 0..4 {
                assert_eq!(r.color_at(1, y), Some(FAR_C));
                assert_eq!(r.color_at(3, y), Some(NEAR_C));
                assert_eq!(r.color_at(5, y), Some(NEAR_C));
                assert!((r.depth_at(3, y).unwrap() - 0.6).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn overlay_stays_on_top_of_later_surfaces() {
        let mut r = Raster::new(6, 4, 1.0);
        r.overlay_line(Vec3::new(0.5, 1.5, 0.0), Vec3::new(5.5, 1.5, 0.0), Rgb::YELLOW);
        square(&mut r, 0.9, NEAR_C, 0.0, 6.0);
        assert_eq!(r.color_at(3, 1), Some(Rgb::YELLOW));
        assert_eq!(r.layer_at(3, 1), Layer::Overlay);
        assert_eq!(r.color_at(3, 2), Some(NEAR_C));
        // The surface's depth is still recorded under the overlay.
        assert!((r.depth_at(3, 1).unwrap() - 0.9).abs() < 1e-6);
    }

    #[test]
    fn clear_keeps_allocation_and_empties() {
        let mut r = Raster::new(6, 4, 1.0);
        square(&mut r, 0.5, NEAR_C, 0.0, 6.0);
        let cap = r.pixels.capacity();
        r.clear();
        assert_eq!(r.pixels.capacity(), cap);
        assert!(r.lit_pixels().is_empty());
        assert_eq!(r.depth_at(0, 0), Some(0.0));
        r.resize(3, 2, 1.0);
        assert_eq!(r.pixels.capacity(), cap);
        assert_eq!((r.width(), r.height(), r.pixels.len()), (3, 2, 6));
        // The same size keeps the drawing; a new one starts empty.
        square(&mut r, 0.5, NEAR_C, 0.0, 3.0);
        let drawn = r.lit_pixels();
        assert!(!drawn.is_empty());
        r.resize(3, 2, 1.0);
        assert_eq!(r.lit_pixels(), drawn);
        r.resize(2, 3, 1.0);
        assert!(r.lit_pixels().is_empty());
    }

    #[test]
    fn every_drawing_call_flags_what_it_draws_and_clear_empties_it() {
        // A 200 x 100 raster, drawn into by each call in its left half only (a triangle
        // far past the edge takes the clipped path).
        let mut r = Raster::new(200, 100, 1.0);
        let p = |x, y| Vec3::new(x, y, 0.5);
        r.fill_triangle([p(3.0, 2.0), p(40.0, 9.0), p(10.0, 30.0)], [1.0; 3], Paint::Heat);
        r.fill_triangle([p(-5e4, 50.0), p(60.0, 52.0), p(20.0, 70.0)], [1.0; 3], Paint::Heat);
        r.line(p(1.5, 90.5), p(80.5, 60.5), [0.0, 1.0], Paint::Heat);
        r.overlay_line(p(90.5, 1.5), p(90.5, 98.5), Rgb::YELLOW);
        r.overlay_dot(p(70.5, 20.5), 2, Rgb::RED);
        r.point(p(95.5, 95.5), Rgb::WHITE);
        let drawn: Vec<(usize, usize)> =
            (0..100).flat_map(|y| (0..200).map(move |x| (x, y))).filter(|&(x, y)| r.is_lit(x, y)).collect();
        assert!(drawn.len() > 1000, "{}", drawn.len());
        assert!(drawn.iter().all(|&(x, y)| r.drawn_in(y, x..x + 1)));
        // Nothing was drawn right of column 96: the blocks of 32 pixels that hold columns
        // 128..160 (within 97..192 of the same row) are still unwritten.
        assert!((0..100).all(|y| !r.drawn_in(y, 128..160)));
        // Out of the raster: nothing.
        assert!(!r.drawn_in(100, 0..200) && !r.drawn_in(5, 300..400));
        // The same size keeps the drawing and its flags; clear then empties every pixel.
        r.resize(200, 100, 1.0);
        assert!(r.drawn_in(drawn[0].1, drawn[0].0..drawn[0].0 + 1));
        r.clear();
        assert!(r.pixels.iter().all(|p| *p == Pixel::default()));
        assert!((0..100).all(|y| !r.drawn_in(y, 0..200)));
        // A new size, drawn into and shrunk: its pixels start and end empty.
        r.resize(50, 300, 1.0);
        assert!(r.pixels.iter().all(|p| *p == Pixel::default()));
        r.fill_triangle([p(0.0, 0.0), p(50.0, 290.0), p(0.0, 300.0)], [1.0; 3], Paint::Heat);
        r.resize(40, 40, 1.0);
        assert!(r.pixels.iter().all(|p| *p == Pixel::default()));
    }

    #[test]
    fn grid_sizing_and_aspect() {
        let b = Raster::for_grid(10, 5, GlyphMode::Braille);
        assert_eq!((b.width(), b.height(), b.pixel_aspect()), (20, 20, 1.0));
        assert_eq!(b.aspect(), 1.0);
        let h = Raster::for_grid(10, 5, GlyphMode::HalfBlock);
        assert_eq!((h.width(), h.height(), h.pixel_aspect()), (10, 10, 1.0));
        let a = Raster::for_grid(10, 5, GlyphMode::Ascii);
        assert_eq!((a.width(), a.height(), a.pixel_aspect()), (10, 5, 2.0));
        // 10 cells wide, 5 cells of twice the width tall: physically square.
        assert_eq!(a.aspect(), 1.0);
        assert_eq!(Raster::new(0, 0, f32::NAN).aspect(), 1.0);
        assert_eq!(Raster::new(usize::MAX, 1, 1.0).width(), MAX_SIDE);
    }

    #[test]
    fn huge_and_nan_vertices() {
        // One vertex a billion pixels out: the long edge from (1e9, 0) to (0, 2) is
        // y = 2 - 2x/1e9, indistinguishable from y = 2 over 4 columns: rows 0 and 1.
        let mut r = Raster::new(4, 4, 1.0);
        let p = |x, y| Vec3::new(x, y, 0.5);
        r.fill_triangle([p(0.0, 0.0), p(1e9, 0.0), p(0.0, 2.0)], [1.0; 3], Paint::Heat);
        let want: Vec<(usize, usize)> = (0..2).flat_map(|y| (0..4).map(move |x| (x, y))).collect();
        assert_eq!(r.lit_pixels(), want);
        r.clear();
        r.fill_triangle([p(f32::NAN, 0.0), p(3.0, 0.0), p(0.0, 3.0)], [1.0; 3], Paint::Heat);
        r.fill_triangle([p(f32::INFINITY, 0.0), p(3.0, 0.0), p(0.0, 3.0)], [1.0; 3], Paint::Heat);
        r.line(p(f32::NAN, 0.0), p(3.0, 3.0), [1.0; 2], Paint::Heat);
        r.point(p(f32::NAN, 1.0), Rgb::WHITE);
        r.overlay_dot(p(-1.0, f32::INFINITY), 3, Rgb::WHITE);
        assert!(r.lit_pixels().is_empty());
    }

    #[test]
    fn dots_clip_at_the_edges() {
        let mut r = Raster::new(4, 4, 1.0);
        r.overlay_dot(Vec3::new(0.5, 3.5, 0.0), 1, Rgb::WHITE);
        assert_eq!(r.lit_pixels(), vec![(0, 2), (1, 2), (0, 3), (1, 3)]);
    }
}
