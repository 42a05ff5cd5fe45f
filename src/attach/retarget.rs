//! `--retarget rest`: a source clip rebuilt so that each bound character joint turns, in
//! world space, from its own rest exactly as its source joint turns from the source's rest
//! (`../shared/docs/skinning.md`, "Clips from another file"):
//!
//! `W_T(j, t) = W_S(s, t) * inverse(R_S(s)) * R_T(j)`, hence, with `a` the nearest bound
//! ancestor of `j` (source `sa`) and `p` its parent,
//! `q_T(j, t) = inverse(R_T(p)) * R_S(sa) * L(sa..s, t) * inverse(R_S(s)) * R_T(j)`, where
//! `L(sa..s, t)` multiplies the source's local rotations below `sa` down to `s` (from the
//! source root when `j` has no bound ancestor; `R_S(sa)` is then left out).
//!
//! The result goes into the character's clip list like any clip, so it must be keys. When
//! at most one source channel in `L` is animated, `q_T` is `A * q(t) * B` with constant unit
//! quaternions `A` and `B`: a rotation of 4-space, which commutes with slerp, nlerp (their
//! shortest-path test included: it keeps dot products) and CUBICSPLINE's component-wise
//! Hermite (a linear map), so transforming the keys (and tangents) is exact at every time.
//! Otherwise the chain is sampled at the union of its key times into a LINEAR channel,
//! exact at those times only. World rotations here are products of local rotations (scale
//! is left out, as the formula speaks of rotations).

use std::collections::HashMap;
use std::sync::Arc;

use glam::{Mat4, Quat, Vec3};

use super::bind::NodeBinding;
use crate::anim::sample_channel;
use crate::rig::{Channel, Clip, Interpolation, Property, Rig};

/// The retargeted channels and each one's source node.
pub fn retarget_rest(
    character: &Rig,
    source: &Rig,
    clip: &Clip,
    binding: &NodeBinding,
) -> (Vec<Channel>, Vec<usize>) {
    // Character node -> its source node (the first channel that binds it decides).
    let mut source_of: Vec<Option<usize>> = vec![None; character.nodes.len()];
    for channel in &clip.channels {
        if let Some(Some((j, _))) = binding.get(channel.node)
            && let Some(slot) = source_of.get_mut(*j)
            && slot.is_none()
        {
            *slot = Some(channel.node);
        }
    }
    let rest_t = world_rest_rotations(character);
    let rest_s = world_rest_rotations(source);
    let heights = |rig: &Rig| -> Vec<f32> { world_rest_matrices(rig).iter().map(|m| m.w_axis.y).collect() };
    let (heights_t, heights_s) = (heights(character), heights(source));
    // Each node's first rotation and translation channel, found once rather than per node.
    let mut rotations: HashMap<usize, &Channel> = HashMap::new();
    let mut translations: HashMap<usize, &Channel> = HashMap::new();
    for c in &clip.channels {
        match c.property {
            Property::Rotation if c.components == 4 => rotations.entry(c.node).or_insert(c),
            Property::Translation => translations.entry(c.node).or_insert(c),
            _ => continue,
        };
    }
    let rotation_channel = |n: usize| rotations.get(&n).copied();

    let mut channels = Vec::new();
    let mut sources = Vec::new();
    for &j in &character.order {
        let Some(s) = source_of[j] else { continue };
        let parent = character.nodes[j].parent;
        let bound_ancestor = ancestors(character, j).find(|&a| source_of[a].is_some());
        let sa = bound_ancestor.and_then(|a| source_of[a]);
        let mut pre = parent.map_or(Quat::IDENTITY, |p| rest_t[p].inverse());
        // The source path from just below `sa` (or the root) down to `s`, top first.
        let mut path: Vec<usize> = std::iter::once(s).chain(ancestors(source, s)).collect();
        // When `sa` is no ancestor of `s` (an odd map), `inverse(W_S(sa, t))` stays a chain
        // of its own, from the root down to `sa`.
        let mut undo: Vec<usize> = Vec::new();
        if let Some(sa) = sa {
            match path.iter().position(|&n| n == sa) {
                Some(i) => path.truncate(i),
                None => undo = std::iter::once(sa).chain(ancestors(source, sa)).collect(),
            }
            pre *= rest_s[sa];
        }
        path.reverse();
        undo.reverse();
        let post = rest_s[s].inverse() * rest_t[j];
        let chain = Chain { source, path: &path, undo: &undo, pre, post };
        channels.push(chain.channel(&rotation_channel, j));
        sources.push(s);

        if bound_ancestor.is_none() {
            let ratio = height_ratio(heights_t[j], heights_s[s]);
            if let Some(c) = translations.get(&s).copied() {
                channels.push(scaled_translation(
                    c,
                    j,
                    source.nodes[s].rest.translation,
                    character.nodes[j].rest.translation,
                    ratio,
                ));
                sources.push(s);
            }
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

/// `node`'s ancestors, nearest first.
fn ancestors(rig: &Rig, node: usize) -> impl Iterator<Item = usize> + '_ {
    let limit = rig.nodes.len();
    std::iter::successors(rig.nodes.get(node).and_then(|n| n.parent), |&p| {
        rig.nodes.get(p).and_then(|n| n.parent)
    })
    .take(limit)
}

/// World rest rotation of every node: the product of rest rotations from the root.
pub fn world_rest_rotations(rig: &Rig) -> Vec<Quat> {
    let mut world = vec![Quat::IDENTITY; rig.nodes.len()];
    for &n in &rig.order {
        let local = rig.nodes[n].rest.rotation;
        world[n] = match rig.nodes[n].parent {
            Some(p) if p < world.len() => world[p] * local,
            _ => local,
        };
    }
    world
}

/// World rest matrices (the nodes' rest transforms, or their `matrix`).
pub fn world_rest_matrices(rig: &Rig) -> Vec<Mat4> {
    let mut world = vec![Mat4::IDENTITY; rig.nodes.len()];
    for &n in &rig.order {
        let node = &rig.nodes[n];
        let local = node.matrix.unwrap_or_else(|| node.rest.to_matrix());
        world[n] = match node.parent {
            Some(p) if p < world.len() => world[p] * local,
            _ => local,
        };
    }
    world
}

/// `h_T / h_S`: the world rest heights (y) of the two joints, 1 when either is not positive.
fn height_ratio(h_t: f32, h_s: f32) -> f32 {
    if h_t > 0.0 && h_s > 0.0 && (h_t / h_s).is_finite() { h_t / h_s } else { 1.0 }
}

/// `rest_T + (t_S - rest_S) * ratio` on every key; tangents scale by `ratio` alone.
fn scaled_translation(c: &Channel, node: usize, rest_s: Vec3, rest_t: Vec3, ratio: f32) -> Channel {
    let cubic = c.interpolation == Interpolation::CubicSpline;
    let values: Vec<f32> = c
        .values
        .chunks_exact(3)
        .enumerate()
        .flat_map(|(i, v)| {
            let v = Vec3::new(v[0], v[1], v[2]);
            let tangent = cubic && i % 3 != 1;
            let out = if tangent { v * ratio } else { rest_t + (v - rest_s) * ratio };
            out.to_array()
        })
        .collect();
    Channel { node, values: values.into(), ..c.clone() }
}

/// `pre * inverse(L(undo, t)) * L(path, t) * post`: one character joint's local rotation.
struct Chain<'a> {
    source: &'a Rig,
    path: &'a [usize],
    undo: &'a [usize],
    pre: Quat,
    post: Quat,
}

impl Chain<'_> {
    fn channel<'c>(&self, rotation_channel: &dyn Fn(usize) -> Option<&'c Channel>, node: usize) -> Channel {
        let animated: Vec<(usize, &Channel)> =
            self.path.iter().enumerate().filter_map(|(i, &n)| rotation_channel(n).map(|c| (i, c))).collect();
        let undo_animated = self.undo.iter().any(|&n| rotation_channel(n).is_some());
        let rest = |range: &[usize]| {
            range.iter().fold(Quat::IDENTITY, |q, &n| q * self.source.nodes[n].rest.rotation)
        };
        let pre = self.pre * rest(self.undo).inverse();
        match animated.as_slice() {
            [] if !undo_animated => constant(node, pre * rest(self.path) * self.post),
            [(i, c)] if !undo_animated => {
                let a = pre * rest(&self.path[..*i]);
                let b = rest(&self.path[i + 1..]) * self.post;
                let values: Vec<f32> = c
                    .values
                    .chunks_exact(4)
                    .flat_map(|q| (a * Quat::from_xyzw(q[0], q[1], q[2], q[3]) * b).to_array())
                    .collect();
                Channel { node, values: values.into(), ..(*c).clone() }
            }
            _ => self.sampled(rotation_channel, node),
        }
    }

    /// The chain sampled at the union of its channels' key times, LINEAR between them.
    fn sampled<'c>(&self, rotation_channel: &dyn Fn(usize) -> Option<&'c Channel>, node: usize) -> Channel {
        let mut times: Vec<f32> = self
            .path
            .iter()
            .chain(self.undo)
            .filter_map(|&n| rotation_channel(n))
            .flat_map(|c| c.times.iter().copied())
            .filter(|t| t.is_finite())
            .collect();
        times.sort_by(f32::total_cmp);
        times.dedup();
        let local = |n: usize, t: f32| match rotation_channel(n) {
            Some(c) => {
                let mut out = self.source.nodes[n].rest.rotation.to_array();
                sample_channel(c, t, &mut out);
                Quat::from_array(out)
            }
            None => self.source.nodes[n].rest.rotation,
        };
        let product = |nodes: &[usize], t: f32| nodes.iter().fold(Quat::IDENTITY, |q, &n| q * local(n, t));
        let values: Vec<f32> = times
            .iter()
            .flat_map(|&t| {
                let q = self.pre * product(self.undo, t).inverse() * product(self.path, t) * self.post;
                q.normalize().to_array()
            })
            .collect();
        Channel {
            node,
            property: Property::Rotation,
            interpolation: Interpolation::Linear,
            times: times.into(),
            values: values.into(),
            components: 4,
        }
    }
}

fn constant(node: usize, q: Quat) -> Channel {
    Channel {
        node,
        property: Property::Rotation,
        interpolation: Interpolation::Step,
        times: Arc::from([0.0f32]),
        values: Arc::from(q.normalize().to_array()),
        components: 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::{Pose, sample};
    use crate::attach::bind::{BindOptions, bind_nodes};

    fn world_rotations(rig: &Rig, clip: &Clip, t: f32) -> Vec<Quat> {
        let mut pose = Pose::rest(rig);
        sample(clip, t, &mut pose);
        (0..rig.nodes.len())
            .map(|mut n| {
                let mut q = pose.locals[n].rotation;
                while let Some(p) = rig.nodes[n].parent {
                    q = pose.locals[p].rotation * q;
                    n = p;
                }
                q
            })
            .collect()
    }

    #[test]
    fn a_chain_with_two_animated_joints_is_exact_at_its_key_times() {
        let walker = crate::import::load_bytes(&crate::samplegen::walker(), "walker.glb", None).unwrap();
        // The character has no joint bound to `chest`: each upper arm's nearest bound
        // ancestor is `spine`, and the source chain below it (chest, upper arm) has two
        // animated rotations, so the arm is sampled rather than transformed key by key.
        let mut character = walker.clone();
        let chest = character.nodes.iter().position(|n| n.name.as_deref() == Some("chest")).unwrap();
        character.nodes[chest].name = Some("torso".into());
        character.nodes[chest].rest.rotation = Quat::from_rotation_x(0.3);
        let mut source = walker.clone();
        let arm = source.nodes.iter().position(|n| n.name.as_deref() == Some("upper_arm.L")).unwrap();
        source.nodes[arm].rest.rotation = Quat::from_rotation_z(-0.6) * source.nodes[arm].rest.rotation;
        let binding = bind_nodes(&character, &source, &BindOptions::default());
        let clip = &source.clips[0];
        let (channels, _) = retarget_rest(&character, &source, clip, &binding);
        let retargeted = Clip { channels, ..clip.clone() };
        let arm_channel =
            retargeted.channels.iter().find(|c| c.node == arm && c.property == Property::Rotation).unwrap();
        assert_eq!(arm_channel.interpolation, Interpolation::Linear);
        // Sampled: new key times, not the source channel's shared ones.
        let source_arm =
            clip.channels.iter().find(|c| c.node == arm && c.property == Property::Rotation).unwrap();
        assert!(!Arc::ptr_eq(&arm_channel.times, &source_arm.times));
        let (rest_t, rest_s) = (world_rest_rotations(&character), world_rest_rotations(&source));
        for &t in arm_channel.times.iter() {
            let (on_t, on_s) =
                (world_rotations(&character, &retargeted, t), world_rotations(&source, clip, t));
            let d = (on_t[arm] * rest_t[arm].inverse()) * (on_s[arm] * rest_s[arm].inverse()).inverse();
            let angle = 2.0 * d.xyz().length().atan2(d.w.abs());
            assert!(angle < 1e-5, "t = {t}: {angle} rad");
        }
    }
}
