//! `Palette`: one skin's joint matrices in the forms skinning reads, written by the pose
//! stage straight from its 3x4 products (no `Mat4` round trip): the portable `Affine34`
//! list, the wide kernel's 256-entry table (skins of at most 255 joints), and whether
//! every matrix is finite (the fast paths' condition).

use glam::Affine3A;

use super::skin_wide::{WIDE_MAX_JOINTS, WideJoint, WidePalette};
use super::skinning::Affine34;

#[derive(Debug, Clone, Default)]
pub(crate) struct Palette {
    pub(crate) narrow: Vec<Affine34>,
    /// `None` for skins with more joints than the wide table holds.
    pub(crate) wide: Option<WidePalette>,
    pub(crate) finite: bool,
}

impl Palette {
    /// Starts a frame of `joints` matrices, pushed in order with `push`.
    pub(crate) fn begin(&mut self, joints: usize) {
        self.narrow.clear();
        self.start(joints);
    }

    /// Starts a frame of `joints` finite matrices and hands out the slots of both forms
    /// for the caller to write, every one of them, in any order, over the last frame's
    /// (allocating only when the skin grew, and not clearing what is about to be
    /// overwritten): the portable list, and the wide table's first `joints` entries when
    /// the skin fits it. A wide entry is `WideJoint::from_affine_mat4` of the joint's matrix.
    #[inline]
    pub(crate) fn in_place(&mut self, joints: usize) -> (&mut [Affine34], Option<&mut [WideJoint]>) {
        self.narrow.resize(joints, Affine34::ZERO);
        self.start(joints);
        let wide = self.wide.as_mut().map(|w| &mut w.entries[..joints]);
        (&mut self.narrow, wide)
    }

    /// What both ways of starting a frame share: finite until told otherwise, and a wide
    /// table exactly when `joints` fit it (kept from frame to frame, not reallocated).
    #[inline]
    fn start(&mut self, joints: usize) {
        self.finite = true;
        if joints > WIDE_MAX_JOINTS {
            self.wide = None;
        } else if self.wide.is_none() {
            self.wide = Some(WidePalette::default());
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, m: &Affine3A) {
        if let Some(wide) = &mut self.wide {
            wide.set(self.narrow.len(), m);
        }
        self.narrow.push(Affine34::from_affine(m));
    }
}
