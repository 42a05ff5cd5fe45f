use super::*;
use crate::render::raster::Layer;

// Default camera: eye at (0, 0, 3) looking down -Z, fov 45 degrees, so with
// f = 1 / tan(22.5 deg) = 2.414214 a point (x, y, z) lands at
// x_ndc = f x / (3 - z), and on a 40x40 raster at screen x = 20 (1 + x_ndc),
// y = 20 (1 - y_ndc).
const GREY: Rgb = DEFAULT_MESH_COLOR;

fn raster() -> Raster {
    Raster::new(40, 40, 1.0)
}

/// Square of half-size `a` at depth `z`, counter-clockwise as seen from +Z.
fn quad(a: f32, z: f32) -> [Vec3; 4] {
    [Vec3::new(-a, -a, z), Vec3::new(a, -a, z), Vec3::new(a, a, z), Vec3::new(-a, a, z)]
}

#[test]
fn two_bands_draw_what_one_thread_draws() {
    // Thousands of overlapping triangles of varied size and depth, a few crossing the
    // middle row: the two-band fill must give every pixel's depth, colour and layer
    // exactly as one thread does, shaded and as the hidden-line depth prepass.
    let mut positions = Vec::new();
    let mut indices = Vec::new();
    for k in 0..22_000u32 {
        let a = k as f32 * 0.37;
        positions.push(Vec3::new(a.cos() * 0.9, a.sin() * 0.7, (k % 7) as f32 * 0.05));
        positions.push(Vec3::new((a * 1.3).sin() * 0.8, (a * 0.7).cos() * 0.8, -((k % 5) as f32) * 0.07));
        positions.push(Vec3::new(0.05 * (k % 11) as f32, -0.3, 0.1));
        indices.extend([3 * k, 3 * k + 1, 3 * k + 2]);
    }
    assert!(indices.len() >= PARALLEL_MIN_CORNERS);
    let normals: Vec<Vec3> = positions.iter().map(|p| *p + Vec3::Z).collect();
    let mesh = MeshView::new(&positions, Topology::Triangles).with_normals(&normals).with_indices(&indices);
    let cam = Camera::default();
    for mode in [DrawMode::Shaded, DrawMode::Wireframe] {
        let style = MeshStyle { mode, ..MeshStyle::default() };
        let draw = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut r = Raster::new(61, 47, 1.0);
            pool.install(|| draw_mesh(&mut r, &cam, &mesh, &style));
            r
        };
        let (one, mut two) = (draw(1), draw(2));
        assert!(one.lit_pixels().len() > 500);
        assert!(one.pixels == two.pixels, "{mode:?}");
        // Both bands flagged what they wrote: a clear empties every pixel.
        two.clear();
        assert!(two.pixels.iter().all(|p| p.depth == 0.0 && p.layer == Layer::Empty), "{mode:?}");
    }
}

const CCW: [u32; 6] = [0, 1, 2, 0, 2, 3];
const CW: [u32; 6] = [0, 2, 1, 0, 3, 2];

fn solid(c: Rgb) -> MeshStyle {
    MeshStyle { coloring: Coloring::Solid(c), ..MeshStyle::default() }
}

#[test]
fn a_quad_covers_the_hand_computed_pixels() {
    // Half-size 0.5 at z = 0: x_ndc = +-0.402369, screen 11.95 .. 28.05, so centres
    // 12.5 ..= 27.5: columns and rows 12..=27, 16 x 16 pixels, each exactly once.
    let mut r = raster();
    let p = quad(0.5, 0.0);
    let stats = draw_mesh(
        &mut r,
        &Camera::default(),
        &MeshView::new(&p, Topology::Triangles).with_indices(&CCW),
        &MeshStyle::default(),
    );
    assert_eq!(stats, DrawStats { primitives: 2, skipped: 0 });
    let lit = r.lit_pixels();
    assert_eq!(lit.len(), 256);
    assert!(lit.iter().all(|&(x, y)| (12..=27).contains(&x) && (12..=27).contains(&y)));
}

#[test]
fn two_sided_head_light() {
    let cam = Camera::default();
    let p = quad(0.5, 0.0);
    let toward = [Vec3::Z; 4];
    let away = [Vec3::NEG_Z; 4];
    // ambient 0.2: full light gives 200, none gives 0.2 * 200 = 40.
    let centre = |idx: &[u32], n: &[Vec3], style: MeshStyle| {
        let mut r = raster();
        let view = MeshView::new(&p, Topology::Triangles).with_indices(idx).with_normals(n);
        draw_mesh(&mut r, &cam, &view, &style);
        r.color_at(20, 20)
    };
    let smooth = MeshStyle::default();
    // Front face, normals towards the eye: fully lit.
    assert_eq!(centre(&CCW, &toward, smooth), Some(GREY));
    // Front face with normals pointing away: the data disagrees with the winding: dark.
    assert_eq!(centre(&CCW, &away, smooth), Some(Rgb::new(40, 40, 40)));
    // Back face seen from behind (winding and normals both away): lit as its front.
    assert_eq!(centre(&CW, &away, smooth), Some(GREY));
    assert_eq!(centre(&CW, &toward, smooth), Some(Rgb::new(40, 40, 40)));
    // Flat shading uses the geometric normal, whichever side is seen.
    let flat = MeshStyle { shading: Shading::Flat, ..smooth };
    assert_eq!(centre(&CCW, &away, flat), Some(GREY));
    assert_eq!(centre(&CW, &away, flat), Some(GREY));
    // Culling removes only back faces.
    let cull = MeshStyle { cull_backfaces: true, ..smooth };
    assert_eq!(centre(&CW, &away, cull), None);
    assert_eq!(centre(&CCW, &toward, cull), Some(GREY));
}

#[test]
fn flat_shading_follows_the_angle() {
    // A square tilted 60 degrees about X: its normal makes 60 degrees with the view
    // direction, cos = 0.5, so s = 0.2 + 0.8 * 0.5 = 0.6 -> 200 * 0.6 = 120.
    let (s, c) = (60f32.to_radians().sin(), 60f32.to_radians().cos());
    let p = [
        Vec3::new(-0.5, -0.5 * c, 0.5 * s),
        Vec3::new(0.5, -0.5 * c, 0.5 * s),
        Vec3::new(0.5, 0.5 * c, -0.5 * s),
        Vec3::new(-0.5, 0.5 * c, -0.5 * s),
    ];
    let mut r = raster();
    let style = MeshStyle { shading: Shading::Flat, ..MeshStyle::default() };
    let view = MeshView::new(&p, Topology::Triangles).with_indices(&CCW);
    draw_mesh(&mut r, &Camera::default(), &view, &style);
    assert_eq!(r.color_at(20, 20), Some(Rgb::new(120, 120, 120)));
}

#[test]
fn nearer_quad_wins_in_either_order() {
    let cam = Camera::default();
    let back = quad(0.5, 0.0);
    let front = quad(0.2, 0.5);
    for front_first in [false, true] {
        let mut r = raster();
        let draw = |r: &mut Raster, p: &[Vec3], c| {
            let view = MeshView::new(p, Topology::Triangles).with_indices(&CCW);
            draw_mesh(r, &cam, &view, &solid(c));
        };
        if front_first {
            draw(&mut r, &front, Rgb::GREEN);
            draw(&mut r, &back, Rgb::RED);
        } else {
            draw(&mut r, &back, Rgb::RED);
            draw(&mut r, &front, Rgb::GREEN);
        }
        // No normals: flat shading, facing the light: full colour.
        assert_eq!(r.color_at(20, 20), Some(Rgb::GREEN));
        assert_eq!(r.color_at(13, 13), Some(Rgb::RED));
    }
}

#[test]
fn near_plane_cuts_a_floor_that_runs_behind_the_eye() {
    // A floor at y = -0.2 from z = -5 to z = 10 (the eye is at z = 3). Every visible
    // floor point is below the eye, so below the horizon at y = 20; the vertex behind the
    // eye would, projected without clipping, land in the upper half.
    let p = [Vec3::new(-5.0, -0.2, -5.0), Vec3::new(5.0, -0.2, -5.0), Vec3::new(0.0, -0.2, 10.0)];
    let mut r = raster();
    let stats =
        draw_mesh(&mut r, &Camera::default(), &MeshView::new(&p, Topology::Triangles), &MeshStyle::default());
    assert_eq!(stats, DrawStats { primitives: 1, skipped: 0 });
    let lit = r.lit_pixels();
    assert!(lit.iter().all(|&(_, y)| y >= 21), "{lit:?}");
    // The bottom row looks 22.5 degrees down: it meets the floor 0.2 / tan(22.5) =
    // 0.48 in front of the eye, at z = 2.52, where the floor is +-2.49 wide.
    assert!(r.is_lit(20, 39) && r.is_lit(0, 39) && r.is_lit(39, 39));
    // The far edge at z = -5 is 8 away: y_ndc = -0.2 f / 8 = -0.0604, screen y 20.6,
    // so row 21 (centre 21.5) is the first covered.
    assert!(r.is_lit(20, 21) && !r.is_lit(20, 20));
}

#[test]
fn a_triangle_far_beyond_the_edges_fills_the_view() {
    let p = [Vec3::new(-1e4, -1e4, 0.0), Vec3::new(1e4, -1e4, 0.0), Vec3::new(0.0, 1e4, 0.0)];
    let mut r = raster();
    let stats =
        draw_mesh(&mut r, &Camera::default(), &MeshView::new(&p, Topology::Triangles), &MeshStyle::default());
    assert_eq!(stats.skipped, 0);
    assert_eq!(r.lit_pixels().len(), 40 * 40);
}

#[test]
fn nan_vertices_and_bad_indices_are_skipped() {
    let mut p = quad(0.5, 0.0).to_vec();
    p.push(Vec3::new(f32::NAN, 0.0, 0.0));
    p.push(Vec3::new(0.0, f32::INFINITY, 0.0));
    let cam = Camera::default();
    let style = MeshStyle::default();
    let mut only_first = raster();
    draw_mesh(
        &mut only_first,
        &cam,
        &MeshView::new(&p, Topology::Triangles).with_indices(&[0, 1, 2]),
        &style,
    );
    for bad in [[0, 2, 4], [0, 2, 5], [0, 2, 99]] {
        let idx = [0, 1, 2, bad[0], bad[1], bad[2]];
        let mut r = raster();
        let stats =
            draw_mesh(&mut r, &cam, &MeshView::new(&p, Topology::Triangles).with_indices(&idx), &style);
        assert_eq!(stats, DrawStats { primitives: 2, skipped: 1 });
        assert_eq!(r.lit_pixels(), only_first.lit_pixels());
    }
    // The first triangle is the lower-right half of the square (diagonal x + y = 40).
    assert!(only_first.lit_pixels().iter().all(|&(x, y)| x + y >= 39));
    assert!(!only_first.lit_pixels().is_empty());
}

#[test]
fn heat_colours_are_unlit_ramp_values() {
    let p = quad(0.5, 0.0);
    let cam = Camera::default();
    let style = MeshStyle { coloring: Coloring::Heat, ..MeshStyle::default() };
    // Normals pointing away would darken a lit mesh; heat ignores light.
    let away = [Vec3::NEG_Z; 4];
    let mut r = raster();
    let view =
        MeshView::new(&p, Topology::Triangles).with_indices(&CCW).with_normals(&away).with_scalars(&[0.5; 4]);
    draw_mesh(&mut r, &cam, &view, &style);
    assert_eq!(r.color_at(20, 20), Some(Rgb::new(128, 255, 0)));
    assert_eq!(r.color_at(13, 26), Some(Rgb::new(128, 255, 0)));
    // Scalars 0 on the left edge (screen x = 20 (1 - 0.5 f / 3)), 1 on the right (the
    // mirror image): column 12's centre 12.5 reads (12.5 - left) / (right - left).
    let mut r = raster();
    let view = view.with_scalars(&[0.0, 1.0, 1.0, 0.0]);
    draw_mesh(&mut r, &cam, &view, &style);
    let f = 1.0 / 22.5f32.to_radians().tan();
    let (left, right) = (20.0 * (1.0 - 0.5 * f / 3.0), 20.0 * (1.0 + 0.5 * f / 3.0));
    let want = crate::render::heat((12.5 - left) / (right - left));
    assert_eq!(r.color_at(12, 20), Some(want));
    assert_eq!(want, Rgb::new(0, 26, 229));
    // Wrong-length scalars: plain lit colour instead (normals away: ambient only).
    let mut r = raster();
    draw_mesh(&mut r, &cam, &view.with_scalars(&[0.5; 3]), &style);
    assert_eq!(r.color_at(20, 20), Some(Rgb::new(40, 40, 40)));
}

#[test]
fn wireframe_hides_edges_behind_the_mesh() {
    // Front square (half-size 1, z = 0.5) hides a back square (0.3, z = -0.5). The back
    // square's top edge (y = 0.3, 3.5 from the eye) is at y_ndc = 0.3 f / 3.5 = 0.2069,
    // screen y 15.86: row 15; x = 0 is column 20. The front square's own edges are
    // near the border and its diagonal runs through pixels with x + y = 39.
    let cam = Camera::default();
    let (front, back) = (quad(1.0, 0.5), quad(0.3, -0.5));
    let run = |hidden_lines: bool| {
        let mut r = raster();
        let style = MeshStyle { mode: DrawMode::Wireframe, hidden_lines, ..MeshStyle::default() };
        for p in [&front, &back] {
            let view = MeshView::new(p, Topology::Triangles).with_indices(&CCW);
            draw_mesh(&mut r, &cam, &view, &style);
        }
        r
    };
    let hidden = run(true);
    assert!(!hidden.is_lit(20, 15));
    assert!(!hidden.is_lit(20, 16) && !hidden.is_lit(20, 14));
    // The diagonal runs from pixel (0, 39) to (39, 0) along x + y = 39. Wireframe lines
    // are unlit: the full colour.
    assert_eq!(hidden.color_at(20, 19), Some(GREY));
    let shown = run(false);
    assert_eq!(shown.color_at(20, 15), Some(GREY));
    assert!(!shown.is_lit(20, 17));
}

#[test]
fn points_and_lines_topologies() {
    let cam = Camera::default();
    // (0,0,0) -> (20, 20); (0.5,0,0) -> x = 20 (1 + 0.402369) = 28.05;
    // (0,0.5,0) -> y = 20 (1 - 0.402369) = 11.95.
    let p = [Vec3::ZERO, Vec3::new(0.5, 0.0, 0.0), Vec3::new(0.0, 0.5, 0.0)];
    let mut r = raster();
    let style = MeshStyle { mode: DrawMode::Points, ..MeshStyle::default() };
    let stats = draw_mesh(&mut r, &cam, &MeshView::new(&p, Topology::Triangles), &style);
    assert_eq!(stats.primitives, 3);
    assert_eq!(r.lit_pixels(), vec![(20, 11), (20, 20), (28, 20)]);

    // A line strip from x = -0.5 to 0.5 along y = 0: row 20, columns 11 ..= 28.
    let l = [Vec3::new(-0.5, 0.0, 0.0), Vec3::new(0.5, 0.0, 0.0)];
    let mut r = raster();
    let stats = draw_mesh(&mut r, &cam, &MeshView::new(&l, Topology::LineStrip), &MeshStyle::default());
    assert_eq!(stats, DrawStats { primitives: 1, skipped: 0 });
    let want: Vec<(usize, usize)> = (11..=28).map(|x| (x, 20)).collect();
    assert_eq!(r.lit_pixels(), want);
    // Points topology draws points even in shaded mode.
    let mut r = raster();
    draw_mesh(&mut r, &cam, &MeshView::new(&l[..1], Topology::Points), &MeshStyle::default());
    assert_eq!(r.lit_pixels(), vec![(11, 20)]);
}

#[test]
fn a_line_through_the_eye_plane_is_cut() {
    // From the centre of view to a point behind the eye: only the part in front shows,
    // which projects onto the ray from the centre downwards (y < 0 side).
    let l = [Vec3::ZERO, Vec3::new(0.0, -1.0, 6.0)];
    let mut r = raster();
    draw_mesh(&mut r, &Camera::default(), &MeshView::new(&l, Topology::Lines), &MeshStyle::default());
    let lit = r.lit_pixels();
    assert!(!lit.is_empty());
    assert!(lit.iter().all(|&(x, y)| x == 20 && y >= 20), "{lit:?}");
}

#[test]
fn ghost_is_depth_tested_but_writes_no_depth() {
    let cam = Camera::default();
    let back = quad(0.3, -0.5);
    let view = MeshView::new(&back, Topology::Triangles).with_indices(&CCW);
    let mut r = raster();
    draw_ghost(&mut r, &cam, &view, DEFAULT_GHOST_COLOR);
    // Top edge at row 15 (see the wireframe test); no depth anywhere.
    assert_eq!(r.color_at(20, 15), Some(DEFAULT_GHOST_COLOR));
    assert!(r.pixels.iter().all(|p| p.depth == 0.0));
    // Behind a shaded front square it is hidden.
    let front = quad(1.0, 0.5);
    let mut r = raster();
    let fv = MeshView::new(&front, Topology::Triangles).with_indices(&CCW);
    draw_mesh(&mut r, &cam, &fv, &MeshStyle::default());
    draw_ghost(&mut r, &cam, &view, DEFAULT_GHOST_COLOR);
    assert_eq!(r.color_at(20, 15), Some(GREY));
}

#[test]
fn the_span_filter_draws_and_counts_what_the_full_walk_does() {
    // A dense mesh of triangles from sub-pixel to a third of the view across, some
    // crossing the near plane, a few with a NaN vertex or an index out of range: the
    // filtered triangle list must give every pixel and statistic of the walk over every
    // triangle, on each backend, on one thread and split into two bands, shaded (flat and
    // smooth) and as the hidden-line prepass.
    let mut seed = 3u64;
    let mut next = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    let (mut positions, mut indices) = (Vec::new(), Vec::new());
    for k in 0..30_000u32 {
        let size = [0.004, 0.02, 0.1, 0.6][k as usize % 4];
        let c = Vec3::new(next() * 2.4, next() * 2.4, next() * 5.0);
        for _ in 0..3 {
            positions.push(c + Vec3::new(next(), next(), next()) * size);
        }
        indices.extend([3 * k, 3 * k + 1, 3 * k + 2]);
    }
    // The last few (past the whole blocks of eight) in front of everything.
    for k in 0..3 {
        let c = Vec3::new(k as f32 * 0.3 - 0.3, 0.2, 2.2);
        positions.extend([c, c + Vec3::new(0.2, 0.0, 0.0), c + Vec3::new(0.0, 0.25, 0.0)]);
        indices.extend([90_000 + 3 * k, 90_001 + 3 * k, 90_002 + 3 * k]);
    }
    positions[100] = Vec3::new(f32::NAN, 0.0, 0.0);
    indices[3001] = 1 << 30;
    assert!(indices.len() >= PARALLEL_MIN_CORNERS);
    let normals: Vec<Vec3> = positions.iter().map(|p| p.normalize_or_zero()).collect();
    let mesh = MeshView::new(&positions, Topology::Triangles).with_normals(&normals).with_indices(&indices);
    let cam = Camera::default();
    let styles = [
        MeshStyle::default(),
        MeshStyle { shading: Shading::Flat, cull_backfaces: true, ..MeshStyle::default() },
        MeshStyle { mode: DrawMode::Points, ..MeshStyle::default() },
    ];
    for backend in crate::lanes::Backend::available() {
        backend.forced(|| {
            for style in &styles {
                for threads in [1, 2] {
                    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                    // Drawn twice, the second time split where a last frame could have left
                    // the cut (not the middle row).
                    let draw = |use_spans| {
                        let mut r = Raster::new(157, 83, 1.0);
                        pool.install(|| draw_mesh_by(&mut r, &cam, &mesh, style, use_spans));
                        r.clear();
                        r.scratch.cut = (83, 17);
                        let stats = pool.install(|| draw_mesh_by(&mut r, &cam, &mesh, style, use_spans));
                        (r, stats)
                    };
                    let ((filtered, a), (walked, b)) = (draw(true), draw(false));
                    assert_eq!(a, b, "{style:?} {threads}");
                    assert!(filtered.pixels == walked.pixels, "{style:?} {threads}");
                    let least = if style.mode == DrawMode::Shaded { 3000 } else { 100 };
                    assert!(walked.lit_pixels().len() > least, "{}", walked.lit_pixels().len());
                }
            }
        });
    }
}
