//! Screen-space lines: cut to the raster rectangle, then Bresenham between the pixels that
//! contain the two ends. It owns which pixels a line covers and the interpolation of depth
//! and the scalar along it; the per-pixel rule (depth test or overlay) is the caller's.
//!
//! Bresenham steps once per pixel along the major axis, so a line of major extent `n`
//! pixels draws `n + 1` pixels with no gaps and no doubled pixels; depth and `s` are
//! interpolated by that step count (depth is affine in screen space, so this is exact up
//! to the endpoint snapping).

use glam::{Vec3, Vec4};

use super::clip::{ClipVertex, clip_segment};

/// Call `f(pixel index, z, s)` for each pixel of the line `a`-`b` (screen coordinates,
/// z = depth) on a `width` x `height` raster. Non-finite ends draw nothing.
pub(super) fn scan(
    width: usize,
    height: usize,
    a: Vec3,
    b: Vec3,
    s: [f32; 2],
    mut f: impl FnMut(usize, f32, f32),
) {
    if width == 0 || height == 0 {
        return;
    }
    let (w, h) = (width as f32, height as f32);
    let rect = [
        Vec4::new(1.0, 0.0, 0.0, 0.0),
        Vec4::new(-1.0, 0.0, 0.0, w),
        Vec4::new(0.0, 1.0, 0.0, 0.0),
        Vec4::new(0.0, -1.0, 0.0, h),
    ];
    let ca = ClipVertex { p: a.extend(1.0), s: s[0] };
    let cb = ClipVertex { p: b.extend(1.0), s: s[1] };
    let inside = |p: Vec3| p.x >= 0.0 && p.x <= w && p.y >= 0.0 && p.y <= h && p.z.is_finite();
    // Most mesh edges lie wholly inside: skip the four plane tests for them.
    let (ca, cb) = if inside(a) && inside(b) {
        (ca, cb)
    } else {
        match clip_segment(ca, cb, &rect) {
            Some(ends) => ends,
            None => return,
        }
    };
    // An end exactly on the right or bottom border belongs to the last pixel.
    let pixel = |v: f32, n: usize| (v.max(0.0) as usize).min(n - 1) as i64;
    let (mut x, mut y) = (pixel(ca.p.x, width), pixel(ca.p.y, height));
    let (x1, y1) = (pixel(cb.p.x, width), pixel(cb.p.y, height));
    let dx = (x1 - x).abs();
    let dy = -(y1 - y).abs();
    let (sx, sy) = (if x < x1 { 1 } else { -1 }, if y < y1 { 1 } else { -1 });
    let steps = dx.max(-dy);
    let inv = if steps > 0 { 1.0 / steps as f32 } else { 0.0 };
    let (za, dz) = (ca.p.z, cb.p.z - ca.p.z);
    let (sa, ds) = (ca.s, cb.s - ca.s);
    let mut err = dx + dy;
    let mut k = 0i64;
    loop {
        let t = k as f32 * inv;
        // x and y stay within the clamped end pixels, so the index is in range.
        f(y as usize * width + x as usize, za + dz * t, sa + ds * t);
        if (x == x1 && y == y1) || k >= steps {
            break;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            x += sx;
        }
        if e2 <= dx {
            err += dx;
            y += sy;
        }
        k += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixels(w: usize, h: usize, a: Vec3, b: Vec3) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        scan(w, h, a, b, [0.0, 0.0], |i, _, _| out.push((i % w, i / w)));
        out
    }

    fn p(x: f32, y: f32) -> Vec3 {
        Vec3::new(x, y, 0.5)
    }

    #[test]
    fn shallow_line_by_hand() {
        // From pixel (0,0) to (3,1): exact y at x = 0..3 is 0, 1/3, 2/3, 1 -> rows 0,0,1,1.
        assert_eq!(pixels(4, 4, p(0.5, 0.5), p(3.5, 1.5)), vec![(0, 0), (1, 0), (2, 1), (3, 1)]);
        // Steep: (1,0) to (2,3): x at y = 0..3 is 1, 4/3, 5/3, 2 -> columns 1,1,2,2.
        assert_eq!(pixels(4, 4, p(1.5, 0.5), p(2.5, 3.5)), vec![(1, 0), (1, 1), (2, 2), (2, 3)]);
        assert_eq!(pixels(4, 4, p(1.2, 2.7), p(1.9, 2.1)), vec![(1, 2)]);
    }

    #[test]
    fn lines_are_cut_to_the_raster() {
        // Horizontal through row 1 from far left to far right: the whole row.
        assert_eq!(pixels(4, 4, p(-100.0, 1.5), p(1e6, 1.5)), vec![(0, 1), (1, 1), (2, 1), (3, 1)]);
        // Ends on the far borders land in the last column and row.
        assert_eq!(pixels(4, 4, p(4.0, 4.0), p(4.0, 4.0)), vec![(3, 3)]);
        assert!(pixels(4, 4, p(5.0, 0.0), p(9.0, 3.0)).is_empty());
        assert!(pixels(4, 4, p(f32::NAN, 0.0), p(2.0, 2.0)).is_empty());
        assert!(pixels(4, 4, p(f32::INFINITY, 0.0), p(2.0, 2.0)).is_empty());
        assert!(pixels(0, 4, p(0.0, 0.0), p(2.0, 2.0)).is_empty());
    }

    #[test]
    fn depth_and_scalar_interpolate_along_the_major_axis() {
        let mut got = Vec::new();
        scan(8, 1, Vec3::new(0.5, 0.5, 0.2), Vec3::new(4.5, 0.5, 0.6), [1.0, 0.0], |i, z, s| {
            got.push((i, z, s))
        });
        let want = [(0, 0.2, 1.0), (1, 0.3, 0.75), (2, 0.4, 0.5), (3, 0.5, 0.25), (4, 0.6, 0.0)];
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g.0, w.0);
            assert!((g.1 - w.1).abs() < 1e-6 && (g.2 - w.2).abs() < 1e-6);
        }
    }
}
