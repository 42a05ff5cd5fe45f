//! The raster's pixels as they are drawn: the per-pixel write rules (surface, depth only,
//! edge, overlay) on a `Canvas`, a writable view of all the pixels or of one band of rows,
//! and the flags of the blocks of pixels written since the last clear (`Touched`).
//!
//! Why the flags: most of a viewport stays empty, and clearing and packing the whole
//! buffer cost more than the written blocks alone. `Raster::clear` and `glyphs::pack`
//! visit the flagged blocks only. Every write goes through a `Canvas`, which flags its
//! block, so a block without a flag holds cleared pixels.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use super::color::Rgb;

/// What a pixel shows, in drawing priority order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Layer {
    #[default]
    Empty,
    /// Depth-tested geometry: the mesh, its wireframe and points, the ghost.
    Surface,
    /// Drawn over everything regardless of depth: bones, joints, the axis gizmo.
    Overlay,
}

/// One raster pixel.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(super) struct Pixel {
    pub depth: f32,
    pub color: Rgb,
    pub layer: Layer,
}

/// Pixels per flag: consecutive in the buffer (a block may run from one row into the next).
const BLOCK: usize = 32;

/// Lines and points lying on a surface sample depth slightly differently from the
/// surface's own pixels; this relative slack (1% of the view distance) lets them show on
/// the surface they belong to while surfaces clearly in front still hide them.
pub const EDGE_DEPTH_BIAS: f32 = 0.01;

/// One flag per `BLOCK` pixels of a buffer: set when a pixel of the block may have been
/// written since the flags were last taken. Atomic so that the two bands of a split fill
/// can flag a block they share (a relaxed store is a plain byte store).
#[derive(Debug, Default)]
pub(super) struct Touched(Vec<AtomicBool>);

impl Clone for Touched {
    fn clone(&self) -> Self {
        Touched(self.0.iter().map(|f| AtomicBool::new(f.load(Ordering::Relaxed))).collect())
    }
}

impl Touched {
    /// Flags for a buffer of `pixels` pixels, keeping those of the blocks that remain.
    pub(super) fn resize(&mut self, pixels: usize) {
        self.0.resize_with(pixels.div_ceil(BLOCK), AtomicBool::default);
    }

    /// Whether a pixel at an index in `pixels` may have been written.
    pub(super) fn any(&self, pixels: Range<usize>) -> bool {
        if pixels.is_empty() {
            return false;
        }
        let blocks = pixels.start / BLOCK..=(pixels.end - 1) / BLOCK;
        self.0.get(blocks).is_some_and(|flags| flags.iter().any(|f| f.load(Ordering::Relaxed)))
    }

    /// Reset every block of `pixels` (the buffer the flags are for) that was written to
    /// `Pixel::default()`, and its flag.
    pub(super) fn clear(&mut self, pixels: &mut [Pixel]) {
        for (block, flag) in pixels.chunks_mut(BLOCK).zip(&mut self.0) {
            if std::mem::take(flag.get_mut()) {
                block.fill(Pixel::default());
            }
        }
    }

    #[inline(always)]
    fn flag(&self, i: usize) {
        if let Some(f) = self.0.get(i / BLOCK) {
            f.store(true, Ordering::Relaxed);
        }
    }
}

/// A writable view of a raster's pixels from index `first` on (all of them, or a band of
/// rows), taking raster pixel indices. An index outside the view writes nothing.
pub(super) struct Canvas<'a> {
    pixels: &'a mut [Pixel],
    touched: &'a Touched,
    first: usize,
}

impl<'a> Canvas<'a> {
    /// All of `pixels`, whose flags are `touched`.
    pub(super) fn new(pixels: &'a mut [Pixel], touched: &'a Touched) -> Canvas<'a> {
        Canvas { pixels, touched, first: 0 }
    }

    /// The same view, borrowed.
    pub(super) fn reborrow(&mut self) -> Canvas<'_> {
        Canvas { pixels: self.pixels, touched: self.touched, first: self.first }
    }

    /// The view cut in two at raster pixel index `at` (clamped to the view).
    pub(super) fn split_at(self, at: usize) -> (Canvas<'a>, Canvas<'a>) {
        let Canvas { pixels, touched, first } = self;
        let mid = at.saturating_sub(first).min(pixels.len());
        let (a, b) = pixels.split_at_mut(mid);
        (Canvas { pixels: a, touched, first }, Canvas { pixels: b, touched, first: first + mid })
    }

    /// The depth rule for surfaces: strictly nearer wins, so that of two equal depths the
    /// first drawn stays (draw order then decides, predictably). The colour is computed
    /// only for pixels that pass.
    #[inline]
    pub(super) fn surface(&mut self, i: usize, z: f32, c: impl FnOnce() -> Rgb) {
        if let Some(p) = self.pixels.get_mut(i.wrapping_sub(self.first))
            && z > p.depth
        {
            p.depth = z;
            cover(p, c);
            self.touched.flag(i);
        }
    }

    /// Depth only (the hidden-line prepass).
    #[inline]
    pub(super) fn depth_only(&mut self, i: usize, z: f32) {
        if let Some(p) = self.pixels.get_mut(i.wrapping_sub(self.first))
            && z > p.depth
        {
            p.depth = z;
            self.touched.flag(i);
        }
    }

    /// The depth rule for edges and points: pass unless clearly behind
    /// (`EDGE_DEPTH_BIAS`); when `write`, raise the stored depth to the edge's own.
    #[inline]
    pub(super) fn edge(&mut self, i: usize, z: f32, write: bool, c: impl FnOnce() -> Rgb) {
        if let Some(p) = self.pixels.get_mut(i.wrapping_sub(self.first))
            && z * (1.0 + EDGE_DEPTH_BIAS) > p.depth
        {
            if write && z > p.depth {
                p.depth = z;
            }
            cover(p, c);
            self.touched.flag(i);
        }
    }

    /// Drawn over everything, depth untouched.
    #[inline]
    pub(super) fn overlay(&mut self, i: usize, c: Rgb) {
        if let Some(p) = self.pixels.get_mut(i.wrapping_sub(self.first)) {
            p.color = c;
            p.layer = Layer::Overlay;
            self.touched.flag(i);
        }
    }
}

/// A pixel a surface, an edge or a point passes takes its colour, unless an overlay is
/// on top: overlays stay on top whatever is drawn after them (the depth still records
/// the surface, so that later surfaces are tested against it).
#[inline(always)]
fn cover(p: &mut Pixel, c: impl FnOnce() -> Rgb) {
    if p.layer != Layer::Overlay {
        p.color = c();
        p.layer = Layer::Surface;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(z: f32) -> Pixel {
        Pixel { depth: z, color: Rgb::WHITE, layer: Layer::Surface }
    }

    #[test]
    fn a_write_flags_its_block_and_clear_resets_only_those() {
        // 100 pixels: blocks 0..32, 32..64, 64..96, 96..100.
        let mut px = vec![Pixel::default(); 100];
        let mut touched = Touched::default();
        touched.resize(px.len());
        let mut canvas = Canvas::new(&mut px, &touched);
        canvas.surface(40, 0.5, || Rgb::WHITE);
        canvas.depth_only(99, 0.25);
        // Behind what is there, or outside: nothing written, nothing flagged.
        canvas.surface(40, 0.1, || Rgb::RED);
        canvas.overlay(100, Rgb::RED);
        assert!(!touched.any(0..32) && touched.any(32..64) && !touched.any(64..96) && touched.any(96..100));
        assert!(touched.any(0..33) && !touched.any(0..0) && !touched.any(100..200));
        assert_eq!(px[40], drawn(0.5));
        assert_eq!(px[99].depth, 0.25);
        // A pixel written behind the flags' back survives a clear: proof that clearing
        // visits the flagged blocks alone.
        px[5] = drawn(0.7);
        touched.clear(&mut px);
        assert!(!touched.any(0..100));
        assert_eq!(px[5], drawn(0.7));
        assert!(px.iter().enumerate().all(|(i, p)| i == 5 || *p == Pixel::default()));
    }

    #[test]
    fn split_views_take_raster_indices_and_flag_a_shared_block() {
        let mut px = vec![Pixel::default(); 64];
        let mut touched = Touched::default();
        touched.resize(px.len());
        let (mut top, mut bottom) = Canvas::new(&mut px, &touched).split_at(20);
        // Each view writes only its own pixels; both may flag block 0.
        top.edge(25, 0.5, true, || Rgb::RED);
        bottom.edge(25, 0.5, true, || Rgb::GREEN);
        top.overlay(3, Rgb::RED);
        bottom.overlay(3, Rgb::RED);
        let (mut lower, mut last) = bottom.split_at(40);
        lower.surface(41, 0.5, || Rgb::RED);
        last.surface(41, 0.5, || Rgb::GREEN);
        assert_eq!(px[25].color, Rgb::GREEN);
        assert_eq!((px[3].layer, px[3].color), (Layer::Overlay, Rgb::RED));
        assert_eq!(px[41].color, Rgb::GREEN);
        assert_eq!(px.iter().filter(|p| **p != Pixel::default()).count(), 3);
        assert!(touched.any(0..32) && touched.any(32..64));
    }
}
