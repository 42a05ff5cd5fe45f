//! Which triangles of a triangle list may draw, found without walking each one through
//! the filler: most of a dense mesh's are smaller than a pixel and cover no pixel centre.
//! `for_each_candidate` runs two tests, eight triangles at a time against `crate::lanes`.
//! A leaf: it knows the projected vertices and the filler's integers, not its callers.
//!
//! `span_pass` is the first (does a triangle's pixel box hold a pixel centre?), read from
//! the vertices' centre spans as `fill::spans_hold_centre` decides it one at a time.
//!
//! `may_draw` is the second: a small triangle's edge functions are evaluated at every
//! centre of its box with no branch, and it is dropped when it covers none. Only
//! triangles the filler would draw nothing from are dropped: three vertices in range and
//! simple, less than `fill::SMALL_EXTENT` across both ways, a box of at most 32 pixel
//! centres in rows of 2, 4, 8 or 16 (see `Candidate`), and no area or no centre covered,
//! worked out with `fill::Triangle`'s integers (so exactly its verdicts). Such a "judged"
//! triangle that is kept leaves set up (`Candidate`): the centres it covers, its facing
//! and its planes, so that the filler only shades and writes its pixels
//! (`fill::SetUp::scan`). A larger one, up to `fill::MASK_EXTENT` across and
//! `fill::MASK_COLS` columns, is "masked": its covered centres are worked out row by row
//! (`fill::row_masks`, the filler's own masked scan), it is dropped when it covers none,
//! and it leaves set up with them (`fill::SetUp::scan_rows`).

use std::ops::Range;

use super::fill::{
    Basis, MASK_COLS, MASK_EXTENT, MASK_ROWS, SMALL_EXTENT, SPAN_ANY, SPAN_MAX_SIDE, SUB, SUB_BITS, SetUp,
    row_masks, spans_hold_centre,
};
use super::vertex::{NOT_SIMPLE, ProjVertex};
use crate::lanes::{self, F32x8, I16x16, I32x8, Indexed, Isa, Kernel, WIDTH};

/// Triangles that pass the span test wait in batches of this many for `may_draw`.
const BATCH: usize = 64;

/// A projected mesh, as the candidate filter reads it: the vertices, their centre spans
/// (with one `SPAN_ANY` past the last vertex, as `project_all` writes them) and the raster's size.
#[derive(Clone, Copy)]
pub(super) struct Projected<'a> {
    pub verts: &'a [ProjVertex],
    pub spans: &'a [[i16; 4]],
    pub width: usize,
    pub height: usize,
}

/// Call `keep`, in draw order, with each triangle at the positions `range` of the
/// triangle list `indices` (`None`: the vertices in order, whose count must fit `u32`)
/// that may draw into the raster of `mesh`. A triangle with a vertex out of range or not
/// simple is passed on, so that the caller's full checks see it. Triangles that pass the
/// span test wait in batches for `may_draw`, whose coverage comes with each (see
/// `Candidate`); the row masks of those kept as such are appended to `masks`, which
/// `keep` is handed with each.
#[inline(always)]
pub(super) fn for_each_candidate(
    indices: Option<&[u32]>,
    range: Range<usize>,
    mesh: Projected,
    masks: &mut Vec<u32>,
    keep: impl FnMut(Candidate, &[u32]),
) {
    let (mut keep, mut known) = (keep, [Known::default(); BATCH]);
    filter(indices, range, mesh, &mut |tris: &[Tri]| keep_covering(mesh, tris, &mut known, masks, &mut keep));
}

/// The span test over `range`, its passes handed to `sink` in batches, in draw order.
#[inline(always)]
fn filter(indices: Option<&[u32]>, range: Range<usize>, mesh: Projected, sink: &mut impl FnMut(&[Tri])) {
    // `spans` ends with `SPAN_ANY`, which an index out of range reads instead: no bounds
    // check, nor branch, per vertex.
    let spans = if mesh.spans.is_empty() { &[SPAN_ANY][..] } else { mesh.spans };
    let (mut batch, mut n) = ([[0; 3]; BATCH], 0);
    let tri = |k: usize| match indices {
        Some(ix) => ix.get(3 * k..3 * k + 3).map_or([u32::MAX; 3], |t| [t[0], t[1], t[2]]),
        None => [3 * k as u32, 3 * k as u32 + 1, 3 * k as u32 + 2],
    };
    let mut start = range.start;
    let mut pass = [0u64; SPAN_PASS_MAX / 64];
    loop {
        let done = span_pass(indices, start..range.end, spans, &mut pass);
        if done == 0 {
            break;
        }
        for (w, &bits) in pass.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                // Up to the batch's end in a loop of its own, the count in a register.
                while bits != 0 && n < BATCH {
                    batch[n] = tri(start + 64 * w + bits.trailing_zeros() as usize);
                    bits &= bits - 1;
                    n += 1;
                }
                if n == BATCH {
                    sink(&batch);
                    n = 0;
                }
            }
        }
        start += done;
    }
    // The rest (fewer than eight) one at a time.
    let last = spans.len() - 1;
    let span = |i: u32| spans[(i as usize).min(last)];
    let mut one = |t: Tri| {
        if spans_hold_centre(span(t[0]), span(t[1]), span(t[2])) {
            batch[n] = t;
            n += 1;
            if n == BATCH {
                sink(&batch);
                n = 0;
            }
        }
    };
    (start..range.end).for_each(|k| one(tri(k)));
    sink(&batch[..n]);
}

/// Call `keep` with those of `tris` (at most `BATCH`) that may cover a pixel centre,
/// `known` the space `may_draw` writes their set-ups to (whatever it held before).
#[inline(always)]
fn keep_covering(
    mesh: Projected,
    tris: &[Tri],
    known: &mut [Known; BATCH],
    masks: &mut Vec<u32>,
    keep: &mut impl FnMut(Candidate, &[u32]),
) {
    let (mut bits, set) = may_draw(tris, mesh.verts, mesh.width, mesh.height, known, masks);
    while bits != 0 {
        let k = bits.trailing_zeros() as usize;
        let Known { covered, set_up, light } = if set >> k & 1 == 1 { known[k] } else { Known::default() };
        keep(Candidate { tri: tris[k], covered, set_up, light }, masks);
        bits &= bits - 1;
    }
}

/// What the filter worked out for a triangle it judged (see `Candidate`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Known {
    pub covered: u32,
    pub set_up: SetUp,
    pub light: [f32; 3],
}

/// A triangle's three vertex indices.
pub(super) type Tri = [u32; 3];

/// A triangle that may draw, and when the filter judged it, which pixel centres of its
/// box it covers: bit `r << set_up.row_bits | q` for the centre `q` columns right of and
/// `r` rows below the first centre of its box (`fill::Triangle`'s `px0`, `py0`), over
/// the whole raster, a row taking the fewest bits of 2, 4, 8 or 16 that hold the box's
/// columns; with the rest of its set-up (`fill::SetUp::scan` draws it) and its vertices'
/// `ProjVertex::light` in its order, read with them here so that the filler need not
/// fetch them again. A larger one (see `Lanes::masked`) keeps its covered centres as
/// `set_up.rows` row masks from `covered` on in the masks the filter wrote
/// (`fill::SetUp::scan_rows`). Neither (`judged` false), the rest holds nothing of use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Candidate {
    pub tri: Tri,
    pub covered: u32,
    pub set_up: SetUp,
    pub light: [f32; 3],
}

impl Candidate {
    /// Whether the filter set it up (a triangle it kept covers at least one centre).
    #[inline(always)]
    pub(super) fn judged(&self) -> bool {
        self.covered != 0 || self.set_up.rows != 0
    }

    /// A masked triangle's row masks, read from `masks` (none for any other).
    #[inline(always)]
    pub(super) fn kept_rows<'m>(&self, masks: &'m [u32]) -> &'m [u32] {
        let at = self.covered as usize;
        masks.get(at..at + usize::from(self.set_up.rows)).unwrap_or(&[])
    }

    /// For a judged triangle: the first and last raster rows it covers a centre of, and
    /// how many centres it covers, its row masks read from `masks`.
    #[inline(always)]
    pub(super) fn extent(&self, masks: &[u32]) -> (usize, usize, u32) {
        let py0 = usize::from(self.set_up.py0);
        if self.set_up.rows != 0 {
            let first = py0 + usize::from(self.set_up.skip);
            let covered = self.kept_rows(masks).iter().map(|m| m.count_ones()).sum();
            return (first, first + usize::from(self.set_up.rows) - 1, covered);
        }
        let row_bits = u32::from(self.set_up.row_bits);
        let first = py0 + (self.covered.trailing_zeros() >> row_bits) as usize;
        let last = py0 + ((31 - self.covered.leading_zeros()) >> row_bits) as usize;
        (first, last, self.covered.count_ones())
    }
}

/// How far ahead of the span test its indices are fetched, in indices (2 KB).
const INDEX_PREFETCH: usize = 512;

/// Triangles `span_pass` takes per call: one `u64` of pass bits per 64.
const SPAN_PASS_MAX: usize = 512;

/// The span test of the triangles at the positions `range` of the list `indices` (`None`:
/// the vertices in order), as many whole blocks of eight as fit in `SPAN_PASS_MAX`: bit
/// `i % 64` of `pass[i / 64]` is set when the triangle at `range.start + i` passes (see
/// `fill::spans_hold_centre`; an index out of range reads the `SPAN_ANY` that ends `spans`,
/// and passes). Returns how many triangles were tested: none when the indices cannot be
/// read as whole blocks.
fn span_pass(
    indices: Option<&[u32]>,
    range: Range<usize>,
    spans: &[[i16; 4]],
    pass: &mut [u64; SPAN_PASS_MAX / 64],
) -> usize {
    let count = range.len().min(SPAN_PASS_MAX) / 8 * 8;
    let end = range.start + count;
    let corners = match indices {
        Some(ix) => match ix.get(3 * range.start..3 * end) {
            Some(corners) => Some(corners),
            None => return 0,
        },
        None => None,
    };
    if count == 0 || spans.is_empty() {
        return 0;
    }
    *pass = [0; SPAN_PASS_MAX / 64];
    lanes::run(SpanBlocks { corners, first: range.start, count, spans, pass });
    count
}

/// The bits of `span_pass` for `count` triangles from position `first`, their corners
/// `corners` when listed, or-ed into `pass`.
struct SpanBlocks<'a> {
    corners: Option<&'a [u32]>,
    first: usize,
    count: usize,
    spans: &'a [[i16; 4]],
    pass: &'a mut [u64; SPAN_PASS_MAX / 64],
}

impl Kernel for SpanBlocks<'_> {
    type Output = ();
    #[inline(always)]
    fn run<S: Isa>(self) {
        let blocks = self.count / WIDTH;
        let word = |s: [i16; 4]| s.iter().rev().fold(0, |q, &w| q << 16 | u64::from(w as u16));
        let mut pass = |block: usize, bits: u32| self.pass[block / 8] |= u64::from(bits) << (8 * (block % 8));
        // Nearly always every corner is checked in range once, here, and the blocks read
        // their spans unchecked, a loop of their own; those left (an index out of range
        // somewhere) clamp each read to the last span, `SPAN_ANY`.
        let mut done = 0;
        match self.corners {
            Some(ix) => {
                if let Some(corners) = Indexed::<_, { 3 * WIDTH }>::new(self.spans, ix) {
                    done = blocks.min(corners.len());
                    for block in 0..done {
                        // The indices are the one long stream the raster reads, and the
                        // first load of each block waited on it: two lines ahead per block
                        // of 96 bytes (past the end too: a prefetch does not fault).
                        let ahead = ix.as_ptr().wrapping_add(3 * WIDTH * block + INDEX_PREFETCH);
                        lanes::prefetch(ahead);
                        lanes::prefetch(ahead.wrapping_add(16));
                        if let Some(spans) = corners.get(block) {
                            pass(block, span_test8::<S>(|j| word(spans[j])));
                        }
                    }
                }
            }
            None => {
                // Vertices in order: a block's corners are consecutive.
                let ours = self.spans.get(3 * self.first..).unwrap_or(&[]);
                let (runs, _) = ours.as_chunks::<{ 3 * WIDTH }>();
                done = blocks.min(runs.len());
                for (block, spans) in runs[..done].iter().enumerate() {
                    pass(block, span_test8::<S>(|j| word(spans[j])));
                }
            }
        }
        let last = self.spans.len() - 1;
        for block in done..blocks {
            let at = 3 * WIDTH * block;
            let bits = match self.corners {
                Some(ix) => span_test8::<S>(|j| word(self.spans[(ix[at + j] as usize).min(last)])),
                None => span_test8::<S>(|j| word(self.spans[(3 * self.first + at + j).min(last)])),
            };
            pass(block, bits);
        }
    }
}

/// The span test of eight triangles, corner `k` of triangle `t` having the span word
/// `span(3 t + k)` (its four `i16`s, low word first): bit `t` set when triangle `t` passes.
#[inline(always)]
fn span_test8<S: Isa>(span: impl Fn(usize) -> u64) -> u32 {
    // Triangles 0..4, then 4..8: four spans of 4 x i16 to a vector. Loops rather than
    // closures, which the compiler may leave out of line, compiled for the baseline only
    // (see `crate::lanes`).
    let mut positive = 0;
    for half in 0..2 {
        let mut q = [[0u64; 4]; 3];
        for (k, q) in q.iter_mut().enumerate() {
            for (t, q) in q.iter_mut().enumerate() {
                *q = span(3 * (4 * half + t) + k);
            }
        }
        let [a, b, c] = [I16x16::<S>::from_quads(q[0]), I16x16::from_quads(q[1]), I16x16::from_quads(q[2])];
        // The box: the element-wise minimum of [first col, -last col, first row, -last row];
        // then first + -last per axis, in i32, positive when the axis has no centre.
        let sums = a.min(b).min(c).pair_sums();
        positive |= sums.gt(I32x8::ZERO).bitmask() << (8 * half);
    }
    // Bits 2t and 2t + 1 are triangle t's axes: folded into bit t, it fails.
    let mut fails = (positive | positive >> 1) & 0x5555;
    fails = (fails | fails >> 1) & 0x3333;
    fails = (fails | fails >> 2) & 0x0f0f;
    fails = (fails | fails >> 4) & 0x00ff;
    !fails & 0xff
}

/// Bit `i` set unless `tris[i]` (at most 64 of them) is sure to draw nothing on the
/// `width` x `height` raster (see the module comment): all set when the raster or the
/// vertices are too big for the lanes. Then bit `i` set where `known[i]` was written
/// with what was worked out for a kept triangle (see `Candidate`; the others are left as
/// they were, not cleared: 4 KB a batch), row masks appended to `masks`.
fn may_draw(
    tris: &[Tri],
    verts: &[ProjVertex],
    width: usize,
    height: usize,
    known: &mut [Known; 64],
    masks: &mut Vec<u32>,
) -> (u64, u64) {
    let all = if tris.len() >= 64 { u64::MAX } else { (1u64 << tris.len()) - 1 };
    let Some(screen) = Screen::new(verts, width, height) else {
        return (all, 0);
    };
    if tris.len() > 64 {
        return (all, 0);
    }
    // Lanes past the end were padding.
    let (bits, set) = lanes::run(MayDraw { screen, tris, known, masks });
    (bits & all, set & all)
}

/// `may_draw`'s bits and masks for `tris` (at most 64), block by block; lanes past the
/// end hold padding.
struct MayDraw<'a> {
    screen: Screen<'a>,
    tris: &'a [Tri],
    known: &'a mut [Known; 64],
    masks: &'a mut Vec<u32>,
}

impl Kernel for MayDraw<'_> {
    type Output = (u64, u64);
    #[inline(always)]
    fn run<S: Isa>(self) -> (u64, u64) {
        let (mut bits, mut set, mut pad) = (0u64, 0u64, [[0u32; 3]; WIDTH]);
        for (k, block) in self.tris.chunks(WIDTH).enumerate() {
            let l = Lanes::<S>::new(&self.screen, padded(block, &mut pad));
            let covered = l.covered();
            let mut m = !l.dropped(covered).bitmask() & 0xff;
            // The kept judged and masked triangles' set-ups, worked out eight at a time,
            // written one by one; a masked one that covers no centre is dropped.
            let (judged, masked) = (l.judged.bitmask() & m, l.masked.bitmask() & m);
            if judged | masked != 0 {
                let set_up = l.set_up();
                let light = |t: usize| [set_up.light[0][t], set_up.light[1][t], set_up.light[2][t]];
                let covered = covered.to_array();
                for t in Bits(judged) {
                    if let Some(out) = self.known.get_mut(WIDTH * k + t) {
                        *out = Known { covered: covered[t] as u32, set_up: set_up.lane(t), light: light(t) };
                        set |= 1 << (WIDTH * k + t);
                    }
                }
                if masked != 0 {
                    let edges = l.edges();
                    for t in Bits(masked) {
                        let at = self.masks.len() as u32;
                        match edges.row_masks::<S>(t, self.masks) {
                            Some((skip, rows)) => {
                                if let Some(out) = self.known.get_mut(WIDTH * k + t) {
                                    let set_up = SetUp { skip, rows, ..set_up.lane(t) };
                                    *out = Known { covered: at, set_up, light: light(t) };
                                    set |= 1 << (WIDTH * k + t);
                                }
                            }
                            None => m &= !(1 << t),
                        }
                    }
                }
            }
            bits |= u64::from(m) << (8 * k);
        }
        (bits, set)
    }
}

/// The positions of the set bits of a lane mask, lowest first.
struct Bits(u32);

impl Iterator for Bits {
    type Item = usize;
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        let t = self.0.trailing_zeros() as usize;
        self.0 &= self.0.wrapping_sub(1);
        (t < 32).then_some(t)
    }
}

/// A block's edge functions and boxes lane by lane, for `row_masks`.
struct EdgeLanes {
    a: [[i32; WIDTH]; 3],
    b: [[i32; WIDTH]; 3],
    c: [[i32; WIDTH]; 3],
    cols: [i32; WIDTH],
    rows: [i32; WIDTH],
}

impl EdgeLanes {
    /// The covered centres of lane `t`'s box (a masked triangle's), row by row
    /// (`fill::row_masks`): the masks from its first row with a covered centre to its
    /// last appended to `out`, with that first row's place in the box and their count;
    /// `None` (nothing appended) when it covers none.
    #[inline(always)]
    fn row_masks<S: Isa>(&self, t: usize, out: &mut Vec<u32>) -> Option<(u8, u8)> {
        let edge = |v: &[[i32; WIDTH]; 3]| [v[0][t], v[1][t], v[2][t]];
        let (cols, rows) = (self.cols[t].max(0) as usize, self.rows[t].max(0) as usize);
        let mut masks = [0; MASK_ROWS];
        let covered = row_masks::<S>((edge(&self.a), edge(&self.b), edge(&self.c)), cols, rows, &mut masks);
        if covered == 0 {
            return None;
        }
        let (first, end) = (covered.trailing_zeros() as usize, 64 - covered.leading_zeros() as usize);
        out.extend_from_slice(&masks[first..end]);
        Some((first as u8, (end - first) as u8))
    }
}

/// `block` (at most `N` triangles) as `N`: itself when whole, else copied into `pad`
/// after its triangles.
#[inline(always)]
fn padded<'a, const N: usize>(block: &'a [Tri], pad: &'a mut [Tri; N]) -> &'a [Tri; N] {
    match block.try_into() {
        Ok(whole) => whole,
        Err(_) => {
            let n = block.len().min(N);
            pad[..n].copy_from_slice(&block[..n]);
            pad
        }
    }
}

/// The projected vertices, and the raster's last column and row.
#[derive(Clone, Copy)]
struct Screen<'a> {
    verts: &'a [ProjVertex],
    max_col: i32,
    max_row: i32,
}

impl Screen<'_> {
    /// `None` when there are no vertices, or the vertex indices or the raster are too big
    /// for the lanes.
    fn new(verts: &[ProjVertex], width: usize, height: usize) -> Option<Screen<'_>> {
        let n = verts.len();
        let fits = n > 0 && n <= i32::MAX as usize && width.max(height) <= SPAN_MAX_SIDE;
        fits.then_some(Screen { verts, max_col: width as i32 - 1, max_row: height as i32 - 1 })
    }
}

/// Eight triangles set up as `fill::Triangle` sets one up (a front face's edges negated
/// rather than two vertices swapped: the same verdicts), a triangle per lane. Lanes that
/// are not `ok`, or not small, hold values of no use.
struct Lanes<S> {
    /// Set where `small` and the box's centres fit 32 bits in rows of `1 << row_bits`.
    judged: I32x8<S>,
    /// Set where not judged but of simple vertices, less than `fill::MASK_EXTENT` across
    /// both ways, with area and a box of 1 to `fill::MASK_COLS` columns and a row or
    /// more: its covered centres are worked out row by row (`EdgeLanes::row_masks`).
    masked: I32x8<S>,
    /// The bits each judged box needs (rows times a row's bits); 0 where not judged.
    bits: I32x8<S>,
    /// A row's bits, log 2: 1 to 4 (rows of 2, 4, 8 or 16 bits); from 5 on, not judged.
    row_bits: I32x8<S>,
    px0: I32x8<S>,
    px1: I32x8<S>,
    py0: I32x8<S>,
    py1: I32x8<S>,
    /// Set where the area is zero.
    flat: I32x8<S>,
    /// All ones where the area is negative: a front face.
    front: I32x8<S>,
    x: [I32x8<S>; 3],
    y: [I32x8<S>; 3],
    z: [F32x8<S>; 3],
    a: [I32x8<S>; 3],
    b: [I32x8<S>; 3],
    c: [I32x8<S>; 3],
    /// Each corner's `ProjVertex::light`.
    light: [F32x8<S>; 3],
}

/// `Lanes::set_up`'s results, lane by lane.
struct SetUpLanes {
    px0: [i32; WIDTH],
    py0: [i32; WIDTH],
    row_bits: [i32; WIDTH],
    front: [i32; WIDTH],
    /// `Basis` by field, in its order.
    basis: [[f32; WIDTH]; 7],
    z: [[f32; WIDTH]; 3],
    /// Each corner's `ProjVertex::light`, in the triangle's order.
    light: [[f32; WIDTH]; 3],
}

impl SetUpLanes {
    #[inline(always)]
    fn lane(&self, t: usize) -> SetUp {
        let b = |k: usize| self.basis[k][t];
        SetUp {
            px0: self.px0[t] as u16,
            py0: self.py0[t] as u16,
            row_bits: self.row_bits[t] as u8,
            skip: 0,
            rows: 0,
            front: self.front[t] != 0,
            basis: Basis { x1: b(0), y1: b(1), x2: b(2), y2: b(3), inv_area: b(4), ox: b(5), oy: b(6) },
            z: (self.z[0][t], self.z[1][t], self.z[2][t]),
        }
    }
}

impl<S: Isa> Lanes<S> {
    #[inline(always)]
    fn new(screen: &Screen, tris: &[Tri; WIDTH]) -> Self {
        let splat = I32x8::splat;
        // Each vertex whole, as it lies in memory (one load), corner by corner. The
        // indices are checked in range at once (as in nearly every file); else each read
        // is clamped to the last vertex and the lanes out of range are marked.
        let record = |v: ProjVertex| [v.x, v.y, v.z.to_bits() as i32, v.light.to_bits() as i32];
        let mut rows = [[[0; 4]; WIDTH]; 3];
        let mut ok = splat(-1);
        match Indexed::<_, 3>::new(screen.verts, tris.as_flattened()) {
            Some(corners) => {
                let mut fetched = [[ProjVertex::default(); 3]; WIDTH];
                for (t, fetched) in fetched.iter_mut().enumerate() {
                    *fetched = corners.get(t).unwrap_or_default();
                }
                for (k, rows) in rows.iter_mut().enumerate() {
                    for (row, v) in rows.iter_mut().zip(&fetched) {
                        *row = record(v[k]);
                    }
                }
            }
            None => {
                let last = screen.verts.len() - 1;
                for (k, rows) in rows.iter_mut().enumerate() {
                    let mut index = [0; WIDTH];
                    for t in 0..WIDTH {
                        index[t] = tris[t][k] as i32;
                        rows[t] = record(screen.verts[(tris[t][k] as usize).min(last)]);
                    }
                    // In range: the unsigned minimum with the last index is the index itself.
                    let index = I32x8::new(index);
                    ok = ok & index.min_u32(splat(last as i32)).eq(index);
                }
            }
        }
        let (mut x, mut y, mut z) = ([I32x8::ZERO; 3], [I32x8::ZERO; 3], [F32x8::ZERO; 3]);
        let mut light = [F32x8::ZERO; 3];
        for k in 0..3 {
            let (depth, lit);
            [x[k], y[k], depth, lit] = I32x8::transpose(&rows[k]);
            z[k] = F32x8::from_bits(depth);
            light[k] = F32x8::from_bits(lit);
            // Simple: `y` is not `NOT_SIMPLE`.
            ok = y[k].eq(splat(NOT_SIMPLE)).and_not(ok);
        }
        let (x_min, x_max) = (x[0].min(x[1]).min(x[2]), x[0].max(x[1]).max(x[2]));
        let (y_min, y_max) = (y[0].min(y[1]).min(y[2]), y[0].max(y[1]).max(y[2]));
        let small =
            ok & within(SMALL_EXTENT as i32, x_min, x_max) & within(SMALL_EXTENT as i32, y_min, y_max);
        // `fill::pixel_box`: first and last centres, clamped to the raster.
        const HALF: i32 = (SUB / 2) as i32;
        let px0 = (x_min + splat(SUB as i32 - 1 - HALF)).shr::<SUB_BITS>().max(I32x8::ZERO);
        let px1 = (x_max - splat(HALF)).shr::<SUB_BITS>().min(splat(screen.max_col));
        let py0 = (y_min + splat(SUB as i32 - 1 - HALF)).shr::<SUB_BITS>().max(I32x8::ZERO);
        let py1 = (y_max - splat(HALF)).shr::<SUB_BITS>().min(splat(screen.max_row));
        // Rows of 2, 4, 8 or 16 bits, the fewest that hold the box's columns; a box whose
        // rows then fit 32 bits is judged (one with no centre too: a first past its last).
        let (cols, rows) = (px1 - px0 + splat(1), (py1 - py0 + splat(1)).max(I32x8::ZERO));
        let row_bits = [2, 4, 8, 16].iter().fold(splat(1), |bits, &n| bits - cols.gt(splat(n)));
        let bits = rows.shl_by(row_bits);
        let judged = small & row_bits.gt(splat(4)).and_not(splat(33).gt(bits));
        let bits = bits & judged;
        let masked = ok
            & within(MASK_EXTENT as i32, x_min, x_max)
            & within(MASK_EXTENT as i32, y_min, y_max)
            & cols.gt(I32x8::ZERO)
            & splat(MASK_COLS as i32 + 1).gt(cols)
            & rows.gt(I32x8::ZERO);
        // Masked sides are below 2^14: products below 2^28, edge values below 2^30 (other
        // lanes may wrap; unused).
        let area = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
        let flat = area.eq(I32x8::ZERO);
        let masked = (judged | flat).and_not(masked);
        let front = area.shr::<31>();
        let cx = px0.shl::<SUB_BITS>() + splat(HALF);
        let cy = py0.shl::<SUB_BITS>() + splat(HALF);
        // Per edge: the step per column (a), per row (b) and the value at (cx, cy) (c), as
        // `fill::Triangle::edges` makes them.
        let (mut a, mut b, mut c) = ([I32x8::ZERO; 3], [I32x8::ZERO; 3], [I32x8::ZERO; 3]);
        for k in 0..3 {
            let (i, j) = ((k + 1) % 3, (k + 2) % 3);
            let (dx, dy) = (x[j] - x[i], y[j] - y[i]);
            let value = ((dx * (cy - y[i]) - dy * (cx - x[i])) ^ front) - front;
            let (dx, dy) = ((dx ^ front) - front, (dy ^ front) - front);
            let top_left = I32x8::ZERO.gt(dy) | (dy.eq(I32x8::ZERO) & dx.gt(I32x8::ZERO));
            // The bias is 0 on a top or left edge (top_left all ones), else 1.
            c[k] = value - splat(1) - top_left;
            a[k] = (-dy).shl::<SUB_BITS>();
            b[k] = dx.shl::<SUB_BITS>();
        }
        Lanes { judged, masked, bits, row_bits, px0, px1, py0, py1, flat, front, x, y, z, light, a, b, c }
    }

    /// The edge functions and boxes, lane by lane (for masked lanes).
    #[inline(always)]
    fn edges(&self) -> EdgeLanes {
        let array = |v: [I32x8<S>; 3]| [v[0].to_array(), v[1].to_array(), v[2].to_array()];
        let one = I32x8::splat(1);
        EdgeLanes {
            a: array(self.a),
            b: array(self.b),
            c: array(self.c),
            cols: (self.px1 - self.px0 + one).to_array(),
            rows: (self.py1 - self.py0 + one).to_array(),
        }
    }

    /// Per lane, what `fill::Triangle::planes` works out, with the same operations in the
    /// same order (`fill::Basis`): corners 1 and 2 swapped on a front face, differences
    /// in snapped units (exact in `i32` and `f32` for a small triangle) scaled to pixels,
    /// and the depth plane. Lanes that are not judged hold values of no use.
    #[inline(always)]
    fn set_up(&self) -> SetUpLanes {
        let Lanes { x, y, z, front, px0, py0, .. } = *self;
        let swap = |v: [I32x8<S>; 3]| [v[0], front.select(v[2], v[1]), front.select(v[1], v[2])];
        let (x, y) = (swap(x), swap(y));
        let z = [z[0], front.select_f32(z[2], z[1]), front.select_f32(z[1], z[2])];
        let to_px = |v: I32x8<S>| v.to_f32() * F32x8::splat(1.0 / SUB as f32);
        let (x1, y1, x2, y2) =
            (to_px(x[1] - x[0]), to_px(y[1] - y[0]), to_px(x[2] - x[0]), to_px(y[2] - y[0]));
        let inv_area = F32x8::splat(1.0) / (x1 * y2 - y1 * x2);
        const HALF: i32 = (SUB / 2) as i32;
        let ox = to_px(px0.shl::<SUB_BITS>() + I32x8::splat(HALF) - x[0]);
        let oy = to_px(py0.shl::<SUB_BITS>() + I32x8::splat(HALF) - y[0]);
        let (d1, d2) = (z[1] - z[0], z[2] - z[0]);
        let ddx = (d1 * y2 - d2 * y1) * inv_area;
        let ddy = (d2 * x1 - d1 * x2) * inv_area;
        let start = z[0] + ddx * ox + ddy * oy;
        let f = |v: F32x8<S>| v.0;
        SetUpLanes {
            px0: px0.to_array(),
            py0: py0.to_array(),
            row_bits: self.row_bits.to_array(),
            front: front.to_array(),
            basis: [f(x1), f(y1), f(x2), f(y2), f(inv_area), f(ox), f(oy)],
            z: [f(start), f(ddx), f(ddy)],
            light: [f(self.light[0]), f(self.light[1]), f(self.light[2])],
        }
    }

    /// Per lane, the centres of the box (at most 32 for a judged triangle) that the
    /// triangle covers: bit `r << row_bits | q` for the centre `q` columns right of and
    /// `r` rows below the first, from the edge functions there, as the filler evaluates
    /// them. Only as many bits as the block's widest judged box needs are worked out (4,
    /// 8, 16 or 32): the rest are outside every judged box, where `centres` clears them.
    /// Most of a dense mesh's boxes hold one or two centres.
    #[inline(always)]
    fn covered(&self) -> I32x8<S> {
        let Lanes { a, b, c, row_bits, .. } = *self;
        let splat = I32x8::splat;
        // From bit `p - 1` to bit `p`: a column's step, or where the lane's row starts,
        // the step to the next row's first column (a row's step less the columns crossed).
        // Loops, not `array::from_fn`, which the compiler may leave out of line, compiled
        // for the baseline only (see `crate::lanes`).
        let mut wrap = [I32x8::ZERO; 3];
        for k in 0..3 {
            wrap[k] = b[k] - a[k].shl_by(row_bits) + a[k];
        }
        // Where `p` starts a row of 2 bits but not of 4, then of 4 but not 8, of 8 but not 16.
        let mut at = [[I32x8::ZERO; 3]; 3];
        for (most, at) in at.iter_mut().enumerate() {
            let wraps = splat(most as i32 + 2).gt(row_bits);
            for k in 0..3 {
                at[k] = wraps.select(wrap[k], a[k]);
            }
        }
        let [at2, at4, at8] = at;
        let steps = [a, at2, at4, at8];
        let mut e = c;
        let most = |n: i32| !self.bits.gt(splat(n)).any();
        let out = if most(4) {
            first_bits::<S, 4>(&mut e, 0, &steps, I32x8::ZERO)
        } else if most(8) {
            first_bits::<S, 8>(&mut e, 0, &steps, I32x8::ZERO)
        } else {
            let mut out = first_bits::<S, 16>(&mut e, 0, &steps, I32x8::ZERO);
            if !most(16) {
                // Bit 16 starts a row of every width.
                e = step(e, wrap);
                out = first_bits::<S, 16>(&mut e, 16, &steps, out);
            }
            out
        };
        out.and_not(self.centres())
    }

    /// Per lane, the centres of its box: bit `r << row_bits | q` for each
    /// `r <= py1 - py0` and `q <= px1 - px0` (within 32 bits for a judged triangle); none
    /// for a box without a centre.
    #[inline(always)]
    fn centres(&self) -> I32x8<S> {
        let splat = I32x8::splat;
        let cols = self.px1 - self.px0 + splat(1);
        // A one at the start of every row: every 16 bits, then every 8 for rows of 8 bits
        // or fewer, 4, 2; times a row's columns, which fit the row.
        let mut firsts = splat(0x0001_0001);
        for (shift, most) in [(8, 3), (4, 2), (2, 1)] {
            let repeat = splat(most + 1).gt(self.row_bits);
            firsts = firsts | (firsts.shl_by(splat(shift)) & repeat);
        }
        let each_row = below(cols) * firsts;
        let rows = self.py1 - self.py0 + splat(1);
        each_row & below(rows.max(I32x8::ZERO).shl_by(self.row_bits))
    }

    /// Set where a judged triangle surely draws nothing: no area, or none of the at most
    /// 32 centres of its box covered (`covered`, given).
    #[inline(always)]
    fn dropped(&self, covered: I32x8<S>) -> I32x8<S> {
        self.judged & (self.flat | covered.eq(I32x8::ZERO))
    }
}

/// Set where `hi - lo` is below `n`.
#[inline(always)]
fn within<S: Isa>(n: i32, lo: I32x8<S>, hi: I32x8<S>) -> I32x8<S> {
    I32x8::splat(n).gt(hi - lo)
}

/// `out` with bits `first..first + N` of `Lanes::covered` set where a centre is not
/// covered, `e` holding the edge values at bit `first` (and left at the last bit's).
/// `steps` lead to a bit that starts no row, a row of 2 bits (not 4), of 4 (not 8) and of
/// 8 (not 16). A loop of constant length, which the compiler unrolls.
#[inline(always)]
fn first_bits<S: Isa, const N: i32>(
    e: &mut [I32x8<S>; 3],
    first: i32,
    steps: &[[I32x8<S>; 3]; 4],
    out: I32x8<S>,
) -> I32x8<S> {
    let mut out = outside(e, first, out);
    for p in 1..N {
        let starts = if p % 8 == 0 {
            3
        } else if p % 4 == 0 {
            2
        } else {
            usize::from(p % 2 == 0)
        };
        *e = step(*e, steps[starts]);
        out = outside(e, first + p, out);
    }
    out
}

/// `e + d`, edge by edge.
#[inline(always)]
fn step<S: Isa>(e: [I32x8<S>; 3], d: [I32x8<S>; 3]) -> [I32x8<S>; 3] {
    [e[0] + d[0], e[1] + d[1], e[2] + d[2]]
}

/// `out` with bit `p` set where a centre's edge values `e` are not all at least zero (the
/// sign bit of their or, moved to bit `p`).
#[inline(always)]
fn outside<S: Isa>(e: &[I32x8<S>; 3], p: i32, out: I32x8<S>) -> I32x8<S> {
    let or = e[0] | e[1] | e[2];
    out | or.shr_logical_by(I32x8::splat(31 - p)) & I32x8::splat(1 << p)
}

/// The bits below `n` (none for `n <= 0`, all from 32 on).
#[inline(always)]
fn below<S: Isa>(n: I32x8<S>) -> I32x8<S> {
    !I32x8::splat(-1).shl_by(n.max(I32x8::ZERO))
}

/// The parts a split fill's triangle list is filtered in: the pool's threads take them as
/// they free up, since a part costs what its triangles cover on screen, which differs
/// widely between halves of a character's list.
pub(super) const BIN_PARTS: usize = 8;

/// One part of a split fill's triangle list, filtered (see `mesh::bin_parts`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Bin {
    /// Per band, in draw order, the candidates that may draw into its rows.
    pub lists: [Vec<Candidate>; 2],
    /// Per band, the work they make (see `CANDIDATE_COST`).
    pub work: [u64; 2],
    /// The row masks of the candidates kept as such (see `Candidate`).
    pub masks: Vec<u32>,
}

#[cfg(test)]
#[path = "filter_tests.rs"]
mod tests;
