//! A projected vertex as the mesh drawer and the filter read it: a leaf that
//! `project` writes and the others read.

use glam::Vec3;

use super::fill::SUB;

/// What a projected vertex is good for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum State {
    /// In front of the near plane and inside the guard band: its snapped screen position
    /// is valid and primitives made only of such vertices skip clipping.
    Simple = 0,
    /// Finite but needs clipping (behind the near plane or outside the guard band).
    Clip = 1,
    /// A coordinate is NaN or infinite: primitives using it are skipped.
    #[default]
    Invalid = 2,
}

/// The hot per-vertex data the triangle loop reads, 16 bytes (the clip-space position is
/// not kept, only clipped primitives need it and they redo it, see `Scratch::clip_pos`).
/// The `State` is folded into the position: a vertex that is not simple has `y` equal to
/// `NOT_SIMPLE`, which no snapped position reaches (the guard band keeps them within
/// 2^27), and its state in `x`. So the projection writes each vertex whole, two to a
/// 32-byte store, and no state byte.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(16))]
pub(crate) struct ProjVertex {
    /// Screen position snapped to 1/`SUB` pixel (y down) when simple.
    pub x: i32,
    pub y: i32,
    /// Reversed depth when simple, else 0.
    pub z: f32,
    /// `normal . light`, signed: the caller picks the side (two-sided lighting). 0 when
    /// there is no usable normal.
    pub light: f32,
}

/// `ProjVertex::y` of a vertex that is not simple.
pub(super) const NOT_SIMPLE: i32 = i32::MIN;

impl Default for ProjVertex {
    fn default() -> Self {
        ProjVertex::not_simple(State::Invalid, 0.0)
    }
}

impl ProjVertex {
    /// A vertex in `state` (`Clip` or `Invalid`) with the light `light`.
    #[inline]
    pub fn not_simple(state: State, light: f32) -> ProjVertex {
        ProjVertex { x: state as i32, y: NOT_SIMPLE, z: 0.0, light }
    }

    #[inline]
    pub fn simple(&self) -> bool {
        self.y != NOT_SIMPLE
    }

    #[inline]
    pub fn state(&self) -> State {
        match (self.simple(), self.x) {
            (true, _) => State::Simple,
            (false, x) if x == State::Clip as i32 => State::Clip,
            _ => State::Invalid,
        }
    }

    /// The snapped screen position as floats (for lines and points).
    #[inline]
    pub fn screen(&self) -> Vec3 {
        let k = 1.0 / SUB as f32;
        Vec3::new(self.x as f32 * k, self.y as f32 * k, self.z)
    }
}
