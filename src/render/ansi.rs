//! Writing a grid as text with ANSI SGR colour escapes, for printing outside the TUI (the
//! `render` command, snapshots). It owns the colour-depth mapping, including the xterm
//! 256-colour palette, and keeps escapes minimal: a colour is written only when it
//! changes, and each line that set a colour ends with a reset so that lines stand alone.

use std::fmt::Write;

use super::color::Rgb;
use super::glyphs::Grid;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorDepth {
    /// 24-bit colour (`38;2;r;g;b`).
    #[default]
    TrueColor,
    /// The xterm 256-colour palette (`38;5;n`).
    Ansi256,
    /// No escapes at all: characters only.
    None,
    /// The 16 system colours (`38;5;n`, n < 16): fewer colour changes on a slow link.
    Ansi16,
}

impl ColorDepth {
    /// The next depth, for the viewer's key: each step sends fewer colour escapes.
    pub fn next(self) -> ColorDepth {
        match self {
            ColorDepth::TrueColor => ColorDepth::Ansi256,
            ColorDepth::Ansi256 => ColorDepth::Ansi16,
            ColorDepth::Ansi16 => ColorDepth::None,
            ColorDepth::None => ColorDepth::TrueColor,
        }
    }

    /// How the status bar and docs/viewer.md name it.
    pub fn label(self) -> &'static str {
        match self {
            ColorDepth::TrueColor => "24-bit",
            ColorDepth::Ansi256 => "256",
            ColorDepth::Ansi16 => "16",
            ColorDepth::None => "none",
        }
    }
}

/// xterm's default RGB for the 16 system colours. Terminals theme these, so a 16-colour
/// picture is only as faithful as the theme is close to xterm's.
const SYSTEM: [Rgb; 16] = [
    Rgb::new(0, 0, 0),
    Rgb::new(205, 0, 0),
    Rgb::new(0, 205, 0),
    Rgb::new(205, 205, 0),
    Rgb::new(0, 0, 238),
    Rgb::new(205, 0, 205),
    Rgb::new(0, 205, 205),
    Rgb::new(229, 229, 229),
    Rgb::new(127, 127, 127),
    Rgb::new(255, 0, 0),
    Rgb::new(0, 255, 0),
    Rgb::new(255, 255, 0),
    Rgb::new(92, 92, 255),
    Rgb::new(255, 0, 255),
    Rgb::new(0, 255, 255),
    Rgb::new(255, 255, 255),
];

/// The system colour (0..=15) nearest to `c` by squared RGB distance in xterm's defaults;
/// the lower index wins ties.
pub fn ansi16(c: Rgb) -> u8 {
    (0..16u8).min_by_key(|&i| dist2(c, SYSTEM[usize::from(i)])).unwrap_or(0)
}

/// The six levels of each channel in the xterm 6x6x6 colour cube (indices 16..=231).
const CUBE: [u8; 6] = [0, 95, 135, 175, 215, 255];

/// Nearest cube level index for one channel: the level thresholds are the midpoints
/// between neighbouring levels (47.5, 115, 155, 195, 235).
fn cube_level(v: u8) -> usize {
    match v {
        0..=47 => 0,
        48..=114 => 1,
        _ => usize::from((v - 35) / 40),
    }
}

fn dist2(a: Rgb, b: Rgb) -> u32 {
    let d = |x: u8, y: u8| (i32::from(x) - i32::from(y)).unsigned_abs().pow(2);
    d(a.r, b.r) + d(a.g, b.g) + d(a.b, b.b)
}

/// The xterm 256-colour index nearest to `c` among the colour cube (16..=231) and the grey
/// ramp (232..=255, levels 8, 18, ..., 238), by squared RGB distance; the cube wins ties.
/// The 16 system colours are left out: terminals theme them, so they have no fixed RGB.
pub fn ansi256(c: Rgb) -> u8 {
    let (ri, gi, bi) = (cube_level(c.r), cube_level(c.g), cube_level(c.b));
    let cube = Rgb::new(CUBE[ri], CUBE[gi], CUBE[bi]);
    let cube_index = 16 + 36 * ri + 6 * gi + bi;
    let mean = (u32::from(c.r) + u32::from(c.g) + u32::from(c.b)) / 3;
    // Nearest grey level 8 + 10k, k in 0..=23.
    let k = ((mean.saturating_sub(3)) / 10).min(23);
    let level = (8 + 10 * k) as u8;
    let grey = Rgb::new(level, level, level);
    if dist2(c, grey) < dist2(c, cube) { 232 + k as u8 } else { cube_index as u8 }
}

/// The RGB a terminal shows for xterm palette entry `index` (16..=255; the 16 system
/// colours, which terminals theme, read as black).
pub fn ansi256_rgb(index: u8) -> Rgb {
    match index {
        16..=231 => {
            let i = usize::from(index - 16);
            Rgb::new(CUBE[i / 36], CUBE[i / 6 % 6], CUBE[i % 6])
        }
        232..=255 => {
            let level = 8 + 10 * (index - 232);
            Rgb::new(level, level, level)
        }
        _ => Rgb::BLACK,
    }
}

/// How much worse (squared RGB distance) a kept entry may be than the nearest: 3 * 20^2,
/// two steps of the grey ramp on every channel (about 8% of full scale): enough to keep the
/// 256-colour bytes per frame under their target (see PERFORMANCE.md).
const KEEP_SLACK: u32 = 1200;

/// 256-colour indices for a screen of cells that change over time, with hysteresis: a cell
/// keeps last frame's entry while it is at most `KEEP_SLACK` worse than the nearest one.
/// A shaded surface drifts slowly across the palette's boundaries as it moves; without
/// this, every cell near a boundary flips back and forth between two entries and each flip
/// costs an escape sequence on the wire; and a run of cells in one entry needs one escape
/// where a run of alternating neighbours needs one each.
#[derive(Debug, Clone, Default)]
pub struct StablePalette {
    /// Last entry per cell; 0 = none yet (0 is a system colour, never produced here).
    last: Vec<u8>,
}

impl StablePalette {
    /// Forget every cell's entry (new size, new glyph mode): the next frame maps afresh.
    pub fn reset(&mut self, cells: usize) {
        self.last.clear();
        self.last.resize(cells, 0);
    }

    /// The entry for `c` in cell `i` this frame; `left` is the entry just chosen for the
    /// cell to its left, if it has a colour. Preference: last frame's entry, then the left
    /// neighbour's (a run of one colour needs one escape), then the nearest; the first two
    /// only while within `KEEP_SLACK` of the nearest.
    pub fn index(&mut self, i: usize, c: Rgb, left: Option<u8>) -> u8 {
        let nearest = ansi256(c);
        let best = dist2(c, ansi256_rgb(nearest));
        let close = |e: u8| e != 0 && dist2(c, ansi256_rgb(e)) <= best + KEEP_SLACK;
        let Some(last) = self.last.get_mut(i) else { return nearest };
        let chosen = if close(*last) { *last } else { left.filter(|&e| close(e)).unwrap_or(nearest) };
        *last = chosen;
        chosen
    }
}

/// A colour as the terminal will receive it, so that two RGBs mapping to the same palette
/// entry do not cause a redundant escape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sgr {
    True(Rgb),
    Indexed(u8),
}

fn encode(c: Option<Rgb>, depth: ColorDepth) -> Option<Sgr> {
    match depth {
        ColorDepth::TrueColor => c.map(Sgr::True),
        ColorDepth::Ansi256 => c.map(|c| Sgr::Indexed(ansi256(c))),
        ColorDepth::Ansi16 => c.map(|c| Sgr::Indexed(ansi16(c))),
        ColorDepth::None => None,
    }
}

fn push_color(out: &mut String, base: u8, c: Option<Sgr>) {
    // Writing into a String cannot fail.
    let _ = match c {
        None => write!(out, "{}", base + 1),
        Some(Sgr::True(c)) => write!(out, "{base};2;{};{};{}", c.r, c.g, c.b),
        Some(Sgr::Indexed(n)) => write!(out, "{base};5;{n}"),
    };
}

/// The grid as text, one line per row, each ending in `\n`.
pub fn to_ansi(grid: &Grid, depth: ColorDepth) -> String {
    let mut out = String::with_capacity(grid.cells.len() * 4 + grid.height);
    write_ansi(grid, depth, &mut out);
    out
}

/// Append the grid to `out` (see `to_ansi`): reuse `out` to avoid allocating per frame.
pub fn write_ansi(grid: &Grid, depth: ColorDepth, out: &mut String) {
    if grid.width == 0 {
        return;
    }
    for row in grid.cells.chunks(grid.width).take(grid.height) {
        let (mut fg, mut bg): (Option<Sgr>, Option<Sgr>) = (None, None);
        for cell in row {
            let want_bg = encode(cell.bg, depth);
            // A blank cell shows no foreground: keep whatever is set rather than switch.
            let want_fg = if cell.ch == ' ' { fg } else { encode(cell.fg, depth) };
            if want_fg != fg || want_bg != bg {
                out.push_str("\x1b[");
                if want_fg != fg {
                    push_color(out, 38, want_fg);
                    if want_bg != bg {
                        out.push(';');
                    }
                }
                if want_bg != bg {
                    push_color(out, 48, want_bg);
                }
                out.push('m');
                fg = want_fg;
                bg = want_bg;
            }
            out.push(cell.ch);
        }
        if fg.is_some() || bg.is_some() {
            out.push_str("\x1b[0m");
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::glyphs::Cell;

    #[test]
    fn palette_mapping_by_hand() {
        assert_eq!(ansi256(Rgb::new(0, 0, 0)), 16);
        assert_eq!(ansi256(Rgb::new(255, 255, 255)), 231);
        assert_eq!(ansi256(Rgb::new(255, 0, 0)), 196); // 16 + 36*5
        assert_eq!(ansi256(Rgb::new(0, 255, 0)), 46); // 16 + 6*5
        assert_eq!(ansi256(Rgb::new(0, 0, 255)), 21); // 16 + 5
        // Exact cube entry (95, 135, 175) = levels (1, 2, 3): 16 + 36 + 12 + 3.
        assert_eq!(ansi256(Rgb::new(95, 135, 175)), 67);
        // Mid grey 128: the cube's nearest is 135 on each channel (distance 3 * 49 = 147),
        // the ramp has 128 exactly = 8 + 10*12 -> 232 + 12.
        assert_eq!(ansi256(Rgb::new(128, 128, 128)), 244);
        // (200, 100, 30): cube levels 215 (4), 95 (1), 0 (0) -> 16 + 144 + 6 = 166,
        // distance 225 + 25 + 900 = 1150; grey mean 110 -> 108, far worse.
        assert_eq!(ansi256(Rgb::new(200, 100, 30)), 166);
    }

    #[test]
    fn palette_rgb_inverts_the_mapping_on_every_entry() {
        for index in 16..=255u8 {
            assert_eq!(ansi256(ansi256_rgb(index)), index, "entry {index}");
        }
        assert_eq!(ansi256_rgb(16 + 36 + 12 + 3), Rgb::new(95, 135, 175));
        assert_eq!(ansi256_rgb(244), Rgb::new(128, 128, 128));
    }

    #[test]
    fn stable_palette_holds_an_entry_within_the_slack_and_lets_go_beyond_it() {
        let grey = |v: u8| Rgb::new(v, v, v);
        let mut p = StablePalette::default();
        p.reset(2);
        // Grey ramp entries: 243 = 8 + 10 * 11 = 118, 244 = 128, 245 = 138.
        // First frame: the nearest.
        assert_eq!(p.index(0, grey(118), None), 243);
        // 128 is exactly entry 244, but 243 is 3 * 10^2 = 300 worse: within 1200, kept.
        assert_eq!(ansi256(grey(128)), 244);
        assert_eq!(p.index(0, grey(128), None), 243);
        // 138: 243 is 3 * 20^2 = 1200 worse than the exact 245, still within (<=).
        assert_eq!(p.index(0, grey(138), None), 243);
        // 139: 3 * 21^2 = 1323 against 3 for 245: beyond; switches to the nearest.
        assert_eq!(p.index(0, grey(139), None), 245);
        // ... and now holds 245: at 124 it is 3 * 14^2 = 588 worse than 244 (48), kept.
        assert_eq!(p.index(0, grey(124), None), 245);
    }

    #[test]
    fn stable_palette_takes_the_left_neighbours_entry_when_close_enough() {
        let grey = |v: u8| Rgb::new(v, v, v);
        let mut p = StablePalette::default();
        p.reset(3);
        // 130: nearest 244 (3 * 2^2 = 12); 243 (118) is 3 * 12^2 = 432: within, taken.
        assert_eq!(p.index(1, grey(130), Some(243)), 243);
        // Black (16) is far: the nearest wins.
        assert_eq!(p.index(2, grey(130), Some(16)), 244);
        // Last frame's entry comes before the neighbour's.
        assert_eq!(p.index(1, grey(130), Some(244)), 243);
        // A cell past the end just gets the nearest; a reset forgets the history.
        assert_eq!(p.index(9, grey(118), Some(245)), 243);
        p.reset(3);
        assert_eq!(p.index(1, grey(130), None), 244);
    }

    fn grid(cells: &[Cell], width: usize) -> Grid {
        Grid { width, height: cells.len() / width, cells: cells.to_vec() }
    }

    fn fg(ch: char, c: Rgb) -> Cell {
        Cell { ch, fg: Some(c), bg: None }
    }

    #[test]
    fn none_has_no_escapes() {
        let g = grid(&[fg('a', Rgb::RED), Cell::BLANK, fg('b', Rgb::BLUE), Cell::BLANK], 2);
        let s = to_ansi(&g, ColorDepth::None);
        assert!(!s.contains('\x1b'));
        assert_eq!(s, "a \nb \n");
    }

    #[test]
    fn escapes_only_on_change_and_reset_per_line() {
        let red = Rgb::RED;
        let g = grid(&[fg('a', red), fg('b', red), Cell::BLANK, fg('c', Rgb::GREEN)], 4);
        assert_eq!(to_ansi(&g, ColorDepth::TrueColor), "\x1b[38;2;255;0;0mab \x1b[38;2;0;255;0mc\x1b[0m\n");
        assert_eq!(to_ansi(&g, ColorDepth::Ansi256), "\x1b[38;5;196mab \x1b[38;5;46mc\x1b[0m\n");
    }

    #[test]
    fn background_and_default_switches() {
        let g = grid(
            &[
                Cell { ch: 'x', fg: Some(Rgb::RED), bg: Some(Rgb::BLUE) },
                Cell { ch: 'y', fg: Some(Rgb::RED), bg: None },
                Cell { ch: 'z', fg: None, bg: None },
            ],
            3,
        );
        assert_eq!(to_ansi(&g, ColorDepth::Ansi256), "\x1b[38;5;196;48;5;21mx\x1b[49my\x1b[39mz\n");
    }

    #[test]
    fn nearby_colours_in_one_palette_entry_emit_once() {
        // 250 and 255 both map to cube level 5.
        let g = grid(&[fg('a', Rgb::new(250, 0, 0)), fg('b', Rgb::new(255, 0, 0))], 2);
        assert_eq!(to_ansi(&g, ColorDepth::Ansi256), "\x1b[38;5;196mab\x1b[0m\n");
    }

    #[test]
    fn sixteen_colours_pick_the_nearest_xterm_default() {
        use super::{ColorDepth, ansi16};
        assert_eq!(ansi16(Rgb::new(0, 0, 0)), 0);
        assert_eq!(ansi16(Rgb::new(255, 10, 10)), 9);
        assert_eq!(ansi16(Rgb::new(190, 20, 0)), 1);
        assert_eq!(ansi16(Rgb::new(128, 128, 128)), 8);
        assert_eq!(ansi16(Rgb::new(240, 240, 240)), 7);
        assert_eq!(ansi16(Rgb::new(250, 250, 250)), 15);
        assert_eq!(ansi16(Rgb::new(80, 80, 250)), 12);
        // Each step of the viewer's key sends fewer escapes, and the cycle closes.
        let mut d = ColorDepth::TrueColor;
        let mut labels = Vec::new();
        for _ in 0..4 {
            labels.push(d.label());
            d = d.next();
        }
        assert_eq!(labels, ["24-bit", "256", "16", "none"]);
        assert_eq!(d, ColorDepth::TrueColor);
    }
}
