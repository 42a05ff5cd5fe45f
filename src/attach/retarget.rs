//! `--retarget` (`bind`, the default, or `rest`): a source clip rebuilt so that the character
//! keeps the source's motion as a body moves, not its raw values, exactly as
//! `../shared/docs/skinning.md` ("Clips from another file", "Retargeting") defines it:
//!
//! - rotations: `W_T(j, t) = A * W_S(s, t) * inverse(R_S(s)) * inverse(A) * R_T(j)`, with
//!   `A = F_T * inverse(F_S)` (`body`); the local rotation is `inverse(W_T(parent(j), t)) * W_T(j, t)`;
//! - translations: `t_T(j) + inverse(M_T(parent(j))) * A * M_S(parent(s)) * (t_S(s, t) - t_S(s)) * H_T / H_S`
//!   for every bound joint whose source translation is animated;
//! - keys at the union of the key times of every animated source joint from the root down to
//!   `s`, LINEAR between them.
//!
//! The result joins the character's clip list, so it is keys, computed once at load. A joint
//! no clip channel reaches plays its own rest, which is what `W_T(parent)` is taken from.

use std::sync::Arc;

use glam::{Mat3, Mat4, Quat, Vec3};

use super::bind::NodeBinding;
use super::body::{Body, ReferencePose, world_rotation};
use crate::anim::{Pose, compute_globals, sample};
use crate::rig::{Channel, Clip, Interpolation, Property, Rig};

/// The hips height ratios retargeting accepts; past them a rig's scale is broken.
pub const RATIO_LIMITS: (f32, f32) = (1e-3, 1e3);

/// A hips height ratio outside `RATIO_LIMITS`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "cannot retarget: the character's hips stand {target} above its lowest joint and the library's {library}, a ratio of {ratio:e} outside {:e}..{:e}; one of the rigs' scales (or its hips) is broken",
    RATIO_LIMITS.0,
    RATIO_LIMITS.1
)]
pub struct RatioRefused {
    pub target: f32,
    pub library: f32,
    pub ratio: f32,
}

/// The two rigs' terms, computed once per library.
#[derive(Debug, Clone)]
pub struct Retarget {
    pub reference: ReferencePose,
    pub target: Body,
    pub source: Body,
    /// `A = F_T * inverse(F_S)`; identity unless both rigs have a body frame.
    pub turn: Quat,
    /// `H_T / H_S`; 1 when either height is missing or not positive.
    pub ratio: f32,
}

impl Retarget {
    pub fn new(character: &Rig, source: &Rig, reference: ReferencePose) -> Result<Retarget, RatioRefused> {
        Self::from_bodies(Body::new(character, reference), Body::new(source, reference), reference)
    }

    /// `new` from the two rigs' bodies in `reference`, for a caller that has them already.
    pub fn from_bodies(target: Body, from: Body, reference: ReferencePose) -> Result<Retarget, RatioRefused> {
        let turn = match (target.frame, from.frame) {
            (Some(t), Some(s)) => (t * s.inverse()).normalize(),
            _ => Quat::IDENTITY,
        };
        let ratio = match (target.hips_height, from.hips_height) {
            (Some(t), Some(s)) if t > 0.0 && s > 0.0 => {
                let ratio = t / s;
                if !(ratio.is_finite() && (RATIO_LIMITS.0..=RATIO_LIMITS.1).contains(&ratio)) {
                    return Err(RatioRefused { target: t, library: s, ratio });
                }
                ratio
            }
            _ => 1.0,
        };
        Ok(Retarget { reference, target, source: from, turn, ratio })
    }

    /// The retargeted channels of `clip` and each one's source node.
    pub fn clip(
        &self,
        character: &Rig,
        source: &Rig,
        clip: &Clip,
        binding: &NodeBinding,
    ) -> (Vec<Channel>, Vec<usize>) {
        let chains = chain_times(source, clip);
        let joints = self.joints(character, source, clip, binding, &chains);
        let mut times: Vec<f32> = joints.iter().flat_map(|j| chains[j.source].iter().copied()).collect();
        times.sort_by(f32::total_cmp);
        times.dedup();

        let mut rotations: Vec<Vec<f32>> = vec![Vec::new(); joints.len()];
        let mut translations: Vec<Vec<f32>> = vec![Vec::new(); joints.len()];
        let mut cursor = vec![0usize; joints.len()];
        let mut slot: Vec<Option<usize>> = vec![None; character.nodes.len()];
        for (k, j) in joints.iter().enumerate() {
            slot[j.node] = Some(k);
        }
        let mut pose = Pose::rest(source);
        let mut globals = vec![Mat4::IDENTITY; source.nodes.len()];
        let mut world = vec![Quat::IDENTITY; character.nodes.len()];
        let inverse_turn = self.turn.inverse();
        for &t in &times {
            pose.reset(source);
            sample(clip, t, &mut pose);
            compute_globals(source, &pose, &mut globals);
            for &n in &character.order {
                let parent =
                    character.nodes[n].parent.and_then(|p| world.get(p).copied()).unwrap_or(Quat::IDENTITY);
                let Some(k) = slot[n] else {
                    world[n] = parent * character.nodes[n].rest.rotation;
                    continue;
                };
                let j = &joints[k];
                // A source joint collapsed to a point at this key has no rotation: it holds its reference.
                let w_s = world_rotation(&globals[j.source]).unwrap_or(self.source.rotations[j.source]);
                let change = self.turn * w_s * self.source.rotations[j.source].inverse() * inverse_turn;
                world[n] = (change * self.target.rotations[n]).normalize();
                if chains[j.source].get(cursor[k]) != Some(&t) {
                    continue;
                }
                cursor[k] += 1;
                rotations[k].extend((parent.inverse() * world[n]).normalize().to_array());
                if let Some(m) = &j.moves {
                    let moved = pose.locals[j.source].translation - m.source_rest;
                    translations[k].extend((m.target_rest + m.map * moved).to_array());
                }
            }
        }

        let mut channels = Vec::new();
        let mut sources = Vec::new();
        for (k, j) in joints.iter().enumerate() {
            let keys = chains[j.source].clone();
            channels.push(linear(
                j.node,
                Property::Rotation,
                keys.clone(),
                std::mem::take(&mut rotations[k]),
                4,
            ));
            sources.push(j.source);
            if j.moves.is_some() {
                channels.push(linear(
                    j.node,
                    Property::Translation,
                    keys,
                    std::mem::take(&mut translations[k]),
                    3,
                ));
                sources.push(j.source);
            }
        }
        // Morph weights are no transform: they play as bound.
        for channel in clip.channels.iter().filter(|c| c.property == Property::Weights) {
            if let Some(Some((j, _))) = binding.get(channel.node) {
                channels.push(Channel { node: *j, ..channel.clone() });
                sources.push(channel.node);
            }
        }
        (channels, sources)
    }

    /// The character joints `clip` moves, parents first: each bound to a source node whose
    /// chain from the root has keys (a source node with channels of its own first).
    fn joints(
        &self,
        character: &Rig,
        source: &Rig,
        clip: &Clip,
        binding: &NodeBinding,
        chains: &[Arc<[f32]>],
    ) -> Vec<Joint> {
        let mut source_of: Vec<Option<usize>> = vec![None; character.nodes.len()];
        let animated = clip.channels.iter().filter(|c| c.property != Property::Weights).map(|c| c.node);
        for s in animated.chain(0..source.nodes.len()) {
            if let Some(Some((j, _))) = binding.get(s)
                && let Some(slot) = source_of.get_mut(*j)
                && slot.is_none()
                && chains.get(s).is_some_and(|c| !c.is_empty())
            {
                *slot = Some(s);
            }
        }
        let translated = |s: usize| {
            clip.channels
                .iter()
                .any(|c| c.node == s && c.property == Property::Translation && c.components == 3)
        };
        character
            .order
            .iter()
            .filter_map(|&n| {
                let s = source_of[n]?;
                let moves = translated(s).then(|| self.moves(character, source, n, s)).flatten();
                Some(Joint { node: n, source: s, moves })
            })
            .collect()
    }

    /// How joint `n`'s translation follows source `s`'s; `None` when the character's parent
    /// matrix cannot be inverted.
    fn moves(&self, character: &Rig, source: &Rig, n: usize, s: usize) -> Option<Moves> {
        let parent_t = character.nodes[n].parent;
        let m_t = self.target.linear(parent_t);
        let det = m_t.determinant().abs();
        if det.is_nan() || det <= f32::MIN_POSITIVE {
            return None;
        }
        let map = m_t.inverse()
            * Mat3::from_quat(self.turn)
            * self.source.linear(source.nodes[s].parent)
            * self.ratio;
        map.is_finite().then(|| Moves {
            map,
            target_rest: self.target.local(character, n).w_axis.truncate(),
            source_rest: self.source.local(source, s).w_axis.truncate(),
        })
    }
}

/// One retargeted character joint.
struct Joint {
    node: usize,
    source: usize,
    moves: Option<Moves>,
}

/// `t_T(j) + map * (t_S(s, t) - t_S(s))`.
struct Moves {
    map: Mat3,
    target_rest: Vec3,
    source_rest: Vec3,
}

/// Per source node: the sorted key times of every animated node from the root down to it.
fn chain_times(source: &Rig, clip: &Clip) -> Vec<Arc<[f32]>> {
    let mut own: Vec<Vec<f32>> = vec![Vec::new(); source.nodes.len()];
    for c in clip.channels.iter().filter(|c| c.property != Property::Weights) {
        if let Some(times) = own.get_mut(c.node) {
            times.extend(c.times.iter().copied().filter(|t| t.is_finite()));
        }
    }
    let mut chains: Vec<Arc<[f32]>> = vec![Arc::from([]); source.nodes.len()];
    for &n in &source.order {
        let parent =
            source.nodes[n].parent.and_then(|p| chains.get(p).cloned()).unwrap_or_else(|| Arc::from([]));
        chains[n] = if own[n].is_empty() {
            parent
        } else {
            let mut times = std::mem::take(&mut own[n]);
            times.extend(parent.iter().copied());
            times.sort_by(f32::total_cmp);
            times.dedup();
            times.into()
        };
    }
    chains
}

fn linear(
    node: usize,
    property: Property,
    times: Arc<[f32]>,
    values: Vec<f32>,
    components: usize,
) -> Channel {
    Channel { node, property, interpolation: Interpolation::Linear, times, values: values.into(), components }
}
