//! Per-vertex work for a mesh, done once per vertex rather than once per triangle corner:
//! world -> clip space, the guard-band test, the viewport transform and snapping to the
//! filler's fixed-point grid, and the head-light term. Output goes into scratch buffers the
//! raster keeps between frames.

use glam::{Mat4, Vec3, Vec4};

use super::bin::Bins;
use super::clip::GUARD;
use super::fill::{SUB, to_fixed};

/// What a projected vertex is good for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum State {
    /// In front of the near plane and inside the guard band: its snapped screen position
    /// is valid and primitives made only of such vertices skip clipping.
    Simple,
    /// Finite but needs clipping (behind the near plane or outside the guard band).
    Clip,
    /// A coordinate is NaN or infinite: primitives using it are skipped.
    #[default]
    Invalid,
}

/// The hot per-vertex data the triangle loop reads (20 bytes: the clip-space position
/// lives in a separate array because only clipped primitives need it).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ProjVertex {
    /// Screen position snapped to 1/`SUB` pixel (y down); valid when `Simple`.
    pub x: i32,
    pub y: i32,
    /// Reversed depth; valid when `Simple`.
    pub z: f32,
    /// `normal . light`, signed: the caller picks the side (two-sided lighting). 0 when
    /// there is no usable normal.
    pub light: f32,
    pub state: State,
}

impl ProjVertex {
    #[inline]
    pub fn simple(&self) -> bool {
        self.state == State::Simple
    }

    /// The snapped screen position as floats (for lines and points).
    #[inline]
    pub fn screen(&self) -> Vec3 {
        let k = 1.0 / SUB as f32;
        Vec3::new(self.x as f32 * k, self.y as f32 * k, self.z)
    }
}

/// Buffers reused across draws.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scratch {
    pub verts: Vec<ProjVertex>,
    pub clip: Vec<Vec4>,
    /// A big mesh's triangles binned for the row bands (see `bin`).
    pub bins: Bins,
}

/// Meshes with at least this many vertices are projected on every thread of the rayon
/// pool (persistent threads); below it one thread is faster than the hand-off.
const PARALLEL_MIN_VERTICES: usize = 16_384;
const CHUNK: usize = 4096;

/// Project `positions` with `view_proj` onto a `width` x `height` viewport. `light_dir`
/// is the unit direction towards the light; `normals` is used only when it has one entry
/// per position.
pub(super) fn project_all(
    view_proj: Mat4,
    positions: &[Vec3],
    normals: Option<&[Vec3]>,
    light_dir: Vec3,
    width: usize,
    height: usize,
    out: &mut Scratch,
) {
    let n = positions.len();
    out.verts.clear();
    out.clip.clear();
    out.verts.resize(n, ProjVertex::default());
    out.clip.resize(n, Vec4::ZERO);
    let normals = normals.filter(|v| v.len() == n).unwrap_or_default();
    let run = |start: usize, verts: &mut [ProjVertex], clips: &mut [Vec4]| {
        let ps = positions.get(start..).unwrap_or_default();
        let ns = normals.get(start..).unwrap_or_default();
        for (i, ((v, c), &p)) in verts.iter_mut().zip(clips.iter_mut()).zip(ps).enumerate() {
            (*v, *c) = project_one(view_proj, p, ns.get(i).copied(), light_dir, width, height);
        }
    };
    if n >= PARALLEL_MIN_VERTICES && rayon::current_num_threads() > 1 {
        use rayon::prelude::*;
        out.verts
            .par_chunks_mut(CHUNK)
            .zip(out.clip.par_chunks_mut(CHUNK))
            .enumerate()
            .for_each(|(k, (v, c))| run(k * CHUNK, v, c));
    } else {
        run(0, &mut out.verts, &mut out.clip);
    }
}

/// One vertex: its hot data and its clip-space position.
#[inline(always)]
fn project_one(
    view_proj: Mat4,
    p: Vec3,
    normal: Option<Vec3>,
    light_dir: Vec3,
    width: usize,
    height: usize,
) -> (ProjVertex, Vec4) {
    let clip = view_proj * p.extend(1.0);
    let mut v = ProjVertex::default();
    if clip.is_finite() {
        v.state = State::Clip;
        // `inside_all(clip, &CLIP_PLANES)` written out: this runs once per vertex.
        let g = GUARD * clip.w;
        if clip.w >= clip.z && clip.x.abs() <= g && clip.y.abs() <= g {
            let s = to_screen(clip, width, height);
            // The guard band keeps |s.x|, |s.y| within the filler's limit for any
            // raster up to MAX_SIDE, so the snapped values fit in i32.
            v.x = to_fixed(s.x) as i32;
            v.y = to_fixed(s.y) as i32;
            v.z = s.z;
            v.state = State::Simple;
        }
    }
    if let Some(n) = normal {
        let l = n.normalize_or_zero().dot(light_dir);
        v.light = if l.is_finite() { l } else { 0.0 };
    }
    (v, clip)
}

/// Clip space -> screen space for a vertex known to be in front of the near plane.
#[inline]
pub(super) fn to_screen(clip: Vec4, width: usize, height: usize) -> Vec3 {
    let inv_w = 1.0 / clip.w;
    Vec3::new(
        (clip.x * inv_w + 1.0) * 0.5 * width as f32,
        (1.0 - clip.y * inv_w) * 0.5 * height as f32,
        clip.z * inv_w,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::camera::Camera;

    #[test]
    fn target_lands_mid_raster_and_states_are_right() {
        let cam = Camera::default();
        let vp = cam.view_proj(2.0);
        let pts = [
            Vec3::ZERO,
            Vec3::new(0.0, 0.0, 5.0), // behind the eye
            Vec3::new(f32::NAN, 0.0, 0.0),
            Vec3::new(1e6, 0.0, 0.0), // far outside the guard band
        ];
        let normals = [Vec3::Z * 2.0, Vec3::Z, Vec3::Z, Vec3::ZERO];
        let mut out = Scratch::default();
        project_all(vp, &pts, Some(&normals), cam.back(), 40, 20, &mut out);
        let v = out.verts[0];
        // Centre (20, 10) in 1/256 pixel.
        assert_eq!((v.x, v.y), (20 * 256, 10 * 256));
        // Reversed depth at the target: near / distance = 0.01 / 3.
        assert!((v.z - 0.01 / 3.0).abs() < 1e-7);
        // The normal faces the eye (light = back vector = +Z): full light despite length 2.
        assert!((v.light - 1.0).abs() < 1e-6);
        assert_eq!(v.state, State::Simple);
        assert_eq!(out.verts[1].state, State::Clip);
        assert_eq!(out.verts[2].state, State::Invalid);
        assert_eq!(out.verts[3].state, State::Clip);
        assert_eq!(out.verts[3].light, 0.0);
        assert!(v.screen().abs_diff_eq(to_screen(out.clip[0], 40, 20), 1e-5));
        assert_eq!(std::mem::size_of::<ProjVertex>(), 20);
        // The written-out guard test agrees with the planes.
        use crate::render::clip::{CLIP_PLANES, inside_all};
        for (v, c) in out.verts.iter().zip(&out.clip) {
            if v.state != State::Invalid {
                assert_eq!(v.state == State::Simple, inside_all(*c, &CLIP_PLANES));
            }
        }
    }

    #[test]
    fn big_meshes_split_over_threads_give_the_per_vertex_result() {
        let cam = Camera::default();
        let vp = cam.view_proj(2.0);
        let n = PARALLEL_MIN_VERTICES + CHUNK + 3;
        let pts: Vec<Vec3> = (0..n)
            .map(|i| Vec3::new((i % 97) as f32 * 0.03 - 1.5, (i % 89) as f32 * 0.02 - 0.9, 0.1))
            .collect();
        let normals: Vec<Vec3> = pts.iter().map(|p| Vec3::new(p.y, 1.0, 0.5)).collect();
        let mut out = Scratch::default();
        project_all(vp, &pts, Some(&normals), cam.back(), 120, 80, &mut out);
        assert_eq!((out.verts.len(), out.clip.len()), (n, n));
        for i in (0..n).step_by(13).chain([n - 1]) {
            let (v, c) = project_one(vp, pts[i], Some(normals[i]), cam.back(), 120, 80);
            let got = out.verts[i];
            assert_eq!((got.x, got.y, got.z, got.light, got.state), (v.x, v.y, v.z, v.light, v.state));
            assert_eq!(out.clip[i], c);
        }
    }
}
