//! Which triangles of a triangle list may draw, found without walking each one through
//! the filler: most of a dense mesh's are smaller than a pixel and cover no pixel centre.
//! `for_each_candidate` filters the list in draw order (a span test on every triangle,
//! then a coverage test on those that pass, both in `filter`, eight triangles at a
//! time). One thread fills what `for_each_set_up` passes on directly, small triangles
//! already set up sixteen at a time.
//!
//! For two threads the filtered list is binned once for the row bands the mesh drawer
//! fills in parallel: it is cut into chunks binned in parallel, each keeping, per band and
//! in draw order, the triangles that may draw into that band. A band then walks its lists
//! chunk after chunk, which is the draw order again, setting small triangles up sixteen at
//! a time as one thread does (`set_up_each`), and draws exactly what the unfiltered walk
//! would have drawn (see `fill_band` in `mesh`).
//!
//! What a band keeps: a triangle of simple vertices whose pixel box holds a pixel centre of
//! the band's rows (decided for every band at once by `fill::centre_rows`), unless its box
//! holds a single centre that it misses (it draws nothing anywhere); and every triangle
//! that needs clipping (rare; its extent is only known after clipping). Triangles with an
//! out-of-range index or an invalid vertex are counted as skipped and kept nowhere.

use std::ops::Range;

use super::fill::{SPAN_ANY, centre_rows, spans_hold_centre};
pub(super) use super::filter::Tri;
use super::filter::{SPAN_PASS_MAX, may_draw, span_pass};
use super::small::small_misses_its_only_centre;
use super::vertex::{ProjVertex, State};

/// Number of row bands: the machine this is tuned for has two cores, and more bands would
/// repeat the clipped triangles and the set-up of triangles that straddle band edges.
pub(super) const BANDS: usize = 2;

/// Triangles per binning chunk: enough to amortise a task hand-off, few enough that
/// rayon can balance the chunks between threads.
const CHUNK_TRIANGLES: usize = 8192;

/// A triangle list as the filter reads it: its indices (`None`: the vertices in order).
#[derive(Clone, Copy)]
pub(super) struct TriangleList<'a> {
    pub indices: Option<&'a [u32]>,
}

/// Per chunk and band, the triangles to fill, and where the bands meet; buffers are reused
/// frame to frame.
#[derive(Debug, Clone, Default)]
pub(crate) struct Bins {
    chunks: Vec<Chunk>,
    used: usize,
    /// The bands of the last binning.
    bands: [Range<usize>; BANDS],
    /// (raster height, row) where the next frame's second band starts: the row that splits
    /// this frame's estimated fill work in two equal halves. A character's upper half
    /// (head, hands, torso) holds far more triangles than its legs: even halves of the
    /// rows left one thread filling 2.5 times as long as the other.
    next_cut: (usize, usize),
    /// The estimated fill work on each raster row, summed over the chunks.
    row_work: Vec<u32>,
}

/// One chunk's lists, and the fill work its triangles bring to each raster row.
#[derive(Debug, Clone, Default)]
struct Chunk {
    lists: [Vec<Tri>; BANDS],
    row_work: Vec<u32>,
}

impl Bins {
    /// The lists of `band`, in draw order.
    pub(super) fn band(&self, band: usize) -> impl Iterator<Item = &[Tri]> {
        self.chunks[..self.used].iter().filter_map(move |c| c.lists.get(band).map(Vec::as_slice))
    }

    /// The rows of each band of the last binning.
    pub(super) fn bands(&self) -> [Range<usize>; BANDS] {
        self.bands.clone()
    }
}

/// Two bands of equal height: the first frame's, and those of meshes not binned.
pub(super) fn halves(height: usize) -> [Range<usize>; BANDS] {
    [0..height / 2, height / 2..height]
}

/// The row that splits `per_row` (work per row) in two halves of equal work, kept off the
/// raster's edges; the middle row when there is nothing to split.
fn balanced_cut(per_row: &[u32]) -> usize {
    let total: u64 = per_row.iter().map(|&n| u64::from(n)).sum();
    let height = per_row.len();
    if total == 0 || height < 2 {
        return height / 2;
    }
    let mut seen = 0;
    let cut = per_row.iter().position(|&n| {
        seen += u64::from(n);
        2 * seen >= total
    });
    cut.map_or(height / 2, |r| r + 1).clamp(1, height - 1)
}

/// Bin the triangle list `list` (glTF `TRIANGLES`, three indices per triangle; no indices
/// means the vertices in order) over the vertices `verts` of a `width` x `height` raster
/// (sides at most `fill::SPAN_MAX_SIDE`), whose `spans` end with one `SPAN_ANY` past the
/// last vertex (as `project_all` writes them).
/// Returns (triangles, skipped). Runs on rayon's pool.
pub(super) fn bin_triangles(
    list: TriangleList,
    verts: &[ProjVertex],
    spans: &[[i16; 4]],
    width: usize,
    height: usize,
    bins: &mut Bins,
) -> (usize, usize) {
    use rayon::prelude::*;
    let triangles = list.indices.map_or(verts.len(), <[u32]>::len) / 3;
    let chunks = triangles.div_ceil(CHUNK_TRIANGLES);
    if bins.chunks.len() < chunks {
        bins.chunks.resize_with(chunks, Default::default);
    }
    bins.used = chunks;
    let cut = if bins.next_cut.0 == height { bins.next_cut.1 } else { height / 2 };
    bins.bands = [0..cut, cut..height];
    let bands = &bins.bands;
    let skipped = bins.chunks[..chunks]
        .par_iter_mut()
        .enumerate()
        .map(|(k, chunk)| {
            let start = k * CHUNK_TRIANGLES;
            let end = (start + CHUNK_TRIANGLES).min(triangles);
            bin_chunk(list, start..end, verts, spans, (width, height), bands, chunk)
        })
        .sum();
    bins.row_work.clear();
    bins.row_work.resize(height, 0);
    for chunk in &bins.chunks[..chunks] {
        bins.row_work.iter_mut().zip(&chunk.row_work).for_each(|(total, n)| *total += n);
    }
    bins.next_cut = (height, balanced_cut(&bins.row_work));
    (triangles, skipped)
}

/// One chunk of triangles (positions in the drawing order); returns how many were skipped.
fn bin_chunk(
    list: TriangleList,
    range: Range<usize>,
    verts: &[ProjVertex],
    spans: &[[i16; 4]],
    (width, height): (usize, usize),
    bands: &[Range<usize>; BANDS],
    chunk: &mut Chunk,
) -> usize {
    let Chunk { lists, row_work } = chunk;
    for l in lists.iter_mut() {
        l.clear();
    }
    row_work.clear();
    row_work.resize(height, 0);
    let mut binner = Binner { verts, width, height, bands, lists, row_work, skipped: 0 };
    // `verts.len()` fits in u32 here: the caller bins only such meshes.
    let mesh = Projected { verts, spans, width, height };
    for_each_candidate(list, range, mesh, |t| binner.keep(t));
    binner.skipped
}

/// Triangles that pass the span test wait in batches of this many for the full checks.
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
/// triangle list `list` (no indices: the vertices in order, whose count must fit `u32`)
/// that may draw into the raster of `mesh`. A triangle with a vertex out of range or not
/// simple is passed on, so that the caller's full checks see it.
///
/// Two tests drop the others. The span test reads only the compact spans (is there a
/// pixel centre in the box?), and most triangles of a dense mesh end there: eight at a
/// time (`filter::span_pass`), the last few one at a time without a branch (about half
/// pass it, unpredictably: each is written to the batch, whose end advances only when it
/// passes). A full batch then goes through `filter::may_draw` (does a small
/// triangle cover any of those centres?).
#[inline(always)]
pub(super) fn for_each_candidate(
    list: TriangleList,
    range: Range<usize>,
    mesh: Projected,
    keep: impl FnMut(Tri),
) {
    let mut keep = keep;
    filter(list, range, mesh, &mut |tris: &[Tri]| keep_covering(mesh, tris, &mut keep));
}

/// The span test over `range`, its passes handed to `sink` in batches, in draw order.
#[inline(always)]
fn filter(list: TriangleList, range: Range<usize>, mesh: Projected, sink: &mut impl FnMut(&[Tri])) {
    let indices = list.indices;
    // `spans` ends with `SPAN_ANY`, which an index out of range reads instead: no bounds
    // check, nor branch, per vertex.
    let spans = if mesh.spans.is_empty() { &[SPAN_ANY][..] } else { mesh.spans };
    let mut batch = Batch { tris: [[0; 3]; BATCH], n: 0 };
    let tri = |k: usize| match indices {
        Some(ix) => ix.get(3 * k..3 * k + 3).map_or([u32::MAX; 3], |t| [t[0], t[1], t[2]]),
        None => [3 * k as u32, 3 * k as u32 + 1, 3 * k as u32 + 2],
    };
    let mut start = range.start;
    {
        let mut pass = [0u64; SPAN_PASS_MAX / 64];
        loop {
            let done = span_pass(indices, start..range.end, spans, &mut pass);
            if done == 0 {
                break;
            }
            for (w, &bits) in pass.iter().enumerate() {
                let mut bits = bits;
                while bits != 0 {
                    // Up to the batch's end in a loop of its own, the count in a register:
                    // pushed one at a time with the sink's call in the loop, the count went
                    // through memory each time, and the loop waited on it.
                    let mut n = batch.n;
                    while bits != 0 && n < BATCH {
                        batch.tris[n] = tri(start + 64 * w + bits.trailing_zeros() as usize);
                        bits &= bits - 1;
                        n += 1;
                    }
                    batch.n = n;
                    if n == BATCH {
                        sink(&batch.tris);
                        batch.n = 0;
                    }
                }
            }
            start += done;
        }
    }
    // The rest (fewer than eight) one at a time.
    let last = spans.len() - 1;
    let span = |i: u32| spans[(i as usize).min(last)];
    let mut one = |t: Tri| {
        let pass = spans_hold_centre(span(t[0]), span(t[1]), span(t[2]));
        batch.push_if(pass, t, sink);
    };
    match indices {
        Some(ix) => {
            let ix = ix.get(3 * start..3 * range.end).unwrap_or_default();
            ix.chunks_exact(3).for_each(|t| one([t[0], t[1], t[2]]));
        }
        None => (start..range.end).for_each(|k| one(tri(k))),
    }
    sink(&batch.tris[..batch.n]);
}

/// Triangles that passed the span test, waiting in draw order for the second test.
struct Batch {
    tris: [Tri; BATCH],
    n: usize,
}

impl Batch {
    /// Add `t` when `pass`, without a branch on it: `t` is written either way, and the end
    /// advances only when it passes.
    #[inline(always)]
    fn push_if(&mut self, pass: bool, t: Tri, sink: &mut impl FnMut(&[Tri])) {
        self.tris[self.n % BATCH] = t;
        self.n += usize::from(pass);
        if self.n == BATCH {
            sink(&self.tris);
            self.n = 0;
        }
    }
}

/// Call `keep` with those of `tris` (at most `BATCH`) that may cover a pixel centre.
#[inline(always)]
fn keep_covering(mesh: Projected, tris: &[Tri], keep: &mut impl FnMut(Tri)) {
    let mut bits = may_draw(tris, mesh.verts, mesh.width, mesh.height);
    while bits != 0 {
        keep(tris[bits.trailing_zeros() as usize]);
        bits &= bits - 1;
    }
}

/// One chunk's binning state.
struct Binner<'a> {
    verts: &'a [ProjVertex],
    width: usize,
    height: usize,
    bands: &'a [Range<usize>; BANDS],
    lists: &'a mut [Vec<Tri>; BANDS],
    /// The estimated fill work of the kept triangles of simple vertices on each row: a
    /// unit per row of each box. This balances the bands' fill times; also counting each
    /// triangle's set-up made them less even.
    row_work: &'a mut [u32],
    skipped: usize,
}

impl Binner<'_> {
    /// The full checks for a triangle that passed the span test, and the bands it goes to.
    #[inline(always)]
    fn keep(&mut self, t: Tri) {
        let get = |i: u32| self.verts.get(i as usize);
        let (Some(v0), Some(v1), Some(v2)) = (get(t[0]), get(t[1]), get(t[2])) else {
            self.skipped += 1;
            return;
        };
        // The raster rows the triangle may draw into.
        let (first, last) = if v0.simple() && v1.simple() && v2.simple() {
            match simple_rows(self.width, self.height, [v0, v1, v2]) {
                Some((first, last)) => {
                    if let Some(rows) = self.row_work.get_mut(first..=last) {
                        rows.iter_mut().for_each(|n| *n += 1);
                    }
                    (first, last)
                }
                None => return,
            }
        } else if [v0, v1, v2].iter().any(|v| v.state() == State::Invalid) {
            self.skipped += 1;
            return;
        } else {
            (0, usize::MAX)
        };
        for (list, rows) in self.lists.iter_mut().zip(self.bands) {
            if first < rows.end && last >= rows.start {
                list.push(t);
            }
        }
    }
}

/// The rows (first, last) a triangle of simple vertices may draw into; `None` when its box
/// holds no pixel centre of the raster, or a single one that the (small) triangle misses.
#[inline(always)]
fn simple_rows(width: usize, height: usize, [v0, v1, v2]: [&ProjVertex; 3]) -> Option<(usize, usize)> {
    let (x, y) = ([v0.x, v1.x, v2.x], [v0.y, v1.y, v2.y]);
    let (first, last) = centre_rows(width, height, x, y)?;
    // Only a box one row tall can hold a single centre.
    if first == last && small_misses_its_only_centre(width, height, x, y) {
        return None;
    }
    Some((first, last))
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use crate::render::camera::Camera;
    use crate::render::mesh::{DrawMode, DrawStats, MeshStyle, MeshView, Shading, draw_mesh_by};
    use crate::render::raster::Raster;
    use crate::rig::Topology;

    /// A small deterministic generator (64-bit LCG, high bits).
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    /// How a triangle list is drawn.
    #[derive(Debug, Clone, Copy)]
    enum Way {
        /// One thread walks every triangle once over the whole raster: the reference.
        Walk,
        /// One thread, through the candidate filter.
        Listed,
        /// Two threads bin the filtered triangles and fill a band each.
        Binned,
    }

    /// Draw `mesh` the `way` given. Drawn twice, so that the second frame's bands meet
    /// where the first frame's triangles split in halves rather than in the middle row.
    fn draw(way: Way, mesh: &MeshView, style: &MeshStyle, cam: &Camera) -> (Raster, DrawStats) {
        let threads = if matches!(way, Way::Binned) { 2 } else { 1 };
        let use_spans = !matches!(way, Way::Walk);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut r = Raster::new(97, 61, 1.0);
        pool.install(|| draw_mesh_by(&mut r, cam, mesh, style, use_spans));
        r.clear();
        let stats = pool.install(|| draw_mesh_by(&mut r, cam, mesh, style, use_spans));
        (r, stats)
    }

    #[test]
    fn filtered_and_binned_triangles_draw_what_one_walk_draws() {
        // Random triangles of every kind: sub-pixel ones (most of a dense mesh), large
        // ones across the band edge, degenerate ones (a repeated index, collinear points),
        // some reaching behind the eye or far outside the guard band (clipped), some with
        // a NaN vertex or an out-of-range index (skipped).
        let mut rng = Lcg(7);
        let mut positions = Vec::new();
        for k in 0..9000 {
            // Crowded towards one side of the raster, so that the bands do not meet in the middle.
            let c = Vec3::new(rng.next() * 2.4 - 1.2, rng.next().powi(3) * 1.8 - 0.9, rng.next() - 0.5);
            let size = match k % 10 {
                0 => 0.6,
                1 => 0.08,
                _ => 0.012,
            };
            let mut jitter = || Vec3::new(rng.next() - 0.5, rng.next() - 0.5, rng.next() - 0.5) * size;
            positions.extend([c + jitter(), c + jitter(), c + jitter()]);
        }
        let n = positions.len() as u32;
        // Behind the eye (the camera sits at z = 3), far out, NaN; collinear.
        positions[30].z = 5.0;
        positions[61] = Vec3::new(0.1, 0.2, 4.0);
        positions[92].x = 1e6;
        positions[120].y = f32::NAN;
        positions[150] = positions[151].lerp(positions[152], 0.25);
        let mut indices: Vec<u32> = (0..n).collect();
        indices[301] = n + 5;
        indices[302] = indices[303];
        indices.extend([30, 61, 92, 0, 61, 5, 1000, 30, 2000]);
        let normals: Vec<Vec3> = positions.iter().map(|p| Vec3::new(p.y, 0.3, 1.0)).collect();
        let cam = Camera::default();
        for indexed in [true, false] {
            let mut mesh = MeshView::new(&positions, Topology::Triangles).with_normals(&normals);
            if indexed {
                mesh = mesh.with_indices(&indices);
            }
            for style in [
                MeshStyle::default(),
                MeshStyle { shading: Shading::Flat, ..MeshStyle::default() },
                MeshStyle { cull_backfaces: true, ..MeshStyle::default() },
                MeshStyle { mode: DrawMode::Wireframe, ..MeshStyle::default() },
            ] {
                let (walk, walk_stats) = draw(Way::Walk, &mesh, &style, &cam);
                assert!(walk.lit_pixels().len() > 1000, "{style:?}");
                for way in [Way::Listed, Way::Binned] {
                    let (r, stats) = draw(way, &mesh, &style, &cam);
                    assert_eq!(stats, walk_stats, "{way:?} {style:?}");
                    let diff = walk.pixels.iter().zip(&r.pixels).position(|(a, b)| a != b);
                    assert_eq!(diff, None, "{way:?}, indexed {indexed}, {style:?}");
                }
            }
        }
    }

    #[test]
    fn halves_tile_the_rows() {
        for h in [0, 1, 2, 3, 240, 241] {
            let [a, b] = super::halves(h);
            assert_eq!((a.start, a.end, b.start, b.end), (0, h / 2, h / 2, h));
        }
    }

    #[test]
    fn the_cut_splits_the_triangles_in_two_halves() {
        use super::balanced_cut;
        // 30 triangles on rows 0..3, 10 on row 7: the first 20 are done within row 1.
        let mut rows = vec![0u32; 10];
        rows[..3].copy_from_slice(&[10, 10, 10]);
        rows[7] = 10;
        assert_eq!(balanced_cut(&rows), 2);
        // Nothing to split: the middle. Everything on the first row: still a row each.
        assert_eq!(balanced_cut(&[0; 10]), 5);
        assert_eq!(balanced_cut(&[9, 0, 0, 0]), 1);
        assert_eq!(balanced_cut(&[0, 0, 0, 9]), 3);
        assert_eq!(balanced_cut(&[4]), 0);
        assert_eq!(balanced_cut(&[]), 0);
    }
}
