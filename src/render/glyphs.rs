//! Packing a raster into a grid of terminal cells: braille (2x4 dots per cell), half
//! blocks (1x2 pixels per cell, colours carry the picture) and an ASCII luminance ramp
//! (1x1). It owns the cell encodings and how a cell's colour is chosen; it knows nothing
//! of escape sequences (`ansi`) or of how the raster was drawn.

use std::ops::Range;

use super::canvas::{Layer, Pixel};
use super::color::Rgb;
use super::raster::{CELL_ASPECT, Raster};

/// How pixels become cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GlyphMode {
    /// U+2800 braille, 2x4 dots per cell; every drawn dot is shown.
    #[default]
    Braille,
    /// Braille where surface dots are thinned by an ordered 2x4 dither of their luminance,
    /// so that shading survives without colour. Overlay dots are always shown.
    BrailleDither,
    /// U+2580 / U+2584 half blocks, 1x2 pixels per cell, shading in the colours.
    HalfBlock,
    /// One character per pixel from `ASCII_RAMP` by luminance.
    Ascii,
}

impl GlyphMode {
    /// Pixels per cell: (columns, rows).
    pub fn cell_dots(self) -> (usize, usize) {
        match self {
            GlyphMode::Braille | GlyphMode::BrailleDither => (2, 4),
            GlyphMode::HalfBlock => (1, 2),
            GlyphMode::Ascii => (1, 1),
        }
    }
}

impl Raster {
    /// A raster for `cols` x `rows` terminal cells packed with `mode`.
    pub fn for_grid(cols: usize, rows: usize, mode: GlyphMode) -> Raster {
        let mut r = Raster::default();
        r.resize_for_grid(cols, rows, mode);
        r
    }

    /// Resize for `cols` x `rows` cells of `mode`, with the usual 1:2 cell shape.
    pub fn resize_for_grid(&mut self, cols: usize, rows: usize, mode: GlyphMode) {
        let (dx, dy) = mode.cell_dots();
        let aspect = CELL_ASPECT * dx as f32 / dy as f32;
        self.resize(cols.saturating_mul(dx), rows.saturating_mul(dy), aspect);
    }
}

/// Darkest to brightest; the first (space) is reserved for empty pixels.
pub const ASCII_RAMP: &str = " .:-=+*#%@";
const RAMP: [char; 10] = [' ', '.', ':', '-', '=', '+', '*', '#', '%', '@'];

/// The braille bit of the dot at (column, row) of a cell, in Unicode's dot numbering:
/// dots 1-3 and 7 down the left column, 4-6 and 8 down the right.
pub const BRAILLE_BITS: [[u8; 4]; 2] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]];
pub const BRAILLE_BASE: u32 = 0x2800;

/// Ordered-dither rank of each dot (the first two columns of the 4x4 Bayer matrix, ranked
/// 0..8), indexed [column][row]: a dot shows when its luminance exceeds (rank + 0.5) / 8.
const DITHER_RANK: [[u8; 4]; 2] = [[0, 6, 1, 7], [4, 2, 5, 3]];

/// One terminal cell. `None` colours mean the terminal's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    pub ch: char,
    pub fg: Option<Rgb>,
    pub bg: Option<Rgb>,
}

impl Cell {
    pub const BLANK: Cell = Cell { ch: ' ', fg: None, bg: None };
}

impl Default for Cell {
    fn default() -> Self {
        Cell::BLANK
    }
}

/// Cells row by row: `cells[y * width + x]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grid {
    pub width: usize,
    pub height: usize,
    pub cells: Vec<Cell>,
}

impl Grid {
    pub fn new(width: usize, height: usize) -> Grid {
        let mut g = Grid::default();
        g.resize(width, height);
        g
    }

    /// Resize and blank every cell, keeping the allocation when it is large enough.
    pub fn resize(&mut self, width: usize, height: usize) {
        self.width = width;
        self.height = height;
        self.cells.clear();
        self.cells.resize(width * height, Cell::BLANK);
    }

    pub fn get(&self, x: usize, y: usize) -> Option<&Cell> {
        if x < self.width { self.cells.get(y * self.width + x) } else { None }
    }

    /// Row `y` (empty when out of range).
    pub fn row(&self, y: usize) -> &[Cell] {
        let range = y.checked_mul(self.width).and_then(|start| Some(start..start.checked_add(self.width)?));
        range.and_then(|r| self.cells.get(r)).unwrap_or(&[])
    }

    /// The characters of row `y`, without colours.
    pub fn row_text(&self, y: usize) -> String {
        self.row(y).iter().map(|c| c.ch).collect()
    }
}

/// The braille character with the given dot bits (see `BRAILLE_BITS`).
pub fn braille(bits: u8) -> char {
    // U+2800..=U+28FF are all assigned braille patterns, so this never falls back.
    char::from_u32(BRAILLE_BASE + u32::from(bits)).unwrap_or(' ')
}

/// The ramp character for a drawn pixel of the given colour: '.' (darkest) to '@'.
pub fn ascii_for(c: Rgb) -> char {
    let k = 1 + (c.luma().clamp(0.0, 1.0) * (RAMP.len() - 2) as f32).round() as usize;
    RAMP.get(k).copied().unwrap_or('@')
}

/// Pack `raster` into `grid` (resized to cover it: partial cells at the right and bottom
/// edges count as cells).
pub fn pack(raster: &Raster, mode: GlyphMode, grid: &mut Grid) {
    let (dx, dy) = mode.cell_dots();
    let cols = raster.width().div_ceil(dx);
    let rows = raster.height().div_ceil(dy);
    grid.resize(cols, rows);
    if cols == 0 {
        return;
    }
    let pack_row = |(cy, row): (usize, &mut [Cell])| {
        // A braille cell row's four raster rows, looked up once for the whole row.
        let lines: [&[Pixel]; 4] = std::array::from_fn(|r| raster.row(cy * 4 + r));
        // Whether the cell row's pixels in some columns may have been drawn.
        let drawn = |cols: Range<usize>| (0..4).any(|r| raster.drawn_in(cy * 4 + r, cols.clone()));
        let whole = match mode {
            GlyphMode::Braille => braille_whole_cells(&lines, row, false, drawn),
            GlyphMode::BrailleDither => braille_whole_cells(&lines, row, true, drawn),
            GlyphMode::HalfBlock | GlyphMode::Ascii => 0,
        };
        for (cx, slot) in row.iter_mut().enumerate().skip(whole) {
            *slot = match mode {
                GlyphMode::Braille => braille_cell(&lines, cx, false),
                GlyphMode::BrailleDither => braille_cell(&lines, cx, true),
                GlyphMode::HalfBlock => half_block_cell(raster, cx, cy),
                GlyphMode::Ascii => match raster.color_at(cx, cy) {
                    Some(c) => Cell { ch: ascii_for(c), fg: Some(c), bg: None },
                    None => Cell::BLANK,
                },
            };
        }
    };
    // Rows of cells are independent: a large grid is packed on rayon's pool, and so is a
    // viewport-sized one when the mesh fill has just woken the pool's threads.
    let cells = cols * rows;
    if cells >= PARALLEL_MIN_CELLS || (raster.pool_woken && cells >= WOKEN_MIN_CELLS) {
        use rayon::prelude::*;
        grid.cells.par_chunks_mut(cols).enumerate().for_each(pack_row);
    } else {
        grid.cells.chunks_mut(cols).enumerate().for_each(pack_row);
    }
    for label in &raster.labels {
        if let Some(cell) = grid.cells.get_mut(label.y / dy * cols + label.x / dx) {
            *cell = Cell { ch: label.ch, fg: Some(label.color), bg: None };
        }
    }
}

/// Grids of at least this many cells are packed on two threads: waking a sleeping thread
/// costs about as much as packing a full-screen grid...
const PARALLEL_MIN_CELLS: usize = 32_768;
/// ...or this many when the mesh fill has just used the pool (`Raster::pool_woken`).
const WOKEN_MIN_CELLS: usize = 2048;

/// Sums colours to average them.
#[derive(Default)]
struct Mix {
    bits: u8,
    n: u32,
    r: u32,
    g: u32,
    b: u32,
}

impl Mix {
    /// Add the dot `bit` of colour `c` when `on`, without a branch: whether a dot is
    /// drawn changes from dot to dot along every silhouette, and the branch mispredicted.
    #[inline(always)]
    fn add_if(&mut self, on: bool, bit: u8, c: Rgb) {
        let m = u32::from(on);
        self.bits |= bit * u8::from(on);
        self.n += m;
        self.r += m * u32::from(c.r);
        self.g += m * u32::from(c.g);
        self.b += m * u32::from(c.b);
    }

    fn average(&self) -> Option<Rgb> {
        let n = self.n as usize;
        // `(s + n / 2) / n` rounded down, as a multiply and a shift by 2^16 / n rounded up:
        // exact for every sum of at most 8 dots (checked for all of them in the tests).
        let inverse = *INVERSES.get(n)?;
        let avg = |s: u32| (((s + self.n / 2) * inverse) >> 16) as u8;
        (n > 0).then(|| Rgb::new(avg(self.r), avg(self.g), avg(self.b)))
    }
}

/// `ceil(2^16 / n)` for the dot counts of a braille cell (index 0 unused).
const INVERSES: [u32; 9] = {
    let mut t = [0u32; 9];
    let mut n = 1;
    while n < 9 {
        t[n] = (1u32 << 16).div_ceil(n as u32);
        n += 1;
    }
    t
};

/// A braille cell. When the cell holds overlay dots, only those are shown, in their
/// average colour: a bone crossing the mesh then reads as a thin line cut through it
/// rather than recolouring the whole 2x4 block. Otherwise the surface dots are shown in
/// their average colour (the average keeps shading smooth across cells; the brightest
/// dot would make edges flicker as they move).
#[inline(always)]
fn braille_cell(lines: &[&[Pixel]; 4], cx: usize, dither: bool) -> Cell {
    // The cell's pixel `c` of row `r`, if the raster has it (a last cell may be cut).
    let at = |r: usize, c: usize| lines[r].get(cx * 2 + c);
    // Most cells of a viewport are empty: a quick look at the eight layers, read in place,
    // before anything else (`Empty` is 0).
    let layer = |r: usize, c: usize| at(r, c).map_or(0, |p| p.layer as u8);
    if (0..4).fold(0, |any, r| any | layer(r, 0) | layer(r, 1)) == 0 {
        return Cell::BLANK;
    }
    // Pixels past a cut edge are empty.
    let dots = std::array::from_fn(|r| std::array::from_fn(|c| at(r, c).copied().unwrap_or_default()));
    braille_dots(&dots, dither)
}

/// `braille_cell` for the cells of `row` (blank, as `Grid::resize` leaves them) whose
/// eight dots are all in the raster, from the first: most of a row. Returns how many there
/// were. Runs of `WHOLE_RUN` cells whose pixels were not drawn (`drawn` of their pixel
/// columns is false: the raster's written blocks) are skipped unread; in the others, each
/// cell's four pairs of pixels are taken straight from the rows, so that an empty cell
/// costs eight byte loads and no bounds check, and is not written again.
#[inline(always)]
fn braille_whole_cells(
    lines: &[&[Pixel]; 4],
    row: &mut [Cell],
    dither: bool,
    drawn: impl Fn(Range<usize>) -> bool,
) -> usize {
    let whole = lines.iter().map(|l| l.len() / 2).fold(row.len(), usize::min);
    for start in (0..whole).step_by(WHOLE_RUN) {
        let cells = start..(start + WHOLE_RUN).min(whole);
        let cols = 2 * cells.start..2 * cells.end;
        if !drawn(cols.clone()) {
            continue;
        }
        let pairs = |r: usize| lines[r][cols.clone()].chunks_exact(2);
        let run = pairs(0).zip(pairs(1)).zip(pairs(2)).zip(pairs(3)).zip(&mut row[cells]);
        for ((((a, b), c), d), slot) in run {
            let layers = [a, b, c, d].iter().fold(0, |any, p| any | p[0].layer as u8 | p[1].layer as u8);
            if layers != 0 {
                let dots = [[a[0], a[1]], [b[0], b[1]], [c[0], c[1]], [d[0], d[1]]];
                *slot = braille_dots(&dots, dither);
            }
        }
    }
    whole
}

/// Cells `braille_whole_cells` skips at a time when none of their pixels was drawn: 32
/// pixel columns, as many as the raster flags at once.
const WHOLE_RUN: usize = 16;

/// `braille_cell` of a cell with a dot drawn, out of line: the empty cells' test above
/// stays small enough to inline into the packing loop.
#[inline(never)]
fn braille_dots(dots: &[[Pixel; 2]; 4], dither: bool) -> Cell {
    let mut over = Mix::default();
    let mut surf = Mix::default();
    let mut shown = 0u8;
    for (row, pair) in dots.iter().enumerate() {
        for (col, p) in pair.iter().enumerate() {
            let bit = BRAILLE_BITS[col][row];
            let (c, surface) = (p.color, p.layer == Layer::Surface);
            over.add_if(p.layer == Layer::Overlay, bit, c);
            surf.add_if(surface, bit, c);
            let lit = !dither || c.luma() > (f32::from(DITHER_RANK[col][row]) + 0.5) / 8.0;
            shown |= bit * u8::from(surface && lit);
        }
    }
    if over.bits != 0 {
        return Cell { ch: braille(over.bits), fg: over.average(), bg: None };
    }
    if shown == 0 {
        return Cell::BLANK;
    }
    Cell { ch: braille(shown), fg: surf.average(), bg: None }
}

/// A half-block cell: upper half block with fg = top pixel and bg = bottom pixel; a lower
/// half block when only the bottom is drawn (so the empty half keeps the terminal's
/// background); a full block when both halves have the same colour.
fn half_block_cell(raster: &Raster, cx: usize, cy: usize) -> Cell {
    let top = raster.color_at(cx, cy * 2);
    let bottom = raster.color_at(cx, cy * 2 + 1);
    match (top, bottom) {
        (None, None) => Cell::BLANK,
        (Some(t), None) => Cell { ch: '\u{2580}', fg: Some(t), bg: None },
        (None, Some(b)) => Cell { ch: '\u{2584}', fg: Some(b), bg: None },
        (Some(t), Some(b)) if t == b => Cell { ch: '\u{2588}', fg: Some(t), bg: None },
        (Some(t), Some(b)) => Cell { ch: '\u{2580}', fg: Some(t), bg: Some(b) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::raster::Paint;
    use glam::Vec3;

    const GREY: Rgb = Rgb::new(200, 200, 200);

    #[test]
    fn the_average_divides_exactly() {
        // Every sum of one to eight 8-bit channels, against the division it replaces.
        for n in 1..=8u32 {
            for sum in 0..=n * 255 {
                let mix = Mix { bits: 1, n, r: sum, g: 0, b: n * 255 - sum };
                let want = |s: u32| ((s + n / 2) / n) as u8;
                assert_eq!(mix.average(), Some(Rgb::new(want(sum), 0, want(n * 255 - sum))), "{n} {sum}");
            }
        }
        assert_eq!(Mix::default().average(), None);
    }

    fn dot(r: &mut Raster, x: usize, y: usize, c: Rgb) {
        r.point(Vec3::new(x as f32 + 0.5, y as f32 + 0.5, 0.5), c);
    }

    fn packed(r: &Raster, mode: GlyphMode) -> Grid {
        let mut g = Grid::default();
        pack(r, mode, &mut g);
        g
    }

    #[test]
    fn braille_bits_follow_unicode_dot_order() {
        let mut r = Raster::new(2, 4, 1.0);
        dot(&mut r, 0, 0, GREY);
        assert_eq!(packed(&r, GlyphMode::Braille).cells[0].ch, '\u{2801}');
        r.clear();
        dot(&mut r, 1, 3, GREY);
        assert_eq!(packed(&r, GlyphMode::Braille).cells[0].ch, '\u{2880}');
        r.clear();
        dot(&mut r, 0, 3, GREY);
        assert_eq!(packed(&r, GlyphMode::Braille).cells[0].ch, '\u{2840}');
        for y in 0..4 {
            for x in 0..2 {
                dot(&mut r, x, y, GREY);
            }
        }
        let g = packed(&r, GlyphMode::Braille);
        assert_eq!(g.cells[0].ch, '\u{28FF}');
        assert_eq!(g.cells[0].fg, Some(GREY));
    }

    #[test]
    fn a_filled_triangle_lights_the_hand_listed_dots() {
        // fill.rs's rule on a 4x4 raster: this triangle covers (0,0) (1,0) (2,0) (0,1)
        // (1,1) (0,2). Cell 0 (columns 0-1): dots 1, 4, 2, 5, 3 = 0x01|0x08|0x02|0x10|0x04
        // = 0x1F. Cell 1 (columns 2-3): only its (0,0) = 0x01.
        let mut r = Raster::new(4, 4, 1.0);
        let v = [0.5, 0.5, 3.5, 0.5, 0.5, 3.5];
        let tri = [Vec3::new(v[0], v[1], 0.5), Vec3::new(v[2], v[3], 0.5), Vec3::new(v[4], v[5], 0.5)];
        r.fill_triangle(tri, [1.0; 3], Paint::Lit(GREY));
        assert_eq!(r.lit_pixels(), vec![(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (0, 2)]);
        let g = packed(&r, GlyphMode::Braille);
        assert_eq!((g.width, g.height), (2, 1));
        assert_eq!(g.row_text(0), "\u{281F}\u{2801}");
    }

    #[test]
    fn braille_colour_is_the_average_and_overlay_dots_win() {
        let mut r = Raster::new(2, 4, 1.0);
        dot(&mut r, 0, 0, Rgb::new(200, 0, 10));
        dot(&mut r, 1, 1, Rgb::new(100, 0, 11));
        let g = packed(&r, GlyphMode::Braille);
        // (200 + 100) / 2 = 150; (10 + 11) / 2 = 10.5 rounds up to 11.
        assert_eq!(g.cells[0].fg, Some(Rgb::new(150, 0, 11)));
        assert_eq!(g.cells[0].ch, braille(0x01 | 0x10));
        r.overlay_dot(Vec3::new(1.5, 3.5, 0.0), 0, Rgb::YELLOW);
        let g = packed(&r, GlyphMode::Braille);
        assert_eq!(g.cells[0].ch, '\u{2880}');
        assert_eq!(g.cells[0].fg, Some(Rgb::YELLOW));
    }

    #[test]
    fn dithering_keeps_the_brightest_ranks() {
        let mut r = Raster::new(2, 4, 1.0);
        let fill = |r: &mut Raster, c: Rgb| {
            r.clear();
            for y in 0..4 {
                for x in 0..2 {
                    dot(r, x, y, c);
                }
            }
        };
        fill(&mut r, Rgb::WHITE);
        assert_eq!(packed(&r, GlyphMode::BrailleDither).cells[0].ch, '\u{28FF}');
        fill(&mut r, Rgb::BLACK);
        assert_eq!(packed(&r, GlyphMode::BrailleDither).cells[0], Cell::BLANK);
        // Luma of grey 128 is 0.502: ranks whose threshold (rank + 0.5) / 8 is below it are
        // 0..=3, at (0,0) (0,2) (1,1) (1,3): bits 0x01 | 0x04 | 0x10 | 0x80 = 0x95.
        fill(&mut r, Rgb::new(128, 128, 128));
        assert_eq!(packed(&r, GlyphMode::BrailleDither).cells[0].ch, '\u{2895}');
        // Undithered braille shows all eight.
        assert_eq!(packed(&r, GlyphMode::Braille).cells[0].ch, '\u{28FF}');
    }

    #[test]
    fn half_blocks() {
        let mut r = Raster::new(4, 2, 1.0);
        dot(&mut r, 0, 0, Rgb::RED);
        dot(&mut r, 0, 1, Rgb::BLUE);
        dot(&mut r, 1, 0, Rgb::RED);
        dot(&mut r, 2, 1, Rgb::GREEN);
        dot(&mut r, 3, 0, Rgb::GREEN);
        dot(&mut r, 3, 1, Rgb::GREEN);
        let g = packed(&r, GlyphMode::HalfBlock);
        assert_eq!((g.width, g.height), (4, 1));
        let cell = |ch, fg, bg| Cell { ch, fg, bg };
        assert_eq!(g.cells[0], cell('\u{2580}', Some(Rgb::RED), Some(Rgb::BLUE)));
        assert_eq!(g.cells[1], cell('\u{2580}', Some(Rgb::RED), None));
        assert_eq!(g.cells[2], cell('\u{2584}', Some(Rgb::GREEN), None));
        assert_eq!(g.cells[3], cell('\u{2588}', Some(Rgb::GREEN), None));
        r.clear();
        assert_eq!(packed(&r, GlyphMode::HalfBlock).cells[0], Cell::BLANK);
    }

    #[test]
    fn ascii_ramp_extremes() {
        let mut r = Raster::new(4, 1, 2.0);
        dot(&mut r, 0, 0, Rgb::WHITE);
        dot(&mut r, 1, 0, Rgb::BLACK);
        // Luma 128/255 = 0.502 -> 1 + round(0.502 * 8) = 5 -> '+'.
        dot(&mut r, 2, 0, Rgb::new(128, 128, 128));
        let g = packed(&r, GlyphMode::Ascii);
        assert_eq!(g.row_text(0), "@.+ ");
        assert_eq!(g.cells[0].fg, Some(Rgb::WHITE));
        assert_eq!(g.cells[3], Cell::BLANK);
        assert_eq!(ASCII_RAMP.chars().count(), RAMP.len());
        assert!(ASCII_RAMP.chars().eq(RAMP.iter().copied()));
    }

    #[test]
    fn whole_cells_pack_as_each_cell_alone() {
        // Random surface and overlay dots on rasters cut mid-cell both ways, packed into a
        // grid that held a fully drawn picture: every cell is what `braille_cell` makes of
        // it alone (the whole cells' path writes only the cells with a dot drawn, and reads
        // only the runs of cells whose pixels the raster flags as written).
        let mut seed = 17u32;
        let mut next = |n: u32| {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) % n
        };
        // The larger rasters' few dots leave most runs of cells unwritten (skipped).
        for (w, h, dots) in
            [(7, 9, 32), (8, 8, 32), (2, 4, 4), (1, 3, 2), (13, 6, 39), (101, 37, 40), (64, 80, 9)]
        {
            let mut full = Raster::new(w, h, 1.0);
            for y in 0..h {
                for x in 0..w {
                    dot(&mut full, x, y, Rgb::WHITE);
                }
            }
            let mut r = Raster::new(w, h, 1.0);
            for _ in 0..dots {
                let (x, y) = (next(w as u32) as usize, next(h as u32) as usize);
                let c = Rgb::new(next(256) as u8, next(256) as u8, next(256) as u8);
                if next(4) == 0 {
                    r.overlay_dot(Vec3::new(x as f32 + 0.5, y as f32 + 0.5, 0.0), 0, c);
                } else {
                    dot(&mut r, x, y, c);
                }
            }
            for (mode, dither) in [(GlyphMode::Braille, false), (GlyphMode::BrailleDither, true)] {
                let mut g = packed(&full, mode);
                pack(&r, mode, &mut g);
                for cy in 0..g.height {
                    let lines: [&[Pixel]; 4] = std::array::from_fn(|k| r.row(cy * 4 + k));
                    for cx in 0..g.width {
                        assert_eq!(
                            g.get(cx, cy),
                            Some(&braille_cell(&lines, cx, dither)),
                            "{w}x{h} {cx} {cy}"
                        );
                    }
                }
                assert!(dither || g.cells.iter().any(|c| c.ch != ' '), "{w}x{h}");
            }
        }
    }

    #[test]
    fn partial_cells_count_and_grid_is_reused() {
        let r = Raster::new(5, 5, 1.0);
        let mut g = Grid::new(100, 100);
        let cap = g.cells.capacity();
        pack(&r, GlyphMode::Braille, &mut g);
        assert_eq!((g.width, g.height, g.cells.len()), (3, 2, 6));
        assert_eq!(g.cells.capacity(), cap);
        assert!(g.get(3, 0).is_none() && g.get(2, 1).is_some());
        assert!(g.row(2).is_empty());
        assert!(g.row(usize::MAX).is_empty());
    }
}
