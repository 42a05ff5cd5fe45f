//! What the wide (AVX2 + FMA) skinning kernel (`skin_lanes`) reads.
//!
//! - `WidePalette`: 256 joint matrices of 16 floats (four columns x, y, z, translation, each
//!   with a zero fourth lane). Entries past the skin's joints stay zero, so any `u8` joint
//!   index reads valid memory and an index past the skin reads a zero matrix: the "skip
//!   that influence" policy with neither a bounds check nor a branch. Only skins with at
//!   most `WIDE_MAX_JOINTS` joints use it, so entry 255 is always zero.
//! - `PackedInfluences`: one primitive's single influence set, packed once per rig: `u8`
//!   indices (out-of-range ones sent to entry 255) and, only when some weight is not
//!   finite, a copy of the weights with those zeroed (otherwise the kernel reads the rig's
//!   own weights: no 16-byte-per-vertex copy at start-up). Half the index bytes, and no
//!   per-vertex clean-up in the loop.
//!
//! `skin_lanes::skin` runs the kernel when the CPU has it (runtime detection) and reports how
//! many leading vertices it did; the caller finishes the rest with the portable loop,
//! which does the same operations in the same order, fused the same way (so the same bits).

use glam::{Affine3A, Mat4, Vec4};

use crate::rig::InfluenceSet;

/// The largest skin the wide palette takes: index 255 must stay a zero entry.
pub(crate) const WIDE_MAX_JOINTS: usize = 255;

/// One joint matrix as the kernel loads it: columns x | y in the first 8 floats, z | w in
/// the last 8, each column's fourth lane zero (so blended normals have a zero fourth lane).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[repr(C, align(64))]
pub(crate) struct WideJoint(pub(crate) [Vec4; 4]);

impl WideJoint {
    #[inline]
    fn from_affine(m: &Affine3A) -> Self {
        let m3 = &m.matrix3;
        WideJoint([
            m3.x_axis.extend(0.0),
            m3.y_axis.extend(0.0),
            m3.z_axis.extend(0.0),
            m.translation.extend(0.0),
        ])
    }

    /// `m` with its last row exactly `0 0 0 1`: its first three columns are taken as they
    /// are, the translation's fourth lane is zeroed.
    #[inline]
    pub(crate) fn from_affine_mat4(m: &Mat4) -> Self {
        WideJoint([m.x_axis, m.y_axis, m.z_axis, m.w_axis.truncate().extend(0.0)])
    }

    /// Columns x | y, then z | w: what the kernel loads.
    #[inline(always)]
    pub(crate) fn halves(&self) -> [[f32; 8]; 2] {
        let [x, y, z, w] = self.0;
        [[x.x, x.y, x.z, x.w, y.x, y.y, y.z, y.w], [z.x, z.y, z.z, z.w, w.x, w.y, w.z, w.w]]
    }
}

/// A skin's joint matrices for the wide kernel; see the module comment.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WidePalette {
    pub(crate) entries: Box<[WideJoint; 256]>,
}

impl Default for WidePalette {
    fn default() -> Self {
        WidePalette { entries: Box::new([WideJoint::default(); 256]) }
    }
}

impl WidePalette {
    /// Sets joint `i`; ignored at 255 and above, which must stay zero.
    #[inline]
    pub(crate) fn set(&mut self, i: usize, m: &Affine3A) {
        if let Some(slot) = self.entries.get_mut(i).filter(|_| i < WIDE_MAX_JOINTS) {
            *slot = WideJoint::from_affine(m);
        }
    }
}

/// One influence set packed for the wide kernel; see the module comment.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PackedInfluences {
    pub(crate) joints: Vec<[u8; 4]>,
    /// `None`: every weight of the set is finite, read them from the set itself.
    pub(crate) weights: Option<Vec<[f32; 4]>>,
}

impl PackedInfluences {
    /// `None` when the skin has more joints than the wide palette holds.
    pub(crate) fn new(set: &InfluenceSet, joint_count: usize) -> Option<Self> {
        if joint_count > WIDE_MAX_JOINTS {
            return None;
        }
        // `joint_count` <= WIDE_MAX_JOINTS < 256, so a joint below it fits in a u8. Written as
        // a plain select and a non-short-circuiting fold, both loops vectorise (this runs
        // before a large rig's first frame).
        let index = |j: u16| if usize::from(j) < joint_count { j as u8 } else { 255 };
        let all_finite = set.weights.as_flattened().iter().fold(true, |ok, w| ok & w.is_finite());
        Some(PackedInfluences {
            joints: set.joints.iter().map(|j| j.map(index)).collect(),
            weights: (!all_finite).then(|| {
                set.weights.iter().map(|w| w.map(|w| if w.is_finite() { w } else { 0.0 })).collect()
            }),
        })
    }

    /// The weights the kernel reads: the cleaned copy, or `set`'s own (the set this was
    /// packed from).
    pub(crate) fn weights<'a>(&'a self, set: &'a InfluenceSet) -> &'a [[f32; 4]] {
        self.weights.as_deref().unwrap_or(&set.weights)
    }
}

/// What the wide kernel reads: the palette and the packed influences of one run of vertices.
#[derive(Clone, Copy)]
pub(crate) struct WideInput<'a> {
    pub palette: &'a WidePalette,
    pub joints: &'a [[u8; 4]],
    pub weights: &'a [[f32; 4]],
}

impl WideInput<'_> {
    /// The same input starting at vertex `start` (empty slices past the end).
    pub(crate) fn range(self, start: usize) -> Self {
        WideInput {
            palette: self.palette,
            joints: self.joints.get(start.min(self.joints.len())..).unwrap_or_default(),
            weights: self.weights.get(start.min(self.weights.len())..).unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::skinning::tests::reference_vertex;
    use crate::anim::skinning::{Affine34, SkinInput, skin_fast};
    use crate::rig::WeightStorage;
    use glam::{Mat4, Quat, Vec3};

    /// xorshift: deterministic random-ish rigs.
    struct Rng(u32);
    impl Rng {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            self.0
        }
        fn unit(&mut self) -> f32 {
            (self.next() >> 8) as f32 / (1u32 << 24) as f32
        }
    }

    struct Case {
        joints: Vec<Mat4>,
        set: InfluenceSet,
        positions: Vec<Vec3>,
        normals: Vec<Vec3>,
    }

    /// `n` vertices on 9 random joints, with indices past the skin (9..11, and 300 past
    /// any `u8`), NaN, infinite and zero weights, and a few zero, NaN and infinite normals.
    fn case(n: usize, seed: u32) -> Case {
        let mut rng = Rng(seed);
        let joints = (0..9)
            .map(|_| {
                let axis = Vec3::new(rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() + 0.1).normalize();
                let scale = Vec3::new(0.5 + rng.unit(), 0.5 + rng.unit(), 0.5 + rng.unit());
                let t = Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 4.0 - 2.0;
                Mat4::from_scale_rotation_translation(scale, Quat::from_axis_angle(axis, rng.unit() * 6.0), t)
            })
            .collect();
        let mut js = Vec::with_capacity(n);
        let mut ws = Vec::with_capacity(n);
        for v in 0..n {
            let mut j = [0, 1, 2, 3].map(|_| (rng.next() % 12) as u16);
            let mut w = [rng.unit(), rng.unit(), rng.unit(), rng.unit()];
            match v % 13 {
                3 => w[2] = 0.0,
                5 => w[1] = f32::NAN,
                7 => w[3] = f32::INFINITY,
                11 => j[0] = 300,
                _ => {}
            }
            js.push(j);
            ws.push(w);
        }
        let positions: Vec<Vec3> =
            (0..n).map(|_| Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 2.0 - 1.0).collect();
        let normals = positions
            .iter()
            .enumerate()
            .map(|(v, p)| match v % 17 {
                4 => Vec3::ZERO,
                9 => Vec3::new(f32::NAN, 0.0, 1.0),
                12 => Vec3::new(0.0, f32::INFINITY, 0.0),
                _ => p.cross(Vec3::Y) + Vec3::Z * 0.1,
            })
            .collect();
        let set = InfluenceSet {
            set: 0,
            joints: js.into(),
            weights: ws.into(),
            weight_storage: WeightStorage::F32,
            joints_accessor: 0,
            weights_accessor: 0,
        };
        Case { joints, set, positions, normals }
    }

    fn wide_palette(joints: &[Mat4]) -> WidePalette {
        let mut palette = WidePalette::default();
        for (i, m) in joints.iter().enumerate() {
            palette.set(i, &Affine3A::from_mat4(*m));
        }
        palette
    }

    fn close(a: Vec3, b: glam::DVec3) -> bool {
        (a.as_dvec3() - b).abs().max_element() <= 1e-5 * (1.0 + b.abs().max_element())
    }

    /// Same bits, except that an exact zero may have either sign.
    fn same(a: Vec3, b: Vec3) -> bool {
        a.to_array()
            .iter()
            .zip(b.to_array())
            .all(|(x, y)| x.to_bits() == y.to_bits() || (*x == 0.0 && y == 0.0))
    }

    /// Through `skin_fast` with and without the wide input, one core and the pool, with
    /// and without normals: every vertex against the f64 per-influence reference, and the
    /// wide result equal to the portable one.
    fn check(n: usize, seed: u32) {
        let c = case(n, seed);
        let packed = PackedInfluences::new(&c.set, c.joints.len()).expect("9 joints fit");
        let wide = wide_palette(&c.joints);
        let narrow: Vec<Affine34> = c.joints.iter().map(Affine34::from_mat4).collect();
        let portable_input = SkinInput {
            positions: &c.positions,
            normals: &c.normals,
            joints: &c.set.joints,
            weights: &c.set.weights,
            wide: None,
        };
        let wide_input = SkinInput {
            wide: Some(WideInput { palette: &wide, joints: &packed.joints, weights: packed.weights(&c.set) }),
            ..portable_input
        };
        for parallel in [false, true] {
            let (mut pp, mut pn) = (vec![Vec3::NAN; n], vec![Vec3::NAN; n]);
            skin_fast(portable_input, &narrow, &mut pp, &mut pn, parallel);
            let (mut wp, mut wn) = (vec![Vec3::NAN; n], vec![Vec3::NAN; n]);
            skin_fast(wide_input, &narrow, &mut wp, &mut wn, parallel);
            let mut only = vec![Vec3::NAN; n];
            skin_fast(wide_input, &narrow, &mut only, &mut [], parallel);
            for v in 0..n {
                let sets = [(c.set.joints[v], c.set.weights[v])];
                let (rp, rn) = reference_vertex(&c.joints, &sets, c.positions[v], c.normals[v]);
                assert!(close(wp[v], rp), "n={n} vertex {v}: {} vs {rp}", wp[v]);
                assert!(close(wn[v], rn), "n={n} normal {v}: {} vs {rn}", wn[v]);
                assert!(close(pp[v], rp) && close(pn[v], rn), "n={n} portable vertex {v}");
                assert!(same(wp[v], pp[v]) && same(wn[v], pn[v]), "n={n} vertex {v}: wide != portable");
                assert!(same(only[v], pp[v]), "n={n} positions-only vertex {v}");
            }
        }
    }

    #[test]
    fn wide_matches_the_reference_and_the_portable_loop_at_every_remainder() {
        let every_remainder = || {
            for n in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 17, 18, 23, 64, 1003] {
                check(n, 0x1234_5677 + n as u32);
            }
        };
        every_remainder();
        // The kernel compiled for each instruction set this CPU has (forced on this
        // thread; these sizes stay on it).
        for backend in crate::lanes::Backend::available() {
            backend.forced(every_remainder);
        }
    }

    #[test]
    fn wide_matches_on_the_pool_across_chunks() {
        // Past the parallel threshold, not a multiple of the chunk or of 8.
        check(crate::anim::skinning::PARALLEL_MIN_VERTICES + 4099, 0x9e37_79b9);
    }

    #[test]
    fn the_kernel_does_whole_blocks_only() {
        let c = case(40, 7);
        let packed = PackedInfluences::new(&c.set, c.joints.len()).unwrap();
        let wide = wide_palette(&c.joints);
        let input = WideInput { palette: &wide, joints: &packed.joints, weights: packed.weights(&c.set) };
        for n in [0, 1, 7, 8, 9, 15, 16, 17, 40] {
            let (mut p, mut nr) = (vec![Vec3::NAN; n], vec![Vec3::NAN; n]);
            let done =
                crate::anim::skin_lanes::skin(input, &c.positions[..n], &c.normals[..n], &mut p, &mut nr);
            assert_eq!(done % 8, 0);
            assert!(done <= n, "n={n} done={done}");
            // Where the kernel runs (not with RIGSCOPE_SIMD=scalar), it does every whole block.
            if crate::lanes::Backend::current() == crate::lanes::Backend::Avx2 {
                assert_eq!(done, n / 8 * 8, "n={n}");
            }
            // Nothing past what it reports is touched.
            assert!(p[done..].iter().chain(&nr[done..]).all(|v| v.is_nan()), "n={n}");
        }
    }

    /// The kernel with the portable lanes (which `skin_wide` leaves to the portable loop)
    /// gives the bits of the best instruction set's: the same kernel, checked on both.
    #[test]
    fn the_kernel_gives_the_same_bits_on_every_backend() {
        use crate::anim::skin_lanes::{Blocks, SkinBlocks};
        use crate::lanes::Kernel;
        let n = 8 * 13;
        let c = case(n, 0x5eed);
        let packed = PackedInfluences::new(&c.set, c.joints.len()).unwrap();
        let wide = wide_palette(&c.joints);
        let run = |portable: bool, normals: bool| {
            let (mut p, mut nr) = (vec![Vec3::NAN; n], vec![Vec3::NAN; n]);
            let blocks = Blocks {
                palette: &wide.entries,
                joints: &packed.joints,
                weights: packed.weights(&c.set),
                p_in: &c.positions,
                p_out: &mut p,
                n_in: if normals { &c.normals } else { &[] },
                n_out: if normals { &mut nr } else { &mut [] },
            };
            match (portable, normals) {
                (true, true) => SkinBlocks::<true>(blocks).run::<crate::lanes::Portable>(),
                (true, false) => SkinBlocks::<false>(blocks).run::<crate::lanes::Portable>(),
                (false, true) => crate::lanes::run(SkinBlocks::<true>(blocks)),
                (false, false) => crate::lanes::run(SkinBlocks::<false>(blocks)),
            }
            (p, nr)
        };
        let bits = |v: &[Vec3]| v.iter().flat_map(|v| v.to_array().map(f32::to_bits)).collect::<Vec<_>>();
        for normals in [true, false] {
            let (pp, pn) = run(true, normals);
            let (bp, bn) = run(false, normals);
            assert_eq!(bits(&pp), bits(&bp));
            assert_eq!(bits(&pn), bits(&bn));
            // And both against the f64 reference.
            for v in 0..n {
                let (rp, rn) = reference_vertex(
                    &c.joints,
                    &[(c.set.joints[v], c.set.weights[v])],
                    c.positions[v],
                    c.normals[v],
                );
                assert!(close(pp[v], rp), "vertex {v}: {} vs {rp}", pp[v]);
                if normals {
                    assert!(close(pn[v], rn), "normal {v}: {} vs {rn}", pn[v]);
                }
            }
        }
    }

    #[test]
    fn packing_sends_bad_joints_to_a_zero_entry_and_zeroes_bad_weights() {
        let set = InfluenceSet {
            set: 0,
            joints: vec![[0, 8, 9, 300]].into(),
            weights: vec![[f32::NAN, 0.5, f32::NEG_INFINITY, 0.25]].into(),
            weight_storage: WeightStorage::F32,
            joints_accessor: 0,
            weights_accessor: 0,
        };
        let packed = PackedInfluences::new(&set, 9).unwrap();
        assert_eq!(packed.joints, vec![[0, 8, 255, 255]]);
        assert_eq!(packed.weights(&set), [[0.0, 0.5, 0.0, 0.25]]);
        let clean = InfluenceSet { weights: vec![[0.25, 0.5, 0.0, 0.25]].into(), ..set.clone() };
        let packed_clean = PackedInfluences::new(&clean, 9).unwrap();
        assert_eq!(packed_clean.weights, None, "finite weights are not copied");
        assert_eq!(packed_clean.weights(&clean), [[0.25, 0.5, 0.0, 0.25]]);
        assert!(PackedInfluences::new(&set, 256).is_none());
        let mut palette = WidePalette::default();
        palette.set(255, &Affine3A::IDENTITY);
        assert_eq!(palette.entries[255], WideJoint::default());
    }
}
