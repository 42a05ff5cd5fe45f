//! Animations -> `Clip`s: each channel with its sampler's key times and flattened values
//! (decoded once per accessor and shared by every channel that reads them; normalised-integer
//! rotations and weights decoded per the glTF spec), the output count checked against the
//! key count and interpolation, and the clip's duration as the largest key time. Odd key
//! data (unsorted or negative times, non-unit rotations, NaN) loads and is reported as
//! findings. `KHR_animation_pointer` channels (see `pointer`) that target a node's transform
//! or morph weights are read by the same code; the others come back as
//! `UnpreviewedChannel`s.

use super::accessors::{
    self, CheckedAccessor, Form, Format, Normalized, Source, snorm8, snorm16, unorm8, unorm16,
};
use super::budget;
use super::nodes::UNIT_TOLERANCE;
use super::pointer::{self, Target};
use super::{Fault, findings::Findings};
use crate::rig::{Channel, Clip, Interpolation, Mesh, Node, Property, Severity, UnpreviewedChannel};
use gltf::accessor::util::Item;
use gltf::json;
use gltf::json::accessor::{ComponentType as C, Type as T};
use gltf::json::animation::Property as P;
use gltf::json::validation::Checked;
use std::sync::Arc;

const INPUT: Format = Format {
    role: "a sampler input",
    need: "SCALAR of FLOAT",
    allowed: &[(T::Scalar, C::F32)],
    normalized: Normalized::Never,
};
const VEC3_OUTPUT: Format = Format {
    role: "a translation or scale output",
    need: "VEC3 of FLOAT",
    allowed: &[(T::Vec3, C::F32)],
    normalized: Normalized::Never,
};
const ROTATION_OUTPUT: Format = Format {
    role: "a rotation output",
    need: "VEC4 of FLOAT, or of normalized BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT",
    allowed: &[(T::Vec4, C::F32), (T::Vec4, C::I8), (T::Vec4, C::U8), (T::Vec4, C::I16), (T::Vec4, C::U16)],
    normalized: Normalized::Ints,
};
const WEIGHTS_OUTPUT: Format = Format {
    role: "a weights output",
    need: "SCALAR of FLOAT, or of normalized BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT",
    allowed: &[
        (T::Scalar, C::F32),
        (T::Scalar, C::I8),
        (T::Scalar, C::U8),
        (T::Scalar, C::I16),
        (T::Scalar, C::U16),
    ],
    normalized: Normalized::Ints,
};

pub(crate) fn build(
    src: &Source<'_>,
    meshes: &[Mesh],
    pointers: &pointer::Split,
    nodes: &[Node],
    findings: &mut Findings,
) -> Result<Loaded, Fault> {
    let root = src.json();
    let pointer_declared = root.extensions_used.iter().any(|e| e == pointer::EXTENSION);
    let mut out = Loaded::default();
    for (a, json) in root.animations.iter().enumerate() {
        let mut channels = Vec::with_capacity(json.channels.len());
        let mut file_index = Vec::with_capacity(json.channels.len());
        let mut baked = Baked::default();
        // gltf-json does not validate channel targets: check every channel before reading
        // it. `c` is the channel's index in the file (pointer channels were taken out before
        // gltf-json saw the document).
        for (k, channel) in json.channels.iter().enumerate() {
            let c = pointers.file_index(a, k);
            check_target(root, a, c, channel)?;
            let property = match channel.target.path {
                Checked::Valid(P::Translation) => Property::Translation,
                Checked::Valid(P::Rotation) => Property::Rotation,
                Checked::Valid(P::Scale) => Property::Scale,
                Checked::Valid(P::MorphTargetWeights) => Property::Weights,
                Checked::Invalid => {
                    return Err(Fault::new(
                        format!("animations[{a}].channels[{c}].target.path"),
                        "invalid value",
                    ));
                }
            };
            let target = Target { node: channel.target.node.value(), property };
            let slot = Slot { a, c, s: channel.sampler.value() };
            channels.push(read_channel(src, meshes, slot, target, false, &mut baked, findings)?);
            file_index.push(c);
        }
        let mut other_times = Vec::new();
        for pc in pointers.channels.iter().filter(|pc| pc.animation == a) {
            // Undeclared, the extension is ignored (`extensions::declared`): the channel has
            // no target rigscope may follow, as in the validator.
            let resolved = if pointer_declared || pc.pointer.is_empty() {
                pointer::resolve(pc, nodes, meshes, findings)
            } else {
                Err(format!("{} is not declared in extensionsUsed; not previewed", pointer::EXTENSION))
            };
            match resolved {
                Ok(targets) => {
                    for target in targets {
                        let slot = Slot { a, c: pc.channel, s: pc.sampler };
                        channels.push(read_channel(src, meshes, slot, target, true, &mut baked, findings)?);
                        file_index.push(pc.channel);
                    }
                }
                Err(reason) => {
                    let (times, interpolation) = read_times(src, a, pc.channel, pc.sampler, findings)?;
                    out.unpreviewed.push(UnpreviewedChannel {
                        clip: a,
                        channel: pc.channel,
                        pointer: pc.pointer.clone(),
                        interpolation,
                        times: times.clone(),
                        reason,
                    });
                    other_times.extend(times.iter().copied());
                }
            }
        }
        // The clip lasts as long as its longest sampler, whether rigscope plays it or not.
        let duration = channels
            .iter()
            .flat_map(|ch| ch.times.iter())
            .chain(&other_times)
            .copied()
            .fold(0.0f32, f32::max);
        out.clips.push(Clip { vrm: None, name: json.name.clone(), channels, duration });
        out.file_index.push(file_index);
        out.core_channels.push(json.channels.len());
    }
    Ok(out)
}

/// The clips, the channels they do not play, and each played channel's index in the file.
#[derive(Default)]
pub(crate) struct Loaded {
    pub clips: Vec<Clip>,
    pub unpreviewed: Vec<UnpreviewedChannel>,
    pub file_index: Vec<Vec<usize>>,
    /// Per clip, how many of its channels are core glTF channels (the first ones).
    pub core_channels: Vec<usize>,
}

fn check_target(
    root: &json::Root,
    a: usize,
    c: usize,
    channel: &json::animation::Channel,
) -> Result<(), Fault> {
    let at = format!("animations[{a}].channels[{c}]");
    let samplers = root.animations.get(a).map_or(0, |x| x.samplers.len());
    if channel.sampler.value() >= samplers {
        return Err(Fault::new(
            format!("{at}.sampler"),
            format!("sampler {} does not exist", channel.sampler.value()),
        ));
    }
    let node = channel.target.node.value();
    if node >= root.nodes.len() {
        return Err(Fault::new(format!("{at}.target.node"), format!("node {node} does not exist")));
    }
    if let Checked::Invalid = channel.target.path {
        return Err(Fault::new(
            format!("{at}.target.path"),
            "is not translation, rotation, scale or weights",
        ));
    }
    Ok(())
}

/// The key times and interpolation of sampler `s` of animation `a` (read for channel `c`).
fn read_times(
    src: &Source<'_>,
    a: usize,
    c: usize,
    s: usize,
    findings: &mut Findings,
) -> Result<(Arc<[f32]>, Interpolation), Fault> {
    use json::animation::Interpolation as I;
    let Some(sampler) = src.json().animations.get(a).and_then(|x| x.samplers.get(s)) else {
        return Err(Fault::new(
            format!("animations[{a}].channels[{c}].sampler"),
            format!("sampler {s} does not exist"),
        ));
    };
    let interpolation = match sampler.interpolation {
        Checked::Valid(I::Step) => Interpolation::Step,
        Checked::Valid(I::Linear) => Interpolation::Linear,
        Checked::Valid(I::CubicSpline) => Interpolation::CubicSpline,
        Checked::Invalid => {
            return Err(Fault::new(format!("animations[{a}].samplers[{s}].interpolation"), "invalid value"));
        }
    };
    let in_at = format!("animations[{a}].samplers[{s}].input");
    let input = sampler.input.value();
    let in_acc = src.check(input, &INPUT, &in_at, findings)?;
    // Key times must increase strictly, so at most one of them can be an unstored zero;
    // refusing the rest bounds the key count by the file's own bytes.
    let unstored = src.unstored(input);
    if unstored > 1 {
        return Err(Fault::new(
            &in_at,
            format!(
                "accessors[{input}] claims {} key times but the file stores only {}: the other {unstored} are zeros, and key times must increase",
                in_acc.count,
                in_acc.count as u64 - unstored
            ),
        ));
    }
    // The same form as a FLOAT scalar output's values: one accessor read as both is shared.
    let times: Arc<[f32]> = src.shared(&in_acc, Form::Floats { normalized: false }, &in_at, || {
        Ok(accessors::collect(&in_acc, accessors::items::<f32>(src, input), 0.0, &in_at)?.into())
    })?;
    report_times(findings, a, s, input, &times);
    Ok((times, interpolation))
}

/// The key arrays, interpolation and property of every channel of one clip read so far:
/// sampling bakes each such combination once (`anim::tracks` copies the result to the
/// other channels that have it), so only a new one is charged for its expansion.
type Baked = std::collections::HashSet<(usize, usize, Interpolation, Property)>;

/// Where a channel is in the file: animation, channel (file index) and its sampler.
#[derive(Clone, Copy)]
struct Slot {
    a: usize,
    c: usize,
    s: usize,
}

fn read_channel(
    src: &Source<'_>,
    meshes: &[Mesh],
    Slot { a, c, s }: Slot,
    target: Target,
    by_pointer: bool,
    baked: &mut Baked,
    findings: &mut Findings,
) -> Result<Channel, Fault> {
    let root = src.json();
    let at = format!("animations[{a}].channels[{c}]");
    let Target { node, property } = target;
    // A pointer channel may store any component type, normalized or not (the pointer spec's
    // conversion rules); the accessor's own flag then says how integers decode. A core
    // channel's integers are always normalized.
    let stored_normalized = root
        .animations
        .get(a)
        .and_then(|x| x.samplers.get(s))
        .and_then(|x| root.accessors.get(x.output.value()).map(|acc| acc.normalized));
    let normalized = !by_pointer || stored_normalized.unwrap_or(false);
    let pointer_format;
    let format = match (property, by_pointer) {
        (Property::Translation | Property::Scale, false) => &VEC3_OUTPUT,
        (Property::Rotation, false) => &ROTATION_OUTPUT,
        (Property::Weights, false) => &WEIGHTS_OUTPUT,
        (_, true) => {
            let ty = match property {
                Property::Translation | Property::Scale => T::Vec3,
                Property::Rotation => T::Vec4,
                Property::Weights => T::Scalar,
            };
            pointer_format = pointer::output_format(ty, normalized);
            &pointer_format
        }
    };
    let components = match property {
        Property::Translation | Property::Scale => 3,
        Property::Rotation => 4,
        Property::Weights => morph_count(root, meshes, node, &at)?,
    };
    let (times, interpolation) = read_times(src, a, c, s, findings)?;
    let out_at = format!("animations[{a}].samplers[{s}].output");
    let Some(output) = root.animations.get(a).and_then(|x| x.samplers.get(s)).map(|x| x.output.value())
    else {
        return Err(Fault::new(format!("{at}.sampler"), format!("sampler {s} does not exist")));
    };
    let out_acc = src.check(output, format, &out_at, findings)?;
    let form = Form::Floats { normalized: normalized && out_acc.component != C::F32 };
    let values: Arc<[f32]> = src.shared(&out_acc, form, &out_at, || {
        read_values(src, &out_acc, property, normalized, &out_at).map(Arc::from)
    })?;
    let keys = (Arc::as_ptr(&times).cast::<f32>() as usize, Arc::as_ptr(&values).cast::<f32>() as usize);
    if baked.insert((keys.0, keys.1, interpolation, property)) {
        src.charge_expanded(&out_acc, budget::SAMPLER_EXPANSION, &out_at)?;
    }

    let per_key = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
    let morphs = if property == Property::Weights { components } else { 1 };
    let keys = times.len();
    let expected = keys * per_key * morphs;
    if out_acc.count != expected {
        let formula = match (per_key, morphs) {
            (1, 1) => format!("{keys}"),
            (1, w) => format!("{keys} * {w} morph targets = {expected}"),
            (_, 1) => format!("3 * {keys} = {expected}"),
            (_, w) => format!("3 * {keys} * {w} morph targets = {expected}"),
        };
        let name = match interpolation {
            Interpolation::Step => "STEP",
            Interpolation::Linear => "LINEAR",
            Interpolation::CubicSpline => "CUBICSPLINE",
        };
        return Err(Fault::new(
            out_at,
            format!(
                "accessors[{output}] has {} elements but {name} with {keys} keys needs {formula}",
                out_acc.count
            ),
        ));
    }

    accessors::report_non_finite(findings, output, components, values.iter().copied(), "key");
    if property == Property::Rotation {
        report_non_unit(findings, output, &values, per_key);
    }
    Ok(Channel { node, property, interpolation, times, values, components })
}

fn morph_count(root: &json::Root, meshes: &[Mesh], node: usize, at: &str) -> Result<usize, Fault> {
    let mesh = root.nodes.get(node).and_then(|n| n.mesh).map(|m| m.value());
    let Some(m) = mesh else {
        return Err(Fault::new(
            format!("{at}.target"),
            format!("animates weights but nodes[{node}] has no mesh"),
        ));
    };
    let count = meshes.get(m).map_or(0, |mesh| mesh.default_weights.len());
    if count == 0 {
        return Err(Fault::new(
            format!("{at}.target"),
            format!("animates weights but meshes[{m}] has no morph targets"),
        ));
    }
    Ok(count)
}

/// Output values flattened to f32: FLOAT as stored, normalized integers by the glTF spec's
/// decoding, other integers as their plain values (`KHR_animation_pointer` allows those).
fn read_values(
    src: &Source<'_>,
    acc: &CheckedAccessor,
    property: Property,
    normalized: bool,
    at: &str,
) -> Result<Vec<f32>, Fault> {
    fn decoded<I: Item + Copy, const N: usize>(
        src: &Source<'_>,
        acc: &CheckedAccessor,
        at: &str,
        f: fn(I) -> f32,
    ) -> Result<Vec<f32>, Fault>
    where
        [I; N]: Item,
    {
        let iter = accessors::items::<[I; N]>(src, acc.index).map(|i| i.map(|v| v.map(f)));
        Ok(accessors::collect(acc, iter, [0.0; N], at)?.into_iter().flatten().collect())
    }
    fn vectors<const N: usize>(
        src: &Source<'_>,
        acc: &CheckedAccessor,
        normalized: bool,
        at: &str,
    ) -> Result<Vec<f32>, Fault>
    where
        [f32; N]: Item,
        [i8; N]: Item,
        [u8; N]: Item,
        [i16; N]: Item,
        [u16; N]: Item,
    {
        match (acc.component, normalized) {
            (C::I8, true) => decoded::<i8, N>(src, acc, at, snorm8),
            (C::U8, true) => decoded::<u8, N>(src, acc, at, unorm8),
            (C::I16, true) => decoded::<i16, N>(src, acc, at, snorm16),
            (C::U16, true) => decoded::<u16, N>(src, acc, at, unorm16),
            (C::I8, false) => decoded::<i8, N>(src, acc, at, f32::from),
            (C::U8, false) => decoded::<u8, N>(src, acc, at, f32::from),
            (C::I16, false) => decoded::<i16, N>(src, acc, at, f32::from),
            (C::U16, false) => decoded::<u16, N>(src, acc, at, f32::from),
            _ => decoded::<f32, N>(src, acc, at, std::convert::identity),
        }
    }
    fn scalars<I: Item + Copy>(
        src: &Source<'_>,
        acc: &CheckedAccessor,
        at: &str,
        f: fn(I) -> f32,
    ) -> Result<Vec<f32>, Fault> {
        accessors::collect(acc, accessors::items::<I>(src, acc.index).map(|i| i.map(f)), 0.0, at)
    }
    match (property, acc.component, normalized) {
        (Property::Translation | Property::Scale, ..) => vectors::<3>(src, acc, normalized, at),
        (Property::Rotation, ..) => vectors::<4>(src, acc, normalized, at),
        (Property::Weights, C::I8, true) => scalars::<i8>(src, acc, at, snorm8),
        (Property::Weights, C::U8, true) => scalars::<u8>(src, acc, at, unorm8),
        (Property::Weights, C::I16, true) => scalars::<i16>(src, acc, at, snorm16),
        (Property::Weights, C::U16, true) => scalars::<u16>(src, acc, at, unorm16),
        (Property::Weights, C::I8, false) => scalars::<i8>(src, acc, at, f32::from),
        (Property::Weights, C::U8, false) => scalars::<u8>(src, acc, at, f32::from),
        (Property::Weights, C::I16, false) => scalars::<i16>(src, acc, at, f32::from),
        (Property::Weights, C::U16, false) => scalars::<u16>(src, acc, at, f32::from),
        (Property::Weights, ..) => scalars::<f32>(src, acc, at, std::convert::identity),
    }
}

fn report_times(findings: &mut Findings, a: usize, s: usize, input: usize, times: &[f32]) {
    let pointer = format!("/animations/{a}/samplers/{s}/input");
    accessors::report_non_finite(findings, input, 1, times.iter().copied(), "key time");
    // Once per key, as the validator's AnimationInputChecker reports; a sampler
    // read again for another channel is not reported twice.
    for issue in crate::rig::key_times::key_time_issues(times) {
        findings.push_element(issue.code, Severity::Error, &pointer, issue.key, issue.message);
    }
}

/// Rotation keys must be unit quaternions; for CUBICSPLINE only the values (the middle of
/// each in-tangent/value/out-tangent triple) are, tangents need not be.
fn report_non_unit(findings: &mut Findings, output: usize, values: &[f32], per_key: usize) {
    let mut bad = 0usize;
    let mut first = None;
    for (e, q) in values.chunks_exact(4).enumerate() {
        if per_key == 3 && e % 3 != 1 {
            continue;
        }
        let len = q.iter().map(|v| v * v).sum::<f32>().sqrt();
        if len.is_nan() || (len - 1.0).abs() > UNIT_TOLERANCE {
            bad += 1;
            first.get_or_insert((e, len));
        }
    }
    if let Some((e, len)) = first {
        findings.push(
            "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION",
            Severity::Error,
            format!("/accessors/{output}"),
            format!("{bad} rotation key(s) are not unit quaternions (first: element {e}, length {len})"),
        );
    }
}
